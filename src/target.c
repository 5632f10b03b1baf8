/* SPDX-License-Identifier: MIT */
/*
 * target.c: accelerators.  A target is written in the language itself
 * (`target NAME { key = value ... level NAME { ... } }`); the built-in ones
 * are the specs/targets/ datasheets, compiled into the binary by
 * tools/embed.c and parsed on demand into the SourceSet as
 * "<builtin>/NAME.roof", so a mistake in one renders like any file.
 *
 * Validation is table-driven: one row per key says its kind (the unit a
 * value must carry) and where it lands in the Target.  Peaks are keys named
 * after a dtype (vector cores) or dtype + "_tc" (tensor/matrix cores);
 * "achieved_" before a peak or bandwidth key is what measured kernels reach.
 * Nothing here is cached globally: a built-in is parsed each time it is
 * resolved (a dozen small files; the source entry is reused), and the
 * result lives in the caller's arena.
 */
#include "rooflint.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum ValKind {
  V_STRING,
  V_INT,
  V_BOOL,
  V_BYTES,
  V_BANDWIDTH,
  V_FLOPS,
  V_TIME,
} ValKind;

/* What a value of each kind looks like, for "needs a ... (like ...)". */
static const struct {
  const char *what, *like;
} kind_text[] = {
    [V_STRING] = {"a string", "\"NVIDIA H100 SXM\""},
    [V_INT] = {"an integer", "132"},
    [V_BOOL] = {"true or false", "true"},
    [V_BYTES] = {"a size", "80 GB"},
    [V_BANDWIDTH] = {"a bandwidth", "3.35 TB/s"},
    [V_FLOPS] = {"a rate", "990 TFLOP/s"},
    [V_TIME] = {"a time", "500 ns"},
};

/* What a quantity's unit makes it, in the words of the error. */
static const char *const unit_words[] = {
    [UNIT_NONE] = "a plain number", [UNIT_BYTES] = "bytes",
    [UNIT_BANDWIDTH] = "a bandwidth", [UNIT_FLOPS] = "FLOP/s",
    [UNIT_TIME] = "a time",
};

static const ValKind unit_kind_val[] = {
    [UNIT_NONE] = V_INT, [UNIT_BYTES] = V_BYTES,
    [UNIT_BANDWIDTH] = V_BANDWIDTH, [UNIT_FLOPS] = V_FLOPS,
    [UNIT_TIME] = V_TIME,
};

/* A Target field: offset of a double/int/const char * in Target, or, for a
 * rate (dtype >= 0), offset of the per-dtype array it lands in. */
typedef struct KeyDesc {
  const char *name;
  ValKind kind;
  bool required;
  size_t offset;
  DType peak; /* DT_NONE: a plain field */
} KeyDesc;

/* The rate keys, each applied to X(name, dtype, tensor cores). */
#define PEAK_KEYS(X)                                                      \
  X("fp64", DT_FP64, false) X("fp32", DT_FP32, false)                    \
  X("fp16", DT_FP16, false) X("bf16", DT_BF16, false)                    \
  X("int8", DT_INT8, false) X("fp64_tc", DT_FP64, true)                  \
  X("tf32_tc", DT_TF32, true) X("fp16_tc", DT_FP16, true)                \
  X("bf16_tc", DT_BF16, true) X("fp8_tc", DT_FP8_E4M3, true)             \
  X("int8_tc", DT_INT8, true) X("fp4_tc", DT_FP4, true)                  \
  X("int4_tc", DT_INT4, true)

#define F(field) offsetof(Target, field)
#define PEAK(name, dt, tc) \
  {name, V_FLOPS, false, tc ? F(tensor_peak) : F(vector_peak), dt},
/* R-CEIL-001: what measured kernels reach, beside the peak it qualifies. */
#define ACHIEVED_PEAK(name, dt, tc)                                       \
  {"achieved_" name, V_FLOPS, false,                                      \
   tc ? F(achieved.tensor_peak) : F(achieved.vector_peak), dt},
#define ACHIEVED_BW(field) \
  {"achieved_" #field, V_BANDWIDTH, false, F(achieved.field), DT_NONE}

static const KeyDesc target_keys[] = {
    {"display", V_STRING, true, F(display), DT_NONE},
    {"year", V_INT, false, F(year), DT_NONE},
    {"source", V_STRING, false, 0, DT_NONE}, /* repeatable */
    {"sms", V_INT, true, F(sms), DT_NONE},
    {"memory", V_BYTES, true, F(memory), DT_NONE},
    {"memory_bw", V_BANDWIDTH, true, F(memory_bw), DT_NONE},
    {"l2", V_BYTES, false, F(l2), DT_NONE},
    {"smem_per_sm", V_BYTES, false, F(smem_per_sm), DT_NONE},
    {"regs_per_sm", V_BYTES, false, F(regs_per_sm), DT_NONE},
    PEAK_KEYS(PEAK)
    PEAK_KEYS(ACHIEVED_PEAK)
    ACHIEVED_BW(memory_bw),
    ACHIEVED_BW(nvlink_bw),
    ACHIEVED_BW(ib_bw),
    ACHIEVED_BW(pcie_bw),
    {"nvlink_bw", V_BANDWIDTH, false, F(nvlink_bw), DT_NONE},
    {"ib_bw", V_BANDWIDTH, false, F(ib_bw), DT_NONE},
    {"pcie_bw", V_BANDWIDTH, true, F(pcie_bw), DT_NONE},
    {"gpus_per_node", V_INT, false, F(gpus_per_node), DT_NONE},
    {"tile_m", V_INT, false, F(tile_m), DT_NONE},
    {"tile_n", V_INT, false, F(tile_n), DT_NONE},
    {"elements_per_block", V_INT, false, F(elements_per_block), DT_NONE},
    {"launch_overhead", V_TIME, false, F(launch_overhead), DT_NONE},
};
#define NKEYS ((int)(sizeof target_keys / sizeof target_keys[0]))
#undef F

#define L(field) offsetof(MemLevel, field)
static const KeyDesc level_keys[] = {
    {"label", V_STRING, false, L(label), DT_NONE},
    {"capacity", V_BYTES, false, L(capacity), DT_NONE},
    {"bandwidth", V_BANDWIDTH, true, L(bandwidth), DT_NONE},
    {"latency", V_TIME, true, L(latency), DT_NONE},
    {"note", V_STRING, false, L(note), DT_NONE},
    {"approximate", V_BOOL, false, L(approximate), DT_NONE},
};
#define NLEVEL_KEYS ((int)(sizeof level_keys / sizeof level_keys[0]))
#undef L

/* R-TGT-006: the range of a size, bandwidth, rate or time, in base units
 * (1 ps .. 10^24): every ratio of two figures (a ridge, a time) stays a
 * finite, normal double, and a chart's axes span a bounded number of
 * decades. */
#define FIGURE_MIN 1e-12
#define FIGURE_MAX 1e24

/* Defaults for the model parameters a datasheet does not state. */
#define DEFAULT_TILE 128
#define DEFAULT_ELEMENTS_PER_BLOCK 1024
#define DEFAULT_GPUS_PER_NODE 8
#define DEFAULT_LAUNCH_OVERHEAD 5e-6

static const char *const section_kinds[] = {"level", NULL};

/* A copy of an n-element array with room for one more (arena memory is
 * never freed one piece at a time; targets hold a handful of items). */
static void *grow(Arena *a, const void *old, size_t n, size_t size) {
  void *p = arena_alloc(a, (n + 1) * size);
  if (n) memcpy(p, old, n * size);
  return p;
}

static const KeyDesc *find_key(const KeyDesc *keys, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(keys[i].name, name) == 0) return &keys[i];
  return NULL;
}

static const char *suggest_key(const KeyDesc *keys, int n, const char *name) {
  const char *cands[64];
  int k = 0;
  for (int i = 0; i < n && k < 63; i++) cands[k++] = keys[i].name;
  cands[k] = NULL;
  return util_suggest(name, cands);
}

/* A literal value checked against its key's kind.  Returns false after
 * reporting.  *num gets numbers (base units), *str strings. */
static bool eval_value(const KeyDesc *key, const Expr *e, DiagSink *diags,
                       double *num, const char **str) {
  bool neg = false;
  const Expr *v = e;
  if (v->kind == EX_UNARY && v->un.op == '-') {
    neg = true;
    v = v->un.operand;
  }
  const char *got = NULL;
  switch (v->kind) {
  case EX_STRING:
    if (key->kind == V_STRING) {
      *str = v->str;
      return true;
    }
    got = "a string";
    break;
  case EX_BOOL:
    if (key->kind == V_BOOL) {
      *num = (double)v->ival;
      return true;
    }
    got = "a boolean";
    break;
  case EX_INT:
  case EX_REAL: {
    double x = v->kind == EX_INT ? (double)v->ival : v->rval;
    if (key->kind == V_INT) {
      if (v->kind == EX_REAL && x != floor(x)) {
        diag_report(diags, SEV_ERROR, NULL, e->loc,
                    "'%s' needs an integer (like 132), got %g", key->name, x);
        return false;
      }
      *num = neg ? -x : x;
      return true;
    }
    got = unit_words[UNIT_NONE];
    break;
  }
  case EX_QUANTITY:
    if (key->kind == unit_kind_val[v->qty.kind] && key->kind != V_INT) {
      *num = neg ? -v->qty.value : v->qty.value;
      return true;
    }
    got = unit_words[v->qty.kind];
    break;
  default:
    got = "an expression";
    break;
  }
  diag_report(diags, SEV_ERROR, NULL, e->loc, "'%s' needs %s (like %s), got %s",
              key->name, kind_text[key->kind].what, kind_text[key->kind].like,
              got);
  return false;
}

/* Stores a checked value into the struct at `base`. */
static void store(const KeyDesc *key, void *base, double num, const char *str) {
  char *p = (char *)base + key->offset;
  switch (key->kind) {
  case V_STRING: *(const char **)p = str; break;
  case V_INT: *(int *)p = (int)num; break;
  case V_BOOL: *(bool *)p = num != 0; break;
  default: *(double *)p = num; break;
  }
}

/* Applies the `key = value` statements of one block.  `seen` (one Loc per
 * key, file < 0 = unset) catches duplicates.  Returns false on any error. */
static bool apply_assign(Arena *a, const Stmt *s, const KeyDesc *keys, int n,
                         void *base, Target *t, Loc *seen, DiagSink *diags,
                         const char *where) {
  const char *name = s->assign.name.name;
  const KeyDesc *key = find_key(keys, n, name);
  if (!key) {
    const char *sug = suggest_key(keys, n, name);
    Diag *d = sug ? diag_report(diags, SEV_ERROR, NULL, s->assign.name.loc,
                                "unknown %s key '%s'; did you mean '%s'?",
                                where, name, sug)
                  : diag_report(diags, SEV_ERROR, NULL, s->assign.name.loc,
                                "unknown %s key '%s'", where, name);
    if (sug) {
      diag_fixit(d, s->assign.name.loc, sug);
      /* The misspelt key stands for the suggested one: no second error
       * saying that one is missing. */
      const KeyDesc *meant = find_key(keys, n, sug);
      if (seen[meant - keys].file < 0) seen[meant - keys] = s->assign.name.loc;
    }
    return false;
  }
  int idx = (int)(key - keys);
  bool repeatable = t && keys == target_keys && strcmp(name, "source") == 0;
  if (!repeatable && seen[idx].file >= 0) {
    Diag *d = diag_report(diags, SEV_ERROR, NULL, s->assign.name.loc,
                          "duplicate key '%s'", name);
    diag_note(d, seen[idx], "'%s' first set here", name);
    return false;
  }
  seen[idx] = s->assign.name.loc;
  double num = 0;
  const char *str = NULL;
  if (!eval_value(key, s->assign.value, diags, &num, &str)) return false;
  bool numeric = key->kind != V_STRING && key->kind != V_BOOL;
  if (numeric && !(num > 0)) {
    const Expr *v = s->assign.value;
    const Expr *q = v->kind == EX_UNARY ? v->un.operand : v;
    if (q->kind == EX_QUANTITY) /* as written: "-67 TFLOP/s" */
      diag_report(diags, SEV_ERROR, NULL, v->loc,
                  "'%s' must be positive, got %s%g %s", name,
                  v->kind == EX_UNARY ? "-" : "", q->qty.number, q->qty.unit);
    else
      diag_report(diags, SEV_ERROR, NULL, v->loc,
                  "'%s' must be positive, got %g", name, num);
    return false;
  }
  if (key->kind == V_INT && num > 1e9) {
    diag_report(diags, SEV_ERROR, NULL, s->assign.value->loc,
                "'%s' is too large: %g", name, num);
    return false;
  }
  if (numeric && key->kind != V_INT &&
      !(num >= FIGURE_MIN && num <= FIGURE_MAX)) { /* R-TGT-006 */
    diag_report(diags, SEV_ERROR, NULL, s->assign.value->loc,
                "'%s' is out of range: %g (a figure is between %g and %g "
                "in base units)",
                name, num, FIGURE_MIN, FIGURE_MAX);
    return false;
  }
  if (repeatable) {
    t->sources = grow(a, t->sources, (size_t)t->nsources, sizeof *t->sources);
    t->sources[t->nsources++] = str;
    return true;
  }
  if (key->peak != DT_NONE) {
    ((double *)((char *)t + key->offset))[key->peak] = num;
    return true;
  }
  store(key, base, num, str);
  if (key->kind == V_BYTES && base != t) {
    const Expr *v = s->assign.value;
    if (v->kind == EX_QUANTITY)
      ((MemLevel *)base)->capacity_text =
          arena_printf(a, "%g %s", v->qty.number, v->qty.unit);
  }
  return true;
}

/* One error for every required key that is missing, listing them all. */
static void report_missing(const KeyDesc *keys, int n, const Loc *seen,
                           Loc at, const char *what, const char *name,
                           DiagSink *diags, bool *ok) {
  StrBuf list = {0};
  int missing = 0, last = -1;
  for (int i = 0; i < n; i++)
    if (keys[i].required && seen[i].file < 0) missing++;
  for (int i = 0, k = 0; i < n; i++) {
    if (!keys[i].required || seen[i].file >= 0) continue;
    k++;
    sb_printf(&list, "%s'%s'", k == 1 ? "" : k == missing ? " and " : ", ",
              keys[i].name);
    last = i;
  }
  if (last >= 0) {
    diag_report(diags, SEV_ERROR, NULL, at,
                "%s '%s' is missing required key%s %s", what, name,
                missing > 1 ? "s" : "", sb_str(&list));
    *ok = false;
  }
  sb_free(&list);
}

static bool apply_level(Arena *a, const Stmt *s, Target *t, DiagSink *diags) {
  MemLevel lv = {0};
  lv.name = s->def.name.name;
  Loc seen[NLEVEL_KEYS];
  for (int i = 0; i < NLEVEL_KEYS; i++) seen[i] = LOC_NONE;
  bool ok = true;
  for (int i = 0; i < s->def.body.n; i++) {
    const Stmt *k = s->def.body.items[i];
    if (k->kind == ST_ERROR) {
      ok = false;
      continue;
    }
    if (k->kind != ST_ASSIGN) {
      diag_report(diags, SEV_ERROR, NULL, k->loc,
                  "only 'key = value' may appear in a level section");
      ok = false;
      continue;
    }
    ok = apply_assign(a, k, level_keys, NLEVEL_KEYS, &lv, t, seen, diags,
                      "level") && ok;
  }
  report_missing(level_keys, NLEVEL_KEYS, seen, s->def.name.loc, "level",
                 lv.name, diags, &ok);
  for (int i = 0; i < t->nlevels; i++)
    if (strcmp(t->levels[i].name, lv.name) == 0) {
      diag_report(diags, SEV_ERROR, NULL, s->def.name.loc,
                  "duplicate level '%s'", lv.name);
      return false;
    }
  if (!lv.label) lv.label = lv.name;
  t->levels = grow(a, t->levels, (size_t)t->nlevels, sizeof *t->levels);
  t->levels[t->nlevels++] = lv;
  return ok;
}

/* The figure a rate or bandwidth key set in `t` (0: not stated). */
static double key_figure(const KeyDesc *key, const Target *t) {
  const double *p = (const double *)((const char *)t + key->offset);
  return key->peak != DT_NONE ? p[key->peak] : *p;
}

/* R-CEIL-002: an achieved figure qualifies a peak the card states, and a
 * measurement cannot beat the datasheet. */
static bool check_achieved(const Target *t, const Loc *seen, DiagSink *diags) {
  static const char prefix[] = "achieved_";
  bool ok = true;
  for (int i = 0; i < NKEYS; i++) {
    const KeyDesc *key = &target_keys[i];
    if (seen[i].file < 0 || strncmp(key->name, prefix, sizeof prefix - 1))
      continue;
    const KeyDesc *pk = find_key(target_keys, NKEYS, key->name + sizeof prefix - 1);
    double got = key_figure(key, t), peak = key_figure(pk, t);
    if (peak > 0 && got <= peak) continue;
    ok = false;
    if (peak == 0) {
      diag_report(diags, SEV_ERROR, NULL, seen[i],
                  "'%s' qualifies '%s', which target '%s' does not state",
                  key->name, pk->name, t->name);
      continue;
    }
    char g[32], p[32];
    bool rate = key->kind == V_FLOPS;
    Diag *d = diag_report(
        diags, SEV_ERROR, NULL, seen[i], "'%s' is %s, above its peak '%s' (%s)",
        key->name, rate ? fmt_flops_rate(g, sizeof g, got) : fmt_bandwidth(g, sizeof g, got),
        pk->name, rate ? fmt_flops_rate(p, sizeof p, peak) : fmt_bandwidth(p, sizeof p, peak));
    diag_note(d, seen[pk - target_keys], "'%s' set here", pk->name);
  }
  return ok;
}

static const char *ceilings_text(Arena *a, const Target *t) {
  if (t->nfell_back == 0) return "achieved ceilings";
  StrBuf b = {0};
  sb_puts(&b, "achieved ceilings (the peak for ");
  for (int i = 0; i < t->nfell_back; i++)
    sb_printf(&b, "%s%s", i ? ", " : "", t->fell_back[i]);
  sb_puts(&b, ")");
  const char *text = arena_strdup(a, sb_str(&b));
  sb_free(&b);
  return text;
}

static void set_figure(const KeyDesc *key, Target *t, double v) {
  double *p = (double *)((char *)t + key->offset);
  if (key->peak != DT_NONE)
    p[key->peak] = v;
  else
    *p = v;
}

const char *target_achieved_text(Arena *a, const Target *t) {
  static const char prefix[] = "achieved_";
  StrBuf b = {0};
  for (int i = 0; i < NKEYS; i++) {
    const KeyDesc *key = &target_keys[i];
    /* only an achieved key is a figure: `year` and `sms` are ints */
    if (strncmp(key->name, prefix, sizeof prefix - 1)) continue;
    double v = key_figure(key, t);
    if (v == 0) continue;
    char fig[32];
    sb_printf(&b, "%s%s %s", b.len ? ", " : "", key->name + sizeof prefix - 1,
              key->kind == V_FLOPS ? fmt_flops_rate(fig, sizeof fig, v)
                                   : fmt_bandwidth(fig, sizeof fig, v));
  }
  const char *text = b.len ? arena_strdup(a, sb_str(&b)) : NULL;
  sb_free(&b);
  return text;
}

const Target *target_ceilings(Arena *a, const Target *t, Ceilings which) {
  static const char prefix[] = "achieved_";
  if (which != CEILINGS_ACHIEVED) return t;
  Target *c = arena_alloc(a, sizeof *c);
  *c = *t;
  c->ceilings = CEILINGS_ACHIEVED;
  c->fell_back = NULL;
  c->nfell_back = 0;
  for (int i = 0; i < NKEYS; i++) {
    const KeyDesc *key = &target_keys[i];
    if (strncmp(key->name, prefix, sizeof prefix - 1)) continue;
    const KeyDesc *pk = find_key(target_keys, NKEYS, key->name + sizeof prefix - 1);
    double got = key_figure(key, t);
    if (key_figure(pk, t) == 0) continue;
    if (got > 0) {
      set_figure(pk, c, got);
      continue;
    }
    c->fell_back = grow(a, c->fell_back, (size_t)c->nfell_back, sizeof *c->fell_back);
    c->fell_back[c->nfell_back++] = pk->name;
  }
  /* fp8's e5m2 variant has no key: it runs at the e4m3 figure. */
  c->tensor_peak[DT_FP8_E5M2] = c->tensor_peak[DT_FP8_E4M3];
  c->ceilings_text = ceilings_text(a, c);
  return c;
}

Target *target_from_def(Arena *a, const Stmt *def, DiagSink *diags) {
  Target *t = arena_alloc(a, sizeof *t);
  t->name = def->def.name.name;
  t->loc = def->def.name.loc;
  Loc seen[NKEYS];
  for (int i = 0; i < NKEYS; i++) seen[i] = LOC_NONE;
  bool ok = true;
  bool any_peak = false;
  for (int i = 0; i < def->def.body.n; i++) {
    const Stmt *s = def->def.body.items[i];
    switch (s->kind) {
    case ST_ASSIGN:
      ok = apply_assign(a, s, target_keys, NKEYS, t, t, seen, diags,
                        "target") && ok;
      break;
    case ST_SECTION: {
      const char *kind = s->def.kind.name;
      if (strcmp(kind, "level") == 0) {
        ok = apply_level(a, s, t, diags) && ok;
        break;
      }
      const char *sug = util_suggest(kind, section_kinds);
      if (sug)
        diag_report(diags, SEV_ERROR, NULL, s->def.kind.loc,
                    "unknown section '%s' in a target; did you mean '%s'?",
                    kind, sug);
      else
        diag_report(diags, SEV_ERROR, NULL, s->def.kind.loc,
                    "unknown section '%s' in a target; a target holds "
                    "'key = value' lines and 'level NAME { }' sections",
                    kind);
      ok = false;
      break;
    }
    case ST_ERROR:
      ok = false;
      break;
    default:
      diag_report(diags, SEV_ERROR, NULL, s->loc,
                  "'%s' cannot appear in a target; a target holds "
                  "'key = value' lines and 'level NAME { }' sections",
                  stmt_kind_str(s->kind));
      ok = false;
      break;
    }
  }
  report_missing(target_keys, NKEYS, seen, t->loc, "target", t->name, diags,
                 &ok);
  for (int d = 0; d < DT__COUNT; d++)
    any_peak = any_peak || t->vector_peak[d] > 0 || t->tensor_peak[d] > 0;
  if (ok && !any_peak) {
    diag_report(diags, SEV_ERROR, NULL, t->loc,
                "target '%s' states no peak; add one such as "
                "'fp16_tc = 990 TFLOP/s'",
                t->name);
    ok = false;
  }
  if (ok) ok = check_achieved(t, seen, diags);
  if (!ok) return NULL;
  /* fp8 means e4m3; the e5m2 variant runs at the same rate. */
  if (t->tensor_peak[DT_FP8_E5M2] == 0)
    t->tensor_peak[DT_FP8_E5M2] = t->tensor_peak[DT_FP8_E4M3];
  if (t->achieved.tensor_peak[DT_FP8_E5M2] == 0)
    t->achieved.tensor_peak[DT_FP8_E5M2] = t->achieved.tensor_peak[DT_FP8_E4M3];
  if (!t->tile_m) t->tile_m = DEFAULT_TILE;
  if (!t->tile_n) t->tile_n = DEFAULT_TILE;
  if (!t->elements_per_block)
    t->elements_per_block = DEFAULT_ELEMENTS_PER_BLOCK;
  if (!t->gpus_per_node) t->gpus_per_node = DEFAULT_GPUS_PER_NODE;
  if (t->launch_overhead == 0) t->launch_overhead = DEFAULT_LAUNCH_OVERHEAD;
  return t;
}

/* ------------------------------------------------------------ loading */

static const EmbeddedFile *find_embedded(const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < embedded_targets_count; i++) {
    const char *f = embedded_targets[i].name;
    if (f && strncmp(f, name, n) == 0 && strcmp(f + n, ".roof") == 0)
      return &embedded_targets[i];
  }
  return NULL;
}

/* The source-set index of an embedded file, added on first use. */
static int builtin_file(SourceSet *ss, const EmbeddedFile *ef) {
  char path[256];
  snprintf(path, sizeof path, "<builtin>/%s", ef->name);
  for (int i = 0; i < ss->nfiles; i++)
    if (strcmp(ss->files[i]->name, path) == 0) return i;
  char *text = xmalloc(ef->len + 1);
  memcpy(text, ef->text, ef->len);
  text[ef->len] = '\0';
  return src_add(ss, path, text, ef->len);
}

/* Parses a file that must define exactly one target. */
static const Target *load_target_file(Arena *a, SourceSet *ss, int file,
                                      const char *shown, Loc where,
                                      DiagSink *diags) {
  Program *p = parse_file(a, ss, file, diags);
  if (p->nsyntax_errors > 0) return NULL;
  const Stmt *def = NULL;
  int ndefs = 0;
  for (int i = 0; i < p->top.n; i++) {
    const Stmt *s = p->top.items[i];
    if (s->kind == ST_TARGET_DEF) {
      def = s;
      ndefs++;
    } else {
      diag_report(diags, SEV_ERROR, NULL, s->loc,
                  "a target file holds one 'target NAME { }' definition and "
                  "nothing else");
      return NULL;
    }
  }
  if (ndefs != 1) {
    diag_report(diags, SEV_ERROR, NULL, where,
                "target file '%s' must define exactly one target, found %d",
                shown, ndefs);
    return NULL;
  }
  return target_from_def(a, def, diags);
}

static const char *const *builtin_names(Arena *a) {
  const char **names =
      arena_alloc(a, (size_t)(embedded_targets_count + 1) * sizeof *names);
  int k = 0;
  for (int i = 0; i < embedded_targets_count; i++) {
    const char *f = embedded_targets[i].name;
    if (!f || !*f) continue;
    size_t n = strlen(f);
    if (n > 5 && strcmp(f + n - 5, ".roof") == 0) n -= 5;
    names[k++] = arena_strndup(a, f, n);
  }
  names[k] = NULL;
  return names;
}

const TargetSet *target_builtins(Arena *a, SourceSet *ss, DiagSink *diags) {
  TargetSet *set = arena_alloc(a, sizeof *set);
  set->items = arena_alloc(a, (size_t)(embedded_targets_count + 1) *
                                  sizeof *set->items);
  for (int i = 0; i < embedded_targets_count; i++) {
    const EmbeddedFile *ef = &embedded_targets[i];
    if (!ef->name || !*ef->name) continue;
    int file = builtin_file(ss, ef);
    const Target *t = load_target_file(a, ss, file, ef->name, LOC_NONE, diags);
    if (t) set->items[set->n++] = (Target *)t;
  }
  return set;
}

static bool looks_like_path(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') || (n > 5 && strcmp(s + n - 5, ".roof") == 0);
}

const Target *target_resolve(Arena *a, SourceSet *ss, const char *name_or_file,
                             const Unit *u, Loc where, DiagSink *diags) {
  const char *name = name_or_file;
  if (looks_like_path(name)) {
    /* Loaded already (cli.c reads every -t FILE once, up front)? */
    int file = -1;
    for (int i = 0; i < ss->nfiles && file < 0; i++)
      if (strcmp(src_file(ss, i)->name, name) == 0) file = i;
    char *err = NULL;
    if (file < 0) file = src_load(ss, name, &err);
    if (file < 0) {
      diag_report(diags, SEV_ERROR, NULL, where, "target file: %s", err);
      free(err);
      return NULL;
    }
    return load_target_file(a, ss, file, name, where, diags);
  }
  if (u)
    for (int i = 0; i < u->ntarget_defs; i++) {
      const Stmt *def = u->target_defs[i];
      if (strcmp(def->def.name.name, name) == 0)
        return target_from_def(a, def, diags);
    }
  const EmbeddedFile *ef = find_embedded(name);
  if (ef) {
    int file = builtin_file(ss, ef);
    return load_target_file(a, ss, file, ef->name, where, diags);
  }
  /* Suggest among the built-ins and this file's own definitions. */
  const char *const *builtins = builtin_names(a);
  int nb = 0;
  while (builtins[nb]) nb++;
  int nd = u ? u->ntarget_defs : 0;
  const char **cands = arena_alloc(a, (size_t)(nb + nd + 1) * sizeof *cands);
  for (int i = 0; i < nb; i++) cands[i] = builtins[i];
  for (int i = 0; i < nd; i++) cands[nb + i] = u->target_defs[i]->def.name.name;
  cands[nb + nd] = NULL;
  const char *sug = NULL; /* H100_SXM: the case is the only difference */
  for (int i = 0; cands[i] && !sug; i++)
    if (strcasecmp(cands[i], name) == 0) sug = cands[i];
  if (!sug) sug = util_suggest(name, cands);
  /* A name that begins a built-in one ("h100" -> "h100_sxm") is a likely
   * intent even when the edit distance is large. */
  if (!sug)
    for (int i = 0; cands[i]; i++) {
      if (strncmp(cands[i], name, strlen(name)) != 0) continue;
      /* Several ("h100" -> h100_pcie, h100_sxm): the shortest, then the
       * first in order, which names the flagship form. */
      if (!sug || strlen(cands[i]) < strlen(sug) ||
          (strlen(cands[i]) == strlen(sug) && strcmp(cands[i], sug) < 0))
        sug = cands[i];
    }
  if (sug)
    diag_report(diags, SEV_ERROR, NULL, where,
                "unknown target '%s'; did you mean '%s'?", name, sug);
  else
    diag_report(diags, SEV_ERROR, NULL, where,
                "unknown target '%s'; 'rooflint targets' lists the built-in "
                "ones",
                name);
  return NULL;
}

double target_peak(const Target *t, DType precision, bool contraction,
                   bool *uses_tensor) {
  bool tensor = false;
  double peak = 0;
  DType p = precision == DT_NONE ? DT_FP32 : precision;
  if (contraction && p != DT_FP32) {
    peak = t->tensor_peak[p];
    /* int4 runs on the int8 path where no int4 rate is published. */
    if (peak == 0 && p == DT_INT4) peak = t->tensor_peak[DT_INT8];
    tensor = peak > 0;
  }
  if (peak == 0) {
    /* tf32 is a tensor-core mode of fp32 storage: without it, plain fp32. */
    DType v = p == DT_TF32 ? DT_FP32 : p;
    peak = t->vector_peak[v];
  }
  /* A precision with no published rate of its own runs at the fp32 rate
   * (e.g. fp16 elementwise on a part that states only fp32). */
  if (peak == 0) peak = t->vector_peak[DT_FP32];
  if (peak == 0) {
    for (int d = 0; d < DT__COUNT && peak == 0; d++) peak = t->vector_peak[d];
    for (int d = 0; d < DT__COUNT && peak == 0; d++) {
      peak = t->tensor_peak[d];
      tensor = peak > 0;
    }
  }
  if (uses_tensor) *uses_tensor = tensor;
  return peak;
}

double target_headline_peak(const Target *t) {
  return target_peak(t, DT_FP16, true, NULL);
}
