/* SPDX-License-Identifier: MIT */
/*
 * checks.h: what the checks share, and nothing else sees.  The project
 * header (rooflint.h) has only what other stages need of the checks: the
 * registry (CheckDesc, check_registry, check_lookup), checks_run and the
 * context it takes.  A check is one file of src/checks/ that defines its
 * CheckDesc (code, thresholds, --explain text) and one row of CHECKS_LIST.
 */
#ifndef ROOFLINT_CHECKS_H
#define ROOFLINT_CHECKS_H

#include "rooflint.h"
#include "cost.h"
#include "diag.h"

/* The checks, in registry order: X(name) for each `const CheckDesc
 * check_name` of src/checks/name.c.  Adding a check is one row here. */
#define CHECKS_LIST(X)                                                     \
  X(stray_fp32)                                                            \
  X(unfused_elementwise)                                                   \
  X(unfused_attention)                                                     \
  X(memory_bound)                                                          \
  X(low_occupancy)                                                         \
  X(wave_tail)                                                             \
  X(transfer_in_loop)                                                      \
  X(cross_node)                                                            \
  X(capacity)                                                              \
  X(overhead_bound)                                                        \
  X(tc_alignment)

#define CHECKS_DECLARE(name) extern const CheckDesc check_##name;
CHECKS_LIST(CHECKS_DECLARE)
#undef CHECKS_DECLARE

/* Quotes a threshold into an --explain text, so the documentation cannot
 * drift from the code. */
#define CHECKS_STR_(x) #x
#define CHECKS_STR(x) CHECKS_STR_(x)

/* What "matters" is the one threshold every check shares.  Low-occupancy's
 * is here too: memory-bound's --explain quotes it (its occupancy note). */
#define CHECK_MIN_STEP_PCT 1        /* a node matters from 1% of step time */
#define CHECK_OCC_MAX_UTIL_PCT 75   /* low-occupancy: under 75% of the SMs */

/* What several checks ask of every node and kernel, found once per model
 * in one pass over the graph (checks_shared_init).  A finding needs a node
 * or kernel that takes CHECK_MIN_STEP_PCT of the step, so the lists are
 * short (about 100 / CHECK_MIN_STEP_PCT entries: the step is the sum of its
 * kernels) and the checks walk them instead of the graph.  Scratch: every
 * array is xmalloc'd and freed by checks_shared_free. */
typedef struct CheckShared {
  int *nodes;         /* the nodes checks_node_matters() accepts, ascending */
  int nnodes;
  int *kernels;       /* the kernels checks_kernel_matters() accepts, ascending */
  double *blocks;     /* per entry of kernels: blocks, as checks_kernel_blocks */
  int *at;            /* per entry of kernels: its largest member */
  bool *memory_bound; /* per entry of kernels: memory-bound reports a member */
  bool *low_occupancy; /* per entry of kernels: fills under
                          CHECK_OCC_MAX_UTIL_PCT of the SMs (low-occupancy) */
  int nkernels;
  /* The nodes memory-bound reports, ascending (memory-bound's node hook;
   * low-occupancy defers to memory-bound for their kernels). */
  int *membound;
  int nmembound, cap_membound;
  int *transfers;     /* transfer ops in a repeat or loop body, ascending */
  int ntransfers;
  bool any_wide;      /* some op computes in fp32 or fp64 (stray-fp32) */
  /* overhead-bound's census of every kernel (its kernel hook): the
   * kernels on a roof, those under the launch overhead, the first of them
   * (-1: none), and their launches and roofline time per step. */
  int nroof, nsmall, first_small;
  double launches, small_work;
} CheckShared;

/* What a check computes in the shared pass for itself and the others: its
 * fields of CheckShared.  Each hook may be NULL. */
typedef struct CheckHooks {
  /* Every node, in order; `matters` is checks_node_matters(ctx, node). */
  void (*node)(const CheckCtx *ctx, CheckShared *sh, int node, bool matters);
  /* Every kernel, in order. */
  void (*kernel)(const CheckCtx *ctx, CheckShared *sh, int k, const Kernel *kn);
  /* Once the pass is over (the kernels' blocks are final). */
  void (*done)(const CheckCtx *ctx, CheckShared *sh);
} CheckHooks;

/* Helpers shared by the checks (checks.c). */
/* The syntax tree: the kept one, else the file parsed again (once per
 * analysis), else NULL. */
const Program *checks_program(const CheckCtx *ctx);
/* Reports with the registry's severity for `check`. */
Diag *checks_report(const CheckCtx *ctx, const char *check, Loc loc,
                    const char *fmt, ...) PRINTF_LIKE(4, 5);
/* A node worth a performance finding: it launches a kernel, its time is at
 * least the launch overhead, and it takes CHECK_MIN_STEP_PCT of the step. */
bool checks_node_matters(const CheckCtx *ctx, int node);
/* Appends x to a growing int array. */
void checks_push_int(int **v, int *n, int *cap, int x);
/* "" for a node that runs once per step, else " (x32 per step)". */
const char *checks_per_step(char *buf, size_t n, double count);
/* The target as messages name it ("H100 SXM"). */
const char *checks_target_name(const Target *t);
/* The node's op name, or its role for declarations. */
const char *checks_op_name(const GNode *g);
/* Per kernel of ctx->cost: its thread blocks (a fused region: the sum of
 * its contractions that read only the region's inputs, at least its
 * largest member's) and its largest member (else the first node).
 * A custom() op without blocks= counts 0: its blocks are unknown (the cost
 * model only guesses them).  Both arrays have cost->nkernels entries,
 * allocated from ctx->arena.  (The checks take the same figures for the
 * kernels that matter from CheckShared.) */
void checks_kernel_blocks(const CheckCtx *ctx, double **blocks, int **node);
/* The shared analysis of one model (see CheckShared). */
void checks_shared_init(const CheckCtx *ctx, CheckShared *sh);
void checks_shared_free(CheckShared *sh);
/* ctx->shared, or when it is NULL a fresh one in *own: end with
 * checks_shared_end(sh, own), which frees *own when it was used. */
CheckShared *checks_shared_begin(const CheckCtx *ctx, CheckShared *own);
void checks_shared_end(CheckShared *sh, CheckShared *own);
/* The occupancy checks' walk (low-occupancy, wave-tail): visit(ctx, sh, q)
 * for each entry q of the shared kernel list, on a target with more than
 * one SM (on one SM no launch leaves SMs idle). */
typedef void (*SharedKernelVisit)(const CheckCtx *ctx, const CheckShared *sh,
                                  int q);
void checks_each_shared_kernel(const CheckCtx *ctx, SharedKernelVisit visit);
/* The entry of sh->kernels for kernel k, or -1 when k does not matter. */
int checks_shared_kernel(const CheckShared *sh, int k);
/* A kernel worth a finding: on a roof (not PCIe or network), at least the
 * launch overhead, and at least CHECK_MIN_STEP_PCT of the step. */
bool checks_kernel_matters(const CheckCtx *ctx, int kernel);
/* "matmul 'y'" or "fused region 'f'" for the kernel, into buf. */
const char *checks_kernel_name(const CheckCtx *ctx, int kernel, char *buf,
                               size_t n);
/* Where to report a kernel: the op's call, or the region's header. */
Loc checks_kernel_loc(const CheckCtx *ctx, int kernel);

/* Where a statement of a program sits, for fix-its that move or wrap
 * statements. */
typedef struct StmtRef {
  const Stmt *stmt;
  const Block *block;  /* the block holding it */
  int index;           /* its position in block->items */
  const Stmt *parent;  /* the statement owning the block; NULL at top level */
} StmtRef;

/* The statement starting at byte `start` (of a statement and its first
 * child starting there, the child): true with *out filled, else false.
 * Statements of a block are in source order, so this descends from the top
 * block by binary search; nothing is built or allocated. */
bool checks_stmt_find(const Program *p, uint32_t start, StmtRef *out);

/* Re-analysis with one let changed (memory-bound's crossover notes,
 * capacity's largest batch).  A top-level let as sema evaluated it (with
 * the -D overrides). */
typedef struct CheckLet {
  const char *name;
  Loc loc;
  bool ok, is_int;
  bool used; /* the model refers to it, directly or through other lets */
  double v;
} CheckLet;

/* The unit's lets (xmalloc'd, *n of them; the caller frees them), each
 * `used` when model `model` refers to it, directly or through other lets;
 * *sub is the program cut to that model and its used lets, in source
 * order (sub->top.items is xmalloc'd): a re-analysis costs that model and
 * its lets alone. */
CheckLet *checks_lets(const CheckCtx *ctx, int model, int *n, Program *sub);
/* Sema + cost of `sub` in arena `a` with let `name` = v, on ctx->target:
 * its one model's cost, or NULL when it has an error there or another
 * node count (not the same graph). */
const ModelCost *checks_rerun(const CheckCtx *ctx, const Program *sub, Arena *a,
                              const char *name, int64_t v);
/* checks_rerun() of a program whose model has `nnodes` nodes (a model
 * cut to the statements some nodes need), or any number when negative. */
const ModelCost *checks_rerun_sized(const CheckCtx *ctx, const Program *sub,
                                    Arena *a, const char *name, int64_t v,
                                    int nnodes);
/* Marks in used[] (by name id) every name statement st reads, in the
 * blocks inside it too. */
void checks_mark_stmt(const Stmt *st, bool *used, int nnames);
/* The model analysed again with the nadd bindings of `add` (-D NAME=V), on
 * target t, its graph free to change (a tensor degree adds collectives):
 * for an imported file through its importer (CheckCtx.reimport), else on
 * the program cut to the model, where each must be a let the model uses.
 * NULL when it fails there. */
const ModelCost *checks_rerun_as(const CheckCtx *ctx, Arena *a,
                                 const LetOverride *add, int nadd,
                                 const Target *t);

#endif
