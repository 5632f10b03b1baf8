#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/robust/gen.py DIR: writes the big hostile inputs of `make robust`
# into DIR (generated at run time rather than committed: megabytes each).
# Each is named for the issue item it reproduces (issue 17 unless said).
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, text):
    with open(os.path.join(out, name + ".roof"), "w", encoding="utf-8") as f:
        f.write(text)


MM = "let B = 1\nmodel m {\n  input x : [B, 4096]\n  weight w : [4096, 4096]\n  y = matmul(x, w)\n}\n"

# item 1: a let sum of 80,000 terms (200 KB on one line) and a memory-bound
# matmul: the crossover search's recursive evaluator overflowed the stack.
write("gen_let_sum_80k", "let S = " + "+".join(["0"] * 80000) + "\n" + MM)
# the same inside parentheses (no line-length or nesting limit applies)
write("gen_let_sum_parens",
      "let S = (" + "+\n".join(["0"] * 80000) + ")\n" + MM)
# item 8: 1000 small models (82 KB): the crossover search re-analysed the
# whole file up to 2000 times per model
write("gen_models_1000", "let B = 1\n" + "".join(
    "model m%d {\n  input x : [B, 4096]\n  weight w : [4096, 4096]\n"
    "  y = matmul(x, w)\n}\n" % i for i in range(1000)))
# item 8: 60,000 lets and one memory-bound matmul (949 KB)
write("gen_lets_60k", "".join("let L%d = 1\n" % i for i in range(60000)) +
      "model m {\n  input x : [L1, 4096]\n  weight w : [4096, 4096]\n"
      "  y = matmul(x, w)\n}\n")
# item 9: suppressions de-duplicated in quadratic time (96,000 of them, 1 MB), and
# unknown-check warnings without a limit
write("gen_suppressions", "model m {\n  input x : [4, 8]\n" + "".join(
    "  y%d = relu(x)  # rooflint: ignore[%s]\n" % (i, ",".join(
        "x%dy%d" % (i, j) for j in range(64)))
    for i in range(1500)) + "}\n")
# item 10: did-you-mean against every let for every unknown name (900 KB)
write("gen_did_you_mean", "".join("let A%06d = 1\n" % i for i in range(25000)) +
      "".join("let B%06d = A%06dx\n" % (i, i) for i in range(25000)) +
      "model m {\n  input x : [4, 8]\n  y = relu(x)\n}\n")
# item 11: --dump ast of a 400 KB left spine wrote 15 GB
write("gen_dump_spine", "let S = " + "+".join(["1"] * 200000) + "\n")
# item 4: 200 nested repeat 10^18 (a count of inf)
write("gen_repeat_200", "model m {\n  input x : [4, 8]\n" +
      "".join("  " * (i + 1) + "repeat 1000000000000000000 {\n" for i in range(200)) +
      "  " * 201 + "x = relu(x)\n" +
      "".join("  " * (200 - i) + "}\n" for i in range(200)) + "}\n")
# nesting: 100,000 open brackets (limit 256, R-SYN-010)
write("gen_nest_100k", "let a = " + "(" * 100000 + "1\n")
# many ops in one model, for JSON and SARIF (item 12): 20,000 ops
write("gen_ops_20k", "model m {\n  input x : [64, 1024]\n  weight w : [1024, 1024]\n" +
      "".join("  x = matmul(x, w)\n  x = gelu(x)\n" for _ in range(10000)) + "}\n")
# the error limit: 40,000 independent errors
write("gen_errors_40k", "model m {\n" + "".join(
    "  y%d = nosuchop(1)\n" % i for i in range(40000)) + "}\n")
# issue 16 item 15: 20,000 bare ignores
write("gen_bare_ignores", "model m {\n  input x : [1, 4096]\n  weight w : [4096, 4096]\n" +
      "".join("  y%d = matmul(x, w)  # rooflint: ignore\n" % i for i in range(20000)) + "}\n")
# Byte-level inputs (kept here so the committed corpus stays plain text).
def write_bytes(name, data):
    with open(os.path.join(out, name + ".roof"), "wb") as f:
        f.write(data)


# item 17: a NUL byte inside a string
write_bytes("gen_nul_string", b'target t {\n  display = "H100\0 SXM"\n}\n' + MM.encode())
# item 14: surrogates, code points above U+10FFFF, overlong forms, in code,
# a string and a comment
BAD = b"\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\xff"
write_bytes("gen_utf8_forms", b"# " + BAD + b"\n" + b'target t {\n  display = "' + BAD +
            b'"\n}\n' + b"model m {\n  input x : [4, 8]\n  y = relu(x) " + BAD + b"\n}\n")
# issue 16 item 23: a byte-order mark
write_bytes("gen_bom", b"\xef\xbb\xbf" + MM.encode())
# a line of a million and one bytes (R-LEX-012), a 1 MiB input: the
# larger limits apply
write_bytes("gen_long_line", b"# " + b"x" * (1 << 20) + b"\n" + MM.encode())
# issue 28 item 12: a chain of 31,000 KV-cache appends (1,000 KB): each append
# walked back to its cache, quadratic in sema and
# in the cache sizes (33,000 in 1.2 MB: 5.4 s)
write("gen_append_chain", "model m {\n  cache c : [1, 4]\n  input t : [1, 1]\n" +
      "  a0 = append(c, t, axis=1)\n" + "".join(
          "  a%d=append(a%d,t,axis=1)\n" % (i, i - 1) for i in range(1, 31000)) +
      "}\n")
# issue 28 item 13: 24,000 one-op models (1,000 KB): `rooflint diff` of the
# file against itself paired the models, and matched their diagnostics,
# by nested linear searches (10 s)
write("gen_models_24k", "".join(
    "model m%d {\n input x:[1,8]\n y=relu(x)\n}\n" % i for i in range(24000)))
# issue 28 item 15: 100 lets that size one memory-bound matmul beside
# 20,000 relus that none of them sizes (370 KB): the crossover search
# analysed the whole model again at every step of every let's search
# (about 1,500 analyses of 20,001 nodes, 4.6 s); now only each let's first
# step does, the others analyse the matmul and what it reads.
write("gen_crossover_lets", "".join("let L%d = 1\n" % i for i in range(100)) +
      "let S = " + "+".join("L%d" % i for i in range(100)) + "\n" +
      "model m {\n  input x : [S, 4096]\n  weight w : [4096, 4096]\n"
      "  y = matmul(x, w)\n  input z : [1, 8]\n" +
      "".join("  r%d = relu(z)\n" % i for i in range(20000)) + "}\n")
