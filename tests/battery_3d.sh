# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# battery_3d.sh: the tests every 3D chapter gets, sourced by ctest_list.sh once per chapter.
#   reads  the chapter: $nn, $solution, $exercise, $sanitizers; its program's limits: $max_width,
#          $block_max; $root, $b, $expect, $fixtures; adds with add, refuses and
#          modes_and_guard (ctest_list.sh)
# In order: the mode and guard tests (modes_and_guard), command-line errors (CPU), the GPU
# battery (run for the solution and for the exercise, sanitizers included), the solution's other
# tests. Its harness's files are checked with every 3D chapter (one so far).
#
# Volumes of one voxel, one row along x, one column along z, odd sizes that are no multiple of
# any tile or chunk, and 512^3; every cube mask from 1 to the largest and non-cubic ones with
# every side from 1 to 7 somewhere; every named mask; random data and masks drawn fresh each run
# (the seed is printed); outputs poisoned with NaN before each launch.
#
# The run and bench modes on 64x48x40 (bench: masks of 3 and 5, its table with a column "vs
# naive"), JSON on 20x16x12; the guard on 37x35x9, where the unsolved exercise's check prints
# where it mismatches.
modes_and_guard 64x48x40 3,5 "vs naive" 20x16x12 3 37x35x9 \
    "mismatch at x=[0-9]+ y=[0-9]+ z=[0-9]+"
max_side=$max_width
# One volume a side of each length 1..7 on each axis, odd and even, with the others different.
non_cubic="1x7x1,7x1x1,1x1x7,3x5x7,7x5x3,2x4x6,6x2x4,4x6x2,5x3x1,7x7x1,1x7x7,7x1x7,2x3x4,3x4x5"
named_masks="box gaussian laplacian7 laplacian27 random"

refuses unknown_option "unknown option" --frobnicate
refuses size_zero "out of range" --size 0x5x5
refuses size_2d "is 2D: a volume takes WxHxD" --size 17x33
refuses size_too_many_voxels "more than" --size 2048x1024x1024
refuses size_not_number "not a whole number" --size 10x10xabc
refuses mask_over_max "out of range" --mask-width $((max_side + 1))
refuses mask_depth_over_max "out of range" --mask-width "3x3x$((max_side + 1))"
refuses mask_unknown "unknown volume mask .sobel." --mask sobel
refuses mask_laplacian_too_small "needs at least 3x3x3" --mask laplacian27 --mask-width 2
refuses mask_file_too_big "at most $max_side per axis" --mask-file "$fixtures/mask3d_8x8x8.txt"
refuses mask_file_ragged_slices "ragged slices" --mask-file "$fixtures/mask3d_ragged_slices.txt"
refuses mask_file_ragged_rows "row has" --mask-file "$fixtures/mask_ragged.txt"
refuses mask_file_mismatch "is 3x3x2 but --mask-width is 3x3x3" \
    --mask-file "$fixtures/mask3d_3x3x2.txt" --mask-width 3
refuses input_missing "cannot open" --input "$fixtures/no_such_volume.npy"
refuses input_not_npy "a volume is a .npy file" --input "$fixtures/gray8_13x7.png"
refuses input_2d "is a 2-D array: a volume is 3-D" --input "$fixtures/array_2x3.npy"
refuses input_4d "is a 4-D array: a volume is 3-D" --input "$fixtures/volume_4d.npy"
refuses input_nan "holds a value that is not a finite float32" --input "$fixtures/volume_nan.npy"
refuses input_truncated "truncated|too short|corrupt" --input "$fixtures/truncated.npy"
refuses output_bad_extension "write a .npy volume or a .png montage" --output "$b/out/x.bmp"
refuses output_is_input "refusing to overwrite" \
    --input "$fixtures/volume_5x4x3.npy" --output "$fixtures/volume_5x4x3.npy"

# A volume larger than the GPU's free memory (simulated with WB_GPU_MEMORY_LIMIT_MIB): exit 2,
# naming the sizes.
add "ch${nn}_too_big_for_gpu" "gpu;ch$nn;solution" "$expect" --gpu 2 \
    "512x512x512 input volume needs 512.0 MiB of GPU memory" -- \
    env WB_GPU_MEMORY_LIMIT_MIB=256 "$solution" --check --size 512 --mask-width 3

battery() {
    kind=$1 binary=$2 labels="gpu;ch$nn;$1"
    # The quick stage of `make check`: the shapes that catch most bugs, in seconds.
    add "ch${nn}_${kind}_quick_sizes" "$labels;quick" "$binary" --check \
        --size 1x1x1,1x1x300,300x1x1,17x33x31 --mask-width "1,2,3,4,5,7,7x1x3,2x5x4"
    add "ch${nn}_${kind}_quick_blocks" "$labels;quick" "$binary" --check --size 37x35x33 \
        --block 3,8 --mask-width "1,3,4x2x3"
    add "ch${nn}_${kind}_odd_sizes" "$labels" "$binary" --check \
        --size 1x1x1,1x1x300,300x1x1,17x33x31,129x65x40 --mask-width "1:$max_side"
    add "ch${nn}_${kind}_non_cubic_masks" "$labels" "$binary" --check --size 17x33x31,129x65x40 \
        --mask-width "$non_cubic"
    # 512^3: one chunk with TMA (sm_90), 2048 blocks with cp.async; a cube of 3 (compiled) and
    # a mask 7 deep (the z halo at its widest; run-time width and height). With 7x7x7 here too,
    # the CPU reference took 36 s on 4 threads: the cubes of 5 and 7 are checked on the odd
    # sizes above.
    add heavy cost=50 "ch${nn}_${kind}_standard" "$labels" "$binary" --check --size 512 \
        --mask-width 3,2x2x7
    if [ "$kind" = solution ]; then
        add "ch${nn}_solution_masks" "$labels" "$binary" --check --mask "$(echo "$named_masks" | tr ' ' ,)" \
            --size 37x35x33 --mask-width 3,5,7
        add "ch${nn}_solution_blocks" "$labels" "$binary" --check --block "1,2,5,7,$block_max" \
            --size 37x35x33 --mask-width "1,2,3,5,7,2x5x4"
    else
        for mask in $named_masks; do
            add "ch${nn}_${kind}_mask_$mask" "$labels" "$binary" --check --mask "$mask" \
                --size 37x35x33 --mask-width 3,5,7
        done
    fi
    add "ch${nn}_${kind}_phantom" "$labels" "$binary" --check --data phantom --size 64x48x40 \
        --mask gaussian,laplacian7 --mask-width 3,5
    add "ch${nn}_${kind}_input_npy" "$labels" "$binary" --check \
        --input "$fixtures/volume_5x4x3.npy" --mask-width "1,3,5,7,3x2x1"
    for tool in $sanitizers; do
        add sanitizer "ch${nn}_${kind}_$tool" "$labels" "$root/tests/sanitize.sh" "$tool" "$binary" \
            --check --size 37x35x9 --mask-width "1,2,3,7,2x5x3" --block 7
    done
}
battery solution "$solution"
battery exercise "$exercise"

add "ch${nn}_solution_npy_output" "gpu;ch$nn;solution" "$expect" --gpu 0 "wrote the GPU result to .*ch${nn}_blur.npy" -- \
    "$solution" --check --own-kernels --input "$fixtures/volume_5x4x3.npy" --mask gaussian \
    --mask-width 3 --output "$b/out/ch${nn}_blur.npy"
add "ch${nn}_solution_png_output" "gpu;ch$nn;solution" "$expect" --gpu 0 "wrote the input's slices to .*ch${nn}_blur_input.png" -- \
    "$solution" --check --own-kernels --size 40x30x20 --data phantom --mask box --mask-width 3 \
    --output "$b/out/ch${nn}_blur.png"
add "ch${nn}_solution_mask_file" "gpu;ch$nn;solution" "$solution" --check --size 37x35x33 \
    --mask-file "$fixtures/mask3d_3x3x2.txt"
# --output never destroys a file (safe_output.h), checked through the real program.
add "ch${nn}_solution_output_safety" "gpu;ch$nn;solution" "$root/tests/output_safety.sh" \
    "$solution" "$fixtures/volume_5x4x3.npy" "$b/out/ch${nn}_output_safety"
