#!/bin/sh
# train_fits.sh: when a training plan does not fit, what would (R-CHK-084,
# R-CHK-082), each found by analysing the model again.
. tests/cli/driver_lib.inc
CFG=tests/hf/llama3_1_70b.json

# Llama-3.1-70B, tensor 8 x pipeline 2 x data 4 on 64 H100 SXM, ZeRO 0,
# 32 microbatches of one 4096-token sequence.  The first stage holds 40
# layers of 106,971,136 parameters a GPU (q 8192 x 1024, k and v 8192 x
# 128, o 1024 x 8192, gate, up and down 8192 x 3584, the two norms whole)
# and 16,032 x 8192 of the embedding: 4,410,179,584 parameters, 8.82 GB of
# weights and of gradients, 52.9 GB of Adam state (12 bytes each).  Its
# activations are what backward reads (R-TRAIN-002), per layer and
# microbatch (s 4096, h 8192, bf16; a GPU's eighth of the heads and of the
# MLP): the two norms' inputs and outputs, replicated, 4 x s*h*2 =
# 268,435,456; q and the attention output, s x 1024 x 2 each, k and v s x
# 128 x 2 each, the log-sum-exp s x 8 heads x 4 (19,005,440 with them); the
# norms' rstd, 2 x s x 4; the fused SwiGLU's inputs gate and up, 2 x s x
# 3584 x 2, and the down projection's input, s x 3584 x 2: 375,554,048 a
# layer, x 40 layers x 2 microbatches in flight = 30,044,323,840, plus
# 4,227,072 of the rope tables and token ids: 30.0 GB, 100.6 GB in all.
#   - ZeRO-1 over the 4 data ranks: 52.9 / 4 = 13.2 GB of Adam state,
#     60.9 GB, the same step (its reduce-scatter and all-gather move the
#     all-reduce's bytes, R-PAR-005);
#   - at a micro-batch of one the sequence is searched: 2090 tokens fit;
#   - sequence parallelism (-D sequence_parallel=1) splits the norms'
#     inputs, outputs and statistics over the 8 tensor ranks: activations
#     11,255,775,232 (R-HF-017 works them), 2 x 8,820,359,168 +
#     52,922,155,008 + 11,255,775,232 = 81,818,648,576, 81.8 GB; its
#     boundary send is each rank's slice, not scattered and gathered
#     (R-PAR-011), so the step is 0.1% shorter;
#   - full recomputation (-D recompute=full) keeps each layer copy's
#     input alone, 5,710,741,504 of activations (R-HF-017: 80 x 2sbh +
#     4,227,072 + one layer's recompute buffer of 337,805,312):
#     76,273,614,848 = 76.3 GB; every op of a layer runs its forward once
#     more (221.8 TFLOP a microbatch to 294.7): 36.7% more step;
#   - selective recomputation saves only flash attention's log-sum-exp
#     (30,046,584,832 of activations, 100.6 GB): not noted;
#   - pipeline 4 on the same 64 GPUs (data 2, 64 microbatches: the same
#     tokens a step) halves the layers a GPU holds: 66.4 GB, and the
#     larger bubble (3/67 against 1/33) makes the step 0.8% longer.
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=4096 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 1
# The error and its notes on what fits are at "torch_dtype" (line 30,
# column 3: R-DIAG-001), the key a user changes first; ZeRO's at the
# parallel block's, the sequence's at the let's (model_type: no key).
expect_grep "$T/err" "$CFG:30:3: error: model 'llama3_1_70b' needs 100.6 GB per GPU but H100 SXM has 80 GiB = 85.9 GB: weights 8.82 GB, gradients 8.82 GB, optimizer 52.9 GB, activations 30.0 GB [-Wcapacity]"
expect_grep "$T/err" "note: with zero = 1 over the 4 data ranks it needs 60.9 GB per GPU, step 6.03 s -> 6.03 s (+0.0%)"
expect_grep "$T/err" "note: fits up to seq = 2090 at batch = 1 on H100 SXM"
expect_grep "$T/err" "$CFG:30:3: note: fits with -D sequence_parallel=1: 81.8 GB per GPU, step 6.03 s -> 6.03 s (-0.1%)"
expect_grep "$T/err" "$CFG:30:3: note: fits with -D recompute=full: 76.3 GB per GPU, step 6.03 s -> 8.24 s (+36.7%)"
expect_no_grep "$T/err" "recompute=selective"
expect_grep "$T/err" "$CFG:30:3: note: fits with -D pipeline=4 -D data=2 -D microbatches=64: 66.4 GB per GPU, step 6.03 s -> 6.08 s (+0.8%)"
# The figures in JSON are the footprints in bytes.
"$ROOFLINT" --format json --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=4096 -D nodes=8 -D gpus_per_node=8 -w "$CFG" 2>/dev/null |
  /usr/bin/python3 -c 'import json, sys
f = json.load(sys.stdin)["diagnostics"][0]["figures"]
print(int(f["fits_with_sequence_parallel"]), int(f["fits_with_full_recompute"]), "fits_with_selective_recompute" in f)' >"$T/figs"
what="capacity figures"
if [ "$(cat "$T/figs")" = "81818648576 76273614848 False" ]; then ok; else bad "figures: $(cat "$T/figs")"; fi
# What the notes promise holds, with their footprints.
set -- --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=4096 -D nodes=8 -D gpus_per_node=8 -w
what="-D recompute=full"
got=$(json_summary "footprint_bytes step_time_s" "$@" -D recompute=full "$CFG")
case $got in "76273614848 8.24"*) ok ;; *) bad "got $got" ;; esac
what="-D sequence_parallel=1"
got=$(json_summary "footprint_bytes" "$@" -D sequence_parallel=1 "$CFG")
if [ "$got" = 81818648576 ]; then ok; else bad "got $got"; fi
set --

# The same plan as .roof text (rooflint import): the notes name the edit
# instead of the -D, each at what it edits (the parallel block; the
# layers' repeat), with the same figures: the .roof re-analysis reads the
# text as if the edit were made.
run import --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=4096 -D nodes=8 -D gpus_per_node=8 "$CFG"
cp "$T/out" "$T/l70.roof"
run -w "$T/l70.roof"
expect_status 1
expect_grep "$T/err" "l70.roof:43:3: note: fits with sequence parallelism (\`sequence_parallel = true\` in \`parallel { }\`): 81.8 GB per GPU, step 6.03 s -> 6.03 s (-0.1%)"
expect_grep "$T/err" "l70.roof:51:3: note: fits with full recomputation (\`checkpoint { }\` around the body of each innermost repeat): 76.3 GB per GPU, step 6.03 s -> 8.24 s (+36.7%)"
sed -n 43p "$T/l70.roof" >"$T/line"
expect_grep "$T/line" "parallel {"
sed -n 51p "$T/l70.roof" >"$T/line"
expect_grep "$T/line" "repeat num_hidden_layers {"
# Written so, the plans fit, with those footprints.
sed -e 's/^  parallel { /  parallel { sequence_parallel = true; /' "$T/l70.roof" >"$T/sp.roof"
what="sequence_parallel = true"
got=$(json_summary "footprint_bytes" -w "$T/sp.roof")
if [ "$got" = 81818648576 ]; then ok; else bad "got $got"; fi
# What the notes promise holds.
run --phase train -D tensor=8 -D pipeline=4 -D data=2 -D microbatches=64 -D seq=4096 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 0
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=2090 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 0
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=2091 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 1

# Over by its activations: at micro-batch 3 of 4096 tokens the first stage
# keeps 3 x 30.0 = 90.1 GB of them; more stages keep as many (p microbatches of L/p
# layers in flight) and a ZeRO stage shards none, so neither is noted;
# micro-batch 1 fits.
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D zero=1 -D microbatches=32 -D seq=4096 -D batch=3 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 1
expect_grep "$T/err" "note: fits up to batch = 1 at seq = 4096 on H100 SXM"
expect_no_grep "$T/err" "-D pipeline="
expect_no_grep "$T/err" "with zero ="

# A .roof plan: the lets its parallel keys name are the plan, never
# searched as a workload (T = 1 halves no activation here by being
# doubled); B = 1 does not fit, so S is searched at B = 1, and the weights
# with Adam state alone (128.6 GB at zero 0) leave no S.
run -D T=1 -D ZERO=0 examples/llama3_8b_train.roof
expect_status 1
expect_grep "$T/err" "note: does not fit on H100 SXM even at S = 1, B = 1"
expect_grep "$T/err" "note: with zero = 1 over the 16 data ranks it needs 76.9 GB per GPU, step 0.56 s -> 0.56 s (+0.0%)"
expect_grep "$T/err" "note: fits with -D T=4: 48.3 GB per GPU"
# Recomputation on .roof text, on a card of 11 MiB = 11,534,336 bytes.
# Two copies of a layer (S 2048, d 64, bf16: x, q, k, v 262,144 bytes
# each, the scores s and probabilities p 8,388,608), 24,576 parameters:
# 49,152 of weights and of gradients, 294,912 of Adam state.  What
# backward reads (R-TRAIN-002), per copy: x (the projections' input), q
# and k (s's operands; k through a view), p (softmax's result and a's
# operand) and v: 9,437,184, x 2 = 18,874,368, 19,267,584 in all: over.
#   - selective (R-PAR-014): the core s, p, a recomputes; each copy keeps
#     x, q, k, v (1,048,576 x 2) plus one copy's p while it recomputes:
#     10,485,760 of activations, 10,878,976 = 10.9 MB;
#   - full (R-PAR-010): each copy keeps its input x (262,144 x 2) plus one
#     copy's q, k, v and p while it recomputes (9,175,040): 9,699,328,
#     10,092,544 = 10.1 MB.
# Both fit; the notes are at the repeat whose body the edit wraps.
card small Small "11 MiB" "1 TB/s" >"$T/small.roof"
cat >"$T/attn.roof" <<'ROOF'
model m {
  mode train
  input x : bf16[2048, 64]
  repeat 2 {
    weight wq : [64, 64]
    weight wk : [64, 64]
    weight wv : [64, 64]
    q = matmul(x, wq)
    k = matmul(x, wk)
    v = matmul(x, wv)
    s = matmul(q, transpose(k, [1, 0]))
    p = softmax(s)
    a = matmul(p, v)
    x = add(x, a)
  }
}
ROOF
run -w -t "$T/small.roof" "$T/attn.roof"
expect_status 1
expect_grep "$T/err" "attn.roof:4:3: note: fits with selective recomputation (\`checkpoint selective { }\` around the body of each innermost repeat): 10.9 MB per GPU, step 187 us -> 256 us (+37.0%)"
expect_grep "$T/err" "attn.roof:4:3: note: fits with full recomputation (\`checkpoint { }\` around the body of each innermost repeat): 10.1 MB per GPU, step 187 us -> 261 us (+39.6%)"
expect_no_grep "$T/err" "sequence parallelism"
# The same, written so: the footprints the notes name.
sed -e 's/  repeat 2 {/  repeat 2 { checkpoint selective {/' -e 's/    x = add(x, a)/    x = add(x, a) }/' "$T/attn.roof" >"$T/sel.roof"
sed -e 's/  repeat 2 {/  repeat 2 { checkpoint {/' -e 's/    x = add(x, a)/    x = add(x, a) }/' "$T/attn.roof" >"$T/full.roof"
what="written with checkpoint blocks"
got="$(json_summary footprint_bytes "$T/sel.roof") $(json_summary footprint_bytes "$T/full.roof")"
if [ "$got" = "10878976 10092544" ]; then ok; else bad "got $got"; fi
# Nested repeats: the innermost is the layer, and the note is at it.
sed -e 's/  repeat 2 {/  repeat 1 {\n  repeat 2 {/' -e 's/^}$/}\n}/' "$T/attn.roof" >"$T/nested.roof"
run -w -t "$T/small.roof" "$T/nested.roof"
expect_grep "$T/err" "nested.roof:5:3: note: fits with full recomputation"
finish
