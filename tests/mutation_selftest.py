#!/usr/bin/env python3
"""mutation_selftest.py: a CPU test of tests/mutation.py's mutant generator and resume rules
(no GPU, no build).

  python3 tests/mutation_selftest.py [ROOT]

1. A fixture written here, with two TODO blocks, comments, a string and code outside the
   blocks, gives exactly the mutants listed in EXPECTED (operator, line, old text, new text):
   every operator, and nothing in a comment, a string, a preprocessor line or outside a block.
2. Ids: the hash of file, line, column, operator and replacement, the same on a second run.
3. `mutation.py --list` on the real solutions: every operator appears, every solution file
   yields mutants, ids are unique and the same on a second run, and each listed mutant's old
   text stands at its line and column, inside a TODO block.
4. The equivalents file reads, and bad usage is one line and exit 2.
5. Resuming: a verdict is kept for the same sources under the same battery; a kill stands while
   its test stays in the battery unchanged (tests added or changed around it); a survivor is
   judged again under any other battery.
Prints one line per problem; exit 0 when there is none, 1 otherwise.
Sections: the fixture, the checks, main.
"""
import hashlib
import importlib.util
import os
import subprocess
import sys
import threading

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# ---- the fixture ---------------------------------------------------------------------------------
# Line numbers matter to EXPECTED: line 1 is the comment.
FIXTURE = r'''/* fixture.cu: a comment with i < n && x / 2 and 0, never mutated */
#include <utility>
static int outside(int a, int b) { return a < b && b / 2 > 0; }  // outside the blocks
__global__ void kernel(const float *in, float *out, int n, int w) {
    // ---- TODO 1 begin: an index and its bound
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // i < n here is a comment
    if (i >= n) return;
    // ---- TODO 1 end
    // ---- TODO 2 begin: the rest
    const char *s = "i < n && w / 2 || 0";
    float sum = 0.0f;
    int half = w / 2;
    if (i > 0 || i != half) sum = fmaxf(in[i], sum);
    pair(n, w, 0.0f);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        out[j] = in[j];
        __syncthreads();
    }
    // ---- TODO 2 end
}
'''
LOOP = ("#pragma unroll\n    for (int j = 0; j < 4; ++j) {\n        out[j] = in[j];\n"
        "        __syncthreads();\n    }")
# Every mutant of FIXTURE, in the generator's order. Not there, by design: `return;` alone (the
# whole body of its if: deleting it is deleting the if), the declarations, `sum = ...` alone (the
# if's whole body), swaps of arguments of different types (`0.0f` with `n`).
EXPECTED = [
    ("off-by-one", 6, "blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x * blockDim.x + threadIdx.x + 1"),
    ("off-by-one", 6, "blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x * blockDim.x + threadIdx.x - 1"),
    ("delete", 7, "if (i >= n) return;", ";"),
    ("relational", 7, ">=", ">"),
    ("off-by-one", 7, "n", "n + 1"),
    ("off-by-one", 7, "n", "n - 1"),
    ("zero-one", 11, "0.0f", "1.0f"),
    ("off-by-one", 12, "w / 2", "w / 2 + 1"),
    ("off-by-one", 12, "w / 2", "w / 2 - 1"),
    ("half", 12, "w / 2", "(w + 1) / 2"),
    ("half", 12, "w / 2", "(w - 1) / 2"),
    ("delete", 13, "if (i > 0 || i != half) sum = fmaxf(in[i], sum);", ";"),
    ("relational", 13, ">", ">="),
    ("zero-one", 13, "0", "1"),
    ("off-by-one", 13, "0", "-1"),
    ("and-or", 13, "||", "&&"),
    ("relational", 13, "!=", "=="),
    ("off-by-one", 13, "half", "half + 1"),
    ("off-by-one", 13, "half", "half - 1"),
    ("swap-args", 13, "in[i], sum", "sum, in[i]"),
    ("off-by-one", 13, "i", "i + 1"),
    ("off-by-one", 13, "i", "i - 1"),
    ("delete", 14, "pair(n, w, 0.0f);", ";"),
    ("swap-args", 14, "n, w", "w, n"),
    ("zero-one", 14, "0.0f", "1.0f"),
    ("delete", 15, LOOP, ";"),
    ("zero-one", 16, "0", "1"),
    ("off-by-one", 16, "0", "-1"),
    ("relational", 16, "<", "<="),
    ("off-by-one", 16, "4", "3"),
    ("off-by-one", 16, "4", "5"),
    ("delete", 17, "out[j] = in[j];", ";"),
    ("off-by-one", 17, "j", "j + 1"),
    ("off-by-one", 17, "j", "j - 1"),
    ("off-by-one", 17, "j", "j + 1"),
    ("off-by-one", 17, "j", "j - 1"),
    ("delete", 18, "__syncthreads();", ";"),
]
# The other relational neighbours, each alone in a block.
NEIGHBOURS = [("a < b", "<="), ("a <= b", "<"), ("a > b", ">="), ("a >= b", ">"),
              ("a == b", "!="), ("a != b", "==")]

problems = []


def problem(text):
    problems.append(text)
    print(f"mutation_selftest: {text}")


def load():
    spec = importlib.util.spec_from_file_location("mutation", os.path.join(ROOT, "tests", "mutation.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the checks ----------------------------------------------------------------------------------

def check_fixture(M):
    got = M.mutants_of("fixture.cu", FIXTURE)
    rows = [(m.op, m.line, m.old, m.new) for m in got]
    for row in EXPECTED:
        if row not in rows:
            problem(f"fixture: expected mutant missing: {row}")
    for row in rows:
        if row not in EXPECTED:
            problem(f"fixture: unexpected mutant: {row}")
    if not problems and rows != EXPECTED:
        problem("fixture: the mutants come in another order than EXPECTED's")
    if {m.op for m in got} != set(M.OPERATORS):
        problem(f"fixture: operators not exercised: {sorted(set(M.OPERATORS) - {m.op for m in got})}")
    blocks = M.todo_blocks(FIXTURE)
    string = (FIXTURE.index('"i < n'), FIXTURE.index('0";') + 2)
    comments = [(FIXTURE.index("/*"), FIXTURE.index("*/") + 2),
                (FIXTURE.index("// i < n"), FIXTURE.index("comment\n", FIXTURE.index("// i < n")))]
    for m in got:
        if not any(lo <= m.start and m.end <= hi for lo, hi in blocks):
            problem(f"fixture: {m.id} lies outside the TODO blocks (line {m.line})")
        for lo, hi in [string] + comments:
            if m.start < hi and lo < m.end:
                if not (m.op == "delete" and m.start < lo and hi <= m.end):  # a whole statement may hold one
                    problem(f"fixture: {m.id} changes a comment or a string (line {m.line})")
        if M.todo_blocks(m.apply(FIXTURE)) and FIXTURE[:blocks[0][0]] != m.apply(FIXTURE)[:blocks[0][0]]:
            problem(f"fixture: {m.id} changes the text before the first block")
        block, lo = next((name, lo) for name, lo, hi in M.todo_blocks(FIXTURE, named=True)
                         if lo <= m.start < hi)
        key = f"fixture.cu\0{block}\0{m.start - lo}\0{m.op}\0{m.new}".encode()
        if m.id != hashlib.sha256(key).hexdigest()[:10]:
            problem(f"fixture: {m.id} is not the hash of file, block, offset, operator and replacement")
    again = [m.id for m in M.mutants_of("fixture.cu", FIXTURE)]
    if again != [m.id for m in got]:
        problem("fixture: the ids differ from one run to the next")
    if len(set(again)) != len(again):
        problem("fixture: two mutants share an id")
    # An edit outside the blocks (a comment line above them, a line between two) keeps every id,
    # so tests/mutation_equivalent.txt survives it; the line numbers move.
    moved = "/* a new comment\n   of two lines */\n" + FIXTURE
    moved_ids = [m.id for m in M.mutants_of("fixture.cu", moved)]
    if moved_ids != again:
        problem("fixture: a comment added above the blocks changed the mutants' ids")
    if [m.line for m in M.mutants_of("fixture.cu", moved)] != [m.line + 2 for m in got]:
        problem("fixture: a comment added above the blocks did not move the lines by two")
    between = FIXTURE.replace("    // ---- TODO 2 begin", "    int unused = 0;\n    // ---- TODO 2 begin")
    if [m.id for m in M.mutants_of("fixture.cu", between)] != again:
        problem("fixture: a line added between two blocks changed the mutants' ids")
    for expression, replacement in NEIGHBOURS:
        text = ("void f(int a, int b, int *o) {\n    // ---- TODO 1 begin\n"
                f"    *o = {expression};\n    // ---- TODO 1 end\n}}\n")
        found = [(m.old, m.new) for m in M.mutants_of("n.cu", text) if m.op == "relational"]
        operator = expression.split()[1]
        if found != [(operator, replacement)]:
            problem(f"relational: {expression} gave {found}, not [('{operator}', '{replacement}')]")


def run_list():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "mutation.py"), "--list"],
                       capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        problem(f"--list: exit {r.returncode}: {r.stderr.strip()[:200]}")
    return r.stdout


def check_list(M):
    first, second = run_list(), run_list()
    if first != second:
        problem("--list: two runs print different lists")
    rows = [line.split("\t") for line in first.splitlines() if line and not line.startswith("#")]
    ids = [r[0] for r in rows]
    if len(set(ids)) != len(ids):
        problem("--list: two mutants share an id")
    ops = {r[3] for r in rows if len(r) == 5}
    for op in M.OPERATORS:
        if op not in ops:
            problem(f"--list: no mutant of the operator {op} in any chapter")
    files = sorted(f"solutions/{c}/{n}" for c in os.listdir(os.path.join(ROOT, "solutions"))
                   for n in os.listdir(os.path.join(ROOT, "solutions", c)) if n.endswith(".cu"))
    listed = {r[2].rsplit(":", 2)[0] for r in rows if len(r) == 5}
    for f in files:
        if f not in listed:
            problem(f"--list: {f} yields no mutant")
    by_id = {}
    for c in M.all_chapters():
        for m in M.chapter_mutants(c):
            by_id[m.id] = m
    for r in rows:
        if len(r) != 5 or r[0] not in by_id:
            problem(f"--list: a line that names no mutant: {r}")
            continue
        m = by_id[r[0]]
        with open(os.path.join(ROOT, m.path), encoding="utf-8") as f:
            text = f.read()
        if text[m.start:m.end] != m.old or f"{m.path}:{m.line}:{m.col}" != r[2]:
            problem(f"--list: {m.id}: its old text is not at {r[2]}")
        if not any(lo <= m.start and m.end <= hi for lo, hi in M.todo_blocks(text)):
            problem(f"--list: {m.id} ({r[2]}) lies outside the TODO blocks")


def check_usage(M):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "mutation.py"), "--no-such-option"],
                       capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or r.stdout:
        problem(f"bad usage: exit {r.returncode} and {len(r.stderr.splitlines())} lines, not 2 and one line")
    try:
        M.read_equivalents()
    except SystemExit:
        problem(f"{M.EQUIVALENTS} does not read")


# ---- main ----------------------------------------------------------------------------------------

def check_resume(M):
    ch, gpus = M.Chapter("01_basic_1d"), ["0", "1"]
    name = ch.files[0]
    killed, survivor = M.mutants_of(name, ch.sources[name])[:2]
    results = M.Results.__new__(M.Results)
    results.rows, results.lock = {}, threading.Lock()

    def use(tests):
        ch.tests, ch.hash = tests, M.battery_hash(tests, gpus)
        ch.test_hashes = {t.name: M.test_hash(t, gpus) for t in tests}

    quick, full = M.Test("quick", "gpu", 60, 1, ["p", "--size", "1"]), M.Test("full", "gpu", 60, 1, ["p"])
    use([quick, full])
    files = ch.submission(killed)
    results.put(ch.key(files), "01", killed.id, "killed", "full (fail)", cache=False)
    results.put(ch.key(files, "full"), "01", killed.id, "killed", "full (fail)", cache=False)
    results.put(ch.key(ch.submission(survivor)), "01", survivor.id, "survived", "", cache=False)
    for what, tests, kill_stands in [
            ("the same battery", [quick, full], True),
            ("a test added", [quick, full, M.Test("seams", "gpu", 60, 1, ["p", "--seams"])], True),
            ("another test changed", [M.Test("quick", "gpu", 60, 1, ["p", "--size", "2"]), full], True),
            ("the killing test changed", [quick, M.Test("full", "gpu", 90, 1, ["p"])], False)]:
        use(tests)
        verdict = ch.verdict(results, killed)
        if (verdict is not None and verdict[2] == "killed") != kill_stands:
            problem(f"resume, {what}: the kill by 'full' " + ("was lost" if kill_stands else "still stands"))
        same = what == "the same battery"
        if (ch.verdict(results, survivor) is not None) != same:
            problem(f"resume, {what}: the survivor " + ("was judged again" if same else "was not judged again"))


def main():
    M = load()
    check_fixture(M)
    check_list(M)
    check_usage(M)
    check_resume(M)
    if problems:
        return 1
    print(f"mutation_selftest: the generator and the resume rules pass ({len(EXPECTED)} fixture mutants, every operator, "
          "every solution file)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
