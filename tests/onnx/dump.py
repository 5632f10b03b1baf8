#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/dump.py FILE.onnx: what python3-onnx's onnx.load makes of an
# ONNX file, printed in the format of tests/onnx/onnx_dump.c (which prints
# what rooflint's reader made of it), so the two can be compared line for
# line.  External data is not loaded; a tensor's values are printed when
# onnx_read keeps them: in the file, at most 4096 (ONNX_SMALL_ELEMS)
# elements, of a numeric type.  Run with Debian's /usr/bin/python3.
import math
import sys

import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

SMALL = 4096
ATTR_TYPES = ["UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
              "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS"]
DTYPES = ["UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
          "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64",
          "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
          "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"]
NUMERIC = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13}  # those 1.12 can decode
out = []


def dtype(t):
    return DTYPES[t] if 0 <= t < len(DTYPES) else "?"


def real(x):
    return "nan" if math.isnan(x) else "%.17g" % x


def text(b):
    return b.decode("utf-8", "surrogateescape") if isinstance(b, bytes) else b


def strs(items):
    return "[" + ",".join('"%s"' % text(s) for s in items) + "]"


def has_data(t):
    return (t.HasField("raw_data") or len(t.float_data) or len(t.int32_data)
            or len(t.int64_data) or len(t.double_data) or len(t.uint64_data))


def tensor(t):
    s = '"%s" %s [%s]' % (t.name, dtype(t.data_type),
                          ",".join(str(d) for d in t.dims))
    n = math.prod(t.dims)
    if t.data_location == TensorProto.EXTERNAL or len(t.external_data):
        return s + " ext"
    if n > SMALL or t.data_type not in NUMERIC or (n and not has_data(t)):
        return s + " -"
    vals = numpy_helper.to_array(t).flatten().tolist()
    if t.data_type in (1, 10, 11):
        return s + " [" + ",".join(real(float(v)) for v in vals) + "]"
    return s + " [" + ",".join(str(int(v)) for v in vals) + "]"


def value(what, v, d):
    line = '  ' * d + '%s "%s" ' % (what, v.name)
    if not v.type.HasField("tensor_type"):
        out.append(line + "UNDEFINED *")
        return
    tt = v.type.tensor_type
    line += dtype(tt.elem_type) + " "
    if not tt.HasField("shape"):
        out.append(line + "*")
        return
    dims = []
    for dim in tt.shape.dim:
        k = dim.WhichOneof("value")
        dims.append(str(dim.dim_value) if k == "dim_value" else
                    dim.dim_param if k == "dim_param" else "?")
    out.append(line + "[" + ",".join(dims) + "]")


def attr(a, d):
    ty = a.type
    line = '  ' * d + 'attr "%s" %s' % (a.name, ATTR_TYPES[ty] if ty <= 10 else "OTHER")
    if ty == AttributeProto.FLOAT:
        line += " " + real(a.f)
    elif ty == AttributeProto.INT:
        line += " %d" % a.i
    elif ty == AttributeProto.STRING:
        line += ' "%s"' % text(a.s)
    elif ty == AttributeProto.TENSOR:
        line += " " + tensor(a.t)
    elif ty == AttributeProto.FLOATS:
        line += " [" + ",".join(real(x) for x in a.floats) + "]"
    elif ty == AttributeProto.INTS:
        line += " [" + ",".join(str(x) for x in a.ints) + "]"
    elif ty == AttributeProto.STRINGS:
        line += " " + strs(a.strings)
    out.append(line)
    if ty == AttributeProto.GRAPH:
        graph(a.g, d + 1)
    if ty == AttributeProto.TENSORS:
        for t in a.tensors:
            out.append('  ' * (d + 1) + "tensor " + tensor(t))
    if ty == AttributeProto.GRAPHS:
        for g in a.graphs:
            graph(g, d + 1)


def graph(g, d):
    out.append('  ' * d + 'graph "%s"' % g.name)
    for v in g.input:
        value("input", v, d + 1)
    for v in g.output:
        value("output", v, d + 1)
    for v in g.value_info:
        value("value_info", v, d + 1)
    for t in g.initializer:
        out.append('  ' * (d + 1) + "initializer " + tensor(t))
    for i, n in enumerate(g.node):
        out.append('  ' * (d + 1) + 'node %d "%s" %s "%s" in %s out %s'
                   % (i, n.name, n.op_type, n.domain, strs(n.input), strs(n.output)))
        for a in n.attribute:
            attr(a, d + 2)


def main():
    m = onnx.load(sys.argv[1], load_external_data=False)
    out.append("ir_version %d" % m.ir_version)
    out.append('producer "%s" "%s"' % (m.producer_name, m.producer_version))
    for o in m.opset_import:
        out.append('opset "%s" %d' % (o.domain, o.version))
    graph(m.graph, 0)
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8", "surrogateescape"))


main()
