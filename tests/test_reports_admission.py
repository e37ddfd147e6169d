"""The admission study's report (issue 43, item 5) on a hand-made table: the best point under a
budget, the opt share, and Baleen's order through the claims engine."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fcsim.reports import admission, testable


def table() -> pd.DataFrame:
    # One trace, 10 days of writes at each point's DWPD. all: one point at 20 DWPD.
    # random: 1 DWPD -> 0.10, 5 -> 0.20; second-hit: 2 -> 0.25, 12 -> 0.30; opt: 1 -> 0.30,
    # 3 -> 0.40, 20 -> 0.50.
    rows = [
        ("all", 20.0, 0.45),
        ("random", 1.0, 0.10),
        ("random", 5.0, 0.20),
        ("second-hit", 2.0, 0.25),
        ("second-hit", 12.0, 0.30),
        ("opt", 1.0, 0.30),
        ("opt", 3.0, 0.40),
        ("opt", 20.0, 0.50),
    ]
    df = pd.DataFrame(rows, columns=["admission", "dwpd", "read_hit_ratio"])
    return df.assign(
        trace="t.csv",
        policy="lru",
        size_pages=100,
        cache_writes=df["dwpd"] * 1000,
        peak_dt=0.5 - df["read_hit_ratio"] / 2,
        knob_value=range(len(df)),
        budget_dwpd=None,
    )


def test_the_best_point_under_a_budget() -> None:
    df = table()
    # 3 DWPD: random's 1-DWPD point (0.10), second-hit's 2 (0.25), opt's 3 (0.40); all writes
    # 20 and does not fit.
    assert admission.under_budget(df, 3.0) == {"random": 0.10, "second-hit": 0.25, "opt": 0.40}
    assert admission.under_budget(df, 0.5) == {}


def test_budgets_opt_shares_and_the_order(tmp_path: Path) -> None:
    df = table()
    d = admission.budget_table(df)
    at10 = d[d["at"] == "10 DWPD"].set_index("policy")
    # 10 DWPD: random 0.20 (40% of opt's 0.40), second-hit 0.25 (62.5%).
    assert at10.loc["random", "read_hit_ratio"] == 0.20
    assert at10.loc["second-hit", "opt_share"] == 62.5
    # 10% of all's 20 000 cache writes = 2000: random's 1 000 (0.10), second-hit's 2 000 (0.25).
    share = d[d["at"] == "10% of all"].set_index("policy")
    assert share.loc["second-hit", "read_hit_ratio"] == 0.25 and "all" not in share.index
    summary = admission.report(df, tmp_path, "test").read_text()
    # random <= second-hit at every budget both meet (all never fits one): the order agrees;
    # no online share is above 100%.
    assert "| At a fixed write rate: second-hit >= random (Baleen) |" in summary
    assert "holds at 4 of 4 (trace, at) points" in summary
    # At all's own 20 DWPD (100% of all), random's best is 0.20 < all's 0.45: random >= all
    # disagrees, and says so with the numbers.
    assert "| At all's write rate: random >= all (Baleen) |" in summary
    assert "admit all 0.4500 > random 0.2000" in summary and summary.count("**disagrees**") == 1
    assert (tmp_path / "pareto_t.png").stat().st_size > 0


def test_ml_is_scored_against_opt_over_its_span(tmp_path: Path) -> None:
    # ml's rows and a same-span opt row leave the first 300 requests out: ml's 0.20 at 2 DWPD is
    # 80% of the same-span opt's 0.25 (not of the whole trace's opt), and its claim is scored.
    df = table()
    later = pd.DataFrame(
        {"admission": ["ml", "ml", "opt"], "dwpd": [2.0, 30.0, 1.5], "read_hit_ratio": [0.20, 0.22, 0.25]}
    ).assign(
        trace="t.csv",
        policy="lru",
        size_pages=100,
        cache_writes=lambda d: d["dwpd"] * 700,
        peak_dt=0.3,
        knob_value=[0.1, 0.9, 0.01],
        budget_dwpd=None,
        warmup_requests=300,
    )
    df = pd.concat([df.assign(warmup_requests=None), later], ignore_index=True)
    assert admission.measured_later(df) == ["ml"]
    d = admission.budget_table(df)
    at3 = d[d["at"] == "3 DWPD"].set_index("policy")
    assert at3.loc["ml", "opt_share"] == 80.0 and at3.loc["ml", "span"] == "after 300 requests"
    # The whole trace's opt at 3 DWPD is still its own (0.40), not the span's.
    assert at3.loc["opt", "read_hit_ratio"] == 0.40 and at3.loc["random", "opt_share"] == 25.0
    summary = admission.report(df, tmp_path, "test").read_text()
    claim = "| learned (ml) keeps at most the bound's read hits under a budget (opt over its span) |"
    assert claim in summary
    assert "0.2000 (80% of opt over its span, 0.2500)" in summary


def test_a_failure_of_baleens_order_is_given_its_reason_from_the_trace(tmp_path: Path) -> None:
    # second-hit below random at every budget both meet: 0.05 (2 DWPD) and 0.08 (12 DWPD). The
    # trace's measures say why: 60% of its read re-references are a page's 2nd access, which
    # second-hit never hits.
    df = table()
    hit = df["admission"] == "second-hit"
    df.loc[hit, "read_hit_ratio"] = [0.05, 0.08]
    reuse = {"read_rereads": 1000, "second_ref_share": 0.6, "once_page_share": 0.7}
    reuse["read_locality"] = (0.2, 0.8)
    # The fidelity measures the gate reads (reads and reuse enough to test the order).
    measures = {"t.csv": {**reuse, "write_share_pages": 0.3, "miss_ratio_50pct": 0.5}}
    d = admission.with_reasons(admission.budget_table(df), ("random", "second-hit"), measures)
    assert (d[d["at"] == "1 DWPD"]["why_order"] == "").all()  # second-hit has no point within 1
    why = d[d["at"] == "10 DWPD"]["why_order"].iloc[0]
    assert why.startswith("second-hit < random: 60% of the read re-references are a page's 2nd access")
    summary = admission.report(df, tmp_path, "test", measures=measures).read_text()
    assert "10 DWPD: random 0.2000 > second-hit 0.0500; second-hit < random: 60% of the" in summary
    assert "Reuse (from the trace, `fcsim trace info`): 60% of the 1,000 read re-references" in summary
    # A frequency admission below second-hit: the pages seen once and the read skew.
    why = admission._why("second-hit", "tinylfu", reuse)
    assert why == (
        "TinyLFU < second-hit: 70% of the pages are seen once, which second-hit declines at no loss, "
        "while TinyLFU admits by counts; 20% of the read pages get 80% of the reads"
    )


def test_a_clone_is_named_by_its_model() -> None:
    spec = "synth:clone=data/traces/diskmon_sys1.trace.gz,scale=10,model=renewal"
    assert testable.short(spec) == "clone=data/traces/diskmon_sys1.trace.gz, scale 10, model=renewal"


def test_random_at_alls_write_rate_is_all_itself_and_not_scored() -> None:
    # Random's range reaches p = 1, which admits all: where its read hits under all's writes
    # equal all's, the budget picked that very run, and random >= all would hold by construction.
    derived = pd.DataFrame(
        {
            "trace": ["t"] * 4,
            "at": ["100% of all", "100% of all", "10% of all", "10% of all"],
            "policy": ["all", "random", "all", "random"],
            "read_hit_ratio": [0.081, 0.081, 0.02, 0.03],
        }
    )
    out = admission.with_reasons(derived, ("random", "tinylfu"), None)
    assert list(out["tie_all"] != "") == [True, True, False, False]
    assert out["tie_all"].iloc[0].endswith("all itself: a tie by construction")
