/* SPDX-License-Identifier: MIT */
/*
 * check_parser.c: the grammar.  Every statement form through the --dump ast
 * printer (compared byte for byte), precedence, argument forms, locations
 * of constructs that span lines, and syntax errors: exact messages,
 * recovery (three independent errors give exactly three), the unclosed
 * bracket note, the nesting limit, the error limit, and two files parsed in
 * one process.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static char *dump(const TestCtx *tc) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ast_dump(tc->prog, &tc->ss, f);
  fclose(f);
  return buf;
}

static void linecol(const TestCtx *tc, uint32_t off, int *l, int *c) {
  src_linecol(src_file(&tc->ss, tc->file), off, l, c);
}

/* The i-th diagnostic: severity, exact message, line:col. */
static void expect_diag(const TestCtx *tc, int i, Severity sev, const char *msg,
                        int line, int col) {
  ck_assert_int_gt(tc->diags.n, i);
  const Diag *d = tc->diags.items[i];
  ck_assert_int_eq(d->sev, sev);
  ck_assert_str_eq(d->msg, msg);
  int l, c;
  linecol(tc, d->loc.start, &l, &c);
  ck_assert_int_eq(l, line);
  ck_assert_int_eq(c, col);
}

/* Every statement form: R-SYN-001 .. R-SYN-008 (R-SYN-006: dtype, mode,
 * parallel, target NAME; R-SYN-008: output). */
static const char forms_src[] =
    "let L = 2\n"
    "target h100_sxm\n"
    "target mine {\n"
    "  bw = 3.35 TB/s; label = \"x\"\n"
    "  level hbm { capacity = 80 GB }\n"
    "}\n"
    "model m {\n"
    "  dtype bf16\n"
    "  mode train\n"
    "  parallel { nodes = 2; gpus_per_node = 8 }\n"
    "  input x, y : [4, L]\n"
    "  weight w : fp32[L, 4,]\n"
    "  host h : [8]\n"
    "  z = matmul(x, w, precision=tf32, out=fp32[4], perm=[1, 0], causal=true)\n"
    "  repeat L { a = relu(z) }\n"
    "  loop 4 {\n"
    "    fused blk { b = gelu(a) }\n"
    "  }\n"
    "  output z, b\n"
    "}\n";

static const char forms_dump[] =
    "program t.roof (4 statements, 0 syntax errors)\n"
    "  let L @1:1\n"
    "    int 2 @1:9\n"
    "  target-use h100_sxm @2:1\n"
    "  target-def mine @3:1\n"
    "    assign bw @4:3\n"
    "      quantity 3.35 TB/s = 3.35e+12 (bandwidth) @4:8\n"
    "    assign label @4:19\n"
    "      string \"x\" @4:27\n"
    "    section level hbm @5:3\n"
    "      assign capacity @5:15\n"
    "        quantity 80 GB = 8e+10 (bytes) @5:26\n"
    "  model m @7:1\n"
    "    dtype bf16 @8:3\n"
    "    mode train @9:3\n"
    "    parallel @10:3\n"
    "      assign nodes @10:14\n"
    "        int 2 @10:22\n"
    "      assign gpus_per_node @10:25\n"
    "        int 8 @10:41\n"
    "    decl input x, y @11:3\n"
    "      list (2) @11:16\n"
    "        int 4 @11:17\n"
    "        name L @11:20\n"
    "    decl weight w @12:3\n"
    "      type fp32 (2) @12:14\n"
    "        name L @12:19\n"
    "        int 4 @12:22\n"
    "    decl host h @13:3\n"
    "      list (1) @13:12\n"
    "        int 8 @13:13\n"
    "    assign z @14:3\n"
    "      call matmul @14:7\n"
    "        name x @14:14\n"
    "        name w @14:17\n"
    "        kwarg precision @14:20\n"
    "          name tf32 @14:30\n"
    "        kwarg out @14:36\n"
    "          type fp32 (1) @14:40\n"
    "            int 4 @14:45\n"
    "        kwarg perm @14:49\n"
    "          list (2) @14:54\n"
    "            int 1 @14:55\n"
    "            int 0 @14:58\n"
    "        kwarg causal @14:62\n"
    "          bool true @14:69\n"
    "    repeat @15:3\n"
    "      name L @15:10\n"
    "      assign a @15:14\n"
    "        call relu @15:18\n"
    "          name z @15:23\n"
    "    loop @16:3\n"
    "      int 4 @16:8\n"
    "      fused blk @17:5\n"
    "        assign b @17:17\n"
    "          call gelu @17:21\n"
    "            name a @17:26\n"
    "    output z, b @19:3\n"
;

/* R-SYN-001..008: every statement form, as the dump shows it. */
START_TEST(test_statement_forms) {
  TestCtx *tc = tc_parse(forms_src);
  ck_assert_int_eq(tc->diags.n, 0);
  char *d = dump(tc);
  ck_assert_str_eq(d, forms_dump);
  free(d);
  /* the fields sema reads */
  const Stmt *m = tc->prog->top.items[3];
  ck_assert_int_eq(m->kind, ST_MODEL);
  ck_assert_str_eq(m->def.name.name, "m");
  ck_assert_int_eq(m->def.body.n, 10);
  const Stmt *decl = m->def.body.items[3];
  ck_assert_int_eq(decl->decl.kind, DECL_INPUT);
  ck_assert_int_eq(decl->decl.nnames, 2);
  ck_assert_str_eq(decl->decl.names[1].name, "y");
  const Expr *call = m->def.body.items[6]->assign.value;
  ck_assert_int_eq(call->kind, EX_CALL);
  ck_assert_int_eq(call->call.nargs, 6);
  ck_assert_ptr_null(call->call.args[0].key);
  ck_assert_str_eq(call->call.args[2].key->name, "precision");
  ck_assert_int_eq(call->call.args[2].value->kind, EX_NAME);
  ck_assert_int_eq(call->call.args[3].value->kind, EX_TYPE);
  ck_assert_str_eq(call->call.args[3].value->type.dtype, "fp32");
  ck_assert_int_eq(call->call.args[4].value->kind, EX_LIST);
  ck_assert_int_eq(call->call.args[5].value->kind, EX_BOOL);
  ck_assert_int_eq(call->call.args[5].value->ival, 1);
  const Stmt *sec = tc->prog->top.items[2]->def.body.items[2];
  ck_assert_int_eq(sec->kind, ST_SECTION);
  ck_assert_str_eq(sec->def.kind.name, "level");
  ck_assert_str_eq(sec->def.name.name, "hbm");
  ck_assert_int_eq(tc->prog->top.open.file, -1);
  tc_free(tc);
}
END_TEST

/* What the parser records for sema: each name's dense id (first
 * appearance order, one per spelling; none for the grammar's own words). */
START_TEST(test_name_ids) {
  TestCtx *tc = tc_parse("model m {\n"
                         "  dtype fp16\n"
                         "  input x, y : [4]\n"
                         "  a = relu(x)\n"
                         "  repeat 3 { b = relu(a); fused f { c = relu(b); d = exp(c) } }\n"
                         "  mode train\n"
                         "  output a\n"
                         "  parallel { data = 2 }\n"
                         "}\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const Stmt *m = tc->prog->top.items[0];
  ck_assert_int_eq(m->def.kind.id, NAME_NONE);
  ck_assert_int_eq(m->def.name.id, 0);
  const Block *b = &m->def.body;
  const Stmt *decl = b->items[1];
  ck_assert_int_eq(decl->decl.names[0].id, 2); /* m fp16 x */
  ck_assert_int_eq(decl->decl.names[1].id, 3);
  const Stmt *a = b->items[2];
  ck_assert_int_eq(a->assign.name.id, 4);
  const Expr *x = a->assign.value->call.args[0].value;
  ck_assert_int_eq(x->kind, EX_NAME);
  ck_assert_int_eq(x->name.id, 2);
  ck_assert_ptr_eq(tc->prog->names[x->name.id], decl->decl.names[0].name);
  ck_assert_int_eq(b->items[5]->output.names[0].id, 4);
  ck_assert_int_eq(tc->prog->nnames, 13); /* + y a relu b f c d exp train data */
  tc_free(tc);
}
END_TEST

/* R-NAME-009 and R-NEST-001 in the tree: `a, b, c = call` is one unpack
 * statement with its names in order, its value the call as written (sema
 * makes a node of each result and each inner call). */
START_TEST(test_unpack_and_nested_counts) {
  TestCtx *tc = tc_parse("model m {\n  q, k, v = split(matmul(x, w), 3)\n"
                         "  y = relu(neg(x))\n}\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const Block *b = &tc->prog->top.items[0]->def.body;
  const Stmt *u = b->items[0];
  ck_assert_int_eq(u->kind, ST_UNPACK);
  ck_assert_int_eq(u->unpack.nnames, 3);
  ck_assert_str_eq(u->unpack.names[0].name, "q");
  ck_assert_str_eq(u->unpack.names[2].name, "v");
  ck_assert_str_eq(tc->prog->names[u->unpack.value->call.callee], "split");
  tc_free(tc);
}
END_TEST

/* R-SYN-003: a statement ends at newline, ';' or its block's '}'; blank
 * lines and a missing final newline are fine. */
START_TEST(test_terminators) {
  TestCtx *tc = tc_parse("\n\nmodel m { input x : [4] }\n;;\nmodel n { input x : [4]; output x }");
  ck_assert_int_eq(tc->diags.n, 0);
  ck_assert_int_eq(tc->prog->top.n, 2);
  ck_assert_int_eq(tc->prog->top.items[0]->def.body.n, 1);
  ck_assert_int_eq(tc->prog->top.items[1]->def.body.n, 2);
  tc_free(tc);
  tc = tc_parse("model m {}\nmodel n {\n}\n");
  ck_assert_int_eq(tc->diags.n, 0);
  ck_assert_int_eq(tc->prog->top.n, 2);
  tc_free(tc);
}
END_TEST

/* R-SYN-011: * / % bind tighter than + -, both left-associative; unary
 * minus binds tightest; parentheses group. */
START_TEST(test_precedence) {
  TestCtx *tc = tc_parse("let e = 1 + 2 * 3 - -4 % 5 / (6 - 7)\n");
  ck_assert_int_eq(tc->diags.n, 0);
  char *d = dump(tc);
  ck_assert_str_eq(d,
                   "program t.roof (1 statements, 0 syntax errors)\n"
                   "  let e @1:1\n"
                   "    binary '-' @1:9\n"
                   "      binary '+' @1:9\n"
                   "        int 1 @1:9\n"
                   "        binary '*' @1:13\n"
                   "          int 2 @1:13\n"
                   "          int 3 @1:17\n"
                   "      binary '/' @1:21\n"
                   "        binary '%' @1:21\n"
                   "          unary '-' @1:21\n"
                   "            int 4 @1:22\n"
                   "          int 5 @1:26\n"
                   "        binary '-' @1:31\n"
                   "          int 6 @1:31\n"
                   "          int 7 @1:35\n");
  free(d);
  tc_free(tc);
}
END_TEST

/* R-SYN-012: lists and arguments may spread over lines and end in ','. */
START_TEST(test_multiline_args) {
  TestCtx *tc = tc_parse("model m {\n"
                         "  y = attention(q,\n"
                         "                k, v,\n"
                         "                causal=true,\n"
                         "  )\n"
                         "  z = reshape(y, [\n"
                         "    1, 2,\n"
                         "  ])\n"
                         "  w = f()\n"
                         "}\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const Block *b = &tc->prog->top.items[0]->def.body;
  ck_assert_int_eq(b->n, 3);
  ck_assert_int_eq(b->items[0]->assign.value->call.nargs, 4);
  ck_assert_int_eq(b->items[1]->assign.value->call.args[1].value->list.n, 2);
  ck_assert_int_eq(b->items[2]->assign.value->call.nargs, 0);
  tc_free(tc);
}
END_TEST

/* Locations are byte ranges; a construct spanning lines covers them all. */
START_TEST(test_locations) {
  TestCtx *tc = tc_parse("# header\n"
                         "model m {\n"
                         "  y = matmul(a,\n"
                         "             b)\n"
                         "}\n");
  ck_assert_int_eq(tc->diags.n, 0);
  const Stmt *m = tc->prog->top.items[0];
  int l, c;
  linecol(tc, m->loc.start, &l, &c);
  ck_assert_int_eq(l, 2);
  ck_assert_int_eq(c, 1);
  linecol(tc, m->loc.end, &l, &c);
  ck_assert_int_eq(l, 5);
  ck_assert_int_eq(c, 2);
  linecol(tc, m->def.body.open.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 209);
  linecol(tc, m->def.body.close.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 501);
  const Stmt *y = m->def.body.items[0];
  linecol(tc, y->loc.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 303);
  linecol(tc, y->loc.end, &l, &c);
  ck_assert_int_eq(l * 100 + c, 416); /* just past ')' */
  const Expr *call = y->assign.value;
  linecol(tc, call->call.callee_loc.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 307);
  ck_assert_uint_eq(call->call.callee_loc.end - call->call.callee_loc.start, 6);
  linecol(tc, call->call.args[1].value->loc.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 414);
  ck_assert_int_eq(y->assign.name.loc.end - y->assign.name.loc.start, 1);
  tc_free(tc);
}
END_TEST

/* Each syntax error class: exact message and position (R-SYN-*). */
static const struct {
  const char *text;
  const char *msg;
  int line, col;
} syn_errors[] = {
    {"let = 4\n", "expected a name, found '='", 1, 5},
    {"let x 4\n", "expected '=', found '4'", 1, 7},
    {"let x =\n", "expected an expression before newline", 1, 8},
    {"let x = )\n", "expected an expression, found ')'", 1, 9},
    {"let x = 1 +\n", "expected an expression before newline", 1, 12},
    {"let x = 1 2\n", "expected end of statement, found '2'", 1, 11},
    {"let x = 1 \"s\"\n", "expected end of statement, found a string", 1, 11},
    {"model m }\n", "expected '{', found '}'", 1, 9},
    {"model { }\n", "expected a name, found '{'", 1, 7},
    {"}\n", "expected a statement, found '}'", 1, 1},
    {") = 1\n", "expected a statement, found ')'", 1, 1},
    {"model m {\n  input x y\n}\n", "expected ':' or ',', found 'y'", 2, 11},
    {"model m {\n  output\n}\n", "expected a name before newline", 2, 9},
    {"model m {\n  repeat { }\n}\n", "expected an expression, found '{'", 2, 10},
    {"model m {\n  x = f(a=)\n}\n", "expected an expression, found ')'", 2, 11},
    {"model m {\n  x = f(a b)\n}\n", "expected ',' or ')', found 'b'", 2, 11},
    {"model m {\n  x = [1 2]\n}\n", "expected ',' or ']', found '2'", 2, 10},
    {"model m {\n  level hbm x\n}\n", "expected '{', found 'x'", 2, 13},
    {"dtype\n", "expected a name before newline", 1, 6},
    {"let x = 1\nlet y = 2 model", "expected end of statement, found 'model'", 2, 11},
    {"let x = (1", "expected ')' at end of file", 1, 11},
};

START_TEST(test_syntax_errors) {
  TestCtx *tc = tc_parse(syn_errors[_i].text);
  ck_assert_msg(tc->diags.n >= 1, "no error for %s", syn_errors[_i].text);
  expect_diag(tc, 0, SEV_ERROR, syn_errors[_i].msg, syn_errors[_i].line,
              syn_errors[_i].col);
  ck_assert_int_eq(tc_count(tc, SEV_ERROR), 1);
  ck_assert_int_eq(tc->prog->nsyntax_errors, 1);
  tc_free(tc);
}
END_TEST

/* R-SYN-013: recovery at statement terminators: three independent errors
 * give exactly three diagnostics, and the tree stays whole. */
START_TEST(test_three_errors) {
  TestCtx *tc = tc_parse("model m {\n"
                         "  input x : [4]\n"
                         "  a = relu(x))\n"
                         "  b = relu(x)\n"
                         "  c = * 2\n"
                         "  repeat { d = 1 }\n"
                         "  output b\n"
                         "}\n"
                         "let ok = 1\n");
  ck_assert_int_eq(tc->diags.n, 3);
  ck_assert_int_eq(tc->prog->nsyntax_errors, 3);
  expect_diag(tc, 0, SEV_ERROR, "expected end of statement, found ')'", 3, 14);
  expect_diag(tc, 1, SEV_ERROR, "expected an expression, found '*'", 5, 7);
  expect_diag(tc, 2, SEV_ERROR, "expected an expression, found '{'", 6, 10);
  ck_assert_int_eq(tc->prog->top.n, 2);
  const Block *b = &tc->prog->top.items[0]->def.body;
  static const StmtKind kinds[] = {ST_DECL, ST_ERROR, ST_ASSIGN, ST_ERROR,
                                   ST_ERROR, ST_OUTPUT};
  ck_assert_int_eq(b->n, 6);
  for (int i = 0; i < 6; i++) ck_assert_int_eq(b->items[i]->kind, kinds[i]);
  int l, c;
  linecol(tc, b->items[1]->loc.start, &l, &c);
  ck_assert_int_eq(l, 3);
  ck_assert_int_eq(tc->prog->top.items[1]->kind, ST_LET);
  tc_free(tc);
}
END_TEST

/* An error in the last statement of a block recovers at its '}'. */
START_TEST(test_error_before_brace) {
  TestCtx *tc = tc_parse("model m { x = ) }\nmodel n { y = ( }\nlet z = 1\n");
  ck_assert_int_eq(tc->diags.n, 2);
  expect_diag(tc, 0, SEV_ERROR, "expected an expression, found ')'", 1, 15);
  expect_diag(tc, 1, SEV_ERROR, "expected an expression, found '}'", 2, 17);
  ck_assert_int_eq(tc->prog->top.n, 3);
  ck_assert_int_eq(tc->prog->top.items[0]->def.body.items[0]->kind, ST_ERROR);
  tc_free(tc);
}
END_TEST

/* R-SYN-009: an unclosed bracket: the error at the end of the text, a note
 * at the opener. */
START_TEST(test_unclosed_brace) {
  TestCtx *tc = tc_parse("model m {\n  input x : [4]\n  y = relu(x)\n\n");
  ck_assert_int_eq(tc->diags.n, 1);
  expect_diag(tc, 0, SEV_ERROR, "expected '}' at end of file", 3, 14);
  const Diag *d = tc->diags.items[0];
  ck_assert_int_eq(d->nnotes, 1);
  ck_assert_str_eq(d->notes[0].msg, "to match this '{'");
  int l, c;
  linecol(tc, d->notes[0].loc.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 109);
  ck_assert_uint_eq(d->notes[0].loc.end - d->notes[0].loc.start, 1);
  ck_assert_int_eq(tc->prog->nsyntax_errors, 1);
  tc_free(tc);

  /* after an error earlier in the block, still reported */
  tc = tc_parse("model m {\n  x = )\n");
  ck_assert_int_eq(tc->diags.n, 2);
  expect_diag(tc, 1, SEV_ERROR, "expected '}' at end of file", 2, 8);
  tc_free(tc);
}
END_TEST

/* A ')' forgotten at the end of a line shows up on a later line: the
 * error there points back at the '('. */
START_TEST(test_unclosed_paren_note) {
  TestCtx *tc = tc_parse("model m {\n  x = matmul(a, b\n  y = 2\n}\nlet q = 1\n");
  ck_assert_int_eq(tc->diags.n, 1);
  expect_diag(tc, 0, SEV_ERROR, "expected ',' or ')', found 'y'", 3, 3);
  const Diag *d = tc->diags.items[0];
  ck_assert_int_eq(d->nnotes, 1);
  ck_assert_str_eq(d->notes[0].msg, "to match this '('");
  int l, c;
  linecol(tc, d->notes[0].loc.start, &l, &c);
  ck_assert_int_eq(l * 100 + c, 213);
  ck_assert_int_eq(tc->prog->top.n, 2);
  tc_free(tc);

  /* the same '(' is not reported a second time at EOF */
  tc = tc_parse("let x = (1 + 2\nlet y = 3\n");
  ck_assert_int_eq(tc->diags.n, 1);
  expect_diag(tc, 0, SEV_ERROR, "expected ')', found 'let'", 2, 1);
  tc_free(tc);
}
END_TEST

/* R-SYN-010: nesting deeper than 256 stops the parse with one error, even
 * for 100000 '(' (no stack grows with the input). */
START_TEST(test_deep_nesting) {
  enum { DEPTH = 100000 };
  char *text = xmalloc(2 * DEPTH + 32);
  size_t n = 0;
  n += (size_t)sprintf(text, "let x = ");
  for (int i = 0; i < DEPTH; i++) text[n++] = '(';
  text[n++] = '1';
  for (int i = 0; i < DEPTH; i++) text[n++] = ')';
  text[n++] = '\n';
  text[n] = '\0';
  TestCtx *tc = tc_parse(text);
  ck_assert_int_eq(tc->diags.n, 1);
  expect_diag(tc, 0, SEV_ERROR, "nesting too deep (limit 256)", 1, 9 + 256);
  ck_assert_int_eq(tc->prog->nsyntax_errors, 1);
  tc_free(tc);

  /* 256 levels are fine: brackets, parentheses and blocks together */
  n = (size_t)sprintf(text, "model m {\n  x = ");
  for (int i = 0; i < 254; i++) text[n++] = i % 2 ? '(' : '[';
  text[n++] = '1';
  for (int i = 253; i >= 0; i--) text[n++] = i % 2 ? ')' : ']';
  n += (size_t)sprintf(text + n, "\n}\n");
  tc = tc_parse(text);
  ck_assert_int_eq(tc->diags.n, 0);
  tc_free(tc);

  n = 0;
  for (int i = 0; i < 300; i++) n += (size_t)sprintf(text + n, "repeat 2 {\n");
  tc = tc_parse(text);
  ck_assert_int_eq(tc->diags.n, 1);
  expect_diag(tc, 0, SEV_ERROR, "nesting too deep (limit 256)", 257, 10);
  tc_free(tc);
  free(text);
}
END_TEST

/* The error limit stops the parse: nothing past it is examined. */
START_TEST(test_error_limit) {
  StrBuf sb = {0};
  for (int i = 0; i < 100; i++) sb_puts(&sb, "let = 1\n");
  TestCtx *tc = tc_parse(sb_str(&sb));
  ck_assert(tc->diags.limit_hit || tc->diags.n <= DIAG_DEFAULT_ERROR_LIMIT);
  ck_assert_int_le(tc->prog->nsyntax_errors, DIAG_DEFAULT_ERROR_LIMIT + 1);
  ck_assert_int_ge(tc->prog->nsyntax_errors, DIAG_DEFAULT_ERROR_LIMIT);
  sb_free(&sb);
  tc_free(tc);
}
END_TEST

/* No global state: two files, two sinks, parsed one after the other and
 * with the first's results used after the second parse. */
START_TEST(test_two_files) {
  TestCtx *a = tc_parse("model a {\n  input x : [4]\n  y = relu(x\n");
  TestCtx *b = tc_parse("let n = 2\nmodel b { input z : [n] }\n");
  ck_assert_int_eq(a->diags.n, 1);
  ck_assert_int_eq(b->diags.n, 0);
  ck_assert_int_eq(b->prog->top.n, 2);
  ck_assert_str_eq(b->prog->top.items[1]->def.name.name, "b");
  ck_assert_str_eq(a->prog->top.items[0]->def.name.name, "a");
  ck_assert_int_eq(a->prog->top.items[0]->def.body.n, 2);
  tc_free(a);
  tc_free(b);

  /* two files of one set, parsed into one arena */
  TestCtx *tc = tc_parse("let p = 1\n");
  int f2 = src_add(&tc->ss, "u.roof", xstrdup("let q = ( \n"), 11);
  Program *p2 = parse_file(tc->arena, &tc->ss, f2, &tc->diags);
  Program *p3 = parse_file(tc->arena, &tc->ss, tc->file, &tc->diags);
  ck_assert_int_eq(p2->file, f2);
  ck_assert_int_eq(p2->nsyntax_errors, 1);
  ck_assert_int_eq(tc->diags.items[0]->loc.file, f2);
  ck_assert_int_eq(p3->nsyntax_errors, 0);
  ck_assert_int_eq(p3->top.items[0]->loc.file, tc->file);
  ck_assert_str_eq(p3->top.items[0]->let.name.name, "p");
  tc_free(tc);
}
END_TEST

/* parse_file_opts: names, strings and directive text in their own arena
 * (the tree's can be freed first), and a re-parse that records the
 * directives only once. */
START_TEST(test_parse_options) {
  const char *text = "let n = \"s\" # rooflint: ignore[memory-bound]\n"
                     "model m {\n  y = f(x, k=[1, 2])\n}\n";
  TestCtx *tc = tc_parse(text);
  ck_assert_int_eq(src_file(&tc->ss, tc->file)->nsuppressions, 1);
  Arena *tree = arena_new(), *names = arena_new();
  ParseOptions opts = {.names = names, .skip_directives = true};
  Program *p = parse_file_opts(tree, &tc->ss, tc->file, &tc->diags, &opts);
  ck_assert_int_eq(p->nsyntax_errors, 0);
  ck_assert_int_eq(src_file(&tc->ss, tc->file)->nsuppressions, 1);
  size_t names_used = arena_bytes_used(names);
  ck_assert_uint_gt(names_used, 0);
  const Stmt *model = p->top.items[1];
  const Expr *call = model->def.body.items[0]->assign.value;
  const char *callee = p->names[call->call.callee], *key = call->call.args[1].key->name;
  const char *str = p->top.items[0]->let.value->str;
  /* EX_NAME x: its spelling is in Program.names, which is in `names` */
  const char *const *spelling = p->names;
  int x = call->call.args[0].value->name.id;
  arena_free(tree); /* the names outlive the tree */
  ck_assert_str_eq(spelling[x], "x");
  ck_assert_str_eq(callee, "f");
  ck_assert_str_eq(key, "k");
  ck_assert_str_eq(str, "s");
  ck_assert_str_eq(src_file(&tc->ss, tc->file)->suppressions[0].check, "memory-bound");
  arena_free(names);
  tc_free(tc);
}
END_TEST

/* The scanner works in the file's own text: a parse that stops early (here
 * at the error limit) must leave every byte as it was. */
START_TEST(test_text_untouched) {
  StrBuf sb = {0};
  for (int i = 0; i < 30; i++) sb_printf(&sb, "let a%d = $ 1\n", i);
  TestCtx *tc = tc_parse(sb_str(&sb));
  /* stopped at the limit, well before the end */
  ck_assert_int_le(tc->prog->nsyntax_errors, DIAG_DEFAULT_ERROR_LIMIT + 1);
  const SourceFile *f = src_file(&tc->ss, tc->file);
  ck_assert_uint_eq(f->len, sb.len);
  ck_assert_mem_eq(f->text, sb_str(&sb), sb.len + 1);
  ck_assert_int_eq(f->text[f->len + 1], '\0');
  sb_free(&sb);
  tc_free(tc);
}
END_TEST

/* The rendered form, as the CLI prints it. */
START_TEST(test_rendered) {
  TestCtx *tc = tc_parse("let x = (1 + 2\n");
  ck_assert_str_eq(tc_render(tc),
                   "t.roof:1:15: error: expected ')' at end of file\n"
                   "    1 | let x = (1 + 2\n"
                   "      |               ^\n"
                   "t.roof:1:9: note: to match this '('\n"
                   "    1 | let x = (1 + 2\n"
                   "      |         ^\n");
  tc_free(tc);
}
END_TEST

START_TEST(test_kind_names) {
  for (int k = EX_INT; k <= EX_ERROR; k++) ck_assert_str_ne(expr_kind_str((ExprKind)k), "?");
  for (int k = ST_LET; k <= ST_ERROR; k++) ck_assert_str_ne(stmt_kind_str((StmtKind)k), "?");
  for (int k = UNIT_NONE; k <= UNIT_TIME; k++) ck_assert_str_ne(unit_kind_str((UnitKind)k), "?");
  ck_assert_str_eq(stmt_kind_str(ST_TARGET_DEF), "target-def");
  ck_assert_str_eq(unit_kind_str(UNIT_BANDWIDTH), "bandwidth");
  ck_assert_str_eq(expr_kind_str((ExprKind)99), "?");
}
END_TEST

Suite *parser_suite(void) {
  Suite *s = suite_create("parser");
  TCase *tc = tcase_create("grammar");
  tcase_add_test(tc, test_statement_forms);
  tcase_add_test(tc, test_terminators);
  tcase_add_test(tc, test_name_ids);
  tcase_add_test(tc, test_unpack_and_nested_counts);
  tcase_add_test(tc, test_precedence);
  tcase_add_test(tc, test_multiline_args);
  tcase_add_test(tc, test_locations);
  tcase_add_test(tc, test_kind_names);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_loop_test(tc, test_syntax_errors, 0, (int)(sizeof syn_errors / sizeof syn_errors[0]));
  tcase_add_test(tc, test_three_errors);
  tcase_add_test(tc, test_error_before_brace);
  tcase_add_test(tc, test_unclosed_brace);
  tcase_add_test(tc, test_unclosed_paren_note);
  tcase_add_test(tc, test_deep_nesting);
  tcase_add_test(tc, test_error_limit);
  tcase_add_test(tc, test_rendered);
  tcase_add_test(tc, test_parse_options);
  tcase_add_test(tc, test_text_untouched);
  suite_add_tcase(s, tc);
  tc = tcase_create("processes");
  tcase_add_test(tc, test_two_files);
  suite_add_tcase(s, tc);
  return s;
}
