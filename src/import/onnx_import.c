/* SPDX-License-Identifier: MIT */
/*
 * onnx_import.c: an ONNX model (onnx.h, read by onnx_read.c) translated
 * into .roof text that the unchanged front end parses (import.h), so the
 * cost model, the checks and every output are the language's.
 *
 * One line per node, in graph order, ending with a comment that names the
 * node (`# onnx #12 Conv "/layer1/layer1.0/conv1/Conv"`); the line's origin
 * (`node 12 "/layer1/layer1.0/conv1/Conv" (Conv)`) is what a diagnostic on
 * it quotes.  The mapping is one table, onnx_ops.def.
 *
 * Shapes: every node's result is sized by the rooflint op's own shape rule
 * (op->shape, with the arguments sema would give it), at the values the
 * lets have (dim_params default to 1, -D binds them).  Beside the numbers
 * each dim keeps the let expression it came from (`batch_size`), so shape
 * arithmetic the exporter wrote (Shape -> Gather -> Concat -> Reshape) is
 * folded into lists that still say `batch_size` and `-D`/`--sweep` work.
 * value_info is a cross-check only: a disagreement is a warning.
 *
 * Declarations: graph inputs become inputs, initializers weights (written
 * when a kernel first reads them, so shape tensors are no weights), BN's
 * running statistics and constants kernels read buffers.  The plan dtype
 * is the dominant float dtype; a declaration in it names no dtype, so
 * `--dtype bf16` re-plans the import.
 *
 * This file is the driver; onnx_import.h says where the rest is.
 */
#include "onnx_import.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- the table */

static const OnnxOpRow op_rows[] = {
/* The last column, arith, may be left out: ONNX_ARITH_NONE. */
#define ONNX_ROW_TAIL(doc, arith, ...) doc, arith
#define ONNX_OP(op_type, domain, handler, roof, ...) \
  {op_type, domain, handler, roof, ONNX_ROW_TAIL(__VA_ARGS__, ONNX_ARITH_NONE, )},
#include "onnx_ops.def"
#undef ONNX_OP
#undef ONNX_ROW_TAIL
    {NULL, NULL, NULL, NULL, NULL, ONNX_ARITH_NONE},
};

/* The row of op_type in domain dom ("": the default), or NULL. */
static const OnnxOpRow *row_lookup(X *x, const char *op_type, const char *dom) {
  if (x->rows.len == 0) /* rows of one op_type are consecutive */
    for (const OnnxOpRow *r = op_rows; r->op_type; r++)
      if (!strmap_get(&x->rows, r->op_type)) strmap_put(&x->rows, r->op_type, (void *)r);
  const OnnxOpRow *r = strmap_get(&x->rows, op_type);
  for (; r && r->op_type && strcmp(r->op_type, op_type) == 0; r++)
    if (strcmp(r->domain, dom) == 0) return r;
  return NULL;
}

static const OnnxOpRow no_row; /* node_rows: an op type with no row */

const OnnxOpRow *onnx_row(X *x, const OnnxNode *n) {
  const char *dom = n->domain ? n->domain : "";
  if (strcmp(dom, "ai.onnx") == 0) dom = "";
  if (dom[0]) return row_lookup(x, n->op_type, dom);
  /* the default domain's: looked up once per copy of an op type */
  void **slot = ptrmap_ref(&x->node_rows, n->op_type);
  if (!*slot) {
    const OnnxOpRow *r = row_lookup(x, n->op_type, "");
    *slot = (void *)(r ? r : &no_row);
  }
  return *slot == &no_row ? NULL : *slot;
}

/* --unknown-ops=custom: custom(inputs..., flops=0, bytes=inputs+output,
 * out=TYPE) with its output typed by value_info. */
static const OnnxValueInfo *value_info_of(X *x, const char *name);

static bool map_custom(X *x, const OnnxNode *n) {
  const OnnxValueInfo *vi = n->noutputs ? value_info_of(x, n->outputs[0]) : NULL;
  if (!vi || vi->ndims < 0)
    return fail(x, "op %s%s%s is not one rooflint maps, and its output has no "
                   "shape in value_info to make a custom() of it; add the "
                   "shapes ONNX can infer with python3 -c \"import onnx, "
                   "sys; onnx.save(onnx.shape_inference.infer_shapes("
                   "onnx.load(sys.argv[1])), sys.argv[2])\" IN.onnx "
                   "OUT.onnx, or give the output a value_info yourself",
                n->domain && n->domain[0] ? n->domain : "",
                n->domain && n->domain[0] ? "." : "", n->op_type);
  TensorType t;
  memset(&t, 0, sizeof t);
  if (!dtype_or_fail(x, vi->elem_type, vi->name, &t.dtype)) return false;
  t.rank = vi->ndims;
  const char *sym[MAX_RANK] = {0};
  for (int i = 0; i < vi->ndims && i < MAX_RANK; i++) {
    t.dims[i] = vi->dims[i].has_value ? vi->dims[i].value : 1;
    if (!vi->dims[i].has_value && vi->dims[i].param)
      for (int k = 0; k < x->nlets; k++)
        if (strcmp(x->let_keys[k], vi->dims[i].param) == 0) sym[i] = x->lets[k];
  }
  StrBuf sb = {0};
  sb_puts(&sb, "custom(");
  double bytes = 0;
  for (int i = 0; i < n->ninputs; i++) {
    if (!has_input(n, i)) continue;
    Val *v = val_at(x, n->input_ids[i]);
    if (v && v->known && !v->tensor && v->decl == VD_NONE) continue;
    Term in;
    if (!tensor_in(x, n, i, &in)) {
      sb_free(&sb);
      return false;
    }
    sb_printf(&sb, "%s, ", in.text);
    bytes += op_tensor_bytes(&in.t);
  }
  bytes += op_tensor_bytes(&t);
  sb_printf(&sb, "flops=0, bytes=%.17g, out=", bytes);
  put_type(x, &sb, &t, sym);
  sb_putc(&sb, ')');
  Term out;
  memset(&out, 0, sizeof out);
  out.t = t;
  memcpy(out.sym, sym, sizeof sym);
  out.text = arena_strdup(x->a, sb_str(&sb));
  sb_free(&sb);
  if (!strmap_get(&x->warned_ops, n->op_type)) {
    strmap_put(&x->warned_ops, arena_strdup(x->a, n->op_type), (void *)1);
    note(x, &x->body, x->body.n, SEV_WARNING,
         "op %s is not one rooflint maps: --unknown-ops=custom makes each a "
         "custom() whose FLOPs are unknown (counted as 0) and whose bytes are "
         "its inputs and output",
         n->op_type);
  }
  return emit1(x, n, &out);
}

/* ------------------------------------------------------- cross-checks */

static const OnnxValueInfo *value_info_of(X *x, const char *name) {
  const OnnxGraph *g = x->m->graph;
  for (int i = 0; i < g->nvalue_info; i++)
    if (strcmp(g->value_info[i].name, name) == 0) return &g->value_info[i];
  for (int i = 0; i < g->noutputs; i++)
    if (strcmp(g->outputs[i].name, name) == 0) return &g->outputs[i];
  return NULL;
}

/* value_info is a cross-check: a dim it states as a number that the
 * shape rules size otherwise is a warning on the node's line. */
static void cross_check(X *x, const OnnxNode *n) {
  for (int i = 0; i < n->noutputs; i++) {
    int32_t id = n->output_ids[i];
    const OnnxValueInfo *info = id >= 0 && x->vinfo ? x->vinfo[id] : NULL;
    if (!info || info->ndims < 0) continue;
    Val *v = val_at(x, n->output_ids[i]);
    if (!v || !v->tensor) continue;
    bool differ = info->ndims != v->t.rank;
    for (int k = 0; !differ && k < info->ndims; k++)
      differ = info->dims[k].has_value && info->dims[k].value != v->t.dims[k] &&
               !v->sym[k];
    if (!differ) continue;
    StrBuf a = {0}, b = {0};
    put_dims(&a, &v->t, v->sym);
    sb_putc(&b, '[');
    for (int k = 0; k < info->ndims; k++) {
      if (k) sb_puts(&b, ", ");
      if (info->dims[k].has_value) sb_put_int(&b, info->dims[k].value);
      else sb_puts(&b, info->dims[k].param ? info->dims[k].param : "?");
    }
    sb_putc(&b, ']');
    note(x, &x->body, x->body.n - 1, SEV_WARNING,
         "value_info gives '%s' the shape %s; rooflint's shape rules give %s",
         n->outputs[i], sb_str(&b), sb_str(&a));
    sb_free(&a);
    sb_free(&b);
  }
}

/* --------------------------------------------------------------- graph */

bool translate_nodes(X *x, const OnnxGraph *g, bool top) {
  const OnnxGraph *outer = x->graph;
  x->graph = g;
  for (int i = 0; i < g->nnodes && !x->error; i++) {
    const OnnxNode *n = &g->nodes[i];
    x->node = n;
    if (top) x->node_index = n->index;
    const OnnxOpRow *row = onnx_row(x, n);
    size_t before = x->body.n;
    bool ok;
    if (row) ok = row->map(x, n, row);
    else if (x->o && x->o->unknown_ops_custom) ok = map_custom(x, n);
    else
      ok = fail(x, "op %s%s%s is not one rooflint maps (its FLOPs would be "
                   "unknown); --unknown-ops=custom imports it as a custom() "
                   "costing its bytes only",
                n->domain && n->domain[0] ? n->domain : "",
                n->domain && n->domain[0] ? "." : "", n->op_type);
    if (!ok) break;
    if (top && x->body.n > before) cross_check(x, n);
  }
  x->graph = outer;
  return !x->error;
}

/* `dim_param "batch" @OFFSET+LENGTH`: KIND then the name quoted
 * (R-ONNX-008), and the bytes of the graph input it was read from
 * (R-DIAG-002), in the arena. */
static const char *quoted_origin(X *x, const char *kind, const char *name,
                                 const OnnxValueInfo *from) {
  x->scratch.len = 0;
  sb_puts(&x->scratch, kind);
  import_put_escaped(&x->scratch, name, IMPORT_QUOTED);
  sb_printf(&x->scratch, " @%llu+%llu", (unsigned long long)from->offset,
            (unsigned long long)from->length);
  return arena_strndup(x->a, x->scratch.data, x->scratch.len);
}

/* A dim_param (or an unknown dim) as a let; its value from -D or 1. */
static const char *let_for(X *x, const char *param, int input, int dim) {
  const char *key = param ? param : arena_printf(x->a, "%d:%d", input, dim);
  for (int i = 0; i < x->nlets; i++)
    if (strcmp(x->let_keys[i], key) == 0) return x->lets[i];
  if (x->nlets == x->cap_lets) {
    x->cap_lets = x->cap_lets ? 2 * x->cap_lets : 8;
    x->lets = xrealloc(x->lets, (size_t)x->cap_lets * sizeof *x->lets);
    x->let_keys = xrealloc(x->let_keys, (size_t)x->cap_lets * sizeof *x->let_keys);
    x->let_values = xrealloc(x->let_values, (size_t)x->cap_lets * sizeof *x->let_values);
    x->let_origins = xrealloc(x->let_origins, (size_t)x->cap_lets * sizeof *x->let_origins);
  }
  x->let_keys[x->nlets] = arena_strdup(x->a, key);
  x->let_origins[x->nlets] =
      param ? quoted_origin(x, "dim_param ", param, &x->m->graph->inputs[input])
            : quoted_origin(x, arena_printf(x->a, "input %d ", input),
                            x->m->graph->inputs[input].name, &x->m->graph->inputs[input]);
  const char *name = param ? ident_for(x, param, "d")
                           : ident_for(x, arena_printf(x->a, "dim_%d_%d", input, dim), "d");
  static const int64_t primes[] = {11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
  enum { NPRIMES = sizeof primes / sizeof *primes };
  int64_t value = !x->probe ? 1
                  : x->nlets < NPRIMES ? primes[x->nlets]
                                       : 59 + 2 * (int64_t)x->nlets;
  for (int i = 0; x->o && i < x->o->noverrides; i++)
    if (strcmp(x->o->overrides[i].name, name) == 0 && !x->o->overrides[i].value.is_real)
      value = x->o->overrides[i].value.i;
  x->lets[x->nlets] = name;
  x->let_values[x->nlets++] = value;
  return name;
}

static int64_t let_value(X *x, const char *name) {
  for (int i = 0; i < x->nlets; i++)
    if (x->lets[i] == name) return x->let_values[i];
  return 1;
}

/* The dominant float dtype: the most elements among the float
 * initializers and inputs (fp32 when there are none). */
static DType plan_of(const OnnxGraph *g) {
  double count[DT__COUNT] = {0};
  for (int i = 0; i < g->ninitializers; i++) {
    const OnnxTensor *t = &g->initializers[i];
    DType d = dtype_of(t->data_type);
    if (d == DT_NONE || !dtype_info(d)->is_float) continue;
    double e = 1;
    for (int k = 0; k < t->ndims; k++) e *= (double)t->dims[k];
    count[d] += e;
  }
  for (int i = 0; i < g->ninputs; i++) {
    DType d = dtype_of(g->inputs[i].elem_type);
    if (d != DT_NONE && dtype_info(d)->is_float) count[d] += 1;
  }
  DType best = DT_FP32;
  for (int d = 0; d < DT__COUNT; d++)
    if (count[d] > count[best]) best = (DType)d;
  return best;
}

/* `initializer 3 "w" @OFFSET+LENGTH`: a declaration's origin and the
 * bytes it was read from (R-DIAG-002), in the arena. */
static const char *decl_origin(X *x, const char *what, int i, const char *name,
                               uint64_t offset, uint64_t length) {
  x->scratch.len = 0;
  sb_puts(&x->scratch, what);
  sb_putc(&x->scratch, ' ');
  sb_put_int(&x->scratch, i);
  sb_putc(&x->scratch, ' ');
  put_quoted(&x->scratch, name);
  sb_puts(&x->scratch, " @");
  sb_put_int(&x->scratch, (long long)offset); /* a region of a file: below 2^63 */
  sb_putc(&x->scratch, '+');
  sb_put_int(&x->scratch, (long long)length);
  return arena_strndup(x->a, x->scratch.data, x->scratch.len);
}

/* A decode step's past keys or values (R-CACHE-004): a graph input whose
 * one reader is a Concat of two operands, the input first and the step's
 * new entries second, whose result is a graph output (the present keys or
 * values), as a decoder exported with use_cache=True (or Optimum's
 * decoder_with_past) grows its cache.  Such an input is marked in the
 * array returned (by id) with its Concat's axis + MAX_RANK + 1 (0: not
 * one); declare_graph_inputs keeps those whose axis is a symbolic dim, the
 * past length. */
static int16_t *kv_cache_inputs(X *x, const OnnxGraph *g) {
  int16_t *axis_of = NULL;
  unsigned char *is_output = NULL;
  for (int i = 0; i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    if (strcmp(n->op_type, "Concat") != 0 || (n->domain && n->domain[0]) ||
        n->ninputs != 2 || n->noutputs < 1 || n->output_ids[0] < 0 ||
        n->input_ids[0] < 0 || n->input_ids[0] == n->input_ids[1] ||
        value_uses(x, n->input_ids[0]) != 1)
      continue;
    if (!is_output) {
      is_output = onnx_zeroed((size_t)x->m->nnames + 1, 1);
      for (int k = 0; k < g->noutputs; k++)
        if (g->outputs[k].id >= 0) is_output[g->outputs[k].id] = 1;
    }
    int64_t axis = attr_int(n, "axis", 0);
    if (!is_output[n->output_ids[0]] || axis < -MAX_RANK || axis >= MAX_RANK)
      continue;
    if (!axis_of) axis_of = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *axis_of);
    axis_of[n->input_ids[0]] = (int16_t)(axis + MAX_RANK + 1);
  }
  free(is_output);
  return axis_of;
}

/* Whether input v, of Concat axis code `code` (kv_cache_inputs), is a
 * cache: its concatenated axis is a symbolic dim. */
static bool is_kv_cache(const Val *v, int16_t code) {
  if (code == 0 || v->t.rank < 2) return false;
  int64_t axis = code - MAX_RANK - 1;
  if (axis < 0) axis += v->t.rank;
  return axis >= 0 && axis < v->t.rank && v->sym[axis] != NULL;
}

static bool declare_graph_inputs(X *x, const OnnxGraph *g,
                                 const int16_t *is_cache);

int initializer_decl(DType d) {
  return d == DT_BOOL || d == DT_INT64 ? VD_BUFFER : VD_WEIGHT;
}

/* A float initializer of rank 2 this large whose dims are another's
 * reversed may be a tied weight written twice (R-ONNX-023). */
enum { TIED_MIN_ELEMENTS = 1024 };

typedef struct TiedKey {
  int64_t lo, hi;  /* the smaller dim, the larger */
  int32_t dtype;
  int index;       /* the initializer's */
} TiedKey;

/* By dims, dtype, then place in the file. */
static int cmp_tied(const void *pa, const void *pb) {
  const TiedKey *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->dtype != b->dtype) return a->dtype < b->dtype ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* By value id: whether a Gather reads it as its table (an embedding);
 * xcalloc'd, made on the first pair that needs it. */
static bool *gathered_ids(const X *x, const OnnxGraph *g) {
  bool *ids = xcalloc((size_t)x->m->nnames + 1, sizeof *ids);
  for (int i = 0; i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    if (n->ninputs > 0 && n->input_ids[0] >= 0 &&
        strcmp(n->op_type, "Gather") == 0)
      ids[n->input_ids[0]] = true;
  }
  return ids;
}

/* Marks the copy of an embedding table [V, D] that a tied head reads as
 * [D, V]: the one pair of its shape (a shape that comes in several pairs
 * is a stack of layers, the MLP's up and down projections), one of the two
 * gathered, the later marked, with a note naming the other: O(n log n). */
static void find_tied(X *x, const OnnxGraph *g) {
  bool *gathered = NULL;
  TiedKey *keys = xmalloc(((size_t)g->ninitializers + 1) * sizeof *keys);
  int n = 0;
  for (int i = 0; i < g->ninitializers; i++) {
    const OnnxTensor *t = &g->initializers[i];
    DType d = dtype_of(t->data_type);
    if (t->ndims != 2 || t->dims[0] == t->dims[1] || d == DT_NONE ||
        !dtype_info(d)->is_float ||
        (double)t->dims[0] * (double)t->dims[1] < TIED_MIN_ELEMENTS)
      continue;
    bool tall = t->dims[0] > t->dims[1];
    keys[n++] = (TiedKey){tall ? t->dims[1] : t->dims[0],
                          tall ? t->dims[0] : t->dims[1], t->data_type, i};
  }
  qsort(keys, (size_t)n, sizeof *keys, cmp_tied);
  for (int s = 0, e; s < n; s = e) {
    int first[2] = {-1, -1}, count[2] = {0, 0};
    for (e = s; e < n && keys[e].lo == keys[s].lo &&
                keys[e].hi == keys[s].hi && keys[e].dtype == keys[s].dtype;
         e++) {
      const OnnxTensor *t = &g->initializers[keys[e].index];
      int tall = t->dims[0] > t->dims[1];
      if (first[tall] < 0) first[tall] = keys[e].index;
      count[tall]++;
    }
    if (count[0] != 1 || count[1] != 1) continue;
    int copy = first[0] > first[1] ? first[0] : first[1];
    int orig = first[0] + first[1] - copy;
    if (!gathered) gathered = gathered_ids(x, g);
    int32_t a = g->initializers[orig].id, b = g->initializers[copy].id;
    if (!(a >= 0 && gathered[a]) && !(b >= 0 && gathered[b])) continue;
    Val *v = val_at(x, g->initializers[copy].id);
    v->tied_copy = true;
    x->scratch.len = 0;
    sb_printf(&x->scratch, "the transposed shape of initializer %d ", orig);
    put_quoted(&x->scratch, g->initializers[orig].name);
    v->decl_note = arena_strndup(x->a, x->scratch.data, x->scratch.len);
  }
  free(keys);
  free(gathered);
}

static bool declare_inputs(X *x, const OnnxGraph *g) {
  for (int i = 0; i < g->ninitializers; i++) {
    const OnnxTensor *t = &g->initializers[i];
    Val *v = val_new(x, t->name, t->id);
    if (!tensor_type(x, t, &v->t)) return false;
    tensor_values(x, v, t);
    v->decl = initializer_decl(v->t.dtype);
    v->decl_origin = decl_origin(x, "initializer", i, t->name, t->offset, t->length);
    if (t->external) v->decl_note = "onnx external data (not opened)";
  }
  find_tied(x, g);
  int16_t *is_cache = kv_cache_inputs(x, g);
  bool ok = declare_graph_inputs(x, g, is_cache);
  free(is_cache);
  return ok;
}

/* The graph's inputs that no initializer gives: inputs, caches, or
 * (--weights-as-inputs) weights. */
static bool declare_graph_inputs(X *x, const OnnxGraph *g,
                                 const int16_t *is_cache) {
  for (int i = 0; i < g->ninputs; i++) {
    const OnnxValueInfo *in = &g->inputs[i];
    if (val_at(x, in->id)) continue; /* an initializer listed as an input */
    Val *v = val_new(x, in->name, in->id);
    TensorType t;
    memset(&t, 0, sizeof t);
    if (!dtype_or_fail(x, in->elem_type, in->name, &t.dtype)) return false;
    if (in->ndims < 0)
      return fail(x, "graph input '%s' has no shape; rooflint needs its dims",
                  in->name);
    if (in->ndims > MAX_RANK)
      return fail(x, "graph input '%s' has rank %d", in->name, in->ndims);
    t.rank = in->ndims;
    const char *sym[MAX_RANK] = {0};
    for (int k = 0; k < in->ndims; k++) {
      const OnnxDim *d = &in->dims[k];
      if (d->has_value && d->value >= 1) {
        t.dims[k] = d->value;
      } else {
        sym[k] = let_for(x, d->param, i, k);
        t.dims[k] = let_value(x, sym[k]);
      }
    }
    v->t = t;
    val_set_sym(x, v, sym);
    v->ident = ident_for(x, in->name, "x");
    v->decl_origin = decl_origin(x, "input", i, in->name, in->offset, in->length);
    bool fixed = true;
    for (int k = 0; k < t.rank; k++) fixed &= v->sym[k] == NULL;
    if (x->o && x->o->weights_as_inputs && i > 0 && fixed) {
      /* --weights-as-inputs: an input of fixed shape after the first is a
       * weight, declared when a kernel first reads it */
      v->decl = VD_WEIGHT;
    } else {
      v->decl = is_cache && in->id >= 0 && is_kv_cache(v, is_cache[in->id])
                    ? VD_CACHE : VD_INPUT;
      declare(x, v);
    }
  }
  return true;
}

static bool translate(X *x) {
  const OnnxGraph *g = x->m->graph;
  if (!g) return fail(x, "the model has no graph");
  x->opset = 0;
  for (int i = 0; i < x->m->nopsets; i++) {
    const char *d = x->m->opsets[i].domain;
    if (!d || !d[0] || strcmp(d, "ai.onnx") == 0) x->opset = x->m->opsets[i].version;
  }
  x->plan = plan_of(g);
  /* the sections' buffers at about their final size (a transformer
   * export's body line is 100 to 160 bytes, a declaration 60 to 100), so
   * they are not grown and copied while the text is written */
  sb_reserve_to(&x->body.text, (size_t)g->nnodes * 160);
  sb_reserve_to(&x->decls.text, (size_t)(g->ninitializers + g->ninputs) * 100);
  /* the .roof names' map at its final size: each value is named once
   * (a few more: lets, the model); what is known of the values is by id */
  size_t nvals = (size_t)g->ninitializers + (size_t)g->ninputs;
  for (int i = 0; i < g->nnodes; i++) nvals += (size_t)g->nodes[i].noutputs;
  idents_reserve(&x->idents, nvals + 16);
  x->vals = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *x->vals);
  if (g->nvalue_info > 0)
    x->vinfo = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *x->vinfo);
  for (int i = 0; i < g->nvalue_info; i++)
    if (g->value_info[i].id >= 0) x->vinfo[g->value_info[i].id] = &g->value_info[i];
  if (!declare_inputs(x, g)) return false;
  if (!translate_nodes(x, g, true)) return false;
  x->node = NULL;
  /* outputs */
  StrBuf sb = {0};
  for (int i = 0; i < g->noutputs; i++) {
    Val *v = val_at(x, g->outputs[i].id);
    if (!v) {
      sb_free(&sb);
      return fail(x, "graph output '%s' is computed by no node", g->outputs[i].name);
    }
    if (!v->tensor) {
      if (v->decl == VD_NONE) v->decl = VD_BUFFER;
      declare(x, v);
    }
    sb_printf(&sb, "%s%s", sb.len ? ", " : "  output ", v->ident);
  }
  if (sb.len) lines_add(&x->body, sb_str(&sb), NULL);
  sb_free(&sb);
  return true;
}

/* The model's name: the graph's, else the file's stem. */
static const char *model_name(X *x) {
  const char *g = x->m->graph && x->m->graph->name ? x->m->graph->name : "";
  if (g[0]) return ident_for(x, g, "model");
  const char *base = strrchr(x->path, '/');
  base = base ? base + 1 : x->path;
  const char *dot = strrchr(base, '.');
  return ident_for(x, arena_strndup(x->a, base, dot ? (size_t)(dot - base) : strlen(base)),
                   "model");
}

/* Joins the sections into the text and its origins. */
static void assemble(X *x, const char *name, Imported *out) {
  Lines *secs[3] = {&x->head, &x->decls, &x->body};
  size_t nlines = x->head.n + x->decls.n + x->body.n + 8;
  const char *dtype = dtype_str(x->plan);
  /* the head, the model line and the declarations, then the body, which
   * is most of the text: its buffer becomes the text (grown once to the
   * text's size plus the two NULs the source keeps, src_add, and moved up
   * in place), so the body's bytes are never copied to fresh memory */
  StrBuf pre = {0};
  char **origins = xcalloc(nlines, sizeof *origins);
  size_t line = 0;
  size_t first[3];
  for (int s = 0; s < 3; s++) {
    if (s == 1) {
      sb_puts(&pre, "model ");
      sb_puts(&pre, name);
      sb_puts(&pre, " {\n  dtype ");
      sb_puts(&pre, dtype);
      sb_putc(&pre, '\n');
      line += 2;
    }
    first[s] = line;
    if (s < 2) sb_putn(&pre, sb_str(&secs[s]->text), secs[s]->text.len);
    for (size_t i = 0; i < secs[s]->n; i++) {
      origins[line++] = secs[s]->origins[i];
      secs[s]->origins[i] = NULL;
    }
  }
  StrBuf sb = x->body.text;
  x->body.text = (StrBuf){0};
  size_t size = pre.len + sb.len + strlen("}\n") + 2;
  sb.data = xrealloc(sb.data, size);
  sb.cap = size;
  memmove(sb.data + pre.len, sb.data, sb.len);
  memcpy(sb.data, sb_str(&pre), pre.len);
  sb.len += pre.len;
  sb_free(&pre);
  sb_puts(&sb, "}\n");
  line++;
  out->diags = xcalloc(x->ndiags + 1, sizeof *out->diags);
  for (size_t i = 0; i < x->ndiags; i++) {
    struct Pending *p = &x->diags[i];
    int s = p->sec == &x->head ? 0 : p->sec == &x->decls ? 1 : 2;
    out->diags[i] = (ImportDiag){(int)(first[s] + p->index + 1), p->sev, p->msg, NULL};
    p->msg = NULL;
  }
  out->ndiags = x->ndiags;
  out->text = sb.data;
  out->len = sb.len;
  out->origins = origins;
  out->norigins = line;
}

static void x_init(X *x, const OnnxModel *m, const ImportOptions *o,
                   const char *path, bool probe) {
  memset(x, 0, sizeof *x);
  x->a = arena_new();
  x->m = m;
  x->o = o;
  x->path = path;
  x->probe = probe;
  strmap_init(&x->warned_ops);
  ptrmap_init(&x->ops);
  ptrmap_init(&x->node_rows);
  strmap_init(&x->rows);
  x->plan = DT_FP32;
}

static void x_free(X *x) {
  for (size_t i = 0; i < x->ndiags; i++) free(x->diags[i].msg);
  free(x->diags);
  free(x->error);
  lines_free(&x->head);
  lines_free(&x->decls);
  lines_free(&x->body);
  sb_free(&x->scratch);
  free(x->lets);
  free(x->let_keys);
  free(x->let_origins);
  free(x->let_values);
  free(x->vals);
  free(x->vinfo);
  free(x->uses);
  idents_free(&x->idents);
  strmap_free(&x->warned_ops);
  ptrmap_free(&x->ops);
  ptrmap_free(&x->node_rows);
  strmap_free(&x->rows);
  arena_free(x->a);
}

int onnx_translate_model(const OnnxModel *m, const char *path,
                                  const ImportOptions *o, Imported *out) {
  memset(out, 0, sizeof *out);
  X x;
  x_init(&x, m, o, path, true);
  bool ok = translate(&x);
  if (!ok) { /* shapes that check only at 1 */
    x_free(&x);
    x_init(&x, m, o, path, false);
    ok = translate(&x);
  }
  ImportStatus st = IMPORT_OK;
  if (ok) {
    const char *name = model_name(&x);
    StrBuf sb = {0};
    sb_puts(&sb, "# ");
    put_comment_text(&sb, path);
    sb_puts(&sb, ": imported from ONNX by rooflint");
    if (m->producer_name && m->producer_name[0]) {
      sb_puts(&sb, " (exported by ");
      put_comment_text(&sb, m->producer_name);
      if (m->producer_version && m->producer_version[0]) sb_putc(&sb, ' ');
      put_comment_text(&sb, m->producer_version ? m->producer_version : "");
      sb_putc(&sb, ')');
    }
    sb_printf(&sb, ", IR version %lld, opset %lld", (long long)m->ir_version,
              (long long)x.opset);
    /* the header goes first; lets after it */
    Lines head = x.head;
    x.head = (Lines){0};
    lines_add(&x.head, sb_str(&sb), NULL);
    sb_free(&sb);
    if (x.nlets > 0) {
      StrBuf names = {0};
      for (int i = 0; i < x.nlets; i++)
        sb_printf(&names, "%s%s", i ? ", " : "", x.lets[i]);
      note(&x, &x.head, x.head.n, SEV_REMARK,
           "the model's symbolic dims are lets, each 1 unless -D NAME=VALUE "
           "binds it (or --sweep NAME=V1,V2 sweeps it): %s",
           sb_str(&names));
      sb_free(&names);
    }
    for (int i = 0; i < x.nlets; i++) {
      sb_printf(&x.head.text, "let %s = 1", x.lets[i]);
      lines_end(&x.head, xstrdup(x.let_origins[i]));
    }
    lines_append(&x.head, &head);
    assemble(&x, name, out);
  } else {
    out->error = x.error;
    x.error = NULL;
    st = IMPORT_INVALID;
  }
  x_free(&x);
  return st;
}

/* ------------------------------------------------------- the importer */

bool onnx_recognises(const char *path, const unsigned char *head, size_t n) {
  (void)head, (void)n;
  size_t len = strlen(path);
  return len > 5 && (strcmp(path + len - 5, ".onnx") == 0 ||
                     strcmp(path + len - 5, ".ONNX") == 0);
}

int onnx_translate(const char *path, const ImportOptions *o,
                            Imported *out) {
  memset(out, 0, sizeof *out);
  char err[512];
  OnnxFile f;
  if (!onnx_map(path, &f, err, sizeof err)) {
    out->error = xprintf("cannot open '%s': %s", path, err);
    return IMPORT_UNREADABLE;
  }
  Arena *a = arena_new();
  OnnxModel m;
  ImportStatus st;
  if (!onnx_read(a, f.bytes, f.len, &m, err, sizeof err)) {
    out->error = xprintf("%s: not a valid ONNX model: %s", path, err);
    st = IMPORT_INVALID;
  } else {
    st = onnx_translate_model(&m, path, o, out);
  }
  arena_free(a);
  onnx_unmap(&f);
  return st;
}
