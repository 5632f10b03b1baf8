/* SPDX-License-Identifier: MIT */
/*
 * dtype.c: the element types of the language, as one constant table (bytes
 * per element, width, float or not, the dimension multiple tensor cores
 * want), plus the spellings of graph roles and op classes.  `fp8` is an
 * alias of fp8_e4m3, the format inference plans mean when they say FP8.
 */
#include <string.h>

#include "rooflint.h"

/* tc_multiple: 16-bit floats want multiples of 8 elements (16 bytes), 8-bit
 * types 16, 4-bit types 32; tf32 runs on 4-element k-steps; the rest do not
 * use tensor cores at all. */
static const DTypeInfo dtype_table[DT__COUNT] = {
    [DT_FP64] = {"fp64", 8, 64, true, 0},
    [DT_FP32] = {"fp32", 4, 32, true, 0},
    [DT_TF32] = {"tf32", 4, 32, true, 4},
    [DT_BF16] = {"bf16", 2, 16, true, 8},
    [DT_FP16] = {"fp16", 2, 16, true, 8},
    [DT_FP8_E4M3] = {"fp8_e4m3", 1, 8, true, 16},
    [DT_FP8_E5M2] = {"fp8_e5m2", 1, 8, true, 16},
    [DT_FP4] = {"fp4", 0.5, 4, true, 32},
    [DT_INT8] = {"int8", 1, 8, false, 16},
    [DT_INT4] = {"int4", 0.5, 4, false, 32},
    [DT_INT32] = {"int32", 4, 32, false, 0},
    [DT_INT64] = {"int64", 8, 64, false, 0},
    [DT_BOOL] = {"bool", 1, 8, false, 0},
};

static const char *const dtype_spellings[] = {
    "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2",
    "fp4", "int8", "int4", "int32", "int64", "bool", NULL,
};

const DTypeInfo *dtype_info(DType t) {
  if (t < 0 || t >= DT__COUNT) die("dtype_info: bad dtype %d", (int)t);
  return &dtype_table[t];
}

const char *dtype_str(DType t) {
  if (t == DT_NONE) return "none";
  return dtype_info(t)->name;
}

DType dtype_parse(const char *name) {
  if (strcmp(name, "fp8") == 0) return DT_FP8_E4M3;
  for (int i = 0; i < DT__COUNT; i++)
    if (strcmp(name, dtype_table[i].name) == 0) return (DType)i;
  return DT_NONE;
}

const char *const *dtype_names(void) { return dtype_spellings; }

static const char *const role_names[] = {
    [ROLE_INPUT] = "input",
    [ROLE_WEIGHT] = "weight",
    [ROLE_HOST] = "host",
    [ROLE_ACTIVATION] = "activation",
    [ROLE_BUFFER] = "buffer",
    [ROLE_CACHE] = "cache",
};

const char *role_str(Role r) { return role_names[r]; }

static const char *const op_class_names[] = {
    [OC_ELEMENTWISE] = "elementwise", [OC_REDUCTION] = "reduction",
    [OC_CONTRACTION] = "contraction", [OC_MOVEMENT] = "movement",
    [OC_VIEW] = "view",               [OC_TRANSFER] = "transfer",
    [OC_COLLECTIVE] = "collective",   [OC_OPAQUE] = "opaque",
};

const char *op_class_str(OpClass c) { return op_class_names[c]; }

/* The wider of two dtypes for promotion: floats over integers, then more
 * bits; a tie keeps `a`.  DT_NONE (a scalar number) never widens. */
DType dtype_wider(DType a, DType b) {
  if (a == DT_NONE) return b;
  if (b == DT_NONE) return a;
  const DTypeInfo *x = dtype_info(a), *y = dtype_info(b);
  if (x->is_float != y->is_float) return y->is_float ? b : a;
  return y->bits > x->bits ? b : a;
}
