#!/bin/sh
# handout.sh: the student's copy works as its README says (make handout, grading/handout.sh).
#
#   sh tests/handout.sh ROOT SCRATCH_DIR
#
# Writes the copy with `make handout`, then checks what it holds (no solutions/, no line of a
# solution's TODO blocks anywhere, a README with no workbook-only part and no reference program
# to run) and runs there, each with the exit code its documentation gives: make, make help,
# make compile CH=NN for every chapter, make check CH=01, make progress, make test, make run, and
# the instructor's targets (refused, exit 2). The copy's build starts from this build's compiled
# objects (the same sources and flags: what the workbook's own build proves), so it links its
# programs and writes its test list itself in seconds instead of compiling for minutes. The
# drivers (main.o) compile again there: the workbook's require the earlier chapters' kernels,
# which a copy leaves out.
# Without a GPU: make test passes with the GPU tests skipped, the check says nothing ran. With
# one: the unsolved check fails with a hint, make run lists chapter 04 as not solved; make test
# runs with the GPU hidden (its GPU tests are make check's, checked here through CH=01).
root=$1 scratch=$2
copy="$scratch/copy"
fail() {
    echo "handout: $*"
    exit 1
}
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
log="$scratch/log"
run_into() { # LOG EXPECTED_EXIT WHAT COMMAND...: runs COMMAND in the copy, output in LOG
    out=$1 want=$2 what=$3
    shift 3
    start=$(date +%s)
    (cd "$copy" && "$@") >"$out" 2>&1
    got=$?
    [ "$got" -eq "$want" ] || { tail -30 "$out"; fail "$what exited $got, not $want"; }
    echo "handout: $what: exit $got, $(($(date +%s) - start)) s"
}
run() { run_into "$log" "$@"; } # EXPECTED_EXIT WHAT COMMAND...: output in $log

# ---- the copy and what it holds ---------------------------------------------------------------
msg=$(cd "$root" && make -s handout DIR="$root/chapters/handout_inside" 2>&1) &&
    fail "a DIR inside the workbook was accepted"
printf '%s\n' "$msg" | grep -q "lies inside the workbook" || fail "inside the workbook: '$msg'"
msg=$(cd "$root" && make -s handout 2>&1) && fail "make handout without DIR was accepted"
printf '%s\n' "$msg" | grep -q "give the folder" || fail "no DIR: '$msg'"
mkdir -p "$scratch/full" && : >"$scratch/full/kept"
msg=$(cd "$root" && make -s handout DIR="$scratch/full" 2>&1) && fail "a non-empty DIR was accepted"
[ -f "$scratch/full/kept" ] || fail "make handout touched a non-empty folder"
[ ! -e "$root/chapters/handout_inside" ] || fail "make handout left a folder inside the workbook"
msg=$(cd "$root" && make -s handout DIR="$copy" 2>&1) || fail "make handout failed: $msg"

[ ! -e "$copy/solutions" ] || fail "the copy has solutions/"
[ -f "$copy/exercises/01_basic_1d/conv1d_basic.cu" ] || fail "the copy has no exercises"
for kit in grading/gradescope.sh grading/gradescope grading/serve_grade.py grading/classroom.py; do
    [ ! -e "$copy/$kit" ] || fail "the copy has $kit, the instructor's deployment kit"
done
grep -q 'workbook only\|handout only' "$copy/README.md" && fail "the README kept its markers"
grep -q '^## For instructors' "$copy/README.md" && fail "the README kept the instructors' part"
grep -n 'build/ch[0-9][0-9]_[a-z0-9_]*[a-z0-9]\b' "$copy/README.md" | grep -v '_exercise' &&
    fail "the README tells students to run a reference program"
# No solution line: a line of a solution's TODO blocks long enough to be an answer (not a brace),
# that no exercise and no driver or common code holds, appears in no code or test file of the
# copy. (The lessons may show an earlier chapter's kernel when they build on it: they are read as
# lessons, by tests/lesson_structure.sh and their reviewers.)
for solution in "$root"/solutions/*/*.cu; do
    awk '/---- TODO [0-9]+ begin/ { inside = 1; next } /---- TODO [0-9]+ end/ { inside = 0 }
         inside { sub(/^[ \t]+/, ""); if (length($0) >= 24) print }' "$solution" |
        sort -u | while IFS= read -r line; do
            grep -rqF --include='*.c' --include='*.cu' --include='*.h' --include='*.cuh' -- \
                "$line" "$root/exercises" "$root/chapters" "$root/common" && continue
            found=$(grep -rlF --exclude='*.md' -- "$line" "$copy" | head -1)
            [ -z "$found" ] || { echo "handout: '$line' (a line of $solution) is in $found"; exit 1; }
        done || exit 1
done

# ---- the commands -----------------------------------------------------------------------------
mkdir -p "$copy/build"
(cd "$root/build" && { find common libworkbook.a imginfo devinfo tests -maxdepth 1 \
    \( -name '*.o' -o -name 'libworkbook.a' -o -name imginfo -o -name devinfo -o -name 'unit_*' \) \
    -type f 2>/dev/null; find [0-9][0-9]_* \( -path '*/driver/*.o' -o \
    -path '*/exercise/*.o' -o -path '*/exercise/*.o.d' \) -type f 2>/dev/null; } >"$scratch/objects"
    tar -cf - -T "$scratch/objects") | tar -xf - -C "$copy/build" || fail "could not seed the build"
run 0 "make" make
[ -x "$copy/build/ch02_constant_mask_exercise" ] || fail "make built no exercise program"
# shellcheck disable=SC2010 # the build's program names, which are plain
ls "$copy"/build/ch[0-9][0-9]_* | grep -v '_exercise$' | grep -q . &&
    fail "make built a reference program in the copy"
nm "$copy/build/ch02_constant_mask_exercise" | grep -q ' [wv] conv1d_basic_launch$' ||
    fail "chapter 01's kernel is not left out (weak and undefined) of chapter 02's program"
run 0 "make help" make help
grep -q 'make grade\|make similarity\|make report' "$log" && fail "make help lists the instructor's targets"
grep -q 'make check' "$log" || fail "make help lists no make check"
# make compile for every chapter, the longest part of this test, runs beside the commands below
# (in a subshell with a log of its own): each writes only build/compile/NN and chapter NN's
# checksum, and chapter 01's, which make check CH=01 writes too, is compiled first, alone.
compile_chapters() { # LOG CHAPTER_MK...: make compile CH=NN for each, output in LOG
    into=$1
    shift
    for entry in "$@"; do
        nn=$(basename "$(dirname "$entry")" | cut -c1-2)
        run_into "$into" 0 "make compile CH=$nn" make compile CH="$nn" SM=90
        grep -q 'conv\|kernel\|host code only' "$into" || fail "make compile CH=$nn printed no table"
    done
}
set -- "$copy"/chapters/[0-9][0-9]_*/chapter.mk
compile_chapters "$log" "$1"
shift
compile_chapters "$scratch/compile.log" "$@" >"$scratch/compile.out" 2>&1 &
compiling=$!
for target in grade report mutants handout gradescope similarity; do
    run 2 "make $target" make "$target"
    grep -q "part of the full workbook" "$log" || fail "make $target does not say why"
done

gpu=yes
"$copy/build/ch01_basic_1d_exercise" --check --size 3 >/dev/null 2>&1
[ $? -eq 77 ] && gpu=
if [ -z "$gpu" ]; then
    run 0 "make check CH=01 (no GPU)" make check CH=01 JOBS=2
    grep -q 'no usable GPU here' "$log" || fail "make check without a GPU did not say so"
else
    run 2 "make check CH=01 (unsolved)" make check CH=01 JOBS=2
    grep -q 'hint \[' "$log" || fail "the unsolved check gave no hint"
fi
run 0 "make progress" make progress JOBS=2
grep -q '01' "$log" || fail "make progress names no chapter"
run 0 "make test" env CUDA_VISIBLE_DEVICES= make test JOBS=2
# What ran, from CTest's JUnit report (tests/run_suite.sh writes it, tests/ctest_junit.sh reads it)
ran=$(sh "$root/tests/ctest_junit.sh" list "$copy"/build/Testing/suite_*.xml 2>/dev/null)
printf '%s\n' "$ran" | grep -q '^passed ' || fail "make test ran no CTest test that passed"
printf '%s\n' "$ran" | cut -d' ' -f2- | grep -q 'solution' && fail "make test in the copy ran a solution test"
if [ -n "$gpu" ]; then
    # chapter 04's run step alone (the others' run lines dropped in this scratch copy): seconds
    for entry in "$copy"/chapters/[0-9][0-9]_*/chapter.mk; do
        case $entry in */04_cached_tiling/*) ;; *) sed -i '/^run *=/d' "$entry" ;; esac
    done
    run 0 "make run (chapter 04, unsolved)" make run
    grep -q 'not solved yet.* 04' "$log" || fail "make run did not list chapter 04 as not solved"
else
    run 0 "make run (no GPU)" make run
    grep -q 'no usable CUDA device here' "$log" || fail "make run without a GPU did not say so"
fi
wait "$compiling"
compiled=$?
cat "$scratch/compile.out"
[ "$compiled" -eq 0 ] || fail "make compile failed in a chapter (above)"
echo "handout: the copy holds no solution line; make, help, compile (every chapter), check," \
    "progress, test and run work there${gpu:+ (on a GPU)}; the instructor's targets say why not"
