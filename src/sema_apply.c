/* SPDX-License-Identifier: MIT */
/*
 * sema_apply.c: one application of an op: its positional arguments read
 * by the op's form, its keywords by the op's keyword table, its inner
 * calls applied first (R-NEST-001), its shape rule run, and its node
 * appended.  sema.c walks the statements and calls in here for each
 * application.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sema.h"

/* R-SYN-015: a unary minus where a tensor is expected, said with what it
 * stands before (a tensor wants neg(), a number is no tensor). */
static void unary_operand(Sema *s, const Expr *e) {
  const Expr *x = e->un.operand;
  const char *what = expr_kind_str(x->kind);
  const char *fix = "";
  if (x->kind == EX_NAME && *binding_slot(s, x->name.id)) {
    what = arena_printf(s->arena, "the tensor '%s'", name_of(s, x));
    fix = arena_printf(s->arena, ": a unary minus applies to numbers; write "
                                 "neg(%s)", name_of(s, x));
  } else if (x->kind == EX_NAME && is_let_name(s, x->name.id)) {
    what = arena_printf(s->arena, "the let '%s' (a number)", name_of(s, x));
  } else if (x->kind == EX_NAME) {
    what = arena_printf(s->arena, "the unknown name '%s'", name_of(s, x));
  } else if (x->kind == EX_CALL) {
    what = arena_printf(s->arena, "a call of %s()", s->names[x->call.callee]);
    fix = arena_printf(s->arena, ": write neg(%s(...))", s->names[x->call.callee]);
  } else if (x->kind == EX_STRING) {
    what = "a string";
  } else if (x->kind == EX_LIST) {
    what = "a list";
  }
  diag_report(s->diags, SEV_ERROR, NULL, e->loc,
              "expected a tensor name, got '-' before %s%s", what, fix);
}

/* Resolves a tensor operand.  Returns the binding, or NULL after an error
 * (*poisoned set instead when the name exists but its statement failed). */
const Binding *tensor_operand(Sema *s, const Expr *e, bool *poisoned) {
  if (e->kind == EX_ERROR) {
    *poisoned = true;
    return NULL;
  }
  if (e->kind == EX_UNARY) {
    unary_operand(s, e);
    return NULL;
  }
  if (e->kind != EX_NAME) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "expected a tensor name, got %s", expr_kind_str(e->kind));
    return NULL;
  }
  const Binding *b = *binding_slot(s, e->name.id);
  if (b) {
    if (b->node < 0) *poisoned = true;
    return b->node < 0 ? NULL : b;
  }
  if (is_let_name(s, e->name.id)) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "'%s' is a let (a number), not a tensor", name_of(s, e));
    return NULL;
  }
  unknown_name(s, e->loc, "name", name_of(s, e), s->nbound, bound_candidates);
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Op applications.                                                        */
/* ---------------------------------------------------------------------- */

/* Where each keyword lands in OpArgs, and its smallest legal value. */
typedef struct KwField {
  const char *name;
  size_t offset;
  int64_t min;
} KwField;

static const KwField kw_fields[] = {
    {"axis", offsetof(OpArgs, axis), INT64_MIN},
    {"stride", offsetof(OpArgs, stride), 1},
    {"padding", offsetof(OpArgs, padding), 0},
    {"dilation", offsetof(OpArgs, dilation), 1},
    {"kernel", offsetof(OpArgs, kernel), 1},
    {"groups", offsetof(OpArgs, groups), 1},
    {"causal", offsetof(OpArgs, causal), 0},
    {"alibi", offsetof(OpArgs, alibi), 0},
    {"sinks", offsetof(OpArgs, sinks), 0},
    {"ceil_mode", offsetof(OpArgs, ceil_mode), 0},
    {"keepdims", offsetof(OpArgs, keepdims), 0},
    {"blocks", offsetof(OpArgs, blocks), 1},
    {"precision", offsetof(OpArgs, precision), 0},
    {"out", offsetof(OpArgs, out_dtype), 0},
    {"flops", offsetof(OpArgs, custom_flops), 0},
    {"bytes", offsetof(OpArgs, custom_bytes), 0},
    {"output_padding", offsetof(OpArgs, output_padding), 0},
    {"approximate", offsetof(OpArgs, approximate), 0},
    {"min", offsetof(OpArgs, clip_min), INT64_MIN},
    {"max", offsetof(OpArgs, clip_max), INT64_MIN},
    {"epsilon", offsetof(OpArgs, epsilon), 0},
    {"bias", offsetof(OpArgs, bias), 0},
    {"start", offsetof(OpArgs, start), INT64_MIN},
    {"end", offsetof(OpArgs, end), INT64_MIN},
    {"step", offsetof(OpArgs, step), 1},
    {"index", offsetof(OpArgs, index), INT64_MIN},
    {"scale", offsetof(OpArgs, scale), 1},
    {"size", offsetof(OpArgs, size), 1},
    {"mode", offsetof(OpArgs, mode), 0},
    {"value", offsetof(OpArgs, value), INT64_MIN}, /* a real, any sign */
    {"group", offsetof(OpArgs, group), 0},
    {"hidden", offsetof(OpArgs, hidden), 1},
    {"layers", offsetof(OpArgs, layers), 1},
    {"direction", offsetof(OpArgs, direction), 0},
    {"batch_first", offsetof(OpArgs, batch_first), 0},
};

static const KwDesc kw_common[] = {{"blocks", KW_INT, false, 0, NULL},
                                   {"precision", KW_DTYPE, false, 0, NULL},
                                   {NULL, 0, false, 0, NULL}};

/* R-KW-008: out=DTYPE, the result's storage dtype, on an op that computes
 * (an elementwise op but cast, a reduction, a contraction); custom's own
 * out= is a whole type. */
static const KwDesc kw_out[] = {{"out", KW_DTYPE, false, 0, NULL},
                                {NULL, 0, false, 0, NULL}};

static bool takes_out(const OpDesc *op) {
  for (const KwDesc *k = op->keywords; k->name; k++)
    if (strcmp(k->name, "out") == 0) return false;
  return (op->cls == OC_ELEMENTWISE && !(op->flags & OPF_CAST)) ||
         op->cls == OC_REDUCTION || op->cls == OC_CONTRACTION;
}

#define MAX_KW 16
#define SPLIT_MAX_PARTS 65536

static const KwField *kw_field(const char *name) {
  for (size_t i = 0; i < sizeof kw_fields / sizeof kw_fields[0]; i++)
    if (strcmp(kw_fields[i].name, name) == 0) return &kw_fields[i];
  die("keyword '%s' has no OpArgs field", name);
}

/* What an application of an op needs that depends on the op alone, worked
 * out on its first application instead of by name on every one: a model
 * of a million ops applies a few dozen. */
struct OpInfo {
  const OpDesc *op;
  int nkw;
  int axis_kw; /* index of `axis` in kws, -1 if the op has none */
  /* The op's keywords then the common ones, as one list. */
  const KwDesc *kws[MAX_KW];
  const KwField *fields[MAX_KW]; /* NULL for KW_TYPE (no OpArgs field) */
  const OpArgs *last_args; /* the shared copy its last node got */
  OpArgs defaults;         /* memset first: padding compares equal */
};

static void kw_default(const KwDesc *k, const KwField *f, OpArgs *args) {
  if (strcmp(k->name, "precision") == 0 || strcmp(k->name, "blocks") == 0 ||
      strcmp(k->name, "out") == 0 ||
      k->type == KW_TYPE || k->type == KW_TENSOR ||
      (k->type == KW_REAL && k->required))
    return; /* DT_NONE / 0 / false already */
  char *p = (char *)args + f->offset;
  switch (k->type) {
  case KW_INT:
  case KW_WORD:
  case KW_CHOICE: *(int64_t *)p = k->def; break;
  case KW_INT_PAIR: ((int64_t *)p)[0] = ((int64_t *)p)[1] = k->def; break;
  case KW_INT_TRIPLE:
    for (int i = 0; i < 3; i++) ((int64_t *)p)[i] = k->def;
    break;
  case KW_REAL: *(double *)p = NAN; break; /* not given */
  case KW_BOOL: *(bool *)p = k->def != 0; break;
  default: break;
  }
}

static void op_info_init(OpInfo *info, const OpDesc *op) {
  memset(info, 0, sizeof *info);
  info->op = op;
  info->axis_kw = -1;
  memset(&info->defaults, 0, sizeof info->defaults);
  info->defaults.precision = DT_NONE;
  info->defaults.cast_to = DT_NONE;
  info->defaults.out_dtype = DT_NONE;
  int n = 0;
  for (const KwDesc *k = op->keywords; k->name; k++) info->kws[n++] = k;
  for (const KwDesc *k = kw_common; k->name; k++) info->kws[n++] = k;
  if (takes_out(op)) info->kws[n++] = kw_out;
  info->nkw = n;
  for (int i = 0; i < n; i++) {
    const KwDesc *k = info->kws[i];
    info->fields[i] = k->type == KW_TYPE ? NULL : kw_field(k->name);
    if (strcmp(k->name, "axis") == 0) info->axis_kw = i;
    kw_default(k, info->fields[i], &info->defaults);
  }
}

/* An application's arguments before its keywords are read: every
 * keyword at its default (an importer sizing a node it is about to write
 * starts from these, as sema does). */
void op_default_args(const OpDesc *op, OpArgs *args) {
  OpInfo info;
  op_info_init(&info, op);
  memcpy(args, &info.defaults, sizeof *args);
}

static bool kw_int_min(Sema *s, const KwDesc *k, const KwField *f,
                       const Expr *e, int64_t v) {
  int64_t min = f->min;
  if (v >= min) return true;
  diag_report(s->diags, SEV_ERROR, NULL, e->loc,
              "keyword '%s' must be at least %lld, got %lld", k->name,
              (long long)min, (long long)v);
  return false;
}

/* KW_INT_PAIR, KW_INT_TRIPLE: one integer for every dim, or a list of
 * one per dim. */
static bool kw_set_ints(Sema *s, const KwDesc *k, const KwField *f,
                        const Expr *e, int64_t *v) {
  int n = k->type == KW_INT_PAIR ? 2 : 3;
  if (e->kind != EX_LIST) {
    if (!eval_int(s, e, NUM_VALUE, &v[0]) || !kw_int_min(s, k, f, e, v[0])) return false;
    for (int i = 1; i < n; i++) v[i] = v[0];
    return true;
  }
  if (e->list.n != n) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "keyword '%s' takes one integer or %s, got a list of %d",
                k->name, n == 2 ? "[h, w]" : "[d, h, w]", e->list.n);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (!eval_int(s, e->list.items[i], NUM_VALUE, &v[i]) ||
        !kw_int_min(s, k, f, e->list.items[i], v[i]))
      return false;
  return true;
}

static bool kw_set_bool(Sema *s, const KwDesc *k, const Expr *e, bool *v) {
  if (e->kind != EX_BOOL) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "keyword '%s' takes true or false, got %s", k->name,
                e->kind == EX_INT    ? arena_printf(s->arena, "%lld", (long long)e->ival)
                : e->kind == EX_NAME ? arena_printf(s->arena, "'%s'", name_of(s, e))
                                     : expr_kind_str(e->kind));
    return false;
  }
  *v = e->ival != 0;
  return true;
}

/* `inf` or `-inf` written as such (R-LEX-014): its value, else 0. */
static double infinity_literal(const Expr *e) {
  if (e->kind == EX_UNARY && e->un.op == '-') return -infinity_literal(e->un.operand);
  return e->kind == EX_REAL && isinf(e->rval) ? e->rval : 0;
}

static bool kw_set_real(Sema *s, const KwDesc *k, const KwField *f,
                        const Expr *e, double *v) {
  /* a keyword of any sign (a bound, a fill) takes an infinity */
  double inf = f->min == INT64_MIN ? infinity_literal(e) : 0;
  if (inf != 0) {
    *v = inf;
    return true;
  }
  LetValue lv;
  if (!eval_num(s, e, NUM_VALUE, &lv)) return false;
  double d = lv.is_real ? lv.r : (double)lv.i;
  if (d < 0 && f->min >= 0) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "keyword '%s' must not be negative, got %g", k->name, d);
    return false;
  }
  if (fabs(d) > MAX_KW_REAL) { /* R-KW-004 */
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "keyword '%s' must be at most %g, got %g", k->name,
                MAX_KW_REAL, d);
    return false;
  }
  *v = d;
  return true;
}

/* R-KW-010: a string, one of the choices; *v its index. */
static bool kw_set_choice(Sema *s, const KwDesc *k, const Expr *e, int64_t *v) {
  for (int i = 0; e->kind == EX_STRING && k->choices[i]; i++)
    if (strcmp(e->str, k->choices[i]) == 0) {
      *v = i;
      return true;
    }
  StrBuf want = {0};
  for (int i = 0; k->choices[i]; i++)
    sb_printf(&want, "%s\"%s\"", i ? " or " : "", k->choices[i]);
  diag_report(s->diags, SEV_ERROR, NULL, e->loc,
              "keyword '%s' takes %s", k->name, sb_str(&want));
  sb_free(&want);
  return false;
}

/* R-PAR-003: a bare word, one of the choices; *v its index. */
static bool kw_set_word(Sema *s, const KwDesc *k, const Expr *e, int64_t *v) {
  for (int i = 0; e->kind == EX_NAME && k->choices[i]; i++)
    if (strcmp(name_of(s, e), k->choices[i]) == 0) {
      *v = i;
      return true;
    }
  StrBuf want = {0};
  for (int i = 0; k->choices[i]; i++)
    sb_printf(&want, "%s%s", i == 0 ? "" : k->choices[i + 1] ? ", " : " or ",
              k->choices[i]);
  Diag *d = diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                        "keyword '%s' takes %s", k->name, sb_str(&want));
  sb_free(&want);
  const char *sug = e->kind == EX_NAME ? util_suggest(name_of(s, e), k->choices) : NULL;
  if (sug) diag_fixit(d, e->loc, sug);
  return false;
}

static bool kw_set_int_list(Sema *s, const KwDesc *k, const KwField *f,
                            const Expr *e, int64_t *v) {
  if (e->kind != EX_LIST || e->list.n < 1 || e->list.n > MAX_RANK) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "keyword '%s' takes a list of 1 to %d integers, like [64, 64]",
                k->name, MAX_RANK);
    return false;
  }
  for (int i = 0; i < e->list.n; i++)
    if (!eval_int(s, e->list.items[i], NUM_VALUE, &v[i]) ||
        !kw_int_min(s, k, f, e->list.items[i], v[i]))
      return false;
  return true;
}

/* Stores one keyword's value; custom's out= type goes to *declared. */
static bool kw_set(Sema *s, const KwDesc *k, const KwField *f, const Expr *e,
                   OpArgs *args, TensorType *declared, Loc *dtype_loc) {
  if (k->type == KW_TYPE) return eval_type(s, e, declared, dtype_loc);
  char *p = (char *)args + f->offset;
  switch (k->type) {
  case KW_INT: {
    int64_t v;
    if (!eval_int(s, e, NUM_VALUE, &v) || !kw_int_min(s, k, f, e, v)) return false;
    *(int64_t *)p = v;
    return true;
  }
  case KW_INT_PAIR:
  case KW_INT_TRIPLE: return kw_set_ints(s, k, f, e, (int64_t *)p);
  case KW_BOOL: return kw_set_bool(s, k, e, (bool *)p);
  case KW_DTYPE:
    if (e->kind != EX_NAME) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "keyword '%s' takes a dtype, like %s=fp32", k->name, k->name);
      return false;
    }
    /* out= is a storage dtype; precision= may be tf32 */
    return parse_dtype(s, name_of(s, e), e->loc, p == (char *)&args->out_dtype,
                       (DType *)p);
  case KW_REAL: return kw_set_real(s, k, f, e, (double *)p);
  case KW_CHOICE: return kw_set_choice(s, k, e, (int64_t *)p);
  case KW_WORD: return kw_set_word(s, k, e, (int64_t *)p);
  case KW_INT_LIST: return kw_set_int_list(s, k, f, e, (int64_t *)p);
  case KW_TYPE:
  case KW_TENSOR: break;
  }
  unreachable();
}

/* Compute precision without precision=: the widest operand dtype, floats
 * over integers (the storage type the kernel reads). */
static DType widest(const TensorType *in, int nin, DType fallback) {
  DType best = DT_NONE;
  for (int i = 0; i < nin; i++) best = dtype_wider(best, in[i].dtype);
  return best == DT_NONE ? fallback : best;
}

static void push_in(Sema *s, int *nin, const TensorType *t, Loc loc, int id) {
  int n = *nin;
  if (n + 1 > s->cap_in) {
    int cap = s->cap_in;
    grow((void **)&s->in, &cap, n + 1, sizeof *s->in);
    cap = s->cap_in;
    grow((void **)&s->in_locs, &cap, n + 1, sizeof *s->in_locs);
    cap = s->cap_in;
    grow((void **)&s->in_ids, &cap, n + 1, sizeof *s->in_ids);
    s->cap_in = cap;
  }
  s->in[n] = *t;
  s->in_locs[n] = loc;
  s->in_ids[n] = id;
  *nin = n + 1;
}

static bool operand(Sema *s, const OpDesc *op, const Expr *e, int *nin,
                    bool *poisoned) {
  if (op->form == FORM_SCALAR_OK &&
      (e->kind == EX_INT || e->kind == EX_REAL ||
       (e->kind == EX_UNARY &&
        (e->un.operand->kind == EX_INT || e->un.operand->kind == EX_REAL)))) {
    TensorType scalar = {.dtype = DT_NONE, .rank = 0};
    push_in(s, nin, &scalar, e->loc, -1);
    return true;
  }
  if (e->kind == EX_CALL) { /* an inner application, applied already */
    int i = s->nnested - 1;
    while (i >= 0 && s->nested[i].call != e) i--;
    if (i < 0) unreachable();
    int node = s->nested[i].node;
    if (node < 0) {
      *poisoned = true;
      return false;
    }
    push_in(s, nin, s->nodes[node].type, e->loc, node);
    return true;
  }
  const Binding *b = tensor_operand(s, e, poisoned);
  if (!b) return false;
  push_in(s, nin, s->nodes[b->node].type, e->loc, b->node);
  return true;
}

/* The integer list of reshape (dims: positive or -1, once), transpose
 * (a perm) or pad (R-MOVE-003: 2 x rank pads, none negative). */
typedef enum ListKind { LIST_DIMS, LIST_PERM, LIST_PADS } ListKind;

static bool int_list(Sema *s, const OpDesc *op, const Expr *e, int64_t *out,
                     int *n, ListKind kind) {
  if (kind == LIST_PADS && (e->kind != EX_LIST || e->list.n > 2 * MAX_RANK)) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "pad takes a list of 2 x rank pads, before then after, like "
                "pad(x, [0, 0, 1, 1, 0, 0, 1, 1])");
    return false;
  }
  if (e->kind != EX_LIST) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "%s takes a list as its second argument, like %s(x, %s)",
                op->name, op->name, kind == LIST_DIMS ? "[B, -1]" : "[1, 0]");
    return false;
  }
  if (kind != LIST_PADS && e->list.n > MAX_RANK) {
    diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                "tensor rank %d exceeds the maximum of %d", e->list.n,
                MAX_RANK);
    return false;
  }
  bool ok = true;
  for (int i = 0; i < e->list.n; i++) {
    const Expr *d = e->list.items[i];
    if (!eval_int(s, d, NUM_DIMENSION, &out[i])) {
      ok = false;
    } else if (kind == LIST_DIMS && out[i] <= 0 && out[i] != -1) {
      diag_report(s->diags, SEV_ERROR, NULL, d->loc,
                  "dimension must be positive (or -1 to infer), got %lld",
                  (long long)out[i]);
      ok = false;
    } else if (kind == LIST_PADS && out[i] < 0) {
      diag_report(s->diags, SEV_ERROR, NULL, d->loc,
                  "pad must not be negative, got %lld; slice crops",
                  (long long)out[i]);
      ok = false;
    }
  }
  *n = e->list.n;
  return ok;
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static bool check_arity(Sema *s, const OpDesc *op, int n, Loc loc) {
  if (n >= op->min_inputs && (op->max_inputs < 0 || n <= op->max_inputs))
    return true;
  if (op->max_inputs < 0)
    diag_report(s->diags, SEV_ERROR, NULL, loc,
                "%s takes at least %d operand%s, got %d", op->name,
                op->min_inputs, plural(op->min_inputs), n);
  else if (op->min_inputs == op->max_inputs)
    diag_report(s->diags, SEV_ERROR, NULL, loc,
                "%s takes %d operand%s, got %d", op->name, op->min_inputs,
                plural(op->min_inputs), n);
  else
    diag_report(s->diags, SEV_ERROR, NULL, loc,
                "%s takes %d to %d operands, got %d", op->name,
                op->min_inputs, op->max_inputs, n);
  return false;
}

/* What an application's arguments read to. */
typedef struct Reading {
  OpArgs args;
  TensorType declared;        /* custom's out= type */
  int64_t list[2 * MAX_RANK]; /* pad's list is 2 x rank */
  int nin;                    /* operands in s->in, bias= last */
  int npositional;            /* of them positional */
  int nlist;
  Loc list_loc, dtype_loc, axis_loc, out_loc;
  bool poisoned;
} Reading;

/* FORM_TENSORS, FORM_SCALAR_OK, FORM_TENSOR_LIST: operands only. */
static bool operand_positionals(Sema *s, const OpDesc *op, const Expr *call,
                                const Expr **pos, int npos, Reading *r) {
  bool ok = true;
  if (op->form == FORM_TENSOR_LIST) {
    if (npos != 1 || pos[0]->kind != EX_LIST) {
      diag_report(s->diags, SEV_ERROR, NULL, call->loc,
                  "%s takes one list of tensors, like %s([a, b], axis=0)",
                  op->name, op->name);
      return false;
    }
    for (int i = 0; i < pos[0]->list.n; i++)
      ok &= operand(s, op, pos[0]->list.items[i], &r->nin, &r->poisoned);
    if (!ok || r->poisoned) return false;
    return check_arity(s, op, r->nin, pos[0]->loc);
  }
  for (int i = 0; i < npos; i++) ok &= operand(s, op, pos[i], &r->nin, &r->poisoned);
  if (!ok || r->poisoned) return false;
  if (!check_arity(s, op, r->nin, call->loc)) return false;
  if (op->form == FORM_SCALAR_OK) {
    bool any = false;
    for (int i = 0; i < r->nin; i++) any |= s->in[i].dtype != DT_NONE;
    if (!any) {
      diag_report(s->diags, SEV_ERROR, NULL, call->loc,
                  "%s needs at least one tensor operand; use 'let' for "
                  "arithmetic on numbers",
                  op->name);
      return false;
    }
  }
  return true;
}

/* FORM_EQUATION: einsum("ij,jk->ik", a, b), the equation (its blanks
 * dropped, as torch.einsum ignores them) then the operands. */
static bool equation_positionals(Sema *s, const OpDesc *op, const Expr *call,
                                 const Expr **pos, int npos, Reading *r) {
  if (npos < 1 || pos[0]->kind != EX_STRING) {
    diag_report(s->diags, SEV_ERROR, NULL, npos ? pos[0]->loc : call->loc,
                "%s takes its equation first, like "
                "einsum(\"bhqd,bhkd->bhqk\", q, k)",
                op->name);
    return false;
  }
  char *eq = arena_strdup(s->arena, pos[0]->str), *to = eq;
  for (const char *c = eq; *c; c++)
    if (*c != ' ') *to++ = *c;
  *to = '\0';
  r->args.equation = eq;
  r->list_loc = pos[0]->loc;
  return operand_positionals(s, op, call, pos + 1, npos - 1, r);
}

/* The positional after the operand, by the op's form: a dtype, a list,
 * a count.  `usage` is the form's example. */
static bool second_positional(Sema *s, const OpDesc *op, const Expr *e,
                              const char *usage, Reading *r) {
  if (op->form == FORM_DTYPE) {
    if (e->kind != EX_NAME) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "cast takes a dtype as its second argument, like %s", usage);
      return false;
    }
    r->dtype_loc = e->loc;
    return parse_dtype(s, name_of(s, e), e->loc, true, &r->args.cast_to);
  }
  if (op->form == FORM_PADS)
    return int_list(s, op, e, r->list, &r->nlist, LIST_PADS);
  if (op->form == FORM_SPLIT && e->kind != EX_LIST) {
    int64_t parts = 0; /* R-VIEW-008: N equal parts */
    if (eval_int(s, e, NUM_VALUE, &parts) && (parts < 1 || parts > SPLIT_MAX_PARTS)) {
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "split takes 1 to %d parts, got %lld", SPLIT_MAX_PARTS,
                  (long long)parts);
      parts = 0;
    }
    r->nlist = -(int)parts;
    return parts >= 1;
  }
  if (op->form == FORM_COUNT) {
    int64_t k = 0; /* R-ROUTE-001: topk's K, at least 1 */
    if (eval_int(s, e, NUM_VALUE, &k) && k < 1)
      diag_report(s->diags, SEV_ERROR, NULL, e->loc,
                  "%s takes a K of at least 1, got %lld", op->name,
                  (long long)k);
    r->args.k = k;
    return k >= 1;
  }
  return int_list(s, op, e, r->list, &r->nlist,
                  op->form == FORM_PERM ? LIST_PERM : LIST_DIMS);
}

/* Binds the positional arguments by the op's form into s->in and r. */
static bool positionals(Sema *s, const OpDesc *op, const Expr *call,
                        const Expr **pos, int npos, Reading *r) {
  switch (op->form) {
  case FORM_TENSORS:
  case FORM_SCALAR_OK:
  case FORM_TENSOR_LIST:
    return operand_positionals(s, op, call, pos, npos, r);
  case FORM_EQUATION:
    return equation_positionals(s, op, call, pos, npos, r);
  case FORM_DTYPE:
  case FORM_DIMS:
  case FORM_PERM:
  case FORM_SPLIT:
  case FORM_PADS:
  case FORM_COUNT:
    break;
  }
  static const char *const usage[] = {
      [FORM_DTYPE] = "cast(x, fp32)",
      [FORM_DIMS] = "reshape(x, [B, -1])",
      [FORM_PERM] = "transpose(x, [1, 0])",
      [FORM_SPLIT] = "split(x, 3, axis=-1)",
      [FORM_PADS] = "pad(x, [0, 0, 1, 1, 0, 0, 1, 1])",
      [FORM_COUNT] = "scores, idx = topk(logits, 2, axis=-1)",
  };
  if (npos != 2) {
    const char *like = usage[op->form];
    if (op->form == FORM_DIMS || op->form == FORM_PERM) /* with op's name */
      like = arena_printf(s->arena, "%s%s", op->name, strchr(like, '('));
    diag_report(s->diags, SEV_ERROR, NULL, call->loc,
                "%s takes 2 arguments, like %s, got %d", op->name, like, npos);
    return false;
  }
  bool ok = operand(s, op, pos[0], &r->nin, &r->poisoned);
  r->list_loc = pos[1]->loc;
  ok &= second_positional(s, op, pos[1], usage[op->form], r);
  return ok && !r->poisoned;
}

/* A read-only copy of `args` (memset before filling, so padding compares
 * equal), shared with earlier nodes whose arguments are the same. */
static const OpArgs *share_args(Sema *s, OpInfo *info, const OpArgs *args) {
  /* An op's applications mostly repeat its arguments: try its last first. */
  if (info->last_args && memcmp(args, info->last_args, sizeof *args) == 0)
    return info->last_args;
  const OpArgs *copy = NULL;
  if (memcmp(args, &no_args, sizeof *args) == 0) copy = &no_args;
  for (int i = 0; !copy && i < ARGS_CACHE; i++)
    if (s->shared_args[i] && memcmp(args, s->shared_args[i], sizeof *args) == 0)
      copy = s->shared_args[i];
  if (!copy) {
    copy = arena_memdup(s->arena, args, sizeof *args);
    s->shared_args[s->next_args] = copy;
    s->next_args = (s->next_args + 1) % ARGS_CACHE;
  }
  info->last_args = copy;
  return copy;
}

/* The op that name id `callee` spells, made on its first application;
 * NULL when no op has that name. */
static OpInfo *lookup_op(Sema *s, int callee) {
  OpInfo **slot = &s->op_byid[callee];
  if (*slot) return *slot;
  const OpDesc *op = op_lookup(s->names[callee]);
  if (!op) return NULL;
  *slot = arena_alloc(s->arena, sizeof **slot);
  op_info_init(*slot, op);
  return *slot;
}

/* An inner node's name stops growing at this length (R-NEST-001), so the
 * names of a statement nested 256 deep cost linear, not quadratic, memory. */
#define NESTED_NAME_MAX 64

/* Applies the inner call `e` of the application named `outer` as a node
 * of its own, named `outer.op` (R-NEST-001), and records it for operand. */
static void apply_inner(Sema *s, const Stmt *st, const Expr *e,
                        const char *outer) {
  const char *callee = s->names[e->call.callee];
  const char *name = strlen(outer) + 1 + strlen(callee) <= NESTED_NAME_MAX
                         ? arena_printf(s->arena, "%s.%s", outer, callee)
                         : outer;
  int node = apply_call(s, st, e, name);
  grow((void **)&s->nested, &s->cap_nested, s->nnested + 1, sizeof *s->nested);
  s->nested[s->nnested++] = (struct Nested){e, node};
}

/* The inner calls among the tensor operands of `call`, innermost first. */
static void apply_inners(Sema *s, const Stmt *st, const OpDesc *op,
                         const Expr *call, const char *name) {
  bool first = true;
  for (int i = 0; i < call->call.nargs; i++) {
    const Expr *v = call->call.args[i].value;
    if (call->call.args[i].key) continue;
    bool tensor = op->form == FORM_EQUATION
                      ? !first
                      : first || op->form == FORM_TENSORS || op->form == FORM_SCALAR_OK;
    first = false;
    if (!tensor) continue;
    if (v->kind == EX_CALL) apply_inner(s, st, v, name);
    if (v->kind == EX_LIST && op->form == FORM_TENSOR_LIST)
      for (int j = 0; j < v->list.n; j++)
        if (v->list.items[j]->kind == EX_CALL)
          apply_inner(s, st, v->list.items[j], name);
  }
}

static int apply_node(Sema *s, const Stmt *st, const Expr *call,
                      const char *name, OpInfo *info, int result,
                      int nresults);

/* One application `call` with `nresults` results: its inner calls first
 * (named after the first result), then itself once per result, names[i]
 * (or `name` when names is NULL) getting node[i], -1 after an error: an
 * error is reported for the first result only. */
void apply_results(Sema *s, const Stmt *st, const Expr *call,
                   const char *name, const Ident *names, int nresults,
                   int *node) {
  for (int i = 0; i < nresults; i++) node[i] = -1;
  OpInfo *info = lookup_op(s, call->call.callee);
  if (!info) {
    unknown_name(s, call->call.callee_loc, "op", s->names[call->call.callee], 0, op_candidates);
    return;
  }
  if (names) name = names[0].name;
  if (nresults > 1 && !(info->op->flags & OPF_RESULTS)) { /* R-NAME-009 */
    diag_report(s->diags, SEV_ERROR, NULL, call->loc,
                "%s gives one result, not %d; bind it to one name",
                info->op->name, nresults);
    return;
  }
  int base = s->nnested;
  apply_inners(s, st, info->op, call, name);
  for (int i = 0; i < nresults && (i == 0 || node[0] >= 0); i++)
    node[i] = apply_node(s, st, call, names ? names[i].name : name, info, i,
                         nresults);
  s->nnested = base;
}

/* One application `call`, its result named `name`.  Returns the new node
 * id, or -1. */
int apply_call(Sema *s, const Stmt *st, const Expr *call,
               const char *name) {
  int node;
  apply_results(s, st, call, name, NULL, 1, &node);
  return node;
}

/* R-CACHE-002: an append's first operand is a `cache` declaration, or an
 * append to one (the same storage).  An append node exists only once its
 * own first operand passed this test, so one step back suffices: a chain
 * of appends costs one test each, not a walk to its cache. */
static bool append_to_cache(Sema *s, const OpDesc *op) {
  int id = s->in_ids[0];
  const GNode *g = &s->nodes[id];
  if (g->role == ROLE_CACHE || (g->op && (g->op->flags & OPF_APPEND)))
    return true;
  const GNode *named = &s->nodes[id];
  diag_report(s->diags, SEV_ERROR, NULL, s->in_locs[0],
              "%s writes into a KV cache, and '%s' is %s %s, not a cache; "
              "declare it 'cache %s : [...]'",
              op->name, named->name,
              named->role == ROLE_ACTIVATION || named->role == ROLE_INPUT
                  ? "an" : "a",
              role_str(named->role), named->name);
  return false;
}

/* The positional arguments of `call`, in order, into s->pos; returns
 * their count. */
static int gather_positionals(Sema *s, const Expr *call) {
  int npos = 0;
  for (int i = 0; i < call->call.nargs; i++)
    if (!call->call.args[i].key) npos++;
  grow((void **)&s->pos, &s->cap_pos, npos + 1, sizeof *s->pos);
  npos = 0;
  for (int i = 0; i < call->call.nargs; i++)
    if (!call->call.args[i].key) s->pos[npos++] = call->call.args[i].value;
  return npos;
}

/* R-KW-008: out= on an op that takes none. */
static void no_out_keyword(Sema *s, const OpDesc *op, Loc name_loc) {
  diag_report(s->diags, SEV_ERROR, NULL, name_loc,
              op->flags & OPF_CAST
                  ? "%s takes no out=: its dtype is its second argument, "
                    "like cast(x, fp16)"
                  : "%s takes no out=: out=DTYPE is for an op that "
                    "computes (elementwise, reduction, contraction), and "
                    "%s is a %s op",
              op->name, op->name, op_class_str(op->cls));
}

/* A keyword the op does not take, with the closest one it does. */
static void unknown_keyword(Sema *s, const OpInfo *info, const char *key,
                            Loc name_loc) {
  int nkw = info->nkw;
  const char *names[MAX_KW + 1];
  for (int j = 0; j < nkw; j++) names[j] = info->kws[j]->name;
  names[nkw] = NULL;
  const char *sug = util_suggest(key, names);
  /* R-KW-001: PyTorch's spellings that no edit distance reaches. */
  static const char *const synonyms[][2] = {
      {"dim", "axis"}, {"dims", "axis"}, {"kernel_size", "kernel"}};
  for (size_t y = 0; !sug && y < sizeof synonyms / sizeof *synonyms; y++)
    for (int j = 0; j < nkw && strcmp(synonyms[y][0], key) == 0; j++)
      if (strcmp(names[j], synonyms[y][1]) == 0) sug = names[j];
  Diag *d = diag_report(s->diags, SEV_ERROR, NULL, name_loc,
                        sug ? "unknown keyword '%s' for %s; did you mean "
                              "'%s'?"
                            : "unknown keyword '%s' for %s",
                        key, info->op->name, sug);
  if (sug) diag_fixit(d, name_loc, sug);
}

/* One keyword argument: known, given once, of the right type.  `ok` is
 * the application's so far; returns it with this keyword's. */
static bool read_keyword(Sema *s, OpInfo *info, const Arg *a, Loc *seen,
                         bool ok, Reading *r) {
  const KwDesc *const *kws = info->kws;
  Loc name_loc = ast_arg_name_loc(a);
  int k = 0;
  while (k < info->nkw && strcmp(kws[k]->name, a->key->name) != 0) k++;
  if (k == info->nkw) {
    if (strcmp(a->key->name, "out") == 0) no_out_keyword(s, info->op, name_loc);
    else unknown_keyword(s, info, a->key->name, name_loc);
    return false;
  }
  if (seen[k].file >= 0) {
    Diag *d = diag_report(s->diags, SEV_ERROR, NULL, name_loc,
                          "duplicate keyword '%s'", a->key->name);
    diag_note(d, seen[k], "first given here");
    return false;
  }
  seen[k] = name_loc;
  if (k == info->axis_kw) r->axis_loc = a->value->loc;
  if (kws[k] == kw_out) r->out_loc = a->value->loc;
  if (kws[k]->type == KW_TENSOR) { /* bias=: one more input, the last */
    if (ok && !r->poisoned) ok = operand(s, info->op, a->value, &r->nin, &r->poisoned);
    r->args.bias = true;
    return ok;
  }
  Loc out_dtype = LOC_NONE;
  if (!kw_set(s, kws[k], info->fields[k], a->value, &r->args, &r->declared,
              &out_dtype))
    ok = false;
  if (out_dtype.file >= 0) r->dtype_loc = out_dtype;
  return ok;
}

/* The keywords of `call`, then the required ones that are missing. */
static bool read_keywords(Sema *s, const Expr *call, OpInfo *info, bool ok,
                          Reading *r) {
  Loc seen[MAX_KW];
  for (int i = 0; i < info->nkw; i++) seen[i] = LOC_NONE;
  for (int i = 0; i < call->call.nargs; i++)
    if (call->call.args[i].key)
      ok = read_keyword(s, info, &call->call.args[i], seen, ok, r);
  for (int k = 0; k < info->nkw; k++)
    if (info->kws[k]->required && seen[k].file < 0) {
      diag_report(s->diags, SEV_ERROR, NULL, call->loc,
                  "missing required keyword '%s' for %s", info->kws[k]->name,
                  info->op->name);
      ok = false;
    }
  return ok;
}

/* The result's type by the op's shape rule (stored in out='s dtype where
 * given), interned; *computed gets the dtype it computes in.  NULL after
 * an error. */
static const TensorType *result_type(Sema *s, const Expr *call,
                                     const OpDesc *op, Reading *r,
                                     int nresults, DType *computed) {
  int result = (int)r->args.result;
  ShapeCtx ctx = {
      .diags = s->diags, .call_loc = call->loc, .arg_locs = s->in_locs,
      .arena = s->arena, .axis_loc = r->axis_loc, .list_loc = r->list_loc,
      .list = r->list, .nlist = r->nlist, .declared = &r->declared,
      .ranks = parallel_place(&s->m->parallel, (ParGroup)r->args.group).size,
      .result = result, .nresults = nresults};
  TensorType out;
  memset(&out, 0, sizeof out);
  if (!op->shape(op, s->in, r->nin, &r->args, &out, &ctx)) return NULL;
  /* R-KW-008: the compute precision stays that of the operands (below);
   * out= sets only the dtype the result is stored in */
  *computed = out.dtype;
  /* R-ROUTE-001: a later result (topk's indices) keeps its own dtype */
  if (r->args.out_dtype != DT_NONE && !(result > 0 && (op->flags & OPF_RESULTS))) {
    out.dtype = r->args.out_dtype;
    r->dtype_loc = r->out_loc;
  }
  /* Most results have the type of their first operand: that type is
   * interned already (the pointer intern_type would return), and its
   * element count was checked when it was first made. */
  int first = r->nin ? s->in_ids[0] : -1;
  if (first >= 0 && same_type(&out, s->nodes[first].type))
    return s->nodes[first].type;
  int64_t elems;
  if (!op_elements(&out, &elems)) {
    char buf[200];
    diag_report(s->diags, SEV_ERROR, NULL, call->loc,
                "element count of the result %s overflows 64 bits",
                op_type_str(buf, sizeof buf, &out));
    return NULL;
  }
  return intern_type(s, &out);
}

/* g reads the nin operands in s->in_ids.  Consumers are counted here,
 * each op once per operand node, while the operands are still in cache,
 * not in a second pass over every node.  A result is an output until
 * something reads it (or `output` names it: those are marked again at
 * the end of the model). */
static void link_operands(Sema *s, GNode *g, int nin) {
  g->inputs = arena_alloc(s->arena, (size_t)(nin ? nin : 1) * sizeof(int));
  g->is_output = true;
  for (int i = 0; i < nin; i++) {
    int id = s->in_ids[i];
    if (id < 0) continue;
    bool dup = false;
    for (int j = 0; j < g->ninputs && !dup; j++) dup = g->inputs[j] == id;
    g->inputs[g->ninputs++] = id;
    if (dup) continue;
    GNode *used = &s->nodes[id];
    if (used->nconsumers++ == 0) used->is_output = false;
  }
}

/* The application's node, of type `type`; returns its id. */
static int add_node(Sema *s, const Stmt *st, const Expr *call,
                    const char *name, OpInfo *info, const Reading *r,
                    const TensorType *type, DType computed) {
  const OpDesc *op = info->op;
  GNode *g = new_node(s, name, ROLE_ACTIVATION, call->loc, st);
  g->op = op;
  g->type = type;
  g->args = share_args(s, info, &r->args);
  g->region = s->region;
  g->dtype_loc = r->dtype_loc;
  g->precision_explicit = r->args.precision != DT_NONE;
  g->precision = g->precision_explicit
                     ? r->args.precision
                     : widest(s->in, r->npositional, computed);
  /* R-PLAN-007: --dtype CLASS=DT computes the class's ops that would
   * compute at the plan dtype at DT; storage is unchanged */
  const Bindings *wi = s->overrides;
  if (wi && wi->what_if_recipe && op->cls == wi->recipe_class && !g->precision_explicit &&
      g->precision == s->m->dtype)
    g->precision = wi->recipe_dtype;
  link_operands(s, g, r->nin);
  return (int)(g - s->nodes);
}

/* Result `result` of `nresults` of the application `call`, named `name`:
 * its arguments read, its shape rule run, its node added.  Returns the
 * node's id, or -1 after an error. */
static int apply_node(Sema *s, const Stmt *st, const Expr *call,
                      const char *name, OpInfo *info, int result,
                      int nresults) {
  const OpDesc *op = info->op;
  Reading r;
  memset(&r, 0, sizeof r);
  memcpy(&r.args, &info->defaults, sizeof r.args); /* padding too */
  r.list_loc = r.dtype_loc = r.axis_loc = r.out_loc = LOC_NONE;
  int npos = gather_positionals(s, call);
  bool ok = positionals(s, op, call, s->pos, npos, &r);
  r.npositional = r.nin;
  ok = read_keywords(s, call, info, ok, &r);
  if (!ok || r.poisoned) return -1;
  if ((op->flags & OPF_APPEND) && !append_to_cache(s, op)) return -1;
  r.args.result = result;
  DType computed = DT_NONE;
  const TensorType *type = result_type(s, call, op, &r, nresults, &computed);
  if (!type) return -1;
  return add_node(s, st, call, name, info, &r, type, computed);
}
