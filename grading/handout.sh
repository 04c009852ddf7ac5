#!/bin/sh
# handout.sh: `make handout DIR=path`, the copy of the workbook an instructor gives students.
#
#   WB_HANDOUT_DIR=path sh grading/handout.sh ROOT      (the Makefile passes DIR that way: data,
#                                                        never shell text)
#
# The copy holds what a student works with: the lessons, the exercises, the shared code, the
# data, the CPU tests and the student's own checks, the make check / progress / compile / profile
# tools and the grading rules. It leaves out what would give answers away or needs what is left
# out: solutions/, report/ (it measures the reference programs), the tests that quote solution
# lines or run the reference (tests/exploits/, tests/mutants.sh, the grader's and the report's
# tests), the instructor's similarity report (grading/similarity.py), the deployment kits (make
# gradescope's scripts, the GPU machine's entry point, the Classroom workflow and its
# converter), the workbook's CI and development scripts. README.md is cut for students: the parts between `<!-- workbook only -->` and `<!-- end workbook only -->`
# go, and the text inside `<!-- handout only` ... `end handout only -->` shows. In the copy,
# `make` builds the exercise programs, `make run` runs them, `make test` runs the CPU tests and
# the student's checks (tests/ctest_list.sh, tests/run_suite.sh).
#
# The folder must not exist yet, or be empty, and must lie outside the workbook (build/ aside). Files come from
# git's list where the workbook is a git checkout (nothing untracked), else from the tree less
# build/. Exit 2 with one line on a bad folder.
root=$1
dir=${WB_HANDOUT_DIR:-}
die() {
    printf 'make handout: %s\n' "$1" >&2
    exit "${2:-2}"
}
[ -n "$dir" ] || die "give the folder: make handout DIR=path (it must not exist yet, or be empty)"
# shellcheck source=out_folder.sh
. "$root/grading/out_folder.sh"
out_folder "$dir" "$root" # sets target and here

left_out() { # PATH (relative): 0 when the student's copy leaves it out
    case $1 in
    solutions/* | report/* | .ci/* | .old/* | build/* | .git/*) return 0 ;;
    tests/exploits/* | tests/mutants.sh | tests/mutation* | tests/gpu_session.sh) return 0 ;;
    tests/grade_* | tests/report_* | tests/registry_check.sh | tests/handout.sh) return 0 ;;
    tests/fixtures/rubric_* | grading/handout.sh | grading/out_folder.sh | grading/similarity.py) return 0 ;;
    grading/gradescope* | grading/serve_grade.py | grading/gs_results.py | grading/classroom*) return 0 ;;
    esac
    return 1
}

cd "$here" || die "cannot enter the workbook" 1
list() { # the workbook's files, one a line (its own names hold no newline)
    if [ -d .git ] && command -v git >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard
    else
        find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||'
    fi
}
list | while IFS= read -r path; do
    left_out "$path" && continue
    [ -f "$path" ] || continue
    mkdir -p "$target/$(dirname "$path")" && cp -p "$path" "$target/$path" ||
        die "could not copy $path" 1
done || exit 1
[ -f "$target/Makefile" ] || die "nothing was copied (is $root the workbook?)" 1

# The README for students: the workbook-only parts cut, the handout-only parts shown.
awk '
    /^<!-- workbook only -->$/ { skip = 1; next }
    /^<!-- end workbook only -->$/ { skip = 0; next }
    /^<!-- handout only$/ { next }
    /^end handout only -->$/ { next }
    !skip { print }
' README.md >"$target/README.md" || die "could not write the README" 1
echo "make handout: the student's copy is in $dir ($(find "$target" -type f | wc -l) files; no solutions/)"
