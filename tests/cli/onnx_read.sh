#!/bin/sh
# onnx_read.sh: the ONNX reader (src/import/onnx_read.c) on the fixtures of
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

# 100 MB of weights (two layers of hidden 1024, fp32, 32 tensors embedded
# as raw_data) against the same graph with its weights as graph inputs.
# The reader maps the file and skips each payload by its length: it
# touches each tensor's header page, not its 24,414 pages of bytes.  Peak
# RSS depends on the page cache (the kernel maps up to 16 cached pages
# around each fault), so the test counts page faults: at most 4 more per
# embedded tensor than without the weights (measured: under 2; reading
# the payloads would take over 1,500 even 16 pages at a time), and peak
# RSS under a quarter of the file (ASan builds included).
if [ $have_onnx = yes ]; then
  what="gen_onnx.py --embed-bytes 100000000"
  "$PY" tests/bench/gen_onnx.py --layers 2 --embed-bytes 100000000 "$T/big.onnx" >"$T/out" 2>"$T/err"
  status=$?
  expect_status 0
  expect_out "66 nodes, 32 embedded tensors, 100778951 bytes"
  "$PY" tests/bench/gen_onnx.py --layers 2 "$T/small.onnx" >"$T/out" 2>"$T/err"
  size=$(wc -c <"$T/big.onnx")
  # faults FILE: "FAULTS MAXRSS_KIB" of one onnx_dump --walk FILE
  faults() {
    "$PY" -c 'import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_minflt + r.ru_majflt, r.ru_maxrss, p.returncode, p.stdout.decode().strip().replace(" ", "_"))' \
      "$DUMP" --walk "$1"
  }
  what="onnx_dump --walk small.onnx"
  set -- $(faults "$T/small.onnx")
  small_faults=$1 small_rss=$2 status=$3
  expect_status 0
  [ "$4" = 66_nodes ] && ok || bad "printed $4"
  what="onnx_dump --walk big.onnx"
  set -- $(faults "$T/big.onnx")
  big_faults=$1 big_rss=$2 status=$3
  expect_status 0
  [ "$4" = 66_nodes ] && ok || bad "printed $4"
  [ "$big_faults" -le $((small_faults + 4 * 32)) ] && ok ||
    bad "$big_faults page faults with 100 MB of weights, $small_faults without"
  # against the same walk without weights, so that a build's own baseline
  # (a sanitizer's shadow memory) is not counted as the weights'
  [ $((big_rss - small_rss)) -lt $((size / 1024 / 4)) ] && ok ||
    bad "peak RSS $big_rss KiB for a file of $size bytes, $small_rss KiB without its weights"
else
  echo "onnx_read: python3-onnx missing (make deps): no cross-check, no 100 MB model"
fi
finish
