#!/bin/sh
# arch_fit.sh: proves, without a GPU, that every kernel variant the launchers choose fits every
# architecture the workbook builds for (sm_75, 80, 86, 89, 90: common/gpu_limits.h).
#
#   sh tests/arch_fit.sh ROOT BUILD [--plants]
#
# Reads ptxas's report of the kernel files whose launchers choose among variants (chapter 07's
# direct_large.cu and separable.cu, with the row pass of solutions/07; chapter 09's
# conv3d_stream.cu from solutions/): the build's, kept beside each object for the architectures it
# compiled (all five on a machine without a GPU), and for the others compiles the file here once
# per architecture (-cubin: the device code alone, --resource-usage, in parallel; a log reused
# while no source is newer).
# Writes each kernel's registers, static shared memory, stack and spills to
# BUILD/tests/arch_fit.d/resources.txt; then BUILD/tests/arch_fit (tests/arch_fit.c) calls the
# launches' own choice functions on that report and the limits table. The other chapters'
# kernels choose no variant: each has one block shape under __launch_bounds__ or --block's
# checked range, so they are left out.
# --plants: instead, runs the checker on two planted faults that must each fail (exit 1 naming
# the kernel, the architecture and the limit): sm_75's opt-in maximum shrunk to 40000 bytes, and
# the direct kernel forced to 32 outputs wherever it has them.
# ARCH_FIT_JOBS: compilers at once (default: one per core). Exit 77 (skipped) where nvcc is
# missing.
root=$1
build=$2
plants=$3
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || {
    echo "arch_fit: no nvcc here: skipped"
    exit 77
}
checker="$build/tests/arch_fit"
[ -x "$checker" ] || {
    echo "arch_fit: $checker is not built (make $checker)"
    exit 1
}
out="$build/tests/arch_fit"
work="$out.d"
report="$work/resources.txt"
mkdir -p "$work" || exit 1
archs="75 80 86 89 90"
files="chapters/07_separable/direct_large.cu chapters/07_separable/separable.cu
solutions/07_separable/conv2d_row_pass.cu solutions/09_3d/conv3d_stream.cu"

cd "$root" || exit 1
# built FILE: the report the build kept of FILE's object (the Makefile's PTXAS_REPORT): every
# architecture the build compiled for (all five without a GPU, the GPU's own with one).
built() {
    case $1 in
    chapters/*) rest=${1#chapters/} kind=driver ;;
    solutions/*) rest=${1#solutions/} kind=solution ;;
    esac
    printf '%s/%s/%s/%s.ptxas' "$build" "${rest%%/*}" "$kind" "$(basename "$1" .cu)"
}
covers() { [ -s "$1" ] && grep -q "for 'sm_$2'" "$1"; } # REPORT SM
# The architectures the build did not compile for, compiled here (-cubin, --resource-usage), a log
# each, kept while no source or header it includes is newer.
for f in $files; do
    for sm in $archs; do
        covers "$(built "$f")" "$sm" && continue
        log="$work/$(basename "$f" .cu).$sm.log"
        if [ -s "$log" ] && grep -q "for 'sm_$sm'" "$log"; then
            newer=$(find "$f" common chapters/06_register_prefetch chapters/07_separable chapters/09_3d \
                -newer "$log" \( -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) | head -n 1)
            [ -z "$newer" ] && continue
        fi
        printf '%s %s\n' "$f" "$sm"
    done
done >"$work/todo"
if [ -s "$work/todo" ]; then
    echo "arch_fit: compiling what the build did not, $(wc -l <"$work/todo") file and architecture pairs"
    jobs=${ARCH_FIT_JOBS:-$(nproc 2>/dev/null || echo 2)} # compilers at once
    # shellcheck disable=SC2016 # the sh -c script expands its own arguments
    xargs -P "$jobs" -n 2 sh -c '
        work=$1 nvcc=$2 f=$3 sm=$4
        ch=$(basename "$(dirname "$f")")
        log="$work/$(basename "$f" .cu).$sm.log"
        "$nvcc" -O3 -std=c++17 -arch="sm_$sm" --resource-usage -Icommon -I"chapters/$ch" \
            -Ichapters/06_register_prefetch -cubin "$f" -o "$work/$(basename "$f" .cu).$sm.cubin" \
            >"$log" 2>&1 || { cat "$log"; rm -f "$log"; echo "arch_fit: $f does not compile for sm_$sm"; exit 1; }
    ' sh_xargs "$work" "$nvcc" <"$work/todo" || exit 1
fi
# One line a kernel: SM NAME REGISTERS STATIC_SHARED STACK SPILLS, the name demangled; each
# file and architecture from the build's report where it has it, else from the log above.
for f in $files; do
    for sm in $archs; do
        source=$(built "$f")
        covers "$source" "$sm" || source="$work/$(basename "$f" .cu).$sm.log"
        c++filt <"$source" | awk -v want="$sm" '
            /Compiling entry function/ {
                sm = $0
                sub(/.* for .sm_/, "", sm)
                sub(/[^0-9].*/, "", sm)
                name = $0
                sub(/.*Compiling entry function .void /, "", name)
                sub(/.*Compiling entry function ./, "", name)
                sub(/. for .sm_.*/, "", name)
                gsub(/ /, "", name)
                gsub(/\(anonymousnamespace\)::/, "", name)
                sub(/\(.*/, "", name)
                stack = 0; spills = 0
            }
            /bytes stack frame/ { stack = $1; spills = $5 }
            /Used [0-9]+ registers/ && sm == want {
                regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
                smem = 0
                if ($0 ~ /bytes smem/) {
                    smem = $0; sub(/ bytes smem.*/, "", smem); sub(/.* /, "", smem)
                }
                print sm, name, regs, smem, stack, spills
            }'
    done
done >"$report.tmp" && mv "$report.tmp" "$report" || exit 1
echo "arch_fit: $(wc -l <"$report") kernels in $report"
if [ "$plants" != --plants ]; then
    exec "$checker" "$report"
fi
status=0
for plant in "--shrink 75=40000" --force-wide; do
    # shellcheck disable=SC2086 # the plant is two words or one
    result=$("$checker" "$report" $plant)
    rc=$?
    line=$(printf '%s\n' "$result" | grep '^FAIL .* on sm_75: ' | head -n 1)
    if [ $rc -eq 1 ] && [ -n "$line" ]; then
        echo "arch_fit plant '$plant' caught: $line"
    else
        echo "arch_fit plant '$plant' was NOT caught (exit $rc)"
        status=1
    fi
done
exit $status
