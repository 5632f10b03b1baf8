/* SPDX-License-Identifier: MIT */
/*
 * completion.c: textDocument/completion (R-LSP-016): the lets of the file
 * and the tensors bound before the cursor in its model, then every op
 * (its keyword signature as the detail, its row's doc), the language's
 * keywords, the dtypes and the built-in targets.  The client filters
 * them by what is typed.
 */
#include "lsp/lsp.h"

#include <string.h>

/* LSP's CompletionItemKind numbers. */
enum { CK_FUNCTION = 3, CK_VARIABLE = 6, CK_VALUE = 12, CK_KEYWORD = 14,
       CK_CONSTANT = 21, CK_TYPE = 25 };

static const char *const keywords[] = {
    "let",    "model",  "target",   "dtype",      "mode",     "parallel",
    "input",  "weight", "host",     "buffer",     "cache",    "repeat",
    "loop",   "fused",  "checkpoint", "experts",  "output",   "train",
    "infer",  NULL};

static void add(json_t *items, const char *label, int kind, const char *detail,
                const char *doc) {
  json_t *it = json_pack("{s:o, s:i}", "label", json_safe_string(label), "kind", kind);
  if (detail) json_object_set_new(it, "detail", json_safe_string(detail));
  if (doc) json_object_set_new(it, "documentation", json_safe_string(doc));
  json_array_append_new(items, it);
}

typedef struct InScope {
  uint32_t off;
  const Stmt *model; /* the model the cursor is in, or NULL */
  StrMap seen;
  json_t *items;
} InScope;

static bool add_in_scope(void *ctx, const LspName *n) {
  InScope *c = ctx;
  bool let = n->role == NAME_LET;
  bool tensor = (n->role == NAME_DECL || n->role == NAME_BIND) &&
                n->model == c->model && c->model && n->loc.end <= c->off;
  if (!(let || tensor) || strmap_get(&c->seen, n->name)) return true;
  strmap_put(&c->seen, n->name, (void *)n->name);
  add(c->items, n->name, let ? CK_CONSTANT : CK_VARIABLE, let ? "let" : NULL,
      NULL);
  return true;
}

static const Stmt *model_at(const Program *p, uint32_t off) {
  for (int i = 0; p && i < p->top.n; i++) {
    const Stmt *s = p->top.items[i];
    if (s->kind == ST_MODEL && off >= s->loc.start && off <= s->loc.end) return s;
  }
  return NULL;
}

static void add_ops(json_t *items) {
  for (int i = 0; i < op_count(); i++) {
    const OpDesc *op = op_get((OpId)i);
    StrBuf sig = {0};
    lsp_op_signature(op, &sig);
    add(items, op->name, CK_FUNCTION, sb_str(&sig), op->doc);
    sb_free(&sig);
  }
}

static void add_targets(json_t *items) {
  for (int i = 0; i < embedded_targets_count; i++) {
    const char *file = embedded_targets[i].name;
    const char *dot = strrchr(file, '.');
    size_t n = dot ? (size_t)(dot - file) : strlen(file);
    char *name = xmalloc(n + 1);
    memcpy(name, file, n);
    name[n] = '\0';
    add(items, name, CK_VALUE, "target", NULL);
    free(name);
  }
}

json_t *lsp_completion(LspServer *s, json_t *params, LspError *err) {
  LspDoc *d = lsp_doc_of(s, params, err);
  uint32_t off;
  if (!d || !lsp_doc_offset(d, params, &off, err)) return NULL;
  const Program *p = d->an->tree.program;
  InScope c = {off, model_at(p, off), {0}, json_array()};
  strmap_init(&c.seen);
  lsp_walk_names(p, add_in_scope, &c);
  strmap_free(&c.seen);
  add_ops(c.items);
  for (int i = 0; keywords[i]; i++) add(c.items, keywords[i], CK_KEYWORD, NULL, NULL);
  for (const char *const *t = dtype_names(); *t; t++)
    add(c.items, *t, CK_TYPE, "dtype", NULL);
  add_targets(c.items);
  return c.items;
}
