# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_09.sh: chapter 09's own tests, beside the 3D battery (sourced by ctest_list.sh with
# $nn, $solution, $exercise, $fixtures set): long marches on small volumes, and the 2.5D kernel
# against an independent reference, scipy.ndimage.correlate (skipped, 77, where Python 3, scipy
# or a GPU is missing).
non_cubic_09="1x7x1,7x1x1,1x1x7,3x5x7,7x5x3,2x4x6,6x2x4,4x6x2,5x3x1,2x3x4,3x4x5"
usage_error "ch09_z_chunk_not_number" "WB_CONV3D_Z_CHUNK='soon' is not a whole number" \
    env WB_CONV3D_Z_CHUNK=soon "$solution" --check --size 8
usage_error "ch09_no_tma_not_switch" "WB_CONV3D_NO_TMA='yes' is neither 0 nor 1" \
    env WB_CONV3D_NO_TMA=yes "$solution" --check --size 8

# The 2.5D kernel gives a small volume chunks of a slice or two (enough blocks for a large GPU),
# so its blocks would march through many planes only at 512^3: WB_CONV3D_Z_CHUNK makes them
# march through the whole depth (every stage of the ring reused, the queue shifting between
# stored slices), or through chunks of 5 slices with a shorter last one, and the sanitizers
# watch long marches too. Yours as well: `make check CH=09` runs them. A width of 132 gives the
# two-outputs-along-x kernels (64 columns a block) three blocks along x, the last one with 4
# columns, through TMA (a width that is a multiple of 4) on sm_90.
for kind in solution exercise; do
    binary=$solution
    [ $kind = exercise ] && binary=$exercise
    add "ch09_${kind}_long_march" "gpu;ch09;$kind" env WB_CONV3D_Z_CHUNK=65535 "$binary" \
        --check --own-kernels --size 17x33x31,40x37x29,1x1x300 --mask-width "1:7,$non_cubic_09"
    add "ch09_${kind}_chunks_of_5" "gpu;ch09;$kind" env WB_CONV3D_Z_CHUNK=5 "$binary" \
        --check --own-kernels --size 17x33x31,9x8x23,40x9x23,132x5x9 \
        --mask-width "1:7,2x3x4,3x4x5"
done
# Planes come through the Tensor Memory Accelerator where the width is a multiple of 4 (on
# sm_90), through cp.async elsewhere: the same volumes both ways.
add "ch09_solution_without_tma" "gpu;ch09;solution" env WB_CONV3D_NO_TMA=1 \
    WB_CONV3D_Z_CHUNK=7 "$solution" --check --own-kernels --size 40x37x29 \
    --mask-width "1,2,3,5,7,3x5x7,2x4x6,5x3x1"
# memcheck on a width of 36 (TMA's ring and barriers), racecheck on 37 (cp.async: every
# thread's copies into the ring are shared-memory writes it can watch).
for tool in memcheck racecheck; do
    width=36
    [ $tool = racecheck ] && width=37
    add sanitizer "ch09_solution_long_march_$tool" "gpu;ch09;solution" env WB_CONV3D_Z_CHUNK=65535 \
        "$root/tests/sanitize.sh" $tool "$solution" --check --own-kernels --size ${width}x35x9 \
        --mask-width "3,7,2x5x3"
done
add "ch09_solution_scipy" "gpu;ch09;solution" sh -c \
    'command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }; exec python3 "$@"' \
    scipy_3d "$root/tests/scipy_3d.py" "$solution" "$b/tests/scipy_3d"
