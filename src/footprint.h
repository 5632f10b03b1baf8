/* SPDX-License-Identifier: MIT */
/*
 * footprint.h: what cost.c and footprint.c share, private to the two.  The
 * predicates on a node that both the roofline and the footprint read (what
 * aliases its input, where a value's storage is), the parts of a pipelined
 * model, and footprint.c's steps that cost_model runs: the scratch maps of
 * fused-region exits and checkpoint blocks, the activation walk, the FSDP
 * units and the per-stage footprints.
 */
#ifndef ROOFLINT_FOOTPRINT_H
#define ROOFLINT_FOOTPRINT_H

#include "rooflint.h"

/* Adam: two fp32 moments and an fp32 master copy per parameter. */
#define ADAM_BYTES_PER_PARAM 12.0
/* R-TRAIN-004: Megatron-LM's fp32 gradient buffer (main_grad). */
#define FP32_GRAD_BYTES 4.0

static inline double node_bytes(const Model *m, int id) {
  return op_tensor_bytes(m->nodes[id].type);
}

static inline bool is_op(const GNode *n, OpClass c) {
  return n->op && n->op->cls == c;
}

/* A cast to the dtype it already has moves no bits: no kernel, 0 FLOPs,
 * 0 bytes, like a view (R-COST-010). */
static inline bool is_noop_cast(const Model *m, const GNode *n) {
  return n->op && (n->op->flags & OPF_CAST) && n->ninputs == 1 &&
         m->nodes[n->inputs[0]].type->dtype == n->type->dtype;
}

/* An append to a KV cache: a kernel, whose result is the cache's storage
 * (R-CACHE-002). */
static inline bool is_append(const GNode *n) {
  return n->op && (n->op->flags & OPF_APPEND);
}

/* Views, no-op casts and appends: they alias their (first) input. */
static inline bool is_alias(const Model *m, const GNode *n) {
  return is_op(n, OC_VIEW) || is_noop_cast(m, n) || is_append(n);
}

/* The node whose storage node `id` is: itself, or, for a view or a no-op
 * cast, what it aliases, down chains of views. */
static inline int storage_of(const Model *m, int id) {
  while (is_alias(m, &m->nodes[id])) id = m->nodes[id].inputs[0];
  return id;
}

/* The parallel plan's expert degree e (R-MOE-003): experts are sharded E/e
 * per GPU.  The one place the costing reads it. */
static inline double expert_degree(const Model *m) {
  return m->parallel.expert > 1 ? (double)m->parallel.expert : 1;
}

enum { PART_PRE, PART_BODY, PART_POST, PART__COUNT };

/* Which part of a pipelined model node i is: the split repeat's body,
 * or what stands before or after it. */
static inline int pipe_part(const Model *m, int i, int scope, int first) {
  int sc = m->nodes[i].scope;
  while (sc >= 0 && m->scopes[sc].parent >= 0) sc = m->scopes[sc].parent;
  if (sc == scope) return PART_BODY;
  return i < first ? PART_PRE : PART_POST;
}

/* A stage kind's share of the parts: the first stage runs what stands
 * before the repeat, the last what stands after, each 1/p of its copies. */
static inline double stage_share(const double *part, int kind, double p) {
  double v = part[PART_BODY] / p;
  if (kind == PIPE_FIRST) v += part[PART_PRE];
  if (kind == PIPE_LAST) v += part[PART_POST];
  return v;
}

/* What cost_model sizes its kernel and collective arrays by, counted by
 * footprint_activations on its way over the nodes: one pass fewer over the
 * node array. */
typedef struct OpCounts {
  int ops, collectives;
} OpCounts;

/* Which values leave their fused region (n bools, for the caller to free;
 * NULL without regions). */
bool *footprint_region_exits(const Model *m);
/* R-PAR-010: each node's checkpoint block, -1 outside (n ints, for the
 * caller to free; NULL without blocks or outside train mode). */
int *footprint_checkpoint_blocks(const Model *m);
/* The activation footprint (R-COST-009, R-TRAIN-002, R-PAR-010), its ops
 * and collectives counted into oc; by_dtype, when not NULL, gets the same
 * bytes split by storage dtype. */
double footprint_activations(Arena *scratch, const Model *m, const bool *leaves,
                             const int *ckpt_of, bool experts, OpCounts *oc,
                             double *by_dtype);
/* R-FAM-105: the part of the KV cache (cost_kv_cache) in caches that no
 * append extends and no op updates in place (a recurrent state): the step
 * only reads them (an encoder-decoder's cross-attention keys and values,
 * written once at prefill). */
double footprint_read_only_cache(const Model *m);
/* The part of the KV cache (cost_kv_cache) that is a recurrent layer's
 * state, not keys and values: in a model with an op that updates a cache
 * in place (selective_scan, R-OP-008), each cache no attention reads
 * (Mamba's scan state and conv window, R-FAM-202); 0 in any other model. */
double footprint_recurrent_state(const Model *m);
/* R-PAR-013: the two largest FSDP units of a root and `layers` layers. */
double footprint_fsdp_units(double root, double layer, double layers);
/* R-PAR-009: the per-stage footprints and the boundary send into mc->pipe,
 * the worst stage's unsharded footprint into mc->unsharded. */
void footprint_pipeline(ModelCost *mc, const Model *m, const Target *t,
                        const bool *leaves, const int *ckpt_of);

#endif
