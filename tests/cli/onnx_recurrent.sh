#!/bin/sh
# onnx_recurrent.sh: recurrent layers (lstm, gru, rnn: R-RNN-001, R-RNN-002,
# R-RNN-003, R-RNN-004; their ONNX import R-RNN-005), on
# the torch.onnx.export fixtures of tests/onnx/gen_recurrent.py and written
# in .roof.
#   - `rooflint import NAME.onnx` prints exactly tests/onnx/recurrent/NAME.roof
#     and linting either gives the figures below (R-ONNX-001);
#   - the figures are R-RNN-002's FLOPs and R-RNN-003's bytes, by hand;
#   - an op with no value_info says how to add the shapes (R-ONNX-005).
. "$(dirname "$0")/driver_lib.inc"
D=tests/onnx/recurrent

. "$(dirname "$0")/onnx_lib.inc"

# Every fixture: fp32, T = 5 steps, B = 2, I = 8 inputs, H = 16 hidden.
# LSTM (nn.LSTM(8, 16)), 4 gates, bias given: per step the GEMMs are
# 4 x 2*B*H*(I + H) = 4 x 2*2*16*24 = 6144 FLOPs, the gate arithmetic B*H x
# (4 sums + 8 bias adds + 3 sigmoids x 4 + 2 tanh + 3 for c + 1 for h = 30)
# = 960: 7104 a step, 35,520 for 5.  torch.profiler(with_flops=True) on
# the same nn.LSTM counts aten::addmm 30,720 = 5 x 6144 (it counts no
# sigmoid or tanh).  Bytes: x 5*2*8*4 = 320, w 64*8*4 = 2048, b 128*4 =
# 512 read once; r 64*16*4 = 4096 read on each of the 5 steps (20,480); y
# [5, 1, 2, 16] written 640: 24,000.  Squeeze and the zero states: none.
check lstm 35520 24000
# GRU (batch_first: Transposes around the node, views), 3 gates:
# 3 x 2*2*16*24 = 4608 + B*H x (2 sums + 6 bias + 2 sigmoids x 4 + tanh 1 +
# r*(Rh) and its add 2 + h 4 = 23) = 736: 5344 a step, 26,720.  profiler:
# aten::addmm 23,040 = 5 x 4608.  Bytes: 320 + w 1536 + b 384 + 5 x r 3072
# + y 640 = 18,240.
check gru 26720 18240
# RNN, 1 gate: 2*2*16*24 = 1536 + B*H x (1 sum + 2 bias + tanh 1 = 4) =
# 128: 1664 a step, 8320.  profiler: aten::addmm 7680 = 5 x 1536.
# Bytes: 320 + 512 + 128 + 5 x 1024 + 640 = 6720.
check rnn 8320 6720
# Bidirectional, 2 layers: two LSTM nodes, D = 2 directions.  Layer 1:
# 5 x 2 x 7104 = 71,040; layer 2 reads 2*16 = 32 features: 4 x 2*2*16*48
# = 12,288 + 960 = 13,248 a step and direction, 132,480; 203,520 FLOPs.
# Bytes, layer 1: x 320 + w 4096 + b 1024 + 5 x r 8192 + y [5, 2, 2, 16]
# 1280 = 47,680; layer 2: its x (the reshaped y) 1280 + w 2*64*32*4 =
# 16,384 + b 1024 + 5 x 8192 + y 1280 = 60,928; 108,608.
check bilstm 203520 108608
# batch_first: the same figures (the Transposes are views).
check bilstm_bf 203520 108608
# ONNX's layout=1 on the node, no bias: 6144 + B*H x 22 = 6848 a step,
# 34,240; bytes 320 + 2048 + 5 x 4096 + 640 = 23,488.
check lstm_layout 34240 23488

# Written in .roof: layers=2 is the bidirectional stack above in one op,
# the second layer's weights read by the kernel (R-RNN-004): the same
# FLOPs and bytes, 203,520 and 108,608.
cat >"$T/stack.roof" <<'ROOF'
model stack {
  dtype fp32
  input x : [5, 2, 8]
  weight w : [2, 64, 8]
  weight r : [2, 64, 16]
  weight b : [2, 128]
  y = lstm(x, w, r, b, hidden=16, layers=2, direction="bidirectional")
  output y
}
ROOF
what="lstm layers=2"
got=$(figures "$T/stack.roof")
if [ "$got" = "203520 108608" ]; then ok; else bad "figures '$got'"; fi

# R-RNN-001: the weights must fit hidden=, the direction and x.
cat >"$T/bad.roof" <<'ROOF'
model bad {
  input x : [5, 2, 8]
  weight w : [1, 48, 8]
  weight r : [1, 48, 16]
  y = lstm(x, w, r, hidden=16)
}
ROOF
run "$T/bad.roof"
expect_status 1
expect_grep "$T/err" "lstm with hidden=16 over x bf16[5, 2, 8] (1 direction) needs w [1, 64, 8] and r [1, 64, 16], got w bf16[1, 48, 8] and r bf16[1, 48, 16]"

# A hidden= whose gate rows would overflow 64 bits is an error, not a wrap.
sed 's/hidden=16/hidden=4611686018427387904/' "$T/bad.roof" >"$T/huge.roof"
run "$T/huge.roof"
expect_status 1
expect_grep "$T/err" "error: lstm hidden=4611686018427387904 is larger than any weight can be"

# R-ONNX-005: an unmapped op with no value_info says how to add shapes.
run --unknown-ops=custom $D/custom_noshape.onnx
expect_status 1
expect_err "rooflint: error: $D/custom_noshape.onnx: node 0 \"/fancy\" (FancyNorm): op com.example.FancyNorm is not one rooflint maps, and its output has no shape in value_info to make a custom() of it; add the shapes ONNX can infer with python3 -c \"import onnx, sys; onnx.save(onnx.shape_inference.infer_shapes(onnx.load(sys.argv[1])), sys.argv[2])\" IN.onnx OUT.onnx, or give the output a value_info yourself"
finish
