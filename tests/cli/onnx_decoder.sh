#!/bin/sh
# onnx_decoder.sh: decoder exports of tests/onnx/gen_recurrent.py.
#   - a decode step exported with its past keys and values as graph inputs
#     imports them as caches grown by append (R-CACHE-004), so the
#     footprint has a KV cache and capacity gives the largest batch
#     (R-CACHE-001, R-CACHE-003), from the .onnx and its import alike
#     (R-ONNX-001);
#   - attention written out is reported at its first matmul, in an import
#     as in .roof (R-CHK-120, R-CHK-122).
. "$(dirname "$0")/driver_lib.inc"
D=tests/onnx/recurrent

summary() {
  "$ROOFLINT" --format json "$@" 2>"$T/err" </dev/null |
    /usr/bin/python3 -c 'import json, sys
s = json.load(sys.stdin)["models"][0]["summary"]
print(s["flops"], s["bytes"], s["footprint"].get("kv_cache"), s["footprint"]["activations"])'
}

# decoder_past.onnx: one layer, width 32, 4 heads of 8, fp32, one new
# token; past_k, past_v [batch, 4, past, 8] concatenated with the new k, v
# on axis 2 are `cache` declarations and `append`s.
what="rooflint import $D/decoder_past.onnx"
"$ROOFLINT" import $D/decoder_past.onnx >"$T/dec.roof" 2>"$T/err"
if cmp -s $D/decoder_past.roof "$T/dec.roof"; then ok; else bad "differs"; diff -u $D/decoder_past.roof "$T/dec.roof" | head; fi
expect_grep "$T/dec.roof" "  cache past_k : [batch, 4, past, 8]  # onnx input 1 \"past_k\""
expect_grep "$T/dec.roof" "  present_v = append(past_v, Transpose_2, axis=2)  # onnx #38 Concat \"/Concat_4\""

# At batch 1 with 1023 past tokens (-D past=1023 -D total=1024, the mask's
# length), the cache holds 1024 after the append.  FLOPs: qkv 2*32*96 + 96
# (bias) = 6240; scores 4 heads x 1024 keys x 2*8 = 65,536; the scale and
# the mask 4096 each; softmax 5 x 4096 = 20,480; context 65,536; proj
# 2*32*32 + 32 = 2080; the residual 32: 168,096.  Bytes: qkv 128 + 12,288
# + 384 + 384 = 13,184; each append reads and writes the new [1, 4, 1, 8]
# (2 x 128) only: 512; scores q 128 + the cache 4*1024*8*4 = 131,072 + out
# 16,384 = 147,584; scale 32,768; mask 16,384 + 4096 + 16,384 = 36,864;
# softmax 32,768; context 147,584; proj 128 + 4096 + 128 + 128 = 4480;
# residual 384: 416,128 (a concat read and wrote both caches whole:
# 939,904 before R-CACHE-004).  KV cache 2 x 131,072 = 262,144;
# activations at their peak 37,376 (the scores and their scaled copy,
# 2 x 16,384, the mask 4096, qkv's 384, x 128).
for f in $D/decoder_past.onnx "$T/dec.roof"; do
  what="rooflint -D past=1023 -D total=1024 $f"
  got=$(summary -D past=1023 -D total=1024 "$f")
  if [ "$got" = "168096 416128 262144 37376" ]; then ok; else bad "figures '$got'"; fi
done

# Capacity on a 3 MB card: weights 4224 x 4 = 16,896 bytes, then per
# sequence 262,144 of KV cache and 37,376 of activations: (3,000,000 -
# 16,896) / 299,520 = 9.96, so batch = 9.
card tiny "Tiny" "3 MB" "1 TB/s" >"$T/tiny.roof"
for f in $D/decoder_past.onnx "$T/dec.roof"; do
  run -t "$T/tiny.roof" -D past=1023 -D total=1024 "$f"
  expect_status 0
  expect_grep "$T/err" "remark: model 'torch_jit' fits up to batch = 9 on Tiny (needs 316.4 KB of 3.00 MB at batch = 1) [-Wcapacity]"
done

# attn_mask.onnx: softmax(q k^T / sqrt(8) + mask) v, q, k, v fp32 [1, 4, 16,
# 8] (2048 bytes each), mask [1, 1, 16, 16] (1024), scores [1, 4, 16, 16]
# (4096).  Unfused: MatMul q + k^T + scores 8192; Div 8192; Add 4096 + 1024
# + 4096 = 9216; Softmax 8192; MatMul_1 4096 + 2048 + 2048 = 8192: 41,984
# bytes.  Fused: q, k, v, y and the mask, 4 x 2048 + 1024 = 9216.  Saved
# 32,768 bytes, at H100 SXM's 3.35 TB/s 9.78 ns (both memory-bound: 39,936
# FLOPs take 0.6 ns).
for f in $D/attn_mask.onnx "$T/attn_mask.roof"; do
  [ "$f" = "$T/attn_mask.roof" ] && "$ROOFLINT" import $D/attn_mask.onnx >"$f"
  run "$f"
  expect_status 0
  expect_grep "$T/err" "warning: attention written out (matmul 'MatMul' -> div 'Div' -> add 'Add' -> softmax 'Softmax' -> matmul 'y') writes its fp32[1, 4, 16, 16] scores to memory and reads them back: 5 kernels move 42.0 KB, one fused attention kernel would move 9.22 KB; fusing saves 32.8 KB and 9.78 ns per step [-Wunfused-attention]"
  expect_grep "$T/err" "note: the mask 'mask' is an operand of the fused kernel (scaled_dot_product_attention's attn_mask=; attention(q, k, v, causal=true) when it is causal)"
done
expect_grep "$T/err" "attn_mask.roof:9:12: warning: attention written out"
run $D/attn_mask.onnx
expect_grep "$T/err" "tests/onnx/recurrent/attn_mask.onnx: node 1 \"/MatMul\" (MatMul): warning: attention written out"
# Its figures, from the .onnx and its import: FLOPs q k^T 4 heads x 16 x
# 16 x 2*8 = 16,384, y the same, Div and Add 1024 each, Softmax 5 x 1024:
# 39,936 (torch.profiler(with_flops=True): aten::bmm 32,768, aten::add
# 1024); bytes 41,984, as above.
for f in $D/attn_mask.onnx "$T/attn_mask.roof"; do
  what="figures of $f"
  got=$(summary "$f" | cut -d' ' -f1,2)
  if [ "$got" = "39936 41984" ]; then ok; else bad "figures '$got'"; fi
done
# attn_nomask.onnx: no Add: 32,768 bytes unfused, 8192 fused, 24,576 saved
# (7.34 ns); the fix-it is one attention() over the four lines.
run --format json $D/attn_nomask.onnx
expect_grep "$T/out" '"text": "y = attention(q, k, v)"'
expect_grep "$T/out" '"bytes_unfused": 32768'
# The decode step: the scores are [1, 4, 1, 1024] at past=1023; the five
# kernels move 397,568 bytes (s 147,584 + scale 32,768 + mask 36,864 +
# softmax 32,768 + context 147,584), one fused kernel 266,496 (q 128, the
# two caches 262,144, the mask 4096, the result 128).
run -D past=1023 -D total=1024 --format json $D/decoder_past.onnx
expect_grep "$T/out" '"bytes_unfused": 397568'
expect_grep "$T/out" '"bytes_fused": 266496'
finish
