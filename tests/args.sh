# tests/args.sh: sourced by tests/run.sh and tests/fuzz/valgrind.sh.
# args_for FILE.roof ARGSFILE: the argument line of ARGSFILE with the word
# FILE replaced by the .roof path; just the path when there is no ARGSFILE.
args_for() {
  if [ -f "$2" ]; then
    awk -v p="$1" '{ for (i = 1; i <= NF; i++) if ($i == "FILE") $i = p; print; exit }' "$2"
  else
    printf '%s\n' "$1"
  fi
}
