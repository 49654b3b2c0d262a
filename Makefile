# make test / make demo each work from nothing: they create .venv and install the project first.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: install test demo lint stress clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

demo: $(STAMP)
	$(PY) demo.py

lint: $(STAMP)
	$(PY) -m ruff check sobek_env agents tests

clean:
	rm -rf $(VENV) .pytest_cache
