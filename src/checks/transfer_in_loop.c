/* SPDX-License-Identifier: MIT */
/*
 * transfer_in_loop.c: the transfer-in-loop check.  A to_device or to_host
 * inside `loop N` crosses PCIe N times.  When its operand is the same every
 * iteration (a weight, a tensor defined before the loop, or an op of only
 * such tensors) the copy can run once before the loop, and the loop reads
 * the device copy from HBM instead.  An `input` or `host` declared inside
 * the loop is new data every iteration and is left alone (specs/language.md
 * section 15, transfer-in-loop).
 *
 * The fix-it moves the statement before the innermost loop around it: it
 * deletes the statement's line and inserts the same text, indented like the
 * loop, in front of the loop.  It is offered only when the operand is
 * defined outside that loop and the result is not loop-carried.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Thresholds, quoted into the --explain text below. */
#define CHECK_TRANSFER_MIN_PCT 1    /* transfer-in-loop: waste, % of step */

enum { UNKNOWN, INVARIANT, VARIES }; /* memo[id], for one loop */

/* Is scope `s` the loop `l` or nested inside it? */
static bool within(const Model *m, int s, int l) {
  for (; s >= 0; s = m->scopes[s].parent)
    if (s == l) return true;
  return false;
}

/* Is node `id` the same every iteration of loop l?  A weight or a tensor
 * from outside the loop is; a declaration, a carried value or a collective
 * inside it is not; an op is when all its operands are.  Iterative (a loop
 * body may be a chain of a million ops); memo is per node, for loop l. */
static bool invariant(const Model *m, int id, int l, unsigned char *memo) {
  typedef struct Frame {
    int id, next; /* the node; its next operand to look at (-1: none yet) */
  } Frame;
  if (memo[id] != UNKNOWN) return memo[id] == INVARIANT;
  int n = 0, cap = 16;
  Frame *stack = xmalloc((size_t)cap * sizeof *stack);
  stack[n++] = (Frame){id, -1};
  while (n > 0) {
    Frame *f = &stack[n - 1];
    const GNode *g = &m->nodes[f->id];
    if (f->next < 0) {
      if (g->role == ROLE_WEIGHT || g->role == ROLE_BUFFER ||
          !within(m, g->scope, l))
        memo[f->id] = INVARIANT;
      else if (!g->op || g->loop_carried || g->op->cls == OC_COLLECTIVE)
        memo[f->id] = VARIES;
      if (memo[f->id] != UNKNOWN) {
        n--;
        continue;
      }
      f->next = 0;
    }
    /* Operands in order; the first that varies settles it. */
    while (f->next < g->ninputs && memo[g->inputs[f->next]] == INVARIANT)
      f->next++;
    if (f->next == g->ninputs || memo[g->inputs[f->next]] == VARIES) {
      memo[f->id] = f->next == g->ninputs ? INVARIANT : VARIES;
      n--;
      continue;
    }
    int in = g->inputs[f->next];
    if (n == cap) {
      cap *= 2;
      stack = xrealloc(stack, (size_t)cap * sizeof *stack);
    }
    stack[n++] = (Frame){in, -1};
  }
  free(stack);
  return memo[id] == INVARIANT;
}

/* The byte range of the whole line(s) holding [start, end) when nothing
 * but blanks and a comment share them; else just [start, end). */
static Loc whole_lines(const SourceFile *f, Loc at) {
  uint32_t s = at.start, e = at.end;
  while (s > 0 && (f->text[s - 1] == ' ' || f->text[s - 1] == '\t')) s--;
  if (s > 0 && f->text[s - 1] != '\n') return at;
  uint32_t q = e;
  while (q < f->len &&
         (f->text[q] == ' ' || f->text[q] == '\t' || f->text[q] == '\r'))
    q++;
  if (q < f->len && f->text[q] == '#')
    while (q < f->len && f->text[q] != '\n') q++;
  if (q < f->len && f->text[q] != '\n') return at;
  if (q < f->len) q++;
  return (Loc){at.file, s, q};
}

static void hoist_fixit(const CheckCtx *ctx, Diag *d, const GNode *g,
                        const Scope *loop) {
  StmtRef r;
  if (!checks_stmt_find(checks_program(ctx), g->stmt_loc.start, &r)) return;
  const Stmt *loop_stmt = NULL;
  for (StmtRef p = r, up;;) {
    if (!p.parent) break;
    if (p.parent->kind == ST_LOOP && p.parent->loc.start <= loop->loc.start &&
        loop->loc.start < p.parent->loc.end) {
      loop_stmt = p.parent;
      break;
    }
    if (!checks_stmt_find(checks_program(ctx), p.parent->loc.start, &up)) break;
    p = up;
  }
  if (!loop_stmt) return;
  const SourceFile *f = src_file(ctx->sources, g->stmt_loc.file);
  if (!f) return;
  Loc cut = whole_lines(f, r.stmt->loc);
  /* The loop line's indentation, for the moved statement. */
  uint32_t ls = loop_stmt->loc.start, lb = ls;
  while (lb > 0 && (f->text[lb - 1] == ' ' || f->text[lb - 1] == '\t')) lb--;
  bool own_line = lb == 0 || f->text[lb - 1] == '\n';
  StrBuf text = {0};
  sb_putn(&text, f->text + r.stmt->loc.start,
          r.stmt->loc.end - r.stmt->loc.start);
  if (own_line) {
    sb_putc(&text, '\n');
    sb_putn(&text, f->text + lb, ls - lb);
  } else {
    sb_puts(&text, "; ");
  }
  diag_fixit(d, (Loc){loop_stmt->loc.file, ls, ls}, sb_str(&text));
  sb_free(&text);
  diag_fixit(d, cut, "");
}

/* A copy in a loop, per step: as it runs, and hoisted before the loop. */
typedef struct Copy {
  double per_run, runs, total, t_loop;
  double hoisted_runs, t_once, t_hbm;
} Copy;

static Copy copy_figures(const CheckCtx *ctx, int i, const Scope *loop) {
  const NodeCost *nc = &ctx->cost->nodes[i];
  const Target *t = ctx->target;
  Copy c = {.per_run = nc->bytes, .runs = ctx->model->nodes[i].count};
  c.total = c.per_run * c.runs;
  c.t_loop = nc->time_s * c.runs;
  c.hoisted_runs = c.runs / (double)loop->trips;
  c.t_once = t->pcie_bw > 0 ? c.per_run * c.hoisted_runs / t->pcie_bw : 0;
  c.t_hbm = t->memory_bw > 0 ? c.total / t->memory_bw : 0;
  return c;
}

/* The warning at transfer g of loop-invariant node src, and the note at
 * loop l of what hoisting it saves. */
static void report_copy(const CheckCtx *ctx, const GNode *g, int src, int l,
                        const Copy *c) {
  const Model *m = ctx->model;
  const Scope *loop = &m->scopes[l];
  const GNode *s = &m->nodes[src];
  char why[160];
  if (s->role == ROLE_WEIGHT || s->role == ROLE_BUFFER)
    snprintf(why, sizeof why, "%s '%s'", role_str(s->role), s->name);
  else if (!within(m, s->scope, l))
    snprintf(why, sizeof why, "'%s' (defined before the loop)", s->name);
  else
    snprintf(why, sizeof why, "'%s' (computed from loop-invariant data)",
             s->name);
  char b1[32], b2[32], t1[32], bw[32], rn[48], t2[32], t3[32];
  if (c->runs < 1e6 && c->runs == (double)(int64_t)c->runs)
    snprintf(rn, sizeof rn, "%lld", (long long)c->runs);
  else
    snprintf(rn, sizeof rn, "%.3g", c->runs);
  fmt_time(t1, sizeof t1, c->t_loop);
  Diag *d = checks_report(
      ctx, "transfer-in-loop", g->loc,
      "%s '%s' copies loop-invariant %s in every iteration: %s x %s = %s "
      "over PCIe per step, %s at %s",
      g->op->name, g->name, why, fmt_bytes(b1, sizeof b1, c->per_run), rn,
      fmt_bytes(b2, sizeof b2, c->total), t1,
      fmt_bandwidth(bw, sizeof bw, ctx->target->pcie_bw));
  /* The HBM figure in the unit of the PCIe one (the seed's "0.52 s
   * against 0.01 s"). */
  if (fmt_round(c->t_loop, 4) >= 0.1) {
    fmt_fixed(t3, sizeof t3, c->t_hbm, 2);
    strcat(t3, " s");
  } else {
    fmt_time(t3, sizeof t3, c->t_hbm);
  }
  diag_note(d, loop->loc,
            "hoisted before this loop it crosses PCIe %s (%s, %s) and the "
            "loop reads it from HBM: %s for the same %s",
            c->hoisted_runs == 1 ? "once" : "once per outer run",
            fmt_bytes(b1, sizeof b1, c->per_run * c->hoisted_runs),
            fmt_time(t2, sizeof t2, c->t_once), t3,
            fmt_bytes(b2, sizeof b2, c->total));
  diag_figure(d, "bytes_per_run", c->per_run);
  diag_figure(d, "runs", c->runs);
  diag_figure(d, "bytes", c->total);
  diag_figure(d, "time_s", c->t_loop);
  diag_figure(d, "hoisted_time_s", c->t_once + c->t_hbm);
  if (!within(m, s->scope, l) && !g->loop_carried && checks_program(ctx) &&
      ctx->sources)
    hoist_fixit(ctx, d, g, loop);
}

static void run(const CheckCtx *ctx) {
  const Model *m = ctx->model;
  unsigned char *memo = NULL; /* for loop memo_loop */
  int memo_loop = -1;
  CheckShared own, *sh = checks_shared_begin(ctx, &own);
  /* The shared list holds every transfer in a scope: the graph is not
   * walked here. */
  for (int q = 0; q < sh->ntransfers; q++) {
    int i = sh->transfers[q];
    const GNode *g = &m->nodes[i];
    if (!g->op || g->op->cls != OC_TRANSFER || g->ninputs < 1) continue;
    int l = g->scope;
    while (l >= 0 && !m->scopes[l].is_loop) l = m->scopes[l].parent;
    if (l < 0 || m->scopes[l].trips <= 1) continue;
    Copy c = copy_figures(ctx, i, &m->scopes[l]);
    double waste = c.t_loop - (c.t_once + c.t_hbm);
    double step = ctx->cost->time_s;
    if (waste <= 0 ||
        (step > 0 && waste < step * CHECK_TRANSFER_MIN_PCT / 100.0))
      continue;
    /* Only a copy worth a report is traced back through the graph. */
    int src = g->inputs[0];
    if (l != memo_loop) {
      if (!memo) memo = xmalloc((size_t)m->nnodes);
      memset(memo, UNKNOWN, (size_t)m->nnodes);
      memo_loop = l;
    }
    if (invariant(m, src, l, memo)) report_copy(ctx, g, src, l, &c);
  }
  checks_shared_end(sh, &own);
  free(memo);
}

/* The --explain text, laid out as it prints. */
/* clang-format off */
static const char explain[] =
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
    CHECKS_STR(CHECK_TRANSFER_MIN_PCT) "% of the\n"
    "step time, and loops of one trip.\n"
    "\n"
    "Example:\n"
    "    host x : [4096, 4096]\n"
    "    loop 1000 {\n"
    "      xd = to_device(x)             # fix: move it before the loop\n"
    "    }\n";
/* clang-format on */

const CheckDesc check_transfer_in_loop = {
    "transfer-in-loop", SEV_WARNING, true,
    "a to_device or to_host of loop-invariant data runs every iteration",
    explain, run, NULL, false};
