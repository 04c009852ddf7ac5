#!/bin/sh
# ptxas_report.sh: `make compile`'s table from nvcc -Xptxas -v output: one row per kernel with
# its registers, spills, stack, shared memory and barriers, names demangled (c++filt).
#
#   sh tests/ptxas_report.sh PTXAS_LOG [OBJECT]
#
# Compiler errors and warnings are printed first, as nvcc wrote them. Exit 1 when the log holds
# an error, else 0. A spill (registers moved to local memory) is marked: it costs memory traffic.
# A file with no kernel (chapters 08 and 10: host code that drives streams or GPUs) says so, with
# the functions its OBJECT defines.
log=$1 object=${2:-}
grep -v '^ptxas info' "$log" | grep -v '^ *[0-9]* bytes stack frame' | grep -v '^$'
awk '
/Compiling entry function/ { name = $0; sub(/.*function .+/, "", name); n = split($0, q, "\047"); kernel = q[2]; arch = q[4] }
/bytes stack frame/ { stack = $1; spill_st = $5; spill_ld = $9 }
/ptxas info *: Used [0-9]+ registers/ {
    regs = $5; smem = 0; barriers = 0
    if (match($0, /used [0-9]+ barriers/)) { split(substr($0, RSTART, RLENGTH), b, " "); barriers = b[2] }
    if (match($0, /[0-9]+ bytes smem/)) { split(substr($0, RSTART, RLENGTH), s, " "); smem = s[1] }
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", kernel, arch, regs, spill_st, spill_ld, stack, smem, barriers
}' "$log" >"$log.rows"
if [ -s "$log.rows" ]; then
    printf '  %-44s %6s %5s %12s %11s %6s %11s %8s\n' kernel arch regs "spill stores" "spill loads" stack "static smem" barriers
    while IFS="	" read -r kernel arch regs st ld stack smem bar; do
        name=$(printf '%s\n' "$kernel" | c++filt 2>/dev/null || printf '%s\n' "$kernel")
        name=$(printf '%s' "$name" | sed 's/(anonymous namespace):://g; s/(.*//; s/^.*:://')
        mark=""
        [ "${st:-0}" -gt 0 ] || [ "${ld:-0}" -gt 0 ] && mark="  <- spills"
        printf '  %-44s %6s %5s %12s %11s %6s %11s %8s%s\n' "$name" "$arch" "$regs" "$st" "$ld" "$stack" "$smem" "$bar" "$mark"
    done <"$log.rows"
fi
if [ ! -s "$log.rows" ] && ! grep -q 'error' "$log"; then
    functions=
    [ -f "$object" ] && functions=$(nm -C --defined-only "$object" 2>/dev/null |
        awk '$2 == "T" { $1 = $2 = ""; sub(/^  /, ""); sub(/\(.*/, ""); print }' | sort -u | tr '\n' ' ')
    echo "  compiled: host code only, no kernel here${functions:+ (functions: $functions)}"
fi
rm -f "$log.rows"
! grep -q 'error' "$log"
