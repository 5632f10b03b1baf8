#!/bin/sh
# SPDX-License-Identifier: MIT
# examples_run.sh: every real model in examples/ goes through the whole
# pipeline with no language error, at its default lets and at the other
# values its header names; the one that must not fit reports `capacity`
# and nothing else as an error.  (The figures themselves are checked by
# crosscheck.sh and the golden tests in tests/golden/examples/.)
#
#   BUILD=build sh tests/cli/examples_run.sh      exit 0 pass, 1 fail

BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-examples.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
failures=0

# run WANT_STATUS ARGS...: rooflint must exit WANT_STATUS; any error line on
# stderr must be a [-Wcapacity] one (language errors have no check name).
run() {
  want=$1
  shift
  "$ROOFLINT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  status=$?
  if [ "$status" -ne "$want" ]; then
    echo "examples: rooflint $*: exit status $status, expected $want" >&2
    sed -n '1,20p' "$TMP/err" >&2
    failures=$((failures + 1))
    return
  fi
  if grep ': error: ' "$TMP/err" | grep -v '\[-Wcapacity\]$' >"$TMP/bad"; then
    echo "examples: rooflint $*: unexpected errors:" >&2
    cat "$TMP/bad" >&2
    failures=$((failures + 1))
  fi
}

run 0 examples/gpt2_small_train.roof
run 0 examples/llama2_7b_prefill.roof
run 0 examples/llama3_8b_fp8_prefill.roof
run 0 examples/resnet50.roof
run 0 examples/mixtral_8x7b_decode.roof
run 0 -D B=64 examples/mixtral_8x7b_decode.roof
run 0 -D EP=8 examples/mixtral_8x7b_decode.roof
run 0 -D EP=8 -D B=64 examples/mixtral_8x7b_decode.roof
run 0 examples/llama2_70b_serve_tp8.roof
run 0 -D B=256 examples/resnet50.roof
run 0 examples/vit_b16.roof
run 0 examples/bert_base.roof
run 0 examples/dtype_plan_review.roof
run 0 examples/dtype_plan_fp8.roof
run 0 examples/gpt2_small_split.roof
run 0 examples/llama3_8b_rope.roof
run 0 examples/vit_l16_cls.roof
run 0 examples/whisper_small_encoder.roof
run 0 examples/unet_sd15_level.roof

# Llama-2-70B in bf16 is 138 GB of weights: one 80 GB GPU cannot hold it,
# at batch 1 or 64; the error is the capacity check's, nothing else.
for b in 1 64; do
  run 1 -D B=$b examples/llama2_70b_decode.roof
  if ! grep -q 'error: .*\[-Wcapacity\]$' "$TMP/err"; then
    echo "examples: llama2_70b_decode B=$b: no capacity error" >&2
    failures=$((failures + 1))
  fi
done
# ... and the same file fits on a GPU with enough memory: 192 GB on an
# MI300X holds it at batch 1.
run 0 --target mi300x examples/llama2_70b_decode.roof

# The intended fp32 softmax is suppressed with its reason; the stray fp32
# head is not.
"$ROOFLINT" examples/dtype_plan_review.roof >/dev/null 2>"$TMP/err"
n=$(grep -c 'warning: .*\[-Wstray-fp32\]$' "$TMP/err")
if [ "$n" -ne 1 ]; then
  echo "examples: dtype_plan_review: $n stray-fp32 warnings, expected 1 (the head)" >&2
  cat "$TMP/err" >&2
  failures=$((failures + 1))
fi

# The fp8 file is the review file with `dtype fp8`: asking rooflint "what
# if the plan were fp8" of the bf16 file must give the fp8 file's figures.
whatif=$("$ROOFLINT" -w --dtype fp8 examples/dtype_plan_review.roof 2>/dev/null |
  awk '$1 == "step" && $2 == "time" { t = $7 " " $8 } $1 == "bytes" { b = $4 " " $5 } END { print t ", " b }')
fp8=$("$ROOFLINT" -w examples/dtype_plan_fp8.roof 2>/dev/null |
  sed -n 's/.* TFLOP, \([0-9.]* [KMGT]*B\), .*step >= \([0-9.]* [mu]*s\) .*/\2, \1/p')
if [ -z "$fp8" ] || [ "$whatif" != "$fp8" ]; then
  echo "examples: --dtype fp8 of dtype_plan_review gives '$whatif', dtype_plan_fp8.roof '$fp8'" >&2
  failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then
  echo "examples: $failures failures" >&2
  exit 1
fi
echo "examples: all run"
exit 0
