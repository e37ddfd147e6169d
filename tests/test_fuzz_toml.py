"""The short run of the experiment-file fuzz target (fuzz/experiment_toml.py): its committed
corpus and its regression inputs (what long runs found, kept after the fix) replay cleanly, and
the kinds of hostile file it found fail with one ConfigError line each."""

import importlib.util
from pathlib import Path

import pytest

import fcsim
from fcsim import sweep

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
spec = importlib.util.spec_from_file_location("experiment_toml", FUZZ / "experiment_toml.py")
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)

INPUTS = sorted((FUZZ / "corpus/experiment-toml").iterdir()) + sorted(
    (FUZZ / "regressions/experiment-toml").iterdir()
)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fuzz_input_replays_cleanly(path: Path) -> None:
    harness.check(path.read_bytes())


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
