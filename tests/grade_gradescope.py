"""grade_gradescope.py: make gradescope's kit, and its run_autograder against a fake /autograder.

  python3 tests/grade_gradescope.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

The kit: make gradescope writes DIR/autograder.zip holding exactly setup.sh, run_autograder (both
executable), autograder.py, gs_results.py, kernels.tsv (every kernel file of exercises/ and its
chapter), settings and ssh/; no solutions/ and no .cu file at all; bad settings are refused with
exit 2 and one line. Then run_autograder, with WB_AUTOGRADER_ROOT pointing at a fake root (the
kit unzipped as source/, the upload as submission/) and a fake `ssh` first on PATH that logs its
arguments and, by FAKE_SSH: pipes its stdin into grading/serve_grade.py here (a real grading of a
flat upload: chapter 01 alone, the short rubric), records the archive it is sent, fails as an
unreachable host does (255), hangs, or answers text that is not JSON or JSON that is no
results.json. Every run must leave a valid results.json: the grade, or score 0 with a message
saying what happened; the uploads' files placed by name, the stray ones named, a file given twice
refused without ssh being called; and a crash of autograder.py leaves the wrapper's fallback.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import time
import zipfile

root, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "grading"))
import gs_results  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []
SOLUTION = os.path.join(root, "solutions", "01_basic_1d", "conv1d_basic.cu")


def check(ok, what):
    if not ok:
        failures.append(what)


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def make_kit(folder, **settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    return subprocess.run(["make", "-s", "--no-print-directory", "gradescope", "DIR=" + folder]
                          + [f"{k}={v}" for k, v in settings.items()],
                          cwd=root, capture_output=True, text=True, env=env)


# ---- the kit --------------------------------------------------------------------------------------
write(os.path.join(scratch, "id"), "not a real key\n", 0o600)
write(os.path.join(scratch, "known_hosts"), "gpu.invalid ssh-ed25519 AAAAnotreal\n")
kit_dir = os.path.join(scratch, "kit with space")
r = make_kit(kit_dir, GPU_HOST="gpu.invalid", GPU_USER="grader", SSH_KEY=os.path.join(scratch, "id"),
             KNOWN_HOSTS=os.path.join(scratch, "known_hosts"), GS_TIMEOUT="120")
check(r.returncode == 0, f"make gradescope failed: {r.stdout}{r.stderr}")
zip_path = os.path.join(kit_dir, "autograder.zip")
with zipfile.ZipFile(zip_path) as z:
    names = set(z.namelist())
    expected = {"setup.sh", "run_autograder", "autograder.py", "gs_results.py", "kernels.tsv",
                "settings", "ssh/", "ssh/id", "ssh/known_hosts"}
    check(names == expected, f"the zip holds {sorted(names ^ expected)} unexpectedly (or lacks them)")
    check(not any(n.startswith("solutions") or n.endswith(".cu") for n in names), "the zip holds solution sources")
    for n in ("setup.sh", "run_autograder"):
        mode = z.getinfo(n).external_attr >> 16 if n in names else 0
        check(mode & stat.S_IXUSR, f"{n} is not executable in the zip")
    settings = z.read("settings").decode() if "settings" in names else ""
    kernels = z.read("kernels.tsv").decode() if "kernels.tsv" in names else ""
check(settings == "host=gpu.invalid\nport=22\nuser=grader\ntimeout=120\n", f"settings: {settings!r}")
listed = sorted(line.split("\t")[0] for line in kernels.splitlines())
on_disk = sorted(f for c in os.listdir(os.path.join(root, "exercises")) for f in
                 os.listdir(os.path.join(root, "exercises", c)) if f.endswith(".cu"))
check(listed == on_disk, f"kernels.tsv lists {listed}, exercises/ has {on_disk}")
check("conv1d_basic.cu\t01_basic_1d" in kernels.splitlines(), "kernels.tsv does not place conv1d_basic.cu")
for name, settings_, said in (
        ("timeout", {"GS_TIMEOUT": "5"}, "GS_TIMEOUT='5' is not a number of seconds"),
        ("option_host", {"GPU_HOST": "-oProxyCommand=x", "SSH_KEY": "x", "KNOWN_HOSTS": "x"},
         "is not a host name"),
        ("no_known_hosts", {"GPU_HOST": "gpu.invalid", "SSH_KEY": os.path.join(scratch, "id")},
         "GPU_HOST needs KNOWN_HOSTS=file"),
        ("key_alone", {"SSH_KEY": os.path.join(scratch, "id")}, "go with GPU_HOST=host")):
    r = make_kit(os.path.join(scratch, "refused_" + name), **settings_)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and lines and lines[0].startswith("make gradescope: ") and said in lines[0],
          f"refused {name}: exit {r.returncode}: {r.stderr.strip()[:200]!r}")
    check(not os.path.exists(os.path.join(scratch, "refused_" + name)), f"refused {name}: the folder was made")

# ---- run_autograder against a fake root --------------------------------------------------------------
bin_dir = os.path.join(scratch, "bin")
write(os.path.join(bin_dir, "ssh"), f"""#!/bin/sh
printf '%s\\n' "$@" > "$FAKE_ROOT/ssh_args"
case $FAKE_SSH in
serve) exec python3 '{root}/grading/serve_grade.py' ;;
record) cat > "$FAKE_ROOT/sent.tar.gz"; echo '{{"score": 1, "tests": []}}' ;;
unreachable) echo "ssh: connect to host gpu.invalid port 22: Connection refused" >&2; exit 255 ;;
hang) exec sleep 600 ;;
garbage) echo "Welcome to the GPU machine!" ;;
invalid) echo '{{"score": "full marks", "tests": []}}' ;;
esac
""", 0o755)


def autograde(name, upload, mode, env=None, source_edit=None):
    """Runs run_autograder on a fresh fake root; (results or None, seconds, the root)."""
    fake = os.path.join(scratch, "roots", name)
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(os.path.join(fake, "source"))
    for n in ("run_autograder", "setup.sh"):
        os.chmod(os.path.join(fake, "source", n), 0o755)
    if source_edit:
        source_edit(os.path.join(fake, "source"))
    for path, text in upload.items():
        write(os.path.join(fake, "submission", path), text)
    os.makedirs(os.path.join(fake, "submission"), exist_ok=True)
    e = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], WB_AUTOGRADER_ROOT=fake,
             FAKE_ROOT=fake, FAKE_SSH=mode, WB_GRADESCOPE_MODE="remote",
             SERVE_LOCK=os.path.join(scratch, "serve.lock"))
    e.update(env or {})
    start = time.monotonic()
    r = subprocess.run(["sh", os.path.join(fake, "source", "run_autograder")], env=e,
                       capture_output=True, text=True, timeout=900)
    seconds = time.monotonic() - start
    try:
        results = json.load(open(os.path.join(fake, "results", "results.json"), encoding="utf-8"))
    except (OSError, ValueError):
        results = None
    check(results is not None and not gs_results.problems(results),
          f"{name}: no valid results.json (exit {r.returncode}): {r.stdout[-1500:]}{r.stderr[-1500:]}")
    return results or {"output": "", "tests": [], "score": None}, seconds, fake


solution = open(SOLUTION).read()
flat = {"conv1d_basic.cu": solution, "notes.txt": "my notes\n"}
serve_env = {"GRADE_CHAPTERS": "01", "RUBRIC": "tests/fixtures/rubric_small.txt", "GRADE_TIME_LIMIT": "30"}
gpu = subprocess.run("nvidia-smi -L", shell=True, capture_output=True).returncode == 0
if not gpu:
    serve_env["SM"] = "90"  # one architecture: nothing runs here, and each one costs a compile
results, _, fake = autograde("served", flat, "serve", serve_env)
out = results["output"]
check("notes.txt: not a kernel file of the workbook: left out" in out, f"served: the stray file is not named: {out[:300]}")
check("conv1d_basic.cu: graded as 01_basic_1d/conv1d_basic.cu" in out, f"served: the placement is not said: {out[:300]}")
check("your submission:" in out, f"served: not graded: {out[:300]}")
check({t["name"] for t in results["tests"]} == {"ch01 correctness", "ch01 sanitizers", "ch01 speed"},
      f"served: groups {[t['name'] for t in results['tests']]}")
check(results["score"] == (4 if gpu else 0), f"served: score {results['score']}")
args = open(os.path.join(fake, "ssh_args")).read().splitlines() if os.path.exists(os.path.join(fake, "ssh_args")) else []
for wanted in ("BatchMode=yes", "StrictHostKeyChecking=yes", "IdentitiesOnly=yes", "gpu.invalid", "grader"):
    check(wanted in args, f"served: ssh was not given {wanted}: {args}")
check(any(a.startswith("UserKnownHostsFile=") and a.endswith("ssh/known_hosts") for a in args),
      f"served: ssh does not check the kit's host key: {args}")

results, _, fake = autograde("layouts", {"wrapper/01_basic_1d/conv1d_basic.cu": solution,
                                         "wrapper/conv1d_tiled.cu": "x\n",
                                         "wrapper/02_constant_mask/conv1d_basic.cu": "x\n",
                                         "wrapper/02_constant_mask/conv1d_constant.cu": "y\n"}, "record")
try:
    with tarfile.open(os.path.join(fake, "sent.tar.gz")) as t:
        sent = sorted(m.name for m in t if m.isfile())
except (OSError, tarfile.TarError):
    sent = []
check(sent == ["01_basic_1d/conv1d_basic.cu", "02_constant_mask/conv1d_constant.cu", "03_tiled_halo/conv1d_tiled.cu"],
      f"layouts: the archive sent holds {sent}")
check("02_constant_mask/conv1d_basic.cu: not a kernel file of chapter 02_constant_mask" in results["output"],
      f"layouts: a kernel file in the wrong chapter is not named: {results['output'][:300]}")
results, _, fake = autograde("copy", {"exercises/01_basic_1d/conv1d_basic.cu": solution, "README.md": "x"}, "record")
with tarfile.open(os.path.join(fake, "sent.tar.gz")) as t:
    check([m.name for m in t if m.isfile()] == ["01_basic_1d/conv1d_basic.cu"], "copy: exercises/ not taken")

results, _, fake = autograde("twice", {"conv1d_basic.cu": solution, "01_basic_1d/conv1d_basic.cu": solution}, "record")
check("conv1d_basic.cu is given twice" in results["output"] and results["score"] == 0,
      f"twice: not refused: {results['output'][:300]}")
check(not os.path.exists(os.path.join(fake, "ssh_args")), "twice: ssh was called for a refused upload")
results, _, _ = autograde("nothing", {"notes.txt": "x"}, "record")
check("No kernel file of the workbook was found" in results["output"], f"nothing: {results['output'][:300]}")

for mode, said, env in (("unreachable", "could not be reached", {}),
                        ("hang", "did not answer within 3 s", {"GS_TIMEOUT": "3"}),
                        ("garbage", "not a grading result", {}),
                        ("invalid", "returned an invalid result", {})):
    results, seconds, _ = autograde(mode, flat, mode, env)
    check(results["score"] == 0 and said in results["output"] and "says nothing about your code" in results["output"],
          f"{mode}: the result does not say '{said}': {results['output'][:300]}")
    check(seconds < 60, f"{mode}: run_autograder took {seconds:.0f} s")


def crash(source):
    write(os.path.join(source, "autograder.py"), "import os, sys\n"
          "os.makedirs(os.path.join(os.environ['WB_AUTOGRADER_ROOT'], 'results'), exist_ok=True)\n"
          "open(os.path.join(os.environ['WB_AUTOGRADER_ROOT'], 'results', 'results.json'), 'w').write('{\"sco')\n"
          "sys.exit(3)\n")


results, _, _ = autograde("crash", flat, "record", source_edit=crash)
check(results["score"] == 0 and "failed before grading" in results["output"], f"crash: no fallback: {results['output'][:300]}")

for f in failures:
    print("grade_gradescope: " + f)
print(f"grade_gradescope: the kit and 11 runs of run_autograder ({'GPU' if gpu else 'no GPU'}); {len(failures)} problems")
sys.exit(1 if failures else 0)
