#!/bin/sh
# driver_memory.sh: issue 17 item 13, memory that grew with repetition.
# Each --dtype what-if is analysed in an arena of its own, freed when it is
# printed, and a file's analysis is freed once its output is written (text
# output; the chart and JSON/SARIF need every file to the end).
. "$(dirname "$0")/driver_lib.inc"

# ASan reserves terabytes of address space: no ulimit -v under it.
if ! (ulimit -v 180000; "$ROOFLINT" --version) >/dev/null 2>&1; then
  echo "driver_memory: skipped (ulimit -v not usable)"; exit 0
fi
# 60,001 relu nodes (1.1 MB of text): one --dtype bf16,fp8 run over four
# copies peaked at 196 MB before (every what-if kept to the end of the run)
# and does not fit in 180,000 KB of address space; now 122 MB.
awk 'BEGIN { print "model m {\n  dtype bf16\n  input x : [1024]\n  h = relu(x)";
             for (i = 0; i < 30000; i++) print "  a" i " = relu(h)\n  h = relu(a" i ")";
             print "}" }' >"$T/mid.roof"
what="rooflint -w --dtype bf16,fp8 on 4 copies under ulimit -v 180000"
(ulimit -v 180000; "$ROOFLINT" -w --dtype bf16,fp8 "$T/mid.roof" "$T/mid.roof" "$T/mid.roof" "$T/mid.roof" >"$T/out" 2>"$T/err")
status=$?
expect_status 0
[ "$(grep -c 'what if the plan dtype were' "$T/out")" -ge 4 ] && ok || bad "expected four what-if tables"
finish
