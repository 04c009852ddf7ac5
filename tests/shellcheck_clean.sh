#!/bin/sh
# tests/shellcheck_clean.sh (named by its path: a comment that starts with "shellcheck" reads as a
# directive to it): every shell script passes shellcheck with no finding. The scripts write the
# test list and grade students, where an expansion split by accident (a path with a space, an
# empty value that vanishes) or a variable no line sets changes what runs, with no error to show
# it. A finding that is the intent (options held in one string, split on purpose: sh has no
# arrays) stays, with `# shellcheck disable=SCnnnn # the reason` on its line. The tool follows
# what ctest_list.sh sources as .shellcheckrc says.
#
#   sh tests/shellcheck_clean.sh ROOT
#
# The scripts: every file (git's list, untracked files included, where ROOT is a checkout; else
# the tree less build/) named *.sh or whose first line names the shell: a shebang (#!/bin/sh,
# bash, dash, ksh), or, in a file that is sourced rather than run, a `# shellcheck shell=sh`
# directive. Prints each finding, one a line (file:line:column), and exits 1 on any; exits 77
# (skipped) without shellcheck 0.8 or later (the first to read .shellcheckrc's external-sources).
root=$1
version=$(shellcheck --version 2>/dev/null | sed -n 's/^version: *//p')
case $version in
'') echo "shellcheck_clean: shellcheck is not installed: skipped"; exit 77 ;;
0.[0-7] | 0.[0-7].*) echo "shellcheck_clean: shellcheck $version is older than 0.8: skipped"; exit 77 ;;
esac
cd "$root" || exit 2
files=$(git ls-files --cached --others --exclude-standard 2>/dev/null) || files=
[ -n "$files" ] || files=$(find . -type f ! -path './build/*' ! -path './.git/*' | sed 's|^\./||')
set --
while IFS= read -r f; do
    [ -f "$f" ] || continue
    case $f in
    *.sh) ;;
    *) head -n 1 "$f" | grep -qE '^(#!.*[/ ](ba|da|k)?sh([[:space:]]|$)|# shellcheck shell=)' || continue ;;
    esac
    set -- "$@" "$f"
done <<EOF
$files
EOF
[ $# -gt 0 ] || { echo "shellcheck_clean: no shell script found under $root"; exit 1; }
findings=$(shellcheck -f gcc -- "$@" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$findings" ]; then
    printf '%s\n' "$findings"
    echo "shellcheck_clean: findings above: $(printf '%s\n' "$findings" | grep -c '\[SC[0-9]*\]$') (shellcheck" \
        "$version, exit $rc). Fix the code, or, where the finding is the intent, say so on its line:" \
        "'# shellcheck disable=SCnnnn # why' (https://www.shellcheck.net/wiki/SCnnnn explains each)"
    exit 1
fi
echo "shellcheck_clean: $# shell scripts, no finding (shellcheck $version)"
