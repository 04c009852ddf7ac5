#!/bin/sh
# student_copy.sh: the copy an instructor hands out, without solutions/, builds and checks.
#
#   sh tests/student_copy.sh ROOT SCRATCH_DIR
#
# Copies the workbook (its files, not build/ or .git) without solutions/ to SCRATCH_DIR and runs
# `make check CH=02` there: chapter 02 shows chapter 01's kernel beside the student's, and that
# kernel is a solution, so this is the case that once failed to link. Requires: the build
# succeeds, builds no solution program, leaves chapter 01's kernel out of the program (a weak
# symbol, undefined), and the check runs its quick stage; on a GPU machine the unsolved exercise
# fails with a hint, without one the check says that nothing ran.
root=$1 copy=$2
fail() {
    echo "student_copy: $*"
    exit 1
}
rm -rf "$copy" && mkdir -p "$copy" || exit 1
(cd "$root" && find . -path ./build -prune -o -path ./.git -prune -o -path ./solutions -prune -o \
    -path ./.old -prune -o -type f -print | cpio -pdm --quiet "$copy" 2>/dev/null) ||
    (cd "$root" && tar --exclude=./build --exclude=./.git --exclude=./solutions --exclude=./.old \
        -cf - . | (cd "$copy" && tar -xf -)) || fail "could not copy $root"
[ ! -e "$copy/solutions" ] || fail "the copy has solutions/"
out=$(cd "$copy" && make check CH=02 SM=90 JOBS=2 2>&1)
rc=$?
printf '%s\n' "$out" | tail -25
[ -x "$copy/build/ch02_constant_mask_exercise" ] || fail "the exercise program was not built"
[ ! -e "$copy/build/ch02_constant_mask" ] || fail "a solution program was built without solutions/"
nm "$copy/build/ch02_constant_mask_exercise" | grep -q ' [wv] conv1d_basic_launch$' ||
    fail "chapter 01's kernel is not left out (weak and undefined) in the copy"
printf '%s\n' "$out" | grep -q 'stage 1 of 2: the quick tests' || fail "make check ran no quick stage"
if printf '%s\n' "$out" | grep -q 'no usable GPU here'; then
    [ $rc -eq 0 ] || fail "make check without a GPU exited $rc"
    echo "student_copy: built without solutions/; no GPU here, so the check ran nothing (said so)"
    exit 0
fi
[ $rc -ne 0 ] || fail "the unsolved exercise passed make check"
printf '%s\n' "$out" | grep -q 'hint \[' || fail "the failing check gave no hint"
echo "student_copy: built without solutions/; the unsolved exercise fails its check with a hint"
