/* SPDX-License-Identifier: MIT */
/* check_json.c: the machine outputs (json.c, sarif.c, plot.c) on a small
 * analysis built by hand, so the writers are tested apart from the
 * pipeline: field names and values, base units, integers printed as
 * integers, invalid UTF-8, SARIF regions in characters, fix-its, the
 * rule table, and an SVG with one circle per kernel.
 * R-OUT-002 (numbers), R-OUT-004 (fields), R-OUT-006, R-OUT-007 (SARIF),
 * R-OUT-008 (the chart). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooflint.h"
#include "diag.h"
#include "out/out.h"
#include "out/json_writer.h"

/* A file with a non-ASCII character before the op, so byte and character
 * columns differ on line 3. */
static const char TEXT[] = "model m {\n"
                           "  input x : [4096]\n"
                           "  \xc3\xa9 = 1; y = matmul(x, w)\n"
                           "}\n";

typedef struct Fixture {
  Arena *arena;
  SourceSet ss;
  DiagSink diags;
  Target target;
  Model model;
  GNode nodes[3];
  NodeCost costs[3];
  int kernel_node[2];
  double kernel_count[2];
  ModelCost mc;
  ModelCost *mcs[1];
  const Target *targets[1];
  Analysis an;
  Analysis *ans[1];
} Fixture;

static uint32_t offset_of(const char *needle) {
  return (uint32_t)(strstr(TEXT, needle) - TEXT);
}

static Fixture *fixture(void) {
  Fixture *f = xcalloc(1, sizeof *f);
  f->arena = arena_new();
  src_init(&f->ss);
  int file = src_add(&f->ss, "dir with space/t.roof", xstrdup(TEXT), strlen(TEXT));
  diag_sink_init(&f->diags);

  Target *t = &f->target;
  t->name = "h100_sxm";
  t->display = "NVIDIA H100 SXM";
  t->sms = 132;
  t->memory = 80e9;
  t->memory_bw = 3.35e12;
  t->tensor_peak[DT_FP16] = 990e12;
  t->tensor_peak[DT_BF16] = 990e12;
  t->vector_peak[DT_FP32] = 67e12;

  Model *m = &f->model;
  m->name = "m";
  m->file = file;
  m->dtype = DT_BF16;
  m->loc = (Loc){file, 6, 7};
  m->nodes = f->nodes;
  m->nnodes = 3;
  m->parallel.present = false;
  GNode *x = &f->nodes[0], *y = &f->nodes[1], *z = &f->nodes[2];
  static const TensorType vec = {DT_BF16, 1, {4096}}; /* shared, as sema does */
  x->name = "x", x->role = ROLE_INPUT, x->precision = DT_NONE, x->count = 1, x->region = -1;
  x->type = &vec;
  x->loc = (Loc){file, offset_of("x :"), offset_of("x :") + 1};
  y->name = "y", y->role = ROLE_ACTIVATION, y->op = op_lookup("matmul"), y->count = 1;
  y->precision = DT_BF16, y->region = -1, y->type = &vec;
  y->loc = (Loc){file, offset_of("matmul"), offset_of("matmul") + strlen("matmul(x, w)")};
  z->name = "z", z->role = ROLE_ACTIVATION, z->op = op_lookup("add"), z->count = 32;
  z->precision = DT_BF16, z->region = -1, z->type = &vec;
  z->loc = y->loc;

  f->costs[0] = (NodeCost){.bound = BOUND_NONE, .kernel = -1};
  /* The derived figures (intensity, ridge, attainable, waves) are not
   * stored: the writer derives them from these and the target. */
  f->costs[1] = (NodeCost){.flops = 33554432, .bytes = 33570816, .peak = 990e12, .tensor = true,
                           .bound = BOUND_MEMORY, .time_s = 33570816 / 3.35e12, .blocks = 32,
                           .kernel = 0};
  f->costs[2] = (NodeCost){.flops = 4096, .bytes = 24576, .peak = 67e12, .bound = BOUND_MEMORY,
                           .time_s = 24576 / 3.35e12, .blocks = 1, .kernel = 1};
  /* Single-op kernels: their figures are their node's (cost_kernel). */
  for (int k = 0; k < 2; k++) {
    f->kernel_node[k] = k + 1;
    f->kernel_count[k] = f->nodes[k + 1].count;
  }
  ModelCost *mc = &f->mc;
  mc->model = m;
  mc->target = t;
  mc->nodes = f->costs;
  mc->kernel_node = f->kernel_node;
  mc->kernel_count = f->kernel_count;
  mc->nkernels = 2;
  mc->flops = 33554432 + 32 * 4096;
  mc->bytes = 33570816 + 32 * 24576;
  mc->time_s = f->costs[1].time_s + 32 * f->costs[2].time_s;
  mc->memory_bound_time = mc->time_s;
  mc->params = 16777216;
  mc->footprint = (Footprint){.weights = 33554432, .activations = 16384,
                              .total = 33570816};

  Unit *u = arena_alloc(f->arena, sizeof *u);
  u->file = file;
  u->models = m;
  u->nmodels = 1;
  f->mcs[0] = mc;
  f->targets[0] = t;
  f->an = (Analysis){.file = file, .unit = u, .targets = f->targets, .ntargets = 1, .costs = f->mcs};
  f->ans[0] = &f->an;

  Diag *d = diag_report(&f->diags, SEV_WARNING, "memory-bound", y->loc,
                        "matmul 'y' is memory-bound: %s", "1.0 FLOP/B");
  diag_note(d, x->loc, "declared here");
  diag_note(d, LOC_NONE, "a note without a place");
  diag_fixit(d, (Loc){file, offset_of("matmul"), offset_of("matmul")}, "fused f { ");
  diag_figure(d, "intensity", 33554432.0 / 33570816);
  diag_figure(d, "ridge", 990e12 / 3.35e12);
  diag_report(&f->diags, SEV_ERROR, NULL, x->loc, "bad byte \xff in a name");
  return f;
}

static void fixture_free(Fixture *f) {
  diag_sink_free(&f->diags);
  src_free(&f->ss);
  arena_free(f->arena);
  free(f);
}

/* Runs a writer into memory and parses what it wrote. */
static json_t *capture_json(Fixture *f, bool sarif, char **text) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  const DiagSink *sinks[1] = {&f->diags};
  if (sarif) sarif_write(mem, f->ans, sinks, 1, &f->ss, 1, NULL);
  else json_write(mem, f->ans, sinks, 1, &f->ss);
  fclose(mem);
  json_error_t err;
  json_t *doc = json_loads(buf, 0, &err);
  ck_assert_msg(doc != NULL, "not JSON: %s at line %d", err.text, err.line);
  if (text) *text = buf;
  else free(buf);
  return doc;
}

#define GET(o, path) json_object_get((o), (path))

START_TEST(test_json_document) {
  Fixture *f = fixture();
  char *text;
  json_t *doc = capture_json(f, false, &text);
  ck_assert_str_eq(json_string_value(GET(GET(doc, "tool"), "name")), "rooflint");
  ck_assert_str_eq(json_string_value(GET(GET(doc, "tool"), "version")), ROOFLINT_VERSION);
  json_t *tg = GET(doc, "target");
  ck_assert_str_eq(json_string_value(GET(tg, "name")), "h100_sxm");
  /* base units, integral values as JSON integers */
  ck_assert(json_is_integer(GET(tg, "memory_bw")));
  ck_assert_int_eq(json_integer_value(GET(tg, "memory_bw")), 3350000000000LL);
  ck_assert_int_eq(json_integer_value(GET(GET(tg, "peaks"), "fp16_tc")), 990000000000000LL);
  ck_assert_int_eq(json_integer_value(GET(GET(tg, "peaks"), "fp32")), 67000000000000LL);
  ck_assert_ptr_null(GET(GET(tg, "peaks"), "fp32_tc"));
  ck_assert_double_eq_tol(json_real_value(GET(tg, "ridge")), 295.522, 1e-3);
  ck_assert_int_eq(json_array_size(GET(doc, "targets")), 1);

  json_t *models = GET(doc, "models");
  ck_assert_int_eq(json_array_size(models), 1);
  json_t *m = json_array_get(models, 0);
  ck_assert_str_eq(json_string_value(GET(m, "name")), "m");
  ck_assert_str_eq(json_string_value(GET(m, "file")), "dir with space/t.roof");
  ck_assert_str_eq(json_string_value(GET(m, "target")), "h100_sxm");
  ck_assert_str_eq(json_string_value(GET(m, "mode")), "inference");
  ck_assert(json_is_null(GET(m, "parallel")));
  json_t *nodes = GET(m, "nodes");
  ck_assert_int_eq(json_array_size(nodes), 3);
  json_t *x = json_array_get(nodes, 0), *y = json_array_get(nodes, 1), *z = json_array_get(nodes, 2);
  ck_assert_str_eq(json_string_value(GET(x, "op")), "input");
  ck_assert(json_is_null(GET(x, "precision")));
  ck_assert(json_is_null(GET(x, "kernel")));
  ck_assert_str_eq(json_string_value(GET(x, "bound")), bound_str(BOUND_NONE));
  ck_assert_str_eq(json_string_value(GET(y, "op")), "matmul");
  ck_assert_str_eq(json_string_value(GET(y, "dtype")), "bf16");
  ck_assert_int_eq(json_integer_value(GET(y, "flops")), 33554432);
  ck_assert_int_eq(json_integer_value(GET(y, "bytes")), 33570816);
  ck_assert_double_eq_tol(json_real_value(GET(y, "intensity")), 0.99951, 1e-5);
  ck_assert_str_eq(json_string_value(GET(y, "bound")), "memory");
  ck_assert_int_eq(json_integer_value(GET(y, "blocks")), 32);
  ck_assert_int_eq(json_integer_value(GET(y, "kernel")), 0);
  ck_assert_int_eq(json_array_size(GET(y, "shape")), 1);
  ck_assert_int_eq(json_integer_value(GET(z, "count")), 32);
  /* byte columns, as the text diagnostics print them: "  é = 1; y = " puts the op at byte 15, character 14 */
  json_t *loc = GET(y, "location");
  ck_assert_str_eq(json_string_value(GET(loc, "file")), "dir with space/t.roof");
  ck_assert_int_eq(json_integer_value(GET(loc, "line")), 3);
  ck_assert_int_eq(json_integer_value(GET(loc, "column")), 15);
  ck_assert_int_eq(json_integer_value(GET(loc, "end_column")), 27);

  json_t *sum = GET(m, "summary");
  ck_assert_int_eq(json_integer_value(GET(sum, "flops")), 33554432 + 32 * 4096);
  ck_assert_int_eq(json_integer_value(GET(sum, "memory_bound_time_share")), 1);
  ck_assert_int_eq(json_integer_value(GET(sum, "footprint_bytes")), 33570816);
  ck_assert_int_eq(json_integer_value(GET(GET(sum, "footprint"), "weights")), 33554432);
  ck_assert_int_eq(json_integer_value(GET(sum, "params")), 16777216);
  ck_assert_int_eq(json_array_size(GET(m, "kernels")), 2);
  ck_assert_int_eq(json_array_size(GET(m, "collectives")), 0);
  ck_assert_int_eq(json_array_size(GET(m, "transfers")), 0);

  json_t *diags = GET(doc, "diagnostics");
  ck_assert_int_eq(json_array_size(diags), 2);
  json_t *d = json_array_get(diags, 0);
  ck_assert_str_eq(json_string_value(GET(d, "severity")), "warning");
  ck_assert_str_eq(json_string_value(GET(d, "check")), "memory-bound");
  ck_assert_str_eq(json_string_value(GET(d, "message")), "matmul 'y' is memory-bound: 1.0 FLOP/B");
  ck_assert_int_eq(json_array_size(GET(d, "notes")), 2);
  ck_assert(json_is_null(GET(json_array_get(GET(d, "notes"), 1), "location")));
  ck_assert_int_eq(json_integer_value(GET(GET(json_array_get(GET(d, "notes"), 0), "location"), "line")), 2);
  ck_assert_str_eq(json_string_value(GET(json_array_get(GET(d, "fixits"), 0), "text")), "fused f { ");
  ck_assert_double_eq_tol(json_real_value(GET(GET(d, "figures"), "ridge")), 295.522, 1e-3);
  /* a language error: no check, invalid UTF-8 replaced, still valid JSON */
  json_t *e = json_array_get(diags, 1);
  ck_assert(json_is_null(GET(e, "check")));
  ck_assert_str_eq(json_string_value(GET(e, "message")), "bad byte \xef\xbf\xbd in a name");
  ck_assert_int_eq(json_integer_value(GET(GET(doc, "counts"), "errors")), 1);
  ck_assert_int_eq(json_integer_value(GET(GET(doc, "counts"), "warnings")), 1);
  /* plain numbers: no NaN, no Infinity, integers without ".0" */
  ck_assert_ptr_null(strstr(text, "NaN"));
  ck_assert_ptr_nonnull(strstr(text, "\"flops\": 33554432,"));
  free(text);
  json_decref(doc);
  fixture_free(f);
}
END_TEST

START_TEST(test_json_numbers) {
  json_t *v = json_base_number(1.0 / 0.0);
  ck_assert(json_is_null(v));
  json_decref(v);
  v = json_base_number(2.0);
  ck_assert(json_is_integer(v));
  json_decref(v);
  v = json_base_number(0.5);
  ck_assert(json_is_real(v));
  json_decref(v);
  v = json_base_number(1e300); /* integral but past 2^53: stays a real */
  ck_assert(json_is_real(v));
  json_decref(v);
  v = json_safe_string(NULL);
  ck_assert(json_is_null(v));
  json_decref(v);
  v = json_safe_string("a\xc3(b\xe2\x88\x9d");
  ck_assert_str_eq(json_string_value(v), "a\xef\xbf\xbd(b\xe2\x88\x9d");
  json_decref(v);
}
END_TEST

/* A JsonOut writing to *buf (malloc'd, NUL-terminated when closed). */
static JsonOut *mem_writer(char **buf, size_t *len) {
  JsonOut *w = calloc(1, sizeof *w);
  w->out = open_memstream(buf, len);
  return w;
}

static void mem_close(JsonOut *w) {
  fclose(w->out);
  free(w);
}

/* JsonOut writes what json_dumpf(JSON_INDENT(2) | JSON_PRESERVE_ORDER)
 * writes for the same tree: a nested object as a member value, an empty
 * array and object ("[]", "{}"), a string that needs escaping, a real. */
START_TEST(test_json_out_stream) {
  char *buf = NULL;
  size_t len = 0;
  JsonOut *w = mem_writer(&buf, &len);
  json_out_open(w, NULL, '{');
  json_out_put(w, "a", json_integer(1));
  json_out_open(w, "rows", '[');
  json_t *loc = json_object();
  json_object_set_new(loc, "line", json_integer(3));
  json_out_put(w, NULL, loc);
  json_out_open(w, NULL, '[');
  json_out_close(w, ']');
  json_out_open(w, NULL, '{');
  json_out_put(w, "s", json_string("q\"\n"));
  json_out_close(w, '}');
  json_out_close(w, ']');
  json_out_open(w, "none", '{');
  json_out_close(w, '}');
  json_out_put(w, "x", json_real(0.5));
  json_out_close(w, '}');
  mem_close(w);
  const char *want = "{\n"
                     "  \"a\": 1,\n"
                     "  \"rows\": [\n"
                     "    {\n"
                     "      \"line\": 3\n"
                     "    },\n"
                     "    [],\n"
                     "    {\n"
                     "      \"s\": \"q\\\"\\n\"\n"
                     "    }\n"
                     "  ],\n"
                     "  \"none\": {},\n"
                     "  \"x\": 0.5\n"
                     "}";
  ck_assert_str_eq(buf, want);
  /* and jansson's own text of the same tree */
  json_t *doc = json_loads(want, 0, NULL);
  ck_assert_ptr_nonnull(doc);
  char *dumped = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  ck_assert_str_eq(dumped, want);
  free(dumped);
  json_decref(doc);
  free(buf);
}
END_TEST

/* One value written by w as the first member of an array, as text
 * (malloc'd): the member's "\n  " is in w's buffer before it, and an
 * array member below the top is never flushed, so nothing is written to
 * w->out (NULL). */
typedef enum { AS_REAL, AS_NUM, AS_INT, AS_STR } OneKind;
static char *one(JsonOut *w, OneKind kind, double v, long long i, const char *s) {
  w->len = 0;
  w->depth = 1;
  w->any[0] = false;
  switch (kind) {
  case AS_REAL: json_out_real(w, NULL, v); break;
  case AS_NUM: json_out_num(w, NULL, v); break;
  case AS_INT: json_out_int(w, NULL, i); break;
  case AS_STR: json_out_str(w, NULL, s); break;
  }
  ck_assert_uint_ge(w->len, 3);
  ck_assert(!memcmp(w->buf, "\n  ", 3));
  return strndup(w->buf + 3, w->len - 3);
}

/* jansson's text of v (steals it); "null" where it is NULL. */
static char *jansson_text(json_t *v) {
  char *t = v ? json_dumps(v, JSON_ENCODE_ANY) : strdup("null");
  json_decref(v);
  return t;
}

static void same_real(JsonOut *w, double v) {
  char *mine = one(w, AS_REAL, v, 0, NULL), *theirs = jansson_text(json_real(v));
  ck_assert_msg(!strcmp(mine, theirs), "%a: %s, jansson %s", v, mine, theirs);
  free(mine), free(theirs);
  mine = one(w, AS_NUM, v, 0, NULL), theirs = jansson_text(json_base_number(v));
  ck_assert_msg(!strcmp(mine, theirs), "%a: %s, jansson %s", v, mine, theirs);
  free(mine), free(theirs);
}

static void same_str(JsonOut *w, const char *s) {
  char *mine = one(w, AS_STR, 0, 0, s), *theirs = jansson_text(json_safe_string(s));
  ck_assert_str_eq(mine, theirs);
  free(mine), free(theirs);
}

/* The direct writer's scalars are jansson's text: reals as "%.17g" with
 * ".0" where needed and a bare exponent, json_base_number's integers,
 * strings escaped as jansson's dump.c does (controls as \uXXXX in upper case, '/'
 * and DEL as they are, ill-formed UTF-8 as U+FFFD). */
START_TEST(test_json_out_scalars) {
  JsonOut *w = calloc(1, sizeof *w);
  static const struct { double v; const char *real, *num; } fixed[] = {
      {5e-6, "5.0000000000000004e-6", "5.0000000000000004e-6"},
      {1e300, "1.0000000000000001e300", "1.0000000000000001e300"},
      {1e22, "1e22", "1e22"}, /* exact: 2^22 * 5^22 */
      {-0.0, "-0.0", "0"},
      {0.1, "0.10000000000000001", "0.10000000000000001"},
      {9007199254740992.0, "9007199254740992.0", "9007199254740992.0"}, /* 2^53 */
      {9007199254740991.0, "9007199254740991.0", "9007199254740991"},
      {1e17, "1e17", "1e17"},
      {2.5, "2.5", "2.5"},
      {-1.5e-300, "-1.5000000000000001e-300", "-1.5000000000000001e-300"},
      /* exactly halfway at 17 digits (1 + 2^-17, 1 + 3 * 2^-17): to even */
      {1.00000762939453125, "1.0000076293945312", "1.0000076293945312"},
      {1.00002288818359375, "1.0000228881835938", "1.0000228881835938"},
      {1.0 / 0.0, "null", "null"},
  };
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
    char *t = one(w, AS_REAL, fixed[k].v, 0, NULL);
    ck_assert_str_eq(t, fixed[k].real);
    free(t);
    t = one(w, AS_NUM, fixed[k].v, 0, NULL);
    ck_assert_str_eq(t, fixed[k].num);
    free(t);
    same_real(w, fixed[k].v);
  }
  /* Every exponent, and values like the figures (times, ratios). */
  uint64_t x = 88172645463325252ull; /* xorshift64 */
  for (int k = 0; k < 40000; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double v;
    if (k % 2) {
      memcpy(&v, &x, sizeof v);
      if (!isfinite(v)) continue;
    } else {
      v = (double)(x >> 11) / 9007199254740992.0 * pow(10, (int)(x % 60) - 30);
    }
    same_real(w, v);
  }
  /* m / 2^t with m odd: ties at 17 digits where the digits are 18 */
  for (int t = 1; t <= 80; t++)
    for (int m = 1; m < 200; m += 2) same_real(w, ldexp((double)((1ull << 33) + (unsigned)m), -t));
  for (int e = -330; e <= 310; e++) {
    same_real(w, pow(10, e));
    same_real(w, nextafter(pow(10, e), 0));
  }
  static const long long ints[] = {0, 1, -1, 9, 10, 99, 100, 123456789, -9007199254740993ll,
                                   9223372036854775807ll, -9223372036854775807ll - 1};
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
    char *mine = one(w, AS_INT, 0, ints[k], NULL), *theirs = jansson_text(json_integer(ints[k]));
    ck_assert_str_eq(mine, theirs);
    free(mine), free(theirs);
  }
  char *t = one(w, AS_STR, 0, 0, "q\"\\/\x01\x1f\x7f\b\f\n\r\t\xc3\xa9");
  ck_assert_str_eq(t, "\"q\\\"\\\\/\\u0001\\u001F\x7f\\b\\f\\n\\r\\t\xc3\xa9\"");
  free(t);
  t = one(w, AS_STR, 0, 0, NULL);
  ck_assert_str_eq(t, "null");
  free(t);
  static const char *const strs[] = {
      "", "plain", "a\xc3(b\xe2\x88\x9d", "\xe2\x88", "x\xed\xa0\x80y", "\xf4\x90\x80\x80",
      "\xc0\x80", "\xf0\x9f\x98\x80", "\xff\xfe", "tab\there",
      /* words of 8 plain bytes and words with one byte to look at */
      "0123456789abcdef\"/\x7f~ !\\0123456789\xc3\xa9xyz0123456\03789abcdef\x80!",
  };
  for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) same_str(w, strs[k]);
  free(w);
}
END_TEST

/* What does not fit the writer's fast paths, in a nested object: a key
 * longer than it keeps room for, and a string of 200,000 bytes (three
 * times the buffer), a third of them escaped or multibyte. */
START_TEST(test_json_out_large) {
  char *big = malloc(200001);
  for (int k = 0; k < 200000; k++) big[k] = "ab\n\xc3\xa9\x01"[k % 6];
  big[200000] = '\0';
  char key[200];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = '\0';
  char *buf = NULL;
  size_t len = 0;
  JsonOut *w = mem_writer(&buf, &len);
  json_out_open(w, NULL, '{');
  json_out_open(w, "o", '{');
  json_out_int(w, key, 7);
  json_out_bool(w, "b", false);
  json_out_null(w, "n");
  json_out_str(w, "s", big);
  json_out_close(w, '}');
  json_out_close(w, '}');
  mem_close(w);
  json_t *o = json_object(), *in = json_object();
  json_object_set_new(in, key, json_integer(7));
  json_object_set_new(in, "b", json_false());
  json_object_set_new(in, "n", json_null());
  json_object_set_new(in, "s", json_string(big));
  json_object_set_new(o, "o", in);
  char *want = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  ck_assert_str_eq(buf, want);
  free(want);
  json_decref(o);
  free(buf);
  free(big);
}
END_TEST

START_TEST(test_sarif_document) {
  Fixture *f = fixture();
  json_t *doc = capture_json(f, true, NULL);
  ck_assert_str_eq(json_string_value(GET(doc, "version")), "2.1.0");
  json_t *run = json_array_get(GET(doc, "runs"), 0);
  json_t *drv = GET(GET(run, "tool"), "driver");
  ck_assert_str_eq(json_string_value(GET(drv, "name")), "rooflint");
  int nchecks = 0;
  const CheckDesc *const *checks = check_registry(&nchecks);
  json_t *rules = GET(drv, "rules");
  /* a check the registry lacks still gets a rule, after the registry's */
  ck_assert_int_eq(json_array_size(rules), 1 + nchecks + (check_lookup("memory-bound") ? 0 : 1));
  ck_assert_str_eq(json_string_value(GET(json_array_get(rules, 0), "id")), "error");
  for (int i = 0; i < nchecks; i++) {
    json_t *r = json_array_get(rules, (size_t)i + 1);
    ck_assert_str_eq(json_string_value(GET(r, "id")), checks[i]->name);
    ck_assert_str_eq(json_string_value(GET(GET(r, "shortDescription"), "text")), checks[i]->summary);
  }
  json_t *inv = json_array_get(GET(run, "invocations"), 0);
  ck_assert(json_is_true(GET(inv, "executionSuccessful")));
  ck_assert_int_eq(json_integer_value(GET(inv, "exitCode")), 1);
  ck_assert_str_eq(json_string_value(GET(run, "columnKind")), "unicodeCodePoints");
  json_t *art = json_array_get(GET(run, "artifacts"), 0);
  ck_assert_str_eq(json_string_value(GET(GET(art, "location"), "uri")), "dir%20with%20space/t.roof");
  ck_assert_str_eq(json_string_value(json_array_get(GET(art, "roles"), 0)), "analysisTarget");

  json_t *results = GET(run, "results");
  ck_assert_int_eq(json_array_size(results), 2);
  json_t *r = json_array_get(results, 0);
  ck_assert_str_eq(json_string_value(GET(r, "ruleId")), "memory-bound");
  ck_assert_str_eq(json_string_value(GET(r, "level")), "warning");
  json_t *phys = GET(json_array_get(GET(r, "locations"), 0), "physicalLocation");
  ck_assert_int_eq(json_integer_value(GET(GET(phys, "artifactLocation"), "index")), 0);
  json_t *reg = GET(phys, "region");
  /* characters, not bytes: the é before it is one column */
  ck_assert_int_eq(json_integer_value(GET(reg, "startLine")), 3);
  ck_assert_int_eq(json_integer_value(GET(reg, "startColumn")), 14);
  ck_assert_int_eq(json_integer_value(GET(reg, "endColumn")), 26);
  json_t *rel = GET(r, "relatedLocations");
  ck_assert_int_eq(json_array_size(rel), 2);
  ck_assert_str_eq(json_string_value(GET(GET(json_array_get(rel, 0), "message"), "text")), "declared here");
  ck_assert_ptr_null(GET(json_array_get(rel, 1), "physicalLocation"));
  json_t *fix = json_array_get(GET(r, "fixes"), 0);
  ck_assert_str_eq(json_string_value(GET(GET(fix, "description"), "text")), "insert 'fused f { '");
  json_t *change = json_array_get(GET(fix, "artifactChanges"), 0);
  json_t *rep = json_array_get(GET(change, "replacements"), 0);
  ck_assert_int_eq(json_integer_value(GET(GET(rep, "deletedRegion"), "startColumn")), 14);
  ck_assert_int_eq(json_integer_value(GET(GET(rep, "deletedRegion"), "endColumn")), 14);
  ck_assert_str_eq(json_string_value(GET(GET(rep, "insertedContent"), "text")), "fused f { ");
  ck_assert_double_eq_tol(json_real_value(GET(GET(r, "properties"), "ridge")), 295.522, 1e-3);
  json_t *e = json_array_get(results, 1);
  ck_assert_str_eq(json_string_value(GET(e, "ruleId")), "error");
  ck_assert_int_eq(json_integer_value(GET(e, "ruleIndex")), 0);
  ck_assert_str_eq(json_string_value(GET(e, "level")), "error");
  json_decref(doc);
  fixture_free(f);
}
END_TEST

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

START_TEST(test_plot_svg) {
  Fixture *f = fixture();
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  int left_out = -1;
  ck_assert_int_eq(plot_write(mem, f->ans, 1, &f->ss, &left_out), 2);
  ck_assert_int_eq(left_out, 0); /* one model: under the panel cap */
  fclose(mem);
  ck_assert(strncmp(buf, "<?xml", 5) == 0);
  ck_assert_ptr_nonnull(strstr(buf, "Roofline: m on NVIDIA H100 SXM"));
  /* two kernels, both memory-bound; two roofs (bf16 tensor, fp32) */
  ck_assert_int_eq(count(buf, "<circle class=\"memory-bound\""), 2);
  ck_assert_int_eq(count(buf, "<circle class=\"compute-bound\""), 0);
  ck_assert_int_eq(count(buf, "class=\"compute-roof\""), 2);
  ck_assert_int_eq(count(buf, "class=\"memory-roof\""), 1);
  ck_assert_int_eq(count(buf, "class=\"ridge\""), 2);
  ck_assert_ptr_nonnull(strstr(buf, "ridge 295.5 FLOP/B"));
  ck_assert_ptr_nonnull(strstr(buf, "ridge 20.0 FLOP/B"));
  ck_assert_ptr_nonnull(strstr(buf, ">1 TFLOP/s</text>"));
  /* the two slowest kernels are labelled with their share of the step */
  ck_assert_ptr_nonnull(strstr(buf, ">y 97.7%</text>"));
  ck_assert_ptr_nonnull(strstr(buf, ">z 2.3%</text>"));
  ck_assert_ptr_nonnull(strstr(buf, ">h100_sxm 3.35 TB/s</text>"));
  ck_assert_ptr_nonnull(strstr(buf, ">bf16 tensor: 990.0 TFLOP/s</text>"));
  /* the target states no bf16 vector figure: z runs at, and sits under,
   * the fp32 roof (issue 16 item 26: no roof is made up; R-OUT-008) */
  ck_assert_ptr_nonnull(strstr(buf, ">fp32 vector (used for bf16): 67.0 TFLOP/s</text>"));
  ck_assert_ptr_null(strstr(buf, "bf16 vector"));
  ck_assert_int_eq(count(buf, "<svg"), count(buf, "</svg>"));
  ck_assert_int_eq(count(buf, "<g"), count(buf, "</g>"));
  free(buf);
  fixture_free(f);
}
END_TEST

Suite *json_suite(void) {
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("outputs");
  /* test_json_out_scalars formats some 100,000 values, each through its
   * own memory stream: well under a second alone, but Check's 4 s default
   * is for an idle machine, and the suite also runs beside other builds. */
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_json_document);
  tcase_add_test(tc, test_json_numbers);
  tcase_add_test(tc, test_json_out_stream);
  tcase_add_test(tc, test_json_out_scalars);
  tcase_add_test(tc, test_json_out_large);
  tcase_add_test(tc, test_sarif_document);
  tcase_add_test(tc, test_plot_svg);
  suite_add_tcase(s, tc);
  return s;
}
