"""gs_results.py: Gradescope's results.json, checked and written, for the programs that pass one
along rather than make it: grading/serve_grade.py (the GPU machine's entry point), the Gradescope
kit's autograder.py (which carries a copy of this file) and grading/classroom.py.

  problems(obj)        what makes obj no results.json Gradescope accepts (empty: none), by
                       Gradescope's autograder specification: an object; a numeric "score", or
                       a "tests" list whose every entry has one; tests are objects whose
                       score and max_score are numbers, whose name, number and output are text
  error_result(text)   the results.json of a submission that could not be graded: score 0 and
                       text, shown to the student (the 0 is a placeholder, and the text says so)
  dump(obj)            the text to write: JSON, UTF-8, one trailing newline

Python 3's standard library only: the kit runs in Gradescope's image, where nothing else is sure.
"""
import json

VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")


def problems(obj):
    if not isinstance(obj, dict):
        return ["not a JSON object"]
    found = []
    tests = obj.get("tests", [])
    if not isinstance(tests, list):
        return ["'tests' is not a list"]
    if "score" in obj and not _number(obj["score"]):
        found.append("'score' is not a number")
    if "score" not in obj and (not tests or not all(isinstance(t, dict) and "score" in t for t in tests)):
        found.append("no 'score', and not every test has one")
    for key in ("output", "visibility", "stdout_visibility"):
        if key in obj and not isinstance(obj[key], str):
            found.append(f"'{key}' is not text")
    for i, t in enumerate(tests):
        if not isinstance(t, dict):
            found.append(f"test {i} is not an object")
            continue
        for key in ("score", "max_score"):
            if key in t and not _number(t[key]):
                found.append(f"test {i}: '{key}' is not a number")
        for key in ("name", "number", "output", "status"):
            if key in t and not isinstance(t[key], str):
                found.append(f"test {i}: '{key}' is not text")
        if t.get("visibility", "visible") not in VISIBILITY:
            found.append(f"test {i}: 'visibility' is not one of {', '.join(VISIBILITY)}")
    return found


def error_result(text):
    return {"score": 0,
            "output": text + "\n\n(The score of 0 stands until the submission is graded: it says "
                             "nothing about your code.)",
            "output_format": "text",
            "tests": []}


def dump(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
