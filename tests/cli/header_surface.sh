#!/bin/sh
# header_surface.sh: src/rooflint.h, the shared surface, declares only
# functions that two or more units use (ARCHITECTURE.md, "Layers": the
# units are tests/cli/units.inc's, read from the objects with `nm`).  A
# function that one stage alone calls of another is a contract between the
# two: it is declared in a header they share (src/source.h, src/ops.h,
# src/import/import.h, ...), not on the surface every module reads.
#
# The callers at the top, the driver and above (analyze, out, cli, lsp,
# main) and the unit suites, are whom a stage's entry points are for, so
# a function that only they call stays (rooflint.h keeps the stages' entry
# points).  ENTRY names the front end's entry points that two stages below
# the driver call, each alone: the target stage parses the built-in
# targets, the checks parse a consumed tree again.
#
# It fails, naming the function and its one user, when a function declared
# in rooflint.h is used by no unit but its own, or by one unit below the
# driver.  HEADER and BUILD may name another tree (to see it fail on one).
set -u
BUILD=${BUILD:-build}
HEADER=${HEADER:-src/rooflint.h}
TOP="analyze out cli lsp main tests"
ENTRY="parse_file parse_again"
npass=0
nfail=0
ok() { npass=$((npass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL: header_surface: $1"; }

objs=$(find "$BUILD/obj" -name '*.o' ! -path "$BUILD/obj/tests/*" | sort)
[ -n "$objs" ] || { echo "FAIL: header_surface: no objects in $BUILD/obj (build first)"; exit 1; }
tmp="${TMPDIR:-/tmp}/header_surface.$$"
trap 'rm -f "$tmp" "$tmp.decl"' EXIT INT TERM

. tests/cli/units.inc
{
  read_units
  for o in $(find "$BUILD/obj/tests" -name '*.o' 2>/dev/null); do
    nm "$o" | awk 'NF == 2 && $1 == "U" { print "U tests", $2 }'
  done
} > "$tmp"

# The names the header declares as functions: every `name(` once the
# comments are stripped (without expanding the includes); the objects
# then tell which of them are functions defined in src/.
gcc -fpreprocessed -dD -E -P "$HEADER" 2>/dev/null |
  grep -o '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' |
  sort -u > "$tmp.decl"

awk -v top="$TOP" -v entry="$ENTRY" '
  BEGIN {
    n = split(top, t, " "); for (i = 1; i <= n; i++) istop[t[i]] = 1
    n = split(entry, e, " "); for (i = 1; i <= n; i++) isentry[e[i]] = 1
  }
  NR == FNR { decl[$1] = 1; next }
  $1 == "D" && ($3 in decl) { def[$3] = $2; next }
  $1 == "U" { if (!(($3 SUBSEP $2) in seen)) { seen[$3, $2] = 1; users[$3] = users[$3] " " $2 } }
  END {
    for (s in def) {
      nd++
      n = split(users[s], u, " "); k = 0; one = ""
      for (i = 1; i <= n; i++) if (u[i] != def[s]) { k++; one = u[i] }
      if (k == 0) print "none " s " " def[s]
      else if (k == 1 && !(one in istop) && !(s in isentry)) print "one " s " " def[s] " " one
      else print "ok " s
    }
    print "count " nd
  }' "$tmp.decl" "$tmp" > "$tmp.out"
mv "$tmp.out" "$tmp"

while read -r kind s d u; do
  case $kind in
  none) bad "$s ($d) is used by no other unit: make it static, or declare it in $d's own header" ;;
  one) bad "$s ($d) is used by $u alone: declare it in a header $d and $u share" ;;
  ok) ok ;;
  count) [ "$s" -gt 100 ] && ok || bad "only $s functions found in $HEADER: is nm reading the objects?" ;;
  esac
done < "$tmp"

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
