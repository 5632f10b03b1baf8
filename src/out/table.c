/* SPDX-License-Identifier: MIT */
/*
 * table.c: the one aligned-text-table printer (report.c, plan.c, diff.c).
 *
 * Columns are separated by two blanks; a right-aligned column is padded
 * before its text, a left-aligned one after it (except the last column);
 * a line never ends in blanks.  A table is either kept (table_add, then
 * table_print) or, when its rows are too many to keep (a row per kernel of
 * a million-kernel model), measured in one pass (table_measure) and
 * printed in a second that makes the rows again (table_put_row).  Kept
 * rows are packed back to back in big blocks, each cell NUL-terminated,
 * rather than allocated cell by cell.
 */
#include "rooflint.h"
#include "out.h"

#include <stdlib.h>
#include <string.h>

struct TableBlock {
  struct TableBlock *next;
  size_t used, size;
  char data[];
};

enum { TABLE_BLOCK = 1 << 16 };

static void widen(Table *t, const size_t *len) {
  if (!t->w) t->w = xcalloc((size_t)t->ncols, sizeof *t->w);
  for (int c = 0; c < t->ncols; c++)
    if (len[c] > t->w[c]) t->w[c] = len[c];
}

/* The lengths of a row's cells (a NULL cell is empty) into len; their sum
 * plus one NUL each. */
static size_t cell_lengths(const Table *t, const char *const *row, size_t *len) {
  size_t total = 0;
  for (int c = 0; c < t->ncols; c++) {
    len[c] = row[c] ? strlen(row[c]) : 0;
    total += len[c] + 1;
  }
  return total;
}

static size_t *scratch_lengths(Table *t) {
  if (!t->len) t->len = xcalloc((size_t)t->ncols, sizeof *t->len);
  return t->len;
}

void table_measure(Table *t, const char *const *row) {
  size_t *len = scratch_lengths(t);
  cell_lengths(t, row, len);
  widen(t, len);
}

void table_add(Table *t, const char *const *row) {
  size_t *len = scratch_lengths(t);
  size_t total = cell_lengths(t, row, len);
  widen(t, len);
  struct TableBlock *b = t->last;
  if (!b || b->size - b->used < total) { /* rows never straddle blocks */
    size_t size = total > TABLE_BLOCK ? total : TABLE_BLOCK;
    b = xmalloc(sizeof *b + size);
    b->next = NULL;
    b->used = 0;
    b->size = size;
    if (t->last) t->last->next = b;
    else t->first = b;
    t->last = b;
  }
  for (int c = 0; c < t->ncols; c++) {
    if (len[c]) memcpy(b->data + b->used, row[c], len[c]);
    b->data[b->used + len[c]] = '\0';
    b->used += len[c] + 1;
  }
}

void table_put_row(FILE *out, Table *t, const char *indent,
                   const char *const *row) {
  size_t *len = scratch_lengths(t);
  if (!t->w) t->w = xcalloc((size_t)t->ncols, sizeof *t->w);
  size_t ind = strlen(indent), need = ind + 1;
  for (int c = 0; c < t->ncols; c++) {
    len[c] = row[c] ? strlen(row[c]) : 0;
    need += (len[c] > t->w[c] ? len[c] : t->w[c]) + 2;
  }
  StrBuf *line = &t->line;
  if (line->cap < need) {
    line->data = xrealloc(line->data, need * 2);
    line->cap = need * 2;
  }
  char *q = line->data;
  memcpy(q, indent, ind);
  q += ind;
  for (int c = 0; c < t->ncols; c++) {
    size_t fill = len[c] < t->w[c] ? t->w[c] - len[c] : 0;
    bool right = t->align[c] == 'r';
    if (c > 0) {
      memcpy(q, "  ", 2);
      q += 2;
    }
    if (right) {
      memset(q, ' ', fill);
      q += fill;
    }
    if (len[c]) memcpy(q, row[c], len[c]);
    q += len[c];
    if (!right && c != t->ncols - 1) {
      memset(q, ' ', fill);
      q += fill;
    }
  }
  while (q > line->data && q[-1] == ' ') q--; /* no trailing blanks */
  *q++ = '\n';
  fwrite(line->data, 1, (size_t)(q - line->data), out);
}

void table_print(FILE *out, Table *t, const char *indent) {
  const char **cell = xmalloc(((size_t)t->ncols + 1) * sizeof *cell);
  for (struct TableBlock *b = t->first; b; b = b->next) {
    const char *p = b->data, *end = b->data + b->used;
    while (p < end) {
      for (int c = 0; c < t->ncols; c++) {
        cell[c] = p;
        p += strlen(p) + 1;
      }
      table_put_row(out, t, indent, cell);
    }
  }
  free(cell);
  table_free(t);
}

void table_free(Table *t) {
  for (struct TableBlock *b = t->first, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  t->first = t->last = NULL;
  free(t->w);
  free(t->len);
  t->w = t->len = NULL;
  sb_free(&t->line);
}
