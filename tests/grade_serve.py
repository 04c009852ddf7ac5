"""grade_serve.py: grading/serve_grade.py, the GPU machine's entry point, without SSH.

  python3 tests/grade_serve.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

Hostile archives, each refused before anything is unpacked: exit 2, one line on stderr naming
why, and on stdout a valid results.json (score 0, the reason in its output); nothing written
outside the temporary folder, and that folder removed. A submission that waits longer than
SERVE_WAIT_S for the lock (held here) gets a valid "busy" result, exit 1. Then one real grading,
chapter 01's solution with tests/fixtures/rubric_small.txt (GRADE_CHAPTERS=01: one kernel file
built): exit 0, a valid results.json naming "your submission" (not the run's folder), its results
folder and temporary folder gone; without a GPU, grade.py's line that the GPU tests did not run
is in the log and every group's output says "no usable GPU"; with one, full marks.
"""
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

root, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "grading"))
import gs_results  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
tmp = os.path.join(scratch, "tmp")
os.makedirs(tmp)
failures = []
SOLUTION = os.path.join(root, "solutions", "01_basic_1d", "conv1d_basic.cu")


def check(ok, what):
    if not ok:
        failures.append(what)


def archive(members, mode="w:gz"):
    """A tar archive of (TarInfo settings, data) pairs: settings is a dict of TarInfo fields."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for fields, data in members:
            info = tarfile.TarInfo(fields.pop("name"))
            for k, v in fields.items():
                setattr(info, k, v)
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buf.getvalue()


def serve(data, env=None, timeout=120):
    e = dict(os.environ, TMPDIR=tmp, SERVE_LOCK=os.path.join(scratch, "serve.lock"))
    e.update(env or {})
    r = subprocess.run([sys.executable, os.path.join(root, "grading", "serve_grade.py")], input=data,
                       capture_output=True, env=e, timeout=timeout)
    try:
        results = json.loads(r.stdout.decode("utf-8"))
    except ValueError:
        results = None
    return r.returncode, results, r.stderr.decode("utf-8", "replace")


def clean_after(what):
    check(not os.listdir(tmp), f"{what}: the temporary folder is left: {os.listdir(tmp)}")
    grade_dir = os.path.join(root, "build", "grade")
    left = [n for n in os.listdir(grade_dir) if "gs-" in n] if os.path.isdir(grade_dir) else []
    check(not left, f"{what}: make grade's results are left in build/grade: {left}")


kernel = b"__global__ void k() {}\n"
hostile = {
    "absolute": ([({"name": "/tmp/x.cu"}, kernel)], "is absolute or climbs out"),
    "dotdot": ([({"name": "01_basic_1d/../../escape.cu"}, kernel)], "is absolute or climbs out"),
    "symlink": ([({"name": "01_basic_1d/conv1d_basic.cu", "type": tarfile.SYMTYPE,
                   "linkname": "/etc/passwd"}, b"")], "is a link, a device or a FIFO"),
    "hardlink": ([({"name": "a.cu"}, kernel), ({"name": "01_basic_1d/conv1d_basic.cu",
                  "type": tarfile.LNKTYPE, "linkname": "a.cu"}, b"")], "is a link, a device or a FIFO"),
    "device": ([({"name": "01_basic_1d/null", "type": tarfile.CHRTYPE, "devmajor": 1,
                  "devminor": 3}, b"")], "is a link, a device or a FIFO"),
    "fifo": ([({"name": "01_basic_1d/pipe", "type": tarfile.FIFOTYPE}, b"")], "is a link, a device or a FIFO"),
    "big_file": ([({"name": "01_basic_1d/conv1d_basic.cu"}, b"x" * ((1 << 20) + 1))], "is over 1 MiB"),
    "many_members": ([({"name": f"f{i}.cu"}, b"") for i in range(257)], "more than 256 members"),
    "too_much": ([({"name": f"f{i}.cu"}, b"\0" * (1 << 20)) for i in range(17)], "over 16 MiB in all"),
    "deep": ([({"name": "a/b/c/d.cu"}, kernel)], "at most 3 levels deep"),
    "odd_name": ([({"name": "01_basic_1d/my kernel.cu"}, kernel)], "names are letters"),
    "twice": ([({"name": "01_basic_1d/conv1d_basic.cu"}, kernel)] * 2, "is in the archive twice"),
    "file_as_folder": ([({"name": "01_basic_1d"}, kernel), ({"name": "01_basic_1d/conv1d_basic.cu"}, kernel)],
                       "cannot be written"),
}
for name, (members, reason) in hostile.items():
    rc, results, err = serve(archive([(dict(f), d) for f, d in members]))
    lines = err.strip().splitlines()
    check(rc == 2, f"{name}: exit {rc}, not 2")
    check(len(lines) == 1 and lines[0].startswith("serve_grade: refused: ") and reason in lines[0],
          f"{name}: stderr is not one line saying '{reason}': {err.strip()[:300]!r}")
    check(results is not None and not gs_results.problems(results) and results["score"] == 0
          and reason in results["output"], f"{name}: stdout is no valid refusal result: {str(results)[:300]}")
    clean_after(name)
check(not os.path.exists(os.path.join(scratch, "escape.cu")) and not os.path.exists("/tmp/x.cu"),
      "a hostile member was written")
for name, data, env, reason in (
        ("not_tar", b"\x00\x01 not an archive" * 40, {}, "not a tar archive"),
        ("over_cap", archive([({"name": "a.cu"}, b"y" * 4000)], "w"), {"SERVE_MAX_BYTES": "1000"},
         "the archive is over 1000 bytes")):
    rc, results, err = serve(data, env)
    check(rc == 2 and len(err.strip().splitlines()) == 1 and reason in err,
          f"{name}: exit {rc}, stderr {err.strip()[:200]!r}")
    check(results is not None and not gs_results.problems(results), f"{name}: no valid result")
    clean_after(name)

# the lock, held here: the submission waits SERVE_WAIT_S and is told the machine is busy
good = archive([({"name": "01_basic_1d", "type": tarfile.DIRTYPE}, b""),
                ({"name": "01_basic_1d/conv1d_basic.cu"}, open(SOLUTION, "rb").read())])
with open(os.path.join(scratch, "serve.lock"), "w") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    start = time.monotonic()
    rc, results, err = serve(good, {"SERVE_WAIT_S": "2"})
    waited = time.monotonic() - start
check(rc == 1 and "busy" in err and waited < 30, f"locked: exit {rc} after {waited:.0f} s: {err.strip()[:200]!r}")
check(results is not None and not gs_results.problems(results) and "busy" in results["output"],
      f"locked: no valid busy result: {str(results)[:300]}")
clean_after("locked")

# one real grading: chapter 01 alone, the short rubric; built for one architecture where no GPU
# could run it anyway (a build for every architecture takes minutes on few cores)
env = {"GRADE_CHAPTERS": "01", "RUBRIC": "tests/fixtures/rubric_small.txt", "GRADE_TIME_LIMIT": "30"}
gpu = subprocess.run("nvidia-smi -L", shell=True, capture_output=True).returncode == 0
if not gpu:
    env["SM"] = "90"
rc, results, err = serve(good, env, timeout=900)
check(rc == 0, f"graded: exit {rc}: {err[-2000:]}")
check(results is not None and not gs_results.problems(results), f"graded: not a valid results.json: {str(results)[:300]}")
if results:
    check(results["output"].startswith("your submission:") and "gs-" not in json.dumps(results),
          f"graded: the run's folder name shows: {results['output'][:200]}")
    groups = {t["name"]: t for t in results["tests"]}
    check(set(groups) == {"ch01 correctness", "ch01 sanitizers", "ch01 speed"}, f"graded: groups {set(groups)}")
    if gpu:
        check(results["score"] == 4, f"graded on a GPU: {results['score']} of 4 for the solution")
    else:
        check("no usable GPU here: the GPU tests did not run" in err, "graded: grade.py's no-GPU line is not in the log")
        check(results["score"] == 0 and all("no usable GPU" in t["output"] for t in results["tests"]),
              f"graded without a GPU: groups do not say the GPU tests did not run: {str(results['tests'])[:300]}")
clean_after("graded")

for f in failures:
    print("grade_serve: " + f)
print(f"grade_serve: {len(hostile) + 4} cases ({'GPU' if gpu else 'no GPU: the tests skip'}); {len(failures)} problems")
sys.exit(1 if failures else 0)
