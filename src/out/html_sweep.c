/* SPDX-License-Identifier: MIT */
/*
 * html_sweep.c: `--sweep` with `--format html` (specs/html.md, R-HTML-008).
 * The sweep analyses one grid point at a time and frees it, so the page's
 * data is gathered row by row as the text table prints them: one table
 * per file and model, each row the text row's cells (report_sweep_cells),
 * with the raw step time and footprint beside them for the page's chart.
 * The page is written once, after the last file.
 */
#include "rooflint.h"
#include "out.h"
#include "html.h"

#include <stdlib.h>
#include <string.h>

typedef struct SweepTable {
  StrBuf head; /* "file":..,"model":..,"target":..,"heads":[..] */
  StrBuf rows; /* the rows' JSON objects, comma-separated */
  int nrows;
} SweepTable;

struct HtmlSweep {
  const char *const *axes;
  int naxes;
  SweepTable *tables;
  int ntables, cap;
  int base; /* the current file's first table */
  StrBuf clean;
};

HtmlSweep *html_sweep_new(const char *const *axes, int naxes) {
  HtmlSweep *s = xcalloc(1, sizeof *s);
  s->axes = axes;
  s->naxes = naxes;
  return s;
}

void html_sweep_file(HtmlSweep *s, const SourceSet *ss, const Analysis *an,
                     SweepLayout layout) {
  int nmodels = an && an->unit && an->unit->nmodels > 1 ? an->unit->nmodels : 1;
  s->base = s->ntables;
  if (s->ntables + nmodels > s->cap) {
    s->cap = 2 * (s->ntables + nmodels);
    s->tables = xrealloc(s->tables, (size_t)s->cap * sizeof *s->tables);
  }
  const SourceFile *f = an && an->file >= 0 ? src_file(ss, an->file) : NULL;
  const Target *t = an && an->ntargets > 0 ? an->targets[0] : NULL;
  for (int mi = 0; mi < nmodels; mi++) {
    SweepTable *tb = &s->tables[s->ntables++];
    memset(tb, 0, sizeof *tb);
    bool named = an && an->unit && an->unit->nmodels > mi;
    sb_puts(&tb->head, "\"file\":");
    html_json_str(&tb->head, &s->clean, f ? f->name : NULL);
    sb_puts(&tb->head, ",\"model\":");
    html_json_str(&tb->head, &s->clean, named ? an->unit->models[mi].name : NULL);
    sb_puts(&tb->head, ",\"target\":");
    html_json_str(&tb->head, &s->clean, t ? t->display : NULL);
    sb_puts(&tb->head, ",\"heads\":[");
    for (int a = 0; a < s->naxes; a++) {
      html_json_str(&tb->head, &s->clean, s->axes[a]);
      sb_putc(&tb->head, ',');
    }
    for (const char *const *h = report_sweep_heads(layout); *h; h++) {
      html_json_str(&tb->head, &s->clean, *h);
      sb_putc(&tb->head, ',');
    }
    sb_puts(&tb->head, "\"errors\"]");
  }
}

void html_sweep_row(HtmlSweep *s, const Analysis *an, int model,
                    SweepLayout layout, const char *const *values,
                    const char *errors) {
  int nmodels = s->ntables - s->base;
  if (model < 0 || model >= nmodels) return;
  SweepTable *tb = &s->tables[s->base + model];
  StrBuf *o = &tb->rows;
  if (tb->nrows++) sb_putc(o, ',');
  sb_puts(o, "\n{\"cells\":[");
  char cells[16][REPORT_NB];
  int n = report_sweep_cells(an, model, layout, cells), k = 0;
  for (int a = 0; a < s->naxes; a++, k++) {
    html_json_str(o, &s->clean, values[a]);
    sb_putc(o, ',');
  }
  /* "-": not costed at this value, as in the text row */
  for (int i = 0; report_sweep_heads(layout)[i]; i++) {
    html_json_str(o, &s->clean, i < n ? cells[i] : "-");
    sb_putc(o, ',');
  }
  html_json_str(o, &s->clean, errors && *errors ? errors : "-");
  sb_puts(o, "],\"values\":[");
  for (int a = 0; a < s->naxes; a++) {
    char *end;
    double v = strtod(values[a], &end);
    if (a) sb_putc(o, ',');
    if (end == values[a] || *end) sb_puts(o, "null");
    else html_json_num(o, v);
  }
  bool costed = n > 0 && an->costs && an->costs[model * an->ntargets];
  const ModelCost *c = costed ? an->costs[model * an->ntargets] : NULL;
  sb_puts(o, "],\"step\":");
  if (c) html_json_num(o, cost_step_time(c));
  else sb_puts(o, "null");
  sb_puts(o, ",\"footprint\":");
  if (c) html_json_num(o, c->footprint.total);
  else sb_puts(o, "null");
  sb_puts(o, ",\"memory\":");
  if (c) html_json_num(o, c->target->memory);
  else sb_puts(o, "null");
  sb_putc(o, '}');
}

void html_sweep_write(FILE *out, HtmlSweep *s) {
  StrBuf d = {0};
  sb_puts(&d, "{\"tool\":\"rooflint\",\"kind\":\"sweep\",\"axes\":[");
  for (int a = 0; a < s->naxes; a++) {
    if (a) sb_putc(&d, ',');
    html_json_str(&d, &s->clean, s->axes[a]);
  }
  sb_puts(&d, "],\"tables\":[");
  for (int i = 0; i < s->ntables; i++) {
    const SweepTable *tb = &s->tables[i];
    sb_printf(&d, "%s\n{%s,\"rows\":[", i ? "," : "", sb_str(&tb->head));
    sb_putn(&d, sb_str(&tb->rows), tb->rows.len);
    sb_puts(&d, "]}");
  }
  sb_puts(&d, "]}");
  html_page(out, sb_str(&d), d.len);
  sb_free(&d);
}

void html_sweep_free(HtmlSweep *s) {
  if (!s) return;
  for (int i = 0; i < s->ntables; i++) {
    sb_free(&s->tables[i].head);
    sb_free(&s->tables[i].rows);
  }
  free(s->tables);
  sb_free(&s->clean);
  free(s);
}
