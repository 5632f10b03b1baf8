/* SPDX-License-Identifier: MIT */
/*
 * tc_alignment.c: the tc-alignment check.  Tensor cores take their operands
 * in fixed tiles: a dimension that is not a multiple of DTypeInfo's
 * tc_multiple for the op's precision (8 for 16-bit, 16 for 8-bit, 4 for
 * tf32) is padded, or sent to a slower kernel.  Checked per contraction:
 * matmul M, N, K; conv2d input channels per group and output channels;
 * attention's head size.  Dimensions smaller than the multiple (a batch of
 * one) are a memory-bound problem, not an alignment one, and are left out.
 *
 * The note names the tensor to change, traced back through views, and
 * suggests padding to CHECK_TC_PAD_MULTIPLE: the extra work of padding is
 * small, but a size off the multiple also keeps the library from its
 * aligned-load kernels, which is what nanoGPT's 50257 -> 50304 recovers.
 * Only a size the model's author chooses gets that advice: an M counted
 * from the data's rows (not a weight's) gets a note of what its tail
 * tile costs instead.
 */
#include <stdio.h>
#include <math.h>

#include "checks.h"

/* Thresholds, quoted into the --explain text below. */
#define CHECK_TC_PAD_MULTIPLE 64    /* tc-alignment: suggested padding */

/* The contraction's dimensions, by its op row. */
static int dims_of(const Model *m, const GNode *g, OpDim *out) {
  if (!g->op->dims) return 0;
  OpIn x = {g->op, m, g->inputs, g->ninputs, g->type, g->args};
  OpDims d;
  g->op->dims(&x, &d);
  for (int k = 0; k < d.nalign; k++) out[k] = d.align[k];
  return d.nalign;
}

/* The tensor that owns a dimension: back through views (a transpose of a
 * tied embedding, a reshape) while the view's input still has a dimension
 * of that size, so the note points where the fix goes. */
static int trace_views(const Model *m, int id, int64_t size) {
  for (int hops = 0; hops < m->nnodes; hops++) {
    const GNode *g = &m->nodes[id];
    if (!g->op || g->op->cls != OC_VIEW || g->ninputs < 1) break;
    const TensorType *in = m->nodes[g->inputs[0]].type;
    bool has = false;
    for (int k = 0; k < in->rank; k++) has = has || in->dims[k] == size;
    if (!has) break;
    id = g->inputs[0];
  }
  return id;
}

/* The report of nb dimensions off the multiple, with their padded sizes
 * and the work the padding adds. */
static Diag *report_dims(const CheckCtx *ctx, const GNode *g, int mult,
                         const OpDim *bad, int nb, char *pc, size_t pcn) {
  StrBuf what = {0}, pads = {0};
  double grow = 1;
  for (int k = 0; k < nb; k++) {
    int64_t padded = (bad[k].size + mult - 1) / mult * mult;
    const char *sep = k == 0 ? "" : k == nb - 1 ? " and " : ", ";
    sb_printf(&what, "%s%s = %lld", sep, bad[k].what, (long long)bad[k].size);
    sb_printf(&pads, "%s%lld", sep, (long long)padded);
    grow *= (double)padded / (double)bad[k].size;
  }
  double waste = grow - 1;
  Diag *d = checks_report(
      ctx, "tc-alignment", g->loc,
      "%s '%s': %s %s not %s of %d for %s tensor cores; padded to %s %s "
      "%s more work",
      g->op->name, g->name, sb_str(&what), nb == 1 ? "is" : "are",
      nb == 1 ? "a multiple" : "multiples", mult, dtype_str(g->precision),
      sb_str(&pads), nb == 1 ? "it costs" : "they cost",
      fmt_percent(pc, pcn, waste, waste < 0.001 ? 3 : 2));
  sb_free(&what);
  sb_free(&pads);
  diag_figure(d, "multiple", mult);
  diag_figure(d, "waste", waste);
  /* Figure keys are unique per diagnostic (JSON objects). */
  static const char *const dim_keys[] = {"dimension", "dimension_2",
                                         "dimension_3", "dimension_4"};
  static const char *const pad_keys[] = {"padded", "padded_2", "padded_3",
                                         "padded_4"};
  for (int k = 0; k < nb; k++) {
    diag_figure(d, dim_keys[k], (double)bad[k].size);
    diag_figure(d, pad_keys[k], (double)((bad[k].size + mult - 1) / mult * mult));
  }
  return d;
}

/* The note at the tensor to change.  Padding advice is for a size the
 * model's author chooses (a weight's N or K, a vocabulary); M counted from
 * the data's rows (batch x sequence: ViT's 197 tokens, Whisper's 1500
 * frames) is not one (R-CHK-101): that gets what its last tile costs, pc. */
static void note_source(const CheckCtx *ctx, Diag *d, const GNode *g,
                        const OpDim *bad, int nb, const char *pc) {
  const Model *m = ctx->model;
  int adv = -1, root = -1, near = -1;
  for (int k = 0; k < nb && adv < 0; k++) {
    near = g->inputs[bad[k].operand];
    root = trace_views(m, near, bad[k].size);
    if (!bad[k].data || m->nodes[root].role == ROLE_WEIGHT ||
        m->nodes[root].role == ROLE_BUFFER)
      adv = k;
  }
  if (adv < 0) {
    near = g->inputs[bad[0].operand];
    root = trace_views(m, near, bad[0].size);
  }
  const GNode *src = &m->nodes[root];
  char via[160] = "";
  if (root != near)
    snprintf(via, sizeof via, ", through view '%s'", m->nodes[near].name);
  if (adv < 0) {
    diag_note(d, src->loc,
              "'%s' (%s%s) gives %s = %lld, rows set by the data, not a "
              "size the model chooses: the part-filled last tile is the "
              "%s above, and there is nothing to pad",
              src->name, role_str(src->role), via, bad[0].what,
              (long long)bad[0].size, pc);
    return;
  }
  int64_t wide = (bad[adv].size + CHECK_TC_PAD_MULTIPLE - 1) /
                 CHECK_TC_PAD_MULTIPLE * CHECK_TC_PAD_MULTIPLE;
  diag_note(d, src->loc,
            "'%s' (%s%s) gives %s = %lld; beyond the padded work, a size "
            "off the multiple rules out the aligned loads of the fastest "
            "kernels: pad it to %lld, a multiple of %d, as nanoGPT does",
            src->name, role_str(src->role), via, bad[adv].what,
            (long long)bad[adv].size, (long long)wide, CHECK_TC_PAD_MULTIPLE);
  diag_figure(d, "padded_suggested", (double)wide);
}

static void visit(const CheckCtx *ctx, int i) {
  const GNode *g = &ctx->model->nodes[i];
  if (!g->op || g->op->cls != OC_CONTRACTION || g->precision == DT_NONE)
    return;
  int mult = dtype_info(g->precision)->tc_multiple;
  if (mult <= 0) return;
  OpDim dims[OP_MAX_DIMS], bad[OP_MAX_DIMS];
  int nd = dims_of(ctx->model, g, dims), nb = 0;
  for (int k = 0; k < nd; k++)
    if (dims[k].size >= mult && dims[k].size % mult != 0) bad[nb++] = dims[k];
  if (nb == 0) return;
  char pc[32];
  Diag *d = report_dims(ctx, g, mult, bad, nb, pc, sizeof pc);
  note_source(ctx, d, g, bad, nb, pc);
}

static void run(const CheckCtx *ctx) {
  CheckShared own, *sh = checks_shared_begin(ctx, &own);
  /* Only a node that matters is reported: the shared list. */
  for (int q = 0; q < sh->nnodes; q++) visit(ctx, sh->nodes[q]);
  checks_shared_end(sh, &own);
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "Tensor cores work on fixed tiles: 16-bit types want M, N and K (conv\n"
    "channels, attention's head size) in multiples of 8 elements, 8-bit\n"
    "types multiples of 16, tf32 multiples of 4.  Other sizes are padded by\n"
    "the library or sent to slower kernels whose loads are not 16-byte\n"
    "aligned.  The message gives each such dimension, the padded size and\n"
    "the extra work the padding costs (GPT-2's vocabulary: N = 50257 ->\n"
    "50264).\n"
    "\n"
    "A note names the tensor that sets the dimension, traced back through\n"
    "views (a transposed tied embedding), and suggests a multiple of "
    CHECKS_STR(CHECK_TC_PAD_MULTIPLE) ":\n"
    "beyond the padded work, a size off the multiple keeps the library from\n"
    "its aligned-load kernels.\n"
    "\n"
    "Fix: pad the dimension in the model (nanoGPT pads the vocabulary to\n"
    "50304, a multiple of 64) and ignore the padding.\n"
    "\n"
    "Not reported: dimensions smaller than the multiple (a batch of one is a\n"
    "memory-bound problem, not an alignment one), fp32 without tensor cores,\n"
    "and ops under the launch overhead or under "
    CHECKS_STR(CHECK_MIN_STEP_PCT) "% of the step.\n"
    "\n"
    "Example:\n"
    "    weight w_out : [768, 50257]\n"
    "    logits = matmul(h, w_out)       # N = 50257 -> 50264\n";
/* clang-format on */

const CheckDesc check_tc_alignment = {
    "tc-alignment", SEV_WARNING, true,
    "a contraction dimension is not a multiple tensor cores want",
    explain, run, NULL, false};
