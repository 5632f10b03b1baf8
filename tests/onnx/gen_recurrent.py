#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/gen_recurrent.py: the fixtures of tests/onnx/recurrent/, exported
# by Debian's python3-torch 1.13 with torch.onnx.export (opset 14), weights
# stripped (each float initializer of more than 64 elements keeps its dims
# and loses its data, so a file is a few KB); `make onnx-fixtures` runs it.
#
#   lstm.onnx          nn.LSTM(8, 16), x [T=5, B=2, 8]
#   gru.onnx           nn.GRU(8, 16, batch_first=True), x [B=2, T=5, 8]
#   rnn.onnx           nn.RNN(8, 16) (tanh), x [T=5, B=2, 8]
#   bilstm.onnx        nn.LSTM(8, 16, num_layers=2, bidirectional=True),
#                      x [T=5, B=2, 8]
#   bilstm_bf.onnx     the same with batch_first=True, x [B=2, T=5, 8]
#   lstm_layout.onnx   an LSTM node with layout=1 (onnx.helper: torch 1.13
#                      writes Transposes around the node instead)
#   decoder_past.onnx  one decoder layer exported use_cache style: past
#                      keys and values [batch, 4, past, 8] as graph inputs,
#                      concatenated with the new token's k and v; an
#                      additive float mask [batch, 1, 1, past + 1]
#   attn_mask.onnx     attention written out, MatMul(q, k^T) -> Div ->
#                      Add(mask) -> Softmax -> MatMul(., v), S = 16
#   attn_nomask.onnx   the same without the mask
#   custom_noshape.onnx  an op rooflint does not map, its output untyped
#
# tests/cli/onnx_recurrent.sh states each one's figures, computed by hand.
# The output is the same on every run.
import math
import os

import onnx
import torch
from onnx import TensorProto, helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "recurrent")
I, HID, T, B = 8, 16, 5, 2
D, NH = 32, 4  # decoder width and heads (head dim 8)
S = 16         # attention's sequence


def strip(path):
    m = onnx.load(path)
    for t in m.graph.initializer:
        n = 1
        for d in t.dims:
            n *= d
        if t.data_type in (TensorProto.FLOAT, TensorProto.FLOAT16) and n > 64:
            t.ClearField("raw_data")
            t.ClearField("float_data")
    m.producer_name, m.producer_version = "gen_recurrent.py", "1"
    onnx.save(m, path)


def export(name, module, args, input_names, output_names, dynamic_axes=None):
    torch.manual_seed(0)
    path = os.path.join(OUT, name + ".onnx")
    module.eval()
    torch.onnx.export(module, args, path, opset_version=14,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes or {}, do_constant_folding=True)
    strip(path)


class Recurrent(nn.Module):
    """The sequence output of a recurrent layer, its state dropped."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)[0]


def recurrent():
    torch.manual_seed(0)
    seq = torch.zeros(T, B, I)
    bat = torch.zeros(B, T, I)
    export("lstm", Recurrent(nn.LSTM(I, HID)), (seq,), ["x"], ["y"])
    export("gru", Recurrent(nn.GRU(I, HID, batch_first=True)), (bat,), ["x"], ["y"])
    export("rnn", Recurrent(nn.RNN(I, HID)), (seq,), ["x"], ["y"])
    export("bilstm", Recurrent(nn.LSTM(I, HID, num_layers=2, bidirectional=True)),
           (seq,), ["x"], ["y"])
    export("bilstm_bf", Recurrent(nn.LSTM(I, HID, num_layers=2, bidirectional=True,
                                          batch_first=True)), (bat,), ["x"], ["y"])


def lstm_layout():
    """ONNX's layout=1 (batch first) on the node itself, opset 14."""
    F = TensorProto.FLOAT
    w, r = TensorProto(), TensorProto()
    for t, name, dims in ((w, "W", [1, 4 * HID, I]), (r, "R", [1, 4 * HID, HID])):
        t.name, t.data_type = name, F
        t.dims.extend(dims)
    node = helper.make_node("LSTM", ["x", "W", "R"], ["y"], name="/lstm",
                            hidden_size=HID, layout=1)
    g = helper.make_graph([node], "lstm_layout",
                          [helper.make_tensor_value_info("x", F, [B, T, I])],
                          [helper.make_tensor_value_info("y", F, [B, T, 1, HID])],
                          [w, r])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)],
                          producer_name="gen_recurrent.py", producer_version="1")
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, "lstm_layout.onnx"))


class Attention(nn.Module):
    """softmax(q k^T / sqrt(d) [+ mask]) v over [1, NH, S, D/NH], written out."""

    def __init__(self, masked):
        super().__init__()
        self.masked = masked

    def forward(self, q, k, v, *mask):
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // NH)
        if self.masked:
            w = w + mask[0]
        return torch.matmul(torch.softmax(w, dim=-1), v)


def attention():
    qkv = [torch.zeros(1, NH, S, D // NH) for _ in range(3)]
    export("attn_nomask", Attention(False), tuple(qkv), ["q", "k", "v"], ["y"])
    export("attn_mask", Attention(True), tuple(qkv) + (torch.zeros(1, 1, S, S),),
           ["q", "k", "v", "mask"], ["y"])


class DecoderLayer(nn.Module):
    """One attention layer of a decoder in a decode step (one new token),
    with its past keys and values as inputs and the grown ones as outputs,
    as Hugging Face's use_cache=True exports it."""

    def __init__(self):
        super().__init__()
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)

    def forward(self, x, past_k, past_v, mask):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split(D, dim=2)
        q, k, v = (t.view(b, s, NH, D // NH).transpose(1, 2) for t in (q, k, v))
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // NH) + mask
        a = torch.matmul(torch.softmax(w, dim=-1), v)
        a = a.transpose(1, 2).reshape(b, s, D)
        return x + self.proj(a), k, v


def decoder_past():
    P = 6
    past = torch.zeros(2, NH, P, D // NH)
    args = (torch.zeros(2, 1, D), past, past.clone(), torch.zeros(2, 1, 1, P + 1))
    axes = {"x": {0: "batch"}, "past_k": {0: "batch", 2: "past"},
            "past_v": {0: "batch", 2: "past"}, "mask": {0: "batch", 3: "total"},
            "present_k": {0: "batch", 2: "total"}, "present_v": {0: "batch", 2: "total"},
            "y": {0: "batch"}}
    export("decoder_past", DecoderLayer(), args, ["x", "past_k", "past_v", "mask"],
           ["y", "present_k", "present_v"], axes)


def custom_noshape():
    """An op rooflint does not map whose output no value_info types: the
    error for --unknown-ops=custom says how to add the shapes."""
    F = TensorProto.FLOAT
    nodes = [helper.make_node("FancyNorm", ["x"], ["t"], name="/fancy", domain="com.example"),
             helper.make_node("Relu", ["t"], ["y"], name="/relu")]
    g = helper.make_graph(nodes, "custom_noshape", [helper.make_tensor_value_info("x", F, [2, 8])],
                          [helper.make_tensor_value_info("y", F, [2, 8])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14),
                                            helper.make_opsetid("com.example", 1)],
                          producer_name="gen_recurrent.py", producer_version="1")
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, "custom_noshape.onnx"))


def main():
    os.makedirs(OUT, exist_ok=True)
    recurrent()
    lstm_layout()
    attention()
    decoder_past()
    custom_noshape()


if __name__ == "__main__":
    main()
