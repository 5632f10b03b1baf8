#!/bin/sh
# output_man.sh: docs/rooflint.1 renders without a warning and covers what
# the binary has: every option of `rooflint --help`, every subcommand,
# every check of the registry (read from the SARIF rules), every built-in
# target, every exit status (R-OUT-011); make install puts it in
# $(PREFIX)/share/man/man1 and make uninstall removes it.
set -u
BUILD=${BUILD:-build}
ROOFLINT=${ROOFLINT:-$BUILD/rooflint}
T=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-man.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL output_man: $*"; exit 1; }
PAGE=docs/rooflint.1
command -v groff >/dev/null 2>&1 || fail "groff missing: make deps (groff-base)"

# -ww: every warning category; -z: format, print nothing.
groff -ww -man -Tascii -z $PAGE > "$T/warn" 2>&1
[ -s "$T/warn" ] && fail "groff warns: $(head -5 "$T/warn")"
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man --warnings -l $PAGE > /dev/null 2> "$T/warn"
  [ -s "$T/warn" ] && fail "man warns: $(head -5 "$T/warn")"
fi
# One long line per paragraph, no hyphenation, no overstrike: greppable.
groff -man -Tascii -P-cbou -rHY=0 -rLL=1000n $PAGE > "$T/page" 2> /dev/null ||
  fail "groff cannot render $PAGE"

missing=""
# every option (and its alias) that --help lists
for opt in $("$ROOFLINT" --help | sed -n 's/^  \(-[^ ,]*\)\(, \(-[^ ]*\)\)\{0,1\}.*/\1 \3/p'); do
  case $opt in -WCHECK) continue ;; esac
  opt=$(printf '%s\n' "$opt" | sed 's/\([a-z][-=]\)[A-Z]*$/\1/') # -Wno-CHECK: -Wno-, -Werror=CHECK: -Werror=
  grep -q -- "$opt" "$T/page" || missing="$missing option:$opt"
done
# subcommands
for cmd in $("$ROOFLINT" --help | sed -n 's/^\(usage:\)\{0,1\} *rooflint \([a-z][a-z]*\) .*/\2/p'); do
  grep -q "rooflint $cmd" "$T/page" || missing="$missing command:$cmd"
done
# every registered check, from the SARIF rules
"$ROOFLINT" --format sarif examples/seed/precisions.roof 2> /dev/null |
  /usr/bin/python3 -c 'import json, sys
for r in json.load(sys.stdin)["runs"][0]["tool"]["driver"]["rules"][1:]: print(r["id"])' > "$T/checks"
[ -s "$T/checks" ] || fail "no checks from the SARIF rules"
while read -r check; do
  grep -q "^       $check\$" "$T/page" || missing="$missing check:$check"
done < "$T/checks"
# every built-in target
for spec in specs/targets/*.roof; do
  name=$(basename "$spec" .roof)
  grep -q "$name" "$T/page" || missing="$missing target:$name"
done
# every exit status, and the environment
sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$T/page" > "$T/exit"
for st in 0 1 2; do grep -q "^       $st  " "$T/exit" || missing="$missing exit:$st"; done
for var in NO_COLOR ROOFLINT_YYDEBUG; do grep -q "$var" "$T/page" || missing="$missing env:$var"; done
[ -z "$missing" ] || fail "$PAGE lacks:$missing"

# make install puts the page where man finds it; make uninstall removes it.
root=$T/root
${MAKE:-make} -s --no-print-directory BUILD="$BUILD" DESTDIR="$root" PREFIX=/usr install > "$T/install" 2>&1 ||
  fail "make install: $(tail -3 "$T/install")"
[ -f "$root/usr/share/man/man1/rooflint.1" ] || fail "make install: no man1/rooflint.1"
[ -x "$root/usr/bin/rooflint" ] || fail "make install: no bin/rooflint"
cmp -s "$root/usr/share/man/man1/rooflint.1" $PAGE || fail "make install: the page differs"
${MAKE:-make} -s --no-print-directory BUILD="$BUILD" DESTDIR="$root" PREFIX=/usr uninstall > "$T/install" 2>&1 ||
  fail "make uninstall: $(tail -3 "$T/install")"
left=$(find "$root" -type f | head -3)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "output_man: ok"
