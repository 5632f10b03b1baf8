/* SPDX-License-Identifier: MIT */
/*
 * cross_node.c: the cross-node check.  Across nodes, a hierarchical ring
 * adds an InfiniBand leg that carries a fraction of the NVLink bytes and
 * still takes most of the time (the seed: 2 nodes for a 14.0 GB model add
 * 1.75 GB and 35.0 ms per step).  When the model's footprint fits in one
 * GPU, or in the GPUs of one node, that leg buys nothing the memory needed.
 * The figures are the cost model's collectives (explicit collectives and
 * the implicit gradient all-reduce of train mode), summed per step.
 */
#include "checks.h"

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  const Target *t = ctx->target;
  if (!m->parallel.present || m->parallel.nodes <= 1) return;
  double ib_bytes = 0, ib_time = 0, nv_time = 0, coll_time = 0;
  for (int i = 0; i < c->ncollectives; i++) {
    const Collective *k = &c->collectives[i];
    ib_bytes += k->ib_bytes * k->count;
    ib_time += k->ib_time * k->count;
    nv_time += k->nvlink_time * k->count;
    coll_time += k->time_s * k->count;
  }
  if (ib_bytes <= 0 || ib_time <= 0) return;
  double need = c->footprint.total, mem = t->memory;
  int64_t gpn = m->parallel.gpus_per_node > 0 ? m->parallel.gpus_per_node
                                              : t->gpus_per_node;
  if (gpn < 1) gpn = 1;
  if (mem <= 0 || need <= 0) return;
  char where[160], b4[32], b1[32], b2[48], b3[32], t1[32], t2[32], t3[32],
      pc[32];
  if (need <= mem)
    snprintf(where, sizeof where, "one %s (%s)", checks_target_name(t),
             fmt_capacity(b2, sizeof b2, mem));
  else if (need <= mem * (double)gpn && fmt_binary_bytes(b2, sizeof b2, mem))
    snprintf(where, sizeof where, "one node (%lld x %s = %s)", (long long)gpn, b2,
             fmt_bytes(b3, sizeof b3, mem * (double)gpn));
  else if (need <= mem * (double)gpn)
    snprintf(where, sizeof where, "one node (%lld x %s)", (long long)gpn,
             fmt_bytes(b2, sizeof b2, mem));
  else
    return;
  double share = coll_time > 0 ? ib_time / coll_time : 0;
  Diag *d = checks_report(
      ctx, "cross-node", m->parallel.loc,
      "the plan spans %lld nodes but the model (%s of weights, %s "
      "footprint) fits in %s: InfiniBand adds %s and %s per step (%s of the "
      "collective time)",
      (long long)m->parallel.nodes,
      fmt_bytes(b4, sizeof b4, c->footprint.weights),
      fmt_bytes(b1, sizeof b1, need), where, fmt_bytes(b3, sizeof b3, ib_bytes),
      fmt_time(t1, sizeof t1, ib_time), fmt_percent(pc, sizeof pc, share, 0));
  diag_figure(d, "ib_bytes", ib_bytes);
  diag_figure(d, "ib_time_s", ib_time);
  diag_figure(d, "collective_time_s", coll_time);
  diag_figure(d, "footprint", need);
  diag_note(d, m->parallel.loc,
            "inside one node the collectives stay on NVLink: %s per step "
            "instead of %s",
            fmt_time(t2, sizeof t2, nv_time),
            fmt_time(t3, sizeof t3, coll_time));
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "Inside a node GPUs talk over NVLink (900 GB/s on an H100), across\n"
    "nodes over InfiniBand (50 GB/s).  A hierarchical all-reduce across\n"
    "nodes adds an InfiniBand leg that carries a fraction of the NVLink\n"
    "bytes and still takes most of the time.  When the model's footprint\n"
    "(weights, gradients, optimizer state, activations) fits in one GPU or\n"
    "in the GPUs of one node, spanning nodes pays for that leg and buys no\n"
    "memory.  Seed figures: 2 nodes for a 14.0 GB model add 1.75 GB and\n"
    "35.0 ms of InfiniBand per step.\n"
    "\n"
    "The message gives the InfiniBand bytes and time per step and their\n"
    "share of the collective time; a note gives the time inside one node.\n"
    "\n"
    "Fix: keep the plan inside one node (`nodes = 1`), or, if more nodes are\n"
    "needed for throughput, overlap the all-reduce with the backward pass.\n"
    "\n"
    "Example:\n"
    "    mode train\n"
    "    parallel { nodes = 2; gpus_per_node = 8 }\n";
/* clang-format on */

const CheckDesc check_cross_node = {
    "cross-node", SEV_WARNING, true,
    "the parallel plan spans nodes while the model fits in one",
    explain, run, NULL, false};
