"""Every table fcsim returns is a plain DataFrame (issue 45): no DataFrame in ``attrs``, only
small JSON-safe provenance, so ``pd.concat``, ``merge``, ``groupby`` and the Parquet, Feather
and CSV writers work on each, as they do on any DataFrame."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import TRACES

S = "synth:zipf,alpha=0.9,requests=5e4,pages=2e4,write=0.3"
T = str(TRACES / "msr_hm_0_excerpt1000.csv")


def written_and_read(df: pd.DataFrame, tmp_path: Path) -> None:
    """``df`` written to Parquet, Feather and CSV and read back with its shape, columns and
    ``attrs`` (Parquet keeps them)."""
    df.to_parquet(tmp_path / "t.parquet")
    back = pd.read_parquet(tmp_path / "t.parquet")
    assert back.shape == df.shape and list(back.columns) == list(df.columns)
    assert back.attrs == json.loads(json.dumps(df.attrs))
    df.to_feather(tmp_path / "t.feather")
    assert pd.read_feather(tmp_path / "t.feather").shape == df.shape
    df.to_csv(tmp_path / "t.csv", index=False)
    assert pd.read_csv(tmp_path / "t.csv").shape == df.shape


def plain(df: pd.DataFrame | None, tmp_path: Path) -> pd.DataFrame:
    """``df``, checked as a table fcsim returns: a DataFrame whose ``attrs`` are a few hundred
    bytes of strict JSON, that concatenates with itself, groups and round-trips through
    every writer."""
    assert isinstance(df, pd.DataFrame) and len(df)
    assert len(json.dumps(df.attrs, allow_nan=False)) < 1000
    assert len(pd.concat([df, df], ignore_index=True)) == 2 * len(df)
    assert df.groupby(df.columns[0], dropna=False).size().sum() == len(df)
    written_and_read(df, tmp_path)
    return df


def test_the_issues_grids_concat_merge_and_write(tmp_path: Path) -> None:
    a = fcsim.run_grid(S, ["lru"], ["1%"], seeds=3)
    b = fcsim.run_grid(S, ["fifo"], ["1%"], seeds=3)
    both = pd.concat([a, b], ignore_index=True)
    assert list(both["policy"]) == ["lru"] * 3 + ["fifo"] * 3
    # FIFO's miss on the same trace at the same size: three seeds of each, paired by seed.
    paired = a.merge(b, on=["size", "seed_index"], suffixes=("_lru", "_fifo"))
    assert len(paired) == 3 and (paired["hit_ratio_lru"] > paired["hit_ratio_fifo"]).all()
    assert len(a.merge(b, on="size")) == 9
    assert dict(both.groupby("policy")["hits"].count()) == {"fifo": 3, "lru": 3}
    plain(a, tmp_path)


def test_a_run_returns_rows_summary_and_epochs_as_their_own_tables(tmp_path: Path) -> None:
    a = fcsim.run(S, ["lru"], ["1%"], seeds=3, epoch=10_000)
    b = fcsim.run(S, ["fifo"], ["1%"], seeds=3, epoch=10_000)
    for r in (a, b):
        assert r.summary is not None and r.epochs is not None
        plain(r.rows, tmp_path)
        plain(r.summary, tmp_path)
        plain(r.epochs, tmp_path)
    rows = fcsim.run_grid(S, ["lru"], ["1%"], seeds=3)
    assert list(rows.columns) == list(a.rows.columns) and rows["hits"].equals(a.rows["hits"])
    # Five epochs of 10,000 requests per run, three runs; the summary's one row per point.
    assert len(a.epochs) == 15 and list(a.epochs["seed_index"].unique()) == [0, 1, 2]
    assert len(pd.concat([a.epochs, b.epochs])) == 30 and len(pd.concat([a.summary, b.summary])) == 2
    assert a.rows.merge(b.rows, on="size").shape[0] == 9
    # Without seeds or epoch= there is neither.
    one = fcsim.run(T, "lru", "5%")
    assert one.summary is None and one.epochs is None and not one.rows.attrs


def test_a_row_and_its_epochs_are_tables_too(tmp_path: Path) -> None:
    row = fcsim.simulate(T, "lru", "5%", device="gasa", epoch="30s")
    plain(pd.DataFrame([row]), tmp_path)
    plain(row.epochs, tmp_path)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"method": "shards", "rate": 0.5}, {"method": "minisim", "policy": "arc", "rate": 0.5}],
    ids=["exact", "shards", "minisim"],
)
def test_every_curve_is_a_plain_table(kwargs: dict[str, object], tmp_path: Path) -> None:
    curve = plain(fcsim.mrc(T, **kwargs), tmp_path)  # type: ignore[arg-type]
    assert curve.attrs["trace"] == T and curve.attrs["accesses"] == 2473


def test_an_mrc_comparison_is_a_plain_table(tmp_path: Path) -> None:
    df = plain(fcsim.mrc_compare(T, "shards", rate=0.5, seeds=2), tmp_path)
    assert df.attrs["seeds"] == 2 and df.attrs["curve"]["rate"] == 0.5


def test_a_fidelity_report_returns_its_tables_apart(tmp_path: Path) -> None:
    report = fcsim.compare(T, T, baseline=False)
    plain(report.rows, tmp_path)
    plain(report.panel, tmp_path)
    assert report.baseline is None and report.baseline_spec is None
    assert report.a["requests"] == 1000 and [h["requests"] for h in report.halves] == [500, 500]
