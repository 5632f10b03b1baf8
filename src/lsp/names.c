/* SPDX-License-Identifier: MIT */
/*
 * names.c: every name of a kept tree, in source order, with what it does
 * there (defines a let, a tensor, a model; reads one; names an op), and
 * the definition a read refers to.  Navigation, hover and completion are
 * questions about these (R-LSP-014).
 */
#include "lsp/lsp.h"

#include <stdlib.h>

typedef struct Walk {
  const Program *p;
  LspNameFn fn;
  void *ctx;
  const Stmt *stmt, *model;
  bool stop;
} Walk;

static void visit(Walk *w, int id, const char *name, Loc loc, LspNameRole role) {
  if (w->stop || !name) return;
  LspName n = {id, name, loc, role, w->stmt, w->model};
  if (!w->fn(w->ctx, &n)) w->stop = true;
}

static void visit_ident(Walk *w, const Ident *id, LspNameRole role) {
  visit(w, id->id, id->name, id->loc, role);
}

static const char *name_of(const Program *p, int id) {
  return id >= 0 && id < p->nnames ? p->names[id] : NULL;
}

/* The expressions still to walk, last pushed first (a heap stack: a
 * chain `a + a + ... + a` nests as deep as it is long). */
typedef struct Pending {
  const Expr **items;
  size_t n, cap;
} Pending;

static void push(Pending *p, const Expr *e) {
  if (!e) return;
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->items = xrealloc(p->items, p->cap * sizeof *p->items);
  }
  p->items[p->n++] = e;
}

/* One expression's names, in source order: children are pushed last
 * first. */
static void walk_expr(Walk *w, const Expr *root) {
  Pending p = {0};
  push(&p, root);
  while (p.n > 0 && !w->stop) {
    const Expr *e = p.items[--p.n];
    switch (e->kind) {
    case EX_NAME:
      visit(w, e->name.id, name_of(w->p, e->name.id), e->loc, NAME_USE);
      break;
    case EX_BINARY:
      push(&p, e->bin.rhs);
      push(&p, e->bin.lhs);
      break;
    case EX_UNARY: push(&p, e->un.operand); break;
    case EX_CALL:
      visit(w, e->call.callee, name_of(w->p, e->call.callee), e->call.callee_loc,
            NAME_OP);
      for (int i = e->call.nargs - 1; i >= 0; i--) push(&p, e->call.args[i].value);
      break;
    case EX_LIST:
      for (int i = e->list.n - 1; i >= 0; i--) push(&p, e->list.items[i]);
      break;
    case EX_TYPE:
      for (int i = e->type.ndims - 1; i >= 0; i--) push(&p, e->type.dims[i]);
      break;
    default: break;
    }
  }
  free(p.items);
}

static void walk_block(Walk *w, const Block *b);

/* A statement of a model body or of the top level. */
static void walk_stmt(Walk *w, const Stmt *s) {
  w->stmt = s;
  switch (s->kind) {
  case ST_LET:
  case ST_DTYPE_CLASS:
    visit_ident(w, &s->let.name, w->model ? NAME_BIND : NAME_LET);
    walk_expr(w, s->let.value);
    break;
  case ST_TARGET_DEF: visit_ident(w, &s->def.name, NAME_TARGET); break;
  case ST_MODEL:
    visit_ident(w, &s->def.name, NAME_MODEL);
    w->model = s;
    walk_block(w, &s->def.body);
    w->model = NULL;
    break;
  case ST_FUSED:
    visit_ident(w, &s->def.name, NAME_FUSED);
    walk_block(w, &s->def.body);
    break;
  case ST_CHECKPOINT: walk_block(w, &s->def.body); break;
  case ST_PARALLEL:
    for (int i = 0; i < s->parallel.n; i++) {
      const Stmt *k = s->parallel.items[i];
      w->stmt = k;
      if (k->kind == ST_ASSIGN) walk_expr(w, k->assign.value);
    }
    break;
  case ST_DECL:
    for (int i = 0; i < s->decl.nnames; i++)
      visit_ident(w, &s->decl.names[i], NAME_DECL);
    walk_expr(w, s->decl.type);
    break;
  case ST_ASSIGN:
    visit_ident(w, &s->assign.name, NAME_BIND);
    walk_expr(w, s->assign.value);
    break;
  case ST_UNPACK:
    for (int i = 0; i < s->unpack.nnames; i++)
      visit_ident(w, &s->unpack.names[i], NAME_BIND);
    walk_expr(w, s->unpack.value);
    break;
  case ST_REPEAT:
  case ST_LOOP:
    walk_expr(w, s->loop.count);
    walk_block(w, &s->loop.body);
    break;
  case ST_EXPERTS:
    walk_expr(w, s->experts.count);
    walk_expr(w, s->experts.top);
    for (int i = 0; i < s->experts.nopts; i++)
      walk_expr(w, s->experts.opts[i].value);
    walk_block(w, &s->experts.body);
    break;
  case ST_OUTPUT:
    for (int i = 0; i < s->output.nnames; i++)
      visit_ident(w, &s->output.names[i], NAME_USE);
    break;
  default: break; /* target uses, dtype, mode, sections, errors */
  }
}

static void walk_block(Walk *w, const Block *b) {
  for (int i = 0; i < b->n && !w->stop; i++) walk_stmt(w, b->items[i]);
}

void lsp_walk_names(const Program *p, LspNameFn fn, void *ctx) {
  if (!p) return;
  Walk w = {p, fn, ctx, NULL, NULL, false};
  walk_block(&w, &p->top);
}

bool lsp_name_defines(LspNameRole r) {
  return r != NAME_USE && r != NAME_OP;
}

typedef struct Find {
  uint32_t off;
  LspName found;
  bool ok;
} Find;

static bool find_at(void *ctx, const LspName *n) {
  Find *f = ctx;
  if (f->off >= n->loc.start && f->off <= n->loc.end) {
    f->found = *n;
    f->ok = true;
    return false;
  }
  return true;
}

bool lsp_name_at(const Program *p, uint32_t off, LspName *out) {
  Find f = {off, {0}, false};
  lsp_walk_names(p, find_at, &f);
  if (f.ok) *out = f.found;
  return f.ok;
}

/* The names of one id with their definitions.  A read's definition is
 * the last definition of the name in its model whose statement ends
 * before the read (a rebinding `x = add(x, y)` reads the x before it),
 * else the first top-level let, model or target of the name; the
 * definitions are kept as they are passed, and a read looks back through
 * them, so a walk costs the names times the few definitions it passes. */
typedef struct ById {
  int id;
  LspResolvedFn fn;
  void *ctx;
  LspName *defs;
  size_t n, cap;
  LspName top;
  bool has_top;
} ById;

static const LspName *definition_of(const ById *b, const LspName *use) {
  for (size_t i = b->n; i-- > 0;) {
    const LspName *d = &b->defs[i];
    if (d->model && d->model == use->model && d->stmt->loc.end <= use->loc.start)
      return d;
  }
  return b->has_top ? &b->top : NULL;
}

static bool by_id(void *ctx, const LspName *n) {
  ById *b = ctx;
  if (n->id != b->id || n->role == NAME_OP) return true;
  if (!lsp_name_defines(n->role)) return b->fn(b->ctx, n, definition_of(b, n));
  if (!n->model && !b->has_top) {
    b->top = *n;
    b->has_top = true;
  } else if (n->model) {
    if (b->n == b->cap) {
      b->cap = b->cap ? 2 * b->cap : 16;
      b->defs = xrealloc(b->defs, b->cap * sizeof *b->defs);
    }
    b->defs[b->n++] = *n;
  }
  return b->fn(b->ctx, n, n);
}

void lsp_walk_id(const Program *p, int id, LspResolvedFn fn, void *ctx) {
  ById b = {.id = id, .fn = fn, .ctx = ctx};
  lsp_walk_names(p, by_id, &b);
  free(b.defs);
}

typedef struct Resolve {
  uint32_t at;
  LspName def;
  bool found;
} Resolve;

static bool resolve(void *ctx, const LspName *n, const LspName *def) {
  Resolve *r = ctx;
  if (n->loc.start != r->at) return true;
  if (def) r->def = *def;
  r->found = def != NULL;
  return false;
}

bool lsp_definition_of(const Program *p, const LspName *n, LspName *out) {
  if (lsp_name_defines(n->role)) {
    *out = *n;
    return true;
  }
  if (n->role == NAME_OP || n->id == NAME_NONE) return false;
  Resolve r = {n->loc.start, {0}, false};
  lsp_walk_id(p, n->id, resolve, &r);
  if (r.found) *out = r.def;
  return r.found;
}
