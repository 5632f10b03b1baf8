/* SPDX-License-Identifier: MIT */
/*
 * main.c: the driver and the visible pipeline, on top of the command line
 * (cli.c).  lint() shows the whole pipeline, stage by stage: load and
 * analyse every file, check that every -D/--sweep/-t name is found
 * somewhere (a typo there would silently change nothing), then per file:
 * policy, sort, render to stderr, and the summary or report to stdout.
 * Besides the lint: --sweep, the subcommands and the exit status.  R-CLI
 * rules are cited where they are implemented.
 */
#include "calibrate.h"
#include "cli.h"
#include "diag.h"
#include "out/out.h"
#include "import/import.h"
#include "lsp/server.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct FileRun {
  int file; /* -1: could not be loaded */
  DiagSink diags;
  Analysis *an;
  Arena *arena; /* the analysis's own: a --sweep value frees it after its row */
};

/* Standard output goes out before diagnostics follow it on stderr; a
 * failure is kept for stdout_written. */
static void flush_stdout(Cli *c) {
  if (fflush(stdout) != 0 && !c->stdout_errno) c->stdout_errno = errno;
}

static int emit_text(Cli *c, FileRun *r);
static void emit_json(Cli *c, FileRun *runs, int n, int status);
static void emit_sarif(Cli *c, FileRun *runs, int n, int status);
static void emit_html(Cli *c, FileRun *runs, int n, int status);

static const FormatDesc formats[] = {
    {"text", emit_text, NULL, DIFF_TEXT},
    {"json", NULL, emit_json, DIFF_JSON},
    {"sarif", NULL, emit_sarif, DIFF_NO},
    {"html", NULL, emit_html, DIFF_HTML},
};
enum { NFORMATS = sizeof formats / sizeof *formats };

static int run_diff(Cli *c, DiagSink *diags);
static int run_targets(Cli *c, DiagSink *diags);
static int run_target(Cli *c, DiagSink *diags);
static int run_import(Cli *c, DiagSink *diags);
static int run_lsp(Cli *c, DiagSink *diags);
static int run_calibrate(Cli *c, DiagSink *diags);
static ImportOptions import_options(Cli *c);

static const SubcommandDesc subcommands[] = {
    {NULL, "[OPTIONS] FILE...", "lint (FILE '-' = stdin; a directory: its *.roof)",
     IN_LINT, NULL},
    {"targets", "[NAMES...]", "list targets", IN_TARGETS, run_targets},
    {"target", "NAME", "one target's card", IN_TARGETS, run_target},
    {"diff", "OLD NEW", "what changed (OLD or NEW '-' = stdin)", IN_DIFF, run_diff},
    {"import", "FILE [-o OUT]", "translate a model in another format to .roof",
     IN_IMPORT, run_import},
    {"lsp", "", "the language server, on stdin and stdout", 0, run_lsp},
    {"calibrate", "",
     "measure this machine with PyTorch and write its target card",
     IN_CALIBRATE, run_calibrate},
};
enum { NSUBCOMMANDS = sizeof subcommands / sizeof *subcommands };

static const CliTables tables = {formats, NFORMATS, subcommands, NSUBCOMMANDS};

/* ------------------------------------------------------------ linting */

static void collect_lets(const Block *b, const char ***names, int *n) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->items[i];
    switch (s->kind) {
    case ST_LET: cli_push(names, n, s->let.name.name); break;
    case ST_MODEL:
    case ST_FUSED:
    case ST_CHECKPOINT:
    case ST_TARGET_DEF:
    case ST_SECTION: collect_lets(&s->def.body, names, n); break;
    case ST_REPEAT:
    case ST_LOOP:
    case ST_EXPERTS: collect_lets(&s->loop.body, names, n); break;
    default: break;
    }
  }
}

/* R-CLI-003: every -D (and each --sweep name) must name a let of some file;
 * sema marks the ones it used, the syntax tree covers files sema did not
 * reach.  A file that did not load (its import failed, with an error of
 * its own) has lets no one knows: a -D may have been meant for it. */
static bool overrides_named(Cli *c, FileRun *runs, int nruns) {
  const char **lets = NULL;
  int nlets = 0;
  for (int i = 0; i < nruns; i++)
    if (runs[i].file < 0) return true;
  for (int i = 0; i < nruns; i++)
    if (runs[i].an && runs[i].an->tree.program) /* kept: analyze_run */
      collect_lets(&runs[i].an->tree.program->top, &lets, &nlets);
  cli_push(&lets, &nlets, NULL);
  bool ok = true;
  Options *o = &c->o;
  for (int i = 0; i < o->noverrides + o->nsweeps; i++) {
    const char *name = i < o->noverrides ? o->overrides[i].name
                                         : o->sweeps[i - o->noverrides].name;
    if (i < o->noverrides && o->overrides[i].used) continue;
    /* the import read it itself (R-HF-017): a file it made is loaded */
    bool imported = false;
    for (int k = 0; k < nruns && !imported && import_define_is_own(name); k++)
      imported = i < o->noverrides && importer_for(c->o.files[k]) != NULL;
    if (imported) continue;
    bool found = false;
    for (int k = 0; lets[k] && !found; k++) found = strcmp(lets[k], name) == 0;
    if (found) continue;
    cli_error(c, "%s %s: no let named '%s' in any file%s",
              i < o->noverrides ? "-D" : "--sweep",
              i < o->noverrides ? o->override_args[i] : name, name,
              cli_did_you_mean(c, name, lets));
    ok = false;
  }
  free(lets);
  return ok;
}

static bool is_builtin_target(const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < embedded_targets_count; i++) {
    const char *f = embedded_targets[i].name;
    if (f && strncmp(f, name, n) == 0 && strcmp(f + n, ".roof") == 0) return true;
  }
  return false;
}

/* A -t NAME that is neither a file nor a built-in must be defined by
 * `target NAME { }` in a linted file (R-TGT-007). */
static bool needs_file_target(const Options *o) {
  for (int i = 0; i < o->ntargets; i++)
    if (!cli_is_target_file(o->targets[i]) && !is_builtin_target(o->targets[i]))
      return true;
  return false;
}

/* R-CLI-015: a -t NAME found nowhere is a command-line mistake, said once
 * (with target.c's suggestion) rather than once per file, exit 2. */
static bool targets_named(Cli *c, FileRun *runs, int nruns) {
  bool ok = true;
  for (int t = 0; t < c->o.ntargets; t++) {
    const char *name = c->o.targets[t];
    if (cli_is_target_file(name) || is_builtin_target(name)) continue;
    bool found = false;
    for (int i = 0; i < nruns && !found; i++) {
      const Program *p = runs[i].an ? runs[i].an->tree.program : NULL;
      for (int k = 0; p && k < p->top.n && !found; k++)
        found = p->top.items[k]->kind == ST_TARGET_DEF &&
                strcmp(p->top.items[k]->def.name.name, name) == 0;
    }
    if (!found) {
      target_resolve(c->arena, &c->ss, name, NULL, LOC_NONE, &c->errs);
      ok = false;
    }
  }
  return ok;
}

static bool is_swept(const Options *o, const char *name) {
  for (int a = 0; a < o->nsweeps; a++)
    if (strcmp(o->sweeps[a].name, name) == 0) return true;
  return false;
}

/* The number of grid points: the product of the --sweep lengths (1: none). */
static int64_t sweep_points(const Options *o) {
  int64_t n = 1;
  for (int a = 0; a < o->nsweeps; a++) n *= o->sweeps[a].n;
  return n;
}

/* Grid point k's value index on axis `a`: the first axis varies slowest. */
static int sweep_index(const Options *o, int64_t k, int a) {
  for (int b = o->nsweeps - 1; b > a; b--) k /= o->sweeps[b].n;
  return (int)(k % o->sweeps[a].n);
}

/* The -D overrides plus, in a sweep, every swept let at grid point k. */
static Bindings *bindings_for(Cli *c, Arena *a, int64_t k) {
  Options *o = &c->o;
  Bindings *b = arena_alloc(a, sizeof *b);
  b->overrides = arena_alloc(
      a, (size_t)(o->noverrides + o->nsweeps + 1) * sizeof *b->overrides);
  for (int i = 0; i < o->noverrides; i++)
    if (!is_swept(o, o->overrides[i].name)) b->overrides[b->n++] = o->overrides[i];
  for (int x = 0; x < o->nsweeps; x++)
    b->overrides[b->n++] = (LetOverride){
        o->sweeps[x].name, o->sweeps[x].values[sweep_index(o, k, x)], false, NULL};
  return b;
}

static void mark_used(Cli *c, const Bindings *b) {
  for (int i = 0; i < b->n; i++)
    for (int j = 0; j < c->o.noverrides; j++)
      if (b->overrides[i].used &&
          strcmp(b->overrides[i].name, c->o.overrides[j].name) == 0)
        c->o.overrides[j].used = true;
}

/* The file's analysis at sweep grid point k (0: no sweep), in an arena of
 * its own.  After the first, a point's analysis skips the directives. */
/* The policy the checks of run k see.  A sweep shows warnings for its
 * first value only (sweep_file), so at a later value, unless a warning can
 * become an error, the checks may skip work for warnings (the crossover
 * search behind memory-bound's notes): -w for that run. */
static const DiagPolicy *checks_policy(Cli *c, int64_t k, DiagPolicy *quiet) {
  const DiagPolicy *p = &c->o.policy;
  if (k == 0 || p->werror || p->nwerror_on > 0) return p;
  *quiet = *p;
  quiet->no_warnings = true;
  return quiet;
}

/* Whether the output prints the serving answer (R-SERVE-001): the text
 * summary or the JSON document, not a --sweep row. */
static bool serving_shown(Cli *c, int64_t k) {
  const char *fmt = cli_format(c)->name;
  bool summary = strcmp(fmt, "text") == 0 && !c->o.report && !c->o.plan &&
                 c->o.ndtypes == 0;
  return k == 0 && c->o.nsweeps == 0 && c->o.dump == DUMP_NONE &&
         (summary || strcmp(fmt, "json") == 0);
}

/* earlier: the file's analysis at its first --sweep value, or NULL. */
static void analyze_run(Cli *c, FileRun *r, int64_t k, const Analysis *earlier) {
  DiagPolicy quiet;
  ImportOptions io = import_options(c); /* the capacity notes import again */
  diag_sink_init(&r->diags);
  r->arena = arena_new();
  /* --verify compares every error, so nothing may be dropped. */
  r->diags.error_limit = c->o.error_limit >= 0 ? c->o.error_limit
                         : c->o.verify        ? 0
                                              : DIAG_DEFAULT_ERROR_LIMIT;
  AnalyzeOptions ao = {
      .bindings = bindings_for(c, r->arena, k),
      .targets = c->o.targets,
      .ntargets = c->o.ntargets,
      .run_checks = c->o.dump == DUMP_NONE,
      .policy = checks_policy(c, k, &quiet),
      /* --dump ast prints the tree; -D and --sweep look up lets in it
       * (overrides_named); --dtype analyses it again under other plans */
      .keep_tree = c->o.dump == DUMP_AST || needs_file_target(&c->o) ||
                   c->o.noverrides > 0 || (c->o.nsweeps && k == 0) ||
                   c->o.ndtypes > 0,
      .reanalyse = c->o.nsweeps && k == 0,
      .earlier = earlier,
      .import = &io,
      .serving = serving_shown(c, k),
      .ceilings = (Ceilings)c->o.ceilings,
  };
  r->an = analyze_file(r->arena, &c->ss, r->file, &ao, &r->diags);
  mark_used(c, ao.bindings);
}

/* diagnostics: policy, order, render; returns the file's exit status (0
 * or 1). */
static int render_run(Cli *c, FileRun *r, const DiagPolicy *policy) {
  diag_apply_policy(&r->diags, &c->ss, policy);
  diag_sort(&r->diags);
  if (c->o.verify) return diag_verify(&r->diags, &c->ss, r->file, stderr) ? 1 : 0;
  flush_stdout(c);
  diag_render_text(&r->diags, &c->ss, stderr, &c->ro);
  return r->diags.nerrors > 0;
}

/* --plan and --dtype (plan.c); what-if errors render like any other. */
static int emit_plan(Cli *c, FileRun *r) {
  if (c->o.plan) plan_print(stdout, r->an, &c->ss);
  if (!c->o.ndtypes) return 0;
  if (c->o.plan || c->o.report) putchar('\n');
  DiagSink diags;
  diag_sink_init(&diags);
  /* The what-if analyses in an arena of their own, freed when printed:
   * memory is one file's, not every file's (issue 17 item 13). */
  Arena *whatif = arena_new();
  int status = plan_whatif(stdout, whatif, &c->ss, r->an, bindings_for(c, whatif, 0),
                           c->o.dtypes, c->o.ndtypes, &diags);
  arena_free(whatif);
  flush_stdout(c);
  diag_sort(&diags);
  diag_render_text(&diags, &c->ss, stderr, &c->ro);
  diag_sink_free(&diags);
  return status;
}

static int emit_text(Cli *c, FileRun *r) {
  const Analysis *an = r->an;
  if (c->o.dump == DUMP_AST)
    ast_dump(an->tree.program, &c->ss, stdout);
  else if (c->o.dump == DUMP_GRAPH && an->unit)
    graph_dump(an->unit, &c->ss, stdout);
  /* Language errors leave no costs; an error from a check (capacity, or a
   * warning under -Werror) still has a report worth reading. */
  else if (c->o.dump != DUMP_NONE || !an->unit || !an->costs)
    return 0;
  else if (c->o.report)
    report_models(stdout, an, &c->ss);
  else if (!c->o.plan && !c->o.ndtypes)
    report_summary(stdout, an, &c->ss);
  return emit_plan(c, r);
}

static int count_errors(const DiagSink *d) {
  int n = 0;
  for (int i = 0; i < d->n; i++) n += d->items[i]->sev == SEV_ERROR;
  return n;
}

/* Whether diagnostic g belongs to model mi of unit u: it lies between the
 * model's name and the next model's; what lies before the first model or
 * in another file (a target file) belongs to the first. */
static bool diag_in_model(const Diag *g, const Unit *u, int mi) {
  if (!u || u->nmodels <= 1) return true;
  const Model *ms = u->models;
  bool here = g->loc.file == ms[0].loc.file;
  int owner = 0;
  for (int i = 1; here && i < u->nmodels; i++)
    if (g->loc.start >= ms[i].loc.start) owner = i;
  return owner == mi;
}

/* "1 error [capacity]", "2 errors", or "" for none: a sweep row's errors
 * (after the policy) in model mi of u, each check named once. */
static const char *error_summary(Arena *a, const DiagSink *d, const Unit *u, int mi) {
  if (d->nerrors == 0) return "";
  StrBuf names = {0};
  int n = 0;
  for (int i = 0; i < d->n; i++) {
    const Diag *g = d->items[i];
    if (g->sev != SEV_ERROR || !diag_in_model(g, u, mi)) continue;
    n++;
    if (!g->check) continue;
    bool seen = false;
    for (int j = 0; j < i && !seen; j++)
      seen = d->items[j]->sev == SEV_ERROR && d->items[j]->check &&
             diag_in_model(d->items[j], u, mi) && strcmp(d->items[j]->check, g->check) == 0;
    if (!seen) sb_printf(&names, "%s%s", names.len ? ", " : "", g->check);
  }
  /* errors past the error limit are counted but not kept: the first row's */
  if (mi == 0) n += d->nerrors - (int)count_errors(d);
  const char *r = n == 0 ? ""
                         : arena_printf(a, "%d error%s%s%s%s", n, n == 1 ? "" : "s",
                                        names.len ? " [" : "", sb_str(&names),
                                        names.len ? "]" : "");
  sb_free(&names);
  return r;
}

/* --sweep: one row per value (per grid point of two --sweep), each from an
 * analysis of its own that is freed when its row is printed, so memory is
 * one analysis however many values (the first is kept: the directives'
 * text and the lets that overrides_named read are in it).  Every value runs
 * the checks; its errors are rendered, with the value in a note, and
 * summarised in its row; warnings are shown for the first value only. */
/* Where an error's --sweep note goes: the first swept let, where the file
 * defines it (an imported file's at the key it was written from), else
 * the error's own place. */
static Loc sweep_loc(const FileRun *r, const Options *o, Loc error) {
  const Unit *u = r->an ? r->an->unit : NULL;
  for (int i = 0; u && i < u->nlets; i++)
    if (strcmp(u->lets[i].name, o->sweeps[0].name) == 0) return u->lets[i].loc;
  return error;
}

static int sweep_file(Cli *c, FileRun *r) {
  const Options *o = &c->o;
  int status = 0;
  int64_t npoints = sweep_points(o);
  FileRun first = {0};
  SweepLayout layout = report_sweep_layout(r->an);
  const char *names[MAX_SWEEPS], *values[MAX_SWEEPS];
  for (int x = 0; x < o->nsweeps; x++) names[x] = o->sweeps[x].name;
  for (int64_t k = 0; k < npoints; k++) {
    if (k > 0) analyze_run(c, r, k, first.an); /* reuses what the first kept */
    Arena *scratch = arena_new();
    StrBuf at = {0};
    for (int x = 0; x < o->nsweeps; x++) {
      values[x] = o->sweeps[x].texts[sweep_index(o, k, x)];
      sb_printf(&at, "%s%s = %s", x ? ", " : "", names[x], values[x]);
    }
    diag_apply_policy(&r->diags, &c->ss, &o->policy);
    diag_sort(&r->diags);
    for (int i = 0; i < r->diags.n; i++)
      if (r->diags.items[i]->sev == SEV_ERROR)
        diag_note(r->diags.items[i], sweep_loc(r, o, r->diags.items[i]->loc),
                  "with %s from --sweep", sb_str(&at));
    sb_free(&at);
    flush_stdout(c);
    for (int i = 0; i < r->diags.n; i++)
      if (k == 0 || r->diags.items[i]->sev == SEV_ERROR)
        diag_render_one(r->diags.items[i], &c->ss, stderr, &c->ro);
    if (r->diags.limit_hit) { /* the "too many errors" line */
      DiagSink none = {.limit_hit = true};
      diag_render_text(&none, &c->ss, stderr, &c->ro);
    }
    if (r->diags.nerrors > 0) status = 1;
    /* one row per model of the file (R-CLI-009), named after the first
     * value's models, which are this value's too */
    const Unit *u = (k == 0 ? r->an : first.an) ? (k == 0 ? r->an : first.an)->unit : NULL;
    int nmodels = u && u->nmodels > 1 ? u->nmodels : 1;
    int model_w = nmodels > 1 ? 5 : 0; /* "model" */
    for (int mi = 0; nmodels > 1 && mi < nmodels; mi++) {
      int len = (int)strlen(u->models[mi].name);
      if (len > model_w) model_w = len;
    }
    if (k == 0 && c->sweep_page) /* R-HTML-008: the page, at the end */
      html_sweep_file(c->sweep_page, &c->ss, r->an, layout);
    else if (k == 0)
      report_sweep_header(stdout, layout, names, o->nsweeps, model_w);
    for (int mi = 0; mi < nmodels; mi++) {
      const char *errs =
          error_summary(scratch, &r->diags, r->an ? r->an->unit : NULL, mi);
      if (c->sweep_page)
        html_sweep_row(c->sweep_page, r->an, mi, layout, values, errs);
      else
        report_sweep_row(stdout, r->an, mi, layout, values, o->nsweeps,
                         model_w, nmodels > 1 ? u->models[mi].name : NULL, errs);
    }
    arena_free(scratch);
    if (k == 0) { /* the first value's run is freed by lint() */
      first = *r;
    } else {
      diag_sink_free(&r->diags);
      arena_free(r->arena);
    }
  }
  *r = first;
  return status;
}

static int finish_file(Cli *c, FileRun *r) {
  if (c->o.nsweeps) return sweep_file(c, r);
  int status = render_run(c, r, &c->o.policy);
  if (!c->o.verify && cli_format(c)->per_file && !cli_plot_to_stdout(&c->o)) {
    int s = cli_format(c)->per_file(c, r);
    if (s > status) status = s;
  }
  return status;
}

/* The whole-run writers take parallel arrays; NULL for an unread file. */
static void run_arrays(FileRun *runs, int n, Analysis **an,
                       const DiagSink **diags) {
  for (int i = 0; i < n; i++) {
    an[i] = runs[i].file >= 0 ? runs[i].an : NULL;
    diags[i] = runs[i].file >= 0 ? &runs[i].diags : NULL;
  }
}

/* A whole-run document written by json_write or html_write. */
typedef void (*RunDocFn)(FILE *out, Analysis *const *an,
                         const DiagSink *const *diags, int n, const SourceSet *ss);
static void emit_doc(Cli *c, FileRun *runs, int n, RunDocFn write) {
  Analysis **an = xcalloc((size_t)n + 1, sizeof *an);
  const DiagSink **diags = xcalloc((size_t)n + 1, sizeof *diags);
  run_arrays(runs, n, an, diags);
  write(stdout, an, diags, n, &c->ss);
  free(an);
  free((void *)diags);
}

static void emit_json(Cli *c, FileRun *runs, int n, int status) {
  (void)status;
  emit_doc(c, runs, n, json_write);
}

static void emit_html(Cli *c, FileRun *runs, int n, int status) {
  (void)status;
  if (c->sweep_page) { /* R-HTML-008 */
    html_sweep_write(stdout, c->sweep_page);
    html_sweep_free(c->sweep_page);
    c->sweep_page = NULL;
    return;
  }
  emit_doc(c, runs, n, html_write);
}

static void emit_sarif(Cli *c, FileRun *runs, int n, int status) {
  Analysis **an = xcalloc((size_t)n + 1, sizeof *an);
  const DiagSink **diags = xcalloc((size_t)n + 1, sizeof *diags);
  run_arrays(runs, n, an, diags);
  sarif_write(stdout, an, diags, n, &c->ss, status, c->o.sarif_help_base);
  free(an);
  free((void *)diags);
}

/* --plot FILE.svg, after the lint: an unwritable file is exit 2.  `--plot -`
 * is standard output, which the chart has to itself (validate). */
static int write_plot(Cli *c, FileRun *runs, int n) {
  bool to_stdout = cli_plot_to_stdout(&c->o);
  FILE *out = to_stdout ? stdout : fopen(c->o.plot, "w");
  if (!out) {
    cli_error(c, "cannot write '%s': %s", c->o.plot, strerror(errno));
    return 2;
  }
  Analysis **an = xcalloc((size_t)n + 1, sizeof *an);
  const DiagSink **diags = xcalloc((size_t)n + 1, sizeof *diags);
  run_arrays(runs, n, an, diags);
  int left_out;
  plot_write(out, an, n, &c->ss, &left_out);
  free(an);
  free((void *)diags);
  if (left_out > 0) { /* R-OUT-017 */
    diag_report(&c->errs, SEV_NOTE, NULL, LOC_NONE,
                "--plot draws the first %d models; %d more %s left out of "
                "the chart", PLOT_MAX_PANELS, left_out,
                left_out == 1 ? "is" : "are");
    cli_flush_errors(c);
  }
  /* Standard output's errors are main's (stdout_written). */
  if (!to_stdout && fclose(out) != 0) {
    cli_error(c, "cannot write '%s': %s", c->o.plot, strerror(errno));
    return 2;
  }
  return 0;
}

/* Piped or redirected, stdout gets a buffer sized by the input: big enough
 * that a big report takes few write calls, small enough that a small
 * model's run touches few pages of it.  A report is a few times its input,
 * so a sixteenth of the input (4 KiB to 256 KiB) makes tens of writes.  A
 * terminal keeps its line buffering.  Called before anything is written
 * to stdout. */
static void buffer_stdout(size_t input_bytes) {
  static _Alignas(4096) char outbuf[1 << 18];
  if (isatty(STDOUT_FILENO)) return;
  size_t n = (input_bytes / 16) & ~(size_t)4095;
  n = n < 4096 ? 4096 : n > sizeof outbuf ? sizeof outbuf : n;
  setvbuf(stdout, outbuf, _IOFBF, n);
}

/* What the importers (import.h) are told of the command line. */
static ImportOptions import_options(Cli *c) {
  ImportOptions io = {0};
  io.overrides = c->o.overrides;
  io.noverrides = c->o.noverrides;
  io.override_args = c->o.override_args;
  io.unknown_ops_custom = c->o.unknown_ops == UNKNOWN_OPS_CUSTOM;
  io.weights_as_inputs = c->o.weights_as_inputs;
  io.phase = c->o.phase;
  io.warnings = c->o.policy.no_warnings ? NULL : &c->errs;
  return io;
}

/* text: every file's bytes and line table (source.c), or what its
 * importer translated it to; one that cannot be read is reported and the
 * others go on (R-CLI-005).  Returns 0, 1 (a file an importer could not
 * translate) or 2 (one that could not be read). */
static int load_inputs(Cli *c, FileRun *runs, size_t *input_bytes) {
  int status = 0;
  ImportOptions io = import_options(c);
  for (int i = 0; i < c->o.nfiles; i++) {
    char *err = NULL;
    ImportStatus why;
    runs[i].file = import_load(&c->ss, c->o.files[i], &io, &err, &why);
    if (runs[i].file < 0) {
      cli_error(c, "%s", err);
      free(err);
      int s = why == IMPORT_INVALID ? 1 : 2;
      if (s > status) status = s;
      continue;
    }
    *input_bytes += src_file(&c->ss, runs[i].file)->len;
  }
  return status;
}

/* The pipeline on one screen: every stage of a lint, in order, and the
 * modules that own it.
 *
 *   text         load_inputs                  source.c
 *   tokens       pulled by the parser         grammar/lexer.l
 *   tree         analyze_file: parse          grammar/parser.y, parse.c, ast.c
 *   graph                      sema           sema.c, ops.c, dtype.c
 *   cost                       cost_models    cost.c, target.c
 *   checks                     run_checks     checks.c, checks/
 *   diagnostics  finish_file: render_run      diag.c
 *   output       finish_file: emit_text,      report.c, plan.c,
 *                or one whole-run document    json.c, sarif.c, plot.c
 *
 * Every file goes through the stages up to its checks before any is
 * rendered, because a -D or -t name may be found in any of them
 * (overrides_named, targets_named). */
static int lint(Cli *c) {
  int n = c->o.nfiles;
  size_t input_bytes = 0;
  FileRun *runs = xcalloc((size_t)n, sizeof *runs);
  int status = load_inputs(c, runs, &input_bytes);          /* text */
  for (int i = 0; i < n; i++)
    if (runs[i].file >= 0) analyze_run(c, &runs[i], 0, NULL); /* tokens .. checks */
  buffer_stdout(input_bytes);
  bool named = overrides_named(c, runs, n);
  named = targets_named(c, runs, n) && named;
  cli_flush_errors(c);
  if (c->o.nsweeps && cli_format(c)->whole_run == emit_html) {
    const char **axes = arena_alloc(c->arena, (size_t)c->o.nsweeps * sizeof *axes);
    for (int x = 0; x < c->o.nsweeps; x++) axes[x] = c->o.sweeps[x].name;
    c->sweep_page = html_sweep_new(axes, c->o.nsweeps);
  }
  for (int i = 0; i < n && named; i++) {
    if (runs[i].file < 0) continue;
    int s = finish_file(c, &runs[i]); /* diagnostics, then output */
    if (s > status) status = s;
    /* Written: free it, unless the chart or a whole-run document needs it
     * (memory is one file's analysis, not every file's). */
    if (!c->o.plot && !cli_format(c)->whole_run) {
      diag_sink_free(&runs[i].diags);
      arena_free(runs[i].arena);
      runs[i].arena = NULL;
      runs[i].an = NULL;
    }
  }
  if (named && c->o.plot && write_plot(c, runs, n) > status) status = 2;
  if (named && cli_format(c)->whole_run)             /* JSON, SARIF */
    cli_format(c)->whole_run(c, runs, n, status);
  for (int i = 0; i < n; i++)
    if (runs[i].file >= 0) {
      diag_sink_free(&runs[i].diags);
      arena_free(runs[i].arena);
    }
  free(runs);
  html_sweep_free(c->sweep_page); /* unwritten: a name was not found */
  c->sweep_page = NULL;
  return named ? status : 2;
}

/* ---------------------------------------------------------- the rest */

/* R-CLI-013: --explain CHECK, or the registry's list (--explain alone or
 * `all`, --list-checks): one line per check, its name, default severity
 * and summary. */
static int explain(Cli *c) {
  const CheckDesc *d = check_lookup(c->o.explain);
  if (!d && strcmp(c->o.explain, "all") == 0) {
    int n, w = 0;
    const CheckDesc *const *reg = check_registry(&n);
    for (int i = 0; i < n; i++)
      if ((int)strlen(reg[i]->name) > w) w = (int)strlen(reg[i]->name);
    printf("checks (rooflint --explain CHECK for one):\n");
    for (int i = 0; i < n; i++)
      printf("  %-*s  %-7s  %s%s\n", w, reg[i]->name,
             severity_str(reg[i]->severity), reg[i]->summary,
             reg[i]->default_on ? "" : " (off by default)");
    return 0;
  }
  if (!d) {
    int n;
    const CheckDesc *const *reg = check_registry(&n);
    const char **names = arena_alloc(c->arena, (size_t)(n + 1) * sizeof *names);
    for (int i = 0; i < n; i++) names[i] = reg[i]->name;
    cli_error(c, "unknown check '%s'%s", c->o.explain,
              cli_did_you_mean(c, c->o.explain, names));
    return 2;
  }
  printf("%s (%s, %s by default): %s\n\n%s", d->name, severity_str(d->severity),
         d->default_on ? "on" : "off", d->summary, d->explain);
  size_t len = strlen(d->explain);
  if (len == 0 || d->explain[len - 1] != '\n') putchar('\n');
  return 0;
}

static int run_diff(Cli *c, DiagSink *diags) {
  const FormatDesc *f = cli_format(c);
  ImportOptions io = import_options(c);
  DiffOptions d = {bindings_for(c, c->arena, 0), c->o.targets, c->o.ntargets,
                   &c->o.policy, f->diff == DIFF_JSON, c->o.has_fail,
                   c->o.fail_pct, &io, f->diff == DIFF_HTML};
  if (c->o.nfiles != 2) {
    cli_error(c, "'rooflint diff' takes two files (OLD NEW), got %d",
              c->o.nfiles);
    return 2;
  }
  if (f->diff == DIFF_NO) {
    const char *can[NFORMATS + 1];
    int k = 0;
    for (int i = 0; i < NFORMATS; i++)
      if (formats[i].diff != DIFF_NO) can[k++] = formats[i].name;
    can[k] = NULL;
    cli_error(c, "'rooflint diff' writes --format %s, not %s",
              cli_join_names(c, can, NULL), f->name);
    return 2;
  }
  return diff_cmd(stdout, c->arena, &c->ss, c->o.files[0], c->o.files[1], &d,
                  diags);
}

/* The importer's own findings (the lets it made, ops it imported as
 * custom()), on standard error as a lint would name them: the origin of
 * their line, or its number in the text written; -w drops them. */
static void import_findings(Cli *c, const char *path, const Imported *im) {
  for (size_t i = 0; i < im->ndiags; i++) {
    const ImportDiag *d = &im->diags[i];
    if (c->o.policy.no_warnings && d->sev != SEV_ERROR) continue;
    StrBuf where = {0};
    import_where(path, im, d, &where);
    diag_put_text(stderr, sb_str(&where));
    sb_free(&where);
    fprintf(stderr, ": %s: ", severity_str((Severity)d->sev));
    diag_put_text(stderr, d->msg); /* what the file said, escaped (R-CLI-016) */
    fputc('\n', stderr);
  }
}

/* `rooflint import FILE [-o OUT]`: the .roof text an importer makes of
 * FILE, written where the lint would have read it from. */
static int run_import(Cli *c, DiagSink *diags) {
  (void)diags;
  if (c->o.nfiles != 1) {
    cli_error(c, "'rooflint import' takes one file, got %d", c->o.nfiles);
    return 2;
  }
  const char *path = c->o.files[0];
  const Importer *imp = importer_for(path);
  if (!imp) {
    const char *names[64];
    int k = 0;
    for (const Importer *i = importer_table; i->name && k < 63; i++)
      names[k++] = i->describes;
    names[k] = NULL;
    cli_error(c, "'%s' is not a format rooflint imports (it reads %s)", path,
              k ? cli_join_names(c, names, NULL) : "no other format yet");
    return 2;
  }
  ImportOptions io = import_options(c);
  Imported im = {0};
  ImportStatus s = imp->translate(path, &io, &im);
  int status = 0;
  if (s != IMPORT_OK) {
    cli_error(c, "%s", im.error ? im.error : "cannot import the file");
    status = s == IMPORT_INVALID ? 1 : 2;
  } else if (!c->o.output || strcmp(c->o.output, "-") == 0) {
    import_findings(c, path, &im);
    fwrite(im.text, 1, im.len, stdout);
  } else {
    import_findings(c, path, &im);
    FILE *out = fopen(c->o.output, "wb");
    if (!out || fwrite(im.text, 1, im.len, out) != im.len ||
        fclose(out) != 0) {
      cli_error(c, "cannot write '%s': %s", c->o.output, strerror(errno));
      status = 2;
    }
  }
  free(im.text);
  for (size_t i = 0; i < im.norigins; i++) free(im.origins[i]);
  free(im.origins);
  for (size_t i = 0; i < im.ndiags; i++) {
    free(im.diags[i].msg);
    free(im.diags[i].origin);
  }
  free(im.diags);
  free(im.original);
  free(im.error);
  return status;
}

static int run_targets(Cli *c, DiagSink *diags) {
  return report_targets_cmd(stdout, c->arena, &c->ss, c->o.files, c->o.nfiles,
                            diags);
}

static int run_target(Cli *c, DiagSink *diags) {
  if (c->o.nfiles != 1) {
    cli_error(c, "'rooflint target' takes one target name, got %d",
              c->o.nfiles);
    return 2;
  }
  return report_target_card(stdout, c->arena, &c->ss, c->o.files[0], diags);
}

static int run_lsp(Cli *c, DiagSink *diags) {
  (void)diags;
  if (c->o.nfiles > 0) {
    cli_error(c, "'rooflint lsp' takes no files: its client opens them");
    return 2;
  }
  return lsp_serve(STDIN_FILENO, STDOUT_FILENO);
}

static int run_calibrate(Cli *c, DiagSink *diags) {
  if (c->o.nfiles > 0) {
    cli_error(c, "'rooflint calibrate' takes no files: it measures this "
                 "machine");
    return 2;
  }
  CalibrateOptions o = {
      .device = c->o.device >= 0 ? (CalibrateDevice)c->o.device : CAL_DEVICE_AUTO,
      .seconds = c->o.seconds > 0 ? c->o.seconds : CAL_DEFAULT_SECONDS,
      .output = c->o.output,
  };
  return calibrate_run(&o, c->arena, &c->ss, diags, stdout);
}

static int subcommand(Cli *c) {
  DiagSink diags;
  diag_sink_init(&diags);
  int status = c->o.subcommand->run(c, &diags);
  flush_stdout(c);
  diag_sort(&diags);
  diag_render_text(&diags, &c->ss, stderr, &c->ro);
  diag_sink_free(&diags);
  return status;
}

/* R-CLI-011: output that did not reach standard output (a full disk, a
 * closed pipe reader, /dev/full) is exit 2, never a silent success: a CI
 * step would otherwise upload an empty report after a green run.  Called
 * once, after the last write to it. */
static bool stdout_written(Cli *c) {
  flush_stdout(c);
  bool failed = ferror(stdout) || c->stdout_errno;
  if (fclose(stdout) != 0 && !failed) {
    failed = true;
    c->stdout_errno = errno;
  }
  int err = c->stdout_errno;
  if (failed)
    cli_error(c, "cannot write to standard output%s%s", err ? ": " : "",
              err ? strerror(err) : "");
  return !failed;
}

static int dispatch(Cli *c) {
  if (!c->o.subcommand && !c->o.help && !c->o.version && !c->o.explain)
    return lint(c);
  /* diff reads two models (there, so the larger buffer); the rest is a
   * screenful. */
  buffer_stdout(c->o.subcommand ? SIZE_MAX : 0);
  if (c->o.help) {
    cli_usage(c, c->o.subcommand, stdout);
    return 0;
  }
  if (c->o.version) {
    printf("rooflint %s\n", ROOFLINT_VERSION);
    return 0;
  }
  if (c->o.explain) return explain(c);
  return subcommand(c);
}

int main(int argc, char **argv) {
  /* stderr is unbuffered by default: a diagnostic on a megabyte-long line
   * would cost one write per caret column.  Fully buffered, flushed at exit
   * (and stdout output is complete before we return either way). */
  static char errbuf[1 << 16];
  setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
  Cli c;
  cli_init(&c, &tables);
  cli_parse(&c, argc, argv);
  cli_setup_color(&c);
  int status = cli_validate(&c);
  if (status == 0) status = dispatch(&c);
  if (!stdout_written(&c)) status = 2;
  cli_flush_errors(&c);
  cli_free(&c);
  return status;
}
