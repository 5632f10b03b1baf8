/* SPDX-License-Identifier: MIT */
/*
 * low_occupancy.c: the low-occupancy check.  A thread block runs on one SM,
 * so a kernel with fewer blocks than SMs leaves the rest idle whichever roof
 * it is under (the seed's batch-1 row: 1 block, 0.76% of 132 SMs).  Kernels
 * are taken from the cost model (a fused region is one kernel, with the
 * blocks of its largest member); those under the launch overhead are left
 * to overhead-bound, where the launch, not the idle SMs, is the cost.
 */
#include "rooflint.h"

/* "0.76%" under one percent, "24.2%" above, as the seed prints them. */
static char *util_str(char *buf, size_t n, double u) {
  return fmt_percent(buf, n, u, fmt_round(u * 100, 1) < 1 ? 2 : 1);
}

void check_low_occupancy(const CheckCtx *ctx) {
  const ModelCost *c = ctx->cost;
  int sms = ctx->target->sms;
  if (sms <= 1 || c->nkernels == 0) return;
  double *blocks;
  int *at;
  checks_kernel_blocks(ctx, &blocks, &at);
  for (int k = 0; k < c->nkernels; k++) {
    double b = blocks[k];
    if (b <= 0 || b >= sms || !checks_kernel_matters(ctx, k)) continue;
    char name[160], ub[32];
    double util = b / sms, idle = sms - b;
    Diag *d = checks_report(
        ctx, "low-occupancy", checks_kernel_loc(ctx, k),
        "%s launches %.0f block%s on %d SMs: %s utilisation, %.0f SM%s idle",
        checks_kernel_name(ctx, k, name, sizeof name), b, b == 1 ? "" : "s",
        sms, util_str(ub, sizeof ub, util), idle, idle == 1 ? "" : "s");
    diag_figure(d, "blocks", b);
    diag_figure(d, "sms", sms);
    diag_figure(d, "utilisation", util);
    diag_figure(d, "idle_sms", idle);
    const GNode *g = &ctx->model->nodes[at[k]];
    if (g->args.blocks > 0)
      diag_note(d, g->loc, "the block count is set by blocks=%lld",
                (long long)g->args.blocks);
    else if (g->op && g->op->cls == OC_CONTRACTION)
      diag_note(d, g->loc,
                "a larger batch, or split-K across the reduction, would give "
                "the idle SMs work");
    else
      diag_note(d, g->loc,
                "fuse it with a neighbouring kernel, or batch more work per "
                "launch");
  }
}
