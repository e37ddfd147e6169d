"""Issue 29's speed figures, ratios measured in one run, written into bench/RESULTS.md (this
script owns the sections it writes; side_by_side.py keeps them):

- Limit: fcsim's LRU end to end from `.fct` (one Python call, trace reading included) against
  a minimal LRU written for the benchmark (`cargo bench -p fcsim --bench limit`: open
  addressing + index-linked list) over the same page sequence held in memory, interleaved.
- Flash-aware policies: requests/s of the simulation loop (`sim_seconds`) of every registered
  online policy as the DRAM buffer of the `gasa` and `lcr` SSDs, over cloudphysics at 1% and
  10% of its working set, as a ratio to LRU's in the same configuration; the windowed
  policies also with their window at the whole cache.
- Device path: `--policy none` on the aged `lcr` drive (filled, then one user capacity of
  uniform random overwrites), uniform random single-page writes: host page writes/s of the
  loop.

    .venv/bin/python bench/flash_speed.py [--runs 3] [--out bench/RESULTS.md] [--only limit]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import sections

import fcsim

ROOT = Path(__file__).resolve().parents[1]
ZIPF = "synth:zipf,alpha=1.0,requests=5000000,pages=1000000,seed=1,iops=0"
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


def limit_binary() -> Path:
    """Builds the benchmark's minimal LRU; its path."""
    out = subprocess.run(
        ["cargo", "bench", "-p", "fcsim", "--bench", "limit", "--no-run", "--message-format=json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "limit" and m.get("executable"):
            return Path(m["executable"])
    raise SystemExit("cargo built no `limit` benchmark")


def limit(runs: int, tmp: Path) -> list:
    exe = limit_binary()
    fct = tmp / "zipf.fct"
    ws = fcsim.convert(ZIPF, fct)["unique_pages"]
    rows = []
    for size in SIZES:
        ours, lim = [], []
        row = None
        for _ in range(runs):  # interleaved, so both see the same machine load
            t = time.perf_counter()
            row = fcsim.simulate(fct, "lru", size, working_set=ws)
            ours.append(time.perf_counter() - t)
            r = subprocess.run(
                [exe, str(fct), str(row.size_pages), "1"], capture_output=True, text=True, check=True
            )
            got = json.loads(r.stdout)
            lim.append(got["seconds"][0])
        n = row.accesses
        same = got["misses"] == n - row.hits
        f, m = statistics.median(ours), statistics.median(lim)
        rows.append((size, row.size_pages, n, n / m, n / f, m / f, same))
        print(
            f"limit {size}: {n / m / 1e6:.2f}M/s, fcsim lru {n / f / 1e6:.2f}M/s, {m / f:.2f}x, same {same}"
        )
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


def device_path(runs: int) -> list:
    out = []
    for _ in range(runs):
        r = fcsim.simulate(DEVICE_TRACE, "none", device="lcr", set={"device.fill": 1, "device.steady": 1})
        out.append(
            (r.host_page_writes / r.sim_seconds, r.write_amplification, r.device_state, r.device_setup_s)
        )
        print(f"device path: {out[-1][0] / 1e6:.2f}M host page writes/s, WA {out[-1][1]:.2f}")
    return out


def write(path: Path, lim: list, fa: list | None, dev: list | None, runs: int) -> None:
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "## The machine's limit: a minimal LRU over the page sequence in memory",
        "",
        f"Made by `.venv/bin/python bench/flash_speed.py` (fcsim {rev.stdout.strip()}). fcsim's LRU end",
        "to end from `.fct` (one Python call, trace reading included) against",
        "`cargo bench -p fcsim --bench limit`,",
        "a minimal LRU written for the benchmark (open addressing, index-linked list) over the same",
        f"page sequence held in memory (reading it untimed), on `{ZIPF}`. Medians of {runs} interleaved",
        "runs; issue 29's target: fcsim ≥ 0.6x the limit.",
        "",
        "| size | pages | requests | limit req/s | fcsim LRU req/s | fcsim / limit | same misses |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for size, pg, n, m, f, ratio, same in lim:
        lines.append(
            f"| {size} | {pg:,} | {n:,} | {m / 1e6:.2f}M | {f / 1e6:.2f}M | {ratio:.2f}x "
            f"| {'yes' if same else 'NO'} |"
        )
    missed = [f"{size} ({ratio:.2f}x, {0.6 - ratio:.2f} short)" for size, *_, ratio, _ in lim if ratio < 0.6]
    lines += ["", "Target ≥ 0.6x " + (f"missed at {', '.join(missed)}." if missed else "met at every size.")]
    if fa is None:  # --only limit: the other sections are kept as they are
        sections.replace(path, lines)
        return
    lines += [
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
        "## Device path: host page writes on the aged lcr drive",
        "",
        "`--policy none --device lcr` with `device.fill=1 device.steady=1` (aged: filled, then one",
        f"user capacity of uniform random overwrites, before the clock starts) on `{DEVICE_TRACE}`:",
        "every host page write placed, garbage-collected (greedy) and timed on its chip. Host page",
        "writes per second of the loop (`sim_seconds`). Issue 29's target: ≥ 5M/s.",
        "",
        "| run | host page writes/s | write amplification | device state | device setup |",
        "|---:|---:|---:|---|---:|",
    ]
    for i, (rate, wa, state, setup) in enumerate(dev):
        lines.append(f"| {i + 1} | {rate / 1e6:.2f}M | {wa:.2f} | {state} | {setup:.1f} s |")
    text = "\n".join(lines)
    for part in text.split("\n## "):
        sec = part if part.startswith("## ") else "## " + part
        sections.replace(path, sec.rstrip("\n").splitlines())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument("--only", choices=["limit"], help="measure and rewrite only the limit section")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        lim = limit(a.runs, Path(d))
    if a.only == "limit":
        write(Path(a.out), lim, None, None, a.runs)
        return
    fa = flash_aware(a.runs)
    dev = device_path(1)
    write(Path(a.out), lim, fa, dev, a.runs)


if __name__ == "__main__":
    main()
