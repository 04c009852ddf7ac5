#!/bin/sh
# report_cli.sh: every command `make report` will run is one its program accepts.
#
#   sh tests/report_cli.sh ROOT
#
# Runs each step of report/sweeps.sh (full and quick scales, from its --list) with the GPUs
# hidden (CUDA_VISIBLE_DEVICES=-1): a program checks its whole command line before it looks for
# a GPU, so a command it accepts ends with 77 (no usable GPU) and a bad one with 2, in a moment,
# on any machine. Also checks the script's own usage errors.
root=$1
fail() {
    echo "report_cli: $*"
    exit 1
}
# The commands run side by side: each waits on the CUDA driver to find no GPU, 0.13 s alone but
# about 1.5 s beside make test's other jobs on a host of four H100s (70 s for the list one after
# another there, 7 s side by side).
results=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$results"' EXIT
for scale in full quick; do
    # a real output folder: the programs check where they would write before anything else
    mkdir -p "$results/report/raw" || fail "mkdir failed"
    commands=$(sh "$root/report/sweeps.sh" "$root" "$results/report" $scale --list) ||
        fail "sweeps.sh --list failed"
    [ -n "$commands" ] || fail "sweeps.sh lists no steps at scale $scale"
    count=0
    while read -r command; do
        count=$((count + 1))
        (
            # shellcheck disable=SC2086 # the listed command's words are split on purpose
            message=$(CUDA_VISIBLE_DEVICES=-1 WB_TUNED_FILE="$results/never_written.csv" $command 2>&1 >/dev/null)
            printf '%s\n%s: %s\n' $? "$command" "$message" >"$results/$scale.$count"
        ) &
    done <<EOS
$commands
EOS
    wait
    k=1
    while [ $k -le $count ]; do
        [ -f "$results/$scale.$k" ] || fail "command $k of $scale left no result"
        rc=$(head -n 1 "$results/$scale.$k")
        [ "$rc" = 77 ] || fail "exit $rc (not 77: the command line was refused?) from: $(tail -n +2 "$results/$scale.$k")"
        [ ! -e "$results/never_written.csv" ] || fail "a run without a GPU wrote the tuned file"
        k=$((k + 1))
    done
    echo "report_cli: $count $scale-scale commands accepted"
done
expect_usage() { # MESSAGE ARGS...: sweeps.sh must exit 2 with MESSAGE
    pattern=$1
    shift
    message=$(sh "$root/report/sweeps.sh" "$@" 2>&1)
    [ $? -eq 2 ] || fail "sweeps.sh $* did not exit 2"
    printf '%s\n' "$message" | grep -q "$pattern" || fail "sweeps.sh $*: '$message' lacks '$pattern'"
}
expect_usage "usage:" "$root"
expect_usage "neither full nor quick" "$root" - medium --list
expect_usage "unexpected argument" "$root" - full --all
expect_usage "is not built" /nonexistent - full --list
echo "report_cli: sweeps.sh refuses bad arguments with exit 2"
