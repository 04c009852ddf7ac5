#!/bin/sh
# own_kernels.sh: --own-kernels runs the chapter's own kernels and leaves out those shown beside
# them for comparison.
#
#   sh tests/own_kernels.sh PROGRAM OWN_LABEL COMPARISON_LABEL
#
# Checks a small configuration with and without the flag: both pass; with it OWN_LABEL reports
# and COMPARISON_LABEL does not; without it both do. Exit 77 (no usable GPU) is passed through.
program=$1 own=$2 other=$3
for flag in --own-kernels ""; do
    # shellcheck disable=SC2086 # an empty flag is no argument
    out=$("$program" --check $flag --size 33,4097 --mask-width 1,5 2>&1)
    rc=$?
    printf '%s\n' "$out"
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || { echo "own_kernels: exit $rc with '$flag'"; exit 1; }
    printf '%s\n' "$out" | grep -q "^  $own " || { echo "own_kernels: no '$own' with '$flag'"; exit 1; }
    if [ -n "$flag" ]; then
        printf '%s\n' "$out" | grep -q "^  $other " && { echo "own_kernels: '$other' ran with $flag"; exit 1; }
    else
        printf '%s\n' "$out" | grep -q "^  $other " || { echo "own_kernels: no '$other' without the flag"; exit 1; }
    fi
done
echo "own_kernels: --own-kernels leaves out '$other' and keeps '$own'"
