#!/bin/sh
# hf_families.sh: the families of specs/hf.md (R-FAM-001 .. R-FAM-004), each
# imported from its published config.json in tests/hf/families/.
. tests/cli/driver_lib.inc
HF=tests/hf/families
PY=/usr/bin/python3
. tests/cli/hf_lib.inc

# --- golden text (R-HF-007, R-HF-012): NAME[-decode][-train][-tp8].roof is
# `rooflint import` of NAME.json with --phase decode|train, -D tensor=8.
check_goldens

# --- every family lints with no error in every phase it has (R-FAM-001,
# R-FAM-005, R-FAM-006),
# alone, with tensor parallelism where the degree divides its heads (Falcon-
# 7B's 71 heads and Gemma-3-1B's one KV head divide by none; StarCoder2's
# and Gemma-3-4B's 4 KV heads and RoBERTa's 12 heads by 4) and with expert parallelism; -Wno-capacity, as a model may
# not fit.
for f in "$HF"/*.json; do
  name=$(basename "$f" .json)
  case $name in falcon_7b|gemma3_1b) tps="" ;; starcoder2_7b|roberta_base|gemma3_4b) tps=4 ;; *) tps=8 ;; esac
  case $name in whisper_tiny) tps=2 ;; esac # its 6 heads (hf_encdec.sh)
  case $name in mamba_130m) tps="" ;; esac  # not tensor-parallel (R-FAM-202)
  for phase in prefill decode train; do
    [ "$name.$phase" = roberta_base.decode ] && continue
    for d in "" ${tps:+"-D tensor=$tps"} "-D data=8 -D expert=8"; do
      # shellcheck disable=SC2086
      lints_clean "$f" "$phase" $d
    done
  done
done
run --phase decode "$HF/roberta_base.json"
expect_status 1
expect_err "rooflint: error: $HF/roberta_base.json:15:3: a roberta model is an encoder: it has no decode phase (use --phase prefill or train)"

# --- parameter counts (R-FAM-001), as computed in specs/hf.md:
#   Falcon-7B     32 x (4544 x 73 x 64 + 4544^2 + 2 x 4544 x 18176 + 9088)
#                 + 65024 x 4544 (tied) + 9088 = 6,921,720,704
#   GPT-J-6B      28 x (4 x 4096^2 + 2 x 4096 x 16384 + 16384 + 4096 + 8192)
#                 + 2 x 50400 x 4096 + 50400 (head bias) + 8192 = 6,050,882,784
#   StarCoder2-7B 32 x 217,106,944 + 49152 x 4608 (tied) + 9216 = 7,173,923,840
#   OLMo-2-7B     32 x (4 x 4096^2 + 8192 + 3 x 4096 x 11008 + 8192)
#                 + 2 x 100352 x 4096 + 4096 = 7,298,617,344
#   BLOOM-560m    24 x 12,596,224 + 250880 x 1024 (tied) + 2 x 2048
#                 = 559,214,592
#   RoBERTa-base  12 x 7,087,872 + (50265 + 514 + 1) x 768 + 1536
#                 + 590,592 pooler = 124,645,632
#   Phi-3.5-MoE   32 x (41,943,040 + 10,240 + 65,536 + 16 x 3 x 4096 x 6400
#                 + 16,384) + 2 x 32064 x 4096 + 32064 + 8192 = 41,873,153,344;
#                 active, 2 of 16 experts: 32 x 199,321,600 + 262,708,544
#                 = 6,640,999,744
#   Gemma-3-1B    26 x (1152 x 1024 + 2 x 1152 x 256 + 1024 x 1152 + 512
#                 + 3 x 1152 x 6912 + 4 x 1152) + 262144 x 1152 (tied) + 1152
#                 = 999,885,952 (R-FAM-005)
#   Gemma-3-4B    the language model of text_config, the rest Gemma3TextConfig's
#                 defaults: 34 x 94,382,592 + 262208 x 2560 + 2560
#                 = 3,880,263,168
#   gpt-oss-20b   24 x (26,550,144 attention with 64 sinks + 92,192 router
#                 + 32 x 24,891,840 experts with biases + 5,760) + 2 x 201088
#                 x 2880 + 2880 = 20,914,757,184; active, 4 of 32 experts:
#                 24 x 126,215,456 + 1,158,269,760 = 4,187,440,704 (R-FAM-006:
#                 the published 3.6 B is this less the embedding's 579,133,440)
#   GLM-4.5-Air   (243,554,304 dense layer) + 45 x (109,066,240 attention
#                 + 524,416 router + 128 x 3 x 4096 x 1408 + 3 x 4096 x 1408
#                 + 8192) + 2 x 151552 x 4096 + 4096 = 106,852,251,264;
#                 active, 8 of 128: 45 x 265,312,384 + 243,554,304
#                 + 1,241,518,080 = 13,424,129,664 (R-FAM-007)
for row in glm4_5_air:106852251264:13424129664 \
           gpt_oss_20b:20914757184:4187440704 \
           gemma3_1b:999885952: gemma3_4b:3880263168: \
           falcon_7b:6921720704: gptj_6b:6050882784: starcoder2_7b:7173923840: \
           olmo2_7b:7298617344: bloom_560m:559214592: roberta_base:124645632: \
           phimoe_42b:41873153344:6640999744; do
  name=${row%%:*}; rest=${row#*:}; total=${rest%%:*}; active=${rest#*:}
  run -w -Wno-capacity --format json "$HF/$name.json"
  expect_status 0
  expect_eq "$name params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" "$total"
  if [ -n "$active" ]; then
    expect_eq "$name active params" "$(json_field "$T/out" "d['models'][0]['summary']['active_params']")" "$active"
  fi
done

# --- one layer by hand (R-FAM-002, R-FAM-004), prefill at -D seq=1 (one
# token; bf16, 2 bytes an element), with hf_lib.inc's hand_layer and
# hand_total.
# Falcon-7B (H 4544, 71 heads and one KV head of 64, MLP 18176, no biases):
#   qkv 4544 -> 73 x 64 = 4672: 2 x 4544 x 4672 = 42,459,136;
#     2 x (4544 + 21,229,568 + 4672) = 42,477,568 B
#   the attention, one query and one key, causal: 2 x 71 x 1/2 x (64 + 64)
#     = 9,088; q, k, v, out 2 x (4544 + 64 + 64 + 4544) = 18,432 B
#   o_proj 2 x 4544^2 = 41,295,872, no add (the parallel residual waits):
#     2 x (4544 + 20,647,936 + 4544) = 41,314,048 B
#   up 2 x 4544 x 18176 + gelu 5 x 18176 = 165,274,368;
#     2 x (4544 + 82,591,744 + 18176) = 165,228,928 B
#   down 2 x 18176 x 4544 + the two residual adds 2 x 4544 = 165,192,576;
#     2 x (18176 + 82,591,744 + 3 x 4544 read + 4544 written) = 165,247,104 B
#   the MLP has no norm of its own (one LayerNorm, h: 8 x 4544 = 36,352 FLOPs,
#   2 x 4 x 4544 = 36,352 B) and rope 3 x (4544 + 64) = 13,824 FLOPs:
#   36,352 + 42,459,136 + 13,824 + 9,088 + 41,295,872 + 165,274,368
#   + 165,192,576 = 414,281,216 FLOPs; 414,341,376 B in all
hand_layer falcon_7b 32 qkv:42459136:42477568 a:9088:18432 \
  o_proj:41295872:41314048 up:165274368:165228928 down:165192576:165247104 \
  h:36352:36352
hand_total 32 414281216:414341376
# BLOOM-560m (H 1024, 16 heads of 64, every projection with a bias):
#   qkv 2 x 1024 x 3072 + 3072 = 6,294,528; 2 x (1024 + 3,145,728 + 3072
#     + 3072) = 6,305,792 B
#   the attention with ALiBi (R-FAM-004): 2 x 16 x 1/2 x 128 = 2,048 + 2 x 8
#     scores = 2,064; 2 x 4 x 1024 + 16 slopes x 4 = 8,256 B
#   attn_out 2 x 1024^2 + bias 1024 + add 1024 = 2,099,200;
#     2 x (1024 + 1,048,576 + 1024 + 1024 + 1024) = 2,105,344 B
#   up 2 x 1024 x 4096 + 4096 + gelu tanh 9 x 4096 = 8,429,568;
#     2 x (1024 + 4,194,304 + 4096 + 4096) = 8,407,040 B
#   down 2 x 4096 x 1024 + 1024 + 1024 = 8,390,656;
#     2 x (4096 + 4,194,304 + 3 x 1024) = 8,402,944 B
#   two LayerNorms 2 x 8 x 1024 = 16,384 (2 x 8,192 B): 25,232,400 FLOPs;
#   25,245,760 B
hand_layer bloom_560m 24 qkv:6294528:6305792 a:2064:8256 \
  attn_out:2099200:2105344 up:8429568:8407040 down:8390656:8402944
hand_total 24 25232400:25245760
# GPT-J-6B (H 4096, 16 heads of 256, rotary on 64 of each, MLP 16384 with
# biases, no attention biases):
#   qkv 3 x 2 x 4096^2 = 100,663,296; 2 x (4096 + 3 x 16,777,216 + 3 x 4096)
#     = 100,696,064 B
#   attention 2 x 16 x 1/2 x 512 = 8,192; 2 x 4 x 4096 = 32,768 B
#   o_proj 2 x 4096^2 = 33,554,432 (the parallel residual waits);
#     2 x (4096 + 16,777,216 + 4096) = 33,570,816 B
#   up 2 x 4096 x 16384 + 16384 bias + gelu_new 9 x 16384 = 134,381,568;
#     2 x (4096 + 67,108,864 + 2 x 16384) = 134,291,456 B
#   down 2 x 16384 x 4096 + bias and two adds 3 x 4096 = 134,230,016;
#     2 x (16384 + 67,108,864 + 4 x 4096) = 134,283,264 B
#   rope on 16 x 64 of q and of k, 3 x 1024 = 3,072 each; q_rot, cos, sin
#     and out 2 x (1024 + 64 + 64 + 1024) = 4,352 B
hand_layer gptj_6b 28 qkv:100663296:100696064 a:8192:32768 \
  o_proj:33554432:33570816 up:134381568:134291456 down:134230016:134283264 \
  q.rope:3072:4352
hand_total 28 402876416:402948608
# OLMo-2-7B (fp32, 4 B an element; no norm before attention or MLP):
#   qkv 3 x 2 x 4096^2 = 100,663,296; 4 x (4096 + 3 x 16,777,216 + 3 x 4096)
#     = 201,392,128 B
#   q_norm over all of q, 4 x 4096 = 16,384; 4 x 3 x 4096 = 49,152 B
#   o_proj 2 x 4096^2 = 33,554,432; 4 x (4096 + 16,777,216 + 4096)
#     = 67,141,632 B; then post_attention_layernorm and the add
#   gate_up 4 x 4096 x 11008 = 180,355,072; 4 x (4096 + 90,177,536
#     + 2 x 11008) = 360,814,592 B
#   down 2 x 11008 x 4096 = 90,177,536; 4 x (11008 + 45,088,768 + 4096)
#     = 180,415,488 B
hand_layer olmo2_7b 32 qkv:100663296:201392128 q:16384:49152 \
  o_proj:33554432:67141632 gate_up:180355072:360814592 down:90177536:180415488
hand_total 32 404922880:810323968
# Phi-3.5-MoE at one token: 2 of the 16 experts, each reading the token
#   expert_gate_up 2 x 2 x 2 x 4096 x 6400 = 209,715,200; 2 x 2 x (4096
#     + 2 x 26,214,400 + 2 x 6400) = 209,782,784 B
#   expert_down 2 x 2 x 6400 x 4096 = 104,857,600; 2 x 2 x (6400
#     + 26,214,400 + 4096) = 104,899,584 B
#   the router 2 x 4096 x 16 = 131,072; 2 x (4096 + 65,536 + 16) = 139,296 B
hand_layer phimoe_42b 32 expert_gate_up:209715200:209782784 \
  expert_down:104857600:104899584 router_logits:131072:139296
# ALiBi at 2048 prompt tokens: 2 x 16 x 2048^2 / 2 x 128 = 8,589,934,592
# + 2 x 16 x 2048^2 / 2 = 67,108,864; 4 x 2048 x 1024 x 2 + 64 B
run -w --format json "$HF/bloom_560m.json"
expect_eq "bloom attention at 2048" "$(json_field "$T/out" \
  "[(k['flops'], k['bytes']) for k in d['models'][0]['kernels'] if k['name'] == 'a'][0]")" "(8657043456, 16777280)"

# the layers as written: one norm in the parallel block, OLMo 2's norms
# after and its whole-width q/k norms, ALiBi in decode, the head's bias
expect_grep "$HF/falcon_7b-decode.roof" "let num_key_value_heads = 1              # multi_query: one KV head"
expect_grep "$HF/falcon_7b-decode.roof" "    # the MLP reads the attention's norm, h"
expect_grep "$HF/olmo2_7b.roof" "    q = rmsnorm(q, q_norm)  # over all the heads"
expect_grep "$HF/olmo2_7b.roof" "    e = rmsnorm(e, post_feedforward_layernorm)"
expect_grep "$HF/bloom_560m-decode.roof" "    a = attention(q, k_all, v_all, alibi=true)"
expect_grep "$HF/bloom_560m-decode.roof" "  x = layernorm(x, word_embeddings_layernorm, word_embeddings_layernorm_bias)"
expect_grep "$HF/gptj_6b.roof" "  logits = add(logits, lm_head_bias)"
expect_grep "$HF/phimoe_42b-decode-tp8.roof" "  weight lm_head_bias : [cdiv(vocab_size, tensor)] shard=tensor"
expect_grep "$HF/roberta_base-train.roof" "let seq = 512 "

# Gemma 3's interleaved layers (R-FAM-005): sliding_window_pattern 6, so
# decode writes runs of five sliding layers and one global one; the KV cache
# at ctx 2048 with the step's token is 22 x 513 + 4 x 2049 tokens of
# 2 x 1 x 256 x 2 B = 19,949,568 B
expect_grep "$HF/gemma3_1b-decode.roof" "  # layers 5 .. 5"
expect_grep "$HF/gemma3_1b-decode.roof" "    cache k_cache_win, v_cache_win : [batch, num_key_value_heads, window_ctx, head_dim]"
expect_grep "$HF/gemma3_4b.roof" "# The language model only: the fields below are text_config's; vision_config is not written."
expect_grep "$HF/gemma3_4b.roof" "#   num_attention_heads                8 (absent: the gemma3 default)"
run -w --format json --phase decode "$HF/gemma3_1b.json"
expect_status 0
expect_eq "gemma3 decode KV cache" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 19949568
# layer_types, when given, decides it: all global is 26 x 2049 x 1024 B
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['layer_types']=['full_attention']*26; json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/gemma3_1b.json" "$T/lt.json"
run -w --format json --phase decode "$T/lt.json"
expect_status 0
expect_eq "gemma3 all-global KV cache" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 54552576
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['layer_types']=['global']*26; json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/gemma3_1b.json" "$T/lt.json"
run "$T/lt.json"
expect_status 1
expect_grep "$T/err" "'layer_types' must be a list of 26 \"sliding_attention\" or \"full_attention\""
# gpt-oss's sinks (R-FAM-006): the attention at one token reads the 64
# sinks, 2 B each, beside q, k, v and out: 2 x 64 x 1/2 x 128 = 8,192 FLOPs,
# 2 x (4096 + 512 + 512 + 4096) + 128 = 18,560 B; decode caches (12 x 129
# + 12 x 2049) x 2 x 8 x 64 x 2 B = 53,526,528 B
hand_layer gpt_oss_20b 24 a:8192:18560
expect_grep "$HF/gpt_oss_20b-decode.roof" "      a = attention(q, k_win, v_win, sinks=true)"
expect_grep "$HF/gpt_oss_20b-decode.roof" "  repeat num_hidden_layers / 2 {"
expect_grep "$HF/gpt_oss_20b-decode.roof" "        gu = add(gu, gate_up_proj_bias)"
run -w --format json --phase decode "$HF/gpt_oss_20b.json"
expect_eq "gpt-oss decode KV cache" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" 53526528

# GLM-4.5 (R-FAM-007): q/k/v biases, none on o_proj; at one token the
# expert layer's qkv is 2 x 4096 x 14336 + 14336 = 117,454,848 FLOPs and
# attn_out 2 x 12288 x 4096 + 4096 (the residual add) = 100,667,392
hand_layer glm4_5_air 45 qkv:117454848:117506048 attn_out:100667392:100704256
expect_no_grep "$HF/glm4_5_air.roof" "o_proj_bias"

# Gemma-2-9B decode past its 4096 window: the sliding pair's cache is its own
run -w -D ctx=8192 --phase decode tests/hf/gemma2_9b.json
expect_status 0

# Falcon's new_decoder_architecture: num_kv_heads KV heads and two norms in
# the parallel block (Falcon-40B's layer: 8 KV heads of 64, H 8192)
sed -e 's/"multi_query": true/"multi_query": true, "num_kv_heads": 8/' \
    -e 's/"new_decoder_architecture": false/"new_decoder_architecture": true/' \
    -e 's/"hidden_size": 4544/"hidden_size": 8192/' \
    -e 's/"num_attention_heads": 71/"num_attention_heads": 128/' \
    "$HF/falcon_7b.json" >"$T/f40.json"
run import "$T/f40.json"
expect_status 0
expect_grep "$T/out" "let num_key_value_heads = 8"
expect_grep "$T/out" "    h = layernorm(x, post_attention_layernorm, post_attention_layernorm_bias)"
# GPT-J's rotary_dim past the head is an error at the key
sed 's/"rotary_dim": 64/"rotary_dim": 512/' "$HF/gptj_6b.json" >"$T/gj.json"
run "$T/gj.json"
expect_status 1
expect_err "rooflint: error: $T/gj.json:21:3: 'rotary_dim' 512 is more than head_dim 256"

# --- a real family rooflint does not import (R-FAM-003): the reason, and
# no did-you-mean toward another architecture
for row in "mamba2:selective state-space v2, not modelled" \
           "bart:encoder-decoder with cross-attention, not modelled"; do
  mt=${row%%:*}
  sed "s/\"model_type\": \"gptj\"/\"model_type\": \"$mt\"/" "$HF/gptj_6b.json" >"$T/u.json"
  run "$T/u.json"
  expect_status 1
  expect_grep "$T/err" "$T/u.json:13:3: model_type '$mt' is a family rooflint does not import: ${row#*:} (rooflint imports llama,"
  expect_no_grep "$T/err" "did you mean"
done

finish
