"""`fcsim reproduce admission` (issue 43, item 5): flash-cache admission policies on the shipped
real traces with reads and writes, as Pareto frontiers of flash writes against read hits, the
share of the offline bound's (``opt``) read hits each online policy keeps under a write budget,
and whether Baleen's ordering of admission policies holds here.

**The study's setup.** One eviction policy (LRU) at 5% of each trace's working set, a flash
cache over the flat 5 ms disk (``stack.kind=ssd-cache``, a read cache: writes go around it), the
``offline`` drive sized to the cache; each admission's knob swept over the values
``experiment.toml`` lists (those :func:`fcsim.pareto.knob_values` gives), ``all`` one point.

**Budgets.** An admission's read hit ratio *under a budget* of D drive writes per day is the
best of its points that write no more than D (``dwpd`` <= D): a point the admission can be run
at, never an interpolation between two. None of its points within D: it cannot be held to D
(the cell is empty and the claims leave the trace out for that D, with the reason). Budgets of
1, 3 and 10 DWPD as the issue asks; since the shipped traces span seconds to two hours and their
caches are small, a day's rate of their writes is large, so the report also reads every policy
at 1%, 3%, 10% and 100% of the write rate of ``all`` on the same trace (a labelled variant that
any trace can test; ``all`` itself fits only the last).

**Baleen's ordering** (Wong et al., "Baleen: ML Admission & Prefetching for Flash Caches",
FAST '24): at a fixed flash write rate, learned admission >= frequency-based (TinyLFU) >=
second-hit >= random >= admit-all in the backend load the cache saves. fcsim reads it as the
read hit ratio under each budget, in that order (a read cache's hits are the backend reads it
saves). ``all`` writes what it writes: below its own write rate it fits no budget, so the order
is scored in two claims, among the admissions with a knob at every budget, and random >= all
at ``all``'s own write rate (100% of all). A point where random's read hits equal all's is not
scored: random's range reaches p = 1, which admits all, so at all's write rate the budget picks
that very run and the claim would hold by construction.

**ml's rows** are measured after its training part (the first ``admit.train`` of the requests,
its warm-up), the others over the whole trace: they are drawn, not ranked on the frontier, and
their budget figures are of that later span, scored against ``opt`` over the same span
(``fcsim pareto`` runs it at each ml row's writes, see :mod:`fcsim.pareto`); the learned end of
Baleen's order is left out (its rows are of another span than the others').

**The opt share.** RHR under the budget of each online admission over ``opt``'s: the share of
the bound's read hits it keeps. Above 100% would be an online point beating the bound.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fcsim import output, pareto
from fcsim.reports import testable
from fcsim.reports.claims import Claim, disagreements, evaluate
from fcsim.reports.claims import table as verdict_table
from fcsim.reports.common import summary_head

#: Baleen's order, worst first (the claims engine's ``order``: figures do not fall along it).
ORDER = ("all", "random", "second-hit", "tinylfu", "ml")
NAMES = {
    "all": "admit all",
    "random": "random",
    "second-hit": "second-hit",
    "tinylfu": "TinyLFU",
    "ml": "learned (ml)",
    "opt": "opt (offline bound)",
}
#: The budgets, drive writes per day, and the variant's shares of ``all``'s write rate.
BUDGETS = (1.0, 3.0, 10.0)
SHARES = (0.01, 0.03, 0.1, 1.0)
#: The bound's admission.
OPT = "opt"


def _admission(df: pd.DataFrame) -> pd.Series:
    """Each row's admission (``all`` where the row says none)."""
    if "admission" in df.columns:
        return df["admission"].astype(object).where(df["admission"].notna(), "all").astype(str)
    return pd.Series("all", index=df.index)


def under_budget(df: pd.DataFrame, budget: float, x: str = "dwpd") -> dict[str, float]:
    """Per admission of one trace's rows, the best ``read_hit_ratio`` of its points whose ``x``
    is at most ``budget``; an admission with none is absent."""
    out: dict[str, float] = {}
    adm = _admission(df)
    for name in dict.fromkeys(adm):
        d = df[(adm == name) & df[x].notna() & df["read_hit_ratio"].notna()]
        within = d[d[x].astype(float) <= budget]
        if len(within):
            out[name] = float(within["read_hit_ratio"].astype(float).max())
    return out


def measured_later(df: pd.DataFrame) -> list[str]:
    """The admissions whose rows leave a warm-up out (``ml``'s training part): measured over a
    later span than the others, scored against opt over that span and left out of Baleen's order
    (see the module's doc); ``opt``'s own rows over such a span are not listed."""
    if "warmup_requests" not in df.columns:
        return []
    adm = _admission(df)
    return sorted(set(adm[df["warmup_requests"].notna()]) - {OPT})


def _later(df: pd.DataFrame) -> pd.Series:
    """Whether each row leaves a warm-up out (measures a later span)."""
    if "warmup_requests" not in df.columns:
        return pd.Series(False, index=df.index)
    return df["warmup_requests"].notna()


#: The columns of :func:`budget_table`.
DERIVED = ["trace", "at", "policy", "read_hit_ratio", "opt_share", "opt_read_hit_ratio", "span", "unscored"]


def budget_table(df: pd.DataFrame) -> pd.DataFrame:
    """The derived rows the claims read: per trace and budget (``at``: ``1 DWPD``, ...,
    ``1% of all``, ...), one row per admission that can be held to it (``policy``: the
    admission), its ``read_hit_ratio`` under the budget and ``opt_share`` (% of
    ``opt_read_hit_ratio``, opt's under the same budget over the same span: the whole trace, or
    for a row with a warm-up (``ml``'s) opt's rows with the same warm-up, ``span`` says which),
    and ``unscored`` empty (a trace without DWPD is read by the shares only)."""
    rows: list[dict[str, Any]] = []
    for trace, d in df.groupby("trace", sort=False):
        adm = _admission(d)
        later = _later(d)
        budgets: list[tuple[str, str, float]] = []
        if d["dwpd"].notna().all():
            budgets += [(f"{b:g} DWPD", "dwpd", b) for b in BUDGETS]
        x = pareto.frontier_axis(d)
        all_writes = d.loc[(adm == "all") & ~later, x].astype(float)
        if len(all_writes) and all_writes.notna().all():
            budgets += [(f"{s:.0%} of all", x, s * float(all_writes.iloc[0])) for s in SHARES]
        spans = [("whole trace", d[~later])]
        if later.any():
            for w, s in d[later].groupby("warmup_requests", sort=True):
                spans.append((f"after {int(w):,} requests", s))
        for label, col, b in budgets:
            for span, rows_of in spans:
                got = under_budget(rows_of, b, col)
                opt = got.get(OPT)
                for name, rhr in got.items():
                    if name == OPT and span != "whole trace":
                        continue  # the reference of its span, shown beside the rows it bounds
                    rows.append(
                        {
                            "trace": trace,
                            "at": label,
                            "policy": name,
                            "read_hit_ratio": rhr,
                            "opt_share": rhr / opt * 100 if opt else math.nan,
                            "opt_read_hit_ratio": opt if opt is not None else math.nan,
                            "span": span,
                            "unscored": "",
                        }
                    )
    return pd.DataFrame(rows, columns=DERIVED)


def span_stage(df: pd.DataFrame, exp: Any) -> Any:
    """The second stage of ``fcsim reproduce admission``: ``opt`` over the span of each ``ml``
    row (:func:`fcsim.pareto._span_bounds`: the same ``admit.train``, capped at the row's own
    writes per page access of the span), in the setup of the row's part, so that every ml row
    is scored against the bound of its own span. None when there is no ml row."""
    from fcsim import sweep

    parts = []
    for part in exp.parts:
        if "ml" not in (part.admissions or []):
            continue
        for t in part.traces:
            name = t.path if t.path.startswith("synth:") else os.path.basename(t.path)
            rows = df[(df["trace"] == name) & (_admission(df) == "ml")]
            for sets in pareto._span_bounds(rows.assign(admission="ml")):
                parts.append(
                    sweep.Part(
                        traces=[t],
                        policies=part.policies,
                        sizes=part.sizes,
                        devices=part.devices,
                        sets={**part.sets, **sets},
                        admissions=[OPT],
                    )
                )
    if not parts:
        return None
    return sweep.Experiment(
        name=exp.name, parts=parts, description="opt over ml's span at each ml row's writes"
    )


def reuse_measures(traces: Mapping[str, tuple[str, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per trace (name in the rows -> (path or spec, ``trace.*`` options)), what explains where
    Baleen's order fails (:func:`fcsim.trace_info`, one pass each): ``second_ref_share``, the
    share of the read re-references (reads of a page seen before) that are the page's 2nd
    access, which second-hit never hits; ``once_page_share``, the share of pages seen once,
    which a filter declines at no loss; ``read_locality``, the (pages, reads) shares of the
    read locality (GASA's P/A: the hottest P of the read pages get A of the reads), the
    frequency skew TinyLFU's counts need."""
    from fcsim.traces import trace_info

    out: dict[str, dict[str, Any]] = {}
    for name, (src, sets) in traces.items():
        i = trace_info(src, set=dict(sets) or None)
        rr, once, pages = i.get("read_rereads") or 0, i.get("once_pages") or 0, i.get("unique_pages") or 0
        out[name] = {
            "read_rereads": rr,
            "second_ref_share": (i.get("read_second_refs") or 0) / rr if rr else None,
            "once_page_share": once / pages if pages else None,
            "read_locality": i.get("read_locality"),
        }
    return out


def _reuse_text(m: Mapping[str, Any] | None) -> str:
    """A trace's reuse measures (:func:`reuse_measures`) in words, or ""."""
    if not m or m.get("second_ref_share") is None:
        return ""
    loc = m.get("read_locality")
    flat = f", {loc[0]:.0%} of the read pages get {loc[1]:.0%} of the reads" if loc else ""
    return (
        f"{m['second_ref_share']:.0%} of the {m['read_rereads']:,} read re-references are a page's "
        "2nd access, "
        f"{m['once_page_share']:.0%} of the pages are seen once{flat}"
    )


def _why(lo: str, hi: str, m: Mapping[str, Any] | None) -> str:
    """Why ``hi`` (later in Baleen's order) has fewer read hits than ``lo`` on a trace, from its
    reuse measures (:func:`reuse_measures`): the measure that bears on the pair first."""
    if not m or m.get("second_ref_share") is None:
        return ""
    n = lambda a: NAMES.get(a, a)  # noqa: E731
    second, once, loc = m["second_ref_share"], m["once_page_share"], m.get("read_locality")
    if hi == "second-hit":
        lead = (
            f"{second:.0%} of the read re-references are a page's 2nd access, which second-hit never "
            f"hits (it declines a page's first miss, so its 2nd access misses too) and {n(lo)} can"
        )
    elif lo == "second-hit":
        skew = f"; {loc[0]:.0%} of the read pages get {loc[1]:.0%} of the reads" if loc else ""
        lead = (
            f"{once:.0%} of the pages are seen once, which second-hit declines at no loss, while "
            f"{n(hi)} admits by counts{skew}"
        )
    else:
        lead = _reuse_text(m)
    return f"{n(hi)} < {n(lo)}: {lead}"


def with_reasons(
    derived: pd.DataFrame, order: Sequence[str], measures: Mapping[str, Mapping[str, Any]] | None
) -> pd.DataFrame:
    """``derived`` (:func:`budget_table`) with ``why_order`` and ``why_all``: at each (trace,
    at) where Baleen's order (``order``, worst first) or random >= all fails, which adjacent
    pair fails and why, from the trace's reuse measures; "" where it holds or nothing is
    measured. And ``tie_all``, why random >= all cannot be scored at a point: random's read hits
    equal all's (its knob's range reaches p = 1, which admits all: at all's write rate the
    bound picks that run, and the claim would hold by construction)."""
    out = derived.copy()
    out["why_order"], out["why_all"], out["tie_all"] = "", "", ""
    for (trace, _at), g in out.groupby(["trace", "at"], sort=False):
        m = (measures or {}).get(str(trace))
        r = dict(zip(g["policy"], g["read_hit_ratio"], strict=True))
        whys = [
            _why(lo, hi, m) for lo, hi in itertools.pairwise(order) if lo in r and hi in r and r[hi] < r[lo]
        ]
        out.loc[g.index, "why_order"] = "; ".join(w for w in whys if w)
        if "all" in r and "random" in r and r["random"] < r["all"]:
            out.loc[g.index, "why_all"] = _why("all", "random", m)
        if "all" in r and "random" in r and r["random"] == r["all"]:
            # Random's range reaches p = 1, which is all: at all's write rate it picks that run.
            out.loc[g.index, "tie_all"] = (
                "random's best under all's writes is p = 1, all itself: a tie by construction"
            )
    return out


def claims(online: list[str], later: Iterable[str] = ()) -> list[Claim]:
    """The study's claims, fixed before any run: Baleen's order among the admissions the run
    has (in :data:`ORDER`) measured over the whole trace (``later``: those measured after a
    warm-up, left out of it), and that no online admission keeps more than the bound's read hits
    under a budget (opt over the same span; the bound's definition; 0.5 points of slack for the
    bound's own approximations is not given here: a share above 100 disagrees)."""
    order = tuple(a for a in ORDER if a in online and a != "all" and a not in set(later))
    note = (
        "fcsim reads backend load saved as read hits (a read cache); the budgets a policy cannot "
        "meet are left out."
    )
    out = [
        Claim(
            "baleen-order",
            "At a fixed write rate: " + " >= ".join(NAMES.get(a, a) for a in reversed(order)) + " (Baleen)",
            "Baleen (FAST '24)",
            "ordering",
            "read_hit_ratio",
            order,
            compare="order",
            aggregate="most",
            at="at",
            fmt=".4f",
            explain="why_order",
            paper="the order holds at a fixed write rate",
            note=note,
        ),
        Claim(
            "baleen-all",
            "At all's write rate: random >= all (Baleen)",
            "Baleen (FAST '24)",
            "ordering",
            "read_hit_ratio",
            ("all", "random"),
            compare="order",
            aggregate="every",
            at="at",
            fmt=".4f",
            explain="why_all",
            skip="tie_all",
            paper="admitting at random beats admitting all at the same write rate",
            note=note,
        ),
    ]
    for a in online:
        if a == OPT:
            continue
        out.append(
            Claim(
                f"opt-share-{a}",
                f"{NAMES.get(a, a)} keeps at most the bound's read hits under a budget"
                + (" (opt over its span)" if a in set(later) else ""),
                "issue 43",
                "opt-share",
                "opt_share",
                a,
                compare="value",
                aggregate="every",
                lo=0.0,
                hi=100.0,
                at="at",
                fmt=".1f",
                paper="0-100% of opt's read hit ratio",
            )
        )
    return out


def report(
    df: pd.DataFrame,
    out: Path,
    command: str,
    own: bool = False,
    measures: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """The summary: per trace its frontier plot, the budget table, and the verdicts."""
    gate = testable.Gate("admission", measures)
    df = df.copy()
    df["admission"] = _admission(df)
    online = list(dict.fromkeys(df["admission"]))
    derived = budget_table(df)
    later = measured_later(df)
    order = tuple(a for a in ORDER if a in online and a != "all" and a not in set(later))
    derived = with_reasons(derived, order, measures)
    verdicts = evaluate(claims(online, later), derived[derived["unscored"] == ""], gate, NAMES)
    lines = [
        *summary_head(
            "Admission policies on the shipped traces: frontiers, budgets and Baleen's order", command
        ),
        *verdict_table(verdicts),
        "",
        *(
            [
                f"{', '.join(NAMES.get(a, a) for a in later)}: its rows leave its training part out as a",
                "warm-up, so they measure a later span than the others; each is scored against opt over",
                "that same span (`admit.train`: the same warm-up, opt's plan starting from the best cache",
                "content at the boundary, run at the row's own writes) and left out of Baleen's order,",
                "which compares rows of one span.",
                "",
            ]
            if later
            else []
        ),
        *gate.table(df["trace"]),
        "## Read hit ratio under each budget, and the share of opt's",
        "",
        "The best point of each admission that writes no more than the budget (see the module's doc);",
        "a blank cell: no point of it fits the budget.",
        "",
    ]
    for trace, d in df.groupby("trace", sort=False):
        name = testable.short(str(trace))
        frame = pareto.with_knobs(d).assign(frontier=pareto.ranked_frontier(d))
        # A clone's short name holds its spec (slashes, commas): the file name keeps its words.
        png = out / f"pareto_{re.sub(r'[^A-Za-z0-9._-]+', '_', name).strip('_')}.png"
        pareto.plot(frame, png)
        t = derived[derived["trace"] == trace]
        lines += [f"### {name}", "", f"![{name}]({png.name})", ""]
        if reuse := _reuse_text((measures or {}).get(str(trace))):
            lines += [f"Reuse (from the trace, `fcsim trace info`): {reuse}.", ""]
        if t.empty:
            lines += ["No budget applies (no write rate).", ""]
            continue
        values = ["read_hit_ratio", "opt_share", "opt_read_hit_ratio"]
        piv = t.pivot_table(index="at", columns="policy", values=values, sort=False)
        cols = [a for a in online if ("read_hit_ratio", a) in piv.columns]
        lines.append("| budget | " + " | ".join(NAMES.get(a, a) for a in cols) + " |")
        lines.append("|---|" + "---|" * len(cols))
        for at, r in piv.iterrows():
            cells = []
            for a in cols:
                rhr, share = r.get(("read_hit_ratio", a)), r.get(("opt_share", a))
                if rhr is None or pd.isna(rhr):
                    cells.append("")
                elif a in later:  # against opt over its own span (module doc)
                    o = r.get(("opt_read_hit_ratio", a))
                    if share is None or pd.isna(share):  # opt has no read hit to share
                        cells.append(f"{rhr:.4f} (opt over its span {o:.4f}: no share)")
                    else:
                        cells.append(f"{rhr:.4f} ({share:.0f}% of opt over its span, {o:.4f})")
                elif share is None or pd.isna(share) or a == OPT:
                    cells.append(f"{rhr:.4f}")
                else:
                    cells.append(f"{rhr:.4f} ({share:.0f}% of opt)")
            lines.append(f"| {at} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Disagreements", "", *disagreements(verdicts), ""]
    summary = out / "summary.md"
    output.write_text(summary, "\n".join(lines))
    return summary
