"""Hostile names (issue 42): a file name with control characters (ESC, BEL) is printed with
them escaped as Python escapes them (``\\x1b``), by :func:`fcsim.cli.show`, on stdout as on
stderr; a plot draws it escaped instead of warning about missing glyphs. A seed that would run
past 2^64 - 1 under ``seeds`` is refused as typed, and another seed index replaces the spec's
own ``seed=`` key instead of repeating it (a spec refuses a key given twice)."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import fcsim
from conftest import TRACES, cli
from fcsim import seeds

NAME = "a\x1b[31mb\x07.csv"
SHOWN = "a\\x1b[31mb\\x07.csv"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    p = tmp_path / NAME
    shutil.copy(TRACES / "msr_hm_0_excerpt1000.csv", p)
    return p


def test_control_characters_of_names_are_escaped_on_stdout(hostile: Path, tmp_path: Path) -> None:
    for args in (
        ["run", hostile, "--policy", "lru", "--size", "100"],
        ["trace", "info", hostile],
        ["trace", "compare", hostile, TRACES / "msr_hm_0_excerpt1000.csv"],
        ["trace", "clone", hostile, "-o", tmp_path / "m\x1b.model"],
    ):
        r = cli(*args)
        assert r.returncode == 0, r.stderr
        assert "\x1b" not in r.stdout and "\x07" not in r.stdout, args
        assert SHOWN in r.stdout, r.stdout
    assert "wrote " + str(tmp_path / "m\\x1b.model") in r.stdout


def test_a_plot_of_a_hostile_name_warns_nothing(hostile: Path, tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's missing-glyph UserWarning fails the test
        r = cli("run", hostile, "--policy", "lru", "--size", "100", "--plot", tmp_path / "p.png")
    # Only the line saying what was written (escaped), no warning.
    others = [ln for ln in r.stderr.splitlines() if not ln.startswith("fcsim: wrote ")]
    assert r.returncode == 0 and others == [], r.stderr
    assert (tmp_path / "p.png").stat().st_size > 0


def test_another_seed_replaces_the_specs_seed_key() -> None:
    spec = "synth:zipf,requests=200,pages=50,seed=7,alpha=0.9"
    seeded = seeds.components(spec, "lru", None, {})
    trace, _ = seeds.variant(spec, {}, seeded, 1)
    assert trace == "synth:zipf,requests=200,pages=50,alpha=0.9,seed=8"
    g = fcsim.run_grid(spec, "lru", [5], seeds=2)
    assert list(g["trace"]) == [spec, spec]
    assert g["hit_ratio"].nunique() == 2
    with pytest.raises(fcsim.ConfigError, match=r"give a seed at most 18446744073709551614$"):
        fcsim.run_grid(spec.replace("seed=7", f"seed={2**64 - 1}"), "lru", [5], seeds=2)
