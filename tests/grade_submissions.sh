#!/bin/sh
# grade_submissions.sh: `make grade SUBMISSIONS=...` on submissions written to break a grader.
#
#   sh tests/grade_submissions.sh ROOT SCRATCH_DIR
#
# Writes, from the chapter 01 solution, one folder per student under SCRATCH_DIR/class: the
# solution itself (in the exercises/NN_name/ layout), a file that does not compile, a kernel that
# hangs, one that writes far out of bounds (an illegal address), one that writes one element past
# the end (only memcheck sees it), a ghost-cell mutant with an extra file beside it, and the
# solution edited outside its TODO blocks (refused by the gate: grading/RULES.md, no-drift). Every student lacks chapter 02 (missing). Grades them (the hang in a class
# of its own, below) with tests/fixtures/rubric_small.txt and checks, with Python's json, xml and
# csv parsers, what each must score, which hint each must show and what the instructor is told.
# Without a GPU only what needs none is checked (build failures, missing files, flags, the files'
# formats), and it says so.
root=$1 scratch=$2
solution="$root/solutions/01_basic_1d/conv1d_basic.cu"
[ -f "$solution" ] || { echo "grade_submissions: no $solution (a student's copy): skipping"; exit 77; }
command -v python3 >/dev/null || { echo "grade_submissions: python3 is needed to parse the results: skipping"; exit 77; }
class="$scratch/grade_selftest_class" # its results: build/grade/grade_selftest_class
# this test's own results, wherever an earlier run took its submissions from
rm -rf "$scratch" "$root/build/grade/grade_selftest_class" "$root/build/grade/grade_selftest_hang" &&
    mkdir -p "$class" || exit 1
make_student() { # NAME LAYOUT SED_EXPRESSION
    dir="$class/$1/$2"
    mkdir -p "$dir"
    sed "$3" "$solution" >"$dir/conv1d_basic.cu"
}
make_student solution exercises/01_basic_1d 's/^//'
make_student no_compile 01_basic_1d 's/out\[i\] = sum;/out[i] = oops;/'
# clock64() is volatile, so the compiler keeps this loop (a spin on a local volatile it removed).
make_student hangs 01_basic_1d 's/if (i >= n) return;/if (i >= n) return;\
    if (i == 0) while (clock64() >= 0) { }/'
make_student crashes 01_basic_1d 's/out\[i\] = sum;/out[i + (1 << 28)] = sum;/'
make_student past_the_end 01_basic_1d 's/if (i >= n) return;/if (i > n) return;/'
make_student ghost_mutant 01_basic_1d 's/k >= 0 \&\& k < n/k >= 0 \&\& k < n - 1/'
echo "my notes" >"$class/ghost_mutant/01_basic_1d/notes.txt"
make_student drifted 01_basic_1d 's/one thread per output,/one thread per output (mine),/'
# Two classes, so that no time limit is both short and tight: the kernel that hangs alone, with
# GRADE_TIME_LIMIT=3 (it costs 3 s, and its memcheck must not run at all), and the others with
# 30 (memcheck 120): beside make test's other jobs on a host of four H100s, tests of 0.3 to 0.7 s
# alone took up to 13.5 s, and with a limit of 8 the solution once lost its memcheck point and
# past_the_end its quick test.
hang_class="$scratch/grade_selftest_hang"
mkdir -p "$hang_class" && mv "$class/hangs" "$hang_class/" || exit 1
grade() { # CLASS LIMIT
    out=$(cd "$root" && make -s grade SUBMISSIONS="$1" RUBRIC=tests/fixtures/rubric_small.txt \
        GRADE_CHAPTERS="01 02" GRADE_TIME_LIMIT="$2" 2>&1)
    rc=$?
    printf '%s\n' "$out" | tail -40
    [ $rc -eq 0 ] || { echo "grade_submissions: make grade of $1 exited $rc"; exit 1; }
}
grade "$class" 30
grade "$hang_class" 3
gpu=1
printf '%s\n' "$out" | grep -q 'no usable GPU here' && gpu=0
python3 - "$root/build/grade/grade_selftest_class" "$root/build/grade/grade_selftest_hang" "$gpu" <<'PY'
import csv, json, sys, xml.etree.ElementTree as ET
base, hang_base, gpu = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
failures = []
def check(cond, what):
    if not cond: failures.append(what)
def load(student):
    g = f"{hang_base if student == 'hangs' else base}/{student}"
    results = json.load(open(f"{g}/results.json"))
    junit = ET.parse(f"{g}/junit.xml").getroot()
    groups = {}
    for line in open(f"{g}/groups.tsv"):
        nn, group, score, top, note, state = line.rstrip("\n").split("\t")
        groups[(nn, group)] = (float(score), float(top), note)
    return results, junit, groups, open(f"{g}/flags.txt").read(), open(f"{g}/chapters.tsv").read()
students = ["solution", "no_compile", "hangs", "crashes", "past_the_end", "ghost_mutant", "drifted"]
data = {s: load(s) for s in students}
for s, (results, junit, groups, flags, chapters) in data.items():
    check("02\tmissing" in chapters, f"{s}: chapter 02 not reported missing")
    check(groups[("02", "correctness")][0] == 0, f"{s}: a missing chapter scored")
    check(abs(results["score"] - sum(v[0] for v in groups.values())) < 0.01, f"{s}: results.json score is not the sum")
    check(junit.tag == "testsuites", f"{s}: junit.xml root is {junit.tag}")
results, junit, groups, flags, chapters = data["no_compile"]
check("01\tcompile_error" in chapters, "no_compile: not reported as a compile error")
check(any("oops" in t["output"] for t in results["tests"]), "no_compile: the compiler's error is not shown")
results, junit, groups, flags, chapters = data["ghost_mutant"]
check("extra file ignored: 01_basic_1d/notes.txt" in flags, "ghost_mutant: the extra file is not listed")
results, junit, groups, flags, chapters = data["drifted"]
check("rule no-drift" in flags, "drifted: the edit outside TODO blocks is not refused")
check(groups[("01", "correctness")][0] == 0, "drifted: a file refused by the gate scored")
check("rule" not in data["solution"][3], "solution: refused by the gate")
rows = list(csv.reader(open(f"{base}/gradebook.csv")))
check(len(rows) == 7, f"gradebook.csv has {len(rows)} rows, not a header and 6 students")
rows = list(csv.reader(open(f"{hang_base}/gradebook.csv")))
check(len(rows) == 2, f"the hang's gradebook.csv has {len(rows)} rows, not a header and 1 student")
if gpu:
    s = data["solution"][2]
    check(all(v[0] == v[1] for k, v in s.items() if k[0] == "01"), f"solution: not full marks: {s}")
    h = data["hangs"]
    check(h[2][("01", "correctness")][0] < h[2][("01", "correctness")][1], "hangs: correctness not reduced")
    check(any("hint [hang]" in t["output"] for t in h[0]["tests"]), "hangs: no hang hint")
    check(h[2][("01", "sanitizers")][0] == 0, "hangs: sanitizer points for a kernel that hangs")
    check("not run:" in open(f"{hang_base}/hangs/logs/ch01_exercise_memcheck.log").read(),
          "hangs: memcheck ran after a test had run out of time")
    c = data["crashes"]
    check(c[2][("01", "correctness")][0] == 0, "crashes: correctness points for a crashing kernel")
    check(any("hint [out-of-bounds]" in t["output"] for t in c[0]["tests"]), "crashes: no out-of-bounds hint")
    p = data["past_the_end"]
    check(p[2][("01", "correctness")][0] == p[2][("01", "correctness")][1],
          "past_the_end: correctness points lost (the one write past the end is only memcheck's)")
    check(p[2][("01", "sanitizers")][0] == 0, "past_the_end: memcheck did not cost its point")
    memcheck = open(f"{base}/past_the_end/logs/ch01_exercise_memcheck.log").read()
    check("Invalid __global__ write" in memcheck and "hint [out-of-bounds]" in memcheck,
          "past_the_end: memcheck did not report the write past the end with its hint")
    m = data["ghost_mutant"]
    check(m[2][("01", "correctness")][0] < m[2][("01", "correctness")][1], "ghost_mutant: correctness not reduced")
    check(any("hint [ghost-cells]" in t["output"] for t in m[0]["tests"]), "ghost_mutant: no ghost-cells hint")
    check(m[2][("01", "speed")][0] == 0, "ghost_mutant: speed points for a wrong kernel")
for f in failures: print("grade_submissions: " + f)
print("grade_submissions: %s; %d problems" % ("all checks" if gpu else "no GPU: the checks that need none", len(failures)))
sys.exit(1 if failures else 0)
PY
