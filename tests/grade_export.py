"""grade_export.py: the grader's exports stay valid, whatever bytes a student puts in them.

  python3 tests/grade_export.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

Fabricates a graded student whose name, notes, test names, flags and logs hold quotes,
backslashes, <&>, commas, ESC, a byte that is not UTF-8, non-ASCII letters, a newline and a
formula; with a chapter that does not compile, a wrong result, a timeout, a crash, a test not run
(no GPU), an n/a test, a hidden test, and speed groups of every outcome (n/a, not run, crashed,
slow, full). Writes results.json, junit.xml, summary.txt, flags.txt, flags.json and gradebooks
(without a roster, and with tests/fixtures/roster_class.csv for Canvas and Moodle) with
grading/export.py, then reads them with real parsers (json, xml.etree, csv) and checks what they
hold and what they must not (the instructor's notes, hidden tests' names, arguments and logs).
junit.xml is checked against the rules of Jenkins' JUnit schemas, written out below (no
validator library is needed). Then grade.py's own pieces, on stand-in programs as in
grade_verdicts.py: a crash told from a wrong result, the leaderboard's ratio, the speed group of a
machine without a GPU, work not handed in (blank) told from work that cannot be read (0), and a
bad ROSTER refused before anything is built.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

root, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "grading"))
import export  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# ---- Jenkins' JUnit schemas -----------------------------------------------------------------------
# What a file must meet to be valid against both schemas Jenkins users validate with: the xunit
# plugin's junit-10.xsd and junit-4.xsd (the "jenkins-junit.xsd" that JUnit 5 checks its own
# reports against). Per element: attributes required, attributes allowed besides, its children as
# a regular expression over their tags (each followed by a comma), and whether it may hold text.
# Neither schema declares anyAttribute, so an attribute not listed is invalid; a complexType that
# is not mixed holds no text; junit-4 fixes the order of a suite's and a case's children and
# declares <skipped> a plain string (no attributes), and its <properties> holds one property or
# more. Stricter here than both: a suite's skipped and time, a case's classname and time are
# required (GitLab and Jenkins show them), counts are xs:int (not negative) and times xs:decimal.
SCHEMA = {
    "testsuites": (set(), {"name", "time", "tests", "failures", "errors"}, r"(testsuite,)*", False),
    "testsuite": ({"name", "tests", "failures", "errors", "skipped", "time"},
                  {"timestamp", "hostname", "id", "package"},
                  r"(properties,)?(testcase,)*(system-out,)?(system-err,)?", False),
    "properties": (set(), set(), r"(property,)+", False),
    "property": ({"name", "value"}, set(), r"", False),
    "testcase": ({"name", "classname", "time"}, set(),
                 r"(skipped,)?(error,)*(failure,)*(system-out,)*(system-err,)*", False),
    "failure": (set(), {"type", "message"}, r"", True),
    "error": (set(), {"type", "message"}, r"", True),
    "skipped": (set(), set(), r"", True),
    "system-out": (set(), set(), r"", True),
    "system-err": (set(), set(), r"", True),
}
INTEGER = re.compile(r"[0-9]+")  # xs:int, not negative: a count
DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")  # xs:decimal without a sign
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")  # junit-10.xsd's time


def schema_errors(path):
    """Every way the file breaks the rules above, and its counts that do not add up."""
    errors = []
    text = open(path, "rb").read()
    if not text.startswith(b"<?xml version='1.0' encoding='UTF-8'?>") and \
            not text.startswith(b'<?xml version="1.0" encoding="UTF-8"?>'):
        errors.append("no XML declaration naming UTF-8")
    top = ET.fromstring(text)
    if top.tag != "testsuites":
        return errors + [f"the root is <{top.tag}>, not <testsuites>"]

    def walk(e, where):
        if e.tag not in SCHEMA:
            errors.append(f"{where}: <{e.tag}> is no element of the schema")
            return
        required, allowed, children, mixed = SCHEMA[e.tag]
        for a in required - set(e.attrib):
            errors.append(f"{where}: <{e.tag}> lacks its attribute {a}")
        for a in set(e.attrib) - required - allowed:
            errors.append(f"{where}: <{e.tag}> may not carry {a}")
        order = "".join(c.tag + "," for c in e)
        if not re.fullmatch(children, order):
            errors.append(f"{where}: <{e.tag}>'s children {order or '(none)'} are not {children or 'none'}")
        if not mixed and ((e.text or "").strip() or any((c.tail or "").strip() for c in e)):
            errors.append(f"{where}: <{e.tag}> holds text")
        for a in ("tests", "failures", "errors", "skipped"):
            if a in e.attrib and not INTEGER.fullmatch(e.get(a)):
                errors.append(f"{where}: {a}='{e.get(a)}' is not a whole number")
        if "time" in e.attrib and not (DECIMAL.fullmatch(e.get("time")) and SUREFIRE_TIME.fullmatch(e.get("time"))):
            errors.append(f"{where}: time='{e.get('time')}' is not a decimal number of seconds")
        for k, c in enumerate(e):
            walk(c, f"{where}/{c.tag}[{k}]")

    walk(top, "testsuites")
    if errors:
        return errors
    sums = {"tests": 0, "failures": 0, "errors": 0}
    for suite in top.iter("testsuite"):
        cases = suite.findall("testcase")
        counted = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
                   "errors": sum(c.find("error") is not None for c in cases),
                   "skipped": sum(c.find("skipped") is not None for c in cases)}
        for k, v in counted.items():
            if int(suite.get(k)) != v:
                errors.append(f"suite {suite.get('name')}: {k}={suite.get(k)}, but {v} cases")
            if k in sums:
                sums[k] += v
        for c in cases:
            if sum(c.find(k) is not None for k in ("failure", "error", "skipped")) > 1:
                errors.append(f"case {c.get('name')}: more than one outcome")
    for k, v in sums.items():
        if top.get(k) is not None and int(top.get(k)) != v:
            errors.append(f"testsuites: {k}={top.get(k)}, but {v} in its suites")
    return errors


# The checker itself: it must refuse what the file used to be (no errors attribute, a skipped
# case with a message attribute), a child out of order and a time that is no number.
bad = os.path.join(scratch, "bad_junit.xml")
with open(bad, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="a" tests="2" '
            'failures="0" skipped="1" time="1e3"><testcase classname="a" name="x" time="0">'
            '<skipped message="m"/></testcase><properties><property name="p" value="v"/>'
            '</properties><testcase classname="a" name="y" time="-1"/></testsuite></testsuites>')
found = " | ".join(schema_errors(bad))
for words in ("lacks its attribute errors", "may not carry message", "are not", "time='1e3'", "time='-1'"):
    check(words in found, f"the schema check misses '{words}': {found}")

# ---- one student --------------------------------------------------------------------------------
hostile = ("\"q\" 'a' \\back <tag> & a,b \u00e9\u00fc\u4e2d \x1b[31m " +
           b"\xff".decode("utf-8", "surrogateescape") + " \ufffe")


def group(nn, name, score, top, note, state="graded", visibility="visible"):
    return {"chapter": nn, "group": name, "score": score, "max": top, "note": note, "state": state,
            "visibility": visibility}


def test(nn, name, status, group_="correctness", seconds=1.0, hidden=False, hint="", tail="log", error=""):
    return {"chapter": nn, "group": group_, "name": name, "status": status, "seconds": seconds,
            "hidden": hidden, "hint": hint, "tail": tail, "error": error}


student = {
    "name": "=cmd|' /C calc'!A0\nmallory " + hostile,
    "groups": [
        group("01", "correctness", 4.5, 6, "2 of 5 tests passed " + hostile),
        group("01", "hidden", 0, 2, "0 of 1 tests passed", visibility="after_published"),
        group("01", "speed", 0, 1, "n/a: one GPU", state="n/a"),
        group("02", "correctness", 0, 6, "does not compile"),
        group("02", "speed", 0, 1, "does not compile"),
        group("03", "correctness", 3, 3, "1 of 1 tests passed"),
        group("03", "speed", 0, 1, "not measured: no usable GPU", state="not run"),
        group("04", "correctness", 2, 2, "1 of 1 tests passed"),
        group("04", "speed", 0, 1, "not measured: the bench run failed (exit 1)", state="error"),
        group("05", "correctness", 2, 2, "1 of 1 tests passed"),
        group("05", "speed", 0.5, 1, "1.60x the solution's time <slow>"),
        group("06", "correctness", 2, 2, "1 of 1 tests passed"),
        group("06", "speed", 1, 1, "0.90x the solution's time"),
        group("07", "correctness", 0, 2, "n/a: none of its tests can run here", state="n/a"),
    ],
    "tests": [
        test("01", "ch01_exercise_quick_" + hostile, "fail", seconds=1.25,
             hint="hint [ghost-cells]: " + hostile, tail="line\n" + hostile),
        test("01", "ch01_exercise_slow", "timeout", seconds=60.0, tail="stopped"),
        test("01", "ch01_exercise_crash", "fail", error="killed by SIGSEGV", tail="Segmentation fault"),
        test("01", "ch01_exercise_fine", "pass"),
        test("01", "ch01_exercise_two_gpus", "skipped"),
        test("01", "ch01_hidden_secret_case", "fail", group_="hidden", seconds=0.5, hidden=True,
             hint="hint [secret-hint]: --size 100003", tail="--size 100003 secret args"),
        test("03", "ch03_exercise_quick", "pass"),
        test("04", "ch04_exercise_quick", "pass"),
        test("05", "ch05_exercise_quick", "pass"),
        test("06", "ch06_exercise_quick", "pass"),
        test("07", "ch07_exercise_masks", "n/a"),
    ],
    "problems": {"02": "does not compile\ncompiler output:\nconv1d_constant.cu(3): error: " + hostile},
    "flags": ["extra file ignored: 01_basic_1d/" + export.shown("x\nch01: forged"),
              "ch01 hidden test: its output holds a verdict line with a wrong token (a forgery?)"],
    "leaderboard": [("06", 1.0 / 0.9)],
}
g = os.path.join(scratch, "s")
os.makedirs(g)
summary = export.write_student(g, student)

# results.json: Gradescope's fields, and nothing for the instructor alone
raw = open(os.path.join(g, "results.json"), encoding="utf-8").read()
results = json.loads(raw)
check(results["score"] == 15, f"score {results['score']}, not 15 (n/a groups must not count)")
check(results.get("output_format") == "text" and results.get("test_output_format") == "text"
      and results.get("test_name_format") == "text", "output formats are not all 'text'")
tests_by_name = {t["name"]: t for t in results["tests"]}
check(len(results["tests"]) == len(student["groups"]), "not one Gradescope test per group")
numbers = [t.get("number") for t in results["tests"]]
check(numbers[:3] == ["01.1", "01.2", "01.3"] and numbers[3:5] == ["02.1", "02.2"] and len(set(numbers)) == len(numbers),
      f"test numbers: {numbers}")
for t, x in zip(results["tests"], student["groups"]):
    if x["state"] == "n/a":
        check("status" not in t and t["max_score"] == 0, f"{t['name']}: an n/a group has a status or a maximum")
    else:
        want = "passed" if x["score"] >= x["max"] else "failed"
        check(t.get("status") == want, f"{t['name']}: status {t.get('status')}, not {want}")
check(tests_by_name["ch01 hidden"]["visibility"] == "after_published", "the hidden group is visible at once")
shown_to_students = results["output"] + "".join(t["output"] + t["name"] for t in results["tests"])
for secret in ("secret", "100003", "wrong token", "forged", "extra file", "for the instructor"):
    check(secret not in raw, f"results.json holds '{secret}' (the instructor's, or a hidden test's)")
check("hidden test 1: failed" in tests_by_name["ch01 hidden"]["output"], "the hidden test's outcome is not shown")
check("ch01_exercise_crash: did not finish: killed by SIGSEGV" in shown_to_students, "the crash is not told")
check("ch01_exercise_slow: timed out after 60 s" in shown_to_students, "the timeout is not told")
check("\x1b" not in json.dumps(results, ensure_ascii=False), "an ESC reached results.json")
check("<tag> & a,b \u00e9\u00fc\u4e2d" in tests_by_name["ch01 correctness"]["output"],
      "a name's <tag>, & or letters are not kept as written (output_format text shows them so)")
check("conv1d_constant.cu(3): error" in raw, "the compiler's line is missing")
board = results["leaderboard"]
check(len(board) == 1 and board[0]["value"] == 1.111 and board[0]["order"] == "desc" and "ch06" in board[0]["name"],
      f"leaderboard (the reference's time over the student's, higher first): {board}")

# flags.txt and flags.json: the instructor's alone
flags_txt = open(os.path.join(g, "flags.txt"), encoding="utf-8").read()
check(flags_txt.count("\n") == 2 and "extra file ignored: 01_basic_1d/x\\x0ach01: forged" in flags_txt,
      f"flags.txt: {flags_txt!r}")
flags = json.load(open(os.path.join(g, "flags.json"), encoding="utf-8"))
check(flags["flags"] == [export.shown(f) for f in student["flags"]], "flags.json's flags")
hidden = flags["hidden_tests"]
check(len(hidden) == 1 and hidden[0]["name"] == "ch01_hidden_secret_case" and "secret args" in hidden[0]["tail"]
      and hidden[0]["label"] == "hidden test 1", f"flags.json's hidden tests: {hidden}")

# junit.xml: valid, and each outcome in its element
path = os.path.join(g, "junit.xml")
for e in schema_errors(path):
    check(False, f"junit.xml: {e}")
junit = ET.parse(path).getroot()
cases = {(c.get("classname"), c.get("name")): c for c in junit.iter("testcase")}


def kind(classname, name):
    c = cases.get((classname, name))
    if c is None:
        return "missing"
    kinds = [k for k in ("failure", "error", "skipped") if c.find(k) is not None]
    return kinds[0] if kinds else "pass"


expected = {("ch01.correctness", export.xml_text("ch01_exercise_quick_" + hostile)): "failure",
            ("ch01.correctness", "ch01_exercise_slow"): "error",
            ("ch01.correctness", "ch01_exercise_crash"): "error",
            ("ch01.correctness", "ch01_exercise_fine"): "pass",
            ("ch01.correctness", "ch01_exercise_two_gpus"): "skipped",
            ("ch01.hidden", "hidden test 1"): "failure",
            ("ch01.speed", "speed"): "skipped",
            ("ch02.build", "build"): "failure",
            ("ch03.speed", "speed"): "skipped",
            ("ch04.speed", "speed"): "error",
            ("ch05.speed", "speed"): "failure",
            ("ch06.speed", "speed"): "pass",
            ("ch07.correctness", "ch07_exercise_masks"): "skipped"}
for key, want in expected.items():
    check(kind(*key) == want, f"junit {key}: {kind(*key)}, not {want}")
check(not any(k[0] == "ch02.speed" for k in cases), "a speed case for a chapter that did not build")
check(len(cases) == 17 and junit.get("tests") == "17" and junit.get("failures") == "4" and junit.get("errors") == "3",
      f"junit counts: {len(cases)} cases, tests {junit.get('tests')}, failures {junit.get('failures')}, "
      f"errors {junit.get('errors')} (not 17, 4, 3)")
check(cases[("ch01.correctness", "ch01_exercise_slow")].find("error").get("type") == "timeout", "a timeout's type")
check(not any("secret" in (e.text or "") + (e.get("message") or "") for e in junit.iter()), "a hidden test shows in junit.xml")
check(all("forged" not in (e.text or "") for e in junit.iter()), "a flag shows in junit.xml")
suite01 = [s for s in junit.iter("testsuite") if s.get("name") == "ch01"][0]
props = {p.get("name"): p.get("value") for p in suite01.iter("property")}
check(props == {"score": "4.5", "max_score": "8"}, f"ch01's properties: {props}")
check(summary.count("\n") == len(student["groups"]) + 7 and "\x1b" not in summary,
      "summary.txt: a name or note broke a line, or an ESC got through")

# ---- gradebooks ---------------------------------------------------------------------------------
full = {"01": 8, "02": 6}
rows = [{"name": student["name"], "scores": {"01": 4.5, "02": 0}, "maxima": full, "missing": set(),
         "flags": student["flags"]},
        {"name": "\tTAB", "scores": {"01": 1, "02": 0}, "maxima": full, "missing": {"02"}, "flags": []},
        {"name": "-2+3", "scores": {"01": 0, "02": 0}, "maxima": full, "missing": {"01", "02"}, "flags": []},
        {"name": 'zo\u00eb, "q" <x> & y', "scores": {"01": 8, "02": 6}, "maxima": full, "missing": set(),
         "flags": []}]
table = export.write_gradebook(scratch, rows)
book = list(csv.reader(open(os.path.join(scratch, "gradebook.csv"), encoding="utf-8", newline="")))
check(book[0] == ["student", "ch01", "ch01 max", "ch02", "ch02 max", "total", "max", "flags"], f"gradebook: {book[0]}")
check(len(book) == 5 and all(len(r) == 8 for r in book), "gradebook.csv: not a header and a row per student")
check(all(r[0][:1] not in "=+-@\t\r" for r in book[1:]), f"a gradebook cell starts a formula: {[r[0] for r in book]}")
check("\n" not in book[1][0] and "\\x0a" in book[1][0], "the newline in a name is not shown escaped")
check(book[1][1:7] == ["4.5", "8", "0", "6", "4.5", "14"], f"a student's cells: {book[1][1:7]}")
check(book[2][1:6] == ["1", "8", "", "6", "1"], f"a missing chapter is not blank: {book[2][1:6]}")
check(book[3][1:6] == ["", "8", "", "6", ""], f"no work at all is not blank: {book[3][1:6]}")
check(book[4][0] == 'zo\u00eb, "q" <x> & y' and book[4][5] == "14", f"a name with quotes and a comma: {book[4]}")
check(table.count("\n") == 6 and not any(files.startswith("gradebook_") for files in os.listdir(scratch)),
      "the printed gradebook is not a header, the maxima and a line per student, or an LMS file without a roster")

roster = export.read_roster(os.path.join(root, "tests", "fixtures", "roster_class.csv"))
check(len(roster["entries"]) == 5 and roster["entries"][1]["folder"] == "\tTAB",
      f"the roster's entries: {[e['folder'] for e in roster['entries']]}")
table = export.write_gradebook(scratch, rows, roster)
canvas = list(csv.reader(open(os.path.join(scratch, "gradebook_canvas.csv"), encoding="utf-8", newline="")))
check(canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "ch01", "ch02"], f"Canvas: {canvas[0]}")
check(canvas[1] == ["    Points Possible", "", "", "", "", "8", "6"], f"Canvas's Points Possible: {canvas[1]}")
check(len(canvas) == 7 and all(len(r) == 7 for r in canvas), "Canvas: not a row per roster entry")
check(canvas[2] == ['Zo\u00eb "Q" <X> & Y, Jr.', "101", "S101", "zoe@example.edu", "A & B <1>", "8", "6"],
      f"Canvas: a student with quotes, <, & and a comma: {canvas[2]}")
check(canvas[3][0] == "Tab, Tom\\x0aSecond line" and canvas[3][5:] == ["1", ""], f"Canvas: {canvas[3]}")
check(canvas[4][0] == "'=1+2" and canvas[4][5:] == ["", ""], f"Canvas: a formula, or no work: {canvas[4]}")
check(canvas[5][1] == "104" and canvas[5][5:] == ["", ""] and canvas[6][1] == "105" and canvas[6][5:] == ["", ""],
      f"Canvas: no submission is not blank: {canvas[5:]}")
moodle = list(csv.reader(open(os.path.join(scratch, "gradebook_moodle.csv"), encoding="utf-8", newline="")))
check(moodle[0] == ["username", "email", "idnumber", "ch01 (out of 8)", "ch02 (out of 6)", "total (out of 14)"],
      f"Moodle: {moodle[0]}")
check([r[5] for r in moodle[1:]] == ["14", "1", "", "", ""], f"Moodle's totals: {[r[5] for r in moodle[1:]]}")
check(moodle[1][:3] == ["zoe", "zoe@example.edu", "0101"] and moodle[3][:2] == ["'-dash", "'@dash@example.edu"],
      f"Moodle's identities: {moodle[1][:3]}, {moodle[3][:2]}")
check("2 with no submission" in table and "1 graded but not in the roster" in table and "\x1b" not in table,
      f"the roster's report: {table.splitlines()[-3:]}")

# A roster for Moodle alone writes no Canvas file; bad rosters are refused with the reason.
only = os.path.join(scratch, "only_moodle")
os.makedirs(only)
with open(os.path.join(only, "roster.csv"), "w", encoding="utf-8") as f:
    f.write("Folder , EMAIL\n-2+3, dash@example.edu\n")
export.write_gradebook(only, rows, export.read_roster(os.path.join(only, "roster.csv")))
check(sorted(os.listdir(only)) == ["gradebook.csv", "gradebook_moodle.csv", "roster.csv"], f"Moodle alone: {os.listdir(only)}")
bad_rosters = {
    "no_folder.csv": (b"Student,ID\nA,1\n", "no 'folder' column"),
    "no_identity.csv": (b"folder,Student,Section\na,A,1\n", "no column names a student"),
    "twice.csv": (b"folder,ID\na,1\nb,2\na,3\n", "line 4: folder 'a' is also on line 2"),
    "two_ids.csv": (b"folder,ID,id\na,1,2\n", "two 'ID' columns"),
    "latin1.csv": (b"folder,ID\nzo\xeb,1\n", "is not UTF-8 text"),
    "empty.csv": (b"\n\n", "it is empty"),
}
for name, (data, words) in bad_rosters.items():
    with open(os.path.join(scratch, name), "wb") as f:
        f.write(data)
    try:
        export.read_roster(os.path.join(scratch, name))
        check(False, f"{name}: accepted")
    except ValueError as e:
        check(words in str(e), f"{name}: '{e}' does not say '{words}'")

# ---- grade.py's pieces ----------------------------------------------------------------------------
import grade  # noqa: E402  (it works from the workbook's root)

token = "ab" * 16
check(grade.run_error(1, f"wb-grade {token} verdict fail\n".encode(), token) == "", "a wrong result is an error")
check(grade.run_error(1, f"wb-grade {token} verdict pass\n".encode(), token) == "",
      "a sanitizer's finding after a passing verdict is an error, not a failure")
check("SIGSEGV" in grade.run_error(-11, b"", token), "a segmentation fault is not named")
check("no verdict" in grade.run_error(1, b"wb-grade 0000 verdict fail\n", token), "a crash without its verdict")

settings = {"time_limit": 60, "build_limit": 300, "allow_drift": False, "hidden_visibility": "after_published",
            "seed": 11}
work = os.path.join(scratch, "grade_py")
os.makedirs(os.path.join(work, "build"))
os.makedirs(os.path.join(work, "logs"))
speeds = {  # stand-in body: the state it must give, and the leaderboard
    "01_ratio": ('echo "wb-grade $WB_GRADE_TOKEN time own 2.0 2.0 1e9 1000 1 0 0"\n'
                 'echo "wb-grade $WB_GRADE_TOKEN time solution 3.0 3.0 1e9 1000 1 0 0"\n'
                 'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', "graded", [("01", 1.5)]),
    "02_no_gpu": ('echo "no GPU"; exit 77', "not run", []),
    "03_crash": ('echo "Segmentation fault"; exit 1', "error", []),
}
for chapter, (body, state, board) in speeds.items():
    program = os.path.join(work, "build", f"ch{chapter}_exercise")
    with open(program, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(program, 0o755)
    s = grade.Student("s", work, work, [], settings)
    score, note, got = s.speed(chapter, 1.25, 3, 1.0, grade.GpuShare())
    check(got == state and s.leaderboard == board, f"speed {chapter}: {got}, {s.leaderboard} ({note})")

# Without a GPU every test is skipped: the speed group is "not run", and junit.xml skips it.
rubric = os.path.join(work, "rubric.txt")
with open(rubric, "w") as f:
    f.write("01 correctness 2 ^ch01_exercise_\n01 speed 1 1.5 3\n")
book = grade.Book(["01_basic_1d"], rubric, "", ["01_basic_1d"])
s = grade.Student("no_gpu", work, work, ["01_basic_1d"], settings)
s.state["01"] = "graded"
s.all_tests = [{"name": "ch01_exercise_quick", "labels": ["gpu", "exercise"], "status": "skipped",
                "seconds": 0.1, "hint": "", "tail": "no GPU"}]
book.score(s, False, grade.GpuShare())
check([x["state"] for x in s.groups] == ["graded", "not run"], f"no GPU: {s.groups}")
export.write_student(work, s.__dict__)
for e in schema_errors(os.path.join(work, "junit.xml")):
    check(False, f"junit.xml without a GPU: {e}")
speed_case = [c for c in ET.parse(os.path.join(work, "junit.xml")).getroot().iter("testcase")
              if c.get("name") == "speed"]
check(len(speed_case) == 1 and speed_case[0].find("skipped") is not None, "without a GPU, speed is not skipped")

# Blank is for work not handed in (no folder, or none of its files); a file handed in that cannot
# be read scores 0 like one that does not compile.
pristine = {"conv1d_basic.cu": "x\n"}
for layout, files, absent in (("none", {}, True), ("empty", {}, True),
                              ("unreadable", {"conv1d_basic.cu": b"\xff\n"}, False)):
    source = os.path.join(work, "handed_in", layout)
    os.makedirs(source)
    if layout != "none":
        os.makedirs(os.path.join(source, "01_basic_1d"))
    for name, data in files.items():
        with open(os.path.join(source, "01_basic_1d", name), "wb") as f:
            f.write(data)
    s = grade.Student(layout, source, os.path.join(work, "g_" + layout), ["01_basic_1d"], settings)
    s.collect("01_basic_1d", pristine)
    check(s.state.get("01") == "missing" and (s.absent == {"01"}) == absent,
          f"{layout}: state {s.state.get('01')}, absent {s.absent}")

# A bad ROSTER stops make grade before anything is built; so does ROSTER without SUBMISSIONS.
klass = os.path.join(scratch, "grade_export_class")
os.makedirs(os.path.join(klass, "alice"))
env = {k: v for k, v in os.environ.items() if not k.startswith(("WB_GRADE_", "GRADE_"))}
env.update(WB_GRADE_CHAPTER_LIST="01_basic_1d", WB_GRADE_JOBS="1")
for extra, words in (({"WB_GRADE_SUBMISSIONS": klass, "WB_GRADE_ROSTER": os.path.join(scratch, "twice.csv")},
                      "is also on line 2"),
                     ({"WB_GRADE_SUBMISSION": klass, "WB_GRADE_ROSTER": os.path.join(scratch, "twice.csv")},
                      "give it with SUBMISSIONS"),
                     ({"WB_GRADE_SUBMISSIONS": klass, "WB_GRADE_ROSTER": os.path.join(scratch, "none.csv")},
                      "is not a file")):
    r = subprocess.run([sys.executable, os.path.join(root, "grading", "grade.py")], env=dict(env, **extra),
                       capture_output=True, text=True, cwd=root)
    check(r.returncode == 2 and words in r.stderr, f"ROSTER {extra}: exit {r.returncode}, {r.stderr.strip()!r}")
check(not os.path.exists(os.path.join(root, "build", "grade", "grade_export_class")), "a refused ROSTER left results behind")

for f in failures:
    print("grade_export: " + f)
print(f"grade_export: results.json, junit.xml (Jenkins' schema rules), summary.txt, flags, gradebooks "
      f"(plain, Canvas, Moodle), grade.py's outcomes; {len(failures)} problems")
sys.exit(1 if failures else 0)
