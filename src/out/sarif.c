/* SPDX-License-Identifier: MIT */
/*
 * sarif.c: `--format sarif`, the Static Analysis Results Interchange Format
 * 2.1.0 that code-scanning services (GitHub, GitLab, IDE viewers) ingest.
 * One run: the driver with one rule per registered check plus the rule
 * "error" for language errors (syntax, names, shapes, dtypes, targets), the
 * invocation with its exit status, the artifacts (files) and one result per
 * diagnostic: notes become relatedLocations, fix-its become fixes, the
 * figures that prove a finding go to the result's property bag.
 *
 * SARIF counts columns in characters, not bytes: we say so with
 * columnKind "unicodeCodePoints" and count UTF-8 lead bytes.  Regions are
 * 1-based with an exclusive endColumn.  Relative file names are relative to
 * where rooflint ran, recorded as the uriBaseId %SRCROOT%.
 */
#include "rooflint.h"
#include "out.h"
#include "json_writer.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SARIF_SCHEMA \
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
/* The rule that language errors (diagnostics without a check) report under. */
#define ERROR_RULE "error"

typedef struct SarifCtx {
  const SourceSet *ss;
  json_t *artifacts; /* run.artifacts, filled as files are referenced */
  int *artifact_of;  /* per SourceSet file: index in artifacts, or -1 */
  json_t *rules;     /* tool.driver.rules */
} SarifCtx;

/* ---------------------------------------------------------------- locations */

/* RFC 3986 unreserved characters and '/' stand; everything else is
 * percent-encoded (a space, '<' of "<builtin>", non-ASCII bytes). */
static void uri_encode(StrBuf *sb, const char *path) {
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
        strchr("-._~/", *p))
      sb_putc(sb, (char)*p);
    else
      sb_printf(sb, "%%%02X", *p);
  }
}

/* {"uri", "uriBaseId"} for a file as it was named on the command line. */
static json_t *file_uri(const SourceFile *f) {
  StrBuf uri = {0};
  bool absolute = f->name[0] == '/';
  if (absolute) sb_puts(&uri, "file://");
  uri_encode(&uri, f->name);
  json_t *o = json_object();
  json_object_set_new(o, "uri", json_safe_string(sb_str(&uri)));
  sb_free(&uri);
  if (!absolute) json_object_set_new(o, "uriBaseId", json_string("%SRCROOT%"));
  return o;
}

/* An artifactLocation that also points into run.artifacts, adding the file
 * there the first time it is referenced. */
static json_t *artifact_location(SarifCtx *cx, int file) {
  const SourceFile *f = src_file(cx->ss, file);
  if (cx->artifact_of[file] < 0) {
    json_t *art = json_object();
    json_object_set_new(art, "location", file_uri(f));
    /* R-OUT-005: an imported file is described as the user's file (the
     * .onnx, the config.json), not the .roof text it was translated to */
    int64_t bytes = f->imported ? f->file_bytes : (int64_t)f->len;
    const char *lang = f->imported ? f->language : "rooflint";
    if (bytes >= 0) json_object_set_new(art, "length", json_integer((json_int_t)bytes));
    if (lang) json_object_set_new(art, "sourceLanguage", json_string(lang));
    cx->artifact_of[file] = (int)json_array_size(cx->artifacts);
    json_array_append_new(cx->artifacts, art);
  }
  json_t *o = file_uri(f);
  json_object_set_new(o, "index", json_integer(cx->artifact_of[file]));
  return o;
}

/* 1-based line and character column (code points) of a byte offset. */
static void char_linecol(const SourceFile *f, uint32_t offset, int *line, int *col) {
  int bcol;
  src_linecol(f, offset, line, &bcol);
  uint32_t start = offset - (uint32_t)(bcol - 1);
  int c = 1;
  for (uint32_t i = start; i < offset && i < f->len; i++)
    c += ((unsigned char)f->text[i] & 0xC0) != 0x80;
  *col = c;
}

/* R-OUT-007: 1-based, character columns, endColumn exclusive. */
static json_t *region(const SourceFile *f, Loc loc) {
  int line, col, eline, ecol;
  char_linecol(f, loc.start, &line, &col);
  char_linecol(f, loc.end >= loc.start ? loc.end : loc.start, &eline, &ecol);
  json_t *r = json_object();
  json_object_set_new(r, "startLine", json_integer(line));
  json_object_set_new(r, "startColumn", json_integer(col));
  json_object_set_new(r, "endLine", json_integer(eline));
  json_object_set_new(r, "endColumn", json_integer(ecol));
  return r;
}

/* R-ONNX-007: a line an importer wrote names what it came from (an ONNX
 * node): [{name, fullyQualifiedName, kind, properties}], or NULL.  The
 * region beside it is the line of the imported text. */
static json_t *logical_location(const SourceFile *f, Loc loc) {
  int line, col;
  src_linecol(f, loc.start, &line, &col);
  const char *origin = src_origin(f, line);
  if (!origin) return NULL;
  OriginParts *p = xmalloc(sizeof *p);
  bool parts = src_origin_parts(origin, p);
  json_t *l = json_object();
  json_object_set_new(l, "name", json_safe_string(parts && p->has_name ? p->name : origin));
  json_object_set_new(l, "fullyQualifiedName", json_safe_string(origin));
  json_object_set_new(l, "kind", json_string(parts && strcmp(p->kind, "node") == 0
                                                 ? "function" : "variable"));
  if (parts) {
    json_t *props = json_object();
    json_object_set_new(props, "kind", json_safe_string(p->kind));
    if (p->has_index) json_object_set_new(props, "index", json_integer(p->index));
    if (p->type[0]) json_object_set_new(props, "opType", json_safe_string(p->type));
    json_object_set_new(l, "properties", props);
  }
  free(p);
  json_t *a = json_array();
  json_array_append_new(a, l);
  return a;
}

static bool has_loc(const SarifCtx *cx, Loc loc) {
  return loc.file >= 0 && loc.file < cx->ss->nfiles;
}

/* A location object; an empty one (allowed by the schema) when the
 * diagnostic has no place in a file. */
static json_t *location(SarifCtx *cx, Loc loc, const char *message) {
  json_t *o = json_object();
  if (has_loc(cx, loc)) {
    json_t *phys = json_object();
    json_object_set_new(phys, "artifactLocation", artifact_location(cx, loc.file));
    json_object_set_new(phys, "region", region(src_file(cx->ss, loc.file), loc));
    json_object_set_new(o, "physicalLocation", phys);
    json_t *logical = logical_location(src_file(cx->ss, loc.file), loc);
    if (logical) json_object_set_new(o, "logicalLocations", logical);
  }
  if (message) {
    json_t *m = json_object();
    json_object_set_new(m, "text", json_safe_string(message));
    json_object_set_new(o, "message", m);
  }
  return o;
}

static json_t *text_message(const char *text) {
  json_t *m = json_object();
  json_object_set_new(m, "text", json_safe_string(text));
  return m;
}

/* ---------------------------------------------------------------- rules */

static const char *level_of(Severity s) {
  static const char *const levels[] = {
      [SEV_NOTE] = "note", [SEV_REMARK] = "note", [SEV_WARNING] = "warning", [SEV_ERROR] = "error"};
  return s >= SEV_NOTE && s <= SEV_ERROR ? levels[s] : "none";
}

static json_t *rule(const char *id, const char *summary, const char *explain, Severity sev,
                    bool enabled, const char *tag) {
  json_t *r = json_object();
  json_object_set_new(r, "id", json_safe_string(id));
  json_object_set_new(r, "shortDescription", text_message(summary ? summary : id));
  json_object_set_new(r, "fullDescription", text_message(explain ? explain : summary ? summary : id));
  json_object_set_new(r, "help", text_message(explain ? explain : summary ? summary : id));
  json_t *cfg = json_object();
  json_object_set_new(cfg, "enabled", json_boolean(enabled));
  json_object_set_new(cfg, "level", json_string(level_of(sev)));
  json_object_set_new(r, "defaultConfiguration", cfg);
  json_t *props = json_object(), *tags = json_array();
  json_array_append_new(tags, json_string(tag));
  json_object_set_new(props, "tags", tags);
  json_object_set_new(r, "properties", props);
  return r;
}

/* R-OUT-006: the error rule first, then the registry in its order. */
static json_t *driver(void) {
  json_t *drv = json_object();
  json_object_set_new(drv, "name", json_string("rooflint"));
  json_object_set_new(drv, "version", json_string(ROOFLINT_VERSION));
  json_object_set_new(drv, "semanticVersion", json_string(ROOFLINT_VERSION));
  json_t *rules = json_array();
  json_array_append_new(
      rules, rule(ERROR_RULE, "the input is not a valid rooflint file",
                  "A language error: a syntax error, an undefined name, a shape or dtype "
                  "mismatch, a bad dimension expression, an unknown op, dtype, keyword or "
                  "target. The analysis of the file is not trusted until it is fixed.",
                  SEV_ERROR, true, "correctness"));
  int n = 0;
  const CheckDesc *const *checks = check_registry(&n);
  for (int i = 0; checks && i < n; i++)
    json_array_append_new(rules, rule(checks[i]->name, checks[i]->summary, checks[i]->explain,
                                      checks[i]->severity, checks[i]->default_on, "performance"));
  json_object_set_new(drv, "rules", rules);
  return drv;
}

/* Index of a diagnostic's rule in driver.rules (language errors: 0).  A
 * check missing from the registry gets a rule of its own, so that every
 * ruleId names a rule. */
static int rule_index(SarifCtx *cx, const Diag *d) {
  const char *id = d->check ? d->check : ERROR_RULE;
  size_t i;
  json_t *r;
  json_array_foreach(cx->rules, i, r) {
    if (!strcmp(json_string_value(json_object_get(r, "id")), id)) return (int)i;
  }
  json_array_append_new(cx->rules, rule(id, NULL, NULL, d->sev, true, "performance"));
  return (int)json_array_size(cx->rules) - 1;
}

/* ---------------------------------------------------------------- results */

/* One fix holding every fix-it of the diagnostic, one change per file. */
static json_t *fixes(SarifCtx *cx, const Diag *d) {
  json_t *changes = json_array();
  for (int i = 0; i < d->nfixits; i++) {
    const FixIt *fx = &d->fixits[i];
    if (!has_loc(cx, fx->loc)) continue;
    json_t *change = NULL, *c;
    size_t k;
    json_array_foreach(changes, k, c) {
      json_t *idx = json_object_get(json_object_get(c, "artifactLocation"), "index");
      if (json_integer_value(idx) == cx->artifact_of[fx->loc.file]) change = c;
    }
    if (!change) {
      change = json_object();
      json_object_set_new(change, "artifactLocation", artifact_location(cx, fx->loc.file));
      json_object_set_new(change, "replacements", json_array());
      json_array_append_new(changes, change);
    }
    json_t *rep = json_object();
    json_object_set_new(rep, "deletedRegion", region(src_file(cx->ss, fx->loc.file), fx->loc));
    json_t *ins = json_object();
    json_object_set_new(ins, "text", json_safe_string(fx->text));
    json_object_set_new(rep, "insertedContent", ins);
    json_array_append_new(json_object_get(change, "replacements"), rep);
  }
  if (json_array_size(changes) == 0) {
    json_decref(changes);
    return NULL;
  }
  json_t *fix = json_object();
  StrBuf what = {0};
  if (d->nfixits == 1) {
    /* what a viewer shows on the button: the edit itself, kept short */
    const FixIt *fx = &d->fixits[0];
    size_t len = strcspn(fx->text, "\n");
    sb_puts(&what, fx->loc.end > fx->loc.start ? "replace with '" : "insert '");
    sb_putn(&what, fx->text, len > 48 ? 48 : len);
    sb_puts(&what, len > 48 || fx->text[len] ? "...'" : "'");
  } else {
    sb_printf(&what, "apply %d edits", d->nfixits);
  }
  json_object_set_new(fix, "description", text_message(sb_str(&what)));
  sb_free(&what);
  json_object_set_new(fix, "artifactChanges", changes);
  json_t *list = json_array();
  json_array_append_new(list, fix);
  return list;
}

static json_t *result(SarifCtx *cx, const Diag *d) {
  json_t *r = json_object();
  const char *id = d->check ? d->check : ERROR_RULE;
  json_object_set_new(r, "ruleId", json_safe_string(id));
  json_object_set_new(r, "ruleIndex", json_integer(rule_index(cx, d)));
  json_object_set_new(r, "level", json_string(level_of(d->sev)));
  json_object_set_new(r, "message", text_message(d->msg));
  json_t *locs = json_array();
  if (has_loc(cx, d->loc)) json_array_append_new(locs, location(cx, d->loc, NULL));
  json_object_set_new(r, "locations", locs);
  if (d->nnotes > 0) {
    json_t *rel = json_array();
    for (int i = 0; i < d->nnotes; i++) {
      json_t *l = location(cx, d->notes[i].loc, d->notes[i].msg);
      json_object_set_new(l, "id", json_integer(i));
      json_array_append_new(rel, l);
    }
    json_object_set_new(r, "relatedLocations", rel);
  }
  json_t *fx = fixes(cx, d);
  if (fx) json_object_set_new(r, "fixes", fx);
  if (d->nfigures > 0) {
    json_t *props = json_object();
    for (int i = 0; i < d->nfigures; i++)
      json_object_set_new(props, d->figures[i].key, json_base_number(d->figures[i].value));
    json_object_set_new(r, "properties", props);
  }
  return r;
}

/* ---------------------------------------------------------------- document */

/* R-OUT-005.  Written as it is made (JsonOut): the results, which grow
 * with the input, go out one by one.  The artifacts come before them in
 * the log but are found by making the results, so a first pass makes each
 * result and drops it, and the second writes it. */
void sarif_write(FILE *out, Analysis *const *an, const DiagSink *const *diags, int n,
                 const SourceSet *ss, int exit_status) {
  SarifCtx cx = {ss, json_array(), xmalloc((size_t)(ss->nfiles + 1) * sizeof(int)), NULL};
  for (int i = 0; i < ss->nfiles; i++) cx.artifact_of[i] = -1;

  json_t *tool = json_object();
  json_t *drv = driver();
  cx.rules = json_object_get(drv, "rules");
  json_object_set(tool, "driver", drv); /* kept: results index its rules */
  json_t *inv = json_object();
  json_object_set_new(inv, "executionSuccessful", json_boolean(exit_status != 2));
  json_object_set_new(inv, "exitCode", json_integer(exit_status));
  json_t *invs = json_array();
  json_array_append_new(invs, inv);
  json_t *base = json_object();
  json_t *srcroot = json_object();
  json_object_set_new(srcroot, "description", text_message("the directory rooflint ran in"));
  json_object_set_new(base, "%SRCROOT%", srcroot);

  /* The files analysed come first among the artifacts, in command-line
   * order, whether or not anything was found in them. */
  for (int a = 0; a < n; a++) {
    if (!an[a] || an[a]->file < 0 || an[a]->file >= ss->nfiles) continue;
    json_decref(artifact_location(&cx, an[a]->file));
    json_t *art = json_array_get(cx.artifacts, (size_t)cx.artifact_of[an[a]->file]);
    if (!json_object_get(art, "roles")) {
      json_t *roles = json_array();
      json_array_append_new(roles, json_string("analysisTarget"));
      json_object_set_new(art, "roles", roles);
    }
  }
  for (int f = 0; f < n; f++) { /* the files the results name */
    const DiagSink *d = diags ? diags[f] : NULL;
    for (int i = 0; d && i < d->n; i++) json_decref(result(&cx, d->items[i]));
  }

  JsonOut *w = json_out_begin(out);
  json_out_put(w, "$schema", json_string(SARIF_SCHEMA));
  json_out_put(w, "version", json_string("2.1.0"));
  json_out_open(w, "runs", '[');
  json_out_open(w, NULL, '{');
  json_out_put(w, "tool", tool);
  json_out_put(w, "invocations", invs);
  json_out_put(w, "originalUriBaseIds", base);
  json_out_put(w, "columnKind", json_string("unicodeCodePoints"));
  json_out_put(w, "artifacts", json_incref(cx.artifacts));
  json_out_open(w, "results", '[');
  for (int f = 0; f < n; f++) {
    const DiagSink *d = diags ? diags[f] : NULL;
    for (int i = 0; d && i < d->n; i++) json_out_put(w, NULL, result(&cx, d->items[i]));
  }
  json_out_close(w, ']');
  json_out_close(w, '}');
  json_out_close(w, ']');
  json_out_finish(w);
  json_decref(drv);
  json_decref(cx.artifacts);
  free(cx.artifact_of);
}
