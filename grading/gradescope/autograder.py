"""autograder.py: the Gradescope kit's grader (run_autograder runs it). It collects the student's
upload, grades it on a GPU, and always leaves a valid results.json.

  WB_AUTOGRADER_ROOT=/autograder python3 source/autograder.py      (default root: /autograder)

Reads ROOT/submission (Gradescope's copy of the upload) and the kit in ROOT/source: settings
(written by make gradescope: the GPU machine's host, port, user, the timeout), kernels.tsv (each
kernel file's name and its chapter, from exercises/ when the kit was made), ssh/ (the key and the
GPU machine's host key) and, in a kit made with LOCAL_GPU=1, workbook/. Writes
ROOT/results/results.json.

The upload: kernel files dropped flat (conv1d_basic.cu, placed by its name, each name being one
chapter's alone), chapter folders (01_basic_1d/...), or a copy of the workbook (exercises/...),
also inside one folder that wraps it all (an uploaded zip's). A file that is no kernel file is
named in the output and left out; a kernel file given twice refuses the upload. The kernel files
alone are staged as NN_name/file.cu and graded: in this container when the kit holds the
workbook and the container has a usable GPU (make grade), else on the GPU machine over SSH
(grading/serve_grade.py there reads a tar archive and answers results.json), within the timeout
(GS_TIMEOUT overrides the kit's). WB_GRADESCOPE_MODE=local or remote skips the choice.
Sections: settings, the upload, grading, main.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gs_results  # noqa: E402

ROOT = os.environ.get("WB_AUTOGRADER_ROOT", "") or "/autograder"
KIT = os.path.join(ROOT, "source")
FILE_CAP = 1 << 20          # the grader takes no larger kernel file
WALK_CAP = 2000             # entries of an upload looked at, at most
ANSWER_CAP = 8 << 20        # bytes of the GPU machine's answer read
NOTES_SHOWN = 20
STAGED = "submission"       # the staged folder's name: make grade calls the student that


def log(text):  # Gradescope shows run_autograder's stdout to instructors only
    print(f"autograder: {text}", flush=True)


# ---- settings -------------------------------------------------------------------------------------

def read_settings():
    values = {"host": "", "port": "22", "user": "", "timeout": "480"}
    try:
        for line in open(os.path.join(KIT, "settings"), encoding="utf-8"):
            key, _, value = line.rstrip("\n").partition("=")
            if key in values:
                values[key] = value
    except OSError:
        pass
    override = os.environ.get("GS_TIMEOUT", "")
    if override:
        values["timeout"] = override
    if not re.fullmatch(r"[1-9][0-9]{0,5}", values["timeout"]):
        log(f"timeout '{values['timeout']}' is not a number of seconds: 480 s instead")
        values["timeout"] = "480"
    return values


def read_kernels():
    kernels = {}
    for line in open(os.path.join(KIT, "kernels.tsv"), encoding="utf-8"):
        name, _, chapter = line.rstrip("\n").partition("\t")
        if name and chapter:
            kernels[name] = chapter
    return kernels


# ---- the upload ---------------------------------------------------------------------------------------

def collect(upload, kernels):
    """(chapter -> {name: path}, notes for the student); raises ValueError for a refused upload."""
    chapters = set(kernels.values())
    entries = [e for e in os.scandir(upload)] if os.path.isdir(upload) else []
    # one folder wrapping everything (a zip of a folder), not itself a chapter: look inside it
    if len(entries) == 1 and entries[0].is_dir(follow_symlinks=False) and entries[0].name not in chapters \
            and entries[0].name != "exercises":
        upload = entries[0].path
    if os.path.isdir(os.path.join(upload, "exercises")) and not os.path.islink(os.path.join(upload, "exercises")):
        upload = os.path.join(upload, "exercises")  # a copy of the workbook: its exercises alone
    found, notes, where, looked = {}, [], {}, 0
    for dirpath, dirnames, filenames in os.walk(upload):
        rel = os.path.relpath(dirpath, upload)
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if depth == 0 else []
        for f in sorted(filenames):
            looked += 1
            if looked > WALK_CAP:
                raise ValueError(f"the upload holds more than {WALK_CAP} files")
            path = os.path.join(dirpath, f)
            shown = os.path.relpath(path, upload)
            folder = None if depth == 0 else rel.split(os.sep)[0]
            chapter = kernels.get(f)
            if f.startswith(".") or (folder is None and chapter is None) or \
                    (folder is not None and folder not in chapters):
                notes.append(f"{shown}: not a kernel file of the workbook: left out")
                continue
            if folder is not None and chapter != folder:
                notes.append(f"{shown}: not a kernel file of chapter {folder}: left out")
                continue
            if os.path.islink(path) or not os.path.isfile(path):
                notes.append(f"{shown}: not a regular file (a link?): left out")
                continue
            if os.path.getsize(path) > FILE_CAP:
                notes.append(f"{shown}: over 1 MiB: left out")
                continue
            if f in where:
                raise ValueError(f"{f} is given twice ({where[f]} and {shown}): upload it once")
            where[f] = shown
            found.setdefault(chapter, {})[f] = path
            if folder is None:
                notes.append(f"{shown}: graded as {chapter}/{f}")
    return found, notes


def stage(found, into):
    for chapter, files in found.items():
        os.makedirs(os.path.join(into, chapter), exist_ok=True)
        for name, path in files.items():
            shutil.copyfile(path, os.path.join(into, chapter, name))


# ---- grading --------------------------------------------------------------------------------------------

def run(argv, stdin_path, timeout, cwd=None, capture=True):
    """(exit code, or None past the timeout; stdout's first ANSWER_CAP bytes, when captured).
    What is not captured passes to ours (the instructor's log). The command and all it starts are
    killed at the timeout."""
    sys.stdout.flush()
    with tempfile.TemporaryFile() as out, open(stdin_path or os.devnull, "rb") as stdin:
        p = subprocess.Popen(argv, stdin=stdin, stdout=out if capture else None, cwd=cwd,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
        out.seek(0)
        return rc, out.read(ANSWER_CAP)


def gpu_here():
    workbook = os.path.join(KIT, "workbook")
    if not os.path.isfile(os.path.join(workbook, "Makefile")) or not shutil.which("nvidia-smi"):
        return False
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0 and b"GPU" in r.stdout


def grade_here(staged, timeout):
    workbook = os.path.join(KIT, "workbook")
    results_dir = os.path.join(workbook, "build", "grade", STAGED)
    shutil.rmtree(results_dir, ignore_errors=True)  # an earlier run's: make grade would refuse it
    rc, _ = run(["make", "-s", "grade", "SUBMISSION=" + staged], None, timeout, cwd=workbook, capture=False)
    try:
        if rc is None:
            return None, f"Grading ran past the autograder's limit of {timeout} s and was stopped."
        with open(os.path.join(results_dir, "results.json"), encoding="utf-8") as f:
            return json.load(f), ""
    except (OSError, ValueError):
        return None, f"The grader failed (exit {rc}) before writing a result; your instructor has its log."
    finally:
        shutil.rmtree(results_dir, ignore_errors=True)


def grade_remote(staged, settings, timeout, scratch):
    host, user, port = settings["host"], settings["user"], settings["port"]
    key, known = os.path.join(KIT, "ssh", "id"), os.path.join(KIT, "ssh", "known_hosts")
    if not host or not os.path.isfile(key) or not os.path.isfile(known):
        log("no GPU here, and the kit names no GPU machine (make gradescope GPU_HOST=... SSH_KEY=... KNOWN_HOSTS=...)")
        return None, "This autograder has no GPU and no GPU machine to send your files to; your instructor has been told."
    archive = os.path.join(scratch, "submission.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        for chapter in sorted(os.listdir(staged)):
            tar.add(os.path.join(staged, chapter), arcname=chapter)
    private = os.path.join(scratch, "id")  # ssh refuses a key others may read: a 0600 copy
    with open(private, "wb", opener=lambda p, f: os.open(p, f, 0o600)) as f:
        f.write(open(key, "rb").read())
    argv = ["ssh", "-i", private, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + known,
            "-o", "ConnectTimeout=30", "-o", "ServerAliveInterval=30", "-o", "ServerAliveCountMax=4",
            "-p", port, "-l", user, "--", host, "grade"]
    log(f"sending the submission to {user}@{host}:{port} (at most {timeout} s)")
    rc, answer = run(argv, archive, timeout)
    if rc is None:
        log(f"no answer from the GPU machine within {timeout} s")
        return None, (f"The GPU machine did not answer within {timeout} s (it grades one submission "
                      "at a time, and may be busy or down). Submit again later, or ask your "
                      "instructor to rerun the autograder.")
    if rc == 255:
        log("ssh exit 255: the GPU machine could not be reached, or refused the key or host key")
        return None, ("The GPU machine that grades submissions could not be reached. Submit again "
                      "later, or ask your instructor to rerun the autograder.")
    try:
        return json.loads(answer.decode("utf-8")), ""
    except (UnicodeDecodeError, ValueError):
        log(f"the GPU machine's answer (exit {rc}, {len(answer)} bytes) is not JSON")
        return None, "The GPU machine answered with something that is not a grading result; your instructor has been told."


# ---- main --------------------------------------------------------------------------------------------------

def write_results(results):
    folder = os.path.join(ROOT, "results")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "results.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(gs_results.dump(results))
    os.replace(path + ".tmp", path)


def with_notes(results, notes):
    if notes:
        shown = notes[:NOTES_SHOWN] + ([f"... and {len(notes) - NOTES_SHOWN} more"] if len(notes) > NOTES_SHOWN else [])
        text = "Your upload:\n  " + "\n  ".join(shown)
        results["output"] = text + ("\n\n" + results["output"] if results.get("output") else "")
    return results


def main():
    settings = read_settings()
    timeout = int(settings["timeout"])
    try:
        kernels = read_kernels()
        found, notes = collect(os.path.join(ROOT, "submission"), kernels)
    except ValueError as e:
        log(f"upload refused: {e}")
        write_results(gs_results.error_result(f"Your upload was refused: {e}."))
        return 0
    except OSError as e:
        log(f"the kit is incomplete: {e}")
        write_results(gs_results.error_result("The autograder is misconfigured; your instructor has been told."))
        return 1
    if not found:
        write_results(with_notes(gs_results.error_result(
            "No kernel file of the workbook was found in your upload (for example conv1d_basic.cu, "
            "or 01_basic_1d/conv1d_basic.cu)."), notes))
        return 0
    scratch = tempfile.mkdtemp(prefix="wb-autograder-")
    try:
        staged = os.path.join(scratch, STAGED)
        stage(found, staged)
        mode = os.environ.get("WB_GRADESCOPE_MODE", "") or ("local" if gpu_here() else "remote")
        log(f"graded {'in this container' if mode == 'local' else 'on the GPU machine'}: "
            f"{sum(len(v) for v in found.values())} kernel files")
        if mode == "local":
            results, why = grade_here(staged, timeout)
        else:
            results, why = grade_remote(staged, settings, timeout, scratch)
        if results is not None and gs_results.problems(results):
            log("the result is not a valid results.json: " + "; ".join(gs_results.problems(results)))
            results, why = None, "The grader returned an invalid result; your instructor has been told."
        write_results(with_notes(results if results is not None else gs_results.error_result(why), notes))
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
