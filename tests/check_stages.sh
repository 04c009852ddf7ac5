#!/bin/sh
# check_stages.sh: `make check`'s two stages (tests/check.sh), on stand-in tests that need no GPU.
#
#   sh tests/check_stages.sh ROOT SCRATCH_DIR            the cases below
#   sh tests/check_stages.sh ROOT SCRATCH_DIR --plants   ... and they catch wrong parses
#
# Each case writes a CTestTestfile.cmake whose two tests are shell commands standing for the
# chapter's: a quick test that fails with a hint must stop the check at stage 1, name it, print
# the hint and record "failing"; quick tests that pass and a battery test that fails must reach
# stage 2 and fail there, naming it; every test skipped (exit 77) must say that nothing ran and
# exit 0; a test that crashes (a signal), runs past its time limit or whose program is missing
# (CTest: not run) must fail, never pass for "no GPU"; all passing records "solved"; passing where
# another test was skipped (77: chapter 10's two-GPU tests on one GPU) records "partial", naming
# the skipped test, not "solved". The check reads CTest's JUnit report, not its console: a test
# whose output imitates the console's lines or the report's XML changes nothing, a hint holding
# & < > arrives as written, and a ctest older than 3.21 (which writes no report) or a test list
# CTest cannot read stops the check with exit 2, saying why.
# --plants: the same cases, run on a copy of check.sh and ctest_junit.sh with one wrong parse
# planted at a time (a skip read as a pass, every "not run" read as a skip, a failure read as a
# pass, the report's XML escapes left in); each must make a case fail. A chapter with several
# kernels of its own gets a line per kernel and keeps them in its verdict.
root=$1 scratch=$2
status=0
if [ "${3:-}" = --plants ]; then
    # plant NAME SED_EXPRESSION: ctest_junit.sh with one wrong parse, in a copy; the cases must fail
    plant() {
        copy="$scratch/$1/root"
        rm -rf "${scratch:?}/$1" && mkdir -p "$copy/tests" || exit 1
        cp "$root/tests/check.sh" "$root/tests/check_stages.sh" "$copy/tests/" || exit 1
        sed "$2" "$root/tests/ctest_junit.sh" >"$copy/tests/ctest_junit.sh" || exit 1
        if cmp -s "$root/tests/ctest_junit.sh" "$copy/tests/ctest_junit.sh"; then
            echo "check_stages: plant $1 changed nothing: ctest_junit.sh no longer reads that way"
            status=1
        elif out=$(sh "$copy/tests/check_stages.sh" "$copy" "$scratch/$1/cases" 2>&1); then
            echo "check_stages: plant $1 was not caught:"
            printf '%s\n' "$out" | sed 's/^/    /'
            status=1
        else
            echo "check_stages: plant $1 caught by: $(printf '%s\n' "$out" | grep -v ': as expected$' |
                sed -n 's/^check_stages: \([a-z_]*\): .*/\1/p' | sort -u | paste -sd ' ' -)"
        fi
    }
    plant skip_as_pass 's/verdict = "skipped"/verdict = "passed"/'
    # shellcheck disable=SC2016 # a sed expression: $0 is awk's
    plant notrun_as_skip 's|attr($0, "message") ~ /^SKIP_/|1|'
    plant fail_as_pass 's/: "failed")/: "passed")/'
    plant escapes_left 's/print unescape(line)/print line/'
    exit $status
fi
check="$root/tests/check.sh"
# check_dir NAME EXPECTED_EXIT OUTPUT_REGEX [ENV...]: runs the check on $scratch/NAME
check_dir() {
    name=$1 want=$2 pattern=$3
    shift 3
    dir="$scratch/$name"
    out=$(env "$@" sh "$check" "$dir" 09 2 "$dir/exercise" "${kernels:-}" 2>&1)
    rc=$?
    if [ $rc -ne "$want" ] || ! printf '%s\n' "$out" | grep -qE "$pattern"; then
        echo "check_stages: $name: exit $rc (expected $want, and a line matching '$pattern'), output:"
        printf '%s\n' "$out" | sed 's/^/    /'
        status=1
    else
        echo "check_stages: $name: as expected"
    fi
}
# new_case NAME: an empty case folder with its exercise file
new_case() {
    rm -rf "${scratch:?}/$1" && mkdir -p "$scratch/$1/exercise" || exit 1
    echo "// a kernel" >"$scratch/$1/exercise/k.cu"
}
# run_case NAME EXPECTED_EXIT OUTPUT_REGEX QUICK_COMMAND FULL_COMMAND [FULL_PROPERTIES]
run_case() {
    new_case "$1"
    {
        echo "add_test(ch09_exercise_quick_a sh -c \"$4\")"
        echo "set_tests_properties(ch09_exercise_quick_a PROPERTIES LABELS \"gpu;ch09;exercise;quick\" SKIP_RETURN_CODE 77)"
        echo "add_test(ch09_exercise_length_5 sh -c \"$5\")"
        echo "set_tests_properties(ch09_exercise_length_5 PROPERTIES LABELS \"gpu;ch09;exercise\" SKIP_RETURN_CODE 77 ${6:-})"
    } >"$scratch/$1/CTestTestfile.cmake"
    check_dir "$1" "$2" "$3"
}
verdict() { cut -d' ' -f1 "$scratch/$1/verdict" 2>/dev/null; }
expect_verdict() { # NAME VERDICT
    [ "$(verdict "$1")" = "$2" ] || { echo "check_stages: $1: no '$2' verdict recorded"; status=1; }
}
expect_line() { # NAME REGEX WHY: the last case's output ($out) holds a line matching REGEX
    printf '%s\n' "$out" | grep -qE "$2" || { echo "check_stages: $1: $3"; status=1; }
}
run_case quick_fails 1 "first verdict .*FAIL.*\(ch09_exercise_quick_a\)" \
    'echo most likely cause:; echo \"  hint [unwritten-end]: the grid & its <end>\"; exit 1' 'exit 0'
expect_line quick_fails '^make check: 0 of 1 tests passed, 1 failed$' "the counts are not 0 of 1, 1 failed"
expect_verdict quick_fails failing
grep -q 'hint \[unwritten-end\]: the grid & its <end>$' "$scratch/quick_fails/verdict" ||
    { echo "check_stages: quick_fails: the failing verdict lacks the hint as written"; status=1; }
run_case full_fails 1 'chapter 09 FAILS' 'exit 0' 'echo \"  hint [ghost-cells]: ends\"; exit 1'
expect_line full_fails '^make check: failed: ch09_exercise_length_5$' "the failed test is not named"
expect_line full_fails '^make check: hint \[ghost-cells\]: ends$' "the failure's hint is not shown"
expect_verdict full_fails failing
run_case no_gpu 0 'no usable GPU here' 'exit 77' 'exit 77'
expect_line no_gpu '^make check: 0 of 1 tests passed, 1 skipped$' "the skip is not counted as one"
run_case crash 1 'FAIL.*\(ch09_exercise_quick_a\)' 'kill -SEGV $$' 'exit 0'
expect_verdict crash failing
# Past its limit: CTest's report says "fail" (a time limit is not told apart before CTest 4).
run_case timeout 1 '^make check: failed: ch09_exercise_length_5$' 'exit 0' 'sleep 10' 'TIMEOUT 1'
expect_line timeout '^make check: 0 of 1 tests passed, 1 failed$' "the time limit is not counted as a failure"
expect_verdict timeout failing
# A program that is not there: CTest does not run it ("notrun", like a skip) and fails the run.
new_case missing_program
{
    echo "add_test(ch09_exercise_quick_a $scratch/missing_program/no_such_program)"
    echo "set_tests_properties(ch09_exercise_quick_a PROPERTIES LABELS \"gpu;ch09;exercise;quick\" SKIP_RETURN_CODE 77)"
} >"$scratch/missing_program/CTestTestfile.cmake"
check_dir missing_program 1 'FAIL.*\(ch09_exercise_quick_a\)'
expect_verdict missing_program failing
run_case passes 0 'passes every test' 'exit 0' 'exit 0'
expect_line passes '^make check: 1 of 1 tests passed$' "the counts are not 1 of 1 passed"
expect_verdict passes solved
run_case partial 0 'did not run here.*ch09_exercise_length_5' 'exit 0' 'exit 77'
expect_line partial '^make check: 0 of 1 tests passed, 1 skipped$' "the skip is not counted as one"
expect_verdict partial partial
grep -q 'ch09_exercise_length_5' "$scratch/partial/verdict" ||
    { echo "check_stages: partial: the verdict does not name the skipped test"; status=1; }
# Output that imitates CTest's console and its report: a failing quick test claims to be
# skipped, and a passing one (whose output CTest keeps too) claims a failed test of its own.
run_case forged_lines 1 'first verdict .*FAIL' \
    "echo '  1/1 Test #1: ch09_exercise_quick_a ....***Skipped   0.00 sec'; echo '100% tests passed'; echo '	<testcase name=\\\"ch09_exercise_quick_a\\\" status=\\\"notrun\\\">'; echo '		<skipped message=\\\"SKIP_RETURN_CODE=77\\\"/>'; exit 1" \
    'exit 0'
expect_line forged_lines '^make check: 0 of 1 tests passed, 1 failed$' "forged lines changed the counts"
expect_verdict forged_lines failing
run_case forged_pass 0 'passes every test' \
    "echo '	<testcase name=\\\"ch09_exercise_forged\\\" status=\\\"fail\\\">'; exit 0" 'exit 0'
# CTest cannot run the list: no report (a list it cannot parse), or no test in it (none matched).
new_case unreadable_list
echo 'add_test(ch09_exercise_quick_a' >"$scratch/unreadable_list/CTestTestfile.cmake"
check_dir unreadable_list 2 'CTest wrote no report'
new_case no_quick_test
echo 'add_test(ch09_exercise_length_5 sh -c "exit 0")' >"$scratch/no_quick_test/CTestTestfile.cmake"
check_dir no_quick_test 2 'with no test failing'
# A chapter with two kernels of its own (04's cached and register, here a and b): each is summed
# up apart, in the output and in the verdict, and the failing one is named with its first failure.
new_case two_kernels
for test in a_quick_x b_quick_x a_length_5 b_length_5; do
    code=0 labels="gpu;ch09;exercise"
    [ $test = b_length_5 ] && code=1
    case $test in *quick*) labels="$labels;quick" ;; esac
    echo "add_test(ch09_exercise_$test sh -c \"exit $code\")"
    echo "set_tests_properties(ch09_exercise_$test PROPERTIES LABELS \"$labels\" SKIP_RETURN_CODE 77)"
done >"$scratch/two_kernels/CTestTestfile.cmake"
kernels=a,b check_dir two_kernels 1 'chapter 09 FAILS'
expect_line two_kernels '^make check: kernel a: passes the 2 tests that ran$' "kernel a is not summed up apart"
expect_line two_kernels '^make check: kernel b: failing: 1 of 2 tests failed, first ch09_exercise_b_length_5$' \
    "kernel b's failure is not named"
if ! grep -q '^kernel b failing' "$scratch/two_kernels/verdict" ||
    ! grep -q '^kernel a passes' "$scratch/two_kernels/verdict"; then
    echo "check_stages: two_kernels: the verdict lacks the kernels' lines"
    status=1
fi
# A ctest older than 3.21 ignores --output-junit: the check says so before running anything.
mkdir -p "$scratch/old_ctest/bin" && printf '#!/bin/sh\necho "ctest version 3.20.5"\n' \
    >"$scratch/old_ctest/bin/ctest" && chmod +x "$scratch/old_ctest/bin/ctest" || exit 1
new_case old_ctest_run
cp "$scratch/passes/CTestTestfile.cmake" "$scratch/old_ctest_run/" || exit 1
check_dir old_ctest_run 2 'ctest 3.20 is too old.*3\.21' PATH="$scratch/old_ctest/bin:$PATH"
exit $status
