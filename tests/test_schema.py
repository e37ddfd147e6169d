"""One schema for every result table (issue 45, part 2): the same columns with the same dtypes
whatever the grid holds, declared once in ``fcsim.schema``, pinned by a golden list of names
and dtypes, printed in the README from the module, and kept through Parquet by every kind of
table (rows, summary, epochs, a fidelity report, a sweep's output)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import ROOT, TRACES
from fcsim import schema, sweep

T = str(TRACES / "msr_hm_0_excerpt1000.csv")
S = "synth:zipf,alpha=0.9,requests=2e4,pages=2e4,write=0.3"
SMALL = {"device.channels": 1, "device.chips_per_channel": 2, "device.blocks": 64}
GOLDEN = ROOT / "tests" / "golden" / "schema.txt"


def declared() -> list[str]:
    return [
        f"{table} {c.name} {c.dtype}"
        for table in ("ROWS", "SWEEP", "EPOCHS", "COMPARISON", "PANEL")
        for c in getattr(schema, table)
    ]


def test_the_schema_is_the_golden_one() -> None:
    # A renamed, dropped or retyped column fails here: reports, golden files and users read
    # them. A new column is added to the golden list with it.
    golden = [line for line in GOLDEN.read_text().splitlines() if not line.startswith("#")]
    assert declared() == golden
    names = [c.name for c in schema.ROWS]
    assert len(names) == len(set(names)) and not any("." in n for n in names if not n.startswith("wfue_"))


def test_the_readme_table_is_the_schema() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- schema:rows -->\n")[1].split("<!-- /schema:rows -->")[0]
    assert block == schema.markdown(schema.ROWS)
    assert f"all {len(schema.ROWS)} columns" in readme


def test_every_registered_parameter_has_a_column() -> None:
    params = {f"param_{k}" for p in fcsim.policies() for k in p["params"]}
    device = {f"device_{k}" for d in fcsim.devices() for k in d["values"]}
    admit = {f"admit_{p['name']}" for a in fcsim.admissions() for p in a["params"]}
    names = {c.name for c in schema.ECHO}
    assert params | device | admit <= names, sorted((params | device | admit) - names)


def kinds() -> list[pd.DataFrame]:
    """Row tables of every kind of run: no device, a device, a flash cache over a disk with a
    DRAM tier, an offline bound, seeds and a grid axis."""
    return [
        fcsim.run(T, ["lru", "cflru"], ["5%", 50]).rows,
        fcsim.run(T, ["lru", "gasa"], "5%", device="gasa", set=SMALL).rows,
        fcsim.run(
            T, "lru", "10%", device="gasa", set={**SMALL, "stack.kind": "ssd-cache", "stack.dram": 0.1}
        ).rows,
        fcsim.run(
            str(TRACES / "diskmon_sys1.trace.gz"),
            ["m+", "c_t"],
            "5%",
            set={"device.pages_per_block": 32, "c_t.quota": "50%"},
        ).rows,
        fcsim.run(S, "lru", "1%", seeds=2).rows,
    ]


def test_every_row_table_has_the_schemas_columns_and_dtypes() -> None:
    expected = {c.name: c.dtype for c in schema.ROWS}
    tables = kinds()
    for df in tables:
        assert dict(df.dtypes.astype(str)) == expected
    both = pd.concat(tables, ignore_index=True)
    assert dict(both.dtypes.astype(str)) == expected
    # What the device columns hold: numbers with a device, null without.
    assert both["erasures"].notna().any() and tables[0]["erasures"].isna().all()
    assert set(both["size"]) >= {"5%", "50", "10%", "1%"}


def test_a_grid_axis_is_a_name_without_dots_and_parameters_are_numbers() -> None:
    # The example: after grid={"cflru.window": [...]}, param_window > 0.2 raised
    # TypeError (text) and the axis column was named cflru.window.
    df = fcsim.run_grid(T, ["cflru", "lru"], "5%", grid={"cflru.window": [0.1, 0.5]})
    assert list(df.columns[-1:]) == ["axis_cflru_window"] and str(df["axis_cflru_window"].dtype) == "Float64"
    assert list((df.param_window > 0.2).fillna(False)) == [False, True, False, False]
    assert df["param_window"].isna().sum() == 2  # LRU has no window
    assert list(df["size"]) == ["5%"] * 4
    assert schema.axis_name("gcar-cflru.window") == "axis_gcar_cflru_window"


def round_trip(df: pd.DataFrame, path: Path) -> None:
    df.to_parquet(path)
    back = pd.read_parquet(path)
    assert list(back.columns) == list(df.columns)
    assert dict(back.dtypes.astype(str)) == dict(df.dtypes.astype(str)), path.name


def test_every_kind_of_table_writes_to_parquet_with_its_dtypes(tmp_path: Path) -> None:
    g = fcsim.run(S, ["lru", "fifo"], "1%", seeds=2, epoch=5000, device="gasa", set=SMALL)
    assert g.summary is not None and g.epochs is not None
    assert list(g.epochs.columns) == [c.name for c in schema.EPOCHS]
    rows = {c.name: c for c in schema.ROWS}
    by = [rows[k] for k in ("trace", "policy", "size", "device", "admission")]
    assert list(g.summary.columns) == [c.name for c in schema.summary_columns(by)]
    report = fcsim.compare(T, T, baseline=False)
    assert list(report.rows.columns) == [c.name for c in schema.COMPARISON]
    exp = tmp_path / "e.toml"
    exp.write_text(f'traces = ["{T}"]\npolicies = ["lru", "cflru"]\nsizes = ["5%", 40]\n')
    swept = sweep.run(sweep.load(exp), tmp_path / "s.parquet", jobs=1)
    assert list(swept.columns) == [c.name for c in schema.SWEEP] and list(swept["size"]) == ["5%", "40"] * 2
    assert dict(pd.read_parquet(tmp_path / "s.parquet").dtypes.astype(str)) == dict(swept.dtypes.astype(str))
    tables = {
        "rows": g.rows,
        "summary": g.summary,
        "epochs": g.epochs,
        "comparison": report.rows,
        "panel": report.panel,
        "sweep": swept,
    }
    for name, df in tables.items():
        round_trip(df, tmp_path / f"{name}.parquet")


def test_a_column_outside_the_schema_is_refused() -> None:
    with pytest.raises(ValueError, match=r"columns outside fcsim\.schema: hit_ratoi"):
        schema.frame([{"trace": "t", "hit_ratoi": 0.5}])


def test_a_sweep_resumes_a_table_written_before_the_schema(tmp_path: Path) -> None:
    # A table of an older fcsim: text echoes, no size column, a column since dropped. Its
    # rows are computed again; the table written has the schema's columns and dtypes.
    exp = tmp_path / "e.toml"
    exp.write_text(f'traces = ["{T}"]\npolicies = ["cflru"]\nsizes = [40]\n')
    out = tmp_path / "s.parquet"
    first = sweep.run(sweep.load(exp), out, jobs=1)
    old = schema.untyped(first).drop(columns=["size"]).assign(fcsim_revision="older", gone_column=1.5)
    old.to_parquet(out)
    again = sweep.run(sweep.load(exp), out, jobs=1)
    assert list(again.columns) == [c.name for c in schema.SWEEP] and list(again["size"]) == ["40"]
    assert again["hits"].equals(first["hits"]) and str(again["param_window"].dtype) == "Float64"
    assert list(pd.read_parquet(out).columns) == list(again.columns)
