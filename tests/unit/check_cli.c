/* SPDX-License-Identifier: MIT */
/* check_cli.c: the one reader of a -W option (cli_apply_warning), which
 * the command line's -W and the language server's "warnings" setting
 * share (R-CLI-004, R-CLI-013, R-LSP-018). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void policy_free(DiagPolicy *p) {
  free((void *)p->enabled);
  free((void *)p->disabled);
  free((void *)p->werror_on);
  free((void *)p->werror_off);
}

/* R-CLI-004: -Werror and -Wno-error set the switch; the last of -W CHECK
 * and -Wno-CHECK wins, each check in one list at most. */
START_TEST(warning_last_wins) {
  DiagPolicy p = {0};
  ck_assert(cli_apply_warning(&p, "error"));
  ck_assert(p.werror);
  ck_assert(cli_apply_warning(&p, "no-error"));
  ck_assert(!p.werror);
  ck_assert(cli_apply_warning(&p, "no-memory-bound"));
  ck_assert(cli_apply_warning(&p, "wave-tail"));
  ck_assert_int_eq(p.ndisabled, 1);
  ck_assert_str_eq(p.disabled[0], "memory-bound");
  ck_assert_int_eq(p.nenabled, 1);
  ck_assert_str_eq(p.enabled[0], "wave-tail");
  ck_assert(cli_apply_warning(&p, "memory-bound")); /* -W after -Wno- */
  ck_assert_int_eq(p.ndisabled, 0);
  ck_assert_int_eq(p.nenabled, 2);
  ck_assert_str_eq(p.enabled[1], "memory-bound");
  policy_free(&p);
}
END_TEST

/* R-CLI-013: -Werror=CHECK enables the check and makes it an error;
 * -Wno-error=CHECK keeps it a warning whatever -Werror, and leaves it
 * enabled or not as it was. */
START_TEST(warning_error_per_check) {
  DiagPolicy p = {0};
  ck_assert(cli_apply_warning(&p, "error=wave-tail"));
  ck_assert_int_eq(p.nwerror_on, 1);
  ck_assert_str_eq(p.werror_on[0], "wave-tail");
  ck_assert_int_eq(p.nenabled, 1);
  ck_assert(cli_apply_warning(&p, "no-error=wave-tail"));
  ck_assert_int_eq(p.nwerror_on, 0);
  ck_assert_int_eq(p.nwerror_off, 1);
  ck_assert_str_eq(p.werror_off[0], "wave-tail");
  ck_assert_int_eq(p.nenabled, 1);
  ck_assert_int_eq(p.ndisabled, 0);
  policy_free(&p);
}
END_TEST

/* A name that is no check is refused, and the policy is left as it was:
 * the caller says so (an error on the command line, a logMessage in the
 * server). */
START_TEST(warning_unknown) {
  DiagPolicy p = {0};
  ck_assert(!cli_apply_warning(&p, "memory-bund"));
  ck_assert(!cli_apply_warning(&p, "error=nothing"));
  ck_assert(!cli_apply_warning(&p, "no-"));
  ck_assert_int_eq(p.nenabled + p.ndisabled + p.nwerror_on + p.nwerror_off, 0);
  ck_assert(!p.werror);
  policy_free(&p);
}
END_TEST

Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("warnings");
  tcase_add_test(tc, warning_last_wins);
  tcase_add_test(tc, warning_error_per_check);
  tcase_add_test(tc, warning_unknown);
  suite_add_tcase(s, tc);
  return s;
}
