/* SPDX-License-Identifier: MIT */
/*
 * json.c: `--format json`, one document per run.  The document mirrors the
 * analysis: the tool, the target(s), one entry per (model, target) with a
 * row per graph node, the kernels, collectives, transfers and totals, then
 * every diagnostic with its notes, fix-its and figures.  It is built as a
 * jansson tree and dumped once, so escaping and number syntax are the
 * library's business, never ours.  Numbers are base units (FLOPs, bytes,
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

/* R-OUT-004: one row per graph node, declarations included (op = role). */
static json_t *node_json(const Model *m, const ModelCost *mc, int i, const SourceSet *ss) {
  const GNode *g = &m->nodes[i];
  const NodeCost *c = &mc->nodes[i];
  RoofPoint roof = cost_node_roof(mc, c);
  Waves w = cost_node_waves(mc, c);
  json_t *o = json_object();
  set_str(o, "name", g->name);
  set_str(o, "op", node_op(g));
  set_str(o, "role", role_str(g->role));
  set_str(o, "dtype", g->type->dtype == DT_NONE ? NULL : dtype_str(g->type->dtype));
  set_str(o, "precision", g->precision == DT_NONE ? NULL : dtype_str(g->precision));
  json_object_set_new(o, "shape", shape_json(g->type));
  set_num(o, "count", g->count);
  set_num(o, "flops", c->flops);
  set_num(o, "bytes", c->bytes);
  set_num(o, "intensity", roof.intensity);
  set_num(o, "ridge", roof.ridge);
  set_num(o, "peak", c->peak);
  json_object_set_new(o, "tensor_cores", json_boolean(c->tensor));
  set_num(o, "attainable", roof.attainable);
  set_str(o, "bound", bound_str(c->bound));
  set_num(o, "time_s", c->time_s);
  set_num(o, "blocks", c->blocks);
  set_num(o, "waves", w.waves);
  set_num(o, "utilisation", w.utilisation);
  set_num(o, "idle_sms", w.idle_sms);
  if (c->kernel >= 0) set_int(o, "kernel", c->kernel);
  else json_object_set_new(o, "kernel", json_null());
  set_str(o, "region", g->region >= 0 && g->region < m->nregions ? m->regions[g->region].name : NULL);
  json_object_set_new(o, "location", location(g->loc, ss));
  return o;
}

static json_t *kernel_json(const ModelCost *mc, const Kernel *k) {
  const Model *m = mc->model;
  RoofPoint roof = cost_kernel_roof(mc, k);
  json_t *o = json_object();
  const char *name = k->region >= 0 && k->region < m->nregions ? m->regions[k->region].name
                     : k->first_node >= 0 && k->first_node < m->nnodes ? m->nodes[k->first_node].name
                                                                        : NULL;
  set_str(o, "name", name);
  set_str(o, "kind", k->region >= 0 ? "fused" : "op");
  set_num(o, "count", k->count);
  set_num(o, "flops", k->flops);
  set_num(o, "bytes", k->bytes);
  set_num(o, "intensity", roof.intensity);
  set_num(o, "ridge", roof.ridge);
  set_num(o, "peak", k->peak);
  set_num(o, "attainable", roof.attainable);
  set_str(o, "bound", bound_str(k->bound));
  set_num(o, "time_s", k->time_s);
  return o;
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
  set_num(fp, "total", mc->footprint.total);
  json_object_set_new(o, "footprint", fp);
  return o;
}

static json_t *model_json(const ModelCost *mc, const SourceSet *ss) {
  const Model *m = mc->model;
  json_t *o = json_object();
  set_str(o, "name", m->name);
  set_str(o, "file", m->file >= 0 && m->file < ss->nfiles ? src_file(ss, m->file)->name : NULL);
  set_str(o, "target", mc->target ? mc->target->name : NULL);
  set_str(o, "dtype", m->dtype == DT_NONE ? NULL : dtype_str(m->dtype));
  set_str(o, "mode", m->train ? "train" : "inference");
  if (m->parallel.present) {
    json_t *p = json_object();
    set_int(p, "nodes", m->parallel.nodes);
    set_int(p, "gpus_per_node", m->parallel.gpus_per_node);
    set_int(p, "data", m->parallel.data);
    json_object_set_new(o, "parallel", p);
  } else {
    json_object_set_new(o, "parallel", json_null());
  }
  json_object_set_new(o, "location", location(m->loc, ss));

  json_t *nodes = json_array(), *transfers = json_array();
  for (int i = 0; i < m->nnodes; i++) {
    json_array_append_new(nodes, node_json(m, mc, i, ss));
    if (m->nodes[i].op && m->nodes[i].op->cls == OC_TRANSFER)
      json_array_append_new(transfers, transfer_json(&m->nodes[i], &mc->nodes[i], ss));
  }
  json_object_set_new(o, "nodes", nodes);
  json_t *kernels = json_array();
  for (int k = 0; k < mc->nkernels; k++) {
    Kernel kn = cost_kernel(mc, k);
    json_array_append_new(kernels, kernel_json(mc, &kn));
  }
  json_object_set_new(o, "kernels", kernels);
  json_object_set_new(o, "summary", summary_json(mc));
  json_t *colls = json_array();
  for (int k = 0; k < mc->ncollectives; k++)
    json_array_append_new(colls, collective_json(m, &mc->collectives[k], ss));
  json_object_set_new(o, "collectives", colls);
  json_object_set_new(o, "transfers", transfers);
  return o;
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
  json_t *doc = json_object();
  json_t *tool = json_object();
  set_str(tool, "name", "rooflint");
  set_str(tool, "version", ROOFLINT_VERSION);
  json_object_set_new(doc, "tool", tool);

  /* Every distinct target, in order of first use; "target" is the first
   * (the common case has exactly one). */
  json_t *targets = json_array();
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
      if (dup) continue;
      seen[nseen++] = tg;
      json_array_append_new(targets, target_json(tg));
    }
  }
  free(seen);
  json_t *first = json_array_get(targets, 0);
  json_object_set(doc, "target", first ? first : json_null());
  json_object_set_new(doc, "targets", targets);

  /* R-OUT-003: one entry per (model, target), model-major. */
  json_t *models = json_array();
  for (int a = 0; a < n; a++) {
    const Analysis *x = an[a];
    if (!x || !x->unit || !x->costs) continue;
    for (int m = 0; m < x->unit->nmodels; m++)
      for (int t = 0; t < x->ntargets; t++) {
        const ModelCost *mc = x->costs[m * x->ntargets + t];
        if (mc && mc->model && mc->nodes) json_array_append_new(models, model_json(mc, ss));
      }
  }
  json_object_set_new(doc, "models", models);

  json_t *list = json_array();
  int nerrors = 0, nwarnings = 0;
  for (int f = 0; f < n; f++) {
    const DiagSink *d = diags ? diags[f] : NULL;
    if (!d) continue;
    for (int i = 0; i < d->n; i++) json_array_append_new(list, diag_json(d->items[i], ss));
    nerrors += d->nerrors;
    nwarnings += d->nwarnings;
  }
  json_object_set_new(doc, "diagnostics", list);
  json_t *counts = json_object();
  set_int(counts, "errors", nerrors);
  set_int(counts, "warnings", nwarnings);
  json_object_set_new(doc, "counts", counts);

  json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  fputc('\n', out);
  json_decref(doc);
}
