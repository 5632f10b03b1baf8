/* SPDX-License-Identifier: MIT */
/*
 * capacity.c: the capacity check.  A footprint (weights, gradients and
 * optimizer state in train mode, the largest set of live activations) over
 * the target's memory means the step cannot run at all, so this check is an
 * error by default.  The message breaks the footprint down by part; a note
 * points at the largest weight, the usual thing to shrink or shard.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* One part of the footprint per GPU, after sharding (R-CHK-080): a row
 * per part, so a new part is one more row. */
typedef struct Part {
  const char *name;
  const char *key; /* its figure in JSON and SARIF */
  double bytes;
  int64_t shards; /* ZeRO's divisor (R-PAR-004); <= 1: not sharded */
  bool figure;    /* always a figure, even when 0 */
} Part;

static int footprint_parts(const Footprint *f, Part *out) {
  int n = 0;
  out[n++] = (Part){"weights", "weights", f->weights, f->weight_shards, true};
  out[n++] = (Part){"gradients", "gradients", f->gradients, f->gradient_shards, true};
  out[n++] = (Part){"optimizer", "optimizer", f->optimizer, f->optimizer_shards, true};
  out[n++] = (Part){"activations", "activations", f->activations, 1, true};
  out[n++] = (Part){"buffers", "buffers", f->buffers, 1, false};
  out[n++] = (Part){footprint_cache_name(f), "kv_cache", f->kv_cache, 1, false};
  out[n++] = (Part){"gathered", "gathered", f->gathered, 1, false}; /* R-PAR-013 */
  return n;
}


/* R-CACHE-003: the largest batch search, bounded like memory-bound's
 * crossover search: doubling then bisection, each at most 20 steps. */
#define CHECK_FITS_LIMIT 1048576 /* capacity: let search bound, 2^20 */

typedef struct FitSearch {
  const CheckCtx *ctx;
  const Program *sub;
  const char *name;
} FitSearch;

/* The part of the footprint a serving plan's batch sizes, its KV cache,
 * or a training plan's, its activations (R-CHK-084). */
static double sized_part(const Model *m, const Footprint *f) {
  return m->train ? f->activations : f->kv_cache;
}

/* The footprint at name = v, or -1 when the analysis fails there; its
 * sized_part in *kv and the parameter count in *params. */
static double footprint_at(const FitSearch *fs, int64_t v, double *kv,
                           double *params) {
  Arena *a = arena_new();
  const ModelCost *c = checks_rerun(fs->ctx, fs->sub, a, fs->name, v);
  double total = c ? c->footprint.total : -1;
  if (c && kv) *kv = sized_part(c->model, &c->footprint);
  if (c && params) *params = c->params;
  arena_free(a);
  return total;
}

/* The largest v in [1, CHECK_FITS_LIMIT] whose footprint fits, given the
 * footprint `now` at v0 (monotone in v: a batch or a context length):
 * 0 when none does, -1 when the search cannot say (an analysis failed). */
static int64_t largest_fit(const FitSearch *fs, int64_t v0, double now,
                           double mem) {
  int64_t lo, hi; /* fits at lo (0: nothing known to fit), not at hi */
  if (now <= mem) {
    lo = v0;
    hi = -1;
    for (int64_t v = 2 * v0; v <= CHECK_FITS_LIMIT && hi < 0; v *= 2) {
      double f = footprint_at(fs, v, NULL, NULL);
      if (f < 0) return -1;
      if (f <= mem) lo = v;
      else hi = v;
    }
    if (hi < 0) return lo; /* fits up to the bound */
  } else {
    lo = 0;
    hi = v0;
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    double f = footprint_at(fs, mid, NULL, NULL);
    if (f < 0) return -1;
    if (f <= mem) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The let the model's `parallel { KEY = NAME }` names; NULL: none. */
static const char *tree_parallel_let(const CheckCtx *ctx, const char *key) {
  const Program *p = checks_program(ctx);
  int mi = ctx->unit ? (int)(ctx->model - ctx->unit->models) : -1;
  for (int i = 0, k = 0; p && mi >= 0 && i < p->top.n; i++) {
    const Stmt *st = p->top.items[i];
    if (!st || st->kind != ST_MODEL || k++ != mi) continue;
    for (int j = 0; j < st->def.body.n; j++) {
      const Stmt *par = st->def.body.items[j];
      if (!par || par->kind != ST_PARALLEL) continue;
      for (int q = 0; q < par->parallel.n; q++) {
        const Stmt *kv = par->parallel.items[q];
        const Expr *v = kv && kv->kind == ST_ASSIGN ? kv->assign.value : NULL;
        if (v && v->kind == EX_NAME && v->name.id >= 0 && v->name.id < p->nnames &&
            strcmp(kv->assign.name.name, key) == 0)
          return p->names[v->name.id];
      }
    }
    return NULL;
  }
  return NULL;
}

/* tree_parallel_let, or for an imported file KEY, the -D its importer
 * reads. */
static const char *parallel_let(const CheckCtx *ctx, const char *key) {
  return ctx->reimport ? key : tree_parallel_let(ctx, key);
}

/* Whether a let is the plan's: one a parallel key names (a degree sizes
 * what each GPU holds, but it is the plan, not the workload). */
static bool plan_let(const CheckCtx *ctx, const char *name) {
  for (int k = 0; k < parallel_nkeys; k++) {
    const char *l = tree_parallel_let(ctx, parallel_keys[k].name);
    if (l && strcmp(l, name) == 0) return true;
  }
  return false;
}

/* R-CACHE-003: the let a serving plan's questions are about, the first
 * that sizes the KV cache (in the file's order: an integer whose doubling
 * changes the KV cache and leaves the parameters alone, a batch or a
 * context length): its index in lets, -1 when none; moves[i] for every
 * let that sizes the cache. */
static int cache_let(const CheckCtx *ctx, const Program *sub,
                     const CheckLet *lets, int nlets, bool *moves) {
  int first = -1;
  for (int i = 0; i < nlets; i++) {
    const CheckLet *l = &lets[i];
    if (!l->used || !l->ok || !l->is_int || l->v < 1 ||
        l->v > CHECK_FITS_LIMIT / 2 || plan_let(ctx, l->name))
      continue;
    FitSearch fs = {ctx, sub, l->name};
    double kv = 0, params = 0;
    double f = footprint_at(&fs, 2 * (int64_t)l->v, &kv, &params);
    moves[i] = f >= 0 && kv != sized_part(ctx->model, &ctx->cost->footprint) &&
               params == ctx->cost->params;
    if (moves[i] && first < 0) first = i;
  }
  return first;
}

/* The unit's lets, the program cut to the model, and cache_let's answer:
 * what both serving questions start from (free with cache_lets_free). */
typedef struct CacheLets {
  CheckLet *lets;
  int nlets;
  Program sub;
  bool *moves;
  int first; /* -1: no let sizes the cache */
} CacheLets;

static void cache_lets_init(const CheckCtx *ctx, int mi, CacheLets *cl) {
  cl->nlets = 0;
  cl->sub = (Program){0};
  cl->lets = checks_lets(ctx, mi, &cl->nlets, &cl->sub);
  cl->moves = xcalloc((size_t)cl->nlets + 1, sizeof *cl->moves);
  cl->first = cache_let(ctx, &cl->sub, cl->lets, cl->nlets, cl->moves);
}

static void cache_lets_free(CacheLets *cl) {
  free(cl->moves);
  free(cl->sub.top.items);
  free(cl->lets);
}

/* " at S = 4096, T = 2": the other lets that size the cache, as they are. */
static void other_lets(StrBuf *at, const CheckLet *lets, int nlets,
                       const bool *moves, int first) {
  for (int i = 0; i < nlets; i++)
    if (moves[i] && i != first)
      sb_printf(at, "%s %s = %lld", at->len ? "," : " at", lets[i].name,
                (long long)lets[i].v);
}

/* Where the capacity diagnostic goes (R-DIAG-001): the model's name in
 * .roof text; in an imported file its `dtype` line, when the importer
 * wrote one, which is placed at the key a user changes first to fit
 * (a config.json's torch_dtype), not at the family's key. */
static Loc capacity_loc(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const SourceFile *f = ctx->sources ? src_file(ctx->sources, m->file) : NULL;
  if (f && f->imported && m->dtype_loc.file >= 0) return m->dtype_loc;
  return m->loc;
}

/* The remark when the model fits, else a note on the capacity error `d`
 * (R-CACHE-003). */
static void say_fits(const CheckCtx *ctx, Diag *d, const CheckLet *l,
                     int64_t best, const char *at) {
  const char *tn = checks_target_name(ctx->target);
  double now = ctx->cost->footprint.total, mem = ctx->target->memory;
  if (best > 0 && d) {
    diag_note(d, l->loc, "fits up to %s = %lld%s on %s", l->name,
              (long long)best, at, tn);
    diag_figure(d, "fits_up_to", (double)best);
  } else if (best == 0 && d) {
    diag_note(d, l->loc, "does not fit on %s even at %s = 1%s%s", tn,
              l->name, *at ? "," : "", *at ? at + 3 : "");
    diag_figure(d, "fits_up_to", 0);
  } else if (best > 0) {
    char need[32], have[32];
    const Model *m = ctx->model;
    Diag *r = diag_report(ctx->diags, SEV_REMARK, "capacity",
                          capacity_loc(ctx),
                          "model '%s' fits up to %s = %lld%s on %s (needs "
                          "%s of %s at %s = %lld)",
                          m->name, l->name, (long long)best, at, tn,
                          fmt_bytes(need, sizeof need, now),
                          fmt_bytes(have, sizeof have, mem), l->name,
                          (long long)l->v);
    diag_figure(r, "fits_up_to", (double)best);
    diag_figure(r, "footprint", now);
    diag_figure(r, "capacity", mem);
  }
}

/* R-CACHE-003: a model with a KV cache is a serving plan, and its question
 * is how large a batch fits: cache_let's let is searched, the others that
 * size the cache held at their values and named.  A remark when the model
 * fits, else a note on the capacity error `d`. */
static void fits_up_to(const CheckCtx *ctx, Diag *d) {
  const Model *m = ctx->model;
  int mi = ctx->unit ? (int)(m - ctx->unit->models) : -1;
  if (mi < 0 || ctx->cost->footprint.kv_cache <= 0 || !checks_program(ctx))
    return;
  if (!d && ctx->policy) { /* the remark only if someone will see it */
    Diag probe = {.sev = SEV_REMARK, .check = "capacity",
                  .loc = capacity_loc(ctx)};
    if (diag_dropped(&probe, ctx->sources, ctx->policy)) return;
  }
  CacheLets cl;
  cache_lets_init(ctx, mi, &cl);
  if (cl.first >= 0) {
    const CheckLet *l = &cl.lets[cl.first];
    FitSearch fs = {ctx, &cl.sub, l->name};
    int64_t best = largest_fit(&fs, (int64_t)l->v, ctx->cost->footprint.total,
                               ctx->target->memory);
    StrBuf at = {0};
    other_lets(&at, cl.lets, cl.nlets, cl.moves, cl.first);
    say_fits(ctx, d, l, best, sb_str(&at));
    sb_free(&at);
  }
  cache_lets_free(&cl);
}

/* ---- the serving answer (R-SERVE-001) ---- */

/* The matmul reading a weight that takes the most of the step: the GEMM
 * whose roof decides when decode stops being memory-bound; -1 when none. */
static int weight_gemm(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  int best = -1;
  double most = 0;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (!g->op || g->op->cls != OC_CONTRACTION) continue;
    bool weight = false;
    for (int k = 0; k < g->ninputs; k++)
      weight = weight || m->nodes[g->inputs[k]].role == ROLE_WEIGHT;
    double t = ctx->cost->nodes[i].time_s * g->count;
    if (weight && t > most) {
      most = t;
      best = i;
    }
  }
  return best;
}

/* Whether node `id` is compute-bound with the let at v: 1 or 0, -1 when
 * the analysis fails there or the node is another one. */
static int compute_at(const FitSearch *fs, int id, int64_t v) {
  Arena *a = arena_new();
  const ModelCost *c = checks_rerun(fs->ctx, fs->sub, a, fs->name, v);
  int r = -1;
  if (c && strcmp(c->model->nodes[id].name, fs->ctx->model->nodes[id].name) == 0)
    r = c->nodes[id].bound == BOUND_COMPUTE;
  arena_free(a);
  return r;
}

/* The smallest value of the let at which node `id` is compute-bound (the
 * crossover memory-bound's note gives it), bounded like largest_fit:
 * doubling from v0, then bisection; -1 when not by CHECK_FITS_LIMIT or an
 * analysis fails. */
static int64_t compute_from(const FitSearch *fs, int id, int64_t v0) {
  int64_t lo = 0, hi = v0; /* not compute-bound at lo (0: none known), at hi */
  if (fs->ctx->cost->nodes[id].bound != BOUND_COMPUTE) {
    lo = v0;
    hi = -1;
    for (int64_t v = 2 * v0; v <= CHECK_FITS_LIMIT && hi < 0; v *= 2) {
      int r = compute_at(fs, id, v);
      if (r < 0) return -1;
      if (r) hi = v;
      else lo = v;
    }
    if (hi < 0) return -1;
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    int r = compute_at(fs, id, mid);
    if (r < 0) return -1;
    if (r) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* The figures at the batch as written, then the two searches. */
static void serving_figures(const CheckCtx *ctx, const FitSearch *fs,
                            const CheckLet *l, Serving *out) {
  const Parallel *p = &ctx->model->parallel;
  out->batch = l->name;
  out->batch_now = (int64_t)l->v;
  out->token_time = cost_step_time(ctx->cost);
  out->gpus = p->nodes * p->gpus_per_node;
  double replicas = (double)parallel_place(p, PG_DATA).size;
  if (out->token_time > 0 && out->gpus > 0) {
    out->tokens_per_s = l->v * replicas / out->token_time;
    out->tokens_per_s_gpu = out->tokens_per_s / (double)out->gpus;
  }
  out->max_batch = largest_fit(fs, out->batch_now, ctx->cost->footprint.total,
                               ctx->target->memory);
  int id = weight_gemm(ctx);
  out->compute_batch = id >= 0 ? compute_from(fs, id, out->batch_now) : -1;
  out->compute_node = id >= 0 ? ctx->model->nodes[id].name : NULL;
}

bool checks_serving(const CheckCtx *ctx, Serving *out) {
  *out = (Serving){0};
  int mi = ctx->unit ? (int)(ctx->model - ctx->unit->models) : -1;
  if (mi < 0 || ctx->cost->footprint.kv_cache <= 0 || !checks_program(ctx))
    return false;
  CacheLets cl;
  cache_lets_init(ctx, mi, &cl);
  int first = cl.first;
  if (first >= 0) {
    FitSearch fs = {ctx, &cl.sub, cl.lets[first].name};
    serving_figures(ctx, &fs, &cl.lets[first], out);
    StrBuf at = {0};
    other_lets(&at, cl.lets, cl.nlets, cl.moves, first);
    out->at = arena_strdup(ctx->arena, at.len > 4 ? sb_str(&at) + 4 : "");
    sb_free(&at);
  }
  cache_lets_free(&cl);
  return first >= 0;
}

/* The error: the footprint against the capacity, part by part. */
static Diag *report_footprint(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const Footprint *f = &ctx->cost->footprint;
  const Parallel *p = &m->parallel;
  double mem = ctx->target->memory;
  Part parts[8];
  int nparts = footprint_parts(f, parts);
  StrBuf sb = {0};
  char b[32], whole[32];
  for (int i = 0; i < nparts; i++) {
    if (parts[i].bytes <= 0) continue;
    sb_printf(&sb, "%s%s %s", sb.len ? ", " : "", parts[i].name,
              fmt_bytes(b, sizeof b, parts[i].bytes));
    if (parts[i].shards > 1)
      sb_printf(&sb, " (%s / %lld)",
                fmt_bytes(whole, sizeof whole, parts[i].bytes * (double)parts[i].shards),
                (long long)parts[i].shards);
  }
  char need[32], have[48];
  bool many = p->nodes * p->gpus_per_node > 1;
  Diag *d = checks_report(
      ctx, "capacity", capacity_loc(ctx),
      "model '%s' needs %s%s but %s has %s: %s",
      m->name, fmt_bytes(need, sizeof need, f->total), many ? " per GPU" : "",
      checks_target_name(ctx->target), fmt_capacity(have, sizeof have, mem),
      sb_str(&sb));
  sb_free(&sb);
  diag_figure(d, "footprint", f->total);
  diag_figure(d, "capacity", mem);
  for (int i = 0; i < nparts; i++)
    if (parts[i].figure || parts[i].bytes > 0)
      diag_figure(d, parts[i].key, parts[i].bytes);
  return d;
}

/* R-CHK-083: what would fit, each found by analysing the model again: the
 * smallest tensor-parallel degree, doubling from the plan's (at most
 * CHECK_FITS_DEGREES analyses), and the built-in target with the least
 * memory that holds the footprint. */
#define CHECK_FITS_DEGREES 4 /* capacity: tensor degrees tried, up to x16 */

/* -D name=v, as an override. */
static LetOverride binding(const char *name, int64_t v) {
  return (LetOverride){name, {false, v, (double)v}, false, NULL};
}

/* ", step 3.41 s -> 3.52 s (+3.2%)": the step time with the bindings of
 * `add`, analysed again; nothing when the first names no let or the
 * analysis fails there. */
static void step_change(const CheckCtx *ctx, const ModelCost *c, StrBuf *out) {
  double before = cost_step_time(ctx->cost), after = c ? cost_step_time(c) : -1;
  if (after > 0 && before > 0) {
    char t0[32], t1[32], pct[32];
    sb_printf(out, ", step %s -> %s (%s%s)", fmt_time(t0, sizeof t0, before),
              fmt_time(t1, sizeof t1, after), after >= before ? "+" : "",
              fmt_percent(pct, sizeof pct, after / before - 1, 1));
  }
}

static void step_cost(const CheckCtx *ctx, const LetOverride *add, int nadd,
                      StrBuf *out) {
  if (nadd < 1 || !add[0].name) return;
  Arena *a = arena_new();
  step_change(ctx, checks_rerun_as(ctx, a, add, nadd, ctx->target), out);
  arena_free(a);
}

/* R-CHK-084: recomputation and sequence parallelism, each tried by
 * analysing the plan again with it: an imported config through its
 * importer's own -D (R-HF-017), a .roof file with the what-if of
 * Bindings, which reads it as the edit the note names. */
typedef struct TrainOption {
  const char *define; /* the importer's -D */
  const char *edit;   /* what a .roof file writes */
  const char *figure;
  Recompute recompute;
  bool sequence_parallel;
} TrainOption;

static const TrainOption train_options[] = {
    {"recompute=selective",
     "selective recomputation (`checkpoint selective { }` around the body of "
     "each innermost repeat)",
     "fits_with_selective_recompute", RECOMPUTE_SELECTIVE, false},
    {"sequence_parallel=1",
     "sequence parallelism (`sequence_parallel = true` in `parallel { }`)",
     "fits_with_sequence_parallel", RECOMPUTE_NONE, true},
    {"recompute=full",
     "full recomputation (`checkpoint { }` around the body of each innermost "
     "repeat)",
     "fits_with_full_recompute", RECOMPUTE_FULL, false},
};

static const ModelCost *rerun_with(const CheckCtx *ctx, Arena *a,
                                   const TrainOption *o) {
  if (ctx->reimport) {
    const char *eq = strchr(o->define, '=');
    LetOverride add = {arena_strndup(a, o->define, (size_t)(eq - o->define)),
                       {false, 0, 0}, false, o->define};
    return checks_rerun_as(ctx, a, &add, 1, ctx->target);
  }
  CheckCtx what_if = *ctx;
  what_if.bindings = bindings_with(a, ctx->bindings, NULL);
  what_if.bindings->recompute = o->recompute;
  what_if.bindings->sequence_parallel |= o->sequence_parallel;
  return checks_rerun_as(&what_if, a, NULL, 0, ctx->target);
}

/* Each option that makes the plan fit, with its footprint and step time;
 * a .roof file's note at what it edits (the first block the what-if
 * wrote, the parallel block). */
static void note_recompute(const CheckCtx *ctx, Diag *d) {
  int n = (int)(sizeof train_options / sizeof train_options[0]);
  for (int i = 0; i < n; i++) {
    const TrainOption *o = &train_options[i];
    Arena *a = arena_new();
    const ModelCost *c = rerun_with(ctx, a, o);
    double f = c ? c->footprint.total : -1;
    if (f >= 0 && f <= ctx->target->memory) {
      Loc at = d->loc;
      if (!ctx->reimport && o->recompute && c->model->nckpts > 0)
        at = c->model->ckpts[0].loc;
      else if (!ctx->reimport && o->sequence_parallel)
        at = ctx->model->parallel.loc;
      char b[32];
      StrBuf step = {0};
      step_change(ctx, c, &step);
      diag_note(d, at, "fits with %s%s: %s per GPU%s",
                ctx->reimport ? "-D " : "", ctx->reimport ? o->define : o->edit,
                fmt_bytes(b, sizeof b, f), sb_str(&step));
      diag_figure(d, o->figure, f);
      sb_free(&step);
    }
    arena_free(a);
  }
}

/* R-CHK-084: more pipeline stages on the same GPUs, doubling the plan's
 * twice at most: a data degree the plan names is halved to match, and its
 * microbatches doubled, so that a step trains the same tokens. */
static void note_pipeline(const CheckCtx *ctx, Diag *d) {
  const Parallel *p = &ctx->model->parallel;
  const char *name = parallel_let(ctx, "pipeline");
  const char *data = parallel_let(ctx, "data");
  const char *micro = parallel_let(ctx, "microbatches");
  int64_t p0 = p->pipeline > 1 ? p->pipeline : 1;
  for (int k = 1; name && k <= 2; k++) {
    LetOverride add[3] = {binding(name, p0 << k), binding(data, p->data >> k),
                          binding(micro, p->microbatches << k)};
    int nadd = data && micro && p->data > 1 ? 3 : 1;
    if (nadd == 3 && p->data % ((int64_t)1 << k) != 0) return;
    Arena *a = arena_new();
    const ModelCost *c = checks_rerun_as(ctx, a, add, nadd, ctx->target);
    double f = c ? c->footprint.total : -1;
    arena_free(a);
    if (f < 0) return;
    if (f > ctx->target->memory) continue;
    char b[32];
    StrBuf step = {0}, with = {0};
    step_cost(ctx, add, nadd, &step);
    for (int i = 0; i < nadd; i++)
      sb_printf(&with, " -D %s=%lld", add[i].name, (long long)add[i].value.i);
    diag_note(d, d->loc, "fits with%s: %s per GPU%s", sb_str(&with),
              fmt_bytes(b, sizeof b, f), sb_str(&step));
    diag_figure(d, "fits_with_pipeline", (double)(p0 << k));
    sb_free(&with);
    sb_free(&step);
    return;
  }
}

/* R-CHK-084: a training plan that does not fit.  The largest micro-batch
 * that fits (else the longest sequence at a micro-batch of one): the
 * search of R-CACHE-003 over the lets that size the activations.  Then
 * recomputation and sequence parallelism, and more pipeline stages,
 * doubling the plan's twice at most, each with the step time it costs
 * (the larger ZeRO stage is note_zero's). */
static void note_train(const CheckCtx *ctx, Diag *d) {
  const Model *m = ctx->model;
  int mi = ctx->unit ? (int)(m - ctx->unit->models) : -1;
  if (!m->train || mi < 0 || !checks_program(ctx)) return;
  CacheLets cl;
  cache_lets_init(ctx, mi, &cl);
  for (int i = cl.first; i >= 0 && i < cl.nlets; i++) {
    if (!cl.moves[i]) continue;
    const CheckLet *l = &cl.lets[i];
    FitSearch fs = {ctx, &cl.sub, l->name};
    int64_t best = largest_fit(&fs, (int64_t)l->v, ctx->cost->footprint.total,
                               ctx->target->memory);
    if (best < 0) break;
    bool more = false;
    for (int j = i + 1; j < cl.nlets; j++) more = more || cl.moves[j];
    if (best == 0 && l->v == 1 && more) continue; /* the sequence, at 1 */
    StrBuf at = {0};
    other_lets(&at, cl.lets, cl.nlets, cl.moves, i);
    say_fits(ctx, d, l, best, sb_str(&at));
    sb_free(&at);
    break;
  }
  cache_lets_free(&cl);
  note_recompute(ctx, d);
  note_pipeline(ctx, d);
}

/* R-CHK-082: the ZeRO stage that would fit, sharding over the data ranks. */
static void note_zero(const CheckCtx *ctx, Diag *d) {
  const Model *m = ctx->model;
  const Parallel *p = &m->parallel;
  int64_t ranks = parallel_place(p, PG_DATA).size;
  if (!m->train || ranks <= 1 || p->zero >= 3) return;
  for (int64_t z = p->zero + 1; z <= 3; z++) {
    Footprint sh = cost_footprint_sharded(&ctx->cost->unsharded, z, ranks);
    if (sh.total > ctx->target->memory) continue;
    char b[32];
    StrBuf step = {0};
    LetOverride zero = binding(parallel_let(ctx, "zero"), z);
    if (!ctx->policy || !diag_dropped(d, ctx->sources, ctx->policy))
      step_cost(ctx, &zero, 1, &step);
    diag_note(d, p->loc, "with zero = %lld over the %lld data ranks it "
              "needs %s per GPU%s",
              (long long)z, (long long)ranks, fmt_bytes(b, sizeof b, sh.total),
              sb_str(&step));
    sb_free(&step);
    return;
  }
}

/* The largest weight as one GPU holds it (R-CHK-080): an expert's E/e of
 * its E copies with an expert group of e, a 1/N_s slice of it under
 * zero = 3.  -1 when there is none. */
static int largest_weight(const Model *m, double zshards, double *bytes_out,
                          double *e_out) {
  const Parallel *p = &m->parallel;
  int big = -1;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->role != ROLE_WEIGHT) continue;
    double e = p->expert > 1 && model_experts_scope(m, g->scope) >= 0
                   ? (double)p->expert : 1;
    double bytes = op_tensor_bytes(g->type) * model_weight_copies(m, g->scope) /
                   e / zshards;
    if (bytes > *bytes_out) {
      *bytes_out = bytes;
      big = i;
      *e_out = e;
    }
  }
  return big;
}

/* R-CHK-080: the largest weight, when it is at least 1% of the footprint.
 * A weight in a repeat is one tensor per copy: say so, or the figure reads
 * as one 37.6 GB matrix. */
static void note_largest_weight(const CheckCtx *ctx, Diag *d) {
  const Model *m = ctx->model;
  const Footprint *f = &ctx->cost->footprint;
  const Parallel *p = &m->parallel;
  double zshards = f->weight_shards > 1 ? (double)f->weight_shards : 1;
  double big_bytes = 0, big_e = 1;
  int big = largest_weight(m, zshards, &big_bytes, &big_e);
  if (big < 0 || big_bytes < 0.01 * f->total) return;
  const GNode *w = &m->nodes[big];
  double n = model_weight_copies(m, w->scope) / big_e;
  char each[32], b[32];
  StrBuf per = {0};
  int repeats = 0;
  for (int sc = w->scope; sc >= 0; sc = m->scopes[sc].parent)
    repeats += !m->scopes[sc].is_loop &&
               (m->scopes[sc].trips > 1 || m->scopes[sc].experts > 1);
  fmt_bytes(each, sizeof each, op_tensor_bytes(w->type));
  if (n > 1 && repeats == 1)
    sb_printf(&per, " (%.0f copies of %s in repeat %.0f", n, each, n);
  else if (n > 1)
    sb_printf(&per, " (%.0f copies of %s in nested repeats", n, each);
  if (big_e > 1) {
    int es = model_experts_scope(m, w->scope);
    sb_printf(&per, "%s%lld of the %lld experts on each of the expert "
              "group's %lld GPUs",
              per.len ? ": " : " (", (long long)m->scopes[es].experts / p->expert,
              (long long)m->scopes[es].experts, (long long)p->expert);
  }
  if (zshards > 1)
    sb_printf(&per, "%ssharded %lld ways by zero = 3", per.len ? ", " : " (",
              (long long)zshards);
  if (per.len) sb_printf(&per, ")");
  diag_note(d, w->loc, "the largest weight, '%s', takes %s%s%s", w->name,
            fmt_bytes(b, sizeof b, big_bytes),
            big_e > 1 || zshards > 1 ? " per GPU" : "", sb_str(&per));
  sb_free(&per);
}

static void note_tensor(const CheckCtx *ctx, Diag *d) {
  const char *name = parallel_let(ctx, "tensor");
  if (!name) return;
  int64_t t0 = ctx->model->parallel.tensor > 1 ? ctx->model->parallel.tensor : 1;
  double before = ctx->cost->footprint.total;
  for (int i = 1; i <= CHECK_FITS_DEGREES; i++) {
    Arena *a = arena_new();
    LetOverride add = binding(name, t0 << i);
    const ModelCost *c = checks_rerun_as(ctx, a, &add, 1, ctx->target);
    double f = c ? c->footprint.total : -1;
    arena_free(a);
    if (f < 0 || f >= before) return; /* no such degree, or it shards nothing */
    if (f <= ctx->target->memory) {
      char b[32];
      diag_note(d, d->loc, "fits with -D %s=%lld: %s per GPU", name,
                (long long)(t0 << i), fmt_bytes(b, sizeof b, f));
      diag_figure(d, "fits_with_tensor", (double)(t0 << i));
      return;
    }
    before = f;
  }
}

/* The built-in target with the least memory that the footprint fits,
 * costed there to be sure. */
static void note_target(const CheckCtx *ctx, Diag *d) {
  SourceSet ss;
  src_init(&ss);
  DiagSink sink;
  diag_sink_init(&sink);
  Arena *a = arena_new();
  const TargetSet *ts = target_builtins(a, &ss, &sink);
  double need = ctx->cost->footprint.total;
  const Target *best = NULL;
  for (bool tried[64] = {0}; ts && ts->n <= 64;) {
    int pick = -1;
    for (int i = 0; i < ts->n; i++)
      if (!tried[i] && ts->items[i]->memory >= need &&
          (pick < 0 || ts->items[i]->memory < ts->items[pick]->memory))
        pick = i;
    if (pick < 0) break;
    tried[pick] = true;
    const ModelCost *c = cost_model(a, ctx->model, ts->items[pick]);
    if (c->footprint.total <= ts->items[pick]->memory) {
      best = ts->items[pick];
      break;
    }
  }
  if (best) {
    char have[48];
    diag_note(d, d->loc, "fits on %s (-t %s), which has %s",
              checks_target_name(best), best->name,
              fmt_capacity(have, sizeof have, best->memory));
    diag_figure(d, "fits_on_capacity", best->memory);
  }
  arena_free(a);
  diag_sink_free(&sink);
  src_free(&ss);
}

static void run(const CheckCtx *ctx) {
  double mem = ctx->target->memory;
  if (mem <= 0) return;
  if (ctx->cost->footprint.total <= mem) {
    fits_up_to(ctx, NULL);
    return;
  }
  Diag *d = report_footprint(ctx);
  note_zero(ctx, d);
  note_largest_weight(ctx, d);
  /* what would fit is found by analysing again: only for an error the
   * policy keeps (not under -Wno-capacity) */
  if (ctx->policy && diag_dropped(d, ctx->sources, ctx->policy)) return;
  fits_up_to(ctx, d);
  note_train(ctx, d);
  note_tensor(ctx, d);
  note_target(ctx, d);
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "The footprint is the weights, plus in train mode their gradients and\n"
    "the optimizer state (Adam: two fp32 moments and an fp32 master copy,\n"
    "12 bytes per parameter), plus the largest set of live activations,\n"
    "per GPU: a shard=tensor weight is one GPU's shard, and ZeRO (`zero =`\n"
    "in `parallel`) divides optimizer state, gradients and weights over the\n"
    "shard group.\n"
    "When it exceeds the GPU's memory the step cannot run at all, so this\n"
    "check is an error by default.  The message gives the footprint by part\n"
    "against the capacity; a note points at the largest weight.\n"
    "\n"
    "Notes then say what would fit, each found by analysing the model\n"
    "again: the largest batch (a serving model's, or a training\n"
    "micro-batch, else the sequence at a micro-batch of one: \"fits up to\n"
    "seq = 2090 at batch = 1 on H100 SXM\"); in train mode a larger ZeRO\n"
    "stage over the data ranks (\"with zero = 1 over the 4 data ranks it\n"
    "needs 60.9 GB per GPU, ...\"), more pipeline stages on the same GPUs\n"
    "(\"fits with -D pipeline=4 -D data=2 -D microbatches=64: 66.4 GB per\n"
    "GPU, ...\"), and recomputation and sequence parallelism, each tried\n"
    "on its own and noted with its footprint and step time as you would\n"
    "ask for it: for an imported config by the importer's -D (\"fits with\n"
    "-D recompute=full: 76.3 GB per GPU, step 6.03 s -> 8.24 s (+36.7%)\",\n"
    "\"fits with -D sequence_parallel=1: 81.8 GB per GPU, ...\"), for a\n"
    ".roof file by the edit, at what it edits (\"fits with full\n"
    "recomputation (`checkpoint { }` around the body of each innermost\n"
    "repeat): ...\", \"fits with sequence parallelism (`sequence_parallel =\n"
    "true` in `parallel { }`): ...\"); then a larger tensor-parallel\n"
    "degree, and the built-in target with the least memory that holds\n"
    "the model (\"fits on H200 SXM (-t h200_sxm), which has 141 GiB =\n"
    "151.4 GB\").\n"
    "\n"
    "Fix: a narrower dtype, a smaller batch, sharding the optimizer state or\n"
    "the weights across GPUs, recomputation, sequence parallelism, more\n"
    "pipeline stages, or a target with more memory.\n"

    "\n"
    "Example:\n"
    "    mode train\n"
    "    weight w : [70000, 100000]      # 7e9 parameters: 112 GB with Adam\n";
/* clang-format on */

const CheckDesc check_capacity = {
    "capacity", SEV_ERROR, true,
    "the model's memory footprint exceeds the target's memory",
    explain, run, NULL, true};
