"""The grid engine shared by :func:`fcsim.run_grid` (:mod:`fcsim.api`) and experiment sweeps
(:mod:`fcsim.sweep`): a grid's points (traces x policies x sizes x devices x ``--set`` axes),
checked whole before any runs, the working set of each trace a percent size needs measured
once, each random point's seeds, and one point run.

A point is a dict: ``trace``, ``policy``, ``size``, ``device`` and ``set`` (its ``--set`` map);
a sweep adds ``seed`` (the seed index) and ``seeds`` to a random point's copies. Policy
``none`` caches nothing: it runs at the first size only.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fcsim import _core, checks, seeds, simulation
from fcsim._core import ConfigError, TraceError

Point = dict[str, Any]
#: A point's trace as read: its path and its ``trace.*`` keys (as JSON).
TraceKey = tuple[str, str]


def combos(base: Mapping[str, Any], entries: Iterable[Mapping[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """The ``--set`` map of every combination of the axes of ``entries`` (each maps ``--set``
    keys to lists of values) over ``base``, the first axis outermost."""
    out: list[dict[str, Any]] = [dict(base)]
    for entry in entries:
        keys = list(entry)
        out = [
            {**c, **dict(zip(keys, combo, strict=True))}
            for c in out
            for combo in itertools.product(*(entry[k] for k in keys))
        ]
    return out


def expand(
    trace: str,
    policies: Sequence[str],
    sizes: Sequence[str],
    devices: Sequence[str | None],
    sets: Sequence[dict[str, Any]],
) -> list[Point]:
    """The points of one trace, in order: policy, size, device, then the ``--set`` maps."""
    return [
        {"trace": trace, "policy": p, "size": s, "device": d, "set": c}
        for p in policies
        for s in (sizes[:1] if p.lower() == "none" else sizes)
        for d in devices
        for c in sets
    ]


def needs_working_set(pt: Point) -> bool:
    """Whether a point's size is a percent of its trace's working set."""
    return str(pt["size"]).strip().endswith("%") and pt["policy"].lower() != "none"


def trace_key(pt: Point) -> TraceKey:
    """A point's trace as read: its path and its ``trace.*`` keys."""
    return pt["trace"], json.dumps(checks.sections(pt["set"])["trace"], sort_keys=True)


def working_sets(
    points: Iterable[Point],
    problems: checks.Problems,
    jobs: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> dict[TraceKey, int]:
    """The working set of each trace (:func:`trace_key`) that a point's percent size needs:
    one pass over each such trace, ``jobs`` at a time (in threads: the core releases the GIL),
    read with ``options`` (:func:`fcsim.simulation.reader_options`). A trace that cannot be
    measured is a problem, and missing from the result."""
    wanted = {trace_key(pt): pt for pt in points if needs_working_set(pt)}
    stop = threading.Event()  # Ctrl-C reaches the main thread only: it stops the passes

    def progress(done: int, total: int) -> None:
        if stop.is_set():
            raise KeyboardInterrupt

    def measure(key: TraceKey) -> int | str:
        try:
            return _core.working_set(
                key[0], trace_params=json.loads(key[1]), progress=progress, **(options or {})
            )
        except (ConfigError, TraceError) as e:
            return str(e)

    sizes: dict[TraceKey, int] = {}
    threads = max(1, min(jobs or os.cpu_count() or 1, len(wanted) or 1))
    with ThreadPoolExecutor(max_workers=threads) as pool:
        try:
            for key, ws in zip(wanted, pool.map(measure, wanted), strict=True):
                if isinstance(ws, str):
                    problems.add(ws)
                else:
                    sizes[key] = ws
        except BaseException:
            stop.set()
            raise
    return sizes


def check(
    points: Sequence[Point],
    problems: checks.Problems,
    jobs: int | None = None,
    options: Mapping[str, Any] | None = None,
    epoch: str | int | None = None,
) -> dict[TraceKey, int]:
    """Checks every point before any runs, each problem kept in ``problems`` once: its policy,
    size and device preset, a ``POLICY.KEY`` of a policy no point runs (it would be accepted
    and ignored), then whatever the point's run would refuse before its first request (the
    core's own check, :func:`fcsim.simulation.check`). A point whose trace file is missing is
    left to the caller (who names where it looked). Returns the working sets the points'
    percent sizes need (:func:`working_sets`), for their runs."""
    policies = {pt["policy"] for pt in points}
    valid = []
    for pt in points:
        results = [
            problems.check(checks.check_policy, pt["policy"])[0],
            problems.check(_core.check_size, pt["size"])[0],
            problems.check(checks.check_device, pt["device"])[0],
            problems.check(checks.stray_policy_keys, pt["set"], policies)[0],
        ]
        if all(results) and (pt["trace"].startswith("synth:") or os.path.exists(pt["trace"])):
            valid.append(pt)
    sizes = working_sets(valid, problems, jobs, options)
    for pt in valid:
        if needs_working_set(pt) and trace_key(pt) not in sizes:
            continue  # its trace's problem is kept
        problems.check(
            simulation.check,
            pt["trace"],
            pt["policy"],
            pt["size"],
            device=pt["device"],
            set=checks.own_policy_keys(pt["set"], pt["policy"]),
            epoch=epoch,
            working_set=sizes.get(trace_key(pt)),
            **(options or {}),
        )
    return sizes


def seeded(pt: Point, n: int) -> dict[str, int]:
    """The seeded components of a point (see :mod:`fcsim.seeds`) and the seed each has at
    index 0, the range of ``n`` seeds checked."""
    random = seeds.components(pt["trace"], pt["policy"], pt["device"], pt["set"])
    seeds.check_range(random, n)
    return random


def run_point(
    pt: Point,
    working_set: int | None,
    random: Mapping[str, int],
    index: int = 0,
    n: int | None = None,
    *,
    epoch: str | int | None = None,
    progress: simulation.Progress | None = None,
    options: Mapping[str, Any] | None = None,
) -> simulation.Result:
    """Runs a point at seed index ``index`` of its seeded components ``random``
    (:func:`seeded`): its row, with ``size`` (as given) and, with ``n`` (the point's number of
    seeds), ``seeds``, ``seed_index`` and ``seeded`` (:func:`fcsim.seeds.mark`).
    ``working_set`` is the point's trace's (:func:`working_sets`): another seed of a synthetic
    trace is another trace, which measures its own."""
    trace, sets = seeds.variant(pt["trace"], pt["set"], random, index)
    row = simulation.simulate(
        trace,
        pt["policy"],
        pt["size"],
        device=pt["device"],
        set=checks.own_policy_keys(sets, pt["policy"]),
        epoch=epoch,
        working_set=working_set if trace == pt["trace"] else None,
        progress=progress,
        **(options or {}),
    )
    row["size"] = str(pt["size"])
    if n is not None:
        seeds.mark(row, random, index, n, pt["trace"])
    return row


def run_points(
    points: Sequence[Point],
    working_sets: Mapping[TraceKey, int],
    *,
    jobs: int | None = None,
    progress: Callable[[float], object] | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[simulation.Result]:
    """Runs checked ``points`` (:func:`check`, which gave ``working_sets``) once each, without
    seeds, ``jobs`` at a time in threads (default: the cores; the core releases the GIL), and
    returns their rows in order; ``progress`` is called with the fraction of the points done."""
    done = [0.0] * len(points)

    def one(j: int) -> simulation.Result:
        def cb(d: int, total: int) -> None:
            done[j] = d / total if total else 0.0
            if progress is not None:
                progress(sum(done) / len(done))

        pt = points[j]
        ws = working_sets.get(trace_key(pt)) if needs_working_set(pt) else None
        row = run_point(pt, ws, {}, progress=cb, options=options)
        done[j] = 1.0
        return row

    workers = max(1, min(jobs or os.cpu_count() or 1, len(points)))
    if workers == 1:
        return [one(j) for j in range(len(points))]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, range(len(points))))


@contextlib.contextmanager
def dask_client(scheduler: Any) -> Iterator[Any]:
    """A Dask client for ``scheduler``: a ``distributed.Client`` (used as it is, left open), or
    a scheduler's address (connected here, closed after)."""
    try:
        import distributed
    except ImportError:
        raise ConfigError("--scheduler needs Dask's distributed: pip install 'fcsim[dask]'") from None
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if not isinstance(scheduler, str):
        raise ConfigError(
            f"scheduler={scheduler!r}: expected a Dask scheduler's address or a distributed.Client"
        )
    try:
        client = distributed.Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise ConfigError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({e})") from None
    with client:
        yield client
