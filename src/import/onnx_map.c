/* SPDX-License-Identifier: MIT */
/*
 * onnx_map.c: the mapping handlers of onnx_ops.def for the element-wise ops,
 * contractions, norms, reductions, pools and quantized ops.
 */
#include "onnx_import.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------- the mapping */

/* n's line: the row's op on its one tensor operand. */
static bool unary_call(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Call c;
  call_init(x, &c, row->roof);
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  return emit_call(x, n, &c);
}

bool map_unary(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (fold_elementwise(x, n, row)) return !x->error;
  return unary_call(x, n, row);
}

/* n's line: the row's op on two operands, a known scalar as a number. */
static bool binary_call(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (n->ninputs != 2)
    return fail(x, "%s takes 2 operands here, got %d", n->op_type, n->ninputs);
  Call c;
  call_init(x, &c, row->roof);
  Term a, b;
  if (!scalar_or_tensor_in(x, n, 0, &a) || !scalar_or_tensor_in(x, n, 1, &b))
    return false;
  if (a.t.dtype == DT_NONE && b.t.dtype == DT_NONE)
    return fail(x, "both operands are constants it could not fold");
  call_in(&c, a);
  call_in(&c, b);
  return emit_call(x, n, &c);
}

bool map_binary(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (n == x->bias_add) { /* map_matmul wrote it */
    emit_folded(x, n, "the bias= of the MatMul before it");
    return true;
  }
  if (fold_elementwise(x, n, row)) return !x->error;
  return binary_call(x, n, row);
}

bool map_reciprocal(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "div");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, number_term(x, 1));
  call_in(&c, t);
  return emit_call(x, n, &c);
}

bool map_alias(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  if (src && !src->tensor && n->noutputs > 0 && n->outputs[0][0]) {
    /* a constant, or a declaration not yet written (torch's Identity of
     * a shared initializer): the output is the same value */
    val_bind(x, n->output_ids[0], src);
    emit_folded(x, n, "an alias");
    return true;
  }
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  return !bind_output(x, n, 0) || emit1(x, n, &t);
}

/* n's line: cast(t, to). */
static bool emit_cast(X *x, const OnnxNode *n, Term t, DType to) {
  Call c;
  call_init(x, &c, "cast");
  call_in(&c, t);
  c.args.cast_to = to;
  c.dtype = dtype_str(to);
  return emit_call(x, n, &c);
}

bool map_cast(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (fold_elementwise(x, n, row)) return !x->error;
  DType to;
  if (!dtype_or_fail(x, (int32_t)attr_int(n, "to", 0), "its 'to'", &to))
    return false;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  if (t.t.dtype == to) return map_alias(x, n, row);
  return emit_cast(x, n, t, to);
}

bool map_gelu(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "gelu");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  bool tanh_form = strcmp(attr_str(n, "approximate", "none"), "tanh") == 0;
  c.args.approximate = tanh_form ? 0 : 1;
  call_kw(&c, "approximate=\"%s\"", tanh_form ? "tanh" : "none");
  return emit_call(x, n, &c);
}

/* A bound of Clip: an attribute before opset 11, a constant input since. */
static bool clip_bound(X *x, const OnnxNode *n, const char *attr, int input,
                       double *v, bool *has) {
  const OnnxAttr *a = onnx_attr(n, attr);
  *has = false;
  if (a && a->type == ONNX_ATTR_FLOAT) {
    *v = a->f;
    *has = true;
  } else if (has_input(n, input)) {
    Val *k = known_in(x, n, input, attr);
    if (!k) return false;
    *v = known_at(k, 0);
    *has = true;
  }
  return true;
}

bool map_clip(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  double lo = 0, hi = 0;
  bool has_lo, has_hi;
  if (!clip_bound(x, n, "min", 1, &lo, &has_lo) ||
      !clip_bound(x, n, "max", 2, &hi, &has_hi))
    return false;
  if ((has_lo && !written_number(x, lo, true, "min")) ||
      (has_hi && !written_number(x, hi, true, "max")))
    return false;
  if (!has_lo && !has_hi) return map_alias(x, n, row);
  Call c;
  call_init(x, &c, "clip");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  if (has_lo) {
    c.args.clip_min = lo;
    call_kw(&c, "min=%s", number_term(x, lo).text);
  }
  if (has_hi) {
    c.args.clip_max = hi;
    call_kw(&c, "max=%s", number_term(x, hi).text);
  }
  return emit_call(x, n, &c);
}

bool map_where(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (fold_elementwise(x, n, row)) return !x->error;
  Call c;
  call_init(x, &c, "where");
  Term t[3];
  if (!tensor_in(x, n, 0, &t[0]) || !scalar_or_tensor_in(x, n, 1, &t[1]) ||
      !scalar_or_tensor_in(x, n, 2, &t[2]))
    return false;
  for (int i = 0; i < 3; i++) call_in(&c, t[i]);
  return emit_call(x, n, &c);
}

/* R-ONNX-021: a comparison or logic op folds on values the importer
 * knows (the four that shape arithmetic uses), else is the element-wise op
 * of its row, with a bool result; a known scalar operand is a number. */
bool map_compare(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (fold_elementwise(x, n, row)) return !x->error;
  if (x->error) return false;
  return n->ninputs == 1 ? unary_call(x, n, row) : binary_call(x, n, row);
}

/* ---- contractions */

/* R-ONNX-022: einsum("...", operands), the equation without its blanks;
 * einsum's shape rule checks it (letters, ',' and "->" only) before a
 * byte of it is written. */
bool map_einsum(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  const char *eq = attr_str(n, "equation", NULL);
  if (!eq) return fail(x, "it has no equation");
  size_t len = strlen(eq);
  char *bare = arena_alloc(x->a, len + 1), *to = bare;
  for (size_t i = 0; i < len; i++)
    if (eq[i] != ' ') *to++ = eq[i];
  *to = '\0';
  Call c;
  call_init(x, &c, row->roof);
  c.args.equation = bare;
  for (int i = 0; i < n->ninputs; i++) {
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  return emit_call(x, n, &c);
}

/* Conv's and the pools' pads: symmetric ones as padding=, asymmetric
 * ones by a pad() around x; auto_pad from the input size. */
typedef struct Window {
  int nsp;                   /* spatial axes */
  int64_t kernel[3], stride[3], dil[3], pad_lo[3], pad_hi[3];
} Window;

static bool window_of(X *x, const OnnxNode *n, const TensorType *xt,
                      const int64_t *kernel, int nsp, Window *w) {
  memset(w, 0, sizeof *w);
  w->nsp = nsp;
  int cnt;
  const int64_t *s = attr_ints(n, "strides", &cnt);
  for (int i = 0; i < nsp; i++) w->stride[i] = s && i < cnt ? s[i] : 1;
  const int64_t *d = attr_ints(n, "dilations", &cnt);
  for (int i = 0; i < nsp; i++) w->dil[i] = d && i < cnt ? d[i] : 1;
  /* checked here, before the shape rule and auto_pad divide by a stride */
  for (int i = 0; i < nsp; i++) {
    if (w->stride[i] < 1)
      return fail(x, "its stride on spatial axis %d is %lld, not a positive "
                     "integer", i, (long long)w->stride[i]);
    if (w->dil[i] < 1)
      return fail(x, "its dilation on spatial axis %d is %lld, not a positive "
                     "integer", i, (long long)w->dil[i]);
  }
  for (int i = 0; i < nsp; i++) w->kernel[i] = kernel[i];
  const int64_t *p = attr_ints(n, "pads", &cnt);
  if (p && cnt != 2 * nsp) return fail(x, "its pads have %d entries, not %d", cnt, 2 * nsp);
  for (int i = 0; i < nsp; i++) {
    w->pad_lo[i] = p ? p[i] : 0;
    w->pad_hi[i] = p ? p[nsp + i] : 0;
  }
  const char *ap = attr_str(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
    for (int i = 0; i < nsp; i++) {
      int64_t in = xt->dims[2 + i], st = w->stride[i];
      int64_t out = (in + st - 1) / st;
      int64_t total = (out - 1) * st + (w->kernel[i] - 1) * w->dil[i] + 1 - in;
      if (total < 0) total = 0;
      int64_t small = total / 2, big = total - small;
      w->pad_lo[i] = ap[5] == 'U' ? small : big;
      w->pad_hi[i] = ap[5] == 'U' ? big : small;
    }
  } else if (strcmp(ap, "VALID") == 0) {
    for (int i = 0; i < nsp; i++) w->pad_lo[i] = w->pad_hi[i] = 0;
  }
  return true;
}

static bool window_symmetric(const Window *w) {
  for (int i = 0; i < w->nsp; i++)
    if (w->pad_lo[i] != w->pad_hi[i]) return false;
  return true;
}

/* `[a, b]` or `a` for 1-D. */
static const char *win_text(X *x, const int64_t *v, int nsp) {
  StrBuf sb = {0};
  bool same = true;
  for (int i = 1; i < nsp; i++) same &= v[i] == v[0];
  if (same) sb_put_int(&sb, v[0]);
  else put_list(&sb, v, NULL, nsp);
  const char *s = arena_strdup(x->a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* x padded asymmetrically: pad(x, [0, 0, lo..., 0, 0, hi...]) as a term. */
static bool pad_term(X *x, Term *xt, const Window *w, double value) {
  Call c;
  call_init(x, &c, "pad");
  call_in(&c, *xt);
  int r = xt->t.rank;
  c.nlist = 2 * r;
  for (int i = 0; i < r; i++) {
    int k = i - (r - w->nsp);
    c.list[i] = k >= 0 ? w->pad_lo[k] : 0;
    c.list[r + i] = k >= 0 ? w->pad_hi[k] : 0;
  }
  c.args.value = value;
  if (value != 0) call_kw(&c, "value=%s", number_term(x, value).text);
  return apply(x, &c, xt);
}

/* conv1d/2d/3d(x, w, ...) with the window of n. */
/* ONNX infers kernel_shape from the weight when it is absent; one given
 * that disagrees makes the file inconsistent (which would run?). */
static bool kernel_agrees(X *x, const OnnxNode *n, const TensorType *wt) {
  int cnt, nsp = wt->rank - 2;
  const int64_t *k = attr_ints(n, "kernel_shape", &cnt);
  if (!k) return true;
  if (cnt != nsp)
    return fail(x, "its kernel_shape has %d entries for a weight of %d "
                   "spatial dims", cnt, nsp);
  for (int i = 0; i < nsp; i++)
    if (wt->dims[2 + i] >= 0 && k[i] != wt->dims[2 + i])
      return fail(x, "its kernel_shape is %lld on spatial axis %d where its "
                     "weight has %lld", (long long)k[i], i,
                  (long long)wt->dims[2 + i]);
  return true;
}

static bool conv_call(X *x, const OnnxNode *n, Term xt, Term wt, Term *bias,
                      const char *out_dtype, Term *out) {
  int nsp = wt.t.rank - 2;
  if (nsp < 1 || nsp > 3)
    return fail(x, "its weight has rank %d; rooflint has 1-, 2- and 3-D "
                   "convolutions", wt.t.rank);
  if (!kernel_agrees(x, n, &wt.t)) return false;
  static const char *const names[] = {"", "conv1d", "conv2d", "conv3d"};
  Window w;
  if (!window_of(x, n, &xt.t, &wt.t.dims[2], nsp, &w)) return false;
  if (!window_symmetric(&w)) {
    if (!pad_term(x, &xt, &w, 0)) return false;
    for (int i = 0; i < nsp; i++) w.pad_lo[i] = w.pad_hi[i] = 0;
  }
  Call c;
  call_init(x, &c, names[nsp]);
  call_in(&c, xt);
  call_in(&c, wt);
  int64_t group = attr_int(n, "group", 1);
  for (int i = 0; i < nsp; i++) {
    c.args.stride[i] = w.stride[i];
    c.args.padding[i] = w.pad_lo[i];
    c.args.dilation[i] = w.dil[i];
  }
  c.args.groups = group;
  bool any_s = false, any_p = false, any_d = false;
  for (int i = 0; i < nsp; i++)
    any_s |= w.stride[i] != 1, any_p |= w.pad_lo[i] != 0, any_d |= w.dil[i] != 1;
  if (any_s) call_kw(&c, "stride=%s", win_text(x, w.stride, nsp));
  if (any_p) call_kw(&c, "padding=%s", win_text(x, w.pad_lo, nsp));
  if (any_d) call_kw(&c, "dilation=%s", win_text(x, w.dil, nsp));
  if (group != 1) call_kw(&c, "groups=%lld", (long long)group);
  if (out_dtype) {
    c.args.out_dtype = dtype_parse(out_dtype);
    call_kw(&c, "out=%s", out_dtype);
  }
  if (bias) {
    call_in(&c, *bias);
    c.args.bias = true;
    c.bias = true;
  }
  return apply(x, &c, out);
}

/* A convolution node: x, w and the bias (-1: none) at these inputs. */
static bool conv_node(X *x, const OnnxNode *n, int xi, int wi, int bi,
                      const char *out_dtype) {
  Term xt, wt, bt;
  if (!tensor_in(x, n, xi, &xt) || !tensor_in(x, n, wi, &wt)) return false;
  bool has_b = bi >= 0 && has_input(n, bi);
  if (has_b && !tensor_in(x, n, bi, &bt)) return false;
  Term out;
  return conv_call(x, n, xt, wt, has_b ? &bt : NULL, out_dtype, &out) &&
         emit1(x, n, &out);
}

bool map_conv(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return conv_node(x, n, 0, 1, 2, NULL);
}

bool map_conv_transpose(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term xt, wt, bt;
  if (!tensor_in(x, n, 0, &xt) || !tensor_in(x, n, 1, &wt)) return false;
  if (wt.t.rank != 4)
    return fail(x, "rooflint has 2-D transposed convolutions; its weight has "
                   "rank %d", wt.t.rank);
  if (!kernel_agrees(x, n, &wt.t)) return false;
  Window w;
  if (!window_of(x, n, &xt.t, &wt.t.dims[2], 2, &w)) return false;
  if (!window_symmetric(&w))
    return fail(x, "its pads are not symmetric");
  Call c;
  call_init(x, &c, "conv_transpose2d");
  call_in(&c, xt);
  call_in(&c, wt);
  int cnt;
  const int64_t *op = attr_ints(n, "output_padding", &cnt);
  int64_t opad[2] = {op && cnt > 0 ? op[0] : 0, op && cnt > 1 ? op[1] : 0};
  for (int i = 0; i < 2; i++) {
    c.args.stride[i] = w.stride[i];
    c.args.padding[i] = w.pad_lo[i];
    c.args.dilation[i] = w.dil[i];
    c.args.output_padding[i] = opad[i];
  }
  c.args.groups = attr_int(n, "group", 1);
  call_kw(&c, "stride=%s", win_text(x, w.stride, 2));
  call_kw(&c, "padding=%s", win_text(x, w.pad_lo, 2));
  if (opad[0] || opad[1]) call_kw(&c, "output_padding=%s", win_text(x, opad, 2));
  if (w.dil[0] != 1 || w.dil[1] != 1) call_kw(&c, "dilation=%s", win_text(x, w.dil, 2));
  if (c.args.groups != 1) call_kw(&c, "groups=%lld", (long long)c.args.groups);
  if (has_input(n, 2)) {
    if (!tensor_in(x, n, 2, &bt)) return false;
    call_in(&c, bt);
    c.args.bias = c.bias = true;
  }
  return emit_call(x, n, &c);
}

bool transpose_term(X *x, Term *t, const int64_t *perm, int r) {
  Call c;
  call_init(x, &c, "transpose");
  call_in(&c, *t);
  c.nlist = r;
  for (int i = 0; i < r; i++) c.list[i] = perm[i];
  return apply(x, &c, t);
}

static bool mul_term(X *x, Term *t, double k) {
  Call c;
  call_init(x, &c, "mul");
  call_in(&c, *t);
  call_in(&c, number_term(x, k));
  return apply(x, &c, t);
}

bool map_gemm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term a, b, cterm;
  if (!tensor_in(x, n, 0, &a) || !tensor_in(x, n, 1, &b)) return false;
  static const int64_t swap[2] = {1, 0};
  if (attr_int(n, "transA", 0) && !transpose_term(x, &a, swap, 2)) return false;
  if (attr_int(n, "transB", 0) && !transpose_term(x, &b, swap, 2)) return false;
  double alpha = attr_float(n, "alpha", 1), beta = attr_float(n, "beta", 1);
  if (!written_number(x, alpha, false, "alpha") ||
      !written_number(x, beta, false, "beta"))
    return false;
  bool has_c = has_input(n, 2) && beta != 0;
  Call c;
  call_init(x, &c, "matmul");
  call_in(&c, a);
  call_in(&c, b);
  if (has_c && alpha == 1 && beta == 1) {
    if (!tensor_in(x, n, 2, &cterm)) return false;
    call_in(&c, cterm);
    c.args.bias = c.bias = true;
  }
  Term out;
  if (!apply(x, &c, &out)) return false;
  if (alpha != 1 && !mul_term(x, &out, alpha)) return false;
  if (has_c && !(alpha == 1 && beta == 1)) {
    if (!scalar_or_tensor_in(x, n, 2, &cterm)) return false;
    if (beta != 1 && cterm.t.dtype != DT_NONE && !mul_term(x, &cterm, beta))
      return false;
    Call add;
    call_init(x, &add, "add");
    call_in(&add, out);
    call_in(&add, cterm);
    if (!apply(x, &add, &out)) return false;
  }
  return emit1(x, n, &out);
}

/* matmul(a, b) as the line of its node, which its callers write at once. */
static bool matmul_call(X *x, Term a, Term b, const char *out_dtype, Term *out) {
  Call c;
  call_init(x, &c, "matmul");
  c.text_in_scratch = true;
  call_in(&c, a);
  call_in(&c, b);
  if (out_dtype) {
    c.args.out_dtype = dtype_parse(out_dtype);
    call_kw(&c, "out=%s", out_dtype);
  }
  return apply(x, &c, out);
}

/* A matmul node: its operands at inputs ai and bi. */
static bool matmul_node(X *x, const OnnxNode *n, int ai, int bi,
                        const char *out_dtype) {
  Term a, b, out;
  return tensor_in(x, n, ai, &a) && tensor_in(x, n, bi, &b) &&
         matmul_call(x, a, b, out_dtype, &out) && emit1(x, n, &out);
}

/* Every reader of every value of g and of the graphs in its nodes'
 * attributes (a graph's output is a reader too). */
static void count_uses(X *x, const OnnxGraph *g) {
  for (int i = 0; i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    for (int k = 0; k < n->ninputs; k++)
      if (n->input_ids[k] >= 0) x->uses[n->input_ids[k]]++;
    for (int k = 0; k < n->nattrs; k++) {
      const OnnxAttr *a = &n->attrs[k];
      if (a->type == ONNX_ATTR_GRAPH && a->g) count_uses(x, a->g);
      for (int j = 0; a->type == ONNX_ATTR_GRAPHS && j < a->n; j++)
        if (a->graphs[j]) count_uses(x, a->graphs[j]);
    }
  }
  for (int i = 0; i < g->noutputs; i++)
    if (g->outputs[i].id >= 0) x->uses[g->outputs[i].id]++;
}

/* The readers of value id, counted over the model on the first call. */
int32_t value_uses(X *x, int32_t id) {
  if (!x->uses) {
    x->uses = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *x->uses);
    count_uses(x, x->m->graph);
  }
  return x->uses[id];
}

/* torch exports nn.Linear on an input of rank > 2 as MatMul(x, W^T) and
 * then Add(bias, that): y = x W^T + b, b [N] broadcast over the rows
 * (ONNX's numpy broadcasting).  The GPU runs the two as one GEMM whose
 * epilogue adds b (cuBLASLt's bias epilogue), so when the next node is
 * such an Add, the only reader of the MatMul's result, and its other
 * operand a weight [N] (or [1, ..., 1, N], no longer than the result) of
 * the result's dtype, it is the matmul's bias=: the Add's input index of
 * the bias in *bi, the Add returned. */
static const OnnxNode *bias_add_after(X *x, const OnnxNode *n, const Term *a,
                                      const Term *b, int *bi) {
  const OnnxGraph *g = x->graph;
  if (!g || n + 1 >= g->nodes + g->nnodes || n->noutputs < 1 || !n->outputs[0][0])
    return NULL;
  const OnnxNode *add = n + 1;
  const OnnxOpRow *add_row = onnx_row(x, add);
  if (!add_row || add_row->arith != ONNX_ARITH_ADD ||
      add->ninputs != 2 || add->noutputs < 1 || !add->outputs[0][0])
    return NULL;
  int32_t y = n->output_ids[0];
  int k = add->input_ids[0] == y ? 1 : add->input_ids[1] == y ? 0 : -1;
  Val *bias = k >= 0 ? val_at(x, add->input_ids[k]) : NULL;
  int ro = a->t.rank > b->t.rank ? a->t.rank : b->t.rank;
  if (!bias || bias->decl != VD_WEIGHT || a->t.rank < 2 || b->t.rank < 2 ||
      bias->t.rank < 1 || bias->t.rank > ro ||
      bias->t.dims[bias->t.rank - 1] != b->t.dims[b->t.rank - 1] ||
      bias->t.dtype != dtype_wider(a->t.dtype, b->t.dtype))
    return NULL;
  for (int i = 0; i + 1 < bias->t.rank; i++)
    if (bias->t.dims[i] != 1) return NULL;
  if (value_uses(x, y) != 1) return NULL;
  *bi = k;
  return add;
}

bool map_matmul(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term a, b, bias;
  int bi;
  if (!tensor_in(x, n, 0, &a) || !tensor_in(x, n, 1, &b)) return false;
  const OnnxNode *add = bias_add_after(x, n, &a, &b, &bi);
  if (!add) {
    Term out;
    return matmul_call(x, a, b, NULL, &out) && emit1(x, n, &out);
  }
  if (!tensor_in(x, add, bi, &bias)) return false;
  Call c;
  call_init(x, &c, "matmul");
  call_in(&c, a);
  call_in(&c, b);
  call_in(&c, bias);
  c.args.bias = c.bias = true;
  /* the line's result is the Add's output */
  val_bind(x, n->output_ids[0], bind_output(x, add, 0));
  x->bias_add = add;
  return emit_call(x, n, &c);
}

/* ---- norms and reductions */

bool map_softmax(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  int64_t axis = attr_int(n, "axis", x->opset < 13 ? 1 : -1);
  int64_t ax = norm_ax(axis, t.t.rank);
  if (x->opset < 13 && ax != t.t.rank - 1)
    return fail(x, "%s before opset 13 normalises over the dims from axis "
                   "%lld on, flattened; rooflint's softmax takes one axis",
                n->op_type, (long long)axis);
  Call c;
  call_init(x, &c, row->roof);
  call_in(&c, t);
  c.args.axis = axis;
  call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

static bool epsilon_kw(X *x, Call *c, const OnnxNode *n, double def) {
  double eps = attr_float(n, "epsilon", def);
  if (!written_number(x, eps, false, "epsilon")) return false;
  c->args.epsilon = eps;
  call_kw(c, "epsilon=%s", number_term(x, eps).text);
  return true;
}

bool map_layernorm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "layernorm");
  for (int i = 0; i < 3 && i < n->ninputs; i++) {
    if (!has_input(n, i)) continue;
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  int64_t axis = attr_int(n, "axis", -1);
  c.args.axis = axis;
  if (axis != -1) call_kw(&c, "axis=%lld", (long long)axis);
  /* layernorm() has no epsilon= (it does not change the cost), but an
   * infinite one is no model */
  if (!written_number(x, attr_float(n, "epsilon", 1e-5), false, "epsilon"))
    return false;
  return emit_call(x, n, &c);
}

bool map_batchnorm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (attr_int(n, "training_mode", 0))
    return fail(x, "training_mode=1: rooflint imports inference graphs");
  Call c;
  call_init(x, &c, "batchnorm");
  for (int i = 0; i < 5; i++) {
    Val *v = (i < n->ninputs ? val_at(x, n->input_ids[i]) : NULL);
    if (i >= 3 && v && v->decl == VD_WEIGHT && !v->declared)
      v->decl = VD_BUFFER; /* running statistics are no parameters */
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  return epsilon_kw(x, &c, n, 1e-5) && emit_call(x, n, &c);
}

bool map_instancenorm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "instancenorm");
  for (int i = 0; i < 3; i++) {
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  return epsilon_kw(x, &c, n, 1e-5) && emit_call(x, n, &c);
}

int cmp_desc(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

bool map_reduce(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  const int64_t *axes;
  int cnt;
  if (!ints_from(x, n, "axes", 1, &axes, &cnt)) return false;
  int r = t.t.rank;
  int64_t ax[MAX_RANK];
  int na = 0;
  if (cnt == 0) {
    if (attr_int(n, "noop_with_empty_axes", 0)) return map_alias(x, n, row);
    for (int i = 0; i < r; i++) ax[na++] = i;
  } else {
    if (cnt > MAX_RANK) return fail(x, "it reduces %d axes", cnt);
    for (int i = 0; i < cnt; i++) ax[na++] = norm_ax(axes[i], r);
  }
  bool keep = attr_int(n, "keepdims", 1) != 0;
  qsort(ax, (size_t)na, sizeof *ax, cmp_desc); /* the last axis first */
  for (int i = 0; i < na; i++) {
    Call c;
    call_init(x, &c, row->roof);
    call_in(&c, t);
    c.args.axis = ax[i];
    c.args.keepdims = keep;
    call_kw(&c, "axis=%lld", (long long)ax[i]);
    if (keep) call_kw(&c, "keepdims=true");
    if (!apply(x, &c, &t)) return false;
  }
  return emit1(x, n, &t);
}

/* ---- pools */

/* maxpool/avgpool 1d, 2d or 3d by x's rank (N, C and 1 to 3 spatial
 * dims). */
static bool pool_call(X *x, const OnnxNode *n, const OnnxOpRow *row, Term xt,
                      const int64_t *kernel, Term *out) {
  int nsp = xt.t.rank - 2;
  if (nsp < 1 || nsp > 3)
    return fail(x, "rooflint's pools are 1-, 2- and 3-D ([N, C, spatial...]); "
                   "x has rank %d", xt.t.rank);
  Window w;
  if (!window_of(x, n, &xt.t, kernel, nsp, &w)) return false;
  static const char *const names[2][3] = {
      {"avgpool1d", "avgpool2d", "avgpool3d"}, {"maxpool1d", "maxpool2d", "maxpool3d"}};
  bool max = row->arith == ONNX_ARITH_MAX;
  if (!window_symmetric(&w)) {
    if (!pad_term(x, &xt, &w, max ? -INFINITY : 0)) return false;
    for (int i = 0; i < nsp; i++) w.pad_lo[i] = 0;
  }
  Call c;
  call_init(x, &c, names[max][nsp - 1]);
  call_in(&c, xt);
  bool any_p = false;
  for (int i = 0; i < nsp; i++) {
    c.args.kernel[i] = w.kernel[i];
    c.args.stride[i] = w.stride[i];
    c.args.padding[i] = w.pad_lo[i];
    any_p |= w.pad_lo[i] != 0;
  }
  call_kw(&c, "kernel=%s", win_text(x, w.kernel, nsp));
  call_kw(&c, "stride=%s", win_text(x, w.stride, nsp));
  if (any_p) call_kw(&c, "padding=%s", win_text(x, w.pad_lo, nsp));
  if (attr_int(n, "ceil_mode", 0)) {
    c.args.ceil_mode = true;
    call_kw(&c, "ceil_mode=true");
  }
  return apply(x, &c, out);
}

bool map_pool(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term xt;
  if (!tensor_in(x, n, 0, &xt)) return false;
  int cnt;
  const int64_t *k = attr_ints(n, "kernel_shape", &cnt);
  if (!k || cnt != xt.t.rank - 2)
    return fail(x, "its kernel_shape has %d entries for x of rank %d", cnt, xt.t.rank);
  int nd;
  const int64_t *dil = attr_ints(n, "dilations", &nd);
  for (int i = 0; dil && i < nd; i++)
    if (dil[i] != 1)
      return fail(x, "its dilations: rooflint's pools are not dilated");
  Term out;
  return pool_call(x, n, row, xt, k, &out) && emit1(x, n, &out);
}

bool map_global_pool(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term xt, out;
  return tensor_in(x, n, 0, &xt) &&
         pool_call(x, n, row, xt, &xt.t.dims[2], &out) && emit1(x, n, &out);
}

/* ---- quantized */

bool map_quantize(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  return tensor_in(x, n, 0, &t) && emit_cast(x, n, t, DT_INT8);
}

bool map_dequantize(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  Val *scale = has_input(n, 1) ? val_at(x, n->input_ids[1]) : NULL;
  DType to = scale && scale->t.dtype != DT_NONE ? scale->t.dtype : DT_FP32;
  return emit_cast(x, n, t, to);
}

bool map_qlinear_conv(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return conv_node(x, n, 0, 3, 8, NULL); /* x, x_scale, x_zp, w, ..., B */
}

bool map_conv_integer(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return conv_node(x, n, 0, 1, -1, "int32");
}

bool map_qlinear_matmul(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return matmul_node(x, n, 0, 3, NULL); /* a, a_scale, a_zp, b, ... */
}

bool map_matmul_integer(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return matmul_node(x, n, 0, 1, "int32");
}
