# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_05.sh: chapter 05's own tests, beside the 2D battery (sourced by ctest_list.sh with $nn,
# $solution set): --own-kernels keeps the tiled kernel and leaves out the naive baselines.
add "ch05_solution_own_kernels" "gpu;ch05;solution" "$root/tests/own_kernels.sh" "$solution" \
    "ch05 tiled" "naive global"
