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

.PHONY: build test drift lint typecheck browser clean help fuzz bench corpus calibrate

help:
	@echo "make build [SOURCES=dir] [OUT=dir] [STRICT=1]   build the dataset"
	@echo "make test                                      lint, type-check, run the tests"
	@echo "make browser                                   install chromium + chromedriver when missing"
	@echo "make drift [FORMAT=text|markdown|json]         what sources/ would change in output/"
	@echo "make calibrate [WRITE=1]                       reliability table and ECE against the API catalogs; WRITE=1 refits"
	@echo "make fuzz [EXAMPLES=5000]                      long fuzz run of the whole build"
	@echo "make bench [SIZES=100,1000,10000]              time builds of generated corpora; bench/results.md"
	@echo "make corpus N=1000 [DEST=corpus]               generate a realistic corpus of N documents"

# The virtualenv, made once (and again when pyproject.toml changes). Python 3.11's own pip installs
# the project editable from pyproject.toml; setuptools' notices about editable installs are not
# the newcomer's business, nor are pip's warnings about a machine's unreachable package indexes,
# so warnings are silenced (-qq; errors are still printed and still stop the build).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@echo "installing the pipeline and its dependencies into $(VENV) (once)"
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install -qq --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

build: $(STAMP)
	@$(BIN)/python -m pipeline build --sources $(SOURCES) --out $(OUT) $(if $(STRICT),--strict)

# Build into a temporary folder and compare with the committed output/ (exit 1 on drift).
drift: $(STAMP)
	$(BIN)/python -m pipeline drift --sources $(SOURCES) --against $(OUT) $(if $(FORMAT),--format $(FORMAT))

# Confidence against the API catalogs in sources/: the reliability table and ECE with the model in
# use and fitted; WRITE=1 writes the fitted coefficients to pipeline/knowledge/calibration.toml.
calibrate: $(STAMP)
	$(BIN)/python -m pipeline calibrate --sources $(SOURCES) $(if $(WRITE),--write)

lint: $(STAMP)
	$(BIN)/python -m ruff check pipeline bench tests

typecheck: $(STAMP)
	$(BIN)/python -m mypy

# Debian's chromium and chromedriver for tests/test_browser.py, installed only when missing (with sudo
# when not root and sudo exists). Where they cannot be installed that test is skipped, unless
# REQUIRE_BROWSER=1 (set by .ci/run), which makes it fail.
CHROMIUM ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver
SUDO := $(shell if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then echo sudo; fi)

browser:
	@if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && $(SUDO) apt-get update \
		&& $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; then :; \
	else echo "warning: could not install chromium and chromium-driver; tests/test_browser.py will be skipped (or fail, with REQUIRE_BROWSER=1)" >&2; fi

test: $(STAMP) lint typecheck browser
	$(BIN)/python -m pytest -q

# The suite runs 25 generated folders; this runs EXAMPLES of them (tests/test_fuzz.py).
EXAMPLES ?= 5000
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz FUZZ_EXAMPLES=$(EXAMPLES) $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_fuzz.py

# Cold, no-op and one-change builds of generated corpora against markdown-it-py's own
# tokenize time; prints a table and writes bench/results.md and bench/results.json.
SIZES ?= 100,1000,10000
bench: $(STAMP)
	$(BIN)/python -m bench --sizes $(SIZES) --out bench/results.md

N ?= 1000
DEST ?= corpus
corpus: $(STAMP)
	$(BIN)/python -m bench.corpus $(N) $(DEST)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .pipeline-cache
