# WorkGym — every target creates the virtualenv it needs (`make setup`).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
SEED ?= 7

.DEFAULT_GOAL := help
.PHONY: help setup demo test bench lint serve clean

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "}; {printf "  make %-8s %s\n", $$1, $$2}'

setup: $(STAMP) ## Create .venv and install WorkGym with its dev tools

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "setup: installing WorkGym into $(VENV) (the first time builds redis-server: ~2 min)"
	@$(BIN)/pip install --quiet --upgrade pip
	@$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@

demo: setup ## Serve WorkGym, run the reference and the noop agent, print their rewards
	@$(BIN)/python -m workgym.demo --seed $(SEED)

test: setup ## Run the test suite
	@$(BIN)/pytest

bench: setup ## Print the benchmark figures (reset, steps/s, scoring, memory)
	@$(BIN)/python -m tests.bench

lint: setup ## ruff and mypy
	@$(BIN)/ruff check .
	@$(BIN)/mypy services fault-proxy reward-engine replicas telemetry

serve: setup ## Run the all-in-one server on :8000
	@$(BIN)/workgym serve --port 8000

clean: ## Remove the virtualenv and local data
	rm -rf $(VENV) .workgym
