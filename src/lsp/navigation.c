/* SPDX-License-Identifier: MIT */
/*
 * navigation.c: textDocument/definition, references and documentSymbol
 * (R-LSP-014).  A name's definition is the binding it reads (names.c);
 * its references are the names whose definition is the same one.  The symbols are the outline: lets,
 * targets, and models with their repeats, loops, experts blocks and fused
 * regions nested as written.
 */
#include "lsp/lsp.h"

#include <string.h>

/* The name at the request's position and its definition. */
static bool named(LspServer *s, json_t *params, LspError *err, LspDoc **d,
                  LspName *def) {
  uint32_t off;
  *d = lsp_doc_of(s, params, err);
  if (!*d || !lsp_doc_offset(*d, params, &off, err)) return false;
  const Program *p = (*d)->an->tree.program;
  LspName n;
  return lsp_name_at(p, off, &n) && lsp_definition_of(p, &n, def);
}

json_t *lsp_definition(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d;
  LspName def;
  if (!named(s, params, err, &d, &def)) return err->code ? NULL : json_null();
  return lsp_location(d, def.loc);
}

typedef struct Refs {
  const Program *p;
  const LspDoc *d;
  LspName def;
  bool with_decl;
  json_t *out;
} Refs;

/* A name whose definition is r->def (the definition itself only when the
 * request includes it). */
static bool collect_ref(void *ctx, const LspName *n, const LspName *def) {
  Refs *r = ctx;
  if (!def || def->loc.start != r->def.loc.start) return true;
  if (lsp_name_defines(n->role) && !r->with_decl) return true;
  json_array_append_new(r->out, lsp_location(r->d, n->loc));
  return true;
}

json_t *lsp_references(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d;
  LspName def;
  if (!named(s, params, err, &d, &def)) return err->code ? NULL : json_null();
  json_t *ctx = json_object_get(params, "context");
  Refs r = {d->an->tree.program, d, def,
            json_is_true(json_object_get(ctx, "includeDeclaration")), json_array()};
  lsp_walk_id(r.p, def.id, collect_ref, &r);
  return r.out;
}

/* ------------------------------------------------------------- symbols */

/* LSP's SymbolKind numbers. */
enum { SK_NAMESPACE = 3, SK_CLASS = 5, SK_CONSTANT = 14, SK_OBJECT = 19,
       SK_STRUCT = 23 };

static json_t *symbol(const LspDoc *d, const char *name, int kind, Loc whole,
                      Loc sel) {
  return json_pack("{s:o, s:i, s:o, s:o}", "name", json_safe_string(name), "kind",
                   kind, "range", lsp_range(d, whole), "selectionRange",
                   lsp_range(d, sel));
}

static json_t *block_symbols(const LspDoc *d, const Block *b);

/* The header of a block statement as its symbol's name: "repeat L". */
static json_t *header_symbol(const LspDoc *d, const Stmt *s, const Block *body,
                             int kind) {
  const SourceFile *f = lsp_doc_file(d);
  uint32_t end = body->open.file >= 0 ? body->open.start : s->loc.end;
  while (end > s->loc.start && (f->text[end - 1] == ' ' || f->text[end - 1] == '\t'))
    end--;
  char *name = xmalloc(end - s->loc.start + 1);
  memcpy(name, f->text + s->loc.start, end - s->loc.start);
  name[end - s->loc.start] = '\0';
  json_t *sym = symbol(d, name, kind, s->loc, (Loc){d->file, s->loc.start, end});
  free(name);
  json_object_set_new(sym, "children", block_symbols(d, body));
  return sym;
}

static json_t *stmt_symbol(const LspDoc *d, const Stmt *s) {
  switch (s->kind) {
  case ST_LET:
    return s->let.name.name ? symbol(d, s->let.name.name, SK_CONSTANT, s->loc,
                                     s->let.name.loc)
                            : NULL;
  case ST_TARGET_DEF:
    return symbol(d, s->def.name.name, SK_OBJECT, s->loc, s->def.name.loc);
  case ST_MODEL:
  case ST_FUSED: {
    json_t *sym = symbol(d, s->def.name.name,
                         s->kind == ST_MODEL ? SK_CLASS : SK_STRUCT, s->loc,
                         s->def.name.loc);
    json_object_set_new(sym, "children", block_symbols(d, &s->def.body));
    return sym;
  }
  case ST_REPEAT:
  case ST_LOOP: return header_symbol(d, s, &s->loop.body, SK_NAMESPACE);
  case ST_EXPERTS: return header_symbol(d, s, &s->experts.body, SK_NAMESPACE);
  case ST_CHECKPOINT: return header_symbol(d, s, &s->def.body, SK_NAMESPACE);
  default: return NULL;
  }
}

static json_t *block_symbols(const LspDoc *d, const Block *b) {
  json_t *out = json_array();
  for (int i = 0; i < b->n; i++) {
    json_t *sym = stmt_symbol(d, b->items[i]);
    if (sym) json_array_append_new(out, sym);
  }
  return out;
}

json_t *lsp_document_symbol(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d = lsp_doc_of(s, params, err);
  if (!d) return NULL;
  const Program *p = d->an->tree.program;
  return p ? block_symbols(d, &p->top) : json_array();
}
