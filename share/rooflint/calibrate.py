#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""calibrate.py: the measurements behind `rooflint calibrate`.

rooflint runs this script with the Python it finds (ROOFLINT_PYTHON, else
python3 on PATH) and reads one JSON document from its standard output: the
device, the versions, and each measured ceiling under the card key it
stands beside (specs/calibrate.md).  rooflint writes the target card; this
script only measures, so that every figure comes from PyTorch on the device
itself and the card's spelling stays in one place (src/calibrate.c).

    calibrate.py --device auto|cpu|cuda --deadline EPOCH_SECONDS

The deadline is absolute (time.time()), so the time Python and torch take
to start counts against the user's --seconds too.  Exit status: 0 measured,
3 torch cannot be imported, 4 the asked device is not there, 5 the deadline
came before the required figures were measured, 1 anything else.
"""
import argparse
import datetime
import json
import os
import sys
import tempfile
import time

EXIT_NO_TORCH = 3
EXIT_NO_DEVICE = 4
EXIT_OUT_OF_TIME = 5

MIB = 1 << 20
GIB = 1 << 30
# A sample is a batch of calls lasting about SAMPLE_S (or a share's
# SAMPLES_PER_SHARE-th, if shorter); sampling stops after MAX_SAMPLES, or
# once STALE_SAMPLES in a row have not beaten the best by 1%, so a quiet
# machine finishes well before a long --seconds.
SAMPLE_S = 0.05
SAMPLES_PER_SHARE = 8
MAX_SAMPLES = 30
STALE_SAMPLES = 5
# The part of the remaining budget held back for writing the card.
MARGIN_S = 0.3


class OutOfTime(Exception):
    pass


class Budget:
    """The time left before the deadline, handed out to the measurements in
    proportion to their weights, so that one finishing early leaves its
    time to those after it."""

    def __init__(self, deadline, weights):
        self.deadline = deadline
        self.weights = dict(weights)

    def left(self):
        return self.deadline - MARGIN_S - time.time()

    def share(self, name):
        weight = self.weights.pop(name, 1.0)
        total = weight + sum(self.weights.values())
        left = self.left()
        if left <= 0:
            raise OutOfTime(name)
        return left * weight / total


def best_time(run, sync, share):
    """The fastest of several samples of run(), seconds per call, and the
    calls timed.  A sample is a batch of calls then one synchronisation;
    the first call (allocation, kernel selection, page faults) is not
    counted."""
    run()
    sync()
    start = time.perf_counter()
    run()
    sync()
    once = max(time.perf_counter() - start, 1e-7)
    sample = min(share / SAMPLES_PER_SHARE, SAMPLE_S)
    calls = max(1, min(10000, int(sample / once)))
    end = time.perf_counter() + share - once
    best, samples, stale = once, 0, 0
    while (samples < MAX_SAMPLES and stale < STALE_SAMPLES
           and time.perf_counter() + once * calls <= end):
        start = time.perf_counter()
        for _ in range(calls):
            run()
        sync()
        took = (time.perf_counter() - start) / calls
        stale = 0 if took < best * 0.99 else stale + 1
        best = min(best, took)
        samples += 1
    return best, samples * calls + 1


class Device:
    """What the measurements ask of the device: where tensors go, how to
    wait for it, and which matmul precisions it has."""

    def __init__(self, torch, kind):
        self.torch = torch
        self.kind = kind
        self.dev = torch.device("cuda" if kind == "cuda" else "cpu")

    def sync(self):
        if self.kind == "cuda":
            self.torch.cuda.synchronize()

    def free_memory(self):
        if self.kind == "cuda":
            return self.torch.cuda.mem_get_info()[0]
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def describe(torch, dev):
    """The device's name, size and the versions, for the card's source."""
    info = {"device": dev.kind, "torch": torch.__version__,
            "python": sys.version.split()[0],
            "date": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ")}
    if dev.kind == "cuda":
        props = torch.cuda.get_device_properties(0)
        info.update(name=props.name, units=props.multi_processor_count,
                    memory=props.total_memory,
                    gpus=torch.cuda.device_count(),
                    capability="%d.%d" % (props.major, props.minor))
        hip = getattr(torch.version, "hip", None)
        info["runtime"] = ("ROCm %s" % hip) if hip else (
            "CUDA %s" % torch.version.cuda)
    else:
        info.update(name=cpu_name(), units=torch.get_num_threads(),
                    memory=os.sysconf("SC_PAGE_SIZE") *
                    os.sysconf("SC_PHYS_PAGES"),
                    gpus=0, capability=None,
                    runtime="%d thread%s" % (torch.get_num_threads(),
                                             "" if torch.get_num_threads() == 1
                                             else "s"))
    return info


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine() or "CPU"


# The matmuls, one row a precision: its card key on each kind of device
# (a CPU has no tensor cores: its rates are the vector peaks), the dtype's
# name in torch, and the least CUDA compute capability that has it.
MATMULS = [
    # name, cpu key, cuda key, torch dtype, tf32, least capability
    ("fp32", "fp32", "fp32", "float32", False, (0, 0)),
    ("tf32", None, "tf32_tc", "float32", True, (8, 0)),
    ("fp16", "fp16", "fp16_tc", "float16", False, (7, 0)),
    ("bf16", "bf16", "bf16_tc", "bfloat16", False, (8, 0)),
    ("fp8", None, "fp8_tc", "float8_e4m3fn", False, (8, 9)),
]


def matmul_runner(torch, dev, dtype_name, n):
    """One n x n x n product at the dtype; fp8 goes through
    torch._scaled_mm (per-tensor scales of 1, bf16 out) as transformer
    engines call it."""
    if dtype_name == "float8_e4m3fn":
        a = torch.randn(n, n, device=dev.dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=dev.dev).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=dev.dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
    dtype = getattr(torch, dtype_name)
    a = torch.randn(n, n, device=dev.dev).to(dtype)
    b = torch.randn(n, n, device=dev.dev).to(dtype)
    c = torch.empty(n, n, device=dev.dev, dtype=dtype)
    return lambda: torch.mm(a, b, out=c)


def measure_matmul(torch, dev, row, share):
    """FLOP/s of a square matmul (2 n^3 FLOPs), the size doubled from 256
    while three products of the next size fit the share, up to 8192 on a
    GPU and 2048 on a CPU (past which a CPU's rate no longer grows)."""
    name, cpu_key, cuda_key, dtype_name, tf32, least = row
    n = 256
    limit = 8192 if dev.kind == "cuda" else 2048
    if dev.kind == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = tf32
    end = time.time() + share
    while True:
        run = matmul_runner(torch, dev, dtype_name, n)
        once, _ = best_time(run, dev.sync, 0)
        if n >= limit or once * 2 ** 3 * 3 > end - time.time():
            break
        n *= 2
    best, calls = best_time(run, dev.sync, max(end - time.time(), once))
    method = ("%s matmul, torch.mm of two %d x %d matrices%s: 2 n^3 FLOPs "
              "over the fastest of %d calls" %
              (name, n, n, " (allow_tf32)" if tf32 else "", calls))
    if dtype_name == "float8_e4m3fn":
        method = ("fp8 matmul, torch._scaled_mm of two %d x %d e4m3 "
                  "matrices to bf16: 2 n^3 FLOPs over the fastest of %d "
                  "calls" % (n, n, calls))
    return 2.0 * n ** 3 / best, method


def matmul_missing(torch, dev, row, caps):
    """Why a precision is not measured on this device, or None."""
    name, cpu_key, cuda_key, dtype_name, tf32, least = row
    if (cpu_key if dev.kind == "cpu" else cuda_key) is None:
        return "no %s matmul on a CPU" % name
    if not hasattr(torch, dtype_name):
        return "torch %s has no %s" % (torch.__version__, dtype_name)
    if dev.kind == "cuda":
        if getattr(torch.version, "hip", None) and name in ("tf32", "fp8"):
            return "not measured on ROCm"
        if caps < least:
            return "compute capability %d.%d has none (needs %d.%d)" % (
                caps + least)
    return None


def stream_arrays(torch, dev, share):
    """Three fp32 arrays for the bandwidth passes, from 32 MiB each grown
    four times over while three more rounds of allocating and passing fit
    the share, up to 1 GiB (far past any last-level cache) or a twelfth of
    the free memory.  First touch is slow on some virtual machines (a
    hundred MB/s), so the size follows the budget rather than a constant."""
    end = time.time() + share
    limit = min(GIB, max(dev.free_memory() // 12, 32 * MIB)) // MIB * MIB
    size = 32 * MIB
    while True:
        start = time.time()
        arrays = [torch.ones(size // 4, device=dev.dev) for _ in range(3)]
        best_time(lambda: arrays[0].copy_(arrays[1]), dev.sync, 0)
        cost = time.time() - start
        if size >= limit or cost * 4 * 3 > end - time.time():
            return arrays, size
        del arrays
        size = min(size * 4, limit)


def measure_memory(torch, dev, share):
    """The better of STREAM's copy (2 N bytes a pass) and triad (3 N bytes)
    on fp32 arrays, counted as STREAM counts them (no write-allocate)."""
    end = time.time() + share
    (a, b, c), size = stream_arrays(torch, dev, share / 2)
    left = max(end - time.time(), 0.0)
    copy, n_copy = best_time(lambda: a.copy_(b), dev.sync, left / 2)
    triad, n_triad = best_time(lambda: torch.add(b, c, alpha=3.0, out=a),
                               dev.sync, left / 2)
    copy_bw, triad_bw = 2.0 * size / copy, 3.0 * size / triad
    method = ("memory bandwidth, the better of STREAM copy a = b "
              "(%.1f GB/s, 2 N bytes, fastest of %d) and triad a = b + 3 c "
              "(%.1f GB/s, 3 N bytes, fastest of %d) on fp32 arrays of "
              "%d MiB" % (copy_bw / 1e9, n_copy, triad_bw / 1e9, n_triad,
                          size // MIB))
    return max(copy_bw, triad_bw), method


def measure_pcie(torch, dev, share):
    """Pinned host to device and back, 256 MiB a copy; the slower
    direction, so the figure holds both ways."""
    size = 256 * MIB
    host = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    card = torch.empty(size, dtype=torch.uint8, device=dev.dev)
    h2d, n_h2d = best_time(lambda: card.copy_(host, non_blocking=True),
                           dev.sync, share / 2)
    d2h, n_d2h = best_time(lambda: host.copy_(card, non_blocking=True),
                           dev.sync, share / 2)
    up, down = size / h2d, size / d2h
    method = ("host-device copies of 256 MiB from pinned memory, the slower "
              "of host to device (%.1f GB/s, fastest of %d) and device to "
              "host (%.1f GB/s, fastest of %d)" %
              (up / 1e9, n_h2d, down / 1e9, n_d2h))
    return min(up, down), method


def measure_launch(torch, dev, share):
    """One tiny kernel (x.add_(1) on one element), launched back to back:
    the time per launch is what a kernel too small to matter costs."""
    x = torch.zeros(1, device=dev.dev)
    best, calls = best_time(lambda: x.add_(1), dev.sync, share)
    what = ("a one-element x.add_(1) kernel" if dev.kind == "cuda" else
            "a one-element x.add_(1) (torch's per-op dispatch on the CPU)")
    return best, ("launch overhead, %s launched back to back: the fastest "
                  "of %d calls" % (what, calls))


def allreduce_worker(rank, world, backend, size, stop_at, path, result):
    """One rank of the all-reduce: nccl-tests' convention, algbw = S / t
    and busbw = algbw * 2 (n - 1) / n, t the mean of the timed calls, which
    run until stop_at (time.time()), at least 5 of them."""
    import torch
    import torch.distributed as dist
    if backend == "nccl":
        torch.cuda.set_device(rank)
    dist.init_process_group(backend, init_method="file://" + path,
                            rank=rank, world_size=world)
    if backend == "nccl":
        buf = torch.ones(size // 4, device="cuda")
        sync = torch.cuda.synchronize
    else:
        buf = torch.ones(size // 4)
        sync = lambda: None
    for _ in range(2):
        dist.all_reduce(buf)
    sync()
    # every rank runs as many calls as rank 0 decides, or they would hang
    calls = 0
    start = time.perf_counter()
    go = torch.ones(1, device=buf.device, dtype=torch.int32)
    while go.item():
        for _ in range(5):
            dist.all_reduce(buf)
        calls += 5
        sync()
        go.fill_(1 if time.time() < stop_at and calls < 200 else 0)
        dist.broadcast(go, 0)
    t = (time.perf_counter() - start) / calls
    if rank == 0:
        busbw = size / t * 2.0 * (world - 1) / world
        with open(result, "w", encoding="utf-8") as f:
            json.dump({"busbw": busbw, "calls": calls}, f)
    dist.destroy_process_group()


def measure_allreduce(world, backend, share, size=256 * MIB):
    """Bus bandwidth of an all-reduce over `world` processes on this node
    (nccl over the GPUs; gloo over the CPU for the tests), `size` bytes of
    fp32 a call.  Starting the processes takes seconds of the share."""
    import torch.multiprocessing as mp
    stop_at = time.time() + 0.8 * share
    with tempfile.TemporaryDirectory(prefix="rooflint-calibrate.") as tmp:
        result = os.path.join(tmp, "result.json")
        mp.spawn(allreduce_worker, nprocs=world, join=True,
                 args=(world, backend, size, stop_at,
                       os.path.join(tmp, "rendezvous"), result))
        with open(result, encoding="utf-8") as f:
            got = json.load(f)
    method = ("all-reduce bus bandwidth over %d %s (torch.distributed %s, "
              "%d MiB fp32, mean of %d calls): nccl-tests' busbw = S / t x "
              "2 (n - 1) / n" % (world, "GPUs" if backend == "nccl" else
                                 "processes", backend, size // MIB,
                                 got["calls"]))
    return got["busbw"], method


def plan(torch, dev, info):
    """The measurements in the order they run, each with its card key and
    weight: the required figures (memory bandwidth, the fp32 matmul) first,
    so a short budget still yields a card."""
    caps = (0, 0)
    if dev.kind == "cuda":
        caps = tuple(int(x) for x in info["capability"].split("."))
    steps = [("memory_bw", "memory bandwidth", 3.0,
              lambda s: measure_memory(torch, dev, s))]
    skipped = []
    for row in MATMULS:
        why = matmul_missing(torch, dev, row, caps)
        key = row[1] if dev.kind == "cpu" else row[2]
        if why:
            skipped.append({"what": row[0] + " matmul", "why": why})
            continue
        steps.append((key, row[0] + " matmul", 2.0, lambda s, row=row:
                      measure_matmul(torch, dev, row, s)))
    if dev.kind == "cuda":
        steps.append(("pcie_bw", "host-device copies", 1.0,
                      lambda s: measure_pcie(torch, dev, s)))
    steps.append(("launch_overhead", "launch overhead", 0.5,
                  lambda s: measure_launch(torch, dev, s)))
    if dev.kind == "cuda" and info["gpus"] > 1:
        import torch.distributed as dist
        if dist.is_available() and dist.is_nccl_available():
            steps.append(("nvlink_bw", "all-reduce", 3.0,
                          lambda s: measure_allreduce(info["gpus"], "nccl", s)))
        else:
            skipped.append({"what": "all-reduce",
                            "why": "torch.distributed has no NCCL"})
    elif dev.kind == "cuda":
        skipped.append({"what": "all-reduce", "why": "one GPU visible"})
    return steps, skipped


REQUIRED = ("memory_bw", "fp32")


def run(torch, dev, deadline):
    info = describe(torch, dev)
    steps, skipped = plan(torch, dev, info)
    budget = Budget(deadline, [(key, weight) for key, _, weight, _ in steps])
    measured = []
    for key, label, _, measure in steps:
        try:
            value, method = measure(budget.share(key))
        except OutOfTime:
            if key in REQUIRED:
                raise
            skipped.append({"what": label, "why": "the --seconds budget ran out"})
            continue
        except Exception as e:  # a dtype or op this build or device lacks
            if key in REQUIRED:
                raise
            why = str(e).splitlines()[0][:200] if str(e) else ""
            skipped.append({"what": label,
                            "why": "%s: %s" % (type(e).__name__, why)})
            continue
        measured.append({"key": key, "value": value, "method": method})
        if time.time() > deadline:
            raise OutOfTime(key)
    info["measured"] = measured
    info["skipped"] = skipped
    return info


def pick_device(torch, asked):
    has_cuda = torch.cuda.is_available()
    if asked == "cuda" and not has_cuda:
        return None
    return Device(torch, "cuda" if asked != "cpu" and has_cuda else "cpu")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("auto", "cpu", "cuda"),
                   default="auto")
    p.add_argument("--deadline", type=float, required=True)
    p.add_argument("--allreduce-check", type=int, metavar="N",
                   help="only an all-reduce over N CPU processes (gloo), "
                   "for the tests: the path a multi-GPU node takes")
    args = p.parse_args()
    try:
        import torch
    except ImportError as e:
        print("calibrate.py: cannot import torch: %s" % e, file=sys.stderr)
        return EXIT_NO_TORCH
    if args.allreduce_check:
        bw, method = measure_allreduce(args.allreduce_check, "gloo",
                                       max(args.deadline - time.time(), 0.1),
                                       size=4 * MIB)
        json.dump({"busbw": bw, "method": method}, sys.stdout)
        return 0
    dev = pick_device(torch, args.device)
    if dev is None:
        print("calibrate.py: torch %s sees no CUDA device" % torch.__version__,
              file=sys.stderr)
        return EXIT_NO_DEVICE
    try:
        info = run(torch, dev, args.deadline)
    except OutOfTime as e:
        print("calibrate.py: the deadline came before %s was measured" % e,
              file=sys.stderr)
        return EXIT_OUT_OF_TIME
    json.dump(info, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
