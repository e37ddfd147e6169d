"""Issue 29's speed figures, ratios measured in one run, written into bench/RESULTS.md (this
script owns the sections it writes; side_by_side.py keeps them):

- Limit: fcsim's LRU end to end from `.fct` (one Python call, trace reading included) against
  a minimal LRU written for the benchmark (`cargo bench -p fcsim-bench --bench limit`: open
  addressing + index-linked list) over the same page sequence held in memory, interleaved,
  and libCacheSim's LRU (its sized table, as in side_by_side.py) on the same sequence, so that
  issue 29's "2x libCacheSim" reads as a share of what the machine can do.
- Flash-aware policies: requests/s of the simulation loop (`sim_seconds`) of every registered
  online policy as the DRAM buffer of the `gasa` and `lcr` SSDs, over cloudphysics at 1% and
  10% of its working set, as a ratio to LRU's in the same configuration; the windowed
  policies also with their window at the whole cache.
- Device path: `--policy none` on the aged `lcr` drive (filled, then one user capacity of
  uniform random overwrites), uniform random single-page writes: host page writes per CPU
  second of the loop and per second of its wall time, each run in its own process, interleaved
  with the device limit (`cargo bench -p fcsim-bench --bench flash_limit`: a minimal page-mapped FTL
  over the same logical page writes held in memory); with `--before DIR` (an older fcsim
  installed there, e.g. `pip install --no-deps --target DIR .` at the older commit) its runs are
  interleaved with this build's and the section gives the ratio.

    .venv/bin/python bench/flash_speed.py [--runs 3] [--out bench/RESULTS.md]
    .venv/bin/python bench/flash_speed.py --only limit
    .venv/bin/python bench/flash_speed.py --only device [--before DIR] [--huge]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sections

import fcsim

ROOT = Path(__file__).resolve().parents[1]
ZIPF = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0"
# The limit's traces: the Zipf sequence and two real ones, arc_OLTP hit-heavy (LRU hits 0.80 at
# 10% of its working set, where a hit's list move is most of the work) and arc_P12 (0.58).
LIMIT_TRACES = [
    ("zipf 5M (alpha 1.0)", ZIPF),
    ("arc_OLTP", str(ROOT / "data/traces/arc_OLTP.lis.zst")),
    ("arc_P12", str(ROOT / "data/traces/arc_P12.lis.zst")),
]
CLOUDPHYSICS = str(ROOT / "data/traces/cloudphysics_vscsi_2h.csv.gz")
SIZES = ["1%", "10%"]
DEVICES = ["gasa", "lcr"]
# The registry's online policies (crates/fcsim/src/policy/mod.rs, all but `min` and `none`).
ONLINE = [
    "lru", "fifo", "lfu", "clock", "2q", "arc", "lirs", "mq", "s3fifo", "sieve", "slru", "larc",
    "cflru", "lru-wsr", "ccf-lru", "pt-lru", "gasa", "gcar-cflru", "lcr",
]  # fmt: skip
WINDOWED = ["cflru", "gcar-cflru", "lcr"]
DEVICE_WRITES = 4_000_000
DEVICE_TRACE = f"synth:uniform,requests={DEVICE_WRITES},pages=15000000,seed=1,iops=64000,write=1"


def limit_binary(name: str = "limit") -> Path:
    """Builds the benchmark's minimal LRU (or the named benchmark); its path."""
    out = subprocess.run(
        ["cargo", "bench", "-p", "fcsim-bench", "--bench", name, "--no-run", "--message-format=json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m["target"]["name"] == name and m.get("executable"):
            return Path(m["executable"])
    raise SystemExit(f"cargo built no `{name}` benchmark")


# The machine's one-minute load average before and after the limit's runs, for its section.
LOAD: list[float] = []


def limit(runs: int, tmp: Path) -> list:
    from side_by_side import hashpower, peer_run  # libCacheSim, timed as side_by_side.py does

    exe = limit_binary()
    rows = []
    LOAD[:] = [os.getloadavg()[0]]
    for k, (label, trace) in enumerate(LIMIT_TRACES):
        fct, og = tmp / f"{k}.fct", tmp / f"{k}.oracleGeneral.bin"
        ws = fcsim.convert(trace, fct)["unique_pages"]
        fcsim.convert(trace, og)
        for size in SIZES:
            ours, lim, peer = [], [], []
            row = None
            for _ in range(runs):  # interleaved, so all three see the same machine load
                t = time.perf_counter()
                row = fcsim.simulate(fct, "lru", size, working_set=ws)
                ours.append(time.perf_counter() - t)
                r = subprocess.run(
                    [exe, str(fct), str(row.size_pages), "1"], capture_output=True, text=True, check=True
                )
                got = json.loads(r.stdout)
                lim.append(got["seconds"][0])
                dt, miss_ratio = peer_run(og, "lru", row.size_pages, hashpower(row.size_pages))
                peer.append(dt)
            n = row.accesses
            same = got["misses"] == n - row.hits and round(miss_ratio * n) == n - row.hits
            f, m, p = statistics.median(ours), statistics.median(lim), statistics.median(peer)
            rows.append((label, size, row.size_pages, n, row.hits / n, n / m, n / f, m / f, n / p, same))
            print(
                f"limit {label} {size}: {n / m / 1e6:.2f}M/s, fcsim lru {n / f / 1e6:.2f}M/s, {m / f:.2f}x, "
                f"libCacheSim lru {n / p / 1e6:.2f}M/s, same {same}"
            )
    LOAD.append(os.getloadavg()[0])
    return rows


def flash_aware(runs: int) -> list:
    ws = fcsim.trace_info(CLOUDPHYSICS)["unique_pages"]
    needs = {p["name"] for p in fcsim.policies() if p["needs_device"]}
    rows = []
    for device in DEVICES:
        for size in SIZES:
            cases = [(p, {}) for p in ONLINE] + [(p, {f"{p}.window": "1.0"}) for p in WINDOWED]
            rates: dict[int, list[float]] = {i: [] for i in range(len(cases))}
            hits: dict[int, int] = {}
            for _ in range(runs):  # interleaved: each round runs every policy once
                for i, (policy, sets) in enumerate(cases):
                    r = fcsim.simulate(CLOUDPHYSICS, policy, size, device=device, set=sets, working_set=ws)
                    rates[i].append(r.requests / r.sim_seconds)
                    hits[i] = r.hits
            lru = statistics.median(rates[0])
            for i, (policy, sets) in enumerate(cases):
                rate = statistics.median(rates[i])
                label = policy + "".join(f" {k}={v}" for k, v in sets.items())
                rows.append((device, size, label, policy in needs, rate, rate / lru))
                print(f"{device} {size} {label}: {rate / 1e6:.3f}M/s, {rate / lru:.2f}x LRU")
    return rows


# One device-path run in a fresh process. A one-request run first builds and caches the aged
# drive; a second one-request run, whose setup is the timed run's (a copy of the cached drive,
# the trace opened), gives the CPU time that is not the loop, and the timed run's CPU time less
# it is the loop's. `sim_seconds` is the loop's wall time: its CPU time, plus the time the
# process waited for a CPU (the scheduler's run-queue delay, /proc/self/schedstat's second
# field, 0 where there is none), plus any time blocked. On this shared 2-core machine the wait
# is what separates the two figures.
DEVICE_RUN = """
import json, sys, time
import fcsim
def waited():
    try:
        return int(open("/proc/self/schedstat").read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0
aged = {"device.fill": 1, "device.steady": 1}
one = sys.argv[1].replace("requests=%d" % int(sys.argv[2]), "requests=1")
fcsim.simulate(one, "none", device="lcr", set=aged)
c = time.process_time()
fcsim.simulate(one, "none", device="lcr", set=aged)
setup = time.process_time() - c
w, c = waited(), time.process_time()
r = fcsim.simulate(sys.argv[1], "none", device="lcr", set=aged)
c, w = time.process_time() - c, waited() - w
row = [r.host_page_writes, r.flash_page_writes, r.sim_seconds, c - setup, w]
row += [r.write_amplification, r.device_state]
print(json.dumps(row))
"""


# glibc (2.35+) then advises transparent huge pages (2 MiB) for the memory its malloc maps, the
# FTL's tables included; nothing in fcsim changes. It shows what part of the device path's time
# goes to TLB misses in its random accesses to tables of the drive's size.
HUGE = "glibc.malloc.hugetlb=1"


LIMIT = "limit (minimal FTL)"
# fcsim's own parts, timed by the limit's binary on the same in-memory writes (its module doc).
FTL_ALONE = "fcsim FTL alone (in memory)"
FLASH_ALONE = "fcsim device alone (in memory)"


def device_path(runs: int, before: str | None, huge: bool = False) -> list:
    """(build, host writes, flash writes, wall s, CPU s, wait s, WA, state) per run, builds and
    the device limit interleaved."""
    exe = limit_binary("flash_limit")
    this = "after" if before else "this"
    builds = [("before", before, False)] if before else []
    builds += [(this, None, False)]
    if huge:
        builds += [(this + ", huge pages", None, True)]
    out = []
    for _ in range(runs):
        r = subprocess.run(
            [exe, DEVICE_TRACE, "lcr", "fill=1", "steady=1", "runs=1"],
            capture_output=True,
            text=True,
            check=True,
        )
        got = json.loads(r.stdout)
        host, flash, wall, cpu, wait = (
            got[k] for k in ("host_writes", "flash_writes", "seconds", "cpu", "wait")
        )
        out.append((LIMIT, host, flash, wall[0], cpu[0], wait[0], flash / host, "aged as fcsim's"))
        # CPU time only (no wall or wait figure): the wall column repeats it, the wait is 0.
        for name, key in ((FTL_ALONE, "ftl_cpu"), (FLASH_ALONE, "flash_cpu")):
            c = got[key][0]
            out.append((name, host, flash, c, c, 0.0, flash / host, "aged as fcsim's; CPU time only"))
        print(
            f"device limit: {host / cpu[0] / 1e6:.2f}M host page writes per CPU second, WA {flash / host:.2f}"
        )
        for name, path, hp in builds:
            env = dict(os.environ)
            if path:
                env["PYTHONPATH"] = path
            if hp:
                env["GLIBC_TUNABLES"] = HUGE
            r = subprocess.run(
                [sys.executable, "-c", DEVICE_RUN, DEVICE_TRACE, str(DEVICE_WRITES)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            host, flash, wall, cpu, wait, wa, state = json.loads(r.stdout.splitlines()[-1])
            out.append((name, host, flash, wall, cpu, wait, wa, state))
            print(
                f"device path ({name}): {host / cpu / 1e6:.2f}M host page writes per CPU second "
                f"({host / wall / 1e6:.2f}M/s wall, {wait:.2f} s of {wall:.2f} waiting for a CPU), "
                f"WA {wa:.2f}"
            )
    return out


def device_lines(dev: list, runs: int) -> list[str]:
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "## Device path: host page writes on the aged lcr drive",
        "",
        f"Made by `.venv/bin/python bench/flash_speed.py --only device` (fcsim {rev.stdout.strip()}).",
        "`--policy none --device lcr` with `device.fill=1 device.steady=1` (aged: filled, then one",
        f"user capacity of uniform random overwrites, before the clock starts) on `{DEVICE_TRACE}`:",
        "every host page write placed, garbage-collected (greedy) and timed on its chip. Page writes",
        "per CPU second of the loop (the timed run's process CPU time less that of a one-request run",
        "with the same setup), and per second of its wall time (`sim_seconds`), which is the CPU time",
        "plus the time the process waited for a CPU (`/proc/self/schedstat`): on this shared machine",
        "the wait is the gap between the two. Each run in a fresh process; rows interleaved.",
        f"`{LIMIT}`: `cargo bench -p fcsim-bench --bench flash_limit`, a page-mapped FTL written for the",
        "benchmark (flat l2p and p2l, per-block valid counts, greedy GC by a minimum over the plane's",
        "counts, a serial server per chip) on the same geometry, OP, GC reserve and preconditioning,",
        "over the same logical page writes held in memory; its flash writes must equal fcsim's.",
        f"`{FTL_ALONE}` and `{FLASH_ALONE}`: the same binary, in the same run, times fcsim's own",
        "`Ftl` (placement, invalidation, GC; no chip time) and its `Flash` device (the FTL with each",
        "op on its chip's timing, loads and load-balance epochs, the clock advanced per arrival) over",
        "the same writes in memory (CPU time only): with the limit and the end-to-end row they split",
        "the gap into the FTL, the device around it and the simulation loop.",
        f"`huge pages`: the same build run with `GLIBC_TUNABLES={HUGE}`.",
        "Issue 29's target: ≥ 5M host page writes/s.",
        "",
        "| build | run | host writes per CPU s | flash writes per CPU s | host writes/s (wall) "
        "| waited for a CPU | WA | device state |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    n: dict[str, int] = {}
    for name, host, flash, wall, cpu, wait, wa, state in dev:
        n[name] = n.get(name, 0) + 1
        lines.append(
            f"| {name} | {n[name]} | {host / cpu / 1e6:.2f}M | {flash / cpu / 1e6:.2f}M "
            f"| {host / wall / 1e6:.2f}M "
            f"| {wait:.2f} s of {wall:.2f} s | {wa:.2f} | {state} |"
        )
    med = {
        name: (
            statistics.median(h / c for b, h, _, _, c, *_ in dev if b == name),
            statistics.median(h / w for b, h, _, w, *_ in dev if b == name),
        )
        for name in n
    }
    same = len({f for b, h, f, *_ in dev}) == 1
    base, lim = med.get("before"), med[LIMIT]
    lines += ["", f"Medians of {runs} runs each (host page writes):", ""]
    for name, (c, w) in med.items():
        ratio = (
            f", {c / base[0]:.2f}x before's per CPU second"
            if base and name not in ("before", LIMIT, FTL_ALONE, FLASH_ALONE)
            else ""
        )
        of = f", {c / lim[0]:.2f}x the limit" if name != LIMIT else ""
        lines.append(f"- {name}: {c / 1e6:.2f}M per CPU second{of}{ratio} ({w / 1e6:.2f}M/s wall)")
    c = med["after" if base else "this"][0]
    lines += [
        "",
        f"Same flash page writes in every row: {'yes' if same else 'NO'}.",
        f"Against issue 29's 5M host page writes/s: fcsim {5e6 / c:.1f}x short per CPU second; the",
        f"minimal FTL on this machine does {lim[0] / 1e6:.2f}M"
        + (" (the target is out of reach of the tables themselves here)." if lim[0] < 5e6 else "."),
        "Where the time goes: the FTL's module doc (`crates/fcsim/src/device/ftl.rs`, "
        "*Where the time goes*).",
    ]
    if FTL_ALONE in med and FLASH_ALONE in med:
        ns = {k: 1e9 / med[k][0] for k in (LIMIT, FTL_ALONE, FLASH_ALONE)}
        end = 1e9 / c
        lines += [
            "",
            f"Per host write (CPU ns, medians): the limit {ns[LIMIT]:.0f}; fcsim's FTL alone "
            f"{ns[FTL_ALONE]:.0f} ({ns[FTL_ALONE] - ns[LIMIT]:+.0f}); its device alone "
            f"{ns[FLASH_ALONE]:.0f} (chip timing and accounting {ns[FLASH_ALONE] - ns[FTL_ALONE]:+.0f}); "
            f"end to end {end:.0f} (the simulation loop around the device {end - ns[FLASH_ALONE]:+.0f}).",
        ]
    return lines


def limit_lines(lim: list, runs: int) -> list[str]:
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "## The machine's limit: a minimal LRU over the page sequence in memory",
        "",
        f"Made by `.venv/bin/python bench/flash_speed.py` (fcsim {rev.stdout.strip()}). fcsim's LRU end",
        "to end from `.fct` (one Python call, trace reading included) against",
        "`cargo bench -p fcsim-bench --bench limit`,",
        "a minimal LRU written for the benchmark (open addressing, index-linked list) over the same",
        "page sequence held in memory (reading it untimed), on",
        f"`{ZIPF}` and two real traces, arc_OLTP (hit-heavy: a hit's",
        "move to the front is most of the work) and arc_P12; and libCacheSim's LRU",
        "(its hash table sized to the cache, as in the side-by-side section) on the same sequence from",
        f"its own oracleGeneral file. Medians of {runs} interleaved runs (load average {LOAD[0]:.1f}",
        f"before them, {LOAD[-1]:.1f} after: the ratios in one run are what count); issue 29's",
        "targets: fcsim ≥ 0.6x the limit, and ≥ 2x libCacheSim (the last column: what 2x",
        "libCacheSim asks, as a share of the limit; at 1x or above it asks more than the minimal LRU",
        "itself does).",
        "",
        "| trace | size | pages | requests | LRU hit ratio | limit req/s | fcsim LRU req/s | fcsim / limit "
        "| libCacheSim LRU req/s | 2x libCacheSim / limit | same misses |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, size, pg, n, hr, m, f, ratio, p, same in lim:
        lines.append(
            f"| {label} | {size} | {pg:,} | {n:,} | {hr:.3f} | {m / 1e6:.2f}M | {f / 1e6:.2f}M "
            f"| {ratio:.2f}x | {p / 1e6:.2f}M | {2 * p / m:.2f}x | {'yes' if same else 'NO'} |"
        )
    missed = [f"{r[0]} at {r[1]} ({r[7]:.2f}x, {0.6 - r[7]:.2f} short)" for r in lim if r[7] < 0.6]
    verdict = f"missed on {', '.join(missed)}." if missed else "met on every trace and size."
    lines += ["", "Target ≥ 0.6x " + verdict]
    return lines


def write(path: Path, lim: list, fa: list, dev: list, runs: int) -> None:
    lines = [
        *limit_lines(lim, runs),
        "",
        "## Flash-aware policies against LRU over the gasa and lcr SSDs",
        "",
        "Every registered online policy as the DRAM buffer of the SSD, over `cloudphysics_vscsi_2h`",
        "at 1% and 10% of its working set: requests/s of the simulation loop (`sim_seconds`, the",
        f"device's build apart), medians of {runs} interleaved rounds, and the ratio to LRU's in the",
        "same device and size. Issue 29's target: every policy ≥ 1/3 of LRU (within 3x).",
        "",
        "| device | size | policy | req/s | ratio to LRU |",
        "|---|---|---|---:|---:|",
    ]
    for device, size, label, _, rate, ratio in fa:
        lines.append(f"| {device} | {size} | {label} | {rate / 1e6:.3f}M | {ratio:.2f}x |")
    worst = min(fa, key=lambda r: r[5])
    lines += [
        "",
        f"Slowest against LRU: {worst[2]} over {worst[0]} at {worst[1]}, {worst[5]:.2f}x.",
        "",
    ]
    lines += device_lines(dev, 1)
    text = "\n".join(lines)
    for part in text.split("\n## "):
        sec = part if part.startswith("## ") else "## " + part
        sections.replace(path, sec.rstrip("\n").splitlines())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument("--only", choices=["limit", "device"], help="run and write only this section")
    ap.add_argument("--before", help="a directory holding an older fcsim build, run interleaved")
    ap.add_argument("--huge", action="store_true", help=f"also run this build with GLIBC_TUNABLES={HUGE}")
    a = ap.parse_args()
    if a.before and not (Path(a.before) / "fcsim").is_dir():
        raise SystemExit(f"--before {a.before}: no fcsim package there")
    if a.only == "device":
        sections.replace(Path(a.out), device_lines(device_path(a.runs, a.before, a.huge), a.runs))
        return
    with tempfile.TemporaryDirectory() as d:
        lim = limit(a.runs, Path(d))
    if a.only == "limit":
        sections.replace(Path(a.out), limit_lines(lim, a.runs))
        return
    fa = flash_aware(a.runs)
    dev = device_path(1, a.before, a.huge)
    write(Path(a.out), lim, fa, dev, a.runs)


if __name__ == "__main__":
    main()
