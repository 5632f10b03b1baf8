/* SPDX-License-Identifier: MIT */
/*
 * overhead_bound.c: the overhead-bound check.  A kernel whose roofline time
 * is below the target's launch overhead spends most of its life being
 * launched.  Up to CHECK_OVERHEAD_MAX_SINGLE such kernels are reported one
 * by one; more become one summary per model (count, launches per step, their
 * share against the roofline step time), so a model of a thousand small ops
 * gets one line, not a thousand.  Nothing is said when the launches of
 * these kernels cost less than CHECK_OVERHEAD_MIN_PCT of the roofline step
 * time: a few small ops next to big ones are not worth a line.
 */
#include "checks.h"

/* On a roof but under the target's launch overhead. */
static bool kernel_small(const CheckCtx *ctx, const Kernel *k) {
  return (k->bound == BOUND_MEMORY || k->bound == BOUND_COMPUTE) &&
         k->time_s < ctx->target->launch_overhead;
}

/* Thresholds, quoted into the --explain text below. */
#define CHECK_OVERHEAD_MAX_SINGLE 3 /* overhead-bound: individual up to 3 */
#define CHECK_OVERHEAD_MIN_PCT 10   /* overhead-bound: launches, % of step */

static void run(const CheckCtx *ctx) {
  const ModelCost *c = ctx->cost;
  double lo = ctx->target->launch_overhead;
  if (lo <= 0 || c->nkernels == 0) return;
  /* The census of every kernel comes with the shared analysis: a pass
   * over a million kernels' figures of its own is tens of milliseconds. */
  CheckShared own, *sh = checks_shared_begin(ctx, &own);
  int nsmall = sh->nsmall, nkern = sh->nroof, first = sh->first_small;
  double launches = sh->launches, work = sh->small_work;
  checks_shared_end(sh, &own);
  double launch_time = launches * lo, step = c->time_s;
  if (nsmall == 0 ||
      (step > 0 && launch_time < step * CHECK_OVERHEAD_MIN_PCT / 100.0))
    return;
  char t1[32], t2[32], t3[32], name[160], ps[48];
  if (nsmall <= CHECK_OVERHEAD_MAX_SINGLE) {
    for (int k = 0; k < c->nkernels; k++) {
      Kernel kn = cost_kernel(c, k);
      const Kernel *kk = &kn;
      if (!kernel_small(ctx, kk)) continue;
      Diag *d = checks_report(
          ctx, "overhead-bound", checks_kernel_loc(ctx, k),
          "%s takes %s on the roofline, under the %s launch overhead of %s%s",
          checks_kernel_name(ctx, k, name, sizeof name),
          fmt_time(t1, sizeof t1, kk->time_s), fmt_time(t2, sizeof t2, lo),
          checks_target_name(ctx->target),
          checks_per_step(ps, sizeof ps, kk->count));
      diag_figure(d, "time_s", kk->time_s);
      diag_figure(d, "launch_overhead_s", lo);
      diag_note(d, d->loc,
                "fuse it into a neighbouring kernel, or capture the step in a "
                "CUDA graph so launches are paid once");
    }
    return;
  }
  const Model *m = ctx->model;
  Diag *d = checks_report(
      ctx, "overhead-bound", m->loc,
      "%d of %d kernels in model '%s' take less than the %s launch overhead: "
      "%.0f launches cost %s per step against %s of roofline time",
      nsmall, nkern, m->name, fmt_time(t1, sizeof t1, lo), launches,
      fmt_time(t2, sizeof t2, launch_time), fmt_time(t3, sizeof t3, step));
  diag_figure(d, "kernels", nsmall);
  diag_figure(d, "launches", launches);
  diag_figure(d, "launch_time_s", launch_time);
  diag_figure(d, "work_time_s", work);
  diag_figure(d, "step_time_s", step);
  diag_note(d, checks_kernel_loc(ctx, first), "the first is %s",
            checks_kernel_name(ctx, first, name, sizeof name));
  diag_note(d, d->loc,
            "fuse small ops into their neighbours (`fused NAME { ... }`), or "
            "capture the step in a CUDA graph so launches are paid once");
}

/* In the shared pass, every kernel: the census run() reports from (a pass
 * of its own over a million kernels' figures is tens of milliseconds). */
static void see_kernel(const CheckCtx *ctx, CheckShared *sh, int k,
                       const Kernel *kn) {
  sh->nroof += kn->bound == BOUND_MEMORY || kn->bound == BOUND_COMPUTE;
  if (kernel_small(ctx, kn)) {
    if (sh->first_small < 0) sh->first_small = k;
    sh->nsmall++;
    sh->launches += kn->count;
    sh->small_work += kn->time_s * kn->count;
  }
}

static const CheckHooks hooks = {NULL, see_kernel, NULL};

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "Every kernel pays a launch overhead (a few microseconds) before any\n"
    "work starts.  A kernel whose roofline time is below it spends most of\n"
    "its life being launched, whichever roof it is under.  Up to "
    CHECKS_STR(CHECK_OVERHEAD_MAX_SINGLE) " such\n"
    "kernels are reported one by one; more are summarised once per model\n"
    "with their count and the time their launches take per step.\n"
    "\n"
    "Fix: fuse small ops into their neighbours (`fused NAME { ... }`), or\n"
    "capture the whole step in a CUDA graph so launches are paid once.\n"
    "\n"
    "Not reported: when those launches cost less than "
    CHECKS_STR(CHECK_OVERHEAD_MIN_PCT) "% of the step's\n"
    "roofline time (a few small ops next to large ones).\n"
    "\n"
    "Example:\n"
    "    input x : [1, 4096]\n"
    "    y = relu(x)                     # 4.89 ns of work, 5 us to launch\n";
/* clang-format on */

const CheckDesc check_overhead_bound = {
    "overhead-bound", SEV_WARNING, true,
    "kernels finish faster than the launch overhead",
    explain, run, &hooks, false};
