"""export.py: one graded student's results in the forms instructors' tools read, and a class's
gradebooks. grading/grade.py calls these; nothing here runs a student's code.

  shown(s)                      any text made safe to show: control characters and bytes that
                                are not UTF-8 written as \\xNN, so a name can never break a line
  write_student(g, student)     G/results.json (Gradescope's format: what the student sees),
                                G/junit.xml (Jenkins, GitLab and other CI servers), G/summary.txt
                                (people), G/flags.txt and G/flags.json (the instructor's alone: the
                                flags, each chapter's seed, hidden tests in full); returns the summary
  read_roster(path)             a roster (CSV: submission folder -> student identity), checked;
                                ValueError says what is wrong with it
  write_gradebook(root, rows, roster)
                                ROOT/gradebook.csv, one row per student graded; with a roster also
                                ROOT/gradebook_canvas.csv and ROOT/gradebook_moodle.csv (each when
                                the roster names students for it), one row per roster entry;
                                returns the table to print

`student` is the dict grade.py builds: name, groups (chapter, group, score, max, note, visibility,
state: graded, n/a (left out of the maximum), "not run" (a speed run that never started) or
"error" (a speed run that crashed)), tests (chapter, group, name, status: pass, fail, timeout,
skipped or n/a; seconds, hidden, hint, tail, error: why a failed run is no wrong result, empty
when the program's own verdict failed it), problems (chapter: text shown for a chapter not
graded), flags, leaderboard ((chapter, the reference's time over the student's) pairs). Every
file is written whole beside its place and then moved there, and each output is capped
(OUTPUT_CAP), so no student can make a result file grow without bound.

What students see never holds the instructor's notes: results.json carries the score, the groups'
notes, the compiler's and the tests' lines about the student's own code, and hidden tests only as
"hidden test N" with their outcome (no name, arguments, hint or log), as junit.xml does; the
flags and the hidden tests' details are in flags.txt and flags.json beside it.
"""
import csv
import io
import json
import os
import xml.etree.ElementTree as ET

OUTPUT_CAP = 16 * 1024  # characters of one group's output in results.json
# Gradescope renders output as "text" (as written, whitespace kept), "simple_format" (its default:
# HTML with line breaks), "md", "html" or "ansi". Only "text" shows a name such as <n> or a*b
# as written: the others read it as a tag or as emphasis, and a student's text would be markup.
GRADESCOPE_FORMAT = "text"
CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_KEYS = ("ID", "SIS User ID", "SIS Login ID")  # what Canvas matches a row to a student by
MOODLE_IDENTITY = ("username", "email", "idnumber")  # what Moodle's import can map a user from


def shown(s):
    if isinstance(s, bytes):
        s = s.decode("utf-8", "surrogateescape")
    out = []
    for c in s:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8
            out.append("\\x%02x" % (o - 0xDC00))
        elif o < 0x20 or o == 0x7F or 0x80 <= o < 0xA0:
            out.append("\\x%02x" % o if o < 0x100 else "?")
        else:
            out.append(c)
    return "".join(out)


def capped(text, cap=OUTPUT_CAP):
    return text if len(text) <= cap else text[:cap] + f"\n... ({len(text) - cap} more characters)"


def atomic_write(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def number(x):
    return int(x) if float(x).is_integer() else round(float(x), 2)


# ---- one student ----------------------------------------------------------------------------------

def labelled(tests):
    """The tests, each with the name a student may see (label): a hidden test is "hidden test N",
    N counting the hidden tests of its chapter, the same in results.json and junit.xml."""
    out, count = [], {}
    for t in tests:
        label = t["name"]
        if t["hidden"]:
            count[t["chapter"]] = count.get(t["chapter"], 0) + 1
            label = f"hidden test {count[t['chapter']]}"
        out.append(dict(t, label=label))
    return out


def outcome(t):
    """What a test's run was, in JUnit's words: pass; failure (a wrong result: the program's own
    verdict, or a checker run around it such as a sanitizer, failed it); error (it ran out of
    time, or ended without its verdict: a crash, a CUDA error, a signal); skipped (not run here,
    or n/a: the kernel takes none of its masks)."""
    if t["status"] == "fail":
        return "error" if t.get("error") else "failure"
    return {"pass": "pass", "timeout": "error", "skipped": "skipped", "n/a": "skipped"}.get(
        t["status"], "failure")


def what_happened(t):
    if t["status"] == "timeout":
        return f"timed out after {t['seconds']:.0f} s"
    if t.get("error"):
        return f"did not finish: {t['error']}"
    return "failed"


def failed_text(t):
    """A failed test as its student sees it; a hidden test's outcome alone."""
    head = f"{t['label']}: {what_happened(t)}"
    if t["hidden"]:
        return head
    return head + (f"\n{t['hint']}" if t["hint"] else "") + "\nlast lines of its log:\n" + t["tail"]


def write_student(g, student):
    groups, tests = student["groups"], labelled(student["tests"])
    counted = [x for x in groups if x["state"] != "n/a"]
    total = sum(x["score"] for x in counted)
    most = sum(x["max"] for x in counted)
    counts = {}
    for t in tests:
        counts[t["status"]] = counts.get(t["status"], 0) + 1
    line = (f"{shown(student['name'])}: {number(total)} / {number(most)} points; "
            f"{counts.get('pass', 0)} of {len(tests) - counts.get('n/a', 0)} tests passed")
    more = [f"{counts[k]} {w}" for k, w in (("fail", "failed"), ("timeout", "timed out"),
                                            ("skipped", "skipped")) if counts.get(k)]
    if more:
        line += " (" + ", ".join(more) + ")"
    for nn, text in sorted(student["problems"].items()):
        line += f"; ch{nn}: {text.splitlines()[0] if text else ''}"
    flags = "".join(f"\n  {shown(f)}" for f in student["flags"])

    # results.json: a Gradescope test per rubric group, numbered NN.K (K: the group's place among
    # its chapter's rubric lines), passed when it earned every point; an n/a group, out of the
    # maximum, has no status. A group holding hidden tests shows only after the instructor
    # publishes (or as GRADE_HIDDEN_VISIBILITY says).
    entries, place = [], {}
    for x in groups:
        place[x["chapter"]] = place.get(x["chapter"], 0) + 1
        out = x["note"]
        if x["chapter"] in student["problems"]:
            out += "\n\n" + student["problems"][x["chapter"]]
        for t in tests:
            if (t["chapter"], t["group"]) == (x["chapter"], x["group"]) and \
                    outcome(t) in ("failure", "error"):
                out += "\n\n" + failed_text(t)
        entry = {"name": f"ch{x['chapter']} {shown(x['group'])}",
                 "number": f"{x['chapter']}.{place[x['chapter']]}",
                 "score": number(x["score"]),
                 "max_score": number(x["max"]) if x["state"] != "n/a" else 0,
                 "output": capped(shown_block(out)), "visibility": x["visibility"]}
        if x["state"] != "n/a":
            entry["status"] = "passed" if x["score"] >= x["max"] else "failed"
        entries.append(entry)
    results = {"score": number(total),
               "output": capped(line),
               "output_format": GRADESCOPE_FORMAT,
               "test_output_format": GRADESCOPE_FORMAT,
               "test_name_format": GRADESCOPE_FORMAT,
               "tests": entries,
               # the reference's time over the student's, both measured in one process on one
               # GPU: comparable across GPU models, where milliseconds are not; higher is faster
               "leaderboard": [{"name": f"ch{nn} speed (reference time / yours)",
                                "value": round(ratio, 3), "order": "desc"}
                               for nn, ratio in student["leaderboard"]]}
    atomic_write(os.path.join(g, "results.json"), json.dumps(results, indent=2) + "\n")

    # The instructor's: the flags a line each (flags.txt), and with the hidden tests in full
    # (flags.json), with the seed each chapter was graded with (GRADE_SEED regrades with it).
    atomic_write(os.path.join(g, "flags.txt"), "".join(shown(f) + "\n" for f in student["flags"]))
    hidden = [{"chapter": t["chapter"], "group": shown(t["group"]), "label": t["label"],
               "name": shown(t["name"]), "status": t["status"], "error": shown(t.get("error", "")),
               "seconds": round(t["seconds"], 2), "hint": shown_block(t["hint"]),
               "tail": capped(shown_block(t["tail"]))} for t in tests if t["hidden"]]
    atomic_write(os.path.join(g, "flags.json"),
                 json.dumps({"student": shown(student["name"]),
                             "flags": [shown(f) for f in student["flags"]],
                             "seeds": student.get("seeds", {}),
                             "hidden_tests": hidden}, indent=2) + "\n")

    atomic_write(os.path.join(g, "junit.xml"), junit(student, groups, tests))

    rows = [f"{'chapter':<8} {'group':<12} {'score / max':>14}  note"]
    for x in groups:
        score = "n/a" if x["state"] == "n/a" else number(x["score"])
        rows.append(f"{'ch' + x['chapter']:<8} {shown(x['group']):<12} {score!s:>6} / "
                    f"{number(x['max'])!s:<5}  {shown(x['note'])}")
    summary = (f"grade: {shown(student['name'])}\n" + "\n".join(rows) +
               f"\ntotal: {number(total)} / {number(most)}\n" +
               (f"\nfor the instructor:{flags}\n" if flags else ""))
    atomic_write(os.path.join(g, "summary.txt"), summary)
    return summary


def junit(student, groups, tests):
    """junit.xml, valid against Jenkins' JUnit schemas (the xunit plugin's junit-10.xsd and the
    stricter junit-4.xsd that JUnit 5 tests its reports with; tests/grade_export.py checks their
    rules): testsuites > testsuite per chapter (name, tests, failures, errors, skipped, time;
    properties first: score and max_score, which Jenkins keeps and GitLab ignores) > testcase per
    test (classname, name, time), a "build" case for a chapter not graded and a "speed" case per
    speed group. A case holds at most one of <failure> (a wrong result, a refused or slow speed
    run, a chapter that did not build), <error> (a timeout, a crash, a speed run that crashed)
    or <skipped> (nothing ran: no GPU, n/a, speed not measured); <skipped> holds its reason as
    text, because junit-4.xsd gives it no attributes. The root takes no "skipped": neither schema
    allows it there. Hidden tests are unnamed and without logs."""
    root = ET.Element("testsuites", name=xml_text(f"workbook grade: {shown(student['name'])}"))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    all_time = 0.0
    for nn in sorted({x["chapter"] for x in groups} | {t["chapter"] for t in tests}):
        suite = ET.SubElement(root, "testsuite", name=f"ch{nn}")
        props = ET.SubElement(suite, "properties")
        mine = [x for x in groups if x["chapter"] == nn and x["state"] != "n/a"]
        ET.SubElement(props, "property", name="score", value=str(number(sum(x["score"] for x in mine))))
        ET.SubElement(props, "property", name="max_score", value=str(number(sum(x["max"] for x in mine))))
        count = {"tests": 0, "failure": 0, "error": 0, "skipped": 0}
        seconds = 0.0

        def case(classname, name, time, kind=None, message="", text="", type_=""):
            count["tests"] += 1
            c = ET.SubElement(suite, "testcase", classname=xml_text(classname), name=xml_text(name),
                              time=time)
            if kind == "skipped":
                ET.SubElement(c, "skipped").text = xml_text(message)
            elif kind in ("failure", "error"):
                e = ET.SubElement(c, kind, message=xml_text(message), type=type_)
                e.text = xml_text(text)
            if kind:
                count[kind] += 1

        for t in (t for t in tests if t["chapter"] == nn):
            seconds += t["seconds"]
            kind = outcome(t)
            if kind == "pass":
                kind = None
            message, text, type_ = "", "", ""
            if kind == "skipped":
                message = ("does not apply: the kernel takes none of its masks" if t["status"] == "n/a"
                           else "not run on this machine")
            elif kind:
                type_ = ("timeout" if t["status"] == "timeout" else "crash" if kind == "error"
                         else "wrong result")
                message = what_happened(t) if t["hidden"] else (t["hint"] or what_happened(t))
                text = "" if t["hidden"] else t["tail"]
            case(f"ch{nn}.{t['group']}", t["label"], f"{t['seconds']:.2f}", kind, message, text, type_)
        if nn in student["problems"]:
            text = student["problems"][nn]
            case(f"ch{nn}.build", "build", "0", "failure", text.splitlines()[0] if text else "not graded",
                 text, "not graded")
        for x in (x for x in groups if x["chapter"] == nn and x["group"] == "speed"):
            if nn in student["problems"]:
                continue
            if x["state"] in ("n/a", "not run"):
                case(f"ch{nn}.speed", "speed", "0", "skipped", x["note"])
            elif x["state"] == "error":
                case(f"ch{nn}.speed", "speed", "0", "error", x["note"], x["note"], "crash")
            elif x["score"] < x["max"]:
                case(f"ch{nn}.speed", "speed", "0", "failure", x["note"],
                     f"score {number(x['score'])} of {number(x['max'])}: {x['note']}", "slow or refused")
            else:
                case(f"ch{nn}.speed", "speed", "0")
        suite.set("tests", str(count["tests"]))
        suite.set("failures", str(count["failure"]))
        suite.set("errors", str(count["error"]))
        suite.set("skipped", str(count["skipped"]))
        suite.set("time", f"{seconds:.3f}")
        totals["tests"] += count["tests"]
        totals["failures"] += count["failure"]
        totals["errors"] += count["error"]
        all_time += seconds
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", f"{all_time:.3f}")
    buffer = io.BytesIO()
    ET.ElementTree(root).write(buffer, encoding="UTF-8", xml_declaration=True)
    return buffer.getvalue().decode("utf-8") + "\n"


def shown_block(text):
    """Multi-line text for a student: each line made safe, the line breaks kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


def xml_text(s):
    """Text XML 1.0 can hold: shown() leaves no control characters; U+FFFE/F go too."""
    return "\n".join(shown(line) for line in s.split("\n")).replace("\ufffe", "?").replace("\uffff", "?")


# ---- the class -----------------------------------------------------------------------------------

def cell(value):
    """A CSV cell a spreadsheet shows as text: a leading = + - @ TAB or CR would start a
    formula (or hide one), so such a cell starts with an apostrophe."""
    value = shown(value) if isinstance(value, (str, bytes)) else value
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def read_roster(path):
    """A roster: CSV (UTF-8, a byte-order mark allowed) whose header names a "folder" column (the
    student's folder in SUBMISSIONS) and the student's identity: for Canvas Student, ID, SIS User
    ID, SIS Login ID, Section (Canvas's own gradebook export has them, and matches rows by ID,
    SIS User ID or SIS Login ID); for Moodle username, email or idnumber. Header names are
    matched without regard to case; other columns are ignored, values are taken without the
    spaces around them (a tab or a newline stays: a folder's name may hold one), and Canvas's
    "Points Possible" row is skipped. A row without a folder is
    a student with no submission (blanks). Returns {"columns": the identity columns present,
    "entries": [{"folder": ..., "line": N, column: value, ...}]}."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except OSError as e:
        raise ValueError(f"cannot read '{shown(path)}': {e.strerror}")
    except UnicodeDecodeError:
        raise ValueError(f"'{shown(path)}' is not UTF-8 text")
    reader = csv.reader(io.StringIO(text))
    known = {n.lower(): n for n in ("folder",) + CANVAS_IDENTITY + MOODLE_IDENTITY}
    columns, entries, seen = None, [], {}
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                continue
            if columns is None:
                columns = {}
                for i, name in enumerate(row):
                    name = known.get(name.strip().lower())
                    if name in columns:
                        raise ValueError(f"line {reader.line_num}: two '{name}' columns")
                    if name:
                        columns[name] = i
                if "folder" not in columns:
                    raise ValueError("no 'folder' column (the name of each student's folder in SUBMISSIONS)")
                if not any(c in columns for c in CANVAS_KEYS + MOODLE_IDENTITY):
                    raise ValueError("no column names a student: Canvas matches by ID, SIS User ID or "
                                     "SIS Login ID, Moodle by username, email or idnumber")
                continue
            entry = {name: (row[i].strip(" ") if i < len(row) else "") for name, i in columns.items()}
            if entry.get("Student", "") == "Points Possible":
                continue
            entry["line"] = reader.line_num
            if entry["folder"] in seen:
                raise ValueError(f"line {reader.line_num}: folder '{shown(entry['folder'])}' is "
                                 f"also on line {seen[entry['folder']]}")
            if entry["folder"]:
                seen[entry["folder"]] = reader.line_num
            entries.append(entry)
    except csv.Error as e:
        raise ValueError(f"line {reader.line_num}: not CSV ({e})")
    if columns is None:
        raise ValueError("it is empty (a header with a 'folder' column is needed)")
    return {"columns": [c for c in CANVAS_IDENTITY + MOODLE_IDENTITY if c in columns],
            "entries": entries}


def write_gradebook(root, rows, roster=None):
    """rows: one per student graded, in the order given: {"name", "scores": {chapter: points},
    "maxima": {chapter: points}, "missing": chapters nothing was handed in for, "flags"}. A
    chapter's cell is blank where its work is missing (no folder, or none of its files), never 0,
    which an LMS would count; a total is blank when every chapter is missing.

    gradebook.csv: student, then each chapter's points and its maximum, total, max, flags.
    With a roster: gradebook_canvas.csv (Canvas's gradebook import: the identity columns, a
    column per chapter, and a "Points Possible" row of the chapters' maxima; Canvas computes its
    own totals) where the roster has an ID, SIS User ID or SIS Login ID column, and
    gradebook_moodle.csv (the roster's username, email and idnumber, a column per chapter and
    the total, each heading giving its maximum, which Moodle's grade items are set to) where it
    has one of those; both hold a row per roster entry, blanks for one with no submission."""
    chapters = sorted({nn for r in rows for nn in r["maxima"]})

    def score(r, nn):
        return "" if nn in r["missing"] or nn not in r["scores"] else number(r["scores"][nn])

    def total(r):
        if r["maxima"] and all(nn in r["missing"] for nn in r["maxima"]):
            return ""
        return number(sum(r["scores"].values()))

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["student"] + [h for nn in chapters for h in (f"ch{nn}", f"ch{nn} max")] +
                    ["total", "max", "flags"])
    most = {nn: max(r["maxima"].get(nn, 0) for r in rows) for nn in chapters}
    width = max([10] + [len(shown(r["name"])) for r in rows])
    table = [f"{'student':<{width}}" + "".join(f" {'ch' + nn:>6}" for nn in chapters) +
             f" {'total':>7} {'max':>7}  flags",
             f"{'(out of)':<{width}}" + "".join(f" {number(most[nn])!s:>6}" for nn in chapters) +
             f" {number(sum(most.values()))!s:>7}"]
    for r in rows:
        cells = []
        for nn in chapters:
            cells += [score(r, nn), number(r["maxima"][nn]) if nn in r["maxima"] else ""]
        writer.writerow([cell(r["name"])] + cells +
                        [total(r), number(sum(r["maxima"].values())), cell("; ".join(r["flags"]))])
        columns = "".join(f" {str(score(r, nn)) or '-':>6}" for nn in chapters)
        table.append(f"{shown(r['name']):<{width}}{columns} {str(total(r)) or '-':>7} "
                     f"{number(sum(r['maxima'].values()))!s:>7}  {shown('; '.join(r['flags']))}")
    atomic_write(os.path.join(root, "gradebook.csv"), buffer.getvalue())
    if roster is None:
        return "\n".join(table) + "\n"

    graded = {r["name"]: r for r in rows}
    blank = {"scores": {}, "maxima": most, "missing": set(chapters)}  # no submission at all
    people = [(e, graded.get(e["folder"]) if e["folder"] else None) for e in roster["entries"]]
    written = []
    if any(c in roster["columns"] for c in CANVAS_KEYS):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(list(CANVAS_IDENTITY) + [f"ch{nn}" for nn in chapters])
        writer.writerow(["    Points Possible", "", "", "", ""] + [number(most[nn]) for nn in chapters])
        for e, r in people:
            writer.writerow([cell(e.get(c, "")) for c in CANVAS_IDENTITY] +
                            [score(r or blank, nn) for nn in chapters])
        atomic_write(os.path.join(root, "gradebook_canvas.csv"), buffer.getvalue())
        written.append("gradebook_canvas.csv")
    moodle = [c for c in MOODLE_IDENTITY if c in roster["columns"]]
    if moodle:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(moodle + [f"ch{nn} (out of {number(most[nn])})" for nn in chapters] +
                        [f"total (out of {number(sum(most.values()))})"])
        for e, r in people:
            writer.writerow([cell(e.get(c, "")) for c in moodle] +
                            [score(r or blank, nn) for nn in chapters] + [total(r or blank)])
        atomic_write(os.path.join(root, "gradebook_moodle.csv"), buffer.getvalue())
        written.append("gradebook_moodle.csv")
    absent = [e for e, r in people if r is None]
    listed = {e["folder"] for e in roster["entries"]}
    unlisted = [r["name"] for r in rows if r["name"] not in listed]
    table.append(f"roster: {len(roster['entries'])} students, written to {' and '.join(written)}")
    if absent:
        table.append(f"roster: {len(absent)} with no submission (blank): " +
                     ", ".join(shown(e.get("Student") or e["folder"] or f"line {e['line']}")
                               for e in absent[:10]) + (" ..." if len(absent) > 10 else ""))
    if unlisted:
        table.append(f"roster: {len(unlisted)} graded but not in the roster (in gradebook.csv "
                     "only): " + ", ".join(shown(n) for n in unlisted[:10]) +
                     (" ..." if len(unlisted) > 10 else ""))
    return "\n".join(table) + "\n"
