#!/bin/sh
# layers.sh: the modules of src/ form no circle and none calls up the
# pipeline (ARCHITECTURE.md, "Layers").  The import graph comes from the
# objects, not from #include lines: a unit (tests/cli/units.inc) points at
# another when it uses a symbol (a function or a table) that only the other
# defines, as `nm` shows.
#
# LAYERS lists the units lowest first; a unit may use only the units listed
# before it.  A strict order holds no circle, so one rule catches both: an
# edge to a unit listed later prints as "A -> B (symbol): B is above A".
# A unit missing from the list (a new file) fails too, until it is placed.
set -u
BUILD=${BUILD:-build}
LAYERS="util arena source diag format dtype ast parse ops parallel sema
target cost checks import analyze out calibrate cli lsp main"
npass=0
nfail=0
ok() { npass=$((npass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL: layers: $1"; }

objs=$(find "$BUILD/obj" -name '*.o' ! -path "$BUILD/obj/tests/*" | sort)
[ -n "$objs" ] || { echo "FAIL: layers: no objects in $BUILD/obj (build first)"; exit 1; }

. tests/cli/units.inc
read_units > "${TMPDIR:-/tmp}/layers.$$"
trap 'rm -f "${TMPDIR:-/tmp}/layers.$$"' EXIT INT TERM

awk -v layers="$LAYERS" '
  BEGIN { n = split(layers, l, /[ \n]+/); for (i = 1; i <= n; i++) rank[l[i]] = i }
  $1 == "D" { def[$3] = $2; units[$2] = 1; next }
  { use[NR] = $2 " " $3; units[$2] = 1 }
  END {
    for (u in units)
      if (!(u in rank)) print "unplaced " u
    for (i in use) {
      split(use[i], a, " ")
      if (!(a[2] in def) || def[a[2]] == a[1]) continue
      if (!(a[1] in rank) || !(def[a[2]] in rank)) continue
      if (rank[def[a[2]]] > rank[a[1]]) print "up " a[1] " " def[a[2]] " " a[2]
      else print "down " a[1] " " def[a[2]]
    }
  }' "${TMPDIR:-/tmp}/layers.$$" | sort -u > "${TMPDIR:-/tmp}/layers.$$.edges"
trap 'rm -f "${TMPDIR:-/tmp}/layers.$$" "${TMPDIR:-/tmp}/layers.$$.edges"' EXIT INT TERM
edges="${TMPDIR:-/tmp}/layers.$$.edges"

while read -r kind a b sym; do
  case $kind in
  unplaced) bad "$a is in no layer: place it in LAYERS and in ARCHITECTURE.md" ;;
  up) bad "$a -> $b ($sym): $b is above $a" ;;
  esac
done < "$edges"

# The graph is not empty: the driver uses the parser, the parser the
# diagnostics (a broken nm reading would pass every rule above).
for e in "analyze parse" "parse diag" "out analyze" "checks cost"; do
  grep -qx "down $e" "$edges" && ok || bad "no edge $e: is nm reading the objects?"
done
# Every unit is named in ARCHITECTURE.md's layer list, in this order.
sed -n '/^## Layers/,/^## /s/^[0-9]*\. \*\*\([a-z]*\)\*\*.*/\1/p' ARCHITECTURE.md |
  tr '\n' ' ' > "${TMPDIR:-/tmp}/layers.$$"
want=$(echo $LAYERS)
[ "$(cat "${TMPDIR:-/tmp}/layers.$$")" = "$want " ] && ok ||
  bad "ARCHITECTURE.md's layers are '$(cat "${TMPDIR:-/tmp}/layers.$$")', expected '$want'"

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
