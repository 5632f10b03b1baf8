/* SPDX-License-Identifier: MIT */
/*
 * memory_bound.c: the memory-bound check.  A contraction (matmul, conv2d,
 * attention) below the ridge is capped by bandwidth x intensity: the
 * message proves it with the intensity, the ridge, the ceiling and its share
 * of peak, and a note shows that doubling the peak buys nothing while
 * doubling the bandwidth does (the seed's "break it" row).
 *
 * The crossover note answers "how big would it have to be?": for each
 * integer `let` the model uses that is workload, not architecture
 * (doubling it leaves the model's parameter count alone: a batch or a
 * sequence length, not a hidden size or a head count), the analysis (sema
 * + cost, a pure function of program, bindings and target) is re-run in a
 * scratch arena with that let overridden, on the program cut to the model
 * and the lets it uses.  A let matters to a node when doubling it changes
 * the node's FLOPs or bytes.  The search doubles the let until the node is
 * compute-bound (up to CHECK_CROSSOVER_LIMIT), then bisects to the smallest
 * such integer: at most 2 log2(CHECK_CROSSOVER_LIMIT) re-runs a let.  It
 * runs only for the warnings the policy keeps, and every re-run is counted
 * against CHECK_CROSSOVER_RERUNS per model; when the budget runs out the
 * remaining notes are simply not given.  Only a let's first re-run needs
 * the whole model (its parameter and GPU counts say whether the let is
 * workload); the others analyse the model cut to the statements the
 * findings' nodes need (see slice_model), so that ops nothing under study
 * reads (20,000 relus beside one matmul) are not analysed again for every
 * step of every let's search.
 *
 * A memory-bound contraction that also leaves the SMs idle (batch-1
 * decode: 32 output tiles on 132 SMs) is one finding, not two: the seed
 * calls it "two separate failures with one fix", and the fix, a larger
 * batch, is this check's.  So low-occupancy defers to this check for such
 * kernels and the occupancy comes here as one note, with split-K (or, for
 * attention, splitting the keys) as the fix at the current batch: a few
 * SMs cannot draw the whole HBM bandwidth either.
 *
 * A decode model has a memory-bound GEMM in every layer: past
 * CHECK_MEMBOUND_MAX_SINGLE shown findings (and at least two more), the
 * slowest few are reported in full and the rest as one summary at the
 * model, and only the few get the crossover search.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Thresholds, quoted into the --explain text below. */
#define CHECK_CROSSOVER_LIMIT 1048576 /* memory-bound: let search bound, 2^20 */
#define CHECK_CROSSOVER_RERUNS 2000 /* memory-bound: re-analyses per model */
#define CHECK_MEMBOUND_MAX_PEAK_PCT 80 /* memory-bound: ceiling under 80% */
#define CHECK_MEMBOUND_MAX_SINGLE 3 /* memory-bound: individual up to 3 */
#define CHECK_MEMBOUND_NAMED 3 /* memory-bound: summary names the next 3 */

typedef struct Probe Probe;

/* One re-analysis remembered, so that candidates bisecting the same
 * interval share their probes. */
typedef struct Memo {
  int64_t v;
  bool ok;
  double params; /* the model's parameter count at v */
  int64_t gpus;  /* the parallel plan's GPU count at v */
  Probe *probes; /* ncand entries */
} Memo;

/* The model cut to the statements the nodes under study need: its
 * program, the model statement with the cut body, its node count and the
 * nodes' ids in it. */
typedef struct Slice {
  Program prog;
  Stmt model;
  int nnodes;
  int *node;
} Slice;

typedef struct Search {
  const CheckCtx *ctx;
  const Program *prog; /* the model and the lets it uses (see checks_lets) */
  const Slice *slice; /* NULL: every re-run analyses prog */
  const int *cand; /* node ids under study */
  int ncand;
  int reruns; /* re-analyses so far */
  Memo *memo; /* for the let being searched */
  int nmemo, cap_memo;
} Search;

/* ---- one re-analysis ---- */

struct Probe {
  bool compute; /* reached the compute roof */
  double flops, bytes;
};

/* Re-runs sema + cost with `name` = v, on the whole model or on the
 * slice; fills one Probe per candidate.  False when the budget is spent or
 * the program has an error there. */
static bool rerun(Search *s, const char *name, int64_t v, bool whole,
                  Probe *out, double *params, int64_t *gpus) {
  const CheckCtx *ctx = s->ctx;
  if (s->reruns >= CHECK_CROSSOVER_RERUNS) return false;
  s->reruns++;
  Arena *a = arena_new();
  const Slice *sl = whole ? NULL : s->slice;
  const ModelCost *c =
      sl ? checks_rerun_sized(ctx, &sl->prog, a, name, v, sl->nnodes)
         : checks_rerun(ctx, s->prog, a, name, v);
  bool ok = c != NULL;
  if (c) {
    const Model *m = c->model;
    *params = c->params;
    *gpus = m->parallel.nodes * m->parallel.gpus_per_node;
    for (int k = 0; k < s->ncand; k++) {
      int id = sl ? sl->node[k] : s->cand[k];
      const GNode *g = &m->nodes[id], *o = &ctx->model->nodes[s->cand[k]];
      if (g->loc.start != o->loc.start || strcmp(g->name, o->name) != 0) {
        ok = false; /* the graph changed shape: not the same node */
        break;
      }
      out[k] = (Probe){c->nodes[id].bound == BOUND_COMPUTE,
                       c->nodes[id].flops, c->nodes[id].bytes};
    }
  }
  arena_free(a);
  return ok;
}

/* rerun() through the memo of the let being searched: the probes at v,
 * or NULL when that value could not be analysed. */
static const Probe *probe(Search *s, const char *name, int64_t v) {
  for (int i = 0; i < s->nmemo; i++)
    if (s->memo[i].v == v) return s->memo[i].ok ? s->memo[i].probes : NULL;
  if (s->reruns >= CHECK_CROSSOVER_RERUNS) return NULL;
  if (s->nmemo == s->cap_memo) {
    s->cap_memo = s->cap_memo ? 2 * s->cap_memo : 32;
    s->memo = xrealloc(s->memo, (size_t)s->cap_memo * sizeof *s->memo);
  }
  Memo *m = &s->memo[s->nmemo++];
  m->v = v;
  m->probes = xcalloc((size_t)s->ncand + 1, sizeof *m->probes);
  m->params = 0;
  m->gpus = 0;
  /* The let's first re-run judges it by the whole model's counts. */
  m->ok = rerun(s, name, v, s->nmemo == 1, m->probes, &m->params, &m->gpus);
  return m->ok ? m->probes : NULL;
}

/* Whether a value probe() analysed leaves the parameter count and the
 * plan's GPU count as they are. */
static bool memo_same_model(const Search *s, int64_t v) {
  const Model *m = s->ctx->model;
  for (int i = 0; i < s->nmemo; i++)
    if (s->memo[i].v == v)
      return s->memo[i].params == s->ctx->cost->params &&
             s->memo[i].gpus == m->parallel.nodes * m->parallel.gpus_per_node;
  return false;
}

static void forget(Search *s) {
  for (int i = 0; i < s->nmemo; i++) free(s->memo[i].probes);
  s->nmemo = 0;
}

/* Smallest value in (lo, hi] at which candidate k is compute-bound, given
 * that it is at hi. */
static int64_t bisect(Search *s, const CheckLet *l, int k, int64_t lo,
                      int64_t hi) {
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    const Probe *p = probe(s, l->name, mid);
    if (p && p[k].compute)
      hi = mid;
    else if (!p && s->reruns >= CHECK_CROSSOVER_RERUNS)
      return -1;
    else
      lo = mid;
  }
  return hi;
}

/* Whether the search runs for let l: a positive integer below the bound
 * that the model uses. */
static bool searchable(const CheckLet *l) {
  return l->used && l->ok && l->is_int && l->v >= 1 &&
         l->v < CHECK_CROSSOVER_LIMIT;
}

/* For every candidate and let: the crossover value, or -1. */
static void crossovers(Search *s, const CheckLet *lets, int nlets,
                       int64_t *result /* [ncand * nlets] */) {
  int nc = s->ncand;
  for (int i = 0; i < nc * nlets; i++) result[i] = -1;
  Probe *base = xcalloc((size_t)nc, sizeof *base);
  int64_t *lo = xcalloc((size_t)nc, sizeof *lo);
  int64_t *hi = xcalloc((size_t)nc, sizeof *hi);
  bool *dep = xcalloc((size_t)nc, sizeof *dep);
  for (int k = 0; k < nc; k++) {
    const NodeCost *c = &s->ctx->cost->nodes[s->cand[k]];
    base[k] = (Probe){false, c->flops, c->bytes};
  }
  for (int li = 0; li < nlets; li++) {
    const CheckLet *l = &lets[li];
    if (!searchable(l)) continue;
    int64_t v0 = (int64_t)l->v;
    int pending = 0;
    for (int k = 0; k < nc; k++) {
      lo[k] = v0;
      hi[k] = -1;
    }
    /* Doubling, shared by every candidate. */
    bool first = true;
    for (int64_t v = 2 * v0; v <= CHECK_CROSSOVER_LIMIT; v *= 2) {
      const Probe *p = probe(s, l->name, v);
      if (!p) {
        if (first || s->reruns >= CHECK_CROSSOVER_RERUNS) break;
        continue;
      }
      if (first) {
        /* A let that sizes weights (the parameter count moves with it) is
         * architecture, and one that sizes the GPU count is the plan, not
         * workload: no crossover is proposed for either. */
        if (!memo_same_model(s, v)) break;
        pending = 0;
        for (int k = 0; k < nc; k++) {
          dep[k] = p[k].flops != base[k].flops || p[k].bytes != base[k].bytes;
          pending += dep[k];
        }
        first = false;
      }
      for (int k = 0; k < nc; k++) {
        if (!dep[k] || hi[k] >= 0) continue;
        if (p[k].compute) {
          hi[k] = v;
          pending--;
        } else {
          lo[k] = v;
        }
      }
      if (pending == 0) break;
    }
    for (int k = 0; k < nc; k++)
      if (!first && dep[k] && hi[k] >= 0)
        result[k * nlets + li] = bisect(s, l, k, lo[k], hi[k]);
    forget(s);
  }
  free(s->memo);
  s->memo = NULL;
  s->cap_memo = 0;
  free(base);
  free(lo);
  free(hi);
  free(dep);
}

/* ---- the report ---- */

/* "3.35 TFLOP/s" with three significant digits, in a unit chosen for v. */
static char *rate3(char *buf, size_t n, double v) {
  static const struct {
    double f;
    const char *p;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1, ""}};
  int k = 0;
  while (k < 3 && v < units[k].f) k++;
  char num[32];
  snprintf(buf, n, "%s %sFLOP/s", fmt_sig3(num, sizeof num, v / units[k].f),
           units[k].p);
  return buf;
}

/* When node i's kernel is low-occupancy's case: "it also launches only 32
 * blocks on 132 SMs (24.2% utilisation): ...", with the fix that works at
 * the current batch (a larger batch may add no blocks: up to 128 rows are
 * one row of output tiles). */
static void occupancy_note(const CheckCtx *ctx, Diag *d, int i,
                           const CheckShared *sh) {
  const ModelCost *c = ctx->cost;
  int k = c->nodes[i].kernel;
  /* A kernel that does not matter is not low-occupancy's either. */
  int q = k >= 0 && k < c->nkernels ? checks_shared_kernel(sh, k) : -1;
  if (q < 0 || !sh->low_occupancy[q]) return;
  const GNode *g = &ctx->model->nodes[i], *by = &ctx->model->nodes[sh->at[q]];
  int sms = ctx->target->sms;
  double b = sh->blocks[q], util = b / sms;
  char who[192], set[48] = "", ub[32];
  if (cost_kernel(c, k).region >= 0) {
    char kn[160];
    snprintf(who, sizeof who, "its %s",
             checks_kernel_name(ctx, k, kn, sizeof kn));
  } else {
    snprintf(who, sizeof who, "it");
  }
  if (by->args->blocks > 0)
    snprintf(set, sizeof set, " (blocks=%lld)", (long long)by->args->blocks);
  bool attn = g->op->flags & OPF_SPLIT_KEYS;
  diag_note(d, g->loc,
            "%s also launches only %.0f block%s%s on %d SMs (%s utilisation): "
            "%s would give the idle SMs work at this batch",
            who, b, b == 1 ? "" : "s", set, sms,
            fmt_percent(ub, sizeof ub, util,
                        fmt_round(util * 100, 1) < 1 ? 2 : 1),
            attn ? "splitting the keys across blocks (flash-decoding)"
                 : "split-K");
  diag_figure(d, "blocks", b);
  diag_figure(d, "utilisation", util);
}

/* Keeps, walking the model's body from its end, the statements that a
 * node under study or a kept statement after them reads: every statement
 * that is not an op (declarations, blocks, parallel, output) and every op
 * whose result is read by what is kept.  A node's figures depend only on
 * what it reads (a `fused` region is a block, kept whole), so the cut
 * changes no candidate's figures; the caller checks that it does not. */
static int slice_body(const Program *p, const Block *body, const Model *m,
                      const int *cand, int nc, Stmt **items) {
  bool *need = xcalloc((size_t)p->nnames + 1, sizeof *need);
  int n = 0;
  for (int i = body->n - 1; i >= 0; i--) {
    Stmt *st = body->items[i];
    if (!st) continue;
    bool keep = st->kind != ST_ASSIGN && st->kind != ST_UNPACK;
    for (int k = 0; k < nc && !keep; k++) {
      Loc at = m->nodes[cand[k]].loc;
      keep = at.file == st->loc.file && at.start >= st->loc.start &&
             at.start < st->loc.end;
    }
    int id = st->kind == ST_ASSIGN ? st->assign.name.id : -1;
    if (id >= 0 && id < p->nnames && need[id]) keep = true;
    for (int k = 0; st->kind == ST_UNPACK && k < st->unpack.nnames; k++) {
      int u = st->unpack.names[k].id;
      if (u >= 0 && u < p->nnames && need[u]) keep = true;
    }
    if (!keep) continue;
    /* A name (re)bound here is needed above only if read here. */
    if (id >= 0 && id < p->nnames) need[id] = false;
    for (int k = 0; st->kind == ST_UNPACK && k < st->unpack.nnames; k++) {
      int u = st->unpack.names[k].id;
      if (u >= 0 && u < p->nnames) need[u] = false;
    }
    checks_mark_stmt(st, need, p->nnames);
    items[n++] = st;
  }
  free(need);
  for (int i = 0; i < n / 2; i++) { /* back into source order */
    Stmt *t = items[i];
    items[i] = items[n - 1 - i];
    items[n - 1 - i] = t;
  }
  return n;
}

/* Cuts sub's model to what the nodes under study need (slice_body), and
 * analyses the cut once at the lets' own values: true, with the nodes
 * found in it, when it drops something and gives every node the figures
 * of the whole model's analysis.  The caller frees sl's arrays. */
static bool slice_model(const CheckCtx *ctx, const Program *sub,
                        const CheckLet *lets, int nlets, const int *cand,
                        int nc, Slice *sl) {
  int mi = -1, li = 0;
  for (int i = 0; i < sub->top.n; i++)
    if (sub->top.items[i] && sub->top.items[i]->kind == ST_MODEL) mi = i;
  while (li < nlets && !searchable(&lets[li])) li++;
  if (mi < 0 || li == nlets) return false;
  const Stmt *ms = sub->top.items[mi];
  Block body = ms->def.body;
  body.items = xmalloc(((size_t)body.n + 1) * sizeof *body.items);
  body.n = slice_body(sub, &ms->def.body, ctx->model, cand, nc, body.items);
  sl->model = (Stmt){.kind = ST_MODEL, .loc = ms->loc};
  sl->model.def.kind = ms->def.kind;
  sl->model.def.name = ms->def.name;
  sl->model.def.body = body;
  sl->prog = *sub;
  sl->prog.top.items = xmalloc(((size_t)sub->top.n + 1) * sizeof(Stmt *));
  memcpy(sl->prog.top.items, sub->top.items, (size_t)sub->top.n * sizeof(Stmt *));
  sl->prog.top.items[mi] = &sl->model;
  sl->node = xmalloc(((size_t)nc + 1) * sizeof *sl->node);
  bool ok = body.n < ms->def.body.n;
  Arena *a = ok ? arena_new() : NULL;
  const ModelCost *c =
      ok ? checks_rerun_sized(ctx, &sl->prog, a, lets[li].name,
                              (int64_t)lets[li].v, -1)
         : NULL;
  for (int k = 0; c && k < nc; k++) {
    const GNode *o = &ctx->model->nodes[cand[k]];
    const NodeCost *oc = &ctx->cost->nodes[cand[k]];
    int j = 0;
    while (j < c->model->nnodes && (c->model->nodes[j].loc.start != o->loc.start ||
                                    strcmp(c->model->nodes[j].name, o->name) != 0))
      j++;
    if (j == c->model->nnodes || c->nodes[j].flops != oc->flops ||
        c->nodes[j].bytes != oc->bytes || c->nodes[j].bound != oc->bound)
      c = NULL;
    else
      sl->node[k] = j;
  }
  if (c) sl->nnodes = c->model->nnodes;
  if (a) arena_free(a);
  return c != NULL;
}

static void slice_free(Slice *sl) {
  free(sl->model.def.body.items);
  free(sl->prog.top.items);
  free(sl->node);
}

/* The crossover notes, last on each diagnostic: searched only for the
 * findings the policy keeps (-Wno-memory-bound, -w and suppressions drop
 * the others), over the lets model m uses. */
static void crossover_notes(const CheckCtx *ctx, const int *cand, Diag **d,
                            int nc) {
  const Model *m = ctx->model;
  int nlets = 0, nkept = 0;
  int *kept = xmalloc((size_t)nc * sizeof *kept), *node = xmalloc((size_t)nc * sizeof *node);
  for (int k = 0; k < nc; k++)
    if (!ctx->policy || !diag_dropped(d[k], ctx->sources, ctx->policy)) {
      kept[nkept] = k;
      node[nkept++] = cand[k];
    }
  int mi = ctx->unit ? (int)(m - ctx->unit->models) : -1;
  Program sub = {0};
  CheckLet *lets = nkept > 0 && mi >= 0 && checks_program(ctx)
                      ? checks_lets(ctx, mi, &nlets, &sub)
                      : NULL;
  int64_t *cross = xmalloc(((size_t)nkept * (size_t)nlets + 1) * sizeof *cross);
  if (nlets > 0) {
    Slice sl = {0};
    bool cut = slice_model(ctx, &sub, lets, nlets, node, nkept, &sl);
    Search s = {ctx, &sub, cut ? &sl : NULL, node, nkept, 0, NULL, 0, 0};
    crossovers(&s, lets, nlets, cross);
    slice_free(&sl);
  }
  free(sub.top.items);
  /* Figure keys are unique per diagnostic (JSON objects). */
  static const char *const keys[] = {"crossover", "crossover_2",
                                     "crossover_3", "crossover_4"};
  for (int q = 0; q < nkept && nlets > 0; q++) {
    int ncross = 0;
    for (int li = 0; li < nlets; li++) {
      int64_t x = cross[q * nlets + li];
      if (x < 0) continue;
      diag_note(d[kept[q]], lets[li].loc,
                "'%s' reaches the compute roof at %s >= %lld",
                m->nodes[node[q]].name, lets[li].name, (long long)x);
      if (ncross < 4) diag_figure(d[kept[q]], keys[ncross++], (double)x);
    }
  }
  free(cross);
  free(lets);
  free(kept);
  free(node);
}

/* Sorts order[0..n) (indices into cand) by the node's time per step,
 * slowest first; ties in source order.  Insertion sort: n is the number of
 * memory-bound contractions that matter, a few hundred at most. */
static void sort_by_time(const CheckCtx *ctx, const int *cand, int *order,
                         int n) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  for (int a = 1; a < n; a++) {
    int x = order[a], b = a;
    double tx = c->nodes[cand[x]].time_s * m->nodes[cand[x]].count;
    while (b > 0) {
      int y = order[b - 1];
      double ty = c->nodes[cand[y]].time_s * m->nodes[cand[y]].count;
      if (ty > tx || (ty == tx && y < x)) break;
      order[b] = y;
      b--;
    }
    order[b] = x;
  }
}

/* The summary of the findings past the slowest few: their count and share
 * of the step, at the model, with a note naming the next ones. */
static void summary(const CheckCtx *ctx, const int *cand, const int *rest,
                    int n, double time) {
  const Model *m = ctx->model;
  double step = ctx->cost->time_s, share = step > 0 ? time / step : 0;
  char pb[32];
  Diag *d = checks_report(
      ctx, "memory-bound", m->loc,
      "%d more op%s in model '%s' %s memory-bound: %s of the step time",
      n, n == 1 ? "" : "s", m->name, n == 1 ? "is" : "are",
      fmt_percent(pb, sizeof pb, share, 1));
  diag_figure(d, "ops", n);
  diag_figure(d, "time_s", time);
  diag_figure(d, "step_time_s", step);
  char list[512] = "";
  size_t len = 0;
  int named = n < CHECK_MEMBOUND_NAMED ? n : CHECK_MEMBOUND_NAMED;
  for (int q = 0; q < named && len < sizeof list; q++) {
    const GNode *g = &m->nodes[cand[rest[q]]];
    const NodeCost *nc_ = &ctx->cost->nodes[cand[rest[q]]];
    char sb[32];
    double s = step > 0 ? nc_->time_s * g->count / step : 0;
    int w = snprintf(list + len, sizeof list - len, "%s%s '%s' (%s)",
                     q == 0 ? "" : q == named - 1 ? " and " : ", ",
                     g->op->name, g->name, fmt_percent(sb, sizeof sb, s, 1));
    if (w > 0) len += (size_t)w;
  }
  diag_note(d, m->nodes[cand[rest[0]]].loc, "the next %s %s%s",
            named == 1 ? "is" : "are", list, n > named ? ", ..." : "");
  diag_note(d, d->loc, /* at its error (R-DIAG-001) */
            "decode is memory-bound by nature; `rooflint --explain "
            "memory-bound` says when it is worth fixing");
}

/* R-CHK-034: the candidates that would be shown (not dropped by the
 * policy) into order[]; past CHECK_MEMBOUND_MAX_SINGLE of them, the slowest
 * are reported one by one and the rest marked summed[], their count
 * returned and their time added into *sum_time. */
static int pick_summed(const CheckCtx *ctx, const int *cand, int nc,
                       int *order, bool *summed, double *sum_time) {
  const Model *m = ctx->model;
  int nshown = 0;
  for (int k = 0; k < nc; k++) {
    Diag probe_d = {.sev = SEV_WARNING, .check = "memory-bound",
                    .loc = m->nodes[cand[k]].loc};
    if (!ctx->policy || !diag_dropped(&probe_d, ctx->sources, ctx->policy))
      order[nshown++] = k;
  }
  int nsum = 0;
  /* A summary stands for two ops or more: four findings are all shown. */
  if (nshown > CHECK_MEMBOUND_MAX_SINGLE + 1) {
    sort_by_time(ctx, cand, order, nshown);
    for (int q = CHECK_MEMBOUND_MAX_SINGLE; q < nshown; q++) {
      int i = cand[order[q]];
      summed[order[q]] = true;
      *sum_time += ctx->cost->nodes[i].time_s * m->nodes[i].count;
      nsum++;
    }
  }
  return nsum;
}

/* Node i's own warning: where it sits under the roof, and what doubling
 * either roof would give. */
static Diag *report_node(const CheckCtx *ctx, const CheckShared *sh, int i) {
  const ModelCost *c = ctx->cost;
  const Target *t = ctx->target;
  const GNode *g = &ctx->model->nodes[i];
  const NodeCost *nc_ = &c->nodes[i];
  RoofPoint roof = cost_node_roof(c, nc_);
  double frac = nc_->peak > 0 ? roof.attainable / nc_->peak : 0;
  char ib[32], rb[32], cb[48], pb[32];
  Diag *d = checks_report(
      ctx, "memory-bound", g->loc,
      "%s '%s' is memory-bound on %s: %s FLOP/B against a ridge of %s; "
      "ceiling %s (%s of peak)",
      g->op->name, g->name, checks_target_name(t),
      fmt_intensity(ib, sizeof ib, roof.intensity),
      fmt_fixed(rb, sizeof rb, roof.ridge, 1),
      fmt_flops_rate(cb, sizeof cb, roof.attainable),
      fmt_percent(pb, sizeof pb, frac, frac < 0.001 ? 2 : 1));
  diag_figure(d, "intensity", roof.intensity);
  diag_figure(d, "ridge", roof.ridge);
  diag_figure(d, "attainable", roof.attainable);
  diag_figure(d, "peak", nc_->peak);
  double bw_i = t->memory_bw * roof.intensity;
  double twice_peak = fmin(2 * nc_->peak, bw_i);
  double twice_bw = fmin(nc_->peak, 2 * bw_i);
  char a1[48], a2[48];
  diag_note(d, g->loc,
            "doubling peak FLOP/s leaves the ceiling at %s; doubling "
            "bandwidth raises it to %s",
            rate3(a1, sizeof a1, twice_peak), rate3(a2, sizeof a2, twice_bw));
  diag_figure(d, "attainable_2x_peak", twice_peak);
  diag_figure(d, "attainable_2x_bandwidth", twice_bw);
  occupancy_note(ctx, d, i, sh);
  return d;
}

static void run(const CheckCtx *ctx) {
  CheckShared own, *sh = checks_shared_begin(ctx, &own);
  /* The nodes this check reports are a fact of the shared analysis. */
  const int *cand = sh->membound;
  int nc = sh->nmembound;
  if (nc == 0) {
    checks_shared_end(sh, &own);
    return;
  }
  int *order = xmalloc((size_t)nc * sizeof *order);
  bool *summed = xcalloc((size_t)nc, sizeof *summed);
  double sum_time = 0;
  int nsum = pick_summed(ctx, cand, nc, order, summed, &sum_time);
  Diag **diags = xmalloc((size_t)nc * sizeof *diags);
  int *dcand = xmalloc((size_t)nc * sizeof *dcand);
  int nd = 0;
  for (int k = 0; k < nc; k++) {
    if (summed[k]) continue;
    dcand[nd] = cand[k];
    diags[nd++] = report_node(ctx, sh, cand[k]);
  }
  crossover_notes(ctx, dcand, diags, nd);
  if (nsum > 0) summary(ctx, cand, order + CHECK_MEMBOUND_MAX_SINGLE, nsum,
                        sum_time);
  free(diags);
  free(dcand);
  free(order);
  free(summed);
  checks_shared_end(sh, &own);
}

/* In the shared pass: the nodes this check reports (CheckShared.membound,
 * which low-occupancy reads), contractions under the ridge that matter and
 * whose ceiling is under CHECK_MEMBOUND_MAX_PEAK_PCT of peak. */
static void see_node(const CheckCtx *ctx, CheckShared *sh, int node,
                     bool matters) {
  const GNode *g = &ctx->model->nodes[node];
  const NodeCost *c = &ctx->cost->nodes[node];
  /* Near the ridge the fix buys little: at 80% of peak, at most 1.25x. */
  if (matters && g->op && g->op->cls == OC_CONTRACTION &&
      c->bound == BOUND_MEMORY &&
      cost_node_roof(ctx->cost, c).attainable <
          c->peak * CHECK_MEMBOUND_MAX_PEAK_PCT / 100.0)
    checks_push_int(&sh->membound, &sh->nmembound, &sh->cap_membound, node);
}

static const CheckHooks hooks = {see_node, NULL, NULL};

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "A matmul, conv2d or attention does I = FLOPs / bytes operations per\n"
    "byte it moves.  Below the ridge (peak FLOP/s / memory bandwidth: 295.5\n"
    "FLOP/B for bf16 on an H100) its ceiling is bandwidth x I, not the peak:\n"
    "a faster chip does not help; more bandwidth, or more work per byte,\n"
    "does.  Batch-1 decode is the classic case: every weight is read to do\n"
    "two FLOPs.\n"
    "\n"
    "The message gives the intensity, the ridge, the ceiling and its share\n"
    "of peak.  A note shows what doubling the peak and doubling the\n"
    "bandwidth would give.  Another names, for each `let` the op's shape\n"
    "depends on, the smallest value at which the op would reach the compute\n"
    "roof.  It is found by analysing the model again with the let\n"
    "overridden, only for a warning that is shown and only for the lets the\n"
    "model uses: doubling, then bisection (each at most 20 steps), up to\n"
    CHECKS_STR(CHECK_CROSSOVER_LIMIT) " (2^20), with at most "
    CHECKS_STR(CHECK_CROSSOVER_RERUNS) " re-analyses per model.  No note when\n"
    "no value crosses.\n"
    "\n"
    "When the op's kernel also fills under " CHECKS_STR(CHECK_OCC_MAX_UTIL_PCT)
    "% of the SMs (batch-1 decode:\n"
    "32 output tiles on 132 SMs), a note says so instead of a separate\n"
    "low-occupancy warning: the seed calls it two failures with one fix, and\n"
    "a few SMs cannot draw the whole bandwidth either.  The note names the\n"
    "fix at the current batch: split-K, or for attention splitting the keys\n"
    "(flash-decoding).\n"
    "\n"
    "Fix: more work per weight (a larger batch, grouped-query attention),\n"
    "or accept it: decode is memory-bound by nature.\n"
    "\n"
    "So that a decode model does not drown its other findings, a model's\n"
    "findings past " CHECKS_STR(CHECK_MEMBOUND_MAX_SINGLE) " are summarised, as clang and ruff do: the "
    CHECKS_STR(CHECK_MEMBOUND_MAX_SINGLE) " slowest\n"
    "(by time per step) are reported in full, where the fix pays most, and\n"
    "the others become one warning at the model with their count and share\n"
    "of the step and a note naming the next " CHECKS_STR(CHECK_MEMBOUND_NAMED) "; they share one fix (the\n"
    "batch).  A summary stands for two ops or more, so 4 findings are all\n"
    "shown; suppressed findings are not counted.\n"
    "\n"
    "Not reported: ops that take less than the launch overhead or less than\n"
    CHECKS_STR(CHECK_MIN_STEP_PCT) "% of the step time, and ops whose ceiling is still at least "
    CHECKS_STR(CHECK_MEMBOUND_MAX_PEAK_PCT) "%\n"
    "of peak (just under the ridge: fixing them buys at most 1.25x).\n"
    "\n"
    "Example:\n"
    "    let B = 1\n"
    "    input x : [B, 70000]\n"
    "    weight w : [70000, 100000]\n"
    "    y = matmul(x, w)      # 1.00 FLOP/B; compute roof at B >= 298\n";
/* clang-format on */

const CheckDesc check_memory_bound = {
    "memory-bound", SEV_WARNING, true,
    "a matmul, conv2d or attention lies below the ridge of the target",
    explain, run, &hooks, false};
