#!/usr/bin/env python3
"""grade_resume.py: a class run that resumes, merges, regrades only what changed, and refuses a
second run at once.

  python3 tests/grade_resume.py ROOT SCRATCH_DIR

A class of two students (chapter 01's solution, and its ghost-cell mutant) is graded with
GRADE_SEED=11 on a rubric of chapter 01's and 02's quick tests, chapter 01, and then:
  first run         ends with where its time went (grade: time:)
  rerun             every chapter kept (nothing built, no time line), the gradebook the same
  half done         one student's records removed (a run stopped after the first student): only
                    that student is built again, and the gradebook equals the full run's
  killed            a run on a copy of the class killed while it builds, then run again: its
                    gradebook equals the full run's
  incremental       GRADE_CHAPTERS=02 adds chapter 02 beside chapter 01, building only 02
  changed file      an edit inside one student's TODO block regrades that student alone
  new seed          GRADE_SEED=12 regrades everyone; flags.json records each chapter's seed
  locked            a run while another holds the class refuses at once with one line
Without a GPU the GPU tests skip and every score is 0, but all of the above still holds.
"""
import csv
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

root, scratch = sys.argv[1], os.path.abspath(sys.argv[2])
solution = os.path.join(root, "solutions", "01_basic_1d", "conv1d_basic.cu")
if not os.path.isfile(solution):
    print("grade_resume: no solutions/ (a student's copy): skipping")
    sys.exit(77)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def make_class(folder):
    text = open(solution).read()
    ghost = text.replace("k >= 0 && k < n", "k >= 0 && k < n - 1")
    assert ghost != text, "the ghost-cell mutant no longer applies"
    for name, body in (("alice", text), ("bob", ghost)):
        os.makedirs(os.path.join(folder, name, "01_basic_1d"))
        with open(os.path.join(folder, name, "01_basic_1d", "conv1d_basic.cu"), "w") as f:
            f.write(body)


def grade(folder, chapters="01", seed="11", wait=True):
    env = dict(os.environ, GRADE_CHAPTERS=chapters, GRADE_SEED=seed, GRADE_TIME_LIMIT="30")
    command = ["make", "-s", "grade", f"SUBMISSIONS={folder}", f"RUBRIC={rubric}"]
    if not wait:
        return subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
    r = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def results(folder):
    return os.path.join(root, "build", "grade", os.path.basename(folder))


def gradebook(folder):
    with open(os.path.join(results(folder), "gradebook.csv"), newline="") as f:
        return list(csv.reader(f))


def built(out):
    return sorted(re.findall(r"^grade: built [0-9]+ of [0-9]+: (.*)$", out, re.M))


shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
rubric = os.path.join(scratch, "rubric.txt")  # the quick tests only: the runs here are many
with open(rubric, "w") as f:
    f.write("01 correctness 2 ^ch01_exercise_quick_\n02 correctness 2 ^ch02_exercise_quick_\n")
klass, copy = os.path.join(scratch, "resume_class"), os.path.join(scratch, "resume_killed")
for folder in (klass, copy):
    shutil.rmtree(results(folder), ignore_errors=True)
    make_class(folder)

rc, out = grade(klass)
check(rc == 0, f"the first run exited {rc}: {out[-800:]}")
full = gradebook(klass)
check([r[0] for r in full[1:]] == ["alice", "bob"], f"the gradebook's students: {full}")
check(built(out) == ["alice, chapter 01", "bob, chapter 01"], f"first run built {built(out)}")
check(re.search(r"^grade: time: builds [0-9]+ s \(2 chapters, .* of test processes side by side; "
                r"speed runs [0-9]+ s, .*waiting for the GPUs\)$", out, re.M),
      "the first run does not end with where its time went (grade: time:)")

rc, out = grade(klass)
check(rc == 0 and built(out) == [], f"a rerun built {built(out)} (exit {rc})")
check("2 of 2 students' chapters were graded before" in out, "a rerun does not say what it kept")
check("grade: time:" not in out, "a rerun that built nothing still prints a time line")
check(gradebook(klass) == full, "a rerun changed the gradebook")

shutil.rmtree(os.path.join(results(klass), "bob", "chapters"))
rc, out = grade(klass)
check(rc == 0 and built(out) == ["bob, chapter 01"], f"half done: built {built(out)} (exit {rc})")
check(gradebook(klass) == full, "half done: the resumed gradebook differs from the full run's")

p = grade(copy, wait=False)
for line in p.stdout:  # killed as soon as it is building: nothing is graded yet, or part of it
    if line.startswith("grade: built "):
        os.killpg(p.pid, signal.SIGKILL)
        break
p.wait()
rc, out = grade(copy)
check(rc == 0, f"killed: the rerun exited {rc}: {out[-800:]}")
check(gradebook(copy) == full, "killed: the resumed gradebook differs from the full run's")

rc, out = grade(klass, chapters="02")
book = gradebook(klass)
check(rc == 0 and built(out) == [], f"incremental: built {built(out)} (exit {rc}): chapter 02 "
      "is missing for both, so nothing builds")
check(book[0][:5] == ["student", "ch01", "ch01 max", "ch02", "ch02 max"],
      f"incremental: chapter 02 was not merged beside 01: {book[0]}")
check([r[1:3] for r in book[1:]] == [r[1:3] for r in full[1:]],
      "incremental: chapter 01's points changed")
for who in ("alice", "bob"):
    g = os.path.join(results(klass), who)
    states = open(os.path.join(g, "chapters.tsv")).read()
    check(states.startswith("01\t") and "\n02\tmissing" in states,
          f"incremental: {who}'s chapters.tsv is {states!r}")
    groups = json.load(open(os.path.join(g, "results.json")))["tests"]
    check({t["number"][:2] for t in groups} == {"01", "02"},
          f"incremental: {who}'s results.json lacks a chapter: {[t['number'] for t in groups]}")

path = os.path.join(klass, "alice", "01_basic_1d", "conv1d_basic.cu")
text = open(path).read()
marker = text.index("TODO 1 begin")
with open(path, "w") as f:
    f.write(text[:text.index("\n", marker) + 1] + "    // a note of mine\n" +
            text[text.index("\n", marker) + 1:])
rc, out = grade(klass)
check(rc == 0 and built(out) == ["alice, chapter 01"], f"changed file: built {built(out)} (exit {rc})")

rc, out = grade(klass, seed="12")
check(rc == 0 and built(out) == ["alice, chapter 01", "bob, chapter 01"],
      f"new seed: built {built(out)} (exit {rc})")
seeds = json.load(open(os.path.join(results(klass), "bob", "flags.json")))["seeds"]
check(seeds == {"01": 12, "02": 11}, f"flags.json's seeds are {seeds}")

lock = open(os.path.join(root, "build", "grade", ".resume_class.lock"), "w")
fcntl.flock(lock, fcntl.LOCK_EX)
start = time.monotonic()
rc, out = grade(klass)
lock.close()
check(rc == 2 and "another make grade is writing" in out and time.monotonic() - start < 30,
      f"locked: exit {rc}, after {time.monotonic() - start:.0f} s: {out[-300:]}")

for folder in (klass, copy):
    shutil.rmtree(results(folder), ignore_errors=True)
for f in failures:
    print("grade_resume:", f)
print(f"grade_resume: {len(failures)} problems")
sys.exit(1 if failures else 0)
