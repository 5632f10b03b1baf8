/* SPDX-License-Identifier: MIT */
/*
 * parallel.h: what sema asks of the parallel plan (parallel.c) while it
 * builds the graph, private to the two: the plan's defaults, its rules
 * once the `parallel { }` keys are read, and the checks on a finished
 * model; and the one thing the cost asks of it, the repeat a pipeline
 * splits.  The plan itself, and where each group is placed, are in
 * rooflint.h for the stages after the graph.
 */
#ifndef ROOFLINT_PARALLEL_H
#define ROOFLINT_PARALLEL_H

#include "rooflint.h"

/* The plan without a block: one GPU, every group of size 1. */
void parallel_default(Parallel *p);
/* After the keys are read (`given` per parallel_keys row): the derived
 * defaults and the consistency rules; errors at `at`, the block. */
void parallel_resolve(Parallel *p, const bool *given, Loc at, DiagSink *diags);
/* R-PAR-008: errors for row-parallel partial sums read unreduced. */
void parallel_check_partials(Model *m, DiagSink *diags);
/* R-PAR-001: the expert degree divides every experts block's count. */
void parallel_check_experts(Model *m, DiagSink *diags);
/* R-PAR-009: the repeat the stages split must exist and divide evenly. */
void parallel_check_pipeline(const Model *m, DiagSink *diags);

/* R-PAR-009: the top-level repeat a pipeline splits (most trips, first on
 * ties), -1 if none. */
int parallel_pipeline_scope(const Model *m);

#endif
