# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# battery_1d.sh: the tests every 1D chapter gets, sourced by ctest_list.sh once per chapter.
#   reads  the chapter: $nn, $solution, $exercise, $sanitizers, $first_of_dims; its program's
#          own kernels where it has several: $kernels (comma-separated); its limits: $max_width,
#          $block_min, $block_max, $block_needed; $root, $b, $expect, $fixtures; adds with add,
#          refuses and modes_and_guard (ctest_list.sh)
# In order: the mode and guard tests (modes_and_guard), command-line errors (CPU), the GPU
# battery (run for the solution and for the exercise), the solution's other tests, the
# sanitizers.
#
# Lengths straddle warp and block boundaries; every mask width from 1 to the maximum runs at each
# length up to 2^20, with random data and a random mask drawn fresh on every run (the seed is
# printed).
#
# The run, bench and JSON modes on 2^20 values (bench: masks of 5 and 31, its table with a column
# "vs CPU 1T"); the guard on 4097, where the unsolved exercise's check prints FAIL.
modes_and_guard 1048576 5,31 "vs CPU 1T.*" 1000 7 4097 "FAIL"
# Block sizes at their limits: the smallest the chapter's kernel takes with the widest mask (1,
# or 31 where each thread loads at most one halo cell), a warp, a warp plus one, a non-power of
# two, and the maximum.
blocks="$block_needed 32 33 96 $block_max"
named_masks="box gaussian sharpen laplacian sobel emboss"
refuses unknown_option "unknown option" --frobnicate
refuses positional_argument "unexpected argument" 4097
refuses length_zero "out of range" --size 0
refuses length_negative "out of range" --size -5
refuses length_too_big "out of range" --size 2000000000
refuses length_not_number "not a whole number" --size 12abc
refuses length_2d "2D" --size 10x10
refuses mask_width_zero "out of range" --mask-width 0
refuses mask_width_negative "out of range" --mask-width -3
refuses mask_width_over_max "out of range" --mask-width $((max_width + 1))
refuses mask_unknown "unknown mask" --mask blurry
refuses mask_file_missing "cannot open" --mask-file "$fixtures/no_such_mask.txt"
refuses mask_file_wrong_count "has 3 values but --mask-width is 5" \
    --mask-file "$fixtures/mask_3.txt" --mask-width 5
refuses mask_file_not_numbers "not a number" --mask-file "$fixtures/mask_words.txt"
refuses mask_file_nan "not a finite" --mask-file "$fixtures/mask_nan.txt"
refuses mask_file_ragged "row has" --mask-file "$fixtures/mask_ragged.txt"
refuses mask_file_2d "needs one row" --mask-file "$fixtures/mask_3x3.txt"
refuses mask_file_too_wide "at most $max_width" --mask-file "$fixtures/mask_65.txt"
refuses mask_file_empty "no numbers" --mask-file "$fixtures/mask_empty.txt"
refuses input_missing "cannot open" --input "$fixtures/no_such_signal.npy"
refuses input_not_npy "npy" --input "$fixtures/not_numpy.npy"
refuses input_truncated "$fixtures/truncated.npy" --input "$fixtures/truncated.npy"
refuses input_png "from .npy files" --input "$fixtures/not_a_png.png"
refuses input_2d "1-D signal" --input "$fixtures/array_2x3.npy"
refuses input_nan "non-finite" --input "$fixtures/signal_nan.npy"
refuses input_and_size "not both" --input "$fixtures/signal_33.npy" --size 5
refuses output_is_input "refusing to overwrite" \
    --input "$fixtures/signal_33.npy" --output "$fixtures/../fixtures/signal_33.npy"
refuses output_png "write .npy" --output "$b/out/x.png"
refuses block_zero "out of range" --block $((block_min - 1))
refuses block_too_big "out of range" --block $((block_max + 1))
refuses reps_too_few "out of range" --reps 5
refuses seed_not_number "not a whole number" --seed 0x10
refuses check_and_bench "not both" --check --bench
refuses value_missing "needs a value" --size

# GPU battery, run for the solution (must pass) and for the exercise (`make check CH=NN`).
# battery KIND BINARY [KERNEL]: KERNEL, one of a chapter's own kernels where it has several
# ($kernels, from --spec: chapter 04's two exercises), is checked alone (--kernel) in tests named
# chNN_KIND_KERNEL_*, so that make check and the grader report each kernel apart.
battery() {
    kind=$1 binary=$2 labels="gpu;ch$nn;$1"
    [ -z "${3:-}" ] || kind="${1}_$3"
    # Each kernel is checked in its own chapter: the earlier chapters' kernels shown beside this
    # one are left out here (--own-kernels) and run once, in the all_kernels test below.
    own=--own-kernels
    [ -z "${3:-}" ] || own="--kernel=$3"
    # The quick stage of `make check`: the sizes and blocks that catch most bugs, in seconds.
    add "ch${nn}_${kind}_quick_lengths" "$labels;quick" "$binary" --check "$own" --size 1,33,4097 \
        --mask-width "1:$max_width"
    add "ch${nn}_${kind}_quick_blocks" "$labels;quick" "$binary" --check "$own" --size 37,4097 \
        --block "$block_needed" --mask-width "1,2,5,$max_width"
    # A student's check gets a test per length (partial credit, a short log per failure); the
    # reference runs them all in one process: make test then starts 28 fewer GPU processes, each
    # of which pays for a CUDA context while the others wait their turn on the one GPU.
    lengths="1 2 31 32 33 1000 4097 1048576"
    if [ "$kind" = solution ]; then
        add "ch${nn}_solution_lengths" "$labels" "$binary" --check "$own" \
            --size "$(echo "$lengths" | tr ' ' ,)" --mask-width "1:$max_width"
    else
        for n in $lengths; do
            add "ch${nn}_${kind}_length_$n" "$labels" "$binary" --check "$own" --size "$n" --mask-width "1:$max_width"
        done
    fi
    add heavy cost=50 "ch${nn}_${kind}_length_67108864" "$labels" "$binary" --check "$own" \
        --size 67108864 --mask-width "1,2,3,4,5,6,7,8,15,16,31,32,33,62,$max_width"
    # Blocks and named masks likewise: one process each for the reference, one per item for yours.
    if [ "$kind" = solution ]; then
        add "ch${nn}_solution_blocks" "$labels" "$binary" --check "$own" --block "$(echo "$blocks" | tr ' ' ,)" \
            --size 1,37,1000,4097 --mask-width "1:$max_width"
        add "ch${nn}_solution_masks" "$labels" "$binary" --check "$own" --mask "$(echo "$named_masks" | tr ' ' ,)" \
            --size 4097 --mask-width "1:$max_width"
    else
        for block in $blocks; do
            add "ch${nn}_${kind}_block_$block" "$labels" "$binary" --check "$own" --block "$block" \
                --size 1,37,1000,4097 --mask-width "1:$max_width"
        done
        for mask in $named_masks; do
            add "ch${nn}_${kind}_mask_$mask" "$labels" "$binary" --check "$own" --mask "$mask" \
                --size 4097 --mask-width "1:$max_width"
        done
    fi
}
battery solution "$solution"
if [ -z "$kernels" ]; then
    battery exercise "$exercise"
else
    for kernel in $(echo "$kernels" | tr , ' '); do battery exercise "$exercise" "$kernel"; done
fi
# Every kernel the program shows, the earlier chapters' included, side by side on the quick sizes.
add "ch${nn}_solution_all_kernels" "gpu;ch$nn;solution" "$solution" --check --size 1,33,4097 \
    --mask-width "1:$max_width"

add "ch${nn}_solution_input_npy" "gpu;ch$nn;solution" "$expect" --gpu 0 "wrote .*chirp_derivative" -- \
    "$solution" --check --input "$root/data/signals/chirp_4099.npy" \
    --mask-file "$root/data/masks/derivative_5.txt" --output "$b/out/ch${nn}_chirp_derivative.npy"
# --output never destroys a file (safe_output.h), checked through the real program: the 1D
# harness's, with the first 1D chapter (first_of_dims, ctest_list.sh).
if [ "$first_of_dims" = 1 ]; then add "ch${nn}_solution_output_safety" "gpu;ch$nn;solution" \
        "$root/tests/output_safety.sh" "$solution" "$fixtures/signal_33.npy" \
        "$b/out/ch${nn}_output_safety"
fi
# WB_SEED (the grader's GRADE_SEED, cli.c) stands for --seed where none is given, and --seed wins.
if [ "$first_of_dims" = 1 ]; then
    add "ch${nn}_solution_seed_variable" "gpu;ch$nn;solution" "$expect" --gpu 0 '"seed":4242,' -- \
        env WB_SEED=4242 "$solution" --check --json --size 33 --mask-width 5
    add "ch${nn}_solution_seed_option_wins" "gpu;ch$nn;solution" "$expect" --gpu 0 '"seed":7,' -- \
        env WB_SEED=4242 "$solution" --check --json --size 33 --mask-width 5 --seed 7
fi
# compute-sanitizer, the tools the registry names: memcheck for every chapter; racecheck where
# blocks share memory (a missing __syncthreads() usually still gives right answers, but
# racecheck sees the hazard). memcheck's lengths include 31, one short of a multiple of 4 and 8:
# a vector store that takes the last group for a whole one writes one element past the output
# (which stays inside the allocation's rounding, so only memcheck sees it).
# The exercise's kernels, each alone where the chapter has several (as in its battery).
exercise_runs=exercise
[ -z "$kernels" ] || exercise_runs=$(echo "$kernels" | tr , '\n' | sed 's/^/exercise_/')
for run in solution $exercise_runs; do
    kind=${run%%_*} binary=$solution own=--own-kernels
    [ "$kind" = exercise ] && binary=$exercise
    [ "$run" = "$kind" ] || own="--kernel=${run#*_}"
    for tool in $sanitizers; do
        case $tool in
        memcheck) args="--size 1,31,33,4097 --mask-width 1:$max_width --block 33" ;;
        racecheck) args="--size 33,4097 --mask-width 1,2,5,31,$max_width --block 64" ;;
        esac
        # shellcheck disable=SC2086 # own, args: several options, split on purpose
        add sanitizer "ch${nn}_${run}_$tool" "gpu;ch$nn;$kind" "$root/tests/sanitize.sh" "$tool" \
            "$binary" --check "$own" $args
    done
done
