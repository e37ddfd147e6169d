"""A paper's claims as data, and the one engine that scores them (issue 30).

Each paper's report declares its claims as a list of :class:`Claim` (a claim about points: one
policy against a baseline, an order among policies, a range a figure must fall in) and
:class:`Contrast` (a statistic on one group of workloads against another's) and :class:`Sweep`
(one policy's figure along one of its own parameters: flat, or falling). A claim names:
its section of the paper, the metric, the paper's figure or the range fcsim reads it as, how a
point is read from the result rows (which rows, which traces, which policies, which baseline,
which comparison, and how the points are aggregated) and what a workload must reproduce to test
it (a claim family of :data:`fcsim.reports.testable.CLAIMS`, whose requirements come from the
workload's fidelity measures). :func:`evaluate` scores every claim the same way and returns a
:class:`Verdict` per claim; :func:`table` writes the one-screen verdict table and
:func:`disagreements` the disagreements in words and numbers.

Rules the engine holds for every paper:

- A claim is never scored on a workload that cannot test it (:meth:`testable.Gate.why`): it is
  scored on the others and says which it left out, or, if none is left, it is *untestable on
  this workload* with the reason.
- A point whose row says it cannot be scored (a non-empty ``unscored`` column: "no decision",
  saturated, too few rows; a report sets it) is left out with its reason; a claim left with no
  point is untestable, with those reasons.
- The paper's figure is fixed before any run: ``lo``/``hi`` in a claim are the paper's numbers,
  or the reading of its words stated in the report's module (never tuned to a result).

Reading a point (one per trace and ``at`` value, or per trace, ``at`` and policy): from the
rows of a trace at one ``at`` value (cache size, load, ...) the engine takes ``metric`` for each
policy and computes the point's value by ``compare``:

- ``change``: ``(policy / base - 1) x 100``, in percent (a cut is negative); passes if in
  ``[lo, hi]``.
- ``saving``: ``(1 - policy / base) x 100``, the share of ``base``'s figure ``policy`` saves;
  passes if in ``[lo, hi]``.
- ``gap``: ``(policy - base) / (ref - base) x 100``, the share of the gap from ``base`` to
  ``ref`` that ``policy`` covers; passes if in ``[lo, hi]``.
- ``drop``: ``(ref - policy) / base x 100``, what going from ``ref`` to ``policy`` removes, as a
  share of ``base``'s figure (a stage of a pipeline); passes if in ``[lo, hi]``.
- ``value``: the policy's figure itself; passes if in ``[lo, hi]``.
- ``below`` / ``above``: strictly below (above) every policy of ``base``.
- ``lowest`` / ``highest``: the least (greatest) of ``policy``'s policies is at or below
  (above) every other policy of ``base`` (default: every policy in the rows).
- ``between``: above every policy of ``over`` and below every policy of ``base``.
- ``order``: ``policy``'s policies' figures do not fall, in the order given (C <= M+ <= MIN).

and aggregates the points by ``aggregate``: ``every`` (all pass), ``most`` (more than half
pass), ``share`` (at least the share ``share`` of the points pass), ``some`` (at least one
passes), ``mean`` / ``median`` / ``min`` / ``max`` (the mean, median, least or greatest value lies
in ``[lo, hi]``).

A paper's "up to X" is its largest figure, on its own traces and setup. It is read as a band
around X (:func:`up_to`, :data:`UP_TO_FACTOR`), never one-sided: the claim's largest figure in
X's direction (``min`` for a cut, ``max`` for a gain) must have X's sign and lie within the
band. A cut twice the paper's says the workload is not the paper's as much as a cut half of it
does (issue 41)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from fcsim.reports import testable

COMPARES = (
    "change",
    "saving",
    "gap",
    "drop",
    "value",
    "below",
    "above",
    "lowest",
    "highest",
    "between",
    "order",
)
AGGREGATES = ("every", "most", "share", "some", "mean", "median", "min", "max")
#: The comparisons whose point value is a percentage.
PERCENT = ("change", "saving", "gap", "drop")

#: An "up to X" figure agrees when fcsim's largest figure has X's sign and lies within this
#: factor of X either way: [X / 2, 2 X] for a cut or a gain. Chosen before any result was looked
#: at (issue 41's own example): the paper's X is one trace's best point on a device and at sizes
#: fcsim does not have (GASA Table I gives no device beyond latencies; LCR's traces are not
#: shipped), so fcsim's figure is not expected to be X, only of X's sign and order: a factor
#: of 2 keeps a figure of the same order (the paper's own "up to" figures for one claim differ
#: by up to 2.1x across its traces: GASA's flash-write cut 18% on T3, 38.5% on T2) and tells
#: apart one that is not (a tenth, or four times, the paper's).
UP_TO_FACTOR = 2.0


def up_to(x: float, factor: float = UP_TO_FACTOR) -> tuple[float, float]:
    """The band ``(lo, hi)`` that an "up to ``x``" figure is read as (``x`` signed, in the
    claim's units: -39.2 for a 39.2% cut): same sign as ``x``, within ``factor`` of it."""
    a, b = x / factor, x * factor
    return (min(a, b), max(a, b))


def up_to_text(x: float, factor: float = UP_TO_FACTOR) -> str:
    """How the verdict table states an "up to" band: "up to -39.2% (read as -78.4% to -19.6%)"."""
    lo, hi = up_to(x, factor)
    return f"up to {x:+g}% (read as {lo:+.3g}% to {hi:+.3g}%: same sign, within {factor:g}x)"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper about points of the result rows (see the module doc)."""

    id: str
    text: str
    section: str
    #: The family in :data:`testable.CLAIMS` whose requirements a workload must meet to test it.
    family: str
    metric: str
    policy: str | tuple[str, ...]
    compare: str = "change"
    base: str | tuple[str, ...] = ()
    aggregate: str = "every"
    lo: float = -math.inf
    hi: float = math.inf
    #: The paper's figure as the verdict table shows it; by default the range ``[lo, hi]``.
    paper: str = ""
    #: ``gap``'s far end (e.g. MIN for "covers the gap from LRU to MIN").
    ref: str = ""
    #: ``share``'s least share of points that must pass.
    share: float = 0.5
    #: ``between``'s lower policies.
    over: tuple[str, ...] = ()
    #: Which rows: column -> value (e.g. ``{"stack_write": "around"}``).
    rows: Mapping[str, object] = field(default_factory=dict)
    #: Which traces: a predicate on the trace name (a report's trace classes); None: every trace.
    traces: Callable[[str], bool] | None = None
    #: The column a point is taken at (cache size, load).
    at: str = "size_pct"
    #: A column of reasons a point cannot be scored for this claim ("no decision", "saturated"):
    #: a row with a non-empty reason is left out, and named.
    skip: str = "unscored"
    #: Format of the metric's figures in the disagreement's details.
    fmt: str = ",.0f"
    #: A sentence added to the disagreement (the paper's wording, a reading).
    note: str = ""
    #: A column whose text a failing point's detail adds (a curve over OP, a run's windows).
    explain: str = ""
    #: Scored trace by trace, each against its own figure ``bound(trace)`` -> (lo, hi) (a
    #: profile held to the paper's trace it is built to): one row, agreeing if every trace does.
    bound: Callable[[str], tuple[float, float]] | None = None
    #: What the figure of a point is, in a disagreement's details, in place of the policy's name
    #: (a row of figures derived from several runs, such as the best static OP, has no policy).
    label: str = ""
    #: The unit written after each figure in the details (" s" for a runtime).
    unit: str = ""

    def __post_init__(self) -> None:
        if self.compare not in COMPARES:
            raise ValueError(f"claim {self.id}: compare {self.compare!r} not one of {', '.join(COMPARES)}")
        if self.aggregate not in AGGREGATES:
            raise ValueError(
                f"claim {self.id}: aggregate {self.aggregate!r} not one of {', '.join(AGGREGATES)}"
            )


@dataclass(frozen=True)
class Contrast:
    """A claim that a statistic is smaller on one group of workloads than on another ("the cut is
    larger on read-dominant traces"): ``metric``'s ``change`` of ``policy`` against ``base`` per
    point, reduced per trace by ``per_trace`` (``min``: the best cut; ``none``: every point
    counts) and per group by ``per_group`` (``min``, ``max``, ``median``); agrees if group ``a``'s
    figure is below group ``b``'s."""

    id: str
    text: str
    section: str
    family: str
    metric: str
    policy: str
    base: str
    a: Callable[[str], bool]
    b: Callable[[str], bool]
    a_name: str
    b_name: str
    paper: str
    per_trace: str = "min"
    per_group: str = "min"
    a_rows: Mapping[str, object] = field(default_factory=dict)
    b_rows: Mapping[str, object] = field(default_factory=dict)
    #: Group ``b``'s family when it needs other requirements than ``a`` (default: ``family``).
    b_family: str = ""
    at: str = "size_pct"
    note: str = ""


#: The shapes a :class:`Sweep` checks along its parameter.
SHAPES = ("flat", "falls")


@dataclass(frozen=True)
class Sweep:
    """A claim about one policy's figure along one of its own parameters (LCR's window, Fig. 8),
    not against other policies. Per trace and ``at`` value (a load), the policy's rows ordered by
    the numeric column ``along``, from ``start`` to ``end`` (both ends must be among the rows),
    make one point, and ``shape`` says what its figures do:

    - ``flat`` ("not sensitive", "stable"): the spread, (max - min) / min x 100 over the point's
      figures, is at most ``tol`` percent;
    - ``falls`` ("becomes smaller as it grows"): the figure at ``end`` is at least ``tol`` percent
      below the figure at ``start``, and no step up the parameter rises by more than ``step``
      percent of the figure before it.

    A point some of whose rows cannot be scored (``skip``: saturated, ...) is left out whole and
    named (a sweep with a hole shows no shape); every point must pass (``every``)."""

    id: str
    text: str
    section: str
    family: str
    metric: str
    policy: str
    along: str
    shape: str
    tol: float
    #: The paper's figure or words, as the verdict table shows them.
    paper: str
    start: float = -math.inf
    end: float = math.inf
    step: float = 0.0
    rows: Mapping[str, object] = field(default_factory=dict)
    traces: Callable[[str], bool] | None = None
    at: str = "load"
    skip: str = "unscored"
    fmt: str = ".0f"
    note: str = ""
    #: Numeric columns a failing point's detail lists along the sweep beside the figure (what
    #: moves with it), each as (column, label): "label: 1/64 0.95, ...".
    explain: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"claim {self.id}: shape {self.shape!r} not one of {', '.join(SHAPES)}")


@dataclass
class Verdict:
    """A claim scored: ``verdict`` is ``agrees``, ``disagrees`` or ``untestable``; ``fcsim`` the
    figure fcsim measures (or why the claim is untestable); ``detail`` the failing points."""

    claim: Claim | Contrast | Sweep
    verdict: str
    fcsim: str
    detail: list[str] = field(default_factory=list)

    @property
    def paper(self) -> str:
        c = self.claim
        if c.paper:
            return f"{c.section}: {c.paper}"
        return f"{c.section}: {_range(c.lo, c.hi, c.compare in PERCENT)}"  # type: ignore[union-attr]


def _range(lo: float, hi: float, percent: bool) -> str:
    u = "%" if percent else ""
    if math.isinf(lo) and math.isinf(hi):
        return "any"
    if lo == hi:
        return f"{lo:+g}{u}" if percent else f"{lo:g}"
    if math.isinf(lo):
        return f"at most {hi:+g}{u}" if percent else f"at most {hi:g}"
    if math.isinf(hi):
        return f"at least {lo:+g}{u}" if percent else f"at least {lo:g}"
    return f"{lo:+g}{u} to {hi:+g}{u}" if percent else f"{lo:g} to {hi:g}"


def _select(df: pd.DataFrame, rows: Mapping[str, object]) -> pd.DataFrame:
    for col, v in rows.items():
        df = df[df[col].astype(str) == str(v)] if col in df.columns else df.iloc[0:0]
    return df


def _policies(p: str | tuple[str, ...]) -> tuple[str, ...]:
    return (p,) if isinstance(p, str) else tuple(p)


@dataclass
class _Point:
    trace: str
    at: object
    policy: str
    value: float
    ok: bool
    text: str
    #: The claim's ``explain`` text at this point ("" without one).
    why: str = ""


def _points(c: Claim, d: pd.DataFrame, trace: str, names: Mapping[str, str]) -> list[_Point]:
    """The claim's points on one trace (``d``: its rows; ``names``: policies as the paper
    writes them)."""
    n = lambda p: c.label or names.get(p, p)  # noqa: E731
    u = c.unit
    why = d.groupby(c.at)[c.explain].first() if c.explain and c.explain in d.columns else None
    piv = d.pivot_table(index=c.at, columns="policy", values=c.metric, aggfunc="first", sort=True)
    pols = _policies(c.policy)
    base = _policies(c.base)
    out: list[_Point] = []
    f = c.fmt
    for at, r in piv.iterrows():
        needed = [*pols, *base, *c.over, *([c.ref] if c.ref else [])]
        if any(p not in r.index or pd.isna(r[p]) for p in needed):
            continue
        if c.compare == "order":
            vals = [float(r[p]) for p in pols]
            ok = all(a <= b for a, b in itertools.pairwise(vals))
            # Each pair with its measured relation: the claimed "<=" where it holds, ">" where not.
            text = f"{n(pols[0])} {vals[0]:{f}}{u}" + "".join(
                f" {'<=' if a <= b else '>'} {n(p)} {b:{f}}{u}"
                for p, (a, b) in zip(pols[1:], itertools.pairwise(vals), strict=True)
            )
            out.append(_Point(trace, at, "/".join(pols), math.nan, ok, text))
        elif c.compare in ("change", "saving", "gap", "drop", "value", "below", "above", "between"):
            for p in pols:
                v, b = float(r[p]), float(r[base[0]]) if base else math.nan
                if c.compare == "change":
                    x = (v / b - 1) * 100 if b else math.nan
                elif c.compare == "saving":
                    x = (1 - v / b) * 100 if b else math.nan
                elif c.compare == "gap":
                    span = float(r[c.ref]) - b
                    x = (v - b) / span * 100 if span else math.nan
                elif c.compare == "drop":
                    x = (float(r[c.ref]) - v) / b * 100 if b else math.nan
                else:
                    x = v
                if c.compare in PERCENT or c.compare == "value":
                    ok = not math.isnan(x) and c.lo <= x <= c.hi
                elif c.compare == "below":
                    ok = all(v < float(r[o]) for o in base)
                elif c.compare == "above":
                    ok = all(v > float(r[o]) for o in base)
                else:
                    ok = all(v > float(r[o]) for o in c.over) and all(v < float(r[o]) for o in base)
                shown = [*base, *c.over, *([c.ref] if c.ref else [])]
                text = f"{n(p)} {v:{f}}{u}" + "".join(f", {n(o)} {float(r[o]):{f}}{u}" for o in shown)
                if c.compare in PERCENT:
                    text += f" ({x:+.1f}%)"
                out.append(_Point(trace, at, p, x, ok, text))
        else:
            others = [o for o in (base or tuple(r.index)) if o not in pols and not pd.isna(r[o])]
            group = {p: float(r[p]) for p in pols}
            if c.compare == "lowest":
                v = min(group.values())
                beat = [o for o in others if float(r[o]) < v]
            else:
                v = max(group.values())
                beat = [o for o in others if float(r[o]) > v]
            who = "/".join(n(p) for p in pols)
            text = f"{who} {v:{f}}{u}" + "".join(f", {n(o)} {float(r[o]):{f}}{u}" for o in beat)
            out.append(_Point(trace, at, who, v, not beat, text))
    if why is not None:
        for p in out:
            p.why = str(why.get(p.at, "") or "")
            if not p.ok and p.why:
                p.text += f"; {p.why}"
    return out


_STAT = {"mean": "mean", "median": "median", "min": "least", "max": "greatest"}


def _unscored(d: pd.DataFrame, column: str = "unscored") -> tuple[pd.DataFrame, list[str]]:
    """The rows that can be scored, and why the others cannot ("trace at 5%: no decision")."""
    if column not in d.columns:
        return d, []
    why = d[column].fillna("").astype(str)
    return d[why == ""], list(dict.fromkeys(why[why != ""]))


def _traces(df: pd.DataFrame, pred: Callable[[str], bool] | None) -> list[str]:
    return [t for t in dict.fromkeys(df["trace"]) if pred is None or pred(t)]


def _left_out(gate: testable.Gate, family: str, traces: Sequence[str]) -> str:
    """ " (untestable on a: why; b: why)": the traces a claim left out, each with its reason
    (issue 41: every exclusion says why)."""
    out = [f"{testable.short(t)}: {w}" for t in traces if (w := gate.why(family, t)) is not None]
    return f" (untestable on {'; '.join(out)})" if out else ""


def _at(x: object, column: str) -> str:
    """A point's place: a size in percent, else the value as it is (a load's label)."""
    return f"{x:g}%" if column == "size_pct" and isinstance(x, float) else str(x)


def score(
    c: Claim | Contrast | Sweep, df: pd.DataFrame, gate: testable.Gate, names: Mapping[str, str] | None = None
) -> Verdict | None:
    """One claim scored on ``df`` (result rows with ``trace``, ``policy``, the claim's ``at``
    column and metric; ``names``: policies as the paper writes them, for the details). None
    when the rows hold no trace the claim is about (it is not shown)."""
    names = names or {}
    if isinstance(c, Contrast):
        return _contrast(c, df, gate)
    if isinstance(c, Sweep):
        return _sweep(c, df, gate)
    if c.bound is not None:
        return _per_trace(c, df, gate, names)
    rows = _select(df, c.rows)
    every = _traces(rows, c.traces)
    if not every:
        return None
    keep = gate.keep(c.family, every)
    if not keep:
        return Verdict(c, "untestable", gate.reasons(c.family, every))
    scored, why = _unscored(rows[rows["trace"].isin(keep)], c.skip)
    pts = [p for t in keep for p in _points(c, scored[scored["trace"] == t], t, names)]
    skipped = _left_out(gate, c.family, every)
    if not pts:
        return Verdict(c, "untestable", "; ".join(why) or "no point with every policy the claim compares")
    if why:
        skipped += f" (not scored: {'; '.join(why)})"
    n, good = len(pts), sum(p.ok for p in pts)
    multi = len(_policies(c.policy)) > 1 and c.compare not in ("lowest", "highest", "order")
    axis = "size" if c.at == "size_pct" else c.at
    unit = f"(trace, {'policy, ' if multi else ''}{axis}) points"
    values = pd.Series([p.value for p in pts]).dropna()
    percent = c.compare in PERCENT
    u = "%" if percent else ""

    def span() -> str:
        if values.empty:
            return "n/a"
        if values.min() == values.max():
            return f"{values.min():+.1f}{u}" if percent else f"{values.min():.4g}"
        return (
            f"{values.min():+.1f}{u} … {values.max():+.1f}{u}"
            if percent
            else f"{values.min():.4g} … {values.max():.4g}"
        )

    detail: list[str] = []
    if c.aggregate in ("every", "most", "share", "some"):
        ok = {"every": good == n, "most": good > n / 2, "share": good >= c.share * n, "some": good > 0}[
            c.aggregate
        ]
        if c.aggregate == "some" and percent:
            fig = f"{span()} over {n} {unit}"
        else:
            fig = f"holds at {good} of {n} {unit}"
            if percent or c.compare == "value":
                fig += f" ({span()})"
        bad = [p for p in pts if not p.ok] if c.aggregate != "some" else []
        for t in dict.fromkeys(p.trace for p in bad):
            detail.append(f"{t}: " + "; ".join(f"{_at(p.at, c.at)}: {p.text}" for p in bad if p.trace == t))
    else:
        n = len(values)  # a point without a value (a baseline of 0) has no share to average
        if not n:
            return Verdict(c, "untestable", "no point with a value" + skipped)
        reduce = {"mean": values.mean, "median": values.median, "min": values.min, "max": values.max}
        stat = float(reduce[c.aggregate]())
        ok = not math.isnan(stat) and c.lo <= stat <= c.hi
        if not ok and c.aggregate in ("min", "max"):  # the point that sets the figure, and why
            top = [p for p in pts if not math.isnan(p.value) and p.value == stat][:1]
            for p in top:
                text = p.text if p.ok or not p.why else p.text.removesuffix(f"; {p.why}")
                detail.append(f"{p.trace}: {_at(p.at, c.at)}: {text}" + (f"; {p.why}" if p.why else ""))
        fig = (
            f"{_STAT[c.aggregate]} {stat:+.1f}{u} over {n} {unit} ({span()})"
            if percent
            else f"{_STAT[c.aggregate]} {stat:.4g} over {n} {unit} ({span()})"
        )
    return Verdict(c, "agrees" if ok else "disagrees", fig + skipped, detail)


def _per_trace(c: Claim, df: pd.DataFrame, gate: testable.Gate, names: Mapping[str, str]) -> Verdict | None:
    """A claim scored on each trace against the trace's own figure, as one verdict."""
    assert c.bound is not None
    every = _traces(_select(df, c.rows), c.traces)
    if not every:
        return None
    keep = gate.keep(c.family, every)
    if not keep:
        return Verdict(c, "untestable", gate.reasons(c.family, every))
    parts: list[str] = []
    detail: list[str] = []
    bad = untested = 0
    for t in keep:
        lo, hi = c.bound(t)
        one = replace(c, lo=lo, hi=hi, bound=None, traces=t.__eq__)
        v = score(one, df, gate, names)
        if v is None:
            continue
        name = testable.short(t)
        fig = _range(lo, hi, c.compare in PERCENT)
        if v.verdict == "untestable":
            untested += 1
            parts.append(f"{name}: not scored ({v.fcsim})")
            continue
        parts.append(f"{name} {v.fcsim} (paper {fig})")
        if v.verdict == "disagrees":
            bad += 1
            detail.extend([f"{x} (paper {fig})" for x in v.detail] or [f"{t}: {v.fcsim}; paper {fig}"])
    if len(parts) == untested:
        return Verdict(c, "untestable", "; ".join(parts))
    scored = len(parts) - untested
    fig = (
        f"holds on {scored - bad} of {scored} traces: " + "; ".join(parts) + _left_out(gate, c.family, every)
    )
    return Verdict(c, "disagrees" if bad else "agrees", fig, detail)


def _param(x: float) -> str:
    """A parameter's value as a reader of the paper writes it: 1/64 for 0.015625, else as is."""
    if 0 < x < 1 and float(1 / x).is_integer():
        return f"1/{int(1 / x)}"
    return f"{x:g}"


def _sweep_point(c: Sweep, s: pd.Series) -> tuple[float, bool, str]:
    """One point of a sweep (``s``: the figure by the parameter, ascending): its value (spread
    or change from start to end, in percent), whether it has the claim's shape, and its text."""
    v = [float(x) for x in s]
    text = ", ".join(f"{_param(float(k))}: {x:{c.fmt}}" for k, x in s.items())
    if c.shape == "flat":
        lo, hi = min(v), max(v)
        x = (hi - lo) / lo * 100 if lo > 0 else (0.0 if hi == lo else math.inf)
        return x, x <= c.tol, f"{text} (spread {x:.1f}%)"
    x = (v[-1] / v[0] - 1) * 100 if v[0] else math.nan
    rises = [
        f"{_param(float(a))} → {_param(float(b))} {(q / p - 1) * 100:+.1f}%"
        for (a, p), (b, q) in itertools.pairwise(s.items())
        if p and (q / p - 1) * 100 > c.step
    ]
    ok = not math.isnan(x) and x <= -c.tol and not rises
    return (
        x,
        ok,
        f"{text} ({x:+.1f}% from {_param(float(s.index[0]))} to {_param(float(s.index[-1]))}"
        + (f"; rises {', '.join(rises)})" if rises else ")"),
    )


def _along(c: Sweep, by: Any, col: str) -> pd.Series:
    """Column ``col`` of one point's rows grouped by the sweep's parameter (``by``), ascending,
    from ``c.start`` to ``c.end``."""
    v = by[col].first().sort_index()
    return v[(v.index >= c.start) & (v.index <= c.end)]


def _sweep(c: Sweep, df: pd.DataFrame, gate: testable.Gate) -> Verdict | None:
    rows = _select(df, c.rows)
    rows = rows[rows["policy"] == c.policy] if "policy" in rows.columns else rows.iloc[0:0]
    every = _traces(rows, c.traces)
    if not every:
        return None
    keep = gate.keep(c.family, every)
    if not keep:
        return Verdict(c, "untestable", gate.reasons(c.family, every))
    pts: list[_Point] = []
    why: list[str] = []
    for t in keep:
        for at, g in rows[rows["trace"] == t].groupby(c.at, sort=False):
            skipped = g[c.skip].fillna("").astype(str) if c.skip in g.columns else pd.Series(dtype=str)
            if (skipped != "").any():
                why.extend(skipped[skipped != ""])
                continue
            by = g.assign(_x=pd.to_numeric(g[c.along], errors="coerce")).dropna(subset=["_x"]).groupby("_x")
            s = _along(c, by, c.metric).dropna()
            ends = [e for e in (c.start, c.end) if not math.isinf(e) and e not in s.index]
            if len(s) < 2 or ends:
                lack = f"no run at {', '.join(_param(e) for e in ends)}" if ends else "fewer than 2 runs"
                why.append(f"{testable.short(t)} at {at}: {lack}")
                continue
            value, ok, text = _sweep_point(c, s)
            for col, label in c.explain if not ok else ():
                if col not in g.columns:
                    continue
                moved = _along(c, by, col).items()
                text += f"; {label}: " + ", ".join(f"{_param(float(k))} {float(v):.3g}" for k, v in moved)
            pts.append(_Point(t, at, c.policy, value, ok, text))
    why = list(dict.fromkeys(why))
    skipped = _left_out(gate, c.family, every)
    if not pts:
        return Verdict(c, "untestable", ("; ".join(why) or "no sweep") + skipped)
    if why:
        skipped += f" (not scored: {'; '.join(why)})"
    good = sum(p.ok for p in pts)
    values = [p.value for p in pts]
    sign = "" if c.shape == "flat" else "+"
    lo, hi = f"{min(values):{sign}.1f}%", f"{max(values):{sign}.1f}%"
    fig = (
        f"holds at {good} of {len(pts)} (trace, {c.at}) points "
        f"({'spread' if c.shape == 'flat' else 'change'} {lo if lo == hi else f'{lo} … {hi}'})"
    )
    detail = [f"{p.trace}: {_at(p.at, c.at)}: {p.text}" for p in pts if not p.ok]
    return Verdict(c, "agrees" if good == len(pts) else "disagrees", fig + skipped, detail)


def _contrast(c: Contrast, df: pd.DataFrame, gate: testable.Gate) -> Verdict | None:
    groups = []
    for pred, rows in ((c.a, c.a_rows), (c.b, c.b_rows)):
        d = _select(df, rows)
        groups.append((d, _traces(d, pred)))
    if not groups[0][1] or not groups[1][1]:
        return None
    stats: list[float] = []
    per: list[str] = []
    left: list[str] = []
    for (d, traces), name, family in zip(
        groups, (c.a_name, c.b_name), (c.family, c.b_family or c.family), strict=True
    ):
        keep = gate.keep(family, traces)
        if not keep:
            if not traces:
                return Verdict(c, "untestable", f"no {name} trace")
            return Verdict(c, "untestable", f"no {name} trace can test it: {gate.reasons(family, traces)}")
        left += [f"{testable.short(t)}: {w}" for t in traces if (w := gate.why(family, t)) is not None]
        d, _ = _unscored(d)
        vals: list[float] = []
        for t in keep:
            one = d[d["trace"] == t].pivot_table(
                index=c.at, columns="policy", values=c.metric, aggfunc="first"
            )
            if c.policy not in one or c.base not in one:
                continue
            ch = ((one[c.policy] / one[c.base] - 1) * 100).dropna()
            if ch.empty:
                continue
            if c.per_trace == "min":
                vals.append(float(ch.min()))
                per.append(f"{testable.short(t)} {ch.min():+.1f}%")
            else:
                vals.extend(float(x) for x in ch)
                per.append(f"{testable.short(t)} {ch.median():+.1f}% (median)")
        if not vals:
            return Verdict(c, "untestable", f"no {name} point with both policies")
        s = pd.Series(vals)
        stats.append(
            float(s.min() if c.per_group == "min" else s.max() if c.per_group == "max" else s.median())
        )
    a, b = stats
    fig = f"{c.a_name} {a:+.1f}%, {c.b_name} {b:+.1f}% ({', '.join(per)})" + (
        f" (untestable on {'; '.join(left)})" if left else ""
    )
    return Verdict(c, "agrees" if a < b else "disagrees", fig)


def evaluate(
    claims: Iterable[Claim | Contrast | Sweep],
    df: pd.DataFrame,
    gate: testable.Gate,
    names: Mapping[str, str] | None = None,
) -> list[Verdict]:
    """Every claim scored on ``df`` (``names``: policies as the paper writes them); claims about
    no trace of ``df`` are left out."""
    return [v for c in claims if (v := score(c, df, gate, names)) is not None]


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _verdict(v: Verdict | None) -> tuple[str, str]:
    if v is None:
        return "", ""
    if v.verdict == "untestable":
        return _cell(f"not scored: {v.fcsim}"), "untestable on this workload"
    return _cell(v.fcsim), "agrees" if v.verdict == "agrees" else "**disagrees**"


def count(verdicts: Iterable[Verdict]) -> str:
    """ "N agree, N disagree, N untestable"."""
    vs = list(verdicts)
    n = {k: sum(v.verdict == k for v in vs) for k in ("agrees", "disagrees", "untestable")}
    return f"{n['agrees']} agree, {n['disagrees']} disagree, {n['untestable']} untestable"


def table(parts: Mapping[str, Sequence[Verdict]] | Sequence[Verdict]) -> list[str]:
    """The one-screen verdict table (Markdown lines): claim | paper's figure | fcsim's figure |
    verdict, one row per claim; with several parts (``parts``: title -> verdicts, e.g. the
    shipped traces and the profiles), a figure and a verdict column per part. Then a count line."""
    if not isinstance(parts, Mapping):
        parts = {"": parts}
    order: dict[str, Verdict] = {}
    for vs in parts.values():
        for v in vs:
            order.setdefault(v.claim.id, v)
    by = {title: {v.claim.id: v for v in vs} for title, vs in parts.items()}
    head = ["claim", "paper's figure"]
    for title in parts:
        head += (
            [f"fcsim's figure ({title})", f"verdict ({title})"] if title else ["fcsim's figure", "verdict"]
        )
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for cid, v in order.items():
        cells = [_cell(v.claim.text), _cell(v.paper)]
        for title in parts:
            cells += list(_verdict(by[title].get(cid)))
        out.append("| " + " | ".join(cells) + " |")
    counts = "; ".join(f"{title + ': ' if title else ''}{count(vs)}" for title, vs in parts.items())
    out += [
        "",
        f"{counts} (a claim is scored only on the workloads that can test it: *Which claims each workload "
        "can test*; the numbers behind each verdict are below).",
    ]
    return out


def disagreements(verdicts: Sequence[Verdict]) -> list[str]:
    """Each disagreement in words and numbers (Markdown bullets); a line when there is none."""
    out: list[str] = []
    for v in verdicts:
        if v.verdict != "disagrees":
            continue
        out.append(
            f"- **{v.claim.text}** ({v.paper}). fcsim: {v.fcsim}.{' ' + v.claim.note if v.claim.note else ''}"
        )
        out.extend(f"  - {x}" for x in v.detail)
    if out:
        return out
    if not verdicts:
        return ["No claim was scored."]
    if all(v.verdict == "untestable" for v in verdicts):
        return ["None to report: no claim above can be tested on these workloads."]
    if any(v.verdict == "untestable" for v in verdicts):
        return ["Nowhere: every claim above that these workloads can test holds."]
    return ["Nowhere: every claim above holds."]


def kinds(shares: Mapping[str, float], kind: Callable[[float], str], *wanted: str) -> Callable[[str], bool]:
    """A trace predicate: the traces whose kind (``kind(share)``) is one of ``wanted``."""
    return lambda t: t in shares and kind(shares[t]) in wanted


__all__ = [
    "Claim",
    "Contrast",
    "Sweep",
    "Verdict",
    "count",
    "disagreements",
    "evaluate",
    "kinds",
    "score",
    "table",
]
