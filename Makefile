# The README's commands. `make demo` and `make test` work on a fresh machine with Rust and
# Python 3.11: they create ./.venv and install fcsim (and, for tests, its test extras) into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SOURCES := $(shell find crates python -name '*.rs' -o -name '*.py' -o -name '*.pyi' -o -name '*.toml') Cargo.toml Cargo.lock pyproject.toml $(wildcard data/profiles/models/*.model)
DEMO_TRACE := data/traces/cloudphysics_vscsi_2h.csv.gz

.PHONY: demo test golden lint lint-rust lint-py fmt bench rust-test py-test clean profile-models profiles-fidelity fuzz fuzz-build fuzz-rust fuzz-toml fuzz-fetch fuzz-merge

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# fcsim installed with its test extras, built with the cargo profile the target names; redone
# when a source changes or the other build was installed last. `make demo`, `make bench` and the
# data targets install `release` (link-time optimisation, one codegen unit: the speed users
# get). `make test` installs `quick` (release's code and checks without link-time
# optimisation), the profile clippy and the Rust tests build too: one target directory, so the
# C libraries (zstd, xz) and build scripts are compiled once, not three times.
$(VENV)/.installed-%: $(VENV)/.deps $(SOURCES)
	rm -f $(VENV)/.installed-*
	$(BIN)/pip install -q ".[test]" --config-settings=build-args="--profile $*"
	touch $@

# fcsim's dependencies and test extras alone (from pyproject.toml), so that `make test` installs
# them while clippy compiles (the build of fcsim itself waits for cargo's lock on target/).
$(VENV)/.deps: $(BIN)/python pyproject.toml
	$(BIN)/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print(*p["dependencies"], *p["optional-dependencies"]["test"], sep="\n")' | xargs -d "\n" $(BIN)/pip install -q
	touch $@

demo: $(VENV)/.installed-release
	$(BIN)/fcsim trace info $(DEMO_TRACE)
	@echo
	$(BIN)/fcsim run $(DEMO_TRACE) --policy lru,fifo --size 1%,5%,10%,64MiB

lint: lint-rust lint-py

lint-rust:
	cargo fmt --all -- --check
	cargo clippy --profile quick --workspace --all-targets -- -D warnings

lint-py: $(VENV)/.installed-quick
	$(BIN)/ruff check python tests bench fuzz
	$(BIN)/ruff format --check python tests bench fuzz

rust-test:
	cargo test -p fcsim -p fcsim-fuzz --profile quick

# Two workers (pytest-xdist), one per core of the machines fcsim is tested on: the tests are
# independent processes' work (each writes under its own tmp_path). Tests marked `serial` kill
# processes at moments they watch for, which a starved core can miss: they run alone, after.
py-test: $(VENV)/.installed-quick
	$(BIN)/python -m pytest -q -n 2 -m "not serial" --durations=20 tests
	$(BIN)/python -m pytest -q -m serial tests

# Clippy and the Python dependencies' install side by side (one compiles, the other mostly
# unpacks), then the rest in order.
test:
	$(MAKE) -j2 lint-rust $(VENV)/.deps
	$(MAKE) lint-py rust-test py-test

# Every golden row (tests/test_golden_policies.py; `make test` checks the quick part).
golden: $(VENV)/.installed-quick
	FCSIM_GOLDEN=all $(BIN)/python -m pytest -q tests/test_golden_policies.py

fmt: $(VENV)/.installed-quick
	cargo fmt --all
	$(BIN)/ruff format python tests bench fuzz
	$(BIN)/ruff check --fix python tests bench fuzz

bench: $(VENV)/.installed-release
	cargo bench -p fcsim-bench --bench policy
	cargo bench -p fcsim-bench --bench device
	$(BIN)/python bench/side_by_side.py
	$(BIN)/python bench/mrc_sampling.py
	$(BIN)/python bench/offline_bounds.py
	$(BIN)/python bench/clone_speed.py
	$(BIN)/python bench/flash_speed.py

# Coverage-guided fuzzing (issue 16), long runs by hand: `make fuzz` runs every target for
# FUZZ_RUNS executions (or FUZZ_SECONDS each), one after another; FUZZ_TARGETS picks some. The
# Rust targets are libFuzzer on the stable toolchain: SanitizerCoverage passes as cargo-fuzz
# sets them (no sanitizer), built for the host triple so build scripts stay uninstrumented.
# New inputs go to target/fuzz/corpus/TARGET, crashes to target/fuzz/artifacts/TARGET/, the
# log to target/fuzz/TARGET.log; `make fuzz-merge` minimises them into the committed corpus.
FUZZ_RUNS    ?= 10000000
FUZZ_SECONDS ?= 0
FUZZ_FLAGS   ?= -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1
TOML_TARGET  := experiment-toml
FETCH_TARGET := fetch-response
# The atheris targets (Python scripts in fuzz/); every other corpus directory is a Rust target.
PY_TARGETS   := $(TOML_TARGET) $(FETCH_TARGET)
FUZZ_TARGETS ?= $(notdir $(wildcard fuzz/corpus/*))
HOST      := $(shell rustc -vV | sed -n 's/host: //p')
FUZZ_BIN  := target/fuzz/$(HOST)/fuzz/fcsim-fuzz
SANCOV    := -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
	-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing
LIBFUZZER_ARGS = $(FUZZ_FLAGS) -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS)

fuzz-build:
	RUSTFLAGS="$(SANCOV)" cargo build -p fcsim-fuzz --features libfuzzer --profile fuzz \
		--target $(HOST) --target-dir target/fuzz --bin fcsim-fuzz

$(VENV)/.fuzz-installed: $(VENV)/.installed-release
	$(BIN)/pip install -q "atheris==2.3.0"
	touch $@

fuzz: fuzz-rust fuzz-toml fuzz-fetch

fuzz-rust: fuzz-build
	@for t in $(filter-out $(PY_TARGETS),$(FUZZ_TARGETS)); do \
		mkdir -p target/fuzz/corpus/$$t target/fuzz/artifacts/$$t; \
		echo "== $$t (log: target/fuzz/$$t.log)"; \
		FCSIM_FUZZ_TARGET=$$t nice -n 10 $(FUZZ_BIN) target/fuzz/corpus/$$t fuzz/corpus/$$t \
			$(LIBFUZZER_ARGS) -artifact_prefix=target/fuzz/artifacts/$$t/ > target/fuzz/$$t.log 2>&1; \
		rc=$$?; grep -E '^#[0-9]+ +DONE|^Done|^stat::|ERROR|SUMMARY|^artifact_prefix|Test unit written' target/fuzz/$$t.log; \
		[ $$rc -eq 0 ] || { echo "fuzz target $$t failed (exit $$rc): see target/fuzz/$$t.log"; exit 1; }; \
	done

# An atheris target, $(1), run by script $(2) when FUZZ_TARGETS names it.
define fuzz_py
	@if echo " $(FUZZ_TARGETS) " | grep -q " $(1) "; then \
		mkdir -p target/fuzz/corpus/$(1) target/fuzz/artifacts/$(1); \
		echo "== $(1) (log: target/fuzz/$(1).log)"; \
		nice -n 10 $(BIN)/python $(2) target/fuzz/corpus/$(1) fuzz/corpus/$(1) \
			$(LIBFUZZER_ARGS) -artifact_prefix=target/fuzz/artifacts/$(1)/ > target/fuzz/$(1).log 2>&1; \
		rc=$$?; grep -E '^#[0-9]+ +DONE|^Done|^stat::|ERROR|SUMMARY|^artifact_prefix|Test unit written' target/fuzz/$(1).log; \
		[ $$rc -eq 0 ] || { echo "fuzz target $(1) failed (exit $$rc): see target/fuzz/$(1).log"; exit 1; }; \
	fi
endef

fuzz-toml: $(VENV)/.fuzz-installed
	$(call fuzz_py,$(TOML_TARGET),fuzz/experiment_toml.py)

fuzz-fetch: $(VENV)/.fuzz-installed
	$(call fuzz_py,$(FETCH_TARGET),fuzz/fetch_response.py)

# Minimises the committed corpus of the Rust targets together with what `make fuzz` found: the
# fewest inputs that keep every feature (libFuzzer -set_cover_merge=1). The atheris targets'
# corpora are not merged (atheris's merge reruns the script as an executable).
fuzz-merge: fuzz-build
	@for t in $(filter-out $(PY_TARGETS),$(FUZZ_TARGETS)); do \
		rm -rf target/fuzz/merged/$$t && mkdir -p target/fuzz/merged/$$t target/fuzz/corpus/$$t; \
		FCSIM_FUZZ_TARGET=$$t $(FUZZ_BIN) -set_cover_merge=1 $(FUZZ_FLAGS) target/fuzz/merged/$$t fuzz/corpus/$$t \
			target/fuzz/corpus/$$t > target/fuzz/$$t.merge.log 2>&1 \
			|| { echo "merge of $$t failed: see target/fuzz/$$t.merge.log"; exit 1; }; \
		rm -rf fuzz/corpus/$$t && mv target/fuzz/merged/$$t fuzz/corpus/$$t; \
		echo "$$t: $$(ls fuzz/corpus/$$t | wc -l) inputs, $$(du -s --apparent-size fuzz/corpus/$$t | cut -f1) KiB"; \
	done

# The paper profiles' donor models (compiled into fcsim; crates/fcsim/src/trace/profiles.rs),
# fitted from the real traces in data/traces.
profile-models: $(VENV)/.installed-release
	$(BIN)/fcsim trace clone data/traces/mqsim_tpcc-small.trace.gz -o data/profiles/models/tpcc.model
	$(BIN)/fcsim trace clone data/traces/msr_hm_0_excerpt1000.csv -o data/profiles/models/hm_0.model
	$(BIN)/fcsim trace clone data/traces/diskmon_sys1.trace.gz -o data/profiles/models/diskmon.model
	$(BIN)/fcsim trace clone data/traces/cloudphysics_vscsi_2h.csv.gz -o data/profiles/models/cloudphysics.model

# Each paper profile's fidelity report against the real trace it borrows from.
profiles-fidelity: $(VENV)/.installed-release
	$(BIN)/python -m fcsim.reports.profile_fidelity > data/profiles/fidelity.md

clean:
	rm -rf $(VENV) target
