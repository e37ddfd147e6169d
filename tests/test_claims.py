"""The claims engine (`fcsim.reports.claims`) on small hand-made result tables: agrees,
disagrees and untestable (a workload that cannot test the claim, a point that cannot be
scored), a range claim, a claim against a baseline, a mean, a contrast, a claim held per trace
to its own figure, and the verdict table."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
from test_reports_testable import READ_ONLY, RICH

from fcsim.reports import testable
from fcsim.reports.claims import (
    UP_TO_FACTOR,
    Claim,
    Contrast,
    Sweep,
    disagreements,
    evaluate,
    score,
    table,
    up_to,
)

NO_GATE = testable.Gate("gasa", None)


def _rows(values: dict[str, dict[str, list[float]]], sizes: tuple[float, ...] = (1.0, 2.0)) -> pd.DataFrame:
    """One row per (trace, policy, size): ``values[trace][policy]`` is the metric per size."""
    return pd.DataFrame(
        [
            {"trace": t, "policy": p, "size_pct": s, "writes": v}
            for t, by in values.items()
            for p, vs in by.items()
            for s, v in zip(sizes, vs, strict=True)
        ]
    )


# a.csv: GASA writes 10% and 20% less than LRU; b.csv: 5% less at 1%, 5% more at 2%.
DF = _rows(
    {
        "a.csv": {"lru": [100.0, 100.0], "gasa": [90.0, 80.0]},
        "b.csv": {"lru": [100.0, 100.0], "gasa": [95.0, 105.0]},
    }
)


def test_below_every_point_agrees_and_disagrees() -> None:
    c = Claim(
        "less", "GASA writes less than LRU", "§IV.B.2", "flash-writes", "writes", "gasa", "below", "lru"
    )
    v = score(c, DF[DF["trace"] == "a.csv"], NO_GATE)
    assert v is not None and v.verdict == "agrees" and v.fcsim == "holds at 2 of 2 (trace, size) points"
    v = score(c, DF, NO_GATE, {"gasa": "GASA", "lru": "LRU"})
    assert v is not None and v.verdict == "disagrees" and v.fcsim == "holds at 3 of 4 (trace, size) points"
    # The disagreement names the point that fails, with both figures.
    assert v.detail == ["b.csv: 2%: GASA 105, LRU 100"]


def test_range_claim_against_a_baseline() -> None:
    # "GASA cuts LRU's writes by 5% to 15%" at every point: a.csv's -20% at 2% is outside.
    c = Claim(
        "cut", "cut", "§IV.B.2", "flash-writes", "writes", "gasa", "change", "lru", "every", -15.0, -5.0
    )
    v = score(c, DF[DF["trace"] == "a.csv"], NO_GATE)
    assert v is not None and v.verdict == "disagrees"
    assert v.fcsim == "holds at 1 of 2 (trace, size) points (-20.0% … -10.0%)"
    assert v.detail == ["a.csv: 2%: gasa 80, lru 100 (-20.0%)"]
    assert v.paper == "§IV.B.2: -15% to -5%"
    # Some point cuts at least 18%.
    some = Claim("up", "some", "§IV.B.2", "flash-writes", "writes", "gasa", "change", "lru", "some", hi=-18.0)
    v = score(some, DF, NO_GATE)
    assert v is not None and v.verdict == "agrees" and v.fcsim == "-20.0% … +5.0% over 4 (trace, size) points"


def test_up_to_is_a_band_both_ways() -> None:
    # "Up to 18%" reads as a cut of 9% to 36% (same sign, within a factor of 2): the best cut
    # (the least change) must fall in it, neither far short of it nor far beyond it.
    assert up_to(-18.0) == (-36.0, -9.0) and up_to(26.0) == (13.0, 52.0)
    assert UP_TO_FACTOR == 2.0

    def claim(x: float) -> Claim:
        lo, hi = up_to(x)
        return Claim("up", "up", "§IV.B.2", "flash-writes", "writes", "gasa", "change", "lru", "min", lo, hi)

    v = score(claim(-18.0), DF, NO_GATE)  # best cut -20%: in -36% … -9%
    assert v is not None and v.verdict == "agrees"
    assert v.fcsim == "least -20.0% over 4 (trace, size) points (-20.0% … +5.0%)"
    v = score(claim(-8.0), DF, NO_GATE)  # -20% is beyond twice 8%: a cut far larger disagrees
    assert v is not None and v.verdict == "disagrees"
    # The disagreement names the point that sets the figure.
    assert v.detail == ["a.csv: 2%: gasa 80, lru 100 (-20.0%)"]
    v = score(claim(-45.0), DF, NO_GATE)  # -20% is short of half of 45%
    assert v is not None and v.verdict == "disagrees"
    # A gain of the wrong sign never agrees: b.csv alone, "up to 10% more", best +5% in 5% … 20%.
    gain = replace(claim(10.0), aggregate="max")
    v = score(gain, DF[DF["trace"] == "b.csv"], NO_GATE)
    assert v is not None and v.verdict == "agrees"
    v = score(replace(gain, lo=up_to(-10.0)[0], hi=up_to(-10.0)[1]), DF[DF["trace"] == "b.csv"], NO_GATE)
    assert v is not None and v.verdict == "disagrees"


def test_mean_and_share() -> None:
    mean = Claim("m", "mean cut", "§1", "flash-writes", "writes", "gasa", "saving", "lru", "mean", 5.0, 10.0)
    v = score(mean, DF, NO_GATE)  # savings 10, 20, 5, -5: mean 7.5
    assert v is not None and v.verdict == "agrees" and v.fcsim.startswith("mean +7.5% over 4")
    share = Claim(
        "s", "s", "§1", "flash-writes", "writes", "gasa", "change", "lru", "share", hi=-6.0, share=0.75
    )
    v = score(share, DF, NO_GATE)  # 2 of 4 points cut more than 6%
    assert v is not None and v.verdict == "disagrees"


def test_a_workload_that_cannot_test_the_claim_is_never_scored() -> None:
    c = Claim("less", "GASA writes less", "§IV.B.2", "flash-writes", "writes", "gasa", "below", "lru")
    flat = {**RICH, "write_reuse_1pct": 0.12, "write_reuse_10pct": 0.125}
    # b.csv cannot test a flash-write claim: scored on a.csv alone, which agrees.
    v = score(c, DF, testable.Gate("gasa", {"a.csv": RICH, "b.csv": flat}))
    assert v is not None and v.verdict == "agrees"
    # The table names the trace left out and why (issue 41).
    assert v.fcsim == "holds at 2 of 2 (trace, size) points (untestable on b: write reuse 1%→10% 0.6%)"
    # Neither can: untestable, with each one's reason.
    v = score(c, DF, testable.Gate("gasa", {"a.csv": flat, "b.csv": flat}))
    assert v is not None and v.verdict == "untestable"
    assert v.fcsim == "a: write reuse 1%→10% 0.6%; b: write reuse 1%→10% 0.6%"


def test_points_that_cannot_be_scored() -> None:
    c = Claim("less", "less", "§V.A", "flash-writes", "writes", "gasa", "below", "lru", skip="why")
    df = DF.assign(why="")
    df.loc[df["trace"] == "b.csv", "why"] = "b at 1%: no decision"
    v = score(c, df, NO_GATE)
    assert v is not None and v.verdict == "agrees"
    assert v.fcsim == "holds at 2 of 2 (trace, size) points (not scored: b at 1%: no decision)"
    v = score(c, df.assign(why="no decision"), NO_GATE)
    assert v is not None and v.verdict == "untestable" and v.fcsim == "no decision"


def test_trace_selection_per_trace_figure_and_contrast() -> None:
    # A claim about no trace of the table is not shown.
    none = Claim("x", "x", "§1", "flash-writes", "writes", "gasa", "below", "lru", traces=lambda t: False)
    assert score(none, DF, NO_GATE) is None
    # Each trace against its own "up to": a.csv 15% (met by -20%), b.csv 10% (not met).
    own = {"a.csv": 15.0, "b.csv": 10.0}
    c = Claim(
        "own", "own", "§IV.B.2", "flash-writes", "writes", "gasa", "change", "lru", "some",
        bound=lambda t: (-math.inf, -own[t]),
    )  # fmt: skip
    v = score(c, DF, NO_GATE)
    assert (
        v is not None and v.verdict == "disagrees" and v.fcsim.startswith("holds on 1 of 2 traces: a -20.0%")
    )
    # The best cut on a.csv (-20%) is larger than on b.csv (-5%).
    k = Contrast(
        "k", "k", "§IV.B.2", "flash-writes", "writes", "gasa", "lru",
        "a.csv".__eq__, "b.csv".__eq__, "A", "B", "A > B",
    )  # fmt: skip
    v = score(k, DF, NO_GATE)
    assert v is not None and v.verdict == "agrees" and v.fcsim == "A -20.0%, B -5.0% (a -20.0%, b -5.0%)"


def test_lowest_between_and_the_table() -> None:
    df = _rows({"t.csv": {"lru": [5.0], "cflru": [3.0], "gasa": [4.0], "pt-lru": [1.0]}}, sizes=(1.0,))
    claims = [
        Claim("low", "PT-LRU lowest", "§IV.B.1", "hit-ratio", "writes", "pt-lru", "lowest", fmt=".1f"),
        Claim(
            "mid", "GASA between", "§IV.B.1", "hit-ratio", "writes", "gasa", "between", "lru", over=("cflru",)
        ),
        Claim("top", "GASA highest", "§IV.B.1", "hit-ratio", "writes", "gasa", "highest", fmt=".1f"),
    ]
    vs = evaluate(claims, df, NO_GATE)
    assert [v.verdict for v in vs] == ["agrees", "agrees", "disagrees"]
    assert vs[2].detail == ["t.csv: 1%: gasa 4.0, lru 5.0"]
    lines = table({"real": vs, "profiles": vs[:1]})
    assert lines[0] == (
        "| claim | paper's figure | fcsim's figure (real) | verdict (real) | fcsim's figure (profiles) "
        "| verdict (profiles) |"
    )
    assert (
        lines[4]
        == "| GASA highest | §IV.B.1: any | holds at 0 of 1 (trace, size) points | **disagrees** |  |  |"
    )
    assert lines[-1].startswith("real: 2 agree, 1 disagree, 0 untestable; profiles: 1 agree, 0 disagree")
    assert disagreements(vs)[0] == (
        "- **GASA highest** (§IV.B.1: any). fcsim: holds at 0 of 1 (trace, size) points."
    )
    assert disagreements(vs[:2]) == ["Nowhere: every claim above holds."]
    # Nothing scored, or nothing testable: not "Nowhere", which would say every claim holds.
    assert disagreements([]) == ["No claim was scored."]
    untestable = [replace(v, verdict="untestable") for v in vs]
    assert disagreements(untestable) == ["None to report: no claim above can be tested on these workloads."]


def _sweep_rows(means: dict[str, list[float]], windows: tuple[float, ...] = (1 / 64, 1 / 8, 1 / 2, 1.0)):
    """One policy's rows along its window: ``means[trace]`` is the mean response per window,
    one load; the window as the result rows write it (text, "" for a policy without one)."""
    rows = [
        {"trace": t, "policy": "lcr", "load": "30%", "window": f"{w:g}", "mean": m, "dirty": 0.5}
        for t, ms in means.items()
        for w, m in zip(windows, ms, strict=True)
    ]
    # Another policy at the same load, without the parameter: not part of the sweep.
    rows.append({"trace": "a.csv", "policy": "lru", "load": "30%", "window": "", "mean": 1.0, "dirty": 0.5})
    return pd.DataFrame(rows)


def test_sweep_of_one_policys_parameter() -> None:
    # "Falls from 1/64 to 1/2": the mean at 1/2 at least 5% below 1/64's, no step up more than 1%.
    # a.csv falls 100 -> 90 -> 80 (-20%); b.csv falls overall (-10%) but rises 100 -> 104 on the
    # way (+4%); c.csv barely moves (-2%). The run at 1 is outside the claim's span.
    df = _sweep_rows({"a.csv": [100, 90, 80, 500], "b.csv": [100, 104, 90, 90], "c.csv": [100, 99, 98, 98]})
    falls = Sweep(
        "f", "falls", "§IV.D.1", "window-response", "mean", "lcr", "window", "falls", 5.0, "smaller",
        end=0.5, step=1.0, explain=(("dirty", "dirty share"),),
    )  # fmt: skip
    v = score(falls, df[df["trace"] == "a.csv"], NO_GATE)
    assert v is not None and v.verdict == "agrees"
    assert v.fcsim == "holds at 1 of 1 (trace, load) points (change -20.0%)"
    assert v.paper == "§IV.D.1: smaller"
    v = score(falls, df, NO_GATE)
    assert v is not None and v.verdict == "disagrees"
    assert v.fcsim == "holds at 1 of 3 (trace, load) points (change -20.0% … -2.0%)"
    # Each failing point in numbers: its figure per window, why it fails, what moved beside it.
    assert v.detail == [
        "b.csv: 30%: 1/64: 100, 1/8: 104, 1/2: 90 (-10.0% from 1/64 to 1/2; rises 1/64 → 1/8 +4.0%); "
        "dirty share: 1/64 0.5, 1/8 0.5, 1/2 0.5",
        "c.csv: 30%: 1/64: 100, 1/8: 99, 1/2: 98 (-2.0% from 1/64 to 1/2); dirty share: 1/64 0.5, 1/8 0.5, "
        "1/2 0.5",
    ]
    # "Flat": (max - min) / min over every window within 5%: c.csv (100 vs 98: 2.0%) holds,
    # a.csv ((500 - 80) / 80: 525%) does not.
    flat = replace(falls, id="s", shape="flat", end=math.inf, explain=())
    v = score(flat, df[df["trace"] != "b.csv"], NO_GATE)
    assert v is not None and v.verdict == "disagrees"
    assert v.fcsim == "holds at 1 of 2 (trace, load) points (spread 2.0% … 525.0%)"
    assert v.detail == ["a.csv: 30%: 1/64: 100, 1/8: 90, 1/2: 80, 1: 500 (spread 525.0%)"]


def test_sweep_untestable() -> None:
    df = _sweep_rows({"a.csv": [100, 90, 80, 80], "b.csv": [100, 90, 80, 80]})
    falls = Sweep(
        "f", "falls", "§IV.D.1", "window-response", "mean", "lcr", "window", "falls", 5.0, "smaller",
        start=1 / 64, end=0.5, step=1.0, skip="saturated",
    )  # fmt: skip
    # A sweep with a saturated run is left out whole, with its reason; none left: untestable.
    sat = df.assign(saturated="")
    sat.loc[(sat["trace"] == "b.csv") & (sat["window"] == "0.5"), "saturated"] = "b at 30% (saturated)"
    v = score(falls, sat, NO_GATE)
    assert v is not None and v.verdict == "agrees"
    assert (
        v.fcsim == "holds at 1 of 1 (trace, load) points (change -20.0%) (not scored: b at 30% (saturated))"
    )
    v = score(falls, sat.assign(saturated="saturated"), NO_GATE)
    assert v is not None and (v.verdict, v.fcsim) == ("untestable", "saturated")
    # A sweep without a run at an end of the claim's span cannot show its shape.
    v = score(falls, df[df["window"] != "0.015625"], NO_GATE)
    assert v is not None and v.verdict == "untestable"
    assert v.fcsim == "a at 30%: no run at 1/64; b at 30%: no run at 1/64"
    # A workload without writes cannot test it (the window only orders dirty pages): b.csv is
    # left out and says why; with neither, untestable.
    gate = testable.Gate("lcr", {"a.csv": RICH, "b.csv": READ_ONLY})
    v = score(falls, df, gate)
    assert (
        v is not None
        and v.verdict == "agrees"
        and v.fcsim.endswith("(untestable on b: writes 0.0% of pages)")
    )
    v = score(falls, df, testable.Gate("lcr", {"a.csv": READ_ONLY, "b.csv": READ_ONLY}))
    assert v is not None and v.verdict == "untestable"
    assert v.fcsim == "a: writes 0.0% of pages; b: writes 0.0% of pages"
    # A sweep about no trace of the rows is not shown.
    assert score(replace(falls, traces=lambda t: False), df, NO_GATE) is None


def test_every_committed_summary_opens_with_its_verdict_table() -> None:
    # The first screen (40 lines) of each reproduction's summary: the title, the command, the
    # whole verdict table and its count; the disagreements in words and numbers further down.
    root = Path(__file__).resolve().parents[1] / "results"
    for paper in ("gasa", "lcr", "larc", "dynamic", "offline"):
        text = (root / paper / "summary.md").read_text()
        head = text.splitlines()[:40]
        assert head[0].startswith("# ") and any(f"`fcsim reproduce {paper} " in line for line in head[:4]), (
            paper
        )
        start = head.index("## Verdicts")
        assert head[start + 2].startswith("| claim | paper's figure | fcsim's figure"), paper
        end = next(i for i in range(start + 2, len(head)) if not head[i].startswith("|"))
        assert end - start > 4, paper  # a header, its rule and at least one claim
        assert " agree, " in head[end + 1] and " untestable" in head[end + 1], paper
        assert "## Where fcsim disagrees with the paper" in text, paper


def test_the_verdicts_a_rerun_changed_are_listed() -> None:
    from fcsim.reports import changes

    def summary(rows: str) -> str:
        return (
            "# X\n\n## Verdicts\n\n| claim | paper's figure | fcsim's figure (a) | verdict (a) "
            "| verdict (b) |\n|---|---|---|---|---|\n"
            + rows
            + "\nText after.\n\n| other | table |\n|---|---|\n| x | agrees |\n"
        )

    before = summary(
        "| C1 | 5% | holds \\| at 1 | agrees | **disagrees** |\n"
        "| C2 | 9% | none | untestable on this workload |  |\n"
        "| C3 | 1% | all | agrees | agrees |\n"
    )
    after = summary(
        "| C1 | 5% | holds \\| at 2 | agrees | agrees |\n"
        "| C2 | 9% | some | **disagrees** |  |\n"
        "| C4 | 2% | new | agrees |  |\n"
    )
    assert changes.verdicts(before)[("C1", "verdict (b)")] == "disagrees"
    text = changes.section(before, after)
    assert "5 verdict(s) of 6 over 4 claim(s) changed" in text
    for row in (
        "| C1 | verdict (b) | disagrees | agrees |",
        "| C2 | verdict (a) | untestable on this workload | disagrees | none | some |",
        "| C3 | verdict (a) | agrees | (no longer scored) |",
        "| C3 | verdict (b) | agrees | (no longer scored) |",
        "| C4 | verdict (a) | (no such claim) | agrees |  | new |",
        # A verdict column with no figure column before it: no figure.
        "| C1 | verdict (b) | disagrees | agrees |  |  |",
    ):
        assert row in text, (row, text)
    assert "| C1 | verdict (a)" not in text
    # A first run (nothing replaced) adds nothing; the same table twice: none changed.
    assert changes.section("", after) == ""
    assert "0 verdict(s) of 4 over 3 claim(s) changed" in changes.section(after, after)
