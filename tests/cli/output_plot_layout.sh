#!/bin/sh
# output_plot_layout.sh: what the chart says and where (issue 16 item 26;
# R-OUT-008, R-OUT-009, R-OUT-016).  On a target of round figures
# (1 TB/s, 2 TB/s PCIe, bf16 tensor 100 TFLOP/s, fp32 10 TFLOP/s and no
# bf16 vector figure) the model below takes, by hand:
#   a = relu(x)      1e6 FLOP, 2e6 + 2e6 B: 4e6 / 1e12     =  4 us (memory)
#   y = matmul(a, w) 2e9 FLOP, 6e6 B:       2e9 / 1e14     = 20 us (compute)
#   c = cast(y,fp32) 0 FLOP, 2e6 + 4e6 B:   6e6 / 1e12     =  6 us
#   d = copy(c)      0 FLOP, 4e6 + 4e6 B:   8e6 / 1e12     =  8 us
#   h = to_host(d)   4e6 B over PCIe:       4e6 / 2e12     =  2 us
# a step of 40 us: y 50.0%, a 10.0% on the roofline, labelled slowest
# first (y before a, though a comes first in the file); d 20.0%, c 15.0%
# and h 5.0% in the strip under the x-axis, whose heading says 40.0%, so
# the shares add up to 100%.  relu in bf16 runs at the fp32 rate: its roof
# is "fp32 vector (used for bf16)", and no "bf16 vector" roof is made up.
# With several targets each has its own stroke colour and marker, in the
# legend too; the title fits the canvas; and no two words of a panel
# overlap (boxes from the same 0.6 em glyph advance the chart uses, 0.66
# em bold), also with two targets of identical roofs, whose ridge labels
# would land on the same spot, and with four real ones.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-plotl.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL output_plot_layout: $*"; exit 1; }

for n in 1 2; do
  cat > "$T/t$n.roof" <<R
target t$n {
  display = "Round $n"
  sms = 100
  memory = 80 GiB
  memory_bw = 1 TB/s
  pcie_bw = 2 TB/s
  bf16_tc = 100 TFLOP/s
  fp32 = 10 TFLOP/s
  launch_overhead = 1 ns
}
R
done
cat > "$T/m.roof" <<'R'
model m {
  dtype bf16
  input x : [1000, 1000]
  weight w : [1000, 1000]
  a = relu(x)
  y = matmul(a, w)
  c = cast(y, fp32)
  d = copy(c)
  h = to_host(d)
}
R
cat > "$T/check.py" <<'PY'
import sys, xml.dom.minidom
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
path, case = sys.argv[1], sys.argv[2]
xml.dom.minidom.parse(path)  # well-formed
root = ET.parse(path).getroot()
panels = root.findall(f"{NS}g[@class='panel']")
assert panels or case == "example", "no panel"

def texts(panel, cls):
    return ["".join(t.itertext()) for t in panel.iter(NS + "text") if t.get("class") == cls]

def group_texts(panel, cls):
    return ["".join(t.itertext()) for g in panel.iter(NS + "g") if g.get("class") == cls
            for t in g.iter(NS + "text")]

def boxes(panel):
    out = []
    def walk(e, size, bold):
        size = float(e.get("font-size", size))
        bold = bold or e.get("font-weight") == "bold"
        if e.tag == NS + "text" and not e.get("transform"):  # rotated: tested by the chart itself
            s = "".join(e.itertext())
            x, y = float(e.get("x")), float(e.get("y"))
            w = len(s) * (0.66 if bold else 0.60) * size
            a = e.get("text-anchor", "start")
            x0 = x - w if a == "end" else x - w / 2 if a == "middle" else x
            out.append((x0, y - 0.8 * size, x0 + w, y + 0.2 * size, s))
        for c in e:
            walk(c, size, bold)
    walk(panel, 16, False)
    return out

for panel in panels:
    b = boxes(panel)
    for i, u in enumerate(b):
        assert u[0] >= 0 and u[2] <= 980, ("off the canvas", u)
        for v in b[:i]:
            assert not (u[0] < v[2] and v[0] < u[2] and u[1] < v[3] and v[1] < u[3]), ("overlap", u, v)

if case == "example":  # a target file alone has no panel
    print("ok")
    sys.exit(0)
p = panels[0]
roof_labels = texts(p, "roof-label")
if case == "one":
    assert group_texts(p, "kernel-labels") == ["y 50.0%", "a 10.0%"], group_texts(p, "kernel-labels")
    assert texts(p, "off-roof-heading") == [
        "not on the roofline (no FLOPs, transfers, collectives): 40.0% of the step"], texts(p, "off-roof-heading")
    assert texts(p, "off-roof-entry") == ["d 20.0%", "c 15.0%", "h 5.0%"], texts(p, "off-roof-entry")
    rects = [r for r in p.iter(NS + "rect") if r.get("class") == "off-roof-kernel"]
    assert [r.find(NS + "title").text for r in rects] == [
        "d: 8.00 us per step (20.0%)", "c: 6.00 us per step (15.0%)", "h: 2.00 us per step (5.0%)"]
    # the bar: 590 units for the step, so 118, 88.5 and 29.5 end to end
    assert [(r.get("x"), r.get("width")) for r in rects] == [
        ("112.0", "118.0"), ("230.0", "88.5"), ("318.5", "29.5")], [r.attrib for r in rects]
    shares = [float(c.find(NS + "title").text.rsplit("(", 1)[1].rstrip("%)"))
              for c in p.iter(NS + "circle") if c.get("class") in ("memory-bound", "compute-bound")]
    assert sorted(shares) == [10.0, 50.0], shares
    assert abs(sum(shares) + 20.0 + 15.0 + 5.0 - 100.0) < 1e-9
    assert sorted(roof_labels) == ["bf16 tensor: 100.0 TFLOP/s",
                                   "fp32 vector (used for bf16): 10.0 TFLOP/s"], roof_labels
    assert not any("bf16 vector" in t for t in p.itertext()), "an invented bf16 vector roof"
    assert texts(p, "ridge-label") == ["ridge 10.0 FLOP/B", "ridge 100.0 FLOP/B"], texts(p, "ridge-label")
    # a short title keeps the full 19 units
    assert [t.get("font-size") for t in p.iter(NS + "text") if t.get("class") == "title"] == ["19"]
elif case == "two":
    mem = [l.get("stroke") for l in p.iter(NS + "line") if l.get("class") == "memory-roof"]
    assert mem == ["#222222", "#8e44ad"], mem
    kernels = [e for g in p.iter(NS + "g") if g.get("class") == "kernels" for e in g]
    by = {}
    for e in kernels:
        by.setdefault((e.tag, e.get("stroke")), 0)
        by[(e.tag, e.get("stroke"))] += 1
    assert by == {(NS + "circle", "#222222"): 2, (NS + "path", "#8e44ad"): 2}, by
    legend = [e for g in p.iter(NS + "g") if g.get("class") == "legend" for e in g.iter()
              if e.get("class") == "target-marker"]
    assert [(e.tag, e.get("stroke")) for e in legend] == [(NS + "circle", "#222222"), (NS + "path", "#8e44ad")], legend
    assert len(texts(p, "ridge-label")) == 4, texts(p, "ridge-label")
    assert len(roof_labels) == 4, roof_labels
    assert texts(p, "off-roof-heading") == [
        "not on the roofline (no FLOPs, transfers, collectives): 40.0% of the step on Round 1"]
else:
    title = texts(p, "title")[0]
    assert title == "Roofline: llama2_7b_decode on NVIDIA H100 SXM, NVIDIA H200 SXM, AMD Instinct MI300X and NVIDIA B200", title
    # 99 characters in 980 - 112 - 12 = 856 units at 0.66 em: 13 units
    # (849.4) fits, 14 (914.8) does not
    assert [t.get("font-size") for t in p.iter(NS + "text") if t.get("class") == "title"] == ["13"]
    strokes = {e.get("stroke") for g in p.iter(NS + "g") if g.get("class") == "kernels" for e in g}
    assert strokes == {"#222222", "#8e44ad", "#138d75", "#b9770e"}, strokes
print("ok")
PY

"$ROOFLINT" -w -t "$T/t1.roof" --plot "$T/one.svg" "$T/m.roof" > /dev/null 2>&1 || fail "one target: exit $?"
xmllint --noout "$T/one.svg" || fail "one target: not well-formed"
/usr/bin/python3 "$T/check.py" "$T/one.svg" one > "$T/out" 2>&1 || fail "one target: $(cat "$T/out")"

"$ROOFLINT" -w -t "$T/t1.roof" -t "$T/t2.roof" --plot "$T/two.svg" "$T/m.roof" > /dev/null 2>&1 ||
  fail "two targets: exit $?"
/usr/bin/python3 "$T/check.py" "$T/two.svg" two > "$T/out" 2>&1 || fail "two targets: $(cat "$T/out")"

"$ROOFLINT" -w -t h100_sxm,h200_sxm,mi300x,b200 --plot "$T/four.svg" examples/llama2_7b_decode.roof \
  > /dev/null 2>&1 || fail "four targets: exit $?"
/usr/bin/python3 "$T/check.py" "$T/four.svg" four > "$T/out" 2>&1 || fail "four targets: $(cat "$T/out")"

# every example's chart: well-formed, no two words overlapping
for f in examples/*.roof examples/*/*.roof; do
  "$ROOFLINT" -w --plot "$T/e.svg" "$f" > /dev/null 2>&1
  [ $? -le 1 ] || fail "$f: exit"
  /usr/bin/python3 "$T/check.py" "$T/e.svg" example > "$T/out" 2>&1 || fail "$f: $(cat "$T/out")"
done
echo "output_plot_layout: ok"
