"""grade_verdicts.py: what the grader believes of a program's run, tried with stand-in programs
that print what a submission could (no GPU, no compiler).

  python3 tests/grade_verdicts.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

Each stand-in is a shell script in the place of a chapter's exercise program. A test passes only
on exit 0 with the run's own token saying pass: printed PASS text, another token's line, a token
line with a non-zero exit, a line from the watchdog and a run over its file-size limit all fail,
and a wrong token is flagged. Speed counts only the token's time lines: a time under the
workload's floor is refused and flagged (and so is a time line with no copy bandwidth), a failed check in the speed run is refused and flagged,
a chapter kernel that ran nowhere is n/a, and so is the speed of a chapter none of whose tests
can run on the machine. A run past its time limit is killed with its children.
"""
import os
import shutil
import sys
import time

root, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "grading"))
import grade  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(os.path.join(scratch, "build"))
os.makedirs(os.path.join(scratch, "logs"))
settings = {"time_limit": 60, "build_limit": 300, "allow_drift": False, "hidden_visibility": "after_published",
            "seed": 11}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def stand_in(name, body):
    path = os.path.join(scratch, "build", name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def student():
    return grade.Student("s", scratch, scratch, [], settings)


# ---- verdicts ---------------------------------------------------------------------------------
cases = {  # stand-in body: the status it must get
    'echo "ch01_basic_1d_exercise: PASS (1 configuration)"; exit 0': "fail",
    'echo "wb-grade $WB_GRADE_TOKEN verdict pass"; exit 0': "pass",
    'echo "wb-grade 0123456789abcdef0123456789abcdef verdict pass"; exit 0': "fail",
    'echo "wb-grade $WB_GRADE_TOKEN verdict pass"; exit 1': "fail",
    'echo "wb-grade $WB_GRADE_TOKEN verdict pass"; echo "wb-grade $WB_GRADE_TOKEN verdict fail"': "fail",
    'echo "wb-grade $WB_GRADE_TOKEN verdict na"; exit 0': "n/a",
    'echo "no GPU"; exit 77': "skipped",
    'echo "x: stopped after 5 s (WB_TIME_LIMIT_S) without a verdict"; exit 1': "timeout",
    'head -c 3000000 /dev/zero; echo "wb-grade $WB_GRADE_TOKEN verdict pass"': "fail",
}
grade.TEST_FILE_SIZE = 1 << 20  # the last case writes 3 MB: the limit stops it at 1 MiB
for k, (body, want) in enumerate(cases.items()):
    s = student()
    t = {"name": f"case{k}", "labels": ["gpu", "exercise"], "limit": 20, "threads": 1,
         "argv": [stand_in(f"case{k}", body)]}
    s.run_test(t, grade.Cores(1), grade.GpuShare())
    check(t["status"] == want, f"{body!r}: {t['status']}, not {want}")
    check("wb-grade" not in t["tail"], f"{body!r}: a token line shows in the student's log tail")
    if "0123456789abcdef" in body:
        check(any("wrong token" in f for f in s.flags), f"{body!r}: the forgery is not flagged")
# Exit 77 (skipped) is believed only where it can be true: on a machine with no usable GPU, or
# from a test that needs more GPUs (tests/need_gpus.sh N) than the machine has. Elsewhere it is a
# way to leave failing tests out of the count: it fails, and is flagged.
need = os.path.join(root, "tests", "need_gpus.sh")
skips = [  # (the machine's GPUs, the command, the status it must get)
    (1, [stand_in("skip_one", 'echo "no usable CUDA device: skipping"; exit 77')], "fail"),
    (1, ["sh", need, "2", stand_in("skip_two", "exit 0")], "skipped"),
    (3, ["sh", need, "2", stand_in("skip_three", 'echo "need_gpus: 2 GPUs needed: skipping"; exit 77')],
     "fail"),
]
for k, (count, argv, want) in enumerate(skips):
    s = student()
    s.gpu_count = count
    t = {"name": f"ch01_skip{k}", "labels": ["gpu", "exercise"], "limit": 20, "threads": 1,
         "argv": argv}
    kept = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # need_gpus.sh sees one GPU, on any machine
    s.run_test(t, grade.Cores(1), grade.GpuShare())
    if kept is None:
        del os.environ["CUDA_VISIBLE_DEVICES"]
    else:
        os.environ["CUDA_VISIBLE_DEVICES"] = kept
    check(t["status"] == want, f"exit 77 on {count} GPUs ({argv[-1]}): {t['status']}, not {want}")
    if want == "fail":
        check(any("exited 77" in f for f in s.flags), f"exit 77 on {count} GPUs is not flagged: {s.flags}")
        check("exited 77" in t["error"], f"exit 77 on {count} GPUs: its error says {t['error']!r}")
# A forgery in a hidden test is flagged without the hidden test's name (flags reach the student).
s = student()
t = {"name": "ch01_hidden_secret_case", "labels": ["gpu", "hidden"], "limit": 20, "threads": 1,
     "argv": [stand_in("hidden", 'echo "wb-grade 0123456789abcdef0123456789abcdef verdict pass"')]}
s.run_test(t, grade.Cores(1), grade.GpuShare())
check(s.flags and not any("secret" in f for f in s.flags), f"a hidden test's flag: {s.flags}")
check(os.path.getsize(os.path.join(scratch, "logs", f"case{len(cases) - 1}.log")) <= grade.LOG_KEPT + 100,
      "a long log was not cut down")

# ---- speed ------------------------------------------------------------------------------------
# 1e9 bytes at 1000 GB/s on one GPU: the floor is 1 ms (no multiply-adds counted: 0 0).
speeds = {  # chapter: (stand-in body, points it must earn, words its note or flags must hold)
    "01_honest": ('echo "wb-grade $WB_GRADE_TOKEN time own 2.0 2.0 1e9 1000 1 0 0"\n'
                  'echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 0 0"\n'
                  'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 1.0, "1.00x"),
    "02_too_fast": ('echo "wb-grade $WB_GRADE_TOKEN time own 0.5 0.5 1e9 1000 1 0 0"\n'
                    'echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 0 0"\n'
                    'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 0.0, "under the workload's floor"),
    "03_forged": ('echo "wb-grade 0123456789abcdef0123456789abcdef time own 0.1 0.1 1e9 1000 1 0 0"\n'
                  'echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 0 0"\n'
                  'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 0.0, "bench run failed"),
    "04_failed_after": ('echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 0 0"\n'
                        'echo "wb-grade $WB_GRADE_TOKEN verdict fail"; exit 1', 0.0,
                        "failed the speed run's checks"),
    "05_nowhere": ('echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 0 0"\n'
                   'echo "wb-grade $WB_GRADE_TOKEN verdict na"', 0.0, "n/a"),
    "06_two_gpus": ('echo "wb-grade $WB_GRADE_TOKEN time own 0.6 0.6 1e9 1000 2 0 0"\n'
                    'echo "wb-grade $WB_GRADE_TOKEN time solution 0.6 0.6 1e9 1000 2 0 0"\n'
                    'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 1.0, "1.00x"),
    # 1e12 multiply-adds at 1e15 a second: 1 ms, where the bytes alone would allow 0.1 ms
    "07_compute_floor": ('echo "wb-grade $WB_GRADE_TOKEN time own 0.5 0.5 1e8 1000 1 1e12 1e15"\n'
                         'echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e8 1000 1 1e12 1e15"\n'
                         'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 0.0, "multiply-adds"),
    # a time line without the copy bandwidth would bound nothing: refused
    "09_no_copy": ('echo "wb-grade $WB_GRADE_TOKEN time own 0.01 0.01 1e9 0 1 0 0"\n'
                   'echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 0 0"\n'
                   'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 0.0, "no copy bandwidth"),
    "08_malformed": ('echo "wb-grade $WB_GRADE_TOKEN time own 2.0 2.0 1e9 1000 1"\n'
                     'echo "wb-grade $WB_GRADE_TOKEN time solution 2.0 2.0 1e9 1000 1 x 0"\n'
                     'echo "wb-grade $WB_GRADE_TOKEN verdict pass"', 0.0, "malformed"),
}
for chapter, (body, points, words) in speeds.items():
    stand_in(f"ch{chapter}_exercise", body)
    s = student()
    score, note, state = s.speed(chapter, 1.25, 3, 1.0, grade.GpuShare())
    check(abs(score - points) < 1e-9, f"{chapter}: {score} points, not {points} ({note})")
    check(words in note + " ".join(s.flags), f"{chapter}: '{words}' is in neither the note nor the flags: {note}")
    check((state == "n/a") == (words == "n/a"), f"{chapter}: state {state}")

# A bench run that exits 77 where the GPU can run it earns nothing, and is flagged.
stand_in("ch01_skipped_exercise", 'echo "no usable CUDA device: skipping"; exit 77')
s = student()
s.gpu_count = 1
score, note, state = s.speed("01_skipped", 1.25, 3, 1.0, grade.GpuShare())
check(score == 0 and state == "graded" and any("exited 77" in f for f in s.flags),
      f"a bench run's exit 77 on a GPU machine: {score} points, {state}, {note}, {s.flags}")

# ---- what a failed build shows ----------------------------------------------------------------
# Only the compiler's lines about the student's own file: one reached through a path from the
# student's folder (an include of ../../etc/passwd) is another file, and its lines stay hidden.
out = (b"g/src/01_basic_1d/../../../../etc/passwd(1): error: root:x:0:0:root\n  root:x:0:0\n"
       b"g/src/01_basic_1d/conv1d_basic.cu(12): error: expected a ';'\n   int i = 0\n")
shown = grade.compiler_excerpt(out, "g", "01_basic_1d", 1)
check("conv1d_basic.cu(12)" in shown and "root" not in shown, f"a failed build shows {shown!r}")

# ---- scoring ----------------------------------------------------------------------------------
# On a GPU machine where none of a chapter's tests can run (chapter 10 on one GPU), the chapter's
# speed is n/a too: an unsolved kernel must not earn the speed points of a chapter never checked.
rubric = os.path.join(scratch, "rubric.txt")
with open(rubric, "w") as f:
    f.write("10 correctness 12 ^ch10_exercise_two\n10 speed 3 1.25 3\n")
book = grade.Book(["10_multi_gpu"], rubric, "", ["10_multi_gpu"])
s = student()
s.chapters = ["10_multi_gpu"]  # the chapters graded in this run
s.state["10"] = "graded"
s.all_tests = [{"name": "ch10_exercise_two_gpus", "labels": ["gpu", "exercise"], "status": "skipped",
                "seconds": 0.1, "hint": "", "tail": ""}]
book.score(s, True, grade.GpuShare())
check([x["state"] for x in s.groups] == ["n/a", "n/a"], f"chapter 10 on one GPU: {s.groups}")

# ---- time limits ------------------------------------------------------------------------------
marker = os.path.join(scratch, "survivor")
start = time.monotonic()
rc, _ = grade.run_limited(["sh", "-c", f"(sleep 3; touch {marker}) & sleep 30"],
                          os.path.join(scratch, "logs", "sleep.log"), 1, None, 1 << 20, os.environ.copy())
check(rc == 124 and time.monotonic() - start < 10, f"a run past its limit: exit {rc}")
time.sleep(3.5)
check(not os.path.exists(marker), "a child of a run past its limit lived on")

for f in failures:
    print("grade_verdicts: " + f)
print(f"grade_verdicts: {len(cases)} verdicts, {len(skips)} skips, {len(speeds) + 1} speed runs, a "
      f"rubric, a time limit; "
      f"{len(failures)} problems")
sys.exit(1 if failures else 0)
