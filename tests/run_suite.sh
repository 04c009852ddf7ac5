#!/bin/sh
# run_suite.sh: what `make test` runs in the build folder: every test but the student's own
# (label exercise; in a student's copy, those too), in one CTest run where fewer than two GPUs are visible, in two phases where
# more are:
#
#   sh tests/run_suite.sh BUILD JOBS
#
# 1. the tests that take several GPUs (label multi_gpu: chapter 10's NCCL tests), alone, one at
#    a time under their lock;
# 2. all the others, each GPU test given one GPU by CTest's resource allocation (a spec file
#    listing every GPU with JOBS slots; tests/gpu_slot.sh turns CTest's choice into
#    CUDA_VISIBLE_DEVICES), so they spread over all GPUs.
# Why: NCCL's kernels spin until their peer runs, and every other process on a GPU takes time
# slices from them: beside the whole suite on one GPU, a two-GPU test of 2 s can take 50 s. The
# GPUs are those CUDA_VISIBLE_DEVICES names where it is set (CTest's GPU n is its n-th entry:
# WB_SUITE_GPUS), else every GPU nvidia-smi lists. Both phases run; the exit code is non-zero if either failed.
#
# The order: CTest starts the tests that took longest last time first (its own record,
# Testing/Temporary/CTestCostData.txt). A build that has none gets tests/test_costs.txt, the
# record of a make test on an H100 pair, so a first run is ordered too (without it, long tests
# that happened to start late ended the run late). Tests the record lacks start last.
#
# Results: each CTest run writes its JUnit report, BUILD/Testing/suite_all.xml, or
# suite_multi_gpu.xml and suite_others.xml (this run's only: older ones are removed first). The
# scripts that act on make test's results (tests/gpu_session.sh, tests/handout.sh) read those,
# through tests/ctest_junit.sh; CTest's console is left to people.
build=$1 jobs=$2
tests=$(cd "$(dirname "$0")" && pwd)
cd "$build" || exit 1
# In a student's copy (no solutions/) the student's own checks are the point: they run too.
mine='^exercise$'
[ -d "$tests/../solutions" ] || mine='^no label$'
ctest_run() { # PHASE CTEST_ARGS...
    phase=$1
    shift
    ctest --output-on-failure --output-junit "Testing/suite_$phase.xml" -j "$jobs" "$@"
}
rm -f Testing/suite_*.xml
record=Testing/Temporary/CTestCostData.txt
if [ ! -f "$record" ] && [ -f "$tests/test_costs.txt" ]; then
    mkdir -p Testing/Temporary && cp "$tests/test_costs.txt" "$record"
fi

if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    WB_SUITE_GPUS=$CUDA_VISIBLE_DEVICES
else
    listed=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ')
    WB_SUITE_GPUS=$(seq -s, 0 $((${listed:-0} - 1))) # none listed: empty
fi
export WB_SUITE_GPUS
gpus=$(printf '%s' "$WB_SUITE_GPUS" | tr ',' '\n' | grep -c .)
if [ "${gpus:-0}" -lt 2 ]; then
    ctest_run all --label-exclude "$mine"
    exit
fi

spec=gpu_resources.json
{
    printf '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": ['
    i=0
    while [ $i -lt "$gpus" ]; do
        [ $i -gt 0 ] && printf ', '
        printf '{"id": "%d", "slots": %d}' $i "$jobs"
        i=$((i + 1))
    done
    printf ']}]}\n'
} >"$spec"

echo "run_suite: $gpus GPUs: phase 1, the tests that take several GPUs, alone"
ctest_run multi_gpu --label-regex '^multi_gpu$' --label-exclude "$mine"
first=$?
echo "run_suite: phase 2, the others, each GPU test on one of $gpus GPUs"
ctest_run others --label-exclude "^(multi_gpu)\$|$mine" --resource-spec-file "$spec"
second=$?
[ $first -eq 0 ] && [ $second -eq 0 ]
