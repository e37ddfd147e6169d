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
at ``all``'s own write rate (100% of all).

**ml's rows** are measured after its training part (the first ``admit.train`` of the requests,
its warm-up), the others over the whole trace: they are drawn, not ranked on the frontier, and
their budget figures are of that later span, scored against ``opt`` over the same span
(``fcsim pareto`` runs it at each ml row's writes, see :mod:`fcsim.pareto`); the learned end of
Baleen's order is left out (its rows are of another span than the others').

**The opt share.** RHR under the budget of each online admission over ``opt``'s: the share of
the bound's read hits it keeps. Above 100% would be an online point beating the bound.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from fcsim import output, pareto
from fcsim.reports import testable
from fcsim.reports.claims import Claim, disagreements, evaluate
from fcsim.reports.claims import table as verdict_table
from fcsim.reports.common import version

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
    verdicts = evaluate(claims(online, later), derived[derived["unscored"] == ""], gate, NAMES)
    lines = [
        "# Admission policies on the shipped traces: frontiers, budgets and Baleen's order",
        "",
        f"Made by `{command}` (fcsim {version()}); the grid is `experiment.toml`, every row is in",
        "`results.parquet`. Never edited by hand.",
        "",
        "## Verdicts",
        "",
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
