"""Admission trade-offs (issue 43, item 4): ``fcsim pareto`` runs one policy at one size as a
flash cache over a disk under each admission policy, sweeping the admission's knob (or the
write budget), and marks the points on the Pareto frontier of flash writes against read hits.

**Points.** Each admission declares its knob, a parameter whose larger values admit more
(``fcsim admissions``; the seam of ``stack/admission/mod.rs``). Its points are ``points``
values of the knob over its declared range (:func:`knob_values`): log-spaced over a range that
spans a factor of ten or more and starts above 0, or at 0 (a probability from 0.01 to 1, a
count threshold from 1 to 64), else evenly spaced (a signed slack from -16 to 16); whole
numbers when the knob's default and bounds are whole. ``all`` (admit every miss) and an
admission without a knob are one point. With ``budgets`` (drive writes per day) every
admission runs instead at each budget under the budget controller, which turns the knob
itself (:data:`BUDGET_KEY`; ``opt`` and ``ml``, which plan from the whole trace, are swept on
their knobs still). Every point is a flash cache (``stack.kind=ssd-cache``) over the
disk, with the caller's ``--set`` keys.

**Frontier** (:func:`frontier`): a point is on it when no other point of the whole table
writes no more (``dwpd`` no higher) and hits no less (``read_hit_ratio`` no lower), being
strictly better in one. Only those two enter: the peak disk-head time (``peak_dt``) is plotted
against both, not ranked, because a lower miss ratio does not always lower the peak (misses in
a quiet hour cost no peak) and a three-way frontier keeps nearly every point. On a trace
without timestamps ``dwpd`` is null (the row's ``dwpd_null_reason`` says why) and the frontier
is taken over ``cache_writes`` instead: for one trace, size and drive, DWPD is the cache's
writes over a constant, so the order is the same.

**The bound at each write rate.** ``opt`` (the offline bound) is swept on its knob like the
others, then run again at the write rate of each other point: its knob is read off its own
curve (linear between its two nearest points) for that point's ``dwpd``, and once more scaled
by the ratio of the rate asked to the rate got if it wrote more. So the table holds the bound
at every online point's write rate, not only at a coarse grid of its own.

**Two measured spans.** A learned admission (``ml``) trains on the first ``admit.train`` of
the requests (default 0.3) and its row leaves them out as a warm-up: its read hits and DWPD are
of the rest of the trace, with a cache it filled while training, so its rows measure another
span than the others'. The frontier is taken over the rows of the whole trace only (rows with a
warm-up have ``frontier`` false). Its bound is ``opt`` over the same span (``admit.train``: the
same warm-up, uncounted; the plan starts from the best cache content at the boundary, see
``stack/admission/opt.rs``), run at each such row's own writes (:func:`_span_bounds`: knob
``writes``, the cap, so it writes no more than the row); those opt rows have the warm-up too.
Giving every point the whole-trace bound's span instead is no cure: writes made in a warm-up
fill the cache for free, so an admission that admits everything while it is not measured and
nothing after (TinyLFU at a low slack) looks better than a bound that pays for its fill.

**Running.** The points are checked whole before any runs (:func:`fcsim.grid.check`) and run
in parallel on the grid engine (:func:`fcsim.grid.run_points`), as a sweep's are.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from fcsim import grid as _grid
from fcsim import registry, schema
from fcsim._core import ConfigError
from fcsim.checks import Problems, sections
from fcsim.simulation import reader_options, trace_path

#: The admission that admits every miss: one point, no knob.
ALL = "all"
#: The ``--set`` key of the write budget (drive writes per day) a budget controller holds.
BUDGET_KEY = "admit.budget"
#: Knob values per admission by default.
POINTS = 8
#: The columns a pareto table leads with, after which come the run's row columns.
LEAD = ["admission", "knob", "knob_value", "budget_dwpd", "frontier"]
#: The columns printed by ``fcsim pareto``.
SHOWN = [
    "admission",
    "knob",
    "knob_value",
    "budget_dwpd",
    "dwpd",
    "nand_dwpd",
    "hit_ratio",
    "read_hit_ratio",
    "byte_miss_ratio",
    "peak_dt",
    "frontier",
]


def admissions() -> dict[str, dict[str, Any]]:
    """The registered admissions by name (:func:`fcsim.admissions`), ``all`` among them."""
    listed = {a["name"]: a for a in registry.admissions()}
    listed.setdefault(ALL, {"name": ALL, "knob": None, "params": []})
    return listed


def _whole(x: Any) -> bool:
    return isinstance(x, int) or (isinstance(x, float) and math.isfinite(x) and x == int(x))


def knob_values(info: Mapping[str, Any], points: int = POINTS) -> list[float]:
    """The values of an admission's knob a sweep takes (see the module's doc): ``points``
    values over the knob's range, ascending; [] for an admission without a knob. An unbounded
    range is cut at 64 times the default (or 64)."""
    knob = info.get("knob")
    if not knob:
        return []
    param = next((p for p in info.get("params", []) if p["name"] == knob), None)
    if param is None:
        raise ConfigError(f"admission {info['name']}: its knob {knob} is not one of its parameters")
    lo, hi, default = float(param["lo"]), float(param["hi"]), float(param["default"])
    if not math.isfinite(hi):
        hi = 64.0 * default if default > 0 else 64.0
    # Whole when the bounds and default are, and the range holds a whole number per point (a
    # share from 0 to 1 with default 1 is not whole).
    whole = all(_whole(x) for x in (param["lo"], param["default"])) and _whole(hi) and hi - lo >= points
    if lo == 0.0 and hi <= 1.0:
        lo = 0.01  # a probability or a share: 0 admits nothing, a point nothing is learnt from
    elif lo == 0.0:
        lo = 1.0 if whole else hi / 100.0
    if points <= 1 or hi <= lo:
        values = [hi]
    elif lo > 0.0 and hi / lo >= 10.0:
        values = [lo * (hi / lo) ** (i / (points - 1)) for i in range(points)]
    else:
        values = [lo + (hi - lo) * i / (points - 1) for i in range(points)]
    if whole:
        values = [float(round(v)) for v in values]
    return sorted(dict.fromkeys(float(f"{v:.6g}") for v in values))


def plan(
    trace: str,
    policy: str,
    admits: Sequence[str],
    size: str,
    *,
    device: str | None = None,
    set: Mapping[str, Any] | None = None,
    budgets: Sequence[float] | None = None,
    points: int = POINTS,
) -> list[_grid.Point]:
    """The points of a pareto run, in order: each admission's, its knob (or budget) ascending.
    Each point carries ``admission``, ``knob``, ``knob_value`` and ``budget_dwpd`` for its
    row. ConfigError (every problem, a line each) for an unknown admission, a budget not above
    0, or fewer than one point."""
    problems = Problems()
    known = admissions()
    if not admits:
        problems.add("--admit: expected at least one admission (see 'fcsim admissions')")
    for a in admits:
        if a not in known:
            problems.add(f"--admit {a}: unknown admission; expected one of {', '.join(sorted(known))}")
    if points < 1:
        problems.add(f"--points {points}: expected at least 1")
    for b in budgets or []:
        if not (isinstance(b, int | float) and math.isfinite(b) and b > 0):
            problems.add(f"--budgets {b}: expected drive writes per day above 0")
    problems.raise_any()
    base = {**dict(set or {}), "stack.kind": "ssd-cache"}
    out: list[_grid.Point] = []

    def point(
        a: str, extra: dict[str, Any], knob: str | None, value: float | None, budget: float | None
    ) -> None:
        sets = {**base, "stack.admit": a, **extra}
        pt = _grid.expand(trace, [policy], [size], [device], [sets])[0]
        pt.update(admission=a, knob=knob, knob_value=value, budget_dwpd=budget)
        out.append(pt)

    for a in dict.fromkeys(admits):
        info = known[a]
        # The bound and the learned admission plan from the whole trace: swept on their knobs.
        if budgets and a not in (ALL, BOUND, "ml") and info.get("knob"):
            for b in sorted(budgets):
                point(a, {BUDGET_KEY: b}, info["knob"], None, float(b))
            continue
        values = knob_values(info, points)
        if not values:
            point(a, {}, None, None, None)
        for v in values:
            point(a, {f"admit.{info['knob']}": v}, info["knob"], v, None)
    return out


def frontier(df: pd.DataFrame, x: str = "dwpd", y: str = "read_hit_ratio") -> pd.Series:
    """Whether each row is on the Pareto frontier of the whole table: no other row has ``x`` no
    higher and ``y`` no lower, one of them strictly (lower ``x`` and higher ``y`` are better).
    Equal points are both on it; a row with ``x`` or ``y`` null is not, and hides no other."""
    xs = pd.to_numeric(df[x], errors="coerce").astype(float).to_numpy()
    ys = pd.to_numeric(df[y], errors="coerce").astype(float).to_numpy()
    ok = [not (math.isnan(a) or math.isnan(b)) for a, b in zip(xs, ys, strict=True)]
    on = []
    for i in range(len(xs)):
        if not ok[i]:
            on.append(False)
            continue
        dominated = any(
            ok[j] and xs[j] <= xs[i] and ys[j] >= ys[i] and (xs[j] < xs[i] or ys[j] > ys[i])
            for j in range(len(xs))
        )
        on.append(not dominated)
    return pd.Series(on, index=df.index, dtype="boolean")


def frontier_axis(df: pd.DataFrame) -> str:
    """The write measure the frontier ranks by: ``dwpd``, or ``cache_writes`` when some row
    has no DWPD (a trace without timestamps; see the module's doc)."""
    return "dwpd" if len(df) and df["dwpd"].notna().all() else "cache_writes"


def run(
    trace: str | os.PathLike[str],
    policy: str,
    admits: str | Iterable[str],
    size: str | int,
    *,
    device: str | None = None,
    budgets: Sequence[float] | None = None,
    points: int = POINTS,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    jobs: int | None = None,
    progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """The pareto table of ``policy`` at ``size`` over ``trace`` under each admission of
    ``admits`` (a name, a comma-separated list, or a list): one row per point (:func:`plan`),
    led by :data:`LEAD` (``frontier`` from :func:`frontier`), then the run's row columns. Every
    point is checked before any runs; they run ``jobs`` at a time (default: the cores)."""
    names = [a.strip() for a in admits.split(",")] if isinstance(admits, str) else [str(a) for a in admits]
    sections(dict(set or {}))  # a bad key fails here, once
    opts = reader_options(format, volume, skip_bad_lines, page_size)
    path = trace_path(trace, skip_bad_lines=skip_bad_lines)
    if not path.startswith("synth:") and not os.path.exists(path):
        raise ConfigError(f"{path}: no such trace file")
    pts = plan(path, policy, names, str(size), device=device, set=set, budgets=budgets, points=points)
    problems = Problems()
    ws = _grid.check(pts, problems, jobs, opts)
    problems.raise_any()

    def table(pts: list[_grid.Point]) -> pd.DataFrame:
        rows = _grid.run_points(pts, ws, jobs=jobs, progress=progress, options=opts)
        df = schema.frame(rows, schema.ROWS)
        lead = pd.DataFrame(
            {
                "admission": pd.Series([p["admission"] for p in pts], dtype="string"),
                "knob": pd.Series([p["knob"] for p in pts], dtype="string"),
                "knob_value": pd.Series([p["knob_value"] for p in pts], dtype="Float64"),
                "budget_dwpd": pd.Series([p["budget_dwpd"] for p in pts], dtype="Float64"),
            }
        )
        return pd.concat([lead, df.drop(columns=[c for c in lead.columns if c in df.columns])], axis=1)

    df = table(pts)
    known = admissions()
    if BOUND in names and known[BOUND].get("knob") and not budgets:
        info, knob = known[BOUND], known[BOUND]["knob"]
        param = next(p for p in info["params"] if p["name"] == knob)
        template = next(p for p in pts if p["admission"] == BOUND)
        for _ in range(2):
            values = _bound_knobs(df, float(param["lo"]), float(param["hi"]))
            if not values:
                break
            more = []
            for v in values:
                pt = {**template, "set": {**template["set"], f"admit.{knob}": v}, "knob_value": v}
                more.append(pt)
            df = pd.concat([df, table(more)], ignore_index=True)
    if BOUND in names:
        # Every row with a warm-up (ml's) gets opt over its own span at its own writes.
        template = next(p for p in pts if p["admission"] == BOUND)
        more = []
        for sets in _span_bounds(df):
            pt = {**template, "set": {**template["set"], **sets}}
            more.append({**pt, "knob": "writes", "knob_value": sets["admit.writes"]})
        if more:
            df = pd.concat([df, table(more)], ignore_index=True)
        df = df.sort_values(["admission", "knob_value"], kind="stable", key=_admission_order(names))
        span = [c for c in ("knob", "warmup_requests") if c in df.columns]
        key = ["admission", "knob_value", "budget_dwpd", *span]
        df = df.drop_duplicates(subset=key).reset_index(drop=True)
    df.insert(LEAD.index("frontier"), "frontier", ranked_frontier(df))
    return df


def with_knobs(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` (rows of any run: a sweep's, ``fcsim run``'s) with the pareto table's ``knob``,
    ``knob_value`` (from the row's ``admit_<knob>`` column) and ``budget_dwpd`` (null) where
    it has none, so that :func:`plot` draws it."""
    out = df.copy()
    adm = out["admission"].astype(object).where(out["admission"].notna(), ALL).astype(str)
    out["admission"] = adm.astype("string")
    known = admissions()
    if "knob" not in out.columns:
        out["knob"] = pd.Series([known.get(a, {}).get("knob") for a in adm], index=out.index, dtype="string")
    if "knob_value" not in out.columns:
        values = [
            pd.to_numeric(r.get(f"admit_{k}"), errors="coerce") if isinstance(k, str) else None
            for k, (_, r) in zip(out["knob"], out.iterrows(), strict=True)
        ]
        out["knob_value"] = pd.Series(values, index=out.index, dtype="Float64")
    if "budget_dwpd" not in out.columns:
        out["budget_dwpd"] = pd.Series(pd.NA, index=out.index, dtype="Float64")
    return out


def ranked_frontier(df: pd.DataFrame) -> pd.Series:
    """:func:`frontier` over the rows of the whole trace (no warm-up; see the module's doc),
    along :func:`frontier_axis`; rows with a warm-up are not on it."""
    whole = (
        df["warmup_requests"].isna() if "warmup_requests" in df.columns else pd.Series(True, index=df.index)
    )
    on = pd.Series(False, index=df.index, dtype="boolean")
    ranked = df[whole]
    if len(ranked):
        on[ranked.index] = frontier(ranked, frontier_axis(ranked))
    return on


#: The offline bound, run again at every other point's write rate.
BOUND = "opt"


def _admission_order(names: Sequence[str]) -> Callable[[pd.Series], pd.Series]:
    """A sort key: admissions in the order asked, knob values ascending."""
    rank = {n: i for i, n in enumerate(dict.fromkeys(names))}

    def key(col: pd.Series) -> pd.Series:
        return col.map(rank) if col.name == "admission" else col

    return key


def _bound_knobs(df: pd.DataFrame, lo: float, hi: float) -> list[float]:
    """The bound's knob values for the write rates of the other points of the whole trace that
    no bound point has yet (within 1%): each read off the bound's curve (linear between its
    nearest points, knob ascending), or, where the bound's nearest point below wrote more than
    asked, its knob scaled by the ratio of the rates (see the module's doc)."""
    x = frontier_axis(df)
    whole = (
        df["warmup_requests"].isna() if "warmup_requests" in df.columns else pd.Series(True, index=df.index)
    )
    bound = df[(df["admission"] == BOUND) & whole & df[x].notna()].sort_values("knob_value")
    others = df[(df["admission"] != BOUND) & whole & df[x].notna()]
    if len(bound) < 2 or others.empty:
        return []
    xs, ks = bound[x].astype(float).tolist(), bound["knob_value"].astype(float).tolist()
    out: list[float] = []
    for target in sorted(dict.fromkeys(others[x].astype(float))):
        if target <= 0 or any(
            abs(b - target) <= 0.01 * target or (b <= target and b >= 0.99 * target) for b in xs
        ):
            continue
        below = [(b, k) for b, k in zip(xs, ks, strict=True) if b <= target]
        above = [(b, k) for b, k in zip(xs, ks, strict=True) if b > target]
        if not above:
            continue  # the bound at its most writes less: its last point covers it
        if below:
            (b0, k0), (b1, k1) = below[-1], above[0]
            v = k0 + (k1 - k0) * (target - b0) / (b1 - b0) if b1 > b0 else k0
        else:
            b1, k1 = above[0]
            v = k1 * target / b1
        v = min(hi, max(lo, v))
        if v not in ks and v not in out:
            out.append(float(f"{v:.6g}"))
    return out


def _span_bounds(df: pd.DataFrame) -> list[dict[str, float]]:
    """The ``--set`` keys of ``opt`` over the span of each row with a warm-up (``ml``'s): the
    same ``admit.train``, ``admit.share`` 1 and ``admit.writes`` the row's host writes to the
    cache per page access of its span (``cache_writes`` over ``accesses``), so that opt writes
    no more than it over the same requests (see the module's doc). One per distinct (train,
    writes)."""
    if "warmup_requests" not in df.columns or "admit_train" not in df.columns:
        return []
    later = df[df["warmup_requests"].notna() & (df["admission"] != BOUND)]
    out: dict[tuple[float, float], dict[str, float]] = {}
    for _, r in later.iterrows():
        train = pd.to_numeric(r["admit_train"], errors="coerce")
        writes, accesses = r.get("cache_writes"), r.get("accesses")
        if pd.isna(train) or pd.isna(writes) or pd.isna(accesses) or int(accesses) == 0:
            continue
        per = min(1.0, int(writes) / int(accesses))
        sets = {"admit.train": float(train), "admit.share": 1.0, "admit.writes": per}
        out.setdefault((float(train), per), sets)
    return list(out.values())


def plot(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Draws a pareto table to ``path`` (.png, .svg, .pdf): read hit ratio against DWPD, peak
    disk-head time against DWPD, and peak disk-head time against read hit ratio, one curve per
    admission (its knob ascending; ``opt`` dashed, black), the frontier's points ringed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fcsim import plot as _plot

    x = frontier_axis(df)
    xlabel = "flash writes, DWPD (host writes to the cache)" if x == "dwpd" else "flash cache writes, pages"
    panels = [
        (x, "read_hit_ratio", xlabel, "read hit ratio"),
        (x, "peak_dt", xlabel, "peak disk-head time (busiest window)"),
        ("read_hit_ratio", "peak_dt", "read hit ratio", "peak disk-head time (busiest window)"),
    ]
    names = list(dict.fromkeys(df["admission"].astype(str)))
    cmap = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    colours = [cmap(i) for i in range(len(names))]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), layout="constrained")
    for ax, (cx, cy, lx, ly) in zip(axes, panels, strict=True):
        later = (
            df["warmup_requests"].notna()
            if "warmup_requests" in df.columns
            else pd.Series(False, index=df.index)
        )
        for name, colour in zip(names, colours, strict=True):
            for span in (False, True):
                d = df[(df["admission"].astype(str) == name) & (later == span)]
                if d.empty:
                    continue
                d = d.sort_values(["knob_value", "budget_dwpd"], na_position="first")
                if name == BOUND and span:  # its knob is the writes cap: along the writes
                    d = d.sort_values(cx)
                xs, ys = d[cx].astype(float), d[cy].astype(float)
                style: dict[str, Any] = {"color": colour, "marker": "o", "markersize": 4}
                if name == BOUND:
                    style.update(color="black", linestyle="--")
                elif name == ALL:  # one point, often under another curve's last
                    style.update(marker="s", markersize=9, markerfacecolor="none", markeredgewidth=1.5)
                label = name
                if span:
                    label, style["linestyle"] = f"{name} (after the warm-up: not ranked)", ":"
                    if name == BOUND:
                        style.update(marker="x", color="dimgrey")
                        label = f"{name} over ml's span (after the warm-up: not ranked)"
                ax.plot(xs, ys, label=label, **style)
        f = df[df["frontier"].fillna(False).astype(bool)]
        ax.scatter(
            f[cx].astype(float),
            f[cy].astype(float),
            s=120,
            facecolors="none",
            edgecolors="red",
            linewidths=1.5,
            label="frontier",
            zorder=3,
        )
        if cx == x:
            # Write rates span orders of magnitude and start at 0: linear below 1, log above.
            ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel(lx)
        ax.set_ylabel(ly)
        ax.grid(True, alpha=0.3)
    trace = str(df["trace"].iloc[0]) if len(df) else ""
    policy = str(df["policy"].iloc[0]) if len(df) else ""
    size = int(df["size_pages"].iloc[0]) if len(df) else 0
    fig.suptitle(f"admission trade-offs: {trace}, {policy}, {size} pages (frontier: {x} vs read hit ratio)")
    axes[0].legend(fontsize="small")
    _plot.save(fig, path)
