# The two commands: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/arena demo

test: $(STAMP)
	$(BIN)/ruff check arena tests sample_bots
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check arena tests sample_bots

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) build *.egg-info
