/* SPDX-License-Identifier: MIT */
/*
 * cli.c: the command line.  Options are parsed by hand from one table
 * (name, alias, value, handler, help line), so --help is generated from the
 * same rows that are matched.  Command-line problems are recorded as
 * location-less diagnostics and rendered like any other, then the run exits
 * 2.  cli_validate checks what needs the whole command line: modes that
 * exclude each other, outputs written over inputs, directories expanded,
 * target files read once.  R-CLI rules are cited where they are implemented.
 */
#include "cli.h"
#include "import/import.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const color_names[] = {"auto", "always", "never"};
static const char *const dump_names[] = {"ast", "graph"};
static const char *const unknown_ops_names[] = {"error", "custom"};
/* in the order of calibrate.h's CalibrateDevice */
static const char *const device_names[] = {"auto", "cpu", "cuda"};
static const char *const ceilings_names[] = {"peak", "achieved"};

typedef struct OptDesc OptDesc;

/* The names of a fixed list of values, read off the table that defines
 * them: `n` names, the first at `first`, one every `stride` bytes (the
 * .name column of the formats, or a plain array of names).  n < 0: the
 * formats cli_init was given (THE_FORMATS). */
typedef struct NameColumn {
  const char *const *first;
  size_t stride;
  int n;
} NameColumn;
#define NAMES_OF_N(table, member, count) \
  {&(table)[0] member, sizeof(table)[0], (count)}
#define NAMES_OF(table, member) \
  NAMES_OF_N(table, member, (int)(sizeof(table) / sizeof(table)[0]))
#define THE_FORMATS {NULL, 0, -1}

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

const FormatDesc *cli_format(const Cli *c) {
  return &c->tables->formats[c->o.format];
}

bool cli_plot_to_stdout(const Options *o) {
  return o->plot && strcmp(o->plot, "-") == 0;
}

void cli_error(Cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vreport(&c->errs, SEV_ERROR, NULL, LOC_NONE, fmt, ap);
  va_end(ap);
}

void cli_flush_errors(Cli *c) {
  diag_render_text(&c->errs, &c->ss, stderr, &c->ro);
  diag_sink_free(&c->errs);
  diag_sink_init(&c->errs);
  c->errs.error_limit = 0;
}

/* Its capacity is the power of two at or above the count (grown when the
 * count reaches one), so appending is amortised O(1): main.c pushes every
 * let of a file, and growing by one is quadratic where realloc cannot grow
 * in place. */
void cli_push(const char ***list, int *n, const char *s) {
  if ((*n & (*n - 1)) == 0)
    *list = xrealloc((void *)*list, (size_t)(*n ? 2 * *n : 1) * sizeof **list);
  (*list)[(*n)++] = s;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

bool cli_is_target_file(const char *t) {
  return strchr(t, '/') || (strlen(t) > 5 && ends_with(t, ".roof"));
}

const char *cli_did_you_mean(Cli *c, const char *word,
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
    cli_push(&c->o.targets, &c->o.ntargets, arena_strndup(c->arena, p, n));
    if (p[n] == '\0') return true;
    p += n + 1;
  }
}

static bool opt_define(Cli *c, const OptDesc *d, const char *val) {
  const char *opt = d->name;
  const char *name, *text;
  LetValue v;
  if (!split_assignment(c, opt, val, &name, &text)) return false;
  /* an importer's own -D may be a word (-D recompute=full): the importer
   * reads it from override_args and says which words it takes */
  if (!parse_number(text, &v)) {
    if (import_define_is_own(name) && *text) {
      v = (LetValue){0};
    } else {
      cli_error(c, "invalid value '%s' for -D %s: expected a number", text,
                name);
      return false;
    }
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
  o->overrides[o->noverrides] = (LetOverride){name, v, false, NULL};
  int n = o->noverrides;
  cli_push(&o->override_args, &n, val);
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
    cli_push(&ax->texts, &k, text);
    ax->n++;
    if (p[n] == '\0') return true;
    p += n + 1;
  }
}


/* The names, NULL-terminated, in the arena. */
static const char **column_names(Cli *c, NameColumn col) {
  if (col.n < 0) /* THE_FORMATS */
    col = (NameColumn)NAMES_OF_N(c->tables->formats, .name, c->tables->nformats);
  const char **names = arena_alloc(c->arena, (size_t)(col.n + 1) * sizeof *names);
  for (int i = 0; i < col.n; i++)
    names[i] = *(const char *const *)((const char *)col.first + (size_t)i * col.stride);
  names[col.n] = NULL;
  return names;
}

const char *cli_join_names(Cli *c, const char *const *names,
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
            cli_join_names(c, names, NULL), cli_did_you_mean(c, val, names));
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

bool cli_apply_warning(DiagPolicy *p, const char *val) {
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
  if (!chk) return false;
  if (error) {
    remove_name(p->werror_on, &p->nwerror_on, chk->name);
    remove_name(p->werror_off, &p->nwerror_off, chk->name);
    if (off) {
      cli_push(&p->werror_off, &p->nwerror_off, chk->name);
      return true;
    }
    cli_push(&p->werror_on, &p->nwerror_on, chk->name); /* and enable it */
  }
  remove_name(p->enabled, &p->nenabled, chk->name);
  remove_name(p->disabled, &p->ndisabled, chk->name);
  if (off)
    cli_push(&p->disabled, &p->ndisabled, chk->name);
  else
    cli_push(&p->enabled, &p->nenabled, chk->name);
  return true;
}

/* -W CHECK, -WCHECK, -Wno-CHECK, -Werror, -Wno-error: an unknown name is
 * an error. */
static bool opt_warn(Cli *c, const OptDesc *d, const char *val) {
  (void)d;
  if (cli_apply_warning(&c->o.policy, val)) return true;
  const char *spelled = arena_printf(c->arena, "-W%s", val);
  cli_error(c, "unknown warning option '%s'%s", spelled,
            cli_did_you_mean(c, spelled, warning_spellings(c)));
  return false;
}

/* The three kinds of row that set a field of Options (OptDesc.field): a
 * flag, a string, and one of a fixed list (its index). */
#define FIELD(c, d, type) ((type *)((char *)&(c)->o + (d)->field))

static bool opt_flag(Cli *c, const OptDesc *d, const char *val);
static bool opt_string(Cli *c, const OptDesc *d, const char *val);
static bool opt_choice(Cli *c, const OptDesc *d, const char *val);

/* --sarif-help-base URL: where docs/checks.md is served, each rule's
 * helpUri that URL and its anchor (R-SARIF-001).  An http(s) address of
 * the URI characters that need no escape in JSON or in a Markdown link
 * (no parentheses, spaces or quotes), and no fragment: the anchor is
 * added. */
static bool opt_help_base(Cli *c, const OptDesc *d, const char *val) {
  static const char ok[] = "-._~:/?[]@!$&*+,;=%";
  bool good = strncmp(val, "https://", 8) == 0 || strncmp(val, "http://", 7) == 0;
  for (const char *p = val; good && *p; p++)
    good = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9') || strchr(ok, *p);
  if (!good) {
    cli_error(c, "%s takes an http:// or https:// address without spaces, "
                 "quotes, parentheses or '#'",
              d->name);
    return false;
  }
  c->o.sarif_help_base = val;
  return true;
}

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

/* calibrate --seconds N: the whole run's bound, more than 0 and at most a
 * day (R-CAL-001). */
static bool opt_seconds(Cli *c, const OptDesc *d, const char *val) {
  LetValue v;
  double s = 0;
  if (parse_number(val, &v)) s = v.is_real ? v.r : (double)v.i;
  if (!(s > 0 && s <= 86400)) {
    cli_error(c, "invalid value '%s' for %s: expected seconds, more than 0 "
                 "and at most 86400", val, d->name);
    return false;
  }
  c->o.seconds = s;
  return true;
}

static const OptDesc options[] = {
    {"--target", "-t", "NAME|FILE", CALL(opt_target), NULL,
     "target: a built-in name or a .roof file; repeatable, or a,b,c", IN_LINT | IN_DIFF},
    {"-D", NULL, "NAME=VALUE", CALL(opt_define), NULL,
     "override a let with a number", IN_LINT | IN_DIFF | IN_IMPORT},
    {"--report", NULL, NULL, FLAG(report), NULL,
     "print the per-node table and totals", IN_LINT},
    {"--format", NULL, NULL, CHOICE(format, THE_FORMATS), NULL,
     "output format on stdout (default text)", IN_LINT | IN_DIFF},
    {"--plot", NULL, "FILE.svg", STRING(plot), NULL,
     "write the roofline chart ('-': standard output)", IN_LINT},
    {"--ceilings", NULL, NULL, CHOICE(ceilings, NAMES_OF(ceilings_names, )), NULL,
     "price against the datasheet's peaks (default) or the card's achieved "
     "figures", IN_LINT},
    {"--sweep", NULL, "NAME=V1,V2,...", CALL(opt_sweep), NULL,
     "one summary row per value of a let; twice: a grid", IN_LINT},
    {"--sarif-help-base", NULL, "URL", CALL(opt_help_base), NULL,
     "SARIF: where docs/checks.md is served, for each rule's helpUri", IN_LINT},
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
     "import: write the .roof text to FILE; calibrate: the card (default "
     "standard output)", IN_IMPORT | IN_CALIBRATE},
    {"--device", NULL, NULL, CHOICE(device, NAMES_OF(device_names, )), NULL,
     "calibrate: the device to measure (auto: CUDA if torch sees one)",
     IN_CALIBRATE},
    {"--seconds", NULL, "N", CALL(opt_seconds), NULL,
     "calibrate: the most the whole run may take (default 60)", IN_CALIBRATE},
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
  return cli_join_names(c, column_names(c, d->choices), "|");
}

static const SubcommandDesc *find_subcommand(const Cli *c, const char *word) {
  const CliTables *t = c->tables;
  for (int i = 0; i < t->nsubcommands; i++)
    if (t->subcommands[i].name && strcmp(t->subcommands[i].name, word) == 0)
      return &t->subcommands[i];
  return NULL;
}

/* `rooflint --help` (sub NULL): every form and every option;
 * `rooflint diff --help`: that form and the options that apply to it. */
void cli_usage(Cli *c, const SubcommandDesc *sub, FILE *out) {
  for (int i = 0, k = 0; i < c->tables->nsubcommands; i++) {
    const SubcommandDesc *s = &c->tables->subcommands[i];
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
            strlen(word) > 2 ? cli_did_you_mean(c, word, names) : "");
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
void cli_parse(Cli *c, int argc, char **argv) {
  bool options_done = false;
  for (int i = 1; i < argc;) {
    const char *arg = argv[i];
    if (!options_done && strcmp(arg, "--") == 0) {
      options_done = true;
      i++;
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      i = parse_one(c, argc, argv, i);
    } else {
      const SubcommandDesc *sub = options_done ? NULL : find_subcommand(c, arg);
      if (sub && !c->o.subcommand && c->o.nfiles == 0)
        c->o.subcommand = sub;
      else
        cli_push(&c->o.files, &c->o.nfiles, arg);
      i++;
    }
  }
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
  cli_push(&stack, &depth, top);
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
        cli_push(&stack, &depth, path);
      else if (ends_with(e->d_name, ".roof") &&
               (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) &&
                                        stat(path, &st) == 0 && S_ISREG(st.st_mode))))
        cli_push(files, n, path);
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
      cli_push(&files, &n, f);
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
  if (o->plot && !cli_plot_to_stdout(o) && stat(o->plot, &out[nout]) == 0)
    out_name[nout++] = o->plot;
  if (o->output && strcmp(o->output, "-") != 0 && stat(o->output, &out[nout]) == 0)
    out_name[nout++] = o->output;
  if (fstat(STDOUT_FILENO, &out[nout]) == 0 && S_ISREG(out[nout].st_mode))
    out_name[nout++] = "<stdout>";
  for (int i = 0; nout > 0 && i < o->nfiles + o->ntargets; i++) {
    const char *in = i < o->nfiles ? o->files[i] : o->targets[i - o->nfiles];
    struct stat st;
    if (i >= o->nfiles && !cli_is_target_file(in)) continue;
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

int cli_validate(Cli *c) {
  if (!c->o.subcommand) expand_directories(c);
  const Options *o = &c->o;
  if (!cli_format(c)->per_file && !cli_format(c)->whole_run)
    cli_error(c, "--format %s is not available yet", cli_format(c)->name);
  /* A sweep prints a table; verify and dump print nothing else; a whole-run
   * document has no place for either. */
  const char *modes[] = {o->nsweeps ? "--sweep" : NULL,
                         o->verify ? "--verify" : NULL,
                         o->dump != DUMP_NONE ? "--dump" : NULL,
                         /* R-HTML-008: a sweep's page is its table's */
                         cli_format(c)->whole_run &&
                                 !(o->nsweeps && strcmp(cli_format(c)->name, "html") == 0)
                             ? arena_printf(c->arena, "--format %s", cli_format(c)->name)
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
                      : cli_format(c)->whole_run ? arena_printf(c->arena, "--format %s",
                                                            cli_format(c)->name)
                      : o->plan             ? "--plan"
                      : o->ndtypes          ? "--dtype"
                                            : NULL;
  if (cli_plot_to_stdout(o) && other)
    cli_error(c, "--plot - cannot be combined with %s", other);
  check_outputs(c);
  /* R-CLI-008: a target file that cannot be read (missing, a directory,
   * /dev/zero) is a file that could not be used: said once here, exit 2,
   * rather than once per linted file.  Each is read once, into the source
   * set, where target_resolve finds it for every file and --sweep value. */
  bool names_targets = o->subcommand && o->subcommand->scope == IN_TARGETS;
  for (int i = 0; i < o->ntargets + (names_targets ? o->nfiles : 0); i++) {
    const char *t = i < o->ntargets ? o->targets[i] : o->files[i - o->ntargets];
    if (cli_is_target_file(t)) load_target_file(c, t);
  }
  if (o->has_fail && !(o->subcommand && o->subcommand->scope == IN_DIFF))
    cli_error(c, "--fail-on-regression applies to 'rooflint diff' only");
  bool calibrating = o->subcommand && o->subcommand->scope == IN_CALIBRATE;
  if ((o->device >= 0 || o->seconds > 0) && !calibrating)
    cli_error(c, "%s applies to 'rooflint calibrate' only",
              o->device >= 0 ? "--device" : "--seconds");
  if (c->errs.n == 0 && !o->subcommand && !o->help && !o->version &&
      !o->explain && o->nfiles == 0)
    cli_error(c, "no input files");
  return c->errs.n ? 2 : 0;
}

void cli_setup_color(Cli *c) {
  const char *no_color = getenv("NO_COLOR");
  c->ro.color = c->o.color == COLOR_ALWAYS ||
                (c->o.color == COLOR_AUTO && isatty(STDERR_FILENO) &&
                 !(no_color && *no_color));
}

void cli_init(Cli *c, const CliTables *tables) {
  memset(c, 0, sizeof *c);
  c->tables = tables;
  c->arena = arena_new();
  src_init(&c->ss);
  diag_sink_init(&c->errs);
  c->errs.error_limit = 0;
  c->o.format = 0; /* text */
  c->o.dump = DUMP_NONE;
  c->o.error_limit = -1;
  c->o.device = -1;
}

void cli_free(Cli *c) {
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
