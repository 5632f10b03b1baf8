#!/bin/sh
# robust_utf8.sh: ill-formed UTF-8 never reaches an output (issue 17 item
# 14; R-LEX-010, R-OUT-002).  A surrogate (ED A0 80), a code point above
# U+10FFFF (F4 90 80 80) and an overlong form (C0 AF) passed the old check
# but not jansson's, so JSON and SARIF got "message": null / "file": null
# and the SVG was not well-formed.  Here they stand in a file name, in a
# target's display string and in the code: JSON and SARIF parse, no
# message or file is null, the text diagnostic writes \xNN, the chart is
# well-formed XML.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-utf8.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL robust_utf8: $*"; exit 1; }

BAD=$(printf '\355\240\200\364\220\200\200\300\257')
F="$T/m$BAD.roof"
printf 'target t {\n  display = "H100 %s"\n  sms = 132\n  memory = 80 GB\n  memory_bw = 3.35 TB/s\n  pcie_bw = 64 GB/s\n  bf16_tc = 990 TFLOP/s\n}\n' "$BAD" > "$T/t.roof"
printf 'model m {\n  input x : [4096, 4096]\n  weight w : [4096, 4096]\n  y = matmul(x, w)\n}\n' > "$F"
printf 'model n {\n  input x : [4, 8]\n  y = relu(x) %s\n}\n' "$BAD" > "$T/s.roof"

"$ROOFLINT" -t "$T/t.roof" --format json "$F" "$T/s.roof" > "$T/o.json" 2> /dev/null
[ $? -eq 1 ] || fail "json: exit status"
"$ROOFLINT" -t "$T/t.roof" --format sarif "$F" "$T/s.roof" > "$T/o.sarif" 2> /dev/null
[ $? -eq 1 ] || fail "sarif: exit status"
/usr/bin/python3 - "$T/o.json" "$T/o.sarif" <<'PY' || fail "JSON or SARIF (above)"
import json, sys
def walk(v, path, bad):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("message", "file", "text", "uri", "display") and x is None:
                bad.append(path + "/" + k)
            walk(x, path + "/" + k, bad)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (path, i), bad)
for name in sys.argv[1:]:
    with open(name, encoding="utf-8", errors="strict") as f:
        doc = json.load(f)
    bad = []
    walk(doc, "", bad)
    if bad:
        sys.exit("%s: null at %s" % (name, ", ".join(bad[:5])))
    if name.endswith(".json") and "\ufffd" not in json.dumps(doc, ensure_ascii=False):
        sys.exit("%s: no U+FFFD for the ill-formed bytes" % name)
PY
"$ROOFLINT" "$T/s.roof" 2> "$T/err"
grep -q "stray '\\\\xed' in program" "$T/err" || fail "text: no \\xed in $(head -1 "$T/err")"
"$ROOFLINT" -w -t "$T/t.roof" --plot "$T/c.svg" "$F" > /dev/null 2>&1
[ $? -eq 0 ] || fail "plot: exit status"
if command -v xmllint > /dev/null 2>&1; then
  xmllint --noout "$T/c.svg" || fail "chart not well-formed"
fi
exit 0
