#!/bin/sh
# serving.sh: what would fit (R-CHK-083) and the serving answer of a decode
# plan (R-SERVE-001, R-SERVE-002), on Llama-3.1-70B's published config
# (tests/hf/llama3_1_70b.json).  The hand computations are in the spec's
# rules; the figures they give are asserted here exactly.
. tests/cli/driver_lib.inc
CFG=tests/hf/llama3_1_70b.json
PY=/usr/bin/python3

# --- R-CHK-083: prefill of 2048 tokens on one H100.  Weights 70,553,706,496
# parameters x 2 = 141,107,412,992 bytes, activations 2048 x (8192 + 3 x
# 28,672) x 2 = 385,875,968: 141,493,288,960 > 85,899,345,920 (80 GiB), so
# capacity is an error (exit 1).  At -D tensor=2 each GPU holds (1,318,912
# norm weights + 70,552,387,584 / 2) x 2 = 70,555,025,408 bytes and
# 2048 x (8192 + 3 x 14,336) x 2 = 209,715,200 of activations: 70,764,740,608,
# which fits.  The built-ins with less memory than H200 SXM's 141 GiB
# (151,397,597,184 bytes) are the 80 GiB, 48 GiB and 24 GiB parts.
# All at "torch_dtype" (line 30, column 3: R-DIAG-001), the notes at their
# error's place; the largest weight at its own key.
run "$CFG"
expect_status 1
expect_grep "$T/err" "$CFG:30:3: error: model 'llama3_1_70b' needs 141.5 GB but H100 SXM has 80 GiB = 85.9 GB: weights 141.1 GB, activations 385.9 MB [-Wcapacity]"
expect_grep "$T/err" "note: the largest weight, 'gate_proj', takes 37.6 GB (80 copies of 469.8 MB in repeat 80)"
expect_grep "$T/err" "$CFG:30:3: note: fits with -D tensor=2: 70.8 GB per GPU"
expect_grep "$T/err" "$CFG:30:3: note: fits on H200 SXM (-t h200_sxm), which has 141 GiB = 151.4 GB"
run --format json "$CFG"
expect_status 1
got=$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
(g,) = [x for x in d["diagnostics"] if x["check"] == "capacity"]
f = g["figures"]
print(int(f["footprint"]), int(f["fits_with_tensor"]), int(f["fits_on_capacity"]))' "$T/out")
[ "$got" = "141493288960 2 151397597184" ] && ok || { what="json figures"; bad "got $got"; }
# What the note promises holds: the plan it names fits (exit 0).
run -D tensor=2 --format json "$CFG"
expect_status 0
got=$($PY -c '
import json, sys
print(int(json.load(open(sys.argv[1]))["models"][0]["summary"]["footprint"]["total"]))' "$T/out")
[ "$got" = 70764740608 ] && ok || { what="tensor=2 footprint"; bad "got $got"; }
run -t h200_sxm "$CFG"
expect_status 0
# The degree a .roof plan's `tensor = TP` names: Llama-2-70B served at
# TP = 1 needs 138.6 GB; at TP = 2, 69.3 GB.
run -D TP=1 examples/llama2_70b_serve_tp8.roof
expect_status 1
# In .roof text the place is the model's name, as before (32:7).
expect_grep "$T/err" "examples/llama2_70b_serve_tp8.roof:32:7: error: model 'llama2_70b_serve_tp8' needs 138.6 GB"
expect_grep "$T/err" "examples/llama2_70b_serve_tp8.roof:32:7: note: fits with -D TP=2: 69.3 GB per GPU"
# A degree the model cannot take is not proposed: at batch 204 the TP 8
# decode plan is over by 0.3 GB, and -D tensor=16 does not divide the 8 KV
# heads (the importer refuses it), so only the larger target is.
run --phase decode -D tensor=8 -D batch=204 -D ctx=8192 -w "$CFG"
expect_status 1
expect_no_grep "$T/err" "fits with -D tensor"
expect_grep "$T/err" "note: fits up to batch = 203 at seq = 1, ctx = 8192 on H100 SXM"
expect_grep "$T/err" "note: fits on H200 SXM (-t h200_sxm)"

# --- R-SERVE-001: decode at batch 16 over 8192 cached tokens on TP 8.
# Weights 17,640,734,720 bytes a GPU; per sequence 335,585,280 of KV cache
# (80 x 2 x 1 head x 8193 x 128 x 2) and 288,576 of activations:
# (85,899,345,920 - 17,640,734,720) / 335,873,856 = 203.2 -> 203.  A step
# of 7.0725 ms gives 16 / 0.0070725 = 2262.3 tokens/s, 282.8 a GPU.  The
# gate GEMM [M, 8192] x [8192, 3584] reaches the ridge 295.52 from
# M = 295.52 x 8192 x 3584 / (8192 x 3584 - 295.52 x 11,776) = 335.3 -> 336.
run --phase decode -D tensor=8 -D batch=16 -D ctx=8192 -w "$CFG"
expect_status 0
expect_out "llama3_1_70b: 33 ops, 70.6 G parameters, 321.1 GFLOP, 23.1 GB, 13.9 FLOP/B, step >= 7.07 ms on NVIDIA H100 SXM (98% of it memory-bound)
  decode at batch = 16 (seq = 1, ctx = 8192) on 8 GPUs: 7.07 ms per output token, 2262 tokens/s, 283 per GPU
  fits up to batch = 203; memory-bound below batch = 336, where matmul 'g' reaches the compute roof"
# R-SERVE-002: the same in JSON, valid against the schema.
run --phase decode -D tensor=8 -D batch=16 -D ctx=8192 -w --format json "$CFG"
expect_status 0
got=$($PY - "$T/out" tests/schema/rooflint-json.schema.json <<'PYEOF'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])))
s = doc["models"][0]["serving"]
print(s["batch_let"], s["batch"], s["gpus"], s["max_batch"], s["compute_bound_batch"],
      s["compute_bound_node"], round(s["tokens_per_s"], 1), round(s["tokens_per_s_per_gpu"], 1),
      round(s["time_per_output_token_s"] * 1e3, 4))
PYEOF
)
[ "$got" = "batch 16 8 203 336 g 2262.3 282.8 7.0725" ] && ok || { what="serving json"; bad "got $got"; }
# The example at TP 8, B = 1: 193 tokens/s (1 / 5.17 ms), 24.2 a GPU, the
# 817 of R-CACHE-003, the same gate shapes' 336.
run -w examples/llama2_70b_serve_tp8.roof
expect_status 0
expect_grep "$T/out" "  decode at B = 1 (T = 2048) on 8 GPUs: 5.17 ms per output token, 193 tokens/s, 24.2 per GPU"
expect_grep "$T/out" "  fits up to B = 817; memory-bound below B = 336, where matmul 'g' reaches the compute roof"
# A model without a KV cache has no serving answer; nor do --report and
# --sweep rows, which do not print it.
run -w -D tensor=2 "$CFG"
expect_no_grep "$T/out" "decode at"
run -w -D tensor=2 --format json "$CFG"
expect_no_grep "$T/out" '"serving"'
run -w --phase decode -D tensor=8 --sweep batch=1,2 "$CFG"
expect_no_grep "$T/out" "decode at"
finish
