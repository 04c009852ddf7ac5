#!/bin/sh
# expect_exit.sh: run a command and require an exit code and an output pattern.
#
#   tests/expect_exit.sh [--gpu] CODE REGEX -- COMMAND [ARGS...]
#
# Passes (exit 0) when COMMAND exits with CODE and its output (stdout and stderr) matches the
# extended regex REGEX (empty matches anything). For CODE 2 (bad input) stderr must also be
# exactly one line with no control characters: the workbook's promise of a one-line error. With --gpu an exit of 77 (no
# usable GPU) is passed through, so CTest reports the test as skipped; without --gpu a 77 is a
# failure, because CPU tests must never depend on a GPU.
gpu=0
if [ "$1" = "--gpu" ]; then gpu=1; shift; fi
want=$1 pattern=$2
shift 2
[ "$1" = "--" ] && shift
errfile=$(mktemp) outfile=$(mktemp)
trap 'rm -f "$errfile" "$outfile"' EXIT
"$@" >"$outfile" 2>"$errfile"
rc=$?
cat "$outfile" "$errfile"
if [ "$rc" -eq 77 ] && [ "$gpu" -eq 1 ]; then exit 77; fi
if [ "$rc" -ne "$want" ]; then
    echo "expect_exit: expected exit code $want, got $rc from: $*"
    exit 1
fi
if [ -n "$pattern" ] && ! cat "$outfile" "$errfile" | grep -Eq -- "$pattern"; then
    echo "expect_exit: output does not match /$pattern/"
    exit 1
fi
if [ "$want" -eq 2 ] && [ "$(wc -l <"$errfile")" -ne 1 ]; then
    echo "expect_exit: expected a one-line error on stderr, got $(wc -l <"$errfile") lines"
    exit 1
fi
# ... and a clean one: no control character (a carriage return, an escape sequence) inside it.
if [ "$want" -eq 2 ] && tr -d '\n' <"$errfile" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    echo "expect_exit: the error line holds control characters"
    exit 1
fi
exit 0
