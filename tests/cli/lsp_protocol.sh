#!/bin/sh
# SPDX-License-Identifier: MIT
# `rooflint lsp` over a pipe: a scripted session whose every response is
# compared exactly (tests/lsp/protocol.py says what and why; R-LSP-001 ..
# R-LSP-020 are cited there).
set -eu
BUILD=${BUILD:-build}
exec /usr/bin/python3 tests/lsp/protocol.py "$BUILD/rooflint"
