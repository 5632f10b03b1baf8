/* SPDX-License-Identifier: MIT */
/*
 * ast.h: the constructors the grammar actions (grammar/parser.y, the
 * scanner) and parse.c build the tree with, private to the tree stage: the
 * stages after it read a Program (rooflint.h), they never make one
 * (sema alone reads two spellings from here, at the end).  The
 * lists they take are built on the parser's scratch stacks and copied into
 * the arena once, at their final size: see parse.c.
 */
#ifndef ROOFLINT_AST_H
#define ROOFLINT_AST_H

#include "rooflint.h"

/* A zeroed node only as large as kind k needs (see struct Expr). */
Expr *ast_expr(Arena *a, ExprKind k, Loc loc);
Stmt *ast_stmt(Arena *a, StmtKind k, Loc loc);
Ident ast_ident(const char *name, int id, Loc loc);
Expr *ast_bool(Arena *a, bool value, Loc loc);
/* The literal `inf`: an EX_REAL of +infinity (R-LEX-014). */
Expr *ast_inf(Arena *a, Loc loc);
Expr *ast_name(Arena *a, int id, Loc loc);
Expr *ast_binary(Arena *a, int op, Expr *lhs, Expr *rhs, Loc loc);
Expr *ast_unary(Arena *a, int op, Expr *operand, Loc loc);
Expr *ast_call(Arena *a, Ident callee, Arg *args, int nargs, Loc loc);
Expr *ast_list(Arena *a, Expr **items, int n, Loc loc);
Expr *ast_type(Arena *a, Ident dtype, Expr **dims, int ndims, Loc loc);
/* ST_LET and ST_ASSIGN */
Stmt *ast_stmt_bind(Arena *a, StmtKind k, Ident name, Expr *value, Loc loc);
/* ST_TARGET_USE, ST_DTYPE, ST_MODE */
Stmt *ast_stmt_word(Arena *a, StmtKind k, Ident word, Loc loc);
/* ST_TARGET_DEF, ST_MODEL, ST_FUSED, ST_SECTION */
Stmt *ast_stmt_def(Arena *a, StmtKind k, Ident kind, Ident name, Block body, Loc loc);
Stmt *ast_stmt_parallel(Arena *a, Block body, Loc loc);
/* opt: NULL, or the option's key and value (`shard=tensor`) */
Stmt *ast_stmt_decl(Arena *a, DeclKind k, Ident *names, int n, Expr *type,
                    const Ident opt[2], Loc loc);
/* ST_REPEAT, ST_LOOP */
Stmt *ast_stmt_loop(Arena *a, StmtKind k, Expr *count, Block body, Loc loc);
Stmt *ast_stmt_experts(Arena *a, Expr *count, Expr *top, Arg *opts, int nopts,
                       Block body, Loc loc);
Stmt *ast_stmt_output(Arena *a, Ident *names, int n, Loc loc);
Stmt *ast_stmt_unpack(Arena *a, Ident *names, int n, Expr *value, Loc loc);

/* Read by sema: an operator's spelling (BINOP_FLOORDIV included) and
 * where an argument's keyword is written, LOC_NONE for a positional one. */
const char *ast_op_str(int op);
Loc ast_arg_name_loc(const Arg *arg);

#endif
