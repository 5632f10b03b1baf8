/* SPDX-License-Identifier: MIT */
/*
 * footprint.c: the memory one GPU holds (specs/language.md section 11):
 * the activations live at the peak of a step, or, in train mode, kept for
 * the backward pass (fused regions save what leaves them, checkpoint blocks
 * recompute the rest); the KV caches at their longest; what ZeRO's stages
 * and FSDP's gathered units leave each rank; and, with a pipeline, each
 * stage's share.  cost_model (cost.c) runs these steps; the weights and
 * buffers it counts on its own pass over the nodes.
 */
#include "footprint.h"
#include "cost.h"
#include "ops.h"
#include "parallel.h"

#include <stdlib.h>

/* R-PAR-004: what ZeRO stage `zero` leaves each GPU of a shard group of
 * `ns` ranks, from the unsharded footprint (Rajbhandari et al. 2020,
 * figure 1: stage 1 divides the optimizer state, 2 also the gradients, 3
 * also the weights). */
Footprint cost_footprint_sharded(const Footprint *whole, int64_t zero,
                                 int64_t ns) {
  Footprint f = *whole;
  if (ns < 1) ns = 1;
  f.weight_shards = zero >= 3 ? ns : 1;
  f.gradient_shards = zero >= 2 ? ns : 1;
  f.optimizer_shards = zero >= 1 ? ns : 1;
  f.weights /= (double)f.weight_shards;
  f.gradients /= (double)f.gradient_shards;
  f.optimizer /= (double)f.optimizer_shards;
  f.gathered = f.weight_shards > 1 ? f.units : 0; /* R-PAR-013 */
  f.total = f.weights + f.gradients + f.optimizer + f.activations + f.buffers +
            f.kv_cache + f.gathered;
  return f;
}

/* R-PAR-013: the FSDP units zero = 3 gathers are each copy of the layers'
 * repeat (transformer_auto_wrap_policy wraps each block) and the root, the
 * rest of the model's weights; with limit_all_gathers (PyTorch's default)
 * two consecutive units are gathered at once: the two largest of a root of
 * `root` bytes and `layers` units of `layer` bytes. */
double footprint_fsdp_units(double root, double layer, double layers) {
  double a = root > layer ? root : layer, b = root > layer ? layer : root;
  if (layers >= 2 && layer > b) b = layer;
  if (layers < 1) b = 0, a = root;
  return a + b;
}

/* Which values leave their fused region (scratch, n bools, for the caller
 * to free; NULL without regions): a node of a region whose storage is a
 * model output or is read outside the region, itself or through views
 * inside it (a view at the region's edge is the same storage).  One pass,
 * last node first: a consumer comes after what it reads, so a view's mark
 * is final before its input's is decided. */
bool *footprint_region_exits(const Model *m) {
  if (m->nregions == 0) return NULL;
  int n = m->nnodes;
  bool *leaves = xcalloc((size_t)n + 1, sizeof *leaves);
  for (int i = n - 1; i >= 0; i--) {
    const GNode *g = &m->nodes[i];
    if (g->is_output) leaves[i] = true;
    bool alias = is_alias(m, g);
    for (int k = 0; k < g->ninputs; k++) {
      int src = g->inputs[k];
      int r = m->nodes[src].region;
      /* an alias is its first input's storage (an append's second input
       * is copied into it, not aliased) */
      if (r >= 0 && (g->region != r || (alias && k == 0 && leaves[i])))
        leaves[src] = true;
    }
  }
  return leaves;
}

/* R-PAR-010: each node's checkpoint block, -1 outside (scratch, n ints,
 * for the caller to free; NULL without blocks or outside train mode). */
int *footprint_checkpoint_blocks(const Model *m) {
  if (!m->train || m->nckpts == 0) return NULL;
  int *of = xmalloc(((size_t)m->nnodes + 1) * sizeof *of);
  for (int i = 0; i < m->nnodes; i++) of[i] = -1;
  for (int b = 0; b < m->nckpts; b++)
    for (int i = m->ckpts[b].first; i < m->ckpts[b].end; i++) of[i] = b;
  return of;
}

/* Which values of a checkpoint block leave it: model outputs, values
 * carried to the next copy of a repeat, and what a node outside the
 * block reads (through views, their storage). */
static bool *checkpoint_keeps(const Model *m, const int *ckpt_of) {
  int n = m->nnodes;
  bool *keep = xcalloc((size_t)n + 1, sizeof *keep);
  for (int i = n - 1; i >= 0; i--) {
    const GNode *g = &m->nodes[i];
    if (g->is_output || g->loop_carried) keep[i] = true;
    bool alias = is_alias(m, g);
    for (int k = 0; k < g->ninputs; k++) {
      int src = g->inputs[k];
      if (ckpt_of[src] >= 0 && (ckpt_of[src] != ckpt_of[i] || (alias && keep[i])))
        keep[src] = true;
    }
  }
  return keep;
}

static void count_op(const GNode *g, OpCounts *oc) {
  oc->collectives += is_op(g, OC_COLLECTIVE) + 4 * g->vocab_parallel; /* R-PAR-012, 019 */
  oc->ops += g->op != NULL;
}

/* The largest set of live activations in a linear scan of the graph (in
 * source order): a value is live from the node that makes it to its last
 * consumer; outputs stay live to the end.  A repeat/loop body is scanned
 * once, as its copies run one after another.  In train mode every value a
 * kernel writes to HBM is kept for the backward pass, each times its
 * count: the inputs and the outputs of every op outside a fused region;
 * of a region only the values that leave it (`leaves`), since a fused
 * kernel saves its inputs and recomputes the rest (R-TRAIN-002). */
/* A value's bytes as the footprint holds them: an experts block's values
 * for the tokens it runs (R-MOE-002). */
static double held_bytes(const Model *m, int id, bool experts) {
  const GNode *g = &m->nodes[id];
  return node_bytes(m, id) * (experts && g->role == ROLE_ACTIVATION
                                  ? model_experts_work(m, g->scope)
                                  : 1);
}

/* Whether node i, in train mode, is an op's result the backward pass
 * reads (R-TRAIN-002): one a kernel writes to HBM, outside a fused region
 * or leaving it. */
static bool saved_result(const Model *m, int i, const bool *leaves) {
  const GNode *g = &m->nodes[i];
  return g->role == ROLE_ACTIVATION && !is_alias(m, g) &&
         !is_op(g, OC_TRANSFER) && (g->region < 0 || (leaves && leaves[i]));
}

/* R-PAR-010: a saved result of a checkpoint block that does not leave it:
 * recomputed in backward, not kept. */
static bool recomputed(const Model *m, int i, const bool *leaves,
                       const int *ckpt_of, const bool *keep) {
  return keep && ckpt_of[i] >= 0 && !keep[i] && saved_result(m, i, leaves);
}

/* R-TRAIN-002, R-PAR-010: the bytes node i keeps for the backward pass,
 * times its count; a checkpointed value that does not leave its block
 * keeps nothing and adds its bytes (one copy) to own[its block]. */
static double kept_bytes(const Model *m, int i, const bool *leaves,
                         const int *ckpt_of, const bool *keep, double *own,
                         bool experts) {
  const GNode *g = &m->nodes[i];
  if (recomputed(m, i, leaves, ckpt_of, keep)) {
    own[ckpt_of[i]] += held_bytes(m, i, experts);
    return 0;
  }
  return saved_result(m, i, leaves) || g->role == ROLE_INPUT
             ? held_bytes(m, i, experts) * g->count
             : 0;
}

/* The bytes node i adds to the live set of an inference step (0 when it
 * holds none: not an input or an activation, or an alias).  An input
 * declared in a repeat is new data per copy and every copy's is resident
 * at once (a per-layer KV cache); in a loop only the current trip's is
 * live (R-COST-009). */
static double live_bytes(const Model *m, int i, bool experts) {
  const GNode *g = &m->nodes[i];
  if ((g->role != ROLE_INPUT && g->role != ROLE_ACTIVATION) || is_alias(m, g))
    return 0;
  return held_bytes(m, i, experts) *
         (g->role == ROLE_INPUT ? model_weight_copies(m, g->scope) : 1);
}

static void add_by_dtype(double *by_dtype, DType dt, double bytes) {
  if (by_dtype && dt != DT_NONE) by_dtype[dt] += bytes;
}

/* by_dtype, when not NULL, gets the same bytes split by storage dtype
 * (--plan's rows, R-PLAN-002). */
double footprint_activations(Arena *scratch, const Model *m, const bool *leaves,
                             const int *ckpt_of, bool experts, OpCounts *oc,
                             double *by_dtype) {
  int n = m->nnodes;
  if (n == 0) return 0;
  if (m->train) {
    /* R-PAR-010: a checkpoint block keeps only what leaves it (read
     * after it, carried to the next copy, or an output); backward
     * recomputes the rest, one block at a time: the largest block's own
     * values, one copy, are live while it does */
    bool *keep = ckpt_of ? checkpoint_keeps(m, ckpt_of) : NULL;
    double *own = ckpt_of ? xcalloc((size_t)m->nckpts + 1, sizeof *own) : NULL;
    double sum = 0, buffer = 0;
    int largest = -1;
    for (int i = 0; i < n; i++) {
      count_op(&m->nodes[i], oc);
      double kept = kept_bytes(m, i, leaves, ckpt_of, keep, own, experts);
      sum += kept;
      add_by_dtype(by_dtype, m->nodes[i].type->dtype, kept);
    }
    for (int b = 0; own && b < m->nckpts; b++)
      if (own[b] > buffer) buffer = own[b], largest = b;
    for (int i = 0; by_dtype && largest >= 0 && i < n; i++)
      if (ckpt_of[i] == largest && recomputed(m, i, leaves, ckpt_of, keep))
        add_by_dtype(by_dtype, m->nodes[i].type->dtype, held_bytes(m, i, experts));
    free(keep);
    free(own);
    return sum + buffer;
  }
  /* Scratch, in the caller's scratch arena: the result arena keeps only
   * what outlives cost. */
  /* One pass, last node first: every consumer of a node comes after it,
   * so its last use is known when the pass reaches it, and a view or no-op
   * cast (which holds no bytes of its own) hands its own last use on to
   * what it aliases, down chains of views.  last[] holds last use + 1, so
   * the zeroed array reads "none yet". */
  int *last = arena_alloc(scratch, (size_t)n * sizeof *last);
  for (int i = n - 1; i >= 0; i--) {
    const GNode *g = &m->nodes[i];
    count_op(g, oc);
    int own = (g->is_output ? n : i) + 1;
    if (last[i] < own) last[i] = own;
    int use = is_alias(m, g) ? last[i] : i + 1;
    for (int k = 0; k < g->ninputs; k++) {
      int src = g->inputs[k];
      if (last[src] < use) last[src] = use;
    }
  }
  double live = 0, peak = 0;
  int at = -1; /* the node at which the peak is reached */
  double *free_at = arena_alloc(scratch, ((size_t)n + 1) * sizeof *free_at);
  for (int i = 0; i < n; i++) {
    double bytes = live_bytes(m, i, experts);
    live += bytes;
    free_at[last[i] - 1] += bytes;
    if (live > peak) peak = live, at = i;
    live -= free_at[i];
  }
  /* what is live there: made by then, last used then or later */
  for (int i = 0; by_dtype && i <= at; i++)
    if (last[i] - 1 >= at)
      add_by_dtype(by_dtype, m->nodes[i].type->dtype, live_bytes(m, i, experts));
  return peak;
}

/* R-PLAN-002: the activation footprint by storage dtype, added into
 * by_dtype[DT__COUNT]; the same walk as cost_model's, so the rows add up
 * to its figure.  Returns that figure. */
double cost_activations(const Model *m, double *by_dtype) {
  bool *leaves = footprint_region_exits(m);
  int *ckpt_of = footprint_checkpoint_blocks(m);
  bool experts = false;
  for (int s = 0; s < m->nscopes && !experts; s++)
    experts = m->scopes[s].experts > 0;
  OpCounts counts = {0, 0};
  Arena *scratch = arena_new();
  double total = footprint_activations(scratch, m, leaves, ckpt_of, experts,
                                       &counts, by_dtype);
  arena_free(scratch);
  free(leaves);
  free(ckpt_of);
  return total;
}

/* R-CACHE-001: a cache holds, once per repeat copy, the longest it gets:
 * the largest of its declared size and the results of the appends to it
 * (appends come after the cache they extend, so one pass keeps each
 * cache's longest so far, in scratch).  An append's cache is its first
 * operand's, kept per node, so a chain of appends is linear, not a walk
 * back to the cache from each. */
double cost_kv_cache(const Model *m, double *by_dtype) {
  double total = 0, *longest = NULL;
  int *cache_of = NULL;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->role != ROLE_CACHE && !is_append(g)) continue;
    if (!longest) {
      longest = xcalloc((size_t)m->nnodes, sizeof *longest);
      cache_of = xcalloc((size_t)m->nnodes, sizeof *cache_of);
    }
    int first = is_append(g) ? g->inputs[0] : i;
    int root = is_append(g) && is_append(&m->nodes[first]) ? cache_of[first]
                                                           : storage_of(m, first);
    cache_of[i] = root;
    double bytes = node_bytes(m, i), *have = &longest[root];
    if (bytes <= *have) continue;
    double more = (bytes - *have) * model_weight_copies(m, m->nodes[root].scope);
    total += more;
    if (by_dtype) by_dtype[m->nodes[root].type->dtype] += more;
    *have = bytes;
  }
  free(longest);
  free(cache_of);
  return total;
}

/* What each part of a pipelined model holds (PART_PRE, PART_BODY,
 * PART_POST), summed over its nodes. */
typedef struct PartSums {
  double weights[PART__COUNT], params[PART__COUNT], buffers[PART__COUNT],
      activations[PART__COUNT];
  double carried;   /* the value a layer hands to the next */
  double recompute; /* the recompute buffer of the largest block */
} PartSums;

static PartSums part_sums(const ModelCost *mc, const Model *m,
                          const bool *leaves, const int *ckpt_of) {
  const PipelineCost *pc = &mc->pipe;
  PartSums s = {.carried = 0};
  bool *keep = ckpt_of ? checkpoint_keeps(m, ckpt_of) : NULL;
  double *own = ckpt_of ? xcalloc((size_t)m->nckpts + 1, sizeof *own) : NULL;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    int part = pipe_part(m, i, pc->scope, pc->first_node);
    double copies = model_weight_copies(m, g->scope);
    if (g->role == ROLE_WEIGHT) { /* an expert's: E/e per GPU (R-MOE-003) */
      double e = mc->experts && model_experts_scope(m, g->scope) >= 0
                     ? expert_degree(m) : 1;
      s.weights[part] += node_bytes(m, i) * copies / e;
      s.params[part] += op_tensor_elements(g->type) * copies / e;
    }
    if (g->role == ROLE_BUFFER) s.buffers[part] += node_bytes(m, i) * copies;
    if (m->train)
      s.activations[part] += kept_bytes(m, i, leaves, ckpt_of, keep, own, mc->experts);
    /* the value a layer hands to the next: the body's loop-carried one */
    if (part == PART_BODY && g->loop_carried && node_bytes(m, i) > s.carried)
      s.carried = node_bytes(m, i);
  }
  /* once per stage */
  for (int b = 0; own && b < m->nckpts; b++)
    if (own[b] > s.recompute) s.recompute = own[b];
  free(keep);
  free(own);
  return s;
}

/* R-PAR-009: each stage kind's footprint (1F1B keeps p - s microbatches of
 * activations on stage s: p on the first, p - 1 on stage 1, 1 on the
 * last; Narayanan et al. 2021, section 2.2.1), the worst one's unsharded
 * footprint into mc->unsharded. */
static void stage_footprints(ModelCost *mc, const Model *m, const PartSums *s) {
  PipelineCost *pc = &mc->pipe;
  const Parallel *par = &m->parallel;
  double p = (double)pc->stages;
  pc->inflight[PIPE_FIRST] = p;
  pc->inflight[PIPE_MIDDLE] = p - 1;
  pc->inflight[PIPE_LAST] = 1;
  int64_t ns = parallel_place(par, PG_SHARD).size;
  double worst = -1;
  for (int k = 0; k < PIPE__KINDS; k++) {
    if (k == PIPE_MIDDLE && pc->stages < 3) continue;
    Footprint f = {0};
    f.weights = stage_share(s->weights, k, p);
    f.buffers = stage_share(s->buffers, k, p);
    f.activations = m->train ? stage_share(s->activations, k, p) * pc->inflight[k] +
                                   s->recompute
                             : mc->footprint.activations;
    if (m->train) {
      f.gradients = f.weights;
      f.optimizer = stage_share(s->params, k, p) * ADAM_BYTES_PER_PARAM;
    }
    /* R-PAR-013: a stage's units, its layers and what else it runs */
    double body = s->weights[PART_BODY];
    f.units = footprint_fsdp_units(stage_share(s->weights, k, p) - body / p,
                                   body / (double)m->scopes[pc->scope].trips,
                                   pc->layers);
    f.total = f.weights + f.gradients + f.optimizer + f.activations + f.buffers;
    pc->footprint[k] = m->train ? cost_footprint_sharded(&f, par->zero, ns) : f;
    if (pc->footprint[k].total > worst) {
      worst = pc->footprint[k].total;
      pc->worst = k;
      mc->unsharded = f;
    }
  }
}

/* Sequence parallelism: a collective over the tensor group that is not an
 * all-reduce (its all-gather or reduce-scatter). */
static bool sequence_parallel(const Model *m) {
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->op && g->op->cls == OC_COLLECTIVE && g->args->group == PG_TENSOR &&
        !(g->op->flags & OPF_ALLREDUCE))
      return true;
  }
  return false;
}

/* R-PAR-009: the boundary send of the value a layer hands to the next. */
static void stage_send(PipelineCost *pc, const Model *m, const Target *t,
                       double carried) {
  const Parallel *par = &m->parallel;
  GroupPlace pp = parallel_place(par, PG_PIPELINE);
  pc->send_ib = pp.nodes > 1;
  double nvbw = t->nvlink_bw > 0 ? t->nvlink_bw : t->pcie_bw;
  double ibbw = t->ib_bw > 0 ? t->ib_bw : t->pcie_bw;
  double bw = pc->send_ib ? ibbw : nvbw;
  pc->send_bytes = carried;
  pc->send_time = bw > 0 ? carried / bw : 0;
  /* R-PAR-011: across nodes, the t tensor ranks of a stage hold the same
   * carried value: each sends 1/t of it over its own InfiniBand link and
   * the next stage all-gathers it over NVLink (Megatron-LM's scatter/
   * gather, Narayanan et al. 2021, section 4.1); not under sequence
   * parallelism, whose carried value is already each rank's slice */
  pc->send_split = 1;
  double tg = (double)parallel_place(par, PG_TENSOR).size;
  if (pc->send_ib && tg > 1 && !sequence_parallel(m) &&
      parallel_place(par, PG_TENSOR).nodes <= 1) {
    pc->send_split = tg;
    pc->send_time = (ibbw > 0 ? carried / tg / ibbw : 0) +
                    (nvbw > 0 ? (tg - 1) / tg * carried / nvbw : 0);
  }
}

void footprint_pipeline(ModelCost *mc, const Model *m, const Target *t,
                        const bool *leaves, const int *ckpt_of) {
  PipelineCost *pc = &mc->pipe;
  const Parallel *par = &m->parallel;
  double p = (double)par->pipeline;
  pc->stages = (int)par->pipeline;
  pc->microbatches = (double)par->microbatches;
  pc->scope = parallel_pipeline_scope(m);
  pc->layers = (double)m->scopes[pc->scope].trips / p;
  int first = -1;
  for (int i = 0; i < m->nnodes && first < 0; i++)
    if (pipe_part(m, i, pc->scope, m->nnodes) == PART_BODY) first = i;
  pc->first_node = first;
  PartSums s = part_sums(mc, m, leaves, ckpt_of);
  stage_footprints(mc, m, &s);
  stage_send(pc, m, t, s.carried);
  pc->bubble = (p - 1) / (pc->microbatches + p - 1);
}
