/* SPDX-License-Identifier: MIT */
/*
 * parse.c: the glue around the generated scanner and parser, and the
 * scanner's helpers.  parse_file() gives one file its own scanner and parse
 * context (no global state, so any number of files parse in one process)
 * and always returns a Program.  The parse_lex_* functions do the real work
 * behind each lexer rule: keywords, numbers with '_' separators and
 * overflow checks, quantities converted to base units, string escapes,
 * `# rooflint:` / `# expect:` comment directives, the bracket stack that
 * decides where newlines count and how deep nesting may go, and stray
 * bytes.  They live here, not in lexer.l, so they build with the full
 * warning set.
 */
#include "ast.h"
#include "source.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "lexer.h"

enum {
  MAX_IDENT_LEN = 1024,      /* R-LEX-004 */
  MAX_LINE_LEN = 1024 * 1024 /* R-LEX-012: bytes per line */
};

Diag *parse_error(ParseCtx *ctx, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Diag *d = diag_vreport(ctx->diags, SEV_ERROR, NULL, loc, fmt, ap);
  va_end(ap);
  ctx->too_many = diag_too_many(ctx->diags);
  ctx->prog->nsyntax_errors++;
  return d;
}

/* Where what outlives the tree goes: names, strings, directive text. */
static Arena *names_arena(const ParseCtx *ctx) {
  return ctx->names ? ctx->names : ctx->arena;
}

static Loc sub_loc(Loc loc, size_t from, size_t to) {
  return (Loc){loc.file, loc.start + (uint32_t)from, loc.start + (uint32_t)to};
}

/* ---- words ----------------------------------------------------------------- */

static const struct {
  const char *word;
  int token;
} keywords[] = {
    {"let", LET},       {"target", TARGET}, {"model", MODEL},
    {"dtype", DTYPE},   {"mode", MODE},     {"parallel", PARALLEL},
    {"input", INPUT},   {"weight", WEIGHT}, {"host", HOST},
    {"repeat", REPEAT}, {"loop", LOOP},     {"fused", FUSED}, {"checkpoint", CHECKPOINT},
    {"output", OUTPUT}, {"true", TRUE},     {"false", FALSE},
    {"buffer", BUFFER}, {"cache", CACHE},   {"experts", EXPERTS},
    {"inf", INF},
};

/* R-LEX-003: keywords are reserved; every other word is a name. */
/* Words seen before, in an open-addressing table: one lookup answers both
 * "keyword?" and "which name is it?": a name's place in the table is its
 * dense id, which the tree carries so sema indexes arrays rather than
 * hashing.  The copies live in the arena; the table is scratch that
 * parse_file frees.  A big model has about one distinct name per op, so
 * a slot holds only a hash and an index (a probe rejects a slot without
 * leaving it) and the copies' addresses sit in a dense array in the order
 * the words were first seen, the keywords first. */
typedef struct Word {
  uint32_t hash; /* a probe compares text only when this matches, and
                    growing the table rehashes without reading text */
  uint32_t id;   /* index into WordTable.text, plus one; 0: empty slot */
} Word;

enum { NKEYWORDS = sizeof keywords / sizeof keywords[0] };

struct WordTable {
  Word *slots;
  size_t cap;         /* a power of two */
  /* text[id - 1]: NUL-terminated; keywords come first.  Past the keywords
   * it is the Program's names[], so it is where the names are (names_arena):
   * the tree's arena may free a chunk of it while sema still reads names. */
  const char **text;
  size_t len, tcap;   /* words in the table; room in text */
  bool heap;          /* slots from xmalloc (parse_file frees them), else arena */
};

static uint64_t load64(const char *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return w;
}

static uint64_t load32(const char *s) {
  uint32_t w;
  memcpy(&w, s, 4);
  return w;
}

/* A 64-bit multiplicative hash folded to 32 bits.  Nothing past the word
 * is read, and no byte one at a time: a word of 8 bytes or more goes 8 at
 * a time, its last 8 overlapping; 4 to 7 bytes are two overlapping 4-byte
 * reads, 1 to 3 bytes the first, middle and last (with the length, each
 * tells its words apart).  Most names are short: a byte loop and its
 * mispredicted exit were a third of a lookup. */
static inline uint32_t word_hash(const char *s, size_t n) {
  const uint64_t k = 0x9E3779B97F4A7C15u;
  uint64_t h = n * k, w;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      h = (h ^ load64(s + i)) * k;
      h ^= h >> 32;
    }
    w = load64(s + n - 8);
  } else if (n >= 4) {
    w = load32(s) | load32(s + n - 4) << 32;
  } else if (n > 0) {
    w = (uint64_t)(unsigned char)s[0] << 16 |
        (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1];
  } else {
    w = 0;
  }
  h = (h ^ w) * k;
  return (uint32_t)(h >> 32);
}

/* The stored word equals the n bytes at s (not NUL-terminated: they are
 * the scanner's text).  The loop stops at the stored word's NUL, which no
 * byte of a word equals, so a shorter stored word is never read past its
 * end. */
static bool word_equal(const char *stored, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (stored[i] != s[i]) return false;
  return stored[n] == '\0';
}

/* The slot of the n bytes at s: theirs, or the empty one to fill. */
static inline Word *word_slot(const struct WordTable *t, const char *s,
                              size_t n, uint32_t h) {
  for (size_t mask = t->cap - 1, i = h & mask;; i = (i + 1) & mask) {
    Word *w = &t->slots[i];
    if (!w->id || (w->hash == h && word_equal(t->text[w->id - 1], s, n)))
      return w;
  }
}

/* Into the first empty slot: the table holds no duplicates. */
static void word_put(struct WordTable *t, Word w) {
  size_t mask = t->cap - 1, i = w.hash & mask;
  while (t->slots[i].id) i = (i + 1) & mask;
  t->slots[i] = w;
}

static void *words_alloc(Arena *a, const struct WordTable *t, size_t n) {
  return t->heap ? xcalloc(n, 1) : arena_alloc(a, n);
}

static void words_grow(Arena *a, struct WordTable *t, size_t cap) {
  struct WordTable old = *t;
  t->cap = cap;
  t->slots = words_alloc(a, t, t->cap * sizeof *t->slots);
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].id) word_put(t, old.slots[i]);
  if (t->heap) free(old.slots);
}

/* Adds a word known to be absent, into `slot` (its empty slot). */
static void word_add(ParseCtx *ctx, struct WordTable *t, Word *slot,
                     const char *text, uint32_t h) {
  if (t->len == t->tcap) { /* doubling: the outgrown copies are a third */
    size_t tcap = t->tcap * 2;
    const char **more = arena_alloc(names_arena(ctx), tcap * sizeof *more);
    memcpy(more, t->text, t->len * sizeof *more);
    t->text = more;
    t->tcap = tcap;
  }
  t->text[t->len++] = text;
  *slot = (Word){h, (uint32_t)t->len};
  if (t->len * 4 > t->cap * 3) words_grow(ctx->arena, t, t->cap * 2);
}

static struct WordTable *words_of(ParseCtx *ctx) {
  if (!ctx->words) {
    ctx->words = ctx->heap_words ? xcalloc(1, sizeof *ctx->words)
                                 : arena_alloc(ctx->arena, sizeof *ctx->words);
    struct WordTable *t = ctx->words;
    t->heap = ctx->heap_words;
    /* Sized for three names every four lines before it grows (a generated
     * model defines about one name a line, and its comments make bytes a
     * poor measure), so a big model does not rehash its way up and the
     * table is no larger than its names need: every probe is a random
     * access, and a smaller table stays in the cache.  A file with few
     * names writes to few of the table's pages, and only written pages of
     * xcalloc'd memory cost anything. */
    size_t cap = 64;
    while (t->heap && cap < ctx->sf->nlines) cap *= 2;
    words_grow(ctx->arena, t, cap);
    t->tcap = cap / 2;
    t->text = arena_alloc(names_arena(ctx), t->tcap * sizeof *t->text);
    for (size_t i = 0; i < NKEYWORDS; i++) {
      const char *k = keywords[i].word;
      size_t n = strlen(k);
      uint32_t h = word_hash(k, n);
      word_add(ctx, t, word_slot(t, k, n, h), k, h);
    }
  }
  return ctx->words;
}

static void words_free(ParseCtx *ctx) {
  if (!ctx->words || !ctx->words->heap) return;
  free(ctx->words->slots);
  free(ctx->words);
  ctx->words = NULL;
}

/* A word the common path does not answer: a new one, or one too long. */
static int word_rare(ParseCtx *ctx, struct WordTable *t, Word *w,
                     const char *text, size_t len, Loc loc, uint32_t h,
                     int *out) {
  if (w->id && w->id <= NKEYWORDS) return keywords[w->id - 1].token;
  if (len > MAX_IDENT_LEN) /* R-LEX-004 */
    parse_error(ctx, loc, "identifier too long (%zu bytes, limit %d)", len,
                MAX_IDENT_LEN);
  if (w->id) {
    *out = (int)(w->id - 1 - NKEYWORDS);
    return IDENT;
  }
  char *copy = arena_strndup(names_arena(ctx), text, len);
  word_add(ctx, t, w, copy, h); /* may move the slots */
  *out = (int)(t->len - 1 - NKEYWORDS);
  return IDENT;
}

/* A name's dense id is its place in the table's text array past the
 * keywords: the order of first appearance.  Nearly every call finds a
 * name seen before, and that path tests one condition. */
int parse_lex_word(ParseCtx *ctx, const char *text, size_t len, uint32_t start,
                   int *out) {
  struct WordTable *t = ctx->words ? ctx->words : words_of(ctx);
  uint32_t h = word_hash(text, len);
  Word *w = word_slot(t, text, len, h);
  if (!w->id || len > MAX_IDENT_LEN)
    return word_rare(ctx, t, w, text, len,
                     (Loc){ctx->file, start, start + (uint32_t)len}, h, out);
  if (w->id <= NKEYWORDS) return keywords[w->id - 1].token;
  *out = (int)(w->id - 1 - NKEYWORDS);
  return IDENT;
}

/* Reads the table the scanner just filled (its slot for a recent name is
 * still in the cache): an id that is no IDENT's value is a broken
 * invariant, not a user error. */
const char *parse_name_text(const ParseCtx *ctx, int id) {
  const struct WordTable *t = ctx->words;
  if (!t || id < 0 || (size_t)id >= t->len - NKEYWORDS)
    die("parse: name id %d out of range", id);
  return t->text[NKEYWORDS + (size_t)id];
}

Ident parse_ident(const ParseCtx *ctx, int id, Loc loc) {
  return ast_ident(parse_name_text(ctx, id), id, loc);
}

/* ---- numbers ----------------------------------------------------------------- */

/* Room for a number's digits without a heap block: longer ones are rare. */
enum { NUMBUF = 64 };

/* `text` without its '_' separators, NUL-terminated, in `buf` when it fits
 * (with `extra` bytes to spare), else in an xmalloc'd block the caller
 * frees.  Scratch, not the arena: only the value is kept. */
static char *strip_separators(const char *text, size_t len, char *buf,
                              size_t extra) {
  char *s = len + 1 + extra <= NUMBUF ? buf : xmalloc(len + 1 + extra);
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] != '_') s[n++] = text[i];
  s[n] = '\0';
  return s;
}

/* R-LEX-006: a real is finite and, unless it is zero as written, at least
 * DBL_MIN in magnitude: no literal is infinite, rounds to zero or is a
 * denormal.  `text` is the number as written (digits before any exponent
 * say whether it is a zero). */
static bool real_in_range(double v, const char *text) {
  if (!isfinite(v)) return false;
  if (fabs(v) >= DBL_MIN) return true;
  for (const char *p = text; *p && *p != 'e' && *p != 'E'; p++)
    if (*p >= '1' && *p <= '9') return false;
  return true;
}

/* R-LEX-005/006: an integer must fit in int64; a number with '.' or an
 * exponent is real. */
int parse_lex_number(ParseCtx *ctx, const char *text, size_t len, Loc loc,
                     Expr **out) {
  /* Most literals are short runs of digits: at most 18 of them are below
   * 10^18, so they need neither the copy nor the overflow checks. */
  if (len <= 18) {
    int64_t v = 0;
    size_t i = 0;
    while (i < len && text[i] >= '0' && text[i] <= '9') v = v * 10 + (text[i++] - '0');
    if (i == len) {
      Expr *e = ast_expr(ctx->arena, EX_INT, loc);
      e->ival = v;
      *out = e;
      return INT;
    }
  }
  char buf[NUMBUF];
  char *s = strip_separators(text, len, buf, 0);
  if (strpbrk(s, ".eE")) {
    Expr *e = ast_expr(ctx->arena, EX_REAL, loc);
    e->rval = strtod(s, NULL);
    bool ok = real_in_range(e->rval, s);
    if (s != buf) free(s);
    if (!ok)
      parse_error(ctx, loc, "real literal '%.*s' is out of range", (int)len, text);
    *out = e;
    return REAL;
  }
  Expr *e = ast_expr(ctx->arena, EX_INT, loc);
  int64_t v = 0;
  for (const char *p = s; *p; p++) {
    if (!util_mul_i64(v, 10, &v) || !util_add_i64(v, *p - '0', &v)) {
      parse_error(ctx, loc, "integer literal too large (limit %lld)",
                  (long long)INT64_MAX);
      v = 0;
      break;
    }
  }
  if (s != buf) free(s);
  e->ival = v;
  *out = e;
  return INT;
}

/* ---- quantities ------------------------------------------------------------ */

/* R-LEX-007: the units.  Decimal prefixes are powers of 1000, binary ones
 * powers of 1024; the value is stored in bytes, B/s, FLOP/s or seconds. */
static const struct {
  const char *unit;
  UnitKind kind;
  int exp10;   /* value = number * 10^exp10 ... */
  int pow1024; /* ... * 1024^pow1024 */
} units[] = {
    {"KB", UNIT_BYTES, 3, 0},           {"MB", UNIT_BYTES, 6, 0},
    {"GB", UNIT_BYTES, 9, 0},           {"TB", UNIT_BYTES, 12, 0},
    {"KiB", UNIT_BYTES, 0, 1},          {"MiB", UNIT_BYTES, 0, 2},
    {"GiB", UNIT_BYTES, 0, 3},          {"TiB", UNIT_BYTES, 0, 4},
    {"B/s", UNIT_BANDWIDTH, 0, 0},      {"KB/s", UNIT_BANDWIDTH, 3, 0},
    {"MB/s", UNIT_BANDWIDTH, 6, 0},     {"GB/s", UNIT_BANDWIDTH, 9, 0},
    {"TB/s", UNIT_BANDWIDTH, 12, 0},    {"FLOP/s", UNIT_FLOPS, 0, 0},
    {"GFLOP/s", UNIT_FLOPS, 9, 0},      {"TFLOP/s", UNIT_FLOPS, 12, 0},
    {"PFLOP/s", UNIT_FLOPS, 15, 0},     {"TOP/s", UNIT_FLOPS, 12, 0},
    {"ns", UNIT_TIME, -9, 0},           {"us", UNIT_TIME, -6, 0},
    {"ms", UNIT_TIME, -3, 0},           {"s", UNIT_TIME, 0, 0},
};

static bool is_idchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* Length of the number at the start of `text`, as {NUMBER} in lexer.l. */
static size_t number_length(const char *text, size_t len) {
  size_t i = 0;
  while (i < len && ((text[i] >= '0' && text[i] <= '9') || text[i] == '_')) i++;
  if (i + 1 < len && text[i] == '.' && text[i + 1] >= '0' && text[i + 1] <= '9') {
    i++;
    while (i < len && text[i] >= '0' && text[i] <= '9') i++;
  }
  if (i < len && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < len && (text[j] == '+' || text[j] == '-')) j++;
    if (j < len && text[j] >= '0' && text[j] <= '9') {
      while (j < len && text[j] >= '0' && text[j] <= '9') j++;
      i = j;
    }
  }
  return i;
}

/* The lexeme is NUMBER, blanks, a word: returns yyleng when it is a
 * quantity (and sets *out), else the length of the number alone. */
int parse_lex_quantity(ParseCtx *ctx, const char *text, size_t len, Loc loc,
                       Expr **out) {
  size_t nlen = number_length(text, len);
  size_t u = nlen;
  while (u < len && (text[u] == ' ' || text[u] == '\t')) u++;
  const char *unit = text + u;
  /* a unit is a whole word (the lexeme holds all of it): `4 GBx` is a
   * number and a name, as the table has no such unit */
  int k = -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strlen(units[i].unit) == len - u && memcmp(units[i].unit, unit, len - u) == 0)
      k = (int)i;
  if (k < 0) return (int)nlen;

  Expr *dummy;
  int errors = ctx->prog->nsyntax_errors;
  parse_lex_number(ctx, text, nlen, sub_loc(loc, 0, nlen), &dummy);
  bool number_ok = ctx->prog->nsyntax_errors == errors;
  /* room to append "e<exponent>" in place */
  enum { EXP_ROOM = 24 };
  char buf[NUMBUF];
  char *num = strip_separators(text, nlen, buf, EXP_ROOM);
  Expr *e = ast_expr(ctx->arena, EX_QUANTITY, loc);
  e->qty.number = strtod(num, NULL);
  e->qty.kind = units[k].kind;
  e->qty.unit = units[k].unit;
  /* Scale in decimal text, so 3.35 TB/s is exactly the double nearest
   * 3.35e12 (multiplying by 1e12 could be off by an ulp). */
  /* R-LEX-007: the exponent is read with saturation (a line holds at most
   * a million digits, so +-10^7 is as good as infinite) and the sum can
   * neither wrap nor overflow. */
  long exp10 = units[k].exp10;
  char *epos = strpbrk(num, "eE");
  if (epos) {
    const char *p = epos + 1;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    long x = 0;
    for (; *p >= '0' && *p <= '9'; p++)
      if (x < 10000000) x = x * 10 + (*p - '0');
    exp10 += neg ? -x : x;
    *epos = '\0';
  }
  size_t digits = strlen(num);
  snprintf(num + digits, EXP_ROOM, "e%ld", exp10);
  e->qty.value = ldexp(strtod(num, NULL), 10 * units[k].pow1024);
  num[digits] = '\0';
  if (number_ok && !real_in_range(e->qty.value, num))
    parse_error(ctx, loc, "quantity '%.*s' is out of range", (int)len, text);
  if (num != buf) free(num);
  *out = e;
  return (int)len;
}

/* ---- strings ------------------------------------------------------------------ */

/* Decodes the body of a string (between the quotes).  R-LEX-008: the escapes
 * are \" \\ \n \t; any other is an error at the escape. */
static Expr *decode_string(ParseCtx *ctx, const char *body, size_t len,
                           Loc body_loc, Loc loc) {
  /* ill-formed UTF-8 becomes U+FFFD (3 bytes for 1): the value is text
   * every output can quote */
  char *s = arena_alloc(names_arena(ctx), 3 * len + 1);
  size_t n = 0;
  bool nul_seen = false;
  for (size_t i = 0; i < len; i++) {
    if (body[i] == '\0') { /* R-LEX-008: one error, at the first NUL */
      if (!nul_seen)
        parse_error(ctx, sub_loc(body_loc, i, i + 1), "a string cannot hold a NUL byte");
      nul_seen = true;
      continue;
    }
    if ((unsigned char)body[i] >= 0x80) {
      size_t k = src_utf8_len(body + i, len - i);
      if (k == 0) {
        memcpy(s + n, "\xEF\xBF\xBD", 3);
        n += 3;
      } else {
        memcpy(s + n, body + i, k);
        n += k;
        i += k - 1;
      }
      continue;
    }
    if (body[i] != '\\' || i + 1 >= len) {
      s[n++] = body[i];
      continue;
    }
    char c = body[++i];
    if (c == 'n')
      s[n++] = '\n';
    else if (c == 't')
      s[n++] = '\t';
    else if (c == '"' || c == '\\')
      s[n++] = c;
    else {
      Loc at = sub_loc(body_loc, i - 1, i + 1);
      if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
        parse_error(ctx, at, "unknown escape sequence '\\%c' (use \\\", \\\\, \\n or \\t)", c);
      else
        parse_error(ctx, at, "unknown escape sequence '\\\\x%02x' (use \\\", \\\\, \\n or \\t)",
                    (unsigned char)c);
      s[n++] = c;
    }
  }
  s[n] = '\0';
  Expr *e = ast_expr(ctx->arena, EX_STRING, loc);
  e->str = s;
  return e;
}

Expr *parse_lex_string(ParseCtx *ctx, const char *text, size_t len, Loc loc) {
  return decode_string(ctx, text + 1, len - 2, sub_loc(loc, 1, len - 1), loc);
}

/* R-LEX-009: a string ends on the line it starts; the error points at the
 * opening quote. */
Expr *parse_lex_unterminated(ParseCtx *ctx, const char *text, size_t len,
                             Loc loc, bool at_newline) {
  Loc quote = sub_loc(loc, 0, 1);
  if (at_newline)
    parse_error(ctx, quote, "missing closing '\"': a string must end on the line it starts");
  else
    parse_error(ctx, quote, "unterminated string: missing closing '\"' before end of file");
  /* a trailing lone backslash has nothing to escape */
  size_t body = len - 1;
  if (body > 0 && text[len - 1] == '\\') {
    size_t bs = 0;
    while (bs < body && text[len - 1 - bs] == '\\') bs++;
    if (bs % 2) body--;
  }
  return decode_string(ctx, text + 1, body, sub_loc(loc, 1, 1 + body), loc);
}

/* ---- comments: suppressions and expectations ----------------------------------- */

typedef struct Cursor {
  const char *text;
  size_t len, i;
  Loc loc; /* of text[0] */
} Cursor;

static void skip_blanks(Cursor *c) {
  while (c->i < c->len && (c->text[c->i] == ' ' || c->text[c->i] == '\t')) c->i++;
}

static bool accept(Cursor *c, const char *word) {
  size_t n = strlen(word);
  if (c->len - c->i < n || memcmp(c->text + c->i, word, n) != 0) return false;
  c->i += n;
  return true;
}

static bool is_checkchar(char c) { return is_idchar(c) || c == '-'; }

/* A check name [A-Za-z0-9_-]+; returns its length (0: none). */
static size_t check_name(Cursor *c) {
  size_t start = c->i;
  while (c->i < c->len && is_checkchar(c->text[c->i])) c->i++;
  return c->i - start;
}

static const char *const suppression_usage =
    "malformed suppression: expected 'ignore[CHECK, ...]' or "
    "'ignore-file[CHECK, ...]'";

/* R-SUP-001: `rooflint: ignore[a, b]` (this line) or `ignore-file[a]`
 * (line 0 = the whole file).  R-SUP-005: a bare `ignore` (the noqa habit)
 * silences every check on its line; anything else malformed is a warning,
 * and the analysis goes on. */
static bool suppression(ParseCtx *ctx, Cursor *c, size_t hash) {
  skip_blanks(c);
  bool file = accept(c, "ignore-file");
  if (!file && !accept(c, "ignore")) goto bad;
  bool word_ends = c->i == c->len || !is_checkchar(c->text[c->i]);
  skip_blanks(c);
  /* bare: nothing after it but a `-- reason` or another `#` segment */
  bool bare = c->i == c->len || c->text[c->i] == '#' ||
              (c->len - c->i >= 2 && memcmp(c->text + c->i, "--", 2) == 0);
  if (!file && word_ends && bare) {
    if (!ctx->skip_directives) src_add_ignore_line(ctx->sf, ctx->line);
    return true;
  }
  if (!accept(c, "[")) goto bad;
  Suppression pending[64];
  int n = 0;
  for (;;) {
    skip_blanks(c);
    size_t start = c->i, len = check_name(c);
    if (len == 0) goto bad;
    if (n < 64)
      pending[n++] = (Suppression){
          file ? 0 : ctx->line,
          arena_strndup(names_arena(ctx), c->text + start, len),
          sub_loc(c->loc, start, start + len)};
    skip_blanks(c);
    if (accept(c, "]")) break;
    if (!accept(c, ",")) goto bad;
  }
  if (!ctx->skip_directives)
    for (int i = 0; i < n; i++) src_add_suppression(ctx->sf, pending[i]);
  return true;
bad:
  diag_report(ctx->diags, SEV_WARNING, NULL, sub_loc(c->loc, hash, c->len),
              "%s", suppression_usage);
  return false;
}

static const struct {
  const char *word;
  Severity sev;
} severities[] = {
    {"error", SEV_ERROR}, {"warning", SEV_WARNING},
    {"note", SEV_NOTE},   {"remark", SEV_REMARK},
};

/* R-VER-001: `expect: SEVERITY[check] "substring"`, check and substring
 * optional. */
static bool expectation(ParseCtx *ctx, Cursor *c, size_t hash) {
  skip_blanks(c);
  size_t start = c->i;
  while (c->i < c->len && c->text[c->i] >= 'a' && c->text[c->i] <= 'z') c->i++;
  int sev = -1;
  for (size_t k = 0; k < sizeof severities / sizeof severities[0]; k++)
    if (strlen(severities[k].word) == c->i - start &&
        memcmp(severities[k].word, c->text + start, c->i - start) == 0)
      sev = (int)severities[k].sev;
  if (sev < 0) {
    parse_error(ctx, sub_loc(c->loc, hash, c->len),
                "malformed expectation: expected 'error', 'warning', 'note' or 'remark'");
    return false;
  }
  Expectation e = {ctx->line, sev, NULL, NULL, LOC_NONE};
  if (accept(c, "[")) {
    size_t cstart = c->i, len = check_name(c);
    if (len == 0 || !accept(c, "]")) {
      parse_error(ctx, sub_loc(c->loc, hash, c->len),
                  "malformed expectation: expected a check name and ']' after '['");
      return false;
    }
    e.check = arena_strndup(names_arena(ctx), c->text + cstart, len);
  }
  skip_blanks(c);
  if (accept(c, "\"")) {
    StrBuf sb = {0};
    bool closed = false;
    while (c->i < c->len) {
      char ch = c->text[c->i++];
      if (ch == '"') {
        closed = true;
        break;
      }
      if (ch == '\\' && c->i < c->len) {
        ch = c->text[c->i++];
        ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
      }
      sb_putc(&sb, ch);
    }
    e.substring = arena_strdup(names_arena(ctx), sb_str(&sb));
    sb_free(&sb);
    if (!closed) {
      parse_error(ctx, sub_loc(c->loc, hash, c->len),
                  "malformed expectation: missing closing '\"' after the message");
      return false;
    }
    skip_blanks(c);
  }
  if (c->i < c->len && c->text[c->i] != '#') {
    parse_error(ctx, sub_loc(c->loc, c->i, c->len),
                "malformed expectation: expected a quoted message after the severity");
    return false;
  }
  e.loc = sub_loc(c->loc, hash, c->i);
  if (!ctx->skip_directives) src_add_expectation(ctx->sf, e);
  return true;
}

/* A comment runs from its '#' to the end of the scanner's line, which the
 * line table knows: the scanner counts line breaks exactly as src_add
 * does, so ctx->line is the line holding loc.start. */
int parse_lex_comment_len(const ParseCtx *ctx, Loc loc) {
  const SourceFile *f = ctx->sf;
  if (ctx->line < 1 || (size_t)ctx->line > f->nlines ||
      f->line_starts[ctx->line - 1] > loc.start)
    die("parse: line %d out of step with offset %u", ctx->line, loc.start);
  uint32_t end = src_line_end(f, ctx->line);
  if (end <= loc.start)
    die("parse: line %d out of step with offset %u", ctx->line, loc.start);
  return (int)(end - loc.start);
}

/* A comment may hold several `#` segments (`# R-X-001  # expect: error`):
 * each one starting with a directive is read as one.  Every directive
 * begins with 'r' or 'e', so most segments are rejected on one byte. */
void parse_lex_comment(ParseCtx *ctx, const char *text, size_t len, Loc loc) {
  Cursor c = {text, len, 0, loc};
  const char *hit;
  while ((hit = memchr(c.text + c.i, '#', c.len - c.i)) != NULL) {
    size_t hash = (size_t)(hit - c.text);
    c.i = hash + 1;
    skip_blanks(&c);
    if (c.i == c.len || (c.text[c.i] != 'r' && c.text[c.i] != 'e')) continue;
    bool ok = true;
    if (accept(&c, "rooflint:"))
      ok = suppression(ctx, &c, hash);
    else if (accept(&c, "expect:"))
      ok = expectation(ctx, &c, hash);
    if (!ok) return;
  }
}

/* ---- brackets and stray bytes ------------------------------------------------- */

/* R-SYN-010: brackets nest at most PARSE_MAX_NEST deep; deeper input stops
 * the parse (no stack grows with the input). */
bool parse_lex_open(ParseCtx *ctx, char c, uint32_t at) {
  Loc loc = {ctx->file, at, at + 1};
  if (ctx->nopen == PARSE_MAX_NEST) {
    parse_error(ctx, loc, "nesting too deep (limit %d)", PARSE_MAX_NEST);
    ctx->stop = true;
    return false;
  }
  ctx->open[ctx->nopen++] = (Opener){c, loc};
  return true;
}

/* R-LEX-010: a stray '@' (Python's matrix product) is reported when the
 * token after it is known, with the call to write instead: `y = x @ w`
 * gets "use matmul(x, w)".  `next` is that token (END at EOF). */
static void stray_at(ParseCtx *ctx, int next, Loc loc) {
  ctx->at_pending = false;
  const char *text = ctx->sf->text;
  uint32_t end = ctx->at_loc.start, start;
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) end--;
  for (start = end; start > 0 && is_idchar(text[start - 1]); start--) {}
  bool lhs = start < end && !(text[start] >= '0' && text[start] <= '9');
  if (lhs && next == IDENT && parse_after_stray(ctx, loc))
    parse_error(ctx, ctx->at_loc, "stray '@' in program; use matmul(%.*s, %.*s) for a matrix product",
                (int)(end - start), text + start, (int)(loc.end - loc.start), text + loc.start);
  else
    parse_error(ctx, ctx->at_loc, "stray '@' in program; a matrix product is written matmul(x, w)");
}

/* Tokens after which a '-' is binary. */
static bool ends_operand(int tok) {
  static const int operand_end[] = {IDENT, INT,   REAL, STRING, QUANTITY,
                                    TRUE,  FALSE, INF,  ')',    ']', '}'};
  for (size_t i = 0; i < sizeof operand_end / sizeof operand_end[0]; i++)
    if (operand_end[i] == tok) return true;
  return false;
}

/* R-SYN-010: `- - - 1` nests like parentheses, so it has the same limit
 * (the parser's stack would otherwise grow with the input). */
int parse_lex_token_any(ParseCtx *ctx, int tok, Loc loc) {
  if (ctx->at_pending) stray_at(ctx, tok, loc);
  if (tok == '-' && !ends_operand(ctx->last_token)) {
    if (++ctx->unary_run > PARSE_MAX_NEST) {
      parse_error(ctx, loc, "nesting too deep (limit %d)", PARSE_MAX_NEST);
      ctx->stop = true;
      return END;
    }
  } else {
    ctx->unary_run = 0;
  }
  ctx->last_token = tok;
  return tok;
}

/* A closer pops its opener and anything left open inside it; a closer
 * without an opener is left to the parser. */
/* The blanks before the first token of the line holding byte `at`, or -1:
 * with `first`, when the byte at `at` is not that first token; and when
 * the line starts more than 1 KiB before `at` (a bounded look back, so a
 * long line of braces stays linear). */
static int line_indent(const SourceFile *f, uint32_t at, bool first) {
  uint32_t start = at;
  while (start > 0 && f->text[start - 1] != '\n' && f->text[start - 1] != '\r') {
    if (at - start >= 1024 || (first && f->text[start - 1] != ' ' &&
                               f->text[start - 1] != '\t'))
      return -1;
    start--;
  }
  uint32_t p = start;
  while (p < f->len && (f->text[p] == ' ' || f->text[p] == '\t')) p++;
  return (int)(p - start);
}

void parse_lex_close(ParseCtx *ctx, char c, uint32_t at) {
  char want = c == ')' ? '(' : c == ']' ? '[' : '{';
  for (int i = ctx->nopen - 1; i >= 0; i--)
    if (ctx->open[i].c == want) {
      int indent = c == '}' && !ctx->has_misclosed
                       ? line_indent(ctx->sf, at, true)
                       : -1;
      if (indent >= 0 && indent < line_indent(ctx->sf, ctx->open[i].loc.start, false)) {
        ctx->has_misclosed = true;
        ctx->misclosed = ctx->open[i].loc;
        ctx->misclosed_by = at;
      }
      ctx->nopen = i;
      return;
    }
}

/* R-LEX-002: newlines inside ( ) and [ ] are blanks. */
bool parse_lex_in_parens(const ParseCtx *ctx) {
  return ctx->nopen > 0 && ctx->open[ctx->nopen - 1].c != '{';
}

/* R-LEX-010: any other byte is an error; it is skipped.  A well-formed
 * UTF-8 character is one stray, quoted as it is; each byte of ill-formed
 * UTF-8 is one, quoted as \xNN. */
int parse_lex_stray(ParseCtx *ctx, const char *text, size_t len, Loc loc) {
  unsigned char c = (unsigned char)text[0];
  size_t k = src_utf8_len(text, len);
  len = k > 1 ? k : 1;
  loc.end = loc.start + (uint32_t)len;
  ctx->stray_end = loc.end;
  if (c == '@') { /* its message names the next token: see stray_at */
    ctx->at_pending = true;
    ctx->at_loc = loc;
    return 1;
  }
  if (len > 1) /* a whole UTF-8 character */
    parse_error(ctx, loc, "stray '%.*s' in program", (int)len, text);
  else if (c >= 0x20 && c < 0x7f)
    parse_error(ctx, loc, "stray '%c' in program", c);
  else
    parse_error(ctx, loc, "stray '\\x%02x' in program", c);
  return (int)len;
}

bool parse_after_stray(const ParseCtx *ctx, Loc at) {
  if (ctx->stray_end < 0 || at.start < ctx->stray_end) return false;
  for (int64_t i = ctx->stray_end; i < at.start; i++)
    if (ctx->sf->text[i] != ' ' && ctx->sf->text[i] != '\t') return false;
  return true;
}

/* The zero-width location just past the last non-blank byte. */
static Loc eof_loc(const ParseCtx *ctx) {
  uint32_t end = (uint32_t)ctx->sf->len;
  while (end > 0 && ctx->sf->text[end - 1] &&
         strchr(" \t\r\n\f\v", ctx->sf->text[end - 1]))
    end--;
  return (Loc){ctx->file, end, end};
}

/* R-SYN-009: a bracket still open at EOF is an error there, with a note at
 * the opener (unless a syntax error already pointed at that opener).  The
 * made-up closers and final NEWLINE let the parser finish every statement,
 * so the tree stays whole. */
int parse_lex_eof(ParseCtx *ctx, Loc *loc) {
  *loc = eof_loc(ctx);
  if (ctx->at_pending) stray_at(ctx, END, *loc);
  if (ctx->stop) return END;
  if (ctx->nopen > 0) {
    const Opener *o = &ctx->open[--ctx->nopen];
    char close = o->c == '(' ? ')' : o->c == '[' ? ']' : '}';
    if (ctx->nsynth++ == 0 && o->loc.start != ctx->noted_open &&
        !diag_too_many(ctx->diags)) {
      Diag *d = parse_error(ctx, *loc, "expected '%c' at end of file", close);
      diag_note(d, o->loc, "to match this '%c'", o->c);
      if (close == '}' && ctx->has_misclosed) { /* R-SYN-014 */
        int line, col;
        src_linecol(ctx->sf, ctx->misclosed_by, &line, &col);
        diag_note(d, ctx->misclosed,
                  "the '}' missing is probably this block's: the '}' on line "
                  "%d closes it, indented as the block around it",
                  line);
      }
    }
    return close;
  }
  if (!ctx->eof_newline) {
    ctx->eof_newline = true;
    return NEWLINE;
  }
  return END;
}

/* R-LEX-012: a line longer than MAX_LINE_LEN bytes is an error (at the
 * first byte past the limit); scanning goes on. */
static void check_line_lengths(ParseCtx *ctx) {
  const SourceFile *f = ctx->sf;
  for (size_t i = 0; i < f->nlines; i++) {
    size_t end = i + 1 < f->nlines ? f->line_starts[i + 1] : f->len;
    size_t len = end - f->line_starts[i];
    while (len > 0 && (f->text[f->line_starts[i] + len - 1] == '\n' ||
                       f->text[f->line_starts[i] + len - 1] == '\r'))
      len--;
    if (len <= MAX_LINE_LEN) continue;
    uint32_t at = f->line_starts[i] + MAX_LINE_LEN;
    parse_error(ctx, (Loc){ctx->file, at, at + 1},
                "line too long (%zu bytes, limit %d)", len, MAX_LINE_LEN);
  }
}

/* ---- lists on the scratch stacks --------------------------------------------- */

List parse_list(const Scratch *s) { return (List){s->top, 0}; }

/* Room for the next element of `l`.  Starting from the list's own end drops
 * whatever a list abandoned by error recovery left above it. */
static void *scratch_push(Scratch *s, List *l, size_t size) {
  s->top = l->base + l->n;
  if (s->top == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->items = xrealloc(s->items, (size_t)s->cap * size);
  }
  l->n++;
  return (char *)s->items + (size_t)s->top++ * size;
}

/* The list's arena copy, at its exact size; pops it. */
static void *scratch_take(ParseCtx *ctx, Scratch *s, List l, size_t size) {
  s->top = l.base;
  if (l.n == 0) return NULL;
  return arena_memdup(ctx->arena, (char *)s->items + (size_t)l.base * size,
                      (size_t)l.n * size);
}

List parse_push_stmt(ParseCtx *ctx, List l, Stmt *s) {
  *(Stmt **)scratch_push(&ctx->stmts, &l, sizeof s) = s;
  return l;
}

List parse_push_expr(ParseCtx *ctx, List l, Expr *e) {
  *(Expr **)scratch_push(&ctx->exprs, &l, sizeof e) = e;
  return l;
}

List parse_push_value(ParseCtx *ctx, List l, Expr *value) {
  *(Arg *)scratch_push(&ctx->args, &l, sizeof(Arg)) = (Arg){NULL, value};
  return l;
}

List parse_push_arg(ParseCtx *ctx, List l, const char *name, Loc name_loc,
                    Expr *value) {
  Ident *key = arena_alloc(ctx->arena, sizeof *key);
  *key = ast_ident(name, NAME_NONE, name_loc);
  *(Arg *)scratch_push(&ctx->args, &l, sizeof(Arg)) = (Arg){key, value};
  return l;
}

List parse_push_name(ParseCtx *ctx, List l, Ident id) {
  *(Ident *)scratch_push(&ctx->idents, &l, sizeof id) = id;
  return l;
}

List parse_skipped(ParseCtx *ctx, List l, Loc loc) {
  return parse_push_stmt(ctx, l, ast_stmt(ctx->arena, ST_ERROR, loc));
}

Block parse_block(ParseCtx *ctx, List l, Loc open, Loc close) {
  Stmt **items = scratch_take(ctx, &ctx->stmts, l, sizeof *items);
  return (Block){items, l.n, open, close};
}

Block *parse_block_ptr(ParseCtx *ctx, List l, Loc open, Loc close) {
  Block *b = arena_alloc(ctx->arena, sizeof *b);
  *b = parse_block(ctx, l, open, close);
  return b;
}

Expr **parse_exprs(ParseCtx *ctx, List l) {
  return scratch_take(ctx, &ctx->exprs, l, sizeof(Expr *));
}

Arg *parse_args(ParseCtx *ctx, List l) {
  return scratch_take(ctx, &ctx->args, l, sizeof(Arg));
}

Ident *parse_names(ParseCtx *ctx, List l) {
  return scratch_take(ctx, &ctx->idents, l, sizeof(Ident));
}

/* ---- the entry point ----------------------------------------------------------- */

Program *parse_file(Arena *a, SourceSet *ss, int file, DiagSink *diags) {
  return parse_file_opts(a, ss, file, diags, NULL);
}

Program *parse_file_opts(Arena *a, SourceSet *ss, int file, DiagSink *diags,
                         const ParseOptions *opts) {
  Program *p = arena_alloc(a, sizeof *p);
  p->file = file;
  ParseCtx *ctx = xcalloc(1, sizeof *ctx);
  ctx->arena = a;
  ctx->diags = diags;
  ctx->ss = ss;
  ctx->sf = ss->files[file];
  ctx->file = file;
  ctx->prog = p;
  ctx->line = 1;
  ctx->stray_end = -1;
  ctx->noted_open = -1;
  ctx->heap_words = true;
  if (opts) {
    ctx->names = opts->names;
    ctx->skip_directives = opts->skip_directives;
  }
  ctx->too_many = diag_too_many(diags);

  check_line_lengths(ctx);
  yyscan_t scanner;
  if (yylex_init_extra(ctx, &scanner) != 0) die("cannot create the scanner");
  /* The scanner works in the text itself (src_add leaves the two NULs flex
   * wants at the end) rather than in a copy.  While it runs, flex borrows
   * the byte after the current token to terminate yytext: the helpers
   * never look past a token for that reason. */
  /* R-LEX-001: a UTF-8 byte-order mark at the start is skipped (offsets
   * still count from the file's first byte). */
  size_t bom = ctx->sf->len >= 3 && memcmp(ctx->sf->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  ctx->offset = (uint32_t)bom;
  YY_BUFFER_STATE buf = yy_scan_buffer(ctx->sf->text + bom, ctx->sf->len + 2 - bom, scanner);
  if (!buf) die("cannot scan '%s' in place", ctx->sf->name);
  /* the trace flag is the generated parser's one global */
  const char *trace = getenv("ROOFLINT_YYDEBUG");
  yydebug = trace && trace[0] && strcmp(trace, "0") != 0;
  yyparse(scanner, ctx);
  /* A parse that stopped early leaves a byte borrowed; switching buffers is
   * flex's way of giving it back. */
  char empty[2] = {0, 0};
  YY_BUFFER_STATE rest = yy_scan_buffer(empty, sizeof empty, scanner);
  yy_delete_buffer(rest, scanner);
  yy_delete_buffer(buf, scanner);
  yylex_destroy(scanner);

  p->top.open = p->top.close = LOC_NONE;
  p->nnames = ctx->words ? (int)(ctx->words->len - NKEYWORDS) : 0;
  p->names = ctx->words ? ctx->words->text + NKEYWORDS : NULL;
  words_free(ctx);
  free(ctx->stmts.items);
  free(ctx->exprs.items);
  free(ctx->args.items);
  free(ctx->idents.items);
  free(ctx);
  return p;
}

const Program *parse_again(ProgramSource *ps) {
  if (!ps->program) {
    DiagSink quiet; /* a clean first parse means a clean second one */
    diag_sink_init(&quiet);
    ParseOptions po = {.names = ps->arena, .skip_directives = true};
    Program *p = parse_file_opts(ps->arena, ps->ss, ps->file, &quiet, &po);
    if (p->nsyntax_errors == 0) ps->program = p;
    diag_sink_free(&quiet);
  }
  return ps->program;
}
