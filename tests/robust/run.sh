#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/robust/run.sh: `make robust`, the hostile-input corpus (issue 17).
#
#   BUILD=build sh tests/robust/run.sh
#
# Every input, tests/robust/*.roof (small, committed), the big ones
# tests/robust/gen.py writes at run time and the importers' (ONNX models
# and Hugging Face configs, issue 28) that tests/robust/import_gen.py
# writes, runs in every mode issue 17
# names: lint, --report, --format json, --format sarif, --plot, --dump ast,
# --plan, --dtype (three what-ifs), --sweep of 100 values of the file's
# first let, and diff of the file against itself.  NAME.args adds
# arguments (a -t target file).  Each run is limited with ulimit:
# CPU seconds (2 for an input under 1 MiB, 20 above; 5x that in a
# sanitizer build), 1 GiB of address space (not under ASan, which reserves
# terabytes), 1 GiB of output, and a wall-clock timeout as a backstop.  A
# run fails when it is killed by a limit or a signal, runs out of memory,
# leaves a sanitizer report, or exits other than 0, 1 or 2.
#   BUILD=build-asan sh tests/robust/run.sh   runs it on `make asan`'s build
#
# tests/robust/KNOWN_FAILING lists "NAME MODE..." lines (MODE may be *) that
# wait for fixes elsewhere: they are reported as xfail, not failures, and
# one that passes is reported as XPASS so it can be taken off the list.
# Ends with "N passed, M failed" (and the xfail/xpass counts, and the
# slowest five runs); exits 1 if any failed.
set -u
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/rooflint}
DIR=tests/robust
W=$BUILD/robust
KNOWN=$DIR/KNOWN_FAILING
rm -rf "$W"
mkdir -p "$W/gen" "$W/out" || exit 2
[ -x "$BIN" ] || { echo "robust: $BIN not built"; exit 2; }
python3 "$DIR/gen.py" "$W/gen" || { echo "robust: gen.py failed"; exit 2; }
python3 "$DIR/import_gen.py" "$W/gen" || { echo "robust: import_gen.py failed"; exit 2; }

MEM_KB=1048576
VLIMIT="ulimit -v $MEM_KB"
# (in a shell of its own, whose "Aborted" for ASan's refusal is not shown)
sh -c 'ulimit -v "$1" && exec "$2" --version' sh "$MEM_KB" "$BIN" > /dev/null 2>&1 ||
  VLIMIT=":"
# ASan's slowdown grows with allocation churn (fresh shadow pages, the
# quarantine): up to an order of magnitude on the many-analysis sweeps and
# diffs here, so its CPU limits are 10x the goal's; the release and UBSan
# runs hold the goals themselves.
SLOW=1
if [ "$VLIMIT" = ":" ]; then
  SLOW=10
  echo "robust: a sanitizer build: no address-space limit, CPU limits x$SLOW"
fi

# CPU time and peak memory of each run, for the worst-five tables below
# (issue 28: no input under 1 MiB over 2 s or 1 GiB in any mode).
RUSAGE=""
[ -x /usr/bin/time ] && RUSAGE="/usr/bin/time -f %U_%S_%M -o $W/out/rusage"

passed=0 failed=0 xfail=0 xpass=0
: > "$W/times"
: > "$W/usage"

known() { # NAME MODE: listed in KNOWN_FAILING?
  [ -f "$KNOWN" ] || return 1
  sed 's/#.*//' "$KNOWN" | awk -v n="$1" -v m="$2" \
    '$1 == n { for (i = 2; i <= NF; i++) if ($i == m || $i == "*") found = 1 }
     END { exit !found }'
}

HUNDRED=$(seq -s, 1 100)
MODES="lint report json sarif plot dump plan dtype sweep diff"

args_of() { # MODE FILE: the mode's arguments (the file last)
  case $1 in
    lint) echo "" ;;
    report) echo "--report" ;;
    json) echo "--format json" ;;
    sarif) echo "--format sarif" ;;
    plot) echo "--plot $W/out/chart.svg" ;;
    dump) echo "--dump ast" ;;
    plan) echo "--plan" ;;
    dtype) echo "--dtype bf16,fp8,int4" ;;
    sweep) # the first let of the file (B when it has none: an error, exit 2)
      l=$(sed -n 's/^[[:space:]]*let[[:space:]]\{1,\}\([A-Za-z_][A-Za-z_0-9]*\).*/\1/p' "$2" |
          head -n 1)
      echo "--sweep ${l:-B}=$HUNDRED" ;;
    diff) echo "diff $2" ;;
  esac
  echo "$2"
}

for f in "$DIR"/*.roof "$W"/gen/*.roof "$W"/gen/*.onnx "$W"/gen/*.json; do
  [ -f "$f" ] || continue
  name=$(basename "$f"); name=${name%.*}
  extra=""
  [ -f "$DIR/$name.args" ] && extra=$(cat "$DIR/$name.args")
  size=$(wc -c < "$f")
  cpu=$((2 * SLOW))
  [ "$size" -ge 1048576 ] && cpu=$((20 * SLOW))
  for mode in $MODES; do
    # shellcheck disable=SC2046
    start=$(date +%s%N)
    ( ulimit -t $cpu; $VLIMIT; ulimit -f 2097152
      exec $RUSAGE timeout $((cpu * 10)) "$BIN" $extra $(args_of $mode "$f") \
        > "$W/out/stdout" 2> "$W/out/stderr" < /dev/null )
    st=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    echo "$ms $name $mode" >> "$W/times"
    # (GNU time puts "Command exited with non-zero status N" before it)
    if [ -s "$W/out/rusage" ]; then
      tail -n 1 "$W/out/rusage" | awk -F_ -v n="$name" -v m="$mode" -v z="$size" \
        '{ printf "%d %d %s %s %d\n", ($1 + $2) * 1000, $3, n, m, z }' >> "$W/usage"
    fi
    why=""
    if [ $st -gt 2 ]; then
      case $st in
        124) why="timed out (wall clock)" ;;
        137|152) why="killed past the CPU limit of $cpu s" ;;
        153) why="output limit of 1 GiB (SIGXFSZ)" ;;
        *) why="exit $st$( [ $st -gt 128 ] && echo " (signal $((st - 128)))")" ;;
      esac
    elif grep -q 'out of memory' "$W/out/stderr"; then
      why="out of memory (limit 1 GiB)"
    elif grep -qE 'ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error: ' "$W/out/stderr"; then
      why="a sanitizer report" # ASan exits 1 after one
    fi
    if [ -z "$why" ]; then
      if known "$name" "$mode"; then
        xpass=$((xpass + 1)); echo "[XPASS] $name $mode (take it off KNOWN_FAILING)"
      else
        passed=$((passed + 1))
      fi
    elif known "$name" "$mode"; then
      xfail=$((xfail + 1)); echo "[xfail] $name $mode: $why"
    else
      failed=$((failed + 1)); echo "[FAIL] $name $mode: $why, $ms ms"
      tail -n 3 "$W/out/stderr" | cut -c1-200 | sed 's/^/    /'
    fi
    rm -f "$W/out/stdout" "$W/out/stderr" "$W/out/chart.svg" "$W/out/rusage"
  done
done
echo "slowest runs (wall ms, input, mode):"
sort -rn "$W/times" | head -n 5 | sed 's/^/  /'
if [ -s "$W/usage" ]; then
  echo "most CPU, inputs under 1 MiB (CPU ms, peak KiB, input, mode, bytes):"
  awk '$5 < 1048576' "$W/usage" | sort -k1,1rn | head -n 5 | sed 's/^/  /'
  echo "most memory, inputs under 1 MiB (CPU ms, peak KiB, input, mode, bytes):"
  awk '$5 < 1048576' "$W/usage" | sort -k2,2rn | head -n 5 | sed 's/^/  /'
fi
echo "$passed passed, $failed failed ($xfail xfail, $xpass xpass)"
[ "$failed" -eq 0 ]
