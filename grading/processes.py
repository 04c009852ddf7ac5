"""processes.py: running untrusted builds and tests, shared by grading/grade.py and
tests/mutation.py (both run code a student, or a mutant, wrote).

Every run goes through limited.py (address space, file size, CPU seconds, process count) in a
process group of its own, with a wall-clock limit: past it, or when it ends, the whole group is
killed, so nothing it started outlives it. Logs are read back capped. CPU cores are shared out
by Cores, so a test's CPU reference is not slowed into its time limit by builds beside it.
Sections: environment, the test list, runs, logs, cores.
"""
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMITED = os.path.join(ROOT, "grading", "limited.py")
PROCESSES = 4096  # processes of this user while one build or test runs
# Make's own settings and the token a test's verdict lines carry never reach a child.
SCRUBBED = ("MAKEFLAGS", "MAKEOVERRIDES", "MFLAGS", "MAKELEVEL", "WB_GRADE_TOKEN")


# ---- environment -------------------------------------------------------------------------------

def clean_environment(extra=None, scrubbed=(), prefix=None):
    """This process's environment without make's settings, the given names and the variables
    starting with prefix (the caller's own settings), plus extra."""
    drop = set(SCRUBBED) | set(scrubbed)
    env = {k: v for k, v in os.environ.items()
           if k not in drop and not (prefix and k.startswith(prefix))}
    env.update(extra or {})
    return env


# ---- the test list --------------------------------------------------------------------------------

def test_list(chapters, exercise_dir, env):
    """The chapters' tests as tests/ctest_list.sh lists them (WB_LIST_FORMAT=tsv), the exercise
    programs in exercise_dir: dicts of name, labels, limit, threads and argv. Raises
    RuntimeError with the list's own message when it fails. env: the environment to run it in."""
    env = dict(env, WB_LIST_FORMAT="tsv", WB_EXERCISE_DIR=exercise_dir)
    listing = subprocess.run(["sh", "tests/ctest_list.sh", ROOT, " ".join(chapters)],
                             capture_output=True, text=True, cwd=ROOT, env=env)
    if listing.returncode != 0:
        raise RuntimeError(listing.stderr.strip()[:200])
    tests, record = [], ""
    for line in listing.stdout.split("\n"):
        # A record may span lines (a CPU test's sh -c script): until its quotes close, the
        # command does not split, and the next line belongs to it.
        record = record + "\n" + line if record else line
        fields = record.split("\t", 4)
        if len(fields) < 5:
            continue
        try:
            argv = shlex.split(fields[4])
        except ValueError:
            continue
        record = ""
        tests.append({"name": fields[0], "labels": fields[1].split(";"), "limit": int(fields[2]),
                      "threads": int(fields[3]), "argv": argv})
    return tests


# ---- runs --------------------------------------------------------------------------------------

_live, _live_lock = set(), threading.Lock()


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def kill_all():
    """Kills every run in flight (an interrupted caller's last act)."""
    with _live_lock:
        for p in list(_live):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def run_limited(args, log_path, limit_s, memory, file_size, env, threads=1, err_path=None):
    """Runs args under limited.py's limits with its output in log_path (its stderr in err_path,
    if given); returns (exit code, seconds). A run past limit_s returns 124. CPU seconds allowed:
    its threads' share of the wall-clock limit, with room to start and stop."""
    cpu = (limit_s + 30) * threads + 60
    wrapped = [sys.executable, LIMITED, str(memory or 0), str(file_size), str(cpu),
               str(PROCESSES), "--"] + list(args)
    start = time.monotonic()
    with open(log_path, "wb") as log, open(err_path or os.devnull, "wb") as err:
        p = subprocess.Popen(wrapped, stdout=log, stderr=err if err_path else subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env, cwd=ROOT, start_new_session=True)
        with _live_lock:
            _live.add(p)
        try:
            rc = p.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            rc = 124
        kill_group(p)  # past its limit, or whatever it left behind
        with _live_lock:
            _live.discard(p)
    return rc, time.monotonic() - start


# ---- logs --------------------------------------------------------------------------------------

def read_log(path, kept):
    """A log's text (its last 4 * kept bytes, when larger), then the file cut down to its last
    kept bytes: a test that floods its output costs neither memory nor disk."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if size > 4 * kept:
                f.seek(size - 4 * kept)
            data = f.read()
        if size > kept:
            with open(path, "wb") as f:
                f.write(b"(the log's start was cut)\n" + data[-kept:])
        return data
    except OSError:
        return b""


# ---- cores -------------------------------------------------------------------------------------

class Cores:
    """n CPU cores shared by builds and tests: a test takes as many as it runs threads."""

    def __init__(self, n):
        self.n, self.free, self.cond = n, n, threading.Condition()

    def take(self, k):
        k = min(k, self.n)
        with self.cond:
            self.cond.wait_for(lambda: self.free >= k)
            self.free -= k
        return k

    def give(self, k):
        with self.cond:
            self.free += k
            self.cond.notify_all()
