/* SPDX-License-Identifier: MIT */
/*
 * json.c: `--format json`, one document per run.  The document mirrors the
 * analysis: the tool, the target(s), one entry per (model, target) with a
 * row per graph node, the kernels, collectives, transfers and totals, then
 * every diagnostic with its notes, fix-its and figures.  It is written as
 * it is made (json_writer.h), member by member, so that the document's
 * memory is one node's; the rows keep the text of the figures and strings
 * they repeat.  Numbers are base units (FLOPs, bytes,
 * seconds, FLOP/s, B/s); integral values print as integers so that a byte
 * count reads 33554432 rather than 33554432.0.  Columns are byte columns,
 * as in the text diagnostics.
 */
#include "rooflint.h"
#include "out.h"
#include "json_writer.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- target */

/* A figure's text, by the double's bits; text[FIGURE_TEXT - 1] is its
 * length (0: none yet).  The longest text, a real's, is 25 bytes. */
enum { FIGURE_TEXT = 32, FIGURE_BITS = 8 };
typedef struct Figure {
  uint64_t bits;
  char text[FIGURE_TEXT];
} Figure;

/* A string's text, by its address, for the strings a row takes from a
 * table or its model (op, role, dtype, bound, region, file), which stay as
 * they are while the document is written; text[QUOTED_TEXT - 1] is its
 * length (0: none yet). */
enum { QUOTED_TEXT = JSON_OUT_ROOM, QUOTED_BITS = 8 };
typedef struct Quoted {
  const char *s;
  char text[QUOTED_TEXT];
} Quoted;

/* What the rows' writers keep from one row to the next.  The sources, and
 * the line last found in one of them: the rows come in source order, so
 * the next location is on that line or the next.  And the texts of recent
 * figures and strings: a node's peak and ridge are its target's, its op,
 * role, dtype and file are one of a few, and a model repeats its layers,
 * so most of what a row writes was written in a row before.  Each table
 * keeps one text per slot; a value that misses replaces the slot's. */
typedef struct Rows {
  const SourceSet *ss;
  int file;
  size_t line;
  Figure figures[1 << FIGURE_BITS]; /* direct-mapped by a hash of the bits */
  Quoted quoted[1 << QUOTED_BITS];  /* direct-mapped by a hash of the address */
} Rows;

/* Makes f the figure of v (bits); false where json_out_num writes v
 * itself. */
static bool figure_make(Figure *f, uint64_t bits, double v) {
  char t[JSON_OUT_ROOM];
  char *end = json_num_text(t, v);
  if (!end) return false;
  f->bits = bits;
  memcpy(f->text, t, FIGURE_TEXT - 1);
  f->text[FIGURE_TEXT - 1] = (char)(end - t);
  return true;
}

/* json_out_num(w, key, v), its text made once per value that the table
 * holds: the same bits make the same text. */
JSON_OUT_INLINE void out_figure(JsonOut *w, Rows *r, const char *key, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  Figure *f = &r->figures[(bits * 0x9E3779B97F4A7C15ull) >> (64 - FIGURE_BITS)];
  if ((f->bits != bits || !f->text[FIGURE_TEXT - 1]) && !figure_make(f, bits, v)) {
    json_out_num(w, key, v);
    return;
  }
  _Static_assert((int)FIGURE_TEXT <= (int)JSON_OUT_ROOM, "a figure fits a member's room");
  char *p = json_out_member(w, key);
  memcpy(p, f->text, FIGURE_TEXT);
  json_out_end(w, p + f->text[FIGURE_TEXT - 1]);
}

/* Makes q the text of s where that is s quoted (every byte plain ASCII,
 * none escaped: json_out_str's rule) and fits; false otherwise. */
static bool quoted_make(Quoted *q, const char *s) {
  size_t n = 0;
  for (; s[n]; n++) {
    unsigned char c = (unsigned char)s[n];
    if (n + 3 > QUOTED_TEXT - 1 || c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  }
  q->s = s;
  q->text[0] = '"';
  memcpy(q->text + 1, s, n);
  q->text[n + 1] = '"';
  q->text[QUOTED_TEXT - 1] = (char)(n + 2);
  return true;
}

/* json_out_str(w, key, s), for a string that stays as it is while the
 * document is written, its text made once per address the table holds. */
JSON_OUT_INLINE void out_quoted(JsonOut *w, Rows *r, const char *key, const char *s) {
  if (!s) {
    json_out_null(w, key);
    return;
  }
  Quoted *q = &r->quoted[((uint64_t)(uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - QUOTED_BITS)];
  if ((q->s != s || !q->text[QUOTED_TEXT - 1]) && !quoted_make(q, s)) {
    json_out_str(w, key, s);
    return;
  }
  char *p = json_out_member(w, key);
  memcpy(p, q->text, QUOTED_TEXT);
  json_out_end(w, p + q->text[QUOTED_TEXT - 1]);
}

/* R-ONNX-007: a line an importer wrote says what it came from, its
 * parts split and its byte region in the file read. */
static void write_origin(JsonOut *w, const Located *at) {
  OriginParts *op = xmalloc(sizeof *op);
  StrBuf text = {0};
  sb_putn(&text, at->origin, at->origin_len);
  json_out_open(w, "origin", '{');
  json_out_str(w, "text", sb_str(&text));
  if (src_origin_parts(at->origin, op)) {
    json_out_str(w, "kind", op->kind);
    if (op->has_index) json_out_int(w, "index", op->index);
    if (op->has_name) json_out_str(w, "name", op->name);
    if (op->type[0]) json_out_str(w, "op_type", op->type);
    if (op->has_path) json_out_str(w, "graph", op->path); /* a subgraph's */
    if (op->has_region) {
      json_out_int(w, "byte_offset", (long long)op->offset);
      json_out_int(w, "byte_length", (long long)op->length);
    }
  }
  json_out_close(w, '}');
  sb_free(&text);
  free(op);
}

/* {"file", "line", "column", "end_line", "end_column"}, or null; in the
 * file the user has (R-DIAG-001): a config's key, and on a binary file's
 * node null line and column beside the origin. */
static void write_location(JsonOut *w, const char *key, Loc loc, const char *origin,
                           Rows *src) {
  if (loc.file < 0 || loc.file >= src->ss->nfiles) {
    json_out_null(w, key);
    return;
  }
  const SourceFile *f = src_file(src->ss, loc.file);
  Located at;
  src_locate(f, loc, origin, &at);
  json_out_open(w, key, '{');
  out_quoted(w, src, "file", f->name);
  if (at.in == f) {
    if (loc.file != src->file) src->file = loc.file, src->line = 0;
    int line, col, eline, ecol;
    src_linecol_near(f, loc.start, &src->line, &line, &col);
    src_linecol_near(f, loc.end, &src->line, &eline, &ecol);
    json_out_int(w, "line", line);
    json_out_int(w, "column", col);
    json_out_int(w, "end_line", eline);
    json_out_int(w, "end_column", ecol);
  } else if (at.in) {
    int line, col, eline, ecol;
    src_linecol(at.in, at.start, &line, &col);
    src_linecol(at.in, at.end, &eline, &ecol);
    json_out_int(w, "line", line);
    json_out_int(w, "column", col);
    json_out_int(w, "end_line", eline);
    json_out_int(w, "end_column", ecol);
  } else {
    const char *k[] = {"line", "column", "end_line", "end_column"};
    for (int i = 0; i < 4; i++) json_out_null(w, k[i]);
  }
  if (at.origin) write_origin(w, &at);
  json_out_close(w, '}');
}

/* Peaks keyed "<dtype>" (vector cores) and "<dtype>_tc" (tensor cores),
 * e.g. "fp16_tc", in dtype order; with the ridge of each (ridges: true). */
static void write_peaks(JsonOut *w, const Target *t, bool ridges) {
  json_out_open(w, ridges ? "ridges" : "peaks", '{');
  for (int d = 0; d < DT__COUNT; d++) {
    static const char *const suffix[2] = {"", "_tc"};
    double v[2] = {t->vector_peak[d], t->tensor_peak[d]};
    for (int k = 0; k < 2; k++) {
      if (v[k] <= 0) continue;
      char key[32];
      snprintf(key, sizeof key, "%s%s", dtype_str((DType)d), suffix[k]);
      json_out_num(w, key, !ridges ? v[k] : t->memory_bw > 0 ? v[k] / t->memory_bw : 0);
    }
  }
  json_out_close(w, '}');
}

/* A struct's fields as JSON gives them: its key, where the value is in
 * the struct, and whether it is a string, an int or a double. */
typedef enum { JF_STR, JF_INT, JF_NUM } JsonFieldKind;
typedef struct JsonField {
  const char *key;
  size_t offset;
  JsonFieldKind kind;
} JsonField;

#define TF(key, field, kind) {key, offsetof(Target, field), kind}
static const JsonField target_fields[] = {
    TF("name", name, JF_STR),           TF("display", display, JF_STR),
    TF("year", year, JF_INT),           TF("sms", sms, JF_INT),
    TF("memory", memory, JF_NUM),       TF("memory_bw", memory_bw, JF_NUM),
    TF("l2", l2, JF_NUM),               TF("smem_per_sm", smem_per_sm, JF_NUM),
    TF("regs_per_sm", regs_per_sm, JF_NUM), TF("nvlink_bw", nvlink_bw, JF_NUM),
    TF("ib_bw", ib_bw, JF_NUM),         TF("pcie_bw", pcie_bw, JF_NUM),
    TF("gpus_per_node", gpus_per_node, JF_INT),
    TF("launch_overhead_s", launch_overhead, JF_NUM),
};
#undef TF
#define LF(key, field, kind) {key, offsetof(MemLevel, field), kind}
static const JsonField level_fields[] = {
    LF("name", name, JF_STR),           LF("label", label, JF_STR),
    LF("capacity", capacity, JF_NUM),   LF("bandwidth", bandwidth, JF_NUM),
    LF("latency_s", latency, JF_NUM),   LF("note", note, JF_STR),
};
#undef LF

static void write_fields(JsonOut *w, const void *base, const JsonField *f,
                         size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *p = (const char *)base + f[i].offset;
    switch (f[i].kind) {
    case JF_STR: json_out_str(w, f[i].key, *(const char *const *)p); break;
    case JF_INT: json_out_int(w, f[i].key, *(const int *)p); break;
    case JF_NUM: json_out_num(w, f[i].key, *(const double *)p); break;
    }
  }
}
#define WRITE_FIELDS(w, base, table) \
  write_fields(w, base, table, sizeof table / sizeof table[0])

static void write_target(JsonOut *w, const char *key, const Target *t) {
  json_out_open(w, key, '{');
  WRITE_FIELDS(w, t, target_fields);
  write_peaks(w, t, false);
  double hp = target_headline_peak(t);
  json_out_num(w, "ridge", t->memory_bw > 0 ? hp / t->memory_bw : 0);
  write_peaks(w, t, true);
  json_out_open(w, "levels", '[');
  for (int i = 0; i < t->nlevels; i++) {
    json_out_open(w, NULL, '{');
    WRITE_FIELDS(w, &t->levels[i], level_fields);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  if (t->ceilings == CEILINGS_ACHIEVED) { /* R-CEIL-004 */
    json_out_str(w, "ceilings", "achieved");
    json_out_open(w, "ceilings_fell_back", '[');
    for (int i = 0; i < t->nfell_back; i++) json_out_str(w, NULL, t->fell_back[i]);
    json_out_close(w, ']');
  }
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- models */

static const char *node_op(const GNode *g) {
  return g->op ? g->op->name : role_str(g->role);
}

/* The figures a node's and a kernel's row share, in the rows' order. */
static void out_roofline(JsonOut *w, Rows *src, double count, double flops, double bytes,
                         const RoofPoint *roof, double peak) {
  out_figure(w, src, "count", count);
  out_figure(w, src, "flops", flops);
  out_figure(w, src, "bytes", bytes);
  out_figure(w, src, "intensity", roof->intensity);
  out_figure(w, src, "ridge", roof->ridge);
  out_figure(w, src, "peak", peak);
}

/* R-OUT-004: one row per graph node, declarations included (op = role). */
static void write_node(JsonOut *w, const Model *m, const ModelCost *mc, int i,
                       Rows *src) {
  const GNode *g = &m->nodes[i];
  const NodeCost *c = &mc->nodes[i];
  RoofPoint roof = cost_node_roof(mc, c);
  Waves wv = cost_node_waves(mc, c);
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", g->name);
  out_quoted(w, src, "op", node_op(g));
  out_quoted(w, src, "role", role_str(g->role));
  out_quoted(w, src, "dtype", g->type->dtype == DT_NONE ? NULL : dtype_str(g->type->dtype));
  out_quoted(w, src, "precision", g->precision == DT_NONE ? NULL : dtype_str(g->precision));
  json_out_open(w, "shape", '[');
  for (int d = 0; d < g->type->rank; d++) json_out_int(w, NULL, g->type->dims[d]);
  json_out_close(w, ']');
  out_roofline(w, src, g->count, c->flops, c->bytes, &roof, c->peak);
  json_out_bool(w, "tensor_cores", c->tensor);
  out_figure(w, src, "attainable", roof.attainable);
  out_quoted(w, src, "bound", bound_str(c->bound));
  out_figure(w, src, "time_s", c->time_s);
  out_figure(w, src, "blocks", c->blocks);
  out_figure(w, src, "waves", wv.waves);
  out_figure(w, src, "utilisation", wv.utilisation);
  out_figure(w, src, "idle_sms", wv.idle_sms);
  if (c->kernel >= 0) json_out_int(w, "kernel", c->kernel);
  else json_out_null(w, "kernel");
  out_quoted(w, src, "region", g->region >= 0 && g->region < m->nregions ? m->regions[g->region].name : NULL);
  write_location(w, "location", g->loc, NULL, src);
  json_out_close(w, '}');
}

static void write_kernel(JsonOut *w, const ModelCost *mc, const Kernel *k, Rows *src) {
  const Model *m = mc->model;
  RoofPoint roof = cost_kernel_roof(mc, k);
  const char *name = k->region >= 0 && k->region < m->nregions ? m->regions[k->region].name
                     : k->first_node >= 0 && k->first_node < m->nnodes ? m->nodes[k->first_node].name
                                                                        : NULL;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", name);
  out_quoted(w, src, "kind", k->region >= 0 ? "fused" : "op");
  out_roofline(w, src, k->count, k->flops, k->bytes, &roof, k->peak);
  out_figure(w, src, "attainable", roof.attainable);
  out_quoted(w, src, "bound", bound_str(k->bound));
  out_figure(w, src, "time_s", k->time_s);
  json_out_close(w, '}');
}

static void write_collective(JsonOut *w, const Model *m, const Collective *c, Rows *src) {
  bool has_node = c->node >= 0 && c->node < m->nnodes;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", has_node ? m->nodes[c->node].name : NULL);
  json_out_str(w, "kind", c->kind);
  json_out_bool(w, "implicit", !has_node);
  json_out_str(w, "group", par_group_str(c->group));
  if (!has_node) json_out_str(w, "what", c->what);
  out_figure(w, src, "buffer_bytes", c->buffer);
  json_out_int(w, "ranks", c->ranks);
  out_figure(w, src, "nvlink_bytes", c->nvlink_bytes);
  out_figure(w, src, "ib_bytes", c->ib_bytes);
  out_figure(w, src, "nvlink_time_s", c->nvlink_time);
  out_figure(w, src, "ib_time_s", c->ib_time);
  out_figure(w, src, "time_s", c->time_s);
  out_figure(w, src, "count", c->count);
  write_location(w, "location", has_node ? m->nodes[c->node].loc : LOC_NONE, NULL, src);
  json_out_close(w, '}');
}

/* A to_device/to_host node: bytes over PCIe per run and per step. */
static void write_transfer(JsonOut *w, const GNode *g, const NodeCost *c, Rows *src) {
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", g->name);
  json_out_str(w, "op", node_op(g));
  out_figure(w, src, "bytes", c->bytes);
  out_figure(w, src, "count", g->count);
  out_figure(w, src, "total_bytes", c->bytes * g->count);
  out_figure(w, src, "time_s", c->time_s);
  out_figure(w, src, "total_time_s", c->time_s * g->count);
  write_location(w, "location", g->loc, NULL, src);
  json_out_close(w, '}');
}

static void write_summary(JsonOut *w, const ModelCost *mc) {
  json_out_open(w, "summary", '{');
  json_out_num(w, "flops", mc->flops);
  json_out_num(w, "bytes", mc->bytes);
  json_out_num(w, "time_s", mc->time_s);
  json_out_num(w, "memory_bound_time_s", mc->memory_bound_time);
  json_out_num(w, "memory_bound_time_share", mc->time_s > 0 ? mc->memory_bound_time / mc->time_s : 0);
  json_out_num(w, "transfer_time_s", mc->transfer_time);
  json_out_num(w, "collective_time_s", mc->collective_time);
  if (mc->collective_time > 0) /* R-PAR-007 */
    json_out_num(w, "overlap_time_s", mc->pipe.stages > 1
                                          ? mc->overlap_time
                                          : cost_step_split(mc).overlapped);
  if (mc->accumulated > 1) /* R-PAR-020: the figures above are one microbatch */
    json_out_num(w, "accumulated_microbatches", mc->accumulated);
  if (mc->collective_time > 0 || mc->accumulated > 1)
    json_out_num(w, "step_time_s", cost_step_time(mc));
  json_out_num(w, "params", mc->params);
  if (mc->experts) {
    json_out_num(w, "active_params", mc->active_params);
    json_out_num(w, "active_param_bytes", mc->active_param_bytes);
  }
  json_out_num(w, "footprint_bytes", mc->footprint.total);
  json_out_open(w, "footprint", '{');
  json_out_num(w, "weights", mc->footprint.weights);
  json_out_num(w, "gradients", mc->footprint.gradients);
  json_out_num(w, "optimizer", mc->footprint.optimizer);
  json_out_num(w, "activations", mc->footprint.activations);
  if (mc->footprint.buffers > 0) json_out_num(w, "buffers", mc->footprint.buffers);
  if (mc->footprint.kv_cache > 0) json_out_num(w, "kv_cache", mc->footprint.kv_cache);
  if (mc->footprint.read_only_cache > 0) /* R-FAM-105 */
    json_out_num(w, "kv_cache_read_only", mc->footprint.read_only_cache);
  if (mc->footprint.gathered > 0) json_out_num(w, "gathered", mc->footprint.gathered);
  json_out_num(w, "total", mc->footprint.total);
  json_out_close(w, '}');
  json_out_close(w, '}');
}

/* R-PLAN-006: the recipe's entries, by class, only in a model that has
 * one. */
static void write_recipe(JsonOut *w, const Model *m) {
  bool recipe = false;
  for (int c = 0; c < OC__COUNT; c++)
    if (m->class_given[c]) {
      if (!recipe) json_out_open(w, "dtype_recipe", '{');
      recipe = true;
      json_out_str(w, op_class_str((OpClass)c), dtype_str(m->class_dtype[c]));
    }
  if (recipe) json_out_close(w, '}');
}

/* R-PAR-001, R-PAR-002: every key, then each group's placement. */
static void write_parallel(JsonOut *w, const Model *m) {
  if (!m->parallel.present) {
    json_out_null(w, "parallel");
    return;
  }
  json_out_open(w, "parallel", '{');
  for (int k = 0; k < parallel_nkeys; k++) {
    const ParallelKey *pk = &parallel_keys[k];
    const char *at = (const char *)&m->parallel + pk->offset;
    if (pk->boolean)
      json_out_bool(w, pk->name, *(const bool *)at);
    else
      json_out_int(w, pk->name, *(const int64_t *)(const void *)at);
  }
  json_out_open(w, "groups", '[');
  for (int g = 0; g < PG__COUNT; g++) {
    GroupPlace gp = parallel_place(&m->parallel, (ParGroup)g);
    json_out_open(w, NULL, '{');
    json_out_str(w, "name", par_group_str((ParGroup)g));
    json_out_int(w, "size", gp.size);
    json_out_int(w, "stride", gp.stride);
    json_out_int(w, "nodes", gp.nodes);
    json_out_int(w, "per_node", gp.per_node);
    json_out_str(w, "link", group_link_str(gp));
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  json_out_close(w, '}');
}

/* R-PAR-009: the pipeline's figures, in a model of several stages. */
static void write_pipeline(JsonOut *w, const PipelineCost *pc) {
  static const char *const kinds[PIPE__KINDS] = {"first", "middle", "last"};
  json_out_open(w, "pipeline", '{');
  json_out_int(w, "stages", pc->stages);
  json_out_num(w, "microbatches", pc->microbatches);
  json_out_num(w, "layers_per_stage", pc->layers);
  json_out_num(w, "bubble", pc->bubble);
  json_out_num(w, "step_time_s", pc->step_time);
  json_out_num(w, "send_bytes", pc->send_bytes);
  json_out_num(w, "send_time_s", pc->send_time);
  json_out_str(w, "send_link", pc->send_ib ? "InfiniBand" : "NVLink");
  json_out_num(w, "send_split", pc->send_split);
  json_out_open(w, "stages_by_kind", '[');
  for (int k = 0; k < PIPE__KINDS; k++) {
    if (k == PIPE_MIDDLE && pc->stages < 3) continue;
    json_out_open(w, NULL, '{');
    json_out_str(w, "kind", kinds[k]);
    json_out_num(w, "compute_s", pc->compute[k]);
    json_out_num(w, "time_s", pc->time[k]);
    json_out_num(w, "in_flight", pc->inflight[k]);
    json_out_num(w, "footprint_bytes", pc->footprint[k].total);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  json_out_close(w, '}');
}

/* The model's nodes, kernels, collectives and transfers, each an array. */
static void write_model_rows(JsonOut *w, const ModelCost *mc, Rows *src) {
  const Model *m = mc->model;
  json_out_open(w, "nodes", '[');
  for (int i = 0; i < m->nnodes; i++) write_node(w, m, mc, i, src);
  json_out_close(w, ']');
  json_out_open(w, "kernels", '[');
  for (int k = 0; k < mc->nkernels; k++) {
    Kernel kn = cost_kernel(mc, k);
    write_kernel(w, mc, &kn, src);
  }
  json_out_close(w, ']');
}

/* R-SERVE-002: the serving answer, in a model with a KV cache. */
static void write_serving(JsonOut *w, const Serving *sv) {
  json_out_open(w, "serving", '{');
  json_out_str(w, "batch_let", sv->batch);
  json_out_int(w, "batch", sv->batch_now);
  json_out_num(w, "time_per_output_token_s", sv->token_time);
  json_out_num(w, "tokens_per_s", sv->tokens_per_s);
  json_out_num(w, "tokens_per_s_per_gpu", sv->tokens_per_s_gpu);
  json_out_int(w, "gpus", sv->gpus);
  if (sv->max_batch >= 0) json_out_int(w, "max_batch", sv->max_batch);
  else json_out_null(w, "max_batch");
  if (sv->compute_batch > 0) json_out_int(w, "compute_bound_batch", sv->compute_batch);
  else json_out_null(w, "compute_bound_batch");
  json_out_str(w, "compute_bound_node", sv->compute_node);
  json_out_close(w, '}');
}

static void write_model(JsonOut *w, const ModelCost *mc, const Serving *sv,
                        Rows *src) {
  const Model *m = mc->model;
  json_out_open(w, NULL, '{');
  json_out_str(w, "name", m->name);
  json_out_str(w, "file", m->file >= 0 && m->file < src->ss->nfiles ? src_file(src->ss, m->file)->name : NULL);
  json_out_str(w, "target", mc->target ? mc->target->name : NULL);
  json_out_str(w, "dtype", m->dtype == DT_NONE ? NULL : dtype_str(m->dtype));
  write_recipe(w, m);
  json_out_str(w, "mode", m->train ? "train" : "inference");
  write_parallel(w, m);
  write_location(w, "location", m->loc, NULL, src);
  write_model_rows(w, mc, src);
  write_summary(w, mc);
  if (sv) write_serving(w, sv);
  if (mc->pipe.stages > 1) write_pipeline(w, &mc->pipe);
  json_out_open(w, "collectives", '[');
  for (int k = 0; k < mc->ncollectives; k++) write_collective(w, m, &mc->collectives[k], src);
  json_out_close(w, ']');
  json_out_open(w, "transfers", '[');
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].op && m->nodes[i].op->cls == OC_TRANSFER)
      write_transfer(w, &m->nodes[i], &mc->nodes[i], src);
  json_out_close(w, ']');
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- diagnostics */

/* R-OUT-004 */
static void write_diag(JsonOut *w, const Diag *d, Rows *src) {
  json_out_open(w, NULL, '{');
  json_out_str(w, "severity", severity_str(d->sev));
  json_out_str(w, "check", d->check);
  json_out_str(w, "message", d->msg);
  write_location(w, "location", d->loc, d->origin, src);
  json_out_open(w, "notes", '[');
  for (int i = 0; i < d->nnotes; i++) {
    json_out_open(w, NULL, '{');
    json_out_str(w, "message", d->notes[i].msg);
    write_location(w, "location", d->notes[i].loc, NULL, src);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  json_out_open(w, "fixits", '[');
  for (int i = 0; i < d->nfixits; i++) {
    json_out_open(w, NULL, '{');
    write_location(w, "location", d->fixits[i].loc, NULL, src);
    json_out_str(w, "text", d->fixits[i].text);
    json_out_close(w, '}');
  }
  json_out_close(w, ']');
  /* An object has one member per key: a key set twice keeps its first
   * place and its last value, as json_object_set does. */
  json_out_open(w, "figures", '{');
  for (int i = 0; i < d->nfigures; i++) {
    const char *key = d->figures[i].key;
    bool again = false;
    for (int j = 0; j < i && !again; j++) again = !strcmp(d->figures[j].key, key);
    if (again) continue;
    double v = d->figures[i].value;
    for (int j = i + 1; j < d->nfigures; j++)
      if (!strcmp(d->figures[j].key, key)) v = d->figures[j].value;
    json_out_num(w, key, v);
  }
  json_out_close(w, '}');
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- document */

/* R-OUT-001 */
void json_write(FILE *out, Analysis *const *an, const DiagSink *const *diags, int n,
                const SourceSet *ss) {
  Rows *src = xcalloc(1, sizeof *src);
  src->ss = ss;
  src->file = -1;
  JsonOut *w = json_out_begin(out);
  json_out_open(w, "tool", '{');
  json_out_str(w, "name", "rooflint");
  json_out_str(w, "version", ROOFLINT_VERSION);
  json_out_close(w, '}');

  /* Every distinct target, in order of first use; "target" is the first
   * (the common case has exactly one). */
  int cap = 1;
  for (int a = 0; a < n; a++) cap += an[a] && an[a]->unit ? an[a]->ntargets : 0;
  const Target **seen = xcalloc((size_t)cap, sizeof *seen);
  int nseen = 0;
  for (int a = 0; a < n; a++) {
    if (!an[a] || !an[a]->unit) continue;
    for (int t = 0; t < an[a]->ntargets; t++) {
      const Target *tg = an[a]->targets[t];
      bool dup = !tg;
      for (int s = 0; s < nseen && !dup; s++)
        dup = seen[s] == tg || (seen[s]->name && tg->name && !strcmp(seen[s]->name, tg->name));
      if (!dup) seen[nseen++] = tg;
    }
  }
  if (nseen > 0) write_target(w, "target", seen[0]);
  else json_out_null(w, "target");
  json_out_open(w, "targets", '[');
  for (int s = 0; s < nseen; s++) write_target(w, NULL, seen[s]);
  json_out_close(w, ']');
  free(seen);

  /* R-OUT-003: one entry per (model, target), model-major. */
  json_out_open(w, "models", '[');
  for (int a = 0; a < n; a++) {
    const Analysis *x = an[a];
    if (!x || !x->unit || !x->costs) continue;
    for (int m = 0; m < x->unit->nmodels; m++)
      for (int t = 0; t < x->ntargets; t++) {
        const ModelCost *mc = x->costs[m * x->ntargets + t];
        const Serving *sv = t == 0 && x->serving ? x->serving[m] : NULL;
        if (mc && mc->model && mc->nodes) write_model(w, mc, sv, src);
      }
  }
  json_out_close(w, ']');

  int nerrors = 0, nwarnings = 0;
  json_out_open(w, "diagnostics", '[');
  for (int f = 0; f < n; f++) {
    const DiagSink *d = diags ? diags[f] : NULL;
    if (!d) continue;
    for (int i = 0; i < d->n; i++) write_diag(w, d->items[i], src);
    nerrors += d->nerrors;
    nwarnings += d->nwarnings;
  }
  json_out_close(w, ']');
  json_out_open(w, "counts", '{');
  json_out_int(w, "errors", nerrors);
  json_out_int(w, "warnings", nwarnings);
  json_out_close(w, '}');
  json_out_finish(w);
  free(src);
}
