"""Two builds of fcsim side by side: the same points run by each build's Python, interleaved
(the order alternates every round), each run a fresh process, written as the "Two builds" section
of bench/RESULTS.md (the rest of the file is left as it is). Used to show a refactor keeps the
speed of the build it started from (issue 46: the stack as a value).

`loop s` is the loop's own clock (`sim_seconds`: the device's build and preconditioning left
out), `CPU s` the process's CPU time over the whole call (setup included); medians of N rounds.
The rows' counts (hits, write-backs, flash writes, erasures, mean response) must be the same in
every run of a point (the script checks it).

    .venv/bin/python bench/two_builds.py BASE_PYTHON NEW_PYTHON --base-label main --new-label branch \\
        [--runs 9] [--out bench/RESULTS.md] [--real] [--section "## TITLE"]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import sections

SECTION = "## Two builds side by side"
ZIPF = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0"
ZIPF_W = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=1e5,write=0.25"
SSD = {"stack.kind": "ssd-cache", "stack.write": "back"}
# label, trace key, policy, size, device, --set
POINTS = [
    ("LRU", "zipf", "lru", "1%", None, {}),
    ("LRU", "zipf", "lru", "10%", None, {}),
    ("ARC", "zipf", "arc", "1%", None, {}),
    ("ARC", "zipf", "arc", "10%", None, {}),
    ("LRU over the lcr SSD", "zipf_w", "lru", "1%", "lcr", {}),
    ("ARC flash cache over a disk, write-back", "zipf_w", "arc", "1%", None, SSD),
]
# Real traces (`--real`): LRU over arc_OLTP (hit-heavy: 0.80 at 10%) and arc_P12, as `.fct`.
REAL = {"arc_OLTP": "data/traces/arc_OLTP.lis.zst", "arc_P12": "data/traces/arc_P12.lis.zst"}
REAL_POINTS = [(f"LRU, {k}", k, "lru", size, None, {}) for k in REAL for size in ("1%", "10%")]
ONE = """
import json, sys, time
import fcsim
p = json.loads(sys.argv[1])
t = time.process_time()
r = dict(fcsim.simulate(p["trace"], policy=p["policy"], size=p["size"], device=p["device"], set=p["set"]))
cpu = time.process_time() - t
keys = ["hits", "backing_writes", "flash_page_writes", "erasures", "resp_mean_us"]
print(json.dumps({"loop": r["sim_seconds"], "cpu": cpu, "counts": [r.get(k) for k in keys]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the Python of the build compared against")
    ap.add_argument("new", help="the Python of the build measured")
    ap.add_argument("--base-label", default="base")
    ap.add_argument("--new-label", default="new")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "RESULTS.md"))
    ap.add_argument("--real", action="store_true", help="also LRU over two real traces (REAL_POINTS)")
    ap.add_argument("--section", default=SECTION, help=f"the section written (default {SECTION!r})")
    a = ap.parse_args()
    builds = [(a.base_label, a.base), (a.new_label, a.new)]
    points = POINTS + (REAL_POINTS if a.real else [])
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        specs = [("zipf", ZIPF), ("zipf_w", ZIPF_W)]
        specs += [(k, str(root / f)) for k, f in REAL.items()] if a.real else []
        traces = {key: f"{tmp}/{key}.fct" for key, _ in specs}
        for key, spec in specs:
            fcsim_cli = str(Path(a.base).parent / "fcsim")
            subprocess.run(
                [fcsim_cli, "trace", "convert", spec, "-o", traces[key]], check=True, capture_output=True
            )
        times: dict[tuple[int, str], dict[str, list[float]]] = {}
        counts: dict[int, set[str]] = {}
        load = [os.getloadavg()[0]]
        for r in range(a.runs):
            for i, (_, tkey, policy, size, device, sets) in enumerate(points):
                p = {"trace": traces[tkey], "policy": policy, "size": size, "device": device, "set": sets}
                for label, py in builds if r % 2 == 0 else builds[::-1]:
                    out = subprocess.run(
                        [py, "-c", ONE, json.dumps(p)], check=True, capture_output=True, text=True
                    ).stdout
                    o = json.loads(out)
                    t = times.setdefault((i, label), {"loop": [], "cpu": []})
                    t["loop"].append(o["loop"])
                    t["cpu"].append(o["cpu"])
                    counts.setdefault(i, set()).add(json.dumps(o["counts"]))
                    print(r, points[i][0], size, label, f"{o['loop']:.3f}", file=sys.stderr, flush=True)
        load.append(os.getloadavg()[0])
    b, n = a.base_label, a.new_label
    lines = [
        a.section,
        "",
        f"Made by `bench/two_builds.py` ({b} against {n}; {a.runs} rounds; load average",
        f"{load[0]:.1f} before, {load[1]:.1f} after). Each point run by each build's Python, interleaved",
        "(the order alternates every round), each run a fresh process. `loop s`: the loop's own clock",
        "(`sim_seconds`), `CPU s`: the process's CPU time over the call (setup included); medians.",
        "Traces: Zipf 5M (alpha 1.0, 10^6 pages, seed 1), read only, and with 25% writes at 100k",
        "requests/s for the device points, as `.fct`"
        + ("; with `--real`, LRU over arc_OLTP and arc_P12 (`.fct`)" if a.real else "")
        + ". A ratio is the base's time over the new build's:",
        f"above 1, {n} is faster. Same counts in every run of a point:",
        f"{'yes' if all(len(c) == 1 for c in counts.values()) else 'NO'}.",
        "",
        f"| point | size | loop s, {b} | loop s, {n} | ratio | CPU s, {b} | CPU s, {n} | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for i, (label, _, _, size, _, _) in enumerate(points):
        lb, ln = (statistics.median(times[(i, x)]["loop"]) for x in (b, n))
        cb, cn = (statistics.median(times[(i, x)]["cpu"]) for x in (b, n))
        ratios = f"{lb:.3f} | {ln:.3f} | {lb / ln:.2f}x | {cb:.2f} | {cn:.2f} | {cb / cn:.2f}x"
        lines.append(f"| {label} | {size} | {ratios} |")
    sections.replace(Path(a.out), lines)


if __name__ == "__main__":
    main()
