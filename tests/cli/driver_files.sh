#!/bin/sh
# driver_files.sh: missing files, directories, empty files, standard input,
# FIFOs, several files (R-CLI-005, R-CLI-006).
. "$(dirname "$0")/driver_lib.inc"

run "$T/missing.roof"
expect_status 2
expect_err "rooflint: error: cannot open '$T/missing.roof': No such file or directory"

# A directory is linted for its *.roof files (R-CLI-014); one with none
# is an error.
mkdir "$T/dir.roof"
run "$T/dir.roof"
expect_status 2
expect_err "rooflint: error: no .roof file in directory '$T/dir.roof'"

# R-CLI-006: an empty file is a valid program with no models.
: >"$T/empty.roof"
run "$T/empty.roof"
expect_status 0
expect_empty "$T/err"

# R-CLI-005: a missing file is reported, the rest still linted, exit 2.
echo "let = 1" >"$T/bad.roof"
run "$T/missing.roof" "$T/bad.roof"
expect_status 2
expect_grep "$T/err" "rooflint: error: cannot open '$T/missing.roof'"
expect_grep "$T/err" "$T/bad.roof:1:"

# Standard input as "-", named <stdin> in diagnostics.
what="rooflint - (empty stdin)"
"$ROOFLINT" - <"$T/empty.roof" >"$T/out" 2>"$T/err"
status=$?
expect_status 0
expect_empty "$T/err"
what="rooflint - (syntax error on stdin)"
"$ROOFLINT" - <"$T/bad.roof" >"$T/out" 2>"$T/err"
status=$?
expect_status 1
expect_grep "$T/err" "<stdin>:1:"
expect_grep "$T/err" "    1 | let = 1"

# A FIFO reads like a file.
if mkfifo "$T/fifo.roof" 2>/dev/null; then
  (printf 'let B = 1\n' >"$T/fifo.roof") &
  run "$T/fifo.roof"
  wait
  expect_status 0
  expect_empty "$T/err"
fi

# A NUL byte is loaded and reported by the lexer, never a crash.
printf 'let B = 1\000\n' >"$T/nul.roof"
run "$T/nul.roof"
expect_status 1
expect_grep "$T/err" "nul.roof:1:10: error:"

# Errors give 1; the file's summary is not printed.
run "$T/bad.roof"
expect_status 1
expect_empty "$T/out"

finish
