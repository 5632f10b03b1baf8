/* SPDX-License-Identifier: MIT */
/*
 * checks.c: the check registry and what the checks share.  Each check is
 * one file of src/checks/ defining its CheckDesc (name, default severity,
 * one-line summary, --explain text, thresholds, the function); the registry
 * lists them (CHECKS_LIST in checks/checks.h).  checks_run() runs every
 * row on one model: policy (-W, -Wno-, -Werror, -w, `# rooflint:
 * ignore[...]`) is applied afterwards by diag_apply_policy(), so a check
 * simply reports under its own name.
 *
 * The shared analysis (CheckShared) holds what one check needs to know of
 * another: which nodes memory-bound reports, which kernels are
 * low-occupancy.  It is one pass over the graph; a check adds its part
 * through the hooks of its CheckDesc (CheckHooks), written in its own file,
 * and the others read the fields.
 * The shared notion of "a node that matters" lives here too: a
 * performance finding about a node that takes less than the launch
 * overhead, or less than CHECK_MIN_STEP_PCT of the step, is noise
 * (overhead-bound speaks for the former).
 */
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"

#define CHECKS_ROW(name) &check_##name,
static const CheckDesc *const registry[] = {CHECKS_LIST(CHECKS_ROW)};
#undef CHECKS_ROW

#define NCHECKS ((int)(sizeof registry / sizeof registry[0]))

const CheckDesc *const *check_registry(int *n) {
  *n = NCHECKS;
  return registry;
}

const Program *checks_program(const CheckCtx *ctx) {
  return ctx->tree ? parse_again(ctx->tree) : NULL;
}

const CheckDesc *check_lookup(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NCHECKS; i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

/* requires: a graph from sema without errors and its cost on ctx->target.
 * What several checks need is found once, before the first of them. */
void checks_run(const CheckCtx *ctx) {
  if (!ctx->model || !ctx->cost || !ctx->target) return;
  CheckShared sh;
  checks_shared_init(ctx, &sh);
  CheckCtx with = *ctx;
  with.shared = &sh;
  for (int i = 0; i < NCHECKS; i++) registry[i]->run(&with);
  checks_shared_free(&sh);
}

/* ------------------------------------------------------------------ */
/* Shared helpers.                                                      */
/* ------------------------------------------------------------------ */

Diag *checks_report(const CheckCtx *ctx, const char *check, Loc loc,
                    const char *fmt, ...) {
  const CheckDesc *d = check_lookup(check);
  if (!d) die("checks_report: unregistered check '%s'", check);
  va_list ap;
  va_start(ap, fmt);
  Diag *r = diag_vreport(ctx->diags, d->severity, d->name, loc, fmt, ap);
  va_end(ap);
  r->off_by_default = !d->default_on;
  return r;
}

bool checks_node_matters(const CheckCtx *ctx, int node) {
  const GNode *g = &ctx->model->nodes[node];
  const NodeCost *c = &ctx->cost->nodes[node];
  if (!g->op || g->op->cls == OC_VIEW || c->bound == BOUND_NONE) return false;
  if (c->time_s <= 0 || c->time_s < ctx->target->launch_overhead) return false;
  double step = ctx->cost->time_s;
  return step <= 0 || c->time_s * g->count >= step * CHECK_MIN_STEP_PCT / 100.0;
}

const char *checks_per_step(char *buf, size_t n, double count) {
  if (count == 1) {
    if (n) buf[0] = '\0';
    return buf;
  }
  char num[48];
  if (count < 1e6 && count == (double)(int64_t)count)
    snprintf(num, sizeof num, "%lld", (long long)count);
  else
    snprintf(num, sizeof num, "%.3g", count); /* "1e+18" */
  snprintf(buf, n, " (x%s per step)", num);
  return buf;
}

/* Messages name the part, not the vendor: "H100 SXM" (README "Checks"). */
const char *checks_target_name(const Target *t) {
  static const char *const vendors[] = {"NVIDIA ", "AMD ", "Intel ", "Google "};
  if (!t->display || !*t->display) return t->name ? t->name : "the target";
  for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
    size_t n = strlen(vendors[i]);
    if (strncmp(t->display, vendors[i], n) == 0 && t->display[n])
      return t->display + n;
  }
  return t->display;
}

const char *checks_op_name(const GNode *g) {
  return g->op ? g->op->name : role_str(g->role);
}

/* The block of a statement that holds others (not `parallel`: its
 * entries are settings, never the subject of a fix-it). */
static const Block *body_of(const Stmt *s) {
  switch (s->kind) {
  case ST_MODEL:
  case ST_FUSED:
  case ST_CHECKPOINT:
  case ST_TARGET_DEF:
  case ST_SECTION:
    return &s->def.body;
  case ST_REPEAT:
  case ST_LOOP:
  case ST_EXPERTS:
    return &s->loop.body;
  default:
    return NULL;
  }
}

/* The last statement of b starting at or before `start`, or -1.  Slots
 * left NULL are stepped over. */
static int last_at_or_before(const Block *b, uint32_t start) {
  int lo = 0, hi = b->n - 1, best = -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, k = mid;
    while (k >= lo && !b->items[k]) k--;
    if (k < lo) {
      lo = mid + 1;
    } else if (b->items[k]->loc.start <= start) {
      best = k;
      lo = mid + 1;
    } else {
      hi = k - 1;
    }
  }
  return best;
}

bool checks_stmt_find(const Program *p, uint32_t start, StmtRef *out) {
  bool found = false;
  const Stmt *parent = NULL;
  /* Siblings do not overlap, so only the last one starting at or before
   * `start` can hold it; a match deeper down is the innermost. */
  for (const Block *b = p ? &p->top : NULL; b;) {
    int i = last_at_or_before(b, start);
    if (i < 0) break;
    const Stmt *s = b->items[i];
    if (s->loc.start == start) {
      *out = (StmtRef){s, b, i, parent};
      found = true;
    } else if (start >= s->loc.end) {
      break;
    }
    parent = s;
    b = body_of(s);
  }
  return found;
}

/* g reads a node of its own fused region. */
static bool reads_region(const Model *m, const GNode *g) {
  for (int j = 0; j < g->ninputs; j++)
    if (m->nodes[g->inputs[j]].region == g->region) return true;
  return false;
}

/* A fused region's contractions that read only the region's inputs run
 * side by side (a merged qkv or gate/up GEMM: one GEMM over the
 * concatenated weights), so their tiles add up; the other members work on
 * tiles their producers made, so the region has at least its largest
 * member's blocks.  Node i is a member of the kernel whose entry is slot:
 * b, side and at are per entry. */
static void add_member(const CheckCtx *ctx, int i, int slot, double *b,
                       double *side, int *at) {
  const GNode *g = &ctx->model->nodes[i];
  /* An opaque op states FLOPs and bytes, not its launch shape: the cost
   * model's guess from the output size is no ground for a finding. */
  if (g->op && g->op->cls == OC_OPAQUE && g->args->blocks <= 0) return;
  double nb = ctx->cost->nodes[i].blocks;
  if (g->region >= 0 && g->op && g->op->cls == OC_CONTRACTION &&
      !reads_region(ctx->model, g))
    side[slot] += nb;
  if (nb > b[slot]) {
    b[slot] = nb;
    at[slot] = i;
  }
}

void checks_kernel_blocks(const CheckCtx *ctx, double **blocks, int **node) {
  const ModelCost *c = ctx->cost;
  int nk = c->nkernels;
  double *b = arena_alloc(ctx->arena, (size_t)(nk + 1) * sizeof *b);
  double *side = xcalloc((size_t)nk + 1, sizeof *side);
  int *at = arena_alloc(ctx->arena, (size_t)(nk + 1) * sizeof *at);
  for (int k = 0; k < nk; k++) at[k] = c->kernel_node[k];
  for (int i = 0; i < ctx->model->nnodes; i++) {
    int k = c->nodes[i].kernel;
    if (k >= 0 && k < nk) add_member(ctx, i, k, b, side, at);
  }
  for (int k = 0; k < nk; k++)
    if (side[k] > b[k]) b[k] = side[k];
  free(side);
  *blocks = b;
  *node = at;
}

void checks_push_int(int **v, int *n, int *cap, int x) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    *v = xrealloc(*v, (size_t)*cap * sizeof **v);
  }
  (*v)[(*n)++] = x;
}

/* The kernels that matter, with their per-entry arrays, grown together. */
typedef struct KernelList {
  int cap;
  double *side; /* per entry: the blocks of its side-by-side contractions */
} KernelList;

static void push_kernel(CheckShared *sh, KernelList *kl, int k, int at) {
  if (sh->nkernels == kl->cap) {
    kl->cap = kl->cap ? 2 * kl->cap : 16;
    size_t n = (size_t)kl->cap;
    sh->kernels = xrealloc(sh->kernels, n * sizeof *sh->kernels);
    sh->blocks = xrealloc(sh->blocks, n * sizeof *sh->blocks);
    sh->at = xrealloc(sh->at, n * sizeof *sh->at);
    sh->memory_bound = xrealloc(sh->memory_bound, n * sizeof *sh->memory_bound);
    sh->low_occupancy =
        xrealloc(sh->low_occupancy, n * sizeof *sh->low_occupancy);
    kl->side = xrealloc(kl->side, n * sizeof *kl->side);
  }
  int q = sh->nkernels++;
  sh->kernels[q] = k;
  sh->blocks[q] = 0;
  sh->at[q] = at;
  sh->memory_bound[q] = false;
  sh->low_occupancy[q] = false;
  kl->side[q] = 0;
}

static bool kernel_matters(const CheckCtx *ctx, const Kernel *k) {
  if (k->bound != BOUND_MEMORY && k->bound != BOUND_COMPUTE) return false;
  if (k->time_s <= 0 || k->time_s < ctx->target->launch_overhead) return false;
  double step = ctx->cost->time_s;
  return step <= 0 || k->time_s * k->count >= step * CHECK_MIN_STEP_PCT / 100.0;
}

/* The registered checks' hooks, gathered for one pass. */
typedef struct Hooks {
  const CheckHooks *h[NCHECKS];
  int n;
} Hooks;

/* Kernel k, met for the first time: the list if it matters, and the
 * checks' kernel hooks (in kernel order). */
static void meet_kernel(const CheckCtx *ctx, CheckShared *sh, KernelList *kl,
                        const Hooks *hk, int k) {
  Kernel kn = cost_kernel(ctx->cost, k);
  for (int j = 0; j < hk->n; j++)
    if (hk->h[j]->kernel) hk->h[j]->kernel(ctx, sh, k, &kn);
  if (kernel_matters(ctx, &kn))
    push_kernel(sh, kl, k, ctx->cost->kernel_node[k]);
}

/* One pass over the nodes, which meets every kernel in order (a kernel is
 * numbered at its first node): no per-node array, only the short lists of
 * what matters, and no second pass over the kernels' figures. */
void checks_shared_init(const CheckCtx *ctx, CheckShared *sh) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  *sh = (CheckShared){.first_small = -1};
  Hooks hk = {.n = 0}, nodes = {.n = 0};
  for (int r = 0; r < NCHECKS; r++) {
    const CheckHooks *h = registry[r]->hooks;
    if (h) hk.h[hk.n++] = h;
    if (h && h->node) nodes.h[nodes.n++] = h;
  }
  KernelList kl = {0, NULL};
  int cap = 0, next_k = 0;
  int last_k = -1, slot = -1, cap_transfers = 0;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->op && g->op->cls == OC_TRANSFER && g->scope >= 0)
      checks_push_int(&sh->transfers, &sh->ntransfers, &cap_transfers, i);
    bool matters = checks_node_matters(ctx, i);
    if (matters) checks_push_int(&sh->nodes, &sh->nnodes, &cap, i);
    int before = sh->nmembound;
    for (int j = 0; j < nodes.n; j++) nodes.h[j]->node(ctx, sh, i, matters);
    bool membound = sh->nmembound > before; /* memory-bound took node i */
    int k = c->nodes[i].kernel;
    if (k < 0 || k >= c->nkernels) continue;
    while (next_k <= k) meet_kernel(ctx, sh, &kl, &hk, next_k++);
    if (k != last_k) { /* a region's members share one look-up */
      last_k = k;
      int nk = sh->nkernels;
      slot = nk > 0 && sh->kernels[nk - 1] == k ? nk - 1
                                                 : checks_shared_kernel(sh, k);
    }
    if (slot < 0) continue;
    add_member(ctx, i, slot, sh->blocks, kl.side, sh->at);
    if (membound) sh->memory_bound[slot] = true;
  }
  while (next_k < c->nkernels) meet_kernel(ctx, sh, &kl, &hk, next_k++);
  for (int q = 0; q < sh->nkernels; q++)
    if (kl.side[q] > sh->blocks[q]) sh->blocks[q] = kl.side[q];
  free(kl.side);
  for (int j = 0; j < hk.n; j++)
    if (hk.h[j]->done) hk.h[j]->done(ctx, sh);
}

void checks_shared_free(CheckShared *sh) {
  free(sh->nodes);
  free(sh->kernels);
  free(sh->blocks);
  free(sh->at);
  free(sh->memory_bound);
  free(sh->low_occupancy);
  free(sh->membound);
  free(sh->transfers);
  *sh = (CheckShared){0};
}

CheckShared *checks_shared_begin(const CheckCtx *ctx, CheckShared *own) {
  if (ctx->shared) return ctx->shared;
  checks_shared_init(ctx, own);
  return own;
}

void checks_shared_end(CheckShared *sh, CheckShared *own) {
  if (sh == own) checks_shared_free(own);
}

void checks_each_shared_kernel(const CheckCtx *ctx, SharedKernelVisit visit) {
  if (ctx->target->sms <= 1 || ctx->cost->nkernels == 0) return;
  CheckShared own, *sh = checks_shared_begin(ctx, &own);
  for (int q = 0; q < sh->nkernels; q++) visit(ctx, sh, q);
  checks_shared_end(sh, &own);
}

int checks_shared_kernel(const CheckShared *sh, int k) {
  int lo = 0, hi = sh->nkernels - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (sh->kernels[mid] == k) return mid;
    if (sh->kernels[mid] < k)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

bool checks_kernel_matters(const CheckCtx *ctx, int kernel) {
  Kernel k = cost_kernel(ctx->cost, kernel);
  return kernel_matters(ctx, &k);
}

const char *checks_kernel_name(const CheckCtx *ctx, int kernel, char *buf,
                               size_t n) {
  Kernel k = cost_kernel(ctx->cost, kernel);
  const char *name = cost_kernel_name(ctx->model, &k);
  if (k.region >= 0 && k.region < ctx->model->nregions)
    snprintf(buf, n, "fused region '%s'", name);
  else
    snprintf(buf, n, "%s '%s'", checks_op_name(&ctx->model->nodes[k.first_node]), name);
  return buf;
}

Loc checks_kernel_loc(const CheckCtx *ctx, int kernel) {
  Kernel k = cost_kernel(ctx->cost, kernel);
  return cost_kernel_loc(ctx->model, &k);
}

/* ---- re-analysis with a let changed (memory-bound, capacity) ---- */

/* The walks below keep a stack, not the C stack: a tree is as deep as
 * the user wrote it. */
typedef struct PtrStack {
  const void **v;
  int n, cap;
} PtrStack;

static void push_ptr(PtrStack *s, const void *p) {
  if (!p) return;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->v = xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
  }
  s->v[s->n++] = p;
}

/* Marks in used[] (by name id) every name e refers to. */
static void mark_names(const Expr *e, bool *used, int nnames) {
  PtrStack st = {0};
  push_ptr(&st, e);
  while (st.n > 0) {
    const Expr *x = st.v[--st.n];
    switch (x->kind) {
    case EX_NAME:
      if (x->name.id >= 0 && x->name.id < nnames) used[x->name.id] = true;
      break;
    case EX_BINARY:
      push_ptr(&st, x->bin.lhs);
      push_ptr(&st, x->bin.rhs);
      break;
    case EX_UNARY: push_ptr(&st, x->un.operand); break;
    case EX_CALL:
      for (int i = 0; i < x->call.nargs; i++) push_ptr(&st, x->call.args[i].value);
      break;
    case EX_LIST:
      for (int i = 0; i < x->list.n; i++) push_ptr(&st, x->list.items[i]);
      break;
    case EX_TYPE:
      for (int i = 0; i < x->type.ndims; i++) push_ptr(&st, x->type.dims[i]);
      break;
    default: break;
    }
  }
  free(st.v);
}

/* Marks every name the statements of b (and the blocks inside) refer to. */
static void mark_block(const Block *b, bool *used, int nnames) {
  PtrStack blocks = {0};
  push_ptr(&blocks, b);
  while (blocks.n > 0) {
    const Block *blk = blocks.v[--blocks.n];
    for (int i = 0; i < blk->n; i++) {
      const Stmt *st = blk->items[i];
      const Expr *e = NULL;
      if (!st) continue;
      switch (st->kind) {
      case ST_LET: e = st->let.value; break;
      case ST_DECL: e = st->decl.type; break;
      case ST_ASSIGN: e = st->assign.value; break;
      case ST_UNPACK: e = st->unpack.value; break;
      case ST_OUTPUT:
        for (int k = 0; k < st->output.nnames; k++) {
          int id = st->output.names[k].id;
          if (id >= 0 && id < nnames) used[id] = true;
        }
        break;
      case ST_EXPERTS:
        mark_names(st->experts.top, used, nnames);
        for (int k = 0; k < st->experts.nopts; k++)
          mark_names(st->experts.opts[k].value, used, nnames);
        e = st->loop.count;
        push_ptr(&blocks, &st->loop.body);
        break;
      case ST_REPEAT:
      case ST_LOOP:
        e = st->loop.count;
        push_ptr(&blocks, &st->loop.body);
        break;
      case ST_FUSED:
      case ST_CHECKPOINT:
      case ST_MODEL: push_ptr(&blocks, &st->def.body); break;
      case ST_PARALLEL: push_ptr(&blocks, &st->parallel); break;
      default: break;
      }
      if (e) mark_names(e, used, nnames);
    }
  }
  free(blocks.v);
}

void checks_mark_stmt(const Stmt *st, bool *used, int nnames) {
  Block one = {.items = (Stmt **)&st, .n = 1};
  mark_block(&one, used, nnames);
}

/* The top-level lets with sema's values, xmalloc'd (the caller frees
 * them).  A let is `used` when model `model` refers to it, or a used let
 * does: a let reads only the lets above it, so one pass from the last let
 * up closes the set.  Only those can move the model's figures, so *sub is
 * the program cut to them and the model, in source order (sub->top.items
 * is xmalloc'd): a re-analysis costs that model and its lets alone. */
CheckLet *checks_lets(const CheckCtx *ctx, int model, int *n,
                             Program *sub) {
  const Unit *u = ctx->unit;
  const Program *p = checks_program(ctx);
  const Block *top = &p->top;
  CheckLet *lets = xmalloc(((size_t)u->nlets + 1) * sizeof *lets);
  for (int i = 0; i < u->nlets; i++) {
    const LetDef *d = &u->lets[i];
    const LetValue *v = &d->value;
    lets[i] = (CheckLet){d->name, d->loc, d->ok, !v->is_real, false,
                        v->is_real ? v->r : (double)v->i};
  }
  bool *used = xcalloc((size_t)p->nnames + 1, sizeof *used);
  int at = -1;
  for (int i = 0, k = 0; i < top->n && at < 0; i++) {
    const Stmt *st = top->items[i];
    if (st && st->kind == ST_MODEL && k++ == model) at = i;
  }
  if (at >= 0) {
    Block one = {.items = (Stmt **)&top->items[at], .n = 1};
    mark_block(&one, used, p->nnames);
  }
  for (int i = top->n - 1, k = u->nlets - 1; i >= 0; i--) {
    const Stmt *st = top->items[i];
    if (!st || st->kind != ST_LET) continue;
    int id = st->let.name.id;
    bool on = id >= 0 && id < p->nnames && used[id];
    /* The unit's lets are the file's, in order (sema saw no error). */
    if (k >= 0 && strcmp(lets[k].name, st->let.name.name) == 0)
      lets[k--].used = on;
    if (on && st->let.value) mark_names(st->let.value, used, p->nnames);
  }
  *sub = (Program){p->file, {0}, 0, p->nnames, p->names};
  sub->top.items = xmalloc(((size_t)u->nlets + 2) * sizeof *sub->top.items);
  for (int i = 0; i < top->n; i++) {
    Stmt *st = top->items[i];
    if (i == at || (st && st->kind == ST_LET && st->let.name.id >= 0 &&
                    st->let.name.id < p->nnames && used[st->let.name.id]))
      sub->top.items[sub->top.n++] = st;
  }
  free(used);
  *n = u->nlets;
  return lets;
}

/* The analysis is pure in (program, bindings, target): the same sema and
 * cost as the first run, on `sub`, with one let overridden. */
const ModelCost *checks_rerun(const CheckCtx *ctx, const Program *sub, Arena *a,
                              const char *name, int64_t v) {
  return checks_rerun_sized(ctx, sub, a, name, v, ctx->model->nnodes);
}

const ModelCost *checks_rerun_sized(const CheckCtx *ctx, const Program *sub,
                                    Arena *a, const char *name, int64_t v,
                                    int nnodes) {
  Bindings *b = bindings_with(
      a, ctx->bindings, &(LetOverride){name, {false, v, (double)v}, false, NULL});
  DiagSink sink;
  diag_sink_init(&sink);
  const ModelCost *c = NULL;
  Unit *u = sema_analyze(a, sub, b, &sink);
  if (u && sink.nerrors == 0 && u->nmodels == 1 &&
      (nnodes < 0 || u->models[0].nnodes == nnodes))
    c = cost_model(a, &u->models[0], ctx->target);
  diag_sink_free(&sink);
  return c;
}

/* The whole model again (its graph may change: a tensor degree adds
 * collectives), on target t: the importer's text made again for an
 * imported file, else sema and cost of the program cut to the model with
 * the nadd lets of `add` overridden, each one the model uses. */
const ModelCost *checks_rerun_as(const CheckCtx *ctx, Arena *a,
                                 const LetOverride *add, int nadd,
                                 const Target *t) {
  if (ctx->reimport) return ctx->reimport(ctx, a, add, nadd, t);
  int mi = ctx->unit ? (int)(ctx->model - ctx->unit->models) : -1;
  if (mi < 0 || !checks_program(ctx)) return NULL;
  int nlets = 0;
  Program sub = {0};
  CheckLet *lets = checks_lets(ctx, mi, &nlets, &sub);
  int named = 0;
  Bindings *b = ctx->bindings;
  for (int k = 0; k < nadd; k++) {
    for (int i = 0; i < nlets; i++)
      if (lets[i].used && strcmp(lets[i].name, add[k].name) == 0) {
        named++;
        break;
      }
    b = bindings_with(a, b, &add[k]);
  }
  const ModelCost *c = NULL;
  if (named == nadd) {
    DiagSink sink;
    diag_sink_init(&sink);
    Unit *u = sema_analyze(a, &sub, b, &sink);
    if (u && sink.nerrors == 0 && u->nmodels == 1)
      c = cost_model(a, &u->models[0], t);
    diag_sink_free(&sink);
  }
  free(sub.top.items);
  free(lets);
  return c;
}
