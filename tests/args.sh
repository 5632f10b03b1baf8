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

# case_files DIR EXT...: every file under DIR with one of the extensions,
# in byte order of path (paths hold no blanks).
case_files() {
  dir=$1
  shift
  exts=$(printf '%s|' "$@")
  find "$dir" -type f | grep -E "\.(${exts%|})\$" | LC_ALL=C sort
}
