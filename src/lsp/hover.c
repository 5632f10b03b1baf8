/* SPDX-License-Identifier: MIT */
/*
 * hover.c: textDocument/hover (R-LSP-013).  What is under the cursor, in
 * short Markdown with figures formatted as the report formats them: an
 * op's name, its row's documentation; an op's statement, the node's
 * figures on the document's first target (and a memory-bound op's
 * crossover, from its finding); a let, its value; a tensor's name, its
 * declaration and type; a diagnostic, its check's --explain
 * text.
 */
#include "lsp/lsp.h"

#include <string.h>

void lsp_op_signature(const OpDesc *op, StrBuf *sb) {
  static const char *const operands[] = {"a", "b", "c", "d"};
  sb_printf(sb, "%s(", op->name);
  int n = op->min_inputs < 4 ? op->min_inputs : 4;
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%s", i ? ", " : "", operands[i]);
  if (op->max_inputs < 0 || op->max_inputs > op->min_inputs)
    sb_puts(sb, n ? ", ..." : "...");
  for (const KwDesc *k = op->keywords; k && k->name; k++)
    sb_printf(sb, "%s%s=", n || k != op->keywords ? ", " : "", k->name);
  sb_putc(sb, ')');
}

static void op_doc(const OpDesc *op, StrBuf *sb) {
  sb_puts(sb, "```\n");
  lsp_op_signature(op, sb);
  sb_printf(sb, "\n```\n%s (%s)", op->doc, op_class_str(op->cls));
}

/* The figures of node i of model m on its first target. */
static void node_figures(const ModelCost *mc, int i, StrBuf *sb) {
  const GNode *g = &mc->model->nodes[i];
  const NodeCost *nc = &mc->nodes[i];
  RoofPoint rp = cost_node_roof(mc, nc);
  char f[48], b[48], in[48], ridge[48], att[48], t[48], tt[48], pct[48];
  sb_printf(sb, "**%s** `%s` is %s-bound on %s\n\n", g->op->name, g->name,
            bound_str(nc->bound), mc->target->display);
  sb_printf(sb, "- %s, %s: %s FLOP/B against a ridge of %s\n",
            fmt_flop(f, sizeof f, nc->flops), fmt_bytes(b, sizeof b, nc->bytes),
            fmt_intensity(in, sizeof in, rp.intensity),
            fmt_fixed(ridge, sizeof ridge, rp.ridge, 1));
  /* an accumulated step runs the node every microbatch (R-PAR-020) */
  double total = cost_step_time(mc) / mc->accumulated;
  sb_printf(sb, "- attainable %s; %s a run, x%s: %s, %s of the step\n",
            fmt_flops_rate(att, sizeof att, rp.attainable),
            fmt_time(t, sizeof t, nc->time_s), fmt_count(b, sizeof b, g->count),
            fmt_time(tt, sizeof tt, nc->time_s * g->count),
            fmt_percent(pct, sizeof pct,
                        total > 0 ? nc->time_s * g->count / total : 0, 1));
  if (nc->blocks > 0) {
    Waves w = cost_node_waves(mc, nc);
    sb_printf(sb, "- %s blocks on %d SMs: %s wave%s, %s of the SMs busy\n",
              fmt_fixed(b, sizeof b, nc->blocks, 0), mc->target->sms,
              fmt_fixed(t, sizeof t, w.waves, 0), w.waves == 1 ? "" : "s",
              fmt_percent(pct, sizeof pct, w.utilisation, 1));
  }
  if (g->region >= 0)
    sb_printf(sb, "- in fused region `%s`\n", mc->model->regions[g->region].name);
}

/* For a memory-bound op, the lets at which it would reach the compute
 * roof: the notes memory-bound puts last on its finding, one per
 * "crossover" figure. */
static void crossovers(const LspDoc *d, Loc at, StrBuf *sb) {
  for (int i = 0; i < d->diags.n; i++) {
    const Diag *g = d->diags.items[i];
    if (!g->check || strcmp(g->check, "memory-bound") != 0 ||
        g->loc.start != at.start || g->loc.end != at.end)
      continue;
    int n = 0;
    for (int k = 0; k < g->nfigures; k++)
      n += strncmp(g->figures[k].key, "crossover", 9) == 0;
    for (int k = g->nnotes - n; k >= 0 && k < g->nnotes; k++)
      sb_printf(sb, "- %s\n", g->notes[k].msg);
  }
}

static void tensor_doc(const GNode *g, StrBuf *sb) {
  char type[256];
  op_type_str(type, sizeof type, g->type);
  sb_printf(sb, "%s `%s`: `%s`", g->op ? g->op->name : role_str(g->role),
            g->name, type);
  if (g->count != 1) {
    char c[48];
    sb_printf(sb, ", x%s per step", fmt_count(c, sizeof c, g->count));
  }
  sb_putc(sb, '\n');
}

int lsp_node_at(const Model *m, uint32_t off) {
  int decl = -1;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    Loc at = g->op ? g->stmt_loc : g->loc;
    if (off < at.start || off > at.end) continue;
    if (g->op) return i;
    if (decl < 0) decl = i;
  }
  return decl;
}

/* The cost of the model whose node is at off on the first target, and the
 * node (-1: none). */
static const ModelCost *cost_at(const Analysis *an, uint32_t off, int *node) {
  *node = -1;
  if (!an || !an->unit || !an->costs) return NULL;
  for (int m = 0; m < an->unit->nmodels; m++) {
    int i = lsp_node_at(&an->unit->models[m], off);
    if (i >= 0) {
      *node = i;
      return an->costs[m * an->ntargets];
    }
  }
  return NULL;
}

static void let_doc(const LspServer *s, const Unit *u, const char *name,
                    StrBuf *sb) {
  for (int i = 0; u && i < u->nlets; i++) {
    const LetDef *l = &u->lets[i];
    if (strcmp(l->name, name) != 0 || !l->ok) continue;
    if (l->value.is_real) sb_printf(sb, "let `%s = %.17g`", name, l->value.r);
    else sb_printf(sb, "let `%s = %lld`", name, (long long)l->value.i);
    for (int k = 0; k < s->settings.noverrides; k++)
      if (strcmp(s->settings.overrides[k].name, name) == 0)
        sb_puts(sb, " (-D from the server's settings)");
    sb_putc(sb, '\n');
    return;
  }
}

/* A name: an op's documentation, a let's value, a tensor's type. */
static void name_doc(const LspServer *s, const LspDoc *d, const LspName *n,
                     StrBuf *sb) {
  const OpDesc *op = n->role == NAME_OP ? op_lookup(n->name) : NULL;
  if (op) {
    op_doc(op, sb);
    return;
  }
  LspName def;
  if (!lsp_definition_of(d->an->tree.program, n, &def)) return;
  if (def.role == NAME_LET) {
    let_doc(s, d->an->unit, def.name, sb);
    return;
  }
  int node;
  const ModelCost *mc = cost_at(d->an, def.loc.start, &node);
  if (mc && (def.role == NAME_DECL || def.role == NAME_BIND)) {
    tensor_doc(&mc->model->nodes[node], sb);
    int line, col;
    src_linecol(lsp_doc_file(d), def.loc.start, &line, &col);
    sb_printf(sb, "\ndefined on line %d\n", line);
  }
}

/* The --explain text of each diagnostic under the cursor. */
static void explain_diags(const LspDoc *d, uint32_t off, StrBuf *sb) {
  for (int i = 0; i < d->diags.n; i++) {
    const Diag *g = d->diags.items[i];
    const CheckDesc *c = g->check ? check_lookup(g->check) : NULL;
    if (!c || g->loc.file != d->file || off < g->loc.start || off > g->loc.end)
      continue;
    if (sb->len) sb_puts(sb, "\n---\n\n");
    sb_printf(sb, "**%s**: %s\n\n%s", c->name, c->summary, c->explain);
  }
}

json_t *lsp_hover(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d = lsp_doc_of(s, params, err);
  uint32_t off;
  if (!d || !lsp_doc_offset(d, params, &off, err)) return NULL;
  StrBuf sb = {0};
  LspName n;
  bool on_name = lsp_name_at(d->an->tree.program, off, &n);
  int node;
  const ModelCost *mc = cost_at(d->an, off, &node);
  if (on_name && n.role != NAME_BIND)
    name_doc(s, d, &n, &sb);
  else if (mc && mc->model->nodes[node].op) {
    node_figures(mc, node, &sb);
    crossovers(d, mc->model->nodes[node].loc, &sb);
  }
  else if (mc)
    tensor_doc(&mc->model->nodes[node], &sb);
  explain_diags(d, off, &sb);
  if (!sb.len) return json_null();
  json_t *r = json_pack("{s:{s:s, s:o}}", "contents", "kind", "markdown",
                        "value", json_safe_string(sb_str(&sb)));
  sb_free(&sb);
  return r;
}
