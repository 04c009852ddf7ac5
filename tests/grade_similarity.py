"""grade_similarity.py: `make similarity` flags copies and leaves honest work alone.

  python3 tests/grade_similarity.py ROOT SCRATCH      (a CPU test; SCRATCH is emptied first)

Builds a class in SCRATCH: a verbatim copy of the reference solutions (a whole workbook), a copy
of chapters 01 and 03 with the student's variables renamed and lines moved, two students sharing
one answer of their own (the second renamed and re-spaced), a copy of the reference padded with
code of its own, two honest students whose answers to chapters 01 and 03 are correct and written
differently, an untouched workbook, an answer too small to compare, and hostile entries: a name
with control characters whose copy holds a byte that is not UTF-8, links (a student folder, a
chapter folder, a kernel file) that must not be followed, a file over 1 MiB, one with too many
tokens, broken TODO markers. Runs grading/similarity.py as make does (WB_SIMILARITY_*) and checks
the flagged pairs (and only those), every pair's value against the threshold, the line ranges,
the notes, the export for MOSS and JPlag, that the class folder is left as it was, and that bad
usage exits 2 with one line; then `make similarity` itself on a folder whose name holds a space,
quotes and $(...).
"""
import json
import os
import re
import shutil
import subprocess
import sys

root, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "grading"))
import gate  # noqa: E402
import similarity  # noqa: E402

shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []
CH01, CH03 = "01_basic_1d/conv1d_basic.cu", "03_tiled_halo/conv1d_tiled.cu"
REF = similarity.REFERENCE


def check(ok, what):
    if not ok:
        failures.append(what)


def fill(key, blocks):
    """The exercise file with code written into its TODO blocks ({number: code})."""
    out = []
    for line in open(os.path.join(root, "exercises", key)).read().split("\n"):
        m = gate.MARKER.match(line)
        if m and m.group(2) == "end" and int(m.group(1)) in blocks:
            out += ["    " + c for c in blocks[int(m.group(1))].strip("\n").split("\n")]
        out.append(line)
    return "\n".join(out)


def rename(key, names, extra_line_in=None):
    """The reference file with the student's own names changed inside its TODO blocks, and a
    comment line and a blank line added at the top of block extra_line_in (lines move)."""
    out, inside = [], None
    for line in open(os.path.join(root, "solutions", key)).read().split("\n"):
        m = gate.MARKER.match(line)
        if m:
            inside = m.group(1) if m.group(2) == "begin" else None
            out.append(line)
            if inside == extra_line_in:
                out += ["    // my own idea", ""]
            continue
        if inside:
            for old, new in names.items():
                line = re.sub(r"\b%s\b" % old, new, line)
        out.append(line)
    return "\n".join(out)


# ---- the answers -------------------------------------------------------------------------------
# Two students sharing an answer of their own (carol's, dave copies it renamed and re-spaced).
CAROL_01 = {1: "int pos = blockIdx.x * blockDim.x + threadIdx.x;\nif (pos >= n) { return; }",
            2: "float result = 0.0f;\nint j = 0;\nwhile (j < mask_width) {\n"
               "    int at = pos - mask_width / 2 + j;\n"
               "    if (at >= 0) { if (at < n) { result = result + mask[j] * in[at]; } }\n"
               "    j = j + 1;\n}",
            3: "out[pos] = result;"}
CAROL_03 = {1: "int shift = (int)blockDim.x - halo_left;\nif ((int)threadIdx.x >= shift) {\n"
               "    int from = (int)(blockIdx.x * blockDim.x) - halo_left + ((int)threadIdx.x - shift);\n"
               "    float got = 0.0f;\n    if (from >= 0) got = in[from];\n"
               "    s_tile[(int)threadIdx.x - shift] = got;\n}",
            2: "float mine = 0.0f;\nif (i < n) mine = in[i];\ns_tile[threadIdx.x + halo_left] = mine;",
            3: "if ((int)threadIdx.x < halo_right) {\n    int from = i + (int)blockDim.x;\n"
               "    float got = 0.0f;\n    if (from < n) got = in[from];\n"
               "    s_tile[halo_left + (int)blockDim.x + (int)threadIdx.x] = got;\n}",
            4: "__syncthreads();",
            5: "float result = 0.0f;\nint j = 0;\nwhile (j < mask_width) {\n"
               "    result = result + c_mask[j] * s_tile[threadIdx.x + j];\n    j = j + 1;\n}\n"
               "if (i < n) { out[i] = result; }"}


def respaced(blocks, names):
    out = {}
    for n, code in blocks.items():
        for old, new in names.items():
            code = re.sub(r"\b%s\b" % old, new, code)
        out[n] = "// dave's version\n" + code.replace(" = ", "=").replace(") {", ")\n{")
    return out


DAVE_NAMES = {"pos": "p", "result": "accumulated", "at": "where", "shift": "offset", "from": "src",
              "got": "val", "mine": "own", "j": "q"}
# Honest answers, correct and written each in its own way.
ERIN_01 = {1: "const int gid = threadIdx.x + blockIdx.x * blockDim.x;\nif (gid >= n) return;",
           2: "float acc = 0.0f;\nconst int half = mask_width / 2;\n"
              "for (int m = 0; m < mask_width; m++) {\n    const int src = gid + m - half;\n"
              "    acc += (src >= 0 && src < n) ? mask[m] * in[src] : 0.0f;\n}",
           3: "out[gid] = acc;"}
ERIN_03 = {1: "// one loop loads the whole tile, halos included\n"
              "for (int t = threadIdx.x; t < (int)blockDim.x + mask_width - 1; t += blockDim.x) {\n"
              "    int g = (int)(blockIdx.x * blockDim.x) + t - halo_left;\n"
              "    s_tile[t] = (g >= 0 && g < n) ? in[g] : 0.0f;\n}",
           4: "__syncthreads();",
           5: "if (i >= n) return;\nfloat acc = 0.0f;\n#pragma unroll 4\n"
              "for (int m = 0; m < mask_width; m++) acc += s_tile[threadIdx.x + m] * c_mask[m];\n"
              "out[i] = acc;"}
FRANK_01 = {1: "int idx = blockDim.x * blockIdx.x + threadIdx.x;\nif (!(idx < n)) return;",
            2: "float total = 0;\nint lo = idx - mask_width / 2;\nint first = lo < 0 ? -lo : 0;\n"
               "int last = lo + mask_width > n ? n - lo : mask_width;\n"
               "for (int j = first; j < last; ++j) total += mask[j] * in[lo + j];",
            3: "out[idx] = total;"}
FRANK_03 = {1: "if (threadIdx.x < halo_left) {  // the first threads, not the last\n"
               "    int src = (int)(blockIdx.x * blockDim.x) - halo_left + (int)threadIdx.x;\n"
               "    s_tile[threadIdx.x] = src < 0 ? 0.0f : in[src];\n}",
            2: "float v = 0;\nif (i < n) v = in[i];\ns_tile[threadIdx.x + halo_left] = v;",
            3: "if ((int)threadIdx.x >= (int)blockDim.x - halo_right) {\n    int src = i + halo_right;\n"
               "    s_tile[threadIdx.x + halo_left + halo_right] = src < n ? in[src] : 0.0f;\n}",
            4: "__syncthreads();",
            5: "float total = 0;\nfor (int j = mask_width - 1; j >= 0; --j) "
               "total += c_mask[j] * s_tile[threadIdx.x + j];\nif (i < n) out[i] = total;"}
# Code of its own padded onto a copy of the reference's chapter 03.
PADDING = ("\n    float check_sum = 0.0f;\n    for (int q = 0; q < 4; q++) { check_sum += s_tile[q] * 0.5f; }\n"
           "    if (check_sum == 12345.0f && threadIdx.x == 7) { s_tile[0] = check_sum - 1.0f; }\n")

klass = os.path.join(scratch, "grade_similarity_class")  # results: build/similarity/<that name>/


def put(student, key, text, layout="flat"):
    folder = os.path.join(klass, student, *(["exercises"] if layout == "whole" else []), os.path.dirname(key))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, os.path.basename(key)), "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())


shutil.copytree(os.path.join(root, "solutions"), os.path.join(klass, "verbatim", "exercises"))
shutil.copytree(os.path.join(root, "exercises"), os.path.join(klass, "gina", "exercises"))
put("renamed", CH01, rename(CH01, {"i": "gidx", "window_start": "first_tap", "sum": "acc", "j": "tap",
                                   "k": "src"}, extra_line_in="2"))
put("renamed", CH03, rename(CH03, {"k": "g", "sum": "total", "j": "t"}, extra_line_in="5"))
put("carol", CH01, fill(CH01, CAROL_01))
put("carol", CH03, fill(CH03, CAROL_03))
put("dave", CH01, fill(CH01, respaced(CAROL_01, DAVE_NAMES)))
put("dave", CH03, fill(CH03, respaced(CAROL_03, DAVE_NAMES)))
put("erin", CH01, fill(CH01, ERIN_01), "whole")
put("erin", CH03, fill(CH03, ERIN_03), "whole")
put("frank", CH01, fill(CH01, FRANK_01))
put("frank", CH03, fill(CH03, FRANK_03))
reference_03 = open(os.path.join(root, "solutions", CH03)).read()
put("padded", CH03, reference_03.replace("    // ---- TODO 5 end", PADDING.strip("\n") + "\n    // ---- TODO 5 end"))
put("tiny", CH01, fill(CH01, {1: "int i = blockIdx.x * blockDim.x + threadIdx.x;\nif (i >= n) return;"}))
# hostile entries
MALLORY = "mal\x1b[31mlory\tx"
reference_01 = open(os.path.join(root, "solutions", CH01)).read()
put(MALLORY, CH01, reference_01.encode().replace(b"float sum", b"/* \xff */ float sum"))
os.symlink(os.path.join(root, "solutions", "03_tiled_halo"), os.path.join(klass, MALLORY, "03_tiled_halo"))
os.symlink("verbatim", os.path.join(klass, "alias"))
os.makedirs(os.path.join(klass, "oscar", "01_basic_1d"))
os.symlink(os.path.join(root, "solutions", CH01), os.path.join(klass, "oscar", CH01))
put("oscar", CH03, reference_03.replace("// ---- TODO 2 end", "// (the end marker is gone)"))
put("huge", CH01, fill(CH01, {3: "out[0] = 0.0f;"}) + "\n//" + "x" * (1 << 21) + "\n")
put("huge", CH03, fill(CH03, {5: "s_tile[0] = 0.0f;\n" * 1000}))
with open(os.path.join(klass, "README.txt"), "w") as f:
    f.write("not a student\n")


def snapshot(top):
    seen = {}
    for folder, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(folder, n)
            st = os.lstat(p)
            seen[p] = (st.st_mtime_ns, st.st_size)
    return seen


before = snapshot(klass)


def run(submissions, threshold=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WB_SIMILARITY_")}
    env["WB_SIMILARITY_SUBMISSIONS"] = submissions
    if threshold is not None:
        env["WB_SIMILARITY_THRESHOLD"] = threshold
    return subprocess.run([sys.executable, os.path.join(root, "grading", "similarity.py")], env=env,
                          capture_output=True, text=True, errors="replace", cwd=scratch)


# ---- every pair, threshold 0 ---------------------------------------------------------------------
out = os.path.join(root, "build", "similarity", os.path.basename(klass))
r = run(klass, "0")
check(r.returncode == 0, f"threshold 0: exit {r.returncode}: {r.stderr.strip()}")
everything = json.load(open(os.path.join(out, "pairs.json")))
value = {(p["file"], p["a"], p["b"]): p for p in everything["pairs"]}


def pair(key, a, b):
    return value.get((key, a, b)) or value.get((key, b, a))


copies = {"01": [(REF, "verbatim"), (REF, "renamed"), ("renamed", "verbatim"), ("carol", "dave"),
                 (REF, similarity.export.shown(MALLORY)), ("verbatim", similarity.export.shown(MALLORY)),
                 ("renamed", similarity.export.shown(MALLORY))],
          "03": [(REF, "verbatim"), (REF, "renamed"), ("renamed", "verbatim"), ("carol", "dave"),
                 (REF, "padded"), ("padded", "verbatim"), ("padded", "renamed")]}
threshold = similarity.DEFAULT_THRESHOLD
for key in (CH01, CH03):
    expected = {frozenset(p) for p in copies[key[:2]]}
    for p in everything["pairs"]:
        if p["file"] != key:
            continue
        copied = frozenset((p["a"], p["b"])) in expected
        if copied:
            check(p["similarity"] >= 0.9, f"{key}: the copy {p['a']} ~ {p['b']} scores {p['similarity']}")
        else:
            check(p["similarity"] < threshold - 0.15,
                  f"{key}: honest pair {p['a']} ~ {p['b']} scores {p['similarity']} (threshold {threshold})")
    for a, b in copies[key[:2]]:
        check(pair(key, a, b) is not None, f"{key}: {a} ~ {b} was not compared")
print("grade_similarity: honest pairs' values: " + ", ".join(
    f"{p['file'][:2]} {p['a']}~{p['b']} {p['similarity']:.2f}" for p in everything["pairs"]
    if p["file"] in (CH01, CH03) and frozenset((p["a"], p["b"])) not in
    {frozenset(x) for x in copies[p["file"][:2]]}))
# the verbatim workbook matches the reference on every file, the rest of the class nowhere else
others = {(p["a"], p["b"]) for p in everything["pairs"] if p["file"] not in (CH01, CH03)}
check(others == {(REF, "verbatim")}, f"pairs outside chapters 01 and 03: {others}")
kernel_files = sorted(f"{c}/{n}" for c in os.listdir(os.path.join(root, "exercises"))
                      for n in os.listdir(os.path.join(root, "exercises", c)) if n.endswith(".cu"))
check(sorted(everything["files"]) == kernel_files, "not every kernel file is in the report's file list")
compared_01 = everything["files"][CH01]["compared"]
check(compared_01 == 8, f"{CH01}: {compared_01} answers compared (8: not tiny, too small, nor huge, too big)")


# line ranges: the code lines of each side's TODO blocks, in its own file
def code_lines(path):
    lines, inside = [], False
    for number, line in enumerate(open(path, encoding="utf-8", errors="replace").read().split("\n"), 1):
        m = gate.MARKER.match(line)
        if m:
            inside = m.group(2) == "begin"
        elif inside and line.strip() and not line.strip().startswith("//"):
            lines.append(number)
    return similarity.line_ranges(similarity.Answer(lines=lines), [(0, len(lines))])


ref01, ref03 = (code_lines(os.path.join(root, "solutions", k)) for k in (CH01, CH03))
p = pair(CH01, REF, "renamed")
check(p and p["a_lines"] == ref01 and p["b_lines"] == code_lines(os.path.join(klass, "renamed", CH01)),
      f"{CH01} reference ~ renamed: lines {p and (p['a_lines'], p['b_lines'])}, not {ref01} and the copy's")
check(p and p["a_lines"] != p["b_lines"], "the renamed copy's lines did not move")
p = pair(CH03, REF, "padded")
check(p and p["a_lines"] == ref03 and p["b_lines"] == ref03,
      f"{CH03} reference ~ padded: lines {p and (p['a_lines'], p['b_lines'])}, not {ref03} (the padding unmatched)")
p = pair(CH03, "carol", "dave")
check(p and p["a_lines"] == code_lines(os.path.join(klass, "carol", CH03)),
      f"{CH03} carol ~ dave: carol's lines {p and p['a_lines']}")
check(p and all(t[4] >= similarity.MIN_MATCH for t in p["tiles"]), "a tile shorter than MIN_MATCH")

# ---- the default threshold: the report, the notes, the export ----------------------------------
r = run(klass)
check(r.returncode == 0, f"default threshold: exit {r.returncode}: {r.stderr.strip()}")
report = open(os.path.join(out, "report.txt"), encoding="utf-8").read()
tsv = open(os.path.join(out, "pairs.tsv"), encoding="utf-8").read()
flagged = json.load(open(os.path.join(out, "pairs.json")))["pairs"]
want = {(k, frozenset(p)) for k in (CH01, CH03) for p in copies[k[:2]]}
want |= {(k, frozenset((REF, "verbatim"))) for k in everything["files"]}
got = {(p["file"], frozenset((p["a"], p["b"]))) for p in flagged}
check(got == want, f"flagged: {sorted(map(str, got - want))} too many, {sorted(map(str, want - got))} missing")
check([p["similarity"] for p in flagged] == sorted((p["similarity"] for p in flagged), reverse=True),
      "the pairs are not highest first")
check(tsv.count("\n") == len(flagged) + 1 and tsv.startswith("similarity\tfile\ta\tb\ta_lines\tb_lines"),
      "pairs.tsv: not a header and a line per flagged pair")
for text, where in ((report, "report.txt"), (tsv, "pairs.tsv"), (r.stdout, "the terminal")):
    check("\x1b" not in text and "mal\\x1b[31mlory\\x09x" in text, f"{where}: the hostile name is not shown escaped")
check(f"{REF} (the solution)" in report and "never a verdict" in report,
      "report.txt does not name the reference or say what it is")
for note in ("mal\\x1b[31mlory\\x09x: 01_basic_1d/conv1d_basic.cu: not UTF-8",
             "mal\\x1b[31mlory\\x09x: 03_tiled_halo/conv1d_tiled.cu: 03_tiled_halo/ is a link",
             "oscar: 01_basic_1d/conv1d_basic.cu: no file 01_basic_1d/conv1d_basic.cu (a regular file)",
             "oscar: 03_tiled_halo/conv1d_tiled.cu: TODO markers broken",
             "huge: 01_basic_1d/conv1d_basic.cu: 01_basic_1d/conv1d_basic.cu is over 1 MiB",
             "huge: 03_tiled_halo/conv1d_tiled.cu: 7000 tokens of TODO code, over 5000"):
    check(note in report, f"report.txt lacks the note '{note}'")
check("alias is a link, not a student's folder: not compared" in r.stdout, "the linked student folder is not said")
check(not any(n.startswith("alias") for n in os.listdir(os.path.join(out, "export", "students"))),
      "the linked student folder was followed")

ex = os.path.join(out, "export")
names = dict(line.split("\t") for line in open(os.path.join(ex, "names.tsv"), encoding="utf-8").read().splitlines())
check(names.get(REF) == REF and names.get("verbatim") == "verbatim" and len(names) == 13,
      f"names.tsv: {sorted(names)}")
mallory_folder = similarity.grade.folder_of(MALLORY)
check(re.fullmatch(r"[A-Za-z0-9._-]+", mallory_folder) and names.get(mallory_folder) == "mal\\x1b[31mlory\\x09x",
      f"the hostile name's export folder: {mallory_folder!r}")
for key in everything["files"]:
    base = open(os.path.join(ex, "base", key), encoding="utf-8").read()
    check(base.count("// ---- TODO") == 2 * base.count(" begin") and "launch" not in base.replace("launcher", ""),
          f"base/{key}: not the TODO text alone")
    check(os.path.isfile(os.path.join(ex, "students", REF, key)) and
          os.path.isfile(os.path.join(ex, "students", "verbatim", key)), f"export/students: {key} missing")
exported = open(os.path.join(ex, "students", "renamed", CH01), encoding="utf-8").read()
check("acc += mask[tap] * in[src]" in exported and "conv1d_basic_launch" not in exported
      and exported.startswith("    // ---- TODO 1 begin"), "the renamed copy's export is not its TODO blocks alone")
check(not os.path.exists(os.path.join(ex, "students", "renamed", "02_constant_mask")),
      "a chapter not handed in was exported")
check(not os.path.exists(os.path.join(ex, "students", "oscar", CH01)), "a linked file was exported")
readme = open(os.path.join(ex, "README.txt"), encoding="utf-8").read()
check(f"moss -l cc -b base/{CH03} students/*/{CH03}" in readme and "java -jar jplag.jar -l cpp -p .cu --bc base students"
      in readme, "export/README.txt does not say how to run MOSS and JPlag")
check(snapshot(klass) == before, "the class folder changed")

# ---- the tokens: renaming changes nothing, CUDA's and the exercise's names stay --------------------
kept = similarity.KEYWORDS | {"s_tile", "n"}
one = similarity.tokenise([(10, ["int a = threadIdx.x; // x", "s_tile[a] = n; __syncthreads();"])], kept)
two = similarity.tokenise([(3, ["int  b=threadIdx.x;", "", "/* c */ s_tile[b]=n;__syncthreads();"])], kept)
check(one.tokens == two.tokens and "threadIdx" in one.tokens and "s_tile" in one.tokens and
      "__syncthreads" in one.tokens and "x" in one.tokens and one.tokens.count("ID") == 2,
      f"tokens: {one.tokens} and {two.tokens}")
check(one.lines == [10] * 7 + [11] * 11 and two.lines[-1] == 5, f"token lines: {one.lines}, {two.lines}")
check(similarity.number("0.0f") == similarity.number("0.f") and similarity.number("16") == similarity.number("0x10"),
      "numbers are not compared by value")

# ---- what everyone writes is given: a run held by more than half the distinct answers, once
# there are COMMON_MIN_ANSWERS of them; copies that normalise alike count once
common = ["int", "ID", "=", "blockIdx", ".", "x", "*", "blockDim", ".", "x", "+", "threadIdx", ".", "x", ";"]
crowd = [similarity.Answer(common + [f"w{k}_{t}" for t in range(25)], [1] * 40) for k in range(8)]
crowd += [similarity.Answer(list(crowd[0].tokens), [1] * 40)]  # a copy: the same answer again
crowd += [similarity.Answer(["return", ";"] * 20, [1] * 40)]  # the run is not in this one
similarity.mark_given(crowd, similarity.Answer())
check(all(a.given[:15] == [True] * 15 and not any(a.given[15:]) for a in crowd[:9]) and not any(crowd[9].given),
      "a run held by 8 of 9 distinct answers is not given (or more than it is)")
similarity.mark_given(crowd[:7], similarity.Answer())  # 7 distinct answers: too few to tell
check(all(a.given[:15] == [True] * 15 for a in crowd[:7]), "marks were cleared")
few = [similarity.Answer(list(a.tokens), list(a.lines)) for a in crowd[:7]]
similarity.mark_given(few, similarity.Answer())
check(not any(any(a.given) for a in few), "a run was given among 7 distinct answers")
base = similarity.Answer(common, [1] * 15)
alone = [similarity.Answer(list(crowd[0].tokens), list(crowd[0].lines))]
similarity.mark_given(alone, base)
check(alone[0].given[:15] == [True] * 15 and not any(alone[0].given[15:]), "the exercise's own text is not given")

# ---- bad usage: exit 2 and one line --------------------------------------------------------------
a_file, empty = os.path.join(klass, "README.txt"), os.path.join(scratch, "empty")
os.makedirs(empty)
for submissions, limit, words in ((os.path.join(scratch, "nowhere"), None, "is not a folder"),
                                  (a_file, None, "is not a folder"),
                                  ("", None, "give the class folder"),
                                  (klass, "high", "SIMILARITY_THRESHOLD='high' is not a number from 0 to 1"),
                                  (klass, "1.5", "is not a number from 0 to 1"),
                                  (klass, "-0.5", "is not a number from 0 to 1"),
                                  (os.path.join(root, "build"), None, "overlap"),
                                  (empty, None, "has no student folders")):
    r = run(submissions, limit)
    check(r.returncode == 2 and words in r.stderr and r.stderr.count("\n") == 1,
          f"SUBMISSIONS={submissions!r} THRESHOLD={limit}: exit {r.returncode}, {r.stderr!r}")

# ---- make similarity: the paths are data --------------------------------------------------------
odd = os.path.join(scratch, "a class 'q' $(touch pwned)")
shutil.copytree(os.path.join(klass, "carol"), os.path.join(odd, "carol"))
shutil.copytree(os.path.join(klass, "dave"), os.path.join(odd, "dave"))
env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "WB_"))}
r = subprocess.run(["make", "-s", "-C", root, "similarity", f"SUBMISSIONS={odd}", "SIMILARITY_THRESHOLD=0.9"],
                   capture_output=True, text=True, errors="replace", env=env, cwd=scratch)
odd_out = os.path.join(root, "build", "similarity", similarity.grade.folder_of(os.path.basename(odd)))
check(r.returncode == 0 and os.path.isfile(os.path.join(odd_out, "report.txt")),
      f"make similarity on an odd path: exit {r.returncode}, {r.stdout[-300:]!r} {r.stderr[-300:]!r}")
check("0.9" in open(os.path.join(odd_out, "report.txt")).read().split("\n")[0], "SIMILARITY_THRESHOLD did not arrive")
check(not os.path.exists(os.path.join(scratch, "pwned")) and not os.path.exists(os.path.join(root, "pwned")),
      "a $(...) in SUBMISSIONS ran")
shutil.rmtree(odd_out, ignore_errors=True)
if not failures:  # a failed run leaves its report to read
    shutil.rmtree(out, ignore_errors=True)

for f in failures:
    print("grade_similarity: " + f)
print(f"grade_similarity: copies flagged, honest pairs left alone, lines, notes, export, bad usage; "
      f"{len(failures)} problems")
sys.exit(1 if failures else 0)
