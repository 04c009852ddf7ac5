#!/bin/sh
# check.sh: `make check CH=NN`, the student's loop: a verdict in seconds, then the whole battery.
#
#   sh tests/check.sh TEST_DIR NN JOBS EXERCISE_DIR [KERNELS]
#
# TEST_DIR holds the chapter's CTestTestfile.cmake; KERNELS, the chapter's own kernels where it
# has several (its program's --spec: chapter 04's cached and register), comma-separated.
#
# Stage 1 runs the chapter's quick tests (label quick: the sizes and blocks that catch most bugs)
# and stops at the first failure, printing its output and hint; stage 2, only when stage 1
# passed, runs every exercise test of the chapter. Each test has its time limit
# (tests/ctest_list.sh), so a kernel that never returns fails its test instead of hanging the
# check. Exit 0 when everything passed or there is no GPU to run on (said plainly), 1 when a test
# failed, 2 when CTest could not run them (no report, or a failure with no failed test). Tests
# skipped where others ran (77: chapter 10's need two GPUs) make the verdict "partial", not
# "solved", and are named. The verdict, with a checksum of the kernel files it was reached on,
# goes to TEST_DIR/verdict for `make progress`; with KERNELS, each kernel's tests
# (chNN_exercise_KERNEL_*) are summed up apart too, a line each, kept in the verdict as
# "kernel NAME STATE". First, a warning for anything in the TODO blocks
# that make grade would refuse.
# Results come from each stage's JUnit report (TEST_DIR/quick.xml, full.xml, read by
# tests/ctest_junit.sh): the counts, the verdict, the failed and skipped tests' names and the
# first failure's output and hint. CTest's console lines (quick.log, full.log) are only shown: its
# per-test progress lines, as they come.
dir=$1 nn=$2 jobs=$3 exercise=$4 kernels=$(echo "${5:-}" | tr , ' ')
tests=$(cd "$(dirname "$0")" && pwd)
junit() { sh "$tests/ctest_junit.sh" "$@"; }
junit need || exit 2
sum=$(cat "$exercise"/*.cu | cksum | cut -d' ' -f1)
# What the grader's gate would refuse inside the TODO blocks (grading/RULES.md): said first, as a
# warning, since a debugging printf is fine while working and costs the chapter once handed in.
if command -v python3 >/dev/null && [ -f grading/gate.py ]; then
    refused=$(python3 grading/gate.py --blocks "$exercise"/*.cu) ||
        printf '%s\n' "$refused" | sed 's/^/make check: warning: make grade would refuse this: /'
fi
cd "$dir" || exit 2
rm -f verdict quick.xml full.xml
kernel_states= # "kernel NAME STATE" lines (kernels)
verdict() { printf '%s %s %s\n%s' "$1" "$sum" "$2" "$kernel_states" >verdict; }
all_results= # VERDICT NAME lines of every stage so far
# kernel_report STAGE: where the chapter has several kernels of its own, a line for each: its
# tests that failed so far, or that it passes the stage's; kept for the verdict.
kernel_report() {
    kernel_states=
    for kernel in $kernels; do
        mine=$(printf '%s\n' "$all_results" | grep " ch${nn}_exercise_${kernel}_")
        ran=$(printf '%s\n' "$mine" | grep -c '^[pf]')
        bad=$(printf '%s\n' "$mine" | sed -n 's/^failed //p')
        if [ -n "$bad" ]; then
            state="failing: $(printf '%s\n' "$bad" | grep -c .) of $ran tests failed, first $(printf '%s\n' "$bad" | head -1)"
        elif [ "$1" = quick ]; then
            state="passes its quick tests ($ran)"
        else
            state="passes the $ran tests that ran"
        fi
        echo "make check: kernel $kernel: $state"
        kernel_states="${kernel_states}kernel $kernel $state
"
    done
}
start=$(date +%s)
ran_before=0 # tests of stage 1 that ran (not skipped)
count() { printf '%s\n' "$results" | grep -c "^$1 "; } # VERDICT: how many tests of the stage had it
# stage NAME CTEST_ARGS...: one CTest run, console in NAME.log (its progress lines shown), report
# in NAME.xml; sets $results (ctest_junit.sh list: VERDICT NAME lines) and the counts.
stage() {
    name=$1
    shift
    ctest -j "$jobs" --no-tests=error --output-on-failure --output-junit "$name.xml" "$@" >"$name.log" 2>&1
    rc=$?
    grep -E '^ *[0-9]+/[0-9]+ Test' "$name.log"
    if [ ! -s "$name.xml" ]; then
        echo "make check: CTest wrote no report ($dir/$name.xml; exit $rc). Its output ends:"
        tail -15 "$name.log"
        exit 2
    fi
    results=$(junit list "$name.xml")
    all_results=$(printf '%s\n%s\n' "$all_results" "$results" | grep .)
    total=$(printf '%s\n' "$results" | grep -c .) passed=$(count passed)
    failed=$(count failed) skipped=$(count skipped)
    # A CTest that failed with no failed test in its report ran none (no test matched, a broken
    # test list): nothing to give a verdict on.
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        echo "make check: CTest failed (exit $rc) with no test failing in its report. Its output ends:"
        tail -15 "$name.log"
        exit 2
    fi
}
summary() { # the counts; exits 0 when every test so far was skipped (no GPU)
    line="make check: $passed of $total tests passed"
    [ "$failed" -eq 0 ] || line="$line, $failed failed"
    [ "$skipped" -eq 0 ] || line="$line, $skipped skipped"
    echo "$line"
    if [ "$total" -gt 0 ] && [ "$skipped" -eq "$total" ] && [ "$ran_before" -eq 0 ]; then
        echo "make check: no usable GPU here, so nothing ran: skipped is not passed"
        exit 0
    fi
}
failures() { printf '%s\n' "$results" | sed -n 's/^failed //p'; }  # the stage's, in CTest's order
skips() { printf '%s\n' "$results" | sed -n 's/^skipped //p'; }
hint_of() { # REPORT: prints and keeps (in $hint) the hint of the first failure that has one: its
    # summary hint, else its first hint line
    hint=
    # shellcheck disable=SC2046 # the failed tests' names: one word each
    for failure in $(failures); do
        text=$(junit output "$failure" "$1")
        hint=$(printf '%s\n' "$text" | grep -m1 -A1 'most likely cause' | tail -1)
        [ -n "$hint" ] || hint=$(printf '%s\n' "$text" | grep -m1 'hint \[')
        hint=$(printf '%s' "$hint" | sed 's/^ *//')
        [ -z "$hint" ] || break
    done
    [ -z "$hint" ] || echo "make check: $hint"
}
echo "make check: chapter $nn, stage 1 of 2: the quick tests"
stage quick --stop-on-failure -L '^quick$' -R "^ch${nn}_exercise_"
summary
kernel_report quick
if [ "$failed" -ne 0 ]; then
    first=$(failures | head -1)
    echo "make check: first verdict after $(($(date +%s) - start)) s: FAIL. The first failure's output ($first):"
    output=$(junit output "$first" quick.xml)
    printf '%s\n' "${output:-(it printed nothing)}" | head -60
    hint_of quick.xml
    echo "make check: fix this first; the full battery runs once the quick tests pass"
    verdict failing "$hint"
    exit 1
fi
ran_before=$passed
skipped_quick=$(skips)
echo "make check: quick tests passed after $(($(date +%s) - start)) s; stage 2 of 2: every test"
stage full -L '^exercise$' -LE '^quick$' -R "^ch${nn}_"
summary
kernel_report full
if [ "$failed" -ne 0 ]; then
    failures | head -20 | sed 's/^/make check: failed: /'
    hint_of full.xml
    echo "make check: chapter $nn FAILS (log: $dir/full.log), after $(($(date +%s) - start)) s"
    verdict failing "$hint"
    exit 1
fi
skipped=$(printf '%s\n%s\n' "$skipped_quick" "$(skips)" | grep .)
if [ -n "$skipped" ]; then
    count=$(printf '%s\n' "$skipped" | grep -c .)
    tests="$count tests"
    [ "$count" -eq 1 ] && tests="1 test"
    # shellcheck disable=SC2086,SC2116 # echo $skipped: the names on one line
    echo "make check: chapter $nn passes the tests that ran, but $tests did not run here (exit" \
        "77, skipped: a GPU count or a tool this machine lacks): $(echo $skipped)"
    echo "make check: not solved until they pass too (the chapter's README says what they need)"
    # shellcheck disable=SC2086 # (as above)
    verdict partial "$tests skipped here: $(echo $skipped | cut -c1-120)"
    exit 0
fi
echo "make check: chapter $nn passes every test, after $(($(date +%s) - start)) s"
verdict solved ""
