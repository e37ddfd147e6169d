"""The offline bounds' speed: C (and M+) against MIN over the same flash, in one run; written as
the "Offline bounds" section of bench/RESULTS.md (the rest of the file is left as it is).

Issue 12's target: C on the 5M-request Zipf trace at 1% within 4x of MIN's time on the same
trace and size. MIN here is `m`, the paper's M (MIN over an FTL); the cache policy `min` (no
flash, no DRAM tier) is beside it as the floor of reading the trace and running Belady alone.
Every run reads the same `.fct` file; times are wall-clock medians of N interleaved calls of
`fcsim.simulate` from Python, trace reading and the M+ reference replay (every bounds row
carries one, for WFUE) included.

    .venv/bin/python bench/offline_bounds.py [--runs 3] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import sections

import fcsim

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Offline bounds: C and M+ against MIN"
ZIPF = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0"
TRACES = {"zipf 5M (alpha 1.0)": ZIPF, "zipf 5M, 25% writes": ZIPF + ",write=0.25"}
POLICIES = ["min", "m", "m+", "c"]
SIZE = "1%"
# The paper's 2 MiB containers (512 pages) do not fit a 1% cache of this working set (5,720
# pages: C needs the cache's 12 containers, 4 free ones and the open one within 11); 128 KiB
# containers (32 pages), the reproduction's labelled variant, for every algorithm alike.
FLASH = {"device.pages_per_block": 32}


def run(fct: Path, policy: str) -> tuple[float, dict]:
    t = time.perf_counter()
    row = fcsim.simulate(fct, policy, SIZE, set=None if policy == "min" else FLASH)
    return time.perf_counter() - t, row


def measure(runs: int, tmp: Path) -> list[tuple]:
    out = []
    for label, spec in TRACES.items():
        fct = tmp / "t.fct"
        fcsim.convert(spec, fct, annotate_next=True)
        times: dict[str, list[float]] = {p: [] for p in POLICIES}
        rows: dict[str, dict] = {}
        for _ in range(runs):  # interleaved, so every policy sees the same machine load
            for p in POLICIES:
                dt, rows[p] = run(fct, p)
                times[p].append(dt)
        med = {p: statistics.median(t) for p, t in times.items()}
        for p in POLICIES:
            r = rows[p]
            print(
                f"{label:20} {p:4} {med[p]:6.2f} s  x{med[p] / med['m']:.2f} of m"
                f"  RHR {r['read_hit_ratio']:.4f}"
            )
            out.append((label, p, r["size_pages"], r["requests"], med[p], med[p] / med["m"], r))
    return out


def section(results: list[tuple], runs: int) -> list[str]:
    lines = [
        SECTION,
        "",
        "Made by `.venv/bin/python bench/offline_bounds.py`. `m` is MIN over an FTL (the paper's M);",
        "`min` is the cache policy alone (no flash, no DRAM tier), for scale. Every bounds run also",
        "replays M+ for its WFUE columns. Flash with 128 KiB erase units (32 pages): the paper's",
        "2 MiB containers do not fit a 1% cache of this working set. Wall-clock medians of",
        f"{runs} interleaved `fcsim.simulate` calls on one `.fct` file. Issue 12's target: C within",
        "4x of MIN's (`m`'s) time.",
        "",
        "| trace | policy | size (pages) | requests | time | time / m's | RHR | erasures |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, p, pages, n, t, ratio, r in results:
        erasures = "" if r.get("erasures") is None else f"{r['erasures']:,}"
        lines.append(
            f"| {label} | {p} | {pages:,} | {n:,} | {t:.2f} s | {ratio:.2f}x "
            f"| {r['read_hit_ratio']:.4f} | {erasures} |"
        )
    worst = max(r[5] for r in results if r[1] == "c")
    lines += [
        "",
        f"C takes at most {worst:.2f}x MIN's time: the 4x target is {'met' if worst <= 4 else 'not met'}.",
    ]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        results = measure(a.runs, Path(d))
    sections.replace(Path(a.out), section(results, a.runs))


if __name__ == "__main__":
    main()
