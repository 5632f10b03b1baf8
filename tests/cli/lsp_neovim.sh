#!/bin/sh
# SPDX-License-Identifier: MIT
# A real client: Neovim 0.7's built-in LSP client runs `rooflint lsp` on a
# copy of tests/lsp/decode.roof (tests/lsp/nvim_init.lua), and what it got
# must equal tests/lsp/neovim.expected.json: the diagnostics (R-LSP-012),
# the hover of line 8 (R-LSP-013; figures by hand in tests/lsp/protocol.py,
# the step now 20.0 us + 2 x 9.78 ns of the fused region, so 99.9%), the
# code actions (R-LSP-015), the line the fix-it rewrote (fp32 -> bf16), and
# the diagnostics of the fixed text: without stray-fp32, and matmul 'y' at
# 1.00 FLOP/B against bf16's ridge of 989.4e12 / 3.35e12 = 295.5.
set -eu
BUILD=${BUILD:-build}
command -v nvim >/dev/null || { echo "nvim is missing (make deps installs neovim)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/lsp-nvim.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
cp tests/lsp/decode.roof "$T/decode.roof"
ROOFLINT=$(cd "$(dirname "$BUILD/rooflint")" && pwd)/rooflint
(cd "$T" && XDG_CACHE_HOME=$T XDG_STATE_HOME=$T XDG_DATA_HOME=$T XDG_CONFIG_HOME=$T \
  ROOFLINT=$ROOFLINT LSP_FILE=$T/decode.roof LSP_OUT=$T/out.json \
  timeout 30 nvim --headless -n -i NONE -u "$OLDPWD/tests/lsp/nvim_init.lua") </dev/null
/usr/bin/python3 - "$T/out.json" tests/lsp/neovim.expected.json <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
if got != want:
    print("got:", json.dumps(got, indent=1, sort_keys=True))
    sys.exit(1)
PY
