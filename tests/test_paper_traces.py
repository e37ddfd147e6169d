"""The papers' own traces in `fcsim reproduce` (issue 15): an experiment's `if_cached` part runs
the catalogue volumes found in the trace cache, and the report keeps them apart (a report of
their own under `paper-traces/`, and a closing section naming what was used and what is absent).
The cache here is a temporary directory holding small stand-ins under the volumes' file names."""

from __future__ import annotations

import gzip
import random
import shutil
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from fcsim import reports, schema, sweep

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "data" / "traces"


def spc(path: Path, lines: int, seed: int) -> None:
    """An SPC trace (ASU, LBA, bytes, op, seconds) of a small, skewed working set."""
    rng = random.Random(seed)
    rows = []
    for i in range(lines):
        lba = int(rng.paretovariate(1.2) * 64) % 20_000 * 8
        rows.append(
            f"{rng.randrange(3)},{lba},{rng.choice((512, 4096, 8192))},{rng.choice('rrrw')},{i * 0.001:.6f}"
        )
    path.write_text("\n".join(rows) + "\n")


def fiu(path: Path, lines: int, seed: int) -> None:
    """An FIU trace (ns, pid, process, sector, sectors, op, major, minor, md5)."""
    rng = random.Random(seed)
    rows = []
    for i in range(lines):
        sector = int(rng.paretovariate(1.2) * 64) % 20_000 * 8
        rows.append(f"{1_000_000 * i} 1 proc {sector} 8 {rng.choice('RRW')} 6 0 {i:032x}")
    path.write_text("\n".join(rows) + "\n")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    (d / "umass").mkdir(parents=True)
    (d / "msr").mkdir()
    (d / "fiu").mkdir()
    spc(d / "umass" / "financial1.spc", 3000, 1)
    with (
        (TRACES / "msr_hm_0_excerpt1000.csv").open("rb") as f,
        gzip.open(d / "msr" / "web_0.csv.gz", "wb") as g,
    ):
        shutil.copyfileobj(f, g)
    fiu(d / "fiu" / "homes.blkparse", 3000, 2)
    monkeypatch.setenv("FCSIM_TRACE_DIR", str(d))
    return d


def test_if_cached_parts_keep_the_cached_and_name_the_absent(cache: Path) -> None:
    exp = sweep.load(sweep.packaged("lcr"), TRACES)
    assert [t.given for t in exp.cached] == ["msr/web_0"]
    assert exp.absent == ["msr/ts_0", "msr/proj_0", "msr/wdev_2", "umass/financial2"]
    web = [pt for pt in exp.points() if pt["trace"].endswith("web_0.csv.gz")]
    assert len(web) == 4 and web[0]["trace"] == str(cache / "msr" / "web_0.csv.gz")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[[part]]\nif_cached = true\ntraces = ["a.csv"]\n', "'a.csv' is not a catalogue name"),
        ('[[part]]\nif_cached = "yes"\ntraces = ["msr/web_0"]\n', "'if_cached' must be true or false"),
        ('if_cached = true\ntraces = ["msr/web_0"]\n', "'if_cached' belongs in a [[part]]"),
    ],
)
def test_if_cached_misuse(tmp_path: Path, cache: Path, text: str, needle: str) -> None:
    exp = tmp_path / "e.toml"
    exp.write_text('policies = ["lru"]\nsizes = ["10"]\n' + text)
    with pytest.raises(fcsim.ConfigError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        sweep.load(exp)


def test_reproduce_reports_the_papers_own_traces_apart(tmp_path: Path, cache: Path) -> None:
    only = ["msr_hm_0_excerpt1000.csv", "financial1.spc"]
    summary = reports.reproduce("gasa", tmp_path, traces_dir=TRACES, jobs=2, only=only).read_text()
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert set(df["trace"]) == {"msr_hm_0_excerpt1000.csv", "financial1.spc"}
    own = (tmp_path / "paper-traces" / "summary.md").read_text()
    # Each report holds its own traces only.
    assert "| financial1.spc |" in own and "| msr_hm_0_excerpt1000.csv |" not in own
    main = summary.split("# The paper's own traces")[0]
    assert "| msr_hm_0_excerpt1000.csv |" in main and "| financial1.spc |" not in main
    tail = summary.split("# The paper's own traces")[1]
    assert "Used: umass/financial1" in tail and "paper-traces/summary.md" in tail
    assert "Absent: umass/financial2: no mirror is known; place the file at `umass/financial2.spc`" in tail


def test_reproduce_without_the_papers_traces_says_how_to_get_them(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FCSIM_TRACE_DIR", str(tmp_path / "empty"))
    summary = reports.reproduce(
        "gasa", tmp_path, traces_dir=TRACES, jobs=2, only=["msr_hm_0_excerpt1000.csv"]
    )
    tail = summary.read_text().split("# The paper's own traces")[1]
    assert "Used" not in tail and "Absent: umass/financial1: no mirror is known" in tail
    assert not (tmp_path / "paper-traces").exists()
    # A volume with a mirror is named with its fetch command.
    assert "- Absent: msr/web_0: `fcsim trace fetch msr/web_0`." in reports._own_section([], ["msr/web_0"])


def _own_rows(paper: str, keep, trace: str, own_name: str) -> pd.DataFrame:
    """Rows of results/PAPER of one shipped trace, in the settings the experiment's if_cached part
    runs the paper's own traces with, renamed to one of those traces: what the report on the
    paper's own traces gets."""
    # As `fcsim reproduce` hands them to the reports (the tables as before fcsim.schema).
    df = schema.untyped(pd.read_parquet(ROOT / "results" / paper / "results.parquet"))
    rows = df[(df["trace"] == trace) & keep(df)].copy()
    assert not rows.empty
    rows["trace"] = own_name
    rows["point"] = rows["point"].str.replace(trace, own_name, regex=False)
    return rows


def _window_default(df: pd.DataFrame) -> pd.Series:
    return df["param_window"].isna() | (df["param_window"].astype(str) == "0.1")


OWN_CASES = {
    "gasa": (lambda d: d["trace"] == d["trace"], "msr_hm_0_excerpt1000.csv", "financial1.spc"),
    "lcr": (
        lambda d: (
            (d["time_scale"] == 1)
            & (d["queue_depth"] == 0)
            & (d["device_steady"] == "0")
            & (d["size_pages"] == 1024)
        ),
        "msr_hm_0_excerpt1000.csv",
        "web_0.csv.gz",
    ),
    "dynamic": (
        lambda d: d["stack_window"].isna() | (d["stack_window"].astype(float) == 2.0),
        "cloudphysics_vscsi_2h.csv.gz",
        "financial1.spc",
    ),
    "larc": (lambda d: d["stack_write"] == "around", "mqsim_tpcc-small.trace.gz", "homes.blkparse"),
    "offline": (
        lambda d: d["device_pages_per_block"].astype(str) == "512",
        "cloudphysics_vscsi_2h.csv.gz",
        "prn_0.csv.gz",
    ),
}


@pytest.mark.parametrize("paper", sorted(OWN_CASES))
def test_each_report_on_the_papers_own_traces_only(tmp_path: Path, paper: str) -> None:
    keep, trace, own_name = OWN_CASES[paper]
    rows = _own_rows(paper, keep, trace, own_name)
    summary = reports.REPORTS[paper](rows, tmp_path, "fcsim reproduce " + paper, own=True).read_text()
    assert (
        f"**the paper's own**, read from the trace cache (`fcsim trace catalogue`): `{own_name}`" in summary
    )
    assert "stand in" not in summary and trace not in summary
