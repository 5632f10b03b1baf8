/* SPDX-License-Identifier: MIT */
/*
 * plot.c: `--plot FILE.svg`, the roofline chart of Williams, Waterman and
 * Patterson drawn by hand as SVG (no plotting library: the chart is a few
 * lines, circles and words, and hand-written output stays deterministic for
 * golden tests).
 *
 * One panel per model.  Both axes are logarithmic with decade ticks:
 * arithmetic intensity (FLOP/B) across, attainable FLOP/s up.  Each target
 * gets one roof set: the slanted memory roof (bandwidth x intensity) and one
 * flat roof per peak the model's kernels use (e.g. bf16 on tensor cores,
 * fp32 on the vector units), with each ridge point marked.  Each kernel (an
 * op, or a whole fused region) is one circle on the roof at its intensity;
 * its area is proportional to its share of the step time, its colour says
 * memory- or compute-bound; with several targets each target's kernels
 * have their own marker (circle, square, diamond, triangle) and stroke
 * colour.  A flat roof is named after the figure it is drawn at: an fp16
 * op on a part with no fp16 vector figure runs at, and sits under, the
 * fp32 roof (R-OUT-009).  Kernels with no FLOPs (casts, copies, gathers),
 * transfers and collectives are not on the HBM roofline; they are drawn in
 * a strip under the x-axis with their share of the step, so the shares of
 * the circles and the strip add up to the step.  The slowest kernels are
 * labelled, slowest first: each label takes the first spot around its
 * point that covers nothing already drawn, else the spot that covers least
 * without covering another word.  Every word's box is computed and no two
 * words overlap (R-OUT-016).
 */
#include "rooflint.h"
#include "out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Geometry of one panel, in SVG user units. */
enum {
  WIDTH = 980,
  PANEL_H = 680,
  LEFT_OUT_H = 40, /* the line saying how many models were not drawn */
  PLOT_LEFT = 112,
  PLOT_TOP = 92,
  PLOT_W = 590,
  PLOT_H = 450,
  LEGEND_X = 728,
  MAX_LABELS = 10,
};

#define FONT_SIZE 11.0
#define CHAR_W (0.60 * FONT_SIZE) /* average advance of a sans-serif glyph */
#define TITLE_W 0.66              /* a bold glyph's, per unit of font size */
#define R_MAX 30.0                /* radius of a kernel taking the whole step */
#define R_MIN 2.5
#define MIN_LABEL_SHARE 0.005 /* kernels under 0.5% of the step get no label */

static const char *const MEMORY_COLOUR = "#e4572e";
static const char *const COMPUTE_COLOUR = "#2e86de";
/* One stroke colour and dash pattern per target, in --target order. */
static const char *const TARGET_COLOUR[] = {"#222222", "#8e44ad", "#138d75", "#b9770e"};
static const char *const TARGET_DASH[] = {"", "9 4", "3 3", "12 3 3 3"};
/* and one kernel marker per target, in the same order */
typedef enum Marker { MARK_CIRCLE, MARK_SQUARE, MARK_DIAMOND, MARK_TRIANGLE } Marker;
#define NSTYLES 4
static const char *const PCIE_COLOUR = "#8a8a8a";
static const char *const NETWORK_COLOUR = "#5d6d7e";
/* A text outline in the plot's background colour, painted under the glyphs. */
#define HALO "stroke=\"#fcfcfc\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""

typedef struct Box {
  double x0, y0, x1, y1;
} Box;

/* Everything drawn so far that a label must not cover. */
typedef struct Occupied {
  Box *items;
  int n, cap;
} Occupied;

/* What a panel has drawn: every mark (lines, circles, words), and the
 * words alone, which no other word may cover. */
typedef struct Drawn {
  Occupied all, words;
} Drawn;

typedef struct Axes {
  double xlo, xhi, ylo, yhi; /* log10 of the data range */
  double top;                /* panel offset + PLOT_TOP */
} Axes;

typedef struct Point {
  const char *name;
  double x, y;   /* intensity, attainable */
  double share;  /* of the step time on its target */
  double time_s; /* per step (count included) */
  int target;
  Bound bound;
  double cx, cy, r;
} Point;

/* A kernel (or the gradient all-reduce) that is not on the roofline, in
 * the strip under the x-axis. */
typedef struct OffRoof {
  const char *name;
  double time_s, share;
  Bound bound;
  int order; /* kernel order, for a stable sort */
} OffRoof;

typedef struct Roof {
  int target;
  double peak, bw;
  char names[64];    /* the figures this roof is drawn at: "bf16 tensor" */
  char borrowed[32]; /* precisions with no figure of their own: "fp16" */
  char label[128];   /* "bf16 tensor: 990.0 TFLOP/s" */
} Roof;

/* ---------------------------------------------------------------- helpers */

static void xml_text(FILE *out, const char *s) {
  for (; s && *s; s++) {
    if ((unsigned char)*s >= 0x80) { /* ill-formed UTF-8 is U+FFFD */
      size_t k = src_utf8_len(s, strnlen(s, 4));
      if (k) fwrite(s, 1, k, out), s += k - 1;
      else fputs("\xEF\xBF\xBD", out);
      continue;
    }
    switch (*s) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    default:
      /* C0 controls are not allowed in XML 1.0 text */
      if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n') fputc(*s, out);
    }
  }
}

/* A coordinate is always a finite number near the canvas: a figure of 0
 * (log10 = -inf) or one far off the axes is drawn at the edge, clipped. */
static double on_canvas(double v) {
  return isnan(v) ? 0 : fmax(-1e5, fmin(1e5, v));
}

static double px(const Axes *ax, double x) {
  return on_canvas(PLOT_LEFT + (log10(x) - ax->xlo) / (ax->xhi - ax->xlo) * PLOT_W);
}

static double py(const Axes *ax, double y) {
  return on_canvas(ax->top + PLOT_H - (log10(y) - ax->ylo) / (ax->yhi - ax->ylo) * PLOT_H);
}

/* An axis spans whole decades [lo, hi]: finite, inside +-MAX_DECADE, at
 * least MIN_DECADES and at most MAX_DECADES wide (the top kept), so every
 * loop over its decades is bounded and its ends convert to int exactly
 * (issue 17 item 2: an infinite figure once made a loop of 2^31 decades). */
enum { MIN_DECADES = 3, MAX_DECADES = 40, MAX_DECADE = 300 };

static void bound_decades(double *lo, double *hi, double lo_default, double hi_default) {
  if (!isfinite(*lo) || !isfinite(*hi)) *lo = lo_default, *hi = hi_default;
  *hi = fmax(-MAX_DECADE + MIN_DECADES, fmin(MAX_DECADE, *hi));
  *lo = fmax(-MAX_DECADE, fmin(*lo, *hi - MIN_DECADES));
  if (*hi - *lo > MAX_DECADES) *lo = *hi - MAX_DECADES;
}

static void occupy(Occupied *o, Box b) {
  if (o->n == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 64;
    o->items = xrealloc(o->items, (size_t)o->cap * sizeof *o->items);
  }
  o->items[o->n++] = b;
}

static bool overlaps(Box a, Box b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

static void mark(Drawn *d, Box b) { occupy(&d->all, b); }

static void word(Drawn *d, Box b) {
  occupy(&d->all, b);
  occupy(&d->words, b);
}

static bool in_frame(Box b, const Axes *ax) {
  return b.x0 >= PLOT_LEFT + 2 && b.x1 <= PLOT_LEFT + PLOT_W - 2 && b.y0 >= ax->top + 2 &&
         b.y1 <= ax->top + PLOT_H - 2;
}

static bool is_free(const Drawn *d, Box b, const Axes *ax) {
  if (!in_frame(b, ax)) return false;
  for (int i = 0; i < d->all.n; i++)
    if (overlaps(d->all.items[i], b)) return false;
  return true;
}

/* How much of what is drawn a box would cover (area); infinite outside
 * the frame or over another word. */
static double covered(const Drawn *d, Box b, const Axes *ax) {
  if (!in_frame(b, ax)) return INFINITY;
  for (int i = 0; i < d->words.n; i++)
    if (overlaps(d->words.items[i], b)) return INFINITY;
  double area = 0;
  for (int i = 0; i < d->all.n; i++) {
    Box c = d->all.items[i];
    double w = fmin(b.x1, c.x1) - fmax(b.x0, c.x0), h = fmin(b.y1, c.y1) - fmax(b.y0, c.y0);
    if (w > 0 && h > 0) area += w * h;
  }
  return area;
}

/* The first spot that covers nothing drawn, else the one that covers
 * least without covering a word; false when every spot covers a word or
 * leaves the frame. */
static bool place_word(const Drawn *d, const Axes *ax, const Box *spots, int n, Box *out) {
  double best = INFINITY;
  for (int i = 0; i < n && best > 0; i++) {
    double cost = covered(d, spots[i], ax);
    if (cost < best) best = cost, *out = spots[i];
  }
  return isfinite(best);
}

static double text_width(const char *s) {
  double n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n * CHAR_W;
}

/* A decade tick label: "0.01", "1", "1000", "1e+06"; "1 TFLOP/s" on y. */
static void decade_label(char *buf, size_t n, int e, bool flops) {
  if (flops) {
    static const char *const prefix[] = {"", "K", "M", "G", "T", "P", "E"};
    int k = e >= 0 ? e / 3 : 0;
    if (k > 6) k = 6;
    snprintf(buf, n, "%g %sFLOP/s", pow(10.0, e - 3 * k), prefix[k]);
  } else if (e >= -3 && e <= 5) {
    snprintf(buf, n, "%g", pow(10.0, e));
  } else {
    snprintf(buf, n, "1e%d", e);
  }
}

static void text_at(FILE *out, double x, double y, const char *anchor, const char *extra,
                    const char *s) {
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
          extra ? " " : "", extra ? extra : "");
  xml_text(out, s);
  fputs("</text>\n", out);
}

/* ---------------------------------------------------------------- data */

/* The kernels of one model on one target that sit on the HBM roofline; a
 * kernel's share is of the step-time bound, as in the report. */
static void gather_points(const ModelCost *mc, int target, Point **pts, int *n, int *cap,
                          OffRoof **off, int *noff) {
  const Model *m = mc->model;
  double total = mc->time_s;
  if (!(total > 0))
    for (int k = 0; k < mc->nkernels; k++) {
      Kernel kk = cost_kernel(mc, k);
      total += kk.time_s * kk.count;
    }
  for (int k = 0; k < mc->nkernels; k++) {
    Kernel kk = cost_kernel(mc, k);
    const Kernel *kn = &kk;
    RoofPoint roof = cost_kernel_roof(mc, kn);
    bool on_roof = (kn->bound == BOUND_MEMORY || kn->bound == BOUND_COMPUTE) && kn->flops > 0 &&
                   kn->bytes > 0 && roof.intensity > 0 && roof.attainable > 0;
    if (!on_roof) {
      double t_k = kn->time_s * kn->count;
      if (target == 0 && t_k > 0) {
        if (*noff % 32 == 0) *off = xrealloc(*off, (size_t)(*noff + 32) * sizeof **off);
        (*off)[(*noff)++] = (OffRoof){cost_kernel_name(m, kn), t_k, total > 0 ? t_k / total : 0,
                                      kn->bound, k};
      }
      continue;
    }
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 32;
      *pts = xrealloc(*pts, (size_t)*cap * sizeof **pts);
    }
    Point *p = &(*pts)[(*n)++];
    memset(p, 0, sizeof *p);
    p->name = cost_kernel_name(m, kn);
    p->x = roof.intensity;
    p->y = roof.attainable;
    p->time_s = kn->time_s * kn->count;
    p->share = total > 0 ? p->time_s / total : 0;
    p->target = target;
    p->bound = kn->bound;
  }
  /* the gradient all-reduce of a training step is no kernel of the graph */
  for (int i = 0; i < mc->ncollectives && target == 0; i++) {
    const Collective *c = &mc->collectives[i];
    double t_c = c->time_s * c->count;
    if (c->node >= 0 || !(t_c > 0)) continue;
    if (*noff % 32 == 0) *off = xrealloc(*off, (size_t)(*noff + 32) * sizeof **off);
    (*off)[(*noff)++] = (OffRoof){c->group == PG_EXPERT ? "expert all-to-all" : "gradient allreduce", t_c, total > 0 ? t_c / total : 0,
                                  BOUND_NETWORK, mc->nkernels + i};
  }
}

/* The precision whose published figure a kernel of precision prec runs
 * at (target_peak's fallbacks: int4 on the int8 path, tf32 without tensor
 * cores and a precision with no vector figure at the fp32 rate). */
static DType figure_of(const Target *t, DType prec, bool tensor, double peak) {
  const double *fig = tensor ? t->tensor_peak : t->vector_peak;
  DType p = prec == DT_NONE ? DT_FP32 : prec;
  if (!tensor && p == DT_TF32) p = DT_FP32;
  if (fig[p] == peak) return p;
  DType alt = tensor ? DT_INT8 : DT_FP32;
  if (fig[alt] == peak) return alt;
  for (int d = 0; d < DT__COUNT; d++)
    if (fig[d] == peak) return (DType)d;
  return p;
}

static void add_name(char *list, size_t n, const char *name) {
  size_t len = strlen(list);
  for (const char *at = list; (at = strstr(at, name)) != NULL; at++)
    if ((at == list || at[-1] == ' ') && (at[strlen(name)] == ',' || !at[strlen(name)])) return;
  if (len + strlen(name) + 3 < n) snprintf(list + len, n - len, "%s%s", len ? ", " : "", name);
}

/* One flat roof per distinct peak the target's kernels use, named after
 * the figures it is drawn at (never a figure the target does not state:
 * an fp16 op at the fp32 rate is "fp32 vector (used for fp16)"); the plan
 * dtype's roof when none plots. */
static void gather_roofs(const ModelCost *mc, int target, Roof **roofs, int *n, int *cap) {
  const Model *m = mc->model;
  const Target *t = mc->target;
  int first = *n;
  for (int k = 0; k <= mc->nkernels; k++) {
    double peak;
    DType prec;
    bool tensor;
    if (k < mc->nkernels) {
      Kernel kk = cost_kernel(mc, k);
      const Kernel *kn = &kk;
      if (kn->bound != BOUND_MEMORY && kn->bound != BOUND_COMPUTE) continue;
      if (kn->peak <= 0 || kn->first_node < 0 || kn->first_node >= m->nnodes) continue;
      peak = kn->peak;
      prec = m->nodes[kn->first_node].precision;
      tensor = mc->nodes[kn->first_node].tensor;
    } else {
      if (*n > first) break;
      prec = m->dtype == DT_NONE ? DT_BF16 : m->dtype;
      tensor = t->tensor_peak[prec] > 0;
      peak = tensor ? t->tensor_peak[prec] : t->vector_peak[prec];
      if (peak <= 0) break;
    }
    DType fig = figure_of(t, prec, tensor, peak);
    char what[32];
    snprintf(what, sizeof what, "%s %s", dtype_str(fig), tensor ? "tensor" : "vector");
    Roof *r = NULL;
    for (int i = first; i < *n && !r; i++)
      if (fabs((*roofs)[i].peak - peak) <= 1e-9 * peak) r = &(*roofs)[i];
    if (!r) {
      if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *roofs = xrealloc(*roofs, (size_t)*cap * sizeof **roofs);
      }
      r = &(*roofs)[(*n)++];
      memset(r, 0, sizeof *r);
      r->target = target;
      r->peak = peak;
      r->bw = t->memory_bw;
    }
    /* "bf16 tensor" and "fp16 tensor" share a peak on most parts: one roof
     * named after both */
    add_name(r->names, sizeof r->names, what);
    if (prec != DT_NONE && fig != prec && !(prec == DT_TF32 && fig == DT_FP32 && !tensor))
      add_name(r->borrowed, sizeof r->borrowed, dtype_str(prec));
  }
  for (int i = first; i < *n; i++) {
    Roof *r = &(*roofs)[i];
    char rate[32];
    snprintf(r->label, sizeof r->label, "%s%s%s%s: %s", r->names,
             r->borrowed[0] ? " (used for " : "", r->borrowed, r->borrowed[0] ? ")" : "",
             fmt_flops_rate(rate, sizeof rate, r->peak));
  }
}

/* ---------------------------------------------------------------- drawing */

static void draw_axes(FILE *out, const Axes *ax) {
  double bottom = ax->top + PLOT_H;
  fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" "
               "stroke=\"#444\" stroke-width=\"1\"/>\n",
          PLOT_LEFT, ax->top, PLOT_W, PLOT_H);
  char buf[48];
  fputs("<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n", out);
  for (int e = (int)ax->xlo; e <= (int)ax->xhi; e++)
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px(ax, pow(10, e)),
            ax->top, px(ax, pow(10, e)), bottom);
  for (int e = (int)ax->ylo; e <= (int)ax->yhi; e++)
    fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", PLOT_LEFT,
            py(ax, pow(10, e)), PLOT_LEFT + PLOT_W, py(ax, pow(10, e)));
  fputs("</g>\n<g class=\"ticks\" stroke=\"#444\" stroke-width=\"1\">\n", out);
  /* minor ticks at 2..9 of each decade, inside the frame */
  for (int e = (int)ax->xlo; e < (int)ax->xhi; e++)
    for (int k = 1; k <= 9; k++) {
      double x = px(ax, k * pow(10, e));
      fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, bottom, x,
              bottom - (k == 1 ? 8 : 4));
    }
  for (int e = (int)ax->ylo; e < (int)ax->yhi; e++)
    for (int k = 1; k <= 9; k++) {
      double y = py(ax, k * pow(10, e));
      fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", PLOT_LEFT, y,
              PLOT_LEFT + (k == 1 ? 8 : 4), y);
    }
  fputs("</g>\n<g class=\"tick-labels\" font-size=\"11\" fill=\"#333\">\n", out);
  for (int e = (int)ax->xlo; e <= (int)ax->xhi; e++) {
    decade_label(buf, sizeof buf, e, false);
    text_at(out, px(ax, pow(10, e)), bottom + 16, "middle", NULL, buf);
  }
  for (int e = (int)ax->ylo; e <= (int)ax->yhi; e++) {
    decade_label(buf, sizeof buf, e, true);
    text_at(out, PLOT_LEFT - 6, py(ax, pow(10, e)) + 4, "end", NULL, buf);
  }
  fputs("</g>\n", out);
  text_at(out, PLOT_LEFT + PLOT_W / 2.0, bottom + 38, "middle", "font-size=\"13\"",
          "arithmetic intensity (FLOP/B, log scale)");
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" "
               "transform=\"rotate(-90 %.1f %.1f)\">attainable performance (FLOP/s, log scale)"
               "</text>\n",
          18.0, ax->top + PLOT_H / 2.0, 18.0, ax->top + PLOT_H / 2.0);
}

/* A label box of width w whose text baseline is at (x, y), anchored at its
 * start ("start") or end ("end"). */
static Box text_box(double x, double y, double w, bool end) {
  double x0 = end ? x - w : x;
  return (Box){x0 - 1, y - FONT_SIZE, x0 + w + 1, y + 3};
}

/* The memory roof of target t, up to its highest ridge, and one flat roof
 * per peak from its ridge to the right edge. */
static void draw_roof_lines(FILE *out, const Axes *ax, const Roof *roofs, int nroofs, int t,
                            Drawn *occ) {
  double top_peak = 0, bw = 0;
  for (int i = 0; i < nroofs; i++)
    if (roofs[i].target == t && roofs[i].peak > top_peak) top_peak = roofs[i].peak, bw = roofs[i].bw;
  if (top_peak <= 0 || bw <= 0) return;
  const char *colour = TARGET_COLOUR[t % NSTYLES], *dash = TARGET_DASH[t % NSTYLES];
  double x0 = pow(10, ax->xlo);
  fprintf(out, "<line class=\"memory-roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"%s\" stroke-width=\"2.2\" stroke-dasharray=\"%s\"/>\n",
          px(ax, x0), py(ax, bw * x0), px(ax, top_peak / bw), py(ax, top_peak), colour, dash);
  for (int i = 0; i < nroofs; i++) {
    if (roofs[i].target != t) continue;
    double r = roofs[i].peak / bw;
    fprintf(out, "<line class=\"compute-roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                 "stroke=\"%s\" stroke-width=\"2.2\" stroke-dasharray=\"%s\"/>\n",
            px(ax, r), py(ax, roofs[i].peak), PLOT_LEFT + PLOT_W, py(ax, roofs[i].peak), colour,
            dash);
    /* labels keep off the flat roofs (the slanted one has its own label
     * running along it, and kernels sit on it anyway) */
    mark(occ, (Box){px(ax, r), py(ax, roofs[i].peak) - 1.5, PLOT_LEFT + PLOT_W,
                      py(ax, roofs[i].peak) + 1.5});
  }
}

/* A word placed at box b, which then counts as taken. */
static void put_word(FILE *out, const char *cls, Box b, const char *fill,
                     const char *text, Drawn *occ) {
  fprintf(out, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", cls,
          b.x0 + 1, b.y1 - 3, fill);
  xml_text(out, text);
  fputs("</text>\n", out);
  word(occ, b);
}

/* A flat roof's ridge marker, its precision and peak above it (right end,
 * else just right of its ridge), and the ridge value beside the marker. */
static void draw_ridge(FILE *out, const Axes *ax, const Roof *rf,
                       const char *colour, Drawn *occ) {
  double ridge = rf->peak / rf->bw;
  double rx = px(ax, ridge), ry = py(ax, rf->peak);
  fprintf(out, "<circle class=\"ridge\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" "
               "stroke=\"%s\" stroke-width=\"2\"/>\n",
          rx, ry, colour);
  mark(occ, (Box){rx - 5, ry - 5, rx + 5, ry + 5});

  /* at the roof's right end or just right of its ridge; close above it,
   * close below it, then clear of the circles sitting on it */
  double lw = text_width(rf->label);
  static const double dys[] = {-5, 15, -24, 34, -40, 50, -56, 66, -72, 82};
  enum { NDY = sizeof dys / sizeof *dys };
  Box spots[2 * NDY + 15], b;
  int n = 0;
  for (int k = 0; k < NDY; k++) {
    spots[n++] = text_box(PLOT_LEFT + PLOT_W - 6, ry + dys[k], lw, true);
    spots[n++] = text_box(rx + 8, ry + dys[k], lw, false);
  }
  if (place_word(occ, ax, spots, n, &b))
    put_word(out, "roof-label", b, colour, rf->label, occ);

  /* below right of the marker, above left, then farther down */
  char ridge_text[64];
  snprintf(ridge_text, sizeof ridge_text, "ridge %.1f FLOP/B", ridge);
  double rw = text_width(ridge_text);
  n = 0;
  spots[n++] = text_box(rx + 7, ry + 16, rw, false);
  spots[n++] = text_box(rx - 7, ry - 7, rw, true);
  spots[n++] = text_box(rx + 7, ry + 30, rw, false);
  spots[n++] = text_box(rx - 7, ry + 16, rw, true);
  spots[n++] = text_box(rx + 7, ry - 7, rw, false);
  for (int k = 0; k < 5; k++) {
    spots[n++] = text_box(rx + 7, ry + 44 + 14 * k, rw, false);
    spots[n++] = text_box(rx - 7, ry + 30 + 14 * k, rw, true);
  }
  if (place_word(occ, ax, spots, n, &b))
    put_word(out, "ridge-label", b, "#555", ridge_text, occ);
}

/* The bandwidth along target t's memory roof (bw, up to its lowest ridge)
 * at the first spot, walking up the line, that covers no kernel. */
static void draw_bandwidth(FILE *out, const Axes *ax, int t, const Target *tg,
                           double bw, double lowest, Drawn *occ) {
  const char *colour = TARGET_COLOUR[t % NSTYLES];
  /* The memory roof rises one decade per decade; on screen that is the
   * angle the two axes' scales give it. */
  char rate[32], label[96];
  snprintf(label, sizeof label, "%s%s%s", tg && tg->name ? tg->name : "", tg && tg->name ? " " : "",
           fmt_bandwidth(rate, sizeof rate, bw));
  double ppd_x = PLOT_W / (ax->xhi - ax->xlo), ppd_y = PLOT_H / (ax->yhi - ax->ylo);
  double theta = atan(ppd_y / ppd_x);
  double w = text_width(label);
  double c = cos(theta), sn = sin(theta);
  /* Walk up the line; at each spot try above it, then below it.  A slanted
   * text is tested as four boxes along its baseline, each as tall as the
   * text, so the test is tight enough to pass between kernels. */
  for (double step = 0.10; step < 0.96; step += 0.04) {
    for (int side = 0; side < 2; side++) {
      double gap = side == 0 ? 8 + 14.0 * t : -(FONT_SIZE + 6 + 14.0 * t);
      double lx0 = ax->xlo + step * (log10(lowest) - ax->xlo);
      double x = px(ax, pow(10, lx0)), y = py(ax, bw * pow(10, lx0));
      double bx = x - sn * gap, by = y - c * gap;
      if (bx + c * w > px(ax, lowest) - 6) continue;
      Box seg[4];
      bool ok = true;
      for (int k = 0; k < 4 && ok; k++) {
        double x0 = bx + c * w * k / 4, y0 = by - sn * w * k / 4;
        double x1 = bx + c * w * (k + 1) / 4, y1 = by - sn * w * (k + 1) / 4;
        seg[k] = (Box){fmin(x0, x1), fmin(y0, y1) - FONT_SIZE, fmax(x0, x1), fmax(y0, y1) + 1};
        ok = is_free(occ, seg[k], ax);
      }
      if (!ok) continue;
      fprintf(out, "<text class=\"bandwidth\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
                   "transform=\"rotate(%.2f %.1f %.1f)\">",
              bx, by, colour, -theta * 180 / M_PI, bx, by);
      xml_text(out, label);
      fputs("</text>\n", out);
      for (int k = 0; k < 4; k++) word(occ, seg[k]);
      return;
    }
  }
}

/* Ridge markers and the words on target t's roofs. */
static void draw_roof_labels(FILE *out, const Axes *ax, const Roof *roofs, int nroofs, int t,
                             const Target *tg, Drawn *occ) {
  double bw = 0, lowest = INFINITY;
  for (int i = 0; i < nroofs; i++) {
    if (roofs[i].target != t) continue;
    bw = roofs[i].bw;
    lowest = fmin(lowest, roofs[i].peak / roofs[i].bw);
    draw_ridge(out, ax, &roofs[i], TARGET_COLOUR[t % NSTYLES], occ);
  }
  if (bw > 0 && isfinite(lowest)) draw_bandwidth(out, ax, t, tg, bw, lowest, occ);
}

static int by_radius_desc(const void *a, const void *b) {
  const Point *p = a, *q = b;
  return (p->r < q->r) - (p->r > q->r);
}

static int by_time_desc(const void *a, const void *b) {
  const Point *const *p = a, *const *q = b;
  if ((*p)->time_s != (*q)->time_s) return ((*p)->time_s < (*q)->time_s) - ((*p)->time_s > (*q)->time_s);
  int c = strcmp((*p)->name, (*q)->name);
  if (c) return c;
  return ((*p)->x > (*q)->x) - ((*p)->x < (*q)->x);
}

static int off_by_time_desc(const void *a, const void *b) {
  const OffRoof *p = a, *q = b;
  if (p->time_s != q->time_s) return (p->time_s < q->time_s) - (p->time_s > q->time_s);
  return (p->order > q->order) - (p->order < q->order);
}

/* Screen positions and radii; every circle then blocks labels. */
static void layout_points(const Axes *ax, Point *pts, int n, Drawn *occ) {
  for (int i = 0; i < n; i++) {
    Point *p = &pts[i];
    p->cx = px(ax, p->x);
    p->cy = py(ax, p->y);
    p->r = p->share > 0 ? fmax(R_MIN, R_MAX * sqrt(p->share)) : R_MIN;
    mark(occ, (Box){p->cx - p->r, p->cy - p->r, p->cx + p->r, p->cy + p->r});
  }
  /* big circles first, so small ones stay visible on top of them */
  if (n > 1) qsort(pts, (size_t)n, sizeof *pts, by_radius_desc);
}

/* Target t's marker of the area of a circle of radius r, centred on
 * (x, y): the opening of its element, up to the attributes that follow. */
static void marker(FILE *out, int t, const char *cls, double x, double y, double r) {
  double h = r * sqrt(M_PI) / 2; /* a square's half side */
  switch ((Marker)(t % NSTYLES)) {
  case MARK_CIRCLE:
    fprintf(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", cls, x, y, r);
    break;
  case MARK_SQUARE:
    fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1fh%.1fv%.1fh%.1fz\"", cls, x - h, y - h, 2 * h,
            2 * h, -2 * h);
    break;
  case MARK_DIAMOND: {
    double d = h * sqrt(2.0);
    fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fz\"", cls, x,
            y - d, x + d, y, x, y + d, x - d, y);
    break;
  }
  case MARK_TRIANGLE: {
    /* equilateral, side a with a^2 * sqrt(3) / 4 = pi r^2, centroid at (x, y) */
    double a = r * sqrt(4 * M_PI / sqrt(3.0)), ht = a * sqrt(3.0) / 2;
    fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fz\"", cls, x,
            y - 2 * ht / 3, x + a / 2, y + ht / 3, x - a / 2, y + ht / 3);
    break;
  }
  }
}

static void draw_points(FILE *out, const Point *pts, int n) {
  fputs("<g class=\"kernels\" stroke-width=\"1.2\">\n", out);
  for (int i = 0; i < n; i++) {
    const Point *p = &pts[i];
    char rate[32], t[32];
    marker(out, p->target, p->bound == BOUND_MEMORY ? "memory-bound" : "compute-bound", p->cx,
           p->cy, p->r);
    fprintf(out, " fill=\"%s\" fill-opacity=\"0.72\" stroke=\"%s\"%s><title>",
            p->bound == BOUND_MEMORY ? MEMORY_COLOUR : COMPUTE_COLOUR,
            TARGET_COLOUR[p->target % NSTYLES], p->target ? " stroke-width=\"2\"" : "");
    xml_text(out, p->name);
    fprintf(out, ": %.3f FLOP/B, %s, %s per step (%.1f%%)</title></%s>\n", p->x,
            fmt_flops_rate(rate, sizeof rate, p->y), fmt_time(t, sizeof t, p->time_s),
            100 * p->share, p->target % NSTYLES == MARK_CIRCLE ? "circle" : "path");
  }
  fputs("</g>\n", out);
}

/* Labels for the slowest kernels of the first target, slowest first (by
 * time per step, then name): eight spots around the circle, then the same
 * farther out with a leader line; the first that covers nothing, else the
 * one that covers least without covering another word. */
static void draw_labels(FILE *out, const Axes *ax, const Point *pts, int n, Drawn *occ) {
  const Point **order = xmalloc((size_t)(n ? n : 1) * sizeof *order);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (pts[i].target == 0) order[m++] = &pts[i];
  if (m > 1) qsort(order, (size_t)m, sizeof *order, by_time_desc);
  static const double dir[8][2] = {{1, 0}, {1, -1}, {1, 1}, {0, -1}, {0, 1}, {-1, 0}, {-1, -1}, {-1, 1}};
  static const double gaps[] = {3, 22, 44, 70};
  enum { NRINGS = sizeof gaps / sizeof *gaps };
  fputs("<g class=\"kernel-labels\" font-size=\"11\" fill=\"#111\" " HALO ">\n", out);
  for (int i = 0, labelled = 0; i < m && labelled < MAX_LABELS; i++) {
    const Point *p = order[i];
    if (p->share < MIN_LABEL_SHARE) break; /* a label on a 0.0% kernel is noise */
    char text[96];
    snprintf(text, sizeof text, "%s %.1f%%", p->name, 100 * p->share);
    double w = text_width(text), h = FONT_SIZE + 2;
    Box spots[NRINGS * 8], b;
    for (int ring = 0; ring < NRINGS; ring++)
      for (int k = 0; k < 8; k++) {
        double dx = dir[k][0], dy = dir[k][1];
        double ax0 = p->cx + dx * (p->r + gaps[ring]), ay0 = p->cy + dy * (p->r + gaps[ring]);
        Box *c = &spots[ring * 8 + k];
        c->x0 = dx > 0 ? ax0 : dx < 0 ? ax0 - w : ax0 - w / 2;
        c->y0 = dy > 0 ? ay0 : dy < 0 ? ay0 - h : ay0 - h / 2;
        c->x1 = c->x0 + w;
        c->y1 = c->y0 + h;
      }
    if (!place_word(occ, ax, spots, NRINGS * 8, &b)) continue;
    int at = 0;
    while (at < NRINGS * 8 - 1 && memcmp(&spots[at], &b, sizeof b) != 0) at++;
    if (at >= 8) {
      double dx = dir[at % 8][0], dy = dir[at % 8][1], gap = gaps[at / 8];
      fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                   "stroke-width=\"0.8\"/>\n",
              p->cx + dx * p->r * 0.7, p->cy + dy * p->r * 0.7, p->cx + dx * (p->r + gap),
              p->cy + dy * (p->r + gap));
    }
    text_at(out, b.x0, b.y1 - 3, "start", NULL, text);
    word(occ, b);
    labelled++;
  }
  fputs("</g>\n", out);
  free(order);
}

static void legend_swatch(FILE *out, double y, const char *colour, const char *text) {
  fprintf(out, "<circle cx=\"%d\" cy=\"%.1f\" r=\"6\" fill=\"%s\" fill-opacity=\"0.72\" "
               "stroke=\"#222\" stroke-width=\"1\"/>\n",
          LEGEND_X + 8, y - 4, colour);
  text_at(out, LEGEND_X + 22, y, "start", NULL, text);
}

static void draw_legend(FILE *out, const Axes *ax, const Target *const *targets, int ntargets) {
  double y = ax->top + 8;
  fputs("<g class=\"legend\" font-size=\"12\" fill=\"#222\">\n", out);
  text_at(out, LEGEND_X, y, "start", "font-weight=\"bold\"", "kernels");
  legend_swatch(out, y += 20, MEMORY_COLOUR, "memory-bound");
  legend_swatch(out, y += 20, COMPUTE_COLOUR, "compute-bound");
  text_at(out, LEGEND_X, y += 24, "start", NULL,
          ntargets > 1 ? "marker area \xe2\x88\x9d share of step time:"
                       : "circle area \xe2\x88\x9d share of step time:");
  static const double shares[] = {0.5, 0.1, 0.01};
  double x = LEGEND_X + 4;
  y += 36;
  for (int i = 0; i < 3; i++) {
    double r = R_MAX * sqrt(shares[i]);
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#666\"/>\n",
            x + r, y - r + 8, r);
    char t[16];
    snprintf(t, sizeof t, "%g%%", 100 * shares[i]);
    text_at(out, x + r, y + 22, "middle", "font-size=\"11\"", t);
    x += 2 * r + 16;
  }
  y += 50;
  text_at(out, LEGEND_X, y, "start", "font-weight=\"bold\"", ntargets > 1 ? "targets" : "target");
  for (int t = 0; t < ntargets; t++) {
    y += 20;
    fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"2.2\" stroke-dasharray=\"%s\"/>\n",
            LEGEND_X, y - 4, LEGEND_X + 28, y - 4, TARGET_COLOUR[t % NSTYLES], TARGET_DASH[t % NSTYLES]);
    if (ntargets > 1) { /* and the marker of its kernels */
      marker(out, t, "target-marker", LEGEND_X + 14, y - 4, 5);
      fprintf(out, " fill=\"#fff\" stroke=\"%s\" stroke-width=\"2\"/>\n",
              TARGET_COLOUR[t % NSTYLES]);
    }
    text_at(out, LEGEND_X + 36, y, "start", NULL,
            targets[t] ? (targets[t]->display ? targets[t]->display : targets[t]->name) : "?");
  }
  y += 26;
  text_at(out, LEGEND_X, y, "start", "font-size=\"11\" fill=\"#555\"",
          "roofs: memory (slanted), peak per");
  text_at(out, LEGEND_X, y += 14, "start", "font-size=\"11\" fill=\"#555\"",
          "precision used (flat); \xe2\x97\x8b = ridge point");
  fputs("</g>\n", out);
}

/* The kernels not on the roofline, under the x-axis: a bar as wide as
 * the step with each kernel's share of it, then the kernels, slowest
 * first, with their shares, on two lines at most ("+N more" after). */
static void draw_strip(FILE *out, const Axes *ax, OffRoof *off, int n, const Target *tg, int nt) {
  double bottom = ax->top + PLOT_H, total = 0;
  if (n > 1) qsort(off, (size_t)n, sizeof *off, off_by_time_desc);
  for (int i = 0; i < n; i++) total += off[i].share;
  char head[160];
  if (n == 0)
    snprintf(head, sizeof head, "not on the roofline: no kernel");
  else
    snprintf(head, sizeof head,
             "not on the roofline (no FLOPs, transfers, collectives): %.1f%% of the step%s%s",
             100 * total, nt > 1 ? " on " : "",
             nt > 1 && tg ? (tg->display ? tg->display : tg->name) : "");
  fputs("<g class=\"off-roof\" font-size=\"11\" fill=\"#333\">\n", out);
  text_at(out, PLOT_LEFT, bottom + 60, "start", "class=\"off-roof-heading\"", head);
  fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"10\" fill=\"none\" "
               "stroke=\"#bbb\"/>\n",
          PLOT_LEFT, bottom + 66, PLOT_W);
  double x = PLOT_LEFT;
  for (int i = 0; i < n; i++) {
    double w = fmin(off[i].share * PLOT_W, PLOT_LEFT + PLOT_W - x);
    const char *fill = off[i].bound == BOUND_PCIE      ? PCIE_COLOUR
                       : off[i].bound == BOUND_NETWORK ? NETWORK_COLOUR
                                                       : MEMORY_COLOUR;
    char t[32];
    fprintf(out, "<rect class=\"off-roof-kernel\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                 "height=\"10\" fill=\"%s\" fill-opacity=\"0.72\"><title>",
            x, bottom + 66, fmax(w, 0), fill);
    xml_text(out, off[i].name);
    fprintf(out, ": %s per step (%.1f%%)</title></rect>\n", fmt_time(t, sizeof t, off[i].time_s),
            100 * off[i].share);
    x += fmax(w, 0);
  }
  /* entries left to right; the last line keeps room for "+N more" */
  const double right = WIDTH - 12, gap = 14;
  double ex = PLOT_LEFT;
  int line = 0, i = 0;
  for (; i < n; i++) {
    char text[96], more[48];
    snprintf(text, sizeof text, "%s %.1f%%", off[i].name, 100 * off[i].share);
    snprintf(more, sizeof more, "+%d more, 100.0%%", n - i);
    double w = text_width(text), reserve = i < n - 1 ? gap + text_width(more) : 0;
    if (ex > PLOT_LEFT && ex + w + (line == 1 ? reserve : 0) > right) {
      if (line == 1) break;
      line++, ex = PLOT_LEFT;
    }
    if (line == 1 && ex + w + reserve > right) break;
    text_at(out, ex, bottom + 92 + 15 * line, "start", "class=\"off-roof-entry\"", text);
    ex += w + gap;
  }
  if (i < n) {
    double rest = 0;
    for (int j = i; j < n; j++) rest += off[j].share;
    char more[48];
    snprintf(more, sizeof more, "+%d more, %.1f%%", n - i, 100 * rest);
    text_at(out, ex, bottom + 92 + 15 * line, "start", "class=\"off-roof-more\" fill=\"#555\"",
            more);
  }
  fputs("</g>\n", out);
}

/* A heading line in at most `width` units at size `size`: cut with an
 * ellipsis where it is longer. */
static void fit_text(StrBuf *line, double width, double per_char) {
  const char *s = sb_str(line);
  size_t n = strlen(s), keep = 0, chars = 0;
  double limit = width / per_char;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) chars++;
  if (chars <= limit) return;
  for (size_t c = 0; keep < n; keep++)
    if (((unsigned char)s[keep] & 0xC0) != 0x80 && ++c > limit - 1) break;
  StrBuf cut = {0};
  sb_printf(&cut, "%.*s\xe2\x80\xa6", (int)keep, s);
  sb_free(line);
  *line = cut;
}

/* ---------------------------------------------------------------- panels */

/* Ranges: whole decades holding every point and ridge, with a decade of
 * room left of the lowest ridge and right of the highest. */
static Axes panel_axes(const Point *pts, int npts, const Roof *roofs, int nroofs,
                       double top) {
  double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
  for (int i = 0; i < npts; i++) {
    xmin = fmin(xmin, pts[i].x / 2), xmax = fmax(xmax, pts[i].x * 2);
    ymin = fmin(ymin, pts[i].y / 3), ymax = fmax(ymax, pts[i].y);
  }
  for (int i = 0; i < nroofs; i++) {
    double r = roofs[i].peak / roofs[i].bw;
    xmin = fmin(xmin, r / 10), xmax = fmax(xmax, r * 10);
    ymax = fmax(ymax, roofs[i].peak * 1.6);
    ymin = fmin(ymin, roofs[i].peak / 100);
  }
  if (!(xmax > 0)) xmin = 0.1, xmax = 1000;
  if (!(ymax > 0)) ymin = 1e9, ymax = 1e15;
  Axes ax = {floor(log10(xmin)), ceil(log10(xmax)), floor(log10(ymin)), ceil(log10(ymax)),
             top + PLOT_TOP};
  bound_decades(&ax.xlo, &ax.xhi, -1, 3);
  bound_decades(&ax.ylo, &ax.yhi, 9, 15);
  return ax;
}

/* The model and where it runs, on one line: the widest size up to 19 that
 * fits beside nothing (the legend starts below it), else cut at 12. */
static void draw_title(FILE *out, const Analysis *an, const Model *m, double top) {
  int nt = an->ntargets;
  StrBuf title = {0};
  sb_printf(&title, "Roofline: %s on ", m->name);
  for (int t = 0; t < nt; t++)
    sb_printf(&title, "%s%s", t ? (t == nt - 1 ? " and " : ", ") : "",
              an->targets[t]->display ? an->targets[t]->display : an->targets[t]->name);
  /* R-CEIL-004: the roofs drawn are the achieved figures. */
  if (nt > 0 && an->targets[0]->ceilings_text)
    sb_printf(&title, ", %s", an->targets[0]->ceilings_text);
  int size = 19;
  double room = WIDTH - PLOT_LEFT - 12;
  while (size > 12 && text_width(sb_str(&title)) / CHAR_W * TITLE_W * size > room) size--;
  fit_text(&title, room, TITLE_W * size);
  char font[64];
  snprintf(font, sizeof font, "class=\"title\" font-size=\"%d\" font-weight=\"bold\"", size);
  text_at(out, PLOT_LEFT, top + 34, "start", font, sb_str(&title));
  sb_free(&title);
}

/* The totals that matter, on two lines at most, broken after a "; ". */
static void draw_subtitle(FILE *out, const ModelCost *first, double top,
                          const SourceSet *ss) {
  const Model *m = first->model;
  double room = WIDTH - PLOT_LEFT - 12;
  char tbuf[32], fbuf[40];
  fmt_count(fbuf, sizeof fbuf, first->flops);
  if (fbuf[0] && fbuf[strlen(fbuf) - 1] >= '0' && fbuf[strlen(fbuf) - 1] <= '9') strcat(fbuf, " ");
  StrBuf sub = {0};
  const SourceFile *f = m->file >= 0 && m->file < ss->nfiles ? src_file(ss, m->file) : NULL;
  sb_printf(&sub, "%s%s%s, %s, %d kernel%s; step time \xe2\x89\xa5 %s, %.0f%% of it memory-bound; %sFLOP per step",
            f ? f->name : "", f ? ": " : "", dtype_str(m->dtype == DT_NONE ? DT_BF16 : m->dtype),
            m->train ? "train" : "inference", first->nkernels, first->nkernels == 1 ? "" : "s",
            fmt_time(tbuf, sizeof tbuf, first->time_s),
            first->time_s > 0 ? 100 * first->memory_bound_time / first->time_s : 0.0,
            fbuf);
  const char *s = sb_str(&sub), *cut = NULL;
  double per = CHAR_W / FONT_SIZE * 12;
  if (text_width(s) / CHAR_W * per > room)
    for (const char *at = s; (at = strstr(at, "; ")) != NULL; at += 2) {
      StrBuf head = {0};
      sb_printf(&head, "%.*s", (int)(at - s + 1), s);
      bool fits = text_width(sb_str(&head)) / CHAR_W * per <= room;
      sb_free(&head);
      if (fits || !cut) cut = at;
      if (!fits) break;
    }
  for (int k = 0; k < (cut ? 2 : 1); k++) {
    StrBuf line = {0};
    if (!cut) sb_printf(&line, "%s", s);
    else if (k == 0) sb_printf(&line, "%.*s", (int)(cut - s + 1), s);
    else sb_printf(&line, "%s", cut + 2);
    fit_text(&line, room, per);
    text_at(out, PLOT_LEFT, top + 56 + 15 * k, "start", "class=\"subtitle\" font-size=\"12\" fill=\"#444\"",
            sb_str(&line));
    sb_free(&line);
  }
  sb_free(&sub);
}

static int draw_panel(FILE *out, const Analysis *an, int model, double top, const SourceSet *ss) {
  int nt = an->ntargets;
  const ModelCost *first = an->costs[model * nt];
  Point *pts = NULL;
  int npts = 0, cap = 0, noff = 0;
  OffRoof *off = NULL;
  Roof *roofs = NULL;
  int nroofs = 0, rcap = 0;
  for (int t = 0; t < nt; t++) {
    const ModelCost *mc = an->costs[model * nt + t];
    if (!mc || !mc->target) continue;
    gather_points(mc, t, &pts, &npts, &cap, &off, &noff);
    gather_roofs(mc, t, &roofs, &nroofs, &rcap);
  }
  Axes ax = panel_axes(pts, npts, roofs, nroofs, top);
  draw_title(out, an, first->model, top);
  draw_subtitle(out, first, top, ss);

  fprintf(out, "<clipPath id=\"clip%d\"><rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>"
               "</clipPath>\n",
          (int)ax.top, PLOT_LEFT, ax.top, PLOT_W, PLOT_H);
  Drawn occ = {{0}, {0}};
  layout_points(&ax, pts, npts, &occ);
  draw_axes(out, &ax);
  fprintf(out, "<g class=\"roofs\" clip-path=\"url(#clip%d)\" fill=\"none\">\n", (int)ax.top);
  for (int t = 0; t < nt; t++) draw_roof_lines(out, &ax, roofs, nroofs, t, &occ);
  fputs("</g>\n", out);
  draw_points(out, pts, npts);
  /* words go over lines and circles, each with a halo of the background */
  fputs("<g class=\"roof-labels\" font-size=\"11\" " HALO ">\n", out);
  for (int t = 0; t < nt; t++) draw_roof_labels(out, &ax, roofs, nroofs, t, an->targets[t], &occ);
  fputs("</g>\n", out);
  draw_labels(out, &ax, pts, npts, &occ);
  draw_legend(out, &ax, an->targets, nt);
  draw_strip(out, &ax, off, noff, an->targets[0], nt);
  free(occ.all.items);
  free(occ.words.items);
  free(off);
  free(pts);
  free(roofs);
  return npts;
}

/* R-OUT-008, R-OUT-009; R-OUT-017: at most PLOT_MAX_PANELS panels, the
 * first models in file order, and a line under them saying how many more
 * there were (a chart of thousands of panels is drawn for nobody, and
 * each costs as much as a small model's whole lint). */
int plot_write(FILE *out, Analysis *const *an, int n, const SourceSet *ss,
               int *left_out) {
  int models = 0, panels = 0; /* models analysed; those with a panel */
  for (int a = 0; a < n; a++)
    if (an[a] && an[a]->unit && an[a]->costs && an[a]->ntargets > 0)
      for (int m = 0; m < an[a]->unit->nmodels; m++, models++)
        panels += an[a]->costs[m * an[a]->ntargets] != NULL;
  *left_out = panels > PLOT_MAX_PANELS ? panels - PLOT_MAX_PANELS : 0;
  panels -= *left_out;
  int height = *left_out ? PANEL_H * panels + LEFT_OUT_H
                         : PANEL_H * (models ? models : 1);
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
               "<title>rooflint roofline chart</title>\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
          WIDTH, height, WIDTH, height);
  int plotted = 0, panel = 0;
  for (int a = 0; a < n; a++) {
    if (!an[a] || !an[a]->unit || !an[a]->costs || an[a]->ntargets <= 0) continue;
    for (int m = 0; m < an[a]->unit->nmodels && panel < panels; m++) {
      if (!an[a]->costs[m * an[a]->ntargets]) continue;
      fprintf(out, "<g class=\"panel\" id=\"model-%d\">\n", panel);
      plotted += draw_panel(out, an[a], m, (double)panel * PANEL_H, ss);
      fputs("</g>\n", out);
      panel++;
    }
  }
  if (panel == 0)
    text_at(out, WIDTH / 2.0, PANEL_H / 2.0, "middle", "font-size=\"16\" fill=\"#555\"",
            "no model to plot");
  if (*left_out) {
    char line[160];
    snprintf(line, sizeof line,
             "%d more model%s not drawn: the chart has at most %d panels",
             *left_out, *left_out == 1 ? " is" : "s are", PLOT_MAX_PANELS);
    fprintf(out, "<g class=\"left-out\">\n");
    text_at(out, WIDTH / 2.0, panels * PANEL_H + LEFT_OUT_H / 2.0, "middle",
            "font-size=\"16\" fill=\"#555\"", line);
    fputs("</g>\n", out);
  }
  fputs("</svg>\n", out);
  return plotted;
}
