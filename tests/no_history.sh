#!/bin/sh
# no_history.sh: the code states its design, not its history. Fails on a date (YYYY-MM-DD) or a
# commit hash (the word commit, then 7 to 40 hex digits) in any code file, script, Makefile or
# registry entry, and in the core path of a lesson (before its "## Deeper" part). Measurement
# history belongs in the figures' records (chapters/NN_*/figures/runs.tsv) or nowhere in the
# repository; the README's tables of one measured run (make fuzz, make mutation) say when.
#
#   sh tests/no_history.sh ROOT
#
# Data is not history: a line that sets a JSON "date" field (a fixture's run record) is skipped.
root=$1
cd "$root" || exit 2
date_or_commit='(^|[^0-9])20[0-9][0-9]-[01][0-9]-[0-3][0-9]([^0-9]|$)|[Cc]ommits? [0-9a-f]{7,40}([^0-9a-z]|$)'
found=0
# Code, scripts and the build: every line. (git ls-files where this is a checkout, else find.)
files=$(git ls-files 2>/dev/null) || files=
[ -n "$files" ] || files=$(find . -type f ! -path './build/*' ! -path './.git/*' | sed 's|^\./||')
for f in $(printf '%s\n' "$files" | grep -E '\.(c|h|cu|cuh|sh|py|mk|txt)$|(^|/)Makefile$|^\.ci/' |
    grep -vE '^(data|build)/|/figures/'); do
    [ -f "$f" ] || continue
    grep -nE "$date_or_commit" "$f" | grep -v '"date"' | while IFS=: read -r line text; do
        echo "no_history: $f:$line: $text"
    done | grep . && found=1
done
# Lessons: their core path (all of a file with no "## Deeper" part).
for f in chapters/*/README.md chapters/*.md; do
    [ -f "$f" ] || continue
    case $f in */figures/*) continue ;; esac
    # awk cuts the core path, grep -E matches (mawk's regular expressions have no {m,n})
    awk '/^## Deeper/ { exit } { print NR ":" $0 }' "$f" | grep -E "$date_or_commit" |
        sed "s|^|no_history: $f:|" | grep . && found=1
done
[ "$found" -eq 0 ] || { echo "no_history: dates or commits above: state the design instead"; exit 1; }
echo "no_history: no date or commit hash in the code, scripts or lessons' core paths"
