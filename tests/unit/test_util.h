/* SPDX-License-Identifier: MIT */
/* test_util.h: a fixture for unit suites: run a string through the front
 * end with diagnostics captured, then ask what was reported. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <check.h>

#include "rooflint.h"

typedef struct TestCtx {
  Arena *arena;
  SourceSet ss;
  DiagSink diags;
  int file;
  Program *prog;  /* set by tc_parse and tc_sema */
  Unit *unit;     /* set by tc_sema when there was no syntax error */
  StrBuf rendered;
} TestCtx;

/* Loads `text` as the file "t.roof" of a fresh context; nothing more. */
TestCtx *tc_load(const char *text);
/* Parses `text` as the file "t.roof". */
TestCtx *tc_parse(const char *text);
/* Parses, then runs sema when parsing succeeded (bindings may be NULL). */
TestCtx *tc_sema(const char *text, Bindings *bindings);
void tc_free(TestCtx *tc);
/* Every diagnostic rendered as text, no colour, in source order. */
const char *tc_render(TestCtx *tc);
int tc_count(const TestCtx *tc, Severity sev);
/* True when a diagnostic of `sev` on 1-based `line` contains `substring`. */
bool tc_has(const TestCtx *tc, Severity sev, int line, const char *substring);
/* The first model's node named `name` (the last binding of it), or NULL. */
const GNode *tc_node(const TestCtx *tc, const char *name);
/* A new file holding bytes[0..len), made by mkstemp in $TMPDIR (/tmp when
 * that is unset or empty), as the shell tests make theirs; the caller
 * removes and frees it. */
char *tc_temp_file(const char *stem, const void *bytes, size_t len);

#endif
