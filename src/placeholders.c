/* SPDX-License-Identifier: MIT */
/*
 * placeholders.c: TEMPORARY weak definitions of every cross-module entry
 * point, so the binary links while modules are being written in parallel.
 * A real (strong) definition in its own module replaces each one at link
 * time.  This file is deleted once every module exists.
 */
#include "rooflint.h"

#define WEAK __attribute__((weak))

WEAK Program *parse_file(Arena *a, SourceSet *ss, int file, DiagSink *d) {
  (void)ss; (void)d;
  Program *p = arena_alloc(a, sizeof *p);
  p->file = file;
  return p;
}
WEAK void ast_dump(const Program *p, const SourceSet *ss, FILE *out) { (void)p; (void)ss; (void)out; }
WEAK Unit *sema_analyze(Arena *a, const Program *p, Bindings *b, DiagSink *d) {
  (void)b; (void)d;
  Unit *u = arena_alloc(a, sizeof *u);
  u->file = p->file;
  return u;
}
WEAK void graph_dump(const Unit *u, const SourceSet *ss, FILE *out) { (void)u; (void)ss; (void)out; }
WEAK const Target *target_resolve(Arena *a, SourceSet *ss, const char *n, const Unit *u, Loc w, DiagSink *d) {
  (void)ss; (void)n; (void)u; (void)w; (void)d;
  return arena_alloc(a, sizeof(Target));
}
WEAK ModelCost *cost_model(Arena *a, const Model *m, const Target *t) {
  ModelCost *c = arena_alloc(a, sizeof *c);
  c->model = m; c->target = t;
  return c;
}
WEAK const CheckDesc *check_registry(int *n) { *n = 0; return NULL; }
WEAK const CheckDesc *check_lookup(const char *name) { (void)name; return NULL; }
WEAK void checks_run(const CheckCtx *ctx) { (void)ctx; }
WEAK void report_summary(FILE *out, const Analysis *an, const SourceSet *ss) { (void)out; (void)an; (void)ss; }
WEAK void report_models(FILE *out, const Analysis *an, const SourceSet *ss) { (void)out; (void)an; (void)ss; }
WEAK void report_sweep_header(FILE *out, const Analysis *an, const char *l) { (void)out; (void)an; (void)l; }
WEAK void report_sweep_row(FILE *out, const Analysis *an, const char *l, const char *v) { (void)out; (void)an; (void)l; (void)v; }
WEAK int report_targets_cmd(FILE *out, Arena *a, SourceSet *ss, const char *const *names, int n, DiagSink *d) {
  (void)out; (void)a; (void)ss; (void)names; (void)n; (void)d; return 2;
}
WEAK int report_target_card(FILE *out, Arena *a, SourceSet *ss, const char *name, DiagSink *d) {
  (void)out; (void)a; (void)ss; (void)name; (void)d; return 2;
}
WEAK const EmbeddedFile embedded_targets[] = {{0, 0, 0}};
WEAK const int embedded_targets_count = 0;
