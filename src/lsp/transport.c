/* SPDX-License-Identifier: MIT */
/*
 * transport.c: Content-Length framing (transport.h).  A damaged frame is
 * skipped up to the next "Content-Length" so the messages after it are
 * still read (R-LSP-002); a body over the limit is skipped without being
 * kept (R-LSP-003).  Bytes read are kept in one buffer that is compacted,
 * never copied per message but for the body handed out.
 */
#include "lsp/transport.h"
#include "rooflint.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { READ_CHUNK = 1 << 16 };

static const char CONTENT_LENGTH[] = "Content-Length";

void lsp_reader_init(LspReader *r, LspReadFn read, LspReadyFn ready, void *ctx) {
  memset(r, 0, sizeof *r);
  r->read = read;
  r->ready = ready;
  r->ctx = ctx;
}

void lsp_reader_free(LspReader *r) {
  free(r->buf);
  r->buf = NULL;
  r->pos = r->len = r->cap = 0;
}

static size_t buffered(const LspReader *r) { return r->len - r->pos; }

/* Reads once more, keeping room for at least `want` bytes buffered in
 * all; false at the end of the input. */
static bool fill(LspReader *r, size_t want) {
  if (r->eof) return false;
  if (r->pos > 0) {
    memmove(r->buf, r->buf + r->pos, buffered(r));
    r->len -= r->pos;
    r->pos = 0;
  }
  size_t need = (want > r->len ? want : r->len) + READ_CHUNK;
  if (need > r->cap) {
    r->cap = need;
    r->buf = xrealloc(r->buf, r->cap + 1);
  }
  long got = r->read(r->ctx, r->buf + r->len, r->cap - r->len);
  if (got <= 0) {
    r->eof = true;
    return false;
  }
  r->len += (size_t)got;
  return true;
}

/* The offset just past the "\r\n\r\n" that ends the header block at pos,
 * or 0 when it is not (yet) buffered. */
static size_t header_end(const LspReader *r) {
  for (size_t i = r->pos; i + 4 <= r->len; i++)
    if (memcmp(r->buf + i, "\r\n\r\n", 4) == 0) return i + 4;
  return 0;
}

/* A header's value as a length: decimal digits, spaces around them. */
static bool parse_length(const char *s, const char *end, size_t *out) {
  while (s < end && *s == ' ') s++;
  while (end > s && end[-1] == ' ') end--;
  if (s == end) return false;
  size_t n = 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9') return false;
    if (n > (SIZE_MAX - 9) / 10) return false;
    n = n * 10 + (size_t)(*s - '0');
  }
  *out = n;
  return true;
}

/* The Content-Length of the header block [s, end) (its lines, without
 * the blank line); false when it has none, or a malformed line. */
static bool parse_header(const char *s, const char *end, size_t *length) {
  bool found = false;
  while (s < end) {
    const char *eol = s;
    while (eol + 1 < end && !(eol[0] == '\r' && eol[1] == '\n')) eol++;
    if (eol + 1 >= end) eol = end;
    const char *colon = memchr(s, ':', (size_t)(eol - s));
    if (!colon || colon == s) return false;
    size_t n = 0;
    if ((size_t)(colon - s) == sizeof CONTENT_LENGTH - 1 &&
        strncasecmp(s, CONTENT_LENGTH, sizeof CONTENT_LENGTH - 1) == 0) {
      if (!parse_length(colon + 1, eol, &n) || (found && n != *length))
        return false;
      *length = n;
      found = true;
    }
    s = eol + 2;
  }
  return found;
}

/* After a damaged header: on to the next "Content-Length" past pos, if
 * one is buffered before `limit`, else to limit. */
static void resync(LspReader *r, size_t limit) {
  size_t n = sizeof CONTENT_LENGTH - 1;
  for (size_t i = r->pos + 1; i + n <= limit; i++)
    if (strncasecmp(r->buf + i, CONTENT_LENGTH, n) == 0) {
      r->pos = i;
      return;
    }
  r->pos = limit;
}

/* Skips a body of n bytes that is too large to keep. */
static void skip_body(LspReader *r, size_t n) {
  for (;;) {
    size_t have = buffered(r) < n ? buffered(r) : n;
    r->pos += have;
    n -= have;
    if (n == 0) return;
    r->pos = r->len = 0;
    if (!fill(r, 0)) return;
  }
}

/* The header block at pos, once buffered: its end, or 0 at the end of the
 * input (*status says how it ended). */
static size_t read_header(LspReader *r, LspReadStatus *status) {
  size_t end;
  while ((end = header_end(r)) == 0) {
    if (buffered(r) > LSP_MAX_HEADER) {
      resync(r, r->len - 3);
      *status = LSP_BAD_FRAME;
      return 0;
    }
    if (!fill(r, 0)) {
      /* blank lines after the last message are not a message */
      bool blank = true;
      for (size_t i = r->pos; i < r->len; i++)
        blank = blank && (r->buf[i] == '\r' || r->buf[i] == '\n');
      *status = blank ? LSP_EOF : LSP_BAD_FRAME;
      r->pos = r->len;
      return 0;
    }
  }
  return end;
}

LspReadStatus lsp_read_message(LspReader *r, char **body, size_t *len) {
  LspReadStatus status = LSP_EOF;
  size_t end = read_header(r, &status);
  if (end == 0) return status;
  size_t n = 0;
  if (!parse_header(r->buf + r->pos, r->buf + end - 4, &n)) {
    resync(r, end);
    return LSP_BAD_FRAME;
  }
  r->pos = end;
  if (n > LSP_MAX_BODY) {
    skip_body(r, n);
    return LSP_TOO_LARGE;
  }
  while (buffered(r) < n)
    if (!fill(r, n)) {
      r->pos = r->len;
      return LSP_BAD_FRAME;
    }
  *body = xmalloc(n + 1);
  memcpy(*body, r->buf + r->pos, n);
  (*body)[n] = '\0';
  *len = n;
  r->pos += n;
  return LSP_MESSAGE;
}

bool lsp_reader_pending(LspReader *r) {
  return buffered(r) > 0 || (!r->eof && r->ready && r->ready(r->ctx));
}

long lsp_fd_read(void *ctx, char *buf, size_t n) {
  int fd = *(int *)ctx;
  for (;;) {
    ssize_t got = read(fd, buf, n);
    if (got >= 0) return (long)got;
    if (errno != EINTR) return -1;
  }
}

bool lsp_fd_ready(void *ctx) {
  struct pollfd p = {.fd = *(int *)ctx, .events = POLLIN};
  return poll(&p, 1, 0) > 0;
}

static bool write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w;
    n -= (size_t)w;
  }
  return true;
}

bool lsp_write_message(int fd, const char *body, size_t len) {
  char head[64];
  int h = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
  return write_all(fd, head, (size_t)h) && write_all(fd, body, len);
}
