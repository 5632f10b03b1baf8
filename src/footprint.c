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
#include <string.h>

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

/* A product of two activations (attention's QK^T and PV, or an
 * attention op): no operand is a weight. */
static bool activation_product(const Model *m, const GNode *g) {
  if (!is_op(g, OC_CONTRACTION)) return false;
  for (int k = 0; k < g->ninputs; k++) {
    Role r = m->nodes[storage_of(m, g->inputs[k])].role;
    if (r != ROLE_ACTIVATION && r != ROLE_INPUT) return false;
  }
  return true;
}

/* R-PAR-014: a selective block recomputes its attention core alone: its
 * products of two activations and every op on a path from one to another
 * (the scale, the mask, softmax, dropout), as Korthikanti et al. 2022
 * (section 5) recompute QK^T, softmax, its dropout and the product by V;
 * the rest of the block is kept as written. */
static void selective_core(const Model *m, int b, int *of) {
  const CheckpointBlock *cb = &m->ckpts[b];
  int first = cb->first, len = cb->end - first;
  char *prod = xcalloc((size_t)len + 1, 1), *from = xcalloc((size_t)len + 1, 1),
       *to = xcalloc((size_t)len + 1, 1);
  for (int i = 0; i < len; i++) {
    const GNode *g = &m->nodes[first + i];
    prod[i] = activation_product(m, g);
    for (int k = 0; k < g->ninputs; k++) {
      int src = g->inputs[k] - first;
      if (src >= 0 && src < len && (prod[src] || from[src])) from[i] = 1;
    }
  }
  for (int i = len - 1; i >= 0; i--) {
    const GNode *g = &m->nodes[first + i];
    if (!prod[i] && !to[i]) continue;
    for (int k = 0; k < g->ninputs; k++) {
      int src = g->inputs[k] - first;
      if (src >= 0 && src < len) to[src] = 1;
    }
  }
  for (int i = 0; i < len; i++)
    of[first + i] = prod[i] || (from[i] && to[i]) ? b : -1;
  free(prod);
  free(from);
  free(to);
}

/* R-PAR-010: each node's checkpoint block, -1 outside (scratch, n ints,
 * for the caller to free; NULL without blocks or outside train mode); of
 * a selective block only its attention core (R-PAR-014). */
int *footprint_checkpoint_blocks(const Model *m) {
  if (!m->train || m->nckpts == 0) return NULL;
  int *of = xmalloc(((size_t)m->nnodes + 1) * sizeof *of);
  for (int i = 0; i < m->nnodes; i++) of[i] = -1;
  for (int b = 0; b < m->nckpts; b++) {
    if (m->ckpts[b].selective) {
      selective_core(m, b, of);
      continue;
    }
    for (int i = m->ckpts[b].first; i < m->ckpts[b].end; i++) of[i] = b;
  }
  return of;
}

static void count_op(const GNode *g, OpCounts *oc) {
  oc->collectives += is_op(g, OC_COLLECTIVE) + 4 * g->vocab_parallel; /* R-PAR-012, 019 */
  oc->ops += g->op != NULL;
}

/* A value's bytes as the footprint holds them: an experts block's values
 * for the tokens it runs (R-MOE-002). */
static double held_bytes(const Model *m, int id, bool experts) {
  const GNode *g = &m->nodes[id];
  return node_bytes(m, id) * (experts && g->role == ROLE_ACTIVATION
                                  ? model_experts_work(m, g->scope)
                                  : 1);
}

static void add_by_dtype(double *by_dtype, DType dt, double bytes) {
  if (by_dtype && dt != DT_NONE) by_dtype[dt] += bytes;
}

/* What backward keeps, as the walk over the nodes finds it (R-TRAIN-002,
 * R-PAR-010, R-PAR-014, R-PAR-015). */
typedef struct SaveWalk {
  const Model *m;
  const bool *leaves; /* fused-region exits; NULL without regions */
  const int *ckpt_of; /* each node's checkpoint block; NULL without */
  bool experts;
  double sp;          /* 1/tensor under sequence parallelism, else 1 */
  bool *saved;        /* per node: its storage is kept for backward */
  bool *entered;      /* per node: saved by an op of a loop it enters */
  bool *region_done;  /* per region: its inputs saved in its place */
  int *region_span;   /* per region: its first node and one past its last */
} SaveWalk;

/* Whether scope `inner` lies inside scope `outer` (or is it). */
static bool scope_within(const Model *m, int inner, int outer) {
  for (int sc = inner; sc >= 0; sc = m->scopes[sc].parent)
    if (sc == outer) return true;
  return outer < 0;
}

static bool holds_activation(const GNode *g) {
  return g->role == ROLE_ACTIVATION || g->role == ROLE_INPUT;
}

/* Node src is kept because op `by` saves it (or recomputes from it); by
 * an op of a loop src was bound outside, it is the value the loop's first
 * copy reads (R-PAR-010). */
static void keep(SaveWalk *w, int src, int by) {
  const Model *m = w->m;
  int ssc = m->nodes[src].scope, bsc = m->nodes[by].scope;
  if (ssc != bsc && scope_within(m, bsc, ssc)) w->entered[src] = true;
  else w->saved[src] = true;
}

/* A fused region keeps in place of a value that stays inside it the
 * region's own inputs, from which its backward recomputes the rest. */
static void keep_region_inputs(SaveWalk *w, int r) {
  const Model *m = w->m;
  if (w->region_done[r]) return;
  w->region_done[r] = true;
  for (int i = w->region_span[2 * r]; i < w->region_span[2 * r + 1]; i++) {
    const GNode *g = &m->nodes[i];
    if (g->region != r) continue;
    for (int k = 0; k < g->ninputs; k++) {
      int src = storage_of(m, g->inputs[k]);
      if (m->nodes[src].region != r && holds_activation(&m->nodes[src]))
        keep(w, src, i);
    }
  }
}

/* Operand k of node i (k = -1: its result) is saved by its op. */
static void save_one(SaveWalk *w, int i, int k) {
  const Model *m = w->m;
  const GNode *g = &m->nodes[i];
  int src = storage_of(m, k < 0 ? i : g->inputs[k]);
  const GNode *s = &m->nodes[src];
  if (!holds_activation(s)) return; /* a weight or buffer is resident */
  if (s->region >= 0 && s->region == g->region && !(w->leaves && w->leaves[src]))
    keep_region_inputs(w, s->region);
  else
    keep(w, src, i);
}

static bool saves_operand(unsigned sv, int k) {
  return (sv & SV_INS) || (k < 3 && (sv & (SV_IN0 << k)));
}

/* Node i's op outside a checkpoint block: what its row saves. */
static void save_op(SaveWalk *w, int i) {
  const GNode *g = &w->m->nodes[i];
  unsigned sv = g->op->saves;
  for (int k = 0; k < g->ninputs; k++)
    if (saves_operand(sv, k)) save_one(w, i, k);
  if (sv & SV_OUT) save_one(w, i, -1);
}

/* Node i's op inside checkpoint block b: recomputed from the block's
 * inputs, which are kept. */
static void save_block_inputs(SaveWalk *w, int i) {
  const Model *m = w->m;
  const GNode *g = &m->nodes[i];
  for (int k = 0; k < g->ninputs; k++) {
    int src = storage_of(m, g->inputs[k]);
    if (w->ckpt_of[src] != w->ckpt_of[i] && holds_activation(&m->nodes[src]))
      keep(w, src, i);
  }
}

/* Sequence parallelism splits a value whole on every tensor rank. */
static double sp_share(const SaveWalk *w, const GNode *g) {
  return g->tensor_replicated ? w->sp : 1;
}

/* The state op i keeps of its own (a norm's statistics, a mask), per
 * step; by_dtype gets it too. */
static double op_state(const SaveWalk *w, int i, double *by_dtype) {
  const Model *m = w->m;
  const GNode *g = &m->nodes[i];
  if (!g->op || !g->op->saves) return 0;
  double per[DT__COUNT] = {0};
  const TensorType *in0 = g->ninputs > 0 ? m->nodes[g->inputs[0]].type : NULL;
  double b = op_saved_state_bytes(g->op, in0, g->type, g->args, per);
  double f = g->count * sp_share(w, g) *
             (w->experts ? model_experts_work(m, g->scope) : 1);
  for (int d = 0; by_dtype && d < DT__COUNT; d++) by_dtype[d] += per[d] * f;
  return b * f;
}

/* What one copy of checkpoint block b would keep were it not
 * checkpointed: the values its ops save that it makes, and their own
 * state; live while backward recomputes it (R-PAR-010).  mark is n
 * zeroed bools, left zeroed. */
static double block_own(const SaveWalk *w, int b, bool *mark, double *by_dtype) {
  const Model *m = w->m;
  const CheckpointBlock *cb = &m->ckpts[b];
  double own = 0;
  for (int i = cb->first; i < cb->end; i++) {
    const GNode *g = &m->nodes[i];
    if (w->ckpt_of[i] != b || !g->op) continue;
    for (int k = -1; k < g->ninputs; k++) {
      if (k < 0 ? !(g->op->saves & SV_OUT) : !saves_operand(g->op->saves, k))
        continue;
      int src = storage_of(m, k < 0 ? i : g->inputs[k]);
      /* a weight declared inside the block is no value it makes: it is
       * in the weights already (an imported layer declares its own) */
      if (w->ckpt_of[src] != b || mark[src] || !m->nodes[src].op) continue;
      mark[src] = true;
      double bytes = held_bytes(m, src, w->experts) * sp_share(w, &m->nodes[src]);
      own += bytes;
      add_by_dtype(by_dtype, m->nodes[src].type->dtype, bytes);
    }
    double per[DT__COUNT] = {0};
    const TensorType *in0 = g->ninputs > 0 ? m->nodes[g->inputs[0]].type : NULL;
    double st = op_saved_state_bytes(g->op, in0, g->type, g->args, per) *
                sp_share(w, g);
    own += st;
    for (int d = 0; by_dtype && d < DT__COUNT; d++) by_dtype[d] += per[d] * sp_share(w, g);
  }
  for (int i = cb->first; i < cb->end; i++) mark[i] = false;
  return own;
}

/* R-TRAIN-002: the bytes kept for backward, per node (n doubles, for the
 * caller to free): a value saved by some op (once, however many save it)
 * or a model input, times its count, and each op's own state; *recompute
 * the largest checkpoint block's own values (R-PAR-010).  by_dtype, when
 * not NULL, gets the same bytes by dtype. */
static double *saved_bytes(const Model *m, const bool *leaves,
                           const int *ckpt_of, bool experts,
                           double *recompute, double *by_dtype) {
  int n = m->nnodes;
  const Parallel *par = &m->parallel;
  SaveWalk w = {m, leaves, ckpt_of, experts,
                par->sequence_parallel && par->tensor > 1 ? 1.0 / (double)par->tensor : 1,
                xcalloc((size_t)n + 1, sizeof(bool)), xcalloc((size_t)n + 1, sizeof(bool)),
                xcalloc((size_t)m->nregions + 1, sizeof(bool)),
                xmalloc(((size_t)m->nregions + 1) * 2 * sizeof(int))};
  for (int r = 0; r < m->nregions; r++)
    w.region_span[2 * r] = n, w.region_span[2 * r + 1] = 0;
  for (int i = 0; i < n; i++) {
    int r = m->nodes[i].region;
    if (r < 0) continue;
    if (i < w.region_span[2 * r]) w.region_span[2 * r] = i;
    w.region_span[2 * r + 1] = i + 1;
  }
  double *kept = xcalloc((size_t)n + 1, sizeof *kept);
  for (int i = 0; i < n; i++) {
    if (!m->nodes[i].op) continue;
    if (ckpt_of && ckpt_of[i] >= 0) save_block_inputs(&w, i);
    else save_op(&w, i);
  }
  /* each copy of a loop reads what the copy before bound last (the first
   * copy the binding from before the loop): one such value is kept per
   * copy, counted as the last binding's copies */
  bool *carried = xcalloc((size_t)n + 1, sizeof *carried);
  for (int c = 0; c < m->ncarries; c++) {
    int outer = storage_of(m, m->carries[c].outer);
    if (!w.entered[outer]) continue;
    carried[storage_of(m, m->carries[c].last)] = true;
    w.entered[outer] = false;
  }
  for (int i = 0; i < n; i++) {
    const GNode *g = &m->nodes[i];
    if (!(ckpt_of && ckpt_of[i] >= 0)) kept[i] = op_state(&w, i, by_dtype);
    if (!w.saved[i] && !carried[i] && !w.entered[i]) continue;
    double bytes = held_bytes(m, i, experts) * g->count * sp_share(&w, g);
    kept[i] += bytes;
    add_by_dtype(by_dtype, g->type->dtype, bytes);
  }
  *recompute = 0;
  int largest = -1;
  memset(w.saved, 0, (size_t)n * sizeof *w.saved); /* block_own's marks */
  for (int b = 0; ckpt_of && b < m->nckpts; b++) {
    double own = block_own(&w, b, w.saved, NULL);
    if (own > *recompute) *recompute = own, largest = b;
  }
  if (largest >= 0 && by_dtype) block_own(&w, largest, w.saved, by_dtype);
  free(carried);
  free(w.saved);
  free(w.entered);
  free(w.region_done);
  free(w.region_span);
  return kept;
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

/* by_dtype, when not NULL, gets the same bytes split by storage dtype
 * (--plan's rows, R-PLAN-002). */
double footprint_activations(Arena *scratch, const Model *m, const bool *leaves,
                             const int *ckpt_of, bool experts, OpCounts *oc,
                             double *by_dtype) {
  int n = m->nnodes;
  if (n == 0) return 0;
  if (m->train) {
    for (int i = 0; i < n; i++) count_op(&m->nodes[i], oc);
    double buffer = 0, sum = 0;
    double *kept = saved_bytes(m, leaves, ckpt_of, experts, &buffer, by_dtype);
    for (int i = 0; i < n; i++) sum += kept[i];
    free(kept);
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
 * back to the cache from each.  `only`, when given, is the caches
 * counted, by node. */
static double caches_longest(const Model *m, double *by_dtype, const bool *only) {
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
    if (bytes <= *have || (only && !only[root])) continue;
    double more = (bytes - *have) * model_weight_copies(m, m->nodes[root].scope);
    total += more;
    if (by_dtype) by_dtype[m->nodes[root].type->dtype] += more;
    *have = bytes;
  }
  free(longest);
  free(cache_of);
  return total;
}

double cost_kv_cache(const Model *m, double *by_dtype) {
  return caches_longest(m, by_dtype, NULL);
}

const char *footprint_cache_name(const Footprint *f) {
  if (f->recurrent_state <= 0) return "KV cache";
  return f->recurrent_state >= f->kv_cache ? "SSM state" : "KV cache and SSM state";
}

/* The storage each node is (storage_of) for every node in one pass, an
 * input before its users, so a chain of n appends costs n, not n^2
 * (storage_of walks the chain). */
static int *storage_roots(const Model *m) {
  int *root = xmalloc((size_t)m->nnodes * sizeof *root);
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    int from = is_alias(m, g) ? g->inputs[0] : i;
    root[i] = from == i ? i : from < i ? root[from] : storage_of(m, i);
  }
  return root;
}

/* The storage of operand k of node i, by the roots found so far. */
static int operand_root(const Model *m, const int *root, int i, int k) {
  int in = m->nodes[i].inputs[k];
  return in < i ? root[in] : storage_of(m, in);
}

double footprint_read_only_cache(const Model *m) {
  bool *appended = xcalloc((size_t)m->nnodes, sizeof *appended);
  int *root = storage_roots(m);
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (is_append(g)) appended[root[i]] = true;
    /* a recurrent state (selective_scan's) is written back every step */
    bool updates = g->op && (g->op->flags & OPF_UPDATES_CACHE);
    for (int k = 0; updates && k < g->ninputs; k++)
      appended[operand_root(m, root, i, k)] = true;
  }
  double total = 0;
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].role == ROLE_CACHE && !appended[i])
      total += node_bytes(m, i) * model_weight_copies(m, m->nodes[i].scope);
  free(root);
  free(appended);
  return total;
}

double footprint_recurrent_state(const Model *m) {
  bool recurrent = false;
  for (int i = 0; i < m->nnodes && !recurrent; i++)
    recurrent = m->nodes[i].op && (m->nodes[i].op->flags & OPF_UPDATES_CACHE);
  if (!recurrent) return 0;
  bool *state = xmalloc((size_t)m->nnodes * sizeof *state);
  for (int i = 0; i < m->nnodes; i++) state[i] = m->nodes[i].role == ROLE_CACHE;
  int *root = storage_roots(m);
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    /* what an op that runs along the keys (attention) reads is keys and
     * values, whatever else the model holds */
    bool keys = g->op && (g->op->flags & OPF_SPLIT_KEYS);
    for (int k = 0; keys && k < g->ninputs; k++)
      state[operand_root(m, root, i, k)] = false;
  }
  double total = caches_longest(m, NULL, state);
  free(root);
  free(state);
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
  double *kept = m->train ? saved_bytes(m, leaves, ckpt_of, mc->experts,
                                        &s.recompute, NULL)
                          : NULL;
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
    if (kept) s.activations[part] += kept[i];
    /* the value a layer hands to the next: the body's loop-carried one */
    if (part == PART_BODY && g->loop_carried && node_bytes(m, i) > s.carried)
      s.carried = node_bytes(m, i);
  }
  free(kept);
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
      f.gradients = m->parallel.fp32_grads
                        ? stage_share(s->params, k, p) * FP32_GRAD_BYTES
                        : f.weights;
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

/* Sequence parallelism: the plan's key (R-PAR-015), or a collective over
 * the tensor group that is not an all-reduce (its all-gather or
 * reduce-scatter written out). */
static bool sequence_parallel(const Model *m) {
  if (m->parallel.sequence_parallel) return true;
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
  /* R-PAR-015: under the key, the layer's output is each rank's slice of
   * the sequence, as written whole */
  if (par->sequence_parallel && par->tensor > 1) carried /= (double)par->tensor;
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
