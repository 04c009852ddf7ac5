# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_04.sh: chapter 04's own tests, beside the 1D battery (sourced by ctest_list.sh with $nn,
# $solution set): --own-kernels keeps the chapter's kernels (its exercise and the register-tiled
# one) and leaves out the earlier chapters' shown beside them.
add "ch04_solution_own_kernels" "gpu;ch04;solution" "$root/tests/own_kernels.sh" "$solution" \
    "beyond: regs" "ch01 basic"
# --kernel names one of the chapter's two kernels (its exercises), checked alone by the battery.
refuses kernel_unknown "--kernel: 'tiled' is not one of cached, register" --kernel tiled
