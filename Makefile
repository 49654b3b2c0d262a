# make test / make demo each work from nothing: they create .venv and install the project first.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: install test test-lower demo lint stress clean

$(STAMP): pyproject.toml constraints.txt setup.py $(wildcard sobek_env/*/_observe.pyx)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

# The declared lowest versions (constraints-lower.txt), in a venv of their own, on the suite that needs no
# long run: proves pyproject.toml's lower bounds true. .ci/run runs it after make test.
LOWER = .venv-lower
$(LOWER)/.installed: pyproject.toml constraints.txt constraints-lower.txt setup.py $(wildcard sobek_env/*/_observe.pyx)
	test -x $(LOWER)/bin/python || $(PYTHON) -m venv $(LOWER)
	$(LOWER)/bin/python -m pip install --quiet -c constraints.txt -c constraints-lower.txt -e ".[dev]"
	touch $(LOWER)/.installed

test-lower: $(LOWER)/.installed
	$(LOWER)/bin/python -m pytest -q -p no:cacheprovider

demo: $(STAMP)
	$(PY) demo.py

lint: $(STAMP)
	$(PY) -m ruff check .

# The long robustness run: property and fuzz suites at 40x their size, then 100,000 stress games.
stress: $(STAMP)
	SOBEK_LONG=1 $(PY) -m pytest -q tests/test_properties.py tests/test_fuzz.py tests/test_stress.py
	mkdir -p results
	$(PY) -m sobek_env.stress --games 100000 --workers 2 --progress --json results/stress_100k.json \
		> results/stress_100k.txt; status=$$?; cat results/stress_100k.txt; exit $$status

clean:
	rm -rf $(VENV) $(LOWER) .pytest_cache
