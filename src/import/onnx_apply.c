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
  c->dtype = NULL;
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

/* The result's type by the op's shape rule over `in`, the operands'
 * types (the rule normalises c's arguments: a negative axis counts from
 * the end); false (the node's error) when the rule refuses it. */
static bool size_call(X *x, Call *c, const TensorType *in, TensorType *out) {
  Loc locs[CALL_MAX_IN];
  for (int i = 0; i < c->nin; i++) locs[i] = LOC_NONE;
  DiagSink sink;
  diag_sink_init(&sink);
  TensorType declared;
  memset(&declared, 0, sizeof declared);
  ShapeCtx ctx = {.diags = &sink, .call_loc = LOC_NONE, .arg_locs = locs,
                  .arena = x->a, .axis_loc = LOC_NONE, .list_loc = LOC_NONE,
                  .list = c->list, .nlist = c->nlist, .declared = &declared,
                  .ranks = 1, .result = c->result, .nresults = c->nresults};
  bool ok = c->op->shape(c->op, in, c->nin, &c->args, out, &ctx);
  if (ok && c->args.out_dtype != DT_NONE) out->dtype = c->args.out_dtype;
  if (!ok) fail(x, "%s", sink.n > 0 ? sink.items[0]->msg : "its shape does not check");
  diag_sink_free(&sink);
  return ok;
}

/* The call's text, by the op's positional form (op_call_print). */
static void write_call(X *x, const Call *c, Term *out) {
  const char *operands[CALL_MAX_IN];
  int npos = c->nin - (c->bias ? 1 : 0);
  for (int i = 0; i < npos; i++) operands[i] = c->in[i].text;
  OpCallText text = {.operands = operands, .noperands = npos,
                     .dtype = c->dtype, .list = c->list,
                     .list_sym = c->list_sym, .nlist = c->nlist,
                     .count = c->args.k, .equation = c->args.equation,
                     .bias = c->bias ? c->in[c->nin - 1].text : NULL,
                     .keywords = sb_str(&c->kw)};
  StrBuf *sb = &x->scratch; /* nothing below builds another piece */
  sb->len = 0;
  op_call_print(sb, c->op, &text);
  out->text = c->text_in_scratch ? sb->data : arena_strndup(x->a, sb->data, sb->len);
}

/* The result's dims' let expressions, by the op's sym rule (ops.def). */
static void sym_call(X *x, const Call *c, const TensorType *in, Term *out) {
  const char *const *in_sym[CALL_MAX_IN];
  for (int i = 0; i < c->nin; i++) in_sym[i] = c->in[i].sym;
  SymCtx ctx = {.arena = x->a, .in = in, .in_sym = in_sym, .nin = c->nin,
                .args = &c->args, .list = c->list, .list_sym = c->list_sym,
                .nlist = c->nlist, .out = &out->t};
  memset(out->sym, 0, sizeof out->sym);
  c->op->sym(&ctx, out->sym);
}

/* Sizes `op(args)` over the call's operands with the op's own shape rule
 * (c->args holds the keywords set, from op_default_args on); *out gets
 * the text, the result type and its let expressions.  False (the node's
 * error) when the rule refuses it. */
bool apply(X *x, Call *c, Term *out) {
  memset(out, 0, sizeof *out);
  TensorType in[CALL_MAX_IN];
  for (int i = 0; i < c->nin; i++) in[i] = c->in[i].t;
  bool ok = size_call(x, c, in, &out->t);
  if (ok) write_call(x, c, out);
  sb_free(&c->kw);
  if (ok) sym_call(x, c, in, out);
  return ok;
}
