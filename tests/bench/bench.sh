#!/bin/sh
# bench.sh: `make bench`.  Generates synthetic models with gen.sh, lints
# each (parse, sema, cost, every check, the diagnostics and the summary
# line) under tests/bench/rusage.c, then times the outputs (--report,
# --format json, --format sarif) on two of them against the lint, and
# prints a table and a verdict per goal; then the ONNX rows
# (tests/bench/onnx.sh).  It never fails the build: a
# missed goal is reported, not fatal.
#
#   BUILD=build            where rooflint is (and where the inputs go)
#   BENCH_LAYERS="..."     transformer sizes in layers (16 ops each)
#   BENCH_REPS=3           runs per size under 100,000 ops, 2 above (the
#                          minimum time is kept)
#   BENCH_TIMEOUT=120      seconds before one run is killed (exit 124)
#   BENCH_OUTPUTS="..."    transformer sizes (layers) the outputs are timed on
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
CC=${CC:-cc}
DIR=$BUILD/bench
GEN="sh tests/bench/gen.sh"
LAYERS=${BENCH_LAYERS:-10 100 625 6250 31250 93750}
CHAINS=${BENCH_CHAINS:-10000 100000 1000000}
REPS=${BENCH_REPS:-3}
OUT_LAYERS=${BENCH_OUTPUTS:-6250 31250}
# Every check, the default ones and those off by default.
FLAGS=${BENCH_FLAGS:-}
mkdir -p "$DIR"
if [ ! -x "$BIN" ]; then
  echo "bench: $BIN not built (run make)"; exit 0
fi
if ! $CC -std=c11 -O2 -o "$DIR/rusage" tests/bench/rusage.c; then
  echo "bench: cannot build tests/bench/rusage.c"; exit 0
fi
if ! $CC -std=c11 -O2 -o "$DIR/walk" tests/bench/walk.c; then
  echo "bench: cannot build tests/bench/walk.c"; exit 0
fi
RU="$DIR/rusage -t ${BENCH_TIMEOUT:-120}"
# The checks of specs/language.md section 15; each one the binary knows is enabled.
for c in stray-fp32 unfused-elementwise memory-bound low-occupancy wave-tail \
         transfer-in-loop cross-node capacity overhead-bound tc-alignment; do
  $BIN --explain "$c" > /dev/null 2>&1 && FLAGS="$FLAGS -W $c"
done

# best N CMD...: runs CMD N times; prints "min_wall max_rss_kib status
# min_cpu" (status: of a run that did not exit 0 or 1 if any; cpu: user +
# system seconds, which a busy shared machine inflates less than wall).
best() {
  n=$1; shift
  i=0; out=""
  while [ $i -lt "$n" ]; do
    out="$out$($RU -- "$@")
"
    i=$((i + 1))
  done
  printf '%s' "$out" | awk '
    NR == 1 || $1 < w { w = $1 }
    NR == 1 || $2 + $3 < c { c = $2 + $3 }
    $4 > r { r = $4 }
    { if ($5 > 1 || s == "") s = $5 }
    END { printf "%.6f %d %d %.6f\n", w, r, s, c }'
}

# gen FILE KIND ARGS...: writes the model unless it is there; prints its ops.
gen() {
  f=$1; shift
  if [ ! -s "$f" ] || [ ! -s "$f.ops" ]; then
    $GEN "$@" > "$f" 2> "$f.ops.tmp" && awk '{print $2}' "$f.ops.tmp" > "$f.ops"
    rm -f "$f.ops.tmp"
  fi
  cat "$f.ops"
}

# Big models run twice too: on a virtual machine the kernel's cost of
# first-touching memory varies by a factor of three from run to run.
reps_for() { if [ "$1" -ge 100000 ]; then echo 2; else echo "$REPS"; fi; }

echo "rooflint bench: $(uname -m), $(nproc 2>/dev/null || echo '?') cores, $(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ *//')"
echo "command: $BIN $FLAGS FILE > /dev/null 2> /dev/null"
echo
ROWS=$DIR/rows.txt
: > "$ROWS"
printf '%-14s %8s %6s %8s %8s %7s %9s %8s %6s %7s %7s %6s %4s\n' \
  model ops "MB in" "wall s" "cpu s" "us/op" "ops/s" "RSS MiB" "B/op" "cat s" "wc s" "x cat" exit
row() { # name file ops
  name=$1; f=$2; ops=$3
  r=$(reps_for "$ops")
  set -- $(best "$r" $BIN $FLAGS "$f")
  wall=$1; rss=$2; st=$3; cpu=$4
  set -- $(best "$r" cat "$f"); cat_s=$1
  set -- $(best "$r" wc -l "$f"); wc_s=$1
  size=$(wc -c < "$f")
  echo "$name $ops $size $wall $rss $cat_s $wc_s $st $cpu" >> "$ROWS"
  awk -v n="$name" -v o="$ops" -v sz="$size" -v w="$wall" -v r="$rss" -v c="$cat_s" -v wc="$wc_s" -v st="$st" -v cpu="$cpu" 'BEGIN {
    printf "%-14s %8d %6.1f %8.3f %8.3f %7.3f %9.0f %8.1f %6.0f %7.4f %7.4f %6.1f %4s\n",
      n, o, sz / 1e6, w, cpu, w / o * 1e6, o / w, r / 1024, r * 1024 / o, c, wc, (c > 0 ? w / c : 0), st }'
}

big_layers=0
for n in $LAYERS; do
  f=$DIR/transformer_$n.roof
  ops=$(gen "$f" transformer "$n")
  row "layers=$n" "$f" "$ops"
  [ "$n" -gt "$big_layers" ] && big_layers=$n
done
# The floor under the largest lint: tests/bench/walk.c reads the same
# file and cuts it into the scanner's tokens, hashing the names, in a
# process of its own, timed the same way right after it.
set -- $(best "$REPS" "$DIR/walk" "$DIR/transformer_$big_layers.roof")
walk_wall=$1; walk_cpu=$4
for l in $CHAINS; do
  f=$DIR/chain_$l.roof
  ops=$(gen "$f" chain "$l")
  row "chain=$l" "$f" "$ops"
done
f=$DIR/wide.roof; ops=$(gen "$f" wide 1000 100); row "wide=1000x100" "$f" "$ops"
f=$DIR/deep.roof; ops=$(gen "$f" deep 100000 1000); row "deep=100000" "$f" "$ops"
f=$DIR/repeat_1.roof; ops=$(gen "$f" repeat 1); row "repeat=1" "$f" "$ops"
f=$DIR/repeat_1e9.roof; ops=$(gen "$f" repeat 1000000000); row "repeat=1e9" "$f" "$ops"

# Pre-commit latency: a 496-op model, process start included, best of 20.
f=$DIR/transformer_31.roof; ops=$(gen "$f" transformer 31)
set -- $(best 20 $BIN $FLAGS "$f"); small_wall=$1; small_st=$3; small_cpu=$4
echo
# The floor under it: starting any process at all on this machine.
set -- $(best 20 /bin/true); true_wall=$1; true_cpu=$4
set -- $(best 20 $BIN --version); version_wall=$1
echo "small ($ops ops, best of 20): wall $small_wall s, cpu $small_cpu s, exit $small_st"
echo "floor (walk of transformer_$big_layers.roof: read and tokenise, best of $REPS): wall $walk_wall s, cpu $walk_cpu s"
echo "process start (best of 20): /bin/true $true_wall s, rooflint --version $version_wall s"
# repeat 1 against repeat 10^9, best of 20 each.
set -- $(best 20 $BIN $FLAGS "$DIR/repeat_1.roof"); r1=$1; r1c=$4
set -- $(best 20 $BIN $FLAGS "$DIR/repeat_1e9.roof"); r9=$1; r9c=$4
echo "repeat 1: wall $r1 s, cpu $r1c s; repeat 1000000000: wall $r9 s, cpu $r9c s (best of 20)"

# The outputs, each against the lint of the same model (stdout to
# /dev/null; the best of two runs).
echo
echo "outputs against the lint (every check, stdout to /dev/null, best of 2):"
OUTS=$DIR/outputs.txt
: > "$OUTS"
printf '%-14s %8s %-14s %8s %8s %8s %8s %8s %4s\n' \
  model ops output "wall s" "cpu s" "RSS MiB" "x time" "x RSS" exit
for n in $OUT_LAYERS; do
  f=$DIR/transformer_$n.roof
  ops=$(gen "$f" transformer "$n")
  set -- $(best 2 $BIN $FLAGS "$f"); lw=$1; lr=$2; lc=$4
  for mode in lint --report "--format json" "--format sarif"; do
    if [ "$mode" = lint ]; then w=$lw; r=$lr; st=0; c=$lc
    else set -- $(best 2 $BIN $FLAGS $mode "$f"); w=$1; r=$2; st=$3; c=$4; fi
    echo "$n $ops $mode|$w $r $st $c $lw $lr $lc" >> "$OUTS"
    awk -v n="layers=$n" -v o="$ops" -v m="$mode" -v w="$w" -v r="$r" -v st="$st" -v c="$c" -v lw="$lw" -v lr="$lr" -v lc="$lc" -v basis="${BENCH_BASIS:-}" 'BEGIN {
      printf "%-14s %8d %-14s %8.3f %8.3f %8.1f %8.2f %8.2f %4s\n",
        n, o, m, w, c, r / 1024, (lc > 0 ? c / lc : 0), (lr > 0 ? r / lr : 0), st }'
  done
done

# On a machine busy with other work wall time measures the others; the
# verdicts then use CPU time (user + system), which is what one idle core
# would take.  BENCH_BASIS=wall|cpu forces one.
load=$(awk '{print $1}' /proc/loadavg 2>/dev/null || echo 0)
basis=${BENCH_BASIS:-$(awk -v l="$load" 'BEGIN { print (l > 1.0 ? "cpu" : "wall") }')}
echo
echo "goals (judged on $basis time; load average $load):"
awk -v basis="$basis" -v ww="$walk_wall" -v wc="$walk_cpu" -v tw="$true_wall" -v tc="$true_cpu" -v sw="$small_wall" -v sc="$small_cpu" -v r1w="$r1" -v r1c="$r1c" -v r9w="$r9" -v r9c="$r9c" '
  function verdict(ok, text) { printf "  %-4s %s\n", ok ? "MET" : "MISS", text }
  {
    name[NR] = $1; ops[NR] = $2; t[NR] = (basis == "cpu" ? $9 : $4); rss[NR] = $5; st[NR] = $8
    if ($8 == 124) t[NR] = 1e9  # killed at the time limit: no time to compare
    if ($1 ~ /^layers=/) { if (!big || $2 > ops[big]) big = NR; if ($2 == 10000) ref = NR
                           if (!small_i || $2 < ops[small_i]) small_i = NR }
    if ($1 ~ /^chain=/) { if (!cbig || $2 > ops[cbig]) cbig = NR; if (!csmall || $2 < ops[csmall]) csmall = NR }
    if ($8 > 1) crashed = crashed " " $1 "(" ($8 == 124 ? "killed at the time limit" : "exit " $8) ")"
  }
  END {
    small = (basis == "cpu" ? sc : sw); r1 = (basis == "cpu" ? r1c : r1w); r9 = (basis == "cpu" ? r9c : r9w)
    if (crashed != "") printf "  FAIL runs that did not exit 0 or 1:%s\n", crashed
    # The 1.5 M-op goal (1.5 s with every check) was set on the 2-core VM
    # of the table in README (Performance), where the lint took 0.78 s
    # idle and, measured there under load, 3.9 to 4.8x the walk of the
    # same file: 1.5 s is about 8x the walk there.  So the verdict is 8x
    # the floor measured in this run on the same basis, which a slower or
    # busier machine slows alike; the seconds are printed as information.
    if (big) {
      bpo = rss[big] * 1024 / ops[big]
      floor = (basis == "cpu" ? wc : ww)
      verdict(floor > 0 && t[big] <= 8 * floor && bpo <= 400 && st[big] <= 1,
        sprintf("%d ops with every check within 8x the floor (the walk of the same file, %.3f s) and <= 400 B/op: %s, %.0f B/op%s", ops[big], floor,
          st[big] == 124 ? "killed at the time limit" : sprintf("%.2fx, %.3f s", (floor > 0 ? t[big] / floor : 0), t[big]), bpo,
          st[big] == 124 ? " (at the kill)" : ""))
    }
    if (big && ref && big != ref) {
      g = (t[big] / ops[big]) / (t[ref] / ops[ref])
      verdict(g <= 1.5, sprintf("time/op at %d ops within 1.5x of time/op at %d ops: %s", ops[big], ops[ref],
        st[big] == 124 ? "the larger run was killed at the time limit" : sprintf("%.2fx", g)))
    }
    if (big && small_i && st[big] != 124)
      printf "       growth of time/op from %d to %d ops: %.2fx (process start dominates the small end)\n",
        ops[small_i], ops[big], (t[big] / ops[big]) / (t[small_i] / ops[small_i])
    verdict(r9 <= r1 * 1.10 + 0.001, sprintf("repeat 1000000000 as fast as repeat 1: %.4f s vs %.4f s", r9, r1))
    # The 5 ms goal holds a process start of about 1 ms; judged against the
    # start measured here (the same basis), so a loaded or slower machine
    # does not fail it for its own process start.
    floor = (basis == "cpu" ? tc : tw)
    verdict(small - floor < 0.004, sprintf("a ~500-op model in < 5 ms, process start included: %.2f ms, %.2f ms over /bin/true (%.2f ms here), at most 4 ms over it", small * 1000, (small - floor) * 1000, floor * 1000))
    if (cbig && csmall) {
      g = (t[cbig] / ops[cbig]) / (t[csmall] / ops[csmall])
      verdict(g <= 1.5, sprintf("unfused-chain check linear: time/op at chain %d is %.2fx that at chain %d", ops[cbig], g, ops[csmall]))
    }
  }' "$ROWS"
# --format json against the lint of the same model: memory within 10%,
# time within 2x (on the basis above).
awk -F'|' -v basis="$basis" '
  function verdict(ok, text) { printf "  %-4s %s\n", ok ? "MET" : "MISS", text }
  {
    split($1, h, " "); split($2, v, " ")
    if (h[3] " " h[4] != "--format json") next
    t = (basis == "cpu" ? v[4] : v[1]); lt = (basis == "cpu" ? v[7] : v[5])
    verdict(v[2] <= v[6] * 1.10 && t <= lt * 2 && v[3] <= 1,
      sprintf("--format json on %d ops within 10%% of the lint'"'"'s memory and 2x its time: %.2fx memory, %.2fx time",
        h[2], v[2] / v[6], t / lt))
  }' "$OUTS"
# The language server (tests/bench/lsp_bench.py): a change to a 2,010-line
# model (100 layers) until its diagnostics, against a plain lint of the
# same text, and the server's memory over BENCH_LSP_EDITS edits.
echo
echo "language server (rooflint lsp):"
f=$DIR/transformer_100.roof; gen "$f" transformer 100 > /dev/null
# shellcheck disable=SC2086
/usr/bin/python3 tests/bench/lsp_bench.py "$BIN" "$f" "${BENCH_LSP_EDITS:-10000}" $FLAGS ||
  echo "  MISS lsp: tests/bench/lsp_bench.py failed"
# The ONNX reader and `rooflint FILE.onnx` (their own table and goals).
BUILD=$BUILD BIN=$BIN DIR=$DIR FLAGS=$FLAGS RU=$RU BENCH_BASIS=$basis sh tests/bench/onnx.sh
exit 0
