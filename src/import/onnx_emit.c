/* SPDX-License-Identifier: MIT */
/*
 * onnx_emit.c: what is known of each ONNX value, operands read from a node's
 * inputs, declarations written when a kernel first reads them, and the
 * one line each node writes.
 */
#include "onnx_import.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The let expressions of a value whose dims are all numbers. */
const char *const no_sym[MAX_RANK];

/* The value named by id, or NULL (-1: no name; not defined yet). */
Val *val_at(X *x, int32_t id) { return id >= 0 ? x->vals[id] : NULL; }

/* Binds the name `id` (-1: none) to v. */
void val_bind(X *x, int32_t id, Val *v) {
  if (id >= 0) x->vals[id] = v;
}

bool has_input(const OnnxNode *n, int i) {
  return i < n->ninputs && n->inputs[i][0];
}

/* What the importer knows of input i of n, or NULL (absent, unknown). */
Val *in_val(X *x, const OnnxNode *n, int i) {
  return has_input(n, i) ? val_at(x, n->input_ids[i]) : NULL;
}

/* A new value named `name`, bound to its id (-1: a value no name reads). */
Val *val_new(X *x, const char *name, int32_t id) {
  Val *v = arena_alloc(x->a, sizeof *v);
  v->onnx = name; /* the model's or the arena's: both outlive x */
  v->sym = no_sym;
  val_bind(x, id, v);
  return v;
}

double known_at(const Val *v, int64_t i) {
  return v->is_int ? (double)v->iv[i] : v->rv[i];
}

/* Writes v's declaration, the first time a kernel reads it. */
void declare(X *x, Val *v) {
  if (v->declared || v->decl == VD_NONE) return;
  v->declared = true;
  v->tensor = true;
  if (!v->ident) v->ident = ident_for(x, v->onnx, "t");
  static const char *const words[] = {"", "weight", "buffer", "input",
                                      "cache"};
  StrBuf *sb = &x->decls.text;
  sb_puts(sb, "  ");
  sb_puts(sb, words[v->decl]);
  sb_putc(sb, ' ');
  sb_puts(sb, v->ident);
  sb_puts(sb, " : ");
  put_type(x, sb, &v->t, v->sym);
  if (v->decl_origin) { /* the origin without its byte region */
    unsigned long long off, len;
    sb_puts(sb, "  # onnx ");
    sb_putn(sb, v->decl_origin, src_origin_region(v->decl_origin, &off, &len));
  }
  if (v->decl_note) {
    sb_puts(sb, v->decl_origin ? ", " : "  # ");
    sb_puts(sb, v->decl_note);
  }
  lines_end(&x->decls, v->decl_origin ? xstrdup(v->decl_origin) : NULL);
  if (v->tied_copy)
    note(x, &x->decls, x->decls.n - 1, SEV_REMARK,
         "'%s' has %s: it may be a tied weight (torch writes a head tied to the "
         "embedding as a second, transposed initializer), counted twice in "
         "the parameters",
         v->ident, v->decl_note);
}

static bool tensor_of(X *x, const OnnxNode *n, int i, Val *v, Term *out);

/* Input i of n as a tensor operand. */
bool tensor_in(X *x, const OnnxNode *n, int i, Term *out) {
  memset(out, 0, sizeof *out);
  if (i >= n->ninputs || !n->inputs[i][0])
    return fail(x, "input %d is missing", i);
  return tensor_of(x, n, i, val_at(x, n->input_ids[i]), out);
}

/* tensor_in's rest, once input i (present) has been looked up: v. */
static bool tensor_of(X *x, const OnnxNode *n, int i, Val *v, Term *out) {
  if (!v) return fail(x, "input %d '%s' is not defined before the node", i,
                      n->inputs[i]);
  if (!v->tensor && v->decl == VD_NONE) {
    if (!v->known)
      return fail(x, "input %d '%s' has no value rooflint can read", i,
                  n->inputs[i]);
    /* a constant a kernel reads: a buffer */
    v->decl = VD_BUFFER;
  }
  declare(x, v);
  out->text = v->ident;
  out->t = v->t;
  memcpy(out->sym, v->sym, sizeof out->sym);
  return true;
}

bool written_number(X *x, double v, bool may_be_infinite, const char *what) {
  if (isnan(v))
    return fail(x, "its %s is NaN, which rooflint cannot write (a bound, a fill or an operand may be inf or -inf)", what);
  if (isinf(v) && !may_be_infinite)
    return fail(x, "its %s is %s: a coefficient must be a finite number",
                what, v < 0 ? "-inf" : "inf");
  return true;
}

/* Input i as an operand of a binary op: a known scalar is a number. */
bool scalar_or_tensor_in(X *x, const OnnxNode *n, int i, Term *out) {
  Val *v = i < n->ninputs ? val_at(x, n->input_ids[i]) : NULL;
  if (v && v->known && v->n == 1 && !v->tensor &&
      !(v->is_int && v->isym && v->isym[0])) {
    char what[32];
    snprintf(what, sizeof what, "input %d", i);
    if (!written_number(x, known_at(v, 0), true, what)) return false;
    *out = number_term(x, known_at(v, 0));
    return true;
  }
  if (i >= n->ninputs || !n->inputs[i][0]) return tensor_in(x, n, i, out);
  memset(out, 0, sizeof *out);
  return tensor_of(x, n, i, v, out); /* v: what tensor_in would look up */
}



/* Input i's known values (shape tensors, axes, pads). */
Val *known_in(X *x, const OnnxNode *n, int i, const char *what) {
  Val *v = has_input(n, i) ? val_at(x, n->input_ids[i]) : NULL;
  if (!v || !v->known) {
    fail(x, "its %s (input %d) is not a constant: rooflint imports only "
            "shapes it can compute",
         what, i);
    return NULL;
  }
  return v;
}

/* ---------------------------------------------------- writing a node */

/* Output `i` of n gets the tensor `t`: its line `NAME = TEXT  # onnx ...`.
 * comment_at appends the comment and returns where in sb the quoted name
 * that ends it starts (sb's length when the node has no name). */
static size_t comment_at(StrBuf *sb, const OnnxNode *n, int index) {
  sb_puts(sb, "  # onnx #");
  sb_put_int(sb, index);
  sb_putc(sb, ' ');
  put_comment_text(sb, n->op_type);
  size_t at = sb->len;
  if (n->name && n->name[0]) {
    sb_putc(sb, ' ');
    at = sb->len;
    put_quoted(sb, n->name);
  }
  return at;
}

Val *bind_output(X *x, const OnnxNode *n, int i) {
  if (i >= n->noutputs || n->output_ids[i] < 0) return NULL;
  Val *v = val_at(x, n->output_ids[i]);
  return v ? v : val_new(x, n->outputs[i], n->output_ids[i]);
}

/* Ends node n's line in the body: its comment and its origin, which
 * quotes the name as the comment just did (the comment's bytes). */
void end_node_line(X *x, const OnnxNode *n) {
  StrBuf *sb = &x->body.text;
  size_t at = comment_at(sb, n, x->node_index);
  lines_end(&x->body, origin_quoted(x, n, sb->data + at, sb->len - at));
}

/* A line of node n binding `name = text`. */
void bind_line(X *x, const OnnxNode *n, const char *name, const char *text) {
  sb_printf(&x->body.text, "  %s = %s", name, text);
  end_node_line(x, n);
}

/* n's origin, kept in the arena (a declaration's or a known value's). */
const char *arena_origin(X *x, const OnnxNode *n) {
  StrBuf *sb = &x->scratch; /* the text, built where it is kept */
  sb->len = 0;
  size_t at = 0;
  if (n->name && n->name[0]) {
    put_quoted(sb, n->name);
    at = sb->len;
  }
  /* put_origin copies the quoted name from sb itself: room first, so
   * the copy's source is never moved by a realloc */
  sb_reserve_to(sb, 2 * at + 64 + strlen(n->op_type));
  put_origin(sb, x, n, sb->data, at);
  return arena_strndup(x->a, sb->data + at, sb->len - at);
}

/* v's dims' let expressions become sym[0, MAX_RANK). */
void val_set_sym(X *x, Val *v, const char *const *sym) {
  for (int i = 0; i < MAX_RANK; i++)
    if (sym[i]) {
      v->sym = arena_memdup(x->a, sym, MAX_RANK * sizeof *sym);
      return;
    }
  v->sym = no_sym;
}

void set_tensor(X *x, Val *v, const Term *t) {
  v->tensor = true;
  v->t = t->t;
  val_set_sym(x, v, t->sym);
  if (!v->ident) v->ident = ident_for(x, v->onnx, "t");
}

/* The one statement of node n: `names = text`. */
bool emit(X *x, const OnnxNode *n, Term *results, int nresults,
                 const char *text) {
  StrBuf *sb = &x->body.text; /* nothing below writes another line */
  sb_puts(sb, "  ");
  for (int i = 0; i < nresults; i++) {
    Val *v = bind_output(x, n, i);
    if (!v) { /* an omitted output still needs a name in a split */
      v = val_new(x, arena_printf(x->a, "%d:unused%d", x->node_index, i), -1);
    }
    set_tensor(x, v, &results[i]);
    if (i) sb_puts(sb, ", ");
    sb_puts(sb, v->ident);
  }
  sb_puts(sb, " = ");
  sb_puts(sb, text);
  end_node_line(x, n);
  return true;
}

bool emit1(X *x, const OnnxNode *n, Term *t) {
  return emit(x, n, t, 1, t->text);
}

/* The one statement of n: the call c, sized and written. */
bool emit_call(X *x, const OnnxNode *n, Call *c) {
  Term out;
  c->text_in_scratch = true;
  return apply(x, c, &out) && emit1(x, n, &out);
}

/* A node that writes no kernel: a comment line, so every node is found. */
void emit_folded(X *x, const OnnxNode *n, const char *what) {
  StrBuf *sb = &x->body.text;
  size_t at = comment_at(sb, n, x->node_index); /* as end_node_line */
  char *origin = origin_quoted(x, n, sb->data + at, sb->len - at);
  sb_puts(sb, ": ");
  sb_puts(sb, what);
  lines_end(&x->body, origin);
}
