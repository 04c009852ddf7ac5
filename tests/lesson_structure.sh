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
# the student is asked to predict is printed before the question.
#
# Answers out of sight. A terminal, an editor or `less` shows a <details> fold open, so a lesson
# with an ANSWERS.md beside it, or one that links an ANSWERS.md, keeps its answers there: each
# experiment links its answer instead of folding it ("Answer: [ANSWERS.md, section 6]
# (ANSWERS.md#section-6-what-to-measure)"), no <details> fold anywhere in the lesson holds a
# measured number, and every ANSWERS.md#anchor it links is a heading of that ANSWERS.md (the
# anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen) or an
# <a id="...">. Lessons without one fold their answers as above.
#
# The glossary. Chapter 01's core path ends with a glossary (heading "## Glossary"). Lessons 02 to
# 06, and any lesson that links the glossary, link each of its terms at the term's first use in
# running text (headings, code blocks, `code`, link targets and the glossary itself aside), the
# term inside the link: [warps](../01_basic_1d/README.md#glossary); chapter 01 links #glossary.
# A link on "constant bank" also counts for "bank".
#
# Each problem is reported with its file and line; exit 1 if any.
CORE_MAX=170
status=0
for lesson in "$@"; do
    answers=$(dirname "$lesson")/ANSWERS.md
    [ -f "$answers" ] && have_answers=1 || have_answers=0
    glossary=0
    case $lesson in *chapters/0[2-6]_*/README.md) glossary=1 ;; esac
    grep -q '#glossary)' "$lesson" && glossary=1
    awk -v core_max=$CORE_MAX -v file="$lesson" -v answers="$answers" \
        -v have_answers="$have_answers" -v glossary=$glossary '
    function problem(line, what) { printf "%s:%d: %s\n", file, line, what; bad = 1 }
    function close_experiment() {
        if (open_exp && !table_seen) problem(exp_line, "this experiment has no table with a \"yours\" column")
        if (open_exp && !answer_seen) {
            if (answers_mode) problem(exp_line, "this experiment links no answer (Answer: [ANSWERS.md, section N](ANSWERS.md#...))")
            else problem(exp_line, "this experiment has no folded answer (<details> with <summary>Measured on ...)")
        }
        open_exp = 0
    }
    function anchor_of(heading,   s) { # the anchor GitHub gives a Markdown heading
        s = heading
        sub(/^#+[ \t]*/, "", s); sub(/[ \t]+$/, "", s)
        s = tolower(s)
        gsub(/[^a-z0-9 _-]/, "", s)
        gsub(/ /, "-", s)
        return s
    }
    # 1 when the first use of the term (regex re) in line s lies inside a glossary link, 0 when
    # it lies outside one, -1 when s does not use the term. Glossary links come marked "]@G@".
    function first_use_linked(s, re,   pre) {
        while (match(s, /\[[^]]*\]@G@/)) {
            pre = substr(s, 1, RSTART - 1)
            if (pre ~ re) return 0
            if (substr(s, RSTART, RLENGTH) ~ re) return 1
            s = substr(s, RSTART + RLENGTH)
        }
        return (s ~ re) ? 0 : -1
    }
    BEGIN {
        core = 1
        measured = "[0-9]+(\\.[0-9]+)? ?(ms|us|µs|GB/s|TB/s)([^A-Za-z]|$)|[0-9]+(\\.[0-9]+)? ?% of|[0-9]\\.[0-9]+x([^A-Za-z0-9]|$)"
        answers_mode = have_answers
        if (!have_answers) {
            while ((getline line < file) > 0) if (line ~ /\]\(ANSWERS\.md#/) answers_mode = 1
            close(file)
        } else {
            while ((getline line < answers) > 0) {
                if (line ~ /^```/) acode = !acode
                if (acode) continue
                if (line ~ /^#+[ \t]/) {
                    a = anchor_of(line)
                    if (a in anchor_count) { anchor_count[a]++; a = a "-" (anchor_count[a] - 1) }
                    else anchor_count[a] = 1
                    anchors[a] = 1
                }
                while (match(line, /<a (id|name)="[^"]*"/)) {
                    a = substr(line, RSTART, RLENGTH); sub(/^<a (id|name)="/, "", a); sub(/"$/, "", a)
                    anchors[a] = 1
                    line = substr(line, RSTART + RLENGTH)
                }
            }
            close(answers)
        }
        n_terms = split("warp|SM|L1|L2|sector|DRAM burst|bank|divergence|occupancy|spill|wave|constant bank|pitch", term, "|")
        edge = "([^A-Za-z0-9_]|$)"; start = "(^|[^A-Za-z0-9_])"
        term_re["warp"] = start "[Ww]arps?" edge
        term_re["SM"] = start "SMs?" edge
        term_re["L1"] = start "L1" edge
        term_re["L2"] = start "L2" edge
        term_re["sector"] = start "[Ss]ectors?" edge
        term_re["DRAM burst"] = start "[Bb]ursts?" edge
        term_re["bank"] = start "[Bb]anks?" edge
        term_re["divergence"] = start "[Dd]iverg(e|es|ed|ent|ence|ing)" edge
        term_re["occupancy"] = start "[Oo]ccupancy" edge
        term_re["spill"] = start "[Ss]pill(s|ed|ing)?" edge
        term_re["wave"] = start "[Ww]aves?" edge
        term_re["constant bank"] = start "[Cc]onstant[- ]banks?" edge
        term_re["pitch"] = start "[Pp]itch(es|ed)?" edge
    }
    /^```/ { in_code = !in_code; next }
    in_code { next }
    # Every ANSWERS.md anchor the lesson links exists.
    answers_mode && /\]\(ANSWERS\.md#/ {
        s = $0
        while (match(s, /\]\(ANSWERS\.md#[^)]*\)/)) {
            a = substr(s, RSTART + 13, RLENGTH - 14)
            if (!have_answers) problem(FNR, "links ANSWERS.md#" a ", but there is no " answers)
            else if (!(a in anchors)) problem(FNR, "links ANSWERS.md#" a ", which is no heading (anchor) of " answers)
            s = substr(s, RSTART + RLENGTH)
        }
    }
    # A fold is open in every reader but a web page: with answers out of sight, none holds a result.
    /<details>/ { in_fold = 1; fold_line = FNR; fold_reported = 0 }
    answers_mode && in_fold && !fold_reported && $0 ~ measured {
        problem(fold_line, "a <details> fold holds a measured answer (a terminal shows it open): move it to ANSWERS.md")
        fold_reported = 1
    }
    /<\/details>/ { in_fold = 0 }
    # Each glossary term links the glossary at its first use in running text (the glossary aside).
    /^## / { in_glossary = ($0 ~ /^## Glossary/) }
    glossary && !in_glossary && !/^#/ {
        s = $0
        gsub(/`[^`]*`/, " ", s)
        gsub(/!\[[^]]*\]\([^)]*\)/, " ", s)
        gsub(/\]\([^)]*#glossary\)/, "]@G@", s)
        gsub(/\]\([^)]*\)/, "]", s)
        for (t = 1; t <= n_terms; t++) {
            if (term[t] in first_seen) continue
            linked = first_use_linked(s, term_re[term[t]])
            if (linked < 0) continue
            if (!linked && term[t] == "bank" && first_use_linked(s, term_re["constant bank"]) == 1) linked = 1
            first_seen[term[t]] = 1
            if (!linked) problem(FNR, "the first use of the glossary term \"" term[t] "\" does not link the glossary ([" term[t] "](../01_basic_1d/README.md#glossary))")
        }
    }
    /^## Deeper/ { if (core) { close_experiment(); core = 0; deeper_line = FNR } ; next }
    !core { next }
    /<details>/ { in_details = 1; details_line = FNR }
    in_details && /<summary>/ {
        if ($0 ~ measured) problem(FNR, "a <summary> that gives the result away (it shows while folded): " substr($0, 1, 80))
        if ($0 !~ /Measured on/) problem(FNR, "a folded answer whose <summary> does not say \"Measured on <GPU>\"")
        else if (open_exp && FNR > exp_line && !answers_mode) answer_seen = 1
        if (!experiments) problem(FNR, "an answer before any **Predict.** question")
    }
    /<\/details>/ { in_details = 0; next }
    in_details { next }
    /^\*\*Predict\.\*\*/ {
        close_experiment()
        experiments++; open_exp = 1; exp_line = FNR; table_seen = 0; answer_seen = 0
        in_predict = 1; next
    }
    in_predict && /^[ \t]*$/ { in_predict = 0 }
    in_predict { next }
    open_exp && /^\|/ && tolower($0) ~ /\| *yours/ { table_seen = 1 }
    answers_mode && open_exp && /\]\(ANSWERS\.md#/ { answer_seen = 1 }
    $0 ~ measured {
        problem(FNR, "a measured number outside a Predict paragraph or a folded answer: " substr($0, 1, 80))
    }
    END {
        if (core) { close_experiment(); problem(FNR, "no \"## Deeper\" part: put errata, seed reports and quirks there") }
        else if (deeper_line - 1 > core_max) problem(deeper_line, "the core path is " deeper_line - 1 " lines (at most " core_max ")")
        if (!experiments) problem(1, "no experiment: a paragraph starting **Predict.** before the first measurement")
        exit bad
    }' "$lesson" || status=1
done
[ $status -eq 0 ] && echo "lesson_structure: $# lessons ask before they tell"
exit $status
