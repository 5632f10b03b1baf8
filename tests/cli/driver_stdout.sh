#!/bin/sh
# driver_stdout.sh: output that cannot be written to standard output is
# exit 2 with a message, never a silent success (R-CLI-011).  /dev/full
# fails every write with ENOSPC; each mode below writes something to
# standard output on success (exit 0 or 1), so each must now exit 2.
. "$(dirname "$0")/driver_lib.inc"
[ -w /dev/full ] || { echo "skipped: no /dev/full"; exit 0; }

M=examples/llama2_7b_decode.roof
msg="rooflint: error: cannot write to standard output: No space left on device"
full() {
  what="rooflint $* >/dev/full"
  "$ROOFLINT" "$@" >/dev/full 2>"$T/err" </dev/null
  status=$?
}

# With -w the diagnostics are gone, so the message is all of stderr.
for mode in "" --report "--format json" "--format sarif" "--plot -" \
            "--dump graph" "--dump ast" --plan "--dtype bf16,fp8" "--sweep B=1,2,4"; do
  # shellcheck disable=SC2086 # the mode is split on purpose
  full -w $mode $M
  expect_status 2
  expect_err "$msg"
done
full targets
expect_status 2
expect_err "$msg"
full target h100_sxm
expect_status 2
expect_err "$msg"
full diff $M $M
expect_status 2
expect_err "$msg"
for info in --help --version "--explain memory-bound"; do
  # shellcheck disable=SC2086
  full $info
  expect_status 2
  expect_err "$msg"
done

# A report far bigger than the stdout buffer fails on a write inside the
# report, not at the end: 2000 nodes, some 200 KB of table.
awk 'BEGIN { print "model big {"; print "  input x0 : fp16[64, 64]";
  for (i = 1; i <= 2000; i++) printf "  x%d = relu(x%d)\n", i, i - 1; print "}" }' >"$T/big.roof"
run -w --report "$T/big.roof"
if [ "$(wc -c <"$T/out")" -gt 100000 ]; then ok; else bad "the report is small"; fi
full -w --report "$T/big.roof"
expect_status 2
expect_err "$msg"

# An error from a check (exit 1) still prints the report: a failed write
# makes it 2, the diagnostics kept.
full -Werror --report $M
expect_status 2
expect_grep "$T/err" "error: matmul 'g' is memory-bound on H100 SXM"
expect_grep "$T/err" "$msg"
run -Werror --report $M
expect_status 1

# The same modes to a working output still exit 0.
run -w --format sarif $M
expect_status 0
expect_empty "$T/err"

finish
