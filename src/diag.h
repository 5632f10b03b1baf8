/* SPDX-License-Identifier: MIT */
/*
 * diag.h: what the diagnostics engine offers one client each beyond
 * reporting and rendering (rooflint.h): a check attaches the figure behind
 * a finding (for the JSON and SARIF documents) and may ask whether a
 * finding would be dropped; the command line's --verify.
 */
#ifndef ROOFLINT_DIAG_H
#define ROOFLINT_DIAG_H

#include "rooflint.h"

/* The checks. */
/* A figure behind d's message, by key, for the machine-readable outputs. */
void diag_figure(Diag *d, const char *key, double value);
/* Whether diag_apply_policy would drop d (a suppression, -Wno-, -w): a
 * check may skip work for a finding no one will see. */
bool diag_dropped(const Diag *d, const SourceSet *ss, const DiagPolicy *p);

/* The command line. */
/* --verify: matches the sink's diagnostics (after policy) one to one
 * against the `# expect:` comments of `file`; prints one line per problem
 * ("t.roof:7: expected warning[c] \"x\" was not emitted", "t.roof:9:3:
 * unexpected error: msg") and returns how many there were. */
int diag_verify(const DiagSink *s, const SourceSet *ss, int file, FILE *out);

#endif
