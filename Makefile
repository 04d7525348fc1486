# The two commands of the README: `make run` (main job) and `make test` (full suite).
# Both create and reuse a local virtual environment in .venv; the environments' hot modules are compiled
# with Cython on install (hiddenhand/compiled.py) and recompiled when their sources change.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BUILT := $(VENV)/.compiled
COMPILED := $(shell $(PYTHON) hiddenhand/compiled.py)

.PHONY: run test bench install clean

# dependencies first (not compiling), then the compiled modules, again whenever a source changes
$(STAMP): pyproject.toml constraints.txt setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip setuptools wheel
	HIDDENHAND_PURE_PYTHON=1 $(PY) -m pip install --quiet -c constraints.txt -e '.[train,bench,dev]'
	touch $(STAMP)

$(BUILT): $(STAMP) hiddenhand/compiled.py $(COMPILED)
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(BUILT)

install: $(BUILT)

run: $(BUILT)
	$(PY) -m hiddenhand quickstart

test: $(BUILT)
	$(PY) -m pytest -n 2 tests

bench: $(BUILT)
	$(PY) -m hiddenhand bench

clean:
	rm -rf $(VENV) build *.egg-info
	rm -f $(COMPILED:.py=.c) $(foreach source,$(COMPILED),$(wildcard $(source:.py=).*.so))
