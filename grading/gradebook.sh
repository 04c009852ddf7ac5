#!/bin/sh
# gradebook.sh: one CSV row per graded student, for a spreadsheet or an LMS import.
#
#   sh grading/gradebook.sh ROOT     (ROOT = build/grade, as grading/grade.sh leaves it)
#
# Every subfolder of ROOT that holds a groups.tsv is one student, in byte order of the folder
# names; the name is the first line of its student file (the folder's name if it has none).
# Writes ROOT/gradebook.csv: student,ch01,ch02,...,total,max,flags, where a chapter's column is the
# student's score summed over that chapter's rubric groups (0 where the student has none of it),
# the chapters are every chapter any student has, and flags are flags.txt's lines joined by "; ".
# RFC 4180: a field holding a comma, quote, CR or LF is quoted, its quotes doubled. Prints the
# table too, control characters shown as '?'. Exit 2 with one line if no student is graded.
LC_ALL=C # bytes, and byte order for the folders
export LC_ALL
die() {
    echo "gradebook.sh: $*" >&2
    exit 2
}
[ $# -eq 1 ] || die "usage: gradebook.sh ROOT"
root=$1
[ -d "$root" ] || die "no folder $root"
set -- # the students' folders
for f in "$root"/*/groups.tsv; do
    [ -f "$f" ] && set -- "$@" "${f%/groups.tsv}"
done
[ $# -gt 0 ] || die "no graded student in $root (no $root/NAME/groups.tsv; run grading/grade.sh)"

prog=$(cat <<'EOF'
# fix(S): S with each byte that is not part of valid UTF-8 made '?' (as export.sh does), so the
# file opens as UTF-8 anywhere; a spreadsheet also sees ESC and other controls as they are
function fix(s,   out, p, c, b, k, j, ok, lo, hi) {
    out = ""
    while ((p = match(s, /[\200-\377]/)) > 0) {
        out = out substr(s, 1, p - 1); c = substr(s, p, 1); b = ord[c]; s = substr(s, p + 1)
        k = 0; lo = 128; hi = 191
        if (b >= 194 && b <= 223) k = 1
        else if (b >= 224 && b <= 239) { k = 2; if (b == 224) lo = 160; if (b == 237) hi = 159 }
        else if (b >= 240 && b <= 244) { k = 3; if (b == 240) lo = 144; if (b == 244) hi = 143 }
        ok = k > 0 && length(s) >= k
        for (j = 1; ok && j <= k; j++) {
            b = ord[substr(s, j, 1)]; ok = b >= (j == 1 ? lo : 128) && b <= (j == 1 ? hi : 191)
        }
        if (ok) { out = out c substr(s, 1, k); s = substr(s, k + 1) } else out = out "?"
    }
    return out s
}
# text(S): a CSV field of text. One starting with = + - @ is a formula to a spreadsheet (a
# student names the folder), so it gets a leading ' as spreadsheets expect
function text(s) {
    s = fix(s)
    if (s ~ /^[=+@-]/) s = "'" s
    if (s ~ /[",\r\n]/) { gsub(/"/, "\"\"", s); s = "\"" s "\"" }
    return s
}
function shown(s) { gsub(/[\001-\037\177]|\302[\200-\237]/, "?", s); return s } # for a terminal
function width(s) { gsub(/[\200-\277]/, "", s); return length(s) } # UTF-8 characters
BEGIN {
    for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i
    CONVFMT = OFMT = "%.10g"
    out = ARGV[1]; n = 0; nch = 0; wname = 7
    for (a = 2; a < ARGC; a++) {
        d = ARGV[a]; n++; name[n] = ""
        if ((getline name[n] < (d "/student")) <= 0) { name[n] = d; sub(/.*\//, "", name[n]) }
        close(d "/student")
        while ((getline line < (d "/groups.tsv")) > 0) {
            if (split(line, f, "\t") < 4) continue
            c = f[1]; if (!(c in seen)) { seen[c] = 1; chs[++nch] = c }
            x = f[3] ~ /^-?[0-9.]+$/ ? f[3] + 0 : 0; y = f[4] ~ /^-?[0-9.]+$/ ? f[4] + 0 : 0
            score[n, c] += x; total[n] += x; most[n] += y
        }
        close(d "/groups.tsv"); flags[n] = ""
        while ((getline line < (d "/flags.txt")) > 0)
            if (line != "") flags[n] = flags[n] (flags[n] == "" ? "" : "; ") line
        close(d "/flags.txt")
        if (width(fix(name[n])) > wname) wname = width(fix(name[n]))
    }
    for (i = 2; i <= nch; i++) # insertion sort: a handful of chapters
        for (j = i; j > 1 && chs[j - 1] > chs[j]; j--) {
            t = chs[j]; chs[j] = chs[j - 1]; chs[j - 1] = t
        }
    head = "student"; row = sprintf("%-" wname "s", "student")
    for (k = 1; k <= nch; k++) {
        head = head "," text("ch" chs[k]); row = row sprintf(" %6s", shown(fix("ch" chs[k])))
    }
    print head ",total,max,flags" > out
    print row sprintf(" %7s %7s  %s", "total", "max", "flags")
    for (i = 1; i <= n; i++) {
        csv = text(name[i]); row = shown(fix(name[i]))
        for (k = wname - width(row); k > 0; k--) row = row " "
        for (k = 1; k <= nch; k++) {
            csv = csv "," (score[i, chs[k]] + 0); row = row sprintf(" %6s", score[i, chs[k]] + 0)
        }
        print csv "," (total[i] + 0) "," (most[i] + 0) "," text(flags[i]) > out
        print row sprintf(" %7s %7s  %s", total[i] + 0, most[i] + 0, shown(fix(flags[i])))
    }
    close(out)
}
EOF
)
csv="$root/gradebook.csv"
awk "$prog" "$csv.tmp" "$@" && mv -f "$csv.tmp" "$csv" || die "could not write $csv"
