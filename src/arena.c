/* SPDX-License-Identifier: MIT */
/*
 * arena.c: bump allocation in chunks, freed once.  The AST, the op graph and
 * every analysis result live in one arena per run, so no pass ever frees an
 * individual object and error recovery cannot leak.
 */
/* mremap, MREMAP_FIXED */
#define _GNU_SOURCE
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 8-byte alignment is all our types need (no long double, no SIMD types);
 * more would pad every AST node.  Chunks start small (ARENA_CHUNK), so a
 * small model touches few pages, and double up to ARENA_SMALL_MAX; the
 * next is a huge page, and they double again up to ARENA_BIG, so a big
 * model takes a few hundred chunks and no chunk between ARENA_SMALL_MAX
 * and a huge page is ever made.  Sizes count the chunk header, so a big
 * chunk is a whole number of huge pages. */
enum {
  ARENA_CHUNK = 16 * 1024,
  ARENA_SMALL_MAX = 128 * 1024,
  ARENA_BIG = 8 * 1024 * 1024,
  ARENA_ALIGN = 8,
  HUGE_PAGE = 2 * 1024 * 1024,
};

typedef struct Chunk {
  struct Chunk *next;
  size_t size;   /* usable bytes after the header */
  size_t used;
  size_t mapped; /* bytes mapped with mmap, header included; 0: malloc'd */
  size_t seq;    /* creation order within its arena */
  _Alignas(16) unsigned char data[];
} Chunk;

/* Pages an arena holds for its next big chunks: a mapping already
 * touched, given back by another arena (arena_scratch_end, arena_release_into),
 * this header at its start. */
typedef struct Spare {
  struct Spare *next;
  size_t len; /* bytes mapped, this header included: whole huge pages */
} Spare;

struct Arena {
  Chunk *head;  /* chunk being filled */
  size_t total; /* bytes handed out */
  size_t next;  /* size of the next regular chunk */
  size_t nchunks; /* chunks made so far: the next one's seq */
  Spare *spare;
};

/* Unmaps the part of a big chunk that no object has touched and returns
 * the length of the rest: its header and what it handed out, in whole
 * huge pages.  Only that part is worth keeping: the rest holds nothing,
 * and zeroing it would touch it. */
static size_t chunk_trim(Chunk *c) {
  size_t n = (sizeof(Chunk) + c->used + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
  if (n >= c->mapped) return c->mapped;
  munmap((unsigned char *)c + n, c->mapped - n);
  return n;
}

static void spare_keep(Arena *a, void *p, size_t len) {
  Spare *sp = p;
  sp->len = len;
  sp->next = a->spare;
  a->spare = sp;
}

/* Moves the len bytes of pages at `from` to `to`, in a mapping that holds
 * only zeros there, and zeroes them again, so it still does; false (and
 * nothing moved) where the system cannot.  The pages were touched already,
 * so `to` gains them without a page fault: on a virtual machine first
 * touching memory is what costs, and memory given back to the kernel is
 * fresh again when it comes back. */
static bool pages_move(void *from, size_t len, unsigned char *to) {
#if defined(MREMAP_MAYMOVE) && defined(MREMAP_FIXED)
  void *p = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
  if (p == MAP_FAILED) return false;
  memset(p, 0, len);
  return true;
#else
  (void)from;
  (void)len;
  (void)to;
  return false;
#endif
}

/* Puts the len bytes of touched pages at p into [*to, end), as far as they
 * fit (*to advances), keeping the rest as a spare of `keeper` (NULL: the
 * rest goes back to the kernel). */
static void pages_place(void *p, size_t len, unsigned char **to,
                        unsigned char *end, Arena *keeper) {
  size_t n = *to < end ? (size_t)(end - *to) : 0;
  if (n > len) n = len;
  if (n > 0 && pages_move(p, n, *to)) {
    *to += n;
    p = (unsigned char *)p + n;
    len -= n;
  }
  if (len == 0) return;
  if (keeper)
    spare_keep(keeper, p, len);
  else
    munmap(p, len);
}

/* Fills [to, end), a fresh mapping, with a's spares, as far as they go. */
static void spares_fill(Arena *a, unsigned char *to, unsigned char *end) {
  while (a->spare && to < end) {
    Spare *sp = a->spare;
    a->spare = sp->next;
    pages_place(sp, sp->len, &to, end, a);
  }
}

/* A chunk of `bytes` (header included).  Small ones come from malloc and
 * are zeroed an object at a time (arena_alloc), so a half-filled chunk
 * touches only the pages it hands out.  A big one comes zeroed: it is
 * mapped directly, a whole number of huge pages long, so the kernel places
 * it on a huge-page boundary and, advised, backs all of it with
 * transparent huge pages (through malloc its unaligned ends would not
 * be).  Why huge pages, where THP is `madvise` only: a huge page is one
 * fault where small pages are 512, and on a virtual machine each fault
 * also exits to the hypervisor (docs/performance.md has the measurements
 * with and without the advice).  What costs either way is fresh memory,
 * so a big chunk is made of spare pages first (spares_fill). */
static Chunk *chunk_new(Arena *a, size_t bytes) {
  Chunk *c;
  size_t mapped = 0;
  if (bytes >= HUGE_PAGE) {
    mapped = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) die("out of memory mapping %zu bytes", mapped);
#ifdef MADV_HUGEPAGE
    (void)madvise(p, mapped, MADV_HUGEPAGE); /* a hint: ignored where unsupported */
#endif
    spares_fill(a, p, (unsigned char *)p + mapped);
    c = p;
    bytes = mapped;
  } else {
    c = xmalloc(bytes);
  }
  c->size = bytes - sizeof(Chunk);
  c->used = 0;
  c->mapped = mapped;
  return c;
}

Arena *arena_new(void) { return xcalloc(1, sizeof(Arena)); }

Arena *arena_scratch(Arena *owner) {
  Arena *a = arena_new();
  a->spare = owner->spare;
  owner->spare = NULL;
  return a;
}

static void chunk_free(Chunk *c) {
  if (c->mapped)
    munmap(c, c->mapped);
  else
    free(c);
}

void arena_scratch_end(Arena *a, Arena *owner) {
  if (!a) return;
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    if (c->mapped && owner)
      spare_keep(owner, c, chunk_trim(c));
    else
      chunk_free(c);
  }
  if (owner)
    for (Spare *sp = a->spare, *next; sp; sp = next) {
      next = sp->next;
      spare_keep(owner, sp, sp->len);
    }
  else
    arena_drop_spares(a);
  free(a);
}

void arena_free(Arena *a) { arena_scratch_end(a, NULL); }

void arena_drop_spares(Arena *a) {
  for (Spare *sp = a->spare, *next; sp; sp = next) {
    next = sp->next;
    munmap(sp, sp->len);
  }
  a->spare = NULL;
}

static const Chunk *chunk_of(const Arena *a, const void *p) {
  const unsigned char *b = p;
  for (const Chunk *c = a->head; c; c = c->next)
    if (b >= c->data && b < c->data + c->size) return c;
  return NULL;
}

/* Why this is safe: a regular chunk stops receiving objects once a newer
 * regular chunk is made, and a one-off chunk receives one object when it is
 * made.  So every object in a chunk made after first's chunk and before
 * last's was allocated after first and before last. */
void *arena_release_into(Arena *a, const void *first, const void *last,
                         Arena *dst, void *lo, void *hi) {
  /* The whole huge pages of [lo, hi), and only inside a big chunk of dst. */
  unsigned char *to = (unsigned char *)(((uintptr_t)lo + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  unsigned char *end = (unsigned char *)((uintptr_t)hi & ~(uintptr_t)(HUGE_PAGE - 1));
  const Chunk *into = dst && lo ? chunk_of(dst, lo) : NULL;
  if (!into || !into->mapped || (const unsigned char *)hi > into->data + into->size ||
      end < to)
    to = end = lo;
  unsigned char *start = to;
  const Chunk *from = chunk_of(a, first), *upto = chunk_of(a, last);
  if (!from || !upto) return lo;
  size_t after = from->seq, before = upto->seq;
  /* The list is (about) newest first; collected in reverse, the pages go
   * to the range about in the order they were made. */
  Chunk *freed = NULL;
  for (Chunk **link = &a->head; *link;) {
    Chunk *c = *link;
    /* Small chunks are not worth it (and the head is never between). */
    if (c->mapped && c->seq > after && c->seq < before) {
      *link = c->next;
      c->next = freed;
      freed = c;
    } else {
      link = &c->next;
    }
  }
  while (freed) {
    Chunk *c = freed;
    freed = c->next;
    pages_place(c, chunk_trim(c), &to, end, dst);
  }
  return to == start ? lo : to;
}

void arena_release_between(Arena *a, const void *first, const void *last) {
  (void)arena_release_into(a, first, last, NULL, NULL, NULL);
}

/* A new chunk for an object of n bytes (rounded) that the head chunk has
 * no room for; returns the object.  Out of line: arena_alloc's common case
 * then saves no registers and ends in a tail call. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void *arena_alloc_new_chunk(Arena *a, size_t n) {
  size_t regular = a->next ? a->next : ARENA_CHUNK;
  bool one_off = n > regular - sizeof(Chunk);
  if (!one_off && regular < ARENA_BIG)
    a->next = regular >= ARENA_SMALL_MAX && regular < HUGE_PAGE ? HUGE_PAGE
                                                                 : regular * 2;
  Chunk *c = chunk_new(a, one_off ? sizeof(Chunk) + n : regular);
  c->seq = a->nchunks++;
  /* A big one-off block goes behind the current chunk so the rest of the
   * current chunk stays usable. */
  if (a->head && one_off) {
    c->next = a->head->next;
    a->head->next = c;
  } else {
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  a->total += n;
  return c->mapped ? p : memset(p, 0, n);
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (n == 0) n = ARENA_ALIGN;
  Chunk *c = a->head;
  if (!c || c->used + n > c->size) return arena_alloc_new_chunk(a, n);
  void *p = c->data + c->used;
  c->used += n;
  a->total += n;
  /* A mapped chunk came zeroed from the kernel. */
  return c->mapped ? p : memset(p, 0, n);
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

size_t arena_bytes_held(const Arena *a) {
  size_t n = 0;
  for (const Chunk *c = a->head; c; c = c->next) n += sizeof(Chunk) + c->size;
  for (const Spare *sp = a->spare; sp; sp = sp->next) n += sp->len;
  return n;
}
