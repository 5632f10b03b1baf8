#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/compare.sh OLD_BIN NEW_BIN: runs two rooflint binaries on every
# input the repository holds and reports each case whose stdout, stderr or
# exit status differ.  For changes that must not change any output (a move,
# a split, a speed-up): "compare: N cases, 0 differ" is the evidence.
#
# Inputs: examples/*.roof, tests/golden/*/*.roof, every .roof under
# tests/verify and tests/bad, every
# tests/onnx/**/*.onnx and tests/hf/**/*.json.  Modes, each one case:
# the lint, every check enabled (-WNAME each), --report, --format json,
# --format sarif, --plan, --dump graph, `import -o -` for an ONNX or
# config.json file, and --phase decode and train for a config.json.  Run from the root.
set -u
old=$1
new=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
cases=0
differ=0

# one_case ARGS...: runs both binaries with ARGS; counts a difference.
one_case() {
  "$old" "$@" >"$tmp/o.out" 2>"$tmp/o.err" </dev/null
  os=$?
  "$new" "$@" >"$tmp/n.out" 2>"$tmp/n.err" </dev/null
  ns=$?
  cases=$((cases + 1))
  if [ $os != $ns ] || ! cmp -s "$tmp/o.out" "$tmp/n.out" ||
     ! cmp -s "$tmp/o.err" "$tmp/n.err"; then
    differ=$((differ + 1))
    echo "differ: $* (exit $os -> $ns)"
  fi
}

inputs() {
  ls examples/*.roof tests/golden/*/*.roof 2>/dev/null
  find tests/verify tests/bad -name '*.roof' | LC_ALL=C sort
  find tests/onnx tests/hf -name '*.onnx' -o -name '*.json' 2>/dev/null | sort
}

# every check on, the off-by-default ones too
allw=$("$old" --list-checks | awk '/^  [a-z]/ {printf " -W%s", $1}')

for f in $(inputs); do
  one_case "$f"
  one_case $allw "$f"
  one_case --report "$f"
  one_case --format json "$f"
  one_case --format sarif "$f"
  one_case --plan "$f"
  one_case --dump graph "$f"
  case $f in *.onnx|*.json) one_case import -o - "$f" ;; esac
  case $f in *.json) one_case --phase decode "$f"; one_case --phase train "$f" ;; esac
done
echo "compare: $cases cases, $differ differ"
[ $differ -eq 0 ]
