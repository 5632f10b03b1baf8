/* SPDX-License-Identifier: MIT */
/* check_ops.c: the op table and every op's shape and dtype rule, valid and
 * invalid, through sema (a model body in, a node type or exact message out). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "ops.h"

static TestCtx *run_body(const char *body) {
  char src[4096];
  snprintf(src, sizeof src,
           "model m {\n"
           "  input x : [4, 8]\n"
           "  input x3 : [2, 3, 4]\n"
           "  input v8 : [8]\n"
           "%s\n}\n",
           body);
  return tc_sema(src, NULL);
}

/* The type of `name` after `body`, with no diagnostics at all. */
static void ok_type(const char *body, const char *name, const char *want) {
  TestCtx *tc = run_body(body);
  ck_assert_msg(tc->diags.n == 0, "unexpected diagnostics for %s:\n%s", body,
                tc_render(tc));
  const GNode *g = tc_node(tc, name);
  ck_assert_ptr_nonnull(g);
  char buf[200];
  ck_assert_str_eq(op_type_str(buf, sizeof buf, g->type), want);
  tc_free(tc);
}

/* Exactly one diagnostic, an error with exactly this message. */
static void bad(const char *body, const char *msg) {
  TestCtx *tc = run_body(body);
  ck_assert_msg(tc->diags.n == 1 && tc->diags.items[0]->sev == SEV_ERROR,
                "want one error for %s, got:\n%s", body, tc_render(tc));
  ck_assert_str_eq(tc->diags.items[0]->msg, msg);
  tc_free(tc);
}

/* Every row of ops.def: found by its name, numbered by its id, with the
 * functions and fields its class needs; the name list is the table's. */
START_TEST(test_table) {
  const char *const *names = op_names();
  for (int i = 0; i < op_count(); i++) {
    const OpDesc *op = op_get((OpId)i);
    ck_assert_int_eq(op->id, i);
    ck_assert_int_eq(op_index(op), i);
    ck_assert_str_eq(names[i], op->name);
    ck_assert_ptr_eq(op_lookup(op->name), op);
    ck_assert_ptr_nonnull(op->shape);
    ck_assert_ptr_nonnull(op->cost);
    ck_assert_ptr_nonnull(op->keywords);
    ck_assert_msg(op->doc && op->doc[0], "%s has no doc line", op->name);
    ck_assert_msg(op->min_inputs >= 0 &&
                      (op->max_inputs == -1 || op->max_inputs >= op->min_inputs),
                  "%s arity", op->name);
    /* a contraction says what its tensor cores tile; nothing else does */
    ck_assert_msg((op->dims != NULL) == (op->cls == OC_CONTRACTION), "%s dims",
                  op->name);
    /* R-TRAIN-001: backward is 2x a contraction's forward, 1x the rest's;
     * views, transfers and the comparisons (R-OP-006: no gradient) are
     * not repeated */
    static const char *const no_gradient[] = {
        "eq", "lt", "le", "gt", "ge", "logical_not", "logical_and",
        "logical_or", "logical_xor", "isnan", "isinf", NULL};
    bool compare = false;
    for (int k = 0; no_gradient[k]; k++)
      compare |= strcmp(op->name, no_gradient[k]) == 0;
    /* R-OP-008: the selective scan's backward recomputes its states, then
     * runs the reverse scan */
    bool scan = strcmp(op->name, "selective_scan") == 0;
    double train = op->cls == OC_CONTRACTION || scan                ? 3
                   : op->cls == OC_VIEW || op->cls == OC_TRANSFER ? 1
                   : compare                                        ? 1
                                                                   : 2;
    ck_assert_msg(op->train_factor == train, "%s train factor", op->name);
  }
  ck_assert_ptr_null(names[op_count()]);
  /* the one tensor size: 4096 x 4096 bf16 is 16777216 elements, 2 bytes
   * each = 33554432 bytes; a number (DT_NONE) has none */
  TensorType t = {DT_BF16, 2, {4096, 4096}};
  ck_assert_double_eq(op_tensor_elements(&t), 16777216.0);
  ck_assert_double_eq(op_tensor_bytes(&t), 33554432.0);
  t.dtype = DT_NONE;
  ck_assert_double_eq(op_tensor_bytes(&t), 0);
  ck_assert_ptr_null(op_lookup("matmull"));
  ck_assert_str_eq(util_suggest("matmull", op_names()), "matmul");
  /* the documented FLOP weights */
  static const struct { const char *op; double w; OpClass c; } rows[] = {
      {"add", 1, OC_ELEMENTWISE},   {"relu", 1, OC_ELEMENTWISE},
      {"gelu", 5, OC_ELEMENTWISE},  {"silu", 5, OC_ELEMENTWISE},
      {"sigmoid", 4, OC_ELEMENTWISE}, {"tanh", 1, OC_ELEMENTWISE},
      {"cast", 0, OC_ELEMENTWISE},  {"softmax", 5, OC_REDUCTION},
      {"layernorm", 8, OC_REDUCTION}, {"rmsnorm", 4, OC_REDUCTION},
      {"sum", 1, OC_REDUCTION},     {"matmul", 0, OC_CONTRACTION},
      {"reshape", 0, OC_VIEW},      {"transpose", 0, OC_VIEW},
      {"copy", 0, OC_MOVEMENT},     {"to_device", 0, OC_TRANSFER},
      {"allreduce", 0, OC_COLLECTIVE}, {"custom", 0, OC_OPAQUE},
      {"maxpool2d", 1, OC_MOVEMENT},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const OpDesc *op = op_lookup(rows[i].op);
    ck_assert_msg(op->flops_per_element == rows[i].w, "%s", rows[i].op);
    ck_assert_int_eq(op->cls, rows[i].c);
  }
}
END_TEST

/* Issue 18: the element-wise ops' shapes (R-SHAPE-040, R-SHAPE-041,
 * R-KW-010), the channel norms' (R-SHAPE-042, R-SHAPE-043), bias=
 * (R-SHAPE-044) and conv1d/conv3d/conv_transpose2d (R-SHAPE-045,
 * R-SHAPE-046), each valid form and each error. */
START_TEST(test_issue18_elementwise) {
  ok_type("input c : bool[8]\ny = where(c, x, 0)", "y", "bf16[4, 8]");
  ok_type("input c : bool[4, 1]\ninput f : fp32[8]\ny = where(c, 1, f)", "y",
          "fp32[4, 8]");
  bad("y = where(x, x, 0)",
      "where condition must be bool, got bf16[4, 8]; compare first or "
      "cast(cond, bool)");
  bad("input c : bool[4, 8]\ny = where(c, 0, 1)",
      "where needs a tensor for a or b; both are numbers");
  bad("input c : bool[3]\ny = where(c, x, 0)",
      "cannot broadcast bool[3] with bf16[4, 8] in where: 3 vs 8 at axis -1");
  ok_type("y = clip(x, min=-1.5, max=6)", "y", "bf16[4, 8]");
  ok_type("y = clip(x, min=0)", "y", "bf16[4, 8]");
  bad("y = clip(x)",
      "clip needs min=, max= or both, like clip(x, min=0, max=6)");
  bad("y = clip(x, min=2, max=1)",
      "clip min=2 is more than max=1; every element would be 1");
  static const char *const unary[] = {"erf", "hardsigmoid", "hardswish",
                                      "softplus"};
  for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++) {
    char body[64];
    snprintf(body, sizeof body, "y = %s(x3)", unary[i]);
    ok_type(body, "y", "bf16[2, 3, 4]");
  }
  ok_type("y = gelu(x, approximate=\"none\")", "y", "bf16[4, 8]");
  ok_type("y = gelu(x, approximate=\"tanh\")", "y", "bf16[4, 8]");
  bad("y = gelu(x, approximate=\"erf\")",
      "keyword 'approximate' takes \"none\" or \"tanh\"");
  bad("y = gelu(x, approximate=none)",
      "keyword 'approximate' takes \"none\" or \"tanh\"");
  ok_type("input cs : [3, 4]\ny = rope(x3, cs, cs)", "y", "bf16[2, 3, 4]");
  bad("input cs : [3, 4]\ny = rope(x3, cs, v8)",
      "rope sin bf16[8] does not broadcast to x bf16[2, 3, 4]");
  bad("input o : [2, 3]\ny = rope(o, o, o)",
      "rope needs an even last dim of x (rotate_half splits it in two), got "
      "bf16[2, 3]");
  /* the weights, as ops.c states them */
  static const struct { const char *op; double w; } rows[] = {
      {"where", 1}, {"clip", 1}, {"erf", 1}, {"gelu", 5}, {"hardsigmoid", 4},
      {"hardswish", 5}, {"softplus", 3}, {"rope", 3}, {"batchnorm", 2},
      {"groupnorm", 8}, {"instancenorm", 8}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    ck_assert_msg(op_lookup(rows[i].op)->flops_per_element == rows[i].w, "%s",
                  rows[i].op);
}
END_TEST

START_TEST(test_issue18_norms_convs) {
  const char *nchw = "input a : [2, 8, 4, 4]\nweight p : [8]\n";
  char body[512];
#define WITH(s) (snprintf(body, sizeof body, "%s%s", nchw, s), body)
  ok_type(WITH("y = batchnorm(a, p, p, p, p, epsilon=1e-5)"), "y",
          "bf16[2, 8, 4, 4]");
  bad(WITH("weight q : [4]\ny = batchnorm(a, p, p, q, p)"),
      "batchnorm parameter bf16[4] must be [C] = [8], the channels of x");
  bad(WITH("y = batchnorm(v8, p, p, p, p)"),
      "batchnorm expects x [N, C, ...] of rank 2 or more, got bf16[8]");
  ok_type(WITH("y = groupnorm(a, p, p, groups=4)"), "y", "bf16[2, 8, 4, 4]");
  bad(WITH("y = groupnorm(a, p, p, groups=3)"),
      "groupnorm channels 8 are not a multiple of groups=3");
  bad(WITH("y = groupnorm(a, p, p)"),
      "missing required keyword 'groups' for groupnorm");
  ok_type(WITH("y = instancenorm(a)"), "y", "bf16[2, 8, 4, 4]");
  ok_type(WITH("y = instancenorm(a, p, p)"), "y", "bf16[2, 8, 4, 4]");
  bad(WITH("y = instancenorm(x)"),
      "instancenorm expects x [N, C, ...] of rank 3 or more, got bf16[4, 8]");
  /* bias= */
  ok_type("weight w : [8, 16]\nweight b : [16]\ny = matmul(x, w, bias=b)", "y",
          "bf16[4, 16]");
  bad("weight w : [8, 16]\nweight b : [8]\ny = matmul(x, w, bias=b)",
      "matmul bias bf16[8] does not broadcast to the output bf16[4, 16]; a "
      "linear layer's bias is [N] = [16]");
  ok_type(WITH("weight w : [16, 8, 3, 3]\nweight b : [16]\n"
               "y = conv2d(a, w, padding=1, bias=b)"),
          "y", "bf16[2, 16, 4, 4]");
  bad(WITH("weight w : [16, 8, 3, 3]\ny = conv2d(a, w, bias=p)"),
      "conv2d bias bf16[8] must be [Cout] = [16]");
  /* conv1d, depthwise included; conv3d */
  ok_type("input s : [2, 80, 3000]\nweight w : [384, 80, 3]\n"
          "y = conv1d(s, w, stride=2, padding=1)",
          "y", "bf16[2, 384, 1500]");
  ok_type("input s : [2, 80, 30]\nweight w : [80, 1, 3]\n"
          "y = conv1d(s, w, padding=1, groups=80)",
          "y", "bf16[2, 80, 30]");
  bad("input s : [2, 80, 2]\nweight w : [384, 80, 3]\ny = conv1d(s, w)",
      "conv1d output length would be 0: input 2 with window 3, padding 0, "
      "dilation 1");
  bad("weight w : [8, 4, 3]\ny = conv1d(x3, w)",
      "conv1d channels differ: input has 3, weight expects 4 (4 x groups=1)");
  ok_type("input v : [1, 4, 8, 16, 16]\nweight w : [8, 4, 3, 3, 3]\n"
          "y = conv3d(v, w, padding=1, stride=[1, 2, 2])",
          "y", "bf16[1, 8, 8, 8, 8]");
  bad("input v : [1, 4, 8, 16, 16]\nweight w : [8, 4, 3, 3, 3]\n"
      "y = conv3d(v, w, stride=[1, 2])",
      "keyword 'stride' takes one integer or [d, h, w], got a list of 2");
  bad("weight w : [8, 4, 3, 3, 3]\ny = conv3d(x3, w)",
      "conv3d expects input [N, C, D, H, W] of rank 5, got bf16[2, 3, 4]");
  /* conv_transpose2d: (H-1)*s - 2p + d(k-1) + output_padding + 1 */
  ok_type("input t : [1, 16, 8, 8]\nweight w : [16, 8, 4, 4]\n"
          "y = conv_transpose2d(t, w, stride=2, padding=1)",
          "y", "bf16[1, 8, 16, 16]");
  ok_type("input t : [1, 16, 8, 8]\nweight w : [16, 4, 3, 3]\n"
          "y = conv_transpose2d(t, w, stride=2, padding=1, output_padding=1, "
          "groups=2)",
          "y", "bf16[1, 8, 16, 16]");
  ok_type("input t : [1, 16, 8, 8]\nweight w : [16, 8, 4, 4]\n"
          "weight b : [8]\n"
          "y = conv_transpose2d(t, w, stride=2, padding=1, bias=b)",
          "y", "bf16[1, 8, 16, 16]");
  bad("input t : [1, 16, 8, 8]\nweight w : [16, 8, 4, 4]\n"
      "y = conv_transpose2d(t, w, bias=t)",
      "conv_transpose2d bias bf16[1, 16, 8, 8] must be [Cout] = [8]");
  bad("weight w : [8, 16]\ny = matmul(x, w, bias=3)",
      "expected a tensor name, got int");
  bad("input t : [1, 16, 8, 8]\nweight w : [16, 8, 3, 3]\n"
      "y = conv_transpose2d(t, w, stride=2, output_padding=2)",
      "conv_transpose2d output_padding 2 must be smaller than the stride 2 or "
      "the dilation 1");
  bad("input t : [1, 16, 8, 8]\nweight w : [8, 8, 3, 3]\n"
      "y = conv_transpose2d(t, w)",
      "conv_transpose2d channels differ: input has 16, weight [Cin, "
      "Cout/groups, kh, kw] has Cin = 8");
  bad("input t : [1, 16, 1, 1]\nweight w : [16, 8, 1, 1]\n"
      "y = conv_transpose2d(t, w, padding=1)",
      "conv_transpose2d output height would be -1: input 1, stride 1, "
      "padding 1, window 1");
#undef WITH
}
END_TEST

/* R-SHAPE-001, R-DTYPE-004, R-OP-003: numpy broadcasting; a number is a scalar and does not widen. */
START_TEST(test_binary) {
  ok_type("y = add(x, v8)", "y", "bf16[4, 8]");
  ok_type("input a : [4, 1]\ninput b : [1, 8]\ny = mul(a, b)", "y",
          "bf16[4, 8]");
  ok_type("y = mul(x, 2)", "y", "bf16[4, 8]");
  ok_type("y = sub(2.5, x)", "y", "bf16[4, 8]");
  ok_type("y = div(x, -1)", "y", "bf16[4, 8]");
  ok_type("input f : fp32[8]\ny = maximum(x, f)", "y", "fp32[4, 8]");
  ok_type("input i : int32[8]\ny = minimum(i, 3)", "y", "int32[8]");
  ok_type("input i : int32[8]\ny = pow(i, x)", "y", "bf16[4, 8]");
  bad("input z : [4, 9]\ny = add(x, z)",
      "cannot broadcast bf16[4, 8] with bf16[4, 9] in add: 8 vs 9 at axis -1");
  bad("input h : fp16[4, 8]\ny = add(x, h)",
      "mixed dtypes bf16 and fp16 in add; insert a cast");
  bad("y = add(1, 2)",
      "add needs at least one tensor operand; use 'let' for arithmetic on "
      "numbers");
  bad("y = add(x)", "add takes 2 operands, got 1");
  bad("y = relu(x, x)", "relu takes 1 operand, got 2");
  bad("y = relu(2)", "expected a tensor name, got int");
}
END_TEST

START_TEST(test_unary) {
  static const char *const ops[] = {"relu", "gelu", "silu", "sigmoid",
                                    "tanh", "exp", "log", "sqrt", "rsqrt",
                                    "neg", "abs", "dropout", "copy",
                                    "to_device", "to_host", "allreduce",
                                    "all_to_all"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    char body[100];
    snprintf(body, sizeof body, "y = %s(x3)", ops[i]);
    ok_type(body, "y", "bf16[2, 3, 4]");
  }
  ok_type("y = cast(x, fp32)", "y", "fp32[4, 8]");
  ok_type("y = cast(x, fp8)", "y", "fp8_e4m3[4, 8]");
  bad("y = cast(x, tf32)",
      "tf32 is a compute precision, not a storage dtype; use fp32 and "
      "precision=tf32 on the op");
  bad("y = cast(x)", "cast takes 2 arguments, like cast(x, fp32), got 1");
  bad("y = cast(x, fp31)", "unknown dtype 'fp31'; did you mean 'fp32'?");
}
END_TEST

/* R-SHAPE-005 */
START_TEST(test_norms_reductions) {
  ok_type("y = softmax(x)", "y", "bf16[4, 8]");
  ok_type("y = softmax(x3, axis=0)", "y", "bf16[2, 3, 4]");
  bad("y = softmax(x, axis=2)",
      "axis 2 is out of range for rank 2 (valid: -2 to 1)");
  bad("y = softmax(x, axis=-3)",
      "axis -3 is out of range for rank 2 (valid: -2 to 1)");
  ok_type("weight g, b : [8]\ny = layernorm(x, g, b)", "y", "bf16[4, 8]");
  ok_type("weight g : [3, 4]\ny = layernorm(x3, g, axis=1)", "y",
          "bf16[2, 3, 4]");
  bad("weight g : [4]\ny = layernorm(x, g)",
      "layernorm parameter bf16[4] does not match the normalised dims [8]");
  ok_type("weight w : fp32[8]\ny = rmsnorm(x, w)", "y", "fp32[4, 8]");
  bad("y = rmsnorm(x)", "rmsnorm takes 2 operands, got 1");
  ok_type("y = sum(x3, axis=1)", "y", "bf16[2, 4]");
  ok_type("y = mean(x3, axis=-1, keepdims=true)", "y", "bf16[2, 3, 1]");
  ok_type("y = max(v8, axis=0)", "y", "bf16[]");
  bad("y = max(x)", "missing required keyword 'axis' for max");
  bad("y = sum(x, axis=0, keepdims=1)", "keyword 'keepdims' takes true or false, got 1");
}
END_TEST

/* R-SHAPE-002, R-DTYPE-005. numpy matmul: 1-D operands promoted then demoted; batch dims broadcast. */
START_TEST(test_matmul) {
  ok_type("weight w : [8, 16]\ny = matmul(x, w)", "y", "bf16[4, 16]");
  ok_type("weight w : [8, 16]\ny = matmul(v8, w)", "y", "bf16[16]");
  ok_type("y = matmul(x, v8)", "y", "bf16[4]");
  ok_type("y = matmul(v8, v8)", "y", "bf16[]");
  ok_type("input a : [3, 1, 4, 8]\ninput b : [5, 8, 16]\ny = matmul(a, b)",
          "y", "bf16[3, 5, 4, 16]");
  ok_type("weight w : fp32[8, 16]\ny = matmul(x, w)", "y", "fp32[4, 16]");
  bad("weight w : [9, 16]\ny = matmul(x, w)",
      "matmul inner dimensions differ: bf16[4, 8] x bf16[9, 16] (8 vs 9)");
  bad("input a : [2, 4, 8]\ninput b : [3, 8, 16]\ny = matmul(a, b)",
      "cannot broadcast bf16[2] with bf16[3] in matmul: 2 vs 3 at axis -1");
  bad("weight w : fp16[8, 16]\ny = matmul(x, w)",
      "mixed dtypes bf16 and fp16 in matmul; insert a cast");
  TestCtx *tc = run_body("weight w : fp32[8, 16]\ny = matmul(x, w, precision=tf32)");
  ck_assert_int_eq(tc->diags.n, 0);
  ck_assert_int_eq(tc_node(tc, "y")->precision, DT_TF32);
  ck_assert(tc_node(tc, "y")->precision_explicit);
  tc_free(tc);
  tc = run_body("weight w : fp32[8, 16]\ny = matmul(x, w)");
  ck_assert_int_eq(tc_node(tc, "y")->precision, DT_FP32);
  ck_assert(!tc_node(tc, "y")->precision_explicit);
  tc_free(tc);
}
END_TEST

/* R-SHAPE-003 (conv2d), R-SHAPE-010 (pools) */
START_TEST(test_conv_pool) {
  /* ResNet-50 stem */
  ok_type("input img : [1, 3, 224, 224]\nweight w : [64, 3, 7, 7]\n"
          "y = conv2d(img, w, stride=2, padding=3)",
          "y", "bf16[1, 64, 112, 112]");
  ok_type("input a : [1, 32, 56, 56]\nweight w : [32, 1, 3, 3]\n"
          "y = conv2d(a, w, groups=32, padding=1)",
          "y", "bf16[1, 32, 56, 56]");
  ok_type("input a : [1, 3, 32, 32]\nweight w : [8, 3, 3, 3]\n"
          "y = conv2d(a, w, dilation=2, stride=[1, 2])",
          "y", "bf16[1, 8, 28, 14]");
  bad("input img : [1, 3, 224, 224]\nweight w : [64, 4, 7, 7]\n"
      "y = conv2d(img, w)",
      "conv2d channels differ: input has 3, weight expects 4 (4 x groups=1)");
  bad("input a : [1, 4, 8, 8]\nweight w : [30, 1, 3, 3]\n"
      "y = conv2d(a, w, groups=4)",
      "conv2d output channels 30 are not a multiple of groups=4");
  bad("input a : [1, 3, 4, 4]\nweight w : [8, 3, 7, 7]\ny = conv2d(a, w)",
      "conv2d output height would be 0: input 4 with window 7, padding 0, "
      "dilation 1");
  bad("weight w : [8, 3, 7, 7]\ny = conv2d(x, w)",
      "conv2d expects input [N, C, H, W] of rank 4, got bf16[4, 8]");
  bad("input a : [1, 3, 8, 8]\nweight w : [8, 3, 3, 3]\n"
      "y = conv2d(a, w, stride=0)",
      "keyword 'stride' must be at least 1, got 0");
  bad("input a : [1, 3, 8, 8]\nweight w : [8, 3, 3, 3]\n"
      "y = conv2d(a, w, stride=[1, 2, 3])",
      "keyword 'stride' takes one integer or [h, w], got a list of 3");
  ok_type("input a : [1, 64, 112, 112]\n"
          "y = maxpool2d(a, kernel=3, stride=2, padding=1)",
          "y", "bf16[1, 64, 56, 56]");
  ok_type("input a : [1, 2048, 7, 7]\ny = avgpool2d(a, kernel=7)", "y",
          "bf16[1, 2048, 1, 1]");
  ok_type("input a : [1, 1, 5, 5]\ny = maxpool2d(a, kernel=2)", "y",
          "bf16[1, 1, 2, 2]");
  ok_type("input a : [1, 1, 5, 5]\ny = maxpool2d(a, kernel=2, ceil_mode=true)",
          "y", "bf16[1, 1, 3, 3]");
  bad("input a : [1, 1, 5, 5]\ny = maxpool2d(a)",
      "missing required keyword 'kernel' for maxpool2d");
  bad("input a : [1, 1, 5, 5]\ny = maxpool2d(a, kernel=2, padding=2)",
      "maxpool2d padding 2 is more than half the kernel 2");
  /* 1-D and 3-D windows: (10 + 2 - 3) / 2 + 1 = 5 */
  ok_type("input a : [1, 4, 10]\ny = maxpool1d(a, kernel=3, stride=2, padding=1)",
          "y", "bf16[1, 4, 5]");
  ok_type("input a : [2, 4, 10]\ny = avgpool1d(a, kernel=10)", "y",
          "bf16[2, 4, 1]");
  ok_type("input a : [1, 2, 4, 8, 8]\ny = avgpool3d(a, kernel=2)", "y",
          "bf16[1, 2, 2, 4, 4]");
  /* depth (4 - 2) + 1 = 3; height ceil((8 + 2 - 3) / 2) + 1 = 5 */
  ok_type("input a : [1, 2, 4, 8, 8]\ny = maxpool3d(a, kernel=[2, 3, 3], "
          "stride=[1, 2, 2], padding=[0, 1, 1], ceil_mode=true)",
          "y", "bf16[1, 2, 3, 5, 5]");
  bad("input a : [1, 4, 10, 3]\ny = maxpool1d(a, kernel=3)",
      "maxpool1d expects input [N, C, L] of rank 3, got bf16[1, 4, 10, 3]");
  bad("input a : [1, 2, 8, 8]\ny = avgpool3d(a, kernel=2)",
      "avgpool3d expects input [N, C, D, H, W] of rank 5, got bf16[1, 2, 8, 8]");
  bad("input a : [1, 2, 4, 8, 8]\ny = maxpool3d(a, kernel=[2, 2])",
      "keyword 'kernel' takes one integer or [d, h, w], got a list of 2");
  bad("input a : [1, 4, 10]\ny = avgpool1d(a, kernel=2, padding=2)",
      "avgpool1d padding 2 is more than half the kernel 2");
}
END_TEST

/* R-SHAPE-004 */
START_TEST(test_attention) {
  ok_type("input q : [2, 32, 128, 64]\ninput k, v : [2, 8, 512, 64]\n"
          "y = attention(q, k, v, causal=true)",
          "y", "bf16[2, 32, 128, 64]");
  ok_type("input q : [32, 1, 128]\ninput k : [32, 4096, 128]\n"
          "input v : [32, 4096, 64]\ny = attention(q, k, v)",
          "y", "bf16[32, 1, 64]");
  bad("input q : [2, 32, 128, 64]\ninput k, v : [2, 6, 512, 64]\n"
      "y = attention(q, k, v)",
      "attention query heads 32 are not a multiple of key/value heads 6");
  bad("input q : [2, 32, 128, 64]\ninput k, v : [2, 8, 512, 128]\n"
      "y = attention(q, k, v)",
      "attention head dim of q and k differ: 64 vs 128");
  /* a 2-D q [S, d] is one head, as torch's scaled_dot_product_attention
   * takes it (issue 16 item 25) */
  ok_type("y = attention(x, x, x)", "y", "bf16[4, 8]");
  ok_type("input q : [128, 64]\ninput k, v : [256, 64]\ny = attention(q, k, v)",
          "y", "bf16[128, 64]");
  bad("input z : [8]\ny = attention(z, z, z)",
      "attention q must be [..., heads, seq, dim] or [seq, dim], got bf16[8]");
  bad("input q, k, v : [2, 8, 16, 64]\ny = attention(q, k, v, causal=1)",
      "keyword 'causal' takes true or false, got 1");
}
END_TEST

/* R-SHAPE-004: a layout that reads as more heads than positions, and as
 * valid grouped-query attention with the two swapped, is the transpose
 * forgotten (issue 16 item 25): q [1, 128, 32, 128] with k, v
 * [1, 128, 8, 128] is read as H = 128 of Sq = 32 over Skv = 8 (4 * 128 * 32
 * * 8 * 128 = 16.8 M FLOPs) where [B, S, H, d] means 32 heads of 128 over
 * 128: 4 * 32 * 128 * 128 * 128 = 268.4 M, 16x more.  One warning, with a
 * note; a decode step (H = 32 > Sq = 1 but Skv = 2048 > Hkv = 8) and a
 * prefill in the right layout get none. */
START_TEST(test_attention_layout) {
  TestCtx *tc = run_body("input q : [1, 128, 32, 128]\ninput k, v : [1, 128, 8, 128]\n"
                         "y = attention(q, k, v)");
  ck_assert_msg(tc->diags.n == 1 && tc->diags.items[0]->sev == SEV_WARNING, "%s",
                tc_render(tc));
  ck_assert_str_eq(tc->diags.items[0]->msg,
                   "attention reads q bf16[1, 128, 32, 128] as 128 heads of 32 "
                   "queries and k bf16[1, 128, 8, 128] as 128 heads of 8 keys: "
                   "more heads than positions; is it [..., seq, heads, dim] with "
                   "the transpose forgotten?");
  ck_assert_int_eq(tc->diags.items[0]->nnotes, 1);
  tc_free(tc);
  ok_type("input q : [4, 32, 1, 128]\ninput k, v : [4, 8, 2048, 128]\n"
          "y = attention(q, k, v)", "y", "bf16[4, 32, 1, 128]");
  ok_type("input q : [1, 32, 128, 128]\ninput k, v : [1, 8, 128, 128]\n"
          "y = attention(q, k, v)", "y", "bf16[1, 32, 128, 128]");
}
END_TEST

/* R-SHAPE-006 R-SHAPE-007 R-SHAPE-008 R-SHAPE-009 */
START_TEST(test_views_movement) {
  ok_type("y = reshape(x, [2, -1])", "y", "bf16[2, 16]");
  ok_type("y = reshape(x, [32])", "y", "bf16[32]");
  bad("y = reshape(x, [2, -1, -1])", "reshape allows only one -1");
  bad("y = reshape(x, [5, 7])",
      "reshape changes the element count: bf16[4, 8] has 32, [5, 7] has 35");
  bad("y = reshape(x, [5, -1])",
      "reshape cannot infer -1: 32 elements of bf16[4, 8] are not a multiple "
      "of 5");
  bad("y = reshape(x, [0, 32])",
      "dimension must be positive (or -1 to infer), got 0");
  bad("y = reshape(x, 32)",
      "reshape takes a list as its second argument, like reshape(x, [B, -1])");
  ok_type("y = transpose(x3, [2, 0, 1])", "y", "bf16[4, 2, 3]");
  ok_type("y = transpose(x3, [-1, 0, 1])", "y", "bf16[4, 2, 3]");
  bad("y = transpose(x3, [0, 0, 1])",
      "transpose needs a permutation of 0..2, got [0, 0, 1]");
  bad("y = transpose(x3, [1, 0])",
      "transpose needs a permutation of 0..2, got [1, 0]");
  ok_type("input a : [2, 8]\ninput b : [3, 8]\ny = concat([a, b, a])", "y",
          "bf16[7, 8]");
  ok_type("input a : [2, 8]\ninput c : [2, 4]\ny = concat([a, c], axis=-1)",
          "y", "bf16[2, 12]");
  bad("input a : [2, 8]\ninput c : [2, 4]\ny = concat([a, c])",
      "concat along axis 0 needs equal other dims: bf16[2, 8] and bf16[2, 4]");
  bad("y = concat(x, x)",
      "concat takes one list of tensors, like concat([a, b], axis=0)");
  ok_type("input ids : int32[2, 16]\nweight t : [32000, 4096]\n"
          "y = embedding(ids, t)",
          "y", "bf16[2, 16, 4096]");
  bad("weight t : [32000, 4096]\ny = embedding(x, t)",
      "embedding ids must have an integer dtype, got bf16[4, 8]");
}
END_TEST

/* R-VIEW-001 R-VIEW-002 R-VIEW-003 R-VIEW-004 R-VIEW-005: slice, select,
 * squeeze, unsqueeze, flatten,
 * expand (x3 is bf16[2, 3, 4], x bf16[4, 8]). */
START_TEST(test_new_views) {
  /* x[:, 1:] and x[:, -7:100:3]: 7 entries 1..7, then 1, 4, 7 (3) */
  ok_type("y = slice(x, axis=1, start=1)", "y", "bf16[4, 7]");
  ok_type("y = slice(x, axis=-1, start=-7, end=100, step=3)", "y", "bf16[4, 3]");
  ok_type("y = slice(x, axis=0, start=-100, end=-1)", "y", "bf16[3, 8]");
  bad("y = slice(x, axis=1, start=8)",
      "slice of axis 1 (size 8) is empty: start 8, end 8 clamp to 8..8; "
      "start must be below end and the axis size");
  bad("y = slice(x, axis=1, start=3, end=-6)",
      "slice of axis 1 (size 8) is empty: start 3, end -6 clamp to 3..2; "
      "start must be below end and the axis size");
  bad("y = slice(x, axis=1, step=0)", "keyword 'step' must be at least 1, got 0");
  bad("y = slice(x, start=1)", "missing required keyword 'axis' for slice");
  ok_type("y = select(x3, axis=1, index=-1)", "y", "bf16[2, 4]");
  bad("y = select(x3, axis=1, index=3)",
      "select index 3 is out of range for axis 1 of size 3 (valid: -3 to 2)");
  ok_type("y = unsqueeze(x, axis=0)", "y", "bf16[1, 4, 8]");
  ok_type("y = unsqueeze(x, axis=-1)", "y", "bf16[4, 8, 1]");
  ok_type("y = squeeze(unsqueeze(x, axis=1), axis=1)", "y", "bf16[4, 8]");
  bad("y = squeeze(x, axis=1)",
      "squeeze axis 1 has size 8, not 1; select(x, axis=1, index=i) takes "
      "one entry of it");
  bad("y = unsqueeze(x, axis=3)",
      "axis 3 is out of range for rank 3 (valid: -3 to 2)");
  ok_type("y = flatten(x3)", "y", "bf16[24]");
  ok_type("y = flatten(x3, start=1)", "y", "bf16[2, 12]");
  ok_type("y = flatten(x3, start=0, end=-2)", "y", "bf16[6, 4]");
  bad("y = flatten(x3, start=2, end=1)",
      "flatten start 2 comes after end 1; start <= end");
  ok_type("input c : [1, 1, 8]\ny = expand(c, [4, 16, -1])", "y",
          "bf16[4, 16, 8]");
  ok_type("y = expand(v8, [2, 3, 8])", "y", "bf16[2, 3, 8]");
  bad("y = expand(x, [4, 16])",
      "expand bf16[4, 8] cannot expand to [4, 16]: dim 1 is 8, not 1; only "
      "size-1 dims broadcast");
  bad("y = expand(x, [8])",
      "expand of bf16[4, 8] needs at least 2 dims, got [8]");
  bad("y = expand(v8, [-1, 8])",
      "expand -1 at dim 0, a new leading dim, has no size to keep; give its "
      "size");
  bad("y = expand(x, 4)",
      "expand takes a list as its second argument, like expand(x, [B, -1])");
}
END_TEST

/* R-VIEW-008 split, R-NAME-009 several results (x is bf16[4, 8]) */
START_TEST(test_split) {
  TestCtx *tc = run_body("q, k, v, w = split(x, 4, axis=-1)\n"
                         "a, b = split(x, [1, 3])\noutput q, k, v, w, a, b");
  ck_assert_msg(tc->diags.n == 0, "%s", tc_render(tc));
  const char *names[] = {"q", "k", "v", "w"};
  for (int i = 0; i < 4; i++) {
    const GNode *g = tc_node(tc, names[i]);
    char buf[64];
    ck_assert_str_eq(op_type_str(buf, sizeof buf, g->type), "bf16[4, 2]");
    ck_assert_int_eq(g->args->start, 2 * i); /* columns 2i .. 2i+2 */
    ck_assert_int_eq(g->args->end, 2 * i + 2);
    ck_assert_int_eq(g->inputs[0], 0); /* all views of x */
  }
  char buf[64];
  ck_assert_str_eq(op_type_str(buf, sizeof buf, tc_node(tc, "a")->type), "bf16[1, 8]");
  ck_assert_str_eq(op_type_str(buf, sizeof buf, tc_node(tc, "b")->type), "bf16[3, 8]");
  ck_assert_int_eq(tc_node(tc, "b")->args->start, 1);
  ck_assert_int_eq(tc_node(tc, "x")->nconsumers, 6);
  tc_free(tc);
  bad("q, k, v = split(x, 3, axis=1)",
      "split of axis 1 (size 8) into 3 equal parts does not divide: 8 = 3 x 2 "
      "+ 2; give the sizes as a list");
  bad("a, b = split(x, [3, 3])",
      "split sizes [3, 3] add up to 6, not the size 4 of axis 0");
  bad("a, b = split(x, 4)",
      "split gives 4 results, 2 names are bound to them; write one name per "
      "part: a, b, c = split(...)");
  bad("y = split(x, 2)",
      "split gives 2 results, 1 name is bound to them; write a, b = split(...)");
  bad("a, b = relu(x)", "relu gives one result, not 2; bind it to one name");
  bad("a, b = split(x, 0)", "split takes 1 to 65536 parts, got 0");
  bad("a, b = split(x, [-1, 5])", "split sizes must be positive, got -1");
  bad("a, b = split(x)",
      "split takes 2 arguments, like split(x, 3, axis=-1), got 1");
  bad("a, b = 2", "expected an op application with 2 results, like 'a, b = "
      "split(x, 2, axis=-1)'");
}
END_TEST

/* R-MOVE-001 gather, R-MOVE-002 scatter_add, R-MOVE-003 pad, R-MOVE-004
 * interpolate (x is bf16[4, 8], x3 bf16[2, 3, 4]) */
START_TEST(test_movement_ops) {
  ok_type("input i : int64[5, 6]\ny = gather(x3, i, axis=1)", "y",
          "bf16[2, 5, 6, 4]");
  ok_type("input i : int32[3]\ny = gather(x, i)", "y", "bf16[3, 8]");
  bad("y = gather(x, v8, axis=1)",
      "gather index must have an integer dtype, got bf16[8]; declare it "
      "int64[...] or cast(index, int64)");
  ok_type("input i : int64[2, 8]\ninput s : [2, 8]\ny = scatter_add(x, i, s)",
          "y", "bf16[4, 8]");
  bad("input i : int64[2, 9]\ninput s : [2, 9]\ny = scatter_add(x, i, s)",
      "scatter_add needs idx and src of one shape, x's rank, and no larger "
      "than x off axis 0: x bf16[4, 8], idx int64[2, 9], src bf16[2, 9]");
  bad("input i : int64[2, 8]\ninput s : fp32[2, 8]\ny = scatter_add(x, i, s)",
      "scatter_add src fp32[2, 8] is not x's dtype bf16; insert a cast");
  ok_type("y = pad(x3, [0, 1, 2, 0, 1, 2])", "y", "bf16[2, 5, 8]");
  ok_type("y = pad(x, [1, 0, 1, 0], value=-1e4)", "y", "bf16[6, 8]");
  bad("y = pad(x, [1, 1])",
      "pad of bf16[4, 8] takes 4 pads (before then after, per axis), got 2");
  bad("y = pad(x, [0, -1, 0, 0])", "pad must not be negative, got -1; slice crops");
  ok_type("y = interpolate(x3, scale=2)", "y", "bf16[2, 3, 8]");
  ok_type("input im : [1, 4, 8, 8]\ny = interpolate(im, scale=2, mode=\"linear\")",
          "y", "bf16[1, 4, 16, 16]");
  bad("y = interpolate(x3, scale=2, mode=\"cubic\")",
      "keyword 'mode' takes \"nearest\" or \"linear\"");
  bad("y = interpolate(x, scale=2)",
      "interpolate expects [N, C, spatial...] of rank 3 or more, got bf16[4, 8]");
  /* size=: the spatial dims themselves */
  ok_type("input im : [1, 4, 4, 6]\ny = interpolate(im, size=[6, 9])", "y",
          "bf16[1, 4, 6, 9]");
  ok_type("y = interpolate(x3, size=[2])", "y", "bf16[2, 3, 2]");
  bad("y = interpolate(x3)", "interpolate needs scale= or size=");
  bad("y = interpolate(x3, scale=2, size=[8])",
      "interpolate takes scale= or size=, not both");
  bad("y = interpolate(x3, size=[8, 8])",
      "interpolate size= has 2 entries; x bf16[2, 3, 4] has 1 spatial dims");
  bad("y = interpolate(x3, size=8)",
      "keyword 'size' takes a list of 1 to 8 integers, like [64, 64]");
  bad("y = interpolate(x3, size=[0])", "keyword 'size' must be at least 1, got 0");
}
END_TEST

/* R-LOSS-001 cross_entropy (x3 is bf16[2, 3, 4]) */
START_TEST(test_cross_entropy) {
  ok_type("input l : int64[2, 3]\ny = cross_entropy(x3, l)", "y", "bf16[]");
  ok_type("input l : int32[2, 4]\ny = cross_entropy(x3, l, axis=1)", "y",
          "bf16[]");
  bad("input l : [2, 3]\ny = cross_entropy(x3, l)",
      "cross_entropy labels must have an integer dtype, got bf16[2, 3]; "
      "declare it int64[...] or cast(labels, int64)");
  bad("input l : int64[2, 4]\ny = cross_entropy(x3, l)",
      "cross_entropy labels int64[2, 4] must have the dims of logits bf16[2, "
      "3, 4] without the class axis 2");
}
END_TEST

/* R-SHAPE-011 (collectives, data-parallel degree), R-SHAPE-012 (custom) */
START_TEST(test_collective_custom) {
  ok_type("parallel { nodes = 1; gpus_per_node = 8 }\ny = allgather(x)", "y",
          "bf16[32, 8]");
  ok_type("parallel { gpus_per_node = 8 }\ny = reduce_scatter(x, axis=1)",
          "y", "bf16[4, 1]");
  ok_type("y = reduce_scatter(x)", "y", "bf16[4, 8]");
  bad("parallel { gpus_per_node = 8 }\ny = reduce_scatter(x)",
      "reduce_scatter dim 4 (axis 0) does not divide by the data-parallel "
      "degree 8");
  ok_type("y = custom(x, v8, flops=1e9, bytes=2e6, out=fp32[4, 4])", "y",
          "fp32[4, 4]");
  ok_type("y = custom(flops=0, bytes=8, out=[2])", "y", "bf16[2]");
  bad("y = custom(x, flops=1, bytes=2)",
      "missing required keyword 'out' for custom");
  bad("y = custom(x, flops=-1, bytes=2, out=[2])",
      "keyword 'flops' must not be negative, got -1");
  TestCtx *tc = run_body("y = custom(x, flops=2e9, bytes=3, out=[2], blocks=7)");
  const GNode *g = tc_node(tc, "y");
  ck_assert(g->args->custom_flops == 2e9 && g->args->custom_bytes == 3);
  ck_assert_int_eq(g->args->blocks, 7);
  tc_free(tc);
}
END_TEST

/* R-KW-001..R-KW-005: keywords are known, given once, of the right type. */
START_TEST(test_keywords) {
  bad("y = softmax(x, axs=0)",
      "unknown keyword 'axs' for softmax; did you mean 'axis'?");
  bad("y = softmax(x, axis=0, axis=1)", "duplicate keyword 'axis'");
  bad("y = relu(x, blocks=0)", "keyword 'blocks' must be at least 1, got 0");
  bad("y = relu(x, precision=bf61)", "unknown dtype 'bf61'");
  bad("y = relu(x, precision=2)",
      "keyword 'precision' takes a dtype, like precision=fp32");
  bad("y = softmax(x, axis=1.5)", "expected an integer, got 1.5");
  ok_type("y = softmax(x, axis=1.0)", "y", "bf16[4, 8]");
  bad("y = relu(x, causal=true)",
      "unknown keyword 'causal' for relu");
}
END_TEST

Suite *ops_suite(void) {
  Suite *s = suite_create("ops");
  TCase *tc = tcase_create("shapes");
  tcase_add_test(tc, test_table);
  tcase_add_test(tc, test_binary);
  tcase_add_test(tc, test_unary);
  tcase_add_test(tc, test_norms_reductions);
  tcase_add_test(tc, test_matmul);
  tcase_add_test(tc, test_conv_pool);
  tcase_add_test(tc, test_issue18_elementwise);
  tcase_add_test(tc, test_issue18_norms_convs);
  tcase_add_test(tc, test_attention);
  tcase_add_test(tc, test_attention_layout);
  tcase_add_test(tc, test_views_movement);
  tcase_add_test(tc, test_new_views);
  tcase_add_test(tc, test_split);
  tcase_add_test(tc, test_movement_ops);
  tcase_add_test(tc, test_cross_entropy);
  tcase_add_test(tc, test_collective_custom);
  tcase_add_test(tc, test_keywords);
  suite_add_tcase(s, tc);
  return s;
}
