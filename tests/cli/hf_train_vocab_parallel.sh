#!/bin/sh
# hf_train_vocab_parallel.sh: the Hugging Face training import ends as
# Megatron-LM trains (R-HF-011, R-PAR-012, R-PAR-019, R-PAR-011).
# Llama-3-70B's architecture (tests/hf/llama3_1_70b.json; 3.1 differs only
# in its rope scaling) at 4096 tokens on 64 H100 SXM: tensor 8 x pipeline
# 4 x data 2, ZeRO-1, 32 microbatches of one sequence.
#
# Before (main at e048cfb): the head gathered the logits,
# allgather(logits, group=tensor), 1.05 GB a microbatch (4096 x 128256
# bf16), 4.09 ms forward and backward; that all-gather over the tensor
# group read as sequence parallelism, so the boundary send went whole on
# InfiniBand, 1.34 ms; the embedding's all-reduce was charged twice.
# Stages per microbatch: first 86.0 ms (87.3 ms with sends), last 93.5 ms
# (94.8 ms); step 35 x 94.8 ms = 3.32 s of pipeline, 3.41 s in all.
#
# After: the loss is the vocab-parallel cross-entropy of each GPU's slice,
# three all-reduces of 4096 x 4 = 16,384 bytes (2 x 7/8 of them = 28,672 on
# NVLink, 63.7 ns each at 450 GB/s); the embedding's all-reduce of
# 4096 x 8192 x 2 = 67,108,864 bytes runs once (117,440,512 on NVLink,
# 261 us), and the head's input gradient, the same bytes, is all-reduced
# once on the last stage.  The boundary send is split again: 8,388,608
# bytes from each rank on InfiniBand at 50 GB/s (167.8 us) and 58,720,256
# all-gathered on NVLink (130.5 us): 298.3 us.  First stage 86.0 - 0.261
# = 85.7 ms; last 93.5 - 4.09 (the gather) - 0.55 (the loss now reads an
# eighth of the logits) + 0.261 = 89.1 ms; 35 x 89.4 ms = 3.13 s.
. tests/cli/driver_lib.inc
CFG=tests/hf/llama3_1_70b.json
PLAN="--phase train -D tensor=8 -D pipeline=4 -D data=2 -D zero=1 -D microbatches=32 -D seq=4096 -D nodes=8 -D gpus_per_node=8"

# The text: no gather in train; prefill still gathers the slices.
# shellcheck disable=SC2086
run import $PLAN "$CFG"
expect_status 0
expect_no_grep "$T/out" "allgather(logits"
expect_grep "$T/out" "  loss = cross_entropy(logits, labels)  # vocab-parallel: each GPU's slice"
run import -D tensor=8 "$CFG"
expect_grep "$T/out" "logits = allgather(logits, axis=-1, group=tensor)"

# shellcheck disable=SC2086
run $PLAN -w --format json "$CFG"
expect_status 0
got=$(/usr/bin/python3 - "$T/out" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
p = m["pipeline"]
k = {s["kind"]: s for s in p["stages_by_kind"]}
c = {(x["name"] or x["what"]): x for x in m["collectives"]}
ms = lambda s: "%.1f" % (s * 1e3)
us = lambda s: "%.1f" % (s * 1e6)
print(p["send_split"], us(p["send_time_s"]),
      ms(k["first"]["compute_s"]), ms(k["first"]["time_s"]),
      ms(k["last"]["compute_s"]), ms(k["last"]["time_s"]),
      "%.2f" % p["step_time_s"], "%.2f" % m["summary"]["step_time_s"],
      c["x"]["nvlink_bytes"], us(c["x"]["time_s"]),
      c["o"]["nvlink_bytes"],
      c["head input gradient"]["nvlink_bytes"], c["cross-entropy sum"]["buffer_bytes"],
      any(x["kind"] == "allgather" and x["group"] == "tensor" for x in m["collectives"]))
PYEOF
)
want="8 298.3 85.7 86.0 89.1 89.4 3.13 3.22 117440512 261.0 234881024 117440512 16384 False"
[ "$got" = "$want" ] && ok || { what="llama3 70b plan"; bad "got $got, expected $want"; }
finish
