#!/bin/sh
# ctest_list.sh: writes the whole test list, build/CTestTestfile.cmake (no CMake needed).
#
#   sh tests/ctest_list.sh ROOT "CHAPTERS" > build/CTestTestfile.cmake     (the Makefile does this)
#
# Needs the built programs: each chapter's limits are asked of its program (--spec; the solution,
# or the exercise in a copy without solutions/). Labels: cpu (no GPU needed), gpu (skips with exit
# 77 where there is none), chNN, solution (the reference kernels must pass), guard (the unsolved
# exercises must fail), exercise (the student's own kernels must pass: `make check CH=NN`), quick
# (the few tests `make check` runs first for its first verdict). `make test` runs all but exercise
# (in a student's copy: all, exercise included, and no solution or guard test is listed).
# Environment: WB_EXERCISE_DIR (where the exercise programs are; default ROOT/build: the grader
# points it at a submission's build), WB_LIST_FORMAT=tsv (one line per test for the grader:
# name, labels, time limit, threads, then the command, shell-quoted).
#
# Threads and time limits: every GPU test runs its CPU reference on OpenMP threads (1, or
# HEAVY_THREADS for the tests declared heavy) and tells CTest so (PROCESSORS), so CTest never runs
# more threads than `ctest -j` allows; idle OpenMP threads sleep instead of spinning
# (OMP_WAIT_POLICY=PASSIVE). Every GPU test has a time limit: the program's own watchdog
# (WB_TIME_LIMIT_S) stops it with a message naming the likely cause, and CTest's TIMEOUT, a little
# later, catches anything the watchdog cannot.
# What bounds `make test`: starting GPU processes. A CUDA context costs about 0.2 s of work that
# parallel processes cannot overlap, most of it the driver making the context's 8 hardware
# queues; with one queue (device_one_queue, which every program but chapters 08 and 10 asks for)
# about a third of that. So the list keeps GPU processes few (the reference's lengths, blocks,
# named masks and PNGs run in one process each; the tests of written files run with the first
# chapter of each dimension) and cheap. Each test's time grows with how many run at once, so the
# wall time is about the tests' seconds x PROCESSORS over the jobs.
# Sections: settings and helpers (add: one test, its resources given where it is declared),
# common-module tests, the student's copy, grading, lessons, the report, numbers and options,
# files that are not what they seem, the registry, then one block per chapter: its battery
# (tests/battery_<D>d.sh) and its own tests (tests/chapter_NN.sh), sourced in the chapter's
# context (what each reads and sets, its map says).
root=$1
chapters=$2
b="$root/build"
exercise_dir=${WB_EXERCISE_DIR:-$b}
expect="$root/tests/expect_exit.sh"
fixtures="$root/tests/fixtures"
# What a test's settings words (add, below) name; without any, a test takes 1 thread and
# TIME_LIMIT_S.
HEAVY_THREADS=4       # heavy: a CPU reference of 2^26 values or more
TIME_LIMIT_S=60       # a GPU test: several times what the slowest ordinary one needs
HEAVY_LIMIT_S=120     # heavy: the 2^26-value tests and chapter 06's sweep over every variant
SANITIZER_LIMIT_S=240 # sanitizer: compute-sanitizer slows a program down 10-100 times
# cost=N: CTest's COST for the tests that take several of its slots; CTest starts the highest
# first (until a run has left its own measurements in build/Testing/Temporary/CTestCostData.txt)
# and fills the slots left over with one-slot tests. With all of them equal, chapter 06's sweep
# (about 35 s) starts late and ends the run; with the longest first and nothing else, the
# multi-slot tests take every slot at once and the one-slot tests then crowd the GPU together.
# So: the longest start at once (costs 100 to 80: chapter 06's sweep, chapter 10's two-GPU
# tests, the grader's and the student's-loop tests, the handout), the 2^26-value and 8192x8192
# tests (50 to 70) follow as slots free up, and one-slot tests keep running beside them all
# along. A one-slot test long enough (10 s or more on the H100) that starting it among the last
# would end make test late gets a cost too (30): CTest starts it with the multi-slot ones.
# visible: the context of a battery (set around it by the chapter loop below): what its GPU tests
# see (CUDA_VISIBLE_DEVICES, from the registry's battery_gpus; empty: every GPU).
visible=''
harness_checked= # the dimensions whose harness tests have been added (first_of_dims)

# A student's copy (make handout: no solutions/) lists the tests of what it holds: the CPU tests
# of the common code and the programs' command lines (run on the exercise programs), and the
# student's own checks (label exercise); not the reference's, the guards, the grader's, the
# report's or the registry's, whose files stay with the instructor.
handout=
[ -d "$root/solutions" ] || handout=1

# die MESSAGE: stops the generator, saying what is wrong.
die() {
    echo "ctest_list.sh: $*" >&2
    exit 1
}
# add [SETTING...] NAME LABELS COMMAND... : one test; GPU tests (label gpu) get SKIP_RETURN_CODE
# 77, their threads, environment and time limit. A test's resources are SETTINGs, words before
# its NAME (a later one wins):
#   threads=N  the CPU threads it takes: CTest's PROCESSORS, a GPU test's OpenMP threads (default 1)
#   limit=S    its time limit (default TIME_LIMIT_S)
#   cost=N     CTest's COST (above; default none)
#   lock=NAME  a CTest RESOURCE_LOCK: tests holding the same one never run at once (chapter 10's
#              two-GPU tests: see its chapter_10.sh)
#   heavy      a CPU reference of 2^26 values or more: HEAVY_THREADS threads, HEAVY_LIMIT_S
#   sanitizer  run under compute-sanitizer: SANITIZER_LIMIT_S, and the label sanitizer (make grade
#              runs these last, and not for a chapter whose kernel hung)
#   skip77     a CPU test that needs an optional tool (python3, matplotlib) and exits 77,
#              reported as skipped, where it is missing
# (t_* names: the callers have their own $name and $labels.)
add() {
    t_threads=1 t_limit=$TIME_LIMIT_S t_cost='' t_lock='' t_skip='' t_label=''
    while :; do
        case $1 in
        threads=*) t_threads=${1#*=} ;;
        limit=*) t_limit=${1#*=} ;;
        cost=*) t_cost=${1#*=} ;;
        lock=*) t_lock=${1#*=} ;;
        heavy) t_threads=$HEAVY_THREADS t_limit=$HEAVY_LIMIT_S ;;
        sanitizer) t_limit=$SANITIZER_LIMIT_S t_label=';sanitizer' ;;
        skip77) t_skip=1 ;;
        *) break ;;
        esac
        shift
    done
    t_name=$1 t_labels=$2$t_label
    shift 2
    # a misspelt setting would be taken for the name, a misspelt number printed as 0
    case $t_name in *=*) die "add: no setting '$t_name'" ;; esac
    case $t_threads$t_limit$t_cost in *[!0-9]*) die "add $t_name: threads, limit, cost: whole numbers" ;; esac
    if [ -n "$handout" ]; then
        case ";$t_labels;" in *";solution;"* | *";guard;"* | *";grading;"*) return ;; esac
        case $t_name in grade_* | report_* | registry_* | handout | *_exercise_drift) return ;; esac
    fi
    # a battery given several GPUs (battery_gpus) takes several: the multi-GPU phase, one at a time
    case $visible in *,*) t_labels="$t_labels;multi_gpu" t_lock=multi_gpu ;; esac
    if [ "${WB_LIST_FORMAT:-}" = tsv ]; then
        printf '%s\t%s\t%s\t%s\t' "$t_name" "$t_labels" "$t_limit" "$t_threads"
        for arg in "$@"; do printf "'%s' " "$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")"; done
        printf '\n'
        return
    fi
    # a one-GPU test takes one of CTest's GPUs where a resource spec is given (tests/run_suite.sh)
    case ";$t_labels;" in
    *";multi_gpu;"*) ;;
    *";gpu;"*) set -- sh "$root/tests/gpu_slot.sh" "$@" ;;
    esac
    printf 'add_test(%s' "$t_name"
    for arg in "$@"; do printf ' "%s"' "$(printf '%s' "$arg" | sed 's/[\\"]/\\&/g')"; done
    printf ')\n'
    printf 'set_tests_properties(%s PROPERTIES LABELS "%s"' "$t_name" "$t_labels"
    [ -n "$t_skip" ] && printf ' SKIP_RETURN_CODE 77'
    case ";$t_labels;" in *";gpu;"*)
        printf ' SKIP_RETURN_CODE 77 TIMEOUT %d' $((t_limit + 30))
        printf ' ENVIRONMENT "OMP_NUM_THREADS=%d;OMP_WAIT_POLICY=PASSIVE;WB_TIME_LIMIT_S=%d%s"' \
            "$t_threads" "$t_limit" "${visible:+;CUDA_VISIBLE_DEVICES=$visible}"
        ;;
    esac
    case ";$t_labels;" in *";multi_gpu;"*) ;; *";gpu;"*) printf ' RESOURCE_GROUPS "gpus:1"' ;; esac
    [ -n "$t_lock" ] && printf ' RESOURCE_LOCK %s' "$t_lock"
    printf ' PROCESSORS %d' "$t_threads"
    [ -n "$t_cost" ] && printf ' COST %d' "$t_cost" # CTest starts the highest cost first
    printf ')\n'
}
# usage_error NAME REGEX COMMAND... : bad input must give exit 2 and a one-line message.
usage_error() {
    name=$1 pattern=$2
    shift 2
    add "$name" "cpu" "$expect" 2 "$pattern" -- "$@"
}
[ "${WB_LIST_FORMAT:-}" = tsv ] || echo "# Generated by tests/ctest_list.sh: edit that file, not this one."

# ---- common modules (CPU) --------------------------------------------------------------------
add unit_image_io "cpu" "$b/tests/unit_image_io" "$b/tests/tmp_image_io"
# One program per module of common/ (tests/unit_MODULE.c); those that write files get a scratch
# folder of their own. unit_lowrank draws fresh random masks and prints their seed.
add unit_data_gen "cpu" "$b/tests/unit_data_gen"
add unit_masks "cpu" "$b/tests/unit_masks" "$b/tests/tmp_masks"
add unit_reference "cpu" "$b/tests/unit_reference"
add unit_verify "cpu" "$b/tests/unit_verify" "$b/tests/tmp_verify"
add unit_cli "cpu" "$b/tests/unit_cli" "$b/tests/tmp_cli"
add unit_safe_output "cpu" "$b/tests/unit_safe_output" "$b/tests/tmp_safe_output"
add unit_lowrank "cpu" "$b/tests/unit_lowrank"
add unit_harness "cpu" "$b/tests/unit_harness"
add unit_verdict "cpu" "$b/tests/unit_verdict" "$b/tests/tmp_verdict"
# Hints: each simulated bug is named for what it is (fresh random data; the seed is printed).
add unit_diagnose "cpu" "$b/tests/unit_diagnose"
add unit_streams "cpu" "$b/tests/unit_streams" "$b/tests/tmp_streams"
add unit_volumes "cpu" "$b/tests/unit_volumes" "$b/tests/tmp_volumes"
add unit_slabs "cpu" "$b/tests/unit_slabs"
add hint_lesson_sections "cpu" "$root/tests/hint_sections.sh" "$root"
usage_error imginfo_missing_file "cannot open" "$b/imginfo" "$fixtures/no_such_file.png"
usage_error imginfo_not_png "not a PNG" "$b/imginfo" "$fixtures/not_a_png.png"
usage_error imginfo_truncated_png "truncated|corrupt" "$b/imginfo" "$fixtures/truncated.png"
usage_error imginfo_huge_png "limit" "$b/imginfo" "$fixtures/huge_header.png"
usage_error imginfo_truncated_npy "truncated|short|holds" "$b/imginfo" "$fixtures/truncated.npy"
# A 69-byte PNG that claims 2 GiB of interlaced RGBA16 rows is refused before any large
# allocation; a real image compressed about as hard as deflate allows still loads.
usage_error imginfo_png_claims_more_than_it_holds "deflate cannot expand" "$b/imginfo" \
    "$fixtures/tiny_claims_huge_rgba16_interlaced.png"
add imginfo_png_max_compression "cpu" "$expect" 0 "4096 x 4096, 1 channel" -- "$b/imginfo" \
    "$fixtures/black_4096_max_compression.png"
# What a hostile file or argument holds is echoed escaped: one clean line (expect_exit.sh).
# A name holding a C1 control (a CSI, U+009B, as UTF-8) is printed escaped, like a C0 one.
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
add imginfo_name_c1_control "cpu" "$expect" 0 "a\\\\xc2\\\\x9bb.png: 13 x 7" -- sh -c \
    'n="$1/$(printf "a\302\233b").png" && cp "$2" "$n" && exec "$3" "$n"' sh "$b/tests" \
    "$fixtures/gray8_13x7.png" "$b/imginfo"
usage_error imginfo_descr_control_characters "holds '<f\\\\x0d\\\\x1b\\[2J' data" "$b/imginfo" \
    "$fixtures/descr_control.npy"

# ---- the student's copy (CPU; on a GPU machine it also runs the check) -------------------------
# make handout, then the commands its README gives, run in it with JOBS=2: two of CTest's slots.
add threads=2 cost=80 handout "cpu" "$root/tests/handout.sh" "$root" "$b/tests/handout"

# make check's stages and verdicts, on stand-in tests (no GPU needed).
add check_stages "cpu" "$root/tests/check_stages.sh" "$root" "$b/tests/check_stages"
# ... and they catch a wrong reading of CTest's report, planted one at a time in a copy.
add check_stages_catches "cpu" "$root/tests/check_stages.sh" "$root" "$b/tests/check_stages_catches" --plants
# make progress from a half-done workbook: solved, failing with its hint, untouched, next. On a
# GPU machine it builds the exercises and runs chapter 01's whole check (21 tests) with JOBS=8
# inside: eight slots, and one of the longest tests (with JOBS=4, 70 s of make test's 100 s on a
# host of four H100s: its tests took 5 to 17 s each there, 0.2 to 6 s alone).
add threads=8 cost=90 skip77 progress_states "cpu" env JOBS=8 "$root/tests/progress_states.sh" \
    "$root" "$b/tests/progress_states"

# make profile's table and messages, with a stand-in for ncu (no GPU needed).
add skip77 profile_cli "cpu" "$root/tests/profile_cli.sh" "$root"

# ---- grading (CPU; on a GPU machine it also runs the students' kernels) ------------------------
# The grader's bad settings: exit 2 and one line, before anything is built or run.
grade_refuses() { # NAME PATTERN SUBMISSION SUBMISSIONS JOBS [VAR=VALUE...]
    name=$1 pattern=$2 sub=$3 subs=$4 grade_jobs=$5
    shift 5
    usage_error "grade_$name" "$pattern" env WB_GRADE_CHAPTER_LIST="$chapters" \
        WB_GRADE_SUBMISSION="$sub" WB_GRADE_SUBMISSIONS="$subs" WB_GRADE_JOBS="$grade_jobs" "$@" \
        python3 "$root/grading/grade.py"
}
grade_refuses time_limit_words "GRADE_TIME_LIMIT='soon' is not a whole number" "" "" 2 \
    GRADE_TIME_LIMIT=soon
grade_refuses build_limit_zero "GRADE_BUILD_LIMIT='0' is not a whole number" "" "" 2 \
    GRADE_BUILD_LIMIT=0
grade_refuses build_limit_huge "GRADE_BUILD_LIMIT='90000' is not a whole number" "" "" 2 \
    GRADE_BUILD_LIMIT=90000
grade_refuses time_limit_zeros "GRADE_TIME_LIMIT='00' is not a whole number" "" "" 2 \
    GRADE_TIME_LIMIT=00
grade_refuses seed_words "GRADE_SEED='soon' is not a whole number" "" "" 2 GRADE_SEED=soon
grade_refuses seed_leading_zero "GRADE_SEED='07' is not a whole number" "" "" 2 GRADE_SEED=07
grade_refuses jobs_words "JOBS='many' is not a positive whole number" "" "" many
grade_refuses jobs_zeros "JOBS='00' is not a positive whole number" "" "" 00
# JOBS past 32 is capped (stdout says so), here before another setting stops the run.
grade_refuses jobs_capped "JOBS=64: 32 at most" "" "" 64 GRADE_CHAPTERS=99
grade_refuses hidden_visibility "GRADE_HIDDEN_VISIBILITY='soon' is not one of" "" "" 2 \
    GRADE_HIDDEN_VISIBILITY=soon
# Two students whose folder names come out the same ('a b' becomes a_b-<its checksum>), made here.
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
usage_error grade_shared_folder "would share a results folder" sh -c \
    'rm -rf "$1" && mkdir -p "$1/a b" "$1/a_b-c8687a08" && shift && exec "$@"' sh \
    "$b/tests/grade_collision" env WB_GRADE_CHAPTER_LIST="$chapters" \
    WB_GRADE_SUBMISSIONS="$b/tests/grade_collision" python3 "$root/grading/grade.py"
grade_refuses chapters_unknown "GRADE_CHAPTERS='99' names no chapter" "" "" 2 GRADE_CHAPTERS=99
grade_refuses submission_missing "SUBMISSION '$fixtures/no_such_student' is not a folder" \
    "$fixtures/no_such_student" "" 2
grade_refuses both_given "give SUBMISSION or SUBMISSIONS, not both" "$fixtures" "$fixtures" 2
grade_refuses submission_in_solutions "lies in the workbook's solutions/" "$root/solutions" "" 2
grade_refuses rubric_lacks_chapter "rubric_small.txt: no line scores chapter 03" "$fixtures" "" 2 \
    WB_GRADE_RUBRIC="$fixtures/rubric_small.txt" GRADE_CHAPTERS="01 03"
# The instructor's own files, checked before anyone is built: a rubric expression that selects no
# test (a typo), hidden lines without HIDDEN_TESTS, a hidden test for a chapter there is not, and,
# on a GPU, a hidden test the reference solution itself fails (each would fail every student).
grade_refuses rubric_selects_nothing "rubric_typo.txt: line 2: .* selects no test of chapter 01" \
    "$fixtures" "" 2 WB_GRADE_RUBRIC="$fixtures/rubric_typo.txt" GRADE_CHAPTERS=01
grade_refuses rubric_hidden_without_tests \
    "rubric_hidden.txt: line 3: .* selects no test of chapter 01 \(no HIDDEN_TESTS given\)" \
    "$fixtures" "" 2 WB_GRADE_RUBRIC="$fixtures/rubric_hidden.txt" GRADE_CHAPTERS=01
grade_refuses hidden_test_no_chapter "hidden_bad_chapter.txt: line 2: chapter 99 is not one of" \
    "$fixtures" "" 2 WB_GRADE_HIDDEN_TESTS="$fixtures/hidden_bad_chapter.txt"
add grade_hidden_test_fails_reference "gpu;grading" sh "$root/tests/need_gpus.sh" 1 "$expect" 2 \
    "hidden_bad_argument.txt: hidden test 01 typo fails on the reference solution" -- \
    env WB_GRADE_CHAPTER_LIST="$chapters" WB_GRADE_SUBMISSION="$fixtures" WB_GRADE_JOBS=2 \
    WB_GRADE_RUBRIC="$fixtures/rubric_small.txt" WB_GRADE_HIDDEN_TESTS="$fixtures/hidden_bad_argument.txt" \
    GRADE_CHAPTERS="01 02" python3 "$root/grading/grade.py"
# The gate's rules on the solutions' objects and one attack per rule (no compiler needed).
add grade_gate "cpu;grading" python3 "$root/tests/grade_gate.py" "$root"
# What the grader believes of a run: stand-in programs printing verdicts and times.
add grade_verdicts "cpu;grading" python3 "$root/tests/grade_verdicts.py" "$root" "$b/tests/tmp_grade_verdicts"
# The exporters' files, read back with real parsers (hostile names, notes and logs).
add grade_export "cpu;grading" python3 "$root/tests/grade_export.py" "$root" "$b/tests/tmp_grade_export"
# make similarity on a class built for it: copies flagged (verbatim, renamed, shared, padded),
# honest answers left alone, hostile entries noted, the export for MOSS and JPlag, bad usage.
add grade_similarity "cpu;grading" python3 "$root/tests/grade_similarity.py" "$root" "$b/tests/tmp_grade_similarity"
# make mutation's generator (tests/mutation.py), on fixtures and on the real solutions: every
# operator, nothing in a comment, a string or outside a TODO block, stable ids (no GPU, no build).
add mutation_selftest "cpu;grading" python3 "$root/tests/mutation_selftest.py" "$root"
# Six submissions written to break a grader, graded with a short rubric: JOBS=4 inside, so it
# takes four of CTest's slots.
add threads=$HEAVY_THREADS cost=90 skip77 grade_submissions "cpu;grading" env JOBS=$HEAVY_THREADS \
    "$root/tests/grade_submissions.sh" "$root" "$b/tests/grade_submissions"
# A class run resumed, merged, regraded where something changed, and refused while locked (two
# students, chapter 01, several runs: a build each time something changed).
add threads=$HEAVY_THREADS cost=85 skip77 grade_resume "cpu;grading" env JOBS=$HEAVY_THREADS \
    python3 "$root/tests/grade_resume.py" "$root" "$b/tests/grade_resume"
# The GPU machine's entry point (grading/serve_grade.py): hostile archives refused with one line
# and a valid result, the lock's wait, and one chapter 01 submission graded (a build of one file).
# It and grade_gradescope, one at a time (lock=serve): each checks that the entry point's runs
# leave nothing in build/grade, and the other's run would be seen there.
add cost=80 lock=serve grade_serve "cpu;grading" python3 "$root/tests/grade_serve.py" "$root" "$b/tests/grade_serve"
# make gradescope's kit, and its run_autograder on a fake /autograder with a stand-in ssh: a flat
# upload graded through the entry point (one build), and every way the GPU machine can fail.
add cost=80 lock=serve grade_gradescope "cpu;grading" python3 "$root/tests/grade_gradescope.py" "$root" \
    "$b/tests/grade_gradescope"
# GitHub Classroom: results.json as the grading reporter reads it, and the workflow template.
add grade_classroom "cpu;grading" python3 "$root/tests/grade_classroom.py" "$root" "$b/tests/grade_classroom"
# Every attack in tests/exploits/ (the GPU ones where there is a GPU), each with its outcome.
add threads=$HEAVY_THREADS cost=90 skip77 grade_exploits "cpu;grading" env JOBS=$HEAVY_THREADS \
    python3 "$root/tests/exploits/run.py" "$root" "$b/tests/grade_exploits"

# ---- the lessons (CPU): each asks before it tells (tests/lesson_structure.sh says how) ---------
# shellcheck disable=SC2046 # one argument per lesson
add lesson_structure "cpu" sh "$root/tests/lesson_structure.sh" $(for c in $chapters; do printf '%s ' "$root/chapters/$c/README.md"; done)
# and the check can fail: a lesson that gives its answers first is caught, line by line.
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
add lesson_structure_catches "cpu" sh -c 'out=$(sh "$0" "$1"); [ $? -eq 1 ] || exit 1; echo "$out"
    for rule in ":3: a measured number" "no table with a \"yours\"" "does not say \"Measured on" "no \"## Deeper\"" \
        "fold holds a measured answer" "links no answer" "which is no heading (anchor) of" "does not link the glossary"; do
        printf "%s\n" "$out" | grep -qF "$rule" || { echo "not caught: $rule"; exit 1; }; done' \
    "$root/tests/lesson_structure.sh" "$fixtures/lesson_bad.md"
# The code, scripts and lessons' core paths state the design: no dates, no commit hashes.
add no_history "cpu" sh "$root/tests/no_history.sh" "$root"
# ... and it can fail: a date in a lesson's core path and a commit in a code comment are caught
# (written here in two pieces, so that this file does not hold them).
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
add no_history_catches "cpu" sh -c 'd=$(mktemp -d) || exit 1; mkdir -p "$d/chapters/01_x" "$d/common"
    printf "x\nran on 20%s-01-02\n## Deeper\n" 25 > "$d/chapters/01_x/README.md"
    printf "/* as of commi%s 1234abcd */\n" t > "$d/common/x.c"
    out=$(sh "$0" "$d"); rc=$?; rm -rf "$d"; echo "$out"
    [ $rc -eq 1 ] && printf "%s\n" "$out" | grep -q "README.md:2:" && printf "%s\n" "$out" | grep -q "x.c:1:"' \
    "$root/tests/no_history.sh"
# Every shell script passes shellcheck (tests/shellcheck_clean.sh says why; skipped, 77, without it).
add skip77 shellcheck_clean "cpu" sh "$root/tests/shellcheck_clean.sh" "$root"
# ... and it can fail: an unquoted $1 is caught in a script found by its name (.sh), its shebang
# or its shell directive, and a file that is none of those is not checked.
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
add skip77 shellcheck_clean_catches "cpu" sh -c 'd=$(mktemp -d) || exit 1
    printf "#!/bin/sh\ncat \$1\n" >"$d/planted.sh"; printf "#!/bin/sh\ncat \$1\n" >"$d/run_me"
    printf "# shellcheck shell=sh\ncat \$1\n" >"$d/sourced"; printf "cat \$1\n" >"$d/notes.txt"
    out=$(sh "$0" "$d"); rc=$?; rm -rf "$d"; echo "$out"
    [ $rc -ne 77 ] || exit 77
    [ $rc -eq 1 ] || exit 1
    for f in planted.sh run_me sourced; do
        printf "%s\n" "$out" | grep -q "^$f:2:[0-9]*: .*SC2086" || { echo "not caught: $f"; exit 1; }; done
    ! printf "%s\n" "$out" | grep -q "notes.txt"' "$root/tests/shellcheck_clean.sh"
# Every kernel variant the launchers choose fits each architecture the workbook builds for
# (sm_75, 80, 86, 89, 90), proved from the compiler's resource report and the limits table
# (tests/arch_fit.sh; skipped, 77, without nvcc; it reads the build's ptxas reports and compiles
# only the architectures the build did not: on a GPU machine, four) ... and it can fail: a limits
# entry shrunk, and the direct kernel forced to its wide variant, must each be caught.
if [ -z "$handout" ]; then
    # (one at a time: the first compiles, the other reuses its report; HEAVY_THREADS compilers)
    add skip77 limit=900 cost=90 threads=$HEAVY_THREADS lock=arch_fit arch_fit "cpu" \
        env ARCH_FIT_JOBS=$HEAVY_THREADS sh "$root/tests/arch_fit.sh" "$root" "$b"
    add skip77 limit=900 threads=$HEAVY_THREADS lock=arch_fit arch_fit_catches "cpu" \
        env ARCH_FIT_JOBS=$HEAVY_THREADS sh "$root/tests/arch_fit.sh" "$root" "$b" --plants
fi

# ---- the measured report (CPU: its commands and its plotting, on made-up sweeps) -----------------
add report_commands "cpu" "$root/tests/report_cli.sh" "$root"
add skip77 report_csv "cpu" "$root/tests/report_plot.sh" "$root" "$b/tests/report_csv" csv
add skip77 report_figures "cpu" "$root/tests/report_plot.sh" "$root" "$b/tests/report_figures" figures

# ---- one rule for numbers, each option once (CPU) ----------------------------------------------
ch01="$b/ch01_basic_1d" ch05="$b/ch05_tiled_2d"
[ -z "$handout" ] || ch01="${ch01}_exercise" ch05="${ch05}_exercise"
usage_error number_plus_sign "--size: '\+5' is not a whole number \(decimal digits only" "$ch01" --size +5
usage_error number_space "--gpus: ' 2' is not a whole number" "$b/ch10_multi_gpu${handout:+_exercise}" \
    --gpus ' 2'
usage_error number_env_space "WB_CONV3D_Z_CHUNK=' 5' is not a whole number" env WB_CONV3D_Z_CHUNK=' 5' \
    "$b/ch09_3d${handout:+_exercise}" --check
usage_error number_hex "--gpu-memory-budget: '0x10' is not a size in MiB" \
    "$b/ch08_streams${handout:+_exercise}" --gpu-memory-budget 0x10
usage_error number_memory_limit "WB_GPU_MEMORY_LIMIT_MIB='64k' is not a whole number" \
    env WB_GPU_MEMORY_LIMIT_MIB=64k "$ch01" --check
usage_error option_twice "--size is given twice" "$ch01" --size=5 --size 7
usage_error option_twice_output "--output is given twice" "$ch05" --output a.png --output b.png

# ---- files that are not what they seem (CPU: refused before any GPU work) ---------------------
# Each under `timeout`: a FIFO that blocked the program would otherwise hold the suite forever.
# fifo NAME PATTERN FIFO COMMAND...: makes the FIFO FIFO, then expects exit 2 and PATTERN.
fifo() {
    name=$1 pattern=$2 made=$3
    shift 3
    # shellcheck disable=SC2016 # the sh -c script expands its own arguments
    usage_error "$name" "$pattern" sh -c 'rm -f "$1" && mkfifo "$1" && shift && exec timeout 20 "$@"' \
        sh "$made" "$@"
}
fifo input_fifo_npy "array '.*fifo.npy' is a FIFO" "$b/tests/fifo.npy" "$ch01" --input "$b/tests/fifo.npy"
fifo input_fifo_png "image '.*fifo.png' is a FIFO" "$b/tests/fifo.png" "$ch05" --input "$b/tests/fifo.png"
fifo mask_file_fifo "mask file '.*fifo_mask.txt' is a FIFO" "$b/tests/fifo_mask.txt" \
    "$ch01" --mask-file "$b/tests/fifo_mask.txt"
usage_error mask_file_device "mask file '/dev/zero' is a character device" timeout 20 "$ch01" \
    --mask-file /dev/zero
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
usage_error mask_file_too_large "more than a valid one can hold" sh -c \
    'rm -f "$1" && truncate -s 65M "$1" && shift && exec timeout 20 "$@"' sh "$b/tests/huge_mask.txt" \
    "$ch01" --mask-file "$b/tests/huge_mask.txt"
# npy_claims NAME PATTERN FILE SHAPE LENGTH COMMAND...: a float32 .npy of SHAPE (its header 128
# bytes), made LENGTH bytes long by truncate (sparse: no data blocks), given to COMMAND under a
# 400 MiB address-space limit, so that allocating what the shape claims would fail another way;
# the file is removed after.
npy_claims() {
    name=$1 pattern=$2 made=$3 shape=$4 length=$5
    shift 5
    # shellcheck disable=SC2016 # the sh -c script expands its own arguments
    usage_error "$name" "$pattern" sh -c 'f=$1 && printf "\223NUMPY\001\000v\000%-117s\n" "$2" >"$f" &&
    truncate -s "$3" "$f" || exit 1; shift 3; (ulimit -v 409600 && exec timeout 20 "$@"); rc=$?
    rm -f "$f"; exit $rc' sh "$made" "{'descr': '<f4', 'fortran_order': False, 'shape': $shape, }" \
        "$length" "$@"
}
# Shape (1, 2^31) in a file as long as it claims (8 GiB): over what any program takes.
npy_claims npy_sparse_over_limit "sparse_over_limit.npy' has a bad .npy header: a 'shape' dimension is over 2\^30" \
    "$b/tests/sparse_over_limit.npy" "(1, 2147483648)" $((128 + 8589934592)) \
    "$ch05" --input "$b/tests/sparse_over_limit.npy"
# Shape (2^30,) in a file that holds 1 MiB of data: 4 GiB claimed, refused on the file's size.
npy_claims npy_sparse_short "sparse_short.npy' is truncated: shape \(1073741824,\) of '<f4' needs 4294967296 bytes of data, the file holds 1048576 after its 128-byte header" \
    "$b/tests/sparse_short.npy" "(1073741824,)" $((128 + 1048576)) \
    "$ch01" --input "$b/tests/sparse_short.npy"
usage_error output_device "'/dev/null' is a character device, not a regular file" "$ch05" --output /dev/null
usage_error output_folder "is a folder, not a regular file" "$ch05" --output "$b/tests"
usage_error output_no_folder "there is no folder" "$ch05" --output "$b/tests/no_such_folder/out.png"
usage_error output_name_too_long "a name longer than the file system takes" "$ch05" \
    --output "$b/tests/$(printf '%0300d' 0).png"
usage_error tuned_file_device "the tuned file .*'/dev/null' is a character device" \
    env WB_TUNED_FILE=/dev/null "$b/ch06_register_prefetch${handout:+_exercise}" --tune
usage_error timeline_device "'/dev/null' is a character device" \
    "$b/ch08_streams${handout:+_exercise}" --timeline /dev/null
usage_error output_dir_no_folder "its folder '.*no_such_folder' does not exist" \
    "$b/ch08_streams${handout:+_exercise}" --input-dir "$root/data/patterns" --output-dir \
    "$b/tests/no_such_folder/out"
# A run that stops after --output-dir is checked makes none: here a --timeline that names one of
# the input images, refused once they are loaded (and the folder was once made before that).
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
usage_error output_dir_not_made "is the same file as input" sh -c \
    'rm -rf "$1" && "$2" --input-dir "$3" --output-dir "$1" --timeline "$3/checkerboard_256.png"; rc=$?
    [ ! -e "$1" ] || { echo "$1 was made"; exit 1; }; exit $rc' sh "$b/tests/not_made" \
    "$b/ch08_streams${handout:+_exercise}" "$root/data/patterns"
# A file replaced keeps its mode (imginfo writes through the same writer, with no GPU).
# shellcheck disable=SC2016 # the sh -c script expands its own arguments
add output_keeps_mode "cpu" sh -c 'rm -f "$1" && : >"$1" && chmod 600 "$1" &&
    "$2" "$3" --npy "$1" >/dev/null && [ "$(stat -c %a "$1")" = 600 ] || {
    echo "the mode of $1 is now $(stat -c %a "$1"), not 600"; exit 1; }' sh "$b/tests/mode_600.npy" \
    "$b/imginfo" "$fixtures/gray8_13x7.png"

# ---- the chapter registry (CPU) ---------------------------------------------------------------
add registry_new_chapter "cpu" "$root/tests/registry_check.sh" new "$root"
add registry_refuses_unknown "cpu" "$root/tests/registry_check.sh" unknown "$root"
add registry_uses_closed "cpu" "$root/tests/registry_check.sh" uses "$root"

# ---- chapters --------------------------------------------------------------------------------
# Each chapter gets: the drift and help tests, the battery of its dimension (battery_<D>d.sh,
# D from the program's --spec), and its own tests/chapter_NN.sh if there is one. The registry
# entry (chapters/NN_name/chapter.mk) and the program's --spec give every number the batteries
# use; anything missing or unknown stops the generator with a message, so a new chapter can
# never silently get fewer tests.
# registry NN_name KEY: the value of "KEY = value" in the chapter's entry; checks every key.
registry() {
    file="$root/chapters/$1/chapter.mk"
    [ -f "$file" ] || die "chapter $1 has no registry entry $file (README.md, \"Adding a chapter\")"
    bad=$(sed -n '/^[[:space:]]*\(#\|$\)/d; /^\(uses\|libs\|sanitizers\|run\|battery_blocks\|battery_gpus\|guard_args\)[[:space:]]*=/d; p' "$file")
    [ -z "$bad" ] || die "$file: not a known 'key = value' line: $bad"
    sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$file"
}
# refuses NAME REGEX ARGS... : the chapter's program ($solution) refuses ARGS (usage_error): the
# test chNN_NAME.
refuses() {
    name=$1 pattern=$2
    shift 2
    usage_error "ch${nn}_$name" "$pattern" "$solution" "$@"
}
# spec KEY: one fact from the chapter program's --spec (its limits, as the program enforces them).
spec() {
    value=$(printf '%s\n' "$spec_text" | sed -n "s/^$1=//p")
    [ -n "$value" ] || [ "$1" = tune_masks ] || [ "$1" = kernels ] || die "$speaker --spec has no $1"
    printf '%s' "$value"
}
# modes_and_guard MODES_SIZE BENCH_MASKS BENCH_PATTERN JSON_SIZE JSON_MASK GUARD_SIZE
#                 GUARD_PATTERN: every battery calls it with its dimension's values. Every mode
# prints what it promises (run: % of copy; bench on MODES_SIZE with BENCH_MASKS: its table,
# BENCH_PATTERN; JSON on JSON_SIZE and JSON_MASK: a pass), and the unsolved exercise fails its
# check on GUARD_SIZE with GUARD_PATTERN (the guard), with the chapter's default mask, the one
# its exercise kernel is built for.
modes_and_guard() {
    [ $# -eq 7 ] || die "modes_and_guard for chapter $nn: 7 values, got $#"
    for value in "$@"; do [ -n "$value" ] || die "modes_and_guard for chapter $nn: an empty value"; done
    add "ch${nn}_solution_run_mode" "gpu;ch$nn;solution" "$expect" --gpu 0 "PASS .* GB/s .*of copy" \
        -- "$solution" --size "$1" --reps 20
    add "ch${nn}_solution_bench_mode" "gpu;ch$nn;solution" "$expect" --gpu 0 "$3" -- \
        "$solution" --bench --size "$1" --mask-width "$2" --reps 20
    add "ch${nn}_solution_json" "gpu;ch$nn;solution" "$expect" --gpu 0 '"pass":true' -- \
        "$solution" --check --json --size "$4" --mask-width "$5"
    # (a chapter whose exercise runs only with some arguments gives them: guard_args)
    guard_args=$(registry "$chapter" guard_args) || exit 1
    # shellcheck disable=SC2086 # guard_args: words, as a command line splits them
    add "ch${nn}_exercise_unsolved_fails" "gpu;ch$nn;guard" "$expect" --gpu 1 "$7" \
        -- "$exercise" --check --size "$6" $guard_args
    modes_added=$nn
}
for chapter in $chapters; do
    nn=${chapter%%_*}
    solution="$b/ch$chapter"
    exercise="$exercise_dir/ch${chapter}_exercise"
    [ -z "$handout" ] || solution=$exercise # the same driver: its command line, its errors
    sanitizers=$(registry "$chapter" sanitizers) || exit 1
    for tool in $sanitizers; do
        case $tool in memcheck | racecheck | synccheck) ;; *) die "chapters/$chapter/chapter.mk: sanitizers: no tool '$tool'" ;; esac
    done
    # Both programs share the driver, so either states the limits; a student's copy has no
    # solution program.
    speaker=$solution
    [ -x "$speaker" ] || speaker=$exercise
    [ -x "$speaker" ] || die "$solution is not built (run make)"
    spec_text=$("$speaker" --spec) || die "$speaker --spec failed"
    dims=$(spec dims) || exit 1
    battery="$root/tests/battery_${dims}d.sh"
    [ -f "$battery" ] || die "chapter $chapter is ${dims}-D, and there is no $battery for that"
    mask_max=$(spec mask_max) || exit 1             # WxH; a 1D chapter's is Wx1
    max_width=${mask_max%%x*}
    block_min=$(spec block_min) || exit 1
    block_max=$(spec block_max) || exit 1
    block_needed=$(spec block_min_at_mask_max) || exit 1
    tune=$(spec tune) || exit 1
    # shellcheck disable=SC2034 # read by battery_1d.sh
    kernels=$(spec kernels) # the chapter's own kernels where it has several (--kernel)
    # The 2D battery's blocks: the registry's battery_blocks, or the smallest, 8, 15, 16, 17 and
    # the largest the program takes.
    battery_blocks=$(registry "$chapter" battery_blocks) || exit 1
    for block in $battery_blocks; do
        case $block in '' | *[!0-9]*) die "chapters/$chapter/chapter.mk: battery_blocks: '$block' is not a block size" ;; esac
        { [ "$block" -ge "$block_min" ] && [ "$block" -le "$block_max" ]; } ||
            die "chapters/$chapter/chapter.mk: battery_blocks: $block is outside $block_min to $block_max"
    done
    [ -n "$battery_blocks" ] || battery_blocks="$block_min 8 15 16 17 $block_max"
    largest_mask=$max_width                          # as --mask-width spells it
    [ "$dims" = 1 ] || largest_mask=$mask_max
    add "ch${nn}_exercise_drift" "cpu;ch$nn" python3 "$root/grading/gate.py" \
        "$root/solutions/$chapter" "$root/exercises/$chapter"
    add "ch${nn}_help" "cpu;ch$nn" "$expect" 0 "usage:" -- "$solution" --help
    add "ch${nn}_spec" "cpu;ch$nn" "$expect" 0 "^dims=$dims" -- "$solution" --spec
    [ "$tune" = 1 ] || refuses tune_refused "no autotuner" --tune
    # The chapter kernel's block rule: one block too small for the largest mask is refused.
    [ "$block_needed" -gt "$block_min" ] &&
        refuses block_below_rule "--block $((block_needed - 1)) is smaller than" \
            --block $((block_needed - 1)) --mask-width "$largest_mask"
    # What a hostile file or argument holds comes back escaped, on one clean line.
    refuses mask_file_nul "mask_nul.txt:2: holds a NUL byte" --mask-file "$fixtures/mask_nul.txt"
    refuses mask_file_escape "\\\\x1b\\[31mred' is not a number" \
        --mask-file "$fixtures/mask_escape.txt"
    refuses argument_escape "\\\\x1b\\[2J' is not a whole number" --seed "$(printf '12\033[2J')"
    usage_error "ch${nn}_time_limit_not_number" "WB_TIME_LIMIT_S='abc' is not a number" \
        env WB_TIME_LIMIT_S=abc "$speaker" --check
    usage_error "ch${nn}_seed_variable_not_number" "WB_SEED='12x' is not a whole number" \
        env WB_SEED=12x "$speaker" --check
    # Each dimension's harness writes --output and lays out GPU memory the same way for all its
    # chapters: those tests run with the first chapter of each dimension only (a GPU process
    # costs the suite 0.075 s (one queue) to 0.2 s of the driver's serial time, and these are five
    # or more each).
    case " $harness_checked " in
    *" $dims "*) first_of_dims=0 ;;
    *) first_of_dims=1 harness_checked="$harness_checked $dims" ;;
    esac
    # A chapter may run its battery on fewer GPUs than the machine has (battery_gpus: the first
    # N; chapter 10's own tests split over more).
    battery_gpus=$(registry "$chapter" battery_gpus) || exit 1
    case $battery_gpus in
    '') visible= ;;
    *[!0-9]* | 0) die "chapters/$chapter/chapter.mk: battery_gpus: '$battery_gpus' is not a number of GPUs" ;;
    *) visible=$(seq -s, 0 $((battery_gpus - 1))) ;;
    esac
    # The battery: its tests, the mode and guard tests among them (modes_and_guard, above).
    # shellcheck source=battery_2d.sh # any battery
    . "$battery"
    visible= # the battery's context ends with it
    [ "$modes_added" = "$nn" ] || die "$battery does not call modes_and_guard for chapter $nn"
    # shellcheck source=/dev/null # a chapter's own tests (they set nothing read here): checked on its own
    if [ -f "$root/tests/chapter_$nn.sh" ]; then . "$root/tests/chapter_$nn.sh"; fi
done
