# chunklab: the two commands a learner needs are `make lab` and `make test` (`make e2e` adds the
# browser tests, `make site` builds the course site into _site/).
# Both create .venv on first use (python3 on PATH, or PYTHON=...; it must be Python 3.11 or newer) and
# install the pinned requirements; later runs reuse it and reinstall only when a requirements file
# changes.

PYTHON ?= python3
# The oldest Python every pinned requirement supports (numpy 2.4 and pandas 3.1 need 3.11);
# tests/test_environment.py keeps it in step with the pins, pyproject.toml and README.md.
PYTHON_FLOOR := 3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.chunklab-installed
PORT ?= 8888
# Jupyter refuses to run as root unless told to (containers, CI machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# Run-time caches and settings stay inside the repo: nothing is written to the learner's home.
export MPLCONFIGDIR := $(CURDIR)/.cache/matplotlib
export IPYTHONDIR := $(CURDIR)/.cache/ipython
export JUPYTER_CONFIG_DIR := $(CURDIR)/.cache/jupyter/config
export JUPYTER_DATA_DIR := $(CURDIR)/.cache/jupyter/data
export JUPYTER_RUNTIME_DIR := $(CURDIR)/.cache/jupyter/runtime
export JUPYTERLAB_SETTINGS_DIR := $(CURDIR)/.cache/jupyter/lab-settings
export JUPYTERLAB_WORKSPACES_DIR := $(CURDIR)/.cache/jupyter/workspaces
export HF_HOME := $(CURDIR)/.cache/huggingface
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TRANSFORMERS_NO_ADVISORY_WARNINGS := 1
export PYTHONDONTWRITEBYTECODE := 1

# The folders above, created before any tool starts (IPython warns that its parent is "not a writable
# location" when the folder it is pointed at does not exist yet, as in a fresh clone).
CACHE_DIRS := $(MPLCONFIGDIR) $(IPYTHONDIR) $(JUPYTER_CONFIG_DIR) $(JUPYTER_DATA_DIR) $(JUPYTER_RUNTIME_DIR) \
	$(JUPYTERLAB_SETTINGS_DIR) $(JUPYTERLAB_WORKSPACES_DIR) $(HF_HOME)

.PHONY: install lab test e2e site bench bench-course clean-venv python-check cache-dirs

install: $(STAMP) cache-dirs

cache-dirs:
	@mkdir -p $(CACHE_DIRS)

# Stops at once, in one line, when $(PYTHON) is missing or too old.
python-check:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] < tuple(map(int, "$(PYTHON_FLOOR)".split("."))))' 2>/dev/null || \
	{ echo "chunklab needs Python $(PYTHON_FLOOR) or newer (tested: 3.11, 3.12, 3.13), but PYTHON=$(PYTHON) is $$(command -v $(PYTHON) >/dev/null && $(PYTHON) --version 2>&1 | head -n 1 || echo "not found"); run e.g. make $(or $(MAKECMDGOALS),install) PYTHON=python$(PYTHON_FLOOR)"; exit 1; }

$(STAMP): requirements.txt requirements-nodeps.txt pyproject.toml | python-check
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-nodeps.txt
	@# a clone made before the distribution was renamed chunklab-course has it installed as chunklab
	$(BIN)/python -m pip uninstall --quiet --yes chunklab 2>/dev/null || true
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

lab: install
	$(BIN)/jupyter lab --notebook-dir=notebooks --port=$(PORT) $(ROOT_FLAG)

test: install
	$(BIN)/python -m pytest --nbmake tests notebooks

# The course site (docs/build_site.py): every notebook executed once (cached in .cache/site until the
# notebook, the library or the corpus changes), the API reference and the side pages, rendered by
# Sphinx into _site/ (open _site/index.html). A failing cell or a broken link fails the build.
SITE_STAMP := $(VENV)/.chunklab-site-installed

$(SITE_STAMP): requirements-site.txt $(STAMP)
	$(BIN)/python -m pip install --quiet -c requirements.txt -r requirements-site.txt
	touch $(SITE_STAMP)

site: install $(SITE_STAMP)
	$(BIN)/python docs/build_site.py

# The course in a real browser (tests/e2e): JupyterLab in headless Chromium, every notebook run
# through the menu and every explorer's sliders moved; then the built site read page by page
# (tests/e2e/test_site.py). Installs Debian's chromium and Playwright (never Playwright's own
# browser download) if missing.
e2e: install site
	bash scripts/e2e_setup.sh $(BIN)
	CHUNKLAB_E2E=1 $(BIN)/python -m pytest -v --durations=0 tests/e2e

# Speed (benchmarks/): chunklab against peer libraries in the same run (ratios), 1 MB vs 10 MB for every
# chunker, slider latency. The peers are installed into .venv for benchmarking only, never for the
# course, and the course's pins hold (-c requirements.txt). `make bench-course` times every notebook
# and `make test`, cold (a fresh clone, empty caches) and warm: it takes much longer. Run some parts
# only with e.g. `make bench PARTS="recursive scaling"`.
BENCH_STAMP := $(VENV)/.chunklab-bench-installed

$(BENCH_STAMP): benchmarks/requirements.txt $(STAMP)
	$(BIN)/python -m pip install --quiet -c requirements.txt -r benchmarks/requirements.txt
	touch $(BENCH_STAMP)

bench: install $(BENCH_STAMP)
	$(BIN)/python benchmarks/run_all.py $(PARTS)

bench-course: install
	$(BIN)/python benchmarks/bench_course.py

clean-venv:
	rm -rf $(VENV)
