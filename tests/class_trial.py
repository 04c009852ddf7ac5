#!/usr/bin/env python3
"""class_trial.py: a generated class graded twice, straight through and killed halfway then
resumed; the two must agree, and the resumed run must grade no student twice. Prints the time a
student took and what a class of 100 would take at that rate. Long (a GPU; not part of make test).

  python3 tests/class_trial.py [--students N] [--chapters NN,NN,...] [--seed S]

  --students N   the class's size (default 20)
  --chapters     the chapters handed in (default: every chapter)
  --seed S       GRADE_SEED of both runs (default 7): both draw the same data

The class (build/class_trial/class_a, and the same files in class_b): every third student hands
in the reference solutions unchanged; each other student one mechanical mutant (tests/mutation.py's
operators) in one chapter, the chapters and mutants taken in turn; every fifth student leaves one
chapter out. Then:
  clean     make grade SUBMISSIONS=class_a, timed (the workbook built before, untimed)
  killed    make grade SUBMISSIONS=class_b, killed (its process group, SIGKILL) once half the class
            has results, then run again: the rerun builds none of the students that had results
  compare   each student's groups, their scores and their tests' verdicts in class_b equal
            class_a's; speed groups are compared apart (a time measured twice differs a little,
            so a speed score near its threshold may too): they are listed, not failed

Exit 0 when every check holds, 1 when one does not, 2 on bad usage. Without a usable GPU the GPU
tests skip and every group scores 0 or n/a; the runs and the comparison still hold.
"""
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "class_trial")


def die(message):
    print(f"class_trial: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    opts = {"students": 20, "chapters": None, "seed": "7"}
    i = 0
    while i < len(argv):
        name = argv[i]
        if name not in ("--students", "--chapters", "--seed") or i + 1 >= len(argv):
            die(f"unknown or incomplete argument '{name}' (--students N, --chapters NN,..., --seed S)")
        value = argv[i + 1]
        if name == "--students":
            if not re.fullmatch(r"[1-9][0-9]{0,3}", value):
                die(f"--students: '{value}' is not a whole number from 1")
            opts["students"] = int(value)
        elif name == "--chapters":
            if not re.fullmatch(r"[0-9]{2}(,[0-9]{2})*", value):
                die(f"--chapters: '{value}' is not a list of chapter numbers NN,NN")
            opts["chapters"] = value.split(",")
        elif not re.fullmatch(r"[0-9]{1,9}", value):
            die(f"--seed: '{value}' is not a whole number")
        else:
            opts["seed"] = value
        i += 2
    return opts


def say(message):
    """One line of progress, flushed at once: a long run's output is readable while it runs, and
    what it said survives its being killed."""
    print(f"class_trial: {message}", flush=True)


def graded(label, command, env, log, mode, stop=None):
    """Runs a make grade command, its output written to `log` line by line as it comes (mode "w"
    or "a") and each student's end said; stop(line) true kills its process group (SIGKILL: no
    chance to tidy up) there. Returns (exit status, output, seconds)."""
    start = time.monotonic()
    run = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines = []
    with open(log, mode, encoding="utf-8") as f:
        for line in run.stdout:
            lines.append(line)
            f.write(line)
            f.flush()
            ended = re.match(r"grade: (\S+): results in ", line)
            if ended:
                say(f"{label}: {ended.group(1)} graded at {time.monotonic() - start:.0f} s")
            if stop is not None and stop(line):
                os.killpg(run.pid, signal.SIGKILL)
                break
    run.wait()
    return run.returncode, "".join(lines), time.monotonic() - start


def load_mutation():
    spec = importlib.util.spec_from_file_location("mutation", os.path.join(ROOT, "tests", "mutation.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_class(folder, count, chapters, mutants):
    """Students s01.. as make grade takes them: one folder a chapter, its kernel files inside.
    Returns {student: what they handed in}."""
    shutil.rmtree(folder, ignore_errors=True)
    made, turn = {}, 0
    for k in range(1, count + 1):
        name = f"s{k:02d}"
        handed = list(chapters)
        if k % 5 == 0 and len(chapters) > 1:
            handed.remove(chapters[k // 5 % len(chapters)])
        mutated = None
        if k % 3 != 1:  # every third, the first included, hands in the reference unchanged
            chapter = handed[turn % len(handed)]
            pool = mutants[chapter]
            mutated = pool[(turn * 7) % len(pool)] if pool else None
            turn += 1
        for chapter in handed:
            os.makedirs(os.path.join(folder, name, chapter))
            for file in sorted(os.listdir(os.path.join(ROOT, "solutions", chapter))):
                if not file.endswith(".cu"):
                    continue
                with open(os.path.join(ROOT, "solutions", chapter, file), encoding="utf-8") as f:
                    text = f.read()
                if mutated is not None and os.path.basename(mutated.path) == file and \
                        mutated.path.split("/")[1] == chapter:
                    text = mutated.apply(text)
                with open(os.path.join(folder, name, chapter, file), "w", encoding="utf-8") as f:
                    f.write(text)
        made[name] = (f"mutant {mutated.id} ({mutated.path}:{mutated.line} {mutated.op})"
                      if mutated else "the reference") + \
            ("" if len(handed) == len(chapters) else f", without {sorted(set(chapters) - set(handed))}")
    return made


def grade_command(folder, seed, chapters):
    env = dict(os.environ, GRADE_SEED=seed, GRADE_CHAPTERS=" ".join(c[:2] for c in chapters))
    return ["make", "-s", "grade", f"SUBMISSIONS={folder}"], env


def results_of(folder):
    return os.path.join(ROOT, "build", "grade", os.path.basename(folder))


def records(folder):
    """{student: {(chapter, group): (score, state), (chapter, test name): status}}, from each
    student's chapter records."""
    out = {}
    base = results_of(folder)
    for student in sorted(os.listdir(base)):
        chapters = os.path.join(base, student, "chapters")
        if not os.path.isdir(chapters):
            continue
        seen = {}
        for name in sorted(os.listdir(chapters)):
            with open(os.path.join(chapters, name), encoding="utf-8") as f:
                r = json.load(f)
            for g in r["groups"]:
                seen[("group", g["chapter"], g["group"])] = (round(g["score"], 6), g["state"])
            for t in r["tests"]:
                seen[("test", t["chapter"], t["name"])] = t["status"]
        out[student] = seen
    return out


def main(argv):
    opts = parse(argv)
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        die("this copy has no solutions/ (a student's copy): nothing to hand in")
    mutation = load_mutation()
    known = mutation.all_chapters()
    chapters = known if opts["chapters"] is None else []
    for nn in opts["chapters"] or []:
        match = [c for c in known if c.startswith(nn + "_")]
        if not match:
            die(f"--chapters: no chapter {nn} (chapters: {' '.join(c[:2] for c in known)})")
        chapters += match
    mutants = {c: mutation.chapter_mutants(c) for c in chapters}
    klass_a, klass_b = os.path.join(WORK, "class_a"), os.path.join(WORK, "class_b")
    made = make_class(klass_a, opts["students"], chapters, mutants)
    make_class(klass_b, opts["students"], chapters, mutants)
    for folder in (klass_a, klass_b):
        shutil.rmtree(results_of(folder), ignore_errors=True)
    for name, what in made.items():
        say(f"{name}: {what}")
    problems = []

    # the workbook itself is built first, untimed: a class's time is its students'
    warm = subprocess.run(["make", "-s", "all"], cwd=ROOT, capture_output=True, text=True)
    if warm.returncode != 0:
        die(f"the workbook does not build: {(warm.stdout + warm.stderr)[-400:]}")
    n = opts["students"]
    say(f"{n} students, chapters {' '.join(c[:2] for c in chapters)}, seed {opts['seed']}")
    command, env = grade_command(klass_a, opts["seed"], chapters)
    clean_log = os.path.join(WORK, "clean.log")
    clean_rc, clean_out, clean_s = graded("clean", command, env, clean_log, "w")
    if clean_rc != 0:
        problems.append(f"the clean run exited {clean_rc} ({clean_log})")
    say(f"clean run {clean_s:.0f} s, {clean_s / n:.1f} s a student: a class of 100 at that rate, "
        f"{clean_s / n * 100 / 60:.0f} minutes")
    spent = re.search(r"^grade: time: .*$", clean_out, re.M)
    if spent:
        say(f"clean run, {spent.group(0)[len('grade: '):]}")

    # the killed run: stopped once half the class has results, then run again
    command, env = grade_command(klass_b, opts["seed"], chapters)
    killed_log = os.path.join(WORK, "killed.log")
    done = []

    def half_done(line):
        found = re.match(r"grade: (\S+): results in ", line)
        if found:
            done.append(found.group(1))
        return len(done) * 2 >= n

    _, _, killed_s = graded("killed", command, env, killed_log, "w", stop=half_done)
    with open(killed_log, "a", encoding="utf-8") as f:
        f.write("\n---- killed; run again ----\n")
    resumed_rc, resumed_out, resumed_s = graded("resumed", command, env, killed_log, "a")
    say(f"killed after {killed_s:.0f} s with {len(done)} students' results; the rerun took "
        f"{resumed_s:.0f} s and graded the other {n - len(done)}")
    if resumed_rc != 0:
        problems.append(f"the resumed run exited {resumed_rc} ({killed_log})")
    if len(done) * 2 < n:
        problems.append(f"the killed run ended before half the class had results ({len(done)})")
    rebuilt = sorted({m.group(1) for m in re.finditer(r"^grade: built [0-9]+ of [0-9]+: ([^,]+),",
                                                      resumed_out, re.M)} & set(done))
    if rebuilt:
        problems.append(f"the resumed run built students graded before the kill: {rebuilt}")

    a, b = records(klass_a), records(klass_b)
    if sorted(a) != sorted(b):
        problems.append(f"students with results: clean {sorted(a)}, resumed {sorted(b)}")
    speed = []
    for student in sorted(set(a) & set(b)):
        for key in sorted(set(a[student]) | set(b[student])):
            left, right = a[student].get(key), b[student].get(key)
            if left == right:
                continue
            where = f"{student} chapter {key[1]} {key[2]}: clean {left}, resumed {right}"
            (speed if key[0] == "group" and key[2] == "speed" else problems).append(where)

    for line in speed:
        say(f"speed differs (timing, not failed): {line}")
    for line in problems:
        say(f"PROBLEM: {line}")
    say(f"{'the resumed run matches the clean run' if not problems else f'{len(problems)} problems'}"
        f" (logs: {WORK}/clean.log, killed.log)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
