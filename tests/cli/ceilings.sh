#!/bin/sh
# ceilings.sh: --ceilings peak|achieved (specs/ceilings.md, R-CEIL-003 and
# R-CEIL-004) on a small card and a 4096 x 4096 bf16 matmul with a relu.
#
# By hand: the matmul is 2 x 4096^3 = 137,438,953,472 FLOP over
# 3 x 4096^2 x 2 = 100,663,296 bytes (1365.3 FLOP/B: compute-bound on both
# ceilings); the relu moves 2 x 4096^2 x 2 = 67,108,864 bytes.
#   peak:     137.44 G / 990 T = 138.83 us, 67.11 M / 3.35 TB/s = 20.03 us:
#             158.86 us, "step >= 159 us", 20.03 / 158.86 = 13% memory-bound
#   achieved: 137.44 G / 660 T = 208.24 us, 67.11 M / 2.68 TB/s = 25.04 us:
#             233.28 us, "step ~ 233 us", 25.04 / 233.28 = 11%
# The card states fp32 and pcie_bw with no measurement: they fall back.
. tests/cli/driver_lib.inc
PY=/usr/bin/python3
F=$T/m.roof
cat >"$F" <<'ROOF'
target mine {
  display = "Mine"; sms = 132; memory = 80 GB; memory_bw = 3.35 TB/s
  fp32 = 67 TFLOP/s; pcie_bw = 64 GB/s; bf16_tc = 990 TFLOP/s
  source = "a card for the test"
  achieved_bf16_tc = 660 TFLOP/s
  achieved_memory_bw = 2.68 TB/s
}
let N = 4096
model m {
  dtype bf16
  input x : [N, N]
  weight w : [N, N]
  y = matmul(x, w)
  z = relu(y)
  output z
}
ROOF
SUM='m: 2 ops, 16.8 M parameters, 137.5 GFLOP, 167.8 MB, 819 FLOP/B'

# R-CEIL-003: peak is the default, and --ceilings peak changes nothing.
run -t mine "$F"
expect_status 0
expect_out "$SUM, step >= 159 us on Mine (13% of it memory-bound)"
cp "$T/out" "$T/default"
for fmt in text json sarif; do
  "$ROOFLINT" -t mine --format $fmt "$F" >"$T/a" 2>/dev/null
  "$ROOFLINT" -t mine --format $fmt --ceilings peak "$F" >"$T/b" 2>/dev/null
  what="--ceilings peak --format $fmt"
  if cmp -s "$T/a" "$T/b"; then ok; else bad "output differs from the default"; fi
done
"$ROOFLINT" -t mine --report "$F" >"$T/a" 2>/dev/null
"$ROOFLINT" -t mine --report --ceilings peak "$F" >"$T/b" 2>/dev/null
what="--ceilings peak --report"
if cmp -s "$T/a" "$T/b"; then ok; else bad "report differs from the default"; fi

# R-CEIL-004: achieved figures in the peaks' places; the line says so.
run -t mine --ceilings achieved "$F"
expect_status 0
expect_out "$SUM, step ~ 233 us on Mine (11% of it memory-bound), achieved ceilings (the peak for fp32, pcie_bw)"
run -t mine --ceilings achieved --report "$F"
expect_grep "$T/out" "  ceiling   660.0 TFLOP/s bf16 tensor core (dense)"
expect_grep "$T/out" "  bandwidth 2.68 TB/s"
expect_grep "$T/out" "  against   achieved ceilings (the peak for fp32, pcie_bw)"
expect_grep "$T/out" "208 us"
# Two targets side by side: each says which ceilings it used.
run -t mine -t h100_sxm --ceilings achieved --report "$F"
expect_grep "$T/out" "  [1] Mine: 660.0 TFLOP/s, 2.68 TB/s, ridge 246.3 FLOP/B, achieved ceilings (the peak for fp32, pcie_bw)"

# JSON: the target's peaks are the achieved figures, `ceilings` and the
# keys that fell back beside them, valid against the schema.
run -t mine --ceilings achieved --format json "$F"
expect_status 0
got=$($PY -c '
import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.validate(d, json.load(open("tests/schema/rooflint-json.schema.json")))
t = d["target"]
print(t["ceilings"], ",".join(t["ceilings_fell_back"]), t["peaks"]["bf16_tc"], t["memory_bw"],
      round(d["models"][0]["summary"]["time_s"] * 1e6, 2))' "$T/out")
what="json ceilings"
[ "$got" = "achieved fp32,pcie_bw 660000000000000 2680000000000 233.28" ] && ok || bad "got $got"
run -t mine --format json "$F"
got=$($PY -c '
import json, sys
t = json.load(open(sys.argv[1]))["target"]
print("ceilings" in t, "ceilings_fell_back" in t)' "$T/out")
what="json peak"
[ "$got" = "False False" ] && ok || bad "got $got"

# SARIF: the run's properties.
run -t mine --ceilings achieved --format sarif "$F"
got=$($PY -c '
import json, sys
print(json.dumps(json.load(open(sys.argv[1]))["runs"][0]["properties"], sort_keys=True))' "$T/out")
what="sarif properties"
[ "$got" = '{"ceilings": "achieved", "ceilingsFellBack": {"mine": ["fp32", "pcie_bw"]}}' ] && ok || bad "got $got"
$PY tools/validate_sarif.py "$T/out" >/dev/null 2>&1 && ok || { what="sarif schema"; bad "invalid"; }
run -t mine --format sarif "$F"
expect_no_grep "$T/out" "ceilings"

# The chart's title names them.
run -t mine --ceilings achieved --plot - "$F"
expect_grep "$T/out" "Roofline: m on Mine, achieved ceilings (the peak for fp32, pcie_bw)"

# R-CEIL-005: the built-in cards' achieved figures (specs/targets/SOURCES.md
# G6-G9), on the card in key order.
run target h100_sxm
expect_grep "$T/out" "achieved (--ceilings achieved): bf16_tc 792.1 TFLOP/s, nvlink_bw 370 GB/s, ib_bw 46 GB/s"
run target a100_sxm
expect_grep "$T/out" "achieved (--ceilings achieved): bf16_tc 267.9 TFLOP/s, nvlink_bw 230 GB/s"
run target a100_pcie
expect_grep "$T/out" "achieved (--ceilings achieved): bf16_tc 256.4 TFLOP/s"
run target mi300x
expect_grep "$T/out" "achieved (--ceilings achieved): bf16_tc 781.9 TFLOP/s"
for t in b200 h100_pcie h200_sxm l4 l40s rtx4090 v100_sxm2; do
  run target $t
  expect_grep "$T/out" "achieved ceilings: no published measurement for this part is cited here"
  expect_no_grep "$T/out" "achieved (--ceilings achieved)"
done
# The matmul on H100 SXM: 137.44 G / 792.1 T = 173.51 us; the relu's bytes
# stay at the 3.35 TB/s peak (no memory measurement): 20.03 us; 193.54 us.
run --ceilings achieved -t h100_sxm -D N=4096 "$F"
expect_grep "$T/out" "step ~ 194 us on NVIDIA H100 SXM (10% of it memory-bound), achieved ceilings (the peak for fp64, fp32, fp16, bf16, fp64_tc, tf32_tc, fp16_tc, fp8_tc, int8_tc, memory_bw, pcie_bw)"

# A value that is neither: exit 2.
run -t mine --ceilings measured "$F"
expect_status 2
expect_err "rooflint: error: invalid value 'measured' for --ceilings: expected peak or achieved"
finish
