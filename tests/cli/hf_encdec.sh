#!/bin/sh
# hf_encdec.sh: the encoder-decoders of specs/hf.md (R-FAM-101 .. R-FAM-105),
# T5 and Whisper, imported from their published config.json in
# tests/hf/families/ (hf_families.sh checks their goldens and lints every
# phase); the attention's bias operand they need (R-FAM-102).
. tests/cli/driver_lib.inc
HF=tests/hf/families
PY=/usr/bin/python3
. tests/cli/hf_lib.inc

# --- parameter counts, every phase (R-FAM-103, R-FAM-104), as specs/hf.md
# computes them:
#   T5-small     the shared embedding 32128 x 512 = 16,449,536 (the head
#                tied to it); an encoder layer 4 x 512^2 + 2 x 512 x 2048
#                + 2 x 512 = 3,146,752, six of them 18,880,512, plus the
#                [32, 8] bias table 256 and the final norm 512; a decoder
#                layer 8 x 512^2 + 2 x 512 x 2048 + 3 x 512 = 4,195,840, six
#                25,175,040, plus 256 and 512: 60,506,624 (the issue's figure)
#   whisper-tiny conv1 80 x 384 x 3 + 384 = 92,544, conv2 384 x 384 x 3 + 384
#                = 442,752; an encoder layer 4 x 384^2 + 3 x 384 (q, v, out
#                biases; k_proj has none) + 2 x 384 x 1536 + 1536 + 384
#                + 2 x 768 norms = 1,774,080, four 7,096,320, its norm 768;
#                the decoder's embedding 51865 x 384 = 19,916,160 (proj_out
#                tied), positions 448 x 384 = 172,032, a layer 1,774,080
#                + 590,976 + 768 (cross-attention) = 2,365,824, four
#                9,463,296, its norm 768: 37,184,640; the sinusoidal
#                1500 x 384 = 576,000 table is a buffer (transformers'
#                num_parameters() counts its frozen nn.Embedding:
#                37,760,640)
for row in t5_small:60506624 whisper_tiny:37184640; do
  name=${row%%:*}
  for phase in prefill decode train; do
    run -w -Wno-capacity --format json --phase "$phase" "$HF/$name.json"
    expect_status 0
    expect_eq "$name $phase params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" "${row#*:}"
  done
done
# whisper-large-v3's layout (d_model 1280, 20 heads, 32 + 32 layers, FFN
# 5120, 128 mel bins, V 51866): conv1 128 x 1280 x 3 + 1280 = 492,800,
# conv2 4,916,480, an encoder layer 4 x 1280^2 + 3 x 1280 + 2 x 1280 x 5120
# + 6400 + 5120 = 19,676,160 (x 32 = 629,637,120), its norm 2,560; the
# decoder's embedding 66,388,480 and positions 573,440, a layer 26,236,160
# (x 32 = 839,557,120), its norm 2,560: 1,541,570,560 (and the 1500 x 1280
# sinusoidal buffer)
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d.update(d_model=1280, encoder_attention_heads=20, decoder_attention_heads=20, encoder_layers=32, decoder_layers=32, encoder_ffn_dim=5120, decoder_ffn_dim=5120, num_mel_bins=128, vocab_size=51866); json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/whisper_tiny.json" "$T/wl3.json"
run -w -Wno-capacity --format json "$T/wl3.json"
expect_status 0
expect_eq "whisper-large-v3 layout params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 1541570560
expect_eq "whisper-large-v3 buffers" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['buffers'])")" $((1500 * 1280 * 4))
run -w --format json "$HF/whisper_tiny.json"
expect_eq "whisper buffers" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['buffers'])")" 2304000

# T5 v1.1's layer (google/t5-v1_1-small: gated-gelu, d_ff 1024, 8 layers of
# 6 heads of 64, untied): an encoder layer 4 x 512 x 384 + 3 x 512 x 1024
# + 1024 = 2,360,320, a decoder layer 3,147,264; 8 x 5,507,584 + 2 x 192
# + 2 x 512 + two tables 2 x 16,449,536 = 76,961,152
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d.update(d_ff=1024, num_layers=8, num_heads=6, feed_forward_proj='gated-gelu', tie_word_embeddings=False); json.dump(d, open(sys.argv[2],'w'), indent=2)" "$HF/t5_small.json" "$T/v11.json"
run -w -Wno-capacity --format json "$T/v11.json"
expect_status 0
expect_eq "t5 v1.1 params" "$(json_field "$T/out" "d['models'][0]['summary']['params']")" 76961152
run import "$T/v11.json"
expect_grep "$T/out" "      g = gelu(g, approximate=\"tanh\")"
expect_grep "$T/out" "  weight lm_head : [hidden_size, vocab_size]"
expect_no_grep "$T/out" "x = mul(x, 0.0441942)"
expect_grep "$HF/t5_small.roof" "  x = mul(x, 0.0441942)  # tied: times d_model^-0.5, as T5 rescales before the shared head"
sed 's/"relative_attention_num_buckets": 32,/"relative_attention_num_buckets": 32, "feed_forward_proj": "gated-mish",/' "$HF/t5_small.json" >"$T/bad.json"
run "$T/bad.json"
expect_status 1
expect_err "rooflint: error: $T/bad.json:20:41: feed_forward_proj 'mish' is not an activation rooflint knows (relu, gated-gelu, gelu, gelu_new, silu, ...)"

# --- one T5-small decoder layer by hand (R-FAM-101), prefill at -D seq=1
# (one decoder token over the encoder's 512; bf16, 2 B an element):
#   qkv 3 x 2 x 512^2 = 1,572,864; 2 x (512 + 3 x 262,144 + 3 x 512)
#     = 1,576,960 B
#   a, causal over one key with the [8, 1, 1] bias: 2 x 8 x 1/2 x 128
#     + 8 x 1/2 adds = 1,028; 2 x 4 x 512 + 8 x 2 = 4,112 B
#   cross_kv, k and v of the encoder's 512 positions: 2 x 2 x 512 x 512^2
#     = 536,870,912; 2 x (262,144 + 2 x 262,144 + 2 x 262,144) = 2,621,440 B
#   xa, one query over 512 keys: 2 x 8 x 512 x 128 = 1,048,576; 2 x (512
#     + 2 x 262,144 + 512) = 1,050,624 B
#   up 2 x 512 x 2048 + relu 2048 = 2,099,200; 2 x (512 + 1,048,576 + 2048)
#     = 2,102,272 B
#   down 2 x 2048 x 512 + the residual 512 = 2,097,664; 2 x (2048 + 1,048,576
#     + 3 x 512) = 2,103,296 B
#   with the three norms 3 x 4 x 512 = 6,144 FLOPs (9,216 B), attn_out and
#   cross_attn_out 524,800 each (527,360 B) and cross_q 524,288 (526,336 B):
#   545,270,276 FLOPs over 11,048,976 B
hand_layer t5_small 6 qkv:1572864:1576960 a:1028:4112 \
  cross_kv:536870912:2621440 xa:1048576:1050624 up:2099200:2102272 \
  down:2097664:2103296
expect_eq "t5 decoder layer" "$(json_field "$T/out" \
  "'%d:%d' % tuple(sum(k[f] for k in d['models'][0]['kernels'] if k['count'] == 6 and not k['name'].startswith('enc')) for f in ('flops', 'bytes'))")" 545270276:11048976
# the encoder's attention over 512 positions reads the [8, 512, 512] bias
# whole: 2 x 8 x 512^2 x 128 + 8 x 512^2 = 538,968,064 FLOPs over
# 4 x 524,288 + 4,194,304 = 6,291,456 B
hand_layer t5_small 6 enc_a:538968064:6291456
# Whisper's convolutions (R-FAM-104), fp32 over 3000 mel frames:
#   conv1 2 x 384 x 3000 x 80 x 3 + bias 1,152,000 + GELU 5 x 1,152,000
#     = 559,872,000; 4 x (240,000 + 92,160 + 384 + 1,152,000) = 5,938,176 B
#   conv2, stride 2: 2 x 384 x 1500 x 384 x 3 + 576,000 + 5 x 576,000
#     = 1,330,560,000; 4 x (1,152,000 + 442,368 + 384 + 576,000)
#     = 8,683,008 B
run -w -Wno-capacity --format json "$HF/whisper_tiny.json"
for row in conv1:559872000:5938176 conv2:1330560000:8683008; do
  expect_eq "whisper ${row%%:*}" "$(json_field "$T/out" \
    "['%d:%d' % (k['flops'], k['bytes']) for k in d['models'][0]['kernels'] if k['name'] == '${row%%:*}'][0]")" "${row#*:}"
done

# --- decode's two caches (R-FAM-105), each layer's self-attention cache
# with the step's token and its cross-attention cache of the encoder:
#   T5-small, bf16, ctx 511 (n_positions less the step): 6 x (2 x 8 x 512
#     x 64 x 2 + 2 x 8 x 512 x 64 x 2) = 6 x 2,097,152 = 12,582,912 B
#   whisper-tiny, fp32, ctx 447: 4 x (2 x 6 x 448 x 64 x 4 + 2 x 6 x 1500
#     x 64 x 4) = 4 x (1,376,256 + 4,608,000) = 23,937,024 B
# of which the cross-attention caches, which no append extends, are read
# only: 6 x 1,048,576 = 6,291,456 B and 4 x 4,608,000 = 18,432,000 B
for row in t5_small:12582912:6291456 whisper_tiny:23937024:18432000; do
  name=${row%%:*}; rest=${row#*:}
  run -w --format json --phase decode "$HF/$name.json"
  expect_status 0
  expect_eq "$name decode caches" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" "${rest%%:*}"
  expect_eq "$name read-only caches" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache_read_only'])")" "${rest#*:}"
done
# the largest batch is searched with both (R-CACHE-003): whisper-tiny on an
# H100 (85,899,345,920 B) holds 148,738,560 B of weights and 2,304,000 of
# buffers, and per sequence 23,937,024 B of caches and 208,996 of
# activations: 85,748,303,360 / 24,146,020 = 3551.2
expect_eq "whisper max batch" "$(json_field "$T/out" "d['models'][0]['serving']['max_batch']")" 3551
expect_grep "$HF/whisper_tiny-decode.roof" "    cache cross_k_cache, cross_v_cache : [batch, num_attention_heads, src_seq, head_dim]  # the encoder's keys and values, projected once at prefill"
expect_grep "$HF/whisper_tiny-decode.roof" "    xa = attention(xq, cross_k_cache, cross_v_cache)"
expect_grep "$HF/t5_small-decode.roof" "  input dec_buckets : int32[seq, ctx + seq]  # the relative position bucket of each query and key"
run -w --format json --phase decode -D ctx=100 -D src_seq=64 "$HF/t5_small.json"
expect_eq "t5 decode caches at ctx 100, 64 source tokens" "$(json_field "$T/out" "int(d['models'][0]['summary']['footprint']['kv_cache'])")" $((6 * (2 * 8 * 101 * 64 * 2 + 2 * 8 * 64 * 64 * 2)))

run -w --report --phase decode "$HF/whisper_tiny.json"
expect_grep "$T/out" "  KV cache        23.9 MB    0.0%  (18.4 MB of it read only, written at prefill)"
run -w --format json --phase decode "tests/hf/llama2_7b.json"
expect_no_grep "$T/out" "kv_cache_read_only"

# Whisper's encoder reads at most max_source_positions
run -D src_seq=3000 "$HF/whisper_tiny.json"
expect_status 1
expect_err "rooflint: error: -D src_seq=3000 is more than max_source_positions 1500"
# a pipeline would split one stack and leave the other on one stage
run -D pipeline=2 --phase train "$HF/t5_small.json"
expect_status 1
expect_err "rooflint: error: -D pipeline: an encoder-decoder's two stacks are not split into pipeline stages (use -D tensor or -D data)"
# two stacks of different heads are not written
sed 's/"encoder_attention_heads": 6/"encoder_attention_heads": 12/' "$HF/whisper_tiny.json" >"$T/w.json"
run "$T/w.json"
expect_status 1
expect_err "rooflint: error: $T/w.json:17:3: 'decoder_attention_heads' 6 differs from 'encoder_attention_heads' 12: rooflint writes the two stacks with one"

# --- attention's bias operand (R-FAM-102): q [2, 8, 16, 64] over 32 keys
# with a bf16 [8, 16, 32] bias: 2 x 2 x 8 x 16 x 32 x 128 + 8,192 adds
# = 2,105,344 FLOPs; q, k, v, out 32,768 + 2 x 65,536 + 32,768 and the
# bias 8,192: 204,800 B
cat >"$T/b.roof" <<'ROOF'
model m {
  input q : [2, 8, 16, 64]
  input k, v : [2, 8, 32, 64]
  input b : [8, 16, 32]
  y = attention(q, k, v, b)
}
ROOF
run -w --format json "$T/b.roof"
expect_status 0
expect_eq "attention with a bias" "$(json_field "$T/out" "'%d:%d' % (d['models'][0]['kernels'][0]['flops'], d['models'][0]['kernels'][0]['bytes'])")" 2105344:204800
sed 's/input b : \[8, 16, 32\]/input b : [8, 16, 16]/' "$T/b.roof" >"$T/bb.roof"
run "$T/bb.roof"
expect_status 1
expect_grep "$T/err" "$T/bb.roof:5:26: error: attention bias bf16[8, 16, 16] does not broadcast to the scores bf16[2, 8, 16, 32] [..., heads, queries, keys]"

finish
