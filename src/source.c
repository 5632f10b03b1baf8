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
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void src_init(SourceSet *ss) { memset(ss, 0, sizeof *ss); }

static void file_free(SourceFile *f) {
  free(f->name);
  free(f->text);
  free(f->line_starts);
  free(f->suppressions);
  free(f->ignore_lines);
  free(f->expectations);
  for (size_t i = 0; i < f->norigins; i++) free(f->origins[i]);
  free(f->origins);
  for (size_t i = 0; i < f->nimport_diags; i++) {
    free(f->import_diags[i].msg);
    free(f->import_diags[i].origin);
  }
  free(f->import_diags);
  if (f->original) file_free(f->original);
  free(f);
}

void src_free(SourceSet *ss) {
  for (int i = 0; i < ss->nfiles; i++) file_free(ss->files[i]);
  free(ss->files);
  src_init(ss);
}

static void add_line_start(uint32_t **starts, size_t *n, size_t *cap,
                           size_t at) {
  if (*n == *cap) *starts = xrealloc(*starts, (*cap *= 2) * sizeof **starts);
  (*starts)[(*n)++] = (uint32_t)at;
}

/* One entry per line; a terminator at the very end opens an empty last
 * line, so an offset at end of file still has a line.  A file without a
 * CR (nearly every one) has LF as its only terminator, found by memchr;
 * otherwise each byte is tested. */
static void build_line_starts(SourceFile *f) {
  size_t cap = 64, n = 0, len = f->len;
  uint32_t *starts = xmalloc(cap * sizeof *starts);
  starts[n++] = 0;
  const char *text = f->text;
  if (!memchr(text, '\r', len)) {
    for (const char *p = text, *end = text + len;
         (p = memchr(p, '\n', (size_t)(end - p))) != NULL;)
      add_line_start(&starts, &n, &cap, (size_t)(++p - text));
  } else {
    for (size_t i = 0; i < len; i++) {
      char c = text[i];
      if (c != '\n' && c != '\r') continue;
      if (c == '\r' && i + 1 < len && text[i + 1] == '\n') i++;
      add_line_start(&starts, &n, &cap, i + 1);
    }
  }
  f->line_starts = starts;
  f->nlines = n;
}

int src_add(SourceSet *ss, const char *name, char *text, size_t len) {
  if (len >= UINT32_MAX) die("source '%s' too large for 32-bit offsets", name);
  SourceFile *f = xcalloc(1, sizeof *f);
  /* A file name is text every output quotes: ill-formed UTF-8 in it (an
   * argument is any bytes) becomes U+FFFD here, once. */
  StrBuf clean = {0};
  src_utf8_clean(&clean, name, strlen(name), "\xEF\xBF\xBD");
  f->name = clean.data ? clean.data : xstrdup("");
  /* A second NUL lets the scanner work in the text itself (flex's
   * yy_scan_buffer) instead of a copy of the whole file. */
  text = xrealloc(text, len + 2);
  text[len + 1] = '\0';
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
 * NULL with errno EFBIG past SRC_MAX_BYTES.  `size` (0: unknown) is what
 * fstat says: a regular file is read in one go into a buffer of the right
 * size, not copied through ever larger ones. */
static char *read_all(FILE *in, size_t size, size_t *len) {
  size_t cap = size ? size + 2 : 4096, n = 0;
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
  size_t size = 0;
  if (fstat(fileno(in), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse = strerror(EISDIR);
    else if (S_ISREG(st.st_mode) && (size_t)st.st_size > SRC_MAX_BYTES)
      refuse = SRC_TOO_LARGE;
    else if (S_ISREG(st.st_mode))
      size = (size_t)st.st_size;
  }
  if (refuse) {
    if (!is_stdin) fclose(in);
    *err = errmsg("open", path, refuse);
    return -1;
  }
  size_t len = 0;
  char *text = read_all(in, size, &len);
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

/* Whether offset is on line i (0-based). */
static bool on_line(const SourceFile *f, size_t i, uint32_t offset) {
  return i < f->nlines && f->line_starts[i] <= offset &&
         (i + 1 == f->nlines || f->line_starts[i + 1] > offset);
}

void src_linecol_near(const SourceFile *f, uint32_t offset, size_t *hint, int *line, int *col) {
  if (offset > f->len) offset = (uint32_t)f->len;
  size_t lo = *hint;
  if (on_line(f, lo, offset)) {
  } else if (on_line(f, lo + 1, offset)) {
    lo++;
  } else { /* the last line whose start is <= offset */
    size_t hi = f->nlines;
    lo = 0;
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (f->line_starts[mid] <= offset)
        lo = mid;
      else
        hi = mid;
    }
  }
  *hint = lo;
  *line = (int)lo + 1;
  *col = (int)(offset - f->line_starts[lo]) + 1;
}

void src_linecol(const SourceFile *f, uint32_t offset, int *line, int *col) {
  size_t hint = 0;
  src_linecol_near(f, offset, &hint, line, col);
}

uint32_t src_line_end(const SourceFile *f, int line) {
  if ((size_t)line >= f->nlines) return (uint32_t)f->len;
  /* the next line starts right after this one's LF, CR or CRLF (a CR
   * before an LF is always part of the same terminator) */
  uint32_t next = f->line_starts[line];
  if (next >= 2 && f->text[next - 1] == '\n' && f->text[next - 2] == '\r')
    return next - 2;
  return next - 1;
}

const char *src_line_text(const SourceFile *f, int line, size_t *len) {
  if (line < 1 || (size_t)line > f->nlines) {
    *len = 0;
    return "";
  }
  size_t start = f->line_starts[line - 1];
  *len = src_line_end(f, line) - start;
  return f->text + start;
}

size_t src_utf8_len(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  if (n == 0) return 0;
  if (u[0] < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
  if (u[0] >= 0xC2 && u[0] <= 0xDF) len = 2;
  else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
    len = 3;
    if (u[0] == 0xE0) lo = 0xA0;      /* overlong */
    else if (u[0] == 0xED) hi = 0x9F; /* surrogates */
  } else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
    len = 4;
    if (u[0] == 0xF0) lo = 0x90;      /* overlong */
    else if (u[0] == 0xF4) hi = 0x8F; /* above U+10FFFF */
  } else
    return 0;
  if (n < len || u[1] < lo || u[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if ((u[i] & 0xC0) != 0x80) return 0;
  return len;
}

bool src_utf8_clean(StrBuf *sb, const char *s, size_t n, const char *bad) {
  bool any = false;
  for (size_t i = 0; i < n;) {
    size_t k = src_utf8_len(s + i, n - i);
    if (k) {
      sb_putn(sb, s + i, k);
      i += k;
      continue;
    }
    any = true;
    if (bad) sb_puts(sb, bad);
    else sb_printf(sb, "\\x%02x", (unsigned char)s[i]);
    i++;
  }
  return any;
}

void src_add_suppression(SourceFile *f, Suppression s) {
  if (f->nsuppressions == f->cap_suppressions) {
    f->cap_suppressions = f->cap_suppressions ? f->cap_suppressions * 2 : 8;
    f->suppressions = xrealloc(
        f->suppressions, (size_t)f->cap_suppressions * sizeof *f->suppressions);
  }
  f->suppressions[f->nsuppressions++] = s;
}

void src_add_ignore_line(SourceFile *f, int line) {
  if (f->nignore_lines && f->ignore_lines[f->nignore_lines - 1] >= line) return;
  if (f->nignore_lines == f->cap_ignore_lines) {
    f->cap_ignore_lines = f->cap_ignore_lines ? f->cap_ignore_lines * 2 : 8;
    f->ignore_lines = xrealloc(
        f->ignore_lines, (size_t)f->cap_ignore_lines * sizeof *f->ignore_lines);
  }
  f->ignore_lines[f->nignore_lines++] = line;
}

void src_add_expectation(SourceFile *f, Expectation e) {
  if (f->nexpectations == f->cap_expectations) {
    f->cap_expectations = f->cap_expectations ? f->cap_expectations * 2 : 8;
    f->expectations = xrealloc(
        f->expectations, (size_t)f->cap_expectations * sizeof *f->expectations);
  }
  f->expectations[f->nexpectations++] = e;
}

void src_set_origins(SourceFile *f, char **origins, size_t n) {
  f->origins = origins;
  f->norigins = n;
}

static const char *src_origin(const SourceFile *f, int line) {
  if (!f->origins || line < 1 || (size_t)line > f->norigins) return NULL;
  return f->origins[line - 1];
}

void src_set_import_diags(SourceFile *f, ImportDiag *d, size_t n) {
  f->import_diags = d;
  f->nimport_diags = n;
}

void src_set_original(SourceFile *f, char *text, size_t len) {
  if (len >= UINT32_MAX) {
    free(text);
    return;
  }
  SourceFile *o = xcalloc(1, sizeof *o);
  o->name = xstrdup(f->name);
  o->text = xrealloc(text, len + 2);
  o->text[len] = o->text[len + 1] = '\0';
  o->len = len;
  build_line_starts(o);
  f->original = o;
}

size_t src_origin_region(const char *origin, unsigned long long *off,
                        unsigned long long *len) {
  size_t n = strlen(origin);
  const char *at = strrchr(origin, '@');
  if (!at || at == origin || at[-1] != ' ') return n;
  char *end;
  unsigned long long o = strtoull(at + 1, &end, 10);
  if (end == at + 1 || *end != '+') return n;
  const char *l = end + 1;
  unsigned long long k = strtoull(l, &end, 10);
  if (end == l || *end) return n;
  *off = o, *len = k;
  return (size_t)(at - 1 - origin);
}

void src_locate(const SourceFile *f, Loc loc, const char *origin, Located *out) {
  memset(out, 0, sizeof *out);
  if (!f->imported) {
    out->in = f, out->start = loc.start, out->end = loc.end;
    return;
  }
  if (!origin) {
    int col;
    src_linecol(f, loc.start, &out->gen_line, &col);
    origin = src_origin(f, out->gen_line);
  }
  out->origin = origin;
  if (!origin) return;
  unsigned long long off = 0, len = 0;
  out->origin_len = src_origin_region(origin, &off, &len);
  if (out->origin_len == strlen(origin)) return;
  if (f->original) {
    const SourceFile *o = f->original;
    out->in = o;
    out->start = (uint32_t)(off < o->len ? off : o->len);
    out->end = (uint32_t)(off + len < o->len ? off + len : o->len);
  } else {
    out->has_bytes = true;
    out->byte_offset = off, out->byte_length = len;
  }
}

void src_statement(const SourceFile *f, int line, StrBuf *sb) {
  size_t len;
  const char *s = src_line_text(f, line, &len);
  while (len && (*s == ' ' || *s == '\t')) s++, len--;
  for (size_t i = 0; i + 2 < len; i++) /* generated text comments as "  #" */
    if (s[i] == ' ' && s[i + 1] == ' ' && s[i + 2] == '#') {
      len = i;
      break;
    }
  while (len && s[len - 1] == ' ') len--;
  sb_putn(sb, s, len);
}

const char *src_where(const SourceFile *f, Loc loc, const char *origin, char *buf,
                      size_t n) {
  Located at;
  src_locate(f, loc, origin, &at);
  if (at.in) {
    int line, col;
    src_linecol(at.in, at.start, &line, &col);
    snprintf(buf, n, "%s:%d:%d", f->name, line, col);
  } else if (at.origin) {
    snprintf(buf, n, "%s: %.*s", f->name, (int)at.origin_len, at.origin);
  } else {
    snprintf(buf, n, "%s", f->name);
  }
  return buf;
}

/* A string in put_quoted's escapes (\" \\ \xNN) at *s, its quotes
 * included, into out (cut to cap - 1 bytes); *s past it.  False when it
 * has no closing quote. */
static bool read_quoted(const char **s, char *out, size_t cap) {
  const char *q = *s;
  size_t n = 0;
  for (q++; *q && *q != '"'; q++) {
    char c = *q;
    if (c == '\\' && q[1] == 'x' && q[2] && q[3]) {
      char hex[3] = {q[2], q[3], 0};
      c = (char)strtol(hex, NULL, 16);
      q += 3;
    } else if (c == '\\' && q[1]) {
      c = *++q;
    }
    if (n + 1 < cap) out[n++] = c;
  }
  if (*q != '"') return false;
  out[n] = '\0';
  *s = q + 1;
  return true;
}

bool src_origin_parts(const char *s, OriginParts *p) {
  memset(p, 0, sizeof *p);
  size_t k = strcspn(s, " ");
  if (k == 0 || k >= sizeof p->kind) return false;
  memcpy(p->kind, s, k);
  s += k;
  while (*s == ' ') s++;
  if (*s >= '0' && *s <= '9') {
    char *end;
    p->index = strtoll(s, &end, 10);
    p->has_index = true;
    s = end;
    while (*s == ' ') s++;
  }
  if (*s == '"') {
    if (!read_quoted(&s, p->name, sizeof p->name)) return false;
    p->has_name = true;
    while (*s == ' ') s++;
  }
  if (*s == '(') {
    size_t n = strcspn(s + 1, ")");
    if (s[1 + n] != ')' || n >= sizeof p->type) return false;
    memcpy(p->type, s + 1, n);
    s += n + 2;
    while (*s == ' ') s++;
  }
  if (strncmp(s, "in \"", 4) == 0) { /* a subgraph's path */
    s += 3;
    if (!read_quoted(&s, p->path, sizeof p->path)) return false;
    p->has_path = true;
    while (*s == ' ') s++;
  }
  if (*s == '@') {
    size_t n = src_origin_region(s - 1, &p->offset, &p->length);
    if (n == strlen(s - 1)) return false;
    p->has_region = true;
    return true;
  }
  return *s == '\0';
}
