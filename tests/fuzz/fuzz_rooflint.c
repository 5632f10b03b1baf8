/* SPDX-License-Identifier: MIT */
/*
 * fuzz_rooflint.c: the libFuzzer harness.  Arbitrary bytes go through the
 * whole pipeline in-process, exactly as the command line drives it: load as a
 * file, parse, sema, targets, cost, every check, the warning policy, then
 * every renderer into a sink that discards the text.  Everything is freed, so
 * LeakSanitizer sees a leak on the first input that causes one.  A crash, a
 * sanitizer report, a leak, a timeout or a run-away allocation is a bug: an
 * input the tool rejects must be rejected with a diagnostic.
 *
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); the
 * objects of the library are instrumented separately in build-fuzz/.
 */
#include "rooflint.h"
#include "out/out.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The outputs are thrown away; only their side effects (reads of every
 * field, formatting of every number) matter. */
static FILE *null_sink(void) {
  static FILE *f; /* opened once per process: not state of the tool */
  if (!f) f = fopen("/dev/null", "w");
  return f;
}

/* The first byte, when it is not text, selects options so the fuzzer also
 * reaches -Werror/-w, every check enabled and error limits off; any input
 * that starts like a .roof file uses the defaults of the command line. */
typedef struct Mode {
  bool werror, no_warnings, all_checks, unlimited;
} Mode;

static Mode pick_mode(const uint8_t **data, size_t *size) {
  Mode m = {0};
  if (*size > 0 && (*data)[0] >= 0xF0) {
    uint8_t b = (*data)[0];
    m.werror = b & 1;
    m.no_warnings = b & 2;
    m.all_checks = b & 4;
    m.unlimited = b & 8;
    (*data)++;
    (*size)--;
  }
  return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Mode mode = pick_mode(&data, &size);
  FILE *out = null_sink();
  if (!out) return 0;

  SourceSet ss;
  src_init(&ss);
  char *text = xmalloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  int file = src_add(&ss, "fuzz.roof", text, size);

  DiagSink diags;
  diag_sink_init(&diags);
  if (mode.unlimited) diags.error_limit = 0;
  Arena *arena = arena_new();

  Bindings bindings = {0};
  AnalyzeOptions opts = {.bindings = &bindings, .run_checks = true};
  Analysis *an = analyze_file(arena, &ss, file, &opts, &diags);

  const char *enabled[16];
  int nenabled = 0;
  if (mode.all_checks) {
    int n = 0;
    const CheckDesc *const *reg = check_registry(&n);
    for (int i = 0; i < n && nenabled < 16; i++) enabled[nenabled++] = reg[i]->name;
  }
  DiagPolicy policy = {.enabled = enabled, .nenabled = nenabled,
                       .werror = mode.werror, .no_warnings = mode.no_warnings};
  diag_apply_policy(&diags, &ss, &policy);
  diag_sort(&diags);

  RenderOptions plain = {.color = false}, color = {.color = true};
  diag_render_text(&diags, &ss, out, &plain);
  diag_render_text(&diags, &ss, out, &color);
  if (an && an->tree.program) ast_dump(an->tree.program, &ss, out);
  if (an && an->unit) {
    graph_dump(an->unit, &ss, out);
    report_summary(out, an, &ss);
    report_models(out, an, &ss);
  }
  if (an) {
    Analysis *const all[1] = {an};
    const DiagSink *const sinks[1] = {&diags};
    int status = diags.nerrors > 0 ? 1 : 0;
    json_write(out, all, sinks, 1, &ss);
    /* with a help base, so each rule's helpUri is written too */
    sarif_write(out, all, sinks, 1, &ss, status,
                "https://example.org/rooflint/docs/checks.md");
    int left_out;
    plot_write(out, all, 1, &ss, &left_out);
  }

  arena_free(arena);
  diag_sink_free(&diags);
  src_free(&ss);
  return 0;
}
