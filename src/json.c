/* SPDX-License-Identifier: MIT */
/*
 * json.c: `--format json`, one document per run.  The document mirrors the
 * analysis: the tool, the target(s), one entry per (model, target) with a
 * row per graph node, the kernels, collectives, transfers and totals, then
 * every diagnostic with its notes, fix-its and figures.  It is written as
 * it is made (JsonOut): the containers that grow with the model (the
 * models, their nodes and kernels, the diagnostics) are opened and closed
 * here, and each of their members is a small jansson tree dumped and freed
 * at once, so escaping and number syntax stay the library's business and
 * the document's memory is one node's.  Numbers are base units (FLOPs, bytes,
 * seconds, FLOP/s, B/s); integral values print as integers so that a byte
 * count reads 33554432 rather than 33554432.0.  Columns are byte columns,
 * as in the text diagnostics.
 */
#include "rooflint.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- values */

json_t *json_safe_string(const char *s) {
  if (!s) return json_null();
  json_t *v = json_string(s);
  if (v) return v;
  /* Only invalid UTF-8 makes jansson refuse a string: a name or message
   * quoting a file's raw bytes.  Keep what is valid, mark the rest. */
  StrBuf sb = {0};
  src_utf8_clean(&sb, s, strlen(s), "\xEF\xBF\xBD");
  v = json_string(sb_str(&sb));
  sb_free(&sb);
  return v ? v : json_null();
}

/* R-OUT-002 */
json_t *json_base_number(double v) {
  if (!isfinite(v)) return json_null();
  if (v == floor(v) && fabs(v) < 9007199254740992.0) return json_integer((json_int_t)v);
  return json_real(v);
}

static void set_str(json_t *o, const char *key, const char *s) {
  json_object_set_new(o, key, json_safe_string(s));
}

static void set_num(json_t *o, const char *key, double v) {
  json_object_set_new(o, key, json_base_number(v));
}

static void set_int(json_t *o, const char *key, long long v) {
  json_object_set_new(o, key, json_integer(v));
}

/* {"file", "line", "column", "end_line", "end_column"}, or null. */
static json_t *location(Loc loc, const SourceSet *ss) {
  if (loc.file < 0 || loc.file >= ss->nfiles) return json_null();
  const SourceFile *f = src_file(ss, loc.file);
  int line, col, eline, ecol;
  src_linecol(f, loc.start, &line, &col);
  src_linecol(f, loc.end, &eline, &ecol);
  json_t *o = json_object();
  set_str(o, "file", f->name);
  set_int(o, "line", line);
  set_int(o, "column", col);
  set_int(o, "end_line", eline);
  set_int(o, "end_column", ecol);
  return o;
}

/* ---------------------------------------------------------------- writer */

enum { DUMP_FLAGS = JSON_INDENT(2) | JSON_PRESERVE_ORDER };

static void flush_text(JsonOut *w) {
  fwrite(w->buf, 1, w->len, w->out);
  w->len = 0;
}

/* A value's text comes from jansson a token at a time (a few bytes), so
 * the common case is one copy into room already there. */
static inline void put(JsonOut *w, const char *p, size_t n) {
  while (n > 0) {
    if (w->len == sizeof w->buf) flush_text(w);
    size_t k = sizeof w->buf - w->len;
    if (k > n) k = n;
    memcpy(w->buf + w->len, p, k);
    w->len += k;
    p += k;
    n -= k;
  }
}

static void put_indent(JsonOut *w, int depth) {
  static const char blanks[] = "                                ";
  for (int n = 2 * depth; n > 0; n -= (int)sizeof blanks - 1)
    put(w, blanks, n < (int)sizeof blanks - 1 ? (size_t)n : sizeof blanks - 1);
}

/* What jansson writes before a member: a comma after the one before it,
 * a line break and the member's indentation; then its key. */
static void member(JsonOut *w, const char *key) {
  if (w->depth > 0) {
    if (w->any[w->depth - 1]) put(w, ",", 1);
    w->any[w->depth - 1] = true;
    put(w, "\n", 1);
    put_indent(w, w->depth);
  }
  if (key) {
    put(w, "\"", 1);
    put(w, key, strlen(key));
    put(w, "\": ", 3);
  }
}

/* The document is out when its top-level value is. */
static void done_value(JsonOut *w) {
  if (w->depth > 0) return;
  flush_text(w);
}

void json_out_open(JsonOut *w, const char *key, char bracket) {
  member(w, key);
  put(w, &bracket, 1);
  if (w->depth >= JSON_OUT_DEPTH) abort(); /* the writers nest 6 deep */
  w->any[w->depth++] = false;
}

/* An empty container is "{}" or "[]", as jansson writes it. */
void json_out_close(JsonOut *w, char bracket) {
  if (w->any[--w->depth]) {
    put(w, "\n", 1);
    put_indent(w, w->depth);
  }
  put(w, &bracket, 1);
  done_value(w);
}

/* jansson's text of a value, as it comes: its own lines are indented from
 * column 0, so inside the document each line break gets the member's
 * indentation too (a JSON text has no raw line break inside a string). */
static int put_text(const char *p, size_t n, void *data) {
  JsonOut *w = data;
  if (n == 1 && *p == '\n') { /* jansson's line break, before its indent */
    put(w, p, 1);
    put_indent(w, w->depth);
    return 0;
  }
  const char *end = p + n;
  for (const char *nl; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
    put(w, p, (size_t)(nl + 1 - p));
    put_indent(w, w->depth);
  }
  put(w, p, (size_t)(end - p));
  return 0;
}

void json_out_put(JsonOut *w, const char *key, json_t *v) {
  member(w, key);
  if (!v || json_dump_callback(v, put_text, w, DUMP_FLAGS | JSON_ENCODE_ANY) != 0)
    put(w, "null", 4);
  json_decref(v);
  done_value(w);
}

/* ---------------------------------------------------------------- target */

/* Peaks keyed "<dtype>" (vector cores) and "<dtype>_tc" (tensor cores),
 * e.g. "fp16_tc", in dtype order; with the ridge of each. */
static void peaks_and_ridges(const Target *t, json_t *peaks, json_t *ridges) {
  for (int d = 0; d < DT__COUNT; d++) {
    static const char *const suffix[2] = {"", "_tc"};
    double v[2] = {t->vector_peak[d], t->tensor_peak[d]};
    for (int k = 0; k < 2; k++) {
      if (v[k] <= 0) continue;
      char key[32];
      snprintf(key, sizeof key, "%s%s", dtype_str((DType)d), suffix[k]);
      set_num(peaks, key, v[k]);
      set_num(ridges, key, t->memory_bw > 0 ? v[k] / t->memory_bw : 0);
    }
  }
}

static json_t *target_json(const Target *t) {
  json_t *o = json_object();
  set_str(o, "name", t->name);
  set_str(o, "display", t->display);
  set_int(o, "year", t->year);
  set_int(o, "sms", t->sms);
  set_num(o, "memory", t->memory);
  set_num(o, "memory_bw", t->memory_bw);
  set_num(o, "l2", t->l2);
  set_num(o, "smem_per_sm", t->smem_per_sm);
  set_num(o, "regs_per_sm", t->regs_per_sm);
  set_num(o, "nvlink_bw", t->nvlink_bw);
  set_num(o, "ib_bw", t->ib_bw);
  set_num(o, "pcie_bw", t->pcie_bw);
  set_int(o, "gpus_per_node", t->gpus_per_node);
  set_num(o, "launch_overhead_s", t->launch_overhead);
  json_t *peaks = json_object(), *ridges = json_object();
  peaks_and_ridges(t, peaks, ridges);
  json_object_set_new(o, "peaks", peaks);
  double hp = target_headline_peak(t);
  set_num(o, "ridge", t->memory_bw > 0 ? hp / t->memory_bw : 0);
  json_object_set_new(o, "ridges", ridges);
  json_t *levels = json_array();
  for (int i = 0; i < t->nlevels; i++) {
    const MemLevel *l = &t->levels[i];
    json_t *lv = json_object();
    set_str(lv, "name", l->name);
    set_str(lv, "label", l->label);
    set_num(lv, "capacity", l->capacity);
    set_num(lv, "bandwidth", l->bandwidth);
    set_num(lv, "latency_s", l->latency);
    set_str(lv, "note", l->note);
    json_array_append_new(levels, lv);
  }
  json_object_set_new(o, "levels", levels);
  return o;
}

/* ---------------------------------------------------------------- models */

static const char *node_op(const GNode *g) {
  return g->op ? g->op->name : role_str(g->role);
}

static json_t *shape_json(const TensorType *t) {
  json_t *a = json_array();
  for (int i = 0; i < t->rank; i++) json_array_append_new(a, json_integer(t->dims[i]));
  return a;
}

static void out_str(JsonOut *w, const char *key, const char *s) {
  json_out_put(w, key, json_safe_string(s));
}

static void out_num(JsonOut *w, const char *key, double v) {
  json_out_put(w, key, json_base_number(v));
}

/* The figures a node's and a kernel's row share, in the rows' order. */
static void out_roofline(JsonOut *w, double count, double flops, double bytes,
                         const RoofPoint *roof, double peak) {
  out_num(w, "count", count);
  out_num(w, "flops", flops);
  out_num(w, "bytes", bytes);
  out_num(w, "intensity", roof->intensity);
  out_num(w, "ridge", roof->ridge);
  out_num(w, "peak", peak);
}

/* R-OUT-004: one row per graph node, declarations included (op = role). */
static void write_node(JsonOut *w, const Model *m, const ModelCost *mc, int i,
                       const SourceSet *ss) {
  const GNode *g = &m->nodes[i];
  const NodeCost *c = &mc->nodes[i];
  RoofPoint roof = cost_node_roof(mc, c);
  Waves wv = cost_node_waves(mc, c);
  json_out_open(w, NULL, '{');
  out_str(w, "name", g->name);
  out_str(w, "op", node_op(g));
  out_str(w, "role", role_str(g->role));
  out_str(w, "dtype", g->type->dtype == DT_NONE ? NULL : dtype_str(g->type->dtype));
  out_str(w, "precision", g->precision == DT_NONE ? NULL : dtype_str(g->precision));
  json_out_put(w, "shape", shape_json(g->type));
  out_roofline(w, g->count, c->flops, c->bytes, &roof, c->peak);
  json_out_put(w, "tensor_cores", json_boolean(c->tensor));
  out_num(w, "attainable", roof.attainable);
  out_str(w, "bound", bound_str(c->bound));
  out_num(w, "time_s", c->time_s);
  out_num(w, "blocks", c->blocks);
  out_num(w, "waves", wv.waves);
  out_num(w, "utilisation", wv.utilisation);
  out_num(w, "idle_sms", wv.idle_sms);
  json_out_put(w, "kernel", c->kernel >= 0 ? json_integer(c->kernel) : json_null());
  out_str(w, "region", g->region >= 0 && g->region < m->nregions ? m->regions[g->region].name : NULL);
  json_out_put(w, "location", location(g->loc, ss));
  json_out_close(w, '}');
}

static void write_kernel(JsonOut *w, const ModelCost *mc, const Kernel *k) {
  const Model *m = mc->model;
  RoofPoint roof = cost_kernel_roof(mc, k);
  const char *name = k->region >= 0 && k->region < m->nregions ? m->regions[k->region].name
                     : k->first_node >= 0 && k->first_node < m->nnodes ? m->nodes[k->first_node].name
                                                                        : NULL;
  json_out_open(w, NULL, '{');
  out_str(w, "name", name);
  out_str(w, "kind", k->region >= 0 ? "fused" : "op");
  out_roofline(w, k->count, k->flops, k->bytes, &roof, k->peak);
  out_num(w, "attainable", roof.attainable);
  out_str(w, "bound", bound_str(k->bound));
  out_num(w, "time_s", k->time_s);
  json_out_close(w, '}');
}

static json_t *collective_json(const Model *m, const Collective *c, const SourceSet *ss) {
  json_t *o = json_object();
  bool has_node = c->node >= 0 && c->node < m->nnodes;
  set_str(o, "name", has_node ? m->nodes[c->node].name : NULL);
  set_str(o, "kind", c->kind);
  json_object_set_new(o, "implicit", json_boolean(!has_node));
  set_num(o, "buffer_bytes", c->buffer);
  set_int(o, "ranks", c->ranks);
  set_num(o, "nvlink_bytes", c->nvlink_bytes);
  set_num(o, "ib_bytes", c->ib_bytes);
  set_num(o, "nvlink_time_s", c->nvlink_time);
  set_num(o, "ib_time_s", c->ib_time);
  set_num(o, "time_s", c->time_s);
  set_num(o, "count", c->count);
  json_object_set_new(o, "location", has_node ? location(m->nodes[c->node].loc, ss) : json_null());
  return o;
}

/* A to_device/to_host node: bytes over PCIe per run and per step. */
static json_t *transfer_json(const GNode *g, const NodeCost *c, const SourceSet *ss) {
  json_t *o = json_object();
  set_str(o, "name", g->name);
  set_str(o, "op", node_op(g));
  set_num(o, "bytes", c->bytes);
  set_num(o, "count", g->count);
  set_num(o, "total_bytes", c->bytes * g->count);
  set_num(o, "time_s", c->time_s);
  set_num(o, "total_time_s", c->time_s * g->count);
  json_object_set_new(o, "location", location(g->loc, ss));
  return o;
}

static json_t *summary_json(const ModelCost *mc) {
  json_t *o = json_object();
  set_num(o, "flops", mc->flops);
  set_num(o, "bytes", mc->bytes);
  set_num(o, "time_s", mc->time_s);
  set_num(o, "memory_bound_time_s", mc->memory_bound_time);
  set_num(o, "memory_bound_time_share", mc->time_s > 0 ? mc->memory_bound_time / mc->time_s : 0);
  set_num(o, "transfer_time_s", mc->transfer_time);
  set_num(o, "collective_time_s", mc->collective_time);
  set_num(o, "params", mc->params);
  set_num(o, "footprint_bytes", mc->footprint.total);
  json_t *fp = json_object();
  set_num(fp, "weights", mc->footprint.weights);
  set_num(fp, "gradients", mc->footprint.gradients);
  set_num(fp, "optimizer", mc->footprint.optimizer);
  set_num(fp, "activations", mc->footprint.activations);
  if (mc->footprint.buffers > 0) set_num(fp, "buffers", mc->footprint.buffers);
  set_num(fp, "total", mc->footprint.total);
  json_object_set_new(o, "footprint", fp);
  return o;
}

static void write_model(JsonOut *w, const ModelCost *mc, const SourceSet *ss) {
  const Model *m = mc->model;
  json_out_open(w, NULL, '{');
  json_out_put(w, "name", json_safe_string(m->name));
  json_out_put(w, "file", json_safe_string(m->file >= 0 && m->file < ss->nfiles
                                               ? src_file(ss, m->file)->name
                                               : NULL));
  json_out_put(w, "target", json_safe_string(mc->target ? mc->target->name : NULL));
  json_out_put(w, "dtype", json_safe_string(m->dtype == DT_NONE ? NULL : dtype_str(m->dtype)));
  /* R-PLAN-006: the recipe's entries, by class, only in a model that has
   * one */
  json_t *recipe = NULL;
  for (int c = 0; c < OC__COUNT; c++)
    if (m->class_given[c]) {
      if (!recipe) recipe = json_object();
      json_object_set_new(recipe, op_class_str((OpClass)c),
                          json_string(dtype_str(m->class_dtype[c])));
    }
  if (recipe) json_out_put(w, "dtype_recipe", recipe);
  json_out_put(w, "mode", json_safe_string(m->train ? "train" : "inference"));
  if (m->parallel.present) {
    json_t *p = json_object();
    set_int(p, "nodes", m->parallel.nodes);
    set_int(p, "gpus_per_node", m->parallel.gpus_per_node);
    set_int(p, "data", m->parallel.data);
    json_out_put(w, "parallel", p);
  } else {
    json_out_put(w, "parallel", json_null());
  }
  json_out_put(w, "location", location(m->loc, ss));

  json_out_open(w, "nodes", '[');
  for (int i = 0; i < m->nnodes; i++) write_node(w, m, mc, i, ss);
  json_out_close(w, ']');
  json_out_open(w, "kernels", '[');
  for (int k = 0; k < mc->nkernels; k++) {
    Kernel kn = cost_kernel(mc, k);
    write_kernel(w, mc, &kn);
  }
  json_out_close(w, ']');
  json_out_put(w, "summary", summary_json(mc));
  json_out_open(w, "collectives", '[');
  for (int k = 0; k < mc->ncollectives; k++)
    json_out_put(w, NULL, collective_json(m, &mc->collectives[k], ss));
  json_out_close(w, ']');
  json_out_open(w, "transfers", '[');
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].op && m->nodes[i].op->cls == OC_TRANSFER)
      json_out_put(w, NULL, transfer_json(&m->nodes[i], &mc->nodes[i], ss));
  json_out_close(w, ']');
  json_out_close(w, '}');
}

/* ---------------------------------------------------------------- diagnostics */

/* R-OUT-004 */
static json_t *diag_json(const Diag *d, const SourceSet *ss) {
  json_t *o = json_object();
  set_str(o, "severity", severity_str(d->sev));
  set_str(o, "check", d->check);
  set_str(o, "message", d->msg);
  json_object_set_new(o, "location", location(d->loc, ss));
  json_t *notes = json_array();
  for (int i = 0; i < d->nnotes; i++) {
    json_t *n = json_object();
    set_str(n, "message", d->notes[i].msg);
    json_object_set_new(n, "location", location(d->notes[i].loc, ss));
    json_array_append_new(notes, n);
  }
  json_object_set_new(o, "notes", notes);
  json_t *fixits = json_array();
  for (int i = 0; i < d->nfixits; i++) {
    json_t *f = json_object();
    json_object_set_new(f, "location", location(d->fixits[i].loc, ss));
    set_str(f, "text", d->fixits[i].text);
    json_array_append_new(fixits, f);
  }
  json_object_set_new(o, "fixits", fixits);
  json_t *figs = json_object();
  for (int i = 0; i < d->nfigures; i++) set_num(figs, d->figures[i].key, d->figures[i].value);
  json_object_set_new(o, "figures", figs);
  return o;
}

/* ---------------------------------------------------------------- document */

/* R-OUT-001 */
void json_write(FILE *out, Analysis *const *an, const DiagSink *const *diags, int n,
                const SourceSet *ss) {
  JsonOut *w = xmalloc(sizeof *w);
  w->out = out;
  w->depth = 0;
  w->len = 0;
  json_out_open(w, NULL, '{');
  json_t *tool = json_object();
  set_str(tool, "name", "rooflint");
  set_str(tool, "version", ROOFLINT_VERSION);
  json_out_put(w, "tool", tool);

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
  json_out_put(w, "target", nseen > 0 ? target_json(seen[0]) : json_null());
  json_out_open(w, "targets", '[');
  for (int s = 0; s < nseen; s++) json_out_put(w, NULL, target_json(seen[s]));
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
        if (mc && mc->model && mc->nodes) write_model(w, mc, ss);
      }
  }
  json_out_close(w, ']');

  int nerrors = 0, nwarnings = 0;
  json_out_open(w, "diagnostics", '[');
  for (int f = 0; f < n; f++) {
    const DiagSink *d = diags ? diags[f] : NULL;
    if (!d) continue;
    for (int i = 0; i < d->n; i++) json_out_put(w, NULL, diag_json(d->items[i], ss));
    nerrors += d->nerrors;
    nwarnings += d->nwarnings;
  }
  json_out_close(w, ']');
  json_t *counts = json_object();
  set_int(counts, "errors", nerrors);
  set_int(counts, "warnings", nwarnings);
  json_out_put(w, "counts", counts);
  json_out_close(w, '}');
  fputc('\n', out);
  free(w);
}
