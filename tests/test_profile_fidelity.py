"""Each paper profile against the real trace it borrows from (issue 26): what a profile takes from
its donor (where LRU's hits land against the working-set share, burstiness, the read/write size
ratio) within the tolerances stated in `fcsim.reports.profile_fidelity`, and the committed
report (`data/profiles/fidelity.md`) made by that module. One profile per donor here, at a
small scale (a few seconds in all); the report holds all twelve."""

from __future__ import annotations

import pytest

from conftest import ROOT, TRACES
from fcsim.reports import profile_fidelity as pf

# One profile per donor, at about 20-60 thousand requests.
CASES = {
    "gasa-t3": 0.05,
    "lcr-ts_0": 0.02,
    "dynamic-homes": 0.005,
    "dynamic-exchange": 0.005,
}


@pytest.mark.parametrize("name", CASES)
def test_profile_keeps_what_it_borrows_from_its_donor(name: str) -> None:
    r = pf.report(name, CASES[name], TRACES)
    failed = {k: v for k, v in r["checks"].items() if v[2] is False}
    assert not failed, f"{name} against {r['donor']}: {failed}"
    assert r["checks"]["hit_shape_mae"][2] is True
    if name != "gasa-t3":  # the TPC-C donor spans 0.14 s: no 1 s Fano factor
        assert r["checks"]["fano_1s"][2] is True


def test_the_committed_report_covers_every_profile_and_passes() -> None:
    text = (ROOT / "data/profiles/fidelity.md").read_text(encoding="utf-8")
    for name, (donor, _) in pf.PROFILES.items():
        assert f"## `{name}` from `{donor}`" in text
    assert "| FAIL |" not in text
