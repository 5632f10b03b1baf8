/* SPDX-License-Identifier: MIT */
/*
 * parser.y: the bison grammar of .roof files (models and targets share it).
 * bison writes build/gen/parser.c and build/gen/parser.h from this file; never
 * edit those.  Conventions: terminals UPPER, nonterminals lower_snake,
 * keywords carry string aliases.  Actions are one or two calls into the
 * ast.c constructors; the grammar accepts a superset of the language (any
 * statement in any block) and sema rejects what is misplaced.
 *
 * Statements end at a NEWLINE, a ';' or the '}' that closes their block; the
 * scanner drops newlines inside ( ) and [ ].  Error recovery happens only at
 * statement terminators and closing braces, leaving ST_ERROR placeholders.
 */

/* Reentrant: every bit of state lives in yyscanner and ctx. */
%define api.pure full
/* Our byte-range Loc is the location type (see YYLLOC_DEFAULT below). */
%locations
%define api.location.type {Loc}
/* The scanner handle goes to both yylex and yyparse ... */
%param {yyscan_t yyscanner}
/* ... and the parse context (arena, sink, file, result) to yyparse only. */
%parse-param {ParseCtx *ctx}
/* Syntax errors are worded by yyreport_syntax_error below. */
%define parse.error custom
/* Exact expected-token lists.  Canonical LR(1) tables reduce only on the
 * tokens that can really follow, and default reductions happen only where
 * no lookahead is needed, so a syntax error is met in the state that saw
 * the last good token, before any reduction on the bad one.  This is what
 * `parse.lac full` gave on LALR tables, without its exploration of the
 * stack on each lookahead that triggers a reduction (several times an op
 * line).  The tables are bigger than LALR's, which is the price. */
%define lr.type canonical-lr
%define lr.default-reduction consistent
/* Trace switchable at run time: ROOFLINT_YYDEBUG=1 sets yydebug. */
%define parse.trace
/* Conflicts break the build. */
%expect 0

/* In parser.h, before YYSTYPE: the types the values and ParseCtx need. */
%code requires {
#include "ast.h"

/* flex's handle, declared here so parser.h stands alone. */
#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

/* A list while its rule is being recognised: elements [base, base + n) of
 * one of ParseCtx's scratch stacks.  When the construct that owns it is
 * reduced, the list is copied into the arena at its exact size and popped,
 * so the arena holds no outgrown copies.  Lists nest: an inner list is
 * complete (and popped) before the outer one grows again. */
typedef struct List { int base, n; } List;
/* A scratch stack (xmalloc'd, reused by every list of one element type). */
typedef struct Scratch { void *items; int top, cap; } Scratch;

enum { PARSE_MAX_NEST = 256 }; /* ( [ { deeper than this stop the parse */

/* An open bracket the scanner has seen and not yet matched. */
typedef struct Opener {
  char c;  /* '(' '[' or '{' */
  Loc loc;
} Opener;

/* Everything one parse needs; the scanner reaches it through yyextra. */
typedef struct ParseCtx {
  Arena *arena;
  DiagSink *diags;
  SourceSet *ss;
  SourceFile *sf;
  int file;
  Program *prog;        /* the result; nsyntax_errors counts here */
  uint32_t offset;      /* running byte offset (YY_USER_ACTION) */
  int line;             /* 1-based line of the scanner's position */
  Opener open[PARSE_MAX_NEST]; /* unmatched brackets, innermost last */
  int nopen;
  bool stop;            /* nesting too deep or too many errors: feed EOF */
  bool too_many;        /* the sink reached its error limit (parse_error) */
  int last_token;       /* the previous token (unary minus detection) */
  int unary_run;        /* consecutive unary minus signs so far */
  int nsynth;           /* closers made up at EOF for unclosed brackets */
  bool eof_newline;     /* the NEWLINE made up at EOF was returned */
  int64_t noted_open;   /* start of the opener a syntax error pointed at */
  /* R-SYN-014: the first '{' closed by a '}' indented less than the
   * opener's line: its own '}' is probably the one missing; and where
   * that '}' stands. */
  bool has_misclosed;
  Loc misclosed;
  uint32_t misclosed_by;
  int64_t stray_end;    /* end offset of the last stray character, or -1 */
  bool at_pending;      /* a stray '@' at at_loc, reported at the next token */
  Loc at_loc;
  struct WordTable *words; /* keywords and names seen (parse.c); NULL at first */
  /* parse_file sets this and frees the word table at the end; a scanner
   * driven on its own (the lexer tests) keeps the table in the arena. */
  bool heap_words;
  Scratch stmts, exprs, args, idents; /* Stmt *, Expr *, Arg, Ident */
  Arena *names;          /* names, strings, directive text; NULL: arena */
  bool skip_directives;  /* ParseOptions.skip_directives */
} ParseCtx;

/* Spans first..last symbol; an empty rule gets a zero-width location at the
 * end of what precedes it.  The first symbol's location is copied whole
 * and its end replaced, so the parser's copy of the result reads back
 * stores no narrower than its loads. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                   \
  do {                                                                \
    if (N) {                                                          \
      uint32_t end_ = YYRHSLOC(Rhs, N).end;                           \
      (Cur) = YYRHSLOC(Rhs, 1);                                       \
      (Cur).end = end_;                                               \
    } else {                                                          \
      (Cur).file = YYRHSLOC(Rhs, 0).file;                             \
      (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end;                 \
    }                                                                 \
  } while (0)
/* For the trace: a custom location type has no default printer. */
#define YYLOCATION_PRINT(File, Loc) \
  fprintf(File, "%u-%u", (unsigned)(Loc)->start, (unsigned)(Loc)->end)
}

/* In parser.h, after the token kinds: what lexer.l and parse.c share. */
%code provides {
/* parse.c: helpers the scanner and the actions share. */
/* Records a syntax (or lexical) error and counts it in the Program. */
Diag *parse_error(ParseCtx *ctx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* The scanner's helpers: each converts or records one lexeme.  Those
 * called for most tokens take the token's start offset (a word's location
 * is its len bytes from there, a bracket's one byte) or a pointer to its
 * location, not a Loc by value: copying *yylloc whole reads back, in
 * wider loads, the fields YY_USER_ACTION has just stored one by one, and
 * a load that spans several pending stores waits for them to complete. */
int parse_lex_word(ParseCtx *ctx, const char *text, size_t len, uint32_t start, int *out);
/* The text of the name with dense id `id` (an IDENT's value), and the
 * Ident for it. */
const char *parse_name_text(const ParseCtx *ctx, int id);
Ident parse_ident(const ParseCtx *ctx, int id, Loc loc);
int parse_lex_number(ParseCtx *ctx, const char *text, size_t len, Loc loc, Expr **out);
int parse_lex_quantity(ParseCtx *ctx, const char *text, size_t len, Loc loc, Expr **out);
Expr *parse_lex_string(ParseCtx *ctx, const char *text, size_t len, Loc loc);
/* A string without its closing quote, before a newline or else at EOF. */
Expr *parse_lex_unterminated(ParseCtx *ctx, const char *text, size_t len, Loc loc,
                             bool at_newline);
/* The bytes of the comment whose '#' is at loc.start, to its line's end. */
int parse_lex_comment_len(const ParseCtx *ctx, Loc loc);
void parse_lex_comment(ParseCtx *ctx, const char *text, size_t len, Loc loc);
/* Reports the stray character at text; returns how many of the len bytes
 * it is (one for a byte that is not well-formed UTF-8). */
int parse_lex_stray(ParseCtx *ctx, const char *text, size_t len, Loc loc);
bool parse_lex_open(ParseCtx *ctx, char c, uint32_t at);
void parse_lex_close(ParseCtx *ctx, char c, uint32_t at);
bool parse_lex_in_parens(const ParseCtx *ctx);
/* Records `tok` as the last token; a run of unary minus signs longer
 * than PARSE_MAX_NEST stops the parse (END) like any deep nesting. */
int parse_lex_token_any(ParseCtx *ctx, int tok, Loc loc);
/* parse_lex_token_any, with the common case (no '@' waiting for the next
 * token, and not a '-') inline in the scanner, which calls it per token. */
static inline int parse_lex_token(ParseCtx *ctx, int tok, const Loc *loc) {
  if (ctx->at_pending || tok == '-') return parse_lex_token_any(ctx, tok, *loc);
  ctx->unary_run = 0;
  ctx->last_token = tok;
  return tok;
}
/* At EOF: reports an unclosed bracket, then returns a closer for each
 * open one, a NEWLINE and END, so recovery completes the tree. */
int parse_lex_eof(ParseCtx *ctx, Loc *loc);
/* True when `at` is the first token after a stray character. */
bool parse_after_stray(const ParseCtx *ctx, Loc at);
/* Lists on the scratch stacks: start one, push to it, and take it into the
 * arena (NULL when empty), which pops it.  A push returns the list one
 * longer: the action stores it into $$ whole, where the parser copies it
 * from (updating a field of $$ in place and then copying all of it would
 * read back a narrower store in a wider load, which waits for the store). */
List parse_list(const Scratch *s);
List parse_push_stmt(ParseCtx *ctx, List l, Stmt *s);
List parse_push_expr(ParseCtx *ctx, List l, Expr *e);
/* An argument: positional (parse_push_value) or `name = value`. */
List parse_push_value(ParseCtx *ctx, List l, Expr *value);
List parse_push_arg(ParseCtx *ctx, List l, const char *name, Loc name_loc, Expr *value);
List parse_push_name(ParseCtx *ctx, List l, Ident id);
/* Pushes the ST_ERROR placeholder for what error recovery skipped. */
List parse_skipped(ParseCtx *ctx, List l, Loc loc);
Block parse_block(ParseCtx *ctx, List l, Loc open, Loc close);
/* parse_block's result in the arena (the parser's value for a block). */
Block *parse_block_ptr(ParseCtx *ctx, List l, Loc open, Loc close);
Expr **parse_exprs(ParseCtx *ctx, List l);
Arg *parse_args(ParseCtx *ctx, List l);
Ident *parse_names(ParseCtx *ctx, List l);
}

/* In parser.c only: the scanner's prototypes and our yyerror. */
%code {
#include "lexer.h"

static void yyerror(const Loc *loc, yyscan_t yyscanner, ParseCtx *ctx,
                    const char *msg);

/* The EX_NAME for an IDENT taken where an expr could stand (see expr). */
static Expr *name_expr(ParseCtx *ctx, int id, Loc loc) {
  return ast_name(ctx->arena, id, loc);
}

/* R-MOE-001: `experts E top K [opts] { }`; the word between E and K is
 * `top` (a name elsewhere, not a keyword). */
static Stmt *experts_stmt(ParseCtx *ctx, Expr *count, int word, Loc word_loc,
                          Expr *top, const List *opts, Block body, Loc loc) {
  const char *w = parse_name_text(ctx, word);
  if (strcmp(w, "top") != 0) {
    Diag *d = parse_error(ctx, word_loc,
                          "expected 'top' after the expert count, like "
                          "'experts 8 top 2 { ... }', found '%s'", w);
    diag_fixit(d, word_loc, "top");
  }
  return ast_stmt_experts(ctx->arena, count, top,
                          opts ? parse_args(ctx, *opts) : NULL,
                          opts ? opts->n : 0, body, loc);
}
}

/* Semantic values are arena pointers or lists on the scratch stacks (which
 * parse_file frees): nothing needs a %destructor, and error recovery cannot
 * leak.  Every member is at most 8 bytes: bison copies a value on each
 * shift and reduction, millions of times in a big model, so a block
 * travels as a pointer to its arena copy rather than by value. */
/* The parser copies values 8 bytes at a time, so the int members are
 * stored as 8 bytes: a 4-byte store read back by an 8-byte load waits for
 * the store to complete. */
%union {
  int64_t name;     /* IDENT: the name's dense id, an int (parse_name_text) */
  Expr *expr;
  Stmt *stmt;
  Block *block;     /* arena */
  List list;        /* Stmt *, Expr *, Arg or Ident, by nonterminal */
  int64_t decl;     /* a DeclKind */
}

/* How the trace shows each kind of value. */
%printer { fprintf(yyo, "%s", parse_name_text(ctx, $$)); } <name>
%printer { fprintf(yyo, "%s", expr_kind_str($$->kind)); } <expr>
%printer { fprintf(yyo, "%s", $$ ? stmt_kind_str($$->kind) : "-"); } <stmt>
%printer { fprintf(yyo, "%d items", $$->n); } <block>
%printer { fprintf(yyo, "%d items", $$.n); } <list>

/* A custom location type is not initialised by bison: start at byte 0. */
%initial-action { @$ = (Loc){ctx->file, 0, 0}; }

/* ---- tokens ---------------------------------------------------------- */
/* Token 0 is EOF; the aliases are how errors and the trace spell tokens. */
%token END 0 "end of file"
%token NEWLINE "newline"
%token LET "let" TARGET "target" MODEL "model" DTYPE "dtype" MODE "mode"
%token PARALLEL "parallel" INPUT "input" WEIGHT "weight" HOST "host"
%token BUFFER "buffer" CACHE "cache" EXPERTS "experts"
%token REPEAT "repeat" LOOP "loop" FUSED "fused" OUTPUT "output"
%token CHECKPOINT "checkpoint"
%token TRUE "true" FALSE "false"
/* R-LEX-014: the real +infinity; `-inf` is its negation */
%token INF "inf"
%token FLOORDIV "//"
%token <name> IDENT "name"
/* The scanner builds literal nodes itself (value, unit, location). */
%token <expr> INT "integer" REAL "real number" STRING "string"
%token <expr> QUANTITY "quantity"

/* Nonterminal value types. */
%type <block> block
%type <list> stmt_list
%type <stmt> stmt
%type <expr> expr nexpr
%type <list> items item_list
%type <list> arg_list
%type <list> name_list experts_opts
%type <decl> decl_kind

/* Usual arithmetic precedence, loosest first. */
%left '+' '-'
%left '*' '/' '%' "//"
/* Unary minus binds tighter than any binary operator. */
%precedence NEG

/* The whole file. */
%start program

%%

/* ---- files and blocks ------------------------------------------------
 *   program   = stmt_list [stmt] EOF
 *   block     = '{' stmt_list [stmt] '}'
 *   stmt_list = { [stmt] terminator }
 * A statement needs a terminator unless it is the last one in its block or
 * file. */
program
  : stmt_list       { ctx->prog->top = parse_block(ctx, $1, LOC_NONE, LOC_NONE); }
  | stmt_list stmt  {
      ctx->prog->top = parse_block(ctx, parse_push_stmt(ctx, $1, $2), LOC_NONE, LOC_NONE);
    }
  ;

/* A terminator is NEWLINE or ';'.  The alternatives spell both out rather
 * than share a `terminator` nonterminal: that would cost a reduction per
 * statement, and a big model has millions. */
stmt_list
  : %empty                      { $$ = parse_list(&ctx->stmts); }
  | stmt_list NEWLINE           { $$ = $1; }
  | stmt_list ';'               { $$ = $1; }
  | stmt_list stmt NEWLINE      { $$ = parse_push_stmt(ctx, $1, $2); }
  | stmt_list stmt ';'          { $$ = parse_push_stmt(ctx, $1, $2); }
  /* Resynchronise at the end of the statement (we are sure of it there). */
  | stmt_list skipped NEWLINE   { $$ = parse_skipped(ctx, $1, @2); yyerrok; }
  | stmt_list skipped ';'       { $$ = parse_skipped(ctx, $1, @2); yyerrok; }
  ;

/* What error recovery skips: tokens up to the terminator, and a whole
 * block when one follows (so its '}' does not close the enclosing one). */
skipped
  : error
  | error block
  ;

block
  : '{' stmt_list '}'       { $$ = parse_block_ptr(ctx, $2, @1, @3); }
  | '{' stmt_list stmt '}'  {
      $$ = parse_block_ptr(ctx, parse_push_stmt(ctx, $2, $3), @1, @4);
    }
  /* An error in the last statement: resynchronise at the closing brace. */
  | '{' stmt_list skipped '}' {
      $$ = parse_block_ptr(ctx, parse_skipped(ctx, $2, @3), @1, @4);
      yyerrok;
    }
  ;

/* ---- statements ------------------------------------------------------
 *   let NAME = expr | target NAME [block] | model NAME block
 *   dtype WORD | dtype CLASS = WORD | mode WORD | parallel block
 *   (input|weight|host|buffer) NAME {, NAME} : expr | NAME = expr
 *   NAME, NAME {, NAME} = nexpr
 *   repeat expr block | loop expr block | fused NAME block
 *   checkpoint [selective] block
 *   output NAME {, NAME} | WORD NAME block */
stmt
  : "let" IDENT '=' expr          { $$ = ast_stmt_bind(ctx->arena, ST_LET, parse_ident(ctx, $2, @2), $4, @$); }
  /* an op's value: a NAME or an nexpr directly (see expr) */
  | IDENT '=' IDENT               { $$ = ast_stmt_bind(ctx->arena, ST_ASSIGN, parse_ident(ctx, $1, @1), name_expr(ctx, $3, @3), @$); }
  | IDENT '=' nexpr               { $$ = ast_stmt_bind(ctx->arena, ST_ASSIGN, parse_ident(ctx, $1, @1), $3, @$); }
  | "target" IDENT                { $$ = ast_stmt_word(ctx->arena, ST_TARGET_USE, parse_ident(ctx, $2, @2), @$); }
  | "target" IDENT block          { $$ = ast_stmt_def(ctx->arena, ST_TARGET_DEF, ast_ident("target", NAME_NONE, @1), parse_ident(ctx, $2, @2), *$3, @$); }
  | "model" IDENT block           { $$ = ast_stmt_def(ctx->arena, ST_MODEL, ast_ident("model", NAME_NONE, @1), parse_ident(ctx, $2, @2), *$3, @$); }
  | "fused" IDENT block           { $$ = ast_stmt_def(ctx->arena, ST_FUSED, ast_ident("fused", NAME_NONE, @1), parse_ident(ctx, $2, @2), *$3, @$); }
  | "checkpoint" block            { $$ = ast_stmt_def(ctx->arena, ST_CHECKPOINT, ast_ident("checkpoint", NAME_NONE, @1), ast_ident("checkpoint", NAME_NONE, @1), *$2, @$); }
  /* R-PAR-014: checkpoint selective { } */
  | "checkpoint" IDENT block      { $$ = ast_stmt_def(ctx->arena, ST_CHECKPOINT, ast_ident("checkpoint", NAME_NONE, @1), parse_ident(ctx, $2, @2), *$3, @$); }
  | IDENT IDENT block             { $$ = ast_stmt_def(ctx->arena, ST_SECTION, parse_ident(ctx, $1, @1), parse_ident(ctx, $2, @2), *$3, @$); }
  | "dtype" IDENT                 { $$ = ast_stmt_word(ctx->arena, ST_DTYPE, parse_ident(ctx, $2, @2), @$); }
  | "dtype" IDENT '=' IDENT       { $$ = ast_stmt_bind(ctx->arena, ST_DTYPE_CLASS, parse_ident(ctx, $2, @2), name_expr(ctx, $4, @4), @$); }
  | "mode" IDENT                  { $$ = ast_stmt_word(ctx->arena, ST_MODE, parse_ident(ctx, $2, @2), @$); }
  | "parallel" block              { $$ = ast_stmt_parallel(ctx->arena, *$2, @$); }
  | decl_kind name_list ':' expr  { $$ = ast_stmt_decl(ctx->arena, (DeclKind)$1, parse_names(ctx, $2), $2.n, $4, NULL, @$); }
  /* R-PAR-002: weight w : [D, D / T] shard=tensor */
  | decl_kind name_list ':' expr IDENT '=' IDENT {
      Ident opt[2] = {parse_ident(ctx, $5, @5), parse_ident(ctx, $7, @7)};
      $$ = ast_stmt_decl(ctx->arena, (DeclKind)$1, parse_names(ctx, $2), $2.n, $4, opt, @$);
    }
  /* an op's several results (after the decl: ':' keeps its token number): q, k, v = split(qkv, 3, axis=-1) */
  | name_list ',' IDENT '=' nexpr {
      List names = parse_push_name(ctx, $1, parse_ident(ctx, $3, @3));
      $$ = ast_stmt_unpack(ctx->arena, parse_names(ctx, names), names.n, $5, @$);
    }
  | "repeat" expr block           { $$ = ast_stmt_loop(ctx->arena, ST_REPEAT, $2, *$3, @$); }
  | "loop" expr block             { $$ = ast_stmt_loop(ctx->arena, ST_LOOP, $2, *$3, @$); }
  /* R-MOE-001: experts E top K [capacity_factor=X] [imbalance=Y] { ... } */
  | "experts" expr IDENT expr block { $$ = experts_stmt(ctx, $2, $3, @3, $4, NULL, *$5, @$); }
  | "experts" expr IDENT expr experts_opts block { $$ = experts_stmt(ctx, $2, $3, @3, $4, &$5, *$6, @$); }
  | "output" name_list            { $$ = ast_stmt_output(ctx->arena, parse_names(ctx, $2), $2.n, @$); }
  ;

decl_kind
  : "input"   { $$ = DECL_INPUT; }
  | "weight"  { $$ = DECL_WEIGHT; }
  | "host"    { $$ = DECL_HOST; }
  | "buffer"  { $$ = DECL_BUFFER; }
  | "cache"   { $$ = DECL_CACHE; }
  ;

/* experts_opts = NAME '=' expr {NAME '=' expr} */
experts_opts
  : IDENT '=' expr               { $$ = parse_push_arg(ctx, parse_list(&ctx->args), parse_name_text(ctx, $1), @1, $3); }
  | experts_opts IDENT '=' expr  { $$ = parse_push_arg(ctx, $1, parse_name_text(ctx, $2), @2, $4); }
  ;

/* name_list = NAME {, NAME} */
name_list
  : IDENT                { $$ = parse_push_name(ctx, parse_list(&ctx->idents), parse_ident(ctx, $1, @1)); }
  | name_list ',' IDENT  { $$ = parse_push_name(ctx, $1, parse_ident(ctx, $3, @3)); }
  ;

/* ---- expressions -----------------------------------------------------
 *   expr = NAME | nexpr
 *   nexpr = expr (+|-|*|/|//|%) expr | '-' expr
 *         | INT | REAL | STRING | QUANTITY | true | false | inf
 *         | NAME '(' args ')' | '[' items ']' | NAME '[' items ']'
 *         | '(' expr ')'
 * The operands are alternatives of nexpr itself, not of a `primary` below
 * it: one reduction per operand fewer, in a model with millions.  A bare
 * NAME is kept out of nexpr so that where most expressions of a model are
 * written (an op's value, its arguments, the dims of a shape) a NAME or an
 * nexpr is taken directly, without a reduction to expr: about three per
 * op line.  The canonical LR(1) tables tell the two apart by lookahead. */
expr
  : IDENT                   { $$ = name_expr(ctx, $1, @$); }
  | nexpr
  ;

nexpr
  : expr '+' expr           { $$ = ast_binary(ctx->arena, '+', $1, $3, @$); }
  | expr '-' expr           { $$ = ast_binary(ctx->arena, '-', $1, $3, @$); }
  | expr '*' expr           { $$ = ast_binary(ctx->arena, '*', $1, $3, @$); }
  | expr '/' expr           { $$ = ast_binary(ctx->arena, '/', $1, $3, @$); }
  | expr '%' expr           { $$ = ast_binary(ctx->arena, '%', $1, $3, @$); }
  | expr "//" expr          { $$ = ast_binary(ctx->arena, BINOP_FLOORDIV, $1, $3, @$); }
  /* '-' is also binary: %prec gives the unary form its own, tighter level. */
  | '-' expr %prec NEG      { $$ = ast_unary(ctx->arena, '-', $2, @$); }
  | INT
  | REAL
  | STRING
  | QUANTITY
  | "true"                  { $$ = ast_bool(ctx->arena, true, @$); }
  | "false"                 { $$ = ast_bool(ctx->arena, false, @$); }
  | "inf"                   { $$ = ast_inf(ctx->arena, @$); }
  /* args = [arg {, arg} [,]], spelt out here: an `args` nonterminal would
   * cost a reduction per call */
  | IDENT '(' ')'           { $$ = ast_call(ctx->arena, parse_ident(ctx, $1, @1), NULL, 0, @$); }
  | IDENT '(' arg_list ')'  { $$ = ast_call(ctx->arena, parse_ident(ctx, $1, @1), parse_args(ctx, $3), $3.n, @$); }
  | IDENT '(' arg_list ',' ')' { $$ = ast_call(ctx->arena, parse_ident(ctx, $1, @1), parse_args(ctx, $3), $3.n, @$); }
  | '[' items ']'           { $$ = ast_list(ctx->arena, parse_exprs(ctx, $2), $2.n, @$); }
  | IDENT '[' items ']'     { $$ = ast_type(ctx->arena, parse_ident(ctx, $1, @1), parse_exprs(ctx, $3), $3.n, @$); }
  | '(' expr ')'            { $$ = $2; }
  ;

/* items = [expr {, expr} [,]] */
items
  : %empty                  { $$ = parse_list(&ctx->exprs); }
  | item_list
  | item_list ','
  ;

item_list
  : IDENT                   { $$ = parse_push_expr(ctx, parse_list(&ctx->exprs), name_expr(ctx, $1, @1)); }
  | nexpr                   { $$ = parse_push_expr(ctx, parse_list(&ctx->exprs), $1); }
  | item_list ',' IDENT     { $$ = parse_push_expr(ctx, $1, name_expr(ctx, $3, @3)); }
  | item_list ',' nexpr     { $$ = parse_push_expr(ctx, $1, $3); }
  ;

/* arg = expr | NAME '=' expr */
arg_list
  : IDENT                   { $$ = parse_push_value(ctx, parse_list(&ctx->args), name_expr(ctx, $1, @1)); }
  | nexpr                   { $$ = parse_push_value(ctx, parse_list(&ctx->args), $1); }
  | IDENT '=' expr          { $$ = parse_push_arg(ctx, parse_list(&ctx->args), parse_name_text(ctx, $1), @1, $3); }
  | arg_list ',' IDENT      { $$ = parse_push_value(ctx, $1, name_expr(ctx, $3, @3)); }
  | arg_list ',' nexpr      { $$ = parse_push_value(ctx, $1, $3); }
  | arg_list ',' IDENT '=' expr { $$ = parse_push_arg(ctx, $1, parse_name_text(ctx, $3), @3, $5); }
  /* the statement word `mode` is also a keyword name (interpolate mode=) */
  | "mode" '=' expr         { $$ = parse_push_arg(ctx, parse_list(&ctx->args), "mode", @1, $3); }
  | arg_list ',' "mode" '=' expr { $$ = parse_push_arg(ctx, $1, "mode", @3, $5); }
  ;

%%

/* What the expected-token list says, in our words.  Expression starts fold
 * into "an expression", statement starts into "a statement", the
 * terminators into "end of statement"; operators and call/type suffixes,
 * possible after any operand, are named only when nothing else is. */
enum { MAX_EXPECTED = 64 };

/* The character of a single-character token ('(' for "'('"), else 0. */
static char token_char(yysymbol_kind_t k) {
  const char *name = yysymbol_name(k);
  return name[0] == '\'' && name[1] && name[2] == '\'' ? name[1] : 0;
}

static bool has_sym(const yysymbol_kind_t *e, int n, yysymbol_kind_t k) {
  for (int i = 0; i < n; i++)
    if (e[i] == k) return true;
  return false;
}

static bool has_char(const yysymbol_kind_t *e, int n, char c) {
  for (int i = 0; i < n; i++)
    if (token_char(e[i]) == c) return true;
  return false;
}

/* Symbols described by a phrase rather than their spelling. */
static const struct {
  yysymbol_kind_t sym;
  const char *text;
} phrases[] = {
    {YYSYMBOL_IDENT, "a name"},        {YYSYMBOL_INT, "an integer"},
    {YYSYMBOL_REAL, "a number"},       {YYSYMBOL_STRING, "a string"},
    {YYSYMBOL_QUANTITY, "a quantity"}, {YYSYMBOL_NEWLINE, "newline"},
    {YYSYMBOL_YYEOF, "end of file"},
};

static void describe_expected(StrBuf *sb, yysymbol_kind_t k) {
  for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++)
    if (phrases[i].sym == k) {
      sb_puts(sb, phrases[i].text);
      return;
    }
  /* bison spells aliases "let" and characters ')': show both as 'x' */
  const char *name = yysymbol_name(k);
  size_t len = strlen(name);
  if (len >= 2 && (name[0] == '"' || name[0] == '\''))
    sb_printf(sb, "'%.*s'", (int)len - 2, name + 1);
  else
    sb_puts(sb, name);
}

/* The expected tokens as "A", "A or B", "A, B or C". */
static void describe_expected_set(StrBuf *want, const yysymbol_kind_t *exp,
                                  int n) {
  bool expr = has_sym(exp, n, YYSYMBOL_INT);
  bool ends = has_sym(exp, n, YYSYMBOL_NEWLINE) || has_sym(exp, n, YYSYMBOL_YYEOF);
  bool closes = ends || has_char(exp, n, ')') || has_char(exp, n, ']') ||
                has_char(exp, n, ',') || has_char(exp, n, '}') ||
                has_char(exp, n, '{');
  StrBuf items[MAX_EXPECTED + 2] = {{0}};
  int nitems = 0;
  if (has_sym(exp, n, YYSYMBOL_LET)) {
    sb_puts(&items[nitems++], "a statement");
  } else {
    if (expr) sb_puts(&items[nitems++], "an expression");
    for (int i = 0; i < n; i++) {
      yysymbol_kind_t k = exp[i];
      char c = token_char(k);
      bool expr_start = k == YYSYMBOL_INT || k == YYSYMBOL_REAL ||
                        k == YYSYMBOL_STRING || k == YYSYMBOL_QUANTITY ||
                        k == YYSYMBOL_TRUE || k == YYSYMBOL_FALSE ||
                        k == YYSYMBOL_INF ||
                        k == YYSYMBOL_IDENT || (c && strchr("([-", c));
      bool after_operand = (c && strchr("+-*/%([=", c)) || k == YYSYMBOL_FLOORDIV;
      bool terminator = k == YYSYMBOL_NEWLINE || k == YYSYMBOL_YYEOF ||
                        c == ';' || c == '}';
      if ((expr && expr_start) || (closes && after_operand) ||
          (ends && terminator))
        continue;
      describe_expected(&items[nitems++], k);
    }
    if (ends) sb_puts(&items[nitems++], "end of statement");
  }
  for (int i = 0; i < nitems; i++) {
    if (i > 0) sb_puts(want, i == nitems - 1 ? " or " : ", ");
    sb_puts(want, sb_str(&items[i]));
    sb_free(&items[i]);
  }
}

static int yyreport_syntax_error(const yypcontext_t *yyctx, yyscan_t yyscanner,
                                 ParseCtx *ctx) {
  (void)yyscanner;
  if (ctx->stop) return 0; /* the scanner already said why it stopped */
  yysymbol_kind_t found = yypcontext_token(yyctx);
  Loc loc = *yypcontext_location(yyctx);
  /* at EOF the scanner closes what is open (after reporting it): what
   * those made-up closers upset is not worth a message */
  if (ctx->nsynth > 0) return 0;
  /* right after a stray character the parser's complaint is noise */
  if (parse_after_stray(ctx, loc)) return 0;

  yysymbol_kind_t exp[MAX_EXPECTED];
  int n = yypcontext_expected_tokens(yyctx, exp, MAX_EXPECTED);
  if (n < 0) n = 0;
  StrBuf want = {0};
  describe_expected_set(&want, exp, n);
  const char *expected = sb_str(&want);

  Diag *d;
  if (found == YYSYMBOL_YYEOF && has_char(exp, n, '}'))
    d = parse_error(ctx, loc, "expected '}' at end of file");
  else if (found == YYSYMBOL_NEWLINE && ctx->eof_newline)
    d = parse_error(ctx, loc, "expected %s before end of file", expected);
  else if (found == YYSYMBOL_NEWLINE)
    d = parse_error(ctx, loc, "expected %s before newline", expected);
  else if (found == YYSYMBOL_YYEOF)
    d = parse_error(ctx, loc, "expected %s before end of file", expected);
  else if (found == YYSYMBOL_STRING)
    d = parse_error(ctx, loc, "expected %s, found a string", expected);
  else {
    uint32_t len = loc.end - loc.start;
    d = parse_error(ctx, loc, "expected %s, found '%.*s'", expected,
                    (int)(len > 32 ? 32 : len), ctx->sf->text + loc.start);
  }
  /* newlines do not end statements inside ( ): a forgotten ')' shows up
   * lines later, so point back at the opener */
  if (ctx->nopen > 0 && ctx->open[ctx->nopen - 1].c != '{') {
    const Opener *o = &ctx->open[ctx->nopen - 1];
    if (has_char(exp, n, o->c == '(' ? ')' : ']')) {
      diag_note(d, o->loc, "to match this '%c'", o->c);
      ctx->noted_open = o->loc.start;
    }
  }
  sb_free(&want);
  return 0;
}

/* Only reached for "memory exhausted" (parse stack over YYMAXDEPTH), which
 * the nesting limit makes impossible; kept as a located error anyway. */
static void yyerror(const Loc *loc, yyscan_t yyscanner, ParseCtx *ctx,
                    const char *msg) {
  (void)yyscanner;
  parse_error(ctx, *loc, "%s", msg);
}
