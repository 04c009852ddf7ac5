#!/bin/sh
# profile.sh: `make profile CH=NN`, Nsight Compute on your kernel and on the reference.
#
#   sh tests/profile.sh OUT_DIR EXERCISE_PROGRAM [SOLUTION_PROGRAM]  (the Makefile runs it)
#
# Runs each program once under ncu on one configuration (--check --own-kernels: only the
# chapter's own kernels, each launched twice; the first launch is shown): 2^24 values or a
# 4096 x 4096 image, with the chapter's default mask, or PROFILE_ARGS. Collects the few metrics
# the lessons discuss (tests/profile_table.py lists them) and prints them side by side. ncu comes
# from NCU, PATH or CUDA_HOME/bin. Says plainly when ncu is missing, when this machine does not
# let a user read the GPU's performance counters, or when there is no GPU; exits 1 then.
out=$1 yours=$2 reference=$3
fail() {
    echo "make profile: $*"
    exit 1
}
[ -x "$yours" ] || fail "$yours is not built"
ncu=${NCU:-$(command -v ncu 2>/dev/null)}
[ -n "$ncu" ] || [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" ] || ncu=${CUDA_HOME:-/usr/local/cuda}/bin/ncu
[ -n "$ncu" ] || fail "Nsight Compute (ncu) not found: it comes with the CUDA Toolkit (package nsight-compute); put its folder on PATH or run make profile NCU=/path/to/ncu"
command -v python3 >/dev/null || fail "python3 is needed to lay out ncu's CSV (apt-get install python3)"
spec=$("$yours" --spec) || fail "$yours --spec failed"
dims=$(printf '%s\n' "$spec" | sed -n 's/^dims=//p')
mask=$(printf '%s\n' "$spec" | sed -n 's/^mask_default=//p')
if [ -n "${PROFILE_ARGS:-}" ]; then
    args=$PROFILE_ARGS
elif [ "$dims" = 1 ]; then
    args="--size 16777216 --mask-width ${mask%x1}"
else
    args="--size 4096x4096 --mask-width $mask"
fi
metrics=$(sed -n 's/^    ("\([a-z0-9_.]*\)", ".*/\1/p' "$(dirname "$0")/profile_table.py" | paste -sd, -)
[ -n "$metrics" ] || fail "found no metric list in tests/profile_table.py"
mkdir -p "$out" || exit 1
run() { # NAME PROGRAM: ncu's CSV in OUT/NAME.csv, everything else in OUT/NAME.log
    # shellcheck disable=SC2086 # the arguments are split on purpose
    "$ncu" --csv --metrics "$metrics" --launch-count 8 "$2" --check --own-kernels $args \
        >"$out/$1.csv" 2>"$out/$1.log"
    rc=$?
    cat "$out/$1.csv" "$out/$1.log" | grep -q 'ERR_NVGPUCTRPERM' &&
        fail "this machine does not let users read the GPU's performance counters (ERR_NVGPUCTRPERM): an administrator can allow it (NVIDIA driver option NVreg_RestrictProfilingToAdminUsers=0), or run make profile as root"
    grep -q 'no usable CUDA device' "$out/$1.csv" "$out/$1.log" && fail "no usable GPU here: nothing to profile"
    [ $rc -eq 0 ] || fail "ncu exited $rc on $2 (see $out/$1.log; a failing kernel: run make check first)"
    # ncu mixes the program's own lines into stdout: keep its CSV rows (they start with a quote).
    grep '^"' "$out/$1.csv" >"$out/$1.rows.csv"
}
echo "make profile: $yours --check --own-kernels $args under $ncu"
run yours "$yours"
if [ -n "$reference" ] && [ -x "$reference" ]; then
    run reference "$reference"
    python3 "$(dirname "$0")/profile_table.py" "$out/yours.rows.csv" "$out/reference.rows.csv"
else
    echo "make profile: no reference program (a student's copy): your kernel alone"
    python3 "$(dirname "$0")/profile_table.py" "$out/yours.rows.csv"
fi
echo "make profile: ncu's full output is in $out/"
