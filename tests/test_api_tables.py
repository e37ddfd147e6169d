"""The API as a pandas user meets it (issue 45). Every table fcsim returns is a plain DataFrame:
no DataFrame in ``attrs``, only small JSON-safe provenance, so ``pd.concat``, ``merge``,
``groupby`` and the Parquet, Feather and CSV writers work on each, as they do on any DataFrame.
Inputs are taken as a numpy user writes them, and a grid's bad inputs are named together."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
import typing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fcsim
from conftest import FIXTURES, TRACES
from fcsim.row import Row

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


# --- Inputs as a numpy user writes them (issue 45, item 4) -----------------------------------


def test_numpy_integers_and_arrays_are_sizes_and_options() -> None:
    sizes = np.logspace(1, 2, 3).astype(int)
    df = fcsim.run_grid(T, "lru", sizes)
    assert list(df["size_pages"]) == [10, 31, 100]
    assert fcsim.simulate(T, "lru", np.int64(31)).hits == df["hits"].iloc[1]
    # Policies from a numpy array, seeds, jobs and page size as numpy integers, a grid axis of
    # numpy values.
    df = fcsim.run_grid(
        T,
        np.array(["lru", "cflru"]),
        pd.Series([10, 100]),
        seeds=np.int64(1),
        jobs=np.int32(1),
        page_size=np.int64(4096),
        grid={"cflru.window": np.array([0.25, 0.5])},
    )
    assert len(df) == 8 and set(df["axis_cflru_window"]) == {0.25, 0.5}


def test_a_grids_bad_inputs_are_named_together_in_one_config_error() -> None:
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.run_grid(T, ["lur"], ["ten"])
    assert str(e.value).splitlines() == [
        f"unknown policy 'lur'; registered: {', '.join(sorted(p['name'] for p in fcsim.policies()))}",
        "cache size 'ten': expected pages (1000), bytes (64MiB, 4KiB, 1GB) or a percent of the "
        "working set (5%)",
    ]
    # Two missing traces, with percent sizes or pages: both named, one exception type, as for one.
    for size in ("5%", 10):
        with pytest.raises(fcsim.ConfigError) as e:
            fcsim.run_grid(["missing1.csv", "missing2.csv"], "lru", size)
        assert str(e.value).splitlines() == ["missing1.csv: no such file", "missing2.csv: no such file"]
    with pytest.raises(fcsim.ConfigError, match=r"^missing1\.csv: no such file$"):
        fcsim.run_grid("missing1.csv", "lru", "5%")
    # Every kind at once: traces, policies, sizes, devices, options; each named once.
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.run_grid(
            ["missing1.csv", T, "missing1.csv"], ["lur", "lru"], ["ten", 2.5, True], device="ssd9", jobs=0
        )
    lines = str(e.value).splitlines()
    assert [line.split(":")[0].split(";")[0] for line in lines] == [
        "jobs=0",
        "missing1.csv",
        "unknown policy 'lur'",
        "cache size 'ten'",
        "size=2.5",
        "size=True",
        "unknown device preset 'ssd9'",
    ]
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.run_grid(T, [], [])
    assert str(e.value).splitlines() == ["expected at least one policy", "expected at least one size"]


# --- Typed rows (issue 45, item 3) -----------------------------------------------------------

# A row of each kind of run: no device (timed and not), over a device (timed, untimed, closed
# loop), the device alone, a flash cache with a DRAM tier, split SSDs, the offline bounds.
SYNTH = "synth:zipf,alpha=0.9,requests=20000,pages=20000,write=0.3,seed=1"
LIS = str(FIXTURES / "arc_p2.lis")
DISKMON = str(TRACES / "diskmon_sys1.trace.gz")
SMALL = {"device.channels": 1, "device.chips_per_channel": 2, "device.blocks": 64}
SPLIT = {
    "stack.kind": "ssd-cache",
    "stack.write": "back",
    "device.channels": 1,
    "device.chips_per_channel": 2,
}
KINDS = [
    (SYNTH, "lru", "10%", None, {"sim.warmup": 1000}),
    (LIS, "lru", "10%", None, {}),
    (SYNTH, "lru", "10%", "gasa", SMALL),
    (LIS, "lru", "10%", "gasa", SMALL),
    (LIS, "lru", "10%", "gasa", {**SMALL, "sim.queue_depth": 4}),
    (SYNTH, "none", "10%", "gasa", SMALL),
    (
        SYNTH,
        "lru",
        "10%",
        "gasa",
        {**SMALL, "stack.kind": "ssd-cache", "stack.write": "back", "stack.dram": 0.1},
    ),
    (LIS, "lru", "10%", "gasa", {**SMALL, "stack.kind": "ssd-cache"}),
    (SYNTH, "lru", "80%", "dynamic", {**SPLIT, "stack.split": "dynamic", "stack.window": 0.25}),
    (SYNTH, "lru", "80%", "dynamic", {**SPLIT, "stack.split": 0.2}),
    *[
        (DISKMON, p, "5%", None, {"device.pages_per_block": 32, **extra})
        for p, extra in [("m", {}), ("m+", {}), ("m_n", {}), ("c", {}), ("c_t", {"c_t.quota": "50%"})]
    ],
]
ECHO = re.compile(r"^(param|device|stack|admit)_")


def fits(value: object, hint: object) -> bool:
    """Whether ``value`` is of the declared type ``hint`` (``int``, ``float | None``,
    ``list[float]``)."""
    kinds = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return any(
        value is None if k is type(None) else isinstance(value, typing.get_origin(k) or k) for k in kinds
    )


def test_a_rows_declared_columns_are_its_columns_with_their_types() -> None:
    declared = typing.get_type_hints(Row)
    seen: set[str] = set()
    for trace, policy, size, device, sets in KINDS:
        row = fcsim.simulate(trace, policy, size, device=device, set=sets)
        for name, value in row.items():
            if name in declared:
                assert fits(value, declared[name]), (name, value, declared[name])
                seen.add(name)
            else:  # read by key: a configuration echoed, or a name that is not an identifier
                assert ECHO.match(name) or not name.isidentifier(), name
    assert seen == set(declared), sorted(set(declared) - seen)


def test_a_typo_is_an_error_to_a_type_checker_and_at_run_time(tmp_path: Path) -> None:
    row = fcsim.simulate(T, "lru", 10)
    with pytest.raises(
        AttributeError, match=r"^the row has no column 'hit_ratoi'; did you mean 'hit_ratio'\?$"
    ):
        row.hit_ratoi  # noqa: B018
    (tmp_path / "use.py").write_text(
        "import fcsim\n"
        "row = fcsim.simulate('t.csv', 'lru', 10)\n"
        "reveal_type(row.hit_ratio)\n"
        "reveal_type(row.resp_mean_us)\n"
        "row.hit_ratoi\n"
    )
    # fcsim's own types, as a user's checker reads them; the libraries under fcsim (pandas,
    # numpy, pyarrow, matplotlib, dask) are not followed: no type asked about here is theirs,
    # and reading their stubs was 13 of the check's 18 s.
    libraries = ",".join(
        f"{m}.*" for m in ("pandas", "numpy", "pyarrow", "matplotlib", "dask", "distributed")
    )
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nfollow_imports = silent\nignore_missing_imports = True\n"
        f"[mypy-{libraries}]\nfollow_imports = skip\n"
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            "use.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.stdout.splitlines() == [
        'use.py:3: note: Revealed type is "float"',
        'use.py:4: note: Revealed type is "float | None"',
        'use.py:5: error: "Result" has no attribute "hit_ratoi"  [attr-defined]',
    ], r.stdout + r.stderr
