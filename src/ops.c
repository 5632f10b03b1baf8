/* SPDX-License-Identifier: MIT */
/*
 * ops.c: the op module.  Every op is one row of ops.def (name, class,
 * arity, how its positional arguments are read, keywords, FLOP weight,
 * shape rule, cost rule, GEMM dimensions, train factor, flags, doc); this
 * file holds what the rows point to and the table made from them.  Nothing
 * outside it compares an op's name: the rest of rooflint asks the row.
 *
 * Shape rules compute the output type (dims and dtype) from the operand
 * types and resolved arguments, or report one error and return false.
 * Sema does the binding; nothing here looks at the AST.
 *
 * Cost rules give an application's FLOPs, ideal HBM bytes (every input
 * read once, every output written once) and thread blocks; cost.c applies
 * the roofline, the train factor and the kernels.  FLOPs count a
 * multiply-add as 2; FLOP weights count one FLOP per arithmetic operation
 * of the formula, with a transcendental (exp, log, sqrt, rsqrt, tanh, pow)
 * counted as one, as framework FLOP counters do; cast moves bits and does
 * no arithmetic.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rooflint.h"
#include "ops.h"

static bool fail(const ShapeCtx *ctx, Loc loc, const char *fmt, ...)
    PRINTF_LIKE(3, 4);

static bool fail(const ShapeCtx *ctx, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vreport(ctx->diags, SEV_ERROR, NULL, loc.file < 0 ? ctx->call_loc : loc,
               fmt, ap);
  va_end(ap);
  return false;
}

char *op_type_str(char *buf, size_t n, const TensorType *t) {
  size_t used = (size_t)snprintf(buf, n, "%s[", dtype_str(t->dtype));
  for (int i = 0; i < t->rank && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "",
                             (long long)t->dims[i]);
  if (used < n) snprintf(buf + used, n - used, "]");
  return buf;
}

/* The dims alone: "[1, 4096]". */
static char *dims_str(char *buf, size_t n, const int64_t *dims, int rank) {
  size_t used = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < rank && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "",
                             (long long)dims[i]);
  if (used < n) snprintf(buf + used, n - used, "]");
  return buf;
}

bool op_elements(const TensorType *t, int64_t *out) {
  int64_t e = 1;
  for (int i = 0; i < t->rank; i++)
    if (!util_mul_i64(e, t->dims[i], &e)) return false;
  *out = e;
  return true;
}

/* Normalises a possibly negative axis against `rank`. */
static bool norm_axis(const ShapeCtx *ctx, const OpDesc *op, int64_t *axis,
                      int rank) {
  if (*axis < -rank || *axis >= rank) {
    if (rank == 0)
      return fail(ctx, ctx->axis_loc, "axis %lld is out of range for %s of a "
                  "rank-0 tensor", (long long)*axis, op->name);
    return fail(ctx, ctx->axis_loc,
                "axis %lld is out of range for rank %d (valid: %d to %d)",
                (long long)*axis, rank, -rank, rank - 1);
  }
  if (*axis < 0) *axis += rank;
  return true;
}

/* The result dtype of combining operands: floats win over integers, the
 * widest wins; two different floats of one width (bf16 and fp16) have no
 * lossless common type, so that is an error.  DT_NONE operands are scalar
 * numbers and never widen. */
static bool promote(const ShapeCtx *ctx, const OpDesc *op,
                    const TensorType *in, int nin, DType *out) {
  DType best = DT_NONE;
  for (int i = 0; i < nin; i++) {
    DType d = in[i].dtype;
    if (d == DT_NONE || d == best) continue;
    /* Two floats of one width (bf16 and fp16) have no lossless common type. */
    if (best != DT_NONE && dtype_info(best)->is_float &&
        dtype_info(d)->is_float && dtype_info(best)->bits == dtype_info(d)->bits)
      return fail(ctx, ctx->call_loc,
                  "mixed dtypes %s and %s in %s; insert a cast",
                  dtype_str(best), dtype_str(d), op->name);
    best = dtype_wider(best, d);
  }
  *out = best;
  return true;
}

/* Numpy broadcasting of a and b into out (dims only). */
static bool broadcast(const ShapeCtx *ctx, const OpDesc *op,
                      const TensorType *a, const TensorType *b,
                      TensorType *out) {
  int rank = a->rank > b->rank ? a->rank : b->rank;
  out->rank = rank;
  for (int i = 1; i <= rank; i++) {
    int64_t da = i <= a->rank ? a->dims[a->rank - i] : 1;
    int64_t db = i <= b->rank ? b->dims[b->rank - i] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[160], sb[160];
      return fail(ctx, ctx->call_loc,
                  "cannot broadcast %s with %s in %s: %lld vs %lld at axis %d",
                  op_type_str(sa, sizeof sa, a), op_type_str(sb, sizeof sb, b),
                  op->name, (long long)da, (long long)db, -i);
    }
    out->dims[rank - i] = da == 1 ? db : da;
  }
  return true;
}

static bool shape_same(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)nin; (void)args; (void)ctx;
  *out = in[0];
  return true;
}

static bool shape_binary(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)args;
  TensorType t = {0};
  if (!broadcast(ctx, op, &in[0], &in[1], &t)) return false;
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  *out = t;
  return true;
}

static bool shape_cast(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)nin; (void)ctx;
  *out = in[0];
  out->dtype = args->cast_to;
  return true;
}

static bool shape_softmax(const OpDesc *op, const TensorType *in, int nin,
                          OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  *out = in[0];
  return true;
}

/* layernorm/rmsnorm: every parameter (w, b) has the dims normalised over,
 * x.dims[axis:]. */
static bool shape_norm(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  int k = in[0].rank - (int)args->axis;
  const int64_t *want = in[0].dims + args->axis;
  for (int i = 1; i < nin; i++) {
    bool ok = in[i].rank == k;
    for (int j = 0; ok && j < k; j++) ok = in[i].dims[j] == want[j];
    if (!ok) {
      char sp[160], sw[160];
      return fail(ctx, ctx->arg_locs[i],
                  "%s parameter %s does not match the normalised dims %s",
                  op->name, op_type_str(sp, sizeof sp, &in[i]),
                  dims_str(sw, sizeof sw, want, k));
    }
  }
  TensorType t = in[0];
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  *out = t;
  return true;
}

static bool shape_reduce(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  TensorType t = in[0];
  if (args->keepdims) {
    t.dims[args->axis] = 1;
  } else {
    for (int i = (int)args->axis; i + 1 < t.rank; i++) t.dims[i] = t.dims[i + 1];
    t.rank--;
  }
  *out = t;
  return true;
}

/* A bias= operand (the last input) broadcasts to the output unchanged:
 * [N] for a matmul, [Cout] for a convolution (R-SHAPE-044). */
static bool check_bias(const OpDesc *op, const TensorType *in, int nin,
                       const OpArgs *args, const TensorType *out,
                       const ShapeCtx *ctx);

/* numpy matmul: a 1-D left operand is a row [1, K] and a 1-D right operand a
 * column [K, 1], the added dim dropped from the result; leading dims are
 * batch dims and broadcast. */
static bool shape_matmul(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  const TensorType *a = &in[0], *b = &in[1];
  for (int i = 0; i < 2; i++)
    if (in[i].rank == 0)
      return fail(ctx, ctx->arg_locs[i],
                  "matmul operand must have rank 1 or more, got a scalar");
  int64_t m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  int64_t ka = a->dims[a->rank - 1];
  int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
  int64_t n = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if (ka != kb) {
    char sa[160], sb[160];
    return fail(ctx, ctx->call_loc,
                "matmul inner dimensions differ: %s x %s (%lld vs %lld)",
                op_type_str(sa, sizeof sa, a), op_type_str(sb, sizeof sb, b),
                (long long)ka, (long long)kb);
  }
  TensorType ba = {0}, bb = {0}, t = {0};
  ba.rank = a->rank > 2 ? a->rank - 2 : 0;
  bb.rank = b->rank > 2 ? b->rank - 2 : 0;
  memcpy(ba.dims, a->dims, sizeof(int64_t) * (size_t)ba.rank);
  memcpy(bb.dims, b->dims, sizeof(int64_t) * (size_t)bb.rank);
  ba.dtype = a->dtype;
  bb.dtype = b->dtype;
  if (!broadcast(ctx, op, &ba, &bb, &t)) return false;
  if (a->rank > 1) t.dims[t.rank++] = m;
  if (b->rank > 1) {
    if (t.rank >= MAX_RANK)
      return fail(ctx, ctx->call_loc, "matmul result rank exceeds %d", MAX_RANK);
    t.dims[t.rank++] = n;
  }
  if (!promote(ctx, op, in, 2, &t.dtype)) return false;
  if (!check_bias(op, in, nin, args, &t, ctx)) return false;
  *out = t;
  return true;
}

static bool need_rank(const ShapeCtx *ctx, const OpDesc *op,
                      const TensorType *t, int i, int rank, const char *what) {
  if (t->rank == rank) return true;
  char s[160];
  return fail(ctx, ctx->arg_locs[i], "%s expects %s of rank %d, got %s",
              op->name, what, rank, op_type_str(s, sizeof s, t));
}

/* One spatial output size of a convolution/pool window, floor or ceil:
 * floor((h + 2p - d(k-1) - 1) / s) + 1.  Every step is checked: false when
 * one overflows 64 bits (a dilation or padding of 2^62). */
static bool window_out(int64_t h, int64_t k, int64_t s, int64_t p, int64_t d,
                       bool ceil_mode, int64_t *out) {
  int64_t padded, reach, span, o;
  if (!util_mul_i64(2, p, &padded) || !util_add_i64(h, padded, &padded) ||
      !util_mul_i64(d, k - 1, &reach) || !util_add_i64(reach, 1, &reach) ||
      !util_add_i64(padded, -reach, &span))
    return false;
  if (span < 0) {
    *out = 0;
    return true;
  }
  /* s >= 1 and span >= 0: ceil(span / s) without forming span + s - 1 */
  o = span / s + (ceil_mode && span % s != 0);
  if (!util_add_i64(o, 1, &o)) return false;
  /* as PyTorch: the last window must start inside the input or left pad
   * (h + p <= h + 2p fits; a start past 64 bits is past it) */
  int64_t start;
  if (ceil_mode && (!util_mul_i64(o - 1, s, &start) || start >= h + p)) o--;
  *out = o;
  return true;
}

/* The axis names of 1, 2 and 3 spatial dims: [nsp - 1][i]. */
static const char *const axis_names[3][3] = {
    {"length"}, {"height", "width"}, {"depth", "height", "width"}};

static bool spatial(const OpDesc *op, const TensorType *x, const OpArgs *args,
                    const int64_t *k, int nsp, bool ceil_mode, TensorType *t,
                    const ShapeCtx *ctx) {
  const char *const *axis_name = axis_names[nsp - 1];
  for (int i = 0; i < nsp; i++) {
    int64_t o;
    if (!window_out(x->dims[2 + i], k[i], args->stride[i], args->padding[i],
                    args->dilation[i], ceil_mode, &o))
      return fail(ctx, ctx->call_loc,
                  "%s output %s overflows 64 bits: input %lld with window "
                  "%lld, padding %lld, dilation %lld, stride %lld",
                  op->name, axis_name[i], (long long)x->dims[2 + i],
                  (long long)k[i], (long long)args->padding[i],
                  (long long)args->dilation[i], (long long)args->stride[i]);
    if (o < 1)
      return fail(ctx, ctx->call_loc,
                  "%s output %s would be %lld: input %lld with window %lld, "
                  "padding %lld, dilation %lld",
                  op->name, axis_name[i], (long long)o,
                  (long long)x->dims[2 + i], (long long)k[i],
                  (long long)args->padding[i], (long long)args->dilation[i]);
    t->dims[2 + i] = o;
  }
  return true;
}

/* conv1d/2d/3d: x [N, Cin, *spatial], w [Cout, Cin/groups, *kernel];
 * nsp spatial dims (R-SHAPE-003, R-SHAPE-045). */
static bool shape_conv(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx,
                       int nsp) {
  static const char *const xs[3] = {"input [N, C, L]", "input [N, C, H, W]",
                                    "input [N, C, D, H, W]"};
  static const char *const ws[3] = {"weight [Cout, Cin/groups, k]",
                                    "weight [Cout, Cin/groups, kh, kw]",
                                    "weight [Cout, Cin/groups, kd, kh, kw]"};
  const TensorType *x = &in[0], *w = &in[1];
  if (!need_rank(ctx, op, x, 0, nsp + 2, xs[nsp - 1]) ||
      !need_rank(ctx, op, w, 1, nsp + 2, ws[nsp - 1]))
    return false;
  int64_t g = args->groups;
  if (x->dims[1] != w->dims[1] * g)
    return fail(ctx, ctx->call_loc,
                "%s channels differ: input has %lld, weight expects %lld "
                "(%lld x groups=%lld)",
                op->name, (long long)x->dims[1], (long long)(w->dims[1] * g),
                (long long)w->dims[1], (long long)g);
  if (w->dims[0] % g != 0)
    return fail(ctx, ctx->arg_locs[1],
                "%s output channels %lld are not a multiple of groups=%lld",
                op->name, (long long)w->dims[0], (long long)g);
  TensorType t = *x;
  t.dims[1] = w->dims[0];
  if (!spatial(op, x, args, w->dims + 2, nsp, false, &t, ctx)) return false;
  if (!promote(ctx, op, in, 2, &t.dtype)) return false;
  if (!check_bias(op, in, nin, args, &t, ctx)) return false;
  *out = t;
  return true;
}

static bool shape_conv2d(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  return shape_conv(op, in, nin, args, out, ctx, 2);
}

/* maxpool/avgpool 1d/2d/3d: x [N, C, *spatial], nsp spatial dims
 * (R-SHAPE-010). */
static bool shape_pool(const OpDesc *op, const TensorType *in, OpArgs *args,
                       TensorType *out, const ShapeCtx *ctx, int nsp) {
  static const char *const xs[3] = {"input [N, C, L]", "input [N, C, H, W]",
                                    "input [N, C, D, H, W]"};
  if (!need_rank(ctx, op, &in[0], 0, nsp + 2, xs[nsp - 1])) return false;
  for (int i = 0; i < nsp; i++) {
    if (args->stride[i] == 0) args->stride[i] = args->kernel[i];
    args->dilation[i] = 1; /* pools have no dilation keyword */
    /* padding > kernel / 2 is padding * 2 > kernel without the overflow */
    if (args->padding[i] > args->kernel[i] / 2)
      return fail(ctx, ctx->call_loc,
                  "%s padding %lld is more than half the kernel %lld",
                  op->name, (long long)args->padding[i],
                  (long long)args->kernel[i]);
  }
  TensorType t = in[0];
  if (!spatial(op, &in[0], args, args->kernel, nsp, args->ceil_mode, &t, ctx))
    return false;
  *out = t;
  return true;
}

static bool shape_pool1d(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  return shape_pool(op, in, args, out, ctx, 1);
}

static bool shape_pool2d(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  return shape_pool(op, in, args, out, ctx, 2);
}

static bool shape_pool3d(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  return shape_pool(op, in, args, out, ctx, 3);
}

/* A warning (no check of its own: a shape finding, as R-SHAPE-004 says)
 * when q and k read as [..., heads, seq, dim] have more heads than
 * positions in both, and the other reading, [..., seq, heads, dim] (the
 * transpose forgotten after splitting heads), is valid grouped-query
 * attention: q [1, 128, 32, 128] with k [1, 128, 8, 128] is read as 128
 * heads of 32 queries over 8 keys, where 128 tokens of 32 and 8 heads were
 * meant, and costs 16x too few FLOPs. */
static void check_layout(const TensorType *q, const TensorType *k,
                         const ShapeCtx *ctx) {
  int r = q->rank;
  if (r < 3) return;
  int64_t h = q->dims[r - 3], sq = q->dims[r - 2];
  int64_t hkv = k->dims[r - 3], skv = k->dims[r - 2];
  if (h <= sq || hkv <= skv || sq % skv != 0) return;
  char tq[160], tk[160];
  Diag *d = diag_report(
      ctx->diags, SEV_WARNING, NULL, ctx->call_loc,
      "attention reads q %s as %lld heads of %lld queries and k %s as %lld "
      "heads of %lld keys: more heads than positions; is it [..., seq, "
      "heads, dim] with the transpose forgotten?",
      op_type_str(tq, sizeof tq, q), (long long)h, (long long)sq,
      op_type_str(tk, sizeof tk, k), (long long)hkv, (long long)skv);
  diag_note(d, ctx->call_loc,
            "attention takes [..., heads, seq, dim]: transpose q, k and v "
            "(swap their dims %d and %d) if they are [..., seq, heads, dim]",
            r - 3, r - 2);
}

/* The additive bias of attention(q, k, v, bias) (R-FAM-102): it
 * broadcasts to the scores [..., H, Sq, Skv] without widening them, as
 * scaled_dot_product_attention's float attn_mask does (T5's relative
 * position bias, [H, Sq, Skv]). */
static bool check_attention_bias(const OpDesc *op, const TensorType *in,
                                 const ShapeCtx *ctx) {
  (void)op;
  const TensorType *q = &in[0], *k = &in[1], *b = &in[3];
  TensorType scores = *q;
  scores.dims[q->rank - 1] = k->dims[k->rank - 2];
  bool fits = b->rank <= scores.rank;
  for (int i = 1; fits && i <= b->rank; i++) {
    int64_t d = b->dims[b->rank - i];
    fits = d == 1 || d == scores.dims[scores.rank - i];
  }
  char sb[160], ss[160];
  if (!fits)
    return fail(ctx, ctx->arg_locs[3],
                "attention bias %s does not broadcast to the scores %s "
                "[..., heads, queries, keys]",
                op_type_str(sb, sizeof sb, b),
                op_type_str(ss, sizeof ss, &scores));
  return true;
}

/* q [..., H, Sq, d], k [..., Hkv, Skv, d], v [..., Hkv, Skv, dv]; 2-D
 * [S, d] inputs are a single head, as torch's scaled_dot_product_attention
 * takes them. */
static bool shape_attention(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  (void)args;
  static const char *const names[3] = {"q", "k", "v"};
  const TensorType *q = &in[0], *k = &in[1], *v = &in[2];
  char sq[160], sk[160];
  for (int i = 0; i < 3; i++)
    if (in[i].rank < 2)
      return fail(ctx, ctx->arg_locs[i],
                  "attention %s must be [..., heads, seq, dim] or [seq, dim], "
                  "got %s",
                  names[i], op_type_str(sq, sizeof sq, &in[i]));
  if (k->rank != q->rank || v->rank != q->rank)
    return fail(ctx, ctx->call_loc,
                "attention q, k and v must have the same rank, got %d, %d, %d",
                q->rank, k->rank, v->rank);
  int r = q->rank;
  for (int i = 0; i < r - 3; i++)
    if (k->dims[i] != q->dims[i] || v->dims[i] != q->dims[i])
      return fail(ctx, ctx->call_loc,
                  "attention batch dims differ: q %s, k %s",
                  op_type_str(sq, sizeof sq, q), op_type_str(sk, sizeof sk, k));
  int64_t h = r >= 3 ? q->dims[r - 3] : 1, hkv = r >= 3 ? k->dims[r - 3] : 1;
  if ((r >= 3 && v->dims[r - 3] != hkv) || v->dims[r - 2] != k->dims[r - 2])
    return fail(ctx, ctx->arg_locs[2],
                "attention k and v differ in heads or length: k %s, v %s",
                op_type_str(sq, sizeof sq, k), op_type_str(sk, sizeof sk, v));
  if (q->dims[r - 1] != k->dims[r - 1])
    return fail(ctx, ctx->call_loc,
                "attention head dim of q and k differ: %lld vs %lld",
                (long long)q->dims[r - 1], (long long)k->dims[r - 1]);
  if (h % hkv != 0)
    return fail(ctx, ctx->call_loc,
                "attention query heads %lld are not a multiple of key/value "
                "heads %lld",
                (long long)h, (long long)hkv);
  TensorType t = *q;
  t.dims[r - 1] = v->dims[r - 1];
  if (!promote(ctx, op, in, 3, &t.dtype)) return false;
  if (nin == 4 && !check_attention_bias(op, in, ctx)) return false;
  check_layout(q, k, ctx);
  *out = t;
  return true;
}

static bool shape_reshape(const OpDesc *op, const TensorType *in, int nin,
                          OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)nin;
  int64_t have, want = 1;
  int infer = -1;
  char sx[160], sd[160];
  if (!op_elements(&in[0], &have))
    return fail(ctx, ctx->call_loc, "element count overflows 64 bits");
  (void)args;
  for (int i = 0; i < ctx->nlist; i++) {
    if (ctx->list[i] == -1) {
      if (infer >= 0)
        return fail(ctx, ctx->list_loc, "reshape allows only one -1");
      infer = i;
    } else if (!util_mul_i64(want, ctx->list[i], &want)) {
      return fail(ctx, ctx->list_loc, "element count overflows 64 bits");
    }
  }
  TensorType t = {.dtype = in[0].dtype, .rank = ctx->nlist};
  memcpy(t.dims, ctx->list, sizeof(int64_t) * (size_t)ctx->nlist);
  if (infer >= 0) {
    if (have % want != 0)
      return fail(ctx, ctx->list_loc,
                  "reshape cannot infer -1: %lld elements of %s are not a "
                  "multiple of %lld",
                  (long long)have, op_type_str(sx, sizeof sx, &in[0]),
                  (long long)want);
    t.dims[infer] = have / want;
  } else if (want != have) {
    return fail(ctx, ctx->list_loc,
                "reshape changes the element count: %s has %lld, %s has %lld",
                op_type_str(sx, sizeof sx, &in[0]), (long long)have,
                dims_str(sd, sizeof sd, ctx->list, ctx->nlist),
                (long long)want);
  }
  *out = t;
  return true;
}

static bool shape_transpose(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  (void)op; (void)nin;
  int r = in[0].rank;
  bool seen[MAX_RANK] = {false}, ok = ctx->nlist == r;
  for (int i = 0; ok && i < r; i++) {
    int64_t p = ctx->list[i];
    if (p < 0) p += r;
    ok = p >= 0 && p < r && !seen[p];
    if (ok) {
      seen[p] = true;
      args->perm[i] = p;
    }
  }
  if (!ok) {
    char sp[160];
    return fail(ctx, ctx->list_loc,
                "transpose needs a permutation of 0..%d, got %s", r - 1,
                dims_str(sp, sizeof sp, ctx->list, ctx->nlist));
  }
  TensorType t = in[0];
  for (int i = 0; i < r; i++) t.dims[i] = in[0].dims[args->perm[i]];
  *out = t;
  return true;
}

static bool shape_concat(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  TensorType t = in[0];
  char s0[160], si[160];
  for (int i = 1; i < nin; i++) {
    bool ok = in[i].rank == t.rank;
    for (int j = 0; ok && j < t.rank; j++)
      ok = j == args->axis || in[i].dims[j] == in[0].dims[j];
    if (!ok)
      return fail(ctx, ctx->arg_locs[i],
                  "concat along axis %lld needs equal other dims: %s and %s",
                  (long long)args->axis, op_type_str(s0, sizeof s0, &in[0]),
                  op_type_str(si, sizeof si, &in[i]));
    if (!util_add_i64(t.dims[args->axis], in[i].dims[args->axis],
                      &t.dims[args->axis]))
      return fail(ctx, ctx->call_loc, "dimension overflows 64 bits");
  }
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  *out = t;
  return true;
}

static bool shape_embedding(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  (void)nin; (void)args;
  char s[160];
  if (dtype_info(in[0].dtype)->is_float || in[0].dtype == DT_BOOL)
    return fail(ctx, ctx->arg_locs[0],
                "embedding ids must have an integer dtype, got %s",
                op_type_str(s, sizeof s, &in[0]));
  if (!need_rank(ctx, op, &in[1], 1, 2, "table [rows, dim]")) return false;
  if (in[0].rank + 1 > MAX_RANK)
    return fail(ctx, ctx->call_loc, "embedding result rank exceeds %d",
                MAX_RANK);
  TensorType t = in[0];
  t.dims[t.rank++] = in[1].dims[1];
  t.dtype = in[1].dtype;
  *out = t;
  return true;
}

static bool shape_allgather(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  TensorType t = in[0];
  if (!util_mul_i64(t.dims[args->axis], ctx->ranks, &t.dims[args->axis]))
    return fail(ctx, ctx->call_loc, "dimension overflows 64 bits");
  *out = t;
  return true;
}

/* R-PAR-003: group=data|tensor|pipeline|expert (ParGroup's first rows) */
static const char *const group_choices[] = {"data", "tensor", "pipeline",
                                            "expert", NULL};

static bool shape_reduce_scatter(const OpDesc *op, const TensorType *in,
                                 int nin, OpArgs *args, TensorType *out,
                                 const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  TensorType t = in[0];
  int64_t d = t.dims[args->axis];
  if (d % ctx->ranks != 0)
    return fail(ctx, ctx->call_loc,
                "reduce_scatter dim %lld (axis %lld) does not divide by the "
                "%s-parallel degree %lld",
                (long long)d, (long long)args->axis,
                args->group >= 0 && args->group < PG__NAMED
                    ? group_choices[args->group]
                    : "?",
                (long long)ctx->ranks);
  t.dims[args->axis] = d / ctx->ranks;
  *out = t;
  return true;
}

static bool shape_custom(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)in; (void)nin; (void)args;
  *out = *ctx->declared;
  return true;
}

/* Keyword tables.  Pool stride defaults to 0, meaning "the kernel". */
static const KwDesc kw_none[] = {{NULL, 0, false, 0, NULL}};
static const KwDesc kw_axis_last[] = {{"axis", KW_INT, false, -1, NULL},
                                      {NULL, 0, false, 0, NULL}};
static const KwDesc kw_axis_first[] = {{"axis", KW_INT, false, 0, NULL},
                                       {NULL, 0, false, 0, NULL}};
static const KwDesc kw_group[] = {{"group", KW_WORD, false, 0, group_choices},
                                  {NULL, 0, false, 0, NULL}};
static const KwDesc kw_axis_group[] = {
    {"axis", KW_INT, false, 0, NULL},
    {"group", KW_WORD, false, 0, group_choices},
    {NULL, 0, false, 0, NULL}};
static const KwDesc kw_reduce[] = {{"axis", KW_INT, true, 0, NULL},
                                   {"keepdims", KW_BOOL, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};
static const KwDesc kw_conv[] = {{"stride", KW_INT_PAIR, false, 1, NULL},
                                 {"padding", KW_INT_PAIR, false, 0, NULL},
                                 {"dilation", KW_INT_PAIR, false, 1, NULL},
                                 {"groups", KW_INT, false, 1, NULL},
                                 {"bias", KW_TENSOR, false, 0, NULL},
                                 {NULL, 0, false, 0, NULL}};
static const KwDesc kw_pool[] = {{"kernel", KW_INT_PAIR, true, 0, NULL},
                                 {"stride", KW_INT_PAIR, false, 0, NULL},
                                 {"padding", KW_INT_PAIR, false, 0, NULL},
                                 {"ceil_mode", KW_BOOL, false, 0, NULL},
                                 {NULL, 0, false, 0, NULL}};
static const KwDesc kw_pool1d[] = {{"kernel", KW_INT, true, 0, NULL},
                                   {"stride", KW_INT, false, 0, NULL},
                                   {"padding", KW_INT, false, 0, NULL},
                                   {"ceil_mode", KW_BOOL, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};
static const KwDesc kw_pool3d[] = {{"kernel", KW_INT_TRIPLE, true, 0, NULL},
                                   {"stride", KW_INT_TRIPLE, false, 0, NULL},
                                   {"padding", KW_INT_TRIPLE, false, 0, NULL},
                                   {"ceil_mode", KW_BOOL, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};
static const KwDesc kw_attention[] = {{"causal", KW_BOOL, false, 0, NULL},
                                      {"alibi", KW_BOOL, false, 0, NULL},
                                      {"sinks", KW_BOOL, false, 0, NULL},
                                      {NULL, 0, false, 0, NULL}};
static const KwDesc kw_custom[] = {{"flops", KW_REAL, true, 0, NULL},
                                   {"bytes", KW_REAL, true, 0, NULL},
                                   {"out", KW_TYPE, true, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};


/* ------------------------------------------------- views (R-VIEW-001..006)
 * No kernel and no bytes, like reshape: a view only relabels its input's
 * storage (PyTorch returns these as views).  Each rule below gives the
 * result type and normalises its arguments in args. */

/* slice(x, axis=, start=0, end=, step=1): PyTorch's basic slicing, a
 * negative index counting from the end and both ends clamped to the
 * axis; an empty result is an error (dims are positive). */
static bool shape_slice(const OpDesc *op, const TensorType *in, int nin,
                        OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  int64_t d = in[0].dims[args->axis], b = args->start, e = args->end;
  if (b < 0) b = b < -d ? 0 : b + d;
  if (e < 0) e = e < -d ? 0 : e + d;
  if (b > d) b = d;
  if (e > d) e = d;
  if (e <= b)
    return fail(ctx, ctx->call_loc,
                "slice of axis %lld (size %lld) is empty: start %lld, end "
                "%lld clamp to %lld..%lld; start must be below end and the "
                "axis size",
                (long long)args->axis, (long long)d, (long long)args->start,
                (long long)(args->end == INT64_MAX ? d : args->end),
                (long long)b, (long long)e);
  args->start = b;
  args->end = e;
  TensorType t = in[0];
  t.dims[args->axis] = (e - b - 1) / args->step + 1;
  *out = t;
  return true;
}

/* select(x, axis=, index=): x[..., index, ...], the axis removed. */
static bool shape_select(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  int64_t d = in[0].dims[args->axis];
  if (args->index < -d || args->index >= d)
    return fail(ctx, ctx->call_loc,
                "select index %lld is out of range for axis %lld of size "
                "%lld (valid: %lld to %lld)",
                (long long)args->index, (long long)args->axis, (long long)d,
                (long long)-d, (long long)(d - 1));
  if (args->index < 0) args->index += d;
  TensorType t = in[0];
  for (int i = (int)args->axis; i + 1 < t.rank; i++) t.dims[i] = t.dims[i + 1];
  t.rank--;
  *out = t;
  return true;
}

/* squeeze(x, axis=): the dim must be 1 (ONNX Squeeze; PyTorch would leave
 * another size unchanged, which hides a mistake). */
static bool shape_squeeze(const OpDesc *op, const TensorType *in, int nin,
                          OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  int64_t d = in[0].dims[args->axis];
  if (d != 1)
    return fail(ctx, ctx->axis_loc,
                "squeeze axis %lld has size %lld, not 1; select(x, axis=%lld, "
                "index=i) takes one entry of it",
                (long long)args->axis, (long long)d, (long long)args->axis);
  args->index = 0;
  return shape_select(op, in, nin, args, out, ctx);
}

/* unsqueeze(x, axis=): a size-1 dim at axis of the result, -1 the last. */
static bool shape_unsqueeze(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  (void)nin;
  if (in[0].rank + 1 > MAX_RANK)
    return fail(ctx, ctx->call_loc, "unsqueeze result rank exceeds %d",
                MAX_RANK);
  if (!norm_axis(ctx, op, &args->axis, in[0].rank + 1)) return false;
  args->has_axis = true;
  TensorType t = in[0];
  for (int i = t.rank; i > (int)args->axis; i--) t.dims[i] = t.dims[i - 1];
  t.dims[args->axis] = 1;
  t.rank++;
  *out = t;
  return true;
}

/* flatten(x, start=0, end=-1): dims start..end (axes, inclusive) as one,
 * as torch.flatten. */
static bool shape_flatten(const OpDesc *op, const TensorType *in, int nin,
                          OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->start, in[0].rank) ||
      !norm_axis(ctx, op, &args->end, in[0].rank))
    return false;
  if (args->start > args->end)
    return fail(ctx, ctx->call_loc,
                "flatten start %lld comes after end %lld; start <= end",
                (long long)args->start, (long long)args->end);
  TensorType t = in[0];
  int64_t n = 1;
  for (int64_t i = args->start; i <= args->end; i++) n *= in[0].dims[i];
  int k = (int)(args->end - args->start);
  t.dims[args->start] = n; /* fits: the element count of x does */
  for (int i = (int)args->start + 1; i + k < t.rank; i++)
    t.dims[i] = t.dims[i + k];
  t.rank -= k;
  *out = t;
  return true;
}

/* expand(x, [dims]): PyTorch's expand / ONNX Expand, x aligned to the
 * right; a size-1 dim broadcasts, -1 keeps the dim, new leading dims are
 * added. */
static bool shape_expand(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin; (void)args;
  const TensorType *x = &in[0];
  char sx[160], sd[160];
  int n = ctx->nlist, lead = n - x->rank;
  if (lead < 0)
    return fail(ctx, ctx->list_loc,
                "expand of %s needs at least %d dims, got %s",
                op_type_str(sx, sizeof sx, x), x->rank,
                dims_str(sd, sizeof sd, ctx->list, n));
  TensorType t = {.dtype = x->dtype, .rank = n};
  for (int i = 0; i < n; i++) {
    int64_t want = ctx->list[i], have = i < lead ? 0 : x->dims[i - lead];
    if (want == -1 && i < lead)
      return fail(ctx, ctx->list_loc,
                  "expand -1 at dim %d, a new leading dim, has no size to "
                  "keep; give its size",
                  i);
    if (want != -1 && i >= lead && have != 1 && have != want)
      return fail(ctx, ctx->list_loc,
                  "%s %s cannot expand to %s: dim %d is %lld, not 1; only "
                  "size-1 dims broadcast",
                  op->name, op_type_str(sx, sizeof sx, x),
                  dims_str(sd, sizeof sd, ctx->list, n), i, (long long)have);
    t.dims[i] = want == -1 ? have : want;
  }
  *out = t;
  return true;
}

/* a, b, ... = split(x, N, axis=) (N equal parts) or split(x, [sizes],
 * axis=), torch.split's sizes / ONNX Split: result ctx->result is the
 * slice of axis from the sum of the sizes before it; args->start/end
 * hold that range. */
static bool shape_split(const OpDesc *op, const TensorType *in, int nin,
                        OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  int64_t d = in[0].dims[args->axis], sum = 0, at = 0, size = 0;
  int parts = ctx->nlist < 0 ? -ctx->nlist : ctx->nlist;
  if (ctx->nlist < 0 && d % parts != 0)
    return fail(ctx, ctx->list_loc,
                "split of axis %lld (size %lld) into %d equal parts does not "
                "divide: %lld = %d x %lld + %lld; give the sizes as a list",
                (long long)args->axis, (long long)d, parts, (long long)d,
                parts, (long long)(d / parts), (long long)(d % parts));
  for (int i = 0; i < parts; i++) {
    int64_t p = ctx->nlist < 0 ? d / parts : ctx->list[i];
    if (p < 1)
      return fail(ctx, ctx->list_loc, "split sizes must be positive, got %lld",
                  (long long)p);
    if (i == ctx->result) {
      at = sum;
      size = p;
    }
    if (!util_add_i64(sum, p, &sum))
      return fail(ctx, ctx->list_loc, "split sizes overflow 64 bits");
  }
  if (sum != d) {
    char sd[160];
    return fail(ctx, ctx->list_loc,
                "split sizes %s add up to %lld, not the size %lld of axis %lld",
                dims_str(sd, sizeof sd, ctx->list, ctx->nlist),
                (long long)sum, (long long)d, (long long)args->axis);
  }
  if (parts != ctx->nresults)
    return fail(ctx, ctx->call_loc,
                "split gives %d results, %d name%s bound to them; write %s",
                parts, ctx->nresults, ctx->nresults == 1 ? " is" : "s are",
                parts == 2 ? "a, b = split(...)" : "one name per part: a, b, c = split(...)");
  args->start = at;
  args->end = at + size;
  TensorType t = in[0];
  t.dims[args->axis] = size;
  *out = t;
  return true;
}

static const KwDesc kw_slice[] = {{"axis", KW_INT, true, 0, NULL},
                                  {"start", KW_INT, false, 0, NULL},
                                  {"end", KW_INT, false, INT64_MAX, NULL},
                                  {"step", KW_INT, false, 1, NULL},
                                  {NULL, 0, false, 0, NULL}};
static const KwDesc kw_select[] = {{"axis", KW_INT, true, 0, NULL},
                                   {"index", KW_INT, true, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};
static const KwDesc kw_axis_required[] = {{"axis", KW_INT, true, 0, NULL},
                                          {NULL, 0, false, 0, NULL}};
static const KwDesc kw_flatten[] = {{"start", KW_INT, false, 0, NULL},
                                    {"end", KW_INT, false, -1, NULL},
                                    {NULL, 0, false, 0, NULL}};

/* ------------------------------------------------------------------ cost */

/* One attention block covers this many query rows (FlashAttention-style). */
#define ATTN_ROWS_PER_BLOCK 128

double op_tensor_elements(const TensorType *t) {
  double n = 1;
  for (int i = 0; i < t->rank; i++) n *= (double)t->dims[i];
  return n;
}

double op_tensor_bytes(const TensorType *t) {
  if (t->dtype == DT_NONE) return 0;
  return op_tensor_elements(t) * dtype_info(t->dtype)->bytes;
}

/* The rows a norm's statistics are kept for: each normalised group of
 * elements (batchnorm: a channel; groupnorm: a sample's group; instancenorm:
 * a sample's channel; layernorm and rmsnorm: the dims before axis=). */
static double stat_rows(const OpDesc *op, const TensorType *x,
                        const OpArgs *args) {
  double rows = 1;
  switch (op->id) {
  case OP_BATCHNORM: return x->rank > 1 ? (double)x->dims[1] : 1;
  case OP_GROUPNORM: return (double)x->dims[0] * (double)args->groups;
  case OP_INSTANCENORM:
    return (double)x->dims[0] * (x->rank > 1 ? (double)x->dims[1] : 1);
  default:
    for (int d = 0; d < args->axis && d < x->rank; d++) rows *= (double)x->dims[d];
    return rows;
  }
}

static void add_state(double *by_dtype, DType dt, double bytes, double *sum) {
  *sum += bytes;
  if (by_dtype && dt != DT_NONE) by_dtype[dt] += bytes;
}

double op_saved_state_bytes(const OpDesc *op, const TensorType *in0,
                            const TensorType *out, const OpArgs *args,
                            double *by_dtype) {
  unsigned sv = op->saves;
  double sum = 0, elems = op_tensor_elements(out);
  /* a bool a byte, as torch.native_dropout returns its mask */
  if (sv & SV_MASK) add_state(by_dtype, DT_BOOL, elems, &sum);
  if (sv & SV_INDEX) add_state(by_dtype, DT_INT64, elems * 8, &sum);
  if ((sv & SV_LSE) && out->rank > 0 && out->dims[out->rank - 1] > 0)
    add_state(by_dtype, DT_FP32, elems / (double)out->dims[out->rank - 1] * 4,
              &sum);
  if ((sv & SV_PROBS) && in0)
    add_state(by_dtype, in0->dtype, op_tensor_bytes(in0), &sum);
  if ((sv & SV_GATES) && in0) /* per element of Y: LSTM i, f, g, o, c; GRU z, r, n, r_n */
    add_state(by_dtype, in0->dtype,
              elems * (op->id == OP_LSTM ? 5 : 4) * dtype_info(in0->dtype)->bytes,
              &sum);
  if ((sv & (SV_STATS1 | SV_STATS2)) && in0)
    add_state(by_dtype, DT_FP32,
              stat_rows(op, in0, args) * 4 * ((sv & SV_STATS2) ? 2 : 1), &sum);
  return sum;
}

static const TensorType *op_in_type(const OpIn *x, int i) {
  return x->model->nodes[x->inputs[i]].type;
}

/* Bytes of the distinct operands (x read once in add(x, x)) plus the
 * result: every input read from HBM once, the output written once. */
static double io_bytes(const OpIn *x) {
  double b = 0;
  for (int i = 0; i < x->nin; i++) {
    bool dup = false;
    for (int j = 0; j < i; j++) dup = dup || x->inputs[j] == x->inputs[i];
    if (!dup) b += op_tensor_bytes(op_in_type(x, i));
  }
  return b + op_tensor_bytes(x->out);
}

static double ceil_div(double a, double b) { return b > 0 ? ceil(a / b) : 0; }

/* Output tiles of a GEMM: tile_m x tile_n each, batch times. */
static double gemm_blocks(const OpDims *d, const Target *t) {
  return ceil_div(d->m, t->tile_m) * ceil_div(d->n, t->tile_n) * d->batch;
}

/* numpy matmul: rows of a (1 for a 1-D a) by columns of b (1 for a 1-D
 * b), over K, once per broadcast batch.  A right operand without batch
 * dims (a weight [K, N] or [K]) is one GEMM over all of a's rows: a's
 * leading dims fold into M, as cuBLAS and PyTorch run x [B, S, K] @ w
 * [K, N] (R-SHAPE-002), so [64, 197, 1024] x [1024, 4096] tiles as
 * [12608, 1024] x [1024, 4096] does. */
static void dims_matmul(const OpIn *x, OpDims *d) {
  const TensorType *a = op_in_type(x, 0), *b = op_in_type(x, 1);
  double out = op_tensor_elements(x->out);
  int64_t rows = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  if (b->rank <= 2) {
    int64_t folded = rows;
    bool fits = true;
    for (int i = 0; fits && i < a->rank - 2; i++)
      fits = util_mul_i64(folded, a->dims[i], &folded);
    if (fits) rows = folded;
  }
  d->k = (double)a->dims[a->rank - 1];
  d->m = (double)rows;
  d->n = b->rank == 1 ? 1 : (double)b->dims[b->rank - 1];
  d->batch = out / (d->m * d->n);
  d->nalign = 0;
  if (a->rank >= 2)
    d->align[d->nalign++] =
        (OpDim){.what = "M", .size = rows, .operand = 0, .data = true};
  d->align[d->nalign++] = (OpDim){.what = "K", .size = a->dims[a->rank - 1],
                                  .operand = 0, .data = false};
  if (b->rank >= 2)
    d->align[d->nalign++] = (OpDim){.what = "N", .size = b->dims[b->rank - 1],
                                    .operand = 1, .data = false};
}

/* x [N, Cin, *spatial] * w [Cout, Cin/groups, *kernel] (conv1d/2d/3d): an
 * implicit GEMM of (N*Hout*Wout) x Cout output tiles over
 * (Cin/groups)*kh*kw; tensor cores take the channels. */
static void dims_conv(const OpIn *x, OpDims *d) {
  const TensorType *w = op_in_type(x, 1);
  double cout = (double)x->out->dims[1];
  d->k = 1;
  for (int i = 1; i < w->rank; i++) d->k *= (double)w->dims[i];
  d->m = op_tensor_elements(x->out) / cout;
  d->n = cout;
  d->batch = 1;
  d->nalign = 2;
  d->align[0] = (OpDim){.what = "input channels per group", .size = w->dims[1],
                        .operand = 1, .data = false};
  d->align[1] = (OpDim){.what = "output channels", .size = w->dims[0],
                        .operand = 1, .data = false};
}

/* A contraction that runs as one GEMM (its row's dims): a multiply-add
 * per output element and step of K; one block per output tile. */
static void cost_gemm(const OpIn *x, const Target *t, OpCost *c) {
  OpDims d;
  x->op->dims(x, &d);
  /* a bias= is one add per output element in the epilogue (R-COST-020) */
  c->flops = op_tensor_elements(x->out) * (2 * d.k + (x->args->bias ? 1 : 0));
  c->bytes = io_bytes(x);
  c->blocks = gemm_blocks(&d, t);
}

/* q [..., H, Sq, d], k [..., Hkv, Skv, d]: Sq x Skv per head (batch x H
 * of them) over d; tensor cores take the head size. */
static void dims_attention(const OpIn *x, OpDims *d) {
  const TensorType *q = op_in_type(x, 0), *k = op_in_type(x, 1);
  d->m = (double)q->dims[q->rank - 2];
  d->k = (double)q->dims[q->rank - 1];
  d->n = (double)k->dims[k->rank - 2];
  d->batch = op_tensor_elements(q) / (d->m * d->k);
  d->nalign = 1;
  d->align[0] = (OpDim){.what = "head size", .size = q->dims[q->rank - 1],
                        .operand = 0, .data = false};
}

/* The two matmuls Q K^T and P V, 2*Sq*Skv*(d + dv) per head; causal halves
 * it.  ALiBi (R-FAM-004) adds its bias to each score the kernel computes,
 * the head's slope times the distance (a multiply and an add), and reads
 * one fp32 slope a head.  Sinks (R-FAM-006) read one learned logit a head,
 * in q's dtype: one more term in each row's softmax, which the cost leaves
 * out as it does the softmax of every score.  One block per
 * ATTN_ROWS_PER_BLOCK query rows of a head. */
static void cost_attention(const OpIn *x, const Target *t, OpCost *c) {
  (void)t;
  const TensorType *q = op_in_type(x, 0), *v = op_in_type(x, 2);
  double dv = (double)v->dims[v->rank - 1];
  OpDims d;
  dims_attention(x, &d);
  double scores = d.batch * d.m * d.n * (x->args->causal ? 0.5 : 1);
  c->flops = 2 * scores * (d.k + dv);
  c->bytes = io_bytes(x);
  double heads = (double)(q->rank >= 3 ? q->dims[q->rank - 3] : 1);
  if (x->args->alibi) {
    c->flops += 2 * scores;
    c->bytes += 4 * heads;
  }
  if (x->args->sinks && q->dtype != DT_NONE)
    c->bytes += heads * dtype_info(q->dtype)->bytes;
  /* a bias operand (R-FAM-102) is one add a computed score; io_bytes has
   * read it whole */
  if (x->nin == 4) c->flops += scores;
  c->blocks = d.batch * ceil_div(d.m, ATTN_ROWS_PER_BLOCK);
}

/* ---------------------------------------------------------------- einsum */

/* An einsum equation read against its operands: each operand's indices,
 * the result's, and each index letter's size.  At most EINSUM_MAX_OPERANDS
 * operands; letters only (no ellipsis). */
enum { EINSUM_MAX_OPERANDS = 8 };

typedef struct Einsum {
  int nterm;
  char term[EINSUM_MAX_OPERANDS][MAX_RANK + 1];
  char out[MAX_RANK + 1];
  int64_t size[128]; /* by letter; 0: not used */
} Einsum;

static bool einsum_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Reads one side's indices (a term) into dst; *p moves past them. */
static const char *einsum_term(const char **p, char *dst) {
  int n = 0;
  for (; einsum_letter(**p); (*p)++) {
    if (n == MAX_RANK) return "more indices than the rank limit of 8";
    dst[n++] = **p;
  }
  dst[n] = '\0';
  if (**p == '.') return "an ellipsis '...': write every index";
  return NULL;
}

/* The result's indices when the equation has no "->": the letters that
 * appear once, in alphabetical order (numpy's and torch's rule). */
static void einsum_implicit(Einsum *e) {
  int count[128] = {0};
  for (int t = 0; t < e->nterm; t++)
    for (const char *c = e->term[t]; *c; c++) count[(int)*c]++;
  int n = 0;
  for (int c = 'A'; c <= 'z' && n < MAX_RANK; c++)
    if (einsum_letter((char)c) && count[c] == 1) e->out[n++] = (char)c;
  e->out[n] = '\0';
}

/* Parses `eq` (spaces dropped by the caller) over the nin operands in[]:
 * NULL, or what is wrong with it. */
static const char *einsum_parse(const char *eq, const TensorType *in, int nin,
                                Einsum *e, char *why, size_t nwhy) {
  memset(e, 0, sizeof *e);
  const char *p = eq, *bad;
  for (;;) {
    if (e->nterm == EINSUM_MAX_OPERANDS) return "more than 8 operands";
    if ((bad = einsum_term(&p, e->term[e->nterm++]))) return bad;
    if (*p != ',') break;
    p++;
  }
  if (p[0] == '-' && p[1] == '>') {
    p += 2;
    if ((bad = einsum_term(&p, e->out))) return bad;
  } else {
    einsum_implicit(e);
  }
  if (*p) return "a character other than a letter, ',' or '->'";
  if (e->nterm != nin) {
    snprintf(why, nwhy, "the equation has %d operands and the call %d",
             e->nterm, nin);
    return why;
  }
  for (int t = 0; t < nin; t++) {
    if ((int)strlen(e->term[t]) != in[t].rank) {
      snprintf(why, nwhy, "operand %d has rank %d and '%s' %d indices", t + 1,
               in[t].rank, e->term[t], (int)strlen(e->term[t]));
      return why;
    }
    for (int d = 0; d < in[t].rank; d++) {
      int64_t *s = &e->size[(int)e->term[t][d]], have = in[t].dims[d];
      if (*s > 1 && have > 1 && *s != have) {
        snprintf(why, nwhy, "index '%c' is %lld in one operand and %lld in "
                 "operand %d", e->term[t][d], (long long)*s, (long long)have,
                 t + 1);
        return why;
      }
      if (have > *s) *s = have; /* a size-1 dim broadcasts, as torch */
    }
  }
  for (const char *c = e->out; *c; c++)
    if (!e->size[(int)*c] || strchr(c + 1, *c)) {
      snprintf(why, nwhy, "result index '%c' is %s", *c,
               e->size[(int)*c] ? "repeated" : "in no operand");
      return why;
    }
  return NULL;
}

/* The parse of a checked application (the shape rule accepted it). */
static void einsum_of(const OpIn *x, Einsum *e) {
  TensorType in[EINSUM_MAX_OPERANDS];
  int n = x->nin < EINSUM_MAX_OPERANDS ? x->nin : EINSUM_MAX_OPERANDS;
  for (int i = 0; i < n; i++) in[i] = *op_in_type(x, i);
  char why[128];
  if (einsum_parse(x->args->equation, in, n, e, why, sizeof why)) unreachable();
}

static bool shape_einsum(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  Einsum e;
  char why[128];
  const char *bad = einsum_parse(args->equation, in, nin, &e, why, sizeof why);
  if (bad)
    return fail(ctx, ctx->list_loc, "einsum \"%s\": %s", args->equation, bad);
  if (!strstr(args->equation, "->")) /* the result's indices written out */
    args->equation = arena_printf(ctx->arena, "%s->%s", args->equation, e.out);
  TensorType t = {0};
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  t.rank = (int)strlen(e.out);
  for (int i = 0; i < t.rank; i++) t.dims[i] = e.size[(int)e.out[i]];
  *out = t;
  return true;
}

/* One step of torch.einsum's left-to-right evaluation: the indices of
 * the running result `have` and of operand t; the union's sizes give the
 * step (2 x their product: a multiply and an add per point), and what
 * is kept (in the result or a later operand) is the next running result.
 * Returns the step's FLOPs and fills its GEMM view. */
static double einsum_step(const Einsum *e, char *have, int t, OpDims *d) {
  char keep[2 * MAX_RANK + 1] = {0}, all[2 * MAX_RANK + 1] = {0};
  int nall = 0, nkeep = 0;
  const char *next = e->term[t];
  for (int side = 0; side < 2; side++)
    for (const char *c = side ? next : have; *c; c++)
      if (!strchr(all, *c)) all[nall++] = *c;
  double points = 1;
  *d = (OpDims){.m = 1, .n = 1, .k = 1, .batch = 1};
  for (int i = 0; i < nall; i++) {
    char c = all[i];
    double s = (double)e->size[(int)c];
    bool kept = strchr(e->out, c) != NULL;
    for (int later = t + 1; !kept && later < e->nterm; later++)
      kept = strchr(e->term[later], c) != NULL;
    points *= s;
    bool in_a = strchr(have, c), in_b = strchr(next, c);
    if (!kept) d->k *= s;
    else if (in_a && in_b) d->batch *= s;
    else if (in_a) d->m *= s;
    else d->n *= s;
    if (kept && nkeep < MAX_RANK) keep[nkeep++] = c;
  }
  memcpy(have, keep, (size_t)nkeep + 1);
  return 2 * points;
}

/* FLOPs of the whole application, and the GEMM view of its largest step;
 * one operand is a sum over its summed indices (one add per element) or,
 * with none, a permutation (no FLOP). */
static double einsum_flops(const OpIn *x, OpDims *d) {
  Einsum e;
  einsum_of(x, &e);
  char have[2 * MAX_RANK + 1];
  strcpy(have, e.term[0]);
  double flops = 0, best = -1;
  *d = (OpDims){.m = op_tensor_elements(x->out), .n = 1, .k = 1, .batch = 1};
  if (e.nterm == 1) {
    double points = 1;
    bool summed = false;
    for (const char *c = e.term[0]; *c; c++) {
      if (strchr(c + 1, *c)) continue; /* a repeated index once */
      points *= (double)e.size[(int)*c];
      summed |= !strchr(e.out, *c);
    }
    return summed ? points : 0;
  }
  for (int t = 1; t < e.nterm; t++) {
    OpDims step;
    double f = einsum_step(&e, have, t, &step);
    flops += f;
    if (f > best) best = f, *d = step;
  }
  return flops;
}

static void dims_einsum(const OpIn *x, OpDims *d) { einsum_flops(x, d); }

static void cost_einsum(const OpIn *x, const Target *t, OpCost *c) {
  OpDims d;
  c->flops = einsum_flops(x, &d);
  c->bytes = io_bytes(x);
  c->blocks = gemm_blocks(&d, t);
}

/* Each result dim is the first operand dim of its letter. */
static void sym_einsum(const SymCtx *c, const char **out) {
  const char *eq = c->args->equation;
  const char *arrow = strstr(eq, "->");
  for (int i = 0; arrow && i < c->out->rank; i++) {
    char letter = arrow[2 + i];
    int t = 0, d = 0;
    for (const char *p = eq; p < arrow; p++) {
      if (*p == ',') {
        t++, d = 0;
        continue;
      }
      if (*p == letter && t < c->nin && c->in_sym[t][d] &&
          c->in[t].dims[d] == c->out->dims[i]) {
        out[i] = c->in_sym[t][d];
        break;
      }
      d++;
    }
  }
}

/* The row's weight per output element. */
static void cost_elementwise(const OpIn *x, const Target *t, OpCost *c) {
  double out = op_tensor_elements(x->out);
  c->flops = out * x->op->flops_per_element;
  c->bytes = io_bytes(x);
  c->blocks = ceil_div(out, t->elements_per_block);
}

/* Reductions and norms: the weight applies to every element of x. */
static void cost_reduction(const OpIn *x, const Target *t, OpCost *c) {
  double in = op_tensor_elements(op_in_type(x, 0));
  c->flops = in * x->op->flops_per_element;
  c->bytes = io_bytes(x);
  c->blocks = ceil_div(in, t->elements_per_block);
}

/* copy, concat: read and write.  Pools: the row's weight (a compare or an
 * add) per window element. */
static void cost_move(const OpIn *x, const Target *t, OpCost *c) {
  double out = op_tensor_elements(x->out);
  c->blocks = ceil_div(out, t->elements_per_block);
  c->bytes = io_bytes(x);
  c->flops = out * x->op->flops_per_element;
}

/* maxpool/avgpool: the row's weight (1) per element of each window, the
 * window the kernel's volume over the spatial dims (all but N and C). */
static void cost_pool(const OpIn *x, const Target *t, OpCost *c) {
  cost_move(x, t, c);
  double window = 1;
  for (int i = 0; i + 2 < x->out->rank && i < 3; i++)
    window *= (double)x->args->kernel[i];
  c->flops *= window;
}

/* embedding, gather: only the gathered rows of the table are read (as
 * many bytes as the output), plus the indices (the integer operand:
 * embedding's first, gather's second). */
static void cost_embedding(const OpIn *x, const Target *t, OpCost *c) {
  double out = op_tensor_elements(x->out);
  const TensorType *ids = op_in_type(x, 0);
  if (dtype_info(ids->dtype)->is_float) ids = op_in_type(x, 1);
  c->blocks = ceil_div(out, t->elements_per_block);
  c->flops = 0;
  c->bytes = op_tensor_bytes(ids) + 2 * op_tensor_bytes(x->out);
}

static void cost_custom(const OpIn *x, const Target *t, OpCost *c) {
  c->flops = x->args->custom_flops;
  c->bytes = x->args->custom_bytes;
  c->blocks = ceil_div(op_tensor_elements(x->out), t->elements_per_block);
}

/* Transfers move the tensor over PCIe; HBM is not the limit. */
static void cost_transfer(const OpIn *x, const Target *t, OpCost *c) {
  (void)t;
  c->bytes = op_tensor_bytes(op_in_type(x, 0));
}

/* Collectives: the buffer the ring model (cost.c) moves, the full tensor;
 * for allgather the gathered output. */
static void cost_collective(const OpIn *x, const Target *t, OpCost *c) {
  (void)t;
  c->buffer = op_tensor_bytes(op_in_type(x, 0));
}

static void cost_allgather(const OpIn *x, const Target *t, OpCost *c) {
  (void)t;
  c->buffer = op_tensor_bytes(x->out);
}

/* ------------------------------------------- movement (R-MOVE-001..004) */

/* Operand i (what: "index", "labels") has an integer dtype. */
static bool integer_index(const ShapeCtx *ctx, const OpDesc *op,
                          const TensorType *idx, int i, const char *what) {
  if (!dtype_info(idx->dtype)->is_float && idx->dtype != DT_BOOL &&
      idx->dtype != DT_NONE)
    return true;
  char s[160];
  return fail(ctx, ctx->arg_locs[i],
              "%s %s must have an integer dtype, got %s; declare it "
              "int64[...] or cast(%s, int64)",
              op->name, what, op_type_str(s, sizeof s, idx), what);
}

/* gather(x, idx, axis=0): x.dims[:axis] + idx.dims + x.dims[axis+1:] in
 * x's dtype (ONNX Gather; torch.index_select for a 1-D idx). */
static bool shape_gather(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (!integer_index(ctx, op, &in[1], 1, "index")) return false;
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  const TensorType *x = &in[0], *idx = &in[1];
  int a = (int)args->axis;
  if (x->rank - 1 + idx->rank > MAX_RANK)
    return fail(ctx, ctx->call_loc, "gather result rank exceeds %d", MAX_RANK);
  TensorType t = {.dtype = x->dtype, .rank = 0};
  for (int i = 0; i < a; i++) t.dims[t.rank++] = x->dims[i];
  for (int i = 0; i < idx->rank; i++) t.dims[t.rank++] = idx->dims[i];
  for (int i = a + 1; i < x->rank; i++) t.dims[t.rank++] = x->dims[i];
  *out = t;
  return true;
}

/* scatter_add(x, idx, src, axis=0): torch.scatter_add, out of place: idx
 * has src's dims, of x's rank, none larger than x's off the axis; the
 * result is x's type. */
static bool shape_scatter_add(const OpDesc *op, const TensorType *in,
                              int nin, OpArgs *args, TensorType *out,
                              const ShapeCtx *ctx) {
  (void)nin;
  const TensorType *x = &in[0], *idx = &in[1], *src = &in[2];
  if (!integer_index(ctx, op, idx, 1, "index")) return false;
  if (!norm_axis(ctx, op, &args->axis, x->rank)) return false;
  args->has_axis = true;
  char sx[160], si[160], ss[160];
  bool ok = idx->rank == x->rank && src->rank == x->rank;
  for (int i = 0; ok && i < x->rank; i++)
    ok = idx->dims[i] == src->dims[i] && (i == args->axis || idx->dims[i] <= x->dims[i]);
  if (!ok)
    return fail(ctx, ctx->call_loc,
                "scatter_add needs idx and src of one shape, x's rank, and no "
                "larger than x off axis %lld: x %s, idx %s, src %s",
                (long long)args->axis, op_type_str(sx, sizeof sx, x),
                op_type_str(si, sizeof si, idx),
                op_type_str(ss, sizeof ss, src));
  if (src->dtype != x->dtype)
    return fail(ctx, ctx->arg_locs[2],
                "scatter_add src %s is not x's dtype %s; insert a cast",
                op_type_str(ss, sizeof ss, src), dtype_str(x->dtype));
  *out = *x;
  return true;
}

/* pad(x, [b1, ..., bn, e1, ..., en], value=0): ONNX Pad's order, before
 * pads of every axis then after pads; each axis grows by both. */
static bool shape_pad(const OpDesc *op, const TensorType *in, int nin,
                      OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)nin; (void)args;
  int r = in[0].rank;
  if (ctx->nlist != 2 * r) {
    char s[160];
    return fail(ctx, ctx->list_loc,
                "pad of %s takes %d pads (before then after, per axis), got %d",
                op_type_str(s, sizeof s, &in[0]), 2 * r, ctx->nlist);
  }
  TensorType t = in[0];
  for (int i = 0; i < r; i++)
    if (!util_add_i64(t.dims[i], ctx->list[i], &t.dims[i]) ||
        !util_add_i64(t.dims[i], ctx->list[r + i], &t.dims[i]))
      return fail(ctx, ctx->list_loc, "dimension overflows 64 bits");
  *out = t;
  return true;
}

/* interpolate(x, scale=, mode=): x [N, C, spatial...], every spatial dim
 * times scale (an integer; PyTorch's scale_factor); or size=[...], the
 * spatial dims themselves (PyTorch's size), one of the two (R-MOVE-004). */
static bool shape_interpolate(const OpDesc *op, const TensorType *in, int nin,
                              OpArgs *args, TensorType *out,
                              const ShapeCtx *ctx) {
  (void)nin;
  char s[160];
  if (in[0].rank < 3)
    return fail(ctx, ctx->arg_locs[0],
                "%s expects [N, C, spatial...] of rank 3 or more, got %s",
                op->name, op_type_str(s, sizeof s, &in[0]));
  bool sized = args->size[0] != 0;
  if (sized == (args->scale != 0))
    return fail(ctx, ctx->call_loc, sized ? "%s takes scale= or size=, not both"
                                          : "%s needs scale= or size=",
                op->name);
  TensorType t = in[0];
  int nsize = 0;
  while (nsize < MAX_RANK && args->size[nsize] != 0) nsize++;
  if (sized && nsize != t.rank - 2)
    return fail(ctx, ctx->call_loc,
                "%s size= has %d entries; x %s has %d spatial dims",
                op->name, nsize, op_type_str(s, sizeof s, &in[0]), t.rank - 2);
  for (int i = 2; i < t.rank; i++) {
    if (sized) t.dims[i] = args->size[i - 2];
    else if (!util_mul_i64(t.dims[i], args->scale, &t.dims[i]))
      return fail(ctx, ctx->call_loc, "dimension overflows 64 bits");
  }
  *out = t;
  return true;
}

static const KwDesc kw_pad[] = {{"value", KW_REAL, false, 0, NULL},
                                {NULL, 0, false, 0, NULL}};
static const char *const interpolate_modes[] = {"nearest", "linear", NULL};
static const KwDesc kw_interpolate[] = {{"scale", KW_INT, false, 0, NULL},
                                        {"size", KW_INT_LIST, false, 0, NULL},
                                        {"mode", KW_CHOICE, false, 0, interpolate_modes},
                                        {NULL, 0, false, 0, NULL}};

/* An add per src element; bytes as any out-of-place op: x, idx and src
 * read, the result written. */
static void cost_scatter_add(const OpIn *x, const Target *t, OpCost *c) {
  double src = op_tensor_elements(op_in_type(x, 2));
  c->flops = src * x->op->flops_per_element;
  c->bytes = io_bytes(x);
  c->blocks = ceil_div(src, t->elements_per_block);
}

/* nearest copies (0 FLOPs); linear blends the 2^k neighbours of each
 * output element (k spatial dims): a multiply-add each, 2 * 2^k FLOPs.
 * x read once, the result written once. */
static void cost_interpolate(const OpIn *x, const Target *t, OpCost *c) {
  double out = op_tensor_elements(x->out);
  c->flops = x->args->mode == 1 ? out * 2 * ldexp(1, x->out->rank - 2) : 0;
  c->bytes = io_bytes(x);
  c->blocks = ceil_div(out, t->elements_per_block);
}

/* ------------------------------------------------ loss (R-LOSS-001) */

/* cross_entropy(logits, labels, axis=-1): torch.nn.functional.cross_entropy
 * with class indices and reduction='mean': labels are integers with the
 * dims of logits less the class axis; the result is one number (rank 0)
 * in logits' dtype. */
static bool shape_cross_entropy(const OpDesc *op, const TensorType *in,
                                int nin, OpArgs *args, TensorType *out,
                                const ShapeCtx *ctx) {
  (void)nin;
  const TensorType *x = &in[0], *y = &in[1];
  if (!integer_index(ctx, op, y, 1, "labels")) return false;
  if (!norm_axis(ctx, op, &args->axis, x->rank)) return false;
  args->has_axis = true;
  bool ok = y->rank == x->rank - 1;
  for (int i = 0, j = 0; ok && i < x->rank; i++)
    if (i != args->axis) ok = y->dims[j++] == x->dims[i];
  if (!ok) {
    char sx[160], sy[160];
    return fail(ctx, ctx->arg_locs[1],
                "cross_entropy labels %s must have the dims of logits %s "
                "without the class axis %lld",
                op_type_str(sy, sizeof sy, y), op_type_str(sx, sizeof sx, x),
                (long long)args->axis);
  }
  *out = (TensorType){.dtype = x->dtype, .rank = 0};
  return true;
}

/* A log-softmax over each row (the row's weight, 5 per logit: max, sub,
 * exp, sum, log), the label's entry picked, and the mean: one add per
 * row.  Bytes: logits and labels read, the one number written. */
static void cost_cross_entropy(const OpIn *x, const Target *t, OpCost *c) {
  double in = op_tensor_elements(op_in_type(x, 0));
  c->flops = in * x->op->flops_per_element + op_tensor_elements(op_in_type(x, 1));
  c->bytes = io_bytes(x);
  c->blocks = ceil_div(in, t->elements_per_block);
}

/* ---------------------------------------------- KV caches (R-CACHE-002) */

/* append(cache, new, axis=): new has the cache's rank and dims off the
 * axis; the result is the cache, in the cache's dtype, with the axis grown
 * by new's (sema has checked that the first operand is a cache). */
static bool shape_append(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  const TensorType *c = &in[0], *x = &in[1];
  if (!norm_axis(ctx, op, &args->axis, c->rank)) return false;
  args->has_axis = true;
  bool ok = x->rank == c->rank;
  for (int i = 0; ok && i < c->rank; i++)
    ok = i == args->axis || x->dims[i] == c->dims[i];
  if (!ok) {
    char sc[160], sx[160];
    return fail(ctx, ctx->arg_locs[1],
                "append of %s to the cache %s along axis %lld needs the "
                "cache's other dims",
                op_type_str(sx, sizeof sx, x), op_type_str(sc, sizeof sc, c),
                (long long)args->axis);
  }
  TensorType t = *c;
  if (!util_add_i64(t.dims[args->axis], x->dims[args->axis], &t.dims[args->axis]))
    return fail(ctx, ctx->call_loc, "dimension overflows 64 bits");
  *out = t;
  return true;
}

/* The new entries only, as vLLM's reshape_and_cache kernel moves them:
 * new read once and written into the cache (at the cache's dtype); the
 * entries already there are neither read nor written. */
static void cost_append(const OpIn *x, const Target *t, OpCost *c) {
  const TensorType *in = op_in_type(x, 1);
  TensorType stored = *in;
  stored.dtype = x->out->dtype;
  double n = op_tensor_elements(in);
  c->bytes = op_tensor_bytes(in) + op_tensor_bytes(&stored);
  c->blocks = ceil_div(n, t->elements_per_block);
}

/* ------------------------------------------------ routing (R-ROUTE-001) */

/* scores, idx = topk(x, K, axis=-1): torch.topk's two results, the K
 * largest entries along axis (values, in x's dtype) and their positions
 * (indices, int64), each x's dims with the axis cut to K. */
static bool shape_topk(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin;
  if (ctx->nresults != 2)
    return fail(ctx, ctx->call_loc,
                "topk gives 2 results (values, indices), %d name%s bound to "
                "them; write 'scores, idx = topk(x, %lld, axis=-1)'",
                ctx->nresults, ctx->nresults == 1 ? " is" : "s are",
                (long long)args->k);
  if (!norm_axis(ctx, op, &args->axis, in[0].rank)) return false;
  args->has_axis = true;
  int64_t d = in[0].dims[args->axis];
  if (args->k > d)
    return fail(ctx, ctx->list_loc,
                "topk K = %lld is more than the size %lld of axis %lld",
                (long long)args->k, (long long)d, (long long)args->axis);
  TensorType t = in[0];
  t.dims[args->axis] = args->k;
  if (ctx->result == 1) t.dtype = DT_INT64;
  *out = t;
  return true;
}

/* One kernel for both results, costed on the first (cost.c gives the
 * second no kernel of its own): the row's weight (a compare) per element
 * of x, x read once, the values and the int64 indices written once; a
 * reduction's blocks. */
static void cost_topk(const OpIn *x, const Target *t, OpCost *c) {
  if (x->args->result > 0) return;
  const TensorType *in = op_in_type(x, 0);
  TensorType idx = *x->out;
  idx.dtype = DT_INT64;
  double n = op_tensor_elements(in);
  c->flops = n * x->op->flops_per_element;
  c->bytes = op_tensor_bytes(in) + op_tensor_bytes(x->out) + op_tensor_bytes(&idx);
  c->blocks = ceil_div(n, t->elements_per_block);
}

static void cost_none(const OpIn *x, const Target *t, OpCost *c) {
  (void)x; (void)t; (void)c;
}

/* ------------------------------------------- element-wise, norms, convs */
/*
 * The ops of issue 18 by class: more element-wise ops, batch/group/
 * instance norms, conv1d/conv3d/conv_transpose2d, and the bias= of a
 * contraction.  FLOP weights count as the header says (a transcendental,
 * erf included, is one FLOP, as exp and tanh are):
 *   where 1 (a select), clip 1 per bound given (a compare-select),
 *   erf 1, gelu 5 with erf, PyTorch's default (0.5*x*(1 + erf(x/sqrt 2)):
 *   div, erf, add, mul, mul) and 9 with the tanh approximation, hardsigmoid 4
 *   (relu6(x + 3) / 6: add, min, max, div), hardswish 5 (x * hardsigmoid),
 *   softplus 3 (log(1 + exp(x)), PyTorch's beta = 1: exp, add, log), rope
 *   3 (x*cos + rotate_half(x)*sin: mul, mul, add; rotate_half moves and
 *   negates, folded into the multiply).
 */

/* gelu(x, approximate="tanh"): the tanh form's FLOPs per element (the
 * row's weight is the erf form's, PyTorch's default, 5). */
#define GELU_TANH_FLOPS 9

static const char *const gelu_approx[] = {"none", "tanh", NULL};

static bool shape_where(const OpDesc *op, const TensorType *in, int nin,
                        OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)nin; (void)args;
  char s[160];
  if (in[0].dtype != DT_BOOL)
    return fail(ctx, ctx->arg_locs[0],
                "where condition must be bool, got %s; compare first or "
                "cast(cond, bool)",
                in[0].dtype == DT_NONE ? "a number"
                                       : op_type_str(s, sizeof s, &in[0]));
  if (in[1].dtype == DT_NONE && in[2].dtype == DT_NONE)
    return fail(ctx, ctx->call_loc,
                "where needs a tensor for a or b; both are numbers");
  TensorType ab = {0}, t = {0};
  if (!promote(ctx, op, in + 1, 2, &ab.dtype) ||
      !broadcast(ctx, op, &in[1], &in[2], &ab) ||
      !broadcast(ctx, op, &in[0], &ab, &t))
    return false;
  t.dtype = ab.dtype;
  *out = t;
  return true;
}

/* eq, lt, ..., logical_and: the operands broadcast (their dtypes
 * promotable, as for add), the result bool. */
static bool shape_compare(const OpDesc *op, const TensorType *in, int nin,
                          OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  if (!shape_binary(op, in, nin, args, out, ctx)) return false;
  out->dtype = DT_BOOL;
  return true;
}

/* logical_not, isnan, isinf: x's dims, bool. */
static bool shape_to_bool(const OpDesc *op, const TensorType *in, int nin,
                          OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)nin; (void)args; (void)ctx;
  *out = in[0];
  out->dtype = DT_BOOL;
  return true;
}

static bool shape_clip(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)op; (void)nin;
  if (isnan(args->clip_min) && isnan(args->clip_max))
    return fail(ctx, ctx->call_loc,
                "clip needs min=, max= or both, like clip(x, min=0, max=6)");
  if (args->clip_min > args->clip_max)
    return fail(ctx, ctx->call_loc,
                "clip min=%g is more than max=%g; every element would be %g",
                args->clip_min, args->clip_max, args->clip_max);
  *out = in[0];
  return true;
}

/* rope(x, cos, sin): cos and sin broadcast to x, whose last dim splits in
 * two halves (rotate_half). */
static bool shape_rope(const OpDesc *op, const TensorType *in, int nin,
                       OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  (void)args;
  static const char *const names[3] = {"x", "cos", "sin"};
  char sx[160], sc[160];
  const TensorType *x = &in[0];
  if (x->rank == 0 || x->dims[x->rank - 1] % 2 != 0)
    return fail(ctx, ctx->arg_locs[0],
                "rope needs an even last dim of x (rotate_half splits it in "
                "two), got %s",
                op_type_str(sx, sizeof sx, x));
  for (int i = 1; i < nin; i++) {
    bool ok = in[i].rank <= x->rank;
    for (int j = 1; ok && j <= in[i].rank; j++) {
      int64_t d = in[i].dims[in[i].rank - j];
      ok = d == 1 || d == x->dims[x->rank - j];
    }
    if (!ok)
      return fail(ctx, ctx->arg_locs[i],
                  "rope %s %s does not broadcast to x %s", names[i],
                  op_type_str(sc, sizeof sc, &in[i]),
                  op_type_str(sx, sizeof sx, x));
  }
  TensorType t = *x;
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  *out = t;
  return true;
}

/* batchnorm/groupnorm/instancenorm: x [N, C, ...] of at least min_rank
 * dims; every parameter from input `first` on is [C]. */
static bool shape_channel_norm(const OpDesc *op, const TensorType *in, int nin,
                               int min_rank, TensorType *out,
                               const ShapeCtx *ctx) {
  char s[160];
  if (in[0].rank < min_rank)
    return fail(ctx, ctx->arg_locs[0],
                "%s expects x [N, C, ...] of rank %d or more, got %s",
                op->name, min_rank, op_type_str(s, sizeof s, &in[0]));
  int64_t c = in[0].dims[1];
  for (int i = 1; i < nin; i++)
    if (in[i].rank != 1 || in[i].dims[0] != c)
      return fail(ctx, ctx->arg_locs[i],
                  "%s parameter %s must be [C] = [%lld], the channels of x",
                  op->name, op_type_str(s, sizeof s, &in[i]), (long long)c);
  TensorType t = in[0];
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  *out = t;
  return true;
}

static bool shape_batchnorm(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  (void)args;
  return shape_channel_norm(op, in, nin, 2, out, ctx);
}

static bool shape_groupnorm(const OpDesc *op, const TensorType *in, int nin,
                            OpArgs *args, TensorType *out,
                            const ShapeCtx *ctx) {
  if (!shape_channel_norm(op, in, nin, 2, out, ctx)) return false;
  if (in[0].dims[1] % args->groups != 0)
    return fail(ctx, ctx->arg_locs[0],
                "groupnorm channels %lld are not a multiple of groups=%lld",
                (long long)in[0].dims[1], (long long)args->groups);
  return true;
}

static bool shape_instancenorm(const OpDesc *op, const TensorType *in,
                               int nin, OpArgs *args, TensorType *out,
                               const ShapeCtx *ctx) {
  (void)args;
  return shape_channel_norm(op, in, nin, 3, out, ctx);
}

static bool shape_conv1d(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  return shape_conv(op, in, nin, args, out, ctx, 1);
}

static bool shape_conv3d(const OpDesc *op, const TensorType *in, int nin,
                         OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  return shape_conv(op, in, nin, args, out, ctx, 3);
}

/* conv_transpose2d: x [N, Cin, H, W], w [Cin, Cout/groups, kh, kw] (the
 * PyTorch layout); Hout = (H-1)*s - 2p + d(k-1) + output_padding + 1,
 * with output_padding smaller than the stride or the dilation. */
static bool shape_conv_transpose2d(const OpDesc *op, const TensorType *in,
                                   int nin, OpArgs *args, TensorType *out,
                                   const ShapeCtx *ctx) {
  const TensorType *x = &in[0], *w = &in[1];
  if (!need_rank(ctx, op, x, 0, 4, "input [N, Cin, H, W]") ||
      !need_rank(ctx, op, w, 1, 4, "weight [Cin, Cout/groups, kh, kw]"))
    return false;
  int64_t g = args->groups;
  if (x->dims[1] != w->dims[0])
    return fail(ctx, ctx->call_loc,
                "conv_transpose2d channels differ: input has %lld, weight "
                "[Cin, Cout/groups, kh, kw] has Cin = %lld",
                (long long)x->dims[1], (long long)w->dims[0]);
  if (x->dims[1] % g != 0)
    return fail(ctx, ctx->arg_locs[1],
                "conv_transpose2d input channels %lld are not a multiple of "
                "groups=%lld",
                (long long)x->dims[1], (long long)g);
  TensorType t = *x;
  if (!util_mul_i64(w->dims[1], g, &t.dims[1]))
    return fail(ctx, ctx->call_loc, "dimension overflows 64 bits");
  for (int i = 0; i < 2; i++) {
    int64_t s = args->stride[i], p = args->padding[i], d = args->dilation[i];
    int64_t op_ = args->output_padding[i], o, reach;
    if (op_ >= s && op_ >= d)
      return fail(ctx, ctx->call_loc,
                  "conv_transpose2d output_padding %lld must be smaller than "
                  "the stride %lld or the dilation %lld",
                  (long long)op_, (long long)s, (long long)d);
    if (!util_mul_i64(x->dims[2 + i] - 1, s, &o) ||
        !util_mul_i64(d, w->dims[2 + i] - 1, &reach) ||
        !util_add_i64(o, reach, &o) || !util_add_i64(o, op_ + 1, &o) ||
        !util_mul_i64(2, p, &p) || !util_add_i64(o, -p, &o))
      return fail(ctx, ctx->call_loc,
                  "conv_transpose2d output %s overflows 64 bits",
                  axis_names[1][i]);
    if (o < 1)
      return fail(ctx, ctx->call_loc,
                  "conv_transpose2d output %s would be %lld: input %lld, "
                  "stride %lld, padding %lld, window %lld",
                  axis_names[1][i], (long long)o, (long long)x->dims[2 + i],
                  (long long)s, (long long)args->padding[i],
                  (long long)w->dims[2 + i]);
    t.dims[2 + i] = o;
  }
  if (!promote(ctx, op, in, 2, &t.dtype)) return false;
  if (!check_bias(op, in, nin, args, &t, ctx)) return false;
  *out = t;
  return true;
}

static bool check_bias(const OpDesc *op, const TensorType *in, int nin,
                       const OpArgs *args, const TensorType *out,
                       const ShapeCtx *ctx) {
  if (!args->bias) return true;
  const TensorType *b = &in[nin - 1];
  char sb[160], so[160];
  bool conv = op->cls == OC_CONTRACTION && op->id != OP_MATMUL;
  bool ok = conv ? b->rank == 1 && b->dims[0] == out->dims[1]
                 : b->rank <= out->rank;
  for (int j = 1; ok && !conv && j <= b->rank; j++) {
    int64_t d = b->dims[b->rank - j];
    ok = d == 1 || d == out->dims[out->rank - j];
  }
  if (ok) return true;
  if (conv)
    return fail(ctx, ctx->arg_locs[nin - 1],
                "%s bias %s must be [Cout] = [%lld]", op->name,
                op_type_str(sb, sizeof sb, b), (long long)out->dims[1]);
  return fail(ctx, ctx->arg_locs[nin - 1],
              "%s bias %s does not broadcast to the output %s; a linear "
              "layer's bias is [N] = [%lld]",
              op->name, op_type_str(sb, sizeof sb, b),
              op_type_str(so, sizeof so, out),
              (long long)(out->rank ? out->dims[out->rank - 1] : 1));
}

/* x [N, Cin, H, W] into w [Cin, Cout/groups, kh, kw]: each input position
 * scatters into Cout x kh x kw outputs, a GEMM of (N*H*W) x Cout over
 * (Cin/groups)*kh*kw, as the data-gradient of a conv2d runs. */
static void dims_conv_transpose2d(const OpIn *x, OpDims *d) {
  const TensorType *in = op_in_type(x, 0), *w = op_in_type(x, 1);
  double g = (double)x->args->groups;
  d->m = op_tensor_elements(in) / (double)in->dims[1];
  d->n = (double)x->out->dims[1];
  d->k = (double)in->dims[1] / g * (double)w->dims[2] * (double)w->dims[3];
  d->batch = 1;
  d->nalign = 2;
  d->align[0] = (OpDim){.what = "input channels per group",
                        .size = in->dims[1] / x->args->groups, .operand = 0,
                        .data = false};
  d->align[1] = (OpDim){.what = "output channels", .size = x->out->dims[1],
                        .operand = 1, .data = false};
}

/* 2*M*N*K of its GEMM, plus the bias add per output element. */
static void cost_conv_transpose2d(const OpIn *x, const Target *t, OpCost *c) {
  OpDims d;
  dims_conv_transpose2d(x, &d);
  c->flops = 2 * d.m * d.n * d.k +
             (x->args->bias ? op_tensor_elements(x->out) : 0);
  c->bytes = io_bytes(x);
  c->blocks = gemm_blocks(&d, t);
}

static void cost_gelu(const OpIn *x, const Target *t, OpCost *c) {
  cost_elementwise(x, t, c);
  if (x->args->approximate == 1)
    c->flops = op_tensor_elements(x->out) * GELU_TANH_FLOPS;
}

static void cost_clip(const OpIn *x, const Target *t, OpCost *c) {
  cost_elementwise(x, t, c);
  c->flops *= !isnan(x->args->clip_min) + !isnan(x->args->clip_max);
}

/* Inference: x*a + c with a, c per channel (scale/sqrt(var + eps) and
 * bias - mean*a, C values, not counted): the row's weight, 2.  Train mode
 * normalises by the batch statistics, computed as layernorm does: its
 * weight, 8 (R-COST-021). */
static void cost_batchnorm(const OpIn *x, const Target *t, OpCost *c) {
  cost_reduction(x, t, c);
  if (x->model->train)
    c->flops = op_tensor_elements(op_in_type(x, 0)) *
               op_get(OP_LAYERNORM)->flops_per_element;
}

static const KwDesc kw_gelu[] = {{"approximate", KW_CHOICE, false, 0,
                                  gelu_approx},
                                 {NULL, 0, false, 0, NULL}};
static const KwDesc kw_clip[] = {{"min", KW_REAL, false, 0, NULL},
                                 {"max", KW_REAL, false, 0, NULL},
                                 {NULL, 0, false, 0, NULL}};
static const KwDesc kw_epsilon[] = {{"epsilon", KW_REAL, false, 0, NULL},
                                    {NULL, 0, false, 0, NULL}};
static const KwDesc kw_groupnorm[] = {{"groups", KW_INT, true, 0, NULL},
                                      {"epsilon", KW_REAL, false, 0, NULL},
                                      {NULL, 0, false, 0, NULL}};
static const KwDesc kw_conv1d[] = {{"stride", KW_INT, false, 1, NULL},
                                   {"padding", KW_INT, false, 0, NULL},
                                   {"dilation", KW_INT, false, 1, NULL},
                                   {"groups", KW_INT, false, 1, NULL},
                                   {"bias", KW_TENSOR, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};
static const KwDesc kw_conv3d[] = {{"stride", KW_INT_TRIPLE, false, 1, NULL},
                                   {"padding", KW_INT_TRIPLE, false, 0, NULL},
                                   {"dilation", KW_INT_TRIPLE, false, 1, NULL},
                                   {"groups", KW_INT, false, 1, NULL},
                                   {"bias", KW_TENSOR, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};
static const KwDesc kw_conv_transpose[] = {
    {"stride", KW_INT_PAIR, false, 1, NULL},
    {"padding", KW_INT_PAIR, false, 0, NULL},
    {"output_padding", KW_INT_PAIR, false, 0, NULL},
    {"dilation", KW_INT_PAIR, false, 1, NULL},
    {"groups", KW_INT, false, 1, NULL},
    {"bias", KW_TENSOR, false, 0, NULL},
    {NULL, 0, false, 0, NULL}};
static const KwDesc kw_matmul[] = {{"bias", KW_TENSOR, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};

/* ------------------------------------------------- symbolic dimensions */

void op_put_dim(StrBuf *sb, const char *sym, int64_t v) {
  if (sym) sb_puts(sb, sym);
  else sb_put_int(sb, v);
}

const char *op_sym_join(Arena *arena, const char *a, int64_t av,
                        const char *b, int64_t bv, char opch) {
  if (!a && !b) return NULL;
  StrBuf sb = {0};
  bool paren = opch == '*' || opch == '/';
  if (paren && a && strpbrk(a, "+-")) sb_printf(&sb, "(%s)", a);
  else op_put_dim(&sb, a, av);
  sb_printf(&sb, " %c ", opch);
  if ((paren || opch == '-') && b && strpbrk(b, "+-*/")) sb_printf(&sb, "(%s)", b);
  else op_put_dim(&sb, b, bv);
  const char *s = arena_strdup(arena, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* A dim keeps its expression where it keeps its place and its size; the
 * axis `drop` (-1: none) drops out; with first_only, only dim 0 (a
 * contraction's batch) keeps one. */
static void sym_in_place(const SymCtx *c, const char **out, int drop,
                         bool first_only) {
  const TensorType *a = &c->in[0], *o = c->out;
  const char *const *as = c->in_sym[0];
  for (int i = 0, k = 0; i < o->rank && k < a->rank; k++) {
    if (k == drop) continue;
    if (a->dims[k] == o->dims[i] && (!first_only || i == 0)) out[i] = as[k];
    i++;
  }
}

/* Norms, pools, movement, transfers: dims in place. */
static void sym_keep(const SymCtx *c, const char **out) {
  sym_in_place(c, out, -1, false);
}

/* A reduction: its reduced axis drops out when the rank drops. */
static void sym_reduce(const SymCtx *c, const char **out) {
  int drop = c->out->rank == c->in[0].rank - 1 ? (int)c->args->axis : -1;
  sym_in_place(c, out, drop, false);
}

/* A convolution, attention: the batch dim. */
static void sym_batch(const SymCtx *c, const char **out) {
  sym_in_place(c, out, -1, true);
}

/* numpy broadcasting: a dim is the first operand's of its size there. */
static void sym_broadcast(const SymCtx *c, const char **out) {
  const TensorType *o = c->out;
  for (int i = 0; i < o->rank; i++)
    for (int k = 0; k < c->nin && !out[i]; k++) {
      int j = i - (o->rank - c->in[k].rank);
      if (j >= 0 && c->in_sym[k][j] && c->in[k].dims[j] == o->dims[i])
        out[i] = c->in_sym[k][j];
    }
}

/* The list's expressions; a -1 takes what is left of the input's. */
static void sym_reshape(const SymCtx *c, const char **out) {
  const TensorType *a = &c->in[0], *o = c->out;
  const char *const *as = c->in_sym[0];
  for (int i = 0; i < o->rank && i < c->nlist; i++) out[i] = c->list_sym[i];
  for (int i = 0; i < o->rank && i < c->nlist; i++) {
    if (c->list[i] != -1) continue;
    const char *prod = NULL;
    int64_t pv = 1;
    bool any = false;
    for (int k = 0; k < a->rank; k++) {
      any |= as[k] != NULL;
      prod = op_sym_join(c->arena, prod, pv, as[k], a->dims[k], '*');
      pv *= a->dims[k];
    }
    if (!any) break;
    for (int k = 0; k < c->nlist; k++)
      if (k != i)
        prod = op_sym_join(c->arena, prod, pv, c->list_sym[k], c->list[k], '/');
    out[i] = prod;
  }
}

/* The list's expressions; a -1 keeps the input's dim. */
static void sym_expand(const SymCtx *c, const char **out) {
  const TensorType *a = &c->in[0], *o = c->out;
  for (int i = 0; i < o->rank && i < c->nlist; i++) {
    out[i] = c->list_sym[i];
    int k = i - (o->rank - a->rank);
    if (c->list[i] == -1 && k >= 0) out[i] = c->in_sym[0][k];
  }
}

static void sym_transpose(const SymCtx *c, const char **out) {
  for (int i = 0; i < c->out->rank; i++) out[i] = c->in_sym[0][c->args->perm[i]];
}

/* squeeze, select: the axis drops out. */
static void sym_drop_axis(const SymCtx *c, const char **out) {
  for (int i = 0, k = 0; k < c->in[0].rank; k++)
    if (k != c->args->axis) out[i++] = c->in_sym[0][k];
}

static void sym_unsqueeze(const SymCtx *c, const char **out) {
  for (int i = 0, k = 0; i < c->out->rank; i++)
    out[i] = i == c->args->axis ? NULL : c->in_sym[0][k++];
}

/* The flattened dims' product. */
static void sym_flatten(const SymCtx *c, const char **out) {
  const TensorType *a = &c->in[0];
  const char *const *as = c->in_sym[0];
  int s = (int)c->args->start, e = (int)c->args->end;
  const char *p = NULL;
  int64_t pv = 1;
  for (int k = s; k <= e; k++) {
    p = op_sym_join(c->arena, p, pv, as[k], a->dims[k], '*');
    pv *= a->dims[k];
  }
  for (int i = 0; i < s; i++) out[i] = as[i];
  out[s] = p;
  for (int k = e + 1; k < a->rank; k++) out[k - (e - s)] = as[k];
}

/* The indices' dims in place of the axis. */
static void sym_gather(const SymCtx *c, const char **out) {
  const TensorType *a = &c->in[0], *idx = &c->in[1];
  int ax = (int)c->args->axis, i = 0;
  for (int k = 0; k < ax; k++) out[i++] = c->in_sym[0][k];
  for (int k = 0; k < idx->rank; k++) out[i++] = c->in_sym[1][k];
  for (int k = ax + 1; k < a->rank; k++) out[i++] = c->in_sym[0][k];
}

/* The axis is the operands' sum. */
static void sym_concat(const SymCtx *c, const char **out) {
  const TensorType *a = &c->in[0];
  int ax = (int)c->args->axis;
  for (int i = 0; i < c->out->rank; i++) out[i] = c->in_sym[0][i];
  const char *s = c->in_sym[0][ax];
  int64_t sv = a->dims[ax];
  bool any = s != NULL;
  for (int k = 1; k < c->nin; k++) {
    any |= c->in_sym[k][ax] != NULL;
    s = op_sym_join(c->arena, s, sv, c->in_sym[k][ax], c->in[k].dims[ax], '+');
    sv += c->in[k].dims[ax];
  }
  out[ax] = any ? s : NULL;
}

/* M from a, N from b, the batch dims broadcast. */
static void sym_matmul(const SymCtx *c, const char **out) {
  const TensorType *a = &c->in[0], *b = &c->in[1], *o = c->out;
  const char *const *as = c->in_sym[0], *const *bs = c->in_sym[1];
  int ra = a->rank, rb = b->rank, ro = o->rank;
  if (ra >= 2 && ro >= 2) out[ro - 2] = as[ra - 2];
  else if (ra == 2 && ro == 1) out[0] = as[0];
  if (rb >= 2 && ro >= 1) out[ro - 1] = bs[rb - 1];
  for (int i = 0; i < ro - 2; i++) {
    int ka = i - (ro - ra), kb = i - (ro - rb);
    if (ka >= 0 && as[ka] && a->dims[ka] == o->dims[i]) out[i] = as[ka];
    else if (kb >= 0 && bs[kb] && b->dims[kb] == o->dims[i]) out[i] = bs[kb];
  }
}

/* ------------------------------------ recurrent layers (R-RNN-001..004)
 * lstm, gru, rnn(x, w, r[, b], hidden=, layers=1, direction=, batch_first=)
 * with ONNX's operands: x [T, B, I] ([B, T, I] batch first), w [D, G*H, I],
 * r [D, G*H, H], b [D, 2*G*H], D = 2 when bidirectional, G the gates
 * (LSTM 4, GRU 3, RNN 1); the result is ONNX's Y, [T, D, B, H] ([B, T, D,
 * H] batch first). */

static const char *const rnn_directions[] = {"forward", "reverse",
                                             "bidirectional", NULL};
static const KwDesc kw_rnn[] = {{"hidden", KW_INT, true, 0, NULL},
                                {"layers", KW_INT, false, 1, NULL},
                                {"direction", KW_CHOICE, false, 0, rnn_directions},
                                {"batch_first", KW_BOOL, false, 0, NULL},
                                {NULL, 0, false, 0, NULL}};

static int rnn_gates(const OpDesc *op) {
  return op->id == OP_LSTM ? 4 : op->id == OP_GRU ? 3 : 1;
}

/* Element-wise FLOPs per hidden unit and step besides the GEMMs (the
 * row's weights: a sigmoid 4, a tanh 1): the x and h products summed per
 * gate, the bias adds (two per gate, when b is given), then
 *   LSTM: 3 sigmoids, 2 tanh, c = f*c + i*g (3), h = o*tanh(c) (1): 18;
 *   GRU (ONNX/PyTorch): 2 sigmoids, a tanh, r*(Rn h) and its add (2),
 *        h = (1 - z)*n + z*h (4): 15, one gate's sum inside n's add;
 *   RNN: a tanh: 1. */
static double rnn_gate_flops(const OpDesc *op, bool bias) {
  int g = rnn_gates(op);
  double sums = op->id == OP_GRU ? 2 : g;
  double body = op->id == OP_LSTM ? 18 : op->id == OP_GRU ? 15 : 1;
  return sums + body + (bias ? 2 * g : 0);
}

static bool shape_rnn(const OpDesc *op, const TensorType *in, int nin,
                      OpArgs *args, TensorType *out, const ShapeCtx *ctx) {
  static const char *const names[4] = {"x", "w", "r", "b"};
  char s[160], s2[160];
  for (int i = 0; i < nin; i++)
    if (in[i].rank != (i == 3 ? 2 : 3))
      return fail(ctx, ctx->arg_locs[i], "%s %s must be of rank %d, got %s",
                  op->name, names[i], i == 3 ? 2 : 3,
                  op_type_str(s, sizeof s, &in[i]));
  int64_t dirs = args->direction == 2 ? 2 : 1, h = args->hidden;
  if (h > INT64_MAX / 8) /* 2 * G * H stays in 64 bits */
    return fail(ctx, ctx->call_loc, "%s hidden=%lld is larger than any "
                "weight can be", op->name, (long long)h);
  int64_t gh = rnn_gates(op) * h, ix = in[0].dims[2];
  if (in[1].dims[0] != dirs || in[1].dims[1] != gh || in[1].dims[2] != ix ||
      in[2].dims[0] != dirs || in[2].dims[1] != gh || in[2].dims[2] != h)
    return fail(ctx, ctx->call_loc,
                "%s with hidden=%lld over x %s (%lld direction%s) needs w "
                "[%lld, %lld, %lld] and r [%lld, %lld, %lld], got w %s and r %s",
                op->name, (long long)h, op_type_str(s, sizeof s, &in[0]),
                (long long)dirs, dirs == 1 ? "" : "s", (long long)dirs,
                (long long)gh, (long long)ix, (long long)dirs, (long long)gh,
                (long long)h, op_type_str(s2, sizeof s2, &in[1]),
                op_type_str(s2 + 80, sizeof s2 - 80, &in[2]));
  if (nin == 4 && (in[3].dims[0] != dirs || in[3].dims[1] != 2 * gh))
    return fail(ctx, ctx->arg_locs[3], "%s b must be [%lld, %lld], got %s",
                op->name, (long long)dirs, (long long)(2 * gh),
                op_type_str(s, sizeof s, &in[3]));
  TensorType t = in[0];
  t.rank = 4;
  int64_t tl = in[0].dims[args->batch_first ? 1 : 0];
  int64_t bt = in[0].dims[args->batch_first ? 0 : 1];
  int64_t y[4] = {tl, dirs, bt, h}, yb[4] = {bt, tl, dirs, h};
  memcpy(t.dims, args->batch_first ? yb : y, sizeof y);
  if (!promote(ctx, op, in, nin, &t.dtype)) return false;
  *out = t;
  return true;
}

/* Per step: a [B, I + H] x [I + H, G*H] GEMM per direction. */
static void dims_rnn(const OpIn *x, OpDims *d) {
  const TensorType *in = op_in_type(x, 0), *r = op_in_type(x, 2);
  int bf = x->args->batch_first ? 1 : 0;
  d->m = (double)in->dims[1 - bf];
  d->n = (double)r->dims[1];
  d->k = (double)(in->dims[2] + r->dims[2]);
  d->batch = (double)in->dims[bf] * (double)r->dims[0];
  d->nalign = 1;
  d->align[0] = (OpDim){.what = "hidden size", .size = r->dims[2],
                        .operand = 2, .data = false};
}

/* Per layer, step and direction: G GEMMs of 2*B*H*(I + H) and the gate
 * arithmetic on B*H; layers after the first read the previous layer's
 * D*H features.  Bytes: x, w and b read once (the input GEMM over all
 * steps is one, cuDNN's standard algorithm), r read once per step (a
 * kernel that is not persistent reloads it, Appleyard et al. 2016; a
 * persistent one, Diamos et al. 2016, keeps it on chip), y written; the
 * later layers' weights of the same sizes, their input read and their
 * output written. */
static void cost_rnn(const OpIn *x, const Target *t, OpCost *c) {
  const TensorType *in = op_in_type(x, 0), *r = op_in_type(x, 2);
  int bf = x->args->batch_first ? 1 : 0;
  double steps = (double)in->dims[bf], batch = (double)in->dims[1 - bf];
  double dirs = (double)r->dims[0], h = (double)r->dims[2];
  double g = rnn_gates(x->op), ix = (double)in->dims[2];
  double layers = (double)x->args->layers, e = dtype_info(r->dtype)->bytes;
  bool bias = x->nin == 4;
  double arith = batch * h * rnn_gate_flops(x->op, bias);
  double first = steps * dirs * (g * 2 * batch * h * (ix + h) + arith);
  double later = steps * dirs * (g * 2 * batch * h * (dirs * h + h) + arith);
  c->flops = first + (layers - 1) * later;
  double rb = op_tensor_bytes(r), y = op_tensor_bytes(x->out);
  double own = io_bytes(x) + (steps - 1) * rb;
  double w_later = dirs * g * h * (dirs * h + h * steps) * e +
                   (bias ? dirs * 2 * g * h * e : 0);
  c->bytes = own + (layers - 1) * (w_later + 2 * y);
  c->blocks = ceil_div(batch, t->tile_m) * ceil_div(g * h, t->tile_n) * dirs;
}

/* ONNX's Y: T and B where x has them. */
static void sym_rnn(const SymCtx *c, const char **out) {
  bool bf = c->args->batch_first;
  out[bf ? 1 : 0] = c->in_sym[0][bf ? 1 : 0];
  out[bf ? 0 : 2] = c->in_sym[0][bf ? 0 : 1];
}

/* ------------------------------------------ the selective scan (R-OP-008)
 * selective_scan(x, delta, A, B, C[, D[, state]]): Mamba's S6 layer (Gu and
 * Dao 2023, section 3), as transformers' modeling_mamba.py and mamba_ssm's
 * selective_scan_fn take it, channels last: x and delta [batch, L, D], A
 * [D, N], B and C [batch, L, N], the skip D [D] and, for a decode step,
 * the recurrent state [batch, D, N] it reads and updates in place.  The
 * result y is [batch, L, D]. */

static bool scan_dims_fail(const ShapeCtx *ctx, const OpDesc *op, int i,
                           const TensorType *t, const char *want) {
  static const char *const names[7] = {"x", "delta", "A", "B", "C", "D", "state"};
  char s[160];
  return fail(ctx, ctx->arg_locs[i], "%s %s must be %s, got %s", op->name,
              names[i], want, op_type_str(s, sizeof s, t));
}

static bool shape_selective_scan(const OpDesc *op, const TensorType *in, int nin,
                                 OpArgs *args, TensorType *out,
                                 const ShapeCtx *ctx) {
  (void)args;
  if (in[0].rank != 3) return scan_dims_fail(ctx, op, 0, &in[0], "[batch, L, D]");
  if (in[2].rank != 2) return scan_dims_fail(ctx, op, 2, &in[2], "[D, N]");
  int64_t b = in[0].dims[0], l = in[0].dims[1], d = in[0].dims[2];
  int64_t n = in[2].dims[1];
  const int64_t want[7][3] = {{b, l, d}, {b, l, d}, {d, n, 0}, {b, l, n},
                              {b, l, n}, {d, 0, 0}, {b, d, n}};
  static const int rank[7] = {3, 3, 2, 3, 3, 1, 3};
  for (int i = 1; i < nin; i++) {
    bool same = in[i].rank == rank[i];
    for (int k = 0; same && k < rank[i]; k++) same = in[i].dims[k] == want[i][k];
    if (!same) {
      char w[96];
      dims_str(w, sizeof w, want[i], rank[i]);
      return scan_dims_fail(ctx, op, i, &in[i], w);
    }
  }
  /* y in x's dtype, as mamba_ssm writes it, whatever A's and D's (fp32) */
  *out = in[0];
  return true;
}

/* FLOPs: the recurrence h_t = exp(delta A) h_t-1 + delta B x_t, y_t = C h_t
 * on each of the N state elements of a channel and step, as written: delta
 * A, its exp, the product with h, delta B, its product with x, the sum, C
 * times h and the sum over N: 8; the skip D x adds 2 a channel and step.
 * Bytes: the operands and y, never the [batch, L, D, N] states, which stay
 * on chip (section 3.3.2); a decode step's state is read and written back.
 * Blocks: one per batch row and channel, mamba_ssm's grid. */
static void cost_selective_scan(const OpIn *x, const Target *t, OpCost *c) {
  (void)t;
  const TensorType *in = op_in_type(x, 0), *a = op_in_type(x, 2);
  double steps = (double)in->dims[0] * (double)in->dims[1] * (double)in->dims[2];
  c->flops = steps * (x->op->flops_per_element * (double)a->dims[1] + (x->nin >= 6 ? 2 : 0));
  c->bytes = io_bytes(x);
  for (int i = 0; i < x->nin; i++) /* OPF_UPDATES_CACHE: written back */
    if (x->model->nodes[x->inputs[i]].role == ROLE_CACHE)
      c->bytes += op_tensor_bytes(op_in_type(x, i));
  c->blocks = (double)in->dims[0] * (double)in->dims[2];
}

/* ------------------------------------------ an application's text form */

/* The mirror of sema's reading of the positionals by form
 * (sema_apply.c: positionals): what it reads, this writes. */
static void put_positional(StrBuf *sb, const OpDesc *op, const OpCallText *c) {
  switch (op->form) {
  case FORM_DTYPE:
    if (c->dtype) sb_printf(sb, ", %s", c->dtype);
    return;
  case FORM_SPLIT:
    if (c->nlist <= 0) { /* -N: N equal parts */
      sb_puts(sb, ", ");
      sb_put_int(sb, -c->nlist);
      return;
    }
    break;
  case FORM_COUNT:
    sb_puts(sb, ", ");
    sb_put_int(sb, c->count);
    return;
  case FORM_DIMS:
  case FORM_PERM:
  case FORM_PADS:
    break;
  case FORM_TENSORS:
  case FORM_SCALAR_OK:
  case FORM_TENSOR_LIST:
  case FORM_EQUATION: /* before the operands (op_call_print) */
    return;
  }
  sb_puts(sb, ", [");
  for (int i = 0; i < c->nlist; i++) {
    if (i) sb_puts(sb, ", ");
    op_put_dim(sb, c->list_sym ? c->list_sym[i] : NULL, c->list[i]);
  }
  sb_putc(sb, ']');
}

void op_call_print(StrBuf *sb, const OpDesc *op, const OpCallText *c) {
  sb_puts(sb, op->name);
  sb_putc(sb, '(');
  bool list_form = op->form == FORM_TENSOR_LIST;
  if (list_form) sb_putc(sb, '[');
  /* the equation's characters are letters, ',' and "->" (shape_einsum) */
  if (op->form == FORM_EQUATION)
    sb_printf(sb, "\"%s\"%s", c->equation, c->noperands ? ", " : "");
  for (int i = 0; i < c->noperands; i++) {
    if (i) sb_puts(sb, ", ");
    sb_puts(sb, c->operands[i]);
  }
  if (list_form) sb_putc(sb, ']');
  put_positional(sb, op, c);
  if (c->bias) sb_printf(sb, ", bias=%s", c->bias);
  if (c->keywords) sb_puts(sb, c->keywords);
  sb_putc(sb, ')');
}

/* ----------------------------------------------------------------- table */

static const OpDesc op_table[] = {
#define OP(id_, name_, cls_, min_, max_, form_, kw_, flops_, shape_, sym_, \
           cost_, dims_, train_, saves_, flags_, doc_)                       \
  [OP_##id_] = {.id = OP_##id_, .name = name_, .cls = cls_,                 \
                .min_inputs = min_, .max_inputs = max_, .form = form_,      \
                .keywords = kw_, .flops_per_element = flops_,               \
                .shape = shape_, .sym = sym_, .cost = cost_, .dims = dims_, \
                .train_factor = train_, .saves = saves_, .flags = flags_,   \
                .doc = doc_},
#include "ops.def"
#undef OP
};

static const char *const op_name_list[OP__COUNT + 1] = {
#define OP(id_, name_, ...) [OP_##id_] = name_,
#include "ops.def"
#undef OP
    [OP__COUNT] = NULL,
};

const OpDesc *op_lookup(const char *name) {
  for (int i = 0; i < OP__COUNT; i++)
    if (strcmp(op_table[i].name, name) == 0) return &op_table[i];
  return NULL;
}

const OpDesc *op_get(OpId id) { return &op_table[id]; }

const char *const *op_names(void) { return op_name_list; }

int op_count(void) { return OP__COUNT; }

int op_index(const OpDesc *op) { return (int)op->id; }

void op_print_table(FILE *out) {
  for (int i = 0; i < OP__COUNT; i++)
    fprintf(out, "  %-15s %-12s %s\n", op_table[i].name,
            op_class_str(op_table[i].cls), op_table[i].doc);
}
