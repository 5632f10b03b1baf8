/* SPDX-License-Identifier: MIT */
/*
 * settings.c: the server's settings (R-LSP-018), from initializationOptions
 * or workspace/didChangeConfiguration:
 *   {"targets": ["h100_sxm", "a100_sxm"], "defines": ["B=8"],
 *    "warnings": ["no-overhead-bound", "error"], "inlayHints": true}
 * each as the command line takes it (-t, -D, -W).  A key that is given
 * replaces its old value; a value that is not understood is dropped and
 * said in a window/logMessage.
 */
#include "lsp/lsp.h"
#include "cli.h" /* cli_apply_warning: -W as the command line reads it */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void free_strings(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

static void free_policy(DiagPolicy *p) {
  free((void *)p->enabled);
  free((void *)p->disabled);
  free((void *)p->werror_on);
  free((void *)p->werror_off);
  memset(p, 0, sizeof *p);
}

void lsp_settings_free(LspSettings *st) {
  free_strings(st->targets, st->ntargets);
  for (int i = 0; i < st->noverrides; i++) free((void *)st->overrides[i].name);
  free(st->overrides);
  free_strings(st->warnings, st->nwarnings);
  free_policy(&st->policy);
  memset(st, 0, sizeof *st);
}

static void warn(LspServer *s, const char *fmt, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, what);
  lsp_notify(s, "window/logMessage",
             json_pack("{s:i, s:o}", "type", 2, "message", json_safe_string(msg)));
}

/* The strings of a settings array; NULL (after a message) when it is not
 * an array of strings. */
static char **strings_of(LspServer *s, json_t *arr, const char *key, int *n) {
  if (!json_is_array(arr)) {
    warn(s, "rooflint: setting '%s' must be an array of strings", key);
    return NULL;
  }
  char **v = xcalloc(json_array_size(arr) + 1, sizeof *v);
  *n = 0;
  size_t i;
  json_t *x;
  json_array_foreach(arr, i, x) {
    if (json_is_string(x)) v[(*n)++] = xstrdup(json_string_value(x));
    else warn(s, "rooflint: an entry of '%s' is not a string", key);
  }
  return v;
}

/* A -D value: an integer (digits, '_' between them) or a finite real. */
static bool let_value(const char *text, LetValue *v) {
  char *end;
  errno = 0;
  long long i = strtoll(text, &end, 10);
  if (*text && *end == '\0' && errno == 0) {
    *v = (LetValue){.is_real = false, .i = i};
    return true;
  }
  double r = strtod(text, &end);
  if (!*text || *end != '\0' || !isfinite(r)) return false;
  *v = (LetValue){.is_real = true, .r = r};
  return true;
}

static void read_defines(LspServer *s, json_t *arr) {
  int n;
  char **v = strings_of(s, arr, "defines", &n);
  if (!v) return;
  LspSettings *st = &s->settings;
  for (int i = 0; i < st->noverrides; i++) free((void *)st->overrides[i].name);
  free(st->overrides);
  st->overrides = xcalloc((size_t)n + 1, sizeof *st->overrides);
  st->noverrides = 0;
  for (int i = 0; i < n; i++) {
    char *eq = strchr(v[i], '=');
    LetValue val;
    if (!eq || eq == v[i] || !let_value(eq + 1, &val)) {
      warn(s, "rooflint: define '%s' is not NAME=NUMBER", v[i]);
      continue;
    }
    *eq = '\0';
    st->overrides[st->noverrides++] = (LetOverride){xstrdup(v[i]), val, false, NULL};
  }
  free_strings(v, n);
}

static void read_warnings(LspServer *s, json_t *arr) {
  int n;
  char **v = strings_of(s, arr, "warnings", &n);
  if (!v) return;
  LspSettings *st = &s->settings;
  free_strings(st->warnings, st->nwarnings);
  free_policy(&st->policy);
  st->warnings = v;
  st->nwarnings = n;
  for (int i = 0; i < n; i++) {
    const char *w = strncmp(v[i], "-W", 2) == 0 ? v[i] + 2 : v[i];
    if (!cli_apply_warning(&st->policy, w))
      warn(s, "rooflint: unknown warning option '%s'", v[i]);
  }
}

void lsp_settings_read(LspServer *s, json_t *obj) {
  LspSettings *st = &s->settings;
  json_t *v;
  if ((v = json_object_get(obj, "targets"))) {
    int n;
    char **t = strings_of(s, v, "targets", &n);
    if (t) {
      free_strings(st->targets, st->ntargets);
      st->targets = t;
      st->ntargets = n;
    }
  }
  if ((v = json_object_get(obj, "defines"))) read_defines(s, v);
  if ((v = json_object_get(obj, "warnings"))) read_warnings(s, v);
  if ((v = json_object_get(obj, "inlayHints"))) {
    if (json_is_boolean(v)) st->inlay_hints = json_is_true(v);
    else warn(s, "rooflint: setting '%s' must be true or false", "inlayHints");
  }
}

Bindings *lsp_settings_bindings(const LspSettings *st, Arena *a) {
  Bindings *b = arena_alloc(a, sizeof *b);
  b->n = st->noverrides;
  b->overrides = arena_alloc(a, ((size_t)b->n + 1) * sizeof *b->overrides);
  for (int i = 0; i < b->n; i++) b->overrides[i] = st->overrides[i];
  return b;
}
