"""similarity.py: `make similarity`. Which students' TODO blocks are near-identical to another
student's or to the reference solution's, file by file, as evidence for a person to read; never a
verdict (README.md, "For instructors").

  make similarity SUBMISSIONS=DIR [SIMILARITY_THRESHOLD=0.6]

The Makefile passes both unexpanded in WB_SIMILARITY_* variables: data here, never shell text.
Writes build/similarity/<class>/: report.txt (people), pairs.tsv and pairs.json (scripts), and
export/ (each student's TODO-block text alone, for MOSS and JPlag; export/README.txt says how).
Nothing in the submissions is written, run or followed out of its folder.

The method, and the rules that keep it honest:
  tokens      each kernel file's TODO blocks (gate.split_blocks), lexed as the gate lexes them
              (gate.TOKEN), comments and spaces dropped. An identifier the student introduced
              becomes ID, so renaming variables hides nothing; keywords, CUDA's built-in names
              and every name the pristine exercise file itself uses (its parameters, shared
              arrays, helpers) stay as written. Numbers keep their value (0.0f and 0.f agree).
  given       tokens nobody should be credited with sharing are set aside before comparing:
              what the exercise's own TODO text already holds (the base), and runs of MIN_MATCH
              tokens found in more than COMMON_SHARE of the class's distinct answers for the file
              (what nearly everyone writes: `int i = blockIdx.x * blockDim.x + threadIdx.x;`).
              Distinct answers: copies that are identical once normalised count once, so a class
              that copied the reference en masse does not make the reference "common".
  tiling      greedy string tiling (as JPlag does): the longest common runs first, each token
              matched at most once, no run shorter than MIN_MATCH tokens.
  similarity  tiled tokens / the smaller side's own tokens (its tokens less the given ones), so
              a copy padded with extra code still scores as a copy. A file is compared only when
              both sides own at least MIN_TOKENS tokens: smaller answers look alike for everyone.
              A pair's overall figure weighs its files by those tokens.
The reference solution takes part as the pseudo-student REFERENCE.
Sections: settings, reading a class, tokens, tiling, the comparison, output, main.
"""
import json
import os
import re
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export  # noqa: E402
import gate  # noqa: E402
import grade  # noqa: E402  (its collection: the layouts, links, the file cap; it enters ROOT)

# ---- settings ------------------------------------------------------------------------------------
OUT = "build/similarity"
REFERENCE = "@reference"  # the solution as a pseudo-student; no student folder may take the name
MIN_MATCH = 12            # tokens: a shorter common run is an idiom, not a copy (JPlag's C++ default)
MIN_TOKENS = 40           # own tokens each side needs before a file is compared
COMMON_SHARE = 0.5        # a run in more than this share of the distinct answers is given
COMMON_MIN_ANSWERS = 8    # ... once there are this many distinct answers (fewer tell nothing)
MAX_TOKENS = 5000         # TODO code past this (10x the largest reference's) is listed, not compared
MAX_OCCURRENCES = 32      # a run repeated more often in one file is padding: it starts no tile
DEFAULT_THRESHOLD = 0.6
TERMINAL_LINES = 60       # of the report printed; report.txt holds it all
KEYWORDS = set("""
    auto bool break case char class const constexpr const_cast continue decltype default delete do
    double dynamic_cast else enum explicit extern false float for friend goto if inline int long
    mutable namespace new noexcept nullptr operator private protected public register
    reinterpret_cast restrict return short signed sizeof static static_assert static_cast struct
    switch template this throw true try catch typedef typename union unsigned using virtual void
    volatile while size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t
    uint64_t pragma unroll threadIdx blockIdx blockDim gridDim warpSize dim3 float2 float3 float4
    int2 int3 int4 uint3 make_float2 make_float3 make_float4 make_int2 make_int3 min max abs fabsf
    fminf fmaxf fmaf fma sqrtf rsqrtf floorf ceilf atomicAdd atomicMax atomicMin atomicExch atomicCAS
    std
""".split())
BUILTIN_PREFIXES = ("__", "cuda", "nccl", "cub", "wb_", "WB_")  # CUDA's, the runtime's, the workbook's


def die(message):
    print(f"similarity: {export.shown(message)}", file=sys.stderr)
    sys.exit(2)


# ---- reading a class -----------------------------------------------------------------------------

class Answer:
    """One side's TODO blocks of one kernel file: the normalised tokens, the line of each in the
    student's file, the blocks' text (for the export), a note for the report, and skip: it is
    not compared (the note says why)."""
    def __init__(self, tokens=(), lines=(), text="", note="", skip=False):
        self.tokens, self.lines, self.text, self.note = list(tokens), list(lines), text, note
        self.skip = skip
        self.given = [False] * len(self.tokens)

    def own(self):
        return len(self.tokens) - sum(self.given)


def read_answer(folder, chapter, name, kept):
    """The student's answer for one file, or an Answer whose note says why there is none to
    compare. Bytes that are not UTF-8 are read as U+FFFD (grading refuses such a file; the copy in
    it is still evidence)."""
    if folder is None:
        return Answer(note="not handed in", skip=True)
    try:
        data = grade.read_kernel(folder, chapter, name)
    except ValueError as e:
        return Answer(note=str(e).replace("not graded", "not compared"), skip=True)
    try:
        text, note = data.decode("utf-8"), ""
    except UnicodeDecodeError:
        text, note = data.decode("utf-8", "replace"), "not UTF-8 (read with U+FFFD)"
    try:
        _, blocks, markers = gate.split_blocks(text)
    except ValueError as e:
        return Answer(note=f"TODO markers broken at line {e.args[0]} ({e.args[1]}): not compared",
                      skip=True)
    answer = tokenise(blocks, kept)
    answer.text = blocks_text(blocks, markers)
    if len(answer.tokens) > MAX_TOKENS:
        return Answer(text=answer.text, note=f"{len(answer.tokens)} tokens of TODO code, over "
                      f"{MAX_TOKENS}: not compared (read it yourself)", skip=True)
    answer.note = note
    return answer


# ---- tokens --------------------------------------------------------------------------------------

def exercise_names(pristine):
    """Identifiers the pristine exercise file uses in its code (comments left out): its own names."""
    names = set()
    for m in gate.TOKEN.finditer(pristine):
        if m.lastgroup == "word":
            names.add(m.group())
    return names


def number(text):
    """A numeric literal by its value: 0.0f, 0.f and 0. agree; 16 and 0x10 agree."""
    try:
        return "#" + str(int(text.rstrip("uUlL").replace("'", ""), 0))
    except ValueError:
        try:
            return "#" + repr(float(text.rstrip("fFlL").replace("'", "")))
        except ValueError:
            return "#" + text


def blocks_text(blocks, markers):
    """The TODO blocks' text alone, each between its marker lines (the export's files)."""
    return "\n".join(markers[2 * k] + "\n" + "".join(line + "\n" for line in lines) + markers[2 * k + 1]
                     for k, (_, lines) in enumerate(blocks)) + "\n"


def tokenise(blocks, kept):
    """Answer of the blocks [(first line, lines)]: each block lexed alone (a comment left open in
    one cannot swallow the next), comments and spaces dropped, identifiers not kept made ID (a
    member's name, after . or ->, is kept: it is the type's, not the student's)."""
    answer = Answer()
    for first, lines in blocks:
        body, line, seen = "\n".join(lines), first, 0
        for m in gate.TOKEN.finditer(body):
            kind, value = m.lastgroup, m.group()
            line += body.count("\n", seen, m.start())
            seen = m.start()
            if kind == "open_comment":
                break
            if kind in ("space", "newline", "line_comment", "block_comment"):
                continue
            if kind == "word":
                member = answer.tokens[-1:] in (["."], ["->"])
                value = value if member or value in kept or value.startswith(BUILTIN_PREFIXES) else "ID"
            elif kind == "number":
                value = number(value)
            elif kind in ("string", "char", "raw"):
                value = kind
            answer.tokens.append(value)
            answer.lines.append(line)
    answer.given = [False] * len(answer.tokens)
    return answer


# ---- tiling --------------------------------------------------------------------------------------

def runs_of(tokens):
    """{run of MIN_MATCH tokens: [its starts]}: the index tiling looks runs up in."""
    index = {}
    for j in range(len(tokens) - MIN_MATCH + 1):
        index.setdefault(tuple(tokens[j:j + MIN_MATCH]), []).append(j)
    return index


def tiles(a, b, a_given=None, b_given=None, index=None):
    """Greedy string tiling of token lists a and b: [(i, j, length)], common runs of MIN_MATCH
    tokens or more, each token in at most one tile, the longest taken first. Each round finds the
    maximal runs among the tokens still free (through an index of b's runs of MIN_MATCH) and
    takes those that do not overlap a longer one; rounds go on until none is found. index:
    runs_of(b), when the caller keeps it."""
    k = MIN_MATCH
    free_a = [not g for g in (a_given or [False] * len(a))]
    free_b = [not g for g in (b_given or [False] * len(b))]
    index = runs_of(b) if index is None else index
    found = []
    while True:
        runs = []
        for i in range(len(a) - k + 1):
            if not free_a[i]:
                continue
            starts = index.get(tuple(a[i:i + k]), ())
            if len(starts) > MAX_OCCURRENCES:
                continue
            for j in starts:
                if i and j and free_a[i - 1] and free_b[j - 1] and a[i - 1] == b[j - 1]:
                    continue  # inside a run that starts earlier
                n = 0
                while i + n < len(a) and j + n < len(b) and free_a[i + n] and free_b[j + n] \
                        and a[i + n] == b[j + n]:
                    n += 1
                if n >= k:
                    runs.append((n, i, j))
        taken = 0
        for n, i, j in sorted(runs, key=lambda r: (-r[0], r[1], r[2])):
            if all(free_a[i:i + n]) and all(free_b[j:j + n]):
                free_a[i:i + n] = [False] * n
                free_b[j:j + n] = [False] * n
                found.append((i, j, n))
                taken += 1
        if not taken:
            return sorted(found)


def mark_given(answers, base):
    """Sets each answer's given tokens: those tiled against the exercise's own TODO text (base),
    and those inside a run of MIN_MATCH tokens that more than COMMON_SHARE of the distinct answers
    hold, when there are COMMON_MIN_ANSWERS distinct answers or more."""
    k = MIN_MATCH
    for ans in answers:
        for i, _, n in tiles(ans.tokens, base.tokens):
            ans.given[i:i + n] = [True] * n
    distinct = {tuple(a.tokens) for a in answers if a.tokens}
    if len(distinct) < COMMON_MIN_ANSWERS:
        return
    holders = {}
    for tokens in distinct:
        for run in {tokens[i:i + k] for i in range(len(tokens) - k + 1)}:
            holders[run] = holders.get(run, 0) + 1
    common = {run for run, n in holders.items() if n > COMMON_SHARE * len(distinct)}
    for ans in answers:
        for i in range(len(ans.tokens) - k + 1):
            if tuple(ans.tokens[i:i + k]) in common:
                ans.given[i:i + k] = [True] * k


# ---- the comparison ------------------------------------------------------------------------------

def line_ranges(answer, spans):
    """'17-19,23' : the lines of the student's file that the token spans [(start, length)] cover."""
    lines = sorted({answer.lines[t] for s, n in spans for t in range(s, s + n)})
    out = []
    for line in lines:
        if out and line == out[-1][1] + 1:
            out[-1][1] = line
        else:
            out.append([line, line])
    return ",".join(f"{a}-{b}" if a != b else str(a) for a, b in out)


def compare(people, files):
    """Every pair of people (the reference among them) on every file both may be compared on:
    (rows, per-file context). A row: the file, both names, the similarity, the tiled and own
    tokens, each side's matching lines, and the tiles."""
    rows, context = [], {}
    for key in files:
        able = [p for p in people if not p["answers"][key].skip and
                p["answers"][key].own() >= MIN_TOKENS]
        values, index = [], [runs_of(p["answers"][key].tokens) for p in able]
        for x in range(len(able)):
            for y in range(x + 1, len(able)):
                a, b = able[x]["answers"][key], able[y]["answers"][key]
                found = tiles(a.tokens, b.tokens, a.given, b.given, index[y])
                matched = sum(n for _, _, n in found)
                value = matched / min(a.own(), b.own())
                values.append(value)
                rows.append({"file": key, "a": able[x]["name"], "b": able[y]["name"],
                             "similarity": round(value, 3), "matched": matched,
                             "a_tokens": a.own(), "b_tokens": b.own(),
                             "a_lines": line_ranges(a, [(i, n) for i, _, n in found]),
                             "b_lines": line_ranges(b, [(j, n) for _, j, n in found]),
                             "tiles": [[a.lines[i], a.lines[i + n - 1], b.lines[j], b.lines[j + n - 1], n]
                                       for i, j, n in found]})
        context[key] = {"compared": len(able), "pairs": len(values),
                        "median": round(statistics.median(values), 3) if values else None}
    return rows, context


def overall(rows):
    """Each pair's similarity over all the files it was compared on, weighed by the smaller
    side's own tokens: {(a, b): (value, files)}."""
    sums = {}
    for r in rows:
        s = sums.setdefault((r["a"], r["b"]), [0, 0, 0])
        s[0] += r["matched"]
        s[1] += min(r["a_tokens"], r["b_tokens"])
        s[2] += 1
    return {pair: (round(m / t, 3), n) for pair, (m, t, n) in sums.items()}


# ---- output --------------------------------------------------------------------------------------

def name_shown(name):
    return f"{REFERENCE} (the solution)" if name == REFERENCE else export.shown(name)


def write_report(out, flagged, rows, context, whole, notes, threshold, people):
    head = (f"similarity: {len(people) - 1} students and {REFERENCE} (the solution), "
            f"{len(context)} kernel files; threshold {threshold}\n"
            "A pair is listed when a file's similarity reaches the threshold: the tokens tiled\n"
            "over the smaller side's own tokens (its TODO code less what the exercise gives and\n"
            f"what most of the class writes alike; under {MIN_TOKENS} own tokens a file is not "
            "compared).\nEvidence for a person to read, never a verdict: open both files at the "
            "lines given.\n")
    lines = [head, "Files (how alike the class's pairs are anyway: the median):"]
    for key, c in context.items():
        median = "-" if c["median"] is None else f"{c['median']:.2f}"
        lines.append(f"  {key}: {c['compared']} answers compared, {c['pairs']} pairs, median {median}")
    lines.append("")
    lines.append(f"Pairs at or above {threshold}, highest first ({len(flagged)}):")
    for r in flagged:
        value, n = whole[(r["a"], r["b"])]
        lines.append(f"  {r['similarity']:.2f}  {r['file']}  {name_shown(r['a'])} lines {r['a_lines']}"
                     f"  ~  {name_shown(r['b'])} lines {r['b_lines']}  ({r['matched']} tokens tiled of "
                     f"{r['a_tokens']} and {r['b_tokens']}; the pair over {n} "
                     f"file{'s' * (n > 1)}: {value:.2f})")
    if not flagged:
        lines.append("  none")
    lines.append("")
    lines.append(f"Notes: files not compared, or read with care ({len(notes)}):")
    lines += [f"  {n}" for n in notes] or ["  none"]
    text = "\n".join(lines) + "\n"
    export.atomic_write(os.path.join(out, "report.txt"), text)
    with open(os.path.join(out, "pairs.tsv"), "w", encoding="utf-8") as f:
        f.write("similarity\tfile\ta\tb\ta_lines\tb_lines\tmatched\ta_tokens\tb_tokens\tpair_overall\n")
        for r in flagged:
            f.write(grade.tsv(r["similarity"], r["file"], r["a"], r["b"], r["a_lines"], r["b_lines"],
                              r["matched"], r["a_tokens"], r["b_tokens"], whole[(r["a"], r["b"])][0]))
    document = {"threshold": threshold, "reference": REFERENCE, "min_match": MIN_MATCH,
                "min_tokens": MIN_TOKENS, "files": context,
                "pairs": [dict(r, a=export.shown(r["a"]), b=export.shown(r["b"]),
                               pair_overall=whole[(r["a"], r["b"])][0]) for r in flagged],
                "notes": notes}
    export.atomic_write(os.path.join(out, "pairs.json"), json.dumps(document, indent=1) + "\n")
    return text


def write_export(out, people, files, base_text):
    """export/: students/<folder>/<chapter>/<file> holding that side's TODO blocks alone (each
    between its marker lines), base/<chapter>/<file> the exercise's own TODO text, names.tsv the
    folders' students, README.txt how to give them to MOSS and JPlag."""
    root = os.path.join(out, "export")
    for key, text in base_text.items():
        os.makedirs(os.path.join(root, "base", os.path.dirname(key)), exist_ok=True)
        export.atomic_write(os.path.join(root, "base", key), text)
    with open(os.path.join(root, "names.tsv"), "w", encoding="utf-8") as names:
        for p in people:
            names.write(grade.tsv(p["folder"], p["name"]))
            for key in files:
                answer = p["answers"][key]
                if answer.text:
                    path = os.path.join(root, "students", p["folder"], key)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    export.atomic_write(path, answer.text)
    moss = "\n".join(f"  moss -l cc -b base/{key} students/*/{key}" for key in files)
    export.atomic_write(os.path.join(root, "README.txt"), f"""\
Each student's TODO blocks alone, one folder per student (names.tsv: folder, student), the
reference solution as {REFERENCE}; base/ holds the exercise's own TODO text (its comments), which
every student was given and which no tool should count as shared.

MOSS (https://theory.stanford.edu/~aiken/moss/; its script needs your user id): one run per
kernel file, each file a submission, from this folder:
{moss}

JPlag (https://github.com/jplag/JPlag, Java 21): every student's files as one submission:
  java -jar jplag.jar -l cpp -p .cu --bc base students

Line numbers there count in these files, not in the students' own: similarity's report.txt gives
the students' own.
""")


# ---- main ----------------------------------------------------------------------------------------

def settings():
    submissions = os.environ.get("WB_SIMILARITY_SUBMISSIONS", "")
    value = os.environ.get("WB_SIMILARITY_THRESHOLD", "") or str(DEFAULT_THRESHOLD)
    if not submissions:
        die("give the class folder: make similarity SUBMISSIONS=DIR (a folder per student)")
    if not os.path.isdir(submissions):
        die(f"SUBMISSIONS '{submissions}' is not a folder")
    if not re.fullmatch(r"[0-9]*\.?[0-9]+", value) or float(value) > 1:
        die(f"SIMILARITY_THRESHOLD='{value}' is not a number from 0 to 1 (e.g. 0.6)")
    return submissions, float(value)


def main():
    submissions, threshold = settings()
    klass = grade.folder_of(os.path.basename(os.path.realpath(submissions)))
    out = os.path.join(grade.ROOT, OUT, klass)
    inside = lambda x, y: (os.path.realpath(x) + os.sep).startswith(os.path.realpath(y) + os.sep)
    if inside(out, submissions) or inside(submissions, os.path.join(grade.ROOT, OUT)):
        die(f"SUBMISSIONS '{submissions}' and {OUT}/ overlap: copy the class elsewhere first")
    if os.path.lexists(out) and not os.path.isfile(os.path.join(out, "report.txt")):
        die(f"{OUT}/{klass} holds something other than a similarity report: move it away first")
    members, links = grade.class_members(submissions)
    for name in links:
        print(f"similarity: {export.shown(name)} is a link, not a student's folder: not compared")
    if not members:
        die(f"SUBMISSIONS '{submissions}' has no student folders")
    if any(name == REFERENCE for name, _ in members):
        die(f"a student's folder is named {REFERENCE}, the report's name for the solution: rename it")
    if len({grade.folder_of(n) for n, _ in members}) != len(members):
        die(f"two students in '{submissions}' would share an export folder: rename one of them")

    chapters = sorted(c for c in os.listdir("exercises") if re.fullmatch(r"[0-9][0-9]_\w+", c)
                      and os.path.isdir(os.path.join("solutions", c)))
    files, kept, base = [], {}, {}
    for c in chapters:
        for name in sorted(n for n in os.listdir(os.path.join("exercises", c)) if n.endswith(".cu")):
            key = f"{c}/{name}"
            pristine = open(os.path.join("exercises", c, name), encoding="utf-8").read()
            kept[key] = KEYWORDS | exercise_names(pristine)
            _, blocks, markers = gate.split_blocks(pristine)
            base[key] = (tokenise(blocks, kept[key]), blocks_text(blocks, markers))
            files.append(key)
    people = [{"name": REFERENCE, "folder": REFERENCE, "path": grade.ROOT + "/solutions", "flat": True}]
    people += [{"name": n, "folder": grade.folder_of(n), "path": os.path.realpath(p), "flat": False}
               for n, p in members]
    notes = []
    for p in people:
        p["answers"] = {}
        for c in chapters:
            try:
                folder = os.path.join(p["path"], c) if p["flat"] else grade.kernel_folder(p["path"], c)
            except ValueError as e:
                folder, why = None, f"{e}: not compared"
            else:
                why = ""
            for key in (k for k in files if k.startswith(c + "/")):
                answer = read_answer(folder, c, key.split("/", 1)[1], kept[key]) if not why \
                    else Answer(note=why, skip=True)
                p["answers"][key] = answer
                if answer.note and answer.note != "not handed in":
                    notes.append(f"{name_shown(p['name'])}: {key}: {export.shown(answer.note)}")
    for key in files:
        mark_given([p["answers"][key] for p in people if not p["answers"][key].skip], base[key][0])

    rows, context = compare(people, files)
    whole = overall(rows)
    flagged = sorted((r for r in rows if r["similarity"] >= threshold),
                     key=lambda r: (-r["similarity"], r["file"], os.fsencode(r["a"]), os.fsencode(r["b"])))
    work = out + f".tmp{os.getpid()}"  # written whole, then put in place: never half a report
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    text = write_report(work, flagged, rows, context, whole, notes, threshold, people)
    write_export(work, people, files, {k: v[1] for k, v in base.items()})
    if os.path.lexists(out):
        shutil.rmtree(out)
    os.rename(work, out)
    shown = text.split("\n")
    print("\n".join(shown[:TERMINAL_LINES]) + ("\n" if len(shown) <= TERMINAL_LINES else
          f"\n... {len(shown) - TERMINAL_LINES} more lines in report.txt\n"), end="")
    print(f"similarity: written to {OUT}/{klass}/ (report.txt, pairs.tsv, pairs.json; export/ for "
          "MOSS and JPlag)")


if __name__ == "__main__":
    main()
