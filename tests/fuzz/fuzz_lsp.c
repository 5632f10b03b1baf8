/* SPDX-License-Identifier: MIT */
/*
 * fuzz_lsp.c: the libFuzzer harness of the language server's message
 * reader (src/lsp/transport.c), and of the server behind it.  The first
 * byte picks: even, the reader alone on the rest, handed over in chunks
 * of 1 to 16 bytes (the byte's high bits) so that every header and body
 * boundary falls inside a read; odd, the whole server (lsp_serve) on the
 * rest as its standard input, answering to /dev/null.  The reader must
 * make progress on every call (a message, a skipped frame or the end),
 * never hand out a body over the limit or more bytes than it was given;
 * a crash, a sanitizer report, a leak or a hang is a bug.
 *
 * Built by `make fuzz`; tests/fuzz/run.sh seeds it with
 * tests/fuzz/lsp-seeds/ (a whole session, framed).
 */
#include "lsp/server.h"
#include "lsp/transport.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Feed {
  const uint8_t *data;
  size_t size, pos, chunk;
} Feed;

static long feed_read(void *ctx, char *buf, size_t n) {
  Feed *f = ctx;
  size_t k = f->size - f->pos;
  if (k > f->chunk) k = f->chunk;
  if (k > n) k = n;
  memcpy(buf, f->data + f->pos, k);
  f->pos += k;
  return (long)k;
}

static void reader_alone(const uint8_t *data, size_t size, size_t chunk) {
  Feed f = {data, size, 0, chunk};
  LspReader r;
  lsp_reader_init(&r, feed_read, NULL, &f);
  size_t bodies = 0;
  for (size_t calls = 0;; calls++) {
    if (calls > size + 1) abort(); /* no progress */
    char *body = NULL;
    size_t len = 0;
    LspReadStatus st = lsp_read_message(&r, &body, &len);
    if (st == LSP_EOF) break;
    if (st == LSP_MESSAGE) {
      if (len > LSP_MAX_BODY || body[len] != '\0') abort();
      bodies += len;
      if (bodies > size) abort();
    }
    free(body);
  }
  lsp_reader_free(&r);
}

static void whole_server(const uint8_t *data, size_t size) {
  FILE *in = tmpfile();
  int out = open("/dev/null", O_WRONLY);
  if (!in || out < 0) abort();
  if (size && fwrite(data, 1, size, in) != size) abort();
  fflush(in);
  lseek(fileno(in), 0, SEEK_SET);
  lsp_serve(fileno(in), out);
  fclose(in);
  close(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) whole_server(data + 1, size - 1);
  else reader_alone(data + 1, size - 1, 1 + (data[0] >> 4));
  return 0;
}
