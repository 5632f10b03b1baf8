#!/bin/sh
# output_plot.sh: `--plot FILE.svg` (R-OUT-008..010).  For every example the
# chart is well-formed XML (xmllint, from libxml2-utils) and an SVG
# document; it has one circle per kernel that lies on the HBM roofline
# (counted from the JSON of the same run), coloured by its bound, one
# memory roof per target and one flat roof per peak in use, each with its
# ridge point; the title names the model and target.  A chart that cannot
# be written is a command-line failure (exit 2).
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-plot.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL output_plot: $*"; exit 1; }
command -v xmllint >/dev/null 2>&1 || fail "xmllint missing: make deps (libxml2-utils)"

# R-OUT-008: well-formed, one circle per kernel on the roofline.
n=0
for f in examples/*.roof examples/*/*.roof; do
  [ -f "$f" ] || continue
  "$ROOFLINT" --plot "$T/c.svg" --format json "$f" > "$T/c.json" 2> /dev/null
  st=$?
  [ $st -le 1 ] || fail "$f: exit $st"
  [ -s "$T/c.svg" ] || fail "$f: no chart"
  xmllint --noout "$T/c.svg" || fail "$f: not well-formed XML"
  /usr/bin/python3 - "$T/c.svg" "$T/c.json" <<'PY' || fail "$f: chart contents (above)"
import json, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == NS + "svg", root.tag
doc = json.load(open(sys.argv[2]))
panels = root.findall(f"{NS}g[@class='panel']")
# one panel per model; several targets would share it
models = []
for m in doc["models"]:
    if (m["file"], m["name"]) not in models:
        models.append((m["file"], m["name"]))
assert len(panels) == len(models), (len(panels), len(models))
for panel, m in zip(panels, [m for m in doc["models"]]):
    kernels = [k for k in m["kernels"]
               if k["bound"] in ("memory", "compute") and k["flops"] > 0 and k["bytes"] > 0]
    circles = panel.findall(f".//{NS}g[@class='kernels']/{NS}circle")
    assert len(circles) == len(kernels), (m["name"], len(circles), len(kernels))
    for bound in ("memory", "compute"):
        want = sum(k["bound"] == bound for k in kernels)
        got = sum(c.get("class") == bound + "-bound" for c in circles)
        assert got == want, (m["name"], bound, got, want)
    lines = panel.findall(f".//{NS}line")
    assert sum(l.get("class") == "memory-roof" for l in lines) == 1, m["name"]
    roofs = sum(l.get("class") == "compute-roof" for l in lines)
    ridges = sum(c.get("class") == "ridge" for c in panel.iter(NS + "circle"))
    assert roofs >= 1 and ridges == roofs, (m["name"], roofs, ridges)
    title = "".join(panel.find(f"{NS}text").itertext())
    assert title == f"Roofline: {m['name']} on {doc['target']['display']}", title
PY
  n=$((n + 1))
done
[ $n -gt 0 ] || fail "no examples"

# R-OUT-009: several targets: one roof set each, one legend line each.
"$ROOFLINT" --plot "$T/t2.svg" -t h100_sxm -t v100_sxm2 examples/seed/precisions.roof > /dev/null 2>&1 ||
  fail "two targets: exit $?"
xmllint --noout "$T/t2.svg" || fail "two targets: not well-formed"
/usr/bin/python3 - "$T/t2.svg" <<'PY' || fail "two targets (above)"
import sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
panel = ET.parse(sys.argv[1]).getroot().find(f"{NS}g[@class='panel']")
mem = [l for l in panel.iter(NS + "line") if l.get("class") == "memory-roof"]
assert len(mem) == 2 and mem[0].get("stroke") != mem[1].get("stroke"), [l.attrib for l in mem]
title = "".join(panel.find(f"{NS}text").itertext())
assert title.endswith("on NVIDIA H100 SXM and NVIDIA V100 SXM2"), title
PY

# A collective no kernel runs is named by what it moves: an expert-parallel
# MoE layer's dispatch and combine (two all-to-alls, R-MOE-006), a
# training step's gradient all-reduce.
"$ROOFLINT" --plot - tests/hf/deepseek_v3-decode-ep8.roof > "$T/moe.svg" 2> /dev/null
[ "$(grep -c '<title>expert all-to-all: ' "$T/moe.svg")" -eq 2 ] ||
  fail "deepseek_v3-decode-ep8: not two expert all-to-alls off the roofline"
grep -q '<title>gradient allreduce' "$T/moe.svg" && fail "deepseek_v3-decode-ep8: a gradient allreduce in decode"
"$ROOFLINT" --plot - examples/llama3_8b_train.roof > "$T/train.svg" 2> /dev/null
grep -q '<title>gradient allreduce: ' "$T/train.svg" || fail "llama3_8b_train: no gradient allreduce"
grep -q 'all-to-all' "$T/train.svg" && fail "llama3_8b_train: an all-to-all in a dense model"

# R-OUT-010: an unwritable chart is exit 2 with a message, after the lint.
"$ROOFLINT" --plot "$T/no/such/dir/c.svg" examples/seed/precisions.roof > /dev/null 2> "$T/err"
st=$?
[ $st -eq 2 ] || fail "unwritable: exit $st, expected 2"
grep -q "cannot write '$T/no/such/dir/c.svg': No such file or directory" "$T/err" ||
  fail "unwritable: $(cat "$T/err")"
echo "output_plot: ok ($n examples)"
