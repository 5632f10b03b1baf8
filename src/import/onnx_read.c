/* SPDX-License-Identifier: MIT */
/*
 * onnx_read.c: a reader of the protobuf wire format for exactly the fields
 * of an ONNX model that onnx.h keeps.
 *
 * The wire format (protobuf.dev/programming-guides/encoding): a message is
 * a sequence of fields, each a tag varint (field_number << 3 | wire_type)
 * followed by its payload:
 *   0 VARINT  a base-128 varint, at most 10 bytes (int32, int64, enum, bool)
 *   1 I64     8 bytes little-endian (double, fixed64)
 *   2 LEN     a length varint and that many bytes (string, bytes, an
 *             embedded message, a packed repeated scalar)
 *   3 SGROUP, 4 EGROUP  deprecated groups (ONNX never uses them; skipped)
 *   5 I32     4 bytes little-endian (float, fixed32)
 * Fields may come in any order, an unknown field is skipped by its wire
 * type, a repeated scalar may be packed (one LEN) or not (one field per
 * element) and a parser must accept both, and for a singular field given
 * twice the last one wins.  (For an embedded message protobuf merges the
 * two; this reader also keeps the last: ONNX writers never repeat one.)
 *
 * The field numbers are onnx.proto's (onnx 1.12, IR version 8, the same
 * numbers through IR version 10); each parser below lists its message's.
 *
 * Every message is read in two passes over its own top-level fields (an
 * embedded message is skipped by its length in the pass that does not
 * descend into it, so each byte is looked at a bounded number of times):
 * the first checks every known field's wire type, keeps the scalars and
 * strings and counts the repeated fields; the second fills arrays of
 * exactly that size in the arena and descends into embedded messages.
 * A tensor's payload (raw_data, float_data, ...) is never looked at unless
 * its dims say it has at most ONNX_SMALL_ELEMS elements: a weight's bytes
 * are skipped by their length, so on a memory-mapped file their pages are
 * never touched.
 *
 * Graphs nest only through attributes (If's then_branch, Loop's and Scan's
 * body); the reader descends at most ONNX_MAX_DEPTH graphs deep, so the C
 * stack it uses is bounded whatever the file holds.  Groups are skipped
 * with a counter, not by recursion.
 *
 * Errors name the byte offset (from the start of the file) and the field:
 *   byte 1234: truncated varint in NodeProto.input
 * Strings are checked: a NUL byte inside any string or bytes field is an
 * error, and a name (a `string` field of onnx.proto: names, op types,
 * domains, inputs, outputs, dim_params) that is not valid UTF-8 is refused,
 * not sanitised: the importer sanitises identifiers itself, and a name
 * changed here would no longer match the same name elsewhere in the file.
 */
#include "onnx.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

static const char *wire_name(int wt) {
  static const char *const names[] = {"varint", "8-byte", "length-delimited",
                                       "start-group", "end-group", "4-byte"};
  return wt >= 0 && wt <= 5 ? names[wt] : "invalid";
}

/* A message's name and its fields' names by number, for error messages. */
typedef struct Msg {
  const char *name;
  const char *const *fields;
  unsigned nfields;
} Msg;

#define MSG(var, pname, ...)                                  \
  static const char *const var##_names[] = {__VA_ARGS__};     \
  static const Msg var = {pname, var##_names,                 \
                          sizeof var##_names / sizeof *var##_names}

/* onnx.proto's field numbers, message by message. */
MSG(M_MODEL, "ModelProto", [1] = "ir_version", [2] = "producer_name",
    [3] = "producer_version", [4] = "domain", [5] = "model_version",
    [6] = "doc_string", [7] = "graph", [8] = "opset_import",
    [14] = "metadata_props", [20] = "training_info", [25] = "functions");
MSG(M_OPSET, "OperatorSetIdProto", [1] = "domain", [2] = "version");
MSG(M_GRAPH, "GraphProto", [1] = "node", [2] = "name", [5] = "initializer",
    [10] = "doc_string", [11] = "input", [12] = "output", [13] = "value_info",
    [14] = "quantization_annotation", [15] = "sparse_initializer");
MSG(M_NODE, "NodeProto", [1] = "input", [2] = "output", [3] = "name",
    [4] = "op_type", [5] = "attribute", [6] = "doc_string", [7] = "domain");
MSG(M_ATTR, "AttributeProto", [1] = "name", [2] = "f", [3] = "i", [4] = "s",
    [5] = "t", [6] = "g", [7] = "floats", [8] = "ints", [9] = "strings",
    [10] = "tensors", [11] = "graphs", [13] = "doc_string", [14] = "tp",
    [15] = "type_protos", [20] = "type", [21] = "ref_attr_name",
    [22] = "sparse_tensor", [23] = "sparse_tensors");
MSG(M_TENSOR, "TensorProto", [1] = "dims", [2] = "data_type", [3] = "segment",
    [4] = "float_data", [5] = "int32_data", [6] = "string_data",
    [7] = "int64_data", [8] = "name", [9] = "raw_data", [10] = "double_data",
    [11] = "uint64_data", [12] = "doc_string", [13] = "external_data",
    [14] = "data_location");
MSG(M_VALUE, "ValueInfoProto", [1] = "name", [2] = "type", [3] = "doc_string");
MSG(M_TYPE, "TypeProto", [1] = "tensor_type", [4] = "sequence_type",
    [5] = "map_type", [6] = "denotation", [8] = "sparse_tensor_type",
    [9] = "optional_type");
MSG(M_TTENSOR, "TypeProto.Tensor", [1] = "elem_type", [2] = "shape");
MSG(M_SHAPE, "TensorShapeProto", [1] = "dim");
MSG(M_DIM, "TensorShapeProto.Dimension", [1] = "dim_value", [2] = "dim_param",
    [3] = "denotation");

typedef struct Rd {
  const unsigned char *b;
  size_t len;
  Arena *a;
  char *err;
  size_t errlen;
  /* rd_alloc's block: [pool, pool + pool_left) is zeroed arena memory not
   * handed out yet */
  unsigned char *pool;
  size_t pool_left;
  /* The value names met so far, each once (onnx.h: a name's id): names[id]
   * is its one copy in the arena, lens[id] its length; slots is an
   * open-addressing table of ids by hash, at most 3/4 full (a slot holds
   * the name's hash in its high half and id + 1 in its low, 0 = empty).
   * malloc'd; onnx_read frees them and leaves names in the arena. */
  const char **names;
  uint32_t *lens;
  uint32_t nnames;
  size_t cap_names; /* names' room; slots holds as many at most 3/4 full */
  uint64_t *slots;
  size_t cap_slots; /* a power of two, or 0 */
  /* The op types met so far, each once (onnx.h): a fixed table, at most
   * 3/4 full; an op type met when it is full is copied as any string. */
  struct OpType {
    const char *s; /* NULL: an empty slot */
    uint32_t len;
  } op_types[256];
  int nop_types;
} Rd;

/* What the reader allocates is many small pieces (a node's name, inputs,
 * outputs and their arrays): they are cut from blocks of POOL_BLOCK bytes
 * of the arena, so each costs a bump of a pointer; a piece over
 * POOL_DIRECT bytes is its own arena allocation.  Zeroed, like
 * arena_alloc's; `align` is 1 (strings) or 8. */
enum { POOL_BLOCK = 16384, POOL_DIRECT = 2048 };

static void *rd_alloc(Rd *r, size_t n, size_t align) {
  if (n > POOL_DIRECT) return arena_alloc(r->a, n);
  size_t pad = (size_t)(-(uintptr_t)r->pool & (align - 1));
  if (!r->pool || pad + n > r->pool_left) {
    r->pool = arena_alloc(r->a, POOL_BLOCK);
    r->pool_left = POOL_BLOCK;
    pad = 0;
  }
  void *p = r->pool + pad;
  r->pool += pad + n;
  r->pool_left -= pad + n;
  return p;
}

/* A NUL-terminated copy of bytes [start, end) of the file. */
static char *rd_strndup(Rd *r, size_t start, size_t end) {
  size_t n = end - start;
  char *p = rd_alloc(r, n + 1, 1); /* zeroed: p[n] is the NUL */
  memcpy(p, r->b + start, n);
  return p;
}

/* One field as next_field found it. */
typedef struct Field {
  uint32_t num;
  int wt;
  size_t at;         /* offset of its tag */
  size_t start, end; /* the payload: LEN's bytes, I32's or I64's bytes */
  uint64_t v;        /* VARINT's value; I32's or I64's bits */
} Field;

PRINTF_LIKE(5, 6)
static bool fail(Rd *r, size_t at, const Msg *m, uint32_t num, const char *fmt, ...) {
  if (!r->err || r->errlen == 0) return false;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (num == 0)
    snprintf(r->err, r->errlen, "byte %zu: %s in %s", at, what, m->name);
  else if (num < m->nfields && m->fields[num])
    snprintf(r->err, r->errlen, "byte %zu: %s in %s.%s", at, what, m->name,
             m->fields[num]);
  else
    snprintf(r->err, r->errlen, "byte %zu: %s in %s field %u", at, what, m->name, num);
  return false;
}

static bool rd_varint_long(Rd *r, size_t *pos, size_t end, uint64_t *out,
                           const Msg *m, uint32_t num) {
  size_t p = *pos;
  uint64_t v = 0;
  for (int i = 0; i < 10; i++) {
    if (p >= end) return fail(r, *pos, m, num, "truncated varint");
    unsigned c = r->b[p++];
    if (i == 9 && (c & 0x80))
      return fail(r, *pos, m, num, "varint longer than 10 bytes");
    if (i == 9 && c > 1) return fail(r, *pos, m, num, "varint overflows 64 bits");
    v |= (uint64_t)(c & 0x7f) << (7 * i);
    if (!(c & 0x80)) {
      *pos = p;
      *out = v;
      return true;
    }
  }
  return false; /* not reached: the tenth byte returns */
}

/* Most tags and lengths are one byte: that case inline, the rest above. */
static inline bool rd_varint(Rd *r, size_t *pos, size_t end, uint64_t *out,
                             const Msg *m, uint32_t num) {
  if (*pos < end && r->b[*pos] < 0x80) {
    *out = r->b[(*pos)++];
    return true;
  }
  return rd_varint_long(r, pos, end, out, m, num);
}

static uint64_t le_bytes(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* The payload of a field of wire type wt (not a group) at *pos. */
static bool rd_payload(Rd *r, size_t *pos, size_t end, const Msg *m, Field *f) {
  switch (f->wt) {
  case WT_VARINT: return rd_varint(r, pos, end, &f->v, m, f->num);
  case WT_I64:
  case WT_I32: {
    int n = f->wt == WT_I64 ? 8 : 4;
    if (end - *pos < (size_t)n)
      return fail(r, *pos, m, f->num, "truncated %d-byte value", n);
    f->start = *pos;
    f->end = *pos + (size_t)n;
    f->v = le_bytes(r->b + *pos, n);
    *pos += (size_t)n;
    return true;
  }
  case WT_LEN: {
    size_t at = *pos;
    uint64_t n;
    if (!rd_varint(r, pos, end, &n, m, f->num)) return false;
    if (n > end - *pos)
      return fail(r, at, m, f->num, "length %llu runs past the end of %s (%zu byte%s left)",
                  (unsigned long long)n, end == r->len ? "the file" : "the enclosing message",
                  end - *pos, end - *pos == 1 ? "" : "s");
    f->start = *pos;
    f->end = *pos + (size_t)n;
    *pos = f->end;
    return true;
  }
  default:
    return fail(r, f->at, m, f->num, "invalid wire type %d", f->wt);
  }
}

static bool rd_tag(Rd *r, size_t *pos, size_t end, const Msg *m, Field *f) {
  f->at = *pos;
  uint64_t tag;
  if (!rd_varint(r, pos, end, &tag, m, 0)) return false;
  if (tag >> 3 == 0 || tag >> 3 > 0x1FFFFFFF)
    return fail(r, f->at, m, 0, "invalid field number %llu", (unsigned long long)(tag >> 3));
  f->num = (uint32_t)(tag >> 3);
  f->wt = (int)(tag & 7);
  return true;
}

/* The next field of the message [*pos, end): 1, 0 at its end, -1 on error.
 * A group is skipped whole (with a counter: groups nest without
 * recursion) and reported as a field of wire type SGROUP.  next_field
 * below takes the common case inline and calls this for the rest. */
static int next_field_slow(Rd *r, size_t *pos, size_t end, const Msg *m, Field *f) {
  if (*pos >= end) return 0;
  if (!rd_tag(r, pos, end, m, f)) return -1;
  if (f->wt == WT_EGROUP)
    return fail(r, f->at, m, f->num, "end-group tag without a start-group"), -1;
  if (f->wt != WT_SGROUP) return rd_payload(r, pos, end, m, f) ? 1 : -1;
  size_t depth = 1;
  while (depth > 0) {
    if (*pos >= end)
      return fail(r, f->at, m, f->num, "group without an end-group tag"), -1;
    Field g;
    if (!rd_tag(r, pos, end, m, &g)) return -1;
    if (g.wt == WT_SGROUP)
      depth++;
    else if (g.wt == WT_EGROUP)
      depth--;
    else if (!rd_payload(r, pos, end, m, &g))
      return -1;
  }
  return 1;
}

/* next_field_slow's result for what nearly every field of an ONNX file
 * is: a tag of one or two bytes and a varint of at most two bytes, or a
 * length of at most three bytes whose payload fits in [*pos, end).
 * Anything else (a longer tag or varint, a length that runs past the
 * message, a group, another wire type, an invalid field number, the end)
 * goes to next_field_slow, which reads the field from its tag as before,
 * so its errors are the same.  Every byte read here is below end. */
#if defined(__GNUC__)
#define FIELD_INLINE __attribute__((always_inline)) inline
#else
#define FIELD_INLINE inline
#endif
static FIELD_INLINE int next_field(Rd *r, size_t *pos, size_t end, const Msg *m, Field *f) {
  size_t p = *pos;
  if (p < end && end - p >= 2) {
    const unsigned char *b = r->b;
    unsigned t = b[p];
    size_t q = p + 1;
    if (t >= 0x80) { /* a two-byte tag: fields 16 to 2047 */
      if (b[q] >= 0x80) return next_field_slow(r, pos, end, m, f);
      t = (t & 0x7f) | (unsigned)b[q++] << 7;
    }
    if (t < 8 || q >= end) return next_field_slow(r, pos, end, m, f);
    uint64_t v = b[q++];
    if (v >= 0x80) { /* a second byte */
      if (q >= end) return next_field_slow(r, pos, end, m, f);
      v = (v & 0x7f) | (uint64_t)(b[q] & 0x7f) << 7;
      if (b[q++] >= 0x80) { /* a third, the last this takes */
        if (q >= end || b[q] >= 0x80 || (t & 7) != WT_LEN)
          return next_field_slow(r, pos, end, m, f);
        v |= (uint64_t)b[q++] << 14;
      }
    }
    if ((t & 7) == WT_LEN && v <= end - q) {
      f->at = p;
      f->num = t >> 3;
      f->wt = WT_LEN;
      f->start = q;
      f->end = q + (size_t)v;
      *pos = f->end;
      return 1;
    }
    if ((t & 7) == WT_VARINT) {
      f->at = p;
      f->num = t >> 3;
      f->wt = WT_VARINT;
      f->v = v;
      *pos = q;
      return 1;
    }
  }
  return next_field_slow(r, pos, end, m, f);
}

static bool want(Rd *r, const Msg *m, const Field *f, int wt) {
  if (f->wt == wt) return true;
  return fail(r, f->at, m, f->num, "wire type %d (%s), expected %d (%s)", f->wt,
              wire_name(f->wt), wt, wire_name(wt));
}

/* A repeated scalar: one element (wire type `wt`) or packed (LEN). */
static bool want_repeated(Rd *r, const Msg *m, const Field *f, int wt) {
  if (f->wt == wt || f->wt == WT_LEN) return true;
  return fail(r, f->at, m, f->num, "wire type %d (%s), expected %d (%s) or 2 (packed)",
              f->wt, wire_name(f->wt), wt, wire_name(wt));
}

/* ---------------------------------------------------------------- strings */

/* The offset of the first byte of [p, end) that breaks UTF-8 (overlong
 * forms, surrogates and code points past U+10FFFF included), or end. */
static size_t utf8_bad(const unsigned char *b, size_t p, size_t end) {
  while (p < end) {
    unsigned c = b[p];
    if (c < 0x80) {
      p++;
      continue;
    }
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else return p;
    if (end - p <= n) return p;
    if (b[p + 1] < lo || b[p + 1] > hi) return p;
    for (size_t k = 2; k <= n; k++)
      if (b[p + k] < 0x80 || b[p + k] > 0xBF) return p;
    p += n + 1;
  }
  return end;
}

/* A string or bytes field as a NUL-terminated arena copy; a NUL inside it
 * is an error, and so is bad UTF-8 when `utf8` (onnx.proto's `string`).
 * Names are ASCII: eight bytes at a time while no byte is 0 or >= 0x80. */
static const char *rd_string(Rd *r, const Msg *m, const Field *f, bool utf8) {
  size_t p = f->start;
  for (; f->end - p >= 8; p += 8) {
    uint64_t w;
    memcpy(&w, r->b + p, 8);
    if (((w - 0x0101010101010101u) | w) & 0x8080808080808080u) break;
  }
  for (; p < f->end && r->b[p] != 0 && r->b[p] < 0x80; p++) continue;
  if (p == f->end)
    return rd_strndup(r, f->start, f->end);
  const unsigned char *nul = memchr(r->b + p, 0, f->end - p);
  if (nul) {
    fail(r, (size_t)(nul - r->b), m, f->num, "NUL byte inside the string");
    return NULL;
  }
  if (utf8) {
    size_t bad = utf8_bad(r->b, p, f->end);
    if (bad != f->end) {
      fail(r, bad, m, f->num, "invalid UTF-8 (refused)");
      return NULL;
    }
  }
  return rd_strndup(r, f->start, f->end);
}

void *onnx_zeroed(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) die("out of memory allocating %zu x %zu bytes", n, size);
  return memset(xmalloc(n * size), 0, n * size);
}

/* Room for n names in all (names, lens, and the table at most 3/4 full
 * with n in it). */
static void names_reserve(Rd *r, size_t n) {
  if (n > r->cap_names) {
    r->cap_names = n;
    r->names = xrealloc(r->names, n * sizeof *r->names);
    r->lens = xrealloc(r->lens, n * sizeof *r->lens);
  }
  size_t cap = r->cap_slots ? r->cap_slots : 1024;
  while (4 * n > 3 * cap) cap *= 2;
  if (cap == r->cap_slots) return;
  size_t mask = cap - 1;
  uint64_t *slots = onnx_zeroed(cap, sizeof *slots);
  for (size_t i = 0; i < r->cap_slots; i++) {
    uint64_t s = r->slots[i];
    if (!s) continue;
    size_t k = (size_t)(s >> 32) & mask;
    while (slots[k]) k = (k + 1) & mask;
    slots[k] = s;
  }
  free(r->slots);
  r->slots = slots;
  r->cap_slots = cap;
}

/* A value name (a LEN field: a node's input or output, a tensor's or a
 * value's name): its one copy and its id in *id; "" is id -1 and no
 * copy.  A name met before is found by its hash and bytes, and is not
 * checked or copied again. */
static const char *rd_name(Rd *r, const Msg *m, const Field *f, int32_t *id) {
  size_t n = f->end - f->start;
  const unsigned char *p = r->b + f->start;
  if (n == 0) {
    *id = -1;
    return "";
  }
  if (n > UINT32_MAX) {
    fail(r, f->start, m, f->num, "a name of %zu bytes", n);
    return NULL;
  }
  if (r->nnames == r->cap_names) names_reserve(r, 2 * (size_t)r->nnames + 1024);
  uint64_t h = hash_bytes(p, n) & 0xFFFFFFFF00000000u;
  size_t mask = r->cap_slots - 1, k = (size_t)(h >> 32) & mask;
  for (uint64_t s; (s = r->slots[k]) != 0; k = (k + 1) & mask) {
    uint32_t i = (uint32_t)s - 1;
    if ((s & 0xFFFFFFFF00000000u) == h && r->lens[i] == n &&
        memcmp(r->names[i], p, n) == 0) {
      *id = (int32_t)i;
      return r->names[i];
    }
  }
  const char *copy = rd_string(r, m, f, true);
  if (!copy) return NULL;
  if (r->nnames == INT32_MAX - 1) {
    fail(r, f->start, m, f->num, "more than %d distinct names", INT32_MAX - 1);
    return NULL;
  }
  r->names[r->nnames] = copy;
  r->lens[r->nnames] = (uint32_t)n;
  r->slots[k] = h | (r->nnames + 1);
  *id = (int32_t)r->nnames++;
  return copy;
}

/* A node's op_type: the copy made when it was first met, or a new one. */
static const char *rd_op_type(Rd *r, const Msg *m, const Field *f) {
  enum { NSLOTS = sizeof r->op_types / sizeof *r->op_types };
  size_t n = f->end - f->start;
  const unsigned char *p = r->b + f->start;
  if (n > UINT32_MAX) return rd_string(r, m, f, true);
  size_t k = (size_t)hash_bytes(p, n) % NSLOTS;
  for (; r->op_types[k].s; k = (k + 1) % NSLOTS)
    if (r->op_types[k].len == n && memcmp(r->op_types[k].s, p, n) == 0) return r->op_types[k].s;
  const char *copy = rd_string(r, m, f, true);
  if (copy && 4 * (r->nop_types + 1) <= 3 * NSLOTS) {
    r->op_types[k] = (struct OpType){copy, (uint32_t)n};
    r->nop_types++;
  }
  return copy;
}

#define NAME(dst, id)                                        \
  do {                                                       \
    if (!want(r, m, &f, WT_LEN)) return false;               \
    if (!((dst) = rd_name(r, m, &f, &(id)))) return false;   \
  } while (0)

#define STR(dst, utf8)                                   \
  do {                                                   \
    if (!want(r, m, &f, WT_LEN)) return false;           \
    if (!((dst) = rd_string(r, m, &f, (utf8)))) return false; \
  } while (0)

/* ---------------------------------------------------------------- counting */

static bool bump(Rd *r, const Msg *m, const Field *f, int *count, int64_t by) {
  if (by > INT_MAX - *count)
    return fail(r, f->at, m, f->num, "more than %d elements", INT_MAX);
  *count += (int)by;
  return true;
}

/* Elements of a repeated scalar field: one, or as many varints / fixed
 * values as a packed payload holds. */
static int64_t elements(Rd *r, const Field *f, int wt) {
  if (f->wt != WT_LEN) return 1;
  size_t n = f->end - f->start;
  if (wt == WT_I32) return (int64_t)(n / 4);
  if (wt == WT_I64) return (int64_t)(n / 8);
  int64_t k = 0;
  for (size_t p = f->start; p < f->end; p++) k += !(r->b[p] & 0x80);
  return k;
}

/* Appends the elements of a repeated integer field to out[*k..cap). */
static bool fill_ints(Rd *r, const Msg *m, const Field *f, int64_t *out, int *k, int cap) {
  if (f->wt == WT_VARINT) {
    if (*k < cap) out[(*k)++] = (int64_t)f->v;
    return true;
  }
  size_t p = f->start;
  while (p < f->end) {
    uint64_t v;
    if (!rd_varint(r, &p, f->end, &v, m, f->num)) return false;
    if (*k < cap) out[(*k)++] = (int64_t)v;
  }
  return true;
}

static double bits_to_float(uint64_t bits) {
  uint32_t u = (uint32_t)bits;
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static double bits_to_double(uint64_t bits) {
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static bool packed_multiple(Rd *r, const Msg *m, const Field *f, size_t size) {
  if (f->wt != WT_LEN || (f->end - f->start) % size == 0) return true;
  return fail(r, f->at, m, f->num, "packed length %zu is not a multiple of %zu",
              f->end - f->start, size);
}

/* ---------------------------------------------------------------- tensors */

/* Bytes per element in raw_data, or 0 where the values are not kept. */
static size_t raw_size(int32_t t) {
  switch (t) {
  case ONNX_UINT8: case ONNX_INT8: case ONNX_BOOL:
  case ONNX_FLOAT8E4M3FN: case ONNX_FLOAT8E4M3FNUZ:
  case ONNX_FLOAT8E5M2: case ONNX_FLOAT8E5M2FNUZ: return 1;
  case ONNX_UINT16: case ONNX_INT16: case ONNX_FLOAT16: case ONNX_BFLOAT16: return 2;
  case ONNX_FLOAT: case ONNX_INT32: case ONNX_UINT32: return 4;
  case ONNX_INT64: case ONNX_DOUBLE: case ONNX_UINT64: return 8;
  default: return 0; /* UNDEFINED, STRING, COMPLEX64, COMPLEX128, unknown */
  }
}

static bool is_real(int32_t t) {
  return t == ONNX_FLOAT || t == ONNX_DOUBLE || t == ONNX_FLOAT16 ||
         t == ONNX_BFLOAT16 || (t >= ONNX_FLOAT8E4M3FN && t <= ONNX_FLOAT8E5M2FNUZ);
}

/* The typed field that holds a tensor's values when there is no raw_data
 * (onnx.proto's comments on each *_data field). */
static uint32_t typed_field(int32_t t) {
  switch (t) {
  case ONNX_FLOAT: return 4;                           /* float_data */
  case ONNX_INT64: return 7;                           /* int64_data */
  case ONNX_DOUBLE: return 10;                         /* double_data */
  case ONNX_UINT32: case ONNX_UINT64: return 11;       /* uint64_data */
  default: return 5; /* int32_data: the 8- and 16-bit types, INT32, BOOL,
                        FLOAT16 and BFLOAT16 (as bits), the FLOAT8s */
  }
}

static double half_to_double(unsigned h) {
  unsigned e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double x = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                              : ldexp(1024 + m, (int)e - 25);
  return h & 0x8000 ? -x : x;
}

/* An 8-bit float: ebits exponent bits, the rest mantissa.  FN: no
 * infinities, S.1111.111 is NaN; FNUZ: no infinities nor negative zero,
 * 0x80 is NaN; otherwise (E5M2) IEEE-like. */
static double f8_to_double(unsigned v, int ebits, int bias, bool fnuz, bool ieee) {
  int mbits = 7 - ebits;
  unsigned emax = (1u << ebits) - 1, mmax = (1u << mbits) - 1;
  unsigned e = (v >> mbits) & emax, m = v & mmax;
  if (fnuz && v == 0x80) return NAN;
  if (ieee && e == emax) return m ? NAN : v & 0x80 ? -INFINITY : INFINITY;
  if (!ieee && !fnuz && e == emax && m == mmax) return NAN;
  double x = e ? ldexp((double)(m + (1u << mbits)), (int)e - bias - mbits)
               : ldexp((double)m, 1 - bias - mbits);
  return v & 0x80 ? -x : x;
}

/* One element's bits (from raw_data or int32_data) as a double. */
static double real_of_bits(int32_t t, uint64_t bits) {
  switch (t) {
  case ONNX_FLOAT: return bits_to_float(bits);
  case ONNX_DOUBLE: return bits_to_double(bits);
  case ONNX_FLOAT16: return half_to_double((unsigned)bits & 0xFFFF);
  case ONNX_BFLOAT16: return bits_to_float((bits & 0xFFFF) << 16);
  case ONNX_FLOAT8E4M3FN: return f8_to_double((unsigned)bits & 0xFF, 4, 7, false, false);
  case ONNX_FLOAT8E4M3FNUZ: return f8_to_double((unsigned)bits & 0xFF, 4, 8, true, false);
  case ONNX_FLOAT8E5M2: return f8_to_double((unsigned)bits & 0xFF, 5, 15, false, true);
  default: return f8_to_double((unsigned)bits & 0xFF, 5, 16, true, false);
  }
}

/* One element of raw_data, little-endian, as an integer of type t. */
static int64_t int_of_raw(int32_t t, const unsigned char *p) {
  switch (t) {
  case ONNX_INT8: return (int8_t)p[0];
  case ONNX_INT16: return (int16_t)(uint16_t)le_bytes(p, 2);
  case ONNX_INT32: return (int32_t)(uint32_t)le_bytes(p, 4);
  case ONNX_UINT8: case ONNX_BOOL: return p[0];
  case ONNX_UINT16: return (int64_t)le_bytes(p, 2);
  case ONNX_UINT32: return (int64_t)le_bytes(p, 4);
  default: return (int64_t)le_bytes(p, 8); /* INT64, UINT64 (as its bits) */
  }
}

/* The values of a small tensor: from raw_data when it has one, else from
 * its typed field, which a third pass over the tensor collects. */
static bool rd_values(Rd *r, size_t start, size_t end, OnnxTensor *t, int64_t nelems,
                      const Field *raw) {
  const Msg *m = &M_TENSOR;
  int32_t dt = t->data_type;
  size_t esize = raw_size(dt);
  bool real = is_real(dt);
  /* One element more than the values, left 0: onnx.h promises it. */
  int64_t *ints = real ? NULL : rd_alloc(r, (size_t)(nelems + 1) * sizeof *ints, 8);
  double *reals = real ? rd_alloc(r, (size_t)(nelems + 1) * sizeof *reals, 8) : NULL;
  int64_t k = 0;
  if (raw) {
    size_t n = raw->end - raw->start;
    if (n != (size_t)nelems * esize)
      return fail(r, raw->at, m, raw->num, "%zu bytes for %lld elements of %s", n,
                  (long long)nelems, onnx_dtype_name(dt));
    for (k = 0; k < nelems; k++) {
      const unsigned char *p = r->b + raw->start + (size_t)k * esize;
      if (real) reals[k] = real_of_bits(dt, le_bytes(p, (int)esize));
      else ints[k] = int_of_raw(dt, p);
    }
  } else {
    uint32_t want_num = typed_field(dt);
    size_t pos = start;
    Field f;
    int got;
    while ((got = next_field(r, &pos, end, m, &f)) > 0) {
      if (f.num != want_num) continue;
      size_t p = f.start;
      size_t fixed = want_num == 4 ? 4 : want_num == 10 ? 8 : 0;
      bool one = f.wt != WT_LEN;
      while (one || p < f.end) {
        uint64_t v = f.v;
        if (!one && fixed) {
          v = le_bytes(r->b + p, (int)fixed);
          p += fixed;
        } else if (!one && !rd_varint(r, &p, f.end, &v, m, f.num)) {
          return false;
        }
        if (k == nelems)
          return fail(r, f.at, m, f.num, "more values than the %lld elements of its dims",
                      (long long)nelems);
        if (want_num == 4) reals[k] = bits_to_float(v);
        else if (want_num == 10) reals[k] = bits_to_double(v);
        else if (real) reals[k] = real_of_bits(dt, v);
        else if (want_num == 5) ints[k] = (int32_t)(uint32_t)v;
        else ints[k] = (int64_t)v;
        k++;
        if (one) break;
      }
    }
    if (got < 0) return false;
    if (k == 0 && nelems > 0) return true; /* no data in the file */
    if (k != nelems)
      return fail(r, start, m, want_num, "%lld values for the %lld elements of its dims",
                  (long long)k, (long long)nelems);
  }
  t->ints = ints;
  t->reals = reals;
  t->nvalues = nelems;
  return true;
}

/* TensorProto: dims = 1, data_type = 2, segment = 3, float_data = 4,
 * int32_data = 5, string_data = 6, int64_data = 7, name = 8, raw_data = 9,
 * double_data = 10, uint64_data = 11, doc_string = 12, external_data = 13,
 * data_location = 14. */
static bool rd_tensor(Rd *r, size_t start, size_t end, OnnxTensor *t) {
  const Msg *m = &M_TENSOR;
  t->name = "";
  t->id = -1;
  t->offset = start;
  t->length = end - start;
  int ndims = 0;
  bool has_raw = false, has_typed = false;
  Field raw = {0}, f;
  size_t pos = start;
  int got;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    switch (f.num) {
    case 1:
      if (!want_repeated(r, m, &f, WT_VARINT) || !bump(r, m, &f, &ndims, elements(r, &f, WT_VARINT)))
        return false;
      break;
    case 2:
      if (!want(r, m, &f, WT_VARINT)) return false;
      t->data_type = (int32_t)f.v;
      break;
    case 4:
      if (!want_repeated(r, m, &f, WT_I32) || !packed_multiple(r, m, &f, 4)) return false;
      has_typed = true;
      break;
    case 10:
      if (!want_repeated(r, m, &f, WT_I64) || !packed_multiple(r, m, &f, 8)) return false;
      has_typed = true;
      break;
    case 5: case 7: case 11:
      if (!want_repeated(r, m, &f, WT_VARINT)) return false;
      has_typed = true;
      break;
    case 6: case 3: case 12:
      if (!want(r, m, &f, WT_LEN)) return false;
      break;
    case 8: NAME(t->name, t->id); break;
    case 9:
      if (!want(r, m, &f, WT_LEN)) return false;
      raw = f;
      has_raw = true;
      break;
    case 13:
      if (!want(r, m, &f, WT_LEN)) return false;
      t->external = true;
      break;
    case 14:
      if (!want(r, m, &f, WT_VARINT)) return false;
      if (f.v == 1) t->external = true; /* DataLocation EXTERNAL */
      break;
    default: break;
    }
  }
  if (got < 0) return false;
  int64_t *dims = rd_alloc(r, (size_t)ndims * sizeof *dims, 8);
  int k = 0;
  pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0)
    if (f.num == 1 && !fill_ints(r, m, &f, dims, &k, ndims)) return false;
  if (got < 0) return false;
  int64_t nelems = 1;
  bool small = true;
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0)
      return fail(r, start, m, 1, "negative dimension %lld", (long long)dims[i]);
    if (!util_mul_i64(nelems, dims[i], &nelems)) small = false;
  }
  t->dims = dims;
  t->ndims = ndims;
  if (t->external || !small || nelems > ONNX_SMALL_ELEMS || raw_size(t->data_type) == 0)
    return true;
  if (!has_raw && !has_typed) {
    if (nelems > 0) return true; /* declared without data */
  }
  return rd_values(r, start, end, t, nelems, has_raw ? &raw : NULL);
}

/* ---------------------------------------------------------------- types */

/* TensorShapeProto.Dimension: dim_value = 1, dim_param = 2 (a oneof: the
 * last one given wins), denotation = 3. */
static bool rd_dim(Rd *r, size_t start, size_t end, OnnxDim *d) {
  const Msg *m = &M_DIM;
  Field f;
  size_t pos = start;
  int got;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    if (f.num == 1) {
      if (!want(r, m, &f, WT_VARINT)) return false;
      d->value = (int64_t)f.v;
      d->has_value = true;
      d->param = NULL;
    } else if (f.num == 2) {
      STR(d->param, true);
      d->has_value = false;
      d->value = 0;
    } else if (f.num == 3 && !want(r, m, &f, WT_LEN)) {
      return false;
    }
  }
  return got == 0;
}

/* TensorShapeProto: dim = 1. */
static bool rd_shape(Rd *r, size_t start, size_t end, OnnxValueInfo *v) {
  const Msg *m = &M_SHAPE;
  Field f;
  int n = 0, got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0)
    if (f.num == 1 && (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &n, 1))) return false;
  if (got < 0) return false;
  OnnxDim *dims = rd_alloc(r, (size_t)n * sizeof *dims, 8);
  int k = 0;
  pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0)
    if (f.num == 1 && k < n && !rd_dim(r, f.start, f.end, &dims[k++])) return false;
  if (got < 0) return false;
  v->dims = dims;
  v->ndims = n;
  return true;
}

/* TypeProto.Tensor: elem_type = 1, shape = 2. */
static bool rd_tensor_type(Rd *r, size_t start, size_t end, OnnxValueInfo *v) {
  const Msg *m = &M_TTENSOR;
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    if (f.num == 1) {
      if (!want(r, m, &f, WT_VARINT)) return false;
      v->elem_type = (int32_t)f.v;
    } else if (f.num == 2) {
      if (!want(r, m, &f, WT_LEN) || !rd_shape(r, f.start, f.end, v)) return false;
    }
  }
  return got == 0;
}

/* TypeProto: tensor_type = 1 is read; sequence_type = 4, map_type = 5,
 * denotation = 6, sparse_tensor_type = 8, optional_type = 9 are skipped
 * (such a value has elem_type 0 and no shape). */
static bool rd_type(Rd *r, size_t start, size_t end, OnnxValueInfo *v) {
  const Msg *m = &M_TYPE;
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    if (f.num == 1) {
      if (!want(r, m, &f, WT_LEN)) return false;
      v->elem_type = 0;
      v->ndims = -1;
      if (!rd_tensor_type(r, f.start, f.end, v)) return false;
    } else if ((f.num >= 4 && f.num <= 6) || f.num == 8 || f.num == 9) {
      if (!want(r, m, &f, WT_LEN)) return false;
    }
  }
  return got == 0;
}

/* ValueInfoProto: name = 1, type = 2, doc_string = 3. */
static bool rd_value(Rd *r, size_t start, size_t end, OnnxValueInfo *v) {
  const Msg *m = &M_VALUE;
  v->name = "";
  v->id = -1;
  v->ndims = -1;
  v->offset = start;
  v->length = end - start;
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    if (f.num == 1) {
      NAME(v->name, v->id);
    } else if (f.num == 2) {
      if (!want(r, m, &f, WT_LEN)) return false;
      v->elem_type = 0; /* a second type replaces the first whole */
      v->dims = NULL;
      v->ndims = -1;
      if (!rd_type(r, f.start, f.end, v)) return false;
    } else if (f.num == 3 && !want(r, m, &f, WT_LEN)) {
      return false;
    }
  }
  return got == 0;
}

/* ---------------------------------------------------------------- graphs */

static bool rd_graph(Rd *r, size_t start, size_t end, OnnxGraph *g, int depth);

/* What the first pass over an attribute counts: the repeated fields'
 * lengths, and which singular fields are present (IR version 1 says the
 * type by the field present). */
typedef struct AttrCounts {
  int nf, ni, ns, nt, ng;
  bool has_f, has_i, has_s, has_t, has_g;
} AttrCounts;

/* The repeated values, arrays of the counted sizes that the second pass
 * fills. */
typedef struct AttrValues {
  int64_t *ints;
  double *floats;
  const char **strings;
  OnnxTensor *tensors;
  const OnnxGraph **graphs;
} AttrValues;

/* The first pass: the scalars read, the repeated fields counted. */
static bool attr_count(Rd *r, size_t start, size_t end, OnnxAttr *at,
                       AttrCounts *n) {
  const Msg *m = &M_ATTR;
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    switch (f.num) {
    case 1: STR(at->name, true); break;
    case 2:
      if (!want(r, m, &f, WT_I32)) return false;
      at->f = bits_to_float(f.v);
      n->has_f = true;
      break;
    case 3:
      if (!want(r, m, &f, WT_VARINT)) return false;
      at->i = (int64_t)f.v;
      n->has_i = true;
      break;
    case 4: STR(at->s, false); n->has_s = true; break;
    case 5: if (!want(r, m, &f, WT_LEN)) return false; n->has_t = true; break;
    case 6: if (!want(r, m, &f, WT_LEN)) return false; n->has_g = true; break;
    case 7:
      if (!want_repeated(r, m, &f, WT_I32) || !packed_multiple(r, m, &f, 4) ||
          !bump(r, m, &f, &n->nf, elements(r, &f, WT_I32)))
        return false;
      break;
    case 8:
      if (!want_repeated(r, m, &f, WT_VARINT) || !bump(r, m, &f, &n->ni, elements(r, &f, WT_VARINT)))
        return false;
      break;
    case 9: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &n->ns, 1)) return false; break;
    case 10: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &n->nt, 1)) return false; break;
    case 11: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &n->ng, 1)) return false; break;
    case 13: case 14: case 15: case 21: case 22: case 23:
      if (!want(r, m, &f, WT_LEN)) return false;
      break;
    case 20:
      if (!want(r, m, &f, WT_VARINT)) return false;
      at->type = (int32_t)f.v;
      break;
    default: break;
    }
  }
  return got >= 0;
}

/* IR version 1 has no type field: the field present says. */
static int32_t attr_type_of(const AttrCounts *n) {
  return n->has_f ? ONNX_ATTR_FLOAT : n->has_i ? ONNX_ATTR_INT
         : n->has_s ? ONNX_ATTR_STRING : n->has_t ? ONNX_ATTR_TENSOR
         : n->has_g ? ONNX_ATTR_GRAPH : n->nf ? ONNX_ATTR_FLOATS
         : n->ni ? ONNX_ATTR_INTS : n->ns ? ONNX_ATTR_STRINGS
         : n->nt ? ONNX_ATTR_TENSORS : n->ng ? ONNX_ATTR_GRAPHS
                 : ONNX_ATTR_UNDEFINED;
}

/* The second pass: tensors, subgraphs and the repeated values read into
 * the arrays the first pass sized. */
static bool attr_fill(Rd *r, size_t start, size_t end, OnnxAttr *at, int depth,
                      const AttrCounts *n, AttrValues *v) {
  const Msg *m = &M_ATTR;
  Field f;
  int got;
  size_t pos = start;
  int ki = 0, kf = 0, ks = 0, kt = 0, kg = 0;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    switch (f.num) {
    case 5: {
      OnnxTensor *t = rd_alloc(r, sizeof *t, 8);
      if (!rd_tensor(r, f.start, f.end, t)) return false;
      at->t = t;
      break;
    }
    case 6:
    case 11: {
      if (depth >= ONNX_MAX_DEPTH)
        return fail(r, f.at, m, f.num, "graphs nested more than %d deep", ONNX_MAX_DEPTH);
      OnnxGraph *sub = rd_alloc(r, sizeof *sub, 8);
      if (!rd_graph(r, f.start, f.end, sub, depth + 1)) return false;
      if (f.num == 6) at->g = sub;
      else if (kg < n->ng) v->graphs[kg++] = sub;
      break;
    }
    case 7:
      if (f.wt == WT_I32) {
        if (kf < n->nf) v->floats[kf++] = bits_to_float(f.v);
      } else {
        for (size_t p = f.start; p < f.end && kf < n->nf; p += 4)
          v->floats[kf++] = bits_to_float(le_bytes(r->b + p, 4));
      }
      break;
    case 8:
      if (!fill_ints(r, m, &f, v->ints, &ki, n->ni)) return false;
      break;
    case 9:
      if (ks < n->ns && !(v->strings[ks++] = rd_string(r, m, &f, false))) return false;
      break;
    case 10:
      if (kt < n->nt && !rd_tensor(r, f.start, f.end, &v->tensors[kt++])) return false;
      break;
    default: break;
    }
  }
  return got >= 0;
}

/* AttributeProto: name = 1, f = 2, i = 3, s = 4, t = 5, g = 6, floats = 7,
 * ints = 8, strings = 9, tensors = 10, graphs = 11, doc_string = 13,
 * tp = 14, type_protos = 15, type = 20, ref_attr_name = 21,
 * sparse_tensor = 22, sparse_tensors = 23.  tp, type_protos and the sparse
 * tensors are skipped (the attribute keeps its type and nothing else). */
static bool rd_attr(Rd *r, size_t start, size_t end, OnnxAttr *at, int depth) {
  at->name = "";
  AttrCounts n = {0};
  if (!attr_count(r, start, end, at, &n)) return false;
  if (at->type == ONNX_ATTR_UNDEFINED) at->type = attr_type_of(&n);
  AttrValues v = {
      .ints = rd_alloc(r, (size_t)n.ni * sizeof *v.ints, 8),
      .floats = rd_alloc(r, (size_t)n.nf * sizeof *v.floats, 8),
      .strings = rd_alloc(r, (size_t)n.ns * sizeof *v.strings, 8),
      .tensors = rd_alloc(r, (size_t)n.nt * sizeof *v.tensors, 8),
      .graphs = rd_alloc(r, (size_t)n.ng * sizeof *v.graphs, 8),
  };
  if (!attr_fill(r, start, end, at, depth, &n, &v)) return false;
  if (!at->s) at->s = ""; /* proto3: an absent bytes field is empty */
  at->ints = v.ints;
  at->floats = v.floats;
  at->strings = v.strings;
  at->tensors = v.tensors;
  at->graphs = v.graphs;
  switch (at->type) {
  case ONNX_ATTR_INTS: at->n = n.ni; break;
  case ONNX_ATTR_FLOATS: at->n = n.nf; break;
  case ONNX_ATTR_STRINGS: at->n = n.ns; break;
  case ONNX_ATTR_TENSORS: at->n = n.nt; break;
  case ONNX_ATTR_GRAPHS: at->n = n.ng; break;
  default: at->n = 0; break;
  }
  return true;
}

/* NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5,
 * doc_string = 6, domain = 7. */
static bool rd_node(Rd *r, size_t start, size_t end, OnnxNode *n, int depth) {
  const Msg *m = &M_NODE;
  n->name = "";
  n->domain = "";
  n->op_type = NULL;
  n->offset = start;
  n->length = end - start;
  int ni = 0, no = 0, na = 0;
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    switch (f.num) {
    case 1: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &ni, 1)) return false; break;
    case 2: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &no, 1)) return false; break;
    case 5: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &na, 1)) return false; break;
    case 3: STR(n->name, true); break;
    case 4:
      if (!want(r, m, &f, WT_LEN) || !(n->op_type = rd_op_type(r, m, &f))) return false;
      break;
    case 7: STR(n->domain, true); break;
    case 6: if (!want(r, m, &f, WT_LEN)) return false; break;
    default: break;
    }
  }
  if (got < 0) return false;
  if (!n->op_type) return fail(r, start, m, 0, "no op_type (field 4)");
  if (!*n->op_type) return fail(r, start, m, 0, "an empty op_type (field 4)");
  const char **in = rd_alloc(r, (size_t)ni * sizeof *in, 8);
  const char **out = rd_alloc(r, (size_t)no * sizeof *out, 8);
  int32_t *in_ids = rd_alloc(r, (size_t)ni * sizeof *in_ids, 8);
  int32_t *out_ids = rd_alloc(r, (size_t)no * sizeof *out_ids, 8);
  OnnxAttr *attrs = rd_alloc(r, (size_t)na * sizeof *attrs, 8);
  int ki = 0, ko = 0, ka = 0;
  pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    if (f.num == 1 && ki < ni) {
      if (!(in[ki] = rd_name(r, m, &f, &in_ids[ki]))) return false;
      ki++;
    }
    if (f.num == 2 && ko < no) {
      if (!(out[ko] = rd_name(r, m, &f, &out_ids[ko]))) return false;
      ko++;
    }
    if (f.num == 5 && ka < na && !rd_attr(r, f.start, f.end, &attrs[ka++], depth)) return false;
  }
  if (got < 0) return false;
  n->inputs = in;
  n->input_ids = in_ids;
  n->ninputs = ni;
  n->outputs = out;
  n->output_ids = out_ids;
  n->noutputs = no;
  n->attrs = attrs;
  n->nattrs = na;
  return true;
}

/* GraphProto: node = 1, name = 2, initializer = 5, doc_string = 10,
 * input = 11, output = 12, value_info = 13, quantization_annotation = 14,
 * sparse_initializer = 15 (the last two skipped). */
static bool rd_graph(Rd *r, size_t start, size_t end, OnnxGraph *g, int depth) {
  const Msg *m = &M_GRAPH;
  g->name = "";
  int nn = 0, nt = 0, ni = 0, no = 0, nv = 0;
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    int *count = f.num == 1 ? &nn : f.num == 5 ? &nt : f.num == 11 ? &ni
               : f.num == 12 ? &no : f.num == 13 ? &nv : NULL;
    if (f.num == 2) STR(g->name, true);
    else if (count && (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, count, 1))) return false;
    else if ((f.num == 10 || f.num == 14 || f.num == 15) && !want(r, m, &f, WT_LEN))
      return false;
  }
  if (got < 0) return false;
  /* the main graph names about a value per node, initializer and input:
   * the table of names at that size is not grown while they are read */
  if (depth == 1) names_reserve(r, (size_t)nn + (size_t)nt + (size_t)ni + (size_t)no);
  OnnxNode *nodes = rd_alloc(r, (size_t)nn * sizeof *nodes, 8);
  OnnxTensor *inits = rd_alloc(r, (size_t)nt * sizeof *inits, 8);
  OnnxValueInfo *ins = rd_alloc(r, (size_t)ni * sizeof *ins, 8);
  OnnxValueInfo *outs = rd_alloc(r, (size_t)no * sizeof *outs, 8);
  OnnxValueInfo *vis = rd_alloc(r, (size_t)nv * sizeof *vis, 8);
  int kn = 0, kt = 0, ki = 0, ko = 0, kv = 0;
  pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    bool ok = true;
    if (f.num == 1 && kn < nn) {
      nodes[kn].index = kn;
      ok = rd_node(r, f.start, f.end, &nodes[kn++], depth);
    } else if (f.num == 5 && kt < nt) {
      ok = rd_tensor(r, f.start, f.end, &inits[kt++]);
    } else if (f.num == 11 && ki < ni) {
      ok = rd_value(r, f.start, f.end, &ins[ki++]);
    } else if (f.num == 12 && ko < no) {
      ok = rd_value(r, f.start, f.end, &outs[ko++]);
    } else if (f.num == 13 && kv < nv) {
      ok = rd_value(r, f.start, f.end, &vis[kv++]);
    }
    if (!ok) return false;
  }
  if (got < 0) return false;
  g->nodes = nodes;
  g->nnodes = nn;
  g->initializers = inits;
  g->ninitializers = nt;
  g->inputs = ins;
  g->ninputs = ni;
  g->outputs = outs;
  g->noutputs = no;
  g->value_info = vis;
  g->nvalue_info = nv;
  return true;
}

/* OperatorSetIdProto: domain = 1, version = 2. */
static bool rd_opset(Rd *r, size_t start, size_t end, OnnxOpset *o) {
  const Msg *m = &M_OPSET;
  o->domain = "";
  Field f;
  int got;
  size_t pos = start;
  while ((got = next_field(r, &pos, end, m, &f)) > 0) {
    if (f.num == 1) {
      STR(o->domain, true);
    } else if (f.num == 2) {
      if (!want(r, m, &f, WT_VARINT)) return false;
      o->version = (int64_t)f.v;
    }
  }
  return got == 0;
}

/* ModelProto: ir_version = 1, producer_name = 2, producer_version = 3,
 * domain = 4, model_version = 5, doc_string = 6, graph = 7,
 * opset_import = 8, metadata_props = 14, training_info = 20,
 * functions = 25 (domain, model_version and the last four skipped). */
static bool rd_model(Rd *r, OnnxModel *out) {
  Arena *a = r->a;
  size_t len = r->len;
  char *err = r->err;
  size_t errlen = r->errlen;
  const Msg *m = &M_MODEL;
  memset(out, 0, sizeof *out);
  out->producer_name = "";
  out->producer_version = "";
  if (err && errlen) err[0] = '\0';
  int no = 0;
  bool has_graph = false;
  Field f;
  int got;
  size_t pos = 0;
  while ((got = next_field(r, &pos, len, m, &f)) > 0) {
    switch (f.num) {
    case 1: case 5:
      if (!want(r, m, &f, WT_VARINT)) return false;
      if (f.num == 1) out->ir_version = (int64_t)f.v;
      break;
    case 2: STR(out->producer_name, true); break;
    case 3: STR(out->producer_version, true); break;
    case 7: if (!want(r, m, &f, WT_LEN)) return false; has_graph = true; break;
    case 8: if (!want(r, m, &f, WT_LEN) || !bump(r, m, &f, &no, 1)) return false; break;
    case 4: case 6: case 14: case 20: case 25:
      if (!want(r, m, &f, WT_LEN)) return false;
      break;
    default: break;
    }
  }
  if (got < 0) return false;
  if (!has_graph) return fail(r, len, m, 0, "no graph (field 7)");
  OnnxOpset *ops = arena_alloc(a, (size_t)no * sizeof *ops);
  OnnxGraph *g = NULL;
  int k = 0;
  pos = 0;
  while ((got = next_field(r, &pos, len, m, &f)) > 0) {
    if (f.num == 8 && k < no && !rd_opset(r, f.start, f.end, &ops[k++])) return false;
    if (f.num == 7) {
      g = arena_alloc(a, sizeof *g);
      if (!rd_graph(r, f.start, f.end, g, 1)) return false;
    }
  }
  if (got < 0) return false;
  out->opsets = ops;
  out->nopsets = no;
  out->graph = g;
  return true;
}

bool onnx_read(Arena *a, const unsigned char *bytes, size_t len, OnnxModel *out,
               char *err, size_t errlen) {
  Rd r = {.b = bytes, .len = len, .a = a, .err = err, .errlen = errlen};
  bool ok = rd_model(&r, out);
  if (ok) {
    out->names = arena_memdup(a, r.names, (size_t)r.nnames * sizeof *r.names);
    out->nnames = (int32_t)r.nnames;
  }
  free(r.names);
  free(r.lens);
  free(r.slots);
  return ok;
}

/* ---------------------------------------------------------------- files */

/* On failure err is the system's reason alone ("No such file or
 * directory"): the caller names the file, as rooflint's messages do
 * ("cannot open 'm.onnx': No such file or directory"). */

/* Reads fd into memory, to ONNX_MAX_READ bytes (a link to /dev/zero, or a
 * FIFO written forever, ends there). */
static bool read_bounded(int fd, OnnxFile *f, char *err, size_t errlen) {
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) {
    snprintf(err, errlen, "%s", strerror(ENOMEM));
    return false;
  }
  for (;;) {
    if (n > ONNX_MAX_READ) {
      snprintf(err, errlen, "file too large (more than 64 MiB; only a regular "
               "file is mapped rather than read)");
      free(buf);
      return false;
    }
    if (n == cap) {
      unsigned char *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        return false;
      }
      buf = bigger;
      cap *= 2;
    }
    size_t want = cap - n < ONNX_MAX_READ + 1 - n ? cap - n : ONNX_MAX_READ + 1 - n;
    ssize_t got = read(fd, buf + n, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      snprintf(err, errlen, "%s", strerror(errno));
      free(buf);
      return false;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  f->bytes = buf;
  f->len = n;
  f->copy = buf;
  return true;
}


bool onnx_map(const char *path, OnnxFile *f, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s", strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(err, errlen, "%s", strerror(errno));
    close(fd);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s", strerror(EISDIR));
    close(fd);
    return false;
  }
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > ONNX_MAX_FILE) {
    snprintf(err, errlen, "file too large (more than 2 GiB, protobuf's limit)");
    close(fd);
    return false;
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      /* The reader jumps over the weights: no read-ahead into them. */
      madvise(p, (size_t)st.st_size, MADV_RANDOM);
      close(fd);
      f->bytes = p;
      f->len = (size_t)st.st_size;
      f->mapping = p;
      return true;
    }
  }
  /* A pipe, an empty or special file, or one mmap refused: read it. */
  bool ok = read_bounded(fd, f, err, errlen);
  close(fd);
  return ok;
}

void onnx_unmap(OnnxFile *f) {
  if (f->mapping) munmap(f->mapping, f->len);
  free(f->copy);
  memset(f, 0, sizeof *f);
}

/* ---------------------------------------------------------------- helpers */

const OnnxAttr *onnx_attr(const OnnxNode *n, const char *name) {
  for (int i = 0; i < n->nattrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
  return NULL;
}

const char *onnx_dtype_name(int32_t data_type) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
      "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64",
      "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ",
      "FLOAT8E5M2", "FLOAT8E5M2FNUZ"};
  if (data_type < 0 || data_type >= (int32_t)(sizeof names / sizeof *names)) return "?";
  return names[data_type];
}
