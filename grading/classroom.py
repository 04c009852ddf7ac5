#!/usr/bin/env python3
"""classroom.py: a results.json of make grade (Gradescope's format) as GitHub Classroom's grading
reporter reads it: the `result` output of one grader step, a base64-encoded JSON object.

  python3 grading/classroom.py RESULTS_JSON [RUBRIC] > result.b64     (grading/classroom/classroom.yml)

The object is the one Classroom's grader actions (autograding-command-grader, -io-grader) write:
version 1; status "pass" (every test passed), "fail" or "error" (nothing was graded); max_score;
tests, each with name, status ("pass" or "fail"), score, message, test_code, filename, line_no
and duration. The reporter (classroom-resources/autograding-grading-reporter) decodes it from
the environment variable <STEP_ID>_RESULTS, adds up the tests' scores and the max_score, and
posts "Points X/Y", which Classroom records; it fails the job when a status is "fail" or "error".

One test per rubric group of results.json, with its score and maximum; a group left out of the
maximum (n/a) is left out here too. A group whose details Gradescope would hold back (a
visibility other than "visible": hidden tests) shows its score only: a workflow's log is the
student's to read. Each message is capped (MESSAGE_CAP), since a step's outputs are limited in
size. A results.json that is missing or invalid gives status "error", one test scoring 0, and,
as its max_score, the rubric's total for the chapters in GRADE_CHAPTERS (all when unset), so
the failure shows as 0 of the real maximum rather than as no score.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gs_results  # noqa: E402

MESSAGE_CAP = 4000


def rubric_total(path):
    wanted = os.environ.get("GRADE_CHAPTERS", "").split()
    total = 0.0
    try:
        for line in open(path, encoding="utf-8"):
            fields = line.split()
            if len(fields) >= 3 and not line.startswith("#") and (not wanted or fields[0] in wanted):
                total += float(fields[2])
    except (OSError, ValueError):
        pass
    return total


def number(x):
    return int(x) if float(x).is_integer() else round(float(x), 2)


def convert(results):
    tests = []
    for t in results.get("tests", []):
        top = t.get("max_score", 0)
        if "status" not in t and not top:  # an n/a group: out of the maximum
            continue
        score = t.get("score", 0)
        if t.get("visibility", "visible") == "visible":
            message = t.get("output", "")
        else:
            message = "(details shown once your instructor publishes the grades)"
        if len(message) > MESSAGE_CAP:
            message = message[:MESSAGE_CAP] + "\n... (the rest is cut: a step's output is limited in size)"
        tests.append({"name": t.get("name", f"test {len(tests) + 1}"),
                      "status": "pass" if score >= top else "fail",
                      "score": number(score), "message": message, "test_code": "",
                      "filename": "", "line_no": 0, "duration": 0})
    most = number(sum(t.get("max_score", 0) for t in results.get("tests", [])))
    status = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
    return {"version": 1, "status": status, "max_score": most, "tests": tests}


def failed(why, most):
    return {"version": 1, "status": "error", "max_score": number(most),
            "tests": [{"name": "grading", "status": "fail", "score": 0,
                       "message": why, "test_code": "", "filename": "", "line_no": 0, "duration": 0}]}


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: classroom.py RESULTS_JSON [RUBRIC]", file=sys.stderr)
        return 2
    rubric = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "rubric.txt")
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            results = json.load(f)
        found = gs_results.problems(results)
    except (OSError, ValueError) as e:
        results, found = None, [f"no readable results.json ({e.__class__.__name__})"]
    if found:
        print("classroom: " + "; ".join(found), file=sys.stderr)
        out = failed("The grader did not produce a result: " + "; ".join(found), rubric_total(rubric))
    else:
        out = convert(results)
    print(base64.b64encode(json.dumps(out).encode("utf-8")).decode("ascii"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
