/* SPDX-License-Identifier: MIT */
/*
 * parallel.c: the parallel plan (specs/language.md R-PAR-001..).  The
 * model describes what one GPU runs, as Megatron-LM code is written; the
 * `parallel { }` block says how many GPUs there are and how they are
 * grouped.  Its keys are the rows of one table (name, default, range,
 * doc), read by sema; this file derives the defaults, checks that the
 * degrees fit the GPUs, and places each group on the nodes in
 * Megatron-Core's default rank order tp-cp-ep-dp-pp: tensor innermost,
 * then expert inside data, pipeline outermost (Narayanan et al. 2021,
 * section 3.3: tensor parallelism inside a node, data and pipeline
 * across).
 */
#include "parallel.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K(field) offsetof(Parallel, field)
/* clang-format off */
const ParallelKey parallel_keys[] = {
    {"nodes", K(nodes), false, 1, 1, PAR_MAX_DEGREE,
     "nodes in the job"},
    {"gpus_per_node", K(gpus_per_node), false, PAR_DERIVED, 1, PAR_MAX_DEGREE,
     "GPUs per node; default tensor x pipeline x data / nodes when data is "
     "given, else tensor x pipeline"},
    {"data", K(data), false, PAR_DERIVED, 1, PAR_MAX_DEGREE,
     "data-parallel degree; default nodes x gpus_per_node / (tensor x "
     "pipeline)"},
    {"tensor", K(tensor), false, 1, 1, PAR_MAX_DEGREE,
     "tensor-parallel degree (Megatron-LM), the innermost group"},
    {"pipeline", K(pipeline), false, 1, 1, PAR_MAX_DEGREE,
     "pipeline stages, the outermost group"},
    {"expert", K(expert), false, 1, 1, PAR_MAX_DEGREE,
     "expert-parallel degree, inside the data group: divides data"},
    {"microbatches", K(microbatches), false, 1, 1, PAR_MAX_DEGREE,
     "microbatches per step"},
    {"zero", K(zero), false, 0, 0, 3,
     "ZeRO stage: 1 shards optimizer state over the shard group, 2 also "
     "gradients, 3 also weights (FSDP)"},
    {"shard", K(shard), false, 0, 0, PAR_MAX_DEGREE,
     "ZeRO's shard group, in data ranks (0: all of data); replicated "
     "across groups (hybrid sharding)"},
    {"overlap", K(overlap), true, 0, 0, 1,
     "collectives hide behind compute"},
    {"sequence_parallel", K(sequence_parallel), true, 0, 0, 1,
     "split the activations outside the tensor-parallel regions over the "
     "tensor group (Korthikanti et al. 2022)"},
    {"fp32_grads", K(fp32_grads), true, 0, 0, 1,
     "gradients in fp32, as Megatron-LM accumulates them (18 bytes a "
     "parameter with Adam; default: the weights' dtype, the ZeRO paper's 16)"},
};
/* clang-format on */
#undef K
const int parallel_nkeys = (int)(sizeof parallel_keys / sizeof parallel_keys[0]);

static int64_t *key_int(Parallel *p, int k) {
  return (int64_t *)(void *)((char *)p + parallel_keys[k].offset);
}

void parallel_default(Parallel *p) {
  memset(p, 0, sizeof *p);
  p->loc = p->sequence_parallel_loc = p->microbatches_loc = LOC_NONE;
  for (int k = 0; k < parallel_nkeys; k++) {
    const ParallelKey *pk = &parallel_keys[k];
    int64_t v = pk->def == PAR_DERIVED ? 1 : pk->def;
    if (pk->boolean)
      *(bool *)((char *)p + pk->offset) = v != 0;
    else
      *key_int(p, k) = v;
  }
}

static const char *const group_names[PG__COUNT] = {
    [PG_DATA] = "data",   [PG_TENSOR] = "tensor", [PG_PIPELINE] = "pipeline",
    [PG_EXPERT] = "expert", [PG_SHARD] = "shard",  [PG_REPLICA] = "replica",
};

const char *par_group_str(ParGroup g) {
  return (unsigned)g < PG__COUNT ? group_names[g] : "?";
}

/* R-PAR-001: the derived defaults and the rules that tie the degrees
 * together.  An error leaves a plan that is still consistent (one GPU
 * per group that did not fit), so nothing downstream divides by a
 * mismatch. */
void parallel_resolve(Parallel *p, const bool *given, Loc at, DiagSink *diags) {
  enum { GPN = 1, DATA = 2 }; /* rows of parallel_keys */
  int64_t tp = p->tensor * p->pipeline; /* both <= 2^20: no overflow */
  if (!given[GPN]) {
    if (given[DATA]) {
      int64_t all = tp * p->data; /* <= 2^60 */
      if (all % p->nodes != 0) {
        diag_report(diags, SEV_ERROR, NULL, at,
                    "parallel degrees tensor %lld x pipeline %lld x data %lld "
                    "= %lld GPUs do not split evenly over %lld nodes",
                    (long long)p->tensor, (long long)p->pipeline,
                    (long long)p->data, (long long)all, (long long)p->nodes);
        goto reset;
      }
      p->gpus_per_node = all / p->nodes;
    } else {
      p->gpus_per_node = tp;
    }
  }
  int64_t gpus = p->nodes * p->gpus_per_node; /* both <= 2^20 */
  if (gpus > PAR_MAX_DEGREE || p->gpus_per_node > PAR_MAX_DEGREE) {
    diag_report(diags, SEV_ERROR, NULL, at,
                "parallel degree nodes x gpus_per_node = %lld is more than "
                "the limit of %d",
                (long long)gpus, PAR_MAX_DEGREE);
    goto reset;
  }
  if (!given[DATA]) {
    if (gpus % tp != 0) {
      diag_report(diags, SEV_ERROR, NULL, at,
                  "parallel degrees tensor %lld x pipeline %lld = %lld do not "
                  "divide the %lld GPUs of nodes %lld x gpus_per_node %lld",
                  (long long)p->tensor, (long long)p->pipeline, (long long)tp,
                  (long long)gpus, (long long)p->nodes,
                  (long long)p->gpus_per_node);
      goto reset;
    }
    p->data = gpus / tp;
  } else if (tp * p->data != gpus) {
    diag_report(diags, SEV_ERROR, NULL, at,
                "parallel degrees tensor %lld x pipeline %lld x data %lld = "
                "%lld do not match the %lld GPUs of nodes %lld x "
                "gpus_per_node %lld",
                (long long)p->tensor, (long long)p->pipeline,
                (long long)p->data, (long long)(tp * p->data), (long long)gpus,
                (long long)p->nodes, (long long)p->gpus_per_node);
    goto reset;
  }
  if (p->data % p->expert != 0) {
    diag_report(diags, SEV_ERROR, NULL, at,
                "parallel 'expert' = %lld does not divide data = %lld (the "
                "expert group lies inside the data group)",
                (long long)p->expert, (long long)p->data);
    p->expert = 1;
  }
  if (p->shard > 0 && p->zero == 0) {
    diag_report(diags, SEV_ERROR, NULL, at,
                "parallel 'shard' = %lld needs 'zero' 1, 2 or 3: with zero 0 "
                "nothing is sharded",
                (long long)p->shard);
    p->shard = 0;
  } else if (p->shard > 0 && p->data % p->shard != 0) {
    diag_report(diags, SEV_ERROR, NULL, at,
                "parallel 'shard' = %lld does not divide data = %lld",
                (long long)p->shard, (long long)p->data);
    p->shard = 0;
  }
  return;
reset:
  p->nodes = p->gpus_per_node = p->data = 1;
  p->tensor = p->pipeline = p->expert = 1;
  p->shard = 0;
}

/* R-PAR-002: the rank of (tensor t, data d, pipeline q) is
 * t + T·(d + D·q), expert ranks the innermost part of d.  A group of
 * `size` ranks `stride` apart fills gpus_per_node / stride slots of a
 * node when the stride is under a node, else one. */
GroupPlace parallel_place(const Parallel *p, ParGroup g) {
  GroupPlace gp = {1, 1, 1, 1};
  if (!p->present) return gp;
  int64_t ns = p->shard > 0 ? p->shard : p->data;
  switch (g) {
  case PG_TENSOR: gp.size = p->tensor; gp.stride = 1; break;
  case PG_DATA: gp.size = p->data; gp.stride = p->tensor; break;
  case PG_EXPERT: gp.size = p->expert; gp.stride = p->tensor; break;
  case PG_PIPELINE:
    gp.size = p->pipeline;
    gp.stride = p->tensor * p->data;
    break;
  case PG_SHARD: gp.size = ns; gp.stride = p->tensor; break;
  case PG_REPLICA:
    gp.size = p->data / ns;
    gp.stride = p->tensor * ns;
    break;
  default: break;
  }
  int64_t gpn = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
  int64_t slots = gp.stride >= gpn ? 1 : gpn / gp.stride;
  gp.per_node = gp.size < slots ? gp.size : slots;
  if (gp.per_node < 1) gp.per_node = 1;
  gp.nodes = (gp.size + gp.per_node - 1) / gp.per_node;
  return gp;
}

const char *group_link_str(GroupPlace gp) {
  if (gp.size <= 1) return "-";
  if (gp.nodes <= 1) return "NVLink";
  return gp.per_node > 1 ? "NVLink + InfiniBand" : "InfiniBand";
}

/* ------------------------------------------------------- partial sums */

/* What one GPU holds of a value under tensor parallelism. */
typedef enum Held {
  HELD_FULL,    /* the whole value (replicated) */
  HELD_SHARD,   /* a shard=tensor weight, or a view of one */
  HELD_SPLIT,   /* this rank's slice of a column-parallel output */
  HELD_PARTIAL, /* this rank's partial sum of a row-parallel product */
} Held;

static bool is_op(const GNode *g, OpId id) { return g->op && g->op->id == id; }

/* Ops through which a partial sum stays a partial sum of the same total:
 * views, casts, and add/sub of two partial sums. */
static bool keeps_partial(const GNode *g, const Held *held) {
  OpClass c = g->op->cls;
  if (c == OC_VIEW || (g->op->flags & OPF_CAST)) return true;
  if (!is_op(g, OP_ADD) && !is_op(g, OP_SUB)) return false;
  for (int k = 0; k < g->ninputs; k++)
    if (held[g->inputs[k]] != HELD_PARTIAL) return false;
  return true;
}

/* R-PAR-015: which activations tensor parallelism leaves whole on every
 * rank (what sequence parallelism splits); frees held. */
static void keep_replicated(Model *m, Held *held) {
  for (int i = 0; i < m->nnodes; i++)
    m->nodes[i].tensor_replicated =
        m->nodes[i].role == ROLE_ACTIVATION && held[i] == HELD_FULL;
  free(held);
}

/* R-PAR-008: a row-parallel product (a matmul of a split operand by a
 * shard=tensor weight) gives each GPU a partial sum; the tensor group
 * must sum it (allreduce or reduce_scatter with group=tensor) before
 * anything but a view, a cast or another partial sum reads it. */
/* R-PAR-019: the sum over the tensor group of a vocab-parallel lookup's
 * rows is Megatron-LM's VocabParallelEmbedding, whose backward hands each
 * rank the whole gradient with nothing to sum. */
static bool embedding_sum(const Model *m, const GNode *g, Held in0) {
  return in0 == HELD_PARTIAL && (g->op->flags & OPF_ALLREDUCE) &&
         is_op(&m->nodes[g->inputs[0]], OP_EMBEDDING);
}

/* R-PAR-015: sequence parallelism splits what tensor parallelism leaves
 * whole on every rank of the tensor group; a plan with no such group, or
 * no shard=tensor weight to split the products, has nothing to split, and
 * the key would change nothing without a word. */
static void check_sequence_parallel(const Model *m, bool sharded,
                                    DiagSink *diags) {
  const Parallel *p = &m->parallel;
  if (!p->sequence_parallel || p->sequence_parallel_loc.file < 0) return;
  if (p->tensor > 1 && sharded) return;
  diag_report(diags, SEV_WARNING, NULL, p->sequence_parallel_loc,
              p->tensor <= 1
                  ? "sequence_parallel splits nothing at tensor = 1: it "
                    "splits activations over the tensor group"
                  : "sequence_parallel splits nothing: no weight is "
                    "shard=tensor, so no activation is whole on every rank "
                    "of the tensor group");
}

/* R-PAR-020: microbatches are a pipeline's (R-PAR-009) or a train step's
 * accumulation; an inference plan with neither runs the model once, and
 * the key would change nothing without a word. */
static void check_microbatches(const Model *m, DiagSink *diags) {
  const Parallel *p = &m->parallel;
  if (p->microbatches <= 1 || p->pipeline > 1 || m->train ||
      p->microbatches_loc.file < 0)
    return;
  diag_report(diags, SEV_WARNING, NULL, p->microbatches_loc,
              "microbatches = %lld changes nothing in inference without a "
              "pipeline: a step runs the model once, as written",
              (long long)p->microbatches);
}

/* The plan's keys that would change nothing as written. */
static void check_idle_keys(const Model *m, bool sharded, DiagSink *diags) {
  check_sequence_parallel(m, sharded, diags);
  check_microbatches(m, diags);
}

static bool has_shards(const Model *m) {
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].shard_tensor) return true;
  return false;
}

void parallel_check_partials(Model *m, DiagSink *diags) {
  int n = m->nnodes;
  bool any = has_shards(m);
  check_idle_keys(m, any, diags);
  if (!any) return;
  Held *held = xcalloc((size_t)n + 1, sizeof *held);
  for (int i = 0; i < n; i++) {
    const GNode *g = &m->nodes[i];
    if (!g->op) {
      held[i] = g->shard_tensor ? HELD_SHARD : HELD_FULL;
      continue;
    }
    bool tensor_group = g->op->cls == OC_COLLECTIVE && g->args->group == PG_TENSOR;
    Held in0 = g->ninputs > 0 ? held[g->inputs[0]] : HELD_FULL;
    int partial = -1, split = 0;
    for (int k = 0; k < g->ninputs; k++) {
      Held h = held[g->inputs[k]];
      if (h == HELD_PARTIAL && partial < 0) partial = g->inputs[k];
      split += h == HELD_SPLIT;
    }
    if (tensor_group) { /* the group's sum or gather makes it whole */
      m->nodes[i].forward_only = embedding_sum(m, g, in0);
      held[i] = HELD_FULL;
      continue;
    }
    if (partial >= 0 && keeps_partial(g, held)) {
      held[i] = HELD_PARTIAL;
      continue;
    }
    if (partial >= 0) {
      const GNode *p = &m->nodes[partial];
      Diag *d = diag_report(
          diags, SEV_ERROR, NULL, g->loc,
          "%s '%s' reads '%s', this GPU's partial sum of a row-parallel "
          "product: sum it over the tensor group first",
          g->op->name, g->name, p->name);
      diag_note(d, p->loc,
                "'%s' multiplies a value split over the tensor group by a "
                "shard=tensor weight",
                p->name);
      char fix[160];
      if (!strchr(p->name, '.') &&
          snprintf(fix, sizeof fix, "; %s = allreduce(%s, group=tensor)",
                   p->name, p->name) < (int)sizeof fix)
        diag_fixit(d, (Loc){p->stmt_loc.file, p->stmt_loc.end, p->stmt_loc.end},
                   fix);
      held[i] = HELD_FULL;
      continue;
    }
    if (g->op->cls == OC_CONTRACTION && g->ninputs >= 2 &&
        held[g->inputs[1]] == HELD_SHARD) {
      /* a batched product by a weight of rank 3 or more (per head, as
       * MLA's absorbed w_uk) contracts within each rank's heads */
      const TensorType *w = m->nodes[g->inputs[1]].type;
      bool batched = w && w->rank >= 3;
      held[i] = in0 == HELD_SPLIT && !batched ? HELD_PARTIAL : HELD_SPLIT;
      continue;
    }
    /* R-PAR-012: a cross-entropy of vocab-parallel logits (Megatron's
     * vocab_parallel_cross_entropy) sums its max, its exp sum and the
     * target logit over the tensor group: its loss is whole */
    if (is_op(g, OP_CROSS_ENTROPY) && in0 == HELD_SPLIT) {
      m->nodes[i].vocab_parallel = true;
      held[i] = HELD_FULL;
      continue;
    }
    /* a vocab-parallel lookup: rows outside this rank's part are zero */
    if (is_op(g, OP_EMBEDDING) && g->ninputs >= 2 &&
        held[g->inputs[1]] == HELD_SHARD) {
      held[i] = HELD_PARTIAL;
      continue;
    }
    if (g->op->cls == OC_VIEW) {
      held[i] = in0;
      continue;
    }
    held[i] = split > 0 ? HELD_SPLIT : HELD_FULL;
  }
  keep_replicated(m, held);
}

/* R-PAR-001: each GPU of the expert group holds E / expert whole experts
 * of every experts block (Megatron-Core requires num_experts %
 * expert_model_parallel_size == 0); a remainder would price a fraction
 * of an expert per GPU.  The plan falls back to expert 1, as for the
 * other degree errors. */
void parallel_check_experts(Model *m, DiagSink *diags) {
  Parallel *p = &m->parallel;
  if (p->expert <= 1) return;
  for (int sc = 0; sc < m->nscopes; sc++) {
    const Scope *x = &m->scopes[sc];
    if (!x->experts || x->experts % p->expert == 0) continue;
    Diag *d = diag_report(diags, SEV_ERROR, NULL, x->loc,
                          "parallel 'expert' = %lld does not divide the %lld "
                          "experts of this block: each GPU of the expert "
                          "group holds a whole share of them",
                          (long long)p->expert, (long long)x->experts);
    diag_note(d, p->loc, "the parallel plan is here");
    p->expert = 1;
    return;
  }
}

/* ------------------------------------------------------------ pipeline */

int parallel_pipeline_scope(const Model *m) {
  int best = -1;
  for (int sc = 0; sc < m->nscopes; sc++) {
    const Scope *x = &m->scopes[sc];
    if (x->parent >= 0 || x->is_loop) continue;
    if (best < 0 || x->trips > m->scopes[best].trips) best = sc;
  }
  return best;
}

/* R-PAR-009: the repeat the stages split must exist and divide evenly. */
void parallel_check_pipeline(const Model *m, DiagSink *diags) {
  const Parallel *p = &m->parallel;
  if (p->pipeline <= 1) return;
  int sc = parallel_pipeline_scope(m);
  if (sc < 0) {
    diag_report(diags, SEV_ERROR, NULL, p->loc,
                "parallel 'pipeline' = %lld needs a repeat of layers to "
                "split over the stages",
                (long long)p->pipeline);
    return;
  }
  const Scope *x = &m->scopes[sc];
  if (x->trips % p->pipeline != 0)
    diag_report(diags, SEV_ERROR, NULL, x->loc,
                "repeat %lld does not split evenly over pipeline = %lld "
                "stages",
                (long long)x->trips, (long long)p->pipeline);
}
