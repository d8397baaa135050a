# Two commands do everything on a fresh machine with Python 3.11:
#   make build   creates .venv if missing, installs the project, builds output/ from sources/
#   make test    lint, type-check and run the test suite
PY ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
SOURCES ?= sources
OUT ?= output
STRICT ?=

.PHONY: build test lint typecheck clean help

help:
	@echo "make build [SOURCES=dir] [OUT=dir] [STRICT=1]   build the dataset"
	@echo "make test                                      lint, type-check, run the tests"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

build: $(STAMP)
	$(BIN)/python -m pipeline build --sources $(SOURCES) --out $(OUT) $(if $(STRICT),--strict)

lint: $(STAMP)
	$(BIN)/python -m ruff check pipeline tests

typecheck: $(STAMP)
	$(BIN)/python -m mypy

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
