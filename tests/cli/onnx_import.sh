#!/bin/sh
# onnx_import.sh: the ONNX translator (src/import/onnx_import.c, the table
# src/import/onnx_ops.def) on the fixtures of tests/onnx/gen_ops.py.
#   - `rooflint import NAME.onnx` prints exactly tests/onnx/ops/NAME.roof
#     (R-ONNX-001, R-ONNX-002);
#   - linting NAME.onnx gives the FLOPs and bytes below, computed by hand,
#     and linting the imported .roof gives the same (R-ONNX-001);
#   - shape arithmetic folds (R-ONNX-003), dim_params are lets that -D and
#     --sweep bind (R-ONNX-004), an unmapped op is an error or, with
#     --unknown-ops=custom, a custom() (R-ONNX-005), declarations and names
#     (R-ONNX-006), diagnostics name the node (R-ONNX-007).
. "$(dirname "$0")/driver_lib.inc"
D=tests/onnx/ops

. "$(dirname "$0")/onnx_lib.inc"
# FLOPs and bytes of the model's step, from --format json.
figures() { json_summary "flops bytes" "$@"; }

# check NAME FLOPS BYTES [OPTIONS...]: the import text, the figures of the
# .onnx and of its import.
check() {
  name=$1 flops=$2 bytes=$3
  shift 3
  what="rooflint import $D/$name.onnx"
  "$ROOFLINT" import "$@" "$D/$name.onnx" >"$T/$name.roof" 2>"$T/err"
  status=$?
  expect_status 0
  if cmp -s "$D/$name.roof" "$T/$name.roof"; then ok; else bad "differs from $D/$name.roof"; diff -u "$D/$name.roof" "$T/$name.roof" | head -n 12; fi
  what="rooflint $D/$name.onnx $*"
  got=$(figures "$@" "$D/$name.onnx")
  if [ "$got" = "$flops $bytes" ]; then ok; else bad "figures '$got', expected '$flops $bytes'"; fi
  what="rooflint (import of $name.onnx) $*"
  got=$(figures "$@" "$T/$name.roof")
  if [ "$got" = "$flops $bytes" ]; then ok; else bad "round trip '$got', expected '$flops $bytes'"; fi
}

# Elementwise on fp32 [2, 8]: 16 elements, bytes 64 in + 64 out, FLOPs
# 16 x the op's weight (R-COST-021): relu 1, sigmoid 4, tanh 1, exp 1, log 1,
# sqrt 1, neg 1, abs 1, erf 1, hardswish 5, hardsigmoid 4, softplus 3;
# Reciprocal is div(1, x): 1.  Identity and Dropout are aliases: nothing.
for op_w in relu:1 sigmoid:4 tanh:1 exp:1 log:1 sqrt:1 neg:1 abs:1 erf:1 \
            hardswish:5 hardsigmoid:4 softplus:3 reciprocal:1; do
  check "unary_${op_w%:*}" $((16 * ${op_w#*:})) 128
done
check unary_identity 0 0
check unary_dropout 0 0
check gelu 80 128          # approximate="none": 5 per element
check gelu_tanh 144 128    # tanh: 9 per element
check clip 32 128          # 1 per bound given; bounds from constant inputs
check clip_attr 32 128     # opset 9: bounds as attributes
check cast 0 96            # fp32 [2, 8] read (64), fp16 written (32)
# Binary with b [8] broadcast: 16 FLOPs; bytes 64 + 32 + 64.
for op in add sub mul div pow max min; do check "binary_$op" 16 160; done
check mul_scalar 16 128    # Constant 0.5 is the number 0.5
check identity_initializer 16 160  # Identity of an initializer: the weight b [8]
check where 16 144         # bool cond 16 + x 64 + y 64; -1 a number

# Contractions (R-COST-020: a bias adds one FLOP per output element).
# conv [1,3,8,8] * [4,3,3,3], pad 1 -> [1,4,8,8]: 2*4*64*27 = 13824 + 256;
# bytes 768 + 432 + 16 + 1024.
check conv_bias 14080 2240
# stride 2, groups 2: [1,4,8,8] * [4,2,3,3] -> [1,4,3,3]: 2*4*9*2*9; bytes
# 1024 + 288 + 144.
check conv_stride_group 1296 1456
# pads [0,0,1,1] are not symmetric: pad() to [1,3,9,9] (0 FLOPs, 768 + 972
# bytes), then the conv -> [1,4,7,7]: 2*4*49*27 = 10584, 972 + 432 + 784.
check conv_asym_pads 10584 3928
# SAME_UPPER, stride 2 on 8: total pad 1, at the end: pad() as above, then
# [1,4,4,4]: 2*4*16*27 = 3456, 972 + 432 + 256.
check conv_same_upper 3456 3400
# conv1d [1,3,10] * [4,3,3], pad 1: 2*4*10*9 = 720; 120 + 144 + 160.
check conv1d 720 424
# ConvTranspose [1,4,4,4] * [4,2,4,4], stride 2, pad 1 -> [1,2,8,8]:
# 2*4*16*2*16 = 4096; 256 + 512 + 512.
check conv_transpose 4096 1280
# Gemm transB: matmul(x [2,4], transpose(w [3,4]), bias=c [3]) -> [2,3]:
# 2*2*3*4 + 6 = 54; 32 + 48 + 12 + 24.
check gemm_transb 54 116
# alpha 0.5, beta 2, transA: matmul 48 FLOPs (32+48+24), mul by 0.5 6 (24+24),
# mul(c, 2) 3 (12+12), add 6 (24+12+24).
check gemm_alpha_beta 63 236
check matmul 240 296       # [2,3,4] x [4,5]: 2*6*5*4; 96 + 80 + 120
# torch's nn.Linear on [2,3,4]: MatMul, then Add(b [5], it), the Add the
# MatMul's only reader: one matmul(x, w, bias=b), 30 x (2*4 + 1) = 270 (the
# 30 adds now the epilogue's, R-COST-020); 96 + 80 + 20 + 120, the
# intermediate's write and read (240) gone (R-ONNX-002).
check matmul_add_bias 270 316
# the MatMul's result also read by a Relu: matmul 240 (96+80+120), add 30
# (20+120+120), relu 30 (120+120).
check matmul_add_shared 300 796

# Norms and reductions (FLOPs per input element: batchnorm 2, layernorm and
# instancenorm 8, softmax 5, sum/mean/max 1).
check batchnorm 144 640    # [2,4,3,3] 72 x 2; 288 + 4 x 16 + 288
check layernorm 128 192    # 16 x 8; 64 + 32 + 32 + 64
check instancenorm 288 320 # [1,4,3,3] 36 x 8; 144 + 16 + 16 + 144
check softmax 80 128
check log_softmax 80 128
# torch's decomposed LayerNorm, node by node: mean 16 (64+8), sub 16
# (64+8+64), pow 16 (64+64), mean 16 (64+8), add eps 2 (8+8), sqrt 2 (8+8),
# div 16 (64+8+64), mul 16 (64+32+64), add 16 (64+32+64).
check layernorm_decomposed 116 896
# [2,3,4] over axes 1, 2: the last first, sum(x, axis=2) 24 (96+24), then
# axis 1 6 (24+8).
check reducesum 30 152
check reducemax 30 152

# Pools: output elements x kh*kw; bytes input + output.
check maxpool 288 640              # [1,2,4,4] 32 x 9; 512 + 128
check averagepool_ceil 128 520     # 7 -> 4 with ceil_mode; 32 x 4; 392 + 128
check global_average_pool 32 136   # kernel [4, 4]: 2 x 16; 128 + 8
check global_max_pool 32 136
# 1-D and 3-D windows (maxpool1d, avgpool3d): [1,4,10] kernel 3 stride 2
# pad 1 -> [1,4,5]: 20 x 3; 160 + 80.
check maxpool_1d 60 240
# [1,2,4,8,8] kernel [2,3,3] stride [1,2,2] pads 0,1,1 -> [1,2,3,4,4]: 96 x 18;
# 2048 + 384.
check averagepool_3d 1728 2432
# pads [0,0,0,1,1,1]: pad() to [1,1,4,4,4] (0 FLOPs, 108 + 256), then kernel 2
# stride 2 -> [1,1,2,2,2]: 8 x 8; 256 + 32.
check averagepool_3d_asym 64 652
check global_max_pool_1d 30 144      # [2,3,5] -> [2,3,1]: 6 x 5; 120 + 24
check global_average_pool_3d 48 200  # [1,2,2,3,4] -> [1,2,1,1,1]: 2 x 24; 192 + 8

# Views cost nothing; the Relu after each shows the view's size
# (elements, 8 x elements bytes).
check reshape 24 192        # [2,3,4] with [0, -1]: [2, 12]
check transpose 24 192
check flatten 120 960       # [2,3,4,5] axis 2: [6, 20]
check flatten0 6 48         # [2,3] axis 0: [1, 6]
check squeeze 8 64          # [2,1,4,1] axes 1, 3: [2, 4]
check unsqueeze 8 64        # [2,4] axes 0, -1: [1, 2, 4, 1]
check slice 12 96           # [4,10]: rows 1.., columns -8.. step 2: [3, 4]
check gather_scalar 6 48    # a scalar index is select(): [2, 3]
check expand 12 96          # [1,1,4] to [3,1,1] both ways: [3, 1, 4]
check split 0 0
check split_equal 0 0
# Movement.
check concat 0 128            # 24 + 40 read, 64 written
check gather_embedding 0 240  # ids 48 + rows 96 + result 96
check pad 0 272               # [1,2,3,3] -> [1,2,5,5]: 72 + 200
check resize 0 360            # nearest, scale 2: 72 + 288
# Resize's output dims are floor(dim * scale), or its sizes (R-ONNX-002):
# [1,2,4,6] x 1.5 -> size=[6, 9]: 192 + 432.
check resize_scales_float 0 624
check resize_downscale 0 232  # [1,2,5,5] x 0.5: floor(2.5) = 2, [1,2,2,2]: 200 + 32
# sizes [1,2,5,7] of [1,2,3,3], linear: 70 x 2 x 2^2 = 560; 72 + 280.
check resize_sizes 560 352
check resize_sizes_axes 0 360 # opset 18 axes [2, 3], sizes [6, 6]: scale=2 as resize

# Shape arithmetic folds (R-ONNX-003): Shape -> Gather -> Unsqueeze ->
# Concat -> Reshape is reshape(x, [batch, -1]); at batch 1 the relu is 24
# FLOPs, 192 bytes; -D batch=8 gives 8 x that (R-ONNX-004).
check shape_chain 24 192
check shape_chain 192 1536 -D batch=8
# Range over a symbolic length and ConstantOfShape become buffers; at
# batch = sequence = 1: gathers 8+16+16 each, add 4 (16 x 3), add 4 (16 x 3).
check positions 8 176
# batch 2, sequence 8: wpe gather 64+128+128, wte gather 128+256+256,
# add 64 (256+128+256), add 64 (256 x 3).
check positions 128 2368 -D batch=2 -D sequence=8
check unknown_dim 8 64      # [?, 8]: let dim_0_0 = 1
check if_const 16 128       # the then branch, inlined
# Loop of 3 trips carrying h [2, 8]: matmul with w [8, 8] 256 FLOPs (64 +
# 256 + 64 bytes) and relu 16 (128), each 3 times.
check loop_const 816 1536
# The same Loop with a scan output, neg(m) [2, 8] per trip (16 FLOPs, 128 B):
# 3 x (256 + 16 + 16) = 864 FLOPs, 3 x (384 + 128 + 128) = 1920 B; stacked
# [3, 2, 8] as a view, the relu after it 48 (192 + 192) (R-ONNX-002).
check loop_scan 912 2304
# Scan of xs [2, 5, 4] on axis 1, state [2, 4]: 5 trips of a select() view,
# add 8 (32 x 3) and relu 8 (32 + 32): 80 FLOPs, 800 B; the relu of the
# stacked [2, 5, 4] 40 (160 + 160).
check scan 120 1120

# Declarations (R-ONNX-006).
check names 48 416          # add 16 (64+32+64), relu 16 (128), relu 16 (128)
check plan_fp16 256 288     # cast 0 (64+32), fp16 matmul 2*2*8*8 (32+128+32)
check weights_as_inputs 136 352 --weights-as-inputs  # matmul(bias=b) 8 x 17 (32+256+32+32)
check value_info_mismatch 32 256
# Quantized ops are int8 ops.
check quantize 0 160        # cast(x, int8) 64+16, cast(q, fp32) 16+64
check qlinear_matmul 128 56 # int8 [2,8] x [8,4]: 16 + 32 + 8
check matmul_integer 128 80 # out=int32: 16 + 32 + 32
check qlinear_conv 14080 572 # int8 x 192, w 108, int32 bias 16, int8 y 256
check unknown_op 16 256 --unknown-ops=custom  # relu 16 (128) + custom 0 (64 + 64)

# R-ONNX-004: one remark lists the lets; --sweep binds one.
run tests/onnx/ops/positions.onnx
expect_status 0
expect_grep "$T/err" "tests/onnx/ops/positions.onnx: dim_param \"batch\": remark: the model's symbolic dims are lets, each 1 unless -D NAME=VALUE binds it (or --sweep NAME=V1,V2 sweeps it): batch, sequence"
run --sweep batch=1,4 -w tests/onnx/ops/shape_chain.onnx
expect_status 0
expect_grep "$T/out" "batch"

# R-ONNX-005: an unmapped op is an error naming the node and the op.
run tests/onnx/ops/unknown_op.onnx
expect_status 1
expect_err "rooflint: error: tests/onnx/ops/unknown_op.onnx: node 1 \"/fancy\" (FancyNorm): op com.example.FancyNorm is not one rooflint maps (its FLOPs would be unknown); --unknown-ops=custom imports it as a custom() costing its bytes only"
run --unknown-ops=custom -w tests/onnx/ops/unknown_op.onnx
expect_status 0
run --unknown-ops=custom tests/onnx/ops/unknown_op.onnx
expect_grep "$T/err" "tests/onnx/ops/unknown_op.onnx: node 1 \"/fancy\" (FancyNorm): warning: op FancyNorm is not one rooflint maps: --unknown-ops=custom makes each a custom() whose FLOPs are unknown (counted as 0) and whose bytes are its inputs and output"
run import tests/onnx/ops/unknown_op.onnx
expect_status 1
# R-ONNX-002: what the mapping cannot carry is an error naming the node.
run tests/onnx/ops/maxpool_dilated.onnx
expect_status 1
expect_err "rooflint: error: tests/onnx/ops/maxpool_dilated.onnx: node 0 \"/MaxPool\" (MaxPool): its dilations: rooflint's pools are not dilated"
run tests/onnx/ops/resize_channels.onnx
expect_status 1
expect_err "rooflint: error: tests/onnx/ops/resize_channels.onnx: node 0 \"/Resize\" (Resize): it resizes dim 1 (N or C) from 2 to 4: rooflint interpolates the spatial dims"
# issue 28 items 6-8 and 17: sizes and axes from the file are checked before they are used.
# ConstantOfShape [2^40, 2^40] is 2^80 elements (it overflowed, then crashed);
# a stride of 0 (1-D, 2-D, with auto_pad) divided by zero; a Resize scale of
# inf, NaN or 1e30 times dim 8 has no int64 value (the cast was undefined).
D28=tests/onnx/ops
run $D28/constant_of_shape_huge.onnx
expect_status 1
expect_err "rooflint: error: $D28/constant_of_shape_huge.onnx: node 0 \"/ConstantOfShape\" (ConstantOfShape): its shape has more than 2^63 elements"
run $D28/conv_stride0.onnx
expect_status 1
expect_err "rooflint: error: $D28/conv_stride0.onnx: node 0 \"/Conv\" (Conv): its stride on spatial axis 1 is 0, not a positive integer"
run $D28/conv_stride0_same.onnx
expect_status 1
expect_err "rooflint: error: $D28/conv_stride0_same.onnx: node 0 \"/Conv\" (Conv): its stride on spatial axis 0 is 0, not a positive integer"
run $D28/conv1d_stride0.onnx
expect_status 1
expect_err "rooflint: error: $D28/conv1d_stride0.onnx: node 0 \"/Conv\" (Conv): its stride on spatial axis 0 is 0, not a positive integer"
run $D28/slice_axis_99.onnx
expect_status 1
expect_err "rooflint: error: $D28/slice_axis_99.onnx: node 0 \"/Slice\" (Slice): its axis 99 is out of range for rank 4"
for sc in inf:inf nan:nan 1e30:1e+30; do
  run $D28/resize_scale_${sc%:*}.onnx
  expect_status 1
  expect_err "rooflint: error: $D28/resize_scale_${sc%:*}.onnx: node 0 \"/Resize\" (Resize): its scale ${sc#*:} on axis 2 is not a finite size for dim 8"
done
# R-ONNX-002: a Loop runs a known number of times, or is an error.
run tests/onnx/ops/loop_dynamic.onnx
expect_status 1
expect_err "rooflint: error: tests/onnx/ops/loop_dynamic.onnx: node 0 \"/loop\" (Loop): its trip count is not a constant: rooflint imports a Loop that runs a known number of times"
# issue 28 item 21: a constant trip count of -3 is not "not a constant";
# an op_type present but empty is refused at the node's byte offset, as a
# missing one is (node 1 starts at byte 42); a kernel_shape of [5, 5] on a
# weight [4, 3, 3, 3] is an inconsistent file.  Commit e048cfb (found by
# fuzz_import): Unsqueeze axis 5 of a rank-2 input, rank 3 after.
run $D28/loop_negative.onnx
expect_status 1
expect_err "rooflint: error: $D28/loop_negative.onnx: node 0 \"/loop\" (Loop): its trip count is -3, not a positive integer"
run $D28/op_type_empty.onnx
expect_status 1
expect_err "rooflint: error: $D28/op_type_empty.onnx: not a valid ONNX model: byte 42: an empty op_type (field 4) in NodeProto"
run $D28/conv_kernel_shape_mismatch.onnx
expect_status 1
expect_err "rooflint: error: $D28/conv_kernel_shape_mismatch.onnx: node 0 \"/Conv\" (Conv): its kernel_shape is 5 on spatial axis 0 where its weight has 3"
run $D28/unsqueeze_axis_5.onnx
expect_status 1
expect_err "rooflint: error: $D28/unsqueeze_axis_5.onnx: node 0 \"/Unsqueeze\" (Unsqueeze): its axis 5 is out of range for rank 3"
# fuzz_import (30-minute run): a STRING attribute whose `s` is absent (the
# value sits in `strings`) was a NULL mode passed to strcmp; proto3 reads an
# absent bytes field as "", and "" is not a mode rooflint pads with
run $D28/pad_mode_in_strings.onnx
expect_status 1
expect_err "rooflint: error: $D28/pad_mode_in_strings.onnx: node 0 \"/Pad\" (Pad): mode \"\": rooflint's pad is constant"
# import prints the importer's findings as the lint would name them
run import --unknown-ops=custom tests/onnx/ops/unknown_op.onnx
expect_status 0
expect_err "tests/onnx/ops/unknown_op.onnx: node 1 \"/fancy\" (FancyNorm): warning: op FancyNorm is not one rooflint maps: --unknown-ops=custom makes each a custom() whose FLOPs are unknown (counted as 0) and whose bytes are its inputs and output"
run import -w --unknown-ops=custom tests/onnx/ops/unknown_op.onnx
expect_status 0
expect_empty "$T/err"

# R-ONNX-003: value_info is a cross-check, a disagreement a warning.
run tests/onnx/ops/value_info_mismatch.onnx
expect_grep "$T/err" "tests/onnx/ops/value_info_mismatch.onnx: node 0 \"/Relu\" (Relu): warning: value_info gives 'r' the shape [2, 9]; rooflint's shape rules give [2, 8]"

# R-ONNX-007: a diagnostic names the node, and quotes the generated
# statement as a note (R-DIAG-002), never a numbered line of the text.
run -Werror=overhead-bound tests/onnx/ops/conv_bias.onnx
expect_status 1
expect_grep "$T/err" "tests/onnx/ops/conv_bias.onnx: node 0 \"/Conv\" (Conv): error: conv2d 'y' takes"
expect_grep "$T/err" "tests/onnx/ops/conv_bias.onnx: node 0 \"/Conv\" (Conv): note: in the imported text: y = conv2d(x, w, bias=b, padding=1)"

# R-ONNX-007: JSON gives the node's origin and its parts; SARIF a logical
# location beside the region (valid against the 2.1.0 schema).
run --format json tests/onnx/ops/conv_bias.onnx
expect_status 0
/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"][0]["location"]["origin"]
print(json.dumps(d, sort_keys=True))' "$T/out" >"$T/origin"
# the NodeProto is bytes 22 to 89 of the file (python3-onnx parses them
# back to the node: tests/cli/located.sh)
expect_grep "$T/origin" '{"byte_length": 67, "byte_offset": 22, "index": 0, "kind": "node", "name": "/Conv", "op_type": "Conv", "text": "node 0 \"/Conv\" (Conv)"}'
run --format sarif tests/onnx/ops/conv_bias.onnx
expect_status 0
/usr/bin/python3 tools/validate_sarif.py "$T/out" >"$T/v" 2>&1 && ok || bad "SARIF does not validate: $(head -n 3 "$T/v")"
/usr/bin/python3 -c 'import json, sys
loc = json.load(open(sys.argv[1]))["runs"][0]["results"][0]["locations"][0]
r = loc["physicalLocation"]["region"]
print(r["byteOffset"], r["byteLength"], json.dumps(loc["logicalLocations"], sort_keys=True))' "$T/out" >"$T/loc"
expect_grep "$T/loc" '22 67 [{"fullyQualifiedName": "node 0 \"/Conv\" (Conv)", "kind": "function", "name": "/Conv", "properties": {"index": 0, "kind": "node", "opType": "Conv"}}]'

# R-ONNX-006: the plan is the dominant float dtype; --dtype re-plans what
# follows it (here the matmul, whose operands are an explicit cast and a
# weight that follows the plan, so a bf16 plan mixes fp16 and bf16).
run --dtype fp32 -w tests/onnx/ops/names.onnx
expect_status 0
expect_grep "$T/out" "fp32"

# R-ONNX-001: every output of a .roof file.  conv_bias in fp32 is 2240
# bytes; --dtype bf16 follows the plan everywhere (no declaration names a
# dtype), so the what-if moves 1120 bytes.
run --plan -w tests/onnx/ops/conv_bias.onnx
expect_status 0
expect_grep "$T/out" "model conv_bias (tests/onnx/ops/conv_bias.onnx) on NVIDIA H100 SXM: dtype plan fp32"
run --dtype bf16 -w tests/onnx/ops/conv_bias.onnx
expect_status 0
expect_grep "$T/out" "2.24 KB"
expect_grep "$T/out" "1.12 KB"
run -t a100_sxm,h100_sxm --report -w tests/onnx/ops/conv_bias.onnx
expect_status 0
expect_grep "$T/out" "model conv_bias (tests/onnx/ops/conv_bias.onnx) on 2 targets"
run --plot "$T/c.svg" -w tests/onnx/ops/conv_bias.onnx
expect_status 0
expect_grep "$T/c.svg" "<svg"

# import -o writes the file; an input is never its output.
run import tests/onnx/ops/matmul.onnx -o "$T/m.roof"
expect_status 0
if cmp -s "$T/m.roof" "$D/matmul.roof"; then ok; else bad "-o wrote something else"; fi
run import tests/onnx/ops/matmul.onnx -o tests/onnx/ops/matmul.onnx
expect_status 2

# diff of two ONNX files, and of an ONNX file and a .roof.
# The models match by name: the import edited, relu to sigmoid (16 FLOPs
# to 64), is a node removed and one added (R-DIFF-001 compares ops).
sed 's/relu(x)/sigmoid(x)/' "$D/unary_relu.roof" >"$T/edited.roof"
run diff tests/onnx/ops/unary_relu.onnx "$T/edited.roof"
expect_status 0
expect_grep "$T/out" "model unary_relu: 0 changed, 1 added, 1 removed"
expect_grep "$T/out" "  + $T/edited.roof:5:7: warning: sigmoid 'y' takes"
expect_grep "$T/out" "  - tests/onnx/ops/unary_relu.onnx: node 0 \"/Relu\" (Relu): warning: relu 'y' takes"
run diff tests/onnx/ops/matmul.onnx tests/onnx/ops/matmul.onnx
expect_status 0
expect_grep "$T/out" "no node changed"

# Every op of the table on a node with no inputs, no outputs, too many,
# or omitted ones: an error or a lint, never a crash (exit <= 2).
if /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  mkdir "$T/odd"
  /usr/bin/python3 - "$T/odd" <<'PY'
import re, sys
from onnx import TensorProto, helper
ops = re.findall(r'ONNX_OP\("([A-Za-z]+)"', open("src/import/onnx_ops.def").read())
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
for op in ops:
    for kind, ins, outs in (("noin", [], ["y"]), ("noout", ["x"], []), ("many", ["x"] * 9, ["y", "z"]),
                            ("omitted", ["", "x", ""], ["", "y"])):
        g = helper.make_graph([helper.make_node(op, ins, outs, name="n")], "g", [x], [y] if "y" in outs else [])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        open(f"{sys.argv[1]}/{op}_{kind}.onnx", "wb").write(m.SerializeToString())
PY
  for f in "$T"/odd/*.onnx; do
    what="rooflint $f"
    "$ROOFLINT" -w "$f" >/dev/null 2>"$T/err" </dev/null
    status=$?
    [ $status -le 2 ] && ok || bad "exit $status"
  done
fi

# R-ONNX-002: README's table lists every row of src/import/onnx_ops.def.
what="README.md's table of mapped ONNX ops"
for op in $(sed -n 's/^ONNX_OP("\([A-Za-z]*\)".*/\1/p' src/import/onnx_ops.def); do
  grep -q "^| $op | " README.md && ok || bad "no row for $op"
done

finish
