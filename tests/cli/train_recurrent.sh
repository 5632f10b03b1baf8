#!/bin/sh
# train_recurrent.sh: what a recurrent layer's backward reads in train mode
# (R-TRAIN-002): its input x and result Y, and for lstm and gru the gates
# and cell cuDNN keeps per step in its reserve space.
. tests/cli/driver_lib.inc

# fp32 x [T 5, B 2, I 8] through an lstm, a gru and an rnn of hidden 16,
# one direction: each Y is [5, 1, 2, 16], 160 elements, 640 bytes.
#   x, read by all three, counted once:         320
#   lstm: Y 640 + i, f, g, o, c 5 x 640:       3840
#   gru:  Y 640 + z, r, n, r_n 4 x 640:        3200
#   rnn:  Y 640 (tanh's derivative from h):     640
# activations 8000 bytes.
cat >"$T/rnn.roof" <<'ROOF'
model m {
  dtype fp32
  mode train
  input x : [5, 2, 8]
  weight w : [1, 64, 8]
  weight r : [1, 64, 16]
  weight w3 : [1, 48, 8]
  weight r3 : [1, 48, 16]
  weight w1 : [1, 16, 8]
  weight r1 : [1, 16, 16]
  y = lstm(x, w, r, hidden=16)
  g = gru(x, w3, r3, hidden=16)
  h = rnn(x, w1, r1, hidden=16)
}
ROOF
what="rooflint --format json rnn.roof (activations)"
got=$("$ROOFLINT" --format json "$T/rnn.roof" 2>"$T/err" </dev/null |
  /usr/bin/python3 -c 'import json, sys
print(json.load(sys.stdin)["models"][0]["summary"]["footprint"]["activations"])')
if [ "$got" = "8000" ]; then ok; else bad "activations '$got', expected 8000"; fi
finish
