/* SPDX-License-Identifier: MIT */
/* check_sema.c: lets and overrides, dimension expressions, names and
 * rebinding, loop-carried types, scopes and counts, fused regions, outputs
 * and consumers, suggestions, misplaced statements, no cascades. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "test_util.h"

/* Exactly one diagnostic: an error on `line` with exactly `msg`. */
static void one_error(const char *src, int line, const char *msg) {
  TestCtx *tc = tc_sema(src, NULL);
  ck_assert_msg(tc->diags.n == 1 && tc->diags.items[0]->sev == SEV_ERROR,
                "want one error for:\n%s\ngot:\n%s", src, tc_render(tc));
  ck_assert_str_eq(tc->diags.items[0]->msg, msg);
  ck_assert_msg(tc_has(tc, SEV_ERROR, line, msg), "wrong line:\n%s",
                tc_render(tc));
  tc_free(tc);
}

static TestCtx *clean(const char *src) {
  TestCtx *tc = tc_sema(src, NULL);
  ck_assert_msg(tc->diags.n == 0, "unexpected:\n%s", tc_render(tc));
  return tc;
}

/* R-LET-001 R-LET-002 R-LET-004 R-LET-005 */
START_TEST(test_lets) {
  TestCtx *tc = clean("let B = 2\nlet D = B * 64 + 1 - 1\nlet H = 4.0\n"
                      "let bw = 3.35\n"
                      "model m { input x : [B, D / H] }\n");
  ck_assert_int_eq(tc_node(tc, "x")->type->dims[1], 32);
  tc_free(tc);
  one_error("let bw = 3.35\nmodel m { input x : [bw] }\n", 2,
            "expected an integer, got 3.35");
  one_error("let D = 1\nlet D = 2\n", 2, "redefinition of let 'D'");
  tc = tc_sema("let D = 1\nlet D = 2\n", NULL);
  ck_assert_int_eq(tc->diags.items[0]->nnotes, 1);
  ck_assert_str_eq(tc->diags.items[0]->notes[0].msg, "first defined here");
  tc_free(tc);
  one_error("let D = 4096\nlet E = Dd * 2\n", 2,
            "unknown name 'Dd'; did you mean 'D'?");
  one_error("let bw = 3.35 TB/s\n", 1,
            "a quantity with a unit ('TB/s') is not allowed here; write a "
            "plain number");
  one_error("let a = 1 / 0\n", 1, "division by zero in '/'");
  one_error("let a = 2.5 % 2\n", 1, "'%' needs integer operands, got 2.5 % 2");
  /* node types are interned: equal types share one copy, others do not */
  tc = clean("model m {\n  input x, y : [4, 8]\n  input z : [8, 4]\n"
             "  w = add(x, y)\n}\n");
  ck_assert_ptr_eq(tc_node(tc, "x")->type, tc_node(tc, "y")->type);
  ck_assert_ptr_eq(tc_node(tc, "x")->type, tc_node(tc, "w")->type);
  ck_assert_ptr_ne(tc_node(tc, "x")->type, tc_node(tc, "z")->type);
  ck_assert_int_eq(tc_node(tc, "z")->type->dims[0], 8);
  tc_free(tc);
  /* lets are evaluated first, so a model sees a let written after it */
  tc = clean("model m { input x : [D] }\nlet D = 4\n");
  ck_assert_int_eq(tc_node(tc, "x")->type->dims[0], 4);
  tc_free(tc);
}
END_TEST

/* R-LET-003 */
START_TEST(test_overrides) {
  LetOverride o[2] = {{"D", {false, 128, 0}, false, NULL},
                      {"S", {true, 0, 7.0}, false, NULL}};
  Bindings b = {.overrides = o, .n = 2};
  TestCtx *tc = tc_sema("let D = 4096 / 3\nlet S = 2\nlet E = D * S\n"
                        "model m { input x : [E] }\n",
                        &b);
  ck_assert_msg(tc->diags.n == 0, "%s", tc_render(tc));
  ck_assert(o[0].used && o[1].used);
  ck_assert_int_eq(tc_node(tc, "x")->type->dims[0], 896);
  tc_free(tc);
  LetOverride z = {"Q", {false, 1, 0}, false, NULL};
  Bindings bz = {.overrides = &z, .n = 1};
  tc = tc_sema("let D = 1\n", &bz);
  ck_assert(!z.used);
  tc_free(tc);
}
END_TEST

/* R-DIM-001..R-DIM-005 */
START_TEST(test_dims) {
  one_error("model m { input x : [4096 / 3] }\n", 1,
            "4096 / 3 does not divide exactly (remainder 1)");
  one_error("let B = 2\nmodel m {\n  input x : [B - 6, 4]\n}\n", 3,
            "dimension must be positive, got -4");
  one_error("model m { input x : [0] }\n", 1,
            "dimension must be positive, got 0");
  one_error("model m { input x : [4611686018427387904 * 4] }\n", 1,
            "dimension overflows 64 bits");
  one_error("model m { input x : [4294967296, 4294967296] }\n", 1,
            "element count overflows 64 bits");
  one_error("model m { input x : [(2 + 2) * -(3)] }\n", 1,
            "dimension must be positive, got -12");
  TestCtx *tc = clean("model m { input x : [10 % 4 + (7 - 1) / 2] }\n");
  ck_assert_int_eq(tc_node(tc, "x")->type->dims[0], 5);
  tc_free(tc);
  one_error("model m { input x : [1, 2, 3, 4, 5, 6, 7, 8, 9] }\n", 1,
            "tensor rank 9 exceeds the maximum of 8");
}
END_TEST

/* R-DTYPE-001 R-DTYPE-002 R-DTYPE-003 R-DTYPE-006 */
START_TEST(test_dtypes) {
  TestCtx *tc = clean("model m {\n  dtype fp16\n  input x : [4]\n"
                      "  weight w : fp32[4]\n  y = cast(x, fp32)\n}\n");
  const GNode *x = tc_node(tc, "x"), *w = tc_node(tc, "w"), *y = tc_node(tc, "y");
  ck_assert_int_eq(x->type->dtype, DT_FP16);
  ck_assert_int_eq(x->dtype_loc.file, -1);
  ck_assert_int_eq(w->type->dtype, DT_FP32);
  ck_assert_int_eq(w->dtype_loc.end - w->dtype_loc.start, 4);
  ck_assert_int_eq(y->dtype_loc.end - y->dtype_loc.start, 4);
  ck_assert_int_eq(tc->unit->models[0].dtype, DT_FP16);
  tc_free(tc);
  tc = clean("model m { input x : [4] }\n");
  ck_assert_int_eq(tc->unit->models[0].dtype, DT_BF16);
  ck_assert_int_eq(tc->unit->models[0].dtype_loc.file, -1);
  tc_free(tc);
  one_error("model m {\n  dtype fp33\n}\n", 2,
            "unknown dtype 'fp33'; did you mean 'fp32'?");
  one_error("model m { weight w : tf32[4] }\n", 1,
            "tf32 is a compute precision, not a storage dtype; use fp32 and "
            "precision=tf32 on the op");
  one_error("model m {\n  dtype bf16\n  dtype fp16\n}\n", 3,
            "duplicate 'dtype' in model 'm'");
  one_error("model m {\n  mode trainn\n}\n", 2,
            "unknown mode 'trainn'; did you mean 'train'?");
  one_error("model m {\n  mode fast\n}\n", 2,
            "unknown mode 'fast' (expected inference or train)");
  tc = clean("model m { mode train }\n");
  ck_assert(tc->unit->models[0].train);
  tc_free(tc);
}
END_TEST

/* R-NAME-001..R-NAME-004, R-NAME-006 */
START_TEST(test_names) {
  TestCtx *tc = clean("model m {\n  input x : [4]\n  h = relu(x)\n"
                      "  h = gelu(h)\n  y = add(h, x)\n}\n");
  const Model *m = &tc->unit->models[0];
  ck_assert_int_eq(m->nnodes, 4);
  ck_assert_str_eq(m->nodes[1].op->name, "relu");
  ck_assert_int_eq(m->nodes[2].inputs[0], 1); /* gelu reads the first h */
  ck_assert_int_eq(m->nodes[3].inputs[0], 2);
  ck_assert_int_eq(m->nodes[3].inputs[1], 0);
  ck_assert_int_eq(m->nodes[0].nconsumers, 2);
  ck_assert_int_eq(m->nodes[2].stmt_loc.start, 42);
  tc_free(tc);
  one_error("model m {\n  input hidden : [4]\n  y = relu(hiden)\n}\n", 3,
            "unknown name 'hiden'; did you mean 'hidden'?");
  /* Equally close names: the first in alphabetical order, every run
   * (the name map's order follows addresses, which ASLR moves). */
  one_error("model m {\n input xq, xd, xk, xz, xb, xm, xr, xe, xw, xc : [4]\n"
            "  y = relu(xa)\n}\n",
            3, "unknown name 'xa'; did you mean 'xb'?");
  one_error("model m {\n  input x : [4]\n  y = matmull(x, x)\n}\n", 3,
            "unknown op 'matmull'; did you mean 'matmul'?");
  one_error("let D = 4\nmodel m {\n  y = relu(D)\n}\n", 3,
            "'D' is a let (a number), not a tensor");
  one_error("model m {\n  input x : [4]\n  y = 3\n}\n", 3,
            "expected an op application, like 'y = relu(x)'");
  one_error("model m {\n  input x : [4]\n  y = xx\n}\n", 3,
            "unknown name 'xx'; did you mean 'x'?");
  one_error("model m {\n  input x : [4]\n  y = relu(x)\n  output yy\n}\n", 4,
            "unknown name 'yy'; did you mean 'y'?");
  one_error("model m {\n  input x : [x]\n}\n", 2, "unknown name 'x'");
}
END_TEST

/* R-NAME-005. No cascades: one root error, nothing that follows from it. */
START_TEST(test_no_cascade) {
  one_error("model m {\n  input x : [4]\n  h = matmull(x, x)\n"
            "  y = relu(h)\n  z = add(y, h)\n  output z\n}\n",
            3, "unknown op 'matmull'; did you mean 'matmul'?");
  one_error("model m {\n  input x : [4 / 3]\n  y = relu(x)\n}\n", 2,
            "4 / 3 does not divide exactly (remainder 1)");
  one_error("model m {\n  input x : [4]\n  input y : [5]\n"
            "  h = add(x, y)\n  repeat 2 { h = relu(h) }\n}\n",
            4, "cannot broadcast bf16[4] with bf16[5] in add: 4 vs 5 at axis -1");
  /* independent errors are all reported */
  TestCtx *tc = tc_sema("model m {\n  input x : [4]\n  a = relu(q)\n"
                        "  b = gelu(r)\n}\n", NULL);
  ck_assert_int_eq(tc_count(tc, SEV_ERROR), 2);
  tc_free(tc);
}
END_TEST

/* R-SCOPE-001 (counts, analysed once), R-SCOPE-002 (weights per copy) */
START_TEST(test_scopes) {
  TestCtx *tc = clean("model m {\n  input x : [4]\n  repeat 4 {\n"
                      "    repeat 32 {\n      weight w : [4]\n"
                      "      x = mul(x, w)\n    }\n  }\n"
                      "  loop 1000000000 { t = to_device(x) }\n}\n");
  const Model *m = &tc->unit->models[0];
  ck_assert_int_eq(m->nscopes, 3);
  ck_assert_int_eq(m->scopes[1].parent, 0);
  ck_assert_int_eq(m->scopes[1].trips, 32);
  ck_assert(m->scopes[1].count == 128);
  ck_assert(m->scopes[2].is_loop && !m->scopes[0].is_loop);
  ck_assert_int_eq(m->nnodes, 4); /* analysed once, never unrolled */
  const GNode *x = tc_node(tc, "x"), *w = tc_node(tc, "w"), *t = tc_node(tc, "t");
  ck_assert(x->count == 128 && w->count == 128 && t->count == 1e9);
  ck_assert_int_eq(x->scope, 1);
  ck_assert(x->loop_carried);
  ck_assert(m->nodes[0].count == 1 && m->nodes[0].scope == -1);
  tc_free(tc);
  tc = clean("let N = 1000000000000000000\nmodel m {\n  input x : [4]\n"
             "  repeat N { repeat N { repeat N { y = relu(x) } } }\n}\n");
  ck_assert(tc_node(tc, "y")->count == 1e54 && isfinite(tc_node(tc, "y")->count));
  tc_free(tc);
  one_error("model m {\n  input x : [4]\n  repeat 0 { y = relu(x) }\n}\n", 3,
            "repeat count must be at least 1, got 0");
  one_error("model m {\n  input x : [4]\n  loop 2.5 { y = relu(x) }\n}\n", 3,
            "expected an integer, got 2.5");
}
END_TEST

/* R-SCOPE-003 */
START_TEST(test_loop_carried) {
  const char *src = "model m {\n  input h : [1, 4096]\n  weight w : [4096, 11008]\n"
                    "  repeat 2 {\n    h = matmul(h, w)\n  }\n}\n";
  one_error(src, 5,
            "loop-carried 'h' changes type from bf16[1, 4096] to "
            "bf16[1, 11008] in one iteration");
  TestCtx *tc = tc_sema(src, NULL);
  ck_assert_int_eq(tc->diags.items[0]->nnotes, 1);
  ck_assert_str_eq(tc->diags.items[0]->notes[0].msg,
                   "'h' enters the repeat as bf16[1, 4096] here");
  tc_free(tc);
  /* same type at the end is fine, even through an intermediate shape */
  tc = clean("model m {\n  input h : [1, 8]\n  weight a : [8, 16]\n"
             "  weight b : [16, 8]\n  loop 3 {\n    h = matmul(h, a)\n"
             "    h = matmul(h, b)\n  }\n}\n");
  tc_free(tc);
  /* names first bound inside the body are not carried */
  tc = clean("model m {\n  input x : [8]\n  repeat 2 {\n    t = relu(x)\n"
             "    t = sum(t, axis=0)\n  }\n}\n");
  ck_assert(!tc_node(tc, "t")->loop_carried);
  tc_free(tc);
}
END_TEST

/* R-SCOPE-004 */
START_TEST(test_fused) {
  TestCtx *tc = clean("model m {\n  input x : [4]\n  fused epi {\n"
                      "    a = relu(x)\n    b = gelu(a)\n  }\n  c = neg(b)\n}\n");
  const Model *m = &tc->unit->models[0];
  ck_assert_int_eq(m->nregions, 1);
  ck_assert_str_eq(m->regions[0].name, "epi");
  ck_assert_int_eq(tc_node(tc, "a")->region, 0);
  ck_assert_int_eq(tc_node(tc, "b")->region, 0);
  ck_assert_int_eq(tc_node(tc, "c")->region, -1);
  tc_free(tc);
  one_error("model m {\n  input x : [4]\n  fused a {\n    fused b { y = relu(x) }\n"
            "  }\n}\n", 4,
            "fused region 'b' is nested inside fused region 'a'; regions do "
            "not nest");
  one_error("model m {\n  input x : [4]\n  fused a {\n    repeat 2 { y = relu(x) }\n"
            "  }\n}\n", 4,
            "'repeat' is not allowed inside fused region 'a'; put the region "
            "inside it");
}
END_TEST

START_TEST(test_outputs) {
  TestCtx *tc = clean("model m {\n  input x : [4]\n  weight w : [4]\n"
                      "  a = mul(x, w)\n  b = relu(a)\n  c = neg(a)\n"
                      "  output b\n}\n");
  ck_assert(tc_node(tc, "b")->is_output);
  ck_assert(tc_node(tc, "c")->is_output); /* consumed by no one */
  ck_assert(!tc_node(tc, "a")->is_output);
  ck_assert_int_eq(tc_node(tc, "a")->nconsumers, 2);
  ck_assert(!tc_node(tc, "w")->is_output);
  tc_free(tc);
  tc = clean("model m {\n  input x : [4]\n  y = mul(x, x)\n  z = relu(y)\n}\n");
  ck_assert_int_eq(tc_node(tc, "x")->nconsumers, 1); /* one op, read twice */
  ck_assert_int_eq(tc_node(tc, "y")->ninputs, 2);
  tc_free(tc);
}
END_TEST

/* R-NEST-001: a name stops growing at 64 bytes.  relu nested 20 deep:
 * "y" then ".relu" (5 bytes) per level gives "y" + 12 * ".relu" = 61 bytes
 * at the 12th level; the 13th would be 66, so it and every deeper level
 * keep that 61-byte name. */
START_TEST(test_nested_name_bound) {
  StrBuf src = {0};
  sb_puts(&src, "model m {\n  input x : [4, 8]\n  y = ");
  for (int i = 0; i < 21; i++) sb_puts(&src, "relu(");
  sb_puts(&src, "x");
  for (int i = 0; i < 21; i++) sb_puts(&src, ")");
  sb_puts(&src, "\n}\n");
  TestCtx *tc = clean(sb_str(&src));
  const Model *m = &tc->unit->models[0];
  ck_assert_int_eq(m->nnodes, 22); /* x, 20 inner relus, y */
  size_t longest = 0;
  for (int i = 0; i < m->nnodes; i++)
    if (strlen(m->nodes[i].name) > longest) longest = strlen(m->nodes[i].name);
  ck_assert_int_eq((int)longest, 61);
  tc_free(tc);
  sb_free(&src);
}
END_TEST

/* R-NEST-001: each inner application is a node of its own, named after
 * its outer binding, at its own location, in the outer's region.
 * R-NAME-008: `y = x` binds a second name to x's node (no node). */
START_TEST(test_nested_alias) {
  const char *src = "model m {\n  input x : [4, 8]\n  weight w : [8, 8]\n"
                    "  fused f {\n    y = relu(add(x, matmul(x, w)))\n  }\n"
                    "  r = y\n  z = concat([neg(r), y])\n}\n";
  TestCtx *tc = clean(src);
  const Model *m = &tc->unit->models[0];
  ck_assert_int_eq(m->nnodes, 7); /* x w y.add.matmul y.add y z.neg z */
  const GNode *mm = tc_node(tc, "y.add.matmul"), *ad = tc_node(tc, "y.add");
  const GNode *y = tc_node(tc, "y");
  ck_assert_ptr_nonnull(mm);
  ck_assert_ptr_nonnull(ad);
  ck_assert_str_eq(mm->op->name, "matmul");
  ck_assert_int_eq(mm->region, 0);
  ck_assert_int_eq(ad->inputs[1], (int)(mm - m->nodes));
  ck_assert_int_eq(y->inputs[0], (int)(ad - m->nodes));
  /* "matmul(x, w)" starts at byte 67 of src, "add(" at 60, "relu(" at 55 */
  ck_assert_int_eq((int)mm->loc.start, (int)(strstr(src, "matmul") - src));
  ck_assert_int_eq((int)ad->loc.start, (int)(strstr(src, "add(") - src));
  ck_assert_int_eq((int)y->loc.start, (int)(strstr(src, "relu(") - src));
  ck_assert(!mm->is_output && !ad->is_output);
  /* the alias r is y: z.neg reads y's node, and z reads y twice */
  const GNode *zn = tc_node(tc, "z.neg"), *z = tc_node(tc, "z");
  ck_assert_int_eq(zn->inputs[0], (int)(y - m->nodes));
  ck_assert_int_eq(z->inputs[1], (int)(y - m->nodes));
  ck_assert_int_eq(y->nconsumers, 2);
  ck_assert_ptr_null(tc_node(tc, "r"));
  tc_free(tc);
  /* an inner failure is reported once, at the inner call */
  one_error("model m {\n  input x : [4]\n  y = relu(\n  matmul(x, x, axis=1))\n}\n",
            4, "unknown keyword 'axis' for matmul");
}
END_TEST

/* R-KW-006 R-PAR-001: the keys, their defaults and the rules that tie the
 * degrees to the GPUs. */
static const Parallel *par(TestCtx **tc, const char *keys) {
  char text[400];
  snprintf(text, sizeof text, "let T = 4\nmodel m {\n  parallel { %s }\n}\n", keys);
  *tc = clean(text);
  return &(*tc)->unit->models[0].parallel;
}

START_TEST(test_parallel) {
  TestCtx *tc;
  const Parallel *p = par(&tc, "nodes = 2; gpus_per_node = 8");
  ck_assert(p->present);
  ck_assert_int_eq(p->nodes, 2);
  ck_assert_int_eq(p->gpus_per_node, 8);
  ck_assert_int_eq(p->data, 16); /* 16 GPUs / (tensor 1 x pipeline 1) */
  ck_assert_int_eq(p->tensor, 1);
  ck_assert_int_eq(p->pipeline, 1);
  ck_assert_int_eq(p->expert, 1);
  ck_assert_int_eq(p->microbatches, 1);
  ck_assert_int_eq(p->zero, 0);
  ck_assert_int_eq(p->shard, 0);
  ck_assert(!p->overlap);
  tc_free(tc);
  /* data = 16 / 8 = 2 */
  p = par(&tc, "nodes = 2; gpus_per_node = 8; tensor = 8; zero = 3; overlap = true");
  ck_assert_int_eq(p->data, 2);
  ck_assert_int_eq(p->zero, 3);
  ck_assert(p->overlap);
  tc_free(tc);
  /* gpus_per_node = tensor x pipeline x data / nodes = 1 x 1 x 2 / 1 */
  p = par(&tc, "data = 2");
  ck_assert_int_eq(p->gpus_per_node, 2);
  ck_assert_int_eq(p->nodes, 1);
  tc_free(tc);
  /* without data: gpus_per_node = tensor x pipeline = T = 4, data 1 */
  p = par(&tc, "tensor = T");
  ck_assert_int_eq(p->tensor, 4);
  ck_assert_int_eq(p->gpus_per_node, 4);
  ck_assert_int_eq(p->data, 1);
  tc_free(tc);
  /* gpus_per_node = 8 x 1 x 2 / 2 = 8 */
  p = par(&tc, "nodes = 2; tensor = 8; data = 2; shard = 1; zero = 2; expert = 2");
  ck_assert_int_eq(p->gpus_per_node, 8);
  ck_assert_int_eq(p->shard, 1);
  ck_assert_int_eq(p->expert, 2);
  tc_free(tc);
  one_error("model m {\n  parallel { nodes = 2; gpu_per_node = 8 }\n}\n", 2,
            "unknown parallel key 'gpu_per_node'; did you mean "
            "'gpus_per_node'?");
  one_error("model m {\n  parallel { zzz = 8 }\n}\n", 2,
            "unknown parallel key 'zzz' (expected nodes, gpus_per_node, data, "
            "tensor, pipeline, expert, microbatches, zero, shard, overlap, "
            "sequence_parallel or fp32_grads)");
  one_error("model m {\n  parallel { nodes = 0 }\n}\n", 2,
            "parallel 'nodes' must be a positive integer, got 0");
  one_error("model m {\n  parallel { zero = 4 }\n}\n", 2,
            "parallel 'zero' must be at most 3, got 4");
  one_error("model m {\n  parallel { overlap = 1 }\n}\n", 2,
            "parallel 'overlap' takes true or false");
  /* issue 19: data = 4 (or 9, or 32) on 16 GPUs used to be accepted */
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; data = 4 }\n}\n", 2,
            "parallel degrees tensor 1 x pipeline 1 x data 4 = 4 do not match "
            "the 16 GPUs of nodes 2 x gpus_per_node 8");
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; data = 32 }\n}\n", 2,
            "parallel degrees tensor 1 x pipeline 1 x data 32 = 32 do not match "
            "the 16 GPUs of nodes 2 x gpus_per_node 8");
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; tensor = 3 }\n}\n", 2,
            "parallel degrees tensor 3 x pipeline 1 = 3 do not divide the 16 "
            "GPUs of nodes 2 x gpus_per_node 8");
  one_error("model m {\n  parallel { nodes = 3; data = 2 }\n}\n", 2,
            "parallel degrees tensor 1 x pipeline 1 x data 2 = 2 GPUs do not "
            "split evenly over 3 nodes");
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; expert = 3 }\n}\n", 2,
            "parallel 'expert' = 3 does not divide data = 16 (the expert group "
            "lies inside the data group)");
  /* issue 28 item 19: 8 experts over an expert group of 7 (or 2^20) GPUs
   * used to price 8/7 of an expert per GPU; 8 over 4 is 2 each */
  one_error("model m {\n  parallel { data = 7; expert = 7 }\n  input h : [4, 4]\n"
            "  experts 8 top 2 {\n    weight w : [4, 4]\n    y = matmul(h, w)\n"
            "  }\n}\n", 4,
            "parallel 'expert' = 7 does not divide the 8 experts of this block: "
            "each GPU of the expert group holds a whole share of them");
  one_error("model m {\n  parallel { data = 1048576; expert = 1048576 }\n"
            "  input h : [4, 4]\n  experts 8 top 2 {\n    weight w : [4, 4]\n"
            "    y = matmul(h, w)\n  }\n}\n", 4,
            "parallel 'expert' = 1048576 does not divide the 8 experts of this "
            "block: each GPU of the expert group holds a whole share of them");
  tc_free(clean("model m {\n  parallel { data = 4; expert = 4 }\n  input h : [4, 4]\n"
                "  experts 8 top 2 {\n    weight w : [4, 4]\n    y = matmul(h, w)\n"
                "  }\n}\n"));
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; shard = 8 }\n}\n", 2,
            "parallel 'shard' = 8 needs 'zero' 1, 2 or 3: with zero 0 nothing "
            "is sharded");
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; zero = 3; shard = 3 }\n}\n", 2,
            "parallel 'shard' = 3 does not divide data = 16");
  /* R-PAR-009 */
  one_error("model m {\n  parallel { nodes = 2; gpus_per_node = 8; pipeline = 2 }\n}\n", 2,
            "parallel 'pipeline' = 2 needs a repeat of layers to split over "
            "the stages");
  one_error("model m {\n  parallel { gpus_per_node = 8; pipeline = 4 }\n"
            "  input x : [4]\n  repeat 6 {\n    x = relu(x)\n  }\n}\n", 4,
            "repeat 6 does not split evenly over pipeline = 4 stages");
}
END_TEST

/* R-PAR-002: Megatron-Core's rank order tp-cp-ep-dp-pp on 2 nodes of 8.
 * TP 8 x DP 2: the tensor group is ranks 0..7 (one node, NVLink), the
 * data group ranks 0 and 8 (stride 8: one per node, InfiniBand only).
 * FSDP over 16 with shard = 8: shard groups of 8 inside a node, replicas
 * 0 and 8 across. */
static void place_is(GroupPlace g, int64_t size, int64_t stride,
                     int64_t per_node, int64_t nodes, const char *link) {
  ck_assert_int_eq(g.size, size);
  ck_assert_int_eq(g.stride, stride);
  ck_assert_int_eq(g.per_node, per_node);
  ck_assert_int_eq(g.nodes, nodes);
  ck_assert_str_eq(group_link_str(g), link);
}

START_TEST(test_parallel_place) {
  TestCtx *tc;
  const Parallel *p = par(&tc, "nodes = 2; gpus_per_node = 8; tensor = 8");
  place_is(parallel_place(p, PG_TENSOR), 8, 1, 8, 1, "NVLink");
  place_is(parallel_place(p, PG_DATA), 2, 8, 1, 2, "InfiniBand");
  tc_free(tc);
  p = par(&tc, "nodes = 2; gpus_per_node = 8; zero = 3; shard = 8");
  place_is(parallel_place(p, PG_DATA), 16, 1, 8, 2, "NVLink + InfiniBand");
  place_is(parallel_place(p, PG_SHARD), 8, 1, 8, 1, "NVLink");
  place_is(parallel_place(p, PG_REPLICA), 2, 8, 1, 2, "InfiniBand");
  tc_free(tc);
  /* tensor 4 x data 4 on 2 x 8: the expert group (2) inside data, stride 4 */
  p = par(&tc, "nodes = 2; gpus_per_node = 8; tensor = T; expert = 2");
  place_is(parallel_place(p, PG_EXPERT), 2, 4, 2, 1, "NVLink");
  place_is(parallel_place(p, PG_DATA), 4, 4, 2, 2, "NVLink + InfiniBand");
  tc_free(tc);
  /* no block: one GPU */
  tc = clean("model m {\n  input x : [4]\n}\n");
  ck_assert_int_eq(parallel_place(&tc->unit->models[0].parallel, PG_DATA).size, 1);
  tc_free(tc);
}
END_TEST

/* R-NAME-007 R-NAME-008 */
START_TEST(test_misplaced_and_top) {
  one_error("input x : [4]\n", 1, "'input' is only allowed inside a model");
  one_error("model m {\n  let D = 4\n}\n", 2,
            "'let' is only allowed at the top level, before the models");
  one_error("model m {\n  model n { }\n}\n", 2,
            "a model cannot contain another model");
  one_error("model m {\n  level hbm { capacity = 80 GB }\n}\n", 2,
            "'level' sections belong in a target definition, not a model");
  one_error("model m {\n  input x : [4]\n  repeat 2 { dtype fp32 }\n}\n", 3,
            "'dtype' belongs directly in the model body, not inside repeat, "
            "loop or fused");
  one_error("y = relu(x)\n", 1,
            "'y = ...' outside a model; use 'let y = ...' for a constant");
  one_error("target h100_sxm\ntarget a100\n", 2,
            "a second 'target' for this file");
  TestCtx *tc = clean("target h100_sxm\ntarget mine { sms = 4 }\n"
                      "model a { input x : [4] }\nmodel b { input y : [8] }\n");
  ck_assert_str_eq(tc->unit->target_name, "h100_sxm");
  ck_assert_int_eq(tc->unit->ntarget_defs, 1);
  ck_assert_int_eq(tc->unit->nmodels, 2);
  ck_assert_str_eq(tc->unit->models[1].name, "b");
  ck_assert_int_eq(tc->unit->models[1].nodes[0].type->dims[0], 8);
  tc_free(tc);
}
END_TEST

/* Settings anywhere in the body apply to the whole model, read before the
 * walk; the node array is exactly as long as the graph: a name of a
 * declaration and an assignment one each, a repeat and a fused body once
 * (x, y, a; b; c, d = 6). */
START_TEST(test_settings_and_node_count) {
  TestCtx *tc = tc_sema("model m {\n"
                        "  input x, y : [4]\n"
                        "  a = relu(x)\n"
                        "  repeat 3 { b = relu(a); fused f { c = relu(b); d = exp(c) } }\n"
                        "  dtype fp16\n"
                        "  mode train\n"
                        "  output a\n"
                        "  parallel { data = 2 }\n"
                        "}\n",
                        NULL);
  ck_assert_int_eq(tc->diags.n, 0);
  const Model *m = &tc->unit->models[0];
  ck_assert_int_eq(m->nnodes, 6);
  ck_assert_str_eq(m->nodes[5].name, "d");
  ck_assert_int_eq(m->dtype, DT_FP16);
  ck_assert_int_eq(m->nodes[0].type->dtype, DT_FP16); /* x, read before */
  ck_assert(m->train);
  ck_assert_int_eq(m->parallel.data, 2);
  tc_free(tc);
}
END_TEST

/* Not one node per trip: a billion-trip repeat costs what one does. */
START_TEST(test_scale) {
  StrBuf sb = {0};
  sb_puts(&sb, "model m {\n  input x : [4]\n  repeat 1000000000 {\n");
  for (int i = 0; i < 20000; i++) sb_puts(&sb, "    x = relu(x)\n");
  sb_puts(&sb, "  }\n}\n");
  TestCtx *tc = tc_sema(sb_str(&sb), NULL);
  ck_assert_int_eq(tc->diags.n, 0);
  ck_assert_int_eq(tc->unit->models[0].nnodes, 20001);
  ck_assert(tc->unit->models[0].nodes[20000].count == 1e9);
  ck_assert_int_eq(tc->unit->models[0].nodes[20000].inputs[0], 19999);
  tc_free(tc);
  sb_free(&sb);
}
END_TEST

/* The lets sema evaluated travel with the unit (the crossover search reads
 * them), with the overrides applied; R-LET-001, R-LET-003. */
START_TEST(test_unit_lets) {
  LetOverride o[] = {{"B", {false, 8, 0}, false, NULL}};
  Bindings b = {.overrides = o, .n = 1};
  TestCtx *tc = tc_sema("let B = 1\nlet S = B * 128 + 2\nlet r = 0.5\n", &b);
  ck_assert_int_eq(tc->unit->nlets, 3);
  ck_assert_str_eq(tc->unit->lets[0].name, "B");
  ck_assert_int_eq(tc->unit->lets[0].value.i, 8);
  ck_assert_str_eq(tc->unit->lets[1].name, "S");
  ck_assert_int_eq(tc->unit->lets[1].value.i, 8 * 128 + 2);
  ck_assert(tc->unit->lets[2].value.is_real && tc->unit->lets[2].ok);
  ck_assert_int_eq(tc->unit->lets[1].loc.start, 14);
  tc_free(tc);
}
END_TEST

/* One copy of the bindings plus one override: the same name is replaced,
 * a new one appended, the others kept in order. */
START_TEST(test_bindings_with) {
  Arena *a = arena_new();
  LetOverride o[] = {{"B", {false, 1, 0}, true, NULL}, {"S", {false, 2, 0}, false, NULL}};
  Bindings b = {.overrides = o, .n = 2};
  Bindings *r = bindings_with(a, &b, &(LetOverride){"B", {false, 64, 0}, false, NULL});
  ck_assert_int_eq(r->n, 2);
  ck_assert_str_eq(r->overrides[0].name, "S");
  ck_assert_str_eq(r->overrides[1].name, "B");
  ck_assert_int_eq(r->overrides[1].value.i, 64);
  ck_assert(!r->overrides[1].used);
  r = bindings_with(a, &b, &(LetOverride){"H", {false, 3, 0}, false, NULL});
  ck_assert_int_eq(r->n, 3);
  ck_assert_str_eq(r->overrides[2].name, "H");
  r = bindings_with(a, NULL, NULL);
  ck_assert_int_eq(r->n, 0);
  ck_assert_int_eq(o[0].value.i, 1); /* the original is untouched */
  arena_free(a);
}
END_TEST

Suite *sema_suite(void) {
  Suite *s = suite_create("sema");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_lets);
  tcase_add_test(tc, test_overrides);
  tcase_add_test(tc, test_unit_lets);
  tcase_add_test(tc, test_bindings_with);
  tcase_add_test(tc, test_dims);
  tcase_add_test(tc, test_dtypes);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_no_cascade);
  tcase_add_test(tc, test_scopes);
  tcase_add_test(tc, test_loop_carried);
  tcase_add_test(tc, test_fused);
  tcase_add_test(tc, test_nested_alias);
  tcase_add_test(tc, test_nested_name_bound);
  tcase_add_test(tc, test_outputs);
  tcase_add_test(tc, test_parallel);
  tcase_add_test(tc, test_parallel_place);
  tcase_add_test(tc, test_misplaced_and_top);
  tcase_add_test(tc, test_settings_and_node_count);
  tcase_add_test(tc, test_scale);
  suite_add_tcase(s, tc);
  return s;
}
