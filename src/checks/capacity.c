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
  out[n++] = (Part){"KV cache", "kv_cache", f->kv_cache, 1, false};
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

/* The footprint at name = v, or -1 when the analysis fails there; its KV
 * cache part in *kv and the parameter count in *params. */
static double footprint_at(const FitSearch *fs, int64_t v, double *kv,
                           double *params) {
  Arena *a = arena_new();
  const ModelCost *c = checks_rerun(fs->ctx, fs->sub, a, fs->name, v);
  double total = c ? c->footprint.total : -1;
  if (c && kv) *kv = c->footprint.kv_cache;
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

/* R-CACHE-003: a model with a KV cache is a serving plan, and its question
 * is how large a batch fits: the first let that sizes the cache (in the
 * file's order: an integer whose doubling changes the KV cache and leaves
 * the parameters alone, a batch or a context length) is searched, the others that do held at their values
 * and named.  A remark when the
 * model fits, else a note on the capacity error `d`. */
static void fits_up_to(const CheckCtx *ctx, Diag *d) {
  const Model *m = ctx->model;
  int mi = ctx->unit ? (int)(m - ctx->unit->models) : -1;
  if (mi < 0 || ctx->cost->footprint.kv_cache <= 0 || !checks_program(ctx))
    return;
  if (!d && ctx->policy) { /* the remark only if someone will see it */
    Diag probe = {.sev = SEV_REMARK, .check = "capacity", .loc = m->loc};
    if (diag_dropped(&probe, ctx->sources, ctx->policy)) return;
  }
  int nlets = 0;
  Program sub = {0};
  CheckLet *lets = checks_lets(ctx, mi, &nlets, &sub);
  double now = ctx->cost->footprint.total, mem = ctx->target->memory;
  bool *moves = xcalloc((size_t)nlets + 1, sizeof *moves);
  int first = -1;
  for (int i = 0; i < nlets; i++) {
    const CheckLet *l = &lets[i];
    if (!l->used || !l->ok || !l->is_int || l->v < 1 ||
        l->v > CHECK_FITS_LIMIT / 2)
      continue;
    FitSearch fs = {ctx, &sub, l->name};
    double kv = 0, params = 0;
    double f = footprint_at(&fs, 2 * (int64_t)l->v, &kv, &params);
    moves[i] = f >= 0 && kv != ctx->cost->footprint.kv_cache &&
               params == ctx->cost->params;
    if (moves[i] && first < 0) first = i;
  }
  if (first >= 0) {
    const CheckLet *l = &lets[first];
    FitSearch fs = {ctx, &sub, l->name};
    int64_t best = largest_fit(&fs, (int64_t)l->v, now, mem);
    StrBuf at = {0};
    for (int i = 0; i < nlets; i++)
      if (moves[i] && i != first)
        sb_printf(&at, "%s %s = %lld", at.len ? "," : " at", lets[i].name,
                  (long long)lets[i].v);
    const char *tn = checks_target_name(ctx->target);
    if (best > 0 && d) {
      diag_note(d, l->loc, "fits up to %s = %lld%s on %s", l->name,
                (long long)best, sb_str(&at), tn);
      diag_figure(d, "fits_up_to", (double)best);
    } else if (best == 0 && d) {
      diag_note(d, l->loc, "does not fit on %s even at %s = 1%s%s", tn,
                l->name, at.len ? "," : "", at.len ? sb_str(&at) + 3 : "");
      diag_figure(d, "fits_up_to", 0);
    } else if (best > 0) {
      char need[32], have[32];
      Diag *r = diag_report(ctx->diags, SEV_REMARK, "capacity", m->loc,
                            "model '%s' fits up to %s = %lld%s on %s (needs "
                            "%s of %s at %s = %lld)",
                            m->name, l->name, (long long)best, sb_str(&at), tn,
                            fmt_bytes(need, sizeof need, now),
                            fmt_bytes(have, sizeof have, mem), l->name,
                            (long long)l->v);
      diag_figure(r, "fits_up_to", (double)best);
      diag_figure(r, "footprint", now);
      diag_figure(r, "capacity", mem);
    }
    sb_free(&at);
  }
  free(moves);
  free(sub.top.items);
  free(lets);
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
      ctx, "capacity", m->loc, "model '%s' needs %s%s but %s has %s: %s",
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
    diag_note(d, p->loc, "with zero = %lld over the %lld data ranks it "
              "needs %s per GPU",
              (long long)z, (long long)ranks, fmt_bytes(b, sizeof b, sh.total));
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
  fits_up_to(ctx, d);
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
    "Fix: a narrower dtype, a smaller batch, sharding the optimizer state or\n"
    "the weights across GPUs, or a target with more memory.\n"

    "\n"
    "Example:\n"
    "    mode train\n"
    "    weight w : [70000, 100000]      # 7e9 parameters: 112 GB with Adam\n";
/* clang-format on */

const CheckDesc check_capacity = {
    "capacity", SEV_ERROR, true,
    "the model's memory footprint exceeds the target's memory",
    explain, run, NULL, true};
