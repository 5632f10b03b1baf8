/* SPDX-License-Identifier: MIT */
/* test_util.c: the unit-test fixture (see test_util.h). */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestCtx *tc_load(const char *text) {
  TestCtx *tc = xcalloc(1, sizeof *tc);
  tc->arena = arena_new();
  src_init(&tc->ss);
  diag_sink_init(&tc->diags);
  size_t len = strlen(text);
  char *copy = xmalloc(len + 1);
  memcpy(copy, text, len + 1);
  tc->file = src_add(&tc->ss, "t.roof", copy, len);
  return tc;
}

TestCtx *tc_parse(const char *text) {
  TestCtx *tc = tc_load(text);
  tc->prog = parse_file(tc->arena, &tc->ss, tc->file, &tc->diags);
  return tc;
}

TestCtx *tc_sema(const char *text, Bindings *bindings) {
  TestCtx *tc = tc_parse(text);
  Bindings none = {0};
  if (tc->prog->nsyntax_errors == 0)
    tc->unit = sema_analyze(tc->arena, tc->prog, bindings ? bindings : &none,
                            &tc->diags);
  return tc;
}

void tc_free(TestCtx *tc) {
  diag_sink_free(&tc->diags);
  src_free(&tc->ss);
  arena_free(tc->arena);
  sb_free(&tc->rendered);
  free(tc);
}

const char *tc_render(TestCtx *tc) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  RenderOptions ro = {.color = false};
  diag_sort(&tc->diags);
  diag_render_text(&tc->diags, &tc->ss, f, &ro);
  fclose(f);
  sb_free(&tc->rendered);
  sb_putn(&tc->rendered, buf, len);
  free(buf);
  return sb_str(&tc->rendered);
}

int tc_count(const TestCtx *tc, Severity sev) {
  int n = 0;
  for (int i = 0; i < tc->diags.n; i++) n += tc->diags.items[i]->sev == sev;
  return n;
}

bool tc_has(const TestCtx *tc, Severity sev, int line, const char *substring) {
  const SourceFile *f = src_file(&tc->ss, tc->file);
  for (int i = 0; i < tc->diags.n; i++) {
    const Diag *d = tc->diags.items[i];
    if (d->sev != sev || d->loc.file != tc->file) continue;
    int l, c;
    src_linecol(f, d->loc.start, &l, &c);
    if (l == line && strstr(d->msg, substring)) return true;
  }
  return false;
}

const GNode *tc_node(const TestCtx *tc, const char *name) {
  if (!tc->unit || tc->unit->nmodels == 0) return NULL;
  const Model *m = &tc->unit->models[0];
  for (int i = m->nnodes - 1; i >= 0; i--)
    if (strcmp(m->nodes[i].name, name) == 0) return &m->nodes[i];
  return NULL;
}

char *tc_temp_file(const char *stem, const void *bytes, size_t len) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  size_t n = strlen(dir) + strlen(stem) + 16;
  char *path = xmalloc(n);
  snprintf(path, n, "%s/%s.XXXXXX", dir, stem);
  int fd = mkstemp(path);
  ck_assert_msg(fd >= 0, "mkstemp in %s failed", dir);
  ck_assert_int_eq(write(fd, bytes, len), (long)len);
  close(fd);
  return path;
}
