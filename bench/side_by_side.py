"""fcsim vs libCacheSim, side by side in one run: requests/s of the same page sequence, each
simulator reading its own binary format (fcsim .fct, libCacheSim oracleGeneral), at the same
cache sizes (count-based: libCacheSim ignores object sizes, sizes are in pages). Reports the
median of N runs per point and the ratio, and checks that both count the same misses.

    .venv/bin/python bench/side_by_side.py [--runs 3] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import libcachesim as lcs

import fcsim

ROOT = Path(__file__).resolve().parents[1]
ZIPF = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0"
TRACES = {"zipf 5M (alpha 1.0)": ZIPF, "arc_P12": str(ROOT / "data/traces/arc_P12.lis.zst")}
PEERS = {"lru": lcs.LRU, "fifo": lcs.FIFO}
SIZES = ["1%", "10%"]


def peer_hashpower(pages: int) -> int:
    """A hash table sized to the cache (libCacheSim's default, 2^24 buckets, costs it up to 3x
    on these sizes); its tables grow by themselves when full."""
    return max(12, math.ceil(math.log2(pages)) + 1)


def peer_run(og: Path, policy: str, pages: int, hashpower: int) -> tuple[float, float]:
    reader = lcs.TraceReader(
        trace=str(og),
        trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE,
        reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True),
    )
    cache = PEERS[policy](cache_size=pages, hashpower=hashpower)
    t = time.perf_counter()
    miss_ratio, _ = cache.process_trace(reader)
    return time.perf_counter() - t, miss_ratio


def fcsim_run(fct: Path, policy: str, size: str, ws: int) -> tuple[float, dict]:
    t = time.perf_counter()
    row = fcsim.simulate(fct, policy=policy, size=size, working_set=ws)
    return time.perf_counter() - t, row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, src in TRACES.items():
            fct = Path(tmp) / "t.fct"
            og = Path(tmp) / "t.oracleGeneral.bin"
            # One record per page access in both files: the .fct is made from the oracleGeneral.
            fcsim.convert(src, og)
            info = fcsim.convert(og, fct)
            ws = info["unique_pages"]
            for policy in PEERS:
                for size in SIZES:
                    ours, theirs, default = [], [], []
                    row: dict = {}
                    for _ in range(a.runs):  # interleaved, so all see the same machine load
                        dt, row = fcsim_run(fct, policy, size, ws)
                        ours.append(dt)
                        pages = row["size_pages"]
                        dt, miss_ratio = peer_run(og, policy, pages, peer_hashpower(pages))
                        theirs.append(dt)
                        default.append(peer_run(og, policy, pages, 24)[0])
                    n = row["accesses"]
                    same = round(miss_ratio * n) == n - row["hits"]
                    f, p, d = (statistics.median(x) for x in (ours, theirs, default))
                    rows.append((label, policy, size, row["size_pages"], n, n / f, n / p, n / d, p / f, same))
                    print(
                        f"{label:22} {policy:5} {size:>4}  fcsim {n / f / 1e6:6.2f}M/s  "
                        f"libCacheSim {n / p / 1e6:6.2f}M/s (default table {n / d / 1e6:6.2f}M/s)  "
                        f"ratio {p / f:4.2f}  same misses: {same}"
                    )
    write_results(Path(a.out), rows, a.runs)


def write_results(path: Path, rows: list, runs: int) -> None:
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "# Benchmarks",
        "",
        "## Side by side with libCacheSim",
        "",
        "Made by `.venv/bin/python bench/side_by_side.py` (`make bench` runs it after the criterion",
        "benchmark). Each simulator reads the same page sequence, one record per page access, from its",
        "own binary format (libCacheSim oracleGeneral written by `fcsim trace convert`, and fcsim `.fct`",
        "converted from that oracleGeneral file), count-based, at the same",
        f"size in pages; times are wall-clock medians of {runs} interleaved runs of one call from",
        "Python (trace read included). Requests are page accesses. The ratio is taken in one run on",
        "a shared machine: absolute figures move by ±30% between runs, the ratio much less.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"libcachesim {version('libcachesim')}, fcsim {rev.stdout.strip()}.",
        "",
        "The peer gets a hash table sized to the cache (`hashpower` = log2(pages) + 1, at least 12),",
        "its fastest setting here; the ratio is against that. Its default table (2^24 buckets) is",
        "slower and is shown for reference.",
        "",
        "| trace | policy | size | pages | requests | fcsim req/s | libCacheSim req/s | ratio "
        "| libCacheSim, default table | same misses |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, policy, size, pages, n, f, p, d, ratio, same in rows:
        lines.append(
            f"| {label} | {policy} | {size} | {pages:,} | {n:,} | {f / 1e6:.2f}M | {p / 1e6:.2f}M "
            f"| {ratio:.2f}x | {d / 1e6:.2f}M | {'yes' if same else 'NO'} |"
        )
    lines += ["", *criterion_section()]
    path.write_text("\n".join(lines) + "\n")


def criterion_section() -> list[str]:
    """The last `cargo bench -p fcsim --bench policy` results, from criterion's own files."""
    base = ROOT / "target" / "criterion" / "zipf5m"
    found = sorted(base.glob("*/new/estimates.json")) if base.exists() else []
    if not found:
        return ["## Criterion", "", "Not run: `cargo bench -p fcsim --bench policy` writes target/criterion."]
    out = [
        "## Criterion (Rust core alone, no Python)",
        "",
        "From `cargo bench -p fcsim --bench policy`: LRU and FIFO over the same 5M-request Zipf trace",
        "(alpha 1.0, 10^6 pages, seed 1) read from a `.fct` file, time per full run (the estimate",
        "criterion prints).",
        "",
        "| benchmark | time per run | requests/s |",
        "|---|---:|---:|",
    ]
    for est in found:
        e = json.loads(est.read_text())
        ns = (e.get("slope") or e["mean"])["point_estimate"]  # the estimate criterion prints
        name = f"zipf5m/{est.parents[1].name}"
        out.append(f"| {name} | {ns / 1e6:.1f} ms | {5_000_000 / (ns / 1e9) / 1e6:.2f}M |")
    return [*out, ""]


if __name__ == "__main__":
    main()
