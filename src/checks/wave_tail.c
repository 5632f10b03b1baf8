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

#include "checks.h"

/* Thresholds, quoted into the --explain text below. */
#define CHECK_TAIL_MAX_FILL_PCT 50  /* wave-tail: last wave under half full */
#define CHECK_TAIL_MIN_IDLE_PCT 10  /* wave-tail: >= 10% of block slots idle */

/* Only a kernel that matters can be reported: one of the shared list. */
static void visit(const CheckCtx *ctx, const CheckShared *sh, int q) {
  int k = sh->kernels[q], sms = ctx->target->sms;
  double b = sh->blocks[q];
  if (b <= sms || cost_kernel(ctx->cost, k).bound != BOUND_COMPUTE ||
      !checks_kernel_matters(ctx, k))
    return;
  double waves = ceil(b / sms);
  double last = b - (waves - 1) * sms;
  double util = b / (waves * sms);
  if (last * 100 >= sms * (double)CHECK_TAIL_MAX_FILL_PCT ||
      (1 - util) * 100 < CHECK_TAIL_MIN_IDLE_PCT)
    return;
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

static void run(const CheckCtx *ctx) { checks_each_shared_kernel(ctx, visit); }

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "Blocks run in waves of one block per SM, and a kernel lasts as long as\n"
    "its last wave.  One block past a full wave (133 blocks on 132 SMs) costs\n"
    "a whole second wave for almost no work: utilisation halves to 50.4%.\n"
    "The message gives the waves, the utilisation, and the nearest block\n"
    "counts that fill whole waves.\n"
    "\n"
    "Reported when there are at least two waves, the last wave is less than\n"
    CHECKS_STR(CHECK_TAIL_MAX_FILL_PCT) "% full, and at least "
    CHECKS_STR(CHECK_TAIL_MIN_IDLE_PCT)
    "% of the kernel's block slots are idle.  Not\n"
    "for kernels under the launch overhead or under "
    CHECKS_STR(CHECK_MIN_STEP_PCT) "% of the step, nor\n"
    "for custom() ops without `blocks=`, nor for memory-bound kernels: their\n"
    "blocks share HBM, so a sparse last wave draws more bandwidth per block\n"
    "and costs far less than a wave.\n"
    "\n"
    "Fix: choose a batch, sequence or tile size that makes the block count a\n"
    "multiple of the SM count, or just under one.\n"
    "\n"
    "Example:\n"
    "    y = matmul(x, w, blocks=133)    # 2 waves, 50.4%; 132 or 264 fill\n";
/* clang-format on */

const CheckDesc check_wave_tail = {
    "wave-tail", SEV_WARNING, true,
    "a kernel's last wave of thread blocks is mostly empty",
    explain, run, NULL, false};
