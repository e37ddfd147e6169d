"""Dask from Python (issue 45, item 5): ``run_grid(..., scheduler=...)``, an experiment built
from a dict, and a sweep that releases each point's future once its row is saved, so that a
worker lost mid-sweep costs only the points it had in flight."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import fcsim
from fcsim import sweep

distributed = pytest.importorskip("distributed")

TRACE = "synth:zipf,alpha=0.9,requests=20000,pages=4000,write=0.3,seed=4"


def test_run_grid_on_a_dask_cluster_equals_the_local_run() -> None:
    kw: dict[str, Any] = {"seeds": 2, "grid": {"sim.time_scale": [1, 2]}}
    local = fcsim.run_grid(TRACE, ["lru", "fifo"], ["1%", 200], **kw)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        by_address = fcsim.run_grid(
            TRACE,
            ["lru", "fifo"],
            ["1%", 200],
            seeds=2,
            grid={"sim.time_scale": [1, 2]},
            scheduler=c.scheduler_address,
        )
        with distributed.Client(c) as client:
            seen: list[float] = []
            by_client = fcsim.run(TRACE, "arc", "2%", epoch=5000, scheduler=client, progress=seen.append)
            assert client.status == "running"  # a client given is left open
    cols = [
        "trace",
        "policy",
        "size",
        "size_pages",
        "seed_index",
        "axis_sim_time_scale",
        "hits",
        "resp_mean_us",
    ]
    pd.testing.assert_frame_equal(by_address[cols], local[cols])
    assert len(by_client.epochs) == 4 and seen[-1] == pytest.approx(1.0)
    with pytest.raises(fcsim.ConfigError, match="scheduler=5: expected a Dask scheduler's address"):
        fcsim.run_grid(TRACE, "lru", "1%", scheduler=5)


def test_an_experiment_built_from_a_dict_is_the_file_s(tmp_path: Path) -> None:
    doc: dict[str, Any] = {
        "traces": [TRACE],
        "policies": ["lru", "cflru"],
        "sizes": ["1%", "5%"],
        "set": {"sim.time_scale": 1},
        "grid": [{"cflru.window": [0.1, 0.5]}],
    }
    toml = tmp_path / "e.toml"
    toml.write_text(
        f'traces = ["{TRACE}"]\npolicies = ["lru", "cflru"]\nsizes = ["1%", "5%"]\n'
        '[set]\n"sim.time_scale" = 1\n[[grid]]\n"cflru.window" = [0.1, 0.5]\n'
    )
    built = sweep.from_dict(doc, name="e")
    assert [sweep.point_key(p) for p in built.points()] == [
        sweep.point_key(p) for p in sweep.load(toml).points()
    ]
    df = sweep.run(built, tmp_path / "d.parquet", jobs=2)
    assert len(df) == 8 and df["param_window"].notna().sum() == 4
    with pytest.raises(fcsim.ConfigError, match="e: unknown key"):
        sweep.from_dict({**doc, "colour": 1}, name="e")
    with pytest.raises(fcsim.ConfigError, match="expected a dict"):
        sweep.from_dict([doc])  # type: ignore[arg-type]


@pytest.mark.serial
def test_a_killed_dask_worker_costs_only_the_points_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: the sweep held every future to the end, so when a worker was killed the
    scheduler recomputed 57 points whose rows were already saved. Here a worker is killed
    (SIGKILL; its nanny starts another) once a third of the points are saved: every point is
    saved once, none is lost, and none whose row was back before the kill ran again (the
    scheduler's task stream counts every run of every task). A run on this machine: 24 points
    saved, 28 runs, 8 saved before the kill, 4 recomputed (none of them saved before), 2.7 s."""
    exp = sweep.from_dict(
        {
            "traces": ["synth:zipf,alpha=0.9,requests=150000,pages=30000,write=0.3,seed=4"],
            "policies": ["lru", "fifo", "arc", "sieve"],
            "sizes": ["1%", "2%", "3%", "5%", "8%", "10%"],
        },
        name="killed",
    )
    fetched: dict[str, float] = {}  # the key of each point's future, when its row came back
    result = distributed.Future.result

    def noted(self: Any, timeout: Any = None) -> Any:
        out = result(self, timeout)
        fetched.setdefault(self.key, time.time())
        return out

    monkeypatch.setattr(distributed.Future, "result", noted)
    out = tmp_path / "k.parquet"
    killed: list[float] = []
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as c,
        distributed.Client(c) as client,
    ):
        pids = list(client.run(os.getpid).values())

        def kill(done: float) -> None:
            if done >= 1 / 3 and not killed:
                killed.append(time.time())
                os.kill(pids[0], signal.SIGKILL)

        t = time.monotonic()
        with distributed.get_task_stream(client) as stream:
            df = sweep.run(exp, out, scheduler=client, progress=kill)
        took = time.monotonic() - t
    runs: dict[str, int] = {}
    for task in stream.data:
        runs[task["key"]] = runs.get(task["key"], 0) + 1
    saved_before = [k for k, when in fetched.items() if when < killed[0]]
    again = {k: n for k, n in runs.items() if n > 1}
    print(
        f"{len(df)} points saved; {len(runs)} computed, {sum(runs.values())} runs; "
        f"{len(saved_before)} saved before the kill, recomputed after the kill: {len(again)} "
        f"(in flight), of them saved before: {sum(1 for k in again if k in saved_before)}; {took:.1f} s"
    )
    assert killed and len(df) == 24 and df["point"].is_unique  # none lost, none twice
    assert set(df["policy"]) == {"lru", "fifo", "arc", "sieve"}
    assert 8 <= len(saved_before) < 24
    assert all(runs.get(k) == 1 for k in saved_before), {k: runs.get(k) for k in saved_before}
    # Recomputed: only points whose rows were not back yet (the killed worker's running point,
    # and those it had finished whose results were not fetched).
    assert not set(again) & set(saved_before) and len(again) <= 24 - len(saved_before)
    assert not (tmp_path / "k.parquet.journal").exists()
