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
its warm-up), the others over the whole trace: they are drawn, not ranked on the frontier, its
budget figures are of that later span (see :mod:`fcsim.pareto`), and no claim scores them (the
learned end of Baleen's order is left out, said under the verdicts).

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
    later span than the others, listed but not scored (see the module's doc)."""
    if "warmup_requests" not in df.columns:
        return []
    adm = _admission(df)
    return sorted(set(adm[df["warmup_requests"].notna()]))


def budget_table(df: pd.DataFrame) -> pd.DataFrame:
    """The derived rows the claims read: per trace and budget (``at``: ``1 DWPD``, ...,
    ``1% of all``, ...), one row per admission that can be held to it (``policy``: the
    admission), its ``read_hit_ratio`` under the budget and ``opt_share`` (% of ``opt``'s), and
    ``unscored`` empty (a trace without DWPD is read by the shares only)."""
    rows: list[dict[str, Any]] = []
    for trace, d in df.groupby("trace", sort=False):
        adm = _admission(d)
        budgets: list[tuple[str, str, float]] = []
        if d["dwpd"].notna().all():
            budgets += [(f"{b:g} DWPD", "dwpd", b) for b in BUDGETS]
        x = pareto.frontier_axis(d)
        all_writes = d.loc[adm == "all", x].astype(float)
        if len(all_writes) and all_writes.notna().all():
            budgets += [(f"{s:.0%} of all", x, s * float(all_writes.iloc[0])) for s in SHARES]
        for label, col, b in budgets:
            got = under_budget(d, b, col)
            opt = got.get(OPT)
            for name, rhr in got.items():
                share = rhr / opt * 100 if opt else math.nan
                later = name in measured_later(d)
                rows.append(
                    {
                        "trace": trace,
                        "at": label,
                        "policy": name,
                        "read_hit_ratio": rhr,
                        "opt_share": share,
                        "unscored": "measured after its training warm-up (another span)" if later else "",
                    }
                )
    return pd.DataFrame(rows, columns=["trace", "at", "policy", "read_hit_ratio", "opt_share", "unscored"])


def claims(online: list[str], later: Iterable[str] = ()) -> list[Claim]:
    """The study's claims, fixed before any run: Baleen's order among the admissions the run
    has (in :data:`ORDER`), and that no online admission keeps more than the bound's read hits
    under a budget (the bound's definition; 0.5 points of slack for the bound's own
    approximations is not given here: a share above 100 disagrees)."""
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
        if a == OPT or a in set(later):
            continue
        out.append(
            Claim(
                f"opt-share-{a}",
                f"{NAMES.get(a, a)} keeps at most the bound's read hits under a budget",
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
    # The rows of another span are in the tables, not in the engine (which would name them under
    # every claim of their trace).
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
                f"Not scored: {', '.join(NAMES.get(a, a) for a in later)}, whose rows leave its training",
                "part out as a warm-up and so measure a later span than the others (its figures below",
                "are of that span).",
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
        piv = t.pivot_table(index="at", columns="policy", values=["read_hit_ratio", "opt_share"], sort=False)
        cols = [a for a in online if ("read_hit_ratio", a) in piv.columns]
        lines.append("| budget | " + " | ".join(NAMES.get(a, a) for a in cols) + " |")
        lines.append("|---|" + "---|" * len(cols))
        for at, r in piv.iterrows():
            cells = []
            for a in cols:
                rhr, share = r.get(("read_hit_ratio", a)), r.get(("opt_share", a))
                if rhr is None or pd.isna(rhr):
                    cells.append("")
                elif a in later:  # a later span than opt's: no share of it (module doc)
                    cells.append(f"{rhr:.4f} (later span)")
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
