/* SPDX-License-Identifier: MIT */
/*
 * onnx_map_rnn.c: the mapping handlers of onnx_ops.def for ONNX's recurrent
 * layers, LSTM, GRU and RNN: one node is one layer (torch.onnx.export writes
 * a node per layer of a stacked nn.LSTM), written as lstm(), gru() or rnn()
 * with the node's operands (R-RNN-001).
 */
#include "onnx_import.h"

#include <string.h>

static const char *const directions[] = {"forward", "reverse",
                                         "bidirectional"};

/* What the op row cannot cost: a per-step sequence length, peepholes,
 * activations other than the defaults' costs, a cell clip. */
static bool rnn_unsupported(X *x, const OnnxNode *n) {
  if (has_input(n, 4))
    return fail(x, "its sequence_lens input (per-sequence lengths) is not "
                   "imported: rooflint costs every step of every sequence");
  if (strcmp(n->op_type, "LSTM") == 0 && has_input(n, 7))
    return fail(x, "its peephole input P is not imported");
  if (onnx_attr(n, "clip"))
    return fail(x, "its clip attribute is not imported");
  if (attr_int(n, "input_forget", 0))
    return fail(x, "input_forget=1 (coupled gates) is not imported");
  return true;
}

/* The node's Y (output 0); Y_h and Y_c (outputs 1 and 2) are the last
 * step's state, which no kernel of rooflint's writes apart: a node that
 * reads them is an error there (not defined). */
bool map_rnn(X *x, const OnnxNode *n, const OnnxOpRow *row) {
  if (!rnn_unsupported(x, n)) return false;
  const char *dir = attr_str(n, "direction", "forward");
  int d = 0;
  while (d < 3 && strcmp(dir, directions[d]) != 0) d++;
  if (d == 3)
    return fail(x, "its direction \"%s\" is not forward, reverse or "
                   "bidirectional", dir);
  int64_t hidden = attr_int(n, "hidden_size", 0);
  if (hidden < 1)
    return fail(x, "its hidden_size is %lld, not a positive integer",
                (long long)hidden);
  Call c;
  call_init(x, &c, row->roof);
  for (int i = 0; i < 4; i++) {
    if (i == 3 && !has_input(n, 3)) break;
    Term t;
    if (!tensor_in(x, n, i, &t)) return false;
    call_in(&c, t);
  }
  c.args.hidden = hidden;
  call_kw(&c, "hidden=%lld", (long long)hidden);
  c.args.direction = d;
  if (d != 0) call_kw(&c, "direction=\"%s\"", directions[d]);
  c.args.batch_first = attr_int(n, "layout", 0) == 1;
  if (c.args.batch_first) call_kw(&c, "batch_first=true");
  return emit_call(x, n, &c);
}
