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
#            when rooflint has it), process start included, the best of
#            BENCH_ONNX_REPS runs, for the 768-layer model and for the same
#            graph with 1 GB of embedded weights, judged against its floor:
#            `onnx_dump --walk FILE`, a process that only starts, maps the
#            file, reads it and walks every node, timed the same way in the
#            same run; goal: the lint within 5x its floor (the milliseconds
#            are printed too, but a slower machine slows both alike);
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
  # time_best KIND NAME CMD...: the best wall and CPU time of REPS runs of
  # CMD (a single run on this VM can take a huge-page fault of
  # milliseconds), the peak RSS and the worst exit status; a row
  # "KIND NAME wall cpu status basis rss".
  time_best() {
    kind=$1 name=$2 best_w= best_c= max_r=0 worst=0 i=0
    shift 2
    while [ $i -lt "$REPS" ]; do
      read -r w u s r st <<EOF
$($RU -- "$@")
EOF
      c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
      best_w=$(awk -v a="$w" -v b="${best_w:-$w}" 'BEGIN { print (a < b ? a : b) }')
      best_c=$(awk -v a="$c" -v b="${best_c:-$c}" 'BEGIN { print (a < b ? a : b) }')
      [ "$r" -gt "$max_r" ] && max_r=$r
      [ "$st" -gt "$worst" ] && worst=$st
      i=$((i + 1))
    done
    echo "$kind $name $best_w $best_c $worst ${BENCH_BASIS:-wall} $max_r" >> "$ROWS"
  }
  # Each lint, then its floor, so a change of load between them is short.
  time_best lint 25344 "$BIN" $FLAGS "$f"
  time_best floor 25344 "$DUMP" --walk "$f"
  time_best lint 25344+1GB "$BIN" $FLAGS "$BIG/embedded_1g.onnx"
  time_best floor 25344+1GB "$DUMP" --walk "$BIG/embedded_1g.onnx"
  time_best start - "$BIN" --version
  awk '$1 == "lint" { printf "%s%s %s s (cpu %s s, %d MiB, exit %d)", sep, ($2 == "25344" ? "lint: rooflint FILE.onnx, every check, best of '"$REPS"': 25,344 nodes" : "with 1 GB of weights"), $3, $4, $7 / 1024, $5; sep = "; " }
       END { print "" }' "$ROWS"
  awk '$1 == "floor" { printf "%s%s %s s (cpu %s s)", sep, ($2 == "25344" ? "floor: onnx_dump --walk FILE, best of '"$REPS"': 25,344 nodes" : "with 1 GB of weights"), $3, $4; sep = "; " }
       $1 == "start" { start = sprintf("; rooflint --version %s s (cpu %s s)", $3, $4) }
       END { print start }' "$ROWS"
else
  echo "lint: rooflint FILE.onnx: skipped: no ONNX importer"
fi
rm -rf "$BIG"

echo
echo "ONNX goals:"
awk '
  function verdict(ok, text) { printf "  %-4s %s\n", ok ? "MET" : "MISS", text }
  $1 == "lint" { nl++; what[nl] = $2; lint[nl] = ($6 == "cpu" ? $4 : $3); basis = $6; lint_wall[nl] = $3; lint_cpu[nl] = $4; lint_st[nl] = $5; next }
  $1 == "floor" { floor_t[$2] = ($6 == "cpu" ? $4 : $3); next }
  $1 == "start" { next }
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
    for (i = 1; i <= nl; i++) {
      f = floor_t[what[i]]
      verdict(f > 0 && lint[i] <= 5 * f && lint_st[i] <= 1, sprintf("rooflint FILE.onnx (25,344 nodes%s, every check) within 5x its floor, onnx_dump --walk of the file (%s time): %.2fx; %.1f ms wall, %.1f ms cpu, exit %d; floor %.1f ms",
        what[i] ~ /1GB/ ? ", 1 GB of embedded weights" : "", basis, f > 0 ? lint[i] / f : 0, lint_wall[i] * 1e3, lint_cpu[i] * 1e3, lint_st[i], f * 1e3))
    }
  }' "$ROWS"
exit 0
