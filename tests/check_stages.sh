#!/bin/sh
# check_stages.sh: `make check`'s two stages (tests/check.sh), on stand-in tests that need no GPU.
#
#   sh tests/check_stages.sh ROOT SCRATCH_DIR
#
# Each case writes a CTestTestfile.cmake whose two tests are shell commands standing for the
# chapter's: a quick test that fails with a hint must stop the check at stage 1, print the hint
# and record "failing"; quick tests that pass and a battery test that fails must reach stage 2
# and fail there; every test skipped (exit 77) must say that nothing ran and exit 0; a test that
# crashes (a signal) must fail, never pass for "no GPU"; all passing records "solved"; passing
# where another test was skipped (77: chapter 10's two-GPU tests on one GPU) records "partial",
# naming the skipped test, not "solved".
root=$1 scratch=$2
check="$root/tests/check.sh"
status=0
# run_case NAME EXPECTED_EXIT OUTPUT_REGEX QUICK_COMMAND FULL_COMMAND
run_case() {
    name=$1 want=$2 pattern=$3 quick=$4 full=$5
    dir="$scratch/$name"
    rm -rf "$dir" && mkdir -p "$dir/exercise" || exit 1
    echo "// a kernel" >"$dir/exercise/k.cu"
    {
        echo "add_test(ch09_exercise_quick_a sh -c \"$quick\")"
        echo "set_tests_properties(ch09_exercise_quick_a PROPERTIES LABELS \"gpu;ch09;exercise;quick\" SKIP_RETURN_CODE 77)"
        echo "add_test(ch09_exercise_length_5 sh -c \"$full\")"
        echo "set_tests_properties(ch09_exercise_length_5 PROPERTIES LABELS \"gpu;ch09;exercise\" SKIP_RETURN_CODE 77)"
    } >"$dir/CTestTestfile.cmake"
    out=$(sh "$check" "$dir" 09 2 "$dir/exercise" 2>&1)
    rc=$?
    if [ $rc -ne "$want" ] || ! printf '%s\n' "$out" | grep -qE "$pattern"; then
        echo "check_stages: $name: exit $rc (expected $want), output:"
        printf '%s\n' "$out" | sed 's/^/    /'
        status=1
    else
        echo "check_stages: $name: as expected"
    fi
}
verdict() { cut -d' ' -f1 "$scratch/$1/verdict" 2>/dev/null; }
expect_verdict() { # NAME VERDICT
    [ "$(verdict "$1")" = "$2" ] || { echo "check_stages: $1 recorded no '$2' verdict"; status=1; }
}
run_case quick_fails 1 'first verdict .*FAIL' \
    'echo most likely cause:; echo \"  hint [unwritten-end]: the grid\"; exit 1' 'exit 0'
expect_verdict quick_fails failing
grep -q 'hint \[unwritten-end\]' "$scratch/quick_fails/verdict" ||
    { echo "check_stages: the failing verdict lacks the hint"; status=1; }
run_case full_fails 1 'chapter 09 FAILS' 'exit 0' 'echo \"  hint [ghost-cells]: ends\"; exit 1'
expect_verdict full_fails failing
run_case no_gpu 0 'no usable GPU here' 'exit 77' 'exit 77'
run_case crash 1 'FAIL' 'kill -SEGV $$' 'exit 0'
expect_verdict crash failing
run_case passes 0 'passes every test' 'exit 0' 'exit 0'
expect_verdict passes solved
run_case partial 0 'did not run here.*ch09_exercise_length_5' 'exit 0' 'exit 77'
expect_verdict partial partial
grep -q 'ch09_exercise_length_5' "$scratch/partial/verdict" ||
    { echo "check_stages: the partial verdict does not name the skipped test"; status=1; }
exit $status
