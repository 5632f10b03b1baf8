/* SPDX-License-Identifier: MIT */
/*
 * lsp.h: what the language server's files share, private to src/lsp/.
 * server.c reads messages and dispatches them by method; document.c
 * keeps the open documents and their latest analysis; each feature
 * (diagnostics.c, hover.c, actions.c, navigation.c, completion.c,
 * inlay.c) is a handler of a request over a document's analysis.
 */
#ifndef ROOFLINT_LSP_LSP_H
#define ROOFLINT_LSP_LSP_H

#include "rooflint.h"
#include "lsp/transport.h"
#include "out/json_writer.h" /* json_safe_string */

#include <jansson.h>

/* The protocol's error codes (JSON-RPC 2.0 and LSP 3.17). */
enum {
  LSP_PARSE_ERROR = -32700,
  LSP_INVALID_REQUEST = -32600,
  LSP_METHOD_NOT_FOUND = -32601,
  LSP_INVALID_PARAMS = -32602,
  LSP_SERVER_NOT_INITIALIZED = -32002,
  LSP_REQUEST_FAILED = -32803,
};

/* The settings (R-LSP-018): as the command line takes them. */
typedef struct LspSettings {
  char **targets; /* -t NAME or FILE */
  int ntargets;
  LetOverride *overrides; /* -D NAME=VALUE; names xmalloc'd */
  int noverrides;
  char **warnings; /* -W options without the -W, applied in order */
  int nwarnings;
  DiagPolicy policy; /* from warnings; its lists point into them */
  bool inlay_hints;
} LspSettings;

/* An open document and its latest analysis.  Each analysis has a source
 * set, an arena and a sink of its own, freed when the text changes, so
 * the server holds one analysis per document however many edits come. */
typedef struct LspDoc {
  char *uri;
  char *text; /* the latest text (xmalloc'd) */
  size_t len;
  int64_t version;
  bool dirty; /* the text changed since the analysis */
  bool unpublished; /* analysed since its diagnostics were last sent */
  SourceSet ss;
  int file;
  Arena *arena; /* NULL: not analysed yet */
  DiagSink diags; /* after the policy, in source order */
  Analysis *an;
  /* The last position converted: answers go through a file in order, so
   * the next one on the same line counts on from here instead of from
   * the line's start (a line may be megabytes long). */
  struct LspPosCache *pos;
  /* A Hugging Face config.json (R-LSP-020): its diagnostics are placed on
   * its keys; the other requests answer for .roof text only. */
  bool config;
} LspDoc;

typedef struct LspServer {
  LspReader reader;
  int out_fd;
  bool initialized, shut_down, exiting;
  LspDoc **docs;
  int ndocs, capdocs;
  LspSettings settings;
} LspServer;

/* A handler's failure: the error response it becomes. */
typedef struct LspError {
  int code; /* 0: none */
  char message[256];
} LspError;

void lsp_fail(LspError *err, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* Sends a message (the JSON is freed). */
void lsp_send(LspServer *s, json_t *msg);
void lsp_notify(LspServer *s, const char *method, json_t *params);

/* ---- document.c ---- */
LspDoc *lsp_doc_find(LspServer *s, const char *uri);
LspDoc *lsp_doc_open(LspServer *s, const char *uri, const char *text,
                     size_t len, int64_t version);
void lsp_doc_set_text(LspDoc *d, const char *text, size_t len, int64_t version);
void lsp_doc_close(LspServer *s, const char *uri);
void lsp_docs_free(LspServer *s);
/* The document's analysis, redone first when its text changed. */
void lsp_doc_analyze(LspServer *s, LspDoc *d);
/* The document a request's params name (textDocument.uri), analysed;
 * NULL after an InvalidParams error. */
LspDoc *lsp_doc_of(LspServer *s, json_t *params, LspError *err);
/* The same, a config.json included (lsp_doc_of refuses one). */
LspDoc *lsp_doc_any(LspServer *s, json_t *params, LspError *err);
/* The byte offset of params' `position` in d; false after an error. */
bool lsp_doc_offset(const LspDoc *d, json_t *params, uint32_t *off,
                    LspError *err);
const SourceFile *lsp_doc_file(const LspDoc *d);

/* ---- positions (document.c): LSP counts UTF-16 code units ---- */
json_t *lsp_position(const LspDoc *d, uint32_t off);
json_t *lsp_range(const LspDoc *d, Loc loc);
/* The offset of (line, character), clamped to the line. */
uint32_t lsp_offset_of(const SourceFile *f, int64_t line, int64_t character);

/* ---- settings.c ---- */
void lsp_settings_free(LspSettings *st);
/* Reads a settings object (initializationOptions, or
 * didChangeConfiguration's `settings`, itself or under "rooflint"); what
 * it cannot use is said in a window/logMessage. */
void lsp_settings_read(LspServer *s, json_t *obj);
/* The settings' -D bindings, copied into a. */
Bindings *lsp_settings_bindings(const LspSettings *st, Arena *a);

/* ---- names.c: the names of a kept tree, in source order ---- */
typedef enum LspNameRole {
  NAME_USE,    /* a name read in an expression, or by `output` */
  NAME_OP,     /* a call's callee: an op's name */
  NAME_LET,    /* let NAME (top level) */
  NAME_DECL,   /* input/weight/host/buffer/cache NAME */
  NAME_BIND,   /* NAME = op(...) in a model, or one of several results */
  NAME_MODEL,  /* model NAME */
  NAME_TARGET, /* target NAME { } */
  NAME_FUSED,  /* fused NAME { } */
} LspNameRole;

typedef struct LspName {
  int id; /* Program.names id; NAME_NONE for an op's or a model's word */
  const char *name;
  Loc loc;
  LspNameRole role;
  const Stmt *stmt;  /* the statement that holds it */
  const Stmt *model; /* the model it is in; NULL at the top level */
} LspName;

/* Each name in source order; fn returns false to stop. */
typedef bool (*LspNameFn)(void *ctx, const LspName *n);
void lsp_walk_names(const Program *p, LspNameFn fn, void *ctx);
/* The name at byte offset off (false: none). */
bool lsp_name_at(const Program *p, uint32_t off, LspName *out);
/* The definition that name n refers to (itself when it is one); false
 * when there is none in the file (an op's name, an unknown name). */
bool lsp_definition_of(const Program *p, const LspName *n, LspName *out);
/* Each name of id `id` in source order with its definition (itself for
 * a definition; NULL: none in the file); fn returns false to stop. */
typedef bool (*LspResolvedFn)(void *ctx, const LspName *n, const LspName *def);
void lsp_walk_id(const Program *p, int id, LspResolvedFn fn, void *ctx);
/* Whether a name is a definition. */
bool lsp_name_defines(LspNameRole r);

/* ---- the features: each a request handler ---- */
void lsp_publish_diagnostics(LspServer *s, LspDoc *d);
/* A diagnostic as LSP's Diagnostic object. */
json_t *lsp_diagnostic(const LspDoc *d, const Diag *g);
json_t *lsp_hover(LspServer *s, json_t *params, LspError *err);
json_t *lsp_code_action(LspServer *s, json_t *params, LspError *err);
json_t *lsp_definition(LspServer *s, json_t *params, LspError *err);
json_t *lsp_references(LspServer *s, json_t *params, LspError *err);
json_t *lsp_document_symbol(LspServer *s, json_t *params, LspError *err);
json_t *lsp_completion(LspServer *s, json_t *params, LspError *err);
json_t *lsp_inlay_hint(LspServer *s, json_t *params, LspError *err);

/* The node of model m whose statement holds off, preferring an op's call;
 * -1 for none. */
int lsp_node_at(const Model *m, uint32_t off);
/* `matmul(a, b, bias=)`: an op's operands and keywords (hover,
 * completion). */
void lsp_op_signature(const OpDesc *op, StrBuf *sb);
/* A location object {uri, range} for loc in d. */
json_t *lsp_location(const LspDoc *d, Loc loc);

#endif
