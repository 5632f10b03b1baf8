/* SPDX-License-Identifier: MIT */
/* check_cost.c: FLOPs, bytes and intensity of every op class, exactly;
 * the roofline and occupancy of the seed's tables; fused-region bytes;
 * counts that multiply without unrolling; collectives; train mode;
 * footprint. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "test_util.h"

typedef struct Fx {
  TestCtx *tc;
  const Model *m;
  const ModelCost *c;
} Fx;

/* Parses and analyses `text` (one model) on `target`. */
static Fx run_on(const char *text, const char *target) {
  Fx fx = {0};
  fx.tc = tc_sema(text, NULL);
  ck_assert_msg(fx.tc->unit && fx.tc->diags.nerrors == 0, "%s", tc_render(fx.tc));
  const Target *t = target_resolve(fx.tc->arena, &fx.tc->ss, target, fx.tc->unit,
                                   LOC_NONE, &fx.tc->diags);
  ck_assert_ptr_nonnull(t);
  fx.m = &fx.tc->unit->models[0];
  fx.c = cost_model(fx.tc->arena, fx.m, t);
  return fx;
}

static Fx run(const char *text) { return run_on(text, "h100_sxm"); }

static const NodeCost *nc(const Fx *fx, const char *name) {
  const GNode *g = tc_node(fx->tc, name);
  ck_assert_msg(g != NULL, "no node %s", name);
  return &fx->c->nodes[g - fx->m->nodes];
}

/* Equal to 1e-12 relative (exact figures up to the last bits of a sum). */
static void eq(double a, double b, int line) {
  ck_assert_msg(fabs(a - b) <= 1e-12 * fabs(b) || a == b,
                "line %d: %.17g != %.17g", line, a, b);
}
#define EQ(a, b) eq((double)(a), (double)(b), __LINE__)
/* The derived figures of a node of fx (cost_node_roof, cost_node_waves). */
#define ROOF(n) cost_node_roof(fx.c, (n))
#define WAVES(n) cost_node_waves(fx.c, (n))

/* R-COST-001, R-ROOF-001: the six operations of the seed (table 2). */
START_TEST(six_ops) {
  Fx fx = run("model m {\n dtype fp16\n input a, b : [67108864]\n s = add(a, b)\n"
              " weight w : [4096, 4096]\n input v : [4096]\n mv = matmul(w, v)\n"
              " input x : [4096, 4096]\n mm = matmul(x, w)\n"
              " input q, k, vv : [1, 512, 64]\n at = attention(q, k, vv)\n"
              " input q2, k2, v2 : [1, 8192, 64]\n at2 = attention(q2, k2, v2)\n}\n");
  const NodeCost *s = nc(&fx, "s");
  EQ(s->flops, 67108864.0);
  EQ(s->bytes, 6.0 * 67108864);
  EQ(ROOF(s).intensity, 1.0 / 6);
  EQ(ROOF(s).attainable, 3.35e12 / 6);
  ck_assert_int_eq(s->bound, BOUND_MEMORY);
  const NodeCost *mv = nc(&fx, "mv");
  EQ(mv->flops, 2.0 * 4096 * 4096);
  EQ(mv->bytes, 2.0 * (4096.0 * 4096 + 2 * 4096));
  ck_assert_int_eq(mv->bound, BOUND_MEMORY);
  const NodeCost *mm = nc(&fx, "mm");
  EQ(mm->flops, 2.0 * 4096 * 4096 * 4096);
  EQ(mm->bytes, 3 * 2.0 * 4096 * 4096);
  EQ(ROOF(mm).intensity, 4096.0 / 3);
  EQ(mm->peak, 990e12);
  ck_assert(mm->tensor);
  EQ(ROOF(mm).ridge, 990e12 / 3.35e12);
  EQ(ROOF(mm).attainable, 990e12);
  ck_assert_int_eq(mm->bound, BOUND_COMPUTE);
  EQ(mm->time_s, 2.0 * 4096 * 4096 * 4096 / 990e12);
  const NodeCost *at = nc(&fx, "at");
  EQ(at->flops, 4.0 * 512 * 512 * 64);
  EQ(at->bytes, 4 * 2.0 * 512 * 64);
  EQ(ROOF(at).intensity, 256);
  EQ(ROOF(at).attainable, 857.6e12);
  ck_assert_int_eq(at->bound, BOUND_MEMORY);
  EQ(ROOF(nc(&fx, "at2")).intensity, 4096);
  ck_assert_int_eq(nc(&fx, "at2")->bound, BOUND_COMPUTE);
  /* totals: the sum of the kernels, each once */
  EQ(fx.c->flops, s->flops + mv->flops + mm->flops + at->flops + nc(&fx, "at2")->flops);
  EQ(fx.c->time_s, s->time_s + mv->time_s + mm->time_s + at->time_s + nc(&fx, "at2")->time_s);
  EQ(fx.c->memory_bound_time, s->time_s + mv->time_s + at->time_s);
  tc_free(fx.tc);
}
END_TEST

/* R-COST-002: the same matmul at four precisions (seed table 4). */
START_TEST(precisions) {
  static const struct {
    const char *dtype, *prec;
    double peak, bytes;
  } rows[] = {
      {"fp32", "", 67e12, 4096.0 * 4096 * 4 * 3},
      {"fp32", ", precision = tf32", 495e12, 4096.0 * 4096 * 4 * 3},
      {"fp16", "", 990e12, 4096.0 * 4096 * 2 * 3},
      {"fp8", "", 1979e12, 4096.0 * 4096 * 1 * 3},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char text[256];
    snprintf(text, sizeof text,
             "model m {\n dtype %s\n input a, b : [4096, 4096]\n c = matmul(a, b%s)\n}\n",
             rows[i].dtype, rows[i].prec);
    Fx fx = run(text);
    const NodeCost *c = nc(&fx, "c");
    EQ(c->peak, rows[i].peak);
    EQ(c->bytes, rows[i].bytes);
    EQ(c->flops, 2.0 * 4096 * 4096 * 4096);
    EQ(ROOF(c).ridge, rows[i].peak / 3.35e12);
    ck_assert_int_eq(c->bound, BOUND_COMPUTE);
    tc_free(fx.tc);
  }
}
END_TEST

/* R-COST-003: the other classes. */
START_TEST(other_classes) {
  Fx fx = run("model m {\n dtype fp16\n input x : [4, 1024]\n weight g : [1024]\n"
              " sm = softmax(x)\n rn = rmsnorm(x, g)\n r = reshape(x, [1024, 4])\n"
              " t = transpose(x, [1, 0])\n c = copy(x)\n ge = gelu(x)\n"
              " cc = concat([x, x], axis = 0)\n"
              " input img : [1, 3, 32, 32]\n weight f : [8, 3, 3, 3]\n"
              " cv = conv2d(img, f, padding = 1)\n"
              " input ids : int32[2, 16]\n weight table : [32000, 1024]\n"
              " e = embedding(ids, table)\n mp = maxpool2d(img, kernel = 2)\n}\n");
  EQ(nc(&fx, "sm")->flops, 5.0 * 4096);
  EQ(nc(&fx, "sm")->bytes, 2 * 2.0 * 4096);
  EQ(nc(&fx, "rn")->flops, 4.0 * 4096);
  EQ(nc(&fx, "rn")->bytes, 2.0 * (4096 + 1024 + 4096));
  EQ(nc(&fx, "r")->flops + nc(&fx, "r")->bytes + nc(&fx, "t")->bytes, 0);
  ck_assert_int_eq(nc(&fx, "r")->bound, BOUND_NONE);
  ck_assert_int_eq(nc(&fx, "r")->kernel, -1);
  EQ(nc(&fx, "c")->flops, 0);
  EQ(nc(&fx, "c")->bytes, 2 * 2.0 * 4096);
  EQ(nc(&fx, "ge")->flops, 5.0 * 4096); /* gelu's documented weight (erf) */
  EQ(nc(&fx, "cc")->bytes, 2.0 * 4096 + 2.0 * 8192); /* x read once */
  EQ(nc(&fx, "cv")->flops, 2.0 * 8 * 32 * 32 * 3 * 3 * 3);
  EQ(nc(&fx, "cv")->bytes, 2.0 * (3 * 32 * 32 + 8 * 27 + 8 * 32 * 32));
  EQ(nc(&fx, "e")->bytes, 4.0 * 32 + 2 * 2.0 * 32 * 1024); /* rows, not the table */
  EQ(nc(&fx, "mp")->flops, 3.0 * 16 * 16 * 4);
  tc_free(fx.tc);
}
END_TEST

/* R-COST-003: a pool's FLOPs are its window's volume per output element,
 * over 1, 2 or 3 spatial dims; bytes its input and output. */
START_TEST(pool_windows) {
  Fx fx = run("model m {\n dtype fp32\n input s : [1, 4, 10]\n"
              " input v : [1, 2, 4, 8, 8]\n"
              " p1 = maxpool1d(s, kernel=3, stride=2, padding=1)\n"
              " p3 = avgpool3d(v, kernel=[2, 3, 3], stride=[1, 2, 2], padding=[0, 1, 1])\n}\n");
  /* [1, 4, 5]: 20 x 3; 4 x (40 + 20) */
  EQ(nc(&fx, "p1")->flops, 20.0 * 3);
  EQ(nc(&fx, "p1")->bytes, 4.0 * (40 + 20));
  /* [1, 2, 3, 4, 4]: 96 x 18; 4 x (512 + 96) */
  EQ(nc(&fx, "p3")->flops, 96.0 * 18);
  EQ(nc(&fx, "p3")->bytes, 4.0 * (512 + 96));
  tc_free(fx.tc);
}
END_TEST

/* R-COST-004: a fused region is one kernel: FLOPs add; bytes are the
 * inputs from outside plus the outputs used outside. */
START_TEST(fused_region) {
  Fx fx = run("model m {\n dtype bf16\n input x, y : [1048576]\n"
              " fused f {\n  h = mul(x, y)\n  z = relu(h)\n }\n out = add(z, x)\n}\n");
  const NodeCost *h = nc(&fx, "h"), *z = nc(&fx, "z");
  ck_assert_int_eq(h->kernel, z->kernel);
  Kernel k = cost_kernel(fx.c, h->kernel);
  ck_assert_int_eq(k.region, 0);
  EQ(k.flops, 2.0 * 1048576);
  EQ(k.bytes, 3 * 2.0 * 1048576); /* x, y in; z out; h stays on chip */
  ck_assert_int_eq(fx.c->nkernels, 2);
  EQ(fx.c->bytes, 3 * 2.0 * 1048576 + 3 * 2.0 * 1048576);
  tc_free(fx.tc);
}
END_TEST

/* R-COST-004: a view at a region's edge is the same storage as its input
 * (issue 16 item 2).  fp16 [1024, 1024] is 2 * 1048576 = 2097152 bytes; the
 * region reads x and writes z: 2 * 2097152 = 4194304 bytes, whether the
 * reshape stands first (x read through y) or last (z written through y).
 * relu is 1 FLOP per element: 1048576. */
START_TEST(fused_region_view_edges) {
  static const char *const bodies[] = {
      "  y = reshape(x, [1024, 1024])\n  z = relu(y)\n",
      "  y = relu(x)\n  z = reshape(y, [1048576])\n",
  };
  for (int b = 0; b < 2; b++) {
    char text[256];
    snprintf(text, sizeof text,
             "model m {\n dtype fp16\n input x : [1024, 1024]\n fused r {\n%s }\n}\n",
             bodies[b]);
    Fx fx = run(text);
    ck_assert_int_eq(fx.c->nkernels, 1);
    Kernel k = cost_kernel(fx.c, 0);
    ck_assert_int_eq(k.region, 0);
    EQ(k.flops, 1048576);
    EQ(k.bytes, 4194304);
    EQ(fx.c->bytes, 4194304);
    tc_free(fx.tc);
  }
  /* x read twice, directly and through a view outside: one read. */
  Fx fx = run("model m {\n dtype fp16\n input x : [1024, 1024]\n"
              " v = reshape(x, [1048576])\n fused r {\n  a = relu(v)\n"
              "  w = reshape(x, [1048576])\n  z = add(w, a)\n }\n}\n");
  EQ(cost_kernel(fx.c, 0).bytes, 4194304);
  tc_free(fx.tc);
}
END_TEST

/* R-COST-005: counts multiply without unrolling. */
START_TEST(repeat_counts_exact) {
  Fx one = run("model m {\n input x : [4096]\n weight w : [4096, 4096]\n"
               " repeat 1 {\n  x = matmul(x, w)\n }\n}\n");
  Fx big = run("model m {\n input x : [4096]\n weight w : [4096, 4096]\n"
               " repeat 1000000000 {\n  x = matmul(x, w)\n }\n}\n");
  ck_assert_int_eq(big.c->nkernels, one.c->nkernels);
  ck_assert(big.c->flops == one.c->flops * 1e9);
  ck_assert(big.c->bytes == one.c->bytes * 1e9);
  EQ(big.c->time_s, one.c->time_s * 1e9);
  /* w is declared outside the repeat: one tensor */
  EQ(big.c->params, 4096.0 * 4096);
  tc_free(one.tc);
  tc_free(big.tc);
}
END_TEST

/* R-COST-006: weights inside repeat are per copy, inside loop shared. */
START_TEST(footprint_weights) {
  Fx r = run("model m {\n input x : [8, 1024]\n repeat 4 {\n  weight w : [1024, 1024]\n"
             "  x = matmul(x, w)\n }\n}\n");
  EQ(r.c->params, 4.0 * 1024 * 1024);
  EQ(r.c->footprint.weights, 2 * 4.0 * 1024 * 1024);
  Fx l = run("model m {\n input x : [8, 1024]\n loop 4 {\n  weight w : [1024, 1024]\n"
             "  x = matmul(x, w)\n }\n}\n");
  EQ(l.c->params, 1024.0 * 1024);
  /* activations: the largest live set in one pass (x and its product) */
  EQ(l.c->footprint.activations, 2 * 2.0 * 8 * 1024);
  tc_free(r.tc);
  tc_free(l.tc);
}
END_TEST

/* R-COST-009: an input declared in a repeat is new data per copy, all
 * resident at once (a per-layer KV cache); in a loop one trip's is live. */
START_TEST(footprint_inputs_per_copy) {
  Fx r = run("model m {\n input x : [8, 1024]\n repeat 4 {\n"
             "  input kv : [1024, 1024]\n  x = matmul(x, kv)\n }\n}\n");
  /* 4 caches of 2 MiB, plus x and its product (16 KiB each) */
  EQ(r.c->footprint.activations, 4 * 2.0 * 1024 * 1024 + 2 * 2.0 * 8 * 1024);
  Fx l = run("model m {\n input x : [8, 1024]\n loop 4 {\n"
             "  input kv : [1024, 1024]\n  x = matmul(x, kv)\n }\n}\n");
  EQ(l.c->footprint.activations, 2.0 * 1024 * 1024 + 2 * 2.0 * 8 * 1024);
  tc_free(r.tc);
  tc_free(l.tc);
}
END_TEST

/* R-COST-009: a view holds no bytes, but what it aliases stays live until
 * the view's last use: x (2 MiB) is live when z is made from its view. */
START_TEST(footprint_view_keeps_source) {
  Fx fx = run("model m {\n input x : [1024, 1024]\n v = transpose(x, [1, 0])\n"
              " w = reshape(v, [1048576])\n z = relu(w)\n output z\n}\n");
  EQ(fx.c->footprint.activations, 2 * 2.0 * 1024 * 1024);
  tc_free(fx.tc);
}
END_TEST

/* R-VIEW-007: the new views cost nothing (no kernel, no bytes; their
 * train factor is 1, test_table); inside a fused region a view is free
 * and the region still reads x and writes y once.  x [4096, 1024] bf16
 * is 8388608 bytes, y [4096, 512] 4194304; train doubles both. */
START_TEST(new_views_free) {
  Fx fx = run("model m {\n dtype bf16\n mode train\n input x : [4096, 1024]\n"
              " s = slice(x, axis=1, start=0, end=512)\n"
              " c = select(x, axis=0, index=0)\n u = unsqueeze(c, axis=0)\n"
              " e = expand(u, [4096, 1024])\n f = flatten(x)\n"
              " q = squeeze(u, axis=0)\n"
              " fused g {\n  h = mul(x, x)\n  hs = slice(h, axis=1, end=512)\n"
              "  y = relu(hs)\n }\n output s, f, q, e, y\n}\n");
  const char *views[] = {"s", "c", "u", "e", "f", "q", "hs"};
  for (int i = 0; i < 7; i++) {
    const NodeCost *v = nc(&fx, views[i]);
    EQ(v->flops + v->bytes, 0);
    ck_assert_int_eq(v->kernel, -1);
  }
  Kernel k = cost_kernel(fx.c, nc(&fx, "h")->kernel);
  /* mul 4194304 + relu 2097152 FLOPs, x2 */
  EQ(k.flops, 2 * (4096.0 * 1024 + 4096.0 * 512));
  EQ(k.bytes, 2 * (8388608.0 + 4194304.0));
  ck_assert_int_eq(fx.c->nkernels, 1);
  tc_free(fx.tc);
}
END_TEST

/* R-VIEW-008: GPT-2's fused c_attn split into q, k, v: the matmul is
 * 2 * 8192 * 2304 * 768 FLOPs, the three parts are views (0, no kernel),
 * and add(q, k) reads two [8192, 768] bf16 parts (12582912 bytes each)
 * and writes one. */
START_TEST(split_parts_free) {
  Fx fx = run("model m {\n dtype bf16\n input x : [8, 1024, 768]\n"
              " weight w : [768, 2304]\n"
              " q, k, v = split(matmul(x, w), 3, axis=-1)\n"
              " s = add(q, k)\n output s, v\n}\n");
  EQ(nc(&fx, "q.matmul")->flops, 2.0 * 8192 * 2304 * 768);
  const char *parts[] = {"q", "k", "v"};
  for (int i = 0; i < 3; i++) {
    EQ(nc(&fx, parts[i])->flops + nc(&fx, parts[i])->bytes, 0);
    ck_assert_int_eq(nc(&fx, parts[i])->kernel, -1);
  }
  EQ(nc(&fx, "s")->bytes, 3 * 12582912.0);
  ck_assert_int_eq(fx.c->nkernels, 2);
  tc_free(fx.tc);
}
END_TEST

/* R-MOVE-001..R-MOVE-004 figures, train mode (factor 2, R-TRAIN-001) and
 * a fused region (R-MOVE-005).
 * gather: idx 1024 B (int64[8, 16]) + the rows read and written, 2 x
 * 65536 B (bf16[4, 8, 16, 64]).  scatter_add: tok, src and the result
 * 524288 B each (bf16[64, 4096]), eidx 2097152 B; one add per src
 * element, 262144.  pad: 2621440 B in (bf16[1, 320, 64, 64]), 2787840 B
 * out ([.., 66, 66]).  interpolate x2: 2621440 B in, 10485760 B out;
 * linear 2 x 2^2 FLOPs per output element (5242880 of them). */
START_TEST(movement_figures) {
  const char *src = "model m {\n dtype bf16\n%s input x : [4, 32000, 64]\n"
                    " input idx : int64[8, 16]\n g = gather(x, idx, axis=1)\n"
                    " input tok, src : [64, 4096]\n input eidx : int64[64, 4096]\n"
                    " s = scatter_add(tok, eidx, src)\n"
                    " input img : [1, 320, 64, 64]\n"
                    " p = pad(img, [0, 0, 1, 1, 0, 0, 1, 1])\n"
                    " u = interpolate(img, scale=2)\n"
                    " l = interpolate(img, scale=2, mode=\"linear\")\n}\n";
  char text[1024];
  for (int train = 0; train < 2; train++) {
    snprintf(text, sizeof text, src, train ? " mode train\n" : "");
    Fx fx = run(text);
    double f = train ? 2 : 1;
    EQ(nc(&fx, "g")->flops, 0);
    EQ(nc(&fx, "g")->bytes, f * (1024 + 2 * 65536.0));
    EQ(nc(&fx, "s")->flops, f * 262144.0);
    EQ(nc(&fx, "s")->bytes, f * (3 * 524288.0 + 2097152));
    EQ(nc(&fx, "p")->flops, 0);
    EQ(nc(&fx, "p")->bytes, f * (2621440.0 + 2787840));
    EQ(nc(&fx, "u")->flops, 0);
    EQ(nc(&fx, "u")->bytes, f * (2621440.0 + 10485760));
    EQ(nc(&fx, "l")->flops, f * 8.0 * 5242880);
    tc_free(fx.tc);
  }
  /* in a fused region pad is part of the one kernel: img in, r out
   * (2621440 + 2787840 bytes), relu's 1393920 FLOPs */
  Fx fx = run("model m {\n input img : [1, 320, 64, 64]\n"
              " fused f {\n  p = pad(img, [0, 0, 1, 1, 0, 0, 1, 1])\n"
              "  r = relu(p)\n }\n}\n");
  Kernel k = cost_kernel(fx.c, nc(&fx, "p")->kernel);
  ck_assert_int_eq(fx.c->nkernels, 1);
  EQ(k.bytes, 2621440.0 + 2787840);
  EQ(k.flops, 1393920.0);
  tc_free(fx.tc);
}
END_TEST

/* R-LOSS-001: GPT-2's loss over [8, 1024] tokens of 50257 classes, train
 * mode: 5 FLOPs per logit (411705344 of them) + one per label (8192),
 * logits 823410688 B + labels 65536 B + the bf16 result 2 B, all x2. */
START_TEST(cross_entropy_figures) {
  Fx fx = run("model m {\n mode train\n input logits : [8, 1024, 50257]\n"
              " input labels : int64[8, 1024]\n"
              " loss = cross_entropy(logits, labels)\n}\n");
  EQ(nc(&fx, "loss")->flops, 2 * (5 * 411705344.0 + 8192));
  EQ(nc(&fx, "loss")->bytes, 2 * (823410688.0 + 65536 + 2));
  ck_assert_int_eq(fx.c->nkernels, 1);
  tc_free(fx.tc);
}
END_TEST

/* R-COST-010: a cast to the dtype it already has is a no-op, costed like a
 * view: no kernel, 0 FLOPs, 0 bytes; a real cast is a kernel. */
START_TEST(noop_cast_is_free) {
  Fx fx = run("model m {\n dtype fp32\n input x : [8192, 16384]\n"
              " y = cast(x, fp32)\n z = cast(x, bf16)\n output y, z\n}\n");
  const NodeCost *y = nc(&fx, "y"), *z = nc(&fx, "z");
  EQ(y->flops, 0);
  EQ(y->bytes, 0);
  EQ(y->time_s, 0);
  ck_assert_int_eq(y->kernel, -1);
  ck_assert_int_eq(y->bound, BOUND_NONE);
  EQ(z->bytes, (4.0 + 2.0) * 8192 * 16384);
  ck_assert_int_eq(fx.c->nkernels, 1);
  EQ(fx.c->bytes, z->bytes);
  tc_free(fx.tc);
}
END_TEST

/* R-OCC-001: the seed's occupancy table on 132 SMs. */
START_TEST(occupancy_table) {
  static const struct {
    int batch, waves, idle;
    double util;
  } rows[] = {
      {1, 1, 131, 1.0 / 132},   {8, 1, 124, 8.0 / 132},   {32, 1, 100, 32.0 / 132},
      {64, 1, 68, 64.0 / 132},  {132, 1, 0, 1.0},          {133, 2, 131, 133.0 / 264},
      {264, 2, 0, 1.0},         {512, 4, 16, 512.0 / 528},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char text[200];
    snprintf(text, sizeof text,
             "model m {\n input x : [%d, 128, 4096]\n weight w : [4096, 128]\n"
             " y = matmul(x, w)\n}\n", rows[i].batch);
    Fx fx = run(text);
    const NodeCost *y = nc(&fx, "y");
    EQ(y->blocks, rows[i].batch);
    EQ(WAVES(y).waves, rows[i].waves);
    EQ(WAVES(y).utilisation, rows[i].util);
    EQ(WAVES(y).idle_sms + 1, rows[i].idle + 1);
    tc_free(fx.tc);
  }
}
END_TEST

/* R-OCC-003: a linear layer on [B, S, D] folds B into M.  x [64, 197,
 * 1024] @ w [1024, 4096]: M = 64 * 197 = 12608, ceil(12608 / 128) = 99 row
 * tiles (98.5), 4096 / 128 = 32 column tiles, 99 * 32 = 3168 blocks; on
 * 132 SMs 3168 / 132 = 24 waves exactly, utilisation 1, 0 idle.  The 2-D
 * spelling [12608, 1024] gives the same; 64 separate GEMMs would have been
 * 64 * 2 * 32 = 4096 blocks, 32 waves.  A batched right operand is not
 * folded: [64, 197, 1024] @ [64, 1024, 4096] stays 4096 blocks. */
START_TEST(linear_folds_batch_into_m) {
  Fx fx = run("model m {\n input x : [64, 197, 1024]\n weight w : [1024, 4096]\n"
              " y = matmul(x, w)\n input x2 : [12608, 1024]\n y2 = matmul(x2, w)\n"
              " input wb : [64, 1024, 4096]\n yb = matmul(x, wb)\n}\n");
  const NodeCost *y = nc(&fx, "y"), *y2 = nc(&fx, "y2"), *yb = nc(&fx, "yb");
  EQ(y->blocks, 3168);
  EQ(WAVES(y).waves, 24);
  EQ(WAVES(y).utilisation, 1);
  EQ(WAVES(y).idle_sms, 0);
  EQ(y2->blocks, 3168);
  EQ(WAVES(y2).waves, 24);
  EQ(y->flops, 2.0 * 12608 * 1024 * 4096);
  EQ(y->flops, y2->flops);
  EQ(yb->blocks, 4096);
  EQ(WAVES(yb).waves, 32);
  tc_free(fx.tc);
}
END_TEST

/* R-OCC-002: attention and elementwise blocks; blocks= wins. */
START_TEST(occupancy_rules) {
  Fx fx = run("model m {\n input q : [2, 8, 300, 64]\n a = attention(q, q, q)\n"
              " input x : [3000]\n e = relu(x)\n f = relu(x, blocks = 7)\n}\n");
  EQ(nc(&fx, "a")->blocks, 2 * 8 * 3);
  EQ(nc(&fx, "e")->blocks, 3);
  EQ(nc(&fx, "f")->blocks, 7);
  EQ(WAVES(nc(&fx, "f")).idle_sms, 125);
  tc_free(fx.tc);
}
END_TEST

/* R-COLL-001: the seed's all-reduce table, on the seed's 900 GB/s NVLink
 * (examples/seed/h100_seed_nvlink.roof). */
START_TEST(allreduce_table) {
  static const struct {
    int nodes;
    double ib_bytes;
  } rows[] = {{1, 0}, {2, 1.75e9}, {4, 2.625e9}, {16, 3.28125e9}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char text[240];
    snprintf(text, sizeof text,
             "model m {\n dtype bf16\n parallel { nodes = %d; gpus_per_node = 8 }\n"
             " input g : [7_000_000_000]\n s = allreduce(g)\n}\n", rows[i].nodes);
    Fx fx = run_on(text, "examples/seed/h100_seed_nvlink.roof");
    ck_assert_int_eq(fx.c->ncollectives, 1);
    const Collective *c = &fx.c->collectives[0];
    EQ(c->buffer, 14e9);
    ck_assert_int_eq(c->ranks, 8 * rows[i].nodes);
    EQ(c->nvlink_bytes, 24.5e9);
    EQ(c->nvlink_time, 24.5e9 / 900e9);
    EQ(c->ib_bytes + 1, rows[i].ib_bytes + 1);
    EQ(c->time_s, 24.5e9 / 900e9 + rows[i].ib_bytes / 50e9);
    ck_assert_int_eq(nc(&fx, "s")->bound, BOUND_NETWORK);
    EQ(fx.c->collective_time, c->time_s);
    tc_free(fx.tc);
  }
}
END_TEST

/* R-COLL-001: collectives use the link's bandwidth per direction
 * (issue 16 item 5).  h100_sxm's NVLink 4 is 18 links x 25 GB/s = 450 GB/s
 * per direction (N2).  14.0 GB on 2 nodes of 8: the NVLink leg moves
 * 2 * 7/8 * 14e9 = 24.5e9 bytes, 24.5e9 / 450e9 = 54.4 ms (the seed's
 * 27.2 ms at 900 GB/s, twice too fast); the InfiniBand leg 2 * 1/2 *
 * 14e9 / 8 = 1.75e9 bytes at 50 GB/s = 35.0 ms; total 89.4 ms. */
START_TEST(allreduce_per_direction) {
  Fx fx = run("model m {\n dtype bf16\n parallel { nodes = 2; gpus_per_node = 8 }\n"
              " input g : [7_000_000_000]\n s = allreduce(g)\n}\n");
  const Collective *c = &fx.c->collectives[0];
  EQ(c->nvlink_bytes, 24.5e9);
  EQ(c->nvlink_time, 24.5e9 / 450e9);
  EQ(c->ib_time, 1.75e9 / 50e9);
  EQ(c->time_s, 24.5e9 / 450e9 + 1.75e9 / 50e9);
  tc_free(fx.tc);
}
END_TEST

/* R-TGT-003: a 16-bit element-wise op runs at the vector peak of its
 * precision (issue 16 item 7): on A100 the Ampere whitepaper's Table 1 gives
 * 78 TFLOP/s fp16 and 39 bf16 (not the 19.5 of fp32), on V100 31.4 fp16 (not
 * 15.7); V100 has no bf16 vector figure, so bf16 falls back to fp32. */
START_TEST(vector_16bit_peaks) {
  static const struct {
    const char *target, *dtype;
    double peak;
  } rows[] = {{"a100_sxm", "fp16", 78e12},  {"a100_sxm", "bf16", 39e12},
              {"a100_pcie", "fp16", 78e12}, {"a100_pcie", "bf16", 39e12},
              {"v100_sxm2", "fp16", 31.4e12}, {"v100_sxm2", "bf16", 15.7e12}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char text[160];
    snprintf(text, sizeof text,
             "model m {\n dtype %s\n input x : [4096]\n y = relu(x)\n}\n", rows[i].dtype);
    Fx fx = run_on(text, rows[i].target);
    ck_assert_msg(nc(&fx, "y")->peak == rows[i].peak, "%s %s: %g", rows[i].target,
                  rows[i].dtype, nc(&fx, "y")->peak);
    ck_assert(!nc(&fx, "y")->tensor);
    tc_free(fx.tc);
  }
}
END_TEST

/* R-PAR-002, R-PAR-003: TP 8 x DP 2 on 2 nodes of 8 H100 SXM.  w is one
 * GPU's 1/8 of a [1024, 1024] bf16 weight: 1024 x 128 = 131072 parameters
 * on the GPU, 1048576 in all; 262144 bytes.  The data group is ranks 0 and
 * 8 (stride 8), one per node, so the gradient all-reduce is all
 * InfiniBand: 2 x 1/2 x 262144 / 1 = 262144 bytes, 262144 / 50e9 s, and
 * 0 on NVLink.  Adam: 12 x 131072 = 1572864 bytes.  The explicit
 * all-reduce of x (bf16 [64, 1024], 131072 bytes) over the tensor group
 * (8 ranks in one node) moves 2 x 7/8 x 131072 = 229376 bytes on NVLink
 * per pass, x 2 in train mode (forward and backward: 458752). */
START_TEST(parallel_tp_dp) {
  Fx fx = run("model m {\n dtype bf16\n mode train\n"
              " parallel { nodes = 2; gpus_per_node = 8; tensor = 8 }\n"
              " input x : [64, 1024]\n weight w : [1024, 1024 / 8] shard=tensor\n"
              " y = matmul(x, w)\n s = allreduce(x, group=tensor)\n}\n");
  EQ(fx.c->params, 1048576);
  EQ(fx.c->gpu_params, 131072);
  EQ(fx.c->footprint.weights, 262144);
  EQ(fx.c->footprint.optimizer, 12.0 * 131072);
  ck_assert_int_eq(fx.c->ncollectives, 2);
  const Collective *t = &fx.c->collectives[0], *g = &fx.c->collectives[1];
  ck_assert_int_eq(t->group, PG_TENSOR);
  ck_assert_int_eq(t->ranks, 8);
  EQ(t->nvlink_bytes, 2 * 229376);
  EQ(t->ib_bytes, 0);
  ck_assert_int_eq(g->node, -1);
  ck_assert_int_eq(g->group, PG_DATA);
  ck_assert_int_eq(g->ranks, 2);
  EQ(g->nvlink_bytes, 0);
  EQ(g->ib_bytes, 262144);
  EQ(g->ib_time, 262144 / 50e9);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-003: group= picks the ranks, and the shapes follow: on 2 x 8 with
 * tensor 8, reduce_scatter over tensor of bf16 [64, 1024] along axis 1 is
 * [64, 128] and moves 7/8 x 131072 = 114688 bytes on NVLink; allgather
 * over tensor along axis 0 is [512, 1024] (a 1 MiB buffer, 7/8 of it,
 * 917504 bytes); the default group, data (ranks 0 and 8), puts an
 * all-reduce's 2 x 1/2 x 131072 = 131072 bytes on InfiniBand. */
START_TEST(parallel_groups) {
  Fx fx = run("model m {\n dtype bf16\n"
              " parallel { nodes = 2; gpus_per_node = 8; tensor = 8 }\n"
              " input x : [64, 1024]\n"
              " r = reduce_scatter(x, axis=1, group=tensor)\n"
              " a = allgather(x, axis=0, group=tensor)\n s = allreduce(x)\n}\n");
  ck_assert_int_eq(tc_node(fx.tc, "r")->type->dims[1], 128);
  ck_assert_int_eq(tc_node(fx.tc, "a")->type->dims[0], 512);
  const Collective *r = &fx.c->collectives[0], *a = &fx.c->collectives[1],
                   *s = &fx.c->collectives[2];
  EQ(r->nvlink_bytes, 114688);
  EQ(r->ib_bytes, 0);
  EQ(a->nvlink_bytes, 917504);
  ck_assert_int_eq(s->group, PG_DATA);
  EQ(s->nvlink_bytes, 0);
  EQ(s->ib_bytes, 131072);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-004, R-PAR-005: ZeRO on a bf16 [1024, 1024] weight, S = 2097152
 * bytes, 1048576 parameters (Adam 12582912 bytes), 16 data ranks on 2 x 8.
 * Stage 3: weights, gradients and Adam state / 16 = 131072, 131072 and
 * 786432 bytes per GPU; two all-gathers of the weights (forward, backward)
 * and a reduce-scatter of the gradients, each 7/8 S = 1835008 bytes on
 * NVLink and 1/2 x S/8 = 131072 on InfiniBand: 3 x 131072 = 393216 on IB,
 * 1.5x the stage-0 all-reduce's 2 x 1/2 x S/8 = 262144 (Rajbhandari et
 * al. 2020, section 7.2.2: 3 Psi against 2 Psi); the same 1.5x on all
 * links, 3 x 1966080 = 5898240 against 3932160.  Hybrid (shard = 8): the
 * three stay in a node (0 on IB) and the gradient shards, S/8 = 262144
 * bytes, are all-reduced over the 2 replicas (one per node): 2 x 1/2 x
 * 262144 = 262144 on IB; per GPU / 8: 262144, 262144, 1572864.  Stage 2
 * on one node of 8: a reduce-scatter and an all-gather, 2 x 7/8 S, the
 * all-reduce's bytes; gradients and Adam / 8, the weights whole. */
/* `fmt` with its one %s replaced by `keys`, analysed. */
static Fx run_plan(const char *fmt, const char *keys) {
  char text[400];
  snprintf(text, sizeof text, fmt, keys);
  return run(text);
}

START_TEST(parallel_zero) {
  const char *fmt = "model m {\n dtype bf16\n mode train\n parallel { %s }\n"
                    " input x : [64, 1024]\n weight w : [1024, 1024]\n"
                    " y = matmul(x, w)\n}\n";
  Fx z0 = run_plan(fmt, "nodes = 2; gpus_per_node = 8");
  Fx z3 = run_plan(fmt, "nodes = 2; gpus_per_node = 8; zero = 3");
  Fx hy = run_plan(fmt, "nodes = 2; gpus_per_node = 8; zero = 3; shard = 8");
  Fx z2 = run_plan(fmt, "gpus_per_node = 8; zero = 2");
  const double S = 2097152;
  ck_assert_int_eq(z0.c->ncollectives, 1);
  EQ(z0.c->collectives[0].ib_bytes, 262144);
  EQ(z0.c->footprint.total - z0.c->footprint.activations, S + S + 12582912);
  EQ(z3.c->footprint.weights, 131072);
  EQ(z3.c->footprint.gradients, 131072);
  EQ(z3.c->footprint.optimizer, 786432);
  ck_assert_int_eq(z3.c->footprint.weight_shards, 16);
  ck_assert_int_eq(z3.c->ncollectives, 3);
  double ib = 0, all = 0;
  for (int i = 0; i < 3; i++) {
    const Collective *c = &z3.c->collectives[i];
    ck_assert_int_eq(c->group, PG_SHARD);
    EQ(c->nvlink_bytes, 1835008);
    EQ(c->ib_bytes, 131072);
    ib += c->ib_bytes;
    all += c->ib_bytes + c->nvlink_bytes;
  }
  ck_assert_str_eq(z3.c->collectives[0].kind, "allgather");
  ck_assert_str_eq(z3.c->collectives[2].kind, "reduce_scatter");
  EQ(ib, 393216);
  EQ(ib / z0.c->collectives[0].ib_bytes, 1.5);
  EQ(all, 5898240);
  EQ(all / (z0.c->collectives[0].ib_bytes + z0.c->collectives[0].nvlink_bytes), 1.5);
  ck_assert_int_eq(hy.c->ncollectives, 4);
  for (int i = 0; i < 3; i++) EQ(hy.c->collectives[i].ib_bytes, 0);
  const Collective *rep = &hy.c->collectives[3];
  ck_assert_int_eq(rep->group, PG_REPLICA);
  ck_assert_int_eq(rep->ranks, 2);
  EQ(rep->buffer, 262144);
  EQ(rep->ib_bytes, 262144);
  EQ(rep->nvlink_bytes, 0);
  EQ(hy.c->footprint.weights, 262144);
  EQ(hy.c->footprint.optimizer, 1572864);
  ck_assert_int_eq(z2.c->ncollectives, 2);
  EQ(z2.c->collectives[0].nvlink_bytes + z2.c->collectives[1].nvlink_bytes,
     2 * 7.0 / 8 * S);
  EQ(z2.c->footprint.weights, S);
  EQ(z2.c->footprint.gradients, S / 8);
  EQ(z2.c->footprint.optimizer, 12582912.0 / 8);
  tc_free(z0.tc);
  tc_free(z3.tc);
  tc_free(hy.tc);
  tc_free(z2.tc);
}
END_TEST

/* R-PAR-007: the seed's all-reduce beside a matmul.  The step is at least
 * max(compute, communication) with overlap and their sum without: y is
 * 2 x 1 x 100000 x 70000 = 14 GFLOP on 14.0 GB, 14.0e9 / 3.35e12 s
 * memory-bound; the all-reduce 24.5e9 / 450e9 + 1.75e9 / 50e9 s. */
START_TEST(parallel_overlap) {
  const char *fmt = "model m {\n dtype bf16\n parallel { nodes = 2; gpus_per_node = 8%s }\n"
                    " input x : [1, 100_000]\n weight w : [100_000, 70_000]\n"
                    " y = matmul(x, w)\n input g : [7_000_000_000]\n s = allreduce(g)\n}\n";
  Fx no = run_plan(fmt, "");
  Fx yes = run_plan(fmt, "; overlap = true");
  double comm = 24.5e9 / 450e9 + 1.75e9 / 50e9;
  double compute = nc(&no, "y")->time_s;
  EQ(compute, (2e9 * 7 + 2e5 + 2 * 7e4) / 3.35e12);
  EQ(no.c->collective_time, comm);
  EQ(no.c->time_s, compute + comm);
  EQ(no.c->overlap_time, comm);
  EQ(cost_step_time(no.c), compute + comm);
  EQ(cost_step_time(yes.c), comm);
  EQ(yes.c->time_s, compute + comm);
  tc_free(no.tc);
  tc_free(yes.tc);
}
END_TEST

/* R-PAR-009: 4 stages x 2 data ranks on one node of 8, 8 microbatches,
 * bf16 in train mode.  Per microbatch, x is [4096, 1024] (8388608 bytes).
 * Kernels: a [4096,1024]x[1024,1024] matmul is 3 x 8.59 GFLOP = 26.0 us
 * (compute-bound); the add 2 x 3 x 8388608 bytes = 15.0 us; the head
 * [4096,1024]x[1024,4096] 3 x 34.4 GFLOP = 104 us.  The 8 layers split 2
 * per stage; emb goes to the first stage, head to the last:
 *   first  = emb + 2 layers, middle = 2 layers, last = 2 layers + head;
 * every stage but the last sends x forward, every one but the first a
 * gradient back: 8388608 / 450e9 = 18.6 us each.  Step = (8 + 4 - 1) x
 * the slowest (the last) + the gradient all-reduce; bubble 3 / 11.
 * Memory (1F1B: the first stage holds 4 microbatches, stage 1 three, the
 * last one): first = weights 3 x 2 MiB, gradients as much, Adam 12 x
 * 3 x 1048576, activations what backward reads (R-TRAIN-002): 4 x (the
 * input x, which emb's matmul saves, and the x each of its 2 layers'
 * matmuls saves: 3 x 8 MiB) = 100663296 (add saves nothing, so no h);
 * the last stage one microbatch of its 2 layers' x (the head's matmul
 * saves the last of them), 16 MiB; y, read by no backward, is not kept. */
START_TEST(parallel_pipeline) {
  Fx fx = run("model m {\n dtype bf16\n mode train\n"
              " parallel { gpus_per_node = 8; pipeline = 4; data = 2; microbatches = 8 }\n"
              " input x : [4096, 1024]\n weight emb : [1024, 1024]\n x = matmul(x, emb)\n"
              " repeat 8 {\n  weight w : [1024, 1024]\n  h = matmul(x, w)\n  x = add(x, h)\n }\n"
              " weight head : [1024, 4096]\n y = matmul(x, head)\n}\n");
  const PipelineCost *pc = &fx.c->pipe;
  ck_assert_int_eq(pc->stages, 4);
  EQ(pc->layers, 2);
  EQ(pc->bubble, 3.0 / 11);
  double mm = 3 * 2.0 * 4096 * 1024 * 1024 / 990e12;
  double add = 2 * 3 * 8388608.0 / 3.35e12;
  double head = 3 * 2.0 * 4096 * 1024 * 4096 / 990e12;
  double send = 8388608 / 450e9;
  EQ(pc->send_bytes, 8388608);
  EQ(pc->send_time, send);
  ck_assert(!pc->send_ib);
  EQ(pc->compute[PIPE_FIRST], mm + 8 * (mm + add) / 4);
  EQ(pc->compute[PIPE_MIDDLE], 8 * (mm + add) / 4);
  EQ(pc->compute[PIPE_LAST], 8 * (mm + add) / 4 + head);
  EQ(pc->time[PIPE_FIRST], pc->compute[PIPE_FIRST] + send);
  EQ(pc->time[PIPE_MIDDLE], pc->compute[PIPE_MIDDLE] + 2 * send);
  EQ(pc->time[PIPE_LAST], pc->compute[PIPE_LAST] + send);
  EQ(pc->step_time, 11 * pc->time[PIPE_LAST]);
  const double MiB = 1048576;
  EQ(pc->footprint[PIPE_FIRST].weights, 6 * MiB);
  EQ(pc->footprint[PIPE_FIRST].optimizer, 12 * 3 * MiB);
  EQ(pc->footprint[PIPE_FIRST].activations, 4 * 3 * 8 * MiB);
  EQ(pc->footprint[PIPE_MIDDLE].activations, 3 * 2 * 8 * MiB);
  EQ(pc->footprint[PIPE_LAST].weights, 12 * MiB);
  EQ(pc->footprint[PIPE_LAST].activations, 2 * 8 * MiB);
  ck_assert_int_eq(pc->worst, PIPE_FIRST);
  EQ(fx.c->footprint.total, 6 * MiB + 6 * MiB + 36 * MiB + 96 * MiB);
  /* the gradient all-reduce of the first stage's 6 MiB over 2 ranks */
  const Collective *g = &fx.c->collectives[fx.c->ncollectives - 1];
  EQ(g->buffer, 6 * MiB);
  EQ(cost_step_time(fx.c), pc->step_time + g->time_s);
  tc_free(fx.tc);
  /* R-PAR-010 in a stage: with the layer checkpointed, a layer keeps only
   * its input x (8 MiB), and the stage one copy's relu output (8 MiB, what
   * the block saves) while it recomputes: the first stage 4 x (8 + 2 x 8)
   * MiB + 8 MiB = 104 MiB, against 4 x (8 + 2 x 16) = 160 MiB without */
  fx = run("model m {\n dtype bf16\n mode train\n"
           " parallel { gpus_per_node = 8; pipeline = 4; data = 2; microbatches = 8 }\n"
           " input x : [4096, 1024]\n weight emb : [1024, 1024]\n x = matmul(x, emb)\n"
           " repeat 8 {\n  weight w : [1024, 1024]\n"
           "  checkpoint {\n   h = matmul(x, w)\n   h = relu(h)\n   x = add(x, h)\n  }\n }\n"
           " weight head : [1024, 4096]\n y = matmul(x, head)\n}\n");
  EQ(fx.c->pipe.footprint[PIPE_FIRST].activations, 104 * MiB);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-010: checkpoint { } in train mode.  x is bf16 [1024, 1024]
 * (2 MiB); each of the 4 copies runs h = matmul (2 x 1024^3 = 2147483648
 * FLOPs forward), relu and add.  Checkpointed, each op runs its forward
 * once more: the matmul 4 x its forward (3 + 1), relu and add 3 x (2 + 1).
 * Kept for backward: each copy's input x (4 x 2 MiB: the input, then each
 * copy's carried x), plus what one copy saves while it is recomputed (the
 * relu's output, 2 MiB): 10 MiB.  Without the block every copy's matmul
 * saves its x and relu its output: 4 x (2 + 2) = 16 MiB (R-TRAIN-002). */
START_TEST(parallel_checkpoint) {
  const char *body = "   h = matmul(x, w)\n   h = relu(h)\n   x = add(x, h)\n";
  char text[400];
  snprintf(text, sizeof text,
           "model m {\n mode train\n input x : [1024, 1024]\n repeat 4 {\n"
           "  weight w : [1024, 1024]\n  checkpoint {\n%s  }\n }\n}\n", body);
  Fx ck = run(text);
  snprintf(text, sizeof text,
           "model m {\n mode train\n input x : [1024, 1024]\n repeat 4 {\n"
           "  weight w : [1024, 1024]\n%s }\n}\n", body);
  Fx no = run(text);
  const double MiB = 1048576, fwd = 2.0 * 1024 * 1024 * 1024;
  /* nodes: x, w, h (matmul), h (relu), x (add) */
  EQ(ck.c->nodes[2].flops, 4 * fwd);
  EQ(no.c->nodes[2].flops, 3 * fwd);
  EQ(ck.c->nodes[3].flops, 3 * MiB);
  EQ(ck.c->nodes[4].bytes, 3 * 3 * 2 * MiB);
  EQ(ck.c->footprint.activations, 10 * MiB);
  EQ(no.c->footprint.activations, 16 * MiB);
  tc_free(ck.tc);
  tc_free(no.tc);
}
END_TEST

/* R-COST-007: a transfer costs bytes over PCIe, times its count. */
START_TEST(transfer_in_loop) {
  Fx fx = run("model m {\n dtype fp16\n host h : [4096, 4096]\n"
              " loop 1000 {\n  d = to_device(h)\n }\n}\n");
  const NodeCost *d = nc(&fx, "d");
  EQ(d->bytes, 33554432);
  ck_assert_int_eq(d->bound, BOUND_PCIE);
  EQ(d->time_s, 33554432 / 64e9);
  EQ(fx.c->transfer_time, 1000.0 * 33554432 / 64e9);
  EQ(fx.c->bytes, 0); /* HBM bytes of kernels only */
  tc_free(fx.tc);
}
END_TEST

/* R-TRAIN-001: backward 2x for contractions, 1x for the rest; gradients,
 * Adam state and the gradient all-reduce. */
START_TEST(train_mode) {
  Fx inf = run("model m {\n dtype bf16\n input x : [64, 1024]\n weight w : [1024, 1024]\n"
               " y = matmul(x, w)\n z = relu(y)\n}\n");
  Fx tr = run("model m {\n dtype bf16\n mode train\n parallel { nodes = 2; gpus_per_node = 8 }\n"
              " input x : [64, 1024]\n weight w : [1024, 1024]\n"
              " y = matmul(x, w)\n z = relu(y)\n}\n");
  EQ(nc(&tr, "y")->flops, 3 * nc(&inf, "y")->flops);
  EQ(nc(&tr, "y")->bytes, 3 * nc(&inf, "y")->bytes);
  EQ(nc(&tr, "z")->flops, 2 * nc(&inf, "z")->flops);
  EQ(tr.c->footprint.weights, 2.0 * 1024 * 1024);
  EQ(tr.c->footprint.gradients, 2.0 * 1024 * 1024);
  EQ(tr.c->footprint.optimizer, 12.0 * 1024 * 1024);
  ck_assert_int_eq(tr.c->ncollectives, 1);
  const Collective *g = &tr.c->collectives[0];
  ck_assert_int_eq(g->node, -1);
  EQ(g->buffer, 2.0 * 1024 * 1024);
  EQ(g->nvlink_bytes, 2 * 7.0 / 8 * g->buffer);
  EQ(g->ib_bytes, g->buffer / 8);
  EQ(tr.c->time_s, cost_kernel(tr.c, 0).time_s + cost_kernel(tr.c, 1).time_s + g->time_s);
  ck_assert_int_eq(inf.c->ncollectives, 0);
  EQ(inf.c->footprint.gradients + inf.c->footprint.optimizer, 0);
  tc_free(inf.tc);
  tc_free(tr.tc);
}
END_TEST

/* R-TRAIN-002: a training step keeps what backward reads, the tensors
 * each op's row saves (PyTorch's derivatives.yaml).  bf16 [1024, 1024] is
 * 2097152 bytes.  h = mul(x, x) saves x (both operands, one tensor), g =
 * gelu(h) its input h, out = add(g, g) nothing: x and h, 4194304 bytes.
 * In a fused region h stays on chip: the region keeps its input x in its
 * place and recomputes h in backward: 2097152.  relu saves its output, so
 * a = relu(h) keeps a, not h: x and a, 4194304; a layernorm over rows of
 * 1024 keeps its input and two fp32 statistics per row: 2097152 + 1024 x 8;
 * dropout a one-byte mask per element: 1048576. */
START_TEST(train_keeps_saved_tensors) {
  Fx fx = run("model m {\n dtype bf16\n mode train\n input x : [1024, 1024]\n"
              " h = mul(x, x)\n g = gelu(h)\n out = add(g, g)\n}\n");
  EQ(fx.c->footprint.activations, 4194304);
  tc_free(fx.tc);
  fx = run("model m {\n dtype bf16\n mode train\n input x : [1024, 1024]\n"
           " fused r {\n  h = mul(x, x)\n  g = gelu(h)\n }\n out = add(g, g)\n}\n");
  EQ(fx.c->footprint.activations, 2097152);
  tc_free(fx.tc);
  fx = run("model m {\n dtype bf16\n mode train\n input x : [1024, 1024]\n"
           " h = mul(x, x)\n a = relu(h)\n v = reshape(a, [1048576])\n"
           " out = add(v, v)\n}\n");
  EQ(fx.c->footprint.activations, 4194304);
  tc_free(fx.tc);
  fx = run("model m {\n dtype bf16\n mode train\n input x : [1024, 1024]\n"
           " weight w : [1024]\n h = layernorm(x, w)\n}\n");
  EQ(fx.c->footprint.activations, 2097152 + 1024 * 8);
  tc_free(fx.tc);
  fx = run("model m {\n dtype bf16\n mode train\n input x : [1024, 1024]\n"
           " h = dropout(x)\n}\n");
  EQ(fx.c->footprint.activations, 1048576);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-010, issue 30 item 2: a name rebound inside a checkpoint block
 * keeps nothing more than one named apart.  bf16 [1024, 1024] x (2 MiB)
 * through repeat 4 of a block whose middle value is `x` in one program
 * and `y` in the other: each keeps the four copies' inputs x (8 MiB) and
 * one copy's relu output while recomputing (2 MiB): 10 MiB. */
START_TEST(checkpoint_rebinding) {
  const char *fmt = "model m {\n dtype bf16\n mode train\n input x : [1024, 1024]\n"
                    " repeat 4 {\n  weight w : [1024, 1024]\n  checkpoint {\n"
                    "   h = relu(matmul(x, w))\n   %s = add(x, h)\n"
                    "   x = add(%s, h)\n  }\n }\n}\n";
  char text[400];
  snprintf(text, sizeof text, fmt, "x", "x");
  Fx a = run(text);
  snprintf(text, sizeof text, fmt, "y", "y");
  Fx b = run(text);
  EQ(a.c->footprint.activations, 10 * 1048576.0);
  EQ(b.c->footprint.activations, 10 * 1048576.0);
  tc_free(a.tc);
  tc_free(b.tc);
}
END_TEST

/* R-TRAIN-004: gradients in the weights' dtype (the ZeRO paper's 2 + 2 +
 * 12 = 16 bytes a parameter), or fp32 with fp32_grads (Megatron-LM's main
 * grads: 18).  bf16 [1024, 1024] weight: 2 MiB of gradients, 4 MiB. */
START_TEST(fp32_grads) {
  const char *fmt = "model m {\n dtype bf16\n mode train\n parallel { fp32_grads = %s }\n"
                    " input x : [16, 1024]\n weight w : [1024, 1024]\n"
                    " y = matmul(x, w)\n}\n";
  char text[300];
  snprintf(text, sizeof text, fmt, "false");
  Fx a = run(text);
  snprintf(text, sizeof text, fmt, "true");
  Fx b = run(text);
  const double P = 1048576;
  EQ(a.c->footprint.gradients, 2 * P);
  EQ(b.c->footprint.gradients, 4 * P);
  EQ(a.c->footprint.weights + a.c->footprint.gradients + a.c->footprint.optimizer, 16 * P);
  EQ(b.c->footprint.weights + b.c->footprint.gradients + b.c->footprint.optimizer, 18 * P);
  tc_free(a.tc);
  tc_free(b.tc);
}
END_TEST

/* Issue 18's ops, each figure by hand (bf16: 2 bytes; bool: 1).
 * R-COST-001: element-wise weights (where 1, clip 1 per bound, erf 1,
 * gelu 5 with erf and 9 with tanh, hardsigmoid 4, hardswish 5, softplus 3,
 * rope 3) over x [4, 1024] = 4096 elements. */
START_TEST(issue18_elementwise) {
  Fx fx = run("model m {\n dtype bf16\n input x : [4, 1024]\n"
              " input c : bool[4, 1024]\n input cs, sn : [1024]\n"
              " wh = where(c, x, 0)\n cl2 = clip(x, min=-1, max=1)\n"
              " cl1 = clip(x, max=6)\n er = erf(x)\n"
              " ge = gelu(x, approximate=\"none\")\n"
              " gt = gelu(x, approximate=\"tanh\")\n g0 = gelu(x)\n"
              " hs = hardsigmoid(x)\n hw = hardswish(x)\n sp = softplus(x)\n"
              " ro = rope(x, cs, sn)\n}\n");
  EQ(nc(&fx, "wh")->flops, 4096);
  EQ(nc(&fx, "wh")->bytes, 4096 + 8192 + 8192); /* c, x, out; 0 is free */
  EQ(nc(&fx, "cl2")->flops, 2 * 4096);
  EQ(nc(&fx, "cl2")->bytes, 2 * 8192);
  EQ(nc(&fx, "cl1")->flops, 4096);
  EQ(nc(&fx, "er")->flops, 4096);
  EQ(nc(&fx, "ge")->flops, 5 * 4096);
  EQ(nc(&fx, "gt")->flops, 9 * 4096);
  EQ(nc(&fx, "g0")->flops, 5 * 4096); /* the default is PyTorch's: erf */
  EQ(nc(&fx, "hs")->flops, 4 * 4096);
  EQ(nc(&fx, "hw")->flops, 5 * 4096);
  EQ(nc(&fx, "sp")->flops, 3 * 4096);
  EQ(nc(&fx, "ro")->flops, 3 * 4096);
  EQ(nc(&fx, "ro")->bytes, 8192 + 2048 + 2048 + 8192);
  tc_free(fx.tc);
}
END_TEST

/* R-COST-020: a bias= is added in the epilogue: + 1 FLOP per output
 * element and + the bias once, in the GEMM's kernel. */
START_TEST(issue18_bias) {
  Fx fx = run("model m {\n dtype bf16\n input x : [64, 1024]\n"
              " weight w : [1024, 512]\n weight b : [512]\n"
              " mb = matmul(x, w, bias=b)\n"
              " input img : [1, 3, 32, 32]\n weight f : [8, 3, 3, 3]\n"
              " weight fb : [8]\n cb = conv2d(img, f, padding=1, bias=fb)\n}\n");
  /* 2*64*512*1024 + 64*512 */
  EQ(nc(&fx, "mb")->flops, 67108864.0 + 32768);
  EQ(nc(&fx, "mb")->bytes, 2.0 * (65536 + 524288 + 512 + 32768));
  /* 2*8*32*32*27 + 8*32*32 */
  EQ(nc(&fx, "cb")->flops, 442368.0 + 8192);
  EQ(nc(&fx, "cb")->bytes, 2.0 * (3072 + 216 + 8 + 8192));
  ck_assert_int_eq(fx.c->nkernels, 2);
  tc_free(fx.tc);
}
END_TEST

/* `body` (a model's statements and its closing brace) in bf16, once in
 * inference and once in train mode. */
static void run_both(const char *body, Fx *inf, Fx *tr) {
  char src[1024];
  snprintf(src, sizeof src, "model m {\n dtype bf16\n%s", body);
  *inf = run(src);
  snprintf(src, sizeof src, "model m {\n dtype bf16\n mode train\n%s", body);
  *tr = run(src);
}

/* R-COST-021: batchnorm is 2 FLOPs per element in inference (x*a + c) and
 * layernorm's 8 with batch statistics in train mode, times the train
 * factor 2; groupnorm and instancenorm 8.  xb [2, 8, 4, 4] = 256. */
START_TEST(issue18_norms) {
  const char *body = " input xb : [2, 8, 4, 4]\n"
                     " weight s, bb, mu, var : [8]\n"
                     " bn = batchnorm(xb, s, bb, mu, var, epsilon=1e-5)\n"
                     " gn = groupnorm(xb, s, bb, groups=2)\n"
                     " ino = instancenorm(xb)\n}\n";
  Fx fx, tr;
  run_both(body, &fx, &tr);
  EQ(nc(&fx, "bn")->flops, 2 * 256);
  EQ(nc(&fx, "bn")->bytes, 2.0 * (256 + 4 * 8 + 256));
  EQ(nc(&tr, "bn")->flops, 2 * 8 * 256);
  EQ(nc(&tr, "bn")->bytes, 2 * 2.0 * (256 + 4 * 8 + 256));
  EQ(nc(&fx, "gn")->flops, 8 * 256);
  EQ(nc(&fx, "gn")->bytes, 2.0 * (256 + 2 * 8 + 256));
  EQ(nc(&tr, "gn")->flops, 2 * 8 * 256);
  EQ(nc(&fx, "ino")->flops, 8 * 256);
  EQ(nc(&fx, "ino")->bytes, 2.0 * (256 + 256));
  tc_free(fx.tc);
  tc_free(tr.tc);
  /* R-COST-004: in a fused region a conv with its bias, a batchnorm and a
   * hardswish are one kernel: FLOPs add (2*8*16*72 + 8*16 conv, 2*256
   * batchnorm, 5*256 hardswish); bytes are xi, the weights and the one
   * output leaving the region */
  Fx fu = run("model m {\n dtype bf16\n input xi : [2, 8, 4, 4]\n"
              " weight wc : [8, 8, 3, 3]\n weight s, bb, mu, var : [8]\n"
              " fused block {\n  cv = conv2d(xi, wc, padding=1, bias=bb)\n"
              "  bn = batchnorm(cv, s, bb, mu, var)\n  hw = hardswish(bn)\n"
              " }\n}\n");
  ck_assert_int_eq(fu.c->nkernels, 1);
  Kernel k = cost_kernel(fu.c, 0);
  EQ(k.flops, 2.0 * 256 * 72 + 256 + 2 * 256 + 5 * 256);
  EQ(k.bytes, 2.0 * (256 + 576 + 4 * 8 + 256));
  tc_free(fu.tc);
}
END_TEST

/* R-COST-001, R-TRAIN-001: conv1d (Whisper's front end, and depthwise),
 * conv3d and conv_transpose2d; in train mode 3x, as every contraction. */
START_TEST(issue18_convs) {
  const char *body =
      " input a : [2, 80, 3000]\n weight w1 : [384, 80, 3]\n"
      " c1 = conv1d(a, w1, padding=1)\n weight wd : [80, 1, 3]\n"
      " dw = conv1d(a, wd, padding=1, groups=80)\n"
      " input v : [1, 4, 8, 16, 16]\n weight w3 : [8, 4, 3, 3, 3]\n"
      " c3 = conv3d(v, w3, padding=1)\n"
      " input t : [1, 16, 8, 8]\n weight wt : [16, 8, 4, 4]\n"
      " ct = conv_transpose2d(t, wt, stride=2, padding=1)\n}\n";
  Fx fx, tr;
  run_both(body, &fx, &tr);
  /* [2, 384, 3000] = 2304000 outputs, 2 * 80 * 3 FLOPs each */
  EQ(nc(&fx, "c1")->flops, 1105920000.0);
  EQ(nc(&fx, "c1")->bytes, 2.0 * (480000 + 92160 + 2304000));
  /* [2, 80, 3000] = 480000 outputs, 2 * 1 * 3 each */
  EQ(nc(&fx, "dw")->flops, 2880000.0);
  /* [1, 8, 8, 16, 16] = 16384 outputs, 2 * 4 * 27 each */
  EQ(nc(&fx, "c3")->flops, 3538944.0);
  EQ(nc(&fx, "c3")->bytes, 2.0 * (8192 + 864 + 16384));
  /* Hout = (8-1)*2 - 2*1 + (4-1) + 0 + 1 = 16: [1, 8, 16, 16]; each of the
   * 64 input positions into 8 * 4 * 4 outputs over 16 channels:
   * 2 * 64 * 8 * 16 * 16 */
  EQ(nc(&fx, "ct")->flops, 262144.0);
  EQ(nc(&fx, "ct")->bytes, 2.0 * (1024 + 2048 + 2048));
  EQ(nc(&tr, "c1")->flops, 3 * 1105920000.0);
  EQ(nc(&tr, "ct")->flops, 3 * 262144.0);
  tc_free(fx.tc);
  tc_free(tr.tc);
}
END_TEST

/* R-COST-008: custom costs are as stated, on the tensor-core roof. */
START_TEST(custom_as_stated) {
  Fx fx = run("model m {\n dtype fp16\n input t : [1, 4096]\n"
              " d = custom(t, flops = 14e9, bytes = 14e9, out = [1, 4096])\n}\n");
  const NodeCost *d = nc(&fx, "d");
  EQ(d->flops, 14e9);
  EQ(d->bytes, 14e9);
  EQ(ROOF(d).intensity, 1);
  EQ(ROOF(d).attainable, 3.35e12);
  EQ(d->peak, 990e12);
  tc_free(fx.tc);
  /* twice the bandwidth doubles a memory-bound attainable; twice the FLOP/s
   * does not move it */
  fx = run_on("model m {\n dtype fp16\n input t : [1, 4096]\n"
              " d = custom(t, flops = 14e9, bytes = 14e9, out = [1, 4096])\n}\n",
              "examples/seed/h100_2x_bw.roof");
  EQ(ROOF(nc(&fx, "d")).attainable, 6.7e12);
  tc_free(fx.tc);
  fx = run_on("model m {\n dtype fp16\n input t : [1, 4096]\n"
              " d = custom(t, flops = 14e9, bytes = 14e9, out = [1, 4096])\n}\n",
              "examples/seed/h100_2x_flops.roof");
  EQ(ROOF(nc(&fx, "d")).attainable, 3.35e12);
  tc_free(fx.tc);
}
END_TEST

/* R-ROUTE-001: topk's two results are one kernel.  logits bf16 [64, 8]:
 * 512 compares (1 per element); bytes: logits 64*8*2 = 1024 read, values
 * bf16 [64, 2] 256 and indices int64 [64, 2] 1024 written: 2304.  The
 * indices node has no kernel and no figures of its own; train mode 2x. */
START_TEST(issue19_topk) {
  const char *body = " input logits : [64, 8]\n"
                     " scores, idx = topk(logits, 2, axis=-1)\n}\n";
  Fx fx, tr;
  run_both(body, &fx, &tr);
  EQ(nc(&fx, "scores")->flops, 512);
  EQ(nc(&fx, "scores")->bytes, 1024 + 256 + 1024);
  EQ(nc(&fx, "idx")->flops, 0);
  EQ(nc(&fx, "idx")->bytes, 0);
  ck_assert_int_eq(nc(&fx, "idx")->kernel, -1);
  ck_assert_int_eq(tc_node(fx.tc, "idx")->type->dtype, DT_INT64);
  ck_assert_int_eq(tc_node(fx.tc, "idx")->type->dims[1], 2);
  ck_assert_int_eq(fx.c->nkernels, 1);
  EQ(nc(&tr, "scores")->flops, 2 * 512);
  EQ(nc(&tr, "scores")->bytes, 2 * 2304);
  tc_free(fx.tc);
  tc_free(tr.tc);
  /* out=fp32 stores the values in fp32 (64*2*4 = 512 bytes); the indices
   * stay int64: 1024 + 512 + 1024 */
  fx = run("model m {\n input logits : [64, 8]\n"
           " scores, idx = topk(logits, 2, out=fp32)\n}\n");
  ck_assert_int_eq(tc_node(fx.tc, "scores")->type->dtype, DT_FP32);
  ck_assert_int_eq(tc_node(fx.tc, "idx")->type->dtype, DT_INT64);
  EQ(nc(&fx, "scores")->bytes, 1024 + 512 + 1024);
  tc_free(fx.tc);
}
END_TEST

/* R-CACHE-001, R-CACHE-002: caches in repeat 2, bf16 [4, 8, 1024, 128]
 * each, one new entry x [4, 8, 1, 128] appended to each (8192 bytes).
 * append: x read and written, 2 * 8192 = 16384 bytes, 0 FLOPs; the KV
 * cache line counts each cache at its appended length 1025: 2 copies x 2
 * caches x 4*8*1025*128*2 = 4 x 8,396,800 = 33,587,200 bytes; the
 * appends' results are the caches' storage, not activations (x alone is
 * live: 8192, with the attention output, 8192: 16384); attention reads
 * the whole cache, 1025 positions: 4*8*1025*128*2 = 8,396,800 each for
 * k and v, plus q and the output 8192 each. */
START_TEST(issue19_cache) {
  Fx fx = run("model m {\n input x : [4, 8, 1, 128]\n repeat 2 {\n"
              "  cache k_cache, v_cache : [4, 8, 1024, 128]\n"
              "  k_all = append(k_cache, x, axis=2)\n"
              "  v_all = append(v_cache, x, axis=2)\n"
              "  a = attention(x, k_all, v_all)\n }\n}\n");
  EQ(nc(&fx, "k_all")->flops, 0);
  EQ(nc(&fx, "k_all")->bytes, 16384);
  ck_assert_int_eq(tc_node(fx.tc, "k_all")->type->dims[2], 1025);
  EQ(fx.c->footprint.kv_cache, 33587200);
  EQ(fx.c->footprint.activations, 16384);
  EQ(fx.c->footprint.weights, 0);
  EQ(fx.c->params, 0);
  EQ(fx.c->footprint.total, 33587200 + 16384);
  EQ(nc(&fx, "a")->bytes, 2 * 8396800.0 + 2 * 8192);
  tc_free(fx.tc);
  /* in a fused region with the rope that makes the new keys: x (8192), cos
   * and sin (256 each) read, the new entries (8192) written; neither the
   * cache nor k is read or written: 16896 */
  fx = run("model m {\n input x : [4, 8, 1, 128]\n input c, s : [1, 128]\n"
           " cache kc : [4, 8, 16, 128]\n fused r {\n  k = rope(x, c, s)\n"
           "  k_all = append(kc, k, axis=2)\n }\n"
           " a = attention(x, k_all, k_all)\n}\n");
  EQ(fx.c->fused[0].bytes, 8192 + 256 + 256 + 8192);
  tc_free(fx.tc);
  /* mode train: caches are not trained (no gradients, no Adam state);
   * an append costs 2x as movement does: 32768 bytes */
  fx = run("model m {\n mode train\n input x : [4, 8, 1, 128]\n"
           " cache kc : [4, 8, 1024, 128]\n k_all = append(kc, x, axis=2)\n}\n");
  EQ(nc(&fx, "k_all")->bytes, 2 * 16384);
  EQ(fx.c->footprint.kv_cache, 8396800);
  EQ(fx.c->footprint.gradients, 0);
  EQ(fx.c->footprint.optimizer, 0);
  EQ(fx.c->params, 0);
  tc_free(fx.tc);
}
END_TEST

/* R-MOE-002, R-MOE-003, R-MOE-004, R-MOE-005: one expert, w1 bf16 [64, 128] (8192 parameters, 16384
 * bytes), written on h [T, 64], in `experts 8 top 2`.
 * T = 1: each token runs 2 experts, so the matmul's 2*1*128*64 = 16384
 * FLOPs run twice: 32768; h (128 B) and y (256 B) move twice: 768; the
 * experts touched are 8*(1 - (6/8)^1) = 2, so w1 is read twice: 32768;
 * bytes 33536.  T = 64: 2*64*128*64*2 = 2097152 FLOPs; (8192 + 16384)*2 =
 * 49152 activation bytes; 8*(1 - 0.75^64) = 7.99999992 experts' weights.
 * Parameters 8 * 8192 = 65536, active 2 * 8192 = 16384; weights 8 x 16384
 * = 131072 bytes.  capacity_factor=1.25 imbalance=1.2: the body runs
 * 2*1.25*1.2 = 3 times the tokens: 3 * 16384 = 49152 FLOPs at T = 1.
 * Train mode: the matmul's 3x, and 12 bytes of Adam state per parameter
 * (all 8 experts'): 786432. */
START_TEST(issue19_experts) {
  const char *fmt = "model m {\n%s input h : [%d, 64]\n"
                    " experts 8 top 2%s {\n  weight w1 : [64, 128]\n"
                    "  y = matmul(h, w1)\n }\n}\n";
  char src[512];
  snprintf(src, sizeof src, fmt, "", 1, "");
  Fx fx = run(src);
  EQ(nc(&fx, "y")->flops, 32768);
  EQ(nc(&fx, "y")->bytes, 768 + 32768);
  EQ(fx.c->params, 65536);
  EQ(fx.c->active_params, 16384);
  ck_assert(fx.c->experts);
  EQ(fx.c->footprint.weights, 131072);
  EQ(fx.c->footprint.activations, 128 + 2 * 256);
  ck_assert_int_eq(tc_node(fx.tc, "y")->count, 1);
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, "", 64, "");
  fx = run(src);
  EQ(nc(&fx, "y")->flops, 2097152);
  EQ(nc(&fx, "y")->bytes, 49152 + 16384 * 8 * (1 - pow(0.75, 64)));
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, "", 1, " capacity_factor=1.25 imbalance=1.2");
  fx = run(src);
  EQ(nc(&fx, "y")->flops, 3 * 16384);
  tc_free(fx.tc);
  /* 10^12 experts, top 1, 4 tokens: 1 - 1/E rounds to 1 in a double, yet
   * the 4 tokens touch E(1 - (1 - 1/E)^4) = 4 - 6e-12 experts: w2 [4, 4]
   * (32 bytes) read 4 times plus h and y2 (32 + 32): 192 */
  fx = run("model m {\n input h : [4, 4]\n experts 1000000000000 top 1 {\n"
           "  weight w2 : [4, 4]\n  y2 = matmul(h, w2)\n }\n}\n");
  ck_assert_msg(fabs(nc(&fx, "y2")->bytes - 192) < 1e-9, "%.17g",
                nc(&fx, "y2")->bytes);
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, " mode train\n", 1, "");
  fx = run(src);
  EQ(nc(&fx, "y")->flops, 3 * 32768);
  EQ(fx.c->footprint.gradients, 131072);
  EQ(fx.c->footprint.optimizer, 12 * 65536);
  tc_free(fx.tc);
}
END_TEST

/* R-MOE-006: with an expert group of e > 1 GPUs each layer copy of an
 * experts block dispatches its routed tokens and combines them back, two
 * all-to-alls of T*K rows of the block's input times capacity_factor,
 * priced as the all_to_all op (R-COLL-001: (N-1)/N per link).  2 nodes of
 * 8 H100 SXM, expert = 16 (= data), `experts 16 top 2 capacity_factor=1.25`
 * on h bf16 [64, 64] (8192 bytes) in repeat 4: buffer 8192 * 2 * 1.25 =
 * 20480 bytes; 8 ranks per node on 2 nodes: NVLink 7/8 * 20480 = 17920
 * bytes (17920 / 450e9 = 39.82 ns), InfiniBand 1/2 * 20480 / 8 = 1280
 * bytes (1280 / 50e9 = 25.6 ns); count 4 (the repeat).  Inference: dispatch
 * and combine, 2 * 4 * (17920 / 450e9 + 1280 / 50e9) = 523.4 ns of
 * collectives.  Train: the two again for backward, then the gradient
 * all-reduce over data.  Without the expert key: none. */
START_TEST(moe_all_to_all) {
  const char *fmt = "model m {\n dtype bf16\n%s"
                    " parallel { nodes = 2; gpus_per_node = 8; expert = %d }\n"
                    " input h : [64, 64]\n repeat 4 {\n"
                    "  experts 16 top 2 capacity_factor=1.25 {\n"
                    "   weight w1 : [64, 64]\n   y = matmul(h, w1)\n  }\n }\n}\n";
  char src[512];
  snprintf(src, sizeof src, fmt, "", 16);
  Fx fx = run(src);
  ck_assert_int_eq(fx.c->ncollectives, 2);
  static const char *const what[] = {"dispatch", "combine", "dispatch, backward",
                                     "combine, backward"};
  for (int i = 0; i < 2; i++) {
    const Collective *k = &fx.c->collectives[i];
    ck_assert_int_eq(k->node, -1);
    ck_assert_str_eq(k->kind, "all_to_all");
    ck_assert_str_eq(k->what, what[i]);
    ck_assert_int_eq(k->group, PG_EXPERT);
    ck_assert_int_eq(k->ranks, 16);
    EQ(k->buffer, 20480);
    EQ(k->nvlink_bytes, 17920);
    EQ(k->ib_bytes, 1280);
    EQ(k->nvlink_time, 17920 / 450e9);
    EQ(k->ib_time, 1280 / 50e9);
    EQ(k->count, 4);
  }
  EQ(fx.c->collective_time, 2 * 4 * (17920 / 450e9 + 1280 / 50e9));
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, " mode train\n", 16);
  fx = run(src);
  ck_assert_int_eq(fx.c->ncollectives, 5);
  for (int i = 0; i < 4; i++) {
    ck_assert_str_eq(fx.c->collectives[i].what, what[i]);
    EQ(fx.c->collectives[i].buffer, 20480);
  }
  ck_assert_str_eq(fx.c->collectives[4].kind, "allreduce");
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, "", 1);
  fx = run(src);
  ck_assert_int_eq(fx.c->ncollectives, 0);
  tc_free(fx.tc);
}
END_TEST

/* R-MOE-007: a token is sent once per rank its K experts sit on.  8
 * experts top 2 on bf16 [64, 64] (8192 B of tokens), by hand:
 *   e = 4 (2 experts a rank): 4 (1 - C(6,2)/C(8,2)) = 4 x 13/28 = 13/7 ranks;
 *   e = 8 (1 a rank): 2, the K experts' own ranks;
 *   n_group=4 topk_group=2 on e = 4 (a group a rank): the chosen 2 groups'
 *     4 experts, 4 x 2/4 x (1 - C(2,2)/C(4,2)) = 2 x 5/6 = 5/3;
 *   the same on e = 2 (2 groups a rank): j of a rank's groups chosen with
 *     P(1) = C(2,1) C(2,1)/C(4,2) = 4/6, P(2) = 1/6, hit then 1 - C(2,2)/C(4,2)
 *     = 5/6 and 1: 2 (4/6 x 5/6 + 1/6) = 13/9; without groups 2 (1 - C(4,2)/
 *     C(8,2)) = 11/7. */
START_TEST(moe_dispatch_per_rank) {
  const char *fmt = "model m {\n dtype bf16\n"
                    " parallel { gpus_per_node = %d; expert = %d }\n"
                    " input h : [64, 64]\n"
                    " experts 8 top 2 %s {\n"
                    "  weight w1 : [64, 64]\n  y = matmul(h, w1)\n }\n}\n";
  static const struct { int e; const char *opts; double ranks; } rows[] = {
      {4, "", 13.0 / 7},
      {8, "", 2},
      {4, "n_group=4 topk_group=2", 5.0 / 3},
      {2, "n_group=4 topk_group=2", 13.0 / 9},
      {2, "", 11.0 / 7},
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    char src[512];
    snprintf(src, sizeof src, fmt, rows[r].e, rows[r].e, rows[r].opts);
    Fx fx = run(src);
    ck_assert_int_eq(fx.c->ncollectives, 2);
    for (int i = 0; i < 2; i++) EQ(fx.c->collectives[i].buffer, 8192 * rows[r].ranks);
    tc_free(fx.tc);
  }
}
END_TEST

/* R-PAR-009 with R-MOE-003/006: pipeline 2 x expert 8 on 2 nodes of 8
 * H100 SXM (data 8: the expert group ranks 0..7 of a stage, one node), 4
 * microbatches, `repeat 4` of `experts 8 top 2` on bf16 h [64, 64].  Each
 * layer's dispatch and combine (and their backward) send T x K = 128 rows
 * of 128 bytes, 16384 bytes, 7/8 of it on NVLink: 14336 bytes, 14336 /
 * 450e9 s each.  A stage runs 2 layers per microbatch, so 2 x 4 of them
 * join its compute (not 4 x 4 once a step after the pipeline); the step
 * is 5 x the slowest stage plus the gradient all-reduce alone.  Per GPU a
 * stage holds 2 layers of 8 / 8 experts of w1 (8192 bytes) and the
 * router (1024 bytes): 2 x (8192 + 1024) = 18432 bytes of weights, not
 * 2 x (8 x 8192 + 1024) = 133120; Adam 12 x 9216 parameters. */
START_TEST(moe_pipeline) {
  Fx fx = run("model m {\n dtype bf16\n mode train\n"
              " parallel { nodes = 2; gpus_per_node = 8; pipeline = 2; expert = 8;"
              " microbatches = 4 }\n input h : [64, 64]\n repeat 4 {\n"
              "  weight wr : [64, 8]\n  r = matmul(h, wr)\n"
              "  experts 8 top 2 {\n   weight w1 : [64, 64]\n   y = matmul(h, w1)\n  }\n"
              "  h = add(h, y)\n }\n}\n");
  const PipelineCost *pc = &fx.c->pipe;
  ck_assert_int_eq(pc->stages, 2);
  double a2a = 14336 / 450e9;
  const Collective *k = &fx.c->collectives[0];
  ck_assert_int_eq(k->group, PG_EXPERT);
  EQ(k->buffer, 16384);
  EQ(k->nvlink_bytes, 14336);
  EQ(k->ib_bytes, 0);
  EQ(k->time_s, a2a);
  EQ(k->count, 4);
  double r = 3 * fmax(2.0 * 64 * 8 * 64 / 990e12, (8192 + 1024 + 1024) / 3.35e12);
  double y = nc(&fx, "y")->time_s;
  double add = 2 * (3 * 8192) / 3.35e12;
  EQ(pc->compute[PIPE_FIRST], 4 * (r + y + add) / 2 + 2 * 4 * a2a);
  EQ(pc->compute[PIPE_LAST], pc->compute[PIPE_FIRST]);
  EQ(pc->footprint[PIPE_FIRST].weights, 18432);
  EQ(pc->footprint[PIPE_FIRST].optimizer, 12 * 9216);
  const Collective *g = &fx.c->collectives[fx.c->ncollectives - 1];
  ck_assert_str_eq(g->what, "gradients");
  EQ(g->buffer, 18432);
  EQ(cost_step_time(fx.c), 5 * pc->time[PIPE_FIRST] + g->time_s);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-012: a cross_entropy of vocab-parallel logits on tensor 8 (one
 * node of 8 H100 SXM): x bf16 [64, 1024] by a shard=tensor head
 * [1024, 4000 / 8] gives each GPU 500 of the 4000 logits of 64 tokens;
 * the loss all-reduces three fp32 values a token over the tensor group,
 * 64 x 4 = 256 bytes each: 2 x 7/8 x 256 = 448 bytes on NVLink, 448 /
 * 450e9 s, once a step even in train mode (the backward is local).  In
 * train mode the head's input x, bf16 [64, 1024] = 131,072 bytes, is
 * all-reduced in backward (R-PAR-019): 2 x 7/8 x 131,072 = 229,376 bytes.
 * Without the split (tensor 1) there are none. */
START_TEST(vocab_parallel_cross_entropy) {
  const char *fmt = "model m {\n dtype bf16\n mode train\n"
                    " parallel { gpus_per_node = %d; tensor = %d }\n"
                    " input x : [64, 1024]\n input labels : int64[64]\n"
                    " weight head : [1024, 4000 / %d] shard=tensor\n"
                    " logits = matmul(x, head)\n loss = cross_entropy(logits, labels)\n}\n";
  char src[400];
  snprintf(src, sizeof src, fmt, 8, 8, 8);
  Fx fx = run(src);
  ck_assert_int_eq(fx.c->ncollectives, 4);
  static const char *const what[] = {"cross-entropy max", "cross-entropy target",
                                     "cross-entropy sum"};
  for (int i = 0; i < 3; i++) {
    const Collective *k = &fx.c->collectives[i];
    ck_assert_int_eq(k->node, -1);
    ck_assert_str_eq(k->kind, "allreduce");
    ck_assert_str_eq(k->what, what[i]);
    ck_assert_int_eq(k->group, PG_TENSOR);
    EQ(k->buffer, 256);
    EQ(k->nvlink_bytes, 448);
    EQ(k->ib_bytes, 0);
    EQ(k->time_s, 448 / 450e9);
    EQ(k->count, 1);
  }
  const Collective *h = &fx.c->collectives[3];
  ck_assert_str_eq(h->what, "head input gradient");
  EQ(h->buffer, 131072);
  EQ(h->nvlink_bytes, 229376);
  EQ(fx.c->collective_time, 3 * 448 / 450e9 + 229376 / 450e9);
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, 1, 1, 1);
  fx = run(src);
  ck_assert_int_eq(fx.c->ncollectives, 0);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-011: tensor 8 x pipeline 2 on 2 nodes of 8 H100 SXM: the stages
 * are a node apart and x, bf16 [4096, 1024] (8,388,608 bytes), is whole
 * on each of a stage's 8 tensor ranks.  Each sends 1/8 of it over its
 * own InfiniBand link (1,048,576 bytes at 50 GB/s) and the next stage
 * all-gathers the rest over NVLink (7/8 x 8,388,608 = 7,340,032 bytes at
 * 450 GB/s).  With sequence parallelism (a reduce_scatter over the tensor
 * group) x is each rank's slice already and goes as it is: 8,388,608 at
 * 50 GB/s. */
START_TEST(pipeline_scatter_gather) {
  const char *fmt = "model m {\n dtype bf16\n mode train\n"
                    " parallel { nodes = 2; gpus_per_node = 8; tensor = 8; pipeline = 2 }\n"
                    " input x : [4096, 1024]\n repeat 2 {\n"
                    "  weight w : [1024, 1024]\n  h = matmul(x, w)\n%s"
                    "  x = add(x, h)\n }\n}\n";
  char src[400];
  snprintf(src, sizeof src, fmt, "");
  Fx fx = run(src);
  const PipelineCost *pc = &fx.c->pipe;
  ck_assert(pc->send_ib);
  EQ(pc->send_bytes, 8388608);
  EQ(pc->send_split, 8);
  EQ(pc->send_time, 1048576 / 50e9 + 7340032 / 450e9);
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, "  h = reduce_scatter(h, axis=0, group=tensor)\n"
                                 "  h = allgather(h, axis=0, group=tensor)\n");
  fx = run(src);
  pc = &fx.c->pipe;
  EQ(pc->send_split, 1);
  EQ(pc->send_time, 8388608 / 50e9);
  tc_free(fx.tc);
}
END_TEST

/* R-PAR-013: zero = 3 over 16 ranks (2 nodes of 8).  The units are each
 * copy of `repeat 4` (w, bf16 [1024, 1536]: 3 MiB) and the root (emb and
 * head, bf16 [1024, 1024] each: 4 MiB); two are gathered at once, the
 * root and a layer: 7 MiB on top of the 1/16 shards.  Stage 2 gathers
 * nothing (its weights are whole); shard = 8 gathers the same 7 MiB. */
START_TEST(zero3_gathered_units) {
  const char *fmt = "model m {\n dtype bf16\n mode train\n"
                    " parallel { nodes = 2; gpus_per_node = 8; zero = %d%s }\n"
                    " input x : [64, 1024]\n weight emb : [1024, 1024]\n"
                    " x = matmul(x, emb)\n repeat 4 {\n  weight w : [1024, 1536]\n"
                    "  h = matmul(x, w)\n  x = matmul(h, transpose(w, [1, 0]))\n }\n"
                    " weight head : [1024, 1024]\n y = matmul(x, head)\n}\n";
  const double MiB = 1048576;
  char src[600];
  snprintf(src, sizeof src, fmt, 3, "");
  Fx fx = run(src);
  const Footprint *f = &fx.c->footprint;
  EQ(f->units, 7 * MiB);
  EQ(f->gathered, 7 * MiB);
  EQ(f->weights, 16 * MiB / 16);
  EQ(f->total, f->weights + f->gradients + f->optimizer + f->activations +
                   7 * MiB);
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, 2, "");
  fx = run(src);
  EQ(fx.c->footprint.gathered, 0);
  tc_free(fx.tc);
  snprintf(src, sizeof src, fmt, 3, "; shard = 8");
  fx = run(src);
  EQ(fx.c->footprint.weights, 16 * MiB / 8);
  EQ(fx.c->footprint.gathered, 7 * MiB);
  tc_free(fx.tc);
}
END_TEST

Suite *cost_suite(void) {
  Suite *s = suite_create("cost");
  TCase *tc = tcase_create("cost");
  tcase_add_test(tc, six_ops);
  tcase_add_test(tc, precisions);
  tcase_add_test(tc, other_classes);
  tcase_add_test(tc, pool_windows);
  tcase_add_test(tc, fused_region);
  tcase_add_test(tc, fused_region_view_edges);
  tcase_add_test(tc, new_views_free);
  tcase_add_test(tc, split_parts_free);
  tcase_add_test(tc, movement_figures);
  tcase_add_test(tc, cross_entropy_figures);
  tcase_add_test(tc, repeat_counts_exact);
  tcase_add_test(tc, footprint_weights);
  tcase_add_test(tc, footprint_inputs_per_copy);
  tcase_add_test(tc, noop_cast_is_free);
  tcase_add_test(tc, footprint_view_keeps_source);
  tcase_add_test(tc, occupancy_table);
  tcase_add_test(tc, linear_folds_batch_into_m);
  tcase_add_test(tc, occupancy_rules);
  tcase_add_test(tc, allreduce_table);
  tcase_add_test(tc, allreduce_per_direction);
  tcase_add_test(tc, vector_16bit_peaks);
  tcase_add_test(tc, transfer_in_loop);
  tcase_add_test(tc, train_mode);
  tcase_add_test(tc, train_keeps_saved_tensors);
  tcase_add_test(tc, checkpoint_rebinding);
  tcase_add_test(tc, fp32_grads);
  tcase_add_test(tc, custom_as_stated);
  tcase_add_test(tc, issue18_elementwise);
  tcase_add_test(tc, issue18_bias);
  tcase_add_test(tc, issue18_norms);
  tcase_add_test(tc, issue18_convs);
  tcase_add_test(tc, parallel_tp_dp);
  tcase_add_test(tc, parallel_groups);
  tcase_add_test(tc, parallel_zero);
  tcase_add_test(tc, parallel_overlap);
  tcase_add_test(tc, issue19_topk);
  tcase_add_test(tc, issue19_cache);
  tcase_add_test(tc, issue19_experts);
  tcase_add_test(tc, moe_all_to_all);
  tcase_add_test(tc, moe_dispatch_per_rank);
  tcase_add_test(tc, moe_pipeline);
  tcase_add_test(tc, vocab_parallel_cross_entropy);
  tcase_add_test(tc, pipeline_scatter_gather);
  tcase_add_test(tc, zero3_gathered_units);
  tcase_add_test(tc, parallel_pipeline);
  tcase_add_test(tc, parallel_checkpoint);
  suite_add_tcase(s, tc);
  return s;
}
