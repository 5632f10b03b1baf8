/* SPDX-License-Identifier: MIT */
/*
 * import.h: front ends for files that are not .roof text.  An importer
 * translates another format (an ONNX export, a Hugging Face config) into
 * .roof text, which the ordinary front end then parses, so sema, cost,
 * checks and every output are the same for every input.  Each generated
 * line may carry an origin (the ONNX node, the config field it came from),
 * which diagnostics quote instead of a line of a file the user never saw.
 *
 * Adding a format is one row in importers.def and one module that defines
 * its two functions.
 */
#ifndef ROOFLINT_IMPORT_H
#define ROOFLINT_IMPORT_H

#include "rooflint.h"

/* What the command line passes to every importer. */
typedef struct ImportOptions {
  const LetOverride *overrides; /* -D NAME=VALUE, as given */
  int noverrides;
  const char *const *override_args; /* each "NAME=VALUE" as written: a word
                                     * value (-D recompute=full) is here only */
  const char *phase;            /* --phase (Hugging Face configs), or NULL */
  DiagSink *warnings;           /* where an importer's warnings go, or NULL */
  bool unknown_ops_custom;      /* --unknown-ops=custom (ONNX) */
  bool weights_as_inputs;       /* --weights-as-inputs (ONNX) */
  /* The file's text when the caller has it (an editor's open document),
   * read instead of the file: text formats (config.json) only. */
  const char *text;
  size_t text_len;
} ImportOptions;

typedef enum ImportStatus {
  IMPORT_OK,
  IMPORT_UNREADABLE, /* cannot open or read the file: exit 2 */
  IMPORT_INVALID,    /* read, but not a model we can translate: exit 1 */
} ImportStatus;

/* An importer's result.  text is malloc'd .roof text (ownership passes to
 * the SourceSet); origins[i], when not NULL, names where line i + 1 of the
 * text came from (malloc'd strings, owned likewise), in the form
 * `KIND [INDEX] ["NAME"] [(TYPE)] [in "PATH"] [@OFFSET+LENGTH]`:
 * `node 12 "/conv1/Conv" (Conv) @1834+96`, `initializer 3 "fc.weight"`, a
 * node of a subgraph with its path `node 1 "/then/Relu" (Relu) in
 * "main_graph/If_1/then_branch" @210+40`,
 * `key "hidden_size" @112+13`, the region being the bytes of the file
 * read that the line came from (a NodeProto, a config key); diagnostics
 * are placed there (src_locate), JSON and SARIF split it into its parts.  On failure, error
 * is the malloc'd message, naming the byte offset, node or key. */
typedef struct Imported {
  char *text;
  size_t len;
  char **origins;
  size_t norigins;
  ImportDiag *diags;  /* findings on lines of text (rooflint.h), malloc'd */
  size_t ndiags;
  char *original;     /* a text format's bytes as read (src_set_original) */
  size_t original_len;
  char *error;
} Imported;

typedef struct Importer {
  const char *name;     /* "onnx" */
  const char *describes; /* for --help: "ONNX model (FILE.onnx)" */
  const char *language;  /* SARIF sourceLanguage ("json"), NULL: binary */
  /* Whether this importer reads `path`, judged by its name (and, where
   * the name says nothing, its first bytes `head`, n of them). */
  bool (*recognises)(const char *path, const unsigned char *head, size_t n);
  ImportStatus (*translate)(const char *path, const ImportOptions *o,
                            Imported *out);
} Importer;

/* The importer for `path`, or NULL for .roof text (or standard input). */
const Importer *importer_for(const char *path);

/* Loads `path` into the SourceSet: through its importer, or as .roof text.
 * Returns the file's index, or -1 with *err set (malloc'd) and *status
 * saying which kind of failure it was. */
int import_load(SourceSet *ss, const char *path, const ImportOptions *o,
                char **err, ImportStatus *status);

/* How a string read from an input (a name, a path, a config key) is
 * written into the .roof text an importer makes: the one function every
 * importer writes such a string through (specs/onnx.md R-ONNX-060,
 * R-HF-017).  IMPORT_COMMENT writes it as the text of a comment: valid
 * UTF-8 as it is, `\` doubled, a control character (C0, DEL) or a byte of
 * ill-formed UTF-8 as \xNN, so no newline or carriage return can end the
 * comment and start a statement.  IMPORT_QUOTED writes it between double
 * quotes for an origin (import.h's grammar, src_origin_parts undoes it):
 * printable ASCII as it is, `"` and `\` escaped, every other byte \xNN.
 * Identifiers are made by each importer (letters, digits and `_` only). */
typedef enum ImportEscape { IMPORT_COMMENT, IMPORT_QUOTED } ImportEscape;
void import_put_escaped(StrBuf *sb, const char *s, ImportEscape how);

/* Where an importer's finding d is, as `rooflint import` names it on
 * standard error (R-DIAG-001): `x.json:5:3` at its key in the original
 * text, `m.onnx: node 3 "/Add" (Add)`, or the line of the text written. */
void import_where(const char *path, const Imported *im, const ImportDiag *d,
                  StrBuf *sb);

/* Whether -D `name` is read by an importer itself, not as a let of the
 * text it makes (the Hugging Face import's recompute and
 * sequence_parallel, R-HF-017): such a -D may take a word, and names no let. */
bool import_define_is_own(const char *name);

/* Every importer, for --help; a NULL name ends the list. */
extern const Importer importer_table[];

#endif
