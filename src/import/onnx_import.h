/* SPDX-License-Identifier: MIT */
/*
 * onnx_import.h: private to the ONNX translator, the files
 * src/import/onnx_*.c but the reader (onnx_read.c): the translation's
 * state and the functions one of its files gives the others.
 *
 *   onnx_import.c    the driver: the mapping table, lets, declarations of
 *                    the inputs, the graph walked node by node, the text
 *                    assembled
 *   onnx_map.c       mapping handlers: element-wise, contractions, norms,
 *                    reductions, pools, quantized
 *   onnx_map_view.c  mapping handlers: views, data movement, shape arithmetic
 *   onnx_control.c   mapping handlers: If, Loop, Scan
 *   onnx_map_rnn.c   mapping handlers: LSTM, GRU, RNN
 *   onnx_fold.c      attributes and constant folding
 *   onnx_apply.c     an op applied: sized by its shape rule, written
 *   onnx_emit.c      values, operands, declarations and node lines
 *   onnx_text.c      text pieces, names, dtypes, dims, numbers
 */
#ifndef ROOFLINT_ONNX_IMPORT_H
#define ROOFLINT_ONNX_IMPORT_H

#include "import.h"
#include "onnx.h"
#include "source.h"
#include "ops.h"
#include "util.h"

#include <string.h>

/* ------------------------------------------------------------- values */

/* What the importer knows of an ONNX value.  There is one per value of
 * the model, so it is kept small: the dims' let expressions are an array
 * of MAX_RANK in the arena only when one has any (val_set_sym), and the
 * flags sit together. */
typedef struct Val {
  const char *onnx;          /* its ONNX name */
  const char *ident;         /* its .roof name, once it has one */
  TensorType t;              /* dims at the lets' values */
  const char *const *sym;    /* [MAX_RANK]: a dim's let expression, or NULL:
                                a number; no_sym when every dim is one */
  /* known values: shape arithmetic, scalars, small constants */
  int64_t n;
  int64_t *iv;               /* is_int */
  double *rv;                /* !is_int */
  const char **isym;         /* per element of iv: its let expression */
  const char *decl_origin;   /* the declaration line's origin */
  const char *decl_note;     /* its comment */
  /* a declaration written when a kernel first reads the value */
  enum { VD_NONE, VD_WEIGHT, VD_BUFFER, VD_INPUT, VD_CACHE } decl;
  bool tensor;               /* a .roof tensor (bound or declared) */
  bool known;
  bool is_int;
  bool declared;
  bool tied_copy;            /* R-ONNX-023: remarked on at its declaration */
} Val;

/* The let expressions of a value whose dims are all numbers. */
extern const char *const no_sym[MAX_RANK];

/* A section of the text: its lines back to back, each ending in '\n', in
 * one buffer (a node's line is written straight into it), and each line's
 * origin (malloc'd, or NULL). */
typedef struct Lines {
  StrBuf text;
  char **origins;
  size_t n, cap;
} Lines;

/* The .roof names taken: an open-addressing set of them, at most 3/4
 * full.  A slot holds a name's hash in its high 32 bits and the name's
 * index in names + 1 in its low 32 bits (0: an empty slot), so a probe
 * reads one array and spells a name only when the hashes agree. */
typedef struct Idents {
  uint64_t *slots;
  size_t cap;          /* a power of two, or 0 */
  const char **names;  /* in the translation's arena */
  size_t n, cap_names;
} Idents;

enum { NUM_CACHE = 64 }; /* X.numbers */

/* The translation of one model. */
typedef struct X {
  Arena *a;
  const OnnxModel *m;
  const ImportOptions *o;
  const char *path;
  int64_t opset;
  /* What is known of each ONNX value, by its name's id (onnx.h): vals[id]
   * (NULL until the value is defined; names bound to the same value, an
   * alias, share one Val), uses[id] its readers once counted. */
  Val **vals;
  Idents idents;  /* .roof names taken */
  Lines head, decls, body;
  StrBuf scratch; /* a piece of text being built, copied to the arena */
  struct NumText {        /* number_term's cache: a value's bits, its text */
    uint64_t bits;
    const char *text;     /* in the arena; NULL: an empty slot */
  } numbers[NUM_CACHE];
  DType plan;
  /* dim_params: lets */
  const char **lets;
  const char **let_keys;  /* the dim_param, or "input:dim" for an unknown */
  const char **let_origins;
  int64_t *let_values;    /* what the shapes are computed at (below) */
  /* Unbound lets are sized at distinct primes, not at their value 1: a
   * dim that keeps a let's size then keeps its expression, where at 1 it
   * would match every constant 1 (a keepdims axis).  A model whose
   * shapes only check at 1 is translated again at 1. */
  bool probe;
  int nlets, cap_lets;
  /* the node being translated */
  const OnnxNode *node;
  int node_index;         /* in the top graph (subgraph nodes: the If's) */
  /* The subgraph being inlined as a path from the top graph,
   * `main_graph/If_0/then_branch` (node names, else OP_INDEX, and the
   * attribute holding it), written in its nodes' origins; NULL at the
   * top. */
  const char *graph_path;
  char *error;
  StrMap warned_ops;      /* --unknown-ops=custom: one warning per op type */
  PtrMap ops;             /* rooflint op name (by address: the callers'
                             literals and op_rows') -> struct OpStart */
  StrMap rows;            /* ONNX op_type -> its first row in op_rows */
  PtrMap node_rows;       /* a node's op_type (by address: the reader's
                             one copy of it) -> its row in the default
                             domain, or &no_row */
  const OnnxGraph *graph; /* the graph whose nodes are being translated */
  int32_t *uses;          /* by id: the value's readers, once a fold needs it */
  const OnnxValueInfo **vinfo; /* by id: the top graph's value_info (the last
                                  one given for a name), or NULL; NULL when
                                  the graph has none */
  const OnnxNode *bias_add; /* an Add folded into the MatMul before it */
  struct Pending {        /* a diagnostic on line `index` of a section */
    Lines *sec;
    size_t index;
    Severity sev;
    char *msg;
  } *diags;
  size_t ndiags, cap_diags;
} X;

typedef struct OnnxOpRow OnnxOpRow;
typedef bool (*MapFn)(X *x, const OnnxNode *n, const OnnxOpRow *row);

/* The arithmetic a row's op stands for, where the importer computes it
 * itself rather than writing a call: the fold of known values (shape
 * arithmetic, onnx_fold.c), a max pool's padding (max's identity, -inf),
 * the Add after a MatMul that becomes its bias. */
typedef enum OnnxArith {
  ONNX_ARITH_NONE, /* the handler writes the op; nothing folds */
  ONNX_ARITH_ADD,
  ONNX_ARITH_SUB,
  ONNX_ARITH_MUL,
  ONNX_ARITH_DIV,
  ONNX_ARITH_MAX,
  ONNX_ARITH_MIN,
  ONNX_ARITH_NEG,
  ONNX_ARITH_SQRT,
  ONNX_ARITH_EQUAL,
  ONNX_ARITH_LESS,
  ONNX_ARITH_GREATER,
  ONNX_ARITH_NOT,
  ONNX_ARITH_WHERE,
  ONNX_ARITH_CAST, /* the values kept, in the dtype of its `to` */
} OnnxArith;

struct OnnxOpRow {
  const char *op_type, *domain;
  MapFn map;
  const char *roof, *doc;
  OnnxArith arith;
};

/* An operand as the line writes it: a name, a number, or a nested call. */
typedef struct Term {
  const char *text;
  TensorType t;              /* dtype DT_NONE, rank 0: a number */
  const char *sym[MAX_RANK];
} Term;

/* The most operands one application takes (a DenseNet block's Concat
 * has 49). */
enum { CALL_MAX_IN = 256 };

typedef struct Call {
  const OpDesc *op;
  Term in[CALL_MAX_IN];
  int nin;
  OpArgs args;
  int64_t list[2 * MAX_RANK];
  const char *list_sym[2 * MAX_RANK];
  int nlist;
  int result, nresults;
  StrBuf kw;    /* ", stride=2" ... */
  const char *dtype; /* cast's dtype, or NULL */
  bool bias;    /* the last input is bias= */
  /* the node's line is written from the text at once (emit_call): it
   * stays in x->scratch, valid until the next piece is built there,
   * instead of being copied to the arena */
  bool text_in_scratch;
} Call;



/* onnx_text.c */
void lines_end(Lines *l, char *origin);
void sb_reserve_to(StrBuf *sb, size_t cap);
void lines_add(Lines *l, const char *text, char *origin);
void lines_append(Lines *dst, Lines *src);
void lines_free(Lines *l);
char *xprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
void put_quoted(StrBuf *sb, const char *s);
void put_comment_text(StrBuf *sb, const char *s);
void put_origin(StrBuf *sb, const X *x, const OnnxNode *n, const char *quoted,
                size_t qlen);
char *origin_quoted(const X *x, const OnnxNode *n, const char *quoted,
                    size_t qlen);
bool fail(X *x, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* R-ONNX-023: how an initializer of dtype d is declared: a bool or int64
 * one (a mask, an index table, position ids: torch's long) is a buffer,
 * any other a weight (floats; int8 and int4 quantized weights and the
 * int32 biases of QLinearConv). */
int initializer_decl(DType d);
/* R-ONNX-020: a number the translation writes must read back: NaN never,
 * an infinity only where the language takes `inf` (a scalar operand, a
 * bound, a fill: may_be_infinite), never as a coefficient.  False after
 * the error at the node, which names `what`. */
bool written_number(X *x, double v, bool may_be_infinite, const char *what);
void note(X *x, Lines *sec, size_t index, Severity sev, const char *fmt,
          ...) PRINTF_LIKE(5, 6);
void idents_reserve(Idents *t, size_t n);
void idents_free(Idents *t);
const char *ident_for(X *x, const char *onnx, const char *fallback);
DType dtype_of(int32_t t);
bool dtype_or_fail(X *x, int32_t t, const char *what, DType *out);
void put_dims(StrBuf *sb, const TensorType *t, const char *const *sym);
void put_list(StrBuf *sb, const int64_t *v, const char *const *sym, int n);
void put_type(X *x, StrBuf *sb, const TensorType *t, const char *const *sym);
Term number_term(X *x, double v);

/* onnx_emit.c */
Val *val_at(X *x, int32_t id);
void val_bind(X *x, int32_t id, Val *v);
bool has_input(const OnnxNode *n, int i);
Val *in_val(X *x, const OnnxNode *n, int i);
Val *val_new(X *x, const char *name, int32_t id);
double known_at(const Val *v, int64_t i);
void declare(X *x, Val *v);
bool tensor_in(X *x, const OnnxNode *n, int i, Term *out);
bool scalar_or_tensor_in(X *x, const OnnxNode *n, int i, Term *out);
Val *known_in(X *x, const OnnxNode *n, int i, const char *what);
Val *bind_output(X *x, const OnnxNode *n, int i);
void end_node_line(X *x, const OnnxNode *n);
void bind_line(X *x, const OnnxNode *n, const char *name, const char *text);
const char *arena_origin(X *x, const OnnxNode *n);
void val_set_sym(X *x, Val *v, const char *const *sym);
void set_tensor(X *x, Val *v, const Term *t);
bool emit(X *x, const OnnxNode *n, Term *results, int nresults,
          const char *text);
bool emit1(X *x, const OnnxNode *n, Term *t);
bool emit_call(X *x, const OnnxNode *n, Call *c);
void emit_folded(X *x, const OnnxNode *n, const char *what);

/* onnx_apply.c */
void call_init(X *x, Call *c, const char *op);
void call_in(Call *c, Term t);
void call_kw(Call *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
bool apply(X *x, Call *c, Term *out);

/* onnx_fold.c */
int64_t attr_int(const OnnxNode *n, const char *name, int64_t def);
double attr_float(const OnnxNode *n, const char *name, double def);
const char *attr_str(const OnnxNode *n, const char *name, const char *def);
const int64_t *attr_ints(const OnnxNode *n, const char *name, int *cnt);
bool ints_from(X *x, const OnnxNode *n, const char *attr, int input,
               const int64_t **v, int *cnt);
int64_t norm_ax(int64_t a, int rank);
Val *known_new(X *x, const OnnxNode *n, int i, bool is_int, int64_t cnt,
               const TensorType *t);
bool is_int_type(int32_t t);
/* v's values, known: n integers (their let expressions to come) or reals,
 * from arrays of n + 1 (the reader's, known_new's). */
void known_values(X *x, Val *v, bool is_int, const int64_t *ints,
                  const double *reals, int64_t n);
void tensor_values(X *x, Val *v, const OnnxTensor *t);
bool tensor_type(X *x, const OnnxTensor *t, TensorType *out);
bool all_known(X *x, const OnnxNode *n, int from, int to);
/* Every input known: n folded by its row's arith; false when it does not
 * fold (its handler writes it). */
bool fold_elementwise(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool fold_copy(X *x, const OnnxNode *n, const Val *src, const TensorType *t,
               const int64_t *pick, int64_t cnt);

/* onnx_map.c */
bool map_unary(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_binary(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_reciprocal(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_alias(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_cast(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_gelu(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_clip(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_where(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_compare(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_conv(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_conv_transpose(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool transpose_term(X *x, Term *t, const int64_t *perm, int r);
bool map_gemm(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_matmul(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_einsum(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_softmax(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_layernorm(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_batchnorm(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_instancenorm(X *x, const OnnxNode *n, const OnnxOpRow *row);
int32_t value_uses(X *x, int32_t id);
int cmp_desc(const void *a, const void *b);
bool map_reduce(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_pool(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_global_pool(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_quantize(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_dequantize(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_qlinear_conv(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_conv_integer(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_qlinear_matmul(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_matmul_integer(X *x, const OnnxNode *n, const OnnxOpRow *row);

/* onnx_map_view.c */
bool map_reshape(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_transpose(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool unsqueeze_term(X *x, Term *t, int64_t axis);
bool map_flatten(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_squeeze(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_unsqueeze(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_slice(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_split(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_concat(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_gather(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_expand(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_pad(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_resize(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_upsample(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_constant(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_shape(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_size(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_constant_of_shape(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_range(X *x, const OnnxNode *n, const OnnxOpRow *row);

/* onnx_map_rnn.c */
bool map_rnn(X *x, const OnnxNode *n, const OnnxOpRow *row);

/* onnx_control.c */
bool map_if(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_loop(X *x, const OnnxNode *n, const OnnxOpRow *row);
bool map_scan(X *x, const OnnxNode *n, const OnnxOpRow *row);

/* onnx_import.c */
bool translate_nodes(X *x, const OnnxGraph *g, bool top);
/* The mapping row of n's op type and domain, or NULL. */
const OnnxOpRow *onnx_row(X *x, const OnnxNode *n);

#endif
