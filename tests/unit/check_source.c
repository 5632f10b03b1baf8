/* SPDX-License-Identifier: MIT */
/* check_source.c: loading files and offset -> line:column on LF, CRLF and
 * lone-CR files. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rooflint.h"
#include "source.h"
#include "test_util.h"

static int add(SourceSet *ss, const char *text) {
  size_t len = strlen(text);
  char *copy = xmalloc(len + 1);
  memcpy(copy, text, len + 1);
  return src_add(ss, "t.roof", copy, len);
}

static void expect_linecol(const SourceFile *f, uint32_t off, int line, int col) {
  int l, c;
  src_linecol(f, off, &l, &c);
  ck_assert_msg(l == line && c == col, "offset %u: got %d:%d, want %d:%d",
                (unsigned)off, l, c, line, col);
}

static void expect_line(const SourceFile *f, int line, const char *want) {
  size_t len;
  const char *t = src_line_text(f, line, &len);
  ck_assert_uint_eq(len, strlen(want));
  ck_assert(memcmp(t, want, len) == 0);
}

START_TEST(test_lf) {
  SourceSet ss;
  src_init(&ss);
  const SourceFile *f = src_file(&ss, add(&ss, "ab\ncde\n\nf"));
  ck_assert_uint_eq(f->nlines, 4);
  expect_linecol(f, 0, 1, 1);
  expect_linecol(f, 2, 1, 3); /* the newline itself belongs to line 1 */
  expect_linecol(f, 3, 2, 1);
  expect_linecol(f, 5, 2, 3);
  expect_linecol(f, 7, 3, 1);
  expect_linecol(f, 8, 4, 1);
  expect_linecol(f, 9, 4, 2); /* end of file, last line without newline */
  expect_line(f, 2, "cde");
  expect_line(f, 3, "");
  expect_line(f, 4, "f");
  src_free(&ss);
}
END_TEST

START_TEST(test_crlf_and_cr) {
  SourceSet ss;
  src_init(&ss);
  const SourceFile *f = src_file(&ss, add(&ss, "ab\r\ncd\rx\r\n"));
  ck_assert_uint_eq(f->nlines, 4); /* ab, cd, x, and the empty last line */
  expect_linecol(f, 1, 1, 2);
  expect_linecol(f, 4, 2, 1);
  expect_linecol(f, 7, 3, 1);
  expect_linecol(f, 10, 4, 1);
  expect_line(f, 1, "ab");
  expect_line(f, 2, "cd");
  expect_line(f, 3, "x");
  src_free(&ss);
}
END_TEST

START_TEST(test_empty_and_bounds) {
  SourceSet ss;
  src_init(&ss);
  const SourceFile *f = src_file(&ss, add(&ss, ""));
  ck_assert_uint_eq(f->nlines, 1);
  expect_linecol(f, 0, 1, 1);
  expect_linecol(f, 99, 1, 1); /* clamped to the end */
  size_t len = 7;
  src_line_text(f, 5, &len);
  ck_assert_uint_eq(len, 0);
  ck_assert_ptr_null(src_file(&ss, 1));
  ck_assert_ptr_null(src_file(&ss, -1));
  src_free(&ss);
}
END_TEST

START_TEST(test_many_lines_binary_search) {
  SourceSet ss;
  src_init(&ss);
  StrBuf sb = {0};
  for (int i = 0; i < 1000; i++) sb_puts(&sb, "xy\n");
  const SourceFile *f = src_file(&ss, add(&ss, sb_str(&sb)));
  sb_free(&sb);
  expect_linecol(f, 3 * 500 + 1, 501, 2);
  expect_linecol(f, 3 * 999, 1000, 1);
  src_free(&ss);
}
END_TEST

START_TEST(test_load_file_with_nul) {
  char *path = tc_temp_file("check_source", "a\0b\n", 4);
  SourceSet ss;
  src_init(&ss);
  char *err = NULL;
  int id = src_load(&ss, path, &err);
  ck_assert_int_eq(id, 0);
  ck_assert_ptr_null(err);
  const SourceFile *f = src_file(&ss, id);
  ck_assert_uint_eq(f->len, 4); /* loaded whole: the lexer reports the NUL */
  ck_assert_int_eq(f->text[1], '\0');
  ck_assert_int_eq(f->text[4], '\0');
  ck_assert_str_eq(f->name, path);
  src_free(&ss);
  unlink(path);
  free(path);
}
END_TEST

START_TEST(test_load_errors) {
  SourceSet ss;
  src_init(&ss);
  char *err = NULL;
  ck_assert_int_eq(src_load(&ss, "/nonexistent/x.roof", &err), -1);
  ck_assert_str_eq(err, "cannot open '/nonexistent/x.roof': No such file or directory");
  free(err);
  ck_assert_int_eq(src_load(&ss, "/tmp", &err), -1);
  ck_assert_str_eq(err, "cannot open '/tmp': Is a directory");
  free(err);
  ck_assert_int_eq(ss.nfiles, 0);
  src_free(&ss);
}
END_TEST

START_TEST(test_load_too_large) {
  char *path = tc_temp_file("check_source", "x", 1);
  ck_assert_int_eq(truncate(path, (off_t)65 << 20), 0); /* sparse */
  SourceSet ss;
  src_init(&ss);
  char *err = NULL;
  ck_assert_int_eq(src_load(&ss, path, &err), -1);
  StrBuf want = {0};
  sb_printf(&want, "cannot open '%s': file too large (more than 64 MiB)", path);
  ck_assert_str_eq(err, sb_str(&want));
  free(err);
  sb_free(&want);
  /* a stream that never ends is cut at the same limit */
  ck_assert_int_eq(src_load(&ss, "/dev/zero", &err), -1);
  ck_assert_str_eq(err, "cannot read '/dev/zero': file too large (more than 64 MiB)");
  free(err);
  src_free(&ss);
  unlink(path);
  free(path);
}
END_TEST

START_TEST(test_load_unreadable) {
  if (geteuid() == 0) return; /* root reads anything */
  char *path = tc_temp_file("check_source", "x", 1);
  chmod(path, 0);
  SourceSet ss;
  src_init(&ss);
  char *err = NULL;
  ck_assert_int_eq(src_load(&ss, path, &err), -1);
  ck_assert(strstr(err, "Permission denied") != NULL);
  free(err);
  src_free(&ss);
  unlink(path);
  free(path);
}
END_TEST

START_TEST(test_suppressions_grow) {
  SourceSet ss;
  src_init(&ss);
  int id = add(&ss, "x");
  SourceFile *f = ss.files[id];
  for (int i = 0; i < 100; i++) {
    src_add_suppression(f, (Suppression){i, "memory-bound", LOC_NONE});
    src_add_expectation(f, (Expectation){i, SEV_WARNING, NULL, NULL, LOC_NONE});
  }
  ck_assert_int_eq(f->nsuppressions, 100);
  ck_assert_int_eq(f->nexpectations, 100);
  ck_assert_int_eq(f->suppressions[99].line, 99);
  ck_assert_int_eq(f->expectations[42].line, 42);
  src_free(&ss); /* valgrind/ASan: nothing leaks */
}
END_TEST

Suite *source_suite(void) {
  Suite *s = suite_create("source");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_lf);
  tcase_add_test(tc, test_crlf_and_cr);
  tcase_add_test(tc, test_empty_and_bounds);
  tcase_add_test(tc, test_many_lines_binary_search);
  tcase_add_test(tc, test_load_file_with_nul);
  tcase_add_test(tc, test_load_errors);
  tcase_add_test(tc, test_load_unreadable);
  tcase_add_test(tc, test_suppressions_grow);
  suite_add_tcase(s, tc);
  /* Reads 64 MiB of /dev/zero: slow under sanitizers. */
  TCase *tl = tcase_create("limits");
  tcase_set_timeout(tl, 120);
  tcase_add_test(tl, test_load_too_large);
  suite_add_tcase(s, tl);
  return s;
}
