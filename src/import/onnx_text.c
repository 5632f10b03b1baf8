/* SPDX-License-Identifier: MIT */
/*
 * onnx_text.c: the translator's text: lines and their origins, quoted
 * names, the node's error and notes, .roof identifiers, dtypes, dims, let
 * expressions and numbers as the lines write them.
 */
#include "onnx_import.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- util */

/* Ends the line written so far into l->text; l owns origin. */
void lines_end(Lines *l, char *origin) {
  sb_putc(&l->text, '\n');
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->origins = xrealloc(l->origins, l->cap * sizeof *l->origins);
  }
  l->origins[l->n++] = origin;
}

/* At least cap bytes in sb, allocated once (malloc's fresh pages are only
 * zeroed when first written). */
void sb_reserve_to(StrBuf *sb, size_t cap) {
  if (sb->cap >= cap || cap == 0) return;
  sb->data = xrealloc(sb->data, cap);
  if (sb->len == 0) sb->data[0] = '\0';
  sb->cap = cap;
}

void lines_add(Lines *l, const char *text, char *origin) {
  sb_puts(&l->text, text);
  lines_end(l, origin);
}

/* Moves src's lines to the end of dst. */
void lines_append(Lines *dst, Lines *src) {
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

void lines_free(Lines *l) {
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

char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = vxprintf(fmt, ap);
  va_end(ap);
  return s;
}


/* A name as a comment or an origin quotes it: printable ASCII, `"` and
 * `\` escaped, anything else \xNN. */
void put_quoted(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    const unsigned char *run = p; /* a run that needs no escape, put at once */
    while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') p++;
    sb_putn(sb, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    if (*p == '"' || *p == '\\') sb_printf(sb, "\\%c", *p);
    else sb_printf(sb, "\\x%02X", *p);
    p++;
  }
  sb_putc(sb, '"');
}

/* A string from the file as comment text (R-ONNX-008): an op type an
 * export wrote is plain ASCII, put at once; anything else goes through the
 * importers' one escape, so a newline in it cannot end the comment. */
void put_comment_text(StrBuf *sb, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p >= 0x20 && *p < 0x7f && *p != '\\') p++;
  if (!*p) sb_putn(sb, s, (size_t)(p - (const unsigned char *)s));
  else import_put_escaped(sb, s, IMPORT_COMMENT);
}

/* `node 12 "/conv1/Conv" (Conv) @OFFSET+LENGTH`, import.h's origin grammar,
 * appended to sb, from the node's name already quoted (put_quoted):
 * quoted[0, qlen), qlen 0 for a node without a name; a node of a subgraph
 * has its graph's path before the region: `(Relu) in
 * "main_graph/If_1/then_branch"`.  The node being translated,
 * x->node_index's.  Written without printf: every node has one. */
void put_origin(StrBuf *sb, const X *x, const OnnxNode *n, const char *quoted,
                size_t qlen) {
  sb_puts(sb, "node ");
  sb_put_int(sb, x->node_index);
  sb_putc(sb, ' ');
  if (qlen) {
    sb_putn(sb, quoted, qlen);
    sb_putc(sb, ' ');
  }
  sb_putc(sb, '(');
  sb_puts(sb, n->op_type);
  sb_putc(sb, ')');
  if (x->graph_path) {
    sb_puts(sb, " in ");
    put_quoted(sb, x->graph_path);
  }
  sb_puts(sb, " @");
  sb_put_int(sb, (long long)n->offset); /* a region of a file: below 2^63 */
  sb_putc(sb, '+');
  sb_put_int(sb, (long long)n->length);
}

/* put_origin's text, malloc'd in one piece (sized for the common case:
 * the numbers' digits and the separators fit in 64 bytes). */
char *origin_quoted(const X *x, const OnnxNode *n, const char *quoted, size_t qlen) {
  StrBuf sb = {0};
  sb_reserve_to(&sb, 64 + qlen + strlen(n->op_type));
  put_origin(&sb, x, n, quoted, qlen);
  return sb.data; /* never empty */
}

/* n's origin, `node 12 "/conv1/Conv" (Conv)`, malloc'd. */
static char *node_origin(const X *x, const OnnxNode *n) {
  if (!n->name || !n->name[0]) return origin_quoted(x, n, NULL, 0);
  StrBuf q = {0};
  put_quoted(&q, n->name);
  char *s = origin_quoted(x, n, q.data, q.len);
  sb_free(&q);
  return s;
}

/* The error of the node being translated; returns false. */
bool fail(X *x, const char *fmt, ...) {
  if (x->error) return false;
  va_list ap;
  va_start(ap, fmt);
  char *msg = vxprintf(fmt, ap);
  va_end(ap);
  if (x->node) {
    char *where = node_origin(x, x->node);
    unsigned long long off, len;
    int n = (int)src_origin_region(where, &off, &len);
    x->error = xprintf("%s: %.*s: %s", x->path, n, where, msg);
    free(where);
  } else {
    x->error = xprintf("%s: %s", x->path, msg);
  }
  free(msg);
  return false;
}

/* A warning or remark on line `index` of a section (its line number is
 * known once the sections are joined). */
void note(X *x, Lines *sec, size_t index, Severity sev, const char *fmt, ...) {
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
    "cache", "experts", "checkpoint", "inf", NULL};

/* An ONNX name as a .roof identifier, unused so far: [A-Za-z0-9_] kept,
 * runs of anything else one '_', torch's `_output_0` suffix dropped, a
 * keyword or a leading digit prefixed, a taken name numbered. */
static bool ident_char(unsigned char c) { /* isalnum in the C locale, or '_' */
  return (unsigned)((c | 0x20) - 'a') < 26 || (unsigned)(c - '0') < 10 || c == '_';
}

/* Room for n names in all without growing. */
void idents_reserve(Idents *t, size_t n) {
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

void idents_free(Idents *t) {
  free(t->slots);
  free(t->names);
}

const char *ident_for(X *x, const char *onnx, const char *fallback) {
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
  if (n <= 10) /* the longest keyword, "checkpoint" */
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

DType dtype_of(int32_t t) {
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

bool dtype_or_fail(X *x, int32_t t, const char *what, DType *out) {
  *out = dtype_of(t);
  if (*out != DT_NONE) return true;
  return fail(x, "%s has ONNX dtype %s, which rooflint has no dtype for",
              what, onnx_dtype_name(t));
}

/* ------------------------------------------------------ dims and text */

void put_dims(StrBuf *sb, const TensorType *t, const char *const *sym) {
  put_list(sb, t->dims, sym, t->rank);
}

/* `[B, 3]` or `fp16[B, 3]`: a type that follows the plan names no dtype. */
void put_type(X *x, StrBuf *sb, const TensorType *t,
                     const char *const *sym) {
  if (t->dtype != x->plan) sb_puts(sb, dtype_str(t->dtype));
  put_dims(sb, t, sym);
}

/* `[a, b, ...]`: a list of dims, each its let expression or its number. */
void put_list(StrBuf *sb, const int64_t *v, const char *const *sym, int n) {
  sb_putc(sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(sb, ", ");
    op_put_dim(sb, sym ? sym[i] : NULL, v[i]);
  }
  sb_putc(sb, ']');
}

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

Term number_term(X *x, double v) {
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
