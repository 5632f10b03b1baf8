#!/bin/sh
# robust_hostile.sh: inputs that are not ordinary files or not ordinary text
# (issue "Robustness", item 3).  The byte-level cases with a fixed expected
# output live in tests/bad/*/rob_*.roof; this script covers what a committed
# file cannot be: an unreadable file, a FIFO, standard input, /dev/zero,
# and CRLF/CR/LF variants that must give the same diagnostics.
# Every case must end with a clear message and exit 0, 1 or 2, never a
# signal or a hang.  Rules: R-CLI-001 ('-' is standard input), R-CLI-005
# (unreadable files), R-CLI-006 (an empty file: tests/bad/parse/rob_empty.roof),
# R-LEX-002 (LF, CRLF, lone CR), R-SYN-003 (no final newline).
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
T=$BUILD/robust/hostile
rm -rf "$T"; mkdir -p "$T"
# ASan reserves terabytes of address space: no ulimit -v under it.
VLIMIT="ulimit -v 1048576"
{ (ulimit -v 1048576; "$BIN" --version; r=$?; exit $r); } > /dev/null 2>&1 || VLIMIT=":"
pass=0; fail=0; skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL robust_hostile: $*"; }

# run NAME STATUS ARGS...: runs rooflint with a time limit; the exit status
# must be STATUS.  stdout/stderr are left in $T/NAME.out and $T/NAME.err.
run() {
  name=$1; want=$2; shift 2
  timeout 20 "$BIN" "$@" > "$T/$name.out" 2> "$T/$name.err" < "${STDIN:-/dev/null}"
  got=$?
  if [ "$got" -ne "$want" ]; then
    bad "$name: exit $got, expected $want$( [ $got -ge 124 ] && echo ' (timeout or signal)')"
    sed 's/^/    /' "$T/$name.err" | head -5
    return 1
  fi
  return 0
}
# expect_err NAME TEXT: stderr of NAME must be exactly TEXT (after $T -> T).
expect_err() {
  printf '%s\n' "$2" > "$T/$1.want"
  sed "s#$T/#T/#g" "$T/$1.err" > "$T/$1.got"
  if cmp -s "$T/$1.want" "$T/$1.got"; then ok; else
    bad "$1: unexpected stderr"; diff "$T/$1.want" "$T/$1.got" | sed 's/^/    /' | head -10
  fi
}

GOOD='model m {
  input x : [4, 8]
  weight w : [8, 16]
  y = matmul(x, w)
}'
BROKEN='model m {
  input x : [4, 8]
  y = matmul(x, nope)
}'
printf '%s\n' "$GOOD" > "$T/good.roof"
printf '%s\n' "$BROKEN" > "$T/broken.roof"

# An unreadable file.  As root, permissions do not stop reading: say so.
cp "$T/good.roof" "$T/unreadable.roof"; chmod 000 "$T/unreadable.roof"
if cat "$T/unreadable.roof" > /dev/null 2>&1; then
  echo "skip robust_hostile: unreadable file (running as root: chmod 000 does not stop reading)"
  skip=$((skip + 1))
else
  run unreadable 2 "$T/unreadable.roof" &&
    expect_err unreadable "rooflint: error: cannot open 'T/unreadable.roof': Permission denied"
fi
chmod 644 "$T/unreadable.roof"

# A FIFO with a writer: read like a pipe.
mkfifo "$T/fifo.roof"
(printf '%s\n' "$BROKEN" > "$T/fifo.roof") &
if run fifo 1 "$T/fifo.roof"; then
  if grep -q 'fifo.roof:3:17: error: ' "$T/fifo.err"; then ok; else bad "fifo: expected the error at 3:17"; fi
fi
wait

# Standard input as "-": the file is called <stdin> in messages.
STDIN=$T/broken.roof run stdin 1 - &&
  if grep -q '^<stdin>:3:17: error: ' "$T/stdin.err"; then ok; else
    bad "stdin: expected a diagnostic at <stdin>:3:17"; head -3 "$T/stdin.err" | sed 's/^/    /'; fi
# Empty standard input.
STDIN=/dev/null run stdin_empty 0 - && ok

# /dev/zero never ends: it must be refused at a size limit, not read until
# memory runs out (run under a 1 GiB address-space limit so a miss is quick).
($VLIMIT; timeout 30 "$BIN" /dev/zero > "$T/zero.out" 2> "$T/zero.err"); got=$?
if [ "$got" -eq 2 ] && grep -q "too large" "$T/zero.err"; then ok; else
  bad "/dev/zero: exit $got, expected 2 with a size-limit message"; head -3 "$T/zero.err" | sed 's/^/    /'; fi

# Line ends: LF, CRLF and lone CR must give the same diagnostics.
awk '{printf "%s\r\n", $0}' "$T/broken.roof" > "$T/crlf.roof"
awk '{printf "%s\r", $0}' "$T/broken.roof" > "$T/cr.roof"
printf '%s' "$BROKEN" > "$T/nonl.roof"
run lf 1 "$T/broken.roof"
for v in crlf cr nonl; do
  if run "$v" 1 "$T/$v.roof"; then
    sed "s#$T/$v.roof#F#" "$T/$v.err" > "$T/$v.norm"
    sed "s#$T/broken.roof#F#" "$T/lf.err" > "$T/lf.norm"
    if cmp -s "$T/lf.norm" "$T/$v.norm"; then ok; else
      bad "$v: diagnostics differ from the LF file"; diff "$T/lf.norm" "$T/$v.norm" | sed 's/^/    /' | head -8; fi
  fi
done

# A file name with spaces, quotes and UTF-8 is printed as given.
n="$T/a b'\"é.roof"; cp "$T/broken.roof" "$n"
run oddname 1 "$n" && if grep -qF "a b'\"é.roof:3:17: error:" "$T/oddname.err"; then ok; else
  bad "oddname: file name not printed as given"; head -2 "$T/oddname.err" | sed 's/^/    /'; fi
for fmt in json sarif; do
  if run "oddname_$fmt" 1 --format "$fmt" "$n"; then
    if command -v python3 > /dev/null && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/oddname_$fmt.out" 2> /dev/null; then
      bad "oddname_$fmt: output is not valid JSON"; else ok; fi
  fi
done

echo "robust_hostile: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
