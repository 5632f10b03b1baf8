/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h: `rooflint calibrate`, which measures the user's own device
 * with PyTorch (share/rooflint/calibrate.py) and writes a target card of
 * what it measured (specs/calibrate.md).  main.c runs it; the card's
 * writer and the match of a device to a built-in card are here too, for
 * the unit tests.
 */
#ifndef ROOFLINT_CALIBRATE_H
#define ROOFLINT_CALIBRATE_H

#include "rooflint.h"

#include <stdio.h>

/* --device, in the order of its names (cli.c): CUDA if torch sees it. */
typedef enum CalibrateDevice {
  CAL_DEVICE_AUTO, CAL_DEVICE_CPU, CAL_DEVICE_CUDA
} CalibrateDevice;

enum { CAL_DEFAULT_SECONDS = 60 };

typedef struct CalibrateOptions {
  CalibrateDevice device;
  double seconds;     /* the whole run's bound, Python's start included */
  const char *output; /* the card's file; NULL or "-": `out` */
} CalibrateOptions;

/* Runs the script, writes the card to o->output (or `out`), and says what
 * it measured on `out` when the card went to a file.  Returns the exit
 * status: 0, or 2 with an error in `diags`. */
int calibrate_run(const CalibrateOptions *o, Arena *a, SourceSet *ss,
                  DiagSink *diags, FILE *out);

/* The card for the script's JSON document (`json`, len bytes), NUL-
 * terminated in the arena; NULL after an error in `diags`.  The card is
 * not yet checked by the target parser: calibrate_run does that. */
char *calibrate_card(Arena *a, SourceSet *ss, const char *json, size_t len,
                     DiagSink *diags);

/* The built-in target a device is (its name as the driver reports it and
 * its SM or CU count), or NULL when none is, or several could be. */
const Target *calibrate_match(const TargetSet *builtins, const char *device,
                              int units);

#endif
