/* SPDX-License-Identifier: MIT */
/*
 * stray_fp32.c: the stray-fp32 check.  In a 16-bit or 8-bit plan, an op
 * whose compute precision is fp32 (or fp64) loses twice on the roofline: a
 * contraction leaves the tensor cores (the flat roof drops) and every op
 * moves wider bytes (the intensity drops).  The cost of the alternative is
 * not guessed: the whole model is costed once more with every inferred wide
 * float dtype replaced by the plan's, and each flagged node is compared with
 * its twin.
 *
 * To stay quiet, fp32 is reported where it enters: one pass in topological
 * order records, per node, where its wide dtype came from (a declaration, a
 * cast, or an op written with precision=) and which reported node it is
 * attributed to.  A contraction is always reported (it loses the tensor
 * cores on its own); an elementwise, reduction or movement op is reported
 * when fp32 reaches it straight from its source, and ops that merely inherit
 * fp32 from a reported op are summed into that report.  Linear in the graph.
 * The second costing (a copy of every node) is made only when some report
 * passes its thresholds, in a scratch arena freed before returning.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "util.h"

static bool is_wide(DType t) { return t == DT_FP32 || t == DT_FP64; }

/* "a" or "an" before a dtype name, by how it is read aloud: letters whose
 * names start with a vowel sound ("an fp8", "an int8") take "an", the
 * rest ("a bf16", "a tf32") take "a". */
static const char *article(const char *word) {
  return word[0] && strchr("aefhilmnorsx", word[0]) ? "an" : "a";
}

static bool narrow_plan(DType t) {
  if (t == DT_NONE) return false;
  const DTypeInfo *i = dtype_info(t);
  return i->is_float && i->bits <= 16;
}

static bool is_cast(const GNode *g) {
  return g->op && (g->op->flags & OPF_CAST);
}

/* Ops whose fp32 compute or bytes cost something (views move nothing;
 * transfers, collectives and custom ops are costed as stated). */
static bool reportable_class(OpClass c) {
  return c == OC_CONTRACTION || c == OC_ELEMENTWISE || c == OC_REDUCTION ||
         c == OC_MOVEMENT;
}

/* The model again with every inferred wide float replaced by the plan,
 * built and costed in `a` (a scratch arena: only figures are kept). */
static const ModelCost *cost_at_plan(const CheckCtx *ctx, Arena *a) {
  const Model *m = ctx->model;
  Model *alt = arena_alloc(a, sizeof *alt);
  *alt = *m;
  GNode *nodes = arena_alloc(a, (size_t)(m->nnodes + 1) * sizeof *nodes);
  /* Types are shared between nodes: one narrowed copy per distinct type. */
  PtrMap narrowed;
  ptrmap_init(&narrowed);
  for (int i = 0; i < m->nnodes; i++) {
    GNode g = m->nodes[i];
    if (!g.precision_explicit) {
      if (is_wide(g.type->dtype)) {
        TensorType *t = ptrmap_get(&narrowed, g.type);
        if (!t) {
          t = arena_memdup(a, g.type, sizeof *t);
          t->dtype = m->dtype;
          ptrmap_put(&narrowed, g.type, t);
        }
        g.type = t;
      }
      if (is_wide(g.precision)) g.precision = m->dtype;
      if (is_cast(&g) && is_wide(g.args->cast_to)) {
        /* args are shared between nodes: change a copy */
        OpArgs *args = arena_memdup(a, g.args, sizeof *args);
        args->cast_to = m->dtype;
        g.args = args;
      }
    }
    nodes[i] = g;
  }
  ptrmap_free(&narrowed);
  alt->nodes = nodes;
  return cost_model(a, alt, ctx->target);
}

/* "990.0 -> 67.0 TFLOP/s": both rates in the unit of the first, TFLOP/s at
 * most, as the seed prints 1979 TF/s. */
static char *rate_pair(char *buf, size_t n, double a, double b) {
  static const struct {
    double f;
    const char *p;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1, ""}};
  int k = 0;
  while (k < 3 && a < units[k].f) k++;
  char x[32], y[32];
  snprintf(buf, n, "%s -> %s %sFLOP/s",
           fmt_fixed(x, sizeof x, a / units[k].f, 1),
           fmt_fixed(y, sizeof y, b / units[k].f, 1), units[k].p);
  return buf;
}

typedef struct Group {
  double cur_bytes, alt_bytes, cur_time, alt_time; /* per step */
  int followers;                                   /* inheriting ops */
  int first_follower;
} Group;

/* Notes (and one fix-it per source) at the places fp32 came from. */
static void note_sources(const CheckCtx *ctx, Diag *d, const GNode *g,
                         const int *source, bool *fixed) {
  const Model *m = ctx->model;
  int seen[4] = {-1, -1, -1, -1};
  int nseen = 0;
  for (int k = 0; k < g->ninputs && nseen < 4; k++) {
    int s = source[g->inputs[k]];
    if (s < 0) continue;
    bool dup = false;
    for (int q = 0; q < nseen; q++)
      dup = dup || seen[q] == s ||
            (m->nodes[seen[q]].dtype_loc.file >= 0 &&
             m->nodes[seen[q]].dtype_loc.start == m->nodes[s].dtype_loc.start);
    if (dup) continue;
    seen[nseen++] = s;
    const GNode *src = &m->nodes[s];
    const char *w = dtype_str(src->type->dtype);
    Loc at = src->dtype_loc.file >= 0 ? src->dtype_loc : src->loc;
    if (!src->op)
      diag_note(d, at, "%s comes from the declaration of '%s'", w, src->name);
    else if (is_cast(src))
      diag_note(d, at, "%s comes from this cast ('%s')", w, src->name);
    else
      diag_note(d, at, "%s comes from '%s', computed with precision=%s", w,
                src->name, dtype_str(src->precision));
    if (!fixed[s] && src->dtype_loc.file >= 0 && (!src->op || is_cast(src))) {
      diag_fixit(d, src->dtype_loc, dtype_str(m->dtype));
      /* `input x, y : fp32[...]` writes fp32 once for both: one fix-it. */
      for (int j = s;
           j >= 0 && m->nodes[j].dtype_loc.start == src->dtype_loc.start; j--)
        fixed[j] = true;
      for (int j = s + 1;
           j < m->nnodes && m->nodes[j].dtype_loc.start == src->dtype_loc.start;
           j++)
        fixed[j] = true;
    }
  }
}

/* Node i's fp32 work, counted in the report of group q (the node that
 * reports it); -1 when it is not counted anywhere. */
static int counted_in(const Model *m, const int *origin, const int *root,
                      int i) {
  int q = origin[i];
  const GNode *g = &m->nodes[i];
  if (q < 0 || !g->op || !is_wide(g->precision) || g->precision_explicit ||
      !reportable_class(g->op->cls))
    return -1; /* views pass fp32 on but move nothing */
  /* A contraction downstream of another report is its own report. */
  if (root[q] != i && g->op->cls == OC_CONTRACTION) return -1;
  return q;
}

/* Where fp32 came from and what it is counted in: source, per node, the
 * node fp32 came from; origin, the group (an index into root, the
 * reporting nodes in source order) it is counted in. */
typedef struct Trace {
  int *source, *origin, *root;
  int nroot, cap_root;
} Trace;

static void add_root(Trace *tr, int i) {
  if (tr->nroot == tr->cap_root) {
    tr->cap_root = tr->cap_root ? 2 * tr->cap_root : 16;
    tr->root = xrealloc(tr->root, (size_t)tr->cap_root * sizeof *tr->root);
  }
  tr->root[tr->nroot] = i;
  tr->origin[i] = tr->nroot++;
}

/* The one pass in topological order (see the top of the file). */
static Trace trace_wide(const Model *m) {
  int n = m->nnodes;
  Trace tr = {xmalloc((size_t)n * sizeof *tr.source),
              xmalloc((size_t)n * sizeof *tr.origin), NULL, 0, 0};
  for (int i = 0; i < n; i++) {
    const GNode *g = &m->nodes[i];
    tr.source[i] = tr.origin[i] = -1;
    if (!g->op || is_cast(g) || g->precision_explicit) {
      if (is_wide(g->type->dtype)) tr.source[i] = i;
      continue;
    }
    int j = -1;
    for (int k = 0; k < g->ninputs && j < 0; k++)
      if (is_wide(m->nodes[g->inputs[k]].type->dtype)) j = g->inputs[k];
    if (j >= 0) tr.source[i] = tr.source[j];
    bool computes_wide = is_wide(g->precision) && reportable_class(g->op->cls);
    if (!computes_wide)
      tr.origin[i] = j >= 0 ? tr.origin[j] : -1;
    else if (g->op->cls == OC_CONTRACTION || j < 0 || tr.origin[j] < 0)
      add_root(&tr, i);
    else
      tr.origin[i] = tr.origin[j];
  }
  return tr;
}

static void trace_free(Trace *tr) {
  free(tr->root);
  free(tr->origin);
  free(tr->source);
}

/* Below the launch overhead or CHECK_MIN_STEP_PCT of the step: no report. */
static bool too_small(const CheckCtx *ctx, const Group *q) {
  double step = ctx->cost->time_s;
  return q->cur_time < ctx->target->launch_overhead ||
         (step > 0 && q->cur_time < step * CHECK_MIN_STEP_PCT / 100.0);
}

/* Each group's bytes and time per step under cost c: the current ones, or
 * (alt) at the plan's dtype. */
static void group_costs(const Model *m, const ModelCost *c, const Trace *tr,
                        Group *grp, bool alt) {
  for (int i = 0; i < m->nnodes; i++) {
    int q = counted_in(m, tr->origin, tr->root, i);
    if (q < 0) continue;
    const GNode *g = &m->nodes[i];
    if (alt) {
      grp[q].alt_bytes += c->nodes[i].bytes * g->count;
      grp[q].alt_time += c->nodes[i].time_s * g->count;
      continue;
    }
    grp[q].cur_bytes += c->nodes[i].bytes * g->count;
    grp[q].cur_time += c->nodes[i].time_s * g->count;
    if (tr->root[q] != i && grp[q].followers++ == 0) grp[q].first_follower = i;
  }
}

/* A contraction: its ceiling and intensity now and at the plan's dtype. */
static Diag *report_contraction(const CheckCtx *ctx, const ModelCost *alt,
                                int i) {
  const GNode *g = &ctx->model->nodes[i];
  const NodeCost *cur = &ctx->cost->nodes[i], *a = &alt->nodes[i];
  const char *plan = dtype_str(ctx->model->dtype);
  char b1[64], b2[64], ps[48], rp[96], r3[32];
  double ratio = cur->peak > 0 ? a->peak / cur->peak : 0;
  double i_plan = cost_node_roof(alt, a).intensity;
  double i_now = cost_node_roof(ctx->cost, cur).intensity;
  Diag *d = checks_report(
      ctx, "stray-fp32", g->loc,
      "%s '%s' computes in %s inside %s %s plan: ceiling %s (%sx), "
      "intensity %s -> %s FLOP/B%s",
      g->op->name, g->name, dtype_str(g->precision), article(plan), plan,
      rate_pair(rp, sizeof rp, a->peak, cur->peak),
      fmt_fixed(r3, sizeof r3, ratio, 1),
      fmt_intensity(b1, sizeof b1, i_plan),
      fmt_intensity(b2, sizeof b2, i_now),
      checks_per_step(ps, sizeof ps, g->count));
  diag_figure(d, "ceiling_plan", a->peak);
  diag_figure(d, "ceiling", cur->peak);
  diag_figure(d, "ceiling_ratio", ratio);
  diag_figure(d, "intensity_plan", i_plan);
  diag_figure(d, "intensity", i_now);
  diag_figure(d, "time_s", cur->time_s * g->count);
  diag_figure(d, "time_plan_s", a->time_s * g->count);
  return d;
}

/* Any other op: its group's bytes and time now and at the plan's dtype. */
static Diag *report_bytes(const CheckCtx *ctx, const GNode *g, const Group *q) {
  const char *plan = dtype_str(ctx->model->dtype);
  char b1[64], b2[64], t1[32], t2[32], with[96] = "";
  if (q->followers)
    snprintf(with, sizeof with,
             "with the %d op%s that inherit%s %s from it, ", q->followers,
             q->followers == 1 ? "" : "s", q->followers == 1 ? "s" : "",
             dtype_str(g->precision));
  Diag *d = checks_report(
      ctx, "stray-fp32", g->loc,
      "%s '%s' computes in %s inside %s %s plan: %sit moves %s instead of "
      "%s per step (%s instead of %s)",
      g->op->name, g->name, dtype_str(g->precision), article(plan), plan,
      with,
      fmt_bytes(b1, sizeof b1, q->cur_bytes),
      fmt_bytes(b2, sizeof b2, q->alt_bytes),
      fmt_time(t1, sizeof t1, q->cur_time),
      fmt_time(t2, sizeof t2, q->alt_time));
  diag_figure(d, "bytes", q->cur_bytes);
  diag_figure(d, "bytes_plan", q->alt_bytes);
  diag_figure(d, "time_s", q->cur_time);
  diag_figure(d, "time_plan_s", q->alt_time);
  return d;
}

/* Root node i's report, with its sources and, for a contraction, the ops
 * that inherit its precision. */
static void report_root(const CheckCtx *ctx, const ModelCost *alt,
                        const Trace *tr, const Group *q, int i, bool *fixed) {
  const Model *m = ctx->model;
  const GNode *g = &m->nodes[i];
  bool contraction = g->op->cls == OC_CONTRACTION;
  Diag *d = contraction ? report_contraction(ctx, alt, i) : report_bytes(ctx, g, q);
  note_sources(ctx, d, g, tr->source, fixed);
  if (!q->followers || !contraction) return;
  const GNode *f = &m->nodes[q->first_follower];
  const NodeCost *cur = &ctx->cost->nodes[i], *a = &alt->nodes[i];
  char b1[64], b2[64];
  diag_note(d, f->loc,
            "%s flows on into %d more op%s from '%s': %s instead of %s "
            "per step",
            dtype_str(g->precision), q->followers,
            q->followers == 1 ? "" : "s", f->name,
            fmt_bytes(b1, sizeof b1, q->cur_bytes - cur->bytes * g->count),
            fmt_bytes(b2, sizeof b2, q->alt_bytes - a->bytes * g->count));
}

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  if (!narrow_plan(m->dtype) || m->nnodes == 0) return;
  /* The shared pass saw every node's precision: usually no pass here. */
  if (ctx->shared && !ctx->shared->any_wide) return;
  Trace tr = trace_wide(m);
  /* Whether a group is worth a report depends on the current cost only:
   * the model is costed at the plan's dtype only when one is. */
  Group *grp = xcalloc((size_t)tr.nroot + 1, sizeof *grp);
  group_costs(m, ctx->cost, &tr, grp, false);
  bool any = false;
  for (int q = 0; q < tr.nroot && !any; q++) any = !too_small(ctx, &grp[q]);
  if (any) {
    Arena *scratch = arena_new();
    const ModelCost *alt = cost_at_plan(ctx, scratch);
    group_costs(m, alt, &tr, grp, true);
    bool *fixed = xcalloc((size_t)m->nnodes, sizeof *fixed);
    for (int r = 0; r < tr.nroot; r++)
      if (!too_small(ctx, &grp[r]))
        report_root(ctx, alt, &tr, &grp[r], tr.root[r], fixed);
    free(fixed);
    arena_free(scratch);
  }
  free(grp);
  trace_free(&tr);
}

/* The shared pass notes whether any op computes wide: usually none does,
 * and run() then needs no pass of its own. */
static void see_node(const CheckCtx *ctx, CheckShared *sh, int node,
                     bool matters) {
  (void)matters;
  const GNode *g = &ctx->model->nodes[node];
  if (g->op && is_wide(g->precision)) sh->any_wide = true;
}

static const CheckHooks hooks = {see_node, NULL, NULL};

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "The model's `dtype` (bf16, fp16, fp8) is its plan.  An op whose widest\n"
    "input is fp32 (or fp64) computes at that precision instead.  A\n"
    "contraction leaves the tensor cores for the plain fp32 cores and moves\n"
    "twice the bytes, so it loses twice on the roofline: the flat roof drops\n"
    "(990 -> 67 TFLOP/s on an H100, 14.8x) and the intensity halves (1365 ->\n"
    "683 FLOP/B for a 4096^3 matmul).  Elementwise, reduction and movement\n"
    "ops in fp32 are memory-bound, so they are reported with the bytes they\n"
    "double.  The 16-bit figures come from costing the same graph with every\n"
    "inferred fp32 replaced by the plan's dtype.\n"
    "\n"
    "fp32 is reported where it enters: at every contraction computing in it,\n"
    "and at the first other op it reaches from its source.  Ops that merely\n"
    "inherit fp32 from an op already reported are counted in that report.  A\n"
    "note points at the source (the `fp32` of a declaration, a\n"
    "`cast(x, fp32)`, or an op written with precision=), followed back\n"
    "through views and elementwise ops, with a fix-it writing the plan's\n"
    "dtype there.\n"
    "\n"
    "Not reported: ops written with `precision=` (fp32 on purpose), plans\n"
    "wider than 16 bits, and fp32 work that takes less than the launch\n"
    "overhead or less than " CHECKS_STR(CHECK_MIN_STEP_PCT) "% of the step time.\n"
    "\n"
    "Example:\n"
    "    dtype bf16\n"
    "    weight w : fp32[4096, 4096]     # fix: weight w : bf16[4096, 4096]\n"
    "    y = matmul(x, w)\n";
/* clang-format on */

const CheckDesc check_stray_fp32 = {
    "stray-fp32", SEV_WARNING, true,
    "an op computes in fp32 inside a bf16, fp16 or fp8 plan",
    explain, run, &hooks, false};
