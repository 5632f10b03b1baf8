/* SPDX-License-Identifier: MIT */
/*
 * onnx_map_view.c: the mapping handlers of onnx_ops.def for views, data
 * movement and shape arithmetic (folded where every input is known).
 */
#include "onnx_import.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- views and movement */

/* A list of dims from known integer values, with their let expressions. */
static bool dims_list(X *x, Val *k, Call *c, const char *what) {
  if (!k->is_int) return fail(x, "its %s are not integers", what);
  if (k->n > 2 * MAX_RANK) return fail(x, "its %s have %lld entries", what, (long long)k->n);
  c->nlist = (int)k->n;
  for (int i = 0; i < c->nlist; i++) {
    c->list[i] = k->iv[i];
    c->list_sym[i] = k->isym ? k->isym[i] : NULL;
  }
  return true;
}

bool map_reshape(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  Val *shape = known_in(x, n, 1, "shape");
  if (!shape) return false;
  Call c;
  call_init(x, &c, "reshape");
  if (!dims_list(x, shape, &c, "shape")) return false;
  TensorType st = src ? src->t : (TensorType){0};
  bool allowzero = attr_int(n, "allowzero", 0) != 0;
  for (int i = 0; i < c.nlist; i++)
    if (c.list[i] == 0 && !allowzero && src) {
      if (i >= st.rank) return fail(x, "its shape copies dim %d of a rank-%d tensor", i, st.rank);
      c.list[i] = st.dims[i];
      c.list_sym[i] = src->sym[i];
    }
  if (src && src->known && !src->tensor) {
    TensorType t = st;
    t.rank = c.nlist;
    int64_t have = src->n, rest = 1;
    int infer = -1;
    for (int i = 0; i < c.nlist; i++)
      if (c.list[i] == -1) infer = i;
      else rest *= c.list[i] ? c.list[i] : 1, t.dims[i] = c.list[i];
    if (infer >= 0) t.dims[infer] = rest ? have / rest : 0;
    return fold_copy(x, n, src, &t, NULL, src->n);
  }
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  return emit_call(x, n, &c);
}

bool map_transpose(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  int cnt;
  const int64_t *p = attr_ints(n, "perm", &cnt);
  int64_t perm[MAX_RANK];
  int r = t.t.rank;
  for (int i = 0; i < r; i++) perm[i] = p && i < cnt ? p[i] : r - 1 - i;
  if (p && cnt != r) return fail(x, "its perm has %d entries for rank %d", cnt, r);
  Term out = t;
  return transpose_term(x, &out, perm, r) && emit1(x, n, &out);
}

static bool flatten_term(X *x, Term *t, int64_t start, int64_t end) {
  Call c;
  call_init(x, &c, "flatten");
  call_in(&c, *t);
  c.args.start = start;
  c.args.end = end;
  if (start != 0) call_kw(&c, "start=%lld", (long long)start);
  if (end != -1) call_kw(&c, "end=%lld", (long long)end);
  return apply(x, &c, t);
}

/* op(t, axis=AXIS) in place of t: unsqueeze, squeeze. */
static bool axis_term(X *x, const char *op, Term *t, int64_t axis) {
  Call c;
  call_init(x, &c, op);
  call_in(&c, *t);
  c.args.axis = axis;
  call_kw(&c, "axis=%lld", (long long)axis);
  return apply(x, &c, t);
}

bool unsqueeze_term(X *x, Term *t, int64_t axis) {
  return axis_term(x, "unsqueeze", t, axis);
}

static bool squeeze_term(X *x, Term *t, int64_t axis) {
  return axis_term(x, "squeeze", t, axis);
}

/* Flatten(axis=k): [d0*..*d(k-1), dk*..*d(r-1)]. */
bool map_flatten(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  int r = t.t.rank;
  int64_t k = norm_ax(attr_int(n, "axis", 1), r);
  if (k == 0) {
    if (!flatten_term(x, &t, 0, -1) || !unsqueeze_term(x, &t, 0)) return false;
  } else if (k == r) {
    if (!flatten_term(x, &t, 0, -1) || !unsqueeze_term(x, &t, 1)) return false;
  } else {
    if (k < r - 1 && !flatten_term(x, &t, k, -1)) return false;
    if (k > 1 && !flatten_term(x, &t, 0, k - 1)) return false;
  }
  if (!strchr(t.text, '(')) return map_alias(x, n, row);
  return emit1(x, n, &t);
}

bool map_squeeze(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Val *src = in_val(x, n, 0);
  const int64_t *axes;
  int cnt;
  if (!ints_from(x, n, "axes", 1, &axes, &cnt)) return false;
  TensorType st = src ? src->t : (TensorType){0};
  int64_t ax[MAX_RANK];
  int na = 0;
  if (cnt == 0) {
    for (int i = 0; i < st.rank; i++)
      if (st.dims[i] == 1 && !(src && src->sym[i])) ax[na++] = i;
  } else {
    for (int i = 0; i < cnt && na < MAX_RANK; i++) ax[na++] = norm_ax(axes[i], st.rank);
  }
  qsort(ax, (size_t)na, sizeof *ax, cmp_desc);
  if (src && src->known && !src->tensor) {
    TensorType t = st;
    for (int i = 0; i < na; i++) {
      for (int k = (int)ax[i]; k + 1 < t.rank; k++) t.dims[k] = t.dims[k + 1];
      t.rank--;
    }
    return fold_copy(x, n, src, &t, NULL, src->n);
  }
  if (na == 0) return map_alias(x, n, row);
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  for (int i = 0; i < na; i++)
    if (!squeeze_term(x, &t, ax[i])) return false;
  return emit1(x, n, &t);
}

static int cmp_asc(const void *a, const void *b) { return -cmp_desc(a, b); }

bool map_unsqueeze(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  const int64_t *axes;
  int cnt;
  if (!ints_from(x, n, "axes", 1, &axes, &cnt)) return false;
  TensorType st = src ? src->t : (TensorType){0};
  int r = st.rank + cnt;
  if (cnt < 1 || r > MAX_RANK) return fail(x, "it unsqueezes %d axes of a rank-%d tensor", cnt, st.rank);
  int64_t ax[MAX_RANK];
  for (int i = 0; i < cnt; i++) {
    ax[i] = norm_ax(axes[i], r);
    if (ax[i] < 0 || ax[i] >= r) /* ONNX: an invalid model */
      return fail(x, "its axis %lld is out of range for rank %d",
                  (long long)axes[i], r);
  }
  qsort(ax, (size_t)cnt, sizeof *ax, cmp_asc);
  if (src && src->known && !src->tensor) {
    TensorType t = st;
    for (int i = 0; i < cnt; i++) {
      for (int k = t.rank; k > ax[i]; k--) t.dims[k] = t.dims[k - 1];
      t.dims[ax[i]] = 1;
      t.rank++;
    }
    return fold_copy(x, n, src, &t, NULL, src->n);
  }
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  for (int i = 0; i < cnt; i++)
    if (!unsqueeze_term(x, &t, ax[i])) return false;
  return emit1(x, n, &t);
}

/* Slice's constants, from inputs (opset >= 10) or attributes. */
static bool slice_args(X *x, const OnnxNode *n, const int64_t **st,
                       const int64_t **en, const int64_t **ax,
                       const int64_t **sp, int *cnt) {
  int c1, c2, c3 = 0, c4 = 0;
  *ax = *sp = NULL;
  if (!ints_from(x, n, "starts", 1, st, &c1) || !ints_from(x, n, "ends", 2, en, &c2))
    return false;
  if (!ints_from(x, n, "axes", 3, ax, &c3)) return false;
  if (has_input(n, 4) && !ints_from(x, n, "steps", 4, sp, &c4)) return false;
  if (c1 != c2 || (*ax && c3 != c1) || (*sp && c4 != c1))
    return fail(x, "its starts, ends, axes and steps differ in length");
  *cnt = c1;
  return true;
}

bool map_slice(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  const int64_t *st, *en, *ax, *sp;
  int cnt = 0;
  if (!slice_args(x, n, &st, &en, &ax, &sp, &cnt)) return false;
  Val *src = in_val(x, n, 0);
  if (src && src->known && !src->tensor && src->t.rank == 1 && cnt == 1) {
    int64_t size = src->n, s = st[0], e = en[0], step = sp ? sp[0] : 1;
    if (step != 1) return fail(x, "a strided slice of a shape");
    if (s < 0) s += size;
    if (e < 0) e += size;
    s = s < 0 ? 0 : s > size ? size : s;
    e = e < 0 ? 0 : e > size ? size : e;
    if (e < s) e = s;
    int64_t pick[2 * MAX_RANK + 1];
    TensorType t = src->t;
    t.dims[0] = e - s;
    if (e - s > 2 * MAX_RANK) goto tensor;
    for (int64_t i = s; i < e; i++) pick[i - s] = i;
    if (e == s) return fail(x, "it slices a shape to nothing");
    return fold_copy(x, n, src, &t, pick, e - s);
  }
tensor:;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  /* starts and ends from shape arithmetic keep their lets: end=sequence */
  Val *sv = has_input(n, 1) ? val_at(x, n->input_ids[1]) : NULL;
  Val *ev = has_input(n, 2) ? val_at(x, n->input_ids[2]) : NULL;
  const char *const *ss = sv && sv->is_int ? sv->isym : NULL;
  const char *const *es = ev && ev->is_int ? ev->isym : NULL;
  for (int i = 0; i < cnt; i++) {
    int64_t a = ax ? norm_ax(ax[i], t.t.rank) : i, step = sp ? sp[i] : 1;
    if (a < 0 || a >= t.t.rank) /* an invalid model, not a full slice */
      return fail(x, "its axis %lld is out of range for rank %d",
                  (long long)(ax ? ax[i] : i), t.t.rank);
    if (step < 1)
      return fail(x, "its step %lld on axis %lld: rooflint's slices step "
                     "forward", (long long)step, (long long)a);
    int64_t size = t.t.dims[a];
    bool full_start = st[i] == 0 || st[i] <= -size;
    bool full_end = en[i] >= size;
    if (full_start && full_end && step == 1) continue;
    Call c;
    call_init(x, &c, "slice");
    call_in(&c, t);
    c.args.axis = a;
    c.args.start = st[i];
    c.args.end = full_end ? INT64_MAX : en[i];
    c.args.step = step;
    call_kw(&c, "axis=%lld", (long long)a);
    if (!full_start && ss && ss[i]) call_kw(&c, "start=%s", ss[i]);
    else if (!full_start) call_kw(&c, "start=%lld", (long long)st[i]);
    if (!full_end && es && es[i]) call_kw(&c, "end=%s", es[i]);
    else if (!full_end) call_kw(&c, "end=%lld", (long long)en[i]);
    if (step != 1) call_kw(&c, "step=%lld", (long long)step);
    if (!apply(x, &c, &t)) return false;
  }
  if (!strchr(t.text, '(')) return map_alias(x, n, row);
  return emit1(x, n, &t);
}

bool map_split(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  const int64_t *sizes;
  int cnt;
  if (!ints_from(x, n, "split", 1, &sizes, &cnt)) return false;
  int parts = cnt ? cnt : n->noutputs;
  if (parts < 1) return fail(x, "it splits into no parts");
  if (parts > MAX_RANK * 2 && cnt)
    return fail(x, "it splits into %d parts given as sizes; rooflint's lists "
                   "hold %d", parts, 2 * MAX_RANK);
  int64_t axis = attr_int(n, "axis", 0);
  Term res[64];
  if (parts > 64) return fail(x, "it splits into %d parts", parts);
  for (int r = 0; r < parts; r++) {
    Call c;
    call_init(x, &c, "split");
    call_in(&c, t);
    c.args.axis = axis;
    if (cnt) {
      c.nlist = cnt;
      for (int i = 0; i < cnt; i++) c.list[i] = sizes[i];
    } else {
      c.nlist = -parts;
    }
    if (axis != 0) call_kw(&c, "axis=%lld", (long long)axis);
    c.result = r;
    c.nresults = parts;
    if (!apply(x, &c, &res[r])) return false;
  }
  return emit(x, n, res, parts, res[0].text);
}

bool map_concat(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  int64_t axis = attr_int(n, "axis", 0);
  if (n->ninputs < 1) return fail(x, "it has no inputs");
  if (all_known(x, n, 0, n->ninputs)) { /* shape lists */
    int64_t total = 0;
    for (int i = 0; i < n->ninputs; i++) {
      Val *v = val_at(x, n->input_ids[i]);
      if (!v->is_int || v->t.rank != 1) goto tensors;
      total += v->n;
    }
    if (total > ONNX_SMALL_ELEMS) goto tensors;
    Val *first = in_val(x, n, 0);
    TensorType t = first->t;
    t.dims[0] = total;
    Val *v = known_new(x, n, 0, true, total, &t);
    if (!v) return true;
    int64_t at = 0;
    for (int i = 0; i < n->ninputs; i++) {
      Val *s = val_at(x, n->input_ids[i]);
      for (int64_t k = 0; k < s->n; k++, at++) {
        v->iv[at] = s->iv[k];
        v->isym[at] = s->isym ? s->isym[k] : NULL;
      }
    }
    emit_folded(x, n, "folded");
    return true;
  }
tensors:;
  Val *first = in_val(x, n, 0);
  Call c;
  /* a KV cache's Concat (R-CACHE-004): the new entries appended in place */
  call_init(x, &c, first && first->decl == VD_CACHE ? "append" : "concat");
  if (n->ninputs > CALL_MAX_IN)
    return fail(x, "it concatenates %d tensors; rooflint imports at most %d",
                n->ninputs, CALL_MAX_IN);
  for (int i = 0; i < n->ninputs; i++) {
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  c.args.axis = axis;
  call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

bool map_gather(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *data = in_val(x, n, 0);
  Val *idx = in_val(x, n, 1);
  int64_t axis = attr_int(n, "axis", 0);
  if (data && data->known && !data->tensor && idx && idx->known && idx->is_int &&
      data->t.rank == 1) { /* Shape -> Gather */
    int64_t pick[ONNX_SMALL_ELEMS];
    if (idx->n > ONNX_SMALL_ELEMS) return fail(x, "too many indices");
    for (int64_t i = 0; i < idx->n; i++) {
      int64_t k = idx->iv[i] < 0 ? idx->iv[i] + data->n : idx->iv[i];
      if (k < 0 || k >= data->n) return fail(x, "index %lld is out of range", (long long)idx->iv[i]);
      pick[i] = k;
    }
    TensorType t = idx->t;
    t.dtype = data->t.dtype;
    return fold_copy(x, n, data, &t, pick, idx->n);
  }
  Term d;
  if (!tensor_in(x, n, 0, &d)) return false;
  if (idx && idx->known && !idx->tensor && idx->n == 1 && idx->t.rank == 0 && idx->is_int) {
    Call c; /* x[:, i]: a view */
    call_init(x, &c, "select");
    call_in(&c, d);
    c.args.axis = axis;
    c.args.index = idx->iv[0];
    call_kw(&c, "axis=%lld, index=%lld", (long long)axis, (long long)idx->iv[0]);
    return emit_call(x, n, &c);
  }
  Term it;
  if (!tensor_in(x, n, 1, &it)) return false;
  Call c;
  call_init(x, &c, "gather");
  call_in(&c, d);
  call_in(&c, it);
  c.args.axis = axis;
  if (axis != 0) call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

bool map_expand(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Val *shape = known_in(x, n, 1, "shape");
  if (!shape) return false;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  Call c;
  call_init(x, &c, "expand");
  if (!dims_list(x, shape, &c, "shape")) return false;
  /* ONNX broadcasts both ways: a 1 (or a shorter list) keeps x's dim */
  int r = t.t.rank > c.nlist ? t.t.rank : c.nlist;
  int64_t l[2 * MAX_RANK];
  const char *ls[2 * MAX_RANK];
  bool same = r == t.t.rank;
  for (int i = 0; i < r; i++) {
    int k = i - (r - c.nlist), j = i - (r - t.t.rank);
    int64_t want = k >= 0 ? c.list[k] : 1;
    const char *ws = k >= 0 ? c.list_sym[k] : NULL;
    bool keep = j >= 0 && (want == 1 || want == t.t.dims[j]) && !(ws && !t.sym[j]);
    l[i] = keep && j >= 0 ? -1 : want;
    ls[i] = keep ? NULL : ws;
    same &= keep;
  }
  if (same) return map_alias(x, n, row);
  c.nlist = r;
  memcpy(c.list, l, sizeof l);
  memcpy(c.list_sym, ls, sizeof ls);
  call_in(&c, t);
  return emit_call(x, n, &c);
}

bool map_pad(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  const char *mode = attr_str(n, "mode", "constant");
  if (strcmp(mode, "constant") != 0)
    return fail(x, "mode \"%s\": rooflint's pad is constant", mode);
  const int64_t *pads;
  int cnt;
  if (!ints_from(x, n, "pads", 1, &pads, &cnt)) return false;
  double value = attr_float(n, "value", 0);
  if (has_input(n, 2)) {
    Val *k = known_in(x, n, 2, "constant_value");
    if (!k) return false;
    value = known_at(k, 0);
  }
  if (has_input(n, 3)) return fail(x, "its axes input: rooflint pads every axis");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  bool zero = true;
  for (int i = 0; i < cnt; i++) zero &= pads[i] == 0;
  if (zero) return map_alias(x, n, row);
  Call c;
  call_init(x, &c, "pad");
  call_in(&c, t);
  if (cnt > 2 * MAX_RANK) return fail(x, "it has %d pads", cnt);
  c.nlist = cnt;
  for (int i = 0; i < cnt; i++) c.list[i] = pads[i];
  if (!written_number(x, value, true, "value")) return false;
  c.args.value = value;
  if (value != 0) call_kw(&c, "value=%s", number_term(x, value).text);
  return emit_call(x, n, &c);
}

/* Resize (and Upsample): each output dim is floor(dim * scale) for the
 * scales given, or the sizes given (ONNX's Resize: output_dimension =
 * floor(input_dimension * scale); coordinate_transformation_mode moves
 * the samples, not the shape), over every axis or opset 18's axes.  N and
 * C keep their size; the spatial dims are interpolate(scale=K) when each is
 * K times its input (a symbolic dim keeps its let), else size=[...].
 * The scales are input si (Resize 11+: 2; Resize 10, Upsample 9: 1), or
 * an attribute (Upsample 7); the sizes, input 3. */
static bool resize(X *x, const OnnxNode *n, int si) {
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  const char *mode = attr_str(n, "mode", "nearest");
  bool linear = strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0;
  if (!linear && strcmp(mode, "nearest") != 0)
    return fail(x, "mode \"%s\": rooflint interpolates nearest or linear", mode);
  int r = t.t.rank, na;
  const int64_t *axes = attr_ints(n, "axes", &na);
  if (!axes) na = r;
  int64_t od[MAX_RANK];
  memcpy(od, t.t.dims, sizeof od);
  Val *sc = in_val(x, n, si);
  const OnnxAttr *sa = onnx_attr(n, "scales");
  bool sized = !(sc && sc->known && sc->n > 0) && has_input(n, 3) && si == 2;
  Val *sz = sized ? known_in(x, n, 3, "sizes") : NULL;
  if (sized && !sz) return false;
  if (!sized && !(sc && sc->known && sc->n > 0) &&
      !(sa && sa->type == ONNX_ATTR_FLOATS))
    return fail(x, "its scales (input %d) are not a constant: rooflint imports "
                   "only shapes it can compute", si);
  int64_t cnt = sized ? sz->n : sc && sc->known ? sc->n : sa->n;
  if (cnt != na)
    return fail(x, "its %s have %lld entries for %d axes", sized ? "sizes" : "scales",
                (long long)cnt, na);
  if (sized && !sz->is_int) return fail(x, "its sizes are not integers");
  if (sized && strcmp(attr_str(n, "keep_aspect_ratio_policy", "stretch"), "stretch") != 0)
    return fail(x, "keep_aspect_ratio_policy \"%s\": rooflint imports \"stretch\"",
                attr_str(n, "keep_aspect_ratio_policy", ""));
  for (int k = 0; k < na; k++) {
    int64_t ax = axes ? norm_ax(axes[k], r) : k;
    if (ax < 0 || ax >= r) return fail(x, "its axis %lld is out of range", (long long)axes[k]);
    double s = sized ? 0 : sc && sc->known ? known_at(sc, k) : sa->floats[k];
    double grown = floor((double)t.t.dims[ax] * s);
    /* a scale of inf, NaN or 1e30 has no dim: refused before the cast,
     * which would be undefined */
    if (!sized && !(grown > -0x1p62 && grown < 0x1p62))
      return fail(x, "its scale %g on axis %lld is not a finite size for dim "
                     "%lld", s, (long long)ax, (long long)t.t.dims[ax]);
    od[ax] = sized ? sz->iv[k] : (int64_t)grown;
    if (od[ax] < 1)
      return fail(x, "it resizes dim %lld (%lld) to %lld", (long long)ax,
                  (long long)t.t.dims[ax], (long long)od[ax]);
  }
  for (int i = 0; i < 2 && i < r; i++)
    if (od[i] != t.t.dims[i])
      return fail(x, "it resizes dim %d (N or C) from %lld to %lld: rooflint "
                     "interpolates the spatial dims", i, (long long)t.t.dims[i],
                  (long long)od[i]);
  int64_t scale = r > 2 && od[2] % t.t.dims[2] == 0 ? od[2] / t.t.dims[2] : 0;
  for (int i = 2; i < r; i++) {
    int64_t same;
    if (!util_mul_i64(t.t.dims[i], scale, &same) || od[i] != same) scale = 0;
  }
  Call c;
  call_init(x, &c, "interpolate");
  call_in(&c, t);
  c.args.mode = linear;
  if (scale > 0 || r < 3) {
    c.args.scale = scale > 0 ? scale : 1;
    call_kw(&c, "scale=%lld", (long long)c.args.scale);
  } else {
    for (int i = 2; i < r; i++)
      if (t.sym[i])
        return fail(x, "it resizes the symbolic dim %s by a scale that is not "
                       "an integer: rooflint's size= takes numbers", t.sym[i]);
    c.args.scale = 0;
    for (int i = 2; i < r; i++) c.args.size[i - 2] = od[i];
    StrBuf sb = {0};
    put_list(&sb, &od[2], NULL, r - 2);
    call_kw(&c, "size=%s", sb_str(&sb));
    sb_free(&sb);
  }
  if (linear) call_kw(&c, "mode=\"linear\"");
  return emit_call(x, n, &c);
}

bool map_resize(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return resize(x, n, x->opset < 11 ? 1 : 2);
}

bool map_upsample(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return resize(x, n, 1);
}

/* ---- shape arithmetic */

bool map_constant(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *v = bind_output(x, n, 0);
  if (!v) return true;
  const OnnxAttr *a = n->nattrs > 0 ? &n->attrs[0] : NULL;
  TensorType t;
  memset(&t, 0, sizeof t);
  if (a && a->type == ONNX_ATTR_TENSOR && a->t) {
    if (!tensor_type(x, a->t, &t)) return false;
    v->t = t;
    tensor_values(x, v, a->t);
    if (!v->known && a->t->ndims == 0) return fail(x, "its value could not be read");
  } else if (a && (a->type == ONNX_ATTR_FLOAT || a->type == ONNX_ATTR_INT)) {
    t.dtype = a->type == ONNX_ATTR_FLOAT ? DT_FP32 : DT_INT64;
    v->t = t;
    v->known = true;
    v->is_int = a->type == ONNX_ATTR_INT;
    v->n = 1;
    if (v->is_int) {
      v->iv = arena_alloc(x->a, 2 * sizeof *v->iv);
      v->isym = arena_alloc(x->a, 2 * sizeof *v->isym);
      v->iv[0] = a->i;
    } else {
      v->rv = arena_alloc(x->a, 2 * sizeof *v->rv);
      v->rv[0] = a->f;
    }
  } else if (a && (a->type == ONNX_ATTR_INTS || a->type == ONNX_ATTR_FLOATS)) {
    t.dtype = a->type == ONNX_ATTR_FLOATS ? DT_FP32 : DT_INT64;
    t.rank = 1;
    t.dims[0] = a->n;
    v->t = t;
    known_values(x, v, a->type == ONNX_ATTR_INTS, a->ints, a->floats, a->n);
  } else {
    return fail(x, "its value attribute is not one rooflint reads");
  }
  v->decl_origin = arena_origin(x, n);
  if (!v->known) v->decl = VD_BUFFER; /* too large to keep: data */
  emit_folded(x, n, "a constant");
  return true;
}

bool map_shape(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  if (!src) return fail(x, "its input is not defined before it");
  int r = src->t.rank;
  int64_t s = norm_ax(attr_int(n, "start", 0), r), e = norm_ax(attr_int(n, "end", r), r);
  if (s < 0) s = 0;
  if (e > r) e = r;
  if (e < s) e = s;
  TensorType t = {.dtype = DT_INT64, .rank = 1, .dims = {e - s}};
  Val *v = known_new(x, n, 0, true, e - s, &t);
  if (!v) return true;
  for (int64_t i = s; i < e; i++) {
    v->iv[i - s] = src->t.dims[i];
    v->isym[i - s] = src->sym[i];
  }
  emit_folded(x, n, "folded");
  return true;
}

bool map_size(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  if (!src) return fail(x, "its input is not defined before it");
  TensorType t = {.dtype = DT_INT64, .rank = 0};
  Val *v = known_new(x, n, 0, true, 1, &t);
  if (!v) return true;
  const char *s = NULL;
  int64_t p = 1;
  for (int i = 0; i < src->t.rank; i++) {
    s = op_sym_join(x->a, s, p, src->sym[i], src->t.dims[i], '*');
    p *= src->t.dims[i];
  }
  v->iv[0] = p;
  v->isym[0] = s;
  emit_folded(x, n, "folded");
  return true;
}

/* n's output is data a kernel may read (a buffer, declared when one
 * does) of type t, its dims' let expressions sym; n writes no kernel. */
static bool folded_buffer(X *x, const OnnxNode *n, const TensorType *t,
                          const char *const *sym) {
  Val *v = bind_output(x, n, 0);
  if (!v) return true;
  v->t = *t;
  val_set_sym(x, v, sym);
  v->decl = VD_BUFFER;
  v->decl_origin = arena_origin(x, n);
  emit_folded(x, n, "folded");
  return true;
}

bool map_constant_of_shape(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *shape = known_in(x, n, 0, "shape");
  if (!shape) return false;
  if (!shape->is_int || shape->n > MAX_RANK) return fail(x, "its shape is not a list of dims");
  const OnnxAttr *a = onnx_attr(n, "value");
  double value = 0;
  TensorType t;
  memset(&t, 0, sizeof t);
  t.dtype = DT_FP32;
  bool is_int = false;
  if (a && a->t) {
    if (!dtype_or_fail(x, a->t->data_type, "its value", &t.dtype)) return false;
    is_int = is_int_type(a->t->data_type);
    if (a->t->ints) value = (double)a->t->ints[0];
    if (a->t->reals) value = a->t->reals[0];
  }
  t.rank = (int)shape->n;
  int64_t cnt = 1;
  for (int i = 0; i < t.rank; i++) {
    if (shape->iv[i] < 1)
      return fail(x, "its shape has a dim of %lld", (long long)shape->iv[i]);
    t.dims[i] = shape->iv[i];
    if (!util_mul_i64(cnt, t.dims[i], &cnt))
      return fail(x, "its shape has more than 2^63 elements");
  }
  bool sym = false;
  for (int i = 0; i < t.rank; i++) sym |= shape->isym && shape->isym[i];
  if (cnt <= ONNX_SMALL_ELEMS && !sym) {
    Val *v = known_new(x, n, 0, is_int, cnt, &t);
    if (!v) return true;
    for (int64_t i = 0; i < cnt; i++) {
      if (is_int) v->iv[i] = (int64_t)value;
      else v->rv[i] = value;
    }
    emit_folded(x, n, "folded");
    return true;
  }
  const char *sym_dims[MAX_RANK] = {0};
  for (int i = 0; i < t.rank; i++) sym_dims[i] = shape->isym ? shape->isym[i] : NULL;
  return folded_buffer(x, n, &t, sym_dims);
}

bool map_range(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *s = known_in(x, n, 0, "start"), *l = s ? known_in(x, n, 1, "limit") : NULL;
  Val *d = l ? known_in(x, n, 2, "delta") : NULL;
  if (!d) return false;
  double a = known_at(s, 0), b = known_at(l, 0), st = known_at(d, 0);
  if (st == 0) return fail(x, "its delta is 0");
  double cntd = ceil((b - a) / st);
  if (cntd < 1) return fail(x, "its range is empty");
  if (l->is_int && l->isym && l->isym[0] && s->is_int && a == 0 && st == 1) {
    /* arange(S): data of a symbolic length, a buffer */
    TensorType t = {.dtype = dtype_of(ONNX_INT64), .rank = 1,
                    .dims = {(int64_t)b}};
    const char *sym_dims[MAX_RANK] = {l->isym[0]};
    return folded_buffer(x, n, &t, sym_dims);
  }
  if (cntd > ONNX_SMALL_ELEMS) return fail(x, "its range has %g elements", cntd);
  int64_t cnt = (int64_t)cntd;
  TensorType t = {.dtype = s->is_int ? DT_INT64 : DT_FP32, .rank = 1,
                  .dims = {cnt}};
  Val *v = known_new(x, n, 0, s->is_int, cnt, &t);
  if (!v) return true;
  for (int64_t i = 0; i < cnt; i++) {
    if (s->is_int) v->iv[i] = (int64_t)(a + (double)i * st);
    else v->rv[i] = a + (double)i * st;
  }
  emit_folded(x, n, "folded");
  return true;
}
