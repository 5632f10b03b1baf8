/* SPDX-License-Identifier: MIT */
/*
 * diff.c: `rooflint diff OLD NEW`, the review of a change to a model: which
 * nodes came and went, which changed dtype, precision, cost or bound, how
 * the totals moved, and which diagnostics appear or disappear.  Each side
 * goes through analyze_file (language errors to the caller's sink, so they
 * render as usual); the checks run again per side into scratch sinks, with
 * suppressions applied, because a diff reports findings, not warnings.
 * Models pair up by name (the only model of each side with each other,
 * whatever their names), nodes by sequence: the longest common
 * subsequence of (name, op), so an inserted `f = dropout(f)` is one
 * added node, not a rebinding chain shifted by one.  A fused region is an entry of its own ("fused
 * NAME") holding its kernel's figures; its members show which region they
 * joined, so fusing a chain reads as "these nodes left HBM, this kernel
 * appeared".  Rows are compared by their printed cells: a change smaller
 * than the rounding is no change.  --fail-on-regression compares the
 * unrounded step-time bounds.
 */
#include "rooflint.h"
#include "out.h"
#include "html.h"
#include "json_writer.h"
#include "import/import.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NB 64

enum { C_OP, C_DTYPE, C_PREC, C_FLOPS, C_BYTES, C_PEAK, C_TIME, C_BOUND, NCELLS };
/* A node table's heads: the mark, the node, the NCELLS cells, where. */
static const char *const row_heads[NCELLS + 3] = {
    "", "node", "op", "dtype", "precision", "FLOPs/step", "bytes/step", "peak",
    "time/step", "bound", "at"};

/* One row of a model: a graph node or a fused region. */
typedef struct Entry {
  const char *name; /* node name, or "fused NAME" */
  int occ;          /* the occ-th entry of that name (0-based) */
  int node;         /* node id; -1 for a region */
  int kernel;       /* kernel with its own figures, -1: none (decl, view,
                       fused member) */
  const char *region; /* the region a member belongs to, else NULL */
  char cells[NCELLS][NB];
  Loc loc;
  int match; /* index of the entry on the other side, -1 if none */
} Entry;

/* Where a node's call or declared name (or a region's header) starts. */
typedef struct NodeAt {
  int file;
  uint32_t start;
  int order; /* models in order, a model's nodes before its regions */
  const char *name;
} NodeAt;

typedef struct Side {
  const char *path;
  int file;
  Analysis *an;
  DiagSink checks; /* findings of the checks, policy applied */
  NodeAt *starts;  /* sorted by (file, start, order), for diag_node */
  int nstarts;
} Side;

/* ------------------------------------------------------------- entries */

static void kernel_cells(Entry *e, const Kernel *k) {
  fmt_flop(e->cells[C_FLOPS], NB, k->flops * k->count);
  fmt_bytes(e->cells[C_BYTES], NB, k->bytes * k->count);
  if (k->bound == BOUND_MEMORY || k->bound == BOUND_COMPUTE)
    fmt_flops_rate(e->cells[C_PEAK], NB, k->peak);
  else
    strcpy(e->cells[C_PEAK], "-");
  fmt_time(e->cells[C_TIME], NB, k->time_s * k->count);
  snprintf(e->cells[C_BOUND], NB, "%s", bound_str(k->bound));
}

static void node_entry(Entry *e, const Model *m, const ModelCost *c, int i) {
  const GNode *g = &m->nodes[i];
  e->name = g->name;
  e->node = i;
  e->kernel = -1;
  e->loc = g->loc;
  snprintf(e->cells[C_OP], NB, "%s", g->op ? g->op->name : role_str(g->role));
  snprintf(e->cells[C_DTYPE], NB, "%s",
           g->type->dtype == DT_NONE ? "-" : dtype_str(g->type->dtype));
  snprintf(e->cells[C_PREC], NB, "%s",
           g->op && g->precision != DT_NONE ? dtype_str(g->precision) : "-");
  for (int k = C_FLOPS; k < NCELLS; k++) strcpy(e->cells[k], "-");
  if (!g->op || g->op->cls == OC_VIEW) return;
  const NodeCost *nc = &c->nodes[i];
  Kernel kn = nc->kernel >= 0 ? cost_kernel(c, nc->kernel) : (Kernel){.region = -1};
  if (nc->kernel >= 0 && kn.region < 0) {
    e->kernel = nc->kernel;
    kernel_cells(e, &kn);
    return;
  }
  /* A fused member: its own FLOPs; HBM traffic and time are the region's. */
  fmt_flop(e->cells[C_FLOPS], NB, nc->flops * g->count);
  if (g->region >= 0) {
    e->region = m->regions[g->region].name;
    snprintf(e->cells[C_BOUND], NB, "in %s", e->region);
  }
}

static Entry *model_entries(Arena *a, const Model *m, const ModelCost *c,
                            int *n) {
  Entry *es = arena_alloc(a, (size_t)(m->nnodes + m->nregions + 1) * sizeof *es);
  int k = 0;
  for (int i = 0; i < m->nnodes; i++) node_entry(&es[k++], m, c, i);
  for (int r = 0; r < m->nregions; r++) {
    Entry *e = &es[k++];
    e->name = arena_printf(a, "fused %s", m->regions[r].name);
    e->node = -1;
    e->kernel = -1;
    e->loc = m->regions[r].loc;
    strcpy(e->cells[C_OP], "fused");
    for (int j = C_DTYPE; j < NCELLS; j++) strcpy(e->cells[j], "-");
    if (c->region_kernel[r] >= 0) {
      Kernel kn = cost_kernel(c, c->region_kernel[r]);
      e->kernel = c->region_kernel[r];
      kernel_cells(e, &kn);
    }
  }
  /* occurrences: the k-th entry of each name */
  StrMap seen;
  strmap_init(&seen);
  for (int i = 0; i < k; i++) {
    intptr_t prev = (intptr_t)strmap_get(&seen, es[i].name);
    es[i].occ = (int)prev;
    strmap_put(&seen, es[i].name, (void *)(prev + 1));
    es[i].match = -1;
  }
  strmap_free(&seen);
  *n = k;
  return es;
}

/* The key an alignment compares: name and op.  Not the fused region: a
 * chain fused in NEW is its nodes changed ("-> in act") and the region
 * added. */
static bool same_key(const Entry *a, const Entry *b) {
  return strcmp(a->name, b->name) == 0 && strcmp(a->cells[C_OP], b->cells[C_OP]) == 0;
}

static void pair(Entry *olds, int i, Entry *news, int j) {
  olds[i].match = j;
  news[j].match = i;
}

/* Pairs the still unmatched entries of olds[0..nold) and news[0..nnew) by
 * (name, occurrence): the fallback for a middle too different to align. */
static void match_by_name(Arena *a, Entry *olds, int nold, Entry *news,
                          int nnew) {
  StrMap map;
  strmap_init(&map);
  for (int i = 0; i < nnew; i++)
    if (news[i].match < 0)
      strmap_put(&map, arena_printf(a, "%s#%d", news[i].name, news[i].occ),
                 (void *)(intptr_t)(i + 1));
  for (int i = 0; i < nold; i++) {
    if (olds[i].match >= 0) continue;
    intptr_t j = (intptr_t)strmap_get(
        &map, arena_printf(a, "%s#%d", olds[i].name, olds[i].occ));
    if (j > 0 && news[j - 1].match < 0) pair(olds, i, news, (int)j - 1);
  }
  strmap_free(&map);
}

/* Myers' O(ND) shortest edit script on the middle o[0..n), w[0..m), with
 * the frontier of every step kept for the way back (D^2 ints in all).  Past
 * MAX_EDITS edits, or MAX_STEPS comparisons (a million-op model with edits
 * all over it), it gives up (false) and leaves the middle unmatched. */
enum { MAX_EDITS = 2048 };
#define MAX_STEPS 50000000.0
static bool myers(Entry *o, int n, Entry *w, int m) {
  int dmax = n + m < MAX_EDITS ? n + m : MAX_EDITS;
  int **trace = xcalloc((size_t)dmax + 1, sizeof *trace);
  int *v = xcalloc((size_t)(2 * dmax + 3), sizeof *v); /* v[k + dmax + 1] */
  int off = dmax + 1, d = 0;
  bool done = false;
  double steps = 0;
  for (; d <= dmax && !done && steps < MAX_STEPS; d++) {
    /* the frontier before step d, k in [-d-1, d+1] */
    trace[d] = xmalloc((size_t)(2 * d + 3) * sizeof **trace);
    memcpy(trace[d], v + off - d - 1, (size_t)(2 * d + 3) * sizeof *v);
    for (int k = -d; k <= d && !done; k += 2) {
      int x = k == -d || (k != d && v[off + k - 1] < v[off + k + 1])
                  ? v[off + k + 1]
                  : v[off + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && same_key(&o[x], &w[y])) x++, y++, steps++;
      v[off + k] = x;
      steps++;
      done = x >= n && y >= m;
    }
  }
  if (done)
    for (int x = n, y = m, e = d - 1; e >= 0; e--) {
      const int *t = trace[e] + e + 1; /* t[k] for k in [-e-1, e+1] */
      int k = x - y;
      int pk = k == -e || (k != e && t[k - 1] < t[k + 1]) ? k + 1 : k - 1;
      int px = t[pk], py = px - pk;
      while (x > px && y > py) pair(o, --x, w, --y);
      x = px;
      y = py;
    }
  for (int e = 0; e < d; e++) free(trace[e]);
  free(trace);
  free(v);
  return done;
}

/* R-DIFF-001: entries pair by sequence: the longest common subsequence of
 * (name, op) after trimming the common prefix and suffix, so one
 * inserted statement is one added node however names are rebound.  A
 * middle more than MAX_EDITS edits apart pairs by (name, occurrence). */
static void match_entries(Arena *a, Entry *olds, int nold, Entry *news,
                          int nnew) {
  int lo = 0, ho = nold, hn = nnew;
  while (lo < ho && lo < hn && same_key(&olds[lo], &news[lo])) {
    pair(olds, lo, news, lo);
    lo++;
  }
  while (ho > lo && hn > lo && same_key(&olds[ho - 1], &news[hn - 1]))
    pair(olds, --ho, news, --hn);
  if (lo == ho || lo == hn) return;
  Entry *o = olds + lo, *w = news + lo;
  int n = ho - lo, m = hn - lo;
  if (myers(o, n, w, m)) {
    for (int i = 0; i < n; i++) /* middle-relative -> absolute */
      if (o[i].match >= 0) o[i].match += lo;
    for (int j = 0; j < m; j++)
      if (w[j].match >= 0) w[j].match += lo;
    return;
  }
  match_by_name(a, olds, nold, news, nnew);
}

static bool entry_changed(const Entry *o, const Entry *n) {
  for (int k = 0; k < NCELLS; k++)
    if (strcmp(o->cells[k], n->cells[k]) != 0) return true;
  return false;
}

/* ------------------------------------------------------------- totals */

enum { T_FLOPS, T_BYTES, T_TIME, T_MEMSHARE, T_FOOTPRINT, T_PARAMS, NTOTALS };
static const char *const total_names[NTOTALS] = {
    "FLOPs", "bytes", "step time", "memory-bound", "footprint", "parameters"};
static const char *const total_keys[NTOTALS] = {
    "flops", "bytes", "time_s", "memory_bound_time_share", "footprint_bytes",
    "parameters"};

static double total_of(const ModelCost *c, int k) {
  switch (k) {
  case T_FLOPS: return c->flops;
  case T_BYTES: return c->bytes;
  case T_TIME: return cost_step_time(c);
  case T_MEMSHARE: return c->time_s > 0 ? c->memory_bound_time / c->time_s : 0;
  case T_FOOTPRINT: return c->footprint.total;
  default: return c->params;
  }
}

static char *total_text(char *buf, size_t n, int k, double v) {
  char tmp[NB];
  switch (k) {
  case T_FLOPS: return fmt_flop(buf, n, v);
  case T_BYTES:
  case T_FOOTPRINT: return fmt_bytes(buf, n, v);
  case T_TIME: snprintf(buf, n, ">= %s", fmt_time(tmp, sizeof tmp, v)); return buf;
  case T_MEMSHARE: return fmt_percent(buf, n, v, 1);
  default: return fmt_count(buf, n, v);
  }
}

/* R-DIFF-003: relative change, "+12.3%"; a share changes in points. */
static char *change_text(char *buf, size_t n, int k, double o, double v) {
  if (k == T_MEMSHARE) {
    double pts = fmt_round((v - o) * 100, 1);
    snprintf(buf, n, "%+.1f pts", pts == 0 ? 0.0 : pts);
  } else if (o == 0) {
    snprintf(buf, n, "%s", v == 0 ? "0.0%" : "new");
  } else {
    double pct = fmt_round((v - o) / o * 100, 1);
    snprintf(buf, n, "%+.1f%%", pct == 0 ? 0.0 : pct);
  }
  return buf;
}

/* ------------------------------------------------------------ diagnostics */

static int node_at_cmp(const void *pa, const void *pb) {
  const NodeAt *a = pa, *b = pb;
  if (a->file != b->file) return (a->file > b->file) - (a->file < b->file);
  if (a->start != b->start) return (a->start > b->start) - (a->start < b->start);
  return (a->order > b->order) - (a->order < b->order);
}

/* The side's node and region starts, sorted once, so that naming the node
 * of each diagnostic is a binary search, not a scan of every node. */
static void index_starts(Arena *a, Side *sd) {
  const Unit *u = sd->an->unit;
  int n = 0;
  for (int mi = 0; u && mi < u->nmodels; mi++)
    n += u->models[mi].nnodes + u->models[mi].nregions;
  sd->starts = arena_alloc(a, (size_t)(n + 1) * sizeof *sd->starts);
  n = 0;
  for (int mi = 0; u && mi < u->nmodels; mi++) {
    const Model *m = &u->models[mi];
    for (int i = 0; i < m->nnodes; i++, n++)
      sd->starts[n] = (NodeAt){m->nodes[i].loc.file, m->nodes[i].loc.start, n,
                               m->nodes[i].name};
    for (int r = 0; r < m->nregions; r++, n++)
      sd->starts[n] = (NodeAt){m->regions[r].loc.file, m->regions[r].loc.start,
                               n, m->regions[r].name};
  }
  qsort(sd->starts, (size_t)n, sizeof *sd->starts, node_at_cmp);
  sd->nstarts = n;
}

/* The name of the node a diagnostic points at: the node whose call (or
 * declared name) starts there, else the statement holding it. */
static const char *diag_node(const Side *sd, Loc loc) {
  const Unit *u = sd->an->unit;
  if (!u || loc.file < 0) return "";
  int lo = 0, hi = sd->nstarts; /* the first at or after (file, start) */
  NodeAt key = {loc.file, loc.start, -1, NULL};
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (node_at_cmp(&sd->starts[mid], &key) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo < sd->nstarts && sd->starts[lo].file == loc.file &&
      sd->starts[lo].start == loc.start)
    return sd->starts[lo].name;
  const char *inner = "";
  for (int mi = 0; mi < u->nmodels; mi++) {
    const Model *m = &u->models[mi];
    for (int i = 0; i < m->nnodes; i++) {
      const GNode *g = &m->nodes[i];
      if (g->loc.file == loc.file && g->stmt_loc.start <= loc.start &&
          loc.start < g->stmt_loc.end)
        inner = g->name;
    }
  }
  return inner;
}

static const char *diag_key(Arena *a, const Diag *d, const Side *sd) {
  return arena_printf(a, "%s\x1f%s\x1f%s", d->check ? d->check : "error",
                      diag_node(sd, d->loc), d->msg);
}

/* Pairs two lists of keys as multisets: the k-th of a key in `a` (in
 * list order) with the k-th of it in `b`.  Both are sorted by (key,
 * order), so a diff of many models or diagnostics is n log n, where a
 * search per element was quadratic.  match[i] is a's element i's partner
 * in b, -1 for none. */
typedef struct Keyed {
  const char *key;
  int at; /* the element's place in its list */
} Keyed;

static int keyed_cmp(const void *pa, const void *pb) {
  const Keyed *a = pa, *b = pb;
  int c = strcmp(a->key, b->key);
  return c ? c : (a->at > b->at) - (a->at < b->at);
}

static void pair_keys(Keyed *a, int na, Keyed *b, int nb, int *match) {
  qsort(a, (size_t)na, sizeof *a, keyed_cmp);
  qsort(b, (size_t)nb, sizeof *b, keyed_cmp);
  for (int i = 0, j = 0; i < na; i++) {
    while (j < nb && strcmp(b[j].key, a[i].key) < 0) j++;
    bool same = j < nb && strcmp(b[j].key, a[i].key) == 0;
    match[a[i].at] = same ? b[j++].at : -1;
  }
}

/* R-DIFF-006: marks the diagnostics of `a` with no equal (as a multiset,
 * by check, node and message) in `b`. */
static bool *unmatched(Arena *ar, const Side *a, const Side *b) {
  int na = a->checks.n, nb = b->checks.n;
  bool *out = arena_alloc(ar, (size_t)(na + 1) * sizeof *out);
  Keyed *ka = arena_alloc(ar, (size_t)(na + 1) * sizeof *ka);
  Keyed *kb = arena_alloc(ar, (size_t)(nb + 1) * sizeof *kb);
  int *match = arena_alloc(ar, (size_t)(na + 1) * sizeof *match);
  for (int i = 0; i < na; i++)
    ka[i] = (Keyed){diag_key(ar, a->checks.items[i], a), i};
  for (int j = 0; j < nb; j++)
    kb[j] = (Keyed){diag_key(ar, b->checks.items[j], b), j};
  pair_keys(ka, na, kb, nb, match);
  for (int i = 0; i < na; i++) out[i] = match[i] < 0;
  return out;
}

static const char *diag_line(Arena *a, const SourceSet *ss, const Diag *d) {
  const SourceFile *f = d->loc.file >= 0 ? src_file(ss, d->loc.file) : NULL;
  const char *where = "";
  if (f) {
    char buf[WHERE_MAX];
    where = arena_printf(a, "%s: ", src_where(f, d->loc, d->origin, buf, sizeof buf));
  }
  return arena_printf(a, "%s%s: %s%s%s%s", where, severity_str(d->sev), d->msg,
                      d->check ? " [-W" : "", d->check ? d->check : "",
                      d->check ? "]" : "");
}

/* ------------------------------------------------------------- the run */

typedef struct ModelPair {
  const Model *om, *nm;       /* either may be NULL */
  const ModelCost *oc, *nc;
  Entry *olds, *news;
  int nold, nnew;
  int changed, added, removed;
} ModelPair;

static const ModelCost *first_cost(const Analysis *an, int mi) {
  return an->costs[mi * an->ntargets];
}

/* R-DIFF-001: when each side holds one model, those two pair whatever
 * their names (an importer names a model after its file, torch every ONNX
 * graph `torch_jit`); otherwise models pair by name, the k-th of a name
 * with the k-th. */
static ModelPair *pair_models(Arena *a, const Side *o, const Side *n,
                              int *npairs) {
  const Unit *ou = o->an->unit, *nu = n->an->unit;
  ModelPair *ps = arena_alloc(a, (size_t)(ou->nmodels + nu->nmodels + 1) * sizeof *ps);
  bool *taken = arena_alloc(a, (size_t)(nu->nmodels + 1) * sizeof *taken);
  bool only = ou->nmodels == 1 && nu->nmodels == 1;
  Keyed *ko = arena_alloc(a, (size_t)(ou->nmodels + 1) * sizeof *ko);
  Keyed *kn = arena_alloc(a, (size_t)(nu->nmodels + 1) * sizeof *kn);
  int *match = arena_alloc(a, (size_t)(ou->nmodels + 1) * sizeof *match);
  for (int i = 0; i < ou->nmodels; i++)
    ko[i] = (Keyed){only ? "" : ou->models[i].name, i};
  for (int j = 0; j < nu->nmodels; j++)
    kn[j] = (Keyed){only ? "" : nu->models[j].name, j};
  pair_keys(ko, ou->nmodels, kn, nu->nmodels, match);
  int k = 0;
  for (int i = 0; i < ou->nmodels; i++) {
    ModelPair *p = &ps[k++];
    p->om = &ou->models[i];
    p->oc = first_cost(o->an, i);
    int j = match[i];
    if (j < 0) continue;
    taken[j] = true;
    p->nm = &nu->models[j];
    p->nc = first_cost(n->an, j);
  }
  for (int j = 0; j < nu->nmodels; j++)
    if (!taken[j]) {
      ps[k].nm = &nu->models[j];
      ps[k++].nc = first_cost(n->an, j);
    }
  for (int i = 0; i < k; i++) {
    ModelPair *p = &ps[i];
    if (p->om) p->olds = model_entries(a, p->om, p->oc, &p->nold);
    if (p->nm) p->news = model_entries(a, p->nm, p->nc, &p->nnew);
    if (!p->om || !p->nm) continue;
    match_entries(a, p->olds, p->nold, p->news, p->nnew);
    for (int e = 0; e < p->nold; e++) {
      if (p->olds[e].match < 0) p->removed++;
      else if (entry_changed(&p->olds[e], &p->news[p->olds[e].match])) p->changed++;
    }
    for (int e = 0; e < p->nnew; e++) p->added += p->news[e].match < 0;
  }
  *npairs = k;
  return ps;
}

static const char *loc_line(Arena *a, const SourceSet *ss, Loc loc) {
  char at[32];
  return arena_strdup(a, fmt_at(at, sizeof at, ss, loc));
}

/* ---------------------------------------------------------- text output */

/* One row of a model's node table: its cells as the text prints them
 * (mark, name, the NCELLS cells, where) and its entries on each side. */
typedef struct DiffRow {
  const char *cells[NCELLS + 3];
  const Entry *o, *n; /* NULL: not on that side */
} DiffRow;

/* R-DIFF-002: "~" changed (cells "old -> new"), "+" added, in NEW's
 * order, then "-" removed, in OLD's.  Returns the number of rows. */
static int diff_rows(Arena *a, const SourceSet *ss, const ModelPair *p,
                     DiffRow **out) {
  DiffRow *rows = arena_alloc(a, (size_t)(p->nnew + p->nold + 1) * sizeof *rows);
  int nr = 0;
  for (int ni = 0; ni < p->nnew; ni++) {
    const Entry *n = &p->news[ni];
    const Entry *o = n->match >= 0 ? &p->olds[n->match] : NULL;
    if (o && !entry_changed(o, n)) continue;
    DiffRow *r = &rows[nr++];
    *r = (DiffRow){.o = o, .n = n};
    r->cells[0] = o ? "~" : "+";
    r->cells[1] = n->name;
    for (int k = 0; k < NCELLS; k++)
      r->cells[k + 2] = !o || strcmp(o->cells[k], n->cells[k]) == 0
                            ? n->cells[k]
                            : arena_printf(a, "%s -> %s", o->cells[k], n->cells[k]);
    r->cells[NCELLS + 2] = loc_line(a, ss, n->loc);
  }
  for (int oi = 0; oi < p->nold; oi++) {
    const Entry *o = &p->olds[oi];
    if (o->match >= 0) continue;
    DiffRow *r = &rows[nr++];
    *r = (DiffRow){.o = o};
    r->cells[0] = "-";
    r->cells[1] = o->name;
    for (int k = 0; k < NCELLS; k++) r->cells[k + 2] = o->cells[k];
    r->cells[NCELLS + 2] = arena_printf(a, "old %s", loc_line(a, ss, o->loc));
  }
  *out = rows;
  return nr;
}

static void text_nodes(FILE *out, Arena *a, const SourceSet *ss,
                       const ModelPair *p) {
  if (p->changed + p->added + p->removed == 0) {
    fprintf(out, "  no node changed\n");
    return;
  }
  Table t = {.ncols = NCELLS + 3, .align = "lllllrrrrrl"};
  table_add(&t, row_heads);
  DiffRow *rows;
  int nr = diff_rows(a, ss, p, &rows);
  for (int i = 0; i < nr; i++) table_add(&t, rows[i].cells);
  table_print(out, &t, "  ");
}

static void text_totals(FILE *out, const ModelPair *p) {
  Table t = {.ncols = 4, .align = "lrrr"};
  table_add(&t, (const char *const[]){"totals", "old", "new", "change"});
  for (int k = 0; k < NTOTALS; k++) {
    double o = total_of(p->oc, k), n = total_of(p->nc, k);
    char ob[NB], nb[NB], cb[NB];
    table_add(&t, (const char *const[]){total_names[k],
                                             total_text(ob, NB, k, o),
                                             total_text(nb, NB, k, n),
                                             change_text(cb, NB, k, o, n)});
  }
  table_print(out, &t, "  ");
}

/* "model m: 4 changed, 1 added, 1 removed", or a model added or removed
 * whole: "model m: added (12 nodes, step >= 1.2 ms)". */
static const char *model_title(Arena *a, const ModelPair *p) {
  if (!p->nm || !p->om) {
    const Model *m = p->nm ? p->nm : p->om;
    const ModelCost *c = p->nm ? p->nc : p->oc;
    char tb[NB];
    return arena_printf(a, "model %s: %s (%d nodes, step >= %s)", m->name,
                        p->nm ? "added" : "removed", m->nnodes,
                        fmt_time(tb, NB, cost_step_time(c)));
  }
  /* R-DIFF-001: a pair of differently named models names both */
  bool renamed = strcmp(p->om->name, p->nm->name) != 0;
  return arena_printf(a, "model %s%s%s: %d changed, %d added, %d removed",
                      renamed ? p->om->name : "", renamed ? " -> " : "",
                      p->nm->name, p->changed, p->added, p->removed);
}

static void text_model(FILE *out, Arena *a, const SourceSet *ss,
                       const ModelPair *p) {
  fprintf(out, "\n%s\n", model_title(a, p));
  if (!p->nm || !p->om) return;
  /* R-DIFF-007: a changed plan (dtype or recipe) is said before the nodes */
  const char *op = plan_label(a, p->om), *np = plan_label(a, p->nm);
  if (strcmp(op, np) != 0) fprintf(out, "  dtype plan %s -> %s\n", op, np);
  text_nodes(out, a, ss, p);
  fputc('\n', out);
  text_totals(out, p);
}

static void text_diags(FILE *out, Arena *a, const SourceSet *ss, const Side *o,
                       const Side *n) {
  bool *gone = unmatched(a, o, n), *fresh = unmatched(a, n, o);
  int rows = 0;
  fprintf(out, "\ndiagnostics\n");
  for (int i = 0; i < n->checks.n; i++)
    if (fresh[i])
      fprintf(out, "  + %s\n", diag_line(a, ss, n->checks.items[i])), rows++;
  for (int i = 0; i < o->checks.n; i++)
    if (gone[i])
      fprintf(out, "  - %s\n", diag_line(a, ss, o->checks.items[i])), rows++;
  if (rows == 0) fprintf(out, "  none appear or disappear\n");
}

/* ---------------------------------------------------------- JSON output */

/* R-DIFF-004: a matched model whose step-time bound grew past the limit. */
typedef struct Regression {
  const char *model;
  double old_s, new_s, pct;
} Regression;

static void write_loc(JsonOut *w, const char *key, const SourceSet *ss, Loc loc) {
  const SourceFile *f = loc.file >= 0 ? src_file(ss, loc.file) : NULL;
  if (!f) {
    json_out_null(w, key);
    return;
  }
  int line, col;
  src_linecol(f, loc.start, &line, &col);
  json_out_open(w, key, '{');
  json_out_str(w, "file", f->name);
  json_out_int(w, "line", line);
  json_out_int(w, "column", col);
  json_out_close(w, '}');
}

/* A figure, or null where the entry has none. */
static void write_figure(JsonOut *w, const char *key, bool has, double v) {
  if (has) json_out_num(w, key, v);
  else json_out_null(w, key);
}

/* One side of a node in base units (null figures where it has none). */
static void write_entry(JsonOut *w, const char *key, const SourceSet *ss,
                        const Model *m, const ModelCost *c, const Entry *e) {
  json_out_open(w, key, '{');
  json_out_str(w, "op", e->cells[C_OP]);
  const GNode *g = e->node >= 0 ? &m->nodes[e->node] : NULL;
  json_out_str(w, "dtype", g && g->type->dtype != DT_NONE ? dtype_str(g->type->dtype) : NULL);
  json_out_str(w, "precision",
               g && g->op && g->precision != DT_NONE ? dtype_str(g->precision) : NULL);
  json_out_str(w, "region", e->region);
  Kernel kn = e->kernel >= 0 ? cost_kernel(c, e->kernel) : (Kernel){0};
  const Kernel *k = e->kernel >= 0 ? &kn : NULL;
  /* R-OUT-015: an entry's figures are the whole step's, and say so */
  write_figure(w, "step_flops", k || (g && g->op),
               k ? k->flops * k->count : g && g->op ? c->nodes[e->node].flops * g->count : 0);
  write_figure(w, "step_bytes", k, k ? k->bytes * k->count : 0);
  write_figure(w, "peak", k, k ? k->peak : 0);
  write_figure(w, "step_time_s", k, k ? k->time_s * k->count : 0);
  json_out_str(w, "bound", k ? bound_str(k->bound) : NULL);
  write_loc(w, "location", ss, e->loc);
  json_out_close(w, '}');
}

static void write_totals(JsonOut *w, const char *key, const ModelCost *c) {
  if (!c) {
    json_out_null(w, key);
    return;
  }
  json_out_open(w, key, '{');
  for (int k = 0; k < NTOTALS; k++) json_out_num(w, total_keys[k], total_of(c, k));
  json_out_close(w, '}');
}

/* A node row: its name, occurrence, status and both sides. */
static void write_node_row(JsonOut *w, const SourceSet *ss, const ModelPair *p,
                           const Entry *e, const Entry *n) {
  const Entry *named = n ? n : e;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", named->name);
  json_out_int(w, "occurrence", named->occ);
  json_out_str(w, "status", !n ? "removed" : e ? "changed" : "added");
  if (e) write_entry(w, "old", ss, p->om, p->oc, e);
  else json_out_null(w, "old");
  if (n) write_entry(w, "new", ss, p->nm, p->nc, n);
  else json_out_null(w, "new");
  json_out_close(w, '}');
}

static void write_model(JsonOut *w, const SourceSet *ss, const ModelPair *p) {
  json_out_open(w, NULL, '{');
  const Model *m = p->nm ? p->nm : p->om;
  json_out_str(w, "name", m->name);
  json_out_str(w, "old_name", p->om ? p->om->name : NULL);
  json_out_str(w, "status", !p->om   ? "added"
                            : !p->nm ? "removed"
                            : p->changed + p->added + p->removed ? "changed"
                                                                 : "unchanged");
  json_out_open(w, "nodes", '[');
  for (int i = 0; p->om && p->nm && i < p->nnew; i++) {
    const Entry *n = &p->news[i];
    const Entry *e = n->match >= 0 ? &p->olds[n->match] : NULL;
    if (!e || entry_changed(e, n)) write_node_row(w, ss, p, e, n);
  }
  for (int i = 0; p->om && p->nm && i < p->nold; i++)
    if (p->olds[i].match < 0) write_node_row(w, ss, p, &p->olds[i], NULL);
  json_out_close(w, ']');
  json_out_open(w, "totals", '{');
  write_totals(w, "old", p->om ? p->oc : NULL);
  write_totals(w, "new", p->nm ? p->nc : NULL);
  json_out_open(w, "relative_change", '{');
  for (int k = 0; p->om && p->nm && k < NTOTALS; k++) {
    double a = total_of(p->oc, k), b = total_of(p->nc, k);
    write_figure(w, total_keys[k], k == T_MEMSHARE || a != 0,
                 k == T_MEMSHARE ? b - a : a != 0 ? (b - a) / a : 0);
  }
  json_out_close(w, '}');
  json_out_close(w, '}');
  json_out_close(w, '}');
}

static void write_diag(JsonOut *w, const SourceSet *ss, const Diag *d, const Side *sd) {
  json_out_open(w, NULL, '{');
  json_out_str(w, "severity", severity_str(d->sev));
  json_out_str(w, "check", d->check);
  json_out_str(w, "node", diag_node(sd, d->loc));
  json_out_str(w, "message", d->msg);
  write_loc(w, "location", ss, d->loc);
  json_out_close(w, '}');
}

static void write_side(JsonOut *w, const char *key, const SourceSet *ss, const Side *s) {
  const SourceFile *f = src_file(ss, s->file);
  json_out_open(w, key, '{');
  json_out_str(w, "file", f ? f->name : s->path);
  json_out_str(w, "target", s->an->targets[0]->name);
  json_out_close(w, '}');
}

/* The diagnostics of `s` that the other side does not have (unmatched). */
static void write_diags(JsonOut *w, const char *key, const SourceSet *ss,
                        const Side *s, const bool *only_here) {
  json_out_open(w, key, '[');
  for (int i = 0; i < s->checks.n; i++)
    if (only_here[i]) write_diag(w, ss, s->checks.items[i], s);
  json_out_close(w, ']');
}

static void write_regressions(JsonOut *w, const DiffOptions *opt,
                              const Regression *regs, int nregs) {
  json_out_open(w, "regression", '{');
  write_figure(w, "threshold_pct", opt->has_fail, opt->fail_pct);
  json_out_bool(w, "exceeded", nregs > 0);
  json_out_open(w, "models", '[');
  for (int i = 0; i < nregs; i++) {
    json_out_open(w, NULL, '{');
    json_out_str(w, "model", regs[i].model);
    json_out_num(w, "old_time_s", regs[i].old_s);
    json_out_num(w, "new_time_s", regs[i].new_s);
    json_out_num(w, "growth_pct", regs[i].pct);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  json_out_close(w, '}');
}

static void write_json(FILE *out, Arena *a, const SourceSet *ss, const Side *o,
                       const Side *n, const ModelPair *ps, int np,
                       const DiffOptions *opt, const Regression *regs, int nregs) {
  JsonOut *w = json_out_begin(out);
  json_out_open(w, "tool", '{');
  json_out_str(w, "name", "rooflint");
  json_out_str(w, "version", ROOFLINT_VERSION);
  json_out_close(w, '}');
  write_side(w, "old", ss, o);
  write_side(w, "new", ss, n);
  json_out_open(w, "models", '[');
  for (int i = 0; i < np; i++) write_model(w, ss, &ps[i]);
  json_out_close(w, ']');
  json_out_open(w, "diagnostics", '{');
  write_diags(w, "appeared", ss, n, unmatched(a, n, o));
  write_diags(w, "disappeared", ss, o, unmatched(a, o, n));
  json_out_close(w, '}');
  write_regressions(w, opt, regs, nregs);
  json_out_finish(w);
}

/* ---------------------------------------------------------- HTML output */

/* R-HTML-009: the page's data, every figure shown as the text prints it,
 * the raw step figures beside a row's cells for sorting. */
typedef struct HtmlDiff {
  StrBuf d, clean;
  Arena *a;
  const SourceSet *ss;
} HtmlDiff;

static void html_str(HtmlDiff *h, const char *s) { html_json_str(&h->d, &h->clean, s); }

/* An entry's step FLOPs, bytes and time, null where it has none. */
static void html_figures(HtmlDiff *h, const Model *m, const ModelCost *c,
                         const Entry *e) {
  if (!e) {
    sb_puts(&h->d, "null");
    return;
  }
  Kernel kn = e->kernel >= 0 ? cost_kernel(c, e->kernel) : (Kernel){0};
  const GNode *g = e->node >= 0 ? &m->nodes[e->node] : NULL;
  double flops = e->kernel >= 0 ? kn.flops * kn.count
                 : g && g->op   ? c->nodes[e->node].flops * g->count
                                : NAN;
  sb_putc(&h->d, '[');
  html_json_num(&h->d, flops);
  sb_putc(&h->d, ',');
  html_json_num(&h->d, e->kernel >= 0 ? kn.bytes * kn.count : NAN);
  sb_putc(&h->d, ',');
  html_json_num(&h->d, e->kernel >= 0 ? kn.time_s * kn.count : NAN);
  sb_putc(&h->d, ']');
}

static void html_totals(HtmlDiff *h, const ModelPair *p) {
  sb_puts(&h->d, ",\"totals\":[");
  for (int k = 0; p->om && p->nm && k < NTOTALS; k++) {
    double o = total_of(p->oc, k), n = total_of(p->nc, k);
    char ob[NB], nb[NB], cb[NB];
    const char *cells[4] = {total_names[k], total_text(ob, NB, k, o),
                            total_text(nb, NB, k, n), change_text(cb, NB, k, o, n)};
    sb_puts(&h->d, k ? ",[" : "[");
    for (int i = 0; i < 4; i++) {
      html_str(h, cells[i]);
      sb_putc(&h->d, ',');
    }
    html_json_num(&h->d, o);
    sb_putc(&h->d, ',');
    html_json_num(&h->d, n);
    sb_putc(&h->d, ']');
  }
  sb_putc(&h->d, ']');
}

static void html_model(HtmlDiff *h, const ModelPair *p, bool first) {
  const Model *m = p->nm ? p->nm : p->om;
  sb_puts(&h->d, first ? "\n{\"name\":" : ",\n{\"name\":");
  html_str(h, m->name);
  sb_puts(&h->d, ",\"title\":");
  html_str(h, model_title(h->a, p));
  const char *op = p->om && p->nm ? plan_label(h->a, p->om) : "";
  const char *np = p->om && p->nm ? plan_label(h->a, p->nm) : "";
  sb_puts(&h->d, ",\"plan\":");
  html_str(h, strcmp(op, np) != 0 ? arena_printf(h->a, "dtype plan %s -> %s", op, np) : NULL);
  html_totals(h, p);
  sb_puts(&h->d, ",\"rows\":[");
  DiffRow *rows;
  int nr = p->om && p->nm ? diff_rows(h->a, h->ss, p, &rows) : 0;
  for (int i = 0; i < nr; i++) {
    const DiffRow *r = &rows[i];
    sb_puts(&h->d, i ? ",\n{\"cells\":[" : "\n{\"cells\":[");
    for (int k = 0; k < NCELLS + 3; k++) {
      if (k) sb_putc(&h->d, ',');
      html_str(h, r->cells[k]);
    }
    bool kernel = (r->o && r->o->kernel >= 0) || (r->n && r->n->kernel >= 0);
    bool node = (r->o && r->o->node >= 0) || (r->n && r->n->node >= 0);
    sb_printf(&h->d, "],\"kernel\":%s,\"node\":%s,\"old\":", kernel ? "true" : "false",
              node ? "true" : "false");
    html_figures(h, p->om, p->oc, r->o);
    sb_puts(&h->d, ",\"new\":");
    html_figures(h, p->nm, p->nc, r->n);
    sb_putc(&h->d, '}');
  }
  sb_puts(&h->d, "]}");
}

static void html_diags(HtmlDiff *h, const char *key, const Side *s,
                       const bool *only_here) {
  sb_printf(&h->d, ",\n\"%s\":[", key);
  bool first = true;
  for (int i = 0; i < s->checks.n; i++) {
    if (!only_here[i]) continue;
    const Diag *d = s->checks.items[i];
    sb_puts(&h->d, first ? "\n{\"severity\":" : ",\n{\"severity\":");
    first = false;
    html_str(h, severity_str(d->sev));
    sb_puts(&h->d, ",\"check\":");
    html_str(h, d->check);
    sb_puts(&h->d, ",\"node\":");
    html_str(h, diag_node(s, d->loc));
    sb_puts(&h->d, ",\"text\":");
    html_str(h, diag_line(h->a, h->ss, d));
    sb_putc(&h->d, '}');
  }
  sb_putc(&h->d, ']');
}

static void html_side(HtmlDiff *h, const char *key, const Side *s) {
  const SourceFile *f = src_file(h->ss, s->file);
  sb_printf(&h->d, ",\"%s\":{\"file\":", key);
  html_str(h, f ? f->name : s->path);
  sb_puts(&h->d, ",\"target\":");
  html_str(h, s->an->targets[0]->display);
  sb_putc(&h->d, '}');
}

static void write_html(FILE *out, Arena *a, const SourceSet *ss, const Side *o,
                       const Side *n, const ModelPair *ps, int np,
                       const Regression *regs, int nregs) {
  HtmlDiff h = {.a = a, .ss = ss};
  sb_puts(&h.d, "{\"tool\":\"rooflint\",\"kind\":\"diff\"");
  html_side(&h, "old", o);
  html_side(&h, "new", n);
  sb_puts(&h.d, ",\"heads\":[");
  for (int k = 0; k < NCELLS + 3; k++) {
    if (k) sb_putc(&h.d, ',');
    html_str(&h, row_heads[k]);
  }
  sb_puts(&h.d, "],\n\"models\":[");
  for (int i = 0; i < np; i++) html_model(&h, &ps[i], i == 0);
  sb_putc(&h.d, ']');
  html_diags(&h, "appeared", n, unmatched(a, n, o));
  html_diags(&h, "disappeared", o, unmatched(a, o, n));
  sb_puts(&h.d, ",\n\"regressions\":[");
  for (int i = 0; i < nregs; i++) {
    if (i) sb_putc(&h.d, ',');
    html_str(&h, regs[i].model);
  }
  sb_puts(&h.d, "]}");
  html_page(out, sb_str(&h.d), h.d.len);
  sb_free(&h.d);
  sb_free(&h.clean);
}

/* ---------------------------------------------------------------- driver */

static bool load_side(SourceSet *ss, Side *s, const DiffOptions *o,
                      DiagSink *diags) {
  char *err = NULL;
  ImportStatus why;
  s->file = import_load(ss, s->path, o->import, &err, &why);
  if (s->file >= 0) return true;
  diag_report(diags, SEV_ERROR, NULL, LOC_NONE, "%s", err);
  free(err);
  return false;
}

static void run_checks(Arena *a, SourceSet *ss, Side *s, const DiffOptions *o) {
  diag_sink_init(&s->checks);
  s->checks.error_limit = 0;
  analyze_checks(a, ss, s->an, o->bindings, o->policy, &s->checks);
  /* Suppressions and -W apply; -Werror would only relabel. */
  DiagPolicy p = o->policy ? *o->policy : (DiagPolicy){0};
  p.werror = false;
  diag_apply_policy(&s->checks, ss, &p);
  diag_sort(&s->checks);
}

/* R-DIFF-004: a matched model whose step-time bound grows by more than PCT
 * percent is an error (exit 1).  Returns how many; *out lists them. */
static int regressions(Arena *a, const ModelPair *ps, int np, const DiffOptions *o,
                       DiagSink *diags, Regression **out) {
  int n = 0;
  *out = arena_alloc(a, (size_t)(np ? np : 1) * sizeof **out);
  for (int i = 0; i < np && o->has_fail; i++) {
    const ModelPair *p = &ps[i];
    if (!p->om || !p->nm || p->oc->time_s <= 0) continue;
    double pct = (p->nc->time_s - p->oc->time_s) / p->oc->time_s * 100;
    if (!(pct > o->fail_pct)) continue;
    char ob[NB], nb[NB], pb[NB], lb[NB];
    fmt_time(ob, NB, p->oc->time_s);
    fmt_time(nb, NB, p->nc->time_s);
    fmt_fixed(pb, NB, pct, 1);
    fmt_sig3(lb, NB, o->fail_pct);
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "step-time bound of model '%s' grew by %s%% (%s -> %s), more "
                "than the %g%% allowed by --fail-on-regression",
                p->nm->name, pb, ob, nb, o->fail_pct);
    (*out)[n++] = (Regression){p->nm->name, p->oc->time_s, p->nc->time_s, pct};
  }
  return n;
}

int diff_cmd(FILE *out, Arena *a, SourceSet *ss, const char *old_path,
             const char *new_path, const DiffOptions *o, DiagSink *diags) {
  /* R-DIFF-005: either side may be standard input, not both. */
  if (strcmp(old_path, "-") == 0 && strcmp(new_path, "-") == 0) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "only one side of a diff can be '-' (standard input)");
    return 2;
  }
  Side sides[2] = {{.path = old_path}, {.path = new_path}};
  bool ok = load_side(ss, &sides[0], o, diags);
  ok = load_side(ss, &sides[1], o, diags) && ok;
  if (!ok) return 2;
  AnalyzeOptions ao = {
      .bindings = o->bindings,
      .targets = o->targets,
      .ntargets = o->ntargets,
      .run_checks = false,
  };
  for (int i = 0; i < 2; i++)
    sides[i].an = analyze_file(a, ss, sides[i].file, &ao, diags);
  /* R-CLI-003 as in lint: a -D naming no let would silently do nothing. */
  bool named = true;
  for (int i = 0; o->bindings && i < o->bindings->n; i++)
    if (!o->bindings->overrides[i].used && sides[0].an->unit &&
        sides[1].an->unit) {
      diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                  "-D %s: no let named '%s' in either file",
                  o->bindings->overrides[i].name,
                  o->bindings->overrides[i].name);
      named = false;
    }
  if (!named) return 2;
  if (diags->nerrors > 0 || !sides[0].an->unit || !sides[1].an->unit) return 1;
  for (int i = 0; i < 2; i++) {
    run_checks(a, ss, &sides[i], o);
    index_starts(a, &sides[i]);
  }

  int np;
  ModelPair *ps = pair_models(a, &sides[0], &sides[1], &np);
  Regression *regs;
  int nregs = regressions(a, ps, np, o, diags, &regs);
  if (o->json) {
    write_json(out, a, ss, &sides[0], &sides[1], ps, np, o, regs, nregs);
  } else if (o->html) {
    write_html(out, a, ss, &sides[0], &sides[1], ps, np, regs, nregs);
  } else {
    const SourceFile *fo = src_file(ss, sides[0].file);
    const SourceFile *fn = src_file(ss, sides[1].file);
    const Target *to = sides[0].an->targets[0], *tn = sides[1].an->targets[0];
    fprintf(out, "diff %s -> %s on %s", fo->name, fn->name, to->display);
    if (tn != to && strcmp(tn->name, to->name) != 0)
      fprintf(out, " -> %s", tn->display);
    fputc('\n', out);
    for (int i = 0; i < np; i++) text_model(out, a, ss, &ps[i]);
    text_diags(out, a, ss, &sides[0], &sides[1]);
  }
  for (int i = 0; i < 2; i++) diag_sink_free(&sides[i].checks);
  return nregs > 0;
}
