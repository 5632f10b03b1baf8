#!/bin/sh
# output_json.sh: `--format json` (R-OUT-001..R-OUT-004, R-OUT-012).
#   1. the seed's six operations (examples/seed/six_ops.roof) carry exactly
#      the seed's figures: FLOP/B, attainable TFLOP/s, bound (R-ROOF-001);
#   2. every example gives one parseable document with every documented
#      field, numbers as JSON numbers (no strings, no NaN);
#   3. several files give one document; an error still gives a document
#      (models from the good file, the error in diagnostics) and exit 1.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-json.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL output_json: $*"; exit 1; }

# R-OUT-002: base units; the seed's figures, exactly.
"$ROOFLINT" --format json examples/seed/six_ops.roof > "$T/six.json" 2> "$T/six.err" ||
  fail "six_ops: exit $? ($(head -c 300 "$T/six.err"))"
/usr/bin/python3 - "$T/six.json" <<'PY' || fail "six_ops figures (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["tool"] == {"name": "rooflint", "version": doc["tool"]["version"]}
t = doc["target"]
assert t["name"] == "h100_sxm", t["name"]
assert t["memory_bw"] == 3350000000000, t["memory_bw"]
assert t["peaks"]["fp16_tc"] == 990000000000000, t["peaks"]
assert f'{t["ridge"]:.1f}' == "295.5", t["ridge"]
(m,) = doc["models"]
nodes = {n["name"]: n for n in m["nodes"]}
# name: (FLOP/B to 3 decimals, attainable TFLOP/s to 1 decimal, bound)
seed = {
    "add_n":       ("0.167",    "0.6",   "memory"),
    "matvec":      ("1.000",    "3.3",   "memory"),
    "matmul_4096": ("1365.333", "990.0", "compute"),
    "attn_512":    ("256.000",  "857.6", "memory"),
    "attn_8192":   ("4096.000", "990.0", "compute"),
    "decode_7b":   ("1.000",    "3.4",   "memory"),
}
bad = []
for name, (i, a, b) in seed.items():
    n = nodes[name]
    got = (f'{n["intensity"]:.3f}', f'{n["attainable"] / 1e12:.1f}', n["bound"])
    if got != (i, a, b):
        bad.append(f"{name}: {got}, seed says {(i, a, b)}")
    if abs(n["intensity"] - n["flops"] / n["bytes"]) > 1e-9 * n["intensity"]:
        bad.append(f"{name}: intensity is not flops / bytes")
# exact counts in base units
n = nodes["add_n"]
if (n["flops"], n["bytes"]) != (67108864, 402653184):
    bad.append(f"add_n: flops {n['flops']}, bytes {n['bytes']}")
n = nodes["matmul_4096"]
if (n["flops"], n["bytes"], n["dtype"], n["op"]) != (137438953472, 100663296, "fp16", "matmul"):
    bad.append(f"matmul_4096: {n['flops']} {n['bytes']} {n['dtype']} {n['op']}")
if nodes["decode_7b"]["flops"] != 14000000000:
    bad.append(f"decode_7b flops {nodes['decode_7b']['flops']}")
if m["file"] != "examples/seed/six_ops.roof" or m["name"] != "six_ops":
    bad.append(f"model {m['name']} file {m['file']}")
# the location is the call, 1-based, in bytes
src = open("examples/seed/six_ops.roof").read().split("\n")
line = next(i for i, l in enumerate(src, 1) if l.lstrip().startswith("matmul_4096 ="))
col = src[line - 1].index("matmul(") + 1
loc = nodes["matmul_4096"]["location"]
if (loc["file"], loc["line"], loc["column"]) != ("examples/seed/six_ops.roof", line, col):
    bad.append(f"matmul_4096 location {loc}, expected {line}:{col}")
if loc["end_column"] != col + len("matmul(x, w)"):
    bad.append(f"matmul_4096 end_column {loc['end_column']}")
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# R-OUT-004: the documented fields, in every example, as numbers.
for f in examples/*.roof examples/*/*.roof; do
  [ -f "$f" ] || continue
  "$ROOFLINT" --format json "$f" > "$T/one.json" 2> /dev/null
  st=$?
  [ $st -le 1 ] || fail "$f: exit $st"
  /usr/bin/python3 - "$T/one.json" "$f" <<'PY' || fail "$f: fields (above)"
import json, math, sys
doc = json.load(open(sys.argv[1]))
name = sys.argv[2]
def num(where, v):
    assert isinstance(v, (int, float)) and not isinstance(v, bool), f"{where}: {v!r} is not a number"
    assert math.isfinite(v), f"{where}: {v!r}"
for key in ("tool", "target", "targets", "models", "diagnostics", "counts"):
    assert key in doc, f"no {key}"
if doc["target"] is None:  # nothing was analysed (an error): no target either
    assert doc["models"] == [] and doc["counts"]["errors"] > 0, "target null"
else:
    for key in ("name", "display", "memory_bw", "memory", "sms", "peaks", "ridge"):
        assert key in doc["target"], f"target has no {key}"
for m in doc["models"]:
    assert m["file"] == name, m["file"]
    for key in ("name", "file", "target", "nodes", "kernels", "summary", "collectives", "transfers"):
        assert key in m, f"model has no {key}"
    for n in m["nodes"]:
        for key in ("flops", "bytes", "intensity", "ridge", "peak", "attainable", "time_s",
                    "blocks", "waves", "utilisation", "count"):
            num(f"{n['name']}.{key}", n[key])
        for key in ("name", "op", "dtype", "precision", "bound", "location"):
            assert key in n, f"{n['name']} has no {key}"
        assert n["bound"] in ("none", "memory", "compute", "pcie", "network"), n["bound"]
        assert set(n["location"]) >= {"file", "line", "column"}, n["location"]
    s = m["summary"]
    for key in ("flops", "bytes", "time_s", "memory_bound_time_share", "footprint_bytes", "params"):
        num(f"summary.{key}", s[key])
    assert 0 <= s["memory_bound_time_share"] <= 1
    assert set(s["footprint"]) >= {"weights", "gradients", "optimizer", "activations"}
for d in doc["diagnostics"]:
    assert d["severity"] in ("error", "warning", "remark", "note"), d["severity"]
    for key in ("check", "message", "location", "notes", "fixits", "figures"):
        assert key in d, f"diagnostic has no {key}"
    for k, v in d["figures"].items():
        num(f"figure {k}", v)
PY
done

# R-OUT-001: several files, one document on stdout; a broken file is
# reported in it, and as text on stderr.
printf 'model broken {\n  input x : [4]\n  y = relu(nope)\n}\n' > "$T/broken.roof"
"$ROOFLINT" --format json examples/seed/precisions.roof "$T/broken.roof" > "$T/two.json" 2> "$T/two.err"
st=$?
[ $st -eq 1 ] || fail "good + broken: exit $st, expected 1"
/usr/bin/python3 - "$T/two.json" "$T/broken.roof" <<'PY' || fail "good + broken (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
files = {m["file"] for m in doc["models"]}
assert files == {"examples/seed/precisions.roof"}, files
errs = [d for d in doc["diagnostics"] if d["severity"] == "error"]
assert len(errs) == 1 and errs[0]["check"] is None, errs
assert errs[0]["location"]["file"] == sys.argv[2] and errs[0]["location"]["line"] == 3, errs[0]
assert "nope" in errs[0]["message"], errs[0]["message"]
assert doc["counts"]["errors"] == 1, doc["counts"]
PY
# the text diagnostics still go to stderr
grep -q "broken.roof:3:[0-9]*: error" "$T/two.err" || fail "no text diagnostic on stderr"

# R-OUT-003: several targets, one model entry per (model, target).
"$ROOFLINT" --format json -t h100_sxm -t a100_sxm examples/seed/precisions.roof > "$T/tt.json" 2> /dev/null
/usr/bin/python3 - "$T/tt.json" <<'PY' || fail "two targets (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert [t["name"] for t in doc["targets"]] == ["h100_sxm", "a100_sxm"], doc["targets"]
assert doc["target"]["name"] == "h100_sxm"
pairs = [(m["name"], m["target"]) for m in doc["models"]]
# model-major: each model on the first target, then on the second
assert [t for _, t in pairs] == ["h100_sxm", "a100_sxm"] * (len(pairs) // 2), pairs
assert all(pairs[i][0] == pairs[i + 1][0] for i in range(0, len(pairs), 2)), pairs
h, a = doc["models"][0], doc["models"][1]
assert h["summary"]["flops"] == a["summary"]["flops"], "FLOPs depend on the target"
assert h["summary"]["time_s"] < a["summary"]["time_s"], "the H100 is not faster"
PY
# R-OUT-012: whole-run formats do not mix with per-run modes
"$ROOFLINT" --format json --verify examples/seed/precisions.roof > /dev/null 2> "$T/mix.err"
st=$?
[ $st -eq 2 ] || fail "--format json --verify: exit $st, expected 2"
grep -q "cannot be combined" "$T/mix.err" || fail "--format json --verify: $(cat "$T/mix.err")"
echo "output_json: ok"
