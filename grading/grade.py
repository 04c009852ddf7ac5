"""grade.py: `make grade`. Gates, builds and tests students' kernel files against the rubric, and
writes the results for the tools instructors use (README.md, "For instructors").

  make grade [SUBMISSION=DIR | SUBMISSIONS=DIR [ROSTER=F]] [RUBRIC=F] [HIDDEN_TESTS=F] [JOBS=N]

The Makefile passes those five paths and JOBS unexpanded in WB_GRADE_* variables: they are data
here, never shell text. Also read from the environment: GRADE_CHAPTERS="01 03",
GRADE_TIME_LIMIT=S (an ordinary test's limit, 60 s by default; a sanitizer's is 4 S),
GRADE_BUILD_LIMIT=S (300), GRADE_ALLOW_DRIFT=1, GRADE_KEEP=1, GRADE_HIDDEN_VISIBILITY,
GRADE_SEED=N (the tests' random data: a reproducible regrade).

For each student and chapter: collect the files, the gate's text rules (gate.py), compile,
the gate's object rules, link beside the renamed solution, run the rubric's tests (each its own
process, under limits, with a fresh token: only the program's token lines count, verdict.h),
speed against the solution in the same process, score. Each chapter's result is kept under a key
of what it depends on (Student.key_of): a rerun grades only chapters whose key is new and merges
the rest, so a stopped run resumes and GRADE_CHAPTERS regrades in place. Students are tested side
by side, one a GPU (GpuShare: speed runs alone). Nothing in the workbook or the submission
is written. Grading runs the student's code with your rights: it is not a sandbox (RULES.md).
Sections: settings, limits and processes, one student, the rubric, the main flow.
"""
import contextlib
import fcntl
import hashlib
import json
import os
import queue
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export  # noqa: E402
import gate  # noqa: E402
import processes  # noqa: E402
from processes import Cores, run_limited  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
OUT = "build/grade"  # relative: make takes no spaces in paths, and the workbook's may hold some
TEST_LIMIT_S, SPEED_LIMIT_S = 60, 300  # an ordinary test's limit (sanitizers': 4x, from the list)
BUILD_MEMORY = 16 << 30   # address space of a build process (nvcc's front end, cicc, ptxas)
BUILD_FILE_SIZE = 256 << 20  # largest file a build may write (an object with 1 GiB of data: no)
TEST_FILE_SIZE = 256 << 20   # largest file a test may write, its log included
LOG_KEPT = 256 << 10      # bytes of a test's log kept after it is read
FILE_CAP = 1 << 20        # a kernel file larger than this is not graded
EXTRA_LISTED = 10         # extra files named in the flags; the rest are counted
FLOOR_SHARE = 0.8         # a time under 80% of the workload's floor is impossible
# Tests of a student at once, at most: past 32, GPU processes crowd the GPUs more than the cores
# help (make test caps its jobs at 32 for the same reason: its tests of 1 s took up to 62 s with
# 64 at once on four H100s).
MAX_JOBS = 32
GRADE_SETTINGS = ("SUBMISSION", "SUBMISSIONS", "RUBRIC", "HIDDEN_TESTS", "ROSTER")  # never a test's business


def die(message):
    print(f"grade: {export.shown(message)}", file=sys.stderr)
    sys.exit(2)


def seconds_setting(name, default):
    value = os.environ.get(name, "") or str(default)
    if not re.fullmatch(r"[1-9][0-9]{0,4}", value) or int(value) > 86400:
        die(f"{name}='{value}' is not a whole number of seconds (1 to 86400, no leading zero)")
    return int(value)


# ---- limits and processes (processes.py runs them) ----------------------------------------------

def clean_environment(extra=None):
    return processes.clean_environment(extra, GRADE_SETTINGS, "WB_GRADE_")


def read_log(path):
    return processes.read_log(path, LOG_KEPT)


# ---- one student -------------------------------------------------------------------------------

def folder_of(name):
    """A student's folder under build/grade: letters, digits, dot, dash and underscore; a name
    that needed changing (or would collide with the gradebook) gets a checksum of the real one."""
    raw = os.fsencode(name)
    safe = re.sub(rb"[^A-Za-z0-9._-]", b"_", raw)[:64].decode()
    if safe.startswith(("gradebook", ".")) or not safe:
        safe = "student_" + safe
    if safe.encode() != raw:
        safe += "-" + hashlib.sha256(raw).hexdigest()[:8]
    return safe


def kernel_folder(base, chapter):
    """Where submission BASE keeps a chapter's kernel files: BASE/exercises/CHAPTER/ (a whole copy
    of the workbook) or BASE/CHAPTER/; None when it has neither. ValueError when the folder is a
    link or leads out of the submission: never followed, a link could name any folder."""
    folder = os.path.join(base, "exercises", chapter)
    if not os.path.isdir(folder):
        folder = os.path.join(base, chapter)
    if not os.path.isdir(folder):
        return None
    if os.path.islink(folder) or not os.path.realpath(folder).startswith(os.path.realpath(base) + os.sep):
        raise ValueError(f"{chapter}/ is a link")
    return folder


def read_kernel(folder, chapter, name):
    """The bytes of a submitted kernel file, FOLDER/NAME; ValueError saying why they are not read:
    no regular file (a link is never followed), over FILE_CAP, unreadable."""
    path = os.path.join(folder, name)
    if os.path.islink(path) or not os.path.isfile(path):
        raise ValueError(f"no file {chapter}/{name} (a regular file) in the submission")
    if os.path.getsize(path) > FILE_CAP:
        raise ValueError(f"{chapter}/{name} is over 1 MiB: not graded")
    try:
        with open(path, "rb") as f:
            data = f.read(FILE_CAP + 1)
    except OSError as e:
        raise ValueError(f"cannot read {chapter}/{name} as UTF-8 text ({e.__class__.__name__})")
    if len(data) > FILE_CAP:  # it grew since it was measured
        raise ValueError(f"{chapter}/{name} is over 1 MiB: not graded")
    return data


def class_members(submissions):
    """A class folder's students, (name, path) for each subfolder in the byte order of the names,
    and the names of the links among its entries (never followed: a link could lead anywhere)."""
    people, links = [], []
    for entry in sorted(os.scandir(submissions), key=lambda e: os.fsencode(e.name)):
        if entry.is_dir(follow_symlinks=False):
            people.append((entry.name, entry.path))
        elif entry.is_symlink():
            links.append(entry.name)
    return people, links


class Student:
    def __init__(self, name, source, g, chapters, settings):
        self.name, self.source, self.g = name, source, g
        self.settings = settings
        self.flags, self.problems, self.state, self.forged = [], {}, {}, set()
        self.chapter_flags = {}  # chapter -> its flags: kept with the chapter's record
        self.ready = []  # chapters that passed the text gate
        self.absent = set()  # chapters nothing was handed in for: blank in the gradebooks, not 0
        self.built = []  # chapters built and past the object gate
        self.tests, self.groups, self.leaderboard = [], [], []
        self.chapters = chapters  # the chapters graded in this run (those not kept from before)
        self.gpu = None  # the GPU its tests run on (CUDA_VISIBLE_DEVICES), None: unpinned
        self.gpu_count = 0  # the machine's usable GPUs (run_tests sets it from the book)

    def flag(self, nn, text):
        self.flags.append(export.shown(text))
        self.chapter_flags.setdefault(nn, []).append(self.flags[-1])

    # records: what a chapter's grading found, kept under the key of everything it depends on
    def key_of(self, chapter, book):
        """The chapter's key: the workbook, the rubric's and hidden tests' lines of the chapter,
        the settings that change a grade, and the submission's files (names, kinds, contents)."""
        h = hashlib.sha256(book.key_of(chapter).encode())
        try:
            folder = kernel_folder(self.source, chapter)
            h.update(b"none" if folder is None else b"folder")
        except ValueError:  # a link: refused, whatever it holds
            folder = None
            h.update(b"link")
        entries = sorted(os.scandir(folder), key=lambda e: e.name) if folder else []
        for e in entries:
            h.update(b"\0" + os.fsencode(e.name) + b"\0")
            if e.is_file(follow_symlinks=False):
                with open(e.path, "rb") as f:
                    h.update(hashlib.sha256(f.read(FILE_CAP + 1)).digest())
            else:
                h.update(b"link" if e.is_symlink() else b"other")
        return h.hexdigest()

    def records(self):
        """The chapters graded before, this run's or an earlier one's: {chapter: record}."""
        kept = {}
        folder = os.path.join(self.g, "chapters")
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    kept[name[:2]] = json.load(f)
            except (OSError, ValueError):
                pass  # a record cut short (a killed run): the chapter is graded again
        return kept

    def save_records(self, keys):
        os.makedirs(os.path.join(self.g, "chapters"), exist_ok=True)
        for c in self.chapters:
            nn = c[:2]
            record = {"key": keys[c], "seed": self.settings["seed"], "state": self.state.get(nn),
                      "problem": self.problems.get(nn), "absent": nn in self.absent,
                      "flags": self.chapter_flags.get(nn, []),
                      "groups": [x for x in self.groups if x["chapter"] == nn],
                      "tests": [t for t in self.tests if t["chapter"] == nn],
                      "leaderboard": [v for c_, v in self.leaderboard if c_ == nn]}
            export.atomic_write(os.path.join(self.g, "chapters", f"{nn}.json"), json.dumps(record))

    def adopt(self, kept):
        """This student's results become every chapter's record, this run's and those kept."""
        self.groups, self.tests, self.flags, self.leaderboard = [], [], [], []
        self.problems, self.state, self.absent, self.seeds = {}, {}, set(), {}
        for nn, r in sorted(kept.items()):
            self.groups += r["groups"]
            self.tests += r["tests"]
            self.flags += r["flags"]
            self.leaderboard += [(nn, v) for v in r["leaderboard"]]
            if r["problem"] is not None:
                self.problems[nn] = r["problem"]
            if r["state"] is not None:
                self.state[nn] = r["state"]
            if r["absent"]:
                self.absent.add(nn)
            self.seeds[nn] = r["seed"]

    # collect and the text gate
    def collect(self, chapter, pristine):
        nn = chapter[:2]
        src = os.path.join(self.g, "src", chapter)
        os.makedirs(src, exist_ok=True)
        try:
            folder = kernel_folder(self.source, chapter)
        except ValueError:
            self.not_graded(nn, "missing", f"{chapter}/ is a link: not graded")
            self.flag(nn, f"ch{nn}: {chapter}/ is a link (refused)")
            return
        if folder is None:
            self.not_graded(nn, "missing",
                            f"no folder {chapter}/ (nor exercises/{chapter}/) in the submission")
            self.absent.add(nn)
            return
        extras = sorted(e.name for e in os.scandir(folder) if e.name not in pristine)
        for name in extras[:EXTRA_LISTED]:
            self.flag(nn, f"extra file ignored: {chapter}/{export.shown(name)}")
        if len(extras) > EXTRA_LISTED:
            self.flag(nn, f"{len(extras) - EXTRA_LISTED} more extra files ignored in {chapter}/")
        problems, refusals = [], []
        for name, text in pristine.items():
            try:
                # CRLF line ends (an editor on Windows) are line ends; a lone CR is refused
                # by the gate, and the compiler gets exactly the text the gate passed
                text_in = read_kernel(folder, chapter, name).decode("utf-8").replace("\r\n", "\n")
            except ValueError as e:
                problems.append(str(e))
                continue
            except UnicodeDecodeError as e:
                problems.append(f"cannot read {chapter}/{name} as UTF-8 text ({e.__class__.__name__})")
                continue
            refusals += gate.text_refusals(name, text_in, text, self.settings["allow_drift"])
            with open(os.path.join(src, name), "w", encoding="utf-8") as f:
                f.write(text_in)
        if problems:
            self.not_graded(nn, "missing", "\n".join(problems))
            if not any(os.path.lexists(os.path.join(folder, name)) for name in pristine):
                self.absent.add(nn)
        elif refusals:
            self.refuse(nn, refusals)
        else:
            self.ready.append(chapter)

    def not_graded(self, nn, state, why):
        """Chapter nn scores 0: state (missing, refused, compile_error) and what the student sees."""
        self.state[nn], self.problems[nn] = state, why

    def refuse(self, nn, refusals):
        lines = [f"refused by the gate (grading/RULES.md): rule {r.rule}, {r.file}"
                 + (f" line {r.line}" if r.line else "") + f": {r.message}" for r in refusals[:10]]
        self.not_graded(nn, "refused", "\n".join(lines))
        self.flag(nn, f"ch{nn}: " + lines[0])

    # build, with the object gate between compiling and linking
    def build(self, chapter, book):
        nn = chapter[:2]
        gb = os.path.join(self.g, "build")
        make = ["make", "-s", "-j1", f"EXERCISES={self.g}/src", f"EXERCISE_BUILD={gb}", "WITH_SOLUTION=1"]
        if re.fullmatch(r"[0-9]+a?", os.environ.get("WB_GRADE_SM", "")):
            make.append("SM=" + os.environ["WB_GRADE_SM"])
        names = [n[:-3] for n in sorted(book.pristine[chapter])]
        objects = [f"{gb}/{chapter}/exercise/{n}.o" for n in names]
        log = os.path.join(self.g, f"compile_{nn}.log")
        limit = self.settings["build_limit"]
        env = clean_environment()
        rc, _ = run_limited(make + objects, log, limit, BUILD_MEMORY, BUILD_FILE_SIZE, env)
        if rc != 0:
            self.not_graded(nn, "compile_error",
                            "does not compile\n" + compiler_excerpt(read_log(log), self.g, chapter, rc))
            return
        refusals = []
        for n, obj in zip(names, objects):
            p_obj = f"build/{chapter}/exercise/{n}.o"  # the pristine exercise's, from make all
            s_obj = f"build/{chapter}/solution/{n}.o"
            try:
                refusals += gate.object_refusals(n + ".cu", obj, obj + ".d", p_obj, p_obj + ".d",
                                                 s_obj if os.path.exists(s_obj) else None)
            except (OSError, subprocess.SubprocessError) as e:
                refusals.append(gate.Refusal("objects", n + ".cu", 0, f"cannot read the object: {e}"))
        if refusals:
            self.refuse(nn, refusals)
            return
        program = f"{gb}/ch{chapter}_exercise"
        rc, _ = run_limited(make + [program], log, limit, BUILD_MEMORY, BUILD_FILE_SIZE, env)
        if rc != 0:
            self.not_graded(nn, "compile_error",
                            "does not link\n" + compiler_excerpt(read_log(log), self.g, chapter, rc))
            return
        self.built.append(chapter)
        self.state[nn] = "graded"

    # tests
    def run_tests(self, book, cores, gpus):
        if not self.built:
            return
        self.gpu_count = book.gpu_count  # status(): where an exit 77 (skipped) can be true
        tests = test_list(self.built, os.path.join(ROOT, self.g, "build"))
        for nn, name, args in book.hidden:
            chapter = next((c for c in self.built if c.startswith(nn + "_")), None)
            if chapter:
                tests.append({"name": f"ch{nn}_hidden_{name}", "labels": ["gpu", "hidden"],
                              "limit": TEST_LIMIT_S, "threads": 1,
                              "argv": [os.path.join(ROOT, self.g, "build", f"ch{chapter}_exercise")] + args})
        wanted = [t for t in tests if ("exercise" in t["labels"] or "hidden" in t["labels"])
                  and any(re.search(p, t["name"]) for p in book.patterns)]
        scale = self.settings["time_limit"] / TEST_LIMIT_S
        for t in wanted:
            t["limit"] = max(1, round(t["limit"] * scale))
        os.makedirs(os.path.join(self.g, "logs"), exist_ok=True)
        plain = sorted((t for t in wanted if "sanitizer" not in t["labels"]), key=lambda t: -t["threads"])
        with ThreadPoolExecutor(max_workers=max(1, cores.n)) as pool:
            list(pool.map(lambda t: self.run_test(t, cores, gpus), plain))
        timed_out = {t["name"][:4] for t in plain if t["status"] == "timeout"}
        sanitized = [t for t in wanted if "sanitizer" in t["labels"]]
        for t in sanitized:
            if t["name"][:4] in timed_out:
                why = ("not run: a test of this chapter ran out of time, and the kernel would under "
                       "the sanitizer too")
                with open(os.path.join(self.g, "logs", t["name"] + ".log"), "w") as f:
                    f.write(why + "\n")
                t.update(status="timeout", seconds=0.0, hint="", tail=why)
        with ThreadPoolExecutor(max_workers=max(1, cores.n)) as pool:
            list(pool.map(lambda t: self.run_test(t, cores, gpus),
                          [t for t in sanitized if "status" not in t]))
        self.all_tests = wanted

    def run_test(self, t, cores, gpus):
        token = secrets.token_hex(16)
        env = clean_environment({"OMP_NUM_THREADS": str(t["threads"]), "OMP_WAIT_POLICY": "PASSIVE",
                                 "WB_TIME_LIMIT_S": str(t["limit"]), "WB_GRADE_TOKEN": token,
                                 "WB_SEED": self.seed_of(t["name"])})
        if self.gpu is not None and "multi_gpu" not in t["labels"]:
            env["CUDA_VISIBLE_DEVICES"] = self.gpu  # this student's GPU; several: all of them
        log = os.path.join(self.g, "logs", t["name"] + ".log")
        n = cores.take(t["threads"])
        try:
            with gpus.shared():
                rc, seconds = run_limited(t["argv"], log, t["limit"] + 30, None, TEST_FILE_SIZE,
                                          env, t["threads"])
        finally:
            cores.give(n)
        data = read_log(log)
        t["status"] = self.status(rc, data, token, t["name"], t["argv"])
        t["error"] = run_error(rc, data, token) if t["status"] == "fail" else ""
        t["seconds"] = seconds
        CLOCK.add("tests", seconds)
        text = strip_tokens(data)
        hints = [l.strip() for l in text.splitlines() if l.lstrip().startswith("hint [")]
        t["hint"] = hints[0][:300] if hints else ""
        t["tail"] = "\n".join(l[:300] for l in text.splitlines()[-15:]) or "(empty log)"

    def status(self, rc, data, token, name, argv):
        lines = re.findall(rb"^wb-grade (\S+) verdict (\S+)", data, re.M)
        mine = [v.decode() for t, v in lines if t.decode() == token]
        if any(t.decode() != token for t, _ in lines) and name[:4] not in self.forged:
            self.forged.add(name[:4])  # once a chapter: its other tests likely print the same
            shown_name = f"{name[:4]} hidden test" if "_hidden_" in name else name  # hidden stays so
            self.flag(name[2:4], f"{shown_name}: its output holds a verdict line with a wrong token (a forgery?)")
        if rc == 77:  # "no usable GPU": true only where the machine has none, or too few
            if self.gpu_count == 0 or (not mine and gpus_needed(argv) > self.gpu_count):
                return "skipped"
            self.flag(name[2:4], f"{name}: exited 77 (skipped) on a machine that can run it: "
                      "counted as failed")
            return "fail"
        if rc in (124, 137) or re.search(rb"stopped after .* \(WB_TIME_LIMIT_S\)", data):
            return "timeout"
        if rc == 0 and mine and all(v == "na" for v in mine):
            return "n/a"
        if rc == 0 and mine and all(v in ("pass", "na") for v in mine):
            return "pass"
        return "fail"

    def seed_of(self, test):
        """The seed of one test's random data: drawn from the run's seed and the test's name, so
        that GRADE_SEED gives every test of a regrade the same data, and the tests differ."""
        digest = hashlib.sha256(f"{self.settings['seed']}:{test}".encode()).hexdigest()
        return str(int(digest[:15], 16))

    # speed: the student's kernel and the solution in one process, from the token lines
    def speed(self, chapter, full, zero, points, gpus):
        nn = chapter[:2]
        token = secrets.token_hex(16)
        log = os.path.join(self.g, "logs", f"speed_{nn}.log")
        program = os.path.join(ROOT, self.g, "build", f"ch{chapter}_exercise")
        env = clean_environment({"OMP_WAIT_POLICY": "PASSIVE", "WB_TIME_LIMIT_S": str(SPEED_LIMIT_S),
                                 "WB_GRADE_TOKEN": token, "WB_SEED": self.seed_of(f"speed_{nn}")})
        asked = time.monotonic()
        with gpus.alone():  # timed with no other student's work on any GPU
            CLOCK.add("speed_wait", time.monotonic() - asked)
            rc, seconds = run_limited([program, "--bench", "--json", "--reps", "50"], log,
                                      SPEED_LIMIT_S + 30, None, TEST_FILE_SIZE, env)
            CLOCK.add("speed", seconds)
        if rc == 77 and self.gpu_count:
            self.flag(nn, f"ch{nn}: the speed run exited 77 (skipped) on a machine that can run it")
            return 0.0, "refused: the bench run exited 77 (skipped) where the GPU can run it", "graded"
        if rc == 77:
            return 0.0, "not measured: no usable GPU", "not run"
        data = read_log(log)
        times = {}
        for role, fields in re.findall(rb"^wb-grade " + token.encode() + rb" time (\w+) (.*)$", data, re.M):
            if role.decode() not in times:
                try:
                    times[role.decode()] = [float(x) for x in fields.split()]
                except ValueError:
                    times[role.decode()] = []  # malformed: not measured, below
        verdicts = re.findall(rb"^wb-grade " + token.encode() + rb" verdict (\S+)", data, re.M)
        if rc == 0 and "own" not in times and verdicts and all(v == b"na" for v in verdicts):
            return 0.0, "n/a: the chapter's kernel does not run on this machine's GPUs", "n/a"
        if b"fail" in verdicts:  # every test passed, so the kernel failed on the bench workload
            self.flag(nn, f"ch{nn}: the kernel passed its tests but failed the speed run's checks "
                      f"(on the bench workload, or run again after the timed runs): no speed points")
            return 0.0, f"refused: the kernel failed its check in the speed run (see {log})", "graded"
        if rc != 0 or "own" not in times or "solution" not in times:
            return 0.0, f"not measured: the bench run failed (exit {rc}; see {log})", "error"
        if len(times["own"]) != 7 or len(times["solution"]) != 7:
            return 0.0, f"not measured: the bench run's time lines are malformed (see {log})", "error"
        mine, theirs = times["own"][0], times["solution"][0]
        if times["own"][2] <= 0 or times["own"][3] <= 0:  # a real bench run measures both
            self.flag(nn, f"ch{nn}: speed refused: the time line names no bytes moved or no copy "
                      "bandwidth, so no floor bounds it")
            return 0.0, "refused: the bench run's time line has no workload to bound it", "graded"
        floor_ms, why = workload_floor(*times["own"][2:])
        if mine < FLOOR_SHARE * floor_ms:
            self.flag(nn, f"ch{nn}: speed refused: {mine:.4f} ms is under the workload's floor "
                      f"({floor_ms:.4f} ms: {why})")
            return (0.0, f"refused: {mine:.4f} ms is below what the memory system allows "
                    f"({floor_ms:.4f} ms)", "graded")
        if mine > 0:  # the leaderboard's value: the reference's time over the student's
            self.leaderboard.append((nn, theirs / mine))
        r = mine / theirs
        share = 1.0 if r <= full else 0.0 if r >= zero else (zero - r) / (zero - full)
        note = f"{r:.2f}x the solution's time ({mine:.4f} ms against {theirs:.4f} ms)"
        return points * share, note, "graded"


def workload_floor(moved, copy_gbps, gpus, fmas, fma_peak):
    """The least time the bench workload can take, in ms, and why: its bytes at the copy bandwidth
    measured in the same run, or its fewest multiply-adds at the FP32 FMA peak, whichever binds,
    the work shared by every GPU the chapter's kernel uses (a value the program could not measure
    is 0 and bounds nothing)."""
    gpus = max(gpus, 1)
    memory_ms = moved / (copy_gbps * 1e9 * gpus) * 1e3 if copy_gbps > 0 else 0.0
    compute_ms = fmas / (fma_peak * gpus) * 1e3 if fma_peak > 0 else 0.0
    if compute_ms > memory_ms:
        return compute_ms, f"{fmas:.0f} multiply-adds at {fma_peak / 1e12:.1f} T/s x {gpus:.0f} GPUs"
    return memory_ms, f"{moved:.0f} bytes at {copy_gbps:.0f} GB/s x {gpus:.0f} GPUs"


def compiler_excerpt(data, g, chapter, rc):
    """What the student may see of a failed build: the compiler's lines about the student's own
    file (an error line and the source lines it quotes under it), never another file's lines."""
    if rc == 124:
        return "the build ran past its time limit"
    prefix = f"{g}/src/{chapter}/"
    shown, keep = [], False
    for line in data.decode("utf-8", "replace").splitlines():
        # the student's own file lies in that folder itself: a name with a "/" after the prefix
        # ("../../etc/passwd") is another file, reached through a path
        if line.startswith(prefix) and "/" not in re.split(r"[(:]", line[len(prefix):], 1)[0]:
            shown.append(line[len(prefix):])
            keep = True
        elif keep and line.startswith(" ") and line.strip():
            shown.append(line)
        else:
            keep = False
        if len(shown) >= 20:
            break
    if not shown:
        return "(no error in your file itself: the build stopped in a workbook file or ran out of a limit)"
    return "compiler output:\n" + "\n".join(export.shown(s) for s in shown)


def gpus_needed(argv):
    """How many GPUs a test's command needs: the N of tests/need_gpus.sh N in it, else 1."""
    for k, arg in enumerate(argv[:-1]):
        if arg.endswith("/need_gpus.sh") and argv[k + 1].isdigit():
            return int(argv[k + 1])
    return 1


def run_error(rc, data, token):
    """Why a failed run is an error (JUnit's word) rather than a wrong result: how it ended when
    that was not through the program's own verdict (a signal, an exit before any verdict line of
    its token: a crash, a CUDA error, a refused start). Empty when its verdict came: a failing
    verdict, or a passing one that a checker around the program (a sanitizer) overruled."""
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        why = {"SIGXFSZ": ": it wrote more than its file-size limit",
               "SIGXCPU": ": it used up its CPU time"}.get(name, "")
        return f"killed by {name}{why}"
    if rc == 77:
        return "it exited 77 (skipped: no usable GPU) on a machine whose GPUs can run it"
    if re.search(rb"^wb-grade " + re.escape(token.encode()) + rb" verdict ", data, re.M):
        return ""
    return f"it ended with exit code {rc} and no verdict (a crash or a CUDA error: see its log)"


def strip_tokens(data):
    """A log as the student sees it: the grader's token lines left out."""
    return "\n".join(l for l in data.decode("utf-8", "replace").splitlines() if not l.startswith("wb-grade "))


def test_list(chapters, exercise_dir):
    """processes.test_list in the grader's clean environment; a list that fails stops the run."""
    try:
        return processes.test_list(chapters, exercise_dir, clean_environment())
    except RuntimeError as e:
        die(f"tests/ctest_list.sh failed: {e}")


# ---- the rubric ----------------------------------------------------------------------------------

class Book:
    """What every student is graded against: chapters, pristine files, rubric, hidden tests."""
    def __init__(self, chapters, rubric_path, hidden_path, graded):
        self.chapters = chapters
        self.graded = graded
        self.gpu_count = 0  # the machine's usable GPUs (main sets it): where an exit 77 is true
        self.pristine = {}
        for c in graded:
            folder = os.path.join("exercises", c)
            self.pristine[c] = {n: open(os.path.join(folder, n), encoding="utf-8").read()
                                for n in sorted(os.listdir(folder)) if n.endswith(".cu")}
        self.rubric, self.rubric_lines = [], []  # the lines' fields, and their line numbers
        self.rubric_path, self.hidden_path = rubric_path, hidden_path
        known = {c[:2] for c in chapters}
        try:
            lines = open(rubric_path, encoding="utf-8", errors="replace").read().replace("\r", "").split("\n")
        except OSError as e:
            die(f"cannot read the rubric '{rubric_path}': {e.strerror}")
        for number_, line in enumerate(lines, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            f = line.split()
            ok = f[0] in known and len(f) >= 3 and re.fullmatch(r"[0-9]+(\.[0-9]+)?", f[2])
            if ok and f[1] == "speed":
                ok = len(f) == 5 and all(re.fullmatch(r"[0-9]+(\.[0-9]+)?", x) for x in f[3:]) \
                    and float(f[4]) > float(f[3])
            elif ok:
                ok = len(f) == 4
                try:
                    re.compile(f[3])
                except (re.error, IndexError):
                    ok = False
            if not ok:
                die(f"{rubric_path}: line {number_}: not 'NN group points regex' or "
                    f"'NN speed points full zero' (NN a chapter): {line[:80]}")
            self.rubric.append(f)
            self.rubric_lines.append(number_)
        for c in graded:  # a chapter with nothing to score would grade as 0 / 0 for everyone
            if not any(f[0] == c[:2] and f[1] != "speed" for f in self.rubric):
                die(f"{rubric_path}: no line scores chapter {c[:2]} (it would grade 0 / 0): add "
                    "its groups, or grade the others with GRADE_CHAPTERS")
        self.patterns = [f[3] for f in self.rubric if f[1] != "speed"]
        self.hidden = []
        if hidden_path:
            try:
                text = open(hidden_path, encoding="utf-8").read()
            except (OSError, UnicodeDecodeError) as e:
                die(f"cannot read HIDDEN_TESTS '{hidden_path}': {e}")
            for number_, line in enumerate(text.split("\n"), 1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                f = line.split(None, 2)
                if len(f) < 2 or not re.fullmatch(r"[0-9][0-9]", f[0]) or \
                        not re.fullmatch(r"[A-Za-z0-9_]+", f[1]):
                    die(f"{hidden_path}: line {number_}: not 'NN name arguments...' "
                        "(name: letters, digits, _)")
                if f[0] not in known:
                    die(f"{hidden_path}: line {number_}: chapter {f[0]} is not one of this "
                        f"workbook's ({' '.join(sorted(known))})")
                try:
                    args = shlex.split(f[2]) if len(f) > 2 else []
                except ValueError as e:
                    die(f"{hidden_path}: line {number_}: {e}")
                self.hidden.append((f[0], f[1], args))

    def key_of(self, chapter):
        """What a chapter's grade depends on besides the submission: the workbook's code (every
        file the build, the tests or the grader read), the rubric's and the hidden tests' lines
        of the chapter, and the settings of the run that change a grade."""
        if not hasattr(self, "workbook"):
            h = hashlib.sha256()
            for top in ("Makefile", "common", "grading", "tests", "chapters", "solutions", "exercises"):
                for folder, dirs, files in sorted(os.walk(top)):
                    dirs.sort()
                    dirs[:] = [d for d in dirs if d not in ("figures", "__pycache__")]
                    for name in sorted(files):
                        if name.endswith(".md"):
                            continue
                        path = os.path.join(folder, name)
                        h.update(path.encode() + b"\0" + open(path, "rb").read())
                if os.path.isfile(top):
                    h.update(top.encode() + b"\0" + open(top, "rb").read())
            self.workbook = h.hexdigest()
        nn = chapter[:2]
        lines = [" ".join(f) for f in self.rubric if f[0] == nn]
        lines += [f"{n} {name} {args}" for n, name, args in self.hidden if n == nn]
        return hashlib.sha256("\n".join([self.workbook, self.settings_key] + lines).encode()).hexdigest()

    def check_before_grading(self, graded, gpu):
        """The instructor's files, tried before any student is built: every rubric line of a
        graded chapter selects at least one test (a typo, or hidden lines without HIDDEN_TESTS,
        would score every student 0), and every hidden test passes on the reference solution (a
        wrong argument would count as every student's failure; needs a GPU)."""
        names = [t["name"] for t in test_list(graded, os.path.join(ROOT, "build"))
                 if "exercise" in t["labels"]]
        names += [f"ch{nn}_hidden_{name}" for nn, name, _ in self.hidden]
        for f, number_ in zip(self.rubric, self.rubric_lines):
            nn = f[0]
            if f[1] == "speed" or not any(c.startswith(nn + "_") for c in graded):
                continue
            if not any(n.startswith(f"ch{nn}_") and re.search(f[3], n) for n in names):
                why = (" (no HIDDEN_TESTS given)" if "hidden" in f[3] and not self.hidden_path
                       else "")
                die(f"{self.rubric_path}: line {number_}: '{f[3]}' selects no test "
                    f"of chapter {nn}{why}: every student would score 0 there")
        if not gpu:
            return
        for nn, name, args in self.hidden:
            chapter = next((c for c in graded if c.startswith(nn + "_")), None)
            if chapter is None:
                continue
            try:
                r = subprocess.run([os.path.join("build", f"ch{chapter}")] + args, cwd=ROOT,
                                   capture_output=True, env=clean_environment(),
                                   timeout=TEST_LIMIT_S + 30)
            except subprocess.TimeoutExpired:
                die(f"{self.hidden_path}: hidden test {nn} {name} runs over {TEST_LIMIT_S + 30} s on "
                    "the reference solution: fix it before grading anyone")
            if r.returncode not in (0, 77):
                said = (r.stdout + r.stderr).decode("utf-8", "replace").strip().splitlines()
                last = export.shown(said[-1][:160]) if said else "no output"
                die(f"{self.hidden_path}: hidden test {nn} {name} fails on the reference solution "
                    f"(exit {r.returncode}: {last}): fix it before grading anyone")

    def score(self, s, gpu, gpus):
        """Each rubric line of the chapters graded this time: the student's groups."""
        tests = getattr(s, "all_tests", [])
        for f in self.rubric:
            nn, group = f[0], f[1]
            chapter = next((c for c in s.chapters if c.startswith(nn + "_")), None)
            if chapter is None:
                continue
            points = float(f[2])
            row = {"chapter": nn, "group": group, "score": 0.0, "max": points, "state": "graded",
                   "visibility": "visible"}
            if nn in s.problems:
                row["note"] = s.problems[nn].splitlines()[0]
                s.groups.append(row)
                continue
            if group == "speed":
                row["note"] = "SPEED"
                row["speed"] = (float(f[3]), float(f[4]))
                s.groups.append(row)
                continue
            mine = [t for t in tests if re.search(f[3], t["name"]) and t["name"].startswith(f"ch{nn}_")]
            for t in mine:
                s.tests.append({"chapter": nn, "group": group, "name": t["name"], "status": t["status"],
                                "seconds": t["seconds"], "hidden": "hidden" in t["labels"],
                                "hint": t["hint"], "tail": t["tail"], "error": t.get("error", "")})
            if any("hidden" in t["labels"] for t in mine):
                row["visibility"] = s.settings["hidden_visibility"]
            counted = [t for t in mine if t["status"] != "n/a" and not (gpu and t["status"] == "skipped")]
            passed = sum(t["status"] == "pass" for t in counted)
            skipped = sum(t["status"] == "skipped" for t in mine)
            if not counted and mine:
                row.update(state="n/a", note="n/a: none of its tests can run here (they need more GPUs"
                           " than this machine has, or masks this kernel does not take)")
            elif not mine:
                row["note"] = f"no test matched '{f[3]}': check the rubric"
            else:
                row["score"] = points * passed / len(counted)
                row["note"] = f"{passed} of {len(counted)} tests passed"
                if skipped and not gpu:
                    row["note"] += f"; {skipped} not run: no usable GPU"
                elif skipped:
                    row["note"] += f" ({skipped} more need more GPUs than this machine has)"
            s.groups.append(row)
        for row in s.groups:
            if row["note"] != "SPEED":
                continue
            others = [x for x in s.groups if x["chapter"] == row["chapter"] and x["note"] != "SPEED"
                      and x["state"] != "n/a"]
            if not others:  # nothing of the kernel was checked here: its speed is not graded either
                row.update(state="n/a", note="n/a: none of the chapter's tests can run here, so its "
                           "speed is not graded")
                continue
            if not gpu:  # its tests did not run either: it says so rather than that they failed
                row.update(state="not run", note="not measured: no usable GPU")
                continue
            if any(x["score"] < x["max"] for x in others):
                row.update(state="not run", note="not measured: the kernel does not pass every test yet")
                continue
            chapter = next(c for c in s.chapters if c.startswith(row["chapter"] + "_"))
            full, zero = row.pop("speed")
            row["score"], row["note"], row["state"] = s.speed(chapter, full, zero, row["max"], gpus)
        for row in s.groups:
            row.pop("speed", None)


# ---- the main flow -------------------------------------------------------------------------------

def tsv(*fields):
    return "\t".join(export.shown(str(f)) for f in fields) + "\n"


def write_tables(s):
    """The plain tables beside the exports, for instructors' own scripts."""
    with open(os.path.join(s.g, "groups.tsv"), "w") as f:
        for x in s.groups:
            f.write(tsv(x["chapter"], x["group"], export.number(x["score"]), export.number(x["max"]),
                        x["note"], x["state"]))
    with open(os.path.join(s.g, "tests.tsv"), "w") as f:
        for t in s.tests:
            f.write(tsv(t["chapter"], t["group"], t["name"], t["status"], f"{t['seconds']:.2f}"))
    with open(os.path.join(s.g, "chapters.tsv"), "w") as f:
        for nn, state in sorted(s.state.items()):  # every chapter graded, this run or before
            f.write(tsv(nn, state))
    with open(os.path.join(s.g, "student"), "w") as f:
        f.write(export.shown(s.name) + "\n")


def claim(folder, kind, source):
    """Takes build/grade/FOLDER for this run: refused while another run holds it (one line: the
    second run never waits for hours unseen), or when it holds another run's results (a class
    where one student was, say); kept when it holds this same run's earlier results, whose
    chapters are then resumed (Student.records). Returns the lock, held until the process ends."""
    os.makedirs(OUT, exist_ok=True)
    lock = open(os.path.join(OUT, f".{folder}.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        die(f"another make grade is writing {OUT}/{folder}: wait for it to end")
    path = os.path.join(OUT, folder)
    stamp = f"{kind}\t{source}\n"
    if os.path.lexists(path):
        try:
            earlier = open(os.path.join(path, ".grade_run"), errors="replace").read()
        except OSError:
            earlier = None
        if earlier != stamp:
            kind_, _, source_ = (earlier or "").strip().partition("\t")
            what = f"a {kind_} graded from {source_}" if source_ else "not a make grade run's"
            die(f"{path} holds other results ({what}): move it away first, or grade from a "
                "folder of another name")
        return lock
    os.makedirs(path)
    with open(os.path.join(path, ".grade_run"), "w") as f:
        f.write(stamp)
    return lock


def main():
    env = os.environ
    chapters = env.get("WB_GRADE_CHAPTER_LIST", "").split()
    submission = env.get("WB_GRADE_SUBMISSION", "")
    submissions = env.get("WB_GRADE_SUBMISSIONS", "")
    rubric = env.get("WB_GRADE_RUBRIC", "") or "grading/rubric.txt"
    hidden = env.get("WB_GRADE_HIDDEN_TESTS", "")
    roster_path = env.get("WB_GRADE_ROSTER", "")
    jobs = env.get("WB_GRADE_JOBS", "") or str(min(os.cpu_count() or 2, MAX_JOBS))
    if not re.fullmatch(r"[1-9][0-9]{0,3}", jobs):
        die(f"JOBS='{jobs}' is not a positive whole number (no leading zero)")
    if int(jobs) > MAX_JOBS:
        print(f"grade: JOBS={jobs}: {MAX_JOBS} at most (more GPU processes at once crowd the GPUs "
              "into their time limits)")
        jobs = str(MAX_JOBS)
    settings = {"time_limit": seconds_setting("GRADE_TIME_LIMIT", TEST_LIMIT_S),
                "build_limit": seconds_setting("GRADE_BUILD_LIMIT", 300),
                "allow_drift": env.get("GRADE_ALLOW_DRIFT", "") == "1",
                "hidden_visibility": env.get("GRADE_HIDDEN_VISIBILITY", "") or "after_published"}
    seed = env.get("GRADE_SEED", "")
    if seed and not re.fullmatch(r"0|[1-9][0-9]{0,17}", seed):
        die(f"GRADE_SEED='{seed}' is not a whole number (0 to 18 digits, no leading zero)")
    # Without GRADE_SEED a run draws its own, recorded with each chapter's results (flags.json):
    # that seed given back regrades with the same data.
    settings["seed"] = int(seed) if seed else secrets.randbelow(10 ** 18)
    if settings["hidden_visibility"] not in ("hidden", "after_due_date", "after_published", "visible"):
        die(f"GRADE_HIDDEN_VISIBILITY='{settings['hidden_visibility']}' is not one of hidden, "
            "after_due_date, after_published, visible")
    if submission and submissions:
        die("give SUBMISSION or SUBMISSIONS, not both")
    for name, value in (("SUBMISSION", submission), ("SUBMISSIONS", submissions)):
        if value and not os.path.isdir(value):
            die(f"{name} '{value}' is not a folder")
        if value:
            real = os.path.realpath(value) + os.sep
            for own in ("solutions", OUT):
                if real.startswith(os.path.realpath(own) + os.sep):
                    die(f"{name} '{value}' lies in the workbook's {own}/: copy it elsewhere first")
    if not os.path.isfile(rubric):
        die(f"no rubric '{rubric}' (RUBRIC=path; the default is grading/rubric.txt)")
    if hidden and not os.path.isfile(hidden):
        die(f"HIDDEN_TESTS '{hidden}' is not a file")
    roster = None
    if roster_path:  # read before anyone is graded: a wrong roster stops the run at once
        if not submissions:
            die("ROSTER maps a class's folders to students: give it with SUBMISSIONS")
        if not os.path.isfile(roster_path):
            die(f"ROSTER '{roster_path}' is not a file")
        try:
            roster = export.read_roster(roster_path)
        except ValueError as e:
            die(f"ROSTER '{roster_path}': {e}")
    wanted = env.get("GRADE_CHAPTERS", "").split()
    graded = [c for c in chapters if not wanted or c[:2] in wanted]
    if not graded:
        die(f"GRADE_CHAPTERS='{env.get('GRADE_CHAPTERS', '')}' names no chapter")
    book = Book(chapters, rubric, hidden, graded)
    jobs = int(jobs)
    gpu = os.path.isfile(os.path.join(ROOT, "build", "devinfo")) and \
        subprocess.run(["build/devinfo"], capture_output=True, cwd=ROOT).returncode == 0
    gpu_ids = visible_gpus() if gpu else []
    book.gpu_count = len(gpu_ids)
    # A kept grade stands while these are the same (GRADE_SEED only when given: a run that was
    # stopped resumes under a seed of its own).
    book.settings_key = repr([settings[k] for k in ("time_limit", "build_limit", "allow_drift",
                                                     "hidden_visibility")] +
                             [seed, gpu, len(gpu_ids), env.get("WB_GRADE_SM", "")])
    book.check_before_grading(graded, gpu)

    # who, and where their results go
    if submissions:
        class_folder = folder_of(os.path.basename(os.path.realpath(submissions)))
        lock = claim(class_folder, "class", os.path.realpath(submissions))
        base = os.path.join(OUT, class_folder)
        members, links = class_members(submissions)
        for name in links:
            print(f"grade: {export.shown(name)} is a link, not a student's folder: not graded")
        people = [(name, path, folder_of(name)) for name, path in members]
        if not people:
            die(f"SUBMISSIONS '{submissions}' has no student folders")
        if len({p[2] for p in people}) != len(people):
            die(f"two students in '{submissions}' would share a results folder: rename one of them")
    else:
        source = submission or "exercises"
        name = os.path.basename(os.path.realpath(source))
        lock = claim(folder_of(name), "student", os.path.realpath(source))
        base = OUT
        people = [(name, source, folder_of(name))]
    # what is kept: a chapter graded before under the same key is not graded again
    students, keys = [], {}
    for n, p, f in people:
        s = Student(n, os.path.realpath(p), os.path.join(base, f), [], settings)
        kept = s.records()
        keys[s] = {c: s.key_of(c, book) for c in graded}
        s.chapters = [c for c in graded if kept.get(c[:2], {}).get("key") != keys[s][c]]
        students.append(s)
    todo = sum(len(s.chapters) for s in students)
    if todo < len(students) * len(graded):
        print(f"grade: {len(students) * len(graded) - todo} of {len(students) * len(graded)} "
              "students' chapters were graded before with the same files, rubric, hidden tests, "
              "settings and workbook: kept")
    for s in students:
        os.makedirs(s.g, exist_ok=True)
        for c in s.chapters:
            s.collect(c, book.pristine[c])

    # builds: the renamed solution once (one run at a time writes it), then every student's
    # chapters side by side
    renamed = [f"build/{c}/renamed/{n[:-3]}.o" for c in graded for n in book.pristine[c]
               if os.path.isfile(f"solutions/{c}/{n}")] if todo else []
    if renamed:
        with open(os.path.join(OUT, ".renamed.lock"), "w") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            log = os.path.join(base if submissions else students[0].g, ".renamed.log")
            r = subprocess.run(["make", "-s", f"-j{jobs}"] + renamed, cwd=ROOT, env=clean_environment(),
                               stdout=open(log, "w"), stderr=subprocess.STDOUT)
            if r.returncode != 0:
                die(f"the solutions' renamed objects do not build ({log} says why)")
    work = [(s, c) for s in students for c in s.ready]
    built, progress = [0], threading.Lock()

    def build(student, chapter):  # a line as each build ends: a class's builds take minutes
        started = time.monotonic()
        student.build(chapter, book)
        CLOCK.add("builds", time.monotonic() - started)
        with progress:
            built[0] += 1
            state = student.state.get(chapter[:2], "graded")
            print(f"grade: built {built[0]} of {len(work)}: {export.shown(student.name)}, chapter "
                  f"{chapter[:2]}{'' if state == 'graded' else ' (' + state + ')'}", flush=True)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda sc: build(*sc), work))
    building = time.monotonic() - started

    # tests: students side by side, one a GPU; the tests of all of them share the JOBS cores
    cores, gpus = Cores(jobs), GpuShare()
    free = queue.Queue()
    for g in gpu_ids or [None]:
        free.put(g)

    def grade(s):
        s.gpu = free.get()
        try:
            s.run_tests(book, cores, gpus)
            book.score(s, gpu, gpus)
            s.save_records(keys[s])
        finally:
            free.put(s.gpu)
        finish(s)

    def finish(s):  # the student's files from every chapter's record; the gradebook so far
        s.adopt(s.records())
        write_tables(s)
        with progress:
            print(export.write_student(s.g, s.__dict__), end="")
            if not gpu and s.chapters:
                print("grade: no usable GPU here: the GPU tests did not run, and their groups score 0")
            print(f"grade: {export.shown(s.name)}: results in {s.g} (results.json, junit.xml, "
                  "summary.txt; yours alone: flags.txt, flags.json)", flush=True)
            if submissions:
                write_gradebook(base, students, roster, quiet=True)
        if env.get("GRADE_KEEP", "") != "1":
            shutil.rmtree(os.path.join(s.g, "build"), ignore_errors=True)
            shutil.rmtree(os.path.join(s.g, "src"), ignore_errors=True)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, len(gpu_ids))) as pool:
        list(pool.map(lambda s: grade(s) if s.chapters else finish(s), students))
    testing = time.monotonic() - started
    if submissions:
        write_gradebook(base, students, roster)
    if work:
        print(f"grade: time: builds {building:.0f} s ({len(work)} chapters, {CLOCK['builds']:.0f} s "
              f"of builds side by side); tests and speed runs {testing:.0f} s ({CLOCK['tests']:.0f} s "
              f"of test processes side by side; speed runs {CLOCK['speed']:.0f} s, every GPU held "
              f"alone, after {CLOCK['speed_wait']:.0f} s of waiting for the GPUs)", flush=True)
    lock.close()


def visible_gpus():
    """The GPUs this run may use, as CUDA_VISIBLE_DEVICES names them: its own list where set,
    else every GPU nvidia-smi lists."""
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given is not None:
        return [g.strip() for g in given.split(",") if g.strip()]
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(k) for k, line in enumerate(r.stdout.splitlines()) if line.startswith("GPU ")]


def write_gradebook(base, students, roster, quiet=False):
    """The class's gradebooks from the records on disk (never from a student being graded):
    rewritten as each student ends, so that a run stopped halfway leaves the students graded so
    far in them."""
    rows = []
    for s in students:
        records = s.records()
        if not records:
            continue
        scores, maxima = {}, {}
        for x in (x for r in records.values() for x in r["groups"]):
            if x["state"] != "n/a":
                scores[x["chapter"]] = scores.get(x["chapter"], 0) + x["score"]
                maxima[x["chapter"]] = maxima.get(x["chapter"], 0) + x["max"]
        rows.append({"name": s.name, "scores": scores, "maxima": maxima,
                     "flags": [f for _, r in sorted(records.items()) for f in r["flags"]],
                     "missing": {nn for nn, r in records.items() if r["absent"]}})
    text = export.write_gradebook(base, rows, roster)
    if not quiet:
        print(text, end="")


class Clock:
    """Where a run's time goes, summed over its threads: the builds, the tests' processes, the
    speed runs (with every GPU held alone) and the waits for them. Printed at the end: the
    figures that tell an instructor whether a class is bound by its builds, its tests or its
    timed runs (make grade runs one of each kind at a time only where it must)."""

    def __init__(self):
        self.sums, self.lock = {}, threading.Lock()

    def add(self, what, seconds):
        with self.lock:
            self.sums[what] = self.sums.get(what, 0.0) + seconds

    def __getitem__(self, what):
        return self.sums.get(what, 0.0)


CLOCK = Clock()


class GpuShare:
    """The GPUs, shared by the tests of every student graded at once, and held alone by a speed
    run: no other student's work runs on any GPU while a time is measured (a waiting speed run
    goes before new tests, so it is never starved)."""

    def __init__(self):
        self.users, self.alone_now, self.waiting = 0, False, 0
        self.cond = threading.Condition()

    @contextlib.contextmanager
    def shared(self):
        with self.cond:
            self.cond.wait_for(lambda: not self.alone_now and not self.waiting)
            self.users += 1
        try:
            yield
        finally:
            with self.cond:
                self.users -= 1
                self.cond.notify_all()

    @contextlib.contextmanager
    def alone(self):
        with self.cond:
            self.waiting += 1
            self.cond.wait_for(lambda: not self.alone_now and not self.users)
            self.waiting -= 1
            self.alone_now = True
        try:
            yield
        finally:
            with self.cond:
                self.alone_now = False
                self.cond.notify_all()


if __name__ == "__main__":
    main()
