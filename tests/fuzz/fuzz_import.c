/* SPDX-License-Identifier: MIT */
/*
 * fuzz_import.c: the libFuzzer harness of the importers end to end (issue
 * 28, the harness): an ONNX model or a Hugging Face config.json is read,
 * translated into .roof text, and that text parsed and analysed as a lint
 * would, with an injection oracle on the text.
 *
 * The input is
 *   byte 0      the choices: bit 0 the format (0 ONNX, 1 config.json), bit 1
 *               --unknown-ops=custom, bits 2-3 the --phase (none, prefill,
 *               decode, train)
 *   byte 1      k, the length of the file's name (k mod 32)
 *   k bytes     the file's name, any bytes ('/' and NUL made '_'): a name
 *               with a newline is how the file name injected statements
 *   the rest    the file's bytes
 *
 * The oracle, on every translation that succeeds (a refusal is an error
 * message, and fine):
 *   1. the text is as many lines as the importer wrote (one origin each,
 *      import.h): a string from the file that carried a newline or a
 *      carriage return would have added one;
 *   2. the text holds no control character but its newlines, no DEL, and
 *      only well-formed UTF-8: what a file said is escaped where it is
 *      written (import_put_escaped);
 *   3. the text parses with no syntax error;
 *   4. each line that is not blank, a comment or a closing brace is where
 *      exactly one statement starts, and no statement starts anywhere else:
 *      the statements parsed are exactly the lines the importer wrote as
 *      statements, so none came from a comment line or from a name;
 *   5. the analysis (sema, cost, every check) and its diagnostics run, as
 *      fuzz_rooflint's do, without a crash or a leak.
 * A failed oracle aborts, so libFuzzer keeps the input as a crash.
 *
 * Built by `make fuzz` (tests/fuzz/run.sh seeds it with the ONNX fixtures
 * and the configs of tests/hf/, behind a choice byte and an empty name).
 */
#include "import/import.h"
#include "import/onnx.h"
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *null_sink(void) {
  static FILE *f; /* opened once per process: not state of the tool */
  if (!f) f = fopen("/dev/null", "w");
  return f;
}

/* The name of this process's directory for the configs ("" until made). */
enum { WORK_DIR_MAX = 4096 };
static char *work_dir_name(void) {
  static char dir[WORK_DIR_MAX]; /* made once per process, like null_sink's file */
  return dir;
}

/* At exit: each input's file is unlinked after its run, so the directory
 * is empty by then. */
static void remove_work_dir(void) {
  if (work_dir_name()[0]) rmdir(work_dir_name());
}

/* A directory of this process's for the configs, which the importer reads
 * by their path, removed when the process exits. */
static const char *work_dir(void) {
  char *dir = work_dir_name();
  if (!dir[0]) {
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(dir, WORK_DIR_MAX, "%s/fuzz_import.XXXXXX",
                     tmp && tmp[0] ? tmp : "/tmp");
    if (n < 0 || n >= WORK_DIR_MAX || !mkdtemp(dir)) abort();
    atexit(remove_work_dir);
  }
  return dir;
}

static const Importer *importer_named(const char *name) {
  for (const Importer *i = importer_table; i->name; i++)
    if (strcmp(i->name, name) == 0) return i;
  abort();
}

/* Oracles 1 and 2: lines and bytes. */
static void check_bytes(const Imported *im) {
  size_t lines = 0;
  for (size_t i = 0; i < im->len;) {
    unsigned char c = (unsigned char)im->text[i];
    if (c == '\n') lines++;
    else if (c < 0x20 || c == 0x7f) abort();
    size_t k = c < 0x80 ? 1 : src_utf8_len(im->text + i, im->len - i);
    if (k == 0) abort();
    i += k;
  }
  if (lines != im->norigins) abort();
  if (im->len > 0 && im->text[im->len - 1] != '\n') abort();
}

/* Marks the line each statement of `b` starts on (statements[line] + 1),
 * into the blocks below it; a parallel block's keys are not statements. */
static void mark_statements(const SourceFile *f, const Block *b, int *starts,
                            int nlines) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->items[i];
    int line, col;
    src_linecol(f, s->loc.start, &line, &col);
    if (line < 1 || line > nlines) abort();
    starts[line - 1]++;
    switch (s->kind) {
    case ST_MODEL: case ST_FUSED: case ST_SECTION: case ST_TARGET_DEF:
      mark_statements(f, &s->def.body, starts, nlines);
      break;
    case ST_REPEAT: case ST_LOOP: case ST_CHECKPOINT:
      mark_statements(f, &s->loop.body, starts, nlines);
      break;
    case ST_EXPERTS:
      mark_statements(f, &s->experts.body, starts, nlines);
      break;
    default: break;
    }
  }
}

/* Oracle 4: one statement starts on each statement line, none elsewhere. */
static void check_statements(const SourceFile *f, const Program *p) {
  int nlines = (int)f->nlines;
  int *starts = calloc((size_t)nlines + 1, sizeof *starts);
  if (!starts) abort();
  mark_statements(f, &p->top, starts, nlines);
  for (int line = 1; line <= nlines; line++) {
    size_t len;
    const char *t = src_line_text(f, line, &len);
    size_t k = 0;
    while (k < len && t[k] == ' ') k++;
    bool statement = k < len && t[k] != '#' && t[k] != '}';
    if (starts[line - 1] != (statement ? 1 : 0)) abort();
  }
  free(starts);
}

/* Oracles 3 to 5 on the text the importer wrote, loaded as import_load
 * loads it: the text, its origins and its findings the SourceSet's now. */
static void lint_text(const char *path, Imported *im) {
  SourceSet ss;
  src_init(&ss);
  int file = src_add(&ss, path, im->text, im->len);
  SourceFile *sf = ss.files[file];
  sf->imported = true;
  src_set_origins(sf, im->origins, im->norigins);
  src_set_import_diags(sf, im->diags, im->ndiags);
  /* as import_load does: diagnostics are placed in the original too */
  if (im->original) src_set_original(sf, im->original, im->original_len);
  im->original = NULL;
  im->text = NULL, im->origins = NULL, im->norigins = 0;
  im->diags = NULL, im->ndiags = 0;
  DiagSink diags;
  diag_sink_init(&diags);
  Arena *arena = arena_new();
  /* the analysis below parses the text again, as a lint does, and
   * records its directives then */
  ParseOptions po = {.skip_directives = true};
  Program *p = parse_file_opts(arena, &ss, file, &diags, &po);
  if (p->nsyntax_errors > 0 || diags.nerrors > 0) abort();
  check_statements(src_file(&ss, file), p);
  diag_sink_free(&diags);
  diag_sink_init(&diags);
  Bindings bindings = {0};
  AnalyzeOptions opts = {.bindings = &bindings, .run_checks = true};
  (void)analyze_file(arena, &ss, file, &opts, &diags);
  diag_sort(&diags);
  RenderOptions plain = {.color = false};
  FILE *out = null_sink();
  if (out) diag_render_text(&diags, &ss, out, &plain);
  arena_free(arena);
  diag_sink_free(&diags);
  src_free(&ss);
}

static void imported_free(Imported *im) {
  free(im->text);
  for (size_t i = 0; i < im->norigins; i++) free(im->origins[i]);
  free(im->origins);
  for (size_t i = 0; i < im->ndiags; i++) {
    free(im->diags[i].msg);
    free(im->diags[i].origin);
  }
  free(im->diags);
  free(im->original);
  free(im->error);
}

/* The ONNX model of `bytes`, read in memory and translated. */
static ImportStatus translate_onnx(const char *path, const uint8_t *bytes,
                                   size_t n, const ImportOptions *o,
                                   Imported *im) {
  Arena *a = arena_new();
  OnnxModel m;
  char err[256];
  ImportStatus st = IMPORT_INVALID;
  if (onnx_read(a, bytes, n, &m, err, sizeof err))
    st = (ImportStatus)onnx_translate_model(&m, path, o, im);
  else
    im->error = xstrdup(err); /* as onnx_translate reports it */
  arena_free(a);
  return st;
}

/* The config of `bytes`, written to a file of that name and imported. */
static ImportStatus translate_hf(const char *path, const uint8_t *bytes,
                                 size_t n, const ImportOptions *o,
                                 Imported *im) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(bytes, 1, n, f) != n) abort();
  fclose(f);
  ImportStatus st = importer_named("hf")->translate(path, o, im);
  unlink(path);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  static const char *const phases[] = {NULL, "prefill", "decode", "train"};
  bool hf = data[0] & 1;
  ImportOptions o = {.unknown_ops_custom = (data[0] & 2) != 0,
                     .phase = phases[(data[0] >> 2) & 3]};
  size_t k = data[1] % 32;
  if (size < 2 + k) return 0;
  char path[160];
  int at = snprintf(path, sizeof path, "%s/", work_dir());
  for (size_t i = 0; i < k; i++) {
    char c = (char)data[2 + i];
    path[at++] = c == '/' || c == '\0' ? '_' : c;
  }
  snprintf(path + at, sizeof path - (size_t)at, hf ? "config.json" : "m.onnx");
  const uint8_t *bytes = data + 2 + k;
  size_t n = size - 2 - k;
  DiagSink warnings; /* the importer's own, rendered as a lint would */
  diag_sink_init(&warnings);
  o.warnings = &warnings;
  Imported im;
  memset(&im, 0, sizeof im);
  ImportStatus st = hf ? translate_hf(path, bytes, n, &o, &im)
                       : translate_onnx(path, bytes, n, &o, &im);
  RenderOptions plain = {.color = false};
  FILE *out = null_sink();
  SourceSet none;
  src_init(&none);
  if (out) diag_render_text(&warnings, &none, out, &plain);
  src_free(&none);
  diag_sink_free(&warnings);
  if (st == IMPORT_OK) {
    if (!im.text) abort();
    check_bytes(&im);
    lint_text(path, &im);
  } else if (!im.error) {
    abort(); /* a refusal says why */
  }
  imported_free(&im);
  return 0;
}
