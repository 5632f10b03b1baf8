#!/bin/sh
# calibrate.sh: `rooflint calibrate` (specs/calibrate.md).  The real run
# measures this machine's CPU with Debian's torch in a short budget and the
# card it writes is linted against; a copy of the binary in a prefix of its
# own, beside a stand-in script (run by sh), drives the GPU card and the
# failures without a GPU; a PATH with no python3 and a Python without its
# site-packages give the two messages a user without PyTorch meets.
. "$(dirname "$0")/driver_lib.inc"

PY=/usr/bin/python3
EXAMPLE=examples/llama2_7b_decode.roof

# cal ENV... -- ARGS...: rooflint calibrate with the environment given.
cal() {
  what="calibrate $*"
  env -u ROOFLINT_PYTHON "$@" >"$T/out" 2>"$T/err" </dev/null
  status=$?
}

# --- R-CAL-004, R-CAL-005: a real run on the CPU ---------------------------
# 30 s bound the whole run, torch's start included (about 5 s here);
# sampling stops once the best time stops improving, so it ends sooner.
start=$(date +%s)
cal ROOFLINT_PYTHON=$PY "$ROOFLINT" calibrate --device cpu --seconds 30 -o "$T/cpu.roof"
took=$(($(date +%s) - start))
expect_status 0
if [ "$took" -le 31 ]; then ok; else bad "took $took s, over --seconds 30"; fi
expect_grep "$T/out" "wrote $T/cpu.roof: the ceilings of the CPU '"
expect_grep "$T/out" "  memory_bw        "
expect_grep "$T/out" "  fp32             "
expect_grep "$T/cpu.roof" "target cpu_calibrated {"
expect_grep "$T/cpu.roof" "source = \"memory_bw: memory bandwidth, the better of STREAM copy a = b ("
expect_grep "$T/cpu.roof" "source = \"fp32: fp32 matmul, torch.mm of two "
expect_grep "$T/cpu.roof" "source = \"not measured: tf32 matmul (no tf32 matmul on a CPU)"
expect_grep "$T/cpu.roof" "on the CPU '"

# The card is a -t FILE: the lint exits 0 and prices against the measured
# figures exactly as the card writes them (4 significant digits, read back
# by the lexer), which are positive and plausible for a CPU: a matmul
# below 10 TFLOP/s, a memory below 1 TB/s.
what="rooflint -t cpu.roof $EXAMPLE"
"$ROOFLINT" --format json -t "$T/cpu.roof" "$EXAMPLE" >"$T/json" 2>"$T/err"
status=$?
expect_status 0
$PY - "$T/cpu.roof" "$T/json" >"$T/check" 2>&1 <<'PYEOF'
import json, re, sys
card = open(sys.argv[1]).read()
doc = json.load(open(sys.argv[2]))
t = doc["targets"][0]
scale = {"GFLOP/s": 1e9, "TFLOP/s": 1e12, "FLOP/s": 1, "MB/s": 1e6,
         "GB/s": 1e9, "TB/s": 1e12, "B/s": 1}
def written(key):
    m = re.search(r"\n  %s = ([0-9.]+) (\S+)\n" % key, card)
    return float(m.group(1)) * scale[m.group(2)]
bad = []
fp32, bw = written("fp32"), written("memory_bw")
if not 0 < fp32 < 10e12: bad.append("fp32 %g FLOP/s" % fp32)
if not 0 < bw < 1e12: bad.append("memory_bw %g B/s" % bw)
if written("achieved_fp32") != fp32: bad.append("achieved_fp32 differs")
if abs(t["peaks"]["fp32"] - fp32) > 1e-9 * fp32: bad.append("lint fp32 %r" % t["peaks"]["fp32"])
if abs(t["memory_bw"] - bw) > 1e-9 * bw: bad.append("lint memory_bw %r" % t["memory_bw"])
if t["name"] != "cpu_calibrated": bad.append(t["name"])
print("; ".join(bad) or "ok")
PYEOF
if [ "$(cat "$T/check")" = ok ]; then ok; else bad "$(cat "$T/check")"; fi
run -t "$T/cpu.roof" "$EXAMPLE"
expect_status 0
expect_grep "$T/out" "llama2_7b_decode: 27 ops"

# R-CAL-004: the all-reduce a node of several GPUs runs (NCCL), run here
# over two CPU processes with gloo: the same workers and the same busbw
# arithmetic, 4 MiB a call, at least 5 calls.
what="calibrate.py --allreduce-check 2"
$PY share/rooflint/calibrate.py --deadline $(($(date +%s) + 5)) --allreduce-check 2 >"$T/ar" 2>"$T/err"
status=$?
expect_status 0
$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
ok = d["busbw"] > 0 and "nccl-tests'"'"' busbw = S / t x 2 (n - 1) / n" in d["method"]
print("ok" if ok else d)' "$T/ar" >"$T/check" 2>&1
if [ "$(cat "$T/check")" = ok ]; then ok; else bad "$(cat "$T/check")"; fi

# --- R-CAL-001: the command line -------------------------------------------
run calibrate "$EXAMPLE"
expect_status 2
expect_err "rooflint: error: 'rooflint calibrate' takes no files: it measures this machine"
run calibrate --seconds 0
expect_status 2
expect_err "rooflint: error: invalid value '0' for --seconds: expected seconds, more than 0 and at most 86400"
run calibrate --seconds soon
expect_status 2
expect_err "rooflint: error: invalid value 'soon' for --seconds: expected seconds, more than 0 and at most 86400"
run calibrate --device tpu
expect_status 2
expect_grep "$T/err" "rooflint: error: invalid value 'tpu' for --device"
run --seconds 5 "$EXAMPLE"
expect_status 2
expect_err "rooflint: error: --seconds applies to 'rooflint calibrate' only"
run --device cpu "$EXAMPLE"
expect_status 2
expect_err "rooflint: error: --device applies to 'rooflint calibrate' only"
run calibrate --help
expect_status 0
expect_grep "$T/out" "  --seconds N                  calibrate: the most the whole run may take (default 60)"

# --- R-CAL-003: no Python, no torch, no CUDA, no time ----------------------
mkdir "$T/empty" "$T/nosite"
cal PATH="$T/empty" "$ROOFLINT" calibrate
expect_status 2
expect_err "rooflint: error: cannot run 'python3' (No such file or directory): calibrate measures with PyTorch; install Python 3 and PyTorch (pip install torch, or Debian's python3-torch) or set ROOFLINT_PYTHON to a Python that has it"
# python3 -S: no site-packages, so no torch
printf '#!/bin/sh\nexec %s -S "$@"\n' "$PY" >"$T/nosite/python3"
chmod +x "$T/nosite/python3"
cal PATH="$T/nosite:/usr/bin:/bin" "$ROOFLINT" calibrate
expect_status 2
expect_err "rooflint: error: 'python3' cannot import torch: calibrate measures with PyTorch; install PyTorch (pip install torch, or Debian's python3-torch) or set ROOFLINT_PYTHON to a Python that has it
note: calibrate.py: cannot import torch: No module named 'torch'"
cal ROOFLINT_PYTHON=$PY "$ROOFLINT" calibrate --device cuda --seconds 60
expect_status 2
expect_err "rooflint: error: --device cuda: PyTorch sees no CUDA device (a CPU-only torch, or no driver); --device cpu or auto measures the CPU"
# Killed at the bound: torch alone takes longer than half a second.  A
# card already at -o is left as it was.
echo "kept" >"$T/keep.roof"
start=$(date +%s)
cal ROOFLINT_PYTHON=$PY "$ROOFLINT" calibrate --seconds 0.5 -o "$T/keep.roof"
took=$(($(date +%s) - start))
expect_status 2
expect_err "rooflint: error: the calibration did not finish within --seconds 0.5 (Python and torch take seconds to start): give it more"
if [ "$took" -le 2 ]; then ok; else bad "took $took s past --seconds 0.5"; fi
if [ "$(cat "$T/keep.roof")" = kept ]; then ok; else bad "keep.roof was overwritten"; fi

# --- R-CAL-002: the script beside the binary ------------------------------
# A copy of rooflint in bin/ of a prefix finds share/rooflint/calibrate.py
# there (the layout make install writes); with none there it says where
# it looked.
mkdir -p "$T/lone/bin" "$T/prefix/bin" "$T/prefix/share/rooflint"
cp "$ROOFLINT" "$T/lone/bin/rooflint"
cp "$ROOFLINT" "$T/prefix/bin/rooflint"
cal "$T/lone/bin/rooflint" calibrate
expect_status 2
expect_err "rooflint: error: cannot find the calibration script '$(cd "$T" && pwd -P)/lone/share/rooflint/calibrate.py' (make install puts it in PREFIX/share/rooflint/, beside PREFIX/bin/rooflint)"
SCRIPT="$T/prefix/share/rooflint/calibrate.py"

# R-CAL-003: a script that fails: its last lines quoted, the escape byte
# of its message shown as \x1B.
printf 'printf "Traceback (most recent call last):\\n  boom \\033[31mred\\n" >&2\nexit 1\n' >"$SCRIPT"
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate
expect_status 2
expect_err "rooflint: error: calibrate.py failed (exit status 1)
note: Traceback (most recent call last):
note:   boom \\x1B[31mred"

# R-CAL-008: -o is never the script or rooflint itself.
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate -o "$SCRIPT"
expect_status 2
expect_err "rooflint: error: refusing to write the card over '$SCRIPT', which is the calibration script"
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate -o "$T/prefix/bin/rooflint"
expect_status 2
expect_err "rooflint: error: refusing to write the card over '$T/prefix/bin/rooflint', which is rooflint itself"

# --- R-CAL-006: a GPU with a built-in card ----------------------------------
# The document the script prints on an H100 SXM (figures of the kind
# measured there): the built-in card's peaks stay, the measured figures
# become its achieved_ ceilings; 7.123e14 FLOP/s is 712.3 TFLOP/s.
cat >"$SCRIPT" <<'EOF'
cat <<'DOC'
{"device": "cuda", "torch": "2.5.1", "python": "3.12.3",
 "date": "2026-12-06T09:00:00Z", "name": "NVIDIA H100 80GB HBM3",
 "units": 132, "memory": 85045379072, "gpus": 1, "runtime": "CUDA 12.4",
 "measured": [
  {"key": "memory_bw", "value": 2.9e12, "method": "STREAM triad"},
  {"key": "bf16_tc", "value": 7.123e14, "method": "torch.mm 8192"},
  {"key": "pcie_bw", "value": 5.31e10, "method": "pinned copies"},
  {"key": "launch_overhead", "value": 2.5e-6, "method": "x.add_(1)"}],
 "skipped": [{"what": "all-reduce", "why": "one GPU visible"}]}
DOC
EOF
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate -o "$T/h100.roof"
expect_status 0
expect_out "wrote $T/h100.roof: the ceilings of the GPU 'NVIDIA H100 80GB HBM3' (rooflint -t FILE reads it)
  memory_bw        2.9 TB/s
  bf16_tc          712.3 TFLOP/s
  pcie_bw          53.1 GB/s
  launch_overhead  2.5 us
  not measured: all-reduce (one GPU visible)"
expect_grep "$T/h100.roof" "target h100_sxm_calibrated {"
expect_grep "$T/h100.roof" "  bf16_tc = 990 TFLOP/s"
expect_grep "$T/h100.roof" "  achieved_bf16_tc = 712.3 TFLOP/s"
expect_grep "$T/h100.roof" "  achieved_memory_bw = 2.9 TB/s"
expect_grep "$T/h100.roof" "  launch_overhead = 2.5 us"
# The decode step moves 14.3 GB: against the datasheet's 3.35 TB/s the
# bound is 4.27 ms, against the measured 2.9 TB/s (--ceilings achieved)
# the estimate 14.3e9 / 2.9e12 = 4.93 ms.
run -t "$T/h100.roof" "$EXAMPLE"
expect_status 0
expect_grep "$T/out" "step >= 4.27 ms on NVIDIA H100 SXM (100% of it memory-bound)"
run -t "$T/h100.roof" --ceilings achieved "$EXAMPLE"
expect_status 0
expect_grep "$T/out" "step ~ 4.93 ms on NVIDIA H100 SXM (100% of it memory-bound), achieved ceilings"
# Without -o the card is standard output, and nothing else is.
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate
expect_status 0
if cmp -s "$T/out" "$T/h100.roof"; then ok; else bad "stdout is not the card"; fi
expect_empty "$T/err"

# R-CAL-009: the calibrated card says what of it was measured: its peaks
# are the datasheet's, its achieved ceilings (some) measured here; the
# built-in card itself stays a published specification.
run target "$T/h100.roof"
expect_status 0
head -n 2 "$T/out" >"$T/head"
printf '%s\n' "Accelerator: NVIDIA H100 SXM (published specification, approximate, with ceilings measured by rooflint calibrate)" \
  "Peaks PUBLISHED SPECIFICATIONS; the achieved ceilings of the keys rooflint calibrate's sources name MEASURED on this device." >"$T/want"
if cmp -s "$T/want" "$T/head"; then ok; else bad "h100 card's origin"; diff "$T/want" "$T/head"; fi
run target h100_sxm
head -n 2 "$T/out" >"$T/head"
printf '%s\n' "Accelerator: NVIDIA H100 SXM (published specification, approximate)" \
  "All figures PUBLISHED SPECIFICATIONS, not measurements." >"$T/want"
if cmp -s "$T/want" "$T/head"; then ok; else bad "h100_sxm's origin"; fi
run targets "$T/h100.roof"
expect_out "target               part             year  memory  bandwidth  16-bit peak  ridge FLOP/B
h100_sxm_calibrated  NVIDIA H100 SXM  2022  80 GiB  3.35 TB/s  990 TFLOP/s           296"

# A CPU's card (R-CAL-005): every figure measured, and no 16-bit peak:
# `targets` names the peak it has, 95 GFLOP/s of fp32 (ridge 95 / 12 =
# 7.9, shown 8), not "0 TFLOP/s", and no year (the card has none).
printf '%s\n' "cat <<'DOC'" '{"device": "cpu", "torch": "1.13.1", "python": "3.11.2", "date": "2026-12-06T09:00:00Z", "name": "AMD EPYC 7B13", "units": 2, "memory": 8589934592, "gpus": 1, "runtime": "2 threads", "measured": [{"key": "memory_bw", "value": 1.2e10, "method": "STREAM copy"}, {"key": "fp32", "value": 9.5e10, "method": "torch.mm 1024"}], "skipped": []}' DOC >"$SCRIPT"
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate -o "$T/epyc.roof"
expect_status 0
run target "$T/epyc.roof"
expect_status 0
head -n 2 "$T/out" >"$T/head"
printf '%s\n' "Accelerator: AMD EPYC 7B13 (measured by rooflint calibrate)" \
  "All figures MEASURED on this device by rooflint calibrate, not published specifications (sources below)." >"$T/want"
if cmp -s "$T/want" "$T/head"; then ok; else bad "cpu card's origin"; diff "$T/want" "$T/head"; fi
run targets "$T/epyc.roof" h100_sxm
expect_out "target          part             year  memory  bandwidth               16-bit peak  ridge FLOP/B
cpu_calibrated  AMD EPYC 7B13       -   8 GiB  0.01 TB/s  95.0 GFLOP/s fp32 vector             8
h100_sxm        NVIDIA H100 SXM  2022  80 GiB  3.35 TB/s               990 TFLOP/s           296

From AMD EPYC 7B13 to NVIDIA H100 SXM (2022):
  arithmetic throughput grew 10421.1x
  memory bandwidth  grew 279.2x
  so the ridge point grew 37.3x"
# with a bf16 rate (torch's CPU bf16 matmul), that is the 16-bit peak:
# ridge 184.3 / 12 = 15.4, shown 15
sed 's|^  fp32 = 95 GFLOP/s$|&\n  bf16 = 184.3 GFLOP/s|' "$T/epyc.roof" >"$T/epyc16.roof"
run targets "$T/epyc16.roof"
expect_out "target          part           year  memory  bandwidth                16-bit peak  ridge FLOP/B
cpu_calibrated  AMD EPYC 7B13     -   8 GiB  0.01 TB/s  184.3 GFLOP/s bf16 vector            15"
# docs/calibrate.md's `rooflint targets cpu.roof h100_sxm` is printed as
# shown, from the card the page shows
awk '/^\$ cat cpu.roof/ { f = 1; next } f && /^```/ { exit } f' docs/calibrate.md >"$T/doc_cpu.roof"
awk '/^\$ rooflint targets cpu.roof h100_sxm/ { f = 1; next } f && /^```/ { exit } f' docs/calibrate.md >"$T/doc_targets"
run targets "$T/doc_cpu.roof" h100_sxm
expect_out "$(cat "$T/doc_targets")"

# R-CAL-007: a device's name with quotes and an escape byte: escaped in
# the card's string ('?') and in the summary ('\x1B', as diagnostics do).
cat >"$SCRIPT" <<'EOF'
cat <<'DOC'
{"device": "cpu", "torch": "2.5.1", "python": "3.12.3",
 "date": "2026-12-06T09:00:00Z", "name": "Evil \"CPU\" \u001b[31mred",
 "units": 4, "memory": 17179869184, "gpus": 0, "runtime": "4 threads",
 "measured": [{"key": "memory_bw", "value": 2e10, "method": "copy"},
              {"key": "fp32", "value": 1e11, "method": "mm"}],
 "skipped": []}
DOC
EOF
cal ROOFLINT_PYTHON=sh "$T/prefix/bin/rooflint" calibrate -o "$T/evil.roof"
expect_status 0
expect_grep "$T/evil.roof" '  display = "Evil \"CPU\" ?[31mred"'
expect_grep "$T/out" "the ceilings of the CPU 'Evil \"CPU\" \\x1B[31mred'"
run -t "$T/evil.roof" "$EXAMPLE"
expect_status 0

finish
