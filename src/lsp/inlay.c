/* SPDX-License-Identifier: MIT */
/*
 * inlay.c: textDocument/inlayHint (R-LSP-017): at the end of each op's
 * line, its bound and the time of one run on the first target
 * (`memory · 1.20 us`).  Off unless the settings turn them on
 * ("inlayHints": true): they are figures on every line.
 */
#include "lsp/lsp.h"

static json_t *hint(const LspDoc *d, const ModelCost *mc, int i) {
  const SourceFile *f = lsp_doc_file(d);
  const NodeCost *nc = &mc->nodes[i];
  char t[48], label[96];
  snprintf(label, sizeof label, "%s \xC2\xB7 %s", bound_str(nc->bound),
           fmt_time(t, sizeof t, nc->time_s));
  int line, col;
  src_linecol(f, mc->model->nodes[i].stmt_loc.start, &line, &col);
  return json_pack("{s:o, s:s, s:b}", "position",
                   lsp_position(d, src_line_end(f, line)), "label", label,
                   "paddingLeft", 1);
}

/* The hints of one model's ops whose statements start in [lo, hi]. */
static void model_hints(const LspDoc *d, const ModelCost *mc, uint32_t lo,
                        uint32_t hi, json_t *out) {
  const Model *m = mc->model;
  uint32_t last = UINT32_MAX;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (!g->op || mc->nodes[i].bound == BOUND_NONE || g->stmt_loc.file != d->file)
      continue;
    if (g->stmt_loc.start < lo || g->stmt_loc.start > hi || g->stmt_loc.start == last)
      continue;
    last = g->stmt_loc.start; /* one hint for a statement of several results */
    json_array_append_new(out, hint(d, mc, i));
  }
}

json_t *lsp_inlay_hint(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d = lsp_doc_of(s, params, err);
  if (!d) return NULL;
  json_t *range = json_object_get(params, "range");
  json_t *p0 = json_pack("{s:O}", "position", json_object_get(range, "start"));
  json_t *p1 = json_pack("{s:O}", "position", json_object_get(range, "end"));
  uint32_t lo = 0, hi = 0;
  bool ok = p0 && p1 && lsp_doc_offset(d, p0, &lo, err) &&
            lsp_doc_offset(d, p1, &hi, err);
  json_decref(p0);
  json_decref(p1);
  if (!ok) {
    if (!err->code) lsp_fail(err, LSP_INVALID_PARAMS, "range must have a start and an end");
    return NULL;
  }
  json_t *out = json_array();
  const Analysis *an = d->an;
  if (!s->settings.inlay_hints || !an->unit || !an->costs) return out;
  for (int m = 0; m < an->unit->nmodels; m++)
    model_hints(d, an->costs[m * an->ntargets], lo, hi, out);
  return out;
}
