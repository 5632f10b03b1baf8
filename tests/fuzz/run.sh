#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh: `make fuzz`, after the targets are built.
#
#   BUILD=build-fuzz FUZZ_SECONDS=60 sh tests/fuzz/run.sh [TARGET...]
#
# Runs each libFuzzer target (default: all of them) for its share of
# FUZZ_SECONDS, so the CI's 60-second smoke stays 60 seconds in all:
#   fuzz_rooflint  the library in-process: parse .. checks, every renderer
#   fuzz_cli       main.c itself: options, --sweep, -D, --dtype, --plan,
#                  --plot, diff, -t FILE, subcommands, stdout on /dev/full
#   fuzz_onnx      the ONNX reader (src/import/onnx_read.c) on protobuf bytes,
#                  seeded with every .onnx under tests/ smaller than 64 KiB
#                  and with tests/fuzz/onnx.dict (field tags) as dictionary
#   fuzz_import    the importers end to end (ONNX and config.json: reading,
#                  translation, the parse and analysis of the text written)
#                  with the injection oracle of fuzz_import.c, seeded with
#                  those .onnx files and the configs of tests/hf/ and
#                  tests/robust/ behind its choice and name bytes, and with
#                  onnx.dict and tests/fuzz/import.dict as dictionary
#   fuzz_lsp       the language server's message reader and the server
#                  (tests/fuzz/fuzz_lsp.c), seeded with tests/fuzz/lsp-seeds/
# Seeds are every .roof under examples/, tests/, specs/ (smaller than 64 KiB,
# and not one listed with the word fuzz in tests/robust/KNOWN_FAILING);
# fuzz_cli also gets each seed once behind a mode prefix (fuzz_cli.c), the
# k-th seed in mode k, so every mode starts with real models, and the
# hand-made inputs of tests/fuzz/cli-seeds/ (argv lines, extreme values,
# stdout on /dev/full).  Each target
# keeps its own corpus (BUILD/corpus-TARGET) between runs; a crash, leak,
# timeout or out-of-memory input is written to BUILD/artifacts/ and ends the
# run with libFuzzer's status.  FUZZ_FLAGS replaces the per-input limits.
set -u
BUILD=${BUILD:-build-fuzz}
SECONDS_ALL=${FUZZ_SECONDS:-60}
FLAGS=${FUZZ_FLAGS:--max_len=262144 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1}
TARGETS=${*:-fuzz_rooflint fuzz_cli fuzz_onnx fuzz_import fuzz_lsp}
NMODES=27 # modes in fuzz_cli.c, the argv one included

n=0
for t in $TARGETS; do n=$((n + 1)); done
share=$((SECONDS_ALL / n))
[ "$share" -ge 1 ] || share=1

seeds=$BUILD/seed
rm -rf "$seeds" "$seeds-cli" "$seeds-onnx" "$seeds-import"
mkdir -p "$seeds" "$seeds-cli" "$seeds-onnx" "$seeds-import" "$BUILD/artifacts" || exit 2
find tests -name '*.onnx' -size -64k | sort | while read -r f; do
  cp "$f" "$seeds-onnx/$(echo "$f" | tr / _)"
  # fuzz_import: ONNX (choice 0), then with --unknown-ops=custom (2); no name
  { printf '\000\000'; cat "$f"; } > "$seeds-import/$(echo "$f" | tr / _)"
  { printf '\002\000'; cat "$f"; } > "$seeds-import/custom_$(echo "$f" | tr / _)"
done
# configs: each phase in turn (choice 1, 5, 9, 13)
k=0
find tests/hf tests/robust -name '*.json' -size -64k | sort | while read -r f; do
  choice=$((1 + 4 * (k % 4)))
  { printf "\\$(printf %o $choice)\\000"; cat "$f"; } > "$seeds-import/$(echo "$f" | tr / _)"
  k=$((k + 1))
done
# the importers' reproducers (tests/robust/import_gen.py: strings that
# injected statements, bounds), and a file name that did
python3 tests/robust/import_gen.py "$BUILD/import-gen" || exit 2
for f in "$BUILD"/import-gen/*; do
  [ "$(wc -c < "$f")" -lt 65536 ] || continue
  case $f in *.onnx) choice='\002' ;; *) choice='\001' ;; esac
  { printf "$choice\\000"; cat "$f"; } > "$seeds-import/repro_$(basename "$f")"
done
{ printf '\000\026a\nmodel q { }\n#xxxxxxx'; cat "$BUILD/import-gen/plain.onnx"; } \
  > "$seeds-import/repro_file_name.onnx"
cat tests/fuzz/onnx.dict tests/fuzz/import.dict > "$BUILD/import.dict"
k=0
find examples tests specs -name '*.roof' -size -64k | sort | while read -r f; do
  name=$(basename "$f" .roof)
  sed 's/#.*//' tests/robust/KNOWN_FAILING | awk -v n="$name" \
    '$1 == n { for (i = 2; i <= NF; i++) if ($i == "fuzz") f = 1 } END { exit !f }' && continue
  seed=$(echo "$f" | tr / _)
  cp "$f" "$seeds/$seed"
  # mode byte 0x80 + k, value byte k * 37 (spreads the value choices)
  { printf "\\$(printf %o $((128 + k % NMODES)))\\$(printf %o $((k * 37 % 256)))"
    cat "$f"; } > "$seeds-cli/$seed"
  k=$((k + 1))
done

status=0
for t in $TARGETS; do
  extra=""
  seed_dirs=$seeds
  dict=tests/fuzz/roof.dict
  case $t in
    fuzz_cli) extra="-close_fd_mask=3"
      seed_dirs="$seeds $seeds-cli tests/fuzz/cli-seeds" ;;
    fuzz_onnx) seed_dirs=$seeds-onnx dict=tests/fuzz/onnx.dict ;;
    fuzz_import) seed_dirs=$seeds-import dict=$BUILD/import.dict ;;
    fuzz_lsp) seed_dirs=tests/fuzz/lsp-seeds dict=tests/fuzz/lsp.dict ;;
  esac
  mkdir -p "$BUILD/corpus-$t"
  echo "==> $t for $share s"
  # shellcheck disable=SC2086
  "$BUILD/$t" -max_total_time="$share" -dict="$dict" \
    -artifact_prefix="$BUILD/artifacts/$t-" $FLAGS $extra \
    "$BUILD/corpus-$t" $seed_dirs || status=$?
  [ "$status" -eq 0 ] || break
done
exit "$status"
