#!/bin/sh
# driver_multi_target.sh: several targets (R-CHK-081).  The capacity check
# runs on every target, its error naming the target; --report's side-by-side
# table ends with the footprint against each target's memory; `diff` runs
# the checks through the same loop, so it compares capacity on every target.
. "$(dirname "$0")/driver_lib.inc"

{ card small Small "1 GB" "1 TB/s"; card large Large "4 GB" "2 TB/s"; } >"$T/mt.roof"
cat >>"$T/mt.roof" <<'ROOF'
model m {
  dtype fp16
  input x : [1, 32768]
  weight w : [32768, 32768]
  y = matmul(x, w)
}
ROOF

# The weight is 32768^2 * 2 B = 2,147,483,648 B = 2.15 GB; with x and y
# (65,536 B each) live, 2.15 GB: over Small's 1 GB, under Large's 4 GB.
# Small is the second target: before, only the first was checked (exit 0).
run -w -t large,small "$T/mt.roof"
expect_status 1
expect_grep "$T/err" "mt.roof:21:7: error: model 'm' needs 2.15 GB but Small has 1.00 GB: weights 2.15 GB, activations 131.1 KB [-Wcapacity]"
[ "$(grep -c 'error:' "$T/err")" -eq 1 ] && ok || bad "expected one error (Small's)"
run -w -t large "$T/mt.roof"
expect_status 0

# The footprint line: the time on Small is 2.15 GB / 1 TB/s = 2.15 ms, on
# Large 1.07 ms.
run -w -t small,large --report "$T/mt.roof"
expect_status 1
tail -n 2 "$T/out" >"$T/tail"
printf '%s\n' "step time [1] >= 2.15 ms, [2] >= 1.07 ms" \
  "footprint [1] 2.15 GB does not fit in 1.00 GB, [2] 2.15 GB fits in 4.00 GB" >"$T/want"
what="rooflint -w -t small,large --report: the last two lines"
cmp -s "$T/want" "$T/tail" && ok || { bad "differs"; diff "$T/want" "$T/tail"; }
# diff: a weight of 32768 x 8192 fp16 = 536,870,912 B (537.0 MB) fits
# Small; the new side's 2.15 GB does not, and Small is the second target:
# the capacity error appears (before, diff ran the checks on the first
# target only and saw none).
sed 's/weight w : \[32768, 32768\]/weight w : [32768, 8192]/' "$T/mt.roof" >"$T/mt_old.roof"
run diff -t large,small "$T/mt_old.roof" "$T/mt.roof"
expect_status 0
expect_grep "$T/out" "  + $T/mt.roof:21:7: error: model 'm' needs 2.15 GB but Small has 1.00 GB: weights 2.15 GB, activations 131.1 KB [-Wcapacity]"
[ "$(grep -c '^  [+-] ' "$T/out")" -eq 1 ] && ok || bad "expected one diagnostic line"
finish
