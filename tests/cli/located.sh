#!/bin/sh
# located.sh: every diagnostic on an imported file is in the file the user
# has (specs/diagnostics.md).  Over every fixture (tests/hf/*.json in each
# phase, every ONNX file under tests/onnx/, with --unknown-ops=custom too):
# each line of the text output is at a line of that file (line at most its
# line count, column on the line, the snippet that line's text) or names a
# node (R-DIAG-001..003); JSON and SARIF place them the same way, and every
# SARIF region is checked against the artifact's real line count or byte
# size (R-DIAG-004).  Then GitHub's fields: help, helpUri, precision,
# problem.severity, the automation id, fingerprints stable when lines move
# and distinct per target, the 25,000-result limit (R-SARIF-001..004), and
# the workflow recipe of docs/github-code-scanning.md (R-SARIF-005).
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-located.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL located: $*"; exit 1; }
PY=/usr/bin/python3

# One run per fixture and mode; text, JSON and SARIF of each.
n=0
: > "$T/manifest"
run() { # FILE ARGS...
  f=$1; shift
  "$ROOFLINT" "$@" "$f" > /dev/null 2> "$T/$n.txt"
  "$ROOFLINT" "$@" --format json "$f" > "$T/$n.json" 2> /dev/null
  "$ROOFLINT" "$@" --format sarif "$f" > "$T/$n.sarif" 2> /dev/null
  printf '%s %s\n' "$n" "$f" >> "$T/manifest"
  n=$((n + 1))
}
for f in tests/hf/*.json; do
  run "$f"
  run "$f" --phase decode -D ctx=4096
  run "$f" --phase train -t a100_sxm,h100_sxm
done
for f in $(find tests/onnx -name '*.onnx' | LC_ALL=C sort); do
  run "$f"
  run "$f" --unknown-ops=custom -t h100_sxm,a100_sxm
done
[ $n -gt 100 ] || fail "only $n runs"

$PY tools/validate_sarif.py $(sed "s|^\([0-9]*\) .*|$T/\1.sarif|" "$T/manifest") ||
  fail "invalid SARIF (above)"

$PY - "$T" <<'PY' || fail "placement (above)"
import json, os, re, sys
try:
    import onnx
except ImportError:
    onnx = None
T = sys.argv[1]
bad = 0
def err(msg):
    global bad
    bad += 1
    if bad < 30: print(msg)
checked = {"text": 0, "node": 0, "sarif": 0, "bytes": 0}
for row in open(os.path.join(T, "manifest")):
    k, path = row.rstrip("\n").split(" ", 1)
    raw = open(path, "rb").read()
    binary = path.endswith(".onnx")
    lines = raw.decode("utf-8", "replace").splitlines() if not binary else []
    # R-DIAG-001..003: the text output
    text = open(os.path.join(T, k + ".txt"), encoding="utf-8", errors="replace").read().splitlines()
    last = None
    for ln in text:
        m = re.match(r"\s*(\d+) \| (.*)$", ln)
        if m:  # a snippet: the line of the file the header named
            if binary: err(f"{path}: a snippet of a binary file: {ln}")
            elif last is None or int(m.group(1)) != last or lines[last - 1] != m.group(2):
                err(f"{path}: snippet {ln!r} is not line {last} of the file")
            continue
        # a note is placed like its error (R-DIAG-001): none without a place
        if re.match(r"(note|warning|error|remark): ", ln):
            err(f"{path}: a diagnostic without a location: {ln}")
            continue
        if re.match(r"\s*\| ", ln) or ln.startswith("rooflint: "):
            continue
        if not ln.startswith(path): continue
        rest = ln[len(path):]
        m = re.match(r":(\d+):(\d+): (error|warning|note|remark): ", rest)
        if m:
            L, C = int(m.group(1)), int(m.group(2))
            if binary or L > len(lines) or C > len(lines[L - 1]) + 1:
                err(f"{path}: {L}:{C} is not in the file ({len(lines)} lines): {ln}")
            last = L
            checked["text"] += 1
            continue
        # a node, or the graph input, initializer or symbolic dim a let
        # was made from (import.h's origin grammar)
        m = re.match(r': (node|input|initializer|dim_param)( \d+)?(?: "(?:[^"\\]|\\.)*")?( \([A-Za-z0-9_.]+\))?(?: in "(?:[^"\\]|\\.)*")?: (error|warning|note|remark): ', rest)
        if m and binary:
            checked["node"] += 1
            last = None
            continue
        if re.match(r": (error|warning|note|remark): ", rest):
            last = None
            continue
        err(f"{path}: not a GNU line in the file nor a node: {ln}")
    # R-DIAG-004: JSON
    doc = json.load(open(os.path.join(T, k + ".json")))
    def locs(o):
        if isinstance(o, dict):
            if "file" in o and "line" in o: yield o
            for v in o.values(): yield from locs(v)
        elif isinstance(o, list):
            for v in o: yield from locs(v)
    for d in doc.get("diagnostics", []):
        for loc in locs(d):
            if loc["file"] != path: continue
            if binary:
                if loc["line"] is not None or ("origin" in loc and "byte_offset" not in loc["origin"]):
                    err(f"{path}: JSON location {loc}")
            elif loc["line"] is None or loc["line"] > len(lines):
                err(f"{path}: JSON location {loc}")
    # R-DIAG-004: SARIF regions against the artifact
    run = json.load(open(os.path.join(T, k + ".sarif")))["runs"][0]
    for r in run["results"]:
        for loc in r.get("locations", []) + r.get("relatedLocations", []):
            phys = loc.get("physicalLocation")
            if not phys: continue
            uri = phys["artifactLocation"]["uri"]
            if uri != path: continue
            reg = phys.get("region")
            if reg is None:  # the file as a whole (the model's own line)
                continue
            if binary:
                if "startLine" in reg or reg["byteOffset"] + reg["byteLength"] > len(raw):
                    err(f"{path}: region {reg} past {len(raw)} bytes")
                if loc["logicalLocations"][0]["kind"] not in ("function", "variable"):
                    err(f"{path}: node {loc['logicalLocations']}")
                # the bytes are the node's NodeProto (python3-onnx reads it)
                if loc["logicalLocations"][0]["kind"] == "function" and onnx is not None:
                    node = onnx.NodeProto.FromString(raw[reg["byteOffset"]:reg["byteOffset"] + reg["byteLength"]])
                    props = loc["logicalLocations"][0]["properties"]
                    if node.op_type != props["opType"] or (node.name and node.name != loc["logicalLocations"][0]["name"]):
                        err(f"{path}: bytes {reg} are {node.op_type} {node.name!r}, not {loc['logicalLocations']}")
                checked["bytes"] += 1
            else:
                if reg["startLine"] > len(lines) or reg["endLine"] > len(lines) or \
                   reg["startColumn"] > len(lines[reg["startLine"] - 1]) + 1:
                    err(f"{path}: region {reg} not in {len(lines)} lines")
                checked["sarif"] += 1
        if "fixes" in r: err(f"{path}: a fix on imported text: {r['fixes']}")
print("located:", checked)
for key, at_least in (("text", 50), ("node", 100), ("sarif", 50), ("bytes", 100)):
    if checked[key] < at_least: err(f"only {checked[key]} {key} places checked")
sys.exit(1 if bad else 0)
PY

# R-DIAG-001: the examples of the spec, exactly.
"$ROOFLINT" tests/hf/gpt2.json 2>&1 >/dev/null | grep -c . > /dev/null
out=$("$ROOFLINT" -W no-overhead-bound tests/hf/gpt2.json 2>&1 >/dev/null | head -4)
exp='tests/hf/gpt2.json:30:3: warning: matmul '"'"'logits'"'"' is memory-bound on H100 SXM: 0.999 FLOP/B against a ridge of 295.5; ceiling 3.3 TFLOP/s (0.3% of peak) [-Wmemory-bound]
   30 |   "vocab_size": 50257
      |   ^~~~~~~~~~~~
tests/hf/gpt2.json:30:3: note: in the imported text: logits = matmul(x, transpose(embed_tokens, [1, 0]))'
[ "$out" = "$exp" ] || fail "gpt2's head: got
$out"
# a weight of an MLP is placed at intermediate_size (Mixtral's through the
# let written from it), a fused region at its first statement
out=$("$ROOFLINT" -t a100_sxm tests/hf/mixtral_8x7b.json 2>&1 >/dev/null | grep -E "^tests/hf/mixtral_8x7b.json:[0-9]+:3: (note: the largest|warning: fused region 'qkv')")
exp="tests/hf/mixtral_8x7b.json:11:3: note: the largest weight, 'expert_gate_proj', takes 30.1 GB (256 copies of 117.4 MB in nested repeats)
tests/hf/mixtral_8x7b.json:14:3: warning: fused region 'qkv' runs 768 blocks in 8 waves on 108 SMs: 88.9% utilisation, the last wave holds 12 blocks [-Wwave-tail]"
[ "$out" = "$exp" ] || fail "mixtral: got
$out"
# R-DIAG-003: an unmodelled field, one GNU line at its key, in a lint and
# in `rooflint import`
exp="tests/hf/deepseek_v3.json:29:3: warning: 'num_nextn_predict_layers' changes the cost (the multi-token-prediction module: not written, as the published parameter counts leave it out) and is not modelled"
out=$("$ROOFLINT" tests/hf/deepseek_v3.json 2>&1 >/dev/null | grep "^tests.*num_nextn")
[ "$out" = "$exp" ] || fail "unmodelled field in a lint: got
$out"
out=$("$ROOFLINT" import tests/hf/deepseek_v3.json 2>&1 >/dev/null)
[ "$out" = "$exp" ] || fail "unmodelled field in an import: got
$out"
# R-DIAG-002: an ONNX node, one line, and the statement as a note
out=$("$ROOFLINT" tests/onnx/ops/binary_add.onnx 2>&1 >/dev/null)
exp='tests/onnx/ops/binary_add.onnx: node 0 "/Add" (Add): warning: add '"'"'y'"'"' takes 0.0478 ns on the roofline, under the 5.00 us launch overhead of H100 SXM [-Woverhead-bound]
tests/onnx/ops/binary_add.onnx: node 0 "/Add" (Add): note: in the imported text: y = add(x, b)
tests/onnx/ops/binary_add.onnx: node 0 "/Add" (Add): note: fuse it into a neighbouring kernel, or capture the step in a CUDA graph so launches are paid once'
[ "$out" = "$exp" ] || fail "binary_add: got
$out"
# R-DIAG-002, R-DIAG-004: a node of a subgraph (if_const's then_branch,
# inlined where its If, node 1, stands) names the subgraph's path, from
# the graph's name (if_const) through the If's name (/If) and attribute;
# SARIF's logical location is that path and the node's name.
out=$("$ROOFLINT" tests/onnx/ops/if_const.onnx 2>&1 >/dev/null | head -1)
exp='tests/onnx/ops/if_const.onnx: node 1 "/then/Relu" (Relu) in "if_const//If/then_branch": warning: relu '"'"'t'"'"' takes 0.0382 ns on the roofline, under the 5.00 us launch overhead of H100 SXM [-Woverhead-bound]'
[ "$out" = "$exp" ] || fail "if_const's subgraph node: got
$out"
"$ROOFLINT" --format sarif tests/onnx/ops/if_const.onnx 2>/dev/null | $PY -c '
import json, sys
l = json.load(sys.stdin)["runs"][0]["results"][0]["locations"][0]["logicalLocations"][0]
want = {"name": "/then/Relu", "fullyQualifiedName": "if_const//If/then_branch//then/Relu",
        "kind": "function", "properties": {"kind": "node", "index": 1, "opType": "Relu",
                                           "graph": "if_const//If/then_branch"}}
sys.exit(0 if l == want else print(l) or 1)' || fail "if_const's logical location (above)"
"$ROOFLINT" --format json tests/onnx/ops/if_const.onnx 2>/dev/null | $PY -c '
import json, sys
o = json.load(sys.stdin)["diagnostics"][0]["location"]["origin"]
sys.exit(0 if o["graph"] == "if_const//If/then_branch" and o["name"] == "/then/Relu" else print(o) or 1)' ||
  fail "if_const's JSON origin (above)"

# R-DIAG-001: a capacity error on a config.json is at "torch_dtype" (line 30
# of llama3_1_70b.json, column 3), the key a user changes first, and its
# notes on what would fit at the same place: BF16 weights of 70.55 G
# parameters are 141.1 GB, over the H100's 85.9 GB; half at -D tensor=2.
out=$("$ROOFLINT" tests/hf/llama3_1_70b.json 2>&1 >/dev/null | grep -e '-Wcapacity' -e 'fits')
exp="tests/hf/llama3_1_70b.json:30:3: error: model 'llama3_1_70b' needs 141.5 GB but H100 SXM has 80 GiB = 85.9 GB: weights 141.1 GB, activations 385.9 MB [-Wcapacity]
tests/hf/llama3_1_70b.json:30:3: note: fits with -D tensor=2: 70.8 GB per GPU
tests/hf/llama3_1_70b.json:30:3: note: fits on H200 SXM (-t h200_sxm), which has 141 GiB = 151.4 GB"
[ "$out" = "$exp" ] || fail "capacity at torch_dtype: got
$out"
# Two notes that had no place: a --sweep's note on each error is at the
# swept let (a config's at its key: llama3_1_70b's batch, written from no
# key, at model_type, line 15), and the note on the unknown suppressions
# past the error limit at the first of them (the 21st, line 25).  No
# line of either run is a diagnostic without a location.
"$ROOFLINT" -w --sweep batch=1,2 tests/hf/llama3_1_70b.json > /dev/null 2> "$T/sweep.err"
grep -q '^tests/hf/llama3_1_70b.json:15:3: note: with batch = 2 from --sweep$' "$T/sweep.err" ||
  fail "the --sweep note of a config: $(grep 'from --sweep' "$T/sweep.err" | head -2)"
printf '# sweep\nlet B = 1\nmodel m {\n  weight w : bf16[B * 65536, 1048576]\n}\n' > "$T/sweep.roof"
"$ROOFLINT" -w --sweep B=1,2 "$T/sweep.roof" > /dev/null 2> "$T/sweep_roof.err"
grep -q "^$T/sweep.roof:2:5: note: with B = 1 from --sweep\$" "$T/sweep_roof.err" ||
  fail "the --sweep note of a .roof file: $(grep 'from --sweep' "$T/sweep_roof.err" | head -2)"
{ printf 'model m {\n  input x : [16]\n  y = relu(x)\n}\n'
  i=0; while [ $i -lt 25 ]; do printf '# rooflint: ignore[memory-bond]\n'; i=$((i + 1)); done; } > "$T/sup.roof"
"$ROOFLINT" "$T/sup.roof" > /dev/null 2> "$T/sup.err"
grep -q "^$T/sup.roof:25:20: note: 5 more suppressions in this file name an unknown check, the first here (--error-limit N shows more)\$" "$T/sup.err" ||
  fail "the suppressions note: $(grep 'more suppressions' "$T/sup.err")"
for e in sweep sweep_roof sup; do
  if grep -Eq '^(note|warning|error|remark): ' "$T/$e.err"; then
    fail "a diagnostic without a location in $e: $(grep -E '^(note|warning|error|remark): ' "$T/$e.err" | head -1)"
  fi
done

# R-DIAG-003: `rooflint import` output, saved and linted, keeps its lines
"$ROOFLINT" import tests/hf/gpt2.json -o "$T/gpt2.roof" 2> /dev/null || fail "import gpt2"
out=$("$ROOFLINT" -W no-overhead-bound "$T/gpt2.roof" 2>&1 >/dev/null | head -1)
case $out in
"$T/gpt2.roof:85:12: warning: matmul 'logits' is memory-bound"*) ;;
*) fail "the imported text linted: $out" ;;
esac

# R-SARIF-001 (help, helpUri, precision, problem.severity), R-SARIF-003
# (the automation id) and R-SARIF-002 (distinct fingerprints): the GitHub
# fields.
# helpUri: where --sarif-help-base says docs/checks.md is served, the
# check's anchor; without it none (rooflint has no address of its own).
BASE=https://docs.example/rooflint/docs/checks.md
"$ROOFLINT" --format sarif --sarif-help-base "$BASE" -t h100_sxm,a100_sxm examples/llama2_7b_decode.roof > "$T/a.sarif" 2> /dev/null
"$ROOFLINT" --format sarif examples/llama2_7b_decode.roof > "$T/nobase.sarif" 2> /dev/null
$PY - "$T/nobase.sarif" <<'PY' || fail "a rule with a helpUri but no --sarif-help-base (above)"
import json, sys
for rule in json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]["rules"]:
    if "helpUri" in rule or "[Documentation]" in rule["help"]["markdown"]:
        print(rule["id"], rule.get("helpUri")); sys.exit(1)
PY
for bad_base in 'docs.example/checks.md' 'https://docs.example/a b' 'https://docs.example/x)' 'https://docs.example/#a'; do
  out=$("$ROOFLINT" --format sarif --sarif-help-base "$bad_base" examples/llama2_7b_decode.roof 2>&1 >/dev/null)
  st=$?
  [ $st -eq 2 ] && case $out in *"--sarif-help-base takes an http:// or https:// address without spaces, quotes, parentheses or '#'"*) true ;; *) false ;; esac ||
    fail "--sarif-help-base '$bad_base': exit $st: $out"
done
$PY - "$T/a.sarif" docs/checks.md "$ROOFLINT" "$BASE" <<'PY' || fail "GitHub fields (above)"
import json, re, subprocess, sys
run = json.load(open(sys.argv[1]))["runs"][0]
docs = open(sys.argv[2]).read()
bad = 0
if run["automationDetails"]["id"] != "rooflint/h100_sxm,a100_sxm/":
    print("automation id", run["automationDetails"]); bad += 1
want = {"error": ("very-high", "error"), "capacity": ("very-high", "error"),
        "memory-bound": ("high", "warning"), "overhead-bound": ("medium", "warning")}
for rule in run["tool"]["driver"]["rules"]:
    rid, p = rule["id"], rule["properties"]
    if rule["helpUri"] != sys.argv[4] + "#" + rid: print("helpUri", rule["helpUri"]); bad += 1
    if f"\n## {rid}\n" not in docs: print("no section for", rid, "in docs/checks.md"); bad += 1
    if rid != "error":
        explain = subprocess.run([sys.argv[3], "--explain", rid], capture_output=True, text=True).stdout
        if "```text\n" + explain + "```" not in docs: print("docs/checks.md's", rid, "is not --explain"); bad += 1
    if rule["help"]["text"] != rule["fullDescription"]["text"] or rule["helpUri"] not in rule["help"]["markdown"]:
        print("help", rid); bad += 1
    if rid in want and (p["precision"], p["problem.severity"]) != want[rid]:
        print("properties", rid, p); bad += 1
    if p["precision"] not in ("very-high", "high", "medium", "low"): print(rid, p); bad += 1
fps = [r["partialFingerprints"]["rooflint/v1"] for r in run["results"]]
if not fps or len(set(fps)) != len(fps) or not all(re.fullmatch(r"[0-9a-f]{16}", f) for f in fps):
    print("fingerprints not distinct", fps); bad += 1
sys.exit(1 if bad else 0)
PY

# R-SARIF-002: stable when lines are inserted above the findings; distinct
# per target; a config and an ONNX model too.
ABS="$(cd "$(dirname "$ROOFLINT")" && pwd)/$(basename "$ROOFLINT")"
fp() { "$ABS" --format sarif "$@" 2> /dev/null |
  $PY -c 'import json,sys; [print(r["ruleId"], r["partialFingerprints"]["rooflint/v1"]) for r in json.load(sys.stdin)["runs"][0]["results"]]' | sort; }
cp examples/llama2_7b_decode.roof "$T/m.roof"
{ printf '# three lines\n# inserted above\n# every finding\n'; cat examples/llama2_7b_decode.roof; } > "$T/moved.roof"
mkdir "$T/m"; cp "$T/moved.roof" "$T/m/m.roof"
( cd "$T" && fp m.roof ) > "$T/fp1"
( cd "$T/m" && fp m.roof ) > "$T/fp2"
[ -s "$T/fp1" ] || fail "no findings to fingerprint"
cmp -s "$T/fp1" "$T/fp2" || fail "fingerprints moved with the lines: $(diff "$T/fp1" "$T/fp2")"
grep -q "^memory-bound " "$T/fp1" || fail "no memory-bound finding fingerprinted"
( cd "$T" && fp -t a100_sxm m.roof ) > "$T/fp3"
[ -z "$(cut -d' ' -f2 "$T/fp1" "$T/fp3" | sort | uniq -d)" ] || fail "a fingerprint shared between targets"
fp tests/hf/gpt2.json > "$T/fp4"; fp tests/hf/gpt2.json > "$T/fp5"
[ -s "$T/fp4" ] && cmp -s "$T/fp4" "$T/fp5" || fail "gpt2's fingerprints are not stable"

# R-SARIF-004: past 25,000 results the rest are left out, and the log says
# how many (25,003 undefined names, --error-limit 0: no limit).
$PY -c '
print("model m {")
print("  input x : [8, 8]")
for i in range(25003): print(f"  y{i} = relu(u{i})")
print("}")' > "$T/many.roof"
"$ROOFLINT" --error-limit 0 --format sarif "$T/many.roof" > "$T/many.sarif" 2> /dev/null
$PY - "$T/many.sarif" <<'PY' || fail "the 25,000-result limit (above)"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
notes = run["invocations"][0].get("toolExecutionNotifications", [])
ok = len(run["results"]) == 25000 and len(notes) == 1 and \
     notes[0]["message"]["text"] == "3 results left out: GitHub code scanning reads at most 25000 a run"
if not ok: print(len(run["results"]), notes)
sys.exit(0 if ok else 1)
PY

# R-SARIF-005: the workflow recipe parses, names the steps it needs, and
# the log its lint step writes validates.
$PY - docs/github-code-scanning.md "$T/workflow_lint.sh" <<'PY' || fail "the workflow (above)"
import re, sys, yaml
text = open(sys.argv[1]).read()
blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
assert len(blocks) == 1, "one yaml block"
wf = yaml.safe_load(blocks[0])
assert wf["permissions"]["security-events"] == "write"
steps = wf["jobs"]["rooflint"]["steps"]
uses = [s.get("uses", "") for s in steps]
assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses), uses
assert any(u.startswith("actions/checkout@") for u in uses), uses
upload = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")][0]
assert upload["with"]["sarif_file"] == "rooflint.sarif" and upload["if"] == "always()"
lint = [s for s in steps if s.get("name") == "Lint the models"][0]["run"]
assert "--format sarif" in lint and "> rooflint.sarif" in lint
open(sys.argv[2], "w").write(lint)
PY
mkdir -p "$T/repo/models/hf" "$T/repo/.rooflint/build"
cp examples/*.roof "$T/repo/models/"
cp tests/hf/llama2_7b.json "$T/repo/models/hf/config.json"
ln -s "$ABS" "$T/repo/.rooflint/build/rooflint"
( cd "$T/repo" && ROOFLINT_REPO=OWNER/rooflint sh -e "$T/workflow_lint.sh" 2> /dev/null ) || fail "the workflow's lint step"
grep -q '"uri": "models/hf/config.json"' "$T/repo/rooflint.sarif" || fail "the config is not in the log"
grep -q '"helpUri": "https://github.com/OWNER/rooflint/blob/main/docs/checks.md#capacity"' "$T/repo/rooflint.sarif" ||
  fail "the workflow's helpUri"
$PY tools/validate_sarif.py "$T/repo/rooflint.sarif" || fail "the workflow's log is not valid SARIF"
echo "located: ok ($n runs)"
