/* SPDX-License-Identifier: MIT */
/*
 * analyze.c: one file through the analysis: parse (tokens -> tree), sema
 * (tree -> graph), target resolution, cost on every target, checks on the
 * first.  main.c's lint() shows the pipeline around it.  Each stage runs
 * only when the stages before it reported no error, so later stages never
 * see a half-built graph.  The result is a pure function of (file text,
 * bindings, targets): --sweep and the crossover search call it again.
 */
#include <stdlib.h>

#include "arena.h"
#include "import/import.h"

#include <string.h>

#define DEFAULT_TARGET "h100_sxm"

/* The number of targets a file is costed on, and the name of the i-th: the
 * --target list, else the file's `target NAME`, else the default. */
static int ntargets_of(const AnalyzeOptions *opts) {
  return opts->ntargets > 0 ? opts->ntargets : 1;
}
static const char *target_name_of(const Unit *u, const AnalyzeOptions *opts,
                                  int i) {
  return opts->ntargets > 0 ? opts->targets[i]
         : u->target_name   ? u->target_name
                            : DEFAULT_TARGET;
}

static bool resolve_targets(Arena *a, SourceSet *ss, Analysis *an,
                            const Unit *u, const AnalyzeOptions *opts,
                            DiagSink *diags) {
  int n = ntargets_of(opts);
  const Target **ts = arena_alloc(a, (size_t)n * sizeof *ts);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    const char *name = target_name_of(u, opts, i);
    Loc where = opts->ntargets == 0 && u->target_name ? u->target_loc : LOC_NONE;
    ts[i] = target_resolve(a, ss, name, u, where, diags);
    if (ts[i]) ts[i] = target_ceilings(a, ts[i], opts->ceilings);
    ok = ok && ts[i];
  }
  if (!ok) return false;
  an->targets = ts;
  an->ntargets = n;
  return true;
}

/* cost: every model on every target; then the tree's pages that the cost
 * did not take go back to the kernel. */
static void cost_models(Arena *a, Analysis *an) {
  const Unit *u = an->unit;
  int nt = an->ntargets;
  an->costs = arena_alloc(a, (size_t)(u->nmodels * nt + 1) * sizeof *an->costs);
  for (int m = 0; m < u->nmodels; m++)
    for (int t = 0; t < nt; t++)
      an->costs[m * nt + t] = cost_model(a, &u->models[m], an->targets[t]);
  arena_drop_spares(a);
}

/* CheckCtx.reimport: the importer writes the text again with `add` among
 * the -D values, into a source set of its own, and that text goes through
 * sema and cost with the same bindings plus `add` (nadd of them).  Only figures are read
 * from the result (its locations are in the freed source set). */
static const ModelCost *reimport_model(const CheckCtx *ctx, Arena *a,
                                       const LetOverride *add, int nadd,
                                       const Target *t) {
  const ImportOptions *io = ctx->import;
  const SourceFile *f = src_file(ctx->sources, ctx->model->file);
  if (!io || !f || !f->imported) return NULL;
  LetOverride *ov = xmalloc(((size_t)io->noverrides + (size_t)nadd + 1) * sizeof *ov);
  /* the text of each -D beside it (an importer's own word, R-HF-017);
   * an added one is a number, with no text */
  const char **args = xcalloc((size_t)io->noverrides + (size_t)nadd + 1, sizeof *args);
  Bindings *b = ctx->bindings;
  int n = 0;
  for (int i = 0; i < io->noverrides; i++) {
    bool replaced = false;
    for (int k = 0; k < nadd; k++)
      replaced = replaced || strcmp(io->overrides[i].name, add[k].name) == 0;
    if (replaced) continue;
    args[n] = io->override_args ? io->override_args[i] : NULL;
    ov[n++] = io->overrides[i];
  }
  for (int k = 0; k < nadd; k++) {
    ov[n++] = add[k];
    b = bindings_with(a, b, &add[k]);
  }
  ImportOptions o = *io;
  o.overrides = ov;
  o.override_args = args;
  o.noverrides = n;
  o.warnings = NULL; /* said once, by the first import */
  SourceSet ss;
  src_init(&ss);
  char *err = NULL;
  ImportStatus why;
  int file = import_load(&ss, f->name, &o, &err, &why);
  const ModelCost *c = NULL;
  DiagSink sink;
  diag_sink_init(&sink);
  Program *p = file < 0 ? NULL
               : parse_file_opts(a, &ss, file, &sink, &(ParseOptions){.names = a});
  int mi = (int)(ctx->model - ctx->unit->models);
  if (p && sink.nerrors == 0) {
    Unit *u = sema_analyze(a, p, b, &sink);
    if (u && sink.nerrors == 0 && mi < u->nmodels)
      c = cost_model(a, &u->models[mi], t);
  }
  diag_sink_free(&sink);
  free(err);
  free(ov);
  free(args);
  src_free(&ss);
  return c;
}

static void checks_on(Arena *a, SourceSet *ss, Analysis *an, Bindings *bindings,
                      const DiagPolicy *policy, const ImportOptions *import,
                      DiagSink *diags) {
  const Unit *u = an->unit;
  const SourceFile *f = src_file(ss, an->file);
  bool imported = import && f && f->imported;
  int nreg;
  const CheckDesc *const *reg = check_registry(&nreg);
  for (int m = 0; u && m < u->nmodels; m++) {
    CheckCtx ctx = {
        .arena = a,
        .sources = ss,
        .tree = &an->tree,
        .unit = u,
        .model = &u->models[m],
        .cost = an->costs[m * an->ntargets],
        .target = an->targets[0],
        .bindings = bindings,
        .diags = diags,
        .policy = policy,
        .reimport = imported ? reimport_model : NULL,
        .import = imported ? import : NULL,
    };
    checks_run(&ctx);
    if (an->serving) {
      Serving *sv = arena_alloc(a, sizeof *sv);
      if (checks_serving(&ctx, sv)) an->serving[m] = sv;
    }
    for (int t = 1; t < an->ntargets; t++) {
      ctx.cost = an->costs[m * an->ntargets + t];
      ctx.target = an->targets[t];
      ctx.shared = NULL;
      for (int i = 0; i < nreg; i++)
        if (reg[i]->every_target) reg[i]->run(&ctx);
    }
  }
}

void analyze_checks(Arena *a, SourceSet *ss, Analysis *an, Bindings *bindings,
                    const DiagPolicy *policy, DiagSink *diags) {
  checks_on(a, ss, an, bindings, policy, NULL, diags);
}

/* Whether `start` was seen before, adding it to the set (open addressing
 * over 2^k slots, more than twice the entries; slot value start + 1, 0 is
 * empty): linear in the suppressions, however many there are. */
static bool seen_before(uint64_t *slot, size_t mask, uint32_t start) {
  size_t h = (size_t)((start * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  while (slot[h] != 0 && slot[h] != (uint64_t)start + 1) h = (h + 1) & mask;
  if (slot[h] != 0) return true;
  slot[h] = (uint64_t)start + 1;
  return false;
}

/* R-SUP-003: a suppression naming no check is a typo that would silently
 * suppress nothing.  Quiet while the registry is empty (being built).
 * R-SUP-004: as many warnings as the error limit, then one note for the
 * rest. */
static void check_suppressions(Arena *a, const SourceSet *ss, int file,
                               DiagSink *diags) {
  int n;
  const CheckDesc *const *reg = check_registry(&n);
  const SourceFile *f = src_file(ss, file);
  if (n == 0 || !f || f->nsuppressions == 0) return;
  const char **names = arena_alloc(a, (size_t)(n + 1) * sizeof *names);
  for (int i = 0; i < n; i++) names[i] = reg[i]->name;
  size_t cap = 16;
  while (cap < 2 * (size_t)f->nsuppressions) cap *= 2;
  uint64_t *slot = xcalloc(cap, sizeof *slot);
  int shown = 0, more = 0;
  Diag *last = NULL;
  for (int i = 0; i < f->nsuppressions; i++) {
    const Suppression *s = &f->suppressions[i];
    if (check_lookup(s->check)) continue;
    /* a file parsed again (--sweep) repeats its list */
    if (seen_before(slot, cap - 1, s->loc.start)) continue;
    if (diags->error_limit > 0 && shown >= diags->error_limit) {
      more++;
      continue;
    }
    shown++;
    const char *best = util_suggest(s->check, names);
    Diag *d = diag_report(diags, SEV_WARNING, NULL, s->loc,
                          "unknown check '%s' in suppression%s%s%s", s->check,
                          best ? "; did you mean '" : "", best ? best : "",
                          best ? "'?" : "");
    if (best) diag_fixit(d, s->loc, best);
    last = d;
  }
  free(slot);
  if (more > 0)
    diag_note(last, LOC_NONE,
              "%d more suppression%s in this file name%s an unknown check "
              "(--error-limit N shows more)",
              more, more == 1 ? "" : "s", more == 1 ? "s" : "");
}

/* An imported file's own findings (import.h), each at the start of its
 * line, so they carry the line's origin like any other diagnostic. */
static void report_import_diags(const SourceSet *ss, int file,
                                DiagSink *diags) {
  const SourceFile *f = src_file(ss, file);
  for (size_t i = 0; f && i < f->nimport_diags; i++) {
    const ImportDiag *d = &f->import_diags[i];
    Loc at = LOC_NONE;
    if (d->line >= 1 && (size_t)d->line <= f->nlines) {
      uint32_t start = f->line_starts[d->line - 1];
      size_t len;
      src_line_text(f, d->line, &len);
      while (len > 0 && f->text[start] == ' ') start++, len--;
      at = (Loc){file, start, start + (uint32_t)len};
    } else if (d->origin) { /* R-DIAG-001: placed by its own origin */
      at = (Loc){file, 0, 0};
    }
    Diag *g = diag_report(diags, (Severity)d->sev, NULL, at, "%s", d->msg);
    if (!d->line) g->origin = d->origin;
  }
}

/* R-TGT-009: every `target NAME { }` of the file is checked, used or not
 * (pre-commit lints a target file on its own).  One that is used was
 * checked when it was resolved; it is not checked twice. */
static void check_target_defs(Arena *a, const Unit *u, bool resolved,
                              const AnalyzeOptions *opts, DiagSink *diags) {
  for (int i = 0; i < u->ntarget_defs; i++) {
    const Stmt *def = u->target_defs[i];
    bool used = false;
    for (int t = 0; resolved && t < ntargets_of(opts) && !used; t++)
      used = strcmp(target_name_of(u, opts, t), def->def.name.name) == 0;
    if (!used) target_from_def(a, def, diags);
  }
}

/* The tree an earlier analysis of the file kept for this one (reanalyse),
 * read instead of parsing the text again; NULL when there is none or it
 * has syntax errors, which a parse reports again for this analysis. */
static const Program *reused_tree(const AnalyzeOptions *opts) {
  const Program *p = opts->earlier ? opts->earlier->tree.program : NULL;
  return p && p->nsyntax_errors == 0 ? p : NULL;
}

/* Why a lint does not keep its tree: a big model's tree and its graph are
 * the two biggest things a run makes, and both whole at once exceed the
 * bench's bytes-per-op goal.  So unless the caller reads it (keep_tree),
 * analyses the text again (reanalyse) or has one reused, the tree is
 * parsed into a scratch arena that sema consumes as it builds the graph
 * and that ends right after, its pages left to the analysis's arena for
 * the cost's per-node arrays.  Whoever needs statements later (a fix-it
 * that moves them, the crossover search) has the file parsed again
 * (parse_again), at most once. */
static Arena *tree_arena(Arena *a, const AnalyzeOptions *opts) {
  bool kept = opts->keep_tree || opts->reanalyse || reused_tree(opts);
  return kept ? a : arena_new();
}

/* tokens -> tree: the tree reused, or the file parsed into `tree`, what
 * outlives the tree (names, strings, directives) into `a`.  A file
 * analysed before in this run (earlier) has its directives recorded and
 * its suppressions and importer findings reported already. */
static Program *parse_stage(Arena *a, Arena *tree, SourceSet *ss, int file,
                            const AnalyzeOptions *opts, DiagSink *diags) {
  bool again = opts->earlier != NULL;
  ParseOptions po = {.names = a, .skip_directives = again};
  const Program *reused = reused_tree(opts);
  Program *p = reused ? (Program *)reused
                      : parse_file_opts(tree, ss, file, diags, &po);
  if (!again) {
    check_suppressions(a, ss, file, diags);
    report_import_diags(ss, file, diags);
  }
  return p;
}

/* tree -> graph, and the targets it is costed on; sema releases what it
 * has read of a tree in a scratch arena (tree_arena). */
static void graph_stage(Arena *a, SourceSet *ss, Analysis *an,
                        const Program *p, Arena *tree,
                        const AnalyzeOptions *opts, DiagSink *diags) {
  Bindings *b = opts->bindings;
  if (!b) b = arena_alloc(a, sizeof *b);
  int errors = diags->nerrors;
  Unit *u = sema_analyze_consuming(a, p, tree == a ? NULL : tree, b, diags);
  /* Contract: a non-NULL unit comes with at least one target. */
  bool resolved = u && diags->nerrors == errors;
  if (resolved && resolve_targets(a, ss, an, u, opts, diags)) an->unit = u;
  if (u) check_target_defs(a, u, resolved, opts, diags);
}

/* After sema: the tree stays in the analysis, or its scratch arena ends
 * (with the `target NAME { }` statements the unit pointed at); either way
 * the analysis can have it again (an->tree, parse_again). */
static void tree_end(Arena *a, Arena *tree, SourceSet *ss, Analysis *an,
                     Program *p) {
  bool kept = tree == a;
  an->tree = (ProgramSource){ss, an->file, a, kept ? p : NULL};
  if (kept) return;
  if (an->unit) {
    an->unit->target_defs = NULL;
    an->unit->ntarget_defs = 0;
  }
  arena_scratch_end(tree, a);
}

/* tokens -> tree -> graph -> cost -> checks for one file (main.c's lint()
 * shows the whole pipeline). */
Analysis *analyze_file(Arena *a, SourceSet *ss, int file,
                       const AnalyzeOptions *opts, DiagSink *diags) {
  Analysis *an = arena_alloc(a, sizeof *an);
  an->file = file;
  Arena *tree = tree_arena(a, opts);
  Program *p = parse_stage(a, tree, ss, file, opts, diags);   /* -> tree */
  if (p->nsyntax_errors == 0)                                  /* -> graph */
    graph_stage(a, ss, an, p, tree, opts, diags);
  tree_end(a, tree, ss, an, p);
  if (!an->unit) return an;
  cost_models(a, an);                                          /* -> cost */
  if (opts->run_checks && opts->serving)
    an->serving = arena_alloc(a, ((size_t)an->unit->nmodels + 1) * sizeof *an->serving);
  if (opts->run_checks)                                        /* -> checks */
    checks_on(a, ss, an, opts->bindings, opts->policy, opts->import, diags);
  return an;
}
