#!/bin/sh
# seq_parallel_report.sh: under sequence parallelism (R-PAR-015) --report
# labels each all-reduce written over the tensor group as the
# reduce-scatter and all-gather it runs as, with the same bytes; without
# the key, or with nothing split, it stays an all-reduce.
. tests/cli/driver_lib.inc

# y is bf16 [8, 64]: a 1,024-byte buffer; a ring over t = 2 moves
# 2(t - 1)/t x 1,024 = 1,024 bytes a GPU in forward and as many in
# backward (train mode): 2.05 KB on NVLink, the same either way.
cat >"$T/sp.roof" <<'ROOF'
model m {
  mode train
  parallel { tensor = 2; sequence_parallel = true }
  input x : bf16[8, 64]
  weight w1 : [64, 128 / 2] shard=tensor
  weight w2 : [128 / 2, 64] shard=tensor
  h = matmul(x, w1)
  y = matmul(h, w2)
  y = allreduce(y, group=tensor)
}
ROOF
run --report -w "$T/sp.roof"
expect_status 0
expect_grep "$T/out" "  y     reduce-scatter + all-gather  tensor  1.02 KB      2     2.05 KB  4.55 ns     0 B   0 s  4.55 ns     0%"
# the kernel table names the op as written
expect_grep "$T/out" "y     allreduce  bf16"

sed 's/; sequence_parallel = true//' "$T/sp.roof" >"$T/tp.roof"
run --report -w "$T/tp.roof"
expect_status 0
expect_grep "$T/out" "  y     allreduce  tensor  1.02 KB      2     2.05 KB  4.55 ns     0 B   0 s  4.55 ns     0%"
expect_no_grep "$T/out" "reduce-scatter"

# No shard=tensor weight: nothing is split (the key is warned about,
# tests/verify/sema/sequence_parallel_nothing.roof), the label stays.
sed 's/ shard=tensor//; s|128 / 2|128|' "$T/sp.roof" >"$T/whole.roof"
run --report -w "$T/whole.roof"
expect_no_grep "$T/out" "reduce-scatter"
expect_grep "$T/out" "allreduce"
finish
