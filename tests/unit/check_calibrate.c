/* SPDX-License-Identifier: MIT */
/* check_calibrate.c: `rooflint calibrate`'s card from the script's JSON
 * document, without running the script: the device matched to a built-in
 * card by its driver's name and SM count, the card of a CPU (measured
 * peaks), the card of a built-in GPU (datasheet peaks, measured achieved_
 * ceilings), text from the device escaped, and documents that are not the
 * script's refused with a message (specs/calibrate.md). */
#include <check.h>
#include <string.h>

#include "calibrate.h"
#include "test_util.h"

/* R-CAL-006: names as nvidia-smi and torch.cuda.get_device_name print
 * them, with the SM counts of the whitepapers (H100 SXM 132, PCIe 114;
 * A100 108 both; H100 NVL 132 but its own part; a MIG slice has fewer). */
START_TEST(match_device_names) {
  static const struct {
    const char *name;
    int sms;
    const char *target; /* NULL: no card */
  } rows[] = {
      {"NVIDIA H100 80GB HBM3", 132, "h100_sxm"},
      {"NVIDIA H100 PCIe", 114, "h100_pcie"},
      {"NVIDIA H100 NVL", 132, NULL},        /* a form no card has */
      {"NVIDIA H100 80GB HBM3", 60, NULL},   /* a MIG slice: 60 SMs */
      {"NVIDIA A100-SXM4-80GB", 108, "a100_sxm"},
      {"NVIDIA A100-PCIE-40GB", 108, "a100_pcie"},
      {"NVIDIA A100 80GB PCIe", 108, "a100_pcie"},
      {"NVIDIA A100 80GB", 108, NULL},       /* SXM or PCIe: a tie */
      {"NVIDIA H200", 132, "h200_sxm"},
      {"NVIDIA L4", 58, "l4"},
      {"NVIDIA L40S", 142, "l40s"},
      {"NVIDIA GeForce RTX 4090", 128, "rtx4090"},
      {"NVIDIA GeForce RTX 3090", 82, NULL},
      {"Tesla V100-SXM2-32GB", 80, "v100_sxm2"},
      {"AMD Instinct MI300X", 304, "mi300x"},
      {"NVIDIA B200", 148, "b200"},
      {"", 132, NULL},
  };
  TestCtx *tc = tc_parse("");
  const TargetSet *set = target_builtins(tc->arena, &tc->ss, &tc->diags);
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    const Target *t = calibrate_match(set, rows[i].name, rows[i].sms);
    const char *got = t ? t->name : NULL;
    ck_assert_msg(rows[i].target ? got && strcmp(got, rows[i].target) == 0 : !got,
                  "'%s' (%d SMs): %s, expected %s", rows[i].name, rows[i].sms,
                  got ? got : "none", rows[i].target ? rows[i].target : "none");
  }
  tc_free(tc);
}
END_TEST

/* The document calibrate.py printed on this project's CPU (figures
 * rounded): one torch thread, 25276157952 bytes of memory. */
#define CPU_DOC(name, extra)                                                   \
  "{\"device\": \"cpu\", \"torch\": \"1.13.0a0\", \"python\": \"3.11.2\","     \
  " \"date\": \"2026-12-06T08:02:50Z\", \"name\": " name ", \"units\": 1,"     \
  " \"memory\": 25276157952, \"gpus\": 0, \"runtime\": \"1 thread\","          \
  " \"measured\": [{\"key\": \"memory_bw\", \"value\": 27052232889.6,"          \
  " \"method\": \"STREAM\"}, {\"key\": \"fp32\", \"value\": 2895807766.6,"     \
  " \"method\": \"torch.mm\"}" extra "],"                                      \
  " \"skipped\": [{\"what\": \"fp16 matmul\", \"why\": \"no Half\"}]}"

/* A GPU's document: its name, SMs, memory, GPUs, and measurements. */
#define GPU_DOC(name, units, memory, gpus, measured)                          \
  "{\"device\": \"cuda\", \"torch\": \"2.5.1\", \"python\": \"3.12.3\","      \
  " \"date\": \"2026-12-06T09:00:00Z\", \"name\": \"" name "\", \"units\": "  \
  #units ", \"memory\": " #memory ", \"gpus\": " #gpus ","                     \
  " \"runtime\": \"CUDA 12.4\", \"measured\": [" measured "], \"skipped\": []}"

static char *card_for(TestCtx *tc, const char *doc) {
  return calibrate_card(tc->arena, &tc->ss, doc, strlen(doc), &tc->diags);
}

/* The card read back as `-t FILE` reads it: no diagnostic. */
static const Target *read_back(TestCtx *tc, const char *card) {
  src_add(&tc->ss, "<test>/card.roof", xstrdup(card), strlen(card));
  const Target *t = target_resolve(tc->arena, &tc->ss, "<test>/card.roof", NULL,
                                   LOC_NONE, &tc->diags);
  ck_assert_str_eq(tc_render(tc), "");
  ck_assert_ptr_nonnull(t);
  return t;
}

/* R-CAL-005: no datasheet card for a CPU: each measured figure is the peak
 * and its achieved_ ceiling; 27052232889.6 B/s is 27.05 GB/s, 2895807766.6
 * FLOP/s 2.896 GFLOP/s, 3.4079e-6 s 3.408 us; 25276157952 B / 2^30 is
 * 23.54 GiB; pcie_bw, which every card states, is the memory bandwidth. */
START_TEST(cpu_card) {
  TestCtx *tc = tc_parse("");
  char *card = card_for(tc, CPU_DOC("\"AMD EPYC\"",
                                    ", {\"key\": \"launch_overhead\", "
                                    "\"value\": 3.4079e-6, \"method\": \"add_\"}"));
  ck_assert_str_eq(tc_render(tc), "");
  ck_assert_str_eq(
      card,
      "# Measured by `rooflint calibrate` on 2026-12-06T08:02:50Z "
      "(docs/calibrate.md).\n"
      "target cpu_calibrated {\n"
      "  display = \"AMD EPYC\"\n"
      "  source = \"rooflint calibrate " ROOFLINT_VERSION ", 2026-12-06T08:02:50Z: "
      "PyTorch 1.13.0a0 (Python 3.11.2, 1 thread) on the CPU 'AMD EPYC'\"\n"
      "  source = \"not measured: fp16 matmul (no Half)\"\n"
      "  source = \"no datasheet card for this device: each peak is the figure "
      "measured here, and its achieved_ ceiling the same\"\n"
      "  sms = 1\n"
      "  memory = 23.54 GiB\n"
      "  gpus_per_node = 1\n"
      "  source = \"memory_bw: STREAM\"\n"
      "  memory_bw = 27.05 GB/s\n"
      "  achieved_memory_bw = 27.05 GB/s\n"
      "  source = \"fp32: torch.mm\"\n"
      "  fp32 = 2.896 GFLOP/s\n"
      "  achieved_fp32 = 2.896 GFLOP/s\n"
      "  source = \"launch_overhead: add_\"\n"
      "  launch_overhead = 3.408 us\n"
      "  source = \"pcie_bw: a CPU has no host-device link; the memory "
      "bandwidth measured stands for it\"\n"
      "  pcie_bw = 27.05 GB/s\n"
      "}\n");
  const Target *t = read_back(tc, card);
  ck_assert(t->vector_peak[DT_FP32] == 2.896e9 && t->achieved.vector_peak[DT_FP32] == 2.896e9);
  ck_assert(t->memory_bw == 27.05e9 && t->achieved.memory_bw == 27.05e9);
  tc_free(tc);
}
END_TEST

/* R-CAL-006: an H100 SXM keeps the built-in card's peaks (bf16_tc 990
 * TFLOP/s, memory_bw 3.35 TB/s) under a new name, with the measured
 * figures as achieved_ ceilings; the measured launch overhead replaces the
 * card's 5 us (one launch_overhead line, not two). */
START_TEST(builtin_gpu_card) {
  static const char doc[] = GPU_DOC(
      "NVIDIA H100 80GB HBM3", 132, 85045379072, 1,
      "{\"key\": \"memory_bw\", \"value\": 2.9e12, \"method\": \"triad\"},"
      "{\"key\": \"bf16_tc\", \"value\": 7.123e14, \"method\": \"mm\"},"
      "{\"key\": \"pcie_bw\", \"value\": 5.31e10, \"method\": \"pinned\"},"
      "{\"key\": \"launch_overhead\", \"value\": 2.5e-6, \"method\": \"add_\"}");
  TestCtx *tc = tc_parse("");
  char *card = card_for(tc, doc);
  ck_assert_str_eq(tc_render(tc), "");
  static const char *const lines[] = {
      "\ntarget h100_sxm_calibrated {\n", "\n  bf16_tc = 990 TFLOP/s\n",
      "\n  memory_bw = 3.35 TB/s\n", "\n  achieved_bf16_tc = 712.3 TFLOP/s\n",
      "\n  achieved_memory_bw = 2.9 TB/s\n", "\n  achieved_pcie_bw = 53.1 GB/s\n",
      "\n  launch_overhead = 2.5 us\n", "on the GPU 'NVIDIA H100 80GB HBM3'\"\n",
  };
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
    ck_assert_msg(strstr(card, lines[i]), "no '%s' in the card", lines[i]);
  ck_assert_ptr_null(strstr(card, "launch_overhead = 5 us"));
  const Target *t = read_back(tc, card);
  ck_assert(t->tensor_peak[DT_BF16] == 990e12 && t->achieved.tensor_peak[DT_BF16] == 712.3e12);
  ck_assert(t->launch_overhead == 2.5e-6 && t->achieved.pcie_bw == 53.1e9);
  tc_free(tc);
}
END_TEST

/* R-CEIL-002 against a datasheet card: an L4 (58 SMs, fp16_tc 121
 * TFLOP/s, no NVLink) measured at 150 TFLOP/s in fp16 (as fp16
 * accumulation can) gets achieved_fp16_tc at the peak, and its two GPUs'
 * all-reduce over PCIe no achieved_nvlink_bw; each is said in a source
 * line, and the card reads back. */
START_TEST(achieved_within_the_card) {
  static const char doc[] = GPU_DOC(
      "NVIDIA L4", 58, 23580639232, 2,
      "{\"key\": \"memory_bw\", \"value\": 2.4e11, \"method\": \"triad\"},"
      "{\"key\": \"fp16_tc\", \"value\": 1.5e14, \"method\": \"mm\"},"
      "{\"key\": \"nvlink_bw\", \"value\": 1.2e10, \"method\": \"nccl\"}");
  TestCtx *tc = tc_parse("");
  char *card = card_for(tc, doc);
  ck_assert_str_eq(tc_render(tc), "");
  ck_assert_ptr_nonnull(strstr(card, "\ntarget l4_calibrated {\n"));
  ck_assert_ptr_nonnull(strstr(card,
      "  source = \"fp16_tc: measured 150 TFLOP/s, above the card's peak 121 "
      "TFLOP/s: achieved_fp16_tc is written at the peak\"\n"
      "  achieved_fp16_tc = 121 TFLOP/s\n"));
  ck_assert_ptr_nonnull(strstr(card,
      "  source = \"nvlink_bw: measured 12 GB/s, but the card states no "
      "nvlink_bw peak, so it has no achieved_nvlink_bw\"\n}\n"));
  ck_assert_ptr_null(strstr(card, "achieved_nvlink_bw ="));
  const Target *t = read_back(tc, card);
  ck_assert(t->achieved.tensor_peak[DT_FP16] == t->tensor_peak[DT_FP16]);
  tc_free(tc);
}
END_TEST

/* R-CAL-007: a device's name that holds a quote, a backslash, a newline
 * and an escape byte cannot end the string or reach a terminal raw. */
START_TEST(device_text_escaped) {
  TestCtx *tc = tc_parse("");
  char *card = card_for(tc, CPU_DOC("\"a\\\"b\\\\c\\nd\\u001be\\u00e9\"", ""));
  ck_assert_str_eq(tc_render(tc), "");
  ck_assert_ptr_nonnull(strstr(card, "  display = \"a\\\"b\\\\c?d?e??\"\n"));
  tc_free(tc);
}
END_TEST

/* Documents that are not the script's are refused with what is wrong. */
START_TEST(bad_documents) {
  static const struct {
    const char *doc;
    const char *error;
  } rows[] = {
      {"not json", "rooflint: error: calibrate.py's output is not the document "
                   "rooflint reads: '[' or '{' expected near 'not'\n"},
      {"{\"measured\": []}", "rooflint: error: calibrate.py's output is not "
                             "the document rooflint reads\n"},
      {CPU_DOC("\"x\"", ", {\"key\": \"fp42\", \"value\": 1}"),
       "rooflint: error: calibrate.py measured a figure rooflint has no key "
       "for: 'fp42'\n"},
      {CPU_DOC("\"x\"", ", {\"key\": \"bf16\", \"value\": -1}"),
       "rooflint: error: calibrate.py measured bf16 as -1: a figure must be "
       "positive\n"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    TestCtx *tc = tc_parse("");
    ck_assert_ptr_null(card_for(tc, rows[i].doc));
    ck_assert_str_eq(tc_render(tc), rows[i].error);
    tc_free(tc);
  }
}
END_TEST

Suite *calibrate_suite(void) {
  Suite *s = suite_create("calibrate");
  TCase *tc = tcase_create("calibrate");
  tcase_add_test(tc, match_device_names);
  tcase_add_test(tc, cpu_card);
  tcase_add_test(tc, builtin_gpu_card);
  tcase_add_test(tc, achieved_within_the_card);
  tcase_add_test(tc, device_text_escaped);
  tcase_add_test(tc, bad_documents);
  suite_add_tcase(s, tc);
  return s;
}
