/* SPDX-License-Identifier: MIT */
/* check_dtype.c: the dtype table (bytes, widths, tensor-core multiples),
 * parsing with the fp8 alias, role and op-class names. */
#include <check.h>
#include <string.h>

#include "rooflint.h"

/* specs/language.md R-DTYPE-001, in enum order. */
START_TEST(test_bytes_and_names) {
  static const char *const names[DT__COUNT] = {
      "fp64", "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2",
      "fp4", "int8", "int4", "int32", "int64", "bool"};
  static const double bytes[DT__COUNT] = {8, 4, 4, 2, 2, 1, 1, 0.5, 1, 0.5,
                                          4, 8, 1};
  static const int tc[DT__COUNT] = {0, 0, 4, 8, 8, 16, 16, 32, 16, 32, 0, 0, 0};
  for (int i = 0; i < DT__COUNT; i++) {
    const DTypeInfo *d = dtype_info((DType)i);
    ck_assert_str_eq(d->name, names[i]);
    ck_assert_str_eq(dtype_str((DType)i), names[i]);
    ck_assert(d->bytes == bytes[i]);
    ck_assert_int_eq(d->tc_multiple, tc[i]);
    ck_assert_int_eq(dtype_parse(names[i]), i);
  }
  ck_assert(dtype_info(DT_BF16)->is_float && !dtype_info(DT_INT8)->is_float);
  ck_assert_int_eq(dtype_info(DT_FP32)->bits, 32);
  ck_assert_int_eq(dtype_info(DT_FP4)->bits, 4);
}
END_TEST

START_TEST(test_parse) {
  ck_assert_int_eq(dtype_parse("fp8"), DT_FP8_E4M3);
  ck_assert_int_eq(dtype_parse("bf61"), DT_NONE);
  ck_assert_int_eq(dtype_parse("BF16"), DT_NONE);
  ck_assert_str_eq(dtype_str(DT_NONE), "none");
  int n = 0;
  bool has_alias = false;
  for (const char *const *p = dtype_names(); *p; p++, n++)
    has_alias |= strcmp(*p, "fp8") == 0;
  ck_assert_int_eq(n, DT__COUNT + 1);
  ck_assert(has_alias);
  ck_assert_str_eq(util_suggest("bf17", dtype_names()), "bf16");
}
END_TEST

START_TEST(test_role_class) {
  ck_assert_str_eq(role_str(ROLE_INPUT), "input");
  ck_assert_str_eq(role_str(ROLE_WEIGHT), "weight");
  ck_assert_str_eq(role_str(ROLE_HOST), "host");
  ck_assert_str_eq(role_str(ROLE_ACTIVATION), "activation");
  ck_assert_str_eq(op_class_str(OC_ELEMENTWISE), "elementwise");
  ck_assert_str_eq(op_class_str(OC_REDUCTION), "reduction");
  ck_assert_str_eq(op_class_str(OC_CONTRACTION), "contraction");
  ck_assert_str_eq(op_class_str(OC_MOVEMENT), "movement");
  ck_assert_str_eq(op_class_str(OC_VIEW), "view");
  ck_assert_str_eq(op_class_str(OC_TRANSFER), "transfer");
  ck_assert_str_eq(op_class_str(OC_COLLECTIVE), "collective");
  ck_assert_str_eq(op_class_str(OC_OPAQUE), "opaque");
}
END_TEST

Suite *dtype_suite(void) {
  Suite *s = suite_create("dtype");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_bytes_and_names);
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_role_class);
  suite_add_tcase(s, tc);
  return s;
}
