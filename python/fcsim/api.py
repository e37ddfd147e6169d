"""The Python API: one run, a grid of runs, trace statistics and conversion.

Options mirror the CLI. ``set`` takes the CLI's ``--set KEY=VALUE`` overrides as a dict:
``trace.*`` keys go to the trace reader, ``device.*`` keys to the flash device, ``<policy>.*``
keys to that policy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd

from fcsim import _core
from fcsim._core import ConfigError

Progress = Callable[[int, int], object]


class Result(dict[str, Any]):
    """One result row: a dict whose columns are also attributes (``row.hit_ratio``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def policies() -> list[dict[str, Any]]:
    """Registered policies: name, description, source, parameter names, and whether the policy
    needs a flash device's view (it then runs only as the DRAM buffer over a flash device)."""
    return [
        {"name": n, "description": d, "source": s, "params": p, "needs_device": v}
        for n, d, s, p, v in _core.policies()
    ]


def formats() -> list[dict[str, str]]:
    """Trace formats: name, description and the time unit of the raw trace."""
    return [{"name": n, "description": d, "time_unit": t} for n, d, t in _core.formats()]


class Sets:
    """``--set`` overrides split by section: trace reader, device, and per policy."""

    def __init__(self, sets: Mapping[str, Any] | None) -> None:
        self.trace: dict[str, str] = {}
        self.device: dict[str, str] = {}
        self.stack: dict[str, str] = {}
        self.sim: dict[str, Any] = {}
        self.policy: dict[str, dict[str, str]] = {}
        names = {p[0] for p in _core.policies()}
        for key, value in (sets or {}).items():
            prefix, dot, rest = key.partition(".")
            if not dot or not rest:
                raise ConfigError(
                    f"option '{key}': expected SECTION.KEY (trace., device., stack., sim. or POLICY.KEY)"
                )
            prefix = prefix.lower()
            if prefix == "trace":
                self.trace[rest] = str(value)
            elif prefix == "device":
                self.device[rest] = str(value)
            elif prefix == "stack":
                self.stack[rest] = str(value)
            elif prefix == "sim":
                self.sim[rest] = self._sim_value(key, rest, value)
            elif prefix in names:
                self.policy.setdefault(prefix, {})[rest] = str(value)
            else:
                raise ConfigError(
                    f"option '{key}': unknown section '{prefix}'; expected trace, device, stack, sim "
                    f"or a policy ({', '.join(sorted(names))})"
                )

    @staticmethod
    def _sim_value(key: str, name: str, value: Any) -> Any:
        try:
            if name == "time_scale":
                return float(value)
            if name == "queue_depth":
                return int(value)
        except ValueError:
            raise ConfigError(f"option '{key}={value}': expected a number") from None
        raise ConfigError(f"option '{key}': unknown; sim takes time_scale and queue_depth")


def devices() -> list[dict[str, Any]]:
    """Device presets: name, source (the paper's table) and the values it sets over fcsim's
    defaults; the defaults themselves are the preset named ``defaults``."""
    presets, defaults = _core.devices()
    rows = [{"name": n, "source": s, "values": dict(v)} for n, s, v in presets]
    return [*rows, {"name": "defaults", "source": "fcsim", "values": dict(defaults)}]


def _trace_kwargs(
    format: str | None, volume: int | None, skip_bad_lines: bool, page_size: int, trace_params: dict[str, str]
) -> dict[str, Any]:
    return {
        "format": format,
        "volume": volume,
        "skip_bad_lines": skip_bad_lines,
        "page_size": page_size,
        "trace_params": trace_params,
    }


def simulate(
    trace: str | os.PathLike[str],
    policy: str = "lru",
    size: str | int = "5%",
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    device: str | None = None,
    working_set: int | None = None,
    progress: Progress | None = None,
) -> Result:
    """Simulates ``policy`` with a cache of ``size`` (pages, bytes like ``"64MiB"`` or ``"5%"``
    of the working set) over ``trace`` (a file or a ``synth:`` spec); returns one result row.

    With ``device`` (a preset: ``lcr``, ``gasa``, ``dynamic``, ``offline``; see ``devices()``)
    the cache is a DRAM buffer over a flash SSD, tuned by ``device.*`` keys in ``set``, and the
    row carries flash reads and writes, GC, erasures, wear and response times. ``policy="none"``
    drives the device straight from the trace (``size`` is ignored).

    ``set={"stack.kind": "ssd-cache"}`` makes the cache a flash cache over a disk instead: the
    device (default preset ``offline``) is the cache's medium, sized to the cache; ``stack.write``
    is ``around`` (a read cache, the default), ``through`` or ``back``; ``stack.dram`` puts an LRU
    DRAM tier of that fraction of the cache in front; ``stack.disk_ms`` is the disk's service
    time (5).

    ``sim.time_scale`` multiplies the trace's inter-arrival times (0.1: ten times the load);
    ``sim.queue_depth=N`` replaces them with a closed loop of N outstanding requests."""
    sets = Sets(set)
    row = _core.simulate(
        os.fspath(trace),
        policy,
        str(size),
        policy_params=sets.policy.get(policy.lower(), {}),
        device=device,
        device_params=sets.device,
        stack_params=sets.stack,
        **sets.sim,
        working_set=working_set,
        progress=progress,
        **_trace_kwargs(format, volume, skip_bad_lines, page_size, sets.trace),
    )
    return Result(row)


def run_grid(
    traces: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    policies: str | Iterable[str],
    sizes: str | int | Iterable[str | int],
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    device: str | Iterable[str | None] | None = None,
    jobs: int | None = None,
    progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """Runs every (trace, policy, size, device) point and returns one row per point, in grid
    order. ``device`` is a preset, a list of presets, or None (no device).

    Points run in threads (the core releases the GIL); ``jobs`` defaults to the number of
    cores. ``progress``, if given, is called with the fraction of the grid done so far.
    """
    trace_list = (
        [os.fspath(traces)] if isinstance(traces, str | os.PathLike) else [os.fspath(t) for t in traces]
    )
    policy_list = [policies] if isinstance(policies, str) else list(policies)
    size_list = [str(sizes)] if isinstance(sizes, str | int) else [str(s) for s in sizes]
    if not trace_list or not policy_list or not size_list:
        raise ConfigError("run_grid needs at least one trace, one policy and one size")
    for s in size_list:
        _core.check_size(s)
    known = {p[0] for p in _core.policies()}
    for p in policy_list:
        if p.lower() not in known:
            raise ConfigError(f"unknown policy '{p}'; registered: {', '.join(sorted(known))}")
    device_list = [device] if device is None or isinstance(device, str) else list(device)
    if not device_list:
        raise ConfigError("run_grid needs at least one device (None for no device)")
    presets = {d["name"] for d in devices()} - {"defaults"}
    for d in device_list:
        if d is not None and d.lower() not in presets:
            raise ConfigError(f"unknown device preset '{d}'; presets: {', '.join(sorted(presets))}")
    tkw = _trace_kwargs(format, volume, skip_bad_lines, page_size, Sets(set).trace)
    ws: dict[str, int | None] = {}
    for t in trace_list:
        ws[t] = _core.working_set(t, **tkw) if any(s.strip().endswith("%") for s in size_list) else None
    points = [(t, p, s, d) for t in trace_list for p in policy_list for s in size_list for d in device_list]
    done = [0.0] * len(points)

    def report(i: int) -> Progress:
        def cb(d: int, total: int) -> None:
            done[i] = d / total if total else 0.0
            if progress is not None:
                progress(sum(done) / len(points))

        return cb

    def one(i: int) -> Result:
        t, p, s, d = points[i]
        row = simulate(
            t,
            p,
            s,
            device=d,
            format=format,
            volume=volume,
            skip_bad_lines=skip_bad_lines,
            page_size=page_size,
            set=set,
            working_set=ws[t],
            progress=report(i),
        )
        done[i] = 1.0
        if progress is not None:
            progress(sum(done) / len(points))
        return row

    workers = max(1, min(jobs or os.cpu_count() or 1, len(points)))
    if workers == 1:
        rows = [one(i) for i in range(len(points))]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(one, range(len(points))))
    return pd.DataFrame(rows)


def trace_info(
    trace: str | os.PathLike[str],
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Statistics of a trace: requests, read/write split, unique pages, span, sizes, volumes."""
    return _core.trace_info(
        os.fspath(trace), **_trace_kwargs(format, volume, skip_bad_lines, page_size, Sets(set).trace)
    )


def convert(
    trace: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    to: str | None = None,
    annotate_next: bool = False,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Writes ``trace`` as fcsim binary (``.fct``), libCacheSim CSV or oracleGeneral (``to`` =
    ``fct``, ``lcs-csv``, ``oracle-general``; by default from ``out``'s name). Atomic."""
    trace_params = Sets(set).trace
    return _core.convert_trace(
        os.fspath(trace),
        os.fspath(out),
        to=to,
        annotate_next=annotate_next,
        progress=progress,
        **_trace_kwargs(format, volume, skip_bad_lines, page_size, trace_params),
    )


def mrc(
    trace: str | os.PathLike[str],
    method: str = "exact",
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """The LRU miss-ratio curve of a trace for every cache size, from one pass.

    Returns one row per step of the curve (the sizes where the miss count drops): `size_pages`,
    `misses`, `miss_ratio`, `hit_ratio`; between two rows the curve keeps the smaller size's
    value. `df.attrs` holds `accesses` and `cold` (first accesses, the working set). Trims are
    skipped (LRU with deletions has no exact one-pass curve).
    """
    if method != "exact":
        raise ConfigError(f"unknown MRC method '{method}'; expected exact")
    trace_params = Sets(set).trace
    accesses, cold, sizes, misses = _core.mrc_exact(
        os.fspath(trace),
        progress=progress,
        **_trace_kwargs(format, volume, skip_bad_lines, page_size, trace_params),
    )
    df = pd.DataFrame({"size_pages": sizes, "misses": misses})
    df["miss_ratio"] = df["misses"] / accesses if accesses else 0.0
    df["hit_ratio"] = 1.0 - df["miss_ratio"]
    df.attrs.update(accesses=accesses, cold=cold, page_size=page_size, trace=os.fspath(trace))
    return df


def mrc_at(curve: pd.DataFrame, size_pages: int) -> float:
    """The miss ratio of an MRC from `mrc()` at a cache size in pages."""
    steps = curve[curve["size_pages"] <= size_pages]
    if steps.empty:
        return 1.0
    return float(steps["miss_ratio"].iloc[-1])
