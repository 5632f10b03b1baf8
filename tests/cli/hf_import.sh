#!/bin/sh
# hf_import.sh: `rooflint import config.json` and `rooflint config.json`
# (src/import/hf_import.c, R-HF-001 .. R-HF-012).  The configs in tests/hf/ are
# the published config.json of each checkpoint on the Hugging Face hub.
. tests/cli/driver_lib.inc
HF=tests/hf

. tests/cli/hf_lib.inc

# --- golden text (R-HF-007, R-HF-012): NAME[-decode][-train][-tp8][-ep8].roof
# is `rooflint import` of NAME.json with --phase decode|train, -D tensor=8,
# -D data=8 -D expert=8; re-running it is byte-identical.
check_goldens

# Every family lints with no error in every phase, alone, on 8 GPUs of
# tensor parallelism (where 8 divides its heads) and of expert parallelism
# (R-HF-003, R-HF-011, R-PAR-008: MLA's absorbed per-head w_uk and w_uv
# keep the heads split; Qwen2-MoE's shared-expert gate scales the
# column-parallel activation); -Wno-capacity, as a model may not fit.
for f in "$HF"/*.json; do
  name=$(basename "$f" .json)
  for phase in prefill decode train; do
    [ "$name.$phase" = bert_base.decode ] && continue
    for d in "" "-D tensor=8" "-D data=8 -D expert=8"; do
      case "$name $d" in
        "bert_base -D tensor=8"|"gpt2 -D tensor=8"|"qwen2_7b -D tensor=8"|\
        "qwen3_moe_30b_a3b -D tensor=8") continue ;;
        "qwen2_moe_a2_7b -D data=8 -D expert=8") continue ;; # 60 experts: below
      esac
      # shellcheck disable=SC2086
      lints_clean "$f" "$phase" $d
    done
  done
done

# Issue 28 item 19: Qwen2-MoE's 60 experts do not split over an expert
# group of 8 (60 / 8 = 7.5 a GPU; Megatron-Core requires num_experts %
# expert_model_parallel_size == 0): an error; over 4 GPUs, 15 each, none.
run -w -Wno-capacity --phase prefill -D data=8 -D expert=8 "$HF/qwen2_moe_a2_7b.json"
expect_status 1
expect_grep "$T/err" "error: parallel 'expert' = 8 does not divide the 60 experts of this block: each GPU of the expert group holds a whole share of them"
run -w -Wno-capacity --format json --phase prefill -D data=4 -D expert=4 "$HF/qwen2_moe_a2_7b.json"
expect_status 0

# The spellings of issue 19 (SYNTAX19: branches par and moe), as generated:
# R-HF-008 a decode layer's KV cache, appended and attended over whole
expect_grep "$HF/llama2_7b-decode.roof" "    cache k_cache, v_cache : [batch, num_key_value_heads, ctx, head_dim]"
expect_grep "$HF/llama2_7b-decode.roof" "    k_all = append(k_cache, k, axis=2)"
expect_grep "$HF/llama2_7b-decode.roof" "    a = attention(q, k_all, v_all)"
expect_grep "$HF/mistral_7b-decode.roof" "let window_ctx = min(ctx, sliding_window)"
expect_grep "$HF/gemma2_9b-decode.roof" "  repeat num_hidden_layers / 2 {"
# R-HF-009 routed experts beside their router, shared experts after them
expect_grep "$HF/mixtral_8x7b.roof" "    experts num_experts top num_experts_per_tok {"
expect_grep "$HF/mixtral_8x7b.roof" "    topk_weights, topk_idx = topk(scores, num_experts_per_tok, axis=-1)"
expect_grep "$HF/deepseek_v3.roof" "    scores = add(sigmoid(router_logits), e_score_correction_bias)"
expect_grep "$HF/deepseek_v3.roof" "  repeat num_hidden_layers - first_k_dense_replace {"
# R-HF-010 MLA: the latent cached in decode, kv_b_proj absorbed
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    cache kv_cache : [batch, 1, ctx, kv_lora_rank + qk_rope_head_dim]"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "  parallel { gpus_per_node = data; data = data; expert = expert }"
# R-HF-011 tensor parallel: one GPU's slices, all-reduces after row-parallel
expect_grep "$HF/llama3_8b-decode-tp8.roof" "  parallel { gpus_per_node = tensor; tensor = tensor }"
expect_grep "$HF/llama3_8b-decode-tp8.roof" "    weight q_proj : [hidden_size, num_attention_heads * head_dim / tensor] shard=tensor"
expect_grep "$HF/llama3_8b-decode-tp8.roof" "    o = allreduce(o, group=tensor)"
expect_grep "$HF/llama3_8b-decode-tp8.roof" "  logits = allgather(logits, axis=-1, group=tensor)  # the vocabulary slices"

# Issue 21's done-when: a DeepSeek-V3 decode step on 8 H200s with expert
# parallelism (-D data=8 -D expert=8), the weights as its checkpoint stores
# them (quantization_config fp8, R-HF-013).  By hand:
#   per GPU, the 58 MoE layers' 256 experts over 8 GPUs: the experts
#     58 x 256 x 3 x 7168 x 2048 = 653,908,770,816 parameters, /8 =
#     81,738,596,352 on a GPU, plus the other 671,026,419,200 - 653,908,770,816
#     = 17,117,648,384 whole: 98,856,244,736 parameters; of them in bf16 the
#     embedding and head 2 x 129280 x 7168 = 1,853,358,080, the routers
#     58 x 256 x 7168 = 106,430,464 and their biases 14,848, the norms
#     61 x (2 x 7168 + 1536 + 512) + 7168 = 1,006,592: 1,960,809,984 x 2 B,
#     the rest 96,895,434,752 in fp8 x 1 B: 100,817,054,720 B of weights;
#   the block scales, fp32 [cdiv(out, 128), cdiv(in, 128)] a projection:
#     MLA 672 + 2304 + 280 + 1024 + 7168 = 11,448 a layer x 61, the dense
#     MLPs 3 x 144 x 56 x 3, the shared experts 58 x 3 x 16 x 56, the routed
#     58 x 256 x 3 x 16 x 56 / 8: (698,328 + 72,576 + 155,904 + 4,988,928) x 4
#     = 23,662,944 B (buffers, no parameters);
#   the latent cache 61 x 2049 x 576 x 2 = 143,987,328 B; 101.0 GB in all,
#     within the H200's 141 GiB (151.4 GB): no error;
#   the dispatch and combine all-to-alls, a token's 7168 bf16 (14,336 B)
#     once per GPU its 8 experts sit on (R-MOE-007): 32 experts a GPU, a
#     group a GPU, the 8 experts within 4 of the 8 groups, so
#     8 x 4/8 x (1 - C(96,8)/C(128,8)) = 4 x (1 - 0.0927473) = 3.62901 GPUs:
#     52,025.5 B each, (8 - 1)/8 of it over NVLink = 45,522.3 B, 101 ns at
#     450 GB/s, x 2 x 58 layers = 11.7 us on links (R-COLL-001);
#   the active parameters 37,552,297,472: the same 1,960,809,984 in bf16 and
#     35,591,487,488 in fp8, 39,513,107,456 B, what one token's step reads of
#     the weights over the whole expert group;
#   one fp8 GEMM, q_a_proj at batch 1: 2 x 7168 x 1536 = 22,020,096 FLOPs
#     over 7168 x 2 + 7168 x 1536 + 1536 x 2 = 11,027,456 B at the fp8 peak
#     (1979 TFLOP/s); the absorbed q_lat reads kv_b_proj's 128 x 128 x 512
#     fp8 view at the bf16 peak (990): 8,388,608 + 32,768 + 131,072 B.
# (the experts block prices the all-to-alls itself, R-MOE-006: the generator
# writes a comment, not all_to_all ops, which would count them twice)
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    experts num_experts top num_experts_per_tok n_group=n_group topk_group=topk_group {"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    # expert parallelism: the experts block's dispatch and combine all-to-alls over the expert group are priced with it (R-MOE-006)"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    weight q_a_proj : fp8[hidden_size, q_lora_rank]"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    buffer q_a_proj_scale_inv : fp32[cdiv(q_lora_rank, 128), cdiv(hidden_size, 128)]"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    cq = matmul(h, q_a_proj, precision=fp8)"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "    weight gate : [hidden_size, num_experts]  # the router"
expect_grep "$HF/deepseek_v3-decode-ep8.roof" "  weight lm_head : [hidden_size, vocab_size]"
run -w -t h200_sxm --format json "$HF/deepseek_v3-decode-ep8.roof"
expect_status 0
m="d['models'][0]"
expect_eq "ep8 weights per GPU" "$(json_field "$T/out" "int($m['summary']['footprint']['weights'])")" 100817054720
expect_eq "ep8 scales per GPU" "$(json_field "$T/out" "int($m['summary']['footprint']['buffers'])")" 23662944
expect_eq "ep8 KV cache per GPU" "$(json_field "$T/out" "int($m['summary']['footprint']['kv_cache'])")" 143987328
expect_eq "ep8 all-to-alls" "$(json_field "$T/out" "[(c['what'], c['group'], round(c['buffer_bytes'], 1), round(c['nvlink_bytes'], 1), c['count']) for c in $m['collectives']]")" \
  "[('dispatch', 'expert', 52025.5, 45522.3, 58), ('combine', 'expert', 52025.5, 45522.3, 58)]"
expect_eq "ep8 params" "$(json_field "$T/out" "$m['summary']['params']")" 671026419200
expect_eq "ep8 active params" "$(json_field "$T/out" "$m['summary']['active_params']")" 37552297472
expect_eq "ep8 active param bytes" "$(json_field "$T/out" "$m['summary']['active_param_bytes']")" 39513107456
expect_eq "ep8 errors" "$(json_field "$T/out" "d['counts']['errors']")" 0
k="[k for k in $m['kernels'] if k['count'] == 58]"
expect_eq "ep8 fp8 GEMM" "$(json_field "$T/out" "[(k['flops'], k['bytes'], k['peak']) for k in $k if k['name'] == 'cq'][0]")" "(22020096, 11027456, 1979000000000000)"
expect_eq "ep8 absorbed GEMM" "$(json_field "$T/out" "[(k['bytes'], k['peak']) for k in $k if k['name'] == 'q_lat'][0]")" "(8552448, 990000000000000)"
# the batch that fits (R-CACHE-003): (151,397,597,184 - 100,817,054,720 -
# 23,662,944) / (143,987,328 KV cache + 310,656 activations a sequence) = 350.4
run -t h200_sxm "$HF/deepseek_v3-decode-ep8.roof"
expect_grep "$T/err" "remark: model 'deepseek_v3' fits up to batch = 350 at seq = 1, ctx = 2048 on H200 SXM (needs 101.0 GB of 151.4 GB at batch = 1) [-Wcapacity]"
run -w -t h200_sxm --report "$HF/deepseek_v3-decode-ep8.roof"
expect_grep "$T/out" "  collectives      11.7 us on links"
expect_grep "$T/out" "  active weights   39.5 GB read per token (37.6 G active parameters)"
expect_grep "$T/out" "  weights        100.8 GB   66.6%"
expect_grep "$T/out" "  buffers         23.7 MB    0.0%"
expect_grep "$T/out" "  (dispatch) x 58  all_to_all  expert  52.0 KB      8     45.5 KB  101 ns     0 B   0 s  101 ns     0%"
# README shows the report's totals, footprint and collectives as printed.
sed -n '/^totals per step/,/^$/p;/^footprint per GPU/,/^$/p;/^collectives (ring/,$p' "$T/out" | grep -v '^$' >"$T/lines"
while IFS= read -r l; do expect_grep README.md "$l"; done <"$T/lines"

# -o FILE writes what standard output gets.
run import "$HF/llama2_7b.json" -o "$T/l.roof"
expect_status 0
expect_empty "$T/out"
if cmp -s "$T/l.roof" "$HF/llama2_7b.roof"; then ok; else bad "-o output differs"; fi

# --- parameter counts (R-HF-004): the published figures, each family linted
# with no error on the default target.  By hand:
#   Llama-2-7B  2 x 32000 x 4096 (embed, untied head) + 32 x (4 x 4096^2
#               + 3 x 4096 x 11008 + 2 x 4096) + 4096 = 6,738,415,616
#   Llama-3-8B  2 x 128256 x 4096 + 32 x (2 x 4096^2 + 2 x 4096 x 1024
#               + 3 x 4096 x 14336 + 8192) + 4096 = 8,030,261,248
#   Mistral-7B  2 x 32000 x 4096 + 32 x 218,112,000 + 4096 = 7,241,732,096
#   GPT-2       50257 x 768 (tied) + 1024 x 768 + 12 x 7,087,872 + 1536
#               = 124,439,808
#   Qwen2-7B    2 x 152064 x 3584 + 28 x (2 x 3584^2 + 2 x 3584 x 512
#               + 4608 biases + 3 x 3584 x 18944 + 7168) + 3584 = 7,615,616,512
#   Qwen3-8B    2 x 151936 x 4096 + 36 x (41,943,040 + 256 q/k norms
#               + 3 x 4096 x 12288 + 8192) + 4096 = 8,190,735,360
#   Gemma-2-9B  256000 x 3584 (tied) + 42 x (2 x 3584 x 4096 + 2 x 3584
#               x 2048 + 3 x 3584 x 14336 + 4 x 3584) + 3584 = 9,241,705,984
#   Phi-3-mini  2 x 32064 x 3072 + 32 x (3072 x 9216 + 3072^2 + 3072 x 16384
#               + 8192 x 3072 + 6144) + 3072 = 3,821,079,552
#   GPT-NeoX-20B 2 x 50432 x 6144 + 44 x 453,064,704 + 12288 = 20,554,567,680
#   Gemma-7B    256000 x 3072 (tied) + 28 x (4 x 3072 x 4096 + 3 x 3072 x
#               24576 + 2 x 3072) + 3072 = 8,537,680,896
#   BERT-base   (BertModel with its pooler) 109,482,240
for pair in llama2_7b:6738415616 llama3_8b:8030261248 mistral_7b:7241732096 \
            gpt2:124439808 qwen2_7b:7615616512 qwen3_8b:8190735360 \
            gemma2_9b:9241705984 phi3_mini:3821079552 \
            gpt_neox_20b:20554567680 bert_base:109482240 gemma_7b:8537680896; do
  name=${pair%%:*}
  run --format json "$HF/$name.json"
  expect_status 0
  expect_eq "$name params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" "${pair#*:}"
  expect_eq "$name errors" "$(json_field "$T/out" "d['counts']['errors']")" 0
done

# Mixtures of experts (R-HF-004, R-HF-009, R-MOE-005): linted from the config
# itself, `experts E top K { }` and `topk` as generated; -Wno-capacity as
# the largest do not fit one H100.  Total parameters:
#   Mixtral-8x7B  2 x 32000 x 4096 + 32 x (41,943,040 attention + 8 x 4096
#                 router + 8 x 3 x 4096 x 14336 + 8192) + 4096 = 46,702,792,704
#   DeepSeek-V3   2 x 129280 x 7168 + 3 dense x (187,107,328 MLA + 3 x 7168 x
#                 18432 + 14336) + 58 x (187,107,328 + 256 x 7168 router +
#                 256 bias + 257 x 3 x 7168 x 2048 + 14336) + 7168
#                 = 671,026,419,200 (without the MTP module)
#   Qwen1.5-MoE-A2.7B  2 x 151936 x 2048 + 24 x (4 x 2048^2 + 6144 q/k/v
#                 biases + 60 x 2048 router + 60 x 3 x 2048 x 1408 + 3 x 2048
#                 x 5632 shared + 2048 shared gate + 4096) + 2048 = 14,315,784,192
#   Qwen3-30B-A3B 2 x 151936 x 2048 + 48 x (18,874,368 attention + 256 q/k
#                 norms + 128 x 2048 + 128 x 3 x 2048 x 768 + 4096) + 2048
#                 = 30,532,122,624
#   DeepSeek-V2-Lite (q_lora_rank null: a full-rank q_proj) 2 x 102400 x 2048
#                 + (13,763,072 MLA + 3 x 2048 x 10944 + 4096) + 26 x
#                 (13,763,072 + 64 x 2048 + 64 x 3 x 2048 x 1408 + 3 x 2048 x
#                 2816 shared + 4096) + 2048 = 15,706,484,224
# Active parameters: the same sums with K of the E routed experts (the
# embedding, the head, routers and shared experts counted once):
#   Mixtral-8x7B  262,144,000 + 32 x (41,943,040 + 32,768 + 2 x 3 x 4096 x
#                 14336 + 8192) + 4096 = 12,879,925,248
#   DeepSeek-V3   1,853,358,080 + 3 x 583,483,392 + 58 x (187,107,328 +
#                 1,835,008 + 256 + 8 x 3 x 7168 x 2048 + 3 x 7168 x 2048
#                 + 14336) + 7168 = 37,552,297,472
#   Qwen1.5-MoE-A2.7B  622,329,856 + 24 x (16,777,216 + 6144 + 122,880 +
#                 4 x 3 x 2048 x 1408 + 34,603,008 + 2048 + 4096) + 2048
#                 = 2,689,173,504
#   Qwen3-30B-A3B 622,329,856 + 48 x (18,874,368 + 256 + 262,144 + 8 x 3 x
#                 2048 x 768 + 4096) + 2048 = 3,353,032,704
#   DeepSeek-V2-Lite 419,430,400 + 81,007,104 + 26 x (13,763,072 + 131,072
#                 + 6 x 3 x 2048 x 1408 + 17,301,504 + 4096) + 2048
#                 = 2,661,150,208 (DeepSeek's model card says 2.4 B: it
#                 leaves out one of the two 209.7 M vocabulary matrices)
for row in mixtral_8x7b:46702792704:12879925248 \
           deepseek_v3:671026419200:37552297472 \
           qwen2_moe_a2_7b:14315784192:2689173504 \
           qwen3_moe_30b_a3b:30532122624:3353032704 \
           deepseek_v2_lite:15706484224:2661150208; do
  name=${row%%:*}; rest=${row#*:}
  run -w -Wno-capacity --format json "$HF/$name.json"
  expect_status 0
  expect_eq "$name params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" "${rest%%:*}"
  expect_eq "$name active params" "$(json_field "$T/out" "d['models'][0]['summary']['active_params']")" "${rest#*:}"
  expect_eq "$name errors" "$(json_field "$T/out" "d['counts']['errors']")" 0
done

# The summary line says it too; -D batch and -D seq reach the lets (R-HF-003).
run -w -D batch=4 -D seq=512 "$HF/llama2_7b.json"
expect_status 0
expect_grep "$T/out" "llama2_7b: 28 ops, 6.74 G parameters,"
run import -D batch=4 -D seq=512 "$HF/llama2_7b.json"
expect_grep "$T/out" "let batch = 4 "
expect_grep "$T/out" "let seq = 512 "

# --- one Llama-2-7B layer by hand (prefill, batch 1, seq 2048, fp16), R-HF-007:
#   qkv region: 3 x 2 x 2048 x 4096 x 4096 = 206,158,430,208 FLOPs; bytes: h
#     read once 2048 x 4096 x 2 = 16,777,216, three weights 3 x 4096^2 x 2 =
#     100,663,296, q, k, v written 3 x 16,777,216: 167,772,160 B
#   attention (causal halves it): 4 x 32 x 2048 x 2048 x 128 / 2 =
#     34,359,738,368 FLOPs; q, k, v, out 4 x 16,777,216 = 67,108,864 B
#   the whole layer: norms 2 x 4 x 2048 x 4096, rope 2 x 3 x 2048 x 4096,
#     qkv, attention, o 2 x 2048 x 4096^2 + add 2048 x 4096, gate_up
#     2 x 2 x 2048 x 4096 x 11008, silu-and-mul 6 x 2048 x 11008, down
#     2 x 2048 x 11008 x 4096 + add 2048 x 4096:
#     117,440,512 + 206,158,430,208 + 34,359,738,368 + 68,727,865,344
#     + 369,367,187,456 + 135,266,304 + 184,691,982,336 = 863,557,910,528 FLOPs
run --format json "$HF/llama2_7b.json"
k="[k for k in d['models'][0]['kernels'] if k['count'] == 32]"
expect_eq "qkv flops" "$(json_field "$T/out" "[k['flops'] for k in $k if k['name'] == 'qkv'][0]")" 206158430208
expect_eq "qkv bytes" "$(json_field "$T/out" "[k['bytes'] for k in $k if k['name'] == 'qkv'][0]")" 167772160
expect_eq "attention flops" "$(json_field "$T/out" "[k['flops'] for k in $k if k['name'] == 'a'][0]")" 34359738368
expect_eq "attention bytes" "$(json_field "$T/out" "[k['bytes'] for k in $k if k['name'] == 'a'][0]")" 67108864
expect_eq "layer flops" "$(json_field "$T/out" "sum(k['flops'] for k in $k)")" 863557910528

# --- one layer of every other family by hand (R-HF-007), prefill at batch 1
# and `-D seq=1`, so T = 1 token: a projection in -> out is 2 x in x out
# FLOPs (+ out for a bias, + out for a residual add in its epilogue) and
# reads its input, weight and bias and writes its output (+ reads x for the
# add); b bytes per element (2 for bf16/fp16 and configs without
# torch_dtype, 4 for Gemma-2's float32).  hand_layer FAMILY LAYERS
# KERNEL:FLOPS:BYTES... (hf_lib.inc): the kernel of that name run LAYERS times.
# Llama-3-8B and Mistral-7B (H 4096, 32 q and 8 kv heads of 128, I 14336):
#   qkv 4096 -> (32 + 2 x 8) x 128 = 6144: 2 x 4096 x 6144 = 50,331,648;
#     2 x (4096 + 25,165,824 + 6144) = 50,352,128 B
#   attn_out o 4096 -> 4096 + add: 33,554,432 + 4096 = 33,558,528;
#     2 x (4096 + 16,777,216 + 2 x 4096) = 33,579,008 B
#   gate_up 2 x (4096 -> 14336): 4 x 4096 x 14336 = 234,881,024;
#     2 x (4096 + 117,440,512 + 2 x 14336) = 234,946,560 B
#   down 14336 -> 4096 + add: 117,440,512 + 4096 = 117,444,608;
#     2 x (14336 + 58,720,256 + 2 x 4096) = 117,485,568 B
#   the attention of one query over one key (causal: half of 1 x 1):
#     4 x 32 x 1 x 1 x 128 / 2 = 8192; q, k, v, out 2 x (4096 + 2 x 1024
#     + 4096) = 20,480 B
#   the whole layer adds the two rmsnorms, 4 per element, 2 x 4 x 4096 =
#     32,768 (x, weight, out: 2 x 2 x 3 x 4096 = 49,152 B), rope 3 per
#     element on q and k, 3 x (4096 + 1024) = 15,360 (q or k, cos, sin, out:
#     2 x (2 x 4096 + 2 x 128) + 2 x (2 x 1024 + 2 x 128) = 21,504 B) and
#     silu 5 + mul 1, 6 x 14336 = 86,016 (g, u, out: 2 x 3 x 14336 =
#     86,016 B): 50,331,648 + 33,558,528 + 234,881,024 + 117,444,608 + 8192
#     + 32,768 + 15,360 + 86,016 = 436,358,144 FLOPs; 50,352,128
#     + 33,579,008 + 234,946,560 + 117,485,568 + 20,480 + 49,152 + 21,504
#     + 86,016 = 436,540,416 B
for fam in llama3_8b:32 mistral_7b:32; do
  hand_layer "${fam%:*}" "${fam#*:}" qkv:50331648:50352128 attn_out:33558528:33579008 \
    gate_up:234881024:234946560 down:117444608:117485568 a:8192:20480
  hand_total 32 436358144:436540416
done
# Qwen3-8B: the same attention (head_dim 128 given), I 12288:
#   gate_up 4 x 4096 x 12288 = 201,326,592; 2 x (4096 + 100,663,296
#     + 2 x 12288) = 201,383,936 B
#   down 2 x 12288 x 4096 + 4096 = 100,667,392; 2 x (12288 + 50,331,648
#     + 8192) = 100,704,256 B
#   the whole layer: Llama-3's norms, rope and attention, Qwen3's q_norm
#     and k_norm (rmsnorm over each head, 4 x (4096 + 1024) = 20,480;
#     2 x (4096 + 128 + 4096) + 2 x (1024 + 128 + 1024) = 20,992 B) and
#     silu-and-mul 6 x 12288 = 73,728 (2 x 3 x 12288 = 73,728 B):
#     50,331,648 + 33,558,528 + 201,326,592 + 100,667,392 + 8192 + 32,768
#     + 15,360 + 20,480 + 73,728 = 386,034,688 FLOPs; 50,352,128
#     + 33,579,008 + 201,383,936 + 100,704,256 + 20,480 + 49,152 + 21,504
#     + 20,992 + 73,728 = 386,205,184 B
hand_layer qwen3_8b 36 qkv:50331648:50352128 attn_out:33558528:33579008 \
  gate_up:201326592:201383936 down:100667392:100704256
hand_total 36 386034688:386205184
# Qwen2-7B (H 3584, 28 q and 4 kv heads of 128, q/k/v biases, I 18944):
#   qkv 3584 -> (28 + 8) x 128 = 4608 + bias: 2 x 3584 x 4608 + 4608 =
#     33,034,752; 2 x (3584 + 16,515,072 + 4608 + 4608) = 33,055,744 B
#   attn_out 3584 -> 3584 + add: 25,690,112 + 3584 = 25,693,696;
#     2 x (3584 + 12,845,056 + 2 x 3584) = 25,711,616 B
#   gate_up 4 x 3584 x 18944 = 271,581,184; 2 x (3584 + 135,790,592
#     + 2 x 18944) = 271,664,128 B
#   down 2 x 18944 x 3584 + 3584 = 135,794,176; 2 x (18944 + 67,895,296
#     + 7168) = 135,842,816 B
#   the whole layer: rmsnorms 2 x 4 x 3584 = 28,672 (2 x 2 x 3 x 3584 =
#     43,008 B), rope 3 x (3584 + 512) = 12,288 (2 x (2 x 3584 + 256)
#     + 2 x (2 x 512 + 256) = 17,408 B), attention 4 x 28 x 128 / 2 = 7168
#     (2 x (3584 + 512 + 512 + 3584) = 16,384 B), silu-and-mul 6 x 18944 =
#     113,664 (113,664 B): 33,034,752 + 25,693,696 + 271,581,184
#     + 135,794,176 + 28,672 + 12,288 + 7168 + 113,664 = 466,265,600 FLOPs;
#     33,055,744 + 25,711,616 + 271,664,128 + 135,842,816 + 43,008 + 17,408
#     + 16,384 + 113,664 = 466,464,768 B
hand_layer qwen2_7b 28 qkv:33034752:33055744 attn_out:25693696:25711616 \
  gate_up:271581184:271664128 down:135794176:135842816
hand_total 28 466265600:466464768
# Phi-3-mini (H 3072, 32 heads of 96, I 8192):
#   qkv 3072 -> 9216: 56,623,104; 2 x (3072 + 28,311,552 + 9216) =
#     56,647,680 B
#   attn_out 2 x 3072^2 + 3072 = 18,877,440; 2 x (3072 + 9,437,184 + 6144)
#     = 18,892,800 B
#   gate_up 4 x 3072 x 8192 = 100,663,296; 2 x (3072 + 50,331,648 + 16384)
#     = 100,702,208 B
#   down 2 x 8192 x 3072 + 3072 = 50,334,720; 2 x (8192 + 25,165,824
#     + 6144) = 50,360,320 B
#   the whole layer: rmsnorms 2 x 4 x 3072 = 24,576 (36,864 B), rope
#     3 x 2 x 3072 = 18,432 (2 x 2 x (2 x 3072 + 2 x 96) = 25,344 B),
#     attention 4 x 32 x 96 / 2 = 6144 (2 x 4 x 3072 = 24,576 B),
#     silu-and-mul 6 x 8192 = 49,152 (49,152 B): 56,623,104 + 18,877,440
#     + 100,663,296 + 50,334,720 + 24,576 + 18,432 + 6144 + 49,152 =
#     226,596,864 FLOPs; 56,647,680 + 18,892,800 + 100,702,208 + 50,360,320
#     + 36,864 + 25,344 + 24,576 + 49,152 = 226,738,944 B
hand_layer phi3_mini 32 qkv:56623104:56647680 attn_out:18877440:18892800 \
  gate_up:100663296:100702208 down:50334720:50360320
hand_total 32 226596864:226738944
# Gemma-7B (H 3072, 16 heads of 256, I 24576, gelu_pytorch_tanh):
#   qkv 3072 -> 3 x 4096: 2 x 3072 x 12288 = 75,497,472; 2 x (3072
#     + 37,748,736 + 12288) = 75,528,192 B
#   attn_out 4096 -> 3072 + add: 25,165,824 + 3072 = 25,168,896;
#     2 x (4096 + 12,582,912 + 6144) = 25,186,304 B
#   gate_up 4 x 3072 x 24576 = 301,989,888; 2 x (3072 + 150,994,944
#     + 49152) = 302,094,336 B
#   act_mul tanh gelu 9 + mul 1 per element: 10 x 24576 = 245,760;
#     g, u, out 2 x 3 x 24576 = 147,456 B
#   down 2 x 24576 x 3072 + 3072 = 150,998,016; 2 x (24576 + 75,497,472
#     + 6144) = 151,056,384 B
#   the whole layer: rmsnorms 2 x 4 x 3072 = 24,576 (36,864 B), rope
#     3 x 2 x 4096 = 24,576 (2 x 2 x (2 x 4096 + 2 x 256) = 34,816 B),
#     attention 4 x 16 x 256 / 2 = 8192 (2 x 4 x 4096 = 32,768 B):
#     75,497,472 + 25,168,896 + 301,989,888 + 245,760 + 150,998,016
#     + 24,576 + 24,576 + 8192 = 553,957,376 FLOPs; 75,528,192 + 25,186,304
#     + 302,094,336 + 147,456 + 151,056,384 + 36,864 + 34,816 + 32,768 =
#     554,117,120 B
hand_layer gemma_7b 28 qkv:75497472:75528192 attn_out:25168896:25186304 \
  gate_up:301989888:302094336 act_mul:245760:147456 down:150998016:151056384
hand_total 28 553957376:554117120
# Gemma-2-9B in float32, b = 4 (H 3584, 16 q and 8 kv heads of 256,
# I 14336); o_proj and down have no add: their output is normed first
# (post_attention_layernorm, post_feedforward_layernorm):
#   qkv 3584 -> (16 + 16) x 256 = 8192: 2 x 3584 x 8192 = 58,720,256;
#     4 x (3584 + 29,360,128 + 8192) = 117,487,616 B
#   o_proj 4096 -> 3584: 29,360,128; 4 x (4096 + 14,680,064 + 3584) =
#     58,750,976 B
#   gate_up 4 x 3584 x 14336 = 205,520,896; 4 x (3584 + 102,760,448
#     + 28672) = 411,170,816 B
#   down 2 x 14336 x 3584 = 102,760,448; 4 x (14336 + 51,380,224 + 3584)
#     = 205,592,576 B
#   the whole layer: four rmsnorms 4 x 4 x 3584 = 57,344 (4 x 4 x 3 x 3584
#     = 172,032 B), rope 3 x (4096 + 2048) = 18,432 (4 x (2 x 4096 + 512)
#     + 4 x (2 x 2048 + 512) = 53,248 B), attention 4 x 16 x 256 / 2 = 8192
#     (the soft cap is not counted, as the .roof says; 4 x (4096 + 2 x 2048
#     + 4096) = 49,152 B), two residual adds 2 x 3584 = 7168 (2 x 4 x 3 x
#     3584 = 86,016 B), tanh-GELU-and-mul 10 x 14336 = 143,360 (4 x 3 x
#     14336 = 172,032 B): 58,720,256 + 29,360,128 + 205,520,896
#     + 102,760,448 + 57,344 + 18,432 + 8192 + 7168 + 143,360 = 396,596,224
#     FLOPs; 117,487,616 + 58,750,976 + 411,170,816 + 205,592,576 + 172,032
#     + 53,248 + 49,152 + 86,016 + 172,032 = 793,534,464 B
hand_layer gemma2_9b 42 qkv:58720256:117487616 o_proj:29360128:58750976 \
  gate_up:205520896:411170816 down:102760448:205592576
hand_total 42 396596224:793534464
# GPT-2 and BERT-base (H 768, 12 heads of 64, I 3072, biases everywhere;
# GPT-2's gelu_new is the tanh GELU, 9 per element, BERT's erf GELU 5):
#   qkv 768 -> 2304 + bias: 2 x 768 x 2304 + 2304 = 3,541,248;
#     2 x (768 + 1,769,472 + 2304 + 2304) = 3,549,696 B
#   attn_out 768 -> 768 + bias + add: 1,179,648 + 1536 = 1,181,184;
#     2 x (768 + 589,824 + 768 + 2 x 768) = 1,185,792 B
#   up 768 -> 3072 + bias + GELU: 4,718,592 + 3072 x (1 + 9) = 4,749,312
#     (GPT-2), + 3072 x (1 + 5) = 4,737,024 (BERT); 2 x (768 + 2,359,296
#     + 3072 + 3072) = 4,732,416 B
#   down 3072 -> 768 + bias + add: 4,718,592 + 1536 = 4,720,128;
#     2 x (3072 + 2,359,296 + 768 + 2 x 768) = 4,729,344 B
#   the whole layer adds two layernorms, 8 per element, 2 x 8 x 768 =
#     12,288 (x, weight, bias, out: 2 x 2 x 4 x 768 = 12,288 B) and the
#     attention of one query, 4 x heads x head_dim: GPT-2's causal
#     4 x 12 x 64 / 2 = 1536, BERT's bidirectional 4 x 12 x 64 = 3072
#     (q, k, v, out 2 x 4 x 768 = 6144 B): GPT-2 3,541,248 + 1,181,184 + 4,749,312
#     + 4,720,128 + 12,288 + 1536 = 14,205,696 FLOPs, BERT 3,541,248
#     + 1,181,184 + 4,737,024 + 4,720,128 + 12,288 + 3072 = 14,194,944;
#     both 3,549,696 + 1,185,792 + 4,732,416 + 4,729,344 + 12,288 + 6144 =
#     14,215,680 B
hand_layer gpt2 12 qkv:3541248:3549696 attn_out:1181184:1185792 \
  up:4749312:4732416 down:4720128:4729344 a:1536:6144
hand_total 12 14205696:14215680
hand_layer bert_base 12 qkv:3541248:3549696 attn_out:1181184:1185792 \
  up:4737024:4732416 down:4720128:4729344 a:3072:6144
hand_total 12 14194944:14215680
# GPT-NeoX-20B in fp16 (H 6144, 64 heads of 96, I 24576, biases,
# gelu_fast = tanh GELU 9, use_parallel_residual: x + attn(ln1 x) +
# mlp(ln2 x), so o_proj has no add and down adds both x and o_proj's output):
#   qkv 6144 -> 18432 + bias: 226,492,416 + 18432 = 226,510,848;
#     2 x (6144 + 113,246,208 + 2 x 18432) = 226,578,432 B
#   o_proj 6144 -> 6144 + bias: 75,497,472 + 6144 = 75,503,616;
#     2 x (6144 + 37,748,736 + 2 x 6144) = 75,534,336 B
#   up 6144 -> 24576 + bias + GELU: 301,989,888 + 10 x 24576 = 302,235,648;
#     2 x (6144 + 150,994,944 + 2 x 24576) = 302,100,480 B
#   down 24576 -> 6144 + bias + 2 adds: 301,989,888 + 3 x 6144 =
#     302,008,320; 2 x (24576 + 150,994,944 + 6144 + 3 x 6144) =
#     302,088,192 B
#   the whole layer: two layernorms 2 x 8 x 6144 = 98,304 (2 x 2 x 4 x 6144
#     = 98,304 B); rope on rotary_pct 0.25 of each head, 24 of 96 dims, of q
#     and of k: 2 x 3 x 64 x 24 = 9216 (2 x 2 x (1536 + 48 + 1536) = 12,480
#     B), then each rotated part joined to the rest, 0 FLOPs, q or k read
#     and written 2 x 2 x 2 x 6144 = 49,152 B; attention 4 x 64 x 96 / 2 =
#     12,288 (2 x 4 x 6144 = 49,152 B): 226,510,848 + 75,503,616
#     + 302,235,648 + 302,008,320 + 98,304 + 9216 + 12,288 = 906,378,240
#     FLOPs; 226,578,432 + 75,534,336 + 302,100,480 + 302,088,192 + 98,304
#     + 12,480 + 49,152 + 49,152 = 906,510,528 B
hand_layer gpt_neox_20b 44 qkv:226510848:226578432 o_proj:75503616:75534336 \
  up:302235648:302100480 down:302008320:302088192 a:12288:49152
hand_total 44 906378240:906510528
# The MoE layers (R-MOE-002): at T = 1 the K chosen experts' weights are
# read, E x (1 - (1 - K/E)^1) = K, and each op of an expert runs K rows, so
# an expert's projection in -> out is K x 2 x in x out FLOPs over
# b x (K x in + K x in x out + K x out) bytes; the router's logits are
# H -> E; the shared experts are one MLP of their summed width.
# Mixtral-8x7B (the attention of Llama-3-8B above; 8 experts, K 2, I 14336):
#   router_logits 4096 -> 8: 65,536; 2 x (4096 + 32,768 + 8) = 73,744 B
#   expert_gate_up 2 x 4 x 4096 x 14336 = 469,762,048; 2 x (2 x 4096
#     + 2 x 117,440,512 + 2 x 28672) = 469,893,120 B
#   expert_down 2 x 2 x 14336 x 4096 = 234,881,024 (the add is the kernel
#     x after the block); 2 x (2 x 14336 + 2 x 58,720,256 + 2 x 4096) =
#     234,954,752 B
#   the whole layer: Llama-3's norms, rope and attention (8192 + 32,768
#     + 15,360 FLOPs; 20,480 + 49,152 + 21,504 B), the router's softmax
#     5 x 8 = 40 (2 x 2 x 8 = 32 B) and topk, 1 per score, 8 (scores,
#     2 values, 2 int64 indices: 16 + 4 + 16 = 36 B), the experts'
#     silu-and-mul 2 x 6 x 14336 = 172,032 (2 x 2 x 3 x 14336 = 172,032 B),
#     the residual add 4096 (2 x 3 x 4096 = 24,576 B): 50,331,648
#     + 33,558,528 + 65,536 + 469,762,048 + 234,881,024 + 8192 + 32,768
#     + 15,360 + 40 + 8 + 172,032 + 4096 = 788,831,280 FLOPs; 50,352,128
#     + 33,579,008 + 73,744 + 469,893,120 + 234,954,752 + 20,480 + 49,152
#     + 21,504 + 32 + 36 + 172,032 + 24,576 = 789,140,564 B
hand_layer mixtral_8x7b 32 qkv:50331648:50352128 attn_out:33558528:33579008 \
  router_logits:65536:73744 expert_gate_up:469762048:469893120 \
  expert_down:234881024:234954752
hand_total 32 788831280:789140564
# Qwen3-30B-A3B (H 2048, 32 q and 4 kv heads of 128, 128 experts, K 8,
# moe_intermediate_size 768):
#   qkv 2048 -> (32 + 8) x 128 = 5120: 20,971,520; 2 x (2048 + 10,485,760
#     + 5120) = 20,985,856 B
#   attn_out 4096 -> 2048 + add: 16,777,216 + 2048 = 16,779,264;
#     2 x (4096 + 8,388,608 + 4096) = 16,793,600 B
#   router_logits 2048 -> 128: 524,288; 2 x (2048 + 262,144 + 128) =
#     528,640 B
#   expert_gate_up 8 x 4 x 2048 x 768 = 50,331,648; 2 x (8 x 2048
#     + 8 x 3,145,728 + 8 x 1536) = 50,388,992 B
#   expert_down 8 x 2 x 768 x 2048 = 25,165,824; 2 x (8 x 768 + 8 x
#     1,572,864 + 8 x 2048) = 25,210,880 B
#   the whole layer: rmsnorms 2 x 4 x 2048 = 16,384 (2 x 2 x 3 x 2048 =
#     24,576 B), q_norm and k_norm 4 x (4096 + 512) = 18,432 (2 x (4096
#     + 128 + 4096) + 2 x (512 + 128 + 512) = 18,944 B), rope 3 x (4096
#     + 512) = 13,824 (2 x (2 x 4096 + 256) + 2 x (2 x 512 + 256) = 19,456
#     B), attention 4 x 32 x 128 / 2 = 8192 (2 x (4096 + 512 + 512 + 4096)
#     = 18,432 B), softmax 5 x 128 = 640 (512 B), topk 128 (256 + 16 + 64
#     = 336 B), silu-and-mul 8 x 6 x 768 = 36,864 (36,864 B), add 2048
#     (12,288 B): 20,971,520 + 16,779,264 + 524,288 + 50,331,648
#     + 25,165,824 + 16,384 + 18,432 + 13,824 + 8192 + 640 + 128 + 36,864
#     + 2048 = 113,869,056 FLOPs; 20,985,856 + 16,793,600 + 528,640
#     + 50,388,992 + 25,210,880 + 24,576 + 18,944 + 19,456 + 18,432 + 512
#     + 336 + 36,864 + 12,288 = 114,039,376 B
hand_layer qwen3_moe_30b_a3b 48 qkv:20971520:20985856 attn_out:16779264:16793600 \
  router_logits:524288:528640 expert_gate_up:50331648:50388992 \
  expert_down:25165824:25210880
hand_total 48 113869056:114039376
# Qwen1.5-MoE-A2.7B (H 2048, 16 heads of 128, q/k/v biases, 60 experts,
# K 4, moe_intermediate_size 1408, one shared expert of 5632):
#   qkv 2048 -> 6144 + bias: 25,165,824 + 6144 = 25,171,968; 2 x (2048
#     + 12,582,912 + 2 x 6144) = 25,194,496 B
#   attn_out 2048 -> 2048 + add: 8,388,608 + 2048 = 8,390,656; 2 x (2048
#     + 4,194,304 + 4096) = 8,400,896 B
#   router_logits 2048 -> 60: 245,760; 2 x (2048 + 122,880 + 60) =
#     249,976 B
#   shared_gate_up 4 x 2048 x 5632 = 46,137,344; 2 x (2048 + 23,068,672
#     + 11264) = 46,163,968 B
#   shared_down 2 x 5632 x 2048 = 23,068,672; 2 x (5632 + 11,534,336
#     + 2048) = 23,084,032 B
#   expert_gate_up 4 x 4 x 2048 x 1408 = 46,137,344; 2 x (4 x 2048
#     + 4 x 5,767,168 + 4 x 2816) = 46,176,256 B
#   expert_down 4 x 2 x 1408 x 2048 = 23,068,672; 2 x (4 x 1408 + 4 x
#     2,883,584 + 4 x 2048) = 23,096,320 B
#   (one token touches exactly K = 4 of the 60 experts: R-MOE-002's
#   E(1 - (1 - K/E)^T) at T = 1, which cost.c computes as 60 - 56 so that
#   it is 4 in doubles too).
hand_layer qwen2_moe_a2_7b 24 qkv:25171968:25194496 attn_out:8390656:8400896 \
  router_logits:245760:249976 shared_gate_up:46137344:46163968 \
  shared_down:23068672:23084032 expert_gate_up:46137344:46176256 \
  expert_down:23068672:23096320
# Multi-head latent attention (R-HF-010): its whole layer is long, so every
# matmul of one MoE layer is checked, and the attention.
# DeepSeek-V2-Lite (H 2048, 16 heads, q_lora_rank null, kv_lora_rank 512,
# qk_nope 128 + qk_rope 64 = 192, v 128; 64 experts, K 6, 1408 wide, 2
# shared experts of 2816 in all):
#   q (q_proj) 2048 -> 16 x 192 = 3072: 12,582,912; 2 x (2048 + 6,291,456
#     + 3072) = 12,593,152 B
#   kv (kv_a_proj_with_mqa) 2048 -> 512 + 64: 2,359,296; 2 x (2048
#     + 1,179,648 + 576) = 2,364,544 B
#   kvh (kv_b_proj) 512 -> 16 x (128 + 128) = 4096: 4,194,304; 2 x (512
#     + 2,097,152 + 4096) = 4,203,520 B
#   attn_out (o_proj) 16 x 128 -> 2048 + add: 8,390,656; 8,400,896 B
#   attention, one query over one key, causal half: 16 x (2 x 192 + 2 x
#     128) / 2 = 5120; q, k (192 wide), v and out (128) 2 x 16 x (2 x 192
#     + 2 x 128) = 20,480 B
#   router_logits 2048 -> 64: 262,144; 2 x (2048 + 131,072 + 64) =
#     266,368 B
#   expert_gate_up 6 x 4 x 2048 x 1408 = 69,206,016; 2 x (6 x 2048
#     + 6 x 5,767,168 + 6 x 2816) = 69,264,384 B
#   expert_down 6 x 2 x 1408 x 2048 = 34,603,008; 2 x (6 x 1408 + 6 x
#     2,883,584 + 6 x 2048) = 34,644,480 B
#   shared_gate_up 4 x 2048 x 2816 = 23,068,672; 2 x (2048 + 11,534,336
#     + 5632) = 23,084,032 B
#   shared_down 2 x 2816 x 2048 = 11,534,336; 2 x (2816 + 5,767,168
#     + 2048) = 11,544,064 B
hand_layer deepseek_v2_lite 26 q:12582912:12593152 kv:2359296:2364544 \
  kvh:4194304:4203520 attn_out:8390656:8400896 a:5120:20480 \
  router_logits:262144:266368 expert_gate_up:69206016:69264384 \
  expert_down:34603008:34644480 shared_gate_up:23068672:23084032 \
  shared_down:11534336:11544064
# DeepSeek-V3 (H 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512;
# 256 experts, K 8, 2048 wide, 1 shared expert) with fp8 weights, 1 byte,
# and bf16 activations, 2 bytes (R-HF-013):
#   cq (q_a_proj) 7168 -> 1536: 22,020,096; 2 x 7168 + 11,010,048
#     + 2 x 1536 = 11,027,456 B
#   q (q_b_proj) 1536 -> 128 x 192 = 24576: 75,497,472; 2 x 1536
#     + 37,748,736 + 2 x 24576 = 37,800,960 B
#   kv (kv_a_proj_with_mqa) 7168 -> 576: 8,257,536; 2 x 7168 + 4,128,768
#     + 2 x 576 = 4,144,256 B
#   kvh (kv_b_proj) 512 -> 128 x 256 = 32768: 33,554,432; 2 x 512
#     + 16,777,216 + 2 x 32768 = 16,843,776 B
#   attn_out (o_proj) 16384 -> 7168 + add: 234,881,024 + 7168 =
#     234,888,192; 2 x 16384 + 117,440,512 + 2 x 2 x 7168 = 117,501,952 B
#   router_logits (gate, bf16) 7168 -> 256: 3,670,016; 2 x (7168
#     + 1,835,008 + 256) = 3,684,864 B
#   expert_gate_up 8 x 4 x 7168 x 2048 = 469,762,048; 2 x 8 x 7168
#     + 8 x 29,360,128 + 2 x 8 x 4096 = 235,061,248 B
#   expert_down 8 x 2 x 2048 x 7168 = 234,881,024; 2 x 8 x 2048
#     + 8 x 14,680,064 + 2 x 8 x 7168 = 117,587,968 B
#   shared_gate_up 4 x 7168 x 2048 = 58,720,256; 2 x 7168 + 29,360,128
#     + 2 x 4096 = 29,382,656 B
#   shared_down 2 x 2048 x 7168 = 29,360,128; 2 x 2048 + 14,680,064
#     + 2 x 7168 = 14,698,496 B
#   attention a: 128 x (2 x 192 + 2 x 128) / 2 = 40,960; 2 x 128 x (2 x 192
#     + 2 x 128) = 163,840 B
hand_layer deepseek_v3 58 a:40960:163840 cq:22020096:11027456 q:75497472:37800960 \
  kv:8257536:4144256 kvh:33554432:16843776 attn_out:234888192:117501952 \
  router_logits:3670016:3684864 expert_gate_up:469762048:235061248 \
  expert_down:234881024:117587968 shared_gate_up:58720256:29382656 \
  shared_down:29360128:14698496

# Training (R-HF-002): GPT-2 fits an H100 with Adam; Llama-2-7B does not, and
# its one error is the capacity check (13.5 GB weights, as many gradients,
# 80.9 GB Adam state, 8.78 GB of what backward reads, R-TRAIN-002), not
# the language.
run --phase train --format json "$HF/gpt2.json"
expect_status 0
expect_eq "gpt2 train mode" "$(json_field "$T/out" "d['models'][0]['mode']")" train
run -w --phase train "$HF/llama2_7b.json"
expect_status 1
expect_grep "$T/err" "needs 116.6 GB but H100 SXM has 80 GiB = 85.9 GB"
expect_grep "$T/err" "[-Wcapacity]"

# A decode step reads the weights and the KV cache (R-HF-008).  By hand,
# Llama-2-7B in fp16 at batch 1 over a 2048-token cache: the weights
# 6,738,415,616 x 2 = 13,476,831,232 B less the embedding table, of which
# one row is gathered (32000 x 4096 x 2 = 262,144,000 B), plus the cache,
# 32 layers x K and V x 32 heads x 2048 x 128 x 2 B = 1,073,741,824 B:
# 14,288,429,056 B.  The rest (this token's activations, its k and v
# appended) is about 0.1%, so within 1%.  The attention reads the cache
# through `append`, at its length after this token (R-CACHE-002): K and V
# 2 x 32 x 2049 x 128 x 2 = 33,570,816 B plus q and its output 2 x 4096 x 2
# = 16,384 B: 33,587,200 B; 4 x 32 x 2049 x 128 = 33,570,816 FLOPs.  The
# append moves this token's k only, 32 x 128 x 2 = 8,192 B read and
# written: 16,384 B.
run -w --format json --phase decode "$HF/llama2_7b.json"
expect_status 0
expect_eq "decode errors" "$(json_field "$T/out" "d['counts']['errors']")" 0
expect_eq "decode bytes within 1% of weights + cache" \
  "$(json_field "$T/out" "abs(d['models'][0]['summary']['bytes'] - 14288429056) < 14288429056e-2")" True
k="[k for k in d['models'][0]['kernels'] if k['count'] == 32]"
expect_eq "decode attention bytes" "$(json_field "$T/out" "[k['bytes'] for k in $k if k['name'] == 'a'][0]")" 33587200
expect_eq "decode attention flops" "$(json_field "$T/out" "[k['flops'] for k in $k if k['name'] == 'a'][0]")" 33570816
expect_eq "decode append bytes" "$(json_field "$T/out" "[k['bytes'] for k in $k if k['name'] == 'k_all'][0]")" 16384

# README's "Linting a Hugging Face model" shows these runs as they print.
run -w "$HF/llama3_8b.json"
expect_grep README.md "$(cat "$T/out")"
run -w -D batch=8 "$HF/mistral_7b.json"
expect_grep README.md "$(cat "$T/out")"
run -w --phase train "$HF/gpt2.json"
expect_grep README.md "$(cat "$T/out")"

# --- warnings (R-HF-006): a field that changes the cost and is not modelled
run import "$HF/deepseek_v3.json"
expect_status 0
expect_err "tests/hf/deepseek_v3.json:29:3: warning: 'num_nextn_predict_layers' changes the cost (the multi-token-prediction module: not written, as the published parameter counts leave it out) and is not modelled"
# R-HF-013: a quantization_config that is not fp8 is a warning saying why,
# and the weights stay in the plan dtype (GPTQ's, as TheBloke's Llama-2-7B
# config writes it; bitsandbytes' has no quant_method in older configs).
sed 's/"vocab_size": 32000/"vocab_size": 32000,\n  "quantization_config": {"bits": 4, "group_size": 128, "desc_act": false, "quant_method": "gptq"}/' \
  "$HF/llama2_7b.json" >"$T/gptq.json"
run import "$T/gptq.json"
expect_status 0
expect_err "$T/gptq.json:25:3: warning: 'quantization_config' (quant_method \"gptq\") changes the cost (the weights' storage dtype) and is not modelled: rooflint prices fp8 checkpoints only (a GPTQ or AWQ GEMM also reads its group scales and zeros, which a matmul has no operand for); the weights stay in the plan dtype"
expect_grep "$T/out" "    weight q_proj : [hidden_size, num_attention_heads * head_dim]"
sed 's/"vocab_size": 32000/"vocab_size": 32000,\n  "quantization_config": {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4"}/' \
  "$HF/llama2_7b.json" >"$T/bnb.json"
run import "$T/bnb.json"
expect_err "$T/bnb.json:25:3: warning: 'quantization_config' changes the cost (the weights' storage dtype) and is not modelled: it names no quant_method; the weights stay in the plan dtype"
# fp8 with one scale a tensor (no weight_block_size), e5m2: a [1] scale a
# projection, 32 x 7 x 4 B = 896 B of buffers; fp8 weights 32 x 202,375,168
# = 6,476,005,376 B and the embedding and head 2 x 32000 x 4096 x 2 plus
# the norms (32 x 2 + 1) x 4096 x 2: 7,000,825,856 B; a modules_to_not_convert
# beyond the head is not honoured (a warning).
sed 's/"vocab_size": 32000/"vocab_size": 32000,\n  "quantization_config": {"quant_method": "fp8", "fmt": "e5m2", "activation_scheme": "static"}/' \
  "$HF/llama2_7b.json" >"$T/fp8.json"
run import "$T/fp8.json"
expect_empty "$T/err"
expect_grep "$T/out" "    weight q_proj : fp8_e5m2[hidden_size, num_attention_heads * head_dim]"
expect_grep "$T/out" "    buffer q_proj_scale : fp32[1]"
run --format json "$T/fp8.json"
expect_eq "fp8 tensor-scaled weights" "$(json_field "$T/out" "d['models'][0]['summary']['footprint']['weights']")" 7000825856
expect_eq "fp8 tensor scales" "$(json_field "$T/out" "d['models'][0]['summary']['footprint']['buffers']")" 896
expect_eq "fp8 params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 6738415616
sed 's/"vocab_size": 32000/"vocab_size": 32000,\n  "quantization_config": {"quant_method": "fp8", "modules_to_not_convert": ["lm_head", "model.layers.0.mlp"]}/' \
  "$HF/llama2_7b.json" >"$T/fp8n.json"
run import "$T/fp8n.json"
expect_err "$T/fp8n.json:25:3: warning: 'quantization_config' (quant_method \"fp8\") changes the cost (the weights' storage dtype) and is not modelled: its modules_to_not_convert keeps layers in the plan dtype that the importer would write in fp8; the weights stay in the plan dtype"
# R-HF-013: an fp8 field of the wrong kind is no default (fmt 5 read as
# absent was e4m3; a string modules_to_not_convert read as an empty list)
sed 's/"vocab_size": 32000/"vocab_size": 32000,\n  "quantization_config": {"quant_method": "fp8", "fmt": 5}/' \
  "$HF/llama2_7b.json" >"$T/fp8f.json"
run import "$T/fp8f.json"
expect_status 0
expect_err "$T/fp8f.json:25:3: warning: 'quantization_config' (quant_method \"fp8\") changes the cost (the weights' storage dtype) and is not modelled: its fmt is neither e4m3 nor e5m2; the weights stay in the plan dtype"
sed 's/"vocab_size": 32000/"vocab_size": 32000,\n  "quantization_config": {"quant_method": "fp8", "modules_to_not_convert": "lm_head"}/' \
  "$HF/llama2_7b.json" >"$T/fp8m.json"
run import "$T/fp8m.json"
expect_err "$T/fp8m.json:25:3: warning: 'quantization_config' (quant_method \"fp8\") changes the cost (the weights' storage dtype) and is not modelled: its modules_to_not_convert is not a list of module names; the weights stay in the plan dtype"
# Training keeps the weights in the plan dtype, and says so.
run import --phase train "$HF/deepseek_v3.json"
expect_grep "$T/out" "# quantization_config (fp8 weights) is the served checkpoint's storage: training keeps the weights, their gradients and optimizer state in bf16."
run import -w "$HF/deepseek_v3.json"
expect_empty "$T/err"
printf '{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,\n "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,\n "flux_capacitor": 3}\n' >"$T/odd.json"
run import "$T/odd.json"
expect_status 0
expect_err "$T/odd.json:3:2: warning: 'flux_capacitor' is not a field the llama importer knows; if it changes the cost, edit the generated model"

# --- bad configs (R-HF-005): each one error naming the file and the key, at
# the key's line:column; the same through import and through the lint.
for f in "$HF"/bad/*.json; do
  run import "$f"
  expect_status 1
  expect_err "$(cat "${f%.json}.err")"
  run "$f"
  expect_status 1
  expect_err "$(cat "${f%.json}.err")"
done
# mlp_only_layers (R-HF-005): an entry is a layer number from 0 to 47, 3.0
# being 3 and a repeat harmless, as Python's `layer_idx in
# mlp_only_layers` takes them; [0, 3.0, 0] makes layers 0 and 3 dense, each
# 3 x 2048 x 6144 = 37,748,736 in place of the router 128 x 2048 = 262,144
# and the experts 128 x 3 x 2048 x 768 = 603,979,776: 30,532,122,624 -
# 2 x 566,493,184 = 29,399,136,256 parameters
sed 's/"mlp_only_layers": \[\]/"mlp_only_layers": [0, 3.0, 0]/' "$HF/qwen3_moe_30b_a3b.json" >"$T/q3.json"
run -w -Wno-capacity --format json "$T/q3.json"
expect_status 0
expect_eq "mlp_only_layers [0, 3.0, 0]" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 29399136256
# a num_nextn_predict_layers of another kind than 0 is warned of, as any
# value but the 0 that means no module ("0" read as 0 was silent)
printf '{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,\n "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,\n "num_nextn_predict_layers": "0"}\n' >"$T/mtp.json"
run import "$T/mtp.json"
expect_status 0
expect_err "$T/mtp.json:3:2: warning: 'num_nextn_predict_layers' changes the cost (the multi-token-prediction module: not written, as the published parameter counts leave it out) and is not modelled"
run import --phase decod "$HF/gpt2.json"
expect_status 1
expect_err "rooflint: error: unknown --phase 'decod'; did you mean 'decode'? (prefill, decode or train)"
run import --phase decode "$HF/bert_base.json"
expect_status 1
expect_err "rooflint: error: tests/hf/bert_base.json:14:3: a bert model is an encoder: it has no decode phase (use --phase prefill or train)"
run import -D tensor=3 "$HF/llama2_7b.json"
expect_status 1
expect_err "rooflint: error: tests/hf/llama2_7b.json:14:3: -D tensor=3 does not divide 'num_attention_heads' 32: each GPU holds whole heads and equal slices"
run import "$T/none.json"
expect_status 2
expect_err "rooflint: error: cannot open '$T/none.json': No such file or directory"
# A .json file that is no Hugging Face config is not imported.
printf '{"a": 1}\n' >"$T/plain.json"
run import "$T/plain.json"
expect_status 2
expect_grep "$T/err" "is not a format rooflint imports"
# A finding on the whole model is placed at the family's key (model_type,
# line 14 of bert_base.json), never at a line of the generated text: the
# config has 23 lines, the text's `model` line is its 32nd.
run "$HF/bert_base.json"
expect_status 0
expect_grep "$T/err" "tests/hf/bert_base.json:14:3: warning: 11 of 11 kernels in model 'bert_base'"
# R-DIAG-001: one GNU line, the config's line under it, the generated
# statement as a note
expect_grep "$T/err" '   14 |   "model_type": "bert",'
expect_grep "$T/err" "tests/hf/bert_base.json:14:3: note: in the imported text: model bert_base {"
finish
