"""`fcsim mrc --method exact`: the curve equals LRU simulated at any size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import TRACES


@pytest.mark.parametrize(
    "trace",
    [
        str(TRACES / "arc_OLTP.lis.zst"),
        str(TRACES / "cloudphysics_vscsi_2h.csv.gz"),
        "synth:zipf,requests=300000,pages=50000",
    ],
)
def test_mrc_equals_lru(trace: str) -> None:
    curve = fcsim.mrc(trace)
    ws = fcsim.trace_info(trace)["unique_pages"]
    assert curve.attrs["cold"] == ws
    for pages in [1, 7, 100, ws // 100, ws // 20, ws // 10, ws // 3, ws]:
        row = fcsim.simulate(trace, policy="lru", size=max(1, pages), working_set=ws)
        assert curve.attrs["accesses"] == row.accesses
        assert fcsim.mrc_at(curve, max(1, pages)) == pytest.approx(1 - row.hit_ratio, abs=1e-12)


def test_mrc_cli_writes_table_and_plot(tmp_path: Path) -> None:
    out, png = tmp_path / "mrc.parquet", tmp_path / "mrc.png"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fcsim.cli",
            "mrc",
            str(TRACES / "arc_P3.lis.zst"),
            "--out",
            str(out),
            "--plot",
            str(png),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "unique pages" in r.stdout and "10%" in r.stdout
    df = pd.read_parquet(out)
    assert list(df.columns) == ["size_pages", "misses", "miss_ratio", "hit_ratio"]
    assert df["misses"].is_monotonic_decreasing and df["size_pages"].is_monotonic_increasing
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_mrc_rejects_unknown_method() -> None:
    with pytest.raises(fcsim.ConfigError, match="unknown MRC method"):
        fcsim.mrc(TRACES / "arc_P3.lis.zst", method="shards")
