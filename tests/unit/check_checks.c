/* SPDX-License-Identifier: MIT */
/* check_checks.c: the check registry (completeness, message style, the
 * thresholds quoted in --explain) and the behaviour of each check on graphs
 * built from text: parse, sema, the h100_sxm target, cost, then one check
 * (or all of them) with diagnostics captured. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/checks.h"
#include "test_util.h"

/* ---------------------------------------------------------------- helpers */

/* Runs the check named `name` (NULL: every registered check) on every
 * model of `text`. */
static TestCtx *run(const char *text, const char *name) {
  const CheckDesc *check = name ? check_lookup(name) : NULL;
  ck_assert_msg(!name || check, "no check '%s'", name);
  TestCtx *tc = tc_sema(text, NULL);
  ck_assert_msg(tc->unit != NULL, "front end failed:\n%s", tc_render(tc));
  ck_assert_msg(tc->diags.nerrors == 0, "front end errors:\n%s", tc_render(tc));
  const Target *t = target_resolve(tc->arena, &tc->ss, "h100_sxm", tc->unit,
                                   LOC_NONE, &tc->diags);
  ck_assert_ptr_nonnull(t);
  for (int m = 0; m < tc->unit->nmodels; m++) {
    ModelCost *c = cost_model(tc->arena, &tc->unit->models[m], t);
    ProgramSource tree = {&tc->ss, tc->file, tc->arena, tc->prog};
    CheckCtx ctx = {.arena = tc->arena, .sources = &tc->ss, .tree = &tree,
                    .unit = tc->unit, .model = &tc->unit->models[m],
                    .cost = c, .target = t, .diags = &tc->diags};
    if (check)
      check->run(&ctx);
    else
      checks_run(&ctx);
  }
  return tc;
}

static int count_check(const TestCtx *tc, const char *check) {
  int n = 0;
  for (int i = 0; i < tc->diags.n; i++)
    n += tc->diags.items[i]->check &&
         strcmp(tc->diags.items[i]->check, check) == 0;
  return n;
}

static const Diag *first(const TestCtx *tc, const char *check) {
  for (int i = 0; i < tc->diags.n; i++)
    if (tc->diags.items[i]->check &&
        strcmp(tc->diags.items[i]->check, check) == 0)
      return tc->diags.items[i];
  return NULL;
}

static double figure(const Diag *d, const char *key) {
  for (int i = 0; i < d->nfigures; i++)
    if (strcmp(d->figures[i].key, key) == 0) return d->figures[i].value;
  ck_abort_msg("no figure '%s' on: %s", key, d->msg);
  return 0;
}

/* Lowercase start, no final period, no newline: the message style. */
static void assert_style(const char *msg) {
  size_t n = strlen(msg);
  ck_assert_msg(n > 0, "empty message");
  ck_assert_msg(!(msg[0] >= 'A' && msg[0] <= 'Z'), "capitalised: %s", msg);
  ck_assert_msg(msg[n - 1] != '.', "final period: %s", msg);
  ck_assert_msg(strchr(msg, '\n') == NULL, "newline in: %s", msg);
}

/* --------------------------------------------------------------- registry */

/* Every registered check, whatever their number: a check is one file of
 * src/checks/ and one row of the registry. */
START_TEST(registry_complete) {
  int n;
  const CheckDesc *const *reg = check_registry(&n);
  ck_assert_int_gt(n, 0);
  for (int i = 0; i < n; i++) {
    ck_assert_ptr_eq(check_lookup(reg[i]->name), reg[i]);
    for (int j = 0; j < i; j++)
      ck_assert_str_ne(reg[j]->name, reg[i]->name);
    /* Names are lowercase words joined by '-': -Wname, ignore[name]. */
    for (const char *p = reg[i]->name; *p; p++)
      ck_assert_msg((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                        (*p == '-' && p != reg[i]->name && p[1]),
                    "bad check name '%s'", reg[i]->name);
    ck_assert_ptr_nonnull(reg[i]->run);
    ck_assert(reg[i]->default_on);
    /* capacity is the one error: a step that does not fit cannot run. */
    ck_assert_int_eq(reg[i]->severity, strcmp(reg[i]->name, "capacity") == 0
                                           ? SEV_ERROR
                                           : SEV_WARNING);
    assert_style(reg[i]->summary);
    size_t len = strlen(reg[i]->explain);
    ck_assert_msg(len > 200, "%s: explain too short", reg[i]->name);
    ck_assert_msg(reg[i]->explain[len - 1] == '\n',
                  "%s: explain ends without newline", reg[i]->name);
    ck_assert_msg(strstr(reg[i]->explain, "Example:\n"), "%s: no example",
                  reg[i]->name);
    ck_assert_msg(reg[i]->explain[0] >= 'A' && reg[i]->explain[0] <= 'Z',
                  "%s: explain starts mid-sentence", reg[i]->name);
    /* Every line fits an 80-column terminal. */
    for (const char *p = reg[i]->explain; *p;) {
      const char *e = strchr(p, '\n');
      ck_assert_msg(e - p <= 78, "%s: long line: %.*s", reg[i]->name,
                    (int)(e - p), p);
      p = e + 1;
    }
  }
  ck_assert_ptr_null(check_lookup("memory-bond"));
  ck_assert_ptr_null(check_lookup(NULL));
}
END_TEST

/* The thresholds of src/checks/ appear, as numbers, in the explain texts. */
START_TEST(registry_quotes_thresholds) {
  ck_assert_ptr_nonnull(
      strstr(check_lookup("memory-bound")->explain, "1048576"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("memory-bound")->explain, "at most 2000 re-analyses per model"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("memory-bound")->explain, "1% of the step"));
  ck_assert_ptr_nonnull(strstr(check_lookup("low-occupancy")->explain,
                               "utilisation is under 75%, at least a quarter"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("memory-bound")->explain, "fills under 75% of the"));
  ck_assert_ptr_nonnull(strstr(check_lookup("wave-tail")->explain, "50% full"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("wave-tail")->explain, "10% of the kernel's"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("overhead-bound")->explain, "Up to 3 such"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("overhead-bound")->explain, "10% of the step's"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("unfused-elementwise")->explain, "0.1% of the step"));
  ck_assert_ptr_nonnull(
      strstr(check_lookup("transfer-in-loop")->explain, "1% of the"));
  ck_assert_ptr_nonnull(strstr(check_lookup("memory-bound")->explain,
                               "ceiling is still at least 80%\nof peak"));
  ck_assert_ptr_nonnull(strstr(check_lookup("tc-alignment")->explain,
                               "suggests a multiple of 64"));
  ck_assert_ptr_nonnull(strstr(check_lookup("unfused-attention")->explain,
                               "up to 8\nelement-wise ops"));
  ck_assert_ptr_nonnull(strstr(check_lookup("unfused-attention")->explain,
                               "less than 1% of the step"));
}
END_TEST

/* Every diagnostic of every check: its check name, the style, figures. */
START_TEST(all_messages_styled) {
  TestCtx *tc = run("let B = 1\n"
                    "model a {\n"
                    "  mode train\n"
                    "  parallel { nodes = 2; gpus_per_node = 8 }\n"
                    "  input x : fp32[8192, 70000]\n"
                    "  weight w : [70000, 100000]\n"
                    "  y = matmul(x, w)\n"
                    "}\n"
                    "model b {\n"
                    "  host h : [4096, 4096]\n"
                    "  input v : [B, 4096]\n"
                    "  weight w : [4096, 50257]\n"
                    "  loop 100 {\n"
                    "    hd = to_device(h)\n"
                    "    y = matmul(hd, w, blocks=133)\n"
                    "    z = matmul(v, w)\n"
                    "    p = relu(y)\n"
                    "    q = exp(p)\n"
                    "  }\n"
                    "}\n"
                    "model c {\n"
                    "  input t : [16]\n"
                    "  s = relu(t)\n"
                    "}\n"
                    /* cross-node: fits one GPU, data-parallel over 4 nodes */
                    "model d {\n"
                    "  mode train\n"
                    "  parallel { nodes = 4; gpus_per_node = 8 }\n"
                    "  input x : [8192, 4096]\n"
                    "  weight w : [4096, 4096]\n"
                    "  y = matmul(x, w)\n"
                    "}\n"
                    /* unfused-attention: the scores [8, 16, 4096, 4096] */
                    "model e {\n"
                    "  input q, k, v : [8, 16, 4096, 128]\n"
                    "  kt = transpose(k, [0, 1, 3, 2])\n"
                    "  s = matmul(q, kt)\n"
                    "  p = softmax(s)\n"
                    "  o = matmul(p, v)\n"
                    "}\n",
                    NULL);
  int n;
  const CheckDesc *const *reg = check_registry(&n);
  bool *seen = xcalloc((size_t)n, sizeof *seen);
  for (int i = 0; i < tc->diags.n; i++) {
    const Diag *d = tc->diags.items[i];
    ck_assert_ptr_nonnull(d->check);
    assert_style(d->msg);
    ck_assert_msg(d->nfigures > 0, "no figures: %s", d->msg);
    /* Keys are unique: JSON writes the figures as one object. */
    for (int a = 0; a < d->nfigures; a++)
      for (int b = a + 1; b < d->nfigures; b++)
        ck_assert_msg(strcmp(d->figures[a].key, d->figures[b].key) != 0,
                      "figure '%s' twice on: %s", d->figures[a].key, d->msg);
    for (int k = 0; k < d->nnotes; k++) assert_style(d->notes[k].msg);
    for (int k = 0; k < n; k++)
      if (strcmp(reg[k]->name, d->check) == 0) seen[k] = true;
  }
  /* This program trips every check but low-occupancy (all its small
   * kernels are overhead-bound's). */
  for (int k = 0; k < n; k++)
    if (strcmp(reg[k]->name, "low-occupancy") != 0)
      ck_assert_msg(seen[k], "%s never fired:\n%s", reg[k]->name, tc_render(tc));
  free(seen);
  tc_free(tc);
}
END_TEST

/* ------------------------------------------------------------- the checks */

START_TEST(stray_seed_figures) {
  TestCtx *tc = run("model m {\n"
                    "  input x : fp32[4096, 4096]\n"
                    "  weight w : fp32[4096, 4096]\n"
                    "  y = matmul(x, w)\n"
                    "}\n",
                    "stray-fp32");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = first(tc, "stray-fp32");
  ck_assert(tc_has(
      tc, SEV_WARNING, 4,
      "ceiling 990.0 -> 67.0 TFLOP/s (14.8x), intensity 1365 -> 683 FLOP/B"));
  ck_assert_double_eq_tol(figure(d, "ceiling_ratio"), 990.0 / 67.0, 1e-9);
  ck_assert_double_eq_tol(figure(d, "intensity_plan"), 4096.0 / 3, 1e-6);
  /* A note and a fix-it at each fp32 declaration. */
  ck_assert_int_eq(d->nnotes, 2);
  ck_assert_int_eq(d->nfixits, 2);
  ck_assert_str_eq(d->fixits[0].text, "bf16");
  ck_assert_int_eq(d->fixits[0].loc.end - d->fixits[0].loc.start, 4);
  tc_free(tc);
}
END_TEST

START_TEST(stray_intentional_and_wide_plans) {
  TestCtx *tc = run("model a {\n"
                    "  input x : [4096, 4096]\n"
                    "  y = matmul(x, x, precision=fp32)\n"
                    "}\n"
                    "model b {\n"
                    "  dtype fp32\n"
                    "  input x : [4096, 4096]\n"
                    "  y = matmul(x, x)\n"
                    "}\n",
                    "stray-fp32");
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
}
END_TEST

/* stray-fp32 follows a value through the new views (R-VIEW-007), a
 * nested chain of them (R-VIEW-006): the
 * fp32 of g reaches mul through select, unsqueeze and expand, and the note
 * points at g's declaration. */
START_TEST(stray_through_views) {
  const char *src = "model m {\n"
                    "  input x : [8192, 8192]\n"
                    "  weight g : fp32[4, 8192]\n"
                    "  r = select(g, axis=0, index=1)\n"
                    "  e = expand(unsqueeze(r, axis=0), [8192, -1])\n"
                    "  s = mul(x, e)\n"
                    "}\n";
  TestCtx *tc = run(src, "stray-fp32");
  ck_assert_int_eq(count_check(tc, "stray-fp32"), 1);
  const Diag *d = first(tc, "stray-fp32");
  ck_assert_int_eq((int)d->loc.start, (int)(strstr(src, "mul(x, e)") - src));
  ck_assert_int_eq(d->nnotes, 1);
  ck_assert_str_eq(d->notes[0].msg, "fp32 comes from the declaration of 'g'");
  tc_free(tc);
}
END_TEST

/* Ops inheriting fp32 from a reported op join its report. */
START_TEST(stray_inheritors_grouped) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [8192, 8192]\n"
                    "  weight g : fp32[8192]\n"
                    "  s = mul(x, g)\n"
                    "  output s\n"
                    "  t = relu(s)\n"
                    "  output t\n"
                    "  u = exp(t)\n"
                    "}\n",
                    "stray-fp32");
  ck_assert_int_eq(count_check(tc, "stray-fp32"), 1);
  ck_assert(
      tc_has(tc, SEV_WARNING, 4, "with the 2 ops that inherit fp32 from it"));
  tc_free(tc);
}
END_TEST

START_TEST(unfused_epilogue_and_fixit) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [8192, 8192]\n"
                    "  weight w : [8192, 8192]\n"
                    "  weight b : [8192]\n"
                    "  y = matmul(x, w)\n"
                    "  h = add(y, b)\n"
                    "  a = gelu(h)\n"
                    "}\n",
                    "unfused-elementwise");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert(tc_has(tc, SEV_WARNING, 6,
                   "elementwise chain 'h' -> 'a' after matmul 'y'"));
  ck_assert_double_eq(figure(d, "ops"), 2);
  ck_assert_double_eq_tol(figure(d, "bytes_fused"),
                          8192.0 * 8192 * 2 * 2 + 8192 * 2, 1);
  ck_assert_int_eq(d->nfixits, 2);
  ck_assert_str_eq(d->fixits[0].text, "fused a_fused { ");
  ck_assert_str_eq(d->fixits[1].text, " }");
  const char *text = tc->ss.files[tc->file]->text;
  ck_assert(strncmp(text + d->fixits[0].loc.start, "h = add", 7) == 0);
  ck_assert_int_eq(text[d->fixits[1].loc.start], '\n');
  tc_free(tc);
}
END_TEST

/* Statements not consecutive: no fix-it, still the warning. */
START_TEST(unfused_no_fixit_when_split) {
  TestCtx *tc = run("model m {\n"
                    "  input x, z : [8192, 8192]\n"
                    "  a = relu(x)\n"
                    "  k = exp(z)\n"
                    "  b = neg(a)\n"
                    "  output k\n"
                    "}\n",
                    "unfused-elementwise");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert_int_eq(tc->diags.items[0]->nfixits, 0);
  tc_free(tc);
}
END_TEST

/* One pass over the graph: a 20000-op chain is one diagnostic, quickly. */
START_TEST(unfused_linear) {
  StrBuf sb = {0};
  sb_puts(&sb, "model m {\n  input x : [8192, 8192]\n  a0 = relu(x)\n");
  for (int i = 1; i < 20000; i++)
    sb_printf(&sb, "  a%d = neg(a%d)\n", i, i - 1);
  sb_puts(&sb, "}\n");
  clock_t t0 = clock();
  TestCtx *tc = run(sb_str(&sb), "unfused-elementwise");
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  sb_free(&sb);
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert_double_eq(figure(tc->diags.items[0], "ops"), 20000);
  ck_assert_msg(secs < 5, "took %.2f s", secs);
  tc_free(tc);
}
END_TEST

START_TEST(memory_bound_crossover) {
  TestCtx *tc = run("let B = 1\n"
                    "let D = 70000\n"
                    "model m {\n"
                    "  input x : [B, D]\n"
                    "  weight w : [D, 100000]\n"
                    "  y = matmul(x, w)\n"
                    "}\n",
                    "memory-bound");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert(tc_has(tc, SEV_WARNING, 6, "1.00 FLOP/B against a ridge of 295.5"));
  ck_assert_str_eq(d->notes[0].msg,
                   "doubling peak FLOP/s leaves the ceiling at 3.35 TFLOP/s; "
                   "doubling bandwidth raises it to 6.70 TFLOP/s");
  /* Only B crosses; D leaves the intensity near 1. */
  ck_assert_int_eq(d->nnotes, 2);
  ck_assert_str_eq(d->notes[1].msg, "'y' reaches the compute roof at B >= 298");
  ck_assert_double_eq(figure(d, "crossover"), 298);
  tc_free(tc);
}
END_TEST

/* A let that cannot lift the node over the ridge gives no crossover. */
START_TEST(memory_bound_no_crossover) {
  TestCtx *tc = run("let N = 67108864\n"
                    "model m {\n"
                    "  input x : [N]\n"
                    "  input w : [N, 8]\n"
                    "  y = matmul(x, w)\n"
                    "}\n",
                    "memory-bound");
  ck_assert_int_eq(tc->diags.n, 1);
  /* Its 8 output columns are one tile: the occupancy note, no crossover. */
  ck_assert_int_eq(tc->diags.items[0]->nnotes, 2);
  ck_assert_str_eq(tc->diags.items[0]->notes[1].msg,
                   "it also launches only 1 block on 132 SMs (0.76% "
                   "utilisation): split-K would give the idle SMs work at "
                   "this batch");
  tc_free(tc);
}
END_TEST

/* A memory-bound contraction that leaves the SMs idle is one finding:
 * memory-bound carries the occupancy as a note, low-occupancy is quiet.
 * Under 75% of the SMs only: 99 tiles (75.0%) get no note.  R-CHK-033 */
START_TEST(memory_bound_folds_occupancy) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [1, 4096]\n"
                    "  weight w : [4096, 4096]\n"
                    "  y = matmul(x, w)\n"
                    "  input x2 : [1, 12672]\n"
                    "  weight w2 : [12672, 12672]\n"
                    "  z = matmul(x2, w2)\n"
                    "}\n",
                    NULL);
  ck_assert_int_eq(count_check(tc, "low-occupancy"), 0);
  ck_assert_int_eq(count_check(tc, "memory-bound"), 2);
  const Diag *d = first(tc, "memory-bound");
  ck_assert(tc_has(tc, SEV_WARNING, 4, "matmul 'y' is memory-bound"));
  ck_assert_int_eq(d->nnotes, 2);
  ck_assert_str_eq(d->notes[1].msg,
                   "it also launches only 32 blocks on 132 SMs (24.2% "
                   "utilisation): split-K would give the idle SMs work at "
                   "this batch");
  ck_assert_double_eq(figure(d, "blocks"), 32);
  ck_assert_double_eq_tol(figure(d, "utilisation"), 32.0 / 132, 1e-12);
  for (int i = 0; i < tc->diags.n; i++)
    if (tc->diags.items[i] != d)
      for (int k = 0; k < tc->diags.items[i]->nnotes; k++)
        ck_assert_ptr_null(
            strstr(tc->diags.items[i]->notes[k].msg, "also launches"));
  tc_free(tc);
}
END_TEST

/* Blocks per kernel: a region's side-by-side contractions add up, its
 * epilogues do not; custom() without blocks= counts 0.  R-CHK-043 */
START_TEST(kernel_blocks_regions) {
  TestCtx *tc = tc_sema("model m {\n"
                        "  input x : [4096, 4096]\n"
                        "  weight w : [4096, 4096]\n"
                        "  fused qk {\n"
                        "    q = matmul(x, w, blocks=40)\n"
                        "    k = matmul(x, w, blocks=30)\n"
                        "    r = relu(q, blocks=60)\n"
                        "  }\n"
                        "  fused e {\n"
                        "    y = matmul(x, w, blocks=50)\n"
                        "    z = matmul(y, w, blocks=50)\n"
                        "  }\n"
                        "  s = custom(x, flops = 1e15, bytes = 1e6,\n"
                        "             out = [133, 1024])\n"
                        "}\n",
                        NULL);
  ck_assert_int_eq(tc->diags.nerrors, 0);
  const Target *t = target_resolve(tc->arena, &tc->ss, "h100_sxm", tc->unit,
                                   LOC_NONE, &tc->diags);
  const Model *m = &tc->unit->models[0];
  ModelCost *c = cost_model(tc->arena, m, t);
  ProgramSource tree = {&tc->ss, tc->file, tc->arena, tc->prog};
  CheckCtx ctx = {.arena = tc->arena, .sources = &tc->ss, .tree = &tree,
                  .unit = tc->unit, .model = m, .cost = c, .target = t,
                  .diags = &tc->diags};
  double *blocks;
  int *at;
  checks_kernel_blocks(&ctx, &blocks, &at);
  ck_assert_int_eq(c->nkernels, 3);
  /* q and k read only the region's input: 40 + 30; r is q's epilogue. */
  ck_assert_double_eq(blocks[0], 70);
  ck_assert_str_eq(m->nodes[at[0]].name, "r");
  /* z reads y: back to back, not side by side. */
  ck_assert_double_eq(blocks[1], 50);
  ck_assert_double_eq(blocks[2], 0);
  tc_free(tc);
}
END_TEST

/* low-occupancy fires under 75% of the SMs: 98 blocks (74.2%) yes, 99
 * (75.0%) and 128 (97.0%) no; custom() only with blocks=.  R-CHK-041 */
START_TEST(occupancy_threshold) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [4096, 4096]\n"
                    "  weight w : [4096, 4096]\n"
                    "  a = matmul(x, w, blocks=128)\n"
                    "  b = matmul(x, w, blocks=99)\n"
                    "  c = matmul(x, w, blocks=98)\n"
                    "  input t : [1, 4096]\n"
                    "  s = custom(t, flops = 14e9, bytes = 14e9,\n"
                    "             out = [1, 4096])\n"
                    "}\n",
                    "low-occupancy");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert(tc_has(tc, SEV_WARNING, 6,
                   "matmul 'c' launches 98 blocks on 132 SMs: 74.2% "
                   "utilisation, 34 SMs idle"));
  tc_free(tc);
}
END_TEST

START_TEST(occupancy_and_tail) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [4096, 4096]\n"
                    "  weight w : [4096, 4096]\n"
                    "  a = matmul(x, w, blocks=1)\n"
                    "  b = matmul(x, w, blocks=133)\n"
                    "  c = matmul(x, w, blocks=512)\n"
                    "}\n",
                    NULL);
  ck_assert(tc_has(tc, SEV_WARNING, 4,
                   "1 block on 132 SMs: 0.76% utilisation, 131 SMs idle"));
  ck_assert(tc_has(tc, SEV_WARNING, 5,
                   "133 blocks in 2 waves on 132 SMs: 50.4% utilisation"));
  const Diag *d = first(tc, "wave-tail");
  ck_assert_double_eq(figure(d, "fill_below"), 132);
  ck_assert_double_eq(figure(d, "fill_above"), 264);
  ck_assert_int_eq(count_check(tc, "wave-tail"), 1);
  ck_assert_int_eq(count_check(tc, "low-occupancy"), 1);
  tc_free(tc);
}
END_TEST

START_TEST(transfer_hoist_fixit) {
  TestCtx *tc = run("model m {\n"
                    "  host x : [4096, 4096]\n"
                    "  loop 1000 {\n"
                    "    xd = to_device(x)\n"
                    "    y = relu(xd)\n"
                    "  }\n"
                    "}\n",
                    "transfer-in-loop");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert(
      tc_has(tc, SEV_WARNING, 4,
             "33.6 MB x 1000 = 33.6 GB over PCIe per step, 0.52 s at 64 GB/s"));
  ck_assert_ptr_nonnull(strstr(d->notes[0].msg, "0.01 s for the same 33.6 GB"));
  ck_assert_int_eq(d->nfixits, 2);
  ck_assert_str_eq(d->fixits[0].text, "xd = to_device(x)\n  ");
  const char *text = tc->ss.files[tc->file]->text;
  ck_assert(strncmp(text + d->fixits[0].loc.start, "loop 1000", 9) == 0);
  /* The deletion takes the whole line. */
  ck_assert_str_eq(d->fixits[1].text, "");
  ck_assert(strncmp(text + d->fixits[1].loc.start, "    xd = to_device(x)\n",
                    d->fixits[1].loc.end - d->fixits[1].loc.start) == 0);
  tc_free(tc);
}
END_TEST

START_TEST(transfer_fresh_data_not_flagged) {
  TestCtx *tc = run("model m {\n"
                    "  loop 1000 {\n"
                    "    host x : [4096, 4096]\n"
                    "    xd = to_device(x)\n"
                    "  }\n"
                    "}\n",
                    "transfer-in-loop");
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
}
END_TEST

/* The seed's 7e9-parameter model trained with Adam on 2 nodes of 8, with
 * more parallel keys; cross-node alone. */
static TestCtx *seed_train(const char *keys) {
  char text[300];
  snprintf(text, sizeof text,
           "model m {\n  mode train\n"
           "  parallel { nodes = 2; gpus_per_node = 8; %s }\n"
           "  input x : [8192, 70000]\n  weight w : [70000, 100000]\n"
           "  y = matmul(x, w)\n}\n",
           keys);
  return run(text, "cross-node");
}

/* R-CHK-070: the seed's model (14.0 GB, fits one GPU) data-parallel over
 * 2 nodes of 8: 2 x 1/2 x 14.0 GB / 8 = 1.75 GB on InfiniBand, 35.0 ms at
 * 50 GB/s.  Trained with Adam (114.8 GB per GPU) it is a capacity error
 * and cross-node says nothing (issue 19 item 9). */
START_TEST(cross_node_seed) {
  TestCtx *tc = run("model m {\n"
                    "  parallel { nodes = 2; gpus_per_node = 8 }\n"
                    "  input x : [1, 100_000]\n"
                    "  weight w : [100_000, 70_000]\n"
                    "  y = matmul(x, w)\n"
                    "  input grads : [7_000_000_000]\n"
                    "  synced = allreduce(grads)\n"
                    "}\n",
                    "cross-node");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert(tc_has(tc, SEV_WARNING, 2,
                   "InfiniBand adds 1.75 GB and 35.0 ms per step"));
  ck_assert_double_eq_tol(figure(d, "ib_bytes"), 1.75e9, 1);
  ck_assert_double_eq_tol(figure(d, "ib_time_s"), 0.035, 1e-12);
  tc_free(tc);
  tc = seed_train("zero = 0");
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
}
END_TEST

/* R-CHK-071: tensor = 16 on 2 nodes of 8 spans both: the all-reduce of
 * bf16 [1024, 1024] (2097152 bytes) over 16 ranks, 8 per node, puts
 * 2 x 1/2 x 2097152 / 8 = 262144 bytes on InfiniBand, 5.24 us. */
START_TEST(cross_node_tensor_span) {
  TestCtx *tc = run("model m {\n"
                    "  parallel { nodes = 2; gpus_per_node = 8; tensor = 16 }\n"
                    "  input x : [1024, 1024]\n"
                    "  y = allreduce(x, group=tensor)\n"
                    "}\n",
                    "cross-node");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert(tc_has(tc, SEV_WARNING, 2,
                   "the tensor group (16 GPUs) spans 2 nodes: its collectives "
                   "put 262.1 KB and 5.24 us per step on InfiniBand"));
  ck_assert_double_eq_tol(figure(tc->diags.items[0], "ib_bytes"), 262144, 1e-6);
  tc_free(tc);
}
END_TEST

/* R-CHK-071 with a pipeline (R-PAR-009): tensor = 16 and pipeline = 2 on
 * 4 nodes of 8, each stage's tensor group on 2 nodes.  The model is one
 * microbatch through every stage, so its collectives are too: the 2
 * layers' all-reduces of bf16 [1024, 1024], 262144 bytes and 5.24 us of
 * InfiniBand each (as above), 524288 bytes and 10.49 us per microbatch. */
START_TEST(cross_node_tensor_span_pipeline) {
  TestCtx *tc = run("model m {\n  dtype bf16\n"
                    "  parallel { nodes = 4; gpus_per_node = 8; tensor = 16; "
                    "pipeline = 2; microbatches = 4 }\n"
                    "  input x : [1024, 1024]\n"
                    "  repeat 2 {\n    x = allreduce(x, group=tensor)\n  }\n}\n",
                    "cross-node");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert(tc_has(tc, SEV_WARNING, 3,
                   "the tensor group (16 GPUs) spans 2 nodes: its collectives "
                   "put 524.3 KB and 10.5 us per microbatch through every "
                   "stage on InfiniBand"));
  ck_assert_double_eq_tol(figure(tc->diags.items[0], "ib_bytes"), 524288, 1e-6);
  ck_assert_double_eq_tol(figure(tc->diags.items[0], "ib_time_s"), 524288 / 50e9,
                          1e-18);
  tc_free(tc);
}
END_TEST

/* R-CHK-071, the expert group (issue 19 item 9): 2 nodes of 8 H100 SXM,
 * data 16, expert 16, `experts 16 top 2 capacity_factor=1.25` on bf16
 * h [64, 64] in `repeat 4`.  Each of the 8 all-to-alls a step (dispatch
 * and combine, 4 layers) sends T x K x 1.25 = 160 rows of 128 bytes,
 * 20480 bytes: 8 ranks a node, 7/8 x 20480 = 17920 on NVLink (39.82 ns
 * at 450 GB/s) and 1/2 x 20480 / 8 = 1280 on InfiniBand (25.6 ns at
 * 50 GB/s).  InfiniBand: 8 x 1280 = 10240 bytes, 204.8 ns; all of it
 * 8 x 65.42 = 523.4 ns.  With expert = 8 the group is one node and each
 * GPU holds 2 experts, so a token reaches D = 8 (1 - C(14,2)/C(16,2)) =
 * 8 x 29/120 = 1.9333 GPUs (R-MOE-007), not K = 2: 64 x 1.9333 x 1.25 =
 * 154.67 rows, 19797.3 bytes, 7/8 of it, 17322.7, on NVLink alone (38.495
 * ns): 8 x 38.495 = 307.96 ns, 215.4 ns saved; each GPU holds 2 of
 * the 16 experts, 4 x 2 x 8192 = 65536 bytes of weights plus 28672 of
 * activations (h 8192, y for 2.5 x 64 rows 20480): 94208 bytes. */
START_TEST(cross_node_expert_span) {
  const char *fmt = "model m {\n  dtype bf16\n"
                    "  parallel { nodes = 2; gpus_per_node = 8; expert = %d }\n"
                    "  input h : [64, 64]\n  repeat 4 {\n"
                    "    experts 16 top 2 capacity_factor=1.25 {\n"
                    "      weight w1 : [64, 64]\n      y = matmul(h, w1)\n"
                    "    }\n  }\n}\n";
  char text[400];
  snprintf(text, sizeof text, fmt, 16);
  TestCtx *tc = run(text, "cross-node");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert(tc_has(tc, SEV_WARNING, 3,
                   "the expert group (16 GPUs) spans 2 nodes: its collectives "
                   "put 10.2 KB and 205 ns per step on InfiniBand; with expert "
                   "= 8 it stays in a node and they take 308 ns instead of 523 "
                   "ns per step"));
  ck_assert_double_eq_tol(figure(d, "ib_bytes"), 10240, 1e-6);
  ck_assert_double_eq_tol(figure(d, "ib_time_s"), 8 * 1280 / 50e9, 1e-18);
  ck_assert_double_eq_tol(figure(d, "collective_time_s"),
                          8 * (17920 / 450e9 + 1280 / 50e9), 1e-18);
  ck_assert_double_eq(figure(d, "expert_in_node"), 8);
  ck_assert_double_eq_tol(figure(d, "expert_in_node_time_s"),
                          8 * (7.0 / 8 * 64 * (8 * 29.0 / 120) * 1.25 * 128) / 450e9,
                          1e-18);
  ck_assert_double_eq_tol(figure(d, "expert_in_node_footprint"), 94208, 1e-6);
  ck_assert_int_eq(d->nnotes, 1);
  ck_assert_str_eq(d->notes[0].msg,
                   "set 'expert = 8': each GPU holds 2 of the 16 experts "
                   "(94.2 KB per GPU of 80 GiB = 85.9 GB), saving 215 ns per step");
  tc_free(tc);
  /* with expert = 8 the group is one node: nothing to flag */
  snprintf(text, sizeof text, fmt, 8);
  tc = run(text, "cross-node");
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
}
END_TEST

/* R-CHK-072: ZeRO-3 over 16 data ranks on 2 x 8 of a 7e9-parameter bf16
 * model (S = 14.0 GB).  Its three collectives each put 1/2 x S/8 =
 * 0.875 GB on InfiniBand: 2.62 GB, 52.5 ms.  Sharded within a node
 * (shard = 8) it needs (14 + 14 + 84) / 8 + 1.15 = 15.1 GB per GPU (the
 * activations are x, which the matmul saves, R-TRAIN-002) and the 14.0 GB
 * of its one FSDP unit gathered (R-PAR-013): 29.1 GB, fits,
 * and only the all-reduce of the S/8 = 1.75 GB gradient shards crosses:
 * 2 x 1/2 x 1.75 = 1.75 GB, 35.0 ms, saving 17.5 ms. */
START_TEST(cross_node_shard) {
  TestCtx *tc = seed_train("zero = 3");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert(tc_has(tc, SEV_WARNING, 3,
                   "ZeRO-3 shards over 16 data ranks on 2 nodes, but sharding "
                   "within a node fits (shard = 8: 29.1 GB per GPU of 85.9 GB): "
                   "InfiniBand would carry 1.75 GB instead of 2.62 GB per step, "
                   "35.0 ms instead of 52.5 ms"));
  ck_assert_double_eq_tol(figure(d, "ib_bytes"), 2.625e9, 1);
  ck_assert_double_eq_tol(figure(d, "shard_ib_bytes"), 1.75e9, 1);
  tc_free(tc);
  /* with shard = 8 nothing is left to flag */
  tc = seed_train("zero = 3; shard = 8");
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
}
END_TEST

START_TEST(capacity_error) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [8192, 100000]\n"
                    "  weight w : [100000, 500000]\n"
                    "  y = matmul(x, w)\n"
                    "}\n",
                    "capacity");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert_int_eq(tc->diags.items[0]->sev, SEV_ERROR);
  ck_assert(
      tc_has(tc, SEV_ERROR, 1,
             "needs 109.8 GB but H100 SXM has 80 GiB = 85.9 GB: weights 100.0 GB"));
  tc_free(tc);
}
END_TEST

/* A weight in a repeat is one tensor per copy: the note says so, with the
 * size of one copy (R-CHK-080). */
START_TEST(capacity_note_counts_copies) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [1, 16384]\n"
                    "  repeat 160 {\n"
                    "    weight w : [16384, 16384]\n"
                    "    x = matmul(x, w)\n"
                    "  }\n"
                    "}\n"
                    "model n {\n"
                    "  input x : [1, 16384]\n"
                    "  repeat 2 {\n"
                    "    repeat 80 {\n"
                    "      weight w : [16384, 16384]\n"
                    "      x = matmul(x, w)\n"
                    "    }\n"
                    "  }\n"
                    "}\n",
                    "capacity");
  ck_assert_int_eq(tc->diags.n, 2);
  /* and what would fit (R-CHK-083): 85.9 GB and a little of activations
   * is over 80 GiB, under the H200's 141 GiB */
  ck_assert_int_eq(tc->diags.items[0]->nnotes, 2);
  ck_assert_str_eq(tc->diags.items[0]->notes[0].msg,
                   "the largest weight, 'w', takes 85.9 GB (160 copies of "
                   "536.9 MB in repeat 160)");
  ck_assert_str_eq(tc->diags.items[0]->notes[1].msg,
                   "fits on H200 SXM (-t h200_sxm), which has 141 GiB = 151.4 GB");
  ck_assert_str_eq(tc->diags.items[1]->notes[0].msg,
                   "the largest weight, 'w', takes 85.9 GB (160 copies of "
                   "536.9 MB in nested repeats)");
  tc_free(tc);
}
END_TEST

/* The largest weight as one GPU holds it (R-CHK-080): an expert's w1, bf16
 * [16384, 65536] (2,147,483,648 bytes), in `repeat 40` of `experts 16`
 * with expert = 8 is 40 x 16 / 8 = 80 copies per GPU, 171.8 GB (not the
 * 640 copies, 1374.4 GB, of the whole expert group); under zero = 3 over
 * 2 ranks a bf16 [200000, 100000] weight (40.0 GB) is 20.0 GB per GPU. */
START_TEST(capacity_note_per_gpu) {
  TestCtx *tc = run("model m {\n  dtype bf16\n"
                    "  parallel { gpus_per_node = 8; expert = 8 }\n"
                    "  input x : [1, 16384]\n"
                    "  repeat 40 {\n"
                    "    experts 16 top 2 {\n"
                    "      weight w1 : [16384, 65536]\n"
                    "      y = matmul(x, w1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n"
                    "model z {\n  dtype bf16\n  mode train\n"
                    "  parallel { gpus_per_node = 2; zero = 3 }\n"
                    "  input x : [1, 200000]\n"
                    "  weight w : [200000, 100000]\n"
                    "  y = matmul(x, w)\n"
                    "}\n",
                    "capacity");
  ck_assert_int_eq(tc->diags.n, 2);
  /* 171.8 GB a GPU fits only the 180 GiB B200 and the 192 GiB MI300X,
   * the B200 the smaller (R-CHK-083) */
  ck_assert_int_eq(tc->diags.items[0]->nnotes, 2);
  ck_assert_str_eq(tc->diags.items[0]->notes[1].msg,
                   "fits on B200 (-t b200), which has 180 GiB = 193.3 GB");
  ck_assert_str_eq(tc->diags.items[0]->notes[0].msg,
                   "the largest weight, 'w1', takes 171.8 GB per GPU (80 copies "
                   "of 2.15 GB in nested repeats: 2 of the 16 experts on each of "
                   "the expert group's 8 GPUs)");
  /* 2e10 parameters at 16 bytes with Adam over 2 GPUs are 160 GB a GPU,
   * and 40 GB of gathered weights, 200.0 GB: over the B200's 193.3 GB,
   * under the MI300X's 206.2 GB */
  ck_assert_int_eq(tc->diags.items[1]->nnotes, 2);
  ck_assert_str_eq(tc->diags.items[1]->notes[0].msg,
                   "the largest weight, 'w', takes 20.0 GB per GPU (sharded 2 "
                   "ways by zero = 3)");
  ck_assert_str_eq(tc->diags.items[1]->notes[1].msg,
                   "fits on Instinct MI300X (-t mi300x), which has 192 GiB = 206.2 GB");
  tc_free(tc);
}
END_TEST

START_TEST(overhead_single_then_summary) {
  TestCtx *tc = run("model few {\n"
                    "  input x : [4]\n"
                    "  y = relu(x)\n"
                    "}\n"
                    "model many {\n"
                    "  input x : [4]\n"
                    "  repeat 1000000 {\n"
                    "    a = relu(x)\n"
                    "    output a\n"
                    "    b = exp(x)\n"
                    "    output b\n"
                    "    c = neg(x)\n"
                    "    output c\n"
                    "    d = abs(x)\n"
                    "    output d\n"
                    "  }\n"
                    "}\n",
                    "overhead-bound");
  ck_assert_int_eq(tc->diags.n, 2);
  ck_assert(tc_has(tc, SEV_WARNING, 3, "relu 'y' takes"));
  /* The repeat is analysed once and counted 1e6 times. */
  ck_assert(tc_has(tc, SEV_WARNING, 5, "4 of 4 kernels in model 'many'"));
  ck_assert_double_eq(figure(tc->diags.items[1], "launches"), 4e6);
  tc_free(tc);
}
END_TEST

START_TEST(tc_alignment_vocab) {
  TestCtx *tc = run("model m {\n"
                    "  input h : [8192, 768]\n"
                    "  weight w : [768, 50257]\n"
                    "  y = matmul(h, w)\n"
                    "  z = matmul(h, w, precision=fp32)\n"
                    "}\n",
                    "tc-alignment");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert(tc_has(
      tc, SEV_WARNING, 4,
      "N = 50257 is not a multiple of 8 for bf16 tensor cores; padded to 50264"));
  ck_assert_double_eq(figure(tc->diags.items[0], "padded"), 50264);
  tc_free(tc);
}
END_TEST

/* R-OCC-003: tc-alignment checks the folded M of a linear layer, as the
 * 2-D spelling would be: [64, 197, 1024] @ [1024, 4096] is M = 12608 =
 * 8 * 1576, aligned, no warning; [5, 197, 1024] is M = 985, not a multiple
 * of 8: padded to 992 it costs 992 / 985 - 1 = 0.71% more work (unfolded
 * it was M = 197, padded to 200, 1.52%). */
START_TEST(tc_alignment_folded_m) {
  TestCtx *tc = run("model m {\n"
                    "  input x : [64, 197, 1024]\n"
                    "  weight w : [1024, 4096]\n"
                    "  y = matmul(x, w)\n"
                    "}\n",
                    "tc-alignment");
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
  tc = run("model m {\n"
           "  input x : [5, 197, 1024]\n"
           "  weight w : [1024, 4096]\n"
           "  y = matmul(x, w)\n"
           "}\n",
           "tc-alignment");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert(tc_has(tc, SEV_WARNING, 4,
                   "matmul 'y': M = 985 is not a multiple of 8 for bf16 "
                   "tensor cores; padded to 992 it costs 0.71% more work"));
  const Diag *d = tc->diags.items[0];
  ck_assert_double_eq(figure(d, "dimension"), 985);
  /* R-CHK-101: M comes from the rows of input 'x': the note says what the
   * tail costs and suggests no padding (no padded_suggested figure) */
  ck_assert_int_eq(d->nnotes, 1);
  ck_assert_str_eq(d->notes[0].msg,
                   "'x' (input) gives M = 985, rows set by the data, not a "
                   "size the model chooses: the part-filled last tile is the "
                   "0.71% above, and there is nothing to pad");
  ck_assert_uint_eq(d->notes[0].loc.start, tc_node(tc, "x")->loc.start);
  for (int k = 0; k < d->nfigures; k++)
    ck_assert_str_ne(d->figures[k].key, "padded_suggested");
  tc_free(tc);
}
END_TEST

/* R-CHK-101: M = 1001 rows of a weight (w @ x) are the author's choice:
 * the note advises padding them to 1024. */
START_TEST(tc_alignment_weight_m_advice) {
  TestCtx *tc = run("model m {\n"
                    "  weight w : [1001, 1024]\n"
                    "  input x : [1024, 4096]\n"
                    "  y = matmul(w, x)\n"
                    "}\n",
                    "tc-alignment");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert_ptr_nonnull(strstr(d->notes[0].msg, "'w' (weight) gives M = 1001;"));
  ck_assert_double_eq(figure(d, "padded_suggested"), 1024);
  tc_free(tc);
}
END_TEST

/* The note traces the dimension through views to the tensor to change (a
 * tied embedding used transposed) and suggests a multiple of 64: 50304,
 * nanoGPT's vocabulary (R-CHK-100). */
START_TEST(tc_alignment_traces_views) {
  TestCtx *tc = run("model m {\n"
                    "  input h : [8192, 768]\n"
                    "  weight wte : [50257, 768]\n"
                    "  head = transpose(wte, [1, 0])\n"
                    "  y = matmul(h, head)\n"
                    "}\n",
                    "tc-alignment");
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert_int_eq(d->nnotes, 1);
  ck_assert_str_eq(d->notes[0].msg,
                   "'wte' (weight, through view 'head') gives N = 50257; "
                   "beyond the padded work, a size off the multiple rules out "
                   "the aligned loads of the fastest kernels: pad it to 50304, "
                   "a multiple of 64, as nanoGPT does");
  ck_assert_uint_eq(d->notes[0].loc.start, tc_node(tc, "wte")->loc.start);
  ck_assert_double_eq(figure(d, "padded_suggested"), 50304);
  tc_free(tc);
}
END_TEST

/* A let that sizes weights is architecture: no crossover is proposed for
 * it, though doubling H would lift the attention (more query heads per
 * cached k/v head).  Batching decode attention over a per-sequence cache
 * does not raise its intensity: T gives no note either (R-CHK-032). */
START_TEST(memory_bound_no_architecture_crossover) {
  TestCtx *tc = run("let H = 8\n"
                    "let T = 65536\n"
                    "let B = 1\n"
                    "model m {\n"
                    "  input h : [B, 4096]\n"
                    "  weight wq : [4096, H * 128]\n"
                    "  q = matmul(h, wq)\n"
                    "  q = reshape(q, [B, H, 1, 128])\n"
                    "  input k, v : [B, 1, T, 128]\n"
                    "  a = attention(q, k, v)\n"
                    "}\n",
                    "memory-bound");
  const Diag *a = NULL;
  for (int i = 0; i < tc->diags.n; i++) {
    const Diag *d = tc->diags.items[i];
    if (strstr(d->msg, "attention 'a'")) a = d;
    for (int k = 0; k < d->nnotes; k++)
      ck_assert_msg(strstr(d->notes[k].msg, "compute roof") == NULL,
                    "unexpected crossover: %s", d->notes[k].msg);
  }
  ck_assert_ptr_nonnull(a);
  tc_free(tc);
}
END_TEST

/* A cast to the dtype it already has is no kernel: nothing to report. */
START_TEST(noop_cast_not_flagged) {
  TestCtx *tc = run("model m {\n"
                    "  dtype fp32\n"
                    "  input x : [8192, 16384]\n"
                    "  y = cast(x, fp32)\n"
                    "  z = relu(y)\n"
                    "}\n",
                    NULL);
  for (int i = 0; i < tc->diags.n; i++)
    ck_assert_msg(strstr(tc->diags.items[i]->msg, "'y'") == NULL, "%s",
                  tc->diags.items[i]->msg);
  tc_free(tc);
}
END_TEST

START_TEST(stmt_index_finds_nested) {
  TestCtx *tc = tc_parse("model m {\n  loop 2 {\n    a = relu(x)\n  }\n"
                         "  b = exp(a)\n}\nlet z = 1\n");
  const char *text = tc->ss.files[tc->file]->text;
  StmtRef r;
  ck_assert(checks_stmt_find(tc->prog,
                             (uint32_t)(strstr(text, "a = relu") - text), &r));
  ck_assert_int_eq(r.stmt->kind, ST_ASSIGN);
  ck_assert_int_eq(r.parent->kind, ST_LOOP);
  ck_assert_int_eq(r.index, 0);
  ck_assert(checks_stmt_find(tc->prog, (uint32_t)(strstr(text, "loop") - text),
                             &r));
  ck_assert_int_eq(r.stmt->kind, ST_LOOP);
  ck_assert_int_eq(r.parent->kind, ST_MODEL);
  ck_assert(checks_stmt_find(tc->prog, (uint32_t)(strstr(text, "b = ") - text),
                             &r));
  ck_assert_int_eq(r.index, 1);
  ck_assert(checks_stmt_find(tc->prog, (uint32_t)(strstr(text, "let") - text),
                             &r));
  ck_assert_ptr_null(r.parent);
  ck_assert_int_eq(r.index, 1);
  /* Inside a statement, or past the end: not the start of one. */
  ck_assert(!checks_stmt_find(tc->prog, 1, &r));
  ck_assert(!checks_stmt_find(
      tc->prog, (uint32_t)(strstr(text, "relu") - text), &r));
  ck_assert(!checks_stmt_find(tc->prog, (uint32_t)strlen(text), &r));
  tc_free(tc);
}
END_TEST

Suite *checks_suite(void) {
  Suite *s = suite_create("checks");
  TCase *reg = tcase_create("registry");
  tcase_add_test(reg, registry_complete);
  tcase_add_test(reg, registry_quotes_thresholds);
  tcase_add_test(reg, all_messages_styled);
  tcase_add_test(reg, stmt_index_finds_nested);
  suite_add_tcase(s, reg);
  TCase *c = tcase_create("behaviour");
  tcase_set_timeout(c, 30);
  tcase_add_test(c, stray_seed_figures);
  tcase_add_test(c, stray_intentional_and_wide_plans);
  tcase_add_test(c, stray_inheritors_grouped);
  tcase_add_test(c, stray_through_views);
  tcase_add_test(c, unfused_epilogue_and_fixit);
  tcase_add_test(c, unfused_no_fixit_when_split);
  tcase_add_test(c, unfused_linear);
  tcase_add_test(c, memory_bound_crossover);
  tcase_add_test(c, memory_bound_no_crossover);
  tcase_add_test(c, memory_bound_folds_occupancy);
  tcase_add_test(c, occupancy_threshold);
  tcase_add_test(c, kernel_blocks_regions);
  tcase_add_test(c, occupancy_and_tail);
  tcase_add_test(c, transfer_hoist_fixit);
  tcase_add_test(c, transfer_fresh_data_not_flagged);
  tcase_add_test(c, cross_node_seed);
  tcase_add_test(c, cross_node_tensor_span);
  tcase_add_test(c, cross_node_tensor_span_pipeline);
  tcase_add_test(c, cross_node_expert_span);
  tcase_add_test(c, cross_node_shard);
  tcase_add_test(c, capacity_error);
  tcase_add_test(c, capacity_note_counts_copies);
  tcase_add_test(c, capacity_note_per_gpu);
  tcase_add_test(c, tc_alignment_traces_views);
  tcase_add_test(c, memory_bound_no_architecture_crossover);
  tcase_add_test(c, noop_cast_not_flagged);
  tcase_add_test(c, overhead_single_then_summary);
  tcase_add_test(c, tc_alignment_vocab);
  tcase_add_test(c, tc_alignment_folded_m);
  tcase_add_test(c, tc_alignment_weight_m_advice);
  suite_add_tcase(s, c);
  return s;
}
