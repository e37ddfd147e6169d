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
    # Windows of a quarter of the SSD: several windows and a full training on this short trace.
    r = run("dynamic", **{"stack.window": 0.25})
    assert r["split_trainings"] >= 1
    flags = list(r["split_training"])
    assert flags.count(1.0) >= 8 and flags[0] == 0.0
    assert len(r["split_u"]) == 8 and len(r["split_spares"]) == len(flags)
    # The training stretches walk the spare shares up from 15%.
    first = flags.index(1.0)
    assert list(r["split_spares"])[first : first + 8] == pytest.approx(
        [0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85]
    )
    assert r["resp_mean_us"] > 0 and r["model_latency_us"] > 0


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        ({"stack.split": "1.5"}, "stack.split=1.5"),
        ({"stack.split": "dynamic", "stack.write": "around"}, "stack.write=back"),
        ({"stack.split": "0.3", "stack.window": 2}, "need stack.split=dynamic"),
        ({"stack.split": "0.3", "device.op": 0.2}, "device.op"),
        ({"stack.split": "dynamic", "stack.retrain": 2}, "stack.retrain"),
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

    b = pd.DataFrame({"trace": ["a.csv", "a.csv"], "size": [69.0, 80.0]})
    rows = pd.DataFrame(
        {"trace": ["a.csv"] * 4, "size_pct": [69.0, 69.0, 80.0, 80.0], "saturated": [True, True, True, False]}
    )
    kept, names = _saturated(b, rows)
    assert list(kept["size"]) == [80.0] and names == ["a at 69%"]
