#!/bin/sh
# driver_overwrite.sh: no output is ever written over an input (R-CLI-010),
# and `--plot -` is the chart on standard output.  Each refusal is exit 2
# before anything is analysed, and the input is left byte for byte as it was.
. "$(dirname "$0")/driver_lib.inc"

cp examples/llama2_7b_decode.roof "$T/a.roof"
cp examples/llama2_7b_decode.roof "$T/b.roof"
cp "$T/a.roof" "$T/a.orig"
unchanged() {
  if cmp -s "$T/a.orig" "$T/a.roof"; then ok; else bad "a.roof was overwritten"; fi
}

# The reported case: the .svg name forgotten, so --plot takes a.roof.
run -w --plot "$T/a.roof" "$T/b.roof"
expect_status 2
expect_err "rooflint: error: refusing to write the --plot chart over '$T/a.roof', a .roof file (--plot takes FILE.svg, or '-' for standard output)"
expect_empty "$T/out"
unchanged

# A .roof name is refused even when it is no input and does not exist.
run -w --plot "$T/new.roof" "$T/b.roof"
expect_status 2
if [ -e "$T/new.roof" ]; then bad "new.roof was created"; else ok; fi

# Same file under another name: a hard link, a symbolic link, a ./ path
# (compared by device and inode, not by name).
ln "$T/a.roof" "$T/hard.svg"
run -w --plot "$T/hard.svg" "$T/b.roof" "$T/a.roof"
expect_status 2
expect_err "rooflint: error: input file '$T/a.roof' is the same as output file '$T/hard.svg'"
unchanged
ln -s a.roof "$T/soft.svg"
run -w --plot "$T/soft.svg" "$T/./a.roof"
expect_status 2
expect_err "rooflint: error: input file '$T/./a.roof' is the same as output file '$T/soft.svg'"
unchanged

# A -t FILE is an input too.
cat >"$T/gpu.target" <<'ROOF'
target gpu { memory_bw = 1 TB/s; fp32 = 10 TFLOP/s }
ROOF
run -w -t "$T/gpu.target" --plot "$T/gpu.target" "$T/b.roof"
expect_status 2
expect_err "rooflint: error: input file '$T/gpu.target' is the same as output file '$T/gpu.target'"

# Standard output appended to an input (`>> a.roof`), for the lint and diff.
what="rooflint -w a.roof >> a.roof"
"$ROOFLINT" -w "$T/a.roof" >>"$T/a.roof" 2>"$T/err"
status=$?
expect_status 2
expect_err "rooflint: error: input file '$T/a.roof' is the same as output file '<stdout>'"
unchanged
what="rooflint diff b.roof a.roof >> a.roof"
"$ROOFLINT" diff "$T/b.roof" "$T/a.roof" >>"$T/a.roof" 2>"$T/err"
status=$?
expect_status 2
expect_err "rooflint: error: input file '$T/a.roof' is the same as output file '<stdout>'"
unchanged
what="rooflint - < a.roof >> a.roof"
"$ROOFLINT" -w - <"$T/a.roof" >>"$T/a.roof" 2>"$T/err"
status=$?
expect_status 2
expect_err "rooflint: error: input file '<stdin>' is the same as output file '<stdout>'"
unchanged

# A chart over a file that is no input is fine.
run -w --plot "$T/c.svg" "$T/a.roof"
expect_status 0
expect_grep "$T/c.svg" '<svg xmlns="http://www.w3.org/2000/svg"'

# --plot -: the SVG on standard output, instead of the summary; no file '-'.
abs=$(cd "$(dirname "$ROOFLINT")" && pwd)/$(basename "$ROOFLINT")
(cd "$T" && "$abs" -w --plot - a.roof >"$T/out" 2>"$T/err")
status=$?
what="rooflint -w --plot - a.roof"
expect_status 0
expect_empty "$T/err"
if [ -e "$T/-" ]; then bad "a file named '-' was created"; else ok; fi
(cd "$T" && "$abs" -w --plot d.svg a.roof >/dev/null 2>&1)
if cmp -s "$T/out" "$T/d.svg"; then ok; else bad "--plot - differs from --plot d.svg"; fi
# It has standard output to itself.
run --plot - --report "$T/a.roof"
expect_status 2
expect_err "rooflint: error: --plot - cannot be combined with --report"
run --plot - --format json "$T/a.roof"
expect_status 2
expect_err "rooflint: error: --plot - cannot be combined with --format json"

finish
