#!/bin/sh
# hf_ssm.sh: the selective scan (R-OP-008), the Mamba family of
# specs/hf.md (R-FAM-201 .. R-FAM-203) and Llama 4 (R-FAM-204, R-FAM-205),
# from their published configs in tests/hf/families/ (mamba_130m.json,
# llama4_scout.json; hf_families.sh lints every phase of each).
. tests/cli/driver_lib.inc
HF=tests/hf/families
. tests/cli/hf_lib.inc

# --- the op (R-OP-008): bf16 x and delta [2, 64, 128], B and C [2, 64, 16],
# fp32 A [128, 16] and D [128].  FLOPs: B.L.D = 2 x 64 x 128 = 16,384
# channel-steps, each 8 x 16 on the state and 2 for the skip:
# 16,384 x 130 = 2,129,920.  Bytes: x, delta and y (in x's dtype)
# 3 x 32,768, A 8,192, B and C 2 x 4,096, D 512: 115,200 (no [.., N] state
# leaves the chip).
cat >"$T/scan.roof" <<'ROOF'
model scan {
  dtype bf16
  input x, dt : [2, 64, 128]
  input b, c : [2, 64, 16]
  weight a : fp32[128, 16]
  weight d : fp32[128]
  y = selective_scan(x, dt, a, b, c, d)
  output y
}
ROOF
run -w --format json "$T/scan.roof"
expect_status 0
expect_eq "scan flops:bytes" "$(json_field "$T/out" \
  "'%d:%d' % tuple(d['models'][0]['kernels'][0][f] for f in ('flops', 'bytes'))")" "2129920:115200"
# without D: 16,384 x 128 = 2,097,152 FLOPs, 114,688 B
sed 's/, a, b, c, d)/, a, b, c)/' "$T/scan.roof" >"$T/scan5.roof"
run -w --format json "$T/scan5.roof"
expect_eq "scan without D" "$(json_field "$T/out" \
  "'%d:%d' % tuple(d['models'][0]['kernels'][0][f] for f in ('flops', 'bytes'))")" "2097152:114688"
# in train mode 3x (forward, and a backward that recomputes the states),
# saving its operands
sed 's/  dtype bf16/  dtype bf16\n  mode train/' "$T/scan.roof" >"$T/scan_train.roof"
run -w --format json "$T/scan_train.roof"
expect_eq "scan train flops" "$(json_field "$T/out" "d['models'][0]['kernels'][0]['flops']")" 6389760
# a recurrent state operand, a cache [batch, D, N], is read and written
# back: 2 x 2 x 128 x 16 x 2 B = 16,384 B more
cat >"$T/step.roof" <<'ROOF'
model step {
  dtype bf16
  input x, dt : [2, 1, 128]
  input b, c : [2, 1, 16]
  weight a, d2 : [128, 16]
  weight d : [128]
  cache h : [2, 128, 16]
  y = selective_scan(x, dt, a, b, c, d, h)
  output y
}
ROOF
run -w --format json "$T/step.roof"
expect_status 0
# 256 channel-steps x 130 = 33,280 FLOPs; x, dt, y 3 x 512, a 4,096, b, c
# 2 x 64, d 256, h 8,192 read and 8,192 written: 22,400 B
expect_eq "scan step flops:bytes" "$(json_field "$T/out" \
  "'%d:%d' % tuple(d['models'][0]['kernels'][0][f] for f in ('flops', 'bytes'))")" "33280:22400"
# C of the wrong shape is an error at the operand
sed 's/selective_scan(x, dt, a, b, c, d, h)/selective_scan(x, dt, a, c, d2, d, h)/' "$T/step.roof" >"$T/bad.roof"
run "$T/bad.roof"
expect_status 1
expect_grep "$T/err" "bad.roof:8:35: error: selective_scan C must be [2, 1, 16], got bf16[128, 16]"

# --- Mamba-130m (R-FAM-201): d_model 768, d_inner 1536, N 16, conv 4,
# dt_rank 48, 24 layers, vocabulary 50280, fp32.  A layer:
#   in_proj 768 x 3072 = 2,359,296; conv1d 1536 x 4 + 1536 = 7,680;
#   x_proj 1536 x 80 = 122,880; dt_proj 48 x 1536 + 1536 = 75,264;
#   A_log 1536 x 16 = 24,576; D 1,536; out_proj 1536 x 768 = 1,179,648;
#   norm 768: 3,771,648
# 24 x 3,771,648 + 50280 x 768 (tied) + 768 = 129,135,360 (the issue's)
for phase in prefill decode train; do
  run -w --format json --phase "$phase" "$HF/mamba_130m.json"
  expect_status 0
  expect_eq "mamba $phase params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 129135360
done

# one layer by hand at -D seq=1 (fp32, 4 B an element; a fused region
# reads a view's whole storage):
#   h, rmsnorm 4 x 768 = 3,072; 3 x 3,072 = 9,216 B
#   xz 2 x 768 x 3072 = 4,718,592; 3,072 + 9,437,184 + 12,288 = 9,452,544 B
#   conv, padded by 3 (4 outputs of 4 taps): 2 x 1536 x 16 = 49,152 + bias
#     4 x 1536 + silu 5 x 1536 = 62,976; xz 12,288 + 24,576 + 6,144 + the
#     kept output 6,144 = 49,152 B
#   p 2 x 1536 x 80 = 245,760; 6,144 + 491,520 + 320 = 497,984 B
#   dt 2 x 48 x 1536 = 147,456; 192 + 294,912 + 6,144 = 301,248 B
#   scan: the op 1536 x 130 = 199,680, -exp(A_log) 2 x 24,576, softplus of
#     dt + bias 4 x 1536, silu(z) 5 x 1536, the gate 1536: 264,192; A_log
#     98,304, dt, its bias, xc, D, y 5 x 6,144, p 320, xz 12,288 = 141,632 B
#   out_proj 2 x 1536 x 768 + the residual 768 = 2,360,064; 6,144
#     + 4,718,592 + 2 x 3,072 = 4,730,880 B
hand_layer mamba_130m 24 h:3072:9216 xz:4718592:9452544 conv:62976:49152 \
  p:245760:497984 dt:147456:301248 scan:264192:141632 out_proj:2360064:4730880
hand_total 24 7802112:15182656

# --- decode (R-FAM-202): a layer's state is the scan's 1536 x 16 and the
# conv's 1536 x 4 (3 cached and the step's), fp32: 98,304 + 24,576 =
# 122,880 B, 24 layers 2,949,120 B a sequence, whatever the context.  The
# scan reads its state and writes it back: 141,632 + 2 x 98,304 = 338,240 B
run -w --format json --phase decode "$HF/mamba_130m.json"
expect_status 0
expect_eq "mamba state" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 2949120
expect_eq "mamba decode scan" "$(json_field "$T/out" \
  "[k['bytes'] for k in d['models'][0]['kernels'] if k['name'] == 'scan'][0]")" 338240
# the scan's state is written back every step: no part of the cache is
# read only (R-FAM-105 counts the caches nothing appends to or updates)
expect_eq "mamba read-only cache" "$(json_field "$T/out" \
  "d['models'][0]['summary']['footprint'].get('kv_cache_read_only', 0)")" 0
# the largest batch: at 27077 the footprint is 516,541,440 weights
# + 27077 x 204,192 activations + 27077 x 2,949,120 = 85,898,770,464 B
# <= 80 GiB (85,899,345,920); at 27078 it is 85,901,923,776
expect_eq "mamba max batch" "$(json_field "$T/out" "d['models'][0]['serving']['max_batch']")" 27077
run -w --format json --phase decode -D batch=27077 "$HF/mamba_130m.json"
expect_eq "mamba at 27077" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['total'])")" 85898770464
run -w --format json --phase decode -D batch=27078 "$HF/mamba_130m.json"
expect_eq "mamba at 27078" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['total'])")" 85901923776
# in the plan dtype, as MambaCache allocates it: a bf16 checkpoint's state
# is half, 24 x 1536 x (16 + 4) x 2 B = 1,474,560 B
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['torch_dtype']='bfloat16'; json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/mamba_130m.json" "$T/m16.json"
run -w --format json --phase decode "$T/m16.json"
expect_status 0
expect_eq "mamba bf16 state" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 1474560
# the footprint names the caches by what they hold: no keys or values,
# the scan's state and the conv window, "SSM state" (R-FAM-202), in
# --report, --plan and capacity's message; one figure, JSON's kv_cache
run -w --report --phase decode "$HF/mamba_130m.json"
expect_grep "$T/out" "  SSM state       2.95 MB    0.0%"
expect_no_grep "$T/out" "KV cache"
run -w --format html --phase decode "$HF/mamba_130m.json"
expect_grep "$T/out" '["activations",224576,"224.6 KB"],["SSM state",2949120,"2.95 MB"]]'
run -w --plan --phase decode "$HF/mamba_130m.json"
expect_grep "$T/out" "  dtype  parameters   weights  activations  SSM state     total"
expect_grep "$T/out" "  fp32      129.1 M  516.5 MB     224.6 KB    2.95 MB  519.7 MB"
# 40000 sequences: 40000 x 2,949,120 = 117,964,800,000 B = 118.0 GB
run --phase decode -D batch=40000 "$HF/mamba_130m.json"
expect_grep "$T/err" "error: model 'mamba_130m' needs 126.6 GB but H100 SXM has 80 GiB = 85.9 GB: weights 516.5 MB, activations 8.17 GB, SSM state 118.0 GB [-Wcapacity]"
# a hybrid (tests/golden/plan/hybrid_state.roof): the caches attention
# reads are keys and values, 4,198,400 B; the scan's state 32,768 B
run -w --report tests/golden/plan/hybrid_state.roof
expect_grep "$T/out" "  KV cache        4.20 MB    0.0%"
expect_grep "$T/out" "  SSM state       32.8 KB    0.0%"
# no context: -D ctx names no let of a Mamba step
run --phase decode -D ctx=65536 "$HF/mamba_130m.json"
expect_status 2
expect_err "rooflint: error: -D ctx=65536: no let named 'ctx' in any file"
expect_grep "$HF/mamba_130m-decode.roof" "    cache ssm_state : [batch, intermediate_size, state_size]  # the scan's state: a constant size, whatever the context"
expect_grep "$HF/mamba_130m-decode.roof" "      y = selective_scan(xc, dt, A, B, C, D, ssm_state)  # [batch, seq, intermediate_size]"
# README shows the decode summary as printed
run -w --phase decode "$HF/mamba_130m.json"
while IFS= read -r l; do expect_grep README.md "$l"; done <"$T/out"
# not tensor-parallel
run -D tensor=2 "$HF/mamba_130m.json"
expect_status 1
expect_err "rooflint: error: $HF/mamba_130m.json:18:3: -D tensor: a mamba model is not written tensor-parallel (its scan's state is not split across GPUs here)"

# --- mamba2 stays refused (R-FAM-203)
printf '{\n  "model_type": "mamba2",\n  "hidden_size": 768\n}\n' >"$T/m2.json"
run "$T/m2.json"
expect_status 1
expect_grep "$T/err" "m2.json:2:3: model_type 'mamba2' is a family rooflint does not import: selective state-space v2, not modelled (rooflint imports"

# --- Llama-4-Scout-17B-16E's language model (R-FAM-204): H 5120, 40 heads
# and 8 KV heads of 128, 16 experts of 8192 (top 1) and a shared one of
# 8192 in every layer (interleave_moe_layer_step 1), L 48, V 202048, untied.
# A layer: q and o 2 x 5120 x 5120, k and v 2 x 5120 x 1024 = 62,914,560;
# the router 5120 x 16 = 81,920; the experts 16 x 3 x 5120 x 8192
# = 2,013,265,920; the shared expert 3 x 5120 x 8192 = 125,829,120; two
# norms 10,240 (the q/k L2 norm has no weight): 2,202,101,760.
# 48 x 2,202,101,760 + 2 x 202048 x 5120 + 5120 = 107,769,861,120.
# Active, 1 of 16 experts: 48 x 314,664,960 + 2,068,976,640
# = 17,172,894,720 (the published 17 B, which counts the embedding and
# the head; the published 109 B total adds the vision tower and projector,
# not written)
run -w -Wno-capacity --format json "$HF/llama4_scout.json"
expect_status 0
expect_eq "scout params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 107769861120
expect_eq "scout active" "$(json_field "$T/out" "d['models'][0]['summary']['active_params']")" 17172894720
# one rotary layer at -D seq=1 (bf16), 36 of the 48:
#   qkv 2 x 5120 x 7168 = 73,400,320; 2 x (5120 + 36,700,160 + 7168)
#     = 73,424,896 B
#   rope on q 3 x 5120 = 15,360; 2 x (5120 + 2 x 128 + 5120) = 20,992 B
#   the L2 norm of q 4 x 5120 = 20,480; 10,240 + 256 (the unit) + 10,240
#     = 20,736 B
#   the attention, one query and key: 2 x 40 x 1/2 x 256 = 10,240;
#     2 x (5120 + 1024 + 1024 + 5120) = 24,576 B
#   the router 2 x 5120 x 16 = 163,840; 2 x (5120 + 81,920 + 16) = 174,112 B
#   one expert's gate and up 2 x 2 x 5120 x 8192 = 167,772,160;
#     2 x (5120 + 2 x 41,943,040 + 2 x 8192) = 167,815,168 B
#   its down 2 x 8192 x 5120 = 83,886,080; 2 x (8192 + 41,943,040 + 5120)
#     = 83,912,704 B (the shared expert's the same)
#   the layer, its 20 kernels: 629,517,332 FLOPs over 629,810,766 B
hand_layer llama4_scout 36 qkv:73400320:73424896 q:15360:20992 \
  a:10240:24576 router_logits:163840:174112 \
  expert_gate_up:167772160:167815168 expert_down:83886080:83912704 \
  shared_down:83886080:83912704
hand_total 36 629517332:629810766
# a NoPE layer (12 of 48): no rope, no q/k norm; its q times the
# temperature, 5120 FLOPs over 2 x 5120 x 2 + 2 = 20,482 B
hand_layer llama4_scout 12 q:5120:20482
expect_grep "$HF/llama4_scout-decode.roof" "  repeat num_hidden_layers / 4 {"
expect_grep "$HF/llama4_scout-decode.roof" "      # a NoPE layer: no rotary embeddings, global attention"

# --- chunked attention in decode (R-FAM-205): the 36 rotary layers cache
# at most a chunk, min(ctx, 8192), the 12 NoPE layers the whole context;
# with the step's token, of 2 x 8 x 128 x 2 B = 4,096 B a token:
#   ctx 2048: 48 x 2049 x 4096 = 402,849,792 B
#   ctx 32768: (36 x 8193 + 12 x 32769) x 4096 = 2,818,768,896 B
run -w -Wno-capacity --format json --phase decode "$HF/llama4_scout.json"
expect_eq "scout cache at 2048" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 402849792
run -w -Wno-capacity --format json --phase decode -D ctx=32768 "$HF/llama4_scout.json"
expect_eq "scout cache at 32768" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 2818768896
# interleave_moe_layer_step 2 and no moe_layers: experts on the odd layers,
# the even ones a dense MLP of intermediate_size_mlp 16384: 24 x
# 2,202,101,760 + 24 x (62,914,560 + 3 x 5120 x 16384 + 10,240)
# + 2,068,976,640 = 62,469,411,840
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['text_config']; t['interleave_moe_layer_step']=2; t.pop('moe_layers', None); json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/llama4_scout.json" "$T/l4.json"
run -w -Wno-capacity --format json "$T/l4.json"
expect_status 0
expect_eq "interleaved params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 62469411840
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['text_config']['no_rope_layers']=[1, 0]; json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/llama4_scout.json" "$T/l4.json"
run "$T/l4.json"
expect_status 1
expect_grep "$T/err" "'no_rope_layers' must be a list of 48 0 or 1"
# R-HF-005, R-FAM-204: a value of the wrong kind is an error, never the
# default it would have fallen to: moe_layers naming no layer (the layer
# would be priced dense), no_rope_layers that is no list (it read as absent:
# every 4th layer NoPE), attn_temperature_tuning a string (it read as false);
# R-HF-015: a key of text_config is placed at its line there, column 5 as
# json.dump(indent=2) writes it one level in (at = its line and column)
l4() {
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['text_config']; $1; json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/llama4_scout.json" "$T/l4.json"
  run -w "$T/l4.json"
  expect_status 1
}
at() { echo "$(grep -n "^    \"$1\":" "$T/l4.json" | cut -d: -f1):5"; }
# R-DIAG-001: a lint finding of the language model is placed at the key of
# text_config its line came from: the model's line at text_config's
# "model_type" (line 29, column 5 of the published file), not at the top
# level's "model_type" (line 8)
run --phase decode "$HF/llama4_scout.json"
expect_grep "$T/err" "llama4_scout.json:29:5: warning: 14 more ops in model 'llama4_scout' are memory-bound"
l4 "t['moe_layers']=[1, 48]"
expect_err "rooflint: error: $T/l4.json:$(at moe_layers): 'moe_layers' must be a list of layer numbers from 0 to 47: 48 is not one"
l4 "t['moe_layers']=[True]"
expect_err "rooflint: error: $T/l4.json:$(at moe_layers): 'moe_layers' must be a list of layer numbers from 0 to 47: true is not one"
l4 "t['moe_layers']=5"
expect_err "rooflint: error: $T/l4.json:$(at moe_layers): 'moe_layers' must be a list of layer numbers from 0 to 47"
l4 "t['no_rope_layers']='none'"
expect_err "rooflint: error: $T/l4.json:$(at no_rope_layers): 'no_rope_layers' must be a list of 48 0 or 1"
l4 "t['attn_temperature_tuning']='yes'"
expect_err "rooflint: error: $T/l4.json:$(at attn_temperature_tuning): 'attn_temperature_tuning' must be true, false or a number"

finish
