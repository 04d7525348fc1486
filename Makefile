# The two commands of the README: `make run` (main job) and `make test` (full suite).
# Both create and reuse a local virtual environment in .venv (plain Python, installed in editable mode).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-slow bench compare ab install golden clean

$(STAMP): pyproject.toml constraints.txt setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip setuptools wheel
	$(PY) -m pip install --quiet -c constraints.txt -e '.[train,rllib,web,bench,dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m hiddenhand quickstart

test: $(STAMP)
	$(PY) -m pytest -n 2 tests

# the slow tests too (e.g. Koehandel's never-gives-up re-deal sweep)
test-slow: $(STAMP)
	$(PY) -m pytest -n 2 -m "" tests

bench: $(STAMP)
	$(PY) -m hiddenhand bench

# a speed change checked against another revision (docs/performance.md): the same outputs, then
# CPU time side by side, e.g. make compare ab BASE=main GAMES="--game rattus"
BASE ?= HEAD
compare: $(STAMP)
	$(PY) -m hiddenhand.benchmarks.compare --base $(BASE) $(GAMES)

ab: $(STAMP)
	$(PY) -m hiddenhand.benchmarks.ab --base $(BASE) $(GAMES)

# re-record the golden playthroughs after an intended behaviour change (review the diff)
golden: $(STAMP)
	$(PY) tests/golden/playthrough.py

clean:
	rm -rf $(VENV) build *.egg-info
