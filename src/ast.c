/* SPDX-License-Identifier: MIT */
/*
 * ast.c: the syntax tree's constructors, its enum names and the --dump ast
 * printer.  Grammar actions call one constructor each, so parser.y stays a
 * list of productions.  Every node lives in the Arena, allocated only as
 * large as its kind needs (a declaration without `shard=` ends before its
 * option; a keyword's name is out of line), because the tree is the
 * biggest thing a parse makes (docs/performance.md).  The lists
 * the constructors take were gathered on the parser's scratch stacks and
 * copied into the arena once, at their exact size (parse.c).
 */
#include "ast.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- enum names ---------------------------------------------------- */

static const char *const unit_kind_names[] = {
    [UNIT_NONE] = "none",         [UNIT_BYTES] = "bytes",
    [UNIT_BANDWIDTH] = "bandwidth", [UNIT_FLOPS] = "flops",
    [UNIT_TIME] = "time",
};

static const char *const expr_kind_names[] = {
    [EX_INT] = "int",        [EX_REAL] = "real",     [EX_STRING] = "string",
    [EX_QUANTITY] = "quantity", [EX_BOOL] = "bool",  [EX_NAME] = "name",
    [EX_BINARY] = "binary",  [EX_UNARY] = "unary",   [EX_CALL] = "call",
    [EX_LIST] = "list",      [EX_TYPE] = "type",     [EX_ERROR] = "error",
};

static const char *const stmt_kind_names[] = {
    [ST_LET] = "let",          [ST_TARGET_USE] = "target-use",
    [ST_TARGET_DEF] = "target-def", [ST_MODEL] = "model",
    [ST_DTYPE] = "dtype",      [ST_MODE] = "mode",
    [ST_DTYPE_CLASS] = "dtype-class",
    [ST_PARALLEL] = "parallel", [ST_DECL] = "decl",
    [ST_ASSIGN] = "assign",    [ST_REPEAT] = "repeat",
    [ST_LOOP] = "loop",        [ST_FUSED] = "fused", [ST_CHECKPOINT] = "checkpoint",
    [ST_OUTPUT] = "output",    [ST_SECTION] = "section",
    [ST_ERROR] = "error",      [ST_UNPACK] = "unpack",
    [ST_EXPERTS] = "experts",
};

static const char *const decl_kind_names[] = {
    [DECL_INPUT] = "input", [DECL_WEIGHT] = "weight", [DECL_HOST] = "host",
    [DECL_BUFFER] = "buffer", [DECL_CACHE] = "cache",
};

#define NAME_OF(table, k)                                              \
  ((unsigned)(k) < sizeof table / sizeof table[0] && table[k] ? table[k] \
                                                              : "?")

const char *unit_kind_str(UnitKind k) { return NAME_OF(unit_kind_names, k); }
const char *expr_kind_str(ExprKind k) { return NAME_OF(expr_kind_names, k); }
const char *stmt_kind_str(StmtKind k) { return NAME_OF(stmt_kind_names, k); }

/* ---- expressions --------------------------------------------------------- */

/* The header plus union member `m`, rounded up to the arena's 8 bytes. */
#define NODE_SIZE(T, m) \
  ((offsetof(T, m) + sizeof(((T *)0)->m) + 7) & ~(size_t)7)

/* Placeholders (and any kind missing here) get the whole struct: error
 * paths are rare, and a checker that looks into one reads zeroes. */
static const size_t expr_sizes[] = {
    [EX_INT] = NODE_SIZE(Expr, ival),   [EX_REAL] = NODE_SIZE(Expr, rval),
    [EX_STRING] = NODE_SIZE(Expr, str), [EX_QUANTITY] = NODE_SIZE(Expr, qty),
    [EX_BOOL] = NODE_SIZE(Expr, ival),  [EX_NAME] = NODE_SIZE(Expr, name),
    [EX_BINARY] = NODE_SIZE(Expr, bin), [EX_UNARY] = NODE_SIZE(Expr, un),
    [EX_CALL] = NODE_SIZE(Expr, call),  [EX_LIST] = NODE_SIZE(Expr, list),
    [EX_TYPE] = NODE_SIZE(Expr, type),  [EX_ERROR] = sizeof(Expr),
};

static const size_t stmt_sizes[] = {
    [ST_LET] = NODE_SIZE(Stmt, let),
    [ST_TARGET_USE] = NODE_SIZE(Stmt, target_use),
    [ST_TARGET_DEF] = NODE_SIZE(Stmt, def),
    [ST_MODEL] = NODE_SIZE(Stmt, def),
    [ST_DTYPE] = NODE_SIZE(Stmt, word),
    [ST_MODE] = NODE_SIZE(Stmt, word),
    [ST_DTYPE_CLASS] = NODE_SIZE(Stmt, let),
    [ST_PARALLEL] = NODE_SIZE(Stmt, parallel),
    /* without its option; ast_stmt_decl allocates one with it whole */
    [ST_DECL] = (offsetof(Stmt, decl.opt_key) + 7) & ~(size_t)7,
    [ST_ASSIGN] = NODE_SIZE(Stmt, assign),
    [ST_REPEAT] = NODE_SIZE(Stmt, loop),
    [ST_LOOP] = NODE_SIZE(Stmt, loop),
    [ST_FUSED] = NODE_SIZE(Stmt, def),
    [ST_CHECKPOINT] = NODE_SIZE(Stmt, def),
    [ST_OUTPUT] = NODE_SIZE(Stmt, output),
    [ST_SECTION] = NODE_SIZE(Stmt, def),
    [ST_ERROR] = sizeof(Stmt),
    [ST_UNPACK] = NODE_SIZE(Stmt, unpack),
    [ST_EXPERTS] = NODE_SIZE(Stmt, experts),
};

/* A zeroed node of kind k: the size its kind's table gives, else `whole`.
 * Only the fields up to the kind's member may be written. */
static void *node_alloc(Arena *a, const size_t *sizes, size_t nsizes,
                        unsigned k, size_t whole) {
  return arena_alloc(a, k < nsizes && sizes[k] ? sizes[k] : whole);
}
#define NODE_ALLOC(a, sizes, k, T) \
  node_alloc(a, sizes, sizeof sizes / sizeof sizes[0], (unsigned)(k), sizeof(T))

Expr *ast_expr(Arena *a, ExprKind k, Loc loc) {
  Expr *e = NODE_ALLOC(a, expr_sizes, k, Expr);
  e->kind = k, e->loc = loc;
  return e;
}

Ident ast_ident(const char *name, int id, Loc loc) {
  return (Ident){name, loc, id};
}

Expr *ast_bool(Arena *a, bool value, Loc loc) {
  Expr *e = ast_expr(a, EX_BOOL, loc);
  e->ival = value;
  return e;
}

Expr *ast_inf(Arena *a, Loc loc) {
  Expr *e = ast_expr(a, EX_REAL, loc);
  e->rval = INFINITY;
  return e;
}

Expr *ast_name(Arena *a, int id, Loc loc) {
  Expr *e = ast_expr(a, EX_NAME, loc);
  e->name.id = id;
  return e;
}

Expr *ast_binary(Arena *a, int op, Expr *lhs, Expr *rhs, Loc loc) {
  Expr *e = ast_expr(a, EX_BINARY, loc);
  e->bin.op = op;
  e->bin.lhs = lhs;
  e->bin.rhs = rhs;
  return e;
}

Expr *ast_unary(Arena *a, int op, Expr *operand, Loc loc) {
  Expr *e = ast_expr(a, EX_UNARY, loc);
  e->un.op = op;
  e->un.operand = operand;
  return e;
}

Expr *ast_call(Arena *a, Ident callee, Arg *args, int nargs, Loc loc) {
  Expr *e = ast_expr(a, EX_CALL, loc);
  e->call.callee = callee.id, e->call.callee_loc = callee.loc;
  e->call.args = args, e->call.nargs = nargs;
  return e;
}

Loc ast_arg_name_loc(const Arg *arg) {
  return arg->key ? arg->key->loc : LOC_NONE;
}

Expr *ast_list(Arena *a, Expr **items, int n, Loc loc) {
  Expr *e = ast_expr(a, EX_LIST, loc);
  e->list.items = items;
  e->list.n = n;
  return e;
}

Expr *ast_type(Arena *a, Ident dtype, Expr **dims, int ndims, Loc loc) {
  Expr *e = ast_expr(a, EX_TYPE, loc);
  e->type.dtype = dtype.name, e->type.dtype_loc = dtype.loc;
  e->type.dims = dims, e->type.ndims = ndims;
  return e;
}

/* ---- statements ------------------------------------------------------------ */

Stmt *ast_stmt(Arena *a, StmtKind k, Loc loc) {
  Stmt *s = NODE_ALLOC(a, stmt_sizes, k, Stmt);
  s->kind = k, s->loc = loc;
  return s;
}

Stmt *ast_stmt_bind(Arena *a, StmtKind k, Ident name, Expr *value, Loc loc) {
  Stmt *s = ast_stmt(a, k, loc);
  if (k == ST_LET || k == ST_DTYPE_CLASS) {
    s->let.name = name;
    s->let.value = value;
  } else {
    s->assign.name = name;
    s->assign.value = value;
  }
  return s;
}

Stmt *ast_stmt_word(Arena *a, StmtKind k, Ident word, Loc loc) {
  Stmt *s = ast_stmt(a, k, loc);
  if (k == ST_TARGET_USE)
    s->target_use = word;
  else
    s->word = word;
  return s;
}

Stmt *ast_stmt_def(Arena *a, StmtKind k, Ident kind, Ident name, Block body,
                   Loc loc) {
  Stmt *s = ast_stmt(a, k, loc);
  s->def.kind = kind;
  s->def.name = name;
  s->def.body = body;
  return s;
}

Stmt *ast_stmt_parallel(Arena *a, Block body, Loc loc) {
  Stmt *s = ast_stmt(a, ST_PARALLEL, loc);
  s->parallel = body;
  return s;
}

Stmt *ast_stmt_decl(Arena *a, DeclKind k, Ident *names, int n, Expr *type,
                    const Ident opt[2], Loc loc) {
  Stmt *s;
  if (opt) {
    s = arena_alloc(a, NODE_SIZE(Stmt, decl));
    s->kind = ST_DECL, s->loc = loc;
    s->decl.has_opt = true;
    s->decl.opt_key = opt[0];
    s->decl.opt_value = opt[1];
  } else {
    s = ast_stmt(a, ST_DECL, loc);
  }
  s->decl.kind = k;
  s->decl.names = names;
  s->decl.nnames = n;
  s->decl.type = type;
  return s;
}

Stmt *ast_stmt_loop(Arena *a, StmtKind k, Expr *count, Block body, Loc loc) {
  Stmt *s = ast_stmt(a, k, loc);
  s->loop.count = count;
  s->loop.body = body;
  return s;
}

Stmt *ast_stmt_experts(Arena *a, Expr *count, Expr *top, Arg *opts, int nopts,
                       Block body, Loc loc) {
  Stmt *s = ast_stmt(a, ST_EXPERTS, loc);
  s->experts.count = count;
  s->experts.body = body;
  s->experts.top = top;
  s->experts.opts = opts;
  s->experts.nopts = nopts;
  return s;
}

Stmt *ast_stmt_output(Arena *a, Ident *names, int n, Loc loc) {
  Stmt *s = ast_stmt(a, ST_OUTPUT, loc);
  s->output.names = names;
  s->output.nnames = n;
  return s;
}

Stmt *ast_stmt_unpack(Arena *a, Ident *names, int n, Expr *value, Loc loc) {
  Stmt *s = ast_stmt(a, ST_UNPACK, loc);
  s->unpack.names = names;
  s->unpack.nnames = n;
  s->unpack.value = value;
  return s;
}

/* ---- the dump ---------------------------------------------------------------
 * One node per line: indentation (two blanks per level), the kind, its
 * details, then line:col of the node's first byte.  Stable: golden tests
 * compare it byte for byte. */

typedef struct Dump {
  FILE *out;
  const SourceFile *f; /* NULL: no line:col */
  const char *const *names; /* Program.names */
} Dump;

static void at(const Dump *d, Loc loc) {
  if (!d->f || loc.file < 0) {
    fputc('\n', d->out);
    return;
  }
  int line, col;
  src_linecol(d->f, loc.start, &line, &col);
  fprintf(d->out, " @%d:%d\n", line, col);
}

static void indent(const Dump *d, int depth) {
  fprintf(d->out, "%*s", depth * 2, "");
}

static void dump_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", out);
    else if (c == '\t')
      fputs("\\t", out);
    else if (c < 0x20 || c == 0x7f)
      fprintf(out, "\\x%02x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

/* The shortest %g spelling that reads back as the same double. */
static void dump_number(FILE *out, double v) {
  char buf[64];
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  fputs(buf, out);
}

static void dump_expr(const Dump *d, const Expr *e, int depth);

static void dump_exprs(const Dump *d, Expr *const *items, int n, int depth) {
  for (int i = 0; i < n; i++) dump_expr(d, items[i], depth);
}

/* `a + b + c ...` nests to the left as deep as it is long: a spine longer
 * than this is printed flat (its operators one level down, each with its
 * right operand), so neither the output (2 blanks per level per node is
 * quadratic in the spine's length) nor the recursion grows with its
 * length.  Shorter ones print as nested as they are. */
enum { DUMP_MAX_SPINE = 64 };

const char *ast_op_str(int op) {
  static const char *const names[] = {"+", "-", "*", "/", "%"};
  static const char chars[] = "+-*/%";
  if (op == BINOP_FLOORDIV) return "//";
  const char *c = op ? strchr(chars, op) : NULL;
  return c ? names[c - chars] : "?";
}

static bool dump_flat_spine(const Dump *d, const Expr *e, int depth) {
  int n = 0;
  const Expr *c = e;
  for (; c->kind == EX_BINARY && n <= DUMP_MAX_SPINE; c = c->bin.lhs) n++;
  if (n <= DUMP_MAX_SPINE) return false;
  n = 0;
  for (c = e; c->kind == EX_BINARY; c = c->bin.lhs) n++;
  const Expr **spine = xmalloc((size_t)n * sizeof *spine);
  n = 0;
  for (c = e; c->kind == EX_BINARY; c = c->bin.lhs) spine[n++] = c;
  indent(d, depth);
  fprintf(d->out, "binary spine (%d operators)", n);
  at(d, e->loc);
  dump_expr(d, c, depth + 1); /* the leftmost operand */
  for (int i = n - 1; i >= 0; i--) {
    indent(d, depth + 1);
    fprintf(d->out, "%s '%s'", expr_kind_str(EX_BINARY), ast_op_str(spine[i]->bin.op));
    at(d, spine[i]->loc);
    dump_expr(d, spine[i]->bin.rhs, depth + 2);
  }
  free(spine);
  return true;
}

static void dump_expr(const Dump *d, const Expr *e, int depth) {
  if (e->kind == EX_BINARY && dump_flat_spine(d, e, depth)) return;
  indent(d, depth);
  FILE *out = d->out;
  fputs(expr_kind_str(e->kind), out);
  switch (e->kind) {
  case EX_INT: fprintf(out, " %lld", (long long)e->ival); break;
  case EX_REAL: fputc(' ', out); dump_number(out, e->rval); break;
  case EX_STRING: fputc(' ', out); dump_string(out, e->str); break;
  case EX_QUANTITY:
    fputc(' ', out);
    dump_number(out, e->qty.number);
    fprintf(out, " %s = ", e->qty.unit);
    dump_number(out, e->qty.value);
    fprintf(out, " (%s)", unit_kind_str(e->qty.kind));
    break;
  case EX_BOOL: fputs(e->ival ? " true" : " false", out); break;
  case EX_NAME: fprintf(out, " %s", d->names[e->name.id]); break;
  case EX_BINARY: fprintf(out, " '%s'", ast_op_str(e->bin.op)); break;
  case EX_UNARY: fprintf(out, " '%c'", e->un.op); break;
  case EX_CALL: fprintf(out, " %s", d->names[e->call.callee]); break;
  case EX_LIST: fprintf(out, " (%d)", e->list.n); break;
  case EX_TYPE: fprintf(out, " %s (%d)", e->type.dtype, e->type.ndims); break;
  case EX_ERROR: break;
  }
  at(d, e->loc);
  switch (e->kind) {
  case EX_BINARY:
    dump_expr(d, e->bin.lhs, depth + 1);
    dump_expr(d, e->bin.rhs, depth + 1);
    break;
  case EX_UNARY: dump_expr(d, e->un.operand, depth + 1); break;
  case EX_CALL:
    for (int i = 0; i < e->call.nargs; i++) {
      const Arg *arg = &e->call.args[i];
      if (arg->key) {
        indent(d, depth + 1);
        fprintf(out, "kwarg %s", arg->key->name);
        at(d, ast_arg_name_loc(arg));
        dump_expr(d, arg->value, depth + 2);
      } else {
        dump_expr(d, arg->value, depth + 1);
      }
    }
    break;
  case EX_LIST: dump_exprs(d, e->list.items, e->list.n, depth + 1); break;
  case EX_TYPE: dump_exprs(d, e->type.dims, e->type.ndims, depth + 1); break;
  default: break;
  }
}

static void dump_block(const Dump *d, const Block *b, int depth);

static void dump_names(const Dump *d, const Ident *names, int n) {
  for (int i = 0; i < n; i++) fprintf(d->out, "%s%s", i ? ", " : " ", names[i].name);
}

static void dump_stmt(const Dump *d, const Stmt *s, int depth) {
  FILE *out = d->out;
  indent(d, depth);
  fputs(stmt_kind_str(s->kind), out);
  switch (s->kind) {
  case ST_LET: fprintf(out, " %s", s->let.name.name); break;
  case ST_ASSIGN: fprintf(out, " %s", s->assign.name.name); break;
  case ST_TARGET_USE: fprintf(out, " %s", s->target_use.name); break;
  case ST_DTYPE:
  case ST_MODE: fprintf(out, " %s", s->word.name); break;
  case ST_DTYPE_CLASS:
    fprintf(out, " %s = %s", s->let.name.name, d->names[s->let.value->name.id]);
    break;
  case ST_TARGET_DEF:
  case ST_MODEL:
  case ST_FUSED: fprintf(out, " %s", s->def.name.name); break;
  case ST_SECTION: fprintf(out, " %s %s", s->def.kind.name, s->def.name.name); break;
  case ST_DECL:
    fprintf(out, " %s", NAME_OF(decl_kind_names, s->decl.kind));
    dump_names(d, s->decl.names, s->decl.nnames);
    break;
  case ST_OUTPUT: dump_names(d, s->output.names, s->output.nnames); break;
  case ST_UNPACK: dump_names(d, s->unpack.names, s->unpack.nnames); break;
  default: break;
  }
  at(d, s->loc);
  switch (s->kind) {
  case ST_LET: dump_expr(d, s->let.value, depth + 1); break;
  case ST_ASSIGN: dump_expr(d, s->assign.value, depth + 1); break;
  case ST_UNPACK: dump_expr(d, s->unpack.value, depth + 1); break;
  case ST_TARGET_DEF:
  case ST_MODEL:
  case ST_FUSED:
  case ST_CHECKPOINT:
  case ST_SECTION: dump_block(d, &s->def.body, depth + 1); break;
  case ST_PARALLEL: dump_block(d, &s->parallel, depth + 1); break;
  case ST_DECL: dump_expr(d, s->decl.type, depth + 1); break;
  case ST_REPEAT:
  case ST_LOOP:
    dump_expr(d, s->loop.count, depth + 1);
    dump_block(d, &s->loop.body, depth + 1);
    break;
  case ST_EXPERTS:
    dump_expr(d, s->experts.count, depth + 1);
    dump_expr(d, s->experts.top, depth + 1);
    for (int i = 0; i < s->experts.nopts; i++) {
      const Arg *arg = &s->experts.opts[i];
      indent(d, depth + 1);
      fprintf(out, "option %s", arg->key->name);
      at(d, ast_arg_name_loc(arg));
      dump_expr(d, arg->value, depth + 2);
    }
    dump_block(d, &s->experts.body, depth + 1);
    break;
  default: break;
  }
}

static void dump_block(const Dump *d, const Block *b, int depth) {
  for (int i = 0; i < b->n; i++) dump_stmt(d, b->items[i], depth);
}

void ast_dump(const Program *p, const SourceSet *ss, FILE *out) {
  Dump d = {out, ss && p->file >= 0 && p->file < ss->nfiles ? src_file(ss, p->file) : NULL,
            p->names};
  fprintf(out, "program %s (%d statements, %d syntax errors)\n",
          d.f ? d.f->name : "?", p->top.n, p->nsyntax_errors);
  dump_block(&d, &p->top, 1);
}
