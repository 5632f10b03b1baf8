#!/bin/sh
# onnx_decoder_exports.sh: decoder-only transformers exported by torch.onnx.export
# (tests/onnx/gen_decoder.py, issue 29) and values the language cannot
# hold (issue 28 item 16).  Each export lints to the figures counted by
# hand below, and `rooflint import` of it writes text that lints to the
# same figures (R-ONNX-001).
. "$(dirname "$0")/driver_lib.inc"
D=tests/onnx/decoder

# FLOPs, bytes and parameters of the model's step, from --format json.
figures() { json_summary "flops bytes params" "$@"; }

# check NAME "FLOPS BYTES PARAMS" [OPTIONS...]: the .onnx and its import.
check() {
  name=$1 want=$2
  shift 2
  what="rooflint $D/$name.onnx $*"
  got=$(figures "$@" "$D/$name.onnx")
  if [ "$got" = "$want" ]; then ok; else bad "figures '$got', expected '$want'"; fi
  what="rooflint import $D/$name.onnx"
  "$ROOFLINT" import -o "$T/$name.roof" "$D/$name.onnx" 2>"$T/err" </dev/null
  status=$?
  expect_status 0
  what="rooflint (import of $name.onnx) $*"
  got=$(figures "$@" "$T/$name.roof")
  if [ "$got" = "$want" ]; then ok; else bad "round trip '$got', expected '$want'"; fi
}

# nanoGPT's decoder: vocabulary V = 64, block P = 16, width D = 32, H = 4
# heads of 8, L = 2 layers, exported at B = 2, S = 8: N = 16 positions.
# Contractions, per layer (2 N K M for each nn.Linear, 2 B H S S 8 for the
# scores and the context):
#   q/k/v (c_attn)   2 x 16 x 32 x 96   =  98,304
#   scores q k^T     2 x 2 x 4 x 8 x 8 x 8 = 8,192
#   context att v    8,192
#   projection       2 x 16 x 32 x 32   =  32,768
#   MLP up, down     2 x 2 x 16 x 32 x 128 = 262,144
#   = 409,600 per layer, 819,200 for 2, + lm_head 2 x 16 x 32 x 64 = 65,536:
#   884,736.  torch.profiler(with_flops=True) on the module counts the
#   same: aten::addmm 786,432 + aten::bmm 32,768 + aten::mm 65,536.
# Biases (one FLOP per output element, R-COST-020): 16 x (96 + 32 + 128 +
# 32) = 4,608 per layer, 9,216.  Element-wise, per layer: 2 LayerNorms
# (R-COST-021, opset 17's LayerNormalization: 8 per element, 2 x 4,096),
# the scale mul 512 and where(mask, -inf, .) 512 on [2, 4, 8, 8], softmax
# 5 x 512 = 2,560, 2 residual adds 1,024, GELU as torch writes it below
# opset 20 (div, erf, add, mul, mul on [16, 128]: 5 x 2,048 = 10,240):
# 23,040, 46,080 for 2; + the embedding add 512 + ln_f 4,096.
#   opset 17: 884,736 + 9,216 + 46,080 + 512 + 4,096 = 944,640.
# Opset 13 has no LayerNormalization: torch writes mean, sub, pow, mean,
# add eps, sqrt, div, mul, add, 7 x 512 + 2 x 16 = 3,616 per norm, 480
# under 4,096, for 5 norms 2,400 less: 942,240.
# Parameters: the export's float initializers, 29,824: the model's 28,032
# (wte 2,048, tied to lm_head as nanoGPT does, wpe 512, per layer 4 x 32
# of LayerNorm + 32 x 96 + 96 + 32 x 32 + 32 + 32 x 128 + 128 + 128 x 32
# + 32 = 12,704, ln_f 64) less wpe, which the export folds into the
# [8, 32] rows it reads (256), plus the tied head's transposed copy
# [32, 64] that torch writes for the MatMul (2,048, remarked on below).
# The bool mask [1, 1, 8, 8] that constant folding made of `bias == 0` is
# a buffer, not a parameter (R-ONNX-023).
# Bytes are the operands and results of each kernel (fp16 halves the float
# ones; idx stays int64, the mask bool).
check gpt_fp32_op17 "944640 465664 29824"
check gpt_fp32_op13 "942240 570624 29824"
check gpt_fp16_op17 "944640 232960 29824"
check gpt_fp16_op13 "942240 285440 29824"

# R-ONNX-021: the same decoder with dynamic_axes: batch and sequence are
# lets, and the mask's Equal compares tensors; at
# B = 2, S = 8 it is opset 17's 944,640 plus eq(bias[:, :, :S, :S], 0) on
# [1, 1, 8, 8], 64 per layer: 944,768.  The float mask buffer [1, 1, 16,
# 16] (256, a float initializer: a weight to ONNX) and the whole wpe
# [16, 32] are initializers here: 28,032 + 2,048 (the head's copy) + 256
# = 30,336.
check gpt_dynamic "944768 468416 30336" -D batch=2 -D sequence=8
what="rooflint import $D/gpt_dynamic.onnx: the mask's Equal and Where"
"$ROOFLINT" import "$D/gpt_dynamic.onnx" >"$T/dyn.roof" 2>"$T/err"
expect_grep "$T/dyn.roof" '  h_0_attn_Equal = eq(h_0_attn_Slice_1, 0)  # onnx #75 Equal "/h.0/attn/Equal"'
expect_grep "$T/dyn.roof" '  h_0_attn_Where = where(h_0_attn_Cast_2, -inf, h_0_attn_Mul)  # onnx #78 Where "/h.0/attn/Where"'

# Masked scores with a bool tril buffer and no parameter (R-ONNX-023: the
# buffer is footprint, not one of the parameters): q k^T on
# [2, 4, 8, 8] 8,192, where 512, softmax 2,560: 11,264 FLOPs; bytes: the
# matmul 3 x 2,048, where 64 (bool [8, 8]) + 2 x 2,048, softmax 2 x 2,048:
# 14,400.
check mask_buffer "11264 14400 0"
run import "$D/mask_buffer.onnx"
expect_grep "$T/out" '  buffer onnx_Where_11 : bool[8, 8]  # onnx initializer 0 "onnx::Where_11"'

# R-ONNX-023: the tied head's transposed copy is remarked on, once (the
# MLP's [32, 128] and [128, 32] come in 2 pairs, one per layer: no tie).
run tests/onnx/decoder/gpt_fp32_op17.onnx
expect_grep "$T/err" "tests/onnx/decoder/gpt_fp32_op17.onnx: initializer 29 \"onnx::MatMul_282\": remark: 'onnx_MatMul_282' has the transposed shape of initializer 0 \"wte.weight\": it may be a tied weight (torch writes a head tied to the embedding as a second, transposed initializer), counted twice in the parameters"
if [ "$(grep -c 'remark: .* tied weight' "$T/err")" = 1 ]; then ok; else bad "not one tied-weight remark"; fi

# R-OP-006: comparisons and logic written in .roof (compare_ops.roof).
# FLOPs, 1 per output element: eq on [1, 1, 8, 8] 64; ten ops on
# [2, 4, 8, 8] (lt, logical_and, logical_not, isnan, isinf, logical_or,
# logical_xor, ge, le, gt) 10 x 512; where 512: 5,696.  Bytes: eq 256 + 64;
# lt 1,024 (fp16 s) + 256 (fp32 bias) + 512 (bool); logical_and 64 + 512 +
# 512; logical_not 512 + 512; isnan, isinf, ge, le, gt 1,024 + 512 each;
# logical_or, logical_xor 3 x 512 each; where 512 + 1,024 + 1,024: 17,536.
# Train mode adds only where's backward (512 FLOPs, 2,560 B): no gradient
# flows through a comparison.
what="rooflint tests/onnx/decoder/compare_ops.roof"
got=$(figures "$D/compare_ops.roof")
if [ "$got" = "5696 17536 0" ]; then ok; else bad "figures '$got'"; fi
what="rooflint compare_ops.roof in train mode"
sed 's/^model m {/model m {\n  mode train/' "$D/compare_ops.roof" >"$T/train.roof"
got=$(figures "$T/train.roof")
if [ "$got" = "6208 20096 0" ]; then ok; else bad "figures '$got'"; fi

# R-OP-007: einsum in .roof (einsum_ops.roof), q, k, v fp32 [2, 4, 8, 8].
# Two operands: 2 x the product of every distinct index's size:
# "bhqd,bhkd->bhqk" 2 x 2 x 4 x 8 x 8 x 8 = 8,192, and the context the
# same (torch.profiler(with_flops=True) counts aten::bmm 16,384 for the
# two); softmax 2,560.  One operand: "bhqd" (the result's indices in
# alphabetical order, "bdhq") a permutation, 0; "bhqd->b" a sum, one add
# per element, 512.  Three operands, left to right as torch.einsum
# without opt_einsum: q k over b h q d k (d is summed: 8,192), then
# [b, h, q, k] v over b h q k e (k summed: 8,192): 16,384.  Total 35,840.
# Bytes: each application's operands and result: 6,144 + 4,096 + 6,144 +
# 4,096 + (2,048 + 8) + 8,192 = 30,728.
what="rooflint tests/onnx/decoder/einsum_ops.roof"
got=$(figures "$D/einsum_ops.roof")
if [ "$got" = "35840 30728 0" ]; then ok; else bad "figures '$got'"; fi

# R-ONNX-022: torch.einsum attention exported.  Scores and context 8,192
# each, the scale div 512, softmax 2,560: 19,456; bytes 3 x 2,048 per
# einsum, 2 x 2,048 for div and softmax: 20,480 (the transpose and the
# reshape are views).  With symbolic batch and sequence, through
# onnx.shape_inference (which types the einsums' results unk__0 ...
# unk__7), every dim is computed from the inputs' lets: the same figures
# at -D batch=2 -D sequence=8, and no let but batch and sequence.
check einsum_attn "19456 20480 0"
check einsum_dynamic "19456 20480 0" -D batch=2 -D sequence=8
run import "$D/einsum_dynamic.onnx"
expect_grep "$T/out" '  Einsum = einsum("bhqd,bhkd->bhqk", q, k)  # onnx #12 Einsum "/Einsum"'
expect_grep "$T/out" '  y = reshape(Transpose, [batch, sequence, 32])  # onnx #26 Reshape "/Reshape"'
if [ "$(grep -c '^let ' "$T/out")" = 2 ]; then ok; else bad "lets other than batch and sequence"; fi

# R-ONNX-020: a value the language cannot hold is an error at the node,
# and `rooflint import` exits 1 (it never writes text that does not lint).
nonfinite() {
  name=$1 msg=$2
  for mode in lint import; do
    if [ $mode = lint ]; then run "$D/nonfinite_$name.onnx"; else run import "$D/nonfinite_$name.onnx"; fi
    expect_status 1
    expect_err "rooflint: error: $D/nonfinite_$name.onnx: $msg"
  done
}
nonfinite gemm_alpha_inf 'node 0 (Gemm): its alpha is inf: a coefficient must be a finite number'
nonfinite gemm_beta_nan 'node 0 (Gemm): its beta is NaN, which rooflint cannot write (a bound, a fill or an operand may be inf or -inf)'
nonfinite layernorm_eps_inf 'node 0 (LayerNormalization): its epsilon is inf: a coefficient must be a finite number'
nonfinite clip_nan 'node 0 (Clip): its min is NaN, which rooflint cannot write (a bound, a fill or an operand may be inf or -inf)'
nonfinite mul_nan 'node 0 (Mul): its input 1 is NaN, which rooflint cannot write (a bound, a fill or an operand may be inf or -inf)'
nonfinite pad_nan 'node 0 (Pad): its value is NaN, which rooflint cannot write (a bound, a fill or an operand may be inf or -inf)'
# A bound of -inf is a legal fill: clip(x, min=-inf, max=6) on [2, 8] is
# 2 FLOPs per element (one per bound), 32; bytes 64 + 64.
check nonfinite_clip_inf "32 128 0"
run import "$D/nonfinite_clip_inf.onnx"
expect_grep "$T/out" '  y = clip(x, min=-inf, max=6)  # onnx #0 Clip'

finish
