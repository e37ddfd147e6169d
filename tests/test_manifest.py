"""`fcsim trace info` on every committed real trace agrees with data/traces/MANIFEST.md on
requests, read/write split and unique 4 KiB blocks."""

from __future__ import annotations

import re

import pytest

import fcsim
from conftest import TRACES


def manifest_rows() -> list[tuple[str, int, str, int]]:
    rows = []
    for line in (TRACES / "MANIFEST.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 8 or not cells[0].isdigit():
            continue
        name = cells[1].strip("`")
        first_int = lambda s: int(re.match(r"[\d,]+", s).group(0).replace(",", ""))  # noqa: E731
        rows.append((name, first_int(cells[3]), cells[4], first_int(cells[5])))
    return rows


ROWS = manifest_rows()


def test_manifest_lists_every_trace() -> None:
    files = {p.name for p in TRACES.iterdir() if p.name != "MANIFEST.md"}
    assert {r[0] for r in ROWS} == files
    assert len(ROWS) == 12


@pytest.mark.parametrize(("name", "requests", "split", "unique"), ROWS, ids=[r[0] for r in ROWS])
def test_trace_info_agrees(name: str, requests: int, split: str, unique: int) -> None:
    info = fcsim.trace_info(TRACES / name)
    assert info["requests"] == requests
    assert info["unique_pages"] == unique
    if split == "reads only":
        assert info["writes"] == 0 and info["reads"] == requests
    else:
        read_pct, write_pct = (s.strip().rstrip("%") for s in split.split("/"))
        decimals = len(read_pct.split(".")[1])
        assert f"{100 * info['reads'] / requests:.{decimals}f}" == read_pct
        assert f"{100 * info['writes'] / requests:.{decimals}f}" == write_pct
