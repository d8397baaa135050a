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

.PHONY: build test drift lint typecheck clean help fuzz

help:
	@echo "make build [SOURCES=dir] [OUT=dir] [STRICT=1]   build the dataset"
	@echo "make test                                      lint, type-check, run the tests"
	@echo "make drift [FORMAT=text|markdown|json]         what sources/ would change in output/"
	@echo "make fuzz [EXAMPLES=5000]                      long fuzz run of the whole build"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

build: $(STAMP)
	$(BIN)/python -m pipeline build --sources $(SOURCES) --out $(OUT) $(if $(STRICT),--strict)

# Build into a temporary folder and compare with the committed output/ (exit 1 on drift).
drift: $(STAMP)
	$(BIN)/python -m pipeline drift --sources $(SOURCES) --against $(OUT) $(if $(FORMAT),--format $(FORMAT))

lint: $(STAMP)
	$(BIN)/python -m ruff check pipeline tests

typecheck: $(STAMP)
	$(BIN)/python -m mypy

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -q

# The suite runs 25 generated folders; this runs EXAMPLES of them (tests/test_fuzz.py).
EXAMPLES ?= 5000
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz FUZZ_EXAMPLES=$(EXAMPLES) $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_fuzz.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
