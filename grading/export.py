"""export.py: one graded student's results in the forms instructors' tools read, and a class's
gradebook. grading/grade.py calls these; nothing here runs a student's code.

  shown(s)                      any text made safe to show: control characters and bytes that
                                are not UTF-8 written as \\xNN, so a name can never break a line
  write_student(g, student)     G/results.json (Gradescope), G/junit.xml (GitHub Classroom,
                                GitLab, Jenkins), G/summary.txt (people); returns the summary
  write_gradebook(root, rows)   ROOT/gradebook.csv, one row per student; returns the table

`student` is the dict grade.py builds: name, groups (chapter, group, score, max, note, visible,
state), tests (chapter, group, name, status, seconds, hidden, hint, tail), problems (chapter: text
shown for a chapter not graded), flags, leaderboard. Every file is written whole beside its place
and then moved there, and each output is capped (OUTPUT_CAP), so no student can make a result
file grow without bound.
"""
import csv
import io
import json
import os
import xml.etree.ElementTree as ET

OUTPUT_CAP = 16 * 1024  # characters of one group's output in results.json


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


def failed_text(t):
    head = f"{t['name']}: " + (f"timed out after {t['seconds']:.0f} s" if t["status"] == "timeout"
                               else t["status"])
    return head + (f"\n{t['hint']}" if t["hint"] else "") + "\nlast lines of its log:\n" + t["tail"]


def write_student(g, student):
    groups, tests = student["groups"], student["tests"]
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

    # results.json: a Gradescope test per rubric group; a group holding hidden tests shows only
    # after the instructor publishes (or as GRADE_HIDDEN_VISIBILITY says).
    entries = []
    for x in groups:
        out = x["note"]
        if x["chapter"] in student["problems"]:
            out += "\n\n" + student["problems"][x["chapter"]]
        for t in tests:
            if (t["chapter"], t["group"]) == (x["chapter"], x["group"]) and \
                    t["status"] in ("fail", "timeout"):
                out += "\n\n" + failed_text(t)
        entries.append({"name": f"ch{x['chapter']} {x['group']}", "score": number(x["score"]),
                        "max_score": number(x["max"]) if x["state"] != "n/a" else 0,
                        "output": capped(shown_block(out)), "visibility": x["visibility"]})
    results = {"score": number(total),
               "output": capped(line + (f"\n\nfor the instructor:{flags}" if flags else "")),
               "tests": entries,
               "leaderboard": [{"name": f"ch{nn} kernel ms", "value": ms, "order": "asc"}
                               for nn, ms in student["leaderboard"]]}
    atomic_write(os.path.join(g, "results.json"), json.dumps(results, indent=2) + "\n")

    # junit.xml: a suite per chapter, a case per test (hidden ones unnamed and without logs), a
    # "build" case for a chapter not graded, a "speed" case per speed group.
    root = ET.Element("testsuites", name=xml_text(f"workbook grade: {shown(student['name'])}"))
    all_tests = all_failures = 0
    all_time = 0.0
    for nn in sorted({x["chapter"] for x in groups} | {t["chapter"] for t in tests}):
        suite = ET.SubElement(root, "testsuite", name=f"ch{nn}")
        props = ET.SubElement(suite, "properties")
        mine = [x for x in groups if x["chapter"] == nn and x["state"] != "n/a"]
        ET.SubElement(props, "property", name="score", value=str(number(sum(x["score"] for x in mine))))
        ET.SubElement(props, "property", name="max_score", value=str(number(sum(x["max"] for x in mine))))
        n = failures = skipped = 0
        seconds = 0.0
        hidden_count = 0
        for t in (t for t in tests if t["chapter"] == nn):
            n += 1
            seconds += t["seconds"]
            name = t["name"]
            if t["hidden"]:
                hidden_count += 1
                name = f"hidden test {hidden_count}"
            case = ET.SubElement(suite, "testcase", classname=f"ch{nn}.{t['group']}", name=xml_text(name),
                                 time=f"{t['seconds']:.2f}")
            if t["status"] in ("fail", "timeout"):
                failures += 1
                why = t["hint"] or ("timed out" if t["status"] == "timeout" else "failed")
                f = ET.SubElement(case, "failure", message=xml_text("failed" if t["hidden"] else why))
                f.text = "" if t["hidden"] else xml_text(t["tail"])
            elif t["status"] in ("skipped", "n/a"):
                skipped += 1
                ET.SubElement(case, "skipped", message="does not apply: the kernel takes none of its masks"
                              if t["status"] == "n/a" else "not run on this machine")
        if nn in student["problems"]:
            n += 1
            failures += 1
            case = ET.SubElement(suite, "testcase", classname=f"ch{nn}.build", name="build", time="0")
            text = student["problems"][nn]
            first = text.splitlines()[0] if text else "not graded"
            f = ET.SubElement(case, "failure", message=xml_text(first))
            f.text = xml_text(text)
        for x in (x for x in groups if x["chapter"] == nn and x["group"] == "speed"):
            if nn in student["problems"]:
                continue
            n += 1
            case = ET.SubElement(suite, "testcase", classname=f"ch{nn}.speed", name="speed", time="0")
            if x["state"] == "n/a":
                ET.SubElement(case, "skipped", message=xml_text(x["note"]))
                skipped += 1
            elif x["score"] < x["max"]:
                failures += 1
                f = ET.SubElement(case, "failure", message=xml_text(x["note"]))
                f.text = xml_text(f"score {number(x['score'])} of {number(x['max'])}: {x['note']}")
        suite.set("tests", str(n))
        suite.set("failures", str(failures))
        suite.set("skipped", str(skipped))
        suite.set("time", f"{seconds:.3f}")
        all_tests += n
        all_failures += failures
        all_time += seconds
    root.set("tests", str(all_tests))
    root.set("failures", str(all_failures))
    root.set("time", f"{all_time:.3f}")
    buffer = io.BytesIO()
    ET.ElementTree(root).write(buffer, encoding="UTF-8", xml_declaration=True)
    atomic_write(os.path.join(g, "junit.xml"), buffer.getvalue().decode("utf-8") + "\n")

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


def shown_block(text):
    """Multi-line text for a student: each line made safe, the line breaks kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


def xml_text(s):
    """Text XML 1.0 can hold: shown() leaves no control characters; U+FFFE/F go too."""
    return "\n".join(shown(line) for line in s.split("\n")).replace("\ufffe", "?").replace("\uffff", "?")


def cell(value):
    """A CSV cell a spreadsheet shows as text: a leading = + - @ TAB or CR would start a
    formula (or hide one), so such a cell starts with an apostrophe."""
    value = shown(value) if isinstance(value, (str, bytes)) else value
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_gradebook(root, rows):
    """rows: (name, {chapter: score}, total, most, flags) per student, in the order given."""
    chapters = sorted({nn for _, scores, _, _, _ in rows for nn in scores})
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["student"] + [f"ch{nn}" for nn in chapters] + ["total", "max", "flags"])
    width = max([7] + [len(shown(r[0])) for r in rows])
    table = [f"{'student':<{width}}" + "".join(f" {'ch' + nn:>6}" for nn in chapters) +
             f" {'total':>7} {'max':>7}  flags"]
    for name, scores, total, most, flags in rows:
        writer.writerow([cell(name)] + [number(scores.get(nn, 0)) for nn in chapters] +
                        [number(total), number(most), cell("; ".join(flags))])
        columns = "".join(f" {number(scores.get(nn, 0))!s:>6}" for nn in chapters)
        table.append(f"{shown(name):<{width}}{columns} {number(total)!s:>7} {number(most)!s:>7}  "
                     f"{shown('; '.join(flags))}")
    atomic_write(os.path.join(root, "gradebook.csv"), buffer.getvalue())
    return "\n".join(table) + "\n"
