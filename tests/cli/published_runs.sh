#!/bin/sh
# published_runs.sh: rooflint against published, measured runs (specs/
# ceilings.md R-CEIL-006; the table is docs/published-runs.md).  Each row is
# one run with its full configuration: rooflint's bound (--ceilings peak),
# its estimate (--ceilings achieved) and the measurement, as times.  A row
# fails when the bound is slower than the measurement (the bound beaten: a
# bug in the model or the card) or when either figure moves from the one
# written here (4 significant digits).  The measured time is derived from
# the published figure as the source defines it; nothing is tuned per row.
#
# Training, Megatron-LM (Narayanan et al., "Efficient Large-Scale Language
# Model Training on GPU Clusters Using Megatron-LM", SC 2021), Table 1,
# GPT with V = 51,200 and s = 2048 on A100 80GB (Selene), mixed precision
# (fp16), activation recomputation; per row: params (B), heads, hidden,
# layers, t, p, GPUs, batch, achieved teraFLOP/s per GPU:
#   "1.7 | 24 | 2304 | 24 | 1 | 1 | 32 | 512 | 137"
#   "18.4 | 48 | 6144 | 40 | 8 | 1 | 256 | 1024 | 135"
# with the paper's count per iteration (eq. 3, recomputation included)
#   F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h))
# so an iteration took F / (GPUs x TFLOP/s): 1.7B, F = 1.5467e16,
# 1.5467e16 / (32 x 137e12) = 3.528 s; 18.4B, F = 3.2484e17,
# 3.2484e17 / (256 x 135e12) = 9.399 s.  rooflint's plan: the config as a
# GPT-2 architecture (tests/published/megatron_gpt_*.json), d = GPUs / t,
# each data rank's share of the batch as one microbatch (B / d sequences of
# 2048), -D recompute=full, 8 GPUs a node; its step_time_s.
#
# Attention, FlashAttention-2 (Dao, 2023), section 4.1 and Figures 5-6, on
# A100 80GB SXM4, fp16, head dimension 128, hidden 2048 (16 heads), batch x
# seqlen = 16k, no causal mask; at seqlen 16k: forward 223 TFLOP/s, backward
# 196 TFLOP/s (the figures' bar labels), FLOPs "4 x seqlen^2 x head
# dimension x number of heads" forward and 2.5 times that backward:
# F = 4 x 16384^2 x 128 x 16 = 2.1990e12; forward 2.1990e12 / 223e12 =
# 9.861 ms, backward 5.4976e12 / 196e12 = 28.05 ms.  rooflint:
# tests/published/flash_attention2_fwd.roof (time_s) and the train step of
# flash_attention2_train.roof less that forward.
#
# Serving, gpt-fast (github.com/pytorch-labs/gpt-fast, README "Benchmarks":
# "Benchmarks run on an 8xA100-80GB, power limited to 330W ... batch
# size=1 ... a very small prompt length (just 5 tokens)"; generate.py's
# default --max_new_tokens 200): "| Llama-2-7B | Base | 104.9 |" and
# "| Llama-3-8B | Base | 94.25 |" tokens/s, so 9.533 ms and 10.61 ms a
# token.  rooflint: the published configs (tests/hf/llama2_7b.json,
# llama3_8b.json), --phase decode -D batch=1 -D ctx=105 (5 prompt tokens and
# the mean of 200 generated), time_per_output_token_s on A100 SXM.
#
# Collectives, nccl-tests all_reduce_perf, 8 GPUs of one node, float32, at
# 8 GB (tests/published/nccl_allreduce_8gpu.roof): busbw = algbw x 2(n-1)/n,
# so the time is 2 x 7/8 x 8,589,934,592 / busbw.  A100 SXM4: "That should
# reach 230 GB/s" (NVIDIA/nccl-tests#149, the NCCL maintainer, at 8G):
# 65.36 ms.  H100: "NCCL can get an effective NVLink bandwidth of 370GB/s,
# which you can observe as BusBw ... when running with NCCL_ALGO=RING"
# (NVIDIA/nccl-tests#212): 40.63 ms.  Both are the cards' achieved_nvlink_bw
# sources (R-CEIL-005), so the estimate meets them by construction: these
# two rows check the ring's arithmetic, not the estimate.
. tests/cli/driver_lib.inc
PY=/usr/bin/python3
"$PY" - "$ROOFLINT" <<'PYEOF' >"$T/table" 2>"$T/err"
import json, subprocess, sys
rooflint = sys.argv[1]

def run(args, ceilings):
    p = subprocess.run([rooflint, "--ceilings", ceilings, "-w", "--format", "json"] + args,
                       capture_output=True, text=True)
    return json.loads(p.stdout)["models"][0]

def step(args, ceilings):
    s = run(args, ceilings)["summary"]
    return s.get("step_time_s", s["time_s"])

def backward(ceilings):
    return (step(["tests/published/flash_attention2_train.roof"], ceilings)
            - step(["tests/published/flash_attention2_fwd.roof"], ceilings))

def token(cfg):
    def f(ceilings):
        m = run(["--phase", "decode", "-D", "batch=1", "-D", "ctx=105", "-t", "a100_sxm", cfg], ceilings)
        return m["serving"]["time_per_output_token_s"]
    return f

def megatron(B, l, h):
    s, V = 2048, 51200
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))

def train(cfg, t, d, batch):
    return ["--phase", "train", "-D", "tensor=%d" % t, "-D", "data=%d" % d, "-D", "seq=2048",
            "-D", "batch=%d" % (batch // d), "-D", "recompute=full",
            "-D", "nodes=%d" % (t * d // 8), "-D", "gpus_per_node=8", "-t", "a100_sxm", cfg]

ALLREDUCE = 2 * 7 / 8 * 8589934592
FA2 = 4 * 16384 ** 2 * 128 * 16
g17 = train("tests/published/megatron_gpt_1_7b.json", 1, 32, 512)
g184 = train("tests/published/megatron_gpt_18_4b.json", 8, 32, 1024)
# name, kind, how rooflint's time is read, the measured time (s), and the
# bound's and the estimate's times (ms) as this test holds them.
rows = [
    ("Megatron-LM GPT 1.7B, 32 A100", "training", lambda c: step(g17, c),
     megatron(512, 24, 2304) / (32 * 137e12), "1524", "1530"),
    ("Megatron-LM GPT 18.4B, 256 A100", "training", lambda c: step(g184, c),
     megatron(1024, 40, 6144) / (256 * 135e12), "6127", "6473"),
    ("FlashAttention-2 forward, A100", "attention",
     lambda c: step(["tests/published/flash_attention2_fwd.roof"], c), FA2 / 223e12,
     "7.048", "7.048"),
    ("FlashAttention-2 backward, A100", "attention", backward, 2.5 * FA2 / 196e12,
     "14.1", "14.1"),
    ("gpt-fast Llama-2-7B decode, A100", "serving", token("tests/hf/llama2_7b.json"),
     1 / 104.9, "6.51", "6.51"),
    ("gpt-fast Llama-3-8B decode, A100", "serving", token("tests/hf/llama3_8b.json"),
     1 / 94.25, "7.37", "7.37"),
    ("nccl-tests all-reduce 8 GB, 8 A100", "collective",
     lambda c: step(["-t", "a100_sxm", "tests/published/nccl_allreduce_8gpu.roof"], c),
     ALLREDUCE / 230e9, "50.11", "65.36"),
    ("nccl-tests all-reduce 8 GB, 8 H100 (ring)", "collective",
     lambda c: step(["-t", "h100_sxm", "tests/published/nccl_allreduce_8gpu.roof"], c),
     ALLREDUCE / 370e9, "33.41", "40.63"),
]
bad = 0
for name, kind, get, measured, want_bound, want_est in rows:
    bound, est = get("peak"), get("achieved")
    got = ("%.4g" % (bound * 1e3), "%.4g" % (est * 1e3))
    if got != (want_bound, want_est):
        print("FAIL: %s: bound %s ms, estimate %s ms; expected %s, %s" % ((name,) + got + (want_bound, want_est)),
              file=sys.stderr)
        bad += 1
    if bound > measured:
        print("FAIL: %s: the bound %.4g s is beaten by the measurement %.4g s" % (name, bound, measured),
              file=sys.stderr)
        bad += 1
    print("| %s | %s | %.4g ms | %.4g ms | %.4g ms | %+.1f%% | %+.1f%% |" % (
        name, kind, bound * 1e3, est * 1e3, measured * 1e3, 100 * (bound - measured) / measured,
        100 * (est - measured) / measured))
sys.exit(1 if bad else 0)
PYEOF
status=$?
what="published runs"
if [ "$status" -eq 0 ]; then ok; else bad "$(cat "$T/err")"; fi
# The table in docs/published-runs.md is the one this test prints.
while IFS= read -r row; do
  expect_grep docs/published-runs.md "$row"
done <"$T/table"
[ -n "${PUBLISHED_TABLE:-}" ] && cat "$T/table"
finish
