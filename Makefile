# Everything runs from a virtual environment inside the repo (.venv/), created on demand.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: serve test lint bench fmt clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

## serve: install and run the table server on ws://127.0.0.1:8765 (SQLite in ./atout.db)
serve: $(STAMP)
	$(BIN)/atout-server serve $(ARGS)

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
