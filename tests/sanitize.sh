#!/bin/sh
# sanitize.sh: run a chapter program under compute-sanitizer.
#
#   tests/sanitize.sh TOOL PROGRAM [ARGS...]      TOOL: memcheck, racecheck, initcheck, synccheck
#
# Fails (exit 1) on any error the tool reports or any failure of the program, with a hint in the
# student's terms (the same "hint [id]:" form as the programs' own, common/diagnose.h); exits 77
# (CTest: skipped) when there is no GPU or no compute-sanitizer, saying which.
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
99)
    echo "sanitize.sh: $tool reported errors"
    barrier="chapters/03_tiled_halo/README.md, 'The barrier, and why no thread may leave early'"
    ghost="chapters/01_basic_1d/README.md, 'Ghost cells'"
    case $tool in
    memcheck) echo "  hint [out-of-bounds]: a thread read or wrote outside its arrays: a thread past" \
        "the end (i >= n) must neither read nor write, and every input index must lie in 0 .. n-1" \
        "(see $ghost); the report above names the kernel and the source line" ;;
    racecheck) echo "  hint [race]: threads share the tile without a barrier between writing and" \
        "reading it: a missing __syncthreads() (see $barrier)" ;;
    esac
    exit 1
    ;;
*) echo "sanitize.sh: the program failed with exit code $rc"; exit 1 ;;
esac
exit $rc
