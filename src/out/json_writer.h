/* SPDX-License-Identifier: MIT */
/*
 * json_writer.h: JSON written as it is made, for the JSON document
 * (json.c), SARIF (sarif.c) and `diff --format json` (diff.c).  The text
 * is jansson's, byte for byte: json_dumpf(JSON_INDENT(2) |
 * JSON_PRESERVE_ORDER) of the whole tree.
 */
#ifndef ROOFLINT_JSON_WRITER_H
#define ROOFLINT_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Values as jansson json_t *, for what is built as a tree (json_out_put):
 * a string that is never NULL (invalid UTF-8 bytes become U+FFFD; NULL
 * becomes JSON null), and a number (integral values as integers,
 * non-finite ones as null). */
struct json_t;
struct json_t *json_safe_string(const char *s);
struct json_t *json_base_number(double v);
/* A JSON document written as it is made, so that its memory is one node's,
 * not the document's: containers are opened and closed here, scalars are
 * written directly (json_out_str .. json_out_null), and a value built as a
 * jansson tree is dumped and freed at once (json_out_put).  The text is
 * byte for byte what json_dumpf(JSON_INDENT(2) | JSON_PRESERVE_ORDER)
 * writes for the whole tree.  `key` is a plain ASCII literal (it is not
 * escaped) inside an object, NULL inside an array or at the top. */
enum { JSON_OUT_DEPTH = 32 };
typedef struct JsonOut {
  FILE *out;
  int depth;
  bool any[JSON_OUT_DEPTH]; /* per open container: a member written */
  size_t len;               /* text waiting in buf for one fwrite */
  char buf[1 << 16];
} JsonOut;
/* A writer on `out` with the document's top-level object open; finish
 * closes it, ends the line and frees the writer. */
JsonOut *json_out_begin(FILE *out);
void json_out_finish(JsonOut *w);
void json_out_put(JsonOut *w, const char *key, struct json_t *v); /* steals v */
/* json_safe_string's text (NULL: null); json_base_number's (integral
 * values as integers, non-finite ones as null); a real always as a real
 * (jansson's "%.17g", with ".0" where that has no '.' or 'e'). */
void json_out_real(JsonOut *w, const char *key, double v);
/* json_out_open(w, key, bracket) '{' or '[', json_out_close(w, bracket),
 * json_out_str(w, key, s), json_out_num(w, key, v), json_out_int(w, key,
 * v), json_out_bool(w, key, v), json_out_null(w, key): inline, below. */

/* For a document that keeps the text of values it writes often (json.c's
 * rows): json_out_member writes what comes before a member's value (a
 * comma, the line break and indentation, the key) and returns where the
 * value goes, with JSON_OUT_ROOM bytes of room there; json_out_end takes
 * the end of the value copied there.  json_num_text writes json_out_num's
 * text of v at p (JSON_OUT_ROOM bytes there) and returns its end, or NULL
 * where json_out_num hands v to jansson. */
enum { JSON_OUT_ROOM = 64 };
char *json_num_text(char *p, double v);

/* ------------------------------------------------------------------------
 * The member writers are inline where they are called: a member is most of
 * a document's lines, and with the key a literal its length and its copy
 * are the compiler's.  What they call out of line is json_writer.c's. */
#include <string.h>
#if defined(__GNUC__)
#define JSON_OUT_INLINE static inline __attribute__((always_inline))
#else
#define JSON_OUT_INLINE static inline
#endif
enum { JSON_OUT_KEY_ROOM = 64 };
extern const char json_out_blanks[2 * JSON_OUT_DEPTH + 1]; /* two a level */
void json_out_flush(JsonOut *w);
char *json_out_long_key(JsonOut *w, char *p, const char *key, size_t klen);
char *json_out_uint_text(char *p, unsigned long long u);
void json_out_string_text(JsonOut *w, char *p, const char *s);
void json_out_num_jansson(JsonOut *w, double v);

/* Room for n more bytes (n at most the buffer's size) at buf + len. */
JSON_OUT_INLINE char *json_out_room(JsonOut *w, size_t n) {
  if (sizeof w->buf - w->len < n) json_out_flush(w);
  return w->buf + w->len;
}

/* What jansson writes before a member: a comma after the one before it,
 * a line break and the member's indentation; then its key. */
JSON_OUT_INLINE char *json_out_member(JsonOut *w, const char *key) {
  char *p = json_out_room(w, 2 + sizeof json_out_blanks + JSON_OUT_KEY_ROOM + 4 + JSON_OUT_ROOM);
  /* The writer's state is read before the text is stored: a store through
   * p may alias it, so the compiler would read it again after each. */
  int depth = w->depth;
  if (depth > 0) {
    bool comma = w->any[depth - 1];
    w->any[depth - 1] = true;
    p[0] = ',';
    p += comma;
    *p++ = '\n';
    memcpy(p, json_out_blanks, sizeof json_out_blanks - 1); /* one fixed-size copy */
    p += 2 * depth;
  }
  if (!key) return p;
  *p++ = '"';
  size_t klen = strlen(key);
  if (klen > JSON_OUT_KEY_ROOM) return json_out_long_key(w, p, key, klen); /* not one of ours */
  memcpy(p, key, klen);
  memcpy(p + klen, "\": ", 3);
  return p + klen + 3;
}

/* The document is out when its top-level value is. */
JSON_OUT_INLINE void json_out_end(JsonOut *w, char *end) {
  w->len = (size_t)(end - w->buf);
  if (w->depth == 0) json_out_flush(w);
}

JSON_OUT_INLINE void json_out_open(JsonOut *w, const char *key, char bracket) {
  char *p = json_out_member(w, key);
  *p++ = bracket;
  w->len = (size_t)(p - w->buf);
  if (w->depth >= JSON_OUT_DEPTH) abort(); /* the writers nest 6 deep */
  w->any[w->depth++] = false;
}

/* An empty container is "{}" or "[]", as jansson writes it. */
JSON_OUT_INLINE void json_out_close(JsonOut *w, char bracket) {
  char *p = json_out_room(w, 2 + sizeof json_out_blanks);
  if (w->any[--w->depth]) {
    *p++ = '\n';
    memcpy(p, json_out_blanks, sizeof json_out_blanks - 1);
    p += 2 * w->depth;
  }
  *p++ = bracket;
  json_out_end(w, p);
}

/* The scalars, written directly in jansson's syntax (json_dump_callback
 * would need a json_t per value, which is most of a node's time). */
JSON_OUT_INLINE void json_out_null(JsonOut *w, const char *key) {
  char *p = json_out_member(w, key);
  memcpy(p, "null", 4);
  json_out_end(w, p + 4);
}

JSON_OUT_INLINE void json_out_bool(JsonOut *w, const char *key, bool v) {
  char *p = json_out_member(w, key);
  memcpy(p, v ? "true" : "false", 5);
  json_out_end(w, p + (v ? 4 : 5));
}

JSON_OUT_INLINE void json_out_int(JsonOut *w, const char *key, long long v) {
  char *p = json_out_member(w, key);
  if (v >= 0 && v < 10) /* most of them: 0, 1, a column */
    *p++ = (char)('0' + v);
  else if (v < 0)
    *p = '-', p = json_out_uint_text(p + 1, 0ull - (unsigned long long)v);
  else
    p = json_out_uint_text(p, (unsigned long long)v);
  json_out_end(w, p);
}

JSON_OUT_INLINE void json_out_num(JsonOut *w, const char *key, double v) {
  char *p = json_out_member(w, key);
  char *end = json_num_text(p, v);
  if (!end) {
    w->len = (size_t)(p - w->buf);
    json_out_num_jansson(w, v);
    return;
  }
  json_out_end(w, end);
}

JSON_OUT_INLINE void json_out_str(JsonOut *w, const char *key, const char *s) {
  if (s) json_out_string_text(w, json_out_member(w, key), s);
  else json_out_null(w, key);
}

#endif /* ROOFLINT_JSON_WRITER_H */
