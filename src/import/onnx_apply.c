/* SPDX-License-Identifier: MIT */
/*
 * onnx_apply.c: an application of a rooflint op: sized by the op's own shape
 * rule, written as a call, its dims' let expressions carried.
 */
#include "onnx_import.h"

#include <stdarg.h>
#include <string.h>

/* --------------------------------------------------------- applying */

/* An op and its arguments at their defaults, looked up once per name. */
struct OpStart {
  const OpDesc *op;
  OpArgs defaults;
};

/* Only the header is cleared: the operand array is large (a Concat's 256)
 * and filled up to nin. */
void call_init(X *x, Call *c, const char *op) {
  void **slot = ptrmap_ref(&x->ops, op);
  struct OpStart *st = *slot;
  if (!st) {
    st = arena_alloc(x->a, sizeof *st);
    st->op = op_lookup(op);
    op_default_args(st->op, &st->defaults);
    *slot = st;
  }
  c->op = st->op;
  memcpy(&c->args, &st->defaults, sizeof c->args);
  c->nin = c->nlist = c->result = 0;
  c->nresults = 1;
  memset(c->list_sym, 0, sizeof c->list_sym);
  c->kw = (StrBuf){0};
  c->pos_text = NULL;
  c->bias = false;
  c->text_in_scratch = false;
}

void call_in(Call *c, Term t) { c->in[c->nin++] = t; }

void call_kw(Call *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_puts(&c->kw, ", ");
  sb_vprintf(&c->kw, fmt, ap);
  va_end(ap);
}

void put_list(StrBuf *sb, const int64_t *v, const char *const *sym, int n) {
  put_char(sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) put_str(sb, ", ");
    put_dim(sb, sym ? sym[i] : NULL, v[i]);
  }
  put_char(sb, ']');
}

/* The let expressions of a result, by the op's kind. */
static void sym_of(X *x, const Call *c, Term *out) {
  memset(out->sym, 0, sizeof out->sym);
  const TensorType *o = &out->t;
  const Term *a = &c->in[0];
  OpId id = (OpId)op_index(c->op);
  switch (id) {
  case OP_RESHAPE:
  case OP_EXPAND:
    for (int i = 0; i < o->rank && i < c->nlist; i++) {
      out->sym[i] = c->list_sym[i];
      int k = i - (o->rank - a->t.rank);
      if (c->list[i] == -1 && id == OP_EXPAND && k >= 0) out->sym[i] = a->sym[k];
    }
    if (id == OP_RESHAPE) {
      /* a -1 takes what is left of the input's expression */
      for (int i = 0; i < o->rank && i < c->nlist; i++) {
        if (c->list[i] != -1) continue;
        const char *prod = NULL;
        int64_t pv = 1;
        bool any = false;
        for (int k = 0; k < a->t.rank; k++) {
          any |= a->sym[k] != NULL;
          prod = sym_join(x, prod, pv, a->sym[k], a->t.dims[k], '*');
          pv *= a->t.dims[k];
          if (!prod) prod = NULL;
        }
        if (!any) break;
        for (int k = 0; k < c->nlist; k++)
          if (k != i) prod = sym_join(x, prod, pv, c->list_sym[k], c->list[k], '/');
        out->sym[i] = prod;
      }
    }
    return;
  case OP_TRANSPOSE:
    for (int i = 0; i < o->rank; i++) out->sym[i] = a->sym[c->args.perm[i]];
    return;
  case OP_SQUEEZE:
  case OP_SELECT:
    for (int i = 0, k = 0; k < a->t.rank; k++)
      if (k != c->args.axis) out->sym[i++] = a->sym[k];
    return;
  case OP_UNSQUEEZE:
    for (int i = 0, k = 0; i < o->rank; i++)
      out->sym[i] = i == c->args.axis ? NULL : a->sym[k++];
    return;
  case OP_FLATTEN: {
    int s = (int)c->args.start, e = (int)c->args.end;
    const char *p = NULL;
    int64_t pv = 1;
    for (int k = s; k <= e; k++) {
      p = sym_join(x, p, pv, a->sym[k], a->t.dims[k], '*');
      pv *= a->t.dims[k];
    }
    for (int i = 0; i < s; i++) out->sym[i] = a->sym[i];
    out->sym[s] = p;
    for (int k = e + 1; k < a->t.rank; k++) out->sym[k - (e - s)] = a->sym[k];
    return;
  }
  case OP_GATHER: {
    const Term *idx = &c->in[1];
    int ax = (int)c->args.axis, i = 0;
    for (int k = 0; k < ax; k++) out->sym[i++] = a->sym[k];
    for (int k = 0; k < idx->t.rank; k++) out->sym[i++] = idx->sym[k];
    for (int k = ax + 1; k < a->t.rank; k++) out->sym[i++] = a->sym[k];
    return;
  }
  case OP_CONCAT: {
    int ax = (int)c->args.axis;
    for (int i = 0; i < o->rank; i++) out->sym[i] = a->sym[i];
    const char *s = a->sym[ax];
    int64_t sv = a->t.dims[ax];
    bool any = s != NULL;
    for (int k = 1; k < c->nin; k++) {
      any |= c->in[k].sym[ax] != NULL;
      s = sym_join(x, s, sv, c->in[k].sym[ax], c->in[k].t.dims[ax], '+');
      sv += c->in[k].t.dims[ax];
    }
    out->sym[ax] = any ? s : NULL;
    return;
  }
  case OP_SLICE:
  case OP_SPLIT:
  case OP_PAD:
    for (int i = 0; i < o->rank; i++)
      if (o->dims[i] == a->t.dims[i]) out->sym[i] = a->sym[i];
    return;
  case OP_MATMUL: {
    const Term *b = &c->in[1];
    int ra = a->t.rank, rb = b->t.rank, ro = o->rank;
    if (ra >= 2 && ro >= 2) out->sym[ro - 2] = a->sym[ra - 2];
    else if (ra == 2 && ro == 1) out->sym[0] = a->sym[0];
    if (rb >= 2 && ro >= 1) out->sym[ro - 1] = b->sym[rb - 1];
    for (int i = 0; i < ro - 2; i++) {
      int ka = i - (ro - ra), kb = i - (ro - rb);
      if (ka >= 0 && a->sym[ka] && a->t.dims[ka] == o->dims[i]) out->sym[i] = a->sym[ka];
      else if (kb >= 0 && b->sym[kb] && b->t.dims[kb] == o->dims[i]) out->sym[i] = b->sym[kb];
    }
    return;
  }
  default:
    break;
  }
  if (c->op->cls == OC_ELEMENTWISE) { /* numpy broadcasting */
    for (int i = 0; i < o->rank; i++)
      for (int k = 0; k < c->nin && !out->sym[i]; k++) {
        int j = i - (o->rank - c->in[k].t.rank);
        if (j >= 0 && c->in[k].sym[j] && c->in[k].t.dims[j] == o->dims[i])
          out->sym[i] = c->in[k].sym[j];
      }
    return;
  }
  /* reductions, norms, convolutions, pools: a dim keeps its expression
   * where it keeps its place and its size; a reduced axis drops out */
  int drop = c->op->cls == OC_REDUCTION && o->rank == a->t.rank - 1
                 ? (int)c->args.axis : -1;
  for (int i = 0, k = 0; i < o->rank && k < a->t.rank; k++) {
    if (k == drop) continue;
    if (a->t.dims[k] == o->dims[i] && (c->op->cls != OC_CONTRACTION || i == 0))
      out->sym[i] = a->sym[k];
    i++;
  }
}

/* Sizes the call and gives its text; false (the node's error) when the
 * op's shape rule refuses it. */
bool apply(X *x, Call *c, Term *out) {
  memset(out, 0, sizeof *out);
  TensorType in[CALL_MAX_IN];
  Loc locs[CALL_MAX_IN];
  for (int i = 0; i < c->nin; i++) in[i] = c->in[i].t, locs[i] = LOC_NONE;
  DiagSink sink;
  diag_sink_init(&sink);
  TensorType declared;
  memset(&declared, 0, sizeof declared);
  ShapeCtx ctx = {&sink,  LOC_NONE, locs,     x->a, LOC_NONE, LOC_NONE,
                  c->list, c->nlist, &declared, 1,    c->result, c->nresults};
  bool ok = c->op->shape(c->op, in, c->nin, &c->args, &out->t, &ctx);
  if (ok && c->args.out_dtype != DT_NONE) out->t.dtype = c->args.out_dtype;
  if (!ok) {
    fail(x, "%s", sink.n > 0 ? sink.items[0]->msg : "its shape does not check");
    diag_sink_free(&sink);
    sb_free(&c->kw);
    return false;
  }
  diag_sink_free(&sink);
  StrBuf sb = x->scratch; /* nothing below builds another piece */
  sb.len = 0;
  put_str(&sb, c->op->name);
  put_char(&sb, '(');
  int npos = c->nin - (c->bias ? 1 : 0);
  bool list_form = c->op->form == FORM_TENSOR_LIST;
  if (list_form) put_char(&sb, '[');
  for (int i = 0; i < npos; i++) {
    if (i) put_str(&sb, ", ");
    put_str(&sb, c->in[i].text);
  }
  if (list_form) put_char(&sb, ']');
  if (c->pos_text) {
    put_str(&sb, ", ");
    put_str(&sb, c->pos_text);
  }
  if (c->op->form == FORM_DIMS || c->op->form == FORM_PERM ||
      c->op->form == FORM_PADS || (c->op->form == FORM_SPLIT && c->nlist > 0)) {
    put_str(&sb, ", ");
    put_list(&sb, c->list, c->list_sym, c->nlist);
  } else if (c->op->form == FORM_SPLIT) {
    sb_printf(&sb, ", %d", -c->nlist);
  }
  if (c->bias) {
    put_str(&sb, ", bias=");
    put_str(&sb, c->in[c->nin - 1].text);
  }
  put_bytes(&sb, sb_str(&c->kw), c->kw.len);
  put_char(&sb, ')');
  x->scratch = sb;
  out->text = c->text_in_scratch ? sb.data : arena_strndup(x->a, sb.data, sb.len);
  sb_free(&c->kw);
  sym_of(x, c, out);
  return true;
}
