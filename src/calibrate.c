/* SPDX-License-Identifier: MIT */
/*
 * calibrate.c: `rooflint calibrate`.  The measuring is PyTorch's, in
 * share/rooflint/calibrate.py (a user with a GPU has torch; rooflint does
 * not link it): this module finds the script beside the binary, runs it
 * under the --seconds bound, reads the JSON document it prints, and writes
 * the target card: the built-in card of the device with the measured
 * figures added as achieved_ ceilings, or, for a device no datasheet card
 * describes (a CPU), a card whose peaks are the measured figures.  The
 * card is parsed as `-t FILE` would parse it before it is written, so what
 * calibrate writes is always a card rooflint accepts.  specs/calibrate.md
 * holds the rules (R-CAL-NNN) cited here.
 */
#include "calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The script's exit statuses besides 0 (calibrate.py's docstring). */
enum { SCRIPT_NO_TORCH = 3, SCRIPT_NO_DEVICE = 4, SCRIPT_OUT_OF_TIME = 5 };
/* More than any document the script prints; the rest is not read. */
enum { MAX_SCRIPT_OUTPUT = 1 << 20 };
/* How many of the script's last lines of standard error a failure quotes. */
enum { QUOTED_ERROR_LINES = 6 };

typedef enum CardUnit { CU_FLOPS, CU_BANDWIDTH, CU_TIME } CardUnit;

/* R-CAL-004: what the script may measure, in the order the card lists it:
 * the peak key each figure stands beside, and where a Target holds that
 * peak (a rate's precision and unit, or a bandwidth's field).  Every one
 * but the launch overhead (a model parameter, R-CEIL-001) has its
 * achieved_ twin. */
typedef struct MeasuredKey {
  const char *key;
  CardUnit unit;
  bool achieved;
  DType dtype;   /* a rate's precision */
  bool tensor;   /* a rate on tensor cores */
  size_t field;  /* a bandwidth's offset in Target */
} MeasuredKey;

#define RATE(key, dt, tc) {key, CU_FLOPS, true, dt, tc, 0}
#define BANDWIDTH(key) {#key, CU_BANDWIDTH, true, DT_NONE, false, offsetof(Target, key)}
static const MeasuredKey measured_keys[] = {
    BANDWIDTH(memory_bw),
    RATE("fp32", DT_FP32, false),
    RATE("fp16", DT_FP16, false),
    RATE("bf16", DT_BF16, false),
    RATE("tf32_tc", DT_TF32, true),
    RATE("fp16_tc", DT_FP16, true),
    RATE("bf16_tc", DT_BF16, true),
    RATE("fp8_tc", DT_FP8_E4M3, true),
    BANDWIDTH(pcie_bw),
    BANDWIDTH(nvlink_bw),
    {"launch_overhead", CU_TIME, false, DT_NONE, false, 0},
};
enum { NMEASURED_KEYS = sizeof measured_keys / sizeof *measured_keys };

/* The card's own peak for a measured key, 0 where it states none. */
static double peak_of(const Target *t, const MeasuredKey *k) {
  if (k->unit == CU_FLOPS)
    return k->tensor ? t->tensor_peak[k->dtype] : t->vector_peak[k->dtype];
  return k->field ? *(const double *)((const char *)t + k->field) : 0;
}

/* The script's document, as read (strings in the arena). */
typedef struct Calibration {
  const char *kind, *name, *torch, *python, *date, *runtime;
  long long units; /* SMs, CUs, or the CPU threads torch ran on */
  double memory;   /* bytes */
  int gpus;
  double value[NMEASURED_KEYS]; /* 0: not measured */
  const char *method[NMEASURED_KEYS];
  const char *skipped; /* "what (why); ..." or NULL */
} Calibration;

/* ------------------------------------------------------------ reading */

static const char *json_text(Arena *a, const json_t *obj, const char *key) {
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? arena_strdup(a, s) : NULL;
}

static int measured_index(const char *key) {
  for (int i = 0; i < NMEASURED_KEYS; i++)
    if (strcmp(measured_keys[i].key, key) == 0) return i;
  return -1;
}

/* One entry of "measured": a key of the table, a positive finite value. */
static bool read_measured(Arena *a, const json_t *m, Calibration *c,
                          DiagSink *diags) {
  const char *key = json_string_value(json_object_get(m, "key"));
  const json_t *v = json_object_get(m, "value");
  int i = key ? measured_index(key) : -1;
  double value = json_is_number(v) ? json_number_value(v) : NAN;
  if (i < 0) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "calibrate.py measured a figure rooflint has no key for: '%s'",
                key ? key : "(none)");
    return false;
  }
  if (!isfinite(value) || value <= 0) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "calibrate.py measured %s as %g: a figure must be positive",
                key, value);
    return false;
  }
  c->value[i] = value;
  c->method[i] = json_text(a, m, "method");
  return true;
}

static const char *read_skipped(Arena *a, const json_t *list) {
  StrBuf sb = {0};
  size_t i;
  const json_t *s;
  json_array_foreach(list, i, s) {
    const char *what = json_string_value(json_object_get(s, "what"));
    const char *why = json_string_value(json_object_get(s, "why"));
    sb_printf(&sb, "%s%s (%s)", i ? "; " : "", what ? what : "?",
              why ? why : "?");
  }
  const char *text = i ? arena_strdup(a, sb_str(&sb)) : NULL;
  sb_free(&sb);
  return text;
}

static bool read_calibration(Arena *a, const char *json, size_t len,
                             Calibration *c, DiagSink *diags) {
  json_error_t err;
  json_t *doc = json_loadb(json, len, 0, &err);
  const json_t *measured = json_object_get(doc, "measured");
  memset(c, 0, sizeof *c);
  bool ok = json_is_array(measured);
  if (ok) {
    c->kind = json_text(a, doc, "device");
    c->name = json_text(a, doc, "name");
    c->torch = json_text(a, doc, "torch");
    c->python = json_text(a, doc, "python");
    c->date = json_text(a, doc, "date");
    c->runtime = json_text(a, doc, "runtime");
    c->units = json_integer_value(json_object_get(doc, "units"));
    c->memory = json_number_value(json_object_get(doc, "memory"));
    c->gpus = (int)json_integer_value(json_object_get(doc, "gpus"));
    c->skipped = read_skipped(a, json_object_get(doc, "skipped"));
    ok = c->kind && c->name && c->torch && c->date && c->units > 0 &&
         c->memory > 0;
  }
  size_t i;
  const json_t *m;
  json_array_foreach(measured, i, m) ok = ok && read_measured(a, m, c, diags);
  if (!ok && diags->nerrors == 0)
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "calibrate.py's output is not the document rooflint reads%s%s",
                doc ? "" : ": ", doc ? "" : err.text);
  json_decref(doc);
  return ok;
}

/* ------------------------------------------------------------ writing */

/* R-CAL-007: text from the device or the script as a .roof string: quotes
 * and backslashes escaped, control and non-ASCII bytes as '?', so no byte
 * of it can end the string or reach a terminal raw when the card is
 * printed. */
static void put_string(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  for (size_t i = 0; s && s[i] && i < 400; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') sb_putc(sb, '\\');
    sb_putc(sb, ch < 0x20 || ch >= 0x7f ? '?' : (char)ch);
  }
  sb_putc(sb, '"');
}

/* `  source = "..."` with the text escaped (put_string). */
static void put_source(StrBuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void put_source(StrBuf *sb, const char *fmt, ...) {
  StrBuf text = {0};
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&text, fmt, ap);
  va_end(ap);
  sb_puts(sb, "  source = ");
  put_string(sb, sb_str(&text));
  sb_putc(sb, '\n');
  sb_free(&text);
}

/* A figure in the largest unit that leaves it at 1 or more, to four
 * significant digits ("27.05 GB/s", "3.408 us"), as the lexer reads it
 * back (R-LEX-007's units, no exponent). */
static void put_quantity(StrBuf *sb, double v, CardUnit unit) {
  static const struct {
    CardUnit unit;
    double scale;
    const char *name;
  } units[] = {
      {CU_FLOPS, 1e15, "PFLOP/s"},  {CU_FLOPS, 1e12, "TFLOP/s"},
      {CU_FLOPS, 1e9, "GFLOP/s"},   {CU_FLOPS, 1, "FLOP/s"},
      {CU_BANDWIDTH, 1e12, "TB/s"}, {CU_BANDWIDTH, 1e9, "GB/s"},
      {CU_BANDWIDTH, 1e6, "MB/s"},  {CU_BANDWIDTH, 1, "B/s"},
      {CU_TIME, 1, "s"},            {CU_TIME, 1e-3, "ms"},
      {CU_TIME, 1e-6, "us"},        {CU_TIME, 1e-9, "ns"},
  };
  int pick = -1;
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    if (units[i].unit != unit) continue;
    pick = (int)i; /* the rows of a unit run from the largest down */
    if (v >= units[i].scale) break;
  }
  sb_printf(sb, "%.4g %s", v / units[pick].scale, units[pick].name);
}

static void put_key(StrBuf *sb, const char *prefix, const MeasuredKey *k,
                    double v) {
  sb_printf(sb, "  %s%s = ", prefix, k->key);
  put_quantity(sb, v, k->unit);
  sb_putc(sb, '\n');
}

/* R-CEIL-002: an achieved figure is at most its peak and qualifies a peak
 * the card states.  Against a datasheet card a measurement can break
 * either (fp16 with fp16 accumulation on a GeForce, NVLink SHARP's
 * all-reduce above the per-direction link rate, an all-reduce over PCIe on
 * a card with no NVLink): the figure is then said in a source line, and
 * written at the peak or not at all. */
static double achieved_within(StrBuf *sb, const MeasuredKey *k, double v,
                              const Target *card) {
  double peak = card ? peak_of(card, k) : v;
  if (peak > 0 && v <= peak) return v;
  StrBuf got = {0}, top = {0};
  put_quantity(&got, v, k->unit);
  if (peak > 0) {
    put_quantity(&top, peak, k->unit);
    put_source(sb, "%s: measured %s, above the card's peak %s: achieved_%s "
                   "is written at the peak", k->key, sb_str(&got), sb_str(&top),
               k->key);
  } else {
    put_source(sb, "%s: measured %s, but the card states no %s peak, so it "
                   "has no achieved_%s", k->key, sb_str(&got), k->key, k->key);
  }
  sb_free(&got);
  sb_free(&top);
  return peak;
}

/* The measured figures: each one's method as a source line, then the
 * figure under its achieved_ key; with no datasheet card (`card` NULL) the
 * peak key too (R-CAL-005).  The launch overhead is a model parameter,
 * not a ceiling: the measurement replaces it. */
static void put_measured(StrBuf *sb, const Calibration *c, const Target *card) {
  for (int i = 0; i < NMEASURED_KEYS; i++) {
    const MeasuredKey *k = &measured_keys[i];
    if (c->value[i] <= 0) continue;
    put_source(sb, "%s: %s", k->key, c->method[i] ? c->method[i] : "measured");
    if (!card || !k->achieved) put_key(sb, "", k, c->value[i]);
    double v = k->achieved ? achieved_within(sb, k, c->value[i], card) : 0;
    if (v > 0) put_key(sb, "achieved_", k, v);
  }
}

/* Who measured what, when, with which versions: the card's first source. */
static void put_provenance(StrBuf *sb, const Calibration *c) {
  put_source(sb,
             CALIBRATED_SOURCE "%s, %s: PyTorch %s (Python %s, %s) on the "
             "%s '%s'",
             ROOFLINT_VERSION, c->date, c->torch, c->python ? c->python : "?",
             c->runtime ? c->runtime : "?",
             strcmp(c->kind, "cuda") == 0 ? "GPU" : "CPU", c->name);
  if (c->skipped) put_source(sb, "not measured: %s", c->skipped);
}

/* R-CAL-005: a device no built-in card describes (a CPU, a GPU with no
 * datasheet card): its peaks are the measured figures.  A CPU has no
 * host-device link; the memory bandwidth stands for pcie_bw, which every
 * card states. */
static void own_card(StrBuf *sb, const Calibration *c) {
  bool gpu = strcmp(c->kind, "cuda") == 0;
  int bw = measured_index("memory_bw"), pcie = measured_index("pcie_bw");
  sb_printf(sb, "# Measured by `rooflint calibrate` on %s (docs/calibrate.md).\n",
            c->date);
  sb_printf(sb, "target %s_calibrated {\n  display = ", gpu ? "gpu" : "cpu");
  put_string(sb, c->name);
  sb_putc(sb, '\n');
  put_provenance(sb, c);
  put_source(sb, MEASURED_PEAKS_SOURCE ": each peak is the figure measured "
                 "here, and its achieved_ ceiling the same");
  sb_printf(sb, "  sms = %lld\n  memory = %.4g GiB\n", c->units,
            c->memory / (1024.0 * 1024 * 1024));
  sb_printf(sb, "  gpus_per_node = %d\n", c->gpus > 1 ? c->gpus : 1);
  put_measured(sb, c, NULL);
  if (c->value[pcie] <= 0) {
    put_source(sb, "pcie_bw: %s; the memory bandwidth measured stands for it",
               gpu ? "the host-device copy was not measured"
                   : "a CPU has no host-device link");
    put_key(sb, "", &measured_keys[pcie], c->value[bw]);
  }
  sb_puts(sb, "}\n");
}

/* Whether `line` sets a key the measured block writes (the built-in's own
 * launch overhead or published achieved_ figures), which the block then
 * replaces rather than repeats. */
static bool replaced_line(const char *line, size_t len, const Calibration *c) {
  while (len > 0 && (*line == ' ' || *line == '\t')) line++, len--;
  bool achieved = len > 9 && memcmp(line, "achieved_", 9) == 0;
  const char *key = achieved ? line + 9 : line;
  for (int i = 0; i < NMEASURED_KEYS; i++) {
    size_t n = strlen(measured_keys[i].key);
    if (c->value[i] <= 0 || (size_t)(key - line) + n >= len ||
        strncmp(key, measured_keys[i].key, n) != 0)
      continue;
    const char *rest = key + n;
    while (*rest == ' ' || *rest == '\t') rest++;
    if (*rest == '=' && (achieved || !measured_keys[i].achieved)) return true;
  }
  return false;
}

/* R-CAL-006: a GPU that is a built-in target: that card, renamed, its
 * datasheet peaks kept, and the measured figures added before its closing
 * brace as achieved_ ceilings. */
static void builtin_card(StrBuf *sb, const Calibration *c, const Target *t) {
  const EmbeddedFile *ef = NULL;
  for (int i = 0; i < embedded_targets_count && !ef; i++)
    if (strncmp(embedded_targets[i].name, t->name, strlen(t->name)) == 0 &&
        strcmp(embedded_targets[i].name + strlen(t->name), ".roof") == 0)
      ef = &embedded_targets[i];
  sb_printf(sb, "# The built-in %s card (specs/targets/%s.roof) with the "
                "ceilings\n# measured by `rooflint calibrate` on %s added at "
                "its end.\n", t->name, t->name, c->date);
  const char *text = ef->text, *end = ef->text + ef->len;
  const char *close = end;
  while (close > text && close[-1] != '}') close--;
  char header[128];
  int hlen = snprintf(header, sizeof header, "target %s ", t->name);
  for (const char *line = text; line < close - 1;) {
    const char *nl = memchr(line, '\n', (size_t)(close - 1 - line));
    size_t len = nl ? (size_t)(nl - line) + 1 : (size_t)(close - 1 - line);
    if (strncmp(line, header, (size_t)hlen) == 0)
      sb_printf(sb, "target %s_calibrated %.*s", t->name, (int)len - hlen,
                line + hlen);
    else if (!replaced_line(line, len, c))
      sb_putn(sb, line, len);
    line += len;
  }
  sb_puts(sb, "\n  # Measured by rooflint calibrate (docs/calibrate.md).\n");
  put_provenance(sb, c);
  put_measured(sb, c, t);
  sb_puts(sb, "}\n");
}

/* ----------------------------------------------------------- matching */

/* The words of a name ("NVIDIA A100-SXM4-80GB": NVIDIA, A100, SXM4, 80GB),
 * at most `max`, each at most 31 bytes, upper-cased. */
static int name_words(const char *s, char words[][32], int max) {
  int n = 0;
  while (*s && n < max) {
    while (*s && !((*s >= '0' && *s <= '9') || ((*s | 32) >= 'a' && (*s | 32) <= 'z')))
      s++;
    int k = 0;
    for (; (*s >= '0' && *s <= '9') || ((*s | 32) >= 'a' && (*s | 32) <= 'z'); s++)
      if (k < 31) words[n][k++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
    words[n][k] = '\0';
    if (k > 0) n++;
  }
  return n;
}

/* A form factor's family: SXM, SXM2, SXM4 are one; PCIe; NVL. */
static int form_of(const char *word) {
  if (strncmp(word, "SXM", 3) == 0) return 1;
  if (strcmp(word, "PCIE") == 0) return 2;
  if (strcmp(word, "NVL") == 0) return 4;
  return 0;
}

static bool is_vendor_word(const char *w) {
  static const char *const vendors[] = {"NVIDIA", "AMD", "INSTINCT", "GEFORCE",
                                        "TESLA", NULL};
  for (int i = 0; vendors[i]; i++)
    if (strcmp(w, vendors[i]) == 0) return true;
  return false;
}

/* 0: `display` is not the device; 1: it may be (every model word of the
 * card's display is a word of the device's name, the SM count is the
 * card's, no form factor differs); 2: its form factor is named too. */
static int match_score(const Target *t, char dev[][32], int ndev, int units) {
  char words[16][32];
  int n = name_words(t->display ? t->display : "", words, 16), dev_form = 0;
  for (int k = 0; k < ndev; k++) dev_form |= form_of(dev[k]);
  if (t->sms != units) return 0;
  int card_form = 0;
  for (int i = 0; i < n; i++) {
    card_form |= form_of(words[i]);
    if (form_of(words[i]) || is_vendor_word(words[i])) continue;
    bool found = false;
    for (int k = 0; k < ndev && !found; k++) found = strcmp(words[i], dev[k]) == 0;
    if (!found) return 0;
  }
  if (dev_form && !(dev_form & card_form)) return 0;
  return dev_form ? 2 : 1;
}

/* R-CAL-006: the one best card, or none where two tie. */
const Target *calibrate_match(const TargetSet *builtins, const char *device,
                              int units) {
  char dev[16][32];
  int ndev = name_words(device, dev, 16);
  const Target *best = NULL;
  int best_score = 0, ties = 0;
  for (int i = 0; i < builtins->n; i++) {
    int s = match_score(builtins->items[i], dev, ndev, units);
    if (s > best_score) {
      best = builtins->items[i];
      best_score = s;
      ties = 0;
    } else if (s > 0 && s == best_score) {
      ties++;
    }
  }
  return ties ? NULL : best;
}

static char *card_of(Arena *a, SourceSet *ss, const Calibration *cal,
                     DiagSink *diags) {
  const Calibration c = *cal;
  int bw = measured_index("memory_bw");
  if (c.value[bw] <= 0) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "calibrate.py did not measure the memory bandwidth, which "
                "every card states");
    return NULL;
  }
  const Target *t = NULL;
  if (strcmp(c.kind, "cuda") == 0) {
    DiagSink quiet;
    diag_sink_init(&quiet);
    t = calibrate_match(target_builtins(a, ss, &quiet), c.name, (int)c.units);
    diag_sink_free(&quiet);
  }
  StrBuf sb = {0};
  if (t)
    builtin_card(&sb, &c, t);
  else
    own_card(&sb, &c);
  char *card = arena_strdup(a, sb_str(&sb));
  sb_free(&sb);
  return card;
}

char *calibrate_card(Arena *a, SourceSet *ss, const char *json, size_t len,
                     DiagSink *diags) {
  Calibration c;
  return read_calibration(a, json, len, &c, diags) ? card_of(a, ss, &c, diags)
                                                   : NULL;
}

/* ------------------------------------------------------------ running */

static double now_epoch(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* R-CAL-002: the script is found from the binary's own place: bin/rooflint
 * and share/rooflint/calibrate.py are siblings under an install prefix
 * (`make install`), and build/rooflint and share/rooflint/ are siblings in
 * the source tree. */
static const char *script_path(Arena *a) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return NULL;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (!slash) return NULL;
  slash[slash == self] = '\0';
  char *dir = realpath(self, NULL);
  char *up = dir ? strrchr(dir, '/') : NULL;
  if (up) up[up == dir] = '\0'; /* the prefix: bin/.. */
  const char *path =
      dir ? arena_printf(a, "%s%sshare/rooflint/calibrate.py", dir,
                         strcmp(dir, "/") == 0 ? "" : "/")
          : NULL;
  free(dir);
  return path;
}

/* R-CAL-001: ROOFLINT_PYTHON, else python3 on PATH. */
static const char *python_path(void) {
  const char *p = getenv("ROOFLINT_PYTHON");
  return p && *p ? p : "python3";
}

typedef struct Child {
  pid_t pid;
  int fd[2];        /* its standard output and error, read ends */
  StrBuf text[2];   /* what each said, MAX_SCRIPT_OUTPUT at most */
} Child;

static int spawn_script(Child *ch, const char *python, const char *script,
                        const char *device, double deadline) {
  int pipes[2][2];
  if (pipe(pipes[0]) != 0) return errno;
  if (pipe(pipes[1]) != 0) {
    int e = errno;
    close(pipes[0][0]), close(pipes[0][1]);
    return e;
  }
  for (int i = 0; i < 2; i++) {
    fcntl(pipes[i][0], F_SETFD, FD_CLOEXEC);
    fcntl(pipes[i][1], F_SETFD, FD_CLOEXEC);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipes[0][1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, pipes[1][1], STDERR_FILENO);
  char when[64];
  snprintf(when, sizeof when, "%.3f", deadline);
  char *argv[] = {(char *)python, (char *)script, "--device", (char *)device,
                  "--deadline", when, NULL};
  int e = posix_spawnp(&ch->pid, python, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  for (int i = 0; i < 2; i++) {
    close(pipes[i][1]);
    ch->fd[i] = pipes[i][0];
    if (e != 0) close(pipes[i][0]);
  }
  return e;
}

/* Reads both pipes to their ends; false if the deadline comes first. */
static bool collect(Child *ch, double deadline) {
  struct pollfd fds[2] = {{ch->fd[0], POLLIN, 0}, {ch->fd[1], POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    double left = deadline - now_epoch();
    if (left <= 0) return false;
    int r = poll(fds, 2, (int)(left * 1000) + 1);
    if (r < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2 && r > 0; i++) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0 && ch->text[i].len + (size_t)n <= MAX_SCRIPT_OUTPUT)
        sb_putn(&ch->text[i], buf, (size_t)n);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = ch->fd[i] = -1;
        open--;
      }
    }
  }
  return true;
}

/* Its exit status once it has exited, or -1 when the deadline came first
 * (it is then killed). */
static int wait_script(Child *ch, double deadline, bool in_time) {
  int st = 0;
  while (in_time) {
    pid_t r = waitpid(ch->pid, &st, WNOHANG);
    if (r == ch->pid)
      return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (r < 0 && errno != EINTR) return -1;
    if (now_epoch() >= deadline) break;
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
  kill(ch->pid, SIGKILL);
  while (waitpid(ch->pid, &st, 0) < 0 && errno == EINTR) continue;
  return -1;
}

/* The last QUOTED_ERROR_LINES lines of what the script said on standard
 * error, as notes (the renderer escapes them). */
static void quote_errors(Diag *d, const char *text) {
  const char *start = text + strlen(text);
  for (int n = 0; start > text && n <= QUOTED_ERROR_LINES;)
    if (*--start == '\n' && start[1] != '\0') n++;
  if (*start == '\n') start++;
  for (const char *line = start; *line;) {
    size_t len = strcspn(line, "\n");
    if (len) diag_note(d, LOC_NONE, "%.*s", (int)len, line);
    line += len + (line[len] == '\n');
  }
}

static const char install_torch[] =
    "install PyTorch (pip install torch, or Debian's python3-torch) or set "
    "ROOFLINT_PYTHON to a Python that has it";

/* R-CAL-003: each way the script can fail, said in the user's terms. */
static void script_failed(int status, const Child *ch, const char *python,
                          const CalibrateOptions *o, DiagSink *diags) {
  const char *err = sb_str(&ch->text[1]);
  Diag *d = NULL;
  if (status == SCRIPT_NO_TORCH)
    d = diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                    "'%s' cannot import torch: calibrate measures with "
                    "PyTorch; %s", python, install_torch);
  else if (status == SCRIPT_NO_DEVICE)
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "--device cuda: PyTorch sees no CUDA device (a CPU-only "
                "torch, or no driver); --device cpu or auto measures the CPU");
  else if (status == SCRIPT_OUT_OF_TIME || status < 0)
    d = diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                    "the calibration did not finish within --seconds %g "
                    "(Python and torch take seconds to start): give it more",
                    o->seconds);
  else
    d = diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                    "calibrate.py failed (%s %d)",
                    status > 128 ? "signal" : "exit status",
                    status > 128 ? status - 128 : status);
  if (d) quote_errors(d, err);
}

/* Runs the script; its document in ch->text[0], or false after an error. */
static bool run_script(const CalibrateOptions *o, const char *script,
                       Child *ch, DiagSink *diags) {
  static const char *const device_names[] = {"auto", "cpu", "cuda"};
  const char *python = python_path();
  double deadline = now_epoch() + o->seconds;
  int e = spawn_script(ch, python, script, device_names[o->device], deadline);
  if (e != 0) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "cannot run '%s' (%s): calibrate measures with PyTorch; "
                "install Python 3 and %s", python, strerror(e),
                install_torch + strlen("install "));
    return false;
  }
  bool in_time = collect(ch, deadline);
  for (int i = 0; i < 2; i++)
    if (ch->fd[i] >= 0 && !in_time) close(ch->fd[i]);
  int status = wait_script(ch, deadline, in_time);
  if (status != 0) script_failed(status, ch, python, o, diags);
  return status == 0;
}

/* R-CAL-008: -o names neither the script nor rooflint itself (compared by
 * device and inode), so a slip of the command line cannot destroy them. */
static bool output_allowed(const char *output, const char *script,
                           DiagSink *diags) {
  struct stat out, in;
  if (!output || strcmp(output, "-") == 0 || stat(output, &out) != 0)
    return true;
  const char *inputs[] = {script, "/proc/self/exe"};
  for (int i = 0; i < 2; i++)
    if (stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino) {
      diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                  "refusing to write the card over '%s', which is %s",
                  output, i ? "rooflint itself" : "the calibration script");
      return false;
    }
  if (S_ISDIR(out.st_mode)) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "cannot write the card to '%s': a directory", output);
    return false;
  }
  return true;
}

/* The card into a file beside `output`, renamed over it once whole: a
 * failed write leaves what was there. */
static bool write_file(Arena *a, const char *output, const char *card,
                       DiagSink *diags) {
  char *tmp = arena_printf(a, "%s.XXXXXX", output);
  int fd = mkstemp(tmp);
  mode_t mask = umask(0);
  umask(mask);
  if (fd >= 0) fchmod(fd, 0666 & ~mask); /* as fopen would create it */
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f && fputs(card, f) >= 0;
  if (f) ok = fclose(f) == 0 && ok;
  else if (fd >= 0) close(fd);
  int e = errno;
  if (ok && rename(tmp, output) != 0) ok = false, e = errno;
  if (!ok) {
    if (fd >= 0) unlink(tmp);
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE, "cannot write '%s': %s",
                output, strerror(e));
  }
  return ok;
}

/* What was measured, for a run whose card went to a file. */
static void summary(FILE *out, const char *output, const Calibration *c) {
  fputs("wrote ", out);
  diag_put_text(out, output);
  fputs(": the ceilings of the ", out);
  fputs(strcmp(c->kind, "cuda") == 0 ? "GPU '" : "CPU '", out);
  diag_put_text(out, c->name);
  fputs("' (rooflint -t FILE reads it)\n", out);
  for (int i = 0; i < NMEASURED_KEYS; i++) {
    if (c->value[i] <= 0) continue;
    StrBuf q = {0};
    put_quantity(&q, c->value[i], measured_keys[i].unit);
    fprintf(out, "  %-16s %s\n", measured_keys[i].key, sb_str(&q));
    sb_free(&q);
  }
  if (c->skipped) {
    fputs("  not measured: ", out);
    diag_put_text(out, c->skipped);
    fputc('\n', out);
  }
}

int calibrate_run(const CalibrateOptions *o, Arena *a, SourceSet *ss,
                  DiagSink *diags, FILE *out) {
  const char *script = script_path(a);
  if (!script || access(script, R_OK) != 0) {
    diag_report(diags, SEV_ERROR, NULL, LOC_NONE,
                "cannot find the calibration script%s%s%s (make install puts "
                "it in PREFIX/share/rooflint/, beside PREFIX/bin/rooflint)",
                script ? " '" : "", script ? script : "", script ? "'" : "");
    return 2;
  }
  if (!output_allowed(o->output, script, diags)) return 2;
  Child ch = {0};
  ch.fd[0] = ch.fd[1] = -1;
  Calibration c;
  bool ok = run_script(o, script, &ch, diags) &&
            read_calibration(a, sb_str(&ch.text[0]), ch.text[0].len, &c, diags);
  char *card = ok ? card_of(a, ss, &c, diags) : NULL;
  sb_free(&ch.text[0]);
  sb_free(&ch.text[1]);
  if (!card) return 2;
  /* R-CAL-005: checked as `-t FILE` reads a card before anyone sees it */
  const char *name = "<calibrate>/card.roof";
  src_add(ss, name, xstrdup(card), strlen(card));
  if (!target_resolve(a, ss, name, NULL, LOC_NONE, diags)) return 2;
  if (!o->output || strcmp(o->output, "-") == 0) {
    fputs(card, out);
    return 0;
  }
  if (!write_file(a, o->output, card, diags)) return 2;
  summary(out, o->output, &c);
  return 0;
}
