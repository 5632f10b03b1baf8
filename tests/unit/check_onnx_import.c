/* SPDX-License-Identifier: MIT */
/* check_onnx_import.c: the ONNX translator (onnx_import.c) on models built
 * by hand in memory, as onnx_read would give them, and the origin grammar
 * it writes (src_origin_parts).  The fixtures of tests/onnx/ops cover the
 * op table through the reader (tests/cli/onnx_import.sh). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "import/onnx.h"

static const OnnxOpset opset17 = {"", 17};

/* A graph of one input x: float[dims], the nodes and initializers given;
 * its value names, by id (onnx.h), names[0, nnames). */
static OnnxModel model_of(OnnxGraph *g, const OnnxValueInfo *in, int nin,
                          const char *const *names, int nnames) {
  g->inputs = in;
  g->ninputs = nin;
  OnnxModel m = {8, &opset17, 1, "hand", "1", g, names, nnames};
  return m;
}

/* Gemm(x [2, 4], w [3, 4], c [3]) with transB: one line, the bias in the
 * epilogue, the weight read through a transpose view; an input named
 * `input` (a keyword) and initializer names that are no identifiers. */
START_TEST(test_gemm_by_hand) {
  static const OnnxDim d24[] = {{2, NULL, true}, {4, NULL, true}};
  static const char *const names[] = {"input", "fc.weight", "fc.bias", "y"};
  static const OnnxValueInfo in[] = {{"input", 0, ONNX_FLOAT, d24, 2, 10, 12}};
  static const int64_t wd[] = {3, 4}, cd[] = {3};
  static const OnnxTensor inits[] = {
      {"fc.weight", 1, ONNX_FLOAT, wd, 2, NULL, NULL, 0, false, 0, 0},
      {"fc.bias", 2, ONNX_FLOAT, cd, 1, NULL, NULL, 0, false, 0, 0}};
  static const char *ins[] = {"input", "fc.weight", "fc.bias"}, *outs[] = {"y"};
  static const int32_t in_ids[] = {0, 1, 2}, out_ids[] = {3};
  static const OnnxAttr attrs[] = {{.name = "transB", .type = ONNX_ATTR_INT, .i = 1}};
  static const OnnxNode nodes[] = {
      {"/fc/Gemm", "Gemm", "", ins, in_ids, 3, outs, out_ids, 1, attrs, 1, 0, 40, 25}};
  static const OnnxValueInfo out[] = {{"y", 3, ONNX_FLOAT, NULL, -1, 0, 0}};
  OnnxGraph g = {.name = "mlp", .nodes = nodes, .nnodes = 1,
                 .initializers = inits, .ninitializers = 2,
                 .outputs = out, .noutputs = 1};
  OnnxModel m = model_of(&g, in, 1, names, 4);
  Imported im;
  ck_assert_int_eq(onnx_translate_model(&m, "m.onnx", NULL, &im), IMPORT_OK);
  ck_assert_str_eq(im.text,
                   "# m.onnx: imported from ONNX by rooflint (exported by hand 1), "
                   "IR version 8, opset 17\n"
                   "model mlp {\n"
                   "  dtype fp32\n"
                   "  input input_ : [2, 4]  # onnx input 0 \"input\"\n"
                   "  weight fc_weight : [3, 4]  # onnx initializer 0 \"fc.weight\"\n"
                   "  weight fc_bias : [3]  # onnx initializer 1 \"fc.bias\"\n"
                   "  y = matmul(input_, transpose(fc_weight, [1, 0]), bias=fc_bias)"
                   "  # onnx #0 Gemm \"/fc/Gemm\"\n"
                   "  output y\n"
                   "}\n");
  ck_assert_uint_eq(im.norigins, 9);
  /* each with the bytes it was read from (R-DIAG-002) */
  ck_assert_str_eq(im.origins[6], "node 0 \"/fc/Gemm\" (Gemm) @40+25");
  ck_assert_str_eq(im.origins[3], "input 0 \"input\" @10+12");
  ck_assert_ptr_null(im.origins[1]);
  free(im.text);
  for (size_t i = 0; i < im.norigins; i++) free(im.origins[i]);
  free(im.origins);
  free(im.diags);
}
END_TEST

/* An op with no row: IMPORT_INVALID and the message names node and op. */
START_TEST(test_unknown_op_by_hand) {
  static const OnnxDim d2[] = {{2, NULL, true}};
  static const char *const names[] = {"x", "y"};
  static const OnnxValueInfo in[] = {{"x", 0, ONNX_FLOAT, d2, 1, 0, 0}};
  static const char *ins[] = {"x"}, *outs[] = {"y"};
  static const int32_t in_ids[] = {0}, out_ids[] = {1};
  static const OnnxNode nodes[] = {
      {"", "Frobnicate", "", ins, in_ids, 1, outs, out_ids, 1, NULL, 0, 4, 0, 0}};
  OnnxGraph g = {.name = "g", .nodes = nodes, .nnodes = 1};
  OnnxModel m = model_of(&g, in, 1, names, 2);
  Imported im;
  ck_assert_int_eq(onnx_translate_model(&m, "m.onnx", NULL, &im), IMPORT_INVALID);
  ck_assert_str_eq(im.error,
                   "m.onnx: node 4 (Frobnicate): op Frobnicate is not one rooflint "
                   "maps (its FLOPs would be unknown); --unknown-ops=custom imports "
                   "it as a custom() costing its bytes only");
  ck_assert_ptr_null(im.text);
  free(im.error);
}
END_TEST

/* import.h's origin grammar, escapes undone (R-ONNX-007). */
START_TEST(test_origin_parts) {
  OriginParts *p = malloc(sizeof *p);
  ck_assert(src_origin_parts("node 12 \"/a\\\"b\\\\c\\x01\" (Conv)", p));
  ck_assert_str_eq(p->kind, "node");
  ck_assert(p->has_index && p->index == 12);
  ck_assert(p->has_name);
  ck_assert_str_eq(p->name, "/a\"b\\c\x01");
  ck_assert_str_eq(p->type, "Conv");
  ck_assert(src_origin_parts("node 3 (Relu)", p));
  ck_assert(!p->has_name && p->index == 3);
  ck_assert(src_origin_parts("dim_param \"batch\"", p));
  ck_assert(!p->has_index && p->type[0] == '\0');
  ck_assert(!src_origin_parts("node 1 \"unterminated", p));
  /* R-DIAG-002: the byte region that ends an origin */
  ck_assert(src_origin_parts("node 7 \"/a @1+2\" (Add) @1834+96", p));
  ck_assert_str_eq(p->name, "/a @1+2");
  ck_assert(p->has_region);
  ck_assert_uint_eq(p->offset, 1834);
  ck_assert_uint_eq(p->length, 96);
  ck_assert(src_origin_parts("key \"hidden_size\" @112+13", p));
  ck_assert(p->has_region && p->offset == 112 && p->length == 13);
  ck_assert(!src_origin_parts("node 1 (Add) @12", p));
  ck_assert(!src_origin_parts("", p));
  free(p);
}
END_TEST

Suite *onnx_import_suite(void) {
  Suite *s = suite_create("onnx_import");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_gemm_by_hand);
  tcase_add_test(tc, test_unknown_op_by_hand);
  tcase_add_test(tc, test_origin_parts);
  suite_add_tcase(s, tc);
  return s;
}
