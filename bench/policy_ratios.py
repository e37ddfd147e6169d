"""fcsim builds against libCacheSim for issue 29's six policies, quick and interleaved.

Times `simulate` of one or more compiled fcsim cores (a copy of `_core*.so` per build, e.g. the
base and a change) and libCacheSim's sized table on the same page sequences (zipf 5M and
arc_P12, as bench/side_by_side.py converts them), at 1% and 10% of each working set. Every run
is a fresh process timed by its CPU time (`time.process_time`, so another process on the core
does not count), the builds and libCacheSim taking turns; medians of `--runs` runs. Prints
libCacheSim's median over each build's, and each build's hit count (they must agree).

    .venv/bin/python bench/policy_ratios.py --runs 5 /tmp/base /tmp/new [--policies lru,clock]
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ["lru", "fifo", "arc", "clock", "sieve", "slru"]
TRACES = {
    "zipf": "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0",
    "arc_P12": str(ROOT / "data/traces/arc_P12.lis.zst"),
}
SIZES = ["1%", "10%"]


def one_fcsim(core_dir: str, policy: str, fct: str, size: str, ws: int) -> None:
    """One timed fcsim run in this process: prints CPU seconds, hits and the size in pages."""
    spec = importlib.util.spec_from_file_location("fcsim._core", glob.glob(core_dir + "/_core*.so")[0])
    assert spec is not None and spec.loader is not None
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    t = time.process_time()
    row = core.simulate(fct, policy, size, working_set=ws)[0]
    print(time.process_time() - t, row["hits"], row["size_pages"])


def one_peer(policy: str, og: str, pages: int) -> None:
    """One timed libCacheSim run (sized hash table, as bench/side_by_side.py): prints CPU seconds."""
    import libcachesim as lcs

    peers = {"lru": lcs.LRU, "fifo": lcs.FIFO, "arc": lcs.ARC, "clock": lcs.Clock, "sieve": lcs.Sieve}
    peers["slru"] = lcs.SLRU
    cache = peers[policy](cache_size=pages, hashpower=max(12, math.ceil(math.log2(pages)) + 1))
    reader = lcs.TraceReader(
        trace=og,
        trace_type=lcs.TraceType.ORACLE_GENERAL_TRACE,
        reader_init_params=lcs.ReaderInitParam(ignore_obj_size=True),
    )
    t = time.process_time()
    cache.process_trace(reader)
    print(time.process_time() - t)


def child(*args: str) -> list[str]:
    cmd = [sys.executable, __file__, "--child", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cores", nargs="*", help="directories each holding one build's _core*.so")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "fc":
            one_fcsim(rest[0], rest[1], rest[2], rest[3], int(rest[4]))
        else:
            one_peer(rest[0], rest[1], int(rest[2]))
        return
    if not args.cores:
        ap.error("name at least one directory holding a _core*.so")
    import fcsim

    with tempfile.TemporaryDirectory() as tmp:
        for label, src in TRACES.items():
            og, fct = f"{tmp}/{label}.oracleGeneral.bin", f"{tmp}/{label}.fct"
            fcsim.convert(src, og)
            ws = fcsim.convert(og, fct, annotate_next=True)["unique_pages"]
            for policy in args.policies.split(","):
                for size in SIZES:
                    ours: dict[str, list[float]] = {c: [] for c in args.cores}
                    theirs, hits, pages = [], set(), 0
                    for _ in range(args.runs):
                        for c in args.cores:
                            dt, h, pages_s = child("fc", c, policy, fct, size, str(ws))
                            ours[c].append(float(dt))
                            hits.add(int(h))
                            pages = int(pages_s)
                        theirs.append(float(child("lcs", policy, og, str(pages))[0]))
                    peer = statistics.median(theirs)
                    cols = "  ".join(
                        f"{Path(c).name} {statistics.median(t):.3f}s {peer / statistics.median(t):.2f}x"
                        for c, t in ours.items()
                    )
                    print(
                        f"{label:8} {policy:6} {size:>4} {pages:7} pages  libCacheSim {peer:.3f}s  {cols}"
                        f"  hits {'agree' if len(hits) == 1 else sorted(hits)}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
