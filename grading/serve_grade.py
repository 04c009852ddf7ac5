#!/usr/bin/env python3
"""serve_grade.py: the GPU machine's grading entry point. A submission as a tar archive on stdin
(plain or gzip), Gradescope's results.json on stdout, the log on stderr.

  python3 grading/serve_grade.py < submission.tar.gz > results.json

The archive holds one student's kernel files in a layout make grade takes (NN_name/*.cu, or
exercises/NN_name/*.cu). It is an attacker's input: read whole (at most SERVE_MAX_BYTES), every
member checked before anything is written (a relative name of plain letters, digits, '.', '_'
and '-' parts, no '..', three levels at most; a file or a folder, never a link, a device or a
FIFO; a file at most 1 MiB, 256 members and 16 MiB in all), then written by this program, file
by file, into a fresh temporary folder: never into the workbook. One grading at a time: each
waits for a lock (SERVE_LOCK, default build/serve_grade.lock) at most SERVE_WAIT_S seconds
(default 1200), and stops waiting when the client has gone. make grade then runs on it (its
own GRADE_* settings, RUBRIC and HIDDEN_TESTS come from this environment) for at most
SERVE_LIMIT_S seconds (default 1800); its results are printed and everything it wrote is
removed, whatever happened. Whatever goes wrong, stdout is still a valid results.json saying
what happened (score 0), and the exit code is 0 (graded), 2 (refused archive) or 1 (no grade).

Used as an SSH forced command (README.md, "Deploying the grader"), so a key that reaches this
machine can run this and nothing else. Sections: settings, the archive, grading, main.
"""
import fcntl
import io
import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gs_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE_CAP = 1 << 20       # make grade grades no kernel file larger than this either
TOTAL_CAP = 16 << 20
MEMBERS_CAP = 256
DEPTH_CAP = 3            # exercises/NN_name/file.cu
PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")
DROPPED = ("SUBMISSION", "SUBMISSIONS", "ROSTER", "MAKEFLAGS", "MAKELEVEL", "MFLAGS")


class Refused(Exception):
    pass


def log(text):
    print(f"serve_grade: {text}", file=sys.stderr, flush=True)


def setting(name, default):
    value = os.environ.get(name, "") or str(default)
    if not re.fullmatch(r"[1-9][0-9]{0,9}", value):
        raise SystemExit(f"serve_grade: {name}='{value}' is not a positive whole number")
    return int(value)


# ---- the archive -----------------------------------------------------------------------------------

def unpack(data, into):
    """Checks every member of the archive in data, then writes its folders and files under into."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, EOFError, OSError) as e:
        raise Refused(f"not a tar archive ({e.__class__.__name__})")
    members, total, seen = [], 0, set()
    try:
        for m in archive:
            if len(members) >= MEMBERS_CAP:
                raise Refused(f"more than {MEMBERS_CAP} members")
            name = m.name[2:] if m.name.startswith("./") else m.name
            name = name.rstrip("/") if m.isdir() else name
            if name in ("", "."):
                continue
            parts = name.split("/")
            if name.startswith("/") or ".." in parts:
                raise Refused(f"member '{name[:80]}' is absolute or climbs out with '..'")
            if len(parts) > DEPTH_CAP or not all(PART.fullmatch(p) for p in parts):
                raise Refused(f"member '{name[:80]!r}': names are letters, digits, '.', '_', '-', "
                              f"at most {DEPTH_CAP} levels deep")
            if not (m.isfile() or m.isdir()):
                raise Refused(f"member '{name}' is a link, a device or a FIFO: only files and folders")
            if name in seen:
                raise Refused(f"member '{name}' is in the archive twice")
            if m.isfile() and m.size > FILE_CAP:
                raise Refused(f"file '{name}' is over {FILE_CAP >> 20} MiB")
            total += m.size if m.isfile() else 0
            if total > TOTAL_CAP:
                raise Refused(f"its files are over {TOTAL_CAP >> 20} MiB in all")
            seen.add(name)
            members.append((m, parts))
    except (tarfile.TarError, EOFError, OSError) as e:
        raise Refused(f"a damaged tar archive ({e.__class__.__name__})")
    os.makedirs(into)
    top = os.path.realpath(into) + os.sep
    for m, parts in sorted(members, key=lambda x: len(x[1])):
        path = os.path.join(into, *parts)
        if not os.path.realpath(path).startswith(top):
            raise Refused(f"member '{m.name}' leads out of the folder")
        try:
            if m.isdir():
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            source = archive.extractfile(m)
            with open(path, "xb") as f:
                f.write(source.read(FILE_CAP + 1) if source else b"")
        except (OSError, tarfile.TarError, EOFError) as e:  # a file where a folder must be, say
            raise Refused(f"member '{m.name}' cannot be written ({e.__class__.__name__})")


# ---- grading -----------------------------------------------------------------------------------------

def client_gone():
    """True when whoever reads our stdout has closed it (an SSH client that gave up)."""
    poller = select.poll()
    poller.register(sys.stdout.fileno(), select.POLLOUT)
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))


def take_lock(path, wait_s):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    lock = open(path, "a")
    start = time.monotonic()
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return lock
        except OSError:
            pass
        if time.monotonic() - start > wait_s:
            lock.close()
            return None
        if client_gone():
            lock.close()
            raise SystemExit("serve_grade: the client went away while this submission waited its turn")
        time.sleep(1)


def grade(submission, limit_s):
    """make grade SUBMISSION=submission in the workbook: (exit code or None on timeout)."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED and not k.startswith("WB_")}
    p = subprocess.Popen(["make", "-s", "grade", "SUBMISSION=" + submission], cwd=ROOT, env=env,
                         stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(), start_new_session=True)
    try:
        return p.wait(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return None


# ---- main -------------------------------------------------------------------------------------------

def answer(obj, code):
    try:
        sys.stdout.write(gs_results.dump(obj))
        sys.stdout.flush()
    except BrokenPipeError:
        log("the client went away before the result was sent")
    return code


def main():
    max_bytes = setting("SERVE_MAX_BYTES", 8 << 20)
    wait_s = setting("SERVE_WAIT_S", 1200)
    limit_s = setting("SERVE_LIMIT_S", 1800)
    lock_path = os.environ.get("SERVE_LOCK", "") or os.path.join(ROOT, "build", "serve_grade.lock")
    data = sys.stdin.buffer.read(max_bytes + 1)
    name = "gs-" + secrets.token_hex(6)  # its results folder: build/grade/<name>, new each time
    scratch = tempfile.mkdtemp(prefix="wb-serve-")
    results_dir = os.path.join(ROOT, "build", "grade", name)
    try:
        try:
            if len(data) > max_bytes:
                raise Refused(f"the archive is over {max_bytes} bytes")
            unpack(data, os.path.join(scratch, name))
        except Refused as e:
            log(f"refused: {e}")
            return answer(gs_results.error_result(f"The submission was refused by the grader: {e}."), 2)
        lock = take_lock(lock_path, wait_s)
        if lock is None:
            log(f"the GPU machine stayed busy for {wait_s} s: not graded")
            return answer(gs_results.error_result(
                f"The GPU machine was busy grading others for {wait_s} s: your submission was not "
                "graded. Submit again later."), 1)
        with lock:
            log(f"grading {name}")
            rc = grade(os.path.join(scratch, name), limit_s)
        if rc is None:
            log(f"make grade ran past SERVE_LIMIT_S={limit_s} s: stopped")
            return answer(gs_results.error_result(
                f"Grading ran past its limit of {limit_s} s and was stopped."), 1)
        try:
            with open(os.path.join(results_dir, "results.json"), encoding="utf-8") as f:
                results = json.load(f)
        except (OSError, ValueError) as e:
            log(f"make grade exited {rc} without a readable results.json ({e.__class__.__name__})")
            return answer(gs_results.error_result(
                f"The grader failed (exit {rc}) before writing a result; your instructor has its log."), 1)
        found = gs_results.problems(results)
        if found:
            log("make grade's results.json is not valid: " + "; ".join(found))
            return answer(gs_results.error_result("The grader wrote an invalid result."), 1)
        if isinstance(results.get("output"), str):  # the student's name here is this run's folder
            results["output"] = results["output"].replace(name, "your submission")
        return answer(results, 0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(results_dir, ignore_errors=True)
        try:
            os.remove(os.path.join(ROOT, "build", "grade", f".{name}.lock"))
        except OSError:
            pass


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a bug here still leaves the client a valid result, and says so
        log(f"failed: {e.__class__.__name__}: {e}")
        sys.exit(answer(gs_results.error_result("The grader failed; your instructor has its log."), 1))
