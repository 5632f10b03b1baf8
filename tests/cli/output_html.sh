#!/bin/sh
# output_html.sh: `--format html` (specs/html.md).
#
# R-HTML-001: one page on standard output for the whole run, the exit
# status the lint's (tour.roof: 0 with warnings; a file with a syntax error:
# 1, and the page still holds its diagnostic); not with --plan (exit 2).
# R-HTML-008 and R-HTML-009: the sweep's and the diff's pages.
# R-HTML-002: nothing fetched: no src= or href= to anything but the page's
# own sections, no @import or url( in the style, no fetch/XMLHttpRequest.
# R-HTML-007: a 100,000-op model (tests/bench/gen.sh transformer 6250:
# 100,000 ops, 100,000 kernels) makes a page under 32 MiB (25.3 MB when
# measured).
# Then the browser: tests/cli/html_browser.py (headless Chromium over
# WebDriver, R-HTML-002..006).
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-html.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL output_html: $*"; exit 1; }
for tool in chromium chromedriver; do
  command -v $tool >/dev/null 2>&1 ||
    fail "$tool missing: run make deps (Debian packages chromium chromium-driver)"
done

# R-HTML-001
"$ROOFLINT" --format html examples/tour.roof > "$T/tour.html" 2> "$T/err"
st=$?
[ $st -eq 0 ] || fail "tour.roof: exit $st"
head -c 16 "$T/tour.html" | grep -q '^<!DOCTYPE html>$' || fail "no doctype"
tail -n 1 "$T/tour.html" | grep -qx '</html>' || fail "page does not end with </html>"
grep -q "warning: matmul 'h' is memory-bound" "$T/err" || fail "diagnostics left stderr"
printf 'model m {\n  x = \n}\n' > "$T/bad.roof"
"$ROOFLINT" --format html "$T/bad.roof" > "$T/bad.html" 2> /dev/null
st=$?
[ $st -eq 1 ] || fail "syntax error: exit $st"
grep -q '"severity":"error"' "$T/bad.html" || fail "syntax error: no diagnostic in the page"
"$ROOFLINT" --format html --plan examples/tour.roof > "$T/out" 2> "$T/err"
st=$?
[ $st -eq 2 ] && [ ! -s "$T/out" ] || fail "--plan: exit $st"
grep -qx 'rooflint: error: --format html cannot be combined with --plan' "$T/err" ||
  fail "--plan: $(cat "$T/err")"
# R-HTML-008: --sweep writes the sweep's page (the text table's rows, in
# the page's data), its diagnostics on stderr; JSON still refuses a sweep.
"$ROOFLINT" --format html --sweep B=1,2,4 examples/tour.roof > "$T/sweep.html" 2> "$T/err"
st=$?
[ $st -eq 0 ] || fail "--sweep: exit $st"
head -c 16 "$T/sweep.html" | grep -q '^<!DOCTYPE html>$' || fail "--sweep: no doctype"
grep -q '"kind":"sweep","axes":\["B"\]' "$T/sweep.html" || fail "--sweep: not a sweep page"
[ "$(grep -c '^{"cells":\["[124]",' "$T/sweep.html")" = 3 ] || fail "--sweep: not 3 rows"
grep -q "warning: matmul 'h' is memory-bound" "$T/err" || fail "--sweep: diagnostics left stderr"
"$ROOFLINT" --format json --sweep B=1,2 examples/tour.roof > "$T/out" 2> "$T/err"
[ $? -eq 2 ] || fail "--format json --sweep: not refused"
grep -qx 'rooflint: error: --sweep cannot be combined with --format json' "$T/err" ||
  fail "--format json --sweep: $(cat "$T/err")"
# R-HTML-009: `rooflint diff --format html` writes the diff's page; a
# file against itself changes nothing (exit 0, no row).
"$ROOFLINT" diff --format html examples/tour.roof examples/tour.roof > "$T/diff.html" 2> "$T/err"
st=$?
[ $st -eq 0 ] || fail "diff: exit $st"
grep -q '"kind":"diff"' "$T/diff.html" || fail "diff: not a diff page"
grep -q '"title":"model mlp: 0 changed, 0 added, 0 removed"' "$T/diff.html" ||
  fail "diff: no model title"
grep -q '"rows":\[\]}\]' "$T/diff.html" || fail "diff: rows for an unchanged file"
grep -n -E 'src=|href="[^#]|@import|url\(|fetch\(|XMLHttpRequest|<link' "$T/sweep.html" "$T/diff.html" &&
  fail "the sweep or diff page refers to something outside itself"

# R-HTML-002
grep -n -E 'src=|href="[^#]|@import|url\(|fetch\(|XMLHttpRequest|<link' "$T/tour.html" &&
  fail "the page refers to something outside itself"

# R-HTML-007
sh tests/bench/gen.sh transformer 6250 > "$T/big.roof" 2> /dev/null
"$ROOFLINT" --format html "$T/big.roof" > "$T/big.html" 2> /dev/null
st=$?
[ $st -le 1 ] || fail "100,000 ops: exit $st"
size=$(wc -c < "$T/big.html")
[ "$size" -lt 33554432 ] || fail "100,000 ops: page of $size bytes (limit 32 MiB)"
rows=$(grep -c '^\["' "$T/big.html")
[ "$rows" -eq 100000 ] || fail "100,000 ops: $rows rows"
rm -f "$T/big.html" "$T/big.roof"

/usr/bin/python3 tests/cli/html_browser.py "$ROOFLINT" "$T" || fail "browser (above)"
