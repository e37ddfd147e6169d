"""The GASA and LARC reports on small made-up result tables (no simulation): the read-dominant
rule, GASA's flash writes taken at the buffer-FTL boundary, the LARC write-back variant kept apart
from the main run, and the sections every summary must have."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fcsim.reports import common, gasa, larc

SIZES = ("1%", "2%", "4%")
GASA_POLICIES = ("lru", "cflru", "lru-wsr", "ccf-lru", "pt-lru", "gasa")
LARC_POLICIES = ("lru", "fifo", "lfu", "mq", "arc", "larc")


def test_read_dominant_rule() -> None:
    assert common.kind(0.80) == "read-dominant"
    assert common.kind(0.85) == "read-dominant"
    assert common.kind(0.79) == "mixed"
    assert common.kind(0.61) == "mixed"  # not read-dominant, whatever its name suggests
    assert common.kind(0.50) == "mixed"
    assert common.kind(0.34) == "write-dominant"  # T3
    df = pd.DataFrame({"trace": ["a", "a", "b"], "reads": [80, 80, 61], "accesses": [100, 100, 100]})
    shares = common.read_share(df)
    assert shares["a"] == pytest.approx(0.80) and shares["b"] == pytest.approx(0.61)


def _gasa_rows() -> pd.DataFrame:
    rows = []
    for trace, reads in (("rd.csv", 900), ("wd.csv", 300)):
        for i, size in enumerate(SIZES):
            for j, policy in enumerate(GASA_POLICIES):
                host = 500 - 10 * i - 3 * j
                rows.append(
                    {
                        "point": json.dumps({"size": size, "policy": policy, "trace": trace}),
                        "trace": trace,
                        "policy": policy,
                        "size_pages": 256 * 2**i,
                        "page_size": 4096,
                        "requests": 500,
                        "accesses": 1000,
                        "reads": reads,
                        "writes": 1000 - reads,
                        "hits": 100 + j,
                        "read_hits": 60 + j,
                        "write_hits": 40,
                        "read_hits_dirty": 5,
                        "write_hits_dirty": 20,
                        "hit_ratio": (100 + j) / 1000,
                        "host_page_writes": host,
                        # GC copies that would swamp the comparison if they were counted.
                        "gc_page_writes": 10_000 * (j + 1),
                        "flash_page_writes": host + 10_000 * (j + 1),
                        "erasures": 100,
                        "flash_page_reads": 900 - j + 10_000 * (j + 1),
                        "runtime_s": 1.0 - 0.01 * j,
                        "resp_mean_us": 100.0,
                        "device_channels": "2",
                        "device_chips_per_channel": "4",
                        "device_planes": "4",
                        "device_blocks": "1024",
                        "device_pages_per_block": "64",
                        "device_op": "0.15",
                        "device_gc": "greedy",
                        "device_gc_threshold": "0.05",
                        "device_placement": "static",
                        "device_xfer_us": "0",
                        "device_fill": "0",
                        "device_read_us": "25",
                        "device_write_us": "200",
                        "param_window": 0.1 if policy == "cflru" else None,
                        "param_p": 0.8 if policy == "pt-lru" else None,
                        "param_gsmin": 0.1 if policy == "gasa" else None,
                        "param_gsmax": 1.0 if policy == "gasa" else None,
                    }
                )
    return pd.DataFrame(rows)


def test_gasa_report(tmp_path: Path) -> None:
    text = gasa.report(_gasa_rows(), tmp_path, "test").read_text()
    for part in (
        "## Setup as the paper states it",
        "## What fcsim chooses where the paper is silent",
        "## Flash writes",
        "## Hit ratio",
        "## Overall runtime",
        "## Where fcsim disagrees with the paper",
        "### What these traces cannot test",
    ):
        assert part in text
    assert text.index("## Setup as the paper states it") < text.index("## Flash writes")
    # Issue 41's added claims, each with the paper's figure and section.
    for claim in (
        "| CFLRU's and LRU-WSR's hit ratios are approximate to LRU's (within 5%) | §IV.B.1, Fig. 9: ",
        "| Every flash-aware policy has more write hits on dirty pages than LRU | §IV.B.1, Fig. 11: ",
        "| On read-dominant traces GASA has more hits on clean pages than LRU, CFLRU and LRU-WSR |",
        "| On write-dominant traces GASA has fewer hits on clean pages than LRU, CFLRU and LRU-WSR |",
    ):
        assert claim in text
    # Flash writes are the buffer's writes to the FTL: GASA (j = 5) writes 15 fewer pages than LRU
    # of 500 at 1%; with GC copies counted it would write five times as many.
    assert "| rd.csv | read-dominant | -3.1% … -3.0% |" in text
    assert "| wd.csv | write-dominant |" in text
    assert "GC copies" in text and "erasures" in text


def _larc_rows() -> pd.DataFrame:
    rows = []
    for mode, traces in (("around", ("arc_OLTP.lis.zst", "mix.csv")), ("back", ("mix.csv",))):
        for trace in traces:
            reads = 1000 if trace.startswith("arc") else 400
            for i, size in enumerate(SIZES):
                for j, policy in enumerate(LARC_POLICIES):
                    writes_cached = mode == "back" and reads < 1000
                    ins = 300 - 20 * i - (250 if policy == "larc" else 0)
                    rows.append(
                        {
                            "point": json.dumps({"size": size, "policy": policy, "trace": trace, "w": mode}),
                            "trace": trace,
                            "policy": policy,
                            "stack_write": mode,
                            "size_pages": 50 * (i + 1),
                            "requests": 1000,
                            "accesses": 1000,
                            "reads": reads,
                            "writes": 1000 - reads,
                            "hits": 200 + 10 * i + j,
                            "insertions": ins,
                            "hit_ratio": (200 + 10 * i + j) / 1000,
                            "read_hit_ratio": (200 + 10 * i + j) / reads,
                            "cache_writes": ins + (100 if writes_cached else 0),
                            "gc_page_writes": 0,
                            "erasures": 0,
                            "fue": 0.5,
                            "device_channels": "1",
                            "device_chips_per_channel": "4",
                            "device_planes": "1",
                            "device_pages_per_block": "64",
                            "device_op": "0.07",
                            "device_gc": "greedy",
                            "device_read_us": "25",
                            "device_write_us": "200",
                            "device_erase_us": "1500",
                            "stack_disk_ms": "5",
                        }
                    )
    return pd.DataFrame(rows)


def test_larc_report_keeps_the_variant_apart(tmp_path: Path) -> None:
    text = larc.report(_larc_rows(), tmp_path, "test").read_text()
    for part in (
        "## Setup as the slides state it",
        "## Main run (write-around)",
        "## Write-back variant",
        "## Where fcsim disagrees with the paper",
        "Write-around cannot test the slides' write claims",
        "arc_OLTP's ids are not disk pages",
    ):
        assert part in text
    main = text[text.index("### SSD writes (main run)") : text.index("## Write-back variant")]
    variant = text[text.index("### SSD writes (write-back variant)") : text.index("## Where fcsim")]
    # Main run: LARC inserts 250 fewer of LRU's 300 pages at 1%; the variant adds 100 write hits
    # to both, so the two tables differ and neither mixes in the other's rows.
    assert "| mix.csv | write-dominant | -96.2% … -83.3% |" in main
    assert "| mix.csv | write-dominant | -69.4% … -62.5% |" in variant
    assert (tmp_path / "ssd_writes_write_back.png").exists()


def test_larc_report_without_variant(tmp_path: Path) -> None:
    df = _larc_rows()
    text = larc.report(df[df["stack_write"] == "around"], tmp_path, "test").read_text()
    assert "## Write-back variant" not in text
    assert "not in this table" in text


def test_larc_report_without_a_read_dominant_trace_says_nothing_tested_it(tmp_path: Path) -> None:
    # Only a write-dominant trace: the read-dominant claim's table is empty, and the report says
    # that no point tested it instead of "It holds at every point".
    df = _larc_rows()
    text = larc.report(df[df["trace"] == "mix.csv"], tmp_path, "test").read_text()
    assert "It holds at every point" not in text
    assert "No point of this grid can test it: no read-dominant trace ran at 1%, 5% or 10%." in text
    # ... under the claim's heading, without the header of an empty table.
    claim = "### On each read-dominant trace at 1%, 5% and 10%: LARC's hit ratio ≥ LRU's, SSD writes ≤ LRU's"
    assert f"{claim}\n\nNo point of this grid can test it" in text


def test_the_spare_note_compares_each_row_with_its_own_device_op() -> None:
    # Offline-bounds rows ask for 5% to 50% and each keeps its GC reserve on top: every row has
    # more spare than it asked for, not only those above the largest device.op (which the
    # sentence counted when it compared every row with that one figure).
    df = pd.DataFrame({"device_op": ["0.05", "0.07", "0.5"], "device_op_actual": [0.105, 0.126, 0.589]})
    assert common.spare_note(df) == (
        "The drive simulated has more spare than `device.op` asks (5% to 50%) at 3 of 3 points "
        "(`device_op_actual` 0.105 to 0.589), and erasures there are those of a drive with that spare."
    )
    one = pd.DataFrame({"device_op": ["0.07", "0.07"], "device_op_actual": [0.07, 0.094]})
    assert "more spare than 7% at 1 of 2 points" in common.spare_note(one)
    assert (
        common.spare_note(one.iloc[:1])
        == "The drive simulated keeps 7% spare at every point (`device_op_actual`)."
    )
    # Figures apart by less than a percent stay apart; no usable device.op: no sentence.
    close = pd.DataFrame({"device_op": ["0.07", "0.072"], "device_op_actual": [0.07, 0.072]})
    assert "the spare `device.op` asks (7% to 7.2%)" in common.spare_note(close)
    assert common.spare_note(one.assign(device_op=None)) == ""
    assert common.spare_note(one.drop(columns="device_op")) == ""
