#!/usr/bin/env python3
"""mutation.py: `make mutation [CH=NN]` (GPU): how many bugs planted mechanically in the reference
solutions' TODO blocks does each chapter's student battery catch?

  python3 tests/mutation.py [NN ...] [--jobs N] [--slots N] [--limit N] [--only ID,...] [--list]
                            [--build-only] [--keep] [--report]

  NN            the chapters (two digits); none: every chapter (the Makefile passes CH=NN here
                through WB_MUTATION_CH, and JOBS through WB_MUTATION_JOBS)
  --list        print the mutants and their counts; builds and runs nothing (no GPU needed)
  --jobs N      builds at once (default: one per core)
  --slots N     batteries at once on each visible GPU (default: one per two cores, shared
                by the GPUs, 2 to 8 each: a battery is mostly CPU work, its references and
                the sanitizers, and its tests' processes share the cores besides)
  --limit N     only each chapter's first N mutants (a quick try)
  --only ID,..  only these mutants (ids as --list prints them; with --list too)
  --build-only  build each chapter's reference and its mutants, run nothing (no GPU needed)
  --keep        keep each mutant's build folder (its program) once it is judged
  --report      print the table from the verdicts recorded so far (an interrupted run's); judges
                nothing (no GPU needed; it builds the chapters' solution programs, which list
                their batteries)

1. Mutants: one change each, inside the TODO blocks of solutions/NN_*/*.cu only, never in a
   comment, a string or a preprocessor line. The operators (OPERATORS):
     relational   < <= > >= == != swapped with their neighbour: < and <=, > and >=, == and !=
     off-by-one   plus or minus one on an index (a subscript), a bound (the right side of a
                  comparison) or an integer variable's initial value
     half         x / 2 against (x - 1) / 2 and (x + 1) / 2
     and-or       && against ||
     zero-one     a constant 0 (0.0f, 0u...) made 1
     swap-args    two arguments of one call whose types are the same (types read from the file's
                  and its headers' declarations; unknown types are never swapped)
     delete       one statement deleted (made `;`): every call, store, barrier, wait, record,
                  NCCL group, send and receive, if and loop; not declarations (their uses would
                  not compile), nor the sole body of an if or a loop (the same as deleting it)
   Each has a stable id: a hash of the file, the TODO block, the offset in the block, the
   operator and the replacement (an edit outside the blocks keeps every id). The order
   is the file's, then the operator's; a mutant whose text equals an earlier one's is left out.
2. Builds: each mutant is a submission in build/mutation/NN/<id>/: the chapter's solution files,
   the mutated one among them, built through the workbook's Makefile as make grade builds one
   (EXERCISES, EXERCISE_BUILD, WITH_SOLUTION=1, under grading/limited.py's limits), --jobs at
   once. The unmutated reference is built the same way first (build/mutation/NN/reference/): it
   must pass its battery, and its objects of the files a mutant leaves alone are reused.
3. Batteries: the tests that grading/rubric.txt's groups of the chapter select (all but speed:
   correctness, edge cases, sanitizers), from tests/ctest_list.sh pointed at the mutant's build,
   run one after another, quick ones first, then the rest (sanitizers last), stopping at the
   first failure; one battery per GPU slot (--slots on each visible GPU), a test that takes
   several GPUs (label multi_gpu) alone on all of them.
4. Verdicts: as make grade reads them: a fresh WB_GRADE_TOKEN per test and the program's own
   token lines (common/verdict.h); exit 77 is skipped, a time limit a failure. Any failure or
   time limit kills the mutant; a battery it passes leaves it a survivor; a build that fails
   counts apart (not compiled).
5. Equivalents: a survivor is run again, with the reference, on the battery's tests with one
   fixed --seed and --json: when every configuration's check line (mismatches, max error,
   relative L2 error to 9 digits, against the CPU reference) is the same, its outputs are taken
   as the reference's (a candidate). It counts as equivalent only when tests/mutation_equivalent.txt
   lists it with a reason, and its outputs were not seen to differ.
6. Resuming: each verdict goes to build/mutation/results.tsv under the mutant's sources' hash and
   the battery's (its command lines, the GPU count); a rerun skips what it holds. A kill is also
   kept under the hash of the one test that failed, so it stands while that test is in the
   battery unchanged: a strengthened battery re-runs its survivors, not every mutant. A change
   to the harness or a driver (common/, chapters/) re-runs the survivors too (it may check more),
   and leaves the kills standing.

Prints a table (mutants, killed, survived, equivalent, not compiled, the score: killed / (mutants
- equivalent - not compiled)) and every survivor with its file, line and change. Exit 0 when each
chapter scores 95 % or more, 1 when one does not (or its reference fails its battery), 2 on bad
usage (one line), 77 when no GPU is usable (nothing was run). Not part of make test.

Sections: settings; lexing; declarations and types; statements; operators; the mutants of a
file; chapters and the battery; processes; builds and batteries; results and equivalents; the
report; main.
"""
import functools
import hashlib
import json
import os
import queue
import re
import secrets
import signal
import shutil
import subprocess
import sys
import threading
from bisect import bisect_right
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "grading"))
import processes  # noqa: E402
from processes import Cores  # noqa: E402

# ---- settings ------------------------------------------------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = "build/mutation"  # relative to ROOT: make takes no spaces in paths, ROOT may hold some
RESULTS = os.path.join(OUT, "results.tsv")
EQUIVALENTS = "tests/mutation_equivalent.txt"
RUBRIC = "grading/rubric.txt"
TARGET = 0.95
OPERATORS = ("relational", "off-by-one", "half", "and-or", "zero-one", "swap-args", "delete")
PLACEHOLDER = "/WB-MUTANT-BUILD"  # the exercise folder in the listed commands, replaced per mutant
FINGERPRINT_SEED = "4242"
MACHINE_FIELDS = {"device", "reps", "gbps", "copy_gbps", "pct_of_copy", "cpu_threads"}  # not compared
# The limits of make grade (grading/grade.py), so a mutant is built and run as a submission is.
BUILD_LIMIT_S = 300
BUILD_MEMORY = 16 << 30
BUILD_FILE_SIZE = 256 << 20
TEST_FILE_SIZE = 256 << 20
LOG_KEPT = 64 << 10
MARKER = re.compile(r"^\s*// ---- TODO (\d+) (begin|end)\b.*$", re.M)  # as grading/gate.py


def die(message):
    print(f"mutation: {message}", file=sys.stderr)
    sys.exit(2)


# ---- lexing --------------------------------------------------------------------------------------
# Tokens of C and CUDA C: comments and whitespace are dropped (so nothing in a comment is ever a
# site), strings and characters are kept whole (never mutated), a preprocessor line is one token.

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<str>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?)
  | (?P<chr>(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
  | (?P<num>0[xX][0-9a-fA-F']+[uUlL]*|(?:\d[\d']*(?:\.[\d']*)?|\.\d[\d']*)(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op><<<|>>>|<<=|>>=|\.\.\.|->|::|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^!=]=|.)
""", re.S | re.X)
KEYWORDS = {"if", "else", "for", "while", "do", "switch", "case", "default", "return", "break",
            "continue", "goto", "sizeof", "alignof", "decltype", "new", "delete", "throw", "true",
            "false", "nullptr", "this", "operator", "typedef", "using", "namespace", "template",
            "typename", "struct", "class", "union", "enum", "static_assert"}
RELATIONAL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ZERO = re.compile(r"0+(\.0*)?([eE][+-]?\d+)?[fFlLuU]*|\.0+([eE][+-]?\d+)?[fFlL]?")
INTEGER = re.compile(r"\d+")


class Token:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start):
        self.kind, self.text, self.start, self.end = kind, text, start, start + len(text)

    def __repr__(self):
        return f"{self.kind}:{self.text}"


def lex(text):
    """The code tokens of text (no comments, no whitespace)."""
    tokens, pos = [], 0
    while pos < len(text):
        line_start = text.rfind("\n", 0, pos) + 1
        if text[pos] == "#" and not text[line_start:pos].strip():
            end = pos
            while True:  # a directive runs on over lines that end with a backslash
                nl = text.find("\n", end)
                if nl < 0:
                    end = len(text)
                    break
                if text[nl - 1] != "\\":
                    end = nl
                    break
                end = nl + 1
            tokens.append(Token("pp", text[pos:end], pos))
            pos = end
            continue
        m = _TOKEN.match(text, pos)
        if m.lastgroup not in ("ws", "comment"):
            tokens.append(Token(m.lastgroup, m.group(), pos))
        pos = m.end()
    return tokens


class Source:
    """One file: its tokens, their brackets (( [ { and the <> of templates), enclosing blocks."""

    def __init__(self, path, text):
        self.path, self.text = path, text
        self.toks = lex(text)
        self.lines = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.match, self.parent, self.paren = {}, [], []
        stack, braces, parens = [], [], []
        for i, t in enumerate(self.toks):
            self.parent.append(braces[-1] if braces else None)
            self.paren.append(parens[-1] if parens else None)
            if t.kind != "op":
                continue
            if t.text in ("(", "[", "{"):
                stack.append(i)
                if t.text == "{":
                    braces.append(i)
                elif t.text == "(":
                    parens.append(i)
            elif t.text in (")", "]", "}") and stack:
                j = stack.pop()
                self.match[i], self.match[j] = j, i
                if t.text == "}" and braces and braces[-1] == j:
                    braces.pop()
                if t.text == ")" and parens and parens[-1] == j:
                    parens.pop()
        self.angle = self._templates()

    def line_col(self, offset):
        line = bisect_right(self.lines, offset)
        return line, offset - self.lines[line - 1] + 1

    def span(self, a, b):
        """Source text of tokens a .. b-1."""
        return self.text[self.toks[a].start:self.toks[b - 1].end]

    def at(self, i):
        return self.toks[i].text if 0 <= i < len(self.toks) else ""

    def statement_start(self, i):
        return i == 0 or self.at(i - 1) in (";", "{", "}") or self.toks[i - 1].kind == "pp"

    def _templates(self):
        """The angle brackets of templates and casts (open -> close and back): a `<` after a name
        whose contents look like template arguments and whose `>` is followed by ( :: or {, or
        any `<` after a *_cast or `template`. Every other < and > is a comparison."""
        t, pairs = self.toks, {}
        for i in range(1, len(t)):
            if t[i].text != "<" or t[i - 1].kind != "id" or t[i - 1].text in KEYWORDS - {"template"}:
                continue
            loose = t[i - 1].text.endswith("_cast") or t[i - 1].text == "template"
            depth, j, close = 1, i + 1, None
            while j < len(t):
                x = t[j].text
                if t[j].kind == "op" and x in ("(", "["):
                    if not loose:
                        break
                    j = self.match.get(j, len(t)) + 1
                    continue
                if x == "<" and t[j - 1].kind == "id":
                    depth += 1
                elif x == ">":
                    depth -= 1
                elif x in (";", "{", "}", "&&", "||", ")", "]", "?", ">>"):
                    break
                elif not loose and not (t[j].kind in ("id", "num") or x in ("::", ",", "*", "&")):
                    break
                if depth == 0:
                    close = j
                    break
                j += 1
            if close is None:
                continue
            after = self.at(close + 1)
            follows_name = close + 1 < len(t) and t[close + 1].kind == "id"
            if loose or after in ("(", "::", "{") or (follows_name and self.statement_start(i - 1)):
                pairs[i], pairs[close] = close, i
        return pairs

    def skip(self, j):
        """The index after the group that starts at j (a bracket or a template's <>), or j + 1."""
        if j in self.angle and self.at(j) == "<":
            return self.angle[j] + 1
        if self.toks[j].kind == "op" and self.toks[j].text in ("(", "[", "{") and j in self.match:
            return self.match[j] + 1
        return j + 1


# ---- declarations and types ----------------------------------------------------------------------
# Enough of C's declarations to know what a name is (a variable's type, a struct field's, a
# function's return type), which brackets are an array's size (never an index to mutate), and
# which initial values are integers. Types are strings: "int", "const float*", "float[]".

QUALIFIERS = {"const", "volatile", "static", "extern", "constexpr", "inline", "register", "mutable",
              "__shared__", "__constant__", "__device__", "__host__", "__global__",
              "__forceinline__", "__restrict__", "__restrict", "restrict", "__managed__"}
WITH_PARENS = {"__align__", "alignas", "__launch_bounds__", "__attribute__"}
BASE_WORDS = {"void", "bool", "char", "short", "int", "long", "float", "double", "signed",
              "unsigned", "auto", "size_t", "ptrdiff_t", "dim3", "CUtensorMap"}
MODIFIERS = {"signed", "unsigned", "short", "long"}
VECTOR_TYPE = re.compile(r"u?(char|short|int|long|longlong)[1-4]|float[1-4]|double[1-4]")
INTEGERS = {"char", "short", "int", "long", "long long", "unsigned int", "unsigned long",
            "unsigned long long", "unsigned short", "unsigned char", "size_t", "ptrdiff_t"}
RANK = {"bool": 0, "char": 0, "unsigned char": 0, "short": 0, "unsigned short": 0, "int": 1,
        "unsigned int": 2, "long": 3, "unsigned long": 4, "size_t": 4, "ptrdiff_t": 3,
        "long long": 5, "unsigned long long": 6, "float": 10, "double": 11}
RETURNS = {"make_float4": "float4", "make_float2": "float2", "fmaf": "float", "fminf": "float",
           "fmaxf": "float", "fabsf": "float", "sqrtf": "float"}  # CUDA's, not in our headers


def normal_base(words):
    s = " ".join(w for w in words if w != "signed")
    s = re.sub(r"\b(short|long|long long) int\b", r"\1", s)
    return {"unsigned": "unsigned int", "": "int"}.get(s, s)


class Declarator:
    __slots__ = ("name", "type", "sizes", "init", "function")

    def __init__(self, name, type_, sizes, init, function):
        self.name, self.type, self.sizes, self.init, self.function = name, type_, sizes, init, function


class Declaration:
    __slots__ = ("base", "declarators", "end")

    def __init__(self, base, declarators, end):
        self.base, self.declarators, self.end = base, declarators, end


def is_type_name(word, types):
    return (word in BASE_WORDS or word in types or word.endswith("_t")
            or VECTOR_TYPE.fullmatch(word) is not None)


def parse_declaration(src, i, types, single=False):
    """The declaration that starts at token i, or None. single: one declarator (a parameter)."""
    t, n = src.toks, len(src.toks)
    j, words, typed, const = i, [], False, False
    while j < n:
        x = t[j].text
        if x == "template" and src.at(j + 1) == "<" and j + 1 in src.angle:
            j = src.angle[j + 1] + 1
        elif x in QUALIFIERS:
            const |= x == "const"
            j += 1
        elif x in WITH_PARENS and src.at(j + 1) == "(":
            j = src.match.get(j + 1, n) + 1
        elif x in ("struct", "class", "union", "enum") and j + 1 < n and t[j + 1].kind == "id":
            if typed or src.at(j + 2) in ("{", ":"):
                return None  # a definition of the type itself
            words, typed, j = [f"{x} {t[j + 1].text}"], True, j + 2
        elif x in MODIFIERS or (x in BASE_WORDS and (not typed or words[-1:] == ["unsigned"])):
            words.append(x)
            typed, j = True, j + 1
        elif not typed and t[j].kind == "id" and is_type_name(x, types):
            words.append(x)
            typed, j = True, j + 1
            if src.at(j) == "<" and j in src.angle:
                j = src.angle[j] + 1
            while src.at(j) == "::" and j + 1 < n and t[j + 1].kind == "id":
                words[-1] += "::" + t[j + 1].text
                j += 2
        else:
            break
    if not typed:
        return None
    base = normal_base(words)
    declarators = []
    while j < n:
        stars, pointee_const = 0, const
        while src.at(j) in ("*", "&", "const", "__restrict__", "__restrict", "volatile"):
            stars += src.at(j) == "*"
            j += 1
        if j >= n or t[j].kind != "id" or t[j].text in KEYWORDS or t[j].text in QUALIFIERS:
            return None
        name, j = j, j + 1
        sizes = []
        while src.at(j) == "[" and j in src.match:
            sizes.append((j, src.match[j]))
            j = src.match[j] + 1
        function = src.at(j) == "(" and not sizes
        if function:
            j = src.match.get(j, n) + 1
            while src.at(j) in QUALIFIERS or src.at(j) in ("noexcept", "override"):
                j += 1
        init = None
        if src.at(j) == "=":
            a = k = j + 1
            while k < n and src.at(k) not in (",", ";", ")", "}"):
                k = src.skip(k)
            if k == a:
                return None
            init, j = (a, k), k
        type_ = base + ("*" * stars) + ("[]" * len(sizes))
        if pointee_const and (stars or sizes):
            type_ = "const " + type_
        declarators.append(Declarator(name, type_, sizes, init, function))
        if src.at(j) == "," and not single and not function:
            j += 1
            continue
        break
    if src.at(j) not in (";", ",", ")", "{", ":"):
        return None
    return Declaration(base, declarators, j)


def type_names(src):
    """Names that name types: struct, class, union and enum tags, typedefs, using, template
    type parameters."""
    t, names = src.toks, set()
    for i, tok in enumerate(t):
        x = tok.text
        if x in ("struct", "class", "union", "enum", "typename") and i + 1 < len(t) and t[i + 1].kind == "id":
            names.add(t[i + 1].text)
        elif x == "using" and i + 2 < len(t) and t[i + 1].kind == "id" and t[i + 2].text == "=":
            names.add(t[i + 1].text)
        elif x == "typedef":
            k, last, inner = i + 1, None, None
            while k < len(t) and t[k].text != ";":
                if t[k].kind == "id":
                    last = t[k].text
                if t[k].text == "(" and src.at(k + 1) == "*" and k + 2 < len(t):
                    inner = t[k + 2].text  # typedef R (*name)(...)
                k = src.skip(k) if t[k].text == "{" else k + 1
            if inner or last:
                names.add(inner or last)
    return names


class Types:
    """What the declarations of a file and its headers say: variables (this file's, with their
    scope), struct fields and function return types (every file's), enumerators."""

    def __init__(self, src, headers):
        self.src = src
        self.types = set()
        for s in [src] + headers:
            self.types |= type_names(s)
        self.vars = []      # (name, declared at, scope end, type), this file's
        self.fields, self.funcs, self.globals = {}, {}, {}
        for s in [src] + headers:
            self._scan(s, s is src)

    def _scan(self, s, own):
        t = s.toks
        for i, tok in enumerate(t):
            prev = s.at(i - 1) if i else ";"
            if tok.text == "enum":  # enumerators, in the scope the enum is declared in
                k = i + 1
                while k < len(t) and t[k].text not in ("{", ";"):
                    k += 1
                if s.at(k) == "{" and k in s.match:
                    # C++ gives an enumerator its enum's type (an int converts to it only by a
                    # cast): the typedef's name, the tag's, or int for an unnamed enum
                    close = s.match[k]
                    named = s.at(i - 1) == "typedef" and close + 1 < len(t) and t[close + 1].kind == "id"
                    tag = t[i + 1].text if t[i + 1].kind == "id" else None
                    kind = t[close + 1].text if named else f"enum {tag}" if tag else "int"
                    for e in range(k + 1, close):
                        if t[e].kind == "id" and s.at(e - 1) in ("{", ","):
                            self._var(s, own, t[e].text, i, kind, False)
                continue
            statement = i == 0 or t[i - 1].kind == "pp" or prev in (";", "{", "}")
            in_parens = prev in ("(", ",") and s.paren[i] is not None  # a parameter, a for's
            if not statement and not in_parens:
                continue
            d = parse_declaration(s, i, self.types, in_parens and s.at(s.paren[i] - 1) != "for")
            if d is None:
                continue
            field = s.parent[i] is not None and self._struct_body(s, s.parent[i])
            for dec in d.declarators:
                name = t[dec.name].text
                if dec.function:
                    self._put(self.funcs, name, dec.type)
                elif field:
                    self._put(self.fields, name, dec.type)
                else:
                    self._var(s, own, name, dec.name, dec.type, in_parens)

    @staticmethod
    def _put(table, name, type_):
        table[name] = type_ if table.get(name, type_) == type_ else None  # two types: unknown

    def _var(self, s, own, name, index, type_, in_parens):
        """A variable of this file (with its scope), or a header's global one."""
        if own:
            self.vars.append((name, s.toks[index].start, self._scope_end(s, index, in_parens), type_))
        elif self._file_scope(s, index):
            self._put(self.globals, name, type_)

    @staticmethod
    def _file_scope(s, index):
        """Outside any function or struct: only extern "C" and namespace blocks around it."""
        brace = s.parent[index]
        while brace is not None:
            if not (s.toks[brace - 1].kind == "str" or "namespace" in (s.at(brace - 1), s.at(brace - 2))):
                return False
            brace = s.parent[brace]
        return True

    @staticmethod
    def _struct_body(s, brace):
        k = brace - 1
        while k >= 0 and s.at(k) not in (";", "{", "}", "(", ")") and s.toks[k].kind != "pp":
            if s.at(k) in ("struct", "class", "union"):
                return True
            k -= 1
        return False

    @staticmethod
    def _scope_end(s, index, in_parens):
        """A parameter lives to the end of its function's body; anything else to the end of its
        block (a for's own variable: of the block around the for, a little wider than C's)."""
        if in_parens:
            close = s.match.get(s.paren[index])
            k = close + 1 if close is not None else len(s.toks)
            while s.at(k) in QUALIFIERS:
                k += 1
            if s.at(k) == "{" and k in s.match:
                return s.toks[s.match[k]].end
        brace = s.parent[index]
        if brace is None or brace not in s.match:
            return len(s.text)
        return s.toks[s.match[brace]].end

    def variable(self, name, offset):
        best = None
        for n, at, end, type_ in self.vars:
            if n == name and at <= offset < end and (best is None or at >= best[0]):
                best = (at, type_)
        if best:
            return best[1]
        return self.globals.get(name)  # a header's global or enumerator

    # -- the type of an expression (tokens a .. b-1), or None when not sure --

    def of(self, a, b):
        s = self.src
        while a < b and s.at(a) == "(" and s.match.get(a) == b - 1 and not self.is_cast(a):
            a, b = a + 1, b - 1
        if a >= b:
            return None
        parts = self._split(a, b, {"?"})
        if len(parts) > 1:
            colon = self._split(parts[1][0], b, {":"})
            if len(colon) != 2:
                return None
            x, y = self.of(*colon[0]), self.of(*colon[1])
            return x if x == y else None
        if len(self._split(a, b, {"&&", "||", "<", ">", "<=", ">=", "==", "!="})) > 1:
            return "bool"
        for ops in ({"+", "-"}, {"*", "/", "%"}):
            parts = self._split(a, b, ops)
            if len(parts) > 1:
                return self._combine([self.of(*p) for p in parts], "+" in ops)
        x = s.at(a)
        if x in ("-", "+", "~", "++", "--"):
            return self.of(a + 1, b)
        if x == "!":
            return "bool"
        if x == "&":
            inner = self.of(a + 1, b)
            return inner + "*" if inner else None
        if x == "*":
            return self._deref(self.of(a + 1, b))
        if x == "sizeof":
            return "size_t"
        if self.is_cast(a):
            return self._cast_type(a + 1, s.match[a])
        return self._postfix(a, b)

    def _postfix(self, a, b):
        s, t = self.src, self.src.toks
        x, j = t[a], a + 1
        if x.kind == "num":
            cur = literal_type(x.text)
        elif x.text in ("true", "false"):
            cur = "bool"
        elif x.kind == "id" and x.text in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
            if s.at(j) != "." or s.at(j + 1) not in ("x", "y", "z"):
                return None
            cur, j = "unsigned int", j + 2
        elif x.kind == "id" and s.at(j) == "<" and j in s.angle and x.text.endswith("_cast"):
            cur = self._cast_type(j + 1, s.angle[j])
            j = s.angle[j] + 1
            if s.at(j) != "(":
                return None
            j = s.match.get(j, b) + 1
        elif x.kind == "id" and s.at(j) == "(":
            cur = self.funcs.get(x.text, RETURNS.get(x.text))
            j = s.match.get(j, b) + 1
        elif x.kind == "id":
            cur = self.variable(x.text, x.start)
        elif x.text == "(" and a in s.match:
            cur = self.of(a + 1, s.match[a])
            j = s.match[a] + 1
        else:
            return None
        while j < b and cur is not None:
            y = s.at(j)
            if y == "[" and j in s.match:
                cur, j = self._deref(cur), s.match[j] + 1
            elif y in (".", "->") and j + 1 < b and t[j + 1].kind == "id":
                if s.at(j + 2) == "(":
                    return None  # a method: its type is not tracked
                cur, j = self.fields.get(t[j + 1].text), j + 2
            elif y in ("++", "--"):
                j += 1
            else:
                return None
        return cur

    def _split(self, a, b, ops):
        """Tokens a .. b-1 cut at the binary operators ops at depth 0."""
        s, parts, k, last = self.src, [], a, a
        while k < b:
            x = s.at(k)
            binary = k > a and (s.toks[k - 1].kind in ("id", "num") or s.at(k - 1) in (")", "]")
                                or (s.at(k - 1) == ">" and k - 1 in s.angle))
            if x in ops and k not in s.angle and binary:
                parts.append((last, k))
                last = k + 1
            k = s.skip(k)
        parts.append((last, b))
        return parts

    def is_cast(self, a):
        s = self.src
        close = s.match.get(a)
        if s.at(a) != "(" or close is None or close == a + 1 or close + 1 >= len(s.toks):
            return False
        inside = [s.toks[k] for k in range(a + 1, close)]
        if not all(tok.text in ("*", "const") or tok.text in MODIFIERS
                   or is_type_name(tok.text, self.types) or tok.text in ("struct",) for tok in inside):
            return False
        nxt = s.toks[close + 1]
        return nxt.kind in ("id", "num") or nxt.text in ("(", "-", "*", "&", "!", "~")

    def _cast_type(self, a, b):
        s = self.src
        words = [s.at(k) for k in range(a, b) if s.at(k) not in ("*", "const", "&")]
        stars = sum(s.at(k) == "*" for k in range(a, b))
        const = any(s.at(k) == "const" for k in range(a, b))
        base = normal_base(words) + "*" * stars
        return ("const " + base) if const and stars else base

    @staticmethod
    def _deref(type_):
        if not type_:
            return None
        if type_.endswith("[]") or type_.endswith("*"):
            inner = type_[:-2] if type_.endswith("[]") else type_[:-1]
            if inner.startswith("const ") and not inner.endswith(("*", "]")):
                inner = inner[6:]  # the element itself: its constness does not matter here
            return inner
        return None

    @staticmethod
    def _combine(types, additive):
        if any(x is None for x in types):
            return None
        pointers = [x for x in types if x.endswith(("*", "[]"))]
        if pointers:
            others = [x for x in types if x not in pointers]
            ok = additive and len(pointers) == 1 and all(x in INTEGERS for x in others)
            return pointers[0].replace("[]", "*") if ok else None
        if not all(x in RANK for x in types):
            return None
        return max(types, key=lambda x: RANK[x])


def literal_type(text):
    low = text.lower()
    if not low.startswith("0x") and re.search(r"[.e]", low):
        return "float" if low.endswith("f") else "double"
    return "unsigned int" if "u" in low else "long" if "l" in low else "int"


def headers_of(path, text, include_dirs, seen=None):
    """The Sources of the files text includes with quotes, found in include_dirs, recursively."""
    seen = set() if seen is None else seen
    found = []
    for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
        for d in [os.path.dirname(path)] + list(include_dirs):
            candidate = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(os.path.join(ROOT, candidate)):
                if candidate not in seen:
                    seen.add(candidate)
                    with open(os.path.join(ROOT, candidate), encoding="utf-8", errors="replace") as f:
                        body = f.read()
                    found.append(Source(candidate, body))
                    found += headers_of(candidate, body, include_dirs, seen)
                break
    return found


# ---- statements ----------------------------------------------------------------------------------
# A TODO block is a run of whole statements; each is parsed (if, loops, blocks, declarations,
# expression statements, jumps), so that one can be deleted alone and its declarations read.

class Statement:
    __slots__ = ("kind", "a", "b", "children", "decl", "sole", "has_else")

    def __init__(self, kind, a, b, children=(), decl=None, has_else=False):
        self.kind, self.a, self.b, self.children = kind, a, b, list(children)
        self.decl, self.sole, self.has_else = decl, False, has_else


class ParseError(Exception):
    pass


def parse_statements(src, a, b, types):
    """The statements of tokens a .. b-1 (a TODO block), each with its inner ones."""
    out = _seq(src, a, b, types)
    for s in out:
        _mark_sole(s, False)
    return out


def _expect(src, i, text, end):
    if i >= end or src.at(i) != text:
        raise ParseError(f"{src.path}: expected '{text}' at token {i}")
    return i


def parse_statement(src, i, end, types):
    x = src.at(i)
    if i >= end:
        raise ParseError(f"{src.path}: a statement runs past its TODO block")
    if src.toks[i].kind == "pp":  # a #pragma unroll goes with the loop after it
        s = parse_statement(src, i + 1, end, types)
        s.a = i
        return s
    if x == "{":
        close = src.match.get(i)
        if close is None or close >= end:
            raise ParseError(f"{src.path}: unbalanced braces")
        return Statement("block", i, close, _seq(src, i + 1, close, types))
    if x in ("if", "for", "while", "switch"):
        p = i + 1 + (src.at(i + 1) == "constexpr")
        close = src.match.get(_expect(src, p, "(", end))
        if close is None or close >= end:
            raise ParseError(f"{src.path}: unbalanced parentheses")
        decl = None
        if x == "for":
            decl = parse_declaration(src, p + 1, types.types)
        if x == "switch":
            body_end = src.match.get(_expect(src, close + 1, "{", end), end)
            return Statement("switch", i, body_end)
        body = parse_statement(src, close + 1, end, types)
        if x == "if" and src.at(body.b + 1) == "else" and body.b + 1 < end:
            other = parse_statement(src, body.b + 2, end, types)
            return Statement("if", i, other.b, [body, other], has_else=True)
        return Statement("if" if x == "if" else "loop", i, body.b, [body], decl)
    if x == "do":
        body = parse_statement(src, i + 1, end, types)
        w = _expect(src, body.b + 1, "while", end)
        close = src.match.get(_expect(src, w + 1, "(", end))
        return Statement("loop", i, _expect(src, close + 1, ";", end), [body])
    k = i
    while k < end and src.at(k) != ";":
        k = src.skip(k)
    if k >= end:
        raise ParseError(f"{src.path}: a statement without its ';' in a TODO block")
    if x == ";":
        return Statement("empty", i, i)
    if x in ("return", "break", "continue", "goto"):
        return Statement("jump", i, k)
    decl = parse_declaration(src, i, types.types)
    if decl is not None and decl.end == k:
        return Statement("decl", i, k, decl=decl)
    return Statement("expr", i, k)


def _seq(src, a, b, types):
    out, i = [], a
    while i < b:
        s = parse_statement(src, i, b, types)
        out.append(s)
        i = s.b + 1
    return out


def _mark_sole(s, sole):
    """sole: the statement is all an if without else, or a loop, runs: deleting it alone is the
    same as deleting the if or the loop, so it is not a mutant of its own."""
    s.sole = sole
    if s.kind == "block":
        for c in s.children:
            _mark_sole(c, sole and len(s.children) == 1)
    elif s.kind == "if":
        _mark_sole(s.children[0], not s.has_else)
        if s.has_else:
            _mark_sole(s.children[1], False)
    elif s.kind == "loop":
        _mark_sole(s.children[0], True)


def walk(statements):
    for s in statements:
        yield s
        yield from walk(s.children)


# ---- operators -----------------------------------------------------------------------------------
# Each yields (operator, first token, last token + 1, replacement text) for one TODO block's
# tokens a .. b-1 and its statements.

LOWER_THAN_ADDITIVE = {"<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&", "||",
                       "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
                       ">>=", ","}
OPERAND_ENDS = {")", "]", "}", ";", ",", "?", ":", "&&", "||", "&", "|", "^", "=", "+=", "-=",
                "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "==", "!=", "<", ">", "<=",
                ">="}


def plus_minus(src, a, b, delta):
    """Tokens a .. b-1 plus delta (+1 or -1), as text: a whole number folded, an expression with
    a looser operator than + in parentheses."""
    text = src.span(a, b)
    if b == a + 1 and INTEGER.fullmatch(text):
        return str(int(text) + delta)
    k, loose = a, False
    while k < b:
        loose |= src.at(k) in LOWER_THAN_ADDITIVE and k not in src.angle
        k = src.skip(k)
    sign = "+" if delta > 0 else "-"
    return f"({text}) {sign} 1" if loose else f"{text} {sign} 1"


def op_relational(src, a, b, statements, types):
    for i in range(a, b):
        x = src.at(i)
        if x in RELATIONAL and src.toks[i].kind == "op" and i not in src.angle:
            yield "relational", i, i + 1, RELATIONAL[x]


def right_operand(src, i, b):
    """The tokens after the comparison at i up to the end of its right operand."""
    j = i + 1
    while j < b:
        x = src.at(j)
        if x in OPERAND_ENDS and j not in src.angle and not (j == i + 1 and x == "&"):
            break
        j = src.skip(j)
    return i + 1, j


def declaration_sizes(statements):
    """The tokens of array sizes in the declarations: not indices."""
    sizes = set()
    for s in walk(statements):
        if s.decl:
            for d in s.decl.declarators:
                sizes.update(o for o, _ in d.sizes)
    return sizes


def op_off_by_one(src, a, b, statements, types):
    sizes = declaration_sizes(statements)
    sites = []
    for i in range(a, b):
        x = src.at(i)
        if x == "[" and i not in sizes and i in src.match and i > 0 and \
                (src.toks[i - 1].kind == "id" or src.at(i - 1) in (")", "]")):
            sites.append((i + 1, src.match[i]))
        elif x in RELATIONAL and src.toks[i].kind == "op" and i not in src.angle:
            sites.append(right_operand(src, i, b))
    for s in walk(statements):
        if s.decl and s.decl.base in INTEGERS:
            for d in s.decl.declarators:
                if d.init and not d.sizes and "*" not in d.type:
                    sites.append(d.init)
    for lo, hi in sorted(set(sites)):
        if lo < hi:
            for delta in (1, -1):
                yield "off-by-one", lo, hi, plus_minus(src, lo, hi, delta)


def multiplicative_start(src, types, end, floor):
    """The first token of the operand that ends at token end (inclusive), extended left over a
    chain of * / %: what a following `/ 2` divides."""
    def unary(k):
        while True:
            if src.at(k) in (")", "]") and k in src.match:
                k = src.match[k]
            elif src.toks[k].kind not in ("id", "num"):
                return None
            p = k - 1
            if p > floor and src.at(p) in (".", "->", "::"):
                k = p - 1
                continue
            if src.at(k) in ("(", "[") and p >= floor and (
                    (src.toks[p].kind == "id" and src.at(p) not in KEYWORDS) or src.at(p) in (")", "]")):
                k = p
                continue
            break
        if src.at(k - 1) == ")" and src.match.get(k - 1, -1) >= floor and types.is_cast(src.match[k - 1]):
            k = src.match[k - 1]  # (int)x
        while k - 1 >= floor and src.at(k - 1) in ("-", "+", "!", "~", "*", "&") and (
                k - 2 < floor or src.toks[k - 2].kind == "op" and src.at(k - 2) not in (")", "]")):
            k -= 1
        return k

    k = unary(end)
    while k is not None and k - 2 >= floor and src.at(k - 1) in ("*", "/", "%") and \
            (src.toks[k - 2].kind in ("id", "num") or src.at(k - 2) in (")", "]")):
        k = unary(k - 2)
    return k


def op_half(src, a, b, statements, types):
    for i in range(a + 1, b - 1):
        if src.at(i) != "/" or src.at(i + 1) != "2" or src.toks[i + 1].kind != "num":
            continue
        first = multiplicative_start(src, types, i - 1, a)
        if first is None:
            continue
        left, divide = src.span(first, i), src.text[src.toks[i].start:src.toks[i + 1].end]
        if src.at(first) == "(" and src.match.get(first) == i - 1:
            inner = src.span(first + 1, i - 1)
            if not any(src.at(k) in LOWER_THAN_ADDITIVE for k in range(first + 1, i - 1)):
                left = inner
        for sign in ("-", "+"):
            yield "half", first, i + 2, f"({left} {sign} 1) {divide}"


def op_and_or(src, a, b, statements, types):
    for i in range(a, b):
        if src.at(i) in ("&&", "||") and src.toks[i].kind == "op":
            yield "and-or", i, i + 1, "||" if src.at(i) == "&&" else "&&"


def op_zero_one(src, a, b, statements, types):
    for i in range(a, b):
        tok = src.toks[i]
        if tok.kind == "num" and ZERO.fullmatch(tok.text):
            zeros = len(tok.text) - len(tok.text.lstrip("0"))  # "0.0f" -> "1.0f", ".0f" -> "1.0f"
            yield "zero-one", i, i + 1, "1" + tok.text[zeros:]


def op_swap_args(src, a, b, statements, types):
    for i in range(a + 1, b):
        if src.at(i) != "(" or i not in src.match or src.match[i] >= b:
            continue
        prev = src.toks[i - 1]
        if not ((prev.kind == "id" and prev.text not in KEYWORDS and prev.text not in WITH_PARENS)
                or (prev.text == ">" and i - 1 in src.angle)):
            continue
        args, k, last, close = [], i + 1, i + 1, src.match[i]
        while k < close:
            if src.at(k) == ",":
                args.append((last, k))
                last = k + 1
            k = src.skip(k)
        args.append((last, close))
        if len(args) < 2 or any(lo >= hi for lo, hi in args):
            continue
        kinds = [types.of(lo, hi) for lo, hi in args]
        for p in range(len(args)):
            for q in range(p + 1, len(args)):
                if kinds[p] is None or kinds[p] != kinds[q] or src.span(*args[p]) == src.span(*args[q]):
                    continue
                (pa, pb), (qa, qb) = args[p], args[q]
                middle = src.text[src.toks[pb - 1].end:src.toks[qa].start]
                yield "swap-args", pa, qb, src.span(qa, qb) + middle + src.span(pa, pb)


def op_delete(src, a, b, statements, types):
    for s in walk(statements):
        if s.kind in ("expr", "jump", "if", "loop", "switch") and not s.sole:
            yield "delete", s.a, s.b + 1, ";"


# In this order where two give the same text: a literal 0 made 1 is zero-one's, not off-by-one's.
OPERATOR_FUNCTIONS = (op_relational, op_zero_one, op_off_by_one, op_half, op_and_or,
                      op_swap_args, op_delete)


# ---- the mutants of a file -----------------------------------------------------------------------

class Mutant:
    __slots__ = ("path", "line", "col", "op", "start", "end", "old", "new", "id")

    # The id names the place by its TODO block and its offset inside the block, not by the line:
    # an edit outside the blocks (a comment, the code around them) leaves every id, and so
    # tests/mutation_equivalent.txt, as it was.
    def __init__(self, path, line, col, op, start, end, old, new, block, offset):
        self.path, self.line, self.col, self.op = path, line, col, op
        self.start, self.end, self.old, self.new = start, end, old, new
        key = f"{path}\0{block}\0{offset}\0{op}\0{new}".encode()
        self.id = hashlib.sha256(key).hexdigest()[:10]

    def apply(self, text):
        return text[:self.start] + self.new + text[self.end:]

    def change(self, width=None):
        def shown(s):
            s = " ".join(s.split())
            return s if width is None or len(s) <= width else s[:width - 3] + "..."
        new = "(deleted)" if self.op == "delete" else shown(self.new)
        return f"{shown(self.old)} -> {new}"


def todo_blocks(text, named=False):
    """(start, end) offsets of each TODO block's inside, between its marker lines; named: with
    the block's name first ("3" for TODO 3, "3#2" for the second TODO 3 of the file)."""
    blocks, opened, seen = [], None, {}
    for m in MARKER.finditer(text):
        if m.group(2) == "begin":
            opened = m.end()
            seen[m.group(1)] = seen.get(m.group(1), 0) + 1
            name = m.group(1) + (f"#{seen[m.group(1)]}" if seen[m.group(1)] > 1 else "")
        elif opened is not None:
            blocks.append((name, opened, m.start()) if named else (opened, m.start()))
            opened = None
    return blocks


def mutants_of(path, text, include_dirs=()):
    """Every mutant of one file, in a fixed order, none of them twice (by id or by text)."""
    src = Source(path, text)
    types = Types(src, headers_of(path, text, include_dirs))
    found = []
    for block, lo, hi in todo_blocks(text, named=True):
        a = next((i for i, t in enumerate(src.toks) if t.start >= lo), len(src.toks))
        b = next((i for i, t in enumerate(src.toks) if t.start >= hi), len(src.toks))
        if a >= b:
            continue
        try:
            statements = parse_statements(src, a, b, types)
        except ParseError as e:
            print(f"mutation: warning: {e}: its statements are not mutated", file=sys.stderr)
            statements = []
        for rank, function in enumerate(OPERATOR_FUNCTIONS):
            for op, first, last, new in function(src, a, b, statements, types):
                start, end = src.toks[first].start, src.toks[last - 1].end
                old = text[start:end]
                if new == old:
                    continue
                line, col = src.line_col(start)
                found.append((start, rank, end, new, Mutant(path, line, col, op, start, end, old, new,
                                                             block, start - lo)))
    found.sort(key=lambda f: f[:4])
    seen_ids, seen_texts, out = set(), set(), []
    for *_, m in found:
        digest = hashlib.sha256(m.apply(text).encode()).digest()
        if m.id in seen_ids or digest in seen_texts:
            continue
        seen_ids.add(m.id)
        seen_texts.add(digest)
        out.append(m)
    return out


# ---- chapters and the battery --------------------------------------------------------------------

def all_chapters():
    return sorted(d for d in os.listdir(os.path.join(ROOT, "chapters"))
                  if re.fullmatch(r"[0-9][0-9]_\w+", d)
                  and os.path.isfile(os.path.join(ROOT, "chapters", d, "chapter.mk")))


def chapter_mutants(chapter):
    """Every mutant of one chapter's solution files, file by file in name order."""
    folder = os.path.join("solutions", chapter)
    out = []
    for name in sorted(n for n in os.listdir(os.path.join(ROOT, folder)) if n.endswith(".cu")):
        path = f"{folder}/{name}"
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        out += mutants_of(path, text, [folder, f"chapters/{chapter}", "common"])
    return out


class Test:
    __slots__ = ("name", "labels", "limit", "threads", "argv")

    def __init__(self, name, labels, limit, threads, argv):
        self.name, self.labels, self.limit, self.threads, self.argv = name, labels, limit, threads, argv


def rubric_patterns(nn):
    """The regular expressions of the rubric's groups of chapter nn that test the kernel (all but
    speed: correctness, edge cases, sanitizers)."""
    patterns = []
    with open(os.path.join(ROOT, RUBRIC), encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4 and fields[0] == nn and fields[1] != "speed":
                patterns.append(fields[3])
    return patterns


def battery(chapter):
    """The chapter's student battery, in the order it runs: the quick tests as listed, then the
    others, cheap ones first and the sanitizers last. Commands name the exercise folder as
    PLACEHOLDER; the solution program must be built (tests/ctest_list.sh asks it its limits)."""
    try:
        listed = processes.test_list([chapter], PLACEHOLDER, clean_environment())
    except RuntimeError as e:
        die(f"tests/ctest_list.sh failed for {chapter}: {e}")
    nn, patterns = chapter[:2], rubric_patterns(chapter[:2])
    tests = [Test(t["name"], t["labels"], t["limit"], t["threads"], t["argv"]) for t in listed
             if t["name"].startswith(f"ch{nn}_") and "exercise" in t["labels"]
             and any(re.search(p, t["name"]) for p in patterns)]
    quick = [t for t in tests if "quick" in t.labels]
    rest = sorted((t for t in tests if "quick" not in t.labels),
                  key=lambda t: ("sanitizer" in t.labels, t.limit * t.threads))
    return quick + rest


def test_row(t):
    return [t.name, t.labels, t.limit, t.threads, [a.replace(ROOT, "ROOT") for a in t.argv]]


@functools.lru_cache(maxsize=None)
def workbook_hash():
    """The code every battery runs besides the submission: the harness (common/) and the
    chapters' drivers (chapters/). A change there can kill a survivor (a stronger check), so a
    survivor's verdict is keyed by it too; a kill is not (test_hash): a check made stronger kills
    what it killed before. Read once a run: the tree the run started from."""
    digest = hashlib.sha256()
    for top in ("common", "chapters"):
        for folder, dirs, files in sorted(os.walk(os.path.join(ROOT, top))):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".c", ".h", ".cu", ".cuh", ".mk")):
                    path = os.path.join(folder, name)
                    digest.update(os.path.relpath(path, ROOT).encode() + b"\0")
                    with open(path, "rb") as f:
                        digest.update(f.read() + b"\0")
    return digest.hexdigest()[:16]


def battery_hash(tests, gpus):
    """What a verdict depends on besides the mutant's sources: the battery's commands (the
    workbook's path left out), how many GPUs ran it (a multi-GPU test skips with fewer) and the
    harness and drivers (workbook_hash)."""
    text = json.dumps([[test_row(t) for t in tests], len(gpus), FINGERPRINT_SEED, workbook_hash()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_hash(t, gpus):
    """What a kill depends on: the one test that failed. A test added to the battery, or another
    one changed, does not bring a mutant back that this test kills."""
    text = json.dumps([test_row(t), len(gpus)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---- processes -----------------------------------------------------------------------------------
# Every build and test runs as make grade runs them (grading/processes.py: limits, a process group
# of its own, killed at its limit); the groups still running are killed when this program is
# interrupted.

def clean_environment(extra=None):
    return processes.clean_environment(extra, prefix="WB_MUTATION_")


def interrupted(signum, frame):
    processes.kill_all()
    print(f"\nmutation: interrupted; the verdicts reached so far are kept in {RESULTS}",
          file=sys.stderr)
    os._exit(130)


def read_log(path):
    return processes.read_log(path, LOG_KEPT)


def usable_gpu():
    devinfo = os.path.join(ROOT, "build", "devinfo")
    return os.access(devinfo, os.X_OK) and \
        subprocess.run([devinfo], capture_output=True, cwd=ROOT).returncode == 0


def visible_gpus():
    """The GPUs the batteries spread over, as CUDA_VISIBLE_DEVICES entries (as tests/run_suite.sh
    counts them); [None]: one that needs no setting."""
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        listed = [g for g in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if g.strip()]
    else:
        try:
            out = subprocess.run(["nvidia-smi", "--list-gpus"], capture_output=True, text=True).stdout
        except OSError:
            out = ""
        listed = [str(k) for k in range(sum(line.startswith("GPU ") for line in out.splitlines()))]
    return listed or [None]


class GpuGate:
    """One-GPU tests share the GPUs; a multi-GPU test (NCCL, whose kernels spin while their peer
    waits for a time slice) runs alone on all of them, as tests/run_suite.sh runs them."""

    def __init__(self):
        self.cond, self.shared, self.alone, self.waiting = threading.Condition(), 0, False, 0

    def take(self, alone):
        with self.cond:
            if alone:
                self.waiting += 1
                self.cond.wait_for(lambda: not self.alone and self.shared == 0)
                self.waiting, self.alone = self.waiting - 1, True
            else:
                self.cond.wait_for(lambda: not self.alone and self.waiting == 0)
                self.shared += 1

    def give(self, alone):
        with self.cond:
            if alone:
                self.alone = False
            else:
                self.shared -= 1
            self.cond.notify_all()


# ---- builds and batteries ------------------------------------------------------------------------

class Chapter:
    """One chapter's run: its battery, its reference build, its mutants."""

    def __init__(self, name):
        self.name, self.nn = name, name[:2]
        self.files = sorted(n for n in os.listdir(os.path.join(ROOT, "solutions", name)) if n.endswith(".cu"))
        self.sources = {}
        for n in self.files:
            with open(os.path.join(ROOT, "solutions", name, n), encoding="utf-8") as f:
                self.sources[n] = f.read()
        self.tests, self.hash, self.test_hashes = [], "", {}
        self.reference = os.path.join(OUT, self.nn, "reference")
        self.reference_ok = None       # the reference passed its battery
        self.reference_prints = None   # its outputs' fingerprints, once a survivor needs them
        self.lock = threading.Lock()

    def submission(self, m):
        """The sources of mutant m as a submission (None: the reference): name -> text."""
        files = dict(self.sources)
        if m is not None:
            name = os.path.basename(m.path)
            files[name] = m.apply(files[name])
        return files

    def key(self, files, killer=None):
        """The key of a verdict on these sources under this battery; with killer (a test's
        name), the key of a kill by that test, whatever else the battery holds."""
        digest = hashlib.sha256()
        for name in sorted(files):
            digest.update(name.encode() + b"\0" + files[name].encode() + b"\0")
        return f"{digest.hexdigest()[:16]}-" + (f"t{self.test_hashes[killer]}" if killer else self.hash)

    def verdict(self, results, m):
        """The recorded verdict on mutant m under this battery: its own, or a kill by a test the
        battery still holds unchanged (so strengthening a battery re-runs only its survivors)."""
        files = self.submission(m)
        row = results.get(self.key(files))
        for t in self.tests if row is None else ():
            row = results.get(self.key(files, t.name))
            if row is not None:
                break
        return row


def write_if_changed(path, text):
    """Writes text unless the file holds it already (so make sees an unchanged file as built)."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def build(ch, folder, files, mutated=None, limit_s=BUILD_LIMIT_S):
    """Builds one submission in folder (relative to ROOT) as make grade would: its sources under
    src/<chapter>/, its objects and program under build/. The objects of files it leaves as the
    reference's are copied from the reference's build rather than compiled again. Returns make's
    exit code (124: past its time limit) and the seconds it took."""
    src = os.path.join(folder, "src", ch.name)
    out = os.path.join(folder, "build")
    os.makedirs(os.path.join(ROOT, src), exist_ok=True)
    for name, text in files.items():
        write_if_changed(os.path.join(ROOT, src, name), text)
    if mutated is not None:
        # The reference's objects with their own times, and each unmutated source with the time
        # of the reference's copy: make then rebuilds one only if a header is newer than it.
        objects = os.path.join(ROOT, out, ch.name, "exercise")
        os.makedirs(objects, exist_ok=True)
        for name in files:
            given = os.path.join(ROOT, ch.reference, "build", ch.name, "exercise", name[:-3])
            if name == mutated or not os.path.isfile(given + ".o"):
                continue
            mine = os.path.join(ROOT, src, name)
            reference_source = os.stat(os.path.join(ROOT, ch.reference, "src", ch.name, name))
            os.utime(mine, ns=(reference_source.st_atime_ns, reference_source.st_mtime_ns))
            for suffix in (".o", ".o.d"):
                if os.path.isfile(given + suffix):
                    shutil.copy2(given + suffix, os.path.join(objects, name[:-3] + suffix))
    make = ["make", "-s", "-j1", f"EXERCISES={folder}/src", f"EXERCISE_BUILD={out}", "WITH_SOLUTION=1",
            f"{out}/ch{ch.name}_exercise"]
    return processes.run_limited(make, os.path.join(ROOT, folder, "build.log"), limit_s,
                                 BUILD_MEMORY, BUILD_FILE_SIZE, clean_environment())


def resolve(argv, program_dir):
    return [a.replace(PLACEHOLDER, program_dir) for a in argv]


def verdict(rc, data, token):
    """A test's status as make grade reads it: only the token lines of this run count."""
    mine = [v.decode() for t, v in re.findall(rb"^wb-grade (\S+) verdict (\S+)", data, re.M)
            if t.decode() == token]
    if rc == 77:
        return "skipped"
    if rc in (124, 137) or re.search(rb"stopped after .* \(WB_TIME_LIMIT_S\)", data):
        return "timeout"
    if rc == 0 and mine and all(v == "na" for v in mine):
        return "n/a"
    if rc == 0 and mine and all(v in ("pass", "na") for v in mine):
        return "pass"
    return "fail"


class Runner:
    """Judges submissions: --jobs builds at once, one battery per GPU slot, each verdict recorded
    as it comes."""

    def __init__(self, gpus, slots, jobs, results, build_only, keep):
        self.results, self.build_only, self.keep = results, build_only, keep
        self.slots = queue.Queue()
        for g in gpus:
            for _ in range(slots):
                self.slots.put(g)
        self.units, self.gate = Cores(os.cpu_count() or 2), GpuGate()
        self.builds = threading.Semaphore(jobs)
        self.printing = threading.Lock()

    def say(self, text):
        with self.printing:
            print(f"mutation: {text}", flush=True)

    def judge(self, ch, m, number=0, total=0, known_good=False):
        """Builds mutant m (None: the chapter's reference), runs its battery, records the verdict
        (the reference's: whether it passes, in ch.reference_ok; known_good: it passed this
        battery before, so it is only built). The log line gives the build's and the battery's
        seconds: where a run's time goes."""
        files = ch.submission(m)
        key, mid = ch.key(files), m.id if m else "reference"
        folder = ch.reference if m is None else os.path.join(OUT, ch.nn, m.id)
        with self.builds:
            k = self.units.take(1)
            try:
                rc, build_s = build(ch, folder, files, os.path.basename(m.path) if m else None)
            finally:
                self.units.give(k)
        took = f"build {build_s:.0f} s"
        if m is None and (rc != 0 or self.build_only or known_good):
            ch.reference_ok = rc == 0
            self.say(f"ch{ch.nn}: the reference " + (
                f"does not build ({folder}/build.log says why)" if rc != 0 else
                f"builds ({took}); it passed this battery before" if known_good else f"builds ({took})"))
            return
        if rc != 0:  # a build past its time limit is tried again next time: not recorded
            self.results.put(key, ch.nn, mid, "not_compiled", "time limit" if rc == 124 else "",
                             cache=rc != 124)
            self.say(f"ch{ch.nn} [{number}/{total}] {mid} does not compile"
                     + (" (time limit)" if rc == 124 else "") + f" ({took})")
        elif self.build_only:
            self.say(f"ch{ch.nn} [{number}/{total}] {mid} built ({took})")
        else:
            program_dir = os.path.join(ROOT, folder, "build")
            logs = os.path.join(ROOT, folder, "logs")
            gpu = self.slots.get()
            try:
                outcome, detail, battery_s, killer = self.battery(ch, program_dir, logs, gpu)
                took += f", battery {battery_s:.0f} s"
                if m is None:
                    ch.reference_ok = outcome == "survived"
                    if ch.reference_ok:
                        self.results.put(key, ch.nn, mid, "reference_pass", detail)
                    self.say(f"ch{ch.nn}: the reference " + (
                        "passes its battery" if ch.reference_ok else
                        f"fails its battery: {detail} ({folder}/logs)" if outcome == "killed" else
                        "could not be checked: no test of its battery ran here") + f" ({took})")
                    return
                if outcome == "survived":
                    candidate = self.candidate(ch, program_dir, logs, gpu)
                    detail = candidate + (";" + detail if detail else "")
            finally:
                self.slots.put(gpu)
            self.results.put(key, ch.nn, mid, outcome, detail, cache=outcome != "not_run")
            if killer:
                self.results.put(ch.key(files, killer), ch.nn, mid, outcome, detail)
            self.say(f"ch{ch.nn} [{number}/{total}] {mid} {outcome}" + (f": {detail}" if detail else "")
                     + f" ({took})")
        if m is not None and not self.keep:  # a mutant's program is large; its sources and logs stay
            shutil.rmtree(os.path.join(ROOT, folder, "build"), ignore_errors=True)

    def run_test(self, t, program_dir, gpu, log, extra=(), err=None):
        token = secrets.token_hex(16)
        env = clean_environment({"OMP_NUM_THREADS": str(t.threads), "OMP_WAIT_POLICY": "PASSIVE",
                                 "WB_TIME_LIMIT_S": str(t.limit), "WB_GRADE_TOKEN": token})
        alone = "multi_gpu" in t.labels
        if gpu is not None and not alone:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        self.gate.take(alone)
        k = self.units.take(t.threads)
        try:
            rc, seconds = processes.run_limited(resolve(t.argv, program_dir) + list(extra), log,
                                                t.limit + 30, None, TEST_FILE_SIZE, env,
                                                t.threads, err)
        finally:
            self.units.give(k)
            self.gate.give(alone)
        return verdict(rc, read_log(log), token), seconds

    def battery(self, ch, program_dir, logs, gpu):
        """(outcome, detail, seconds, killer): killed (by the first test that failed: killer, its
        name), survived (detail: how many tests were skipped), or not_run (no test could run);
        and the battery's seconds."""
        os.makedirs(logs, exist_ok=True)
        passed = skipped = 0
        spent = 0.0
        for t in ch.tests:
            status, seconds = self.run_test(t, program_dir, gpu, os.path.join(logs, t.name + ".log"))
            spent += seconds
            if status in ("fail", "timeout"):
                return "killed", f"{t.name} ({status})", spent, t.name
            passed += status == "pass"
            skipped += status == "skipped"
        if not passed:
            return "not_run", "no test of the battery could run here", spent, None
        return "survived", f"skipped:{skipped}" if skipped else "", spent, None

    def fingerprint(self, ch, program_dir, logs, gpu):
        """The check lines (--json, one fixed --seed) of every battery test that runs the
        program directly (through env or need_gpus.sh at most), sanitizers left out: test ->
        normalised JSON lines, or None where the test did not pass."""
        prints = {}
        os.makedirs(logs, exist_ok=True)
        program = os.path.join(program_dir, f"ch{ch.name}_exercise")
        for t in ch.tests:
            argv = resolve(t.argv, program_dir)
            if "sanitizer" in t.labels or program not in argv:
                continue
            before = argv[:argv.index(program)]
            if not all(a in ("env", "sh") or re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*|[0-9]+", a)
                       or a.endswith("/need_gpus.sh") for a in before):
                continue
            log = os.path.join(logs, f"{t.name}.json")
            extra = ("--seed", FINGERPRINT_SEED, "--json")
            status, _ = self.run_test(t, program_dir, gpu, log, extra, log + ".err")
            lines = []
            for line in read_log(log).decode("utf-8", "replace").splitlines():
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict):  # what the kernel computed, not where or how fast
                    row = {k: v for k, v in row.items() if k not in MACHINE_FIELDS and not k.endswith("_ms")}
                    lines.append(json.dumps(row, sort_keys=True))
            prints[t.name] = lines if status == "pass" and lines else None
        return prints

    def candidate(self, ch, program_dir, logs, gpu):
        """same:N (the survivor's outputs equal the reference's on N tests), differs:TEST, or
        unknown (no test could be compared)."""
        with ch.lock:
            if ch.reference_prints is None:
                ch.reference_prints = self.fingerprint(
                    ch, os.path.join(ROOT, ch.reference, "build"),
                    os.path.join(ROOT, ch.reference, "prints"), gpu)
        mine = self.fingerprint(ch, program_dir, logs, gpu)
        compared = 0
        for name, lines in ch.reference_prints.items():
            if lines is None:
                continue
            if mine.get(name) != lines:
                return f"differs:{name}"
            compared += 1
        return f"same:{compared}" if compared else "unknown"


# ---- results and equivalents ---------------------------------------------------------------------

class Results:
    """build/mutation/results.tsv: key, chapter, id, outcome, detail; the last line of a key
    wins. Appended as verdicts come, so an interrupted run loses none."""

    def __init__(self):
        self.rows, self.lock = {}, threading.Lock()
        try:
            with open(os.path.join(ROOT, RESULTS), encoding="utf-8") as f:
                for line in f:
                    fields = line.rstrip("\n").split("\t")
                    if len(fields) == 5:
                        self.rows[fields[0]] = fields[1:]
        except OSError:
            pass

    def get(self, key):
        return self.rows.get(key)

    def put(self, key, nn, mid, outcome, detail, cache=True):
        with self.lock:
            self.rows[key] = [nn, mid, outcome, detail]
            if cache:
                os.makedirs(os.path.join(ROOT, OUT), exist_ok=True)
                with open(os.path.join(ROOT, RESULTS), "a", encoding="utf-8") as f:
                    f.write("\t".join([key, nn, mid, outcome, detail.replace("\t", " ")]) + "\n")


def read_equivalents(path=None):
    """id -> (reason, line number). One mutant a line, `<id> <reason>`; # starts a comment line."""
    path, listed = path or EQUIVALENTS, {}
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return listed
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(None, 1)
        if not re.fullmatch(r"[0-9a-f]{10}", fields[0]):
            die(f"{path}:{number}: '{fields[0][:20]}' is not a mutant id (10 hex digits, as --list prints)")
        if len(fields) < 2 or not fields[1].strip():
            die(f"{path}:{number}: {fields[0]} has no reason: say why it cannot change any output")
        if fields[0] in listed:
            die(f"{path}:{number}: {fields[0]} is listed twice (first on line {listed[fields[0]][1]})")
        listed[fields[0]] = (fields[1].strip(), number)
    return listed


# ---- the report ----------------------------------------------------------------------------------

def report(chapters, mutants, results, equivalents, notes):
    """The table and the survivors; returns whether every chapter reached TARGET."""
    rows, survivors, ok, unjudged = [], [], True, 0
    for ch in chapters:
        counts = dict(mutants=0, killed=0, survived=0, equivalent=0, not_compiled=0, not_run=0)
        if ch.reference_ok is False:
            rows.append((ch.nn, None, "not judged: its reference does not build, or fails its battery"))
            ok = False
            continue
        for m in mutants[ch.name]:
            row = ch.verdict(results, m)
            outcome, detail = (row[2], row[3]) if row else ("not_run", "")
            counts["mutants"] += 1
            if outcome == "survived" and m.id in equivalents and not detail.startswith("differs:"):
                outcome = "equivalent"
            if outcome in counts:
                counts[outcome] += 1
            if outcome == "survived":
                survivors.append((ch, m, detail))
            if outcome == "killed" and m.id in equivalents:
                notes.append(f"{EQUIVALENTS}:{equivalents[m.id][1]}: {m.id} is listed as equivalent, "
                             f"but {detail} kills it: remove the line")
        judged = counts["mutants"] - counts["equivalent"] - counts["not_compiled"] - counts["not_run"]
        score = counts["killed"] / judged if judged else None
        if (score is not None and score < TARGET) or counts["not_run"]:
            ok = False  # a mutant not judged yet leaves the target unproven
            unjudged += counts["not_run"]
        rows.append((ch.nn, counts, score))
    print(f"{'chapter':>7} {'mutants':>8} {'killed':>7} {'survived':>9} {'equivalent':>11} "
          f"{'not compiled':>13} {'score':>7}")
    for nn, counts, score in rows:
        if counts is None:
            print(f"{nn:>7}  {score}")
            continue
        shown = f"{100 * score:.1f}%" if score is not None else "-"
        line = (f"{nn:>7} {counts['mutants']:>8} {counts['killed']:>7} {counts['survived']:>9} "
                f"{counts['equivalent']:>11} {counts['not_compiled']:>13} {shown:>7}")
        if counts["not_run"]:
            line += f"  ({counts['not_run']} not run)"
        print(line)
    if survivors:
        print(f"survivors (the battery passed them; {EQUIVALENTS} does not list them as equivalent):")
    for ch, m, detail in survivors:
        outputs = {"same": "outputs same as the reference's: a candidate equivalent",
                   "differs": "outputs differ from the reference's", "unknown": "outputs not compared"}
        kind = detail.split(":")[0] if detail else "unknown"
        why = outputs.get(kind, "")
        if kind == "differs":
            why += f" in {detail.split(':', 1)[1].split(';')[0]}"
        if m.id in equivalents:
            why += f"; listed as equivalent on line {equivalents[m.id][1]}, but its outputs differ"
        print(f"  {ch.nn} {m.id} {m.path}:{m.line} {m.op}: {m.change(100)}  ({why})")
    for note in notes:
        print(f"mutation: warning: {note}")
    print(f"mutation: target {100 * TARGET:.0f}% of the non-equivalent mutants that compile, per chapter: "
          + ("reached" if ok else "NOT reached")
          + (f" ({unjudged} mutants not judged yet)" if unjudged else ""))
    return ok


# ---- main ----------------------------------------------------------------------------------------

def parse_arguments(argv):
    opts = dict(chapters=[], jobs=None, slots=None, limit=None, list=False, build_only=False, keep=False,
                only=None, report=False)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--jobs", "--slots", "--limit"):
            if i + 1 >= len(argv) or not re.fullmatch(r"[1-9][0-9]{0,4}", argv[i + 1]):
                die(f"{a} needs a positive whole number")
            opts[a[2:]] = int(argv[i + 1])
            i += 2
            continue
        if a == "--only":
            if i + 1 >= len(argv) or not re.fullmatch(r"[0-9a-f]{10}(,[0-9a-f]{10})*", argv[i + 1]):
                die("--only needs mutant ids (10 hex digits), comma-separated")
            opts["only"] = set(argv[i + 1].split(","))
            i += 2
            continue
        if a in ("--list", "--build-only", "--keep", "--report"):
            opts[a[2:].replace("-", "_")] = True
        elif re.fullmatch(r"[0-9][0-9]", a):
            opts["chapters"].append(a)
        elif a in ("-h", "--help"):
            print("\n\n".join(__doc__.split("\n\n")[1:3]))
            sys.exit(0)
        else:
            die(f"unknown argument '{a}' (chapters as NN; --list, --jobs N, --slots N, --limit N, "
                "--only IDS, --build-only, --keep, --report)")
        i += 1
    if not opts["chapters"] and os.environ.get("WB_MUTATION_CH", "").strip():
        for nn in re.split(r"[\s,]+", os.environ["WB_MUTATION_CH"].strip()):
            if not re.fullmatch(r"[0-9][0-9]", nn):
                die(f"CH='{os.environ['WB_MUTATION_CH']}' is not a chapter number NN")
            opts["chapters"].append(nn)
    if opts["jobs"] is None:
        jobs = os.environ.get("WB_MUTATION_JOBS", "")
        if jobs and not re.fullmatch(r"[1-9][0-9]{0,3}", jobs):
            die(f"JOBS='{jobs}' is not a positive whole number")
        opts["jobs"] = int(jobs) if jobs else (os.cpu_count() or 2)
    return opts


def list_mutants(selected, mutants):
    counts = {}
    for chapter in selected:
        for m in mutants[chapter]:
            print(f"{m.id}\t{chapter[:2]}\t{m.path}:{m.line}:{m.col}\t{m.op}\t{m.change()}")
            counts.setdefault(chapter[:2], {}).setdefault(m.op, 0)
            counts[chapter[:2]][m.op] += 1
    print(f"# {'chapter':>7} {'mutants':>8} " + " ".join(f"{op:>10}" for op in OPERATORS))
    for nn, by_op in counts.items():
        print(f"# {nn:>7} {sum(by_op.values()):>8} "
              + " ".join(f"{by_op.get(op, 0):>10}" for op in OPERATORS))
    total = {op: sum(c.get(op, 0) for c in counts.values()) for op in OPERATORS}
    print(f"# {'all':>7} {sum(total.values()):>8} " + " ".join(f"{total[op]:>10}" for op in OPERATORS))


def main(argv):
    opts = parse_arguments(argv)
    known = all_chapters()
    selected = []
    for nn in opts["chapters"] or [c[:2] for c in known]:
        chapter = next((c for c in known if c.startswith(nn + "_")), None)
        if chapter is None:
            die(f"no chapter {nn} (chapters: {' '.join(c[:2] for c in known)})")
        if chapter not in selected:
            selected.append(chapter)
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        die("this copy has no solutions/ (a student's copy): nothing to mutate")
    everything = {c: chapter_mutants(c) for c in known}  # all chapters: stale ids are looked up there
    chosen = {c: [m for m in everything[c] if opts["only"] is None or m.id in opts["only"]][:opts["limit"]]
              for c in selected}
    if opts["only"]:
        missing = opts["only"] - {m.id for ms in chosen.values() for m in ms}
        if missing:
            die(f"--only: no mutant {' '.join(sorted(missing))} in chapters "
                + " ".join(c[:2] for c in selected))
        selected = [c for c in selected if chosen[c]]
    if opts["list"]:
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--list | head` ends quietly
        list_mutants(selected, chosen)
        return 0
    equivalents = read_equivalents()
    notes = []
    ids = {m.id for ms in everything.values() for m in ms}
    for mid, (reason, number) in equivalents.items():
        if mid not in ids:
            notes.append(f"{EQUIVALENTS}:{number}: no mutant {mid} any more (stale: remove the line)")
    if not opts["build_only"] and not opts["report"] and not usable_gpu():
        print("mutation: no usable GPU here (build/devinfo says why; run make first): the batteries "
              "cannot run, so no mutant was judged (exit 77; --build-only builds them)")
        return 77
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)

    # What every submission links beside its own objects, built once, before the builds that
    # share it run side by side.
    jobs = opts["jobs"]
    shared = ["build/devinfo"] + [f"build/ch{c}{end}" for c in selected for end in ("", "_exercise")]
    shared += [f"build/{c}/renamed/{n[:-3]}.o" for c in selected
               for n in sorted(os.listdir(os.path.join(ROOT, "solutions", c))) if n.endswith(".cu")]
    os.makedirs(os.path.join(ROOT, OUT), exist_ok=True)
    log = os.path.join(ROOT, OUT, "shared.log")
    with open(log, "w") as f:
        if subprocess.run(["make", "-s", f"-j{jobs}"] + shared, cwd=ROOT, env=clean_environment(),
                          stdout=f, stderr=subprocess.STDOUT).returncode != 0:
            die(f"the workbook does not build ({OUT}/shared.log says why)")

    gpus = visible_gpus()
    results = Results()
    slots = opts["slots"] or min(8, max(2, (os.cpu_count() or 2) // (2 * len(gpus))))
    runner = Runner(gpus, slots, jobs, results, opts["build_only"], opts["keep"])
    chapters = [Chapter(c) for c in selected]
    mutants = {c.name: chosen[c.name] for c in chapters}
    for ch in chapters:
        ch.tests = battery(ch.name)
        if not ch.tests:
            die(f"{RUBRIC} selects no test of chapter {ch.nn}: it has no battery")
        ch.hash = battery_hash(ch.tests, gpus)
        ch.test_hashes = {t.name: test_hash(t, gpus) for t in ch.tests}
    if opts["report"]:
        for ch in chapters:
            cached = results.get(ch.key(ch.submission(None)))
            ch.reference_ok = True if cached and cached[2] == "reference_pass" else None
        return 0 if report(chapters, mutants, results, equivalents, notes) else 1

    # Each chapter's reference first (a chapter whose reference fails its battery has no mutants
    # to judge); its mutants join the queue as soon as it is judged, not after every chapter's.
    # A reference that passed this battery before is only built: its objects are the mutants'.
    # Builds run ahead of the batteries by at most --jobs mutants (their folders are removed once
    # judged, so the disk holds no more than that many programs).
    def start(ch, pool):
        cached = results.get(ch.key(ch.submission(None)))
        known_good = bool(cached and cached[2] == "reference_pass") and not opts["build_only"]
        runner.judge(ch, None, known_good=known_good)
        if not ch.reference_ok:
            return []
        todo = [m for m in mutants[ch.name]
                if opts["build_only"] or not ch.verdict(results, m)]
        runner.say(f"ch{ch.nn}: {len(mutants[ch.name])} mutants, {len(mutants[ch.name]) - len(todo)} "
                   f"judged before ({RESULTS}), {len(todo)} to {'build' if opts['build_only'] else 'judge'}")
        return [pool.submit(runner.judge, ch, m, k + 1, len(todo)) for k, m in enumerate(todo)]

    with ThreadPoolExecutor(max_workers=jobs + runner.slots.qsize()) as pool, \
            ThreadPoolExecutor(max_workers=len(chapters)) as references:
        for f in [g for s in [references.submit(start, ch, pool) for ch in chapters]
                  for g in s.result()]:
            f.result()
    if opts["build_only"]:
        failed = [ch.nn for ch in chapters if not ch.reference_ok]
        for ch in chapters:
            broken = sum(1 for m in mutants[ch.name]
                         if (ch.verdict(results, m) or [""] * 4)[2] == "not_compiled")
            runner.say(f"ch{ch.nn}: reference {'built' if ch.reference_ok else 'FAILED to build'}; "
                f"{len(mutants[ch.name]) - broken} of {len(mutants[ch.name])} mutants built, {broken} "
                "do not compile")
        return 1 if failed else 0
    return 0 if report(chapters, mutants, results, equivalents, notes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
