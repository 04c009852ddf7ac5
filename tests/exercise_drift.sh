#!/bin/sh
# exercise_drift.sh: an exercise and its solution may differ only inside TODO blocks.
#
#   tests/exercise_drift.sh SOLUTION_DIR EXERCISE_DIR
#
# Both folders must hold the same file names. In each file, the lines between
# "// ---- TODO N begin..." and "// ---- TODO N end" are dropped (the marker lines stay, so the
# blocks' numbers and titles must match too) and what remains must be identical.
sol=$1 ex=$2
status=0
strip() { sed '/\/\/ ---- TODO [0-9]* begin/,/\/\/ ---- TODO [0-9]* end/{/\/\/ ---- TODO/!d;}' "$1"; }
for f in "$sol"/* "$ex"/*; do
    name=$(basename "$f")
    if [ ! -e "$sol/$name" ] || [ ! -e "$ex/$name" ]; then
        echo "exercise_drift: $name is in only one of $sol and $ex"
        status=1
    fi
done
for f in "$sol"/*; do
    name=$(basename "$f")
    [ -e "$ex/$name" ] || continue
    if ! grep -q '// ---- TODO [0-9]* begin' "$ex/$name"; then
        echo "exercise_drift: $ex/$name has no TODO blocks"
        status=1
    fi
    a=$(mktemp) b=$(mktemp)
    strip "$sol/$name" >"$a"
    strip "$ex/$name" >"$b"
    if ! diff -u "$a" "$b"; then
        echo "exercise_drift: $sol/$name and $ex/$name differ outside their TODO blocks"
        status=1
    fi
    rm -f "$a" "$b"
done
[ "$status" -eq 0 ] && echo "exercise_drift: $ex matches $sol outside the TODO blocks"
exit $status
