/* SPDX-License-Identifier: MIT */
/*
 * capacity.c: the capacity check.  A footprint (weights, gradients and
 * optimizer state in train mode, the largest set of live activations) over
 * the target's memory means the step cannot run at all, so this check is an
 * error by default.  The message breaks the footprint down by part; a note
 * points at the largest weight, the usual thing to shrink or shard.
 */
#include "checks.h"

/* One part of the footprint per GPU, after sharding (R-CHK-080): a row
 * per part, so a new part is one more row. */
typedef struct Part {
  const char *name;
  double bytes;
  int64_t shards; /* ZeRO's divisor (R-PAR-004); <= 1: not sharded */
  bool figure;    /* always a figure, even when 0 */
} Part;

static int footprint_parts(const Footprint *f, Part *out) {
  int n = 0;
  out[n++] = (Part){"weights", f->weights, f->weight_shards, true};
  out[n++] = (Part){"gradients", f->gradients, f->gradient_shards, true};
  out[n++] = (Part){"optimizer", f->optimizer, f->optimizer_shards, true};
  out[n++] = (Part){"activations", f->activations, 1, true};
  out[n++] = (Part){"buffers", f->buffers, 1, false};
  return n;
}

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const Footprint *f = &ctx->cost->footprint;
  const Parallel *p = &m->parallel;
  double mem = ctx->target->memory;
  if (mem <= 0 || f->total <= mem) return;
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
      diag_figure(d, parts[i].name, parts[i].bytes);
  /* R-CHK-082: the ZeRO stage that would fit, sharding over the data ranks */
  int64_t ranks = parallel_place(p, PG_DATA).size;
  if (m->train && ranks > 1 && p->zero < 3)
    for (int64_t z = p->zero + 1; z <= 3; z++) {
      Footprint sh = cost_footprint_sharded(&ctx->cost->unsharded, z, ranks);
      if (sh.total > mem) continue;
      diag_note(d, p->loc, "with zero = %lld over the %lld data ranks it "
                "needs %s per GPU",
                (long long)z, (long long)ranks, fmt_bytes(b, sizeof b, sh.total));
      break;
    }
  int big = -1;
  double big_bytes = 0;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->role != ROLE_WEIGHT) continue;
    double bytes = op_tensor_bytes(g->type) * model_weight_copies(m, g->scope);
    if (bytes > big_bytes) {
      big_bytes = bytes;
      big = i;
    }
  }
  if (big >= 0 && big_bytes >= 0.01 * f->total) {
    /* A weight in a repeat is one tensor per copy: say so, or the figure
     * reads as one 37.6 GB matrix (R-CHK-080). */
    const GNode *w = &m->nodes[big];
    double n = model_weight_copies(m, w->scope);
    char each[32];
    StrBuf per = {0};
    int repeats = 0;
    for (int sc = w->scope; sc >= 0; sc = m->scopes[sc].parent)
      repeats += !m->scopes[sc].is_loop && m->scopes[sc].trips > 1;
    fmt_bytes(each, sizeof each, op_tensor_bytes(w->type));
    if (n > 1 && repeats == 1)
      sb_printf(&per, " (%.0f copies of %s in repeat %.0f)", n, each, n);
    else if (n > 1)
      sb_printf(&per, " (%.0f copies of %s in nested repeats)", n, each);
    diag_note(d, w->loc, "the largest weight, '%s', takes %s%s", w->name,
              fmt_bytes(b, sizeof b, big_bytes), sb_str(&per));
    sb_free(&per);
  }
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
