#!/bin/sh
# sweeps.sh: the measurements behind `make report`, as JSON lines, with progress as it goes.
#
#   sh report/sweeps.sh ROOT OUT_DIR [full|quick]        (the Makefile runs it; quick: small sizes)
#   sh report/sweeps.sh ROOT - [full|quick] --list       the steps' command lines, one per line
#
# Runs the built chapter programs (04 to 10) with --bench --json (chapter 06 also with --tune
# --json; its tuning serves chapter 07's runs after it) and writes OUT_DIR/raw/SWEEP.jsonl, one
# file per sweep (the programs' own JSON lines, unchanged), OUT_DIR/raw/device.json
# (build/devinfo: the numbers behind the FP32 roof), OUT_DIR/raw/meta.json (date, commit, host)
# and each step's human output in OUT_DIR/logs/. A step whose kernels fail verification is
# listed in OUT_DIR/raw/failed.txt and the sweep goes on; a step that exits 2 (a bad command
# line: a bug here) stops it. report/plot.py turns the files into the report.
root=$1 out=$2 scale=${3:-full}
list=$4
die() { # CODE MESSAGE: 2 bad usage, 77 no GPU, 1 anything else (the workbook's exit codes)
    echo "report: $2" >&2
    exit "$1"
}
{ [ -n "$root" ] && [ -n "$out" ]; } || die 2 "usage: sh report/sweeps.sh ROOT OUT_DIR [full|quick] [--list]"
case $scale in full | quick) ;; *) die 2 "scale '$scale' is neither full nor quick" ;; esac
case $list in '' | --list) ;; *) die 2 "unexpected argument '$list' (only --list)" ;; esac
b="$root/build"
for program in devinfo ch04_cached_tiling ch05_tiled_2d ch06_register_prefetch ch07_separable ch08_streams ch09_3d ch10_multi_gpu; do
    [ -x "$b/$program" ] || die 2 "$b/$program is not built (run make first)"
done

# ---- the steps: SWEEP WEIGHT ARGUMENTS (weight: a rough share of the run time, for the estimate)
if [ "$scale" = full ]; then
    n1d=16777216 square=4096x4096 sizes=256x256,512x512,1024x1024,2048x2048,4096x4096,8192x8192,16384x16384
    widths=1,2,3,5,7,9,11,15,17,21,25,31,33,41,49,57,63 blocks="5 6 8 10 12 16 20 24 28 32"
    large=8192x8192 sides=3,5,7,9,11,15,21,25,31 few_sides=3,7,15,31 full_rank=9,15,21,31
    batch="--batch 16 --size 4096x4096" strips="--size 8192x8192 --gpu-memory-budget 64"
    volume=512 cubes=3,5,7 scaling=8192x8192,16384x16384 passes=20
else
    n1d=1048576 square=512x512 sizes=256x256,512x512,1024x1024 widths=1,3,5,31,63 blocks="5 16 32"
    large=1024x1024 sides=3,15,31 few_sides=3,31 full_rank=15,31
    batch="--batch 4 --size 1024x1024" strips="--size 2048x2048 --gpu-memory-budget 4"
    volume=96 cubes=1:7 scaling=1024x1024 passes=5
fi
steps=$(mktemp)
trap 'rm -f "$steps"' EXIT
{
    printf '1d_widths\t30\tch04_cached_tiling --bench --size %s --mask-width %s\n' $n1d $widths
    printf '2d_sizes\t25\tch06_register_prefetch --bench --size %s --mask-width 3,7\n' $sizes
    printf '2d_photo\t2\tch06_register_prefetch --bench --input %s/data/images/coffee.png --mask-width 3,7\n' "$root"
    for block in $blocks; do
        printf '2d_blocks\t2\tch05_tiled_2d --bench --size %s --mask-width 5 --block %s\n' $square "$block"
    done
    printf '2d_masks\t25\tch06_register_prefetch --bench --size %s --mask-width 1:31\n' $square
    printf '2d_masks_ch05\t8\tch05_tiled_2d --bench --size %s --mask-width 1:15\n' $square
    printf 'tuner\t15\tch06_register_prefetch --tune --size %s\n' $square
    # chapter 07 at $large (8192 x 8192 at full scale): separable masks, low rank, and full rank
    # against the FMA roof
    printf '7_separable\t20\tch07_separable --bench --size %s --mask gaussian --mask-width %s\n' $large $sides
    for kind in box rank1; do
        printf '7_separable\t8\tch07_separable --bench --size %s --mask %s --mask-width %s\n' $large $kind $few_sides
    done
    for kind in rank2 rank3; do
        printf '7_low_rank\t8\tch07_separable --bench --size %s --mask %s --mask-width 15,31\n' $large $kind
    done
    printf '7_full_rank\t20\tch07_separable --bench --size %s --mask random --mask-width %s\n' $large $full_rank
    # chapter 08: a batch over 1 to 4 copy streams, one image in strips; their steps as timelines
    printf '8_batch\t10\tch08_streams %s --mask-width 5 --streams 1,2,3,4 --timeline %s/raw/8_batch.timeline.csv\n' "$batch" "$out"
    printf '8_strips\t8\tch08_streams --bench %s --mask-width 5 --streams 1,3 --timeline %s/raw/8_strips.timeline.csv\n' "$strips" "$out"
    # chapter 09: the three volume kernels at $volume^3 (512^3 at full scale), against the roof
    # that binds
    printf '9_volumes\t12\tch09_3d --bench --size %s --mask-width %s\n' $volume $cubes
    # chapter 10: its scaling study alone (the table's CPU reference of K passes over 16384^2
    # would take minutes), K passes of a 5x5 mask on 1..N GPUs, every visible one
    printf '10_scaling\t6\tch10_multi_gpu --scaling --size %s --mask-width 5 --iterations %s\n' $scaling $passes
} >"$steps"
if [ -n "$list" ]; then # what tests/report_cli.sh feeds to the programs
    cut -f3 "$steps" | sed "s|^|$b/|; s|\$| --json|"
    exit 0
fi

mkdir -p "$out/raw" "$out/logs" || die 1 "cannot create $out"
rm -f "$out"/raw/*.jsonl "$out"/raw/*.timeline.csv "$out/raw/failed.txt"
"$b/devinfo" >"$out/raw/device.json" 2>"$out/logs/devinfo.log"
case $? in
0) ;;
77) die 77 "no usable GPU here ($(cat "$out/logs/devinfo.log")): make report measures, so it needs one" ;;
*) die 1 "devinfo failed: $(cat "$out/logs/devinfo.log")" ;;
esac
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo "not a git checkout")
# shellcheck disable=SC1003 # tr -d '"\\' deletes quotes and backslashes
cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1 | tr -d '"\\')
printf '{"date":"%s","commit":"%s","scale":"%s","cpu":"%s","cores":%s}\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "$scale" "${cpu:-unknown}" "$(nproc)" >"$out/raw/meta.json"

total=$(wc -l <"$steps") weight_total=$(awk -F'\t' '{ s += $2 } END { print s }' "$steps")
start=$(date +%s) k=0 weight_done=0
while IFS="$(printf '\t')" read -r sweep weight command; do
    k=$((k + 1))
    elapsed=$(($(date +%s) - start))
    estimate="estimating"
    [ $weight_done -gt 0 ] &&
        estimate="about $((elapsed * (weight_total - weight_done) / weight_done)) s left"
    echo "report: step $k of $total ($sweep), ${elapsed} s elapsed, $estimate"
    # shellcheck disable=SC2086 # the command's words are split on purpose
    set -- $command
    program=$1
    shift
    WB_TUNED_FILE="$out/raw/ch06_tuned.csv" "$b/$program" "$@" --json \
        >>"$out/raw/$sweep.jsonl" 2>>"$out/logs/$sweep.log" </dev/null
    rc=$?
    case $rc in
    0) ;;
    1) echo "$sweep: $program $*" >>"$out/raw/failed.txt"
       echo "report: step $k: a kernel failed verification (see $out/logs/$sweep.log); going on" ;;
    *) die 1 "step $k ($program $*) exited $rc: $(tail -1 "$out/logs/$sweep.log")" ;;
    esac
    weight_done=$((weight_done + weight))
done <"$steps"
echo "report: $total steps measured in $(($(date +%s) - start)) s; the JSON lines are in $out/raw/"
