#!/bin/sh
# driver_verify.sh: --verify passes silently, fails with one line per
# problem and exit 1, and renders no diagnostics (R-VER-001 .. R-VER-004).
. "$(dirname "$0")/driver_lib.inc"

printf 'let B = 1\n' >"$T/clean.roof"
run --verify "$T/clean.roof"
expect_status 0
expect_empty "$T/err"
expect_empty "$T/out"

printf 'let = 1  # expect: error\n' >"$T/pass.roof"
run --verify "$T/pass.roof"
expect_status 0
expect_empty "$T/err"
expect_empty "$T/out"

printf 'let B = 1  # expect: error "nope"\n' >"$T/missing.roof"
run --verify "$T/missing.roof"
expect_status 1
expect_err "$T/missing.roof:1: expected error \"nope\" was not emitted"

printf 'let B = 1\nlet = 2\n' >"$T/unexpected.roof"
run --verify "$T/unexpected.roof"
expect_status 1
expect_grep "$T/err" "$T/unexpected.roof:2:"
expect_grep "$T/err" ": unexpected error: "
expect_no_grep "$T/err" " | "

# an expectation on the wrong line does not match
printf 'let B = 1  # expect: error\nlet = 2\n' >"$T/wrongline.roof"
run --verify "$T/wrongline.roof"
expect_status 1
expect_grep "$T/err" "$T/wrongline.roof:1: expected error was not emitted"

# several files: each verified, any failure gives 1
run --verify "$T/pass.roof" "$T/missing.roof"
expect_status 1
run --verify "$T/pass.roof" "$T/clean.roof"
expect_status 0

finish
