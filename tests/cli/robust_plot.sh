#!/bin/sh
# robust_plot.sh: the chart of extreme figures is bounded (issue 17 item 2;
# R-OUT-008, R-TGT-006).  `memory_bw = 1e308 TB/s` once made draw_axes loop
# over 2^31 decades and write gigabytes of `x1="-nan"`; such a figure is
# now refused where it is written, and the axes of the widest figures the
# language accepts (a ridge of 1e24 / 1e-12 = 1e36 FLOP/B, and counts of
# 1e54) span at most 40 decades: a small, well-formed SVG, quickly, with
# no inf or nan in it.  (The old chart of these figures was already
# bounded; what reached the unbounded loop is refused by R-LEX-006 and
# R-TGT-006, tests/bad/parse/rob_number_range and tests/bad/target/rob_target_range.)
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-rplot.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL robust_plot: $*"; exit 1; }

cat > "$T/t.roof" <<'R'
target wide {
  display = "wide"
  sms = 1
  memory = 1e12 TB
  memory_bw = 1e-12 B/s
  pcie_bw = 1e24 B/s
  bf16_tc = 1e24 FLOP/s
  bf16 = 1e-12 FLOP/s
  launch_overhead = 0.001 ns
}
R
cat > "$T/m.roof" <<'R'
model m {
  input x : [4096, 4096]
  weight w : [4096, 4096]
  repeat 1000000000000000000 {
    repeat 1000000000000000000 {
      repeat 1000000000000000000 {
        x = matmul(x, w)
        x = relu(x)
      }
    }
  }
}
R
timeout 10 "$ROOFLINT" -w -t "$T/t.roof" --plot "$T/c.svg" "$T/m.roof" > /dev/null 2> "$T/err"
st=$?
[ $st -eq 0 ] || fail "exit $st: $(head -3 "$T/err")"
size=$(wc -c < "$T/c.svg")
[ "$size" -lt 200000 ] || fail "chart of $size bytes"
if grep -qiE '(^|[^a-z])(inf|nan)([^a-z]|$)' "$T/c.svg"; then fail "inf or nan in the chart"; fi
if command -v xmllint > /dev/null 2>&1; then
  xmllint --noout "$T/c.svg" || fail "not well-formed XML"
fi
grep -q '<circle' "$T/c.svg" || fail "no kernel drawn"

# R-OUT-017: 1,001 one-op models draw 1,000 panels; the 1,001st (m1000) is
# left out, and a line under the panels and a note on stderr say so.
/usr/bin/python3 -c '
import sys
sys.stdout.write("".join("model m%d {\n input x:[1,8]\n y=relu(x)\n}\n" % i for i in range(1001)))
' > "$T/many.roof"
"$ROOFLINT" -w --plot "$T/many.svg" "$T/many.roof" > /dev/null 2> "$T/many.err"
[ $? -eq 0 ] || fail "1001 models: exit status"
[ "$(grep -c 'class="panel"' "$T/many.svg")" = 1000 ] || fail "1001 models: not 1000 panels"
grep -q '>m999<\|model m999\|m999' "$T/many.svg" || fail "1001 models: m999 not drawn"
grep -q 'm1000' "$T/many.svg" && fail "1001 models: m1000 drawn"
grep -q '>1 more model is not drawn: the chart has at most 1000 panels</text>' "$T/many.svg" ||
  fail "1001 models: no left-out line in the SVG"
[ "$(cat "$T/many.err")" = "note: --plot draws the first 1000 models; 1 more is left out of the chart" ] ||
  fail "1001 models: stderr: $(cat "$T/many.err")"
# 1000 panels of 680 units and the 40-unit line: height 680040
grep -q 'height="680040"' "$T/many.svg" || fail "1001 models: height"
exit 0
