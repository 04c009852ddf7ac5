#!/bin/sh
# progress_states.sh: `make progress` from a half-done workbook.
#
#   [JOBS=N] sh tests/progress_states.sh ROOT SCRATCH_DIR      (JOBS: make progress's, default 4)
#
# Builds an exercises folder in SCRATCH_DIR where chapter 01 is solved (the solution's file),
# chapter 03 is written but wrong (the solution with its left halo loaded one place off), chapter
# 04 has one of its two exercises solved (the cached kernel; the register kernel untouched), and
# the other chapters are untouched. Requires the right state on each line and "next" to name the
# first chapter not solved: 02 where a GPU confirmed chapter 01; chapter 04 failing, with each
# of its kernels' state. Without a GPU: chapter 01, which
# make compile compiled first, "written, compiles, not checked", chapter 03 "written, not
# checked", and next 02 (the first neither solved nor written).
root=$1 scratch=$2
fail() {
    echo "progress_states: $*"
    exit 1
}
[ -d "$root/solutions" ] || { echo "progress_states: no solutions/ (a student's copy): skipping"; exit 77; }
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
cp -R "$root/exercises/." "$scratch/"
cp "$root/solutions/01_basic_1d/"*.cu "$scratch/01_basic_1d/"
sed 's/int k = i - (int)blockDim.x;/int k = i - (int)blockDim.x + 1;/' "$root/solutions/03_tiled_halo/conv1d_tiled.cu" \
    >"$scratch/03_tiled_halo/conv1d_tiled.cu"
cp "$root/solutions/04_cached_tiling/conv1d_cached.cu" "$scratch/04_cached_tiling/"
if ! nvidia-smi -L >/dev/null 2>&1; then
    (cd "$root" && make -s compile CH=01 EXERCISES="$scratch" SM=80 >/dev/null 2>&1) ||
        fail "make compile CH=01 failed on the solved file"
fi
out=$(cd "$root" && make -s progress EXERCISES="$scratch" JOBS="${JOBS:-4}" 2>&1) || fail "make progress failed: $out"
printf '%s\n' "$out"
line() { printf '%s\n' "$out" | grep "^  $1 "; }
line 02_constant_mask | grep -q ' untouched$' || fail "chapter 02 is not untouched"
line 05_tiled_2d | grep -q ' untouched$' || fail "chapter 05 is not untouched"
if printf '%s\n' "$out" | grep -q 'no GPU here'; then
    line 01_basic_1d | grep -q 'written, compiles, not checked' ||
        fail "chapter 01 is not 'written, compiles, not checked'"
    line 03_tiled_halo | grep -q 'written, not checked' || fail "chapter 03 is not 'written, not checked'"
    line 04_cached_tiling | grep -q 'written, not checked' || fail "chapter 04 is not 'written, not checked'"
    printf '%s\n' "$out" | grep -q '^next: chapter 02' || fail "next is not chapter 02"
    echo "progress_states: no GPU here: the states that need none are right"
    exit 0
fi
line 01_basic_1d | grep -q ' solved$' || fail "chapter 01 is not solved"
line 03_tiled_halo | grep -q ' failing: hint \[tile-seams\]' || fail "chapter 03 does not fail with its hint"
line 04_cached_tiling | grep -q ' failing.*\[kernels: cached passes, register failing\]$' ||
    fail "chapter 04 does not say which of its kernels fails"
printf '%s\n' "$out" | grep -q '^next: chapter 02' || fail "next is not chapter 02"
# shellcheck disable=SC2012 # a count of the registry's files, whose names are plain
chapters=$(ls "$root"/chapters/[0-9][0-9]_*/chapter.mk | wc -l) # every registered chapter
printf '%s\n' "$out" | grep -q "^progress: 1 of $chapters chapters solved" || fail "the count is wrong"
echo "progress_states: solved, failing with its hint, untouched and next are right"
