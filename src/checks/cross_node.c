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

/* InfiniBand per step: bytes and time, of the collectives over group g
 * (PG__COUNT: all), or of the gradient synchronisation only (sync_only:
 * not an op's, explicit or implied). */
typedef struct IbSum {
  double bytes, time, nv_time, all_time;
} IbSum;

static IbSum ib_sum(const Collective *cs, int n, int group, bool sync_only) {
  IbSum s = {0, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    const Collective *k = &cs[i];
    if (group < PG__COUNT && (int)k->group != group) continue;
    if (sync_only && (k->node >= 0 || k->at >= 0)) continue;
    s.bytes += k->ib_bytes * k->count;
    s.time += k->ib_time * k->count;
    s.nv_time += k->nvlink_time * k->count;
    s.all_time += k->time_s * k->count;
  }
  return s;
}

/* The unit of an op's collectives: with a pipeline the model and its
 * collectives are one microbatch through every stage (R-PAR-009), with
 * gradient accumulation one microbatch (R-PAR-020); the gradient
 * synchronisation stays once per step. */
static const char *ops_unit(const ModelCost *c) {
  if (c->pipe.stages > 1) return "per microbatch through every stage";
  return c->accumulated > 1 ? "per microbatch" : "per step";
}

/* R-CHK-071: a tensor or expert group that spans nodes. */
static bool group_spans(const CheckCtx *ctx, ParGroup g) {
  const Parallel *p = &ctx->model->parallel;
  const ModelCost *c = ctx->cost;
  GroupPlace gp = parallel_place(p, g);
  if (gp.nodes <= 1) return false;
  IbSum s = ib_sum(c->collectives, c->ncollectives, g, false);
  if (s.time <= 0) return false;
  char b[32], t1[32];
  Diag *d = checks_report(
      ctx, "cross-node", p->loc,
      "the %s group (%lld GPUs) spans %lld nodes: its collectives put %s and "
      "%s %s on InfiniBand",
      par_group_str(g), (long long)gp.size, (long long)gp.nodes,
      fmt_bytes(b, sizeof b, s.bytes), fmt_time(t1, sizeof t1, s.time),
      ops_unit(c));
  diag_figure(d, "ib_bytes", s.bytes);
  diag_figure(d, "ib_time_s", s.time);
  diag_note(d, p->loc,
            "with %s <= gpus_per_node (%lld) the group stays on NVLink "
            "(Megatron-Core places it innermost)",
            par_group_str(g), (long long)p->gpus_per_node);
  return true;
}

/* The expert degree that keeps the expert group in one node: the largest
 * e >= 2 dividing both the data ranks of a node (gpus_per_node / tensor)
 * and data, and each experts block's count; 0 when none does. */
static int64_t expert_in_node(const Model *m) {
  const Parallel *p = &m->parallel;
  int64_t slots = p->tensor < p->gpus_per_node ? p->gpus_per_node / p->tensor : 1;
  for (int64_t e = slots; e >= 2; e--) {
    bool ok = slots % e == 0 && p->data % e == 0;
    for (int s = 0; s < m->nscopes && ok; s++)
      ok = !m->scopes[s].experts || m->scopes[s].experts % e == 0;
    if (ok) return e;
  }
  return 0;
}

/* R-CHK-071, the expert group: its dispatch and combine all-to-alls
 * (R-MOE-006) and any collective with group=expert span nodes.  The same
 * plan with the expert degree that stays in a node, priced again (a pure
 * cost of the model with one key changed), says what it saves, when it
 * fits the GPU and takes less time; otherwise the group is flagged as the
 * tensor group is. */
static bool expert_spans(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const Parallel *p = &m->parallel;
  const ModelCost *c = ctx->cost;
  GroupPlace gp = parallel_place(p, PG_EXPERT);
  int64_t e = expert_in_node(m);
  if (gp.nodes <= 1 || e < 2) return group_spans(ctx, PG_EXPERT);
  IbSum now = ib_sum(c->collectives, c->ncollectives, PG_EXPERT, false);
  if (now.time <= 0) return false;
  Model q = *m;
  q.parallel.expert = e;
  Arena *a = arena_new();
  const ModelCost *alt = cost_model(a, &q, ctx->target);
  IbSum then = ib_sum(alt->collectives, alt->ncollectives, PG_EXPERT, false);
  double need = alt->footprint.total;
  arena_free(a);
  if (need > ctx->target->memory || !(then.all_time < now.all_time))
    return group_spans(ctx, PG_EXPERT);
  int64_t experts = 0;
  for (int s = 0; s < m->nscopes && !experts; s++) experts = m->scopes[s].experts;
  char b[32], t1[32], t2[32], t3[32], t4[32], fp[32], cap[48];
  Diag *d = checks_report(
      ctx, "cross-node", p->loc,
      "the expert group (%lld GPUs) spans %lld nodes: its collectives put %s "
      "and %s %s on InfiniBand; with expert = %lld it stays in a node "
      "and they take %s instead of %s %s",
      (long long)gp.size, (long long)gp.nodes, fmt_bytes(b, sizeof b, now.bytes),
      fmt_time(t1, sizeof t1, now.time), ops_unit(c), (long long)e,
      fmt_time(t2, sizeof t2, then.all_time),
      fmt_time(t3, sizeof t3, now.all_time), ops_unit(c));
  diag_figure(d, "ib_bytes", now.bytes);
  diag_figure(d, "ib_time_s", now.time);
  diag_figure(d, "collective_time_s", now.all_time);
  diag_figure(d, "expert_in_node", (double)e);
  diag_figure(d, "expert_in_node_time_s", then.all_time);
  diag_figure(d, "expert_in_node_footprint", need);
  diag_note(d, p->loc,
            "set 'expert = %lld': each GPU holds %lld of the %lld experts "
            "(%s per GPU of %s), saving %s %s",
            (long long)e, (long long)(experts / e), (long long)experts,
            fmt_bytes(fp, sizeof fp, need),
            fmt_capacity(cap, sizeof cap, ctx->target->memory),
            fmt_time(t4, sizeof t4, now.all_time - then.all_time), ops_unit(c));
  return true;
}

/* R-CHK-072: ZeRO's shard group spans nodes while sharding over the data
 * ranks of one node fits: suggest `shard = N` with what it saves. */
static bool shard_spans(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const Parallel *p = &m->parallel;
  const ModelCost *c = ctx->cost;
  if (!m->train || p->zero < 1) return false;
  GroupPlace sg = parallel_place(p, PG_SHARD);
  int64_t in_node = parallel_place(p, PG_DATA).per_node;
  if (sg.nodes <= 1 || in_node < 1 || p->data % in_node != 0) return false;
  Footprint f = cost_footprint_sharded(&c->unsharded, p->zero, in_node);
  if (f.total > ctx->target->memory) return false;
  Parallel q = *p;
  q.shard = in_node;
  Collective alt[COST_MAX_SYNC];
  int n = cost_grad_sync(&q, ctx->target, c->unsharded.weights,
                         c->unsharded.gradients, alt);
  IbSum now = ib_sum(c->collectives, c->ncollectives, PG__COUNT, true);
  IbSum then = ib_sum(alt, n, PG__COUNT, true);
  if (!(then.time < now.time)) return false;
  char b1[32], b2[32], t1[32], t2[32], t3[32], fp[32], cap[32];
  Diag *d = checks_report(
      ctx, "cross-node", p->loc,
      "ZeRO-%lld shards over %lld data ranks on %lld nodes, but sharding "
      "within a node fits (shard = %lld: %s per GPU of %s): InfiniBand would "
      "carry %s instead of %s per step, %s instead of %s",
      (long long)p->zero, (long long)sg.size, (long long)sg.nodes,
      (long long)in_node, fmt_bytes(fp, sizeof fp, f.total),
      fmt_bytes(cap, sizeof cap, ctx->target->memory),
      fmt_bytes(b1, sizeof b1, then.bytes), fmt_bytes(b2, sizeof b2, now.bytes),
      fmt_time(t1, sizeof t1, then.time), fmt_time(t2, sizeof t2, now.time));
  diag_figure(d, "ib_bytes", now.bytes);
  diag_figure(d, "ib_time_s", now.time);
  diag_figure(d, "shard_ib_bytes", then.bytes);
  diag_figure(d, "shard_ib_time_s", then.time);
  diag_figure(d, "shard_footprint", f.total);
  diag_note(d, p->loc,
            "add 'shard = %lld' (hybrid sharding): the all-gathers stay on "
            "NVLink and only the gradient shards cross nodes, saving %s per "
            "step",
            (long long)in_node, fmt_time(t3, sizeof t3, now.time - then.time));
  return true;
}

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  const Target *t = ctx->target;
  const Parallel *p = &m->parallel;
  if (!p->present || p->nodes <= 1 || t->memory <= 0) return;
  bool fired = group_spans(ctx, PG_TENSOR);
  fired |= expert_spans(ctx);
  if (fired || shard_spans(ctx)) return;
  /* R-CHK-070, the seed's case: data-parallel across nodes for a model
   * that fits on one GPU as written (replicated, before any sharding: so
   * never beside a capacity error), without model parallelism. */
  if (p->tensor > 1 || p->expert > 1) return; /* one GPU holds a part only */
  IbSum s = ib_sum(c->collectives, c->ncollectives, PG__COUNT, false);
  if (s.bytes <= 0 || s.time <= 0) return;
  if (s.time < c->time_s * CHECK_MIN_STEP_PCT / 100.0) return;
  double need = c->unsharded.total, mem = t->memory;
  if (need <= 0 || need > mem) return;
  char where[160], b4[32], b1[32], b2[48], b3[32], t1[32], t2[32], t3[32],
      pc[32];
  snprintf(where, sizeof where, "one %s (%s)", checks_target_name(t),
           fmt_capacity(b2, sizeof b2, mem));
  double share = s.all_time > 0 ? s.time / s.all_time : 0;
  Diag *d = checks_report(
      ctx, "cross-node", p->loc,
      "the plan spans %lld nodes but the model (%s of weights, %s "
      "footprint) fits in %s: InfiniBand adds %s and %s per step (%s of the "
      "collective time)",
      (long long)p->nodes, fmt_bytes(b4, sizeof b4, c->unsharded.weights),
      fmt_bytes(b1, sizeof b1, need), where, fmt_bytes(b3, sizeof b3, s.bytes),
      fmt_time(t1, sizeof t1, s.time), fmt_percent(pc, sizeof pc, share, 0));
  diag_figure(d, "ib_bytes", s.bytes);
  diag_figure(d, "ib_time_s", s.time);
  diag_figure(d, "collective_time_s", s.all_time);
  diag_figure(d, "footprint", need);
  diag_note(d, p->loc,
            "inside one node the collectives stay on NVLink: %s per step "
            "instead of %s",
            fmt_time(t2, sizeof t2, s.nv_time),
            fmt_time(t3, sizeof t3, s.all_time));
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "Inside a node GPUs talk over NVLink (900 GB/s on an H100), across\n"
    "nodes over InfiniBand (50 GB/s).  A hierarchical all-reduce across\n"
    "nodes adds an InfiniBand leg that carries a fraction of the NVLink\n"
    "bytes and still takes most of the time.  This check flags InfiniBand\n"
    "traffic that a better placement would avoid: a tensor or expert group\n"
    "that spans nodes (for experts, with the in-node expert degree and the\n"
    "time it saves, when that plan fits); a ZeRO shard group that spans\n"
    "nodes when sharding within a node would fit (it suggests `shard = N`\n"
    "and what it saves); and data parallelism across nodes for a model that\n"
    "fits on one GPU as written.  Seed figures: 2 nodes for a 14.0 GB model\n"
    "add 1.75 GB and 35.0 ms of InfiniBand per step.  \"Fits\" is judged with\n"
    "the plan's own sharding confined to the smaller group, so it never\n"
    "contradicts the capacity check.\n"
    "\n"
    "Fix: keep tensor and expert groups inside a node, shard within a node\n"
    "(`shard = gpus_per_node`), keep a model that fits one GPU inside one\n"
    "node (`nodes = 1`), or overlap the collectives (`overlap = true`).\n"
    "\n"
    "Example:\n"
    "    mode train\n"
    "    parallel { nodes = 2; gpus_per_node = 8 }\n";
/* clang-format on */

const CheckDesc check_cross_node = {
    "cross-node", SEV_WARNING, true,
    "the parallel plan spans nodes while the model fits in one",
    explain, run, NULL, false};
