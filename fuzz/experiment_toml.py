"""Coverage-guided fuzz target of the TOML experiment loader (issue 16), on atheris (libFuzzer
for Python): the bytes of an experiment file must give an experiment of at most MAX_POINTS
points, or fcsim's own error (ConfigError, every line naming the file; TraceError for a
catalogue trace not fetched), never another exception. An experiment of at most CHECKED
points is also listed and checked (`Experiment.check`, which the CLI runs before a sweep);
larger ones are not, to keep executions fast. libFuzzer's options apply:

    .venv/bin/python fuzz/experiment_toml.py CORPUS_DIR... -runs=N -timeout=10

`make fuzz` runs it (target experiment-toml); tests/test_fuzz_toml.py replays its corpus.
"""

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: Where the experiment is said to be, and an empty directory its traces are looked for in.
PATH = Path("fuzz-input.toml")
TRACES = tempfile.mkdtemp(prefix="fcsim-fuzz-traces-")
#: Experiments of at most this many points are listed and checked too.
CHECKED = 64


def check(data: bytes) -> None:
    """One input; raises (an AssertionError or the unexpected exception) on a finding."""
    # Imported here, so that main() can instrument them first.
    from fcsim import sweep
    from fcsim._core import ConfigError, TraceError

    try:
        exp = sweep.parse(data, PATH, TRACES)
        n = sum(part.count() for part in exp.parts)
        assert 1 <= n <= sweep.MAX_POINTS, n
        if n <= CHECKED:
            assert 1 <= len(exp.points()) <= n
            exp.check()
    except ConfigError as e:
        lines = str(e).split("\n")
        assert all(line.startswith(f"{PATH}: ") and len(line) > len(f"{PATH}: ") for line in lines), repr(
            str(e)
        )
    except TraceError as e:
        assert str(e).strip() and "\n" not in str(e), repr(str(e))
    except TooCostly:
        pass  # a trace too long to measure within the budget; the rest of the input was parsed


class TooCostly(Exception):
    """A trace whose working-set pass took over BUDGET_S: the input is not checked further."""


#: Seconds one working-set pass may take (a paper profile's takes a quarter of a second).
BUDGET_S = 1.0


def bound_working_sets() -> None:
    """Remembers the working set of each trace measured, and stops a pass that takes over
    BUDGET_S. The traces here are synth: specs (the traces directory is empty), whose working set
    is a function of the spec alone, and whose pass is as long as the spec says: a paper profile
    is a quarter of a second, which held the fuzzer to ~400 executions a second before it was
    remembered, and `synth:zipf,n=10077777777777777770` would run for ever, as it would for a
    user who asked for that many requests (its Ctrl-C works). Errors are not remembered."""
    from fcsim import _core

    measure = _core.working_set
    known: dict[tuple[str, str], int | None] = {}

    def working_set(path: str, progress: Callable[[int, int], None] | None = None, **options: object) -> int:
        key = (path, json.dumps(options, sort_keys=True))
        if key not in known:
            deadline = time.monotonic() + BUDGET_S

            def budget(done: int, total: int) -> None:
                if progress is not None:
                    progress(done, total)
                if time.monotonic() > deadline:
                    raise TooCostly(path)

            try:
                known[key] = measure(path, progress=budget, **options)
            except TooCostly:
                known[key] = None
            if len(known) > 4096:
                del known[next(iter(known))]
        ws = known[key]
        if ws is None:
            raise TooCostly(path)
        return ws

    _core.working_set = working_set


def main() -> None:
    import atheris

    # Coverage of fcsim's Python (the loader and its checks). Not of tomllib: atheris 2.3's
    # bytecode instrumentation of it crashes CPython 3.11 (a segfault in the compiler); nor of
    # fcsim's Rust core, which checks sizes, policies and --set values.
    with atheris.instrument_imports(include=["fcsim"]):
        import fcsim.sweep  # noqa: F401
    bound_working_sets()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
