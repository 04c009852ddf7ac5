#!/bin/sh
# hint_sections.sh: the hints and their list agree, and every lesson section a hint points at
# exists, under that exact title.
#
#   sh tests/hint_sections.sh ROOT
#
# Hints (common/diagnose.c, the harness's watchdog, CUDA faults, tests/sanitize.sh) name a lesson
# as "chapters/NN_name/README.md, 'Section title'"; the students' list, chapters/hints.md, links
# it as [NN, 'Section title'](NN_name/README.md). The lesson must have "## N. Section title".
# Every hint id the code can print (diagnose.c's table of ids, and each "hint [id]" outside a
# comment) must have its entry "## [id]" in chapters/hints.md, and that file may describe no
# other.
root=$1
cd "$root" || exit 2
doc=chapters/hints.md
[ -f "$doc" ] || { echo "hint_sections: $doc is missing"; exit 1; }
status=0

# ---- the ids: printed by the code, described for the students ------------------------------------
ids=$({
    grep -o '\[HINT_[A-Z_]*\] = "[a-z-]*"' common/diagnose.c | sed 's/.*= "\(.*\)"$/\1/'
    cat common/*.c tests/sanitize.sh | grep -v '^[[:space:]]*\(#\|\*\|/\*\|//\)' |
        grep -o 'hint \[[a-z-]*\]' | sed 's/^hint \[\(.*\)\]$/\1/'
} | grep -vx none | sort -u)
[ -n "$ids" ] || { echo "hint_sections: no hint ids found: the pattern is out of date"; exit 1; }
for id in $ids; do
    if ! grep -q "^## \[$id\]" "$doc"; then
        echo "hint_sections: the code prints hint [$id], and $doc has no entry '## [$id]'"
        status=1
    fi
done
# shellcheck disable=SC2013 # a hint id is one word ([a-z-]*)
for id in $(sed -n 's/^## \[\([a-z-]*\)\].*/\1/p' "$doc"); do
    if ! printf '%s\n' "$ids" | grep -qx -- "$id"; then
        echo "hint_sections: $doc describes [$id], a hint no code prints"
        status=1
    fi
done

# ---- the lesson sections: cited by the code and by the list --------------------------------------
refs=$({
    grep -ho "chapters/[0-9][0-9]_[a-z0-9_]*/README.md, '[^']*'" common/*.c tests/sanitize.sh |
        sed 's/\\"/"/g'
    grep -o "'[^']*'\]([0-9][0-9]_[a-z0-9_]*/README\.md)" "$doc" |
        sed -E "s#^('[^']*')\]\(([^)]*)\)\$#chapters/\2, \1#"
} | sort -u)
[ -n "$refs" ] || { echo "hint_sections: no lesson references found: the pattern is out of date"; exit 1; }
count=0
while IFS= read -r ref; do
    file=${ref%%,*}
    title=$(printf '%s' "$ref" | sed "s/^[^']*'//; s/'\$//")
    count=$((count + 1))
    # shellcheck disable=SC2016 # the $ in sed's bracket expression is a character to escape
    if ! grep -qE "^## [0-9]+\. $(printf '%s' "$title" | sed 's/[][\.*^$()+?{}|]/\\&/g')\$" "$file"; then
        echo "hint_sections: $file has no section '$title'"
        status=1
    fi
done <<REFS
$refs
REFS
[ $status -eq 0 ] &&
    echo "hint_sections: $(printf '%s\n' "$ids" | wc -l) hint ids listed in $doc; all $count lesson sections that hints name exist"
exit $status
