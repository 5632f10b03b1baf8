/* SPDX-License-Identifier: MIT */
/*
 * source.c: the text of every loaded file and the mapping from byte offsets
 * to line:column.  Locations everywhere else are byte ranges; a line-start
 * table built once per file turns an offset into a line by binary search,
 * so line and column are computed only when something is printed.  A line
 * ends at LF, CRLF or a lone CR.  Files are read whole with stdio so a pipe,
 * a FIFO or standard input ("-") load like a regular file.
 */
#include "rooflint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void src_init(SourceSet *ss) { memset(ss, 0, sizeof *ss); }

static void file_free(SourceFile *f) {
  free(f->name);
  free(f->text);
  free(f->line_starts);
  free(f->suppressions);
  free(f->expectations);
  free(f);
}

void src_free(SourceSet *ss) {
  for (int i = 0; i < ss->nfiles; i++) file_free(ss->files[i]);
  free(ss->files);
  src_init(ss);
}

/* One entry per line; a terminator at the very end opens an empty last
 * line, so an offset at end of file still has a line. */
static void build_line_starts(SourceFile *f) {
  size_t cap = 64, n = 0;
  uint32_t *starts = xmalloc(cap * sizeof *starts);
  starts[n++] = 0;
  for (size_t i = 0; i < f->len; i++) {
    char c = f->text[i];
    if (c != '\n' && c != '\r') continue;
    if (c == '\r' && i + 1 < f->len && f->text[i + 1] == '\n') i++;
    if (n == cap) starts = xrealloc(starts, (cap *= 2) * sizeof *starts);
    starts[n++] = (uint32_t)(i + 1);
  }
  f->line_starts = starts;
  f->nlines = n;
}

int src_add(SourceSet *ss, const char *name, char *text, size_t len) {
  if (len >= UINT32_MAX) die("source '%s' too large for 32-bit offsets", name);
  SourceFile *f = xcalloc(1, sizeof *f);
  f->name = xstrdup(name);
  f->text = text;
  f->len = len;
  build_line_starts(f);
  if (ss->nfiles == ss->cap) {
    ss->cap = ss->cap ? ss->cap * 2 : 8;
    ss->files = xrealloc(ss->files, (size_t)ss->cap * sizeof *ss->files);
  }
  ss->files[ss->nfiles] = f;
  return ss->nfiles++;
}

/* A .roof file is a few kilobytes; past this it is not one (or it is
 * /dev/zero), and reading on would only exhaust memory. */
#define SRC_MAX_BYTES ((size_t)64 << 20)
#define SRC_TOO_LARGE "file too large (more than 64 MiB)"

static char *errmsg(const char *verb, const char *path, const char *why) {
  StrBuf sb = {0};
  sb_printf(&sb, "cannot %s '%s': %s", verb, path, why);
  return sb.data;
}

/* Reads the whole stream; returns NULL (errno set) on a read error, and
 * NULL with errno EFBIG past SRC_MAX_BYTES. */
static char *read_all(FILE *in, size_t *len) {
  size_t cap = 4096, n = 0;
  char *buf = xmalloc(cap);
  for (;;) {
    if (cap - n < 2) buf = xrealloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n - 1, in);
    n += got;
    if (got == 0) break;
    if (n > SRC_MAX_BYTES) {
      free(buf);
      errno = EFBIG;
      return NULL;
    }
  }
  if (ferror(in)) {
    int e = errno;
    free(buf);
    errno = e ? e : EIO;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

int src_load(SourceSet *ss, const char *path, char **err) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *in = is_stdin ? stdin : fopen(path, "rb");
  if (!in) {
    *err = errmsg("open", path, strerror(errno));
    return -1;
  }
  /* fopen succeeds on a directory; the read would fail with a less useful
   * message, so say what it is.  A regular file too large is refused
   * before it is read. */
  struct stat st;
  const char *refuse = NULL;
  if (fstat(fileno(in), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse = strerror(EISDIR);
    else if (S_ISREG(st.st_mode) && (size_t)st.st_size > SRC_MAX_BYTES)
      refuse = SRC_TOO_LARGE;
  }
  if (refuse) {
    if (!is_stdin) fclose(in);
    *err = errmsg("open", path, refuse);
    return -1;
  }
  size_t len = 0;
  char *text = read_all(in, &len);
  int e = errno;
  if (!is_stdin) fclose(in);
  if (!text) {
    *err = errmsg("read", path, e == EFBIG ? SRC_TOO_LARGE : strerror(e));
    return -1;
  }
  return src_add(ss, is_stdin ? "<stdin>" : path, text, len);
}

const SourceFile *src_file(const SourceSet *ss, int file) {
  if (file < 0 || file >= ss->nfiles) return NULL;
  return ss->files[file];
}

void src_linecol(const SourceFile *f, uint32_t offset, int *line, int *col) {
  if (offset > f->len) offset = (uint32_t)f->len;
  /* The last line whose start is <= offset. */
  size_t lo = 0, hi = f->nlines;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->line_starts[mid] <= offset)
      lo = mid;
    else
      hi = mid;
  }
  *line = (int)lo + 1;
  *col = (int)(offset - f->line_starts[lo]) + 1;
}

const char *src_line_text(const SourceFile *f, int line, size_t *len) {
  if (line < 1 || (size_t)line > f->nlines) {
    *len = 0;
    return "";
  }
  size_t start = f->line_starts[line - 1];
  size_t end = start;
  while (end < f->len && f->text[end] != '\n' && f->text[end] != '\r') end++;
  *len = end - start;
  return f->text + start;
}

void src_add_suppression(SourceFile *f, Suppression s) {
  if (f->nsuppressions == f->cap_suppressions) {
    f->cap_suppressions = f->cap_suppressions ? f->cap_suppressions * 2 : 8;
    f->suppressions = xrealloc(
        f->suppressions, (size_t)f->cap_suppressions * sizeof *f->suppressions);
  }
  f->suppressions[f->nsuppressions++] = s;
}

void src_add_expectation(SourceFile *f, Expectation e) {
  if (f->nexpectations == f->cap_expectations) {
    f->cap_expectations = f->cap_expectations ? f->cap_expectations * 2 : 8;
    f->expectations = xrealloc(
        f->expectations, (size_t)f->cap_expectations * sizeof *f->expectations);
  }
  f->expectations[f->nexpectations++] = e;
}
