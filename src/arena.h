/* SPDX-License-Identifier: MIT */
/*
 * arena.h: how arenas hand pages on to each other, for the few places
 * that pass memory along instead of back to the kernel: sema consuming the
 * tree, a stage's scratch arena, the driver between sema and the cost.
 * Every other module only allocates and frees (rooflint.h).  Why: on a
 * virtual machine, memory touched for the first time costs a page fault
 * that exits to the hypervisor, and memory given back to the kernel is
 * fresh again when it comes back (docs/performance.md).  No object
 * outlives its arena either way.
 */
#ifndef ROOFLINT_ARENA_H
#define ROOFLINT_ARENA_H

#include "rooflint.h"

/* An arena for one stage's scratch that takes owner's spare pages for its
 * big chunks first; arena_scratch_end(it, owner) gives them back. */
Arena *arena_scratch(Arena *owner);
/* Frees `scratch` (any arena), and its big chunks, pages already touched,
 * are kept by owner for its next big chunks instead of going back to the
 * kernel: a stage's scratch freed before the next stage allocates.  owner
 * NULL: as arena_free. */
void arena_scratch_end(Arena *scratch, Arena *owner);
/* Gives a's spare pages back to the kernel: what needed them is made. */
void arena_drop_spares(Arena *a);

/* Frees, early, the objects allocated after `first` and before `last`
 * (both objects of `a`), as far as they fill whole big chunks; the rest
 * stays until arena_free.  For a pass that consumes a tree in allocation
 * order: what it has read it will not read again, and its pages go back
 * before the next stage asks for new ones. */
void arena_release_between(Arena *a, const void *first, const void *last);
/* The same, and the pages of what is released go, as far as they fit, to
 * [lo, hi) in a big block of dst (one of its objects) that holds nothing
 * but zeros yet, still all zeros, instead of back to the kernel: the pass
 * that consumes the tree fills a block as big as it as it goes, and
 * memory already touched costs no page fault; what does not fit dst keeps
 * for its next big chunks (arena_scratch_end).  Returns the end of the
 * part of [lo, hi) that holds released pages (lo if none); what is moved
 * is whole huge pages.  dst NULL: as arena_release_between. */
void *arena_release_into(Arena *a, const void *first, const void *last,
                         Arena *dst, void *lo, void *hi);

/* Bytes in chunks, headers included, and in spare pages. */
size_t arena_bytes_held(const Arena *a);

#endif /* ROOFLINT_ARENA_H */
