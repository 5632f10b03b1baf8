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
#include "util.h"
#include "out.h"
#include "json_writer.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SARIF_SCHEMA \
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
/* The rule that language errors (diagnostics without a check) report under. */
#define ERROR_RULE "error"

/* GitHub code scanning's limits on an upload (its "SARIF support for code
 * scanning" page): results past these are left out, and the log says so. */
enum { GITHUB_MAX_RESULTS = 25000, GITHUB_MAX_LOCATIONS = 1000 };

typedef struct SarifCtx {
  const SourceSet *ss;
  json_t *artifacts; /* run.artifacts, filled as files are referenced */
  int *artifact_of;  /* per SourceSet file: index in artifacts, or -1 */
  json_t *rules;     /* tool.driver.rules */
  const Analysis *an; /* the analysis whose results are being made */
  StrMap seen;       /* fingerprint text -> times met, to tell twins apart */
  StrBuf keys;       /* seen's keys (malloc'd), their pointers' bytes */
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

/* R-DIAG-004: what an imported line came from, an ONNX node (kind
 * "function") or a config key ("member"): [{name, fullyQualifiedName,
 * kind, properties}]. */
static json_t *logical_location(const Located *at) {
  OriginParts *p = xmalloc(sizeof *p);
  bool parts = src_origin_parts(at->origin, p);
  StrBuf full = {0};
  sb_putn(&full, at->origin, at->origin_len);
  json_t *l = json_object();
  json_object_set_new(l, "name", json_safe_string(parts && p->has_name ? p->name : sb_str(&full)));
  json_object_set_new(l, "fullyQualifiedName", json_safe_string(sb_str(&full)));
  bool node = parts && strcmp(p->kind, "node") == 0;
  json_object_set_new(l, "kind", json_string(node ? "function"
                                             : parts && !strcmp(p->kind, "key") ? "member"
                                             : "variable"));
  if (parts) {
    json_t *props = json_object();
    json_object_set_new(props, "kind", json_safe_string(p->kind));
    if (p->has_index) json_object_set_new(props, "index", json_integer(p->index));
    if (p->type[0]) json_object_set_new(props, "opType", json_safe_string(p->type));
    json_object_set_new(l, "properties", props);
  }
  sb_free(&full);
  free(p);
  json_t *a = json_array();
  json_array_append_new(a, l);
  return a;
}

static bool has_loc(const SarifCtx *cx, Loc loc) {
  return loc.file >= 0 && loc.file < cx->ss->nfiles;
}

/* R-DIAG-004: the region in the file the user has: a line of .roof text
 * or of a config, or the bytes of an ONNX node; NULL when the place has
 * none (a line an importer wrote with no origin). */
static json_t *physical_region(const Located *at, Loc loc) {
  if (at->in) return region(at->in, (Loc){loc.file, at->start, at->end});
  if (!at->has_bytes) return NULL;
  json_t *r = json_object();
  json_object_set_new(r, "byteOffset", json_integer((json_int_t)at->byte_offset));
  json_object_set_new(r, "byteLength", json_integer((json_int_t)at->byte_length));
  return r;
}

/* A location object; an empty one (allowed by the schema) when the
 * diagnostic has no place in a file. */
static json_t *location(SarifCtx *cx, Loc loc, const char *origin, const char *message) {
  json_t *o = json_object();
  if (has_loc(cx, loc)) {
    Located at;
    src_locate(src_file(cx->ss, loc.file), loc, origin, &at);
    json_t *phys = json_object();
    json_object_set_new(phys, "artifactLocation", artifact_location(cx, loc.file));
    json_t *r = physical_region(&at, loc);
    if (r) json_object_set_new(phys, "region", r);
    json_object_set_new(o, "physicalLocation", phys);
    if (at.origin) json_object_set_new(o, "logicalLocations", logical_location(&at));
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

/* Where a check's documentation is: docs/checks.md, one heading per check
 * (its anchor the check's name), in the repository rooflint is built from;
 * a build for another home sets ROOFLINT_DOCS_URL. */
#ifndef ROOFLINT_DOCS_URL
#define ROOFLINT_DOCS_URL "https://github.com/rooflint/rooflint/blob/main/docs/checks.md"
#endif

/* R-SARIF-003: how often a finding of the rule is right, in GitHub's
 * terms.  Exact arithmetic on the model's own figures (capacity, alignment,
 * dtypes, language errors): very-high; a roofline bound or a wave count,
 * right for the model as written but not measured: high; the heuristics
 * about fusion, launches and placement, which a compiler or runtime may
 * already handle: medium. */
static const char *precision_of(const char *id) {
  static const char *const rows[][2] = {
      {"error", "very-high"},         {"capacity", "very-high"},
      {"tc-alignment", "very-high"},  {"stray-fp32", "very-high"},
      {"memory-bound", "high"},       {"wave-tail", "high"},
      {"low-occupancy", "high"},      {"transfer-in-loop", "high"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    if (strcmp(rows[i][0], id) == 0) return rows[i][1];
  return "medium";
}

/* GitHub's problem.severity: error, warning, or recommendation for a
 * check that is off unless asked for. */
static const char *problem_severity(Severity sev, bool enabled) {
  if (!enabled) return "recommendation";
  return sev == SEV_ERROR ? "error" : sev == SEV_WARNING ? "warning" : "recommendation";
}

/* help: the --explain text, as text and as Markdown with a link to the
 * documentation's anchor for the rule (helpUri). */
static json_t *rule_help(const char *id, const char *summary, const char *body,
                         const char *uri) {
  StrBuf md = {0};
  sb_printf(&md, "**%s**: %s\n\n%s\n\n[Documentation](%s)", id, summary, body, uri);
  json_t *h = json_object();
  json_object_set_new(h, "text", json_safe_string(body));
  json_object_set_new(h, "markdown", json_safe_string(sb_str(&md)));
  sb_free(&md);
  return h;
}

static json_t *rule(const char *id, const char *summary, const char *explain, Severity sev,
                    bool enabled, const char *tag) {
  json_t *r = json_object();
  const char *body = explain ? explain : summary ? summary : id;
  char uri[512];
  snprintf(uri, sizeof uri, "%s#%s", ROOFLINT_DOCS_URL, id);
  json_object_set_new(r, "id", json_safe_string(id));
  json_object_set_new(r, "shortDescription", text_message(summary ? summary : id));
  json_object_set_new(r, "fullDescription", text_message(body));
  json_object_set_new(r, "help", rule_help(id, summary ? summary : id, body, uri));
  json_object_set_new(r, "helpUri", json_safe_string(uri));
  json_t *cfg = json_object();
  json_object_set_new(cfg, "enabled", json_boolean(enabled));
  json_object_set_new(cfg, "level", json_string(level_of(sev)));
  json_object_set_new(r, "defaultConfiguration", cfg);
  json_t *props = json_object(), *tags = json_array();
  json_array_append_new(tags, json_string(tag));
  json_object_set_new(props, "tags", tags);
  json_object_set_new(props, "precision", json_string(precision_of(id)));
  json_object_set_new(props, "problem.severity", json_string(problem_severity(sev, enabled)));
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
    /* a fix-it on an importer's text has no place in the file read */
    if (!has_loc(cx, fx->loc) || src_file(cx->ss, fx->loc.file)->imported) continue;
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

/* The model a diagnostic is in: the last of the file's models that
 * starts before it, or "".  Models are in source order (an analysis reads
 * one file, its models as they stand), so a binary search finds it: a
 * scan per finding would be quadratic in a file of many models. */
static const char *model_of(const SarifCtx *cx, const Diag *d) {
  const Unit *u = cx->an ? cx->an->unit : NULL;
  int lo = 0, hi = u ? u->nmodels : 0; /* models[0, lo) start at or before d */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const Model *m = &u->models[mid];
    if (m->file < d->loc.file || (m->file == d->loc.file && m->loc.start <= d->loc.start))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || u->models[lo - 1].file != d->loc.file) return "";
  return u->models[lo - 1].name;
}

/* The target a finding is on: the one its message names (a check run on
 * every target says which), else the first. */
static const char *target_of(const SarifCtx *cx, const Diag *d) {
  if (!cx->an || cx->an->ntargets == 0) return "";
  for (int i = 0; i < cx->an->ntargets; i++) {
    const char *disp = cx->an->targets[i]->display;
    const char *bare = disp ? strchr(disp, ' ') : NULL;
    if (disp && (strstr(d->msg, disp) || (bare && strstr(d->msg, bare + 1))))
      return cx->an->targets[i]->name;
  }
  return cx->an->targets[0]->name;
}

/* R-SARIF-002: what a finding is, not where its line is: the check, the
 * file, the model, the node (an ONNX node's name and op type, a config
 * key and the statement written from it, else the statement's text), the
 * target and the message without its figures; twins are numbered in
 * order.  Hashed into 16 hex digits. */
static json_t *fingerprints(SarifCtx *cx, const Diag *d) {
  StrBuf key = {0};
  const SourceFile *f = src_file(cx->ss, d->loc.file);
  sb_printf(&key, "%s|%s|%s|", d->check ? d->check : ERROR_RULE, f ? f->name : "",
            model_of(cx, d));
  if (f) {
    Located at;
    src_locate(f, d->loc, d->origin, &at);
    OriginParts *p = xmalloc(sizeof *p);
    if (at.origin && src_origin_parts(at.origin, p))
      sb_printf(&key, "%s %s (%s)", p->kind, p->name, p->type);
    free(p);
    int line, col;
    src_linecol(f, d->loc.start, &line, &col);
    sb_putc(&key, ' ');
    if (!d->origin) src_statement(f, line, &key);
  }
  sb_printf(&key, "|%s|", target_of(cx, d));
  for (const char *m = d->msg; *m; m++)
    if (!(*m >= '0' && *m <= '9')) sb_putc(&key, *m);
  /* The map borrows its keys, so a key goes in as a copy that outlives
   * `key` (strmap_ref would store key's own buffer, freed below). */
  uintptr_t twin = (uintptr_t)strmap_get(&cx->seen, sb_str(&key));
  if (!twin) {
    char *kept = xstrdup(sb_str(&key));
    sb_putn(&cx->keys, (const char *)&kept, sizeof kept);
    strmap_put(&cx->seen, kept, (void *)(uintptr_t)1);
  } else { /* the slot keeps its copy of the key; only the count changes */
    strmap_put(&cx->seen, sb_str(&key), (void *)(twin + 1));
  }
  sb_printf(&key, "|%lu", (unsigned long)twin);
  char hex[32];
  snprintf(hex, sizeof hex, "%016llx",
           (unsigned long long)hash_bytes(key.data, key.len));
  sb_free(&key);
  json_t *fp = json_object();
  json_object_set_new(fp, "rooflint/v1", json_string(hex));
  return fp;
}

static json_t *result(SarifCtx *cx, const Diag *d) {
  json_t *r = json_object();
  const char *id = d->check ? d->check : ERROR_RULE;
  json_object_set_new(r, "ruleId", json_safe_string(id));
  json_object_set_new(r, "ruleIndex", json_integer(rule_index(cx, d)));
  json_object_set_new(r, "level", json_string(level_of(d->sev)));
  json_object_set_new(r, "message", text_message(d->msg));
  json_t *locs = json_array();
  if (has_loc(cx, d->loc)) json_array_append_new(locs, location(cx, d->loc, d->origin, NULL));
  json_object_set_new(r, "locations", locs);
  if (d->nnotes > 0) { /* GitHub reads 1,000 locations a result */
    json_t *rel = json_array();
    for (int i = 0; i < d->nnotes && i < GITHUB_MAX_LOCATIONS; i++) {
      json_t *l = location(cx, d->notes[i].loc, NULL, d->notes[i].msg);
      json_object_set_new(l, "id", json_integer(i));
      json_array_append_new(rel, l);
    }
    json_object_set_new(r, "relatedLocations", rel);
  }
  json_object_set_new(r, "partialFingerprints", fingerprints(cx, d));
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
static void seen_reset(SarifCtx *cx, bool again) {
  for (size_t i = 0; i + sizeof(char *) <= cx->keys.len; i += sizeof(char *)) {
    char *k;
    memcpy(&k, cx->keys.data + i, sizeof k);
    free(k);
  }
  sb_free(&cx->keys);
  strmap_free(&cx->seen);
  if (again) strmap_init(&cx->seen);
}

/* runAutomationDetails.id: the category of the run, one per set of
 * targets, so runs for several target sets are tracked apart. */
static json_t *automation(Analysis *const *an, int n) {
  StrBuf id = {0};
  sb_puts(&id, "rooflint/");
  for (int a = 0; a < n; a++) {
    if (!an[a] || !an[a]->ntargets) continue;
    for (int t = 0; t < an[a]->ntargets; t++)
      sb_printf(&id, "%s%s", t ? "," : "", an[a]->targets[t]->name);
    break;
  }
  sb_puts(&id, "/");
  json_t *o = json_object();
  json_object_set_new(o, "id", json_safe_string(sb_str(&id)));
  sb_free(&id);
  return o;
}

/* R-CEIL-004: a run priced against achieved ceilings says so, with the
 * figures that fell back to the peak on each target; NULL under the
 * datasheet's peaks, so the default log is unchanged. */
static json_t *run_properties(Analysis *const *an, int n) {
  for (int a = 0; a < n; a++) {
    if (!an[a] || !an[a]->ntargets) continue;
    if (an[a]->targets[0]->ceilings != CEILINGS_ACHIEVED) return NULL;
    json_t *props = json_object(), *fell = json_object();
    json_object_set_new(props, "ceilings", json_string("achieved"));
    for (int t = 0; t < an[a]->ntargets; t++) {
      const Target *tg = an[a]->targets[t];
      json_t *names = json_array();
      for (int i = 0; i < tg->nfell_back; i++)
        json_array_append_new(names, json_string(tg->fell_back[i]));
      json_object_set_new(fell, tg->name, names);
    }
    json_object_set_new(props, "ceilingsFellBack", fell);
    return props;
  }
  return NULL;
}

/* R-SARIF-004: results past GitHub's 25,000 are left out, and a
 * notification says how many. */
static void say_dropped(json_t *inv, long dropped) {
  if (dropped <= 0) return;
  char text[200];
  snprintf(text, sizeof text,
           "%ld results left out: GitHub code scanning reads at most %d a run",
           dropped, GITHUB_MAX_RESULTS);
  json_t *note = json_object(), *list = json_array();
  json_object_set_new(note, "level", json_string("warning"));
  json_object_set_new(note, "message", text_message(text));
  json_array_append_new(list, note);
  json_object_set_new(inv, "toolExecutionNotifications", list);
}

/* R-OUT-005.  Written as it is made (JsonOut): the results, which grow
 * with the input, go out one by one.  The artifacts come before them in
 * the log but are found by making the results, so a first pass makes each
 * result and drops it, and the second writes it. */
void sarif_write(FILE *out, Analysis *const *an, const DiagSink *const *diags, int n,
                 const SourceSet *ss, int exit_status) {
  SarifCtx cx = {ss, json_array(), xmalloc((size_t)(ss->nfiles + 1) * sizeof(int)), NULL,
                 NULL, {0}, {0}};
  strmap_init(&cx.seen);
  for (int i = 0; i < ss->nfiles; i++) cx.artifact_of[i] = -1;

  json_t *tool = json_object();
  json_t *drv = driver();
  cx.rules = json_object_get(drv, "rules");
  json_object_set(tool, "driver", drv); /* kept: results index its rules */
  json_t *inv = json_object();
  json_object_set_new(inv, "executionSuccessful", json_boolean(exit_status != 2));
  json_object_set_new(inv, "exitCode", json_integer(exit_status));
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
  long total = 0;
  for (int f = 0; f < n; f++) { /* the files the results name */
    const DiagSink *d = diags ? diags[f] : NULL;
    cx.an = an[f];
    for (int i = 0; d && i < d->n; i++, total++)
      if (total < GITHUB_MAX_RESULTS) json_decref(result(&cx, d->items[i]));
  }
  say_dropped(inv, total - GITHUB_MAX_RESULTS);
  json_t *invs = json_array();
  json_array_append_new(invs, inv);
  seen_reset(&cx, true);

  JsonOut *w = json_out_begin(out);
  json_out_put(w, "$schema", json_string(SARIF_SCHEMA));
  json_out_put(w, "version", json_string("2.1.0"));
  json_out_open(w, "runs", '[');
  json_out_open(w, NULL, '{');
  json_out_put(w, "tool", tool);
  json_out_put(w, "invocations", invs);
  json_out_put(w, "automationDetails", automation(an, n));
  json_out_put(w, "originalUriBaseIds", base);
  json_out_put(w, "columnKind", json_string("unicodeCodePoints"));
  json_out_put(w, "artifacts", json_incref(cx.artifacts));
  json_t *props = run_properties(an, n);
  if (props) json_out_put(w, "properties", props);
  json_out_open(w, "results", '[');
  long written = 0;
  for (int f = 0; f < n; f++) {
    const DiagSink *d = diags ? diags[f] : NULL;
    cx.an = an[f];
    for (int i = 0; d && i < d->n && written < GITHUB_MAX_RESULTS; i++, written++)
      json_out_put(w, NULL, result(&cx, d->items[i]));
  }
  json_out_close(w, ']');
  json_out_close(w, '}');
  json_out_close(w, ']');
  json_out_finish(w);
  seen_reset(&cx, false);
  json_decref(drv);
  json_decref(cx.artifacts);
  free(cx.artifact_of);
}
