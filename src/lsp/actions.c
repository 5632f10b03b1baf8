/* SPDX-License-Identifier: MIT */
/*
 * actions.c: textDocument/codeAction (R-LSP-015).  For each diagnostic in
 * the requested range: its fix-its as one quick fix (wrap in `fused`,
 * change a dtype, add `shard = 8`, a spelling), and for a check's finding
 * "silence this check on this line", a `# rooflint: ignore[CHECK]`
 * comment at the end of the line it is reported on (R-SUP-001).
 */
#include "lsp/lsp.h"

#include <string.h>

static json_t *text_edit(const LspDoc *d, Loc loc, const char *text) {
  return json_pack("{s:o, s:o}", "range", lsp_range(d, loc), "newText",
                   json_safe_string(text));
}

/* {"changes": {uri: edits}} */
static json_t *workspace_edit(const LspDoc *d, json_t *edits) {
  json_t *changes = json_object();
  json_object_set_new(changes, d->uri, edits);
  return json_pack("{s:o}", "changes", changes);
}

static json_t *action(const LspDoc *d, const Diag *g, StrBuf *title,
                      json_t *edits, bool preferred) {
  json_t *a = json_pack("{s:o, s:s, s:[o], s:o}", "title",
                        json_safe_string(sb_str(title)), "kind", "quickfix",
                        "diagnostics", lsp_diagnostic(d, g), "edit",
                        workspace_edit(d, edits));
  if (preferred) json_object_set_new(a, "isPreferred", json_true());
  sb_free(title);
  return a;
}

/* "replace 'fp32' with 'bf16'", "insert 'fused f { '", "delete 'x'" */
static void describe(const SourceFile *f, const FixIt *fx, StrBuf *sb) {
  size_t n = fx->loc.end - fx->loc.start;
  const char *old = f->text + fx->loc.start;
  if (n == 0) sb_printf(sb, "insert '%s'", fx->text);
  else if (!*fx->text) sb_printf(sb, "delete '%.*s'", (int)(n > 40 ? 40 : n), old);
  else sb_printf(sb, "replace '%.*s' with '%s'", (int)(n > 40 ? 40 : n), old, fx->text);
}

static json_t *fix_action(const LspDoc *d, const Diag *g) {
  const SourceFile *f = lsp_doc_file(d);
  StrBuf title = {0};
  json_t *edits = json_array();
  for (int i = 0; i < g->nfixits; i++) {
    const FixIt *fx = &g->fixits[i];
    if (fx->loc.file != d->file) {
      json_decref(edits);
      sb_free(&title);
      return NULL;
    }
    sb_puts(&title, i ? ", " : "Fix: ");
    describe(f, fx, &title);
    json_array_append_new(edits, text_edit(d, fx->loc, fx->text));
  }
  return action(d, g, &title, edits, true);
}

static json_t *silence_action(const LspDoc *d, const Diag *g) {
  const SourceFile *f = lsp_doc_file(d);
  int line, col;
  src_linecol(f, g->loc.start, &line, &col);
  uint32_t end = src_line_end(f, line);
  StrBuf title = {0}, text = {0};
  sb_printf(&title, "Silence %s on this line", g->check);
  sb_printf(&text, "  # rooflint: ignore[%s]", g->check);
  json_t *edits = json_pack("[o]", text_edit(d, (Loc){d->file, end, end},
                                               sb_str(&text)));
  sb_free(&text);
  return action(d, g, &title, edits, false);
}

json_t *lsp_code_action(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d = lsp_doc_of(s, params, err);
  if (!d) return NULL;
  json_t *range = json_object_get(params, "range");
  json_t *start = json_object_get(range, "start"), *end = json_object_get(range, "end");
  json_t *p0 = json_pack("{s:O}", "position", start ? start : json_null());
  json_t *p1 = json_pack("{s:O}", "position", end ? end : json_null());
  uint32_t lo, hi;
  bool ok = lsp_doc_offset(d, p0, &lo, err) && lsp_doc_offset(d, p1, &hi, err);
  json_decref(p0);
  json_decref(p1);
  if (!ok) return NULL;
  json_t *out = json_array();
  for (int i = 0; i < d->diags.n; i++) {
    const Diag *g = d->diags.items[i];
    if (g->loc.file != d->file || g->loc.end < lo || g->loc.start > hi) continue;
    json_t *fix = g->nfixits ? fix_action(d, g) : NULL;
    if (fix) json_array_append_new(out, fix);
    if (g->check)
      json_array_append_new(out, silence_action(d, g));
  }
  return out;
}
