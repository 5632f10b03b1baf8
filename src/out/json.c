/* SPDX-License-Identifier: MIT */
/*
 * json.c: `--format json`, one document per run.  The document mirrors the
 * analysis: the tool, the target(s), one entry per (model, target) with a
 * row per graph node, the kernels, collectives, transfers and totals, then
 * every diagnostic with its notes, fix-its and figures.  It is written as
 * it is made (JsonOut), member by member, so that the document's memory is
 * one node's: containers are opened and closed, and each scalar is written
 * straight into the output buffer in jansson's syntax (its escaping, its
 * "%.17g" reals), byte for byte what json_dumpf would write for the whole
 * tree, without a json_t per value.  Numbers are base units (FLOPs, bytes,
 * seconds, FLOP/s, B/s); integral values print as integers so that a byte
 * count reads 33554432 rather than 33554432.0.  Columns are byte columns,
 * as in the text diagnostics.
 */
#include "rooflint.h"
#include "out.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- values */

json_t *json_safe_string(const char *s) {
  if (!s) return json_null();
  json_t *v = json_string(s);
  if (v) return v;
  /* Only invalid UTF-8 makes jansson refuse a string: a name or message
   * quoting a file's raw bytes.  Keep what is valid, mark the rest. */
  StrBuf sb = {0};
  src_utf8_clean(&sb, s, strlen(s), "\xEF\xBF\xBD");
  v = json_string(sb_str(&sb));
  sb_free(&sb);
  return v ? v : json_null();
}

/* R-OUT-002 */
json_t *json_base_number(double v) {
  if (!isfinite(v)) return json_null();
  if (v == floor(v) && fabs(v) < 9007199254740992.0) return json_integer((json_int_t)v);
  return json_real(v);
}

/* ---------------------------------------------------------------- writer */

enum { DUMP_FLAGS = JSON_INDENT(2) | JSON_PRESERVE_ORDER };

static void flush_text(JsonOut *w) {
  fwrite(w->buf, 1, w->len, w->out);
  w->len = 0;
}

/* Room for n more bytes (n at most the buffer's size) at buf + len. */
static inline char *room(JsonOut *w, size_t n) {
  if (sizeof w->buf - w->len < n) flush_text(w);
  return w->buf + w->len;
}

static inline void put(JsonOut *w, const char *p, size_t n) {
  while (n > 0) {
    if (w->len == sizeof w->buf) flush_text(w);
    size_t k = sizeof w->buf - w->len;
    if (k > n) k = n;
    memcpy(w->buf + w->len, p, k);
    w->len += k;
    p += k;
    n -= k;
  }
}

/* Two blanks per level, JSON_OUT_DEPTH levels. */
static const char blanks[] = "                                                                ";
_Static_assert(sizeof blanks - 1 == 2 * JSON_OUT_DEPTH, "one indentation per level");

static void put_indent(JsonOut *w, int depth) {
  put(w, blanks, 2 * (size_t)depth);
}

/* The writers of a member are inlined where they are called, in this
 * file: a member is most of a document's lines, and with the key a literal
 * its length and copy are the compiler's.  (The header's declarations
 * make these the external definitions too.) */
#if defined(__GNUC__)
#define MEMBER_INLINE __attribute__((always_inline)) inline
#else
#define MEMBER_INLINE inline
#endif

enum { MEMBER_ROOM = 64, KEY_ROOM = 64 };

static char *member_long_key(JsonOut *w, char *p, const char *key, size_t klen) {
  w->len = (size_t)(p - w->buf);
  put(w, key, klen);
  put(w, "\": ", 3);
  return room(w, MEMBER_ROOM);
}

/* What jansson writes before a member: a comma after the one before it,
 * a line break and the member's indentation; then its key.  Returns where
 * the value goes, with room for MEMBER_ROOM bytes there. */
static MEMBER_INLINE char *member_at(JsonOut *w, const char *key) {
  char *p = room(w, 2 + sizeof blanks + KEY_ROOM + 4 + MEMBER_ROOM);
  /* The writer's state is read before the text is stored: a store through
   * p may alias it, so the compiler would read it again after each. */
  int depth = w->depth;
  if (depth > 0) {
    bool comma = w->any[depth - 1];
    w->any[depth - 1] = true;
    p[0] = ',';
    p += comma;
    *p++ = '\n';
    memcpy(p, blanks, sizeof blanks - 1); /* whole: one fixed-size copy */
    p += 2 * depth;
  }
  if (!key) return p;
  *p++ = '"';
  size_t klen = strlen(key);
  if (klen > KEY_ROOM) return member_long_key(w, p, key, klen); /* not one of ours */
  memcpy(p, key, klen);
  memcpy(p + klen, "\": ", 3);
  return p + klen + 3;
}

static void member(JsonOut *w, const char *key) {
  w->len = (size_t)(member_at(w, key) - w->buf);
}

/* The document is out when its top-level value is. */
static void done_value(JsonOut *w) {
  if (w->depth > 0) return;
  flush_text(w);
}

MEMBER_INLINE void json_out_open(JsonOut *w, const char *key, char bracket) {
  char *p = member_at(w, key);
  *p++ = bracket;
  w->len = (size_t)(p - w->buf);
  if (w->depth >= JSON_OUT_DEPTH) abort(); /* the writers nest 6 deep */
  w->any[w->depth++] = false;
}

/* An empty container is "{}" or "[]", as jansson writes it. */
MEMBER_INLINE void json_out_close(JsonOut *w, char bracket) {
  char *p = room(w, 2 + sizeof blanks);
  if (w->any[--w->depth]) {
    *p++ = '\n';
    memcpy(p, blanks, sizeof blanks - 1);
    p += 2 * w->depth;
  }
  *p++ = bracket;
  w->len = (size_t)(p - w->buf);
  done_value(w);
}

/* jansson's text of a value, as it comes: its own lines are indented from
 * column 0, so inside the document each line break gets the member's
 * indentation too (a JSON text has no raw line break inside a string). */
static int put_text(const char *p, size_t n, void *data) {
  JsonOut *w = data;
  if (n == 1 && *p == '\n') { /* jansson's line break, before its indent */
    put(w, p, 1);
    put_indent(w, w->depth);
    return 0;
  }
  const char *end = p + n;
  for (const char *nl; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
    put(w, p, (size_t)(nl + 1 - p));
    put_indent(w, w->depth);
  }
  put(w, p, (size_t)(end - p));
  return 0;
}

/* v's text where a member's value goes (its key is out); steals v. */
static void put_value(JsonOut *w, json_t *v) {
  if (!v || json_dump_callback(v, put_text, w, DUMP_FLAGS | JSON_ENCODE_ANY) != 0)
    put(w, "null", 4);
  json_decref(v);
  done_value(w);
}

void json_out_put(JsonOut *w, const char *key, json_t *v) {
  member(w, key);
  put_value(w, v);
}

/* The scalars, written directly in jansson's syntax (json_dump_callback
 * would need a json_t per value, which is most of a node's time). */

MEMBER_INLINE void json_out_null(JsonOut *w, const char *key) {
  char *p = member_at(w, key);
  memcpy(p, "null", 4);
  w->len = (size_t)(p + 4 - w->buf);
  done_value(w);
}

MEMBER_INLINE void json_out_bool(JsonOut *w, const char *key, bool v) {
  char *p = member_at(w, key);
  memcpy(p, v ? "true" : "false", 5);
  w->len = (size_t)(p + (v ? 4 : 5) - w->buf);
  done_value(w);
}

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* Decimal digits of u, as "%llu" writes them, at p; returns their end.
 * Counted first, then written from the right in place (a copy of digits
 * just stored would wait on the stores). */
static char *uint_text(char *p, unsigned long long u) {
  static const unsigned long long pow10[20] = {
      1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
      100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
      10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
      100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
  int n = 1;
  while (n < 20 && u >= pow10[n]) n++;
  char *end = p + n, *q = end;
  while (u >= 100) {
    q -= 2;
    memcpy(q, digit_pairs + 2 * (u % 100), 2);
    u /= 100;
  }
  if (u >= 10) memcpy(q - 2, digit_pairs + 2 * u, 2);
  else q[-1] = (char)('0' + u);
  return end;
}

/* "%lld"'s text of v at p; returns its end. */
static inline char *int_text(char *p, long long v) {
  if (v >= 0 && v < 10) { /* most of them: 0, 1, a column */
    *p = (char)('0' + v);
    return p + 1;
  }
  if (v < 0) {
    *p++ = '-';
    return uint_text(p, 0ull - (unsigned long long)v);
  }
  return uint_text(p, (unsigned long long)v);
}

MEMBER_INLINE void json_out_int(JsonOut *w, const char *key, long long v) {
  char *p = int_text(member_at(w, key), v);
  w->len = (size_t)(p - w->buf);
  done_value(w);
}

/* The 8 decimal digits of v < 10^8, leading zeros included, in two
 * independent halves (a chain of divisions is most of a real's time). */
static inline void digits8(char *p, uint32_t v) {
  uint32_t a = v / 10000, b = v % 10000;
  memcpy(p, digit_pairs + 2 * (a / 100), 2);
  memcpy(p + 2, digit_pairs + 2 * (a % 100), 2);
  memcpy(p + 4, digit_pairs + 2 * (b / 100), 2);
  memcpy(p + 6, digit_pairs + 2 * (b % 100), 2);
}

enum { DIGITS_ROOM = 40 };

/* The 17 significant digits of |v| and the decimal exponent of the first
 * (v = d.ddd * 10^exp), as printf's "%.17g" rounds them (to nearest, ties
 * to even, on the exact binary value); false where |v| is out of the range
 * this does exactly with 128-bit integers (below 1e-16, above 1e38, or a
 * subnormal), so that the caller asks jansson. */
static bool digits17(double v, char d[DIGITS_ROOM], int *exp) {
#ifdef __SIZEOF_INT128__
  __extension__ typedef unsigned __int128 u128;
  static const uint64_t pow5[28] = {
      1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull,
      1953125ull, 9765625ull, 48828125ull, 244140625ull, 1220703125ull,
      6103515625ull, 30517578125ull, 152587890625ull, 762939453125ull,
      3814697265625ull, 19073486328125ull, 95367431640625ull, 476837158203125ull,
      2384185791015625ull, 11920928955078125ull, 59604644775390625ull,
      298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull};
  static const uint64_t lo17 = 10000000000000000ull, hi17 = 100000000000000000ull;
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  int bexp = (int)((bits >> 52) & 0x7FF);
  if (bexp == 0 || bexp == 0x7FF) return false;
  uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
  int e = bexp - 1075; /* |v| = m * 2^e, 2^52 <= m < 2^53 */
  int b = e + 52;      /* 2^b <= |v| < 2^(b+1) */
  /* floor(b * log10(2)): the exponent, or one less. */
  int x = b >= 0 ? (b * 78913) >> 18 : -((-b * 78913 + (1 << 18) - 1) >> 18);
  for (int tries = 0; tries < 3; tries++) {
    int k = 16 - x; /* N = round(|v| * 10^k) = round(m * 5^k * 2^(e + k)) */
    u128 n;
    if (k >= 0) {
      if (k > 32) return false; /* m * 5^k past 2^128 */
      u128 p5 = k <= 27 ? (u128)pow5[k] : (u128)pow5[27] * pow5[k - 27];
      u128 num = (u128)m * p5;
      int sh = e + k;
      if (sh >= 0) {
        if (sh > 10) return false; /* too large for this x: never the case */
        n = num << sh;
      } else {
        int t = -sh;
        if (t >= 128) return false;
        n = num >> t;
        u128 rem = num - (n << t), half = (u128)1 << (t - 1);
        if (rem > half || (rem == half && (n & 1))) n++;
      }
    } else {
      int j = -k; /* N = round(m * 2^(e - j) / 5^j) */
      if (j > 54 || e - j < 0 || e - j + 53 >= 128) return false;
      u128 p5 = j <= 27 ? (u128)pow5[j] : (u128)pow5[27] * pow5[j - 27];
      u128 num = (u128)m << (e - j);
      n = num / p5;
      u128 rem = num - n * p5;
      if (2 * rem > p5 || (2 * rem == p5 && (n & 1))) n++;
    }
    if (n >= hi17) {
      x++;
      continue;
    }
    if (n < lo17) {
      x--;
      continue;
    }
    uint64_t u = (uint64_t)n;
    uint32_t hi = (uint32_t)(u / 100000000), lo = (uint32_t)(u % 100000000);
    d[0] = (char)('0' + hi / 100000000);
    digits8(d + 1, hi % 100000000);
    digits8(d + 9, lo);
    *exp = x;
    return true;
  }
  return false;
#else
  (void)v, (void)d, (void)exp;
  return false;
#endif
}

/* jansson's text of a real (jsonp_dtostr) at p, from its digits: "%.17g",
 * then ".0" where that has neither '.' nor 'e', and the exponent without
 * '+' or leading zeros (1e+300 is 1e300, 5e-06 is 5e-6).  Returns its end
 * (25 bytes at most, 36 written). */
static char *real_text(char *p, double v, const char d[DIGITS_ROOM], int x) {
  int nd = 17; /* %g drops trailing zeros */
  while (nd > 1 && d[nd - 1] == '0') nd--;
  /* Fixed-size copies, then the pointer moves by what counts: d has room
   * past its 17 digits, p past the longest text. */
  if (signbit(v)) *p++ = '-';
  if (x < -4 || x >= 17) { /* d.ddde-X */
    *p++ = d[0];
    *p = '.';
    memcpy(p + 1, d + 1, 16);
    p += nd > 1 ? nd : 0;
    *p++ = 'e';
    p = int_text(p, x);
  } else if (x >= 0) { /* ddd.ddd, or ddd.0 */
    memcpy(p, d, 17);
    p += x + 1;
    *p++ = '.';
    if (nd > x + 1) {
      memcpy(p, d + x + 1, 16);
      p += nd - x - 1;
    } else {
      *p++ = '0';
    }
  } else { /* 0.000ddd */
    memcpy(p, "0.0000", 6);
    p += 2 + (-x - 1);
    memcpy(p, d, 17);
    p += nd;
  }
  return p;
}

void json_out_real(JsonOut *w, const char *key, double v) {
  char d[DIGITS_ROOM];
  int x;
  if (!digits17(v, d, &x)) {
    json_out_put(w, key, json_real(v)); /* NULL (not finite) is null */
    return;
  }
  char *p = member_at(w, key); /* 25 bytes at most; room for 64 */
  w->len = (size_t)(real_text(p, v, d, x) - w->buf);
  done_value(w);
}

/* R-OUT-002: json_base_number's text of v at p (MEMBER_ROOM bytes there);
 * returns its end, or NULL where jansson writes it (not finite, or a real
 * out of digits17's range). */
static char *num_text(char *p, double v) {
  if (fabs(v) < 9007199254740992.0 && (double)(long long)v == v) return int_text(p, (long long)v);
  char d[DIGITS_ROOM];
  int x;
  return digits17(v, d, &x) ? real_text(p, v, d, x) : NULL;
}

MEMBER_INLINE void json_out_num(JsonOut *w, const char *key, double v) {
  char *p = member_at(w, key);
  char *end = num_text(p, v);
  if (!end) {
    w->len = (size_t)(p - w->buf);
    put_value(w, json_real(v)); /* NULL (not finite) is null */
    return;
  }
  w->len = (size_t)(end - w->buf);
  done_value(w);
}

/* json_safe_string's text as jansson dumps it: '"' and '\\' escaped, the
 * controls as \b \f \n \r \t or \u00XX, everything else (UTF-8, '/', DEL)
 * as it is, and each ill-formed byte as U+FFFD (src_utf8_clean's rule). */
static void string_text(JsonOut *w, char *p, const char *s) {
  static const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  *p++ = '"';
  /* Each step writes 8 bytes at most: keep that much room. */
  char *lim = w->buf + sizeof w->buf - 8;
  const unsigned char *c = (const unsigned char *)s, *end = c + strlen(s);
  while (c < end) {
    if (p >= lim) {
      w->len = (size_t)(p - w->buf);
      p = room(w, sizeof w->buf);
    }
    if (end - c >= 8) { /* 8 bytes none of which needs a look: as they are */
      uint64_t x, q, b;
      memcpy(&x, c, 8);
      q = x ^ (ones * '"');
      b = x ^ (ones * '\\');
      uint64_t odd = ((x - ones * 0x20) & ~x) | x | ((q - ones) & ~q) | ((b - ones) & ~b);
      if (!(odd & highs)) { /* no control, non-ASCII, '"' or '\\' */
        memcpy(p, c, 8);
        p += 8;
        c += 8;
        continue;
      }
    }
    if (*c >= 0x20 && *c < 0x80 && *c != '"' && *c != '\\') {
      *p++ = (char)*c++;
      continue;
    }
    if (*c >= 0x80) {
      size_t k = src_utf8_len((const char *)c, (size_t)(end - c));
      if (k) memcpy(p, c, k);
      else memcpy(p, "\xEF\xBF\xBD", 3);
      p += k ? k : 3;
      c += k ? k : 1;
      continue;
    }
    *p++ = '\\';
    switch (*c) {
    case '"': *p++ = '"'; break;
    case '\\': *p++ = '\\'; break;
    case '\b': *p++ = 'b'; break;
    case '\f': *p++ = 'f'; break;
    case '\n': *p++ = 'n'; break;
    case '\r': *p++ = 'r'; break;
    case '\t': *p++ = 't'; break;
    default:
      memcpy(p, "u00", 3);
      p[3] = "0123456789ABCDEF"[*c >> 4];
      p[4] = "0123456789ABCDEF"[*c & 15];
      p += 5;
    }
    c++;
  }
  *p++ = '"';
  w->len = (size_t)(p - w->buf);
  done_value(w);
}

MEMBER_INLINE void json_out_str(JsonOut *w, const char *key, const char *s) {
  if (s) string_text(w, member_at(w, key), s);
  else json_out_null(w, key);
}

/* ---------------------------------------------------------------- target */

/* A figure's text, by the double's bits; text[FIGURE_TEXT - 1] is its
 * length (0: none yet).  The longest text, a real's, is 25 bytes. */
enum { FIGURE_TEXT = 32, FIGURE_BITS = 8 };
typedef struct Figure {
  uint64_t bits;
  char text[FIGURE_TEXT];
} Figure;

/* A string's text, by its address, for the strings a row takes from a
 * table or its model (op, role, dtype, bound, region, file), which stay as
 * they are while the document is written; text[QUOTED_TEXT - 1] is its
 * length (0: none yet). */
enum { QUOTED_TEXT = MEMBER_ROOM, QUOTED_BITS = 6 };
typedef struct Quoted {
  const char *s;
  char text[QUOTED_TEXT];
} Quoted;

/* What the rows' writers keep from one row to the next.  The sources, and
 * the line last found in one of them: the rows come in source order, so
 * the next location is on that line or the next.  And the texts of recent
 * figures and strings: a node's peak and ridge are its target's, its op,
 * role, dtype and file are one of a few, and a model repeats its layers,
 * so most of what a row writes was written in a row before.  Each table
 * keeps one text per slot; a value that misses replaces the slot's. */
typedef struct Rows {
  const SourceSet *ss;
  int file;
  size_t line;
  Figure figures[1 << FIGURE_BITS]; /* direct-mapped by a hash of the bits */
  Quoted quoted[1 << QUOTED_BITS];  /* direct-mapped by a hash of the address */
} Rows;

/* Makes f the figure of v (bits); false where json_out_num writes v
 * itself. */
static bool figure_make(Figure *f, uint64_t bits, double v) {
  char t[MEMBER_ROOM];
  char *end = num_text(t, v);
  if (!end) return false;
  f->bits = bits;
  memcpy(f->text, t, FIGURE_TEXT - 1);
  f->text[FIGURE_TEXT - 1] = (char)(end - t);
  return true;
}

/* json_out_num(w, key, v), its text made once per value that the table
 * holds: the same bits make the same text. */
static MEMBER_INLINE void out_figure(JsonOut *w, Rows *r, const char *key, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  Figure *f = &r->figures[(bits * 0x9E3779B97F4A7C15ull) >> (64 - FIGURE_BITS)];
  if ((f->bits != bits || !f->text[FIGURE_TEXT - 1]) && !figure_make(f, bits, v)) {
    json_out_num(w, key, v);
    return;
  }
  _Static_assert((int)FIGURE_TEXT <= (int)MEMBER_ROOM, "a figure fits a member's room");
  char *p = member_at(w, key);
  memcpy(p, f->text, FIGURE_TEXT);
  w->len = (size_t)(p + f->text[FIGURE_TEXT - 1] - w->buf);
  done_value(w);
}

/* Makes q the text of s where that is s quoted (every byte plain ASCII,
 * none escaped: string_text's rule) and fits; false otherwise. */
static bool quoted_make(Quoted *q, const char *s) {
  size_t n = 0;
  for (; s[n]; n++) {
    unsigned char c = (unsigned char)s[n];
    if (n + 3 > QUOTED_TEXT - 1 || c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  }
  q->s = s;
  q->text[0] = '"';
  memcpy(q->text + 1, s, n);
  q->text[n + 1] = '"';
  q->text[QUOTED_TEXT - 1] = (char)(n + 2);
  return true;
}

/* json_out_str(w, key, s), for a string that stays as it is while the
 * document is written, its text made once per address the table holds. */
static MEMBER_INLINE void out_quoted(JsonOut *w, Rows *r, const char *key, const char *s) {
  if (!s) {
    json_out_null(w, key);
    return;
  }
  Quoted *q = &r->quoted[((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - QUOTED_BITS)];
  if ((q->s != s || !q->text[QUOTED_TEXT - 1]) && !quoted_make(q, s)) {
    json_out_str(w, key, s);
    return;
  }
  char *p = member_at(w, key);
  memcpy(p, q->text, QUOTED_TEXT);
  w->len = (size_t)(p + q->text[QUOTED_TEXT - 1] - w->buf);
  done_value(w);
}

/* {"file", "line", "column", "end_line", "end_column"}, or null. */
static void write_location(JsonOut *w, const char *key, Loc loc, Rows *src) {
  if (loc.file < 0 || loc.file >= src->ss->nfiles) {
    json_out_null(w, key);
    return;
  }
  const SourceFile *f = src_file(src->ss, loc.file);
  if (loc.file != src->file) src->file = loc.file, src->line = 0;
  int line, col, eline, ecol;
  src_linecol_near(f, loc.start, &src->line, &line, &col);
  src_linecol_near(f, loc.end, &src->line, &eline, &ecol);
  json_out_open(w, key, '{');
  out_quoted(w, src, "file", f->name);
  json_out_int(w, "line", line);
  json_out_int(w, "column", col);
  json_out_int(w, "end_line", eline);
  json_out_int(w, "end_column", ecol);
  /* R-ONNX-007: a line an importer wrote says what it came from */
  const char *origin = src_origin(f, line);
  if (origin) {
    OriginParts *op = xmalloc(sizeof *op);
    json_out_open(w, "origin", '{');
    json_out_str(w, "text", origin);
    if (src_origin_parts(origin, op)) {
      json_out_str(w, "kind", op->kind);
      if (op->has_index) json_out_int(w, "index", op->index);
      if (op->has_name) json_out_str(w, "name", op->name);
      if (op->type[0]) json_out_str(w, "op_type", op->type);
    }
    json_out_close(w, '}');
    free(op);
  }
  json_out_close(w, '}');
}

/* Peaks keyed "<dtype>" (vector cores) and "<dtype>_tc" (tensor cores),
 * e.g. "fp16_tc", in dtype order; with the ridge of each (ridges: true). */
static void write_peaks(JsonOut *w, const Target *t, bool ridges) {
  json_out_open(w, ridges ? "ridges" : "peaks", '{');
  for (int d = 0; d < DT__COUNT; d++) {
    static const char *const suffix[2] = {"", "_tc"};
    double v[2] = {t->vector_peak[d], t->tensor_peak[d]};
    for (int k = 0; k < 2; k++) {
      if (v[k] <= 0) continue;
      char key[32];
      snprintf(key, sizeof key, "%s%s", dtype_str((DType)d), suffix[k]);
      json_out_num(w, key, !ridges ? v[k] : t->memory_bw > 0 ? v[k] / t->memory_bw : 0);
    }
  }
  json_out_close(w, '}');
}

/* A struct's fields as JSON gives them: its key, where the value is in
 * the struct, and whether it is a string, an int or a double. */
typedef enum { JF_STR, JF_INT, JF_NUM } JsonFieldKind;
typedef struct JsonField {
  const char *key;
  size_t offset;
  JsonFieldKind kind;
} JsonField;

#define TF(key, field, kind) {key, offsetof(Target, field), kind}
static const JsonField target_fields[] = {
    TF("name", name, JF_STR),           TF("display", display, JF_STR),
    TF("year", year, JF_INT),           TF("sms", sms, JF_INT),
    TF("memory", memory, JF_NUM),       TF("memory_bw", memory_bw, JF_NUM),
    TF("l2", l2, JF_NUM),               TF("smem_per_sm", smem_per_sm, JF_NUM),
    TF("regs_per_sm", regs_per_sm, JF_NUM), TF("nvlink_bw", nvlink_bw, JF_NUM),
    TF("ib_bw", ib_bw, JF_NUM),         TF("pcie_bw", pcie_bw, JF_NUM),
    TF("gpus_per_node", gpus_per_node, JF_INT),
    TF("launch_overhead_s", launch_overhead, JF_NUM),
};
#undef TF
#define LF(key, field, kind) {key, offsetof(MemLevel, field), kind}
static const JsonField level_fields[] = {
    LF("name", name, JF_STR),           LF("label", label, JF_STR),
    LF("capacity", capacity, JF_NUM),   LF("bandwidth", bandwidth, JF_NUM),
    LF("latency_s", latency, JF_NUM),   LF("note", note, JF_STR),
};
#undef LF

static void write_fields(JsonOut *w, const void *base, const JsonField *f,
                         size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *p = (const char *)base + f[i].offset;
    switch (f[i].kind) {
    case JF_STR: json_out_str(w, f[i].key, *(const char *const *)p); break;
    case JF_INT: json_out_int(w, f[i].key, *(const int *)p); break;
    case JF_NUM: json_out_num(w, f[i].key, *(const double *)p); break;
    }
  }
}
#define WRITE_FIELDS(w, base, table) \
  write_fields(w, base, table, sizeof table / sizeof table[0])

static void write_target(JsonOut *w, const char *key, const Target *t) {
  json_out_open(w, key, '{');
  WRITE_FIELDS(w, t, target_fields);
  write_peaks(w, t, false);
  double hp = target_headline_peak(t);
  json_out_num(w, "ridge", t->memory_bw > 0 ? hp / t->memory_bw : 0);
  write_peaks(w, t, true);
  json_out_open(w, "levels", '[');
  for (int i = 0; i < t->nlevels; i++) {
    json_out_open(w, NULL, '{');
    WRITE_FIELDS(w, &t->levels[i], level_fields);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- models */

static const char *node_op(const GNode *g) {
  return g->op ? g->op->name : role_str(g->role);
}

/* The figures a node's and a kernel's row share, in the rows' order. */
static void out_roofline(JsonOut *w, Rows *src, double count, double flops, double bytes,
                         const RoofPoint *roof, double peak) {
  out_figure(w, src, "count", count);
  out_figure(w, src, "flops", flops);
  out_figure(w, src, "bytes", bytes);
  out_figure(w, src, "intensity", roof->intensity);
  out_figure(w, src, "ridge", roof->ridge);
  out_figure(w, src, "peak", peak);
}

/* R-OUT-004: one row per graph node, declarations included (op = role). */
static void write_node(JsonOut *w, const Model *m, const ModelCost *mc, int i,
                       Rows *src) {
  const GNode *g = &m->nodes[i];
  const NodeCost *c = &mc->nodes[i];
  RoofPoint roof = cost_node_roof(mc, c);
  Waves wv = cost_node_waves(mc, c);
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", g->name);
  out_quoted(w, src, "op", node_op(g));
  out_quoted(w, src, "role", role_str(g->role));
  out_quoted(w, src, "dtype", g->type->dtype == DT_NONE ? NULL : dtype_str(g->type->dtype));
  out_quoted(w, src, "precision", g->precision == DT_NONE ? NULL : dtype_str(g->precision));
  json_out_open(w, "shape", '[');
  for (int d = 0; d < g->type->rank; d++) json_out_int(w, NULL, g->type->dims[d]);
  json_out_close(w, ']');
  out_roofline(w, src, g->count, c->flops, c->bytes, &roof, c->peak);
  json_out_bool(w, "tensor_cores", c->tensor);
  out_figure(w, src, "attainable", roof.attainable);
  out_quoted(w, src, "bound", bound_str(c->bound));
  out_figure(w, src, "time_s", c->time_s);
  out_figure(w, src, "blocks", c->blocks);
  out_figure(w, src, "waves", wv.waves);
  out_figure(w, src, "utilisation", wv.utilisation);
  out_figure(w, src, "idle_sms", wv.idle_sms);
  if (c->kernel >= 0) json_out_int(w, "kernel", c->kernel);
  else json_out_null(w, "kernel");
  out_quoted(w, src, "region", g->region >= 0 && g->region < m->nregions ? m->regions[g->region].name : NULL);
  write_location(w, "location", g->loc, src);
  json_out_close(w, '}');
}

static void write_kernel(JsonOut *w, const ModelCost *mc, const Kernel *k, Rows *src) {
  const Model *m = mc->model;
  RoofPoint roof = cost_kernel_roof(mc, k);
  const char *name = k->region >= 0 && k->region < m->nregions ? m->regions[k->region].name
                     : k->first_node >= 0 && k->first_node < m->nnodes ? m->nodes[k->first_node].name
                                                                        : NULL;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", name);
  out_quoted(w, src, "kind", k->region >= 0 ? "fused" : "op");
  out_roofline(w, src, k->count, k->flops, k->bytes, &roof, k->peak);
  out_figure(w, src, "attainable", roof.attainable);
  out_quoted(w, src, "bound", bound_str(k->bound));
  out_figure(w, src, "time_s", k->time_s);
  json_out_close(w, '}');
}

static void write_collective(JsonOut *w, const Model *m, const Collective *c, Rows *src) {
  bool has_node = c->node >= 0 && c->node < m->nnodes;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", has_node ? m->nodes[c->node].name : NULL);
  json_out_str(w, "kind", c->kind);
  json_out_bool(w, "implicit", !has_node);
  json_out_str(w, "group", par_group_str(c->group));
  if (!has_node) json_out_str(w, "what", c->what);
  out_figure(w, src, "buffer_bytes", c->buffer);
  json_out_int(w, "ranks", c->ranks);
  out_figure(w, src, "nvlink_bytes", c->nvlink_bytes);
  out_figure(w, src, "ib_bytes", c->ib_bytes);
  out_figure(w, src, "nvlink_time_s", c->nvlink_time);
  out_figure(w, src, "ib_time_s", c->ib_time);
  out_figure(w, src, "time_s", c->time_s);
  out_figure(w, src, "count", c->count);
  write_location(w, "location", has_node ? m->nodes[c->node].loc : LOC_NONE, src);
  json_out_close(w, '}');
}

/* A to_device/to_host node: bytes over PCIe per run and per step. */
static void write_transfer(JsonOut *w, const GNode *g, const NodeCost *c, Rows *src) {
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", g->name);
  json_out_str(w, "op", node_op(g));
  out_figure(w, src, "bytes", c->bytes);
  out_figure(w, src, "count", g->count);
  out_figure(w, src, "total_bytes", c->bytes * g->count);
  out_figure(w, src, "time_s", c->time_s);
  out_figure(w, src, "total_time_s", c->time_s * g->count);
  write_location(w, "location", g->loc, src);
  json_out_close(w, '}');
}

static void write_summary(JsonOut *w, const ModelCost *mc) {
  json_out_open(w, "summary", '{');
  json_out_num(w, "flops", mc->flops);
  json_out_num(w, "bytes", mc->bytes);
  json_out_num(w, "time_s", mc->time_s);
  json_out_num(w, "memory_bound_time_s", mc->memory_bound_time);
  json_out_num(w, "memory_bound_time_share", mc->time_s > 0 ? mc->memory_bound_time / mc->time_s : 0);
  json_out_num(w, "transfer_time_s", mc->transfer_time);
  json_out_num(w, "collective_time_s", mc->collective_time);
  if (mc->collective_time > 0) { /* R-PAR-007 */
    json_out_num(w, "overlap_time_s", mc->overlap_time);
    json_out_num(w, "step_time_s", cost_step_time(mc));
  }
  json_out_num(w, "params", mc->params);
  if (mc->experts) {
    json_out_num(w, "active_params", mc->active_params);
    json_out_num(w, "active_param_bytes", mc->active_param_bytes);
  }
  json_out_num(w, "footprint_bytes", mc->footprint.total);
  json_out_open(w, "footprint", '{');
  json_out_num(w, "weights", mc->footprint.weights);
  json_out_num(w, "gradients", mc->footprint.gradients);
  json_out_num(w, "optimizer", mc->footprint.optimizer);
  json_out_num(w, "activations", mc->footprint.activations);
  if (mc->footprint.buffers > 0) json_out_num(w, "buffers", mc->footprint.buffers);
  if (mc->footprint.kv_cache > 0) json_out_num(w, "kv_cache", mc->footprint.kv_cache);
  if (mc->footprint.gathered > 0) json_out_num(w, "gathered", mc->footprint.gathered);
  json_out_num(w, "total", mc->footprint.total);
  json_out_close(w, '}');
  json_out_close(w, '}');
}

static void write_model(JsonOut *w, const ModelCost *mc, Rows *src) {
  const Model *m = mc->model;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", m->name);
  json_out_str(w, "file", m->file >= 0 && m->file < src->ss->nfiles ? src_file(src->ss, m->file)->name : NULL);
  json_out_str(w, "target", mc->target ? mc->target->name : NULL);
  json_out_str(w, "dtype", m->dtype == DT_NONE ? NULL : dtype_str(m->dtype));
  /* R-PLAN-006: the recipe's entries, by class, only in a model that has
   * one */
  bool recipe = false;
  for (int c = 0; c < OC__COUNT; c++)
    if (m->class_given[c]) {
      if (!recipe) json_out_open(w, "dtype_recipe", '{');
      recipe = true;
      json_out_str(w, op_class_str((OpClass)c), dtype_str(m->class_dtype[c]));
    }
  if (recipe) json_out_close(w, '}');
  json_out_str(w, "mode", m->train ? "train" : "inference");
  if (m->parallel.present) {
    json_out_open(w, "parallel", '{');
    /* R-PAR-001, R-PAR-002: every key, then each group's placement */
    for (int k = 0; k < parallel_nkeys; k++) {
      const ParallelKey *pk = &parallel_keys[k];
      const char *at = (const char *)&m->parallel + pk->offset;
      if (pk->boolean)
        json_out_bool(w, pk->name, *(const bool *)at);
      else
        json_out_int(w, pk->name, *(const int64_t *)(const void *)at);
    }
    json_out_open(w, "groups", '[');
    for (int g = 0; g < PG__COUNT; g++) {
      GroupPlace gp = parallel_place(&m->parallel, (ParGroup)g);
      json_out_open(w, NULL, '{');
      json_out_str(w, "name", par_group_str((ParGroup)g));
      json_out_int(w, "size", gp.size);
      json_out_int(w, "stride", gp.stride);
      json_out_int(w, "nodes", gp.nodes);
      json_out_int(w, "per_node", gp.per_node);
      json_out_str(w, "link", group_link_str(gp));
      json_out_close(w, '}');
    }
    json_out_close(w, ']');
    json_out_close(w, '}');
  } else {
    json_out_null(w, "parallel");
  }
  write_location(w, "location", m->loc, src);

  json_out_open(w, "nodes", '[');
  for (int i = 0; i < m->nnodes; i++) write_node(w, m, mc, i, src);
  json_out_close(w, ']');
  json_out_open(w, "kernels", '[');
  for (int k = 0; k < mc->nkernels; k++) {
    Kernel kn = cost_kernel(mc, k);
    write_kernel(w, mc, &kn, src);
  }
  json_out_close(w, ']');
  write_summary(w, mc);
  if (mc->pipe.stages > 1) { /* R-PAR-009 */
    const PipelineCost *pc = &mc->pipe;
    static const char *const kinds[PIPE__KINDS] = {"first", "middle", "last"};
    json_out_open(w, "pipeline", '{');
    json_out_int(w, "stages", pc->stages);
    json_out_num(w, "microbatches", pc->microbatches);
    json_out_num(w, "layers_per_stage", pc->layers);
    json_out_num(w, "bubble", pc->bubble);
    json_out_num(w, "step_time_s", pc->step_time);
    json_out_num(w, "send_bytes", pc->send_bytes);
    json_out_num(w, "send_time_s", pc->send_time);
    json_out_str(w, "send_link", pc->send_ib ? "InfiniBand" : "NVLink");
    json_out_num(w, "send_split", pc->send_split);
    json_out_open(w, "stages_by_kind", '[');
    for (int k = 0; k < PIPE__KINDS; k++) {
      if (k == PIPE_MIDDLE && pc->stages < 3) continue;
      json_out_open(w, NULL, '{');
      json_out_str(w, "kind", kinds[k]);
      json_out_num(w, "compute_s", pc->compute[k]);
      json_out_num(w, "time_s", pc->time[k]);
      json_out_num(w, "in_flight", pc->inflight[k]);
      json_out_num(w, "footprint_bytes", pc->footprint[k].total);
      json_out_close(w, '}');
    }
    json_out_close(w, ']');
    json_out_close(w, '}');
  }
  json_out_open(w, "collectives", '[');
  for (int k = 0; k < mc->ncollectives; k++) write_collective(w, m, &mc->collectives[k], src);
  json_out_close(w, ']');
  json_out_open(w, "transfers", '[');
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].op && m->nodes[i].op->cls == OC_TRANSFER)
      write_transfer(w, &m->nodes[i], &mc->nodes[i], src);
  json_out_close(w, ']');
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- diagnostics */

/* R-OUT-004 */
static void write_diag(JsonOut *w, const Diag *d, Rows *src) {
  json_out_open(w, NULL, '{');
  json_out_str(w, "severity", severity_str(d->sev));
  json_out_str(w, "check", d->check);
  json_out_str(w, "message", d->msg);
  write_location(w, "location", d->loc, src);
  json_out_open(w, "notes", '[');
  for (int i = 0; i < d->nnotes; i++) {
    json_out_open(w, NULL, '{');
    json_out_str(w, "message", d->notes[i].msg);
    write_location(w, "location", d->notes[i].loc, src);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  json_out_open(w, "fixits", '[');
  for (int i = 0; i < d->nfixits; i++) {
    json_out_open(w, NULL, '{');
    write_location(w, "location", d->fixits[i].loc, src);
    json_out_str(w, "text", d->fixits[i].text);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  /* An object has one member per key: a key set twice keeps its first
   * place and its last value, as json_object_set does. */
  json_out_open(w, "figures", '{');
  for (int i = 0; i < d->nfigures; i++) {
    const char *key = d->figures[i].key;
    bool again = false;
    for (int j = 0; j < i && !again; j++) again = !strcmp(d->figures[j].key, key);
    if (again) continue;
    double v = d->figures[i].value;
    for (int j = i + 1; j < d->nfigures; j++)
      if (!strcmp(d->figures[j].key, key)) v = d->figures[j].value;
    json_out_num(w, key, v);
  }
  json_out_close(w, '}');
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- document */

/* R-OUT-001 */
void json_write(FILE *out, Analysis *const *an, const DiagSink *const *diags, int n,
                const SourceSet *ss) {
  Rows *src = xcalloc(1, sizeof *src);
  src->ss = ss;
  src->file = -1;
  JsonOut *w = xmalloc(sizeof *w);
  w->out = out;
  w->depth = 0;
  w->len = 0;
  json_out_open(w, NULL, '{');
  json_out_open(w, "tool", '{');
  json_out_str(w, "name", "rooflint");
  json_out_str(w, "version", ROOFLINT_VERSION);
  json_out_close(w, '}');

  /* Every distinct target, in order of first use; "target" is the first
   * (the common case has exactly one). */
  int cap = 1;
  for (int a = 0; a < n; a++) cap += an[a] && an[a]->unit ? an[a]->ntargets : 0;
  const Target **seen = xcalloc((size_t)cap, sizeof *seen);
  int nseen = 0;
  for (int a = 0; a < n; a++) {
    if (!an[a] || !an[a]->unit) continue;
    for (int t = 0; t < an[a]->ntargets; t++) {
      const Target *tg = an[a]->targets[t];
      bool dup = !tg;
      for (int s = 0; s < nseen && !dup; s++)
        dup = seen[s] == tg || (seen[s]->name && tg->name && !strcmp(seen[s]->name, tg->name));
      if (!dup) seen[nseen++] = tg;
    }
  }
  if (nseen > 0) write_target(w, "target", seen[0]);
  else json_out_null(w, "target");
  json_out_open(w, "targets", '[');
  for (int s = 0; s < nseen; s++) write_target(w, NULL, seen[s]);
  json_out_close(w, ']');
  free(seen);

  /* R-OUT-003: one entry per (model, target), model-major. */
  json_out_open(w, "models", '[');
  for (int a = 0; a < n; a++) {
    const Analysis *x = an[a];
    if (!x || !x->unit || !x->costs) continue;
    for (int m = 0; m < x->unit->nmodels; m++)
      for (int t = 0; t < x->ntargets; t++) {
        const ModelCost *mc = x->costs[m * x->ntargets + t];
        if (mc && mc->model && mc->nodes) write_model(w, mc, src);
      }
  }
  json_out_close(w, ']');

  int nerrors = 0, nwarnings = 0;
  json_out_open(w, "diagnostics", '[');
  for (int f = 0; f < n; f++) {
    const DiagSink *d = diags ? diags[f] : NULL;
    if (!d) continue;
    for (int i = 0; i < d->n; i++) write_diag(w, d->items[i], src);
    nerrors += d->nerrors;
    nwarnings += d->nwarnings;
  }
  json_out_close(w, ']');
  json_out_open(w, "counts", '{');
  json_out_int(w, "errors", nerrors);
  json_out_int(w, "warnings", nwarnings);
  json_out_close(w, '}');
  json_out_close(w, '}');
  fputc('\n', out);
  free(src);
  free(w);
}
