# Two commands for a fresh machine: `make demo` and `make test`. Everything else is set-up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.plylab-installed
SETUP_INPUTS := pyproject.toml setup.py Makefile
# llama.cpp builds with -march=native, which brings AMX tiles on recent Xeons; where a sandbox hides
# their state (gVisor), the first matrix product dies of SIGILL (`tilezero`), so they are left out.
NO_AMX := $(if $(filter x86_64,$(shell uname -m)),-mno-amx-tile -mno-amx-int8 -mno-amx-bf16)

.PHONY: demo test check lint setup browser engines plybench bench docs clean

setup: $(STAMP)

$(STAMP): $(SETUP_INPUTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# CPU PyTorch first, pinned: an unpinned dependency would pull a CUDA build of several GB.
	$(PY) -m pip install --quiet torch==2.13.0
	# llama.cpp, compiled for this CPU but without AMX tiles (never from a wheel cached with them).
	CFLAGS="$(NO_AMX)" CXXFLAGS="$(NO_AMX)" $(PY) -m pip install --quiet --no-cache-dir llama-cpp-python==0.3.36
	$(PY) -m pip install --quiet -e '.[all]'
	# setuptools leaves its egg-info beside the sources; with src/ on a child's PYTHONPATH (the tests' inspect
	# children) it shadows the editable install's metadata, and inspect then names plylab's tasks without
	# their package (`game`, not `plylab/game`). The install's own metadata lives in the venv.
	rm -rf src/*.egg-info
	$(MAKE) --no-print-directory browser
	$(MAKE) --no-print-directory engines
	$(MAKE) --no-print-directory plybench
	$(VENV)/bin/plylab models prepare
	touch $(STAMP)

# The replay viewer's browser test drives the system Chromium (no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "warning: could not install chromium; browser tests will be skipped"; \
	  else echo "warning: chromium not found and not root; browser tests will be skipped"; fi; }

# Chess ground truth and the engine ladder: Debian's Stockfish and Fairy-Stockfish (in /usr/games);
# GNU Go, an opponent of known strength for Go; GNU Backgammon, backgammon's ground truth.
engines:
	@{ command -v stockfish || test -x /usr/games/stockfish; } >/dev/null 2>&1 \
	  && { command -v fairy-stockfish || test -x /usr/games/fairy-stockfish; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish fairy-stockfish >/dev/null) \
	      || echo "warning: could not install stockfish; chess is played unscored and engine tests are skipped"; \
	  else echo "warning: stockfish not found and not root; chess is played unscored and engine tests are skipped"; fi; }
	@{ command -v gnugo || test -x /usr/games/gnugo; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnugo >/dev/null) \
	      || echo "warning: could not install gnugo; the gnugo player (Go) is unavailable and its tests are skipped"; \
	  else echo "warning: gnugo not found and not root; the gnugo player (Go) is unavailable and its tests are skipped"; fi; }
	@{ command -v gnubg || test -x /usr/games/gnubg; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnubg >/dev/null) \
	      || echo "warning: could not install gnubg; backgammon is played unscored and its tests are skipped"; \
	  else echo "warning: gnubg not found and not root; backgammon is played unscored and its tests are skipped"; fi; }

# The first paper's own package (PyPI plybench 3.0.5), in a side venv: tests/players/test_plybench_parse.py
# compares plylab's default reply parser with its extractor. It needs Python >= 3.12 (PLYBENCH_BASE, else
# python3.13, python3.12 or a pyenv version); without one the test is skipped. Only PyPI is asked.
PLYBENCH_VENV := .plybench-venv
plybench:
	@$(PLYBENCH_VENV)/bin/python -c "import plybench" 2>/dev/null || { \
	  base=""; for p in $(PLYBENCH_BASE) python3.13 python3.12 $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.1[2-9]*/bin/python; do \
	    if "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then base="$$p"; break; fi; done; \
	  if [ -z "$$base" ]; then echo "warning: no Python >= 3.12 for plybench; the plybench parser test is skipped"; \
	  else rm -rf $(PLYBENCH_VENV) && "$$base" -m venv $(PLYBENCH_VENV) \
	    && $(PLYBENCH_VENV)/bin/python -m pip install --quiet plybench==3.0.5 \
	    || echo "warning: could not install plybench 3.0.5; the plybench parser test is skipped"; fi; }

demo: $(STAMP)
	$(VENV)/bin/plylab demo

# Every test (the local model, Ray, the browser included), then the lint and type gates. Under CI
# (CI=true) a missing Chromium, Ray or Playwright fails the run instead of skipping its tests.
# TEST_JOBS pytest workers (two: CI's cores), a test file per worker at a time; TEST_JOBS=0 is serial.
TEST_JOBS ?= 2
test: $(STAMP)
	@$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadfile; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; \
	  $(MAKE) --no-print-directory lint || exit 1; exit $$rc

# The fast lane: no model, no Ray, no browser, nothing slow; under a minute on two cores (one
# pytest worker per core, a test file per worker at a time so module fixtures are built once).
# Compiled modules are kept between runs even where the environment turns bytecode off
# (PYTHONDONTWRITEBYTECODE): each worker would otherwise compile every module and rewrite every
# test's asserts again, half of what collecting costs (bench/RESULTS-house.md).
FAST := not model and not ray and not browser and not slow
check: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -m "$(FAST)" -n 2 --dist loadfile

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# The manual (docs/, MkDocs Material) into site-docs/, strictly: a broken link or a missing page fails.
# `make test` builds it too (tests/docs/test_manual.py). Nothing is fetched: no web fonts, no CDN.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site-docs

bench: $(STAMP)
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done; $(PY) bench/merge_results.py

clean:
	rm -rf $(VENV) $(PLYBENCH_VENV) build *.egg-info results site-docs
