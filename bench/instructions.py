"""Two builds of fcsim compared by the work they do per request, not by the clock: each point is run
under valgrind's cachegrind (instructions, simulated first-level and last-level data cache misses,
simulated branch mispredictions) at two lengths of the same trace, and the difference over the
difference in requests is the per-request cost (the process's start-up, import and setup cancel).
These counts do not move with the machine's load, so they settle what a noisy clock cannot: on a
shared 2-core machine `bench/two_builds.py` measured ARC at 10% 6% to 22% slower on the
stack-value branch, session after session. What the simulation leaves out (the real machine's
caches, TLB, branch predictor and code alignment) is said beside the table.

    .venv/bin/python bench/instructions.py BASE_PYTHON NEW_PYTHON --base-label main --new-label branch \\
        [--section "## TITLE"] [--out bench/RESULTS.md]

Each comparison is its own section (``--section``), so a later one does not replace an earlier one.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import sections

SECTION = "## Two builds by their work per request"
LENGTHS = (500_000, 1_500_000)
# Timed (1,000 requests/s) so that the flash cache's disk has arrivals; the policies alone ignore time.
ZIPF = "synth:zipf,alpha=1.0,requests={n},pages=1000000,seed=1,iops=1000"
FLASH_CACHE = {"device": "offline", "set": {"stack.kind": "ssd-cache"}}
# label, policy, size, the other arguments of fcsim.simulate
POINTS = [
    ("LRU", "lru", "1%", {}),
    ("LRU", "lru", "10%", {}),
    ("ARC", "arc", "1%", {}),
    ("ARC", "arc", "10%", {}),
    # The flash-cache tier over a disk, where the admission seam sits (every miss admitted).
    ("LRU flash cache over a disk, write-around", "lru", "10%", FLASH_CACHE),
]
ONE = """
import json, sys, fcsim
fcsim.simulate(sys.argv[1], policy=sys.argv[2], size=sys.argv[3], **json.loads(sys.argv[4]))
"""
COUNTS = {
    "instructions": r"I\s+refs:\s+([\d,]+)",
    "D1 misses": r"D1\s+misses:\s+([\d,]+)",
    "LL misses": r"LL misses:\s+([\d,]+)",
    "mispredicts": r"Mispredicts:\s+([\d,]+)",
}


def counts(py: str, trace: str, policy: str, size: str, kw: dict) -> dict[str, int]:
    """The whole process's counts, from cachegrind's summary on stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes"]
        cmd += [f"--cachegrind-out-file={tmp}/out", py, "-c", ONE, trace, policy, size, json.dumps(kw)]
        err = subprocess.run(cmd, check=True, capture_output=True, text=True).stderr
    out = {}
    for name, pattern in COUNTS.items():
        m = re.search(pattern, err)
        if not m:
            sys.exit(f"cachegrind printed no '{name}' line:\n{err[-2000:]}")
        out[name] = int(m.group(1).replace(",", ""))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the Python of the build compared against")
    ap.add_argument("new", help="the Python of the build measured")
    ap.add_argument("--base-label", default="base")
    ap.add_argument("--new-label", default="new")
    ap.add_argument("--section", default=SECTION, help="the section's heading (a new one adds a section)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "RESULTS.md"))
    a = ap.parse_args()
    b, n = a.base_label, a.new_label
    per: dict[tuple[int, str], dict[str, float]] = {}
    for i, (label, policy, size, kw) in enumerate(POINTS):
        for build, py in ((b, a.base), (n, a.new)):
            short, long = (counts(py, ZIPF.format(n=k), policy, size, kw) for k in LENGTHS)
            per[(i, build)] = {k: (long[k] - short[k]) / (LENGTHS[1] - LENGTHS[0]) for k in COUNTS}
            print(label, size, build, {k: round(v, 2) for k, v in per[(i, build)].items()}, file=sys.stderr)
    ratios = [per[(i, n)]["instructions"] / per[(i, b)]["instructions"] - 1 for i in range(len(POINTS))]
    worst = max(ratios, key=abs)
    lines = [
        a.section,
        "",
        f"Made by `bench/instructions.py` ({b} against {n}). Each point run under valgrind's",
        "cachegrind (simulated caches and branch predictor) at two lengths of the same Zipf trace",
        f"(alpha 1.0, 10^6 pages, seed 1, {LENGTHS[0]:,} and {LENGTHS[1]:,} requests at 1,000 a second,",
        "generated in the run; the flash cache is the `offline` drive as `stack.kind=ssd-cache` over its",
        "disk, admitting every miss): the counts' difference over the requests' difference is the",
        "cost of one request, the trace's generation included, the process's start-up and import",
        "cancelled. The counts",
        "do not move with the machine's load. Left out: the real machine's caches, TLB, branch",
        "predictor and code alignment, which a clock sees and this does not. A ratio is the new",
        f"build's count over the base's: above 1, {n} does more; counts are per request.",
        "",
        f"Each cell: {b} → {n} (ratio). Largest change in instructions per request: {worst:+.1%}.",
        "",
        "| point | size | " + " | ".join(COUNTS) + " |",
        "|---|---|" + "---:|" * len(COUNTS),
    ]
    for i, (label, _, size, _) in enumerate(POINTS):
        cells = []
        for k in COUNTS:
            x, y = per[(i, b)][k], per[(i, n)][k]
            digits = 0 if x >= 100 else 2
            cells.append(f"{x:,.{digits}f} → {y:,.{digits}f} ({y / x:.3f})")
        lines.append(f"| {label} | {size} | " + " | ".join(cells) + " |")
    sections.replace(Path(a.out), lines)


if __name__ == "__main__":
    main()
