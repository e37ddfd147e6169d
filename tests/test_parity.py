"""LRU and FIFO agree exactly with libCacheSim (PyPI `libcachesim`) fed the same page sequence:
fcsim writes the sequence as oracleGeneral, libCacheSim replays it count-based (object size
ignored, cache size in pages)."""

from __future__ import annotations

from pathlib import Path

import libcachesim as lcs
import pytest

import fcsim
from conftest import TRACES

PEERS = {"lru": lcs.LRU, "fifo": lcs.FIFO}


@pytest.fixture(scope="module")
def oltp(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    src = TRACES / "arc_OLTP.lis.zst"
    out = tmp_path_factory.mktemp("parity") / "oltp.oracleGeneral.bin"
    fcsim.convert(src, out)
    return src, out


def peer_misses(path: Path, policy: str, pages: int) -> tuple[int, int]:
    reader = lcs.TraceReader(
        trace=str(path),
        trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE,
        reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True),
    )
    n = reader.get_num_of_req()
    miss_ratio, _ = PEERS[policy](cache_size=pages).process_trace(reader)
    return round(miss_ratio * n), n


@pytest.mark.parametrize("policy", sorted(PEERS))
@pytest.mark.parametrize("size", ["1%", "5%", "10%"])
def test_hit_ratio_equals_libcachesim(oltp: tuple[Path, Path], policy: str, size: str) -> None:
    src, og = oltp
    row = fcsim.simulate(src, policy=policy, size=size)
    misses, n = peer_misses(og, policy, row.size_pages)
    assert n == row.accesses
    assert row.accesses - row.hits == misses
    assert row.hit_ratio == pytest.approx(1 - misses / n, abs=1e-12)
