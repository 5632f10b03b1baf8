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
 *
 * Scaled units are decimal (KB = 1000 B), as in the language.  A value that
 * rounds up to 1000 of a unit moves to the next unit ("1.00 GB", never
 * "1000.0 MB").
 */
#include "rooflint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x as the nearest 12-significant-digit decimal. */
static double decimal12(double x) {
  char b[48];
  snprintf(b, sizeof b, "%.12g", x);
  return strtod(b, NULL);
}

double fmt_round(double x, int decimals) {
  if (!isfinite(x)) return x;
  double scale = pow(10.0, decimals);
  double v = decimal12(x * scale);
  /* rint() rounds ties to even in the default rounding mode. */
  double r = rint(v) / scale;
  return r == 0 ? 0.0 : r; /* never print "-0.0" */
}

char *fmt_fixed(char *buf, size_t n, double x, int decimals) {
  snprintf(buf, n, "%.*f", decimals, fmt_round(x, decimals));
  return buf;
}

char *fmt_percent(char *buf, size_t n, double fraction, int decimals) {
  snprintf(buf, n, "%.*f%%", decimals, fmt_round(fraction * 100.0, decimals));
  return buf;
}

/* Three significant digits, trailing zeros kept ("6.70", "990", "0.558"). */
char *fmt_sig3(char *buf, size_t n, double x) {
  double a = fabs(fmt_round(x, 12));
  int dec = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4;
  /* 99.96 rounds to "100.0": one decimal too many. */
  if (dec > 0 && fabs(fmt_round(x, dec)) >= pow(10.0, 3 - dec)) dec--;
  return fmt_fixed(buf, n, x, dec);
}

/* A scaled figure of a million or more (the largest unit's prefix already
 * used up, as with repeat counts of 10^18 nested three deep) prints in
 * exponent form: a row of twenty digits is unreadable and looks exact. */
static char *fixed_or_exp(char *buf, size_t n, double x, int decimals) {
  if (fabs(x) >= 1e6) {
    snprintf(buf, n, "%.2e", x);
    return buf;
  }
  return fmt_fixed(buf, n, x, decimals);
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
    {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1, ""},
};
#define NSCALES(t) ((int)(sizeof(t) / sizeof((t)[0])))

static char *scaled(char *buf, size_t n, double x, const Scale *rows,
                    int nrows, int (*decimals)(double), const char *unit) {
  double v;
  int dec;
  const Scale *s = pick_scale(rows, nrows, x, decimals, &v, &dec);
  if (s->factor == 1 && x == floor(x)) dec = 0; /* "512 B", "123" */
  char num[64];
  fixed_or_exp(num, sizeof num, v, dec);
  snprintf(buf, n, "%s %s%s", num, s->prefix, unit);
  return buf;
}

char *fmt_bytes(char *buf, size_t n, double bytes) {
  if (bytes == 0) return snprintf(buf, n, "0 B"), buf;
  return scaled(buf, n, bytes, byte_scales, NSCALES(byte_scales),
                two_then_one, "B");
}

char *fmt_count(char *buf, size_t n, double count) {
  if (count == 0) return snprintf(buf, n, "0"), buf;
  scaled(buf, n, count, byte_scales, NSCALES(byte_scales), two_then_one, "");
  /* No unit: drop the separating blank before an empty prefix. */
  size_t len = strlen(buf);
  if (len > 0 && buf[len - 1] == ' ') buf[len - 1] = '\0';
  return buf;
}

/* FLOP/s: one decimal of TFLOP/s from 0.1 TFLOP/s up, as the seed prints
 * every attainable figure ("0.6", "3.3", "990.0", "1979.0"); smaller rates
 * step down to GFLOP/s, MFLOP/s. */
char *fmt_flops_rate(char *buf, size_t n, double flops_per_s) {
  static const Scale rows[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
  char num[64];
  for (int k = 0; k < NSCALES(rows); k++)
    if (fabs(fmt_round(flops_per_s / rows[k].factor, 1)) >= 0.1) {
      fixed_or_exp(num, sizeof num, flops_per_s / rows[k].factor, 1);
      snprintf(buf, n, "%s %sFLOP/s", num, rows[k].prefix);
      return buf;
    }
  snprintf(buf, n, "%s FLOP/s", fmt_fixed(num, sizeof num, flops_per_s, 0));
  return buf;
}

/* Bandwidth: three significant digits with trailing zeros dropped
 * ("3.35 TB/s", "900 GB/s", "50 GB/s", "4.8 TB/s"). */
char *fmt_bandwidth(char *buf, size_t n, double bytes_per_s) {
  if (bytes_per_s == 0) return snprintf(buf, n, "0 B/s"), buf;
  static const Scale rows[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1, ""},
  };
  int i = NSCALES(rows) - 1;
  for (int k = 0; k < NSCALES(rows); k++)
    if (fabs(bytes_per_s) >= rows[k].factor * (1 - 1e-12)) {
      i = k;
      break;
    }
  char num[64];
  fmt_sig3(num, sizeof num, bytes_per_s / rows[i].factor);
  if (i > 0 && fabs(atof(num)) >= 1000) { /* 999.6 GB/s -> 1 TB/s */
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
 * significant digits of ms, us or ns ("27.2 ms", "4.03 ms", "35.0 ms"). */
char *fmt_time(char *buf, size_t n, double seconds) {
  if (seconds == 0) return snprintf(buf, n, "0 s"), buf;
  double a = fabs(seconds);
  char num[64];
  if (fmt_round(a, 4) >= 0.1) {
    snprintf(buf, n, "%s s", fixed_or_exp(num, sizeof num, seconds, 2));
    return buf;
  }
  static const Scale rows[] = {{1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
  int i = NSCALES(rows) - 1;
  for (int k = 0; k < NSCALES(rows); k++)
    if (a >= rows[k].factor * (1 - 1e-12)) {
      i = k;
      break;
    }
  fmt_sig3(num, sizeof num, seconds / rows[i].factor);
  if (i > 0 && fabs(atof(num)) >= 1000) {
    i--;
    fmt_sig3(num, sizeof num, seconds / rows[i].factor);
  }
  snprintf(buf, n, "%s %ss", num, rows[i].prefix);
  return buf;
}
