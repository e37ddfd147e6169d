"""The admission layer (issue 43): the registry as Python sees it, ``--admit`` as an axis on
``fcsim run``, ``fcsim sweep`` and the API, the ``admission`` column, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import fcsim
from conftest import TRACES, cli

T = str(TRACES / "blkparse_java_50k_events.txt.gz")
SSD = {"stack.kind": "ssd-cache", "stack.write": "back"}


def test_admissions_lists_all_first_with_params_and_knob() -> None:
    rows = fcsim.admissions()
    assert rows[0]["name"] == "all" and rows[0]["knob"] is None and rows[0]["params"] == []
    names = [a["name"] for a in rows]
    assert "writes" in names and len(names) == len(set(names))
    for a in rows:
        assert set(a) == {"name", "description", "source", "knob", "params"}
        params = {p["name"] for p in a["params"]}
        assert a["knob"] is None or a["knob"] in params
        for p in a["params"]:
            assert p["lo"] <= p["default"] <= p["hi"], p
    r = cli("admissions")
    assert r.returncode == 0, r.stderr
    assert [line.split()[0] for line in r.stdout.splitlines() if line and not line[0].isspace()][:2] == [
        "all",
        "writes",
    ]


def test_admit_is_an_axis_and_all_leaves_rows_as_they_were() -> None:
    before = fcsim.run_grid(T, "lru", "20%", set=SSD)
    rows = fcsim.run_grid(T, "lru", "20%", set=SSD, admit=["all", "writes"])
    assert list(rows["admission"]) == ["all", "writes"]
    # `all` is the empty slot: the same numbers as a run that names no admission.
    for col in ("hits", "insertions", "cache_writes", "backing_reads", "disk_reads"):
        assert rows[col].iloc[0] == before[col].iloc[0], col
    # `writes` admits no read miss, so it programs no more pages than `all`.
    assert rows["cache_writes"].iloc[1] <= rows["cache_writes"].iloc[0]
    one = fcsim.simulate(T, "lru", "20%", set=SSD, admit="writes")
    assert one["admission"] == "writes" and one["stack_admit"] == "writes"
    r = cli(
        "run",
        T,
        "--policy",
        "lru",
        "--size",
        "20%",
        "--set",
        "stack.kind=ssd-cache",
        "--set",
        "stack.write=back",
        "--admit",
        "all,writes",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('"admission"') == 2


def test_sweep_takes_admissions(tmp_path: Path) -> None:
    exp = tmp_path / "e.toml"
    exp.write_text(
        f'name = "a"\ntraces = ["{T}"]\npolicies = ["lru"]\nsizes = ["20%"]\nadmissions = ["all", "writes"]\n'
        '[set]\n"stack.kind" = "ssd-cache"\n"stack.write" = "back"\n'
    )
    r = cli("sweep", exp, "--out", tmp_path / "a.parquet")
    assert r.returncode == 0, r.stderr
    import pandas as pd

    assert sorted(pd.read_parquet(tmp_path / "a.parquet")["admission"]) == ["all", "writes"]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"admit": "nope", "set": SSD}, "unknown admission 'nope'; registered: all, writes,"),
        ({"admit": "writes"}, "--admit writes: an admission policy guards a flash cache"),
        ({"set": {**SSD, "admit.p": "0.5"}}, "admit.p: no admission policy takes it (--admit all)"),
        ({"admit": "writes", "set": {**SSD, "admit.p": "0.5"}}, "unknown parameter admit.p of admission"),
        ({"admit": "writes", "set": {**SSD, "stack.admit": "all"}}, "name different admissions"),
    ],
)
def test_bad_admission_input_is_one_line(kw: dict[str, object], message: str) -> None:
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.run_grid(T, "lru", "20%", **kw)  # type: ignore[arg-type]
    assert message in str(e.value)
    r = cli("run", T, "--policy", "lru", "--size", "20%", "--admit", "nope", "--set", "stack.kind=ssd-cache")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "unknown admission 'nope'" in r.stderr
