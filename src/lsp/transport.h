/* SPDX-License-Identifier: MIT */
/*
 * transport.h: the Language Server Protocol's base protocol, alone: each
 * message a header block ("Content-Length: N" and other header lines, each
 * ending in CRLF, then an empty line) and N bytes of body.  It knows
 * nothing of JSON; the server (server.c) parses the bodies.  The bytes
 * come through a read function, so the fuzz target feeds it from memory.
 */
#ifndef ROOFLINT_LSP_TRANSPORT_H
#define ROOFLINT_LSP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

/* The largest body accepted (R-LSP-003): a 2,000-line model is 80 KB,
 * a generous document a few MB; past this a message is skipped, not
 * kept. */
#define LSP_MAX_BODY ((size_t)64 << 20)
/* The largest header block: a real one is two short lines. */
#define LSP_MAX_HEADER 4096

/* Reads up to n bytes into buf: how many, 0 at the end of the input, -1
 * on an error. */
typedef long (*LspReadFn)(void *ctx, char *buf, size_t n);
/* Whether more input is waiting now, without blocking (NULL: never). */
typedef bool (*LspReadyFn)(void *ctx);

typedef struct LspReader {
  LspReadFn read;
  LspReadyFn ready;
  void *ctx;
  char *buf;        /* bytes read and not yet consumed: buf[pos, len) */
  size_t pos, len, cap;
  bool eof;
} LspReader;

typedef enum LspReadStatus {
  LSP_MESSAGE,   /* *body holds a message (NUL-terminated, xmalloc'd) */
  LSP_EOF,       /* the input ended between messages */
  LSP_BAD_FRAME, /* a header block without a valid Content-Length, or the
                    input ended inside a message: skipped */
  LSP_TOO_LARGE, /* a body over LSP_MAX_BODY: skipped unread */
} LspReadStatus;

void lsp_reader_init(LspReader *r, LspReadFn read, LspReadyFn ready, void *ctx);
void lsp_reader_free(LspReader *r);
/* The next message.  After LSP_BAD_FRAME the reader has skipped to the
 * next line that starts a header block, so one damaged message costs
 * that message only. */
LspReadStatus lsp_read_message(LspReader *r, char **body, size_t *len);
/* Whether a message (or part of one) is waiting: buffered, or ready on
 * the input. */
bool lsp_reader_pending(LspReader *r);

/* Read and ready functions over a file descriptor (ctx points at the int). */
long lsp_fd_read(void *ctx, char *buf, size_t n);
bool lsp_fd_ready(void *ctx);
/* Writes one message with its header to fd; false when the write failed. */
bool lsp_write_message(int fd, const char *body, size_t len);

#endif
