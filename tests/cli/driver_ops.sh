#!/bin/sh
# driver_ops.sh: `rooflint --help` lists the op table, one op a line with
# its class, and README's "### Ops" table names every op the binary has
# (R-OP-005).  The list comes from src/ops.def alone.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-ops.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL driver_ops: $*"; exit 1; }

"$ROOFLINT" --help > "$T/help" || fail "--help exits $?"
# the lines after "ops (...):" up to the blank line: "  NAME CLASS DOC"
sed -n '/^ops (name, class, what it computes):$/,/^$/p' "$T/help" |
  sed -n 's/^  \([a-z0-9_]*\)  *\([a-z]*\)  .*/\1 \2/p' > "$T/ops"
[ "$(wc -l < "$T/ops")" -gt 0 ] || fail "--help lists no ops"
grep -qx 'matmul contraction' "$T/ops" || fail "matmul is not a contraction in --help"
grep -qx 'cast elementwise' "$T/ops" || fail "cast is not elementwise in --help"
grep -qx 'reshape view' "$T/ops" || fail "reshape is not a view in --help"
# every class is one of OpClass's
while read -r op cls; do
  case $cls in
  elementwise | reduction | contraction | movement | view | transfer | \
  collective | opaque) ;;
  *) fail "$op has class '$cls'" ;;
  esac
done < "$T/ops"

# README: the words of the Ops section's table rows
sed -n '/^### Ops$/,/^## /p' README.md | grep '^|' |
  tr -c 'a-z0-9_\n' ' ' | tr ' ' '\n' | sort -u > "$T/readme"
missing=""
while read -r op cls; do
  grep -qx "$op" "$T/readme" || missing="$missing $op"
done < "$T/ops"
[ -z "$missing" ] || fail "README's op table lacks:$missing"
echo "PASS driver_ops"
