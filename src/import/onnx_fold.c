/* SPDX-License-Identifier: MIT */
/*
 * onnx_fold.c: attributes, and constant folding: the shape arithmetic an
 * exporter writes (Shape, Gather, Concat, Add ... on known values) computed
 * here, leaving a comment line and no kernel.
 */
#include "onnx_import.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------- attributes */

int64_t attr_int(const OnnxNode *n, const char *name, int64_t def) {
  const OnnxAttr *a = onnx_attr(n, name);
  return a && a->type == ONNX_ATTR_INT ? a->i : def;
}

double attr_float(const OnnxNode *n, const char *name, double def) {
  const OnnxAttr *a = onnx_attr(n, name);
  return a && a->type == ONNX_ATTR_FLOAT ? a->f : def;
}

const char *attr_str(const OnnxNode *n, const char *name,
                            const char *def) {
  const OnnxAttr *a = onnx_attr(n, name);
  return a && a->type == ONNX_ATTR_STRING ? a->s : def;
}

/* An INTS attribute (n elements), or NULL. */
const int64_t *attr_ints(const OnnxNode *n, const char *name, int *cnt) {
  const OnnxAttr *a = onnx_attr(n, name);
  if (!a || a->type != ONNX_ATTR_INTS) {
    *cnt = 0;
    return NULL;
  }
  *cnt = a->n;
  return a->ints;
}

/* Integer list from an attribute (older opsets) or a constant input. */
bool ints_from(X *x, const OnnxNode *n, const char *attr, int input,
                      const int64_t **v, int *cnt) {
  *v = attr_ints(n, attr, cnt);
  if (*v || !has_input(n, input)) return true;
  Val *k = known_in(x, n, input, attr);
  if (!k) return false;
  if (!k->is_int) return fail(x, "its %s are not integers", attr);
  *v = k->iv;
  *cnt = (int)k->n;
  return true;
}

int64_t norm_ax(int64_t a, int rank) { return a < 0 ? a + rank : a; }

/* ------------------------------------------------------- known values */

Val *known_new(X *x, const OnnxNode *n, int i, bool is_int, int64_t cnt,
               const TensorType *t) {
  Val *v = bind_output(x, n, i);
  if (!v) return NULL;
  v->known = true;
  v->is_int = is_int;
  v->n = cnt;
  v->t = *t;
  if (is_int) {
    v->iv = arena_alloc(x->a, (size_t)(cnt + 1) * sizeof *v->iv);
    v->isym = arena_alloc(x->a, (size_t)(cnt + 1) * sizeof *v->isym);
  } else {
    v->rv = arena_alloc(x->a, (size_t)(cnt + 1) * sizeof *v->rv);
  }
  v->decl_origin = arena_origin(x, n);
  return v;
}

bool is_int_type(int32_t t) {
  return t == ONNX_INT64 || t == ONNX_INT32 || t == ONNX_INT8 ||
         t == ONNX_UINT8 || t == ONNX_INT16 || t == ONNX_UINT16 ||
         t == ONNX_UINT32 || t == ONNX_UINT64 || t == ONNX_BOOL;
}

void known_values(X *x, Val *v, bool is_int, const int64_t *ints,
                  const double *reals, int64_t n) {
  v->known = true;
  v->is_int = is_int;
  v->n = n;
  if (is_int) {
    v->iv = arena_memdup(x->a, ints, (size_t)(n + 1) * sizeof *ints);
    v->isym = arena_alloc(x->a, (size_t)(n + 1) * sizeof *v->isym);
  } else {
    v->rv = arena_memdup(x->a, reals, (size_t)(n + 1) * sizeof *reals);
  }
}

/* A TensorProto's values (a Constant or a small initializer) into v. */
void tensor_values(X *x, Val *v, const OnnxTensor *t) {
  if (!t->ints && !t->reals) return;
  known_values(x, v, t->ints != NULL, t->ints, t->reals, t->nvalues);
}

bool tensor_type(X *x, const OnnxTensor *t, TensorType *out) {
  memset(out, 0, sizeof *out);
  if (!dtype_or_fail(x, t->data_type, t->name, &out->dtype)) return false;
  if (t->ndims > MAX_RANK)
    return fail(x, "tensor '%s' has rank %d, more than rooflint's %d", t->name,
                t->ndims, MAX_RANK);
  out->rank = t->ndims;
  for (int i = 0; i < t->ndims; i++) {
    if (t->dims[i] < 1)
      return fail(x, "tensor '%s' has a dim of %lld; rooflint's dims are "
                     "positive", t->name, (long long)t->dims[i]);
    out->dims[i] = t->dims[i];
  }
  return true;
}

/* Inputs [from, to) of n are known values (an absent one counts). */
bool all_known(X *x, const OnnxNode *n, int from, int to) {
  for (int i = from; i < to && i < n->ninputs; i++) {
    Val *v = val_at(x, n->input_ids[i]);
    if (n->input_ids[i] >= 0 && (!v || !v->known)) return false;
  }
  return true;
}

static int64_t known_count(const TensorType *t) {
  int64_t e = 1;
  for (int i = 0; i < t->rank; i++) e *= t->dims[i];
  return e;
}

/* Broadcast index of output element `i` into an input of type `in`. */
static int64_t bcast_index(const TensorType *out, const TensorType *in,
                           int64_t i) {
  int64_t idx = 0, mul = 1;
  for (int d = out->rank - 1; d >= 0; d--) {
    int64_t c = i % out->dims[d];
    i /= out->dims[d];
    int k = d - (out->rank - in->rank);
    if (k < 0) continue;
    idx += (in->dims[k] == 1 ? 0 : c) * mul;
    mul *= in->dims[k];
  }
  return idx;
}

static bool bcast_type(const TensorType *a, const TensorType *b, TensorType *o) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  *o = *a;
  o->rank = r;
  for (int d = 0; d < r; d++) {
    int ka = d - (r - a->rank), kb = d - (r - b->rank);
    int64_t da = ka >= 0 ? a->dims[ka] : 1, db = kb >= 0 ? b->dims[kb] : 1;
    if (da != db && da != 1 && db != 1) return false;
    o->dims[d] = da == 1 ? db : da;
  }
  return true;
}

/* The type of an elementwise fold (arith) of the nin inputs in[] of n:
 * their broadcast shape, in the op's result dtype; *is_int: its values
 * are integers.  False when it cannot be folded. */
static bool fold_type(const OnnxNode *n, OnnxArith arith, Val *const *in,
                      int nin, TensorType *ot, bool *is_int) {
  *ot = in[0]->t;
  for (int i = 1; i < nin && i < 3; i++)
    if (!bcast_type(ot, &in[i]->t, ot)) return false;
  if (known_count(ot) > ONNX_SMALL_ELEMS) return false;
  bool cmp = arith == ONNX_ARITH_EQUAL || arith == ONNX_ARITH_LESS ||
             arith == ONNX_ARITH_GREATER || arith == ONNX_ARITH_NOT;
  int vi = arith == ONNX_ARITH_WHERE ? 1 : 0;
  *is_int = cmp || (in[vi]->is_int && (nin < 2 || in[nin - 1]->is_int));
  if (arith == ONNX_ARITH_CAST) {
    int32_t to = (int32_t)attr_int(n, "to", ONNX_FLOAT);
    *is_int = is_int_type(to);
    DType d = dtype_of(to);
    if (d == DT_NONE) return false;
    ot->dtype = d;
  } else if (cmp) {
    ot->dtype = DT_BOOL;
  } else if (vi == 1) {
    ot->dtype = in[1]->t.dtype;
  }
  return true;
}

/* An element of Equal: a let compared is only sure against a -1
 * sentinel, or against the same let.  False (the node's error) when it
 * is not sure. */
static bool fold_equal(X *x, const double *a, const char *const *s,
                       double *r) {
  *r = a[0] == a[1];
  if (!s[0] && !s[1]) return true;
  if ((s[0] && a[1] != -1 && !s[1]) || (s[1] && a[0] != -1 && !s[0]))
    if (!(s[0] && s[1] && strcmp(s[0], s[1]) == 0))
      return fail(x, "it compares a symbolic dim (%s) with a number",
                  s[0] ? s[0] : s[1]);
  *r = s[0] && s[1] ? strcmp(s[0], s[1]) == 0 : 0;
  return true;
}

/* `max(a, b)` or `min(a, b)` of two dims, in the arena. */
static const char *extreme_text(X *x, bool mx, const double *a,
                                const char *const *s) {
  StrBuf sb = {0};
  sb_puts(&sb, mx ? "max(" : "min(");
  op_put_dim(&sb, s[0], (int64_t)a[0]);
  sb_puts(&sb, ", ");
  op_put_dim(&sb, s[1], (int64_t)a[1]);
  sb_putc(&sb, ')');
  const char *t = arena_strdup(x->a, sb_str(&sb));
  sb_free(&sb);
  return t;
}

/* `a OP b` of two dims (Add, Sub, Mul, Div): *r its value, *rs its let
 * expression when the values are integers.  False: the node's error. */
static bool fold_arith(X *x, char c, bool is_int, const double *a,
                       const char *const *s, double *r, const char **rs) {
  if (c == '/' && a[1] == 0) return fail(x, "it divides by zero");
  *r = c == '+' ? a[0] + a[1] : c == '-' ? a[0] - a[1] : c == '*' ? a[0] * a[1]
       : is_int ? (double)((int64_t)a[0] / (int64_t)a[1]) : a[0] / a[1];
  if (is_int) *rs = op_sym_join(x->a, s[0], (int64_t)a[0], s[1], (int64_t)a[1], c);
  return true;
}

/* One element of arith over the operands a[] (their let expressions s[]):
 * *r its value, *rs its let expression.  1: folded; 0: an op that does
 * not fold; -1: the node's error. */
static int fold_element(X *x, OnnxArith arith, bool is_int, const double *a,
                        const char *const *s, double *r, const char **rs) {
  static const char arith_char[] = {
      [ONNX_ARITH_ADD] = '+', [ONNX_ARITH_SUB] = '-',
      [ONNX_ARITH_MUL] = '*', [ONNX_ARITH_DIV] = '/'};
  *r = a[0];
  *rs = NULL;
  bool mx = arith == ONNX_ARITH_MAX;
  switch (arith) {
  case ONNX_ARITH_ADD: case ONNX_ARITH_SUB: case ONNX_ARITH_MUL: case ONNX_ARITH_DIV:
    return fold_arith(x, arith_char[arith], is_int, a, s, r, rs) ? 1 : -1;
  case ONNX_ARITH_EQUAL:
    return fold_equal(x, a, s, r) ? 1 : -1;
  case ONNX_ARITH_LESS: *r = a[0] < a[1]; return 1;
  case ONNX_ARITH_GREATER: *r = a[0] > a[1]; return 1;
  case ONNX_ARITH_NOT: *r = a[0] == 0; return 1;
  case ONNX_ARITH_WHERE:
    *r = a[0] != 0 ? a[1] : a[2];
    *rs = a[0] != 0 ? s[1] : s[2];
    return 1;
  case ONNX_ARITH_NEG:
    *r = -a[0];
    if (s[0]) *rs = arena_printf(x->a, "-(%s)", s[0]);
    return 1;
  case ONNX_ARITH_MAX: case ONNX_ARITH_MIN:
    *r = mx ? (a[0] > a[1] ? a[0] : a[1]) : (a[0] < a[1] ? a[0] : a[1]);
    if (s[0] || s[1]) *rs = extreme_text(x, mx, a, s);
    return 1;
  case ONNX_ARITH_CAST: *rs = s[0]; return 1;
  case ONNX_ARITH_SQRT: *r = sqrt(a[0]); return 1;
  case ONNX_ARITH_NONE: break;
  }
  return 0;
}

bool fold_elementwise(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  OnnxArith arith = row->arith;
  int nin = arith == ONNX_ARITH_WHERE ? 3 : n->ninputs;
  if (nin < 1 || nin > 3 || n->ninputs < nin || !all_known(x, n, 0, nin))
    return false;
  Val *in[3];
  for (int i = 0; i < nin; i++)
    if (!(in[i] = in_val(x, n, i))) return false;
  TensorType ot;
  bool is_int;
  if (!fold_type(n, arith, in, nin, &ot, &is_int)) return false;
  int64_t cnt = known_count(&ot);
  Val *v = known_new(x, n, 0, is_int, cnt, &ot);
  if (!v) return true;
  for (int64_t i = 0; i < cnt; i++) {
    double a[3], r;
    const char *s[3] = {NULL, NULL, NULL}, *rs;
    for (int j = 0; j < nin && j < 3; j++) {
      int64_t k = bcast_index(&ot, &in[j]->t, i);
      a[j] = known_at(in[j], k);
      if (in[j]->is_int && in[j]->isym) s[j] = in[j]->isym[k];
    }
    if (fold_element(x, arith, is_int, a, s, &r, &rs) <= 0) return false;
    if (is_int) {
      v->iv[i] = (int64_t)r;
      v->isym[i] = rs;
    } else {
      v->rv[i] = r;
    }
  }
  emit_folded(x, n, "folded");
  return true;
}

/* A view of known values (Reshape, Unsqueeze, Squeeze, Flatten, Gather,
 * Slice, Concat of constants): the same values in a new order. */
bool fold_copy(X *x, const OnnxNode *n, const Val *src,
                      const TensorType *t, const int64_t *pick, int64_t cnt) {
  Val *v = known_new(x, n, 0, src->is_int, cnt, t);
  if (!v) return !x->error;
  for (int64_t i = 0; i < cnt; i++) {
    int64_t k = pick ? pick[i] : i;
    if (src->is_int) {
      v->iv[i] = src->iv[k];
      v->isym[i] = src->isym ? src->isym[k] : NULL;
    } else {
      v->rv[i] = src->rv[k];
    }
  }
  emit_folded(x, n, "folded");
  return !x->error;
}
