/* SPDX-License-Identifier: MIT */
/*
 * check_analyze.c: analyze_file's handling of the syntax tree: freed after
 * sema unless kept, with the graph, names and targets intact, and parsed
 * again on demand (analyze_program) without recording directives twice.
 */
#include <stdlib.h>
#include <string.h>

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

typedef struct Run {
  Arena *arena;
  SourceSet ss;
  DiagSink diags;
  int file;
  Analysis *an;
} Run;

static Run *run(bool keep) {
  Run *r = xcalloc(1, sizeof *r);
  r->arena = arena_new();
  src_init(&r->ss);
  diag_sink_init(&r->diags);
  size_t len = strlen(SRC);
  char *copy = xmalloc(len + 1);
  memcpy(copy, SRC, len + 1);
  r->file = src_add(&r->ss, "t.roof", copy, len);
  AnalyzeOptions ao = {.run_checks = true, .keep_program = keep};
  r->an = analyze_file(r->arena, &r->ss, r->file, &ao, &r->diags);
  return r;
}

static void run_free(Run *r) {
  diag_sink_free(&r->diags);
  src_free(&r->ss);
  arena_free(r->arena);
  free(r);
}

/* Freed tree: the graph, its names and the file's own target survive. */
START_TEST(test_tree_freed) {
  Run *r = run(false);
  ck_assert_int_eq(r->diags.nerrors, 0);
  ck_assert_ptr_null(r->an->program);
  ck_assert_ptr_nonnull(r->an->unit);
  ck_assert_int_eq(r->an->unit->ntarget_defs, 0); /* they were statements */
  const Model *m = &r->an->unit->models[0];
  ck_assert_str_eq(m->name, "m");
  ck_assert_int_eq(m->nnodes, 3);
  ck_assert_str_eq(m->nodes[2].name, "y");
  ck_assert_str_eq(r->an->targets[0]->name, "mine");
  ck_assert_str_eq(r->an->targets[0]->display, "My GPU");
  ck_assert_int_eq(src_file(&r->ss, r->file)->nsuppressions, 1);

  /* Parsed again: the same statements, no second suppression. */
  ProgramSource ps = {&r->ss, r->file, r->arena, NULL};
  const Program *p = analyze_program(&ps);
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_eq(analyze_program(&ps), p); /* once */
  ck_assert_int_eq(p->top.n, 4);
  ck_assert_int_eq(p->top.items[3]->kind, ST_MODEL);
  ck_assert_int_eq(p->top.items[3]->def.body.n, 3);
  ck_assert_int_eq(src_file(&r->ss, r->file)->nsuppressions, 1);
  run_free(r);
}
END_TEST

START_TEST(test_tree_kept) {
  Run *r = run(true);
  ck_assert_int_eq(r->diags.nerrors, 0);
  ck_assert_ptr_nonnull(r->an->program);
  ck_assert_int_eq(r->an->program->top.n, 4);
  ck_assert_int_eq(r->an->unit->ntarget_defs, 1);
  ck_assert_int_eq(src_file(&r->ss, r->file)->nsuppressions, 1);
  /* A kept tree is what analyze_program hands back. */
  ProgramSource ps = {&r->ss, r->file, r->arena, r->an->program};
  ck_assert_ptr_eq(analyze_program(&ps), r->an->program);
  run_free(r);
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
