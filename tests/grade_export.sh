#!/bin/sh
# grade_export.sh: the grader's exports stay valid, whatever bytes a student puts in them.
#
#   tests/grade_export.sh BUILD_TMP_DIR        (a CPU test; BUILD_TMP_DIR is emptied first)
#
# Fabricates two graded students (what grading/grade.sh leaves) whose names, notes, test names,
# flags and logs hold quotes, backslashes, <&>, ESC, a 0xff byte and a UTF-8 'é': one with a
# chapter that does not compile, a missing one, a timed-out test, a failing test with a hint, a
# leaderboard line and flags; the other with a test skipped for want of a GPU and one that does
# not apply (n/a: its masks are not the kernel's). Runs
# grading/export.sh on each and grading/gradebook.sh on both, then reads the results with real
# parsers (python3's json, xml.etree, csv) and checks what they hold against the fixture. Without
# python3: jq and xmllint, where there (fewer checks); with none of them: exit 77.
here=$(cd "$(dirname "$0")/.." && pwd) || exit 1
dir=$1
[ -n "$dir" ] || { echo "usage: grade_export.sh BUILD_TMP_DIR"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd) || exit 1 # tests.tsv holds absolute log paths
fail() {
    echo "grade_export: $*"
    exit 1
}
hostile=$(printf '"q" \\back <&> \303\251 \033[31m \377') # quote, backslash, <&>, é, ESC, 0xff

# ---- student A: alice, every hard case -------------------------------------------------------
a="$dir/alice"
mkdir -p "$a/logs"
printf 'Alice %s, O'"'"'Hara\n' "$hostile" >"$a/student"
{
    printf '01\tcorrectness\t4.5\t5\t21 of 23 tests passed\n'
    printf '01\tedge_cases\t2\t2\tall edges %s\n' "$hostile"
    printf '01\tspeed\t1.5\t2\t2.10x the solution'"'"'s time\n'
    printf '02\tcorrectness\t0\t5\tdoes not compile\n'
    printf '02\tspeed\t0\t2\tdoes not compile\n'
    printf '03\tcorrectness\t0\t5\tno file conv1d_tiled.cu\n'
} >"$a/groups.tsv"
echo "all good" >"$a/logs/pass.log"
{
    i=1
    while [ $i -le 30 ]; do echo "ghost line $i"; i=$((i + 1)); done
    printf '  hint [ghost-cells]: outputs within mask_width/2 of the ends are wrong %s\n' "$hostile"
    echo "  hint [second]: not this one"
    echo "mismatch at 0: got 1 want 2"
} >"$a/logs/ghost.log"
printf 'started\nstill running \033[2J \377\nwatchdog: gave up after 60 s\n' >"$a/logs/slow.log"
{
    for w in alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike \
        november oscar papa quebec romeo sierra tango uniform victor whiskey xray; do
        echo "nvcc note $w"
    done
    echo 'conv1d_basic.cu(30): error: identifier "tile" is undefined'
    echo 'conv1d_basic.cu(41): error: expected a ";"'
    echo "2 errors detected in the compilation of conv1d_basic.cu."
} >"$a/logs/compile.log"
echo "no file conv1d_tiled.cu in the submission" >"$a/logs/missing.txt"
{
    printf '01\tcorrectness\tbasic\tpass\t0.50\t%s\n' "$a/logs/pass.log"
    printf '01\tcorrectness\tghost\tfail\t1.25\t%s\n' "$a/logs/ghost.log"
    printf '01\tcorrectness\tslow\ttimeout\t60.0\t%s\n' "$a/logs/slow.log"
    printf '01\tedge_cases\tedge %s\tpass\t0.25\t%s\n' "$hostile" "$a/logs/pass.log"
    printf '01\tspeed\tbench\tpass\t2.00\t%s\n' "$a/logs/pass.log"
} >"$a/tests.tsv"
printf '01\tgraded\t\n02\tcompile_error\t%s\n03\tmissing\t%s\n' "$a/logs/compile.log" \
    "$a/logs/missing.txt" >"$a/chapters.tsv"
printf 'ch03: conv1d_tiled.cu changed outside its TODO blocks\nextra file ignored: %s.txt\n' \
    "$hostile" >"$a/flags.txt"
printf '01\t1.234\t0.588\t2.10\n' >"$a/leaderboard.tsv"

# ---- student B: a hostile folder name, no flags.txt or leaderboard.tsv -------------------------
bname=$(printf 'bob, "the" <builder> \303\251')
b="$dir/$bname"
mkdir -p "$b/logs"
printf '%s\n' "$bname" >"$b/student"
{
    printf '01\tcorrectness\t5\t5\t23 of 23 tests passed\n'
    printf '01\tspeed\t2\t2\t0.90x the solution'"'"'s time\n'
    printf '04\tcorrectness\t3\t5\t3 of 5 tests passed\n'
} >"$b/groups.tsv"
echo "all good" >"$b/logs/pass.log"
echo "tile 3 differs" >"$b/logs/tiles.log"
printf '01\tcorrectness\tbasic\tpass\t0.40\t%s\n04\tcorrectness\ttiles\tfail\t0.90\t%s\n' \
    "$b/logs/pass.log" "$b/logs/tiles.log" >"$b/tests.tsv"
printf '04\tcorrectness\tno_gpu\tskipped\t0.01\t%s\n' "$b/logs/pass.log" >>"$b/tests.tsv"
# a test whose masks the student's kernel does not take: neither passed nor counted
printf '04\tcorrectness\tnot_square\tn/a\t0.02\t%s\n' "$b/logs/pass.log" >>"$b/tests.tsv"
printf '01\tgraded\t\n04\tgraded\t\n' >"$b/chapters.tsv"

# ---- run the exports -----------------------------------------------------------------------
for s in "$a" "$b"; do
    sh "$here/grading/export.sh" "$s" >"$s/stdout" 2>"$s/stderr" ||
        fail "export.sh $s: exit $?: $(cat "$s/stderr")"
    cmp -s "$s/stdout" "$s/summary.txt" || fail "export.sh printed something else than summary.txt"
    tr -d '\033' <"$s/summary.txt" | cmp -s - "$s/summary.txt" || fail "ESC in $s/summary.txt"
done
grep -q "^total: 8 / 21$" "$a/summary.txt" || fail "no 'total: 8 / 21' in alice's summary"
grep -q "^for the instructor:$" "$a/summary.txt" || fail "no flags in alice's summary"
grep -q "instructor" "$b/summary.txt" && fail "flags heading in bob's summary, who has none"
sh "$here/grading/gradebook.sh" "$dir" >"$dir/gradebook.out" || fail "gradebook.sh: exit $?"
refused() { # refused SCRIPT DIR: exit 2 and one line
    sh "$here/grading/$1" "$2" 2>"$dir/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$1 $2: not exit 2 and one line"
}
refused export.sh "$dir/nobody"
mkdir "$dir/empty"
refused gradebook.sh "$dir/empty"

# ---- read them back with real parsers --------------------------------------------------------
if command -v python3 >/dev/null 2>&1; then
    python3 - "$a" "$b" "$dir/gradebook.csv" <<'EOF' || exit 1
import csv, io, json, sys, xml.etree.ElementTree as ET
A, B, book = sys.argv[1:]
H = '"q" \\back <&> \u00e9 \x1b[31m ?'  # the hostile text, its 0xff byte made '?'
bad = []
def check(ok, what):
    if not ok: bad.append(what)
def load(path):  # strict UTF-8: a stray byte would fail here
    with open(path, "rb") as f:
        return f.read().decode("utf-8")
r = json.loads(load(A + "/results.json"))
t = {x["name"]: x for x in r["tests"]}
check(abs(r["score"] - sum(x["score"] for x in r["tests"])) < 1e-9 and r["score"] == 8, "score")
check([x["max_score"] for x in r["tests"]] == [5, 2, 2, 5, 2, 5], "max_score values")
check(all(x["visibility"] == "visible" for x in r["tests"]), "visibility")
hint = "hint [ghost-cells]: outputs within mask_width/2 of the ends are wrong " + H
co = t["ch01 correctness"]["output"]
check(co.startswith("21 of 23 tests passed") and hint in co, "hint in ch01 correctness")
check("\nghost: fail\n" + hint + "\n" in co, "the first hint line, after the test's name")
check("ghost line 19\n" in co and "ghost line 18\n" not in co, "log tail: its last 15 lines")
check("want 2\n\nslow: timed out" in co, "log tail, then the next test")
check("slow: timed out" in co and "\x1b[2J ?" in co, "timed out test and its log")
check("hint" not in t["ch01 edge_cases"]["output"], "hint in the wrong group")
check(t["ch01 edge_cases"]["output"] == "all edges " + H, "hostile note")
ce = t["ch02 correctness"]["output"]
check('error: identifier "tile"' in ce and "note victor" in ce and "note uniform" not in ce,
      "compiler output from 3 lines before the first error")
check("in the submission" in t["ch03 correctness"]["output"], "missing chapter text")
check(r["leaderboard"] == [{"name": "ch01 kernel ms", "value": 1.234, "order": "asc"}], "board")
check("3 of 5 tests passed (1 failed, 1 timed out); ch02: does not compile; ch03: no file"
      in r["output"], "summary line")
check("for the instructor:" in r["output"] and "extra file ignored: " + H in r["output"], "flags")
rb = json.loads(load(B + "/results.json"))
check("1 of 3 tests passed (1 failed, 1 skipped)" in rb["output"], "bob's summary line")
check(rb["score"] == 10 and rb["leaderboard"] == [] and "instructor" not in rb["output"], "bob")

def junit(path, tests, failures, skipped, messages):
    root = ET.fromstring(load(path).encode("utf-8"))
    cases, fails = root.findall(".//testcase"), root.findall(".//failure")
    check(len(cases) == tests and root.get("tests") == str(tests), path + ": testcases")
    check(len(fails) == failures and root.get("failures") == str(failures), path + ": failures")
    check(sum(int(s.get("tests")) for s in root.findall("testsuite")) == tests, path + ": suites")
    check(len(root.findall(".//skipped")) == skipped, path + ": skipped")
    got = sorted(f.get("message") for f in fails)
    check(got == sorted(messages), path + ": failure messages %r" % got)
    return root
ra = junit(A + "/junit.xml", 8, 5, 0, [hint.replace("\x1b", ""), "timed out", "does not compile",
                                        "2.10x the solution's time",
                                        "no file conv1d_tiled.cu in the submission"])
check(ra.get("name").startswith("workbook grade: Alice " + H.replace("\x1b", "")), "suite name")
p = {s.get("name"): {q.get("name"): q.get("value") for q in s.iter("property")} for s in ra}
check(p["ch01"] == {"score": "8", "max_score": "9"}, "ch01 properties %r" % p["ch01"])
check([c.get("name") for c in ra.iter("testcase")][3] == "edge " + H.replace("\x1b", ""), "name")
rbx = junit(B + "/junit.xml", 5, 1, 2, ["failed"])
check(sorted(x.get("message") for x in rbx.iter("skipped")) ==
      ["does not apply: the kernel takes none of its masks", "no usable GPU"], "n/a in junit")

rows = list(csv.reader(io.StringIO(load(book), newline="")))
check(rows[0] == ["student", "ch01", "ch02", "ch03", "ch04", "total", "max", "flags"], "csv header")
check(len(rows) == 3, "csv rows")
check(rows[1][0] == "Alice " + H + ", O'Hara" and rows[2][0] == 'bob, "the" <builder> \u00e9',
      "csv names")
check(rows[1][1:7] == ["8", "0", "0", "0", "8", "21"], "csv scores of alice")
check(rows[2][1:7] == ["7", "0", "0", "3", "10", "12"], "csv scores of bob")
check(rows[1][7] == "ch03: conv1d_tiled.cu changed outside its TODO blocks; extra file ignored: "
      + H + ".txt", "csv flags")
for what in bad: print("grade_export: wrong:", what)
sys.exit(1 if bad else 0)
EOF
elif command -v jq >/dev/null 2>&1 || command -v xmllint >/dev/null 2>&1; then
    echo "grade_export: no python3: checking with jq and xmllint where there (not the CSV)"
    if command -v jq >/dev/null 2>&1; then
        jq -e '.score == 8 and ([.tests[].score] | add) == 8 and .leaderboard[0].value == 1.234
            and (.tests[0].output | contains("hint [ghost-cells]"))' "$a/results.json" >/dev/null ||
            fail "jq: alice's results.json"
        jq -e '.score == 10' "$b/results.json" >/dev/null || fail "jq: bob's results.json"
    fi
    if command -v xmllint >/dev/null 2>&1; then
        for s in "$a" "$b"; do xmllint --noout "$s/junit.xml" || fail "xmllint: $s/junit.xml"; done
        [ "$(grep -c '<testcase ' "$a/junit.xml")" -eq 8 ] || fail "alice's junit.xml: not 8 tests"
        [ "$(grep -c '<failure ' "$a/junit.xml")" -eq 5 ] || fail "alice's junit.xml: not 5 fails"
    fi
else
    echo "grade_export: skipped: neither python3 nor jq nor xmllint to parse the results"
    exit 77
fi
echo "grade_export: the exports parse and hold the fixture"
