# The two commands: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean proto js-bot

# The generated gRPC code in arena/v1/ comes from protos/ by this one command;
# tests/test_proto_sync.py fails when the two disagree.
PROTO_CMD = $(BIN)/python -m grpc_tools.protoc -I protos --python_out=. --pyi_out=. --grpc_python_out=. protos/arena/v1/bot.proto

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

demo: $(STAMP) js-bot
	$(BIN)/arena demo

test: $(STAMP) js-bot
	$(BIN)/ruff check arena tests sample_bots
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check arena tests sample_bots

bench: $(STAMP) js-bot
	$(BIN)/arena bench engine
	$(BIN)/arena bench referee
	$(BIN)/arena bench league

clean:
	rm -rf $(VENV) build *.egg-info

proto: $(STAMP)
	$(PROTO_CMD)
