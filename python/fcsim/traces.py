"""Traces: their statistics (:func:`trace_info`), conversion (:func:`convert`), clone models
(:func:`clone`) and fidelity reports (:func:`fidelity`, :func:`compare`: how well one trace,
typically a clone, stands in for another).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from fcsim import _core, output, schema
from fcsim import seeds as _seeds
from fcsim._core import ConfigError
from fcsim.checks import boolean, callback, check_policy, listed, path, sections, text
from fcsim.simulation import Progress, trace_kwargs, trace_path


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
        trace_path(trace, skip_bad_lines=skip_bad_lines),
        **trace_kwargs(format, volume, skip_bad_lines, page_size, _trace_sets(set, "set", "trace info")),
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
    ``fct``, ``lcs-csv``, ``oracle-general``; by default from ``out``'s name). Atomic.

    Returns the trace's statistics (as ``trace_info``) and ``dropped``: what the target format
    does not carry, one sentence each (libCacheSim's formats hold page accesses, not requests;
    oracleGeneral has no read/write flag, while the CSV keeps it in an ``op`` column).

    ``out`` is checked first by :func:`fcsim.output.guard`: the trace itself (by any name), a
    pipe, a device, a directory or a path in a missing directory is refused before any work;
    a symbolic link is not replaced, the file it names is written."""
    trace_params = _trace_sets(set, "set", "a conversion")
    name = trace_path(trace, fit=False)
    target = output.guard(path("out", out), [name])
    _core.prefit_clone(name, skip_bad_lines=boolean("skip_bad_lines", skip_bad_lines))
    return _core.convert_trace(
        name,
        str(target),
        to=None if to is None else text("to", to),
        annotate_next=boolean("annotate_next", annotate_next),
        progress=callback(progress),
        **trace_kwargs(format, volume, skip_bad_lines, page_size, trace_params),
    )


def clone(
    trace: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    set: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Fits a clone model to ``trace`` and saves it to ``out`` (a small text file, written
    atomically), so that ``synth:clone=OUT[,scale=K][,length=N][,seed=S]`` generates clones
    without the original. Returns ``source``, ``requests``, ``pages``, ``accesses``,
    ``bad_lines`` (the malformed lines skipped, with ``skip_bad_lines``), ``timed`` and
    ``notes`` (what the model leaves out, one sentence each). ``out`` is checked as
    :func:`convert` checks its output."""
    name = trace_path(trace, skip_bad_lines=skip_bad_lines)
    target = output.guard(path("out", out), [name])
    kwargs = trace_kwargs(format, volume, skip_bad_lines, 4096, _trace_sets(set, "set", "a clone's fit"))
    del kwargs["page_size"]
    return _core.clone_model(name, str(target), **kwargs)


def _trace_sets(set: Mapping[str, Any] | None, name: str, what: str = "a fidelity report") -> dict[str, str]:
    """The ``trace.*`` keys of ``set`` (argument ``name``); ConfigError for a key of any other
    section, which ``what`` (it reads traces, and a fidelity report runs LRU) would ignore."""
    sets = sections(set)
    other = [f"{k}.{key}" for k in ("device", "stack", "sim") for key in sets[k]]
    other += [f"{p}.{key}" for p, keys in sets["policy"].items() for key in keys]
    if other:
        raise ConfigError(f"{name}: {other[0]}: {what} takes trace.KEY options only, which read the trace")
    return sets["trace"]


COMPARE_COLUMNS = [c.name for c in schema.COMPARISON]
PANEL: tuple[str, ...] = tuple(_core.PANEL)


def _panel(panel: Iterable[str] | None) -> list[str]:
    """The policies of a fidelity report's panel (default :data:`PANEL`), each a registered
    policy (the same check as ``simulate``'s); the core refuses fewer than two, a repeat, or
    one that needs a device or is an offline bound."""
    if panel is None:
        return list(PANEL)
    names = listed(panel, str, lambda p: text("panel", p).strip().lower())
    for p in names:
        try:
            check_policy(p)
        except ConfigError as e:
            raise ConfigError(f"panel: {e}") from None
    return names


def baseline_spec(info: Mapping[str, Any]) -> str:
    """The naive baseline of a trace, from its :func:`trace_info`: one ``synth:calibrated`` spec
    with its requests, ``pages`` = its unique pages, ``write`` = writes / (reads + writes),
    ``mean_size`` = bytes / requests, ``read_locality`` and ``write_locality`` = its P/A (an op
    the trace lacks has none: a read-only trace gives ``write=0`` and no ``write_locality``),
    and ``iops`` = requests / span in seconds (0, untimed, for an untimed trace; omitted, the
    kind's default rate, for a timed one with a zero span). Its
    page unit is the trace's page size. Sizes are left out for an object-id trace (one page a
    request), and a mean below one 512 B sector (the smallest ``mean_size``) is given as
    ``size``."""
    requests = int(info["requests"])
    rw = int(info["reads"]) + int(info["writes"])
    parts = [
        f"requests={requests}",
        f"pages={int(info['unique_pages'])}",
        f"write={(int(info['writes']) / rw if rw else 0.0):.6g}",
        f"unit={int(info['page_size'])}",
    ]
    if not info["object_keys"] and requests:
        mean = int(info["bytes"]) / requests
        parts.append(f"mean_size={mean:.6g}" if mean >= 512 else f"size={max(1, round(mean))}")
    for key in ("read_locality", "write_locality"):
        loc = info[key]
        if loc is not None and 0 < loc[0] < 1:
            parts.append(f"{key}={100 * loc[0]:.6g}/{100 * loc[1]:.6g}")
    span_s = (info["span_ns"] or 0) / 1e9
    if info["timed"] and span_s > 0:
        parts.append(f"iops={requests / span_s:.6g}")
    elif not info["timed"]:
        parts.append("iops=0")  # untimed, as A is (the kind's default rate would time it)
    return "synth:calibrated," + ",".join(parts)


def fidelity(
    trace: str | os.PathLike[str],
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    panel: Iterable[str] | None = (),
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The measures of one trace that a fidelity report compares (see :func:`compare`): one key
    per measure (None where it does not apply, the reason in ``notes``; ``measures`` lists
    them), plus ``bursty`` (Fano factor at 1 s above 2), ``mrc_shares`` and ``mrc_miss_ratio``
    (LRU's curve at 1%..50% of the working set), ``lru_pages`` (the sizes of the 1% and 10% LRU
    runs), ``time_resolution_ns`` (gcd of the non-zero steps between consecutive request times)
    and the hit ratios of ``panel``'s policies at those sizes (``panel``, ``panel_shares``,
    ``panel_pages``, ``panel_hit_ratio``: one list per size; no panel by default, None for
    :data:`PANEL`)."""
    tkw = trace_kwargs(format, volume, skip_bad_lines, page_size, _trace_sets(set, "set"))
    given = None if panel is None else list(panel)
    names = _panel(given) if given is None or given else []
    return _core.trace_fidelity(
        trace_path(trace, skip_bad_lines=skip_bad_lines), panel=names, progress=callback(progress), **tkw
    )


@dataclass(frozen=True, eq=False)
class Comparison:
    """What :func:`compare` returns: the report's rows and what it was computed from.

    - ``rows``: one row per measure (a DataFrame; see :func:`compare`).
    - ``panel``: the panel's hit ratios, one row per policy and share of the working set:
      ``policy``, ``share``, and the hit ratio on ``a``, ``h1``, ``h2``, ``b`` and ``baseline``
      (None without a baseline).
    - ``a``, ``b``, ``baseline``: each trace's measures (:func:`fidelity`; ``baseline`` None
      with ``baseline=False``), ``halves``: those of A's two halves, and ``baseline_spec``: the
      baseline's ``synth:`` spec (:func:`baseline_spec`, None without a baseline).
    - ``over_seeds``: with ``seeds`` above 1, every measure's value, score, bound and status on
      each seed index of B (``schema.OVER_SEEDS``; :func:`seed_summary` sums it up); ``rows``,
      ``panel`` and ``b`` are seed index 0's. None with one seed.
    - ``verdict`` and ``counts``: the report's verdict line (properties of ``rows``)."""

    rows: pd.DataFrame
    panel: pd.DataFrame
    a: dict[str, Any]
    b: dict[str, Any]
    baseline: dict[str, Any] | None
    halves: tuple[dict[str, Any], dict[str, Any]]
    baseline_spec: str | None
    over_seeds: pd.DataFrame | None = None

    @property
    def verdict(self) -> str:
        """``fail`` when B fails a checked measure, else ``pass`` (an untestable measure is
        never a pass, and never a fail); seed index 0's with several seeds."""
        return "fail" if self.rows["status"].eq("fail").any() else "pass"

    @property
    def counts(self) -> dict[str, int]:
        """B's measures by status (``pass``, ``fail``, ``untestable``), as the verdict line
        gives them."""
        counts = self.rows["status"].value_counts()
        return {k: int(counts.get(k, 0)) for k in ("pass", "fail", "untestable")}


def compare(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    *,
    format: str | None = None,
    volume: int | None = None,
    set: Mapping[str, Any] | None = None,
    format_b: str | None = None,
    volume_b: int | None = None,
    set_b: Mapping[str, Any] | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    panel: Iterable[str] | None = None,
    baseline: bool = True,
    seeds: int = 1,
    progress: Progress | None = None,
) -> Comparison:
    r"""The fidelity report of trace ``b`` (typically a clone, any trace or ``synth:`` spec)
    against trace ``a`` (its original), with every tolerance derived from ``a`` alone: ``a`` is
    cut into two halves by request count, each half is measured as a clone is, and a measure's
    tolerance is the worse of the halves' scores against ``a`` (README, "trace compare").

    Returns a :class:`Comparison`, whose ``rows`` hold one row per measure: ``measure``,
    ``description``, ``a``, ``b`` (for a measure of the pair, ``mrc_mae`` and ``panel_*``,
    ``b`` is B's value against A and ``a`` is None), ``difference`` (b - a), ``ratio`` (b / a),
    ``tolerance`` (as text), ``bound``, ``tolerance_from`` (``H1`` or ``H2``: the half that set
    it), ``h1``/``h2`` (the halves' scores), ``score`` (B's: \|b - a\|, \|ln b/a\| or the
    pair's value), ``status`` (``pass``, ``fail``, ``untestable`` when A cannot test a clone on
    the measure, ``""`` for a measure reported without a tolerance), ``note`` (why), and the
    naive baseline's ``baseline``, ``baseline_score``, ``baseline_status`` (None with
    ``baseline=False``; the baseline is :func:`baseline_spec` of ``a``).

    ``panel`` (default :data:`PANEL`) names the policies whose hit ratios at 1% and 10% of each
    trace's working set are ranked. ``format``, ``volume`` and ``set`` (``trace.KEY`` options,
    ``trace.skip``/``trace.take`` included) read ``a``; ``format_b``, ``volume_b`` and ``set_b``
    read ``b``.

    ``seeds`` (N, default 1) compares N seeds of ``b``, a ``synth:`` spec: seed index i sets its
    ``seed=`` key to the spec's seed (else 42) plus i, as ``--seeds`` does everywhere (README,
    "Seeds"); ``a``, its halves and the baseline are measured once. A clone's verdict can hang
    on its seed: ``over_seeds`` has every seed's scores and statuses."""
    n = _seeds.count(seeds)
    ka = trace_kwargs(format, volume, skip_bad_lines, page_size, _trace_sets(set, "set"))
    kb = trace_kwargs(format_b, volume_b, skip_bad_lines, page_size, _trace_sets(set_b, "set_b"))
    names = _panel(panel)
    boolean("baseline", baseline)
    name_a, name_b = (
        trace_path(a, skip_bad_lines=skip_bad_lines),
        trace_path(b, skip_bad_lines=skip_bad_lines),
    )
    # The core refuses a volume for a synth: trace; here the error names B's own option.
    for flag, name, kw in (("--volume", name_a, ka), ("--volume-b", name_b, kb)):
        if kw["volume"] is not None and name.startswith("synth:"):
            raise ConfigError(
                f"{flag} {kw['volume']}: {name} is a synth: trace, which has no volumes to pick; drop {flag}"
            )
    _whole_file_clone(name_a, name_b, ka)
    specs = [name_b]
    if n > 1:
        if not name_b.startswith("synth:"):
            raise ConfigError(
                f"seeds={n}: {name_b} is not a synth: spec, so it has no seed to vary; "
                "compare a clone (synth:clone=PATH) or another generator, or drop seeds"
            )
        seeded = {"trace": _seeds.spec_seed(name_b)}
        _seeds.check_range(seeded, n)
        specs = [_seeds.variant(name_b, {}, seeded, i)[0] for i in range(n)]
    spec = baseline_spec(_core.trace_info(name_a, **ka)) if baseline else None
    fa, fbs, fn, halves, reports = _core.trace_compare(
        name_a,
        specs,
        panel=names,
        baseline=spec,
        format=ka["format"],
        volume=ka["volume"],
        skip_bad_lines=ka["skip_bad_lines"],
        trace_params=ka["trace_params"],
        format_b=kb["format"],
        volume_b=kb["volume"],
        trace_params_b=kb["trace_params"],
        page_size=ka["page_size"],
        progress=callback(progress),
    )
    fb, rows = fbs[0], reports[0]
    traces = {"a": fa, "h1": halves[0], "h2": halves[1], "b": fb, "baseline": fn}
    table = [
        {
            "policy": p,
            "share": fa["panel_shares"][k],
            **{t: (None if f is None else f["panel_hit_ratio"][k][i]) for t, f in traces.items()},
        }
        for k in range(len(fa["panel_shares"]))
        for i, p in enumerate(fa["panel"])
    ]
    return Comparison(
        rows=schema.frame(pd.DataFrame(rows, columns=COMPARE_COLUMNS), schema.COMPARISON),
        panel=schema.frame(pd.DataFrame(table, columns=["policy", "share", *traces]), schema.PANEL),
        a=fa,
        b=fb,
        baseline=fn,
        halves=(halves[0], halves[1]),
        baseline_spec=spec,
        over_seeds=None if n == 1 else _over_seeds(specs, reports),
    )


def _whole_file_clone(name_a: str, name_b: str, ka: Mapping[str, Any]) -> None:
    """ConfigError when B clones A's file (``synth:clone=`` the same file) while A is read as a
    part of it (a volume, ``trace.skip``/``trace.take``): the clone would be fitted to the whole
    file and scored against the part, a verdict about two different workloads."""
    part = [] if ka["volume"] is None else [f"--volume {ka['volume']}"]
    part += [f"--set trace.{k}={v}" for k, v in ka["trace_params"].items() if k in ("skip", "take")]
    spec = name_b.removeprefix("synth:") if name_b.startswith("synth:") else ""
    found = re.findall(r"(?:^|,)\s*clone\s*=\s*([^,]*)", spec)
    if not part or not found:
        return
    try:
        same = os.path.samefile(found[-1].strip(), name_a)
    except OSError:
        return
    if same:
        raise ConfigError(
            f"B ({name_b}) clones the whole of {name_a}, but A is read with {' '.join(part)}: the report "
            f"would score a clone of the whole file against a part of it; fit a model of the same part "
            f"(fcsim trace clone {name_a} {' '.join(part)} -o MODEL) and compare against synth:clone=MODEL"
        )


def _over_seeds(specs: list[str], reports: list[list[dict[str, Any]]]) -> pd.DataFrame:
    """``Comparison.over_seeds``: each seed index's rows, long."""
    keep = ("measure", "b", "score", "bound", "status")
    table = [
        {"seed_index": i, "b_spec": spec, **{k: r[k] for k in keep}}
        for i, (spec, rows) in enumerate(zip(specs, reports, strict=True))
        for r in rows
    ]
    return schema.frame(pd.DataFrame(table, columns=[c.name for c in schema.OVER_SEEDS]), schema.OVER_SEEDS)


def seed_summary(over_seeds: pd.DataFrame) -> pd.DataFrame:
    """A report over seeds (``Comparison.over_seeds``) summed up, one row per checked measure in
    the report's order: ``measure``, ``bound``, B's ``score`` over the seeds (``mean``, ``min``,
    ``max``), how many seeds ``passed`` and ``failed``, and ``seeds``. A measure untestable on
    A, or reported without a tolerance, is left out (its status is the same on every seed)."""
    checked = over_seeds[over_seeds["status"].isin(["pass", "fail"])]
    by = checked.groupby("measure", sort=False)
    out = pd.DataFrame(
        {
            "bound": by["bound"].first(),
            "mean": by["score"].mean(),
            "min": by["score"].min(),
            "max": by["score"].max(),
            "passed": by["status"].apply(lambda s: int((s == "pass").sum())),
            "failed": by["status"].apply(lambda s: int((s == "fail").sum())),
            "seeds": by.size(),
        }
    )
    return out.reset_index()
