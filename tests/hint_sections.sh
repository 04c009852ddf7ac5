#!/bin/sh
# hint_sections.sh: every lesson section a hint points at exists, under that exact title.
#
#   sh tests/hint_sections.sh ROOT
#
# Hints (common/diagnose.c, the harness's watchdog, CUDA faults, tests/sanitize.sh) name a lesson
# as "chapters/NN_name/README.md, 'Section title'"; the lesson must have "## N. Section title".
root=$1
cd "$root" || exit 2
refs=$(grep -ho "chapters/[0-9][0-9]_[a-z0-9_]*/README.md, '[^']*'" common/*.c tests/sanitize.sh |
    sed 's/\\"/"/g' | sort -u)
[ -n "$refs" ] || { echo "hint_sections: no lesson references found: the pattern is out of date"; exit 1; }
status=0 count=0
while IFS= read -r ref; do
    file=${ref%%,*}
    title=$(printf '%s' "$ref" | sed "s/^[^']*'//; s/'\$//")
    count=$((count + 1))
    if ! grep -qE "^## [0-9]+\. $(printf '%s' "$title" | sed 's/[][\.*^$()+?{}|]/\\&/g')\$" "$file"; then
        echo "hint_sections: $file has no section '$title'"
        status=1
    fi
done <<REFS
$refs
REFS
[ $status -eq 0 ] && echo "hint_sections: all $count lesson sections that hints name exist"
exit $status
