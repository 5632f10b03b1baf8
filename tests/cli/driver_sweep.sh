#!/bin/sh
# driver_sweep.sh: --sweep (R-CLI-009).  Every row has the totals, the
# footprint against the target's memory and the errors at that value; the
# checks run at every value (a capacity error is an error, exit 1); two
# --sweep make a grid; --sweep with --report or several targets is refused;
# memory is one analysis, not one per value.
. "$(dirname "$0")/driver_lib.inc"

# A part with 1 GB of memory and 1 TB/s, so the figures are easy by hand.
card tiny Tiny "1 GB" "1 TB/s" >"$T/sw.roof"
cat >>"$T/sw.roof" <<'ROOF'
target tiny
let N = 1024
let B = 1
model m {
  dtype fp16
  input x : [B, N]
  weight w : [N, N]
  y = matmul(x, w)
  z = relu(y)
}
ROOF

# N = 1024, B = 1: FLOPs 2*1*1024*1024 + 1024 (relu) = 2,098,176 = 2.10 M;
# bytes x 2,048 + w 2,097,152 + y 2,048, relu 2,048 + 2,048: 2,105,344 =
# 2.11 MB; FLOP/B 0.997; 2.11 us at 1 TB/s, all of it memory-bound; the
# footprint is w plus x and y live together, 2,101,248 = 2.10 MB, fits.
# N = 32768: w alone is 32768^2 * 2 = 2,147,483,648 B = 2.15 GB > 1 GB: the
# capacity error, in the row and on stderr with the value in a note.
# B = 0 is a language error: no figures, "1 error".
run -w --sweep N=1024,32768 --sweep B=1,0 "$T/sw.roof"
expect_status 1
expect_out "         N           B   FLOPs/step   bytes/step       FLOP/B    time/step  memory-bound    footprint         fits  errors
--------------------------------------------------------------------------------------------------------------------------
      1024           1   2.10 MFLOP      2.11 MB        0.997      2.11 us          100%      2.10 MB          yes  -
      1024           0            -            -            -            -             -            -            -  1 error
     32768           1   2.15 GFLOP      2.15 GB        1.000      2.15 ms          100%      2.15 GB           no  1 error [capacity]
     32768           0            -            -            -            -             -            -            -  1 error"
expect_grep "$T/err" "sw.roof:14:7: error: model 'm' needs 2.15 GB but Tiny has 1.00 GB: weights 2.15 GB, activations 131.1 KB [-Wcapacity]"
expect_grep "$T/err" "note: with N = 32768, B = 1 from --sweep"
expect_grep "$T/err" "note: with N = 1024, B = 0 from --sweep"
[ "$(grep -c 'error:' "$T/err")" -eq 3 ] && ok || bad "expected 3 errors on stderr"

# A value without an error exits 0; -Wno-capacity leaves "no" but no error.
run -w --sweep N=1024 "$T/sw.roof"
expect_status 0
run -w -Wno-capacity --sweep N=32768 "$T/sw.roof"
expect_status 0
expect_grep "$T/out" "2.15 GB           no  -"

# Two --sweep of one let, a third --sweep, --report, several targets: exit 2.
run --sweep N=1 --sweep N=2 "$T/sw.roof"
expect_status 2
expect_err "rooflint: error: --sweep N=2: 'N' is swept twice"
run --sweep N=1 --sweep B=1 --sweep S=2 "$T/sw.roof"
expect_status 2
expect_err "rooflint: error: --sweep S=2: at most 2 --sweep options (a grid of two lets)"
run --report --sweep N=1 "$T/sw.roof"
expect_status 2
expect_err "rooflint: error: --sweep cannot be combined with --report"
run -t h100_sxm,b200 --sweep B=1,2 examples/llama2_7b_decode.roof
expect_status 2
expect_err "rooflint: error: --sweep takes one target, got 2 (compare targets with --report)"
# issue 28 item 14: the grid is capped at 10,000 points (one analysis each):
# 10,001 values of one let, or 100 x 101, are refused before any analysis;
# 100 x 100 is the largest grid of two.
run --sweep B=$(seq -s, 1 10001) examples/llama2_7b_decode.roof
expect_status 2
expect_err "rooflint: error: --sweep B: the sweep grid has more than 10000 points (the product of the --sweep value counts)"
run --sweep B=$(seq -s, 1 100) --sweep S=$(seq -s, 1 101) examples/llama2_7b_decode.roof
expect_status 2
expect_err "rooflint: error: --sweep S: the sweep grid has more than 10000 points (the product of the --sweep value counts)"

# A file of two models: one row per model and value, named in a `model`
# column, each with its own errors (issue 16: the sweep covered only the
# first model).  On Tiny (1 GB, 1 TB/s), fp16 (N = 1024 as above):
#   small  B = 1: the 2.10 MFLOP, 2.11 MB, 2.11 us of m; fits
#          B = 2: FLOPs 2*2*1024^2 + 2,048 = 4,196,352; bytes x 4,096 +
#          w 2,097,152 + y 4,096 + relu 4,096 + 4,096 = 2,113,536: 1.985
#   big    w [32768, 32768]: 2,147,483,648 B = 2.15 GB alone, over 1 GB;
#          B = 1: FLOPs 2 * 32768^2 = 2.15 G, bytes 2.15 GB + x, y 65,536
#          B = 2: FLOPs 4,294,967,296; bytes 2,147,483,648 + 2 * 131,072
#          = 2,147,745,792: 2.000 FLOP/B
card tiny Tiny "1 GB" "1 TB/s" >"$T/two.roof"
cat >>"$T/two.roof" <<'ROOF'
target tiny
let B = 1
model small {
  dtype fp16
  input x : [B, 1024]
  weight w : [1024, 1024]
  y = matmul(x, w)
  z = relu(y)
}
model big {
  dtype fp16
  input x : [B, 32768]
  weight w : [32768, 32768]
  y = matmul(x, w)
}
ROOF
run -w --sweep B=1,2 "$T/two.roof"
expect_status 1
expect_out "         B  model   FLOPs/step   bytes/step       FLOP/B    time/step  memory-bound    footprint         fits  errors
---------------------------------------------------------------------------------------------------------------------
         1  small   2.10 MFLOP      2.11 MB        0.997      2.11 us          100%      2.10 MB          yes  -
         1  big     2.15 GFLOP      2.15 GB        1.000      2.15 ms          100%      2.15 GB           no  1 error [capacity]
         2  small   4.20 MFLOP      2.11 MB        1.985      2.11 us          100%      2.11 MB          yes  -
         2  big     4.29 GFLOP      2.15 GB        2.000      2.15 ms          100%      2.15 GB           no  1 error [capacity]"

# A model with a collective has its totals and footprint as well as the
# all-reduce legs (the seed's table: 27.2 ms on one node).
run --sweep NODES=1 examples/seed/allreduce.roof
expect_status 0
expect_grep "$T/out" "     NODES   FLOPs/step   bytes/step       FLOP/B    time/step  memory-bound    footprint         fits   NVLink/GPU"

# Issue 17 item 13: each value's analysis is freed after its row.  2,000
# values of a 7B decode model kept ~36 KB each (73 MB in all) before; now
# the run fits in 40 MB of address space.  (ASan reserves terabytes: no
# ulimit -v under it.)
vals=$(seq -s, 1 2000)
if (ulimit -v 40000; "$ROOFLINT" --version) >/dev/null 2>&1; then
  what="rooflint --sweep B=1..2000 under ulimit -v 40000"
  (ulimit -v 40000; "$ROOFLINT" -w -Wno-capacity --sweep "B=$vals" examples/llama2_7b_decode.roof >"$T/out" 2>"$T/err")
  status=$?
  expect_status 0
  [ "$(wc -l <"$T/out")" -eq 2002 ] && ok || bad "expected 2,002 lines"
fi
finish
