"""Trace slices (`trace.skip`, `trace.take`): any trace, the same slice in every pass (a percent
size is of the slice's working set), bad values are one line."""

from __future__ import annotations

import pytest

import fcsim
from conftest import TRACES, cli

HM0 = TRACES / "msr_hm_0_excerpt1000.csv"


def test_a_slice_is_read_in_every_pass() -> None:
    whole = fcsim.trace_info(HM0)
    part = fcsim.trace_info(HM0, set={"trace.skip": 200, "trace.take": 300})
    assert (whole["requests"], part["requests"]) == (1000, 300)
    assert part["unique_pages"] < whole["unique_pages"]
    row = fcsim.simulate(HM0, "lru", "10%", set={"trace.skip": 200, "trace.take": 300})
    assert row["requests"] == 300
    assert row["size_pages"] == round(part["unique_pages"] * 0.10)
    # The CLI's --set reaches the same slice.
    skip, take = "trace.skip=200", "trace.take=300"
    r = cli("run", HM0, "--policy", "lru", "--size", "10%", "--json", "--set", skip, "--set", take)
    assert r.returncode == 0, r.stderr
    assert '"requests": 300' in r.stdout


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("trace.skip=-3", "expected trace.skip (a number of requests, 0 or more), found '-3'"),
        ("trace.take=0", "trace.take=0: expected a number of requests, 1 or more"),
        ("trace.skip=1000", "trace.skip=1000: expected fewer requests than the trace has (1000)"),
    ],
)
def test_a_bad_slice_is_one_line(value: str, message: str) -> None:
    r = cli("run", HM0, "--policy", "lru", "--size", "100", "--set", value)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert r.stderr.startswith("fcsim: error: ") and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
