#!/bin/sh
# export.sh: turns one student's grade folder into what Gradescope, CI and people read.
#
#   sh grading/export.sh G        (G = build/grade/STUDENT/, as grading/grade.sh leaves it)
#
# Reads what grading/grade.sh wrote in G: student, groups.tsv, tests.tsv, chapters.tsv, and
# flags.txt and leaderboard.tsv if there. Writes:
#   G/results.json  Gradescope's format: a test per rubric group, whose output holds its failed
#                   tests (hint line, log tail), the compiler's first error or what is missing;
#                   a summary line and the flags; the leaderboard
#   G/junit.xml     JUnit XML (GitHub Classroom, GitLab, Jenkins): a testsuite per chapter, a
#                   testcase per test run (fail and timeout: <failure>, skipped and n/a:
#                   <skipped>, n/a being a test whose masks the student's kernel does not take),
#                   "build" for a chapter missing or not compiling, "speed" for each speed group
#                   of a built chapter; the chapter's score and max_score as properties
#   G/summary.txt   a table for people, also printed on stdout
# A field may hold any byte but TAB and LF (students name the files and folders), so each is
# escaped for its format: control characters become \uXXXX (JSON), are dropped (XML) or shown as
# '?' (text), and a byte that is not part of valid UTF-8 becomes '?' (valid UTF-8 is kept).
# Exit 0; 2 with one line on stderr if G or a required file is missing.
LC_ALL=C # awk works on bytes: the UTF-8 check below is done by hand
export LC_ALL
die() {
    echo "export.sh: $*" >&2
    exit 2
}
[ $# -eq 1 ] || die "usage: export.sh GRADE_DIR"
g=$1
[ -d "$g" ] || die "no grade folder $g"
for f in student groups.tsv tests.tsv chapters.tsv; do
    [ -f "$g/$f" ] || die "$g has no $f (run grading/grade.sh first)"
done

prog=$(cat <<'EOF'
# clean(S, MODE): S made safe for MODE: json (string body), xml (element text), attr (attribute
# value), text (a terminal). Invalid UTF-8 bytes become '?'; only the bytes outside printable
# ASCII and the characters the format reserves take the slow path.
function clean(s, mode,   out, p, c, b, k, j, ok, lo, hi, seq) {
    out = ""
    while ((p = match(s, /[^ -~]|[\\"&<>']/)) > 0) {
        out = out substr(s, 1, p - 1); c = substr(s, p, 1); b = ord[c]; s = substr(s, p + 1)
        if (b >= 128) { # a lead byte, its continuation count k, and the second byte's range
            k = 0; lo = 128; hi = 191
            if (b >= 194 && b <= 223) k = 1
            else if (b >= 224 && b <= 239) { k = 2; if (b == 224) lo = 160; if (b == 237) hi = 159 }
            else if (b >= 240 && b <= 244) { k = 3; if (b == 240) lo = 144; if (b == 244) hi = 143 }
            seq = c substr(s, 1, k); ok = k > 0 && length(seq) == k + 1
            for (j = 1; ok && j <= k; j++) {
                b = ord[substr(s, j, 1)]; ok = b >= (j == 1 ? lo : 128) && b <= (j == 1 ? hi : 191)
            }
            if (!ok) { out = out "?"; continue }
            s = substr(s, k + 1)
            if (mode ~ /xml|attr/ && seq ~ /^\357\277[\276\277]$/) continue # U+FFFE/F: not XML
            if (mode == "text" && seq ~ /^\302[\200-\237]$/) seq = "?" # C1 controls, CSI among them
            out = out seq
        } else if (mode == "json") {
            if (c == "\\" || c == "\"") out = out "\\" c
            else if (c == "\n") out = out "\\n"
            else if (b < 32) out = out sprintf("\\u%04x", b)
            else out = out c
        } else if (mode == "xml" || mode == "attr") {
            if (c == "&") out = out "&amp;"; else if (c == "<") out = out "&lt;"
            else if (c == ">") out = out "&gt;"; else if (c == "\"") out = out "&quot;"
            else if (c == "'") out = out "&apos;"
            else if (c == "\r" || mode == "attr" && (c == "\n" || c == "\t")) out = out "&#" b ";"
            else if (b >= 32 || c == "\n" || c == "\t") out = out c # other controls: not XML 1.0
        } else out = out (b < 32 && c != "\n" || b == 127 ? "?" : c)
    }
    return out s
}
function js(s) { return "\"" clean(s, "json") "\"" }
# num(X): X as a JSON number (never inf or nan); 0 for anything that is not a number
function num(x) {
    return x ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9][0-9]?)?$/ && length(x) < 24 ? x + 0 : 0
}
function cut(s) { return length(s) > 300 ? substr(s, 1, 300) " ..." : s }
# rows(PATH, A): the TSV file's non-empty lines as A[line, field] (A[line, 0]: the line); how
# many (0 if none, or no file)
function rows(path, a,   n, line, f, k, m) {
    n = 0
    while ((getline line < path) > 0) {
        if (line == "") continue
        m = split(line, f, "\t"); a[++n, 0] = line
        for (k = 1; k <= 6; k++) a[n, k] = k <= m ? f[k] : ""
    }
    close(path); return n
}
# loginfo(J): the hint line (hint[J]) and the last 15 lines (tail[J]) of test J's log
function loginfo(j,   path, line, n, r, k) {
    path = te[j, 6]; n = 0; hint[j] = ""
    while ((getline line < path) > 0) {
        sub(/\r$/, "", line)
        if (hint[j] == "" && line ~ /^ *hint \[/) { hint[j] = cut(line); sub(/^ +/, "", hint[j]) }
        r[++n % 15] = cut(line)
    }
    close(path); tail[j] = n ? "" : "(empty or no log: " path ")"
    for (k = n > 15 ? n - 14 : 1; k <= n; k++) tail[j] = tail[j] r[k % 15] (k < n ? "\n" : "")
}
# excerpt(PATH): 20 lines of a compiler log holding its first error (the first 20, or from 3 lines
# before the error); the first N lines of any file when N is given
function excerpt(path, nmax,   line, n, e, b, s, k, out) {
    n = e = 0
    while ((getline line < path) > 0) {
        b[++n] = cut(line)
        if (nmax && n >= nmax) break
        if (!nmax && !e && tolower(line) ~ /error/) e = n
        if (e && n >= (e <= 17 ? 20 : e + 16)) break
    }
    close(path)
    if (!n) return "(nothing at " path ")"
    s = e > 17 ? e - 3 : 1; out = ""
    for (k = s; k <= n && k < s + 20; k++) out = out (k > s ? "\n" : "") b[k]
    return out
}
function addch(c) { if (!(c in seen)) { seen[c] = 1; chs[++nch] = c } }
# testcase(CLASS, NAME, TIME, TAG, MSG, BODY): a JUnit testcase; TAG is pass, failure or skipped
function testcase(cls, name, time, tag, msg, body,   s) {
    s = "    <testcase classname=\"" clean(cls, "attr") "\" name=\"" clean(name, "attr") \
        "\" time=\"" time "\""
    if (tag == "pass") return s "/>\n"
    s = s ">\n      <" tag " message=\"" clean(msg, "attr") "\""
    s = s (tag == "skipped" ? "/>" : ">" clean(body, "xml") "</failure>")
    return s "\n    </testcase>\n"
}
function kind(st) { return st == "pass" || st == "skipped" ? st : st == "n/a" ? "skipped" : "failure" }
BEGIN {
    for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i
    CONVFMT = OFMT = "%.10g" # numbers print as 4.5, 8, 1234.5678: valid JSON, no rounding
    G = ARGV[1]; getline student < (G "/student")
    ng = rows(G "/groups.tsv", gr); nt = rows(G "/tests.tsv", te)
    nc = rows(G "/chapters.tsv", ch); nf = rows(G "/flags.txt", fl)
    nl = rows(G "/leaderboard.tsv", lb)
    for (i = 1; i <= nc; i++) { addch(c = ch[i, 1]); status[c] = ch[i, 2]; detail[c] = ch[i, 3] }
    for (i = 1; i <= ng; i++) addch(gr[i, 1])
    for (i = 1; i <= nt; i++) addch(te[i, 1])
    for (k = 1; k <= nch; k++) { # why a chapter was not graded (one line), and what shows it
        c = chs[k]
        if (status[c] == "compile_error") {
            why[c] = "does not compile"; prob[c] = "compiler output:\n" excerpt(detail[c])
        } else if (status[c] == "missing") {
            prob[c] = excerpt(detail[c], 5); why[c] = prob[c]; sub(/\n.*/, "", why[c])
        }
    }
    for (j = 1; j <= nt; j++) { # the failed and timed-out tests: message, text with hint, log tail
        st = te[j, 4]; count[st]++
        if (kind(st) != "failure") continue
        loginfo(j)
        msg[j] = hint[j] != "" ? hint[j] : st == "timeout" ? "timed out" : "failed"
        ftxt[j] = te[j, 3] ": " (st == "timeout" ? "timed out after " te[j, 5] " s" : st) \
            (hint[j] != "" ? "\n" hint[j] : "") "\nlast lines of its log:\n" tail[j]
    }

    # results.json, and the summary's rows
    total = most = 0; tests = ""
    txt = sprintf("%-8s %-12s %14s  %s\n", "chapter", "group", "score / max", "note")
    for (i = 1; i <= ng; i++) {
        c = gr[i, 1]; s = num(gr[i, 3]); m = num(gr[i, 4]); total += s; most += m
        csc[c] += s; cmax[c] += m; out = gr[i, 5]
        if (c in prob) out = out "\n\n" prob[c]
        for (j = 1; j <= nt; j++)
            if (te[j, 1] == c && te[j, 2] == gr[i, 2] && j in msg) out = out "\n\n" ftxt[j]
        tests = tests (i > 1 ? ",\n" : "") "    {\"name\": " js("ch" c " " gr[i, 2]) \
            ", \"score\": " s ", \"max_score\": " m ", \"output\": " js(out) \
            ", \"visibility\": \"visible\"}"
        txt = txt sprintf("%-8s %-12s %6s / %-5s  %s\n", clean("ch" c, "text"), \
            clean(gr[i, 2], "text"), s, m, clean(gr[i, 5], "text"))
    }
    line = student ": " total " / " most " points; " (count["pass"] + 0) " of " \
        (nt - count["n/a"]) " tests passed"
    split("fail failed timeout timed_out skipped skipped", w, " "); more = ""
    for (i = 1; i < 6; i += 2) # how many failed, timed out, were skipped (none: not said)
        if (count[w[i]]) { more = more (more == "" ? "" : ", ") count[w[i]] " " w[i + 1] }
    gsub(/_/, " ", more); if (more != "") line = line " (" more ")"
    for (k = 1; k <= nch; k++) if (chs[k] in prob) line = line "; ch" chs[k] ": " why[chs[k]]
    flags = ""
    for (i = 1; i <= nf; i++) flags = flags "\n  " fl[i, 0]
    if (flags != "") flags = "for the instructor:" flags "\n"
    board = ""
    for (i = 1; i <= nl; i++)
        board = board (i > 1 ? ",\n" : "") "    {\"name\": " js("ch" lb[i, 1] " kernel ms") \
            ", \"value\": " num(lb[i, 2]) ", \"order\": \"asc\"}"
    f = G "/results.json.tmp"
    printf "{\n  \"score\": %s,\n  \"output\": %s,\n", total, \
        js(line (flags != "" ? "\n\n" flags : "")) > f
    printf "  \"tests\": [\n%s\n  ],\n  \"leaderboard\": [%s]\n}\n", tests, \
        board == "" ? "" : "\n" board "\n  " > f
    close(f)

    # junit.xml: the tests run, "build" for a chapter not built, "speed" for each speed group
    suites = ""; alln = allf = allt = 0
    for (k = 1; k <= nch; k++) {
        c = chs[k]; body = ""; n = nfl = nsk = t = 0
        for (j = 1; j <= nt; j++) if (te[j, 1] == c) {
            kd = kind(te[j, 4]); n++; t += num(te[j, 5])
            nfl += (kd == "failure"); nsk += (kd == "skipped")
            body = body testcase("ch" c "." te[j, 2], te[j, 3], num(te[j, 5]), kd, \
                te[j, 4] == "n/a" ? "does not apply: the kernel takes none of its masks" : \
                kd == "skipped" ? "no usable GPU" : msg[j], tail[j])
        }
        if (c in prob) {
            n++; nfl++
            body = body testcase("ch" c ".build", "build", 0, "failure", why[c], prob[c])
        } else for (i = 1; i <= ng; i++) if (gr[i, 1] == c && gr[i, 2] == "speed") {
            bad = (num(gr[i, 3]) < num(gr[i, 4])); n++; nfl += bad
            body = body testcase("ch" c ".speed", "speed", 0, bad ? "failure" : "pass", gr[i, 5], \
                "score " num(gr[i, 3]) " of " num(gr[i, 4]) ": " gr[i, 5])
        }
        t = sprintf("%.3f", t); alln += n; allf += nfl; allt += t
        suites = suites "  <testsuite name=\"" clean("ch" c, "attr") "\" tests=\"" n \
            "\" failures=\"" nfl "\" skipped=\"" nsk "\" time=\"" t "\">\n    <properties>" \
            "<property name=\"score\" value=\"" (csc[c] + 0) "\"/><property name=\"max_score\"" \
            " value=\"" (cmax[c] + 0) "\"/></properties>\n" body "  </testsuite>\n"
    }
    f = G "/junit.xml.tmp"
    printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"%s\" ", \
        clean("workbook grade: " student, "attr") > f
    printf "tests=\"%d\" failures=\"%d\" time=\"%.3f\">\n%s</testsuites>\n", \
        alln, allf, allt, suites > f
    close(f)

    f = G "/summary.txt.tmp"
    printf "grade: %s\n%stotal: %s / %s\n%s", clean(student, "text"), txt, total, most, \
        (flags != "" ? "\n" clean(flags, "text") : "") > f
    close(f)
}
EOF
)
# Each file is written whole beside its place, then moved there: no half-written results.
if ! awk "$prog" "$g"; then
    rm -f "$g/results.json.tmp" "$g/junit.xml.tmp" "$g/summary.txt.tmp"
    die "could not write the results in $g"
fi
for f in results.json junit.xml summary.txt; do
    mv -f "$g/$f.tmp" "$g/$f" || die "could not write $g/$f"
done
cat "$g/summary.txt"
