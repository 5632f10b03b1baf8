#!/bin/sh
# SPDX-License-Identifier: MIT
# moe_kv.sh: Mixtral-8x7B decode (examples/mixtral_8x7b_decode.roof) at
# batch 1 and 64: the parameter counts, the experts' weight bytes, the KV
# cache and its appends, and the largest batch that fits (issue 19 items
# 7 and 8), every figure computed by hand below.
#
#   R-MOE-005 parameters: embed and lm_head 2 x 32000*4096 = 262,144,000;
#     the final norm 4096; per layer attention 2*4096^2 + 2*4096*1024 =
#     41,943,040, two norms 8192, the router 4096*8 = 32,768 and one
#     expert 3*4096*14336 = 176,160,768.  All: 262,148,096 + 32 *
#     (41,943,040 + 8192 + 32,768 + 8 * 176,160,768) = 46,702,792,704;
#     active (2 of 8 experts):
#     262,148,096 + 32 * (41,943,040 + 8192 + 32,768 + 2 * 176,160,768)
#     = 12,879,925,248.
#   R-MOE-002/003 the down projection y = matmul(g, w2) in the experts
#     block, per layer: at B = 1 each token runs 2 experts: 2 * 2*1*14336
#     *4096 = 234,881,024 FLOPs; bytes: g (28,672) and y (8,192) twice,
#     73,728, plus w2 (117,440,512) for each of the 8*(1 - 6/8) = 2
#     experts touched: 234,954,752.  At B = 64: 15,032,385,536 FLOPs;
#     (64*14336*2 + 64*4096*2)*2 = 4,718,592 plus 117,440,512 * 8*(1 -
#     0.75^64) (7.99999992 experts).
#   R-CACHE-001/002 the KV cache: 32 layers x 2 caches x B*8*4097*128*2 =
#     537,001,984 bytes at B = 1; an append writes one token's 8*128
#     entries: 2048 bytes read and 2048 written, 4096.
#   R-CACHE-003 fits on an H200 SXM (141 GiB = 151,397,597,184 bytes):
#     weights 2 x 46,702,792,704 = 93,405,585,408; per sequence the KV
#     cache 537,001,984 and activations 180,244 (the peak, in the experts
#     block at `g = mul(g, u)`: g, u and the product for 2 tokens, 3 x
#     57,344, the residual x 8192, the outputs idx 16 and gates 4):
#     (151,397,597,184 - 93,405,585,408) / 537,182,228 = 107.96, so
#     B = 107 fits and 108 does not.
#
#   BUILD=build sh tests/cli/moe_kv.sh        exit 0 pass, 1 mismatch

BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
EX=examples/mixtral_8x7b_decode.roof
failures=0

fail() {
  echo "moe_kv: $*" >&2
  failures=$((failures + 1))
}

# json ARGS...: the document of one run, one key per line
json() { "$ROOFLINT" --format json -w "$@" $EX 2>/dev/null; }

# summary KEY ARGS...: summary.KEY of the first model
summary() {
  key=$1
  shift
  json "$@" | awk -v k="\"$key\":" '
    /"summary": \{/ { s = 1 }
    s && $1 == k { v = $2; sub(/,$/, "", v); print v; exit }'
}

# node NAME KEY ARGS...: KEY ("flops", "bytes") of the first node NAME
node() {
  name=$1 key=$2
  shift 2
  json "$@" | awk -v n="\"name\": \"$name\"," -v k="\"$key\":" '
    /"nodes": \[/ { in_nodes = 1 }
    in_nodes && index($0, n) { hit = 1 }
    hit && $1 == k { v = $2; sub(/,$/, "", v); print v; exit }'
}

# near GOT WANT WHAT: equal to 1e-12 relative (a sum of doubles)
near() {
  awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d;
    exit !(d <= 1e-12 * w) }' || fail "$3: $1, expected $2"
}

exact() { [ "$1" = "$2" ] || fail "$3: $1, expected $2"; }

exact "$(summary params)" 46702792704 "params"
exact "$(summary active_params)" 12879925248 "active_params"
exact "$(node y flops)" 234881024 "y FLOPs at B = 1"
exact "$(node y bytes)" 234954752 "y bytes at B = 1"
exact "$(node y flops -D B=64)" 15032385536 "y FLOPs at B = 64"
near "$(node y bytes -D B=64)" \
  "$(awk 'BEGIN { printf "%.17g", 4718592 + 117440512 * 8 * (1 - exp(64 * log(0.75))) }')" \
  "y bytes at B = 64"
exact "$(summary kv_cache)" 537001984 "KV cache at B = 1"
exact "$(node k_all bytes)" 4096 "append bytes"
exact "$(summary activations)" 180244 "activations at B = 1"

# the remark, in the issue's words, and its figure
out=$("$ROOFLINT" -Wno-memory-bound -Wno-overhead-bound $EX 2>&1)
echo "$out" | grep -q "remark: model 'mixtral_8x7b_decode' fits up to B = 107 at S = 4096 on H200 SXM (needs 93.9 GB of 151.4 GB at B = 1) \[-Wcapacity\]" ||
  fail "no fits-up-to remark: $out"
exact "$("$ROOFLINT" --format json -D B=107 -w $EX 2>/dev/null | awk '/"total":/ { v = $2 } END { sub(/,$/, "", v); print v }')" \
  150884083804 "footprint at B = 107"
# at B = 200 it does not fit: the capacity error says how far it would
out=$("$ROOFLINT" -D B=200 -Wno-memory-bound -Wno-overhead-bound $EX 2>&1)
echo "$out" | grep -q "note: fits up to B = 107 at S = 4096 on H200 SXM" ||
  fail "no fits-up-to note at B = 200: $out"
# and on an 80 GB H100 not even one sequence fits
out=$("$ROOFLINT" -t h100_sxm -Wno-memory-bound -Wno-overhead-bound $EX 2>&1)
echo "$out" | grep -q "note: does not fit on H100 SXM even at B = 1, S = 4096" ||
  fail "no does-not-fit note on H100: $out"

# Expert parallelism, -D EP=8 (8 H200 of one node, data = expert = 8),
# R-MOE-003 and R-MOE-006.  Per GPU: the 1,605,636,096 parameters outside
# the experts (embed, head, norms, attention, routers) and 32 x 1 expert
# x 176,160,768 = 5,637,144,576: 7,242,780,672 x 2 = 14,485,561,344 bytes
# of weights.  The expert group routes 8 x B tokens, so at B = 1 the GPU's
# one expert is touched with probability 1 - 0.75^8 = 1 - 6561/65536: the
# down projection reads 73,728 + 117,440,512 - 1792 x 6561 = 105,756,928
# bytes.  Dispatch and combine per layer: B x K x D bf16 = 1 x 2 x 4096 x 2
# = 16,384 bytes, 7/8 of it (14,336) on NVLink, 14,336 / 450e9 = 31.86 ns;
# 2 x 32 of them: 2 x 32 x 14,336 / 450e9 = 2.0389 us.  At B = 64: 1,048,576
# bytes, 917,504 on NVLink, 2.039 us each, 130.5 us a step.  It fits up to
# (151,397,597,184 - 14,485,561,344) / 537,182,228 = 254.87, B = 254.
exact "$(summary weights -D EP=8)" 14485561344 "weights per GPU at EP = 8"
exact "$(node y bytes -D EP=8)" 105756928 "y bytes at EP = 8, B = 1"
near "$(summary collective_time_s -D EP=8)" \
  "$(awk 'BEGIN { printf "%.17g", 2 * 32 * 14336 / 450e9 }')" "all-to-alls at B = 1"
near "$(summary collective_time_s -D EP=8 -D B=64)" \
  "$(awk 'BEGIN { printf "%.17g", 2 * 32 * 917504 / 450e9 }')" "all-to-alls at B = 64"
out=$("$ROOFLINT" --format json -w -D EP=8 -D B=64 $EX 2>/dev/null)
echo "$out" | grep -q '"what": "combine",' &&
  echo "$out" | grep -q '"buffer_bytes": 1048576,' &&
  echo "$out" | grep -q '"nvlink_bytes": 917504,' ||
  fail "no combine all-to-all of 1048576 bytes at EP = 8, B = 64"
out=$("$ROOFLINT" -D EP=8 -Wno-memory-bound -Wno-overhead-bound $EX 2>&1)
echo "$out" | grep -q "remark: model 'mixtral_8x7b_decode' fits up to B = 254 at S = 4096 on H200 SXM (needs 15.0 GB of 151.4 GB at B = 1)" ||
  fail "EP = 8 fits-up-to: $out"
# R-CHK-032: EP sizes the GPU count, so no crossover is proposed for it
out=$("$ROOFLINT" -D B=64 -D EP=8 $EX 2>&1)
echo "$out" | grep -q "compute roof at EP" && fail "a crossover for EP: $out"

# Llama-2-70B decode (examples/llama2_70b_decode.roof), R-CACHE-003: bf16
# weights 2 x 68,976,648,192 = 137,953,296,384; per sequence the KV cache,
# 80 x 2 x 8*2048*128*2 = 671,088,640, and activations 188,416 (the peak at
# `g = mul(g, u)`: three [1, 28672] bf16 values, 3 x 57,344, and the
# residual x [1, 8192], 16,384).  A B200 (180 GiB = 193,273,528,320):
# 55,320,231,936 / 671,277,056 = 82.4, so B = 82.
L70=examples/llama2_70b_decode.roof
exact "$("$ROOFLINT" --format json -w $L70 2>/dev/null | awk '/"kv_cache":/ { v = $2 } END { sub(/,$/, "", v); print v }')" \
  671088640 "Llama-2-70B KV cache"
out=$("$ROOFLINT" -t b200 -Wno-memory-bound -Wno-overhead-bound $L70 2>&1)
echo "$out" | grep -q "remark: model 'llama2_70b_decode' fits up to B = 82 at T = 2048 on B200 (needs 138.6 GB of 193.3 GB at B = 1)" ||
  fail "Llama-2-70B on B200: $out"

# Llama-2-70B served with TP 8 (examples/llama2_70b_serve_tp8.roof),
# R-PAR-002, R-PAR-003, R-CACHE-003: the 68,976,648,192 parameters less the
# 1,318,912 of the replicated norms (80 x 2 x 8192 + 8192) are 1/8 per GPU:
# 2 x (68,975,329,280 / 8 + 1,318,912) = 17,246,470,144 bytes of weights.
# The cache per GPU holds 1 of the 8 k/v heads: 80 x 2 x B x 1 x 2048 x 128
# x 2 = 83,886,080 bytes a sequence; activations 72,000 a sequence (the
# peak at the head: its 4000 logits, 8,000 bytes, and the 32000 gathered,
# 64,000).  On an H100 SXM (80 GiB = 85,899,345,920):
# 68,652,875,776 / 83,958,080 = 817.7, so B = 817 (85,840,221,504 bytes).
# Collectives: 1 + 2 x 80 all-reduces of 16,384 bytes, 2 x 7/8 x 16,384 =
# 28,672 on NVLink each, and the logits' all-gather of 64,000, 56,000:
# (161 x 28,672 + 56,000) / 450e9 = 10.38 us.
TP8=examples/llama2_70b_serve_tp8.roof
exact "$("$ROOFLINT" --format json -w $TP8 2>/dev/null | awk '/"weights":/ { v = $2 } END { sub(/,$/, "", v); print v }')" \
  17246470144 "Llama-2-70B TP 8 weights per GPU"
exact "$("$ROOFLINT" --format json -w $TP8 2>/dev/null | awk '/"kv_cache":/ { v = $2 } END { sub(/,$/, "", v); print v }')" \
  83886080 "Llama-2-70B TP 8 KV cache per GPU"
exact "$("$ROOFLINT" --format json -w -D B=817 $TP8 2>/dev/null | awk '/"total":/ { v = $2 } END { sub(/,$/, "", v); print v }')" \
  85840221504 "Llama-2-70B TP 8 footprint at B = 817"
near "$("$ROOFLINT" --format json -w $TP8 2>/dev/null | awk '/"collective_time_s":/ { v = $2 } END { sub(/,$/, "", v); print v }')" \
  "$(awk 'BEGIN { printf "%.17g", (161 * 28672 + 56000) / 450e9 }')" "Llama-2-70B TP 8 collectives"
out=$("$ROOFLINT" -Wno-memory-bound -Wno-overhead-bound $TP8 2>&1)
echo "$out" | grep -q "remark: model 'llama2_70b_serve_tp8' fits up to B = 817 at T = 2048 on H100 SXM (needs 17.3 GB of 85.9 GB at B = 1)" ||
  fail "Llama-2-70B TP 8 fits-up-to: $out"

# --plan: the KV cache has its column, and the rows add up (R-PLAN-002):
# bf16 holds everything but the int64 router indices (2 x 8 bytes)
out=$("$ROOFLINT" --plan -w $EX 2>/dev/null)
echo "$out" | grep -q "^  dtype  parameters  weights  activations  KV cache    total$" &&
  echo "$out" | grep -q "^  bf16       46.7 G  93.4 GB     180.2 KB  537.0 MB  93.9 GB$" &&
  echo "$out" | grep -q "^  int64           0      0 B         16 B       0 B     16 B$" ||
  fail "--plan footprint: $out"

[ "$failures" -eq 0 ] && echo "moe_kv: all figures match"
[ "$failures" -eq 0 ]
