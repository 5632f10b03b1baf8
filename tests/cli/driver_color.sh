#!/bin/sh
# driver_color.sh: --color always|never|auto and NO_COLOR (R-CLI-007).
. "$(dirname "$0")/driver_lib.inc"
esc=$(printf '\033')

run --color always "$T/missing.roof"
expect_status 2
expect_grep "$T/err" "${esc}[1;31merror: "
run --color=never "$T/missing.roof"
expect_no_grep "$T/err" "$esc"
# not a terminal: auto means no colour
run --color auto "$T/missing.roof"
expect_no_grep "$T/err" "$esc"
NO_COLOR=1 run --color always "$T/missing.roof"
expect_grep "$T/err" "$esc"

# On a terminal (script(1) gives a pty): colour unless NO_COLOR is set.
if script -qec true /dev/null >/dev/null 2>&1; then
  what="auto on a terminal"
  script -qec "'$ROOFLINT' '$T/missing.roof'" /dev/null >"$T/tty" 2>&1 </dev/null
  expect_grep "$T/tty" "$esc"
  what="auto on a terminal with NO_COLOR=1"
  NO_COLOR=1 script -qec "'$ROOFLINT' '$T/missing.roof'" /dev/null >"$T/tty" 2>&1 </dev/null
  expect_grep "$T/tty" "cannot open"
  expect_no_grep "$T/tty" "$esc"
  what="auto on a terminal with NO_COLOR empty"
  NO_COLOR= script -qec "'$ROOFLINT' '$T/missing.roof'" /dev/null >"$T/tty" 2>&1 </dev/null
  expect_grep "$T/tty" "$esc"
fi

finish
