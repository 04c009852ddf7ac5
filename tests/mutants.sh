#!/bin/sh
# mutants.sh: do the GPU tests catch wrong kernels? Plants one bug at a time in a copy of a
# solution, rebuilds, and requires the chapter's --check to fail (or compute-sanitizer to object).
#
#   sh tests/mutants.sh            (on a GPU machine, from the repository root; restores the
#                                   solutions afterwards)
# Prints one line per mutant: "caught" or "MISSED"; exits 1 if any was missed.
set -u
missed=0
mutant() { # FILE SED_EXPRESSION DESCRIPTION CHECK_COMMAND...
    file=$1 expr=$2 what=$3
    shift 3
    cp "$file" "$file.orig"
    sed "$expr" "$file.orig" >"$file"
    if cmp -s "$file" "$file.orig"; then
        echo "mutants: '$what' changed nothing in $file: fix the expression"
        missed=1
    elif ! make -s all >/dev/null 2>&1; then
        echo "mutants: '$what' does not build"
        missed=1
    elif "$@" >/dev/null 2>&1; then
        echo "MISSED  $what"
        missed=1
    else
        echo "caught  $what"
    fi
    mv "$file.orig" "$file"
    touch "$file" # newer than the mutant's objects, so make rebuilds the real kernel
}
ch01=solutions/01_basic_1d/conv1d_basic.cu
check01="build/ch01_basic_1d --check --size 1,2,33,4097,100000 --mask-width 1:63"
mutant $ch01 's/k >= 0 \&\& k < n/k >= 0 \&\& k < n - 1/' "ch01: skips the last input" $check01
mutant $ch01 's/k >= 0 \&\& k < n/k > 0 \&\& k < n/' "ch01: skips the first input" $check01
mutant $ch01 's/i - mask_width \/ 2/i - (mask_width - 1) \/ 2/' "ch01: even-width anchor on the left" $check01
mutant $ch01 's/j < mask_width/j < mask_width - 1/' "ch01: drops the last mask weight" $check01
mutant $ch01 's/sum += mask\[j\] \* in\[k\]/sum += mask[mask_width - 1 - j] * in[k]/' "ch01: flips the mask (true convolution)" $check01
mutant $ch01 's/if (i >= n) return;/if (i > n) return;/' "ch01: one thread past the end (memcheck)" \
    tests/sanitize.sh memcheck build/ch01_basic_1d --check --size 33 --mask-width 5
mutant $ch01 's/(n + block_size - 1) \/ block_size/n \/ block_size/' "ch01: grid rounded down" $check01
make -s all >/dev/null 2>&1
exit $missed
