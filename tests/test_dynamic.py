"""The split SSD write cache and `fcsim reproduce dynamic` on a short trace."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from fcsim.reports import reproduce

ROOT = Path(__file__).resolve().parents[1]
TRACE = str(ROOT / "data/traces/blkparse_java_50k_events.txt.gz")
SPLIT = {
    "stack.kind": "ssd-cache",
    "stack.write": "back",
    "device.channels": 1,
    "device.chips_per_channel": 4,
}


def run(split: str, **extra: object) -> fcsim.Result:
    return fcsim.simulate(
        TRACE, policy="lru", size="80%", device="dynamic", set={**SPLIT, "stack.split": split, **extra}
    )


def test_static_split_sizes_the_cache_from_the_raw_ssd() -> None:
    r = run("0.35")
    assert r["split"] == "0.35"
    assert r["cache_pages"] == math.floor(0.65 * r["ssd_physical_pages"])
    assert r["ssd_physical_pages"] >= r["size_pages"]
    # More spare: fewer cached pages, hit ratio no higher, GC victims no fuller.
    big = run("0.85")
    assert big["cache_pages"] < r["cache_pages"] and big["hit_ratio"] <= r["hit_ratio"]
    assert big["gc_victim_utilisation"] <= r["gc_victim_utilisation"]


def test_dynamic_split_trains_and_logs_its_windows() -> None:
    # Windows of a quarter of the SSD and a short turnover before each U (a tenth of the cache):
    # several windows and a full training on this short trace.
    r = run("dynamic", **{"stack.window": 0.25, "stack.settle": 0.1})
    assert r["split_trainings"] >= 1
    flags = list(r["split_training"])
    assert flags.count(1.0) >= 8 and flags[0] == 0.0
    assert len(r["split_u"]) == 8 and len(r["split_spares"]) == len(flags)
    # The training stretches climb from the current split (35%) to 85%, then visit 25% and 15%.
    first = flags.index(1.0)
    assert list(r["split_spares"])[first : first + 8] == pytest.approx(
        [0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.25, 0.15]
    )
    assert r["resp_mean_us"] > 0 and r["model_latency_us"] > 0
    # The training's cost is logged apart: its requests are those of the training stretches.
    stretch = list(r["split_stretch_requests"])
    assert r["split_train_requests"] > 0 and r["split_train_host_writes"] > 0
    assert r["split_train_time_s"] > 0
    assert r["split_train_requests"] == sum(n for n, f in zip(stretch, flags, strict=True) if f == 1.0)
    assert sum(stretch) <= r["requests"]


def test_write_cache_admission_bypasses_read_misses() -> None:
    # The paper's write cache: a read of an uncached page goes to the disk and stays out.
    writes = run("0.35", **{"stack.admit": "writes"})
    both = run("0.35")
    assert writes["stack_admit"] == "writes"
    assert writes["insertions"] < both["insertions"]
    assert writes["insertions"] <= writes["writes"]
    with pytest.raises(fcsim.ConfigError, match=r"stack\.write=back"):
        run("0.35", **{"stack.admit": "writes", "stack.write": "through"})


def test_offline_training_takes_the_given_table() -> None:
    table = "0.8:0.7:0.6:0.5:0.4:0.3:0.2:0.1"
    r = run("dynamic", **{"stack.window": 0.25, "stack.training": "offline", "stack.u": table})
    assert r["split_trainings"] == 0 and r["split_train_requests"] == 0
    assert list(r["split_u"]) == pytest.approx([0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
    assert 1.0 not in list(r["split_training"])
    assert r["split_decisions"] >= 1
    for bad, words in (("0.5:0.4", "8 values"), ("", "8 values")):
        with pytest.raises(fcsim.ConfigError, match=words):
            run("dynamic", **{"stack.training": "offline", "stack.u": bad})
    with pytest.raises(fcsim.ConfigError, match=r"stack\.training=offline"):
        run("dynamic", **{"stack.u": table})


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        ({"stack.split": "1.5"}, "stack.split=1.5"),
        ({"stack.split": "dynamic", "stack.write": "around"}, "stack.write=back"),
        ({"stack.split": "0.3", "stack.window": 2}, "need stack.split=dynamic"),
        ({"stack.split": "0.3", "device.op": 0.2}, "device.op"),
        ({"stack.split": "dynamic", "stack.retrain": 2}, "stack.retrain"),
        ({"stack.split": "dynamic", "stack.rule": "best"}, "stack.rule=best"),
        ({"stack.split": "dynamic", "stack.shrink": "later"}, "stack.shrink=later"),
        ({"stack.split": "dynamic", "stack.training": "guess"}, "stack.training=guess"),
        ({"stack.split": "0.3", "stack.admit": "reads"}, "stack.admit=reads"),
    ],
)
def test_bad_splits_are_config_errors(sets: dict[str, object], words: str) -> None:
    with pytest.raises(fcsim.ConfigError, match=words):
        fcsim.simulate(TRACE, policy="lru", size="80%", device="dynamic", set={**SPLIT, **sets})


def test_dynamic_needs_a_resizable_policy() -> None:
    with pytest.raises(fcsim.ConfigError, match="cannot change its size"):
        fcsim.simulate(
            TRACE, policy="arc", size="80%", device="dynamic", set={**SPLIT, "stack.split": "dynamic"}
        )


def test_reproduce_dynamic_on_one_trace(tmp_path: Path) -> None:
    summary = reproduce(
        "dynamic", tmp_path, traces_dir=ROOT / "data/traces", only=["blkparse_java_50k_events.txt.gz"]
    )
    text = summary.read_text()
    for heading in (
        "## Main run",
        "## Closed-loop variant",
        "## The cost model",
        "## Fig. 6",
        "## Where fcsim disagrees",
    ):
        assert heading in text
    assert "blkparse_java_50k_events.txt.gz | 80% | 15%" in text
    assert (tmp_path / "response.png").exists() and (tmp_path / "erasures.png").exists()


def test_dynamic_split_with_a_shards_curve() -> None:
    # The window's curve from SHARDS at R = 0.5 on this short trace: the controller runs the same
    # windows and training as with the exact curve.
    exact = run("dynamic", **{"stack.window": 0.25})
    shards = run("dynamic", **{"stack.window": 0.25, "stack.mrc": 0.5})
    assert shards["stack_mrc"] == "0.5"
    assert shards["split_trainings"] >= 1
    assert (
        list(shards["split_training"])[: len(exact["split_training"])][:9]
        == list(exact["split_training"])[:9]
    )
    with pytest.raises(fcsim.ConfigError, match=r"stack\.mrc"):
        run("dynamic", **{"stack.mrc": "2"})


def test_saturated_points_are_left_out_of_the_response_claims() -> None:
    # At 69% every run saturated a device: its responses are a queue, so no response claim is
    # judged there; at 80% one run did not, and the point stays.
    from fcsim.reports.dynamic import _saturated

    rows = pd.DataFrame(
        {"trace": ["a.csv"] * 4, "size_pct": [69.0, 69.0, 80.0, 80.0], "saturated": [True, True, True, False]}
    )
    assert _saturated(rows) == {("a.csv", 69.0)}


def _lead_rows() -> pd.DataFrame:
    """Homes-like rows: static splits with a valley at 35%, and three dynamic runs at T = 2x:
    live eq. 5 (11 decisions, 10% slower), live per request (within 5%), and one at T = 4x that
    decided twice (no decision)."""
    spares = [15, 25, 35, 45, 55, 65, 75, 85]
    resp = [3000, 2500, 2000, 2100, 2200, 2300, 2400, 2500]
    u = [0.8, 0.6, 0.5, 0.35, 0.2, 0.1, 0.0, 0.0]
    base = {
        "trace": "synth:profile=dynamic-homes,scale=0.02",
        "size_pct": 80.0,
        "queue_depth": 1,
        "requests": 10_000,
        "accesses": 20_000,
        "device_channels": 1,
        "device_chips_per_channel": 4,
        "saturated": False,
    }
    rows = [
        {
            **base,
            "split": f"{sp / 100:.2f}",
            "spare": float(sp),
            "resp_mean_us": float(resp[i]),
            "hit_ratio": 0.95 - 0.02 * i,
            "gc_victim_utilisation": u[i],
        }
        for i, sp in enumerate(spares)
    ]
    flags = [0.0] + [1.0] * 8 + [0.0] * 11
    for rule, window, mean, decisions in (
        ("paper", 2.0, 2200.0, 11),
        ("request", 2.0, 2050.0, 11),
        ("paper", 4.0, 2600.0, 2),
    ):
        rows.append(
            {
                **base,
                "split": "dynamic",
                "spare": float("inf"),
                "stack_rule": rule,
                "stack_window": window,
                "resp_mean_us": mean,
                "hit_ratio": 0.9,
                "gc_victim_utilisation": 0.3,
                "split_decisions": decisions,
                "split_training": flags,
                "split_resp_mean_us": [1000.0] + [3000.0] * 8 + [2100.0] * 11,
                "split_stretch_requests": [100.0] * 20,
                "split_pick_paper": [0.55] + [float("nan")] * 8 + [0.55] * 11,
                "split_pick_request": [0.45] + [float("nan")] * 8 + [0.35] * 11,
                "split_u": [0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0],
                "split_train_requests": 800,
                "split_train_host_writes": 5000,
                "split_train_writebacks": 300,
                "split_train_time_s": 12.5,
            }
        )
    # The paper's configuration (offline U, eq. 5) at T = 1 … 4: Fig. 6's rule takes T = 2, the
    # smallest within 2% of the sweep's lowest (2,040 µs at T = 4; 2,060 is within, 2,300 is not;
    # T = 3's 1,900 decided 3 times and is left out).
    for window, mean, decisions in ((1.0, 2300.0, 20), (2.0, 2060.0, 11), (3.0, 1900.0, 3), (4.0, 2040.0, 5)):
        rows.append(
            {
                **rows[-1],
                "stack_training": "offline",
                "stack_rule": "paper",
                "stack_window": window,
                "resp_mean_us": mean,
                "split_decisions": decisions,
                "split_training": [0.0] * 20,
                "split_spares": [0.35] + [0.45] * 9 + [0.55] * 10,
                "split_resp_mean_us": [300.0] + [1900.0 + 10 * i for i in range(19)],
            }
        )
    return pd.DataFrame(rows)


def test_fig6_rule_picks_the_window_from_the_sweep_rows() -> None:
    from fcsim.reports.dynamic import pick_window

    sweep = pd.DataFrame(
        {
            "window": [1.0, 1.5, 2.0, 3.0, 4.0],
            "resp_mean_us": [2500.0, 1000.0, 2030.0, 2010.0, 2000.0],
            # T = 1.5 is fastest but decided 3 times: not scored, not picked.
            "split_decisions": [30, 3, 12, 8, 6],
        }
    )
    # 2% of the lowest scored (2,000 µs at T = 4): T = 2 (2,030) is the smallest within.
    assert pick_window(sweep) == 2.0
    assert pick_window(sweep.assign(resp_mean_us=[2500.0, 1000.0, 2100.0, 2010.0, 2000.0])) == 3.0
    assert pick_window(sweep.assign(split_decisions=[1, 1, 1, 1, 1])) is None


def test_the_summary_opens_with_one_table_per_workload() -> None:
    from fcsim.reports.dynamic import _lead

    text = "\n".join(_lead(_lead_rows()))
    assert "### Homes" in text
    # Best static: the paper's 35% (§V.A) and fcsim's (the valley at 35%, 2,000 µs).
    assert "Best static split: paper 35% (§V.A), fcsim 35% (2,000 µs, not saturated)" in text
    # eq. 5 at T = 2: +10% (a loss, scored: 11 decisions), with its status and training cost.
    assert (
        "| variant: live, eq. 5 | 2 | 2,200 | not saturated | +10.0% (loss) | 2,100 | 11 | 55% / 35% "
        "| 800 / 5,000 / 300 / 12.5 |" in text
    )
    assert "| variant: live, per request | 2 | 2,050 | not saturated | +2.5% (within 5%) |" in text
    # The headline: the paper's configuration at the T Fig. 6's rule picked, labelled so.
    assert "Fig. 6's rule picks T = 2 for the paper's configuration." in text
    assert (
        "| **paper's configuration**: offline U, eq. 5 | 2 | 2,060 | not saturated | +3.0% (within 5%) |"
        in text
    )
    assert "| Homes | 2 | eq. 5 | offline | 2,060 | **picked** | +3.0% | 11 |" in text
    assert "| Homes | 4 | eq. 5 | offline | 2,040 |  | +2.0% | 5 |" in text
    # T = 4 decided twice: listed in Fig. 6 as no decision, never scored.
    assert "| Homes | 4 | eq. 5 | live | 2,600 |  | +30.0% | 2 | no decision (not saturated) |" in text
    # Warm-up and drift: the first window apart, the longest stretch at one split (OP 55%).
    assert "- Homes (T = 2): first window 300 µs over 100 requests, the 19 stretches after it" in text
    assert "at OP 55%, windows 11-20: 1,990 → 2,080 µs (+5%); OP by window: 35%, 45%," in text
    # The loss in numbers: the windows' pick, 55%, is 10% slower than the oracle; the training
    # (the run's 2,200 against its adapted windows' 2,100) costs +4.8%.
    assert "wrong MR: the windows' most frequent pick 55% (+10.0%)" in text
    assert "training cost: the whole run +4.8% over its adapted windows" in text
    # Trained U beside steady-state U, with the error.
    assert "| Homes | 25% | 0.600 | 0.600 | +0.000 |" in text
    assert "| Homes | 45% | 0.350 | 0.400 | +0.050 |" in text
