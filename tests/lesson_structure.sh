#!/bin/sh
# lesson_structure.sh: every lesson asks before it tells.
#
#   sh tests/lesson_structure.sh LESSON.md...
#
# A lesson is a core path, then a part headed "## Deeper" (errata, seed reports, library quirks).
# The core path holds at most CORE_MAX lines and one or more experiments. An experiment opens
# with a paragraph that starts with "**Predict.**" (the question, with the numbers the student
# needs to work it out), then has a table with a "yours" column for the student's measurement,
# and then its answer folded away: <details> with a <summary> that names the GPU ("Measured on
# ...") and gives no result (a summary shows while the answer is folded). Outside the Predict
# paragraphs, the folded answers and code blocks, the core path states no measured result: no
# number in ms, us, GB/s or TB/s, no "N% of" (copy, peak), no "N.Nx" speedup, so that nothing
# the student is asked to predict is printed before the question. Each problem is
# reported with its file and line; exit 1 if any.
CORE_MAX=170
status=0
for lesson in "$@"; do
    awk -v core_max=$CORE_MAX -v file="$lesson" '
    function problem(line, what) { printf "%s:%d: %s\n", file, line, what; bad = 1 }
    function close_experiment() {
        if (open_exp && !table_seen) problem(exp_line, "this experiment has no table with a \"yours\" column")
        if (open_exp && !answer_seen) problem(exp_line, "this experiment has no folded answer (<details> with <summary>Measured on ...)")
        open_exp = 0
    }
    BEGIN {
        core = 1
        measured = "[0-9]+(\\.[0-9]+)? ?(ms|us|µs|GB/s|TB/s)([^A-Za-z]|$)|[0-9]+(\\.[0-9]+)? ?% of|[0-9]\\.[0-9]+x([^A-Za-z0-9]|$)"
    }
    /^## Deeper/ { if (core) { close_experiment(); core = 0; deeper_line = NR } ; next }
    !core { next }
    /^```/ { in_code = !in_code; next }
    in_code { next }
    /<details>/ { in_details = 1; details_line = NR }
    in_details && /<summary>/ {
        if ($0 ~ measured) problem(NR, "a <summary> that gives the result away (it shows while folded): " substr($0, 1, 80))
        if ($0 !~ /Measured on/) problem(NR, "a folded answer whose <summary> does not say \"Measured on <GPU>\"")
        else if (open_exp && NR > exp_line) answer_seen = 1
        if (!experiments) problem(NR, "an answer before any **Predict.** question")
    }
    /<\/details>/ { in_details = 0; next }
    in_details { next }
    /^\*\*Predict\.\*\*/ {
        close_experiment()
        experiments++; open_exp = 1; exp_line = NR; table_seen = 0; answer_seen = 0
        in_predict = 1; next
    }
    in_predict && /^[ \t]*$/ { in_predict = 0 }
    in_predict { next }
    open_exp && /^\|/ && tolower($0) ~ /\| *yours/ { table_seen = 1 }
    $0 ~ measured {
        problem(NR, "a measured number outside a Predict paragraph or a folded answer: " substr($0, 1, 80))
    }
    END {
        if (core) { close_experiment(); problem(NR, "no \"## Deeper\" part: put errata, seed reports and quirks there") }
        else if (deeper_line - 1 > core_max) problem(deeper_line, "the core path is " deeper_line - 1 " lines (at most " core_max ")")
        if (!experiments) problem(1, "no experiment: a paragraph starting **Predict.** before the first measurement")
        exit bad
    }' "$lesson" || status=1
done
[ $status -eq 0 ] && echo "lesson_structure: $# lessons ask before they tell"
exit $status
