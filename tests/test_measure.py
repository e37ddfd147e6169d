"""Warm-up (``sim.warmup``) and the per-epoch table (``epoch=``, ``--epoch``) through the API and
the CLI: the epochs add up to the row, the table is written beside the rows through the same
guard, and times are refused where a run has none."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import FIXTURES, TRACES, cli

MSR = TRACES / "msr_hm_0_excerpt1000.csv"
SUMMED = ["requests", "accesses", "reads", "writes", "hits", "read_hits", "write_hits", "dirty_evictions"]
SUMMED += ["backing_reads", "backing_writes", "flash_page_writes", "gc_page_writes", "erasures"]
FCSIM = [sys.executable, "-m", "fcsim.cli"]


def assert_adds_up(row: fcsim.Result) -> pd.DataFrame:
    e = row.epochs
    assert e is not None and len(e) > 1
    for c in SUMMED:
        assert int(e[c].sum()) == row[c], c
    assert int((e["accesses"] - e["hits"]).sum()) == int(e["misses"].sum())
    assert (e["trace"] == row.trace).all() and (e["policy"] == row.policy).all()
    assert (e["size_pages"] == row.size_pages).all() and list(e["epoch"]) == list(range(len(e)))
    # The devices' busy time adds up, and the queues weighted by the epochs' spans (each its
    # length and its drain: until the work submitted by its end completed) give the row's mean
    # over its span (first to last arrival, and the drain after it): Little's law both ways,
    # the ops' summed sojourns.
    span = (e["end_s"] - e["start_s"]).sum()
    for dev in ("flash", "disk"):
        if row.get(f"{dev}_queue_mean") is None:
            continue
        if f"{dev}_busy_s" in row:
            assert e[f"{dev}_busy_s"].sum() == pytest.approx(row[f"{dev}_busy_s"], rel=1e-9)
        weighted = (e[f"{dev}_queue_mean"] * (e["end_s"] - e["start_s"] + e["drain_s"])).sum()
        whole = row["duration_s"] + row["drain_s"]
        assert weighted / whole == pytest.approx(row[f"{dev}_queue_mean"], rel=1e-9), (dev, span)
        # Each epoch's busiest second, of its busiest server: the most of them is the row's.
        assert e[f"{dev}_util_peak_1s"].max() == pytest.approx(row[f"{dev}_util_peak_1s"], rel=1e-12), dev
    return e


@pytest.mark.parametrize(
    "sets",
    [
        {},
        {"stack.kind": "ssd-cache"},
        {"stack.kind": "ssd-cache", "stack.write": "back", "stack.dram": 0.2},
        {"device.capacity": "16MiB", "device.fill": 1, "device.steady": 1},
    ],
)
def test_epochs_add_up_to_the_row(sets: dict[str, object]) -> None:
    row = fcsim.simulate(MSR, "lru", "10%", device="gasa", set=sets, epoch="10s")
    e = assert_adds_up(row)
    assert (e["end_s"] - e["start_s"] == 10).all() and e["start_s"].iloc[0] == 0
    assert e["resp_mean_us"].notna().any() and e["resp_p99_us"].notna().any()
    # Without epoch= there is no table.
    assert fcsim.simulate(MSR, "lru", "10%", device="gasa", set=sets).epochs is None


def test_warmup_through_the_api_and_a_grid_of_epoch_tables() -> None:
    row = fcsim.simulate(MSR, "lru", "10%", device="gasa", set={"sim.warmup": "60s"})
    assert (row.warmup, row.warmup_s) == ("60s", 60.0) and 0 < row.warmup_requests < 1000
    assert row.requests == 1000 - row.warmup_requests
    # The warm-up's counts are those of the same run's epochs after the first 60 s.
    tail = fcsim.simulate(MSR, "lru", "10%", device="gasa", epoch="60s").epochs.iloc[1:]
    for c in SUMMED:
        assert int(tail[c].sum()) == row[c], c
    plain = fcsim.simulate(MSR, "lru", "10%", device="gasa")
    assert plain.warmup is None and plain.warmup_requests is None and plain.warmup_s is None
    result = fcsim.run(MSR, ["lru", "fifo"], ["1%", "10%"], device="gasa", epoch=250, jobs=2)
    df, ep = result.rows, result.epochs
    assert ep is not None and not df.attrs
    assert len(ep) == 4 * 4 and set(ep["policy"]) == {"lru", "fifo"}
    for (policy, size), g in ep.groupby(["policy", "size_pages"]):
        r = df[(df["policy"] == policy) & (df["size_pages"] == size)].iloc[0]
        assert (
            int(g["hits"].sum()) == r["hits"] and int(g["flash_page_writes"].sum()) == r["flash_page_writes"]
        )


def test_each_epoch_names_its_runs_admission_and_axes() -> None:
    # Two admissions by two write modes (an axis): eight runs of one policy, size and device,
    # whose epochs were alike but for their numbers.
    ssd = {"stack.kind": "ssd-cache"}
    g = fcsim.run(
        MSR,
        "lru",
        "10%",
        set=ssd,
        admit=["random", "all"],
        grid={"stack.write": ["around", "back"]},
        epoch=500,
    )
    ep = g.epochs
    assert ep is not None and len(ep) == 4 * 2
    runs = ep.groupby(["admission", "axis_stack_write"])
    assert runs.ngroups == 4 and all(list(e["epoch"]) == [0, 1] for _, e in runs)
    for (admission, write), e in runs:
        row = g.rows[(g.rows["admission"] == admission) & (g.rows["axis_stack_write"] == write)].iloc[0]
        assert int(e["hits"].sum()) == row["hits"]
    r = cli(
        "run",
        MSR,
        "--policy",
        "lru",
        "--size",
        "10%",
        "--set",
        "stack.kind=ssd-cache",
        "--admit",
        "random,all",
        "--set",
        "stack.write=around,back",
        "--epoch",
        "500",
    )
    assert r.returncode == 0, r.stderr
    epochs = r.stdout.split("\n\n")[1].splitlines()
    assert epochs[0].split()[:5] == ["policy", "admission", "size_pages", "device", "axis_stack_write"]
    assert len(epochs) == 1 + 8
    # A flash cache's measure, the read hit ratio, is each epoch's too, and printed before hit_ratio.
    head = epochs[0].split()
    assert head.index("read_hit_ratio") + 1 == head.index("hit_ratio")
    assert (ep["read_hit_ratio"] - ep["read_hits"] / ep["reads"]).abs().max() < 1e-12


def test_full_warmup_on_a_trace_that_fills_the_cache() -> None:
    row = fcsim.simulate(MSR, "lru", "1%", device="gasa", set={"sim.warmup": "full"})
    assert row.warmup == "full" and 0 < row.warmup_requests < 100
    assert row.requests == 1000 - row.warmup_requests
    # The cache of 19 pages (filled by 9 multi-page requests) was full when the warm-up ended:
    # every measured insertion evicted a page.
    assert row.insertions == row.evictions
    with pytest.raises(fcsim.ConfigError, match=r"sim.warmup=full: the cache never filled"):
        fcsim.simulate(MSR, "lru", "200%", set={"sim.warmup": "full"})
    with pytest.raises(fcsim.ConfigError, match=r"sim.warmup=1000: the trace has 1000 requests"):
        fcsim.simulate(MSR, "lru", "5%", set={"sim.warmup": 1000})


def test_untimed_traces_take_counts_and_refuse_times() -> None:
    lis = TRACES / "arc_P3.lis.zst"
    row = fcsim.simulate(lis, "lru", "5%", set={"stack.kind": "ssd-cache"}, device="gasa", epoch=100000)
    e = assert_adds_up(row)
    assert e["start_s"].isna().all() and e["resp_mean_us"].isna().all()
    with pytest.raises(fcsim.ConfigError, match=r"epoch=60s: the trace has no timestamps"):
        fcsim.simulate(lis, "lru", "5%", epoch="60s")
    with pytest.raises(fcsim.ConfigError, match=r"sim.warmup=60s: the trace has no timestamps"):
        fcsim.check(lis, "lru", "5%", set={"sim.warmup": "60s"})
    with pytest.raises(fcsim.ConfigError, match="expected a number of requests"):
        fcsim.check(MSR, "lru", "5%", epoch="soon")
    with pytest.raises(fcsim.ConfigError, match="epoch= "):
        fcsim.check(MSR, "lru", "5%", set={"sim.epoch": "60s"})


def test_cli_writes_the_epochs_beside_the_rows_and_plots_them(tmp_path: Path) -> None:
    out = tmp_path / "R.parquet"
    png = tmp_path / "R.png"
    r = cli(
        "run",
        MSR,
        "--policy",
        "lru,gasa",
        "--size",
        "10%",
        "--device",
        "gasa",
        "--epoch",
        "20s",
        "--out",
        out,
        "--plot",
        png,
        "-q",
    )
    assert r.returncode == 0, r.stderr
    rows, epochs = pd.read_parquet(out), pd.read_parquet(tmp_path / "R.epochs.parquet")
    assert len(rows) == 2 and set(epochs["policy"]) == {"lru", "gasa"}
    assert epochs.groupby("policy")["hits"].sum().to_dict() == rows.set_index("policy")["hits"].to_dict()
    assert png.stat().st_size > 0 and (tmp_path / "R.epochs.png").stat().st_size > 10_000
    # CSV beside CSV; without --out the table is printed under the rows.
    r = cli(
        "run", MSR, "--policy", "lru", "--size", "10%", "--epoch", "500", "--out", tmp_path / "R.csv", "-q"
    )
    assert r.returncode == 0, r.stderr
    assert len(pd.read_csv(tmp_path / "R.epochs.csv")) == 2
    r = cli("run", MSR, "--policy", "lru", "--size", "10%", "--device", "gasa", "--epoch", "500")
    assert r.returncode == 0, r.stderr
    assert "start_s" in r.stdout and r.stdout.count("\n") >= 6
    # A response is printed beside the load it was measured under.
    header = next(line for line in r.stdout.splitlines() if "resp_mean_us" in line and "epoch" in line)
    assert "flash_util_peak_1s" in header and "flash_queue_mean" in header
    # The table's path passes the guard before any work: the trace itself is refused.
    victim = tmp_path / "T.epochs.csv"
    victim.write_text(MSR.read_text())
    r = cli("run", victim, "--policy", "lru", "--size", "10%", "--epoch", "500", "--out", tmp_path / "T.csv")
    assert r.returncode == 2 and "is the input" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "T.csv").exists()


def test_cli_refuses_times_on_untimed_traces() -> None:
    for args in (["--epoch", "60s"], ["--set", "sim.warmup=60s"]):
        r = cli("run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "20", *args)
        assert r.returncode == 2 and "no timestamps" in r.stderr and "Traceback" not in r.stderr
