#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/transformers_check.py: part of `make onnx-torchvision`.
#
# Small GPT-2-, BERT- and Llama-layer-like models written here as torch
# modules (no network, no `transformers`), exported by Debian's
# python3-torch 1.13 with dynamic batch and sequence axes, opset 14.  Each
# must lint with no error and no unknown op at the lets' defaults and
# with -D batch=B -D sequence=S, and its matmul FLOPs must equal the
# count written below for those B and S (R-ONNX-003, R-ONNX-004: the shape
# arithmetic of a torch export folds into lists that keep the lets); and
# its `rooflint import` text, linted with the same -D, must give the same
# FLOPs and bytes (R-ONNX-001: the import is symbolic, not the sizes of
# one binding).
#
#   transformers_check.py ROOFLINT
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
from torch import nn
import torch.nn.functional as F

V, P, D, H, L = 96, 64, 32, 4, 2  # vocabulary, positions, width, heads, layers
B, S = 3, 10


class Gpt2Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.c_attn, self.c_proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.c_fc, self.mlp_proj = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)
        self.register_buffer("bias", torch.tril(torch.ones(P, P, dtype=torch.bool)).view(1, 1, P, P))

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(D, dim=2)
        q, k, v = (t.view(b, s, H, D // H).transpose(1, 2) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // H)
        mask = self.bias[:, :, :s, :s]
        w = torch.where(mask, w, torch.tensor(-1e4, dtype=w.dtype))
        a = torch.matmul(F.softmax(w, dim=-1), v).transpose(1, 2).reshape(b, s, D)
        x = x + self.c_proj(a)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class Gpt2(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, D), nn.Embedding(P, D)
        self.h = nn.ModuleList(Gpt2Block() for _ in range(L))
        self.ln_f = nn.LayerNorm(D)

    def forward(self, ids):
        pos = torch.arange(0, ids.shape[1], dtype=torch.long).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for blk in self.h:
            x = blk(x)
        return torch.matmul(self.ln_f(x), self.wte.weight.t())


# torch exports nn.Linear on [b, s, D] as MatMul then Add of its bias, which
# rooflint folds into the matmul's bias= (R-ONNX-002): one FLOP per output
# element of each Linear with a bias (R-COST-020), 3D + D + 4D + D of them
# per position in a GPT-2 or BERT layer.  Model totals are the same either
# way (the add was one FLOP per element too).
def linear_bias_flops(b, s):
    return b * s * (3 * D + D + 4 * D + D)


def gpt2_matmul_flops(b, s):
    per_layer = 2 * b * s * D * (3 * D + D + 4 * D + 4 * D) + 2 * 2 * b * H * s * s * (D // H)
    return L * (per_layer + linear_bias_flops(b, s)) + 2 * b * s * D * V


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.word, self.pos, self.tok = nn.Embedding(V, D), nn.Embedding(P, D), nn.Embedding(2, D)
        self.ln = nn.LayerNorm(D)
        self.layers = nn.ModuleList(
            nn.ModuleDict({"qkv": nn.Linear(D, 3 * D), "o": nn.Linear(D, D), "ln1": nn.LayerNorm(D),
                           "up": nn.Linear(D, 4 * D), "down": nn.Linear(4 * D, D), "ln2": nn.LayerNorm(D)})
            for _ in range(L))

    def forward(self, ids, mask):
        b, s = ids.shape
        pos = torch.arange(s).expand(b, s)
        x = self.ln(self.word(ids) + self.pos(pos) + self.tok(torch.zeros_like(ids)))
        ext = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
        for m in self.layers:
            q, k, v = m["qkv"](x).chunk(3, dim=-1)
            q, k, v = (t.reshape(b, s, H, D // H).permute(0, 2, 1, 3) for t in (q, k, v))
            w = F.softmax(q @ k.transpose(-1, -2) / math.sqrt(D // H) + ext, dim=-1)
            a = (w @ v).permute(0, 2, 1, 3).reshape(b, s, D)
            x = m["ln1"](x + m["o"](a))
            x = m["ln2"](x + m["down"](F.gelu(m["up"](x))))
        return x


def bert_matmul_flops(b, s):
    return L * (2 * b * s * D * (3 * D + D + 4 * D + 4 * D) + 2 * 2 * b * H * s * s * (D // H)
                + linear_bias_flops(b, s))


class RmsNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


KV, FF = 2, 3 * D  # grouped-query heads, MLP width


class LlamaLayer(nn.Module):
    def __init__(self):
        super().__init__()
        hd = D // H
        self.n1, self.n2 = RmsNorm(), RmsNorm()
        self.q = nn.Linear(D, D, bias=False)
        self.k = nn.Linear(D, KV * hd, bias=False)
        self.v = nn.Linear(D, KV * hd, bias=False)
        self.o = nn.Linear(D, D, bias=False)
        self.gate = nn.Linear(D, FF, bias=False)
        self.up = nn.Linear(D, FF, bias=False)
        self.down = nn.Linear(FF, D, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        f = torch.outer(torch.arange(P).float(), inv)
        emb = torch.cat((f, f), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        b, s, _ = x.shape
        hd = D // H
        h = self.n1(x)
        q = self.q(h).view(b, s, H, hd).transpose(1, 2)
        k = self.k(h).view(b, s, KV, hd).transpose(1, 2)
        v = self.v(h).view(b, s, KV, hd).transpose(1, 2)
        cos, sin = self.cos[:s], self.sin[:s]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k[:, :, None].expand(b, KV, H // KV, s, hd).reshape(b, H, s, hd)
        v = v[:, :, None].expand(b, KV, H // KV, s, hd).reshape(b, H, s, hd)
        w = F.softmax(q @ k.transpose(2, 3) / math.sqrt(hd), dim=-1)
        x = x + self.o((w @ v).transpose(1, 2).reshape(b, s, D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def llama_matmul_flops(b, s):
    hd = D // H
    return 2 * b * s * D * (D + 2 * KV * hd + D + 3 * FF) + 2 * 2 * b * H * s * s * hd


def lint(rooflint, path, *args):
    out = subprocess.run([rooflint, "--format", "json", "-w", *args, path], capture_output=True, text=True)
    if out.returncode != 0:
        return None, None, out.stderr.strip().splitlines()[:3]
    m = json.loads(out.stdout)["models"][0]
    flops = sum(n["flops"] * n["count"] for n in m["nodes"] if n["op"] == "matmul")
    return flops, (m["summary"]["flops"], m["summary"]["bytes"]), []


def main():
    rooflint = sys.argv[1]
    bad = 0
    ids = torch.zeros(2, 5, dtype=torch.long)
    cases = [
        ("gpt2", Gpt2(), (ids,), ["ids"], {"ids": {0: "batch", 1: "sequence"}}, gpt2_matmul_flops),
        ("bert", Bert(), (ids, torch.ones(2, 5, dtype=torch.long)), ["ids", "mask"],
         {"ids": {0: "batch", 1: "sequence"}, "mask": {0: "batch", 1: "sequence"}}, bert_matmul_flops),
        ("llama_layer", LlamaLayer(), (torch.zeros(2, 5, D),), ["x"], {"x": {0: "batch", 1: "sequence"}},
         llama_matmul_flops),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, args, names, axes, want in cases:
            path = os.path.join(tmp, name + ".onnx")
            torch.onnx.export(model.eval(), args, path, opset_version=14, input_names=names,
                              dynamic_axes=axes)
            roof = os.path.join(tmp, name + ".roof")
            with open(roof, "w") as f:
                subprocess.run([rooflint, "import", path], stdout=f, check=True)
            for b, s in ((1, 1), (B, S)):
                d = ["-D", f"batch={b}", "-D", f"sequence={s}"]
                flops, totals, err = lint(rooflint, path, *d)
                _, totals_roof, err_roof = lint(rooflint, roof, *d)
                ok = flops == want(b, s) and totals == totals_roof
                err += ["import:"] + err_roof if totals != totals_roof else []
                bad += not ok
                print(f"{'ok ' if ok else 'BAD'} {name:12s} batch={b} sequence={s}: matmul FLOPs "
                      f"{flops} (expected {want(b, s)}) {' '.join(err)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
