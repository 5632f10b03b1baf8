/* SPDX-License-Identifier: MIT */
/*
 * sema.c: semantic analysis, Program -> Unit.  Evaluates the top-level
 * lets (with -D overrides), then walks each model once, in source order:
 * resolves names to the most recent binding, evaluates dimension
 * expressions, binds op arguments by the op table (ops.c) and runs its shape
 * rule, and appends one GNode per declaration or op application.  A repeat or
 * loop body is analysed once and only multiplies the count of its nodes, so
 * `repeat 1000000000` costs what `repeat 1` costs.  Work is linear in the
 * number of statements: lets live in a StrMap, a model's names in an array
 * indexed by the parser's dense name ids, nodes in an array sized by the
 * count the parser recorded, everything else in the arena.
 *
 * Errors never cascade: a statement that fails binds its name to a poisoned
 * binding (node -1), and anything that reads a poisoned name fails silently.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "sema.h"
#include "parallel.h" /* the plan's defaults, rules and checks */

/* The arguments of declarations and of ops that take no keyword. */
const OpArgs no_args = {.precision = DT_NONE, .cast_to = DT_NONE,
                        .out_dtype = DT_NONE};

void grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap) return;
  int c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  *p = xrealloc(*p, (size_t)c * size);
  *cap = c;
}

static Loc span(Loc a, Loc b) {
  return (Loc){.file = a.file, .start = a.start, .end = b.end};
}

/* The spelling of an EX_NAME. */
const char *name_of(const Sema *s, const Expr *e) {
  return s->names[e->name.id];
}

bool same_type(const TensorType *a, const TensorType *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* The binding slot of a name id.  Every id sema looks up comes from the
 * parser (Ident.id of a bound or used name, Expr.name.id), so one out of
 * range is a broken invariant. */
Binding **binding_slot(Sema *s, int id) {
  if (id < 0 || id >= s->nnames)
    die("sema: name id %d out of range (%d names)", id, s->nnames);
  return &s->byid[id];
}

/* ---------------------------------------------------------------------- */
/* "unknown X; did you mean".                                              */
/* ---------------------------------------------------------------------- */

static const char **bound_names(Sema *s);
static const char *dtype_alias(const char *name);

/* How many candidate names all of one run's suggestions may compare: an
 * unknown name is compared with every let (or every bound name), so a file
 * of many lets and many unknown names is quadratic without a bound.  Past
 * the budget, or past the error limit (the error is not shown), the error
 * comes without a suggestion.  The budget is per analysis, and a --sweep
 * analyses a file once per value: 2^16 comparisons keep a sweep of a big
 * file of lets within `make robust`'s limits (docs/performance.md), and
 * are still far more than a hand-written file's errors need. */
enum { SUGGEST_BUDGET = 1 << 16 };

static const char *const *let_candidates(Sema *s) {
  return s->let_names;
}

const char *const *op_candidates(Sema *s) {
  (void)s;
  return op_names();
}

static const char *const *dtype_candidates(Sema *s) {
  (void)s;
  return dtype_names();
}

const char *const *bound_candidates(Sema *s) {
  return bound_names(s);
}

/* R-NAME-002, R-OP-001, R-DTYPE-001: `unknown WHAT 'name'`, with "did you
 * mean" and a fix-it when a candidate is close (a dtype's PyTorch spelling
 * first).  `n` is how many candidates there are (0 for a fixed list, which
 * costs nothing): it is charged before they are gathered, so the budget
 * bounds the gathering (bound_names sorts) too. */
void unknown_name(Sema *s, Loc loc, const char *what, const char *name,
                  int64_t n, const char *const *(*candidates)(Sema *)) {
  const char *sug = NULL;
  if (strcmp(what, "dtype") == 0) sug = dtype_alias(name);
  if (!sug && !diag_too_many(s->diags)) {
    if (n <= s->suggest_budget) {
      s->suggest_budget -= n;
      sug = util_suggest(name, candidates(s));
    }
  }
  Diag *d = diag_report(s->diags, SEV_ERROR, NULL, loc,
                        sug ? "unknown %s '%s'; did you mean '%s'?"
                            : "unknown %s '%s'",
                        what, name, sug);
  if (sug) diag_fixit(d, loc, sug);
}

/* ---------------------------------------------------------------------- */
/* Numbers: lets and dimension expressions.                                */
/* ---------------------------------------------------------------------- */


static const char *const num_word[] = {[NUM_VALUE] = "value",
                                       [NUM_DIMENSION] = "dimension"};

static bool overflow(Sema *s, Loc loc, NumKind kind) {
  diag_report(s->diags, SEV_ERROR, NULL, loc, "%s overflows 64 bits",
              num_word[kind]);
  return false;
}

/* One operator of `e` applied to already evaluated operands. */
static bool binop(Sema *s, const Expr *e, NumKind kind, LetValue a, LetValue b,
                  LetValue *out) {
  int op = e->bin.op;
  *out = (LetValue){.is_real = false};
  if (a.is_real || b.is_real) {
    double x = a.is_real ? a.r : (double)a.i, y = b.is_real ? b.r : (double)b.i;
    if ((op == '/' || op == '%' || op == BINOP_FLOORDIV) && y == 0) goto div0;
    if (op == '%') {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "'%%' needs integer operands, got %g %% %g", x, y);
      return false;
    }
    out->is_real = true;
    out->r = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y
           : op == BINOP_FLOORDIV ? floor(x / y) : x / y;
    if (isfinite(out->r)) return true;
    /* R-LET-004: operands are finite (R-LEX-006), so only an overflow
     * leaves the doubles; nothing infinite or NaN goes on. */
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "%s overflows: %g %s %g is not a finite number", num_word[kind], x,
                ast_op_str(op), y);
    return false;
  }
  bool ok = true;
  switch (op) {
  case '+': ok = util_add_i64(a.i, b.i, &out->i); break;
  case '-': ok = !__builtin_sub_overflow(a.i, b.i, &out->i); break;
  case '*': ok = util_mul_i64(a.i, b.i, &out->i); break;
  case BINOP_FLOORDIV:
    /* R-LET-007: Python's //, the quotient rounded toward -infinity */
    if (b.i == 0) goto div0;
    if (a.i == INT64_MIN && b.i == -1) return overflow(s, e->loc, kind);
    out->i = a.i / b.i - (a.i % b.i != 0 && (a.i < 0) != (b.i < 0));
    break;
  case '/':
  case '%':
    if (b.i == 0) goto div0;
    if (a.i == INT64_MIN && b.i == -1) return overflow(s, e->loc, kind);
    if (op == '%') {
      out->i = a.i % b.i;
    } else if (a.i % b.i != 0) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "%lld / %lld does not divide exactly (remainder %lld)",
                  (long long)a.i, (long long)b.i, (long long)(a.i % b.i));
      return false;
    } else {
      out->i = a.i / b.i;
    }
    break;
  default: unreachable();
  }
  return ok ? true : overflow(s, e->loc, kind);
div0:
  diag_report(s->diags, SEV_ERROR, NULL, e->bin.rhs->loc,
              "division by zero in '%s'", ast_op_str(op));
  return false;
}

/* `a + b + c ...` nests to the left as deep as the sum is long, so the
 * left spine is walked with a loop, not recursion (operands on the right
 * are evaluated recursively, as written). */
static bool eval_binary(Sema *s, const Expr *e, NumKind kind, LetValue *out) {
  const Expr *local[32], **spine = local;
  int n = 0, cap = 32;
  for (const Expr *c = e; c->kind == EX_BINARY; c = c->bin.lhs) {
    if (n == cap) {
      const Expr **bigger = xmalloc((size_t)cap * 2 * sizeof *bigger);
      memcpy(bigger, spine, (size_t)n * sizeof *spine);
      if (spine != local) free(spine);
      spine = bigger;
      cap *= 2;
    }
    spine[n++] = c;
  }
  LetValue acc;
  bool ok = eval_num(s, spine[n - 1]->bin.lhs, kind, &acc);
  for (int i = n - 1; i >= 0; i--) {
    LetValue rhs;
    bool ok_r = eval_num(s, spine[i]->bin.rhs, kind, &rhs);
    ok = ok && ok_r && binop(s, spine[i], kind, acc, rhs, &acc);
  }
  if (spine != local) free(spine);
  *out = acc;
  return ok;
}

/* R-LET-008: min(a, b, ...), max(a, b, ...) and cdiv(a, b) (the quotient
 * rounded toward +infinity, -(-a // b)) in lets and dimensions; min and
 * max give the operand itself (min(2, 2.5) is the integer 2), as Python's
 * do. */
static bool eval_call(Sema *s, const Expr *e, NumKind kind, LetValue *out) {
  const char *f = s->names[e->call.callee];
  bool is_min = strcmp(f, "min") == 0, is_max = strcmp(f, "max") == 0;
  bool is_cdiv = strcmp(f, "cdiv") == 0;
  if (!is_min && !is_max && !is_cdiv) {
    diag_report(s->diags, SEV_ERROR, NULL, e->call.callee_loc,
                "'%s' is not a function of numbers; a let or a dimension "
                "may call min, max and cdiv",
                f);
    return false;
  }
  int n = e->call.nargs;
  for (int i = 0; i < n; i++)
    if (e->call.args[i].key) {
      diag_report(s->diags, SEV_ERROR, NULL, ast_arg_name_loc(&e->call.args[i]),
                  "%s() takes no keyword arguments", f);
      return false;
    }
  if (is_cdiv ? n != 2 : n < 2) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "%s() takes %s numbers, got %d", f,
                is_cdiv ? "two" : "two or more", n);
    return false;
  }
  LetValue v[2];
  bool ok = eval_num(s, e->call.args[0].value, kind, &v[0]);
  for (int i = 1; i < n; i++) {
    if (!eval_num(s, e->call.args[i].value, kind, &v[1])) {
      ok = false;
      continue;
    }
    if (!ok) continue;
    if (is_cdiv) {
      if (v[0].is_real || v[1].is_real) {
        double x = v[0].is_real ? v[0].r : (double)v[0].i;
        double y = v[1].is_real ? v[1].r : (double)v[1].i;
        if (y == 0) goto div0;
        v[0] = (LetValue){.is_real = true, .r = ceil(x / y)};
        if (!isfinite(v[0].r)) {
          diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                      "%s overflows: cdiv(%g, %g) is not a finite number",
                      num_word[kind], x, y);
          return false;
        }
      } else {
        int64_t a = v[0].i, b = v[1].i;
        if (b == 0) goto div0;
        if (a == INT64_MIN && b == -1) return overflow(s, e->loc, kind);
        v[0].i = a / b + (a % b != 0 && (a < 0) == (b < 0));
      }
      continue;
    }
    double x = v[0].is_real ? v[0].r : (double)v[0].i;
    double y = v[1].is_real ? v[1].r : (double)v[1].i;
    if (is_min ? y < x : y > x) v[0] = v[1];
  }
  *out = v[0];
  return ok;
div0:
  diag_report(s->diags, SEV_ERROR, NULL, e->call.args[1].value->loc,
              "division by zero in 'cdiv'");
  return false;
}

static Let *let_of(const Sema *s, int id) {
  return id >= 0 && id < s->nnames ? s->let_byid[id] : NULL;
}

bool is_let_name(Sema *s, int id) { return let_of(s, id) != NULL; }

/* R-LEX-014: `inf` where a finite number is needed. */
static bool finite_literal(Sema *s, const Expr *e, NumKind kind) {
  if (!isinf(e->rval)) return true;
  diag_report(s->diags, SEV_ERROR, NULL, e->loc,
              "inf is not a %s: it stands only for a scalar operand, like "
              "where(m, -inf, x), or a fill (clip's min= and max=, pad's "
              "value=)",
              kind == NUM_DIMENSION ? "dimension" : "finite number");
  return false;
}

bool eval_num(Sema *s, const Expr *e, NumKind kind, LetValue *out) {
  switch (e->kind) {
  case EX_INT:
    *out = (LetValue){.is_real = false, .i = e->ival};
    return true;
  case EX_REAL:
    if (!finite_literal(s, e, kind)) return false;
    *out = (LetValue){.is_real = true, .r = e->rval};
    return true;
  case EX_NAME: {
    const Let *l = let_of(s, e->name.id);
    if (l) {
      *out = l->v;
      return l->ok;
    }
    if (s->m && *binding_slot(s, e->name.id)) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "'%s' is a tensor, not a number", name_of(s, e));
      return false;
    }
    /* R-LET-001: every top-level let by name, gathered at the first
     * unknown name (a scan of the file per unknown name was quadratic) */
    if (!s->all_lets && s->top) {
      s->all_lets = xcalloc((size_t)s->nnames + 1, sizeof *s->all_lets);
      for (int i = s->top->n - 1; i >= 0; i--) { /* the first one wins */
        const Stmt *st = s->top->items[i];
        int id = st->kind == ST_LET ? st->let.name.id : -1;
        if (id >= 0 && id < s->nnames) s->all_lets[id] = st;
      }
    }
    int id = e->name.id;
    const Stmt *later = s->all_lets && id >= 0 && id < s->nnames ? s->all_lets[id] : NULL;
    if (later) {
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                            "let '%s' is used before its definition; a let "
                            "may use only the lets above it",
                            name_of(s, e));
      diag_note(d, later->let.name.loc, "'%s' is defined here", name_of(s, e));
      return false;
    }
    unknown_name(s, e->loc, "name", name_of(s, e), s->nlets, let_candidates);
    return false;
  }
  case EX_BINARY:
    return eval_binary(s, e, kind, out);
  case EX_CALL:
    return eval_call(s, e, kind, out);
  case EX_UNARY: {
    /* - - - x: count the signs instead of recursing */
    bool negate = false;
    const Expr *c = e;
    for (; c->kind == EX_UNARY; c = c->un.operand) negate = !negate;
    if (!eval_num(s, c, kind, out)) return false;
    if (!negate) return true;
    if (out->is_real) {
      out->r = -out->r;
    } else {
      if (out->i == INT64_MIN) return overflow(s, e->loc, kind);
      out->i = -out->i;
    }
    return true;
  }
  case EX_QUANTITY:
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "a quantity with a unit ('%s') is not allowed here; write a "
                "plain number",
                e->qty.unit);
    return false;
  case EX_ERROR:
    return false;
  default:
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "expected a number, got %s", expr_kind_str(e->kind));
    return false;
  }
}

/* A real with an exact integer value is accepted where an integer is. */
bool eval_int(Sema *s, const Expr *e, NumKind kind, int64_t *out) {
  LetValue v;
  if (!eval_num(s, e, kind, &v)) return false;
  if (!v.is_real) {
    *out = v.i;
    return true;
  }
  if (v.r != floor(v.r) || !(fabs(v.r) < 9.2e18)) {
    Let *l = e->kind == EX_NAME ? let_of(s, e->name.id) : NULL;
    /* R-LET-006: a -D real used as an integer is one error, at the first
     * use, naming -D; the let's later uses fail silently. */
    if (l && l->from_d) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "expected an integer, got %g from -D %s=%g", v.r, name_of(s, e),
                  v.r);
      l->ok = false;
      return false;
    }
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "expected an integer, got %g", v.r);
    return false;
  }
  *out = (int64_t)v.r;
  return true;
}

static bool eval_dim(Sema *s, const Expr *e, int64_t *out) {
  if (!eval_int(s, e, NUM_DIMENSION, out)) return false;
  if (*out <= 0) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "dimension must be positive, got %lld", (long long)*out);
    return false;
  }
  return true;
}

/* ---------------------------------------------------------------------- */
/* Dtypes and tensor types.                                                */
/* ---------------------------------------------------------------------- */

/* A storage dtype by name; tf32 is only a compute precision. */
/* R-DTYPE-001: PyTorch's and NumPy's spellings of our dtypes, suggested
 * even where the edit distance is large (bfloat16 is 4 edits from bf16). */
static const char *const dtype_aliases[][2] = {
    {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"},
    {"float32", "fp32"},  {"float", "fp32"},   {"float64", "fp64"},
    {"double", "fp64"},
};

static const char *dtype_alias(const char *name) {
  for (size_t i = 0; i < sizeof dtype_aliases / sizeof dtype_aliases[0]; i++)
    if (strcmp(dtype_aliases[i][0], name) == 0) return dtype_aliases[i][1];
  return NULL;
}

bool parse_dtype(Sema *s, const char *name, Loc loc, bool storage,
                 DType *out) {
  DType t = dtype_parse(name);
  if (t == DT_NONE) {
    unknown_name(s, loc, "dtype", name, 0, dtype_candidates);
    return false;
  }
  if (storage && t == DT_TF32) {
    diag_report(s->diags, SEV_ERROR, NULL, loc,
                "tf32 is a compute precision, not a storage dtype; use fp32 "
                "and precision=tf32 on the op");
    return false;
  }
  *out = t;
  return true;
}

/* [dims] with the model dtype, or DTYPE[dims]. */
bool eval_type(Sema *s, const Expr *e, TensorType *t, Loc *dtype_loc) {
  Expr *const *dims;
  int n;
  *dtype_loc = LOC_NONE;
  t->dtype = s->m->dtype;
  if (e->kind == EX_LIST) {
    dims = e->list.items;
    n = e->list.n;
  } else if (e->kind == EX_TYPE) {
    dims = e->type.dims;
    n = e->type.ndims;
    *dtype_loc = e->type.dtype_loc;
    if (!parse_dtype(s, e->type.dtype, e->type.dtype_loc, true, &t->dtype))
      return false;
  } else {
    if (e->kind != EX_ERROR)
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "expected a tensor type like [B, D] or fp32[B, D]");
    return false;
  }
  if (n > MAX_RANK) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "tensor rank %d exceeds the maximum of %d", n, MAX_RANK);
    return false;
  }
  t->rank = n;
  bool ok = true;
  for (int i = 0; i < n; i++) ok &= eval_dim(s, dims[i], &t->dims[i]);
  int64_t elems;
  if (ok && !op_elements(t, &elems)) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "element count overflows 64 bits");
    return false;
  }
  return ok;
}

/* ---------------------------------------------------------------------- */
/* Names, nodes, scopes.                                                   */
/* ---------------------------------------------------------------------- */

static int by_text(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every name bound in the model, for "did you mean", in alphabetical
 * order: util_suggest keeps the first of equally close names, so the
 * answer must not depend on the order of binding. */
static const char **bound_names(Sema *s) {
  const char **v = arena_alloc(s->arena, ((size_t)s->nbound + 1) * sizeof *v);
  for (int i = 0; i < s->nbound; i++) v[i] = s->names[s->bound[i]];
  qsort(v, (size_t)s->nbound, sizeof *v, by_text);
  v[s->nbound] = NULL;
  return v;
}

/* Scope `inner` is `outer` or nested in it. */
static bool within(const Sema *s, int inner, int outer) {
  if (outer < 0) return true;
  for (int sc = inner; sc >= 0; sc = s->scopes[sc].parent)
    if (sc == outer) return true;
  return false;
}

static void add_carried(Sema *s, int scope, const Ident *name,
                        const Binding *outer) {
  CarriedList *l = &s->carried[scope];
  grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items);
  l->items[l->n++] = (Carried){name->name, name->id, outer};
}

/* Binds `name` to `node` (-1 = poisoned) in the current scope, noting the
 * scopes it is loop-carried through. */
static void bind(Sema *s, const Ident *name, int node) {
  Binding **ref = binding_slot(s, name->id);
  Binding *prev = *ref;
  Loc loc = name->loc;
  if (!prev) {
    grow((void **)&s->bound, &s->cap_bound, s->nbound + 1, sizeof *s->bound);
    s->bound[s->nbound++] = name->id;
  }
  if (prev && prev->scope == s->scope) {
    /* No carried list of a scope still open can point at a binding made
     * inside the innermost one, so it is safe to reuse. */
    *prev = (Binding){node, s->scope, loc};
    return;
  }
  if (prev) {
    bool carried = false;
    for (int sc = s->scope; sc >= 0 && !within(s, prev->scope, sc);
         sc = s->scopes[sc].parent) {
      if (s->scopes[sc].experts) continue; /* runs once: nothing carried */
      add_carried(s, sc, name, prev);
      carried = true;
    }
    if (carried && node >= 0) s->m->nodes[node].loop_carried = true;
  }
  Binding *b = arena_alloc(s->bindings, sizeof *b);
  *b = (Binding){node, s->scope, loc};
  *ref = b;
}

static uint64_t type_hash(const TensorType *t) {
  uint64_t h = (uint64_t)(t->dtype + 2) * 1099511628211u + (uint64_t)t->rank;
  for (int i = 0; i < t->rank; i++)
    h = (h ^ (uint64_t)t->dims[i]) * 1099511628211u;
  return h ^ (h >> 29);
}

static void types_put(Sema *s, const TensorType *t) {
  size_t mask = s->cap_types - 1, i = (size_t)type_hash(t) & mask;
  while (s->types[i]) i = (i + 1) & mask;
  s->types[i] = t;
}

/* The shared copy of `t` (same dtype, rank and dims), made on first use. */
const TensorType *intern_type(Sema *s, const TensorType *t) {
  if ((s->ntypes + 1) * 2 > s->cap_types) {
    const TensorType **old = s->types;
    size_t cap = s->cap_types;
    s->cap_types = cap ? cap * 2 : 64;
    s->types = xcalloc(s->cap_types, sizeof *s->types);
    for (size_t i = 0; i < cap; i++)
      if (old[i]) types_put(s, old[i]);
    free(old);
  }
  size_t mask = s->cap_types - 1, i = (size_t)type_hash(t) & mask;
  for (; s->types[i]; i = (i + 1) & mask)
    if (same_type(s->types[i], t)) return s->types[i];
  TensorType *copy = arena_alloc(s->arena, sizeof *copy);
  copy->dtype = t->dtype;
  copy->rank = t->rank;
  memcpy(copy->dims, t->dims, (size_t)t->rank * sizeof *t->dims);
  s->types[i] = copy;
  s->ntypes++;
  return copy;
}

GNode *new_node(Sema *s, const char *name, Role role, Loc loc,
                const Stmt *st) {
  Model *m = s->m;
  if (m->nnodes >= s->cap_nodes) die("sema: node count above the bound");
  GNode *g = &s->nodes[m->nnodes]; /* zeroed by the arena */
  m->nnodes++;
  g->name = name;
  g->role = role;
  g->precision = DT_NONE;
  g->args = &no_args;
  g->scope = s->scope;
  g->count = s->scope >= 0 ? s->scopes[s->scope].count : 1;
  g->region = -1;
  g->loc = loc;
  g->stmt_loc = st->loc;
  g->dtype_loc = LOC_NONE;
  return g;
}


/* ---------------------------------------------------------------------- */
/* Statements.                                                             */
/* ---------------------------------------------------------------------- */

static const char *const stmt_word[] = {
    [ST_LET] = "let",       [ST_TARGET_USE] = "target",
    [ST_TARGET_DEF] = "target", [ST_MODEL] = "model",
    [ST_DTYPE] = "dtype",   [ST_MODE] = "mode",
    [ST_DTYPE_CLASS] = "dtype",
    [ST_PARALLEL] = "parallel", [ST_DECL] = "input",
    [ST_ASSIGN] = "=",      [ST_REPEAT] = "repeat",
    [ST_LOOP] = "loop",     [ST_FUSED] = "fused", [ST_CHECKPOINT] = "checkpoint",
    [ST_OUTPUT] = "output", [ST_SECTION] = "section",
    [ST_ERROR] = "error",   [ST_UNPACK] = "=",
    [ST_EXPERTS] = "experts",
};

static const char *const decl_word[] = {
    [DECL_INPUT] = "input", [DECL_WEIGHT] = "weight", [DECL_HOST] = "host",
    [DECL_BUFFER] = "buffer", [DECL_CACHE] = "cache"};

static const char *word_of(const Stmt *st) {
  if (st->kind == ST_DECL) return decl_word[st->decl.kind];
  if (st->kind == ST_SECTION) return st->def.kind.name;
  return stmt_word[st->kind];
}

static bool in_experts(Sema *s, const Stmt *st);

static void decl(Sema *s, const Stmt *st) {
  static const Role roles[] = {[DECL_INPUT] = ROLE_INPUT,
                               [DECL_WEIGHT] = ROLE_WEIGHT,
                               [DECL_HOST] = ROLE_HOST,
                               [DECL_BUFFER] = ROLE_BUFFER,
                               [DECL_CACHE] = ROLE_CACHE};
  TensorType t;
  Loc dtype_loc;
  memset(&t, 0, sizeof t);
  bool ok = eval_type(s, st->decl.type, &t, &dtype_loc);
  /* R-PAR-002: `weight w : TYPE shard=tensor` is one GPU's 1/tensor */
  bool shard = false;
  if (st->decl.has_opt) {
    const Ident *k = &st->decl.opt_key, *v = &st->decl.opt_value;
    if (strcmp(k->name, "shard") != 0) {
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, k->loc,
                            "unknown declaration option '%s' (expected "
                            "shard=tensor)",
                            k->name);
      if (util_suggest(k->name, (const char *const[]){"shard", NULL}))
        diag_fixit(d, k->loc, "shard");
      ok = false;
    } else if (strcmp(v->name, "tensor") != 0) {
      diag_report(s->diags, SEV_ERROR, NULL, v->loc,
                  "a weight is sharded over the tensor group: shard=tensor, "
                  "not shard=%s",
                  v->name);
      ok = false;
    } else if (st->decl.kind != DECL_WEIGHT) {
      diag_report(s->diags, SEV_ERROR, NULL, k->loc,
                  "only a weight can be sharded (shard=tensor)");
      ok = false;
    }
    shard = ok;
  }
  /* R-MOE-001: an expert holds weights (and buffers), not data */
  if (st->decl.kind != DECL_WEIGHT && st->decl.kind != DECL_BUFFER &&
      in_experts(s, st))
    ok = false;
  const TensorType *type = NULL; /* one for all the names */
  for (int i = 0; i < st->decl.nnames; i++) {
    const Ident *id = &st->decl.names[i];
    int node = -1;
    if (ok) {
      GNode *g = new_node(s, id->name, roles[st->decl.kind], id->loc, st);
      if (!type) type = intern_type(s, &t);
      g->type = type;
      g->dtype_loc = dtype_loc;
      g->shard_tensor = shard;
      node = (int)(g - s->nodes);
    }
    bind(s, id, node);
  }
}

static void output(Sema *s, const Stmt *st) {
  for (int i = 0; i < st->output.nnames; i++) {
    const Ident *id = &st->output.names[i];
    const Binding *b = *binding_slot(s, id->id);
    if (b) {
      if (b->node >= 0) {
        s->nodes[b->node].is_output = true;
        grow((void **)&s->outputs, &s->cap_outputs, s->noutputs + 1,
             sizeof *s->outputs);
        s->outputs[s->noutputs++] = b->node;
      }
      continue;
    }
    if (is_let_name(s, id->id)) { /* R-NAME-003 */
      diag_report(s->diags, SEV_ERROR, NULL, id->loc,
                  "'%s' is a let (a number), not a tensor", id->name);
      continue;
    }
    unknown_name(s, id->loc, "name", id->name, s->nbound, bound_candidates);
  }
}

static void model_block(Sema *s, const Block *b, bool top);

static void check_carried(Sema *s, int scope) {
  CarriedList *l = &s->carried[scope];
  const char *kind = s->scopes[scope].is_loop ? "loop" : "repeat";
  for (int i = 0; i < l->n; i++) {
    const Carried *c = &l->items[i];
    const Binding *now = *binding_slot(s, c->id);
    if (c->outer->node < 0 || now->node < 0) continue;
    Model *m = s->m;
    grow((void **)&s->carries, &s->cap_carries, m->ncarries + 1,
         sizeof *s->carries);
    s->carries[m->ncarries++] = (LoopCarry){c->outer->node, now->node};
    const TensorType *a = s->nodes[c->outer->node].type;
    const TensorType *b = s->nodes[now->node].type;
    if (same_type(a, b)) continue;
    char sa[200], sb[200];
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, now->loc,
                          "loop-carried '%s' changes type from %s to %s in "
                          "one iteration",
                          c->name, op_type_str(sa, sizeof sa, a),
                          op_type_str(sb, sizeof sb, b));
    diag_note(d, c->outer->loc, "'%s' enters the %s as %s here", c->name,
              kind, sa);
  }
  free(l->items);
  *l = (CarriedList){0};
}

/* R-MOE-007: the groups: n_group of E / n_group experts, each token's K
 * within topk_group of them; both given or neither, and consistent (else
 * an error and no groups). */
static void experts_groups(Sema *s, int64_t e, Loc n_group_at,
                           Loc topk_group_at, Scope *moe) {
  if ((n_group_at.file >= 0) != (topk_group_at.file >= 0)) {
    diag_report(s->diags, SEV_ERROR, NULL, n_group_at.file >= 0 ? n_group_at : topk_group_at,
                "n_group= and topk_group= go together: a token's experts "
                "lie in topk_group of the n_group groups");
    moe->n_group = moe->topk_group = 0;
  } else if (moe->n_group) {
    const char *bad = NULL;
    if (e % moe->n_group != 0) bad = "n_group must divide the expert count";
    else if (moe->topk_group > moe->n_group) bad = "topk_group is more than n_group";
    else if (moe->topk_group * (e / moe->n_group) < moe->top)
      bad = "the topk_group groups a token chooses hold fewer experts than "
            "it runs";
    if (bad) {
      diag_report(s->diags, SEV_ERROR, NULL, topk_group_at,
                  "experts %lld top %lld n_group=%lld topk_group=%lld: %s",
                  (long long)e, (long long)moe->top, (long long)moe->n_group,
                  (long long)moe->topk_group, bad);
      moe->n_group = moe->topk_group = 0;
    }
  }
}

/* R-MOE-001: K (1 to E) and the options of `experts E top K`; a real
 * option `name` of at least `min`. */
static double experts_option(Sema *s, const Arg *a, double min,
                             const char *why) {
  LetValue v;
  if (!eval_num(s, a->value, NUM_VALUE, &v)) return -1;
  double d = v.is_real ? v.r : (double)v.i;
  if (d < min || d > MAX_KW_REAL) {
    diag_report(s->diags, SEV_ERROR, NULL, a->value->loc,
                "%s must be at %s %g (%s), got %g", a->key->name,
                d < min ? "least" : "most", d < min ? min : MAX_KW_REAL, why,
                d);
    return -1;
  }
  return d;
}

static Scope experts_header(Sema *s, const Stmt *st, int64_t e) {
  Scope moe = {.experts = e, .top = 1, .capacity_factor = 1, .imbalance = 1};
  int64_t k = 1;
  if (eval_int(s, st->experts.top, NUM_VALUE, &k)) {
    if (k < 1 || k > e)
      diag_report(s->diags, SEV_ERROR, NULL, st->experts.top->loc,
                  "experts %lld top %lld: each token runs 1 to %lld experts, "
                  "not %lld",
                  (long long)e, (long long)k, (long long)e, (long long)k);
    else
      moe.top = k;
  }
  static const char *const names[] = {"capacity_factor", "imbalance",
                                      "n_group", "topk_group", NULL};
  Loc seen[4] = {LOC_NONE, LOC_NONE, LOC_NONE, LOC_NONE};
  for (int i = 0; i < st->experts.nopts; i++) {
    const Arg *a = &st->experts.opts[i];
    Loc at = ast_arg_name_loc(a);
    int which = -1;
    for (int n = 0; names[n] && which < 0; n++)
      if (strcmp(a->key->name, names[n]) == 0) which = n;
    if (which < 0) {
      const char *sug = util_suggest(a->key->name, names);
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, at,
                            sug ? "unknown experts option '%s'; did you mean "
                                  "'%s'?"
                                : "unknown experts option '%s' (options: "
                                  "capacity_factor=, imbalance=, n_group=, "
                                  "topk_group=)",
                            a->key->name, sug);
      if (sug) diag_fixit(d, at, sug);
      continue;
    }
    if (seen[which].file >= 0) {
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, at,
                            "duplicate experts option '%s'", a->key->name);
      diag_note(d, seen[which], "first given here");
      continue;
    }
    seen[which] = at;
    if (which >= 2) { /* R-MOE-007: DeepSeek's group-limited routing */
      int64_t g = 0;
      if (!eval_int(s, a->value, NUM_VALUE, &g)) continue;
      if (g < 1 || g > e) {
        diag_report(s->diags, SEV_ERROR, NULL, a->value->loc,
                    "%s must be 1 to the %lld experts, got %lld", a->key->name,
                    (long long)e, (long long)g);
        continue;
      }
      if (which == 2) moe.n_group = g;
      else moe.topk_group = g;
      continue;
    }
    double v = which == 0
                   ? experts_option(s, a, 1e-9, "a share of the mean load")
                   : experts_option(s, a, 1, "the busiest expert's load over "
                                             "the mean");
    if (v < 0) continue;
    if (which == 0) moe.capacity_factor = v;
    else moe.imbalance = v;
  }
  experts_groups(s, e, seen[2], seen[3], &moe);
  return moe;
}

/* The experts block the current scope is in, -1 for none. */
static int experts_around(const Sema *s) {
  for (int sc = s->scope; sc >= 0; sc = s->scopes[sc].parent)
    if (s->scopes[sc].experts) return sc;
  return -1;
}

/* R-MOE-001: what an experts block may not hold. */
static bool in_experts(Sema *s, const Stmt *st) {
  int e = experts_around(s);
  if (e < 0) return false;
  Diag *d = diag_report(s->diags, SEV_ERROR, NULL, st->loc,
                        "'%s' is not allowed inside an experts block: it holds "
                        "one expert's weights and ops on the layer's tokens",
                        word_of(st));
  diag_note(d, s->scopes[e].loc, "the experts block starts here");
  return true;
}

/* A checkpoint block holding the nodes model_block makes until
 * checkpoint_close (R-PAR-010). */
static int checkpoint_open(Sema *s, Loc header, bool selective) {
  Model *m = s->m;
  grow((void **)&s->ckpts, &s->cap_ckpts, m->nckpts + 1, sizeof *s->ckpts);
  int id = m->nckpts++;
  s->ckpts[id] = (CheckpointBlock){m->nnodes, m->nnodes, header, selective};
  s->ckpt = id;
  return id;
}

static void checkpoint_close(Sema *s, int id) {
  s->ckpts[id].end = s->m->nnodes;
  s->ckpt = -1;
}

/* Whether a block has a repeat, a loop or a checkpoint block in it, in
 * an experts body too (a fused region holds none). */
static bool holds_scope(const Block *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->items[i];
    if (!st) continue;
    if (st->kind == ST_REPEAT || st->kind == ST_LOOP || st->kind == ST_CHECKPOINT)
      return true;
    if (st->kind == ST_EXPERTS && holds_scope(&st->loop.body)) return true;
  }
  return false;
}

/* Bindings.recompute (R-CHK-084): an innermost repeat's body is read as
 * if written in a checkpoint block, where no block stands in or around
 * it, as Megatron-LM recomputes each layer. */
static bool recompute_body(const Sema *s, const Stmt *st) {
  return s->overrides && s->overrides->recompute != RECOMPUTE_NONE &&
         st->kind == ST_REPEAT && s->ckpt < 0 && s->region < 0 &&
         !holds_scope(&st->loop.body);
}

static void scope_stmt(Sema *s, const Stmt *st) {
  bool is_loop = st->kind == ST_LOOP;
  if (st->kind != ST_EXPERTS && in_experts(s, st)) return;
  if (s->region >= 0) {
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, st->loc,
                          "'%s' is not allowed inside fused region '%s'; put "
                          "the region inside it",
                          word_of(st), s->regions[s->region].name);
    diag_note(d, s->regions[s->region].loc, "region '%s' starts here",
              s->regions[s->region].name);
    return;
  }
  int64_t trips = 1;
  bool ok = eval_int(s, st->loop.count, NUM_VALUE, &trips);
  if (ok && trips < 1) {
    diag_report(s->diags, SEV_ERROR, NULL, st->loop.count->loc,
                "%s count must be at least 1, got %lld", word_of(st),
                (long long)trips);
    ok = false;
  }
  double outer = s->scope >= 0 ? s->scopes[s->scope].count : 1;
  if (ok && outer * (double)trips > MAX_COUNT) { /* R-DIM-006 */
    diag_report(s->diags, SEV_ERROR, NULL, st->loop.count->loc,
                "%s count makes %g executions per step, more than the limit "
                "of %g",
                word_of(st), outer * (double)trips, MAX_COUNT);
    ok = false;
  }
  if (!ok) trips = 1; /* still analyse the body, once */
  Scope moe = {0};
  if (st->kind == ST_EXPERTS) {
    if (in_experts(s, st)) return;
    moe = experts_header(s, st, trips);
    trips = 1; /* runs once: the experts are its weights' copies */
  }
  Model *m = s->m;
  int cap = s->cap_scopes;
  grow((void **)&s->scopes, &cap, m->nscopes + 1, sizeof *s->scopes);
  cap = s->cap_scopes;
  grow((void **)&s->carried, &cap, m->nscopes + 1, sizeof *s->carried);
  s->cap_scopes = cap;
  int id = m->nscopes++;
  Loc count_loc = st->kind == ST_EXPERTS ? st->experts.top->loc
                                         : st->loop.count->loc;
  s->scopes[id] = (Scope){.parent = s->scope, .is_loop = is_loop,
                          .trips = trips, .count = outer * (double)trips,
                          .loc = span(st->loc, count_loc),
                          .experts = moe.experts, .top = moe.top,
                          .capacity_factor = moe.capacity_factor,
                          .imbalance = moe.imbalance, .n_group = moe.n_group,
                          .topk_group = moe.topk_group};
  s->carried[id] = (CarriedList){0};
  int saved = s->scope;
  s->scope = id;
  int ck = recompute_body(s, st)
               ? checkpoint_open(s, s->scopes[id].loc,
                                 s->overrides->recompute == RECOMPUTE_SELECTIVE)
               : -1;
  model_block(s, &st->loop.body, false);
  if (ck >= 0) checkpoint_close(s, ck);
  check_carried(s, id);
  s->scope = saved;
}

static void fused_stmt(Sema *s, const Stmt *st) {
  Loc header = span(st->loc, st->def.name.loc);
  if (s->region >= 0) {
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, header,
                          "fused region '%s' is nested inside fused region "
                          "'%s'; regions do not nest",
                          st->def.name.name, s->regions[s->region].name);
    diag_note(d, s->regions[s->region].loc, "region '%s' starts here",
              s->regions[s->region].name);
    return;
  }
  Model *m = s->m;
  grow((void **)&s->regions, &s->cap_regions, m->nregions + 1,
       sizeof *s->regions);
  int id = m->nregions++;
  s->regions[id] = (Region){.name = st->def.name.name, .loc = header,
                            .scope = s->scope};
  s->region = id;
  model_block(s, &st->def.body, false);
  s->region = -1;
}

/* R-PAR-010: `checkpoint { }` marks the nodes of its body; blocks do not
 * nest, nor stand inside a fused region (a fused kernel keeps nothing of
 * its own to recompute). */
static void checkpoint_stmt(Sema *s, const Stmt *st) {
  Loc header = st->def.kind.loc;
  if (s->ckpt >= 0 || s->region >= 0) {
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, header,
                          s->ckpt >= 0 ? "checkpoint blocks do not nest"
                                       : "a checkpoint block cannot stand "
                                         "inside a fused region");
    diag_note(d, s->ckpt >= 0 ? s->ckpts[s->ckpt].loc : s->regions[s->region].loc,
              "the enclosing block starts here");
    return;
  }
  /* R-PAR-014: `checkpoint selective { }` recomputes its attention core */
  bool selective = strcmp(st->def.name.name, "checkpoint") != 0;
  if (selective && strcmp(st->def.name.name, "selective") != 0) {
    diag_report(s->diags, SEV_ERROR, NULL, st->def.name.loc,
                "'checkpoint' takes 'selective' or nothing, not '%s'",
                st->def.name.name);
    return;
  }
  int id = checkpoint_open(s, header, selective);
  model_block(s, &st->def.body, false);
  checkpoint_close(s, id);
}

static void misplaced(Sema *s, const Stmt *st, const char *fmt) {
  diag_report(s->diags, SEV_ERROR, NULL, st->loc, fmt, word_of(st));
}

static void model_stmt(Sema *s, const Stmt *st, bool top) {
  switch (st->kind) {
  case ST_DECL:
    decl(s, st);
    return;
  case ST_ASSIGN: {
    const Expr *v = st->assign.value;
    int node = -1;
    if (v->kind == EX_CALL) {
      node = apply_call(s, st, v, st->assign.name.name);
    } else if (v->kind == EX_NAME) { /* an alias (R-NAME-008): no node */
      bool poisoned = false;
      const Binding *b = tensor_operand(s, v, &poisoned);
      if (b) node = b->node;
    } else if (v->kind != EX_ERROR) {
      diag_report(s->diags, SEV_ERROR, NULL, v->loc,
                  "expected an op application, like '%s = relu(x)'",
                  st->assign.name.name);
    }
    bind(s, &st->assign.name, node);
    return;
  }
  case ST_UNPACK: {
    const Expr *v = st->unpack.value;
    int n = st->unpack.nnames;
    int *nodes = arena_alloc(s->bindings, (size_t)n * sizeof *nodes);
    for (int i = 0; i < n; i++) nodes[i] = -1;
    if (v->kind == EX_CALL)
      apply_results(s, st, v, NULL, st->unpack.names, n, nodes);
    else if (v->kind != EX_ERROR)
      diag_report(s->diags, SEV_ERROR, NULL, v->loc,
                  "expected an op application with %d results, like "
                  "'%s, %s = split(x, 2, axis=-1)'",
                  n, st->unpack.names[0].name, st->unpack.names[1].name);
    for (int i = 0; i < n; i++) bind(s, &st->unpack.names[i], nodes[i]);
    return;
  }
  case ST_REPEAT:
  case ST_LOOP:
  case ST_EXPERTS:
    scope_stmt(s, st);
    return;
  case ST_FUSED:
    fused_stmt(s, st);
    return;
  case ST_CHECKPOINT:
    checkpoint_stmt(s, st);
    return;
  case ST_OUTPUT:
    output(s, st);
    return;
  case ST_DTYPE:
  case ST_DTYPE_CLASS:
  case ST_MODE:
  case ST_PARALLEL:
    if (!top)
      misplaced(s, st, "'%s' belongs directly in the model body, not inside "
                       "repeat, loop or fused");
    return; /* model-level ones were read before the walk */
  case ST_LET:
    misplaced(s, st, "'%s' is only allowed at the top level, before the "
                     "models");
    return;
  case ST_TARGET_USE:
  case ST_TARGET_DEF:
    misplaced(s, st, "'%s' is only allowed at the top level");
    return;
  case ST_MODEL:
    diag_report(s->diags, SEV_ERROR, NULL, st->def.kind.loc,
                "a model cannot contain another model");
    return;
  case ST_SECTION:
    diag_report(s->diags, SEV_ERROR, NULL, st->def.kind.loc,
                "'%s' sections belong in a target definition, not a model",
                st->def.kind.name);
    return;
  case ST_ERROR:
    return;
  }
}

/* Model bodies are consumed this many statements at a time: a release
 * walks the tree's chunk list, so it comes after many statements, not
 * after each (a release frees only whole big chunks anyway); but often
 * enough (a statement is a few hundred bytes of tree) that each big chunk
 * of the tree goes to the nodes soon after it has been read, not after
 * several more chunks of it. */
enum { RELEASE_EVERY = 1 << 13 };

/* Consuming (s->tree set): the parser allocates a statement after its
 * parts, and a body's statements in source order, so everything allocated
 * after items[0] and before items[i] belongs to statements read already;
 * nothing reads a body statement after the walk. */
static void model_block(Sema *s, const Block *b, bool top) {
  for (int i = 0; i < b->n; i++) {
    model_stmt(s, b->items[i], top);
    if (top && s->tree && i % RELEASE_EVERY == RELEASE_EVERY - 1) {
      /* The nodes not made yet hold only zeros: the tree's pages go there
       * (past what they went to before), so the model's nodes, which the
       * body fills in order, are mostly written on memory already
       * touched. */
      char *lo = (char *)&s->nodes[s->m->nnodes];
      if (s->fed && (char *)s->fed > lo) lo = s->fed;
      s->fed = arena_release_into(s->tree, b->items[0], b->items[i], s->arena,
                                  lo, &s->nodes[s->cap_nodes]);
    }
  }
}

/* R-KW-006, R-PAR-001: each key a row of parallel_keys (parallel.c). */
/* A key no `parallel` block takes: the closest one, else all of them. */
static void unknown_parallel_key(Sema *s, const Ident *key,
                                 const char *const *names) {
  const char *sug = util_suggest(key->name, names);
  StrBuf want = {0};
  for (int j = 0; names[j]; j++)
    sb_printf(&want, "%s%s", j == 0 ? "" : names[j + 1] ? ", " : " or ",
              names[j]);
  Diag *d = diag_report(s->diags, SEV_ERROR, NULL, key->loc,
                        sug ? "unknown parallel key '%s'; did you mean "
                              "'%s'?"
                            : "unknown parallel key '%s' (expected %s)",
                        key->name, sug ? sug : sb_str(&want));
  sb_free(&want);
  if (sug) diag_fixit(d, key->loc, sug);
}

static void parallel_stmt(Sema *s, const Stmt *st) {
  Parallel *p = &s->m->parallel;
  parallel_default(p);
  enum { NK = 16 };
  const char *names[NK + 1];
  Loc seen[NK];
  bool given[NK];
  for (int k = 0; k < parallel_nkeys && k < NK; k++) {
    names[k] = parallel_keys[k].name;
    seen[k] = LOC_NONE;
    given[k] = false;
  }
  names[parallel_nkeys < NK ? parallel_nkeys : NK] = NULL;
  for (int i = 0; i < st->parallel.n; i++) {
    const Stmt *kv = st->parallel.items[i];
    if (kv->kind == ST_ERROR) continue;
    if (kv->kind != ST_ASSIGN) {
      diag_report(s->diags, SEV_ERROR, NULL, kv->loc,
                  "expected 'key = value' in parallel, like 'nodes = 2'");
      continue;
    }
    const Ident *key = &kv->assign.name;
    int k = 0;
    while (names[k] && strcmp(names[k], key->name) != 0) k++;
    if (!names[k]) {
      unknown_parallel_key(s, key, names);
      continue;
    }
    if (seen[k].file >= 0) {
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, key->loc,
                            "duplicate parallel key '%s'", key->name);
      diag_note(d, seen[k], "first given here");
      continue;
    }
    seen[k] = key->loc;
    const ParallelKey *pk = &parallel_keys[k];
    const Expr *e = kv->assign.value;
    if (pk->boolean) {
      if (e->kind != EX_BOOL) {
        diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                    "parallel '%s' takes true or false", key->name);
        continue;
      }
      *(bool *)((char *)p + pk->offset) = e->ival != 0;
      if (pk->offset == offsetof(Parallel, sequence_parallel))
        p->sequence_parallel_loc = key->loc;
      given[k] = true;
      continue;
    }
    int64_t v;
    if (!eval_int(s, e, NUM_VALUE, &v)) continue;
    if (v < pk->min) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  pk->min == 1
                      ? "parallel '%s' must be a positive integer, got %lld"
                      : "parallel '%s' must be at least 0, got %lld",
                  key->name, (long long)v);
      continue;
    }
    if (v > pk->max) { /* R-KW-006 */
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "parallel '%s' must be at most %lld, got %lld", key->name,
                  (long long)pk->max, (long long)v);
      continue;
    }
    *(int64_t *)(void *)((char *)p + pk->offset) = v;
    if (pk->offset == offsetof(Parallel, microbatches)) p->microbatches_loc = key->loc;
    given[k] = true;
  }
  p->present = true;
  p->loc = st->loc;
  parallel_resolve(p, given, st->loc, s->diags);
}

/* Graph nodes block b makes: a name of a declaration and an assignment one
 * each, a repeat, loop or fused body its own (once, whatever the count).
 * Counted before the walk, so that the node array is one exact allocation
 * and a file over SEMA_MAX_NODES allocates nothing (R-SCOPE-005). */
/* Applications in a value: a call and those nested in its arguments
 * (R-NEST-001).  The recursion is as deep as the calls nest, which the
 * parser bounds. */
static int64_t calls_in(const Expr *e) {
  int64_t n = 0;
  if (e->kind == EX_LIST)
    for (int i = 0; i < e->list.n; i++) n += calls_in(e->list.items[i]);
  if (e->kind == EX_CALL) {
    n = 1;
    for (int i = 0; i < e->call.nargs; i++) n += calls_in(e->call.args[i].value);
  }
  return n;
}

/* The nodes an assignment's value makes, at least 1 (an alias makes none,
 * so this is a bound). */
static int64_t call_nodes(const Expr *e) {
  int64_t n = calls_in(e);
  return n > 0 ? n : 1;
}

static int64_t block_nodes(const Block *b) {
  int64_t n = 0;
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->items[i];
    switch (st->kind) {
    case ST_DECL: n += st->decl.nnames; break;
    case ST_ASSIGN: n += call_nodes(st->assign.value); break;
    case ST_UNPACK: n += st->unpack.nnames + call_nodes(st->unpack.value); break;
    case ST_REPEAT:
    case ST_LOOP:
    case ST_EXPERTS: n += block_nodes(&st->loop.body); break;
    case ST_FUSED:
    case ST_CHECKPOINT: n += block_nodes(&st->def.body); break;
    default: break;
    }
  }
  return n;
}

/* dtype, mode and parallel apply to the whole model wherever they are
 * written in its body, so they are read before the walk. */
/* R-PLAN-006: `dtype CLASS = DT`, one recipe entry; `first` holds where
 * each class was first given. */
static void dtype_class_stmt(Sema *s, const Stmt *st, Loc *first) {
  static const char *const classes[] = {"elementwise", "reduction",
                                        "contraction", NULL};
  static const OpClass ids[] = {OC_ELEMENTWISE, OC_REDUCTION, OC_CONTRACTION};
  const Ident *c = &st->let.name;
  int k = 0;
  while (classes[k] && strcmp(classes[k], c->name) != 0) k++;
  if (!classes[k]) {
    const char *sug = util_suggest(c->name, classes);
    Diag *d = diag_report(
        s->diags, SEV_ERROR, NULL, c->loc,
        sug ? "unknown op class '%s' in a dtype recipe; did you mean '%s'?"
            : "unknown op class '%s' in a dtype recipe (expected "
              "elementwise, reduction or contraction)",
        c->name, sug);
    if (sug) diag_fixit(d, c->loc, sug);
    return;
  }
  OpClass oc = ids[k];
  if (first[oc].file >= 0) {
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, st->loc,
                          "duplicate 'dtype %s' in model '%s'", c->name,
                          s->m->name);
    diag_note(d, first[oc], "first given here");
    return;
  }
  first[oc] = st->loc;
  const Expr *v = st->let.value;
  s->m->class_given[oc] =
      parse_dtype(s, name_of(s, v), v->loc, true, &s->m->class_dtype[oc]);
}

static void model_settings(Sema *s, const Block *body) {
  Model *m = s->m;
  Loc mode_loc = LOC_NONE;
  Loc class_loc[OC__COUNT];
  for (int c = 0; c < OC__COUNT; c++) class_loc[c] = LOC_NONE;
  for (int i = 0; i < body->n; i++) {
    const Stmt *st = body->items[i];
    if (st->kind == ST_DTYPE_CLASS) {
      dtype_class_stmt(s, st, class_loc);
      continue;
    }
    Loc *first = st->kind == ST_DTYPE   ? &m->dtype_loc
                 : st->kind == ST_MODE  ? &mode_loc
                 : st->kind == ST_PARALLEL ? &m->parallel.loc
                                           : NULL;
    if (!first) continue;
    if (first->file >= 0) {
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, st->loc,
                            "duplicate '%s' in model '%s'", word_of(st),
                            m->name);
      diag_note(d, *first, "first given here");
      continue;
    }
    if (st->kind == ST_DTYPE) {
      /* set even after an error, so a second statement is a duplicate */
      m->dtype_loc = st->loc;
      parse_dtype(s, st->word.name, st->word.loc, true, &m->dtype);
    } else if (st->kind == ST_MODE) {
      static const char *const modes[] = {"inference", "train", NULL};
      mode_loc = st->loc;
      if (strcmp(st->word.name, "train") == 0) {
        m->train = true;
      } else if (strcmp(st->word.name, "inference") != 0) {
        const char *sug = util_suggest(st->word.name, modes);
        Diag *d = diag_report(s->diags, SEV_ERROR, NULL, st->word.loc,
                              sug ? "unknown mode '%s'; did you mean '%s'?"
                                  : "unknown mode '%s' (expected inference "
                                    "or train)",
                              st->word.name, sug);
        if (sug) diag_fixit(d, st->word.loc, sug);
      }
    } else {
      parallel_stmt(s, st);
    }
  }
}

static void analyze_model(Sema *s, const Stmt *st, Model *m) {
  memset(m, 0, sizeof *m);
  m->name = st->def.name.name;
  m->loc = st->def.name.loc;
  m->file = st->loc.file;
  m->dtype = DT_BF16;
  m->dtype_loc = LOC_NONE;
  parallel_default(&m->parallel);
  s->m = m;
  s->bindings = arena_new();
  /* One exact allocation: nodes are big and a model may have millions. */
  int64_t need = block_nodes(&st->def.body);
  if (s->total_nodes + need > SEMA_MAX_NODES) {
    /* A hostile file must not make us allocate gigabytes (R-SCOPE-005). */
    diag_report(s->diags, SEV_ERROR, NULL, m->loc,
                "model '%s' brings the file to %lld nodes, more than the "
                "limit of %d",
                m->name, (long long)(s->total_nodes + need), SEMA_MAX_NODES);
    m->nodes = arena_alloc(s->arena, sizeof *m->nodes);
    arena_free(s->bindings);
    s->m = NULL;
    return;
  }
  s->cap_nodes = (int)need;
  s->total_nodes += s->cap_nodes;
  s->nodes = arena_alloc(s->arena, (size_t)(s->cap_nodes ? s->cap_nodes : 1) *
                                       sizeof *s->nodes);
  m->nodes = s->nodes;
  s->fed = NULL;
  s->scopes = NULL;
  s->carried = NULL;
  s->cap_scopes = 0;
  s->regions = NULL;
  s->cap_regions = 0;
  s->ckpts = NULL;
  s->cap_ckpts = 0;
  s->carries = NULL;
  s->cap_carries = 0;
  s->scope = s->region = s->ckpt = -1;

  model_settings(s, &st->def.body);
  /* --dtype what-if (plan.c): the plan changes, explicit dtypes stay. */
  if (s->overrides && s->overrides->what_if) m->dtype = s->overrides->plan_dtype;
  if (s->overrides && s->overrides->what_if_recipe) { /* R-PLAN-007 */
    m->class_given[s->overrides->recipe_class] = true;
    m->class_dtype[s->overrides->recipe_class] = s->overrides->recipe_dtype;
  }
  if (s->overrides && s->overrides->sequence_parallel) /* R-CHK-084 */
    m->parallel.sequence_parallel = true;
  model_block(s, &st->def.body, true);

  /* apply() counted consumers and cleared is_output of what was read */
  for (int i = 0; i < s->noutputs; i++) s->nodes[s->outputs[i]].is_output = true;
  s->noutputs = 0;
  m->scopes = m->nscopes ? arena_memdup(s->arena, s->scopes,
                                        (size_t)m->nscopes * sizeof *s->scopes)
                         : NULL;
  m->regions = m->nregions
                   ? arena_memdup(s->arena, s->regions,
                                  (size_t)m->nregions * sizeof *s->regions)
                   : NULL;
  m->ckpts = m->nckpts ? arena_memdup(s->arena, s->ckpts,
                                      (size_t)m->nckpts * sizeof *s->ckpts)
                       : NULL;
  free(s->ckpts);
  m->carries = m->ncarries ? arena_memdup(s->arena, s->carries,
                                          (size_t)m->ncarries * sizeof *s->carries)
                           : NULL;
  free(s->carries);
  parallel_check_experts(m, s->diags);  /* R-PAR-001 */
  parallel_check_partials(m, s->diags); /* R-PAR-008 */
  parallel_check_pipeline(m, s->diags); /* R-PAR-009 */
  free(s->scopes);
  free(s->carried);
  free(s->regions);
  for (int i = 0; i < s->nbound; i++) s->byid[s->bound[i]] = NULL;
  s->nbound = 0;
  arena_scratch_end(s->bindings, s->arena); /* its pages serve what comes next */
  s->m = NULL;
}

static void let_stmt(Sema *s, const Stmt *st) {
  const Ident *name = &st->let.name;
  const Let *prev = let_of(s, name->id);
  if (prev) {
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, name->loc,
                          "redefinition of let '%s'", name->name);
    diag_note(d, prev->loc, "first defined here");
    return;
  }
  Let *l = arena_alloc(s->arena, sizeof *l);
  l->loc = name->loc;
  LetOverride *o = NULL;
  for (int i = 0; s->overrides && i < s->overrides->n; i++)
    if (strcmp(s->overrides->overrides[i].name, name->name) == 0)
      o = &s->overrides->overrides[i];
  if (o) {
    o->used = true;
    l->v = o->value;
    l->ok = true;
    l->from_d = true;
  } else {
    l->ok = eval_num(s, st->let.value, NUM_VALUE, &l->v);
  }
  if (name->id >= 0 && name->id < s->nnames) s->let_byid[name->id] = l;
  grow((void **)&s->let_names, &s->cap_lets, s->nlets + 2,
       sizeof *s->let_names);
  grow((void **)&s->let_ids, &s->cap_let_ids, s->nlets + 1, sizeof *s->let_ids);
  s->let_ids[s->nlets] = name->id;
  s->let_names[s->nlets++] = name->name;
  s->let_names[s->nlets] = NULL;
}

static const Stmt **push_stmt(const Stmt **v, int *n, int *cap,
                              const Stmt *st) {
  grow((void **)&v, cap, *n + 1, sizeof *v);
  v[(*n)++] = st;
  return v;
}

Bindings *bindings_with(Arena *a, const Bindings *b, const LetOverride *add) {
  int n = b ? b->n : 0;
  Bindings *nb = arena_alloc(a, sizeof *nb);
  nb->overrides = arena_alloc(a, (size_t)(n + 1) * sizeof *nb->overrides);
  for (int i = 0; i < n; i++)
    if (!add || strcmp(b->overrides[i].name, add->name) != 0)
      nb->overrides[nb->n++] = b->overrides[i];
  if (add) nb->overrides[nb->n++] = *add;
  if (b) { /* a --dtype what-if stays one */
    nb->what_if = b->what_if;
    nb->plan_dtype = b->plan_dtype;
    nb->what_if_recipe = b->what_if_recipe;
    nb->recipe_class = b->recipe_class;
    nb->recipe_dtype = b->recipe_dtype;
    nb->recompute = b->recompute;
    nb->sequence_parallel = b->sequence_parallel;
  }
  return nb;
}

Unit *sema_analyze(Arena *a, const Program *p, Bindings *b, DiagSink *diags) {
  return sema_analyze_consuming(a, p, NULL, b, diags);
}

static void sema_init(Sema *s, Arena *a, const Program *p, Arena *tree,
                      Bindings *b, DiagSink *diags) {
  memset(s, 0, sizeof *s);
  s->arena = a;
  s->tree = tree;
  s->diags = diags;
  s->overrides = b;
  s->nnames = p->nnames;
  s->names = p->names;
  s->let_byid = xcalloc((size_t)p->nnames + 1, sizeof *s->let_byid);
  /* In the arena: a big block of it comes zeroed from the kernel, so only
   * the pages of the few ops' slots are ever touched. */
  s->op_byid = arena_alloc(a, ((size_t)p->nnames + 1) * sizeof *s->op_byid);
  s->suggest_budget = SUGGEST_BUDGET;
  grow((void **)&s->let_names, &s->cap_lets, 1, sizeof *s->let_names);
  s->let_names[0] = NULL;
  s->top = &p->top;
}

static void sema_free(Sema *s) {
  free(s->in);
  free(s->in_locs);
  free(s->in_ids);
  free(s->pos);
  free(s->let_names);
  free(s->types);
  free(s->byid);
  free(s->outputs);
  free(s->nested);
  free(s->bound);
  free(s->let_byid);
  free(s->let_ids);
  free((void *)s->all_lets);
}

/* Each model in turn, into u->models; a name given twice is an error
 * (the names in a map: a file of many models stays linear). */
static void analyze_models(Sema *s, const Stmt **models, int nmodels,
                           Unit *u) {
  StrMap seen;
  strmap_init(&seen);
  for (int i = 0; i < nmodels; i++) {
    const Ident *name = &models[i]->def.name;
    const Stmt *first = strmap_get(&seen, name->name);
    if (first) {
      Diag *d = diag_report(s->diags, SEV_ERROR, NULL, name->loc,
                            "redefinition of model '%s'", name->name);
      diag_note(d, first->def.name.loc, "first defined here");
    } else {
      strmap_put(&seen, name->name, (void *)models[i]);
    }
    analyze_model(s, models[i], &u->models[u->nmodels++]);
  }
  strmap_free(&seen);
}

Unit *sema_analyze_consuming(Arena *a, const Program *p, Arena *tree,
                             Bindings *b, DiagSink *diags) {
  Unit *u = arena_alloc(a, sizeof *u);
  u->file = p->file;
  u->target_loc = LOC_NONE;
  if (p->nsyntax_errors > 0) return u;
  Sema s;
  sema_init(&s, a, p, tree, b, diags);

  const Stmt **models = NULL, **defs = NULL;
  int nmodels = 0, cap_models = 0, cap_defs = 0;
  const Block *top = &p->top;
  for (int i = 0; i < top->n; i++) {
    const Stmt *st = top->items[i];
    switch (st->kind) {
    case ST_LET: let_stmt(&s, st); break;
    case ST_MODEL: models = push_stmt(models, &nmodels, &cap_models, st); break;
    case ST_TARGET_DEF:
      defs = push_stmt(defs, &u->ntarget_defs, &cap_defs, st);
      break;
    case ST_TARGET_USE:
      if (u->target_name) {
        Diag *d = diag_report(diags, SEV_ERROR, NULL, st->loc,
                              "a second 'target' for this file");
        diag_note(d, u->target_loc, "the target is first chosen here");
      } else {
        u->target_name = st->target_use.name;
        u->target_loc = st->target_use.loc;
      }
      break;
    case ST_SECTION:
      diag_report(diags, SEV_ERROR, NULL, st->def.kind.loc,
                  "'%s' sections belong in a target definition",
                  st->def.kind.name);
      break;
    case ST_ASSIGN:
      diag_report(diags, SEV_ERROR, NULL, st->loc,
                  "'%s = ...' outside a model; use 'let %s = ...' for a "
                  "constant",
                  st->assign.name.name, st->assign.name.name);
      break;
    case ST_ERROR: break;
    default:
      misplaced(&s, st, "'%s' is only allowed inside a model");
      break;
    }
  }
  if (defs)
    u->target_defs = arena_memdup(a, defs, (size_t)u->ntarget_defs * sizeof *defs);
  u->lets = arena_alloc(a, (size_t)(s.nlets + 1) * sizeof *u->lets);
  for (int i = 0; i < s.nlets; i++) {
    const Let *l = let_of(&s, s.let_ids[i]);
    u->lets[u->nlets++] = (LetDef){.name = s.let_names[i], .loc = l->loc,
                                   .value = l->v, .ok = l->ok};
  }
  u->models = arena_alloc(a, (size_t)(nmodels ? nmodels : 1) * sizeof *u->models);
  s.byid = nmodels ? xcalloc((size_t)p->nnames, sizeof *s.byid) : NULL;
  analyze_models(&s, models, nmodels, u);
  free(models);
  free(defs);
  sema_free(&s);
  return u;
}

/* ---------------------------------------------------------------------- */
/* --dump graph                                                            */
/* ---------------------------------------------------------------------- */

static void dump_loc(const SourceSet *ss, Loc l, FILE *out) {
  int line = 0, col = 0;
  if (l.file >= 0) src_linecol(src_file(ss, l.file), l.start, &line, &col);
  fprintf(out, "%d:%d", line, col);
}

void graph_dump(const Unit *u, const SourceSet *ss, FILE *out) {
  char buf[256];
  for (int mi = 0; mi < u->nmodels; mi++) {
    const Model *m = &u->models[mi];
    fprintf(out, "model %s: dtype %s, mode %s, %d nodes, %d scopes, %d regions",
            m->name, dtype_str(m->dtype), m->train ? "train" : "inference",
            m->nnodes, m->nscopes, m->nregions);
    if (m->parallel.present) {
      fprintf(out, ", parallel %lldx%lld data %lld",
              (long long)m->parallel.nodes, (long long)m->parallel.gpus_per_node,
              (long long)m->parallel.data);
      /* the other keys when not at their default (R-PAR-001) */
      for (int k = 3; k < parallel_nkeys; k++) {
        const ParallelKey *pk = &parallel_keys[k];
        const char *at = (const char *)&m->parallel + pk->offset;
        int64_t v = pk->boolean ? *(const bool *)at
                                : *(const int64_t *)(const void *)at;
        if (v != pk->def) fprintf(out, " %s %lld", pk->name, (long long)v);
      }
    }
    if (m->nckpts > 0) fprintf(out, ", %d checkpoint blocks", m->nckpts);
    fputc('\n', out);
    for (int i = 0; i < m->nscopes; i++) {
      const Scope *sc = &m->scopes[i];
      if (sc->experts) /* R-MOE-001 */
        fprintf(out, "  scope %d: experts %lld top %lld capacity_factor %g "
                     "imbalance %g x%.17g parent %d at ",
                i, (long long)sc->experts, (long long)sc->top,
                sc->capacity_factor, sc->imbalance, sc->count, sc->parent);
      else
        fprintf(out, "  scope %d: %s %lld x%.17g parent %d at ", i,
                sc->is_loop ? "loop" : "repeat", (long long)sc->trips,
                sc->count, sc->parent);
      dump_loc(ss, sc->loc, out);
      fputc('\n', out);
    }
    for (int i = 0; i < m->nregions; i++) {
      fprintf(out, "  region %d: %s scope %d at ", i, m->regions[i].name,
              m->regions[i].scope);
      dump_loc(ss, m->regions[i].loc, out);
      fputc('\n', out);
    }
    for (int i = 0; i < m->nnodes; i++) {
      const GNode *g = &m->nodes[i];
      fprintf(out, "  %%%d %s: %s %s(", i, g->name, role_str(g->role),
              g->op ? g->op->name : "decl");
      for (int j = 0; j < g->ninputs; j++)
        fprintf(out, "%s%%%d", j ? ", " : "", g->inputs[j]);
      fprintf(out, ") -> %s", op_type_str(buf, sizeof buf, g->type));
      if (g->precision != DT_NONE)
        fprintf(out, " precision %s%s", dtype_str(g->precision),
                g->precision_explicit ? "!" : "");
      fprintf(out, " x%.17g", g->count);
      if (g->scope >= 0) fprintf(out, " scope %d", g->scope);
      if (g->region >= 0) fprintf(out, " region %s", m->regions[g->region].name);
      fprintf(out, " consumers %d", g->nconsumers);
      if (g->is_output) fputs(" output", out);
      if (g->loop_carried) fputs(" carried", out);
      fputs(" at ", out);
      dump_loc(ss, g->loc, out);
      fputc('\n', out);
    }
  }
}
