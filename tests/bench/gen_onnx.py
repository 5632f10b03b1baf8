#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/bench/gen_onnx.py: a transformer export as torch.onnx.export writes
# one (pre-LN layers, torch-style node names), for `make bench` and the
# reader's 100 MB test.  Run with Debian's /usr/bin/python3 (python3-onnx).
#
#   gen_onnx.py [--layers 768] [--hidden 1024] [--embed-bytes N] OUT.onnx
#
# Each layer is 33 nodes: LayerNormalization; q, k, v projections (MatMul,
# Add); three Reshape + Transpose to heads of 64; MatMul, Div, Softmax,
# MatMul; Transpose, Reshape; the output projection (MatMul, Add) and the
# residual Add; LayerNormalization; the MLP up (MatMul, Add), GELU in its
# exported form (Div, Erf, Add, Mul, Mul), down (MatMul, Add) and the
# residual Add.  768 layers: 25,344 nodes.
#
# The weights are graph inputs (declared, no bytes: about 2 MB for 768
# layers), except that with --embed-bytes N the first layers' weights,
# enough whole layers to hold N bytes, are initializers with
# their fp32 bytes embedded as raw_data.  Those bytes are written as holes
# (a sparse file: zeros that take no disk and no time), and spliced in
# after python3-onnx serialised the rest, so a 1 GB model costs the
# generator what its graph costs.  Prints "NODES nodes, T embedded
# tensors, BYTES bytes".
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=768)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--embed-bytes", type=int, default=0)
    ap.add_argument("out")
    a = ap.parse_args()
    H, L, FF, HD = a.hidden, a.layers, 4 * a.hidden, 64
    heads = H // HD
    nodes, inputs, consts = [], [helper.make_tensor_value_info("input_ids_embedded", F,
                                                               ["batch_size", "sequence", H])], []
    weights = []  # (name, dims, layer)

    def weight(name, dims, layer):
        weights.append((name, dims, layer))
        return name

    def const(name, array):
        consts.append(numpy_helper.from_array(array, name))
        return name

    split = const("onnx::Reshape_heads", np.array([0, 0, heads, HD], np.int64))
    merge = const("onnx::Reshape_merge", np.array([0, 0, H], np.int64))
    sqrt_d = const("onnx::Div_sqrt_d", np.array(np.sqrt(HD), np.float32))
    sqrt_2 = const("onnx::Div_sqrt_2", np.array(np.sqrt(2.0), np.float32))
    one = const("onnx::Add_one", np.array(1.0, np.float32))
    half = const("onnx::Mul_half", np.array(0.5, np.float32))

    def node(op, ins, name, **attrs):
        out = name + "_output_0"
        nodes.append(helper.make_node(op, ins, [out], name=name, **attrs))
        return out

    x = "input_ids_embedded"
    for i in range(L):
        p = "/h.%d" % i
        w = "h.%d." % i
        h = node("LayerNormalization", [x, weight(w + "ln_1.weight", [H], i),
                                        weight(w + "ln_1.bias", [H], i)],
                 p + "/ln_1/LayerNormalization", axis=-1, epsilon=1e-5)
        heads_of = {}
        for proj in ("q", "k", "v"):
            m = node("MatMul", [h, weight(w + "attn.%s_proj.weight" % proj, [H, H], i)],
                     p + "/attn/%s_proj/MatMul" % proj)
            heads_of[proj] = node("Add", [m, weight(w + "attn.%s_proj.bias" % proj, [H], i)],
                                  p + "/attn/%s_proj/Add" % proj)
        for proj, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            r = node("Reshape", [heads_of[proj], split], p + "/attn/Reshape_%s" % proj)
            heads_of[proj] = node("Transpose", [r], p + "/attn/Transpose_%s" % proj, perm=perm)
        s = node("MatMul", [heads_of["q"], heads_of["k"]], p + "/attn/MatMul")
        s = node("Div", [s, sqrt_d], p + "/attn/Div")
        s = node("Softmax", [s], p + "/attn/Softmax", axis=-1)
        o = node("MatMul", [s, heads_of["v"]], p + "/attn/MatMul_1")
        o = node("Transpose", [o], p + "/attn/Transpose_o", perm=[0, 2, 1, 3])
        o = node("Reshape", [o, merge], p + "/attn/Reshape_o")
        o = node("MatMul", [o, weight(w + "attn.o_proj.weight", [H, H], i)],
                 p + "/attn/o_proj/MatMul")
        o = node("Add", [o, weight(w + "attn.o_proj.bias", [H], i)], p + "/attn/o_proj/Add")
        x = node("Add", [x, o], p + "/Add")
        h = node("LayerNormalization", [x, weight(w + "ln_2.weight", [H], i),
                                        weight(w + "ln_2.bias", [H], i)],
                 p + "/ln_2/LayerNormalization", axis=-1, epsilon=1e-5)
        u = node("MatMul", [h, weight(w + "mlp.fc_in.weight", [H, FF], i)], p + "/mlp/fc_in/MatMul")
        u = node("Add", [u, weight(w + "mlp.fc_in.bias", [FF], i)], p + "/mlp/fc_in/Add")
        g = node("Div", [u, sqrt_2], p + "/mlp/act/Div")
        g = node("Erf", [g], p + "/mlp/act/Erf")
        g = node("Add", [g, one], p + "/mlp/act/Add")
        g = node("Mul", [u, g], p + "/mlp/act/Mul")
        g = node("Mul", [g, half], p + "/mlp/act/Mul_1")
        d = node("MatMul", [g, weight(w + "mlp.fc_out.weight", [FF, H], i)],
                 p + "/mlp/fc_out/MatMul")
        d = node("Add", [d, weight(w + "mlp.fc_out.bias", [H], i)], p + "/mlp/fc_out/Add")
        x = node("Add", [x, d], p + "/Add_1")

    # Which weights are embedded: whole layers, while they fit.
    per_layer = sum(4 * int(np.prod(dims)) for _, dims, layer in weights if layer == 0)
    embed_layers = 0
    if a.embed_bytes:
        embed_layers = min(L, -(-a.embed_bytes // per_layer))
    embedded = [(n, d) for n, d, layer in weights if layer < embed_layers]
    inputs += [helper.make_tensor_value_info(n, F, d) for n, d, layer in weights
               if layer >= embed_layers]
    graph = helper.make_graph(nodes, "main_graph", inputs,
                              [helper.make_tensor_value_info(x, F, ["batch_size", "sequence", H])],
                              consts)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="pytorch", producer_version="2.1.0")
    model.ir_version = 8
    g = graph.SerializeToString()
    model.ClearField("graph")
    head = model.SerializeToString()
    # Each embedded weight: TensorProto{dims, data_type, name} then
    # raw_data (field 9, tag 0x4A) of its bytes, appended to the graph as
    # initializer fields (5, tag 0x2A): fields may come in any order.
    tensors = []
    for n, d in embedded:
        meta = TensorProto(name=n, data_type=F, dims=d).SerializeToString()
        nbytes = 4 * int(np.prod(d))
        t_len = len(meta) + 1 + len(varint(nbytes)) + nbytes
        tensors.append((b"\x2a" + varint(t_len) + meta + b"\x4a" + varint(nbytes), nbytes))
    g_len = len(g) + sum(len(p) + n for p, n in tensors)
    with open(a.out, "wb") as f:
        f.write(head + b"\x3a" + varint(g_len) + g)
        for prefix, nbytes in tensors:
            f.write(prefix)
            f.seek(nbytes, os.SEEK_CUR)
        f.truncate()
        size = f.tell()
    print("%d nodes, %d embedded tensors, %d bytes" % (len(nodes), len(embedded), size))


main()
