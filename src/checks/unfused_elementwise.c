/* SPDX-License-Identifier: MIT */
/*
 * unfused_elementwise.c: the unfused-elementwise check.  Elementwise ops
 * are memory-bound; a chain of them that writes each intermediate to HBM
 * and reads it back pays for bytes a fused kernel would keep on chip.
 *
 * Approach: one pass over the nodes with union-find.  An elementwise op
 * outside any `fused` region is joined to each elementwise operand that has
 * exactly one consumer, is not an output, and sits in the same scope: the
 * sets are the maximal chains (or trees) whose intermediates lead nowhere
 * else.  A second pass sums, per set, the bytes unfused (every member's
 * inputs and output) against fused (inputs from outside the set, read once,
 * plus the results that leave it).  A set whose first input is a matmul's
 * only consumer is that matmul's epilogue; the matmul stays outside.  Work
 * is linear in nodes plus edges.
 */
#include <string.h>

#include "rooflint.h"

#define MAX_NAMES_SHOWN 6

static int find(int *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; /* path halving */
    x = parent[x];
  }
  return x;
}

static void unite(int *parent, int a, int b) {
  a = find(parent, a);
  b = find(parent, b);
  /* The smaller index (earlier statement) is the root. */
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

static bool eligible(const GNode *g) {
  return g->op && g->op->cls == OC_ELEMENTWISE && g->region < 0;
}

static bool is_view(const GNode *g) {
  return g->op && g->op->cls == OC_VIEW && g->region < 0 && g->ninputs >= 1;
}

/* May `h` stay on chip inside a chain ending at its consumer `g`? */
static bool linkable(const GNode *h, const GNode *g) {
  return h->nconsumers == 1 && !h->is_output && h->scope == g->scope &&
         !h->loop_carried;
}

static double tensor_bytes(const TensorType *t) {
  int64_t e;
  if (!op_elements(t, &e)) return 0;
  return (double)e * dtype_info(t->dtype)->bytes;
}

/* A region name no region of the model uses yet. */
static const char *region_name(const CheckCtx *ctx, const char *base) {
  const Model *m = ctx->model;
  for (int k = 0;; k++) {
    const char *name = k == 0 ? arena_printf(ctx->arena, "%s_fused", base)
                              : arena_printf(ctx->arena, "%s_fused%d", base, k);
    bool taken = false;
    for (int r = 0; r < m->nregions && !taken; r++)
      taken = m->regions[r].name && strcmp(m->regions[r].name, name) == 0;
    if (!taken) return name;
  }
}

/* The fix-it, when the members are consecutive statements of one block. */
static void wrap_fixit(const CheckCtx *ctx, Diag *d, const StmtIndex *ix,
                       const int *members, int nm) {
  const Block *blk = NULL;
  int lo = 0, hi = 0;
  for (int k = 0; k < nm; k++) {
    const StmtRef *r =
        checks_stmt_find(ix, ctx->model->nodes[members[k]].stmt_loc.start);
    if (!r || r->stmt->kind != ST_ASSIGN) return;
    if (k == 0) {
      blk = r->block;
      lo = hi = r->index;
    } else {
      if (r->block != blk) return;
      if (r->index < lo) lo = r->index;
      if (r->index > hi) hi = r->index;
    }
  }
  if (!blk || hi - lo + 1 != nm) return; /* something else sits between */
  const Stmt *first = blk->items[lo], *last = blk->items[hi];
  const char *name = region_name(ctx, ctx->model->nodes[members[nm - 1]].name);
  diag_fixit(d, (Loc){first->loc.file, first->loc.start, first->loc.start},
             arena_printf(ctx->arena, "fused %s { ", name));
  diag_fixit(d, (Loc){last->loc.file, last->loc.end, last->loc.end}, " }");
}

void check_unfused_elementwise(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  int n = m->nnodes;
  if (n < 2) return;
  Arena *a = ctx->arena;
  int *parent = arena_alloc(a, (size_t)n * sizeof *parent);
  for (int i = 0; i < n; i++) parent[i] = i;
  bool joined = false;
  for (int i = 0; i < n; i++) {
    const GNode *g = &m->nodes[i];
    if (!eligible(g)) continue;
    for (int k = 0; k < g->ninputs; k++) {
      /* Views (reshape, transpose) move nothing: look through them, and
       * take them into the chain so its statements stay contiguous. */
      int j = g->inputs[k];
      while (is_view(&m->nodes[j]) && linkable(&m->nodes[j], g))
        j = m->nodes[j].inputs[0];
      const GNode *h = &m->nodes[j];
      if (!eligible(h) || !linkable(h, g)) continue;
      unite(parent, i, j);
      for (int v = g->inputs[k]; v != j; v = m->nodes[v].inputs[0])
        unite(parent, i, v);
      joined = true;
    }
  }
  if (!joined) return;

  /* Members per root, in source order (a counting sort by root). */
  int *size = arena_alloc(a, (size_t)n * sizeof *size);
  int *start = arena_alloc(a, (size_t)(n + 1) * sizeof *start);
  int *members = arena_alloc(a, (size_t)n * sizeof *members);
  int *root = arena_alloc(a, (size_t)n * sizeof *root);
  for (int i = 0; i < n; i++) {
    root[i] = find(parent, i);
    size[root[i]]++;
  }
  for (int i = 0, acc = 0; i < n; i++) {
    start[i] = acc;
    acc += size[i];
  }
  int *fill = arena_alloc(a, (size_t)n * sizeof *fill);
  for (int i = 0; i < n; i++) members[start[root[i]] + fill[root[i]]++] = i;

  /* Uses of each member from inside its own set. */
  int *inner_uses = arena_alloc(a, (size_t)n * sizeof *inner_uses);
  int *stamp = arena_alloc(a, (size_t)n * sizeof *stamp);
  for (int i = 0; i < n; i++)
    if (size[root[i]] >= 2)
      for (int k = 0; k < m->nodes[i].ninputs; k++) {
        int j = m->nodes[i].inputs[k];
        if (root[j] == root[i] && j != i) inner_uses[j]++;
      }

  StmtIndex ix = {0};
  bool have_ix = false;
  double step = c->time_s;
  for (int r = 0; r < n; r++) {
    if (root[r] != r || size[r] < 2 || !eligible(&m->nodes[r])) continue;
    const int *mem = &members[start[r]];
    int nm = size[r], nk = 0; /* members; kernels among them */
    double unfused = 0, fused = 0, flops = 0, time_unfused = 0;
    int epilogue_of = -1;
    for (int q = 0; q < nm; q++) {
      int i = mem[q];
      nk += eligible(&m->nodes[i]);
      const GNode *g = &m->nodes[i];
      unfused += c->nodes[i].bytes;
      flops += c->nodes[i].flops;
      time_unfused += c->nodes[i].time_s;
      for (int k = 0; k < g->ninputs; k++) {
        int j = g->inputs[k];
        if (root[j] == r || stamp[j] == r + 1) continue;
        stamp[j] = r + 1; /* read once, however many members use it */
        fused += tensor_bytes(m->nodes[j].type);
        const GNode *h = &m->nodes[j];
        if (epilogue_of < 0 && h->op && h->op->cls == OC_CONTRACTION &&
            h->nconsumers == 1 && !h->is_output)
          epilogue_of = j;
      }
      if (g->is_output || g->nconsumers > inner_uses[i])
        fused += tensor_bytes(g->type);
    }
    const GNode *first = &m->nodes[mem[0]], *last = &m->nodes[mem[nm - 1]];
    const NodeCost *fc = &c->nodes[mem[0]];
    double bw = ctx->target->memory_bw;
    double t_fused = bw > 0 ? fused / bw : 0;
    if (fc->peak > 0 && flops / fc->peak > t_fused) t_fused = flops / fc->peak;
    double saved = (time_unfused - t_fused) * first->count;
    if (fused >= unfused || saved <= 0) continue;
    /* A chain that is all launch and no work is overhead-bound's case. */
    if (time_unfused < ctx->target->launch_overhead) continue;
    if (step > 0 && saved < step * CHECK_UNFUSED_MIN_PCT / 100.0) continue;

    StrBuf names = {0};
    for (int q = 0, shown = 0; q < nm; q++) {
      if (!eligible(&m->nodes[mem[q]])) continue; /* a view */
      if (shown == MAX_NAMES_SHOWN - 1 && nk > MAX_NAMES_SHOWN) {
        sb_printf(&names, " -> ... -> '%s'", last->name);
        break;
      }
      sb_printf(&names, "%s'%s'", shown++ ? " -> " : "", m->nodes[mem[q]].name);
    }
    char after[160] = "", b1[32], b2[32], t1[32], ps[48];
    if (epilogue_of >= 0)
      snprintf(after, sizeof after, " after %s '%s'",
               m->nodes[epilogue_of].op->name, m->nodes[epilogue_of].name);
    Diag *d = checks_report(
        ctx, "unfused-elementwise", first->loc,
        "elementwise chain %s%s is not fused: %d kernels move %s, one fused "
        "kernel would move %s%s; fusing saves %s per step",
        sb_str(&names), after, nk, fmt_bytes(b1, sizeof b1, unfused),
        fmt_bytes(b2, sizeof b2, fused),
        checks_per_step(ps, sizeof ps, first->count),
        fmt_time(t1, sizeof t1, saved));
    sb_free(&names);
    diag_figure(d, "ops", nk);
    diag_figure(d, "bytes_unfused", unfused);
    diag_figure(d, "bytes_fused", fused);
    diag_figure(d, "time_saved_s", saved);
    diag_note(d, last->loc, "the chain ends at '%s'", last->name);
    if (epilogue_of >= 0)
      diag_note(d, m->nodes[epilogue_of].loc,
                "the chain is the epilogue of '%s', which stays outside the "
                "fused region",
                m->nodes[epilogue_of].name);
    if (!have_ix) {
      checks_stmt_index(a, checks_program(ctx), &ix);
      have_ix = true;
    }
    wrap_fixit(ctx, d, &ix, mem, nm);
  }
}
