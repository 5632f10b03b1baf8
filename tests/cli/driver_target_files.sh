#!/bin/sh
# driver_target_files.sh: a -t FILE that cannot be used exits 2 (R-CLI-008),
# said once before any file is linted; a target file that reads but is
# wrong is an error in a file (1).  Each -t FILE is read once, so a FIFO
# serves every linted file.
. "$(dirname "$0")/driver_lib.inc"

M=examples/tour.roof
mkdir "$T/adir"
run -t "$T/adir/" $M
expect_status 2
expect_err "rooflint: error: target file: cannot open '$T/adir/': Is a directory"
expect_empty "$T/out"
run -t /dev/zero $M
expect_status 2
expect_err "rooflint: error: target file: cannot read '/dev/zero': file too large (more than 64 MiB)"
run -t "$T/none.roof" $M
expect_status 2
expect_err "rooflint: error: target file: cannot open '$T/none.roof': No such file or directory"
# The same for diff, and for the target subcommands.
run diff -t "$T/adir/" $M $M
expect_status 2
expect_err "rooflint: error: target file: cannot open '$T/adir/': Is a directory"
run target "$T/adir/"
expect_status 2
expect_err "rooflint: error: target file: cannot open '$T/adir/': Is a directory"
run targets h100_sxm "$T/adir/"
expect_status 2
expect_err "rooflint: error: target file: cannot open '$T/adir/': Is a directory"

# Read but wrong: 1, with the file's own location.
printf 'target t {\n  memory_bw = 1 TB/s\n  fp32 = 1 TFLOP/s\n}\nlet x = 1\n' >"$T/extra.roof"
run -t "$T/extra.roof" $M
expect_status 1
expect_grep "$T/err" "extra.roof:5:1: error: a target file holds one 'target NAME { }' definition and nothing else"

# A FIFO is read once, for both files (it used to be empty for the second).
sed 's/^target h100_sxm {/target fifo_gpu {/' specs/targets/h100_sxm.roof >"$T/gpu.roof"
if mkfifo "$T/gpu.fifo" 2>/dev/null; then
  (cat "$T/gpu.roof" >"$T/gpu.fifo") &
  what="rooflint -w -t gpu.fifo tour.roof llama2_7b_decode.roof"
  # (a second open of the FIFO would wait for a writer for ever)
  timeout 20 "$ROOFLINT" -w -t "$T/gpu.fifo" $M examples/llama2_7b_decode.roof \
    >"$T/fifo_out" 2>"$T/err" </dev/null
  status=$?
  kill $! 2>/dev/null
  wait
  expect_status 0
  expect_empty "$T/err"
  run -w -t "$T/gpu.roof" $M examples/llama2_7b_decode.roof
  expect_grep "$T/out" "llama2_7b_decode: 27 ops"
  if cmp -s "$T/fifo_out" "$T/out"; then ok; else bad "FIFO and file differ"; fi
fi

finish
