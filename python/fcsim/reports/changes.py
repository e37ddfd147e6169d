"""Which verdicts a rerun changed (issue 41): the verdict table of the summary a run replaces,
read back from its Markdown, against the new one's.

A summary's verdict table is the first table after its ``## Verdicts`` heading: one row per
claim, the claim's text in the first column, and one or more ``verdict ...`` columns (one per
group of workloads: shipped traces, profiles). A verdict is the cell's text without its bold
marks. A claim is known by its text, so a claim reworded reads as one claim gone and one new.
"""

from __future__ import annotations

import re

HEADING = "## Verdicts that changed"


def _cells(line: str) -> list[str]:
    # Cells split at pipes a backslash does not escape; the outer pipes make empty ends.
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def verdicts(summary: str) -> dict[tuple[str, str], str]:
    """(claim, verdict column) -> verdict, from the first table under ``## Verdicts``; empty
    when the summary has none."""
    return {k: v for k, (v, _) in figures(summary).items() if v}


def figures(summary: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(claim, verdict column) -> (verdict, the figure it scores: the cell of the ``fcsim's
    figure`` column just before the verdict's, as written; "" when there is none)."""
    lines = summary.splitlines()
    try:
        start = next(i for i, s in enumerate(lines) if s.strip() == "## Verdicts")
    except StopIteration:
        return {}
    table: list[str] = []
    for s in lines[start + 1 :]:
        if s.startswith("|"):
            table.append(s)
        elif table:
            break
    if len(table) < 3:
        return {}
    header = _cells(table[0])
    wanted = [(i, h) for i, h in enumerate(header) if h.startswith("verdict")]
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for line in table[2:]:
        cells = _cells(line)
        if not cells:
            continue
        for i, h in wanted:
            v = cells[i].replace("**", "").strip() if i < len(cells) else ""
            figure = cells[i - 1] if header[i - 1].startswith("fcsim's figure") and i - 1 < len(cells) else ""
            out[(cells[0], h)] = (v, figure)
    return out


def section(before: str, after: str) -> str:
    """The summary section listing every verdict that differs between the summary ``before``
    (the one replaced) and ``after``: claims new, gone or scored differently, each with the
    figure it scored before and now (what moved); empty when ``before`` has no verdict table
    (a first run)."""
    old, new = verdicts(before), verdicts(after)
    figs = {k: f for k, (_, f) in figures(before).items()}, {k: f for k, (_, f) in figures(after).items()}
    if not old:
        return ""
    keys = sorted(set(old) | set(new))
    moved = [
        (c, col, a, b)
        for (c, col) in keys
        if (a := old.get((c, col), "(no such claim)")) != (b := new.get((c, col), "(no longer scored)"))
    ]
    claims = {c for c, _ in set(old) | set(new)}
    head = (
        f"\n{HEADING}\n\nAgainst the summary this run replaced (its verdict table, read back): "
        f"{len(moved)} verdict(s) of {len(keys)} over {len(claims)} claim(s) changed.\n"
    )
    if not moved:
        return head
    rows = "".join(
        f"| {c} | {col} | {a} | {b} | {figs[0].get((c, col), '')} | {figs[1].get((c, col), '')} |\n"
        for c, col, a, b in moved
    )
    return (
        head
        + "\n| claim | column | before | now | figure before | figure now |\n|---|---|---|---|---|---|\n"
        + rows
    )
