/* SPDX-License-Identifier: MIT */
/*
 * unfused_elementwise.c: the unfused-elementwise check.  Elementwise ops
 * are memory-bound; a chain of them that writes each intermediate to HBM
 * and reads it back pays for bytes a fused kernel would keep on chip.
 *
 * Approach: an elementwise op outside any `fused` region is joined to
 * each elementwise operand that has exactly one consumer, is not an output,
 * and sits in the same scope: the sets are the maximal chains (or trees)
 * whose intermediates lead nowhere else.  Since every joined operand has
 * one consumer, each set is a tree hanging from its last op, so one pass
 * from the last node to the first finds every set whole (from its last op,
 * back through the operands) with nothing per node but three bits.  Per
 * set, the bytes unfused (every member's inputs and output) are weighed
 * against fused (inputs from outside the set, read once, plus the result
 * that leaves it); a set whose kernels take too little time to save enough
 * is dropped before that.  A set whose first input is a matmul's only
 * consumer is that matmul's epilogue; the matmul stays outside.  Work is
 * linear in nodes plus edges.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Thresholds, quoted into the --explain text below. */
#define CHECK_UNFUSED_MIN_PCT 0.1   /* unfused-elementwise: saving, % of step */

#define MAX_NAMES_SHOWN 6

static bool eligible(const GNode *g) {
  return g->op && g->op->cls == OC_ELEMENTWISE && g->region < 0;
}

static bool is_view(const GNode *g) {
  return g->op && g->op->cls == OC_VIEW && g->region < 0 && g->ninputs >= 1;
}

/* May `h` stay on chip inside a chain ending at its consumer `g`? */
static bool linkable(const GNode *h, const GNode *g) {
  return h->nconsumers == 1 && !h->is_output && h->scope == g->scope &&
         !h->loop_carried;
}

/* "fused NAME_fused { " with a region name no region of the model uses
 * yet (xmalloc'd). */
static char *region_open(const Model *m, const char *base) {
  size_t size = strlen(base) + 32;
  char *name = xmalloc(size), *text = xmalloc(size + 16);
  for (int k = 0;; k++) {
    if (k == 0)
      snprintf(name, size, "%s_fused", base);
    else
      snprintf(name, size, "%s_fused%d", base, k);
    bool taken = false;
    for (int r = 0; r < m->nregions && !taken; r++)
      taken = m->regions[r].name && strcmp(m->regions[r].name, name) == 0;
    if (!taken) break;
  }
  snprintf(text, size + 16, "fused %s { ", name);
  free(name);
  return text;
}

/* Members' statements are block items lo .. lo + nm - 1, in order: the
 * usual case, found with one look-up instead of one per member. */
static bool consecutive(const Model *m, const StmtRef *r0, const int *members,
                        int nm) {
  if (r0->index + nm > r0->block->n) return false;
  for (int k = 0; k < nm; k++) {
    const Stmt *s = r0->block->items[r0->index + k];
    if (!s || s->kind != ST_ASSIGN ||
        s->loc.start != m->nodes[members[k]].stmt_loc.start)
      return false;
  }
  return true;
}

/* The fix-it, when the members are consecutive statements of one block. */
static void wrap_fixit(const CheckCtx *ctx, Diag *d, const int *members,
                       int nm) {
  const Model *m = ctx->model;
  const Block *blk = NULL;
  int lo = 0, hi = 0;
  StmtRef r;
  if (!checks_stmt_find(checks_program(ctx), m->nodes[members[0]].stmt_loc.start,
                        &r) ||
      r.stmt->kind != ST_ASSIGN)
    return;
  blk = r.block;
  lo = hi = r.index;
  if (consecutive(m, &r, members, nm)) {
    hi = lo + nm - 1;
  } else {
    for (int k = 1; k < nm; k++) {
      if (!checks_stmt_find(checks_program(ctx), m->nodes[members[k]].stmt_loc.start,
                            &r) ||
          r.stmt->kind != ST_ASSIGN || r.block != blk)
        return;
      if (r.index < lo) lo = r.index;
      if (r.index > hi) hi = r.index;
    }
  }
  if (hi - lo + 1 != nm) return; /* something else sits between */
  const Stmt *first = blk->items[lo], *last = blk->items[hi];
  char *open = region_open(m, m->nodes[members[nm - 1]].name);
  diag_fixit(d, (Loc){first->loc.file, first->loc.start, first->loc.start},
             open);
  free(open);
  diag_fixit(d, (Loc){last->loc.file, last->loc.end, last->loc.end}, " }");
}

typedef struct IntVec {
  int *v;
  int n, cap;
} IntVec;

static void push(IntVec *v, int x) {
  if (v->n == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 16;
    v->v = xrealloc(v->v, (size_t)v->cap * sizeof *v->v);
  }
  v->v[v->n++] = x;
}

static bool bit(const unsigned char *bits, int i) {
  return bits[i >> 3] >> (i & 7) & 1;
}

static void set_bit(unsigned char *bits, int i, bool on) {
  if (on)
    bits[i >> 3] |= (unsigned char)(1u << (i & 7));
  else
    bits[i >> 3] &= (unsigned char)~(1u << (i & 7));
}

static int by_id(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* A set worth a report, kept until every set is found so that reports go
 * out in source order. */
typedef struct Finding {
  int first;         /* the first member: reports go out in its order */
  int off, nm, nk;   /* members: pool[off .. off + nm) */
  double unfused, fused, saved;
  int epilogue_of;   /* -1 if none */
} Finding;

typedef struct Scratch {
  IntVec stack, mem, ext, pool;
  /* Bits per node: joined some set; in the set being weighed; read by it
   * from outside (counted once). */
  unsigned char *seen, *cur, *read;
  Finding *found;
  int nfound, cap_found;
} Scratch;

/* The set whose last op is `last`, into s->mem in source order: back
 * through the operands, every eligible op linkable to its consumer, with
 * the views between them.  Each joins once: it has one consumer, and
 * `seen` catches an operand read twice.  Members are marked in `cur`. */
static void collect_set(const Model *m, int last, Scratch *s) {
  IntVec *stack = &s->stack, *mem = &s->mem;
  stack->n = mem->n = 0;
  push(stack, last);
  set_bit(s->seen, last, true);
  int lo = last;
  while (stack->n > 0) {
    int i = stack->v[--stack->n];
    const GNode *g = &m->nodes[i];
    push(mem, i);
    if (i < lo) lo = i;
    for (int k = 0; k < g->ninputs; k++) {
      /* Views (reshape, transpose) move nothing: look through them, and
       * take them into the chain so its statements stay contiguous. */
      int j = g->inputs[k];
      if (bit(s->seen, j)) continue;
      while (is_view(&m->nodes[j]) && linkable(&m->nodes[j], g))
        j = m->nodes[j].inputs[0];
      const GNode *h = &m->nodes[j];
      if (!eligible(h) || !linkable(h, g)) continue;
      for (int v = g->inputs[k]; v != j; v = m->nodes[v].inputs[0]) {
        set_bit(s->seen, v, true);
        push(mem, v);
        if (v < lo) lo = v;
      }
      set_bit(s->seen, j, true);
      push(stack, j);
    }
  }
  for (int q = 0; q < mem->n; q++) set_bit(s->cur, mem->v[q], true);
  /* Source order: read back off the bits when the set is dense in its
   * span (a chain), else sort. */
  if (last - lo < 16 * mem->n) {
    int n = 0;
    for (int i = lo; i <= last; i++)
      if (bit(s->cur, i)) mem->v[n++] = i;
  } else {
    qsort(mem->v, (size_t)mem->n, sizeof *mem->v, by_id);
  }
}

/* Weighs the set in s->mem; keeps it in s->found when it is reported. */
static void weigh_set(const CheckCtx *ctx, Scratch *s) {
  const Model *m = ctx->model;
  const ModelCost *c = ctx->cost;
  const int *mem = s->mem.v;
  int nm = s->mem.n;
  const GNode *first = &m->nodes[mem[0]];
  if (nm < 2 || !eligible(first)) return;
  /* Fusing saves at most the kernels' whole time: most sets stop here. */
  double time_unfused = 0, step = c->time_s;
  for (int q = 0; q < nm; q++) time_unfused += c->nodes[mem[q]].time_s;
  /* A chain that is all launch and no work is overhead-bound's case. */
  if (time_unfused < ctx->target->launch_overhead) return;
  if (step > 0 &&
      time_unfused * first->count < step * CHECK_UNFUSED_MIN_PCT / 100.0)
    return;

  int nk = 0; /* kernels among the members */
  double unfused = 0, fused = 0, flops = 0;
  int epilogue_of = -1;
  s->ext.n = 0;
  for (int q = 0; q < nm; q++) {
    int i = mem[q];
    nk += eligible(&m->nodes[i]);
    const GNode *g = &m->nodes[i];
    unfused += c->nodes[i].bytes;
    flops += c->nodes[i].flops;
    for (int k = 0; k < g->ninputs; k++) {
      int j = g->inputs[k];
      if (bit(s->cur, j) || bit(s->read, j)) continue;
      set_bit(s->read, j, true); /* read once, however many members use it */
      push(&s->ext, j);
      fused += op_tensor_bytes(m->nodes[j].type);
      const GNode *h = &m->nodes[j];
      if (epilogue_of < 0 && h->op && h->op->cls == OC_CONTRACTION &&
          h->nconsumers == 1 && !h->is_output)
        epilogue_of = j;
    }
    /* Every member but the last joined because its one consumer is in the
     * set: only the last one's result can leave it. */
    if (q == nm - 1 && (g->is_output || g->nconsumers > 0))
      fused += op_tensor_bytes(g->type);
  }
  for (int q = 0; q < s->ext.n; q++) set_bit(s->read, s->ext.v[q], false);

  const NodeCost *fc = &c->nodes[mem[0]];
  double bw = ctx->target->memory_bw;
  double t_fused = bw > 0 ? fused / bw : 0;
  if (fc->peak > 0 && flops / fc->peak > t_fused) t_fused = flops / fc->peak;
  double saved = (time_unfused - t_fused) * first->count;
  if (fused >= unfused || saved <= 0) return;
  if (step > 0 && saved < step * CHECK_UNFUSED_MIN_PCT / 100.0) return;

  if (s->nfound == s->cap_found) {
    s->cap_found = s->cap_found ? 2 * s->cap_found : 16;
    s->found = xrealloc(s->found, (size_t)s->cap_found * sizeof *s->found);
  }
  s->found[s->nfound++] =
      (Finding){mem[0], s->pool.n, nm, nk, unfused, fused, saved, epilogue_of};
  for (int q = 0; q < nm; q++) push(&s->pool, mem[q]);
}

static Diag *report(const CheckCtx *ctx, const Finding *f, const int *mem) {
  const Model *m = ctx->model;
  int nm = f->nm, nk = f->nk, epilogue_of = f->epilogue_of;
  const GNode *first = &m->nodes[mem[0]], *last = &m->nodes[mem[nm - 1]];
  StrBuf names = {0};
  for (int q = 0, shown = 0; q < nm; q++) {
    if (!eligible(&m->nodes[mem[q]])) continue; /* a view */
    if (shown == MAX_NAMES_SHOWN - 1 && nk > MAX_NAMES_SHOWN) {
      sb_printf(&names, " -> ... -> '%s'", last->name);
      break;
    }
    sb_printf(&names, "%s'%s'", shown++ ? " -> " : "", m->nodes[mem[q]].name);
  }
  char after[160] = "", b1[32], b2[32], t1[32], ps[48];
  if (epilogue_of >= 0)
    snprintf(after, sizeof after, " after %s '%s'",
             m->nodes[epilogue_of].op->name, m->nodes[epilogue_of].name);
  Diag *d = checks_report(
      ctx, "unfused-elementwise", first->loc,
      "elementwise chain %s%s is not fused: %d kernels move %s, one fused "
      "kernel would move %s%s; fusing saves %s per step",
      sb_str(&names), after, nk, fmt_bytes(b1, sizeof b1, f->unfused),
      fmt_bytes(b2, sizeof b2, f->fused),
      checks_per_step(ps, sizeof ps, first->count),
      fmt_time(t1, sizeof t1, f->saved));
  sb_free(&names);
  diag_figure(d, "ops", nk);
  diag_figure(d, "bytes_unfused", f->unfused);
  diag_figure(d, "bytes_fused", f->fused);
  diag_figure(d, "time_saved_s", f->saved);
  diag_note(d, last->loc, "the chain ends at '%s'", last->name);
  if (epilogue_of >= 0)
    diag_note(d, m->nodes[epilogue_of].loc,
              "the chain is the epilogue of '%s', which stays outside the "
              "fused region",
              m->nodes[epilogue_of].name);
  return d;
}

/* Sets are found last op first; reports go out by first op. */
static int by_first(const void *a, const void *b) {
  int x = ((const Finding *)a)->first, y = ((const Finding *)b)->first;
  return (x > y) - (x < y);
}

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  int n = m->nnodes;
  if (n < 2) return;
  Scratch s = {0};
  size_t nbytes = (size_t)n / 8 + 1;
  s.seen = xcalloc(nbytes, 1);
  s.cur = xcalloc(nbytes, 1);
  s.read = xcalloc(nbytes, 1);
  for (int i = n - 1; i >= 0; i--) {
    if (bit(s.seen, i) || !eligible(&m->nodes[i])) continue;
    collect_set(m, i, &s);
    weigh_set(ctx, &s);
    for (int q = 0; q < s.mem.n; q++) set_bit(s.cur, s.mem.v[q], false);
  }
  if (s.nfound > 1)
    qsort(s.found, (size_t)s.nfound, sizeof *s.found, by_first);
  for (int q = 0; q < s.nfound; q++) {
    const Finding *f = &s.found[q];
    Diag *d = report(ctx, f, &s.pool.v[f->off]);
    wrap_fixit(ctx, d, &s.pool.v[f->off], f->nm);
  }
  free(s.stack.v);
  free(s.mem.v);
  free(s.ext.v);
  free(s.pool.v);
  free(s.seen);
  free(s.cur);
  free(s.read);
  free(s.found);
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
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
    CHECKS_STR(CHECK_UNFUSED_MIN_PCT) "% of the step time.\n"
    "\n"
    "Example:\n"
    "    y = matmul(x, w)\n"
    "    h = add(y, b)                   # fix: fused a_fused { h = ...\n"
    "    a = gelu(h)                     #      ... a = gelu(h) }\n";
/* clang-format on */

const CheckDesc check_unfused_elementwise = {
    "unfused-elementwise", SEV_WARNING, true,
    "a chain of elementwise ops round-trips its intermediates through HBM",
    explain, run, NULL, false};
