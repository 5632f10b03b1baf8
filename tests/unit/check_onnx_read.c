/* SPDX-License-Identifier: MIT */
/*
 * check_onnx_read.c: the ONNX reader (src/import/onnx_read.c) on hand-built
 * protobuf bytes.  Each case spells its bytes out (tag = field << 3 |
 * wire type; onnx.proto's numbers: ModelProto.graph 7 -> tag 0x3A,
 * GraphProto.node 1 -> 0x0A, NodeProto.op_type 4 -> 0x22, ...) and asserts
 * the exact message, with the byte offset worked out in its comment.
 * Larger inputs come from the small encoder below.  The rules are
 * specs/onnx.md's (R-WIRE-NNN).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/onnx.h"
#include "test_util.h"

/* ---------------------------------------------------------------- encoder */

typedef struct Buf {
  unsigned char b[1 << 16];
  size_t n;
} Buf;

static void put(Buf *o, const void *p, size_t n) {
  ck_assert_uint_le(o->n + n, sizeof o->b);
  memcpy(o->b + o->n, p, n);
  o->n += n;
}
static void put_varint(Buf *o, uint64_t v) {
  do {
    unsigned char c = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) c |= 0x80;
    put(o, &c, 1);
  } while (v);
}
static void put_tag(Buf *o, unsigned field, unsigned wt) { put_varint(o, (uint64_t)field << 3 | wt); }
static void put_int(Buf *o, unsigned field, int64_t v) {
  put_tag(o, field, 0);
  put_varint(o, (uint64_t)v);
}
static void put_bytes(Buf *o, unsigned field, const void *p, size_t n) {
  put_tag(o, field, 2);
  put_varint(o, n);
  put(o, p, n);
}
static void put_str(Buf *o, unsigned field, const char *s) { put_bytes(o, field, s, strlen(s)); }
static void put_msg(Buf *o, unsigned field, const Buf *inner) { put_bytes(o, field, inner->b, inner->n); }

/* ModelProto{ir_version 8, graph{node{...}}} around one NodeProto. */
static void model_of_node(Buf *out, const Buf *node) {
  static Buf graph;
  graph.n = 0;
  put_msg(&graph, 1, node);
  out->n = 0;
  put_int(out, 1, 8);
  put_msg(out, 7, &graph);
}

/* ---------------------------------------------------------------- running */

typedef struct Read {
  Arena *a;
  OnnxModel m;
  bool ok;
  char err[256];
} Read;

static Read *rd(const void *bytes, size_t n) {
  static Read r;
  if (r.a) arena_free(r.a);
  memset(&r, 0, sizeof r);
  r.a = arena_new();
  r.ok = onnx_read(r.a, bytes, n, &r.m, r.err, sizeof r.err);
  return &r;
}
#define READ(arr) rd((arr), sizeof(arr))

static void fails(const void *bytes, size_t n, const char *want) {
  Read *r = rd(bytes, n);
  ck_assert_msg(!r->ok, "read succeeded, expected: %s", want);
  ck_assert_str_eq(r->err, want);
}
#define FAILS(arr, want) fails((arr), sizeof(arr), (want))

static const OnnxNode *node0(const Read *r) {
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_int_eq(r->m.graph->nnodes, 1);
  return &r->m.graph->nodes[0];
}

/* ---------------------------------------------------------------- the wire */

/* R-WIRE-001 */
START_TEST(test_minimal) {
  /* ir_version 8 (08 08), graph of 0 bytes (3A 00). */
  static const unsigned char b[] = {0x08, 0x08, 0x3A, 0x00};
  Read *r = READ(b);
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_int_eq(r->m.ir_version, 8);
  ck_assert_str_eq(r->m.producer_name, "");
  ck_assert_int_eq(r->m.nopsets, 0);
  ck_assert_int_eq(r->m.graph->nnodes, 0);
  ck_assert_str_eq(r->m.graph->name, "");
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_no_graph) {
  /* Empty input is an empty ModelProto: the error is at its end. */
  fails("", 0, "byte 0: no graph (field 7) in ModelProto");
  static const unsigned char b[] = {0x08, 0x03};
  FAILS(b, "byte 2: no graph (field 7) in ModelProto");
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_varints) {
  /* byte 0 tag 08, byte 1 starts the varint: 0x80 then the end. */
  static const unsigned char trunc[] = {0x08, 0x80};
  FAILS(trunc, "byte 1: truncated varint in ModelProto.ir_version");
  /* A tag that stops in its second byte (field 16+ needs two). */
  static const unsigned char trunc_tag[] = {0x3A, 0x00, 0x80};
  FAILS(trunc_tag, "byte 2: truncated varint in ModelProto");
  /* Eleven bytes: the tenth still has its continuation bit. */
  static const unsigned char longer[] = {0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                         0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  FAILS(longer, "byte 1: varint longer than 10 bytes in ModelProto.ir_version");
  /* Ten bytes whose last carries more than the 64th bit. */
  static const unsigned char over[] = {0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                       0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  FAILS(over, "byte 1: varint overflows 64 bits in ModelProto.ir_version");
  /* The largest: ten bytes, 2^64 - 1, which is -1 as an int64. */
  static const unsigned char max[] = {0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                      0xFF, 0xFF, 0xFF, 0x01, 0x3A, 0x00};
  Read *r = READ(max);
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_int_eq(r->m.ir_version, -1);
  /* A varint with redundant zero groups (0x88 0x00 = 8) is still 8. */
  static const unsigned char padded[] = {0x08, 0x88, 0x00, 0x3A, 0x00};
  r = READ(padded);
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_int_eq(r->m.ir_version, 8);
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_lengths) {
  /* graph (3A) of length 5 at byte 1, one byte left after it. */
  static const unsigned char file[] = {0x3A, 0x05, 0x00};
  FAILS(file, "byte 1: length 5 runs past the end of the file (1 byte left) in ModelProto.graph");
  /* graph of 3 bytes (bytes 2..4) holding a node (0A) of length 5 at
   * byte 3: 1 byte of the graph is left, though the file has more (an
   * unknown field 15 of 3 bytes). */
  static const unsigned char inner[] = {0x3A, 0x03, 0x0A, 0x05, 0x00, 0x7A, 0x03, 0x00, 0x00, 0x00};
  FAILS(inner, "byte 3: length 5 runs past the end of the enclosing message (1 byte left) in GraphProto.node");
  /* A length of 2^63: past any file. */
  static const unsigned char huge[] = {0x3A, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x80, 0x80, 0x80, 0x01};
  FAILS(huge, "byte 1: length 9223372036854775808 runs past the end of the file (0 bytes left) in ModelProto.graph");
  /* A 4-byte value (wire type 5) of field 15 with 2 bytes left. */
  static const unsigned char fixed[] = {0x7D, 0x00, 0x00};
  FAILS(fixed, "byte 1: truncated 4-byte value in ModelProto field 15");
  static const unsigned char fixed8[] = {0x79, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  FAILS(fixed8, "byte 1: truncated 8-byte value in ModelProto field 15");
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_wire_types) {
  /* GraphProto.node (field 1) as a varint: tag 08 at byte 2. */
  static const unsigned char node_varint[] = {0x3A, 0x02, 0x08, 0x01};
  FAILS(node_varint, "byte 2: wire type 0 (varint), expected 2 (length-delimited) in GraphProto.node");
  /* ModelProto.ir_version as a 4-byte value: tag 0D. */
  static const unsigned char ir_fixed[] = {0x0D, 0x01, 0x00, 0x00, 0x00};
  FAILS(ir_fixed, "byte 0: wire type 5 (4-byte), expected 0 (varint) in ModelProto.ir_version");
  /* TensorProto.dims (repeated int64) as an 8-byte value. */
  static const unsigned char dims_i64[] = {0x3A, 0x0C, 0x2A, 0x0A, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};
  FAILS(dims_i64, "byte 4: wire type 1 (8-byte), expected 0 (varint) or 2 (packed) in TensorProto.dims");
  /* Wire types 6 and 7 do not exist. */
  static const unsigned char wt7[] = {0x3F};
  FAILS(wt7, "byte 0: invalid wire type 7 in ModelProto.graph");
  static const unsigned char wt6[] = {0xFE, 0x01};
  FAILS(wt6, "byte 0: invalid wire type 6 in ModelProto field 31");
  /* Field number 0 is reserved. */
  static const unsigned char zero[] = {0x00, 0x00};
  FAILS(zero, "byte 0: invalid field number 0 in ModelProto");
  /* A tag over 32 bits: field number 2^32. */
  static const unsigned char big[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  FAILS(big, "byte 0: invalid field number 4294967296 in ModelProto");
}
END_TEST

/* R-WIRE-003, R-WIRE-007 */
START_TEST(test_unknown_fields) {
  /* Field 15 (unknown to ModelProto) in every wire type, a group with a
   * nested group, then the graph: all skipped. */
  static const unsigned char b[] = {
      0x78, 0x96, 0x01,                         /* varint 150 */
      0x79, 1, 2, 3, 4, 5, 6, 7, 8,             /* 8-byte */
      0x7A, 0x02, 0xFF, 0x00,                   /* 2 bytes (not UTF-8, NUL: skipped) */
      0x7D, 1, 2, 3, 4,                         /* 4-byte */
      0x7B, 0x08, 0x01, 0x83, 0x01, 0x84, 0x01, 0x7C, /* group{1: 1, group 16 {}} */
      0xA2, 0x06, 0x00,                         /* field 100, LEN 0 */
      0x3A, 0x00};
  Read *r = READ(b);
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_ptr_nonnull(r->m.graph);
  static const unsigned char stray_end[] = {0x7C};
  FAILS(stray_end, "byte 0: end-group tag without a start-group in ModelProto field 15");
  static const unsigned char open_group[] = {0x7B, 0x08, 0x01};
  FAILS(open_group, "byte 0: group without an end-group tag in ModelProto field 15");
}
END_TEST

/* R-WIRE-008 */
START_TEST(test_strings) {
  /* graph{node{op_type "a\0b"}}: 3A 07 | 0A 05 | 22 03 'a' 00 'b': the
   * NUL is byte 7. */
  static const unsigned char nul[] = {0x3A, 0x07, 0x0A, 0x05, 0x22, 0x03, 'a', 0x00, 'b'};
  FAILS(nul, "byte 7: NUL byte inside the string in NodeProto.op_type");
  /* node{name C3 28, op_type "A"}: C3 needs a continuation byte, 28 is
   * not one; the name starts at byte 6. */
  static const unsigned char bad[] = {0x3A, 0x09, 0x0A, 0x07, 0x1A, 0x02, 0xC3, 0x28, 0x22, 0x01, 'A'};
  FAILS(bad, "byte 6: invalid UTF-8 (refused) in NodeProto.name");
  /* Each refused form, as the third byte of a name "x?" (byte 7). */
  static const unsigned char *const refused[] = {
      (const unsigned char *)"\xC0\x80",         /* overlong NUL */
      (const unsigned char *)"\xE0\x80\xAF",     /* overlong '/' */
      (const unsigned char *)"\xED\xA0\x80",     /* a UTF-16 surrogate */
      (const unsigned char *)"\xF4\x90\x80\x80", /* past U+10FFFF */
      (const unsigned char *)"\xF8\x88\x80\x80", /* a 5-byte form */
      (const unsigned char *)"\xE2\x82",         /* cut short */
      (const unsigned char *)"\x80",             /* a lone continuation */
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    Buf node = {0}, model;
    char name[8] = "x";
    strcat(name, (const char *)refused[i]);
    put_str(&node, 4, "Relu");
    put_str(&node, 3, name);
    model_of_node(&model, &node);
    /* 08 08 | 3A n | 0A n | 22 04 Relu | 1A n | 'x' (byte 14): the bad
     * byte is 15. */
    fails(model.b, model.n, "byte 15: invalid UTF-8 (refused) in NodeProto.name");
  }
  /* Accepted: 2-, 3- and 4-byte forms; attribute bytes need not be UTF-8. */
  Buf node = {0}, attr = {0}, model;
  put_str(&node, 4, "Relu");
  put_str(&node, 3, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  put_str(&attr, 1, "blob");
  put_int(&attr, 20, ONNX_ATTR_STRING);
  put_bytes(&attr, 4, "\xFF\xFE", 2);
  put_msg(&node, 5, &attr);
  model_of_node(&model, &node);
  const OnnxNode *n = node0(rd(model.b, model.n));
  ck_assert_str_eq(n->name, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  ck_assert_str_eq(onnx_attr(n, "blob")->s, "\xFF\xFE");
}
END_TEST

/* ---------------------------------------------------------------- messages */

/* R-WIRE-001, R-WIRE-003 */
START_TEST(test_model_fields) {
  Buf graph = {0}, opset = {0}, opset2 = {0}, model = {0}, node = {0};
  put_str(&node, 4, "Relu");
  put_str(&node, 1, "x");
  put_str(&node, 1, "");
  put_str(&node, 2, "y");
  put_str(&node, 3, "r");
  put_str(&node, 7, "com.example");
  put_str(&node, 6, "doc");
  put_str(&graph, 2, "g");
  put_msg(&graph, 1, &node);
  put_msg(&graph, 1, &node);
  put_str(&opset, 1, "");
  put_int(&opset, 2, 21);
  put_str(&opset2, 1, "com.example");
  put_int(&opset2, 2, 1);
  /* The graph first, the opsets after: order does not matter. */
  put_msg(&model, 7, &graph);
  put_int(&model, 1, 10);
  put_str(&model, 2, "pytorch");
  put_str(&model, 3, "2.1");
  put_msg(&model, 8, &opset);
  put_msg(&model, 8, &opset2);
  put_str(&model, 6, "a doc string");
  Read *r = rd(model.b, model.n);
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_int_eq(r->m.ir_version, 10);
  ck_assert_str_eq(r->m.producer_name, "pytorch");
  ck_assert_str_eq(r->m.producer_version, "2.1");
  ck_assert_int_eq(r->m.nopsets, 2);
  ck_assert_str_eq(r->m.opsets[0].domain, "");
  ck_assert_int_eq(r->m.opsets[0].version, 21);
  ck_assert_str_eq(r->m.opsets[1].domain, "com.example");
  const OnnxGraph *g = r->m.graph;
  ck_assert_str_eq(g->name, "g");
  ck_assert_int_eq(g->nnodes, 2);
  const OnnxNode *n = &g->nodes[1];
  ck_assert_int_eq(n->index, 1);
  ck_assert_str_eq(n->op_type, "Relu");
  ck_assert_str_eq(n->name, "r");
  ck_assert_str_eq(n->domain, "com.example");
  ck_assert_int_eq(n->ninputs, 2);
  ck_assert_str_eq(n->inputs[0], "x");
  ck_assert_str_eq(n->inputs[1], "");
  ck_assert_int_eq(n->noutputs, 1);
  ck_assert_str_eq(n->outputs[0], "y");
  /* The second NodeProto's bytes: the graph (3A at 0, 1-byte length)
   * holds its name (bytes 2..4) and node 0 (tag and length, then 35
   * bytes: op_type 6, inputs 3 + 2, output 3, name 3, domain 13, doc 5);
   * node 1's tag is at 5 + 37 = 42 and its bytes start at 44. */
  ck_assert_uint_eq(n->offset, 44);
  ck_assert_uint_eq(g->nodes[0].offset, 7);
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_node_without_op_type) {
  /* graph{node{name "n"}}: the NodeProto's bytes start at byte 4. */
  static const unsigned char b[] = {0x3A, 0x05, 0x0A, 0x03, 0x1A, 0x01, 'n'};
  FAILS(b, "byte 4: no op_type (field 4) in NodeProto");
}
END_TEST

/* R-WIRE-001, R-WIRE-003 */
START_TEST(test_attributes) {
  Buf node = {0}, model, a;
  put_str(&node, 4, "Op");
  /* ints, unpacked (as python's proto2 writes them) */
  a.n = 0;
  put_str(&a, 1, "pads");
  put_int(&a, 20, ONNX_ATTR_INTS);
  put_int(&a, 8, 1);
  put_int(&a, 8, -2);
  put_msg(&node, 5, &a);
  /* ints, packed: 3, 300, -1 */
  a.n = 0;
  put_str(&a, 1, "packed");
  put_int(&a, 20, ONNX_ATTR_INTS);
  {
    Buf p = {0};
    put_varint(&p, 3);
    put_varint(&p, 300);
    put_varint(&p, (uint64_t)-1);
    put_msg(&a, 8, &p);
  }
  put_int(&a, 8, 4); /* and one more, unpacked */
  put_msg(&node, 5, &a);
  /* floats, packed and unpacked; f */
  a.n = 0;
  put_str(&a, 1, "scales");
  put_int(&a, 20, ONNX_ATTR_FLOATS);
  {
    float v[2] = {0.5f, -2.0f}, w = 8.0f;
    put_bytes(&a, 7, v, sizeof v); /* little-endian host */
    put_tag(&a, 7, 5);
    put(&a, &w, 4);
  }
  put_msg(&node, 5, &a);
  /* No type (IR version 1): inferred from f. */
  a.n = 0;
  put_str(&a, 1, "alpha");
  {
    float v = 0.25f;
    put_tag(&a, 2, 5);
    put(&a, &v, 4);
  }
  put_msg(&node, 5, &a);
  /* strings */
  a.n = 0;
  put_str(&a, 1, "modes");
  put_int(&a, 20, ONNX_ATTR_STRINGS);
  put_str(&a, 9, "p");
  put_str(&a, 9, "");
  put_msg(&node, 5, &a);
  /* int, with a ref_attr_name and a doc_string skipped */
  a.n = 0;
  put_str(&a, 1, "axis");
  put_int(&a, 20, ONNX_ATTR_INT);
  put_int(&a, 3, -1);
  put_str(&a, 13, "doc");
  put_str(&a, 21, "ref");
  put_msg(&node, 5, &a);
  model_of_node(&model, &node);
  const OnnxNode *n = node0(rd(model.b, model.n));
  ck_assert_int_eq(n->nattrs, 6);
  const OnnxAttr *pads = onnx_attr(n, "pads");
  ck_assert_int_eq(pads->type, ONNX_ATTR_INTS);
  ck_assert_int_eq(pads->n, 2);
  ck_assert_int_eq(pads->ints[0], 1);
  ck_assert_int_eq(pads->ints[1], -2);
  const OnnxAttr *packed = onnx_attr(n, "packed");
  ck_assert_int_eq(packed->n, 4);
  ck_assert_int_eq(packed->ints[1], 300);
  ck_assert_int_eq(packed->ints[2], -1);
  ck_assert_int_eq(packed->ints[3], 4);
  const OnnxAttr *scales = onnx_attr(n, "scales");
  ck_assert_int_eq(scales->n, 3);
  ck_assert_double_eq(scales->floats[0], 0.5);
  ck_assert_double_eq(scales->floats[1], -2.0);
  ck_assert_double_eq(scales->floats[2], 8.0);
  const OnnxAttr *alpha = onnx_attr(n, "alpha");
  ck_assert_int_eq(alpha->type, ONNX_ATTR_FLOAT);
  ck_assert_double_eq(alpha->f, 0.25);
  const OnnxAttr *modes = onnx_attr(n, "modes");
  ck_assert_int_eq(modes->n, 2);
  ck_assert_str_eq(modes->strings[0], "p");
  ck_assert_str_eq(modes->strings[1], "");
  ck_assert_int_eq(onnx_attr(n, "axis")->i, -1);
  ck_assert_ptr_null(onnx_attr(n, "absent"));
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_attribute_errors) {
  /* floats packed in 1 byte: graph 3A 0D | node 0A 0B | 22 01 'O' |
   * attribute 2A 06 | 0A 01 'f' (bytes 9..11) | 3A 01 00: the floats tag
   * is byte 12. */
  static const unsigned char floats3[] = {0x3A, 0x0D, 0x0A, 0x0B, 0x22, 0x01, 'O', 0x2A,
                                          0x06, 0x0A, 0x01, 'f', 0x3A, 0x01, 0x00};
  FAILS(floats3, "byte 12: packed length 1 is not a multiple of 4 in AttributeProto.floats");
  /* AttributeProto.f as a varint: graph 3A 09 | node 0A 07 | 22 01 'O' |
   * attribute 2A 02 | 10 01 (byte 9). */
  static const unsigned char f_varint[] = {0x3A, 0x09, 0x0A, 0x07, 0x22, 0x01, 'O',
                                           0x2A, 0x02, 0x10, 0x01};
  FAILS(f_varint, "byte 9: wire type 0 (varint), expected 5 (4-byte) in AttributeProto.f");
}
END_TEST

/* A graph holding one node If whose attribute then_branch holds `inner`. */
static void wrap_if(Buf *out, const Buf *inner) {
  static Buf node, attr;
  attr.n = 0;
  put_str(&attr, 1, "then_branch");
  put_int(&attr, 20, ONNX_ATTR_GRAPH);
  put_msg(&attr, 6, inner);
  node.n = 0;
  put_str(&node, 4, "If");
  put_msg(&node, 5, &attr);
  out->n = 0;
  put_msg(out, 1, &node);
}

static void nested(Buf *model, int depth) {
  static Buf g, h;
  g.n = 0;
  put_str(&g, 2, "innermost");
  for (int d = 1; d < depth; d++) {
    wrap_if(&h, &g);
    g = h;
  }
  model->n = 0;
  put_msg(model, 7, &g);
}

/* R-WIRE-004 */
START_TEST(test_nesting) {
  static Buf model;
  nested(&model, ONNX_MAX_DEPTH);
  Read *r = rd(model.b, model.n);
  ck_assert_msg(r->ok, "%s", r->err);
  const OnnxGraph *g = r->m.graph;
  for (int d = 1; d < ONNX_MAX_DEPTH; d++) g = onnx_attr(&g->nodes[0], "then_branch")->g;
  ck_assert_str_eq(g->name, "innermost");
  nested(&model, ONNX_MAX_DEPTH + 1);
  r = rd(model.b, model.n);
  ck_assert(!r->ok);
  /* The offset is that of the deepest then_branch's tag. */
  const char *tail = " graphs nested more than 64 deep in AttributeProto.g";
  ck_assert_msg(strncmp(r->err, "byte ", 5) == 0 && strstr(r->err, ":") &&
                    strcmp(strchr(r->err, ':') + 1, tail) == 0,
                "%s", r->err);
  size_t at = 0;
  sscanf(r->err, "byte %zu", &at);
  ck_assert_uint_eq(model.b[at], 0x32); /* field 6, wire type 2 */
}
END_TEST

/* ---------------------------------------------------------------- tensors */

/* A model whose graph has the given TensorProto as its only initializer. */
static Read *read_tensor(const Buf *t) {
  static Buf graph, model;
  graph.n = model.n = 0;
  put_msg(&graph, 5, t);
  put_msg(&model, 7, &graph);
  return rd(model.b, model.n);
}

static const OnnxTensor *tensor_of(const Buf *t) {
  Read *r = read_tensor(t);
  ck_assert_msg(r->ok, "%s", r->err);
  ck_assert_int_eq(r->m.graph->ninitializers, 1);
  return &r->m.graph->initializers[0];
}

/* R-WIRE-005, R-WIRE-007 */
START_TEST(test_tensor_raw) {
  Buf t = {0};
  put_int(&t, 1, 2);
  put_int(&t, 1, 2);
  put_int(&t, 2, ONNX_FLOAT);
  put_str(&t, 8, "w");
  float v[4] = {1.0f, -2.5f, 0.0f, 1e30f};
  put_bytes(&t, 9, v, sizeof v);
  const OnnxTensor *x = tensor_of(&t);
  ck_assert_str_eq(x->name, "w");
  ck_assert_int_eq(x->ndims, 2);
  ck_assert_int_eq(x->nvalues, 4);
  ck_assert_ptr_null(x->ints);
  ck_assert_double_eq(x->reals[1], -2.5);
  ck_assert_double_eq(x->reals[3], (double)1e30f);
  ck_assert(!x->external);
  /* 12 bytes for 4 floats: the raw_data tag is at byte 13 (graph 3A n,
   * initializer 2A n; from byte 4: dims 08 02 08 02, data_type 10 01, name 42 01 'w',
   * then 4A). */
  t.n = 0;
  put_int(&t, 1, 2);
  put_int(&t, 1, 2);
  put_int(&t, 2, ONNX_FLOAT);
  put_str(&t, 8, "w");
  put_bytes(&t, 9, v, 12);
  Read *r = read_tensor(&t);
  ck_assert(!r->ok);
  ck_assert_str_eq(r->err, "byte 13: 12 bytes for 4 elements of FLOAT in TensorProto.raw_data");
}
END_TEST

/* R-WIRE-005, R-WIRE-006 */
START_TEST(test_tensor_small_limit) {
  /* ONNX_SMALL_ELEMS int8 values are kept; one more and none are. */
  static unsigned char bytes[ONNX_SMALL_ELEMS + 1];
  for (int i = 0; i <= ONNX_SMALL_ELEMS; i++) bytes[i] = (unsigned char)(i * 7);
  static Buf t;
  t.n = 0;
  put_int(&t, 1, ONNX_SMALL_ELEMS);
  put_int(&t, 2, ONNX_INT8);
  put_bytes(&t, 9, bytes, ONNX_SMALL_ELEMS);
  const OnnxTensor *x = tensor_of(&t);
  ck_assert_int_eq(x->nvalues, ONNX_SMALL_ELEMS);
  ck_assert_int_eq(x->ints[3], 21);
  ck_assert_int_eq(x->ints[20], (int8_t)140);
  ck_assert_int_eq(x->ints[ONNX_SMALL_ELEMS], 0); /* the 0 after the values */
  t.n = 0;
  put_int(&t, 1, ONNX_SMALL_ELEMS + 1);
  put_int(&t, 2, ONNX_INT8);
  put_bytes(&t, 9, bytes, 10); /* wrong size, but never looked at */
  x = tensor_of(&t);
  ck_assert_int_eq(x->dims[0], ONNX_SMALL_ELEMS + 1);
  ck_assert_ptr_null(x->ints);
  ck_assert_int_eq(x->nvalues, 0);
  /* dims whose product overflows int64: not small either. */
  t.n = 0;
  put_int(&t, 1, INT64_MAX);
  put_int(&t, 1, 4);
  put_int(&t, 2, ONNX_FLOAT);
  x = tensor_of(&t);
  ck_assert_ptr_null(x->reals);
}
END_TEST

/* R-WIRE-005 */
START_TEST(test_tensor_typed) {
  Buf t = {0};
  /* int64_data unpacked and packed, dims packed [3] */
  {
    Buf p = {0};
    put_varint(&p, 3);
    put_msg(&t, 1, &p);
  }
  put_int(&t, 2, ONNX_INT64);
  put_int(&t, 7, -5);
  {
    Buf p = {0};
    put_varint(&p, 6);
    put_varint(&p, 1ull << 40);
    put_msg(&t, 7, &p);
  }
  const OnnxTensor *x = tensor_of(&t);
  ck_assert_int_eq(x->ndims, 1);
  ck_assert_int_eq(x->nvalues, 3);
  ck_assert_int_eq(x->ints[0], -5);
  ck_assert_int_eq(x->ints[2], 1ll << 40);
  /* int32_data holds FLOAT16 bits: 0x3C00 = 1, 0xC000 = -2, 0x7C00 = inf */
  t.n = 0;
  put_int(&t, 1, 3);
  put_int(&t, 2, ONNX_FLOAT16);
  put_int(&t, 5, 0x3C00);
  put_int(&t, 5, 0xC000);
  put_int(&t, 5, 0x7C00);
  x = tensor_of(&t);
  ck_assert_double_eq(x->reals[0], 1.0);
  ck_assert_double_eq(x->reals[1], -2.0);
  ck_assert(isinf(x->reals[2]));
  /* int32_data of INT32: a negative value is a 10-byte varint */
  t.n = 0;
  put_int(&t, 2, ONNX_INT32);
  put_int(&t, 5, -7);
  x = tensor_of(&t);
  ck_assert_int_eq(x->ndims, 0);
  ck_assert_int_eq(x->nvalues, 1);
  ck_assert_int_eq(x->ints[0], -7);
  /* double_data, packed */
  t.n = 0;
  put_int(&t, 1, 2);
  put_int(&t, 2, ONNX_DOUBLE);
  {
    double d[2] = {0.1, -1e300};
    put_bytes(&t, 10, d, sizeof d);
  }
  x = tensor_of(&t);
  ck_assert_double_eq(x->reals[0], 0.1);
  ck_assert_double_eq(x->reals[1], -1e300);
  /* uint64_data of UINT32 */
  t.n = 0;
  put_int(&t, 2, ONNX_UINT32);
  put_int(&t, 11, 4000000000);
  ck_assert_int_eq(tensor_of(&t)->ints[0], 4000000000);
  /* A FLOAT with its values in int64_data: the wrong field, no values. */
  t.n = 0;
  put_int(&t, 2, ONNX_FLOAT);
  put_int(&t, 7, 1);
  ck_assert_ptr_null(tensor_of(&t)->reals);
  /* No data at all: no values; zero elements: an empty array. */
  t.n = 0;
  put_int(&t, 1, 2);
  put_int(&t, 2, ONNX_INT64);
  ck_assert_ptr_null(tensor_of(&t)->ints);
  t.n = 0;
  put_int(&t, 1, 0);
  put_int(&t, 2, ONNX_INT64);
  x = tensor_of(&t);
  ck_assert_ptr_nonnull(x->ints);
  ck_assert_int_eq(x->nvalues, 0);
  /* STRING and COMPLEX64 values are not kept. */
  t.n = 0;
  put_int(&t, 2, ONNX_STRING);
  put_str(&t, 6, "text");
  ck_assert_ptr_null(tensor_of(&t)->ints);
}
END_TEST

/* R-WIRE-007 */
START_TEST(test_tensor_errors) {
  /* Too many values: dims [2], three int64_data; graph 3A 0C |
   * initializer 2A 0A | 08 02 10 07 | 38 01 (byte 8) 38 02 38 03 (byte 12). */
  static const unsigned char many[] = {0x3A, 0x0C, 0x2A, 0x0A, 0x08, 0x02, 0x10, 0x07,
                                       0x38, 0x01, 0x38, 0x02, 0x38, 0x03};
  FAILS(many, "byte 12: more values than the 2 elements of its dims in TensorProto.int64_data");
  /* Too few: dims [3], two values; the message names the tensor's start. */
  static const unsigned char few[] = {0x3A, 0x0A, 0x2A, 0x08, 0x08, 0x03, 0x10, 0x07,
                                      0x38, 0x01, 0x38, 0x02};
  FAILS(few, "byte 4: 2 values for the 3 elements of its dims in TensorProto.int64_data");
  /* A negative dimension: -2 is a 10-byte varint; the tensor is 13 bytes. */
  static const unsigned char neg[] = {0x3A, 0x0F, 0x2A, 0x0D, 0x08, 0xFE, 0xFF, 0xFF, 0xFF,
                                      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x10, 0x01};
  FAILS(neg, "byte 4: negative dimension -2 in TensorProto.dims");
  /* float_data packed in 6 bytes. */
  static const unsigned char f6[] = {0x3A, 0x0A, 0x2A, 0x08, 0x22, 0x06, 0, 0, 0, 0, 0, 0};
  FAILS(f6, "byte 4: packed length 6 is not a multiple of 4 in TensorProto.float_data");
}
END_TEST

/* R-WIRE-005, R-WIRE-006 */
START_TEST(test_tensor_external_and_floats) {
  Buf t = {0}, e = {0};
  put_int(&t, 1, 4);
  put_int(&t, 2, ONNX_FLOAT);
  put_str(&e, 1, "location");
  put_str(&e, 2, "/nonexistent/weights.bin");
  put_msg(&t, 13, &e);
  put_int(&t, 14, 1);
  const OnnxTensor *x = tensor_of(&t);
  ck_assert(x->external);
  ck_assert_ptr_null(x->reals);
  /* BFLOAT16 raw: 0x3F80 = 1, 0xC0A0 = -5 */
  t.n = 0;
  put_int(&t, 1, 2);
  put_int(&t, 2, ONNX_BFLOAT16);
  put_bytes(&t, 9, "\x80\x3F\xA0\xC0", 4);
  x = tensor_of(&t);
  ck_assert_double_eq(x->reals[0], 1.0);
  ck_assert_double_eq(x->reals[1], -5.0);
  /* FLOAT8E4M3FN: 0x38 = 1 (exp 7 - bias 7), 0x7E = 448 (the largest),
   * 0x7F NaN, 0x01 = 2^-9 (subnormal), 0xB8 = -1 */
  t.n = 0;
  put_int(&t, 1, 5);
  put_int(&t, 2, ONNX_FLOAT8E4M3FN);
  put_bytes(&t, 9, "\x38\x7E\x7F\x01\xB8", 5);
  x = tensor_of(&t);
  ck_assert_double_eq(x->reals[0], 1.0);
  ck_assert_double_eq(x->reals[1], 448.0);
  ck_assert(isnan(x->reals[2]));
  ck_assert_double_eq(x->reals[3], ldexp(1, -9));
  ck_assert_double_eq(x->reals[4], -1.0);
  /* FLOAT8E5M2: 0x3C = 1, 0x7B = 57344, 0x7C inf, 0x7D NaN */
  t.n = 0;
  put_int(&t, 1, 4);
  put_int(&t, 2, ONNX_FLOAT8E5M2);
  put_bytes(&t, 9, "\x3C\x7B\x7C\x7D", 4);
  x = tensor_of(&t);
  ck_assert_double_eq(x->reals[0], 1.0);
  ck_assert_double_eq(x->reals[1], 57344.0);
  ck_assert(isinf(x->reals[2]));
  ck_assert(isnan(x->reals[3]));
  /* FNUZ: 0x80 is NaN; E4M3FNUZ 0x40 = 1 (bias 8), E5M2FNUZ 0x40 = 1 (bias 16) */
  t.n = 0;
  put_int(&t, 1, 2);
  put_int(&t, 2, ONNX_FLOAT8E4M3FNUZ);
  put_bytes(&t, 9, "\x40\x80", 2);
  x = tensor_of(&t);
  ck_assert_double_eq(x->reals[0], 1.0);
  ck_assert(isnan(x->reals[1]));
  t.n = 0;
  put_int(&t, 1, 1);
  put_int(&t, 2, ONNX_FLOAT8E5M2FNUZ);
  put_bytes(&t, 9, "\x40", 1);
  ck_assert_double_eq(tensor_of(&t)->reals[0], 1.0);
}
END_TEST

/* ---------------------------------------------------------------- values */

/* R-WIRE-001 */
START_TEST(test_value_info) {
  Buf v = {0}, type = {0}, tt = {0}, shape = {0}, d = {0}, graph = {0}, model = {0};
  put_int(&d, 1, 8);
  put_msg(&shape, 1, &d);
  d.n = 0;
  put_str(&d, 2, "batch");
  put_msg(&shape, 1, &d);
  d.n = 0; /* neither: unknown */
  put_msg(&shape, 1, &d);
  d.n = 0; /* both: the last one wins (a oneof) */
  put_int(&d, 1, 3);
  put_str(&d, 2, "seq");
  put_msg(&shape, 1, &d);
  put_int(&tt, 1, ONNX_BFLOAT16);
  put_msg(&tt, 2, &shape);
  put_msg(&type, 1, &tt);
  put_str(&v, 1, "x");
  put_msg(&v, 2, &type);
  put_msg(&graph, 11, &v);
  /* a sequence type: no elem_type, no shape */
  v.n = type.n = tt.n = 0;
  put_int(&tt, 1, ONNX_FLOAT);
  put_msg(&type, 4, &tt);
  put_str(&v, 1, "s");
  put_msg(&v, 2, &type);
  put_msg(&graph, 12, &v);
  /* a tensor type without a shape; a scalar (empty shape) */
  v.n = type.n = tt.n = 0;
  put_int(&tt, 1, ONNX_INT64);
  put_msg(&type, 1, &tt);
  put_str(&v, 1, "noshape");
  put_msg(&v, 2, &type);
  put_msg(&graph, 13, &v);
  v.n = type.n = tt.n = shape.n = 0;
  put_int(&tt, 1, ONNX_INT64);
  put_msg(&tt, 2, &shape);
  put_msg(&type, 1, &tt);
  put_str(&v, 1, "scalar");
  put_msg(&v, 2, &type);
  put_msg(&graph, 13, &v);
  /* a type given twice: the second, a sequence, replaces the first whole */
  v.n = type.n = tt.n = 0;
  put_int(&tt, 1, ONNX_INT64);
  put_msg(&type, 1, &tt);
  put_str(&v, 1, "twice");
  put_msg(&v, 2, &type);
  type.n = 0;
  put_msg(&type, 4, &tt);
  put_msg(&v, 2, &type);
  put_msg(&graph, 13, &v);
  put_msg(&model, 7, &graph);
  Read *r = rd(model.b, model.n);
  ck_assert_msg(r->ok, "%s", r->err);
  const OnnxGraph *g = r->m.graph;
  ck_assert_int_eq(g->ninputs, 1);
  const OnnxValueInfo *x = &g->inputs[0];
  ck_assert_str_eq(x->name, "x");
  ck_assert_int_eq(x->elem_type, ONNX_BFLOAT16);
  ck_assert_int_eq(x->ndims, 4);
  ck_assert(x->dims[0].has_value);
  ck_assert_int_eq(x->dims[0].value, 8);
  ck_assert(!x->dims[1].has_value);
  ck_assert_str_eq(x->dims[1].param, "batch");
  ck_assert(!x->dims[2].has_value);
  ck_assert_ptr_null(x->dims[2].param);
  ck_assert_str_eq(x->dims[3].param, "seq");
  ck_assert_int_eq(g->outputs[0].elem_type, 0);
  ck_assert_int_eq(g->outputs[0].ndims, -1);
  ck_assert_int_eq(g->nvalue_info, 3);
  ck_assert_int_eq(g->value_info[2].elem_type, 0);
  ck_assert_int_eq(g->value_info[2].ndims, -1);
  ck_assert_int_eq(g->value_info[0].ndims, -1);
  ck_assert_int_eq(g->value_info[0].elem_type, ONNX_INT64);
  ck_assert_int_eq(g->value_info[1].ndims, 0);
}
END_TEST

/* ---------------------------------------------------------------- helpers */

/* R-WIRE-009 */
START_TEST(test_helpers) {
  ck_assert_str_eq(onnx_dtype_name(ONNX_FLOAT16), "FLOAT16");
  ck_assert_str_eq(onnx_dtype_name(ONNX_BFLOAT16), "BFLOAT16");
  ck_assert_str_eq(onnx_dtype_name(ONNX_FLOAT8E5M2FNUZ), "FLOAT8E5M2FNUZ");
  ck_assert_str_eq(onnx_dtype_name(0), "UNDEFINED");
  ck_assert_str_eq(onnx_dtype_name(21), "?");
  ck_assert_str_eq(onnx_dtype_name(-1), "?");
  char err[256];
  OnnxFile f;
  ck_assert(!onnx_map("/nonexistent/m.onnx", &f, err, sizeof err));
  ck_assert_str_eq(err, "No such file or directory");
  ck_assert(!onnx_map("/", &f, err, sizeof err));
  ck_assert_str_eq(err, "Is a directory");
  /* A character device of no size is read, not mapped: 0 bytes. */
  ck_assert(onnx_map("/dev/null", &f, err, sizeof err));
  ck_assert_uint_eq(f.len, 0);
  ck_assert_ptr_null(f.mapping);
  ck_assert_ptr_nonnull(f.copy);
  onnx_unmap(&f);
  /* A regular file is mapped. */
  char *path = tc_temp_file("check_onnx_read", "\x08\x07\x3A\x00", 4);
  ck_assert(onnx_map(path, &f, err, sizeof err));
  ck_assert_ptr_nonnull(f.mapping);
  ck_assert_uint_eq(f.len, 4);
  Read *r = rd(f.bytes, f.len);
  ck_assert_int_eq(r->m.ir_version, 7);
  onnx_unmap(&f);
  remove(path);
  free(path);
}
END_TEST

Suite *onnx_read_suite(void) {
  Suite *s = suite_create("onnx_read");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_minimal);
  tcase_add_test(tc, test_no_graph);
  tcase_add_test(tc, test_varints);
  tcase_add_test(tc, test_lengths);
  tcase_add_test(tc, test_wire_types);
  tcase_add_test(tc, test_unknown_fields);
  tcase_add_test(tc, test_strings);
  tcase_add_test(tc, test_model_fields);
  tcase_add_test(tc, test_node_without_op_type);
  tcase_add_test(tc, test_attributes);
  tcase_add_test(tc, test_attribute_errors);
  tcase_add_test(tc, test_nesting);
  tcase_add_test(tc, test_tensor_raw);
  tcase_add_test(tc, test_tensor_small_limit);
  tcase_add_test(tc, test_tensor_typed);
  tcase_add_test(tc, test_tensor_errors);
  tcase_add_test(tc, test_tensor_external_and_floats);
  tcase_add_test(tc, test_value_info);
  tcase_add_test(tc, test_helpers);
  suite_add_tcase(s, tc);
  return s;
}
