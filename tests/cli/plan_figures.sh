#!/bin/sh
# plan_figures.sh: the figures of --plan, --dtype and `rooflint diff`,
# computed here from the shapes and the H100 SXM's published figures
# (990e12 bf16 tensor, 1979e12 fp8 tensor, 67e12 fp32 vector FLOP/s,
# 3.35e12 B/s), never read back from rooflint:
#   1. a stray fp32 matmul (R-DIFF-001, R-DIFF-002, R-DIFF-003, R-DIFF-004, R-DIFF-006): its FLOPs, bytes, ceiling and
#      time before and after, the totals and their change, the new
#      stray-fp32 diagnostic, and --fail-on-regression on either side of
#      the growth;
#   2. fusing an element-wise chain (R-DIFF-002): the chain's bytes and
#      time unfused and fused, and the unfused-elementwise finding gone;
#   3. `-` reads one side from standard input (R-DIFF-005);
#   4. the what-if of a bf16 decode against fp8 (R-PLAN-004): the decode
#      matmuls stay memory-bound and take half the time;
#   5. --plan's rows per precision and unit and per storage dtype
#      (R-PLAN-001..003);
#   7. the storage-dtype rows add up to the footprint: a per-copy input
#      of a repeat, a fused region in train mode, tensor and expert
#      parallelism (R-PLAN-002).
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-plan.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
I=tests/golden/diff/inputs
npass=0
nfail=0
fail() { nfail=$((nfail + 1)); echo "FAIL plan_figures: $*"; }
pass() { npass=$((npass + 1)); }

# JSON -> "path value" lines (python only parses; the figures are awk's).
flat() {
  /usr/bin/python3 -c '
import json, sys
def walk(p, v):
    if isinstance(v, dict):
        for k, x in v.items(): walk(p + "." + k if p else k, x)
    elif isinstance(v, list) and v:
        for i, x in enumerate(v): walk("%s[%d]" % (p, i), x)
    else:
        print(p + "\t" + json.dumps(v))
walk("", json.load(open(sys.argv[1])))' "$1"
}

# want FILE PATH EXPECTED: the JSON number at PATH equals EXPECTED to 1e-9.
want() {
  got=$(awk -F '\t' -v p="$2" '$1 == p { print $2 }' "$1")
  if [ -z "$got" ]; then fail "$2: missing"; return; fi
  if awk -v g="$got" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; s = w < 0 ? -w : w; exit !(d <= 1e-9 * s + 1e-300) }'; then
    pass
  else
    fail "$2 = $got, expected $3"
  fi
}
want_str() {
  got=$(awk -F '\t' -v p="$2" '$1 == p { print $2 }' "$1")
  if [ "$got" = "$3" ]; then pass; else fail "$2 = $got, expected $3"; fi
}

# ------------------------------------------------- 1. a stray fp32 matmul
# stray_old/new.roof: x [B*S, D] through three D x D matmuls, B=8 S=512
# D=4096; NEW declares w3 fp32, so y = matmul(h, w3) is fp32.
eval "$(awk 'BEGIN {
  M = 8 * 512; D = 4096; bw = 3.35e12
  fl = 2 * M * D * D
  b_old = (M * D + D * D + M * D) * 2
  b_new = M * D * 2 + D * D * 4 + M * D * 4
  t_old = fl / 990e12; if (b_old / bw > t_old) t_old = b_old / bw
  t_new = fl / 67e12;  if (b_new / bw > t_new) t_new = b_new / bw
  tot_old = 3 * t_old; tot_new = 2 * t_old + t_new
  fp_old = 3 * D * D * 2 + 2 * M * D * 2
  fp_new = 2 * D * D * 2 + D * D * 4 + M * D * 2 + M * D * 4
  printf "FL=%.17g B_OLD=%.17g B_NEW=%.17g T_OLD=%.17g T_NEW=%.17g\n", fl, b_old, b_new, t_old, t_new
  printf "TOT_OLD=%.17g TOT_NEW=%.17g GROWTH=%.17g\n", tot_old, tot_new, (tot_new - tot_old) / tot_old * 100
  printf "BYTES_OLD=%.17g BYTES_NEW=%.17g FP_OLD=%.17g FP_NEW=%.17g\n", 3 * b_old, 2 * b_old + b_new, fp_old, fp_new
  printf "G_LO=%d G_HI=%d\n", int((tot_new - tot_old) / tot_old * 100), int((tot_new - tot_old) / tot_old * 100) + 1
}')"
# R-OUT-015: a diff entry's figures are the step's: step_flops, step_bytes, step_time_s.
"$ROOFLINT" diff --format json "$I/stray_old.roof" "$I/stray_new.roof" >"$T/s.json" 2>"$T/s.err"
st=$?
[ "$st" -eq 0 ] || fail "stray json: exit $st"
flat "$T/s.json" >"$T/s.flat"
N=models[0].nodes[1]
want_str "$T/s.flat" "$N.name" '"y"'
want_str "$T/s.flat" "$N.old.precision" '"bf16"'
want_str "$T/s.flat" "$N.new.precision" '"fp32"'
want "$T/s.flat" "$N.old.step_flops" "$FL"
want "$T/s.flat" "$N.new.step_flops" "$FL"
want "$T/s.flat" "$N.old.step_bytes" "$B_OLD"
want "$T/s.flat" "$N.new.step_bytes" "$B_NEW"
want "$T/s.flat" "$N.old.peak" 990e12
want "$T/s.flat" "$N.new.peak" 67e12
want "$T/s.flat" "$N.old.step_time_s" "$T_OLD"
want "$T/s.flat" "$N.new.step_time_s" "$T_NEW"
want_str "$T/s.flat" "$N.new.bound" '"compute"'
want "$T/s.flat" models[0].totals.old.time_s "$TOT_OLD"
want "$T/s.flat" models[0].totals.new.time_s "$TOT_NEW"
want "$T/s.flat" models[0].totals.old.bytes "$BYTES_OLD"
want "$T/s.flat" models[0].totals.new.bytes "$BYTES_NEW"
want "$T/s.flat" models[0].totals.old.footprint_bytes "$FP_OLD"
want "$T/s.flat" models[0].totals.new.footprint_bytes "$FP_NEW"
want "$T/s.flat" models[0].totals.relative_change.time_s "$(awk -v g="$GROWTH" 'BEGIN { printf "%.17g", g / 100 }')"
want_str "$T/s.flat" 'diagnostics.appeared[0].check' '"stray-fp32"'
want_str "$T/s.flat" 'diagnostics.appeared[0].node' '"y"'
want_str "$T/s.flat" 'diagnostics.disappeared' '[]'

# The text: the ceiling drops 990 -> 67 TFLOP/s; the growth with one decimal.
"$ROOFLINT" diff "$I/stray_old.roof" "$I/stray_new.roof" >"$T/s.txt" 2>"$T/s.err"
grep -q "990.0 TFLOP/s -> 67.0 TFLOP/s" "$T/s.txt" && pass || fail "no 990.0 -> 67.0 TFLOP/s in the diff"
pct=$(awk -v g="$GROWTH" 'BEGIN { printf "+%.1f%%", g }')
grep -q "step time .* $pct\$" "$T/s.txt" && pass || fail "no step time change $pct"
grep -q "^  + $I/stray_new.roof:15:7: warning: matmul 'y' computes in fp32 inside a bf16 plan: ceiling 990.0 -> 67.0 TFLOP/s (14.8x)" "$T/s.txt" &&
  pass || fail "no stray-fp32 line appearing"

# --fail-on-regression: 1 above the growth's floor, 0 at its ceiling.
for p in 1 "$G_LO"; do
  "$ROOFLINT" diff "$I/stray_old.roof" "$I/stray_new.roof" --fail-on-regression "$p" >/dev/null 2>"$T/e"
  st=$?
  [ "$st" -eq 1 ] && pass || fail "--fail-on-regression $p: exit $st, expected 1"
done
"$ROOFLINT" diff "$I/stray_old.roof" "$I/stray_new.roof" --fail-on-regression "$G_HI" >/dev/null 2>"$T/e"
st=$?
[ "$st" -eq 0 ] && pass || fail "--fail-on-regression $G_HI: exit $st, expected 0"
# The reverse change is faster: never a regression.
"$ROOFLINT" diff "$I/stray_new.roof" "$I/stray_old.roof" --fail-on-regression 0 >/dev/null 2>"$T/e"
st=$?
[ "$st" -eq 0 ] && pass || fail "reverse diff: exit $st, expected 0"

# ------------------------------------------- 2. fusing an element-wise chain
# g = silu(g) reads and writes [M, D] bf16; h = mul(g, u) reads two, writes
# one.  Fused: reads g and u, writes h.  Both memory-bound.
eval "$(awk 'BEGIN {
  M = 8 * 512; D = 4096; bw = 3.35e12; e = M * D * 2
  mm = 2 * M * D * D / 990e12
  printf "SILU_T=%.17g MUL_T=%.17g FUSED_B=%.17g FUSED_T=%.17g\n", 2 * e / bw, 3 * e / bw, 3 * e, 3 * e / bw
  printf "F_OLD=%.17g F_NEW=%.17g\n", 2 * mm + 5 * e / bw, 2 * mm + 3 * e / bw
}')"
"$ROOFLINT" diff --format json "$I/fuse_old.roof" "$I/fuse_new.roof" >"$T/f.json" 2>"$T/f.err"
flat "$T/f.json" >"$T/f.flat"
want_str "$T/f.flat" models[0].nodes[0].name '"g"'
want "$T/f.flat" models[0].nodes[0].old.step_time_s "$SILU_T"
want_str "$T/f.flat" models[0].nodes[0].new.region '"act"'
want "$T/f.flat" models[0].nodes[1].old.step_time_s "$MUL_T"
want_str "$T/f.flat" models[0].nodes[2].name '"fused act"'
want_str "$T/f.flat" models[0].nodes[2].status '"added"'
want "$T/f.flat" models[0].nodes[2].new.step_bytes "$FUSED_B"
want "$T/f.flat" models[0].nodes[2].new.step_time_s "$FUSED_T"
want "$T/f.flat" models[0].totals.old.time_s "$F_OLD"
want "$T/f.flat" models[0].totals.new.time_s "$F_NEW"
want_str "$T/f.flat" 'diagnostics.disappeared[0].check' '"unfused-elementwise"'
want_str "$T/f.flat" 'diagnostics.appeared' '[]'

# ------------------------------------------------------- 3. one side on stdin
# (as in `git show HEAD~1:model.roof | rooflint diff - model.roof`)
"$ROOFLINT" diff - "$I/stray_new.roof" --fail-on-regression 1 <"$I/stray_old.roof" >"$T/in.txt" 2>"$T/in.err"
st=$?
[ "$st" -eq 1 ] && pass || fail "stdin diff: exit $st, expected 1"
head -n 1 "$T/in.txt" | grep -qF "diff <stdin> -> $I/stray_new.roof" && pass || fail "stdin diff header: $(head -n 1 "$T/in.txt")"
grep -qF "$pct" "$T/in.txt" && pass || fail "stdin diff: no $pct"
"$ROOFLINT" diff "$I/stray_new.roof" - <"$I/stray_new.roof" >"$T/in2.txt" 2>&1
st=$?
[ "$st" -eq 0 ] && pass || fail "same file through stdin: exit $st"
grep -qF "no node changed" "$T/in2.txt" && pass || fail "same file through stdin: changes"

# ------------------------------------------- 4. what-if: bf16 decode vs fp8
# tests/golden/plan/inputs/decode.roof: 32 layers; u = matmul([1,1,D],
# [D,F]) and d = matmul([1,1,F],[F,D]) are matrix-vector products.
"$ROOFLINT" -w --dtype fp8 tests/golden/plan/inputs/decode.roof >"$T/w.txt" 2>"$T/w.err"
st=$?
[ "$st" -eq 0 ] && pass || fail "what-if: exit $st"
# 3 significant digits, as rooflint's times print (862 us, 431 us).
exp=$(awk 'function us(t) { t *= 1e6; return t >= 100 ? sprintf("%.0f us", t) : sprintf("%.1f us", t) }
BEGIN { D = 4096; F = 11008; L = 32; bw = 3.35e12
  b16 = (D + D * F + F) * 2; b8 = (D + D * F + F) * 1
  printf "^  u \\(matmul\\) +%s memory +%s memory$", us(L * b16 / bw), us(L * b8 / bw) }')
grep -qE "$exp" "$T/w.txt" && pass || fail "what-if: no '$exp'"
grep -qF "  speed-up" "$T/w.txt" && pass || fail "what-if: no speed-up row"

# ------------------------------------ 5. --plan of the stray fp32 model
# R-PLAN-001/002: fp32 vector: y alone; bf16 tensor: the two h matmuls;
# shares of the step; footprint per storage dtype (live peak: h and y).
"$ROOFLINT" -w --plan "$I/stray_new.roof" >"$T/p.txt" 2>"$T/p.err"
st=$?
[ "$st" -eq 0 ] && pass || fail "--plan: exit $st"
awk 'function t3(t) { return t >= 1e-3 ? sprintf("%.2f ms", t * 1e3) : sprintf("%.0f us", t * 1e6) }
function mb(b) { return sprintf("%.1f MB", b / 1e6) }
function gf(f) { return sprintf("%.1f GFLOP", f / 1e9) }
BEGIN { M = 8 * 512; D = 4096; bw = 3.35e12; fl = 2 * M * D * D
  t16 = fl / 990e12; t32 = fl / 67e12; tot = 2 * t16 + t32
  b16 = (2 * M * D + D * D) * 2; b32 = M * D * 2 + D * D * 4 + M * D * 4
  printf "^  fp32 +vector +1 +1 +%s +%s +%s +%.1f%%$\n", gf(fl), mb(b32), t3(t32), 100 * t32 / tot
  printf "^  bf16 +tensor +2 +2 +%s +%s +%s +%.1f%%$\n", gf(2 * fl), mb(2 * b16), t3(2 * t16), 100 * 2 * t16 / tot
  printf "^  fp32 +16.8 M +%s +%s +%s$\n", mb(D * D * 4), mb(M * D * 4), mb(D * D * 4 + M * D * 4)
  printf "^  bf16 +33.6 M +%s +%s +%s$\n", mb(2 * D * D * 2), mb(M * D * 2), mb(2 * D * D * 2 + M * D * 2)
  printf "^  y +matmul +fp32 +fp32 +inherited from .w3. +%s:15:7$\n", "'"$I"'/stray_new.roof"
}' >"$T/p.want"
while IFS= read -r re; do
  grep -qE -- "$re" "$T/p.txt" && pass || fail "--plan: no line matching $re"
done <"$T/p.want"

# ------------------------------------ 6. the what-if's slowest kernels
# R-PLAN-004: the five slowest kernels by time per step, ties in source
# order.  A 64x64 relu moves 2 * 64 * 64 * 2 B; a 64x64x64 matmul
# 3 * 64 * 64 * 2 B; both memory-bound, at 3.35e12 B/s (twice the bytes in
# fp32).  Of six equal relus only the first four make the list.
p=y
{ echo 'model m {'; echo '  input x : [64, 64]'; echo '  weight w : [64, 64]'
  echo '  a = relu(x)'; echo '  b = relu(a)'; echo '  y = matmul(b, w)'
  for v in c d e f; do echo "  $v = relu($p)"; p=$v; done
  echo '}'; } > "$T/ties.roof"
"$ROOFLINT" -w --dtype fp32 "$T/ties.roof" >"$T/t.txt" 2>"$T/t.err"
st=$?
[ "$st" -eq 0 ] && pass || fail "what-if ties: exit $st"
awk 'function ns(t) { return t >= 10e-9 ? sprintf("%.1f ns", t * 1e9) : sprintf("%.2f ns", t * 1e9) }
BEGIN { bw = 3.35e12; r = 2 * 64 * 64 * 2; mm = 3 * 64 * 64 * 2
  printf "  y \\(matmul\\) +%s memory +%s memory\n", ns(mm / bw), ns(2 * mm / bw)
  split("a b c d", v, " ")
  for (i = 1; i <= 4; i++) printf "  %s \\(relu\\) +%s memory +%s memory\n", v[i], ns(r / bw), ns(2 * r / bw) }' >"$T/t.want"
sed -n '/^slowest kernels/,$p' "$T/t.txt" | tail -n +3 >"$T/t.got"
if [ "$(wc -l <"$T/t.got")" -eq 5 ] && paste "$T/t.want" "$T/t.got" | awk -F'\t' '$2 !~ "^" $1 "$" { bad = 1 } END { exit bad }'; then pass
else fail "what-if ties: slowest kernels not y, a, b, c, d in that order"; cat "$T/t.got"; fi

# ------------------------ 7. footprint rows add up to the total (R-PLAN-002)
# (a) An input declared in a repeat is resident once per copy
# (R-COST-009): c is fp32 [8, 1024] = 32,768 B, x 4 copies = 131,072 B.
# The live peak is at the add (h bf16 16,384 B, c, the add's fp32 result
# 32,768 B; x's input is freed after the matmul): fp32 163,840 B =
# 163.8 KB, bf16 16,384 B = 16.4 KB, total 180,224 B = 180.2 KB; the
# weights 4 x 1024 x 1024 x 2 = 8,388,608 B, so bf16 8,404,992 = 8.40 MB.
cat >"$T/rep.roof" <<'EOF'
target h100_sxm
model rep {
  dtype bf16
  input x : [8, 1024]
  repeat 4 {
    input c : fp32[8, 1024]
    weight w : [1024, 1024]
    h = matmul(x, w)
    x = cast(add(h, c), bf16)
  }
  output x
}
EOF
# (b) Train mode keeps what backward reads (R-TRAIN-002): the matmul
# saves x, gelu y, mul a and y (a stays in the fused region, which keeps
# its input y in its place), cast nothing: x and y in bf16, 2 x 16,384 =
# 32,768 B = 32.8 KB, nothing in fp32.  bf16 also holds w and its
# gradient, 2 x 2,097,152: 4,227,072 B = 4.23 MB; with Adam's 12.6 MB,
# 16,809,984 B = 16.8 MB in all.
cat >"$T/tr.roof" <<'EOF'
target h100_sxm
model tr {
  dtype bf16
  mode train
  input x : [8, 1024]
  weight w : [1024, 1024]
  y = matmul(x, w)
  fused act {
    a = gelu(y)
    b = mul(a, y)
  }
  z = cast(b, fp32)
}
EOF
# (c) Parameters are whole, weights one GPU's (R-PAR-002): w1 and w2 are
# 1/4 of [1024, 4096] and [4096, 1024] on TP 4: 4,194,304 parameters
# each (4.19 M), holding 1024 x 1024 x 2 = 2,097,152 B (bf16) and
# x 4 = 4,194,304 B (fp32); 8.39 M and 6.29 MB in all.
cat >"$T/tp.roof" <<'EOF'
target h100_sxm
model tp {
  dtype bf16
  parallel { gpus_per_node = 4; tensor = 4 }
  input x : [8, 1024]
  weight w1 : [1024, 4096 / 4] shard=tensor
  weight w2 : fp32[4096 / 4, 1024] shard=tensor
  h = matmul(x, w1)
  y = matmul(h, w2)
  y = allreduce(y, group=tensor)
}
EOF
# (d) Expert parallelism (R-MOE-003): Mixtral on EP 8 holds 1,605,636,096
# parameters outside the experts and 32 x 176,160,768 of its one expert:
# 7,242,780,672 x 2 B = 14.49 GB of bf16 weights, of 46.7 G parameters.
cp examples/mixtral_8x7b_decode.roof "$T/ep.roof"
for f in rep tr tp ep; do
  case $f in ep) set -- -D EP=8 ;; *) set -- ;; esac
  "$ROOFLINT" -w --plan "$@" "$T/$f.roof" >"$T/$f.txt" 2>"$T/$f.err"
  st=$?
  [ "$st" -eq 0 ] && pass || fail "--plan $f: exit $st"
done
while IFS='|' read -r f re; do
  grep -qE -- "$re" "$T/$f.txt" && pass || fail "--plan $f: no line matching $re"
done <<'EOF'
rep|^  fp32 +0 +0 B +163\.8 KB +163\.8 KB$
rep|^  bf16 +4\.19 M +8\.39 MB +16\.4 KB +8\.40 MB$
rep|^  total +4\.19 M +8\.39 MB +180\.2 KB +8\.57 MB$
tr|^  fp32 +0 +0 B +0 B +12\.6 MB +0 B +12\.6 MB$
tr|^  bf16 +1\.05 M +2\.10 MB +2\.10 MB +0 B +32\.8 KB +4\.23 MB$
tr|^  total +1\.05 M +2\.10 MB +2\.10 MB +12\.6 MB +32\.8 KB +16\.8 MB$
tp|^  fp32 +4\.19 M +4\.19 MB +
tp|^  bf16 +4\.19 M +2\.10 MB +
tp|^  total +8\.39 M +6\.29 MB +
ep|^  bf16 +46\.7 G +14\.5 GB +
ep|^  total +46\.7 G +14\.5 GB +
EOF
# (e) With a pipeline the total is the fullest stage's (R-PAR-009), which
# the rows cannot split: a line says so.
"$ROOFLINT" -w --plan examples/gpt3_175b_pipeline.roof >"$T/pp.txt" 2>&1
grep -qxF "  (a pipeline of 16 stages: the dtype rows' weights, gradients and activations are every stage's, the total the fullest stage's)" "$T/pp.txt" &&
  pass || fail "--plan of a pipeline: no line saying what the total is"

# (f) ZeRO-3's gathered units (R-PAR-013) are whole layers of mixed
# dtypes, in the total only: Llama-3-8B on 16 ranks gathers its root
# (2 x 128256 x 4096 x 2 + 8192 = 2,101,354,496 B) and one layer
# (218,112,000 x 2 = 436,224,000 B), 2,537,578,496 B = 2.54 GB.
"$ROOFLINT" -w --plan examples/llama3_8b_train.roof >"$T/z3.txt" 2>&1
grep -qxF "  (the total holds 2.54 GB of gathered FSDP units, which the dtype rows leave out)" "$T/z3.txt" &&
  pass || fail "--plan with zero = 3: no line giving the gathered units"

echo "plan_figures: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
