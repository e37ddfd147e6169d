"""Reading ahead: the same simulations with the trace read on a second thread (the default) and on
the simulating thread (`sim.read_ahead=false`), interleaved in one run, written as the "Reading
ahead" section of bench/RESULTS.md (the rest of the file is left as it is).

Each run is a fresh process (so neither order warms the other's caches), timed by the loop's
own clock (`sim_seconds`: the device build and the working-set pass left out) and by the
process's CPU time over the call (both threads). Medians of N runs. The rows must be the same
with and without (the script checks it).

    .venv/bin/python bench/read_ahead.py [--runs 5] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import sections

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Reading ahead: the trace read on a second thread"
TRACES = {
    "arc_P12 (.lis, zstd)": str(ROOT / "data/traces/arc_P12.lis.zst"),
    "cloudphysics (CSV, gzip)": str(ROOT / "data/traces/cloudphysics_vscsi_2h.csv.gz"),
    "synth zipf 2M (generated)": "synth:zipf,alpha=1.0,requests=2000000,pages=500000,seed=1,iops=1000,"
    "write=0.3",
    "profile lcr-ts_0 (a clone)": "synth:profile=lcr-ts_0",
}
POLICIES = ["lru", "arc"]
SIZES = ["1%", "10%"]
# One process a run: the trace's working set once, then each point timed.
CHILD = r"""
import json, sys, time
import fcsim
trace, ws, ahead = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
out = []
for policy in sys.argv[4].split(","):
    for size in sys.argv[5].split(","):
        cpu = time.process_time()
        row = fcsim.simulate(trace, policy, size, working_set=ws, set={"sim.read_ahead": ahead})
        out.append([policy, size, row.sim_seconds, time.process_time() - cpu, row.requests, row.hits])
print(json.dumps(out))
"""


def child(trace: str, ws: int, ahead: bool) -> list:
    argv = [
        sys.executable,
        "-c",
        CHILD,
        trace,
        str(ws),
        "1" if ahead else "0",
        ",".join(POLICIES),
        ",".join(SIZES),
    ]
    return json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "bench/RESULTS.md"))
    a = ap.parse_args()
    import fcsim

    load = [os.getloadavg()[0]]
    rows = []
    for label, trace in TRACES.items():
        ws = fcsim.trace_info(trace)["unique_pages"]
        runs: dict[bool, list] = {True: [], False: []}
        for i in range(a.runs):  # interleaved, the order alternating
            for ahead in (True, False) if i % 2 == 0 else (False, True):
                runs[ahead].append(child(trace, ws, ahead))
        for k, (policy, size, _, _, requests, hits) in enumerate(runs[True][0]):
            assert all(r[k][5] == hits for rs in runs.values() for r in rs), (
                f"{label} {policy} {size}: hits differ"
            )
            wall = {h: statistics.median(r[k][2] for r in runs[h]) for h in runs}
            cpu = {h: statistics.median(r[k][3] for r in runs[h]) for h in runs}
            rows.append((label, policy, size, requests, wall, cpu))
            print(
                f"{label:28} {policy:4} {size:>4}  clock {wall[False] / wall[True]:.2f}x faster, "
                f"CPU {cpu[True] / cpu[False]:.2f}x",
                flush=True,
            )
    load.append(os.getloadavg()[0])
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        SECTION,
        "",
        f"Made by `.venv/bin/python bench/read_ahead.py --runs {a.runs}` (fcsim {rev.stdout.strip()}; "
        f"load average {load[0]:.1f} before, {load[1]:.1f} after).",
        "A simulation reads a compressed or text trace, and generates a synthetic one, on a second",
        "thread a few thousand requests ahead (`crates/fcsim/src/trace/ahead.rs`); `sim.read_ahead=false`",
        "reads it on the simulating thread. Same points with and without, interleaved, each run a",
        "fresh process; `loop s`: the loop's own clock (`sim_seconds`), `CPU s`: the process's CPU",
        f"time over the call (both threads), medians of {a.runs}. Same hits in every run: yes.",
        "An uncompressed `.fct` file is read on the simulating thread either way (its records cost",
        "less to decode than to hand over: `TraceReader::read_ahead`).",
        "",
        "| trace | policy | size | requests | loop s, ahead | loop s, one thread | faster by the clock "
        "| CPU s, ahead | CPU s, one thread | CPU ratio |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, policy, size, requests, wall, cpu in rows:
        lines.append(
            f"| {label} | {policy} | {size} | {requests:,} | {wall[True]:.3f} | {wall[False]:.3f} "
            f"| {wall[False] / wall[True]:.2f}x | {cpu[True]:.3f} | {cpu[False]:.3f} "
            f"| {cpu[True] / cpu[False]:.2f} |"
        )
    lines += [
        "",
        "`CPU ratio` above 1: reading ahead took more CPU time than one thread (the hand-over and",
        "the second thread's own work); below 1, less (a decompressor that keeps its own core's",
        "caches). A sweep that already occupies every core gains nothing from the second thread and",
        "pays that ratio: `sim.read_ahead=false` there.",
    ]
    sections.replace(Path(a.out), lines)


if __name__ == "__main__":
    main()
