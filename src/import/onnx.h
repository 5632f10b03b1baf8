/* SPDX-License-Identifier: MIT */
/*
 * onnx.h: an ONNX model as the importer needs it (onnx_read.c reads it,
 * onnx_import.c translates it to .roof text).
 *
 * Only the fields rooflint uses are kept (ONNX's onnx.proto: ModelProto,
 * GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto,
 * TypeProto.Tensor, TensorShapeProto).  A tensor's payload (raw_data or
 * the typed *_data fields) is never copied unless it is small enough to
 * be a shape or a scalar constant (ONNX_SMALL_ELEMS elements); a weight's
 * bytes are skipped where they lie, so a model with 1 GB of embedded
 * weights costs what its graph costs.  External data is never opened.
 *
 * Everything is allocated in the Arena given to onnx_read and freed with
 * it.  Strings are NUL-terminated copies (ONNX strings are bytes; a NUL
 * inside one is an error of the reader).
 *
 * Value names have ids.  Every name of a value that the reader keeps (a
 * node's inputs and outputs, a tensor's name, a value's name: graph
 * inputs, outputs, value_info) has an id in [0, OnnxModel.nnames): equal
 * names have equal ids, across every graph of the model (ONNX's names are
 * one namespace, a subgraph reads its outer graph's by name), different
 * names different ids, and model.names[id] is the one copy of the name,
 * which every field holding that name points to.  The empty name (an
 * omitted optional input, an unnamed tensor) is id -1.  The reader gives
 * them as it meets the names, one hash lookup per name it reads, so a
 * translator keeps what it knows of a value in arrays indexed by id and
 * compares names by id.
 */
#ifndef ROOFLINT_ONNX_H
#define ROOFLINT_ONNX_H

#include "rooflint.h"

/* TensorProto.DataType, as onnx.proto numbers them. */
typedef enum OnnxDataType {
  ONNX_UNDEFINED = 0, ONNX_FLOAT = 1, ONNX_UINT8 = 2, ONNX_INT8 = 3,
  ONNX_UINT16 = 4, ONNX_INT16 = 5, ONNX_INT32 = 6, ONNX_INT64 = 7,
  ONNX_STRING = 8, ONNX_BOOL = 9, ONNX_FLOAT16 = 10, ONNX_DOUBLE = 11,
  ONNX_UINT32 = 12, ONNX_UINT64 = 13, ONNX_COMPLEX64 = 14,
  ONNX_COMPLEX128 = 15, ONNX_BFLOAT16 = 16, ONNX_FLOAT8E4M3FN = 17,
  ONNX_FLOAT8E4M3FNUZ = 18, ONNX_FLOAT8E5M2 = 19, ONNX_FLOAT8E5M2FNUZ = 20,
} OnnxDataType;

/* A tensor's values are kept when it has at most this many elements: the
 * shape tensors, axes, pads and scalar constants that exporters emit. */
enum { ONNX_SMALL_ELEMS = 4096 };

/* Graphs nest (an If's branches, a Loop's or Scan's body); the reader
 * descends at most this many graphs deep, the main graph counting as one,
 * and refuses a deeper file. */
enum { ONNX_MAX_DEPTH = 64 };

/* The most onnx_map takes (R-WIRE-010): a regular file is mapped, up to
 * protobuf's limit on a serialized message; anything else (a pipe, a FIFO,
 * a link to /dev/zero) is read into memory, up to the limit every text
 * input has. */
#define ONNX_MAX_FILE ((uint64_t)2 << 30)
#define ONNX_MAX_READ ((size_t)64 << 20)

typedef struct OnnxTensor {
  const char *name;
  int32_t id;            /* the name's id, -1 for "" */
  int32_t data_type;     /* OnnxDataType */
  const int64_t *dims;
  int ndims;
  /* The values, when the tensor has data in the file (not external) and
   * at most ONNX_SMALL_ELEMS elements of a numeric type; else NULL.
   * Integers in ints, floating types in reals (converted to double);
   * nvalues elements, and one more after them that is 0. */
  const int64_t *ints;
  const double *reals;
  int64_t nvalues;
  bool external;         /* data_location = EXTERNAL: never opened */
  uint64_t offset;       /* byte offset of the TensorProto in the file */
  uint64_t length;       /* and its length in bytes */
} OnnxTensor;

/* One dimension of a value's type: a number, a dim_param name, or
 * unknown (neither). */
typedef struct OnnxDim {
  int64_t value;         /* when has_value */
  const char *param;     /* dim_param, or NULL */
  bool has_value;
} OnnxDim;

typedef struct OnnxValueInfo {
  const char *name;
  int32_t id;            /* the name's id, -1 for "" */
  int32_t elem_type;     /* OnnxDataType; 0 when the type is not a tensor */
  const OnnxDim *dims;
  int ndims;             /* -1: no shape given */
  uint64_t offset;       /* the ValueInfoProto's bytes in the file */
  uint64_t length;
} OnnxValueInfo;

/* AttributeProto.AttributeType. */
typedef enum OnnxAttrType {
  ONNX_ATTR_UNDEFINED = 0, ONNX_ATTR_FLOAT = 1, ONNX_ATTR_INT = 2,
  ONNX_ATTR_STRING = 3, ONNX_ATTR_TENSOR = 4, ONNX_ATTR_GRAPH = 5,
  ONNX_ATTR_FLOATS = 6, ONNX_ATTR_INTS = 7, ONNX_ATTR_STRINGS = 8,
  ONNX_ATTR_TENSORS = 9, ONNX_ATTR_GRAPHS = 10,
} OnnxAttrType;

typedef struct OnnxGraph OnnxGraph;

typedef struct OnnxAttr {
  const char *name;
  int32_t type;          /* OnnxAttrType (as given, or inferred from the
                            field present for IR versions before 2) */
  double f;
  int64_t i;
  const char *s;         /* STRING (bytes, NUL-terminated copy; "" when
                            the field is absent, never NULL) */
  const int64_t *ints;   /* INTS */
  const double *floats;  /* FLOATS */
  const char **strings;  /* STRINGS */
  int n;                 /* elements of ints/floats/strings/graphs */
  const OnnxTensor *t;   /* TENSOR */
  const OnnxGraph *g;    /* GRAPH (If/Loop/Scan bodies) */
  const OnnxGraph **graphs; /* GRAPHS */
  const OnnxTensor *tensors; /* TENSORS (n of them) */
} OnnxAttr;

typedef struct OnnxNode {
  const char *name;      /* may be "" */
  const char *op_type;   /* nodes of one op type share one copy of it (of
                            the first 192 op types met; compare by strcmp) */
  const char *domain;    /* "" is the default ONNX domain */
  const char **inputs;   /* "" for an omitted optional input */
  const int32_t *input_ids; /* inputs[i]'s id (-1 for "") */
  int ninputs;
  const char **outputs;
  const int32_t *output_ids;
  int noutputs;
  const OnnxAttr *attrs;
  int nattrs;
  int index;             /* position in its graph's node list */
  uint64_t offset;       /* byte offset of the NodeProto in the file */
  uint64_t length;       /* and its length in bytes (R-DIAG-002) */
} OnnxNode;

struct OnnxGraph {
  const char *name;
  const OnnxNode *nodes;
  int nnodes;
  const OnnxTensor *initializers;
  int ninitializers;
  const OnnxValueInfo *inputs, *outputs, *value_info;
  int ninputs, noutputs, nvalue_info;
};

typedef struct OnnxOpset {
  const char *domain;    /* "" or "ai.onnx": the default domain */
  int64_t version;
} OnnxOpset;

typedef struct OnnxModel {
  int64_t ir_version;
  const OnnxOpset *opsets;
  int nopsets;
  const char *producer_name, *producer_version;
  const OnnxGraph *graph;
  const char *const *names; /* every value name, by id */
  int32_t nnames;
} OnnxModel;

/* Reads a serialized ModelProto from bytes[0..len) (a memory-mapped file):
 * true and *out filled, or false with a message in err (naming the byte
 * offset and the field: "byte 1234: truncated varint in NodeProto.input").
 * Never reads outside [0, len); nesting (graphs in attributes) is walked
 * without recursion on the file's depth beyond a stated limit. */
bool onnx_read(Arena *a, const unsigned char *bytes, size_t len,
               OnnxModel *out, char *err, size_t errlen);

/* A file mapped read-only (mmap; a pipe or an empty file is read into
 * memory instead).  onnx_unmap releases it. */
typedef struct OnnxFile {
  const unsigned char *bytes;
  size_t len;
  void *mapping;         /* what to munmap, or NULL */
  unsigned char *copy;   /* what to free, or NULL */
} OnnxFile;
bool onnx_map(const char *path, OnnxFile *f, char *err, size_t errlen);
void onnx_unmap(OnnxFile *f);

/* The translator (onnx_import.c): a model read by onnx_read into .roof
 * text, its origins and findings (import.h); `path` names the file in
 * messages.  onnx_translate is importers.def's row: map, read, translate. */
struct ImportOptions;
struct Imported;
int onnx_translate_model(const OnnxModel *m, const char *path,
                         const struct ImportOptions *o, struct Imported *out);
bool onnx_recognises(const char *path, const unsigned char *head, size_t n);
int onnx_translate(const char *path, const struct ImportOptions *o,
                   struct Imported *out);

/* Small helpers for the importer. */
const OnnxAttr *onnx_attr(const OnnxNode *n, const char *name);
const char *onnx_dtype_name(int32_t data_type); /* "FLOAT16", or "?" */
/* n elements of `size` bytes, zero, malloc'd: for a table that is probed
 * before it is filled, cleared by a write at once, since calloc's fresh
 * pages would each fault twice (read as the zero page, then written). */
void *onnx_zeroed(size_t n, size_t size);

#endif
