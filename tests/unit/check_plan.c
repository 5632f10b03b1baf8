/* SPDX-License-Identifier: MIT */
/* check_plan.c: the --dtype what-if override in sema (plan dtype replaced,
 * explicit dtypes kept, -D overrides kept), the --dtype list parser, the
 * aligned table, --plan's rows adding up to cost.c's totals, and
 * plan_whatif's figures and errors. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "test_util.h"

static const char *const MLP =
    "let M = 4096\n"
    "let D = 4096\n"
    "model m {\n"
    "  dtype bf16\n"
    "  input x : [M, D]\n"
    "  weight w : [D, D]\n"
    "  weight w32 : fp32[D, D]\n"
    "  y = matmul(x, w)\n"
    "  z = matmul(y, w32)\n"
    "  c = cast(y, fp16)\n"
    "}\n";

static Bindings *with_plan(Arena *a, DType d, LetOverride *extra) {
  Bindings *b = arena_alloc(a, sizeof *b);
  b->overrides = arena_alloc(a, sizeof *b->overrides);
  if (extra) b->overrides[b->n++] = *extra;
  b->what_if = true;
  b->plan_dtype = d;
  return b;
}

/* R-PLAN-004: declarations and ops that name no dtype follow the plan. */
START_TEST(override_follows_plan) {
  Arena *a = arena_new();
  TestCtx *tc = tc_sema(MLP, with_plan(a, DT_FP8_E4M3, NULL));
  ck_assert_int_eq(tc->diags.nerrors, 0);
  ck_assert_int_eq(tc->unit->models[0].dtype, DT_FP8_E4M3);
  ck_assert_int_eq(tc_node(tc, "x")->type->dtype, DT_FP8_E4M3);
  ck_assert_int_eq(tc_node(tc, "w")->type->dtype, DT_FP8_E4M3);
  ck_assert_int_eq(tc_node(tc, "y")->type->dtype, DT_FP8_E4M3);
  ck_assert_int_eq(tc_node(tc, "y")->precision, DT_FP8_E4M3);
  tc_free(tc);
  arena_free(a);
}
END_TEST

/* R-PLAN-004: explicit dtypes (a declared DTYPE, a cast) stay. */
START_TEST(override_keeps_explicit) {
  Arena *a = arena_new();
  TestCtx *tc = tc_sema(MLP, with_plan(a, DT_FP8_E4M3, NULL));
  ck_assert_int_eq(tc_node(tc, "w32")->type->dtype, DT_FP32);
  ck_assert_int_eq(tc_node(tc, "z")->precision, DT_FP32);
  ck_assert_int_eq(tc_node(tc, "c")->type->dtype, DT_FP16);
  tc_free(tc);
  arena_free(a);
}
END_TEST

/* A what-if is no let: -D overrides beside it still apply. */
START_TEST(override_with_define) {
  Arena *a = arena_new();
  LetOverride m = {"M", {false, 64, 0}, false, NULL};
  Bindings *b = with_plan(a, DT_FP32, &m);
  TestCtx *tc = tc_sema(MLP, b);
  ck_assert_int_eq(tc->diags.nerrors, 0);
  ck_assert_int_eq(b->n, 1);
  ck_assert(b->overrides[0].used);
  ck_assert_int_eq(tc_node(tc, "x")->type->dims[0], 64);
  ck_assert_int_eq(tc_node(tc, "x")->type->dtype, DT_FP32);
  tc_free(tc);
  arena_free(a);
}
END_TEST

START_TEST(parse_dtypes) {
  Arena *a = arena_new();
  WhatIf *d;
  int n;
  const char *err = NULL;
  ck_assert(plan_parse_dtypes(a, "fp8,fp32,bf16", &d, &n, &err));
  ck_assert_int_eq(n, 3);
  ck_assert_int_eq(d[0].dtype, DT_FP8_E4M3);
  ck_assert_int_eq(d[1].dtype, DT_FP32);
  ck_assert_int_eq(d[2].dtype, DT_BF16);
  ck_assert_int_eq(d[2].cls, -1);
  /* R-PLAN-007: CLASS=DT, a recipe entry */
  ck_assert(plan_parse_dtypes(a, "bf16,contraction=fp8", &d, &n, &err));
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(d[0].cls, -1);
  ck_assert_int_eq(d[1].cls, OC_CONTRACTION);
  ck_assert_int_eq(d[1].dtype, DT_FP8_E4M3);
  ck_assert(!plan_parse_dtypes(a, "contractions=fp8", &d, &n, &err));
  ck_assert_str_eq(err, "unknown op class 'contractions'; did you mean 'contraction'?");
  ck_assert(!plan_parse_dtypes(a, "movement=fp8", &d, &n, &err));
  ck_assert_str_eq(err, "unknown op class 'movement' (expected elementwise, reduction or "
                        "contraction)");
  ck_assert(!plan_parse_dtypes(a, "contraction=tf32", &d, &n, &err));
  ck_assert_str_eq(err,
                   "tf32 is a compute precision, not a plan dtype; did you "
                   "mean 'fp32'?");
  ck_assert(!plan_parse_dtypes(a, "fp8,fp9", &d, &n, &err));
  ck_assert_str_eq(err, "unknown dtype 'fp9'; did you mean 'fp8'?");
  ck_assert(!plan_parse_dtypes(a, "tf32", &d, &n, &err));
  ck_assert_str_eq(err,
                   "tf32 is a compute precision, not a plan dtype; did you "
                   "mean 'fp32'?");
  ck_assert(!plan_parse_dtypes(a, "fp8,", &d, &n, &err));
  ck_assert_str_eq(err, "unknown dtype ''");
  arena_free(a);
}
END_TEST

START_TEST(table_aligns) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  Table t = {.ncols = 3, .align = "lrl"};
  table_add(&t, (const char *const[]){"a", "1", "x"});
  table_add(&t, (const char *const[]){"long", "100", ""});
  table_print(f, &t, "  ");
  /* The same rows measured first and printed one by one: the same text
   * ("long" sets column 1 to 4 wide, "100" column 2 to 3). */
  Table u = {.ncols = 3, .align = "lrl"};
  table_measure(&u, (const char *const[]){"a", "1", "x"});
  table_measure(&u, (const char *const[]){"long", "100", NULL});
  table_put_row(f, &u, "", (const char *const[]){"a", "1", "x"});
  table_put_row(f, &u, "", (const char *const[]){"long", "100", NULL});
  table_free(&u);
  fclose(f);
  ck_assert_str_eq(buf, "  a       1  x\n  long  100\n"
                        "a       1  x\nlong  100\n");
  ck_assert_ptr_null(t.first);
  ck_assert_ptr_null(t.w);
  free(buf);
}
END_TEST

/* Analyses MLP (first target h100_sxm) as analyze_file would. */
static Analysis *analyse(TestCtx *tc) {
  Analysis *an = arena_alloc(tc->arena, sizeof *an);
  an->file = tc->file;
  an->tree.program = tc->prog;
  an->unit = tc->unit;
  an->ntargets = 1;
  an->targets = arena_alloc(tc->arena, sizeof *an->targets);
  an->targets[0] = target_resolve(tc->arena, &tc->ss, "h100_sxm", tc->unit,
                                  LOC_NONE, &tc->diags);
  an->costs = arena_alloc(tc->arena, sizeof *an->costs);
  an->costs[0] = cost_model(tc->arena, &tc->unit->models[0], an->targets[0]);
  return an;
}

/* --plan's text into *buf (caller frees). */
static void capture_plan(const Analysis *an, const SourceSet *ss, char **buf) {
  size_t len = 0;
  *buf = NULL;
  FILE *f = open_memstream(buf, &len);
  plan_print(f, an, ss);
  fclose(f);
}

/* R-PLAN-001..003: rows per precision/unit, footprint per dtype, the nodes
 * off the plan with why; figures from the shapes (H100: 990e12 bf16 tensor,
 * 67e12 fp32 vector, 3.35e12 B/s). */
START_TEST(plan_rows) {
  TestCtx *tc = tc_sema(MLP, NULL);
  Analysis *an = analyse(tc);
  char *out;
  capture_plan(an, &tc->ss, &out);
  /* z: 2*4096^3 = 137.4 GFLOP at 67e12 = 2.05 ms; bytes
   * 4096*4096*(2 + 4 + 4) = 167.8 MB. */
  ck_assert_msg(strstr(out, "  fp32       vector        1         1  137.4 GFLOP    167.8 MB    2.05 ms"), "%s", out);
  /* y: 137.4 GFLOP at 990e12 = 139 us; 3 bf16 [4096,4096] = 100.7 MB. */
  ck_assert_msg(strstr(out, "  bf16       tensor        1         1  137.4 GFLOP    100.7 MB     139 us"), "%s", out);
  ck_assert_msg(strstr(out, "  w32   weight  fp32   -          declared fp32"), "%s", out);
  ck_assert_msg(strstr(out, "  z     matmul  fp32   fp32       inherited from 'w32'"), "%s", out);
  ck_assert_msg(strstr(out, "  c     cast    fp16   bf16       cast to fp16"), "%s", out);
  ck_assert_msg(strstr(out, "t.roof:9:7"), "%s", out);
  free(out);
  tc_free(tc);
}
END_TEST

/* The footprint rows add up to cost.c's footprint. */
START_TEST(plan_footprint_adds_up) {
  TestCtx *tc = tc_sema(MLP, NULL);
  Analysis *an = analyse(tc);
  char *out;
  capture_plan(an, &tc->ss, &out);
  char total[64];
  fmt_bytes(total, sizeof total, an->costs[0]->footprint.total);
  char *row = strstr(out, "\n  total ");
  row = row ? strstr(row + 1, "\n  total ") : NULL; /* the footprint's */
  ck_assert_msg(row && strstr(row, total), "%s (want %s)", out, total);
  free(out);
  tc_free(tc);
}
END_TEST

/* R-PLAN-004, R-PLAN-005: what-if figures; a plan that does not type-check
 * is an error with a note naming the dtype. */
START_TEST(whatif_figures_and_errors) {
  TestCtx *tc = tc_sema(MLP, NULL);
  Analysis *an = analyse(tc);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  WhatIf d[] = {{-1, DT_FP8_E4M3}, {OC_CONTRACTION, DT_FP8_E4M3}};
  DiagSink sink;
  diag_sink_init(&sink);
  ck_assert_int_eq(plan_whatif(f, tc->arena, &tc->ss, an, NULL, d, 2, &sink), 0);
  fclose(f);
  ck_assert_int_eq(sink.n, 0);
  /* y in fp8: 137.4 GFLOP at 1979e12 = 69.4 us; z stays fp32.  Under
   * contraction=fp8 (R-PLAN-007) y, a bf16 GEMM on the plan, computes at
   * the fp8 rate too, 69.4 us, but its storage stays bf16, so the bytes are
   * the plan's as written: y reads x, w and writes y, 3 x 33.6 MB; z reads
   * y 33.6 MB and w32 67.1 MB and writes fp32 67.1 MB; c reads y and writes
   * fp16, 2 x 33.6 MB: 335.5 MB (the fp8 plan, with x, w, y fp8: 251.7 MB).
   * z computes in fp32, off the plan, and stays at the fp32 rate. */
  ck_assert_msg(strstr(buf, "  y (matmul)   139 us compute  69.4 us compute       69.4 us compute"),
                "%s", buf);
  ck_assert_msg(strstr(buf, "  z (matmul)  2.05 ms compute  2.05 ms compute       2.05 ms compute"),
                "%s", buf);
  ck_assert_msg(strstr(buf, "bf16 (as written)     fp8_e4m3  contraction=fp8_e4m3"), "%s", buf);
  ck_assert_msg(strstr(buf, "  bytes                  335.5 MB     251.7 MB              335.5 MB"),
                "%s", buf);
  free(buf);
  diag_sink_free(&sink);
  tc_free(tc);

  tc = tc_sema("model m {\n  input x : bf16[4]\n  weight w : [4]\n"
               "  y = add(x, w)\n}\n", NULL);
  an = analyse(tc);
  char *buf2 = NULL;
  size_t len2 = 0;
  f = open_memstream(&buf2, &len2);
  WhatIf h[] = {{-1, DT_FP16}};
  diag_sink_init(&sink);
  ck_assert_int_eq(plan_whatif(f, tc->arena, &tc->ss, an, NULL, h, 1, &sink), 1);
  fclose(f);
  ck_assert_str_eq(buf2, "");
  ck_assert_int_eq(sink.nerrors, 1);
  ck_assert_str_eq(sink.items[0]->msg, "mixed dtypes bf16 and fp16 in add; insert a cast");
  ck_assert_int_eq(sink.items[0]->nnotes, 1);
  ck_assert_str_eq(sink.items[0]->notes[0].msg, "with the plan dtype fp16 from --dtype");
  free(buf2);
  diag_sink_free(&sink);
  tc_free(tc);
}
END_TEST

Suite *plan_suite(void) {
  Suite *s = suite_create("plan");
  TCase *t = tcase_create("plan");
  tcase_add_test(t, override_follows_plan);
  tcase_add_test(t, override_keeps_explicit);
  tcase_add_test(t, override_with_define);
  tcase_add_test(t, parse_dtypes);
  tcase_add_test(t, table_aligns);
  tcase_add_test(t, plan_rows);
  tcase_add_test(t, plan_footprint_adds_up);
  tcase_add_test(t, whatif_figures_and_errors);
  suite_add_tcase(s, t);
  return s;
}
