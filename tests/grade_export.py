"""grade_export.py: the grader's exports stay valid, whatever bytes a student puts in them.

  python3 tests/grade_export.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

Fabricates a graded student whose name, notes, test names, flags and logs hold quotes,
backslashes, <&>, ESC, a byte that is not UTF-8, a newline and a formula; with a chapter that does
not compile, a failed and a timed-out test, a hidden test, an n/a group and a leaderboard line.
Writes results.json, junit.xml, summary.txt and a gradebook with grading/export.py, then reads
them with real parsers and checks what they hold (and what they must not: hidden test names).
"""
import csv
import json
import os
import shutil
import sys
import xml.etree.ElementTree as ET

root, scratch = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "grading"))
import export  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
hostile = "\"q\" \\back <&> \u00e9 \x1b[31m " + b"\xff".decode("utf-8", "surrogateescape") + " \ufffe"
student = {
    "name": "=cmd|' /C calc'!A0\nmallory " + hostile,
    "groups": [
        {"chapter": "01", "group": "correctness", "score": 4.5, "max": 6, "note": "21 of 23 " + hostile,
         "visibility": "visible", "state": "graded"},
        {"chapter": "01", "group": "hidden", "score": 0, "max": 2, "note": "0 of 1 tests passed",
         "visibility": "after_published", "state": "graded"},
        {"chapter": "01", "group": "speed", "score": 0, "max": 1, "note": "n/a: one GPU", "visibility": "visible",
         "state": "n/a"},
        {"chapter": "02", "group": "correctness", "score": 0, "max": 6, "note": "does not compile",
         "visibility": "visible", "state": "graded"},
    ],
    "tests": [
        {"chapter": "01", "group": "correctness", "name": "ch01_exercise_quick_" + hostile, "status": "fail",
         "seconds": 1.25, "hidden": False, "hint": "hint [ghost-cells]: " + hostile, "tail": "line\n" + hostile},
        {"chapter": "01", "group": "correctness", "name": "ch01_exercise_slow", "status": "timeout",
         "seconds": 60.0, "hidden": False, "hint": "", "tail": "stopped"},
        {"chapter": "01", "group": "hidden", "name": "ch01_hidden_secret_case", "status": "fail",
         "seconds": 0.5, "hidden": True, "hint": "", "tail": "--size 100003 secret args"},
    ],
    "problems": {"02": "does not compile\ncompiler output:\nconv1d_constant.cu(3): error: " + hostile},
    "flags": ["extra file ignored: 01_basic_1d/" + export.shown("x\nch01: forged")],
    "leaderboard": [("01", 0.75)],
}
g = os.path.join(scratch, "s")
os.makedirs(g)
summary = export.write_student(g, student)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


results = json.load(open(os.path.join(g, "results.json"), encoding="utf-8"))
check(results["score"] == 4.5, f"score {results['score']}, not 4.5 (an n/a group must not count)")
check(len(results["tests"]) == 4, "not one Gradescope test per group")
hidden = [t for t in results["tests"] if t["name"] == "ch01 hidden"][0]
check(hidden["visibility"] == "after_published", "the hidden group is visible at once")
visible = json.dumps([t for t in results["tests"] if t["visibility"] == "visible"]) + results["output"]
check("secret" not in visible, "a hidden test's name or arguments show in visible output")
check("\x1b" not in json.dumps(results, ensure_ascii=False), "an ESC reached results.json")
check("conv1d_constant.cu(3): error" in json.dumps(results), "the compiler's line is missing")
check(results["leaderboard"] == [{"name": "ch01 kernel ms", "value": 0.75, "order": "asc"}], "leaderboard")
junit = ET.parse(os.path.join(g, "junit.xml")).getroot()
names = [c.get("name") for c in junit.iter("testcase")]
check("hidden test 1" in names and not any("secret" in n for n in names), f"junit names: {names}")
check(not any("secret" in (f.text or "") for f in junit.iter("failure")), "a hidden test's log is in junit.xml")
check(junit.get("failures") == "4", f"junit failures {junit.get('failures')}, not 4 (2 tests, 1 hidden, 1 build)")
check(summary.count("\n") == len(student["groups"]) + 6 and "\x1b" not in summary,
      "summary.txt: a name or note broke a line, or an ESC got through")
table = export.write_gradebook(scratch, [(student["name"], {"01": 4.5, "02": 0}, 4.5, 12, student["flags"]),
                                         ("\tTAB", {"01": 1}, 1, 12, []), ("-2+3", {}, 0, 12, [])])
rows = list(csv.reader(open(os.path.join(scratch, "gradebook.csv"), encoding="utf-8", newline="")))
check(len(rows) == 4 and rows[0] == ["student", "ch01", "ch02", "total", "max", "flags"], f"gradebook: {rows[:1]}")
check(all(r[0][:1] not in "=+-@\t\r" for r in rows[1:]), f"a gradebook cell starts a formula: {[r[0] for r in rows]}")
check("\n" not in rows[1][0] and "\\x0a" in rows[1][0], "the newline in a name is not shown escaped")
check(table.count("\n") == 4, "the printed gradebook has a line per student and a header")
for f in failures:
    print("grade_export: " + f)
print(f"grade_export: results.json, junit.xml, summary.txt, gradebook.csv; {len(failures)} problems")
sys.exit(1 if failures else 0)
