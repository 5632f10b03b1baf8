/* SPDX-License-Identifier: MIT */
/*
 * util.c: the few generic services every stage uses.  Allocation wrappers
 * never return NULL (running out of memory is not a user error we can
 * report usefully), die() is for broken invariants only, StrBuf is a
 * growable string, StrMap an open-addressing hash map keyed by strings, and
 * util_suggest() powers every "did you mean".
 */
#include "rooflint.h"
#include "util.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A block of a huge page or more is a big block: it starts on a huge-page
 * boundary, spans whole huge pages, and is advised for transparent huge
 * pages before anything touches it (advice after a realloc's memcpy, or on
 * unaligned ends, comes too late: those pages are already small ones).
 * Big blocks still come from malloc, so free() takes them like any other;
 * growing one copies it into a new big block (a doubling array copies its
 * final size once in all).  An array that grows past GROWING_BIG is likely
 * to go on growing (the statement stack, the line table): it moves to a
 * big block then.  Blocks under a huge page stay on small pages: huge
 * ones there grow the memory for no time saved (docs/performance.md).
 * Why huge pages at all: see chunk_new in arena.c. */
enum { HUGE_PAGE = 2 * 1024 * 1024, GROWING_BIG = HUGE_PAGE / 4 };

static size_t huge_span(size_t n) {
  return (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

static void *big_alloc(size_t n) {
  if (n > SIZE_MAX - HUGE_PAGE) die("out of memory allocating %zu bytes", n);
  size_t span = huge_span(n);
  void *p = aligned_alloc(HUGE_PAGE, span);
  if (!p) die("out of memory allocating %zu bytes", n);
#ifdef MADV_HUGEPAGE
  (void)madvise(p, span, MADV_HUGEPAGE); /* a hint: ignored where unsupported */
#endif
  return p;
}

void *xmalloc(size_t n) {
  if (n >= HUGE_PAGE) return big_alloc(n);
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory allocating %zu bytes", n);
  return p;
}

void *xcalloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    die("out of memory allocating %zu x %zu bytes", count, size);
  if (count * size >= HUGE_PAGE) return memset(big_alloc(count * size), 0, count * size);
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) die("out of memory allocating %zu x %zu bytes", count, size);
  return p;
}

void *xrealloc(void *p, size_t n) {
  if (n >= GROWING_BIG) {
    size_t have = p ? malloc_usable_size(p) : 0;
    if (have >= n) return p;
    void *q = big_alloc(n > HUGE_PAGE ? n : HUGE_PAGE);
    if (have) memcpy(q, p, have);
    free(p);
    return q;
  }
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory reallocating %zu bytes", n);
  return q;
}

char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xmalloc(n), s, n);
}

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("rooflint: internal error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  /* stderr is fully buffered (main.c): flush, or abort() loses the message. */
  fflush(stderr);
  abort();
}

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1) cap *= 2;
  sb->data = xrealloc(sb->data, cap);
  sb->cap = cap;
}

void sb_putn_grow(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

/* v in decimal, as "%lld" writes it, without printf (the importer writes
 * a few numbers per node). */
void sb_put_int(StrBuf *sb, long long v) {
  char buf[24], *p = buf + sizeof buf;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) *--p = '-';
  sb_putn(sb, p, (size_t)(buf + sizeof buf - p));
}

/* One vsnprintf when the text fits the room left (the common case: a
 * buffer that has grown), a second only after growing it. */
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  size_t room = sb->cap - sb->len; /* 0 for an empty buffer (data NULL) */
  int n = vsnprintf(room ? sb->data + sb->len : NULL, room, fmt, ap2);
  va_end(ap2);
  if (n < 0) die("vsnprintf failed on format \"%s\"", fmt);
  if ((size_t)n >= room) {
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  }
  sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

const char *sb_str(const StrBuf *sb) { return sb->data ? sb->data : ""; }

void sb_free(StrBuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

/* Eight bytes at a time (a byte at a time made hashing most of an ONNX
 * import's map lookups): each word is xored in, multiplied and folded (a
 * name of 8 bytes or more ends with its last 8 bytes as one word, which
 * may overlap the one before; a shorter one is one word), then a final
 * mix, so the low bits, which pick the slot, depend on every byte (names
 * that differ only in their last characters, L0 .. L59999, must not make
 * long probe runs).  Only this process sees the values: byte order does
 * not matter. */
static inline uint64_t hash_word(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0x9E3779B97F4A7C15u;
  return h ^ (h >> 32);
}

uint64_t hash_bytes(const void *bytes, size_t n) {
  const char *s = bytes;
  uint64_t h = 1469598103934665603u ^ n, w;
  if (n >= 8) {
    const char *last = s + n - 8;
    for (; s < last; s += 8) {
      memcpy(&w, s, sizeof w);
      h = hash_word(h, w);
    }
    memcpy(&w, last, sizeof w);
    h = hash_word(h, w);
  } else {
    w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = hash_word(h, w);
  }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9u;
  return h ^ (h >> 32);
}

static uint64_t hash_str(const char *s) { return hash_bytes(s, strlen(s)); }

void strmap_init(StrMap *m) { memset(m, 0, sizeof *m); }

void strmap_free(StrMap *m) {
  free(m->keys);
  free(m->vals);
  free(m->hashes);
  strmap_init(m);
}

static size_t strmap_slot(const StrMap *m, const char *key, uint64_t h) {
  size_t mask = m->cap - 1, i = (size_t)h & mask;
  while (m->keys[i] && (m->hashes[i] != h || strcmp(m->keys[i], key) != 0))
    i = (i + 1) & mask;
  return i;
}

void *strmap_get(const StrMap *m, const char *key) {
  if (m->cap == 0) return NULL;
  size_t i = strmap_slot(m, key, hash_str(key));
  return m->keys[i] ? m->vals[i] : NULL;
}

static void strmap_insert(StrMap *m, const char *key, void *val, uint64_t h);

static void strmap_grow(StrMap *m) {
  StrMap old = *m;
  m->cap = old.cap ? old.cap * 2 : 16;
  m->keys = xcalloc(m->cap, sizeof *m->keys);
  m->vals = xcalloc(m->cap, sizeof *m->vals);
  m->hashes = xcalloc(m->cap, sizeof *m->hashes);
  m->len = 0;
  for (size_t i = 0; i < old.cap; i++)
    if (old.keys[i]) strmap_insert(m, old.keys[i], old.vals[i], old.hashes[i]);
  free(old.keys);
  free(old.vals);
  free(old.hashes);
}

static void strmap_insert(StrMap *m, const char *key, void *val, uint64_t h) {
  if ((m->len + 1) * 4 > m->cap * 3) strmap_grow(m);
  size_t i = strmap_slot(m, key, h);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->hashes[i] = h;
    m->len++;
  }
  m->vals[i] = val;
}

void strmap_put(StrMap *m, const char *key, void *val) {
  strmap_insert(m, key, val, hash_str(key));
}

void **strmap_ref(StrMap *m, const char *key) {
  uint64_t h = hash_str(key);
  if ((m->len + 1) * 4 > m->cap * 3) strmap_grow(m);
  size_t i = strmap_slot(m, key, h);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->hashes[i] = h;
    m->vals[i] = NULL;
    m->len++;
  }
  return &m->vals[i];
}

/* Fibonacci hashing of the address: the low bits of arena pointers are
 * all alike (8-byte alignment); the multiply carries every bit upwards and
 * the fold brings the well-mixed high half back down. */
static size_t ptrmap_slot(const PtrMap *m, const void *key) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15u;
  size_t mask = m->cap - 1, i = (size_t)(h ^ (h >> 32)) & mask;
  while (m->slots[i].key && m->slots[i].key != key) i = (i + 1) & mask;
  return i;
}

void ptrmap_init(PtrMap *m) { memset(m, 0, sizeof *m); }

void ptrmap_free(PtrMap *m) {
  free(m->slots);
  ptrmap_init(m);
}

void *ptrmap_get(const PtrMap *m, const void *key) {
  if (m->cap == 0) return NULL;
  return m->slots[ptrmap_slot(m, key)].val;
}

static void ptrmap_grow(PtrMap *m) {
  PtrMap old = *m;
  m->cap = old.cap ? old.cap * 2 : 16;
  m->slots = xcalloc(m->cap, sizeof *m->slots);
  m->len = 0;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].key) ptrmap_put(m, old.slots[i].key, old.slots[i].val);
  free(old.slots);
}

void **ptrmap_ref(PtrMap *m, const void *key) {
  if ((m->len + 1) * 4 > m->cap * 3) ptrmap_grow(m);
  PtrSlot *slot = &m->slots[ptrmap_slot(m, key)];
  if (!slot->key) {
    slot->key = key;
    slot->val = NULL;
    m->len++;
  }
  return &slot->val;
}

void ptrmap_put(PtrMap *m, const void *key, void *val) { *ptrmap_ref(m, key) = val; }

int util_edit_distance(const char *a, const char *b, int cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return cap + 1;
  if ((la > lb ? la - lb : lb - la) > (size_t)cap) return cap + 1;
  int row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    int best = row[0];
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j];
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int v = diag + cost;
      if (up + 1 < v) v = up + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      row[j] = v;
      diag = up;
      if (v < best) best = v;
    }
    if (best > cap) return cap + 1;
  }
  return row[lb] > cap ? cap + 1 : row[lb];
}

const char *util_suggest(const char *word, const char *const *candidates) {
  /* A third of the word's length, at least 1 and at most 3 edits: close
   * enough to be a typo, far enough not to suggest nonsense. */
  int len = (int)strlen(word);
  int cap = len / 3;
  if (cap < 1) cap = 1;
  if (cap > 3) cap = 3;
  const char *best = NULL;
  int best_d = cap + 1;
  for (const char *const *c = candidates; *c; c++) {
    int d = util_edit_distance(word, *c, cap);
    if (d < best_d) {
      best_d = d;
      best = *c;
    }
  }
  return best;
}

bool util_mul_i64(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

bool util_add_i64(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
