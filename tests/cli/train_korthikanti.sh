#!/bin/sh
# train_korthikanti.sh: the activation memory of a transformer layer as
# backward keeps it (R-TRAIN-002, R-TRAIN-003, R-PAR-010, R-PAR-014,
# R-PAR-015), against Korthikanti et al.
# 2022, "Reducing Activation Recomputation in Large Transformer Models",
# table 2, and a Llama layer worked by hand.  A layer's figure is the
# footprint's activations with two layers less those with one (-D L=2
# minus -D L=1, no pipeline): the embedding, the head and the recompute
# buffer, once per model, cancel.
#
# 1. GPT-3 175B (examples/gpt3_175b_pipeline.roof: s 2048, b 1, h 12288,
#    a 96, t 8; bf16, 2 bytes like the paper's fp16).  sbh = 25,165,824,
#    as/h = 96 x 2048 / 12288 = 16, so 5as/(ht) = 10.  The paper leaves out
#    each layernorm's fp32 mean and rstd, 8 bytes a token: 2 x 8 x 2048 =
#    32,768 = 16sb a layer (4,096 with sequence parallelism).  R-PAR-014:
#      no recomputation        sbh(10 + 24/t + 5as/(ht)) = 23 sbh
#                              = 578,813,952 + 32,768 = 578,846,720
#      sequence parallel       sbh/t (34 + 5as/h) = 114 sbh / 8
#                              = 358,612,992 + 4,096 = 358,617,088
#      selective               sbh(10 + 24/t) = 13 sbh
#                              = 327,155,712 + 32,768 = 327,188,480
#      selective + sequence    34 sbh / t = 106,954,752 + 4,096
#                              = 106,958,848
#      full recomputation      2sbh = 50,331,648 (the layer's input alone)
#      full + sequence         2sbh / t = 6,291,456
#    and t = 1 without recomputation: sbh(34 + 5as/h) = 114 sbh
#      = 2,868,903,936 + 32,768 = 2,868,936,704.
#    FlashAttention (the attention op: no s x s tensor, but its fp32
#    log-sum-exp, 4 bytes per token and head of the rank: 4 x 2048 x 12 =
#    98,304): 13 sbh + 32,768 + 98,304 = 327,286,784; with sequence
#    parallelism 34 sbh / 8 + 4,096 + 98,304 = 107,057,152; selective
#    recomputes the attention op too: 327,188,480; full: 50,331,648.
# 2. A Llama layer (Llama-3-8B's: s 4096, b 1, h 4096, 32 heads of 128,
#    8 KV heads, SwiGLU 14336, RMSNorm, FlashAttention, no dropout; bf16,
#    t = 1).  What backward reads, each tensor once:
#      x (rmsnorm's input) 2 x 4096 x 4096           33,554,432
#      its rstd, fp32 a token 4 x 4096                   16,384
#      h (the q, k, v matmuls' input)                33,554,432
#      q after rope (attention)                      33,554,432
#      k after rope, v: 2 x 2 x 4096 x 1024          16,777,216
#      attention's output (wo's input too)           33,554,432
#      its log-sum-exp 4 x 32 x 4096                    524,288
#      x after attention, rstd, rmsnorm's output     67,125,248
#      gate (silu's input), silu(gate) and up (mul's
#        operands), their product (w_down's input):
#        4 x 2 x 4096 x 14336                       469,762,048
#    = 688,422,912 bytes (41.0 sbh).  Not kept: q and k before rope (rope
#    saves only cos and sin, resident), the row-parallel outputs and the
#    residual adds' results (add saves nothing).
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-korthikanti.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
npass=0
nfail=0

activations() { # file, -D options...
  f=$1
  shift
  "$ROOFLINT" --format json -D P=1 -D M=1 "$@" "$f" 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys
print(int(json.load(sys.stdin)["models"][0]["summary"]["footprint"]["activations"]))'
}

layer() { # name, file, expected, -D options...
  name=$1 f=$2 want=$3
  shift 3
  one=$(activations "$f" -D L=1 "$@")
  two=$(activations "$f" -D L=2 "$@")
  got=$((two - one))
  if [ "$got" = "$want" ]; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL train_korthikanti: $name: a layer keeps $got bytes, want $want"
  fi
}

G=examples/gpt3_175b_pipeline.roof
# the example recomputes selectively; the other plans are it edited
sed -e '/checkpoint selective {/d' -e '/# checkpoint selective/d' "$G" >"$T/none.roof"
sed -e 's/checkpoint selective {/checkpoint {/' "$G" >"$T/full.roof"
for v in none full; do
  sed -e 's/parallel {/parallel { sequence_parallel = true;/' "$T/$v.roof" >"$T/${v}_sp.roof"
done
cp "$G" "$T/sel.roof"
sed -e 's/parallel {/parallel { sequence_parallel = true;/' "$G" >"$T/sel_sp.roof"
for v in none full sel none_sp full_sp sel_sp; do
  sed -e 's/s = matmul(q, transpose(k, \[0, 1, 3, 2\]))/a = attention(q, k, v, causal=true)/' \
    -e '/p = softmax(s)/d' -e '/p = dropout(p)/d' -e '/a = matmul(p, v)/d' \
    "$T/$v.roof" >"$T/${v}_fa.roof"
done

layer "no recomputation" "$T/none.roof" 578846720
layer "sequence parallel" "$T/none_sp.roof" 358617088
layer "selective" "$T/sel.roof" 327188480
layer "selective + sequence parallel" "$T/sel_sp.roof" 106958848
layer "full recomputation" "$T/full.roof" 50331648
layer "full + sequence parallel" "$T/full_sp.roof" 6291456
layer "no parallelism" "$T/none.roof" 2868936704 -D T=1
layer "FlashAttention" "$T/none_fa.roof" 327286784
layer "FlashAttention + sequence parallel" "$T/none_sp_fa.roof" 107057152
layer "FlashAttention, selective" "$T/sel_fa.roof" 327188480
layer "FlashAttention, full" "$T/full_fa.roof" 50331648

cat >"$T/llama.roof" <<'ROOF'
let L = 1
let P = 1
let M = 1
let S = 4096
let D = 4096
let H = 32
let HKV = 8
let DH = 128
let F = 14336
model llama_layer {
  dtype bf16
  mode train
  input x0 : [1, S, D]
  buffer cos, sin : [S, DH]
  x = copy(x0)
  repeat L {
    weight attn_norm, ffn_norm : [D]
    weight wq, wo : [D, D]
    weight wk, wv : [D, HKV * DH]
    weight w_gate, w_up : [D, F]
    weight w_down : [F, D]
    h = rmsnorm(x, attn_norm)
    q = transpose(reshape(matmul(h, wq), [1, S, H, DH]), [0, 2, 1, 3])
    k = transpose(reshape(matmul(h, wk), [1, S, HKV, DH]), [0, 2, 1, 3])
    v = transpose(reshape(matmul(h, wv), [1, S, HKV, DH]), [0, 2, 1, 3])
    q = rope(q, cos, sin)
    k = rope(k, cos, sin)
    a = attention(q, k, v, causal=true)
    a = reshape(transpose(a, [0, 2, 1, 3]), [1, S, D])
    x = add(x, matmul(a, wo))
    h = rmsnorm(x, ffn_norm)
    g = silu(matmul(h, w_gate))
    g = mul(g, matmul(h, w_up))
    x = add(x, matmul(g, w_down))
  }
  output x
}
ROOF
layer "Llama layer" "$T/llama.roof" 688422912

echo "train_korthikanti: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
