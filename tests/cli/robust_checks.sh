#!/bin/sh
# robust_checks.sh: the checks on hostile inputs generated here (issue 17,
# items 1, 8 and 9): nothing recurses on the depth of a `let`, the
# crossover search stays bounded, suppressions are de-duplicated in linear
# time and their unknown-check warnings are limited.  Each case asserts
# output and exit status; a time limit catches a hang.
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
T=$BUILD/robust/checks
rm -rf "$T"; mkdir -p "$T"
fail() { echo "FAIL robust_checks: $*"; exit 1; }
# run NAME ARGS...: rooflint under a 30 s limit, stdout/stderr in $T/NAME.*
run() {
  name=$1; shift
  timeout 30 "$BIN" "$@" > "$T/$name.out" 2> "$T/$name.err" < /dev/null
  status=$?
  [ $status -lt 124 ] || fail "$name: exit $status (timeout or signal)"
}
# rep N STRING: STRING N times, no newline.
rep() { awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }

# 1. A let summing 80,000 terms beside a memory-bound matmul: the
# crossover search reads sema's values (no evaluator of its own that
# recursed on the left spine: SIGSEGV even with -w).  R-CHK-032
# I(S) = 2*S*7e9 / (2*(S*70000 + 7e9 + S*100000)) reaches the ridge
# 990e12 / 3.35e12 = 295.52 FLOP/B at S = 2.0687e12 / 6.94976e9 = 297.7,
# so S >= 298, as for the plain `let B = 1` of the seed.
{ printf 'let S = '; rep 80000 '0+'; echo '1'
  printf 'model m {\n  input x : [S, 70000]\n  weight w : [70000, 100000]\n'
  printf '  y = matmul(x, w)\n}\n'; } > "$T/long_let.roof"
for opt in -w -Wno-memory-bound; do
  run long_let "$opt" "$T/long_let.roof"
  [ $status -eq 0 ] || fail "long_let $opt: exit $status"
  grep -q "^m: 1 ops, 7.00 G parameters, 14.0 GFLOP, 14.0 GB, 1.00 FLOP/B" "$T/long_let.out" ||
    fail "long_let $opt: no summary: $(head -c 300 "$T/long_let.out")"
done
run long_let "$T/long_let.roof"
[ $status -eq 0 ] || fail "long_let: exit $status"
grep -q "^$T/long_let.roof:1:5: note: 'y' reaches the compute roof at S >= 298\$" "$T/long_let.err" ||
  fail "long_let: no crossover note: $(cut -c1-160 "$T/long_let.err" | head -8)"

# 8. The crossover search, per model, runs only for a warning that is
# shown, re-analyses that model alone, and only over the lets it uses:
# 1000 small models (12 s before) lint at once.  [B, 4096] x [4096, 4096]
# in bf16: I(B) = 4096 B / (2 B + 4096) >= 295.52 from B = 1210450 / 3505
# = 345.4, so B >= 346 in every model.  R-CHK-032
{ echo 'let B = 1'; echo 'let H = 4096'
  awk 'BEGIN { for (i = 0; i < 1000; i++)
    printf "model m%d {\n  input x : [B, H]\n  weight w : [H, 4096]\n  y = matmul(x, w)\n}\n", i }'
  for i in $(seq 1 2000); do echo "let L$i = $i"; done; } > "$T/many.roof"
run many "$T/many.roof"
[ $status -eq 0 ] || fail "many: exit $status"
n=$(grep -c "^$T/many.roof:1:5: note: 'y' reaches the compute roof at B >= 346\$" "$T/many.err")
[ "$n" -eq 1000 ] || fail "many: $n crossover notes, expected 1000"
# H sizes the weight (architecture), the L lets are not the model's.
grep -q "at [HL][0-9]* >=" "$T/many.err" && fail "many: a note for H or an L let"
[ "$(grep -c 'warning: matmul' "$T/many.err")" -eq 1000 ] || fail "many: warnings"
for opt in -w -Wno-memory-bound; do
  run many "$opt" "$T/many.roof"
  [ $status -eq 0 ] || fail "many $opt: exit $status"
  [ -s "$T/many.err" ] && fail "many $opt: stderr: $(head -3 "$T/many.err")"
  [ "$(grep -c '^m[0-9]*: 1 ops, 16.8 M parameters' "$T/many.out")" -eq 1000 ] ||
    fail "many $opt: summaries"
done

# 9. 60,000 suppressions naming an unknown check (1.9 MB): de-duplicated
# in linear time (2.5 s before, quadratic), and 20 warnings, the error
# limit, then one note for the other 59,980 (14 MB of stderr before).
# R-SUP-003 R-SUP-004
{ printf 'model m {\n  input x : [16]\n  y = relu(x)\n}\n'
  rep 60000 '# rooflint: ignore[memory-bond]\n'; } > "$T/sup.roof"
run sup "$T/sup.roof"
[ $status -eq 0 ] || fail "sup: exit $status"
n=$(grep -c "warning: unknown check 'memory-bond' in suppression; did you mean 'memory-bound'?" "$T/sup.err")
[ "$n" -eq 20 ] || fail "sup: $n warnings, expected 20"
grep -q "^$T/sup.roof:24:20: warning: unknown check 'memory-bond'" "$T/sup.err" ||
  fail "sup: the 20th warning is not line 24's"
# the note for the rest is at the first of them, the 21st (line 25)
[ "$(grep -c "^$T/sup.roof:25:20: note: 59980 more suppressions in this file name an unknown check, the first here (--error-limit N shows more)\$" "$T/sup.err")" -eq 1 ] ||
  fail "sup: no note for the rest: $(tail -3 "$T/sup.err")"
head -n 34 "$T/sup.roof" > "$T/sup_small.roof"  # the model and 30 of them
run sup_small --error-limit 0 "$T/sup_small.roof"
n=$(grep -c "warning: unknown check" "$T/sup_small.err")
[ "$n" -eq 30 ] || fail "sup_small --error-limit 0: $n warnings, expected 30"
grep -q 'more suppression' "$T/sup_small.err" && fail "sup_small: a note under no limit"
run sup_small -w "$T/sup_small.roof"
[ -s "$T/sup_small.err" ] && fail "sup_small -w: stderr: $(head -2 "$T/sup_small.err")"

echo "robust_checks: ok"
