/* SPDX-License-Identifier: MIT */
/*
 * cli_shim.h: force-included (-include) when src/main.c is compiled into
 * the fuzz_cli target (tests/fuzz/fuzz_cli.c), so that the real command line
 * can run many times in one process:
 *   - main becomes rooflint_main, which the harness calls with an argv;
 *   - fclose(stdout) at the end of a run only flushes it (fuzz_cli.c), so
 *     the next run still has a standard output; any other fclose is real.
 * Nothing else of main.c changes.
 */
#ifndef ROOFLINT_FUZZ_CLI_SHIM_H
#define ROOFLINT_FUZZ_CLI_SHIM_H
#include <stdio.h>

int rooflint_main(int argc, char **argv);
int fuzz_fclose(FILE *f);

#define main rooflint_main
#define fclose fuzz_fclose
#endif
