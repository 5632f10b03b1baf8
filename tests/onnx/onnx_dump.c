/* SPDX-License-Identifier: MIT */
/*
 * onnx_dump.c: prints what onnx_read (src/import/onnx_read.c) made of an ONNX
 * file, in the format tests/onnx/dump.py prints from python3-onnx's
 * onnx.load, so the two can be compared line for line
 * (tests/cli/onnx_read.sh).  One line per item, nested graphs indented:
 *
 *   ir_version 8
 *   producer "pytorch" "2.1.0"
 *   opset "" 13
 *   graph "main"
 *     input "x" FLOAT [batch,3,224,224]      (? an unknown dim; * no shape)
 *     initializer "w" FLOAT [64,3,7,7] -       (- no values kept; ext external)
 *     node 0 "conv" Conv "" in ["x","w"] out ["y"]
 *       attr "pads" INTS [3,3,3,3]
 *
 *   onnx_dump FILE           that listing; exit 0, or 1 with the error
 *   onnx_dump --walk FILE    reads, walks every node and attribute and
 *                            prints only "N nodes" (for the RSS tests)
 *   onnx_dump --bench K FILE reads and walks it K times, each in a fresh
 *                            arena, and prints "N nodes S" with S the
 *                            best CPU time of one read and walk, in
 *                            seconds (CPU time: the machine is shared; the
 *                            reader's rows of `make bench`)
 */
#include "import/onnx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void indent(int d) {
  for (int i = 0; i < d; i++) fputs("  ", stdout);
}

static void real(double x) {
  if (isnan(x)) fputs("nan", stdout);
  else printf("%.17g", x);
}

static void strs(const char *const *s, int n) {
  putchar('[');
  for (int i = 0; i < n; i++) printf("%s\"%s\"", i ? "," : "", s[i]);
  putchar(']');
}

static void tensor(const OnnxTensor *t) {
  printf("\"%s\" %s [", t->name, onnx_dtype_name(t->data_type));
  for (int i = 0; i < t->ndims; i++) printf("%s%lld", i ? "," : "", (long long)t->dims[i]);
  putchar(']');
  if (t->external) {
    fputs(" ext", stdout);
  } else if (!t->ints && !t->reals) {
    fputs(" -", stdout);
  } else {
    fputs(" [", stdout);
    for (int64_t i = 0; i < t->nvalues; i++) {
      if (i) putchar(',');
      if (t->ints) printf("%lld", (long long)t->ints[i]);
      else real(t->reals[i]);
    }
    putchar(']');
  }
}

static void value(const char *what, const OnnxValueInfo *v, int d) {
  indent(d);
  printf("%s \"%s\" %s ", what, v->name, onnx_dtype_name(v->elem_type));
  if (v->ndims < 0) {
    puts("*");
    return;
  }
  putchar('[');
  for (int i = 0; i < v->ndims; i++) {
    if (i) putchar(',');
    if (v->dims[i].has_value) printf("%lld", (long long)v->dims[i].value);
    else if (v->dims[i].param) printf("%s", v->dims[i].param);
    else putchar('?');
  }
  puts("]");
}

static void graph(const OnnxGraph *g, int d);

static void attr(const OnnxAttr *a, int d) {
  static const char *const types[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR",
                                      "GRAPH", "FLOATS", "INTS", "STRINGS", "TENSORS",
                                      "GRAPHS"};
  indent(d);
  printf("attr \"%s\" %s", a->name, a->type >= 0 && a->type <= 10 ? types[a->type] : "OTHER");
  switch (a->type) {
  case ONNX_ATTR_FLOAT: putchar(' '); real(a->f); break;
  case ONNX_ATTR_INT: printf(" %lld", (long long)a->i); break;
  case ONNX_ATTR_STRING: printf(" \"%s\"", a->s ? a->s : ""); break;
  case ONNX_ATTR_TENSOR: putchar(' '); if (a->t) tensor(a->t); break;
  case ONNX_ATTR_FLOATS:
    fputs(" [", stdout);
    for (int i = 0; i < a->n; i++) {
      if (i) putchar(',');
      real(a->floats[i]);
    }
    putchar(']');
    break;
  case ONNX_ATTR_INTS:
    fputs(" [", stdout);
    for (int i = 0; i < a->n; i++) printf("%s%lld", i ? "," : "", (long long)a->ints[i]);
    putchar(']');
    break;
  case ONNX_ATTR_STRINGS: putchar(' '); strs(a->strings, a->n); break;
  default: break;
  }
  putchar('\n');
  if (a->type == ONNX_ATTR_GRAPH && a->g) graph(a->g, d + 1);
  for (int i = 0; a->type == ONNX_ATTR_TENSORS && i < a->n; i++) {
    indent(d + 1);
    fputs("tensor ", stdout);
    tensor(&a->tensors[i]);
    putchar('\n');
  }
  for (int i = 0; a->type == ONNX_ATTR_GRAPHS && i < a->n; i++) graph(a->graphs[i], d + 1);
}

static void graph(const OnnxGraph *g, int d) {
  indent(d);
  printf("graph \"%s\"\n", g->name);
  for (int i = 0; i < g->ninputs; i++) value("input", &g->inputs[i], d + 1);
  for (int i = 0; i < g->noutputs; i++) value("output", &g->outputs[i], d + 1);
  for (int i = 0; i < g->nvalue_info; i++) value("value_info", &g->value_info[i], d + 1);
  for (int i = 0; i < g->ninitializers; i++) {
    indent(d + 1);
    fputs("initializer ", stdout);
    tensor(&g->initializers[i]);
    putchar('\n');
  }
  for (int i = 0; i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    indent(d + 1);
    printf("node %d \"%s\" %s \"%s\" in ", n->index, n->name, n->op_type, n->domain);
    strs(n->inputs, n->ninputs);
    fputs(" out ", stdout);
    strs(n->outputs, n->noutputs);
    putchar('\n');
    for (int k = 0; k < n->nattrs; k++) attr(&n->attrs[k], d + 2);
  }
}

/* onnx.h's invariant of value names: "" is id -1, any other name's id
 * spells it in m->names and is that very copy. */
static bool id_ok(const OnnxModel *m, const char *name, int32_t id) {
  if (!name[0]) return id == -1;
  return id >= 0 && id < m->nnames && m->names[id] == name;
}

static bool values_ok(const OnnxModel *m, const OnnxValueInfo *v, int n) {
  for (int i = 0; i < n; i++)
    if (!id_ok(m, v[i].name, v[i].id)) return false;
  return true;
}

static bool ids_ok(const OnnxModel *m, const OnnxGraph *g) {
  bool ok = values_ok(m, g->inputs, g->ninputs) && values_ok(m, g->outputs, g->noutputs) &&
            values_ok(m, g->value_info, g->nvalue_info);
  for (int i = 0; ok && i < g->ninitializers; i++)
    ok = id_ok(m, g->initializers[i].name, g->initializers[i].id);
  for (int i = 0; ok && i < g->nnodes; i++) {
    const OnnxNode *n = &g->nodes[i];
    for (int k = 0; ok && k < n->ninputs; k++) ok = id_ok(m, n->inputs[k], n->input_ids[k]);
    for (int k = 0; ok && k < n->noutputs; k++) ok = id_ok(m, n->outputs[k], n->output_ids[k]);
    for (int k = 0; ok && k < n->nattrs; k++) {
      const OnnxAttr *a = &n->attrs[k];
      if (a->g) ok = ids_ok(m, a->g);
      for (int j = 0; ok && a->type == ONNX_ATTR_GRAPHS && j < a->n; j++)
        ok = ids_ok(m, a->graphs[j]);
    }
  }
  return ok;
}

/* Every node of g and of the graphs in its attributes. */
static long walk(const OnnxGraph *g) {
  long n = g->nnodes;
  for (int i = 0; i < g->nnodes; i++)
    for (int k = 0; k < g->nodes[i].nattrs; k++) {
      const OnnxAttr *a = &g->nodes[i].attrs[k];
      if (a->g) n += walk(a->g);
      for (int j = 0; a->type == ONNX_ATTR_GRAPHS && j < a->n; j++) n += walk(a->graphs[j]);
    }
  return n;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  bool walk_only = argc == 3 && strcmp(argv[1], "--walk") == 0;
  int reps = argc == 4 && strcmp(argv[1], "--bench") == 0 ? atoi(argv[2]) : 0;
  if (argc != 2 && !walk_only && reps < 1) {
    fputs("usage: onnx_dump [--walk | --bench K] FILE.onnx\n", stderr);
    return 2;
  }
  const char *path = argv[argc - 1];
  char err[512];
  OnnxFile f;
  if (!onnx_map(path, &f, err, sizeof err)) {
    fprintf(stderr, "onnx_dump: cannot open '%s': %s\n", path, err);
    return 2;
  }
  Arena *a = arena_new();
  OnnxModel m;
  int status = 0;
  double best = 1e30;
  long nodes = 0;
  for (int k = 0; k < reps; k++) {
    Arena *ka = arena_new();
    double t0 = now();
    if (!onnx_read(ka, f.bytes, f.len, &m, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", path, err);
      arena_free(ka);
      arena_free(a);
      onnx_unmap(&f);
      return 1;
    }
    nodes = walk(m.graph);
    double t = now() - t0;
    if (t < best) best = t;
    arena_free(ka);
  }
  if (reps) {
    printf("%ld nodes %.6f\n", nodes, best);
  } else if (!onnx_read(a, f.bytes, f.len, &m, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", path, err);
    status = 1;
  } else if (!ids_ok(&m, m.graph)) {
    fprintf(stderr, "%s: a value name's id does not match it (onnx.h)\n", path);
    status = 1;
  } else if (walk_only) {
    printf("%ld nodes\n", walk(m.graph));
  } else {
    printf("ir_version %lld\n", (long long)m.ir_version);
    printf("producer \"%s\" \"%s\"\n", m.producer_name, m.producer_version);
    for (int i = 0; i < m.nopsets; i++)
      printf("opset \"%s\" %lld\n", m.opsets[i].domain, (long long)m.opsets[i].version);
    graph(m.graph, 0);
  }
  arena_free(a);
  onnx_unmap(&f);
  return status;
}
