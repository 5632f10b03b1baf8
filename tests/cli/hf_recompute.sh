#!/bin/sh
# hf_recompute.sh: the Hugging Face import's -D recompute=full|selective and
# -D sequence_parallel=1 (R-HF-017): each layer's body in `checkpoint { }`
# or `checkpoint selective { }` (R-PAR-010, R-PAR-014), sequence_parallel =
# true in parallel { } (R-PAR-015); another value is an error naming the -D.
. tests/cli/driver_lib.inc
CFG=tests/hf/llama3_1_70b.json
PLAN="--phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=4096 -D nodes=8 -D gpus_per_node=8"

acts() {
  what="rooflint $* (activations)"
  got=$("$ROOFLINT" --format json "$@" 2>"$T/err" </dev/null |
    /usr/bin/python3 -c 'import json, sys
print(json.load(sys.stdin)["models"][0]["summary"]["footprint"]["activations"])')
  if [ "$got" = "$want" ]; then ok; else bad "activations $got, expected $want"; fi
}

# The text: the body inside the repeat, parallel { } with the flag.
run import $PLAN -D recompute=full -D sequence_parallel=1 "$CFG"
expect_status 0
expect_grep "$T/out" "  parallel { nodes = nodes; gpus_per_node = gpus_per_node; data = data; tensor = tensor; pipeline = pipeline; microbatches = microbatches; sequence_parallel = true }"
grep -A1 "repeat num_hidden_layers {" "$T/out" | tail -n 1 >"$T/line"
expect_grep "$T/line" "    checkpoint {"
run import $PLAN -D recompute=selective "$CFG"
grep -A1 "repeat num_hidden_layers {" "$T/out" | tail -n 1 >"$T/line"
expect_grep "$T/line" "    checkpoint selective {"
expect_no_grep "$T/out" "sequence_parallel"

# Without any (tests/cli/train_fits.sh works it): 375,554,048 a layer,
# x 40 layers x 2 microbatches in flight, + 4,227,072 of the rope tables
# and token ids = 30,048,550,912.
want=30048550912; acts $PLAN "$CFG"
# recompute=full: each copy keeps its input x alone, 2sbh = 2 x 4096 x
# 8192 = 67,108,864 (R-PAR-010), x 80 = 5,368,709,120; + 4,227,072 outside
# the layers; + one layer's recompute buffer, what its ops save of the
# values it makes (its weights are no such value): the two norms' outputs
# h, 2 x 67,108,864, the residual x between them 67,108,864, q and the
# attention output s x 1024 x 2 = 8,388,608 each, k and v s x 128 x 2 =
# 1,048,576 each, gate's output, silu's and the product (three bindings of
# g) and up's u, 4 x s x 3584 x 2 = 4 x 29,360,128, the log-sum-exp
# s x 8 x 4 = 131,072 and the norms' rstd 2 x s x 4 = 32,768: 337,805,312.
# 5,368,709,120 + 4,227,072 + 337,805,312 = 5,710,741,504.
want=5710741504; acts $PLAN -D recompute=full "$CFG"
# selective: the attention core (flash attention) saves nothing of its
# own, its log-sum-exp 131,072 x 80 = 10,485,760 goes, and one copy of
# its output and log-sum-exp, 8,388,608 + 131,072, is live while it is
# recomputed: 30,048,550,912 - 10,485,760 + 8,519,680 = 30,046,584,832.
want=30046584832; acts $PLAN -D recompute=selective "$CFG"
# sequence_parallel=1: the norms' inputs and outputs (268,435,456) and
# their rstd (32,768) count 1/8: 33,554,432 + 4,096, the rest of a layer
# 107,085,824 stays: 140,644,352 x 80 + 4,227,072 = 11,255,775,232.
want=11255775232; acts $PLAN -D sequence_parallel=1 "$CFG"

# A re-analysis (the pipeline note, R-CHK-084) imports again with the word
# -D kept beside its name, wherever it stands among the -D: at 16,384
# tokens with full recomputation the plan is over (activations 22.8 GB:
# 80 x 2sbh = 80 x 268,435,456 and one layer's buffer) and pipeline 4
# is noted; it would not be, were -D recompute read from another -D's text.
run -w $PLAN -D seq=16384 -D recompute=full "$CFG"
expect_status 1
expect_grep "$T/err" "activations 22.8 GB [-Wcapacity]"
expect_grep "$T/err" "note: fits with -D pipeline=4 -D data=2 -D microbatches=64: 59.2 GB per GPU"

# Other values: an error naming the -D.
run $PLAN -D recompute=half "$CFG"
expect_status 1
expect_err "rooflint: error: -D recompute must be full or selective, not 'half'"
run $PLAN -D sequence_parallel=2 "$CFG"
expect_status 1
expect_err "rooflint: error: -D sequence_parallel must be 0 or 1, not '2'"
# A .roof file has no such -D: it names no let.
run -D recompute=full examples/bert_base.roof
expect_status 2
expect_err "rooflint: error: -D recompute=full: no let named 'recompute' in any file"
finish
