# Everything starts from nothing: `make test` and `make demo` create .venv when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test test-fast test-thorough check lint format typecheck demo bench arena clean venv lint-imports fuzz docs-figures

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

# The whole suite (the "ci" hypothesis profile), on every core (pytest-xdist; JOBS=1 for one process);
# test-fast leaves out the tests marked slow; test-thorough runs the "thorough" profile (25 times the examples:
# long). SELECT narrows a run: .ci/run passes SELECT='-m slow' to `make test` after `make check` has run the rest.
JOBS   ?= auto
SELECT ?=
PYTEST := $(BIN)/python -m pytest -n $(JOBS) --dist worksteal

test: $(STAMP)
	$(PYTEST) $(SELECT)

test-fast: $(STAMP)
	$(PYTEST) -m "not slow"

test-thorough: $(STAMP)
	HYPOTHESIS_PROFILE=thorough $(PYTEST) $(SELECT)

# The fuzz harness at length (tests/fuzz/harness.py; `make test` runs a few hundred of its inputs): 20 000 generated
# inputs over every format, each held to the contract of docs/format.md, in FUZZ_JOBS processes (default: one per
# core; case k depends only on FUZZ_SEED and k, not on the split). FUZZ_N and FUZZ_SEED to change them; FUZZ_OUT
# to keep one line per case in a file and take an interrupted run up where it stopped.
FUZZ_N ?= 20000
FUZZ_SEED ?= 0
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 1)
FUZZ_OUT ?=
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz/run.py --n $(FUZZ_N) --seed $(FUZZ_SEED) --jobs $(FUZZ_JOBS) $(if $(FUZZ_OUT),--out $(FUZZ_OUT))

# Lint, format, types, layers and the fast tests: what .ci/run checks before the full suite.
check: lint typecheck lint-imports test-fast

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# mypy checks the package under its import name: .typecheck/trample is a tree of links to solver/ with models/
# inside it (the package-dir mapping of pyproject.toml, which mypy cannot follow in an editable install).
typecheck: $(STAMP)
	rm -rf .typecheck && mkdir -p .typecheck/trample
	for f in solver/*; do ln -s ../../$$f .typecheck/trample/; done
	ln -s ../../models .typecheck/trample/models
	cd .typecheck && ../$(BIN)/mypy -p trample --config-file ../pyproject.toml

demo: $(STAMP)
	@echo "== count the legal splits of examples/thrasta.json"
	$(BIN)/trample count examples/thrasta.json
	@echo "== the first 10 of them"
	$(BIN)/trample enumerate examples/thrasta.json --limit 10
	@echo "== a line an engine might accept: lethal on the blockers, then everything to the opponent"
	@$(BIN)/trample check examples/thrasta.json '{"thrasta":{"wall":3,"bear":2,"opp":5},"cub":{"teferi":2}}' \
		|| echo "(exit code $$?: illegal)"
	@echo "== the optimal lethal line (lethal first, then the most value killed), proven optimal"
	$(BIN)/trample solve examples/thrasta.json --objective lethal,max-value

# The layer contracts of pyproject.toml ([tool.importlinter]): no import points up, none is cyclic.
lint-imports: $(STAMP)
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python -m benchmarks

arena: $(STAMP)
	@echo "== the baselines on the known engine mistakes (docs/rules.md)"
	$(BIN)/trample arena known-mistakes --format table
	@echo "== and on 100 generated 'mixed' boards"
	$(BIN)/trample arena --level mixed --n 100 --seed 1 --format table
	@echo "== whole combats: OpenSpiel's bots against the defender's best reply, regret against the minimax value"
	$(BIN)/trample arena --game combat --level mixed --n 20 --seed 1 --format table

# The docs' figures and tables from runs (benchmarks/docs_figures.py); tests/test_docs_figures.py checks them.
docs-figures: $(STAMP)
	$(BIN)/python -m benchmarks.docs_figures

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis .typecheck .mypy_cache .ruff_cache
