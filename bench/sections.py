"""Sections of bench/RESULTS.md that each benchmark script owns: side_by_side.py writes the file
and keeps the sections the other scripts wrote; each of those replaces only its own."""

from __future__ import annotations

from pathlib import Path

#: Every real trace shipped in data/traces (data/traces/MANIFEST.md), in the order the clone
#: sections list them: the benchmarks that run "every shipped real trace" take this one list.
SHIPPED = [
    "msr_hm_0_excerpt1000.csv",
    "mqsim_wsrch-small.trace.gz",
    "cloudphysics_vscsi_2h.csv.gz",
    "tencent_cbs_sample50k.csv.gz",
    "systor17_vdi_sample1000.csv.gz",
    "arc_OLTP.lis.zst",
    "arc_P2.lis.zst",
    "arc_P3.lis.zst",
    "arc_P12.lis.zst",
    "mqsim_tpcc-small.trace.gz",
    "diskmon_sys1.trace.gz",
    "blkparse_java_50k_events.txt.gz",
]


def _bounds(old: list[str], heading: str) -> tuple[int, int] | None:
    start = next((i for i, line in enumerate(old) if line.startswith(heading)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(old)) if old[i].startswith("## ")), len(old))
    return start, end


def kept(path: Path, heading: str) -> list[str]:
    """The section of `path` whose heading starts with `heading`, as it is, after a blank line."""
    old = path.read_text().splitlines() if path.exists() else []
    b = _bounds(old, heading)
    if not b:
        return []
    section = old[b[0] : b[1]]
    while section and not section[-1].strip():  # its own trailing blank lines: one is put before
        section.pop()
    return ["", *section]


def others(path: Path, own: list[str]) -> list[str]:
    """Every `## ` section of `path` whose heading starts with none of `own` (the sections the
    caller writes itself), as they are, in the file's order, each after a blank line."""
    old = path.read_text().splitlines() if path.exists() else []
    starts = [i for i, line in enumerate(old) if line.startswith("## ")]
    out: list[str] = []
    for start, end in zip(starts, [*starts[1:], len(old)], strict=True):
        if not any(old[start].startswith(h) for h in own):
            section = old[start:end]
            while section and not section[-1].strip():
                section.pop()
            out += ["", *section]
    return out


def replace(path: Path, lines: list[str]) -> None:
    """Writes `lines` (a section: its heading first) in place of the section of `path` with the
    same heading, or at the end; one blank line between it and the next section."""
    old = path.read_text().splitlines() if path.exists() else []
    b = _bounds(old, lines[0])
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    if b is None:
        new = [*old, "", *lines] if old else lines
    else:  # one blank line before the section that follows, as kept() gives
        new = [*old[: b[0]], *lines, *([""] if b[1] < len(old) else []), *old[b[1] :]]
    path.write_text("\n".join(new).rstrip("\n") + "\n")
