"""The workload-profile parts of the LCR and dynamic-allocation reports on small made-up result
tables (no simulation): each profile is held to its own paper trace's figures, and every claim
that misses is listed with its numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fcsim.reports import dynamic, lcr, testable

DEVICE = {
    "device_channels": "8",
    "device_chips_per_channel": "8",
    "device_read_us": "25",
    "device_write_us": "200",
}


# The profile part's time scales and the loads they give (lcr.toml's five, issue 26).
LCR_LOADS = {0.05: 0.1, 0.0166: 0.3, 0.01: 0.5, 0.00714: 0.7, 0.00556: 0.9}
EVERY_LOAD = ", ".join(f"{load:.0%} (time x{scale:g})" + " {}" for scale, load in LCR_LOADS.items())


def _lcr_rows() -> pd.DataFrame:
    rows = []
    # LCR's mean response relative to LRU's, GCaR-CFLRU's and CFLRU's (same for the std).
    factors = {"lru": 1.0, "cflru": 0.98, "gcar-cflru": 0.90, "lcr": 0.70}
    for name, reads, writes, gain in (("web_0", 30_000, 70_000, True), ("financial2", 82_000, 18_000, False)):
        for scale, load in LCR_LOADS.items():
            # Page reads x 25 us + page writes x 200 us over 64 chips and the span: U = 10% at
            # the largest scale ... 90% at the smallest (the span shrinks with the scale).
            work_us = reads * 25 + writes * 200
            span = work_us / (64 * load) / 1e6
            for policy, f in factors.items():
                f = f if gain else 1.0
                rows.append(
                    {
                        "trace": f"synth:profile=lcr-{name},scale=0.5",
                        "policy": policy,
                        "time_scale": scale,
                        "queue_depth": 0,
                        "requests": 50_000,
                        "accesses": reads + writes,
                        "reads": reads,
                        "writes": writes,
                        "duration_s": span,
                        "resp_mean_us": 1000.0 * f,
                        "resp_std_us": 2000.0 * f,
                        "resp_p99_us": 9000.0,
                        "hit_ratio": 0.30,
                        "erasures": 500,
                        "dirty_eviction_share": 0.26 if name == "web_0" else 0.05,
                        "flash_page_writes": writes,
                        "load_balance_p50": 2.0,
                        "load_balance_p90": 3.0,
                        **DEVICE,
                    }
                )
    return pd.DataFrame(rows)


def test_lcr_profile_part(tmp_path: Path) -> None:
    # The report of the profiles alone (`fcsim reproduce lcr --only <profile>`): no real trace's
    # rows, so no window or cache-size sweep; it renders the profile part it has.
    rows = _lcr_rows().assign(device_steady="0", param_window=None)
    text = lcr.report(rows, tmp_path, "fcsim reproduce lcr --only ...").read_text()
    assert "## Fig. 5-7 as the paper runs them" not in text and not (tmp_path / "window.png").exists()
    for part in (
        "# Part 2: workload profiles",
        "`scale=0.5` for every profile",
        "## Fig. 5-7 on the profiles",
        "## Where fcsim disagrees with the paper (profiles)",
    ):
        assert part in text
    # The load rule, measured back from each run: U = 0.1 ... 0.9.
    assert "10% (time x0.05): 0.100, 30% (time x0.0166): 0.300, 50% (time x0.01): 0.500" in text
    # The gain against the load: one row per profile, one column per load, the measured U.
    assert "## LCR's gain against the load (profiles)" in text
    assert "| profile | 10% | 30% | 50% | 70% | 90% |" in text
    # The rows of this test carry no chip busy times: the measured U is n/a.
    cells = " | ".join(f"-30.0% ({u}%; n/a)" for u in (10, 30, 50, 70, 90))
    assert f"| web_0 | {cells} |" in text
    assert (tmp_path / "gain_vs_utilisation_profiles.png").stat().st_size > 10_000
    # web_0's -22.2% against GCaR-CFLRU is more than twice the paper's "up to" 5.2%: a
    # disagreement in numbers ("up to" is a band, not a floor).
    assert (
        "- **LCR cuts GCaR-CFLRU's mean response by the trace's 'up to' figure** (§IV.B.1, Fig. 5: up to "
        "web_0 -5.2%, ts_0 -5.9%, proj_0 -12.3%, wdev_2 -10.1%" in text
    )
    assert (
        "holds on 0 of 1 traces: lcr-web_0, scale 0.5 least -22.2% over 5 (trace, load) points (-22.2%) "
        "(paper -10.4% to -2.6%)" in text
    )
    for png in ("response_mean_profiles", "response_std_profiles", "hit_ratio_profiles"):
        assert (tmp_path / f"{png}.png").stat().st_size > 10_000


def test_lcr_profile_verdicts() -> None:
    d = lcr._profile_frame(_lcr_rows())
    v = {x.claim.id: x for x in lcr.profile_verdicts(d, testable.Gate("lcr", None))}
    # web_0 is held to its own figures, each "up to X" read as X/2 to 2X: -30% vs LRU is within
    # "up to -24.8%"'s band; -22.2% vs GCaR-CFLRU is beyond twice its -5.2%; its std is held to
    # ts_0's -43.9% (band -87.8% to -21.95%), as the paper likens them.
    assert v["p-mean-lru"].verdict == "agrees"
    assert (
        "lcr-web_0, scale 0.5 least -30.0% over 5 (trace, load) points (-30.0%) (paper -49.6% to -12.4%)"
        in v["p-mean-lru"].fcsim
    )
    assert v["p-mean-gcar-cflru"].verdict == "disagrees"
    assert v["p-std-lru"].verdict == "agrees" and "(paper -87.8% to -21.95%)" in v["p-std-lru"].fcsim
    # The abstract's "as much as 39.2%" against the best profile: -30% is within its band.
    assert v["gain-resp_mean_us-lru"].verdict == "agrees"
    assert v["gain-resp_mean_us-lru"].fcsim.startswith("least -30.0% over 10 (trace, load) points")
    # financial2: the four policies tie, which is the paper's "almost no improvement"; web_0's
    # 26% dirty evictions are within 10 points of its 24%; LCR is never beaten.
    assert v["p-none"].verdict == v["p-dirty"].verdict == v["p-lowest-resp_mean_us"].verdict == "agrees"
    assert v["p-lowest-resp_mean_us"].fcsim == "holds at 10 of 10 (trace, load) points"
    # proj_0 is not among the rows: its claims are not shown at all.
    assert "p-gcar-proj" not in v and "p-dirty-min" not in v


def _lcr_window_rows() -> pd.DataFrame:
    """Fig. 8's sweep beside the profile rows: LCR alone on web_0 at its 30% load, its window
    1/64 ... 1, the mean falling from 1/64 to 1/2 and the hit ratio flat; the other rows at the
    default window 0.1."""
    rows = _lcr_rows().assign(
        param_window=lambda d: d["policy"].map(lambda p: None if p == "lru" else "0.1"),
        size_pages=1024,
        page_size=4096,
    )
    one = rows[(rows["trace"] == "synth:profile=lcr-web_0,scale=0.5") & (rows["policy"] == "lcr")]
    one = one[one["time_scale"] == 0.0166].iloc[0]
    means = (1000.0, 950.0, 900.0, 850.0, 800.0, 760.0, 770.0)
    sweep = [
        {**one.to_dict(), "param_window": f"{w:g}", "resp_mean_us": m, "hit_ratio": 0.30 + 0.001 * i}
        for i, (w, m) in enumerate(zip(lcr.WINDOWS, means, strict=True))
    ]
    return pd.concat([rows, pd.DataFrame(sweep)], ignore_index=True)


def test_lcr_profile_window_sweep(tmp_path: Path) -> None:
    rows = _lcr_window_rows()
    d, win = lcr._profile_frame(rows), lcr._profile_frame(rows, sweep=True)
    # The sweep's rows never mix into Fig. 5-7's: LCR's default-window rows alone there.
    assert len(d) == len(_lcr_rows()) and set(d["window"]) == {"", "0.1"}
    assert len(win) == 7 and set(win["policy"]) == {"lcr"}
    v = {x.claim.id: x for x in lcr.profile_verdicts(d, testable.Gate("lcr", None), win)}
    assert v["p-mean-lru"].verdict == "agrees" and "least -30.0% over 5" in v["p-mean-lru"].fcsim
    # web_0: 1000 us at 1/64 to 760 us at 1/2 (-24%), no step up; the rise to 770 at 1 is past
    # the claim's span. The hit ratio moves 0.300 ... 0.306: a spread of 2%, within 5%.
    assert v["w-falls"].verdict == "agrees"
    assert v["w-falls"].fcsim == "holds at 1 of 1 (trace, load) points (change -24.0%)"
    assert v["w-hit"].verdict == "agrees" and v["w-hit"].fcsim.endswith("(spread 2.0%)")
    # wdev_2 and proj_0 are not among the rows: their claim is not shown.
    assert "w-stable" not in v
    text = lcr.report(rows.assign(device_steady="0"), tmp_path, "fcsim reproduce lcr --only ...").read_text()
    assert "## Window size on the profiles (LCR Fig. 8)" in text
    assert (
        "| web_0 | 30% (time x0.0166) | 1000 | 950 | 900 | 850 | 800 | 760 | 770 | 0.3000 … 0.3060 |" in text
    )
    assert (tmp_path / "window_profiles.png").stat().st_size > 10_000


def _dynamic_rows() -> pd.DataFrame:
    rows = []
    spares = [15, 25, 35, 45, 55, 65, 75, 85]
    curves = {
        # Homes: a valley at 35% (the paper's best), dynamic 2.5% above it.
        "homes": ([3000, 2500, 2000, 2100, 2200, 2300, 2400, 2500], 2050.0),
        # Exchange: best at 15% (the paper: 45%), dynamic 10% above it.
        "exchange": ([1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700], 1100.0),
    }
    for name, (resp, dyn) in curves.items():
        size = 80.0 if name == "homes" else 69.0
        for i, sp in enumerate([*spares, None]):
            static = sp is not None
            rows.append(
                {
                    "trace": f"synth:profile=dynamic-{name},scale=0.1",
                    "split": f"{sp / 100:.2f}" if static else "dynamic",
                    "spare": float(sp) if static else float("inf"),
                    "size_pct": size,
                    "queue_depth": 1,
                    "requests": 10_000,
                    "accesses": 20_000,
                    "ssd_physical_pages": 1000,
                    "cache_pages": int(1000 * (1 - sp / 100)) if static else 650,
                    "stack_window": None if static or name == "homes" else "2.5",
                    "resp_mean_us": float(resp[i]) if static else dyn,
                    "hit_ratio": 0.9 - 0.01 * i if static else 0.85,
                    # Erasures fall with OP; at 65% they are 1/1.2 of those at 35%.
                    "erasures": float(1200 - 40 * i) if static else 900.0,
                    "gc_victim_utilisation": 0.5,
                    "model_latency_us": 1500.0,
                    "split_training": np.array([0.0] + [1.0] * 8 + [0.0, 0.0]) if not static else None,
                    "split_resizes": 3 if not static else None,
                    "split_trainings": 1 if not static else None,
                    "split_decisions": 11 if not static else None,
                }
            )
    return pd.DataFrame(rows)


def test_dynamic_profile_part(tmp_path: Path) -> None:
    text = "\n".join(dynamic._profile_part(_dynamic_rows(), tmp_path))
    for part in (
        "# Part 2: workload profiles",
        "`scale=0.1`: requests and working set shrink alike",
        "## Where fcsim disagrees with the paper (profiles)",
    ):
        assert part in text
    assert "| Homes | `synth:profile=dynamic-homes,scale=0.1` | 10,000 | 20,000 | 80% | 1,000 | 2 |" in text
    assert "| 69% | 1,000 | 2.5 |" in text
    # Exchange's best static OP is not its 45%: a disagreement with its numbers.
    assert "- **The best static OP is the paper's** (§V.A, Fig. 3: Financial1 85%, Homes 35%" in text
    assert "dynamic-exchange, scale 0.1 holds at 0 of 1 (trace, size) points (15) (paper 45)" in text
    for png in ("response_profiles", "hit_ratio_profiles", "erasures_profiles"):
        assert (tmp_path / f"{png}.png").stat().st_size > 10_000


def test_dynamic_profile_verdicts() -> None:
    rows = _dynamic_rows()
    v = {x.claim.id: x for x in dynamic.profile_verdicts(rows, testable.Gate("dynamic", None))}
    # Each profile against its own trace: Homes' best static OP is the paper's 35%, Exchange's
    # (15%) is not its 45%.
    assert v["best-static"].verdict == "disagrees"
    assert (
        "dynamic-homes, scale 0.1 holds at 1 of 1 (trace, size) points (35) (paper 35)"
        in v["best-static"].fcsim
    )
    assert v["concave"].verdict == "agrees"
    # Homes' dynamic run is 2.5% above the best static, Exchange's 10%: not within 5%.
    assert v["close"].verdict == "disagrees" and "holds at 1 of 2 (trace, size) points" in v["close"].fcsim
    # Exchange at 65% vs 35%: erasures 1000 vs 1120, 12% longer life, outside 15-25%.
    # The figure is named by what it is ("dynamic +12.0" read as the dynamic run's).
    figure = "erasures at OP 35% over those at OP 65% (% more) +12.0"
    assert v["exchange-life"].verdict == "disagrees"
    assert v["exchange-life"].detail == [f"synth:profile=dynamic-exchange,scale=0.1: 69%: {figure}"]
    # A dynamic run that decided fewer than 4 times is no decision: never scored.
    few = rows.assign(split_decisions=rows["split_decisions"].where(rows["split"] != "dynamic", 2))
    v = {x.claim.id: x for x in dynamic.profile_verdicts(few, testable.Gate("dynamic", None))}
    assert v["close"].verdict == "untestable"
    assert v["close"].fcsim.startswith("dynamic-homes, scale 0.1 at 80%: no decision (2 of 4)")
    # The claims that do not read the dynamic run are still scored.
    assert v["best-static"].verdict == "disagrees"
    # The 4-decision rule holds for the lifetime claim too (Homes' 900 erasures are below every
    # typical OP's, but a run that decided twice is not scored).
    assert v["lifetime"].verdict == "untestable"
    assert "no decision (2 of 4)" in v["lifetime"].fcsim


def test_dynamic_lifetime_is_scored_with_enough_decisions() -> None:
    v = {x.claim.id: x for x in dynamic.profile_verdicts(_dynamic_rows(), testable.Gate("dynamic", None))}
    # 900 erasures against 1,200 … 1,120 at OP 15-35%: -19.6% below the least of them.
    assert v["lifetime"].verdict == "agrees" and "(-19.6 … -19.6)" not in v["lifetime"].fcsim
    assert "holds at 2 of 2 (trace, size) points" in v["lifetime"].fcsim


def test_dynamic_headline_and_live_variant_are_scored_apart() -> None:
    rows = _dynamic_rows()
    static = rows[rows["split"] != "dynamic"]
    # The live variant 30% slower than the headline on each workload.
    live = pd.concat(
        [static, rows[rows["split"] == "dynamic"].assign(resp_mean_us=lambda d: d["resp_mean_us"] * 1.3)]
    )
    v = {x.claim.id: x for x in dynamic.profile_verdicts(rows, testable.Gate("dynamic", None), live)}
    assert "holds at 1 of 2 (trace, size) points" in v["close"].fcsim
    assert v["close-live"].verdict == "disagrees"
    assert dynamic.LIVE in v["close-live"].claim.text
    assert "holds at 0 of 2 (trace, size) points" in v["close-live"].fcsim


def test_gate_untestable_rows_print_what_was_measured() -> None:
    # A gate that keeps no workload for the split claims: the row still gives the figure.
    class Gate(testable.Gate):
        def why(self, claim: str, trace: str) -> str | None:
            return "locality 42%" if claim in ("split", "lifetime") else None

    gate = Gate("dynamic", {})
    v = {x.claim.id: x for x in dynamic.profile_verdicts(_dynamic_rows(), gate)}
    assert v["close"].verdict == "untestable"
    assert "measured there (not scored): holds at 1 of 2 (trace, size) points (2.5 … 10)" in v["close"].fcsim


def test_falls_allows_a_tenth_of_a_percent_of_the_level() -> None:
    def rises(values: list[float]) -> float:
        g = pd.DataFrame({"split": [f"{s / 100:.2f}" for s in range(15, 95, 10)], "spare": range(15, 95, 10)})
        return dynamic._rises(g.assign(erasures=values), "erasures")

    # +1 erasure out of 600 (0.17%) is a rise; +1 out of 20,907 (0.005%) is flat.
    assert rises([700, 650, 600, 601, 590, 580, 570, 560]) == 1
    assert rises([21000, 20950, 20907, 20908, 20900, 20800, 20700, 20600]) == 0
    assert dynamic.FALL_TOL == 0.1
