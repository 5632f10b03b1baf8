/* SPDX-License-Identifier: MIT */
/*
 * main.c: the command line and the visible pipeline.  Options are parsed by
 * hand from one table (name, alias, value, handler, help line), so --help is
 * generated from the same rows that are matched.  Command-line problems are
 * recorded as location-less diagnostics and rendered like any other, then
 * the run exits 2.  Linting goes in three phases: load and analyse every
 * file, check that every -D/--sweep name is a let somewhere (a typo there
 * would silently change nothing), then per file: policy, sort, render to
 * stderr, and the summary or report to stdout when the file had no errors.
 * R-CLI rules are cited where they are implemented.
 */
#include "rooflint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct Cli Cli;
typedef struct FileRun FileRun;

/* One --format, written per file (text) or once for the whole run (JSON,
 * SARIF: one document).  A row with neither is "not available yet".
 * Adding a format is one row in `formats`. */
typedef int (*EmitFileFn)(Cli *c, FileRun *r);
typedef void (*EmitRunFn)(Cli *c, FileRun *runs, int n, int status);
typedef struct FormatDesc {
  const char *name;
  EmitFileFn per_file;
  EmitRunFn whole_run;
} FormatDesc;

typedef struct Options {
  const char **files; /* "-" = standard input */
  int nfiles;
  const char **targets;
  int ntargets;
  LetOverride *overrides; /* -D, last one per name wins */
  const char **override_args; /* the -D text, for messages */
  int noverrides;
  DiagPolicy policy;
  bool report, verify, help, version;
  const FormatDesc *format;
  const char *plot, *explain, *dump, *subcommand;
  const char *sweep_name;
  const char **sweep_texts; /* values as written */
  LetValue *sweep_values;
  int nsweep;
  ColorMode color;
  int error_limit; /* -1: the default */
  bool plan;            /* --plan (plan.c) */
  DType *dtypes;        /* --dtype what-if plans (arena) */
  int ndtypes;
  double fail_pct;      /* diff --fail-on-regression PCT */
  bool has_fail;
} Options;

struct Cli {
  Options o;
  Arena *arena;
  SourceSet ss;
  DiagSink errs; /* command-line errors (no location) */
  RenderOptions ro;
};

struct FileRun {
  int file; /* -1: could not be loaded */
  DiagSink diags;
  Analysis *an;
};

static void cli_error(Cli *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void cli_error(Cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vreport(&c->errs, SEV_ERROR, NULL, LOC_NONE, fmt, ap);
  va_end(ap);
}

/* Renders the command-line errors so far and forgets them. */
static void flush_errors(Cli *c) {
  diag_render_text(&c->errs, &c->ss, stderr, &c->ro);
  diag_sink_free(&c->errs);
  diag_sink_init(&c->errs);
  c->errs.error_limit = 0;
}

/* Appends to a small array of pointers (the lists here hold a handful). */
static void push(const char ***list, int *n, const char *s) {
  *list = xrealloc((void *)*list, (size_t)(*n + 1) * sizeof **list);
  (*list)[(*n)++] = s;
}

/* "; did you mean 'x'?" or "". */
static const char *did_you_mean(Cli *c, const char *word,
                                 const char *const *candidates) {
  const char *s = util_suggest(word, candidates);
  return s ? arena_printf(c->arena, "; did you mean '%s'?", s) : "";
}

/* ------------------------------------------------------------- values */

/* R-CLI-003: an integer (digits, `_` between digits, optional sign) or a
 * real; nothing else. */
static bool parse_number(const char *s, LetValue *v) {
  const char *p = s + (*s == '-' || *s == '+');
  bool is_int = *p != '\0', overflow = false;
  int64_t acc = 0;
  for (const char *q = p; *q && is_int; q++) {
    if (*q == '_' && q > p && q[-1] != '_' && q[1] >= '0' && q[1] <= '9')
      continue;
    if (*q < '0' || *q > '9')
      is_int = false;
    else if (!util_mul_i64(acc, 10, &acc) || !util_add_i64(acc, *q - '0', &acc))
      overflow = true;
  }
  if (is_int && overflow) return false; /* never a silent wrap or rounding */
  if (is_int) {
    *v = (LetValue){.is_real = false, .i = *s == '-' ? -acc : acc};
    return true;
  }
  if (*p == '\0' || strspn(p, "0123456789.eE+-") != strlen(p)) return false;
  char *end;
  double r = strtod(s, &end);
  if (*end != '\0' || !isfinite(r)) return false;
  *v = (LetValue){.is_real = true, .r = r};
  return true;
}

static bool is_identifier(const char *s, size_t n) {
  if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') ||
                  (s[0] >= 'a' && s[0] <= 'z')))
    return false;
  for (size_t i = 1; i < n; i++)
    if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
          (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
      return false;
  return true;
}

/* Splits "NAME=REST"; false (after an error) when it is not that shape. */
static bool split_assignment(Cli *c, const char *opt, const char *arg,
                             const char **name, const char **rest) {
  const char *eq = strchr(arg, '=');
  if (!eq || !is_identifier(arg, (size_t)(eq - arg))) {
    cli_error(c, "invalid argument '%s' to %s: expected NAME=VALUE", arg, opt);
    return false;
  }
  *name = arena_strndup(c->arena, arg, (size_t)(eq - arg));
  *rest = eq + 1;
  return true;
}

/* ------------------------------------------------------------ options */

static bool opt_target(Cli *c, const char *opt, const char *val) {
  /* R-CLI-002: repeatable, and each value may list several: a,b,c. */
  for (const char *p = val;;) {
    size_t n = strcspn(p, ",");
    if (n == 0) {
      cli_error(c, "invalid value '%s' for %s: empty target name", val, opt);
      return false;
    }
    push(&c->o.targets, &c->o.ntargets, arena_strndup(c->arena, p, n));
    if (p[n] == '\0') return true;
    p += n + 1;
  }
}

static bool opt_define(Cli *c, const char *opt, const char *val) {
  const char *name, *text;
  LetValue v;
  if (!split_assignment(c, opt, val, &name, &text)) return false;
  if (!parse_number(text, &v)) {
    cli_error(c, "invalid value '%s' for -D %s: expected a number", text,
              name);
    return false;
  }
  Options *o = &c->o;
  for (int i = 0; i < o->noverrides; i++) {
    if (strcmp(o->overrides[i].name, name) != 0) continue;
    o->overrides[i].value = v;
    o->override_args[i] = val;
    return true;
  }
  o->overrides =
      xrealloc(o->overrides, (size_t)(o->noverrides + 1) * sizeof *o->overrides);
  o->overrides[o->noverrides] = (LetOverride){name, v, false};
  int n = o->noverrides;
  push(&o->override_args, &n, val);
  o->noverrides++;
  return true;
}

static bool opt_sweep(Cli *c, const char *opt, const char *val) {
  const char *name, *list;
  if (!split_assignment(c, opt, val, &name, &list)) return false;
  Options *o = &c->o;
  o->sweep_name = name;
  o->nsweep = 0;
  for (const char *p = list;;) {
    size_t n = strcspn(p, ",");
    const char *text = arena_strndup(c->arena, p, n);
    LetValue v;
    if (!parse_number(text, &v)) {
      cli_error(c, "invalid value '%s' for %s %s: expected a number", text,
                opt, name);
      return false;
    }
    o->sweep_values = xrealloc(o->sweep_values,
                               (size_t)(o->nsweep + 1) * sizeof *o->sweep_values);
    o->sweep_values[o->nsweep] = v;
    int k = o->nsweep;
    push(&o->sweep_texts, &k, text);
    o->nsweep++;
    if (p[n] == '\0') return true;
    p += n + 1;
  }
}

static int emit_text(Cli *c, FileRun *r);
static void emit_json(Cli *c, FileRun *runs, int n, int status);
static void emit_sarif(Cli *c, FileRun *runs, int n, int status);

static const FormatDesc formats[] = {
    {"text", emit_text, NULL},
    {"json", NULL, emit_json},
    {"sarif", NULL, emit_sarif},
};
enum { NFORMATS = sizeof formats / sizeof *formats };

/* A value from a fixed list; `names` NULL-terminated.  Returns the index. */
static int pick(Cli *c, const char *opt, const char *val,
                const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], val) == 0) return i;
  StrBuf sb = {0};
  for (int i = 0; names[i]; i++)
    sb_printf(&sb, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ",
              names[i]);
  cli_error(c, "invalid value '%s' for %s: expected %s%s", val, opt,
            sb_str(&sb), did_you_mean(c, val, names));
  sb_free(&sb);
  return -1;
}

static bool opt_format(Cli *c, const char *opt, const char *val) {
  const char *names[NFORMATS + 1];
  for (int i = 0; i < NFORMATS; i++) names[i] = formats[i].name;
  names[NFORMATS] = NULL;
  int i = pick(c, opt, val, names);
  if (i >= 0) c->o.format = &formats[i];
  return i >= 0;
}

static bool opt_color(Cli *c, const char *opt, const char *val) {
  static const char *const names[] = {"auto", "always", "never", NULL};
  int i = pick(c, opt, val, names);
  if (i >= 0) c->o.color = (ColorMode)i;
  return i >= 0;
}

static bool opt_dump(Cli *c, const char *opt, const char *val) {
  static const char *const names[] = {"ast", "graph", NULL};
  int i = pick(c, opt, val, names);
  if (i >= 0) c->o.dump = names[i];
  return i >= 0;
}

static bool opt_error_limit(Cli *c, const char *opt, const char *val) {
  LetValue v;
  if (!parse_number(val, &v) || v.is_real || v.i < 0 || v.i > 1000000 ||
      strchr(val, '_')) {
    cli_error(c, "invalid value '%s' for %s: expected a non-negative integer",
              val, opt);
    return false;
  }
  c->o.error_limit = (int)v.i;
  return true;
}

/* The names a -W option may carry, each with its prefix, for suggestions. */
static const char **warning_spellings(Cli *c) {
  int n;
  const CheckDesc *const *reg = check_registry(&n);
  const char **names = arena_alloc(c->arena, (size_t)(2 * n + 3) * sizeof *names);
  int k = 0;
  names[k++] = "-Werror";
  names[k++] = "-Wno-error";
  for (int i = 0; i < n; i++) {
    names[k++] = arena_printf(c->arena, "-W%s", reg[i]->name);
    names[k++] = arena_printf(c->arena, "-Wno-%s", reg[i]->name);
  }
  names[k] = NULL;
  return names;
}

static void remove_name(const char **list, int *n, const char *name) {
  int k = 0;
  for (int i = 0; i < *n; i++)
    if (strcmp(list[i], name) != 0) list[k++] = list[i];
  *n = k;
}

/* -W CHECK, -WCHECK, -Wno-CHECK, -Werror, -Wno-error.  R-CLI-004: for one
 * check the last of -W/-Wno- wins; an unknown name is an error. */
static bool opt_warn(Cli *c, const char *opt, const char *val) {
  (void)opt;
  DiagPolicy *p = &c->o.policy;
  bool off = strncmp(val, "no-", 3) == 0;
  const char *name = off ? val + 3 : val;
  if (strcmp(name, "error") == 0) {
    p->werror = !off;
    return true;
  }
  const CheckDesc *d = check_lookup(name);
  if (!d) {
    const char *spelled = arena_printf(c->arena, "-W%s", val);
    cli_error(c, "unknown warning option '%s'%s", spelled,
              did_you_mean(c, spelled, warning_spellings(c)));
    return false;
  }
  remove_name(p->enabled, &p->nenabled, d->name);
  remove_name(p->disabled, &p->ndisabled, d->name);
  if (off)
    push(&p->disabled, &p->ndisabled, d->name);
  else
    push(&p->enabled, &p->nenabled, d->name);
  return true;
}

static bool opt_set_flag(Cli *c, const char *opt, const char *val) {
  (void)val;
  Options *o = &c->o;
  bool *flags[] = {&o->report, &o->verify, &o->help, &o->version,
                   &o->policy.no_warnings, &o->plan};
  static const char *const names[] = {"--report", "--verify", "--help",
                                      "--version", "-w", "--plan"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(opt, names[i]) == 0) *flags[i] = true;
  return true;
}

static bool opt_string(Cli *c, const char *opt, const char *val) {
  if (strcmp(opt, "--plot") == 0) c->o.plot = val;
  if (strcmp(opt, "--explain") == 0) c->o.explain = val ? val : "all";
  if (strcmp(opt, "--list-checks") == 0) c->o.explain = "all";
  return true;
}

/* --dtype DT[,DT...]: storage dtypes to try as the plan (plan.c). */
static bool opt_dtype(Cli *c, const char *opt, const char *val) {
  const char *err;
  if (!plan_parse_dtypes(c->arena, val, &c->o.dtypes, &c->o.ndtypes, &err)) {
    cli_error(c, "invalid value '%s' for %s: %s", val, opt, err);
    return false;
  }
  return true;
}

/* diff --fail-on-regression PCT: a non-negative percentage. */
static bool opt_fail(Cli *c, const char *opt, const char *val) {
  LetValue v;
  double pct = 0;
  bool ok = parse_number(val, &v);
  if (ok) pct = v.is_real ? v.r : (double)v.i;
  if (!ok || pct < 0) {
    cli_error(c, "invalid value '%s' for %s: expected a percentage >= 0", val,
              opt);
    return false;
  }
  c->o.fail_pct = pct;
  c->o.has_fail = true;
  return true;
}

typedef bool (*OptFn)(Cli *c, const char *opt, const char *val);

typedef struct OptDesc {
  const char *name;    /* "--target", "-D"; NULL: a help line only */
  const char *alias;   /* "-t", or NULL */
  const char *metavar; /* NULL: takes no value */
  OptFn apply;
  const char *usage;   /* left column of --help */
  const char *help;
} OptDesc;

static const OptDesc options[] = {
    {"--target", "-t", "NAME|FILE", opt_target, "-t, --target NAME|FILE",
     "target: a built-in name or a .roof file; repeatable, or a,b,c"},
    {"-D", NULL, "NAME=VALUE", opt_define, "-D NAME=VALUE",
     "override a let with a number"},
    {"--report", NULL, NULL, opt_set_flag, "--report",
     "print the per-node table and totals"},
    {"--format", NULL, "text|json|sarif", opt_format, "--format text|json|sarif",
     "output format on stdout (default text)"},
    {"--plot", NULL, "FILE.svg", opt_string, "--plot FILE.svg",
     "write the roofline chart"},
    {"--sweep", NULL, "NAME=V1,V2,...", opt_sweep, "--sweep NAME=V1,V2,...",
     "one summary row per value of a let"},
    {"--plan", NULL, NULL, opt_set_flag, "--plan",
     "print the dtype plan: compute by precision, footprint by dtype, nodes "
     "off the plan"},
    {"--dtype", NULL, "DT[,DT...]", opt_dtype, "--dtype DT[,DT...]",
     "what if the plan dtype were DT: totals side by side"},
    {"--fail-on-regression", NULL, "PCT", opt_fail, "--fail-on-regression PCT",
     "diff: exit 1 when a step-time bound grows by more than PCT%"},
    {"-W", NULL, "CHECK", opt_warn, "-W CHECK, -WCHECK",
     "enable a check (also one that is off by default)"},
    {NULL, NULL, NULL, NULL, "-Wno-CHECK", "disable a check"},
    {NULL, NULL, NULL, NULL, "-Werror", "turn warnings into errors"},
    {"-w", NULL, NULL, opt_set_flag, "-w", "drop all warnings and remarks"},
    {"--verify", NULL, NULL, opt_set_flag, "--verify",
     "check diagnostics against '# expect:' comments"},
    {"--color", NULL, "auto|always|never", opt_color,
     "--color auto|always|never", "colour diagnostics (auto honours NO_COLOR)"},
    {"--explain", NULL, "[CHECK]", opt_string, "--explain [CHECK]",
     "what a check means and how to fix it; alone or 'all': list the checks"},
    {"--list-checks", NULL, NULL, opt_string, "--list-checks",
     "list the checks with their one-line summaries"},
    {"--dump", NULL, "ast|graph", opt_dump, "--dump ast|graph",
     "print the syntax tree or the op graph instead of the summary"},
    {"--error-limit", NULL, "N", opt_error_limit, "--error-limit N",
     "stop keeping errors after N (default 20, 0 = no limit)"},
    {"--version", NULL, NULL, opt_set_flag, "--version", "print the version"},
    {"--help", "-h", NULL, opt_set_flag, "-h, --help", "print this help"},
};
enum { NOPTIONS = sizeof options / sizeof *options };

static void usage(FILE *out) {
  fputs("usage: rooflint [OPTIONS] FILE...     lint (FILE '-' = stdin)\n"
        "       rooflint targets [NAMES...]    list targets\n"
        "       rooflint target NAME           one target's card\n"
        "       rooflint diff OLD NEW          what changed (OLD or NEW '-' = stdin)\n"
        "\noptions:\n",
        out);
  for (int i = 0; i < NOPTIONS; i++)
    fprintf(out, "  %-28s %s\n", options[i].usage, options[i].help);
  fputs("\nexit status: 0 no errors, 1 errors (or warnings under -Werror), "
        "2 bad command line or unreadable file\n",
        out);
}

/* An option with its value attached: "-DB=4", "-tfoo", "-Wx", "--x=v". */
static const OptDesc *find_option(const char *arg, const char **inline_val) {
  *inline_val = NULL;
  for (int i = 0; i < NOPTIONS; i++) {
    const OptDesc *d = &options[i];
    for (const char *n = d->name; n; n = n == d->name ? d->alias : NULL) {
      size_t len = strlen(n);
      if (strncmp(arg, n, len) != 0) continue;
      if (arg[len] == '\0') return d;
      if (n[1] == '-' && arg[len] == '=') { /* --name=value */
        *inline_val = arg + len + 1;
        return d;
      }
      if (n[1] != '-' && d->metavar) { /* -Xvalue */
        *inline_val = arg + len;
        return d;
      }
    }
  }
  return NULL;
}

static void unknown_option(Cli *c, const char *arg) {
  const char *names[2 * NOPTIONS + 1];
  int k = 0;
  for (int i = 0; i < NOPTIONS; i++) {
    if (options[i].name) names[k++] = options[i].name;
    if (options[i].alias) names[k++] = options[i].alias;
  }
  names[k] = NULL;
  const char *word = arena_strndup(c->arena, arg, strcspn(arg, "="));
  /* One letter after '-' is too short to guess from. */
  cli_error(c, "unknown option '%s'%s", arg,
            strlen(word) > 2 ? did_you_mean(c, word, names) : "");
}

/* Returns the index of the next argument to look at. */
static int parse_one(Cli *c, int argc, char **argv, int i) {
  const char *arg = argv[i], *val;
  const OptDesc *d = find_option(arg, &val);
  if (!d) {
    unknown_option(c, arg);
    return i + 1;
  }
  if (!d->metavar && val) {
    cli_error(c, "option '%s' takes no value", d->name);
    return i + 1;
  }
  if (d->metavar && !val) {
    if (i + 1 >= argc && d->metavar[0] == '[') { /* an optional value */
      d->apply(c, d->name, NULL);
      return i + 1;
    }
    if (i + 1 >= argc) {
      cli_error(c, "missing value for '%s': expected %s", arg, d->metavar);
      return i + 1;
    }
    val = argv[++i];
  }
  d->apply(c, d->name, val);
  return i + 1;
}

/* R-CLI-001: options and files in any order; "--" ends the options; "-"
 * alone is standard input.  `targets`/`target` as the first word select
 * the subcommands. */
static void parse_args(Cli *c, int argc, char **argv) {
  int i = 1;
  if (argc > 1 && (strcmp(argv[1], "targets") == 0 ||
                   strcmp(argv[1], "target") == 0 ||
                   strcmp(argv[1], "diff") == 0))
    c->o.subcommand = argv[i++];
  bool options_done = false;
  while (i < argc) {
    const char *arg = argv[i];
    if (!options_done && strcmp(arg, "--") == 0) {
      options_done = true;
      i++;
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      i = parse_one(c, argc, argv, i);
    } else {
      push(&c->o.files, &c->o.nfiles, arg);
      i++;
    }
  }
}

/* ------------------------------------------------------------ linting */

static void collect_lets(const Block *b, const char ***names, int *n) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->items[i];
    switch (s->kind) {
    case ST_LET: push(names, n, s->let.name.name); break;
    case ST_MODEL:
    case ST_FUSED:
    case ST_TARGET_DEF:
    case ST_SECTION: collect_lets(&s->def.body, names, n); break;
    case ST_REPEAT:
    case ST_LOOP: collect_lets(&s->loop.body, names, n); break;
    default: break;
    }
  }
}

/* R-CLI-003: every -D (and the --sweep name) must name a let of some file;
 * sema marks the ones it used, the syntax tree covers files sema did not
 * reach. */
static bool overrides_named(Cli *c, FileRun *runs, int nruns) {
  const char **lets = NULL;
  int nlets = 0;
  for (int i = 0; i < nruns; i++)
    if (runs[i].an && runs[i].an->program) /* kept: analyze_run */
      collect_lets(&runs[i].an->program->top, &lets, &nlets);
  push(&lets, &nlets, NULL);
  bool ok = true;
  Options *o = &c->o;
  for (int i = 0; i <= o->noverrides; i++) {
    const char *name = i < o->noverrides ? o->overrides[i].name : o->sweep_name;
    if (!name || (i < o->noverrides && o->overrides[i].used)) continue;
    bool found = false;
    for (int k = 0; lets[k] && !found; k++) found = strcmp(lets[k], name) == 0;
    if (found) continue;
    cli_error(c, "%s %s: no let named '%s' in any file%s",
              i < o->noverrides ? "-D" : "--sweep",
              i < o->noverrides ? o->override_args[i] : name, name,
              did_you_mean(c, name, lets));
    ok = false;
  }
  free(lets);
  return ok;
}

/* The -D overrides plus, in a sweep, the swept let at value k. */
static Bindings *bindings_for(Cli *c, int k) {
  Options *o = &c->o;
  Bindings cli = {o->overrides, o->noverrides};
  if (!o->sweep_name) return bindings_with(c->arena, &cli, NULL);
  LetOverride swept = {o->sweep_name, o->sweep_values[k], false};
  return bindings_with(c->arena, &cli, &swept);
}

static void mark_used(Cli *c, const Bindings *b) {
  for (int i = 0; i < b->n; i++)
    for (int j = 0; j < c->o.noverrides; j++)
      if (b->overrides[i].used &&
          strcmp(b->overrides[i].name, c->o.overrides[j].name) == 0)
        c->o.overrides[j].used = true;
}

static void analyze_run(Cli *c, FileRun *r, int k) {
  diag_sink_init(&r->diags);
  /* --verify compares every error, so nothing may be dropped. */
  r->diags.error_limit = c->o.error_limit >= 0 ? c->o.error_limit
                         : c->o.verify        ? 0
                                              : DIAG_DEFAULT_ERROR_LIMIT;
  AnalyzeOptions ao = {
      .bindings = bindings_for(c, k),
      .targets = c->o.targets,
      .ntargets = c->o.ntargets,
      .run_checks = !c->o.dump && !c->o.sweep_name, /* a sweep is a table */
      .policy = &c->o.policy,
      /* --dump ast prints the tree; -D and --sweep look up lets in it
       * (overrides_named); --dtype analyses it again under other plans */
      .keep_program = (c->o.dump && strcmp(c->o.dump, "ast") == 0) ||
                      c->o.noverrides > 0 || c->o.sweep_name ||
                      c->o.ndtypes > 0,
  };
  r->an = analyze_file(c->arena, &c->ss, r->file, &ao, &r->diags);
  mark_used(c, ao.bindings);
}

/* Policy, order, render; returns the file's exit status (0 or 1). */
static int render_run(Cli *c, FileRun *r, const DiagPolicy *policy) {
  diag_apply_policy(&r->diags, &c->ss, policy);
  diag_sort(&r->diags);
  if (c->o.verify) return diag_verify(&r->diags, &c->ss, r->file, stderr) ? 1 : 0;
  fflush(stdout);
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
  int status = plan_whatif(stdout, c->arena, &c->ss, r->an, bindings_for(c, 0),
                           c->o.dtypes, c->o.ndtypes, &diags);
  fflush(stdout);
  diag_sort(&diags);
  diag_render_text(&diags, &c->ss, stderr, &c->ro);
  diag_sink_free(&diags);
  return status;
}

static int emit_text(Cli *c, FileRun *r) {
  const Analysis *an = r->an;
  if (c->o.dump && strcmp(c->o.dump, "ast") == 0)
    ast_dump(an->program, &c->ss, stdout);
  else if (c->o.dump && an->unit)
    graph_dump(an->unit, &c->ss, stdout);
  /* Language errors leave no costs; an error from a check (capacity, or a
   * warning under -Werror) still has a report worth reading. */
  else if (c->o.dump || !an->unit || !an->costs)
    return 0;
  else if (c->o.report)
    report_models(stdout, an, &c->ss);
  else if (!c->o.plan && !c->o.ndtypes)
    report_summary(stdout, an, &c->ss);
  return emit_plan(c, r);
}

static int finish_file(Cli *c, FileRun *r) {
  if (c->o.sweep_name) {
    bool header = false;
    int status = 0;
    for (int k = 0; k < c->o.nsweep; k++) {
      if (k > 0) {
        diag_sink_free(&r->diags);
        analyze_run(c, r, k);
      }
      for (int i = 0; i < r->diags.n; i++)
        if (r->diags.items[i]->sev == SEV_ERROR)
          diag_note(r->diags.items[i], LOC_NONE, "with %s = %s from --sweep",
                    c->o.sweep_name, c->o.sweep_texts[k]);
      /* Warnings repeat for every value: show them for the first only. */
      DiagPolicy quiet = c->o.policy;
      quiet.no_warnings = quiet.no_warnings || k > 0;
      int s = render_run(c, r, &quiet);
      if (s > status) status = s;
      if (s || !r->an->unit) continue;
      if (!header) report_sweep_header(stdout, r->an, c->o.sweep_name);
      header = true;
      report_sweep_row(stdout, r->an, c->o.sweep_name, c->o.sweep_texts[k]);
    }
    return status;
  }
  int status = render_run(c, r, &c->o.policy);
  if (!c->o.verify && c->o.format->per_file) {
    int s = c->o.format->per_file(c, r);
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

static void emit_json(Cli *c, FileRun *runs, int n, int status) {
  (void)status;
  Analysis **an = xcalloc((size_t)n + 1, sizeof *an);
  const DiagSink **diags = xcalloc((size_t)n + 1, sizeof *diags);
  run_arrays(runs, n, an, diags);
  json_write(stdout, an, diags, n, &c->ss);
  free(an);
  free((void *)diags);
}

static void emit_sarif(Cli *c, FileRun *runs, int n, int status) {
  Analysis **an = xcalloc((size_t)n + 1, sizeof *an);
  const DiagSink **diags = xcalloc((size_t)n + 1, sizeof *diags);
  run_arrays(runs, n, an, diags);
  sarif_write(stdout, an, diags, n, &c->ss, status);
  free(an);
  free((void *)diags);
}

/* --plot FILE.svg, after the lint: an unwritable file is exit 2. */
static int write_plot(Cli *c, FileRun *runs, int n) {
  FILE *out = fopen(c->o.plot, "w");
  if (!out) {
    cli_error(c, "cannot write '%s': %s", c->o.plot, strerror(errno));
    return 2;
  }
  Analysis **an = xcalloc((size_t)n + 1, sizeof *an);
  const DiagSink **diags = xcalloc((size_t)n + 1, sizeof *diags);
  run_arrays(runs, n, an, diags);
  plot_write(out, an, n, &c->ss);
  free(an);
  free((void *)diags);
  if (fclose(out) != 0) {
    cli_error(c, "cannot write '%s': %s", c->o.plot, strerror(errno));
    return 2;
  }
  return 0;
}

/* Piped or redirected, stdout gets a bigger buffer than stdio's 4 KiB: the
 * --report of a million-op model is 175 MB, and 4 KiB writes made 43,000
 * system calls of it.  But each page of the buffer that is written costs a
 * page fault, 10-30 us on a virtual machine against ~1 us for a write: a
 * 500-op model's 60 KB report faulted 14 pages of a 256 KiB buffer.  So the
 * buffer is a sixteenth of the input (a report is ~4x its input: some 64
 * writes), 4 KiB to 256 KiB.  A terminal keeps its line buffering.  Called
 * before anything is written to stdout. */
static void buffer_stdout(size_t input_bytes) {
  static _Alignas(4096) char outbuf[1 << 18];
  if (isatty(STDOUT_FILENO)) return;
  size_t n = (input_bytes / 16) & ~(size_t)4095;
  n = n < 4096 ? 4096 : n > sizeof outbuf ? sizeof outbuf : n;
  setvbuf(stdout, outbuf, _IOFBF, n);
}

static int lint(Cli *c) {
  int n = c->o.nfiles, status = 0;
  size_t input_bytes = 0;
  FileRun *runs = xcalloc((size_t)n, sizeof *runs);
  for (int i = 0; i < n; i++) {
    char *err = NULL;
    runs[i].file = src_load(&c->ss, c->o.files[i], &err);
    if (runs[i].file < 0) {
      cli_error(c, "%s", err); /* R-CLI-005: report, go on, exit 2 */
      free(err);
      status = 2;
      continue;
    }
    input_bytes += src_file(&c->ss, runs[i].file)->len;
    analyze_run(c, &runs[i], 0);
  }
  buffer_stdout(input_bytes);
  bool named = overrides_named(c, runs, n);
  flush_errors(c);
  for (int i = 0; i < n && named; i++) {
    if (runs[i].file < 0) continue;
    int s = finish_file(c, &runs[i]);
    if (s > status) status = s;
  }
  if (named && c->o.plot && write_plot(c, runs, n) > status) status = 2;
  if (named && c->o.format->whole_run)
    c->o.format->whole_run(c, runs, n, status);
  for (int i = 0; i < n; i++)
    if (runs[i].file >= 0) diag_sink_free(&runs[i].diags);
  free(runs);
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
              did_you_mean(c, c->o.explain, names));
    return 2;
  }
  printf("%s (%s, %s by default): %s\n\n%s", d->name, severity_str(d->severity),
         d->default_on ? "on" : "off", d->summary, d->explain);
  size_t len = strlen(d->explain);
  if (len == 0 || d->explain[len - 1] != '\n') putchar('\n');
  return 0;
}

static int subcommand(Cli *c) {
  DiagSink diags;
  diag_sink_init(&diags);
  int status;
  if (strcmp(c->o.subcommand, "diff") == 0) {
    DiffOptions d = {bindings_for(c, 0), c->o.targets, c->o.ntargets,
                     &c->o.policy, c->o.format == &formats[1], c->o.has_fail,
                     c->o.fail_pct};
    if (c->o.nfiles != 2) {
      cli_error(c, "'rooflint diff' takes two files (OLD NEW), got %d",
                c->o.nfiles);
      status = 2;
    } else if (c->o.format != &formats[0] && !d.json) {
      cli_error(c, "'rooflint diff' writes --format text or json, not %s",
                c->o.format->name);
      status = 2;
    } else {
      status = diff_cmd(stdout, c->arena, &c->ss, c->o.files[0],
                        c->o.files[1], &d, &diags);
    }
  } else if (strcmp(c->o.subcommand, "targets") == 0) {
    status = report_targets_cmd(stdout, c->arena, &c->ss, c->o.files,
                                c->o.nfiles, &diags);
  } else if (c->o.nfiles != 1) {
    cli_error(c, "'rooflint target' takes one target name, got %d",
              c->o.nfiles);
    status = 2;
  } else {
    status = report_target_card(stdout, c->arena, &c->ss, c->o.files[0],
                                &diags);
  }
  fflush(stdout);
  diag_sort(&diags);
  diag_render_text(&diags, &c->ss, stderr, &c->ro);
  diag_sink_free(&diags);
  return status;
}

/* Checks that need the whole command line; returns 0 or 2. */
static int validate(Cli *c) {
  const Options *o = &c->o;
  if (!o->format->per_file && !o->format->whole_run)
    cli_error(c, "--format %s is not available yet", o->format->name);
  /* A sweep prints a table; verify and dump print nothing else; a whole-run
   * document has no place for either. */
  const char *modes[] = {o->sweep_name ? "--sweep" : NULL,
                         o->verify ? "--verify" : NULL,
                         o->dump ? "--dump" : NULL,
                         o->format->whole_run
                             ? arena_printf(c->arena, "--format %s", o->format->name)
                             : NULL,
                         o->plot && (o->verify || o->sweep_name || o->dump)
                             ? "--plot"
                             : NULL,
                         o->plan ? "--plan" : o->ndtypes ? "--dtype" : NULL};
  const char *first = NULL;
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
    if (!modes[i]) continue;
    if (!first) {
      first = modes[i];
      continue;
    }
    cli_error(c, "%s cannot be combined with %s", first, modes[i]);
    break;
  }
  /* A --target FILE that cannot be read is a file that could not be used:
   * said once here, exit 2, rather than once per linted file. */
  for (int i = 0; i < o->ntargets; i++) {
    const char *t = o->targets[i];
    size_t len = strlen(t);
    if (!strchr(t, '/') && !(len > 5 && strcmp(t + len - 5, ".roof") == 0))
      continue;
    FILE *f = fopen(t, "r");
    if (f)
      fclose(f);
    else
      cli_error(c, "cannot open target file '%s': %s", t, strerror(errno));
  }
  if (o->has_fail && !(o->subcommand && strcmp(o->subcommand, "diff") == 0))
    cli_error(c, "--fail-on-regression applies to 'rooflint diff' only");
  if (c->errs.n == 0 && !o->subcommand && !o->help && !o->version &&
      !o->explain && o->nfiles == 0)
    cli_error(c, "no input files");
  return c->errs.n ? 2 : 0;
}

static void setup_color(Cli *c) {
  const char *no_color = getenv("NO_COLOR");
  c->ro.color = c->o.color == COLOR_ALWAYS ||
                (c->o.color == COLOR_AUTO && isatty(STDERR_FILENO) &&
                 !(no_color && *no_color));
}

static int dispatch(Cli *c) {
  if (!c->o.subcommand && !c->o.help && !c->o.version && !c->o.explain)
    return lint(c);
  /* diff reads two models (there, so the larger buffer); the rest is a
   * screenful. */
  buffer_stdout(c->o.subcommand ? SIZE_MAX : 0);
  if (c->o.help) {
    usage(stdout);
    return 0;
  }
  if (c->o.version) {
    printf("rooflint %s\n", ROOFLINT_VERSION);
    return 0;
  }
  if (c->o.explain) return explain(c);
  return subcommand(c);
}

static void cli_init(Cli *c) {
  memset(c, 0, sizeof *c);
  c->arena = arena_new();
  src_init(&c->ss);
  diag_sink_init(&c->errs);
  c->errs.error_limit = 0;
  c->o.format = &formats[0];
  c->o.error_limit = -1;
}

static void cli_free(Cli *c) {
  Options *o = &c->o;
  free((void *)o->files);
  free((void *)o->targets);
  free(o->overrides);
  free((void *)o->override_args);
  free((void *)o->sweep_texts);
  free(o->sweep_values);
  free((void *)o->policy.enabled);
  free((void *)o->policy.disabled);
  diag_sink_free(&c->errs);
  src_free(&c->ss);
  arena_free(c->arena);
}

int main(int argc, char **argv) {
  /* stderr is unbuffered by default: a diagnostic on a megabyte-long line
   * would cost one write per caret column.  Fully buffered, flushed at exit
   * (and stdout output is complete before we return either way). */
  static char errbuf[1 << 16];
  setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
  Cli c;
  cli_init(&c);
  parse_args(&c, argc, argv);
  setup_color(&c);
  int status = validate(&c);
  if (status == 0) status = dispatch(&c);
  flush_errors(&c);
  cli_free(&c);
  return status;
}
