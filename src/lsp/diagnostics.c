/* SPDX-License-Identifier: MIT */
/*
 * diagnostics.c: a document's diagnostics as textDocument/publishDiagnostics
 * (R-LSP-012): severities as clangd maps clang's (error 1, warning 2,
 * remark 3, note 4), the check's name as `code` with a codeDescription
 * naming its --explain text, notes in the document as relatedInformation
 * and the others as lines of the message.
 */
#include "lsp/lsp.h"

#include <string.h>

static int severity_of(const Diag *g) {
  switch (g->sev) {
  case SEV_ERROR: return 1;
  case SEV_WARNING: return 2;
  case SEV_REMARK: return 3;
  default: return 4;
  }
}

/* The message, with what cannot be shown in place said in it: where a
 * diagnostic in another file (a target file) is, and the notes that have
 * no place in this document. */
static json_t *message_of(const LspDoc *d, const Diag *g) {
  StrBuf sb = {0};
  const SourceFile *f = src_file(&d->ss, g->loc.file);
  if (f && g->loc.file != d->file) {
    char where[WHERE_MAX];
    sb_printf(&sb, "%s: ", src_where(f, g->loc, g->origin, where, sizeof where));
  }
  sb_puts(&sb, g->msg);
  for (int i = 0; i < g->nnotes; i++)
    if (g->notes[i].loc.file != d->file)
      sb_printf(&sb, "\nnote: %s", g->notes[i].msg);
  json_t *j = json_safe_string(sb_str(&sb));
  sb_free(&sb);
  return j;
}

/* Where loc is in the document: itself for .roof text; on a line of a
 * config.json's imported text, the key it came from (R-DIAG-001), else
 * the document's start.  quote: the generated statement, when imported. */
static Loc doc_loc(const LspDoc *d, Loc loc, const char *origin, StrBuf *quote) {
  const SourceFile *f = src_file(&d->ss, loc.file);
  if (loc.file != d->file || !f) return LOC_NONE;
  if (!f->imported) return loc;
  Located at;
  src_locate(f, loc, origin, &at);
  if (quote && at.gen_line) {
    sb_puts(quote, "\nin the imported text: ");
    src_statement(f, at.gen_line, quote);
  }
  return at.in ? (Loc){loc.file, at.start, at.end} : (Loc){loc.file, 0, 0};
}

json_t *lsp_diagnostic(const LspDoc *d, const Diag *g) {
  StrBuf quote = {0};
  Loc at = doc_loc(d, g->loc, g->origin, &quote);
  json_t *j = json_pack("{s:o, s:i, s:s}", "range", lsp_range(d, at),
                        "severity", severity_of(g), "source", "rooflint");
  if (g->check) {
    char href[128];
    snprintf(href, sizeof href, "rooflint:explain/%s", g->check);
    json_object_set_new(j, "code", json_safe_string(g->check));
    json_object_set_new(j, "codeDescription",
                        json_pack("{s:o}", "href", json_safe_string(href)));
  }
  json_t *msg = message_of(d, g);
  if (quote.len) {
    StrBuf sb = {0};
    sb_printf(&sb, "%s%s", json_string_value(msg), sb_str(&quote));
    json_decref(msg);
    msg = json_safe_string(sb_str(&sb));
    sb_free(&sb);
  }
  sb_free(&quote);
  json_object_set_new(j, "message", msg);
  json_t *related = json_array();
  for (int i = 0; i < g->nnotes; i++)
    if (g->notes[i].loc.file == d->file)
      json_array_append_new(
          related, json_pack("{s:o, s:o}", "location",
                             lsp_location(d, doc_loc(d, g->notes[i].loc, NULL, NULL)),
                             "message",
                             json_safe_string(g->notes[i].msg)));
  if (json_array_size(related)) json_object_set_new(j, "relatedInformation", related);
  else json_decref(related);
  return j;
}

void lsp_publish_diagnostics(LspServer *s, LspDoc *d) {
  json_t *list = json_array();
  for (int i = 0; i < d->diags.n; i++)
    json_array_append_new(list, lsp_diagnostic(d, d->diags.items[i]));
  lsp_notify(s, "textDocument/publishDiagnostics",
             json_pack("{s:s, s:I, s:o}", "uri", d->uri, "version",
                       (json_int_t)d->version, "diagnostics", list));
  d->unpublished = false;
}
