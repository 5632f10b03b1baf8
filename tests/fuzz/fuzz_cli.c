/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cli.c: the libFuzzer target for the command line.  src/main.c itself
 * is linked in (as rooflint_main, tests/fuzz/cli_shim.h), so every mode runs
 * through the same option table, validation and pipeline as the tool, with
 * a real standard output (/dev/null, or /dev/full to test write errors) and
 * the input as a real file.  The input's first byte, when it is 0x80 or
 * above, chooses a mode (a row of `modes`, and bit 0x40: stdout on
 * /dev/full) and its second byte the values the mode uses (a --sweep list,
 * a -D value, --dtype entries, which `let` of the input to sweep or
 * define); the rest is the .roof text.  Any other input is linted plainly.
 *
 * The modes cover what fuzz_rooflint.c cannot reach: --sweep and -D of a
 * let found in the input (with extreme values), --dtype what-ifs, --plan,
 * --plot to a file and to stdout, diff of the input against a copy of it
 * whose second half has other numbers, the input as a -t target file, two
 * inputs in one run, the subcommands, and a mode whose argv is the input's
 * first line (words that could name or write a file outside the scratch
 * directory are dropped).  A crash, a sanitizer report, a leak, a timeout
 * or a run-away allocation is a bug.
 *
 * Built and run by `make fuzz` (tests/fuzz/run.sh) with -close_fd_mask=3:
 * the tool's stderr is discarded, libFuzzer's and the sanitizers' reports
 * are not.
 */
#include "rooflint.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int rooflint_main(int argc, char **argv);
int fuzz_fclose(FILE *f);

/* main.c's fclose(stdout) (cli_shim.h): a flush that reports a failed
 * write as fclose would, and leaves stdout open for the next run. */
int fuzz_fclose(FILE *f) {
  if (f != stdout) return fclose(f);
  int r = fflush(f);
  return r == 0 && !ferror(f) ? 0 : EOF;
}

/* The process's scratch directory and the descriptors stdout is pointed
 * at; set once by LLVMFuzzerInitialize (libFuzzer's process, not the
 * tool's state). */
static char scratch[64];
static int null_fd = -1, full_fd = -1;

static void remove_scratch(void) {
  DIR *d = opendir(scratch);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
    unlink(path);
  }
  closedir(d);
}

static void remove_scratch_dir(void) {
  remove_scratch();
  rmdir(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(scratch, sizeof scratch, "%s/rooflint-fuzz-XXXXXX", tmp);
  if (!mkdtemp(scratch)) abort();
  atexit(remove_scratch_dir);
  null_fd = open("/dev/null", O_RDWR);
  full_fd = open("/dev/full", O_WRONLY);
  if (null_fd < 0) abort();
  dup2(null_fd, STDIN_FILENO); /* `-` reads an empty input, never blocks */
  dup2(null_fd, STDOUT_FILENO);
  return 0;
}

static void write_file(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(text, 1, n, f) != n) abort();
  if (fclose(f) != 0) abort();
}

/* The values of a mode, chosen by the second byte.  Sweep lists end in
 * extremes (the edges of int64, a denormal, a huge real); one list has the
 * 100 values the issue asks a sweep to handle in 2 s. */
static const char *const sweep_lists[] = {
    "1,2,3",
    "0,-1,9223372036854775807,-9223372036854775808",
    "1e308,5e-324,-0.0,0.5",
    "4096,65536,4294967296,1099511627776",
    NULL, /* 1..100, built at run time */
    "7",
    "3,4611686018427387904",
    "2.5,1e-300,1e300",
};
static const char *const dtype_lists[] = {
    "bf16,fp8", "fp16,fp8_e5m2,int4", "fp32,fp64,int8,fp4", "bf16",
    "fp8_e4m3,fp8_e4m3", "int32,int64,bool", "tf32", "fp8,bf16,fp16,fp32",
};

/* A mode: argv words after "rooflint".  $F is the input, $G the copy with
 * other numbers, $T $G written as a target file, $P the chart, $L the let
 * chosen, $S the sweep list, $V its first value, $D the dtype list. */
static const char *const modes[][10] = {
    {"$F"},
    {"--report", "$F"},
    {"--format", "json", "$F"},
    {"--format", "sarif", "$F"},
    {"--plot", "$P", "--report", "$F"},
    {"--plot", "-", "$F"},
    {"--plan", "$F"},
    {"--dtype", "$D", "$F"},
    {"--plan", "--report", "--dtype", "$D", "$F"},
    {"--sweep", "$L=$S", "$F"},
    {"--sweep", "$L=$S", "-D", "$L=$V", "$F", "$G"},
    {"-D", "$L=$V", "--report", "$F"},
    {"-D", "$L=$V", "--format", "json", "--plot", "$P", "$F"},
    {"diff", "$F", "$G"},
    {"diff", "--format", "json", "--fail-on-regression", "5", "$F", "$G"},
    {"diff", "-D", "$L=$V", "$G", "$F"},
    {"--dump", "ast", "$F"},
    {"--dump", "graph", "$F"},
    {"-Werror", "--error-limit", "0", "--color", "always", "--report", "$F"},
    {"-t", "$T", "--report", "$F"},
    {"-t", "$T", "--sweep", "$L=$S", "$F"},
    {"--format", "sarif", "-w", "$F", "$G"},
    {"--verify", "$F"},
    {"targets", "$T"},
    {"target", "$T"},
    {"--format", "json", "--dtype", "$D", "$F"},
    {NULL}, /* argv from the input's first line */
};
enum { NMODES = sizeof modes / sizeof *modes };

/* The `pick`-th `let NAME` of the text (cycling), or "B". */
static char *find_let(const char *text, size_t n, unsigned pick) {
  size_t starts[64];
  size_t lens[64];
  unsigned k = 0;
  for (size_t i = 0; i + 4 < n && k < 64; i++) {
    if (memcmp(text + i, "let", 3) != 0 || (i > 0 && text[i - 1] != '\n' &&
                                            text[i - 1] != ' ' && text[i - 1] != '\t'))
      continue;
    size_t j = i + 3;
    if (text[j] != ' ' && text[j] != '\t') continue;
    while (j < n && (text[j] == ' ' || text[j] == '\t')) j++;
    size_t s = j;
    while (j < n && (text[j] == '_' || (text[j] >= 'a' && text[j] <= 'z') ||
                     (text[j] >= 'A' && text[j] <= 'Z') ||
                     (j > s && text[j] >= '0' && text[j] <= '9')))
      j++;
    if (j == s) continue;
    starts[k] = s;
    lens[k++] = j - s;
  }
  if (k == 0) return strdup("B");
  pick %= k;
  return strndup(text + starts[pick], lens[pick]);
}

/* "1,2,...,100". */
static char *hundred_values(void) {
  StrBuf sb = {0};
  for (int i = 1; i <= 100; i++) sb_printf(&sb, "%s%d", i > 1 ? "," : "", i);
  char *s = strdup(sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* A word of a mode with its $X references replaced. */
static char *expand(const char *w, const char *const vars[26]) {
  StrBuf sb = {0};
  for (const char *p = w; *p; p++) {
    if (p[0] == '$' && p[1] >= 'A' && p[1] <= 'Z' && vars[p[1] - 'A']) {
      sb_printf(&sb, "%s", vars[p[1] - 'A']);
      p++;
    } else {
      sb_printf(&sb, "%c", *p);
    }
  }
  char *s = strdup(sb_str(&sb));
  sb_free(&sb);
  return s;
}

/* May an argv word from the input stay?  Not one that could name a file or
 * directory outside the scratch directory, read or written (a --plot value,
 * a path, an existing name relative to the fuzzer's directory). */
static bool safe_word(const char *w) {
  if (!*w || strchr(w, '/') || strstr(w, "plot") || strstr(w, "..")) return false;
  return access(w, F_OK) != 0 || w[0] == '-';
}

/* One run of the command line with standard output on `out`. */
static int run_main(int argc, char **argv, int out) {
  dup2(out, STDOUT_FILENO);
  /* main may keep argv's pointers only for the run; it gets a copy of the
   * array, as a process would. */
  char *copy[80];
  memcpy(copy, argv, (size_t)(argc + 1) * sizeof *argv);
  int status = rooflint_main(argc, copy);
  fflush(stdout);
  clearerr(stdout);
  clearerr(stdin);
  dup2(null_fd, STDOUT_FILENO);
  return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int mode = 0;
  unsigned values = 0;
  bool full = false;
  if (size >= 2 && data[0] >= 0x80) {
    mode = (data[0] & 0x3f) % NMODES;
    full = (data[0] & 0x40) && full_fd >= 0;
    values = data[1];
    data += 2;
    size -= 2;
  }
  const char *text = (const char *)data;

  /* The first line is argv in the last mode; the rest is the file. */
  size_t line = 0;
  if (!modes[mode][0]) {
    while (line < size && text[line] != '\n') line++;
    if (line > 4096) line = 4096;
  }
  const char *body = text + line + (line < size && !modes[mode][0]);
  size_t nbody = size - (size_t)(body - text);

  char f[128], g[128], t[128], p[128];
  snprintf(f, sizeof f, "%s/in.roof", scratch);
  snprintf(g, sizeof g, "%s/new.roof", scratch);
  snprintf(t, sizeof t, "%s/tgt.roof", scratch);
  snprintf(p, sizeof p, "%s/chart.svg", scratch);
  write_file(f, body, nbody);
  /* The copy: every digit of the second half one higher (shapes, counts
   * and figures change, the structure stays); with bit 0x80 of the value
   * byte the first half only. */
  char *other = malloc(nbody + 1);
  memcpy(other, body, nbody);
  size_t nother = values & 0x80 ? nbody / 2 : nbody;
  for (size_t i = nbody / 2; i < nother; i++)
    if (other[i] >= '0' && other[i] <= '9')
      other[i] = (char)('0' + (other[i] - '0' + 1) % 10);
  write_file(g, other, nother);
  write_file(t, other, nother);
  free(other);

  char *let = find_let(body, nbody, values >> 3);
  char *hundred = hundred_values();
  const char *list = sweep_lists[values & 7] ? sweep_lists[values & 7] : hundred;
  char *first = strndup(list, strcspn(list, ","));
  const char *vars[26] = {0};
  vars['F' - 'A'] = f;
  vars['G' - 'A'] = g;
  vars['T' - 'A'] = t;
  vars['P' - 'A'] = p;
  vars['L' - 'A'] = let;
  vars['S' - 'A'] = list;
  vars['V' - 'A'] = first;
  vars['D' - 'A'] = dtype_lists[(values >> 3) & 7];

  char *argv[80];
  int argc = 0;
  argv[argc++] = strdup("rooflint");
  if (modes[mode][0]) {
    for (int i = 0; i < 10 && modes[mode][i]; i++)
      argv[argc++] = expand(modes[mode][i], vars);
  } else {
    char *words = strndup(text, line);
    bool is_diff = false;
    for (char *save = NULL, *w = strtok_r(words, " \t\r", &save);
         w && argc < 70; w = strtok_r(NULL, " \t\r", &save)) {
      if (!safe_word(w)) continue;
      is_diff = is_diff || strcmp(w, "diff") == 0;
      argv[argc++] = expand(w, vars);
    }
    free(words);
    argv[argc++] = strdup(f);
    if (is_diff) argv[argc++] = strdup(g);
  }
  argv[argc] = NULL;

  /* Two oracles besides the sanitizers: the exit status is 0, 1 or 2
   * (R-CLI-011), and with stdout on /dev/full a run that writes anything
   * there (the same run again into a file says) exits 2, never 0 or 1. */
  int status = run_main(argc, argv, full ? full_fd : null_fd);
  if (status < 0 || status > 2) abort();
  if (full) {
    char o[128];
    snprintf(o, sizeof o, "%s/stdout", scratch);
    int fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) abort();
    run_main(argc, argv, fd);
    off_t written = lseek(fd, 0, SEEK_END);
    close(fd);
    if (written > 0 && status != 2) {
      fprintf(stderr, "fuzz_cli: exit %d with stdout on /dev/full, "
                      "%lld bytes to write\n", status, (long long)written);
      abort();
    }
  }

  for (int i = 0; i < argc; i++) free(argv[i]);
  free(let);
  free(hundred);
  free(first);
  remove_scratch();
  return 0;
}
