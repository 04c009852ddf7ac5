# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# battery_2d.sh: the tests every 2D chapter gets, sourced by ctest_list.sh once per chapter.
#   reads  the chapter: $nn, $solution, $exercise, $sanitizers, $first_of_dims, $battery_blocks
#          (the registry's, or the default); its program's limits: $max_width, $block_max,
#          $block_needed; $root, $b, $expect, $fixtures; adds with add, refuses and
#          modes_and_guard (ctest_list.sh)
# In order: the mode and guard tests (modes_and_guard), command-line errors (CPU), the GPU
# battery (run for the solution and for the exercise, sanitizers included), the solution's other
# tests, the harness's tests (with the first 2D chapter).
#
# Sizes include 1x1, 1xN, Nx1 and sizes that are no multiple of any tile; pitched rows are wider
# than the image (1000 floats = 4000 bytes are padded to a 4096-byte pitch); every square mask up
# to the maximum, odd and even, plus non-square ones; PNGs of 1 to 4 channels; random data and
# masks drawn fresh each run.
#
# The run and bench modes on 1024x768 (bench: masks of 3 and 5, its table with a column "vs
# naive"), JSON on 100x100; the guard on 100x37, with the chapter's default mask (the one its
# exercise kernel is built for), where the unsolved exercise's check prints its error map.
modes_and_guard 1024x768 3,5 "vs naive" 100x100 3 100x37 "error map"
max_side=$max_width
# Sanitizer runs use blocks of 16 (or what the largest mask needs), small enough to cut many
# tile seams in a 100x37 image.
sanitize_block=16
[ "$block_needed" -gt 16 ] && sanitize_block=$block_needed
refuses unknown_option "unknown option" --frobnicate
refuses size_zero "out of range" --size 0x5
refuses size_too_wide "out of range" --size 70000x1
refuses size_too_many_pixels "more than" --size 20000x20000
refuses size_not_number "not a whole number" --size 10xabc
refuses mask_over_max "out of range" --mask-width $((max_side + 1))
refuses mask_height_over_max "out of range" --mask-width "5x$((max_side + 1))"
refuses mask_zero "out of range" --mask-width 0x3
refuses mask_file_too_big "at most ${max_side}x${max_side}" --mask-file "$fixtures/mask_65.txt"
refuses mask_file_mismatch "is 3x3 but --mask-width is 5x5" \
    --mask-file "$fixtures/mask_3x3.txt" --mask-width 5
refuses mask_file_ragged "row has" --mask-file "$fixtures/mask_ragged.txt"
refuses block_over_max "out of range" --block $((block_max + 1))
refuses input_missing "cannot open" --input "$fixtures/no_such_image.png"
refuses input_not_png "not a PNG" --input "$fixtures/not_a_png.png"
refuses input_truncated_png "truncated|corrupt" --input "$fixtures/truncated.png"
refuses input_huge_png "over the limit" --input "$fixtures/huge_header.png"
refuses input_png_claims_too_much "deflate cannot expand" \
    --input "$fixtures/tiny_claims_huge_rgba16_interlaced.png"
refuses input_npy_1d "expected shape" --input "$fixtures/signal_33.npy"
refuses input_npy_nan "expected shape|non-finite" --input "$fixtures/signal_nan.npy"
refuses output_bad_extension "write a .png or a .npy" --output "$b/out/x.bmp"
refuses output_is_input "refusing to overwrite" \
    --input "$fixtures/gray8_13x7.png" --output "$fixtures/gray8_13x7.png"

# More GPU memory than the device has (simulated with WB_GPU_MEMORY_LIMIT_MIB): exit 2, clearly.
add "ch${nn}_too_big_for_gpu" "gpu;ch$nn;solution" "$expect" --gpu 2 "needs .* MiB of GPU memory" -- \
    env WB_GPU_MEMORY_LIMIT_MIB=64 "$solution" --check --size 8192x8192 --mask-width 3

battery() {
    kind=$1 binary=$2 labels="gpu;ch$nn;$1"
    # Each kernel is checked in its own chapter: the kernels shown beside this one (earlier
    # chapters', libraries', baselines) are left out here (--own-kernels) and run once, in the
    # all_kernels test below.
    own=--own-kernels
    # The quick stage of `make check`: the sizes and blocks that catch most bugs, in seconds.
    add "ch${nn}_${kind}_quick_sizes" "$labels;quick" "$binary" --check $own --size 1x1,33x31,1000x777 \
        --mask-width "1,2,3,4,5x3,$max_side"
    add "ch${nn}_${kind}_quick_blocks" "$labels;quick" "$binary" --check $own --size 37x33 \
        --block "$sanitize_block" --mask-width "1,3,4,$max_side"
    add "ch${nn}_${kind}_odd_sizes" "$labels" "$binary" --check $own \
        --size 1x1,1x300,300x1,33x31,1000x777 --mask-width "1:$max_side"
    add "ch${nn}_${kind}_non_square_masks" "$labels" "$binary" --check $own --size 1000x777,37x1,1x37 \
        --mask-width "1x$max_side,${max_side}x1,5x3,3x5,2x7,7x2,4x6,${max_side}x14"
    # with a 31x31 mask this test took 13 s (chapter 06) and 27 s (07) on the H100: start it early
    add heavy cost=$((max_side > 16 ? 70 : 50)) "ch${nn}_${kind}_standard" "$labels" "$binary" \
        --check $own --size 8192x8192 --mask-width "3,4,7,$max_side"
    # A block smaller than the largest mask takes the masks up to its own size; those at least
    # as large take them all. The reference runs all of the latter, every named mask and every
    # PNG in one process each (each process pays for a CUDA context, the GPU's serial part of
    # make test); yours, one process per item, so that a failure names it.
    large_blocks=
    for block in $battery_blocks; do
        if [ "$block" -ge "$max_side" ] && [ "$kind" = solution ]; then
            large_blocks="${large_blocks:+$large_blocks,}$block"
            continue
        fi
        widths="1:$max_side"
        [ "$block" -lt "$max_side" ] && widths="1:$block"
        add "ch${nn}_${kind}_block_$block" "$labels" "$binary" --check $own --block "$block" \
            --size 1000x777,31x33 --mask-width "$widths"
    done
    [ -n "$large_blocks" ] && add cost=30 "ch${nn}_solution_blocks_$(echo "$large_blocks" | tr , _)" \
        "$labels" "$binary" --check $own --block "$large_blocks" --size 1000x777,31x33 \
        --mask-width "1:$max_side"
    named_masks="box gaussian sharpen laplacian sobel emboss"
    pngs="gray8_13x7 gray_alpha8_9x5 rgb16_10x6 rgba8_17x3 palette4_7x7"
    if [ "$kind" = solution ]; then
        add "ch${nn}_solution_masks" "$labels" "$binary" --check $own --mask "$(echo "$named_masks" | tr ' ' ,)" \
            --size 1000x777 --mask-width 3,4,9,5x3
        # shellcheck disable=SC2046 # an --input PATH pair per PNG, split on purpose
        add "ch${nn}_solution_pngs" "$labels" "$binary" --check $own \
            $(for png in $pngs; do printf -- '--input %s ' "$fixtures/$png.png"; done) --mask-width 3
    else
        for mask in $named_masks; do
            add "ch${nn}_${kind}_mask_$mask" "$labels" "$binary" --check $own --mask "$mask" \
                --size 1000x777 --mask-width 3,4,9,5x3
        done
        for png in $pngs; do
            add "ch${nn}_${kind}_png_$png" "$labels" "$binary" --check $own --input "$fixtures/$png.png" \
                --mask-width 3
        done
    fi
    add cost=30 "ch${nn}_${kind}_photo" "$labels" "$binary" --check $own \
        --input "$root/data/images/coffee.png" --mask-width "1:$max_side"
    for tool in $sanitizers; do
        # NPP's own kernel reads out of bounds under memcheck (see baseline_npp.cu): leave it out.
        add sanitizer "ch${nn}_${kind}_$tool" "$labels" env WB_SKIP_NPP=1 "$root/tests/sanitize.sh" \
            "$tool" "$binary" --check $own --size 100x37 --mask-width "1,2,3,5,4x6,$max_side" \
            --block "$sanitize_block"
    done
}
battery solution "$solution"
battery exercise "$exercise"
# Every kernel the program shows (earlier chapters', libraries', baselines), side by side on the
# quick sizes and one larger odd size.
add "ch${nn}_solution_all_kernels" "gpu;ch$nn;solution" "$solution" --check \
    --size 1x1,33x31,1000x777,2049x1031 --mask-width "1,2,3,4,5x3,$max_side"

add "ch${nn}_solution_mask_file" "gpu;ch$nn;solution" "$solution" --check --own-kernels \
    --size 1000x777 --mask-file "$fixtures/mask_3x3.txt"
# The 2D harness's files and memory, with the first 2D chapter (first_of_dims, ctest_list.sh):
if [ "$first_of_dims" = 1 ]; then
    # The files written: the chapter's own kernels are enough (--own-kernels), and leaving out the
    # libraries' start-up (cuFFT, NPP: seconds a process) keeps make test short.
    add "ch${nn}_solution_png_output" "gpu;ch$nn;solution" "$expect" --gpu 0 "wrote .*rgba_blur.png" -- \
        "$solution" --check --own-kernels --input "$fixtures/rgba8_17x3.png" --mask box \
        --mask-width 3 --output "$b/out/ch${nn}_rgba_blur.png"
    add "ch${nn}_solution_npy_output" "gpu;ch$nn;solution" "$expect" --gpu 0 "wrote .*gray_blur.npy" -- \
        "$solution" --check --own-kernels --input "$fixtures/gray8_13x7.png" --mask gaussian \
        --mask-width 5 --output "$b/out/ch${nn}_gray_blur.npy"
    # --output never destroys a file (safe_output.h), checked through the real program.
    add "ch${nn}_solution_output_safety" "gpu;ch$nn;solution" "$root/tests/output_safety.sh" \
        "$solution" "$fixtures/gray8_13x7.png" "$b/out/ch${nn}_output_safety"
    add "ch${nn}_solution_alpha_passthrough" "gpu;ch$nn;solution" "$root/tests/alpha_passthrough.sh" \
        "$solution" "$b/imginfo" "$fixtures/rgba8_17x3.png" "$b/out/ch${nn}_rgba_alpha.png"
    # cudaMallocPitch pads a row of 1000 floats (4000 bytes) to a wider pitch on every GPU.
    add "ch${nn}_solution_pitch_wider_than_row" "gpu;ch$nn;solution" "$expect" --gpu 0 \
        "pitch (4[0-9][0-9][1-9]|4[0-9][1-9][0-9]|4[1-9][0-9][0-9]|[5-9][0-9]{3}|[0-9]{5,}) bytes for rows of 4000" -- \
        "$solution" --check --size 1000x777 --mask-width 5
fi
