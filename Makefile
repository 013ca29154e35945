# The two commands: `make demo` and `make test`. Both create .venv when missing.
# The interpreter .venv is made from: the first of /usr/bin/python3.11, python3.11 and
# python3 that is Python 3.11 or newer and can make a virtualenv. The distribution's
# python3.11 comes first because it is built for speed (one static binary); pyenv's
# default build loads libpython3.11.so, has no --enable-optimizations, and ran the
# engine and leagues 12-25% slower on this project's machine (docs/benchmarks.md,
# "The interpreter"). `make PYTHON=/path/to/python3 ...` chooses another.
PYTHON ?= $(shell for p in /usr/bin/python3.11 python3.11 python3; do \
	  $$p -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' \
	  >/dev/null 2>&1 && { command -v $$p; break; }; done)
ifeq ($(strip $(PYTHON)),)
PYTHON := python3
endif
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean proto proto-check proto-baseline js-bot buf sandbox-tools \
	browser-tools bytecode axe cpp-bot cpp-bot-tools

# $(call apt_install,COMMAND,PACKAGE,WHAT FOR): when COMMAND is missing, install the
# Debian PACKAGE with apt-get as root (updating the lists if the first try fails), or
# else say what to install.
apt_install = command -v $(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $(2) for $(3)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null || \
	    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; }; \
	  else \
	    echo "warning: $(2) ($(1)) is not installed: install it for $(3)"; \
	  fi; }

# The generated gRPC code in arena/wire/v1/ comes from protos/ by this one command;
# tests/wire/test_proto_sync.py fails when the two disagree. The proto stays at
# protos/arena/v1/ (its package is arena.v1, and buf wants the folder to match);
# -Iarena/wire/v1=protos/arena/v1 maps it to the import path arena.wire.v1 of the
# wire layer. Package and method names on the wire (/arena.v1.Bot/...) do not change.
PROTO_CMD = $(BIN)/python -m grpc_tools.protoc -Iarena/wire/v1=protos/arena/v1 --python_out=. --pyi_out=. --grpc_python_out=. arena/wire/v1/bot.proto

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The JavaScript sample bot's node packages, exactly as its package-lock.json pins them.
JS_BOT := sample_bots/js_bot

js-bot: $(JS_BOT)/node_modules/.package-lock.json

$(JS_BOT)/node_modules/.package-lock.json: $(JS_BOT)/package.json $(JS_BOT)/package-lock.json
	npm ci --prefix $(JS_BOT)

# The C++ sample bot, built from protos/arena/v1/bot.proto into its own build/ folder
# (not committed): protoc and grpc_cpp_plugin generate the gRPC code, g++ compiles it
# with the bot against Debian's gRPC C++ library. The tools come from Debian's packages
# libgrpc++-dev and protobuf-compiler-grpc, installed as root with apt-get when missing
# (about 5 s); the first build takes about 16 s of one core, a rebuild after a change to
# bot.cc about 5 s. The bot's folder is build/, the folder of its program, which is all
# the sandbox lets it see of the project: it needs nothing there but the program.
CPP_BOT := sample_bots/cpp_bot
CPP_BUILD := $(CPP_BOT)/build
CPP_GEN := $(CPP_BUILD)/arena/v1
CXXFLAGS ?= -O1
CPP_FLAGS = -std=c++17 -Wall -Wextra $(CXXFLAGS) -I$(CPP_BUILD) $$(pkg-config --cflags grpc++ protobuf libcrypto)

cpp-bot: $(CPP_BUILD)/cpp_bot

cpp-bot-tools:
	@$(call apt_install,g++,g++,the C++ sample bot)
	@$(call apt_install,grpc_cpp_plugin,libgrpc++-dev protobuf-compiler-grpc,the C++ sample bot)
	@pkg-config --exists grpc++ protobuf libcrypto 2>/dev/null || { \
	  echo "error: the C++ sample bot needs Debian's libgrpc++-dev (gRPC C++ headers and libraries): apt-get install libgrpc++-dev protobuf-compiler-grpc"; exit 1; }

$(CPP_GEN)/bot.pb.cc $(CPP_GEN)/bot.pb.h $(CPP_GEN)/bot.grpc.pb.cc $(CPP_GEN)/bot.grpc.pb.h &: \
	  protos/arena/v1/bot.proto | cpp-bot-tools
	@mkdir -p $(CPP_BUILD)
	protoc -Iprotos --cpp_out=$(CPP_BUILD) --grpc_out=$(CPP_BUILD) \
	  --plugin=protoc-gen-grpc="$$(command -v grpc_cpp_plugin)" arena/v1/bot.proto

$(CPP_BUILD)/%.o: $(CPP_GEN)/%.cc $(CPP_GEN)/bot.pb.h $(CPP_GEN)/bot.grpc.pb.h
	g++ $(CPP_FLAGS) -c $< -o $@

$(CPP_BUILD)/main.o: $(CPP_BOT)/bot.cc $(CPP_GEN)/bot.pb.h $(CPP_GEN)/bot.grpc.pb.h
	g++ $(CPP_FLAGS) -c $< -o $@

$(CPP_BUILD)/cpp_bot: $(CPP_BUILD)/main.o $(CPP_BUILD)/bot.pb.o $(CPP_BUILD)/bot.grpc.pb.o
	g++ -o $@ $^ $$(pkg-config --libs grpc++ protobuf libcrypto)

# buf, which lints protos/ and checks it against the wire contract's baseline
# (proto-check), exactly as protos/package-lock.json pins it.
PROTOS := protos
BUF := $(PROTOS)/node_modules/.bin/buf

buf: $(PROTOS)/node_modules/.package-lock.json

$(PROTOS)/node_modules/.package-lock.json: $(PROTOS)/package.json $(PROTOS)/package-lock.json
	npm ci --prefix $(PROTOS)

# axe-core, the accessibility checker the browser tests run on every page type of the
# site (tests/browser/test_reader.py), exactly as tests/browser/axe/package-lock.json pins it.
A11Y := tests/browser/axe

axe: $(A11Y)/node_modules/.package-lock.json

$(A11Y)/node_modules/.package-lock.json: $(A11Y)/package.json $(A11Y)/package-lock.json
	npm ci --ignore-scripts --prefix $(A11Y)

# The wire contract's baseline: a buf image of protos/ as deployed bots know it, which
# `buf breaking` compares protos/ with (protos/buf.yaml says which changes it refuses).
# It is a JSON image, pretty-printed, rather than a binary one, so that a change to the
# baseline reads as a diff in review (a field's number, type and name, one per line);
# it has no source info, so comments never change it.
PROTO_BASELINE := $(PROTOS)/arena-v1.image.json

# buf lint and buf breaking: silent when the proto is fine, the problems and a failed
# build otherwise.
proto-check: buf
	@$(BUF) lint $(PROTOS)
	@$(BUF) breaking $(PROTOS) --against $(PROTO_BASELINE)

# Only on purpose: moves the baseline to the proto as it is now, accepting every
# breaking change since. Commit it on its own, saying which deployed bots it breaks.
proto-baseline: buf
	$(BUF) build $(PROTOS) --exclude-source-info -o '-#format=json' \
	  | $(PYTHON) -m json.tool --indent 2 > $(PROTO_BASELINE).tmp
	mv $(PROTO_BASELINE).tmp $(PROTO_BASELINE)

# The bot sandbox needs bubblewrap (Debian package `bubblewrap`) and util-linux's
# setpriv and prlimit. As root with apt-get, the package is installed when missing;
# otherwise this says what to install, and leagues need sandbox = "off" to run without.
sandbox-tools:
	@$(call apt_install,bwrap,bubblewrap,the bot sandbox)

# Sandboxed bots see the arena read-only and cannot cache the SDK's bytecode themselves
# (nor can any process where PYTHONDONTWRITEBYTECODE is set): compiling it once here
# saves each Python bot about 10 ms of CPU at start, on every match of a league.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q arena

# The demo plays both demo leagues into a fresh build/demo.db and ends by writing their
# web site as static files (docs/web.md): open the path it prints in a browser.
demo: $(STAMP) js-bot sandbox-tools bytecode
	@mkdir -p build && rm -f build/demo.db build/demo.db-wal build/demo.db-shm
	$(BIN)/arena demo --league leagues/demo.toml --db build/demo.db
	$(BIN)/arena demo --league leagues/trianon-demo.toml --db build/demo.db
	@echo "the demo's web site (arena report; arena serve --db build/demo.db serves it live):"
	@$(BIN)/arena report --db build/demo.db --out build/report

# The browser tests (tests/browser/) drive Debian's Chromium through Playwright: as
# root with apt-get it is installed here, as bubblewrap is; elsewhere the tests fail
# saying how to install it (ARENA_CHROMIUM may name another Chromium binary).
browser-tools:
	@[ -n "$$ARENA_CHROMIUM" ] || $(call apt_install,chromium,chromium,the browser tests)

test: $(STAMP) js-bot cpp-bot sandbox-tools browser-tools bytecode axe proto-check
	$(BIN)/ruff check arena tests sample_bots
	$(BIN)/python -m pytest

lint: $(STAMP) proto-check
	$(BIN)/ruff check arena tests sample_bots

bench: $(STAMP) js-bot bytecode
	$(BIN)/arena bench engine
	$(BIN)/arena bench referee
	$(BIN)/arena bench league

clean:
	rm -rf $(VENV) build *.egg-info $(CPP_BUILD)

proto: $(STAMP)
	$(PROTO_CMD)
