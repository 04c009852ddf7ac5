"""gate.py: what a submitted kernel file must pass before any of its code runs.

grading/RULES.md states each rule and why it exists; this file is their only implementation.
A refusal names the rule, the file and the line. The gate runs twice per chapter:

  text_refusals(name, text, pristine, allow_drift)   before the compiler sees the file: the TODO
                                                     markers, the text outside the blocks, and
                                                     what may stand inside a block (a lexer)
  object_refusals(name, obj, deps, pristine, solution)
                                                     after compiling, before linking: the
                                                     symbols the object defines and needs, its
                                                     static constructors, system-call
                                                     instructions, and the files the compiler read
  Refusal                                            (rule, file, line, message)
  python3 grading/gate.py SOLUTION_DIR EXERCISE_DIR  a chapter's solution passes as a submission
                                                     of its exercise (make test, chNN_exercise_drift)
  python3 grading/gate.py --blocks FILE...           the block rules alone (make check warns)

Standard library only; the object rules call binutils (nm, readelf, objdump).
"""
import os
import re
import subprocess
import sys
from collections import namedtuple

Refusal = namedtuple("Refusal", "rule file line message")

MARKER = re.compile(r"^\s*// ---- TODO (\d+) (begin|end)\b.*$")
PRAGMA_UNROLL = re.compile(r"^\s*#\s*pragma\s+unroll(\s+\d+)?\s*$")
# Identifiers a block may not use: inline assembly (system calls and jumps no symbol shows),
# the preprocessor's operator form, attributes (constructors, sections, aliases), and printf in
# any form (device printf writes to the program's stdout without any host symbol).
BANNED_WORDS = {"asm", "__asm", "__asm__", "_Pragma", "__pragma", "__attribute__", "__declspec"}
# What any kernel file may call beyond what the pristine exercise and the solution call: the
# CUDA launch machinery nvcc emits, the C++ runtime's helpers for statics and exceptions, the
# compiler's own memory moves, and host libm. Nothing here can print, open, spawn or exit.
GENERIC_UNDEFINED = {
    "cudaLaunchKernel", "cudaGetLastError", "cudaPeekAtLastError", "cudaFuncSetAttribute",
    "cudaFuncGetAttributes", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaGetDevice", "cudaDeviceGetAttribute", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync",
    "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__gxx_personality_v0",
    "_Unwind_Resume", "__stack_chk_fail", "memcpy", "memset", "memmove",
    "sqrt", "sqrtf", "exp", "expf", "log", "logf", "pow", "powf", "floor", "floorf", "ceil",
    "ceilf", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "round", "roundf", "lround",
    "lroundf", "sin", "sinf", "cos", "cosf", "tanh", "tanhf",
}
GENERIC_UNDEFINED_PREFIX = "__cuda"  # nvcc's registration and launch stubs
# Code the loader runs before main (or after exit): constructor and destructor tables, and the
# .init and .fini sections, whose pieces the linker joins into the _init and _fini functions (a
# `call` placed there runs while the grader's token is still in the environment).
INIT_SECTIONS = (".init_array", ".fini_array", ".ctors", ".dtors", ".preinit_array", ".init", ".fini")
# Characters a kernel file may not hold anywhere: the C0 controls but TAB and newline, and DEL.
# The compiler ends a line at a lone carriage return where these rules would see one line (a
# `//` comment that hides a directive after the CR), and no kernel needs any of the others.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
SYSCALL = re.compile(r"\b(syscall|sysenter)\b|\bint\s+\$0x80\b")


# ---- text ------------------------------------------------------------------------------------

def split_blocks(text):
    """(outside, blocks, markers): the lines outside the TODO blocks (marker lines kept), each
    block as (first line number, lines), and the marker lines in order; ValueError on markers
    that do not pair up (an end without its begin, a begin inside a block)."""
    outside, blocks, markers, current = [], [], [], None
    for number, line in enumerate(text.split("\n"), 1):
        m = MARKER.match(line)
        if m:
            markers.append(line)
            if m.group(2) == "begin":
                if current is not None:
                    raise ValueError(number, "a TODO begin inside another block")
                current = (number + 1, [], m.group(1))
            else:
                if current is None or current[2] != m.group(1):
                    raise ValueError(number, "a TODO end without its begin")
                blocks.append(current[:2])
                current = None
            outside.append(line)
        elif current is not None:
            current[1].append(line)
        else:
            outside.append(line)
    if current is not None:
        raise ValueError(current[0] - 1, "a TODO block that never ends")
    return outside, blocks, markers


TOKEN = re.compile(r"""
    (?P<space>[ \t\f\v\r]+) |
    (?P<newline>\n) |
    (?P<line_comment>//[^\n]*) |
    (?P<block_comment>/\*.*?\*/) |
    (?P<open_comment>/\*) |
    (?P<raw>(?:u8|[uUL])?R") |
    (?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*") |
    (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)+') |
    (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|'[0-9A-Za-z])*) |
    (?P<word>[A-Za-z_][A-Za-z_0-9]*) |
    (?P<digraph>%:|<%|%>|<:(?!:)|:>) |
    (?P<punct>->\*?|\+\+|--|<<=?|>>=?|[<>=!]=|&&|\|\||::|\.\.\.|[-+*/%&|^~!=<>?:;,.(){}\[\]]) |
    (?P<other>.)
""", re.S | re.X)
CLOSER = {")": "(", "]": "[", "}": "{"}


def block_refusals(name, first_line, lines):
    """The lexer's verdict on one block's lines (first_line: the first one's number)."""
    refusals = []

    def refuse(rule, offset, message):
        refusals.append(Refusal(rule, name, first_line + offset, message))

    code = []
    for k, line in enumerate(lines):
        if CONTROL.search(line):
            refuse("no-control-characters", k, "a control character other than tab (a lone "
                   "carriage return ends a line for the compiler)")
        if line.rstrip().endswith("\\"):
            refuse("no-line-splice", k, "a line ending in a backslash joins the next line to it")
        if "??/" in line:
            refuse("no-line-splice", k, "'?" "?/' is a trigraph backslash")
        stripped = line.lstrip()
        if stripped.startswith("#"):
            if not PRAGMA_UNROLL.match(line):
                refuse("no-preprocessor", k, "a preprocessor line inside a TODO block "
                       "(only '#pragma unroll' is allowed)")
            code.append("")  # the pragma stays out of the tokens
        else:
            code.append(line)
    body = "\n".join(code)
    stack, significant, at = [], [], 0
    line_of = lambda position: body.count("\n", 0, position)
    for m in TOKEN.finditer(body):
        kind, value = m.lastgroup, m.group()
        where = line_of(m.start())
        if kind in ("space", "newline", "line_comment", "block_comment"):
            continue
        if kind == "open_comment":
            refuse("balanced", where, "a comment opened in the block must close in it")
            break
        if kind == "raw":
            refuse("no-raw-strings", where, "raw string literals are not allowed in a block")
            break
        if kind == "digraph":
            refuse("no-digraphs", where, f"the digraph '{value}' is not allowed in a block")
            continue
        if kind == "other":
            what = "a string or character literal that does not close on its line" \
                if value in "\"'" else f"the character {value!r}"
            refuse("balanced" if value in "\"'" else "no-odd-characters", where,
                   f"{what} is not allowed in a block")
            continue
        if kind == "word" and (value in BANNED_WORDS or "printf" in value):
            refuse("no-banned-words", where, f"'{value}' is not allowed in a TODO block")
        if value in "([{":
            stack.append((value, where))
        elif value in CLOSER:
            if not stack or stack[-1][0] != CLOSER[value]:
                refuse("balanced", where, f"'{value}' closes what the block did not open")
                break
            stack.pop()
        significant.append((kind, value, where))
    else:
        for value, where in stack:
            refuse("balanced", where, f"'{value}' is opened in the block and never closed")
        if significant and significant[-1][1] not in (";", "}"):
            refuse("whole-statements", significant[-1][2],
                   "a block must end with a whole statement (its last token ';' or '}')")
        if significant and significant[0][1] in ("else", "catch", "while"):
            refuse("whole-statements", significant[0][2],
                   f"a block may not begin with '{significant[0][1]}'")
    return refusals


def text_refusals(name, text, pristine, allow_drift):
    """The text rules for one file; [] when it passes."""
    control = CONTROL.search(text)
    if control:
        return [Refusal("no-control-characters", name, text.count("\n", 0, control.start()) + 1,
                        f"the file holds the control character {control.group()!r} (only tab "
                        "and newline are allowed: a lone carriage return ends a line for the "
                        "compiler)")]
    try:
        outside, blocks, markers = split_blocks(text)
    except ValueError as e:
        return [Refusal("markers", name, e.args[0], e.args[1])]
    p_outside, _, p_markers = split_blocks(pristine)
    if markers != p_markers:
        line = next((k + 1 for k, l in enumerate(text.split("\n")) if MARKER.match(l)
                     and l not in p_markers), 0)
        return [Refusal("markers", name, line,
                        "the TODO marker lines differ from the exercise's (number, order, text)")]
    refusals = []
    if outside != p_outside and not allow_drift:
        line = outside_line(text, outside, p_outside)
        refusals.append(Refusal("no-drift", name, line,
                                "the file differs from the exercise outside its TODO blocks"))
    for first, lines in blocks:
        refusals += block_refusals(name, first, lines)
    return refusals


def outside_line(text, outside, pristine_outside):
    """The number, in the student's file, of the first outside line that differs."""
    k = next((k for k, (a, b) in enumerate(zip(outside, pristine_outside)) if a != b),
             min(len(outside), len(pristine_outside)))
    seen = -1
    in_block = False
    for number, line in enumerate(text.split("\n"), 1):
        m = MARKER.match(line)
        if m or not in_block:
            seen += 1
            if seen == k:
                return number
        if m:
            in_block = m.group(2) == "begin"
    return 0


# ---- objects ---------------------------------------------------------------------------------

def tool(args):
    return subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=120,
                          check=True).stdout


def symbols(obj):
    """(defined global names, undefined names) of an object, from nm's POSIX format. A weak C++
    definition (an inline function or a template from a header, such as dim3's constructor) is
    left out: it never replaces a strong one, and the workbook's weak references are C names."""
    defined, undefined = set(), set()
    for line in tool(["nm", "-P", "-g", obj]).splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        if fields[1] in ("U", "w", "v"):
            undefined.add(fields[0])
        elif not (fields[1] in ("W", "V") and fields[0].startswith("_Z")):
            defined.add(fields[0])
    return defined, undefined


def init_bytes(obj):
    """{section: bytes} of an object's start-up and shut-down code and tables (INIT_SECTIONS,
    each name with the suffixes a linker merges into it)."""
    sizes = {}
    for line in tool(["readelf", "-SW", obj]).splitlines():
        m = re.search(r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and m.group(1).startswith(INIT_SECTIONS):
            sizes[m.group(1)] = sizes.get(m.group(1), 0) + int(m.group(2), 16)
    return sizes


def indirect_functions(obj):
    """Symbols of type IFUNC: the loader calls each one's resolver before main."""
    return sorted({fields[7] for fields in (line.split() for line in
                                            tool(["readelf", "-sW", obj]).splitlines())
                   if len(fields) >= 8 and fields[3] == "IFUNC"})


def dependencies(path):
    """The files a compiler's -MD output names, resolved (the target and the source left out)."""
    text = open(path, errors="replace").read().replace("\\\n", " ")
    _, _, files = text.partition(": ")
    return {os.path.realpath(f) for f in files.split()[1:]}


def object_refusals(name, obj, deps, pristine_obj, pristine_deps, solution_obj):
    """The object rules for one compiled file; [] when it passes."""
    refusals = []
    defined, undefined = symbols(obj)
    p_defined, p_undefined = symbols(pristine_obj)
    s_defined, s_undefined = symbols(solution_obj) if solution_obj else (set(), set())
    for s in sorted(undefined):
        if s.startswith("wb_solution_"):
            refusals.append(Refusal("no-solution", name, 0,
                                    f"the object calls the reference solution ({s})"))
        elif not (s in p_undefined or s in s_undefined or s in GENERIC_UNDEFINED
                  or s.startswith(GENERIC_UNDEFINED_PREFIX)):
            refusals.append(Refusal("symbols-used", name, 0,
                                    f"the object needs {s}, which a kernel file may not call"))
    for s in sorted(defined - p_defined - s_defined):
        if "_GLOBAL__N_" not in s:  # an anonymous namespace: no other object can name it
            refusals.append(Refusal("symbols-defined", name, 0,
                                    f"the object defines {s}, which the exercise does not"))
    start_up, p_start_up = init_bytes(obj), init_bytes(pristine_obj)
    grown = sorted(k for k, v in start_up.items() if v > p_start_up.get(k, 0))
    if grown:
        refusals.append(Refusal("no-constructors", name, 0,
                                "the object has start-up or shut-down code of its own "
                                f"({', '.join(grown)}: static constructors, destructors, .init)"))
    for s in indirect_functions(obj):
        refusals.append(Refusal("no-constructors", name, 0,
                                f"the object has an indirect function ({s}), whose resolver "
                                "runs before main"))
    if SYSCALL.search(tool(["objdump", "-d", "--no-show-raw-insn", obj])):
        refusals.append(Refusal("no-syscalls", name, 0,
                                "the object's host code holds a system-call instruction"))
    extra = dependencies(deps) - dependencies(pristine_deps)
    for f in sorted(extra)[:5]:
        refusals.append(Refusal("files-read", name, 0,
                                f"the compiler read {f}, which the exercise does not read"))
    return refusals


def blocks_only(paths):
    """python3 grading/gate.py --blocks FILE...: the rules inside the TODO blocks alone, for a
    student's own files (make check: their copy has no pristine exercise to compare with).
    Prints one line per refusal; exit 1 when there is any."""
    said = 0
    for path in paths:
        name = os.path.basename(path)
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                text = f.read().replace("\r\n", "\n")  # as the grader reads it
            _, blocks, _ = split_blocks(text)
        except ValueError as e:
            refusals = [Refusal("markers", name, e.args[0], e.args[1])]
        else:
            refusals = [r for first, lines in blocks for r in block_refusals(name, first, lines)]
        for r in refusals:
            print(f"{r.file} line {r.line}: rule {r.rule}: {r.message}")
        said += len(refusals)
    return 1 if said else 0


def main(argv):
    """python3 grading/gate.py SOLUTION_DIR EXERCISE_DIR: the workbook's own check that each
    reference solution would pass the gate as a submission of its exercise (same file names, TODO
    blocks in every exercise, identical outside them, every block within the rules)."""
    if len(argv) > 2 and argv[1] == "--blocks":
        return blocks_only(argv[2:])
    if len(argv) != 3:
        print("usage: python3 grading/gate.py SOLUTION_DIR EXERCISE_DIR | --blocks FILE...",
              file=sys.stderr)
        return 2
    solutions, exercises = argv[1], argv[2]
    names = set(os.listdir(solutions)) | set(os.listdir(exercises))
    problems = []
    for name in sorted(names):
        sol, ex = os.path.join(solutions, name), os.path.join(exercises, name)
        if not (os.path.isfile(sol) and os.path.isfile(ex)):
            problems.append(f"{name} is in only one of {solutions} and {exercises}")
            continue
        pristine = open(ex, encoding="utf-8").read()
        if not any(MARKER.match(line) for line in pristine.split("\n")):
            problems.append(f"{ex} has no TODO blocks")
        for r in text_refusals(name, open(sol, encoding="utf-8").read(), pristine, False):
            problems.append(f"{sol} line {r.line}: rule {r.rule}: {r.message}")
    for p in problems:
        print("gate: " + p)
    if not problems:
        print(f"gate: {solutions} passes the gate against {exercises}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
