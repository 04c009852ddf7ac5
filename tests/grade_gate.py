"""grade_gate.py: the gate (grading/gate.py) lets every reference solution's object through,
refuses one attack for each of its text rules with the rule's name, and lets honest blocks pass.

  python3 tests/grade_gate.py ROOT       (a CPU test after make all: no compiler runs)
"""
import glob
import os
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "grading"))
import gate  # noqa: E402

failures = []
# (chNN_exercise_drift runs the text rules on every solution.) The object rules on every built
# solution object, against its exercise's.
for solution in sorted(glob.glob(os.path.join(root, "solutions", "*", "*.cu"))):
    chapter, name = solution.split(os.sep)[-2:]
    obj = os.path.join(root, "build", chapter, "solution", name[:-3] + ".o")
    p_obj = os.path.join(root, "build", chapter, "exercise", name[:-3] + ".o")
    if os.path.exists(obj) and os.path.exists(p_obj + ".d"):
        refused = gate.object_refusals(name, obj, p_obj + ".d", p_obj, p_obj + ".d", obj)
        if refused:
            failures.append(f"{chapter}/{name}: the solution's object is refused: {refused[0]}")
    else:
        failures.append(f"{chapter}/{name}: no built objects (make all first)")

pristine = open(os.path.join(root, "exercises", "01_basic_1d", "conv1d_basic.cu")).read()
marker = "// ---- TODO 1 begin: give each thread one output\n"
attacks = {  # a TODO block's first lines: the rule that must refuse them
    '#include "/etc/passwd"\n': "no-preprocessor",
    "#define N 3\n": "no-preprocessor",
    '%:include "x"\n': "no-digraphs",
    "int a = 0; <% %>\n": "no-digraphs",
    "}\nvoid extra() {\n": "balanced",
    "if (1) {\n": "balanced",
    "/* open\n": "balanced",
    'const char *s = "open;\n': "balanced",
    'const char *s = R"(x)";\n': "no-raw-strings",
    "int a = 1; \\\n": "no-line-splice",
    'asm("syscall");\n': "no-banned-words",
    '__attribute__((constructor)) int x;\n': "no-banned-words",
    '_Pragma("once") int y;\n': "no-banned-words",
    'printf("wb-grade");\n': "no-banned-words",
    "else return;\n": "whole-statements",
    "if (threadIdx.x == 0)\n": "whole-statements",
    '// a note\r#include "/etc/passwd"\n': "no-control-characters",  # a lone CR ends the line
    "int a = 0;\x1b\n": "no-control-characters",
}
for code, rule in attacks.items():
    refused = gate.text_refusals("conv1d_basic.cu", pristine.replace(marker, marker + code), pristine, False)
    if rule not in {r.rule for r in refused}:
        failures.append(f"{code.strip()!r}: not refused by {rule} ({refused})")
fine = ["#pragma unroll\n", "#pragma unroll 4\n", "char c = '}'; int big = 1'000;\n",
        "const char *s = \"}\"; // }\n"]
for code in fine:
    refused = gate.text_refusals("conv1d_basic.cu", pristine.replace(marker, marker + code), pristine, False)
    if refused:
        failures.append(f"{code.strip()!r}: refused ({refused[0]})")
moved = pristine.replace("int blocks = ", "int blocks = 0 + ")
if [r.rule for r in gate.text_refusals("f.cu", moved, pristine, False)] != ["no-drift"]:
    failures.append("a change outside the blocks is not refused as no-drift")
if gate.text_refusals("f.cu", moved, pristine, True):
    failures.append("GRADE_ALLOW_DRIFT does not let a change outside the blocks through")
fake_end = pristine.replace(marker, marker + "// ---- TODO 1 end\nint evil;\n// ---- TODO 1 begin: x\n")
if "markers" not in {r.rule for r in gate.text_refusals("f.cu", fake_end, pristine, True)}:
    failures.append("extra TODO markers are not refused")
# make check's warning: the block rules alone, on a student's files (exit 1 and the rule's name).
import subprocess  # noqa: E402
scratch = os.path.join(root, "build", "tests", "tmp_grade_gate")
os.makedirs(scratch, exist_ok=True)
refused_file = os.path.join(scratch, "conv1d_basic.cu")
open(refused_file, "w").write(pristine.replace(marker, marker + "#define DEBUG 1\n"))
blocks = [sys.executable, os.path.join(root, "grading", "gate.py"), "--blocks"]
r = subprocess.run(blocks + [refused_file], capture_output=True, text=True)
if r.returncode != 1 or "line 16: rule no-preprocessor" not in r.stdout:
    failures.append(f"--blocks on a #define: exit {r.returncode}, {r.stdout!r}")
r = subprocess.run(blocks + sorted(glob.glob(os.path.join(root, "exercises", "*", "*.cu"))),
                   capture_output=True, text=True)
if r.returncode != 0 or r.stdout:
    failures.append(f"--blocks refuses an untouched exercise: {r.stdout!r}")
for f in failures:
    print("grade_gate: " + f)
print(f"grade_gate: {len(attacks)} attacks, {len(fine)} honest blocks, every solution's object; "
      f"{len(failures)} problems")
sys.exit(1 if failures else 0)
