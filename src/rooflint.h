/* SPDX-License-Identifier: MIT */
/*
 * rooflint.h: the one project header.  Every type that crosses a stage
 * boundary is declared here, in one section per owning .c file, in the order
 * data flows: text -> tokens -> AST -> sema (names, lets, shapes, dtypes) ->
 * op graph -> cost -> roofline -> checks -> diagnostics -> renderers.
 *
 * Memory (who owns what, stated once):
 *   - An Arena owns the AST, the op graph, analysis results and every string
 *     hanging off them.  Everything allocated from it is freed at once by
 *     arena_free().  Functions that take an Arena * allocate from it; the
 *     caller owns the arena.  The few stages that hand an arena's pages
 *     on to another instead of back to the kernel use arena.h.
 *   - A SourceSet owns the text of every loaded file (freed by src_free()).
 *   - A DiagSink owns its diagnostics (freed by diag_sink_free()).
 *   - Everything else borrows.
 * No global mutable state: every stage gets its context as a parameter.
 */
#ifndef ROOFLINT_H
#define ROOFLINT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ROOFLINT_VERSION "0.1.0"

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF_LIKE(f, a)
#define NORETURN
#endif

/* ===================================================================== */
/* util.c: allocation that never fails, internal errors, string buffers,  */
/* a string-keyed hash map, edit distance for "did you mean".             */
/* ===================================================================== */

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* A broken invariant: prints the C location and aborts. Never for user errors. */
NORETURN void die(const char *fmt, ...) PRINTF_LIKE(1, 2);
#define unreachable() die("%s:%d: unreachable", __FILE__, __LINE__)

typedef struct StrBuf {
  char *data; /* NUL-terminated; NULL until the first append */
  size_t len; /* bytes used, excluding the NUL */
  size_t cap; /* bytes allocated */
} StrBuf;

/* sb_putn's path when the bytes do not fit: grows the buffer, then
 * appends. */
void sb_putn_grow(StrBuf *sb, const char *s, size_t n);

/* Appends with the common case (room in the buffer) inline: text is
 * written a few bytes at a time (the importers write a line per node). */
static inline void sb_putn(StrBuf *sb, const char *s, size_t n) {
  if (sb->len + n >= sb->cap) {
    sb_putn_grow(sb, s, n);
    return;
  }
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}
static inline void sb_putc(StrBuf *sb, char c) {
  if (sb->len + 1 >= sb->cap) {
    sb_putn_grow(sb, &c, 1);
    return;
  }
  sb->data[sb->len++] = c;
  sb->data[sb->len] = '\0';
}
static inline void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }
void sb_put_int(StrBuf *sb, long long v);
void sb_printf(StrBuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
const char *sb_str(const StrBuf *sb); /* "" when empty */
void sb_free(StrBuf *sb);

/* Open-addressing map from string keys (borrowed, must outlive the map) to
 * pointers.  Each slot keeps its key's hash, so a probe compares strings
 * only when the whole hash matches. */
typedef struct StrMap {
  const char **keys; /* NULL = empty slot */
  void **vals;
  uint64_t *hashes;
  size_t cap; /* power of two */
  size_t len;
} StrMap;

void strmap_init(StrMap *m);
void strmap_free(StrMap *m);
void *strmap_get(const StrMap *m, const char *key); /* NULL if absent */
void strmap_put(StrMap *m, const char *key, void *val);

/* Levenshtein distance, capped: returns cap+1 when the distance exceeds cap. */
int util_edit_distance(const char *a, const char *b, int cap);
/* The candidate closest to `word` (NULL-terminated array), or NULL when none
 * is close enough to be a plausible typo. */
const char *util_suggest(const char *word, const char *const *candidates);

/* Checked 64-bit arithmetic: return false on overflow. */
bool util_mul_i64(int64_t a, int64_t b, int64_t *out);
bool util_add_i64(int64_t a, int64_t b, int64_t *out);

/* ===================================================================== */
/* arena.c: bump allocation, freed once.                                  */
/* ===================================================================== */

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n); /* zeroed, 8-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Copy a growing array into the arena: returns a copy of n elements. */
void *arena_memdup(Arena *a, const void *p, size_t n);
size_t arena_bytes_used(const Arena *a);

/* ===================================================================== */
/* source.c: loaded files, locations as byte ranges, offset -> line:col.  */
/* ===================================================================== */

/* A half-open byte range [start, end) in one file.  file < 0: no location. */
typedef struct Loc {
  int file;       /* index into the SourceSet */
  uint32_t start; /* first byte */
  uint32_t end;   /* one past the last byte; == start for a point */
} Loc;

#define LOC_NONE ((Loc){-1, 0, 0})

/* A `# rooflint: ignore[...]` or `ignore-file[...]` comment. */
typedef struct Suppression {
  int line;          /* 1-based line it applies to; 0 = the whole file */
  const char *check; /* check name, as written */
  Loc loc;           /* where the name is written (for unknown-name errors) */
} Suppression;

/* A `# expect: SEVERITY[check] "substring"` comment (for --verify). */
typedef struct Expectation {
  int line;              /* 1-based line of the comment */
  int severity;          /* a Severity */
  const char *check;     /* NULL = any check */
  const char *substring; /* NULL = any message */
  Loc loc;
} Expectation;

typedef struct SourceFile {
  char *name;           /* as given on the command line, or "<builtin>/x.roof" */
  char *text;           /* contents, NUL-terminated (a NUL inside is an error);
                           text[len + 1] is NUL too (the scanner's sentinel) */
  size_t len;           /* bytes, excluding the terminating NUL */
  uint32_t *line_starts; /* byte offset of each line's first byte */
  size_t nlines;
  /* Filled by the lexer while scanning comments: */
  Suppression *suppressions;
  int nsuppressions, cap_suppressions;
  /* Lines with a bare `# rooflint: ignore` (every check), ascending. */
  int *ignore_lines;
  int nignore_lines, cap_ignore_lines;
  Expectation *expectations;
  int nexpectations, cap_expectations;
  /* An imported file (import.h): where each line of the generated text
   * came from, origins[line - 1], NULL entries for none.  NULL for .roof
   * text the user wrote. */
  char **origins;
  size_t norigins;
  /* An imported file's own findings (a remark listing the lets it made, a
   * warning per op it could only import as custom()), each on a line of
   * the text; analyze_file reports them with the file's diagnostics. */
  struct ImportDiag *import_diags;
  size_t nimport_diags;
  /* An imported file, as SARIF's artifact describes it: the size of the
   * file the user named (len is the generated text's; -1: unknown) and its
   * language (NULL: none, a binary format).  Not set for .roof text. */
  bool imported;
  int64_t file_bytes;
  const char *language;
  /* An imported text format (a config.json): the file as the user has it,
   * its own line table, which an origin's byte region points into; NULL
   * for a binary format and for .roof text. */
  struct SourceFile *original;
} SourceFile;

typedef struct SourceSet {
  SourceFile **files;
  int nfiles, cap;
} SourceSet;

void src_init(SourceSet *ss);
void src_free(SourceSet *ss);
/* Adds a file whose text the set now owns (text must be NUL-terminated at
 * text[len]); it may move `text` to append a second NUL, so read the text
 * back from the SourceFile.  Returns its index. */
int src_add(SourceSet *ss, const char *name, char *text, size_t len);
/* Reads `path` ("-" = standard input).  Returns the file index, or -1 with a
 * message (strerror style, lowercase) in *err, allocated with xmalloc. */
int src_load(SourceSet *ss, const char *path, char **err);
const SourceFile *src_file(const SourceSet *ss, int file);
/* 1-based line and byte column of an offset. */
void src_linecol(const SourceFile *f, uint32_t offset, int *line, int *col);
/* The same, looking first at the line *hint (0-based) and the one after,
 * and leaving the line found there: a writer that goes through a file in
 * order finds each line in one step, not a search of every line. */
void src_linecol_near(const SourceFile *f, uint32_t offset, size_t *hint, int *line, int *col);
/* The offset where 1-based `line` (1..nlines) ends: its terminator's
 * first byte, or the file's length on the last line. */
uint32_t src_line_end(const SourceFile *f, int line);
/* The text of 1-based `line` without its line terminator. */
const char *src_line_text(const SourceFile *f, int line, size_t *len);
/* An importer's finding on line `line` of its text (import.h); sev is a
 * Severity. */
typedef struct ImportDiag {
  int line;
  int sev;
  char *msg;
  char *origin; /* its own origin (a config key no line came from), or NULL */
} ImportDiag;
/* Where a location is, in the file the user has (R-DIAG-001): in .roof
 * text, the text itself; on a line an importer wrote, the line's origin
 * (or `origin`, when not NULL: a finding with an origin of its own), and
 * through its byte region the place in the original text (a config key),
 * or the bytes of a binary file (an ONNX node). */
typedef struct Located {
  const SourceFile *in;   /* the text start..end are in, or NULL: none */
  uint32_t start, end;
  const char *origin;     /* an imported line's origin, or NULL */
  size_t origin_len;      /* its length without the byte region */
  int gen_line;           /* the imported text's line it was found on, or 0 */
  bool has_bytes;         /* a region of a binary file: */
  uint64_t byte_offset, byte_length;
} Located;
void src_locate(const SourceFile *f, Loc loc, const char *origin, Located *out);
/* The text of the statement on `line` of an imported text, as a note quotes
 * it: without its indentation and trailing comment, at most `max` bytes. */
void src_statement(const SourceFile *f, int line, StrBuf *sb);
/* Where loc is, as a diagnostic's prefix names it (without the ": "):
 * `a.roof:12:7`, in an imported config the key's `x.json:5:3`, on a
 * binary file's line the origin, `model.onnx: node 12 "/conv1/Conv"
 * (Conv)` (src_locate; origin as there).  Into buf. */
const char *src_where(const SourceFile *f, Loc loc, const char *origin, char *buf,
                      size_t n);
/* Room for a src_where: a file name and an origin (a name may be long;
 * past this it is cut). */
enum { WHERE_MAX = 8192 };
/* An origin's parts, by import.h's grammar
 * `KIND [INDEX] ["NAME"] [(TYPE)] [in "PATH"] [@OFFSET+LENGTH]`
 * (`node 12 "/conv1/Conv" (Conv)`; PATH: the subgraph an ONNX node is in,
 * `main_graph/If_1/then_branch`), for JSON and SARIF; the name and path
 * with their escapes undone.  False when the origin does not follow the
 * grammar. */
typedef struct OriginParts {
  char kind[32];
  long long index;
  bool has_index, has_name, has_path;
  char path[WHERE_MAX];
  bool has_region;          /* ` @OFFSET+LENGTH`: bytes of the original file */
  unsigned long long offset, length;
  char name[WHERE_MAX];
  char type[128];
} OriginParts;
bool src_origin_parts(const char *origin, OriginParts *p);
/* Length (1 to 4) of the well-formed UTF-8 sequence at s, of the n bytes
 * there, or 0 for an ill-formed one: a stray continuation byte, a lead byte
 * C0, C1 or F5..FF, a truncated sequence, an overlong form, a surrogate
 * (U+D800..DFFF) or a code point above U+10FFFF (RFC 3629, as jansson and
 * XML parsers read it).  Every output writes an ill-formed byte as U+FFFD
 * (text diagnostics as \xNN): src_utf8_clean does it. */
size_t src_utf8_len(const char *s, size_t n);
/* `s` (n bytes) with each ill-formed byte replaced by `bad` (NULL: "\xNN"),
 * appended to sb; returns whether any was. */
bool src_utf8_clean(StrBuf *sb, const char *s, size_t n, const char *bad);

/* ===================================================================== */
/* diag.c: structured diagnostics, filtering, the text renderer.         */
/* The front end and analyses never print: they record Diags here.       */
/* ===================================================================== */

typedef enum Severity {
  SEV_NOTE,    /* attached information (also used for standalone notes) */
  SEV_REMARK,  /* informational finding, not a problem */
  SEV_WARNING, /* a performance problem */
  SEV_ERROR,   /* the input is wrong; analysis results are not trusted */
} Severity;

const char *severity_str(Severity s);

typedef struct DiagNote {
  Loc loc; /* LOC_NONE: a note without a location */
  char *msg;
} DiagNote;

typedef struct FixIt {
  Loc loc;    /* range to replace; empty range = insertion at loc.start */
  char *text; /* replacement text */
} FixIt;

/* One numeric figure that proves a diagnostic (goes to JSON/SARIF). */
typedef struct DiagFigure {
  const char *key; /* static string, e.g. "intensity" */
  double value;    /* base units */
} DiagFigure;

typedef struct Diag {
  Severity sev;
  const char *check; /* check name ("memory-bound"), or NULL for language errors */
  Loc loc;
  char *msg;
  DiagNote *notes;
  int nnotes;
  FixIt *fixits;
  int nfixits;
  DiagFigure *figures;
  int nfigures;
  int seq; /* order of recording, for a stable sort */
  bool werror; /* a warning promoted to an error by -Werror */
  /* Its check is off unless -W names it: set by whoever reports for a
   * check (checks_report), so the policy needs no registry. */
  bool off_by_default;
  /* An importer's finding on no line of the text (a config key it does
   * not model): its origin (import.h), which src_locate places. */
  const char *origin;
} Diag;

#define DIAG_DEFAULT_ERROR_LIMIT 20

typedef struct DiagSink {
  Diag **items;
  int n, cap;
  int nerrors;     /* errors recorded (including dropped ones) */
  int nwarnings;   /* warnings recorded */
  int error_limit; /* 0 = unlimited */
  bool limit_hit;  /* an error was dropped because of error_limit */
  Diag *scratch;   /* receives errors past the limit; reused, then freed */
  int nrecorded;   /* diagnostics recorded so far: the next seq */
} DiagSink;

void diag_sink_init(DiagSink *s);
void diag_sink_free(DiagSink *s);
/* Records a diagnostic and returns it for notes/fix-its.  Past the error
 * limit errors are counted but not kept: the returned Diag is a scratch one
 * that is discarded, so callers never need to test. */
Diag *diag_report(DiagSink *s, Severity sev, const char *check, Loc loc,
                  const char *fmt, ...) PRINTF_LIKE(5, 6);
Diag *diag_vreport(DiagSink *s, Severity sev, const char *check, Loc loc,
                   const char *fmt, va_list ap);
void diag_note(Diag *d, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_fixit(Diag *d, Loc loc, const char *text);
bool diag_too_many(const DiagSink *s); /* error limit reached: stop parsing */
/* Sorts by (file, offset, seq): diagnostics print in source order. */
void diag_sort(DiagSink *s);

/* What the command line asks of warnings. */
typedef struct DiagPolicy {
  const char **enabled;  /* -W CHECK: checks enabled beyond the defaults */
  int nenabled;
  const char **disabled; /* -Wno-CHECK */
  int ndisabled;
  bool werror;           /* -Werror: warnings become errors */
  const char **werror_on;  /* -Werror=CHECK: this check's, whatever -Werror */
  int nwerror_on;
  const char **werror_off; /* -Wno-error=CHECK: never this check's */
  int nwerror_off;
  bool no_warnings;      /* -w: drop all warnings and remarks */
} DiagPolicy;

/* Drops what suppressions (from each SourceFile) and the policy remove,
 * promotes warnings under -Werror, recounts.  Run once, before rendering. */
void diag_apply_policy(DiagSink *s, const SourceSet *ss, const DiagPolicy *p);

typedef struct RenderOptions {
  bool color;
} RenderOptions;

/* GNU/clang format: "file:line:col: severity: message [-Wcheck]", the source
 * line with a ^~~~ underline, fix-it lines, then the notes. */
void diag_render_text(const DiagSink *s, const SourceSet *ss, FILE *out,
                      const RenderOptions *ro);
void diag_render_one(const Diag *d, const SourceSet *ss, FILE *out,
                     const RenderOptions *ro);
/* Text from a file or a command line (a message, a path, an origin) as
 * the renderer writes it: ill-formed UTF-8 and control characters \xNN. */
void diag_put_text(FILE *out, const char *s);

/* ===================================================================== */
/* lexer.l / parser.y / parse.c / ast.c: text -> AST.                    */
/* ===================================================================== */

typedef enum UnitKind {
  UNIT_NONE,      /* a plain number */
  UNIT_BYTES,     /* KB MB GB TB KiB MiB GiB TiB */
  UNIT_BANDWIDTH, /* B/s KB/s MB/s GB/s TB/s, value in B/s */
  UNIT_FLOPS,     /* FLOP/s GFLOP/s TFLOP/s PFLOP/s TOP/s, value in FLOP/s */
  UNIT_TIME,      /* ns us ms s, value in seconds */
} UnitKind;

const char *unit_kind_str(UnitKind k); /* "bytes", "bandwidth", ... */

typedef enum ExprKind {
  EX_INT,      /* 4096, 7_000_000_000 */
  EX_REAL,     /* 3.35, 7e9 */
  EX_STRING,   /* "..." (escapes decoded) */
  EX_QUANTITY, /* 3.35 TB/s */
  EX_BOOL,     /* true, false */
  EX_NAME,     /* identifier: a let, a tensor, a dtype, a word like `train` */
  EX_BINARY,   /* a + b, a - b, a * b, a / b, a % b */
  EX_UNARY,    /* -a */
  EX_CALL,     /* op(args...) */
  EX_LIST,     /* [a, b, c] */
  EX_TYPE,     /* DTYPE[dims] (a bare [dims] parses as EX_LIST) */
  EX_ERROR,    /* placeholder after a syntax error */
} ExprKind;

const char *expr_kind_str(ExprKind k);

typedef struct Expr Expr;

/* One per argument of every call, so it holds two pointers: the keyword,
 * which few arguments have, is out of line. */
typedef struct Arg {
  /* The keyword as written and where (its id is NAME_NONE: keywords are
   * matched by spelling); NULL for a positional argument. */
  const struct Ident *key;
  Expr *value;
} Arg;

/* A node is allocated only as large as its kind needs: the header (kind,
 * loc) plus the one union member that kind uses (ast_expr, ast_stmt; a
 * million-op model holds millions of nodes).  So never copy an Expr or a
 * Stmt by value, never read another kind's member, and never change the
 * kind of a node once made.  Members are ordered to leave no padding. */
struct Expr {
  ExprKind kind;
  Loc loc; /* the whole expression */
  union {
    int64_t ival;    /* EX_INT; EX_BOOL (0/1) */
    double rval;     /* EX_REAL */
    const char *str; /* EX_STRING (decoded) */
    struct {
      double number;    /* as written: 3.35 */
      double value;     /* in base units: 3.35e12 */
      const char *unit; /* as written: "TB/s" */
      UnitKind kind;
    } qty;
    struct {
      /* The name's dense id; its spelling is Program.names[id] (not kept
       * here: a big model has millions of name nodes). */
      int id;
    } name; /* EX_NAME */
    struct {
      Expr *lhs, *rhs;
      int op; /* '+', '-', '*', '/', '%' */
    } bin;
    struct {
      Expr *operand;
      int op; /* '-' */
    } un;
    struct {
      Arg *args;
      Loc callee_loc;
      /* The callee's name id, as an EX_NAME's: Program.names[callee]. */
      int callee;
      int nargs;
    } call;
    struct {
      Expr **items;
      int n;
    } list;
    struct {
      const char *dtype; /* name as written */
      Loc dtype_loc;
      int ndims;
      Expr **dims;
    } type;
  };
};

/* No name id: a word the grammar supplies (`model` in ST_MODEL's kind). */
#define NAME_NONE (-1)

typedef struct Ident {
  const char *name;
  Loc loc;
  int id; /* dense id of the name (0 .. Program.nnames-1), or NAME_NONE */
} Ident;

typedef enum StmtKind {
  ST_LET,        /* let NAME = expr */
  ST_TARGET_USE, /* target NAME */
  ST_TARGET_DEF, /* target NAME { ... } */
  ST_MODEL,      /* model NAME { ... } */
  ST_DTYPE,      /* dtype WORD */
  ST_MODE,       /* mode WORD */
  ST_DTYPE_CLASS, /* dtype CLASS = DTYPE (a recipe entry; uses `let`) */
  ST_PARALLEL,   /* parallel { ... } */
  ST_DECL,       /* input|weight|host NAMES : type */
  ST_ASSIGN,     /* NAME = expr  (an op in a model, a key in a target/parallel) */
  ST_REPEAT,     /* repeat expr { ... } */
  ST_LOOP,       /* loop expr { ... } */
  ST_FUSED,      /* fused NAME { ... } */
  ST_CHECKPOINT, /* checkpoint { ... } (R-PAR-010; def.name is the keyword) */
  ST_OUTPUT,     /* output NAMES */
  ST_SECTION,    /* WORD NAME { ... }, e.g. `level hbm { ... }` in a target */
  ST_ERROR,      /* placeholder after a syntax error */
  ST_UNPACK,     /* NAME, NAME {, NAME} = call  (an op's several results) */
  ST_EXPERTS,    /* experts E top K [NAME=expr ...] { ... } (R-MOE-001) */
} StmtKind;

const char *stmt_kind_str(StmtKind k);

typedef enum DeclKind {
  DECL_INPUT,  /* activations from outside */
  DECL_WEIGHT, /* parameters */
  DECL_HOST,   /* a tensor in host memory */
  DECL_BUFFER, /* non-trainable state: a mask, rotary tables (R-COST-011) */
  DECL_CACHE,  /* a KV cache (R-CACHE-001) */
} DeclKind;

typedef struct Stmt Stmt;

typedef struct Block {
  Stmt **items;
  int n;
  Loc open, close; /* the braces; LOC_NONE at top level */
} Block;

/* Allocated only as large as its kind, like Expr: never copy by value. */
struct Stmt {
  StmtKind kind;
  Loc loc; /* the whole statement */
  union {
    struct {
      Ident name;
      Expr *value;
    } let;           /* ST_LET, ST_DTYPE_CLASS; ST_ASSIGN uses `assign` */
    Ident target_use; /* ST_TARGET_USE */
    struct {
      Ident kind; /* ST_SECTION: the leading word; else the keyword */
      Ident name;
      Block body;
    } def;           /* ST_TARGET_DEF, ST_MODEL, ST_FUSED, ST_SECTION */
    Ident word;      /* ST_DTYPE, ST_MODE */
    Block parallel;  /* ST_PARALLEL */
    struct {
      Ident *names;
      Expr *type; /* EX_LIST (dims) or EX_TYPE */
      int nnames;
      DeclKind kind;
      bool has_opt;            /* KEY=WORD after the type (shard=tensor) */
      /* Only when has_opt: a declaration without an option is allocated
       * without these (a big model declares hundreds of thousands). */
      Ident opt_key, opt_value;
    } decl;
    struct {
      Ident name;
      Expr *value;
    } assign; /* ST_ASSIGN */
    struct {
      Expr *count;
      Block body;
    } loop;   /* ST_REPEAT, ST_LOOP; ST_EXPERTS begins the same */
    struct {
      Expr *count; /* E, the experts (loop.count) */
      Block body;  /* one expert (loop.body) */
      Expr *top;   /* K, the experts each token runs */
      Arg *opts;   /* capacity_factor=, imbalance= */
      int nopts;
    } experts; /* ST_EXPERTS */
    struct {
      Ident *names;
      int nnames;
    } output; /* ST_OUTPUT */
    struct {
      Ident *names;
      int nnames;
      Expr *value;
    } unpack; /* ST_UNPACK */
  };
};

typedef struct Program {
  int file; /* SourceSet index */
  Block top;
  int nsyntax_errors; /* > 0: semantic passes must not run */
  /* Names get dense ids 0 .. nnames-1 in order of first appearance (one id
   * per spelling; keywords have none): sema indexes arrays by them. */
  int nnames;
  /* names[id]: the spelling of name id, interned; the array and the
   * strings are in ParseOptions.names, so they outlive the tree. */
  const char *const *names;
} Program;

/* Parses one file of the set.  Never returns NULL; syntax errors go to the
 * sink and leave ST_ERROR/EX_ERROR placeholders.  Two files may be parsed
 * in the same process, in any order (no global state). */
Program *parse_file(Arena *a, SourceSet *ss, int file, DiagSink *diags);

/* What parse_file_opts does differently; parse_file(...) is
 * parse_file_opts(..., NULL). */
typedef struct ParseOptions {
  /* Where the text that outlives the tree goes: interned names (which sema
   * and the graph keep pointing at), decoded strings, and the check names
   * and messages of comment directives (kept by the SourceFile).  NULL: the
   * tree's arena.  With its own arena here, the caller may free the tree's
   * arena as soon as nothing walks the tree any more. */
  Arena *names;
  /* Do not record `# rooflint:` / `# expect:` directives in the SourceFile
   * again (a re-parse of a file already parsed); malformed ones are still
   * reported to the sink. */
  bool skip_directives;
} ParseOptions;

Program *parse_file_opts(Arena *a, SourceSet *ss, int file, DiagSink *diags,
                         const ParseOptions *opts);

/* A file's syntax tree: the one an analysis kept, or else parsed again on
 * first use (parse_again), into `arena`, without recording the file's
 * directives twice.  analyze.c says why a lint does not keep it. */
typedef struct ProgramSource {
  SourceSet *ss;
  int file;
  Arena *arena;
  Program *program; /* the kept tree, or NULL until first asked for */
} ProgramSource;

/* The tree, parsing the file again the first time; NULL when it does not
 * parse (it did the first time, so only if the text changed). */
const Program *parse_again(ProgramSource *ps);
/* Debug switch for bison's trace, from ROOFLINT_YYDEBUG=1 in the environment. */

/* ast.c: the --dump ast printer and what the stages after the tree read
 * of it; the constructors the grammar builds it with are ast.h's. */
/* A binary operator is its character ('+', '*', ...), but floor division
 * `//`, which is BINOP_FLOORDIV; ast_op_str (ast.h) spells either. */
enum { BINOP_FLOORDIV = 'F' };
void ast_dump(const Program *p, const SourceSet *ss, FILE *out);

/* ===================================================================== */
/* dtype.c: element types.                                                */
/* ===================================================================== */

typedef enum DType {
  DT_FP64,
  DT_FP32,
  DT_TF32, /* a compute mode of fp32 storage */
  DT_BF16,
  DT_FP16,
  DT_FP8_E4M3, /* `fp8` */
  DT_FP8_E5M2,
  DT_FP4,
  DT_INT8,
  DT_INT4,
  DT_INT32,
  DT_INT64,
  DT_BOOL,
  DT__COUNT,
  DT_NONE = -1,
} DType;

typedef struct DTypeInfo {
  const char *name;  /* canonical spelling */
  double bytes;      /* per element: 8 4 4 2 2 1 1 0.5 1 0.5 4 8 1 */
  int bits;          /* width, used for "widest" */
  bool is_float;
  int tc_multiple;   /* dimension multiple tensor cores want; 0 = none */
} DTypeInfo;

const DTypeInfo *dtype_info(DType t);
const char *dtype_str(DType t);
/* Accepts the canonical names and the alias fp8 (= fp8_e4m3). */
DType dtype_parse(const char *name);
/* NULL-terminated list of every spelling, for "did you mean". */
const char *const *dtype_names(void);
/* The wider of two dtypes: floats over integers, then more bits; a tie
 * keeps the first; DT_NONE (a scalar number) never widens. */
DType dtype_wider(DType a, DType b);

/* ===================================================================== */
/* ops.c: the op table (one row per op) and its shape/dtype/cost rules.   */
/* ===================================================================== */

#define MAX_RANK 8

typedef struct TensorType {
  DType dtype;
  int rank;
  int64_t dims[MAX_RANK];
} TensorType;

typedef enum OpClass {
  OC_ELEMENTWISE,
  OC_REDUCTION, /* reductions and norms, softmax */
  OC_CONTRACTION,
  OC_MOVEMENT,
  OC_VIEW, /* reshape, transpose: no kernel, no bytes */
  OC_TRANSFER,
  OC_COLLECTIVE,
  OC_OPAQUE,
  OC__COUNT
} OpClass;

const char *op_class_str(OpClass c);

typedef enum KwType {
  KW_INT,      /* integer expression */
  KW_INT_PAIR, /* one integer for both axes, or [h, w] */
  KW_INT_LIST, /* [a, b, ...], at most MAX_RANK integers */
  KW_BOOL,
  KW_DTYPE,
  KW_REAL,     /* real or integer expression (custom flops=, bytes=) */
  KW_TYPE,     /* a tensor type (custom out=) */
  KW_INT_TRIPLE, /* one integer for the three axes, or [d, h, w] */
  KW_CHOICE,   /* a string, one of the KwDesc's choices; its index */
  KW_TENSOR,   /* a tensor operand (bias=): appended to the inputs */
  KW_WORD,     /* a bare word, one of the KwDesc's choices; its index */
} KwType;

typedef struct KwDesc {
  const char *name;
  KwType type;
  bool required;
  int64_t def; /* default for KW_INT / KW_INT_PAIR / KW_BOOL / KW_CHOICE */
  const char *const *choices; /* KW_CHOICE: NULL-terminated */
} KwDesc;

/* Resolved arguments of one op application (filled by sema). */
typedef struct OpArgs {
  int64_t axis;          /* normalised to 0..rank-1 */
  bool has_axis;
  /* windows: [h, w] for 2-D, [l] for 1-D, [d, h, w] for 3-D */
  int64_t stride[3], padding[3], dilation[3], kernel[3];
  int64_t output_padding[3]; /* conv_transpose2d */
  int64_t approximate;   /* gelu: 0 = none (erf, the default), 1 = tanh */
  double clip_min, clip_max; /* clip; NAN when not given */
  double epsilon;        /* norms; NAN when not given (no cost effect) */
  bool bias;             /* bias=: the last input, added in the epilogue */
  int64_t groups;
  bool causal, ceil_mode;
  bool alibi;            /* attention alibi=: ALiBi's biases on the scores */
  bool sinks;            /* attention sinks=: a learned logit a head (gpt-oss) */
  DType cast_to;         /* cast(x, DTYPE) */
  int64_t perm[MAX_RANK]; /* transpose */
  double custom_flops, custom_bytes;
  int64_t blocks;        /* blocks= override; 0 = the occupancy model */
  DType precision;       /* precision= override; DT_NONE = inferred */
  DType out_dtype;       /* out= result dtype (R-KW-008); DT_NONE = inferred */
  bool keepdims;         /* sum/mean/max keepdims= */
  /* slice start=/end=/step=, select index=, flatten start=/end= (axes),
   * normalised by the shape rule (R-VIEW-001..006) */
  int64_t start, end, step, index;
  int64_t scale, mode;   /* interpolate scale= and mode= (0 nearest, 1 linear) */
  int64_t size[MAX_RANK]; /* interpolate size=: the spatial dims, 0 after the
                           * last given (none given: size[0] is 0) */
  double value;          /* pad value= */
  int64_t group;         /* collectives' group= (a ParGroup; data default) */
  int64_t k;             /* topk's K (R-ROUTE-001) */
  /* lstm, gru, rnn (R-RNN-001): hidden=, layers=, direction= (0 forward,
   * 1 reverse, 2 bidirectional), batch_first= */
  int64_t hidden, layers, direction;
  bool batch_first;
  const char *equation;  /* einsum's, without blanks, "->" written out */
  /* OPF_RESULTS: which of the op's results this node is (0 = the first),
   * set by sema for every application */
  int64_t result;
} OpArgs;

/* What an op's positional arguments are: sema reads them by this
 * (sema_apply.c: positionals), op_call_print writes them. */
typedef enum OpForm {
  FORM_TENSORS,     /* tensor names only */
  FORM_SCALAR_OK,   /* tensor names or numbers (elementwise binary) */
  FORM_DTYPE,       /* cast(x, DTYPE) */
  FORM_DIMS,        /* reshape(x, [dims]) */
  FORM_PERM,        /* transpose(x, [perm]) */
  FORM_TENSOR_LIST, /* concat([a, b, ...]) */
  FORM_SPLIT,       /* split(x, N) or split(x, [sizes]) */
  FORM_PADS,        /* pad(x, [before..., after...]): up to 2 * MAX_RANK */
  FORM_COUNT,       /* topk(x, K): a tensor and a positive integer (OpArgs.k) */
  FORM_EQUATION,    /* einsum("ij,jk->ik", a, b): a string, then tensors */
} OpForm;

typedef struct OpDesc OpDesc;

/* Shape rule: computes the output type from input types and args, or
 * returns false after reporting an error through `err` (see ShapeError). */
typedef struct ShapeCtx {
  DiagSink *diags;
  Loc call_loc;        /* the whole call */
  const Loc *arg_locs; /* one per positional input */
  Arena *arena;
  Loc axis_loc;        /* the axis= value (LOC_NONE: defaulted) */
  Loc list_loc;        /* reshape/transpose list */
  const int64_t *list; /* reshape: dims as written (-1 = infer); transpose: perm;
                        * pad: the pads */
  int nlist;
  const TensorType *declared; /* custom: the out= type */
  int64_t ranks;       /* the size of a collective's group= (R-PAR-003) */
  /* OPF_RESULTS: which result this application gives, of how many names;
   * split: list holds the sizes, or nlist is -N for N equal parts */
  int result, nresults;
} ShapeCtx;

/* The let expressions of a result's dims, for an importer that keeps
 * them beside the numbers (the ONNX importer's `batch_size`): the op's
 * sym rule (ops.def) says which operand dim, or which sum or product of
 * them, each result dim is.  A NULL expression is a plain number. */
typedef struct SymCtx {
  Arena *arena;                     /* where joined expressions go */
  const TensorType *in;             /* the operands, nin of them */
  const char *const *const *in_sym; /* in_sym[i][d]: operand i's dim d */
  int nin;
  const OpArgs *args;
  const int64_t *list;              /* as ShapeCtx's list */
  const char *const *list_sym;      /* the list's expressions */
  int nlist;
  const TensorType *out;            /* the result, as the shape rule gave it */
} SymCtx;

/* An application written as .roof text, the mirror of sema's reading of
 * an op's positionals by its form: op_call_print writes
 * `op(operands, positional, bias=B, keywords)`. */
typedef struct OpCallText {
  const char *const *operands; /* the tensor operands' (or numbers') text */
  int noperands;
  const char *dtype;           /* FORM_DTYPE's dtype */
  const int64_t *list;         /* FORM_DIMS, _PERM, _PADS, _SPLIT's list; */
  const char *const *list_sym; /* its expressions, or NULL */
  int nlist;                   /* FORM_SPLIT: -N for N equal parts */
  int64_t count;               /* FORM_COUNT's K */
  const char *equation;        /* FORM_EQUATION's */
  const char *bias;            /* bias=, or NULL */
  const char *keywords;        /* ", stride=2, axis=1" ..., or NULL */
} OpCallText;

/* Every op, by its row in ops.def: OP_ADD, OP_MATMUL, ... */
typedef enum OpId {
#define OP(id, ...) OP_##id,
#include "ops.def"
#undef OP
  OP__COUNT
} OpId;

/* What an op row says about the op beyond its class (ops.def). */
enum {
  /* cast-like: changes the dtype alone, so it moves no bits (no kernel, no
   * bytes, like a view) when its input has that dtype already (R-COST-010) */
  OPF_CAST = 1 << 0,
  /* a ring all-reduce: reduce-scatter then all-gather, so its buffer
   * crosses each link twice (2(N-1)/N instead of (N-1)/N) */
  OPF_ALLREDUCE = 1 << 1,
  /* its work runs along the keys: an SM-starved launch is split across
   * the keys (flash-decoding), not along K (split-K) */
  OPF_SPLIT_KEYS = 1 << 2,
  /* several results, bound as `a, b = op(...)` (R-NAME-009): sema applies
   * the row once per name, the shape rule giving result ShapeCtx.result */
  OPF_RESULTS = 1 << 3,
  /* appends to a KV cache in place (R-CACHE-002): sema requires its first
   * operand to be a `cache` (or an append to one), and the result is the
   * cache's storage, so it holds no bytes of its own */
  OPF_APPEND = 1 << 4,
  /* updates a `cache` operand in place (a recurrent state, R-OP-008): the
   * cache is written back as well as read, inside a fused region too */
  OPF_UPDATES_CACHE = 1 << 5,
};

/* What an op's backward reads (ops.def's saves column, R-TRAIN-002): the
 * tensors autograd saves for it (PyTorch's tools/autograd/derivatives.yaml)
 * and any state of its own a kernel writes for the backward. */
enum {
  SV_IN0 = 1 << 0,  /* operand 0, 1, 2 (a weight is resident: not counted) */
  SV_IN1 = 1 << 1,
  SV_IN2 = 1 << 2,
  SV_INS = 1 << 3,  /* every operand */
  SV_OUT = 1 << 4,  /* its result */
  SV_MASK = 1 << 5, /* one byte per result element (dropout's bool mask) */
  SV_LSE = 1 << 6,  /* fp32 per query row: a fused attention's log-sum-exp */
  SV_INDEX = 1 << 7, /* int64 per result element: the argmax of max, topk, pools */
  SV_PROBS = 1 << 8, /* operand 0's shape and dtype: cross-entropy's
                        log-probabilities */
  SV_STATS1 = 1 << 9,  /* one fp32 per normalised row (rmsnorm's rstd) */
  SV_STATS2 = 1 << 10, /* two (mean and rstd) */
  SV_GATES = 1 << 11,  /* a recurrent layer's gates and cell per step, in
                          operand 0's dtype: cuDNN's reserve space */
};

typedef struct Model Model;
typedef struct Target Target;

/* One application of an op, as its cost and dims functions see it: the
 * operand types (op_in_type), the result type and the resolved arguments. */
typedef struct OpIn {
  const OpDesc *op;
  const Model *model;
  const int *inputs; /* node ids of the operands */
  int nin;
  const TensorType *out;
  const OpArgs *args;
} OpIn;

/* FLOPs, HBM bytes and thread blocks of one application (before the train
 * factor); a collective also gives the buffer its ring moves. */
typedef struct OpCost {
  double flops, bytes, blocks, buffer;
} OpCost;

/* One dimension a contraction's tensor cores tile. */
typedef struct OpDim {
  const char *what; /* "M", "N", "K", "head size", ... */
  int64_t size;
  int operand;      /* the input it is read from */
  bool data;        /* set by the data (the rows of M), not by the model's
                       author (a weight's N or K, a vocabulary) */
} OpDim;

enum { OP_MAX_DIMS = 4 };

/* A contraction as the GEMM its kernels run: m x n output tiles, batch
 * times, over k; and the dimensions tensor cores need a multiple of. */
typedef struct OpDims {
  double m, n, k, batch;
  int nalign;
  OpDim align[OP_MAX_DIMS];
} OpDims;

struct OpDesc {
  OpId id;
  const char *name;
  OpClass cls;
  int min_inputs, max_inputs; /* tensor operands; max -1 = variadic */
  OpForm form;
  const KwDesc *keywords;     /* terminated by a row with name NULL */
  double flops_per_element;   /* FLOPs per output element (elementwise) or
                                 per input element (reductions, norms) */
  bool (*shape)(const OpDesc *op, const TensorType *in, int nin,
                OpArgs *args, TensorType *out, const ShapeCtx *ctx);
  /* out[MAX_RANK], cleared: each result dim's let expression */
  void (*sym)(const SymCtx *c, const char **out);
  void (*cost)(const OpIn *x, const Target *t, OpCost *c);
  void (*dims)(const OpIn *x, OpDims *d); /* contractions; else NULL */
  double train_factor; /* train step FLOPs and bytes / the forward's */
  unsigned saves;      /* SV_*: what its backward reads */
  unsigned flags;      /* OPF_* */
  const char *doc;     /* one line */
};

const OpDesc *op_lookup(const char *name);
const OpDesc *op_get(OpId id);
/* Rows are numbered 0 .. op_count()-1 (their OpId), so callers can keep
 * per-op data in an array instead of looking it up by name. */
int op_count(void);
int op_index(const OpDesc *op);
/* The one byte size of a tensor (DT_NONE: 0 bytes). */
double op_tensor_bytes(const TensorType *t);
/* The op table as --help prints it: name, class, doc; one op a line. */
void op_print_table(FILE *out);
/* "bf16[1, 4096]" into buf; returns buf. */
char *op_type_str(char *buf, size_t n, const TensorType *t);

/* ===================================================================== */
/* sema.c: names, lets, shapes and dtypes -> the op graph.                */
/* ===================================================================== */

/* A `let` value: integer or real. */
typedef struct LetValue {
  bool is_real;
  int64_t i;
  double r;
} LetValue;

/* -D NAME=VALUE from the command line (value already parsed). */
typedef struct LetOverride {
  const char *name;
  LetValue value;
  bool used; /* set by sema: an override naming no let is an error */
  /* "NAME=WORD" for an importer's own -D added by a re-analysis
   * (-D recompute=full, R-HF-017); NULL: the value */
  const char *text;
} LetOverride;

/* Activation recomputation (R-PAR-010, R-PAR-014). */
typedef enum Recompute { RECOMPUTE_NONE, RECOMPUTE_FULL, RECOMPUTE_SELECTIVE } Recompute;

typedef struct Bindings {
  LetOverride *overrides;
  int n;
  /* --dtype what-if (plan.c): with `what_if`, every model's plan dtype is
   * `plan_dtype`; declarations and ops that name a dtype keep theirs.
   * Zero (no what-if) for any Bindings built field by field. */
  bool what_if;
  DType plan_dtype;
  /* --dtype CLASS=DT (R-PLAN-007): the recipe entry of `recipe_class` is
   * `recipe_dtype`, and the ops of that class that would compute at the
   * plan dtype, naming no precision=, compute at it. */
  bool what_if_recipe;
  OpClass recipe_class;
  DType recipe_dtype;
  /* A training plan's what-ifs (capacity's notes, R-CHK-084): each
   * innermost `repeat` body as if written in `checkpoint { }` (or
   * `checkpoint selective { }`), where no block stands in or around it,
   * and the plan as if it said `sequence_parallel = true`. */
  Recompute recompute;
  bool sequence_parallel;
} Bindings;

/* A copy of b (NULL: none) from arena a, with `add` (NULL: nothing) in
 * place of any override of the same name: the bindings of a re-run (a
 * --sweep value, a --dtype what-if, a crossover probe). */
Bindings *bindings_with(Arena *a, const Bindings *b, const LetOverride *add);

/* A top-level `let` as sema evaluated it (with the overrides). */
typedef struct LetDef {
  const char *name;
  Loc loc;       /* the let's name */
  LetValue value;
  bool ok;       /* false: its value had an error */
} LetDef;

typedef enum Role {
  ROLE_INPUT,
  ROLE_WEIGHT,
  ROLE_HOST,
  ROLE_ACTIVATION, /* produced by an op */
  ROLE_BUFFER,     /* non-trainable state: in the footprint, no parameters */
  ROLE_CACHE,      /* a KV cache: its own footprint line, no parameters */
} Role;

const char *role_str(Role r);

/* A repeat/loop body.  Scopes form a tree; node counts are the product of
 * the trips of the scopes around them.  The body is analysed once, never
 * unrolled.  Parameters: a weight inside `repeat` is a new tensor in every
 * copy (count it once per enclosing repeat trip), a weight inside `loop` is
 * the same tensor every trip (loop trips do not multiply parameters; walk
 * the parents and multiply only the trips of repeat scopes). */
typedef struct Scope {
  int parent;    /* -1 for the model body */
  bool is_loop;  /* loop (same weights, time) vs repeat (structure) */
  int64_t trips; /* body executions per enclosing execution */
  double count;  /* total executions per step: product of trips outward */
  Loc loc;       /* the repeat/loop keyword .. count expression */
  /* An `experts E top K` block (R-MOE-001): experts = E (0: a repeat or a
   * loop), trips 1; its weights are E tensors, each token runs the body
   * K times. */
  int64_t experts, top;
  double capacity_factor, imbalance; /* 1 unless given */
  int64_t n_group, topk_group; /* group-limited routing, 0: none (R-MOE-007) */
} Scope;

typedef struct Region {
  const char *name;
  Loc loc;   /* the `fused NAME` header */
  int scope; /* scope the region sits in */
} Region;

/* A `checkpoint { }` block: its nodes are first .. end - 1 (a block's
 * nodes are contiguous; blocks do not nest). */
typedef struct CheckpointBlock {
  int first, end;
  Loc loc;
  bool selective; /* `checkpoint selective { }`: its attention core alone (R-PAR-014) */
} CheckpointBlock;

/* A name rebound in a repeat or loop: each copy after the first reads
 * what the copy before bound last, where the graph (one copy) has it read
 * the binding from before: outer and last are those two nodes. */
typedef struct LoopCarry {
  int outer, last;
} LoopCarry;

typedef struct GNode {
  /* Ordered widest first so a model of millions of nodes wastes no padding
   * (the node array is the biggest block of a run).  A node's id is its
   * index in Model.nodes. */
  const char *name;  /* the bound name (a rebinding is a new node) */
  const OpDesc *op;  /* NULL for input/weight/host */
  int *inputs;       /* node ids, in operand order */
  /* Resolved keyword arguments; never NULL.  Shared, read-only: nodes whose
   * arguments are all equal (most: all defaults) point at one copy.  To
   * change one, copy it first. */
  const OpArgs *args;
  double count;      /* executions per step (scope count, or 1); for a
                        weight this also counts loop trips, see Scope */
  /* Output (or declared) type.  Interned by sema: a model has few
   * distinct types, so nodes point at one shared, read-only copy. */
  const TensorType *type;
  int ninputs;
  int scope;         /* innermost scope id; -1 = model body */
  int region;        /* fused region id, -1 if none */
  int nconsumers;    /* ops reading this node */
  Loc loc;           /* the call expression, or the declared name */
  Loc stmt_loc;      /* the whole statement */
  Loc dtype_loc;     /* where the dtype was written (a declaration's DTYPE,
                        cast's dtype argument, custom's out= dtype),
                        LOC_NONE if inherited */
  /* Small fields are bit-fields: the node array is the biggest block of a
   * run, so a node carries no field the bench's peak does not need. */
  Role role : 8;
  DType precision : 8;   /* compute precision (may be DT_TF32); DT_NONE for decls */
  bool precision_explicit : 1; /* from precision= */
  bool is_output : 1;    /* named by `output`, or an op result consumed by no
                            one (declarations only when named) */
  bool loop_carried : 1; /* rebinding of a name bound outside its loop */
  bool shard_tensor : 1; /* weight ... shard=tensor: one GPU's 1/tensor (R-PAR-002) */
  bool vocab_parallel : 1; /* cross_entropy of logits split over the tensor group (R-PAR-012) */
  bool forward_only : 1; /* a vocab-parallel embedding's all-reduce: none in backward (R-PAR-019) */
  bool tensor_replicated : 1; /* an activation whole on every rank of the tensor
                                 group, under tensor parallelism (R-PAR-008):
                                 sequence parallelism splits it (R-PAR-015) */
} GNode;

/* The parallel plan (R-PAR-001): how many GPUs run the model and how they
 * are grouped.  The keys, their defaults and ranges are the rows of
 * parallel_keys (parallel.c); sema fills this through them. */
typedef struct Parallel {
  bool present;
  int64_t nodes, gpus_per_node, data; /* data degree; default nodes*gpus */
  int64_t tensor, pipeline, expert, microbatches;
  int64_t zero;  /* ZeRO stage 0..3 (Rajbhandari et al. 2020) */
  int64_t shard; /* ZeRO's shard group in data ranks; 0: the whole data group */
  bool overlap;  /* collectives may hide behind compute (R-PAR-007) */
  bool sequence_parallel; /* Korthikanti et al. 2022 (R-PAR-015) */
  Loc sequence_parallel_loc; /* its key, where the plan writes it */
  Loc microbatches_loc;      /* likewise */
  bool fp32_grads; /* gradients in fp32, Megatron-LM's default (R-TRAIN-003) */
  Loc loc;
} Parallel;

/* The process groups of a plan.  The first four are what `group=` names
 * on a collective; shard and replica are ZeRO's groups inside data. */
typedef enum ParGroup {
  PG_DATA,
  PG_TENSOR,
  PG_PIPELINE,
  PG_EXPERT,
  PG_SHARD,   /* the data ranks ZeRO shards over: `shard`, else all of data */
  PG_REPLICA, /* across shard groups (hybrid sharding): data / shard */
  PG__COUNT
} ParGroup;
#define PG__NAMED 4 /* the groups `group=` can name */

/* One key of the parallel block: a row of parallel_keys. */
typedef struct ParallelKey {
  const char *name;
  size_t offset;  /* into Parallel: int64_t, or bool for a boolean key */
  bool boolean;   /* true/false */
  int64_t def;    /* PAR_DERIVED: follows from the others (R-PAR-001) */
  int64_t min, max;
  const char *doc;
} ParallelKey;
#define PAR_DERIVED (-1)
#define PAR_MAX_DEGREE (1 << 20) /* R-KW-006: 2^20 ranks */

extern const ParallelKey parallel_keys[];
extern const int parallel_nkeys;

/* Where a group's ranks lie (Megatron-Core's order tp-cp-ep-dp-pp, tensor
 * innermost): `size` ranks `stride` apart, `per_node` of them in each of
 * `nodes` nodes. */
typedef struct GroupPlace {
  int64_t size, stride, per_node, nodes;
} GroupPlace;

const char *par_group_str(ParGroup g);
GroupPlace parallel_place(const Parallel *p, ParGroup g);
/* "NVLink", "InfiniBand", "NVLink + InfiniBand" or "-" (one rank). */
const char *group_link_str(GroupPlace gp);

typedef struct Model {
  const char *name;
  Loc loc;          /* the model's name */
  int file;
  DType dtype;      /* the plan dtype (default bf16 if never stated) */
  Loc dtype_loc;    /* the `dtype` statement, LOC_NONE if defaulted */
  /* The recipe (R-PLAN-006): `dtype CLASS = DT` per op class that
   * computes, where class_given; see model_plan_dtype.  (A flag, so a
   * zeroed Model has no recipe.) */
  DType class_dtype[OC__COUNT];
  bool class_given[OC__COUNT];
  bool train;       /* mode train */
  Parallel parallel;
  GNode *nodes;     /* topological (source) order */
  int nnodes;
  Scope *scopes;
  int nscopes;
  Region *regions;
  int nregions;
  CheckpointBlock *ckpts; /* R-PAR-010, in source order */
  int nckpts;
  LoopCarry *carries;     /* every name carried through a repeat or loop */
  int ncarries;
} Model;

/* The dtype the plan gives ops of class c: the recipe's, else the plan
 * dtype. */
static inline DType model_plan_dtype(const Model *m, OpClass c) {
  return m->class_given[c] ? m->class_dtype[c] : m->dtype;
}

/* Copies of a weight declared in `scope`: the trips of the repeats around
 * it (a loop's trips reuse the same tensor, see Scope). */
static inline double model_weight_copies(const Model *m, int scope) {
  double n = 1;
  for (int s = scope; s >= 0; s = m->scopes[s].parent)
    if (!m->scopes[s].is_loop)
      n *= (double)(m->scopes[s].experts ? m->scopes[s].experts : m->scopes[s].trips);
  return n;
}

/* The experts block a scope is (or sits in), -1 for none (R-MOE-001). */
static inline int model_experts_scope(const Model *m, int scope) {
  for (int s = scope; s >= 0; s = m->scopes[s].parent)
    if (m->scopes[s].experts) return s;
  return -1;
}

/* The rows an op in `scope` runs over those it is written on: K x
 * capacity_factor x imbalance in an experts block, else 1 (R-MOE-002). */
static inline double model_experts_work(const Model *m, int scope) {
  int s = model_experts_scope(m, scope);
  if (s < 0) return 1;
  const Scope *e = &m->scopes[s];
  return (double)e->top * e->capacity_factor * e->imbalance;
}

typedef struct Unit {
  int file;
  Model *models;
  int nmodels;
  const char *target_name; /* from `target NAME`, NULL if none */
  Loc target_loc;
  const Stmt **target_defs; /* `target NAME { }` statements in the file */
  int ntarget_defs;
  LetDef *lets;             /* the top-level lets, in source order */
  int nlets;
} Unit;

/* requires: p->nsyntax_errors == 0.  Evaluates lets (with overrides),
 * resolves names, infers shapes and dtypes, builds one graph per model.
 * Pure: the same (program, bindings) gives the same unit. */
Unit *sema_analyze(Arena *a, const Program *p, Bindings *b, DiagSink *diags);
/* The same, and the tree is consumed: `tree` is the arena p was parsed into,
 * and the statements of a model body are released as they are analysed, so
 * the tree and the graph are not both whole at once.  Afterwards only the
 * top level of p (and the Unit's target_defs) may be read. */
Unit *sema_analyze_consuming(Arena *a, const Program *p, Arena *tree,
                             Bindings *b, DiagSink *diags);
/* The most graph nodes one file may make (all models together): far above
 * any real model (a 100,000-layer transformer is 1.6 M), far below what
 * would exhaust memory. */
#define SEMA_MAX_NODES (1 << 22)
/* --dump graph: per model a header line, one line per scope and region,
 * then one line per node:
 *   %ID NAME: ROLE OP(%IN, ...) -> TYPE [precision P[!]] xCOUNT [scope S]
 *   [region R] consumers N [output] [carried] at LINE:COL
 * (OP is "decl" for declarations; "!" marks precision=). */
void graph_dump(const Unit *u, const SourceSet *ss, FILE *out);

/* ===================================================================== */
/* target.c: accelerators: built-ins embedded at build, user files.       */
/* ===================================================================== */

typedef struct MemLevel {
  const char *name;      /* section name, e.g. "hbm" */
  const char *label;     /* "HBM3" */
  double capacity;       /* bytes; 0 = not stated ("-") */
  const char *capacity_text; /* as written, e.g. "80 GB" */
  double bandwidth;      /* B/s */
  double latency;        /* s */
  const char *note;      /* "warehouse in the yard" */
  bool approximate;      /* `approximate = true`: printed as "~100 TB/s" */
} MemLevel;

/* What measured kernels reach, beside the datasheet's peaks (R-CEIL-001):
 * the same slots as Target's, 0 where the card states no measurement. */
typedef struct Achieved {
  double vector_peak[DT__COUNT], tensor_peak[DT__COUNT]; /* FLOP/s */
  double memory_bw, nvlink_bw, ib_bw, pcie_bw;           /* B/s */
} Achieved;

/* --ceilings: which figures a model is priced against (R-CEIL-003). */
typedef enum Ceilings { CEILINGS_PEAK, CEILINGS_ACHIEVED } Ceilings;

typedef struct Target {
  const char *name;      /* h100_sxm */
  const char *display;   /* "NVIDIA H100 SXM" */
  int year;
  int sms;               /* SMs or CUs */
  double memory;         /* bytes */
  double memory_bw;      /* B/s */
  double l2, smem_per_sm, regs_per_sm; /* bytes */
  double vector_peak[DT__COUNT]; /* FLOP/s on the vector/CUDA cores; 0 = none */
  double tensor_peak[DT__COUNT]; /* FLOP/s on tensor cores; 0 = none */
  double nvlink_bw, ib_bw, pcie_bw; /* B/s, one direction except as sourced */
  int gpus_per_node;
  int tile_m, tile_n;    /* matmul output tile (default 128x128) */
  int elements_per_block; /* elementwise/reduction block size */
  double launch_overhead; /* s */
  Achieved achieved;
  /* CEILINGS_ACHIEVED: target_ceilings put the achieved figures in the
   * peak slots; fell_back names the keys stated with no measurement, whose
   * peak stayed. */
  Ceilings ceilings;
  const char **fell_back;
  int nfell_back;
  /* How the outputs name them: NULL for the datasheet's peaks (printed as
   * before), else "achieved ceilings (the peak for fp32, pcie_bw)". */
  const char *ceilings_text;
  MemLevel *levels;
  int nlevels;
  const char **sources;  /* source = "..." lines */
  int nsources;
  Loc loc;
} Target;

/* How a card written by `rooflint calibrate` says so (R-CAL-005,
 * R-CAL-006): its first source line begins CALIBRATED_SOURCE, and one
 * beginning MEASURED_PEAKS_SOURCE says its peaks are measured too (no
 * datasheet card was read). */
#define CALIBRATED_SOURCE "rooflint calibrate "
#define MEASURED_PEAKS_SOURCE "no datasheet card for this device"

/* Built-in targets: parsed from the embedded specs/targets/ files into
 * the source set (so errors in them render like any file). */
typedef struct TargetSet {
  Target **items;
  int n;
} TargetSet;

/* Builds a Target from a `target NAME { }` definition. */
Target *target_from_def(Arena *a, const Stmt *def, DiagSink *diags);
/* Every built-in target, in the order of the embedded list. */
const TargetSet *target_builtins(Arena *a, SourceSet *ss, DiagSink *diags);
/* Resolves NAME among the built-ins and `defs`, or loads FILE (a path with a
 * '/' or ending in .roof).  NULL after reporting an error. */
const Target *target_resolve(Arena *a, SourceSet *ss, const char *name_or_file,
                             const Unit *u, Loc where, DiagSink *diags);
/* `t` priced against `which` ceilings: under CEILINGS_ACHIEVED a copy with
 * each achieved figure in its peak's slot (R-CEIL-003); else `t`. */
const Target *target_ceilings(Arena *a, const Target *t, Ceilings which);
/* The card's achieved figures in key order, "bf16_tc 792.1 TFLOP/s,
 * nvlink_bw 370 GB/s", for the target card; NULL when it states none. */
const char *target_achieved_text(Arena *a, const Target *t);
/* Peak FLOP/s for an op computing at `precision`: contractions use the
 * tensor-core peak (fp32 the vector peak unless tf32), others the vector. */
double target_peak(const Target *t, DType precision, bool contraction,
                   bool *uses_tensor);
/* The headline figure of a part: its 16-bit tensor-core peak (the seed's
 * 990 TFLOP/s for the H100), used for its ridge in `targets`, the card and
 * JSON, so every output quotes the same number. */
double target_headline_peak(const Target *t);

/* ===================================================================== */
/* cost.c: FLOPs, bytes, roofline, occupancy, collectives, footprint.     */
/* ===================================================================== */

typedef enum Bound {
  BOUND_NONE,    /* views: no kernel */
  BOUND_MEMORY,  /* HBM */
  BOUND_COMPUTE,
  BOUND_PCIE,    /* transfers */
  BOUND_NETWORK, /* collectives */
} Bound;

const char *bound_str(Bound b);

/* One per graph node, so only what cannot be derived: intensity, ridge,
 * attainable FLOP/s (cost_node_roof) and waves (cost_node_waves) follow
 * from these and the target; a collective's legs are in its Collective. */
typedef struct NodeCost { /* doubles first: no padding (one per node) */
  double flops;        /* one execution */
  double bytes;        /* one execution, HBM (or the link for transfers) */
  double peak;         /* FLOP/s the node can reach at its precision */
  double time_s;       /* one execution */
  double blocks;       /* thread blocks of its kernel (0: not a kernel) */
  int kernel;          /* its kernel (cost_kernel), -1 for views/decls */
  /* Small fields are bit-fields: there is one NodeCost per graph node. */
  Bound bound : 8;
  bool tensor : 1;     /* peak is a tensor-core peak */
  bool fused : 1;      /* its kernel is its fused region's */
} NodeCost;

/* A kernel: one non-view op, or one whole fused region (roofline figures
 * by cost_kernel_roof).  Not stored: cost_kernel() assembles it, by value,
 * from the op's NodeCost and GNode, or from the region's FusedCost. */
typedef struct Kernel {
  int first_node;  /* the op, or the region's first node */
  int region;      /* -1 for a single op */
  double count;
  double flops, bytes, peak, time_s;
  Bound bound;
} Kernel;

/* The figures of a fused region's kernel, which no single node holds. */
typedef struct FusedCost {
  double flops, bytes, peak, time_s;
  Bound bound;
} FusedCost;

typedef struct Footprint {
  double weights, gradients, optimizer, activations; /* bytes, per GPU */
  double buffers; /* `buffer` declarations: no gradients, no optimizer state */
  double kv_cache; /* `cache` declarations at the length their appends reach */
  /* the part of kv_cache that no append extends, read only by the step
   * (cross-attention keys and values, R-FAM-105) */
  double read_only_cache;
  /* the part of kv_cache that is a recurrent layer's state, which no
   * attention reads (Mamba's, R-FAM-202): `SSM state` where KV cache is
   * said */
  double recurrent_state;
  /* R-PAR-013: zero = 3 gathers an FSDP unit's full weights while it runs,
   * two units at once; units is what that holds of the whole weights (the
   * two largest units, per GPU), gathered that part of the footprint */
  double units, gathered;
  double total;
  /* ZeRO: how many GPUs share each part (R-PAR-004); 0 or 1: not sharded */
  int64_t weight_shards, gradient_shards, optimizer_shards;
} Footprint;

/* R-PAR-009: a pipeline of `stages` stages over `microbatches`
 * microbatches (1F1B, Narayanan et al. 2021).  Per stage kind: the
 * first, a middle one (stage 1, the busiest of the middle ones) and the
 * last; with 2 stages there is no middle one. */
enum { PIPE_FIRST, PIPE_MIDDLE, PIPE_LAST, PIPE__KINDS };
typedef struct PipelineCost {
  int stages;
  double microbatches;
  int scope;                      /* the repeat split over the stages */
  int first_node;                 /* its first node: before it, the first stage's */
  double layers;                  /* its copies per stage */
  double compute[PIPE__KINDS];    /* one microbatch, forward (+ backward) */
  double time[PIPE__KINDS];       /* compute + the sends it waits for */
  Footprint footprint[PIPE__KINDS]; /* per GPU, after sharding */
  double inflight[PIPE__KINDS];   /* microbatches of activations kept */
  double send_bytes, send_time;   /* one boundary send of one microbatch */
  double send_split;              /* tensor ranks it is scattered over (R-PAR-011); 1: none */
  bool send_ib;                   /* stages on different nodes */
  double bubble;                  /* (p - 1) / (m + p - 1) */
  double step_time;               /* (m + p - 1) x the slowest stage */
  int worst;                      /* the stage kind whose footprint is the GPU's */
} PipelineCost;

typedef struct Collective {
  int node;         /* -1 for the implicit gradient synchronisation of train mode */
  const char *kind; /* "allreduce", ... */
  const char *what; /* an implicit one's buffer: "gradients", "weights", ... */
  ParGroup group;   /* the group it runs over (R-PAR-003) */
  double buffer;    /* bytes */
  int ranks;
  double nvlink_bytes, ib_bytes; /* per GPU per execution */
  double nvlink_time, ib_time, time_s;
  double count;
  /* An implicit collective an op brings (an experts block's dispatch and
   * combine, R-MOE-006; a vocab-parallel cross_entropy's all-reduces,
   * R-PAR-012): a node of it, whose pipeline stage runs it every
   * microbatch.  -1: an explicit one, or the gradient synchronisation. */
  int at;
  /* Of the gradient synchronisation, one that runs every microbatch, not
   * once a step: ZeRO-3's weight gathers (R-PAR-020). */
  bool every_microbatch;
} Collective;

typedef struct ModelCost {
  const Model *model;
  const Target *target;
  NodeCost *nodes;  /* parallel to model->nodes */
  /* Kernels, by cost_kernel(): a single-op kernel's figures are its op's
   * NodeCost, so a kernel stores only its first node and count, never a
   * copy of the figures (and a pass over the kernels reads no GNode); a
   * fused region's figures are per region (FusedCost). */
  int *kernel_node;     /* per kernel: the op, or the region's first node */
  double *kernel_count; /* per kernel: its first node's count */
  int nkernels;
  int *region_kernel; /* per model->regions entry: its kernel, -1 if none */
  FusedCost *fused;   /* per model->regions entry with a kernel */
  Collective *collectives;
  int ncollectives;
  double flops, bytes, time_s;   /* totals per step (counts multiplied) */
  double memory_bound_time;      /* seconds in memory-bound kernels */
  double transfer_time, collective_time;
  double params;                 /* parameter count (all GPUs' shards) */
  /* Parameters one token runs through: an experts block's weights count
   * K of their E copies (R-MOE-005); == params without one. */
  double active_params;
  double active_param_bytes;     /* their bytes, each in its dtype */
  bool experts;                  /* the model has an experts block */
  double gpu_params;             /* parameters one GPU holds before ZeRO */
  double overlap_time;           /* max(compute, collectives) (R-PAR-007) */
  /* Microbatches a train step accumulates without a pipeline (R-PAR-020):
   * the totals are one microbatch's, as with a pipeline; 1 otherwise. */
  double accumulated;
  Footprint footprint;           /* per GPU, after sharding */
  Footprint unsharded;           /* per GPU, before ZeRO */
  PipelineCost pipe;             /* stages == 0: no pipeline */
} ModelCost;

/* R-PAR-007: a step's compute and communication, and its time with and
 * without overlap (the max of the two, their sum); with gradient
 * accumulation (R-PAR-020) the step's, not the totals' one microbatch.
 * Without a pipeline. */
typedef struct StepSplit {
  double compute, communication, overlapped, summed;
} StepSplit;
StepSplit cost_step_split(const ModelCost *mc);

/* R-PAR-007: the plan's step time: overlapped with overlap, else summed
 * (R-PAR-009: a pipeline's). */
double cost_step_time(const ModelCost *mc);

/* Whether the totals, the kernel table and the ops' collectives are one
 * microbatch, not a step: a pipeline's (R-PAR-009) or accumulated
 * (R-PAR-020). */
bool cost_per_microbatch(const ModelCost *mc);

/* requires: a graph from sema without errors.  Pure function of (model,
 * target). */
ModelCost *cost_model(Arena *a, const Model *m, const Target *t);
/* The KV cache footprint (R-CACHE-001), also split by the caches' storage
 * dtype into by_dtype[DT__COUNT] (NULL: not asked). */
double cost_kv_cache(const Model *m, double *by_dtype);
/* What the caches hold, as a part of the footprint is named (R-FAM-202):
 * "KV cache", "SSM state" (a recurrent state alone) or "KV cache and SSM
 * state". */
const char *footprint_cache_name(const Footprint *f);
/* The activation footprint cost_model gives the model (before pipeline
 * stages), also split by storage dtype into by_dtype[DT__COUNT]. */
double cost_activations(const Model *m, double *by_dtype);
/* The parameters (whole, as the summary counts them) and the weight bytes
 * one GPU holds before ZeRO, added into params_by and bytes_by by storage
 * dtype. */
void cost_weights(const Model *m, double *params_by, double *bytes_by);

/* The roofline figures that follow from a node's or a kernel's FLOPs, bytes,
 * peak and bound on the target.  Derived on demand rather than stored, so
 * nodes and kernels carry no figure that follows from others. */
typedef struct RoofPoint {
  double intensity;  /* FLOP/B; 0 when bytes == 0 */
  double ridge;      /* peak / memory bandwidth, FLOP/B */
  double attainable; /* FLOP/s: min(peak, bw * intensity) on the HBM roofs;
                        0 for views, transfers and collectives */
} RoofPoint;

/* Kernel k (0 <= k < nkernels): the same doubles, bit for bit, that the
 * cost model summed into its totals. */
Kernel cost_kernel(const ModelCost *mc, int k);
/* Kernel k's name as written, the one every output and check prints: its
 * fused region's, else its first node's; "?" for neither. */
const char *cost_kernel_name(const Model *m, const Kernel *k);
/* Where kernel k is written: its `fused NAME` header, or its op's node. */
Loc cost_kernel_loc(const Model *m, const Kernel *k);

RoofPoint cost_node_roof(const ModelCost *mc, const NodeCost *nc);
RoofPoint cost_kernel_roof(const ModelCost *mc, const Kernel *k);

/* Occupancy of a node's blocks on the target's SMs (all 0 without blocks). */
typedef struct Waves {
  double waves;       /* ceil(blocks / SMs) */
  double utilisation; /* blocks / (waves * SMs) */
  double idle_sms;    /* waves * SMs - blocks: block slots left empty */
} Waves;

Waves cost_node_waves(const ModelCost *mc, const NodeCost *nc);

/* ===================================================================== */
/* checks.c + checks/: the check registry.                                 */
/* ===================================================================== */

/* What the checks share about one model (src/checks/checks.h). */
struct CheckShared;

typedef struct CheckCtx {
  Arena *arena;       /* results that outlive the run; scratch is xmalloc'd */
  const SourceSet *sources;
  /* The file's syntax tree, kept or to be parsed again (NULL: none).
   * Read it through checks_program() (checks/checks.h). */
  struct ProgramSource *tree;
  const Unit *unit;
  const Model *model;
  const ModelCost *cost;
  const Target *target;
  Bindings *bindings; /* for re-running the analysis (crossover search) */
  DiagSink *diags;
  /* Set by checks_run for the checks it runs; NULL (a check run on its
   * own): each check computes what it needs. */
  struct CheckShared *shared;
  /* The policy applied afterwards (NULL: none), so that costly notes are
   * worked out only for findings it keeps (diag_dropped). */
  const DiagPolicy *policy;
  /* An imported file's re-analysis with one more -D binding, which its
   * importer reads (-D tensor=2 writes another model, not the same text
   * with a let changed): the driver's, since the importers sit above the
   * checks.  The model costed on `t` in arena `a`, or NULL when the
   * import or the analysis fails there; `add` holds nadd bindings.  NULL for .roof text, whose lets
   * the checks override themselves (checks_rerun). */
  const struct ModelCost *(*reimport)(const struct CheckCtx *ctx, Arena *a,
                                      const LetOverride *add, int nadd,
                                      const Target *t);
  const struct ImportOptions *import; /* what the file was imported with */
} CheckCtx;

/* One check, complete: each src/checks/X.c defines one (check_X) with its
 * code, thresholds and --explain text; checks.c lists them. */
typedef struct CheckDesc {
  const char *name;     /* "memory-bound" */
  Severity severity;    /* default severity */
  bool default_on;
  const char *summary;  /* one line */
  const char *explain;  /* the --explain text */
  void (*run)(const CheckCtx *ctx);
  /* What it adds to the checks' shared analysis (src/checks/checks.h), or
   * NULL. */
  const struct CheckHooks *hooks;
  /* Also run on every further --target, each message naming its target
   * (capacity: "which of these does it fit on?", R-CHK-081); the other
   * checks advise on the first target only. */
  bool every_target;
} CheckDesc;

/* The registered checks, in registry order (*n of them). */
const CheckDesc *const *check_registry(int *n);
const CheckDesc *check_lookup(const char *name);
/* Runs every registered check on one model (policy is applied later). */
void checks_run(const CheckCtx *ctx);

/* The serving answer of a model with a KV cache (R-SERVE-001), on the
 * context's target: what a decode step gives at the batch it is written
 * for, and the two batches found by analysing it again. */
typedef struct Serving {
  const char *batch;      /* the let searched: the first that sizes the cache */
  int64_t batch_now;      /* its value */
  const char *at;         /* the other lets that size the cache, "ctx = 8192" */
  double token_time;      /* seconds per output token: one step */
  double tokens_per_s;    /* the whole plan: batch x data ranks / step */
  double tokens_per_s_gpu;
  int64_t gpus;
  int64_t max_batch;      /* the largest that fits; 0: none; -1: unknown */
  int64_t compute_batch;  /* from which the slowest weight GEMM is compute-bound; -1: none */
  const char *compute_node; /* that GEMM */
} Serving;
/* Fills *out in ctx->arena; false (nothing to say) for a model without a
 * KV cache or a let that sizes it. */
bool checks_serving(const CheckCtx *ctx, Serving *out);

/* ===================================================================== */
/* format.c: numbers with units, as the seed rounds them.                 */
/* ===================================================================== */

/* Each writes into buf (size n) and returns buf. */
char *fmt_flops_rate(char *buf, size_t n, double flops_per_s); /* "990.0 TFLOP/s" */
char *fmt_bytes(char *buf, size_t n, double bytes);            /* "33.6 MB" */
char *fmt_binary_bytes(char *buf, size_t n, double bytes);     /* "80 GiB", or NULL */
char *fmt_capacity(char *buf, size_t n, double bytes);         /* "80 GiB = 85.9 GB" */
char *fmt_bandwidth(char *buf, size_t n, double bytes_per_s);  /* "3.35 TB/s" */
char *fmt_time(char *buf, size_t n, double seconds);           /* "27.2 ms" */
char *fmt_count(char *buf, size_t n, double count);            /* "137.4 G" */
/* The rounding every fmt_* uses: x as a 12-significant-digit decimal, then
 * half to even at `decimals` (3.35 -> 3.4, 2.625 -> 2.62, as the seed). */
double fmt_round(double x, int decimals);
char *fmt_fixed(char *buf, size_t n, double x, int decimals);    /* "1365.333" */
/* The same two through decimal text (snprintf, strtod), the rule as first
 * written: fmt_round and fmt_fixed take an exact integer route where they
 * can and must agree with these bit for bit (check_format holds them to
 * it). */
double fmt_round_ref(double x, int decimals);
char *fmt_fixed_ref(char *buf, size_t n, double x, int decimals);
char *fmt_percent(char *buf, size_t n, double fraction, int decimals); /* "0.8%" */
char *fmt_sig3(char *buf, size_t n, double x);                   /* "6.70" */
/* An arithmetic intensity (FLOP/B) in a message: three significant digits,
 * none after the point from 100 on ("0.167", "1.00", "42.7", "1365"), as
 * the seed writes them in prose ("1.00 FLOP/byte", "1365 -> 683"). */
char *fmt_intensity(char *buf, size_t n, double flop_per_byte);
char *fmt_flop(char *buf, size_t n, double flops);               /* "13.5 GFLOP" */
/* Where a node is, as the `at` columns print it: "LINE:COL" (byte
 * column), "-" when it has no place in a file. */
char *fmt_at(char *buf, size_t n, const SourceSet *ss, Loc loc);  /* "12:7" */

/* ===================================================================== */
/* embedded: specs/targets/ files compiled into the binary (build/gen).   */
/* ===================================================================== */

typedef struct EmbeddedFile {
  const char *name; /* "h100_sxm.roof" */
  const char *text;
  size_t len;
} EmbeddedFile;

extern const EmbeddedFile embedded_targets[];
extern const int embedded_targets_count;

/* ===================================================================== */
/* analyze.c: one file through the whole pipeline (pure in its inputs).   */
/* ===================================================================== */

typedef struct Analysis Analysis;

/* What the caller needs of an analysis; how each is met is analyze.c's. */
typedef struct AnalyzeOptions {
  Bindings *bindings;       /* -D overrides (and sweep values) */
  const char **targets;     /* --target names/files; none = the file's, else h100_sxm */
  int ntargets;
  bool run_checks;
  const DiagPolicy *policy; /* for the checks (CheckCtx.policy); NULL: none */
  /* The caller reads the syntax tree afterwards (Analysis.tree.program). */
  bool keep_tree;
  /* The caller will analyse this file's text again in this run (the first
   * --sweep value): this analysis keeps what the later ones reuse. */
  bool reanalyse;
  /* This file's earlier analysis in this run, made with reanalyse (a
   * --sweep value after the first); NULL: the first. */
  const Analysis *earlier;
  /* How the file was imported (import.h), so that the checks can import
   * it again with another -D (CheckCtx.reimport); NULL: not again. */
  const struct ImportOptions *import;
  /* Work out the serving answer of each model with a KV cache
   * (Analysis.serving), for an output that prints it. */
  bool serving;
  Ceilings ceilings; /* --ceilings: every target priced against these */
} AnalyzeOptions;

typedef struct Analysis {
  int file;
  ProgramSource tree;      /* tree.program: NULL after sema unless kept */
  Unit *unit;              /* NULL when parsing or sema failed */
  const Target **targets;  /* at least one when unit != NULL */
  int ntargets;
  ModelCost **costs;       /* [model * ntargets + target] */
  /* [model], on the first target, when AnalyzeOptions.serving: NULL
   * entries for models without an answer; NULL when not asked. */
  Serving **serving;
} Analysis;

/* Parse, sema, target resolution, cost (every target), checks (first
 * target).  Errors go to the sink; fields are NULL past the first failing
 * stage. */
Analysis *analyze_file(Arena *a, SourceSet *ss, int file,
                       const AnalyzeOptions *opts, DiagSink *diags);

/* The checks on every model of an analysis that has a graph: all of them
 * on its first target, then on each further target the ones marked
 * every_target (R-CHK-081).  analyze_file runs it under run_checks; diff
 * runs it into a sink of its own. */
void analyze_checks(Arena *a, SourceSet *ss, Analysis *an, Bindings *bindings,
                    const DiagPolicy *policy, DiagSink *diags);

#endif /* ROOFLINT_H */
