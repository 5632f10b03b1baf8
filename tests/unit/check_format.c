/* SPDX-License-Identifier: MIT */
/* check_format.c: every figure format the reports use, on the seed's
 * figures and on the rounding edges (ties, binary noise, unit carries). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rooflint.h"

#define B 64

/* R-ROOF-005: one decimal of TFLOP/s, as the seed's six-ops table. */
START_TEST(rate_seed_figures) {
  char b[B];
  ck_assert_str_eq(fmt_flops_rate(b, B, 3.35e12 * (1.0 / 6.0) * 1.0), "0.6 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 3.35e12 * 0.99951171875), "3.3 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 990e12), "990.0 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 3.35e12 * 256), "857.6 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 1979e12), "1979.0 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 2.5e9), "2.5 GFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 0), "0 FLOP/s");
}
END_TEST

/* R-ROOF-002: the tie the seed prints: decode at 3.35 TFLOP/s is "3.4" (half to even
 * on the decimal value; 3.35e12/1e12 is 3.3499999999999996 in binary). */
START_TEST(rate_tie_rounds_to_even_decimal) {
  char b[B];
  ck_assert_str_eq(fmt_flops_rate(b, B, 3.35e12), "3.4 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 3.35e12 / 1e12 * 1e12), "3.4 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 0.25e12), "0.2 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 0.75e12), "0.8 TFLOP/s");
}
END_TEST

START_TEST(round_rule) {
  ck_assert(fmt_round(3.35, 1) == 3.4);
  ck_assert(fmt_round(2.625, 2) == 2.62); /* the seed's 2.62 GB */
  ck_assert(fmt_round(2.635, 2) == 2.64);
  ck_assert(fmt_round(0.1 + 0.2, 1) == 0.3);
  ck_assert(fmt_round(-0.04, 1) == 0.0);
  char b[B];
  ck_assert_str_eq(fmt_fixed(b, B, -0.04, 1), "0.0"); /* never "-0.0" */
  ck_assert_str_eq(fmt_fixed(b, B, 4096.0 / 3, 3), "1365.333");
  ck_assert_str_eq(fmt_fixed(b, B, 1.0 / 6, 3), "0.167");
  ck_assert_str_eq(fmt_fixed(b, B, 990e12 / 3.35e12, 1), "295.5");
  ck_assert_str_eq(fmt_fixed(b, B, 990e12 / 3.35e12, 0), "296");
  ck_assert_str_eq(fmt_fixed(b, B, 125e12 / 0.90e12, 0), "139");
  ck_assert_str_eq(fmt_fixed(b, B, 312e12 / 2.04e12, 0), "153");
}
END_TEST

START_TEST(bytes_seed_figures) {
  char b[B];
  ck_assert_str_eq(fmt_bytes(b, B, 4096.0 * 4096 * 4 * 3), "201.3 MB");
  ck_assert_str_eq(fmt_bytes(b, B, 4096.0 * 4096 * 3), "50.3 MB");
  ck_assert_str_eq(fmt_bytes(b, B, 2 * 7.0 / 8 * 14e9), "24.5 GB");
  ck_assert_str_eq(fmt_bytes(b, B, 1.75e9), "1.75 GB");
  ck_assert_str_eq(fmt_bytes(b, B, 2 * 3.0 / 4 * 1.75e9), "2.62 GB");
  ck_assert_str_eq(fmt_bytes(b, B, 2 * 15.0 / 16 * 1.75e9), "3.28 GB");
  ck_assert_str_eq(fmt_bytes(b, B, 4096.0 * 4096 * 2), "33.6 MB");
  ck_assert_str_eq(fmt_bytes(b, B, 4096.0 * 4096 * 2 * 1000), "33.6 GB");
  ck_assert_str_eq(fmt_bytes(b, B, 14e9), "14.0 GB");
}
END_TEST

START_TEST(bytes_edges) {
  char b[B];
  ck_assert_str_eq(fmt_bytes(b, B, 0), "0 B");
  ck_assert_str_eq(fmt_bytes(b, B, 512), "512 B");
  ck_assert_str_eq(fmt_bytes(b, B, 999.96e6), "1.00 GB"); /* carry */
  ck_assert_str_eq(fmt_bytes(b, B, 9.999e9), "10.0 GB");
  ck_assert_str_eq(fmt_bytes(b, B, 1e3), "1.00 KB");
  ck_assert_str_eq(fmt_bytes(b, B, 2.5e12), "2.50 TB");
}
END_TEST

START_TEST(time_seed_figures) {
  char b[B];
  ck_assert_str_eq(fmt_time(b, B, 24.5e9 / 900e9), "27.2 ms");
  ck_assert_str_eq(fmt_time(b, B, 24.5e9 / 900e9 + 1.75e9 / 50e9), "62.2 ms");
  ck_assert_str_eq(fmt_time(b, B, 24.5e9 / 900e9 + 2.625e9 / 50e9), "79.7 ms");
  ck_assert_str_eq(fmt_time(b, B, 24.5e9 / 900e9 + 3.28125e9 / 50e9), "92.8 ms");
  ck_assert_str_eq(fmt_time(b, B, 1.75e9 / 50e9), "35.0 ms");
  ck_assert_str_eq(fmt_time(b, B, 4096.0 * 4096 * 2 * 1000 / 64e9), "0.52 s");
  ck_assert_str_eq(fmt_time(b, B, 0), "0 s");
  ck_assert_str_eq(fmt_time(b, B, 5e-6), "5.00 us");
  ck_assert_str_eq(fmt_time(b, B, 123e-9), "123 ns");
  ck_assert_str_eq(fmt_time(b, B, 0.0999999), "0.10 s");
  ck_assert_str_eq(fmt_time(b, B, 0.0999), "99.9 ms");
  ck_assert_str_eq(fmt_time(b, B, 999.96e-6), "1.00 ms"); /* carry */
}
END_TEST

START_TEST(bandwidth_and_counts) {
  char b[B];
  ck_assert_str_eq(fmt_bandwidth(b, B, 3.35e12), "3.35 TB/s");
  ck_assert_str_eq(fmt_bandwidth(b, B, 900e9), "900 GB/s");
  ck_assert_str_eq(fmt_bandwidth(b, B, 50e9), "50 GB/s");
  ck_assert_str_eq(fmt_bandwidth(b, B, 4.8e12), "4.8 TB/s");
  ck_assert_str_eq(fmt_bandwidth(b, B, 999.7e9), "1 TB/s");
  ck_assert_str_eq(fmt_count(b, B, 2.0 * 4096 * 4096 * 4096), "137.4 G");
  ck_assert_str_eq(fmt_count(b, B, 6.74e9), "6.74 G");
  ck_assert_str_eq(fmt_count(b, B, 123), "123");
  ck_assert_str_eq(fmt_count(b, B, 0), "0");
  ck_assert_str_eq(fmt_sig3(b, B, 6.7), "6.70");
  ck_assert_str_eq(fmt_sig3(b, B, 3.35), "3.35");
  ck_assert_str_eq(fmt_sig3(b, B, 4096.0 / 6), "683");
  ck_assert_str_eq(fmt_sig3(b, B, 8192.0 / 3), "2731");
  ck_assert_str_eq(fmt_sig3(b, B, 99.96), "100");
  ck_assert_str_eq(fmt_percent(b, B, 1.0 / 132, 1), "0.8%");
  ck_assert_str_eq(fmt_percent(b, B, 1.0 / 132, 2), "0.76%");
  ck_assert_str_eq(fmt_percent(b, B, 133.0 / 264, 1), "50.4%");
  ck_assert_str_eq(fmt_percent(b, B, 512.0 / 528, 1), "97.0%");
}
END_TEST

/* R-ROOF-003 (issue 16 item 12, issue 17 item 7): P and E prefixes, minutes and hours,
 * and exponent form where digits would stop meaning anything (a figure of
 * 10^15 or more without a prefix, a million of the largest prefix); no
 * text is cut by the 64-byte buffers. */
START_TEST(large_figures) {
  char b[B];
  /* 3.69e+07 TFLOP was the example: 3.69e19 FLOP */
  ck_assert_str_eq(fmt_flop(b, B, 3.69e19), "36.9 EFLOP");
  ck_assert_str_eq(fmt_flop(b, B, 2.0e15), "2.00 PFLOP");
  ck_assert_str_eq(fmt_flop(b, B, 999.96e12), "1.00 PFLOP"); /* carry */
  ck_assert_str_eq(fmt_flop(b, B, 13.5e9), "13.5 GFLOP");
  ck_assert_str_eq(fmt_flop(b, B, 123), "123 FLOP");
  ck_assert_str_eq(fmt_bytes(b, B, 1.5e18), "1.50 EB");
  ck_assert_str_eq(fmt_count(b, B, 4.2e15), "4.20 P");
  /* 10^65 FLOPs (three nested repeat 10^18): 10^47 EFLOP is 1.37e+65 FLOP */
  ck_assert_str_eq(fmt_flop(b, B, 1.37e65), "1.37e+65 FLOP");
  ck_assert_str_eq(fmt_bytes(b, B, 1.01e62), "1.01e+62 B");
  ck_assert_str_eq(fmt_count(b, B, 1e54), "1.00e+54");
  /* 37434.19 s = 623.9 min = 10.398 h */
  ck_assert_str_eq(fmt_time(b, B, 37434.19), "10.4 h");
  ck_assert_str_eq(fmt_time(b, B, 59.99), "59.99 s");
  ck_assert_str_eq(fmt_time(b, B, 59.996), "1.00 min"); /* 60.00 s */
  ck_assert_str_eq(fmt_time(b, B, 90), "1.50 min");
  ck_assert_str_eq(fmt_time(b, B, 3590), "59.8 min"); /* 59.833 */
  ck_assert_str_eq(fmt_time(b, B, 3597), "1.00 h"); /* 59.95 min reads 60.0 */
  ck_assert_str_eq(fmt_time(b, B, 1.39e50), "3.86e+46 h");
  /* issue 28 item 20: past a million hours, the exponent form, never a row
   * of digits; 2.98506462686720e17 s / 3600 = 82,918,739,635,200 h */
  ck_assert_str_eq(fmt_time(b, B, 82918739635200.0 * 3600), "8.29e+13 h");
  ck_assert_str_eq(fmt_time(b, B, 999999.0 * 3600), "999999 h");
  ck_assert_str_eq(fmt_time(b, B, 1e6 * 3600), "1.00e+06 h");
  ck_assert_str_eq(fmt_time(b, B, -1e6 * 3600), "-1.00e+06 h");
  /* rates stay in TFLOP/s as the seed prints them ("1979.0"), up to
   * 10^18 FLOP/s */
  ck_assert_str_eq(fmt_flops_rate(b, B, 1e15), "1000.0 TFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 2.5e18), "2.5 EFLOP/s");
  ck_assert_str_eq(fmt_flops_rate(b, B, 3e300), "3.00e+300 FLOP/s");
  ck_assert_str_eq(fmt_bandwidth(b, B, 1.2e15), "1.2 PB/s");
  ck_assert_str_eq(fmt_bandwidth(b, B, 1e308), "1.00e+308 B/s");
  /* the ridge: 2.99e299 FLOP/B printed 63 digits, cut */
  ck_assert_str_eq(fmt_fixed(b, B, 2.99e299, 1), "2.99e+299");
  ck_assert_str_eq(fmt_sig3(b, B, 2.99e299), "2.99e+299");
  ck_assert_str_eq(fmt_fixed(b, B, 123456789012345.0, 0), "123456789012000");
  ck_assert_str_eq(fmt_fixed(b, B, 1e15, 0), "1.00e+15");
  ck_assert_str_eq(fmt_percent(b, B, 1e300, 1), "1.00e+302%");
  ck_assert_str_eq(fmt_sig3(b, B, 1e9), "1000000000");
}
END_TEST

/* ------------------------------------------------ fast path = reference */

/* fmt_round and fmt_fixed decide most values in integers and leave the rest
 * to the decimal-text route (fmt_round_ref, fmt_fixed_ref); the two must
 * never differ, bit for bit and byte for byte. */

static uint64_t next_rand(uint64_t *s) { /* xorshift64*: reproducible */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717u;
}

static double unit_rand(uint64_t *s) { return (double)(next_rand(s) >> 11) * 0x1p-53; }

static const double pow10_of[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                  1e14, 1e15, 1e16, 1e17, 1e18};

/* One value at one number of decimals.  The comparisons stay outside
 * ck_assert until one fails: Check records every assertion it passes, and
 * these run by the hundred thousand. */
static void agree_at(double x, int d) {
  double a = fmt_round(x, d), b = fmt_round_ref(x, d);
  if (isnan(b) ? !isnan(a) : memcmp(&a, &b, sizeof a) != 0)
    ck_abort_msg("fmt_round(%.17g, %d): fast %.17g, reference %.17g", x, d, a, b);
  char fa[B], fb[B];
  fmt_fixed(fa, B, x, d);
  fmt_fixed_ref(fb, B, x, d);
  if (strcmp(fa, fb) != 0)
    ck_abort_msg("fmt_fixed(%.17g, %d): fast \"%s\", reference \"%s\"", x, d, fa, fb);
  char pa[B], pb[B], t[B];
  fmt_percent(pa, B, x / 100, d);
  snprintf(pb, B, "%s%%", fmt_fixed_ref(t, B, x / 100 * 100.0, d));
  if (strcmp(pa, pb) != 0)
    ck_abort_msg("fmt_percent(%.17g, %d): \"%s\", \"%s\"", x / 100, d, pa, pb);
}

static void agree(double x, int d) {
  double y = x;
  for (int i = 0; i < 3; i++) y = nextafter(y, INFINITY);
  for (int i = 0; i < 7; i++, y = nextafter(y, -INFINITY)) {
    agree_at(y, d);
    agree_at(-y, d);
  }
}

/* R-CHK-010, R-CHK-030: every message prints an intensity one way, three
 * significant digits and none after the point from 100 on: the seed's
 * decode step (2 FLOPs per 2-byte weight) 1.00, its element-wise add
 * (1 FLOP per 6 bytes) 0.167, its fp16 and fp32 4096^3 matmul
 * (2*4096^3 / (3*4096^2*2) = 1365.33, half that 682.67) 1365 and 683. */
START_TEST(intensity_one_rule) {
  char b[32];
  ck_assert_str_eq(fmt_intensity(b, sizeof b, 1.0), "1.00");
  ck_assert_str_eq(fmt_intensity(b, sizeof b, 1.0 / 6), "0.167");
  ck_assert_str_eq(fmt_intensity(b, sizeof b, 4096.0 / 3), "1365");
  ck_assert_str_eq(fmt_intensity(b, sizeof b, 2048.0 / 3), "683");
  ck_assert_str_eq(fmt_intensity(b, sizeof b, 63.04), "63.0");
  ck_assert_str_eq(fmt_intensity(b, sizeof b, 232.0), "232");
}
END_TEST

START_TEST(fast_round_specials) {
  const double v[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, DBL_TRUE_MIN,
                      DBL_MAX, DBL_EPSILON, 0.5, 1.5, 2.5, 2.625, 3.35, 2.635,
                      0.1665, 0.1675, 99.96, 999.96, 0.05, 0.25, 0.75, 1e15,
                      9.99999999999e14, 999999999999.5, 99999999999.95,
                      1234567890125.0, 1234567890135.0, 12345678901.45,
                      0x1p52, 0x1p53, 4096.0 / 3, 1.0 / 6, 990e12 / 3.35e12};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    for (int d = 0; d <= 16; d++) agree(v[i], d);
  for (int d = 0; d <= 16; d++) agree(0.5 / pow10_of[d], d);
  /* The decimals the callers ask for, including a negative one. */
  agree(1234.5, -1);
  agree(1250.0, -2);
  agree(3.35, 30);
}
END_TEST

/* A short buffer cuts the text where snprintf would. */
START_TEST(fast_round_short_buffers) {
  const double v[] = {1365.3333, -0.04, 2.625, 1e14 / 3, 0.0};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    for (size_t n = 1; n <= 24; n++)
      for (int d = 0; d <= 4; d++) {
        char fa[B], fb[B], pa[B], pb[B], t[B];
        fmt_fixed(fa, n, v[i], d);
        fmt_fixed_ref(fb, n, v[i], d);
        ck_assert_str_eq(fa, fb);
        fmt_percent(pa, n, v[i], d);
        snprintf(pb, n, "%s%%", fmt_fixed_ref(t, B, v[i] * 100.0, d));
        ck_assert_str_eq(pa, pb);
      }
  char b[8];
  ck_assert_str_eq(fmt_bytes(b, sizeof b, 2.625e9), "2.62 GB");
  ck_assert_str_eq(fmt_bytes(b, 5, 2.625e9), "2.62");
  ck_assert_str_eq(fmt_time(b, 4, 27.2e-3), "27.");
  ck_assert_str_eq(fmt_flops_rate(b, sizeof b, 990e12), "990.0 T");
}
END_TEST

/* Random magnitudes from 1e-25 to 1e20 at every number of decimals. */
START_TEST(fast_round_random) {
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 30000; i++) {
    double m = 1 + 9 * unit_rand(&s);
    double x = m * pow(10.0, (int)(next_rand(&s) % 46) - 25);
    agree_at(x, (int)(next_rand(&s) % 16));
    agree_at(-x, (int)(next_rand(&s) % 16));
  }
}
END_TEST

/* Short decimals (2.625, 3.35, 0.1665): the values a model's figures
 * produce, many of them ties at some number of decimals. */
START_TEST(fast_round_short_decimals) {
  uint64_t s = 0x243f6a8885a308d3u;
  for (int i = 0; i < 20000; i++) {
    int digits = 1 + (int)(next_rand(&s) % 15);
    int64_t k = (int64_t)(next_rand(&s) % (uint64_t)pow10_of[digits]);
    double x = (double)k / pow10_of[next_rand(&s) % 16];
    int d = (int)(next_rand(&s) % 14);
    agree(x, d);
  }
}
END_TEST

/* Ties at the last decimal, (k + 1/2) * 10^-d, and ties at the twelfth
 * significant digit of x * 10^d, where the two roundings meet. */
START_TEST(fast_round_ties) {
  uint64_t s = 0x13198a2e03707344u;
  for (int i = 0; i < 10000; i++) {
    int d = (int)(next_rand(&s) % 13);
    double k = (double)(next_rand(&s) % 1000000000u);
    agree((k + 0.5) / pow10_of[d], d);
    /* y = (12 digits + 5 at the 13th) * 10^(e - 12), e from -3 to 14 */
    int64_t m12 = 100000000000 + (int64_t)(next_rand(&s) % 900000000000u);
    int e = (int)(next_rand(&s) % 18) - 3;
    double y = (double)(m12 * 10 + 5);
    y = e >= 12 ? y * pow10_of[e - 12] : y / pow10_of[12 - e];
    agree(y / pow10_of[d], d);
  }
  /* Near powers of ten, and near the half between them and 1. */
  for (int p = -15; p <= 17; p++)
    for (int d = 0; d <= 15; d++) {
      agree(pow(10.0, p), d);
      agree(0.5 * pow(10.0, p), d);
      agree(0.95 * pow(10.0, p), d);
    }
}
END_TEST

Suite *format_suite(void) {
  Suite *s = suite_create("format");
  TCase *tc = tcase_create("format");
  tcase_add_test(tc, rate_seed_figures);
  tcase_add_test(tc, rate_tie_rounds_to_even_decimal);
  tcase_add_test(tc, round_rule);
  tcase_add_test(tc, intensity_one_rule);
  tcase_add_test(tc, bytes_seed_figures);
  tcase_add_test(tc, bytes_edges);
  tcase_add_test(tc, time_seed_figures);
  tcase_add_test(tc, bandwidth_and_counts);
  tcase_add_test(tc, large_figures);
  suite_add_tcase(s, tc);
  TCase *fast = tcase_create("fast path");
  tcase_set_timeout(fast, 60);
  tcase_add_test(fast, fast_round_specials);
  tcase_add_test(fast, fast_round_short_buffers);
  tcase_add_test(fast, fast_round_random);
  tcase_add_test(fast, fast_round_short_decimals);
  tcase_add_test(fast, fast_round_ties);
  suite_add_tcase(s, fast);
  return s;
}
