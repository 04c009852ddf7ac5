#!/bin/sh
# fuzz.sh: runs the libFuzzer targets and prints one table row per target (make fuzz).
#
#   sh tests/fuzz/fuzz.sh ROOT OUT SECONDS JOBS TARGET...
#
# Each target OUT/fuzz_TARGET runs SECONDS on its corpus OUT/corpus_TARGET (seeded from the
# fixtures, data/ or tests/fuzz/TARGET.seeds), JOBS targets at a time; its log is
# OUT/fuzz_TARGET.log and what it finds (a crash, a leak, a timeout, a memory blow-up) is saved
# as OUT/crash_TARGET-<kind>-<sha1>, the input that reproduces it. The row gives the executions,
# the edges covered (cov: in libFuzzer's last stats line), the inputs the corpus kept (corp:) and
# the findings of this run. Exit 1 when any target found something or could not run.
# Nothing is written outside OUT: the targets read their inputs from memory (fuzz_load.c).
root=$1 out=$2 seconds=$3 jobs=$4
shift 4
case $jobs in '' | *[!0-9]* | 0) echo "fuzz.sh: FUZZ_JOBS='$jobs' is not a whole number from 1"; exit 2 ;; esac
case $seconds in '' | *[!0-9]* | 0) echo "fuzz.sh: FUZZ_SECONDS='$seconds' is not a whole number from 1"; exit 2 ;; esac

# seed TARGET CORPUS: the target's starting inputs, copied into its corpus.
seed() {
    case $1 in
    png) set -- "$2" "$root"/tests/fixtures/*.png "$root"/data/patterns/*.png ;;
    npy) set -- "$2" "$root"/tests/fixtures/*.npy "$root"/data/signals/*.npy ;;
    mask_file) set -- "$2" "$root"/tests/fixtures/mask_*.txt "$root"/data/masks/*.txt ;;
    mask3d_file) set -- "$2" "$root"/tests/fixtures/mask3d_*.txt ;;
    volume_npy) set -- "$2" "$root"/tests/fixtures/volume_*.npy ;;
    ch08_options | ch10_options)
        # one command line a line, its arguments split at spaces; a seed holds them split at NUL
        n=0
        while IFS= read -r line; do
            n=$((n + 1))
            printf '%s' "$line" | tr ' ' '\000' >"$2/seed_$n"
        done <"$root/tests/fuzz/$1.seeds"
        return
        ;;
    *) return ;;
    esac
    corpus=$1
    shift
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$corpus/"; done
}

# artifacts TARGET: the files the target's runs have saved, one a line.
artifacts() {
    find "$out" -maxdepth 1 -name "crash_$1-*" | sort
}

# run TARGET: one fuzzing run, in the background; the files saved before it are listed, so that
# the row counts only what this run found.
run() {
    t=$1 corpus="$out/corpus_$1"
    mkdir -p "$corpus"
    seed "$t" "$corpus"
    dict=
    case $t in cli | ch08_options | ch10_options) dict="-dict=$root/tests/fuzz/options.dict" ;; esac
    artifacts "$t" >"$out/.before_$t"
    "$out/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        ${dict:+"$dict"} -artifact_prefix="$out/crash_$t-" "$corpus" >"$out/fuzz_$t.log" 2>&1 &
    eval "pid_$t=\$!"
}

# row TARGET RC: the table row from the log, and whether the run found anything.
row() {
    t=$1 rc=$2 log="$out/fuzz_$1.log"
    findings=$(artifacts "$t" | grep -vxF -f "$out/.before_$t")
    rm -f "$out/.before_$t"
    # shellcheck disable=SC2046 # awk prints three words: executions, edges, corpus
    set -- $(awk '/^#[0-9]+[ \t]/ {
            execs = substr($1, 2); cov = "-"; corp = "-"
            for (i = 2; i < NF; ++i) {
                if ($i == "cov:") cov = $(i + 1)
                if ($i == "corp:") { corp = $(i + 1); sub(/\/.*/, "", corp) }
            } }
        /^Done [0-9]+ runs/ { execs = $2 }
        END { print (execs == "" ? "-" : execs), (cov == "" ? "-" : cov), (corp == "" ? "-" : corp) }' "$log")
    count=$(printf '%s' "$findings" | grep -c .)
    what=$count
    [ "$count" -gt 0 ] && what="$count: $(printf '%s' "$findings" | tr '\n' ' ')"
    [ "$count" -eq 0 ] && [ "$rc" -ne 0 ] && what="none saved, exit $rc (see $log)"
    printf '%-14s %7s %12s %7s %7s  %s\n' "$t" "$seconds" "$1" "$2" "$3" "$what"
    [ "$count" -eq 0 ] && [ "$rc" -eq 0 ]
}

echo "make fuzz: $seconds s per target, $jobs at a time (logs, corpora and findings in $out/)"
printf '%-14s %7s %12s %7s %7s  %s\n' target seconds executions edges corpus findings
failed=0
set -- "$@" ""
while [ -n "$1" ]; do
    batch=
    while [ -n "$1" ] && [ "$(echo "$batch" | wc -w)" -lt "$jobs" ]; do
        run "$1"
        batch="$batch $1"
        shift
    done
    for t in $batch; do
        eval "wait \$pid_$t"
        row "$t" $? || failed=1
    done
done
[ $failed -eq 0 ] || echo "make fuzz: a target found something: each file above is an input that reproduces it (run $out/fuzz_TARGET FILE)"
exit $failed
