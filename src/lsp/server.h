/* SPDX-License-Identifier: MIT */
/*
 * server.h: `rooflint lsp`, the language server (specs/lsp.md).  It sits
 * on top of the pipeline as the command line does: it runs analyze_file on
 * each open document and reads the analysis.
 */
#ifndef ROOFLINT_LSP_SERVER_H
#define ROOFLINT_LSP_SERVER_H

/* Serves one client on in_fd/out_fd until `exit` or the end of the input:
 * 0 after `shutdown` then `exit`, else 1 (R-LSP-004). */
int lsp_serve(int in_fd, int out_fd);

#endif
