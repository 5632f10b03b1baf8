#!/bin/sh
# train_fits.sh: when a training plan does not fit, what would (R-CHK-084,
# R-CHK-082), each found by analysing the model again.
. tests/cli/driver_lib.inc
CFG=tests/hf/llama3_1_70b.json

# Llama-3.1-70B, tensor 8 x pipeline 2 x data 4 on 64 H100 SXM, ZeRO 0,
# 32 microbatches of one 2048-token sequence.  The first stage holds 40
# layers of 106,971,136 parameters a GPU (q 8192 x 1024, k and v 8192 x
# 128, o 1024 x 8192, gate, up and down 8192 x 3584, the two norms whole)
# and 16,032 x 8192 of the embedding: 4,410,179,584 parameters, 8.82 GB of
# weights and of gradients, 52.9 GB of Adam state (12 bytes each), and
# 26.3 GB of activations (2 microbatches in flight): 96.8 GB.
#   - ZeRO-1 over the 4 data ranks: 52.9 / 4 = 13.2 GB of Adam state,
#     57.1 GB, the same step (its reduce-scatter and all-gather move the
#     all-reduce's bytes, R-PAR-005);
#   - at a micro-batch of one the sequence is searched: 1195 tokens fit;
#   - pipeline 4 on the same 64 GPUs (data 2, 64 microbatches: the same
#     tokens a step) halves the layers a GPU holds: 62.7 GB, and the
#     smaller bubble (3/67 against 1/33) makes the step 2.1% shorter.
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=2048 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 1
expect_grep "$T/err" "error: model 'llama3_1_70b' needs 96.8 GB per GPU but H100 SXM has 80 GiB = 85.9 GB: weights 8.82 GB, gradients 8.82 GB, optimizer 52.9 GB, activations 26.3 GB [-Wcapacity]"
expect_grep "$T/err" "note: with zero = 1 over the 4 data ranks it needs 57.1 GB per GPU, step 3.11 s -> 3.11 s (+0.0%)"
expect_grep "$T/err" "note: fits up to seq = 1195 at batch = 1 on H100 SXM"
expect_grep "$T/err" "note: fits with -D pipeline=4 -D data=2 -D microbatches=64: 62.7 GB per GPU, step 3.11 s -> 3.05 s (-2.1%)"
# What the notes promise holds.
run --phase train -D tensor=8 -D pipeline=4 -D data=2 -D microbatches=64 -D seq=2048 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 0
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=1195 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 0
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 -D seq=1196 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
expect_status 1

# Over by its activations: at micro-batch 2 of 4096 tokens the first stage
# keeps 105.1 GB of them; more stages keep as many (p microbatches of L/p
# layers in flight) and a ZeRO stage shards none, so neither is noted;
# micro-batch 1 fits.
run --phase train -D tensor=8 -D pipeline=2 -D data=4 -D zero=1 -D microbatches=32 -D seq=4096 -D batch=2 -D nodes=8 -D gpus_per_node=8 -w "$CFG"
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
expect_grep "$T/err" "note: with zero = 2 over the 16 data ranks it needs 73.2 GB per GPU, step 0.56 s -> 0.56 s (+0.0%)"
expect_grep "$T/err" "note: fits with -D T=4: 57.7 GB per GPU"
finish
