/* SPDX-License-Identifier: MIT */
/*
 * html.h: what the pages of --format html share (html.c writes the lint's
 * page, html_sweep.c the sweep's data, diff.c the diff's): the page around
 * a data block, and JSON strings and numbers as the block holds them.
 */
#ifndef ROOFLINT_HTML_H
#define ROOFLINT_HTML_H

#include "rooflint.h"

/* The page (specs/html.md, R-HTML-002) with `data`, JSON text, as its data
 * block: '<', '>', '&' and DEL in it are written as \u escapes. */
void html_page(FILE *out, const char *data, size_t len);
/* s as a JSON string of the block (NULL: null), appended to out: ill-formed
 * UTF-8 as U+FFFD, controls, DEL and markup characters as \u escapes;
 * `clean` is scratch. */
void html_json_str(StrBuf *out, StrBuf *clean, const char *s);
/* v in the fewest digits that read back as v; null when not finite. */
void html_json_num(StrBuf *out, double v);

#endif
