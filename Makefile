# The README's commands. `make demo` and `make test` work on a fresh machine with Rust and
# Python 3.11: they create ./.venv and install fcsim (and, for tests, its test extras) into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SOURCES := $(shell find crates python -name '*.rs' -o -name '*.py' -o -name '*.pyi' -o -name '*.toml') Cargo.toml Cargo.lock pyproject.toml
DEMO_TRACE := data/traces/cloudphysics_vscsi_2h.csv.gz

.PHONY: demo test lint fmt bench rust-test py-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# fcsim built in release mode and installed with its test extras; redone when a source changes.
$(VENV)/.installed: $(BIN)/python $(SOURCES)
	$(BIN)/pip install -q ".[test]"
	touch $@

demo: $(VENV)/.installed
	$(BIN)/fcsim trace info $(DEMO_TRACE)
	@echo
	$(BIN)/fcsim run $(DEMO_TRACE) --policy lru,fifo --size 1%,5%,10%,64MiB

lint: $(VENV)/.installed
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests bench
	$(BIN)/ruff format --check python tests bench

rust-test:
	cargo test -p fcsim --release

py-test: $(VENV)/.installed
	$(BIN)/python -m pytest -q tests

test: lint rust-test py-test

fmt: $(VENV)/.installed
	cargo fmt --all
	$(BIN)/ruff format python tests bench
	$(BIN)/ruff check --fix python tests bench

bench: $(VENV)/.installed
	cargo bench -p fcsim --bench policy
	cargo bench -p fcsim --bench device
	$(BIN)/python bench/side_by_side.py
	$(BIN)/python bench/mrc_sampling.py
	$(BIN)/python bench/offline_bounds.py

clean:
	rm -rf $(VENV) target
