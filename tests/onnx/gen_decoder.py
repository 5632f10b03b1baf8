#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/gen_decoder.py: decoder-only transformers as people export
# them (issue 29), made with Debian's python3-torch 1.13 by
# torch.onnx.export; `make onnx-fixtures` runs it.  tests/cli/onnx_decoder_exports.sh
# asserts each file's figures, computed by hand in its comments.
#
#   decoder/gpt_fp32_op13.onnx   nanoGPT's decoder (2 layers): a causal mask
#   decoder/gpt_fp32_op17.onnx   filled with masked_fill(mask == 0,
#   decoder/gpt_fp16_op13.onnx   float("-inf")), fp32 and fp16, opsets 13
#   decoder/gpt_fp16_op17.onnx   and 17
#   decoder/gpt_dynamic.onnx     the same with dynamic_axes: symbolic batch
#                                and sequence, so the mask's Equal stays
#   decoder/einsum_attn.onnx     attention written with torch.einsum
#   decoder/einsum_dynamic.onnx  the same with symbolic batch and sequence,
#                                through onnx.shape_inference.infer_shapes
#   decoder/mask_buffer.onnx     a bool mask (register_buffer), no parameter
#   decoder/nonfinite_*.onnx     written with onnx.helper (issue 28 item 16):
#                                an infinite or NaN value where a coefficient
#                                (Gemm alpha, beta, an epsilon), a bound or
#                                an operand is read; an infinite fill is legal
#
# torch 1.13 has no fp16 LayerNorm on the CPU, so the fp16 files are the
# fp32 export with every float type made float16 (initializers, inputs,
# outputs, value_info, Constant values, Cast targets), which is what
# onnxconverter-common's convert_float_to_float16 does to an export.
#
# Weights are stripped after the export: every float initializer keeps its
# dims and its data become zeros (rooflint reads only the dims; the file
# stays a valid model); integer and bool initializers keep their values
# (shape arithmetic and masks).  The output is the same on every run.
import math
import os
import sys

import numpy as np
import onnx
import torch
from torch import nn
import torch.nn.functional as F
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "decoder")

V, P, D, H, L = 64, 16, 32, 4, 2  # vocabulary, block size, width, heads, layers
B, S = 2, 8                        # the exported batch and sequence


class CausalSelfAttention(nn.Module):
    """nanoGPT's attention (model.py, the non-flash path)."""

    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)
        self.register_buffer("bias", torch.tril(torch.ones(P, P)).view(1, 1, P, P))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(D, dim=2)
        k = k.view(b, t, H, c // H).transpose(1, 2)
        q = q.view(b, t, H, c // H).transpose(1, 2)
        v = v.view(b, t, H, c // H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = CausalSelfAttention()
        self.c_fc, self.mlp_proj = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class Gpt(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, D), nn.Embedding(P, D)
        self.h = nn.ModuleList(Block() for _ in range(L))
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, V, bias=False)
        self.wte.weight = self.lm_head.weight  # nanoGPT ties them

    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for blk in self.h:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


class EinsumAttention(nn.Module):
    """Scores and context by torch.einsum, over q, k, v given as inputs."""

    def forward(self, q, k, v):
        b, h, t, hd = q.size()
        att = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hd)
        y = torch.einsum("bhqk,bhkd->bhqd", F.softmax(att, dim=-1), v)
        return y.transpose(1, 2).reshape(b, t, h * hd)


class MaskBuffer(nn.Module):
    """Masked scores with a bool tril buffer and no parameter at all."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(S, S, dtype=torch.bool)))

    def forward(self, q, k):
        att = q @ k.transpose(-2, -1)
        att = att.masked_fill(~self.mask, float("-inf"))
        return F.softmax(att, dim=-1)


def strip(path):
    """Float initializers keep their dims; their data become zeros."""
    m = onnx.load(path)
    for t in m.graph.initializer:
        if t.data_type == TensorProto.FLOAT:
            zeros = np.zeros(tuple(t.dims), np.float32)
            t.CopyFrom(numpy_helper.from_array(zeros, t.name))
    m.producer_name = "gen_decoder.py"
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def to_fp16(src, dst):
    m = onnx.load(src)
    g = m.graph
    for t in g.initializer:
        if t.data_type == TensorProto.FLOAT:
            arr = numpy_helper.to_array(t).astype(np.float16)
            t.CopyFrom(numpy_helper.from_array(arr, t.name))
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT16
    for n in g.node:
        for a in n.attribute:
            if n.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.FLOAT16
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT:
                arr = numpy_helper.to_array(a.t).astype(np.float16)
                a.t.CopyFrom(numpy_helper.from_array(arr, a.t.name))
    with open(dst, "wb") as f:
        f.write(m.SerializeToString())


def export(model, args, name, opset, names, dynamic=None):
    path = os.path.join(OUT, name + ".onnx")
    torch.onnx.export(model.eval(), args, path, opset_version=opset,
                      input_names=names, output_names=["y"],
                      dynamic_axes=dynamic, do_constant_folding=True)
    strip(path)


def nonfinite():
    """One node each, x float32 [2, 8]: a value the language cannot hold
    where it is read (an error at the node), or -inf where it is a fill."""
    from onnx import helper
    inf, nan = float("inf"), float("nan")
    f = TensorProto.FLOAT
    x = [helper.make_tensor_value_info("x", f, [2, 8])]
    y = [helper.make_tensor_value_info("y", f, [2, 8])]
    w = numpy_helper.from_array(np.zeros((8, 8), np.float32), "w")
    g8 = numpy_helper.from_array(np.zeros(8, np.float32), "g")

    def scalar(name, v):
        return numpy_helper.from_array(np.array(v, np.float32), name)

    cases = {
        "gemm_alpha_inf": ([helper.make_node("Gemm", ["x", "w"], ["y"], alpha=inf)], [w]),
        "gemm_beta_nan": ([helper.make_node("Gemm", ["x", "w", "g"], ["y"], beta=nan)], [w, g8]),
        "layernorm_eps_inf": ([helper.make_node("LayerNormalization", ["x", "g"], ["y"],
                                                epsilon=inf)], [g8]),
        "clip_nan": ([helper.make_node("Clip", ["x", "lo"], ["y"])], [scalar("lo", nan)]),
        "clip_inf": ([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
                     [scalar("lo", -inf), scalar("hi", 6)]),
        "mul_nan": ([helper.make_node("Mul", ["x", "k"], ["y"])], [scalar("k", nan)]),
        "pad_nan": ([helper.make_node("Pad", ["x", "pads", "v"], ["y"])],
                    [numpy_helper.from_array(np.array([0, 1, 0, 1], np.int64), "pads"),
                     scalar("v", nan)]),
    }
    for name, (nodes, inits) in cases.items():
        graph = helper.make_graph(nodes, name, x, y, inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="gen_decoder.py")
        m.ir_version = 8
        with open(os.path.join(OUT, "nonfinite_" + name + ".onnx"), "wb") as out:
            out.write(m.SerializeToString())


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    idx = torch.zeros(B, S, dtype=torch.long)
    gpt = Gpt()
    # torch's export merges initializers of equal values (every LayerNorm's
    # ones and zeros): random values keep one initializer per parameter
    with torch.no_grad():
        for prm in gpt.parameters():
            prm.normal_()
    for opset in (13, 17):
        export(gpt, (idx,), "gpt_fp32_op%d" % opset, opset, ["idx"])
    for opset in (13, 17):
        to_fp16(os.path.join(OUT, "gpt_fp32_op%d.onnx" % opset),
                os.path.join(OUT, "gpt_fp16_op%d.onnx" % opset))
    export(gpt, (idx,), "gpt_dynamic", 17, ["idx"],
           {"idx": {0: "batch", 1: "sequence"}, "y": {0: "batch", 1: "sequence"}})
    hd = D // H
    q = torch.zeros(B, H, S, hd)
    export(EinsumAttention(), (q, q, q), "einsum_attn", 17, ["q", "k", "v"])
    # symbolic batch and sequence, then onnx.shape_inference, which types
    # the einsums' results with dims of its own (unk__N)
    axes = {0: "batch", 2: "sequence"}
    export(EinsumAttention(), (q, q, q), "einsum_dynamic", 17, ["q", "k", "v"],
           {"q": axes, "k": axes, "v": axes})
    path = os.path.join(OUT, "einsum_dynamic.onnx")
    onnx.save(onnx.shape_inference.infer_shapes(onnx.load(path)), path)
    export(MaskBuffer(), (q, q), "mask_buffer", 17, ["q", "k"])
    nonfinite()
    for f in sorted(os.listdir(OUT)):
        size = os.path.getsize(os.path.join(OUT, f))
        if size >= 1 << 20:
            sys.exit("%s is %d bytes, over 1 MB" % (f, size))


if __name__ == "__main__":
    main()
