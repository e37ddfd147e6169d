"""The Python API's entry points for runs (:func:`simulate`, :func:`check`), grids
(:func:`run`, :func:`run_grid`) and miss-ratio curves (:func:`mrc`, :func:`mrc_compare`). The
checks of what a caller gives are in :mod:`fcsim.checks`, one run in :mod:`fcsim.simulation`,
a grid's points in :mod:`fcsim.grid`, and traces (statistics, conversion, clone models,
fidelity reports) in :mod:`fcsim.traces`.

Options mirror the CLI. ``set`` takes the CLI's ``--set KEY=VALUE`` overrides as a dict:
``trace.*`` keys go to the trace reader, ``device.*`` keys to the flash device, ``<policy>.*``
keys to that policy.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pandas as pd

from fcsim import _core, schema
from fcsim import grid as _grid
from fcsim import seeds as _seeds
from fcsim._core import ConfigError
from fcsim.checks import (
    U64_MAX,
    Problems,
    callback,
    check_admission,
    check_device,
    check_policy,
    integer,
    listed,
    sections,
    size_text,
    text,
    with_admission,
)
from fcsim.registry import admissions as admissions
from fcsim.registry import devices as devices  # re-exported, as fcsim.api.devices() was
from fcsim.registry import formats as formats
from fcsim.registry import policies as policies
from fcsim.simulation import REVISION as REVISION
from fcsim.simulation import VERSION as VERSION
from fcsim.simulation import Progress, Result, check, reader_options, simulate, trace_kwargs, trace_path

__all__ = [
    "REVISION",
    "VERSION",
    "Result",
    "admissions",
    "check",
    "devices",
    "formats",
    "policies",
    "simulate",
]


@dataclass(frozen=True, eq=False)
class Grid:
    """What :func:`run` returns: the rows and the tables that go with them, each its own
    DataFrame (none is kept in another's ``attrs``, so each survives ``pd.concat``, ``merge``
    and Parquet as any DataFrame does).

    - ``rows``: one row per run, in grid order (what :func:`run_grid` returns).
    - ``summary``: with ``seeds`` > 1, one row per point with each metric's mean ``M`` and the
      half-width ``M_ci95`` of its 95% confidence interval (:func:`fcsim.seeds.summarize`, by
      ``trace``, ``policy``, ``size``, ``device`` and the ``grid`` axes); else None.
    - ``epochs``: with ``epoch``, every run's per-epoch table concatenated in grid order (each
      epoch row carries its run's ``trace``, ``policy``, ``size_pages``, ``device`` and
      ``seed_index``, 0 without seeds); else None.

    Each table has the columns and dtypes of :mod:`fcsim.schema` whatever the grid holds
    (``rows``: :data:`fcsim.schema.ROWS` and an ``axis_<key>`` column per ``grid`` axis)."""

    rows: pd.DataFrame
    summary: pd.DataFrame | None
    epochs: pd.DataFrame | None


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
    seeds: int = 1,
    grid: Mapping[str, Iterable[Any]] | None = None,
    scheduler: Any = None,
    admit: str | Iterable[str] | None = None,
) -> pd.DataFrame:
    """Runs every (trace, policy, size, device) point and returns one row per run, in grid
    order: the ``rows`` of :func:`run`, whose arguments it takes (but ``epoch``). The seeds'
    summary and the per-epoch tables are :func:`run`'s ``summary`` and ``epochs``."""
    return run(
        traces,
        policies,
        sizes,
        format=format,
        volume=volume,
        skip_bad_lines=skip_bad_lines,
        page_size=page_size,
        set=set,
        device=device,
        jobs=jobs,
        progress=progress,
        seeds=seeds,
        grid=grid,
        scheduler=scheduler,
        admit=admit,
    ).rows


def run(
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
    epoch: str | int | None = None,
    jobs: int | None = None,
    progress: Callable[[float], object] | None = None,
    seeds: int = 1,
    grid: Mapping[str, Iterable[Any]] | None = None,
    scheduler: Any = None,
    admit: str | Iterable[str] | None = None,
) -> Grid:
    """Runs every (trace, policy, size, device) point, as ``fcsim run`` does; returns a
    :class:`Grid`: ``rows``, ``summary`` and ``epochs``. ``traces``, ``policies``, ``sizes``
    and ``device`` are each a value or an iterable of values (a list, a numpy array, a pandas
    Series); a size in pages, and any integer option, may be a numpy integer. Every input is
    checked first (each trace's format and header), then every point (see :func:`check`):
    whatever is wrong (missing traces, an unknown policy, a bad size, a point's run refused)
    raises one ConfigError before any runs, each problem on a line of its own; a trace
    malformed past its header raises TraceError when its run reaches the line. ``device`` is a
    preset, a list of presets, or None (no device). Policy ``none`` caches nothing, so it runs
    once per trace and device whatever the sizes. ``epoch`` (see :func:`simulate`) cuts every
    run into epochs: the result's ``epochs``.

    ``grid`` maps ``--set`` keys to lists of values: axes, as an experiment file's ``[[grid]]``
    (``grid={"stack.split": [0.15, 0.35]}``); every point runs at each combination, after
    ``set``, and each row adds a column per axis, ``axis_<key>`` without dots
    (:func:`fcsim.schema.axis_name`: ``axis_stack_split``), holding the value given.

    ``admit`` names the flash cache's admission policy, or a list of them: an axis, as
    ``policies`` is (``admit=["all", "random"]``; see :func:`fcsim.admissions`), each the same as
    ``set={"stack.admit": NAME}``; its parameters are ``admit.KEY`` keys of ``set`` (or of
    ``grid``). Each row's ``admission`` column names it (``all``, the default, admits every
    miss).

    With ``seeds=N``, every random point (a ``synth:`` trace, a seeded policy, a drive aged or
    filled at random; see :mod:`fcsim.seeds`) runs with N seeds, one row each, and the
    result's ``summary`` holds one row per point with each metric's mean and 95% confidence
    interval. Each row then fills ``seeds`` (how many seeds its point ran: 1 for a point with
    nothing random), ``seed_index`` (0 to ``seeds`` - 1; index 0 is the run without ``seeds``)
    and ``seeded`` (each seeded component and its seed, ``trace 43, device.seed 43``; empty
    when nothing is random), null without seeds; a percent size is resolved against each
    seed's own trace. ``size``, the size as given, is in every row.

    Points run in threads (the core releases the GIL); ``jobs`` defaults to the number of
    cores. ``progress``, if given, is called with the fraction of the grid done so far. With
    ``scheduler`` (a Dask scheduler's address, or a ``distributed.Client``), they run on that
    cluster instead (its workers need fcsim and the traces at the same paths), each point's
    future released as soon as its row is back; ``jobs`` is then unused.
    """
    # Each input on its own first, every bad one named at once; then the grid's points.
    problems = Problems()
    if jobs is not None:
        problems.check(integer, "jobs", jobs, 1)
    seeds_n = problems.check(_seeds.count, seeds)[1]
    problems.check(callback, progress)
    ok, combos = problems.check(_combos, set, grid)
    trace_sets = sections(combos[0])["trace"] if ok else {}

    def readable(t: Any) -> str:
        """The trace ``t`` names, if it opens and its format and header read (as every point's
        check reads them: with LRU, size 1)."""
        name = trace_path(t, skip_bad_lines=opts["skip_bad_lines"])
        _core.check(name, "lru", "1", sets=[(f"trace.{k}", v) for k, v in trace_sets.items()], **opts)
        return name

    def known_policy(p: Any) -> str:
        check_policy(text("policy", p))
        return str(p)

    def size(s: Any) -> str:
        _core.check_size(size_text(s))
        return size_text(s)

    def known_device(d: Any) -> str | None:
        check_device(None if d is None else text("device", d))
        return d

    opts: dict[str, Any] = {}
    if problems.check(lambda: opts.update(reader_options(format, volume, skip_bad_lines, page_size)))[0]:
        trace_list = problems.listed("trace", traces, (str, os.PathLike), readable)
    else:
        trace_list = []
    policy_list = problems.listed("policy", policies, str, known_policy)

    def known_admission(a: Any) -> str:
        check_admission(text("admission", a))
        return str(a)

    admit_list = [] if admit is None else problems.listed("admission", admit, str, known_admission)
    if admit_list and ok:
        base = combos
        ok, combos = problems.check(
            lambda: [with_admission(c, a, admit_list) for a in admit_list for c in base]
        )
    size_list = problems.listed("size", sizes, str, size)
    device_list = problems.listed("device (None for no device)", device, (str, type(None)), known_device)
    problems.raise_any()
    points = [pt for t in trace_list for pt in _grid.expand(t, policy_list, size_list, device_list, combos)]
    ws = _grid.check(points, problems, jobs, opts, epoch)  # every point, before any runs
    problems.raise_any()
    runs = [
        (i, k, random)
        for i, pt in enumerate(points)
        for random in [_grid.seeded(pt, seeds_n) if seeds_n > 1 else {}]
        for k in range(seeds_n if random else 1)
    ]
    done = [0.0] * len(runs)
    axes = list(grid or {})

    def report(j: int) -> Progress:
        def cb(d: int, total: int) -> None:
            done[j] = d / total if total else 0.0
            if progress is not None:
                progress(sum(done) / len(done))

        return cb

    def args(j: int) -> tuple[Any, ...]:
        """:func:`fcsim.grid.run_point`'s arguments of run ``j`` but its progress."""
        i, index, random = runs[j]
        pt = points[i]
        key = _grid.trace_key(pt) if _grid.needs_working_set(pt) else None
        return (
            pt,
            ws.get(key) if key else None,
            random,
            index,
            (seeds_n if random else 1) if seeds_n > 1 else None,
        )

    def finish(j: int, row: Result) -> Result:
        done[j] = 1.0
        if progress is not None:
            progress(sum(done) / len(runs))
        pt, _, _, index, _ = args(j)
        for k in axes:
            row[k] = pt["set"][k]
        if row.epochs is not None:
            row.epochs["seed_index"] = pd.Series([index] * len(row.epochs), dtype="Int64")
            for k in axes:  # each epoch names its run's --set axes, as the rows do
                row.epochs[k] = pt["set"][k]
        return row

    def one(j: int) -> Result:
        return finish(j, _grid.run_point(*args(j), epoch=epoch, progress=report(j), options=opts))

    if scheduler is not None:
        rows = _on_dask(scheduler, [args(j) for j in range(len(runs))], epoch, opts, finish)
    else:
        workers = max(1, min(jobs or os.cpu_count() or 1, len(runs)))
        if workers == 1:
            rows = [one(j) for j in range(len(runs))]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                rows = list(pool.map(one, range(len(runs))))
    df = schema.frame(rows, schema.ROWS, axes)
    summary = None
    if seeds_n > 1:
        by = ["trace", "policy", "size", "device", "admission", *map(schema.axis_name, axes)]
        summary = schema.summary_frame(_seeds.summarize(df, by), by, df)
    epochs = None
    if epoch is not None:
        tables = [r.epochs for r in rows if r.epochs is not None and len(r.epochs)]
        epochs = schema.frame(pd.concat(tables, ignore_index=True) if tables else [], schema.EPOCHS, axes)
    return Grid(df, summary, epochs)


def _on_dask(
    scheduler: Any,
    runs: list[tuple[Any, ...]],
    epoch: str | int | None,
    options: Mapping[str, Any],
    finish: Callable[[int, Result], Result],
) -> list[Result]:
    """The rows of ``runs`` (:func:`fcsim.grid.run_point`'s arguments) computed on the Dask
    cluster of ``scheduler``, in order; each future is released once its row is back, so a
    worker lost later costs only the runs in flight."""
    import distributed

    rows: list[Result | None] = [None] * len(runs)
    with _grid.dask_client(scheduler) as client:
        futures: list[Any] = [
            client.submit(_grid.run_point, *r, epoch=epoch, options=dict(options), pure=False) for r in runs
        ]
        index = {f.key: j for j, f in enumerate(futures)}
        try:
            for f in distributed.as_completed(futures):
                j = index[f.key]
                rows[j] = finish(j, f.result())
                f.release()
                futures[j] = None
        finally:
            client.cancel([f for f in futures if f is not None])
    return [r for r in rows if r is not None]


#: The most combinations of ``grid`` axes a run_grid takes (an experiment file is the tool for
#: more; see fcsim.sweep.MAX_POINTS).
MAX_COMBOS = 10_000


def _combos(sets: Mapping[str, Any] | None, grid: Mapping[str, Iterable[Any]] | None) -> list[dict[str, Any]]:
    """The ``--set`` keys of each combination of ``grid``'s axes over ``sets``
    (:func:`fcsim.grid.combos`), each key checked by the core once."""
    base = dict(sets or {})
    sections(base)  # a bad key fails here, once
    if grid is None:
        return [base]
    if not isinstance(grid, Mapping):
        raise ConfigError(f"grid={grid!r}: expected a mapping of --set keys to lists of values")
    axes: dict[str, list[Any]] = {}
    n = 1
    for key, values in grid.items():
        vals = listed(values, (str, int, float), lambda v: v)
        if not vals:
            raise ConfigError(f"grid: {key}: expected at least one value")
        n *= len(vals)
        if n > MAX_COMBOS:
            raise ConfigError(
                f"grid: more than {MAX_COMBOS} combinations; use an experiment file (fcsim sweep)"
            )
        sections({key: vals[0]})
        axes[key] = vals
    return _grid.combos(base, [axes])


MRC_METHODS = ("exact", "shards", "minisim")
DEFAULT_MAX_SAMPLES = 8192
DEFAULT_MINISIM_RATE = 0.01
# minisim's default sizes: 10 shares of the working set, log-spaced from 1% to 100%.
MINISIM_SHARES = [10 ** (-2 + 2 * i / 9) for i in range(10)]


def _check_mrc_options(
    method: str, rate: float | None, max_samples: int | None, policy: str | None, sizes: object, seed: int
) -> None:
    if policy is not None:
        text("policy", policy)
    if method not in MRC_METHODS:
        raise ConfigError(f"unknown MRC method '{method}'; expected exact, shards or minisim")
    if rate is not None and max_samples is not None:
        raise ConfigError("give a sampling rate or a maximum number of samples, not both")
    integer("seed", seed, 0, U64_MAX)
    if max_samples is not None:
        integer("max_samples", max_samples, 1, U64_MAX)
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, int | float)):
        raise ConfigError(f"rate={rate!r}: expected a number in (0, 1]")
    if method == "exact" and (rate is not None or max_samples is not None):
        raise ConfigError(
            "the exact curve takes no sampling (rate and max samples are for shards and minisim)"
        )
    if policy is not None and policy.lower() == "none":
        raise ConfigError("policy 'none' caches nothing, so it has no miss-ratio curve; give a cache policy")
    if policy is not None and method != "minisim":
        raise ConfigError(f"a policy's curve needs method minisim ({method} is LRU's curve)")
    if method == "minisim":
        if policy is None:
            raise ConfigError("minisim needs a policy")
        if max_samples is not None:
            raise ConfigError("minisim samples at a fixed rate (rate), not a fixed size (max samples)")
    elif sizes is not None:
        raise ConfigError(f"sizes are for minisim ({method} gives every size)")


def mrc(
    trace: str | os.PathLike[str],
    method: str = "exact",
    *,
    rate: float | None = None,
    max_samples: int | None = None,
    policy: str | None = None,
    sizes: str | int | Iterable[str | int] | None = None,
    seed: int = 0,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """A miss-ratio curve of a trace, from one pass.

    - ``method="exact"``: LRU's exact curve (stack distances), every size.
    - ``method="shards"``: LRU's curve estimated by SHARDS from a spatially hashed sample of the
      pages: at a fixed ``rate`` R in (0, 1], or with at most ``max_samples`` sampled pages (the
      rate falls as the sample overflows; memory stays bounded). Default: ``max_samples=8192``.
    - ``method="minisim"``: ``policy``'s curve from miniature simulations: the policy runs on the
      SHARDS sample at ``rate`` (default 0.01) with one cache of max(1, round(size * R)) pages per
      size in ``sizes`` (pages, bytes or ``"5%"``; default 10 log-spaced shares of the working
      set from 1% to 100%), all in one pass. A size's hit ratio is read off the sampled pages,
      each page's accesses and miniature hits, as :func:`minisim` reads a stack's: the
      regression estimate, which weighs the miniature cache's own ratio against SHARDS'
      adjustment (misses over the expected number of sampled accesses N·R) by what the sample
      holds (crates/fcsim/src/mrc/shards.rs, ``page_sample_hit_ratio``). Each row adds its
      miniature cache's size ``mini_size_pages``, the estimate's standard error
      ``hit_ratio_se``, and the two fixed readings, ``own_miss_ratio`` and
      ``adjusted_miss_ratio``. Hit ratios only (no device); ``set`` may carry the policy's
      ``POLICY.KEY`` parameters.

    ``seed`` varies the spatial hash (which pages are sampled).

    Returns one row per step of the curve (the sizes where the misses drop; for minisim, one
    row per size asked for): `size_pages`, `misses` (estimated for shards and minisim),
    `miss_ratio`, `hit_ratio`; between two rows the curve keeps the smaller size's value.
    `df.attrs` holds `accesses`, `cold` (the working set: exact for exact, estimated as sampled
    pages / R otherwise, the trace's when minisim resolved percent sizes), `page_size`, `trace`,
    and the sampling: `method`, `rate` (for fixed size, the final one), `max_samples`,
    `samples` (sampled page accesses), `sampled_pages`, `policy`, `seed`, `bad_lines` (the
    malformed lines skipped, with ``skip_bad_lines``); shards adds
    `adjustment` (the accesses added to the first bucket for the sample-count error) and
    `bucket_width`. Every value of `attrs` is a number, a string or None. Trims are skipped by the
    LRU curves (LRU with deletions has no exact one-pass curve); minisim applies them to its
    caches.
    """
    _check_mrc_options(method, rate, max_samples, policy, sizes, seed)
    callback(progress)
    sets = sections(set)
    tkw = trace_kwargs(format, volume, skip_bad_lines, page_size, sets["trace"])
    name = trace_path(trace, skip_bad_lines=skip_bad_lines)
    if method == "exact":
        accesses, cold, steps, misses, bad = _core.mrc_exact(name, progress=progress, **tkw)
        df = _curve(steps, misses, accesses)
        df.attrs.update(rate=1.0, max_samples=None, samples=accesses, sampled_pages=cold)
    elif method == "shards":
        if rate is None and max_samples is None:
            max_samples = DEFAULT_MAX_SAMPLES
        accesses, unique, steps, est, r, samples, held, adjustment, width, bad = _core.mrc_shards(
            name, rate=rate, max_samples=max_samples, seed=seed, progress=progress, **tkw
        )
        df = _curve(steps, est, accesses)
        cold = round(unique)
        df.attrs.update(
            rate=r,
            max_samples=max_samples,
            samples=samples,
            sampled_pages=held,
            adjustment=adjustment,
            bucket_width=width,
        )
    else:
        assert policy is not None
        return _minisim(name, policy, sizes, rate, seed, sets, tkw, page_size, progress)
    df.attrs.update(
        method=method,
        policy="lru",
        seed=seed,
        accesses=accesses,
        cold=cold,
        page_size=page_size,
        trace=name,
        bad_lines=bad,
    )
    return df


def _curve(steps: list[int], misses: list[int] | list[float], accesses: int) -> pd.DataFrame:
    df = pd.DataFrame({"size_pages": steps, "misses": misses})
    df["miss_ratio"] = df["misses"] / accesses if accesses else 0.0
    df["hit_ratio"] = 1.0 - df["miss_ratio"]
    return df


def _minisim(
    trace: str,
    policy: str,
    sizes: str | int | Iterable[str | int] | None,
    rate: float | None,
    seed: int,
    sets: dict[str, Any],
    tkw: dict[str, Any],
    page_size: int,
    progress: Progress | None,
) -> pd.DataFrame:
    rate = DEFAULT_MINISIM_RATE if rate is None else rate
    if sizes is None:
        size_list = [f"{100 * s:.6g}%" for s in MINISIM_SHARES]
    else:
        size_list = listed(sizes, (str, int), size_text)
    if not size_list:
        raise ConfigError("minisim needs at least one cache size")
    for s in size_list:
        _core.check_size(s)
    ws = _core.working_set(trace, **tkw) if any(s.strip().endswith("%") for s in size_list) else None
    pages = sorted({_core.size_pages(s, page_size, ws) for s in size_list})
    r, accesses, samples, held, points, bad = _core.mrc_minisim(
        trace,
        policy,
        pages,
        rate=rate,
        seed=seed,
        policy_params=sets["policy"].get(policy.lower(), {}),
        progress=progress,
        **tkw,
    )
    if accesses and not samples:
        raise ConfigError(f"no page access of {trace} was sampled at rate {rate:g}; raise the rate")
    ratio = [p[3] for p in points]
    df = pd.DataFrame({"size_pages": [p[0] for p in points], "misses": [m * accesses for m in ratio]})
    df["miss_ratio"] = ratio
    df["hit_ratio"] = 1.0 - df["miss_ratio"]
    df["mini_size_pages"] = [p[1] for p in points]
    df["hit_ratio_se"] = [p[4] for p in points]
    df["own_miss_ratio"] = [p[5] for p in points]
    df["adjusted_miss_ratio"] = [p[6] for p in points]
    df.attrs.update(
        method="minisim",
        policy=policy.lower(),
        seed=seed,
        accesses=accesses,
        cold=ws if ws is not None else round(held / r),
        page_size=page_size,
        trace=trace,
        rate=r,
        max_samples=None,
        samples=samples,
        sampled_pages=held,
        bad_lines=bad,
    )
    return df


#: What a miniature of a stack estimates (``metrics=`` of :func:`minisim`), and which need a device.
MINISIM_METRICS = ("hit_ratio", "read_hit_ratio", "flash_page_writes", "erasures", "wa")
DEVICE_METRICS = ("flash_page_writes", "erasures", "wa")
#: The default number of seeds of a stack's miniature (each estimate prints its spread).
DEFAULT_MINISIM_SEEDS = 5
#: The accuracy a miniature's estimate is flagged against: the issue's targets (issue 44), a hit
#: ratio within 0.01 and flash page writes and erasures within 5%. An estimate is flagged where
#: its own uncertainty, read off the sample, is wider than that: the half-width of its 95%
#: interval over the seeds, or 1.96 standard errors from the pages each seed sampled
#: (``hit_ratio_se``: the hit ratio's, ``write_rse``: the sampled write volume's, relative; see
#: crates/fcsim/src/minisim.rs), whichever is wider; or where rounding the miniature cache to
#: whole pages moves the curve, at its own slope, by more than the hit ratio's target.
MINI_HIT_RATIO_TARGET = 0.01
MINI_FLASH_TARGET = 0.05
MINI_WA_WARN = 2.0


def minisim(
    trace: str | os.PathLike[str],
    policy: str,
    sizes: str | int | Iterable[str | int] | None = None,
    *,
    rate: float = DEFAULT_MINISIM_RATE,
    seeds: int = DEFAULT_MINISIM_SEEDS,
    seed: int = 0,
    device: str | None = None,
    metrics: str | Iterable[str] | None = None,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Miniature simulation of a whole stack (issue 44): ``policy`` as ``fcsim run`` would run it
    (``device``, and ``set``'s ``stack.``/``device.``/``POLICY.`` keys: a DRAM buffer over an SSD,
    or ``stack.kind=ssd-cache``, a flash cache over a disk), on the pages whose hash (salted by
    the seed) falls under ``rate``, with the cache at R x each size and the flash device scaled by
    R (blocks scaled; page and block geometry, spare share and GC threshold kept). ``seeds``
    samples (seeds ``seed`` .. ``seed + seeds - 1``), every size and seed in one pass.

    Returns one row per (seed, size): ``size_pages``, ``mini_size_pages``, ``seed``, the estimates
    ``hit_ratio``, ``read_hit_ratio``, ``flash_page_writes``, ``erasures``,
    ``write_amplification`` (counts are the miniature's divided by R; ratios as they are;
    device columns are NaN without a device), and the miniature's own counts (``mini_*``).
    :func:`minisim_summary` gives each size's mean, 95% interval over the seeds and warnings.
    Response time is not estimated. A drive too small after scaling is refused with the smallest
    R that fits; ``metrics`` that need a device, asked without one, are refused by name.
    """
    text("policy", policy)
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 < rate <= 1:
        raise ConfigError(f"rate={rate!r}: expected a sampling rate in (0, 1]")
    n = _seeds.count(seeds)
    integer("seed", seed, 0, U64_MAX - n)
    if device is not None:
        text("device", device)
    if metrics is None:
        wanted = list(MINISIM_METRICS)
    elif isinstance(metrics, str):
        wanted = [m.strip() for m in metrics.split(",")]
    else:
        wanted = listed(metrics, (str,), str)
    for m in wanted:
        if m not in MINISIM_METRICS:
            raise ConfigError(f"unknown metric '{m}'; expected one of {', '.join(MINISIM_METRICS)}")
    callback(progress)
    sets = sections(set)
    ssd = sets["stack"].get("kind") == "ssd-cache"
    if device is None and not ssd and metrics is not None:
        need = [m for m in wanted if m in DEVICE_METRICS]
        if need:
            raise ConfigError(
                f"metric {need[0]} needs a flash device: give a device (--device gasa) or "
                "stack.kind=ssd-cache, or drop it"
            )
    tkw = trace_kwargs(format, volume, skip_bad_lines, page_size, sets["trace"])
    name = trace_path(trace, skip_bad_lines=skip_bad_lines)
    size_list = (
        [f"{100 * s:.6g}%" for s in MINISIM_SHARES] if sizes is None else listed(sizes, (str, int), size_text)
    )
    if not size_list:
        raise ConfigError("minisim needs at least one cache size")
    for z in size_list:
        _core.check_size(z)
    ws = _core.working_set(name, **tkw) if any(z.strip().endswith("%") for z in size_list) else None
    labels = {}
    for z in size_list:
        labels.setdefault(_core.size_pages(z, page_size, ws), z.strip())
    pages = sorted(labels)
    r, accesses, reads, dev, rows, bad = _core.minisim_stack(
        name,
        policy,
        pages,
        rate=float(rate),
        seeds=list(range(seed, seed + n)),
        device_metrics=any(m in DEVICE_METRICS for m in wanted),
        device=device,
        policy_params=sets["policy"].get(policy.lower(), {}),
        stack_params=sets["stack"],
        device_params=sets["device"],
        progress=progress,
        **tkw,
    )
    df = pd.DataFrame(rows)
    if accesses and not df["samples"].any():
        raise ConfigError(f"no page access of {name} was sampled at rate {rate:g}; raise the rate")
    df.insert(0, "size", [labels[p] for p in df["size_pages"]])
    df = df.astype(
        {c: float for c in ("read_hit_ratio", "flash_page_writes", "erasures", "write_amplification")}
    )
    df.attrs.update(
        method="minisim",
        policy=policy.lower(),
        trace=name,
        rate=r,
        accesses=accesses,
        reads=reads,
        device=dev,
        seeds=n,
        seed=seed,
        metrics=",".join(wanted),
        working_set=ws,
        page_size=page_size,
        response_time="not estimated",
        bad_lines=bad,
    )
    return df


def _pooled_se(se: pd.Series) -> float:
    """The standard error of the mean of n seeds' estimates, each with its own standard error."""
    se = se.dropna()
    return math.sqrt(float((se**2).sum())) / len(se) if len(se) else math.nan


def minisim_summary(df: pd.DataFrame, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Each size of :func:`minisim`'s rows: for each estimate its mean over the seeds and the
    half-width of its 95% confidence interval (Student t; ``<metric>_ci95``), ``hit_ratio_se``
    (the standard error of the mean hit ratio from the pages the seeds sampled), and
    ``warnings``: why an estimate there may mislead. The hit ratio is flagged where its 95%
    interval over the seeds, or 1.96 of ``hit_ratio_se``, is wider than
    :data:`MINI_HIT_RATIO_TARGET`, or where rounding the miniature cache to whole pages (it stands
    for ``mini_size_pages`` / R pages) moves the curve, at the slope between this size and its
    neighbour, by more than that; flash page writes and erasures where their relative 95%
    interval over the seeds, or 1.96 of the sampled write volume's relative standard error, is
    wider than :data:`MINI_FLASH_TARGET`; and a GC-heavy run on planes smaller than the full
    drive's. With ``metrics`` (names as :func:`minisim` takes them: ``hit_ratio``,
    ``read_hit_ratio``, ``flash_page_writes``, ``erasures``, ``wa``), only the warnings about
    those."""
    asked = None if metrics is None else set(metrics)

    def about(*names: str) -> bool:
        return asked is None or bool(asked & set(names))

    rate = float(df.attrs.get("rate") or 0.0)
    out = []
    for (label, pages), g in df.groupby(["size", "size_pages"], sort=False):
        row: dict[str, Any] = {
            "size": label,
            "size_pages": int(pages),
            "mini_size_pages": int(g["mini_size_pages"].iloc[0]),
        }
        for m in ("hit_ratio", "read_hit_ratio", "flash_page_writes", "erasures", "write_amplification"):
            mean, half, _ = _seeds.ci95(g[m])
            row[m], row[f"{m}_ci95"] = mean, half
        row["hit_ratio_se"] = _pooled_se(g["hit_ratio_se"]) if "hit_ratio_se" in g else math.nan
        row["_write_rse"] = _pooled_se(g["write_rse"]) if "write_rse" in g else math.nan
        out.append(row)
    s = pd.DataFrame(out)
    s["warnings"] = ""
    order = s["size_pages"].sort_values().index
    for pos, i in enumerate(order):
        row = s.loc[i]
        warn = []
        hr = max(
            1.96 * row["hit_ratio_se"] if not pd.isna(row["hit_ratio_se"]) else 0.0,
            row["hit_ratio_ci95"] if not pd.isna(row["hit_ratio_ci95"]) else 0.0,
        )
        if hr > MINI_HIT_RATIO_TARGET and about("hit_ratio", "read_hit_ratio"):
            warn.append(
                f"hit ratio uncertain by ±{hr:.3f} from which pages the sample holds (more seeds or larger R)"
            )
        # Rounding: the miniature stands for mini / R pages; the curve's slope to the nearest
        # neighbour says how far that moves the hit ratio.
        if rate > 0 and len(order) > 1 and about("hit_ratio", "read_hit_ratio"):
            j = order[pos + 1] if pos + 1 < len(order) else order[pos - 1]
            other = s.loc[j]
            span = float(other["size_pages"] - row["size_pages"])
            if span and not pd.isna(row["hit_ratio"]) and not pd.isna(other["hit_ratio"]):
                slope = (other["hit_ratio"] - row["hit_ratio"]) / span
                shift = abs(slope * (row["mini_size_pages"] / rate - row["size_pages"]))
                if shift > MINI_HIT_RATIO_TARGET:
                    warn.append(
                        f"miniature cache of {row['mini_size_pages']} pages stands for "
                        f"{row['mini_size_pages'] / rate:.0f}: the curve moves {shift:.3f} between them"
                    )
        if (
            not pd.isna(row["erasures"])
            and row["erasures"] > 0
            and about("flash_page_writes", "erasures", "wa")
        ):
            rel = max(
                1.96 * row["_write_rse"] if not pd.isna(row["_write_rse"]) else 0.0,
                row["erasures_ci95"] / row["erasures"] if not pd.isna(row["erasures_ci95"]) else 0.0,
            )
            if rel > MINI_FLASH_TARGET:
                warn.append(
                    f"flash writes and erasures uncertain by ±{rel:.0%} from which pages the sample holds"
                )
        g = df[df["size_pages"] == row["size_pages"]]
        if "mini_plane_blocks" in g and g["mini_plane_blocks"].notna().all():
            mini, full = int(g["mini_plane_blocks"].iloc[0]), int(g["full_plane_blocks"].iloc[0])
            if row["write_amplification"] > MINI_WA_WARN and mini < full and about("wa", "erasures"):
                warn.append(
                    f"GC-heavy (WA {row['write_amplification']:.2f}) on miniature planes of {mini} blocks "
                    f"(the full drive's: {full}): WA and erasures may read a few % high"
                )
        s.loc[i, "warnings"] = "; ".join(warn)
    s = s.drop(columns="_write_rse")
    s.attrs.update(df.attrs)
    return s


#: The sizes, as shares of the working set, at which `fcsim mrc` prints a curve by default.
MRC_SHARES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]


def mrc_compare(
    trace: str | os.PathLike[str],
    method: str = "shards",
    *,
    rate: float | None = None,
    max_samples: int | None = None,
    policy: str | None = None,
    at: str | int | Iterable[str | int] | None = None,
    seed: int = 0,
    seeds: int = 1,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """A sampled miss-ratio curve against its reference, with ``seeds`` seeds of the sampling
    hash (``seed`` + 0 .. ``seeds`` - 1): ``fcsim mrc --compare --seeds N``. ``method`` is
    ``shards`` (the reference is LRU's exact curve) or ``minisim`` (full runs of ``policy``).
    The sizes are ``at`` (pages, bytes or percent of the working set; for minisim, the sizes
    simulated), else for shards 1%, 2%, 5%, 10%, 20%, 50% and 100% of the exact working set,
    for minisim :func:`mrc`'s default sizes. Other arguments are :func:`mrc`'s.

    Returns one row per seed and size: ``seed``, ``size`` (as given or the share),
    ``size_pages``, ``miss_ratio``, ``reference``, ``abs_error``. Each seed's mean absolute
    error is ``df.groupby("seed")["abs_error"].mean()``, and their mean and 95% confidence
    interval :func:`fcsim.seeds.ci95` of those. ``attrs``: ``seeds``, ``method`` and the first
    seed's curve's ``attrs`` as ``curve`` (see :func:`mrc`). The curves themselves and the
    reference's are :func:`mrc_comparison`'s."""
    return mrc_comparison(
        trace,
        method,
        rate=rate,
        max_samples=max_samples,
        policy=policy,
        at=at,
        seed=seed,
        seeds=seeds,
        format=format,
        volume=volume,
        skip_bad_lines=skip_bad_lines,
        page_size=page_size,
        set=set,
        progress=progress,
    ).rows


@dataclass(frozen=True, eq=False)
class MrcComparison:
    """What :func:`mrc_comparison` returns, each its own DataFrame:

    - ``rows``: one row per seed and size (what :func:`mrc_compare` returns);
    - ``curves``: each seed's sampled curve (:func:`mrc`), in seed order;
    - ``reference``: the reference curve: LRU's exact one for shards (:func:`mrc`), or for
      minisim the full runs' (``size_pages``, ``miss_ratio``; ``attrs`` ``method="full"`` and
      ``policy``)."""

    rows: pd.DataFrame
    curves: list[pd.DataFrame]
    reference: pd.DataFrame


def mrc_comparison(
    trace: str | os.PathLike[str],
    method: str = "shards",
    *,
    rate: float | None = None,
    max_samples: int | None = None,
    policy: str | None = None,
    at: str | int | Iterable[str | int] | None = None,
    seed: int = 0,
    seeds: int = 1,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> MrcComparison:
    """:func:`mrc_compare`, with the curves it compared (see :class:`MrcComparison`); ``fcsim
    mrc --compare`` prints and writes from it."""
    n = _seeds.count(seeds)
    if method not in ("shards", "minisim"):
        raise ConfigError(f"mrc_compare: method {method!r}: expected shards or minisim (sampled curves)")
    integer("seed", seed, 0, U64_MAX - n)
    at_list = None if at is None else listed(at, (str, int), size_text)
    if at_list is not None:
        if not at_list:
            raise ConfigError("at: expected at least one size")
        for x in at_list:
            _core.check_size(x)
    opts = {"format": format, "volume": volume, "skip_bad_lines": skip_bad_lines, "page_size": page_size}
    kw = {"rate": rate, "max_samples": max_samples, "policy": policy, "set": set, **opts}
    if method == "minisim":
        curves = [mrc(trace, method, seed=seed + i, sizes=at_list, progress=progress, **kw) for i in range(n)]
        pages = [int(p) for p in curves[0]["size_pages"]]
        full = run_grid(trace, [str(policy)], pages, set=set, **opts)
        reference = [1.0 - h for h in full["hit_ratio"]]
        ref_curve = pd.DataFrame({"size_pages": pages, "miss_ratio": reference})
        ref_curve.attrs.update(method="full", policy=curves[0].attrs["policy"])
        ws = curves[0].attrs["cold"]
        # A size as given (--at), else its share of the working set.
        given = {_core.size_pages(x, page_size, ws): x for x in at_list or []}
        labels = [given.get(p, f"{p / ws:.2%}" if ws else str(p)) for p in pages]
    else:
        exact = ref_curve = mrc(trace, "exact", set=set, progress=progress, **opts)
        ws = exact.attrs["cold"]
        if at_list is not None:
            labels = at_list
            pages = [_core.size_pages(x, page_size, ws) for x in at_list]
        else:
            labels = [f"{x:.0%}" for x in MRC_SHARES]
            pages = [share_pages(x, page_size, ws) for x in MRC_SHARES]
        reference = [mrc_at(exact, p) for p in pages]
        curves = [mrc(trace, method, seed=seed + i, progress=progress, **kw) for i in range(n)]
    rows = []
    for i, curve in enumerate(curves):
        ratios = list(curve["miss_ratio"]) if method == "minisim" else [mrc_at(curve, p) for p in pages]
        for label, p, m, r in zip(labels, pages, ratios, reference, strict=True):
            rows.append(
                {
                    "seed": seed + i,
                    "size": label,
                    "size_pages": p,
                    "miss_ratio": m,
                    "reference": r,
                    "abs_error": abs(m - r),
                }
            )
    df = pd.DataFrame(rows)
    df.attrs.update(seeds=n, method=method, curve=dict(curves[0].attrs))
    return MrcComparison(df, curves, ref_curve)


def share_pages(share: float, page_size: int, ws: int) -> int:
    """A share of the working set in pages, as ``fcsim run`` resolves ``--size 5%`` (at least
    one page)."""
    try:
        return int(_core.size_pages(f"{share:.0%}", page_size, ws))
    except ConfigError:  # less than one page
        return 1


def mrc_at(curve: pd.DataFrame, size_pages: int) -> float:
    """The miss ratio of an MRC from `mrc()` at a cache size in pages: that of the last row at or
    below it (1 below the first row). For minisim, whose rows are the sizes simulated, that is
    the nearest smaller simulated size."""
    columns = ("size_pages", "miss_ratio")
    if not (
        isinstance(curve, pd.DataFrame)
        and set(columns) <= set(curve.columns)
        and all(pd.api.types.is_numeric_dtype(curve[c]) for c in columns)
    ):
        raise ConfigError(
            f"curve={type(curve).__name__}: expected a curve from fcsim.mrc() "
            "(a DataFrame with numeric size_pages and miss_ratio)"
        )
    integer("size_pages", size_pages, 0, U64_MAX)
    steps = curve[curve["size_pages"] <= size_pages]
    if steps.empty:
        return 1.0
    return float(steps["miss_ratio"].iloc[-1])
