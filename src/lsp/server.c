/* SPDX-License-Identifier: MIT */
/*
 * server.c: the language server's loop and its table of methods
 * (specs/lsp.md).  A message is read, checked against JSON-RPC's shape
 * and the lifecycle (R-LSP-005..008), and handed to its method's row.
 * Documents are analysed lazily: a change only stores the text, and the
 * analysis runs when a request needs it or when no message is waiting,
 * so a burst of edits is analysed once, on the latest text (R-LSP-010).
 */
#include "lsp/lsp.h"
#include "lsp/server.h"

#include <signal.h>
#include <string.h>

typedef json_t *(*RequestFn)(LspServer *s, json_t *params, LspError *err);
typedef void (*NotifyFn)(LspServer *s, json_t *params);

/* One method: a request (answered) or a notification (not). */
typedef struct Method {
  const char *name;
  RequestFn request;
  NotifyFn notify;
} Method;

void lsp_fail(LspError *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  err->code = code;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
}

/* A client that closed our output is gone: the server ends, status 1
 * (R-LSP-004). */
void lsp_send(LspServer *s, json_t *msg) {
  char *text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(msg);
  if (!text) die("lsp: a response did not serialise");
  if (!lsp_write_message(s->out_fd, text, strlen(text))) {
    s->exiting = true;
    s->shut_down = false;
  }
  free(text);
}

void lsp_notify(LspServer *s, const char *method, json_t *params) {
  lsp_send(s, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method,
                        "params", params));
}

static void respond_error(LspServer *s, json_t *id, int code, const char *msg) {
  lsp_send(s, json_pack("{s:s, s:O, s:{s:i, s:o}}", "jsonrpc", "2.0", "id",
                        id ? id : json_null(), "error", "code", code,
                        "message", json_safe_string(msg)));
}

/* ------------------------------------------------------------ lifecycle */

static json_t *capabilities(void) {
  return json_pack(
      "{s:s, s:{s:b, s:i}, s:b, s:{s:[s]}, s:b, s:b, s:b, s:{s:b}, s:b}",
      "positionEncoding", "utf-16", "textDocumentSync", "openClose", 1,
      "change", 1, "hoverProvider", 1, "codeActionProvider",
      "codeActionKinds", "quickfix", "definitionProvider", 1,
      "referencesProvider", 1, "documentSymbolProvider", 1,
      "completionProvider", "resolveProvider", 0, "inlayHintProvider", 1);
}

static json_t *initialize(LspServer *s, json_t *params, LspError *err) {
  if (s->initialized) {
    lsp_fail(err, LSP_INVALID_REQUEST, "initialize was sent twice");
    return NULL;
  }
  s->initialized = true;
  json_t *opts = json_object_get(params, "initializationOptions");
  if (json_is_object(opts)) lsp_settings_read(s, opts);
  return json_pack("{s:o, s:{s:s, s:s}}", "capabilities", capabilities(),
                   "serverInfo", "name", "rooflint", "version",
                   ROOFLINT_VERSION);
}

static json_t *on_shutdown(LspServer *s, json_t *params, LspError *err) {
  (void)params, (void)err;
  s->shut_down = true;
  return json_null();
}

static void exit_notified(LspServer *s, json_t *params) {
  (void)params;
  s->exiting = true;
}

static void on_ignore(LspServer *s, json_t *params) { (void)s, (void)params; }

static void on_configuration(LspServer *s, json_t *params) {
  json_t *st = json_object_get(params, "settings");
  if (!json_is_object(st)) return;
  json_t *ours = json_object_get(st, "rooflint");
  lsp_settings_read(s, json_is_object(ours) ? ours : st);
  for (int i = 0; i < s->ndocs; i++) s->docs[i]->dirty = true;
}

/* ----------------------------------------------------------- documents */

static const char *text_of(json_t *obj, size_t *len) {
  json_t *t = json_object_get(obj, "text");
  if (!json_is_string(t)) return NULL;
  *len = json_string_length(t);
  return json_string_value(t);
}

static void on_open(LspServer *s, json_t *params) {
  json_t *td = json_object_get(params, "textDocument");
  const char *uri = json_string_value(json_object_get(td, "uri"));
  size_t len;
  const char *text = text_of(td, &len);
  if (!uri || !text) return;
  lsp_doc_open(s, uri, text, len,
               json_integer_value(json_object_get(td, "version")));
}

/* Full sync: the last change's text is the document (R-LSP-010). */
static void on_change(LspServer *s, json_t *params) {
  json_t *td = json_object_get(params, "textDocument");
  LspDoc *d = lsp_doc_find(s, json_string_value(json_object_get(td, "uri")));
  json_t *changes = json_object_get(params, "contentChanges");
  size_t n = json_array_size(changes), len;
  const char *text = n ? text_of(json_array_get(changes, n - 1), &len) : NULL;
  if (d && text)
    lsp_doc_set_text(d, text, len,
                     json_integer_value(json_object_get(td, "version")));
}

static void on_close(LspServer *s, json_t *params) {
  json_t *td = json_object_get(params, "textDocument");
  const char *uri = json_string_value(json_object_get(td, "uri"));
  if (!uri) return;
  LspDoc *d = lsp_doc_find(s, uri);
  if (!d) return;
  /* its diagnostics go with it */
  lsp_notify(s, "textDocument/publishDiagnostics",
             json_pack("{s:s, s:[]}", "uri", uri, "diagnostics"));
  lsp_doc_close(s, uri);
}

static const Method methods[] = {
    {"initialize", initialize, NULL},
    {"initialized", NULL, on_ignore},
    {"shutdown", on_shutdown, NULL},
    {"exit", NULL, exit_notified},
    {"textDocument/didOpen", NULL, on_open},
    {"textDocument/didChange", NULL, on_change},
    {"textDocument/didClose", NULL, on_close},
    {"textDocument/didSave", NULL, on_ignore},
    {"workspace/didChangeConfiguration", NULL, on_configuration},
    {"textDocument/hover", lsp_hover, NULL},
    {"textDocument/codeAction", lsp_code_action, NULL},
    {"textDocument/definition", lsp_definition, NULL},
    {"textDocument/references", lsp_references, NULL},
    {"textDocument/documentSymbol", lsp_document_symbol, NULL},
    {"textDocument/completion", lsp_completion, NULL},
    {"textDocument/inlayHint", lsp_inlay_hint, NULL},
};

static const Method *find_method(const char *name) {
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
    if (strcmp(methods[i].name, name) == 0) return &methods[i];
  return NULL;
}

/* ------------------------------------------------------------- messages */

static void answer(LspServer *s, json_t *id, const Method *m, json_t *params) {
  LspError err = {0};
  json_t *result = m->request(s, params, &err);
  if (err.code) {
    json_decref(result);
    respond_error(s, id, err.code, err.message);
    return;
  }
  lsp_send(s, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id,
                        "result", result ? result : json_null()));
}

/* A request (id present): the lifecycle first, then its method
 * (R-LSP-006, R-LSP-007). */
static void request(LspServer *s, json_t *id, const char *method,
                    json_t *params) {
  const Method *m = find_method(method);
  bool is_init = strcmp(method, "initialize") == 0;
  if (!s->initialized && !is_init)
    respond_error(s, id, LSP_SERVER_NOT_INITIALIZED,
                  "the server is not initialized");
  else if (s->shut_down)
    respond_error(s, id, LSP_INVALID_REQUEST, "the server is shut down");
  else if (!m || !m->request)
    respond_error(s, id, LSP_METHOD_NOT_FOUND, "unknown method");
  else if (params && !json_is_object(params) && !json_is_array(params))
    respond_error(s, id, LSP_INVALID_PARAMS, "params must be an object");
  else
    answer(s, id, m, params);
}

/* A notification: never answered; before initialize only `exit` counts
 * (R-LSP-006). */
static void notification(LspServer *s, const char *method, json_t *params) {
  const Method *m = find_method(method);
  if (!m || !m->notify) return;
  if (!s->initialized && m->notify != exit_notified) return;
  if (params && !json_is_object(params)) return;
  m->notify(s, params);
}

/* One message's body (R-LSP-005): JSON-RPC 2.0's shape, else an error
 * with a null id. */
static void handle(LspServer *s, const char *body, size_t len) {
  json_error_t jerr;
  json_t *msg = json_loadb(body, len, 0, &jerr);
  if (!msg) {
    char text[300];
    snprintf(text, sizeof text, "not JSON: %s at byte %d", jerr.text,
             jerr.position);
    respond_error(s, NULL, LSP_PARSE_ERROR, text);
    return;
  }
  json_t *id = json_object_get(msg, "id");
  json_t *method = json_object_get(msg, "method");
  const char *version = json_string_value(json_object_get(msg, "jsonrpc"));
  bool id_ok = !id || json_is_integer(id) || json_is_string(id);
  if (!json_is_object(msg) || !version || strcmp(version, "2.0") != 0 ||
      !id_ok || (method && !json_is_string(method)))
    respond_error(s, id_ok ? id : NULL, LSP_INVALID_REQUEST,
                  "not a JSON-RPC 2.0 message");
  else if (!method && !id)
    respond_error(s, NULL, LSP_INVALID_REQUEST, "a message without a method");
  else if (method && id)
    request(s, id, json_string_value(method), json_object_get(msg, "params"));
  else if (method)
    notification(s, json_string_value(method), json_object_get(msg, "params"));
  /* else a response to a request of ours: the server sends none */
  json_decref(msg);
}

/* Analyses and publishes every changed document once no message waits. */
static void publish_changed(LspServer *s) {
  for (int i = 0; i < s->ndocs; i++)
    if (s->docs[i]->dirty || s->docs[i]->unpublished) {
      lsp_doc_analyze(s, s->docs[i]);
      lsp_publish_diagnostics(s, s->docs[i]);
    }
}

int lsp_serve(int in_fd, int out_fd) {
  /* a closed output is a failed write (lsp_send), not a killed process */
  signal(SIGPIPE, SIG_IGN);
  LspServer s = {.out_fd = out_fd};
  lsp_reader_init(&s.reader, lsp_fd_read, lsp_fd_ready, &in_fd);
  while (!s.exiting) {
    if (!lsp_reader_pending(&s.reader)) publish_changed(&s);
    char *body = NULL;
    size_t len = 0;
    LspReadStatus st = lsp_read_message(&s.reader, &body, &len);
    if (st == LSP_EOF) break;
    if (st == LSP_BAD_FRAME)
      respond_error(&s, NULL, LSP_PARSE_ERROR,
                    "a message without a valid Content-Length header");
    else if (st == LSP_TOO_LARGE)
      respond_error(&s, NULL, LSP_INVALID_REQUEST,
                    "a message larger than the limit (64 MiB)");
    else
      handle(&s, body, len);
    free(body);
  }
  lsp_docs_free(&s);
  lsp_settings_free(&s.settings);
  lsp_reader_free(&s.reader);
  return s.exiting && s.shut_down ? 0 : 1;
}
