#!/bin/sh
# report_plot.sh: report/plot.py on made-up sweeps (tests/report_fixture.py, fresh seed each run).
#
#   sh tests/report_plot.sh ROOT SCRATCH_DIR csv|figures
#
# csv: with --no-figures, every sweep becomes a CSV with every record, report.md says why there
# are no figures, and broken input (no raw/ folder, a line that is not JSON) stops the script
# with a message naming it. figures: every figure is drawn (plot.py checks titles, axis labels
# and that data was drawn before saving), is a real PNG, and report.md shows it. Skips (77) where
# python3, or for `figures` matplotlib, is missing.
root=$1 scratch=$2 part=$3
fail() {
    echo "report_plot: $*"
    exit 1
}
command -v python3 >/dev/null || { echo "report_plot: no python3: skipping"; exit 77; }
seed=${REPORT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
python3 "$root/tests/report_fixture.py" "$seed" "$scratch" || fail "the fixture failed (seed $seed)"
case $part in
csv)
    python3 "$root/report/plot.py" "$scratch" --no-figures || fail "plot.py --no-figures failed (seed $seed)"
    for jsonl in "$scratch"/raw/*.jsonl; do
        sweep=$(basename "$jsonl" .jsonl)
        [ -f "$scratch/$sweep.csv" ] || fail "no $sweep.csv"
        rows=$(python3 -c 'import csv, sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' "$scratch/$sweep.csv")
        [ "$rows" -eq "$(wc -l <"$jsonl")" ] || fail "$sweep.csv has $rows rows for $(wc -l <"$jsonl") records"
        grep -q "($sweep.csv)" "$scratch/report.md" || fail "report.md does not list $sweep.csv"
    done
    grep -q '^No figures: --no-figures' "$scratch/report.md" || fail "report.md does not say why it has no figures"
    grep -q 'Fixture GPU' "$scratch/report.md" || fail "report.md does not name the GPU"
    grep -q 'failed verification' "$scratch/report.md" || fail "report.md hides the failed step"
    # Broken input: a clear message and a non-zero exit, never a traceback.
    message=$(python3 "$root/report/plot.py" "$scratch/nowhere" 2>&1) && fail "a missing raw/ passed"
    printf '%s\n' "$message" | grep -q 'run the sweeps first' || fail "missing raw/: '$message'"
    echo '{"variant": "ch01 basic", "pass": tru' >>"$scratch/raw/1d_widths.jsonl"
    message=$(python3 "$root/report/plot.py" "$scratch" --no-figures 2>&1) && fail "a broken line passed"
    printf '%s\n' "$message" | grep -q '1d_widths.jsonl line [0-9]* is not JSON' ||
        fail "a broken line: '$message'"
    # The FFT crossover claims no more than the numbers show: a direct kernel that wins again at
    # a larger mask (chapter 06 at the sizes it is compiled for) is named, with its time.
    python3 - "$root/report" <<'PY' || fail "the FFT crossover sentence is wrong"
import sys
sys.path.insert(0, sys.argv[1])
from plot import fft_crossover
fft = {s: 0.7 for s in range(1, 32)}
zigzag = {"ch06 tuned": {s: (0.04 * s if s % 2 or s < 8 else 5.0) for s in range(1, 32)}}
c = fft_crossover(fft, zigzag)
assert c["from"] is None and c["wins"][0] == 8, c
assert "still faster at larger sides: 9x9 (ch06 tuned 0.360 ms" in c["sentence"], c["sentence"]
c = fft_crossover(fft, {"NPP filter": {s: 0.09 * s for s in range(1, 32)}})
assert c["from"] == 8 and c["sentence"].startswith("From 8x8 on"), c
assert fft_crossover(fft, {"fast": {s: 0.01 for s in range(1, 32)}})["wins"] == []
PY
    # shellcheck disable=SC2012 # a count of files the test wrote, with plain names
    echo "report_plot: seed $seed: $(ls "$scratch"/*.csv | wc -l) CSVs with every record; broken input refused; the FFT crossover"
    ;;
figures)
    python3 -c 'import matplotlib' 2>/dev/null || { echo "report_plot: no matplotlib: skipping"; exit 77; }
    python3 "$root/report/plot.py" "$scratch" || fail "plot.py failed (seed $seed)"
    expected=$(sed -n 's/^    ("\(fig_[a-z0-9_]*\)", .*/\1/p' "$root/report/plot.py")
    [ -n "$expected" ] || fail "found no figure list in plot.py"
    for name in $expected; do
        png="$scratch/$name.png"
        [ -f "$png" ] || fail "$name.png was not drawn (seed $seed)"
        [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$name.png is no PNG"
        # Data is drawn in colour, frames and text in greys: a figure with no coloured pixels
        # drew nothing (the PNG holds a palette, so its size says little).
        python3 -c 'import sys; from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
sys.exit(sum(n for n, c in im.getcolors(1 << 24) if max(c) - min(c) > 60) < 50)' "$png" ||
            fail "$name.png shows no data in colour"
        grep -q "($name.png)" "$scratch/report.md" || fail "report.md does not show $name.png"
    done
    echo "report_plot: seed $seed: $(echo "$expected" | wc -w) figures drawn, checked and shown in report.md"
    ;;
*) fail "part '$part' is neither csv nor figures" ;;
esac
