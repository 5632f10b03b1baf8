/* SPDX-License-Identifier: MIT */
/*
 * document.c: the open documents, each with its latest analysis, and the
 * conversion between byte offsets and LSP positions (lines and UTF-16
 * code units, R-LSP-009).  An analysis is analyze_file on a source set of
 * the document's own, with the settings' targets, -D and -W, freed whole
 * when the next one is made: memory follows the documents, not the edits
 * (R-LSP-011).
 */
#include "lsp/lsp.h"
#include "import/import.h"

#include <stdlib.h>
#include <string.h>

struct LspPosCache {
  int line;          /* 1-based; 0: empty */
  uint32_t off;      /* a character boundary on that line */
  int64_t units;     /* UTF-16 units from the line's start to off */
};

LspDoc *lsp_doc_find(LspServer *s, const char *uri) {
  for (int i = 0; uri && i < s->ndocs; i++)
    if (strcmp(s->docs[i]->uri, uri) == 0) return s->docs[i];
  return NULL;
}

static void drop_analysis(LspDoc *d) {
  if (!d->arena) return;
  diag_sink_free(&d->diags);
  arena_free(d->arena);
  src_free(&d->ss);
  d->arena = NULL;
  d->an = NULL;
}

void lsp_doc_set_text(LspDoc *d, const char *text, size_t len, int64_t version) {
  free(d->text);
  d->text = xmalloc(len + 1);
  memcpy(d->text, text, len);
  d->text[len] = '\0';
  d->len = len;
  d->version = version;
  d->dirty = true;
}

LspDoc *lsp_doc_open(LspServer *s, const char *uri, const char *text,
                     size_t len, int64_t version) {
  LspDoc *d = lsp_doc_find(s, uri);
  if (!d) {
    if (s->ndocs == s->capdocs) {
      s->capdocs = s->capdocs ? 2 * s->capdocs : 8;
      s->docs = xrealloc(s->docs, (size_t)s->capdocs * sizeof *s->docs);
    }
    d = xcalloc(1, sizeof *d);
    d->uri = xstrdup(uri);
    d->pos = xcalloc(1, sizeof *d->pos);
    s->docs[s->ndocs++] = d;
  }
  lsp_doc_set_text(d, text, len, version);
  return d;
}

static void doc_free(LspDoc *d) {
  drop_analysis(d);
  free(d->pos);
  free(d->uri);
  free(d->text);
  free(d);
}

void lsp_doc_close(LspServer *s, const char *uri) {
  for (int i = 0; i < s->ndocs; i++)
    if (strcmp(s->docs[i]->uri, uri) == 0) {
      doc_free(s->docs[i]);
      s->docs[i] = s->docs[--s->ndocs];
      return;
    }
}

void lsp_docs_free(LspServer *s) {
  for (int i = 0; i < s->ndocs; i++) doc_free(s->docs[i]);
  free(s->docs);
  s->docs = NULL;
  s->ndocs = s->capdocs = 0;
}

/* The name diagnostics give the document: its path for a file: URI. */
static char *name_of(const char *uri) {
  const char *p = strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri;
  char *out = xmalloc(strlen(p) + 1), *o = out;
  for (; *p; p++) {
    int hi, lo;
    if (*p == '%' && sscanf(p + 1, "%1x%1x", &hi, &lo) == 2 && (hi || lo)) {
      *o++ = (char)(hi * 16 + lo);
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = '\0';
  return out;
}

/* "x.json:5:14: " at the start of an importer's error: its offset in the
 * document, and the message after it. */
static uint32_t error_place(const SourceFile *f, const char *err, const char **msg) {
  const char *p = err + strlen(f->name);
  int line = 0, col = 0, used = 0;
  *msg = err;
  if (strncmp(err, f->name, strlen(f->name)) != 0) return 0;
  if (sscanf(p, ":%d:%d: %n", &line, &col, &used) == 2 && used > 0 && line >= 1 &&
      (size_t)line <= f->nlines) {
    *msg = p + used;
    uint32_t at = f->line_starts[line - 1] + (uint32_t)(col - 1);
    return at < src_line_end(f, line) ? at : src_line_end(f, line);
  }
  if (strncmp(p, ": ", 2) == 0) *msg = p + 2;
  return 0;
}

/* R-LSP-020: a config.json is imported from the document's text, as the
 * command line imports the file; one it cannot import gets that error,
 * placed where the importer says.  Returns the file, or -1 (its error
 * reported on the text). */
static int load_config(LspDoc *d, const char *name, char *text) {
  ImportOptions io = {.text = d->text, .text_len = d->len};
  char *err = NULL;
  ImportStatus why;
  int file = import_load(&d->ss, name, &io, &err, &why);
  if (file >= 0) {
    free(text);
    return file;
  }
  d->file = src_add(&d->ss, name, text, d->len);
  const char *msg;
  uint32_t at = error_place(src_file(&d->ss, d->file), err, &msg);
  diag_report(&d->diags, SEV_ERROR, NULL, (Loc){d->file, at, at}, "%s", msg);
  free(err);
  return -1;
}

void lsp_doc_analyze(LspServer *s, LspDoc *d) {
  if (d->arena && !d->dirty) return;
  drop_analysis(d);
  const LspSettings *st = &s->settings;
  src_init(&d->ss);
  char *text = xmalloc(d->len + 1);
  memcpy(text, d->text, d->len + 1);
  char *name = name_of(d->uri);
  d->arena = arena_new();
  diag_sink_init(&d->diags);
  d->diags.error_limit = DIAG_DEFAULT_ERROR_LIMIT;
  const Importer *imp = importer_for(name);
  d->config = imp && imp->language; /* a text format: a config.json */
  d->file = d->config ? load_config(d, name, text) : src_add(&d->ss, name, text, d->len);
  free(name);
  if (d->file < 0) {
    d->file = d->ss.nfiles - 1;
    d->dirty = false;
    d->unpublished = true;
    memset(d->pos, 0, sizeof *d->pos);
    return;
  }
  AnalyzeOptions ao = {
      .bindings = lsp_settings_bindings(st, d->arena),
      .targets = (const char **)st->targets,
      .ntargets = st->ntargets,
      .run_checks = true,
      .policy = &st->policy,
      /* navigation and hover read the tree */
      .keep_tree = true,
  };
  d->an = analyze_file(d->arena, &d->ss, d->file, &ao, &d->diags);
  diag_apply_policy(&d->diags, &d->ss, &st->policy);
  diag_sort(&d->diags);
  d->dirty = false;
  d->unpublished = true;
  memset(d->pos, 0, sizeof *d->pos);
}

const SourceFile *lsp_doc_file(const LspDoc *d) {
  const SourceFile *f = src_file(&d->ss, d->file);
  return f && f->original ? f->original : f; /* the document's own text */
}

LspDoc *lsp_doc_of(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d = lsp_doc_any(s, params, err);
  if (d && d->config) {
    lsp_fail(err, LSP_REQUEST_FAILED,
             "a config.json gets diagnostics only; hover, completion, actions and "
             "navigation work on .roof text (rooflint import writes it)");
    return NULL;
  }
  return d;
}

LspDoc *lsp_doc_any(LspServer *s, json_t *params, LspError *err) {
  json_t *td = json_object_get(params, "textDocument");
  const char *uri = json_string_value(json_object_get(td, "uri"));
  if (!uri) {
    lsp_fail(err, LSP_INVALID_PARAMS, "textDocument.uri must be a string");
    return NULL;
  }
  LspDoc *d = lsp_doc_find(s, uri);
  if (!d) {
    lsp_fail(err, LSP_INVALID_PARAMS, "the document is not open");
    return NULL;
  }
  lsp_doc_analyze(s, d);
  return d;
}

bool lsp_doc_offset(const LspDoc *d, json_t *params, uint32_t *off,
                    LspError *err) {
  json_t *pos = json_object_get(params, "position");
  json_t *line = json_object_get(pos, "line");
  json_t *ch = json_object_get(pos, "character");
  if (!json_is_integer(line) || !json_is_integer(ch) ||
      json_integer_value(line) < 0 || json_integer_value(ch) < 0) {
    lsp_fail(err, LSP_INVALID_PARAMS,
             "position must have a line and a character, each 0 or more");
    return false;
  }
  *off = lsp_offset_of(lsp_doc_file(d), json_integer_value(line),
                       json_integer_value(ch));
  return true;
}

/* ------------------------------------------------------------ positions */

/* The bytes of the character at s (of n), and its UTF-16 units. */
static size_t char_at(const char *s, size_t n, int *units) {
  size_t len = src_utf8_len(s, n);
  *units = len == 4 ? 2 : 1;
  return len ? len : 1;
}

json_t *lsp_position(const LspDoc *d, uint32_t off) {
  const SourceFile *f = lsp_doc_file(d);
  if (!f) return json_pack("{s:i, s:i}", "line", 0, "character", 0);
  if (off > f->len) off = (uint32_t)f->len;
  int line, col;
  src_linecol(f, off, &line, &col);
  struct LspPosCache *c = d->pos;
  uint32_t at = f->line_starts[line - 1];
  int64_t units = 0;
  if (c->line == line && c->off <= off) {
    at = c->off;
    units = c->units;
  }
  while (at < off) {
    int u;
    at += (uint32_t)char_at(f->text + at, f->len - at, &u);
    units += u;
  }
  *c = (struct LspPosCache){line, at, units};
  return json_pack("{s:i, s:I}", "line", line - 1, "character", (json_int_t)units);
}

json_t *lsp_range(const LspDoc *d, Loc loc) {
  if (loc.file < 0) loc.start = loc.end = 0;
  json_t *start = lsp_position(d, loc.start); /* first: the cache goes forward */
  return json_pack("{s:o, s:o}", "start", start, "end", lsp_position(d, loc.end));
}

uint32_t lsp_offset_of(const SourceFile *f, int64_t line, int64_t character) {
  if (!f || f->nlines == 0) return 0;
  if (line >= (int64_t)f->nlines) return (uint32_t)f->len;
  uint32_t at = f->line_starts[line];
  uint32_t end = src_line_end(f, (int)line + 1);
  while (at < end && character > 0) {
    int u;
    at += (uint32_t)char_at(f->text + at, end - at, &u);
    character -= u;
  }
  return at;
}

json_t *lsp_location(const LspDoc *d, Loc loc) {
  return json_pack("{s:s, s:o}", "uri", d->uri, "range",
                   lsp_range(d, loc));
}
