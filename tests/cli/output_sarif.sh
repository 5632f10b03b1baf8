#!/bin/sh
# output_sarif.sh: `--format sarif` is valid SARIF 2.1.0 (R-OUT-005..007):
# every file of examples/ and tests/verify/ (and the bad inputs, whose
# results are language errors) validates against the OASIS schema kept in
# tests/schema/ (tools/validate_sarif.py), and the log says the
# right things: one rule per registered check plus "error", the exit code,
# regions in characters, notes as related locations, fix-its as fixes.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-sarif.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL output_sarif: $*"; exit 1; }
VALIDATE="/usr/bin/python3 tools/validate_sarif.py"

# R-OUT-005: every file, one log each, valid; exitCode is the exit status.
# (One validator run for all the logs: starting Python per file is slow.)
n=0
: > "$T/manifest"
for f in examples/*.roof examples/*/*.roof $(find tests/verify tests/bad -name '*.roof' | LC_ALL=C sort); do
  [ -f "$f" ] || continue
  "$ROOFLINT" --format sarif "$f" > "$T/$n.sarif" 2> /dev/null
  st=$?
  [ $st -le 2 ] || fail "$f: exit $st"
  printf '%s %s %s\n' "$T/$n.sarif" "$st" "$f" >> "$T/manifest"
  n=$((n + 1))
done
[ $n -gt 0 ] || fail "no input files"
$VALIDATE $(cut -d' ' -f1 "$T/manifest") || fail "invalid SARIF (above)"
/usr/bin/python3 - "$T/manifest" <<'PY' || fail "exit codes (above)"
import json, sys
bad = 0
for line in open(sys.argv[1]):
    log, status, name = line.rstrip("\n").split(" ", 2)
    run = json.load(open(log))["runs"][0]
    inv = run["invocations"][0]
    if inv["exitCode"] != int(status) or inv["executionSuccessful"] != (int(status) != 2):
        print(f"{name}: invocation {inv}, exit status {status}"); bad += 1
    if run["artifacts"][0]["location"]["uri"] != name:
        print(f"{name}: first artifact {run['artifacts'][0]}"); bad += 1
sys.exit(1 if bad else 0)
PY
# all at once: one log, one run
"$ROOFLINT" --format sarif examples/*.roof > "$T/all.sarif" 2> /dev/null
$VALIDATE "$T/all.sarif" || fail "examples/*.roof together: invalid SARIF"

# R-OUT-006: one rule per check plus "error"; R-OUT-007: results say what
# the text diagnostics say, regions in characters, notes, fixes, figures.
printf 'model m {\n  input x : [4096]\n  # \xc3\xa9t\xc3\xa9\n  y = relu(zz)\n}\n' > "$T/err.roof"
"$ROOFLINT" --format sarif "$T/err.roof" > "$T/err.sarif" 2> "$T/err.txt"
st=$?
[ $st -eq 1 ] || fail "error file: exit $st"
$VALIDATE "$T/err.sarif" || fail "error file: invalid SARIF"
"$ROOFLINT" --format sarif examples/dtype_plan_review.roof > "$T/w.sarif" 2> "$T/w.txt"
/usr/bin/python3 - "$T/err.sarif" "$T/err.txt" "$T/w.sarif" "$T/w.txt" <<'PY' || fail "contents (above)"
import json, re, sys
err, err_txt, warn, warn_txt = sys.argv[1:5]
run = json.load(open(err))["runs"][0]
rules = run["tool"]["driver"]["rules"]
assert rules[0]["id"] == "error" and rules[0]["defaultConfiguration"]["level"] == "error"
for name in ("stray-fp32", "unfused-elementwise", "memory-bound", "low-occupancy", "wave-tail",
             "transfer-in-loop", "cross-node", "capacity", "overhead-bound", "tc-alignment"):
    r = [r for r in rules if r["id"] == name]
    assert len(r) == 1, f"rule {name}: {len(r)}"
    assert r[0]["shortDescription"]["text"] and r[0]["fullDescription"]["text"], name
(res,) = run["results"]
assert res["ruleId"] == "error" and res["ruleIndex"] == 0 and res["level"] == "error", res
reg = res["locations"][0]["physicalLocation"]["region"]
# the text diagnostic's line:column is the region's start
m = re.search(r"err\.roof:(\d+):(\d+): error: (.*)", open(err_txt).read())
assert (reg["startLine"], reg["startColumn"]) == (int(m[1]), int(m[2])), (reg, m[0])
assert res["message"]["text"] == m[3], (res["message"]["text"], m[3])
assert reg["endColumn"] - reg["startColumn"] == 2, reg  # 'zz'

run = json.load(open(warn))["runs"][0]
text = open(warn_txt).read()
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
lines = re.findall(r"^\S+:(\d+):(\d+): (warning|error|remark): (.*) \[-W([a-z0-9-]+)\]$", text, re.M)
got = [(r["locations"][0]["physicalLocation"]["region"]["startLine"], r["level"], r["ruleId"])
       for r in run["results"] if r["ruleId"] != "error"]
want = [(int(l), {"remark": "note"}.get(s, s), c) for l, _, s, _, c in lines]
assert got == want, (got, want)
assert all(ids[r["ruleIndex"]] == r["ruleId"] for r in run["results"])
notes = sum(len(r.get("relatedLocations", [])) for r in run["results"])
assert notes > 0, "no notes as relatedLocations"
fixes = [r for r in run["results"] if r.get("fixes")]
assert [r["ruleId"] for r in fixes] == ["stray-fp32"], "stray-fp32's fix-it is not a fix"
assert any(r.get("properties") for r in run["results"]), "no figures in property bags"
for r in fixes:
    for ch in r["fixes"][0]["artifactChanges"]:
        for rep in ch["replacements"]:
            assert "insertedContent" in rep and "deletedRegion" in rep, rep
PY
# R-OUT-005: an imported file's artifact is the file the user gave, not the
# .roof text it was translated to: its byte length (wc -c) and its
# language (none for an ONNX protobuf, "json" for a Hugging Face config);
# a .roof file's is its own length and "rooflint".
for f in tests/onnx/ops/conv_bias.onnx tests/hf/gpt2.json examples/llama2_7b_decode.roof; do
  "$ROOFLINT" --format sarif "$f" > "$T/imp.sarif" 2> /dev/null
  [ $? -le 1 ] || fail "$f: exit status"
  $VALIDATE "$T/imp.sarif" || fail "$f: invalid SARIF"
  case $f in *.onnx) lang=none ;; *.json) lang=json ;; *) lang=rooflint ;; esac
  /usr/bin/python3 - "$T/imp.sarif" "$(wc -c < "$f")" "$lang" "$f" <<'PY' || fail "$f: artifact (above)"
import json, sys
log, size, lang, name = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
art = json.load(open(log))["runs"][0]["artifacts"][0]
assert art["location"]["uri"] == name, art
assert art["length"] == size, (name, art["length"], size)
assert art.get("sourceLanguage", "none") == lang, (name, art)
PY
done
echo "output_sarif: ok ($n files)"
