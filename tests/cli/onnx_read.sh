#!/bin/sh
# onnx_read.sh: the ONNX reader (src/onnx_read.c) on the fixtures of
# tests/onnx/gen_wire.py, through tests/onnx/onnx_dump.c:
#   - (R-WIRE-001, R-WIRE-002: IR 3..10, opsets 7..21) each
#     tests/onnx/wire/NAME.onnx reads to exactly NAME.dump, which
#     python3-onnx's onnx.load printed (tests/onnx/dump.py); and where
#     Debian's python3-onnx is installed, dump.py prints NAME.dump today
#     (the cross-check of the two readers);
#   - (R-WIRE-007) each damaged file of wire/bad/ is refused, exit 1, with
#     exactly the message of its NAME.err (byte offset and field);
#   - (R-WIRE-006) a model with 100 MB of embedded weights (made here, in a
#     temporary directory) is read with a peak RSS far below its size.
. "$(dirname "$0")/driver_lib.inc"
DUMP=$BUILD/onnx_dump
PY=/usr/bin/python3
have_onnx=no
"$PY" -c 'import onnx' 2>/dev/null && have_onnx=yes

for f in tests/onnx/wire/*.onnx; do
  name=${f%.onnx}
  what="onnx_dump $f"
  "$DUMP" "$f" >"$T/out" 2>"$T/err"
  status=$?
  expect_status 0
  if cmp -s "$name.dump" "$T/out"; then ok; else bad "differs from $name.dump"; diff -u "$name.dump" "$T/out" | head -n 10; fi
  if [ $have_onnx = yes ]; then
    what="dump.py $f"
    "$PY" tests/onnx/dump.py "$f" >"$T/py" 2>"$T/err"
    if cmp -s "$name.dump" "$T/py"; then ok; else bad "python3-onnx differs from $name.dump"; diff -u "$name.dump" "$T/py" | head -n 10; fi
  fi
done

what="onnx_dump tests/onnx/wire/bad/tiny_good.onnx"
"$DUMP" tests/onnx/wire/bad/tiny_good.onnx >"$T/out" 2>"$T/err"
status=$?
expect_status 0
for f in tests/onnx/wire/bad/*.err; do
  onnx=${f%.err}.onnx
  what="onnx_dump $onnx"
  "$DUMP" "$onnx" >"$T/out" 2>"$T/err"
  status=$?
  expect_status 1
  if cmp -s "$f" "$T/err"; then ok; else bad "stderr differs from $f"; diff -u "$f" "$T/err" | head -n 5; fi
  expect_empty "$T/out"
done

# 100 MB of weights (two layers of hidden 1024, fp32, embedded as raw_data):
# the reader maps the file and skips each payload by its length, so its
# peak RSS is what the graph costs (about 5 MB here) and
# stays under a tenth of the file.
if [ $have_onnx = yes ]; then
  what="gen_onnx.py --embed 100 MB"
  "$PY" tests/bench/gen_onnx.py --layers 2 --hidden 1024 --embed-bytes 100000000 "$T/big.onnx" >"$T/gen" 2>"$T/err"
  status=$?
  expect_status 0
  size=$(wc -c <"$T/big.onnx")
  [ "$size" -ge 100000000 ] && ok || bad "the model is $size bytes, not 100 MB"
  ${CC:-cc} -std=c11 -O2 -o "$T/rusage" tests/bench/rusage.c || bad "cannot build rusage"
  what="onnx_dump --walk big.onnx"
  set -- $("$T/rusage" -o "$T/out" -e "$T/err" -- "$DUMP" --walk "$T/big.onnx")
  status=$5
  expect_status 0
  expect_out "66 nodes"
  [ "$4" -lt $((size / 1024 / 10)) ] && ok || bad "peak RSS $4 KiB for a file of $size bytes"
else
  echo "onnx_read: python3-onnx missing (make deps): no cross-check, no 100 MB model"
fi
finish
