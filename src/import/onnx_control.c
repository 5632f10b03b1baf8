/* SPDX-License-Identifier: MIT */
/*
 * onnx_control.c: If, Loop and Scan: a subgraph inlined where its node stands,
 * a loop body as a `loop T { }` block.
 */
#include "onnx_import.h"

#include <string.h>

/* ---- control flow */

/* The nodes of a subgraph (an If's branch, a Loop's body: node n's
 * attribute `attr`) written where the node that holds it stands; its
 * initializers are weights.  Its nodes' origins name its path
 * (X.graph_path). */
static bool inline_graph(X *x, const OnnxNode *n, const char *attr,
                         const OnnxGraph *g) {
  const OnnxNode *keep = x->node;
  int keep_index = x->node_index;
  const char *keep_path = x->graph_path;
  const char *top = x->m->graph->name && x->m->graph->name[0] ? x->m->graph->name : "main";
  x->graph_path = n->name && n->name[0]
                      ? arena_printf(x->a, "%s/%s/%s", keep_path ? keep_path : top, n->name, attr)
                      : arena_printf(x->a, "%s/%s_%d/%s", keep_path ? keep_path : top,
                                     n->op_type, n->index, attr);
  for (int i = 0; i < g->ninitializers; i++) {
    Val *v = val_new(x, g->initializers[i].name, g->initializers[i].id);
    if (!tensor_type(x, &g->initializers[i], &v->t)) return false;
    tensor_values(x, v, &g->initializers[i]);
    v->decl = initializer_decl(v->t.dtype);
  }
  if (!translate_nodes(x, g, false)) return false;
  x->node = keep;
  x->node_index = keep_index;
  x->graph_path = keep_path;
  return true;
}

bool map_if(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *cond = known_in(x, n, 0, "condition");
  if (!cond) return false;
  const OnnxAttr *br = onnx_attr(n, known_at(cond, 0) != 0 ? "then_branch" : "else_branch");
  if (!br || !br->g) return fail(x, "its branch is missing");
  const OnnxGraph *g = br->g;
  if (g->noutputs != n->noutputs)
    return fail(x, "its branch has %d outputs for %d", g->noutputs, n->noutputs);
  emit_folded(x, n, known_at(cond, 0) != 0 ? "then_branch inlined"
                                           : "else_branch inlined");
  if (!inline_graph(x, n, br->name, g)) return false;
  for (int i = 0; i < n->noutputs; i++) {
    Val *src = val_at(x, g->outputs[i].id);
    if (!src) return fail(x, "its branch output '%s' is not computed", g->outputs[i].name);
    val_bind(x, n->output_ids[i], src);
  }
  return true;
}

/* Where a Loop's or a Scan's values are: the node's inputs from `in0`
 * and the body's inputs from `body_in0` are the carried values, then the
 * scan inputs (Scan) and their slices; the body's outputs from
 * `body_out0` are the carried values' new values, then the scan outputs,
 * and the node's outputs the final carried values, then the scan outputs
 * stacked. */
typedef struct Body {
  const OnnxGraph *g;
  int64_t trips;
  const char *trips_sym; /* its let expression, or NULL */
  int in0, body_in0, body_out0, ncarried, nscan_in, nscan_out;
  const int64_t *in_axes, *out_axes; /* per scan input and output, or NULL: 0 */
  bool loop_cond;        /* a Loop: the body's output 0 must stay true */
} Body;

/* `loop T {`, each scan input's slice (a view: every trip reads its own,
 * select() says its size), the body inlined, the carried names rebound,
 * `}`; then each scan output stacked along its axis, a view of [T] copies
 * of the last trip's: each trip writes its slice where it stands, so the
 * bytes are the body's, T times (R-COST-005). */
static bool run_body(X *x, const OnnxNode *n, const Body *b) {
  const OnnxGraph *g = b->g;
  Val **carried = arena_alloc(x->a, (size_t)(b->ncarried + 1) * sizeof *carried);
  for (int i = 0; i < b->ncarried; i++) {
    Term in;
    if (!tensor_in(x, n, b->in0 + i, &in)) return false;
    carried[i] = val_at(x, n->input_ids[b->in0 + i]);
    val_bind(x, g->inputs[b->body_in0 + i].id, carried[i]);
  }
  sb_puts(&x->body.text, "  loop ");
  op_put_dim(&x->body.text, b->trips_sym, b->trips);
  sb_puts(&x->body.text, " {");
  end_node_line(x, n);
  for (int i = 0; i < b->nscan_in; i++) {
    Term in; /* (the index says the slice's size, not which) */
    if (!tensor_in(x, n, b->in0 + b->ncarried + i, &in)) return false;
    int64_t ax = norm_ax(b->in_axes ? b->in_axes[i] : 0, in.t.rank);
    Call c;
    call_init(x, &c, "select");
    call_in(&c, in);
    c.args.axis = ax;
    c.args.index = 0;
    call_kw(&c, "axis=%lld, index=0", (long long)ax);
    Term slice;
    if (!apply(x, &c, &slice)) return false;
    const OnnxValueInfo *in_i = &g->inputs[b->body_in0 + b->ncarried + i];
    Val *v = val_new(x, in_i->name, in_i->id);
    set_tensor(x, v, &slice);
    bind_line(x, n, v->ident, slice.text);
  }
  if (!inline_graph(x, n, "body", g)) return false;
  Val *cond = b->loop_cond ? val_at(x, g->outputs[0].id) : NULL;
  if (b->loop_cond && !(cond && cond->known && known_at(cond, 0) != 0))
    return fail(x, "its body's condition is not a constant true: its trip "
                   "count depends on the data");
  for (int i = 0; i < b->ncarried; i++) {
    Val *out = val_at(x, g->outputs[b->body_out0 + i].id);
    if (!out || !out->tensor)
      return fail(x, "its body's output '%s' is no tensor", g->outputs[b->body_out0 + i].name);
    if (out != carried[i]) { /* the carried name rebound: loop-carried */
      bind_line(x, n, carried[i]->ident, out->ident);
    }
    if (i < n->noutputs) val_bind(x, n->output_ids[i], carried[i]);
  }
  lines_add(&x->body, "  }", NULL);
  for (int j = 0; j < b->nscan_out; j++) {
    const OnnxValueInfo *so = &g->outputs[b->body_out0 + b->ncarried + j];
    const char *name = so->name;
    Val *sv = val_at(x, so->id);
    if (!sv || !sv->tensor) return fail(x, "its body's scan output '%s' is no tensor", name);
    Term t = {.text = sv->ident, .t = sv->t};
    memcpy(t.sym, sv->sym, sizeof t.sym);
    int64_t ax = norm_ax(b->out_axes ? b->out_axes[j] : 0, t.t.rank + 1);
    if (!unsqueeze_term(x, &t, ax)) return false;
    Call c;
    call_init(x, &c, "expand");
    c.nlist = t.t.rank;
    for (int i = 0; i < c.nlist; i++) c.list[i] = i == ax ? b->trips : -1;
    c.list_sym[ax] = b->trips_sym;
    call_in(&c, t);
    Term out;
    if (!apply(x, &c, &out)) return false;
    int k = b->ncarried + j;
    if (k < n->noutputs && n->outputs[k][0]) {
      Val *v = bind_output(x, n, k);
      set_tensor(x, v, &out);
      bind_line(x, n, v->ident, out.text);
    }
  }
  return true;
}

/* A Loop whose trip count is a constant (or a let) and whose condition
 * stays true: `loop M { body }`, the carried values rebound at the end of
 * the body (R-SCOPE-003 checks they keep their types), its scan outputs
 * stacked [M, ...].  A data-dependent trip count or condition is an
 * error. */
bool map_loop(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  const OnnxAttr *ba = onnx_attr(n, "body");
  if (!ba || !ba->g) return fail(x, "its body is missing");
  const OnnxGraph *g = ba->g;
  int ncarried = n->ninputs - 2;
  if (ncarried < 0 || g->ninputs != ncarried + 2 || g->noutputs < ncarried + 1)
    return fail(x, "its body's inputs and outputs do not match its %d carried values",
                ncarried < 0 ? 0 : ncarried);
  Val *m = in_val(x, n, 0);
  if (!m || !m->known || !m->is_int || m->n != 1)
    return fail(x, "its trip count is not a constant: rooflint imports a Loop "
                   "that runs a known number of times");
  if (m->iv[0] < 1)
    return fail(x, "its trip count is %lld, not a positive integer",
                (long long)m->iv[0]);
  Val *c = has_input(n, 1) ? val_at(x, n->input_ids[1]) : NULL;
  if (c && !(c->known && known_at(c, 0) != 0))
    return fail(x, "its condition is not a constant true");
  /* the body's condition is the Loop's */
  Val *t = val_new(x, NULL, g->inputs[1].id); /* (no name of its own) */
  t->known = t->is_int = true;
  t->n = 1;
  t->t.dtype = DT_BOOL;
  t->iv = arena_alloc(x->a, 2 * sizeof *t->iv);
  t->isym = arena_alloc(x->a, 2 * sizeof *t->isym);
  t->iv[0] = 1;
  Body b = {.g = g, .trips = m->iv[0], .trips_sym = m->isym ? m->isym[0] : NULL,
            .in0 = 2, .body_in0 = 2, .body_out0 = 1, .ncarried = ncarried,
            .nscan_out = g->noutputs - ncarried - 1, .loop_cond = true};
  return run_body(x, n, &b);
}

/* A Scan (opset 9 on): its body runs once per entry of the scan inputs'
 * scan axis, `loop T { }` over their slices, its state carried, its scan
 * outputs stacked along scan_output_axes. */
bool map_scan(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (x->opset < 9)
    return fail(x, "Scan before opset 9 has a batch axis and sequence_lens: "
                   "rooflint imports opset 9's");
  const OnnxAttr *ba = onnx_attr(n, "body");
  if (!ba || !ba->g) return fail(x, "its body is missing");
  const OnnxGraph *g = ba->g;
  int nscan = (int)attr_int(n, "num_scan_inputs", 0);
  int nstate = n->ninputs - nscan;
  if (nscan < 1 || nstate < 0 || g->ninputs != n->ninputs || g->noutputs != n->noutputs ||
      g->noutputs < nstate)
    return fail(x, "its body's inputs and outputs do not match its %d state "
                   "values and %d scan inputs", nstate < 0 ? 0 : nstate, nscan);
  int cnt;
  const int64_t *in_axes = attr_ints(n, "scan_input_axes", &cnt);
  if (in_axes && cnt != nscan) return fail(x, "its scan_input_axes have %d entries for %d scan inputs", cnt, nscan);
  const int64_t *out_axes = attr_ints(n, "scan_output_axes", &cnt);
  if (out_axes && cnt != g->noutputs - nstate)
    return fail(x, "its scan_output_axes have %d entries for %d scan outputs", cnt,
                g->noutputs - nstate);
  int64_t trips = 0;
  const char *trips_sym = NULL;
  for (int i = 0; i < nscan; i++) {
    Val *v = in_val(x, n, nstate + i);
    if (!v) return fail(x, "its scan input %d is not defined before it", i);
    int64_t ax = norm_ax(in_axes ? in_axes[i] : 0, v->t.rank);
    if (ax < 0 || ax >= v->t.rank) return fail(x, "its scan axis %lld is out of range", (long long)ax);
    if (i > 0 && v->t.dims[ax] != trips)
      return fail(x, "its scan inputs have %lld and %lld entries on their scan axes",
                  (long long)trips, (long long)v->t.dims[ax]);
    trips = v->t.dims[ax];
    if (i == 0) trips_sym = v->sym[ax];
  }
  Body b = {.g = g, .trips = trips, .trips_sym = trips_sym, .in0 = 0, .body_in0 = 0,
            .body_out0 = 0, .ncarried = nstate, .nscan_in = nscan,
            .nscan_out = g->noutputs - nstate, .in_axes = in_axes, .out_axes = out_axes};
  return run_body(x, n, &b);
}
