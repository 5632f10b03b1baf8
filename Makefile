# rooflint: a compiler-style static analyzer for ML operation graphs.
# Plain make.  Generated sources go to $(BUILD)/gen, never into the tree.
#
#   make            build $(BUILD)/rooflint
#   make check      every test (unit, verify, bad inputs, golden, cli, spec)
#   make demo       lint and report the built-in Llama-2-7B decode example
#   make deps       install the Debian packages the build and tests need
#   make asan       the whole suite under ASan + UBSan (in build-asan/)
#   make asan-robust  make robust on that build
#   make ubsan-robust make robust under clang's UBSan + float-cast-overflow
#   make robust     the hostile-input corpus under time and memory limits
#   make install    PREFIX=/usr/local DESTDIR=
#   make screenshots  the README's picture of the HTML page (docs/img/)

CC      ?= cc
# A clang build lives beside the gcc one, so `make CC=clang check` really
# compiles with clang instead of reusing gcc's objects.
BUILD   ?= build$(if $(findstring clang,$(notdir $(CC))),-clang)
PREFIX  ?= /usr/local
DESTDIR ?=
FLEX    ?= flex
BISON   ?= bison
SANFLAGS ?=

PKG_CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
PKG_CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
# jansson: the JSON writer (src/out/json_writer.c) and the SARIF document.
PKG_JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
PKG_JANSSON_LIBS   := $(or $(shell pkg-config --libs jansson 2>/dev/null),-ljansson)

WARN    = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_DEFAULT_SOURCE $(CFLAGS) $(SANFLAGS) -Isrc -I$(BUILD)/gen $(PKG_JANSSON_CFLAGS)
# flex/bison output: strict C11 but without our extra warnings.
GEN_CFLAGS = -std=c11 -D_DEFAULT_SOURCE $(CFLAGS) $(SANFLAGS) -Isrc -I$(BUILD)/gen -w
LDLIBS  = $(PKG_JANSSON_LIBS) -lm
# The rooflint binary links statically (static-pie: still randomised) where
# the toolchain has libc.a and libjansson.a: ld.so's mapping and relocating
# of the shared libraries is a good part of a small model's page faults
# (docs/performance.md).  Sanitizer builds cannot link statically, and
# valgrind cannot see a static binary's malloc: those two link dynamically
# (STATIC= forces it too).
STATIC  ?= $(if $(SANFLAGS)$(filter valgrind,$(MAKECMDGOALS)),,$(STATIC_LIBS_FOUND))
STATIC_LIBS_FOUND = $(and $(wildcard $(shell $(CC) -print-file-name=libc.a)),$(wildcard $(shell $(CC) -print-file-name=libjansson.a)),yes)
BIN_LDFLAGS = $(if $(STATIC),-static-pie)

SRCS      := $(sort $(wildcard src/*.c src/checks/*.c src/import/*.c src/out/*.c src/lsp/*.c))
LIB_SRCS  := $(filter-out src/main.c,$(SRCS))
LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
# (while a stage is being written, its generator input may not exist yet)
GEN_OBJS  := $(if $(wildcard grammar/parser.y),$(BUILD)/obj/gen/parser.o) \
             $(if $(wildcard grammar/lexer.l),$(BUILD)/obj/gen/lexer.o) \
             $(if $(wildcard tools/embed.c),$(BUILD)/obj/gen/targets_embed.o $(BUILD)/obj/gen/html_embed.o)
TARGET_SPECS := $(sort $(wildcard specs/targets/*.roof))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJS := $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/%.o,$(UNIT_SRCS))
HDRS      := $(wildcard src/*.h src/*.def src/checks/*.h src/import/*.h src/import/*.def src/out/*.h src/lsp/*.h) $(if $(wildcard grammar/lexer.l),$(BUILD)/gen/parser.h $(BUILD)/gen/lexer.h)

BIN := $(BUILD)/rooflint

.PHONY: all check check-unit check-tests demo deps install uninstall asan asan-robust ubsan-robust clean screenshots
.DEFAULT_GOAL := all

all: $(BIN)

$(BIN): $(BUILD)/obj/main.o $(LIB_OBJS) $(GEN_OBJS) $(BUILD)/link-flags
	$(CC) $(ALL_CFLAGS) $(BIN_LDFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)

# Relinks when the link changes (a static `make` after a dynamic `make
# valgrind`, and back).
$(BUILD)/link-flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(BIN_LDFLAGS)' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
.PHONY: FORCE

$(BUILD)/gen/parser.c $(BUILD)/gen/parser.h: grammar/parser.y
	@mkdir -p $(BUILD)/gen
	$(BISON) -Wall -Werror --defines=$(BUILD)/gen/parser.h -o $(BUILD)/gen/parser.c $<

$(BUILD)/gen/lexer.c $(BUILD)/gen/lexer.h: grammar/lexer.l $(BUILD)/gen/parser.h
	@mkdir -p $(BUILD)/gen
	$(FLEX) --header-file=$(BUILD)/gen/lexer.h -o $(BUILD)/gen/lexer.c $<

$(BUILD)/embed: tools/embed.c
	@mkdir -p $(BUILD)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/gen/targets_embed.c: $(BUILD)/embed $(TARGET_SPECS)
	@mkdir -p $(BUILD)/gen
	$(BUILD)/embed $(TARGET_SPECS) > $@.tmp && mv $@.tmp $@

# The HTML page's style and script (src/out/html.c writes the rest).
HTML_PAGE := src/out/html_page.css src/out/html_page.js
$(BUILD)/gen/html_embed.c: $(BUILD)/embed $(HTML_PAGE)
	@mkdir -p $(BUILD)/gen
	$(BUILD)/embed --name html_page $(HTML_PAGE) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(GEN_CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -c -o $@ $<

$(BUILD)/obj/tests/%.o: tests/unit/%.c $(HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -Wno-missing-prototypes $(PKG_CHECK_CFLAGS) -Itests/unit -c -o $@ $<

$(BUILD)/check_unit: $(UNIT_OBJS) $(LIB_OBJS) $(GEN_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_CHECK_LIBS) $(LDLIBS)

# One Check suite per tests/unit/check_NAME.c, exported as NAME_suite();
# the runner's list is generated from the file names.
SUITE_NAMES := $(patsubst tests/unit/check_%.c,%,$(filter-out tests/unit/check_main.c,$(filter tests/unit/check_%.c,$(UNIT_SRCS))))
$(BUILD)/gen/suites.h: $(UNIT_SRCS) Makefile
	@mkdir -p $(BUILD)/gen
	@printf 'SUITE(%s)\n' $(SUITE_NAMES) > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/tests/check_main.o: $(BUILD)/gen/suites.h

# onnx_dump: prints what the ONNX reader read (tests/onnx/onnx_dump.c), for
# the cross-check against python3-onnx and the reader's bench rows.
$(BUILD)/onnx_dump: tests/onnx/onnx_dump.c $(LIB_OBJS) $(GEN_OBJS) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(GEN_OBJS) $(LDLIBS)

# make onnx-fixtures: regenerates the committed ONNX fixtures with Debian's
# python3-onnx.  One script per directory of fixtures; append yours.
ONNX_FIXTURE_GEN = tests/onnx/gen_wire.py tests/onnx/gen_ops.py tests/onnx/gen_recurrent.py tests/onnx/gen_decoder.py
.PHONY: onnx-fixtures
onnx-fixtures:
	@sh tools/deps.sh python3-onnx python3-torch
	@for s in $(ONNX_FIXTURE_GEN); do echo "/usr/bin/python3 $$s"; /usr/bin/python3 $$s || exit 1; done

# make onnx-torchvision: torchvision's classifiers exported (weights=None,
# Debian's python3-torch and python3-torchvision) and linted; their
# contraction FLOPs must be 2 x the published multiply-accumulates
# (tests/onnx/torchvision_check.py; minutes, so not part of `make check`);
# and GPT-2-, BERT- and Llama-layer-like exports with symbolic batch and
# sequence (tests/onnx/transformers_check.py).
.PHONY: onnx-torchvision
onnx-torchvision: $(BIN)
	@sh tools/deps.sh python3-onnx python3-torch python3-torchvision
	/usr/bin/python3 tests/onnx/torchvision_check.py $(BIN)
	/usr/bin/python3 tests/onnx/transformers_check.py $(BIN)

# ---------------------------------------------------------------- tests
check: deps
	@$(MAKE) --no-print-directory check-tests

check-tests: $(BIN) $(BUILD)/check_unit $(BUILD)/onnx_dump $(BUILD)/fuzz-compiled.stamp
	@BUILD=$(BUILD) sh tests/run.sh

# The fuzz harnesses compiled, not linked (libFuzzer is clang's), by every
# make check: a changed interface they call fails here, not only in make
# fuzz's build.
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
$(BUILD)/fuzz-compiled.stamp: $(FUZZ_SRCS) tests/fuzz/cli_shim.h src/main.c $(BIN)
	$(CC) $(ALL_CFLAGS) $(WARN) -fsyntax-only $(FUZZ_SRCS)
	$(CC) $(ALL_CFLAGS) $(WARN) -include tests/fuzz/cli_shim.h -fsyntax-only src/main.c
	@touch $@

demo: deps
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) --report examples/llama2_7b_decode.roof

# make asan-robust: `make robust` on that build (limits: tests/robust/run.sh).
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=build-asan CC=$${ASAN_CC:-$(CC)} \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
asan:
	@$(ASAN_MAKE) check-tests

asan-robust:
	@$(ASAN_MAKE) robust

# make ubsan-robust: `make robust` built by clang with UBSan and
# float-cast-overflow (which gcc's UBSan lacks: a non-finite double cast to
# an integer), in build-ubsan/.
ubsan-robust:
	@sh tools/deps.sh $(FUZZ_PACKAGES)
	@$(MAKE) --no-print-directory BUILD=build-ubsan CC=$(FUZZ_CC) \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="-fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all" robust

# ---------------------------------------------------------------- deps
DEB_PACKAGES = flex bison check pkg-config make gcc libjansson-dev python3-jsonschema libxml2-utils \
               python3-yaml groff-base python3-onnx chromium chromium-driver neovim time \
               python3-torch

deps:
	@sh tools/deps.sh $(DEB_PACKAGES)

# make screenshots: the HTML page of the Llama-2-7B decode example as headless
# Chromium shows it (tests/cli/html_browser.py --screenshot), for the README.
screenshots: $(BIN)
	@sh tools/deps.sh chromium chromium-driver
	$(BIN) --format html examples/llama2_7b_decode.roof > $(BUILD)/report.html 2> /dev/null; test $$? -le 1
	/usr/bin/python3 tests/cli/html_browser.py --screenshot $(BUILD)/report.html docs/img/report_html.png

# ---------------------------------------------------------------- install
MANDIR ?= $(PREFIX)/share/man/man1
# `rooflint calibrate` finds its script at ../share/rooflint/ from the
# binary's own directory: the two stay siblings under any PREFIX.
SHAREDIR = $(PREFIX)/share/rooflint

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR) $(DESTDIR)$(SHAREDIR)
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rooflint
	install -m 644 docs/rooflint.1 $(DESTDIR)$(MANDIR)/rooflint.1
	install -m 644 share/rooflint/calibrate.py $(DESTDIR)$(SHAREDIR)/calibrate.py

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rooflint $(DESTDIR)$(MANDIR)/rooflint.1 \
	      $(DESTDIR)$(SHAREDIR)/calibrate.py
	-rmdir $(DESTDIR)$(SHAREDIR) 2>/dev/null

clean:
	rm -rf build build-asan build-clang build-fuzz build-ubsan

# ---------------------------------------------------------------- robustness, performance
# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS=fuzz_cli]: the libFuzzer targets
#   (clang, ASan, UBSan, float-cast-overflow), FUZZ_SECONDS in all, split
#   among them: the library in-process and main.c's every mode
#   (tests/fuzz/run.sh says how they are seeded and run).
# make valgrind: the CLI test cases (bad, verify, golden) under memcheck.
# make bench: the performance table and its verdicts (never fails the build).
FUZZ_PACKAGES  = clang libclang-rt-14-dev
FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 60
FUZZ_TARGETS  ?=
FUZZ_BUILD     = build-fuzz
# max_len of 256 KiB reaches depth and quadratic effects (docs/performance.md);
# float-cast-overflow (clang only, outside -fsanitize=undefined) catches a
# non-finite or huge double cast to an int.
FUZZ_FLAGS    ?= -max_len=262144 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_SAN       = -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all

.PHONY: fuzz fuzz-build valgrind bench robust

# make robust: the hostile-input corpus (tests/robust/run.sh), each input in
#   ten modes under CPU, memory and output limits; inputs still waiting for
#   a fix elsewhere are listed in tests/robust/KNOWN_FAILING (xfail).
robust: $(BIN)
	@BUILD=$(BUILD) sh tests/robust/run.sh

fuzz:
	@sh tools/deps.sh $(FUZZ_PACKAGES)
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" fuzz-build
	@BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_FLAGS="$(FUZZ_FLAGS)" \
	  sh tests/fuzz/run.sh $(FUZZ_TARGETS)

fuzz-build: $(BUILD)/fuzz_rooflint $(BUILD)/fuzz_cli $(BUILD)/fuzz_onnx \
  $(BUILD)/fuzz_import $(BUILD)/fuzz_lsp

$(BUILD)/fuzz_import: tests/fuzz/fuzz_import.c $(LIB_OBJS) $(GEN_OBJS) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(GEN_OBJS) $(LDLIBS)

$(BUILD)/fuzz_lsp: tests/fuzz/fuzz_lsp.c $(LIB_OBJS) $(GEN_OBJS) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(GEN_OBJS) $(LDLIBS)

$(BUILD)/fuzz_onnx: tests/fuzz/fuzz_onnx.c $(LIB_OBJS) $(GEN_OBJS) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(GEN_OBJS) $(LDLIBS)

$(BUILD)/fuzz_rooflint: tests/fuzz/fuzz_rooflint.c $(LIB_OBJS) $(GEN_OBJS) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(GEN_OBJS) $(LDLIBS)

# fuzz_cli runs main.c itself, renamed and with a stdout that survives it
# (tests/fuzz/cli_shim.h).
$(BUILD)/obj/fuzz/main.o: src/main.c tests/fuzz/cli_shim.h $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(WARN) -include tests/fuzz/cli_shim.h -c -o $@ $<

$(BUILD)/fuzz_cli: tests/fuzz/fuzz_cli.c $(BUILD)/obj/fuzz/main.o $(LIB_OBJS) $(GEN_OBJS) $(HDRS)
	$(CC) $(ALL_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(BUILD)/obj/fuzz/main.o \
	  $(LIB_OBJS) $(GEN_OBJS) $(LDLIBS)

valgrind: $(BIN)
	@sh tools/deps.sh valgrind
	@BUILD=$(BUILD) sh tests/fuzz/valgrind.sh

bench: $(BIN) $(BUILD)/onnx_dump
	@BUILD=$(BUILD) sh tests/bench/bench.sh
