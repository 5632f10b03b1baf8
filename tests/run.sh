#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/run.sh: every test of rooflint, from the repository root.
#
#   BUILD=build sh tests/run.sh
#   BUILD=build sh tests/run.sh --bless NAME...
#
# In order:
#   unit    $BUILD/check_unit (Check); each check counts as one test
#   verify  tests/verify/STAGE/NAME.roof: `rooflint --verify` must exit 0
#           (arguments from NAME.args when present)
#   bad     tests/bad/STAGE/NAME.roof (or NAME.args alone): stderr must
#           equal NAME.err exactly, the exit status NAME.status (default 1)
#   golden  tests/golden/AREA/NAME.roof or NAME.cmd: stdout must equal
#           NAME.out; stderr NAME.err and status NAME.status when present
#   cli     tests/cli/*.sh: each exits 0 on pass (BUILD is exported)
#   spec    every rule id defined in specs/*.md must appear in some file
#           under tests/
#
# STAGE is the pipeline stage a case exercises (parse, sema, target, cost,
# checks, out, cli, diag); a case straight under tests/bad/ or tests/verify/
# runs too.  A case that only needs its diagnostics' lines, severities,
# checks and messages is a verify case; a bad case is for what that form
# cannot say: notes, columns and carets, unlocated errors, exit status 2,
# several files.
#
# NAME.args and NAME.cmd hold one line of arguments, split by the shell
# (quotes work); the word FILE stands for the NAME.roof path.  Without one,
# the arguments are just the path.  A case that dies by a signal always
# fails.  Ends with one line "N passed, N failed"; exits 1 if any failed.
#
# --bless NAME rewrites what a case expects from what the current binary
# does, after a deliberate change of output: a bad case's NAME.err (and
# NAME.status), a golden case's NAME.out (and NAME.err and NAME.status
# when it has them or they are not empty and 0), a verify case's
# `# expect:` comments (each line's are replaced by one comment per error,
# warning or remark on that line, with the full message; they must come
# last on their line).  NAME is a case's path, with or without its
# extension, or its stem when that names one case.  Review `git diff`.

BUILD=${BUILD:-build}
ROOFLINT=$BUILD/rooflint
export BUILD ROOFLINT
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-tests.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "[PASS] $1"; }
fail() {
  failed=$((failed + 1))
  echo "[FAIL] $1"
  [ -n "$2" ] && printf '%s\n' "$2" | head -n 40 | sed 's/^/    /'
}

# Shows the first lines of a diff between expected and actual.
difference() { diff -u "$1" "$2" | head -n 40; }

. tests/args.sh   # args_for, case_files

# run_case ARGLINE: runs rooflint with stdout/stderr in $TMP, sets $status.
run_case() {
  eval "set -- $1"
  "$ROOFLINT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  status=$?
}

if [ "$1" = "--bless" ]; then
  shift
  . tests/bless.sh
  bless_all "$@"
  exit
fi

# ------------------------------------------------------------------ unit
if [ -x "$BUILD/check_unit" ]; then
  "$BUILD/check_unit" >"$TMP/unit" 2>&1
  unit_status=$?
  summary=$(grep -E 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$TMP/unit" | tail -n 1)
  if [ -n "$summary" ]; then
    n=$(printf '%s\n' "$summary" | sed 's/.*Checks: \([0-9]*\).*/\1/')
    f=$(printf '%s\n' "$summary" | sed 's/.*Failures: \([0-9]*\).*/\1/')
    e=$(printf '%s\n' "$summary" | sed 's/.*Errors: \([0-9]*\).*/\1/')
    passed=$((passed + n - f - e))
    failed=$((failed + f + e))
    if [ $((f + e)) -eq 0 ] && [ "$unit_status" -eq 0 ]; then
      echo "[PASS] unit: $summary"
    else
      echo "[FAIL] unit: $summary"
      grep -E ':[FE]:' "$TMP/unit" | head -n 40 | sed 's/^/    /'
    fi
  else
    fail "unit: check_unit printed no summary (status $unit_status)" "$(tail -n 20 "$TMP/unit")"
  fi
else
  fail "unit: $BUILD/check_unit not built"
fi

# ---------------------------------------------------------------- verify
for roof in $(case_files tests/verify roof); do
  name=${roof%.roof}
  run_case "--verify $(args_for "$roof" "$name.args")"
  if [ "$status" -eq 0 ]; then
    pass "$roof"
  else
    fail "$roof (exit $status)" "$(cat "$TMP/err")"
  fi
done

# ------------------------------------------------------------------- bad
for f in $(case_files tests/bad roof args); do
  name=${f%.*}
  case $f in *.args) [ -f "$name.roof" ] && continue ;; esac
  run_case "$(args_for "$name.roof" "$name.args")"
  want=1
  [ -f "$name.status" ] && want=$(cat "$name.status")
  if [ "$status" -ge 128 ]; then
    fail "$f (killed by signal $((status - 128)))" "$(tail -n 20 "$TMP/err")"
  elif [ ! -f "$name.err" ]; then
    fail "$f (no $name.err)"
  elif ! cmp -s "$name.err" "$TMP/err"; then
    fail "$f (stderr)" "$(difference "$name.err" "$TMP/err")"
  elif [ "$status" != "$want" ]; then
    fail "$f (exit $status, expected $want)"
  else
    pass "$f"
  fi
done

# ---------------------------------------------------------------- golden
for f in tests/golden/*/*.roof tests/golden/*/*.cmd; do
  [ -f "$f" ] || continue
  name=${f%.*}
  case $f in *.roof) [ -f "$name.cmd" ] && continue ;; esac
  if [ -f "$name.cmd" ]; then
    run_case "$(args_for "$name.roof" "$name.cmd")"
  else
    run_case "$(args_for "$name.roof" "$name.args")"
  fi
  if [ "$status" -ge 128 ]; then
    fail "$f (killed by signal $((status - 128)))" "$(tail -n 20 "$TMP/err")"
  elif [ ! -f "$name.out" ]; then
    fail "$f (no $name.out)"
  elif ! cmp -s "$name.out" "$TMP/out"; then
    fail "$f (stdout)" "$(difference "$name.out" "$TMP/out")"
  elif [ -f "$name.err" ] && ! cmp -s "$name.err" "$TMP/err"; then
    fail "$f (stderr)" "$(difference "$name.err" "$TMP/err")"
  elif [ -f "$name.status" ] && [ "$status" != "$(cat "$name.status")" ]; then
    fail "$f (exit $status, expected $(cat "$name.status"))"
  else
    pass "$f"
  fi
done

# ------------------------------------------------------------------- cli
for t in tests/cli/*.sh; do
  [ -f "$t" ] || continue
  if sh "$t" >"$TMP/cli" 2>&1; then
    pass "$t"
  else
    fail "$t" "$(tail -n 40 "$TMP/cli")"
  fi
done

# ------------------------------------------------------------------ spec
# A rule is defined by a line starting with **R-AREA-NNN** (the form
# specs/language.md and specs/onnx.md use; "- R-AREA-NNN:" is accepted
# too).  Each must be cited somewhere under tests/.
if [ -f specs/language.md ]; then
  sed -n -e 's/^\*\*\(R-[A-Z]*-[0-9]*\)\*\*.*/\1/p' \
         -e 's/^- \(R-[A-Z]*-[0-9]*\):.*/\1/p' specs/*.md |
    sort -u >"$TMP/rules"
  uncovered=0
  while read -r id; do
    if ! grep -rqE -- "$id([^0-9]|\$)" tests/; then
      echo "[FAIL] spec: $id is cited by no test"
      uncovered=$((uncovered + 1))
    fi
  done <"$TMP/rules"
  total=$(wc -l <"$TMP/rules" | tr -d ' ')
  failed=$((failed + uncovered))
  passed=$((passed + total - uncovered))
  [ "$uncovered" -eq 0 ] && echo "[PASS] spec: all $total rules cited by tests"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
