"""The request structure a clone keeps (issue 40): on every shipped real trace, the original's
mean request size (all, reads, writes), requests and share of requests that start where the one
before ended, beside its renewal clone's over seeds 1..N (mean [min, max]); written as the
"Trace clones: request sizes" section of bench/RESULTS.md (the rest of the file is left as it is).

The figures are `crates/fcsim/examples/request_shape.rs`'s, one process over every trace and
clone (each clone's model fitted in that process, or read from fcsim's model cache).

    .venv/bin/python bench/request_shapes.py [--seeds 5] [--traces NAME,...] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

import sections

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Trace clones: request sizes"
# (column of the example, heading, format)
MEASURES = [
    ("mean_KiB", "mean request (KiB)", "{:.1f}"),
    ("read_KiB", "mean read (KiB)", "{:.1f}"),
    ("write_KiB", "mean write (KiB)", "{:.1f}"),
    ("requests", "requests", "{:,.0f}"),
    ("sequential", "sequential share", "{:.3f}"),
]


def commit() -> str:
    """The checkout the example is built from (`-dirty` with uncommitted changes to the crates)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "crates")
    return git("rev-parse", "--short=8", "HEAD") + ("-dirty" if dirty else "")


def spread(v: list[float], fmt: str) -> str:
    return f"{fmt.format(sum(v) / len(v))} [{fmt.format(min(v))}, {fmt.format(max(v))}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--traces", default=",".join(sections.SHIPPED))
    ap.add_argument("--out", default=str(ROOT / "bench/RESULTS.md"))
    a = ap.parse_args()
    traces = a.traces.split(",")
    specs = []
    for name in traces:
        t = str(ROOT / "data/traces" / name)
        specs += [t, *(f"synth:clone={t},seed={s}" for s in range(1, a.seeds + 1))]
    built = commit()  # before the build: the example is built from the checkout as it is now
    cmd = ["cargo", "run", "-q", "--release", "-p", "fcsim", "--example", "request_shape", "--", *specs]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout.splitlines()
    head = out[0].split("\t")
    rows = [dict(zip(head, r.split("\t"), strict=True)) for r in out[1:]]
    assert len(rows) == len(specs), f"{len(rows)} rows for {len(specs)} traces and clones"
    per = 1 + a.seeds
    lines = [
        SECTION,
        "",
        f"`bench/request_shapes.py --seeds {a.seeds}` (fcsim {built}; load "
        f"{os.getloadavg()[0]:.1f}): `crates/fcsim/examples/request_shape.rs` on each shipped real trace "
        f"and on its renewal clone (`synth:clone=TRACE,seed=S`, S = 1..{a.seeds}, mean [min, max]). "
        f"Columns of the example: {', '.join(head[3:9])}.",
        "",
    ]
    for col, title, fmt in MEASURES:
        lines += [f"| trace | {title}: original | clone |", "|---|---:|---:|"]
        for k, name in enumerate(traces):
            o, clones = rows[k * per], rows[k * per + 1 : (k + 1) * per]
            clone = spread([float(c[col]) for c in clones], fmt)
            lines.append(f"| {name} | {fmt.format(float(o[col]))} | {clone} |")
        lines.append("")
    print("\n".join(lines))
    sections.replace(Path(a.out), lines)


if __name__ == "__main__":
    main()
