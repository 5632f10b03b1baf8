#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/onnx/torchvision_check.py: `make onnx-torchvision` (not part of
# `make check`: it exports 15 models with Debian's python3-torch and
# python3-torchvision, weights=None, which takes minutes).
#
# For each torchvision classifier, exported at 1x3x224x224 (299 for
# Inception v3) with torch.onnx.export's defaults (opset 14, BatchNorm
# folded into the convolutions), rooflint lints the .onnx and this script
# sums the FLOPs of its contractions (conv1d/2d/3d, matmul) less their
# bias epilogues (one FLOP per output element of a node with bias=,
# R-COST-020): multiply-adds counted 2 each.  torchvision's model docs
# list "GFLOPS" per model, which are multiply-accumulates; rooflint's
# figure / 2 must equal that to the published precision (two decimals).
#
#   torchvision_check.py ROOFLINT [--markdown]
# prints one row per model and exits 1 when any row differs.
import json
import os
import subprocess
import sys
import tempfile

import torch
import torchvision

# torchvision's published GFLOPS (multiply-accumulates), from the weights'
# meta in its docs (pytorch.org/vision/stable/models.html).
PUBLISHED = [
    ("resnet18", 1.81), ("resnet50", 4.09), ("resnext50_32x4d", 4.23),
    ("vgg11", 7.61), ("densenet121", 2.83), ("inception_v3", 5.71),
    ("googlenet", 1.50), ("mobilenet_v2", 0.30), ("mobilenet_v3_large", 0.22),
    ("mobilenet_v3_small", 0.06), ("shufflenet_v2_x1_0", 0.14),
    ("squeezenet1_1", 0.35), ("efficientnet_b0", 0.39), ("mnasnet1_0", 0.31),
    ("convnext_tiny", 4.46), ("vit_b_16", 17.56),
]


def export(name, path):
    kw = {"weights": None}
    if name in ("inception_v3", "googlenet"):
        kw["aux_logits"] = False
        kw["init_weights"] = False
    model = getattr(torchvision.models, name)(**kw).eval()
    side = 299 if name == "inception_v3" else 224
    # not under torch.no_grad(): nn.MultiheadAttention (ViT) would take
    # its fused fast path, which torch 1.13 cannot export
    torch.onnx.export(model, torch.zeros(1, 3, side, side), path,
                      opset_version=14, input_names=["image"])


def contraction_flops(rooflint, path):
    text = subprocess.run([rooflint, "import", path], check=True,
                          capture_output=True, text=True).stdout.split("\n")
    out = subprocess.run([rooflint, "--format", "json", "-w", path],
                         capture_output=True, text=True)
    model = json.loads(out.stdout)["models"][0]
    total = 0
    for n in model["nodes"]:
        if n["op"] not in ("conv1d", "conv2d", "conv3d", "matmul"):
            continue
        flops = n["flops"] * n["count"]
        line = text[n["location"]["line"] - 1]
        if "bias=" in line and line.lstrip().startswith(n["name"] + " ="):
            elems = 1
            for d in n["shape"]:
                elems *= d
            flops -= elems * n["count"]
        total += flops
    return total, out.returncode


def main():
    rooflint = sys.argv[1]
    markdown = "--markdown" in sys.argv
    bad = 0
    if markdown:
        print("| model | published GMACs | rooflint GFLOPs (contractions) | ratio |")
        print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, gmacs in PUBLISHED:
            path = os.path.join(tmp, name + ".onnx")
            export(name, path)
            flops, rc = contraction_flops(rooflint, path)
            ok = rc == 0 and round(flops / 2e9, 2) == gmacs
            bad += not ok
            ratio = flops / 1e9 / gmacs
            if markdown:
                print(f"| {name} | {gmacs:.2f} | {flops / 1e9:.3f} | {ratio:.3f} |")
            else:
                print(f"{'ok ' if ok else 'BAD'} {name:20s} published {gmacs:6.2f} GMACs"
                      f"  rooflint {flops / 1e9:8.3f} GFLOPs  ratio {ratio:.3f}"
                      + ("" if rc == 0 else f"  (exit {rc})"))
            os.remove(path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
