#!/bin/sh
# robust_limits.sh: every resource limit of the front end and the analysis,
# exercised with inputs generated here (a 100,000-deep nest is not worth
# committing).  Each must end with a clear, located error (or a correct
# result), never a crash, a hang or an unbounded allocation.  The small
# fixed cases (error limit, overflowing dimensions, 10^18 repeat counts)
# are tests/bad/*/rob_*.roof.
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
T=$BUILD/robust/limits
rm -rf "$T"; mkdir -p "$T"
# ASan reserves terabytes of address space: no ulimit -v under it.
VLIMIT="ulimit -v 4194304"
{ (ulimit -v 4194304; "$BIN" --version; r=$?; exit $r); } > /dev/null 2>&1 || VLIMIT=":"
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL robust_limits: $*"; }

# check NAME STATUS PATTERN FILE [ARGS...]: rooflint FILE under a time and
# memory limit; exit status STATUS and PATTERN (grep -E) in stderr.
check() {
  name=$1; want=$2; pat=$3; shift 3
  ($VLIMIT; timeout 30 "$BIN" "$@" > "$T/$name.out" 2> "$T/$name.err" < /dev/null)
  got=$?
  if [ "$got" -ne "$want" ]; then
    bad "$name: exit $got, expected $want$( [ $got -ge 124 ] && echo ' (timeout or signal)')"
    head -4 "$T/$name.err" | cut -c1-160 | sed 's/^/    /'
  elif [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/$name.err"; then
    bad "$name: stderr lacks /$pat/"; head -4 "$T/$name.err" | cut -c1-160 | sed 's/^/    /'
  else ok; fi
}
# rep N STRING: STRING N times, no newline.
rep() { awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }

N=100000
# Nesting (R-SYN-010): brackets of every kind, 100,000 deep.  The scanner stops at the
# first bracket past the limit and says where.
{ printf 'let a = '; rep $N '('; printf '1'; rep $N ')'; echo; } > "$T/paren.roof"
check paren 1 'paren\.roof:1:[0-9]+: error: .*nest' "$T/paren.roof"
{ printf 'let a = '; rep $N '['; rep $N ']'; echo; } > "$T/bracket.roof"
check bracket 1 'bracket\.roof:1:[0-9]+: error: .*nest' "$T/bracket.roof"
{ echo 'model m {'; echo '  input x : [4]'; rep $N 'repeat 2 {
'; rep $N '}
'; echo '}'; } > "$T/brace.roof"
check brace 1 'brace\.roof:[0-9]+:[0-9]+: error: .*nest' "$T/brace.roof"
# Unclosed: 100,000 openers and nothing else.
{ rep $N '{'; } > "$T/open.roof"
check open 1 'open\.roof:1:[0-9]+: error: ' "$T/open.roof"
# Nesting without brackets: a chain of unary minus and a long sum build deep
# trees too (the parser stack, sema's recursion, the AST dump).
{ printf 'let a = '; rep $N '-'; echo '1'; } > "$T/unary.roof"
check unary 1 'unary\.roof:1:[0-9]+: error: .*(nest|deep)' "$T/unary.roof"
{ printf 'let a = 1'; rep $N ' + 1'; echo; echo 'model m {'; echo '  input x : [a]'; echo '}'; } > "$T/sum.roof"
check sum 0 '' "$T/sum.roof"
{ printf 'model m {\n  input x : [4]\n  y = add(x'; rep $N ', x'; echo ')'; echo '}'; } > "$T/args.roof"
check args 1 'args\.roof:3:[0-9]+: error: ' "$T/args.roof"

# Identifier and line length (R-LEX-004, R-LEX-012).
{ printf 'let '; rep 100000 'a'; echo ' = 1'; } > "$T/ident.roof"
check ident 1 'ident\.roof:1:5: error: .*(identifier|name).*long' "$T/ident.roof"
{ printf '# '; rep 10000000 'x'; echo; echo 'model m {'; echo '  input x : [4]'; echo '}'; } > "$T/line.roof"
check line 1 'line\.roof:1:[0-9]+: error: .*line.*long' "$T/line.roof"

# Error limit: 1,000 independent errors stop at the limit with a note.
awk 'BEGIN { print "model m {"; for (i = 0; i < 1000; i++) print "  y" i " = nosuchop(1)"; print "}" }' > "$T/errors.roof"
check errors 1 'too many errors' "$T/errors.roof"
n=$(grep -c ': error: ' "$T/errors.err")
[ "$n" -le 21 ] && ok || bad "errors: $n errors printed, expected at most the limit (20)"

# Element counts and dimension arithmetic: checked 64-bit (R-DIM-004,
# R-LEX-005).
printf 'model m {\n  input x : [4294967296, 4294967296]\n}\n' > "$T/elems.roof"
check elems 1 'elems\.roof:2:[0-9]+: error: .*overflow' "$T/elems.roof"
printf 'let D = 9223372036854775807\nmodel m {\n  input x : [D + 1]\n}\n' > "$T/dimadd.roof"
check dimadd 1 'dimadd\.roof:3:[0-9]+: error: .*overflow' "$T/dimadd.roof"
printf 'let D = 99999999999999999999\n' > "$T/intlit.roof"
check intlit 1 'intlit\.roof:1:9: error: ' "$T/intlit.roof"
printf 'model m {\n  input x : [65536, 65536]\n  weight w : [65536, 65536]\n  y = matmul(x, w)\n  z = matmul(y, w)\n}\n' > "$T/bigmm.roof"
check bigmm 0 '' --report "$T/bigmm.roof"

# FLOPs and bytes stay finite with repeat counts of 10^18 three deep.
cat > "$T/repeat18.roof" <<'R'
model m {
  input x : [4096, 4096]
  weight w : [4096, 4096]
  repeat 1000000000000000000 {
    repeat 1000000000000000000 {
      repeat 1000000000000000000 {
        x = matmul(x, w)
      }
    }
  }
}
R
check repeat18 0 '' --report "$T/repeat18.roof"
if grep -qiE '(^|[^a-z])(inf|nan)([^a-z]|$)' "$T/repeat18.out"; then bad "repeat18: inf or nan in the report"; else ok; fi
# A figure of 20 digits or more is unreadable, and cut to a buffer's size
# it is wrong (10^65 FLOPs printed as 31 digits): past the largest unit
# prefix figures must go to scientific notation.
if grep -qE '[0-9]{20,}' "$T/repeat18.out"; then
  bad "repeat18: a figure of 20+ digits in the report: $(grep -oE '[0-9]{20,}[^ ]* [^ ]*' "$T/repeat18.out" | head -1)"; else ok; fi
check repeat18_json 0 '' --format json "$T/repeat18.roof"
if grep -qiE '[:,[] *-?(inf|nan|infinity)[],} ]' "$T/repeat18_json.out"; then bad "repeat18_json: inf or nan in JSON"; else ok; fi

# Many models and many nodes: linear, no limit below these.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "model m%d {\n  input x : [4]\n  y = relu(x)\n}\n", i }' > "$T/models.roof"
check models 0 '' -w "$T/models.roof"
awk 'BEGIN { print "model m {"; print "  input x : [4]"; for (i = 0; i < 100000; i++) print "  x = add(x, x)"; print "}" }' > "$T/nodes.roof"
check nodes 0 '' "$T/nodes.roof"
# Rebinding and broadcasting cannot blow up: every op reads the two
# previous values (a DAG with exponentially many paths).
awk 'BEGIN { print "model m {"; print "  input a : [4, 1]"; print "  input b : [1, 4]";
  for (i = 0; i < 30000; i++) { print "  c = add(a, b)"; print "  a = mul(b, c)"; print "  b = sub(c, a)" } print "}" }' > "$T/dag.roof"
check dag 0 '' "$T/dag.roof"

# transfer-in-loop follows a transfer's operand back to loop-invariant
# data (R-CHK-061); a 300,000-op chain inside the loop once overflowed the
# stack of that walk.
awk 'BEGIN { print "model m {"; print "  weight w : [4096, 4096]"; print "  loop 100 {";
  print "    a = reshape(w, [16777216])";
  for (i = 0; i < 150000; i++) { print "    a = reshape(a, [4096, 4096])"; print "    a = reshape(a, [16777216])" }
  print "    ah = to_host(a)"; print "  }"; print "}" }' > "$T/deepchain.roof"
check deepchain 0 "deepchain\\.roof:300005:[0-9]+: warning: to_host 'ah' copies loop-invariant 'a' \\(computed from loop-invariant data\\)" "$T/deepchain.roof"
# ... and its line number has six digits: the gutter widens with it, so the
# caret's bar stays under the source line's bar.
if [ "$(sed -n 3p "$T/deepchain.err")" = "       |          ^~~~~~~~~~" ]; then ok
else bad "deepchain: caret gutter not aligned under a 6-digit line number"; fi

# A long model body is released while sema reads it (the tree and the graph
# are never both whole): 140,000 statements span several of the tree's big
# chunks.  Everything read after the release (the weight declared first, the
# re-parse behind the fused-chain fix-it, the caret lines) must come out as
# when the tree is kept whole, which -D forces.
# The let it uses is written after it, and a second model follows: both
# are parsed after the body, so nothing of theirs is released with it.
awk 'BEGIN { print "model big {"; print "  input x : [N, 64]"
  print "  weight w0 : [64, 64]"; print "  h = matmul(x, w0)"
  for (i = 0; i < 140000; i++) print (i % 2 ? "  h = add(h, x)" : "  h = relu(h)")
  print "  y = matmul(h, w0)"; print "  z = cast(y, fp32)"; print "  z = softmax(z)"; print "}"
  print "let N = 4"; print "model small {"; print "  input x : [N, 8]"; print "  y = relu(x)"; print "}" }' > "$T/consumed.roof"
check consumed 0 "consumed\\.roof:5:7: warning: elementwise chain .* 140000 kernels move 179\\.2 MB" "$T/consumed.roof" --report
( $VLIMIT; timeout 30 "$BIN" -D N=4 --report "$T/consumed.roof" > "$T/kept.out" 2> "$T/kept.err" < /dev/null )
if cmp -s "$T/consumed.out" "$T/kept.out" && cmp -s "$T/consumed.err" "$T/kept.err" \
   && [ "$(wc -l < "$T/consumed.out")" -eq 140050 ]; then ok
else bad "consumed: output differs from the run that keeps the tree"; fi

# File size: a sparse 5 GiB file is refused before it is read.
truncate -s 5G "$T/huge.roof" 2> /dev/null && {
  check huge 2 'huge\.roof.*too large' "$T/huge.roof"
  rm -f "$T/huge.roof"
}

echo "robust_limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
