/* SPDX-License-Identifier: MIT */
/* check_format.c: every figure format the reports use, on the seed's
 * figures and on the rounding edges (ties, binary noise, unit carries). */
#include <check.h>
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

Suite *format_suite(void) {
  Suite *s = suite_create("format");
  TCase *tc = tcase_create("format");
  tcase_add_test(tc, rate_seed_figures);
  tcase_add_test(tc, rate_tie_rounds_to_even_decimal);
  tcase_add_test(tc, round_rule);
  tcase_add_test(tc, bytes_seed_figures);
  tcase_add_test(tc, bytes_edges);
  tcase_add_test(tc, time_seed_figures);
  tcase_add_test(tc, bandwidth_and_counts);
  suite_add_tcase(s, tc);
  return s;
}
