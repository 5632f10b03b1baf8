#!/bin/sh
# SPDX-License-Identifier: MIT
# crosscheck.sh: every real model in examples/ against figures derived from
# its publication, independently of rooflint's code.
#
# For each example this computes, here in awk and from the published
# dimensions only (written again below, not read from the .roof file):
#   1. the exact parameter count of the architecture, which rooflint must
#      reproduce exactly (integer equality), and which must also round to
#      the publication's figure (within half a unit of its last digit);
#   2. the FLOPs of the contractions (matmul, conv1d, conv2d,
#      conv_transpose2d, attention) of one forward pass, counting a
#      multiply-accumulate as 2 FLOPs (and, with bias=, one FLOP per output
#      element, R-COST-020), which the
#      sum of rooflint's contraction nodes (flops x count) must equal to
#      1e-9 (floating point only);
#   3. the forward FLOPs by the formula the literature uses (transformers:
#      Kaplan et al. 2020, table 1; CNN and ViT: the published count of
#      multiply-accumulates x 2), which rooflint's total FLOPs must match
#      within the tolerance written next to each case: the formula leaves
#      out elementwise ops, norms, softmax and pooling, which rooflint counts.
#      In train mode the total is checked against 3 x forward (Kaplan's
#      C = 6N per token: the backward pass is twice the forward).
#
# Figures come from `rooflint --format json` (summary.params, summary.flops,
# and nodes[].op/count/flops; in train mode nodes[].flops already holds the
# whole step of the node, forward + backward).  A build without JSON output
# falls back to the default summary line, where the parameters are checked
# within their printed rounding and check 2 is skipped.  Checks are turned
# off (-w -Wno-capacity): the figures do not depend on them, and the
# capacity error of Llama-2-70B on one GPU would hide the summary.
#
#   BUILD=build sh tests/cli/crosscheck.sh        exit 0 pass, 1 mismatch

BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
failures=0
cases=0

# calc EXPR: an awk expression, printed as an integer (mawk's %d stops at
# 2^31; %.0f is exact for integers below 2^53, which every figure here is).
calc() { awk "BEGIN { printf \"%.0f\\n\", $1 }"; }

# figures FILE [ARGS...]: "params params_halfunit flops flops_halfunit
# contraction" for the file's one model.  From the JSON document (indented,
# one key per line) the figures are exact (half-units 0); when this build has
# no JSON output, from the summary line ("NAME: N ops, 124.4 M parameters,
# 6.55 TFLOP, ...") with half a unit of the last printed digit as the
# rounding allowance, and no contraction figure ("-").
figures() {
  "$ROOFLINT" --format json -w -Wno-capacity "$@" 2>/dev/null | awk '
    /"summary": \{/ { in_summary = 1 }
    in_summary && /"params":/ { params = value($0) }
    in_summary && /"flops":/ && flops == "" { flops = value($0) }
    in_summary && /^ *\}/ { in_summary = 0 }
    /"nodes": \[/ { in_nodes = 1 }
    /"kernels": \[/ { in_nodes = 0 }
    in_nodes && /^ *"name":/ { op = ""; count = 0 }
    in_nodes && /^ *"op":/ { op = $0; sub(/.*"op": "/, "", op); sub(/".*/, "", op) }
    in_nodes && /^ *"count":/ { count = value($0) }
    in_nodes && /^ *"flops":/ {
      if (op == "matmul" || op == "conv2d" || op == "attention" || op == "conv1d" ||
          op == "conv_transpose2d") contraction += count * value($0)
    }
    function value(line) { sub(/.*: /, "", line); sub(/,$/, "", line); return line + 0 }
    END {
      if (params == "" || flops == "") exit 1
      printf "%.0f 0 %.17g 0 %.17g\n", params, flops, contraction
    }' && return
  "$ROOFLINT" -w -Wno-capacity "$@" 2>/dev/null | awk '
    # "124.4 M" -> value and half a unit of its last digit
    function scaled(num, unit,   m, dec) {
      m = 1
      if (unit ~ /^K/) m = 1e3
      else if (unit ~ /^M/) m = 1e6
      else if (unit ~ /^G/) m = 1e9
      else if (unit ~ /^T/) m = 1e12
      else if (unit ~ /^P/) m = 1e15
      dec = index(num, ".") ? length(num) - index(num, ".") : 0
      half = 0.5 * m / 10 ^ dec
      return num * m
    }
    / parameters, / {
      n = split($0, f, ", ")
      for (i = 1; i <= n; i++) {
        split(f[i], w, " ")
        if (w[3] == "parameters") { p = scaled(w[1], w[2]); ph = half }
        else if (w[2] ~ /FLOP$/) { fl = scaled(w[1], w[2]); fh = half }
      }
      printf "%.17g %.17g %.17g %.17g -\n", p, ph, fl, fh
      exit
    }'
}

# expect LABEL GOT WANT RELTOL: |GOT - WANT| <= RELTOL x WANT, else a message.
expect() {
  if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t * w) }'; then
    return 0
  fi
  awk -v l="$1" -v g="$2" -v w="$3" -v t="$4" 'BEGIN {
    printf "crosscheck: %s: rooflint gives %.6g, the independent figure is %.6g (%+.3f%%, tolerance %.3g%%)\n", l, g, w, 100 * (g - w) / w, 100 * t }' >&2
  failures=$((failures + 1))
  return 1
}

# published LABEL EXACT FIGURE HALFUNIT: the exact count rounds to the
# publication's figure (|EXACT - FIGURE| <= HALFUNIT).
published() {
  if awk -v e="$2" -v f="$3" -v h="$4" 'BEGIN { d = e - f; if (d < 0) d = -d; exit !(d <= h) }'; then
    return 0
  fi
  echo "crosscheck: $1: the architecture has $2, which does not round to the published $3 (+/- $4)" >&2
  failures=$((failures + 1))
  return 1
}

# case NAME PARAMS FLOPS_FWD_FORMULA FORMULA_TOL CONTRACTION TRAIN FILE [ARGS]
check_case() {
  name=$1 params=$2 formula=$3 tol=$4 contraction=$5 train=$6
  shift 6
  cases=$((cases + 1))
  got=$(figures "$@")
  if [ -z "$got" ]; then
    echo "crosscheck: $name: rooflint printed no figures for: $*" >&2
    failures=$((failures + 1))
    return
  fi
  set -- $got
  # parameters: exact from JSON; within the printed rounding from text
  expect "$name: parameters" "$1" "$params" "$(awk -v h="$2" -v p="$params" 'BEGIN { print h / p }')"
  if [ "$train" = train ]; then
    # R-TRAIN-001: a train step runs each contraction 3 times (forward, and
    # the gradients of both operands), and nodes[].flops carries that.
    [ "$5" = - ] || expect "$name: contraction FLOPs (3 x forward)" "$5" "$(calc "3 * $contraction")" 1e-9
    expect "$name: step FLOPs against 3 x forward" "$3" "$(calc "3 * $formula")" "$tol"
  else
    [ "$5" = - ] || expect "$name: contraction FLOPs (forward)" "$5" "$contraction" 1e-9
    expect "$name: forward FLOPs" "$3" "$formula" "$tol"
  fi
  [ "$train" = train ] && formula=$(calc "3 * $formula")
  awk -v n="$name" -v p="$1" -v f="$3" -v w="$formula" 'BEGIN {
    printf "  %-24s %15.0f parameters  %.4g FLOPs (formula %.4g, %+.2f%%)\n", n, p, f, w, 100 * (f - w) / w }'
}

[ -x "$ROOFLINT" ] || { echo "crosscheck: $ROOFLINT not built" >&2; exit 1; }

# ---------------------------------------------------------------- GPT-2 small
# Radford et al. 2019; the released checkpoint: L 12, d 768, V 50257,
# n_positions 1024, MLP 3072; tied head (wte counted once).
# Per layer: 12 d^2 weights + 13 d biases and LayerNorm (2 x 2d).
# Published: 124M (3 significant figures: +/- 0.5M).
# Kaplan: C_fwd per token = 2N + 2 n_layer n_ctx d_attn, N = 12 n_layer d^2
# (non-embedding), plus the de-embedding 2 d n_vocab (tied head: the table
# is still multiplied).  Tokens: B 8 x S 1024.
# Tolerance 1%: biases, LayerNorm, GELU, dropout and the vocabulary softmax
# (~0.3% here) are outside Kaplan's count.
D=768 L=12 V=50257 NPOS=1024 B=8 S=1024
P=$(calc "$V*$D + $NPOS*$D + $L*(12*$D*$D + 13*$D) + 2*$D")
published "gpt2_small: parameters" "$P" 124000000 500000
P_GPT2=$P
C=$(calc "2*($L*12*$D*$D + $V*$D)*$B*$S + 2*$L*$S*$D*$B*$S")
check_case gpt2_small_train "$P" "$C" 0.01 "$C" train examples/gpt2_small_train.roof

# ---------------------------------------------------------------- Llama-2-7B
# Touvron et al. 2023; config: L 32, d 4096, F 11008, V 32000, no biases,
# RMSNorm (d per norm), untied embedding and head.
# Published: 6.74B (+/- 0.005B).
# Prefill of S 2048 tokens, batch 1, causal: Kaplan's attention term
# 2 n_layer n_ctx d_attn per token; the head runs on the last token only.
# Tolerance 1%: RMSNorm, rotary, SiLU-and-multiply, residual adds.
D=4096 L=32 F=11008 V=32000 B=1 S=2048
P=$(calc "2*$V*$D + $D + $L*(4*$D*$D + 3*$D*$F + 2*$D)")
published "llama2_7b: parameters" "$P" 6740000000 5000000
C=$(calc "2*$L*(4*$D*$D + 3*$D*$F)*$B*$S + 2*$L*$S*$D*$B*$S + 2*$D*$V*$B")
check_case llama2_7b_prefill "$P" "$C" 0.01 "$C" inference examples/llama2_7b_prefill.roof

# ---------------------------------------------------------------- Llama-2-70B
# Touvron et al. 2023; config: L 80, d 8192, 64 query heads, 8 KV heads of
# 128 (k/v width 1024), F 28672, V 32000.
# Published: 69.0B (+/- 0.05B).
# Decode: one token per sequence against T 2048 cached positions; that
# token attends to all T, so the attention term is 4 n_layer T d_attn per
# token (twice Kaplan's causal average, which is over positions 0..n_ctx).
# Tolerance 1% (norms, rotary, SwiGLU elementwise, residuals).
D=8192 L=80 F=28672 V=32000 DKV=1024 T=2048
P=$(calc "2*$V*$D + $D + $L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F + 2*$D)")
published "llama2_70b: parameters" "$P" 69000000000 50000000
for B in 1 64; do
  C=$(calc "2*($L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F) + $D*$V)*$B + 4*$L*$T*$D*$B")
  check_case "llama2_70b_decode B=$B" "$P" "$C" 0.01 "$C" inference examples/llama2_70b_decode.roof -D B=$B
done

# ---------------------------------------------------------------- Mixtral-8x7B
# Jiang et al. 2024; config: L 32, d 4096, 32 query heads, 8 KV heads of
# 128 (k/v width 1024), 8 SwiGLU experts of F 14336, top 2, V 32000,
# RMSNorm, untied embedding and head.  Published: 46.7B (+/- 0.05B), of
# which 12.9B active.  Decode against S 4096 cached positions plus this
# step's (R-MOE-002): each token runs its 2 experts' three GEMMs, the
# router 2 D E, attention 4 (S + 1) d per token per layer.  Tolerance 1%.
D=4096 L=32 F=14336 V=32000 DKV=1024 E=8 K=2 S=4096
P=$(calc "2*$V*$D + $D + $L*(2*$D*$D + 2*$D*$DKV + $D*$E + $E*3*$D*$F + 2*$D)")
published "mixtral_8x7b: parameters" "$P" 46700000000 50000000
for B in 1 64; do
  C=$(calc "2*($L*(2*$D*$D + 2*$D*$DKV + $D*$E + $K*3*$D*$F) + $D*$V)*$B + 4*$L*($S+1)*$D*$B")
  check_case "mixtral_8x7b_decode B=$B" "$P" "$C" 0.01 "$C" inference examples/mixtral_8x7b_decode.roof -D B=$B
done

# ---------------------------------------------------------------- ResNet-50
# He et al. 2016, table 1, as torchvision's resnet50 (v1.5): stem 7x7/2 64
# channels at 112x112; bottleneck stages (mid, out, blocks, stride) =
# (64, 256, 3, 1) (128, 512, 4, 2) (256, 1024, 6, 2) (512, 2048, 3, 2) from
# 56x56; projection shortcut in each first block; fc 2048 -> 1000.
# Batch norm: 2 parameters per channel (scale, shift).
# Published: 25.6M parameters (+/- 0.05M); 4.1 GMACs per image (torchvision
# "4.09 GFLOPS", which are MACs; +/- 0.05G), conv + fc.
# Tolerance 1%: the folded batch norm (2 FLOPs per element), ReLU, residual
# adds, max and average pooling (~0.5%).
resnet() {
  awk -v what="$1" 'BEGIN {
    p = 64*3*49 + 2*64; m = 64*112*112*3*49; cin = 64; h = 56
    split("64 128 256 512", mid); split("256 512 1024 2048", out)
    split("3 4 6 3", blocks); split("1 2 2 2", stride)
    for (s = 1; s <= 4; s++) {
      md = mid[s]; c = out[s]; ho = h / stride[s]
      p += md*cin + md*md*9 + c*md + c*cin + 2*(md + md + c + c)
      m += md*h*h*cin + md*ho*ho*md*9 + c*ho*ho*md + c*ho*ho*cin
      for (b = 2; b <= blocks[s]; b++) {
        p += md*c + md*md*9 + c*md + 2*(md + md + c)
        m += md*ho*ho*c + md*ho*ho*md*9 + c*ho*ho*md
      }
      cin = c; h = ho
    }
    p += 2048*1000 + 1000; m += 2048*1000
    printf "%.0f\n", what == "params" ? p : m }'
}
P=$(resnet params)
MACS=$(resnet macs)
published "resnet50: parameters" "$P" 25600000 50000
published "resnet50: multiply-accumulates per image" "$MACS" 4100000000 50000000
for B in 1 256; do
  C=$(calc "2*$MACS*$B")
  check_case "resnet50 B=$B" "$P" "$C" 0.01 "$C" inference examples/resnet50.roof -D B=$B
done

# ---------------------------------------------------------------- ViT-B/16
# Dosovitskiy et al. 2021, ViT-Base: L 12, d 768, MLP 3072, 12 heads; patch
# 16 -> 196 patches + class token = 197 tokens; head 1000 classes (timm).
# Published: 86.6M parameters (+/- 0.05M); 17.6 GMACs per image (DeiT
# table 1, fvcore: linear layers, the patch conv and the two attention
# matmuls; +/- 0.05G).
# Tolerance 1%: biases, LayerNorm, GELU, residual adds (~0.3%).
D=768 L=12 F=3072 T=197 N=196 PS=16 C=1000
P=$(calc "$D*3*$PS*$PS + $D + $D + $T*$D + $L*(12*$D*$D + 13*$D) + 2*$D + $D*$C + $C")
published "vit_b16: parameters" "$P" 86600000 50000
MACS=$(calc "$N*$D*3*$PS*$PS + $L*($T*12*$D*$D + 2*$T*$T*$D) + $D*$C")
published "vit_b16: multiply-accumulates per image" "$MACS" 17600000000 50000000
check_case vit_b16 "$P" "$(calc "2*$MACS")" 0.01 "$(calc "2*$MACS")" inference examples/vit_b16.roof

# ---------------------------------------------------------------- BERT-base
# Devlin et al. 2019; config: L 12, d 768, FFN 3072, V 30522, 512
# positions, 2 token types; embedding LayerNorm; pooler 768 -> 768.
# Published: "110M", two significant figures (+/- 5M; the exact count is
# 109,482,240).
# Forward at S 512, batch 1: 2N per token (N = 12 L d^2, the encoder's
# matmul weights; embeddings are lookups) + non-causal attention
# 4 n_layer n_ctx d_attn per token, + the pooler 2 d^2 on the [CLS] token.
# Tolerance 1%: biases, LayerNorm, GELU, residual adds (~0.3%).
D=768 L=12 V=30522 NPOS=512 NTYPE=2 B=1 S=512
P=$(calc "$V*$D + $NPOS*$D + $NTYPE*$D + 2*$D + $L*(12*$D*$D + 13*$D) + $D*$D + $D")
published "bert_base: parameters" "$P" 110000000 5000000
C=$(calc "2*$L*12*$D*$D*$B*$S + 4*$L*$S*$D*$B*$S + 2*$D*$D*$B")
check_case bert_base "$P" "$C" 0.01 "$C" inference examples/bert_base.roof

# ------------------------------------------------ TinyLlama (dtype plan files)
# Zhang et al. 2024; config: L 22, d 2048, 32 heads of 64, 4 KV heads
# (k/v width 256), F 5632, V 32000.  Published: 1.1B (+/- 0.05B).
# Evaluation forward of S 2048 tokens with the head on every token.
# Tolerance 1% (norms, rotary, SwiGLU elementwise, the vocabulary softmax).
D=2048 L=22 F=5632 V=32000 DKV=256 B=1 S=2048
P=$(calc "2*$V*$D + $D + $L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F + 2*$D)")
published "tinyllama: parameters" "$P" 1100000000 50000000
C=$(calc "2*($L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F) + $D*$V)*$B*$S + 2*$L*$S*$D*$B*$S")
check_case dtype_plan_review "$P" "$C" 0.01 "$C" inference examples/dtype_plan_review.roof
check_case dtype_plan_fp8 "$P" "$C" 0.01 "$C" inference examples/dtype_plan_fp8.roof

# ------------------------------------------- Llama-3-8B training (issue 19)
# Meta 2024; config: L 32, d 4096, 32 heads of 128, 8 KV heads (k/v width
# 1024), F 14336, V 128256, untied head.  Published: 8.03B (+/- 0.005B).
# One train step of S 8192 tokens per data rank; the head on every token;
# causal attention.  R-PAR-002: with tensor = T each GPU holds 1/T of the
# sharded weights and runs 1/T of every contraction, and the parameter
# count is still the whole model's: the same P at T = 1 and T = 8.
D=4096 L=32 F=14336 V=128256 DKV=1024 B=1 S=8192
P=$(calc "2*$V*$D + $D + $L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F + 2*$D)")
published "llama3_8b: parameters" "$P" 8030000000 5000000
C=$(calc "2*($L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F) + $D*$V)*$B*$S + 2*$L*$S*$D*$B*$S")
check_case llama3_8b_train "$P" "$C" 0.01 "$C" train examples/llama3_8b_train.roof
C8=$(calc "$C / 8")
check_case llama3_8b_train_tp8 "$P" "$C8" 0.01 "$C8" train examples/llama3_8b_train.roof -D T=8 -D ZERO=0

# ------------------------------------------ the issue-18 forms (bias=, views)
# GPT-2 small again, inference, B 1 x S 1024, c_attn one [768, 2304] GEMM
# with bias split into q, k, v.  Parameters as above.  One layer by hand:
# c_attn 2*1024*768*2304 + 1024*2304 (bias) = 3,626,237,952 FLOPs; causal
# attention 4*12*1024^2*64 / 2 = 1,610,612,736.  The contractions add each
# GEMM's bias, S x (3d + d + 4d + d) = 9 d per token per layer, to Kaplan's
# count (which has none): 272,320,954,368 + 84,934,656.
D=768 L=12 V=50257 S=1024
C=$(calc "2*($L*12*$D*$D + $V*$D)*$S + 2*$L*$S*$D*$S")
check_case gpt2_small_split "$P_GPT2" "$C" 0.01 "$(calc "$C + $L*$S*9*$D")" inference \
  examples/gpt2_small_split.roof

# Llama-3-8B (Meta 2024; config: L 32, d 4096, 32 heads, 8 KV heads of 128,
# F 14336, V 128256, untied), prefill of S 2048 with rope, the head on the
# last position (select).  Published: 8.03B (+/- 0.005B).  One layer: the
# q/k/v GEMM 2*2048*4096*6144 = 103,079,215,104 FLOPs; causal GQA attention
# 4*32*2048^2*128 / 2 = 34,359,738,368.
D=4096 L=32 F=14336 V=128256 DKV=1024 S=2048
P=$(calc "2*$V*$D + $D + $L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F + 2*$D)")
published "llama3_8b: parameters" "$P" 8030000000 5000000
C=$(calc "2*$L*(2*$D*$D + 2*$D*$DKV + 3*$D*$F)*$S + 2*$L*$S*$D*$S + 2*$D*$V")
check_case llama3_8b_rope "$P" "$C" 0.01 "$C" inference examples/llama3_8b_rope.roof

# ViT-L/16 (Dosovitskiy et al. 2021; timm vit_large_patch16_224: L 24,
# d 1024, MLP 4096, 16 heads, 197 tokens, 1000 classes), batch 8, the class
# token expanded and selected.  Published: 304.33M (timm, +/- 0.005M);
# 61.6 GMACs per image (+/- 0.05G).  One layer, one image: qkv
# 2*197*1024*3072 + 197*3072 = 1,240,023,040 FLOPs; attention
# 4*16*197^2*64 = 158,961,664.  Biases: N d (patch conv) + L T (3d + d +
# 4d + d) + C per image.
D=1024 L=24 F=4096 T=197 N=196 PS=16 C=1000 B=8
P=$(calc "$D*3*$PS*$PS + $D + $D + $T*$D + $L*(12*$D*$D + 13*$D) + 2*$D + $D*$C + $C")
published "vit_l16: parameters" "$P" 304330000 5000
MACS=$(calc "$N*$D*3*$PS*$PS + $L*($T*12*$D*$D + 2*$T*$T*$D) + $D*$C")
published "vit_l16: multiply-accumulates per image" "$MACS" 61600000000 50000000
CB=$(calc "2*$MACS*$B + $B*($N*$D + $L*$T*($D*3 + $D + $F + $D) + $C)")
check_case vit_l16_cls "$P" "$(calc "2*$MACS*$B")" 0.01 "$CB" inference examples/vit_l16_cls.roof

# Whisper small's encoder (Radford et al. 2022; whisper/model.py: n_mels 80,
# 3000 frames, conv1 80 -> 768 k3, conv2 768 -> 768 k3 stride 2, 1500
# positions, 12 layers of d 768, MLP 3072, key without bias, sinusoidal
# positions a buffer).  Parameters: 87,002,112 (conv1 185,088, conv2
# 1,770,240, 12 x (12 d^2 + 12 d) = 12 x 7,087,104, ln_post 1,536; no
# published encoder-only count to round to).  Front end by hand: conv1
# 2*80*3*768*3000 + 768*3000 = 1,108,224,000 FLOPs; conv2
# 2*768*3*768*1500 + 768*1500 = 5,309,568,000.  One layer: the GEMMs
# 2*12*768^2*1500 = 21,233,664,000; attention 4*1500^2*768 = 6,912,000,000.
# Formula: the convolutions' MACs x 2 + Kaplan's 2N per position + the
# non-causal 4 n_layer n_ctx d per position; the biases count in the
# contractions only.
D=768 L=12 F=3072 T=1500 M=80 FR=3000
P=$(calc "$D*$M*3 + $D + $D*$D*3 + $D + $L*(12*$D*$D + 12*$D) + 2*$D")
C=$(calc "2*$M*3*$D*$FR + 2*$D*3*$D*$T + 2*$L*12*$D*$D*$T + 4*$L*$T*$T*$D")
CB=$(calc "$C + $D*$FR + $D*$T + $L*$T*(4*$D + $F)")
check_case whisper_small_encoder "$P" "$C" 0.01 "$CB" inference examples/whisper_small_encoder.roof

# Stable Diffusion v1.5's UNet blocks at 320 channels (diffusers
# ResnetBlock2D, Downsample2D, Upsample2D; config: norm_num_groups 32, time
# embedding 1280): 64 -> 32 -> 16 and back, up by a 4x4 stride-2
# transposed conv and by nearest x2 + 3x3 conv, skips concatenated.
# Parameters by hand: a ResnetBlock2D C -> C' has 2C (GroupNorm) + 9 C C' +
# C' (conv1) + 1280 C' + C' (time projection) + 2 C' + 9 C'^2 + C' (conv2)
# (+ C C' + C' for the 1x1 shortcut when C != C'): 2,255,040 at 320 -> 320
# (diffusers' down_blocks.0.resnets.0), 3,382,400 at 640 -> 320; the
# samplers 9 C^2 + C = 921,920 each and the transposed conv 16 C^2 + C =
# 1,638,720: 17,934,400 in all.  The convolutions by hand, each 2 x MACs +
# its output elements (bias): r1's first conv at 64 x 64 is
# 2*64^2*320*320*9 + 64^2*320 = 7,551,057,920; the transposed conv
# 2*16^2*320*320*16 (each input position into C' k^2 outputs) + 32^2*320.
# Formula: 2 x MACs of every conv and the time projections; the GroupNorms,
# SiLUs and adds are the 0.2% over it.
unet() {
  awk -v what="$1" 'BEGIN {
    C = 320; TE = 1280
    split("64 32 16 32 64", hw); split("1 1 1 2 2", k)
    p = 0; f = 0; b = 0
    for (i = 1; i <= 5; i++) {
      ci = k[i] * C; co = C; s = hw[i] * hw[i]
      p += 2*ci + 9*co*ci + co + TE*co + co + 2*co + 9*co*co + co
      f += 2*s*co*ci*9 + 2*TE*co + 2*s*co*co*9
      b += s*co + co + s*co
      if (ci != co) { p += co*ci + co; f += 2*s*co*ci; b += s*co }
    }
    p += 2*(9*C*C + C) + 16*C*C + C + 9*C*C + C
    f += 2*32*32*C*C*9 + 2*16*16*C*C*9 + 2*16*16*C*C*16 + 2*64*64*C*C*9
    b += 32*32*C + 16*16*C + 32*32*C + 64*64*C
    printf "%.0f\n", what == "params" ? p : what == "flops" ? f : f + b }'
}
check_case unet_sd15_level "$(unet params)" "$(unet flops)" 0.01 "$(unet bias)" inference examples/unet_sd15_level.roof

# ------------------------------------------ GPT-3 175B, pipelined (issue 19)
# Brown et al. 2020, table 2.1: L 96, d 12288, 96 heads, d_ff 4d, n_ctx
# 2048; vocabulary padded to 51200 (Megatron-LM); tied head; biases and
# LayerNorms (13 d per layer).  Published: 175B (+/- 0.5B).  One microbatch
# (B 1 x S 2048) through all 96 layers on one GPU of the tensor group
# (T 8): every contraction is 1/8 of the model's, the QKV and fc biases
# add their output elements (R-COST-020).  Attention is written out as
# Korthikanti et al. 2022 write it, QK^T and the product by V each
# 2 S^2 d over the whole S x S (the causal mask is applied, not skipped),
# and recomputed once more in backward (selective recomputation,
# R-PAR-014): R = 4 L S^2 d / T more FLOPs a step, a third of it added to
# the forward so that 3 x the forward is the step's.
D=12288 L=96 V=51200 S=2048 T=8
P=$(calc "$L*(12*$D*$D + 13*$D) + $V*$D + $S*$D + 2*$D")
published "gpt3_175b: parameters" "$P" 175000000000 500000000
C=$(calc "(2*$L*12*$D*$D*$S + 4*$L*$S*$S*$D + 2*$S*$D*$V + $L*$S*(3*$D + 4*$D)) / $T + 4*$L*$S*$S*$D / $T / 3")
check_case gpt3_175b_pipeline "$P" "$C" 0.01 "$C" train examples/gpt3_175b_pipeline.roof

if [ "$failures" -gt 0 ]; then
  echo "crosscheck: $failures mismatches in $cases models" >&2
  exit 1
fi
echo "crosscheck: $cases models match their published figures"
exit 0
