# gpubatch developer commands. `make demo` and `make test` are the two set-up commands of the README.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-gpu bench bench-quick fuzz lint clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

## Create the environment, install, and run the main job on built-in data (ARC-AGI-1 training tasks).
demo: $(STAMP)
	$(BIN)/gpubatch run-batt --tasks 30 --depth 2 --stats

## Create the environment, install, and run the test suite (GPU tests skip without a GPU).
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

## On the GPU box: its own python3, no virtual environment, the package on PYTHONPATH; in GPU_WORKERS processes
## sharing the GPU where pytest-xdist is installed (one after another the suite takes 470-570 s, near a call's limit).
GPU_WORKERS ?= 4
test-gpu:
	PYTHONPATH=$(CURDIR):$$PYTHONPATH $(PY) -m pytest -q -m gpu -p no:cacheprovider \
		$$($(PY) -c 'import xdist' 2>/dev/null && printf -- '-n %s' $(GPU_WORKERS))

## On the GPU box: the full benchmark suite, JSON under out/.
bench:
	mkdir -p out
	PYTHONPATH=$(CURDIR):$$PYTHONPATH $(PY) -m gpubatch bench --suite full --json out/bench.json --no-progress

## Fuzz every input generator and inject faults for FUZZ_MINUTES (default 30), counts in out/fuzz.json; then DSL parity on every ARC grid.
FUZZ_MINUTES ?= 30
fuzz: $(STAMP)
	mkdir -p out
	$(BIN)/python -m tests.reliability.fuzz --minutes $(FUZZ_MINUTES) --report out/fuzz.json
	GPUBATCH_FULL_PARITY=1 $(BIN)/python -m pytest -q -n 2 tests/arc/test_dsl_parity.py

## The project's own code through its own analyzer: findings printed, exit 1 only on an error-level finding.
lint: $(STAMP)
	$(BIN)/gpubatch analyze gpubatch tests benchmarks --fail-on error --no-progress

bench-quick: $(STAMP)
	$(BIN)/gpubatch bench --suite quick --no-progress

clean:
	rm -rf $(VENV) .pytest_cache .gpubatch_cache out
