/* SPDX-License-Identifier: MIT */
/*
 * arena.c: bump allocation in chunks, freed once.  The AST, the op graph and
 * every analysis result live in one arena per run, so no pass ever frees an
 * individual object and error recovery cannot leak.
 */
#include "rooflint.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 8-byte alignment is all our types need (no long double, no SIMD types),
 * and 16 would round a 56-byte Expr up to 64.  Chunks start small (a
 * 500-op model should cost next to nothing) and double up to ARENA_BIG, so
 * a model of millions of ops takes a few hundred chunks, not tens of
 * thousands. */
enum {
  ARENA_CHUNK = 64 * 1024,
  ARENA_BIG = 8 * 1024 * 1024,
  ARENA_ALIGN = 8,
  HUGE_PAGE = 2 * 1024 * 1024,
};

typedef struct Chunk {
  struct Chunk *next;
  size_t size; /* usable bytes after the header */
  size_t used;
  _Alignas(16) unsigned char data[];
} Chunk;

struct Arena {
  Chunk *head;  /* chunk being filled */
  size_t total; /* bytes handed out */
  size_t next;  /* size of the next regular chunk */
};

/* A big block asks for transparent huge pages: first touching a page costs
 * a fault, and on a virtual machine a fault costs microseconds, so the node
 * array of a million-op model took more time faulting than analysing.  Only
 * the 2 MiB-aligned interior can use them; the advice is a hint (ignored
 * where unsupported). */
static void *block_alloc(size_t size) {
  /* Zeroed once here, not per object: fresh pages come zeroed from the
   * kernel, and calloc knows it, so a big chunk costs no memset at all. */
  void *p = xcalloc(1, size);
#ifdef MADV_HUGEPAGE
  if (size >= 2 * HUGE_PAGE) {
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
  }
#endif
  return p;
}

Arena *arena_new(void) { return xcalloc(1, sizeof(Arena)); }

void arena_free(Arena *a) {
  if (!a) return;
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (n == 0) n = ARENA_ALIGN;
  Chunk *c = a->head;
  if (!c || c->used + n > c->size) {
    size_t regular = a->next ? a->next : ARENA_CHUNK;
    size_t size = n > regular ? n : regular;
    if (n <= regular && regular < ARENA_BIG) a->next = regular * 2;
    c = block_alloc(sizeof(Chunk) + size);
    c->size = size;
    c->used = 0;
    /* A big one-off block goes behind the current chunk so the rest of the
     * current chunk stays usable. */
    if (a->head && size > regular) {
      c->next = a->head->next;
      a->head->next = c;
    } else {
      c->next = a->head;
      a->head = c;
    }
  }
  void *p = c->data + c->used;
  c->used += n;
  a->total += n;
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(Arena *a, const char *s) {
  return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) die("vsnprintf failed on format \"%s\"", fmt);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void *arena_memdup(Arena *a, const void *p, size_t n) {
  void *q = arena_alloc(a, n);
  if (n) memcpy(q, p, n);
  return q;
}

size_t arena_bytes_used(const Arena *a) { return a->total; }
