"""Experiment files and sweeps: a grid of simulations run on a local process pool, written to one
Parquet table, resumable.

An experiment is a TOML file::

    name = "larc"
    description = "..."
    traces = ["arc_OLTP.lis.zst", "synth:zipf,alpha=0.9"]   # relative to the file or --traces
    policies = ["lru", "larc"]
    sizes = ["1%", "5%", "10%"]
    devices = ["gasa"]            # optional; "" or omitted: no device
    [set]                         # --set overrides for every point
    "stack.kind" = "ssd-cache"
    [[grid]]                      # optional: more axes, each point of every entry
    "device.op" = [0.07, 0.28]

The output table holds one result row per point, plus ``point`` (the point's key). Rows are
written (atomically) as points finish; running the same sweep again skips the points already
in the table, so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import itertools
import json
import os
import tomllib
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fcsim import api, output
from fcsim._core import ConfigError

KEYS = {"name", "description", "traces", "policies", "sizes", "devices", "set", "grid"}


@dataclass
class Experiment:
    name: str
    traces: list[str]
    policies: list[str]
    sizes: list[str]
    devices: list[str | None]
    sets: dict[str, Any] = field(default_factory=dict)
    grid: list[dict[str, Any]] = field(default_factory=list)
    description: str = ""

    def points(self) -> list[dict[str, Any]]:
        """Every point of the grid, in order: trace, policy, size, device, extra --set axes."""
        axes: list[dict[str, Any]] = [{}]
        for entry in self.grid:
            keys = list(entry)
            axes = [
                {**a, **dict(zip(keys, combo, strict=True))}
                for a in axes
                for combo in itertools.product(*(entry[k] for k in keys))
            ]
        return [
            {"trace": t, "policy": p, "size": s, "device": d, "set": {**self.sets, **a}}
            for t in self.traces
            for p in self.policies
            for s in self.sizes
            for d in self.devices
            for a in axes
        ]


def _list(doc: dict[str, Any], key: str, path: Path) -> list[str]:
    v = doc.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, str | int | float) for x in v):
        raise ConfigError(f"{path}: '{key}' must be a non-empty list")
    return [str(x) for x in v]


def load(path: str | os.PathLike[str], traces_dir: str | os.PathLike[str] | None = None) -> Experiment:
    """Reads an experiment file. Trace paths are relative to ``traces_dir`` if given, else to the
    file's directory; ``synth:`` specs are kept as they are."""
    p = Path(path)
    try:
        doc = tomllib.loads(p.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such experiment file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None
    unknown = set(doc) - KEYS
    if unknown:
        raise ConfigError(
            f"{p}: unknown key(s) {', '.join(sorted(unknown))}; expected {', '.join(sorted(KEYS))}"
        )
    base = Path(traces_dir) if traces_dir is not None else p.parent
    traces = [t if t.startswith("synth:") else str(base / t) for t in _list(doc, "traces", p)]
    devices: list[str | None] = [d or None for d in doc.get("devices", [""])]
    grid = doc.get("grid", [])
    if not isinstance(grid, list) or not all(
        isinstance(g, dict) and all(isinstance(v, list) and v for v in g.values()) for g in grid
    ):
        raise ConfigError(f"{p}: each [[grid]] entry maps --set keys to non-empty lists of values")
    return Experiment(
        name=str(doc.get("name", p.stem)),
        description=str(doc.get("description", "")),
        traces=traces,
        policies=_list(doc, "policies", p),
        sizes=_list(doc, "sizes", p),
        devices=devices,
        sets=dict(doc.get("set", {})),
        grid=grid,
    )


def point_key(pt: dict[str, Any]) -> str:
    """A point's identity in the table: its trace by file name (the directory may move)."""
    trace = pt["trace"] if pt["trace"].startswith("synth:") else os.path.basename(pt["trace"])
    return json.dumps({**pt, "trace": trace}, sort_keys=True)


def _run_point(pt: dict[str, Any]) -> dict[str, Any]:
    row = api.simulate(pt["trace"], pt["policy"], pt["size"], device=pt["device"], set=pt["set"])
    return {**row, "point": point_key(pt)}


def run(
    exp: Experiment,
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """Runs every point of ``exp`` not already in ``out`` (Parquet); returns the whole table."""
    out = Path(out)
    output.check_path(out)
    points = exp.points()
    for pt in points:  # fail on a bad option before the first run
        api.Sets(pt["set"])
    done: list[dict[str, Any]] = []
    if out.exists():
        prev = pd.read_parquet(out)
        if "point" not in prev.columns:
            raise ConfigError(f"{out}: exists and is not a sweep table (no 'point' column)")
        done = prev.to_dict("records")
    have = {r["point"] for r in done}
    todo = [pt for pt in points if point_key(pt) not in have]
    total = len(points)

    def report() -> None:
        if progress is not None:
            progress(len(have) / total if total else 1.0)

    report()
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    rows = done
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future[dict[str, Any]]] = {pool.submit(_run_point, pt) for pt in todo}
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    row = f.result()
                    rows.append(row)
                    have.add(row["point"])
                output.write_table(pd.DataFrame(rows), out)
                report()
        except BaseException:
            for f in pending:
                f.cancel()
            raise
    order = {point_key(pt): i for i, pt in enumerate(points)}
    df = pd.DataFrame(rows)
    df = df[df["point"].isin(order)].sort_values("point", key=lambda s: s.map(order)).reset_index(drop=True)
    return df


def sweep(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    traces_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """Loads the experiment at ``path`` and runs it into ``out`` (see :func:`run`)."""
    return run(load(path, traces_dir), out, jobs=jobs, progress=progress)


def packaged(name: str) -> Path:
    """The experiment file shipped with fcsim for a paper."""
    p = Path(__file__).parent / "experiments" / f"{name}.toml"
    if not p.exists():
        names = sorted(x.stem for x in (Path(__file__).parent / "experiments").glob("*.toml"))
        raise ConfigError(f"no experiment '{name}'; shipped: {', '.join(names)}")
    return p
