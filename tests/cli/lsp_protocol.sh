#!/bin/sh
# SPDX-License-Identifier: MIT
# `rooflint lsp` over a pipe: a scripted session whose every response is
# compared exactly (tests/lsp/protocol.py says what and why; R-LSP-001 ..
# R-LSP-020 are cited there).
set -eu
BUILD=${BUILD:-build}
# A file on the command line is a mistake: the client opens the documents.
err=$("$BUILD/rooflint" lsp tests/lsp/decode.roof 2>&1 </dev/null >/dev/null) && status=0 || status=$?
[ "$status" -eq 2 ] || { echo "rooflint lsp FILE: exit $status, expected 2"; exit 1; }
[ "$err" = "rooflint: error: 'rooflint lsp' takes no files: its client opens them" ] ||
  { echo "rooflint lsp FILE: $err"; exit 1; }
exec /usr/bin/python3 tests/lsp/protocol.py "$BUILD/rooflint"
