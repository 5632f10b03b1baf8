/* SPDX-License-Identifier: MIT */
/*
 * report.c: the human-readable outputs: the one-line summary per model,
 * the --report tables, --sweep rows, and the `rooflint targets` /
 * `rooflint target NAME` cards.  The layouts follow the seed page's tables
 * ("The GPU, for people who only ever call .cuda()") so that each of its figures can be read off
 * rooflint's output; every number goes through format.c, so every table
 * rounds alike.  Rates are printed as TFLOP/s (the seed's "TF/s").
 */
#include "rooflint.h"
#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NB 64 /* one formatted figure */

static const ModelCost *cost_at(const Analysis *an, int model, int target) {
  return an->costs[model * an->ntargets + target];
}

static int op_nodes(const Model *m) {
  int n = 0;
  for (int i = 0; i < m->nnodes; i++) n += m->nodes[i].op != NULL;
  return n;
}

/* "80 GB", "141 GB", "6 MiB"-free: three significant digits, trailing
 * zeros dropped, decimal units. */
static char *short_bytes(char *buf, size_t n, double bytes) {
  /* A size written in binary units reads back in them ("228 KiB"). */
  if (fmt_binary_bytes(buf, n, bytes)) return buf;
  fmt_bytes(buf, n, bytes);
  char *sp = strchr(buf, ' ');
  char *dot = strchr(buf, '.');
  if (dot && sp && dot < sp) {
    char *e = sp - 1;
    while (e > dot && *e == '0') e--;
    if (e == dot) e--;
    memmove(e + 1, sp, strlen(sp) + 1);
  }
  return buf;
}

/* Execution counts: exact integers up to a million ("1000"), then scaled. */
static char *count_text(char *buf, size_t n, double count) {
  if (count == floor(count) && count < 1e6)
    snprintf(buf, n, "%.0f", count);
  else
    fmt_count(buf, n, count);
  return buf;
}

static char *tflops(char *buf, size_t n, double flops_per_s, int decimals) {
  char num[NB];
  snprintf(buf, n, "%s TFLOP/s", fmt_fixed(num, sizeof num, flops_per_s / 1e12, decimals));
  return buf;
}

static double percent_of(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}

/* The ceiling in the header: the peak the model's heaviest contraction
 * (most FLOPs per step) runs at, at its precision and on its unit (tensor
 * cores or the vector units), so an fp32 matmul reads "fp32 vector" and a
 * precision=tf32 one "tf32 tensor core"; without contractions, the peak a
 * contraction at the plan dtype would get. */
typedef struct Headline {
  double peak;
  DType precision;
  bool tensor;
} Headline;

static Headline headline(const Model *m, const ModelCost *c) {
  Headline h = {0, m->dtype == DT_NONE ? DT_BF16 : m->dtype, false};
  double most = -1;
  for (int i = 0; i < m->nnodes; i++) {
    const GNode *g = &m->nodes[i];
    if (!g->op || (g->op->cls != OC_CONTRACTION && g->op->cls != OC_OPAQUE)) continue;
    double work = c->nodes[i].flops * g->count;
    if (work <= most) continue;
    most = work;
    h.peak = c->nodes[i].peak;
    h.tensor = c->nodes[i].tensor;
    h.precision = g->precision != DT_NONE ? g->precision : g->type->dtype;
  }
  if (most < 0) h.peak = target_peak(c->target, h.precision, true, &h.tensor);
  return h;
}

/* --------------------------------------------------------------- summary */

/* "2263", or three significant digits under 100 ("12.3"). */
static char *rate_text(char *buf, size_t n, double v) {
  if (v >= 100) snprintf(buf, n, "%.0f", v);
  else fmt_sig3(buf, n, v);
  return buf;
}

/* R-SERVE-001: the serving answer, two lines under the model's. */
static void report_serving(FILE *out, const Serving *sv) {
  char t[NB], all[NB], one[NB];
  const char *b = sv->batch;
  fprintf(out, "  decode at %s = %lld%s%s%s", b, (long long)sv->batch_now,
          *sv->at ? " (" : "", sv->at, *sv->at ? ")" : "");
  if (sv->gpus > 1) fprintf(out, " on %lld GPUs", (long long)sv->gpus);
  fprintf(out, ": %s per output token, %s tokens/s", fmt_time(t, sizeof t, sv->token_time),
          rate_text(all, sizeof all, sv->tokens_per_s));
  if (sv->gpus > 1)
    fprintf(out, ", %s per GPU", rate_text(one, sizeof one, sv->tokens_per_s_gpu));
  fputs("\n  ", out);
  if (sv->max_batch > 0) fprintf(out, "fits up to %s = %lld", b, (long long)sv->max_batch);
  else if (sv->max_batch == 0) fprintf(out, "does not fit even at %s = 1", b);
  else fprintf(out, "largest %s that fits unknown", b);
  if (sv->compute_batch > 0)
    fprintf(out, "; memory-bound below %s = %lld, where matmul '%s' reaches the "
            "compute roof", b, (long long)sv->compute_batch, sv->compute_node);
  else if (sv->compute_node)
    fprintf(out, "; matmul '%s' stays memory-bound at every %s", sv->compute_node, b);
  fputc('\n', out);
}

void report_summary(FILE *out, const Analysis *an, const SourceSet *ss) {
  (void)ss;
  if (!an || !an->unit) return;
  for (int mi = 0; mi < an->unit->nmodels; mi++) {
    const Model *m = &an->unit->models[mi];
    for (int ti = 0; ti < an->ntargets; ti++) {
      const ModelCost *c = cost_at(an, mi, ti);
      char p[NB], f[NB], b[NB], i[NB], t[NB], s[NB], act[2 * NB] = "";
      fmt_count(p, sizeof p, c->params);
      if (c->experts) { /* R-MOE-005: "46.7 G parameters (12.9 G active)" */
        char a[NB];
        snprintf(act, sizeof act, " (%s active)",
                 fmt_count(a, sizeof a, c->active_params));
      }
      fmt_flop(f, sizeof f, c->flops);
      fmt_bytes(b, sizeof b, c->bytes);
      fmt_sig3(i, sizeof i, c->bytes > 0 ? c->flops / c->bytes : 0);
      fmt_time(t, sizeof t, cost_step_time(c));
      fmt_percent(s, sizeof s, percent_of(c->memory_bound_time, c->time_s), 0);
      /* "13.5 G" + "FLOP": no blank between prefix and unit. */
      /* R-CEIL-004: against achieved ceilings the time is an estimate,
       * not a bound, and the line says which ceilings it used. */
      const Target *tg = an->targets[ti];
      fprintf(out,
              "%s: %d ops, %s parameters%s, %s, %s, %s FLOP/B, step %s %s "
              "on %s (%s of it memory-bound)%s%s\n",
              m->name, op_nodes(m), p, act, f, b, i,
              tg->ceilings_text ? "~" : ">=", t, tg->display, s,
              tg->ceilings_text ? ", " : "",
              tg->ceilings_text ? tg->ceilings_text : "");
      if (ti == 0 && an->serving && an->serving[mi])
        report_serving(out, an->serving[mi]);
    }
  }
}

/* ---------------------------------------------------------------- report */

/* A kernel as the report names it: a fused region's is "fused NAME". */
static const char *report_name(Arena *a, const Model *m, const Kernel *k) {
  const char *name = cost_kernel_name(m, k);
  return k->region >= 0 ? arena_printf(a, "fused %s", name) : name;
}

/* Ops per fused region, counted once for the whole table (NULL when the
 * model has no region). */
static int *region_ops(Arena *a, const Model *m) {
  if (m->nregions == 0) return NULL;
  int *n = arena_alloc(a, (size_t)m->nregions * sizeof *n);
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].region >= 0 && m->nodes[i].op != NULL) n[m->nodes[i].region]++;
  return n;
}

static const char *kernel_op(Arena *a, const Model *m, const int *nops,
                             const Kernel *k) {
  if (k->region < 0) return m->nodes[k->first_node].op->name;
  return arena_printf(a, "%d ops", nops[k->region]);
}

static const char *kernel_prec(const Model *m, const Kernel *k) {
  const GNode *g = &m->nodes[k->first_node];
  DType d = g->precision != DT_NONE ? g->precision : g->type->dtype;
  return d == DT_NONE ? "-" : dtype_str(d);
}

/* Single-target row figures of one kernel (out.h: the HTML page's too). */
void report_kernel_cells(const ModelCost *c, const Kernel *k, double total,
                         char cells[][NB]) {
  bool kernel = k->bound == BOUND_MEMORY || k->bound == BOUND_COMPUTE;
  RoofPoint roof = cost_kernel_roof(c, k);
  count_text(cells[0], NB, k->count);
  fmt_count(cells[1], NB, k->flops);
  fmt_bytes(cells[2], NB, k->bytes);
  if (kernel) {
    fmt_fixed(cells[3], NB, roof.intensity, 3);
    fmt_flops_rate(cells[4], NB, k->peak);
    fmt_fixed(cells[5], NB, roof.ridge, 0);
    fmt_flops_rate(cells[6], NB, roof.attainable);
  } else {
    for (int i = 3; i <= 6; i++) strcpy(cells[i], "-");
  }
  snprintf(cells[7], NB, "%s", bound_str(k->bound));
  fmt_time(cells[8], NB, k->time_s * k->count);
  fmt_percent(cells[9], NB, percent_of(k->time_s * k->count, total), 1);
}

/* The kernel table has a row per kernel, a million of them in a big model,
 * so it is not kept: one pass over the kernels measures the rows, a second
 * makes each row again and prints it at the final widths. */
enum { NFIG = 10, KCOLS = 3 + NFIG + 1 }; /* labels, figures, at */

/* One kernel's row: its name (a fused region's "fused NAME"), its op (or
 * "N ops"), its precision, the figures, and where it is written; buffers
 * reused row to row. */
typedef struct KernelRow {
  const char *cell[KCOLS];
  StrBuf name;
  char ops[24];
  char fig[NFIG][NB];
  char at[32];
} KernelRow;

static void kernel_row(KernelRow *r, const SourceSet *ss, const Model *m,
                       const int *nops, const ModelCost *c, const Kernel *k) {
  const GNode *g = &m->nodes[k->first_node];
  if (k->region >= 0) {
    r->name.len = 0;
    sb_puts(&r->name, "fused ");
    sb_puts(&r->name, cost_kernel_name(m, k));
    r->cell[0] = sb_str(&r->name);
    snprintf(r->ops, sizeof r->ops, "%d ops", nops[k->region]);
    r->cell[1] = r->ops;
  } else {
    r->cell[0] = cost_kernel_name(m, k);
    r->cell[1] = g->op->name;
  }
  r->cell[2] = kernel_prec(m, k);
  report_kernel_cells(c, k, c->time_s, r->fig);
  for (int j = 0; j < NFIG; j++) r->cell[3 + j] = r->fig[j];
  r->cell[3 + NFIG] = fmt_at(r->at, sizeof r->at, ss, cost_kernel_loc(m, k));
}

/* R-PAR-002: the plan's groups, each with its size, placement and link. */
static void report_parallel(FILE *out, const Model *m) {
  const Parallel *p = &m->parallel;
  /* a plan of one GPU (a -D variant's degrees all 1) has no groups */
  if (!p->present || p->nodes * p->gpus_per_node == 1) return;
  fprintf(out,
          "\nparallel plan: %lld GPUs, %lld node%s x %lld (Megatron-Core rank "
          "order tp-cp-ep-dp-pp: tensor innermost)\n",
          (long long)(p->nodes * p->gpus_per_node), (long long)p->nodes,
          p->nodes == 1 ? "" : "s", (long long)p->gpus_per_node);
  Table tb = {.ncols = 6, .align = "lrrrrl"};
  table_add(&tb, (const char *const[]){"group", "size", "stride", "nodes",
                                       "per node", "link"});
  for (int g = 0; g < PG__COUNT; g++) {
    GroupPlace gp = parallel_place(p, (ParGroup)g);
    bool zero_group = g == PG_SHARD || g == PG_REPLICA;
    bool show = zero_group ? p->zero > 0 && (g == PG_SHARD || gp.size > 1)
                           : g == PG_DATA || g == PG_TENSOR || gp.size > 1;
    if (!show) continue;
    char cells[4][NB];
    snprintf(cells[0], NB, "%lld", (long long)gp.size);
    snprintf(cells[1], NB, "%lld", (long long)gp.stride);
    snprintf(cells[2], NB, "%lld", (long long)gp.nodes);
    snprintf(cells[3], NB, "%lld", (long long)gp.per_node);
    table_add(&tb, (const char *const[]){par_group_str((ParGroup)g), cells[0],
                                         cells[1], cells[2], cells[3],
                                         group_link_str(gp)});
  }
  table_print(out, &tb, "  ");
  if (p->zero > 0 && m->train)
    fprintf(out, "  ZeRO stage %lld over the shard group%s\n",
            (long long)p->zero,
            parallel_place(p, PG_REPLICA).size > 1
                ? ", replicated across the groups (hybrid sharding)"
                : "");
}

/* R-PAR-009: the stages of a pipeline, the bubble and the step. */
static void report_pipeline(FILE *out, const ModelCost *c) {
  const PipelineCost *pc = &c->pipe;
  if (pc->stages <= 1) return;
  char b[NB], t1[NB], t2[NB];
  double p = pc->stages, mb = pc->microbatches;
  fprintf(out,
          "\npipeline: %d stages of %s layers, %s microbatches (1F1B): bubble "
          "(p-1)/(m+p-1) = %s\n",
          pc->stages, fmt_fixed(b, sizeof b, pc->layers, 0),
          fmt_fixed(t1, sizeof t1, mb, 0),
          fmt_percent(t2, sizeof t2, pc->bubble, 1));
  Table tb = {.ncols = 5, .align = "lrrrr"};
  table_add(&tb, (const char *const[]){"stage", "compute/microbatch",
                                       "with sends", "in flight",
                                       "footprint/GPU"});
  static const char *const kinds[PIPE__KINDS] = {"first", "middle (1)", "last"};
  double slowest = 0;
  for (int k = 0; k < PIPE__KINDS; k++) {
    if (k == PIPE_MIDDLE && pc->stages < 3) continue;
    char cells[4][NB];
    fmt_time(cells[0], NB, pc->compute[k]);
    fmt_time(cells[1], NB, pc->time[k]);
    fmt_fixed(cells[2], NB, pc->inflight[k], 0);
    fmt_bytes(cells[3], NB, pc->footprint[k].total);
    table_add(&tb, (const char *const[]){kinds[k], cells[0], cells[1],
                                         cells[2], cells[3]});
    if (pc->time[k] > slowest) slowest = pc->time[k];
  }
  table_print(out, &tb, "  ");
  fprintf(out, "  boundary send: %s per microbatch on %s, ",
          fmt_bytes(b, sizeof b, pc->send_bytes),
          pc->send_ib ? "InfiniBand" : "NVLink");
  if (pc->send_split > 1) /* R-PAR-011 */
    fprintf(out, "%s from each of %s tensor ranks, all-gathered on NVLink "
            "(%s): ",
            fmt_bytes(b, sizeof b, pc->send_bytes / pc->send_split),
            fmt_fixed(t2, sizeof t2, pc->send_split, 0),
            fmt_bytes(t1, sizeof t1,
                      (pc->send_split - 1) / pc->send_split * pc->send_bytes));
  fprintf(out, "%s\n", fmt_time(t1, sizeof t1, pc->send_time));
  fprintf(out, "  pipeline      >= (m + p - 1) x the slowest stage = %s x %s = %s\n",
          fmt_fixed(b, sizeof b, mb + p - 1, 0),
          fmt_time(t1, sizeof t1, slowest),
          fmt_time(t2, sizeof t2, pc->step_time));
}

/* R-PAR-015: under sequence parallelism, with weights split over the
 * tensor group, each all-reduce written over that group runs as a
 * reduce-scatter and an all-gather (the same bytes, R-COLL-001). */
static bool split_allreduces(const Model *m) {
  const Parallel *p = &m->parallel;
  bool sharded = false;
  for (int i = 0; p->sequence_parallel && p->tensor > 1 && i < m->nnodes && !sharded; i++)
    sharded = m->nodes[i].shard_tensor;
  return sharded;
}

static const char *collective_kind(const Model *m, const Collective *k,
                                   bool split) {
  const GNode *g = k->node >= 0 ? &m->nodes[k->node] : NULL;
  if (split && g && k->group == PG_TENSOR && (g->op->flags & OPF_ALLREDUCE))
    return "reduce-scatter + all-gather";
  return k->kind;
}

static void report_collectives(FILE *out, const Model *m, const ModelCost *c) {
  if (c->ncollectives == 0) return;
  bool split = split_allreduces(m);
  const Target *t = c->target;
  char nv[NB], ib[NB], nvbw[NB], ibbw[NB];
  fprintf(out, "\ncollectives (ring; NVLink %s, InfiniBand %s per GPU per direction)\n",
          fmt_bandwidth(nvbw, sizeof nvbw, t->nvlink_bw > 0 ? t->nvlink_bw : t->pcie_bw),
          fmt_bandwidth(ibbw, sizeof ibbw, t->ib_bw > 0 ? t->ib_bw : t->pcie_bw));
  Table tb = {.ncols = 11, .align = "lllrrrrrrrr"};
  const char *head[] = {"node", "kind", "group", "buffer", "ranks", "NVLink/GPU",
                        "time", "IB/GPU", "time", "total", "on IB"};
  table_add(&tb, head);
  Arena *a = arena_new();
  for (int i = 0; i < c->ncollectives; i++) {
    const Collective *k = &c->collectives[i];
    char cells[8][NB];
    fmt_bytes(cells[0], NB, k->buffer);
    snprintf(cells[1], NB, "%d", k->ranks);
    fmt_bytes(nv, sizeof nv, k->nvlink_bytes);
    snprintf(cells[2], NB, "%s", nv);
    fmt_time(cells[3], NB, k->nvlink_time);
    fmt_bytes(ib, sizeof ib, k->ib_bytes);
    snprintf(cells[4], NB, "%s", ib);
    fmt_time(cells[5], NB, k->ib_time);
    fmt_time(cells[6], NB, k->time_s);
    fmt_percent(cells[7], NB, percent_of(k->ib_time, k->time_s), 0);
    const char *name = k->node >= 0 ? m->nodes[k->node].name
                                    : k->count > 1
                                          ? arena_printf(a, "(%s) x %.0f", k->what, k->count)
                                          : arena_printf(a, "(%s)", k->what ? k->what : "gradients");
    const char *row[] = {name, collective_kind(m, k, split),
                         par_group_str(k->group), cells[0],
                         cells[1], cells[2], cells[3], cells[4], cells[5],
                         cells[6], cells[7]};
    table_add(&tb, row);
  }
  table_print(out, &tb, "  ");
  arena_free(a);
}

/* The PCIe-bound kernels, listed by the kernel table's measuring pass: a
 * pass of their own would walk every kernel again. */
static void report_transfers(FILE *out, const Model *m, const ModelCost *c,
                             const int *transfers, int ntransfers) {
  bool any = false;
  for (int i = 0; i < ntransfers; i++) {
    Kernel kn = cost_kernel(c, transfers[i]);
    const Kernel *k = &kn;
    char bw[NB], one[NB], all[NB], tm[NB], cnt[NB];
    if (!any)
      fprintf(out, "\ntransfers (PCIe %s)\n",
              fmt_bandwidth(bw, sizeof bw, c->target->pcie_bw));
    any = true;
    fmt_bytes(one, sizeof one, k->bytes);
    fmt_bytes(all, sizeof all, k->bytes * k->count);
    fmt_time(tm, sizeof tm, k->time_s * k->count);
    count_text(cnt, sizeof cnt, k->count);
    fprintf(out, "  %s (%s): %s x %s = %s over PCIe, %s\n",
            m->nodes[k->first_node].name, m->nodes[k->first_node].op->name,
            one, cnt, all, tm);
  }
}

static void report_footprint(FILE *out, const ModelCost *c) {
  const Footprint *f = &c->footprint;
  const Parallel *p = &c->model->parallel;
  char cap[NB], v[NB], pct[NB], whole[NB];
  double kv = f->kv_cache - f->recurrent_state; /* keys and values */
  fprintf(out, "\nfootprint%s against %s of memory\n",
          p->nodes * p->gpus_per_node > 1 ? " per GPU" : "",
          short_bytes(cap, sizeof cap, c->target->memory));
  const struct {
    const char *name;
    double bytes;
    bool show;
    int64_t shards; /* R-PAR-004: ZeRO's divisor, 1 for none */
  } parts[] = {
      {"weights", f->weights, true, f->weight_shards},
      {"gradients", f->gradients, c->model->train, f->gradient_shards},
      {"optimizer", f->optimizer, c->model->train, f->optimizer_shards},
      {"activations", f->activations, true, 1},
      {"buffers", f->buffers, f->buffers > 0, 1},
      {"KV cache", kv, kv > 0, 1},
      {"SSM state", f->recurrent_state, f->recurrent_state > 0, 1}, /* R-FAM-202 */
      {"gathered", f->gathered, f->gathered > 0, 1}, /* R-PAR-013 */
      {"total", f->total, true, 1},
  };
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    if (!parts[i].show) continue;
    fmt_bytes(v, sizeof v, parts[i].bytes);
    fmt_percent(pct, sizeof pct, percent_of(parts[i].bytes, c->target->memory), 1);
    if (parts[i].shards > 1) {
      fmt_bytes(whole, sizeof whole, parts[i].bytes * (double)parts[i].shards);
      fprintf(out, "  %-12s %10s  %6s  (%s / %lld)\n", parts[i].name, v, pct,
              whole, (long long)parts[i].shards);
    } else if (strcmp(parts[i].name, "KV cache") == 0 && f->read_only_cache > 0) {
      /* R-FAM-105: the caches the step only reads, beside those it appends to */
      fmt_bytes(whole, sizeof whole, f->read_only_cache);
      fprintf(out, "  %-12s %10s  %6s  (%s of it read only, written at prefill)\n",
              parts[i].name, v, pct, whole);
    } else {
      fprintf(out, "  %-12s %10s  %6s\n", parts[i].name, v, pct);
    }
  }
}

/* The five slowest kernels by time per step, kept in order as the kernels
 * go by; a tie goes to the earlier kernel (what a stable sort would give). */
enum { TOP = 5 };
typedef struct Slowest {
  int order[TOP], kept;
  double tm_of[TOP];
} Slowest;

static void slowest_add(Slowest *s, int i, double ti) {
  if (s->kept == TOP && !(s->tm_of[TOP - 1] < ti)) return;
  int j = s->kept < TOP ? s->kept++ : TOP - 1;
  while (j > 0 && s->tm_of[j - 1] < ti) {
    s->order[j] = s->order[j - 1];
    s->tm_of[j] = s->tm_of[j - 1];
    j--;
  }
  s->order[j] = i;
  s->tm_of[j] = ti;
}

static void report_slowest(FILE *out, Arena *a, const SourceSet *ss,
                           const Model *m, const ModelCost *c, const Slowest *s) {
  if (c->nkernels == 0) return;
  fprintf(out, "\nslowest\n");
  for (int i = 0; i < s->kept; i++) {
    Kernel kn = cost_kernel(c, s->order[i]);
    const Kernel *k = &kn;
    char tm[NB], pct[NB], at[32], bound[NB];
    fmt_time(tm, sizeof tm, k->time_s * k->count);
    fmt_percent(pct, sizeof pct, percent_of(k->time_s * k->count, c->time_s), 1);
    snprintf(bound, sizeof bound, "%s-bound", bound_str(k->bound));
    fprintf(out, "  %d. %-24s %10s  %6s  %-13s  at %s\n", i + 1,
            report_name(a, m, k), tm, pct, bound,
            fmt_at(at, sizeof at, ss, cost_kernel_loc(m, k)));
  }
}

/* The kernel table, measured then printed; the slowest kernels into slow
 * and the transfers into *transfers (xrealloc'd, for the caller to free). */
static void kernel_table(FILE *out, Arena *a, const SourceSet *ss, const Model *m,
                         const ModelCost *c, Slowest *slow, int **transfers,
                         int *ntransfers) {
  Table tb = {.ncols = KCOLS, .align = "lllrrrrrrrlrrl"};
  const int *nops = region_ops(a, m);
  /* R-OUT-015: each figure's unit of account in its heading */
  const char *head[] = {"node", "op", "prec", "count", "FLOPs/run", "bytes/run",
                        "FLOP/B", "peak", "ridge", "attainable", "bound",
                        "time/step", "share", "at"};
  /* R-PAR-009: with a pipeline the model is one microbatch's */
  if (cost_per_microbatch(c)) head[11] = "time/mb";
  table_measure(&tb, head);
  KernelRow row = {.name = {0}};
  int cap = 0;
  for (int i = 0; i < c->nkernels; i++) { /* measure */
    Kernel k = cost_kernel(c, i);
    kernel_row(&row, ss, m, nops, c, &k);
    table_measure(&tb, row.cell);
    slowest_add(slow, i, k.time_s * k.count);
    if (k.bound == BOUND_PCIE) {
      if (*ntransfers == cap) {
        cap = cap ? 2 * cap : 16;
        *transfers = xrealloc(*transfers, (size_t)cap * sizeof **transfers);
      }
      (*transfers)[(*ntransfers)++] = i;
    }
  }
  table_put_row(out, &tb, "", head);
  for (int i = 0; i < c->nkernels; i++) { /* print */
    Kernel k = cost_kernel(c, i);
    kernel_row(&row, ss, m, nops, c, &k);
    table_put_row(out, &tb, "", row.cell);
  }
  table_free(&tb);
  sb_free(&row.name);
}

/* The totals' heading: per step, or per microbatch with a pipeline
 * (R-PAR-009) or gradient accumulation (R-PAR-020). */
static void totals_heading(FILE *out, const ModelCost *c) {
  if (c->pipe.stages > 1)
    fprintf(out, "\ntotals per microbatch through every stage (counts "
                 "multiplied; a step runs %.0f)\n",
            c->pipe.microbatches);
  else if (c->accumulated > 1)
    fprintf(out, "\ntotals per microbatch (counts multiplied; a step "
                 "accumulates %.0f)\n",
            c->accumulated);
  else
    fprintf(out, "\ntotals per step (counts multiplied)\n");
}

/* The step time's line, and without a pipeline its bounds (R-PAR-007). */
static void report_step(FILE *out, const Model *m, const ModelCost *c) {
  char tm[NB], lo[NB], hi[NB], cm[NB], cl[NB];
  StepSplit s = cost_step_split(c);
  fmt_time(tm, sizeof tm, cost_step_time(c));
  if (c->pipe.stages > 1)
    fprintf(out, "  step time        >= %s (the pipeline below, and the gradient sync)\n", tm);
  else if (c->accumulated > 1)
    fprintf(out, "  step time        >= %s (%.0f microbatches%s, the gradient sync once)\n",
            tm, c->accumulated,
            m->parallel.overlap && c->collective_time > 0 ? ", compute and collectives overlap" : "");
  else if (m->parallel.overlap && c->collective_time > 0)
    fprintf(out, "  step time        >= %s (compute and collectives overlap)\n", tm);
  else
    fprintf(out, "  step time        >= %s (sum of node times)\n", tm);
  if (c->collective_time > 0 && c->pipe.stages <= 1)
    fprintf(out,
            "  overlap          >= %s with overlap (max of compute %s and "
            "communication %s), <= %s without (their sum)\n",
            fmt_time(lo, sizeof lo, s.overlapped),
            fmt_time(cm, sizeof cm, s.compute),
            fmt_time(cl, sizeof cl, s.communication),
            fmt_time(hi, sizeof hi, s.summed));
}

/* Totals per step (per microbatch with a pipeline or accumulation). */
static void report_totals(FILE *out, const Model *m, const ModelCost *c) {
  char f[NB], b[NB], tm[NB], s[NB];
  totals_heading(out, c);
  fprintf(out, "  FLOPs            %s\n", fmt_flop(f, sizeof f, c->flops));
  fprintf(out, "  bytes            %s\n", fmt_bytes(b, sizeof b, c->bytes));
  if (c->experts) { /* R-MOE-005 */
    char ab[NB], ap[NB];
    fprintf(out, "  active weights   %s read per token (%s active parameters)\n",
            fmt_bytes(ab, sizeof ab, c->active_param_bytes),
            fmt_count(ap, sizeof ap, c->active_params));
  }
  report_step(out, m, c);
  fprintf(out, "  memory-bound     %s of the time\n",
          fmt_percent(s, sizeof s, percent_of(c->memory_bound_time, c->time_s), 0));
  if (c->transfer_time > 0)
    fprintf(out, "  transfers        %s over PCIe\n",
            fmt_time(tm, sizeof tm, c->transfer_time));
  if (c->collective_time > 0)
    fprintf(out, "  collectives      %s on links\n",
            fmt_time(tm, sizeof tm, c->collective_time));
}

static void report_one_target(FILE *out, Arena *a, const SourceSet *ss,
                              const Model *m, const ModelCost *c, const char *file) {
  const Target *t = c->target;
  char pk[NB], bw[NB], rd[NB];
  Headline h = headline(m, c);
  double peak = h.peak;
  fprintf(out, "model %s (%s) on %s\n", m->name, file, t->display);
  fprintf(out, "  ceiling   %s %s %s (dense)\n", fmt_flops_rate(pk, sizeof pk, peak),
          dtype_str(h.precision), h.tensor ? "tensor core" : "vector");
  fprintf(out, "  bandwidth %s\n", fmt_bandwidth(bw, sizeof bw, t->memory_bw));
  fprintf(out, "  ridge     %s FLOP/B: below it a node is memory-bound\n",
          fmt_fixed(rd, sizeof rd, peak / t->memory_bw, 1));
  if (t->ceilings_text) fprintf(out, "  against   %s\n", t->ceilings_text);
  fputc('\n', out);
  Slowest slow = {.kept = 0};
  int *transfers = NULL, ntransfers = 0;
  kernel_table(out, a, ss, m, c, &slow, &transfers, &ntransfers);
  report_totals(out, m, c);
  report_footprint(out, c);
  report_slowest(out, a, ss, m, c, &slow);
  report_parallel(out, m);
  report_pipeline(out, c);
  report_collectives(out, m, c);
  report_transfers(out, m, c, transfers, ntransfers);
  free(transfers);
}

/* Model mi's kernels on the first nt targets side by side: the cells of
 * kernel ki into row, in cells. */
static void side_row(const Analysis *an, int mi, int nt, int ki, Arena *a,
                     const SourceSet *ss, const int *nops, const char **row,
                     char (*cells)[NB]) {
  const Model *m = &an->unit->models[mi];
  const ModelCost *c0 = cost_at(an, mi, 0);
  Kernel kn0 = cost_kernel(c0, ki);
  const Kernel *k0 = &kn0;
  row[0] = report_name(a, m, k0);
  row[1] = kernel_op(a, m, nops, k0);
  fmt_count(cells[2], NB, k0->flops);
  fmt_bytes(cells[3], NB, k0->bytes);
  fmt_fixed(cells[4], NB, cost_kernel_roof(c0, k0).intensity, 3);
  for (int j = 2; j < 5; j++) row[j] = cells[j];
  for (int ti = 0; ti < nt; ti++) {
    const ModelCost *c = cost_at(an, mi, ti);
    Kernel kn = ki < c->nkernels ? cost_kernel(c, ki) : kn0;
    const Kernel *k = &kn;
    char num[NB];
    int base = 5 + 3 * ti;
    if (k->bound == BOUND_MEMORY || k->bound == BOUND_COMPUTE)
      snprintf(cells[base], NB, "%s TFLOP/s",
               fmt_sig3(num, sizeof num, cost_kernel_roof(c, k).attainable / 1e12));
    else
      strcpy(cells[base], "-");
    snprintf(cells[base + 1], NB, "%s", bound_str(k->bound));
    fmt_time(cells[base + 2], NB, k->time_s * k->count);
    for (int j = 0; j < 3; j++) row[base + j] = cells[base + j];
  }
  row[5 + 3 * nt] = fmt_at(cells[5 + 3 * nt], NB, ss, cost_kernel_loc(m, k0));
}

/* The step time and, R-CHK-081, the footprint against each target's
 * memory. */
static void side_totals(FILE *out, const Analysis *an, int mi) {
  fprintf(out, "\nstep time");
  for (int ti = 0; ti < an->ntargets; ti++) {
    char tm[NB];
    fprintf(out, "%s [%d] >= %s", ti ? "," : "", ti + 1,
            fmt_time(tm, sizeof tm, cost_at(an, mi, ti)->time_s));
  }
  fprintf(out, "\nfootprint");
  for (int ti = 0; ti < an->ntargets; ti++) {
    const ModelCost *c = cost_at(an, mi, ti);
    char fp[NB], mem[48];
    double have = c->target->memory;
    fmt_bytes(fp, sizeof fp, c->footprint.total);
    if (have <= 0)
      fprintf(out, "%s [%d] %s (memory not stated)", ti ? "," : "", ti + 1, fp);
    else
      fprintf(out, "%s [%d] %s %s %s", ti ? "," : "", ti + 1, fp,
              c->footprint.total <= have ? "fits in" : "does not fit in",
              fmt_capacity(mem, sizeof mem, have));
  }
  fputc('\n', out);
}

/* Several targets: each kernel's attainable rate, bound and time on every
 * target side by side (rates to three significant digits, so 3.35 against
 * 6.70 reads at a glance). */
static void report_side_by_side(FILE *out, Arena *a, const SourceSet *ss,
                                const Analysis *an, int mi, const char *file) {
  const Model *m = &an->unit->models[mi];
  const ModelCost *c0 = cost_at(an, mi, 0);
  fprintf(out, "model %s (%s) on %d targets\n", m->name, file, an->ntargets);
  for (int ti = 0; ti < an->ntargets; ti++) {
    const Target *t = an->targets[ti];
    char pk[NB], bw[NB], rd[NB];
    double peak = headline(m, cost_at(an, mi, ti)).peak;
    fprintf(out, "  [%d] %s: %s, %s, ridge %s FLOP/B%s%s\n", ti + 1, t->display,
            fmt_flops_rate(pk, sizeof pk, peak),
            fmt_bandwidth(bw, sizeof bw, t->memory_bw),
            fmt_fixed(rd, sizeof rd, peak / t->memory_bw, 1),
            t->ceilings_text ? ", " : "", t->ceilings_text ? t->ceilings_text : "");
  }
  fputc('\n', out);
  int nt = an->ntargets > 8 ? 8 : an->ntargets;
  Table tb = {.ncols = 5 + 3 * nt + 1}; /* ... then "at" */
  const int *nops = region_ops(a, m);
  char right[32];
  memset(right, 'r', sizeof right);
  right[0] = right[1] = 'l';
  for (int ti = 0; ti < nt; ti++) right[5 + 3 * ti + 1] = 'l';
  right[5 + 3 * nt] = 'l';
  tb.align = right;
  const char *head[32] = {"node", "op", "FLOPs/run", "bytes/run", "FLOP/B"};
  char hdr[8][3][NB];
  for (int ti = 0; ti < nt; ti++) {
    snprintf(hdr[ti][0], NB, "[%d] attainable", ti + 1);
    snprintf(hdr[ti][1], NB, "bound");
    snprintf(hdr[ti][2], NB, "time/step");
    for (int j = 0; j < 3; j++) head[5 + 3 * ti + j] = hdr[ti][j];
  }
  head[5 + 3 * nt] = "at";
  table_add(&tb, head);
  char cells[32][NB];
  for (int ki = 0; ki < c0->nkernels; ki++) {
    const char *row[32];
    side_row(an, mi, nt, ki, a, ss, nops, row, cells);
    table_add(&tb, row);
  }
  table_print(out, &tb, "");
  side_totals(out, an, mi);
}

void report_models(FILE *out, const Analysis *an, const SourceSet *ss) {
  if (!an || !an->unit) return;
  Arena *a = arena_new();
  const char *file = src_file(ss, an->file)->name;
  for (int mi = 0; mi < an->unit->nmodels; mi++) {
    if (mi > 0) fputc('\n', out);
    if (an->ntargets > 1)
      report_side_by_side(out, a, ss, an, mi, file);
    else
      report_one_target(out, a, ss, &an->unit->models[mi], cost_at(an, mi, 0), file);
  }
  arena_free(a);
}

/* ----------------------------------------------------------------- sweep */

/* R-CLI-009: every sweep row has the model totals, the footprint against
 * the target's memory and the errors at that value; a lone kernel adds its
 * roofline and occupancy (the seed's occupancy table), a collective its
 * legs (the seed's all-reduce table). */
static const char *const sweep_heads[][16] = {
    [SWEEP_TOTALS] = {"FLOPs/step", "bytes/step", "FLOP/B", "time/step", "memory-bound",
                      "footprint", "fits", NULL},
    [SWEEP_ONE_NODE] = {"FLOPs/step", "bytes/step", "FLOP/B", "time/step", "memory-bound",
                        "footprint", "fits", "attainable", "bound", "blocks",
                        "waves", "utilisation", "SMs idle", NULL},
    [SWEEP_COLLECTIVE] = {"FLOPs/step", "bytes/step", "FLOP/B", "time/step",
                          "memory-bound", "footprint", "fits", "NVLink/GPU",
                          "NVLink time", "IB/GPU", "IB time", "on IB", NULL},
};

SweepLayout report_sweep_layout(const Analysis *an) {
  if (!an || !an->unit || an->unit->nmodels == 0 || !an->costs)
    return SWEEP_TOTALS;
  const ModelCost *c = cost_at(an, 0, 0);
  if (c->ncollectives > 0) return SWEEP_COLLECTIVE;
  if (c->nkernels == 1) return SWEEP_ONE_NODE;
  return SWEEP_TOTALS;
}

static int sweep_width(const char *head) {
  int n = (int)strlen(head);
  return n < 11 ? 11 : n;
}

void report_sweep_header(FILE *out, SweepLayout k, const char *const *names,
                         int naxes, int model_w) {
  StrBuf line = {0};
  for (int a = 0; a < naxes; a++)
    sb_printf(&line, "%s%10s", a ? "  " : "", names[a]);
  if (model_w > 0) sb_printf(&line, "  %-*s", model_w, "model");
  for (int i = 0; sweep_heads[k][i]; i++)
    sb_printf(&line, "  %*s", sweep_width(sweep_heads[k][i]), sweep_heads[k][i]);
  sb_printf(&line, "  errors");
  fprintf(out, "%s\n", sb_str(&line));
  for (size_t i = 0; i < line.len; i++) fputc('-', out);
  fputc('\n', out);
  sb_free(&line);
}

const char *const *report_sweep_heads(SweepLayout kind) { return sweep_heads[kind]; }

int report_sweep_cells(const Analysis *an, int model, SweepLayout kind,
                       char v[][REPORT_NB]) {
  int n = 0;
  bool costed = an && an->unit && an->unit->nmodels > model && an->costs;
  const ModelCost *c = costed ? cost_at(an, model, 0) : NULL;
  if (c) {
    double mem = c->target->memory;
    fmt_flop(v[n++], NB, c->flops);
    fmt_bytes(v[n++], NB, c->bytes);
    fmt_fixed(v[n++], NB, c->bytes > 0 ? c->flops / c->bytes : 0, 3);
    fmt_time(v[n++], NB, cost_step_time(c));
    fmt_percent(v[n++], NB, percent_of(c->memory_bound_time, c->time_s), 0);
    fmt_bytes(v[n++], NB, c->footprint.total);
    snprintf(v[n++], NB, "%s", mem <= 0 ? "-" : c->footprint.total <= mem ? "yes" : "no");
  }
  if (c && kind == SWEEP_COLLECTIVE && c->ncollectives > 0) {
    /* every collective's legs per step (a ZeRO-3 step has three) */
    double nvb = 0, nvt = 0, ibb = 0, ibt = 0, all = 0;
    for (int i = 0; i < c->ncollectives; i++) {
      const Collective *k = &c->collectives[i];
      nvb += k->nvlink_bytes * k->count;
      nvt += k->nvlink_time * k->count;
      ibb += k->ib_bytes * k->count;
      ibt += k->ib_time * k->count;
      all += k->time_s * k->count;
    }
    fmt_bytes(v[n++], NB, nvb);
    fmt_time(v[n++], NB, nvt);
    fmt_bytes(v[n++], NB, ibb);
    fmt_time(v[n++], NB, ibt);
    fmt_percent(v[n++], NB, percent_of(ibt, all), 0);
  } else if (c && kind == SWEEP_ONE_NODE && c->nkernels == 1) {
    Kernel kn = cost_kernel(c, 0);
    const Kernel *k = &kn;
    const NodeCost *nc = &c->nodes[k->first_node];
    RoofPoint roof = cost_kernel_roof(c, k);
    Waves w = cost_node_waves(c, nc);
    fmt_flops_rate(v[n++], NB, roof.attainable);
    snprintf(v[n++], NB, "%s", bound_str(k->bound));
    fmt_fixed(v[n++], NB, nc->blocks, 0);
    fmt_fixed(v[n++], NB, w.waves, 0);
    fmt_percent(v[n++], NB, w.utilisation, 1);
    fmt_fixed(v[n++], NB, w.idle_sms, 0);
  }
  return n;
}

void report_sweep_row(FILE *out, const Analysis *an, int model, SweepLayout kind,
                      const char *const *values, int naxes, int model_w,
                      const char *model_name, const char *errors) {
  char v[16][NB];
  int n = report_sweep_cells(an, model, kind, v);
  for (int a = 0; a < naxes; a++) fprintf(out, "%s%10s", a ? "  " : "", values[a]);
  if (model_w > 0) fprintf(out, "  %-*s", model_w, model_name ? model_name : "-");
  for (int i = 0; sweep_heads[kind][i]; i++) /* "-": not costed at this value */
    fprintf(out, "  %*s", sweep_width(sweep_heads[kind][i]), i < n ? v[i] : "-");
  fprintf(out, "  %s\n", errors && *errors ? errors : "-");
}

/* ------------------------------------------------------------ targets */

/* Failure of a name on the command line is a usage error (2); a target
 * file that exists but is wrong is an error in a file (1). */
static int resolve_status(const char *name) {
  if (!strchr(name, '/') && !strstr(name, ".roof")) return 2;
  FILE *f = fopen(name, "r");
  if (!f) return 2;
  fclose(f);
  return 1;
}

/* The precisions a card lists, tensor rows first. */
static const struct {
  DType dt;
  bool tensor;
  const char *label;
} card_rows[] = {
    {DT_FP4, true, "fp4 tensor"},   {DT_FP8_E4M3, true, "fp8 tensor"},
    {DT_INT8, true, "int8 tensor"}, {DT_INT4, true, "int4 tensor"},
    {DT_FP16, true, "fp16 tensor"}, {DT_BF16, true, "bf16 tensor"},
    {DT_TF32, true, "tf32 tensor"}, {DT_FP64, true, "fp64 tensor"},
    {DT_FP16, false, "fp16 vector"}, {DT_BF16, false, "bf16 vector"},
    {DT_FP32, false, "fp32 vector"}, {DT_FP64, false, "fp64 vector"},
    {DT_INT8, false, "int8 vector"},
};

/* The peak `rooflint targets` compares cards by, the `16-bit peak`: the
 * headline peak of a card that states an fp16 rate; else its bf16 rate,
 * or the peak it has, named in *label (a calibrated CPU's fp32), never a
 * 16-bit figure of 0 (R-CAL-009). */
static double table_peak(const Target *t, const char **label) {
  *label = NULL;
  if (t->tensor_peak[DT_FP16] > 0 || t->vector_peak[DT_FP16] > 0)
    return target_headline_peak(t);
  double p = t->tensor_peak[DT_BF16] > 0 ? t->tensor_peak[DT_BF16] : t->vector_peak[DT_BF16];
  if (p <= 0) p = target_headline_peak(t);
  for (size_t i = 0; i < sizeof card_rows / sizeof card_rows[0] && !*label; i++) {
    double r = (card_rows[i].tensor ? t->tensor_peak : t->vector_peak)[card_rows[i].dt];
    if (r > 0 && r == p) *label = card_rows[i].label;
  }
  return p;
}

/* The `16-bit peak` cell, and the peak its ridge is of. */
static double peak_cell(char *buf, size_t n, const Target *t) {
  const char *label;
  double p = table_peak(t, &label);
  char num[NB];
  if (!label)
    tflops(buf, n, p, 0);
  else if (p >= 1e12)
    snprintf(buf, n, "%s TFLOP/s %s", fmt_fixed(num, sizeof num, p / 1e12, 0), label);
  else
    snprintf(buf, n, "%s GFLOP/s %s", fmt_fixed(num, sizeof num, p / 1e9, 1), label);
  return p;
}

int report_targets_cmd(FILE *out, Arena *a, SourceSet *ss,
                       const char *const *names, int n, DiagSink *diags) {
  const Target **ts;
  int nt;
  if (n == 0) {
    const TargetSet *set = target_builtins(a, ss, diags);
    if (diags->nerrors > 0) return 1;
    ts = (const Target **)set->items;
    nt = set->n;
  } else {
    ts = arena_alloc(a, (size_t)n * sizeof *ts);
    nt = n;
    for (int i = 0; i < n; i++) {
      ts[i] = target_resolve(a, ss, names[i], NULL, LOC_NONE, diags);
      if (!ts[i]) return resolve_status(names[i]);
    }
  }
  Table tb = {.ncols = 7, .align = "llrrrrr"};
  const char *head[] = {"target", "part", "year", "memory", "bandwidth",
                  "16-bit peak", "ridge FLOP/B"};
  table_add(&tb, head);
  for (int i = 0; i < nt; i++) {
    const Target *t = ts[i];
    char yr[NB], mem[NB], bw[NB], pk[NB], rd[NB], num[NB];
    if (t->year > 0) snprintf(yr, sizeof yr, "%d", t->year);
    else snprintf(yr, sizeof yr, "-"); /* a calibrated card has none */
    short_bytes(mem, sizeof mem, t->memory);
    snprintf(bw, sizeof bw, "%s TB/s", fmt_fixed(num, sizeof num, t->memory_bw / 1e12, 2));
    fmt_fixed(rd, sizeof rd, peak_cell(pk, sizeof pk, t) / t->memory_bw, 0);
    const char *row[] = {(char *)t->name, (char *)t->display, yr, mem, bw, pk, rd};
    table_add(&tb, row);
  }
  table_print(out, &tb, "");
  if (n >= 2) {
    const Target *f = ts[0], *l = ts[nt - 1];
    char g1[NB], g2[NB], g3[NB];
    const char *label;
    double pf = table_peak(f, &label), pl = table_peak(l, &label);
    char y1[16] = "", y2[16] = ""; /* a calibrated card has no year */
    if (f->year > 0) snprintf(y1, sizeof y1, " (%d)", f->year);
    if (l->year > 0) snprintf(y2, sizeof y2, " (%d)", l->year);
    fprintf(out, "\nFrom %s%s to %s%s:\n", f->display, y1, l->display, y2);
    fprintf(out, "  arithmetic throughput grew %sx\n", fmt_fixed(g1, sizeof g1, pl / pf, 1));
    fprintf(out, "  memory bandwidth  grew %sx\n",
            fmt_fixed(g2, sizeof g2, l->memory_bw / f->memory_bw, 1));
    fprintf(out, "  so the ridge point grew %sx\n",
            fmt_fixed(g3, sizeof g3, (pl / l->memory_bw) / (pf / f->memory_bw), 1));
  }
  return 0;
}

/* Whether the card has source line beginning `prefix`. */
static bool has_source(const Target *t, const char *prefix) {
  for (int i = 0; i < t->nsources; i++)
    if (strncmp(t->sources[i], prefix, strlen(prefix)) == 0) return true;
  return false;
}

/* Where the card's figures come from, as its source lines say (R-CAL-009):
 * a datasheet, or `rooflint calibrate` for its achieved ceilings or for
 * every figure. */
static void card_origin(FILE *out, const Target *t) {
  if (!has_source(t, CALIBRATED_SOURCE)) {
    fprintf(out, "Accelerator: %s (published specification, approximate)\n", t->display);
    fprintf(out, "All figures PUBLISHED SPECIFICATIONS, not measurements.\n\n");
  } else if (has_source(t, MEASURED_PEAKS_SOURCE)) {
    fprintf(out, "Accelerator: %s (measured by rooflint calibrate)\n", t->display);
    fprintf(out, "All figures MEASURED on this device by rooflint calibrate, "
                 "not published specifications (sources below).\n\n");
  } else {
    fprintf(out, "Accelerator: %s (published specification, approximate, with "
                 "ceilings measured by rooflint calibrate)\n", t->display);
    fprintf(out, "Peaks PUBLISHED SPECIFICATIONS; the achieved ceilings of the keys "
                 "rooflint calibrate's sources name MEASURED on this device.\n\n");
  }
}

int report_target_card(FILE *out, Arena *a, SourceSet *ss, const char *name,
                       DiagSink *diags) {
  const Target *t = target_resolve(a, ss, name, NULL, LOC_NONE, diags);
  if (!t) return resolve_status(name);
  double fp16 = target_headline_peak(t);
  card_origin(out, t);
  if (t->nlevels > 0) {
    fprintf(out, "%-16s%8s%11s%10s %-22s%13s\n", "level", "capacity",
            "bandwidth", "latency*", "supply chain", "FLOPs missed");
    for (int i = 0; i < 81; i++) fputc('-', out);
    fputc('\n', out);
    for (int i = 0; i < t->nlevels; i++) {
      const MemLevel *lv = &t->levels[i];
      char bw[NB], b2[NB / 2], lat[NB], missed[NB];
      fmt_bandwidth(b2, sizeof b2, lv->bandwidth);
      snprintf(bw, sizeof bw, "%s%s", lv->approximate ? "~" : "", b2);
      snprintf(lat, sizeof lat, "%g ns", fmt_round(lv->latency * 1e9, 3));
      fmt_fixed(missed, sizeof missed, fp16 * lv->latency, 0);
      fprintf(out, "%-16s%8s%11s%10s %-22s%13s\n", lv->label,
              lv->capacity_text ? lv->capacity_text : "-", bw, lat,
              lv->note ? lv->note : "", missed);
    }
    fprintf(out, "\n* latency is an order-of-magnitude figure, NOT a vendor spec.\n");
    fprintf(out, "  FLOPs missed = %s 16-bit tensor peak x latency: the arithmetic\n"
                 "  you could have done while waiting.\n\n",
            tflops((char[NB]){0}, NB, fp16, 0));
  }
  char v[NB], v2[NB], v3[NB], v4[NB];
  /* The on-chip figures a datasheet states; unstated ones are left out. */
  fprintf(out, "%d SMs", t->sms);
  if (t->l2 > 0) fprintf(out, ", %s L2", short_bytes(v, sizeof v, t->l2));
  if (t->smem_per_sm > 0)
    fprintf(out, ", %s shared memory per SM", short_bytes(v, sizeof v, t->smem_per_sm));
  if (t->regs_per_sm > 0)
    fprintf(out, ", %s registers per SM", short_bytes(v, sizeof v, t->regs_per_sm));
  fprintf(out, "\n\n");
  Table tb = {.ncols = 3, .align = "lrr"};
  const char *head[] = {"precision", "peak", "ridge FLOP/B"};
  table_add(&tb, head);
  for (size_t i = 0; i < sizeof card_rows / sizeof card_rows[0]; i++) {
    double p = (card_rows[i].tensor ? t->tensor_peak : t->vector_peak)[card_rows[i].dt];
    if (p <= 0) continue;
    char pk[NB], rd[NB];
    fmt_flops_rate(pk, sizeof pk, p);
    fmt_fixed(rd, sizeof rd, p / t->memory_bw, 1);
    const char *row[] = {(char *)card_rows[i].label, pk, rd};
    table_add(&tb, row);
  }
  table_print(out, &tb, "");
  fprintf(out,
          "\nmemory %s at %s; NVLink %s, InfiniBand %s, PCIe %s per GPU per direction; "
          "%d GPUs per node\n",
          short_bytes(v, sizeof v, t->memory), fmt_bandwidth(v2, sizeof v2, t->memory_bw),
          t->nvlink_bw > 0 ? fmt_bandwidth(v3, sizeof v3, t->nvlink_bw) : "none",
          t->ib_bw > 0 ? fmt_bandwidth(v4, sizeof v4, t->ib_bw) : "none",
          fmt_bandwidth((char[NB]){0}, NB, t->pcie_bw), t->gpus_per_node);
  const char *achieved = target_achieved_text(a, t); /* R-CEIL-001 */
  if (achieved) fprintf(out, "achieved (--ceilings achieved): %s\n", achieved);
  if (t->nsources > 0) {
    fprintf(out, "\nsources\n");
    for (int i = 0; i < t->nsources; i++) fprintf(out, "  %s\n", t->sources[i]);
  }
  return 0;
}
