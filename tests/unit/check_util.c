/* SPDX-License-Identifier: MIT */
/* check_util.c: StrBuf, StrMap, edit distance and suggestions, checked
 * arithmetic, the arena. */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "util.h"

START_TEST(test_strbuf) {
  StrBuf sb = {0};
  ck_assert_str_eq(sb_str(&sb), "");
  sb_puts(&sb, "ab");
  sb_putc(&sb, 'c');
  sb_putn(&sb, "dexyz", 2);
  sb_printf(&sb, "-%d-%s", 42, "x");
  ck_assert_str_eq(sb_str(&sb), "abcde-42-x");
  ck_assert_uint_eq(sb.len, 10);
  for (int i = 0; i < 1000; i++) sb_putc(&sb, 'z');
  ck_assert_uint_eq(sb.len, 1010);
  ck_assert_uint_eq(strlen(sb_str(&sb)), 1010);
  sb_free(&sb);
  ck_assert_ptr_null(sb.data);
  ck_assert_uint_eq(sb.len, 0);
}
END_TEST

/* Keys by identity: an equal string at another address is another key. */
START_TEST(test_ptrmap) {
  PtrMap m;
  ptrmap_init(&m);
  static char keys[1000][8];
  static int vals[1000];
  ck_assert_ptr_null(ptrmap_get(&m, keys[0]));
  for (int i = 0; i < 1000; i++) {
    snprintf(keys[i], sizeof keys[i], "same");
    vals[i] = i;
    ptrmap_put(&m, keys[i], &vals[i]);
  }
  ck_assert_uint_eq(m.len, 1000);
  for (int i = 0; i < 1000; i++)
    ck_assert_int_eq(*(int *)ptrmap_get(&m, keys[i]), i);
  ck_assert_ptr_null(ptrmap_get(&m, "same"));
  ptrmap_put(&m, keys[7], &vals[1]); /* overwrite keeps len */
  ck_assert_uint_eq(m.len, 1000);
  ck_assert_int_eq(*(int *)ptrmap_get(&m, keys[7]), 1);
  /* ptrmap_ref: the slot of a present key, or a new one holding NULL. */
  void **ref = ptrmap_ref(&m, keys[9]);
  ck_assert_int_eq(*(int *)*ref, 9);
  ck_assert_uint_eq(m.len, 1000);
  static int extra = 1000;
  ref = ptrmap_ref(&m, &extra);
  ck_assert_ptr_null(*ref);
  ck_assert_uint_eq(m.len, 1001);
  *ref = &extra;
  ck_assert_ptr_eq(ptrmap_get(&m, &extra), &extra);
  ptrmap_free(&m);
  ck_assert_ptr_null(ptrmap_get(&m, keys[7]));
}
END_TEST

START_TEST(test_strmap) {
  StrMap m;
  strmap_init(&m);
  ck_assert_ptr_null(strmap_get(&m, "a"));
  static char keys[500][16];
  static int vals[500];
  for (int i = 0; i < 500; i++) {
    snprintf(keys[i], sizeof keys[i], "k%d", i);
    vals[i] = i;
    strmap_put(&m, keys[i], &vals[i]);
  }
  ck_assert_uint_eq(m.len, 500);
  for (int i = 0; i < 500; i++) {
    int *v = strmap_get(&m, keys[i]);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(*v, i);
  }
  ck_assert_ptr_null(strmap_get(&m, "k500"));
  strmap_put(&m, "k7", &vals[1]); /* overwrite keeps len */
  ck_assert_uint_eq(m.len, 500);
  ck_assert_int_eq(*(int *)strmap_get(&m, "k7"), 1);
  strmap_free(&m);
}
END_TEST

START_TEST(test_edit_distance) {
  ck_assert_int_eq(util_edit_distance("kitten", "sitting", 5), 3);
  ck_assert_int_eq(util_edit_distance("", "abc", 5), 3);
  ck_assert_int_eq(util_edit_distance("abc", "abc", 0), 0);
  ck_assert_int_eq(util_edit_distance("kitten", "sitting", 2), 3); /* cap+1 */
  ck_assert_int_eq(util_edit_distance("a", "abcdefgh", 2), 3);
}
END_TEST

START_TEST(test_suggest) {
  static const char *const names[] = {"--report", "--target", "--format",
                                      "--verify", NULL};
  ck_assert_str_eq(util_suggest("--reprot", names), "--report");
  ck_assert_str_eq(util_suggest("--targt", names), "--target");
  ck_assert_ptr_null(util_suggest("--banana", names));
  static const char *const empty[] = {NULL};
  ck_assert_ptr_null(util_suggest("x", empty));
}
END_TEST

START_TEST(test_checked_arith) {
  int64_t r;
  ck_assert(util_mul_i64(4096, 4096, &r));
  ck_assert_int_eq(r, 16777216);
  ck_assert(!util_mul_i64(INT64_MAX / 2 + 1, 2, &r));
  ck_assert(!util_mul_i64(INT64_MIN, -1, &r));
  ck_assert(util_add_i64(INT64_MAX - 1, 1, &r));
  ck_assert_int_eq(r, INT64_MAX);
  ck_assert(!util_add_i64(INT64_MAX, 1, &r));
  ck_assert(!util_add_i64(INT64_MIN, -1, &r));
}
END_TEST

/* Big blocks (2 MiB and more, or an array grown past 512 KiB) start on a
 * 2 MiB boundary; growing one keeps its bytes; xcalloc's are zero. */
static bool huge_aligned(const void *p) {
  return ((uintptr_t)p & (2u * 1024 * 1024 - 1)) == 0;
}

static bool holds_pattern(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(i * 7 + 3)) return false;
  return true;
}

START_TEST(test_big_blocks) {
  enum { KIB = 1024, MIB = 1024 * KIB };
  void *small = xmalloc(64 * KIB);
  unsigned char *big = xmalloc(3 * MIB);
  ck_assert(huge_aligned(big));
  free(small);
  free(big);

  unsigned char *zero = xcalloc(3 * MIB / 8, 8);
  ck_assert(huge_aligned(zero));
  size_t nonzero = 0;
  for (size_t i = 0; i < 3 * MIB; i++) nonzero += zero[i] != 0;
  ck_assert_uint_eq(nonzero, 0);
  free(zero);

  /* a doubling array: on the heap, then moved to a big block, then grown */
  size_t n = 300 * KIB;
  unsigned char *a = xrealloc(NULL, n);
  for (size_t i = 0; i < n; i++) a[i] = (unsigned char)(i * 7 + 3);
  a = xrealloc(a, 600 * KIB);
  ck_assert(huge_aligned(a));
  ck_assert(holds_pattern(a, n));
  for (size_t i = n; i < 600 * KIB; i++) a[i] = (unsigned char)(i * 7 + 3);
  n = 600 * KIB;
  unsigned char *same = xrealloc(a, 1 * MIB); /* fits the 2 MiB block */
  ck_assert_ptr_eq(same, a);
  a = xrealloc(a, 5 * MIB);
  ck_assert(huge_aligned(a));
  ck_assert(holds_pattern(a, n));
  a = xrealloc(a, 1 * KIB);
  ck_assert(holds_pattern(a, 1 * KIB));
  free(a);
}
END_TEST

/* A size whose rounding to whole huge pages would wrap is refused (die
 * aborts), not served with a tiny block. */
START_TEST(test_big_block_overflow) {
  ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr)); /* die's message */
  (void)xmalloc(SIZE_MAX - 1);
}
END_TEST

START_TEST(test_arena) {
  Arena *a = arena_new();
  char *p = arena_alloc(a, 3);
  ck_assert_uint_eq((uintptr_t)p % 16, 0);
  ck_assert_int_eq(p[0] | p[1] | p[2], 0);
  char *big = arena_alloc(a, 1 << 20); /* bigger than a chunk */
  big[(1 << 20) - 1] = 1;
  ck_assert_str_eq(arena_printf(a, "%s-%d", "x", 7), "x-7");
  ck_assert_str_eq(arena_strndup(a, "abcdef", 3), "abc");
  ck_assert_uint_ge(arena_bytes_used(a), (1u << 20) + 16);
  arena_free(a);
}
END_TEST

/* arena_release_between frees the big chunks made between two objects and
 * nothing else: not the chunks holding them, not those made after. */
START_TEST(test_arena_release) {
  enum { MIB = 1 << 20 };
  Arena *a = arena_new();
  char *first = arena_alloc(a, 16); /* the first (small) chunk */
  for (int i = 0; i < 3; i++) arena_alloc(a, 3 * MIB); /* one-off chunks */
  /* Small objects until the first chunk is full and a new one is made. */
  size_t before = arena_bytes_held(a);
  while (arena_bytes_held(a) == before) arena_alloc(a, 512);
  char *last = arena_alloc(a, 16); /* ... in that new chunk */
  char *after = arena_alloc(a, 3 * MIB);
  size_t held = arena_bytes_held(a);
  /* Each 3 MiB one-off is mapped as two whole 2 MiB pages. */
  ck_assert_uint_gt(before, 3 * 4 * MIB); /* plus the small first chunk */
  ck_assert_uint_lt(before, 3 * 4 * MIB + 2 * MIB);
  ck_assert_uint_gt(held - before, 4 * MIB); /* a small chunk and `after` */
  ck_assert_uint_lt(held - before, 4 * MIB + 2 * MIB);
  arena_release_between(a, first, first); /* nothing between */
  arena_release_between(a, last, first);  /* backwards: nothing */
  ck_assert_uint_eq(arena_bytes_held(a), held);
  arena_release_between(a, first, last);
  ck_assert_uint_eq(arena_bytes_held(a), held - 3 * 4 * MIB);
  /* What is left is still the caller's: ASan would catch a freed page. */
  memset(first, 1, 16);
  memset(last, 2, 16);
  memset(after, 3, 3 * MIB);
  ck_assert_int_eq(first[15] + last[15] + after[3 * MIB - 1], 6);
  arena_release_between(a, first, last); /* again: nothing more to free */
  ck_assert_uint_eq(arena_bytes_held(a), held - 3 * 4 * MIB);
  arena_free(a);
}
END_TEST

/* arena_release_into gives the released chunks' pages to a block of
 * another arena that holds only zeros: the block reads zeros still, and
 * only whole huge pages inside it are given. */
START_TEST(test_arena_release_into) {
  enum { MIB = 1 << 20 };
  Arena *tree = arena_new(), *dst = arena_new();
  char *first = arena_alloc(tree, 16);
  for (int i = 0; i < 3; i++) memset(arena_alloc(tree, 3 * MIB), 7, 3 * MIB);
  size_t before = arena_bytes_held(tree);
  while (arena_bytes_held(tree) == before) arena_alloc(tree, 512);
  char *last = arena_alloc(tree, 16);
  size_t n = 9 * MIB;
  unsigned char *block = arena_alloc(dst, n);
  block[0] = 1; /* the block's first page is in use: start past it */
  size_t held = arena_bytes_held(tree);
  char *to = arena_release_into(tree, first, last, dst, block + 1, block + n);
  ck_assert_uint_eq(arena_bytes_held(tree), held - 3 * 4 * MIB);
  ck_assert(to <= (char *)block + n);
  ck_assert(to > (char *)block + 1);
  size_t nonzero = 0;
  for (size_t i = 1; i < n; i++) nonzero += block[i] != 0;
  ck_assert_uint_eq(nonzero, 0);
  ck_assert_int_eq(block[0], 1);
  memset(block, 5, n); /* all of it still the caller's */
  memset(first, 1, 16);
  memset(last, 2, 16);
  /* Again: nothing is left between, so nothing is given. */
  ck_assert_ptr_eq(arena_release_into(tree, first, last, dst, block, block + n), block);
  arena_free(tree);
  arena_free(dst);
}
END_TEST

/* arena_scratch_end: the freed arena's big chunks (the part it used) become
 * the owner's spare pages, which its next big chunks take, zeroed; a
 * scratch arena takes them and gives them back. */
START_TEST(test_arena_scratch_end) {
  enum { MIB = 1 << 20 };
  Arena *heir = arena_new(), *a = arena_new();
  memset(arena_alloc(a, 3 * MIB), 9, 3 * MIB); /* mapped as 4 MiB */
  size_t held = arena_bytes_held(heir);
  arena_scratch_end(a, heir);
  ck_assert_uint_eq(arena_bytes_held(heir), held + 4 * MIB);
  Arena *scratch = arena_scratch(heir);
  ck_assert_uint_eq(arena_bytes_held(heir), held);
  unsigned char *p = arena_alloc(scratch, 5 * MIB); /* 6 MiB: 4 spare */
  size_t nonzero = 0;
  for (size_t i = 0; i < 5 * MIB; i++) nonzero += p[i] != 0;
  ck_assert_uint_eq(nonzero, 0);
  memset(p, 3, 5 * MIB);
  arena_scratch_end(scratch, heir);
  ck_assert_uint_eq(arena_bytes_held(heir), held + 6 * MIB);
  arena_drop_spares(heir);
  ck_assert_uint_eq(arena_bytes_held(heir), held);
  arena_free(heir);
}
END_TEST

Suite *util_suite(void) {
  Suite *s = suite_create("util");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_strbuf);
  tcase_add_test(tc, test_arena_release_into);
  tcase_add_test(tc, test_arena_scratch_end);
  tcase_add_test(tc, test_strmap);
  tcase_add_test(tc, test_ptrmap);
  tcase_add_test(tc, test_edit_distance);
  tcase_add_test(tc, test_suggest);
  tcase_add_test(tc, test_checked_arith);
  tcase_add_test(tc, test_big_blocks);
  tcase_add_test_raise_signal(tc, test_big_block_overflow, SIGABRT);
  tcase_add_test(tc, test_arena);
  tcase_add_test(tc, test_arena_release);
  suite_add_tcase(s, tc);
  return s;
}
