/* SPDX-License-Identifier: MIT */
/*
 * cli.h: the command line as main.c sees it: the options a run was given
 * (Options), the state of one invocation (Cli), and the calls that read
 * argv into them, check the whole of it and print --help.  The option table
 * and its handlers are private to cli.c.  The formats and the subcommands
 * are main.c's tables (they name what runs), handed to cli_init, so that
 * --help and the parser read the same rows without cli.c calling up into
 * the driver.
 */
#ifndef ROOFLINT_CLI_H
#define ROOFLINT_CLI_H

#include "rooflint.h"
#include "out/out.h" /* WhatIf */

#include <stdio.h>

/* The values of --color and --dump, in the order of their names (cli.c). */
typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;
typedef enum DumpMode { DUMP_NONE = -1, DUMP_AST, DUMP_GRAPH } DumpMode;
/* --unknown-ops: what an imported op with no mapping becomes (import.h) */
typedef enum UnknownOps { UNKNOWN_OPS_ERROR, UNKNOWN_OPS_CUSTOM } UnknownOps;

typedef struct Cli Cli;
typedef struct FileRun FileRun; /* main.c's: one linted file */
typedef struct SubcommandDesc SubcommandDesc;

/* Where an option applies: the lint, `rooflint diff`, the target cards,
 * `rooflint import`, `rooflint calibrate`. */
typedef enum OptScope {
  IN_LINT = 1, IN_DIFF = 2, IN_TARGETS = 4, IN_IMPORT = 8, IN_CALIBRATE = 16,
  IN_ALL = 31
} OptScope;

/* rooflint diff writes some formats: as text or as JSON. */
typedef enum DiffAs { DIFF_NO, DIFF_TEXT, DIFF_JSON, DIFF_HTML } DiffAs;

/* One --format, written per file (text) or once for the whole run (JSON,
 * SARIF: one document).  A row with neither is "not available yet".
 * Adding a format is one row in main.c's `formats`. */
typedef int (*EmitFileFn)(Cli *c, FileRun *r);
typedef void (*EmitRunFn)(Cli *c, FileRun *runs, int n, int status);
typedef struct FormatDesc {
  const char *name;
  EmitFileFn per_file;
  EmitRunFn whole_run;
  DiffAs diff;
} FormatDesc;

/* `rooflint NAME ...`: each with its usage line and the options that apply
 * (OptScope).  The lint itself is the row with no name. */
struct SubcommandDesc {
  const char *name;
  const char *args;
  const char *summary;
  unsigned scope;
  int (*run)(Cli *c, DiagSink *diags);
};

/* main.c's two tables, as cli_init is given them. */
typedef struct CliTables {
  const FormatDesc *formats;
  int nformats;
  const SubcommandDesc *subcommands;
  int nsubcommands;
} CliTables;

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
  int format; /* index into the formats */
  const char *plot, *explain;
  const char *sarif_help_base; /* --sarif-help-base: the checks' documentation */
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
  const char *output;   /* import, calibrate -o FILE (NULL: standard output) */
  int unknown_ops;      /* UnknownOps */
  bool weights_as_inputs; /* --weights-as-inputs */
  const char *phase;    /* --phase (a Hugging Face config), or NULL */
  int ceilings;         /* --ceilings: Ceilings */
  int device;           /* calibrate --device (CalibrateDevice); -1: not given */
  double seconds;       /* calibrate --seconds; 0: not given */
} Options;

struct Cli {
  Options o;
  const CliTables *tables;
  Arena *arena;
  SourceSet ss;
  DiagSink errs; /* command-line errors (no location) */
  RenderOptions ro;
  int stdout_errno; /* the first failed flush of stdout, for the message */
  struct HtmlSweep *sweep_page; /* --sweep --format html: the rows so far */
};

void cli_init(Cli *c, const CliTables *tables);
void cli_free(Cli *c);
/* R-CLI-001, R-CLI-012: argv into c->o; mistakes become c->errs. */
void cli_parse(Cli *c, int argc, char **argv);
/* --color against NO_COLOR and whether stderr is a terminal. */
void cli_setup_color(Cli *c);
/* Checks that need the whole command line; returns 0 or 2. */
int cli_validate(Cli *c);
/* `rooflint --help` (sub NULL), or one subcommand's. */
void cli_usage(Cli *c, const SubcommandDesc *sub, FILE *out);

void cli_error(Cli *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Renders the command-line errors so far and forgets them. */
void cli_flush_errors(Cli *c);
const FormatDesc *cli_format(const Cli *c);
bool cli_plot_to_stdout(const Options *o);
/* A -t value that names a file rather than a built-in target. */
bool cli_is_target_file(const char *t);
/* "; did you mean 'x'?" or "". */
const char *cli_did_you_mean(Cli *c, const char *word,
                             const char *const *candidates);
/* "a, b or c" (sep NULL) or "a|b|c". */
const char *cli_join_names(Cli *c, const char *const *names, const char *sep);
/* Appends to an array of pointers (xrealloc'd, amortised O(1)). */
void cli_push(const char ***list, int *n, const char *s);
/* One -W option without its -W applied to p, as the command line and the
 * language server's "warnings" setting take it: "error", "no-error",
 * "CHECK", "no-CHECK", "error=CHECK", "no-error=CHECK".  R-CLI-004: for one
 * check the last of -W/-Wno- wins.  False, p unchanged, when CHECK names
 * no check.  The lists point at the registry's names; only the arrays are
 * the policy's to free. */
bool cli_apply_warning(DiagPolicy *p, const char *val);

#endif
