#!/bin/sh
# json_lines.sh: a program's --json output is JSON lines and nothing else (what `make report` reads).
#
#   sh tests/json_lines.sh REGEX COMMAND [ARGS...]
#
# Passes when COMMAND exits 0, every line of its stdout is one JSON object (python3's json
# parser; a sed check where there is no python3), and some line matches the extended REGEX.
# Exit 77 from COMMAND (no usable GPU) is passed through: CTest reports the test as skipped.
pattern=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "json_lines: exit $rc from: $*"; exit 1; }
if command -v python3 >/dev/null; then
    python3 -c '
import json, sys
for number, line in enumerate(open(sys.argv[1]), 1):
    try:
        assert isinstance(json.loads(line), dict)
    except Exception:
        sys.exit(f"json_lines: stdout line {number} is not a JSON object: {line[:120]!r}")
' "$out" || exit 1
elif grep -qv '^{.*}$' "$out"; then
    echo "json_lines: stdout has a line that is not a JSON object"; exit 1
fi
grep -Eq -- "$pattern" "$out" || { echo "json_lines: no stdout line matches /$pattern/"; exit 1; }
echo "json_lines: $(wc -l <"$out") JSON lines, one matching /$pattern/"
