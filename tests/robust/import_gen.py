#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/robust/import_gen.py DIR: writes the hostile inputs of the importers
# (issue 28) into DIR: ONNX models and Hugging Face configs whose strings
# would inject statements into the text the importer writes, or that are
# too large.  `make robust` runs each in every mode (tests/robust/run.sh);
# tests/cli/robust_import.sh asserts what each lints as.
#
# The ONNX files are encoded here, field by field (onnx.proto's numbers,
# specs/onnx.md R-WIRE-001), so the test needs no onnx package and the
# bytes are exactly those described.
import json
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def varint(n):
    b = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            b.append(byte | 0x80)
        else:
            b.append(byte)
            return bytes(b)


def field_len(num, payload):
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def field_int(num, n):
    return varint(num << 3) + varint(n)


def value_info(name, elem_type, dims):
    """ValueInfoProto: name (1), type (2) -> tensor_type (1) -> elem_type (1),
    shape (2) -> dim (1) -> dim_value (1) or dim_param (2)."""
    shape = b"".join(
        field_len(1, field_int(1, d) if isinstance(d, int) else field_len(2, d))
        for d in dims)
    tensor = field_int(1, elem_type) + field_len(2, shape)
    return field_len(1, name) + field_len(2, field_len(1, tensor))


def node(op_type, inputs, outputs, name="", domain=""):
    b = b"".join(field_len(1, i) for i in inputs)
    b += b"".join(field_len(2, o) for o in outputs)
    if name:
        b += field_len(3, name)
    b += field_len(4, op_type)
    if domain:
        b += field_len(7, domain)
    return b


def model(nodes, inputs, outputs, producer="", version="", opsets=(("", 17),)):
    g = b"".join(field_len(1, n) for n in nodes)
    g += field_len(2, "g")
    g += b"".join(field_len(11, i) for i in inputs)
    g += b"".join(field_len(12, o) for o in outputs)
    m = field_int(1, 8)
    if producer:
        m += field_len(2, producer)
    if version:
        m += field_len(3, version)
    m += field_len(7, g)
    for domain, v in opsets:
        m += field_len(8, (field_len(1, domain) if domain else b"") + field_int(2, v))
    return m


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


INJECT = "\nmodel injected_model {\n  weight w : [100000000000, 1000]\n}\n"
FLOAT = 1

# item 1: producer_name and producer_version with a newline, a CR and ESC
write("inj_producer.onnx", model(
    [node("Relu", ["x"], ["y"], name="/relu")],
    [value_info("x", FLOAT, [4, 8])], [value_info("y", FLOAT, [4, 8])],
    producer="evil" + INJECT + "#", version="1\r\x1b]0;title\x07"))
# item 2: an unmapped op type and a domain with a newline, for
# --unknown-ops=custom (its output typed by the graph's output)
write("inj_op_type.onnx", model(
    [node("Fancy" + INJECT + "#", ["x"], ["y"], name="/fancy",
          domain="com.example\n#")],
    [value_info("x", FLOAT, [4, 8])], [value_info("y", FLOAT, [4, 8])],
    opsets=(("", 17), ("com.example\n#", 1))))
# item 4: dim_params and names with control characters
write("inj_names.onnx", model(
    [node("Relu", ["x\n#"], ["y\x1b[2J"], name="/relu\nlet B = 2")],
    [value_info("x\n#", FLOAT, ["batch\nmodel m2 {\n}", 8])],
    [value_info("y\x1b[2J", FLOAT, ["batch\nmodel m2 {\n}", 8])]))
# item 3: a plain model, copied by the test under a name with a newline
write("plain.onnx", model(
    [node("Relu", ["x"], ["y"], name="/relu")],
    [value_info("x", FLOAT, [4, 8])], [value_info("y", FLOAT, [4, 8])],
    producer="pytorch", version="2.1"))

LLAMA = {
    "model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
    "vocab_size": 1000, "torch_dtype": "bfloat16",
}
# items 1 and 4 for configs: a key with a newline, a quant_method with ESC
write("inj_key.json", json.dumps(dict(LLAMA, **{"evil" + INJECT + "#": 1})))
write("inj_quant.json", json.dumps(dict(LLAMA, quantization_config={
    "quant_method": "\x1b]0;pwned\x07gptq\nrooflint: error: forged"})))
# a DEL in a value the import quotes in its comments: json_dumps leaves it
write("inj_del.json", json.dumps(dict(LLAMA, quantization_config={
    "modules_to_not_convert": ["model.layer\x7fs.*.self_attn"]})))
# item 10: num_hidden_layers of 10^9 (a loop per layer ran for an hour)
write("layers_1e9.json", json.dumps(dict(LLAMA, num_hidden_layers=10**9)))
# item 10: 4096 layers (the bound) and 95,160 numbers in mlp_only_layers
# (the 120 even layers below 240, each 793 times: 430 KB; every entry a
# layer's, as one that is not is an error): a layer's kind was a search of
# that list, for every layer
QWEN_MOE = {
    "model_type": "qwen2_moe", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 4096, "num_attention_heads": 4, "vocab_size": 100,
    "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 64, "decoder_sparse_step": 1}
write("layers_moe_4096.json", json.dumps(dict(
    QWEN_MOE, mlp_only_layers=list(range(0, 240, 2)) * 793)))
# the same with a dense layer every other one: 4096 runs of one layer, each
# a whole layer's text (megabytes), past the bound of 256 runs
write("layers_runs_4096.json", json.dumps(dict(
    QWEN_MOE, mlp_only_layers=list(range(0, 4096, 2)))))
# item 11: 20,000 unknown keys (each warning rescanned the text for its key)
write("keys_20k.json", json.dumps(dict(LLAMA, **{"k%05d" % i: i for i in range(20000)}),
                                  indent=1))
