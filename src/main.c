/* SPDX-License-Identifier: MIT */
/*
 * main.c: the command line and the visible pipeline.  Options are parsed by
 * hand from one table (name, alias, value, handler, help line), so --help is
 * generated from the same rows that are matched.  Command-line problems are
 * recorded as location-less diagnostics and rendered like any other, then
 * the run exits 2.  lint() shows the whole pipeline, stage by stage: load
 * and analyse every file, check that every -D/--sweep/-t name is found
 * somewhere (a typo there would silently change nothing), then per file:
 * policy, sort, render to stderr, and the summary or report to stdout.
 * R-CLI rules are cited where they are implemented.
 */
#include "rooflint.h"
#include "out/out.h"
#include "import/import.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* The values of --color and --dump, in the order of their names below. */
typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;
static const char *const color_names[] = {"auto", "always", "never"};
typedef enum DumpMode { DUMP_NONE = -1, DUMP_AST, DUMP_GRAPH } DumpMode;
static const char *const dump_names[] = {"ast", "graph"};
/* --unknown-ops: what an imported op with no mapping becomes (import.h) */
static const char *const unknown_ops_names[] = {"error", "custom"};

typedef struct Cli Cli;
typedef struct FileRun FileRun;
typedef struct OptDesc OptDesc;
typedef struct SubcommandDesc SubcommandDesc;

/* Where an option applies: the lint, `rooflint diff`, the target cards,
 * `rooflint import`. */
typedef enum OptScope {
  IN_LINT = 1, IN_DIFF = 2, IN_TARGETS = 4, IN_IMPORT = 8, IN_ALL = 15
} OptScope;

/* rooflint diff writes some formats: as text or as JSON. */
typedef enum DiffAs { DIFF_NO, DIFF_TEXT, DIFF_JSON } DiffAs;

/* One --format, written per file (text) or once for the whole run (JSON,
 * SARIF: one document).  A row with neither is "not available yet".
 * Adding a format is one row in `formats`. */
typedef int (*EmitFileFn)(Cli *c, FileRun *r);
typedef void (*EmitRunFn)(Cli *c, FileRun *runs, int n, int status);
typedef struct FormatDesc {
  const char *name;
  EmitFileFn per_file;
  EmitRunFn whole_run;
  DiffAs diff;
} FormatDesc;

/* One --sweep: a let and its values.  Two make a grid (R-CLI-009). */
typedef struct SweepAxis {
  const char *name;
  const char **texts; /* values as written */
  LetValue *values;
  int n;
} SweepAxis;
enum { MAX_SWEEPS = 2 };
/* R-CLI-009: a grid is one analysis a point; past this a run would take
 * longer than anyone waits for a table. */
enum { MAX_SWEEP_POINTS = 10000 };

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
  int format; /* index into formats */
  const char *plot, *explain;
  const SubcommandDesc *subcommand; /* NULL: the lint */
  int dump;   /* DumpMode */
  SweepAxis sweeps[MAX_SWEEPS];
  int nsweeps;
  int color; /* ColorMode */
  int error_limit; /* -1: the default */
  bool plan;            /* --plan (plan.c) */
  WhatIf *dtypes;       /* --dtype what-if plans (arena) */
  int ndtypes;
  double fail_pct;      /* diff --fail-on-regression PCT */
  bool has_fail;
  const char *output;   /* import -o FILE (NULL: standard output) */
  int unknown_ops;      /* index into unknown_ops_names */
  bool weights_as_inputs; /* --weights-as-inputs */
  const char *phase;    /* --phase (a Hugging Face config), or NULL */
} Options;

/* The names of a fixed list of values, read off the table that defines
 * them: `n` names, the first at `first`, one every `stride` bytes (the
 * .name column of formats[], or a plain array of names). */
typedef struct NameColumn {
  const char *const *first;
  size_t stride;
  int n;
} NameColumn;
#define NAMES_OF(table, member) \
  {&(table)[0] member, sizeof(table)[0], (int)(sizeof(table) / sizeof(table)[0])}

typedef bool (*OptFn)(Cli *c, const OptDesc *d, const char *val);

struct OptDesc {
  const char *name;    /* "--target", "-D"; NULL: a help line only */
  const char *alias;   /* "-t", or NULL */
  const char *metavar; /* NULL: takes no value, unless it has choices */
  OptFn apply;
  size_t field;        /* opt_flag, opt_string, opt_choice: offsetof(Options, ...) */
  NameColumn choices;  /* opt_choice: the values; metavar is "a|b|c" */
  const char *usage;   /* left column of --help; NULL: alias, name, metavar */
  const char *help;
  unsigned scope;      /* where it applies (OptScope): what each --help lists */
};
#define FLAG(member) opt_flag, offsetof(Options, member), {0}
#define STRING(member) opt_string, offsetof(Options, member), {0}
#define CHOICE(member, names) opt_choice, offsetof(Options, member), names
#define CALL(fn) fn, 0, {0}

struct Cli {
  Options o;
  Arena *arena;
  SourceSet ss;
  DiagSink errs; /* command-line errors (no location) */
  RenderOptions ro;
  int stdout_errno; /* the first failed flush of stdout, for the message */
};

struct FileRun {
  int file; /* -1: could not be loaded */
  DiagSink diags;
  Analysis *an;
  Arena *arena; /* the analysis's own: a --sweep value frees it after its row */
};

static bool plot_to_stdout(const Options *o) {
  return o->plot && strcmp(o->plot, "-") == 0;
}

static void cli_error(Cli *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void cli_error(Cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vreport(&c->errs, SEV_ERROR, NULL, LOC_NONE, fmt, ap);
  va_end(ap);
}

/* Standard output goes out before diagnostics follow it on stderr; a
 * failure is kept for stdout_written. */
static void flush_stdout(Cli *c) {
  if (fflush(stdout) != 0 && !c->stdout_errno) c->stdout_errno = errno;
}

/* Renders the command-line errors so far and forgets them. */
static void flush_errors(Cli *c) {
  diag_render_text(&c->errs, &c->ss, stderr, &c->ro);
  diag_sink_free(&c->errs);
  diag_sink_init(&c->errs);
  c->errs.error_limit = 0;
}

/* Appends to an array of pointers.  Its capacity is the power of two at or
 * above the count (grown when the count reaches one), so appending is
 * amortised O(1): collect_lets pushes every let of a file, and growing by
 * one was quadratic where realloc cannot grow in place (ASan: 60,000 lets
 * took 49 s and 1.5 GB). */
static void push(const char ***list, int *n, const char *s) {
  if ((*n & (*n - 1)) == 0)
    *list = xrealloc((void *)*list, (size_t)(*n ? 2 * *n : 1) * sizeof **list);
  (*list)[(*n)++] = s;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A -t value that names a file rather than a built-in target. */
static bool is_target_file(const char *t) {
  return strchr(t, '/') || (strlen(t) > 5 && ends_with(t, ".roof"));
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

static bool opt_target(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
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

static bool opt_define(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
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

static bool opt_sweep(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
  const char *name, *list;
  if (!split_assignment(c, opt, val, &name, &list)) return false;
  Options *o = &c->o;
  for (int i = 0; i < o->nsweeps; i++)
    if (strcmp(o->sweeps[i].name, name) == 0) {
      cli_error(c, "%s %s: '%s' is swept twice", opt, val, name);
      return false;
    }
  if (o->nsweeps == MAX_SWEEPS) {
    cli_error(c, "%s %s: at most %d --sweep options (a grid of two lets)", opt,
              val, MAX_SWEEPS);
    return false;
  }
  int64_t others = 1; /* the grid's points from the sweeps before this */
  for (int i = 0; i < o->nsweeps; i++) others *= o->sweeps[i].n;
  SweepAxis *ax = &o->sweeps[o->nsweeps++];
  ax->name = name;
  for (const char *p = list;;) {
    size_t n = strcspn(p, ",");
    if (others * (ax->n + 1) > MAX_SWEEP_POINTS) {
      cli_error(c, "%s %s: the sweep grid has more than %d points (the "
                "product of the --sweep value counts)", opt, name,
                MAX_SWEEP_POINTS);
      return false;
    }
    const char *text = arena_strndup(c->arena, p, n);
    LetValue v;
    if (!parse_number(text, &v)) {
      cli_error(c, "invalid value '%s' for %s %s: expected a number", text,
                opt, name);
      return false;
    }
    ax->values = xrealloc(ax->values, (size_t)(ax->n + 1) * sizeof *ax->values);
    ax->values[ax->n] = v;
    int k = ax->n;
    push(&ax->texts, &k, text);
    ax->n++;
    if (p[n] == '\0') return true;
    p += n + 1;
  }
}

static int emit_text(Cli *c, FileRun *r);
static void emit_json(Cli *c, FileRun *runs, int n, int status);
static void emit_sarif(Cli *c, FileRun *runs, int n, int status);

static const FormatDesc formats[] = {
    {"text", emit_text, NULL, DIFF_TEXT},
    {"json", NULL, emit_json, DIFF_JSON},
    {"sarif", NULL, emit_sarif, DIFF_NO},
};
enum { NFORMATS = sizeof formats / sizeof *formats };

static const FormatDesc *format_of(const Options *o) {
  return &formats[o->format];
}

/* The names, NULL-terminated, in the arena. */
static const char **column_names(Cli *c, NameColumn col) {
  const char **names = arena_alloc(c->arena, (size_t)(col.n + 1) * sizeof *names);
  for (int i = 0; i < col.n; i++)
    names[i] = *(const char *const *)((const char *)col.first + (size_t)i * col.stride);
  names[col.n] = NULL;
  return names;
}

/* "a, b or c" (sep NULL) or "a|b|c". */
static const char *join_names(Cli *c, const char *const *names,
                              const char *sep) {
  StrBuf sb = {0};
  for (int i = 0; names[i]; i++)
    sb_printf(&sb, "%s%s",
              i == 0 ? "" : sep ? sep : names[i + 1] ? ", " : " or ",
              names[i]);
  const char *r = arena_strdup(c->arena, sb_str(&sb));
  sb_free(&sb);
  return r;
}

/* A value from a fixed list; `names` NULL-terminated.  Returns the index. */
static int pick(Cli *c, const char *opt, const char *val,
                const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], val) == 0) return i;
  cli_error(c, "invalid value '%s' for %s: expected %s%s", val, opt,
            join_names(c, names, NULL), did_you_mean(c, val, names));
  return -1;
}

static bool opt_error_limit(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
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
  const char **names = arena_alloc(c->arena, (size_t)(4 * n + 3) * sizeof *names);
  int k = 0;
  names[k++] = "-Werror";
  names[k++] = "-Wno-error";
  for (int i = 0; i < n; i++)
    for (int form = 0; form < 4; form++)
      names[k++] = arena_printf(c->arena, "-W%s%s",
                                (const char *[]){"", "no-", "error=",
                                                 "no-error="}[form],
                                reg[i]->name);
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
static bool opt_warn(Cli *c, const OptDesc *d, const char *val) {
  (void)d;
  DiagPolicy *p = &c->o.policy;
  bool off = strncmp(val, "no-", 3) == 0;
  const char *name = off ? val + 3 : val;
  if (strcmp(name, "error") == 0) {
    p->werror = !off;
    return true;
  }
  /* R-CLI-013: -Werror=CHECK, -Wno-error=CHECK, as gcc and clang. */
  bool error = strncmp(name, "error=", 6) == 0;
  if (error) name += 6;
  const CheckDesc *chk = check_lookup(name);
  if (!chk) {
    const char *spelled = arena_printf(c->arena, "-W%s", val);
    cli_error(c, "unknown warning option '%s'%s", spelled,
              did_you_mean(c, spelled, warning_spellings(c)));
    return false;
  }
  if (error) {
    remove_name(p->werror_on, &p->nwerror_on, chk->name);
    remove_name(p->werror_off, &p->nwerror_off, chk->name);
    if (off) {
      push(&p->werror_off, &p->nwerror_off, chk->name);
      return true;
    }
    push(&p->werror_on, &p->nwerror_on, chk->name); /* and enable it */
  }
  remove_name(p->enabled, &p->nenabled, chk->name);
  remove_name(p->disabled, &p->ndisabled, chk->name);
  if (off)
    push(&p->disabled, &p->ndisabled, chk->name);
  else
    push(&p->enabled, &p->nenabled, chk->name);
  return true;
}

/* The three kinds of row that set a field of Options (OptDesc.field): a
 * flag, a string, and one of a fixed list (its index). */
#define FIELD(c, d, type) ((type *)((char *)&(c)->o + (d)->field))

static bool opt_flag(Cli *c, const OptDesc *d, const char *val);
static bool opt_string(Cli *c, const OptDesc *d, const char *val);
static bool opt_choice(Cli *c, const OptDesc *d, const char *val);

/* --list-checks: the same as a bare --explain. */
static bool opt_list_checks(Cli *c, const OptDesc *d, const char *val) {
  (void)d, (void)val;
  c->o.explain = "all";
  return true;
}

/* --dtype DT[,DT...]: storage dtypes to try as the plan (plan.c). */
static bool opt_dtype(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
  const char *err;
  if (!plan_parse_dtypes(c->arena, val, &c->o.dtypes, &c->o.ndtypes, &err)) {
    cli_error(c, "invalid value '%s' for %s: %s", val, opt, err);
    return false;
  }
  return true;
}

/* diff --fail-on-regression PCT: a non-negative percentage. */
static bool opt_fail(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
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


static const OptDesc options[] = {
    {"--target", "-t", "NAME|FILE", CALL(opt_target), NULL,
     "target: a built-in name or a .roof file; repeatable, or a,b,c", IN_LINT | IN_DIFF},
    {"-D", NULL, "NAME=VALUE", CALL(opt_define), NULL,
     "override a let with a number", IN_LINT | IN_DIFF | IN_IMPORT},
    {"--report", NULL, NULL, FLAG(report), NULL,
     "print the per-node table and totals", IN_LINT},
    {"--format", NULL, NULL, CHOICE(format, NAMES_OF(formats, .name)), NULL,
     "output format on stdout (default text)", IN_LINT | IN_DIFF},
    {"--plot", NULL, "FILE.svg", STRING(plot), NULL,
     "write the roofline chart ('-': standard output)", IN_LINT},
    {"--sweep", NULL, "NAME=V1,V2,...", CALL(opt_sweep), NULL,
     "one summary row per value of a let; twice: a grid", IN_LINT},
    {"--plan", NULL, NULL, FLAG(plan), NULL,
     "print the dtype plan: compute by precision, footprint by dtype, nodes "
     "off the plan", IN_LINT},
    {"--dtype", NULL, "DT[,DT...]", CALL(opt_dtype), NULL,
     "what if the plan dtype were DT (CLASS=DT: a recipe entry): totals side by side", IN_LINT},
    {"--fail-on-regression", NULL, "PCT", CALL(opt_fail), NULL,
     "diff: exit 1 when a step-time bound grows by more than PCT%", IN_DIFF},
    {"-W", NULL, "CHECK", CALL(opt_warn), "-W CHECK, -WCHECK",
     "enable a check (also one that is off by default)", IN_LINT | IN_DIFF},
    {NULL, NULL, NULL, CALL(NULL), "-Wno-CHECK", "disable a check", IN_LINT | IN_DIFF},
    {NULL, NULL, NULL, CALL(NULL), "-Werror", "turn warnings into errors", IN_LINT | IN_DIFF},
    {NULL, NULL, NULL, CALL(NULL), "-Werror=CHECK",
     "turn one check's warnings into errors (and enable it)", IN_LINT | IN_DIFF},
    {NULL, NULL, NULL, CALL(NULL), "-Wno-error=CHECK",
     "keep one check's warnings warnings under -Werror", IN_LINT | IN_DIFF},
    {"-w", NULL, NULL, FLAG(policy.no_warnings), NULL,
     "drop all warnings and remarks", IN_LINT | IN_DIFF | IN_IMPORT},
    {"--verify", NULL, NULL, FLAG(verify), NULL,
     "check diagnostics against '# expect:' comments", IN_LINT},
    {"--color", NULL, NULL, CHOICE(color, NAMES_OF(color_names, )), NULL,
     "colour diagnostics (auto honours NO_COLOR)", IN_ALL},
    {"--explain", NULL, "[CHECK]", STRING(explain), NULL,
     "what a check means and how to fix it; alone or 'all': list the checks", IN_LINT},
    {"--list-checks", NULL, NULL, CALL(opt_list_checks), NULL,
     "list the checks with their one-line summaries", IN_LINT},
    {"--dump", NULL, NULL, CHOICE(dump, NAMES_OF(dump_names, )), NULL,
     "print the syntax tree or the op graph instead of the summary", IN_LINT},
    {"--error-limit", NULL, "N", CALL(opt_error_limit), NULL,
     "stop keeping errors after N (default 20, 0 = no limit)", IN_LINT},
    {"--output", "-o", "FILE", STRING(output), NULL,
     "import: write the .roof text to FILE (default standard output)", IN_IMPORT},
    {"--unknown-ops", NULL, NULL, CHOICE(unknown_ops, NAMES_OF(unknown_ops_names, )), NULL,
     "ONNX: an op with no mapping is an error, or a custom() (bytes only)",
     IN_LINT | IN_DIFF | IN_IMPORT},
    {"--weights-as-inputs", NULL, NULL, FLAG(weights_as_inputs), NULL,
     "ONNX: inputs of fixed shape after the first are weights",
     IN_LINT | IN_DIFF | IN_IMPORT},
    {"--phase", NULL, "PHASE", STRING(phase), NULL,
     "a Hugging Face config's phase: prefill (default), decode or train",
     IN_IMPORT | IN_LINT},
    {"--version", NULL, NULL, FLAG(version), NULL, "print the version", IN_LINT},
    {"--help", "-h", NULL, FLAG(help), NULL, "print this help", IN_ALL},
};
enum { NOPTIONS = sizeof options / sizeof *options };

static bool opt_flag(Cli *c, const OptDesc *d, const char *val) {
  (void)val;
  *FIELD(c, d, bool) = true;
  return true;
}

static bool opt_string(Cli *c, const OptDesc *d, const char *val) {
  *FIELD(c, d, const char *) = val;
  return true;
}

static bool opt_choice(Cli *c, const OptDesc *d, const char *val) {
  int i = pick(c, d->name, val, column_names(c, d->choices));
  if (i >= 0) *FIELD(c, d, int) = i;
  return i >= 0;
}

static bool takes_value(const OptDesc *d) {
  return d->metavar || d->choices.n;
}

/* What the row's value looks like: its metavar, or its choices "a|b|c". */
static const char *metavar_of(Cli *c, const OptDesc *d) {
  if (d->metavar || !d->choices.n) return d->metavar;
  return join_names(c, column_names(c, d->choices), "|");
}

static int run_diff(Cli *c, DiagSink *diags);
static int run_targets(Cli *c, DiagSink *diags);
static int run_target(Cli *c, DiagSink *diags);
static int run_import(Cli *c, DiagSink *diags);

/* `rooflint NAME ...`: each with its usage line and the options that apply
 * (OptScope).  The lint itself is the row with no name. */
struct SubcommandDesc {
  const char *name;
  const char *args;
  const char *summary;
  unsigned scope;
  int (*run)(Cli *c, DiagSink *diags);
};
static const SubcommandDesc subcommands[] = {
    {NULL, "[OPTIONS] FILE...", "lint (FILE '-' = stdin; a directory: its *.roof)",
     IN_LINT, NULL},
    {"targets", "[NAMES...]", "list targets", IN_TARGETS, run_targets},
    {"target", "NAME", "one target's card", IN_TARGETS, run_target},
    {"diff", "OLD NEW", "what changed (OLD or NEW '-' = stdin)", IN_DIFF, run_diff},
    {"import", "FILE [-o OUT]", "translate a model in another format to .roof",
     IN_IMPORT, run_import},
};
enum { NSUBCOMMANDS = sizeof subcommands / sizeof *subcommands };

static const SubcommandDesc *find_subcommand(const char *word) {
  for (int i = 0; i < NSUBCOMMANDS; i++)
    if (subcommands[i].name && strcmp(subcommands[i].name, word) == 0)
      return &subcommands[i];
  return NULL;
}

/* `rooflint --help` (sub NULL): every form and every option;
 * `rooflint diff --help`: that form and the options that apply to it. */
static void usage(Cli *c, const SubcommandDesc *sub, FILE *out) {
  for (int i = 0, k = 0; i < NSUBCOMMANDS; i++) {
    const SubcommandDesc *s = &subcommands[i];
    if (sub && s != sub) continue;
    const char *form = arena_printf(c->arena, "rooflint %s%s%s",
                                    s->name ? s->name : "", s->name ? " " : "",
                                    s->args);
    if (sub)
      fprintf(out, "usage: rooflint %s [OPTIONS] %s\n%s\n", s->name, s->args,
              s->summary);
    else
      fprintf(out, "%s%-30s %s\n", k++ == 0 ? "usage: " : "       ", form,
              s->summary);
  }
  fputs("\noptions:\n", out);
  unsigned scope = sub ? sub->scope : IN_ALL;
  for (int i = 0; i < NOPTIONS; i++) {
    const OptDesc *d = &options[i];
    if (!(d->scope & scope)) continue;
    const char *left = d->usage;
    if (!left) {
      const char *mv = metavar_of(c, d);
      left = arena_printf(c->arena, "%s%s%s%s%s", d->alias ? d->alias : "",
                          d->alias ? ", " : "", d->name, mv ? " " : "",
                          mv ? mv : "");
    }
    fprintf(out, "  %-28s %s\n", left, d->help);
  }
  if ((!sub || sub->scope == IN_IMPORT) && importer_table[0].name) {
    fputs("\nformats read besides .roof (import, or lint directly):\n", out);
    for (const Importer *imp = importer_table; imp->name; imp++)
      fprintf(out, "  %-28s %s\n", imp->name, imp->describes);
  }
  if (!sub) {
    fputs("\nops (name, class, what it computes):\n", out);
    op_print_table(out);
  }
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
      if (n[1] != '-' && takes_value(d)) { /* -Xvalue */
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
  if (!takes_value(d) && val) {
    cli_error(c, "option '%s' takes no value", d->name);
    return i + 1;
  }
  if (takes_value(d) && !val) {
    if (i + 1 >= argc && d->metavar && d->metavar[0] == '[') { /* an optional value */
      *FIELD(c, d, const char *) = "all";
      return i + 1;
    }
    if (i + 1 >= argc) {
      cli_error(c, "missing value for '%s': expected %s", arg,
                metavar_of(c, d));
      return i + 1;
    }
    val = argv[++i];
  }
  d->apply(c, d, val);
  return i + 1;
}

/* R-CLI-001: options and files in any order; "--" ends the options; "-"
 * alone is standard input.  R-CLI-012: the first word that is not an
 * option or an option's value selects a subcommand when it names one
 * (`rooflint --color never targets`), as git and cargo read it. */
static void parse_args(Cli *c, int argc, char **argv) {
  bool options_done = false;
  for (int i = 1; i < argc;) {
    const char *arg = argv[i];
    if (!options_done && strcmp(arg, "--") == 0) {
      options_done = true;
      i++;
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      i = parse_one(c, argc, argv, i);
    } else {
      const SubcommandDesc *sub = options_done ? NULL : find_subcommand(arg);
      if (sub && !c->o.subcommand && c->o.nfiles == 0)
        c->o.subcommand = sub;
      else
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
  push(&lets, &nlets, NULL);
  bool ok = true;
  Options *o = &c->o;
  for (int i = 0; i < o->noverrides + o->nsweeps; i++) {
    const char *name = i < o->noverrides ? o->overrides[i].name
                                         : o->sweeps[i - o->noverrides].name;
    if (i < o->noverrides && o->overrides[i].used) continue;
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
    if (!is_target_file(o->targets[i]) && !is_builtin_target(o->targets[i]))
      return true;
  return false;
}

/* R-CLI-015: a -t NAME found nowhere is a command-line mistake, said once
 * (with target.c's suggestion) rather than once per file, exit 2. */
static bool targets_named(Cli *c, FileRun *runs, int nruns) {
  bool ok = true;
  for (int t = 0; t < c->o.ntargets; t++) {
    const char *name = c->o.targets[t];
    if (is_target_file(name) || is_builtin_target(name)) continue;
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
        o->sweeps[x].name, o->sweeps[x].values[sweep_index(o, k, x)], false};
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

/* parsed: the file's tree kept by its first --sweep value, or NULL. */
static void analyze_run(Cli *c, FileRun *r, int64_t k, const Program *parsed) {
  DiagPolicy quiet;
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
      .keep_program = c->o.dump == DUMP_AST || needs_file_target(&c->o) ||
                      c->o.noverrides > 0 || (c->o.nsweeps && k == 0) ||
                      c->o.ndtypes > 0,
      .again = k > 0,
      .parsed = parsed,
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
static int sweep_file(Cli *c, FileRun *r) {
  const Options *o = &c->o;
  int status = 0;
  int64_t npoints = sweep_points(o);
  FileRun first = {0};
  SweepLayout layout = report_sweep_layout(r->an);
  const char *names[MAX_SWEEPS], *values[MAX_SWEEPS];
  for (int x = 0; x < o->nsweeps; x++) names[x] = o->sweeps[x].name;
  for (int64_t k = 0; k < npoints; k++) {
    /* Later values reuse the first's tree; one with syntax errors is
     * parsed again, so each row reports them. */
    const Program *kept = first.an ? first.an->tree.program : NULL;
    if (k > 0)
      analyze_run(c, r, k, kept && kept->nsyntax_errors == 0 ? kept : NULL);
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
        diag_note(r->diags.items[i], LOC_NONE, "with %s from --sweep", sb_str(&at));
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
    if (k == 0) report_sweep_header(stdout, layout, names, o->nsweeps, model_w);
    for (int mi = 0; mi < nmodels; mi++)
      report_sweep_row(stdout, r->an, mi, layout, values, o->nsweeps, model_w,
                       nmodels > 1 ? u->models[mi].name : NULL,
                       error_summary(scratch, &r->diags, r->an ? r->an->unit : NULL, mi));
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
  if (!c->o.verify && format_of(&c->o)->per_file && !plot_to_stdout(&c->o)) {
    int s = format_of(&c->o)->per_file(c, r);
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

/* --plot FILE.svg, after the lint: an unwritable file is exit 2.  `--plot -`
 * is standard output, which the chart has to itself (validate). */
static int write_plot(Cli *c, FileRun *runs, int n) {
  bool to_stdout = plot_to_stdout(&c->o);
  FILE *out = to_stdout ? stdout : fopen(c->o.plot, "w");
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
  io.unknown_ops_custom = c->o.unknown_ops == 1;
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
  flush_errors(c);
  for (int i = 0; i < n && named; i++) {
    if (runs[i].file < 0) continue;
    int s = finish_file(c, &runs[i]); /* diagnostics, then output */
    if (s > status) status = s;
    /* Written: free it, unless the chart or a whole-run document needs it
     * (memory is one file's analysis, not every file's). */
    if (!c->o.plot && !format_of(&c->o)->whole_run) {
      diag_sink_free(&runs[i].diags);
      arena_free(runs[i].arena);
      runs[i].arena = NULL;
      runs[i].an = NULL;
    }
  }
  if (named && c->o.plot && write_plot(c, runs, n) > status) status = 2;
  if (named && format_of(&c->o)->whole_run)             /* JSON, SARIF */
    format_of(&c->o)->whole_run(c, runs, n, status);
  for (int i = 0; i < n; i++)
    if (runs[i].file >= 0) {
      diag_sink_free(&runs[i].diags);
      arena_free(runs[i].arena);
    }
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

static int run_diff(Cli *c, DiagSink *diags) {
  const FormatDesc *f = format_of(&c->o);
  ImportOptions io = import_options(c);
  DiffOptions d = {bindings_for(c, c->arena, 0), c->o.targets, c->o.ntargets,
                   &c->o.policy, f->diff == DIFF_JSON, c->o.has_fail,
                   c->o.fail_pct, &io};
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
              join_names(c, can, NULL), f->name);
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
    size_t k = (size_t)d->line - 1;
    const char *origin = d->line >= 1 && k < im->norigins ? im->origins[k] : NULL;
    if (origin) fprintf(stderr, "%s: %s: ", path, origin);
    else fprintf(stderr, "%s:%d: ", path, d->line);
    fprintf(stderr, "%s: %s\n", severity_str((Severity)d->sev), d->msg);
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
              k ? join_names(c, names, NULL) : "no other format yet");
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
  for (size_t i = 0; i < im.ndiags; i++) free(im.diags[i].msg);
  free(im.diags);
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

static void load_target_file(Cli *c, const char *path) {
  for (int i = 0; i < c->ss.nfiles; i++)
    if (strcmp(src_file(&c->ss, i)->name, path) == 0) return;
  char *err = NULL;
  if (src_load(&c->ss, path, &err) < 0) {
    cli_error(c, "target file: %s", err);
    free(err);
  }
}

static int compare_paths(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The *.roof files under `dir`, appended to the list: a walk with a stack
 * of directories (never a recursion on the tree's depth).  Hidden entries
 * (".git") are skipped, and so are symbolic links to directories, which
 * could loop; a link to a file is followed. */
static void walk_directory(Cli *c, const char *top, const char ***files,
                           int *n) {
  const char **stack = NULL;
  int depth = 0;
  push(&stack, &depth, top);
  while (depth > 0) {
    const char *dir = stack[--depth];
    DIR *d = opendir(dir);
    if (!d) {
      cli_error(c, "cannot open '%s': %s", dir, strerror(errno));
      continue;
    }
    for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      const char *path = arena_printf(c->arena, "%s%s%s", dir,
                                      ends_with(dir, "/") ? "" : "/", e->d_name);
      struct stat st;
      if (lstat(path, &st) != 0) continue;
      if (S_ISDIR(st.st_mode))
        push(&stack, &depth, path);
      else if (ends_with(e->d_name, ".roof") &&
               (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) &&
                                        stat(path, &st) == 0 && S_ISREG(st.st_mode))))
        push(files, n, path);
    }
    closedir(d);
  }
  free(stack);
}

/* R-CLI-014: a directory argument stands for every *.roof file under it,
 * recursively, sorted by path (byte order), so every run lints the same
 * files in the same order; one that holds none is an error. */
static void expand_directories(Cli *c) {
  Options *o = &c->o;
  const char **files = NULL;
  int n = 0;
  for (int i = 0; i < o->nfiles; i++) {
    const char *f = o->files[i];
    struct stat st;
    if (strcmp(f, "-") == 0 || stat(f, &st) != 0 || !S_ISDIR(st.st_mode)) {
      push(&files, &n, f);
      continue;
    }
    int first = n;
    walk_directory(c, f, &files, &n);
    if (n == first)
      cli_error(c, "no .roof file in directory '%s'", f);
    else
      qsort(files + first, (size_t)(n - first), sizeof *files, compare_paths);
  }
  free((void *)o->files);
  o->files = files;
  o->nfiles = n;
}

/* R-CLI-010: no output may be written over an input.  Files are compared by
 * device and inode, so a second name (a link, `./a.roof`) is caught too;
 * --plot, import's -o and a standard output redirected to a regular file
 * are the outputs, the files (or standard input), and the -t files the inputs. */
static void check_outputs(Cli *c) {
  const Options *o = &c->o;
  if (o->plot && ends_with(o->plot, ".roof")) {
    cli_error(c, "refusing to write the --plot chart over '%s', a .roof file "
                 "(--plot takes FILE.svg, or '-' for standard output)",
              o->plot);
    return;
  }
  struct stat out[3];
  const char *out_name[3];
  int nout = 0;
  if (o->plot && !plot_to_stdout(o) && stat(o->plot, &out[nout]) == 0)
    out_name[nout++] = o->plot;
  if (o->output && strcmp(o->output, "-") != 0 && stat(o->output, &out[nout]) == 0)
    out_name[nout++] = o->output;
  if (fstat(STDOUT_FILENO, &out[nout]) == 0 && S_ISREG(out[nout].st_mode))
    out_name[nout++] = "<stdout>";
  for (int i = 0; nout > 0 && i < o->nfiles + o->ntargets; i++) {
    const char *in = i < o->nfiles ? o->files[i] : o->targets[i - o->nfiles];
    struct stat st;
    if (i >= o->nfiles && !is_target_file(in)) continue;
    bool is_stdin = i < o->nfiles && strcmp(in, "-") == 0;
    if ((is_stdin ? fstat(STDIN_FILENO, &st) : stat(in, &st)) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    for (int k = 0; k < nout; k++)
      if (st.st_dev == out[k].st_dev && st.st_ino == out[k].st_ino) {
        cli_error(c, "input file '%s' is the same as output file '%s'",
                  is_stdin ? "<stdin>" : in, out_name[k]);
        return;
      }
  }
}

/* Checks that need the whole command line; returns 0 or 2. */
static int validate(Cli *c) {
  if (!c->o.subcommand) expand_directories(c);
  const Options *o = &c->o;
  if (!format_of(o)->per_file && !format_of(o)->whole_run)
    cli_error(c, "--format %s is not available yet", format_of(o)->name);
  /* A sweep prints a table; verify and dump print nothing else; a whole-run
   * document has no place for either. */
  const char *modes[] = {o->nsweeps ? "--sweep" : NULL,
                         o->verify ? "--verify" : NULL,
                         o->dump != DUMP_NONE ? "--dump" : NULL,
                         format_of(o)->whole_run
                             ? arena_printf(c->arena, "--format %s", format_of(o)->name)
                             : NULL,
                         o->plot && (o->verify || o->nsweeps || o->dump != DUMP_NONE)
                             ? "--plot"
                             : NULL,
                         o->plan ? "--plan" : o->ndtypes ? "--dtype" : NULL,
                         o->nsweeps && o->report ? "--report" : NULL};
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
  /* A sweep row is one target's (R-CLI-009); --report compares several. */
  if (o->nsweeps && o->ntargets > 1)
    cli_error(c, "--sweep takes one target, got %d (compare targets with "
                 "--report)", o->ntargets);
  /* `--plot -`: the chart is the whole of standard output. */
  const char *other = o->report             ? "--report"
                      : format_of(o)->whole_run ? arena_printf(c->arena, "--format %s",
                                                            format_of(o)->name)
                      : o->plan             ? "--plan"
                      : o->ndtypes          ? "--dtype"
                                            : NULL;
  if (plot_to_stdout(o) && other)
    cli_error(c, "--plot - cannot be combined with %s", other);
  check_outputs(c);
  /* R-CLI-008: a target file that cannot be read (missing, a directory,
   * /dev/zero) is a file that could not be used: said once here, exit 2,
   * rather than once per linted file.  Each is read once, into the source
   * set, where target_resolve finds it for every file and --sweep value. */
  bool names_targets = o->subcommand && o->subcommand->scope == IN_TARGETS;
  for (int i = 0; i < o->ntargets + (names_targets ? o->nfiles : 0); i++) {
    const char *t = i < o->ntargets ? o->targets[i] : o->files[i - o->ntargets];
    if (is_target_file(t)) load_target_file(c, t);
  }
  if (o->has_fail && !(o->subcommand && o->subcommand->scope == IN_DIFF))
    cli_error(c, "--fail-on-regression applies to 'rooflint diff' only");
  if (c->errs.n == 0 && !o->subcommand && !o->help && !o->version &&
      !o->explain && o->nfiles == 0)
    cli_error(c, "no input files");
  return c->errs.n ? 2 : 0;
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
    usage(c, c->o.subcommand, stdout);
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
  c->o.format = 0; /* text */
  c->o.dump = DUMP_NONE;
  c->o.error_limit = -1;
}

static void cli_free(Cli *c) {
  Options *o = &c->o;
  free((void *)o->files);
  free((void *)o->targets);
  free(o->overrides);
  free((void *)o->override_args);
  for (int i = 0; i < o->nsweeps; i++) {
    free((void *)o->sweeps[i].texts);
    free(o->sweeps[i].values);
  }
  free((void *)o->policy.enabled);
  free((void *)o->policy.disabled);
  free((void *)o->policy.werror_on);
  free((void *)o->policy.werror_off);
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
  if (!stdout_written(&c)) status = 2;
  flush_errors(&c);
  cli_free(&c);
  return status;
}
