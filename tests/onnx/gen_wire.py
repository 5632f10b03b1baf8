#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/gen_wire.py: the reader's fixtures (tests/onnx/wire/), made with
# Debian's python3-onnx (onnx.helper); `make onnx-fixtures` runs it.
#
#   wire/NAME.onnx      a model for each thing the reader must read: IR
#                       versions 3 to 10, opsets 7 to 21, nested If/Loop
#                       graphs, every attribute type, every data field of a
#                       tensor, external data, dim_params, value_info
#   wire/NAME.dump      what tests/onnx/dump.py prints for it (the reader
#                       must print the same: tests/cli/onnx_read.sh)
#   wire/bad/NAME.onnx  a damaged copy of tiny_good.onnx (83 bytes);
#                       wire/bad/NAME.err, the reader's exact message, is
#                       committed, not written here: damaged() says where
#                       each offset comes from
#
# Every file is small (the largest initializer, 4608 floats, is there to
# be skipped) and the output is the same on every run.
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "wire")
F = TensorProto.FLOAT


def model(graph, ir, opsets, **kw):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name=kw.pop("producer", "gen_wire.py"),
                          producer_version=kw.pop("producer_version", "1"), **kw)
    m.ir_version = ir
    return m


def conv_relu(ir, opset):
    """IR 3 / opset 7: a Conv and a Relu, one weight big enough to skip."""
    w = numpy_helper.from_array(np.arange(8 * 8 * 8 * 9, dtype=np.float32).reshape(8, 8, 8, 9), "w")
    b = numpy_helper.from_array(np.array([0.5, -1.25, 3, 0, 1, 2, 3, 4], np.float32), "b")
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv",
                          kernel_shape=[8, 9], pads=[0, 0, 0, 0], strides=[1, 1]),
         helper.make_node("Relu", ["y"], ["z"], name="relu")],
        "conv_relu",
        [helper.make_tensor_value_info("x", F, [1, 8, 16, 16])],
        [helper.make_tensor_value_info("z", F, [1, 8, 9, 8])],
        [w, b])
    return model(g, ir, [("", opset)])


def transformer_block():
    """IR 10 / opset 21 (newer than python3-onnx 1.12 knows: the numbers
    are only written): LayerNormalization, MatMul, Softmax, with
    dim_params, an unknown dim and value_info."""
    H = 8
    w = numpy_helper.from_array(np.ones((H, H), np.float32) * 0.25, "w_q")
    scale = numpy_helper.from_array(np.ones(H, np.float32), "ln_scale")
    shape = numpy_helper.from_array(np.array([0, 0, 2, 4], np.int64), "split_shape")
    nodes = [
        helper.make_node("LayerNormalization", ["x", "ln_scale"], ["h"], name="/ln", axis=-1,
                         epsilon=1e-5),
        helper.make_node("MatMul", ["h", "w_q"], ["q"], name="/attn/q"),
        helper.make_node("Reshape", ["q", "split_shape"], ["q4"], name="/attn/reshape"),
        helper.make_node("Softmax", ["q4"], ["p"], name="/attn/softmax", axis=-1),
        helper.make_node("Shape", ["x"], ["xs"], name="/shape", start=0, end=2),
    ]
    g = helper.make_graph(
        nodes, "block",
        [helper.make_tensor_value_info("x", F, ["batch_size", "sequence", H])],
        [helper.make_tensor_value_info("p", F, ["batch_size", "sequence", 2, 4]),
         helper.make_tensor_value_info("xs", TensorProto.INT64, [2])],
        [w, scale, shape],
        value_info=[helper.make_tensor_value_info("h", F, ["batch_size", None, H]),
                    helper.make_tensor_value_info("q", F, None)])
    m = model(g, 10, [("", 21), ("com.microsoft", 1)], producer="pytorch",
              producer_version="2.1.0", doc_string="a doc string the reader skips")
    helper.set_model_props(m, {"author": "gen_wire.py"})
    return m


def nested():
    """If inside a Loop's body inside an If: graphs three deep, each
    naming values of the graph around it."""
    B = TensorProto.BOOL
    then_g = helper.make_graph(
        [helper.make_node("Add", ["v", "one"], ["r"], name="inner_then_add")], "inner_then", [],
        [helper.make_tensor_value_info("r", F, [4])],
        [numpy_helper.from_array(np.ones(4, np.float32), "one")])
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["v"], ["r"], name="inner_else_id")], "inner_else", [],
        [helper.make_tensor_value_info("r", F, [4])])
    body = helper.make_graph(
        [helper.make_node("If", ["c"], ["r"], name="inner_if", then_branch=then_g,
                          else_branch=else_g),
         helper.make_node("Identity", ["c"], ["c_out"], name="body_cond")],
        "loop_body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", B, []),
         helper.make_tensor_value_info("v", F, [4])],
        [helper.make_tensor_value_info("c_out", B, []),
         helper.make_tensor_value_info("r", F, [4])])
    outer_then = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["y"], name="loop", body=body)],
        "outer_then", [], [helper.make_tensor_value_info("y", F, [4])],
        [numpy_helper.from_array(np.array(3, np.int64), "trips")])
    outer_else = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"], name="neg")], "outer_else", [],
        [helper.make_tensor_value_info("y", F, [4])])
    g = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="outer_if", then_branch=outer_then,
                          else_branch=outer_else)],
        "nested",
        [helper.make_tensor_value_info("cond", B, []),
         helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])])
    return model(g, 8, [("", 16)])


def attrs_and_data():
    """Every attribute type on one custom-domain node, and a Constant per
    data field of a tensor (raw_data and the typed fields)."""
    sub = helper.make_graph([helper.make_node("Identity", ["a"], ["b"], name="sub_id")], "sub",
                            [helper.make_tensor_value_info("a", F, [1])],
                            [helper.make_tensor_value_info("b", F, [1])])
    t_small = helper.make_tensor("t", TensorProto.INT64, [3], [1, -2, 3])
    custom = helper.make_node(
        "Everything", ["x", ""], ["y"], name="every_attr", domain="rooflint.test",
        a_float=0.1, a_int=-7, a_string="same \u00e9", a_tensor=t_small, a_graph=sub,
        a_floats=[1.5, -2.0], a_ints=[1, 2, 3], a_strings=["p", "q"],
        a_tensors=[t_small, helper.make_tensor("u", F, [2], [0.5, 0.25])],
        a_graphs=[sub, sub])
    consts = []
    def const(name, t):
        consts.append(helper.make_node("Constant", [], [name], name="c_" + name, value=t))
    const("f_data", helper.make_tensor("f", F, [2, 2], [1.0, 2.5, -3.0, 1e-3]))
    const("f_raw", numpy_helper.from_array(np.array([[1.0, 2.5], [-3.0, 1e30]], np.float32)))
    const("d_data", helper.make_tensor("d", TensorProto.DOUBLE, [2], [0.1, -1e300]))
    const("d_raw", numpy_helper.from_array(np.array([0.1, 2.0 ** -1074], np.float64)))
    const("i64_data", helper.make_tensor("i", TensorProto.INT64, [3], [-1, 2 ** 62, 0]))
    const("i64_raw", numpy_helper.from_array(np.array([-(2 ** 63), 5], np.int64)))
    const("i32_data", helper.make_tensor("i32", TensorProto.INT32, [2], [-(2 ** 31), 7]))
    const("i8_raw", numpy_helper.from_array(np.array([-128, 127, 0], np.int8)))
    const("u8_data", helper.make_tensor("u8", TensorProto.UINT8, [2], [255, 1]))
    const("b_raw", numpy_helper.from_array(np.array([True, False, True])))
    const("h_data", helper.make_tensor("h", TensorProto.FLOAT16, [3],
                                       np.array([1.0, -0.5, 65504], np.float16)))
    const("h_raw", numpy_helper.from_array(np.array([6e-8, -2.0], np.float16)))
    const("u64_data", helper.make_tensor("u64", TensorProto.UINT64, [2], [3, 2 ** 40]))
    const("scalar", helper.make_tensor("s", F, [], [42.0]))
    const("empty", helper.make_tensor("e", TensorProto.INT64, [0], []))
    const("str", helper.make_tensor("str", TensorProto.STRING, [1], [b"text"]))
    const("big", numpy_helper.from_array(np.zeros(4097, np.int8)))
    g = helper.make_graph(
        consts + [custom], "attrs",
        [helper.make_tensor_value_info("x", F, [1]),
         helper.make_tensor_sequence_value_info("seq", F, [2])],
        [helper.make_tensor_value_info("y", F, [1])])
    return model(g, 8, [("", 13), ("rooflint.test", 1)])


def external():
    """Initializers whose data lies in a file beside the model (never
    written: the reader must not open it), one sparse initializer."""
    ext = TensorProto(name="w_ext", data_type=F, dims=[1024, 1024])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", "4194304")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    small = TensorProto(name="b_ext", data_type=F, dims=[4])
    small.data_location = TensorProto.EXTERNAL
    e = small.external_data.add()
    e.key, e.value = "location", "weights.bin"
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("sp_values", F, [2], [1.0, 2.0]),
        helper.make_tensor("sp_indices", TensorProto.INT64, [2], [0, 5]), [8])
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w_ext"], ["y"], name="mm"),
         helper.make_node("Add", ["y", "b_ext"], ["z"], name="add")],
        "external",
        [helper.make_tensor_value_info("x", F, ["n", 1024])],
        [helper.make_tensor_value_info("z", F, ["n", 1024])],
        [ext, small])
    g.sparse_initializer.append(sparse)
    return model(g, 9, [("", 18)])


def weights_as_inputs():
    """IR 3 style: the weights are graph inputs as well as initializers."""
    w = numpy_helper.from_array(np.full((4, 4), 0.5, np.float32), "w")
    g = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w"], ["y"], name="gemm", transB=1, alpha=1.0,
                          beta=0.0)],
        "gemm",
        [helper.make_tensor_value_info("x", F, [2, 4]),
         helper.make_tensor_value_info("w", F, [4, 4])],
        [helper.make_tensor_value_info("y", F, [2, 4])],
        [w])
    return model(g, 3, [("", 9)])


MODELS = {
    "ir3_opset7_conv": lambda: conv_relu(3, 7),
    "ir4_opset11_conv": lambda: conv_relu(4, 11),
    "ir7_opset13_conv": lambda: conv_relu(7, 13),
    "ir3_opset9_gemm_inputs": weights_as_inputs,
    "ir8_nested_if_loop": nested,
    "ir8_attrs_data": attrs_and_data,
    "ir9_external": external,
    "ir10_opset21_block": transformer_block,
}


def damaged(good):
    """Each bad file: a good one's bytes, broken in one known place.  The
    good file: ir_version 08 08 (bytes 0-1), producer_name 12 0B and 11
    bytes (2-14), producer_version 1A 01 "1" (15-17), graph 3A 39 (18-19)
    and its 57 bytes (20-76), opset_import (77-82)."""
    b = bytearray(good)
    # Its first 41 bytes: the graph's length (byte 19) says 57, 21 are left.
    yield "truncated", bytes(b[: len(b) // 2])
    # A tag for field 1 (ir_version) then ten continuation bytes: the
    # varint starts at byte 1.
    yield "varint_too_long", bytes([0x08] + [0xFF] * 10 + [0x01]) + bytes(b)
    # A tag (byte 83) whose varint (byte 84) stops at the end of the file.
    yield "truncated_varint", bytes(b) + bytes([0x08, 0x80])
    # ModelProto.graph (7) given as a varint (wire type 0): tag 0x38 at 0.
    yield "wrong_wire_type", bytes([0x38, 0x01]) + bytes(b)
    # ModelProto.graph's length (byte 1) one past the end of the file.
    yield "length_past_end", bytes([0x3A]) + bytes([len(b) + 1]) + bytes(b) \
        if len(b) + 1 < 128 else None


def main():
    os.makedirs(os.path.join(OUT, "bad"), exist_ok=True)
    dump = os.path.join(HERE, "dump.py")
    for name, make in MODELS.items():
        path = os.path.join(OUT, name + ".onnx")
        onnx.save(make(), path)
        with open(os.path.join(OUT, name + ".dump"), "wb") as f:
            f.write(subprocess.run([sys.executable, dump, path], check=True,
                                   stdout=subprocess.PIPE).stdout)
    # The damaged files: a small model, so offsets in the messages are short.
    tiny = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "tiny",
                             [helper.make_tensor_value_info("x", F, [2])],
                             [helper.make_tensor_value_info("y", F, [2])])
    good = model(tiny, 8, [("", 13)]).SerializeToString()
    with open(os.path.join(OUT, "bad", "tiny_good.onnx"), "wb") as f:
        f.write(good)
    for name, data in damaged(good):
        if data is not None:
            with open(os.path.join(OUT, "bad", name + ".onnx"), "wb") as f:
                f.write(data)


main()
