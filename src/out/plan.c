/* SPDX-License-Identifier: MIT */
/*
 * plan.c: reviewing a model's dtype plan.  `--plan` shows where the time
 * goes per compute precision and unit (tensor core, vector, PCIe, network),
 * the memory footprint per storage dtype, and every node that leaves the
 * plan, saying whether someone wrote that dtype down (a declaration's
 * DTYPE, a cast, precision=, custom's out=) or it flowed in from an input,
 * so a reviewer can find the one line that made a matmul fp32.  `--dtype`
 * answers "what if the plan were fp8?" by running sema and cost again with
 * the plan dtype replaced (Bindings.what_if): the analysis is a pure
 * function of (AST, bindings, target), so nothing is patched after the
 * fact, and explicit dtypes stay exactly as written.  Figures are grouped
 * per kernel (a fused region is one), so the rows add up to the totals of
 * --report.
 */
#include "rooflint.h"
#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NB 64 /* one formatted figure */
#define WHATIF_SLOWEST 5

/* --------------------------------------------------------------- helpers */

static double share(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}

/* The node that sets each fused region's peak: the region's biggest node
 * by FLOPs (first on ties), as cost.c chooses it; -1 for a region with no
 * such node.  One pass over the nodes for all regions: a scan per region
 * was quadratic in a model of many regions. */
static int *region_leads(Arena *a, const Model *m, const ModelCost *c) {
  int *lead = arena_alloc(a, (size_t)(m->nregions + 1) * sizeof *lead);
  double *most = xmalloc((size_t)(m->nregions + 1) * sizeof *most);
  for (int r = 0; r < m->nregions; r++) {
    lead[r] = -1;
    most[r] = -1;
  }
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->region < 0 || !g->op || g->op->cls == OC_VIEW) continue;
    if (c->nodes[i].flops > most[g->region]) {
      most[g->region] = c->nodes[i].flops;
      lead[g->region] = i;
    }
  }
  free(most);
  return lead;
}

/* The node that sets a kernel's peak: the op itself, or its region's lead. */
static int kernel_lead(const int *region_lead, const Kernel *k) {
  if (k->region < 0 || region_lead[k->region] < 0) return k->first_node;
  return region_lead[k->region];
}

typedef enum ExecUnit { U_TENSOR, U_VECTOR, U_PCIE, U_NETWORK, U__COUNT } ExecUnit;
static const char *const unit_names[U__COUNT] = {"tensor", "vector", "pcie",
                                                 "network"};

static ExecUnit kernel_unit(const Kernel *k, const NodeCost *lead) {
  if (k->bound == BOUND_PCIE) return U_PCIE;
  if (k->bound == BOUND_NETWORK) return U_NETWORK;
  return lead->tensor ? U_TENSOR : U_VECTOR;
}

static DType node_precision(const GNode *g) {
  return g->precision != DT_NONE ? g->precision : g->type->dtype;
}

/* "u (matmul)", "fused act": names repeat, ops tell them apart. */
/* Kernel k of `base` in `c`, the same program under another plan: the
 * kernel of its first node, into *out; false when that node makes none
 * there. */
static bool twin(const ModelCost *c, const ModelCost *base, int k, Kernel *out) {
  int f = base->kernel_node[k];
  if (f < 0 || f >= c->model->nnodes) return false;
  int kk = c->nodes[f].kernel;
  if (kk < 0 || kk >= c->nkernels) return false;
  *out = cost_kernel(c, kk);
  return true;
}

static const char *kernel_label(Arena *a, const Model *m, const Kernel *k) {
  if (k->region >= 0) return arena_printf(a, "fused %s", cost_kernel_name(m, k));
  const GNode *g = &m->nodes[k->first_node];
  return arena_printf(a, "%s (%s)", g->name, g->op->name);
}

static const char *loc_text(Arena *a, const SourceSet *ss, Loc loc) {
  char at[32];
  if (loc.file < 0 || loc.file >= ss->nfiles) return "-";
  return arena_printf(a, "%s:%s", src_file(ss, loc.file)->name,
                      fmt_at(at, sizeof at, ss, loc));
}

static void model_header(FILE *out, const Model *m, const ModelCost *c,
                         const SourceSet *ss, const char *what) {
  const SourceFile *f = src_file(ss, m->file);
  fprintf(out, "model %s (%s) on %s: %s\n", m->name, f ? f->name : "-",
          c->target->display, what);
}

/* ------------------------------------------------------------ compute */

typedef struct Group {
  int kernels;
  double launches, flops, bytes, time;
} Group;

/* R-PLAN-001: one row per (compute precision, unit); kernels group by the
 * node that sets their peak. */
static void plan_compute(FILE *out, Arena *a, const Model *m,
                         const ModelCost *c) {
  /* rows: DT__COUNT precisions, then "-" (none known), x U__COUNT units;
   * then the implicit gradient all-reduce of train mode */
  int nrows = (DT__COUNT + 1) * U__COUNT;
  Group *g = arena_alloc(a, (size_t)(nrows + 1) * sizeof *g);
  Group *grad = &g[nrows];
  const int *region_lead = region_leads(a, m, c);
  for (int i = 0; i < c->nkernels; i++) {
    Kernel kn = cost_kernel(c, i);
    const Kernel *k = &kn;
    int lead = kernel_lead(region_lead, k);
    DType d = node_precision(&m->nodes[lead]);
    int di = d == DT_NONE ? DT__COUNT : (int)d;
    Group *row = &g[di * U__COUNT + (int)kernel_unit(k, &c->nodes[lead])];
    row->kernels++;
    row->launches += k->count;
    row->flops += k->flops * k->count;
    row->bytes += k->bytes * k->count;
    row->time += k->time_s * k->count;
  }
  for (int i = 0; i < c->ncollectives; i++) {
    const Collective *col = &c->collectives[i];
    if (col->node >= 0) continue;
    grad->launches += col->count;
    grad->bytes += (col->nvlink_bytes + col->ib_bytes) * col->count;
    grad->time += col->time_s * col->count;
  }
  Table t = {.ncols = 8, .align = "llrrrrrr"};
  bool mb = cost_per_microbatch(c); /* R-OUT-015: one microbatch's figures */
  table_add(&t, (const char *const[]){"precision", "unit", "kernels", "launches",
                                      mb ? "FLOPs/mb" : "FLOPs/step",
                                      mb ? "bytes/mb" : "bytes/step",
                                      mb ? "time/mb" : "time/step", "share"});
  for (int r = 0; r <= nrows; r++) {
    const Group *row = &g[r];
    if (row->launches == 0) continue;
    char cells[6][NB];
    snprintf(cells[0], NB, "%d", row->kernels);
    fmt_fixed(cells[1], NB, row->launches, 0);
    fmt_flop(cells[2], NB, row->flops);
    fmt_bytes(cells[3], NB, row->bytes);
    fmt_time(cells[4], NB, row->time);
    fmt_percent(cells[5], NB, share(row->time, c->time_s), 1);
    bool is_grad = r == nrows;
    int di = r / U__COUNT;
    table_add(&t, (const char *const[]){
                           is_grad            ? "gradients"
                           : di == DT__COUNT  ? "-"
                                              : dtype_str((DType)di),
                           is_grad ? "network" : unit_names[r % U__COUNT],
                           cells[0], cells[1], cells[2], cells[3], cells[4],
                           cells[5]});
  }
  char f[NB], b[NB], tm[NB];
  table_add(&t, (const char *const[]){
                         "total", "", "", "", fmt_flop(f, NB, c->flops),
                         fmt_bytes(b, NB, c->bytes), fmt_time(tm, NB, c->time_s),
                         "100.0%"});
  bool links = grad->launches > 0;
  for (int r = 0; r < nrows && !links; r++)
    links = g[r].launches > 0 && r % U__COUNT >= U_PCIE;
  /* the step time line above is the step's */
  fprintf(out, "\ncompute by precision (per %s)\n", mb ? "microbatch" : "step");
  table_print(out, &t, "  ");
  /* The total is HBM traffic, as in --report; links carry their own. */
  if (links)
    fprintf(out, "  (pcie and network rows: bytes over that link, not in the "
                 "HBM total)\n");
}

/* ------------------------------------------------------------ footprint */

/* The footprint's parts by storage dtype, each DT__COUNT long. */
typedef struct ByDtype {
  double *w, *act, *params, *buf, *kv;
} ByDtype;

static ByDtype by_dtype(Arena *a, const Model *m) {
  ByDtype d = {
      .w = arena_alloc(a, DT__COUNT * sizeof *d.w),
      .act = arena_alloc(a, DT__COUNT * sizeof *d.act),
      .params = arena_alloc(a, DT__COUNT * sizeof *d.params),
      .buf = arena_alloc(a, DT__COUNT * sizeof *d.buf),
  };
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->role == ROLE_BUFFER && g->type->dtype != DT_NONE)
      d.buf[g->type->dtype] +=
          op_tensor_bytes(g->type) * model_weight_copies(m, g->scope);
  }
  cost_weights(m, d.params, d.w);
  cost_activations(m, d.act);
  d.kv = arena_alloc(a, DT__COUNT * sizeof *d.kv);
  cost_kv_cache(m, d.kv);
  return d;
}

/* What the table's total holds that its dtype rows do not show. */
static void footprint_notes(FILE *out, const ModelCost *c) {
  /* R-PAR-009: the total is one GPU's, of the stage that holds most */
  if (c->pipe.stages > 1)
    fprintf(out, "  (a pipeline of %d stages: the dtype rows' weights, "
                 "gradients and activations are every stage's, the total "
                 "the fullest stage's)\n",
            c->pipe.stages);
  /* R-PAR-013: the gathered units are whole layers of mixed dtypes */
  if (c->footprint.gathered > 0) {
    char tb[NB];
    fmt_bytes(tb, NB, c->footprint.gathered);
    fprintf(out, "  (the total holds %s of gathered FSDP units, which the "
                 "dtype rows leave out)\n",
            tb);
  }
}

/* R-PLAN-002: weights (with gradients in train mode) by their storage
 * dtype, activations by theirs at the live peak; Adam state is fp32;
 * buffers (R-COST-011), a column only in a model that has them. */
static void plan_footprint(FILE *out, Arena *a, const Model *m,
                           const ModelCost *c) {
  ByDtype by = by_dtype(a, m);
  double *w = by.w, *act = by.act, *params = by.params, *buf = by.buf,
         *kv = by.kv;
  bool train = m->train;
  const Footprint *fp = &c->footprint;
  bool bufs = fp->buffers > 0, kvs = fp->kv_cache > 0;
  Table t = {.ncols = 5 + 2 * train + bufs + kvs,
             .align = "lrrrrrrrr"};
  /* one row: its cells in column order, the optional ones left out */
  const char *row[9];
  int n;
#define ROW(dt, p, wb, gb, ob, ab, bb, kb, tb)   \
  do {                                           \
    n = 0;                                       \
    row[n++] = (dt);                             \
    row[n++] = (p);                              \
    row[n++] = (wb);                             \
    if (train) row[n++] = (gb), row[n++] = (ob); \
    row[n++] = (ab);                             \
    if (bufs) row[n++] = (bb);                   \
    if (kvs) row[n++] = (kb);                    \
    row[n++] = (tb);                             \
    table_add(&t, row);                          \
  } while (0)
  ROW("dtype", "parameters", "weights", "gradients", "optimizer",
      "activations", "buffers", footprint_cache_name(fp), "total");
  char p[NB], wb[NB], gb[NB], ob[NB], ab[NB], bb[NB], kb[NB], tb[NB];
  /* per GPU, after ZeRO (R-PAR-004), as the total row */
  double wdiv = fp->weight_shards > 1 ? (double)fp->weight_shards : 1;
  double gdiv = fp->gradient_shards > 1 ? (double)fp->gradient_shards : 1;
  for (int d = 0; d < DT__COUNT; d++) {
    double opt = train && d == DT_FP32 ? fp->optimizer : 0;
    double grads = !train ? 0
                   : m->parallel.fp32_grads /* R-TRAIN-004: one fp32 buffer */
                       ? (d == DT_FP32 ? fp->gradients : 0)
                       : w[d] / gdiv;
    w[d] /= wdiv;
    if (w[d] == 0 && act[d] == 0 && opt == 0 && buf[d] == 0 && kv[d] == 0)
      continue;
    fmt_count(p, NB, params[d]);
    fmt_bytes(wb, NB, w[d]);
    fmt_bytes(gb, NB, grads);
    fmt_bytes(ob, NB, opt);
    fmt_bytes(ab, NB, act[d]);
    fmt_bytes(bb, NB, buf[d]);
    fmt_bytes(kb, NB, kv[d]);
    fmt_bytes(tb, NB, w[d] + grads + opt + act[d] + buf[d] + kv[d]);
    ROW(dtype_str((DType)d), p, wb, gb, ob, ab, bb, kb, tb);
  }
  fmt_count(p, NB, c->params);
  fmt_bytes(wb, NB, fp->weights);
  fmt_bytes(gb, NB, fp->gradients);
  fmt_bytes(ob, NB, fp->optimizer);
  fmt_bytes(ab, NB, fp->activations);
  fmt_bytes(bb, NB, fp->buffers);
  fmt_bytes(kb, NB, fp->kv_cache);
  fmt_bytes(tb, NB, fp->total);
  ROW("total", p, wb, gb, ob, ab, bb, kb, tb);
#undef ROW
  fprintf(out, "\nfootprint by storage dtype\n");
  table_print(out, &t, "  ");
  footprint_notes(out, c);
}

/* ------------------------------------------------------------- deviations */

/* Why a node's dtype is what it is, when someone wrote it down. */
static const char *explicit_reason(Arena *a, const GNode *g) {
  if (!g->op)
    return g->dtype_loc.file >= 0
               ? arena_printf(a, "declared %s", dtype_str(g->type->dtype))
               : NULL;
  if (g->precision_explicit)
    return arena_printf(a, "precision=%s", dtype_str(g->precision));
  if (g->op->flags & OPF_CAST)
    return arena_printf(a, "cast to %s", dtype_str(g->args->cast_to));
  if (g->dtype_loc.file >= 0)
    return arena_printf(a, "out=%s", dtype_str(g->type->dtype));
  return NULL;
}

/* The input a non-explicit op took `d` from: the first one of that dtype. */
static int source_input(const Model *m, const GNode *g, DType d) {
  for (int i = 0; i < g->ninputs; i++)
    if (m->nodes[g->inputs[i]].type->dtype == d) return g->inputs[i];
  return -1;
}

/* Integer tensors (token ids, indices) are not part of a float dtype plan
 * (R-PLAN-003). */
static bool is_float(DType d) { return d != DT_NONE && dtype_info(d)->is_float; }

static unsigned dtype_bit(DType d) { return d == DT_NONE ? 0 : 1u << d; }

const char *plan_label(Arena *a, const Model *m) {
  const char *s = dtype_str(m->dtype);
  for (int c = 0; c < OC__COUNT; c++)
    if (m->class_given[c])
      s = arena_printf(a, "%s, %s %s", s, op_class_str((OpClass)c),
                       dtype_str(m->class_dtype[c]));
  return s;
}

/* The storage dtypes the plan allows each node, as bits: the plan dtype,
 * and the recipe's dtype of each op class that reads the node (through
 * views: an fp8 weight transposed for an fp8 GEMM is fp8 on the plan).
 * Consumers come after their operands, so one pass from the last node
 * back gives every node its consumers' dtypes before it is read. */
static unsigned *storage_plan(Arena *a, const Model *m) {
  unsigned *ok = arena_alloc(a, (size_t)(m->nnodes + 1) * sizeof *ok);
  for (int i = 0; i < m->nnodes; i++) ok[i] = dtype_bit(m->dtype);
  for (int i = m->nnodes - 1; i >= 0; i--) {
    const GNode *g = &m->nodes[i];
    if (!g->op) continue;
    unsigned give = g->op->cls == OC_VIEW
                        ? ok[i]
                        : dtype_bit(model_plan_dtype(m, g->op->cls));
    for (int k = 0; k < g->ninputs; k++) ok[g->inputs[k]] |= give;
  }
  return ok;
}

static bool storage_off(const GNode *g, unsigned ok) {
  return is_float(g->type->dtype) && !(ok & dtype_bit(g->type->dtype));
}

/* An op that computes is on the plan at its class's dtype; one that only
 * moves data (a view, a copy, a transfer, a collective) computes at the
 * dtype it moves, so it is on the plan where its storage is. */
static bool precision_off(const Model *m, const GNode *g, unsigned ok) {
  if (!g->op || !is_float(g->precision)) return false;
  if (g->precision == model_plan_dtype(m, g->op->cls)) return false;
  OpClass c = g->op->cls;
  bool moves = c == OC_VIEW || c == OC_MOVEMENT || c == OC_TRANSFER ||
               c == OC_COLLECTIVE;
  return !(moves && (ok & dtype_bit(g->precision)));
}

/* R-PLAN-003: every node whose storage dtype or compute precision is not
 * the plan's, explicit or inherited (with the node it came through and,
 * when further back, the node that introduced it). */
static void plan_deviations(FILE *out, Arena *a, const SourceSet *ss,
                            const Model *m) {
  Table t = {.ncols = 6, .align = "llllll"};
  table_add(&t, (const char *const[]){"node", "op", "dtype", "precision",
                                           "why", "at"});
  int rows = 0;
  const unsigned *ok = storage_plan(a, m);
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    bool off_storage = storage_off(g, ok[i]);
    if (!off_storage && !precision_off(m, g, ok[i])) continue;
    const char *why = explicit_reason(a, g);
    if (!why) {
      DType d = off_storage ? g->type->dtype : g->precision;
      int src = source_input(m, g, d);
      if (src < 0) {
        why = "inherited";
      } else {
        /* Walk back to the node that introduced the dtype. */
        int root = src;
        for (int hops = 0; hops < m->nnodes; hops++) {
          const GNode *r = &m->nodes[root];
          if (!r->op || explicit_reason(a, r)) break;
          int next = source_input(m, r, d);
          if (next < 0) break;
          root = next;
        }
        why = arena_printf(a, "inherited from '%s'", m->nodes[src].name);
        if (root != src) {
          const SourceFile *f = src_file(ss, m->nodes[root].loc.file);
          int line = 0, col = 0;
          if (f) src_linecol(f, m->nodes[root].loc.start, &line, &col);
          why = arena_printf(a, "%s, from '%s' (line %d)", why,
                             m->nodes[root].name, line);
        }
      }
    }
    table_add(&t, (const char *const[]){
                           g->name, g->op ? g->op->name : role_str(g->role),
                           g->type->dtype == DT_NONE ? "-" : dtype_str(g->type->dtype),
                           g->op && g->precision != DT_NONE ? dtype_str(g->precision) : "-",
                           why, loc_text(a, ss, g->loc)});
    rows++;
  }
  bool recipe = false;
  for (int c = 0; c < OC__COUNT; c++) recipe |= m->class_given[c];
  fprintf(out, "\nnodes off the plan (%s)\n", plan_label(a, m));
  if (rows == 0) {
    if (recipe)
      fprintf(out, "  none: every node stores and computes as the plan says\n");
    else
      fprintf(out, "  none: every node stores and computes in %s\n",
              dtype_str(m->dtype));
    table_free(&t);
    return;
  }
  table_print(out, &t, "  ");
}

void plan_print(FILE *out, const Analysis *an, const SourceSet *ss) {
  if (!an || !an->unit) return;
  Arena *a = arena_new();
  for (int mi = 0; mi < an->unit->nmodels; mi++) {
    const Model *m = &an->unit->models[mi];
    const ModelCost *c = an->costs[mi * an->ntargets];
    if (mi > 0) fputc('\n', out);
    model_header(out, m, c, ss,
                 arena_printf(a, "dtype plan %s%s", plan_label(a, m),
                              m->dtype_loc.file >= 0 ? "" : " (the default)"));
    char tm[NB], pct[NB];
    fprintf(out, "  step time >= %s, %s of it memory-bound\n",
            fmt_time(tm, NB, cost_step_time(c)),
            fmt_percent(pct, NB, share(c->memory_bound_time, c->time_s), 1));
    plan_compute(out, a, m, c);
    plan_footprint(out, a, m, c);
    plan_deviations(out, a, ss, m);
  }
  arena_free(a);
}

/* ---------------------------------------------------------------- what-if */

bool plan_parse_dtypes(Arena *a, const char *list, WhatIf **dtypes, int *n,
                       const char **err) {
  static const char *const classes[] = {"elementwise", "reduction", "contraction", NULL};
  static const OpClass ids[] = {OC_ELEMENTWISE, OC_REDUCTION, OC_CONTRACTION};
  int cap = 1;
  for (const char *p = list; *p; p++) cap += *p == ',';
  *dtypes = arena_alloc(a, (size_t)cap * sizeof **dtypes);
  *n = 0;
  for (const char *p = list;;) {
    size_t len = strcspn(p, ",");
    const char *name = arena_strndup(a, p, len);
    int cls = -1;
    const char *eq = strchr(name, '=');
    if (eq) { /* CLASS=DT, a recipe entry (R-PLAN-007) */
      const char *cname = arena_strndup(a, name, (size_t)(eq - name));
      int k = 0;
      while (classes[k] && strcmp(classes[k], cname) != 0) k++;
      if (!classes[k]) {
        const char *sug = util_suggest(cname, classes);
        *err = sug ? arena_printf(a, "unknown op class '%s'; did you mean '%s'?", cname, sug)
                   : arena_printf(a, "unknown op class '%s' (expected elementwise, "
                                     "reduction or contraction)",
                                  cname);
        return false;
      }
      cls = ids[k];
      name = eq + 1;
    }
    DType d = dtype_parse(name);
    if (d == DT_NONE || d == DT_TF32) {
      const char *sug = d == DT_TF32 ? "fp32" : util_suggest(name, dtype_names());
      *err = arena_printf(a, "%s%s%s%s",
                          d == DT_TF32
                              ? "tf32 is a compute precision, not a plan dtype"
                              : arena_printf(a, "unknown dtype '%s'", name),
                          sug ? "; did you mean '" : "", sug ? sug : "",
                          sug ? "'?" : "");
      return false;
    }
    (*dtypes)[(*n)++] = (WhatIf){cls, d};
    if (p[len] == '\0') return true;
    p += len + 1;
  }
}

/* A what-if's column: "fp8", "contraction=fp8_e4m3". */
static const char *whatif_label(Arena *a, WhatIf w) {
  if (w.cls < 0) return dtype_str(w.dtype);
  return arena_printf(a, "%s=%s", op_class_str((OpClass)w.cls), dtype_str(w.dtype));
}

/* One what-if: the unit of the file with every model's plan replaced by
 * `d`; NULL after recording errors.  R-PLAN-005: a plan that does not
 * type-check (mixed bf16 and fp16 in one op) is an error noting the dtype. */
static const Unit *rerun(Arena *a, const Analysis *an, const Bindings *b,
                         WhatIf w, DiagSink *diags) {
  Bindings *nb = bindings_with(a, b, NULL);
  if (w.cls < 0) {
    nb->what_if = true;
    nb->plan_dtype = w.dtype;
  } else {
    nb->what_if_recipe = true;
    nb->recipe_class = (OpClass)w.cls;
    nb->recipe_dtype = w.dtype;
  }
  int errors = diags->nerrors;
  int first = diags->n;
  Unit *u = sema_analyze(a, an->tree.program, nb, diags);
  for (int i = first; i < diags->n; i++)
    diag_note(diags->items[i], LOC_NONE, "with %s%s from --dtype",
              w.cls < 0 ? "the plan dtype " : "", whatif_label(a, w));
  if (!u || diags->nerrors > errors) return NULL;
  /* Same program, same statements: the graph has the same nodes. */
  for (int mi = 0; mi < u->nmodels; mi++)
    if (u->models[mi].nnodes != an->unit->models[mi].nnodes) return NULL;
  return u;
}

static const char *speedup_text(Arena *a, double base, double t) {
  if (t <= 0 || base <= 0) return "-";
  char num[NB];
  return arena_printf(a, "%sx", fmt_fixed(num, sizeof num, base / t, 2));
}

/* One model's plans side by side: the plan as written (costs[0]) and one
 * column per --dtype; row, a scratch row of n + 2 cells. */
typedef struct WhatIfView {
  Arena *a;
  const Model *m;
  ModelCost *const *costs;
  const WhatIf *dtypes;
  int n;
  const char *align;
  const char **row;
} WhatIfView;

/* A kernel table's heading: "kernel", then each plan's dtype. */
static Table kernel_table(const WhatIfView *v) {
  Table t = {.ncols = v->n + 2, .align = v->align};
  v->row[0] = "kernel";
  v->row[1] = dtype_str(v->m->dtype);
  for (int j = 0; j < v->n; j++) v->row[j + 2] = whatif_label(v->a, v->dtypes[j]);
  table_add(&t, v->row);
  return t;
}

static void whatif_totals(FILE *out, const WhatIfView *v) {
  Arena *a = v->a;
  const char **row = v->row;
  const ModelCost *base = v->costs[0];
  Table t = {.ncols = v->n + 2, .align = v->align};
  row[0] = "";
  row[1] = arena_printf(a, "%s (as written)", plan_label(a, v->m));
  for (int j = 0; j < v->n; j++) row[j + 2] = whatif_label(a, v->dtypes[j]);
  table_add(&t, row);
  static const char *const labels[] = {"step time", "speed-up", "FLOPs",
                                       "bytes", "memory-bound", "footprint"};
  for (size_t r = 0; r < sizeof labels / sizeof *labels; r++) {
    row[0] = labels[r];
    for (int j = 0; j <= v->n; j++) {
      const ModelCost *c = v->costs[j];
      char buf[NB];
      switch (r) {
      case 0: row[j + 1] = arena_printf(a, ">= %s", fmt_time(buf, NB, cost_step_time(c))); break;
      case 1: row[j + 1] = speedup_text(a, cost_step_time(base), cost_step_time(c)); break;
      case 2: row[j + 1] = arena_strdup(a, fmt_flop(buf, NB, c->flops)); break;
      case 3: row[j + 1] = arena_strdup(a, fmt_bytes(buf, NB, c->bytes)); break;
      case 4:
        row[j + 1] = arena_strdup(
            a, fmt_percent(buf, NB, share(c->memory_bound_time, c->time_s), 1));
        break;
      default: row[j + 1] = arena_strdup(a, fmt_bytes(buf, NB, c->footprint.total)); break;
      }
    }
    table_add(&t, row);
  }
  table_print(out, &t, "  ");
}

/* Kernels line up by their first node: the same program makes the same
 * graph, though a cast may be a kernel in one plan and a no-op in another
 * (cast(x, fp32) under an fp32 plan): "-" there. */
static void whatif_bounds(FILE *out, const WhatIfView *v) {
  const ModelCost *base = v->costs[0];
  const char **row = v->row;
  Table bt = kernel_table(v);
  int changed = 0;
  for (int k = 0; k < base->nkernels; k++) {
    Kernel bk = cost_kernel(base, k), tw;
    bool differs = false;
    for (int j = 1; j <= v->n; j++)
      differs |= (twin(v->costs[j], base, k, &tw) ? tw.bound : BOUND_NONE) != bk.bound;
    if (!differs) continue;
    row[0] = kernel_label(v->a, v->m, &bk);
    for (int j = 0; j <= v->n; j++)
      row[j + 1] = twin(v->costs[j], base, k, &tw) ? bound_str(tw.bound) : "-";
    table_add(&bt, row);
    changed++;
  }
  fprintf(out, "\nkernels whose bound changes\n");
  if (changed) {
    table_print(out, &bt, "  ");
  } else {
    fprintf(out, "  none\n");
    table_free(&bt);
  }
}

/* The first WHATIF_SLOWEST of the kernels in descending time, ties in
 * kernel order (a stable sort's first rows), by one pass that keeps them
 * sorted: sorting a million kernels for five rows was quadratic. */
static int slowest_kernels(const ModelCost *base, int *order) {
  double key[WHATIF_SLOWEST];
  int nk = 0;
  for (int k = 0; k < base->nkernels; k++) {
    Kernel x = cost_kernel(base, k);
    double step = x.time_s * x.count;
    if (nk == WHATIF_SLOWEST && !(step > key[nk - 1])) continue;
    int at = nk < WHATIF_SLOWEST ? nk++ : nk - 1;
    for (; at > 0 && step > key[at - 1]; at--) {
      order[at] = order[at - 1];
      key[at] = key[at - 1];
    }
    order[at] = k;
    key[at] = step;
  }
  return nk;
}

/* The slowest kernels of the plan as written, per plan (the seed's decode
 * matmuls: memory-bound either way, faster by the ratio of bytes). */
static void whatif_slowest(FILE *out, const WhatIfView *v) {
  const ModelCost *base = v->costs[0];
  const char **row = v->row;
  int order[WHATIF_SLOWEST];
  int nk = slowest_kernels(base, order);
  Table st = kernel_table(v);
  for (int i = 0; i < nk; i++) {
    int k = order[i];
    Kernel bk = cost_kernel(base, k);
    row[0] = kernel_label(v->a, v->m, &bk);
    for (int j = 0; j <= v->n; j++) {
      char buf[NB];
      Kernel kk;
      if (!twin(v->costs[j], base, k, &kk)) {
        row[j + 1] = "-";
        continue;
      }
      row[j + 1] = arena_printf(v->a, "%s %s", fmt_time(buf, NB, kk.time_s * kk.count),
                                bound_str(kk.bound));
    }
    table_add(&st, row);
  }
  fprintf(out, "\nslowest kernels (time per %s, bound)\n",
          cost_per_microbatch(base) ? "microbatch" : "step");
  table_print(out, &st, "  ");
}

/* R-PLAN-004: totals, bound changes and the slowest kernels, the plan as
 * written first, then one column per --dtype. */
static void whatif_model(FILE *out, Arena *a, const SourceSet *ss,
                         const Model *m, ModelCost *const *costs,
                         const WhatIf *dtypes, int n) {
  model_header(out, m, costs[0], ss, "what if the plan dtype were ...");
  int ncols = n + 2;
  char *align = arena_alloc(a, (size_t)ncols + 1);
  memset(align, 'r', (size_t)ncols);
  align[0] = 'l';
  WhatIfView v = {a, m, costs, dtypes, n, align,
                  arena_alloc(a, (size_t)ncols * sizeof *v.row)};
  whatif_totals(out, &v);
  whatif_bounds(out, &v);
  whatif_slowest(out, &v);
}

int plan_whatif(FILE *out, Arena *a, const SourceSet *ss, const Analysis *an,
                const Bindings *b, const WhatIf *dtypes, int ndtypes,
                DiagSink *diags) {
  if (!an || !an->unit || ndtypes <= 0) return 0;
  const Unit **units = arena_alloc(a, (size_t)ndtypes * sizeof *units);
  int status = 0;
  for (int j = 0; j < ndtypes; j++) {
    units[j] = rerun(a, an, b, dtypes[j], diags);
    if (!units[j]) status = 1;
  }
  if (status) return status;
  const Target *t = an->targets[0];
  for (int mi = 0; mi < an->unit->nmodels; mi++) {
    ModelCost **costs = arena_alloc(a, (size_t)(ndtypes + 1) * sizeof *costs);
    costs[0] = an->costs[mi * an->ntargets];
    for (int j = 0; j < ndtypes; j++)
      costs[j + 1] = cost_model(a, &units[j]->models[mi], t);
    if (mi > 0) fputc('\n', out);
    whatif_model(out, a, ss, &an->unit->models[mi], costs, dtypes, ndtypes);
  }
  return 0;
}
