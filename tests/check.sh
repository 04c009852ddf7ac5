#!/bin/sh
# check.sh: `make check CH=NN`, the student's loop: a verdict in seconds, then the whole battery.
#
#   sh tests/check.sh TEST_DIR NN JOBS EXERCISE_DIR   (TEST_DIR: the chapter's CTestTestfile.cmake)
#
# Stage 1 runs the chapter's quick tests (label quick: the sizes and blocks that catch most bugs)
# and stops at the first failure, printing its hint; stage 2, only when stage 1 passed, runs every
# exercise test of the chapter. Each test has its time limit (tests/ctest_list.sh), so a kernel
# that never returns fails its test instead of hanging the check. Exit 0 when everything passed
# or there is no GPU to run on (said plainly), 1 otherwise. Tests skipped where others ran (77:
# chapter 10's need two GPUs) make the verdict "partial", not "solved", and are named. The
# verdict, with a checksum of the kernel files it was reached on, goes to TEST_DIR/verdict for
# `make progress`. First, a warning for anything in the TODO blocks that make grade would refuse.
dir=$1 nn=$2 jobs=$3 exercise=$4
sum=$(cat "$exercise"/*.cu | cksum | cut -d' ' -f1)
# What the grader's gate would refuse inside the TODO blocks (grading/RULES.md): said first, as a
# warning, since a debugging printf is fine while working and costs the chapter once handed in.
if command -v python3 >/dev/null && [ -f grading/gate.py ]; then
    refused=$(python3 grading/gate.py --blocks "$exercise"/*.cu) ||
        printf '%s\n' "$refused" | sed 's/^/make check: warning: make grade would refuse this: /'
fi
cd "$dir" || exit 2
rm -f verdict
verdict() { printf '%s %s %s\n' "$1" "$sum" "$2" >verdict; }
start=$(date +%s)
ran_before=0 # tests of stage 1 that ran (not skipped)
summary() { # LOG: the pass count; exits 0 when every test so far was skipped (no GPU)
    grep -E 'tests passed|tests failed' "$1" | tail -1
    ran=$(grep -cE '^ *[0-9]+/[0-9]+ Test' "$1")
    skipped=$(grep -cE '^ *[0-9]+/[0-9]+ Test.*\*\*\*Skipped' "$1")
    if [ "$ran" -gt 0 ] && [ "$skipped" -eq "$ran" ] && [ "$ran_before" -eq 0 ]; then
        echo "make check: no usable GPU here, so nothing ran: skipped is not passed"
        exit 0
    fi
}
hint_of() { # LOG: prints and keeps (in $hint) the run's summary hint, else the first hint
    hint=$(grep -m1 -A1 'most likely cause' "$1" | tail -1)
    [ -n "$hint" ] || hint=$(grep -m1 'hint \[' "$1")
    hint=$(printf '%s' "$hint" | sed 's/^ *//')
    [ -z "$hint" ] || echo "make check: $hint"
}
echo "make check: chapter $nn, stage 1 of 2: the quick tests"
ctest -j "$jobs" --no-tests=error --output-on-failure --stop-on-failure -L '^quick$' -R "^ch${nn}_exercise_" >quick.log 2>&1
quick=$?
grep -E '^ *[0-9]+/[0-9]+ Test' quick.log
summary quick.log
if [ $quick -ne 0 ]; then
    echo "make check: first verdict after $(($(date +%s) - start)) s: FAIL. The first failure's output:"
    sed -n '/\*\*\*Failed\|\*\*\*Timeout\|\*\*\*Exception/,/^ *[0-9]*\/[0-9]* Test/p' quick.log | head -60
    hint_of quick.log
    echo "make check: fix this first; the full battery runs once the quick tests pass"
    verdict failing "$hint"
    exit 1
fi
ran_before=$((ran - skipped))
echo "make check: quick tests passed after $(($(date +%s) - start)) s; stage 2 of 2: every test"
ctest -j "$jobs" --no-tests=error --output-on-failure -L '^exercise$' -LE '^quick$' -R "^ch${nn}_" >full.log 2>&1
full=$?
grep -E '^ *[0-9]+/[0-9]+ Test' full.log
summary full.log
if [ $full -ne 0 ]; then
    grep -E 'Failed|Timeout' full.log | grep -v 'tests failed' | head -20
    hint_of full.log
    echo "make check: chapter $nn FAILS (log: $dir/full.log), after $(($(date +%s) - start)) s"
    verdict failing "$hint"
    exit 1
fi
skipped=$(cat quick.log full.log | grep -E '^ *[0-9]+/[0-9]+ Test.*\*\*\*Skipped' |
    sed 's/.*Test *#[0-9]*: \([^ ]*\) .*/\1/')
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
