/* SPDX-License-Identifier: MIT */
/*
 * low_occupancy.c: the low-occupancy check.  A thread block runs on one SM,
 * so a kernel with fewer blocks than SMs leaves the rest idle whichever roof
 * it is under (the seed's batch-1 row: 1 block, 0.76% of 132 SMs).  Kernels
 * are taken from the cost model (a fused region is one kernel, with the
 * blocks checks_kernel_blocks() counts); those under the launch overhead
 * are left to overhead-bound, where the launch, not the idle SMs, is the
 * cost.
 *
 * Only a kernel that leaves a real share of the machine idle is reported:
 * under CHECK_OCC_MAX_UTIL_PCT of the SMs (128 blocks on 132 SMs, 97%, is a
 * full machine for any practical purpose).  A custom() op without blocks=
 * has no known block count and is skipped.  A kernel holding a contraction
 * that memory-bound reports is left to memory-bound, which gives its
 * occupancy as a note: batch-1 decode is "two separate failures with one
 * fix", and one diagnostic with the one fix reads better than two.
 *
 * The blocks, and which kernels hold memory-bound's nodes, come from the
 * shared analysis (checks_shared_init), found once for the kernels that
 * matter.
 */
#include "checks.h"

/* "0.76%" under one percent, "24.2%" above, as the seed prints them. */
static char *util_str(char *buf, size_t n, double u) {
  return fmt_percent(buf, n, u, fmt_round(u * 100, 1) < 1 ? 2 : 1);
}

/* Only a kernel that matters can be reported: one of the shared list. */
static void visit(const CheckCtx *ctx, const CheckShared *sh, int q) {
  if (!sh->low_occupancy[q] || sh->memory_bound[q]) return;
  int k = sh->kernels[q], sms = ctx->target->sms;
  double b = sh->blocks[q];
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
  const GNode *g = &ctx->model->nodes[sh->at[q]];
  if (g->args->blocks > 0 && g->args->blocks == b)
    diag_note(d, g->loc, "the block count is set by blocks=%lld",
              (long long)g->args->blocks);
  else if (g->op && g->op->cls == OC_CONTRACTION)
    diag_note(d, g->loc,
              "a larger batch, or split-K across the reduction, would give "
              "the idle SMs work");
  else
    diag_note(d, g->loc,
              "fuse it with a neighbouring kernel, or batch more work per "
              "launch");
}

static void run(const CheckCtx *ctx) { checks_each_shared_kernel(ctx, visit); }

/* In the shared pass, once the blocks are known: the kernels under
 * CHECK_OCC_MAX_UTIL_PCT of the SMs (CheckShared.low_occupancy, which
 * memory-bound's occupancy note reads).  Every kernel of the list matters. */
static void done(const CheckCtx *ctx, CheckShared *sh) {
  int sms = ctx->target->sms;
  for (int q = 0; q < sh->nkernels; q++) {
    double b = sh->blocks[q];
    sh->low_occupancy[q] =
        sms > 1 && b > 0 && b * 100 < (double)sms * CHECK_OCC_MAX_UTIL_PCT;
  }
}

static const CheckHooks hooks = {NULL, NULL, done};

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "A thread block runs on one SM; with fewer blocks than SMs the rest sit\n"
    "idle whichever roof the kernel is under.  Blocks are counted as the\n"
    "occupancy model does: matmul and conv output tiles times batch,\n"
    "attention batch x heads x query tiles, elementwise ops by elements per\n"
    "block, or the op's `blocks=`.  A fused region is one kernel: its\n"
    "contractions that read only the region's inputs add up (a merged qkv\n"
    "or gate/up GEMM), and it has at least the blocks of its largest\n"
    "member.  The message gives the blocks, the SMs, the utilisation and\n"
    "the idle SMs (1 block on an H100: 0.76%, 131 idle).\n"
    "Reported when the utilisation is under " CHECKS_STR(CHECK_OCC_MAX_UTIL_PCT)
    "%, at least a quarter of the\n"
    "SMs idle: 128 blocks on 132 SMs (97.0%) is a full machine.\n"
    "\n"
    "Fix: more work per launch (batching; split-K for skinny matmuls), or\n"
    "fusion with a neighbour so the launch does more.\n"
    "\n"
    "Not reported: kernels that take less than the launch overhead (the\n"
    "launch dominates them: see overhead-bound) or less than "
    CHECKS_STR(CHECK_MIN_STEP_PCT) "% of the\n"
    "step time; custom() ops without `blocks=` (their block count is\n"
    "unknown); kernels holding a contraction that memory-bound reports (its\n"
    "diagnostic carries the occupancy as a note: one fix, one warning).\n"
    "\n"
    "Example:\n"
    "    y = matmul(x, w, blocks=1)      # 1 block on 132 SMs: 0.76%\n";
/* clang-format on */

const CheckDesc check_low_occupancy = {
    "low-occupancy", SEV_WARNING, true,
    "a kernel's thread blocks leave a quarter or more of the SMs idle",
    explain, run, &hooks, false};
