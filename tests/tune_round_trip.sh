#!/bin/sh
# tune_round_trip.sh: chapter 06's tuning file, end to end.
#
#   tests/tune_round_trip.sh PROGRAM SCRATCH_CSV OTHER_GPU_CSV
#
# 1. PROGRAM --tune on a small image writes SCRATCH_CSV (through WB_TUNED_FILE), one line per
#    mask size for this GPU; 2. a normal run loads those lines and uses them; 3. a file tuned on
#    another GPU, with a damaged line and a line holding a NUL byte, loads nothing, says which
#    lines it ignored, and the run still passes on the untuned defaults; 4. this GPU's own
#    choices under a sibling model's name (an H200's file on an H100, an H100's on any other GPU)
#    load nothing either: the choices are per GPU model, by its whole name. Exit 77 when there is
#    no GPU.
program=$1 scratch=$2 other=$3
rm -f "$scratch"
out=$(WB_TUNED_FILE="$scratch" "$program" --tune --size 300x200 --mask-width 3,6 --reps 20 2>&1)
rc=$?
[ $rc -eq 77 ] && exit 77
echo "$out"
[ $rc -eq 0 ] || { echo "tune_round_trip: --tune exited $rc"; exit 1; }
lines=$(grep -c -v '^#' "$scratch" 2>/dev/null)
[ "$lines" = 2 ] || { echo "tune_round_trip: expected 2 choices in $scratch, found '$lines'"; exit 1; }
out=$(WB_TUNED_FILE="$scratch" "$program" --check --size 300x200 --mask-width 3,6 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "tune_round_trip: the run after --tune exited $rc"; exit 1; }
echo "$out" | grep -q ": 2 loaded from" || { echo "tune_round_trip: the choices were not loaded"; exit 1; }
out=$(WB_TUNED_FILE="$other" "$program" --check --size 300x200 --mask-width 3 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "tune_round_trip: the run with another GPU's file exited $rc"; exit 1; }
echo "$out" | grep -q ": 0 loaded from .*untuned defaults" ||
    { echo "tune_round_trip: another GPU's choices were used"; exit 1; }
echo "$out" | grep -q "line 3 ignored" || { echo "tune_round_trip: the damaged line was not reported"; exit 1; }
echo "$out" | grep -q "line 4 ignored: holds a NUL byte" ||
    { echo "tune_round_trip: the line with a NUL byte was not reported"; exit 1; }
gpu=$(grep -v '^#' "$scratch" | head -n 1 | cut -d, -f1)
case $gpu in *H200*) sibling="NVIDIA H100 80GB HBM3" ;; *) sibling="NVIDIA H200" ;; esac
awk -F, -v OFS=, -v name="$sibling" '/^#/ { print; next } { $1 = name; print }' "$scratch" \
    >"$scratch.sibling" || exit 1
out=$(WB_TUNED_FILE="$scratch.sibling" "$program" --check --size 300x200 --mask-width 3,6 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "tune_round_trip: the run with $sibling's file exited $rc"; exit 1; }
echo "$out" | grep -q ": 0 loaded from .*untuned defaults" ||
    { echo "tune_round_trip: $gpu used the choices saved for $sibling"; exit 1; }
echo "tune_round_trip: PASS"
