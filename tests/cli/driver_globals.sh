#!/bin/sh
# driver_globals.sh: the conventions users bring from git, cargo, gcc and
# ruff.  Global options before a subcommand (R-CLI-012) and per-subcommand
# --help; -Werror=CHECK and -Wno-error=CHECK (R-CLI-013); a directory
# argument (R-CLI-014); an unknown -t NAME (R-CLI-015, R-TGT-007); a -D real
# used as an integer (R-LET-006).
. "$(dirname "$0")/driver_lib.inc"

A=examples/llama2_7b_decode.roof
B=examples/llama2_7b_prefill.roof
same_as() { # the last run's stdout, stderr and status equal those of "$@"
  cp "$T/out" "$T/out1"; cp "$T/err" "$T/err1"; s1=$status
  run "$@"
  if [ "$s1" -eq "$status" ] && cmp -s "$T/out1" "$T/out" && cmp -s "$T/err1" "$T/err"; then
    ok; else bad "differs from rooflint $*"; fi
}

# R-CLI-012: options before the subcommand are the subcommand's.
run --color=never diff $A $B
expect_status 0
expect_grep "$T/out" "diff $A -> $B"
same_as diff --color=never $A $B
run -t h200_sxm diff $A $B
expect_grep "$T/out" "H200 SXM"
same_as diff -t h200_sxm $A $B
run --color never targets
expect_status 0
expect_grep "$T/out" "h100_sxm   NVIDIA H100 SXM"
same_as targets
run -w target h100_sxm
same_as target h100_sxm
# After a file, or after --, the word is a file.
run -w -- diff
expect_status 2
expect_err "rooflint: error: cannot open 'diff': No such file or directory"

# Each subcommand's --help: its form, its summary, the options that apply.
run diff --help
expect_status 0
head -n 2 "$T/out" >"$T/head"
printf '%s\n' "usage: rooflint diff [OPTIONS] OLD NEW" "what changed (OLD or NEW '-' = stdin)" >"$T/want"
if cmp -s "$T/want" "$T/head"; then ok; else bad "diff --help header"; fi
expect_grep "$T/out" "  --fail-on-regression PCT     diff: exit 1"
expect_no_grep "$T/out" "--sweep"
run --color=never targets --help
expect_status 0
expect_grep "$T/out" "usage: rooflint targets [OPTIONS] [NAMES...]"
expect_no_grep "$T/out" "--report"
run target --help
expect_status 0
expect_grep "$T/out" "usage: rooflint target [OPTIONS] NAME"
run --help
expect_grep "$T/out" "       rooflint diff OLD NEW          what changed"
expect_grep "$T/out" "  -Werror=CHECK                turn one check's warnings into errors"

# R-CLI-013: -Werror=CHECK promotes one check; -Wno-error=CHECK exempts one.
# llama2_7b_decode has 1 overhead-bound and 4 memory-bound warnings: the 3
# slowest matmuls and one summary of the 6 others (R-CHK-034).
run -Werror=overhead-bound $A
expect_status 1
expect_grep "$T/err" "error: 14 of 23 kernels in model 'llama2_7b_decode' take less than the 5.00 us launch overhead"
expect_grep "$T/err" "[-Werror,-Woverhead-bound]"
n=$(grep -c ": warning: matmul '[a-z]*' is memory-bound" "$T/err")
[ "$n" -eq 3 ] && ok || bad "$n memory-bound matmul warnings, expected 3"
expect_grep "$T/err" ": warning: 6 more ops in model 'llama2_7b_decode' are memory-bound: 39.4% of the step time"
run -Werror -Wno-error=memory-bound $A
expect_status 1
n=$(grep -c ": error: " "$T/err")
[ "$n" -eq 1 ] && ok || bad "$n errors, expected 1 (overhead-bound)"
run -Werror -Wno-error=memory-bound -Wno-error=overhead-bound $A
expect_status 0
# The last one for a check wins; -Werror=X also enables X.
run -Wno-overhead-bound -Werror=overhead-bound -Wno-error=overhead-bound $A
expect_status 0
expect_grep "$T/err" "warning: 14 of 23 kernels"
run -Werror=capcity $A
expect_status 2
expect_err "rooflint: error: unknown warning option '-Werror=capcity'; did you mean '-Werror=capacity'?"

# R-CLI-014: a directory is every *.roof under it, sorted by path; hidden
# entries, other files and links to directories are skipped.
mkdir -p "$T/d/b/c" "$T/d/.git" "$T/d/empty"
cp examples/tour.roof "$T/d/z.roof"
cp examples/tour.roof "$T/d/b/a.roof"
cp examples/bert_base.roof "$T/d/b/c/x.roof"
cp examples/tour.roof "$T/d/.git/h.roof"
echo "not a model" >"$T/d/b/notes.txt"
ln -s .. "$T/d/b/loop"
ln -s ../z.roof "$T/d/b/link.roof"
run -w --format json "$T/d"
expect_status 0
sed -n 's/^      "file": "\(.*\)",$/\1/p' "$T/out" >"$T/files"
printf '%s\n' "$T/d/b/a.roof" "$T/d/b/c/x.roof" "$T/d/b/link.roof" "$T/d/z.roof" >"$T/want"
if cmp -s "$T/want" "$T/files"; then ok; else bad "directory order"; diff "$T/want" "$T/files"; fi
run -w "$T/d/empty"
expect_status 2
expect_err "rooflint: error: no .roof file in directory '$T/d/empty'"

# R-CLI-015: an unknown -t NAME exits 2, once, with a suggestion that
# ignores case; a NAME that a linted file defines is fine.
run -t H100_SXM $A $B
expect_status 2
expect_err "rooflint: error: unknown target 'H100_SXM'; did you mean 'h100_sxm'?"
sed 's/^target h100_sxm {/target my_gpu {/' specs/targets/h100_sxm.roof >"$T/own.roof"
grep -v '^target ' examples/tour.roof >>"$T/own.roof"
run -w -t my_gpu "$T/own.roof"
expect_status 0
expect_grep "$T/out" "on NVIDIA H100 SXM"

# R-LET-006: -D B=1.5 where B must be an integer: one error, naming -D.
run -D B=1.5 $A
expect_status 1
expect_err "$A:21:21: error: expected an integer, got 1.5 from -D B=1.5
   21 |   input ids : int32[B, 1]
      |                     ^"

finish
