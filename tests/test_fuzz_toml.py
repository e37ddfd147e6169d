"""The short run of the experiment-file fuzz target (fuzz/experiment_toml.py): its committed
corpus and its regression inputs (what long runs found, kept after the fix) replay cleanly, and
the kinds of hostile file it found fail with one ConfigError line each."""

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

import fcsim
from fcsim import _core, sweep

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
spec = importlib.util.spec_from_file_location("experiment_toml", FUZZ / "experiment_toml.py")
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)

INPUTS = sorted((FUZZ / "corpus/experiment-toml").iterdir()) + sorted(
    (FUZZ / "regressions/experiment-toml").iterdir()
)


@pytest.fixture(scope="module")
def bounded() -> Iterator[None]:
    """The harness's bound on working-set passes, as in a fuzz run, for this module only."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_core, "working_set", _core.working_set)
        harness.bound_working_sets()
        yield


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fuzz_input_replays_cleanly(path: Path, bounded: None) -> None:
    harness.check(path.read_bytes())


def test_a_working_set_pass_stops_when_its_progress_raises() -> None:
    # What the harness's budget (and a sweep's Ctrl-C) relies on: the pass over a trace asked
    # for 10^19 requests (the regression input above, untimed: at its default 1000 iops they would
    # arrive past the time horizon, refused up front) stops at the callback's exception.
    calls = []

    def stop(done: int, total: int) -> None:
        calls.append((done, total))
        raise KeyboardInterrupt

    for measure in (_core.working_set, _core.trace_info):
        calls.clear()
        with pytest.raises(KeyboardInterrupt):
            measure("synth:zipf,n=10077777777777777770,pages=2,iops=0", progress=stop)
        assert len(calls) == 1 and calls[0][0] == 65536 and calls[0][1] > 10**19


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b'name = "\xff"\n', "line 1: not UTF-8 (byte 8)"),
        (b"a = " + b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (
            b'policies = ["lru", "t\\ncent"]\nsizes = ["1%"]\ntraces = ["synth:zipf,n=10"]\n',
            r"unknown policy 't\ncent'",
        ),
        (b'"a\\nb" = 1\n', r"unknown key(s) a\nb"),
        (
            b'traces = ["synth:zipf"]\npolicies = ["lru"]\nsizes = [1]\n'
            b"[[grid]]\na = [1,2,3,4,5,6,7,8,9,10]\nb = [1,2,3,4,5,6,7,8,9,10]\n"
            b"c = [1,2,3,4,5,6,7,8,9,10]\nd = [1,2,3,4,5,6,7,8,9,10]\ne = [1,2,3,4,5,6,7,8,9,10]\n"
            b"f = [1,2,3,4,5,6,7,8,9,10]\n",
            "1000000 points",
        ),
    ],
    ids=["not-utf8", "deep-nesting", "line-break-in-value", "line-break-in-key", "too-many-points"],
)
def test_hostile_experiment_is_one_config_error_line_per_problem(data: bytes, needle: str) -> None:
    with pytest.raises(fcsim.ConfigError) as e:
        exp = sweep.parse(data, "x.toml")
        exp.check()
    assert needle in str(e.value)
    assert all(line.startswith("x.toml: ") for line in str(e.value).split("\n"))
