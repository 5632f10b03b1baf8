/* SPDX-License-Identifier: MIT */
/*
 * capacity.c: the capacity check.  A footprint (weights, gradients and
 * optimizer state in train mode, the largest set of live activations) over
 * the target's memory means the step cannot run at all, so this check is an
 * error by default.  The message breaks the footprint down by part; a note
 * points at the largest weight, the usual thing to shrink or shard.
 */
#include "checks.h"

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  const Footprint *f = &ctx->cost->footprint;
  double mem = ctx->target->memory;
  if (mem <= 0 || f->total <= mem) return;
  static const char *const part_names[] = {"weights", "gradients", "optimizer",
                                           "activations", "buffers", "KV cache"};
  static const char *const part_keys[] = {"weights", "gradients", "optimizer",
                                          "activations", "buffers", "kv_cache"};
  double parts[] = {f->weights, f->gradients, f->optimizer, f->activations,
                    f->buffers, f->kv_cache};
  enum { NPARTS = sizeof parts / sizeof parts[0] };
  StrBuf sb = {0};
  char b[32];
  for (int i = 0; i < NPARTS; i++) {
    if (parts[i] <= 0) continue;
    sb_printf(&sb, "%s%s %s", sb.len ? ", " : "", part_names[i],
              fmt_bytes(b, sizeof b, parts[i]));
  }
  char need[32], have[32];
  Diag *d = checks_report(
      ctx, "capacity", m->loc, "model '%s' needs %s but %s has %s: %s", m->name,
      fmt_bytes(need, sizeof need, f->total), checks_target_name(ctx->target),
      fmt_bytes(have, sizeof have, mem), sb_str(&sb));
  sb_free(&sb);
  diag_figure(d, "footprint", f->total);
  diag_figure(d, "capacity", mem);
  for (int i = 0; i < NPARTS; i++)
    if (i < 4 || parts[i] > 0) diag_figure(d, part_keys[i], parts[i]);
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
    "12 bytes per parameter), plus the largest set of live activations.\n"
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
