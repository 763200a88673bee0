# Everything runs from a virtual environment inside the repo (.venv/), created on demand.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUNTIME := $(VENV)/.runtime
ARGS ?=

.PHONY: serve play test lint bench fmt clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The runtime alone (server and client), for `serve` and `play`; tests add their extras.
$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP) $(RUNTIME)

## serve: install the runtime and run the table server on ws://127.0.0.1:8765 (SQLite in ./atout.db)
serve: $(RUNTIME)
	$(BIN)/atout-server serve $(ARGS)

## play: the terminal client against the local server (ARGS="create" etc. for other commands)
play: $(RUNTIME)
	$(BIN)/atout $(ARGS)

## test: install and run the whole test suite
test: $(STAMP)
	$(BIN)/python -m pytest -q $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

fmt: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) *.egg-info build dist .pytest_cache .ruff_cache .mypy_cache
