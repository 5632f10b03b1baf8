#!/bin/sh
# docs_checks.sh: the check list comes from the registry (R-CHK-003):
# `--list-checks`, `--explain all` and a bare `--explain` print it, one
# line per check; and the README, the spec and the man page list exactly
# the registry's checks, so adding a check is its file plus its docs, and
# a doc that misses one (or keeps a removed one) fails here.
. "$(dirname "$0")/driver_lib.inc"

run --list-checks
expect_status 0
expect_empty "$T/err"
cp "$T/out" "$T/list"
[ "$(head -1 "$T/list")" = "checks (rooflint --explain CHECK for one):" ] && ok ||
  bad "header: $(head -1 "$T/list")"
# One line each: two spaces, the name padded to the longest (19), the severity.
expect_grep "$T/list" "  capacity             error    the model's memory footprint exceeds the target's memory"
expect_grep "$T/list" "  memory-bound         warning  a matmul, conv2d or attention lies below the ridge of the target"
for args in "--explain all" "--explain" "--explain=all"; do
  # shellcheck disable=SC2086
  run $args
  expect_status 0
  cmp -s "$T/list" "$T/out" && ok || bad "differs from --list-checks"
done
run --explain memory-bond
expect_status 2
expect_err "rooflint: error: unknown check 'memory-bond'; did you mean 'memory-bound'?"

# The registry's names, in order; each has its --explain.
sed -n 's/^  \([a-z0-9-]*\)  .*/\1/p' "$T/list" > "$T/names"
[ "$(wc -l < "$T/names")" -eq "$(($(wc -l < "$T/list") - 1))" ] && ok || bad "unparsed lines"
while read -r name; do
  run --explain "$name"
  expect_status 0
  head -1 "$T/out" | grep -q "^$name (" && ok || bad "first line: $(head -1 "$T/out")"
done < "$T/names"
# README's table (| `name` | ...), the spec's (| name | ...), the man page's
# (.TP then .B name, in its CHECKS section): the same set as the registry.
sed -n 's/^| `\([a-z0-9-]*\)` | \(warning\|\*\*error\*\*\|error\) |.*/\1/p' README.md | sort > "$T/readme"
sed -n '/^## 15\. Checks/,/^## /s/^| \([a-z0-9-]*\) | \(warning\|error\) |.*/\1/p' specs/language.md | sort > "$T/spec"
awk '/^\.SH / { in_checks = ($2 == "CHECKS") } in_checks && tp && /^\.B / { print $2 }
     { tp = ($0 == ".TP") }' docs/rooflint.1 | sed 's/\\-/-/g' | sort > "$T/man"
sort "$T/names" > "$T/want"
for doc in readme spec man; do
  what="the check list of $doc"
  if [ -s "$T/$doc" ] && cmp -s "$T/want" "$T/$doc"; then ok; else
    bad "not the registry's: $(diff "$T/want" "$T/$doc" | grep '^[<>]' | tr '\n' ' ')"
  fi
done
# capacity's --explain (and so docs/checks.md, located.sh) names every
# note R-CHK-082 .. R-CHK-084 give, each quoted as rooflint prints it for
# R-CHK-084's Llama-3.1-70B plan (the explanation's lines joined)
run --explain capacity
tr '\n' ' ' <"$T/out" >"$T/explain"
run -w -Wcapacity --phase train -D tensor=8 -D pipeline=2 -D data=4 -D microbatches=32 \
  -D seq=4096 -D nodes=8 -D gpus_per_node=8 tests/hf/llama3_1_70b.json
expect_status 1
for note in "fits up to seq = 2090 at batch = 1 on H100 SXM" \
  "with zero = 1 over the 4 data ranks it needs 60.9 GB per GPU, " \
  "fits with -D pipeline=4 -D data=2 -D microbatches=64: 66.4 GB per GPU, " \
  "fits with -D recompute=full: 76.3 GB per GPU, step 6.03 s -> 8.24 s (+36.7%)" \
  "fits with -D sequence_parallel=1: 81.8 GB per GPU, " \
  "fits on H200 SXM (-t h200_sxm), which has 141 GiB = 151.4 GB"; do
  expect_grep "$T/explain" "\"$note"
  expect_grep "$T/err" "note: $note"
done
# a .roof file's notes name the edit (tests/cli/train_fits.sh lints them)
expect_grep "$T/explain" '"fits with full recomputation (`checkpoint { }` around the body of each innermost repeat): ..."'
expect_grep "$T/explain" '"fits with sequence parallelism (`sequence_parallel = true` in `parallel { }`): ..."'
finish
