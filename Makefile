# make test / make demo each work from nothing: they create .venv and install the project first.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed
# the compiled parts' sources: a change rebuilds them at the next install
COMPILED = $(wildcard sobek_env/*/_*.pyx sobek_env/*/_*.pxd sobek_env/*/native/* sobek_env/native/* agents/*/_*.pyx agents/*/_*.pxd \
	agents/*/native/*)

.PHONY: install test test-long test-lower test-ray test-web rllib-bar demo docs lint stress stress-sobek stress-kleopatra clean

$(STAMP): pyproject.toml constraints.txt setup.py $(COMPILED)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

# The suite on every core (pytest-xdist); --dist loadscope keeps each module on one worker, so a module's
# fixtures (a trained model, a played sweep) are built once.
XDIST = -n auto --dist loadscope

# The 20 slowest tests are listed at the end, to keep the suite within its few minutes. OpenBLAS keeps to one
# thread in each worker: with a thread per core in each of them the workers' numpy calls contend for the cores
# (in one pair of runs on 2 cores the suite took 40 s longer; runs differ by about 20 s on their own).
test: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q $(XDIST) --durations=20

# The long checks, which make test leaves out to stay within minutes: every test module that reads SOBEK_LONG
# at its long size (40 times the property and fuzz examples, many more native, observation, OpenSpiel and
# stress games), then the stress command itself on more seeded games than the suite plays (5,000 of Sobek,
# 1,000 of Kleopatra; a Kleopatra game is about ten times as long). .ci/run runs it after make test, so no
# check is lost; make stress is the longer run still (100,000 games a game).
LONG_TESTS = $(sort $(shell grep -rl --include='test_*.py' SOBEK_LONG tests))
LONG_STRESS_SOBEK ?= 5000
LONG_STRESS_KLEOPATRA ?= 1000
test-long: $(STAMP)
	SOBEK_LONG=1 $(PY) -m pytest -q -p no:cacheprovider $(XDIST) --durations=20 $(LONG_TESTS)
	$(VENV)/bin/sobek-env stress --game sobek --games $(LONG_STRESS_SOBEK) --workers 2
	$(VENV)/bin/sobek-env stress --game kleopatra --games $(LONG_STRESS_KLEOPATRA) --workers 2

# The declared lowest versions (constraints-lower.txt), in a venv of their own, on the suite that needs no
# long run: proves pyproject.toml's lower bounds true. .ci/run runs it after make test.
LOWER = .venv-lower
$(LOWER)/.installed: pyproject.toml constraints.txt constraints-lower.txt setup.py $(COMPILED)
	test -x $(LOWER)/bin/python || $(PYTHON) -m venv $(LOWER)
	$(LOWER)/bin/python -m pip install --quiet -c constraints.txt -c constraints-lower.txt -e ".[dev]"
	touch $(LOWER)/.installed

test-lower: $(LOWER)/.installed
	$(LOWER)/bin/python -m pytest -q -p no:cacheprovider $(XDIST)

# Ray's tests (tests_ray/, outside the suite's testpaths: make test collects none of them) in a venv of their own
# with the ray extra, on a local Ray they start. .ci/run runs it after make test-lower.
RAYVENV = .venv-ray
$(RAYVENV)/.installed: pyproject.toml constraints.txt setup.py $(COMPILED)
	test -x $(RAYVENV)/bin/python || $(PYTHON) -m venv $(RAYVENV)
	$(RAYVENV)/bin/python -m pip install --quiet -c constraints.txt -e ".[dev,ray]"
	touch $(RAYVENV)/.installed

test-ray: $(RAYVENV)/.installed
	$(RAYVENV)/bin/python -m pytest -q -p no:cacheprovider tests_ray

# The browser's tests (tests_web/, outside the suite's testpaths: make test collects none of them): Debian's
# Chromium, installed with apt-get if the machine has none, driven by Playwright (the extra webtest) through
# whole games of both games; they also take docs/images/web-*.png. .ci/run runs it after make docs.
WEB_STAMP = $(VENV)/.webtest-installed
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)
$(WEB_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev,webtest]"
	touch $(WEB_STAMP)

test-web: $(WEB_STAMP)
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }
	$(PY) -m pytest -q -p no:cacheprovider tests_web

# The RLlib bar, too long for the tests (a few minutes): a short RLlib run on Sobek with 2 players, then 200 games
# against random; fails unless its policy wins at least 80% of them. BAR_OUT must not exist yet (a new run).
BAR_OUT ?= runs/rllib-bar
rllib-bar: $(RAYVENV)/.installed
	$(RAYVENV)/bin/python train.py --backend rllib --game sobek --players 2 --timesteps 100000 --eval-every 50000 \
		--eval-games 100 --seed 1 --out $(BAR_OUT)
	$(RAYVENV)/bin/python evaluate.py --game sobek --players 2 --games 200 --seed 0 --workers 2 \
		--agents rllib:$(BAR_OUT)/policy.zip random --out $(BAR_OUT)/vs-random
	$(RAYVENV)/bin/python -c 'import json, sys; s = json.load(open(sys.argv[1]))["summary"][0]; \
		print("rllib vs random: %g wins in %d games (%.1f%%); the bar is 80%%" % (s["wins"], s["games"], \
		100 * s["win_rate"])); sys.exit(s["win_rate"] < 0.8)' $(BAR_OUT)/vs-random/evaluate.json

demo: $(STAMP)
	$(PY) demo.py

# The documentation site (mkdocs.yml, docs/) into site/, strictly: a warning (a broken link or anchor, a page
# left out of the nav, a docstring mkdocstrings cannot read) fails the build. .ci/run runs it after make test.
DOCS_STAMP = $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev,docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(PY) -m ruff check .

# The long robustness runs: each game's property and fuzz suites at 40x their size, its stress tests, then
# 100,000 stress games (reports in results/). `make stress` runs both games, `make stress-sobek` or
# `make stress-kleopatra` one; STRESS_GAMES=N changes the number of games.
STRESS_GAMES ?= 100000
STRESS_RUN = $(PY) -m sobek_env.stress --games $(STRESS_GAMES) --workers 2 --progress

stress: stress-sobek stress-kleopatra

stress-sobek: $(STAMP)
	SOBEK_LONG=1 $(PY) -m pytest -q -p no:cacheprovider tests/sobek/test_properties.py tests/sobek/test_fuzz.py tests/test_stress.py
	mkdir -p results
	$(STRESS_RUN) --game sobek --json results/stress-sobek.json > results/stress-sobek.txt; \
		status=$$?; cat results/stress-sobek.txt; exit $$status

stress-kleopatra: $(STAMP)
	SOBEK_LONG=1 $(PY) -m pytest -q -p no:cacheprovider tests/kleopatra/test_properties.py tests/kleopatra/test_fuzz.py \
		tests/kleopatra/test_stress.py
	mkdir -p results
	$(STRESS_RUN) --game kleopatra --json results/stress-kleopatra.json > results/stress-kleopatra.txt; \
		status=$$?; cat results/stress-kleopatra.txt; exit $$status

clean:
	rm -rf $(VENV) $(LOWER) $(RAYVENV) .pytest_cache site
