/* SPDX-License-Identifier: MIT */
/*
 * fuzz_onnx.c: the libFuzzer harness of the ONNX reader (src/import/onnx_read.c).
 * Arbitrary bytes are read as a serialized ModelProto; on success every
 * field of the model is walked (every string's bytes, every dim, value and
 * nested graph), so a pointer the reader left dangling, a count larger
 * than its array or a string without its NUL is a sanitizer report.  The
 * error message is checked too: it must start "byte N: " with N at most
 * the input's length.  A crash, a sanitizer report, a leak, a timeout or a
 * run-away allocation is a bug.
 *
 * Built by `make fuzz` (tests/fuzz/run.sh runs it with the fixtures of
 * tests/onnx/ as seeds and tests/fuzz/onnx.dict).
 */
#include "import/onnx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t str(const char *s) { return s ? strlen(s) : 0; }

static size_t tensor(const OnnxTensor *t) {
  size_t h = str(t->name) + (size_t)t->data_type + t->offset;
  for (int i = 0; i < t->ndims; i++) h += (size_t)t->dims[i];
  for (int64_t i = 0; i < t->nvalues; i++)
    h += t->ints ? (size_t)t->ints[i] : (size_t)(t->reals[i] == t->reals[i]);
  return h;
}

static size_t value(const OnnxValueInfo *v) {
  size_t h = str(v->name) + (size_t)v->elem_type;
  for (int i = 0; i < v->ndims; i++) h += (size_t)v->dims[i].value + str(v->dims[i].param);
  return h;
}

static size_t graph(const OnnxGraph *g) {
  size_t h = str(g->name);
  for (int i = 0; i < g->ninputs; i++) h += value(&g->inputs[i]);
  for (int i = 0; i < g->noutputs; i++) h += value(&g->outputs[i]);
  for (int i = 0; i < g->nvalue_info; i++) h += value(&g->value_info[i]);
  for (int i = 0; i < g->ninitializers; i++) h += tensor(&g->initializers[i]);
  for (int i = 0; i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    h += str(n->name) + str(n->op_type) + str(n->domain) + (size_t)n->index;
    for (int k = 0; k < n->ninputs; k++) h += str(n->inputs[k]);
    for (int k = 0; k < n->noutputs; k++) h += str(n->outputs[k]);
    for (int k = 0; k < n->nattrs; k++) {
      const OnnxAttr *a = &n->attrs[k];
      h += str(a->name) + str(a->s) + (size_t)a->i + (size_t)(a->f == a->f);
      if (onnx_attr(n, a->name) == NULL) abort(); /* it is there */
      if (a->t) h += tensor(a->t);
      if (a->g) h += graph(a->g);
      switch (a->type) {
      case ONNX_ATTR_INTS: for (int j = 0; j < a->n; j++) h += (size_t)a->ints[j]; break;
      case ONNX_ATTR_FLOATS: for (int j = 0; j < a->n; j++) h += a->floats[j] > 0; break;
      case ONNX_ATTR_STRINGS: for (int j = 0; j < a->n; j++) h += str(a->strings[j]); break;
      case ONNX_ATTR_TENSORS: for (int j = 0; j < a->n; j++) h += tensor(&a->tensors[j]); break;
      case ONNX_ATTR_GRAPHS: for (int j = 0; j < a->n; j++) h += graph(a->graphs[j]); break;
      default: break;
      }
    }
  }
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Arena *a = arena_new();
  OnnxModel m;
  char err[256];
  if (onnx_read(a, data, size, &m, err, sizeof err)) {
    size_t h = str(m.producer_name) + str(m.producer_version) + (size_t)m.ir_version;
    for (int i = 0; i < m.nopsets; i++) h += str(m.opsets[i].domain);
    h += graph(m.graph);
    (void)onnx_dtype_name((int32_t)h);
  } else {
    unsigned long long at = 0;
    if (sscanf(err, "byte %llu: ", &at) != 1 || at > size || !strchr(err, ' ')) abort();
    /* A one-byte buffer still gets a terminated (empty) message. */
    char tiny[1];
    Arena *b = arena_new();
    if (onnx_read(b, data, size, &m, tiny, sizeof tiny) || tiny[0] != '\0') abort();
    arena_free(b);
  }
  arena_free(a);
  return 0;
}
