#!/bin/sh
# tests/bench/onnx.sh: the ONNX rows of `make bench` (bench.sh runs it).
# Models from tests/bench/gen_onnx.py (Debian's python3-onnx): the
# transformer export of issue 20 at 1 k to 250 k nodes, weights declared as
# graph inputs, and the 768-layer one (25,344 nodes) again with 1 GB of
# embedded weights, made in a temporary directory and deleted after.
#
#   reader   BUILD/onnx_dump --bench: onnx_read and a walk of every node,
#            in-process, the best CPU time of BENCH_ONNX_REPS (process start
#            and the mmap excluded); us/node must stay flat from 1 k to 250 k
#   RSS      BUILD/onnx_dump --walk under rusage: the peak RSS of reading
#            the 1 GB model must be that of the 2 MB one plus at most
#            128 KiB per embedded tensor: the reader reads each tensor's
#            header (one page, two when it straddles) and skips its bytes,
#            and the kernel maps up to 16 pages around a fault when they
#            are in the page cache (fault-around), so the figure depends
#            on what is cached; nothing grows with the weights' bytes
#   lint     `rooflint FILE.onnx` with every check (and --weights-as-inputs
#            when rooflint has it), process start included, goal <= 50 ms;
#            only when rooflint lists an onnx importer in --help
#            ("skipped: no ONNX importer" otherwise)
# Never fails the build.  BUILD, BIN, DIR, FLAGS (every check), RU and
# BENCH_BASIS (wall or cpu: which time the lint's verdict uses, cpu on a
# busy machine) come from bench.sh when it runs this; alone,
# BUILD=build sh tests/bench/onnx.sh lints with the default checks and
# judges wall time.
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
DIR=${DIR:-$BUILD/bench}
FLAGS=${FLAGS:-}
DUMP=$BUILD/onnx_dump
PY=/usr/bin/python3
REPS=${BENCH_ONNX_REPS:-5}
LAYERS=${BENCH_ONNX_LAYERS:-31 303 768 3031 7576}
mkdir -p "$DIR"
if [ -z "${RU:-}" ]; then
  ${CC:-cc} -std=c11 -O2 -o "$DIR/rusage" tests/bench/rusage.c || { echo "onnx bench: no rusage"; exit 0; }
  RU="$DIR/rusage -t ${BENCH_TIMEOUT:-120}"
fi
echo
if ! "$PY" -c 'import onnx' 2>/dev/null; then
  echo "onnx: skipped: python3-onnx missing (make deps)"; exit 0
fi
if [ ! -x "$DUMP" ]; then echo "onnx: skipped: $DUMP not built"; exit 0; fi

# onnx_gen FILE LAYERS [EMBED_BYTES]: writes the model unless it is there
# (and FILE.gen, what the generator said: nodes, embedded tensors, bytes).
onnx_gen() {
  [ -s "$1" ] && [ -s "$1.gen" ] ||
    "$PY" tests/bench/gen_onnx.py --layers "$2" --embed-bytes "${3:-0}" "$1" >"$1.gen"
}

echo "ONNX reader (onnx_read + a walk of every node, in-process, best CPU time of $REPS; RSS of one --walk run):"
ROWS=$DIR/onnx_rows.txt
: > "$ROWS"
printf '%-16s %8s %7s %9s %8s %8s %8s\n' model nodes "MB in" "read ms" "us/node" "cpu ms" "RSS MiB"
onnx_row() { # name file
  set -- "$1" "$2" $("$DUMP" --bench "$REPS" "$2")
  name=$1; f=$2; nodes=$3; secs=$5
  set -- $($RU -- "$DUMP" --walk "$f")
  rss=$4; cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { print u + s }')
  size=$(wc -c < "$f")
  echo "$name $nodes $size $secs $rss $cpu" >> "$ROWS"
  awk -v n="$name" -v o="$nodes" -v sz="$size" -v t="$secs" -v r="$rss" -v c="$cpu" 'BEGIN {
    printf "%-16s %8d %7.1f %9.3f %8.3f %8.1f %8.1f\n", n, o, sz / 1e6, t * 1e3, t / o * 1e6, c * 1e3, r / 1024 }'
}
for n in $LAYERS; do
  f=$DIR/onnx_transformer_$n.onnx
  onnx_gen "$f" "$n"
  onnx_row "layers=$n" "$f"
done
BIG=$(mktemp -d "${TMPDIR:-/tmp}/rooflint-onnx-bench.XXXXXX") ||
  { echo "onnx bench: cannot make a temporary directory for the 1 GB model; its row is skipped"; exit 0; }
trap 'rm -rf "$BIG"' EXIT INT TERM
onnx_gen "$BIG/embedded_1g.onnx" 768 1000000000
onnx_row "768+1GB" "$BIG/embedded_1g.onnx"
echo "tensors $(awk '{print $3}' "$BIG/embedded_1g.onnx.gen")" >> "$ROWS"

echo
f=$DIR/onnx_transformer_768.onnx
if "$BIN" --help 2>/dev/null | grep -q '^  onnx '; then
  # The export declares its weights as graph inputs: linted as weights.
  "$BIN" --help 2>/dev/null | grep -q -- '--weights-as-inputs' && FLAGS="$FLAGS --weights-as-inputs"
  set -- $($RU -- "$BIN" $FLAGS "$f"); lint_s=$1; lint_cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { print u + s }'); lint_rss=$4; lint_st=$5
  set -- $($RU -- "$BIN" $FLAGS "$BIG/embedded_1g.onnx"); big_s=$1; big_rss=$4; big_st=$5
  echo "lint: rooflint FILE.onnx, every check: 25,344 nodes $lint_s s (cpu $lint_cpu s, $((lint_rss / 1024)) MiB, exit $lint_st); with 1 GB of weights $big_s s ($((big_rss / 1024)) MiB, exit $big_st)"
  echo "lint 25344 $lint_s $lint_cpu $lint_st ${BENCH_BASIS:-wall}" >> "$ROWS"
else
  echo "lint: rooflint FILE.onnx: skipped: no ONNX importer"
fi
rm -rf "$BIG"

echo
echo "ONNX goals:"
awk '
  function verdict(ok, text) { printf "  %-4s %s\n", ok ? "MET" : "MISS", text }
  $1 == "lint" { lint = ($6 == "cpu" ? $4 : $3); basis = $6; lint_wall = $3; lint_cpu = $4; lint_st = $5; next }
  $1 == "tensors" { tensors = $2; next }
  $1 ~ /^layers=/ { if (!lo || $2 < n[lo]) lo = NR; if (!hi || $2 > n[hi]) hi = NR
                    if ($2 >= 5000 && (!mid || $2 < n[mid])) mid = NR }
  { n[NR] = $2; t[NR] = $4; rss[NR] = $5; if ($1 == "layers=768") base = NR; if ($1 == "768+1GB") big = NR }
  END {
    if (mid && hi && hi != mid)
      verdict((t[hi] / n[hi]) / (t[mid] / n[mid]) <= 1.5, sprintf("reader time/node flat: %.3f us at %d nodes, %.3f us at %d (%.2fx)",
        t[mid] / n[mid] * 1e6, n[mid], t[hi] / n[hi] * 1e6, n[hi], (t[hi] / n[hi]) / (t[mid] / n[mid])))
    if (lo && mid && lo != mid)
      printf "       from %d nodes: %.3f us/node\n", n[lo], t[lo] / n[lo] * 1e6
    if (base && big)
      verdict(rss[big] <= rss[base] + 128 * tensors, sprintf("peak memory independent of the weight bytes: %.1f MiB with 1 GB in %d tensors, %.1f MiB without (%.1f KiB more per tensor; at most 128)",
        rss[big] / 1024, tensors, rss[base] / 1024, tensors ? (rss[big] - rss[base]) / tensors : 0))
    if (lint != "")
      verdict(lint <= 0.050 && lint_st <= 1, sprintf("rooflint FILE.onnx (25,344 nodes, every check) in <= 50 ms (%s time): %.1f ms wall, %.1f ms cpu, exit %d", basis, lint_wall * 1e3, lint_cpu * 1e3, lint_st))
  }' "$ROWS"
exit 0
