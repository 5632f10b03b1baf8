/* SPDX-License-Identifier: MIT */
/* check_diag.c: recording, policy, sorting, the exact text rendering and
 * --verify matching.  Diagnostics are recorded by hand against a source
 * string, so these tests do not depend on the front end. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rooflint.h"
#include "diag.h"
#include "source.h"

typedef struct Fx {
  SourceSet ss;
  DiagSink sink;
  int file;
  char *out;
} Fx;

static Fx *fx_new(const char *text) {
  Fx *fx = xcalloc(1, sizeof *fx);
  src_init(&fx->ss);
  diag_sink_init(&fx->sink);
  size_t len = strlen(text);
  char *copy = xmalloc(len + 1);
  memcpy(copy, text, len + 1);
  fx->file = src_add(&fx->ss, "t.roof", copy, len);
  return fx;
}

static void fx_free(Fx *fx) {
  diag_sink_free(&fx->sink);
  src_free(&fx->ss);
  free(fx->out);
  free(fx);
}

/* The range of the first occurrence of `word` in the file. */
static Loc at(const Fx *fx, const char *word) {
  const char *text = fx->ss.files[fx->file]->text;
  const char *p = strstr(text, word);
  ck_assert_msg(p != NULL, "'%s' not in source", word);
  uint32_t start = (uint32_t)(p - text);
  return (Loc){fx->file, start, start + (uint32_t)strlen(word)};
}

static Loc point(const Fx *fx, const char *word) {
  Loc l = at(fx, word);
  l.end = l.start;
  return l;
}

static const char *render(Fx *fx, bool color) {
  size_t len;
  free(fx->out);
  FILE *f = open_memstream(&fx->out, &len);
  RenderOptions ro = {.color = color};
  diag_render_text(&fx->sink, &fx->ss, f, &ro);
  fclose(f);
  return fx->out;
}

static const char *verify(Fx *fx, int *problems) {
  size_t len;
  free(fx->out);
  FILE *f = open_memstream(&fx->out, &len);
  *problems = diag_verify(&fx->sink, &fx->ss, fx->file, f);
  fclose(f);
  return fx->out;
}

static const char *const decode =
    "model m {\n"
    "  logits = matmul(h, w_out)\n"
    "}\n";

START_TEST(test_caret_under_range) {
  Fx *fx = fx_new(decode);
  diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "matmul(h, w_out)"),
              "matmul 'logits' is memory-bound");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:2:12: warning: matmul 'logits' is memory-bound [-Wmemory-bound]\n"
                   "    2 |   logits = matmul(h, w_out)\n"
                   "      |            ^~~~~~~~~~~~~~~~\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_language_error_has_no_tag) {
  Fx *fx = fx_new(decode);
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "w_out"), "undefined name '%s'",
              "w_out");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:2:22: error: undefined name 'w_out'\n"
                   "    2 |   logits = matmul(h, w_out)\n"
                   "      |                      ^~~~~\n");
  ck_assert_int_eq(fx->sink.nerrors, 1);
  fx_free(fx);
}
END_TEST

START_TEST(test_tabs_expand) {
  Fx *fx = fx_new("model m {\n\tx = relu(y)\t# c\n}\n");
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "relu(y)"), "bad");
  /* column is the byte column (6); the display puts the tab at 8 spaces */
  ck_assert_str_eq(render(fx, false),
                   "t.roof:2:6: error: bad\n"
                   "    2 |         x = relu(y)     # c\n"
                   "      |             ^~~~~~~\n");
  fx_free(fx);
}
END_TEST

/* A line longer than the snippet limit shows a window around the caret,
 * with "..." where it was cut, and the caret still under its token. */
START_TEST(test_long_line_window) {
  StrBuf src = {0};
  sb_puts(&src, "let a = 1 + ");
  for (int i = 0; i < 100; i++) sb_puts(&src, "1 + ");
  sb_puts(&src, "q");
  for (int i = 0; i < 100; i++) sb_puts(&src, " + 1");
  sb_puts(&src, "\n");
  Fx *fx = fx_new(sb_str(&src));
  sb_free(&src);
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "q"), "unknown name 'q'");
  const char *out = render(fx, false);
  /* the header keeps the true column: 12 + 400 + 1 */
  ck_assert(strncmp(out, "t.roof:1:413: error: unknown name 'q'\n", 38) == 0);
  const char *src_line = strchr(out, '\n') + 1;
  ck_assert(strncmp(src_line, "    1 | ...", 11) == 0);
  const char *nl = strchr(src_line, '\n');
  ck_assert(nl - src_line < 200);            /* cut, not 813 bytes */
  ck_assert(strncmp(nl - 3, "...", 3) == 0); /* cut on the right too */
  const char *caret_line = nl + 1;
  size_t caret_col = strchr(caret_line, '^') - caret_line;
  ck_assert_int_eq(src_line[caret_col], 'q');
  fx_free(fx);
}
END_TEST

START_TEST(test_zero_width) {
  Fx *fx = fx_new("let B = \n");
  Loc l = {0, 8, 8};
  diag_report(&fx->sink, SEV_ERROR, NULL, l, "expected an expression");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:1:9: error: expected an expression\n"
                   "    1 | let B = \n"
                   "      |         ^\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_multiline_range) {
  Fx *fx = fx_new("model m {\n  y = matmul(a,\n             b)\n}\n");
  Loc l = at(fx, "matmul");
  l.end = at(fx, "b)").end;
  diag_report(&fx->sink, SEV_WARNING, "tc-alignment", l, "w");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:2:7: warning: w [-Wtc-alignment]\n"
                   "    2 |   y = matmul(a,\n"
                   "      |       ^~~~~~~~~\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_notes) {
  Fx *fx = fx_new("weight w : fp32[4]\nmodel m {\n  y = relu(w)\n}\n");
  Diag *d = diag_report(&fx->sink, SEV_WARNING, "stray-fp32", at(fx, "relu(w)"),
                        "relu computes in fp32");
  diag_note(d, at(fx, "fp32"), "fp32 comes from this declaration");
  diag_note(d, LOC_NONE, "the plan is %s", "bf16");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:3:7: warning: relu computes in fp32 [-Wstray-fp32]\n"
                   "    3 |   y = relu(w)\n"
                   "      |       ^~~~~~~\n"
                   "t.roof:1:12: note: fp32 comes from this declaration\n"
                   "    1 | weight w : fp32[4]\n"
                   "      |            ^~~~\n"
                   "note: the plan is bf16\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_fixit) {
  Fx *fx = fx_new("  y = matmul(x, w)\n");
  Diag *d = diag_report(&fx->sink, SEV_WARNING, "tc-alignment", at(fx, "w)"), "pad");
  diag_fixit(d, at(fx, "w)"), "w_pad");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:1:17: warning: pad [-Wtc-alignment]\n"
                   "    1 |   y = matmul(x, w)\n"
                   "      |                 ^~\n"
                   "      |                 w_pad\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_fixit_other_line) {
  Fx *fx = fx_new("model m {\n  a = relu(x)\n  b = gelu(a)\n}\n");
  Diag *d = diag_report(&fx->sink, SEV_WARNING, "unfused-elementwise",
                        at(fx, "relu(x)"), "unfused");
  diag_fixit(d, point(fx, "  a ="), "fused f {\n");
  diag_fixit(d, point(fx, "}\n"), "}\n");
  ck_assert_str_eq(render(fx, false),
                   "t.roof:2:7: warning: unfused [-Wunfused-elementwise]\n"
                   "    2 |   a = relu(x)\n"
                   "      |       ^~~~~~~\n"
                   "      | fused f {\n"
                   "    4 | }\n"
                   "      | ^\n"
                   "      | }\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_color) {
  Fx *fx = fx_new("x\n");
  Diag *d = diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "x"), "bad");
  diag_note(d, LOC_NONE, "n");
  ck_assert_str_eq(render(fx, true),
                   "\033[1mt.roof:1:1: \033[0m\033[1;31merror: \033[0m\033[1mbad\033[0m\n"
                   "    1 | x\n"
                   "      | \033[1;32m^\033[0m\n"
                   "\033[1m\033[0m\033[1;36mnote: \033[0mn\033[0m\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_color_warning_is_magenta) {
  Fx *fx = fx_new("x\n");
  diag_report(&fx->sink, SEV_WARNING, "c", at(fx, "x"), "w");
  ck_assert(strstr(render(fx, true), "\033[1;35mwarning: ") != NULL);
  ck_assert(strstr(render(fx, false), "\033") == NULL);
  fx_free(fx);
}
END_TEST

START_TEST(test_no_location) {
  Fx *fx = fx_new("");
  diag_report(&fx->sink, SEV_ERROR, NULL, LOC_NONE, "no input files");
  ck_assert_str_eq(render(fx, false), "rooflint: error: no input files\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_werror) {
  Fx *fx = fx_new("a\nb\n");
  diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "a"), "slow");
  diag_report(&fx->sink, SEV_REMARK, "wave-tail", at(fx, "b"), "tail");
  DiagPolicy p = {.werror = true};
  diag_apply_policy(&fx->sink, &fx->ss, &p);
  ck_assert_int_eq(fx->sink.nerrors, 1);
  ck_assert_int_eq(fx->sink.nwarnings, 0);
  ck_assert_str_eq(render(fx, false),
                   "t.roof:1:1: error: slow [-Werror,-Wmemory-bound]\n"
                   "    1 | a\n"
                   "      | ^\n"
                   "t.roof:2:1: remark: tail [-Wwave-tail]\n"
                   "    2 | b\n"
                   "      | ^\n");
  fx_free(fx);
}
END_TEST

START_TEST(test_policy_drops) {
  Fx *fx = fx_new("a\nb\nc\n");
  diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "a"), "1");
  diag_report(&fx->sink, SEV_WARNING, "wave-tail", at(fx, "b"), "2");
  diag_report(&fx->sink, SEV_REMARK, "low-occupancy", at(fx, "c"), "3");
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "c"), "4");
  const char *off[] = {"wave-tail"};
  DiagPolicy p = {.disabled = off, .ndisabled = 1};
  diag_apply_policy(&fx->sink, &fx->ss, &p);
  ck_assert_int_eq(fx->sink.n, 3);
  ck_assert_int_eq(fx->sink.nwarnings, 1);
  DiagPolicy w = {.no_warnings = true};
  diag_apply_policy(&fx->sink, &fx->ss, &w);
  ck_assert_int_eq(fx->sink.n, 1); /* -w keeps errors only */
  ck_assert_str_eq(fx->sink.items[0]->msg, "4");
  ck_assert_int_eq(fx->sink.nerrors, 1);
  ck_assert_int_eq(fx->sink.nwarnings, 0);
  fx_free(fx);
}
END_TEST

START_TEST(test_suppressions) {
  /* R-SUP-001, R-SUP-002 */
  Fx *fx = fx_new("a\nb\nc\n");
  SourceFile *f = fx->ss.files[0];
  src_add_suppression(f, (Suppression){1, "memory-bound", LOC_NONE});
  src_add_suppression(f, (Suppression){0, "wave-tail", LOC_NONE});
  diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "a"), "gone");
  diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "b"), "other line");
  diag_report(&fx->sink, SEV_WARNING, "wave-tail", at(fx, "c"), "file-wide");
  diag_report(&fx->sink, SEV_WARNING, "stray-fp32", at(fx, "a"), "other check");
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "a"), "errors stay");
  DiagPolicy p = {0};
  diag_apply_policy(&fx->sink, &fx->ss, &p);
  ck_assert_int_eq(fx->sink.n, 3);
  ck_assert_str_eq(fx->sink.items[0]->msg, "other line");
  ck_assert_str_eq(fx->sink.items[1]->msg, "other check");
  ck_assert_str_eq(fx->sink.items[2]->msg, "errors stay");
  ck_assert_int_eq(fx->sink.nwarnings, 2);
  ck_assert_int_eq(fx->sink.nerrors, 1);
  fx_free(fx);
}
END_TEST

START_TEST(test_error_limit) {
  Fx *fx = fx_new("x\n");
  fx->sink.error_limit = 2;
  for (int i = 0; i < 5; i++) {
    ck_assert(!diag_too_many(&fx->sink) || i >= 2);
    Diag *d = diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "x"), "e%d", i);
    diag_note(d, LOC_NONE, "note %d", i); /* safe on a dropped one too */
  }
  diag_report(&fx->sink, SEV_WARNING, "c", at(fx, "x"), "warnings are kept");
  ck_assert(diag_too_many(&fx->sink));
  ck_assert(fx->sink.limit_hit);
  ck_assert_int_eq(fx->sink.nerrors, 5);
  ck_assert_int_eq(fx->sink.n, 3);
  DiagPolicy p = {0};
  diag_apply_policy(&fx->sink, &fx->ss, &p);
  ck_assert_int_eq(fx->sink.nerrors, 5); /* dropped ones still count */
  const char *out = render(fx, false);
  const char *tail = "rooflint: too many errors emitted, stopping now [-ferror-limit=]\n";
  ck_assert_str_eq(out + strlen(out) - strlen(tail), tail);
  ck_assert(strstr(out, "error: e1\n") && !strstr(out, "error: e2\n"));
  fx_free(fx);
}
END_TEST

START_TEST(test_error_limit_reached_exactly) {
  /* The parser stops at diag_too_many() without recording more: the
   * closing line still says the run stopped. */
  Fx *fx = fx_new("x\n");
  fx->sink.error_limit = 2;
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "x"), "e0");
  ck_assert(!diag_too_many(&fx->sink));
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "x"), "e1");
  ck_assert(diag_too_many(&fx->sink));
  DiagPolicy p = {0};
  diag_apply_policy(&fx->sink, &fx->ss, &p);
  ck_assert(strstr(render(fx, false), "\nrooflint: too many errors emitted, stopping now [-ferror-limit=]\n"));
  fx_free(fx);
}
END_TEST

START_TEST(test_sort_stable) {
  Fx *fx = fx_new("aaa bbb\n");
  diag_report(&fx->sink, SEV_WARNING, "c", at(fx, "bbb"), "third");
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "aaa"), "first");
  diag_report(&fx->sink, SEV_WARNING, "c", at(fx, "aaa"), "second");
  diag_report(&fx->sink, SEV_ERROR, NULL, LOC_NONE, "zeroth");
  diag_sort(&fx->sink);
  ck_assert_str_eq(fx->sink.items[0]->msg, "zeroth");
  ck_assert_str_eq(fx->sink.items[1]->msg, "first");
  ck_assert_str_eq(fx->sink.items[2]->msg, "second");
  ck_assert_str_eq(fx->sink.items[3]->msg, "third");
  fx_free(fx);
}
END_TEST

START_TEST(test_severity_str) {
  ck_assert_str_eq(severity_str(SEV_NOTE), "note");
  ck_assert_str_eq(severity_str(SEV_REMARK), "remark");
  ck_assert_str_eq(severity_str(SEV_WARNING), "warning");
  ck_assert_str_eq(severity_str(SEV_ERROR), "error");
}
END_TEST

START_TEST(test_figures) {
  Fx *fx = fx_new("x\n");
  Diag *d = diag_report(&fx->sink, SEV_WARNING, "c", at(fx, "x"), "w");
  diag_figure(d, "intensity", 1.0);
  diag_figure(d, "ridge", 295.5);
  ck_assert_int_eq(d->nfigures, 2);
  ck_assert_str_eq(d->figures[1].key, "ridge");
  ck_assert(d->figures[1].value == 295.5);
  fx_free(fx);
}
END_TEST

START_TEST(test_verify_pass) {
  /* R-VER-001, R-VER-002 */
  Fx *fx = fx_new("a\nb\n");
  SourceFile *f = fx->ss.files[0];
  src_add_expectation(f, (Expectation){1, SEV_WARNING, "memory-bound", "3.3 TFLOP/s", LOC_NONE});
  src_add_expectation(f, (Expectation){2, SEV_ERROR, NULL, NULL, LOC_NONE});
  Diag *d = diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "a"),
                        "ceiling 3.3 TFLOP/s");
  diag_note(d, at(fx, "b"), "notes are not compared");
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "b"), "anything");
  int problems;
  ck_assert_str_eq(verify(fx, &problems), "");
  ck_assert_int_eq(problems, 0);
  fx_free(fx);
}
END_TEST

START_TEST(test_verify_fail) {
  /* R-VER-003 */
  Fx *fx = fx_new("a\nb\nc\n");
  SourceFile *f = fx->ss.files[0];
  src_add_expectation(f, (Expectation){1, SEV_WARNING, "memory-bound", "3.3 TFLOP/s", LOC_NONE});
  src_add_expectation(f, (Expectation){2, SEV_ERROR, NULL, "shape", LOC_NONE});
  diag_report(&fx->sink, SEV_WARNING, "memory-bound", at(fx, "a"), "ceiling 6.7 TFLOP/s");
  diag_report(&fx->sink, SEV_ERROR, NULL, at(fx, "b"), "shape mismatch");
  diag_report(&fx->sink, SEV_REMARK, "wave-tail", at(fx, "c"), "tail");
  diag_report(&fx->sink, SEV_NOTE, NULL, at(fx, "c"), "standalone notes need no expectation");
  int problems;
  ck_assert_str_eq(verify(fx, &problems),
                   "t.roof:1: expected warning[memory-bound] \"3.3 TFLOP/s\" was not emitted\n"
                   "t.roof:1:1: unexpected warning[memory-bound]: ceiling 6.7 TFLOP/s\n"
                   "t.roof:3:1: unexpected remark[wave-tail]: tail\n");
  ck_assert_int_eq(problems, 3);
  fx_free(fx);
}
END_TEST

START_TEST(test_verify_one_to_one) {
  Fx *fx = fx_new("a\n");
  SourceFile *f = fx->ss.files[0];
  src_add_expectation(f, (Expectation){1, SEV_WARNING, NULL, NULL, LOC_NONE});
  src_add_expectation(f, (Expectation){1, SEV_WARNING, "x", NULL, LOC_NONE});
  diag_report(&fx->sink, SEV_WARNING, "x", at(fx, "a"), "one");
  int problems;
  ck_assert_str_eq(verify(fx, &problems), "t.roof:1: expected warning was not emitted\n");
  diag_report(&fx->sink, SEV_WARNING, "y", at(fx, "a"), "two");
  ck_assert_str_eq(verify(fx, &problems), "");
  fx_free(fx);
}
END_TEST

Suite *diag_suite(void) {
  Suite *s = suite_create("diag");
  TCase *tc = tcase_create("render");
  tcase_add_test(tc, test_caret_under_range);
  tcase_add_test(tc, test_language_error_has_no_tag);
  tcase_add_test(tc, test_tabs_expand);
  tcase_add_test(tc, test_zero_width);
  tcase_add_test(tc, test_long_line_window);
  tcase_add_test(tc, test_multiline_range);
  tcase_add_test(tc, test_notes);
  tcase_add_test(tc, test_fixit);
  tcase_add_test(tc, test_fixit_other_line);
  tcase_add_test(tc, test_color);
  tcase_add_test(tc, test_color_warning_is_magenta);
  tcase_add_test(tc, test_no_location);
  suite_add_tcase(s, tc);
  TCase *tp = tcase_create("policy");
  tcase_add_test(tp, test_werror);
  tcase_add_test(tp, test_policy_drops);
  tcase_add_test(tp, test_suppressions);
  tcase_add_test(tp, test_error_limit);
  tcase_add_test(tp, test_error_limit_reached_exactly);
  tcase_add_test(tp, test_sort_stable);
  tcase_add_test(tp, test_severity_str);
  tcase_add_test(tp, test_figures);
  suite_add_tcase(s, tp);
  TCase *tv = tcase_create("verify");
  tcase_add_test(tv, test_verify_pass);
  tcase_add_test(tv, test_verify_fail);
  tcase_add_test(tv, test_verify_one_to_one);
  suite_add_tcase(s, tv);
  return s;
}
