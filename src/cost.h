/* SPDX-License-Identifier: MIT */
/*
 * cost.h: what the checks ask of the cost model beyond a ModelCost
 * (rooflint.h): the cross-node check weighs another plan's gradient
 * synchronisation and footprint with these.
 */
#ifndef ROOFLINT_COST_H
#define ROOFLINT_COST_H

#include "rooflint.h"

/* At most this many implicit collectives per train step (ZeRO-3 with
 * hybrid sharding: two all-gathers, a reduce-scatter, an all-reduce). */
#define COST_MAX_SYNC 4
/* R-PAR-005: the implicit collectives of a train step under plan p, for
 * `weights` bytes of weights per GPU, into out[COST_MAX_SYNC]; how many. */
int cost_grad_sync(const Parallel *p, const Target *t, double weights,
                   double grads, Collective *out);
/* R-PAR-004: the footprint per GPU under ZeRO stage `zero` over `ns`. */
Footprint cost_footprint_sharded(const Footprint *whole, int64_t zero,
                                 int64_t ns);

#endif
