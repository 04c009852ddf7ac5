#!/bin/sh
# sanitize.sh: run a chapter program under compute-sanitizer.
#
#   tests/sanitize.sh TOOL PROGRAM [ARGS...]      TOOL: memcheck, racecheck, initcheck, synccheck
#
# Fails (exit 1) on any error the tool reports or any failure of the program; exits 77 (CTest:
# skipped) when there is no GPU or no compute-sanitizer, saying which.
tool=$1
shift
sanitizer=$(command -v compute-sanitizer 2>/dev/null)
if [ -z "$sanitizer" ]; then
    for dir in /usr/local/cuda/bin /opt/cuda/bin; do
        [ -x "$dir/compute-sanitizer" ] && sanitizer="$dir/compute-sanitizer" && break
    done
fi
if [ -z "$sanitizer" ]; then
    echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA Toolkit): skipping"
    exit 77
fi
"$sanitizer" --tool "$tool" --error-exitcode 99 "$@"
rc=$?
case $rc in
0) echo "sanitize.sh: $tool found no errors" ;;
77) echo "sanitize.sh: no usable GPU: skipping" ;;
99) echo "sanitize.sh: $tool reported errors"; exit 1 ;;
*) echo "sanitize.sh: the program failed with exit code $rc"; exit 1 ;;
esac
exit $rc
