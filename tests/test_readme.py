"""The README's lists are checked against the code, not kept by hand: result-row columns (read
from crates/fcsim/src/metrics.rs and from rows of representative runs, at test time), the
columns an untimed trace leaves null, the trace-format options, the Python functions, the
reproductions' sizes and times (from results/*/results.parquet), and the sweep example, which
runs as written, resume included."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import ROOT, cli
from fcsim import catalogue

README = (ROOT / "README.md").read_text(encoding="utf-8")
METRICS = (ROOT / "crates/fcsim/src/metrics.rs").read_text(encoding="utf-8")
# Columns that echo a configuration: `param_<name>`, `device_<name>`, `stack_<name>`.
ECHO = re.compile(r"^(param|device|stack)_")


def section(start: str, end: str = "\n## ") -> str:
    """The README's text from the heading or phrase `start` to the next `end`."""
    assert start in README, f"README.md: '{start}' not found"
    text = README[README.index(start) + len(start) :]
    return text[: text.index(end)] if end in text else text


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`([a-z][a-z0-9_<>]*)`", text))


def columns_in_source() -> set[str]:
    """Column names written as literals in metrics.rs: `("name".into(), …)`, `("name", …)`."""
    return set(re.findall(r'\(\s*"([a-z][a-z0-9_]*)"(?:\.into\(\))?\s*,', METRICS))


def columns_of_runs() -> set[str]:
    """Columns of rows without a device, over a device, as a flash cache with a DRAM tier, and
    as a dynamically split SSD write cache; without the configuration echoes."""
    t = "synth:zipf,alpha=0.9,requests=20000,pages=20000,write=0.3,seed=1"
    small = {"device.channels": 1, "device.chips_per_channel": 2, "device.blocks": 64}
    rows = [
        fcsim.simulate(t, "lru", "10%"),
        fcsim.simulate(t, "lru", "10%", device="gasa", set=small),
        fcsim.simulate(
            t,
            "lru",
            "10%",
            device="gasa",
            set={**small, "stack.kind": "ssd-cache", "stack.write": "back", "stack.dram": 0.1},
        ),
        fcsim.simulate(
            t,
            "lru",
            "80%",
            device="dynamic",
            set={
                "stack.kind": "ssd-cache",
                "stack.write": "back",
                "stack.split": "dynamic",
                "stack.window": 0.25,
                "device.channels": 1,
                "device.chips_per_channel": 2,
            },
        ),
    ]
    return {c for r in rows for c in r}


def test_every_result_column_is_documented() -> None:
    literal = columns_in_source()
    assert {"trace", "hit_ratio", "device_state", "timing"} <= literal, (
        "metrics.rs: column literals not found"
    )
    code = literal | {c for c in columns_of_runs() if not ECHO.match(c)}
    documented = backticked(section("## Result rows"))
    missing = sorted(code - documented)
    assert not missing, f"README.md '## Result rows' does not list these columns: {', '.join(missing)}"
    for echo in ("param_<name>", "device_<name>", "stack_<name>"):
        assert echo in documented
    # The other way: every name in the first column of the table is a column.
    table = section("**Every run.**", "\n\n**")
    firsts = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    stale = sorted(backticked(" ".join(firsts)) - code - {"param_<name>"})
    assert not stale, f"README.md lists columns that rows do not have: {', '.join(stale)}"


def test_untimed_null_columns_are_documented() -> None:
    block = METRICS[METRICS.index("pub const UNTIMED_NULL") :]
    names = re.findall(r'"([a-z0-9_]+)"', block[: block.index("];")])
    assert "resp_p99_us" in names and "epbpd" in names
    text = section("### Load and time")
    missing = [
        n for n in names if f"`{n}`" not in text and not (n.startswith("resp_") and "`resp_*_us`" in text)
    ]
    assert not missing, f"README.md '### Load and time' does not name these untimed columns: {missing}"


def option_keys(path: str) -> set[str]:
    src = (ROOT / path).read_text(encoding="utf-8")
    calls = r'(?:\bcol\(p, |p\.take\(|take_u64\(|take_bool\(|p\.has\()"([a-z_]+)"'
    return set(re.findall(calls, src))


@pytest.mark.parametrize(
    ("source", "paragraph"),
    [
        ("crates/fcsim/src/trace/csv.rs", "**Generic CSV**"),
        ("crates/fcsim/src/trace/lcs_csv.rs", "**libCacheSim CSV**"),
    ],
)
def test_trace_format_options_are_documented(source: str, paragraph: str) -> None:
    keys = option_keys(source)
    assert len(keys) >= 6, f"{source}: options not found"
    missing = sorted(keys - backticked(section(paragraph, "\n\n")))
    assert not missing, f"README.md {paragraph} does not name these options of {source}: {missing}"


def test_python_functions_are_documented() -> None:
    missing = [n for n in fcsim.__all__ if f"`fcsim.{n}" not in README]
    assert not missing, f"README.md does not mention {', '.join('fcsim.' + n for n in missing)}"


@pytest.mark.parametrize("paper", sorted(p.parent.name for p in (ROOT / "results").glob("*/results.parquet")))
def test_reproduction_sizes_and_times_match_the_results(paper: str) -> None:
    df = pd.read_parquet(ROOT / "results" / paper / "results.parquet")
    seconds = df["sim_seconds"].sum() + df.get("device_setup_s", pd.Series(dtype=float)).fillna(0).sum()
    # "N points", or with seeds "N runs of P points" (a random point runs once per seed: its
    # seed index 0 is the point).
    pattern = r"(\d+) (?:runs of (\d+) )?points, (\d+) s of simulation\)"
    m = re.search(rf"{pattern}[^()]*?`results/{paper}/`", README)
    assert m, (
        f"README.md: no '(N points, S s of simulation) ... `results/{paper}/`' for fcsim reproduce {paper}"
    )
    points = int((df["seed_index"].fillna(0) == 0).sum()) if "seed_index" in df.columns else len(df)
    said = (int(m[1]), int(m[2] or m[1]), int(m[3]))
    assert said == (len(df), points, round(seconds)), (
        f"README.md says {m[1]} runs of {m[2] or m[1]} points, {m[3]} s for results/{paper}/; the table "
        f"has {len(df)} runs of {points} points, {seconds:.0f} s"
    )


def test_the_sweep_example_runs_as_written(tmp_path: Path) -> None:
    # The experiment file and the commands below it, copied out of the README; run in a
    # directory that stands for the repository root (its data/ is the repository's).
    text = section("saved as `first.toml`", "\n`fcsim sweep FILE")
    toml = re.search(r"```toml\n(.*?)```", text, re.S)
    session = re.search(r"```\n(\$ .*?)```", text, re.S)
    assert toml and session
    (tmp_path / "data").symlink_to(ROOT / "data")
    (tmp_path / "first.toml").write_text(toml[1])
    blocks = re.split(r"^\$ ", session[1], flags=re.M)[1:]
    assert len(blocks) == 3
    for block in blocks:
        command, _, expected = block.partition("\n")
        argv = shlex.split(command)
        if argv[0] == ".venv/bin/fcsim":  # run in this process
            r = cli(*argv[1:], cwd=tmp_path)
        else:
            assert argv[0] == ".venv/bin/python", command
            r = subprocess.run(
                [sys.executable, *argv[1:]], capture_output=True, text=True, cwd=tmp_path, timeout=300
            )
        assert r.returncode == 0, r.stderr
        # As a terminal shows it: the notes on stderr come before the closing line on stdout.
        assert (r.stderr + r.stdout).splitlines() == expected.splitlines(), command


def test_profiles_and_catalogue_families_are_documented() -> None:
    source = (ROOT / "crates/fcsim/src/trace/profiles.rs").read_text(encoding="utf-8")
    profiles = re.findall(r'^\s*(?:gasa|lcr|dynamic)\("([a-z0-9_-]+)"', source, re.M)
    text = section("## Workload profiles")
    missing = [p for p in profiles if f"`{p}`" not in text]
    assert profiles and not missing, f"README.md '## Workload profiles' does not list {missing}"
    families = [f["name"] for f in catalogue.families()]
    text = section("## Public traces: catalogue and fetch")
    missing = [f for f in families if f"(`{f}`" not in text]
    assert len(families) >= 7 and not missing, f"README.md '## Public traces' does not name {missing}"


def test_the_policies_table_lists_every_parameter() -> None:
    # `larc.writes` and `min.trim` were accepted and listed by `fcsim policies`, not by the table.
    table = README.split("\n## Policies\n")[1].strip().split("\n\n")[0]
    rows = {line.split("|")[1].strip().strip("`"): line.split("|")[4] for line in table.splitlines()[2:]}
    for p in fcsim.policies():
        if p["name"] in rows:
            missing = [k for k in p["params"] if f"`{k}`" not in rows[p["name"]]]
            assert not missing, f"{p['name']}: {missing}"
    assert {"lru", "min", "larc", "lcr", "none"} <= set(rows)
