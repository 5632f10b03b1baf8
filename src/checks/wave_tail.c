/* SPDX-License-Identifier: MIT */
/*
 * wave_tail.c: the wave-tail check.  Blocks run in waves of one per SM and
 * the kernel lasts as long as its last wave, so one block past a full wave
 * (133 on 132 SMs) pays a whole second wave for almost nothing.  Reported
 * when the last wave is less than CHECK_TAIL_MAX_FILL_PCT full and the
 * kernel leaves at least CHECK_TAIL_MIN_IDLE_PCT of its block slots idle;
 * the message names the block counts just below and above that fill whole
 * waves.
 *
 * Only compute-bound kernels: the wave model assumes blocks of equal cost,
 * which holds when each block's time is its own arithmetic.  Memory-bound
 * blocks share HBM, so the few blocks of a sparse last wave each draw more
 * of it and finish sooner; the tail costs far less than a wave, and the
 * kernel's time is its bytes over the bandwidth whatever the block count.
 */
#include <math.h>

#include "rooflint.h"

void check_wave_tail(const CheckCtx *ctx) {
  const ModelCost *c = ctx->cost;
  int sms = ctx->target->sms;
  if (sms <= 1 || c->nkernels == 0) return;
  CheckShared own, *sh = checks_shared_begin(ctx, &own);
  /* Only a kernel that matters can be reported: the shared list. */
  for (int q = 0; q < sh->nkernels; q++) {
    int k = sh->kernels[q];
    double b = sh->blocks[q];
    if (b <= sms || cost_kernel(c, k).bound != BOUND_COMPUTE ||
        !checks_kernel_matters(ctx, k))
      continue;
    double waves = ceil(b / sms);
    double last = b - (waves - 1) * sms;
    double util = b / (waves * sms);
    if (last * 100 >= sms * (double)CHECK_TAIL_MAX_FILL_PCT ||
        (1 - util) * 100 < CHECK_TAIL_MIN_IDLE_PCT)
      continue;
    char name[160], ub[32];
    Diag *d = checks_report(
        ctx, "wave-tail", checks_kernel_loc(ctx, k),
        "%s runs %.0f blocks in %.0f waves on %d SMs: %s utilisation, the "
        "last wave holds %.0f block%s",
        checks_kernel_name(ctx, k, name, sizeof name), b, waves, sms,
        fmt_percent(ub, sizeof ub, util, 1), last, last == 1 ? "" : "s");
    double below = (waves - 1) * sms, above = waves * sms;
    diag_figure(d, "blocks", b);
    diag_figure(d, "waves", waves);
    diag_figure(d, "utilisation", util);
    diag_figure(d, "fill_below", below);
    diag_figure(d, "fill_above", above);
    diag_note(d, ctx->model->nodes[sh->at[q]].loc,
              "%.0f or %.0f blocks would fill whole waves", below, above);
  }
  checks_shared_end(sh, &own);
}
