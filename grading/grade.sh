#!/bin/sh
# grade.sh: `make grade`: builds a student's kernel files beside the workbook, runs the tests the
# rubric names, measures speed against the solution in the same process, and writes the results
# for the tools instructors use (grading/export.sh: results.json, junit.xml, summary.txt; with
# many students grading/gradebook.sh: gradebook.csv). README.md, "For instructors", tells how.
#
#   sh grading/grade.sh ROOT "CHAPTERS" RUBRIC SUBMISSION SUBMISSIONS JOBS    (the Makefile does)
#
# SUBMISSION: one student's folder, holding DIR/exercises/NN_name/*.cu or DIR/NN_name/*.cu;
# SUBMISSIONS: a folder with one such folder per student; neither: the workbook's exercises/.
# Environment: GRADE_CHAPTERS="01 03" grades only those chapters; GRADE_TIME_LIMIT=S scales
# every test's time limit (an ordinary test's 60 s becomes S, a sanitizer's 240 s 4 S);
# GRADE_BUILD_LIMIT=S stops a chapter's build after S seconds (default 300: a compile error);
# HIDDEN_TESTS=file adds the instructor's own tests, one per line: "NN name arguments..." runs
# the chapter's program with those arguments as test chNN_hidden_name.
#
# Nothing in the workbook or the submission is written: each student's files are copied to
# build/grade/<student>/src and built there. Each test is its own process with a time limit, so a
# kernel that hangs, crashes or writes out of bounds fails its tests and nothing else. This runs
# the student's code with your rights: it is not a sandbox.
# Sections: arguments, one student (collect, build, run, score, speed), the main loop.
root=$1 chapters=$2 rubric=$3 submission=$4 submissions=$5 jobs=${6:-2}
cd "$root" || exit 2
die() {
    echo "grade: $*" >&2
    exit 2
}
[ -f "$rubric" ] || die "no rubric '$rubric' (RUBRIC=path; the default is grading/rubric.txt)"
case $jobs in '' | *[!0-9]* | 0*) die "JOBS='$jobs' is not a positive whole number (no leading zero)" ;; esac
seconds() { # NAME VALUE: a whole number of seconds, 1 to 86400 (to timeout, 0 or 00 is no limit)
    case $2 in
    *[!0-9]* | 0*) die "$1='$2' is not a whole number of seconds (1 to 86400, no leading zero)" ;;
    esac
    [ "${#2}" -le 5 ] && [ "$2" -le 86400 ] || die "$1='$2' is over 86400 s"
}
seconds GRADE_TIME_LIMIT "${GRADE_TIME_LIMIT:-60}"
seconds GRADE_BUILD_LIMIT "${GRADE_BUILD_LIMIT:-300}"
[ -z "$submission" ] || [ -z "$submissions" ] || die "give SUBMISSION or SUBMISSIONS, not both"
[ -z "$submission" ] || [ -d "$submission" ] || die "SUBMISSION '$submission' is not a folder"
[ -z "$submissions" ] || [ -d "$submissions" ] || die "SUBMISSIONS '$submissions' is not a folder"
mkdir -p build/grade || die "cannot write build/grade"
for given in "$submission" "$submissions"; do # the grader wipes its folders under build/grade
    case $(readlink -f "${given:-/}")/ in "$(readlink -f build/grade)"/*) die "'$given' lies under build/grade/: copy it elsewhere first" ;; esac
done
[ -z "$HIDDEN_TESTS" ] || [ -f "$HIDDEN_TESTS" ] || die "HIDDEN_TESTS '$HIDDEN_TESTS' is not a file"
graded=
for chapter in $chapters; do
    nn=${chapter%%_*}
    if [ -z "$GRADE_CHAPTERS" ] || printf ' %s ' "$GRADE_CHAPTERS" | grep -q " $nn "; then
        graded="$graded $chapter"
    fi
done
[ -n "$graded" ] || die "GRADE_CHAPTERS='$GRADE_CHAPTERS' names no chapter"
# The rubric, without carriage returns and comments, checked line by line.
clean_rubric=build/grade/.rubric
tr -d '\r' <"$rubric" | grep -vE '^[[:space:]]*(#|$)' >"$clean_rubric"
known=$(for c in $chapters; do printf '%s ' "${c%%_*}"; done)
awk -v known=" $known" '
    function number(v) { return v ~ /^[0-9]+([.][0-9]+)?$/ }
    { ok = index(known, " " $1 " ") > 0 && number($3)
      if ($2 == "speed") ok = ok && NF == 5 && number($4) && number($5) && $5 + 0 > $4 + 0
      else ok = ok && NF == 4
      if (!ok) { print "line " NR ": " $0; bad = 1 } }
    END { exit bad }' "$clean_rubric" >build/grade/.rubric_errors ||
    die "$rubric: not 'NN group points regex' or 'NN speed points full zero' (NN a chapter): $(head -1 build/grade/.rubric_errors)"
out_root=build/grade # relative: the workbook's path may hold spaces, make cannot take those
tab=$(printf '\t')

# ---- one student ---------------------------------------------------------------------------

# collect NN_name DIR G: copies the chapter's kernel files from the submission to G/src; prints
# nothing and returns 0 when all are there, else writes why to G/missing_NN.txt.
collect() {
    chapter=$1 dir=$2 g=$3 nn=${1%%_*}
    from="$dir/exercises/$chapter"
    ls "$from"/*.cu >/dev/null 2>&1 || from="$dir/$chapter"
    mkdir -p "$g/src/$chapter"
    if [ ! -d "$from" ]; then
        echo "no folder $chapter/ (nor exercises/$chapter/) in the submission" >"$g/missing_$nn.txt"
        return 1
    fi
    # A link could bring in any file the grader can read (the solutions, say): refused.
    case $(readlink -f "$from")/ in
    "$(readlink -f "$dir")"/*) ;;
    *)
        echo "$chapter/ is a link out of the submission: not graded" >"$g/missing_$nn.txt"
        echo "ch$nn: $chapter/ links out of the submission (refused)" >>"$g/flags.txt"
        return 1
        ;;
    esac
    for f in "$from"/* "$from"/.[!.]*; do
        [ -e "$f" ] || continue
        name=$(basename "$f")
        [ -e "exercises/$chapter/$name" ] || echo "extra file ignored: $chapter/$name" >>"$g/flags.txt"
    done
    missing=0
    for f in exercises/"$chapter"/*.cu; do
        name=$(basename "$f")
        if [ ! -f "$from/$name" ] || [ -L "$from/$name" ]; then
            echo "no file $chapter/$name (a regular file) in the submission" >>"$g/missing_$nn.txt"
            missing=1
        elif [ -n "$(find "$from/$name" -size +1024k)" ]; then
            echo "$chapter/$name is over 1 MiB: not graded" >>"$g/missing_$nn.txt"
            missing=1
        elif ! cp "$from/$name" "$g/src/$chapter/$name"; then
            echo "cannot read $chapter/$name" >>"$g/missing_$nn.txt"
            missing=1
        fi
    done
    [ $missing -eq 0 ] || return 1
    tests/exercise_drift.sh "$g/src/$chapter" "exercises/$chapter" >"$g/drift_$nn.log" 2>&1 ||
        echo "ch$nn: $(cd exercises/"$chapter" && echo *.cu) changed outside the TODO blocks (see $g/drift_$nn.log)" >>"$g/flags.txt"
    return 0
}

# run_tests G TSV: every test line (name, labels, limit, threads, command) as its own process
# with its time limit; heavy tests (more threads) first, fewer at a time, so the threads never
# outnumber JOBS; the tests under a sanitizer last, and none for a chapter where a test ran out
# of time (a kernel that hangs hangs there too, for four times as long). GRADE_TIME_LIMIT=S
# scales every limit so that an ordinary test's 60 s becomes S (a sanitizer's 240 s, 4 S).
# Leaves G/logs/NAME.log, .rc and .seconds.
run_tests() {
    g=$1 list=$2
    mkdir -p "$g/logs" "$g/run"
    while IFS="$tab" read -r name labels limit threads command; do
        [ -n "${GRADE_TIME_LIMIT:-}" ] && limit=$(((limit * GRADE_TIME_LIMIT + 59) / 60))
        cat >"$g/run/$name.sh" <<EOF
start=\$(date +%s.%N)
OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=PASSIVE WB_TIME_LIMIT_S=$limit \\
    timeout -k 5 $((limit + 30)) $command >"$g/logs/$name.log" 2>&1 </dev/null
echo \$? >"$g/logs/$name.rc"
echo "\$(date +%s.%N) \$start" | awk '{ printf "%.2f\n", \$1 - \$2 }' >"$g/logs/$name.seconds"
EOF
        sanitizer=0
        case ";$labels;" in *";sanitizer;"*) sanitizer=1 ;; esac
        echo "$threads $g/run/$name.sh $sanitizer $name"
    done <"$list" >"$g/run/all.txt"
    run_batch "$g/run/all.txt" 0
    awk '$3 == 1' "$g/run/all.txt" | while read -r threads script sanitizer name; do
        hung=$(awk -v c="${name%%_*}_" '$3 == 0 && index($4, c) == 1 { print $4 }' \
            "$g/run/all.txt" | while read -r other; do
            [ "$(status "$g" "$other")" = timeout ] && echo "$other"
        done | head -n 1)
        if [ -z "$hung" ]; then
            echo "$threads $script $sanitizer $name"
            continue
        fi
        echo "not run: $hung ran out of time, and the kernel would under the sanitizer too" \
            >"$g/logs/$name.log"
        echo 124 >"$g/logs/$name.rc"
        echo 0 >"$g/logs/$name.seconds"
    done >"$g/run/sanitized.txt"
    run_batch "$g/run/sanitized.txt" 1
}

# run_batch LIST SANITIZER: the scripts of LIST's lines ("threads script sanitizer name") whose
# third field is SANITIZER, the heavy ones first, fewer at a time.
run_batch() {
    most=$(awk -v s="$2" '$3 == s && $1 > most { most = $1 } END { print most + 0 }' "$1")
    heavy_jobs=$((jobs / (most > 1 ? most : 1)))
    [ $heavy_jobs -ge 1 ] || heavy_jobs=1
    awk -v s="$2" '$3 == s && $1 > 1 { print $2 }' "$1" | xargs -r -n 1 -P "$heavy_jobs" sh
    awk -v s="$2" '$3 == s && $1 <= 1 { print $2 }' "$1" | xargs -r -n 1 -P "$jobs" sh
}

# status G NAME: pass, fail, timeout, skipped (no GPU) or n/a (the student's kernel takes none
# of the test's masks, e.g. chapter 06's 3x3 kernel in a non-square test: not counted either way)
# from the test's exit code and log.
status() {
    rc=$(cat "$1/logs/$2.rc" 2>/dev/null || echo 1)
    case $rc in
    0) # and the program's own verdict: an exit(0) in the student's host code is no pass
        if grep -q '_exercise: PASS (.*ran in none of them: not checked)' "$1/logs/$2.log"; then
            echo n/a
        elif grep -q '_exercise: PASS (' "$1/logs/$2.log"; then echo pass; else echo fail; fi ;;
    77) echo skipped ;;
    124 | 137) echo timeout ;;
    *) if grep -q 'stopped after .* (WB_TIME_LIMIT_S)' "$1/logs/$2.log"; then echo timeout; else echo fail; fi ;;
    esac
}

# speed G NN_name FULL ZERO POINTS: the student's and the solution's median time in one process;
# prints "score<TAB>note" and adds a leaderboard line.
speed() {
    g=$1 chapter=$2 full=$3 zero=$4 points=$5 nn=${2%%_*}
    program="$g/build/ch${chapter}_exercise"
    OMP_WAIT_POLICY=PASSIVE WB_TIME_LIMIT_S=300 timeout -k 5 330 \
        "$program" --bench --json --reps 50 >"$g/logs/speed_$nn.json" 2>"$g/logs/speed_$nn.log" </dev/null
    rc=$?
    [ $rc -eq 77 ] && { printf '0\tnot measured: no usable GPU\n'; return; }
    # The harness's JSON lines: the chapter's own kernel first, the solution second.
    grep '^{"program":' "$g/logs/speed_$nn.json" >"$g/logs/speed_$nn.lines"
    mine=$(sed -n '1s/.*"median_ms":\([0-9.e+-]*\).*/\1/p' "$g/logs/speed_$nn.lines")
    theirs=$(sed -n '/"variant":"solution"/s/.*"median_ms":\([0-9.e+-]*\).*/\1/p' "$g/logs/speed_$nn.lines" | head -1)
    if [ $rc -ne 0 ] || [ -z "$mine" ] || [ -z "$theirs" ]; then
        printf '0\tnot measured: the bench run failed (exit %s, see %s)\n' "$rc" "$g/logs/speed_$nn.log"
        return
    fi
    printf '%s\t%s\t%s\t%s\n' "$nn" "$mine" "$theirs" "$(awk -v a="$mine" -v b="$theirs" 'BEGIN { printf "%.3f", a / b }')" >>"$g/leaderboard.tsv"
    awk -v a="$mine" -v b="$theirs" -v f="$full" -v z="$zero" -v p="$points" 'BEGIN {
        r = a / b; s = r <= f ? 1 : (r >= z ? 0 : (z - r) / (z - f))
        printf "%.2f\t%.2fx the solution'"'"'s time (%.4f ms against %.4f ms)\n", p * s, r, a, b }'
}

# prepare_one FOLDER_NAME STUDENT_NAME DIR: the student's folder under build/grade, the kernel
# files collected, and one build script per complete chapter (G/run/build_NN.sh, its argument
# make's -j), listed in G/run/builds: every student's chapters build side by side before any test.
prepare_one() {
    folder=$1 student=$2 dir=$3
    g="$out_root/$folder"
    rm -rf "$g" && mkdir -p "$g/build" "$g/run" || die "cannot write $g"
    printf '%s\n' "$student" >"$g/student"
    : >"$g/flags.txt"
    : >"$g/run/builds"
    for chapter in $graded; do
        nn=${chapter%%_*}
        collect "$chapter" "$dir" "$g" || continue
        cat >"$g/run/build_$nn.sh" <<EOF
timeout -k 10 ${GRADE_BUILD_LIMIT:-300} make -s -j \$1 EXERCISES="$g/src" EXERCISE_BUILD="$g/build" \\
    WITH_SOLUTION=1 "$g/build/ch${chapter}_exercise" >"$g/compile_$nn.log" 2>&1 </dev/null
echo \$? >"$g/compile_$nn.rc"
EOF
        echo "$g/run/build_$nn.sh" >>"$g/run/builds"
    done
}

# build_all FOLDER_NAME...: the solutions' renamed objects once (every student's program links
# them: built side by side, they would be written at once), then the students' build scripts,
# JOBS at a time.
build_all() {
    build_list=$(for folder in "$@"; do cat "$out_root/$folder/run/builds"; done)
    builds=$(printf '%s' "$build_list" | grep -c .)
    [ "$builds" -gt 0 ] || return 0
    if [ -d solutions ]; then
        renamed=$(for chapter in $graded; do
            for f in solutions/"$chapter"/*.cu; do
                [ -f "$f" ] && printf 'build/%s/renamed/%s.o\n' "$chapter" "$(basename "$f" .cu)"
            done
        done)
        [ -z "$renamed" ] || make -s -j "$jobs" $renamed >build/grade/.renamed.log 2>&1 ||
            die "the solutions' renamed objects do not build (build/grade/.renamed.log says why)"
    fi
    per_build=$((jobs / builds))
    [ $per_build -ge 1 ] || per_build=1
    printf '%s\n' "$build_list" | sed "s/\$/ $per_build/" | xargs -r -L 1 -P "$jobs" sh
}

# grade_one FOLDER_NAME STUDENT_NAME: after build_all, the chapters' states, the tests, the scores.
grade_one() {
    folder=$1 student=$2
    g="$out_root/$folder"
    : >"$g/chapters.tsv"
    : >"$g/tests.tsv"
    : >"$g/groups.tsv"
    built=
    for chapter in $graded; do
        nn=${chapter%%_*}
        if [ -f "$g/missing_$nn.txt" ]; then
            printf '%s\tmissing\t%s\n' "$nn" "$g/missing_$nn.txt" >>"$g/chapters.tsv"
        elif [ "$(cat "$g/compile_$nn.rc" 2>/dev/null)" != 0 ]; then
            printf '%s\tcompile_error\t%s\n' "$nn" "$g/compile_$nn.log" >>"$g/chapters.tsv"
        else
            printf '%s\tgraded\t\n' "$nn" >>"$g/chapters.tsv"
            built="$built $chapter"
        fi
    done
    # The tests the rubric names, for the chapters that built, plus the hidden ones.
    if [ -n "$built" ]; then
        WB_LIST_FORMAT=tsv WB_EXERCISE_DIR="$g/build" sh tests/ctest_list.sh "$root" "$built" \
            >"$g/all_tests.tsv" || die "tests/ctest_list.sh failed"
        if [ -n "$HIDDEN_TESTS" ]; then
            while read -r nn name args; do
                case $nn in '' | \#*) continue ;; [0-9][0-9]) ;; *) die "$HIDDEN_TESTS: '$nn' is no chapter number (NN)" ;; esac
                chapter=$(printf '%s\n' $built | grep "^${nn}_") || continue
                printf 'ch%s_hidden_%s\tgpu;ch%s;exercise;hidden\t60\t1\t%s %s\n' "$nn" "$name" "$nn" \
                    "$g/build/ch${chapter}_exercise" "$args"
            done <"$HIDDEN_TESTS" >>"$g/all_tests.tsv"
        fi
        # Only the student's tests (labels exercise or hidden) that some group names.
        awk -F "$tab" '$2 ~ /(^|;)(exercise|hidden)(;|$)/' "$g/all_tests.tsv" >"$g/student_tests.tsv"
        awk '$2 != "speed" { print $4 }' "$clean_rubric" >"$g/rubric_patterns"
        cut -f1 "$g/student_tests.tsv" | grep -E -f "$g/rubric_patterns" >"$g/run_names" || :
        awk -F "$tab" 'NR == FNR { keep[$1] = 1; next } keep[$1]' "$g/run_names" \
            "$g/student_tests.tsv" >"$g/run_tests.tsv"
        run_tests "$g" "$g/run_tests.tsv"
    fi
    # Score each rubric line.
    while read -r nn group points a b; do
        case $nn in '' | \#*) continue ;; esac
        chapter_status=$(awk -F "$tab" -v n="$nn" '$1 == n { print $2 }' "$g/chapters.tsv")
        [ -n "$chapter_status" ] || continue # a chapter not graded this time
        if [ "$chapter_status" != graded ]; then
            note="does not compile"
            [ "$chapter_status" = missing ] && note=$(head -1 "$g/missing_$nn.txt")
            printf '%s\t%s\t0\t%s\t%s\n' "$nn" "$group" "$points" "$note" >>"$g/groups.tsv"
            continue
        fi
        if [ "$group" = speed ]; then
            printf '%s\t%s\tSPEED\t%s\t%s %s\n' "$nn" "$group" "$points" "$a" "$b" >>"$g/groups.tsv"
            continue
        fi
        passed=0 total=0
        for name in $(cut -f1 "$g/run_tests.tsv" 2>/dev/null | grep -E -e "$a"); do
            st=$(status "$g" "$name")
            [ "$st" = n/a ] || total=$((total + 1))
            [ "$st" = pass ] && passed=$((passed + 1))
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$nn" "$group" "$name" "$st" \
                "$(cat "$g/logs/$name.seconds" 2>/dev/null || echo 0)" "$g/logs/$name.log" >>"$g/tests.tsv"
        done
        skipped=$(awk -F "$tab" -v n="$nn" -v gr="$group" '$1 == n && $2 == gr && $4 == "skipped"' "$g/tests.tsv" | wc -l)
        not_applying=$(awk -F "$tab" -v n="$nn" -v gr="$group" '$1 == n && $2 == gr && $4 == "n/a"' "$g/tests.tsv" | wc -l)
        if [ "$total" -eq 0 ] && [ "$not_applying" -gt 0 ]; then
            note="none of the $not_applying tests applies to this kernel (it takes none of their masks): check the rubric"
        elif [ "$total" -eq 0 ]; then
            note="no test matched '$a': check the rubric"
        elif [ "$skipped" -gt 0 ]; then
            note="$passed of $total tests passed; $skipped not run: no usable GPU"
        else
            note="$passed of $total tests passed"
        fi
        [ "$not_applying" -gt 0 ] && [ "$total" -gt 0 ] &&
            note="$note ($not_applying more do not apply: the kernel takes none of their masks)"
        score=$(awk -v p="$points" -v k="$passed" -v t="$total" 'BEGIN { printf "%.2f", t ? p * k / t : 0 }')
        printf '%s\t%s\t%s\t%s\t%s\n' "$nn" "$group" "$score" "$points" "$note" >>"$g/groups.tsv"
    done <"$clean_rubric"
    # Speed last, alone on the GPU, and only for chapters whose other groups have full points.
    while IFS="$tab" read -r nn group score max note; do
        if [ "$score" != SPEED ]; then
            printf '%s\t%s\t%s\t%s\t%s\n' "$nn" "$group" "$score" "$max" "$note"
            continue
        fi
        short=$(awk -F "$tab" -v n="$nn" '$1 == n && $3 != "SPEED" && $3 + 0 < $4 + 0' "$g/groups.tsv" | wc -l)
        if [ "$short" -gt 0 ]; then
            printf '%s\tspeed\t0\t%s\tnot measured: the kernel does not pass every test yet\n' "$nn" "$max"
            continue
        fi
        chapter=$(printf '%s\n' $graded | grep "^${nn}_")
        result=$(speed "$g" "$chapter" "${note% *}" "${note#* }" "$max")
        printf '%s\tspeed\t%s\t%s\t%s\n' "$nn" "${result%%"$tab"*}" "$max" "${result#*"$tab"}"
    done <"$g/groups.tsv" >"$g/groups.scored"
    mv "$g/groups.scored" "$g/groups.tsv"
    sh grading/export.sh "$g" || die "grading/export.sh failed for $student"
    if grep -q "${tab}skipped$tab" "$g/tests.tsv"; then
        echo "grade: no usable GPU here: the GPU tests did not run, and their groups score 0"
    fi
    echo "grade: $student: results in $g (results.json, junit.xml, summary.txt)"
}

# ---- the main loop -------------------------------------------------------------------------

# A student's folder under build/grade: letters, digits, dot, dash and underscore; a name that
# needed changing (or would collide with the gradebook) gets a checksum of the real one. Two that
# still come out the same ('a b' beside a folder named a_b-4012491184) are refused below.
folder_of() {
    safe=$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-64)
    case $safe in gradebook* | .* | '') safe="student_$safe" ;; esac
    if [ "$safe" != "$1" ]; then safe="$safe-$(printf '%s' "$1" | cksum | cut -d' ' -f1)"; fi
    printf '%s' "$safe"
}

if [ -n "$submissions" ]; then
    out_root="$out_root/$(folder_of "$(basename "$(cd "$submissions" && pwd)")")"
    folders=
    for dir in "$submissions"/*/; do # each student's folder, and no two the same
        [ -d "$dir" ] || continue
        folder=$(folder_of "$(basename "$dir")")
        case " $folders " in
        *" $folder "*) die "two students in '$submissions' would share the results folder $folder: rename one of them" ;;
        esac
        folders="$folders $folder"
    done
    [ -n "$folders" ] || die "SUBMISSIONS '$submissions' has no student folders"
    rm -rf "$out_root" && mkdir -p "$out_root" || die "cannot write $out_root"
    for dir in "$submissions"/*/; do
        [ -d "$dir" ] || continue
        who=$(basename "$dir") # not $name: collect and run_tests use that
        prepare_one "$(folder_of "$who")" "$who" "$(cd "$dir" && pwd)"
    done
    build_all $folders
    for folder in $folders; do grade_one "$folder" "$(cat "$out_root/$folder/student")"; done
    sh grading/gradebook.sh "$out_root" || die "grading/gradebook.sh failed"
else
    if [ -n "$submission" ]; then
        place=$(cd "$submission" && pwd) who=$(basename "$(cd "$submission" && pwd)")
    else
        place="$root/exercises" who=exercises
    fi
    folder=$(folder_of "$who")
    prepare_one "$folder" "$who" "$place"
    build_all "$folder"
    grade_one "$folder" "$who"
fi
