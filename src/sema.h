/* SPDX-License-Identifier: MIT */
/*
 * sema.h: private to semantic analysis (sema.c, the statements, names,
 * lets and scopes; sema_apply.c, one op application): the analysis's
 * state and what one file gives the other.  The stage's entry points
 * are in rooflint.h.
 */
#ifndef ROOFLINT_SEMA_H
#define ROOFLINT_SEMA_H

#include "rooflint.h"
#include "ast.h"
#include "ops.h"

enum { ARGS_CACHE = 16 };

typedef struct Let {
  LetValue v;
  Loc loc;
  bool ok; /* false: its value had an error (uses fail silently) */
  bool from_d; /* its value is a -D override */
} Let;

typedef struct OpInfo OpInfo; /* see apply() */

/* The current meaning of a name in a model. */
typedef struct Binding {
  int node;  /* -1: poisoned */
  int scope; /* where it was bound */
  Loc loc;   /* the name where it was bound */
} Binding;

/* A name bound outside a scope and rebound inside it. */
typedef struct Carried {
  const char *name;
  int id;               /* the name's dense id */
  const Binding *outer; /* the binding the body starts from */
} Carried;

typedef struct CarriedList {
  Carried *items;
  int n, cap;
} CarriedList;

typedef struct Sema {
  Arena *arena;
  DiagSink *diags;
  Bindings *overrides;
  /* The lets so far, by the dense id of their name (Program.nnames of
   * them), as bindings are: a use costs an index, not a hash lookup,
   * which a --sweep pays once per let per value. */
  Let **let_byid;
  /* Every top-level let statement, by name id (R-LET-001); NULL until the
   * first unknown name needs it. */
  const Stmt **all_lets;
  const char **let_names; /* for suggestions, NULL-terminated */
  int *let_ids;           /* the same lets' name ids */
  int cap_let_ids;
  /* Candidates "did you mean" may still compare (see unknown_name). */
  int64_t suggest_budget;
  const Block *top;       /* the file's top level: finds lets defined below */
  long long total_nodes;  /* nodes of the models so far, against the limit */
  int nlets, cap_lets;
  /* the model being analysed */
  Model *m;
  /* Name id -> its Binding in the current model (NULL: unbound): one
   * array for the run, indexed by the parser's dense ids, so a model of a
   * million names reads it almost in order instead of probing a hash
   * table.  A model clears only the entries it set (those in `bound`), so
   * a file of many models stays linear. */
  Binding **byid;
  int nnames; /* Program.nnames: the ids byid has room for */
  const char *const *names; /* Program.names */
  /* The name ids the current model has bound (for "did you mean" and the
   * reset), each once; a name's spelling is names[id]. */
  int *bound;
  int nbound, cap_bound;
  /* Bindings live here, not in the result arena: they die with the model. */
  Arena *bindings;
  /* The arena of the tree, when sema may release what it has read. */
  Arena *tree;
  /* Distinct node types (TensorType -> its one shared copy), by content. */
  const TensorType **types;
  size_t cap_types, ntypes;
  GNode *nodes;
  int cap_nodes;
  /* The end of the part of the nodes not made yet that holds pages the
   * tree gave back (arena_release_into); NULL: none. */
  void *fed;
  Scope *scopes;
  CarriedList *carried; /* parallel to scopes */
  int cap_scopes;
  Region *regions;
  int cap_regions;
  CheckpointBlock *ckpts;
  int cap_ckpts;
  LoopCarry *carries; /* becomes Model.carries */
  int cap_carries;
  int scope, region; /* current; -1 = none */
  int ckpt;          /* the checkpoint block being read; -1 = none */
  /* scratch for one op application, reused */
  TensorType *in;
  Loc *in_locs;
  int *in_ids;
  int cap_in;
  const Expr **pos;
  int cap_pos;
  /* Recently stored op arguments: nodes with equal arguments share one
   * copy, so a model of millions of ops stores a handful (round robin). */
  const OpArgs *shared_args[ARGS_CACHE];
  int next_args;
  /* The ops a file applies, by the callee's name id: each OpInfo is made
   * on the op's first application, so a model of a million ops looks the
   * op table up a few dozen times. */
  OpInfo **op_byid;
  /* Nodes named by `output`: applying an op clears is_output of what it
   * reads, so these are marked again when the model ends. */
  int *outputs;
  int noutputs, cap_outputs;
  /* The inner applications of the statement being applied (R-NEST-001):
   * each inner call and the node it became (-1: it failed), innermost
   * last; an application's entries are popped when it is done. */
  struct Nested {
    const Expr *call;
    int node;
  } *nested;
  int nnested, cap_nested;
} Sema;

/* What a number being evaluated is: an overflow message names it. */
typedef enum NumKind { NUM_VALUE, NUM_DIMENSION } NumKind;

/* The arguments of declarations and of ops that take no keyword. */
extern const OpArgs no_args;

/* Stated ranges of the figures that enter at sema (issue 17 item 4):
 * R-KW-004 custom's flops= and bytes=; R-DIM-006 executions per step of a
 * nested repeat/loop; R-KW-006 a parallel degree (a degree is costed as an
 * int elsewhere: 2^20 ranks is far past any machine and fits). */
#define MAX_KW_REAL 1e30
#define MAX_COUNT 1e60

/* sema.c */
void grow(void **p, int *cap, int need, size_t size);
const char *name_of(const Sema *s, const Expr *e);
bool same_type(const TensorType *a, const TensorType *b);
Binding **binding_slot(Sema *s, int id);
void unknown_name(Sema *s, Loc loc, const char *what, const char *name,
                  int64_t n, const char *const *(*candidates)(Sema *));
const char *const *op_candidates(Sema *s);
const char *const *bound_candidates(Sema *s);
bool is_let_name(Sema *s, int id);
bool eval_num(Sema *s, const Expr *e, NumKind kind, LetValue *out);
bool eval_int(Sema *s, const Expr *e, NumKind kind, int64_t *out);
bool parse_dtype(Sema *s, const char *name, Loc loc, bool storage, DType *out);
bool eval_type(Sema *s, const Expr *e, TensorType *t, Loc *dtype_loc);
const TensorType *intern_type(Sema *s, const TensorType *t);
GNode *new_node(Sema *s, const char *name, Role role, Loc loc, const Stmt *st);

/* sema_apply.c */
const Binding *tensor_operand(Sema *s, const Expr *e, bool *poisoned);
void apply_results(Sema *s, const Stmt *st, const Expr *call, const char *name,
                   const Ident *names, int nresults, int *node);
int apply_call(Sema *s, const Stmt *st, const Expr *call, const char *name);

#endif
