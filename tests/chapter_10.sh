# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_10.sh: chapter 10's own tests, beside the 2D battery (sourced by ctest_list.sh with
# $nn, $solution, $exercise, $fixtures set). The battery runs on one GPU (chapter.mk:
# battery_gpus); here: K passes on one GPU against the iterated reference, then two GPUs
# (skipped, 77, with fewer): split images of awkward heights, masks 1 to 15 rows tall at K = 7, 2
# and 1, every visible GPU (middle slabs on three or more), one process per GPU, the scaling
# study's bit-for-bit check, the bad inputs.
# Several slabs on one GPU trade through the workbook's local calls (slab_trade.h): the exercise
# and its guard (chapter.mk's guard_args) are checked on one GPU that way, with the same waits
# tested as on two.
#
# The two-GPU tests hold one lock (CTest's RESOURCE_LOCK), so they run one at a time: NCCL's
# kernels spin while they wait for their peer, and two such processes sharing a pair of GPUs
# wait for each other's time slices (on the H100 pair, a 2 s test took 40 s beside another).
# The K-pass tests on one GPU say --gpus 1 (the program's default is every visible GPU).
labels="gpu;ch10;solution"

usage_error "ch10_gpus_zero" "--gpus: 0 is out of range \(1 to 64\)" "$solution" --gpus 0
usage_error "ch10_iterations_zero" "--iterations: 0 is out of range" "$solution" --iterations 0
usage_error "ch10_iterations_words" "--iterations: 'ten' is not a whole number" \
    "$solution" --iterations ten
usage_error "ch10_halo_delay_not_number" "WB_SLABS_HALO_DELAY_US='soon' is not 0 to 100000" \
    env WB_SLABS_HALO_DELAY_US=soon "$solution" --check
usage_error "ch10_compute_delay_too_long" "WB_SLABS_COMPUTE_DELAY_US='100001' is not 0 to" \
    env WB_SLABS_COMPUTE_DELAY_US=100001 "$solution" --check
usage_error "ch10_scaling_refuses_check" "--scaling measures on generated images: drop --check" \
    "$solution" --scaling --check
# A launch that cannot work is refused before any GPU work, so these need no GPU: the launcher's
# variables (each launcher's names), --gpus against the processes started, and NCCL's id file
# (unset; or, for rank 0, one that exists: it is left as it was). Without NCCL in the build, any
# launch of several processes is refused for that instead.
usage_error "ch10_launch_rank_outside_world" "WB_RANK=2 and WB_WORLD_SIZE=2 are no rank of a" \
    env WB_RANK=2 WB_WORLD_SIZE=2 "$solution" --check
usage_error "ch10_launch_rank_words" "SLURM_PROCID=one and SLURM_NTASKS=2 are no rank of a" \
    env SLURM_PROCID=one SLURM_NTASKS=2 "$solution" --check
usage_error "ch10_launch_local_rank_words" "WB_LOCAL_RANK=first is not a whole number" \
    env WB_RANK=0 WB_WORLD_SIZE=2 WB_LOCAL_RANK=first "$solution" --check
usage_error "ch10_launch_gpus_not_processes" "--gpus 3, but Open MPI started 2 processes" \
    env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "$solution" --check --gpus 3
usage_error "ch10_launch_no_id_file" "2 processes \(MPICH\): set WB_NCCL_ID_FILE|without NCCL" \
    env -u WB_NCCL_ID_FILE PMI_RANK=1 PMI_SIZE=2 "$solution" --check
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
usage_error "ch10_launch_id_file_exists" "WB_NCCL_ID_FILE '.*/id_file_kept' exists|without NCCL" \
    sh -c 'cp "$0" "$1" && kept=$1 && shift && "$@"; rc=$?
        cmp -s "$kept" "$0" || { echo "WB_NCCL_ID_FILE was changed" >&2; exit 1; }; exit $rc' \
    "$fixtures/mask_3.txt" "$b/tests/id_file_kept" env RANK=0 WORLD_SIZE=2 \
    WB_NCCL_ID_FILE="$b/tests/id_file_kept" "$solution" --check

# K passes on one GPU: the tolerance compounds (common/iterated.h). Blurs (weights of one sign)
# for many passes: with signed weights the bound outgrows the result after a few passes (values
# cancel, their magnitudes do not), and would hide a bad halo row; random masks for two passes.
add "ch10_solution_passes" "$labels" "$solution" --gpus 1 --check --own-kernels --iterations 6 \
    --mask gaussian,box --size 1x1,1x300,300x1,33x31,401x277 --mask-width "1:7,5x3,2x6,15"
add "ch10_solution_passes_signed" "$labels" "$solution" --gpus 1 --check --own-kernels \
    --iterations 2 --size 1x300,300x1,33x31,401x277 --mask-width "1:7,5x3,2x6,15"
add "ch10_more_gpus_than_visible" "$labels" "$expect" --gpu 2 \
    "--gpus 64: only [0-9]+ GPUs? (is|are) visible" -- "$solution" --check --gpus 64
add "ch10_scaling_one_gpu" "$labels" "$solution" --gpus 1 --scaling --size 301x203 --mask-width 5 \
    --iterations 3

tall="1:7,2x6,6x2,3x8,1x9,5x10,3x11,2x12,7x13,4x14,15"
# Three and four slabs on one GPU, each trade and pass held 0.3 ms late as on two GPUs below: a
# missing wait fails; a middle slab trades both ways. late_passes holds the passes only, not the
# trade, whose own hold would give the last pass time to finish (slab_engine.h: slab k's hold
# grows down the slabs in even passes, up them in odd ones; three passes, so that the second and
# the third trade each see one direction): a trade that does not wait for its slab's last pass
# (TODO 1), or waits for another slab's, sends rows before they are written. make check and make
# grade count these.
for kind in solution exercise; do
    binary=$solution
    [ $kind = exercise ] && binary=$exercise
    add "ch10_${kind}_slabs_one_gpu" "gpu;ch10;$kind" env WB_SLABS_HALO_DELAY_US=300 \
        WB_SLABS_COMPUTE_DELAY_US=300 "$binary" --check --own-kernels --gpus 1 --slabs 3 \
        --iterations 7 --mask gaussian,box --size 1x300,67x45,401x277 --mask-width "$tall"
    add "ch10_${kind}_slabs_one_gpu_signed" "gpu;ch10;$kind" "$binary" --check --own-kernels \
        --gpus 1 --slabs 4 --iterations 2 --size 67x60,1000x777 --mask-width "1,3,4,2x9,15"
    add "ch10_${kind}_slabs_late_passes" "gpu;ch10;$kind" env WB_SLABS_COMPUTE_DELAY_US=300 \
        "$binary" --check --own-kernels --gpus 1 --slabs 4 --iterations 3 --mask gaussian,box \
        --size 67x60,401x277 --mask-width "2x6,3x8,7x13,15"
done
# make check's quick stage: the battery's quick tests use one slab, which never calls the
# exchange; this one trades between three slabs on one GPU, held late like the tests above.
add "ch10_exercise_quick_slabs" "gpu;ch10;exercise;quick" env WB_SLABS_HALO_DELAY_US=300 \
    WB_SLABS_COMPUTE_DELAY_US=300 "$exercise" --check --own-kernels --gpus 1 --slabs 3 \
    --iterations 2 --mask gaussian --size 67x45 --mask-width 5x7
usage_error "ch10_slabs_zero" "--slabs: 0 is out of range \(1 to 64\)" "$solution" --slabs 0
usage_error "ch10_slabs_scaling" "--slabs: the scaling study cuts one slab a GPU" \
    "$solution" --scaling --slabs 2

# Two GPUs against the K-pass reference at K = 7, 2 and 1: slab heights that are odd, a slab of
# exactly one mask's reach (300x14 with 15 rows), masks 1 to 15 rows tall (blurs for 7 passes,
# signed random masks for 2); the exercise too, as one GPU never calls it (make grade counts
# these). The split's result against one GPU's, bit for bit: the scaling study's check.
two="$root/tests/need_gpus.sh"
# two_gpus NAME LABELS COMMAND...: a test of several GPUs. Label multi_gpu: make test runs them
# in a phase of their own, alone (tests/run_suite.sh), and the lock runs them one at a time; the
# other tests see one GPU there, so bench mode on two GPUs is tested here too. memcheck runs on
# one GPU (the battery's): with NCCL on two GPUs it took 39 s alone and 110 s beside the suite on
# the H100 pair, and NCCL's queries about kernels built for other GPUs count there as API errors.
# They run alone, so their K-pass CPU references take 8 OpenMP threads.
two_gpus() {
    name=$1 two_labels=$2
    shift 2
    add lock=multi_gpu cost=95 threads=8 "$name" "$two_labels;multi_gpu" "$@"
}
for kind in solution exercise; do
    binary=$solution
    [ $kind = exercise ] && binary=$exercise
    # each trade and each pass held 0.3 ms late: a missing wait (TODO 1 or 4) fails every time
    two_gpus "ch10_${kind}_two_gpus" "gpu;ch10;$kind" sh "$two" 2 env \
        WB_SLABS_HALO_DELAY_US=300 WB_SLABS_COMPUTE_DELAY_US=300 "$binary" --check \
        --own-kernels --gpus 2 --iterations 7 --mask gaussian,box \
        --size 1x300,300x14,67x45,401x277 --mask-width "$tall"
    two_gpus "ch10_${kind}_two_gpus_signed" "gpu;ch10;$kind" sh "$two" 2 "$binary" \
        --check --own-kernels --gpus 2 --iterations 2 --size 300x14,67x45,1000x777 \
        --mask-width "$tall"
    two_gpus "ch10_${kind}_two_gpus_one_pass" "gpu;ch10;$kind" sh "$two" 2 "$binary" \
        --check --own-kernels --gpus 2 --iterations 1 --size 33x31,1000x777 \
        --mask-width "1,3,4,2x9,15"
    # no --gpus: every visible GPU, so that on three or more a slab trades both ways (with two,
    # no slab has a neighbour above and below)
    two_gpus "ch10_${kind}_every_gpu" "gpu;ch10;$kind" sh "$two" 2 env \
        WB_SLABS_HALO_DELAY_US=300 WB_SLABS_COMPUTE_DELAY_US=300 "$binary" --check \
        --own-kernels --iterations 7 --mask gaussian,box --size 67x45,401x277 --mask-width "$tall"
    two_gpus "ch10_${kind}_ranks_pair" "gpu;ch10;$kind" sh "$root/tests/ranks_pair.sh" \
        "$binary" --check --own-kernels --iterations 4 --mask gaussian --size 301x203 \
        --mask-width "3,5x4,9"
done
two_gpus "ch10_scaling_two_gpus" "$labels" sh "$two" 2 "$solution" --scaling --gpus 2 \
    --size 301x203,64x7 --mask random --mask-width 4x7 --iterations 3 --reps 20
two_gpus "ch10_bench_two_gpus" "$labels" sh "$two" 2 "$expect" --gpu 0 \
    "301x203 on 2 GPUs, ms per pass" -- \
    "$solution" --bench --gpus 2 --size 301x203 --mask-width 5 --iterations 2 --reps 20
two_gpus "ch10_too_many_gpus_for_rows" "$labels" sh "$two" 2 "$expect" --gpu 2 \
    "use at most 1 GPU" -- "$solution" --check --gpus 2 --size 40x5 --mask-width 15
