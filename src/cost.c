/* SPDX-License-Identifier: MIT */
/*
 * cost.c: FLOPs and bytes per node, the roofline per node and per kernel,
 * occupancy, collectives, the train-mode step and the totals (specs/
 * language.md section 11); cost_model runs footprint.c's steps for the
 * memory one GPU holds.  A pure function of (model, target).
 *
 * An op's FLOPs, bytes and blocks are its row's cost rule (ops.def,
 * ops.c); nothing here depends on which op it is beyond its row's class,
 * train factor and flags.  A node inside repeat/loop
 * is costed once and carries a count; totals multiply by it, so a
 * `repeat 1000000000` costs no more to analyse than `repeat 1`.
 *
 * Kernels: every op that is not a view is a kernel of its own, except that
 * the ops of one `fused` region make a single kernel whose FLOPs add up and
 * whose bytes are the region's inputs from outside plus its outputs used
 * outside.  Totals are summed over kernels.
 */
#include "arena.h"
#include "footprint.h"
#include "cost.h"
#include "ops.h"
#include "parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *bound_str(Bound b) {
  static const char *const names[] = {
      [BOUND_NONE] = "none",       [BOUND_MEMORY] = "memory",
      [BOUND_COMPUTE] = "compute", [BOUND_PCIE] = "pcie",
      [BOUND_NETWORK] = "network",
  };
  return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "?";
}

/* A result after the first of an op with several that computes (topk's
 * indices): the first result's kernel writes it, so it has none of its own
 * (R-ROUTE-001); it holds its own bytes all the same (not an alias). */
static bool is_later_result(const GNode *n) {
  return n->op && (n->op->flags & OPF_RESULTS) && n->op->cls != OC_VIEW &&
         n->args->result > 0;
}

static const TensorType *in_type(const Model *m, const GNode *n, int i) {
  return m->nodes[n->inputs[i]].type;
}

/* The compute precision: sema's, else the widest input (else the output). */
static DType precision_of(const Model *m, const GNode *n) {
  if (n->precision != DT_NONE) return n->precision;
  DType best = n->type->dtype;
  int bits = best == DT_NONE ? 0 : dtype_info(best)->bits;
  for (int i = 0; i < n->ninputs; i++) {
    DType d = in_type(m, n, i)->dtype;
    if (d != DT_NONE && dtype_info(d)->bits > bits) {
      best = d;
      bits = dtype_info(d)->bits;
    }
  }
  return best;
}

/* The peaks a model's nodes run at, by [contraction][precision + 1],
 * looked up once per model, not once per node; 0 until asked. */
typedef struct CostMemo {
  double peak[2][DT__COUNT + 1];
  bool tensor[2][DT__COUNT + 1];
} CostMemo;

static double memo_peak(CostMemo *cm, const Target *t, DType precision,
                        bool contraction, bool *tensor) {
  int p = (int)precision + 1;
  if (p < 0 || p > DT__COUNT)
    return target_peak(t, precision, contraction, tensor);
  double *peak = &cm->peak[contraction][p];
  if (*peak == 0)
    *peak = target_peak(t, precision, contraction, &cm->tensor[contraction][p]);
  *tensor = cm->tensor[contraction][p];
  return *peak;
}

/* Train step = forward + backward, by the op's row (ops.def). */
static double train_factor(const GNode *n) {
  if (n->forward_only) return 1; /* R-PAR-019 */
  return n->op ? n->op->train_factor : 1;
}

/* ------------------------------------------------------------- roofline */

/* The one roofline: where (flops, bytes) sits under `peak` and bandwidth
 * `bw`.  cost_model keeps the bound and the time; the rest is derived on
 * demand by roof_point() through this same function. */
static void roofline(double flops, double bytes, double peak, double bw,
                     RoofPoint *r, Bound *bound, double *time) {
  r->intensity = bytes > 0 ? flops / bytes : 0;
  r->ridge = bw > 0 ? peak / bw : 0;
  if (bytes <= 0) {
    r->attainable = flops > 0 ? peak : 0;
    *bound = flops > 0 ? BOUND_COMPUTE : BOUND_NONE;
  } else {
    double slanted = bw * r->intensity;
    r->attainable = slanted < peak ? slanted : peak;
    *bound = slanted >= peak ? BOUND_COMPUTE : BOUND_MEMORY;
  }
  double tc = peak > 0 ? flops / peak : 0, tm = bw > 0 ? bytes / bw : 0;
  *time = tc > tm ? tc : tm;
}

/* ---------------------------------------------------------- collectives */

/* R-COLL-001: a ring collective over group `gp` (parallel_place),
 * hierarchical across nodes: the NVLink ring inside a node over the whole
 * buffer, then a ring across nodes over the buffer / ranks-per-node shard
 * on InfiniBand (the seed's model).  An all-reduce moves 2(N-1)/N of its
 * buffer through each link, the others (N-1)/N. */
static void ring(Collective *c, double factor, GroupPlace gp, const Target *t) {
  double g = (double)gp.per_node, nodes = (double)gp.nodes;
  c->ranks = (int)gp.size;
  c->nvlink_bytes = g > 1 ? factor * (g - 1) / g * c->buffer : 0;
  c->ib_bytes =
      nodes > 1 ? factor * (nodes - 1) / nodes * (c->buffer / g) : 0;
  double nvbw = t->nvlink_bw > 0 ? t->nvlink_bw : t->pcie_bw;
  double ibbw = t->ib_bw > 0 ? t->ib_bw : t->pcie_bw;
  c->nvlink_time = nvbw > 0 ? c->nvlink_bytes / nvbw : 0;
  c->ib_time = ibbw > 0 ? c->ib_bytes / ibbw : 0;
  c->time_s = c->nvlink_time + c->ib_time;
}

static void implicit(Collective *c, OpId op, const char *what, double buffer,
                     ParGroup g, const Parallel *p, const Target *t) {
  const OpDesc *d = op_get(op);
  memset(c, 0, sizeof *c);
  c->node = -1;
  c->at = -1;
  c->kind = d->name;
  c->what = what;
  c->group = g;
  c->buffer = buffer;
  c->count = 1;
  ring(c, d->flags & OPF_ALLREDUCE ? 2 : 1, parallel_place(p, g), t);
}

/* R-PAR-005: a train step's gradient synchronisation, by ZeRO stage
 * (Rajbhandari et al. 2020, section 7): stage 0 all-reduces the
 * gradients over the data group; stages 1 and 2 reduce-scatter them over
 * the shard group and all-gather the updated weights (the same 2(N-1)/N
 * per GPU as the all-reduce); stage 3 all-gathers each layer's weights in
 * forward and again in backward and reduce-scatters the gradients, 1.5x
 * the bytes.  With shard groups smaller than data (hybrid sharding) the
 * gradient shards are all-reduced across the groups. */
int cost_grad_sync(const Parallel *p, const Target *t, double weights,
                   double grads, Collective *out) {
  if (weights <= 0 || parallel_place(p, PG_DATA).size <= 1) return 0;
  int n = 0;
  if (p->zero == 0) {
    implicit(&out[n++], OP_ALLREDUCE, "gradients", grads, PG_DATA, p, t);
    return n;
  }
  if (p->zero == 3) { /* the gathers free the weights after use (R-PAR-020) */
    implicit(&out[n++], OP_ALLGATHER, "weights, forward", weights, PG_SHARD, p, t);
    implicit(&out[n++], OP_ALLGATHER, "weights, backward", weights, PG_SHARD, p, t);
    out[n - 2].every_microbatch = out[n - 1].every_microbatch = true;
    implicit(&out[n++], OP_REDUCE_SCATTER, "gradients", grads, PG_SHARD, p, t);
  } else {
    implicit(&out[n++], OP_REDUCE_SCATTER, "gradients", grads, PG_SHARD, p, t);
    implicit(&out[n++], OP_ALLGATHER, "weights", weights, PG_SHARD, p, t);
  }
  GroupPlace shard = parallel_place(p, PG_SHARD);
  if (parallel_place(p, PG_REPLICA).size > 1)
    implicit(&out[n++], OP_ALLREDUCE, "gradient shards",
             grads / (double)shard.size, PG_REPLICA, p, t);
  return n;
}

/* The gradient synchronisation's time: the collectives no op brings (a
 * stage's all-to-alls are its time), without those that run every
 * microbatch when `once` asks for what runs once a step (R-PAR-020). */
static double sync_time(const ModelCost *mc, bool once) {
  double sync = 0;
  for (int i = 0; i < mc->ncollectives; i++) {
    const Collective *c = &mc->collectives[i];
    if (c->node < 0 && c->at < 0 && !(once && c->every_microbatch))
      sync += c->time_s * c->count;
  }
  return sync;
}

/* R-PAR-020: m microbatches accumulated run the totals' compute and their
 * ops' collectives m times, the synchronisation once. */
StepSplit cost_step_split(const ModelCost *mc) {
  if (mc->accumulated <= 1) /* the totals are the step */
    return (StepSplit){.compute = mc->time_s - mc->collective_time,
                       .communication = mc->collective_time,
                       .overlapped = mc->overlap_time, .summed = mc->time_s};
  double m = mc->accumulated, sync = sync_time(mc, true);
  StepSplit s;
  s.compute = m * (mc->time_s - mc->collective_time);
  s.communication = m * (mc->collective_time - sync) + sync;
  s.overlapped = s.compute > s.communication ? s.compute : s.communication;
  s.summed = s.compute + s.communication;
  return s;
}

bool cost_per_microbatch(const ModelCost *mc) {
  return mc->pipe.stages > 1 || mc->accumulated > 1;
}

/* R-PAR-009: with a pipeline, the step is (m + p - 1) slots of the
 * slowest stage plus the gradient synchronisation, or the longer of the
 * two with overlap; an experts block's dispatch and combine run in its
 * stage, every microbatch (pipeline_time), not once a step. */
double cost_step_time(const ModelCost *mc) {
  bool overlap = mc->model->parallel.overlap;
  if (mc->pipe.stages > 1) {
    double sync = sync_time(mc, false), pipe = mc->pipe.step_time;
    if (overlap) return pipe > sync ? pipe : sync;
    return pipe + sync;
  }
  StepSplit s = cost_step_split(mc);
  return overlap ? s.overlapped : s.summed;
}

/* ------------------------------------------------ mixtures of experts */

/* What an experts block does to the figures of the ops in it, as written
 * on all of the layer's tokens (R-MOE-002). */
typedef struct MoeScope {
  double tokens;   /* T: rows of the first tensor the body reads from outside */
  double work;     /* K x capacity_factor x imbalance: tokens run / T */
  double touched;  /* experts whose weights one GPU reads per step */
  double sharding; /* e: one GPU holds E / e experts */
  double routed;   /* bytes of the tokens read, as T x width in their dtype */
} MoeScope;

/* Per scope (NULL without an experts block; scratch, the caller frees). */
static MoeScope *moe_scopes(const Model *m) {
  MoeScope *moe = NULL;
  for (int s = 0; s < m->nscopes; s++)
    if (m->scopes[s].experts && !moe)
      moe = xcalloc((size_t)m->nscopes, sizeof *moe);
  if (!moe) return NULL;
  /* T: the first op of a block that reads a tensor from outside it (not a
   * weight or a buffer) reads the layer's tokens: its rows, all dims but
   * the last */
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    int s = g->op ? model_experts_scope(m, g->scope) : -1;
    if (s < 0 || moe[s].tokens > 0) continue;
    for (int j = 0; j < g->ninputs && moe[s].tokens == 0; j++) {
      const GNode *in = &m->nodes[g->inputs[j]];
      if (model_experts_scope(m, in->scope) == s || in->role == ROLE_WEIGHT ||
          in->role == ROLE_BUFFER || in->type->rank == 0)
        continue;
      moe[s].tokens = op_tensor_elements(in->type) /
                      (double)in->type->dims[in->type->rank - 1];
      moe[s].routed = op_tensor_bytes(in->type);
    }
  }
  double e = expert_degree(m);
  for (int s = 0; s < m->nscopes; s++) {
    const Scope *sc = &m->scopes[s];
    if (!sc->experts) continue;
    MoeScope *q = &moe[s];
    double E = (double)sc->experts, K = (double)sc->top;
    if (q->tokens == 0) q->tokens = 1;
    q->work = model_experts_work(m, s);
    q->sharding = e;
    /* each of a GPU's E/e experts is missed by every one of the e*T tokens
     * the expert group routes with probability 1 - K/E; for a tiny K/E
     * (1 - K/E rounds to 1) the same through log1p and expm1.  The
     * experts missed are subtracted from the GPU's E/e rather than the
     * hit probability multiplied by it, so one token touches exactly K
     * (60 x (1 - (1 - 4/60)) is a hair under 4 in doubles, 60 - 56 is 4) */
    double p = K / E, n = e * q->tokens, per_gpu = E / e;
    q->touched = p < 1e-6 ? per_gpu * -expm1(n * log1p(-p))
                          : per_gpu - per_gpu * pow(1 - p, n);
  }
  return moe;
}

/* An expert's weight (declared in experts scope s): read per touched
 * expert, where the rest of the body's bytes scale with the tokens. */
static bool is_expert_weight(const Model *m, int id, int s) {
  const GNode *g = &m->nodes[id];
  return (g->role == ROLE_WEIGHT || g->role == ROLE_BUFFER) &&
         model_experts_scope(m, g->scope) == s;
}

/* The figures of one op application in experts scope s. */
static void moe_op(const Model *m, const GNode *g, int s, const MoeScope *q,
                   OpCost *oc) {
  double wb = 0;
  for (int j = 0; j < g->ninputs; j++) {
    bool dup = false;
    for (int k = 0; k < j; k++) dup = dup || g->inputs[k] == g->inputs[j];
    if (!dup && is_expert_weight(m, g->inputs[j], s))
      wb += op_tensor_bytes(m->nodes[g->inputs[j]].type);
  }
  oc->flops *= q->work;
  oc->bytes = (oc->bytes - wb) * q->work + wb * q->touched;
  oc->blocks = ceil(oc->blocks * q->work);
}

/* C(n - a, K) / C(n, K): that K of n items drawn without replacement
 * miss a given a of them (0 when they cannot). */
static double miss_all(double n, double a, int64_t K) {
  double p = 1;
  for (int64_t i = 0; i < K && p > 0; i++)
    p *= n - a - (double)i > 0 ? (n - a - (double)i) / (n - (double)i) : 0;
  return p;
}

/* R-MOE-007: the expert-group ranks one token is sent to, a copy per
 * rank (DeepEP's dispatch, which sums a rank's experts' outputs before
 * combining): the expected number of the e ranks (E/e experts each)
 * holding at least one of its K experts, drawn uniformly; with DeepSeek's
 * group-limited routing (n_group groups, a token's experts within
 * topk_group of them, drawn uniformly) over groups that align with the
 * ranks, within the chosen groups only.  At most one expert a rank: K. */
static double moe_ranks_reached(const Scope *sc, double e) {
  double E = (double)sc->experts, h = E / e;
  int64_t K = sc->top, G = sc->n_group, M = sc->topk_group;
  bool aligned = G > 1 && ((int64_t)e % G == 0 || G % (int64_t)e == 0);
  if (!aligned) return h <= 1 ? (double)K : e * (1 - miss_all(E, h, K));
  double x = E / (double)G, n = (double)M * x; /* experts a group, chosen */
  if ((int64_t)e % G == 0) /* a rank within one group, chosen M/G */
    return e * ((double)M / (double)G) * (1 - miss_all(n, h, K));
  /* g = G/e whole groups a rank, j of them chosen: hypergeometric */
  int64_t g = G / (int64_t)e;
  double hit = 0;
  for (int64_t j = 1; j <= g && j <= M; j++) {
    if (M - j > G - g) continue; /* the other groups cannot hold the rest */
    double pj = 1; /* C(g, j) C(G - g, M - j) / C(G, M) */
    for (int64_t i = 0; i < j; i++) pj *= (double)(g - i) / (double)(j - i);
    for (int64_t i = 0; i < M - j; i++)
      pj *= (double)(G - g - i) / (double)(M - j - i);
    for (int64_t i = 0; i < M; i++) pj /= (double)(G - i) / (double)(M - i);
    hit += pj * (1 - miss_all(n, (double)j * x, K));
  }
  return e * hit;
}

/* R-MOE-006: with an expert group of e > 1 GPUs each layer copy of an
 * experts block sends its routed tokens to their experts' GPUs and back,
 * an all-to-all each way (dispatch and combine, as DeepEP and
 * Megatron-Core's token dispatchers do): T rows of the block's input per
 * rank a token reaches (R-MOE-007), times capacity_factor, priced as the
 * all_to_all op is (R-COLL-001, (N-1)/N of the buffer per link); in train
 * mode the backward sends the gradients the same two ways.  Into out; how
 * many (at most 4 a block). */
static int moe_all_to_alls(const Model *m, const Target *t, const MoeScope *moe,
                           Collective *out) {
  int n = 0;
  if (!moe || parallel_place(&m->parallel, PG_EXPERT).size <= 1) return 0;
  static const char *const what[] = {"dispatch", "combine",
                                     "dispatch, backward", "combine, backward"};
  for (int s = 0; s < m->nscopes; s++) {
    const Scope *sc = &m->scopes[s];
    if (!sc->experts) continue;
    double buffer = moe[s].routed * moe_ranks_reached(sc, moe[s].sharding) *
                    sc->capacity_factor;
    double copies = sc->parent >= 0 ? model_weight_copies(m, sc->parent) : 1;
    int at = 0; /* the block's first node: its pipeline stage sends them */
    while (at < m->nnodes - 1 && m->nodes[at].scope != s) at++;
    for (int k = 0; k < (m->train ? 4 : 2); k++) {
      implicit(&out[n], OP_ALL_TO_ALL, what[k], buffer, PG_EXPERT,
               &m->parallel, t);
      out[n].at = at;
      out[n++].count = copies;
    }
  }
  return n;
}

/* The contraction that makes the logits `v` (through views and
 * elementwise ops: a soft-cap), or -1. */
static int head_of(const Model *m, int v) {
  for (int steps = 0; v >= 0 && steps < m->nnodes; steps++) {
    const GNode *g = &m->nodes[v];
    if (!g->op) return -1;
    if (g->op->cls == OC_CONTRACTION) return v;
    if ((g->op->cls != OC_VIEW && g->op->cls != OC_ELEMENTWISE) || g->ninputs < 1)
      return -1;
    v = g->inputs[0];
  }
  return -1;
}

/* R-PAR-012: a cross_entropy of logits split over the tensor group
 * (Megatron-LM's vocab_parallel_cross_entropy) all-reduces three fp32
 * values per token over it: the logits' max, the target's logit and the
 * sum of exp; its backward is local (softmax minus the one-hot, each rank
 * on its own slice of the vocabulary).  In train mode the head is
 * column-parallel: its input's gradient is a partial sum on each rank,
 * all-reduced in backward (R-PAR-019).  Into out; how many. */
static int vocab_all_reduces(const Model *m, const Target *t, Collective *out) {
  int n = 0;
  if (parallel_place(&m->parallel, PG_TENSOR).size <= 1) return 0;
  static const char *const what[] = {"cross-entropy max", "cross-entropy target",
                                     "cross-entropy sum"};
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (!g->vocab_parallel || g->ninputs < 1) continue;
    const TensorType *x = m->nodes[g->inputs[0]].type;
    int axis = g->args->has_axis ? (int)g->args->axis : x->rank - 1;
    double vocab = x->rank > 0 && axis >= 0 && axis < x->rank
                       ? (double)x->dims[axis] : 1;
    double tokens = op_tensor_elements(x) / vocab;
    for (int k = 0; k < 3; k++) {
      implicit(&out[n], OP_ALLREDUCE, what[k], tokens * 4, PG_TENSOR,
               &m->parallel, t);
      out[n].at = i;
      out[n++].count = g->count;
    }
    int head = m->train ? head_of(m, g->inputs[0]) : -1;
    if (head >= 0 && m->nodes[head].ninputs > 0) {
      implicit(&out[n], OP_ALLREDUCE, "head input gradient",
               op_tensor_bytes(m->nodes[m->nodes[head].inputs[0]].type),
               PG_TENSOR, &m->parallel, t);
      out[n].at = head;
      out[n++].count = m->nodes[head].count;
    }
  }
  return n;
}

/* ------------------------------------------------------------ pipeline */

/* R-PAR-009: per-stage time per microbatch, from the kernels' times, and
 * the step: (m + p - 1) x the slowest stage. */
static void pipeline_time(ModelCost *mc, const Model *m) {
  PipelineCost *pc = &mc->pipe;
  double p = (double)pc->stages;
  int first = pc->first_node;
  double tm[PART__COUNT] = {0};
  for (int k = 0; k < mc->nkernels; k++) {
    Kernel kn = cost_kernel(mc, k);
    tm[pipe_part(m, kn.first_node, pc->scope, first)] += kn.time_s * kn.count;
  }
  /* R-MOE-006, R-PAR-012: the collectives an op brings are its layers',
   * in the stage that runs them, as an explicit collective's time is */
  for (int i = 0; i < mc->ncollectives; i++) {
    const Collective *c = &mc->collectives[i];
    if (c->at >= 0)
      tm[pipe_part(m, c->at, pc->scope, first)] += c->time_s * c->count;
  }
  double slowest = 0;
  for (int k = 0; k < PIPE__KINDS; k++) {
    if (k == PIPE_MIDDLE && pc->stages < 3) continue;
    pc->compute[k] = stage_share(tm, k, p);
    /* forward: every stage but the last sends its activations on; in
     * train mode every stage but the first sends a gradient back */
    double sends = (k != PIPE_LAST) + (m->train && k != PIPE_FIRST);
    pc->time[k] = pc->compute[k] + sends * pc->send_time;
    if (pc->time[k] > slowest) slowest = pc->time[k];
  }
  pc->step_time = (pc->microbatches + p - 1) * slowest;
}

/* ------------------------------------------------------------- kernels */

static void fused_roofline(FusedCost *k, const Target *t) {
  RoofPoint r;
  roofline(k->flops, k->bytes, k->peak, t->memory_bw, &r, &k->bound, &k->time_s);
}

/* In a region of an experts block, a boundary tensor's bytes scale with
 * the tokens the block runs, an expert's weight's with the experts
 * touched (R-MOE-002); elsewhere 1. */
static double region_moe(const Model *m, const MoeScope *moe, int region,
                         int id) {
  int s = moe ? model_experts_scope(m, m->regions[region].scope) : -1;
  if (s < 0) return 1;
  return is_expert_weight(m, id, s) ? moe[s].touched : moe[s].work;
}

/* A fused region as one kernel: FLOPs add up; bytes are the storage it
 * reads from outside the region plus the storage it writes that is used
 * outside it (or is a model output), whatever views stand at its edges.
 * Its peak is that of its biggest node by FLOPs (the matmul of a matmul +
 * epilogue). */
static void fuse_regions(const Model *m, const ModelCost *mc,
                         const bool *leaves, const MoeScope *moe,
                         const int *ckpt_of, bool train) {
  /* One pass over the nodes for every region at once (a pass per region
   * would be quadratic in a model of many regions).  A region's nodes are
   * contiguous (regions do not nest; nodes are appended in source order),
   * so "source already counted" is a mark of the last region that counted
   * it. */
  int n = m->nnodes, nr = m->nregions;
  const int *region_kernel = mc->region_kernel;
  int *counted_by = xcalloc((size_t)n + 1, sizeof *counted_by);
  double *best = xmalloc(((size_t)nr + 1) * sizeof *best);
  double *factor = xmalloc(((size_t)nr + 1) * sizeof *factor);
  for (int r = 0; r < nr; r++) {
    best[r] = -1;
    factor[r] = 1;
    if (region_kernel[r] >= 0) mc->kernel_node[region_kernel[r]] = -1;
  }
  for (int i = 0; i < n; i++) {
    const GNode *g = &m->nodes[i];
    int region = g->region;
    if (region < 0 || !g->op || region_kernel[region] < 0) continue;
    FusedCost *k = &mc->fused[region];
    int *first = &mc->kernel_node[region_kernel[region]];
    if (*first < 0) {
      *first = i;
      mc->kernel_count[region_kernel[region]] = g->count;
    }
    if (is_append(g)) { /* R-CACHE-002: new read (if from outside), written */
      int src = storage_of(m, g->inputs[1]);
      if (m->nodes[src].region != region && counted_by[src] != region + 1) {
        counted_by[src] = region + 1;
        k->bytes += node_bytes(m, src);
      }
      k->bytes += node_bytes(m, i) - node_bytes(m, g->inputs[0]);
      continue;
    }
    if (is_alias(m, g)) continue;
    k->flops += mc->nodes[i].flops;
    double tf = train_factor(g) + (ckpt_of && ckpt_of[i] >= 0);
    if (train && tf > factor[region]) factor[region] = tf;
    if (mc->nodes[i].flops > best[region]) {
      best[region] = mc->nodes[i].flops;
      k->peak = mc->nodes[i].peak;
    }
    for (int j = 0; j < g->ninputs; j++) {
      int src = storage_of(m, g->inputs[j]);
      if (m->nodes[src].region == region || counted_by[src] == region + 1) continue;
      counted_by[src] = region + 1;
      k->bytes += node_bytes(m, src) * region_moe(m, moe, region, src);
    }
    if (leaves[i]) k->bytes += op_tensor_bytes(g->type) * region_moe(m, moe, region, i);
    for (int j = 0; (g->op->flags & OPF_UPDATES_CACHE) && j < g->ninputs; j++)
      if (m->nodes[g->inputs[j]].role == ROLE_CACHE) k->bytes += node_bytes(m, g->inputs[j]);
  }
  /* Node costs already carry the train factor in FLOPs; bytes get the
   * region's largest factor (backward re-reads the same boundary). */
  for (int r = 0; r < nr; r++)
    if (region_kernel[r] >= 0) mc->fused[r].bytes *= factor[r];
  free(counted_by);
  free(best);
  free(factor);
}

/* Through roofline(), as cost_model placed the node: the same bound and
 * the same figures, bit for bit. */
static RoofPoint roof_point(const Target *t, double flops, double bytes,
                            double peak, Bound bound) {
  RoofPoint r = {0, 0, 0};
  r.ridge = t->memory_bw > 0 ? peak / t->memory_bw : 0;
  if (bound != BOUND_MEMORY && bound != BOUND_COMPUTE) return r;
  Bound b;
  double time;
  roofline(flops, bytes, peak, t->memory_bw, &r, &b, &time);
  return r;
}

RoofPoint cost_node_roof(const ModelCost *mc, const NodeCost *nc) {
  return roof_point(mc->target, nc->flops, nc->bytes, nc->peak, nc->bound);
}

Kernel cost_kernel(const ModelCost *mc, int k) {
  int i = mc->kernel_node[k];
  const NodeCost *nc = &mc->nodes[i];
  Kernel kn = {.first_node = i, .region = -1, .count = mc->kernel_count[k]};
  /* A single op is the kernel of its node.  A region's first node may be a
   * view or a transfer in it, not of the region's kernel: then the kernel
   * is the region's all the same. */
  if (nc->kernel != k || nc->fused) {
    int r = mc->model->nodes[i].region;
    const FusedCost *f = &mc->fused[r];
    kn.region = r;
    kn.flops = f->flops;
    kn.bytes = f->bytes;
    kn.peak = f->peak;
    kn.time_s = f->time_s;
    kn.bound = f->bound;
  } else {
    kn.flops = nc->flops;
    kn.bytes = nc->bytes;
    kn.peak = nc->peak;
    kn.time_s = nc->time_s;
    kn.bound = nc->bound;
  }
  return kn;
}

const char *cost_kernel_name(const Model *m, const Kernel *k) {
  if (k->region >= 0 && k->region < m->nregions) return m->regions[k->region].name;
  if (k->first_node >= 0 && k->first_node < m->nnodes) return m->nodes[k->first_node].name;
  return "?";
}

Loc cost_kernel_loc(const Model *m, const Kernel *k) {
  if (k->region >= 0 && k->region < m->nregions) return m->regions[k->region].loc;
  return m->nodes[k->first_node].loc;
}

RoofPoint cost_kernel_roof(const ModelCost *mc, const Kernel *k) {
  return roof_point(mc->target, k->flops, k->bytes, k->peak, k->bound);
}

Waves cost_node_waves(const ModelCost *mc, const NodeCost *nc) {
  Waves w = {0, 0, 0};
  double blocks = nc->blocks;
  int sms = mc->target->sms;
  if (blocks <= 0 || sms <= 0) return w;
  w.waves = ceil(blocks / sms);
  w.utilisation = blocks / (w.waves * sms);
  w.idle_sms = w.waves * sms - blocks;
  return w;
}

/* Kernel k's share of the totals per step. */
static void add_kernel(ModelCost *mc, const Kernel *k) {
  double t_k = k->time_s * k->count;
  switch (k->bound) {
  case BOUND_PCIE: mc->transfer_time += t_k; break;
  case BOUND_NETWORK: mc->collective_time += t_k; break;
  default:
    mc->flops += k->flops * k->count;
    mc->bytes += k->bytes * k->count;
    if (k->bound == BOUND_MEMORY) mc->memory_bound_time += t_k;
    break;
  }
  mc->time_s += t_k;
}

/* What weight node i counts for: its copies (repeat copies, E experts),
 * their elements on one GPU, the whole parameter's (R-PAR-002: a
 * shard=tensor weight is 1/tensor of it), the share a token uses and the
 * GPUs the experts are sharded over (R-MOE-005: K of E copies per token,
 * E/e per GPU), and the bytes one GPU holds. */
typedef struct WeightCount {
  double copies, elems, whole, active, sharding, gpu_bytes;
} WeightCount;

static WeightCount weight_count(const Model *m, const MoeScope *moe, int i) {
  const GNode *g = &m->nodes[i];
  WeightCount w = {model_weight_copies(m, g->scope), 0, 0, 1, 1, 0};
  int es = moe ? model_experts_scope(m, g->scope) : -1;
  if (es >= 0) {
    w.sharding = moe[es].sharding;
    w.active = (double)m->scopes[es].top / (double)m->scopes[es].experts;
  }
  w.elems = op_tensor_elements(g->type) * w.copies;
  w.whole = g->shard_tensor ? w.elems * (double)m->parallel.tensor : w.elems;
  w.gpu_bytes = node_bytes(m, i) * w.copies / w.sharding;
  return w;
}

/* R-PLAN-002: the parameters (whole) and the weight bytes one GPU holds
 * (before ZeRO), as cost_model counts them, added into params_by and
 * bytes_by[DT__COUNT] by storage dtype. */
void cost_weights(const Model *m, double *params_by, double *bytes_by) {
  MoeScope *moe = moe_scopes(m);
  for (int i = 0; i < m->nnodes; i++) {
    DType dt = m->nodes[i].type->dtype;
    if (m->nodes[i].role != ROLE_WEIGHT || dt == DT_NONE) continue;
    WeightCount w = weight_count(m, moe, i);
    params_by[dt] += w.whole;
    bytes_by[dt] += w.gpu_bytes;
  }
  free(moe);
}

/* The arrays cost_model fills, sized by the counts of the activation walk:
 * at most one kernel per op; the collectives the ops bring, plus the
 * implicit gradient synchronisation (at most COST_MAX_SYNC) and an experts
 * block's all-to-alls (at most 4). */
static void cost_alloc(Arena *a, ModelCost *mc, const Model *m, OpCounts counts) {
  int n = m->nnodes;
  mc->nodes = arena_alloc(a, (size_t)(n ? n : 1) * sizeof *mc->nodes);
  int ncoll = counts.collectives, nops = counts.ops;
  for (int s = 0; s < m->nscopes; s++) ncoll += m->scopes[s].experts ? 4 : 0;
  mc->collectives = arena_alloc(
      a, (size_t)(ncoll + COST_MAX_SYNC) * sizeof *mc->collectives);
  mc->kernel_node = arena_alloc(a, (size_t)(nops + 1) * sizeof *mc->kernel_node);
  mc->kernel_count = arena_alloc(a, (size_t)(nops + 1) * sizeof *mc->kernel_count);
  mc->region_kernel =
      arena_alloc(a, (size_t)(m->nregions + 1) * sizeof *mc->region_kernel);
  for (int r = 0; r < m->nregions; r++) mc->region_kernel[r] = -1;
  mc->fused = arena_alloc(a, (size_t)(m->nregions + 1) * sizeof *mc->fused);
}

/* What the pass over the nodes reads besides the model, and gathers
 * besides each node's figures. */
typedef struct NodePass {
  const MoeScope *moe;  /* NULL: no experts block */
  const int *ckpt_of;   /* NULL: no checkpoint blocks */
  CostMemo memo;
  int layers;           /* R-PAR-013: the repeat whose copies are units */
  double unit_root, unit_layer;
  bool any_cache;
} NodePass;

/* Node i's weights and buffers: the parameters and the resident bytes. */
static void count_resident(ModelCost *mc, const Model *m, NodePass *np, int i) {
  const GNode *g = &m->nodes[i];
  if (g->role == ROLE_WEIGHT) {
    WeightCount w = weight_count(m, np->moe, i);
    mc->params += w.whole;
    mc->active_params += w.whole * w.active;
    mc->active_param_bytes += node_bytes(m, i) * w.copies * w.active *
        (g->shard_tensor ? (double)m->parallel.tensor : 1);
    mc->gpu_params += w.elems / w.sharding;
    mc->footprint.weights += w.gpu_bytes;
    int top = g->scope;
    while (top >= 0 && m->scopes[top].parent >= 0) top = m->scopes[top].parent;
    if (top >= 0 && top == np->layers)
      np->unit_layer += w.gpu_bytes / (double)m->scopes[top].trips;
    else
      np->unit_root += w.gpu_bytes;
  }
  /* R-COST-011: a buffer is resident like a weight (one per repeat copy)
   * but is no parameter: no gradient, no optimizer state */
  np->any_cache |= g->role == ROLE_CACHE;
  if (g->role == ROLE_BUFFER) { /* an expert's: E/e per GPU (R-MOE-003) */
    int es = np->moe ? model_experts_scope(m, g->scope) : -1;
    mc->footprint.buffers += node_bytes(m, i) * model_weight_copies(m, g->scope) /
                             (es >= 0 ? np->moe[es].sharding : 1);
  }
}

/* An explicit collective, node i: a ring over its group, times the train
 * factor f. */
static void cost_collective(ModelCost *mc, const Model *m, const Target *t,
                            int i, const OpCost *oc, double f) {
  const GNode *g = &m->nodes[i];
  NodeCost *nc = &mc->nodes[i];
  Collective *c = &mc->collectives[mc->ncollectives++];
  c->node = i;
  c->at = -1;
  c->kind = g->op->name;
  c->buffer = oc->buffer;
  c->count = g->count;
  c->group = (ParGroup)g->args->group;
  ring(c, g->op->flags & OPF_ALLREDUCE ? 2 : 1,
       parallel_place(&m->parallel, c->group), t);
  c->nvlink_bytes *= f;
  c->ib_bytes *= f;
  c->nvlink_time *= f;
  c->ib_time *= f;
  c->time_s *= f;
  nc->flops = 0;
  nc->bytes = c->nvlink_bytes + c->ib_bytes;
  nc->bound = BOUND_NETWORK;
  nc->time_s = c->time_s;
}

/* Op node i's figures: its row's cost rule, the train factor, and its
 * time by its class.  False for what runs no kernel. */
static bool cost_op(ModelCost *mc, const Model *m, const Target *t,
                    NodePass *np, int i) {
  const GNode *g = &m->nodes[i];
  NodeCost *nc = &mc->nodes[i];
  OpCost oc = {0};
  OpIn x = {g->op, m, g->inputs, g->ninputs, g->type, g->args};
  g->op->cost(&x, t, &oc);
  int es = np->moe ? model_experts_scope(m, g->scope) : -1;
  if (es >= 0) moe_op(m, g, es, &np->moe[es], &oc);
  /* R-PAR-010: a checkpointed op runs its forward once more */
  double f = m->train ? train_factor(g) + (np->ckpt_of && np->ckpt_of[i] >= 0) : 1;
  nc->flops = oc.flops * f;
  nc->bytes = oc.bytes * f;
  bool contraction = g->op->cls == OC_CONTRACTION || g->op->cls == OC_OPAQUE;
  bool tensor;
  nc->peak = memo_peak(&np->memo, t, precision_of(m, g), contraction, &tensor);
  nc->tensor = tensor;
  switch (is_noop_cast(m, g) || is_later_result(g) ? OC_VIEW : g->op->cls) {
  case OC_VIEW:
    nc->bytes = nc->flops = 0;
    nc->bound = BOUND_NONE;
    return false;
  case OC_TRANSFER:
    nc->bound = BOUND_PCIE;
    nc->time_s = t->pcie_bw > 0 ? nc->bytes / t->pcie_bw : 0;
    return true;
  case OC_COLLECTIVE: cost_collective(mc, m, t, i, &oc, f); return true;
  default: {
    RoofPoint r;
    Bound bound;
    roofline(nc->flops, nc->bytes, nc->peak, t->memory_bw, &r, &bound,
             &nc->time_s);
    nc->bound = bound;
    nc->blocks = g->args->blocks > 0 ? (double)g->args->blocks : oc.blocks;
    return true;
  }
  }
}

/* Node i's kernel: a fused region is one, created at its first node; any
 * other op is its own. */
static void assign_kernel(ModelCost *mc, const Model *m, int i) {
  const GNode *g = &m->nodes[i];
  NodeCost *nc = &mc->nodes[i];
  if (g->region >= 0 && g->op->cls != OC_TRANSFER &&
      g->op->cls != OC_COLLECTIVE) {
    if (mc->region_kernel[g->region] < 0) {
      mc->kernel_node[mc->nkernels] = i;
      mc->region_kernel[g->region] = mc->nkernels++;
    }
    nc->kernel = mc->region_kernel[g->region];
    nc->fused = true;
    return;
  }
  /* A single op: its figures are its NodeCost's (cost_kernel). */
  mc->kernel_node[mc->nkernels] = i;
  mc->kernel_count[mc->nkernels] = g->count;
  nc->kernel = mc->nkernels++;
}

/* The footprint per GPU: with a pipeline its worst stage's, else the
 * model's, sharded by ZeRO; in train mode the gradient synchronisation
 * that goes with it. */
static void cost_footprint(ModelCost *mc, const Model *m, const Target *t,
                           const NodePass *np, bool piped) {
  if (piped) {
    /* R-PAR-009: the GPU's footprint is its stage's, the worst one */
    mc->footprint = mc->pipe.footprint[mc->pipe.worst];
    if (m->train)
      mc->ncollectives += cost_grad_sync(&m->parallel, t, mc->unsharded.weights,
                                         mc->unsharded.gradients,
                                         &mc->collectives[mc->ncollectives]);
    return;
  }
  if (m->train) {
    /* R-TRAIN-004: in the weights' dtype, or fp32 as Megatron-LM keeps them */
    mc->footprint.gradients = m->parallel.fp32_grads
                                  ? mc->gpu_params * FP32_GRAD_BYTES
                                  : mc->footprint.weights;
    mc->footprint.optimizer = mc->gpu_params * ADAM_BYTES_PER_PARAM;
    mc->ncollectives += cost_grad_sync(&m->parallel, t, mc->footprint.weights,
                                       mc->footprint.gradients,
                                       &mc->collectives[mc->ncollectives]);
  }
  mc->footprint.total = mc->footprint.weights + mc->footprint.gradients +
                        mc->footprint.optimizer + mc->footprint.activations +
                        mc->footprint.buffers + mc->footprint.kv_cache;
  int layers = np->layers;
  mc->footprint.units = footprint_fsdp_units(
      np->unit_root, np->unit_layer,
      layers >= 0 ? (double)m->scopes[layers].trips : 0);
  mc->unsharded = mc->footprint;
  if (m->train)
    mc->footprint = cost_footprint_sharded(
        &mc->unsharded, m->parallel.zero,
        parallel_place(&m->parallel, PG_SHARD).size);
}

/* Totals per step: every kernel's share, in kernel order, then the
 * collectives no op node carries. */
static void cost_totals(ModelCost *mc) {
  for (int i = 0; i < mc->nkernels; i++) {
    Kernel kn = cost_kernel(mc, i);
    add_kernel(mc, &kn);
  }
  for (int i = 0; i < mc->ncollectives; i++)
    if (mc->collectives[i].node < 0) {
      double t_c = mc->collectives[i].time_s * mc->collectives[i].count;
      mc->collective_time += t_c;
      mc->time_s += t_c;
    }
  /* R-PAR-007: with overlap the step is at least the longer of compute
   * and communication; without, their sum */
  double compute = mc->time_s - mc->collective_time;
  mc->overlap_time = compute > mc->collective_time ? compute : mc->collective_time;
}

ModelCost *cost_model(Arena *a, const Model *m, const Target *t) {
  ModelCost *mc = arena_alloc(a, sizeof *mc);
  /* The footprint's walk first: its scratch is freed before the per-node
   * figures are allocated, not stacked on top of them at the peak. */
  OpCounts counts = {0, 0};
  bool *leaves = footprint_region_exits(m); /* scratch, freed before returning */
  MoeScope *moe = moe_scopes(m);            /* scratch too */
  int *ckpt_of = footprint_checkpoint_blocks(m); /* scratch too */
  mc->experts = moe != NULL;
  /* On the pages a's arena holds spare (the tree's), which then go on to
   * the per-node figures. */
  Arena *scratch = arena_scratch(a);
  mc->footprint.activations = footprint_activations(
      scratch, m, leaves, ckpt_of, moe != NULL, &counts, NULL);
  arena_scratch_end(scratch, a);
  mc->model = m;
  mc->target = t;
  cost_alloc(a, mc, m, counts);

  NodePass np = {.moe = moe, .ckpt_of = ckpt_of,
                 .layers = parallel_pipeline_scope(m)};
  for (int i = 0; i < m->nnodes; i++) {
    mc->nodes[i].kernel = -1;
    count_resident(mc, m, &np, i);
    if (m->nodes[i].op && cost_op(mc, m, t, &np, i)) assign_kernel(mc, m, i);
  }
  if (m->nregions > 0) {
    fuse_regions(m, mc, leaves, moe, ckpt_of, m->train);
    for (int r = 0; r < m->nregions; r++)
      if (mc->region_kernel[r] >= 0) fused_roofline(&mc->fused[r], t);
  }
  bool piped = m->parallel.pipeline > 1 && parallel_pipeline_scope(m) >= 0;
  if (piped) footprint_pipeline(mc, m, t, leaves, ckpt_of);
  mc->ncollectives += moe_all_to_alls(m, t, moe, &mc->collectives[mc->ncollectives]);
  mc->ncollectives += vocab_all_reduces(m, t, &mc->collectives[mc->ncollectives]);
  free(leaves);
  free(moe);
  free(ckpt_of);
  /* a pass of its own only for a model that has a cache */
  if (np.any_cache) {
    mc->footprint.kv_cache = cost_kv_cache(m, NULL);
    mc->footprint.read_only_cache = footprint_read_only_cache(m);
    mc->footprint.recurrent_state = footprint_recurrent_state(m);
  }
  cost_footprint(mc, m, t, &np, piped);
  cost_totals(mc);
  if (piped) pipeline_time(mc, m);
  /* R-PAR-020: without a pipeline, a train step's microbatches accumulate */
  mc->accumulated = !piped && m->train ? (double)m->parallel.microbatches : 1;
  return mc;
}
