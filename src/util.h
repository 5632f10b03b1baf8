/* SPDX-License-Identifier: MIT */
/*
 * util.h: the support module's pieces that one family each uses, kept off
 * the shared surface (rooflint.h): the raw hash and get-or-insert probes the
 * importers' name tables are built on, and the map keyed by address.
 */
#ifndef ROOFLINT_UTIL_H
#define ROOFLINT_UTIL_H

#include "rooflint.h"

/* The hash StrMap uses, of bytes[0, n): a word at a time, mixed, so every
 * bit of the result depends on every byte (for tables of names kept
 * elsewhere, such as the ONNX reader's). */
uint64_t hash_bytes(const void *bytes, size_t n);
/* Get-or-insert in one probe: the slot of key's value, key inserted with
 * a NULL value when absent.  The pointer is valid until the next insert. */
void **strmap_ref(StrMap *m, const char *key);

/* Open-addressing map keyed by address: for keys that are unique by
 * identity, such as the names the parser interns (one copy per spelling),
 * it needs no string hashing or comparing. */
typedef struct PtrSlot {
  const void *key; /* NULL = empty slot */
  void *val;
} PtrSlot;

typedef struct PtrMap {
  PtrSlot *slots; /* key and value side by side */
  size_t cap;     /* power of two */
  size_t len;
} PtrMap;

void ptrmap_init(PtrMap *m);
void ptrmap_free(PtrMap *m);
void *ptrmap_get(const PtrMap *m, const void *key); /* NULL if absent */
void ptrmap_put(PtrMap *m, const void *key, void *val);
/* The value slot of `key`, made (holding NULL) if absent: a lookup and an
 * insert in one probe.  Valid until the next insert. */
void **ptrmap_ref(PtrMap *m, const void *key);

#endif
