/* SPDX-License-Identifier: MIT */
/*
 * out.h: the outputs, every one a reader of an analysis that never changes
 * it (the summary, --report, --plan/--dtype, diff, JSON, SARIF, the SVG
 * chart) and the aligned-table printer they share.  main.c and the tests
 * include it; nothing below the outputs does.
 */
#ifndef ROOFLINT_OUT_H
#define ROOFLINT_OUT_H

#include "rooflint.h"

/* ===================================================================== */
/* table.c: aligned text tables (every table of report, plan and diff).   */
/* ===================================================================== */

/* Two blanks between columns, no trailing blanks.  Zero-initialise with
 * ncols and align ('r' right, 'l' left, per column).  Either keep rows
 * (table_add, then table_print, which prints and frees), or measure every
 * row first (table_measure) and print each at the final widths
 * (table_put_row, then table_free). */
typedef struct Table {
  int ncols;
  const char *align;
  size_t *w, *len; /* column widths; a row's cell lengths (scratch) */
  struct TableBlock *first, *last;
  StrBuf line;
} Table;

void table_add(Table *t, const char *const *row);
void table_measure(Table *t, const char *const *row);
void table_put_row(FILE *out, Table *t, const char *indent,
                   const char *const *row);
void table_print(FILE *out, Table *t, const char *indent);
void table_free(Table *t);

/* ===================================================================== */
/* report.c: the human-readable outputs.                                  */
/* ===================================================================== */

/* Default stdout summary: one line per model (nodes, parameters, FLOPs,
 * step-time bound). */
void report_summary(FILE *out, const Analysis *an, const SourceSet *ss);
/* --report: per-node table and totals; several targets side by side. */
void report_models(FILE *out, const Analysis *an, const SourceSet *ss);
/* One kernel's ten figures as --report's table prints them (count,
 * FLOPs/run, bytes/run, FLOP/B, peak, ridge, attainable, bound, time,
 * share of `total`). */
enum { REPORT_FIGS = 10, REPORT_NB = 64 };
void report_kernel_cells(const ModelCost *c, const Kernel *k, double total,
                         char cells[][REPORT_NB]);
/* --sweep: the columns follow the first analysis (report_sweep_layout);
 * one row per value (or grid point) and model, `errors` its summary
 * ("" = none); an analysis without a graph prints "-" for every figure.
 * A file of several models has a `model` column `model_w` wide (0: none)
 * and a row per model, `model_name` naming it. */
typedef enum SweepLayout { SWEEP_TOTALS, SWEEP_ONE_NODE, SWEEP_COLLECTIVE } SweepLayout;
SweepLayout report_sweep_layout(const Analysis *an);
void report_sweep_header(FILE *out, SweepLayout layout, const char *const *names,
                         int naxes, int model_w);
void report_sweep_row(FILE *out, const Analysis *an, int model, SweepLayout layout,
                      const char *const *values, int naxes, int model_w,
                      const char *model_name, const char *errors);
/* The layout's column heads (NULL-terminated), and one row's figures under
 * them (the count filled: 0 when the model has no cost), as the row prints
 * them. */
const char *const *report_sweep_heads(SweepLayout layout);
int report_sweep_cells(const Analysis *an, int model, SweepLayout layout,
                       char cells[][REPORT_NB]);
/* `rooflint targets [NAMES...]`, `rooflint target NAME`: exit status. */
int report_targets_cmd(FILE *out, Arena *a, SourceSet *ss,
                       const char *const *names, int n, DiagSink *diags);
int report_target_card(FILE *out, Arena *a, SourceSet *ss, const char *name,
                       DiagSink *diags);

/* ===================================================================== */
/* json.c, sarif.c, plot.c: machine outputs (--format json|sarif, --plot) */
/* ===================================================================== */

/* One JSON document for the whole run: the tool, the targets, every model
 * of every analysis (one entry per model and target) and every diagnostic.
 * an[i] and diags[i] belong to the i-th file; either may be NULL (a file
 * that could not be read).  Sinks are written as they stand: run
 * diag_apply_policy and diag_sort first.  Numbers in base units. */
void json_write(FILE *out, Analysis *const *an, const DiagSink *const *diags,
                int n, const SourceSet *ss);

/* --format html: one self-contained page for the whole run (specs/html.md),
 * the same arguments as json_write.  Its style and script are embedded at
 * build from src/out/html_page.css and .js (tools/embed.c). */
void html_write(FILE *out, Analysis *const *an, const DiagSink *const *diags,
                int n, const SourceSet *ss);
extern const EmbeddedFile embedded_html_page[];
extern const int embedded_html_page_count;

/* --sweep with --format html (R-HTML-008): the rows gathered as the sweep
 * makes them, one table per file and model, written as one page at the
 * end.  html_sweep_file starts a file (its first value's analysis, which
 * names its models); html_sweep_row adds model `model`'s row at a value
 * (the text row's cells, `errors` its error summary). */
typedef struct HtmlSweep HtmlSweep;
HtmlSweep *html_sweep_new(const char *const *axes, int naxes);
void html_sweep_file(HtmlSweep *s, const SourceSet *ss, const Analysis *an,
                     SweepLayout layout);
void html_sweep_row(HtmlSweep *s, const Analysis *an, int model,
                    SweepLayout layout, const char *const *values,
                    const char *errors);
void html_sweep_write(FILE *out, HtmlSweep *s);
void html_sweep_free(HtmlSweep *s);

/* SARIF 2.1.0: one run, one rule per registered check plus the rule
 * "error" for language errors; `exit_status` is recorded in invocations.
 * `help_base`: where docs/checks.md is served (--sarif-help-base), each
 * rule's helpUri; NULL: no helpUri. */
void sarif_write(FILE *out, Analysis *const *an, const DiagSink *const *diags,
                 int n, const SourceSet *ss, int exit_status,
                 const char *help_base);

/* The chart's panels at most (R-OUT-017). */
#define PLOT_MAX_PANELS 1000

/* The roofline chart as a standalone SVG document: one panel per model
 * (the first PLOT_MAX_PANELS), one roof set per target, one point per kernel.
 * Returns the number of kernels plotted; *left_out is the number of models
 * past the cap, not drawn. */
int plot_write(FILE *out, Analysis *const *an, int n, const SourceSet *ss,
               int *left_out);

/* ===================================================================== */
/* plan.c, diff.c: reviewing a dtype plan (--plan, --dtype, `rooflint diff`) */
/* ===================================================================== */


/* --plan: per model (first target) the compute by precision and unit, the
 * footprint by storage dtype, and every node whose dtype or precision
 * differs from the plan, with why (explicit or inherited) and where. */
void plan_print(FILE *out, const Analysis *an, const SourceSet *ss);
/* --dtype DT,...: analyses the file again with each plan dtype (sema and
 * cost on the first target; declarations and ops naming no dtype follow the
 * plan) and prints the totals side by side with the plan as written, the
 * kernels whose bound changes and the slowest kernels.  `b` holds the -D
 * overrides (copied, never changed).  Errors of a what-if plan go to
 * `diags`; returns 1 when there were any, else 0. */
/* One --dtype what-if: the plan dtype DT (cls < 0), or the recipe entry
 * CLASS=DT (cls an OpClass). */
typedef struct WhatIf {
  int cls;
  DType dtype;
} WhatIf;
int plan_whatif(FILE *out, Arena *a, const SourceSet *ss, const Analysis *an,
                const Bindings *b, const WhatIf *dtypes, int ndtypes,
                DiagSink *diags);
/* R-PLAN-006: the plan as written, "bf16" or "bf16, contraction fp8_e4m3". */
const char *plan_label(Arena *a, const Model *m);
/* "fp8,fp32,contraction=fp8" -> what-ifs (storage dtypes only; a class
 * of a recipe: elementwise, reduction, contraction); false with a message
 * in *err (arena) when a name is unknown. */
bool plan_parse_dtypes(Arena *a, const char *list, WhatIf **dtypes, int *n,
                       const char **err);

typedef struct DiffOptions {
  Bindings *bindings;    /* -D overrides, both sides */
  const char **targets;  /* --target; none = each file's own */
  int ntargets;
  const DiagPolicy *policy; /* applied to both sides' checks */
  bool json;             /* --format json */
  bool has_fail;         /* --fail-on-regression given */
  double fail_pct;       /* its PCT */
  const struct ImportOptions *import; /* how a side not in .roof is read */
  bool html;             /* --format html (R-HTML-009) */
} DiffOptions;

/* `rooflint diff OLD NEW` ("-" = stdin for one side): matches models and
 * nodes by name (k-th occurrence with k-th), prints what changed, the
 * totals before and after, and the diagnostics that appear and disappear.
 * Language errors of either side go to `diags` (nothing else is printed).
 * Returns 0; 1 on errors or a step-time regression beyond fail_pct; 2 when
 * a file cannot be read. */
int diff_cmd(FILE *out, Arena *a, SourceSet *ss, const char *old_path,
             const char *new_path, const DiffOptions *o, DiagSink *diags);

#endif /* ROOFLINT_OUT_H */
