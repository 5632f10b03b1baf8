# SPDX-License-Identifier: MIT
# tests/bless.sh: sourced by tests/run.sh for `--bless NAME...` (its header
# says what each kind of case gets).  Uses run.sh's run_case, case_files,
# args_for, $TMP and $ROOFLINT.

# case_named NAME: prints the case NAME names (the file run.sh runs:
# tests/bad/.../STEM.EXT, tests/verify/.../STEM.roof or
# tests/golden/AREA/STEM.EXT), or nothing when it names none or several.
case_named() {
  stem=${1%.*}
  case $1 in *.roof | *.args | *.cmd | *.err | *.out | *.status) ;; *) stem=$1 ;; esac
  case $stem in */*) ;; *) stem="(.*/)?$stem" ;; esac
  found=$(case_files tests roof args cmd |
    grep -E "^(tests/bad/(.*/)?|tests/verify/(.*/)?|tests/golden/[^/]+/)[^/]+\.[a-z]+\$" |
    grep -E "^$stem\.[a-z]+\$" | sed 's/\.[a-z]*$//' | sort -u)
  [ -n "$found" ] && [ "$(printf '%s\n' "$found" | wc -l)" -eq 1 ] || return 0
  # A case with a .roof and an .args (or .cmd) is the .roof's.
  for ext in roof args cmd; do
    [ -f "$found.$ext" ] && { printf '%s\n' "$found.$ext"; return 0; }
  done
}

# bless_bad NAME: NAME.err and NAME.status (kept only when not 1).
bless_bad() {
  run_case "$(args_for "$1.roof" "$1.args")"
  cp "$TMP/err" "$1.err"
  if [ "$status" -eq 1 ]; then rm -f "$1.status"; else echo "$status" >"$1.status"; fi
}

# bless_golden NAME: NAME.out; NAME.err and NAME.status when the case has
# them or they say something (a non-empty stderr, a status other than 0).
bless_golden() {
  if [ -f "$1.cmd" ]; then
    run_case "$(args_for "$1.roof" "$1.cmd")"
  else
    run_case "$(args_for "$1.roof" "$1.args")"
  fi
  cp "$TMP/out" "$1.out"
  if [ -f "$1.err" ] || [ -s "$TMP/err" ]; then cp "$TMP/err" "$1.err"; fi
  if [ -f "$1.status" ] || [ "$status" -ne 0 ]; then echo "$status" >"$1.status"; fi
}

# bless_verify NAME: every `# expect:` comment of NAME.roof removed, then
# one appended per error, warning or remark that a plain run reports on
# that line of the file, in the order reported.
bless_verify() {
  run_case "$(args_for "$1.roof" "$1.args")"
  awk -v path="$1.roof" '
    function quoted(s,    out, i, c) {
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        out = out (c == "\\" || c == "\"" ? "\\" : "") c
      }
      return "\"" out "\""
    }
    FILENAME == ARGV[1] {
      if (index($0, path ":") != 1) next
      rest = substr($0, length(path) + 2)
      if (!match(rest, /^[0-9]+:[0-9]+: (error|warning|remark): /)) next
      line = rest + 0
      head = substr(rest, 1, RLENGTH - 2)
      sev = substr(head, index(head, " ") + 1)
      msg = substr(rest, RLENGTH + 1)
      check = ""
      if (match(msg, / \[-W(error,-W)?[a-z0-9-]+\]$/)) {
        check = substr(msg, RSTART + 1, RLENGTH - 1)
        sub(/^\[-W(error,-W)?/, "[", check)
        msg = substr(msg, 1, RSTART - 1)
      }
      want[line] = want[line] "  # expect: " sev check " " quoted(msg)
      next
    }
    {
      sub(/[ \t]*# expect:.*$/, "")
      print $0 want[FNR]
    }' "$TMP/err" "$1.roof" >"$TMP/blessed"
  cp "$TMP/blessed" "$1.roof"
  run_case "--verify $(args_for "$1.roof" "$1.args")"
  [ "$status" -eq 0 ] || { cat "$TMP/err" >&2; return 1; }
}

# bless_all NAME...: blesses each; exits 1 when a name names no single case
# or a verify case does not verify once blessed.
bless_all() {
  [ $# -gt 0 ] || { echo "usage: tests/run.sh --bless NAME..." >&2; return 2; }
  bless_failed=0
  for arg in "$@"; do
    file=$(case_named "$arg")
    if [ -z "$file" ]; then
      echo "bless: '$arg' names no case, or several" >&2
      bless_failed=1
      continue
    fi
    name=${file%.*}
    case $name in
      tests/bad/*) bless_bad "$name" ;;
      tests/golden/*) bless_golden "$name" ;;
      tests/verify/*) bless_verify "$name" ;;
    esac || bless_failed=1
    echo "blessed $file"
  done
  return $bless_failed
}
