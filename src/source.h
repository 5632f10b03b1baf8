/* SPDX-License-Identifier: MIT */
/*
 * source.h: what a file's directives and an import record on a loaded
 * SourceFile.  The parser records the suppressions, ignored lines and
 * `# expect:` comments it reads; the importers hand over the origins and
 * findings of the text they wrote.  Every other stage only reads a file
 * (rooflint.h).
 */
#ifndef ROOFLINT_SOURCE_H
#define ROOFLINT_SOURCE_H

#include "rooflint.h"

/* The parser: the directives of a file, as it reads them. */
void src_add_suppression(SourceFile *f, Suppression s);
void src_add_ignore_line(SourceFile *f, int line);
void src_add_expectation(SourceFile *f, Expectation e);

/* The importers. */
/* Takes ownership of an imported file's per-line origins (import.h). */
void src_set_origins(SourceFile *f, char **origins, size_t n);
/* Takes ownership of an imported file's findings. */
void src_set_import_diags(SourceFile *f, ImportDiag *d, size_t n);
/* Takes ownership of the text of the file an imported file was made from
 * (a config.json), so that origins with a byte region place a diagnostic
 * in it (src_locate). */
void src_set_original(SourceFile *f, char *text, size_t len);
/* The byte region ` @OFFSET+LENGTH` that ends an origin: the origin's
 * length without it, or strlen(origin) (and *off, *len untouched) when it
 * has none. */
size_t src_origin_region(const char *origin, unsigned long long *off,
                         unsigned long long *len);

#endif
