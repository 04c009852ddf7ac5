#!/bin/sh
# progress.sh: `make progress`, one line per chapter and what to do next (like rustlings' list).
#
#   sh tests/progress.sh ROOT "CHAPTERS" EXERCISES_DIR JOBS
#
# A chapter is untouched while its TODO blocks hold nothing but comments; solved, partial (passes
# what ran, some tests skipped: chapter 10 on one GPU) or failing
# according to `make check CH=NN`'s last verdict on exactly these files (build/check/NN/verdict
# holds a checksum of them); a chapter edited since its last check is checked now (make check),
# where there is a GPU, or reported as not checked where there is none (and as compiling, when
# `make compile CH=NN` last compiled exactly these files). A chapter with several kernels of its
# own (04) also says how each stands in that check ("kernel NAME STATE" lines of the verdict).
# "next" is the first chapter neither solved nor, without a GPU to check it, written.
root=$1 chapters=$2 exercises=$3 jobs=$4
cd "$root" || exit 2
has_gpu=0
nvidia-smi -L >/dev/null 2>&1 && has_gpu=1
# Lines of code (not comments, not blank) inside the TODO blocks of the given files.
written() {
    awk '/\/\/ ---- TODO [0-9]* begin/ { inside = 1; next }
         /\/\/ ---- TODO [0-9]* end/ { inside = 0; next }
         inside && !/^[ \t]*(\/\/.*)?$/ { n++ } END { print n + 0 }' "$@"
}
next=
solved=0 total=0 unchecked=0
for chapter in $chapters; do
    nn=${chapter%%_*}
    total=$((total + 1))
    dir="$exercises/$chapter"
    verdict_file="build/check/$nn/verdict"
    if ! ls "$dir"/*.cu >/dev/null 2>&1; then
        state="missing: no kernel file in $dir"
    elif sum=$(cat "$dir"/*.cu | cksum | cut -d' ' -f1) && [ "$(written "$dir"/*.cu)" -eq 0 ]; then
        state="untouched"
    else
        if ! grep -q "^[a-z]* $sum " "$verdict_file" 2>/dev/null && [ $has_gpu -eq 1 ]; then
            make -s check CH="$nn" JOBS="$jobs" EXERCISES="$exercises" >/dev/null 2>&1
        fi
        if grep -q "^solved $sum " "$verdict_file" 2>/dev/null; then
            state="solved"
        elif grep -q "^partial $sum " "$verdict_file" 2>/dev/null; then
            state="passes what ran; $(sed -n "s/^partial $sum //p" "$verdict_file")"
        elif grep -q "^failing $sum " "$verdict_file" 2>/dev/null; then
            hint=$(sed -n "s/^failing $sum //p" "$verdict_file" | sed 's/^ *//')
            state="failing${hint:+: $hint}"
        elif [ $has_gpu -eq 0 ] && grep -q "^compiled $sum$" "build/check/$nn/compiled" 2>/dev/null; then
            state="written, compiles, not checked (no GPU here: run make check CH=$nn on a GPU machine)"
        elif [ $has_gpu -eq 0 ]; then
            state="written, not checked (no GPU here: make compile CH=$nn compiles it; make check CH=$nn on a GPU machine)"
        else
            state="written, not checked (make check CH=$nn did not finish: run it to see why)"
        fi
    fi
    # A chapter with several kernels of its own (04): how each stands, from the same check.
    each=
    grep -q "^[a-z]* ${sum:-none} " "$verdict_file" 2>/dev/null &&
        each=$(sed -n 's/^kernel \([^ ]*\) \([a-z]*\).*/\1 \2/p' "$verdict_file" | paste -sd, - | sed 's/,/, /g')
    case $state in solved | untouched | missing*) ;; *) [ -z "$each" ] || state="$state [kernels: $each]" ;; esac
    case $state in
    solved) solved=$((solved + 1)) ;;
    "written, "*"no GPU here"*) unchecked=$((unchecked + 1)) ;;
    *) [ -n "$next" ] || next=$nn ;;
    esac
    printf '  %-22s %s\n' "$chapter" "$state"
done
echo "progress: $solved of $total chapters solved"
if [ -n "$next" ]; then
    # shellcheck disable=SC2086 # chapters: a list of names, split one a line
    echo "next: chapter $next: read chapters/$(printf '%s\n' $chapters | grep "^$next")/README.md, edit $exercises/$(printf '%s\n' $chapters | grep "^$next")/, then make check CH=$next"
elif [ $unchecked -gt 0 ]; then
    echo "next: every chapter is solved or written; check the $unchecked written ones with make check CH=NN on a GPU machine"
else
    echo "next: every chapter is solved; make run shows them all on the standard workloads"
fi
