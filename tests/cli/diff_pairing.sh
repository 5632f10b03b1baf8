#!/bin/sh
# diff_pairing.sh: which models `rooflint diff` pairs (R-DIFF-001).  One
# model a side: those two, whatever their names (an importer names the
# model after its file or graph), and the header names both; several:
# by name.
. tests/cli/driver_lib.inc
G=tests/golden/diff/inputs

# A Hugging Face config against another: the models are named after the
# files (llama2_7b, llama3_8b) and pair.  Parameters: Llama-2-7B
# 6,738,415,616 and Llama-3-8B 8,030,261,248 (R-HF-004), a change of
# 1,291,845,632 / 6,738,415,616 = +19.17%.
run diff tests/hf/llama2_7b.json tests/hf/llama3_8b.json
expect_status 0
expect_grep "$T/out" "model llama2_7b -> llama3_8b: 46 changed, 0 added, 0 removed"
expect_grep "$T/out" "  parameters        6.74 G      8.03 G    +19.2%"
expect_no_grep "$T/out" ": added ("
expect_no_grep "$T/out" ": removed ("

# An ONNX export against its own import under another model name: the
# same graph, so nothing changed.
run import tests/onnx/ops/unary_relu.onnx
sed 's/^model unary_relu {/model relu_v2 {/' "$T/out" >"$T/relu_v2.roof"
run diff tests/onnx/ops/unary_relu.onnx "$T/relu_v2.roof"
expect_status 0
expect_grep "$T/out" "model unary_relu -> relu_v2: 0 changed, 0 added, 0 removed"
expect_grep "$T/out" "  no node changed"
run diff --format json tests/onnx/ops/unary_relu.onnx "$T/relu_v2.roof"
expect_status 0
expect_grep "$T/out" '"name": "relu_v2",'
expect_grep "$T/out" '"old_name": "unary_relu",'
expect_grep "$T/out" '"status": "unchanged",'

# The same name on both sides prints it once.
run diff tests/onnx/ops/unary_relu.onnx tests/onnx/ops/unary_relu.onnx
expect_grep "$T/out" "model unary_relu: 0 changed, 0 added, 0 removed"

# One model against two: by name, so nothing pairs (m removed, enc and lm
# added); the single-model rule needs one model on each side.  m has 6
# nodes (x, w1, w2 and three f); enc's matmul [8, 1024] x [1024, 2048]
# moves (8*1024 + 1024*2048 + 8*2048) * 2 = 4,243,456 B at 3.35 TB/s:
# 1.27 us.
run diff "$G/rebound_old.roof" "$G/two_models_new.roof"
expect_status 0
expect_grep "$T/out" "model m: removed (6 nodes, step >= 5.10 us)"
expect_grep "$T/out" "model enc: added (3 nodes, step >= 1.27 us)"
expect_grep "$T/out" "model lm: added (3 nodes, step >= 19.7 us)"

# --fail-on-regression compares a renamed pair too: rebound_old (m,
# 5.10 us) against renamed_new (m_v2, 5.14 us) grows 0.77%.
run diff --fail-on-regression 0.5 "$G/rebound_old.roof" "$G/renamed_new.roof"
expect_status 1
expect_grep "$T/err" "step-time bound of model 'm_v2' grew by 0.8% (5.10 us -> 5.14 us)"

finish
