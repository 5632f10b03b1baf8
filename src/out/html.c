/* SPDX-License-Identifier: MIT */
/*
 * html.c: --format html, one self-contained page for the whole run
 * (specs/html.md).  The page is a fixed skeleton, its style and script
 * (src/out/html_page.css and .js, embedded at build by tools/embed.c), and
 * one JSON block of data from which the script draws the summary, the
 * roofline chart, the kernel table, the diagnostics and the plan.
 *
 * Every figure in the data is formatted here by format.c, by the report's
 * own cell function, or is the report's or the plan's text itself (the
 * sections after the kernel table), so the page and --report agree; the
 * raw doubles beside them only order rows and place chart points.
 *
 * Why not json.c's writer: it indents (JSON_INDENT(2)), which more than
 * doubles a 100,000-kernel page, and it leaves '<' as it is, which inside
 * a <script> element could end it.  Here every string is written with
 * '<', '>' and '&' as \u escapes, so nothing read from an input can close
 * the data block or open markup, and each ill-formed UTF-8 byte as U+FFFD.
 */
#include "rooflint.h"
#include "out.h"
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Page {
  FILE *out;
  const SourceSet *ss;
  bool **lines;       /* per source file, per line: its text goes in the page */
  StrBuf clean;       /* scratch: one string made valid UTF-8 */
} Page;

/* ----------------------------------------------------------------- JSON */

/* One byte of JSON text as the data block holds it: markup characters,
 * controls and DEL as \u escapes (inside a string is the only place JSON
 * text has them). */
static void put_block_byte(FILE *out, unsigned char ch) {
  if (ch < 0x20 || ch == 0x7f || ch == '<' || ch == '>' || ch == '&')
    fprintf(out, "\\u%04x", ch);
  else
    fputc(ch, out);
}

static void put_str(Page *p, const char *s) {
  FILE *out = p->out;
  if (!s) {
    fputs("null", out);
    return;
  }
  p->clean.len = 0;
  src_utf8_clean(&p->clean, s, strlen(s), "\xEF\xBF\xBD");
  fputc('"', out);
  /* by length: an empty string appends nothing, not even a NUL */
  for (size_t i = 0; i < p->clean.len; i++) {
    unsigned char ch = (unsigned char)p->clean.data[i];
    if (ch == '"' || ch == '\\')
      fprintf(out, "\\%c", ch);
    else
      put_block_byte(out, ch);
  }
  fputc('"', out);
}

void html_json_str(StrBuf *out, StrBuf *clean, const char *s) {
  if (!s) {
    sb_printf(out, "null");
    return;
  }
  clean->len = 0;
  src_utf8_clean(clean, s, strlen(s), "\xEF\xBF\xBD");
  sb_printf(out, "\"");
  for (size_t i = 0; i < clean->len; i++) {
    unsigned char ch = (unsigned char)clean->data[i];
    if (ch == '"' || ch == '\\')
      sb_printf(out, "\\%c", ch);
    else if (ch < 0x20 || ch == 0x7f || ch == '<' || ch == '>' || ch == '&')
      sb_printf(out, "\\u%04x", ch);
    else
      sb_putc(out, (char)ch);
  }
  sb_printf(out, "\"");
}

void html_json_num(StrBuf *out, double v) {
  if (!isfinite(v)) {
    sb_printf(out, "null");
    return;
  }
  char buf[32];
  int digits = 15; /* as put_num */
  do
    snprintf(buf, sizeof buf, "%.*g", digits, v);
  while (digits++ < 17 && strtod(buf, NULL) != v);
  sb_printf(out, "%s", buf);
}

/* Exact doubles (%.17g reads back bit for bit), so the page orders rows
 * as the report does, ties included; non-finite ones as null. */
static void put_num(Page *p, double v) {
  if (!isfinite(v)) {
    fputs("null", p->out);
    return;
  }
  char buf[32];
  int digits = 15; /* the fewest that read back as v; 17 always do */
  do
    snprintf(buf, sizeof buf, "%.*g", digits, v);
  while (digits++ < 17 && strtod(buf, NULL) != v);
  fputs(buf, p->out);
}

/* "key":"text" with a comma before it unless first. */
static void put_kv(Page *p, const char *key, const char *s, bool first) {
  fprintf(p->out, "%s\"%s\":", first ? "" : ",", key);
  put_str(p, s);
}

/* [label, number, text] */
static void put_triple(Page *p, const char *label, double v, const char *text,
                       bool first) {
  fputs(first ? "[" : ",[", p->out);
  put_str(p, label);
  fputc(',', p->out);
  put_num(p, v);
  fputc(',', p->out);
  put_str(p, text);
  fputc(']', p->out);
}

/* The text a writer of the outputs prints, whole, as one string; "" when
 * it could not be captured. */
typedef void (*Writer)(FILE *out, const Analysis *an, const SourceSet *ss);

static char *capture(Writer w, const Analysis *an, const SourceSet *ss) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return xstrdup("");
  w(mem, an, ss);
  fclose(mem);
  return text ? text : xstrdup("");
}

/* loc's line and column (0 for none), its line marked for the page's
 * `lines`, so the page holds only the source lines it points at. */
static void want_line(Page *p, Loc loc, int *line, int *col) {
  *line = *col = 0;
  const SourceFile *f = loc.file >= 0 ? src_file(p->ss, loc.file) : NULL;
  if (!f) return;
  src_linecol(f, loc.start, line, col);
  if (*line >= 1 && (size_t)*line <= f->nlines) {
    if (!p->lines[loc.file]) p->lines[loc.file] = xcalloc(f->nlines + 1, 1);
    p->lines[loc.file][*line] = true;
  }
}

/* ---------------------------------------------------------------- views */

/* One model on one target, seen as an analysis of its own, so the report's
 * and the plan's printers write exactly that view's text. */
typedef struct View {
  Analysis an;
  Unit unit;
  ModelCost *cost;
} View;

static void view_of(View *v, const Analysis *an, int mi, int ti) {
  v->unit = *an->unit;
  v->unit.models = &an->unit->models[mi];
  v->unit.nmodels = 1;
  v->cost = an->costs[mi * an->ntargets + ti];
  v->an = *an;
  v->an.unit = &v->unit;
  v->an.targets = &an->targets[ti];
  v->an.ntargets = 1;
  v->an.costs = &v->cost;
}

/* The summary's figures, and the step split by what bounds each kernel. */
static void put_summary(Page *p, const View *v) {
  const ModelCost *c = v->cost;
  char *line = capture(report_summary, &v->an, p->ss);
  char *nl = strchr(line, '\n');
  if (nl) *nl = '\0';
  put_kv(p, "summary", line, false);
  free(line);
  char t[4][64];
  double other = c->collective_time + c->transfer_time + c->memory_bound_time;
  double compute = c->time_s > other ? c->time_s - other : 0;
  fputs(",\"split\":[", p->out);
  put_triple(p, "compute-bound", compute, fmt_time(t[0], 64, compute), true);
  put_triple(p, "memory-bound", c->memory_bound_time,
             fmt_time(t[1], 64, c->memory_bound_time), false);
  put_triple(p, "collectives", c->collective_time,
             fmt_time(t[2], 64, c->collective_time), false);
  put_triple(p, "transfers", c->transfer_time, fmt_time(t[3], 64, c->transfer_time),
             false);
  fputc(']', p->out);
  char step[64];
  put_kv(p, "step", fmt_time(step, sizeof step, cost_step_time(c)), false);
}

/* The footprint per GPU by part against the target's memory. */
static void put_footprint(Page *p, const ModelCost *c) {
  const Footprint *f = &c->footprint;
  const struct {
    const char *name;
    double bytes;
  } parts[] = {{"weights", f->weights},         {"gradients", f->gradients},
               {"optimizer", f->optimizer},     {"activations", f->activations},
               {"buffers", f->buffers},
               {"KV cache", f->kv_cache - f->recurrent_state},
               {"SSM state", f->recurrent_state}, /* R-FAM-202 */
               {"gathered", f->gathered}};
  char t[64];
  fputs(",\"memory\":", p->out);
  put_num(p, c->target->memory);
  put_kv(p, "memoryText", fmt_capacity(t, sizeof t, c->target->memory), false);
  put_kv(p, "total", fmt_bytes(t, sizeof t, f->total), false);
  fputs(",\"footprint\":[", p->out);
  bool first = true;
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    if (parts[i].bytes <= 0) continue;
    put_triple(p, parts[i].name, parts[i].bytes,
               fmt_bytes(t, sizeof t, parts[i].bytes), first);
    first = false;
  }
  fputc(']', p->out);
}

static DType kernel_precision(const Model *m, const Kernel *k) {
  const GNode *g = &m->nodes[k->first_node];
  return g->precision != DT_NONE ? g->precision : g->type->dtype;
}

/* The roofs the kernels run under: the memory roof and one flat roof per
 * distinct peak, named by the precision and unit of its first kernel. */
static void put_roofs(Page *p, const Model *m, const ModelCost *c) {
  char t[64];
  fputs(",\"bandwidth\":", p->out);
  put_num(p, c->target->memory_bw);
  put_kv(p, "bandwidthText", fmt_bandwidth(t, sizeof t, c->target->memory_bw), false);
  fputs(",\"roofs\":[", p->out);
  double *seen = xmalloc(((size_t)c->nkernels + 1) * sizeof *seen);
  int nseen = 0;
  for (int i = 0; i < c->nkernels; i++) {
    Kernel k = cost_kernel(c, i);
    if ((k.bound != BOUND_MEMORY && k.bound != BOUND_COMPUTE) || k.peak <= 0) continue;
    int j = 0;
    while (j < nseen && seen[j] != k.peak) j++;
    if (j < nseen) continue;
    seen[nseen++] = k.peak;
    DType d = kernel_precision(m, &k);
    char label[96];
    snprintf(label, sizeof label, "%s %s", d == DT_NONE ? "-" : dtype_str(d),
             c->nodes[k.first_node].tensor ? "tensor core" : "vector");
    put_triple(p, label, k.peak, fmt_flops_rate(t, sizeof t, k.peak), nseen == 1);
  }
  free(seen);
  fputc(']', p->out);
}

/* One kernel: the report's fourteen cells, then the raw figures the page
 * sorts and plots by, then where it is written (file, line). */
static void put_row(Page *p, const Model *m, const ModelCost *c, const int *nops,
                    const Kernel *k, bool first) {
  char fig[REPORT_FIGS][REPORT_NB], ops[32], at[32];
  const GNode *g = &m->nodes[k->first_node];
  const char *name = g->name, *op = g->op ? g->op->name : "-";
  StrBuf fused = {0};
  Loc loc = g->loc;
  if (k->region >= 0) {
    const Region *r = &m->regions[k->region];
    sb_printf(&fused, "fused %s", r->name);
    name = sb_str(&fused);
    snprintf(ops, sizeof ops, "%d ops", nops[k->region]);
    op = ops;
    loc = r->loc;
  }
  DType d = kernel_precision(m, k);
  report_kernel_cells(c, k, c->time_s, fig);
  fputs(first ? "[" : ",\n[", p->out);
  put_str(p, name);
  fputc(',', p->out);
  put_str(p, op);
  fputc(',', p->out);
  put_str(p, d == DT_NONE ? "-" : dtype_str(d));
  for (int j = 0; j < REPORT_FIGS; j++) {
    fputc(',', p->out);
    put_str(p, fig[j]);
  }
  fputc(',', p->out);
  put_str(p, fmt_at(at, sizeof at, p->ss, loc));
  RoofPoint roof = cost_kernel_roof(c, k);
  const double raw[] = {k->count, k->flops, k->bytes, roof.intensity, k->peak,
                        roof.attainable, k->time_s * k->count};
  for (size_t j = 0; j < sizeof raw / sizeof *raw; j++) {
    fputc(',', p->out);
    put_num(p, raw[j]);
  }
  int line, col;
  want_line(p, loc, &line, &col);
  fprintf(p->out, ",%d,%d]", loc.file, line);
  sb_free(&fused);
}

static void put_rows(Page *p, const Model *m, const ModelCost *c) {
  const char *head[] = {"node", "op", "prec", "count", "FLOPs/run", "bytes/run",
                        "FLOP/B", "peak", "ridge", "attainable", "bound",
                        cost_per_microbatch(c) ? "time/mb" : "time/step", "share", "at"};
  fputs(",\"head\":[", p->out);
  for (size_t i = 0; i < sizeof head / sizeof *head; i++) {
    if (i) fputc(',', p->out);
    put_str(p, head[i]);
  }
  fputs("],\"rows\":[\n", p->out);
  /* ops per fused region, counted once for the whole table */
  int *nops = xcalloc((size_t)m->nregions + 1, sizeof *nops);
  for (int i = 0; i < m->nnodes; i++)
    if (m->nodes[i].region >= 0 && m->nodes[i].op) nops[m->nodes[i].region]++;
  for (int i = 0; i < c->nkernels; i++) {
    Kernel k = cost_kernel(c, i);
    put_row(p, m, c, nops, &k, i == 0);
  }
  free(nops);
  fputs("]", p->out);
}

/* The report's sections after its kernel table (totals, footprint,
 * slowest, parallel plan, pipeline, collectives, transfers) and the plan's
 * text, each [title, body] as they print them. */
static void put_sections(Page *p, const char *key, char *text, int skip) {
  fprintf(p->out, ",\"%s\":[", key);
  int block = 0;
  bool first = true;
  for (char *s = text; s && *s; block++) {
    char *end = strstr(s, "\n\n");
    if (end) *end = '\0';
    if (block >= skip) {
      char *nl = strchr(s, '\n');
      if (nl) *nl = '\0';
      fputs(first ? "[" : ",[", p->out);
      put_str(p, s);
      fputc(',', p->out);
      put_str(p, nl ? nl + 1 : "");
      fputc(']', p->out);
      first = false;
    }
    s = end ? end + 2 : NULL;
  }
  fputc(']', p->out);
}

static void put_view(Page *p, const Analysis *an, int mi, int ti, bool first) {
  View v;
  view_of(&v, an, mi, ti);
  const Model *m = &an->unit->models[mi];
  const Target *t = an->targets[ti];
  fprintf(p->out, "%s{\"file\":%d", first ? "" : ",\n", an->file);
  put_kv(p, "model", m->name, false);
  put_kv(p, "target", t->display, false);
  put_kv(p, "targetName", t->name, false);
  put_summary(p, &v);
  put_footprint(p, v.cost);
  put_roofs(p, m, v.cost);
  put_rows(p, m, v.cost);
  char *report = capture(report_models, &v.an, p->ss);
  put_sections(p, "report", report, 2); /* past the header and the table */
  free(report);
  char *plan = capture(plan_print, &v.an, p->ss);
  put_sections(p, "plan", plan, 0);
  free(plan);
  fputs("}", p->out);
}

/* ---------------------------------------------------------- diagnostics */

static void put_diag(Page *p, const Diag *d, bool first) {
  int line, col;
  want_line(p, d->loc, &line, &col);
  fprintf(p->out, "%s{\"file\":%d,\"line\":%d,\"col\":%d", first ? "" : ",\n",
          d->loc.file, line, col);
  put_kv(p, "severity", d->werror ? "error" : severity_str(d->sev), false);
  put_kv(p, "check", d->check ? d->check : "error", false);
  put_kv(p, "message", d->msg, false);
  fputs(",\"notes\":[", p->out);
  for (int i = 0; i < d->nnotes; i++) {
    if (i) fputc(',', p->out);
    put_str(p, d->notes[i].msg);
  }
  fputc(']', p->out);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem) {
    diag_render_one(d, p->ss, mem, &(RenderOptions){.color = false});
    fclose(mem);
  }
  put_kv(p, "text", text ? text : "", false);
  free(text);
  fputc('}', p->out);
}

/* The source lines rows and diagnostics point at: [file, line, text]. */
static void put_lines(Page *p) {
  fputs("],\n\"lines\":[", p->out);
  bool first = true;
  StrBuf line = {0};
  for (int fi = 0; fi < p->ss->nfiles; fi++) {
    const SourceFile *f = src_file(p->ss, fi);
    if (!p->lines[fi]) continue;
    for (size_t ln = 1; ln <= f->nlines; ln++) {
      if (!p->lines[fi][ln]) continue;
      size_t len;
      const char *s = src_line_text(f, (int)ln, &len);
      line.len = 0;
      sb_putn(&line, s, len);
      fprintf(p->out, "%s[%d,%zu,", first ? "" : ",\n", fi, ln);
      put_str(p, sb_str(&line));
      fputc(']', p->out);
      first = false;
    }
    free(p->lines[fi]);
  }
  sb_free(&line);
}

/* ----------------------------------------------------------------- page */

static void put_data(Page *p, Analysis *const *an, const DiagSink *const *diags,
                     int n) {
  fputs("{\"tool\":\"rooflint\",\"files\":[", p->out);
  for (int fi = 0; fi < p->ss->nfiles; fi++) {
    if (fi) fputc(',', p->out);
    put_str(p, src_file(p->ss, fi)->name);
  }
  fputs("],\n\"inputs\":[", p->out);
  for (int i = 0, k = 0; i < n; i++)
    if (an[i]) fprintf(p->out, "%s%d", k++ ? "," : "", an[i]->file);
  fputs("],\n\"views\":[", p->out);
  bool first = true;
  for (int i = 0; i < n; i++) {
    if (!an[i] || !an[i]->unit) continue;
    for (int mi = 0; mi < an[i]->unit->nmodels; mi++)
      for (int ti = 0; ti < an[i]->ntargets; ti++, first = false)
        put_view(p, an[i], mi, ti, first);
  }
  fputs("],\n\"diags\":[", p->out);
  first = true;
  for (int i = 0; i < n; i++)
    for (int j = 0; diags[i] && j < diags[i]->n; j++, first = false)
      put_diag(p, diags[i]->items[j], first);
  put_lines(p);
  fputs("]}", p->out);
}

static const EmbeddedFile *page_part(const char *name) {
  for (int i = 0; i < embedded_html_page_count; i++)
    if (strcmp(embedded_html_page[i].name, name) == 0) return &embedded_html_page[i];
  die("html: %s was not embedded at build", name);
}

/* The skeleton up to the data block's text, and from its end. */
static void page_open(FILE *out) {
  const EmbeddedFile *css = page_part("html_page.css");
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>rooflint report</title>\n<style>\n", out);
  fwrite(css->text, 1, css->len, out);
  fputs("</style>\n</head>\n<body>\n<noscript><p>This report is drawn by its "
        "script: enable JavaScript to see it.</p></noscript>\n"
        "<main id=\"app\"></main>\n"
        "<script type=\"application/json\" id=\"rooflint-data\">", out);
}

static void page_close(FILE *out) {
  const EmbeddedFile *js = page_part("html_page.js");
  fputs("</script>\n<script>\n", out);
  fwrite(js->text, 1, js->len, out);
  fputs("</script>\n</body>\n</html>\n", out);
}

void html_write(FILE *out, Analysis *const *an, const DiagSink *const *diags,
                int n, const SourceSet *ss) {
  Page p = {.out = out, .ss = ss};
  p.lines = xcalloc((size_t)ss->nfiles + 1, sizeof *p.lines);
  page_open(out);
  put_data(&p, an, diags, n);
  page_close(out);
  free(p.lines);
  sb_free(&p.clean);
}

void html_page(FILE *out, const char *data, size_t len) {
  page_open(out);
  /* JSON text: its controls are escaped inside strings already and are
   * whitespace outside them; markup characters occur only inside them. */
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)data[i];
    if (ch == 0x7f || ch == '<' || ch == '>' || ch == '&')
      fprintf(out, "\\u%04x", ch);
    else
      fputc(ch, out);
  }
  page_close(out);
}
