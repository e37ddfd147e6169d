"""The LCR experiment's load variants follow the rule written in lcr.toml: each trace's time scale
makes its flash work without a cache (page reads x 25 us + page writes x 200 us), spread over 64
chips and the trace's span, keep the mean chip busy 10% and 30% of the time. The same rule sets
the loads of the workload profiles (`synth:profile=lcr-...`), from their generated traces."""

import math
import tomllib
from pathlib import Path

import pytest

import fcsim

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "data" / "traces"
EXPERIMENT = ROOT / "python" / "fcsim" / "experiments" / "lcr.toml"
TARGETS = (0.1, 0.3)
# The workload profiles run the same rule at five loads (issue 26: LCR's gain against the load).
PROFILE_TARGETS = (0.1, 0.3, 0.5, 0.7, 0.9)


def _scaled_parts() -> list[dict]:
    exp = tomllib.loads(EXPERIMENT.read_text())
    return [p for p in exp["part"] if any(isinstance(t, dict) for t in p["traces"])]


def _utilisation(trace: str) -> float:
    info = fcsim.trace_info(trace if trace.startswith("synth:") else str(TRACES / trace))
    work_ns = info["read_pages"] * 25e3 + info["write_pages"] * 200e3
    return work_ns / (64 * info["span_ns"])


@pytest.mark.parametrize("part", range(len(_scaled_parts())))
def test_time_scales_follow_the_rule(part: int) -> None:
    for t in _scaled_parts()[part]["traces"]:
        if not isinstance(t, dict) or "sim.time_scale" not in t:
            continue
        scales = t["sim.time_scale"]
        scales = scales if isinstance(scales, list) else [scales]
        u = _utilisation(t["file"])
        targets = PROFILE_TARGETS if t["file"].startswith("synth:profile=") else TARGETS
        allowed = [u / target for target in targets]
        for s in scales:
            assert any(math.isclose(s, a, rel_tol=0.006) for a in allowed), (
                f"{t['file']}: time_scale {s} is not U / one of {targets}: "
                + ", ".join(f"{a:.4g}" for a in allowed)
            )


def test_every_lcr_profile_runs_at_five_loads() -> None:
    profiles = {
        t["file"]: t["sim.time_scale"]
        for part in _scaled_parts()
        if "grid" not in part  # Fig. 8's window sweep runs at one of them (below)
        for t in part["traces"]
        if isinstance(t, dict) and t["file"].startswith("synth:profile=lcr-")
    }
    names = {f.removeprefix("synth:profile=").split(",")[0] for f in profiles}
    assert names == {"lcr-web_0", "lcr-ts_0", "lcr-proj_0", "lcr-wdev_2", "lcr-financial2"}
    assert all(isinstance(s, list) and len(s) == len(PROFILE_TARGETS) for s in profiles.values())


def test_fig8_sweeps_the_window_on_the_profiles_of_its_traces_at_their_30pct_load() -> None:
    # LCR Fig. 8 (§IV.D): LCR alone, its window 1/64 ... 1 of the cache, on the profiles of the
    # four traces the figure shows, each at the 30% load of the profile part (its second scale),
    # the buffer of Fig. 5-7.
    from fcsim.reports import lcr

    exp = tomllib.loads(EXPERIMENT.read_text())
    five = {
        t["file"]: t["sim.time_scale"]
        for p in exp["part"]
        if "grid" not in p
        for t in p["traces"]
        if isinstance(t, dict) and t["file"].startswith("synth:profile=lcr-")
    }
    profile = lambda p: any(isinstance(t, dict) and t["file"].startswith("synth:") for t in p["traces"])  # noqa: E731
    sweeps = [p for p in exp["part"] if "grid" in p and profile(p)]
    assert len(sweeps) == 1
    part = sweeps[0]
    assert part["policies"] == ["lcr"] and "sizes" not in part and "set" not in part
    assert exp["sizes"] == [str(lcr.LCR_SIZE)]
    assert part["grid"] == [{"lcr.window": list(lcr.WINDOWS)}]
    assert lcr.WINDOWS == (1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)
    runs = {t["file"]: t["sim.time_scale"] for t in part["traces"]}
    names = {lcr._paper_trace(f) for f in runs}
    assert names == {"ts_0", "web_0", "wdev_2", "proj_0"} == {*lcr.WINDOW_FALLS, *lcr.WINDOW_STABLE}
    for f, scale in runs.items():
        assert scale == five[f][PROFILE_TARGETS.index(0.3)], f
    # 4 profiles x 7 windows: the points this adds to `fcsim reproduce lcr`.
    assert len(runs) * len(lcr.WINDOWS) == 28
