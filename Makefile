# Kith: every target sets up what it needs, so each works as the first command on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test lint bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

play: $(STAMP)
	$(BIN)/kith play

lint: $(STAMP)
	$(BIN)/ruff check game tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache --no-logo

test: lint
	$(BIN)/python -m pytest -n auto --dist worksteal
	$(BIN)/python -m benchmarks --quick

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
