/* SPDX-License-Identifier: MIT */
/*
 * ops.h: what one stage each asks of the op rows (ops.c) beyond the
 * table itself (rooflint.h): sema's suggestions and element counts, the
 * cost's element count, and an op application written as text (the
 * importers').
 */
#ifndef ROOFLINT_OPS_H
#define ROOFLINT_OPS_H

#include "rooflint.h"

/* sema */
const char *const *op_names(void); /* NULL-terminated, for suggestions */
/* Element count, false on 64-bit overflow. */
bool op_elements(const TensorType *t, int64_t *out);

/* cost */
/* The one element count of a tensor (op_tensor_bytes is its byte size). */
double op_tensor_elements(const TensorType *t);
/* The bytes of the state an op keeps for its backward besides the tensors
 * it saves (its row's SV_MASK, SV_INDEX, SV_LSE, SV_PROBS, SV_STATS*):
 * in0 its first operand, out its result (R-TRAIN-002); by_dtype, when not
 * NULL, gets them added by their dtype. */
double op_saved_state_bytes(const OpDesc *op, const TensorType *in0,
                            const TensorType *out, const OpArgs *args,
                            double *by_dtype);

/* The importers: an application as text, with the keywords sema starts
 * from (sema_apply.c). */
/* A dim as text: its let expression, else its size. */
void op_put_dim(StrBuf *sb, const char *sym, int64_t v);
/* `a OP b` of two dims (expression or size; opch one of + - * /) in
 * arena, parenthesised where needed; NULL when neither is an expression. */
const char *op_sym_join(Arena *arena, const char *a, int64_t av,
                        const char *b, int64_t bv, char opch);
/* The application `c` of op as text, appended to sb. */
void op_call_print(StrBuf *sb, const OpDesc *op, const OpCallText *c);
/* Every keyword of `op` at its default, as sema starts an application
 * (an importer sizing a node it writes calls the op's shape rule with
 * these, so its shapes are the language's). */
void op_default_args(const OpDesc *op, OpArgs *args);

#endif
