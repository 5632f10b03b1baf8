/* SPDX-License-Identifier: MIT */
/*
 * import.c: choosing the front end for a file and loading what it
 * translates (import.h).  The importers themselves live in their own
 * modules, one row each in importers.def.
 */
#include "import.h"
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define IMPORTER(name, describes, language, recognises, translate)            \
  bool recognises(const char *path, const unsigned char *head, size_t n);     \
  ImportStatus translate(const char *path, const ImportOptions *o,            \
                         Imported *out);
#include "importers.def"
#undef IMPORTER

const Importer importer_table[] = {
#define IMPORTER(name, describes, language, recognises, translate)            \
  {name, describes, language, recognises, translate},
#include "importers.def"
#undef IMPORTER
    {NULL, NULL, NULL, NULL, NULL},
};

bool import_define_is_own(const char *name) {
  return strcmp(name, "recompute") == 0 || strcmp(name, "sequence_parallel") == 0;
}

/* Enough of a file's start to tell the formats apart by their magic. */
enum { HEAD_BYTES = 64 };

const Importer *importer_for(const char *path) {
  if (strcmp(path, "-") == 0 || importer_table[0].name == NULL) return NULL;
  unsigned char head[HEAD_BYTES];
  size_t n = 0;
  /* only a regular file is sniffed: reading the head of a pipe or a FIFO
   * would take bytes the front end then never sees */
  struct stat st;
  FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
  if (f) {
    n = fread(head, 1, sizeof head, f);
    fclose(f);
  }
  for (const Importer *imp = importer_table; imp->name; imp++)
    if (imp->recognises(path, head, n)) return imp;
  return NULL;
}

/* A byte that no form of import_put_escaped leaves as it is. */
static bool needs_escape(unsigned char c, ImportEscape how) {
  if (c < 0x20 || c == 0x7f || c == '\\') return true;
  return how == IMPORT_QUOTED && (c == '"' || c >= 0x80);
}

void import_put_escaped(StrBuf *sb, const char *s, ImportEscape how) {
  if (how == IMPORT_QUOTED) sb_putc(sb, '"');
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    size_t run = i; /* a run that needs no escape, put at once */
    while (run < n && !needs_escape((unsigned char)s[run], how)) {
      size_t k = how == IMPORT_COMMENT && (unsigned char)s[run] >= 0x80
                     ? src_utf8_len(s + run, n - run) : 1;
      if (k == 0) break;
      run += k;
    }
    sb_putn(sb, s + i, run - i);
    if (run == n) break;
    unsigned char c = (unsigned char)s[run];
    if (c == '\\' || (how == IMPORT_QUOTED && c == '"')) sb_printf(sb, "\\%c", c);
    else sb_printf(sb, "\\x%02X", c);
    i = run + 1;
  }
  if (how == IMPORT_QUOTED) sb_putc(sb, '"');
}

void import_where(const char *path, const Imported *im, const ImportDiag *d,
                  StrBuf *sb) {
  size_t k = (size_t)d->line - 1;
  const char *origin = d->origin ? d->origin
                       : d->line >= 1 && k < im->norigins ? im->origins[k] : NULL;
  if (!origin) {
    sb_printf(sb, "%s:%d", path, d->line);
    return;
  }
  unsigned long long off = 0, len = 0;
  size_t n = src_origin_region(origin, &off, &len);
  if (n == strlen(origin) || !im->original) {
    sb_printf(sb, "%s: %.*s", path, (int)n, origin);
    return;
  }
  int line = 1, col = 1;
  for (size_t i = 0; i < off && i < im->original_len; i++, col++)
    if (im->original[i] == '\n') line++, col = 0;
  sb_printf(sb, "%s:%d:%d", path, line, col);
}

static void imported_free(Imported *im) {
  free(im->text);
  for (size_t i = 0; i < im->ndiags; i++) {
    free(im->diags[i].msg);
    free(im->diags[i].origin);
  }
  free(im->diags);
  free(im->original);
  for (size_t i = 0; i < im->norigins; i++) free(im->origins[i]);
  free(im->origins);
  free(im->error);
}

int import_load(SourceSet *ss, const char *path, const ImportOptions *o,
                char **err, ImportStatus *status) {
  const Importer *imp = importer_for(path);
  *status = IMPORT_OK;
  if (!imp) {
    int file = src_load(ss, path, err);
    if (file < 0) *status = IMPORT_UNREADABLE;
    return file;
  }
  Imported im = {0};
  ImportStatus s = imp->translate(path, o, &im);
  if (s != IMPORT_OK) {
    *status = s;
    *err = im.error ? im.error : xstrdup("cannot import the file");
    im.error = NULL;
    imported_free(&im);
    return -1;
  }
  int file = src_add(ss, path, im.text, im.len);
  SourceFile *sf = ss->files[file];
  struct stat st;
  sf->imported = true;
  sf->file_bytes = o && o->text ? (int64_t)o->text_len
                  : stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
  sf->language = imp->language;
  src_set_origins(sf, im.origins, im.norigins);
  src_set_import_diags(sf, im.diags, im.ndiags);
  if (im.original) src_set_original(sf, im.original, im.original_len);
  im.original = NULL;
  im.text = NULL, im.origins = NULL, im.norigins = 0;
  im.diags = NULL, im.ndiags = 0;
  imported_free(&im);
  return file;
}
