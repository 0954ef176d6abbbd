# WorkGym — every target creates the virtualenv it needs (`make setup`).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Two installs, each pinned by its lock (.ci/lock/, `make lock` refreshes them): the core
# (WorkGym + the embedded Redis: demo, serve, gate, bench) and the dev tools on top of it
# (test, lint, load: pytest, ruff, mypy, Ray, Playwright, the trainers' frameworks...).
CORE := $(VENV)/.installed-core
DEV := $(VENV)/.installed-dev
LOCK := .ci/lock
SEED ?= 7
# The benchmark and load programs (services/workgym_perf/) are in no install: run from here.
PERF := PYTHONPATH=services$(if $(PYTHONPATH),:$(PYTHONPATH))

.DEFAULT_GOAL := help
.PHONY: help setup setup-dev lock demo test gate coverage graphs bench load lint serve screenshots clean compose-env images up down compose-boot harbor

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "}; {printf "  make %-13s %s\n", $$1, $$2}'

setup: $(CORE) ## Create .venv and install WorkGym with the embedded Redis (pinned: .ci/lock/core.txt)

setup-dev: $(DEV) ## setup, plus the dev tools and every optional framework (.ci/lock/dev.txt)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip

$(CORE): pyproject.toml $(LOCK)/core.txt | $(BIN)/python
	@echo "setup: installing WorkGym into $(VENV) ($(LOCK)/core.txt)"
	@$(BIN)/pip install --quiet -r $(LOCK)/core.txt -e '.[embedded]'
	@touch $@

$(DEV): $(CORE) $(LOCK)/dev.txt
	@echo "setup: installing the dev tools into $(VENV) ($(LOCK)/dev.txt)"
	@$(BIN)/pip install --quiet -r $(LOCK)/dev.txt -e '.[dev]'
	@touch $@

lock: | $(BIN)/python ## Pin pyproject's dependencies in .ci/lock/ (LOCK_ARGS=--upgrade: newest that fit)
	@$(BIN)/pip install --quiet 'uv>=0.9'
	$(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --extra dev -q \
	  --custom-compile-command 'make lock' $(LOCK_ARGS) -o $(LOCK)/dev.txt
	$(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --extra embedded -q \
	  -c $(LOCK)/dev.txt --custom-compile-command 'make lock' -o $(LOCK)/core.txt

demo: setup ## Serve WorkGym + telemetry, run reference, noop, naive agents; print rewards, page links
	@$(BIN)/python -m workgym.demo --seed $(SEED)

test: setup-dev ## The test suite's fast tier, in parallel (per-task tests: a sample and the changed tasks)
	@$(BIN)/pytest -n auto

gate: setup-dev ## The task quality gate: every task's per-task tests, and its solutions on SEEDS seeds (default 10)
	@$(BIN)/pytest -n auto --all-tasks -m gate || [ $$? = 5 ]  # 5: every task is in the sample
	@$(BIN)/workgym tasks check --seeds $(or $(SEEDS),10)

coverage: setup-dev ## Write each app's COVERAGE.md from its product's published description (fetched)
	@$(BIN)/python -m tests.conformance.coverage --write

graphs: setup ## Write each app's GRAPH.md: its tool dependency graph (workgym factory graph)
	@for app in $$($(BIN)/python -c 'from replicas import catalog; print(*sorted(catalog.app_names()))'); \
	  do $(BIN)/workgym factory graph $$app --write || exit 1; done

bench: setup ## Print the benchmark figures (memory, reset, steps, ...; BENCH_ARGS=stall: one section)
	@$(PERF) $(BIN)/python -m workgym_perf.bench $(BENCH_ARGS)

load: setup-dev ## Locust load tests (capacity, llm-paced): steps/s, episodes/s, p99 (LOAD_ARGS=...)
	@$(PERF) $(BIN)/python -m workgym_perf.load $(LOAD_ARGS)

lint: setup-dev ## ruff, mypy --strict on the packages, mypy on the tests (pyproject.toml)
	@$(BIN)/ruff check .
	@$(BIN)/mypy services fault-proxy reward-engine replicas telemetry
	@$(BIN)/mypy tests

screenshots: setup-dev ## Write the README's pictures (the pages: replicas/<app>/pages/screenshots/*.png; the bench's diagnosis: docs/diagnosis.png)
	@$(BIN)/python -m workgym.browser.screenshots
	@$(BIN)/python -m workgym.bench.screenshot

serve: setup ## Run the all-in-one server on :8000
	@$(BIN)/workgym serve --port 8000

compose-env: ## Write .env (secrets, API key, this checkout's compose project name), if absent
	@bash .ci/compose-env.sh

images: compose-env ## Build the service images, one line each (VERBOSE=1: the build log)
	@VERBOSE=$(VERBOSE) bash .ci/compose-up.sh images

up: images ## Run the stack (gym :8000, proxy :8080, telemetry :4318); keeps --scale; SCALE='helpdesk=3'
	@VERBOSE=$(VERBOSE) SCALE='$(SCALE)' bash .ci/compose-up.sh up

down: compose-env ## Stop this checkout's stack; remove its containers, networks and volumes
	docker compose down -v --remove-orphans

harbor: compose-env ## Harbor in a Python 3.13 venv of its own (.ci/harbor.sh), and this checkout's gym image tagged workgym-gym:latest (an exported Harbor task's gym service runs it, its agent's container starts FROM it)
	@bash .ci/harbor.sh
	@docker compose build -q gym 2>/dev/null && docker tag "$$(docker compose config --format json | \
	  $(PYTHON) -c 'import json, sys; print(json.load(sys.stdin)["name"] + "-gym")')" workgym-gym:latest

compose-boot: images ## Time `docker compose up` to the first episode; CPU-s per service
	@$(PYTHON) .ci/compose_boot.py

clean: ## Remove the virtualenv and local data
	rm -rf $(VENV) .workgym
