/* SPDX-License-Identifier: MIT */
/*
 * json_writer.c: JSON written as it is made, so that a document's memory
 * is one node's, not the whole tree's: containers are opened and closed,
 * and each scalar is written straight into the output buffer in jansson's
 * syntax (its escaping, its "%.17g" reals), without a json_t per value; a
 * value built as a jansson tree is dumped and freed at once.
 */
#include "rooflint.h"
#include "json_writer.h"

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

void json_out_flush(JsonOut *w) {
  fwrite(w->buf, 1, w->len, w->out);
  w->len = 0;
}


static inline void put(JsonOut *w, const char *p, size_t n) {
  while (n > 0) {
    if (w->len == sizeof w->buf) json_out_flush(w);
    size_t k = sizeof w->buf - w->len;
    if (k > n) k = n;
    memcpy(w->buf + w->len, p, k);
    w->len += k;
    p += k;
    n -= k;
  }
}

const char json_out_blanks[2 * JSON_OUT_DEPTH + 1] =
    "                                                                ";

static void put_indent(JsonOut *w, int depth) {
  put(w, json_out_blanks, 2 * (size_t)depth);
}

char *json_out_long_key(JsonOut *w, char *p, const char *key, size_t klen) {
  w->len = (size_t)(p - w->buf);
  put(w, key, klen);
  put(w, "\": ", 3);
  return json_out_room(w, JSON_OUT_ROOM);
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
  json_out_end(w, w->buf + w->len);
}

JsonOut *json_out_begin(FILE *out) {
  JsonOut *w = xmalloc(sizeof *w);
  w->out = out;
  w->depth = 0;
  w->len = 0;
  json_out_open(w, NULL, '{');
  return w;
}

void json_out_finish(JsonOut *w) {
  json_out_close(w, '}');
  fputc('\n', w->out);
  free(w);
}

void json_out_put(JsonOut *w, const char *key, json_t *v) {
  w->len = (size_t)(json_out_member(w, key) - w->buf);
  put_value(w, v);
}

/* json_out_num's value where its own text cannot say it: not finite
 * (null), or a real out of digits17's range. */
void json_out_num_jansson(JsonOut *w, double v) { put_value(w, json_real(v)); }

/* The scalars, written directly in jansson's syntax (json_dump_callback
 * would need a json_t per value, which is most of a node's time). */



static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* Decimal digits of u, as "%llu" writes them, at p; returns their end.
 * Counted first, then written from the right in place (a copy of digits
 * just stored would wait on the stores). */
char *json_out_uint_text(char *p, unsigned long long u) {
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
    return json_out_uint_text(p, 0ull - (unsigned long long)v);
  }
  return json_out_uint_text(p, (unsigned long long)v);
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
  char *p = json_out_member(w, key); /* 25 bytes at most; room for 64 */
  json_out_end(w, real_text(p, v, d, x));
}

/* R-OUT-002: json_base_number's text of v at p (JSON_OUT_ROOM bytes there);
 * returns its end, or NULL where jansson writes it (not finite, or a real
 * out of digits17's range). */
char *json_num_text(char *p, double v) {
  if (fabs(v) < 9007199254740992.0 && (double)(long long)v == v) return int_text(p, (long long)v);
  char d[DIGITS_ROOM];
  int x;
  return digits17(v, d, &x) ? real_text(p, v, d, x) : NULL;
}


/* json_safe_string's text as jansson dumps it: '"' and '\\' escaped, the
 * controls as \b \f \n \r \t or \u00XX, everything else (UTF-8, '/', DEL)
 * as it is, and each ill-formed byte as U+FFFD (src_utf8_clean's rule). */
void json_out_string_text(JsonOut *w, char *p, const char *s) {
  static const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  *p++ = '"';
  /* Each step writes 8 bytes at most: keep that much room. */
  char *lim = w->buf + sizeof w->buf - 8;
  const unsigned char *c = (const unsigned char *)s, *end = c + strlen(s);
  while (c < end) {
    if (p >= lim) {
      w->len = (size_t)(p - w->buf);
      p = json_out_room(w, sizeof w->buf);
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
  json_out_end(w, p);
}



