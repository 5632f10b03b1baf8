#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/gen_ops.py: the translator's fixtures (tests/onnx/ops/), made
# with Debian's python3-onnx (onnx.helper); `make onnx-fixtures` runs it.
#
#   ops/NAME.onnx   one small model per mapped op (src/import/onnx_ops.def), the
#                   shape-arithmetic chains exporters write, dim_params,
#                   an unknown op, names to sanitise, a value_info that
#                   disagrees; tests/cli/onnx_import.sh asserts each one's
#                   FLOPs and bytes and its `rooflint import` text
#                   (ops/NAME.roof)
#
# Every model is float32 [2, 8] activations unless it says otherwise, so
# the figures in onnx_import.sh are easy to compute by hand.  The output
# is the same on every run.
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "ops")
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def save(name, nodes, inputs, outputs, inits=(), opset=17, value_info=(), domains=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits), value_info=list(value_info))
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(g, opset_imports=ops, producer_name="gen_ops.py", producer_version="1")
    m.ir_version = 8
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or "/" + op, **attrs)


X28 = [vi("x", [2, 8])]
Y28 = [vi("y", [2, 8])]


def unary():
    for op in ["Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Neg", "Abs", "Erf",
               "HardSwish", "HardSigmoid", "Softplus", "Reciprocal", "Identity", "Dropout"]:
        save("unary_" + op.lower(), [node(op, ["x"], ["y"])], X28, Y28)
    save("gelu", [node("Gelu", ["x"], ["y"])], X28, Y28, opset=20)
    save("gelu_tanh", [node("Gelu", ["x"], ["y"], approximate="tanh")], X28, Y28, opset=20)
    save("clip", [node("Clip", ["x", "lo", "hi"], ["y"])], X28, Y28,
         [const("lo", np.float32(0)), const("hi", np.float32(6))])
    save("clip_attr", [node("Clip", ["x"], ["y"], min=0.0, max=6.0)], X28, Y28, opset=9)
    save("cast", [node("Cast", ["x"], ["y"], to=TensorProto.FLOAT16)], X28,
         [vi("y", [2, 8], TensorProto.FLOAT16)])


def binary():
    for op in ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"]:
        save("binary_" + op.lower(), [node(op, ["x", "b"], ["y"])], [vi("x", [2, 8]), vi("b", [8])], Y28)
    # a scalar constant is a number
    # torch shares an initializer through an Identity: still the weight
    save("identity_initializer", [node("Identity", ["b"], ["b2"]), node("Add", ["x", "b2"], ["y"])],
         X28, Y28, [const("b", np.zeros(8, np.float32))])
    save("mul_scalar", [node("Constant", [], ["half"], value=helper.make_tensor("v", F, [], [0.5])),
                        node("Mul", ["x", "half"], ["y"])], X28, Y28)
    save("where", [node("Where", ["c", "x", "neg"], ["y"])],
         [vi("c", [2, 8], TensorProto.BOOL), vi("x", [2, 8])], Y28, [const("neg", np.float32(-1))])


def contractions():
    w = const("w", np.zeros((4, 3, 3, 3), np.float32))
    b = const("b", np.zeros(4, np.float32))
    save("conv_bias", [node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 8, 8])], [w, b])
    save("conv_stride_group", [node("Conv", ["x", "w"], ["y"], strides=[2, 2], group=2, dilations=[1, 1])],
         [vi("x", [1, 4, 8, 8])], [vi("y", [1, 4, 3, 3])], [const("w", np.zeros((4, 2, 3, 3), np.float32))])
    save("conv_asym_pads", [node("Conv", ["x", "w"], ["y"], pads=[0, 0, 1, 1])],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 7, 7])], [w])
    save("conv_same_upper", [node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 4, 4])], [w])
    save("conv1d", [node("Conv", ["x", "w"], ["y"], pads=[1, 1])],
         [vi("x", [1, 3, 10])], [vi("y", [1, 4, 10])], [const("w", np.zeros((4, 3, 3), np.float32))])
    save("conv_transpose", [node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1])],
         [vi("x", [1, 4, 4, 4])], [vi("y", [1, 2, 8, 8])], [const("w", np.zeros((4, 2, 4, 4), np.float32))])
    save("gemm_transb", [node("Gemm", ["x", "w", "c"], ["y"], transB=1)],
         [vi("x", [2, 4])], [vi("y", [2, 3])],
         [const("w", np.zeros((3, 4), np.float32)), const("c", np.zeros(3, np.float32))])
    save("gemm_alpha_beta", [node("Gemm", ["x", "w", "c"], ["y"], alpha=0.5, beta=2.0, transA=1)],
         [vi("x", [4, 2])], [vi("y", [2, 3])],
         [const("w", np.zeros((4, 3), np.float32)), const("c", np.zeros(3, np.float32))])
    save("matmul", [node("MatMul", ["x", "w"], ["y"])], [vi("x", [2, 3, 4])], [vi("y", [2, 3, 5])],
         [const("w", np.zeros((4, 5), np.float32))])
    # torch's nn.Linear on [2, 3, 4]: MatMul(x, W^T), then Add(bias, that): one matmul(bias=)
    save("matmul_add_bias", [node("MatMul", ["x", "w"], ["m"]), node("Add", ["b", "m"], ["y"])],
         [vi("x", [2, 3, 4])], [vi("y", [2, 3, 5])],
         [const("w", np.zeros((4, 5), np.float32)), const("b", np.zeros(5, np.float32))])
    # the MatMul's result read twice: the Add stays an add
    save("matmul_add_shared", [node("MatMul", ["x", "w"], ["m"]), node("Add", ["b", "m"], ["y"]),
                               node("Relu", ["m"], ["r"])],
         [vi("x", [2, 3, 4])], [vi("y", [2, 3, 5]), vi("r", [2, 3, 5])],
         [const("w", np.zeros((4, 5), np.float32)), const("b", np.zeros(5, np.float32))])


def norms():
    p = [const(n, np.ones(4, np.float32)) for n in ("scale", "bias", "mean", "var")]
    save("batchnorm", [node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], epsilon=1e-3)],
         [vi("x", [2, 4, 3, 3])], [vi("y", [2, 4, 3, 3])], p)
    save("layernorm", [node("LayerNormalization", ["x", "g", "b"], ["y"], epsilon=1e-5)], X28, Y28,
         [const("g", np.ones(8, np.float32)), const("b", np.zeros(8, np.float32))])
    save("instancenorm", [node("InstanceNormalization", ["x", "g", "b"], ["y"])],
         [vi("x", [1, 4, 3, 3])], [vi("y", [1, 4, 3, 3])],
         [const("g", np.ones(4, np.float32)), const("b", np.zeros(4, np.float32))])
    save("softmax", [node("Softmax", ["x"], ["y"], axis=-1)], X28, Y28)
    save("log_softmax", [node("LogSoftmax", ["x"], ["y"], axis=1)], X28, Y28)
    # torch's LayerNorm before opset 17: the decomposed form
    save("layernorm_decomposed", [
        node("ReduceMean", ["x"], ["mu"], name="/ln/ReduceMean", axes=[-1]),
        node("Sub", ["x", "mu"], ["d"], name="/ln/Sub"),
        node("Pow", ["d", "two"], ["d2"], name="/ln/Pow"),
        node("ReduceMean", ["d2"], ["var"], name="/ln/ReduceMean_1", axes=[-1]),
        node("Add", ["var", "eps"], ["ve"], name="/ln/Add"),
        node("Sqrt", ["ve"], ["sd"], name="/ln/Sqrt"),
        node("Div", ["d", "sd"], ["n"], name="/ln/Div"),
        node("Mul", ["n", "g"], ["ng"], name="/ln/Mul"),
        node("Add", ["ng", "b"], ["y"], name="/ln/Add_1")], X28, Y28,
        [const("two", np.float32(2)), const("eps", np.float32(1e-5)),
         const("g", np.ones(8, np.float32)), const("b", np.zeros(8, np.float32))], opset=13)
    for op in ["ReduceSum", "ReduceMax"]:
        ins = ["x", "axes"] if op == "ReduceSum" else ["x"]
        kw = {} if op == "ReduceSum" else {"axes": [1, 2]}
        save(op.lower(), [node(op, ins, ["y"], keepdims=0, **kw)], [vi("x", [2, 3, 4])], [vi("y", [2])],
             [const("axes", np.array([1, 2], np.int64))] if op == "ReduceSum" else [])


def pools():
    save("maxpool", [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
         [vi("x", [1, 2, 8, 8])], [vi("y", [1, 2, 4, 4])])
    save("averagepool_ceil", [node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
         [vi("x", [1, 2, 7, 7])], [vi("y", [1, 2, 4, 4])])
    save("maxpool_dilated", [node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2])],
         [vi("x", [1, 2, 8, 8])], [vi("y", [1, 2, 6, 6])])
    save("global_average_pool", [node("GlobalAveragePool", ["x"], ["y"])],
         [vi("x", [1, 2, 4, 4])], [vi("y", [1, 2, 1, 1])])
    save("global_max_pool", [node("GlobalMaxPool", ["x"], ["y"])],
         [vi("x", [1, 2, 4, 4])], [vi("y", [1, 2, 1, 1])])
    # 1-D and 3-D windows: maxpool1d, avgpool3d
    save("maxpool_1d", [node("MaxPool", ["x"], ["y"], kernel_shape=[3], strides=[2], pads=[1, 1])],
         [vi("x", [1, 4, 10])], [vi("y", [1, 4, 5])])
    save("averagepool_3d", [node("AveragePool", ["x"], ["y"], kernel_shape=[2, 3, 3], strides=[1, 2, 2],
                                 pads=[0, 1, 1, 0, 1, 1])],
         [vi("x", [1, 2, 4, 8, 8])], [vi("y", [1, 2, 3, 4, 4])])
    save("averagepool_3d_asym", [node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2, 2], strides=[2, 2, 2],
                                      pads=[0, 0, 0, 1, 1, 1])],
         [vi("x", [1, 1, 3, 3, 3])], [vi("y", [1, 1, 2, 2, 2])])
    save("global_max_pool_1d", [node("GlobalMaxPool", ["x"], ["y"])],
         [vi("x", [2, 3, 5])], [vi("y", [2, 3, 1])])
    save("global_average_pool_3d", [node("GlobalAveragePool", ["x"], ["y"])],
         [vi("x", [1, 2, 2, 3, 4])], [vi("y", [1, 2, 1, 1, 1])])


def views():
    """Each view followed by a Relu, whose bytes show the view's size."""
    def v(name, nodes, x, inits=()):
        save(name, nodes + [node("Relu", ["v"], ["y"])], [vi("x", x)], [vi("y", None)], inits)
    v("reshape", [node("Reshape", ["x", "s"], ["v"])], [2, 3, 4], [const("s", np.array([0, -1], np.int64))])
    v("transpose", [node("Transpose", ["x"], ["v"], perm=[2, 0, 1])], [2, 3, 4])
    v("flatten", [node("Flatten", ["x"], ["v"], axis=2)], [2, 3, 4, 5])
    v("flatten0", [node("Flatten", ["x"], ["v"], axis=0)], [2, 3])
    v("squeeze", [node("Squeeze", ["x", "ax"], ["v"])], [2, 1, 4, 1], [const("ax", np.array([1, 3], np.int64))])
    v("unsqueeze", [node("Unsqueeze", ["x", "ax"], ["v"])], [2, 4], [const("ax", np.array([0, -1], np.int64))])
    v("slice", [node("Slice", ["x", "st", "en", "ax", "sp"], ["v"])], [4, 10],
      [const("st", np.array([1, -8], np.int64)), const("en", np.array([9223372036854775807, 10], np.int64)),
       const("ax", np.array([0, 1], np.int64)), const("sp", np.array([1, 2], np.int64))])
    v("gather_scalar", [node("Gather", ["x", "i"], ["v"], axis=1)], [2, 5, 3], [const("i", np.int64(0))])
    v("expand", [node("Expand", ["x", "s"], ["v"])], [1, 1, 4], [const("s", np.array([3, 1, 1], np.int64))])
    save("split", [node("Split", ["x", "parts"], ["a", "b"], axis=1)], [vi("x", [2, 8])],
         [vi("a", [2, 3]), vi("b", [2, 5])], [const("parts", np.array([3, 5], np.int64))], opset=13)
    save("split_equal", [node("Split", ["x"], ["a", "b"], axis=-1)], [vi("x", [2, 8])],
         [vi("a", [2, 4]), vi("b", [2, 4])], opset=11)


def movement():
    save("concat", [node("Concat", ["a", "b"], ["y"], axis=1)], [vi("a", [2, 3]), vi("b", [2, 5])], Y28)
    save("gather_embedding", [node("Gather", ["table", "ids"], ["y"])], [vi("ids", [2, 3], I64)],
         [vi("y", [2, 3, 4])], [const("table", np.zeros((10, 4), np.float32))])
    save("pad", [node("Pad", ["x", "p"], ["y"], mode="constant")], [vi("x", [1, 2, 3, 3])],
         [vi("y", [1, 2, 5, 5])], [const("p", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))])
    save("resize", [node("Resize", ["x", "", "sc"], ["y"], mode="nearest")], [vi("x", [1, 2, 3, 3])],
         [vi("y", [1, 2, 6, 6])], [const("sc", np.array([1, 1, 2, 2], np.float32))])
    # float scales: floor(dim * scale), a size=; sizes; opset 18's axes
    save("resize_scales_float", [node("Resize", ["x", "", "sc"], ["y"], mode="nearest")], [vi("x", [1, 2, 4, 6])],
         [vi("y", [1, 2, 6, 9])], [const("sc", np.array([1, 1, 1.5, 1.5], np.float32))])
    save("resize_downscale", [node("Resize", ["x", "", "sc"], ["y"], mode="nearest")], [vi("x", [1, 2, 5, 5])],
         [vi("y", [1, 2, 2, 2])], [const("sc", np.array([1, 1, 0.5, 0.5], np.float32))])
    save("resize_sizes", [node("Resize", ["x", "", "", "sz"], ["y"], mode="linear")], [vi("x", [1, 2, 3, 3])],
         [vi("y", [1, 2, 5, 7])], [const("sz", np.array([1, 2, 5, 7], np.int64))])
    save("resize_sizes_axes", [node("Resize", ["x", "", "", "sz"], ["y"], axes=[2, 3])], [vi("x", [1, 2, 3, 3])],
         [vi("y", [1, 2, 6, 6])], [const("sz", np.array([6, 6], np.int64))], opset=18)
    save("resize_channels", [node("Resize", ["x", "", "sc"], ["y"])], [vi("x", [1, 2, 3, 3])],
         [vi("y", [1, 4, 3, 3])], [const("sc", np.array([1, 2, 1, 1], np.float32))])


def shape_arithmetic():
    """What torch.onnx.export writes for `x.view(x.size(0), -1)` and for a
    position embedding: Shape -> Gather -> Unsqueeze -> Concat -> Reshape,
    ConstantOfShape, Range; every shape node folds, leaving the kernels."""
    save("shape_chain", [
        node("Shape", ["x"], ["s"], name="/Shape"),
        node("Gather", ["s", "zero"], ["b"], name="/Gather", axis=0),
        node("Unsqueeze", ["b", "ax0"], ["bu"], name="/Unsqueeze"),
        node("Concat", ["bu", "minus1"], ["shape"], name="/Concat", axis=0),
        node("Reshape", ["x", "shape"], ["v"], name="/Reshape"),
        node("Relu", ["v"], ["y"], name="/Relu")],
        [vi("x", ["batch", 4, 6])], [vi("y", ["batch", 24])],
        [const("zero", np.int64(0)), const("ax0", np.array([0], np.int64)),
         const("minus1", np.array([-1], np.int64))])
    save("positions", [
        node("Shape", ["ids"], ["s"], name="/Shape"),
        node("Gather", ["s", "one"], ["n"], name="/Gather", axis=0),
        node("Range", ["zero", "n", "one"], ["pos"], name="/Range"),
        node("Gather", ["wpe", "pos"], ["pe"], name="/wpe/Gather"),
        node("Gather", ["wte", "ids"], ["te"], name="/wte/Gather"),
        node("Add", ["te", "pe"], ["h"], name="/Add"),
        node("Shape", ["h"], ["hs"], name="/Shape_1"),
        node("ConstantOfShape", ["hs"], ["zeros"], name="/ConstantOfShape",
             value=helper.make_tensor("v", F, [1], [0.0])),
        node("Add", ["h", "zeros"], ["y"], name="/Add_1")],
        [vi("ids", ["batch", "sequence"], I64)], [vi("y", ["batch", "sequence", 4])],
        [const("zero", np.int64(0)), const("one", np.int64(1)),
         const("wpe", np.zeros((16, 4), np.float32)), const("wte", np.zeros((50, 4), np.float32))])
    # an unknown dim (no value, no dim_param) becomes a let too
    x = vi("x", [None, 8])
    save("unknown_dim", [node("Relu", ["x"], ["y"])], [x], [vi("y", [None, 8])])
    # If with a constant condition: the branch taken, inlined
    then_g = helper.make_graph([node("Relu", ["x"], ["t"], name="/then/Relu")], "then", [], [vi("t", [2, 8])])
    else_g = helper.make_graph([node("Neg", ["x"], ["e"], name="/else/Neg")], "else", [], [vi("e", [2, 8])])
    # Loop with a constant trip count: `loop 3 { }`, h carried
    body = helper.make_graph(
        [node("MatMul", ["h_in", "w"], ["m"], name="/body/MatMul"),
         node("Relu", ["m"], ["h_out"], name="/body/Relu"),
         node("Identity", ["c_in"], ["c_out"], name="/body/Identity")],
        "body", [vi("i", [], I64), vi("c_in", [], TensorProto.BOOL), vi("h_in", [2, 8])],
        [vi("c_out", [], TensorProto.BOOL), vi("h_out", [2, 8])])
    save("loop_const", [node("Loop", ["trips", "", "x"], ["y"], name="/loop", body=body)], X28, Y28,
         [const("trips", np.int64(3)), const("w", np.zeros((8, 8), np.float32))])
    # the same body, a trip count given at run time: an error
    save("loop_dynamic", [node("Loop", ["n", "", "x"], ["y"], name="/loop", body=body)],
         [vi("n", [], I64), vi("x", [2, 8])], Y28, [const("w", np.zeros((8, 8), np.float32))])
    # a Loop with a scan output: each trip's Neg stacked [3, 2, 8]
    scan_body = helper.make_graph(
        [node("MatMul", ["h_in", "w"], ["m"], name="/body/MatMul"),
         node("Relu", ["m"], ["h_out"], name="/body/Relu"),
         node("Neg", ["m"], ["s"], name="/body/Neg"),
         node("Identity", ["c_in"], ["c_out"], name="/body/Identity")],
        "body", [vi("i", [], I64), vi("c_in", [], TensorProto.BOOL), vi("h_in", [2, 8])],
        [vi("c_out", [], TensorProto.BOOL), vi("h_out", [2, 8]), vi("s", [2, 8])])
    save("loop_scan", [node("Loop", ["trips", "", "x"], ["y", "ys"], name="/loop", body=scan_body),
                       node("Relu", ["ys"], ["r"], name="/Relu")], X28, [vi("y", [2, 8]), vi("r", [3, 2, 8])],
         [const("trips", np.int64(3)), const("w", np.zeros((8, 8), np.float32))])
    # a Scan over axis 1 of xs [2, 5, 4]: state s [2, 4] plus each slice, the
    # running sums' relu stacked on axis 1
    sum_body = helper.make_graph(
        [node("Add", ["s_in", "x_t"], ["s_out"], name="/body/Add"),
         node("Relu", ["s_out"], ["y_t"], name="/body/Relu")],
        "body", [vi("s_in", [2, 4]), vi("x_t", [2, 4])], [vi("s_out", [2, 4]), vi("y_t", [2, 4])])
    save("scan", [node("Scan", ["s0", "xs"], ["s", "ys"], name="/scan", body=sum_body, num_scan_inputs=1,
                       scan_input_axes=[1], scan_output_axes=[1]),
                  node("Relu", ["ys"], ["r"], name="/Relu")],
         [vi("s0", [2, 4]), vi("xs", [2, 5, 4])], [vi("s", [2, 4]), vi("r", [2, 5, 4])])
    save("if_const", [node("Constant", [], ["c"], value=helper.make_tensor("v", TensorProto.BOOL, [], [1])),
                      node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], X28, Y28)


def declarations():
    # names that are no identifiers, one that is a keyword, two that collide
    save("names", [node("Add", ["input", "1.weight"], ["a/b"], name="/add"),
                   node("Relu", ["a/b"], ["a_b"], name="/relu"),
                   node("Relu", ["a_b"], ["output"], name="/relu_1")],
         [vi("input", [2, 8])], [vi("output", [2, 8])], [const("1.weight", np.zeros(8, np.float32))])
    # fp16 weights dominate: the plan is fp16 and their declarations name no dtype
    save("plan_fp16", [node("Cast", ["x"], ["xh"], to=TensorProto.FLOAT16),
                       node("MatMul", ["xh", "w"], ["y"])],
         [vi("x", [2, 8])], [vi("y", [2, 8], TensorProto.FLOAT16)],
         [const("w", np.zeros((8, 8), np.float16))])
    # weights passed as graph inputs (--weights-as-inputs)
    save("weights_as_inputs", [node("MatMul", ["x", "w"], ["h"]), node("Add", ["h", "b"], ["y"])],
         [vi("x", ["batch", 8]), vi("w", [8, 8]), vi("b", [8])], [vi("y", ["batch", 8])])
    # value_info that disagrees with the shape rules: a warning
    save("value_info_mismatch", [node("Relu", ["x"], ["r"]), node("Relu", ["r"], ["y"])], X28, Y28,
         value_info=[vi("r", [2, 9])])
    # an op rooflint does not map
    save("unknown_op", [node("Relu", ["x"], ["r"]),
                        helper.make_node("FancyNorm", ["r"], ["y"], name="/fancy", domain="com.example")],
         X28, Y28, domains=["com.example"])


def quantized():
    s = const("s", np.float32(0.1))
    z = const("z", np.int8(0))
    save("quantize", [node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                      node("DequantizeLinear", ["q", "s", "z"], ["y"])], X28, Y28, [s, z])
    save("qlinear_matmul", [node("QLinearMatMul", ["a", "s", "z", "w", "s", "z", "s", "z"], ["y"])],
         [vi("a", [2, 8], TensorProto.INT8)], [vi("y", [2, 4], TensorProto.INT8)],
         [s, z, const("w", np.zeros((8, 4), np.int8))])
    save("matmul_integer", [node("MatMulInteger", ["a", "w"], ["y"])],
         [vi("a", [2, 8], TensorProto.INT8)], [vi("y", [2, 4], TensorProto.INT32)],
         [const("w", np.zeros((8, 4), np.int8))])
    save("qlinear_conv", [node("QLinearConv", ["x", "s", "z", "w", "s", "z", "s", "z", "bq"], ["y"], pads=[1, 1, 1, 1])],
         [vi("x", [1, 3, 8, 8], TensorProto.INT8)], [vi("y", [1, 4, 8, 8], TensorProto.INT8)],
         [s, z, const("w", np.zeros((4, 3, 3, 3), np.int8)), const("bq", np.zeros(4, np.int32))])


def hostile():
    """Issue 28: files no exporter writes, each an error at its node (exit 1)."""
    # item 6: dims of 2^40 x 2^40 overflowed 64 bits in the element count
    save("constant_of_shape_huge", [node("ConstantOfShape", ["s"], ["y"])], [],
         [vi("y", [1 << 40, 1 << 40])], [const("s", np.array([1 << 40, 1 << 40], np.int64))])
    # item 7: a stride of 0 divided by zero in the shape rule and auto_pad
    w = const("w", np.zeros((4, 3, 3, 3), np.float32))
    save("conv_stride0", [node("Conv", ["x", "w"], ["y"], strides=[1, 0])],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 6, 6])], [w])
    save("conv_stride0_same", [node("Conv", ["x", "w"], ["y"], strides=[0, 0], auto_pad="SAME_UPPER")],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 8, 8])], [w])
    save("conv1d_stride0", [node("Conv", ["x", "w"], ["y"], strides=[0])],
         [vi("x", [1, 3, 10])], [vi("y", [1, 4, 8])], [const("w", np.zeros((4, 3, 3), np.float32))])
    # item 17: a Slice on axis 99 of a rank-4 input was an alias of its input
    save("slice_axis_99", [node("Slice", ["x", "st", "en", "ax"], ["y"])], [vi("x", [1, 2, 8, 8])],
         [vi("y", [1, 2, 8, 8])], [const("st", np.array([0], np.int64)), const("en", np.array([1], np.int64)),
                                   const("ax", np.array([99], np.int64))])
    # item 8: scales of inf, NaN and 1e30 were cast to int64 (undefined)
    for tag, v in (("inf", np.inf), ("nan", np.nan), ("1e30", 1e30)):
        save("resize_scale_" + tag, [node("Resize", ["x", "", "sc"], ["y"])], [vi("x", [1, 2, 8, 8])],
             [vi("y", [1, 2, 8, 8])], [const("sc", np.array([1, 1, v, 1], np.float32))])
    # item 21: a Loop of -3 trips (a constant, but not a count)
    body = helper.make_graph(
        [node("Relu", ["h_in"], ["h_out"], name="/body/Relu"),
         node("Identity", ["c_in"], ["c_out"], name="/body/Identity")],
        "body", [vi("i", [], I64), vi("c_in", [], TensorProto.BOOL), vi("h_in", [2, 8])],
        [vi("c_out", [], TensorProto.BOOL), vi("h_out", [2, 8])])
    save("loop_negative", [node("Loop", ["trips", "", "x"], ["y"], name="/loop", body=body)], X28, Y28,
         [const("trips", np.int64(-3))])
    # item 21: an op_type of "" (present, empty) where a missing one is refused
    save("op_type_empty", [node("Relu", ["x"], ["r"]), helper.make_node("", ["r"], ["y"], name="/empty")],
         X28, Y28)
    # item 21: a kernel_shape of 5x5 on a 3x3 weight
    save("conv_kernel_shape_mismatch", [node("Conv", ["x", "w"], ["y"], kernel_shape=[5, 5])],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 6, 6])], [w])
    # commit e048cfb (fuzz_import): Unsqueeze of axis 5 on a rank-2 input (rank 3 after)
    save("unsqueeze_axis_5", [node("Unsqueeze", ["x", "ax"], ["y"])], X28, [vi("y", [2, 8, 1])],
         [const("ax", np.array([5], np.int64))])
    # fuzz_import: a Pad whose mode says STRING but holds its value in `strings`
    # (field 9), so the `s` field is absent: proto3 reads it as "", not NULL
    pad = node("Pad", ["x", "p"], ["y"])
    mode = onnx.AttributeProto(name="mode", type=onnx.AttributeProto.STRING)
    mode.strings.append(b"constant")
    pad.attribute.append(mode)
    save("pad_mode_in_strings", [pad], X28, [vi("y", [2, 10])],
         [const("p", np.array([0, 1, 0, 1], np.int64))])


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".onnx"):
            os.remove(os.path.join(OUT, f))
    for gen in (unary, binary, contractions, norms, pools, views, movement,
                shape_arithmetic, declarations, quantized, hostile):
        gen()


if __name__ == "__main__":
    main()
