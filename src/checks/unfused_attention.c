/* SPDX-License-Identifier: MIT */
/*
 * unfused_attention.c: the unfused-attention check.  Attention written
 * out, matmul(q, k^T) -> scale -> [mask] -> softmax -> matmul(., v), as a
 * decoder exported without a fused attention op has it, writes the
 * [.., Sq, Skv] scores to HBM and reads them back at every step of the
 * chain; a fused kernel (FlashAttention, Dao et al. 2022;
 * torch.nn.functional.scaled_dot_product_attention) keeps them on chip
 * and moves q, k, v and the result only (R-CHK-120).
 *
 * Approach: each matmul whose first operand is a softmax over the last
 * axis, that softmax's only consumer, is the end of a candidate; from the
 * softmax back, element-wise ops of the scores' shape with one consumer
 * each (the scale, the mask's add or where) lead to the matmul that made
 * the scores, itself of one consumer.  Each node is looked at from one
 * softmax at most, so the work is linear in the nodes.  The bytes the
 * chain's kernels move are weighed against those of one fused kernel:
 * q, k, v, the result and what the element-wise ops read from outside
 * (a mask), each once.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Thresholds, quoted into the --explain text below. */
#define CHECK_ATTN_MAX_CHAIN 8   /* element-wise ops between QK^T and softmax */

typedef struct Pattern {
  int qk, softmax, pv;                /* the two matmuls and the softmax */
  int chain[CHECK_ATTN_MAX_CHAIN];    /* the element-wise ops, last first */
  int nchain;
  int mask;                           /* an operand read from outside, or -1 */
} Pattern;

static bool outside_region(const GNode *g) {
  return g->op && g->region < 0 && !g->is_output && g->nconsumers == 1;
}

static bool same_dims(const TensorType *a, const TensorType *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* The operand of element-wise node g that carries the scores: an op's
 * result of g's dims and dtype with one consumer; -1 when none is. */
static int scores_operand(const Model *m, const GNode *g) {
  for (int k = 0; k < g->ninputs; k++) {
    const GNode *h = &m->nodes[g->inputs[k]];
    if (outside_region(h) && same_dims(h->type, g->type) &&
        h->type->dtype == g->type->dtype &&
        (h->op->cls == OC_ELEMENTWISE || h->op->id == OP_MATMUL))
      return g->inputs[k];
  }
  return -1;
}

/* Whether node pv ends the pattern; *p filled when it does. */
static bool match(const Model *m, int pv, Pattern *p) {
  const GNode *g = &m->nodes[pv];
  if (!g->op || g->op->id != OP_MATMUL || g->region >= 0 || g->ninputs != 2)
    return false;
  int s = g->inputs[0];
  const GNode *sm = &m->nodes[s];
  if (!outside_region(sm) || sm->op->id != OP_SOFTMAX || sm->type->rank < 2)
    return false;
  int64_t axis = sm->args->axis; /* as written: -1 or rank - 1 */
  if (axis != -1 && axis != sm->type->rank - 1) return false;
  p->pv = pv;
  p->softmax = s;
  p->nchain = 0;
  p->mask = -1;
  int at = sm->inputs[0];
  while (p->nchain <= CHECK_ATTN_MAX_CHAIN) {
    const GNode *h = &m->nodes[at];
    if (!outside_region(h) || !same_dims(h->type, sm->type)) return false;
    if (h->op->id == OP_MATMUL) {
      p->qk = at;
      return true;
    }
    if (h->op->cls != OC_ELEMENTWISE || p->nchain == CHECK_ATTN_MAX_CHAIN)
      return false;
    p->chain[p->nchain++] = at;
    int next = scores_operand(m, h);
    if (next < 0) return false;
    for (int k = 0; k < h->ninputs; k++)
      if (h->inputs[k] != next && p->mask < 0 &&
          m->nodes[h->inputs[k]].type->rank > 0)
        p->mask = h->inputs[k];
    at = next;
  }
  return false;
}

/* Bytes a fused kernel moves: q, k, v, the mask, the result; each once. */
static double fused_bytes(const Model *m, const Pattern *p) {
  const GNode *qk = &m->nodes[p->qk], *pv = &m->nodes[p->pv];
  double b = op_tensor_bytes(m->nodes[qk->inputs[0]].type) +
             op_tensor_bytes(m->nodes[qk->inputs[1]].type) +
             op_tensor_bytes(m->nodes[pv->inputs[1]].type) +
             op_tensor_bytes(pv->type);
  if (p->mask >= 0) b += op_tensor_bytes(m->nodes[p->mask].type);
  return b;
}

/* k's name when the scores' second operand is transpose(k) over its last
 * two dims, the fix-it's second operand; else NULL. */
static const char *key_name(const Model *m, const Pattern *p) {
  const GNode *kt = &m->nodes[m->nodes[p->qk].inputs[1]];
  if (!kt->op || kt->op->id != OP_TRANSPOSE || kt->ninputs != 1) return NULL;
  int r = kt->type->rank;
  for (int i = 0; i < r; i++) {
    int64_t want = i == r - 1 ? r - 2 : i == r - 2 ? r - 1 : i;
    if (kt->args->perm[i] != want) return NULL;
  }
  return m->nodes[kt->inputs[0]].name;
}

/* The fix-it: the statements from the scores' matmul to the result's,
 * consecutive in one block, become one attention() call. */
static void attention_fixit(const CheckCtx *ctx, Diag *d, const Pattern *p) {
  const Model *m = ctx->model;
  const char *k = key_name(m, p);
  StmtRef first, last;
  if (!k || p->mask >= 0 ||
      !checks_stmt_find(checks_program(ctx), m->nodes[p->qk].stmt_loc.start,
                        &first) ||
      !checks_stmt_find(checks_program(ctx), m->nodes[p->pv].stmt_loc.start,
                        &last) ||
      first.block != last.block)
    return;
  const GNode *pv = &m->nodes[p->pv], *qk = &m->nodes[p->qk];
  StrBuf text = {0};
  sb_printf(&text, "%s = attention(%s, %s, %s)", pv->name,
            m->nodes[qk->inputs[0]].name, k, m->nodes[pv->inputs[1]].name);
  diag_fixit(d, (Loc){first.stmt->loc.file, first.stmt->loc.start,
                      last.stmt->loc.end},
             sb_str(&text));
  sb_free(&text);
}

static void report(const CheckCtx *ctx, const Pattern *p, double unfused,
                   double fused, double saved) {
  const Model *m = ctx->model;
  const GNode *qk = &m->nodes[p->qk], *pv = &m->nodes[p->pv];
  StrBuf chain = {0};
  sb_printf(&chain, "matmul '%s'", qk->name);
  for (int q = p->nchain - 1; q >= 0; q--) {
    const GNode *h = &m->nodes[p->chain[q]];
    sb_printf(&chain, " -> %s '%s'", h->op->name, h->name);
  }
  sb_printf(&chain, " -> softmax '%s' -> matmul '%s'",
            m->nodes[p->softmax].name, pv->name);
  char ts[160], b1[32], b2[32], b3[32], t1[32], ps[48];
  Diag *d = checks_report(
      ctx, "unfused-attention", qk->loc,
      "attention written out (%s) writes its %s scores to memory and reads "
      "them back: %d kernels move %s, one fused attention kernel would move "
      "%s%s; fusing saves %s and %s per step",
      sb_str(&chain), op_type_str(ts, sizeof ts, qk->type), p->nchain + 3,
      fmt_bytes(b1, sizeof b1, unfused), fmt_bytes(b2, sizeof b2, fused),
      checks_per_step(ps, sizeof ps, pv->count),
      fmt_bytes(b3, sizeof b3, (unfused - fused) * pv->count),
      fmt_time(t1, sizeof t1, saved));
  sb_free(&chain);
  diag_figure(d, "scores_bytes", op_tensor_bytes(qk->type));
  diag_figure(d, "bytes_unfused", unfused);
  diag_figure(d, "bytes_fused", fused);
  diag_figure(d, "time_saved_s", saved);
  diag_note(d, pv->loc, "the attention ends at '%s'", pv->name);
  if (p->mask >= 0)
    diag_note(d, m->nodes[p->mask].loc,
              "the mask '%s' is an operand of the fused kernel "
              "(scaled_dot_product_attention's attn_mask=; attention(q, k, "
              "v, causal=true) when it is causal)",
              m->nodes[p->mask].name);
  attention_fixit(ctx, d, p);
}

/* Weighs one pattern: reported when fusing saves CHECK_MIN_STEP_PCT of
 * the step. */
static void weigh(const CheckCtx *ctx, const Pattern *p) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  int nodes[CHECK_ATTN_MAX_CHAIN + 3] = {p->qk, p->softmax, p->pv};
  int n = 3;
  for (int q = 0; q < p->nchain; q++) nodes[n++] = p->chain[q];
  double unfused = 0, flops = 0, time = 0;
  for (int q = 0; q < n; q++) {
    unfused += c->nodes[nodes[q]].bytes;
    flops += c->nodes[nodes[q]].flops;
    time += c->nodes[nodes[q]].time_s;
  }
  double fused = fused_bytes(m, p), bw = ctx->target->memory_bw;
  double t_fused = bw > 0 ? fused / bw : 0, peak = c->nodes[p->qk].peak;
  if (peak > 0 && flops / peak > t_fused) t_fused = flops / peak;
  double count = m->nodes[p->pv].count, saved = (time - t_fused) * count;
  if (fused >= unfused || saved <= 0) return;
  if (c->time_s > 0 && saved < c->time_s * CHECK_MIN_STEP_PCT / 100.0) return;
  report(ctx, p, unfused, fused, saved);
}

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  for (int i = 0; i < m->nnodes; i++) {
    Pattern p;
    if (match(m, i, &p)) weigh(ctx, &p);
  }
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
    "Attention written out as its ops, matmul(q, k^T), a scale, a mask,\n"
    "softmax and matmul(., v), runs each as a kernel: the [.., Sq, Skv]\n"
    "scores go to HBM and come back three or four times, and at long\n"
    "sequences they are most of the bytes.  A fused attention kernel\n"
    "(FlashAttention, torch.nn.functional.scaled_dot_product_attention)\n"
    "keeps them on chip and moves q, k, v and the result only.  Exporters\n"
    "write attention out unless the model calls a fused op, so an ONNX\n"
    "decoder usually has it.\n"
    "\n"
    "The message is at the first matmul: the chain, the bytes its kernels\n"
    "move and those one fused kernel would move (q, k, v, the mask, the\n"
    "result), and the bytes and time fusing saves per step.  Without a mask,\n"
    "when k^T is transpose(k) and the statements sit in one block, a fix-it\n"
    "replaces them by one `attention(q, k, v)`.\n"
    "\n"
    "Recognised: a matmul whose first operand is a softmax over the last axis\n"
    "(its only reader), the softmax reached from a matmul through up to "
    CHECKS_STR(CHECK_ATTN_MAX_CHAIN) "\n"
    "element-wise ops of the scores' shape, each intermediate read once and\n"
    "none an output or in a `fused` region.  Not reported when fusing saves\n"
    "less than " CHECKS_STR(CHECK_MIN_STEP_PCT) "% of the step.\n"
    "\n"
    "Example:\n"
    "    kt = transpose(k, [0, 1, 3, 2])\n"
    "    s = matmul(q, kt)               # fix: o = attention(q, k, v)\n"
    "    s = mul(s, 0.125)\n"
    "    p = softmax(s)\n"
    "    o = matmul(p, v)\n";
/* clang-format on */

const CheckDesc check_unfused_attention = {
    "unfused-attention", SEV_WARNING, true,
    "attention written out round-trips its scores through HBM",
    explain, run, NULL, false};
