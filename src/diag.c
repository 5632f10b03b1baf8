/* SPDX-License-Identifier: MIT */
/*
 * diag.c: diagnostics as structured records, the command line's policy over
 * them, and the clang-style text renderer.  Stages record Diags into a
 * DiagSink and never print; main applies the policy (suppression comments,
 * -W/-Wno-/-Werror/-w), sorts into source order and renders.  The renderer
 * follows clang byte for byte where clang has an answer: the
 * "file:line:col: severity: message [-Wcheck]" line, a five-column gutter
 * for the source line, a ^~~~ underline in display columns (tabs expanded
 * to 8), a fix-it line under it, notes after.  --verify compares a file's
 * diagnostics against its `# expect:` comments (diag_verify).
 */
#include "rooflint.h"
#include "diag.h"

#include <stdlib.h>
#include <string.h>

static const char *const severity_names[] = {
    [SEV_NOTE] = "note",
    [SEV_REMARK] = "remark",
    [SEV_WARNING] = "warning",
    [SEV_ERROR] = "error",
};

const char *severity_str(Severity s) {
  if ((unsigned)s >= sizeof severity_names / sizeof *severity_names)
    return "?";
  return severity_names[s];
}

/* ------------------------------------------------------------ recording */

void diag_sink_init(DiagSink *s) {
  memset(s, 0, sizeof *s);
  s->error_limit = DIAG_DEFAULT_ERROR_LIMIT;
}

static void diag_clear(Diag *d) {
  free(d->msg);
  for (int i = 0; i < d->nnotes; i++) free(d->notes[i].msg);
  free(d->notes);
  for (int i = 0; i < d->nfixits; i++) free(d->fixits[i].text);
  free(d->fixits);
  free(d->figures);
  memset(d, 0, sizeof *d);
}

static void diag_destroy(Diag *d) {
  if (!d) return;
  diag_clear(d);
  free(d);
}

void diag_sink_free(DiagSink *s) {
  for (int i = 0; i < s->n; i++) diag_destroy(s->items[i]);
  free(s->items);
  diag_destroy(s->scratch);
  memset(s, 0, sizeof *s);
}

static char *vformat(const char *fmt, va_list ap) {
  StrBuf sb = {0};
  sb_vprintf(&sb, fmt, ap);
  return sb.data ? sb.data : xstrdup("");
}

Diag *diag_vreport(DiagSink *s, Severity sev, const char *check, Loc loc,
                   const char *fmt, va_list ap) {
  Diag *d;
  if (sev == SEV_ERROR && s->error_limit > 0 && s->nerrors >= s->error_limit) {
    /* Past the limit (clang's -ferror-limit): count, keep nothing. */
    s->nerrors++;
    s->limit_hit = true;
    if (!s->scratch) s->scratch = xcalloc(1, sizeof *s->scratch);
    d = s->scratch;
    diag_clear(d);
  } else {
    if (s->n == s->cap) {
      s->cap = s->cap ? s->cap * 2 : 16;
      s->items = xrealloc(s->items, (size_t)s->cap * sizeof *s->items);
    }
    d = xcalloc(1, sizeof *d);
    s->items[s->n++] = d;
    s->nerrors += sev == SEV_ERROR;
    s->nwarnings += sev == SEV_WARNING;
  }
  d->sev = sev;
  d->check = check;
  d->loc = loc;
  d->msg = vformat(fmt, ap);
  d->seq = s->nrecorded++;
  return d;
}

Diag *diag_report(DiagSink *s, Severity sev, const char *check, Loc loc,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Diag *d = diag_vreport(s, sev, check, loc, fmt, ap);
  va_end(ap);
  return d;
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  d->notes = xrealloc(d->notes, (size_t)(d->nnotes + 1) * sizeof *d->notes);
  d->notes[d->nnotes++] = (DiagNote){loc, vformat(fmt, ap)};
  va_end(ap);
}

void diag_fixit(Diag *d, Loc loc, const char *text) {
  d->fixits = xrealloc(d->fixits, (size_t)(d->nfixits + 1) * sizeof *d->fixits);
  d->fixits[d->nfixits++] = (FixIt){loc, xstrdup(text)};
}

void diag_figure(Diag *d, const char *key, double value) {
  d->figures =
      xrealloc(d->figures, (size_t)(d->nfigures + 1) * sizeof *d->figures);
  d->figures[d->nfigures++] = (DiagFigure){key, value};
}

bool diag_too_many(const DiagSink *s) {
  return s->error_limit > 0 && s->nerrors >= s->error_limit;
}

/* (file, offset, seq); a diagnostic without a location sorts first, as it
 * is about the command line rather than any file. */
static int diag_cmp(const void *pa, const void *pb) {
  const Diag *a = *(Diag *const *)pa, *b = *(Diag *const *)pb;
  if (a->loc.file != b->loc.file) return a->loc.file < b->loc.file ? -1 : 1;
  if (a->loc.start != b->loc.start) return a->loc.start < b->loc.start ? -1 : 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

void diag_sort(DiagSink *s) {
  if (s->n > 1) qsort(s->items, (size_t)s->n, sizeof *s->items, diag_cmp);
}

/* --------------------------------------------------------------- policy */

static bool in_list(const char *name, const char **list, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

static int diag_line(const Diag *d, const SourceSet *ss) {
  const SourceFile *f = src_file(ss, d->loc.file);
  if (!f) return 0;
  int line, col;
  src_linecol(f, d->loc.start, &line, &col);
  return line;
}

/* R-SUP-001/002: `ignore[c]` silences c on its own line, `ignore-file[c]`
 * (line 0) in the whole file. */
static bool suppressed(const Diag *d, const SourceSet *ss) {
  const SourceFile *f = src_file(ss, d->loc.file);
  if (!f || !d->check) return false;
  int line = 0;
  if (f->nignore_lines) { /* R-SUP-005: a bare `ignore`, by binary search */
    line = diag_line(d, ss);
    int lo = 0, hi = f->nignore_lines;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (f->ignore_lines[mid] < line) lo = mid + 1;
      else hi = mid;
    }
    if (lo < f->nignore_lines && f->ignore_lines[lo] == line) return true;
  }
  for (int i = 0; i < f->nsuppressions; i++) {
    const Suppression *sup = &f->suppressions[i];
    if (strcmp(sup->check, d->check) != 0) continue;
    if (sup->line == 0) return true;
    if (line == 0) line = diag_line(d, ss);
    if (sup->line == line) return true;
  }
  return false;
}

bool diag_dropped(const Diag *d, const SourceSet *ss, const DiagPolicy *p) {
  if (p->no_warnings && (d->sev == SEV_WARNING || d->sev == SEV_REMARK))
    return true;
  if (!d->check) return false; /* language errors cannot be silenced */
  if (in_list(d->check, p->disabled, p->ndisabled)) return true;
  if (d->off_by_default && !in_list(d->check, p->enabled, p->nenabled))
    return true;
  return suppressed(d, ss);
}

void diag_apply_policy(DiagSink *s, const SourceSet *ss, const DiagPolicy *p) {
  int kept_errors = 0;
  for (int i = 0; i < s->n; i++) kept_errors += s->items[i]->sev == SEV_ERROR;
  int over_limit = s->nerrors - kept_errors; /* counted, never stored */
  /* A stage that stopped at the limit (diag_too_many) dropped nothing but
   * still left errors unreported: say so when rendering. */
  if (s->error_limit > 0 && s->nerrors >= s->error_limit) s->limit_hit = true;
  int n = 0;
  s->nerrors = over_limit;
  s->nwarnings = 0;
  for (int i = 0; i < s->n; i++) {
    Diag *d = s->items[i];
    if (diag_dropped(d, ss, p)) {
      diag_destroy(d);
      continue;
    }
    bool promote = d->check && in_list(d->check, p->werror_on, p->nwerror_on)
                       ? true
                   : d->check && in_list(d->check, p->werror_off, p->nwerror_off)
                       ? false
                       : p->werror;
    if (promote && d->sev == SEV_WARNING) {
      d->sev = SEV_ERROR;
      d->werror = true;
    }
    s->nerrors += d->sev == SEV_ERROR;
    s->nwarnings += d->sev == SEV_WARNING;
    s->items[n++] = d;
  }
  s->n = n;
}

/* ------------------------------------------------------------ rendering */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_GREEN "\033[1;32m"

static const char *const severity_colors[] = {
    [SEV_NOTE] = "\033[1;36m",    /* cyan */
    [SEV_REMARK] = "\033[1;34m",  /* blue */
    [SEV_WARNING] = "\033[1;35m", /* magenta */
    [SEV_ERROR] = "\033[1;31m",   /* red */
};

enum { TAB_STOP = 8 };

/* Display column (0-based) reached after the first `n` bytes of `line`:
 * tabs go to the next multiple of 8, UTF-8 continuation bytes take no
 * room, so the caret lines up under what a terminal shows. */
/* U+FEFF (a byte-order mark) takes no room and is not shown. */
static bool is_bom(const char *s, size_t k) {
  return k == 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0;
}

static size_t display_col(const char *line, size_t n) {
  size_t col = 0;
  for (size_t i = 0; i < n;) {
    size_t k = src_utf8_len(line + i, n - i);
    if (line[i] == '\t')
      col = (col / TAB_STOP + 1) * TAB_STOP;
    else if (!is_bom(line + i, k))
      col++; /* a character, or an ill-formed byte shown as U+FFFD */
    i += k ? k : 1;
  }
  return col;
}

static void put_spaces(FILE *out, size_t n) {
  for (size_t i = 0; i < n; i++) fputc(' ', out);
}

/* The source line as displayed: tabs expanded, control bytes (a stray NUL)
 * shown as a space so the columns stay right. */
/* A source line longer than this is shown as a window around the caret,
 * as clang does: echoing a megabyte-long line helps no one. */
enum { SNIPPET_MAX_BYTES = 160, SNIPPET_LEAD_BYTES = 60 };

/* The part of a line a snippet shows: bytes [start, start + len), with
 * "..." before it when it does not start the line. */
typedef struct LineView {
  const char *text;
  size_t len;
  bool cut_left, cut_right;
} LineView;

static LineView line_view(const char *text, size_t len, size_t anchor) {
  LineView v = {text, len, false, false};
  if (len <= SNIPPET_MAX_BYTES) return v;
  size_t start = anchor > SNIPPET_LEAD_BYTES ? anchor - SNIPPET_LEAD_BYTES : 0;
  if (start + SNIPPET_MAX_BYTES > len) start = len - SNIPPET_MAX_BYTES;
  size_t end = start + SNIPPET_MAX_BYTES;
  /* Never cut a UTF-8 sequence in half. */
  while (start > 0 && ((unsigned char)text[start] & 0xC0) == 0x80) start--;
  while (end < len && ((unsigned char)text[end] & 0xC0) == 0x80) end++;
  v.text = text + start;
  v.len = end - start;
  v.cut_left = start > 0;
  v.cut_right = end < len;
  return v;
}

/* Display column of byte `offset` of the full line within its view. */
static size_t view_col(const LineView *v, const char *line, size_t offset) {
  size_t from = (size_t)(v->text - line);
  size_t in = offset < from ? 0 : offset - from;
  if (in > v->len) in = v->len;
  return (v->cut_left ? 3 : 0) + display_col(v->text, in);
}

/* The gutter holds the line number: five columns, wider for a line past
 * 99,999 so the bars of the source and caret lines stay aligned. */
static int gutter_width(int lineno) {
  int w = 1;
  for (int n = lineno; n >= 10; n /= 10) w++;
  return w < 5 ? 5 : w;
}

static void put_source_line(FILE *out, int lineno, const LineView *v) {
  fprintf(out, "%*d | ", gutter_width(lineno), lineno);
  if (v->cut_left) fputs("...", out);
  size_t col = 0;
  for (size_t i = 0; i < v->len;) {
    unsigned char c = (unsigned char)v->text[i];
    size_t k = src_utf8_len(v->text + i, v->len - i);
    if (c == '\t') {
      size_t next = (col / TAB_STOP + 1) * TAB_STOP;
      put_spaces(out, next - col);
      col = next;
    } else if (k == 0) {
      fputs("\xEF\xBF\xBD", out); /* U+FFFD: one column, like a character */
      col++;
    } else if (k == 1) {
      fputc(c < 0x20 || c == 0x7f ? ' ' : (int)c, out);
      col++;
    } else if (!is_bom(v->text + i, k)) {
      fwrite(v->text + i, 1, k, out);
      col++;
    }
    i += k ? k : 1;
  }
  if (v->cut_right) fputs("...", out);
  fputc('\n', out);
}

/* Byte offsets of [start, end) clamped to one line and to its view: a
 * range that runs past the end of the line (or of the view) is underlined
 * to the end of it. */
static void caret_span(const LineView *v, const char *text, size_t len,
                       size_t from, size_t to, size_t *col, size_t *width) {
  if (from > len) from = len;
  if (to > len) to = len;
  if (to < from) to = from;
  size_t view_end = (size_t)(v->text - text) + v->len;
  if (to > view_end) to = view_end;
  *col = view_col(v, text, from);
  size_t end = view_col(v, text, to);
  *width = end > *col ? end - *col : 1;
}

static void put_gutter(FILE *out, int lineno) {
  put_spaces(out, (size_t)gutter_width(lineno) + 1);
  fputs("| ", out);
}

/* The line the range starts on, and the caret line under it. */
static void put_snippet(FILE *out, const SourceFile *f, Loc loc,
                        const RenderOptions *ro) {
  int line, col;
  src_linecol(f, loc.start, &line, &col);
  size_t len;
  const char *text = src_line_text(f, line, &len);
  uint32_t line_start = f->line_starts[line - 1];
  LineView v = line_view(text, len, loc.start - line_start);
  put_source_line(out, line, &v);
  size_t ccol, width;
  caret_span(&v, text, len, loc.start - line_start,
             loc.end > loc.start ? loc.end - line_start : loc.start - line_start,
             &ccol, &width);
  put_gutter(out, line);
  put_spaces(out, ccol);
  if (ro->color) fputs(C_GREEN, out);
  fputc('^', out);
  for (size_t i = 1; i < width; i++) fputc('~', out);
  if (ro->color) fputs(C_RESET, out);
  fputc('\n', out);
}

/* Clang's fix-it line: the replacement text under the range it replaces.
 * Only fix-its on the diagnostic's own line are shown inline; the others
 * get a snippet of their own.  Text past a newline is not shown. */
static void put_fixit_line(FILE *out, const SourceFile *f, const FixIt *fx,
                           const RenderOptions *ro) {
  int line, col;
  src_linecol(f, fx->loc.start, &line, &col);
  size_t len;
  const char *text = src_line_text(f, line, &len);
  size_t from = fx->loc.start - f->line_starts[line - 1];
  if (from > len) from = len;
  LineView v = line_view(text, len, from);
  put_gutter(out, line);
  put_spaces(out, view_col(&v, text, from));
  if (ro->color) fputs(C_GREEN, out);
  fwrite(fx->text, 1, strcspn(fx->text, "\n"), out);
  if (ro->color) fputs(C_RESET, out);
  fputc('\n', out);
}

/* A message or a file name may quote the user's bytes: ill-formed UTF-8
 * in it is written \xNN (JSON and SARIF write U+FFFD: json_safe_string),
 * and so is a control character (C0, DEL), which would otherwise clear or
 * retitle a terminal or start a forged line in a CI log. */
void diag_put_text(FILE *out, const char *s) {
  StrBuf sb = {0};
  src_utf8_clean(&sb, s, strlen(s), NULL);
  for (const unsigned char *p = (const unsigned char *)sb_str(&sb); *p; p++) {
    if (*p < 0x20 || *p == 0x7f) fprintf(out, "\\x%02X", *p);
    else fputc(*p, out);
  }
  sb_free(&sb);
}

static void put_header(FILE *out, const SourceSet *ss, Loc loc,
                       const char *origin, Severity sev, const char *msg,
                       const char *check, bool werror, const RenderOptions *ro) {
  const SourceFile *f = src_file(ss, loc.file);
  bool bold_msg = sev != SEV_NOTE;
  if (ro->color) fputs(C_BOLD, out);
  if (f) {
    char where[WHERE_MAX];
    diag_put_text(out, src_where(f, loc, origin, where, sizeof where));
    fputs(": ", out);
  } else if (sev != SEV_NOTE) {
    fputs("rooflint: ", out);
  }
  if (ro->color) fprintf(out, C_RESET "%s", severity_colors[sev]);
  fprintf(out, "%s: ", severity_str(sev));
  if (ro->color) fputs(bold_msg ? C_RESET C_BOLD : C_RESET, out);
  diag_put_text(out, msg);
  if (check) fprintf(out, werror ? " [-Werror,-W%s]" : " [-W%s]", check);
  if (ro->color) fputs(C_RESET, out);
  fputc('\n', out);
}

static bool same_line(const SourceFile *f, uint32_t a, uint32_t b) {
  int la, lb, c;
  src_linecol(f, a, &la, &c);
  src_linecol(f, b, &lb, &c);
  return la == lb;
}

/* R-DIAG-001: a place on a line an importer wrote is shown in the file
 * the user has: the config's line under the key (a binary file has none
 * to show), then the generated statement quoted as a note at the same
 * place, as the text is not theirs.  `quoted` is the line quoted last,
 * so a note on the same statement does not repeat it. */
static void put_place(FILE *out, const SourceSet *ss, Loc loc, const char *origin,
                      int *quoted, const RenderOptions *ro) {
  const SourceFile *f = src_file(ss, loc.file);
  if (!f) return;
  Located at;
  src_locate(f, loc, origin, &at);
  if (at.in) put_snippet(out, at.in, (Loc){loc.file, at.start, at.end}, ro);
  if (!f->imported || !at.gen_line || at.gen_line == *quoted) return;
  *quoted = at.gen_line;
  StrBuf sb = {0};
  sb_puts(&sb, "in the imported text: ");
  src_statement(f, at.gen_line, &sb);
  put_header(out, ss, loc, origin, SEV_NOTE, sb_str(&sb), NULL, false, ro);
  sb_free(&sb);
}

/* A fix-it on text an importer wrote cannot be applied to the file the
 * user has: it is said as a note on the generated statement instead. */
static void put_imported_fixit(FILE *out, const SourceSet *ss, const FixIt *fx,
                               const RenderOptions *ro) {
  StrBuf sb = {0};
  sb_puts(&sb, "in the imported text, the fix is to ");
  sb_puts(&sb, fx->loc.end > fx->loc.start ? "write '" : "insert '");
  sb_putn(&sb, fx->text, strcspn(fx->text, "\n"));
  sb_puts(&sb, "'; edit the generated model (rooflint import) to apply it");
  put_header(out, ss, fx->loc, NULL, SEV_NOTE, sb_str(&sb), NULL, false, ro);
  sb_free(&sb);
}

static void put_fixits(FILE *out, const SourceSet *ss, const Diag *d,
                       const RenderOptions *ro) {
  const SourceFile *f = src_file(ss, d->loc.file);
  for (int i = 0; i < d->nfixits; i++) {
    const FixIt *fx = &d->fixits[i];
    const SourceFile *ff = src_file(ss, fx->loc.file);
    if (ff && ff->imported) put_imported_fixit(out, ss, fx, ro);
  }
  if (!f || f->imported) return;
  for (int i = 0; i < d->nfixits; i++) {
    const FixIt *fx = &d->fixits[i];
    if (fx->loc.file == d->loc.file &&
        same_line(f, fx->loc.start, d->loc.start))
      put_fixit_line(out, f, fx, ro);
  }
  for (int i = 0; i < d->nfixits; i++) {
    const FixIt *fx = &d->fixits[i];
    const SourceFile *ff = src_file(ss, fx->loc.file);
    if (!ff || ff->imported || (fx->loc.file == d->loc.file &&
                                same_line(f, fx->loc.start, d->loc.start)))
      continue;
    put_snippet(out, ff, fx->loc, ro);
    put_fixit_line(out, ff, fx, ro);
  }
}

void diag_render_one(const Diag *d, const SourceSet *ss, FILE *out,
                     const RenderOptions *ro) {
  int quoted = 0;
  put_header(out, ss, d->loc, d->origin, d->sev, d->msg, d->check, d->werror, ro);
  const SourceFile *f = src_file(ss, d->loc.file);
  if (f && f->imported) {
    put_place(out, ss, d->loc, d->origin, &quoted, ro);
    put_fixits(out, ss, d, ro);
  } else if (f) {
    put_snippet(out, f, d->loc, ro);
    put_fixits(out, ss, d, ro);
  }
  for (int i = 0; i < d->nnotes; i++) {
    const DiagNote *n = &d->notes[i];
    put_header(out, ss, n->loc, NULL, SEV_NOTE, n->msg, NULL, false, ro);
    put_place(out, ss, n->loc, NULL, &quoted, ro);
  }
}

void diag_render_text(const DiagSink *s, const SourceSet *ss, FILE *out,
                      const RenderOptions *ro) {
  for (int i = 0; i < s->n; i++) diag_render_one(s->items[i], ss, out, ro);
  if (s->limit_hit) {
    if (ro->color) fputs(C_BOLD, out);
    fputs("rooflint: too many errors emitted, stopping now [-ferror-limit=]",
          out);
    if (ro->color) fputs(C_RESET, out);
    fputc('\n', out);
  }
}

/* --------------------------------------------------------------- verify */

static bool expect_matches(const Expectation *e, const Diag *d, int line) {
  return line == e->line && (int)d->sev == e->severity &&
         (!e->check || (d->check && strcmp(e->check, d->check) == 0)) &&
         (!e->substring || strstr(d->msg, e->substring));
}

static bool must_be_expected(const Diag *d) {
  return d->sev == SEV_ERROR || d->sev == SEV_WARNING || d->sev == SEV_REMARK;
}

/* Pairs expectations with diagnostics one to one.  Expectations that name
 * a check or a substring pick first, so a bare `# expect: warning` cannot
 * take the diagnostic a more precise one on the same line needs. */
static void match_expectations(const SourceFile *f, const Diag *const *ds,
                               const int *lines, int n, bool *used,
                               bool *met) {
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < f->nexpectations; i++) {
      const Expectation *e = &f->expectations[i];
      bool precise = e->check || e->substring;
      if (precise != (pass == 0)) continue;
      for (int j = 0; j < n && !met[i]; j++) {
        if (used[j] || !expect_matches(e, ds[j], lines[j])) continue;
        used[j] = met[i] = true;
      }
    }
  }
}

static void put_expectation(FILE *out, const SourceFile *f,
                            const Expectation *e) {
  fprintf(out, "%s:%d: expected %s", f->name, e->line,
          severity_str((Severity)e->severity));
  if (e->check) fprintf(out, "[%s]", e->check);
  if (e->substring) fprintf(out, " \"%s\"", e->substring);
  fputs(" was not emitted\n", out);
}

static void put_unexpected(FILE *out, const SourceSet *ss,
                           const SourceFile *f, const Diag *d) {
  const SourceFile *df = src_file(ss, d->loc.file);
  if (df) {
    char where[WHERE_MAX];
    fprintf(out, "%s: ", src_where(df, d->loc, d->origin, where, sizeof where));
  } else {
    fprintf(out, "%s: ", f->name);
  }
  fprintf(out, "unexpected %s", severity_str(d->sev));
  if (d->check) fprintf(out, "[%s]", d->check);
  fputs(": ", out);
  diag_put_text(out, d->msg);
  fputc('\n', out);
}

int diag_verify(const DiagSink *s, const SourceSet *ss, int file, FILE *out) {
  const SourceFile *f = src_file(ss, file);
  if (!f) die("diag_verify: no file %d", file);
  int n = s->n, problems = 0;
  int *lines = xcalloc((size_t)n + 1, sizeof *lines);
  bool *used = xcalloc((size_t)n + 1, sizeof *used);
  bool *met = xcalloc((size_t)f->nexpectations + 1, sizeof *met);
  for (int j = 0; j < n; j++)
    lines[j] = s->items[j]->loc.file == file ? diag_line(s->items[j], ss) : -1;
  match_expectations(f, (const Diag *const *)s->items, lines, n, used, met);
  for (int i = 0; i < f->nexpectations; i++) {
    if (met[i]) continue;
    put_expectation(out, f, &f->expectations[i]);
    problems++;
  }
  for (int j = 0; j < n; j++) {
    if (used[j] || !must_be_expected(s->items[j])) continue;
    put_unexpected(out, ss, f, s->items[j]);
    problems++;
  }
  if (s->limit_hit) {
    fprintf(out, "%s: more than %d errors; raise --error-limit\n", f->name,
            s->error_limit);
    problems++;
  }
  free(lines);
  free(used);
  free(met);
  return problems;
}
