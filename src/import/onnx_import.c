/* SPDX-License-Identifier: MIT */
/*
 * onnx_import.c: an ONNX model (onnx.h, read by onnx_read.c) translated
 * into .roof text that the unchanged front end parses (import.h), so the
 * cost model, the checks and every output are the language's.
 *
 * One line per node, in graph order, ending with a comment that names the
 * node (`# onnx #12 Conv "/layer1/layer1.0/conv1/Conv"`); the line's origin
 * (`node 12 "/layer1/layer1.0/conv1/Conv" (Conv)`) is what a diagnostic on
 * it quotes.  The mapping is one table, onnx_ops.def.
 *
 * Shapes: every node's result is sized by the rooflint op's own shape rule
 * (op->shape, with the arguments sema would give it), at the values the
 * lets have (dim_params default to 1, -D binds them).  Beside the numbers
 * each dim keeps the let expression it came from (`batch_size`), so shape
 * arithmetic the exporter wrote (Shape -> Gather -> Concat -> Reshape) is
 * folded into lists that still say `batch_size` and `-D`/`--sweep` work.
 * value_info is a cross-check only: a disagreement is a warning.
 *
 * Declarations: graph inputs become inputs, initializers weights (written
 * when a kernel first reads them, so shape tensors are no weights), BN's
 * running statistics and constants kernels read buffers.  The plan dtype
 * is the dominant float dtype; a declaration in it names no dtype, so
 * `--dtype bf16` re-plans the import.
 */
#include "import.h"
#include "onnx.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- values */

/* What the importer knows of an ONNX value.  There is one per value of
 * the model, so it is kept small: the dims' let expressions are an array
 * of MAX_RANK in the arena only when one has any (val_set_sym), and the
 * flags sit together. */
typedef struct Val {
  const char *onnx;          /* its ONNX name */
  const char *ident;         /* its .roof name, once it has one */
  TensorType t;              /* dims at the lets' values */
  const char *const *sym;    /* [MAX_RANK]: a dim's let expression, or NULL:
                                a number; no_sym when every dim is one */
  /* known values: shape arithmetic, scalars, small constants */
  int64_t n;
  int64_t *iv;               /* is_int */
  double *rv;                /* !is_int */
  const char **isym;         /* per element of iv: its let expression */
  const char *decl_origin;   /* the declaration line's origin */
  const char *decl_note;     /* its comment */
  /* a declaration written when a kernel first reads the value */
  enum { VD_NONE, VD_WEIGHT, VD_BUFFER, VD_INPUT } decl;
  bool tensor;               /* a .roof tensor (bound or declared) */
  bool known;
  bool is_int;
  bool declared;
} Val;

/* The let expressions of a value whose dims are all numbers. */
static const char *const no_sym[MAX_RANK];

/* A section of the text: its lines back to back, each ending in '\n', in
 * one buffer (a node's line is written straight into it), and each line's
 * origin (malloc'd, or NULL). */
typedef struct Lines {
  StrBuf text;
  char **origins;
  size_t n, cap;
} Lines;

/* The .roof names taken: an open-addressing set of them, at most 3/4
 * full.  A slot holds a name's hash in its high 32 bits and the name's
 * index in names + 1 in its low 32 bits (0: an empty slot), so a probe
 * reads one array and spells a name only when the hashes agree. */
typedef struct Idents {
  uint64_t *slots;
  size_t cap;          /* a power of two, or 0 */
  const char **names;  /* in the translation's arena */
  size_t n, cap_names;
} Idents;

enum { NUM_CACHE = 64 }; /* X.numbers */

/* The translation of one model. */
typedef struct X {
  Arena *a;
  const OnnxModel *m;
  const ImportOptions *o;
  const char *path;
  int64_t opset;
  /* What is known of each ONNX value, by its name's id (onnx.h): vals[id]
   * (NULL until the value is defined; names bound to the same value, an
   * alias, share one Val), uses[id] its readers once counted. */
  Val **vals;
  Idents idents;  /* .roof names taken */
  Lines head, decls, body;
  StrBuf scratch; /* a piece of text being built, copied to the arena */
  struct NumText {        /* number_term's cache: a value's bits, its text */
    uint64_t bits;
    const char *text;     /* in the arena; NULL: an empty slot */
  } numbers[NUM_CACHE];
  DType plan;
  /* dim_params: lets */
  const char **lets;
  const char **let_keys;  /* the dim_param, or "input:dim" for an unknown */
  const char **let_origins;
  int64_t *let_values;    /* what the shapes are computed at (below) */
  /* Unbound lets are sized at distinct primes, not at their value 1: a
   * dim that keeps a let's size then keeps its expression, where at 1 it
   * would match every constant 1 (a keepdims axis).  A model whose
   * shapes only check at 1 is translated again at 1. */
  bool probe;
  int nlets, cap_lets;
  /* the node being translated */
  const OnnxNode *node;
  int node_index;         /* in the top graph (subgraph nodes: the If's) */
  char *error;
  StrMap warned_ops;      /* --unknown-ops=custom: one warning per op type */
  PtrMap ops;             /* rooflint op name (by address: the callers'
                             literals and op_rows') -> struct OpStart */
  StrMap rows;            /* ONNX op_type -> its first row in op_rows */
  PtrMap node_rows;       /* a node's op_type (by address: the reader's
                             one copy of it) -> its row in the default
                             domain, or &no_row */
  const OnnxGraph *graph; /* the graph whose nodes are being translated */
  int32_t *uses;          /* by id: the value's readers, once a fold needs it */
  const OnnxValueInfo **vinfo; /* by id: the top graph's value_info (the last
                                  one given for a name), or NULL; NULL when
                                  the graph has none */
  const OnnxNode *bias_add; /* an Add folded into the MatMul before it */
  struct Pending {        /* a diagnostic on line `index` of a section */
    Lines *sec;
    size_t index;
    Severity sev;
    char *msg;
  } *diags;
  size_t ndiags, cap_diags;
} X;

typedef struct OnnxOpRow OnnxOpRow;
typedef bool (*MapFn)(X *x, const OnnxNode *n, const OnnxOpRow *row);

struct OnnxOpRow {
  const char *op_type, *domain;
  MapFn map;
  const char *roof, *doc;
};

/* ---------------------------------------------------------------- util */

static inline void put_char(StrBuf *sb, char c);

/* Ends the line written so far into l->text; l owns origin. */
static void lines_end(Lines *l, char *origin) {
  put_char(&l->text, '\n');
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->origins = xrealloc(l->origins, l->cap * sizeof *l->origins);
  }
  l->origins[l->n++] = origin;
}

/* At least cap bytes in sb, allocated once (malloc's fresh pages are only
 * zeroed when first written). */
static void sb_reserve_to(StrBuf *sb, size_t cap) {
  if (sb->cap >= cap || cap == 0) return;
  sb->data = xrealloc(sb->data, cap);
  if (sb->len == 0) sb->data[0] = '\0';
  sb->cap = cap;
}

static void lines_add(Lines *l, const char *text, char *origin) {
  sb_puts(&l->text, text);
  lines_end(l, origin);
}

/* Moves src's lines to the end of dst. */
static void lines_append(Lines *dst, Lines *src) {
  sb_putn(&dst->text, sb_str(&src->text), src->text.len);
  for (size_t i = 0; i < src->n; i++) {
    if (dst->n == dst->cap) {
      dst->cap = dst->cap ? 2 * dst->cap : 64;
      dst->origins = xrealloc(dst->origins, dst->cap * sizeof *dst->origins);
    }
    dst->origins[dst->n++] = src->origins[i];
  }
  free(src->origins);
  sb_free(&src->text);
  *src = (Lines){0};
}

static void lines_free(Lines *l) {
  sb_free(&l->text);
  for (size_t i = 0; i < l->n; i++) free(l->origins[i]);
  free(l->origins);
}

static char *vxprintf(const char *fmt, va_list ap) {
  StrBuf sb = {0};
  sb_vprintf(&sb, fmt, ap);
  char *s = xstrdup(sb_str(&sb));
  sb_free(&sb);
  return s;
}

static char *xprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
static char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = vxprintf(fmt, ap);
  va_end(ap);
  return s;
}

/* sb_putn, sb_putc and sb_puts with the common case (room in the
 * buffer) inline: the node lines are written a few bytes at a time.  The
 * same bytes and the same NUL after them. */
static inline void put_bytes(StrBuf *sb, const char *s, size_t n) {
  if (sb->len + n >= sb->cap) {
    sb_putn(sb, s, n);
    return;
  }
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

static inline void put_char(StrBuf *sb, char c) {
  if (sb->len + 1 >= sb->cap) {
    sb_putc(sb, c);
    return;
  }
  sb->data[sb->len++] = c;
  sb->data[sb->len] = '\0';
}

static inline void put_str(StrBuf *sb, const char *s) { put_bytes(sb, s, strlen(s)); }

/* A name as a comment or an origin quotes it: printable ASCII, `"` and
 * `\` escaped, anything else \xNN. */
static void put_quoted(StrBuf *sb, const char *s) {
  put_char(sb, '"');
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    const unsigned char *run = p; /* a run that needs no escape, put at once */
    while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') p++;
    put_bytes(sb, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    if (*p == '"' || *p == '\\') sb_printf(sb, "\\%c", *p);
    else sb_printf(sb, "\\x%02X", *p);
    p++;
  }
  put_char(sb, '"');
}

/* A string from the file as comment text (R-ONNX-008): an op type an
 * export wrote is plain ASCII, put at once; anything else goes through the
 * importers' one escape, so a newline in it cannot end the comment. */
static void put_comment_text(StrBuf *sb, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p >= 0x20 && *p < 0x7f && *p != '\\') p++;
  if (!*p) put_bytes(sb, s, (size_t)(p - (const unsigned char *)s));
  else import_put_escaped(sb, s, IMPORT_COMMENT);
}

/* v in decimal, as "%lld" writes it (a node's lines need no printf):
 * the digits end at buf[24]; returns where they start. */
static char *int_text(char buf[24], long long v) {
  char *p = buf + 24;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) *--p = '-';
  return p;
}

static void put_int(StrBuf *sb, long long v) {
  char buf[24], *p = int_text(buf, v);
  put_bytes(sb, p, (size_t)(buf + sizeof buf - p));
}

/* `node 12 "/conv1/Conv" (Conv)`, import.h's origin grammar, malloc'd in
 * one piece, from the node's name already quoted (put_quoted): quoted[0,
 * qlen), qlen 0 for a node without a name. */
static char *origin_quoted(const OnnxNode *n, int index, const char *quoted, size_t qlen) {
  char buf[24], *num = int_text(buf, index);
  size_t nlen = (size_t)(buf + sizeof buf - num);
  size_t olen = strlen(n->op_type);
  size_t len = 5 + nlen + 1 + (qlen ? qlen + 1 : 0) + 1 + olen + 1;
  char *s = xmalloc(len + 1), *p = s;
  memcpy(p, "node ", 5), p += 5;
  memcpy(p, num, nlen), p += nlen;
  *p++ = ' ';
  if (qlen) {
    memcpy(p, quoted, qlen), p += qlen;
    *p++ = ' ';
  }
  *p++ = '(';
  memcpy(p, n->op_type, olen), p += olen;
  *p++ = ')';
  *p = '\0';
  return s; /* never empty */
}

/* n's origin, `node 12 "/conv1/Conv" (Conv)`, malloc'd. */
static char *node_origin(const OnnxNode *n, int index) {
  if (!n->name || !n->name[0]) return origin_quoted(n, index, NULL, 0);
  StrBuf q = {0};
  put_quoted(&q, n->name);
  char *s = origin_quoted(n, index, q.data, q.len);
  sb_free(&q);
  return s;
}

/* The error of the node being translated; returns false. */
static bool fail(X *x, const char *fmt, ...) PRINTF_LIKE(2, 3);
static bool fail(X *x, const char *fmt, ...) {
  if (x->error) return false;
  va_list ap;
  va_start(ap, fmt);
  char *msg = vxprintf(fmt, ap);
  va_end(ap);
  if (x->node) {
    char *where = node_origin(x->node, x->node_index);
    x->error = xprintf("%s: %s: %s", x->path, where, msg);
    free(where);
  } else {
    x->error = xprintf("%s: %s", x->path, msg);
  }
  free(msg);
  return false;
}

/* A warning or remark on line `index` of a section (its line number is
 * known once the sections are joined). */
static void note(X *x, Lines *sec, size_t index, Severity sev,
                 const char *fmt, ...) PRINTF_LIKE(5, 6);
static void note(X *x, Lines *sec, size_t index, Severity sev,
                 const char *fmt, ...) {
  if (x->ndiags == x->cap_diags) {
    x->cap_diags = x->cap_diags ? 2 * x->cap_diags : 8;
    x->diags = xrealloc(x->diags, x->cap_diags * sizeof *x->diags);
  }
  va_list ap;
  va_start(ap, fmt);
  x->diags[x->ndiags++] = (struct Pending){sec, index, sev, vxprintf(fmt, ap)};
  va_end(ap);
}

static const char *const roof_keywords[] = {
    "let", "target", "model", "dtype", "mode", "parallel", "input", "weight",
    "host", "buffer", "repeat", "loop", "fused", "output", "true", "false",
    NULL};

/* An ONNX name as a .roof identifier, unused so far: [A-Za-z0-9_] kept,
 * runs of anything else one '_', torch's `_output_0` suffix dropped, a
 * keyword or a leading digit prefixed, a taken name numbered. */
static bool ident_char(unsigned char c) { /* isalnum in the C locale, or '_' */
  return (unsigned)((c | 0x20) - 'a') < 26 || (unsigned)(c - '0') < 10 || c == '_';
}

/* Room for n names in all without growing. */
static void idents_reserve(Idents *t, size_t n) {
  if (n > t->cap_names) {
    t->cap_names = n;
    t->names = xrealloc(t->names, n * sizeof *t->names);
  }
  if (4 * n <= 3 * t->cap) return;
  size_t cap = t->cap ? t->cap : 64;
  while (4 * n > 3 * cap) cap *= 2;
  uint64_t *slots = onnx_zeroed(cap, sizeof *slots);
  for (size_t i = 0; i < t->cap; i++) {
    uint64_t e = t->slots[i];
    if (!e) continue;
    size_t k = (size_t)(e >> 32) & (cap - 1);
    while (slots[k]) k = (k + 1) & (cap - 1);
    slots[k] = e;
  }
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
}

/* Takes name (len bytes, in the arena): false when it was taken before. */
static bool ident_take(Idents *t, const char *name, size_t len) {
  if (t->n == t->cap_names) idents_reserve(t, 2 * t->n + 16);
  uint64_t h = hash_bytes(name, len) & 0xFFFFFFFF00000000u;
  size_t mask = t->cap - 1, k = (size_t)(h >> 32) & mask;
  for (uint64_t e; (e = t->slots[k]) != 0; k = (k + 1) & mask)
    if ((e & 0xFFFFFFFF00000000u) == h && strcmp(t->names[(uint32_t)e - 1], name) == 0)
      return false;
  t->names[t->n] = name;
  t->slots[k] = h | (uint64_t)(++t->n);
  return true;
}

static void idents_free(Idents *t) {
  free(t->slots);
  free(t->names);
}

static const char *ident_for(X *x, const char *onnx, const char *fallback) {
  const char *src = onnx ? onnx : "";
  char *kept = arena_alloc(x->a, strlen(src) + 1);
  size_t len = 0;
  for (const char *p = src; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (ident_char(c)) kept[len++] = (char)c;
    else if (len > 0 && kept[len - 1] != '_') kept[len++] = '_';
  }
  kept[len] = '\0';
  const char *s = kept;
  while (*s == '_') s++;
  size_t n = len - (size_t)(s - kept);
  while (n > 0 && s[n - 1] == '_') n--;
  static const char suffix[] = "_output_0";
  if (n > sizeof suffix - 1 &&
      memcmp(s + n - (sizeof suffix - 1), suffix, sizeof suffix - 1) == 0)
    n -= sizeof suffix - 1;
  if (n > 200) n = 200; /* far under the 1024-byte limit, numbered below */
  char *base = (char *)s; /* kept is this name's own: cut it in place */
  base[n] = '\0';
  if (!base[0]) base = arena_strdup(x->a, fallback), n = strlen(base);
  bool keyword = false;
  if (n <= 8) /* the longest keyword, "parallel" */
    for (int i = 0; roof_keywords[i] && !keyword; i++)
      keyword = strcmp(base, roof_keywords[i]) == 0;
  if (isdigit((unsigned char)base[0]) || keyword) {
    base = arena_printf(x->a, "%s_%s", isdigit((unsigned char)base[0]) ? "v" : base,
                        isdigit((unsigned char)base[0]) ? base : "");
    n = strlen(base);
  }
  const char *name = base;
  for (int k = 2; !ident_take(&x->idents, name, n); k++) {
    name = arena_printf(x->a, "%s_%d", base, k);
    n = strlen(name);
  }
  return name;
}

/* ------------------------------------------------------------ dtypes */

static DType dtype_of(int32_t t) {
  switch (t) {
  case ONNX_FLOAT: return DT_FP32;
  case ONNX_FLOAT16: return DT_FP16;
  case ONNX_BFLOAT16: return DT_BF16;
  case ONNX_DOUBLE: return DT_FP64;
  case ONNX_INT8: case ONNX_UINT8: return DT_INT8;
  case ONNX_INT32: case ONNX_UINT32: return DT_INT32;
  case ONNX_INT64: case ONNX_UINT64: return DT_INT64;
  case ONNX_BOOL: return DT_BOOL;
  case ONNX_FLOAT8E4M3FN: case ONNX_FLOAT8E4M3FNUZ: return DT_FP8_E4M3;
  case ONNX_FLOAT8E5M2: case ONNX_FLOAT8E5M2FNUZ: return DT_FP8_E5M2;
  default: return DT_NONE;
  }
}

static bool dtype_or_fail(X *x, int32_t t, const char *what, DType *out) {
  *out = dtype_of(t);
  if (*out != DT_NONE) return true;
  return fail(x, "%s has ONNX dtype %s, which rooflint has no dtype for",
              what, onnx_dtype_name(t));
}

/* ------------------------------------------------------ dims and text */

/* The text of dim i of v: its let expression or its number. */
static void put_dim(StrBuf *sb, const char *sym, int64_t v) {
  if (sym) put_str(sb, sym);
  else put_int(sb, v);
}

static void put_dims(StrBuf *sb, const TensorType *t, const char *const *sym) {
  put_char(sb, '[');
  for (int i = 0; i < t->rank; i++) {
    if (i) put_str(sb, ", ");
    put_dim(sb, sym ? sym[i] : NULL, t->dims[i]);
  }
  put_char(sb, ']');
}

/* `[B, 3]` or `fp16[B, 3]`: a type that follows the plan names no dtype. */
static void put_type(X *x, StrBuf *sb, const TensorType *t,
                     const char *const *sym) {
  if (t->dtype != x->plan) put_str(sb, dtype_str(t->dtype));
  put_dims(sb, t, sym);
}

/* An expression for a product or sum of let expressions and numbers. */
static const char *sym_join(X *x, const char *a, int64_t av, const char *b,
                            int64_t bv, char opch) {
  if (!a && !b) return NULL;
  StrBuf sb = {0};
  bool paren = opch == '*' || opch == '/';
  if (paren && a && strpbrk(a, "+-")) sb_printf(&sb, "(%s)", a);
  else put_dim(&sb, a, av);
  sb_printf(&sb, " %c ", opch);
  if ((paren || opch == '-') && b && strpbrk(b, "+-*/")) sb_printf(&sb, "(%s)", b);
  else put_dim(&sb, b, bv);
  const char *s = arena_strdup(x->a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* --------------------------------------------------------------- terms */

/* An operand as the line writes it: a name, a number, or a nested call. */
typedef struct Term {
  const char *text;
  TensorType t;              /* dtype DT_NONE, rank 0: a number */
  const char *sym[MAX_RANK];
} Term;

/* The shortest text that reads back the same; ONNX's attributes and
 * float tensors are float32, so a float32 value reads back as float32
 * (1e-05, not 9.999999747378752e-06). */
static const char *number_text(X *x, double v) {
  bool f32 = isfinite(v) && (double)(float)v == v;
  for (int p = 1; p <= 17; p++) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.*g", p, v);
    double back = strtod(buf, NULL);
    if (back == v || (f32 && (float)back == (float)v)) return arena_strdup(x->a, buf);
  }
  return arena_printf(x->a, "%.17g", v);
}

static Term number_term(X *x, double v) {
  Term t;
  memset(&t, 0, sizeof t);
  t.t.dtype = DT_NONE;
  /* an export uses a few constants over and over (a GELU's sqrt(2) and
   * 0.5 in every layer): each text is made once, found by the value's
   * bits in a small direct-mapped cache */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  uint64_t h = bits * 0x9E3779B97F4A7C15u;
  struct NumText *slot = &x->numbers[(h >> 58) % NUM_CACHE];
  if (!slot->text || slot->bits != bits) {
    slot->bits = bits;
    slot->text = number_text(x, v);
  }
  t.text = slot->text;
  return t;
}

/* The value named by id, or NULL (-1: no name; not defined yet). */
static Val *val_at(X *x, int32_t id) { return id >= 0 ? x->vals[id] : NULL; }

/* Binds the name `id` (-1: none) to v. */
static void val_bind(X *x, int32_t id, Val *v) {
  if (id >= 0) x->vals[id] = v;
}

static bool has_input(const OnnxNode *n, int i) {
  return i < n->ninputs && n->inputs[i][0];
}

/* What the importer knows of input i of n, or NULL (absent, unknown). */
static Val *in_val(X *x, const OnnxNode *n, int i) {
  return has_input(n, i) ? val_at(x, n->input_ids[i]) : NULL;
}

/* A new value named `name`, bound to its id (-1: a value no name reads). */
static Val *val_new(X *x, const char *name, int32_t id) {
  Val *v = arena_alloc(x->a, sizeof *v);
  v->onnx = name; /* the model's or the arena's: both outlive x */
  v->sym = no_sym;
  val_bind(x, id, v);
  return v;
}

static double known_at(const Val *v, int64_t i) {
  return v->is_int ? (double)v->iv[i] : v->rv[i];
}

/* Writes v's declaration, the first time a kernel reads it. */
static void declare(X *x, Val *v) {
  if (v->declared || v->decl == VD_NONE) return;
  v->declared = true;
  v->tensor = true;
  if (!v->ident) v->ident = ident_for(x, v->onnx, "t");
  static const char *const words[] = {"", "weight", "buffer", "input"};
  StrBuf *sb = &x->decls.text;
  put_str(sb, "  ");
  put_str(sb, words[v->decl]);
  put_char(sb, ' ');
  put_str(sb, v->ident);
  put_str(sb, " : ");
  put_type(x, sb, &v->t, v->sym);
  if (v->decl_origin) {
    put_str(sb, "  # onnx ");
    put_str(sb, v->decl_origin);
  }
  if (v->decl_note) {
    put_str(sb, v->decl_origin ? ", " : "  # ");
    put_str(sb, v->decl_note);
  }
  lines_end(&x->decls, v->decl_origin ? xstrdup(v->decl_origin) : NULL);
}

static bool tensor_of(X *x, const OnnxNode *n, int i, Val *v, Term *out);

/* Input i of n as a tensor operand. */
static bool tensor_in(X *x, const OnnxNode *n, int i, Term *out) {
  memset(out, 0, sizeof *out);
  if (i >= n->ninputs || !n->inputs[i][0])
    return fail(x, "input %d is missing", i);
  return tensor_of(x, n, i, val_at(x, n->input_ids[i]), out);
}

/* tensor_in's rest, once input i (present) has been looked up: v. */
static bool tensor_of(X *x, const OnnxNode *n, int i, Val *v, Term *out) {
  if (!v) return fail(x, "input %d '%s' is not defined before the node", i,
                      n->inputs[i]);
  if (!v->tensor && v->decl == VD_NONE) {
    if (!v->known)
      return fail(x, "input %d '%s' has no value rooflint can read", i,
                  n->inputs[i]);
    /* a constant a kernel reads: a buffer */
    v->decl = VD_BUFFER;
  }
  declare(x, v);
  out->text = v->ident;
  out->t = v->t;
  memcpy(out->sym, v->sym, sizeof out->sym);
  return true;
}

/* Input i as an operand of a binary op: a known scalar is a number. */
static bool scalar_or_tensor_in(X *x, const OnnxNode *n, int i, Term *out) {
  Val *v = i < n->ninputs ? val_at(x, n->input_ids[i]) : NULL;
  if (v && v->known && v->n == 1 && !v->tensor &&
      !(v->is_int && v->isym && v->isym[0])) {
    *out = number_term(x, known_at(v, 0));
    return true;
  }
  if (i >= n->ninputs || !n->inputs[i][0]) return tensor_in(x, n, i, out);
  memset(out, 0, sizeof *out);
  return tensor_of(x, n, i, v, out); /* v: what tensor_in would look up */
}



/* Input i's known values (shape tensors, axes, pads). */
static Val *known_in(X *x, const OnnxNode *n, int i, const char *what) {
  Val *v = has_input(n, i) ? val_at(x, n->input_ids[i]) : NULL;
  if (!v || !v->known) {
    fail(x, "its %s (input %d) is not a constant: rooflint imports only "
            "shapes it can compute",
         what, i);
    return NULL;
  }
  return v;
}

/* --------------------------------------------------------- applying */

/* Sizes `op(args_text)` over `in` with the op's own shape rule; `args`
 * holds the keywords set (start from op_default_args).  *out gets the
 * text and the result type; its let expressions follow the op's rule
 * below (sym_*). */
/* The most operands one application takes (a DenseNet block's Concat
 * has 49). */
enum { CALL_MAX_IN = 256 };

typedef struct Call {
  const OpDesc *op;
  Term in[CALL_MAX_IN];
  int nin;
  OpArgs args;
  int64_t list[2 * MAX_RANK];
  const char *list_sym[2 * MAX_RANK];
  int nlist;
  int result, nresults;
  StrBuf kw;    /* ", stride=2" ... */
  const char *pos_text; /* a positional non-tensor (cast's dtype), or NULL */
  bool bias;    /* the last input is bias= */
  /* the node's line is written from the text at once (emit_call): it
   * stays in x->scratch, valid until the next piece is built there,
   * instead of being copied to the arena */
  bool text_in_scratch;
} Call;

/* An op and its arguments at their defaults, looked up once per name. */
struct OpStart {
  const OpDesc *op;
  OpArgs defaults;
};

/* Only the header is cleared: the operand array is large (a Concat's 256)
 * and filled up to nin. */
static void call_init(X *x, Call *c, const char *op) {
  void **slot = ptrmap_ref(&x->ops, op);
  struct OpStart *st = *slot;
  if (!st) {
    st = arena_alloc(x->a, sizeof *st);
    st->op = op_lookup(op);
    op_default_args(st->op, &st->defaults);
    *slot = st;
  }
  c->op = st->op;
  memcpy(&c->args, &st->defaults, sizeof c->args);
  c->nin = c->nlist = c->result = 0;
  c->nresults = 1;
  memset(c->list_sym, 0, sizeof c->list_sym);
  c->kw = (StrBuf){0};
  c->pos_text = NULL;
  c->bias = false;
  c->text_in_scratch = false;
}

static void call_in(Call *c, Term t) { c->in[c->nin++] = t; }

static void call_kw(Call *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void call_kw(Call *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_puts(&c->kw, ", ");
  sb_vprintf(&c->kw, fmt, ap);
  va_end(ap);
}

static void put_list(StrBuf *sb, const int64_t *v, const char *const *sym, int n) {
  put_char(sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) put_str(sb, ", ");
    put_dim(sb, sym ? sym[i] : NULL, v[i]);
  }
  put_char(sb, ']');
}

/* The let expressions of a result, by the op's kind. */
static void sym_of(X *x, const Call *c, Term *out) {
  memset(out->sym, 0, sizeof out->sym);
  const TensorType *o = &out->t;
  const Term *a = &c->in[0];
  OpId id = (OpId)op_index(c->op);
  switch (id) {
  case OP_RESHAPE:
  case OP_EXPAND:
    for (int i = 0; i < o->rank && i < c->nlist; i++) {
      out->sym[i] = c->list_sym[i];
      int k = i - (o->rank - a->t.rank);
      if (c->list[i] == -1 && id == OP_EXPAND && k >= 0) out->sym[i] = a->sym[k];
    }
    if (id == OP_RESHAPE) {
      /* a -1 takes what is left of the input's expression */
      for (int i = 0; i < o->rank && i < c->nlist; i++) {
        if (c->list[i] != -1) continue;
        const char *prod = NULL;
        int64_t pv = 1;
        bool any = false;
        for (int k = 0; k < a->t.rank; k++) {
          any |= a->sym[k] != NULL;
          prod = sym_join(x, prod, pv, a->sym[k], a->t.dims[k], '*');
          pv *= a->t.dims[k];
          if (!prod) prod = NULL;
        }
        if (!any) break;
        for (int k = 0; k < c->nlist; k++)
          if (k != i) prod = sym_join(x, prod, pv, c->list_sym[k], c->list[k], '/');
        out->sym[i] = prod;
      }
    }
    return;
  case OP_TRANSPOSE:
    for (int i = 0; i < o->rank; i++) out->sym[i] = a->sym[c->args.perm[i]];
    return;
  case OP_SQUEEZE:
  case OP_SELECT:
    for (int i = 0, k = 0; k < a->t.rank; k++)
      if (k != c->args.axis) out->sym[i++] = a->sym[k];
    return;
  case OP_UNSQUEEZE:
    for (int i = 0, k = 0; i < o->rank; i++)
      out->sym[i] = i == c->args.axis ? NULL : a->sym[k++];
    return;
  case OP_FLATTEN: {
    int s = (int)c->args.start, e = (int)c->args.end;
    const char *p = NULL;
    int64_t pv = 1;
    for (int k = s; k <= e; k++) {
      p = sym_join(x, p, pv, a->sym[k], a->t.dims[k], '*');
      pv *= a->t.dims[k];
    }
    for (int i = 0; i < s; i++) out->sym[i] = a->sym[i];
    out->sym[s] = p;
    for (int k = e + 1; k < a->t.rank; k++) out->sym[k - (e - s)] = a->sym[k];
    return;
  }
  case OP_GATHER: {
    const Term *idx = &c->in[1];
    int ax = (int)c->args.axis, i = 0;
    for (int k = 0; k < ax; k++) out->sym[i++] = a->sym[k];
    for (int k = 0; k < idx->t.rank; k++) out->sym[i++] = idx->sym[k];
    for (int k = ax + 1; k < a->t.rank; k++) out->sym[i++] = a->sym[k];
    return;
  }
  case OP_CONCAT: {
    int ax = (int)c->args.axis;
    for (int i = 0; i < o->rank; i++) out->sym[i] = a->sym[i];
    const char *s = a->sym[ax];
    int64_t sv = a->t.dims[ax];
    bool any = s != NULL;
    for (int k = 1; k < c->nin; k++) {
      any |= c->in[k].sym[ax] != NULL;
      s = sym_join(x, s, sv, c->in[k].sym[ax], c->in[k].t.dims[ax], '+');
      sv += c->in[k].t.dims[ax];
    }
    out->sym[ax] = any ? s : NULL;
    return;
  }
  case OP_SLICE:
  case OP_SPLIT:
  case OP_PAD:
    for (int i = 0; i < o->rank; i++)
      if (o->dims[i] == a->t.dims[i]) out->sym[i] = a->sym[i];
    return;
  case OP_MATMUL: {
    const Term *b = &c->in[1];
    int ra = a->t.rank, rb = b->t.rank, ro = o->rank;
    if (ra >= 2 && ro >= 2) out->sym[ro - 2] = a->sym[ra - 2];
    else if (ra == 2 && ro == 1) out->sym[0] = a->sym[0];
    if (rb >= 2 && ro >= 1) out->sym[ro - 1] = b->sym[rb - 1];
    for (int i = 0; i < ro - 2; i++) {
      int ka = i - (ro - ra), kb = i - (ro - rb);
      if (ka >= 0 && a->sym[ka] && a->t.dims[ka] == o->dims[i]) out->sym[i] = a->sym[ka];
      else if (kb >= 0 && b->sym[kb] && b->t.dims[kb] == o->dims[i]) out->sym[i] = b->sym[kb];
    }
    return;
  }
  default:
    break;
  }
  if (c->op->cls == OC_ELEMENTWISE) { /* numpy broadcasting */
    for (int i = 0; i < o->rank; i++)
      for (int k = 0; k < c->nin && !out->sym[i]; k++) {
        int j = i - (o->rank - c->in[k].t.rank);
        if (j >= 0 && c->in[k].sym[j] && c->in[k].t.dims[j] == o->dims[i])
          out->sym[i] = c->in[k].sym[j];
      }
    return;
  }
  /* reductions, norms, convolutions, pools: a dim keeps its expression
   * where it keeps its place and its size; a reduced axis drops out */
  int drop = c->op->cls == OC_REDUCTION && o->rank == a->t.rank - 1
                 ? (int)c->args.axis : -1;
  for (int i = 0, k = 0; i < o->rank && k < a->t.rank; k++) {
    if (k == drop) continue;
    if (a->t.dims[k] == o->dims[i] && (c->op->cls != OC_CONTRACTION || i == 0))
      out->sym[i] = a->sym[k];
    i++;
  }
}

/* Sizes the call and gives its text; false (the node's error) when the
 * op's shape rule refuses it. */
static bool apply(X *x, Call *c, Term *out) {
  memset(out, 0, sizeof *out);
  TensorType in[CALL_MAX_IN];
  Loc locs[CALL_MAX_IN];
  for (int i = 0; i < c->nin; i++) in[i] = c->in[i].t, locs[i] = LOC_NONE;
  DiagSink sink;
  diag_sink_init(&sink);
  TensorType declared;
  memset(&declared, 0, sizeof declared);
  ShapeCtx ctx = {&sink,  LOC_NONE, locs,     x->a, LOC_NONE, LOC_NONE,
                  c->list, c->nlist, &declared, 1,    c->result, c->nresults};
  bool ok = c->op->shape(c->op, in, c->nin, &c->args, &out->t, &ctx);
  if (ok && c->args.out_dtype != DT_NONE) out->t.dtype = c->args.out_dtype;
  if (!ok) {
    fail(x, "%s", sink.n > 0 ? sink.items[0]->msg : "its shape does not check");
    diag_sink_free(&sink);
    sb_free(&c->kw);
    return false;
  }
  diag_sink_free(&sink);
  StrBuf sb = x->scratch; /* nothing below builds another piece */
  sb.len = 0;
  put_str(&sb, c->op->name);
  put_char(&sb, '(');
  int npos = c->nin - (c->bias ? 1 : 0);
  bool list_form = c->op->form == FORM_TENSOR_LIST;
  if (list_form) put_char(&sb, '[');
  for (int i = 0; i < npos; i++) {
    if (i) put_str(&sb, ", ");
    put_str(&sb, c->in[i].text);
  }
  if (list_form) put_char(&sb, ']');
  if (c->pos_text) {
    put_str(&sb, ", ");
    put_str(&sb, c->pos_text);
  }
  if (c->op->form == FORM_DIMS || c->op->form == FORM_PERM ||
      c->op->form == FORM_PADS || (c->op->form == FORM_SPLIT && c->nlist > 0)) {
    put_str(&sb, ", ");
    put_list(&sb, c->list, c->list_sym, c->nlist);
  } else if (c->op->form == FORM_SPLIT) {
    sb_printf(&sb, ", %d", -c->nlist);
  }
  if (c->bias) {
    put_str(&sb, ", bias=");
    put_str(&sb, c->in[c->nin - 1].text);
  }
  put_bytes(&sb, sb_str(&c->kw), c->kw.len);
  put_char(&sb, ')');
  x->scratch = sb;
  out->text = c->text_in_scratch ? sb.data : arena_strndup(x->a, sb.data, sb.len);
  sb_free(&c->kw);
  sym_of(x, c, out);
  return true;
}

/* ---------------------------------------------------- writing a node */

/* Output `i` of n gets the tensor `t`: its line `NAME = TEXT  # onnx ...`.
 * comment_at appends the comment and returns where in sb the quoted name
 * that ends it starts (sb's length when the node has no name). */
static size_t comment_at(StrBuf *sb, const OnnxNode *n, int index) {
  put_str(sb, "  # onnx #");
  put_int(sb, index);
  put_char(sb, ' ');
  put_comment_text(sb, n->op_type);
  size_t at = sb->len;
  if (n->name && n->name[0]) {
    put_char(sb, ' ');
    at = sb->len;
    put_quoted(sb, n->name);
  }
  return at;
}

static Val *bind_output(X *x, const OnnxNode *n, int i) {
  if (i >= n->noutputs || n->output_ids[i] < 0) return NULL;
  Val *v = val_at(x, n->output_ids[i]);
  return v ? v : val_new(x, n->outputs[i], n->output_ids[i]);
}

/* Ends node n's line in the body: its comment and its origin, which
 * quotes the name as the comment just did (the comment's bytes). */
static void end_node_line(X *x, const OnnxNode *n) {
  StrBuf *sb = &x->body.text;
  size_t at = comment_at(sb, n, x->node_index);
  lines_end(&x->body, origin_quoted(n, x->node_index, sb->data + at, sb->len - at));
}

/* A line of node n binding `name = text`. */
static void bind_line(X *x, const OnnxNode *n, const char *name, const char *text) {
  sb_printf(&x->body.text, "  %s = %s", name, text);
  end_node_line(x, n);
}

/* n's origin, kept in the arena (a declaration's or a known value's). */
static const char *arena_origin(X *x, const OnnxNode *n) {
  StrBuf *sb = &x->scratch; /* node_origin's text, built where it is kept */
  sb->len = 0;
  put_str(sb, "node ");
  put_int(sb, x->node_index);
  put_char(sb, ' ');
  if (n->name && n->name[0]) {
    put_quoted(sb, n->name);
    put_char(sb, ' ');
  }
  put_char(sb, '(');
  put_str(sb, n->op_type);
  put_char(sb, ')');
  return arena_strndup(x->a, sb->data, sb->len);
}

/* v's dims' let expressions become sym[0, MAX_RANK). */
static void val_set_sym(X *x, Val *v, const char *const *sym) {
  for (int i = 0; i < MAX_RANK; i++)
    if (sym[i]) {
      v->sym = arena_memdup(x->a, sym, MAX_RANK * sizeof *sym);
      return;
    }
  v->sym = no_sym;
}

static void set_tensor(X *x, Val *v, const Term *t) {
  v->tensor = true;
  v->t = t->t;
  val_set_sym(x, v, t->sym);
  if (!v->ident) v->ident = ident_for(x, v->onnx, "t");
}

/* The one statement of node n: `names = text`. */
static bool emit(X *x, const OnnxNode *n, Term *results, int nresults,
                 const char *text) {
  StrBuf *sb = &x->body.text; /* nothing below writes another line */
  put_str(sb, "  ");
  for (int i = 0; i < nresults; i++) {
    Val *v = bind_output(x, n, i);
    if (!v) { /* an omitted output still needs a name in a split */
      v = val_new(x, arena_printf(x->a, "%d:unused%d", x->node_index, i), -1);
    }
    set_tensor(x, v, &results[i]);
    if (i) put_str(sb, ", ");
    put_str(sb, v->ident);
  }
  sb_puts(sb, " = ");
  sb_puts(sb, text);
  end_node_line(x, n);
  return true;
}

static bool emit1(X *x, const OnnxNode *n, Term *t) {
  return emit(x, n, t, 1, t->text);
}

/* The one statement of n: the call c, sized and written. */
static bool emit_call(X *x, const OnnxNode *n, Call *c) {
  Term out;
  c->text_in_scratch = true;
  return apply(x, c, &out) && emit1(x, n, &out);
}

/* A node that writes no kernel: a comment line, so every node is found. */
static void emit_folded(X *x, const OnnxNode *n, const char *what) {
  StrBuf *sb = &x->body.text;
  size_t at = comment_at(sb, n, x->node_index); /* as end_node_line */
  char *origin = origin_quoted(n, x->node_index, sb->data + at, sb->len - at);
  put_str(sb, ": ");
  put_str(sb, what);
  lines_end(&x->body, origin);
}

/* ------------------------------------------------------- attributes */

static int64_t attr_int(const OnnxNode *n, const char *name, int64_t def) {
  const OnnxAttr *a = onnx_attr(n, name);
  return a && a->type == ONNX_ATTR_INT ? a->i : def;
}

static double attr_float(const OnnxNode *n, const char *name, double def) {
  const OnnxAttr *a = onnx_attr(n, name);
  return a && a->type == ONNX_ATTR_FLOAT ? a->f : def;
}

static const char *attr_str(const OnnxNode *n, const char *name,
                            const char *def) {
  const OnnxAttr *a = onnx_attr(n, name);
  return a && a->type == ONNX_ATTR_STRING ? a->s : def;
}

/* An INTS attribute (n elements), or NULL. */
static const int64_t *attr_ints(const OnnxNode *n, const char *name, int *cnt) {
  const OnnxAttr *a = onnx_attr(n, name);
  if (!a || a->type != ONNX_ATTR_INTS) {
    *cnt = 0;
    return NULL;
  }
  *cnt = a->n;
  return a->ints;
}

/* Integer list from an attribute (older opsets) or a constant input. */
static bool ints_from(X *x, const OnnxNode *n, const char *attr, int input,
                      const int64_t **v, int *cnt) {
  *v = attr_ints(n, attr, cnt);
  if (*v || !has_input(n, input)) return true;
  Val *k = known_in(x, n, input, attr);
  if (!k) return false;
  if (!k->is_int) return fail(x, "its %s are not integers", attr);
  *v = k->iv;
  *cnt = (int)k->n;
  return true;
}

static int64_t norm_ax(int64_t a, int rank) { return a < 0 ? a + rank : a; }

/* ------------------------------------------------------- known values */

static Val *known_new(X *x, const OnnxNode *n, int i, bool is_int, int64_t cnt,
                      const TensorType *t) {
  Val *v = bind_output(x, n, i);
  if (!v) return NULL;
  v->known = true;
  v->is_int = is_int;
  v->n = cnt;
  v->t = *t;
  if (is_int) {
    v->iv = arena_alloc(x->a, (size_t)(cnt + 1) * sizeof *v->iv);
    v->isym = arena_alloc(x->a, (size_t)(cnt + 1) * sizeof *v->isym);
  } else {
    v->rv = arena_alloc(x->a, (size_t)(cnt + 1) * sizeof *v->rv);
  }
  v->decl_origin = arena_origin(x, n);
  return v;
}

static bool is_int_type(int32_t t) {
  return t == ONNX_INT64 || t == ONNX_INT32 || t == ONNX_INT8 ||
         t == ONNX_UINT8 || t == ONNX_INT16 || t == ONNX_UINT16 ||
         t == ONNX_UINT32 || t == ONNX_UINT64 || t == ONNX_BOOL;
}

/* A TensorProto's values (a Constant or a small initializer) into v. */
static void tensor_values(X *x, Val *v, const OnnxTensor *t) {
  if (!t->ints && !t->reals) return;
  v->known = true;
  v->is_int = t->ints != NULL;
  v->n = t->nvalues;
  if (v->is_int) {
    v->iv = arena_memdup(x->a, t->ints, (size_t)(t->nvalues + 1) * sizeof *t->ints);
    v->isym = arena_alloc(x->a, (size_t)(t->nvalues + 1) * sizeof *v->isym);
  } else {
    v->rv = arena_memdup(x->a, t->reals, (size_t)(t->nvalues + 1) * sizeof *t->reals);
  }
}

static bool tensor_type(X *x, const OnnxTensor *t, TensorType *out) {
  memset(out, 0, sizeof *out);
  if (!dtype_or_fail(x, t->data_type, t->name, &out->dtype)) return false;
  if (t->ndims > MAX_RANK)
    return fail(x, "tensor '%s' has rank %d, more than rooflint's %d", t->name,
                t->ndims, MAX_RANK);
  out->rank = t->ndims;
  for (int i = 0; i < t->ndims; i++) {
    if (t->dims[i] < 1)
      return fail(x, "tensor '%s' has a dim of %lld; rooflint's dims are "
                     "positive", t->name, (long long)t->dims[i]);
    out->dims[i] = t->dims[i];
  }
  return true;
}

/* Every input known: fold an elementwise op on them (shape arithmetic).
 * Returns true when it folded. */
static bool all_known(X *x, const OnnxNode *n, int from, int to) {
  for (int i = from; i < to && i < n->ninputs; i++) {
    Val *v = val_at(x, n->input_ids[i]);
    if (n->input_ids[i] >= 0 && (!v || !v->known)) return false;
  }
  return true;
}

static int64_t known_count(const TensorType *t) {
  int64_t e = 1;
  for (int i = 0; i < t->rank; i++) e *= t->dims[i];
  return e;
}

/* Broadcast index of output element `i` into an input of type `in`. */
static int64_t bcast_index(const TensorType *out, const TensorType *in,
                           int64_t i) {
  int64_t idx = 0, mul = 1;
  for (int d = out->rank - 1; d >= 0; d--) {
    int64_t c = i % out->dims[d];
    i /= out->dims[d];
    int k = d - (out->rank - in->rank);
    if (k < 0) continue;
    idx += (in->dims[k] == 1 ? 0 : c) * mul;
    mul *= in->dims[k];
  }
  return idx;
}

static bool bcast_type(const TensorType *a, const TensorType *b, TensorType *o) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  *o = *a;
  o->rank = r;
  for (int d = 0; d < r; d++) {
    int ka = d - (r - a->rank), kb = d - (r - b->rank);
    int64_t da = ka >= 0 ? a->dims[ka] : 1, db = kb >= 0 ? b->dims[kb] : 1;
    if (da != db && da != 1 && db != 1) return false;
    o->dims[d] = da == 1 ? db : da;
  }
  return true;
}

static bool fold_elementwise(X *x, const OnnxNode *n) {
  const char *op = n->op_type;
  int nin = strcmp(op, "Where") == 0 ? 3 : n->ninputs;
  if (nin < 1 || nin > 3 || n->ninputs < nin || !all_known(x, n, 0, nin))
    return false;
  Val *in[3];
  TensorType ot;
  for (int i = 0; i < nin; i++)
    if (!(in[i] = in_val(x, n, i))) return false;
  ot = in[0]->t;
  for (int i = 1; i < nin && i < 3; i++)
    if (!bcast_type(&ot, &in[i]->t, &ot)) return false;
  int64_t cnt = known_count(&ot);
  if (cnt > ONNX_SMALL_ELEMS) return false;
  bool cmp = strcmp(op, "Equal") == 0 || strcmp(op, "Less") == 0 ||
             strcmp(op, "Greater") == 0 || strcmp(op, "Not") == 0;
  int vi = strcmp(op, "Where") == 0 ? 1 : 0;
  bool is_int = cmp || (in[vi]->is_int && (nin < 2 || in[nin - 1]->is_int));
  if (strcmp(op, "Cast") == 0) {
    int32_t to = (int32_t)attr_int(n, "to", ONNX_FLOAT);
    is_int = is_int_type(to);
    DType d = dtype_of(to);
    if (d == DT_NONE) return false;
    ot.dtype = d;
  } else if (cmp) {
    ot.dtype = DT_BOOL;
  } else if (vi == 1) {
    ot.dtype = in[1]->t.dtype;
  }
  Val *v = known_new(x, n, 0, is_int, cnt, &ot);
  if (!v) return true;
  for (int64_t i = 0; i < cnt; i++) {
    int64_t k[3];
    double a[3];
    const char *s[3] = {NULL, NULL, NULL};
    for (int j = 0; j < nin && j < 3; j++) {
      k[j] = bcast_index(&ot, &in[j]->t, i);
      a[j] = known_at(in[j], k[j]);
      if (in[j]->is_int && in[j]->isym) s[j] = in[j]->isym[k[j]];
    }
    double r = a[0];
    const char *rs = NULL;
    char c = strcmp(op, "Add") == 0   ? '+'
             : strcmp(op, "Sub") == 0 ? '-'
             : strcmp(op, "Mul") == 0 ? '*'
             : strcmp(op, "Div") == 0 ? '/'
                                      : 0;
    if (c) {
      if (c == '/' && a[1] == 0) return fail(x, "it divides by zero");
      r = c == '+' ? a[0] + a[1] : c == '-' ? a[0] - a[1] : c == '*' ? a[0] * a[1]
          : is_int ? (double)((int64_t)a[0] / (int64_t)a[1]) : a[0] / a[1];
      if (is_int) rs = sym_join(x, s[0], (int64_t)a[0], s[1], (int64_t)a[1], c);
    } else if (strcmp(op, "Equal") == 0) {
      r = a[0] == a[1];
      if (s[0] || s[1]) { /* a let compared: only -1 sentinels are sure */
        if ((s[0] && a[1] != -1 && !s[1]) || (s[1] && a[0] != -1 && !s[0]))
          if (!(s[0] && s[1] && strcmp(s[0], s[1]) == 0))
            return fail(x, "it compares a symbolic dim (%s) with a number",
                        s[0] ? s[0] : s[1]);
        r = s[0] && s[1] ? strcmp(s[0], s[1]) == 0 : 0;
      }
    } else if (strcmp(op, "Less") == 0) {
      r = a[0] < a[1];
    } else if (strcmp(op, "Greater") == 0) {
      r = a[0] > a[1];
    } else if (strcmp(op, "Not") == 0) {
      r = a[0] == 0;
    } else if (strcmp(op, "Where") == 0) {
      r = a[0] != 0 ? a[1] : a[2];
      rs = a[0] != 0 ? s[1] : s[2];
    } else if (strcmp(op, "Neg") == 0) {
      r = -a[0];
      if (s[0]) rs = arena_printf(x->a, "-(%s)", s[0]);
    } else if (strcmp(op, "Max") == 0 || strcmp(op, "Min") == 0) {
      bool mx = op[1] == 'a';
      r = mx ? (a[0] > a[1] ? a[0] : a[1]) : (a[0] < a[1] ? a[0] : a[1]);
      if (s[0] || s[1]) {
        StrBuf sb = {0};
        sb_puts(&sb, mx ? "max(" : "min(");
        put_dim(&sb, s[0], (int64_t)a[0]);
        sb_puts(&sb, ", ");
        put_dim(&sb, s[1], (int64_t)a[1]);
        sb_putc(&sb, ')');
        rs = arena_strdup(x->a, sb_str(&sb));
        sb_free(&sb);
      }
    } else if (strcmp(op, "Cast") == 0 || strcmp(op, "Identity") == 0) {
      rs = s[0];
    } else if (strcmp(op, "Sqrt") == 0) {
      r = sqrt(a[0]);
    } else {
      return false;
    }
    if (is_int) {
      v->iv[i] = (int64_t)r;
      v->isym[i] = rs;
    } else {
      v->rv[i] = r;
    }
  }
  emit_folded(x, n, "folded");
  return true;
}

/* A view of known values (Reshape, Unsqueeze, Squeeze, Flatten, Gather,
 * Slice, Concat of constants): the same values in a new order. */
static bool fold_copy(X *x, const OnnxNode *n, const Val *src,
                      const TensorType *t, const int64_t *pick, int64_t cnt) {
  Val *v = known_new(x, n, 0, src->is_int, cnt, t);
  if (!v) return !x->error;
  for (int64_t i = 0; i < cnt; i++) {
    int64_t k = pick ? pick[i] : i;
    if (src->is_int) {
      v->iv[i] = src->iv[k];
      v->isym[i] = src->isym ? src->isym[k] : NULL;
    } else {
      v->rv[i] = src->rv[k];
    }
  }
  emit_folded(x, n, "folded");
  return !x->error;
}

/* -------------------------------------------------------- the mapping */

static bool map_unary(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (fold_elementwise(x, n)) return !x->error;
  Call c;
  call_init(x, &c, row->roof);
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  return emit_call(x, n, &c);
}

static bool map_binary(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (n == x->bias_add) { /* map_matmul wrote it */
    emit_folded(x, n, "the bias= of the MatMul before it");
    return true;
  }
  if (fold_elementwise(x, n)) return !x->error;
  if (n->ninputs != 2)
    return fail(x, "%s takes 2 operands here, got %d", n->op_type, n->ninputs);
  Call c;
  call_init(x, &c, row->roof);
  Term a, b;
  if (!scalar_or_tensor_in(x, n, 0, &a) || !scalar_or_tensor_in(x, n, 1, &b))
    return false;
  if (a.t.dtype == DT_NONE && b.t.dtype == DT_NONE)
    return fail(x, "both operands are constants it could not fold");
  call_in(&c, a);
  call_in(&c, b);
  return emit_call(x, n, &c);
}

static bool map_reciprocal(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "div");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, number_term(x, 1));
  call_in(&c, t);
  return emit_call(x, n, &c);
}

static bool map_alias(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  if (src && !src->tensor && n->noutputs > 0 && n->outputs[0][0]) {
    /* a constant, or a declaration not yet written (torch's Identity of
     * a shared initializer): the output is the same value */
    val_bind(x, n->output_ids[0], src);
    emit_folded(x, n, "an alias");
    return true;
  }
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  return !bind_output(x, n, 0) || emit1(x, n, &t);
}

/* n's line: cast(t, to). */
static bool emit_cast(X *x, const OnnxNode *n, Term t, DType to) {
  Call c;
  call_init(x, &c, "cast");
  call_in(&c, t);
  c.args.cast_to = to;
  c.pos_text = dtype_str(to);
  return emit_call(x, n, &c);
}

static bool map_cast(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (fold_elementwise(x, n)) return !x->error;
  DType to;
  if (!dtype_or_fail(x, (int32_t)attr_int(n, "to", 0), "its 'to'", &to))
    return false;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  if (t.t.dtype == to) return map_alias(x, n, row);
  return emit_cast(x, n, t, to);
}

static bool map_gelu(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "gelu");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  bool tanh_form = strcmp(attr_str(n, "approximate", "none"), "tanh") == 0;
  c.args.approximate = tanh_form ? 0 : 1;
  call_kw(&c, "approximate=\"%s\"", tanh_form ? "tanh" : "none");
  return emit_call(x, n, &c);
}

/* A bound of Clip: an attribute before opset 11, a constant input since. */
static bool clip_bound(X *x, const OnnxNode *n, const char *attr, int input,
                       double *v, bool *has) {
  const OnnxAttr *a = onnx_attr(n, attr);
  *has = false;
  if (a && a->type == ONNX_ATTR_FLOAT) {
    *v = a->f;
    *has = true;
  } else if (has_input(n, input)) {
    Val *k = known_in(x, n, input, attr);
    if (!k) return false;
    *v = known_at(k, 0);
    *has = true;
  }
  return true;
}

static bool map_clip(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  double lo = 0, hi = 0;
  bool has_lo, has_hi;
  if (!clip_bound(x, n, "min", 1, &lo, &has_lo) ||
      !clip_bound(x, n, "max", 2, &hi, &has_hi))
    return false;
  if (!has_lo && !has_hi) return map_alias(x, n, row);
  Call c;
  call_init(x, &c, "clip");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  if (has_lo) {
    c.args.clip_min = lo;
    call_kw(&c, "min=%s", number_term(x, lo).text);
  }
  if (has_hi) {
    c.args.clip_max = hi;
    call_kw(&c, "max=%s", number_term(x, hi).text);
  }
  return emit_call(x, n, &c);
}

static bool map_where(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (fold_elementwise(x, n)) return !x->error;
  Call c;
  call_init(x, &c, "where");
  Term t[3];
  if (!tensor_in(x, n, 0, &t[0]) || !scalar_or_tensor_in(x, n, 1, &t[1]) ||
      !scalar_or_tensor_in(x, n, 2, &t[2]))
    return false;
  for (int i = 0; i < 3; i++) call_in(&c, t[i]);
  return emit_call(x, n, &c);
}

static bool map_compare(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (fold_elementwise(x, n)) return !x->error;
  return fail(x, "%s is imported only on values rooflint knows (shape "
                 "arithmetic); here it compares tensors",
              n->op_type);
}

/* ---- contractions */

/* Conv's and the pools' pads: symmetric ones as padding=, asymmetric
 * ones by a pad() around x; auto_pad from the input size. */
typedef struct Window {
  int nsp;                   /* spatial axes */
  int64_t kernel[3], stride[3], dil[3], pad_lo[3], pad_hi[3];
} Window;

static bool window_of(X *x, const OnnxNode *n, const TensorType *xt,
                      const int64_t *kernel, int nsp, Window *w) {
  memset(w, 0, sizeof *w);
  w->nsp = nsp;
  int cnt;
  const int64_t *s = attr_ints(n, "strides", &cnt);
  for (int i = 0; i < nsp; i++) w->stride[i] = s && i < cnt ? s[i] : 1;
  const int64_t *d = attr_ints(n, "dilations", &cnt);
  for (int i = 0; i < nsp; i++) w->dil[i] = d && i < cnt ? d[i] : 1;
  for (int i = 0; i < nsp; i++) w->kernel[i] = kernel[i];
  const int64_t *p = attr_ints(n, "pads", &cnt);
  if (p && cnt != 2 * nsp) return fail(x, "its pads have %d entries, not %d", cnt, 2 * nsp);
  for (int i = 0; i < nsp; i++) {
    w->pad_lo[i] = p ? p[i] : 0;
    w->pad_hi[i] = p ? p[nsp + i] : 0;
  }
  const char *ap = attr_str(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
    for (int i = 0; i < nsp; i++) {
      int64_t in = xt->dims[2 + i], st = w->stride[i];
      int64_t out = (in + st - 1) / st;
      int64_t total = (out - 1) * st + (w->kernel[i] - 1) * w->dil[i] + 1 - in;
      if (total < 0) total = 0;
      int64_t small = total / 2, big = total - small;
      w->pad_lo[i] = ap[5] == 'U' ? small : big;
      w->pad_hi[i] = ap[5] == 'U' ? big : small;
    }
  } else if (strcmp(ap, "VALID") == 0) {
    for (int i = 0; i < nsp; i++) w->pad_lo[i] = w->pad_hi[i] = 0;
  }
  return true;
}

static bool window_symmetric(const Window *w) {
  for (int i = 0; i < w->nsp; i++)
    if (w->pad_lo[i] != w->pad_hi[i]) return false;
  return true;
}

/* `[a, b]` or `a` for 1-D. */
static const char *win_text(X *x, const int64_t *v, int nsp) {
  StrBuf sb = {0};
  bool same = true;
  for (int i = 1; i < nsp; i++) same &= v[i] == v[0];
  if (same) sb_printf(&sb, "%lld", (long long)v[0]);
  else put_list(&sb, v, NULL, nsp);
  const char *s = arena_strdup(x->a, sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* x padded asymmetrically: pad(x, [0, 0, lo..., 0, 0, hi...]) as a term. */
static bool pad_term(X *x, Term *xt, const Window *w, double value) {
  Call c;
  call_init(x, &c, "pad");
  call_in(&c, *xt);
  int r = xt->t.rank;
  c.nlist = 2 * r;
  for (int i = 0; i < r; i++) {
    int k = i - (r - w->nsp);
    c.list[i] = k >= 0 ? w->pad_lo[k] : 0;
    c.list[r + i] = k >= 0 ? w->pad_hi[k] : 0;
  }
  c.args.value = value;
  if (value != 0) call_kw(&c, "value=%s", number_term(x, value).text);
  return apply(x, &c, xt);
}

/* conv1d/2d/3d(x, w, ...) with the window of n. */
static bool conv_call(X *x, const OnnxNode *n, Term xt, Term wt, Term *bias,
                      const char *out_dtype, Term *out) {
  int nsp = wt.t.rank - 2;
  if (nsp < 1 || nsp > 3)
    return fail(x, "its weight has rank %d; rooflint has 1-, 2- and 3-D "
                   "convolutions", wt.t.rank);
  static const char *const names[] = {"", "conv1d", "conv2d", "conv3d"};
  Window w;
  if (!window_of(x, n, &xt.t, &wt.t.dims[2], nsp, &w)) return false;
  if (!window_symmetric(&w)) {
    if (!pad_term(x, &xt, &w, 0)) return false;
    for (int i = 0; i < nsp; i++) w.pad_lo[i] = w.pad_hi[i] = 0;
  }
  Call c;
  call_init(x, &c, names[nsp]);
  call_in(&c, xt);
  call_in(&c, wt);
  int64_t group = attr_int(n, "group", 1);
  for (int i = 0; i < nsp; i++) {
    c.args.stride[i] = w.stride[i];
    c.args.padding[i] = w.pad_lo[i];
    c.args.dilation[i] = w.dil[i];
  }
  c.args.groups = group;
  bool any_s = false, any_p = false, any_d = false;
  for (int i = 0; i < nsp; i++)
    any_s |= w.stride[i] != 1, any_p |= w.pad_lo[i] != 0, any_d |= w.dil[i] != 1;
  if (any_s) call_kw(&c, "stride=%s", win_text(x, w.stride, nsp));
  if (any_p) call_kw(&c, "padding=%s", win_text(x, w.pad_lo, nsp));
  if (any_d) call_kw(&c, "dilation=%s", win_text(x, w.dil, nsp));
  if (group != 1) call_kw(&c, "groups=%lld", (long long)group);
  if (out_dtype) {
    c.args.out_dtype = dtype_parse(out_dtype);
    call_kw(&c, "out=%s", out_dtype);
  }
  if (bias) {
    call_in(&c, *bias);
    c.args.bias = true;
    c.bias = true;
  }
  return apply(x, &c, out);
}

/* A convolution node: x, w and the bias (-1: none) at these inputs. */
static bool conv_node(X *x, const OnnxNode *n, int xi, int wi, int bi,
                      const char *out_dtype) {
  Term xt, wt, bt;
  if (!tensor_in(x, n, xi, &xt) || !tensor_in(x, n, wi, &wt)) return false;
  bool has_b = bi >= 0 && has_input(n, bi);
  if (has_b && !tensor_in(x, n, bi, &bt)) return false;
  Term out;
  return conv_call(x, n, xt, wt, has_b ? &bt : NULL, out_dtype, &out) &&
         emit1(x, n, &out);
}

static bool map_conv(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return conv_node(x, n, 0, 1, 2, NULL);
}

static bool map_conv_transpose(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term xt, wt, bt;
  if (!tensor_in(x, n, 0, &xt) || !tensor_in(x, n, 1, &wt)) return false;
  if (wt.t.rank != 4)
    return fail(x, "rooflint has 2-D transposed convolutions; its weight has "
                   "rank %d", wt.t.rank);
  Window w;
  if (!window_of(x, n, &xt.t, &wt.t.dims[2], 2, &w)) return false;
  if (!window_symmetric(&w))
    return fail(x, "its pads are not symmetric");
  Call c;
  call_init(x, &c, "conv_transpose2d");
  call_in(&c, xt);
  call_in(&c, wt);
  int cnt;
  const int64_t *op = attr_ints(n, "output_padding", &cnt);
  int64_t opad[2] = {op && cnt > 0 ? op[0] : 0, op && cnt > 1 ? op[1] : 0};
  for (int i = 0; i < 2; i++) {
    c.args.stride[i] = w.stride[i];
    c.args.padding[i] = w.pad_lo[i];
    c.args.dilation[i] = w.dil[i];
    c.args.output_padding[i] = opad[i];
  }
  c.args.groups = attr_int(n, "group", 1);
  call_kw(&c, "stride=%s", win_text(x, w.stride, 2));
  call_kw(&c, "padding=%s", win_text(x, w.pad_lo, 2));
  if (opad[0] || opad[1]) call_kw(&c, "output_padding=%s", win_text(x, opad, 2));
  if (w.dil[0] != 1 || w.dil[1] != 1) call_kw(&c, "dilation=%s", win_text(x, w.dil, 2));
  if (c.args.groups != 1) call_kw(&c, "groups=%lld", (long long)c.args.groups);
  if (has_input(n, 2)) {
    if (!tensor_in(x, n, 2, &bt)) return false;
    call_in(&c, bt);
    c.args.bias = c.bias = true;
  }
  return emit_call(x, n, &c);
}

static bool transpose_term(X *x, Term *t, const int64_t *perm, int r) {
  Call c;
  call_init(x, &c, "transpose");
  call_in(&c, *t);
  c.nlist = r;
  for (int i = 0; i < r; i++) c.list[i] = perm[i];
  return apply(x, &c, t);
}

static bool mul_term(X *x, Term *t, double k) {
  Call c;
  call_init(x, &c, "mul");
  call_in(&c, *t);
  call_in(&c, number_term(x, k));
  return apply(x, &c, t);
}

static bool map_gemm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term a, b, cterm;
  if (!tensor_in(x, n, 0, &a) || !tensor_in(x, n, 1, &b)) return false;
  static const int64_t swap[2] = {1, 0};
  if (attr_int(n, "transA", 0) && !transpose_term(x, &a, swap, 2)) return false;
  if (attr_int(n, "transB", 0) && !transpose_term(x, &b, swap, 2)) return false;
  double alpha = attr_float(n, "alpha", 1), beta = attr_float(n, "beta", 1);
  bool has_c = has_input(n, 2) && beta != 0;
  Call c;
  call_init(x, &c, "matmul");
  call_in(&c, a);
  call_in(&c, b);
  if (has_c && alpha == 1 && beta == 1) {
    if (!tensor_in(x, n, 2, &cterm)) return false;
    call_in(&c, cterm);
    c.args.bias = c.bias = true;
  }
  Term out;
  if (!apply(x, &c, &out)) return false;
  if (alpha != 1 && !mul_term(x, &out, alpha)) return false;
  if (has_c && !(alpha == 1 && beta == 1)) {
    if (!scalar_or_tensor_in(x, n, 2, &cterm)) return false;
    if (beta != 1 && cterm.t.dtype != DT_NONE && !mul_term(x, &cterm, beta))
      return false;
    Call add;
    call_init(x, &add, "add");
    call_in(&add, out);
    call_in(&add, cterm);
    if (!apply(x, &add, &out)) return false;
  }
  return emit1(x, n, &out);
}

/* matmul(a, b) as the line of its node, which its callers write at once. */
static bool matmul_call(X *x, Term a, Term b, const char *out_dtype, Term *out) {
  Call c;
  call_init(x, &c, "matmul");
  c.text_in_scratch = true;
  call_in(&c, a);
  call_in(&c, b);
  if (out_dtype) {
    c.args.out_dtype = dtype_parse(out_dtype);
    call_kw(&c, "out=%s", out_dtype);
  }
  return apply(x, &c, out);
}

/* A matmul node: its operands at inputs ai and bi. */
static bool matmul_node(X *x, const OnnxNode *n, int ai, int bi,
                        const char *out_dtype) {
  Term a, b, out;
  return tensor_in(x, n, ai, &a) && tensor_in(x, n, bi, &b) &&
         matmul_call(x, a, b, out_dtype, &out) && emit1(x, n, &out);
}

/* Every reader of every value of g and of the graphs in its nodes'
 * attributes (a graph's output is a reader too). */
static void count_uses(X *x, const OnnxGraph *g) {
  for (int i = 0; i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    for (int k = 0; k < n->ninputs; k++)
      if (n->input_ids[k] >= 0) x->uses[n->input_ids[k]]++;
    for (int k = 0; k < n->nattrs; k++) {
      const OnnxAttr *a = &n->attrs[k];
      if (a->type == ONNX_ATTR_GRAPH && a->g) count_uses(x, a->g);
      for (int j = 0; a->type == ONNX_ATTR_GRAPHS && j < a->n; j++)
        if (a->graphs[j]) count_uses(x, a->graphs[j]);
    }
  }
  for (int i = 0; i < g->noutputs; i++)
    if (g->outputs[i].id >= 0) x->uses[g->outputs[i].id]++;
}

/* torch exports nn.Linear on an input of rank > 2 as MatMul(x, W^T) and
 * then Add(bias, that): y = x W^T + b, b [N] broadcast over the rows
 * (ONNX's numpy broadcasting).  The GPU runs the two as one GEMM whose
 * epilogue adds b (cuBLASLt's bias epilogue), so when the next node is
 * such an Add, the only reader of the MatMul's result, and its other
 * operand a weight [N] (or [1, ..., 1, N], no longer than the result) of
 * the result's dtype, it is the matmul's bias=: the Add's input index of
 * the bias in *bi, the Add returned. */
static const OnnxNode *bias_add_after(X *x, const OnnxNode *n, const Term *a,
                                      const Term *b, int *bi) {
  const OnnxGraph *g = x->graph;
  if (!g || n + 1 >= g->nodes + g->nnodes || n->noutputs < 1 || !n->outputs[0][0])
    return NULL;
  const OnnxNode *add = n + 1;
  const char *dom = add->domain ? add->domain : "";
  if (strcmp(add->op_type, "Add") != 0 || (dom[0] && strcmp(dom, "ai.onnx") != 0) ||
      add->ninputs != 2 || add->noutputs < 1 || !add->outputs[0][0])
    return NULL;
  int32_t y = n->output_ids[0];
  int k = add->input_ids[0] == y ? 1 : add->input_ids[1] == y ? 0 : -1;
  Val *bias = k >= 0 ? val_at(x, add->input_ids[k]) : NULL;
  int ro = a->t.rank > b->t.rank ? a->t.rank : b->t.rank;
  if (!bias || bias->decl != VD_WEIGHT || a->t.rank < 2 || b->t.rank < 2 ||
      bias->t.rank < 1 || bias->t.rank > ro ||
      bias->t.dims[bias->t.rank - 1] != b->t.dims[b->t.rank - 1] ||
      bias->t.dtype != dtype_wider(a->t.dtype, b->t.dtype))
    return NULL;
  for (int i = 0; i + 1 < bias->t.rank; i++)
    if (bias->t.dims[i] != 1) return NULL;
  if (!x->uses) {
    x->uses = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *x->uses);
    count_uses(x, x->m->graph);
  }
  if (x->uses[y] != 1) return NULL;
  *bi = k;
  return add;
}

static bool map_matmul(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term a, b, bias;
  int bi;
  if (!tensor_in(x, n, 0, &a) || !tensor_in(x, n, 1, &b)) return false;
  const OnnxNode *add = bias_add_after(x, n, &a, &b, &bi);
  if (!add) {
    Term out;
    return matmul_call(x, a, b, NULL, &out) && emit1(x, n, &out);
  }
  if (!tensor_in(x, add, bi, &bias)) return false;
  Call c;
  call_init(x, &c, "matmul");
  call_in(&c, a);
  call_in(&c, b);
  call_in(&c, bias);
  c.args.bias = c.bias = true;
  /* the line's result is the Add's output */
  val_bind(x, n->output_ids[0], bind_output(x, add, 0));
  x->bias_add = add;
  return emit_call(x, n, &c);
}

/* ---- norms and reductions */

static bool map_softmax(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  int64_t axis = attr_int(n, "axis", x->opset < 13 ? 1 : -1);
  int64_t ax = norm_ax(axis, t.t.rank);
  if (x->opset < 13 && ax != t.t.rank - 1)
    return fail(x, "%s before opset 13 normalises over the dims from axis "
                   "%lld on, flattened; rooflint's softmax takes one axis",
                n->op_type, (long long)axis);
  Call c;
  call_init(x, &c, row->roof);
  call_in(&c, t);
  c.args.axis = axis;
  call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

static void epsilon_kw(X *x, Call *c, const OnnxNode *n, double def) {
  double eps = attr_float(n, "epsilon", def);
  c->args.epsilon = eps;
  call_kw(c, "epsilon=%s", number_term(x, eps).text);
}

static bool map_layernorm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "layernorm");
  for (int i = 0; i < 3 && i < n->ninputs; i++) {
    if (!has_input(n, i)) continue;
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  int64_t axis = attr_int(n, "axis", -1);
  c.args.axis = axis;
  if (axis != -1) call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

static bool map_batchnorm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (attr_int(n, "training_mode", 0))
    return fail(x, "training_mode=1: rooflint imports inference graphs");
  Call c;
  call_init(x, &c, "batchnorm");
  for (int i = 0; i < 5; i++) {
    Val *v = (i < n->ninputs ? val_at(x, n->input_ids[i]) : NULL);
    if (i >= 3 && v && v->decl == VD_WEIGHT && !v->declared)
      v->decl = VD_BUFFER; /* running statistics are no parameters */
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  epsilon_kw(x, &c, n, 1e-5);
  return emit_call(x, n, &c);
}

static bool map_instancenorm(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Call c;
  call_init(x, &c, "instancenorm");
  for (int i = 0; i < 3; i++) {
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  epsilon_kw(x, &c, n, 1e-5);
  return emit_call(x, n, &c);
}

static int cmp_desc(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

static bool map_reduce(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  const int64_t *axes;
  int cnt;
  if (!ints_from(x, n, "axes", 1, &axes, &cnt)) return false;
  int r = t.t.rank;
  int64_t ax[MAX_RANK];
  int na = 0;
  if (cnt == 0) {
    if (attr_int(n, "noop_with_empty_axes", 0)) return map_alias(x, n, row);
    for (int i = 0; i < r; i++) ax[na++] = i;
  } else {
    if (cnt > MAX_RANK) return fail(x, "it reduces %d axes", cnt);
    for (int i = 0; i < cnt; i++) ax[na++] = norm_ax(axes[i], r);
  }
  bool keep = attr_int(n, "keepdims", 1) != 0;
  qsort(ax, (size_t)na, sizeof *ax, cmp_desc); /* the last axis first */
  for (int i = 0; i < na; i++) {
    Call c;
    call_init(x, &c, row->roof);
    call_in(&c, t);
    c.args.axis = ax[i];
    c.args.keepdims = keep;
    call_kw(&c, "axis=%lld", (long long)ax[i]);
    if (keep) call_kw(&c, "keepdims=true");
    if (!apply(x, &c, &t)) return false;
  }
  return emit1(x, n, &t);
}

/* ---- pools */

/* maxpool/avgpool 1d, 2d or 3d by x's rank (N, C and 1 to 3 spatial
 * dims). */
static bool pool_call(X *x, const OnnxNode *n, const char *op, Term xt,
                      const int64_t *kernel, Term *out) {
  int nsp = xt.t.rank - 2;
  if (nsp < 1 || nsp > 3)
    return fail(x, "rooflint's pools are 1-, 2- and 3-D ([N, C, spatial...]); "
                   "x has rank %d", xt.t.rank);
  Window w;
  if (!window_of(x, n, &xt.t, kernel, nsp, &w)) return false;
  static const char *const names[2][3] = {
      {"avgpool1d", "avgpool2d", "avgpool3d"}, {"maxpool1d", "maxpool2d", "maxpool3d"}};
  bool max = op[0] == 'm';
  if (!window_symmetric(&w)) {
    if (!pad_term(x, &xt, &w, max ? -INFINITY : 0)) return false;
    for (int i = 0; i < nsp; i++) w.pad_lo[i] = 0;
  }
  Call c;
  call_init(x, &c, names[max][nsp - 1]);
  call_in(&c, xt);
  bool any_p = false;
  for (int i = 0; i < nsp; i++) {
    c.args.kernel[i] = w.kernel[i];
    c.args.stride[i] = w.stride[i];
    c.args.padding[i] = w.pad_lo[i];
    any_p |= w.pad_lo[i] != 0;
  }
  call_kw(&c, "kernel=%s", win_text(x, w.kernel, nsp));
  call_kw(&c, "stride=%s", win_text(x, w.stride, nsp));
  if (any_p) call_kw(&c, "padding=%s", win_text(x, w.pad_lo, nsp));
  if (attr_int(n, "ceil_mode", 0)) {
    c.args.ceil_mode = true;
    call_kw(&c, "ceil_mode=true");
  }
  return apply(x, &c, out);
}

static bool map_pool(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term xt;
  if (!tensor_in(x, n, 0, &xt)) return false;
  int cnt;
  const int64_t *k = attr_ints(n, "kernel_shape", &cnt);
  if (!k || cnt != xt.t.rank - 2)
    return fail(x, "its kernel_shape has %d entries for x of rank %d", cnt, xt.t.rank);
  int nd;
  const int64_t *dil = attr_ints(n, "dilations", &nd);
  for (int i = 0; dil && i < nd; i++)
    if (dil[i] != 1)
      return fail(x, "its dilations: rooflint's pools are not dilated");
  Term out;
  return pool_call(x, n, row->roof, xt, k, &out) && emit1(x, n, &out);
}

static bool map_global_pool(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Term xt, out;
  return tensor_in(x, n, 0, &xt) &&
         pool_call(x, n, row->roof, xt, &xt.t.dims[2], &out) && emit1(x, n, &out);
}

/* ---- views and movement */

/* A list of dims from known integer values, with their let expressions. */
static bool dims_list(X *x, Val *k, Call *c, const char *what) {
  if (!k->is_int) return fail(x, "its %s are not integers", what);
  if (k->n > 2 * MAX_RANK) return fail(x, "its %s have %lld entries", what, (long long)k->n);
  c->nlist = (int)k->n;
  for (int i = 0; i < c->nlist; i++) {
    c->list[i] = k->iv[i];
    c->list_sym[i] = k->isym ? k->isym[i] : NULL;
  }
  return true;
}

static bool map_reshape(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  Val *shape = known_in(x, n, 1, "shape");
  if (!shape) return false;
  Call c;
  call_init(x, &c, "reshape");
  if (!dims_list(x, shape, &c, "shape")) return false;
  TensorType st = src ? src->t : (TensorType){0};
  bool allowzero = attr_int(n, "allowzero", 0) != 0;
  for (int i = 0; i < c.nlist; i++)
    if (c.list[i] == 0 && !allowzero && src) {
      if (i >= st.rank) return fail(x, "its shape copies dim %d of a rank-%d tensor", i, st.rank);
      c.list[i] = st.dims[i];
      c.list_sym[i] = src->sym[i];
    }
  if (src && src->known && !src->tensor) {
    TensorType t = st;
    t.rank = c.nlist;
    int64_t have = src->n, rest = 1;
    int infer = -1;
    for (int i = 0; i < c.nlist; i++)
      if (c.list[i] == -1) infer = i;
      else rest *= c.list[i] ? c.list[i] : 1, t.dims[i] = c.list[i];
    if (infer >= 0) t.dims[infer] = rest ? have / rest : 0;
    return fold_copy(x, n, src, &t, NULL, src->n);
  }
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  call_in(&c, t);
  return emit_call(x, n, &c);
}

static bool map_transpose(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  int cnt;
  const int64_t *p = attr_ints(n, "perm", &cnt);
  int64_t perm[MAX_RANK];
  int r = t.t.rank;
  for (int i = 0; i < r; i++) perm[i] = p && i < cnt ? p[i] : r - 1 - i;
  if (p && cnt != r) return fail(x, "its perm has %d entries for rank %d", cnt, r);
  Term out = t;
  return transpose_term(x, &out, perm, r) && emit1(x, n, &out);
}

static bool flatten_term(X *x, Term *t, int64_t start, int64_t end) {
  Call c;
  call_init(x, &c, "flatten");
  call_in(&c, *t);
  c.args.start = start;
  c.args.end = end;
  if (start != 0) call_kw(&c, "start=%lld", (long long)start);
  if (end != -1) call_kw(&c, "end=%lld", (long long)end);
  return apply(x, &c, t);
}

/* op(t, axis=AXIS) in place of t: unsqueeze, squeeze. */
static bool axis_term(X *x, const char *op, Term *t, int64_t axis) {
  Call c;
  call_init(x, &c, op);
  call_in(&c, *t);
  c.args.axis = axis;
  call_kw(&c, "axis=%lld", (long long)axis);
  return apply(x, &c, t);
}

static bool unsqueeze_term(X *x, Term *t, int64_t axis) {
  return axis_term(x, "unsqueeze", t, axis);
}

static bool squeeze_term(X *x, Term *t, int64_t axis) {
  return axis_term(x, "squeeze", t, axis);
}

/* Flatten(axis=k): [d0*..*d(k-1), dk*..*d(r-1)]. */
static bool map_flatten(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  int r = t.t.rank;
  int64_t k = norm_ax(attr_int(n, "axis", 1), r);
  if (k == 0) {
    if (!flatten_term(x, &t, 0, -1) || !unsqueeze_term(x, &t, 0)) return false;
  } else if (k == r) {
    if (!flatten_term(x, &t, 0, -1) || !unsqueeze_term(x, &t, 1)) return false;
  } else {
    if (k < r - 1 && !flatten_term(x, &t, k, -1)) return false;
    if (k > 1 && !flatten_term(x, &t, 0, k - 1)) return false;
  }
  if (!strchr(t.text, '(')) return map_alias(x, n, row);
  return emit1(x, n, &t);
}

static bool map_squeeze(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Val *src = in_val(x, n, 0);
  const int64_t *axes;
  int cnt;
  if (!ints_from(x, n, "axes", 1, &axes, &cnt)) return false;
  TensorType st = src ? src->t : (TensorType){0};
  int64_t ax[MAX_RANK];
  int na = 0;
  if (cnt == 0) {
    for (int i = 0; i < st.rank; i++)
      if (st.dims[i] == 1 && !(src && src->sym[i])) ax[na++] = i;
  } else {
    for (int i = 0; i < cnt && na < MAX_RANK; i++) ax[na++] = norm_ax(axes[i], st.rank);
  }
  qsort(ax, (size_t)na, sizeof *ax, cmp_desc);
  if (src && src->known && !src->tensor) {
    TensorType t = st;
    for (int i = 0; i < na; i++) {
      for (int k = (int)ax[i]; k + 1 < t.rank; k++) t.dims[k] = t.dims[k + 1];
      t.rank--;
    }
    return fold_copy(x, n, src, &t, NULL, src->n);
  }
  if (na == 0) return map_alias(x, n, row);
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  for (int i = 0; i < na; i++)
    if (!squeeze_term(x, &t, ax[i])) return false;
  return emit1(x, n, &t);
}

static int cmp_asc(const void *a, const void *b) { return -cmp_desc(a, b); }

static bool map_unsqueeze(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  const int64_t *axes;
  int cnt;
  if (!ints_from(x, n, "axes", 1, &axes, &cnt)) return false;
  TensorType st = src ? src->t : (TensorType){0};
  int r = st.rank + cnt;
  if (cnt < 1 || r > MAX_RANK) return fail(x, "it unsqueezes %d axes of a rank-%d tensor", cnt, st.rank);
  int64_t ax[MAX_RANK];
  for (int i = 0; i < cnt; i++) ax[i] = norm_ax(axes[i], r);
  qsort(ax, (size_t)cnt, sizeof *ax, cmp_asc);
  if (src && src->known && !src->tensor) {
    TensorType t = st;
    for (int i = 0; i < cnt; i++) {
      for (int k = t.rank; k > ax[i]; k--) t.dims[k] = t.dims[k - 1];
      t.dims[ax[i]] = 1;
      t.rank++;
    }
    return fold_copy(x, n, src, &t, NULL, src->n);
  }
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  for (int i = 0; i < cnt; i++)
    if (!unsqueeze_term(x, &t, ax[i])) return false;
  return emit1(x, n, &t);
}

/* Slice's constants, from inputs (opset >= 10) or attributes. */
static bool slice_args(X *x, const OnnxNode *n, const int64_t **st,
                       const int64_t **en, const int64_t **ax,
                       const int64_t **sp, int *cnt) {
  int c1, c2, c3 = 0, c4 = 0;
  *ax = *sp = NULL;
  if (!ints_from(x, n, "starts", 1, st, &c1) || !ints_from(x, n, "ends", 2, en, &c2))
    return false;
  if (!ints_from(x, n, "axes", 3, ax, &c3)) return false;
  if (has_input(n, 4) && !ints_from(x, n, "steps", 4, sp, &c4)) return false;
  if (c1 != c2 || (*ax && c3 != c1) || (*sp && c4 != c1))
    return fail(x, "its starts, ends, axes and steps differ in length");
  *cnt = c1;
  return true;
}

static bool map_slice(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  const int64_t *st, *en, *ax, *sp;
  int cnt = 0;
  if (!slice_args(x, n, &st, &en, &ax, &sp, &cnt)) return false;
  Val *src = in_val(x, n, 0);
  if (src && src->known && !src->tensor && src->t.rank == 1 && cnt == 1) {
    int64_t size = src->n, s = st[0], e = en[0], step = sp ? sp[0] : 1;
    if (step != 1) return fail(x, "a strided slice of a shape");
    if (s < 0) s += size;
    if (e < 0) e += size;
    s = s < 0 ? 0 : s > size ? size : s;
    e = e < 0 ? 0 : e > size ? size : e;
    if (e < s) e = s;
    int64_t pick[2 * MAX_RANK + 1];
    TensorType t = src->t;
    t.dims[0] = e - s;
    if (e - s > 2 * MAX_RANK) goto tensor;
    for (int64_t i = s; i < e; i++) pick[i - s] = i;
    if (e == s) return fail(x, "it slices a shape to nothing");
    return fold_copy(x, n, src, &t, pick, e - s);
  }
tensor:;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  /* starts and ends from shape arithmetic keep their lets: end=sequence */
  Val *sv = has_input(n, 1) ? val_at(x, n->input_ids[1]) : NULL;
  Val *ev = has_input(n, 2) ? val_at(x, n->input_ids[2]) : NULL;
  const char *const *ss = sv && sv->is_int ? sv->isym : NULL;
  const char *const *es = ev && ev->is_int ? ev->isym : NULL;
  for (int i = 0; i < cnt; i++) {
    int64_t a = ax ? norm_ax(ax[i], t.t.rank) : i, step = sp ? sp[i] : 1;
    if (step < 1)
      return fail(x, "its step %lld on axis %lld: rooflint's slices step "
                     "forward", (long long)step, (long long)a);
    int64_t size = a >= 0 && a < t.t.rank ? t.t.dims[a] : 0;
    bool full_start = st[i] == 0 || st[i] <= -size;
    bool full_end = en[i] >= size;
    if (full_start && full_end && step == 1) continue;
    Call c;
    call_init(x, &c, "slice");
    call_in(&c, t);
    c.args.axis = a;
    c.args.start = st[i];
    c.args.end = full_end ? INT64_MAX : en[i];
    c.args.step = step;
    call_kw(&c, "axis=%lld", (long long)a);
    if (!full_start && ss && ss[i]) call_kw(&c, "start=%s", ss[i]);
    else if (!full_start) call_kw(&c, "start=%lld", (long long)st[i]);
    if (!full_end && es && es[i]) call_kw(&c, "end=%s", es[i]);
    else if (!full_end) call_kw(&c, "end=%lld", (long long)en[i]);
    if (step != 1) call_kw(&c, "step=%lld", (long long)step);
    if (!apply(x, &c, &t)) return false;
  }
  if (!strchr(t.text, '(')) return map_alias(x, n, row);
  return emit1(x, n, &t);
}

static bool map_split(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  const int64_t *sizes;
  int cnt;
  if (!ints_from(x, n, "split", 1, &sizes, &cnt)) return false;
  int parts = cnt ? cnt : n->noutputs;
  if (parts < 1) return fail(x, "it splits into no parts");
  if (parts > MAX_RANK * 2 && cnt)
    return fail(x, "it splits into %d parts given as sizes; rooflint's lists "
                   "hold %d", parts, 2 * MAX_RANK);
  int64_t axis = attr_int(n, "axis", 0);
  Term res[64];
  if (parts > 64) return fail(x, "it splits into %d parts", parts);
  for (int r = 0; r < parts; r++) {
    Call c;
    call_init(x, &c, "split");
    call_in(&c, t);
    c.args.axis = axis;
    if (cnt) {
      c.nlist = cnt;
      for (int i = 0; i < cnt; i++) c.list[i] = sizes[i];
    } else {
      c.nlist = -parts;
    }
    if (axis != 0) call_kw(&c, "axis=%lld", (long long)axis);
    c.result = r;
    c.nresults = parts;
    if (!apply(x, &c, &res[r])) return false;
  }
  return emit(x, n, res, parts, res[0].text);
}

static bool map_concat(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  int64_t axis = attr_int(n, "axis", 0);
  if (n->ninputs < 1) return fail(x, "it has no inputs");
  if (all_known(x, n, 0, n->ninputs)) { /* shape lists */
    int64_t total = 0;
    for (int i = 0; i < n->ninputs; i++) {
      Val *v = val_at(x, n->input_ids[i]);
      if (!v->is_int || v->t.rank != 1) goto tensors;
      total += v->n;
    }
    if (total > ONNX_SMALL_ELEMS) goto tensors;
    Val *first = in_val(x, n, 0);
    TensorType t = first->t;
    t.dims[0] = total;
    Val *v = known_new(x, n, 0, true, total, &t);
    if (!v) return true;
    int64_t at = 0;
    for (int i = 0; i < n->ninputs; i++) {
      Val *s = val_at(x, n->input_ids[i]);
      for (int64_t k = 0; k < s->n; k++, at++) {
        v->iv[at] = s->iv[k];
        v->isym[at] = s->isym ? s->isym[k] : NULL;
      }
    }
    emit_folded(x, n, "folded");
    return true;
  }
tensors:;
  Call c;
  call_init(x, &c, "concat");
  if (n->ninputs > CALL_MAX_IN)
    return fail(x, "it concatenates %d tensors; rooflint imports at most %d",
                n->ninputs, CALL_MAX_IN);
  for (int i = 0; i < n->ninputs; i++) {
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  c.args.axis = axis;
  call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

static bool map_gather(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *data = in_val(x, n, 0);
  Val *idx = in_val(x, n, 1);
  int64_t axis = attr_int(n, "axis", 0);
  if (data && data->known && !data->tensor && idx && idx->known && idx->is_int &&
      data->t.rank == 1) { /* Shape -> Gather */
    int64_t pick[ONNX_SMALL_ELEMS];
    if (idx->n > ONNX_SMALL_ELEMS) return fail(x, "too many indices");
    for (int64_t i = 0; i < idx->n; i++) {
      int64_t k = idx->iv[i] < 0 ? idx->iv[i] + data->n : idx->iv[i];
      if (k < 0 || k >= data->n) return fail(x, "index %lld is out of range", (long long)idx->iv[i]);
      pick[i] = k;
    }
    TensorType t = idx->t;
    t.dtype = data->t.dtype;
    return fold_copy(x, n, data, &t, pick, idx->n);
  }
  Term d;
  if (!tensor_in(x, n, 0, &d)) return false;
  if (idx && idx->known && !idx->tensor && idx->n == 1 && idx->t.rank == 0 && idx->is_int) {
    Call c; /* x[:, i]: a view */
    call_init(x, &c, "select");
    call_in(&c, d);
    c.args.axis = axis;
    c.args.index = idx->iv[0];
    call_kw(&c, "axis=%lld, index=%lld", (long long)axis, (long long)idx->iv[0]);
    return emit_call(x, n, &c);
  }
  Term it;
  if (!tensor_in(x, n, 1, &it)) return false;
  Call c;
  call_init(x, &c, "gather");
  call_in(&c, d);
  call_in(&c, it);
  c.args.axis = axis;
  if (axis != 0) call_kw(&c, "axis=%lld", (long long)axis);
  return emit_call(x, n, &c);
}

static bool map_expand(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  Val *shape = known_in(x, n, 1, "shape");
  if (!shape) return false;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  Call c;
  call_init(x, &c, "expand");
  if (!dims_list(x, shape, &c, "shape")) return false;
  /* ONNX broadcasts both ways: a 1 (or a shorter list) keeps x's dim */
  int r = t.t.rank > c.nlist ? t.t.rank : c.nlist;
  int64_t l[2 * MAX_RANK];
  const char *ls[2 * MAX_RANK];
  bool same = r == t.t.rank;
  for (int i = 0; i < r; i++) {
    int k = i - (r - c.nlist), j = i - (r - t.t.rank);
    int64_t want = k >= 0 ? c.list[k] : 1;
    const char *ws = k >= 0 ? c.list_sym[k] : NULL;
    bool keep = j >= 0 && (want == 1 || want == t.t.dims[j]) && !(ws && !t.sym[j]);
    l[i] = keep && j >= 0 ? -1 : want;
    ls[i] = keep ? NULL : ws;
    same &= keep;
  }
  if (same) return map_alias(x, n, row);
  c.nlist = r;
  memcpy(c.list, l, sizeof l);
  memcpy(c.list_sym, ls, sizeof ls);
  call_in(&c, t);
  return emit_call(x, n, &c);
}

static bool map_pad(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  const char *mode = attr_str(n, "mode", "constant");
  if (strcmp(mode, "constant") != 0)
    return fail(x, "mode \"%s\": rooflint's pad is constant", mode);
  const int64_t *pads;
  int cnt;
  if (!ints_from(x, n, "pads", 1, &pads, &cnt)) return false;
  double value = attr_float(n, "value", 0);
  if (has_input(n, 2)) {
    Val *k = known_in(x, n, 2, "constant_value");
    if (!k) return false;
    value = known_at(k, 0);
  }
  if (has_input(n, 3)) return fail(x, "its axes input: rooflint pads every axis");
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  bool zero = true;
  for (int i = 0; i < cnt; i++) zero &= pads[i] == 0;
  if (zero) return map_alias(x, n, row);
  Call c;
  call_init(x, &c, "pad");
  call_in(&c, t);
  if (cnt > 2 * MAX_RANK) return fail(x, "it has %d pads", cnt);
  c.nlist = cnt;
  for (int i = 0; i < cnt; i++) c.list[i] = pads[i];
  c.args.value = value;
  if (value != 0) call_kw(&c, "value=%s", number_term(x, value).text);
  return emit_call(x, n, &c);
}

/* Resize (and Upsample): each output dim is floor(dim * scale) for the
 * scales given, or the sizes given (ONNX's Resize: output_dimension =
 * floor(input_dimension * scale); coordinate_transformation_mode moves
 * the samples, not the shape), over every axis or opset 18's axes.  N and
 * C keep their size; the spatial dims are interpolate(scale=K) when each is
 * K times its input (a symbolic dim keeps its let), else size=[...]. */
static bool map_resize(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  const char *mode = attr_str(n, "mode", "nearest");
  bool linear = strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0;
  if (!linear && strcmp(mode, "nearest") != 0)
    return fail(x, "mode \"%s\": rooflint interpolates nearest or linear", mode);
  int r = t.t.rank, na;
  const int64_t *axes = attr_ints(n, "axes", &na);
  if (!axes) na = r;
  int64_t od[MAX_RANK];
  memcpy(od, t.t.dims, sizeof od);
  /* scales: input 2 (Resize 11+), 1 (Resize 10, Upsample 9), an attribute
   * (Upsample 7); or sizes, input 3 */
  int si = strcmp(n->op_type, "Upsample") == 0 || x->opset < 11 ? 1 : 2;
  Val *sc = in_val(x, n, si);
  const OnnxAttr *sa = onnx_attr(n, "scales");
  bool sized = !(sc && sc->known && sc->n > 0) && has_input(n, 3) && si == 2;
  Val *sz = sized ? known_in(x, n, 3, "sizes") : NULL;
  if (sized && !sz) return false;
  if (!sized && !(sc && sc->known && sc->n > 0) &&
      !(sa && sa->type == ONNX_ATTR_FLOATS))
    return fail(x, "its scales (input %d) are not a constant: rooflint imports "
                   "only shapes it can compute", si);
  int64_t cnt = sized ? sz->n : sc && sc->known ? sc->n : sa->n;
  if (cnt != na)
    return fail(x, "its %s have %lld entries for %d axes", sized ? "sizes" : "scales",
                (long long)cnt, na);
  if (sized && !sz->is_int) return fail(x, "its sizes are not integers");
  if (sized && strcmp(attr_str(n, "keep_aspect_ratio_policy", "stretch"), "stretch") != 0)
    return fail(x, "keep_aspect_ratio_policy \"%s\": rooflint imports \"stretch\"",
                attr_str(n, "keep_aspect_ratio_policy", ""));
  for (int k = 0; k < na; k++) {
    int64_t ax = axes ? norm_ax(axes[k], r) : k;
    if (ax < 0 || ax >= r) return fail(x, "its axis %lld is out of range", (long long)axes[k]);
    double s = sized ? 0 : sc && sc->known ? known_at(sc, k) : sa->floats[k];
    od[ax] = sized ? sz->iv[k] : (int64_t)floor((double)t.t.dims[ax] * s);
    if (od[ax] < 1)
      return fail(x, "it resizes dim %lld (%lld) to %lld", (long long)ax,
                  (long long)t.t.dims[ax], (long long)od[ax]);
  }
  for (int i = 0; i < 2 && i < r; i++)
    if (od[i] != t.t.dims[i])
      return fail(x, "it resizes dim %d (N or C) from %lld to %lld: rooflint "
                     "interpolates the spatial dims", i, (long long)t.t.dims[i],
                  (long long)od[i]);
  int64_t scale = r > 2 && od[2] % t.t.dims[2] == 0 ? od[2] / t.t.dims[2] : 0;
  for (int i = 2; i < r; i++)
    if (od[i] != t.t.dims[i] * scale) scale = 0;
  Call c;
  call_init(x, &c, "interpolate");
  call_in(&c, t);
  c.args.mode = linear;
  if (scale > 0 || r < 3) {
    c.args.scale = scale > 0 ? scale : 1;
    call_kw(&c, "scale=%lld", (long long)c.args.scale);
  } else {
    for (int i = 2; i < r; i++)
      if (t.sym[i])
        return fail(x, "it resizes the symbolic dim %s by a scale that is not "
                       "an integer: rooflint's size= takes numbers", t.sym[i]);
    c.args.scale = 0;
    for (int i = 2; i < r; i++) c.args.size[i - 2] = od[i];
    StrBuf sb = {0};
    put_list(&sb, &od[2], NULL, r - 2);
    call_kw(&c, "size=%s", sb_str(&sb));
    sb_free(&sb);
  }
  if (linear) call_kw(&c, "mode=\"linear\"");
  return emit_call(x, n, &c);
}

/* ---- shape arithmetic */

static bool map_constant(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *v = bind_output(x, n, 0);
  if (!v) return true;
  const OnnxAttr *a = n->nattrs > 0 ? &n->attrs[0] : NULL;
  TensorType t;
  memset(&t, 0, sizeof t);
  if (a && a->type == ONNX_ATTR_TENSOR && a->t) {
    if (!tensor_type(x, a->t, &t)) return false;
    v->t = t;
    tensor_values(x, v, a->t);
    if (!v->known && a->t->ndims == 0) return fail(x, "its value could not be read");
  } else if (a && (a->type == ONNX_ATTR_FLOAT || a->type == ONNX_ATTR_INT)) {
    t.dtype = a->type == ONNX_ATTR_FLOAT ? DT_FP32 : DT_INT64;
    v->t = t;
    v->known = true;
    v->is_int = a->type == ONNX_ATTR_INT;
    v->n = 1;
    if (v->is_int) {
      v->iv = arena_alloc(x->a, 2 * sizeof *v->iv);
      v->isym = arena_alloc(x->a, 2 * sizeof *v->isym);
      v->iv[0] = a->i;
    } else {
      v->rv = arena_alloc(x->a, 2 * sizeof *v->rv);
      v->rv[0] = a->f;
    }
  } else if (a && (a->type == ONNX_ATTR_INTS || a->type == ONNX_ATTR_FLOATS)) {
    t.dtype = a->type == ONNX_ATTR_FLOATS ? DT_FP32 : DT_INT64;
    t.rank = 1;
    t.dims[0] = a->n;
    v->t = t;
    v->known = true;
    v->is_int = a->type == ONNX_ATTR_INTS;
    v->n = a->n;
    if (v->is_int) {
      v->iv = arena_memdup(x->a, a->ints, (size_t)(a->n + 1) * sizeof *a->ints);
      v->isym = arena_alloc(x->a, (size_t)(a->n + 1) * sizeof *v->isym);
    } else {
      v->rv = arena_memdup(x->a, a->floats, (size_t)(a->n + 1) * sizeof *a->floats);
    }
  } else {
    return fail(x, "its value attribute is not one rooflint reads");
  }
  v->decl_origin = arena_origin(x, n);
  if (!v->known) v->decl = VD_BUFFER; /* too large to keep: data */
  emit_folded(x, n, "a constant");
  return true;
}

static bool map_shape(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  if (!src) return fail(x, "its input is not defined before it");
  int r = src->t.rank;
  int64_t s = norm_ax(attr_int(n, "start", 0), r), e = norm_ax(attr_int(n, "end", r), r);
  if (s < 0) s = 0;
  if (e > r) e = r;
  if (e < s) e = s;
  TensorType t = {DT_INT64, 1, {e - s}};
  Val *v = known_new(x, n, 0, true, e - s, &t);
  if (!v) return true;
  for (int64_t i = s; i < e; i++) {
    v->iv[i - s] = src->t.dims[i];
    v->isym[i - s] = src->sym[i];
  }
  emit_folded(x, n, "folded");
  return true;
}

static bool map_size(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *src = in_val(x, n, 0);
  if (!src) return fail(x, "its input is not defined before it");
  TensorType t = {DT_INT64, 0, {0}};
  Val *v = known_new(x, n, 0, true, 1, &t);
  if (!v) return true;
  const char *s = NULL;
  int64_t p = 1;
  for (int i = 0; i < src->t.rank; i++) {
    s = sym_join(x, s, p, src->sym[i], src->t.dims[i], '*');
    p *= src->t.dims[i];
  }
  v->iv[0] = p;
  v->isym[0] = s;
  emit_folded(x, n, "folded");
  return true;
}

/* n's output is data a kernel may read (a buffer, declared when one
 * does) of type t, its dims' let expressions sym; n writes no kernel. */
static bool folded_buffer(X *x, const OnnxNode *n, const TensorType *t,
                          const char *const *sym) {
  Val *v = bind_output(x, n, 0);
  if (!v) return true;
  v->t = *t;
  val_set_sym(x, v, sym);
  v->decl = VD_BUFFER;
  v->decl_origin = arena_origin(x, n);
  emit_folded(x, n, "folded");
  return true;
}

static bool map_constant_of_shape(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *shape = known_in(x, n, 0, "shape");
  if (!shape) return false;
  if (!shape->is_int || shape->n > MAX_RANK) return fail(x, "its shape is not a list of dims");
  const OnnxAttr *a = onnx_attr(n, "value");
  double value = 0;
  TensorType t;
  memset(&t, 0, sizeof t);
  t.dtype = DT_FP32;
  bool is_int = false;
  if (a && a->t) {
    if (!dtype_or_fail(x, a->t->data_type, "its value", &t.dtype)) return false;
    is_int = is_int_type(a->t->data_type);
    if (a->t->ints) value = (double)a->t->ints[0];
    if (a->t->reals) value = a->t->reals[0];
  }
  t.rank = (int)shape->n;
  int64_t cnt = 1;
  for (int i = 0; i < t.rank; i++) {
    if (shape->iv[i] < 1)
      return fail(x, "its shape has a dim of %lld", (long long)shape->iv[i]);
    t.dims[i] = shape->iv[i];
    cnt *= t.dims[i];
  }
  bool sym = false;
  for (int i = 0; i < t.rank; i++) sym |= shape->isym && shape->isym[i];
  if (cnt <= ONNX_SMALL_ELEMS && !sym) {
    Val *v = known_new(x, n, 0, is_int, cnt, &t);
    if (!v) return true;
    for (int64_t i = 0; i < cnt; i++) {
      if (is_int) v->iv[i] = (int64_t)value;
      else v->rv[i] = value;
    }
    emit_folded(x, n, "folded");
    return true;
  }
  const char *sym_dims[MAX_RANK] = {0};
  for (int i = 0; i < t.rank; i++) sym_dims[i] = shape->isym ? shape->isym[i] : NULL;
  return folded_buffer(x, n, &t, sym_dims);
}

static bool map_range(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *s = known_in(x, n, 0, "start"), *l = s ? known_in(x, n, 1, "limit") : NULL;
  Val *d = l ? known_in(x, n, 2, "delta") : NULL;
  if (!d) return false;
  double a = known_at(s, 0), b = known_at(l, 0), st = known_at(d, 0);
  if (st == 0) return fail(x, "its delta is 0");
  double cntd = ceil((b - a) / st);
  if (cntd < 1) return fail(x, "its range is empty");
  if (l->is_int && l->isym && l->isym[0] && s->is_int && a == 0 && st == 1) {
    /* arange(S): data of a symbolic length, a buffer */
    TensorType t = {dtype_of(ONNX_INT64), 1, {(int64_t)b}};
    const char *sym_dims[MAX_RANK] = {l->isym[0]};
    return folded_buffer(x, n, &t, sym_dims);
  }
  if (cntd > ONNX_SMALL_ELEMS) return fail(x, "its range has %g elements", cntd);
  int64_t cnt = (int64_t)cntd;
  TensorType t = {s->is_int ? DT_INT64 : DT_FP32, 1, {cnt}};
  Val *v = known_new(x, n, 0, s->is_int, cnt, &t);
  if (!v) return true;
  for (int64_t i = 0; i < cnt; i++) {
    if (s->is_int) v->iv[i] = (int64_t)(a + (double)i * st);
    else v->rv[i] = a + (double)i * st;
  }
  emit_folded(x, n, "folded");
  return true;
}

/* ---- quantized */

static bool map_quantize(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  return tensor_in(x, n, 0, &t) && emit_cast(x, n, t, DT_INT8);
}

static bool map_dequantize(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Term t;
  if (!tensor_in(x, n, 0, &t)) return false;
  Val *scale = has_input(n, 1) ? val_at(x, n->input_ids[1]) : NULL;
  DType to = scale && scale->t.dtype != DT_NONE ? scale->t.dtype : DT_FP32;
  return emit_cast(x, n, t, to);
}

static bool map_qlinear_conv(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return conv_node(x, n, 0, 3, 8, NULL); /* x, x_scale, x_zp, w, ..., B */
}

static bool map_conv_integer(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return conv_node(x, n, 0, 1, -1, "int32");
}

static bool map_qlinear_matmul(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return matmul_node(x, n, 0, 3, NULL); /* a, a_scale, a_zp, b, ... */
}

static bool map_matmul_integer(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  return matmul_node(x, n, 0, 1, "int32");
}

/* ---- control flow */

static bool translate_nodes(X *x, const OnnxGraph *g, bool top);

/* The nodes of a subgraph (an If's branch, a Loop's body) written where
 * the node that holds it stands; its initializers are weights. */
static bool inline_graph(X *x, const OnnxGraph *g) {
  const OnnxNode *keep = x->node;
  int keep_index = x->node_index;
  for (int i = 0; i < g->ninitializers; i++) {
    Val *v = val_new(x, g->initializers[i].name, g->initializers[i].id);
    if (!tensor_type(x, &g->initializers[i], &v->t)) return false;
    tensor_values(x, v, &g->initializers[i]);
    v->decl = VD_WEIGHT;
  }
  if (!translate_nodes(x, g, false)) return false;
  x->node = keep;
  x->node_index = keep_index;
  return true;
}

static bool map_if(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  Val *cond = known_in(x, n, 0, "condition");
  if (!cond) return false;
  const OnnxAttr *br = onnx_attr(n, known_at(cond, 0) != 0 ? "then_branch" : "else_branch");
  if (!br || !br->g) return fail(x, "its branch is missing");
  const OnnxGraph *g = br->g;
  if (g->noutputs != n->noutputs)
    return fail(x, "its branch has %d outputs for %d", g->noutputs, n->noutputs);
  emit_folded(x, n, known_at(cond, 0) != 0 ? "then_branch inlined"
                                           : "else_branch inlined");
  if (!inline_graph(x, g)) return false;
  for (int i = 0; i < n->noutputs; i++) {
    Val *src = val_at(x, g->outputs[i].id);
    if (!src) return fail(x, "its branch output '%s' is not computed", g->outputs[i].name);
    val_bind(x, n->output_ids[i], src);
  }
  return true;
}

/* Where a Loop's or a Scan's values are: the node's inputs from `in0`
 * and the body's inputs from `body_in0` are the carried values, then the
 * scan inputs (Scan) and their slices; the body's outputs from
 * `body_out0` are the carried values' new values, then the scan outputs,
 * and the node's outputs the final carried values, then the scan outputs
 * stacked. */
typedef struct Body {
  const OnnxGraph *g;
  int64_t trips;
  const char *trips_sym; /* its let expression, or NULL */
  int in0, body_in0, body_out0, ncarried, nscan_in, nscan_out;
  const int64_t *in_axes, *out_axes; /* per scan input and output, or NULL: 0 */
  bool loop_cond;        /* a Loop: the body's output 0 must stay true */
} Body;

/* `loop T {`, each scan input's slice (a view: every trip reads its own,
 * select() says its size), the body inlined, the carried names rebound,
 * `}`; then each scan output stacked along its axis, a view of [T] copies
 * of the last trip's: each trip writes its slice where it stands, so the
 * bytes are the body's, T times (R-COST-005). */
static bool run_body(X *x, const OnnxNode *n, const Body *b) {
  const OnnxGraph *g = b->g;
  Val **carried = arena_alloc(x->a, (size_t)(b->ncarried + 1) * sizeof *carried);
  for (int i = 0; i < b->ncarried; i++) {
    Term in;
    if (!tensor_in(x, n, b->in0 + i, &in)) return false;
    carried[i] = val_at(x, n->input_ids[b->in0 + i]);
    val_bind(x, g->inputs[b->body_in0 + i].id, carried[i]);
  }
  sb_puts(&x->body.text, "  loop ");
  put_dim(&x->body.text, b->trips_sym, b->trips);
  sb_puts(&x->body.text, " {");
  end_node_line(x, n);
  for (int i = 0; i < b->nscan_in; i++) {
    Term in; /* (the index says the slice's size, not which) */
    if (!tensor_in(x, n, b->in0 + b->ncarried + i, &in)) return false;
    int64_t ax = norm_ax(b->in_axes ? b->in_axes[i] : 0, in.t.rank);
    Call c;
    call_init(x, &c, "select");
    call_in(&c, in);
    c.args.axis = ax;
    c.args.index = 0;
    call_kw(&c, "axis=%lld, index=0", (long long)ax);
    Term slice;
    if (!apply(x, &c, &slice)) return false;
    const OnnxValueInfo *in_i = &g->inputs[b->body_in0 + b->ncarried + i];
    Val *v = val_new(x, in_i->name, in_i->id);
    set_tensor(x, v, &slice);
    bind_line(x, n, v->ident, slice.text);
  }
  if (!inline_graph(x, g)) return false;
  Val *cond = b->loop_cond ? val_at(x, g->outputs[0].id) : NULL;
  if (b->loop_cond && !(cond && cond->known && known_at(cond, 0) != 0))
    return fail(x, "its body's condition is not a constant true: its trip "
                   "count depends on the data");
  for (int i = 0; i < b->ncarried; i++) {
    Val *out = val_at(x, g->outputs[b->body_out0 + i].id);
    if (!out || !out->tensor)
      return fail(x, "its body's output '%s' is no tensor", g->outputs[b->body_out0 + i].name);
    if (out != carried[i]) { /* the carried name rebound: loop-carried */
      bind_line(x, n, carried[i]->ident, out->ident);
    }
    if (i < n->noutputs) val_bind(x, n->output_ids[i], carried[i]);
  }
  lines_add(&x->body, "  }", NULL);
  for (int j = 0; j < b->nscan_out; j++) {
    const OnnxValueInfo *so = &g->outputs[b->body_out0 + b->ncarried + j];
    const char *name = so->name;
    Val *sv = val_at(x, so->id);
    if (!sv || !sv->tensor) return fail(x, "its body's scan output '%s' is no tensor", name);
    Term t = {.text = sv->ident, .t = sv->t};
    memcpy(t.sym, sv->sym, sizeof t.sym);
    int64_t ax = norm_ax(b->out_axes ? b->out_axes[j] : 0, t.t.rank + 1);
    if (!unsqueeze_term(x, &t, ax)) return false;
    Call c;
    call_init(x, &c, "expand");
    c.nlist = t.t.rank;
    for (int i = 0; i < c.nlist; i++) c.list[i] = i == ax ? b->trips : -1;
    c.list_sym[ax] = b->trips_sym;
    call_in(&c, t);
    Term out;
    if (!apply(x, &c, &out)) return false;
    int k = b->ncarried + j;
    if (k < n->noutputs && n->outputs[k][0]) {
      Val *v = bind_output(x, n, k);
      set_tensor(x, v, &out);
      bind_line(x, n, v->ident, out.text);
    }
  }
  return true;
}

/* A Loop whose trip count is a constant (or a let) and whose condition
 * stays true: `loop M { body }`, the carried values rebound at the end of
 * the body (R-SCOPE-003 checks they keep their types), its scan outputs
 * stacked [M, ...].  A data-dependent trip count or condition is an
 * error. */
static bool map_loop(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  const OnnxAttr *ba = onnx_attr(n, "body");
  if (!ba || !ba->g) return fail(x, "its body is missing");
  const OnnxGraph *g = ba->g;
  int ncarried = n->ninputs - 2;
  if (ncarried < 0 || g->ninputs != ncarried + 2 || g->noutputs < ncarried + 1)
    return fail(x, "its body's inputs and outputs do not match its %d carried values",
                ncarried < 0 ? 0 : ncarried);
  Val *m = in_val(x, n, 0);
  if (!m || !m->known || !m->is_int || m->n != 1 || m->iv[0] < 1)
    return fail(x, "its trip count is not a constant: rooflint imports a Loop "
                   "that runs a known number of times");
  Val *c = has_input(n, 1) ? val_at(x, n->input_ids[1]) : NULL;
  if (c && !(c->known && known_at(c, 0) != 0))
    return fail(x, "its condition is not a constant true");
  /* the body's condition is the Loop's */
  Val *t = val_new(x, NULL, g->inputs[1].id); /* (no name of its own) */
  t->known = t->is_int = true;
  t->n = 1;
  t->t.dtype = DT_BOOL;
  t->iv = arena_alloc(x->a, 2 * sizeof *t->iv);
  t->isym = arena_alloc(x->a, 2 * sizeof *t->isym);
  t->iv[0] = 1;
  Body b = {.g = g, .trips = m->iv[0], .trips_sym = m->isym ? m->isym[0] : NULL,
            .in0 = 2, .body_in0 = 2, .body_out0 = 1, .ncarried = ncarried,
            .nscan_out = g->noutputs - ncarried - 1, .loop_cond = true};
  return run_body(x, n, &b);
}

/* A Scan (opset 9 on): its body runs once per entry of the scan inputs'
 * scan axis, `loop T { }` over their slices, its state carried, its scan
 * outputs stacked along scan_output_axes. */
static bool map_scan(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  (void)row;
  if (x->opset < 9)
    return fail(x, "Scan before opset 9 has a batch axis and sequence_lens: "
                   "rooflint imports opset 9's");
  const OnnxAttr *ba = onnx_attr(n, "body");
  if (!ba || !ba->g) return fail(x, "its body is missing");
  const OnnxGraph *g = ba->g;
  int nscan = (int)attr_int(n, "num_scan_inputs", 0);
  int nstate = n->ninputs - nscan;
  if (nscan < 1 || nstate < 0 || g->ninputs != n->ninputs || g->noutputs != n->noutputs ||
      g->noutputs < nstate)
    return fail(x, "its body's inputs and outputs do not match its %d state "
                   "values and %d scan inputs", nstate < 0 ? 0 : nstate, nscan);
  int cnt;
  const int64_t *in_axes = attr_ints(n, "scan_input_axes", &cnt);
  if (in_axes && cnt != nscan) return fail(x, "its scan_input_axes have %d entries for %d scan inputs", cnt, nscan);
  const int64_t *out_axes = attr_ints(n, "scan_output_axes", &cnt);
  if (out_axes && cnt != g->noutputs - nstate)
    return fail(x, "its scan_output_axes have %d entries for %d scan outputs", cnt,
                g->noutputs - nstate);
  int64_t trips = 0;
  const char *trips_sym = NULL;
  for (int i = 0; i < nscan; i++) {
    Val *v = in_val(x, n, nstate + i);
    if (!v) return fail(x, "its scan input %d is not defined before it", i);
    int64_t ax = norm_ax(in_axes ? in_axes[i] : 0, v->t.rank);
    if (ax < 0 || ax >= v->t.rank) return fail(x, "its scan axis %lld is out of range", (long long)ax);
    if (i > 0 && v->t.dims[ax] != trips)
      return fail(x, "its scan inputs have %lld and %lld entries on their scan axes",
                  (long long)trips, (long long)v->t.dims[ax]);
    trips = v->t.dims[ax];
    if (i == 0) trips_sym = v->sym[ax];
  }
  Body b = {.g = g, .trips = trips, .trips_sym = trips_sym, .in0 = 0, .body_in0 = 0,
            .body_out0 = 0, .ncarried = nstate, .nscan_in = nscan,
            .nscan_out = g->noutputs - nstate, .in_axes = in_axes, .out_axes = out_axes};
  return run_body(x, n, &b);
}

/* ---------------------------------------------------------- the table */

static const OnnxOpRow op_rows[] = {
#define ONNX_OP(op_type, domain, handler, roof, doc) {op_type, domain, handler, roof, doc},
#include "onnx_ops.def"
#undef ONNX_OP
    {NULL, NULL, NULL, NULL, NULL},
};

/* The row of op_type in domain dom ("": the default), or NULL. */
static const OnnxOpRow *row_lookup(X *x, const char *op_type, const char *dom) {
  if (x->rows.len == 0) /* rows of one op_type are consecutive */
    for (const OnnxOpRow *r = op_rows; r->op_type; r++)
      if (!strmap_get(&x->rows, r->op_type)) strmap_put(&x->rows, r->op_type, (void *)r);
  const OnnxOpRow *r = strmap_get(&x->rows, op_type);
  for (; r && r->op_type && strcmp(r->op_type, op_type) == 0; r++)
    if (strcmp(r->domain, dom) == 0) return r;
  return NULL;
}

static const OnnxOpRow no_row; /* node_rows: an op type with no row */

static const OnnxOpRow *row_for(X *x, const OnnxNode *n) {
  const char *dom = n->domain ? n->domain : "";
  if (strcmp(dom, "ai.onnx") == 0) dom = "";
  if (dom[0]) return row_lookup(x, n->op_type, dom);
  /* the default domain's: looked up once per copy of an op type */
  void **slot = ptrmap_ref(&x->node_rows, n->op_type);
  if (!*slot) {
    const OnnxOpRow *r = row_lookup(x, n->op_type, "");
    *slot = (void *)(r ? r : &no_row);
  }
  return *slot == &no_row ? NULL : *slot;
}

/* --unknown-ops=custom: custom(inputs..., flops=0, bytes=inputs+output,
 * out=TYPE) with its output typed by value_info. */
static const OnnxValueInfo *value_info_of(X *x, const char *name);

static bool map_custom(X *x, const OnnxNode *n) {
  const OnnxValueInfo *vi = n->noutputs ? value_info_of(x, n->outputs[0]) : NULL;
  if (!vi || vi->ndims < 0)
    return fail(x, "op %s%s%s is not one rooflint maps, and its output has no "
                   "shape in value_info to make a custom() of it",
                n->domain && n->domain[0] ? n->domain : "",
                n->domain && n->domain[0] ? "." : "", n->op_type);
  TensorType t;
  memset(&t, 0, sizeof t);
  if (!dtype_or_fail(x, vi->elem_type, vi->name, &t.dtype)) return false;
  t.rank = vi->ndims;
  const char *sym[MAX_RANK] = {0};
  for (int i = 0; i < vi->ndims && i < MAX_RANK; i++) {
    t.dims[i] = vi->dims[i].has_value ? vi->dims[i].value : 1;
    if (!vi->dims[i].has_value && vi->dims[i].param)
      for (int k = 0; k < x->nlets; k++)
        if (strcmp(x->let_keys[k], vi->dims[i].param) == 0) sym[i] = x->lets[k];
  }
  StrBuf sb = {0};
  sb_puts(&sb, "custom(");
  double bytes = 0;
  for (int i = 0; i < n->ninputs; i++) {
    if (!has_input(n, i)) continue;
    Val *v = val_at(x, n->input_ids[i]);
    if (v && v->known && !v->tensor && v->decl == VD_NONE) continue;
    Term in;
    if (!tensor_in(x, n, i, &in)) {
      sb_free(&sb);
      return false;
    }
    sb_printf(&sb, "%s, ", in.text);
    bytes += op_tensor_bytes(&in.t);
  }
  bytes += op_tensor_bytes(&t);
  sb_printf(&sb, "flops=0, bytes=%.17g, out=", bytes);
  put_type(x, &sb, &t, sym);
  sb_putc(&sb, ')');
  Term out;
  memset(&out, 0, sizeof out);
  out.t = t;
  memcpy(out.sym, sym, sizeof sym);
  out.text = arena_strdup(x->a, sb_str(&sb));
  sb_free(&sb);
  if (!strmap_get(&x->warned_ops, n->op_type)) {
    strmap_put(&x->warned_ops, arena_strdup(x->a, n->op_type), (void *)1);
    note(x, &x->body, x->body.n, SEV_WARNING,
         "op %s is not one rooflint maps: --unknown-ops=custom makes each a "
         "custom() whose FLOPs are unknown (counted as 0) and whose bytes are "
         "its inputs and output",
         n->op_type);
  }
  return emit1(x, n, &out);
}

/* ------------------------------------------------------- cross-checks */

static const OnnxValueInfo *value_info_of(X *x, const char *name) {
  const OnnxGraph *g = x->m->graph;
  for (int i = 0; i < g->nvalue_info; i++)
    if (strcmp(g->value_info[i].name, name) == 0) return &g->value_info[i];
  for (int i = 0; i < g->noutputs; i++)
    if (strcmp(g->outputs[i].name, name) == 0) return &g->outputs[i];
  return NULL;
}

/* value_info is a cross-check: a dim it states as a number that the
 * shape rules size otherwise is a warning on the node's line. */
static void cross_check(X *x, const OnnxNode *n) {
  for (int i = 0; i < n->noutputs; i++) {
    int32_t id = n->output_ids[i];
    const OnnxValueInfo *info = id >= 0 && x->vinfo ? x->vinfo[id] : NULL;
    if (!info || info->ndims < 0) continue;
    Val *v = val_at(x, n->output_ids[i]);
    if (!v || !v->tensor) continue;
    bool differ = info->ndims != v->t.rank;
    for (int k = 0; !differ && k < info->ndims; k++)
      differ = info->dims[k].has_value && info->dims[k].value != v->t.dims[k] &&
               !v->sym[k];
    if (!differ) continue;
    StrBuf a = {0}, b = {0};
    put_dims(&a, &v->t, v->sym);
    sb_putc(&b, '[');
    for (int k = 0; k < info->ndims; k++) {
      if (k) sb_puts(&b, ", ");
      if (info->dims[k].has_value) sb_printf(&b, "%lld", (long long)info->dims[k].value);
      else sb_puts(&b, info->dims[k].param ? info->dims[k].param : "?");
    }
    sb_putc(&b, ']');
    note(x, &x->body, x->body.n - 1, SEV_WARNING,
         "value_info gives '%s' the shape %s; rooflint's shape rules give %s",
         n->outputs[i], sb_str(&b), sb_str(&a));
    sb_free(&a);
    sb_free(&b);
  }
}

/* --------------------------------------------------------------- graph */

static bool translate_nodes(X *x, const OnnxGraph *g, bool top) {
  const OnnxGraph *outer = x->graph;
  x->graph = g;
  for (int i = 0; i < g->nnodes && !x->error; i++) {
    const OnnxNode *n = &g->nodes[i];
    x->node = n;
    if (top) x->node_index = n->index;
    const OnnxOpRow *row = row_for(x, n);
    size_t before = x->body.n;
    bool ok;
    if (row) ok = row->map(x, n, row);
    else if (x->o && x->o->unknown_ops_custom) ok = map_custom(x, n);
    else
      ok = fail(x, "op %s%s%s is not one rooflint maps (its FLOPs would be "
                   "unknown); --unknown-ops=custom imports it as a custom() "
                   "costing its bytes only",
                n->domain && n->domain[0] ? n->domain : "",
                n->domain && n->domain[0] ? "." : "", n->op_type);
    if (!ok) break;
    if (top && x->body.n > before) cross_check(x, n);
  }
  x->graph = outer;
  return !x->error;
}

/* `dim_param "batch"`: KIND then the name quoted (R-ONNX-008), in the
 * arena. */
static const char *quoted_origin(X *x, const char *kind, const char *name) {
  x->scratch.len = 0;
  sb_puts(&x->scratch, kind);
  import_put_escaped(&x->scratch, name, IMPORT_QUOTED);
  return arena_strndup(x->a, x->scratch.data, x->scratch.len);
}

/* A dim_param (or an unknown dim) as a let; its value from -D or 1. */
static const char *let_for(X *x, const char *param, int input, int dim) {
  const char *key = param ? param : arena_printf(x->a, "%d:%d", input, dim);
  for (int i = 0; i < x->nlets; i++)
    if (strcmp(x->let_keys[i], key) == 0) return x->lets[i];
  if (x->nlets == x->cap_lets) {
    x->cap_lets = x->cap_lets ? 2 * x->cap_lets : 8;
    x->lets = xrealloc(x->lets, (size_t)x->cap_lets * sizeof *x->lets);
    x->let_keys = xrealloc(x->let_keys, (size_t)x->cap_lets * sizeof *x->let_keys);
    x->let_values = xrealloc(x->let_values, (size_t)x->cap_lets * sizeof *x->let_values);
    x->let_origins = xrealloc(x->let_origins, (size_t)x->cap_lets * sizeof *x->let_origins);
  }
  x->let_keys[x->nlets] = arena_strdup(x->a, key);
  x->let_origins[x->nlets] =
      param ? quoted_origin(x, "dim_param ", param)
            : quoted_origin(x, arena_printf(x->a, "input %d ", input),
                            x->m->graph->inputs[input].name);
  const char *name = param ? ident_for(x, param, "d")
                           : ident_for(x, arena_printf(x->a, "dim_%d_%d", input, dim), "d");
  static const int64_t primes[] = {11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
  enum { NPRIMES = sizeof primes / sizeof *primes };
  int64_t value = !x->probe ? 1
                  : x->nlets < NPRIMES ? primes[x->nlets]
                                       : 59 + 2 * (int64_t)x->nlets;
  for (int i = 0; x->o && i < x->o->noverrides; i++)
    if (strcmp(x->o->overrides[i].name, name) == 0 && !x->o->overrides[i].value.is_real)
      value = x->o->overrides[i].value.i;
  x->lets[x->nlets] = name;
  x->let_values[x->nlets++] = value;
  return name;
}

static int64_t let_value(X *x, const char *name) {
  for (int i = 0; i < x->nlets; i++)
    if (x->lets[i] == name) return x->let_values[i];
  return 1;
}

/* The dominant float dtype: the most elements among the float
 * initializers and inputs (fp32 when there are none). */
static DType plan_of(const OnnxGraph *g) {
  double count[DT__COUNT] = {0};
  for (int i = 0; i < g->ninitializers; i++) {
    const OnnxTensor *t = &g->initializers[i];
    DType d = dtype_of(t->data_type);
    if (d == DT_NONE || !dtype_info(d)->is_float) continue;
    double e = 1;
    for (int k = 0; k < t->ndims; k++) e *= (double)t->dims[k];
    count[d] += e;
  }
  for (int i = 0; i < g->ninputs; i++) {
    DType d = dtype_of(g->inputs[i].elem_type);
    if (d != DT_NONE && dtype_info(d)->is_float) count[d] += 1;
  }
  DType best = DT_FP32;
  for (int d = 0; d < DT__COUNT; d++)
    if (count[d] > count[best]) best = (DType)d;
  return best;
}

/* `initializer 3 "w"`: a declaration's origin, in the arena. */
static const char *decl_origin(X *x, const char *what, int i, const char *name) {
  x->scratch.len = 0;
  sb_puts(&x->scratch, what);
  sb_putc(&x->scratch, ' ');
  put_int(&x->scratch, i);
  sb_putc(&x->scratch, ' ');
  put_quoted(&x->scratch, name);
  return arena_strndup(x->a, x->scratch.data, x->scratch.len);
}

static bool declare_inputs(X *x, const OnnxGraph *g) {
  for (int i = 0; i < g->ninitializers; i++) {
    const OnnxTensor *t = &g->initializers[i];
    Val *v = val_new(x, t->name, t->id);
    if (!tensor_type(x, t, &v->t)) return false;
    tensor_values(x, v, t);
    v->decl = VD_WEIGHT;
    v->decl_origin = decl_origin(x, "initializer", i, t->name);
    if (t->external) v->decl_note = "onnx external data (not opened)";
  }
  for (int i = 0; i < g->ninputs; i++) {
    const OnnxValueInfo *in = &g->inputs[i];
    if (val_at(x, in->id)) continue; /* an initializer listed as an input */
    Val *v = val_new(x, in->name, in->id);
    TensorType t;
    memset(&t, 0, sizeof t);
    if (!dtype_or_fail(x, in->elem_type, in->name, &t.dtype)) return false;
    if (in->ndims < 0)
      return fail(x, "graph input '%s' has no shape; rooflint needs its dims",
                  in->name);
    if (in->ndims > MAX_RANK)
      return fail(x, "graph input '%s' has rank %d", in->name, in->ndims);
    t.rank = in->ndims;
    const char *sym[MAX_RANK] = {0};
    for (int k = 0; k < in->ndims; k++) {
      const OnnxDim *d = &in->dims[k];
      if (d->has_value && d->value >= 1) {
        t.dims[k] = d->value;
      } else {
        sym[k] = let_for(x, d->param, i, k);
        t.dims[k] = let_value(x, sym[k]);
      }
    }
    v->t = t;
    val_set_sym(x, v, sym);
    v->ident = ident_for(x, in->name, "x");
    v->decl_origin = decl_origin(x, "input", i, in->name);
    bool fixed = true;
    for (int k = 0; k < t.rank; k++) fixed &= v->sym[k] == NULL;
    if (x->o && x->o->weights_as_inputs && i > 0 && fixed) {
      /* --weights-as-inputs: an input of fixed shape after the first is a
       * weight, declared when a kernel first reads it */
      v->decl = VD_WEIGHT;
    } else {
      v->decl = VD_INPUT;
      declare(x, v);
    }
  }
  return true;
}

static bool translate(X *x) {
  const OnnxGraph *g = x->m->graph;
  if (!g) return fail(x, "the model has no graph");
  x->opset = 0;
  for (int i = 0; i < x->m->nopsets; i++) {
    const char *d = x->m->opsets[i].domain;
    if (!d || !d[0] || strcmp(d, "ai.onnx") == 0) x->opset = x->m->opsets[i].version;
  }
  x->plan = plan_of(g);
  /* the sections' buffers at about their final size (a transformer
   * export's body line is 100 to 160 bytes, a declaration 60 to 100), so
   * they are not grown and copied while the text is written */
  sb_reserve_to(&x->body.text, (size_t)g->nnodes * 160);
  sb_reserve_to(&x->decls.text, (size_t)(g->ninitializers + g->ninputs) * 100);
  /* the .roof names' map at its final size: each value is named once
   * (a few more: lets, the model); what is known of the values is by id */
  size_t nvals = (size_t)g->ninitializers + (size_t)g->ninputs;
  for (int i = 0; i < g->nnodes; i++) nvals += (size_t)g->nodes[i].noutputs;
  idents_reserve(&x->idents, nvals + 16);
  x->vals = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *x->vals);
  if (g->nvalue_info > 0)
    x->vinfo = onnx_zeroed((size_t)x->m->nnames + 1, sizeof *x->vinfo);
  for (int i = 0; i < g->nvalue_info; i++)
    if (g->value_info[i].id >= 0) x->vinfo[g->value_info[i].id] = &g->value_info[i];
  if (!declare_inputs(x, g)) return false;
  if (!translate_nodes(x, g, true)) return false;
  x->node = NULL;
  /* outputs */
  StrBuf sb = {0};
  for (int i = 0; i < g->noutputs; i++) {
    Val *v = val_at(x, g->outputs[i].id);
    if (!v) {
      sb_free(&sb);
      return fail(x, "graph output '%s' is computed by no node", g->outputs[i].name);
    }
    if (!v->tensor) {
      if (v->decl == VD_NONE) v->decl = VD_BUFFER;
      declare(x, v);
    }
    sb_printf(&sb, "%s%s", sb.len ? ", " : "  output ", v->ident);
  }
  if (sb.len) lines_add(&x->body, sb_str(&sb), NULL);
  sb_free(&sb);
  return true;
}

/* The model's name: the graph's, else the file's stem. */
static const char *model_name(X *x) {
  const char *g = x->m->graph && x->m->graph->name ? x->m->graph->name : "";
  if (g[0]) return ident_for(x, g, "model");
  const char *base = strrchr(x->path, '/');
  base = base ? base + 1 : x->path;
  const char *dot = strrchr(base, '.');
  return ident_for(x, arena_strndup(x->a, base, dot ? (size_t)(dot - base) : strlen(base)),
                   "model");
}

/* Joins the sections into the text and its origins. */
static void assemble(X *x, const char *name, Imported *out) {
  Lines *secs[3] = {&x->head, &x->decls, &x->body};
  size_t nlines = x->head.n + x->decls.n + x->body.n + 8;
  const char *dtype = dtype_str(x->plan);
  /* the head, the model line and the declarations, then the body, which
   * is most of the text: its buffer becomes the text (grown once to the
   * text's size plus the two NULs the source keeps, src_add, and moved up
   * in place), so the body's bytes are never copied to fresh memory */
  StrBuf pre = {0};
  char **origins = xcalloc(nlines, sizeof *origins);
  size_t line = 0;
  size_t first[3];
  for (int s = 0; s < 3; s++) {
    if (s == 1) {
      sb_puts(&pre, "model ");
      sb_puts(&pre, name);
      sb_puts(&pre, " {\n  dtype ");
      sb_puts(&pre, dtype);
      sb_putc(&pre, '\n');
      line += 2;
    }
    first[s] = line;
    if (s < 2) sb_putn(&pre, sb_str(&secs[s]->text), secs[s]->text.len);
    for (size_t i = 0; i < secs[s]->n; i++) {
      origins[line++] = secs[s]->origins[i];
      secs[s]->origins[i] = NULL;
    }
  }
  StrBuf sb = x->body.text;
  x->body.text = (StrBuf){0};
  size_t size = pre.len + sb.len + strlen("}\n") + 2;
  sb.data = xrealloc(sb.data, size);
  sb.cap = size;
  memmove(sb.data + pre.len, sb.data, sb.len);
  memcpy(sb.data, sb_str(&pre), pre.len);
  sb.len += pre.len;
  sb_free(&pre);
  sb_puts(&sb, "}\n");
  line++;
  out->diags = xcalloc(x->ndiags + 1, sizeof *out->diags);
  for (size_t i = 0; i < x->ndiags; i++) {
    struct Pending *p = &x->diags[i];
    int s = p->sec == &x->head ? 0 : p->sec == &x->decls ? 1 : 2;
    out->diags[i] = (ImportDiag){(int)(first[s] + p->index + 1), p->sev, p->msg};
    p->msg = NULL;
  }
  out->ndiags = x->ndiags;
  out->text = sb.data;
  out->len = sb.len;
  out->origins = origins;
  out->norigins = line;
}

static void x_init(X *x, const OnnxModel *m, const ImportOptions *o,
                   const char *path, bool probe) {
  memset(x, 0, sizeof *x);
  x->a = arena_new();
  x->m = m;
  x->o = o;
  x->path = path;
  x->probe = probe;
  strmap_init(&x->warned_ops);
  ptrmap_init(&x->ops);
  ptrmap_init(&x->node_rows);
  strmap_init(&x->rows);
  x->plan = DT_FP32;
}

static void x_free(X *x) {
  for (size_t i = 0; i < x->ndiags; i++) free(x->diags[i].msg);
  free(x->diags);
  free(x->error);
  lines_free(&x->head);
  lines_free(&x->decls);
  lines_free(&x->body);
  sb_free(&x->scratch);
  free(x->lets);
  free(x->let_keys);
  free(x->let_origins);
  free(x->let_values);
  free(x->vals);
  free(x->vinfo);
  free(x->uses);
  idents_free(&x->idents);
  strmap_free(&x->warned_ops);
  ptrmap_free(&x->ops);
  ptrmap_free(&x->node_rows);
  strmap_free(&x->rows);
  arena_free(x->a);
}

int onnx_translate_model(const OnnxModel *m, const char *path,
                                  const ImportOptions *o, Imported *out) {
  memset(out, 0, sizeof *out);
  X x;
  x_init(&x, m, o, path, true);
  bool ok = translate(&x);
  if (!ok) { /* shapes that check only at 1 */
    x_free(&x);
    x_init(&x, m, o, path, false);
    ok = translate(&x);
  }
  ImportStatus st = IMPORT_OK;
  if (ok) {
    const char *name = model_name(&x);
    StrBuf sb = {0};
    sb_puts(&sb, "# ");
    put_comment_text(&sb, path);
    sb_puts(&sb, ": imported from ONNX by rooflint");
    if (m->producer_name && m->producer_name[0]) {
      sb_puts(&sb, " (exported by ");
      put_comment_text(&sb, m->producer_name);
      if (m->producer_version && m->producer_version[0]) sb_putc(&sb, ' ');
      put_comment_text(&sb, m->producer_version ? m->producer_version : "");
      sb_putc(&sb, ')');
    }
    sb_printf(&sb, ", IR version %lld, opset %lld", (long long)m->ir_version,
              (long long)x.opset);
    /* the header goes first; lets after it */
    Lines head = x.head;
    x.head = (Lines){0};
    lines_add(&x.head, sb_str(&sb), NULL);
    sb_free(&sb);
    if (x.nlets > 0) {
      StrBuf names = {0};
      for (int i = 0; i < x.nlets; i++)
        sb_printf(&names, "%s%s", i ? ", " : "", x.lets[i]);
      note(&x, &x.head, x.head.n, SEV_REMARK,
           "the model's symbolic dims are lets, each 1 unless -D NAME=VALUE "
           "binds it (or --sweep NAME=V1,V2 sweeps it): %s",
           sb_str(&names));
      sb_free(&names);
    }
    for (int i = 0; i < x.nlets; i++) {
      sb_printf(&x.head.text, "let %s = 1", x.lets[i]);
      lines_end(&x.head, xstrdup(x.let_origins[i]));
    }
    lines_append(&x.head, &head);
    assemble(&x, name, out);
  } else {
    out->error = x.error;
    x.error = NULL;
    st = IMPORT_INVALID;
  }
  x_free(&x);
  return st;
}

/* ------------------------------------------------------- the importer */

bool onnx_recognises(const char *path, const unsigned char *head, size_t n) {
  (void)head, (void)n;
  size_t len = strlen(path);
  return len > 5 && (strcmp(path + len - 5, ".onnx") == 0 ||
                     strcmp(path + len - 5, ".ONNX") == 0);
}

int onnx_translate(const char *path, const ImportOptions *o,
                            Imported *out) {
  memset(out, 0, sizeof *out);
  char err[512];
  OnnxFile f;
  if (!onnx_map(path, &f, err, sizeof err)) {
    out->error = xprintf("cannot open '%s': %s", path, err);
    return IMPORT_UNREADABLE;
  }
  Arena *a = arena_new();
  OnnxModel m;
  ImportStatus st;
  if (!onnx_read(a, f.bytes, f.len, &m, err, sizeof err)) {
    out->error = xprintf("%s: not a valid ONNX model: %s", path, err);
    st = IMPORT_INVALID;
  } else {
    st = onnx_translate_model(&m, path, o, out);
  }
  arena_free(a);
  onnx_unmap(&f);
  return st;
}
