/* SPDX-License-Identifier: MIT */
/*
 * format.c: numbers with units, rounded the way the seed page prints them,
 * so every figure of its tables comes out of rooflint character for
 * character.
 *
 * Rounding rule (one rule for every figure): the value is first taken as a
 * decimal with 12 significant digits (which removes binary noise such as
 * 3.35e12 / 1e12 = 3.3499999999999996), then rounded half to even at the
 * requested number of decimals.  That reproduces the seed's 3.35 -> "3.4"
 * and 2.625 -> "2.62" alike (Python's formatting, which printed the seed,
 * rounds the exact binary value, and these two ties land on those sides).
 * fmt_round_ref states the rule through decimal text; fmt_round reaches the
 * same result in integer arithmetic for the figures a report prints (a
 * report prints millions), and hands the rest (near-ties,
 * |x * 10^d| >= 10^15) to it.
 *
 * Scaled units are decimal (KB = 1000 B), as in the language, up to E
 * (10^18).  A value that rounds up to 1000 of a unit moves to the next
 * unit ("1.00 GB", never "1000.0 MB").  Times of a minute and more read in
 * minutes and hours ("1.50 min", "10.4 h").
 *
 * No figure is cut: where its digits would stop meaning anything (a figure
 * of 10^15 or more printed without a prefix, past the last exact integers
 * of a double; a million or more of the largest prefix) it prints in
 * exponent form with three significant digits, in the base unit
 * ("2.99e+299", "1.37e+65 FLOP"), so every text fits the 64-byte buffers
 * callers give it.
 */
#include "rooflint.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 10^d for the decimals a figure can ask for; every power up to 10^22 is
 * an exact double, so the table and pow() agree bit for bit. */
static const double pow10_tab[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
static const int64_t pow10_int[] = {
    1,          10,          100,          1000,          10000,
    100000,     1000000,     10000000,     100000000,     1000000000,
    10000000000, 100000000000, 1000000000000, 10000000000000,
    100000000000000, 1000000000000000,
};
#define NPOW10_INT ((int)(sizeof pow10_int / sizeof pow10_int[0]))

static double pow10i(int d) {
  if (d >= 0 && d < (int)(sizeof pow10_tab / sizeof pow10_tab[0])) return pow10_tab[d];
  return pow(10.0, d);
}

/* x as the nearest 12-significant-digit decimal. */
static double decimal12(double x) {
  char b[48];
  snprintf(b, sizeof b, "%.12g", x);
  return strtod(b, NULL);
}

/* The rounding rule, literally: decimal text, then rint (ties to even in
 * the default rounding mode).  At a microsecond a figure it is too slow
 * for a million-row table, so fmt_round takes it only for the values the
 * integer route below cannot decide; check_format holds the two equal. */
double fmt_round_ref(double x, int decimals) {
  if (!isfinite(x)) return x;
  double scale = pow10i(decimals);
  double v = decimal12(x * scale);
  double r = rint(v) / scale;
  return r == 0 ? 0.0 : r; /* never print "-0.0" */
}

/* (n + beyond) / q rounded half to even, for n >= 0, an even q > 0 and
 * a fraction 0 <= beyond < 1 known only as zero or not: a non-zero one
 * turns an exact half into more than half. */
static int64_t div_round_even(int64_t n, int64_t q, bool beyond) {
  int64_t d = n / q, r = n % q, h = q / 2;
  bool up = r > h || (r == h && (beyond || (d & 1)));
  return d + up;
}

/* The same rule in integers, for |x * 10^decimals| < 10^15: *out is the
 * rounded figure in units of 10^-decimals (sign included).  Returns false
 * where a value sits too near a rounding boundary for the double arithmetic
 * here to decide it, or lies outside that range; the caller then takes the
 * decimal text.
 *
 * y = x * 10^decimals is the same double product the text route rounds.
 * Its 12-significant-digit rounding is y rounded to a multiple of
 * 10^(E-11), E = floor(log10 |y|):
 *   E >= 11: a multiple of 1, 10, 100 or 1000: done on y's integer part
 *            and its exact fraction, so exactly;
 *   0 <= E <= 10: M = |y| * 10^(11-E) rounded, where the product is off by
 *            at most 2^-13 (it stays below 2^40), so M is certain unless
 *            the fraction is within 2^-11 of one half; then M / 10^(11-E)
 *            rounded half to even, in integers;
 *   E < 0:   the figure is 0 or 1, certain unless |y| is within 1e-9 of
 *            one half. */
static bool round_fast(double x, int decimals, int64_t *out) {
  if (decimals < 0 || decimals >= NPOW10_INT) return false;
  double y = x * pow10_tab[decimals];
  double a = fabs(y);
  if (!(a < 1e15)) return false; /* also NaN and infinities */
  int64_t n;
  if (a < 1) {
    if (fabs(a - 0.5) <= 1e-9) return false;
    n = a > 0.5;
  } else {
    int64_t ip = (int64_t)a; /* exact: a < 2^53 */
    double frac = a - (double)ip; /* exact */
    int e = 0;
    while (e + 1 < NPOW10_INT && ip >= pow10_int[e + 1]) e++;
    if (e >= 11) {
      int64_t q = pow10_int[e - 11];
      if (q == 1) {
        n = ip + (frac > 0.5 || (frac == 0.5 && (ip & 1)));
      } else {
        /* frac > 0 breaks a tie in the integer digits upward. */
        n = div_round_even(ip, q, frac > 0) * q;
      }
    } else {
      int s = 11 - e;
      double z = a * pow10_tab[s];
      double zf = floor(z);
      double fz = z - zf;
      if (fabs(fz - 0.5) <= 0x1p-11) return false;
      int64_t m = (int64_t)zf + (fz > 0.5);
      n = div_round_even(m, pow10_int[s], false);
    }
  }
  *out = y < 0 ? -n : n;
  return true;
}

double fmt_round(double x, int decimals) {
  int64_t n;
  if (!round_fast(x, decimals, &n)) return fmt_round_ref(x, decimals);
  double r = (double)n / pow10_tab[decimals];
  return r == 0 ? 0.0 : r;
}

/* Copies s (len bytes) into buf as snprintf would: cut to n - 1 bytes. */
static char *put_cut(char *buf, size_t n, const char *s, size_t len) {
  if (n == 0) return buf;
  if (len >= n) len = n - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  return buf;
}

/* "%.*f" of n * 10^-decimals, n exact.  The double the text route prints,
 * n / 10^decimals, is within an eighth of a unit in the last decimal of
 * n for |n| < 2^50, so printf's digits are n's own. */
static size_t put_scaled_int(char *p, int64_t n, int decimals) {
  char digits[24];
  int nd = 0;
  uint64_t u = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
  do {
    digits[nd++] = (char)('0' + u % 10);
    u /= 10;
  } while (u > 0);
  while (nd <= decimals) digits[nd++] = '0'; /* "0.005" */
  size_t k = 0;
  if (n < 0) p[k++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    p[k++] = digits[i];
    if (i == decimals && i > 0) p[k++] = '.';
  }
  return k;
}

/* a, b, c and d back to back, cut to n - 1 bytes as snprintf cuts: the
 * "%s %s%s" of a figure and its unit without parsing a format per cell. */
static char *join4(char *buf, size_t n, const char *a, const char *b,
                   const char *c, const char *d) {
  char t[160];
  size_t len = 0;
  const char *part[] = {a, b, c, d};
  for (int i = 0; i < 4; i++) {
    size_t k = strlen(part[i]);
    if (k > sizeof t - 1 - len) k = sizeof t - 1 - len;
    memcpy(t + len, part[i], k);
    len += k;
  }
  return put_cut(buf, n, t, len);
}

/* The exponent form of a figure too big for its digits to mean anything:
 * three significant digits, at most 12 bytes ("-2.99e+299"). */
static const double exp_from_fixed = 1e15, exp_from_scaled = 1e6;

static char *exp_form(char *buf, size_t n, double x) {
  snprintf(buf, n, "%.2e", x);
  return buf;
}

char *fmt_fixed_ref(char *buf, size_t n, double x, int decimals) {
  if (fabs(x) >= exp_from_fixed) return exp_form(buf, n, x);
  snprintf(buf, n, "%.*f", decimals, fmt_round_ref(x, decimals));
  return buf;
}

/* Writes fmt_fixed's text into p (at least 48 bytes); false when the value
 * needs the printf route. */
static bool fixed_fast(char *p, size_t *len, double x, int decimals) {
  int64_t v;
  if (!round_fast(x, decimals, &v)) return false;
  if (v >= ((int64_t)1 << 50) || v <= -((int64_t)1 << 50)) return false;
  *len = put_scaled_int(p, v, decimals);
  return true;
}

char *fmt_fixed(char *buf, size_t n, double x, int decimals) {
  char t[48];
  size_t len;
  if (fixed_fast(t, &len, x, decimals)) return put_cut(buf, n, t, len);
  if (fabs(x) >= exp_from_fixed) return exp_form(buf, n, x);
  snprintf(buf, n, "%.*f", decimals, fmt_round(x, decimals));
  return buf;
}

char *fmt_percent(char *buf, size_t n, double fraction, int decimals) {
  char t[48];
  size_t len;
  if (fixed_fast(t, &len, fraction * 100.0, decimals)) {
    t[len++] = '%';
    return put_cut(buf, n, t, len);
  }
  if (fabs(fraction * 100.0) >= exp_from_fixed) {
    exp_form(t, sizeof t, fraction * 100.0);
    return join4(buf, n, t, "%", "", "");
  }
  snprintf(buf, n, "%.*f%%", decimals, fmt_round(fraction * 100.0, decimals));
  return buf;
}

/* Three significant digits, trailing zeros kept ("6.70", "990", "0.558"). */
char *fmt_sig3(char *buf, size_t n, double x) {
  if (fabs(x) >= exp_from_fixed) return exp_form(buf, n, x);
  double a = fabs(fmt_round(x, 12));
  int dec = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4;
  /* 99.96 rounds to "100.0": one decimal too many. */
  if (dec > 0 && fabs(fmt_round(x, dec)) >= pow10i(3 - dec)) dec--;
  return fmt_fixed(buf, n, x, dec);
}

char *fmt_intensity(char *buf, size_t n, double flop_per_byte) {
  return fmt_sig3(buf, n, flop_per_byte);
}

/* Whether a fmt_fixed text reads 1000 or more: four digits before the
 * point ("inf" and "nan" have none). */
static bool reads_1000(const char *num) {
  if (*num == '-') num++;
  int k = 0;
  while (num[k] >= '0' && num[k] <= '9') k++;
  return k >= 4;
}

typedef struct Scale {
  double factor;
  const char *prefix;
} Scale;

/* Picks the largest scale whose rounded value is at least 1 (the first
 * row whose factor is <= |x|, re-checked after rounding). */
static const Scale *pick_scale(const Scale *rows, int nrows, double x,
                               int (*decimals)(double), double *scaled,
                               int *dec) {
  double a = fabs(x);
  int i = nrows - 1;
  for (int k = 0; k < nrows; k++)
    if (a >= rows[k].factor * (1 - 1e-12)) {
      i = k;
      break;
    }
  /* Rounding may carry into the next unit up (999.96 MB -> 1.00 GB). */
  double v = x / rows[i].factor;
  int d = decimals(v);
  if (i > 0 && fabs(fmt_round(v, d)) >= rows[i - 1].factor / rows[i].factor) {
    i--;
    v = x / rows[i].factor;
    d = decimals(v);
  }
  *scaled = v;
  *dec = d;
  return &rows[i];
}

/* Bytes and counts: two decimals under 10, one above ("1.75 GB",
 * "24.5 GB", "201.3 MB"). */
static int two_then_one(double v) { return fabs(fmt_round(v, 2)) < 10 ? 2 : 1; }

static const Scale byte_scales[] = {
    {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1, ""},
};
#define NSCALES(t) ((int)(sizeof(t) / sizeof((t)[0])))

static char *scaled(char *buf, size_t n, double x, const Scale *rows,
                    int nrows, int (*decimals)(double), const char *unit) {
  double v;
  int dec;
  const Scale *s = pick_scale(rows, nrows, x, decimals, &v, &dec);
  if (s->factor == 1 && x == floor(x)) dec = 0; /* "512 B", "123" */
  char num[64];
  if (fabs(v) >= exp_from_scaled) /* past a million of the largest prefix */
    return join4(buf, n, exp_form(num, sizeof num, x), " ", "", unit);
  fmt_fixed(num, sizeof num, v, dec);
  return join4(buf, n, num, " ", s->prefix, unit);
}

char *fmt_bytes(char *buf, size_t n, double bytes) {
  if (bytes == 0) return put_cut(buf, n, "0 B", 3);
  return scaled(buf, n, bytes, byte_scales, NSCALES(byte_scales),
                two_then_one, "B");
}

char *fmt_count(char *buf, size_t n, double count) {
  if (count == 0) return put_cut(buf, n, "0", 1);
  scaled(buf, n, count, byte_scales, NSCALES(byte_scales), two_then_one, "");
  /* No unit: drop the separating blank before an empty prefix. */
  size_t len = strlen(buf);
  if (len > 0 && buf[len - 1] == ' ') buf[len - 1] = '\0';
  return buf;
}

/* A FLOP count: fmt_count's prefix glued to the unit ("13.5 GFLOP",
 * "123 FLOP"). */
char *fmt_flop(char *buf, size_t n, double flops) {
  char num[64];
  fmt_count(num, sizeof num, flops);
  size_t len = strlen(num);
  bool prefixed = len > 0 && num[len - 1] >= 'A';
  return join4(buf, n, num, prefixed ? "" : " ", "FLOP", "");
}

char *fmt_at(char *buf, size_t n, const SourceSet *ss, Loc loc) {
  if (loc.file < 0 || loc.file >= ss->nfiles) return put_cut(buf, n, "-", 1);
  int line, col;
  src_linecol(src_file(ss, loc.file), loc.start, &line, &col);
  snprintf(buf, n, "%d:%d", line, col);
  return buf;
}

/* FLOP/s: one decimal of TFLOP/s from 0.1 TFLOP/s up, as the seed prints
 * every attainable figure ("0.6", "3.3", "990.0", "1979.0"), up to 10^18
 * FLOP/s, then EFLOP/s; smaller rates step down to GFLOP/s, MFLOP/s. */
char *fmt_flops_rate(char *buf, size_t n, double flops_per_s) {
  static const Scale rows[] = {{1e18, "E"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
  char num[64];
  for (int k = 0; k < NSCALES(rows); k++)
    if (fabs(fmt_round(flops_per_s / rows[k].factor, 1)) >= (k == 0 ? 1 : 0.1)) {
      if (fabs(flops_per_s / rows[k].factor) >= exp_from_scaled)
        return join4(buf, n, exp_form(num, sizeof num, flops_per_s), " ", "", "FLOP/s");
      fmt_fixed(num, sizeof num, flops_per_s / rows[k].factor, 1);
      return join4(buf, n, num, " ", rows[k].prefix, "FLOP/s");
    }
  snprintf(buf, n, "%s FLOP/s", fmt_fixed(num, sizeof num, flops_per_s, 0));
  return buf;
}

/* A size that is a whole number of KiB, MiB, GiB or TiB (and not a round
 * decimal figure) in that unit ("80 GiB", "228 KiB"); NULL otherwise. */
char *fmt_binary_bytes(char *buf, size_t n, double bytes) {
  static const char *const bin[] = {"KiB", "MiB", "GiB", "TiB"};
  double unit = 1024;
  for (int i = 0; i < 4 && bytes >= unit; i++, unit *= 1024) {
    double v = bytes / unit;
    if (v == floor(v) && (v < 1024 || (i == 3 && v < 1e6)) && fmod(bytes, 1000) != 0) {
      snprintf(buf, n, "%.0f %s", v, bin[i]);
      return buf;
    }
  }
  return NULL;
}

/* A capacity as its vendor states it, with the decimal figure the
 * footprint is printed in beside a binary one: "80 GiB = 85.9 GB",
 * "1.00 GB". */
char *fmt_capacity(char *buf, size_t n, double bytes) {
  char bin[32], dec[32];
  fmt_bytes(dec, sizeof dec, bytes);
  if (fmt_binary_bytes(bin, sizeof bin, bytes)) snprintf(buf, n, "%s = %s", bin, dec);
  else snprintf(buf, n, "%s", dec);
  return buf;
}

/* Bandwidth: three significant digits with trailing zeros dropped
 * ("3.35 TB/s", "900 GB/s", "50 GB/s", "4.8 TB/s"). */
char *fmt_bandwidth(char *buf, size_t n, double bytes_per_s) {
  if (bytes_per_s == 0) return snprintf(buf, n, "0 B/s"), buf;
  static const Scale rows[] = {
      {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1, ""},
  };
  int i = NSCALES(rows) - 1;
  for (int k = 0; k < NSCALES(rows); k++)
    if (fabs(bytes_per_s) >= rows[k].factor * (1 - 1e-12)) {
      i = k;
      break;
    }
  char num[64];
  if (fabs(bytes_per_s / rows[0].factor) >= exp_from_scaled)
    return join4(buf, n, exp_form(num, sizeof num, bytes_per_s), " B/s", "", "");
  fmt_sig3(num, sizeof num, bytes_per_s / rows[i].factor);
  if (i > 0 && reads_1000(num)) { /* 999.6 GB/s -> 1 TB/s */
    i--;
    fmt_sig3(num, sizeof num, bytes_per_s / rows[i].factor);
  }
  if (strchr(num, '.')) {
    char *e = num + strlen(num) - 1;
    while (*e == '0') *e-- = '\0';
    if (*e == '.') *e = '\0';
  }
  snprintf(buf, n, "%s %sB/s", num, rows[i].prefix);
  return buf;
}

/* Time: seconds with two decimals from 0.1 s ("0.52 s"); below that three
 * significant digits of ms, us or ns ("27.2 ms", "4.03 ms", "35.0 ms");
 * from a minute up three significant digits of minutes, then of hours
 * ("1.50 min", "10.4 h"); from a million hours on, the exponent form
 * ("8.29e+13 h"), as every figure past a million of its largest unit. */
char *fmt_time(char *buf, size_t n, double seconds) {
  if (seconds == 0) return put_cut(buf, n, "0 s", 3);
  double a = fabs(seconds);
  char num[64];
  if (fmt_round(a, 4) >= 0.1) {
    if (fmt_round(a, 2) < 60)
      return join4(buf, n, fmt_fixed(num, sizeof num, seconds, 2), " s", "", "");
    /* 59.96 min reads "60.0 min": an hour. */
    fmt_sig3(num, sizeof num, seconds / 60);
    if (a < 3600 && fabs(fmt_round(seconds / 60, 1)) < 60)
      return join4(buf, n, num, " min", "", "");
    /* (just under an hour, 59.95 min and up, reads "1.00 h") */
    double h = a < 3600 ? (seconds < 0 ? -1.0 : 1.0) : seconds / 3600;
    if (fabs(h) >= exp_from_scaled) /* past a million of the largest unit */
      return join4(buf, n, exp_form(num, sizeof num, h), " h", "", "");
    return join4(buf, n, fmt_sig3(num, sizeof num, h), " h", "", "");
  }
  static const Scale rows[] = {{1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
  int i = NSCALES(rows) - 1;
  for (int k = 0; k < NSCALES(rows); k++)
    if (a >= rows[k].factor * (1 - 1e-12)) {
      i = k;
      break;
    }
  fmt_sig3(num, sizeof num, seconds / rows[i].factor);
  if (i > 0 && reads_1000(num)) {
    i--;
    fmt_sig3(num, sizeof num, seconds / rows[i].factor);
  }
  return join4(buf, n, num, " ", rows[i].prefix, "s");
}
