/* SPDX-License-Identifier: MIT */
/*
 * check_analyze.c: analyze_file's handling of the syntax tree: freed after
 * sema unless kept, with the graph, names and targets intact, and parsed
 * again on demand (parse_again) without recording directives twice.
 */
#include "test_util.h"

static const char *const SRC =
    "let B = 4\n"
    "target mine {\n"
    "  display = \"My GPU\"\n"
    "  sms = 100\n"
    "  memory = 80 GB\n"
    "  memory_bw = 2 TB/s\n"
    "  bf16_tc = 500 TFLOP/s\n"
    "  bf16 = 50 TFLOP/s\n"
    "  pcie_bw = 64 GB/s\n"
    "}\n"
    "target mine\n"
    "model m {\n"
    "  input x : [B, 64]\n"
    "  weight w : [64, 64]\n"
    "  y = matmul(x, w)  # rooflint: ignore[memory-bound]\n"
    "}\n";

/* The whole pipeline on the loaded file, with checks, as the CLI runs it
 * (tc->prog and tc->unit stay unset: the Analysis holds the results). */
static Analysis *run(TestCtx *tc, bool keep) {
  AnalyzeOptions ao = {.run_checks = true, .keep_tree = keep};
  return analyze_file(tc->arena, &tc->ss, tc->file, &ao, &tc->diags);
}

/* Freed tree: the graph, its names and the file's own target survive. */
START_TEST(test_tree_freed) {
  TestCtx *tc = tc_load(SRC);
  Analysis *an = run(tc, false);
  ck_assert_int_eq(tc->diags.nerrors, 0);
  ck_assert_ptr_null(an->tree.program);
  ck_assert_ptr_nonnull(an->unit);
  ck_assert_int_eq(an->unit->ntarget_defs, 0); /* they were statements */
  const Model *m = &an->unit->models[0];
  ck_assert_str_eq(m->name, "m");
  ck_assert_int_eq(m->nnodes, 3);
  ck_assert_str_eq(m->nodes[2].name, "y");
  ck_assert_str_eq(an->targets[0]->name, "mine");
  ck_assert_str_eq(an->targets[0]->display, "My GPU");
  ck_assert_int_eq(src_file(&tc->ss, tc->file)->nsuppressions, 1);

  /* Parsed again: the same statements, no second suppression. */
  const Program *p = parse_again(&an->tree);
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_eq(parse_again(&an->tree), p); /* once */
  ck_assert_int_eq(p->top.n, 4);
  ck_assert_int_eq(p->top.items[3]->kind, ST_MODEL);
  ck_assert_int_eq(p->top.items[3]->def.body.n, 3);
  ck_assert_int_eq(src_file(&tc->ss, tc->file)->nsuppressions, 1);
  tc_free(tc);
}
END_TEST

START_TEST(test_tree_kept) {
  TestCtx *tc = tc_load(SRC);
  Analysis *an = run(tc, true);
  ck_assert_int_eq(tc->diags.nerrors, 0);
  ck_assert_ptr_nonnull(an->tree.program);
  ck_assert_int_eq(an->tree.program->top.n, 4);
  ck_assert_int_eq(an->unit->ntarget_defs, 1);
  ck_assert_int_eq(src_file(&tc->ss, tc->file)->nsuppressions, 1);
  /* A kept tree is what parse_again hands back. */
  ck_assert_ptr_eq(parse_again(&an->tree), an->tree.program);
  tc_free(tc);
}
END_TEST

Suite *analyze_suite(void) {
  Suite *s = suite_create("analyze");
  TCase *tc = tcase_create("tree");
  tcase_add_test(tc, test_tree_freed);
  tcase_add_test(tc, test_tree_kept);
  suite_add_tcase(s, tc);
  return s;
}
