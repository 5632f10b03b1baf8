#!/bin/sh
# tests_bless.sh: `tests/run.sh --bless NAME` rewrites what a case expects
# from the current binary: a bad case's .err and .status, a verify case's
# `# expect:` comments, a golden case's .out; a name that names no case,
# or two, is exit 1.  Run on a copy of the test scripts in a temporary
# tree, never on the repository's cases.
. "$(dirname "$0")/driver_lib.inc"

ROOT=$(pwd)
BIN_DIR=$(cd "$(dirname "$ROOFLINT")" && pwd)
ROOFLINT=$BIN_DIR/$(basename "$ROOFLINT")
R=$T/repo
mkdir -p "$R/tests/bad/sema" "$R/tests/bad/parse" "$R/tests/verify/sema" \
         "$R/tests/golden/area"
cp tests/run.sh tests/bless.sh tests/args.sh "$R/tests/"
cd "$R" || exit 2

bless() {
  what="tests/run.sh --bless $*"
  BUILD=$BIN_DIR sh tests/run.sh --bless "$@" >"$T/out" 2>"$T/err"
  status=$?
}
# same FILE TEXT: FILE holds exactly TEXT (printf's format)
same() {
  f=$1
  shift
  # shellcheck disable=SC2059
  printf "$@" >"$T/want"
  if cmp -s "$T/want" "$f"; then ok; else bad "$f differs"; diff -u "$T/want" "$f" | head -n 10; fi
}

# A bad case: stderr and status from the binary; status 1 (the default)
# leaves no .status.  "/ 0" is at column 13 of "let Z = B / 0".
printf 'let B = 2\nlet Z = B / 0\n' >tests/bad/sema/div.roof
echo stale >tests/bad/sema/div.err
echo 2 >tests/bad/sema/div.status
bless tests/bad/sema/div.roof
expect_status 0
expect_out "blessed tests/bad/sema/div.roof"
same tests/bad/sema/div.err '%s\n' \
  "tests/bad/sema/div.roof:2:13: error: division by zero in '/'" \
  '    2 | let Z = B / 0' \
  '      |             ^'
if [ -e tests/bad/sema/div.status ]; then bad "div.status kept for exit 1"; else ok; fi

# An .args case with exit 2 gets a .status; the stem names it.
printf -- '--color=blue FILE\n' >tests/bad/parse/color.args
: >tests/bad/parse/color.roof
bless color
expect_status 0
same tests/bad/parse/color.err '%s\n' \
  "rooflint: error: invalid value 'blue' for --color: expected auto, always or never"
same tests/bad/parse/color.status '2\n'

# Verify cases, two names at once: each line's expectations replaced by
# the diagnostics on it, in full; the comments before an expectation
# stay; a quote or a backslash in a message is escaped.
printf '%s\n' \
  'let B = 2' \
  'let Z = B / 0   # R-LET-004  # expect: error "stale"' \
  'let Q = 1  # expect: warning' >tests/verify/sema/lets.roof
printf '%s\n' 'target t {' '  label = "a\q"' '}' >tests/verify/sema/escape.roof
bless lets tests/verify/sema/escape
expect_status 0
same tests/verify/sema/lets.roof '%s\n' \
  'let B = 2' \
  "let Z = B / 0   # R-LET-004  # expect: error \"division by zero in '/'\"" \
  'let Q = 1'
same tests/verify/sema/escape.roof '%s\n' \
  'target t {' \
  "  label = \"a\\q\"  # expect: error \"unknown escape sequence '\\\\q' (use \\\\\\\", \\\\\\\\, \\\\n or \\\\t)\"" \
  '}'
run --verify tests/verify/sema/lets.roof tests/verify/sema/escape.roof
expect_status 0

# A golden case: stdout; no .err or .status is made for a clean run.
printf 'model m {\n  input x : [2, 4096]\n  y = relu(x)  # rooflint: ignore[overhead-bound]\n  output y\n}\n' \
  >tests/golden/area/relu.roof
echo stale >tests/golden/area/relu.out
bless tests/golden/area/relu
expect_status 0
# 8192 elements: 8.19 KFLOP, 2 x 16.4 KB of bf16 moved = 32.8 KB, 0.250
# FLOP/B; 32768 B / 3.35 TB/s = 9.78 ns.
same tests/golden/area/relu.out '%s\n' \
  'm: 1 ops, 0 parameters, 8.19 KFLOP, 32.8 KB, 0.250 FLOP/B, step >= 9.78 ns on NVIDIA H100 SXM (100% of it memory-bound)'
if [ -e tests/golden/area/relu.err ] || [ -e tests/golden/area/relu.status ]; then
  bad "a clean golden run made an .err or a .status"
else ok; fi

# Names that name no case, or two: exit 1, nothing written.
printf 'let B = 2\nlet Z = B / 0\n' >tests/verify/sema/div.roof
cp tests/verify/sema/div.roof "$T/div.before"
bless div
expect_status 1
expect_err "bless: 'div' names no case, or several"
bless nosuch
expect_status 1
expect_err "bless: 'nosuch' names no case, or several"
# a golden case's input in a folder of its area is no case
mkdir tests/golden/area/inputs
printf 'let B = 2\n' >tests/golden/area/inputs/old.roof
bless old
expect_status 1
bless tests/golden/area/inputs/old.roof
expect_status 1
if [ -e tests/golden/area/inputs/old.out ]; then bad "an input was blessed"; else ok; fi
if cmp -s "$T/div.before" tests/verify/sema/div.roof; then ok; else bad "an ambiguous name wrote"; fi

cd "$ROOT" || exit 2
finish
