/* SPDX-License-Identifier: MIT */
/*
 * check_lexer.c: the scanner, driven token by token through the generated
 * yylex (every token kind, literal values, units in base units, newline
 * rules) and through parse_file for what the scanner records on the side
 * (suppressions, expectations) and the lexical errors, each with its exact
 * message and line:col.
 */
#include <math.h>
#include <string.h>

#include "test_util.h"
#include "parser.h"
#include "lexer.h"

/* Scans `text` completely; token kinds into kinds[], values into vals[]
 * (an IDENT's value is a name id: its text goes into names[]). */
typedef struct Lexed {
  TestCtx *tc;
  int kinds[128];
  YYSTYPE vals[128];
  const char *names[128];
  Loc locs[128];
  int n;
} Lexed;

static Lexed *lex(const char *text) {
  Lexed *lx = xcalloc(1, sizeof *lx);
  lx->tc = tc_parse(""); /* a fixture: arena, sink, source set */
  TestCtx *tc = lx->tc;
  char *copy = xstrdup(text);
  int file = src_add(&tc->ss, "lex.roof", copy, strlen(text));
  ParseCtx ctx = {0};
  ctx.arena = tc->arena;
  ctx.diags = &tc->diags;
  ctx.ss = &tc->ss;
  ctx.sf = tc->ss.files[file];
  ctx.file = file;
  ctx.prog = tc->prog;
  ctx.line = 1;
  ctx.stray_end = -1;
  ctx.noted_open = -1;
  yyscan_t sc;
  yylex_init_extra(&ctx, &sc);
  YY_BUFFER_STATE b = yy_scan_bytes(text, (int)strlen(text), sc);
  for (;;) {
    YYSTYPE v;
    Loc l;
    int k = yylex(&v, &l, sc);
    /* the NEWLINE made up at EOF is not part of the text */
    if (k == END || (k == NEWLINE && ctx.eof_newline) || lx->n == 128) break;
    lx->kinds[lx->n] = k;
    lx->vals[lx->n] = v;
    if (k == IDENT) lx->names[lx->n] = parse_name_text(&ctx, v.name);
    lx->locs[lx->n] = l;
    lx->n++;
  }
  yy_delete_buffer(b, sc);
  yylex_destroy(sc);
  return lx;
}

static void lexed_free(Lexed *lx) {
  tc_free(lx->tc);
  free(lx);
}

/* The one error of a parse, with its message and line:col exactly. */
static void expect_only_error(TestCtx *tc, const char *msg, int line, int col) {
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert_int_eq(d->sev, SEV_ERROR);
  ck_assert_str_eq(d->msg, msg);
  int l, c;
  src_linecol(src_file(&tc->ss, tc->file), d->loc.start, &l, &c);
  ck_assert_int_eq(l, line);
  ck_assert_int_eq(c, col);
  ck_assert_int_ge(tc->prog->nsyntax_errors, 1);
}

/* R-LEX-001: every token kind. */
START_TEST(test_every_token_kind) {
  Lexed *lx = lex("let target model dtype mode parallel input weight host "
                  "repeat loop fused output true false name_1 12 3.5 \"s\" "
                  "4 GB ( ) [ ] { } , : ; = + - * / %\n");
  static const int want[] = {
      LET, TARGET, MODEL, DTYPE, MODE, PARALLEL, INPUT, WEIGHT, HOST,
      REPEAT, LOOP, FUSED, OUTPUT, TRUE, FALSE, IDENT, INT, REAL, STRING,
      QUANTITY, '(', ')', '[', ']', '{', '}', ',', ':', ';', '=', '+', '-',
      '*', '/', '%', NEWLINE};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) ck_assert_int_eq(lx->kinds[i], want[i]);
  ck_assert_str_eq(lx->names[15], "name_1");
  ck_assert_int_eq(lx->vals[16].expr->ival, 12);
  ck_assert(lx->vals[17].expr->rval == 3.5);
  ck_assert_str_eq(lx->vals[18].expr->str, "s");
  /* byte ranges: "name_1" starts after the 15 keywords (R-LEX-003) */
  ck_assert_uint_eq(lx->locs[0].start, 0);
  ck_assert_uint_eq(lx->locs[0].end, 3);
  ck_assert_int_eq(lx->tc->diags.n, 0);
  lexed_free(lx);
}
END_TEST

/* R-LET-007, R-COST-011: '//' is one token (also before a '/' or blanks),
 * `buffer` a keyword; 16//2 is a number, '//' and a number. */
START_TEST(test_floordiv_and_buffer) {
  Lexed *lx = lex("a // b ///c 16//2 buffer\n");
  static const int want[] = {IDENT, FLOORDIV, IDENT, FLOORDIV, '/', IDENT,
                             INT, FLOORDIV, INT, BUFFER, NEWLINE};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) ck_assert_int_eq(lx->kinds[i], want[i]);
  /* the token is the two characters, not the blank after them */
  ck_assert_uint_eq(lx->locs[1].start, 2);
  ck_assert_uint_eq(lx->locs[1].end, 4);
  ck_assert_int_eq(lx->tc->diags.n, 0);
  lexed_free(lx);
}
END_TEST

/* R-CACHE-001, R-MOE-001, R-LEX-003: `cache` and `experts` are keywords;
 * `top` and the experts options are names. */
START_TEST(test_cache_experts_keywords) {
  Lexed *lx = lex("cache experts top capacity_factor imbalance topk append\n");
  static const int want[] = {CACHE, EXPERTS, IDENT, IDENT, IDENT, IDENT,
                             IDENT, NEWLINE};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) ck_assert_int_eq(lx->kinds[i], want[i]);
  ck_assert_int_eq(lx->tc->diags.n, 0);
  lexed_free(lx);
}
END_TEST

/* R-LEX-005: '_' separates digit groups. */
START_TEST(test_int_separators) {
  Lexed *lx = lex("7_000_000_000 4096 0 9223372036854775807 1_0");
  ck_assert_int_eq(lx->n, 5);
  ck_assert_int_eq(lx->vals[0].expr->ival, 7000000000LL);
  ck_assert_int_eq(lx->vals[1].expr->ival, 4096);
  ck_assert_int_eq(lx->vals[2].expr->ival, 0);
  ck_assert_int_eq(lx->vals[3].expr->ival, INT64_MAX);
  ck_assert_int_eq(lx->vals[4].expr->ival, 10);
  ck_assert_uint_eq(lx->locs[0].end - lx->locs[0].start, 13);
  ck_assert_int_eq(lx->tc->diags.n, 0);
  lexed_free(lx);
}
END_TEST

/* R-LEX-006: a '.' or an exponent makes a real. */
START_TEST(test_reals) {
  Lexed *lx = lex("3.35 7e9 1_000.5 2.5E-3 6e+2");
  ck_assert_int_eq(lx->n, 5);
  for (int i = 0; i < 5; i++) ck_assert_int_eq(lx->kinds[i], REAL);
  ck_assert(lx->vals[0].expr->rval == 3.35);
  ck_assert(lx->vals[1].expr->rval == 7e9);
  ck_assert(lx->vals[2].expr->rval == 1000.5);
  ck_assert(lx->vals[3].expr->rval == 2.5e-3);
  ck_assert(lx->vals[4].expr->rval == 600.0);
  lexed_free(lx);
}
END_TEST

/* R-LEX-007: every unit, the value in base units exactly. */
static const struct {
  const char *text;
  UnitKind kind;
  double number, value;
  const char *unit;
} unit_cases[] = {
    {"80 KB", UNIT_BYTES, 80, 80e3, "KB"},
    {"80 MB", UNIT_BYTES, 80, 80e6, "MB"},
    {"80 GB", UNIT_BYTES, 80, 80e9, "GB"},
    {"2 TB", UNIT_BYTES, 2, 2e12, "TB"},
    {"1 KiB", UNIT_BYTES, 1, 1024.0, "KiB"},
    {"1 MiB", UNIT_BYTES, 1, 1048576.0, "MiB"},
    {"80 GiB", UNIT_BYTES, 80, 80.0 * 1073741824.0, "GiB"},
    {"1.5 TiB", UNIT_BYTES, 1.5, 1.5 * 1099511627776.0, "TiB"},
    {"64 B/s", UNIT_BANDWIDTH, 64, 64.0, "B/s"},
    {"10 KB/s", UNIT_BANDWIDTH, 10, 10e3, "KB/s"},
    {"900 MB/s", UNIT_BANDWIDTH, 900, 900e6, "MB/s"},
    {"900 GB/s", UNIT_BANDWIDTH, 900, 900e9, "GB/s"},
    {"3.35 TB/s", UNIT_BANDWIDTH, 3.35, 3.35e12, "TB/s"},
    {"1 FLOP/s", UNIT_FLOPS, 1, 1.0, "FLOP/s"},
    {"19.5 GFLOP/s", UNIT_FLOPS, 19.5, 19.5e9, "GFLOP/s"},
    {"989.4 TFLOP/s", UNIT_FLOPS, 989.4, 989.4e12, "TFLOP/s"},
    {"1.98 PFLOP/s", UNIT_FLOPS, 1.98, 1.98e15, "PFLOP/s"},
    {"1979 TOP/s", UNIT_FLOPS, 1979, 1979e12, "TOP/s"},
    {"500 ns", UNIT_TIME, 500, 500e-9, "ns"},
    {"4.5 us", UNIT_TIME, 4.5, 4.5e-6, "us"},
    {"27.2 ms", UNIT_TIME, 27.2, 27.2e-3, "ms"},
    {"2 s", UNIT_TIME, 2, 2.0, "s"},
    {"80GB", UNIT_BYTES, 80, 80e9, "GB"},     /* blanks are optional */
    {"1e3\tGB", UNIT_BYTES, 1e3, 1e12, "GB"}, /* exponent and tab */
    {"1_000 ms", UNIT_TIME, 1000, 1.0, "ms"},
};

START_TEST(test_units) {
  Lexed *lx = lex(unit_cases[_i].text);
  ck_assert_int_eq(lx->n, 1);
  ck_assert_int_eq(lx->kinds[0], QUANTITY);
  const Expr *e = lx->vals[0].expr;
  ck_assert_int_eq(e->kind, EX_QUANTITY);
  ck_assert_int_eq(e->qty.kind, unit_cases[_i].kind);
  ck_assert_str_eq(e->qty.unit, unit_cases[_i].unit);
  ck_assert_msg(e->qty.number == unit_cases[_i].number, "%s: number %.17g",
                unit_cases[_i].text, e->qty.number);
  ck_assert_msg(e->qty.value == unit_cases[_i].value, "%s: value %.17g want %.17g",
                unit_cases[_i].text, e->qty.value, unit_cases[_i].value);
  ck_assert_uint_eq(lx->locs[0].end, strlen(unit_cases[_i].text));
  ck_assert_int_eq(lx->tc->diags.n, 0);
  lexed_free(lx);
}
END_TEST

/* R-LEX-007: a unit is a whole word; otherwise number and name. */
START_TEST(test_not_a_unit) {
  Lexed *lx = lex("4 GBx 4 x 2 B 3 sec");
  static const int want[] = {INT, IDENT, INT, IDENT, INT, IDENT, INT, IDENT};
  ck_assert_int_eq(lx->n, 8);
  for (int i = 0; i < 8; i++) ck_assert_int_eq(lx->kinds[i], want[i]);
  ck_assert_str_eq(lx->names[1], "GBx");
  ck_assert_uint_eq(lx->locs[1].start, 2);
  ck_assert_str_eq(lx->names[7], "sec");
  lexed_free(lx);
}
END_TEST

/* R-LEX-008: escapes \" \\ \n \t. */
START_TEST(test_string_escapes) {
  Lexed *lx = lex("\"a\\\"b\\\\c\\nd\\te\" \"\"");
  ck_assert_int_eq(lx->n, 2);
  ck_assert_str_eq(lx->vals[0].expr->str, "a\"b\\c\nd\te");
  ck_assert_str_eq(lx->vals[1].expr->str, "");
  ck_assert_int_eq(lx->tc->diags.n, 0);
  lexed_free(lx);
}
END_TEST

/* R-LEX-002: LF, CRLF and lone CR end lines; none inside ( ) or [ ]. */
START_TEST(test_newlines) {
  Lexed *lx = lex("a\r\nb\rc\nd(\n1,\r\n[2\n]\n)\n");
  static const int want[] = {IDENT, NEWLINE, IDENT, NEWLINE, IDENT, NEWLINE,
                             IDENT, '(', INT, ',', '[', INT, ']', ')', NEWLINE};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) ck_assert_int_eq(lx->kinds[i], want[i]);
  lexed_free(lx);

  TestCtx *tc = tc_parse("let a = 1\r\nlet b = 2\rlet c = )\n");
  expect_only_error(tc, "expected an expression, found ')'", 3, 9);
  tc_free(tc);
}
END_TEST

/* Blanks are taken into the match of the token before them (a line break,
 * a word, punctuation), but every token's byte range is the token alone. */
START_TEST(test_token_ranges_exclude_blanks) {
  Lexed *lx = lex("  q =\tmatmul(h ,  q0)  \r\n  \t x\n");
  static const int want[] = {IDENT, '=', IDENT, '(', IDENT, ',', IDENT, ')',
                             NEWLINE, IDENT, NEWLINE};
  static const unsigned range[][2] = {{2, 3},   {4, 5},   {6, 12}, {12, 13},
                                      {13, 14}, {15, 16}, {18, 20}, {20, 21},
                                      {23, 25}, {29, 30}, {30, 31}};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) {
    ck_assert_int_eq(lx->kinds[i], want[i]);
    ck_assert_uint_eq(lx->locs[i].start, range[i][0]);
    ck_assert_uint_eq(lx->locs[i].end, range[i][1]);
  }
  ck_assert_str_eq(lx->names[2], "matmul");
  ck_assert_str_eq(lx->names[9], "x");
  lexed_free(lx);
}
END_TEST

/* The prefixes a number or quantity can stop at (`1.`, `1e+`, a number and
 * blanks, a unit before a '/' that is not "/s") give back what follows. */
START_TEST(test_number_prefixes) {
  Lexed *lx = lex("4 GB/x 1e+y 2. 5  )");
  static const int want[] = {QUANTITY, '/', IDENT, INT, IDENT, '+', IDENT,
                             INT, INT, ')'};
  static const unsigned range[][2] = {{0, 4},  {4, 5},  {5, 6},   {7, 8},
                                      {8, 9},  {9, 10}, {10, 11}, {12, 13},
                                      {15, 16}, {18, 19}};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) {
    ck_assert_int_eq(lx->kinds[i], want[i]);
    ck_assert_uint_eq(lx->locs[i].start, range[i][0]);
    ck_assert_uint_eq(lx->locs[i].end, range[i][1]);
  }
  ck_assert(lx->vals[0].expr->qty.value == 4e9);
  ck_assert_str_eq(lx->names[4], "e");
  ck_assert_int_eq(lx->vals[8].expr->ival, 5);
  lexed_free(lx);
}
END_TEST

/* R-LEX-011: comments run to the end of the line. */
START_TEST(test_comments) {
  Lexed *lx = lex("a # b c ( \"\nd");
  ck_assert_int_eq(lx->n, 3);
  ck_assert_int_eq(lx->kinds[1], NEWLINE);
  ck_assert_str_eq(lx->names[2], "d");
  lexed_free(lx);
}
END_TEST

/* R-SYN-009: at EOF the scanner reports the innermost unclosed bracket
 * and closes every open one, so the parser can finish the tree. */
START_TEST(test_eof_closers) {
  Lexed *lx = lex("model m {\n  x = f(a, [b");
  static const int want[] = {MODEL, IDENT, '{', NEWLINE, IDENT, '=', IDENT,
                             '(', IDENT, ',', '[', IDENT, ']', ')', '}'};
  ck_assert_int_eq(lx->n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < lx->n; i++) ck_assert_int_eq(lx->kinds[i], want[i]);
  /* made-up closers sit, zero-width, at the end of the text */
  ck_assert_uint_eq(lx->locs[12].start, 23);
  ck_assert_uint_eq(lx->locs[14].end, 23);
  ck_assert_int_eq(lx->tc->diags.n, 1);
  ck_assert_str_eq(lx->tc->diags.items[0]->msg, "expected ']' at end of file");
  ck_assert_str_eq(lx->tc->diags.items[0]->notes[0].msg, "to match this '['");
  ck_assert_uint_eq(lx->tc->diags.items[0]->notes[0].loc.start, 21);
  lexed_free(lx);

  /* and the tree is whole */
  TestCtx *tc = tc_parse("model m {\n  x = f(a, [b");
  ck_assert_int_eq(tc->diags.n, 1);
  ck_assert_int_eq(tc->prog->top.n, 1);
  const Stmt *x = tc->prog->top.items[0]->def.body.items[0];
  ck_assert_int_eq(x->kind, ST_ASSIGN);
  ck_assert_int_eq(x->assign.value->call.nargs, 2);
  tc_free(tc);
}
END_TEST

/* R-SUP-001: suppressions, one per name, with their line (0 = file). */
START_TEST(test_suppressions) {
  TestCtx *tc = tc_parse("let a = 1\n"
                         "let b = 2  # rooflint: ignore[memory-bound, stray-fp32]\n"
                         "# rooflint: ignore-file[low-occupancy]\n"
                         "#rooflint:ignore[x_y] trailing words\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const SourceFile *f = src_file(&tc->ss, tc->file);
  ck_assert_int_eq(f->nsuppressions, 4);
  ck_assert_int_eq(f->suppressions[0].line, 2);
  ck_assert_str_eq(f->suppressions[0].check, "memory-bound");
  ck_assert_int_eq(f->suppressions[1].line, 2);
  ck_assert_str_eq(f->suppressions[1].check, "stray-fp32");
  ck_assert_int_eq(f->suppressions[2].line, 0);
  ck_assert_str_eq(f->suppressions[2].check, "low-occupancy");
  ck_assert_int_eq(f->suppressions[3].line, 4);
  ck_assert_str_eq(f->suppressions[3].check, "x_y");
  /* the name's own location, for unknown-check errors */
  int l, c;
  src_linecol(f, f->suppressions[1].loc.start, &l, &c);
  ck_assert_int_eq(c, 45);
  ck_assert_uint_eq(f->suppressions[1].loc.end - f->suppressions[1].loc.start, 10);
  tc_free(tc);
}
END_TEST

/* R-VER-001: expectations with severity, optional check and substring. */
START_TEST(test_expectations) {
  TestCtx *tc = tc_parse("let a = 1 # expect: error\n"
                         "let b = 2 # R-SHAPE-004  # expect: warning[stray-fp32] \"14.8x\"\n"
                         "let c = 3 # expect: note \"a \\\"q\\\"\"\n"
                         "let d = 4 # expect: remark[x]\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const SourceFile *f = src_file(&tc->ss, tc->file);
  ck_assert_int_eq(f->nexpectations, 4);
  const Expectation *e = f->expectations;
  ck_assert_int_eq(e[0].line, 1);
  ck_assert_int_eq(e[0].severity, SEV_ERROR);
  ck_assert_ptr_null(e[0].check);
  ck_assert_ptr_null(e[0].substring);
  ck_assert_int_eq(e[1].line, 2);
  ck_assert_int_eq(e[1].severity, SEV_WARNING);
  ck_assert_str_eq(e[1].check, "stray-fp32");
  ck_assert_str_eq(e[1].substring, "14.8x");
  ck_assert_int_eq(e[2].severity, SEV_NOTE);
  ck_assert_str_eq(e[2].substring, "a \"q\"");
  ck_assert_int_eq(e[3].severity, SEV_REMARK);
  ck_assert_str_eq(e[3].check, "x");
  tc_free(tc);
}
END_TEST

/* Each lexical error: exact message, exact line:col (R-LEX-*). */
static const struct {
  const char *text;
  const char *msg;
  int line, col;
} lex_errors[] = {
    {"let x = 1__0\n", "misplaced '_' in '1__0': a digit separator goes between two digits", 1, 9},
    {"let x = 10_\n", "misplaced '_' in '10_': a digit separator goes between two digits", 1, 9},
    {"let x = 9223372036854775808\n", "integer literal too large (limit 9223372036854775807)", 1, 9},
    {"let x = 99999999999999999999 GB\n", "integer literal too large (limit 9223372036854775807)", 1, 9},
    {"let x = 1e999\n", "real literal '1e999' is out of range", 1, 9},
    {"let s = \"abc\nlet t = 1\n", "missing closing '\"': a string must end on the line it starts", 1, 9},
    {"let s = 1\nlet t = \"abc", "unterminated string: missing closing '\"' before end of file", 2, 9},
    {"let s = \"a\\qb\"\n", "unknown escape sequence '\\q' (use \\\", \\\\, \\n or \\t)", 1, 11},
    {"let a = 1 @ 2\n", "stray '@' in program; a matrix product is written matmul(x, w)", 1, 11},
    {"let a = 1\x01\n", "stray '\\x01' in program", 1, 10},
    {"let a = 1\xff\n", "stray '\\xff' in program", 1, 10},
    {"let a\xc3\xa9 = 1\n", "stray '\xc3\xa9' in program", 1, 6},
    {"x = 1 # expect: eror\n", "malformed expectation: expected 'error', 'warning', 'note' or 'remark'", 1, 7},
    {"x = 1 # expect: error oops\n", "malformed expectation: expected a quoted message after the severity", 1, 23},
    {"x = 1 # expect: error[\n", "malformed expectation: expected a check name and ']' after '['", 1, 7},
    {"x = 1 # expect: error \"abc\n", "malformed expectation: missing closing '\"' after the message", 1, 7},
};

/* R-SUP-005: a malformed suppression is a warning, not a syntax error. */
static const char *const malformed_suppressions[] = {
    "x = 1 # rooflint: ignore(a)\n",
    "x = 1 # rooflint: ignore[]\n",
    "x = 1 # rooflint: skip[a]\n",
    "x = 1 # rooflint: ignore-file\n",
    "x = 1 # rooflint: ignore because\n",
};

START_TEST(test_malformed_suppression) {
  TestCtx *tc = tc_parse(malformed_suppressions[_i]);
  ck_assert_int_eq(tc->diags.n, 1);
  const Diag *d = tc->diags.items[0];
  ck_assert_int_eq(d->sev, SEV_WARNING);
  ck_assert_str_eq(d->msg, "malformed suppression: expected 'ignore[CHECK, ...]' or 'ignore-file[CHECK, ...]'");
  ck_assert_uint_eq(d->loc.start, 6);
  ck_assert_int_eq(tc->prog->nsyntax_errors, 0);
  tc_free(tc);
}
END_TEST

/* R-SUP-005: a bare `ignore` (also with a `-- reason`) is every check on
 * its line. */
START_TEST(test_bare_ignore) {
  TestCtx *tc = tc_parse("x = 1\ny = 2 # rooflint: ignore\nz = 3 # rooflint: ignore -- why\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const SourceFile *f = src_file(&tc->ss, tc->file);
  ck_assert_int_eq(f->nignore_lines, 2);
  ck_assert_int_eq(f->ignore_lines[0], 2);
  ck_assert_int_eq(f->ignore_lines[1], 3);
  ck_assert_int_eq(f->nsuppressions, 0);
  tc_free(tc);
}
END_TEST

START_TEST(test_lex_errors) {
  TestCtx *tc = tc_parse(lex_errors[_i].text);
  expect_only_error(tc, lex_errors[_i].msg, lex_errors[_i].line, lex_errors[_i].col);
  tc_free(tc);
}
END_TEST

/* A NUL byte inside the text is a stray character too. */
START_TEST(test_nul_byte) {
  TestCtx *tc = tc_parse("");
  char *text = xmalloc(12);
  memcpy(text, "let a = 1\0\n", 12);
  int f = src_add(&tc->ss, "nul.roof", text, 11);
  DiagSink ds;
  diag_sink_init(&ds);
  Program *p = parse_file(tc->arena, &tc->ss, f, &ds);
  ck_assert_int_eq(ds.n, 1);
  ck_assert_str_eq(ds.items[0]->msg, "stray '\\x00' in program");
  ck_assert_uint_eq(ds.items[0]->loc.start, 9);
  ck_assert_int_eq(p->nsyntax_errors, 1);
  ck_assert_int_eq(p->top.n, 1);
  diag_sink_free(&ds);
  tc_free(tc);
}
END_TEST

/* R-LEX-004: names up to 1024 bytes. */
START_TEST(test_long_identifier) {
  char text[1200];
  memcpy(text, "let ", 4);
  memset(text + 4, 'a', 1024);
  memcpy(text + 1028, " = 1\n", 6);
  TestCtx *tc = tc_parse(text);
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);
  memset(text + 4, 'a', 1025);
  memcpy(text + 1029, " = 1\n", 6);
  tc = tc_parse(text);
  expect_only_error(tc, "identifier too long (1025 bytes, limit 1024)", 1, 5);
  tc_free(tc);
}
END_TEST

Suite *lexer_suite(void) {
  Suite *s = suite_create("lexer");
  TCase *tc = tcase_create("tokens");
  tcase_add_test(tc, test_every_token_kind);
  tcase_add_test(tc, test_floordiv_and_buffer);
  tcase_add_test(tc, test_cache_experts_keywords);
  tcase_add_test(tc, test_int_separators);
  tcase_add_test(tc, test_reals);
  tcase_add_loop_test(tc, test_units, 0, (int)(sizeof unit_cases / sizeof unit_cases[0]));
  tcase_add_test(tc, test_not_a_unit);
  tcase_add_test(tc, test_string_escapes);
  tcase_add_test(tc, test_newlines);
  tcase_add_test(tc, test_comments);
  tcase_add_test(tc, test_eof_closers);
  suite_add_tcase(s, tc);
  tc = tcase_create("comments");
  tcase_add_test(tc, test_suppressions);
  tcase_add_test(tc, test_expectations);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_loop_test(tc, test_lex_errors, 0, (int)(sizeof lex_errors / sizeof lex_errors[0]));
  tcase_add_loop_test(tc, test_malformed_suppression, 0,
                      (int)(sizeof malformed_suppressions / sizeof malformed_suppressions[0]));
  tcase_add_test(tc, test_bare_ignore);
  tcase_add_test(tc, test_nul_byte);
  tcase_add_test(tc, test_long_identifier);
  tcase_add_test(tc, test_token_ranges_exclude_blanks);
  tcase_add_test(tc, test_number_prefixes);
  suite_add_tcase(s, tc);
  return s;
}
