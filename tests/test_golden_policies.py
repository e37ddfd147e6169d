"""Golden results: every registered online policy's counts and response times on shipped traces,
pinned value for value (issue 29: the O(1) rewrites of CFLRU, GCaR-CFLRU and LCR, and the
core-loop and device-path speed-ups, change no result). The values in
``tests/golden/policies.json`` were recorded by the code before those changes with

    .venv/bin/python tests/test_golden_policies.py --record

(``--record-missing`` adds rows new to the grid, keeping the others) and are only ever
re-recorded by that command, for a change that means to alter results.

`make test` checks the rows a change to the windowed policies or the device can move: every
row of the small traces, and on the large ones the windowed policies and the aged drive
(about a third of the time). ``FCSIM_GOLDEN=all`` (`make golden`) checks every row, as a
change to the core loop should."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import fcsim

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests/golden/policies.json"
TRACES = {
    "msr": "data/traces/msr_hm_0_excerpt1000.csv",
    "tpcc": "data/traces/mqsim_tpcc-small.trace.gz",
    "tencent": "data/traces/tencent_cbs_sample50k.csv.gz",
    "cloudphysics": "data/traces/cloudphysics_vscsi_2h.csv.gz",
}
WINDOWED = ["cflru", "gcar-cflru", "lcr"]
SMALL = {"msr", "tpcc"}
AGED = {"device.fill": "1", "device.steady": "1"}
# The registry's online policies (crates/fcsim/src/policy/mod.rs: all but `min` and `none`).
ONLINE = {
    "lru", "fifo", "lfu", "clock", "2q", "arc", "lirs", "mq", "s3fifo", "sieve", "slru", "larc", "cflru",
    "lru-wsr", "ccf-lru", "pt-lru", "gasa", "gcar-cflru", "lcr",
}  # fmt: skip
FIELDS = [
    "accesses",
    "hits",
    "read_hits",
    "write_hits",
    "insertions",
    "evictions",
    "dirty_evictions",
    "backing_reads",
    "backing_writes",
    "flash_page_reads",
    "flash_page_writes",
    "gc_page_writes",
    "erasures",
    "resp_mean_us",
    "resp_p99_us",
    "resp_max_us",
]


def grid() -> list[dict[str, Any]]:
    """(trace, policy, size, device, set) of every golden row: every online policy, without a
    device and over gasa and lcr (policies that need a device only over one); the small traces
    at 1%, 10% and 50%, the larger ones at 1% and (the windowed policies over lcr, whose old
    code took a minute there) 10%. The windowed policies also run with their window at 1% and
    at the whole cache."""
    online = [p["name"] for p in fcsim.policies() if p["name"] in ONLINE]
    needs_view = {p["name"] for p in fcsim.policies() if p["needs_device"]}
    cases = []

    def add(trace: str, policy: str, size: str, device: str | None, sets: dict[str, str]) -> None:
        cases.append({"trace": trace, "policy": policy, "size": size, "device": device, "set": sets})

    for trace in TRACES:
        sizes = ["1%", "10%", "50%"] if trace in SMALL else ["1%"]
        for size in sizes:
            for policy in online:
                for device in [None, "gasa", "lcr"]:
                    if device is None and policy in needs_view:
                        continue
                    add(trace, policy, size, device, {})
                    if policy in WINDOWED and device != "gasa":
                        for w in ["0.01", "1.0"]:
                            add(trace, policy, size, device, {f"{policy}.window": w})
        if trace not in SMALL:
            for policy in WINDOWED:
                add(trace, policy, "10%", "lcr", {})
            # An aged drive (filled, then one user capacity of random overwrites): every flash
            # write collects garbage, so the rows pin GC and its timing too.
            for policy in ["none", "lru", "cflru", "gcar-cflru", "lcr"]:
                add(trace, policy, "1%", "gasa", AGED)
    return cases


def name(case: dict[str, Any]) -> str:
    sets = ",".join(f"{k}={v}" for k, v in case["set"].items())
    return f"{case['trace']}/{case['policy']}/{case['size']}/{case['device'] or 'nodevice'}/{sets}"


def values(case: dict[str, Any]) -> dict[str, Any]:
    row = fcsim.simulate(
        ROOT / TRACES[case["trace"]], case["policy"], case["size"], device=case["device"], set=case["set"]
    )
    return {f: getattr(row, f, None) for f in FIELDS}


def load() -> dict[str, dict[str, Any]]:
    return json.loads(GOLDEN.read_text())


def quick(case: dict[str, Any]) -> bool:
    """Whether `make test` checks ``case`` (see the module's doc)."""
    return case["trace"] in SMALL or case["policy"] in WINDOWED or case["set"] == AGED


CASES = grid()
CHECKED = CASES if os.environ.get("FCSIM_GOLDEN") == "all" else [c for c in CASES if quick(c)]


@pytest.mark.parametrize("case", CHECKED, ids=[name(c) for c in CHECKED])
def test_golden(case: dict[str, Any]) -> None:
    want = load().get(name(case))
    assert want is not None, f"{name(case)} has no golden values: record them from the code before the change"
    assert values(case) == want


def test_every_golden_row_is_checked() -> None:
    assert sorted(load()) == sorted(name(c) for c in CASES)


if __name__ == "__main__" and sys.argv[1:] in (["--record"], ["--record-missing"]):
    out = load() if sys.argv[1] == "--record-missing" else {}
    for c in CASES:
        if name(c) in out:
            continue
        out[name(c)] = values(c)
        print(name(c), out[name(c)]["hits"], flush=True)
    GOLDEN.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
