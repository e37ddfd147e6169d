"""What the per-paper reports share: plots over cache sizes, percentages, how a trace is classed
(read-dominant, mixed, write-dominant), the fcsim version."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from fcsim import notes
from fcsim.plot import figure
from fcsim.reports import testable

MARKERS = {"lru": "s", "fifo": "+", "lfu": "^", "mq": "o", "arc": "D", "larc": "*"}
MARKERS |= {"cflru": "^", "lru-wsr": "v", "ccf-lru": "o", "pt-lru": "D", "gasa": "*"}
MARKERS |= {"gcar-cflru": "v", "lcr": "*"}


def left_out(gate: testable.Gate, claim: str, traces: list[str]) -> str:
    """ " (untestable on A: why; B: why)" naming the traces a claim over several traces left
    out, each with its reason; empty when none."""
    out = [f"{testable.short(t)}: {w}" for t in traces if (w := gate.why(claim, t)) is not None]
    return f" (untestable on {'; '.join(out)})" if out else ""


def made_by(df: pd.DataFrame) -> str:
    """Which fcsim made the table's rows (``fcsim_revision``), a line: a summary drawn with
    ``--keep-stale`` is drawn from rows an older fcsim made."""
    if "fcsim_revision" not in df.columns:
        return ""
    made = df["fcsim_revision"].fillna("not recorded").value_counts()
    return "Rows made by fcsim " + ", ".join(f"{rev} ({n:,})" for rev, n in made.items()) + ".\n\n"


def size_pct(df: pd.DataFrame) -> pd.Series:
    """Each point's cache size as a share of its trace's working set, in percent; NaN where the
    point gives the size in pages or bytes."""
    sizes = df["point"].map(lambda p: json.loads(p)["size"])
    return sizes.map(lambda s: float(s[:-1]) if s.endswith("%") else float("nan"))


def plot(
    df: pd.DataFrame, metric: str, ylabel: str, path: Path, log: bool = False, zero: bool = True
) -> None:
    """A paper's metric against cache size (% of the working set), a panel per trace (synthetic
    profiles marked), a line per policy (:func:`fcsim.plot.figure`); nothing without rows.
    ``zero=False``: each panel's y axis spans its data (differences of a few percent between
    policies, as GASA's runtimes, would be one line on an axis from zero)."""
    if df.empty or df[metric].isna().all():
        return
    figure(
        df,
        "size_pct",
        metric,
        by="policy",
        facet="trace",
        path=path,
        xlabel="cache size (% of working set)",
        ylabel=ylabel,
        ylog=log,
        zero=zero,
        xlog=False,
        names={p: str(p).upper() for p in dict.fromkeys(df["policy"])},
        markers=MARKERS,
    )


def pct(a: float, b: float) -> str:
    return f"{(a / b - 1) * 100:+.1f}%" if b else "n/a"


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fcsim")
    except PackageNotFoundError:  # pragma: no cover
        return "dev"


def summary_head(title: str, command: str) -> list[str]:
    """A summary's first lines, the same in every report: its title, the command that made it
    and where its rows are, then the verdicts' heading."""
    return [
        f"# {title}",
        "",
        f"Made by `{command}` (fcsim {version()}); the grid is `experiment.toml`, every row is in",
        "`results.parquet`. Never edited by hand.",
        "",
        "## Verdicts",
        "",
    ]


def changes(piv: pd.DataFrame, trace: str, metric: str, policy: str, base: str) -> pd.Series:
    """``policy`` against ``base`` in percent, per cache size (``piv``: trace x size rows, (metric,
    policy) columns)."""
    t = piv.loc[trace]
    return (t[(metric, policy)] / t[(metric, base)] - 1) * 100


def pct_range(piv: pd.DataFrame, trace: str, metric: str, policy: str, base: str) -> tuple[float, float]:
    r = changes(piv, trace, metric, policy, base)
    return float(r.min()), float(r.max())


def fmt_range(lo: float, hi: float) -> str:
    return f"{lo:+.1f}% … {hi:+.1f}%"


# A trace is read-dominant when reads are at least this share of its page accesses: the paper's
# read-dominant T1 and T2 have 85% and 87% reads (Table II), its write-dominant T3 34%.
READ_DOMINANT_MIN = 0.80
# And write-dominant when writes are the majority of its page accesses, as on T3 (66% writes).
WRITE_DOMINANT_MAX_READS = 0.50


def read_share(df: pd.DataFrame) -> pd.Series:
    """Reads over page accesses, per trace (the same in every row of a trace)."""
    first = df.groupby("trace", sort=False)[["reads", "accesses"]].first()
    return first["reads"] / first["accesses"]


def kind(reads: float) -> str:
    """read-dominant (reads ≥ 80% of page accesses), write-dominant (reads < 50%) or mixed."""
    if reads >= READ_DOMINANT_MIN:
        return "read-dominant"
    if reads < WRITE_DOMINANT_MAX_READS:
        return "write-dominant"
    return "mixed"


def own_traces(df: pd.DataFrame) -> list[str]:
    """The setup line of a report on the paper's own traces (``fcsim reproduce`` writes it to
    ``paper-traces/``), in place of the shipped traces' stand-in notes."""
    names = ", ".join(f"`{t}`" for t in dict.fromkeys(df["trace"]))
    return [
        f"- Traces: **the paper's own**, read from the trace cache (`fcsim trace catalogue`): {names}.",
        "  The shipped traces and the workload profiles are reported in [../summary.md](../summary.md).",
    ]


def spare_note(df: pd.DataFrame) -> str:
    """One sentence on the flash spare the rows simulated against the `device.op` each asked for
    (:func:`fcsim.notes.more_spare`, the rule of the run's own note); empty when the rows carry
    no such column."""
    if {"device_op_actual", "device_op"} - set(df.columns) or df["device_op_actual"].isna().all():
        return ""
    actual = df.dropna(subset=["device_op_actual"])
    ops = sorted(pd.to_numeric(actual["device_op"], errors="coerce").dropna().unique())
    if not ops:
        return ""
    pct = [f"{100 * op:.3g}%" for op in ops]
    many = f"`device.op` asks ({pct[0]} to {pct[-1]})" if len(ops) > 1 else ""
    asked = many or pct[0]
    over = actual[notes.more_spare(actual)]
    if over.empty:
        kept = f"the spare {many}" if many else f"{asked} spare"
        return f"The drive simulated keeps {kept} at every point (`device_op_actual`)."
    lo, hi = over["device_op_actual"].min(), over["device_op_actual"].max()
    return (
        f"The drive simulated has more spare than {asked} at {len(over)} of {len(actual)} points "
        f"(`device_op_actual` {lo:.3g} to {hi:.3g}), and erasures there are those of a drive with that "
        "spare."
    )


def saturation_note(df: pd.DataFrame) -> list[str]:
    """A paragraph (blank lines around it) saying how many of the rows ran a device past what it
    can serve (`saturated`: some flash chip or disk was offered more than a second's work in some
    second), where, and that their response times are mostly queueing; empty when no row has the
    column."""
    if "saturated" not in df.columns:
        return []
    kind = notes.saturation(df)
    if kind.isna().all():
        return []
    n_closed = int(kind.eq(notes.CLOSED).sum())
    closed = (
        f" The {n_closed} closed-loop points are saturated by construction and not counted here: their "
        "`sim.queue_depth` requests are outstanding at every instant, so their response is the depth over "
        "the throughput and does not grow with the run."
        if n_closed
        else ""
    )
    timed = df[kind.isin([notes.QUEUE, notes.BURST, ""])]
    sat = df[kind.eq(notes.QUEUE)]
    n_burst = int(kind.eq(notes.BURST).sum())
    burst = (
        f" {n_burst} of the {len(timed)} timed points saturate nothing over a second but queue mostly behind "
        "bursts shorter than one (`mostly_queueing`: their ops waited behind earlier requests' work longer "
        "than they were served; `flash_queueing_ratio`, `disk_queueing_ratio`): their response times are "
        "mostly queueing too."
        if n_burst
        else ""
    )
    if timed.empty:
        return ["", f"**Load.**{closed}", ""]
    if sat.empty:
        return [
            "",
            f"**Load.** None of the {len(timed)} timed points saturates a flash chip or a disk "
            f"(`saturated`).{burst}{closed}",
            "",
        ]
    where = []
    for dev in ("disk", "flash"):
        col = f"{dev}_util_peak_1s"
        if col in sat.columns and (sat[col] > 1).any():
            peaks = sat.loc[sat[col] > 1, col]
            where.append(
                f"the {dev} at {int((sat[col] > 1).sum())} ({peaks.min():.3g}x to {peaks.max():.3g}x)"
            )
    traces = ", ".join(sorted(set(sat["trace"])))
    return [
        "",
        f"**Load: {len(sat)} of the {len(timed)} timed points are saturated** (`saturated`: in its busiest "
        f"second a server was offered more work than it can do in a second; {' and '.join(where)}), "
        f"on {traces}. "
        "Their response times are mostly queueing behind those bursts, not service: read them as such, "
        f"and `flash_util_peak_1s`, `disk_util_peak_1s` and the queue columns beside them.{burst}{closed}",
        "",
    ]
