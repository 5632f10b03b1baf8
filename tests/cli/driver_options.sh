#!/bin/sh
# driver_options.sh: --help, --version, unknown options, -D values,
# --explain, "--" (R-CLI-001 .. R-CLI-004).
. "$(dirname "$0")/driver_lib.inc"

run --help
expect_status 0
expect_empty "$T/err"
for opt in "-t, --target NAME|FILE" "-D NAME=VALUE" "--report" "--format text|json|sarif" \
           "--plot FILE.svg" "--sweep NAME=V1,V2,..." "-W CHECK" "-Wno-CHECK" "-Werror" \
           "  -w  " "--verify" "--color auto|always|never" "--explain [CHECK]" "--list-checks" \
           "--dump ast|graph" "--error-limit N" "--version" "-h, --help" \
           "rooflint targets" "rooflint target NAME"; do
  expect_grep "$T/out" "$opt"
done
cp "$T/out" "$T/help"
run -h
expect_status 0
if cmp -s "$T/help" "$T/out"; then ok; else bad "-h differs from --help"; fi

run --version
expect_status 0
expect_out "rooflint 0.1.0"
expect_empty "$T/err"

# R-CLI-001: an unknown option is a usage error, with a suggestion when close.
run --foo
expect_status 2
expect_err "rooflint: error: unknown option '--foo'"
run --verfy=1 x.roof
expect_status 2
expect_err "rooflint: error: unknown option '--verfy=1'; did you mean '--verify'?"
run -x
expect_status 2
expect_err "rooflint: error: unknown option '-x'"

# R-CLI-003: -D takes NAME=NUMBER; integers may have _ between digits.
echo "let B = 1" >"$T/b.roof"
for v in 4x 1__0 _1 1_ inf nan 0x10 "" 99999999999999999999 1e 3.5.1; do
  run -D "B=$v" "$T/b.roof"
  expect_status 2
  expect_err "rooflint: error: invalid value '$v' for -D B: expected a number"
done
run -D 3B=1 "$T/b.roof"
expect_status 2
expect_err "rooflint: error: invalid argument '3B=1' to -D: expected NAME=VALUE"
for v in 64 1_024 -2 3.5 7e9; do
  run -D "B=$v" "$T/b.roof"
  expect_status 0
  expect_empty "$T/err"
done
run -DB=8 "$T/b.roof"
expect_status 0
run -D B=8 -D B=x "$T/b.roof"
expect_status 2

# --sweep: one analysis per value; an error names the value (R-CLI-009).
printf 'let B = 1\nmodel m {\n  input x : [B, 4]\n}\n' >"$T/s.roof"
run --sweep B=2,0 "$T/s.roof"
expect_status 1
expect_grep "$T/err" "note: with B = 0 from --sweep"
expect_no_grep "$T/err" "with B = 2"
run --sweep Bx=1,2 "$T/s.roof"
expect_status 2
expect_err "rooflint: error: --sweep Bx: no let named 'Bx' in any file; did you mean 'B'?"
# R-CLI-003: a -D that an import took and failed on is that file's one
# error, not also "no let named": the failed file's lets are unknown.
run -D tensor=8 tests/hf/bert_base.json
expect_status 1
expect_err "rooflint: error: tests/hf/bert_base.json:15:3: -D tensor=8 does not divide 'num_attention_heads' 12: each GPU holds whole heads and equal slices"

# R-CLI-002: --target is repeatable and takes a,b,c; every name is resolved.
run -t a100_sxm,h100_sxm -t v100_sxm2 "$T/b.roof"
expect_status 0
expect_empty "$T/err"
# R-CLI-015: a -t NAME that no file defines is a command-line mistake.
run -t h100_sxm,nosuch_gpu "$T/b.roof"
expect_status 2
expect_err "rooflint: error: unknown target 'nosuch_gpu'; 'rooflint targets' lists the built-in ones"
run -t , "$T/b.roof"
expect_status 2
expect_err "rooflint: error: invalid value ',' for --target: empty target name"

# --error-limit
run --error-limit=0 "$T/b.roof"
expect_status 0
run --error-limit 1.5 "$T/b.roof"
expect_status 2
expect_err "rooflint: error: invalid value '1.5' for --error-limit: expected a non-negative integer"

# R-CLI-004: -W names are checked against the registry.
run -Wmemory-bound -Wno-wave-tail -Werror -Wno-error -w "$T/b.roof"
expect_status 0
run -W memory-bound "$T/b.roof"
expect_status 0
run -Wbanana "$T/b.roof"
expect_status 2
expect_err "rooflint: error: unknown warning option '-Wbanana'"

run --explain memory-bound
expect_status 0
expect_grep "$T/out" "memory-bound (warning, on by default): "
run --explain nosuchcheck
expect_status 2
expect_err "rooflint: error: unknown check 'nosuchcheck'"

# "--" ends the options: a file may start with '-'.
run -- -nonexistent.roof
expect_status 2
expect_err "rooflint: error: cannot open '-nonexistent.roof': No such file or directory"

# Modes that cannot be combined are usage errors.
run --format json --verify "$T/b.roof"
expect_status 2
expect_err "rooflint: error: --verify cannot be combined with --format json"
run --sweep B=1,2 --dump ast "$T/b.roof"
expect_status 2
expect_err "rooflint: error: --sweep cannot be combined with --dump"
# An unwritable chart: exit 2 after the lint.
run --plot "$T/no/such/dir/c.svg" "$T/b.roof"
expect_status 2
expect_err "rooflint: error: cannot write '$T/no/such/dir/c.svg': No such file or directory"

finish
