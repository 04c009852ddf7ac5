"""grade_classroom.py: grading/classroom.py turns make grade's results.json into the result GitHub
Classroom's grading reporter reads, and grading/classroom/classroom.yml wires it as the reporter
expects.

  python3 tests/grade_classroom.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

A results.json written by grading/export.py (as make grade writes it) for a student with a full
group, a partial one, an n/a one, a group of hidden tests and a failed test with a long log is
converted; the output must be one line of base64 whose JSON has the fields Classroom's grader
actions write (version 1, status, max_score, tests with name, status pass or fail, score, message,
test_code, filename, line_no, duration), scores that add up to results.json's score, a max_score
that is the sum of the counted groups' maxima, no n/a group, no hidden test's details, and
messages within the cap. A missing results.json gives status "error", one test scoring 0 and the
rubric's total for GRADE_CHAPTERS as max_score. The workflow: named "Autograding Tests", one job
"run-autograding-tests" on a self-hosted GPU runner, the grade step's id in the reporter's
runners and its result in GRADE_RESULTS (the reporter reads <ID>_RESULTS).
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys

root, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "grading"))
import export  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def convert(path, env=None):
    r = subprocess.run([sys.executable, os.path.join(root, "grading", "classroom.py"), path],
                       capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    check(r.returncode == 0, f"classroom.py {path}: exit {r.returncode}: {r.stderr.strip()[:200]}")
    lines = r.stdout.splitlines()
    check(len(lines) == 1 and re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", lines[0] if lines else ""),
          f"classroom.py {path}: not one line of base64: {r.stdout[:200]!r}")
    return json.loads(base64.b64decode(lines[0]).decode("utf-8")) if lines else {}


def test(name, chapter, group, status, hidden=False, tail="ok"):
    return {"chapter": chapter, "group": group, "name": name, "status": status, "seconds": 1.0,
            "hidden": hidden, "hint": "", "tail": tail, "error": ""}


def group(chapter, name, score, top, state="graded", visibility="visible"):
    return {"chapter": chapter, "group": name, "score": score, "max": top, "note": f"{name} note",
            "state": state, "visibility": visibility}


student = {
    "name": "alice",
    "groups": [group("01", "correctness", 6, 6), group("01", "edge_cases", 1, 2),
               group("01", "hidden", 0, 2, visibility="after_published"),
               group("10", "correctness", 0, 12, state="n/a")],
    "tests": [test("ch01_exercise_quick", "01", "correctness", "pass"),
              test("ch01_exercise_block_1", "01", "edge_cases", "pass"),
              test("ch01_exercise_block_2", "01", "edge_cases", "fail", tail="y" * 9000),
              test("ch01_hidden_secret_case", "01", "hidden", "fail", hidden=True, tail="secret args")],
    "problems": {}, "flags": [], "leaderboard": []}
export.write_student(scratch, student)
results = json.load(open(os.path.join(scratch, "results.json")))
out = convert(os.path.join(scratch, "results.json"))
check(out.get("version") == 1 and out.get("status") == "fail", f"version/status: {out.get('version')}, {out.get('status')}")
tests = out.get("tests", [])
check([t.get("name") for t in tests] == ["ch01 correctness", "ch01 edge_cases", "ch01 hidden"],
      f"tests: {[t.get('name') for t in tests]} (the n/a group must be left out)")
fields = {"name", "status", "score", "message", "test_code", "filename", "line_no", "duration"}
for t in tests:
    check(set(t) == fields, f"{t.get('name')}: fields {sorted(t)}")
    check(t.get("status") in ("pass", "fail"), f"{t.get('name')}: status {t.get('status')}")
    check(len(t.get("message", "")) <= 4100, f"{t.get('name')}: message of {len(t.get('message', ''))} characters")
check([t.get("status") for t in tests] == ["pass", "fail", "fail"], f"statuses: {[t.get('status') for t in tests]}")
check(sum(t.get("score", 0) for t in tests) == results["score"] == 7, f"scores add to {sum(t.get('score', 0) for t in tests)}")
check(out.get("max_score") == 10, f"max_score {out.get('max_score')}, not 6 + 2 + 2 (n/a left out)")
check("secret" not in json.dumps(out), "a hidden test's name or log reached the workflow's log")
check("yyyy" in tests[1]["message"] and "the rest is cut" in tests[1]["message"], "the long log is not shown, cut")

missing = convert(os.path.join(scratch, "no_such_results.json"), {"GRADE_CHAPTERS": "01 02"})
check(missing.get("status") == "error" and missing.get("max_score") == 20
      and [t.get("score") for t in missing.get("tests", [])] == [0],
      f"missing results.json: {json.dumps(missing)[:300]}")

workflow = open(os.path.join(root, "grading", "classroom", "classroom.yml")).read()
for wanted in ("name: Autograding Tests\n", "  run-autograding-tests:\n", "self-hosted", "gpu",
               "        id: grade\n", "uses: classroom-resources/autograding-grading-reporter@v1",
               "GRADE_RESULTS: ${{ steps.grade.outputs.result }}", "runners: grade\n",
               "grading/serve_grade.py", "grading/classroom.py", '>> "$GITHUB_OUTPUT"'):
    check(wanted in workflow, f"classroom.yml lacks {wanted!r}")
check(len(re.findall(r"^  [a-z-]+:$", workflow.split("\njobs:\n", 1)[-1], re.M)) == 1, "classroom.yml has more than one job")
try:
    import yaml  # where PyYAML is installed, the file must parse too
    parsed = yaml.safe_load(workflow)
    check(list(parsed["jobs"]) == ["run-autograding-tests"], "classroom.yml: jobs do not parse as one job")
except ImportError:
    pass

for f in failures:
    print("grade_classroom: " + f)
print(f"grade_classroom: {len(failures)} problems")
sys.exit(1 if failures else 0)
