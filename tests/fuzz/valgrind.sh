#!/bin/sh
# valgrind.sh: `make valgrind`.  Every command-line test case (tests/bad,
# tests/verify, tests/golden) runs again under valgrind's memcheck; a leak
# (definite or indirect) or an invalid access makes valgrind exit 99.  The
# expected outputs are not compared here (tests/run.sh does that): this
# only asks whether memory was used correctly.  Exits 1 if any case failed.
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
OUT=$BUILD/valgrind
rm -rf "$OUT"; mkdir -p "$OUT"
VG="valgrind -q --leak-check=full --error-exitcode=99 --errors-for-leak-kinds=definite,indirect --track-origins=yes"
if ! command -v valgrind > /dev/null; then
  echo "valgrind: not installed (make deps installs it for make valgrind)"; exit 1
fi
pass=0; fail=0

. tests/args.sh   # args_for

# one NAME ARGS...: runs rooflint ARGS under memcheck.
one() {
  name=$1; shift
  log=$OUT/$(echo "$name" | tr '/' '_').log
  timeout 300 $VG --log-file="$log" "$BIN" "$@" > /dev/null 2>&1 < /dev/null
  st=$?
  if [ "$st" -eq 99 ] || [ "$st" -ge 124 ] || [ -s "$log" ]; then
    fail=$((fail + 1)); echo "FAIL valgrind: $name (exit $st)"; head -30 "$log" | sed 's/^/    /'
  else
    pass=$((pass + 1))
  fi
}

for f in $(case_files tests/bad roof args); do
  name=${f%.*}
  case $f in *.args) [ -f "$name.roof" ] && continue ;; esac
  eval "set -- $(args_for "$name.roof" "$name.args")"
  one "$f" "$@"
done
for f in $(case_files tests/verify roof); do
  eval "set -- --verify $(args_for "$f" "${f%.roof}.args")"
  one "$f" "$@"
done
for f in tests/golden/*/*.roof tests/golden/*/*.cmd; do
  [ -f "$f" ] || continue
  name=${f%.*}
  case $f in *.roof) [ -f "$name.cmd" ] && continue ;; esac
  if [ -f "$name.cmd" ]; then
    eval "set -- $(args_for "$name.roof" "$name.cmd")"
  else
    eval "set -- $(args_for "$name.roof" "$name.args")"
  fi
  one "$f" "$@"
done
for f in examples/*.roof; do
  [ -e "$f" ] || continue
  one "$f --report" --report "$f"
  one "$f --format json" --format json "$f"
  one "$f --format sarif" --format sarif "$f"
done

if [ "$fail" -eq 0 ]; then echo "valgrind: clean"; else echo "valgrind: NOT clean"; fi
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
