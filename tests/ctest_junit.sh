#!/bin/sh
# ctest_junit.sh: what a CTest run's JUnit report says, for the scripts that act on test results
# (check.sh, gpu_session.sh, handout.sh). They read this report (ctest --output-junit FILE, CTest
# 3.21 or later), never CTest's console lines, whose wording and layout are written for people.
#
#   sh tests/ctest_junit.sh need                 exit 1, saying why in one line, where ctest is
#                                                missing or older than 3.21
#   sh tests/ctest_junit.sh list FILE...         one line per test, VERDICT NAME, in the
#                                                reports' order (CTest's test numbers)
#   sh tests/ctest_junit.sh output NAME FILE...  the output CTest kept of test NAME
#
# Verdicts: passed (status="run"); failed (status="fail": a non-zero exit, a signal, a time
# limit, a failure regex; before CTest 4 the report does not say which); skipped (status
# "notrun" with <skipped message="SKIP_...">, the test's own skip: exit 77 here; and status
# "disabled"), as CTest's "did not run"; any other "notrun" (a missing program, a failed fixture)
# is failed, as CTest's exit code has it, and so is a status this script does not know.
# What the parse relies on (CTest 3.21 to 4.x write it so): every element starts on its own line,
# and a test's output is the text of <system-out> with & < > escaped, so a line whose first
# character past the indentation is "<" is the report's own, never a test's output. The output is
# CTest's copy, cut after 1024 bytes for a test that passed and 300 kB for one that failed.
# POSIX awk only (the GPU machines have mawk): no gawk extension, no regex intervals.
[ $# -ge 1 ] || { echo "usage: ctest_junit.sh need | list FILE... | output NAME FILE..." >&2; exit 2; }
what=$1
shift
# awk functions both readers use: an attribute's value and XML's escapes undone (&amp; last, so
# an escaped "&lt;" in the output stays "&lt;").
functions='
function unescape(s) {
    gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s)
    gsub(/&amp;/, "\\&", s)
    return s
}
function attr(line, key,   i, s) {
    i = index(line, " " key "=\"")
    if (i == 0) return ""
    s = substr(line, i + length(key) + 3)
    return unescape(substr(s, 1, index(s, "\"") - 1))
}'
case $what in
need)
    get="install CMake 3.21 or later (Debian 12, Ubuntu 22.04 and later: apt-get install cmake;"
    get="$get or python3 -m pip install cmake)"
    command -v ctest >/dev/null 2>&1 || { echo "ctest not found: $get, which provides it"; exit 1; }
    # "ctest version 3.25.1": major and minor. An older ctest ignores --output-junit without a
    # word and writes no report, so the version is asked instead.
    version=$(ctest --version 2>/dev/null | sed -n '1s/^ctest version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
    major=${version%%.*} minor=${version#*.}
    if [ -z "$version" ] || [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -lt 21 ]; }; then
        echo "ctest ${version:-(its version unreadable)} is too old: the tests' results are read" \
            "from its JUnit report (ctest --output-junit), new in CMake 3.21; $get"
        exit 1
    fi
    ;;
list)
    awk "$functions"'
        function flush() { if (name != "") print verdict, name; name = "" }
        /^[ \t]*<testcase / {
            flush()
            name = attr($0, "name"); status = attr($0, "status")
            verdict = status == "run" ? "passed" : (status == "disabled" ? "skipped" : "failed")
            next
        }
        /^[ \t]*<skipped / && name != "" && attr($0, "message") ~ /^SKIP_/ { verdict = "skipped" }
        /^[ \t]*<\/testcase>/ { flush() }
        END { flush() }' "$@"
    ;;
output)
    want=$1
    shift
    # From <system-out> to </system-out> of the test named, the tags taken off: an output that
    # ends with a newline leaves the closing tag alone on its line, which prints nothing.
    awk -v want="$want" "$functions"'
        /^[ \t]*<testcase / { mine = attr($0, "name") == want; next }
        mine && /^[ \t]*<system-out>/ { sub(/^[ \t]*<system-out>/, ""); out = 1 }
        out {
            line = $0
            if (index(line, "</system-out>")) {
                sub(/<\/system-out>.*/, "", line); out = 0; mine = 0
                if (line == "") next
            }
            print unescape(line)
        }' "$@"
    ;;
*) echo "ctest_junit.sh: no command '$what' (need, list or output)" >&2; exit 2 ;;
esac
