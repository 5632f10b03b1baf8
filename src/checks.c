/* SPDX-License-Identifier: MIT */
/*
 * checks.c: the check registry and what the checks share.  One row per
 * check (name, default severity, one-line summary, the --explain text, the
 * function); the functions live one per file in src/checks/.  checks_run()
 * runs every row on one model: policy (-W, -Wno-, -Werror, -w, `# rooflint:
 * ignore[...]`) is applied afterwards by diag_apply_policy(), so a check
 * simply reports under its own name.
 *
 * Every threshold is a named constant in rooflint.h and is quoted into the
 * explain texts by the preprocessor, so the documentation cannot drift from
 * the code.  The shared notion of "a node that matters" lives here too: a
 * performance finding about a node that takes less than the launch overhead,
 * or less than CHECK_MIN_STEP_PCT of the step, is noise (overhead-bound
 * speaks for the former).
 */
#include <stdlib.h>
#include <string.h>

#include "rooflint.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* ------------------------------------------------------------------ */
/* The --explain texts.                                                 */
/* ------------------------------------------------------------------ */

/* The texts are laid out as they print. */
/* clang-format off */

static const char explain_stray_fp32[] =
    "The model's `dtype` (bf16, fp16, fp8) is its plan.  An op whose widest\n"
    "input is fp32 (or fp64) computes at that precision instead.  A\n"
    "contraction leaves the tensor cores for the plain fp32 cores and moves\n"
    "twice the bytes, so it loses twice on the roofline: the flat roof drops\n"
    "(990 -> 67 TFLOP/s on an H100, 14.8x) and the intensity halves (1365 ->\n"
    "683 FLOP/B for a 4096^3 matmul).  Elementwise, reduction and movement\n"
    "ops in fp32 are memory-bound, so they are reported with the bytes they\n"
    "double.  The 16-bit figures come from costing the same graph with every\n"
    "inferred fp32 replaced by the plan's dtype.\n"
    "\n"
    "fp32 is reported where it enters: at every contraction computing in it,\n"
    "and at the first other op it reaches from its source.  Ops that merely\n"
    "inherit fp32 from an op already reported are counted in that report.  A\n"
    "note points at the source (the `fp32` of a declaration, a\n"
    "`cast(x, fp32)`, or an op written with precision=), followed back\n"
    "through views and elementwise ops, with a fix-it writing the plan's\n"
    "dtype there.\n"
    "\n"
    "Not reported: ops written with `precision=` (fp32 on purpose), plans\n"
    "wider than 16 bits, and fp32 work that takes less than the launch\n"
    "overhead or less than " STR(CHECK_MIN_STEP_PCT) "% of the step time.\n"
    "\n"
    "Example:\n"
    "    dtype bf16\n"
    "    weight w : fp32[4096, 4096]     # fix: weight w : bf16[4096, 4096]\n"
    "    y = matmul(x, w)\n";

static const char explain_unfused[] =
    "Elementwise ops do about one FLOP per byte: they are memory-bound on\n"
    "every GPU, and their time is the bytes they move.  When two or more\n"
    "form a chain (or a tree) whose intermediates have exactly one consumer\n"
    "and are not outputs, every intermediate is written to HBM and read back\n"
    "for nothing.  Run as one kernel, the chain reads its inputs once and\n"
    "writes its result once.  A chain that starts at a matmul's output is\n"
    "that matmul's epilogue (bias, activation): the matmul stays outside the\n"
    "fused region, the chain after it is fused.\n"
    "\n"
    "The message names the chain, the bytes its kernels move unfused and the\n"
    "bytes one fused kernel would move, and the time fusing saves per step.\n"
    "When the chain's statements are consecutive in one block, a fix-it\n"
    "wraps them in `fused NAME { ... }`.\n"
    "\n"
    "Not reported: ops already in a `fused` region; intermediates with\n"
    "several consumers or named by `output`; chains whose kernels together\n"
    "take less than the launch overhead (overhead-bound speaks for those);\n"
    "chains whose fusion saves less than "
    STR(CHECK_UNFUSED_MIN_PCT) "% of the step time.\n"
    "\n"
    "Example:\n"
    "    y = matmul(x, w)\n"
    "    h = add(y, b)                   # fix: fused a_fused { h = ...\n"
    "    a = gelu(h)                     #      ... a = gelu(h) }\n";

static const char explain_memory_bound[] =
    "A matmul, conv2d or attention does I = FLOPs / bytes operations per\n"
    "byte it moves.  Below the ridge (peak FLOP/s / memory bandwidth: 295.5\n"
    "FLOP/B for bf16 on an H100) its ceiling is bandwidth x I, not the peak:\n"
    "a faster chip does not help; more bandwidth, or more work per byte,\n"
    "does.  Batch-1 decode is the classic case: every weight is read to do\n"
    "two FLOPs.\n"
    "\n"
    "The message gives the intensity, the ridge, the ceiling and its share\n"
    "of peak.  A note shows what doubling the peak and doubling the\n"
    "bandwidth would give.  Another names, for each `let` the op's shape\n"
    "depends on, the smallest value at which the op would reach the compute\n"
    "roof.  It is found by re-running the analysis with the let overridden:\n"
    "doubling, then bisection, up to "
    STR(CHECK_CROSSOVER_LIMIT) " (2^20), with at most "
    STR(CHECK_CROSSOVER_RERUNS) "\n"
    "re-analyses per model.  No note when no value crosses.\n"
    "\n"
    "When the op's kernel also fills under " STR(CHECK_OCC_MAX_UTIL_PCT)
    "% of the SMs (batch-1 decode:\n"
    "32 output tiles on 132 SMs), a note says so instead of a separate\n"
    "low-occupancy warning: the seed calls it two failures with one fix, and\n"
    "a few SMs cannot draw the whole bandwidth either.  The note names the\n"
    "fix at the current batch: split-K, or for attention splitting the keys\n"
    "(flash-decoding).\n"
    "\n"
    "Fix: more work per weight (a larger batch, grouped-query attention),\n"
    "or accept it: decode is memory-bound by nature.\n"
    "\n"
    "Not reported: ops that take less than the launch overhead or less than\n"
    STR(CHECK_MIN_STEP_PCT) "% of the step time, and ops whose ceiling is still at least "
    STR(CHECK_MEMBOUND_MAX_PEAK_PCT) "%\n"
    "of peak (just under the ridge: fixing them buys at most 1.25x).\n"
    "\n"
    "Example:\n"
    "    let B = 1\n"
    "    input x : [B, 70000]\n"
    "    weight w : [70000, 100000]\n"
    "    y = matmul(x, w)      # 1.0 FLOP/B; compute roof at B >= 298\n";

static const char explain_low_occupancy[] =
    "A thread block runs on one SM; with fewer blocks than SMs the rest sit\n"
    "idle whichever roof the kernel is under.  Blocks are counted as the\n"
    "occupancy model does: matmul and conv output tiles times batch,\n"
    "attention batch x heads x query tiles, elementwise ops by elements per\n"
    "block, or the op's `blocks=`.  A fused region is one kernel: its\n"
    "contractions that read only the region's inputs add up (a merged qkv\n"
    "or gate/up GEMM), and it has at least the blocks of its largest\n"
    "member.  The message gives the blocks, the SMs, the utilisation and\n"
    "the idle SMs (1 block on an H100: 0.76%, 131 idle).\n"
    "Reported when the utilisation is under " STR(CHECK_OCC_MAX_UTIL_PCT)
    "%, at least a quarter of the\n"
    "SMs idle: 128 blocks on 132 SMs (97.0%) is a full machine.\n"
    "\n"
    "Fix: more work per launch (batching; split-K for skinny matmuls), or\n"
    "fusion with a neighbour so the launch does more.\n"
    "\n"
    "Not reported: kernels that take less than the launch overhead (the\n"
    "launch dominates them: see overhead-bound) or less than "
    STR(CHECK_MIN_STEP_PCT) "% of the\n"
    "step time; custom() ops without `blocks=` (their block count is\n"
    "unknown); kernels holding a contraction that memory-bound reports (its\n"
    "diagnostic carries the occupancy as a note: one fix, one warning).\n"
    "\n"
    "Example:\n"
    "    y = matmul(x, w, blocks=1)      # 1 block on 132 SMs: 0.76%\n";

static const char explain_wave_tail[] =
    "Blocks run in waves of one block per SM, and a kernel lasts as long as\n"
    "its last wave.  One block past a full wave (133 blocks on 132 SMs) costs\n"
    "a whole second wave for almost no work: utilisation halves to 50.4%.\n"
    "The message gives the waves, the utilisation, and the nearest block\n"
    "counts that fill whole waves.\n"
    "\n"
    "Reported when there are at least two waves, the last wave is less than\n"
    STR(CHECK_TAIL_MAX_FILL_PCT) "% full, and at least "
    STR(CHECK_TAIL_MIN_IDLE_PCT)
    "% of the kernel's block slots are idle.  Not\n"
    "for kernels under the launch overhead or under "
    STR(CHECK_MIN_STEP_PCT) "% of the step, nor\n"
    "for custom() ops without `blocks=`, nor for memory-bound kernels: their\n"
    "blocks share HBM, so a sparse last wave draws more bandwidth per block\n"
    "and costs far less than a wave.\n"
    "\n"
    "Fix: choose a batch, sequence or tile size that makes the block count a\n"
    "multiple of the SM count, or just under one.\n"
    "\n"
    "Example:\n"
    "    y = matmul(x, w, blocks=133)    # 2 waves, 50.4%; 132 or 264 fill\n";

static const char explain_transfer[] =
    "Copies between host and device (`to_device`, `to_host`) cross PCIe\n"
    "(64 GB/s on an H100, about fifty times slower than HBM), and inside\n"
    "`loop N` they run N times.  When the operand is the same every\n"
    "iteration (a weight, a tensor defined before the loop, or an op of only\n"
    "such tensors) the copy can run once before the loop, which then reads\n"
    "the device copy from HBM.  An `input` or `host` declared inside the\n"
    "loop is new data every iteration and is not reported.\n"
    "\n"
    "The message gives bytes per run x runs, the PCIe time, and a note the\n"
    "cost once hoisted.  A fix-it moves the statement before the loop when\n"
    "the operand is defined outside it.  Seed figures: 33.6 MB x 1000 =\n"
    "33.6 GB, 0.52 s at 64 GB/s, against 0.01 s to read it from HBM.\n"
    "\n"
    "Not reported: copies whose repetition wastes less than "
    STR(CHECK_TRANSFER_MIN_PCT) "% of the\n"
    "step time, and loops of one trip.\n"
    "\n"
    "Example:\n"
    "    host x : [4096, 4096]\n"
    "    loop 1000 {\n"
    "      xd = to_device(x)             # fix: move it before the loop\n"
    "    }\n";

static const char explain_cross_node[] =
    "Inside a node GPUs talk over NVLink (900 GB/s on an H100), across\n"
    "nodes over InfiniBand (50 GB/s).  A hierarchical all-reduce across\n"
    "nodes adds an InfiniBand leg that carries a fraction of the NVLink\n"
    "bytes and still takes most of the time.  When the model's footprint\n"
    "(weights, gradients, optimizer state, activations) fits in one GPU or\n"
    "in the GPUs of one node, spanning nodes pays for that leg and buys no\n"
    "memory.  Seed figures: 2 nodes for a 14.0 GB model add 1.75 GB and\n"
    "35.0 ms of InfiniBand per step.\n"
    "\n"
    "The message gives the InfiniBand bytes and time per step and their\n"
    "share of the collective time; a note gives the time inside one node.\n"
    "\n"
    "Fix: keep the plan inside one node (`nodes = 1`), or, if more nodes are\n"
    "needed for throughput, overlap the all-reduce with the backward pass.\n"
    "\n"
    "Example:\n"
    "    mode train\n"
    "    parallel { nodes = 2; gpus_per_node = 8 }\n";

static const char explain_capacity[] =
    "The footprint is the weights, plus in train mode their gradients and\n"
    "the optimizer state (Adam: two fp32 moments and an fp32 master copy,\n"
    "12 bytes per parameter), plus the largest set of live activations.\n"
    "When it exceeds the GPU's memory the step cannot run at all, so this\n"
    "check is an error by default.  The message gives the footprint by part\n"
    "against the capacity; a note points at the largest weight.\n"
    "\n"
    "Fix: a narrower dtype, a smaller batch, sharding the optimizer state or\n"
    "the weights across GPUs, or a target with more memory.\n"
    "\n"
    "Example:\n"
    "    mode train\n"
    "    weight w : [70000, 100000]      # 7e9 parameters: 112 GB with Adam\n";

static const char explain_overhead[] =
    "Every kernel pays a launch overhead (a few microseconds) before any\n"
    "work starts.  A kernel whose roofline time is below it spends most of\n"
    "its life being launched, whichever roof it is under.  Up to "
    STR(CHECK_OVERHEAD_MAX_SINGLE) " such\n"
    "kernels are reported one by one; more are summarised once per model\n"
    "with their count and the time their launches take per step.\n"
    "\n"
    "Fix: fuse small ops into their neighbours (`fused NAME { ... }`), or\n"
    "capture the whole step in a CUDA graph so launches are paid once.\n"
    "\n"
    "Not reported: when those launches cost less than "
    STR(CHECK_OVERHEAD_MIN_PCT) "% of the step's\n"
    "roofline time (a few small ops next to large ones).\n"
    "\n"
    "Example:\n"
    "    input x : [1, 4096]\n"
    "    y = relu(x)                     # 4.89 ns of work, 5 us to launch\n";

static const char explain_tc_alignment[] =
    "Tensor cores work on fixed tiles: 16-bit types want M, N and K (conv\n"
    "channels, attention's head size) in multiples of 8 elements, 8-bit\n"
    "types multiples of 16, tf32 multiples of 4.  Other sizes are padded by\n"
    "the library or sent to slower kernels whose loads are not 16-byte\n"
    "aligned.  The message gives each such dimension, the padded size and\n"
    "the extra work the padding costs (GPT-2's vocabulary: N = 50257 ->\n"
    "50264).\n"
    "\n"
    "A note names the tensor that sets the dimension, traced back through\n"
    "views (a transposed tied embedding), and suggests a multiple of "
    STR(CHECK_TC_PAD_MULTIPLE) ":\n"
    "beyond the padded work, a size off the multiple keeps the library from\n"
    "its aligned-load kernels.\n"
    "\n"
    "Fix: pad the dimension in the model (nanoGPT pads the vocabulary to\n"
    "50304, a multiple of 64) and ignore the padding.\n"
    "\n"
    "Not reported: dimensions smaller than the multiple (a batch of one is a\n"
    "memory-bound problem, not an alignment one), fp32 without tensor cores,\n"
    "and ops under the launch overhead or under "
    STR(CHECK_MIN_STEP_PCT) "% of the step.\n"
    "\n"
    "Example:\n"
    "    weight w_out : [768, 50257]\n"
    "    logits = matmul(h, w_out)       # N = 50257 -> 50264\n";

/* clang-format on */

/* ------------------------------------------------------------------ */
/* The registry.                                                        */
/* ------------------------------------------------------------------ */

static const CheckDesc registry[] = {
    {"stray-fp32", SEV_WARNING, true,
     "an op computes in fp32 inside a bf16, fp16 or fp8 plan",
     explain_stray_fp32, check_stray_fp32},
    {"unfused-elementwise", SEV_WARNING, true,
     "a chain of elementwise ops round-trips its intermediates through HBM",
     explain_unfused, check_unfused_elementwise},
    {"memory-bound", SEV_WARNING, true,
     "a matmul, conv2d or attention lies below the ridge of the target",
     explain_memory_bound, check_memory_bound},
    {"low-occupancy", SEV_WARNING, true,
     "a kernel's thread blocks leave a quarter or more of the SMs idle",
     explain_low_occupancy, check_low_occupancy},
    {"wave-tail", SEV_WARNING, true,
     "a kernel's last wave of thread blocks is mostly empty", explain_wave_tail,
     check_wave_tail},
    {"transfer-in-loop", SEV_WARNING, true,
     "a to_device or to_host of loop-invariant data runs every iteration",
     explain_transfer, check_transfer_in_loop},
    {"cross-node", SEV_WARNING, true,
     "the parallel plan spans nodes while the model fits in one",
     explain_cross_node, check_cross_node},
    {"capacity", SEV_ERROR, true,
     "the model's memory footprint exceeds the target's memory",
     explain_capacity, check_capacity},
    {"overhead-bound", SEV_WARNING, true,
     "kernels finish faster than the launch overhead", explain_overhead,
     check_overhead_bound},
    {"tc-alignment", SEV_WARNING, true,
     "a contraction dimension is not a multiple tensor cores want",
     explain_tc_alignment, check_tc_alignment},
};

#define NCHECKS ((int)(sizeof registry / sizeof registry[0]))

const CheckDesc *check_registry(int *n) {
  *n = NCHECKS;
  return registry;
}

const Program *checks_program(const CheckCtx *ctx) {
  if (ctx->program) return ctx->program;
  return ctx->reparse ? analyze_program(ctx->reparse) : NULL;
}

const CheckDesc *check_lookup(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NCHECKS; i++)
    if (strcmp(registry[i].name, name) == 0) return &registry[i];
  return NULL;
}

/* requires: a graph from sema without errors and its cost on ctx->target.
 * What several checks need is found once, before the first of them. */
void checks_run(const CheckCtx *ctx) {
  if (!ctx->model || !ctx->cost || !ctx->target) return;
  CheckShared sh;
  checks_shared_init(ctx, &sh);
  CheckCtx with = *ctx;
  with.shared = &sh;
  for (int i = 0; i < NCHECKS; i++) registry[i].run(&with);
  checks_shared_free(&sh);
}

/* ------------------------------------------------------------------ */
/* Shared helpers.                                                      */
/* ------------------------------------------------------------------ */

Diag *checks_report(const CheckCtx *ctx, const char *check, Loc loc,
                    const char *fmt, ...) {
  const CheckDesc *d = check_lookup(check);
  if (!d) die("checks_report: unregistered check '%s'", check);
  va_list ap;
  va_start(ap, fmt);
  Diag *r = diag_vreport(ctx->diags, d->severity, d->name, loc, fmt, ap);
  va_end(ap);
  return r;
}

bool checks_node_matters(const CheckCtx *ctx, int node) {
  const GNode *g = &ctx->model->nodes[node];
  const NodeCost *c = &ctx->cost->nodes[node];
  if (!g->op || g->op->cls == OC_VIEW || c->bound == BOUND_NONE) return false;
  if (c->time_s <= 0 || c->time_s < ctx->target->launch_overhead) return false;
  double step = ctx->cost->time_s;
  return step <= 0 || c->time_s * g->count >= step * CHECK_MIN_STEP_PCT / 100.0;
}

const char *checks_per_step(char *buf, size_t n, double count) {
  if (count == 1) {
    if (n) buf[0] = '\0';
    return buf;
  }
  char num[48];
  if (count < 1e6 && count == (double)(int64_t)count)
    snprintf(num, sizeof num, "%lld", (long long)count);
  else
    snprintf(num, sizeof num, "%.3g", count); /* "1e+18" */
  snprintf(buf, n, " (x%s per step)", num);
  return buf;
}

/* Messages name the part, not the vendor: "H100 SXM", as DESIGN.md shows. */
const char *checks_target_name(const Target *t) {
  static const char *const vendors[] = {"NVIDIA ", "AMD ", "Intel ", "Google "};
  if (!t->display || !*t->display) return t->name ? t->name : "the target";
  for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
    size_t n = strlen(vendors[i]);
    if (strncmp(t->display, vendors[i], n) == 0 && t->display[n])
      return t->display + n;
  }
  return t->display;
}

const char *checks_op_name(const GNode *g) {
  return g->op ? g->op->name : role_str(g->role);
}

/* The block of a statement that holds others (not `parallel`: its
 * entries are settings, never the subject of a fix-it). */
static const Block *body_of(const Stmt *s) {
  switch (s->kind) {
  case ST_MODEL:
  case ST_FUSED:
  case ST_TARGET_DEF:
  case ST_SECTION:
    return &s->def.body;
  case ST_REPEAT:
  case ST_LOOP:
    return &s->loop.body;
  default:
    return NULL;
  }
}

/* The last statement of b starting at or before `start`, or -1.  Slots
 * left NULL are stepped over. */
static int last_at_or_before(const Block *b, uint32_t start) {
  int lo = 0, hi = b->n - 1, best = -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, k = mid;
    while (k >= lo && !b->items[k]) k--;
    if (k < lo) {
      lo = mid + 1;
    } else if (b->items[k]->loc.start <= start) {
      best = k;
      lo = mid + 1;
    } else {
      hi = k - 1;
    }
  }
  return best;
}

bool checks_stmt_find(const Program *p, uint32_t start, StmtRef *out) {
  bool found = false;
  const Stmt *parent = NULL;
  /* Siblings do not overlap, so only the last one starting at or before
   * `start` can hold it; a match deeper down is the innermost. */
  for (const Block *b = p ? &p->top : NULL; b;) {
    int i = last_at_or_before(b, start);
    if (i < 0) break;
    const Stmt *s = b->items[i];
    if (s->loc.start == start) {
      *out = (StmtRef){s, b, i, parent};
      found = true;
    } else if (start >= s->loc.end) {
      break;
    }
    parent = s;
    b = body_of(s);
  }
  return found;
}

/* g reads a node of its own fused region. */
static bool reads_region(const Model *m, const GNode *g) {
  for (int j = 0; j < g->ninputs; j++)
    if (m->nodes[g->inputs[j]].region == g->region) return true;
  return false;
}

/* A fused region's contractions that read only the region's inputs run
 * side by side (a merged qkv or gate/up GEMM: one GEMM over the
 * concatenated weights), so their tiles add up; the other members work on
 * tiles their producers made, so the region has at least its largest
 * member's blocks.  Node i is a member of the kernel whose entry is slot:
 * b, side and at are per entry. */
static void add_member(const CheckCtx *ctx, int i, int slot, double *b,
                       double *side, int *at) {
  const GNode *g = &ctx->model->nodes[i];
  /* An opaque op states FLOPs and bytes, not its launch shape: the cost
   * model's guess from the output size is no ground for a finding. */
  if (g->op && g->op->cls == OC_OPAQUE && g->args->blocks <= 0) return;
  double nb = ctx->cost->nodes[i].blocks;
  if (g->region >= 0 && g->op && g->op->cls == OC_CONTRACTION &&
      !reads_region(ctx->model, g))
    side[slot] += nb;
  if (nb > b[slot]) {
    b[slot] = nb;
    at[slot] = i;
  }
}

void checks_kernel_blocks(const CheckCtx *ctx, double **blocks, int **node) {
  const ModelCost *c = ctx->cost;
  int nk = c->nkernels;
  double *b = arena_alloc(ctx->arena, (size_t)(nk + 1) * sizeof *b);
  double *side = xcalloc((size_t)nk + 1, sizeof *side);
  int *at = arena_alloc(ctx->arena, (size_t)(nk + 1) * sizeof *at);
  for (int k = 0; k < nk; k++) at[k] = c->kernel_node[k];
  for (int i = 0; i < ctx->model->nnodes; i++) {
    int k = c->nodes[i].kernel;
    if (k >= 0 && k < nk) add_member(ctx, i, k, b, side, at);
  }
  for (int k = 0; k < nk; k++)
    if (side[k] > b[k]) b[k] = side[k];
  free(side);
  *blocks = b;
  *node = at;
}

/* Appends x to a growing int array. */
static void push_int(int **v, int *n, int *cap, int x) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    *v = xrealloc(*v, (size_t)*cap * sizeof **v);
  }
  (*v)[(*n)++] = x;
}

/* The kernels that matter, with their per-entry arrays, grown together. */
typedef struct KernelList {
  int cap;
  double *side; /* per entry: the blocks of its side-by-side contractions */
} KernelList;

static void push_kernel(CheckShared *sh, KernelList *kl, int k, int at) {
  if (sh->nkernels == kl->cap) {
    kl->cap = kl->cap ? 2 * kl->cap : 16;
    size_t n = (size_t)kl->cap;
    sh->kernels = xrealloc(sh->kernels, n * sizeof *sh->kernels);
    sh->blocks = xrealloc(sh->blocks, n * sizeof *sh->blocks);
    sh->at = xrealloc(sh->at, n * sizeof *sh->at);
    sh->memory_bound = xrealloc(sh->memory_bound, n * sizeof *sh->memory_bound);
    kl->side = xrealloc(kl->side, n * sizeof *kl->side);
  }
  int q = sh->nkernels++;
  sh->kernels[q] = k;
  sh->blocks[q] = 0;
  sh->at[q] = at;
  sh->memory_bound[q] = false;
  kl->side[q] = 0;
}

static bool kernel_matters(const CheckCtx *ctx, const Kernel *k) {
  if (k->bound != BOUND_MEMORY && k->bound != BOUND_COMPUTE) return false;
  if (k->time_s <= 0 || k->time_s < ctx->target->launch_overhead) return false;
  double step = ctx->cost->time_s;
  return step <= 0 || k->time_s * k->count >= step * CHECK_MIN_STEP_PCT / 100.0;
}

/* Kernel k, met for the first time: the list if it matters, and
 * overhead-bound's census (sums in kernel order). */
static void meet_kernel(const CheckCtx *ctx, CheckShared *sh, KernelList *kl,
                        int k) {
  Kernel kn = cost_kernel(ctx->cost, k);
  sh->nroof += kn.bound == BOUND_MEMORY || kn.bound == BOUND_COMPUTE;
  if (checks_kernel_small(ctx, &kn)) {
    if (sh->first_small < 0) sh->first_small = k;
    sh->nsmall++;
    sh->launches += kn.count;
    sh->small_work += kn.time_s * kn.count;
  }
  if (kernel_matters(ctx, &kn))
    push_kernel(sh, kl, k, ctx->cost->kernel_node[k]);
}

/* One pass over the nodes, which meets every kernel in order (a kernel is
 * numbered at its first node): no per-node array, only the short lists of
 * what matters, and no second pass over the kernels' figures. */
void checks_shared_init(const CheckCtx *ctx, CheckShared *sh) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  *sh = (CheckShared){.first_small = -1};
  KernelList kl = {0, NULL};
  int cap = 0, next_k = 0;
  int last_k = -1, slot = -1, cap_transfers = 0;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (g->op && (g->precision == DT_FP32 || g->precision == DT_FP64))
      sh->any_wide = true;
    if (g->op && g->op->cls == OC_TRANSFER && g->scope >= 0)
      push_int(&sh->transfers, &sh->ntransfers, &cap_transfers, i);
    bool matters = checks_node_matters(ctx, i);
    if (matters) push_int(&sh->nodes, &sh->nnodes, &cap, i);
    int k = c->nodes[i].kernel;
    if (k < 0 || k >= c->nkernels) continue;
    while (next_k <= k) meet_kernel(ctx, sh, &kl, next_k++);
    if (k != last_k) { /* a region's members share one look-up */
      last_k = k;
      int nk = sh->nkernels;
      slot = nk > 0 && sh->kernels[nk - 1] == k ? nk - 1
                                                 : checks_shared_kernel(sh, k);
    }
    if (slot < 0) continue;
    add_member(ctx, i, slot, sh->blocks, kl.side, sh->at);
    /* checks_memory_bound_reports(), whose last test is `matters`. */
    if (matters && !sh->memory_bound[slot])
      sh->memory_bound[slot] = checks_memory_bound_reports(ctx, i);
  }
  while (next_k < c->nkernels) meet_kernel(ctx, sh, &kl, next_k++);
  for (int q = 0; q < sh->nkernels; q++)
    if (kl.side[q] > sh->blocks[q]) sh->blocks[q] = kl.side[q];
  free(kl.side);
}

void checks_shared_free(CheckShared *sh) {
  free(sh->nodes);
  free(sh->kernels);
  free(sh->blocks);
  free(sh->at);
  free(sh->memory_bound);
  free(sh->transfers);
  *sh = (CheckShared){0};
}

CheckShared *checks_shared_begin(const CheckCtx *ctx, CheckShared *own) {
  if (ctx->shared) return ctx->shared;
  checks_shared_init(ctx, own);
  return own;
}

void checks_shared_end(CheckShared *sh, CheckShared *own) {
  if (sh == own) checks_shared_free(own);
}

int checks_shared_kernel(const CheckShared *sh, int k) {
  int lo = 0, hi = sh->nkernels - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (sh->kernels[mid] == k) return mid;
    if (sh->kernels[mid] < k)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

bool checks_kernel_low_occupancy(const CheckCtx *ctx, int k, double blocks) {
  int sms = ctx->target->sms;
  return sms > 1 && blocks > 0 &&
         blocks * 100 < (double)sms * CHECK_OCC_MAX_UTIL_PCT &&
         checks_kernel_matters(ctx, k);
}

bool checks_memory_bound_reports(const CheckCtx *ctx, int node) {
  const GNode *g = &ctx->model->nodes[node];
  const NodeCost *c = &ctx->cost->nodes[node];
  /* Near the ridge the fix buys little: at 80% of peak, at most 1.25x. */
  return g->op && g->op->cls == OC_CONTRACTION && c->bound == BOUND_MEMORY &&
         cost_node_roof(ctx->cost, c).attainable <
             c->peak * CHECK_MEMBOUND_MAX_PEAK_PCT / 100.0 &&
         checks_node_matters(ctx, node);
}

bool checks_kernel_small(const CheckCtx *ctx, const Kernel *k) {
  return (k->bound == BOUND_MEMORY || k->bound == BOUND_COMPUTE) &&
         k->time_s < ctx->target->launch_overhead;
}

bool checks_kernel_matters(const CheckCtx *ctx, int kernel) {
  Kernel k = cost_kernel(ctx->cost, kernel);
  return kernel_matters(ctx, &k);
}

const char *checks_kernel_name(const CheckCtx *ctx, int kernel, char *buf,
                               size_t n) {
  Kernel kn = cost_kernel(ctx->cost, kernel);
  const Kernel *k = &kn;
  if (k->region >= 0 && k->region < ctx->model->nregions)
    snprintf(buf, n, "fused region '%s'", ctx->model->regions[k->region].name);
  else {
    const GNode *g = &ctx->model->nodes[k->first_node];
    snprintf(buf, n, "%s '%s'", checks_op_name(g), g->name);
  }
  return buf;
}

Loc checks_kernel_loc(const CheckCtx *ctx, int kernel) {
  Kernel kn = cost_kernel(ctx->cost, kernel);
  const Kernel *k = &kn;
  if (k->region >= 0 && k->region < ctx->model->nregions)
    return ctx->model->regions[k->region].loc;
  return ctx->model->nodes[k->first_node].loc;
}
