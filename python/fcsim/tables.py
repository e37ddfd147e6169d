"""The tables ``fcsim run`` prints: the columns of the kinds of run a table holds (a DRAM
buffer, a flash cache over a disk, the offline bounds), each cell formatted; the seeds'
summary as ``mean ± half-width``; the per-epoch table in short.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from fcsim import notes, seeds
from fcsim._core import ConfigError
from fcsim.terminal import printable

TABLE_COLUMNS = [
    "trace",
    "policy",
    "size_pages",
    "accesses",
    "hit_ratio",
    "read_hit_ratio",
    "backing_reads",
    "backing_writes",
    "dirty_evictions",
    "device",
    "device_state",
    "flash_page_writes",
    "erasures",
    "write_amplification",
    "resp_mean_us",
    "resp_p99_us",
    "throughput_iops",
    "saturated",
    "requests_per_wall_s",
]

#: The columns `fcsim run` prints for an SSD cache over a disk (``stack.kind=ssd-cache``): the
#: read hit ratio is the metric of a read cache (LARC §4, dynamic-allocation §IV), then what the
#: cache costs the flash (cache_writes, FUE, erasures) and what reaches the disk.
SSD_CACHE_COLUMNS = [
    "trace",
    "policy",
    "size_pages",
    "accesses",
    "read_hit_ratio",
    "hit_ratio",
    "cache_writes",
    "fue",
    "erasures",
    "write_amplification",
    "device",
    "device_state",
    "disk_reads",
    "disk_writes",
    "disk_util_peak_1s",
    "resp_mean_us",
    "resp_p99_us",
    "throughput_iops",
    "saturated",
    "requests_per_wall_s",
]

#: The columns for the offline bounds and their online baselines (offline-bounds §3.1): RHR,
#: erasures, EPBPD, FUE and WFUE at the paper's two weights (Fig. 9).
OFFLINE_COLUMNS = [
    "trace",
    "policy",
    "size_pages",
    "accesses",
    "read_hit_ratio",
    "flash_page_writes",
    "erasures",
    "epbpd",
    "fue",
    "wfue_0.2",
    "wfue_0.8",
    "requests_per_wall_s",
]

DEVICE_TABLE_COLUMNS = {
    "device",
    "device_state",
    "flash_page_writes",
    "erasures",
    "write_amplification",
    "resp_mean_us",
    "resp_p99_us",
    "throughput_iops",
    "saturated",
}


def _mode(row: pd.Series) -> str:
    """The kind of run of a row: ``offline`` (an offline bound or its online baselines),
    ``ssd-cache`` (a flash cache over a disk) or ``buffer`` (a DRAM buffer, over a device or
    nothing)."""
    if pd.notna(row.get("wfue_0.2")) or str(row.get("stack")) == "offline-bounds":
        return "offline"
    if pd.notna(row.get("cache_writes")):
        return "ssd-cache"
    return "buffer"


def table_columns(df: pd.DataFrame, chosen: Sequence[str] | None = None) -> list[str]:
    """The columns `fcsim run` prints: ``chosen`` (``--columns``; each must be a column of the
    table), else those of the modes run (:data:`TABLE_COLUMNS` for a buffer, without its
    device columns when no row has a device; :data:`SSD_CACHE_COLUMNS`;
    :data:`OFFLINE_COLUMNS`), in that order, each once, ``admission`` after the policy when a row
    has another than ``all``, then ``--set`` axes (and ``time_scale`` when a row ran at another
    than 1 and no axis says it) and seeds."""
    if chosen is not None:
        unknown = [c for c in chosen if c not in df.columns]
        if unknown:
            raise ConfigError(
                f"--columns: no column {', '.join(unknown)} in the table; "
                f"its columns: {', '.join(df.columns)}"
            )
        return list(chosen)
    modes = {_mode(r) for _, r in df.iterrows()} or {"buffer"}
    buffer = [c for c in TABLE_COLUMNS if c in df.columns]
    if "device" in df.columns and df["device"].isna().all():
        buffer = [c for c in buffer if c not in DEVICE_TABLE_COLUMNS]
    lists = {"buffer": buffer, "ssd-cache": SSD_CACHE_COLUMNS, "offline": OFFLINE_COLUMNS}
    cols: list[str] = []
    for mode in ("buffer", "ssd-cache", "offline"):
        if mode in modes:
            cols += [c for c in lists[mode] if c in df.columns and c not in cols]
    # A flash cache's admission, when a row's is not the default (every miss may enter): rows of
    # several admissions are otherwise alike.
    if notes.named_admissions(df) and "admission" not in cols:
        cols.insert(cols.index("policy") + 1 if "policy" in cols else 0, "admission")
    extra = [c for c in df.columns if c.startswith("axis_") and c not in cols]  # --set axes (stack.split)
    # The load a response time was measured under, when not the trace's own and no axis says it.
    if "resp_mean_us" in cols and "time_scale" in df.columns and "axis_sim_time_scale" not in extra:
        scale = pd.to_numeric(df["time_scale"], errors="coerce")
        if (scale.notna() & scale.ne(1)).any():
            extra.append("time_scale")
    at = cols.index("size_pages") + 1 if "size_pages" in cols else len(cols)
    cols[at:at] = extra
    if "seed_index" in df.columns and df["seed_index"].notna().any():
        cols[at + len(extra) : at + len(extra)] = ["seed_index"]
    # the simulator's speed last, apart from what was simulated
    if "requests_per_wall_s" in cols:
        cols.remove("requests_per_wall_s")
        cols.append("requests_per_wall_s")
    return cols


#: How each printed column is formatted (others as pandas prints them).
FORMATS = {
    "hit_ratio": "{:.4f}",
    "read_hit_ratio": "{:.4f}",
    "write_amplification": "{:.4f}",
    "fue": "{:.4f}",
    "wfue_0.2": "{:.4f}",
    "wfue_0.8": "{:.4f}",
    "epbpd": "{:.4g}",
    "disk_util_peak_1s": "{:.2f}",
    "resp_mean_us": "{:.1f}",
    "resp_p99_us": "{:.1f}",
    "throughput_iops": "{:.1f}",
}


def _fmt(column: str, v: Any, counts: bool = False) -> str:
    """A cell as printed: empty for null, ``FORMATS`` for its column, a whole number for a
    column of counts (``counts``: a count column that pandas made float for its nulls)."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return ""
    if column == "requests_per_wall_s":
        return f"{v / 1e6:.2f}M"
    f = FORMATS.get(column)
    if f is not None and isinstance(v, int | float) and not isinstance(v, bool):
        return f.format(v)
    if counts:
        return f"{int(v)}"
    return str(v)


def format_table(df: pd.DataFrame, columns: Sequence[str] | None = None) -> str:
    """The table `fcsim run` prints: :func:`table_columns`, formatted."""
    cols = table_columns(df, columns)
    t = df[cols].copy()
    for c in cols:
        if t[c].dtype == object:  # text (a trace's name): its control characters escaped
            t[c] = t[c].map(lambda v: printable(v) if isinstance(v, str) else v)
        col = t[c]
        counts = (
            pd.api.types.is_float_dtype(col)
            and c not in FORMATS
            and bool(col.dropna().map(float.is_integer).all())
        )
        if counts or c in FORMATS or c == "requests_per_wall_s" or col.isna().any():
            t[c] = col.map(lambda v, c=c, counts=counts: _fmt(c, v, counts))
    return t.to_string(index=False)


def format_summary(df: pd.DataFrame, summary: pd.DataFrame, columns: Sequence[str] | None = None) -> str:
    """The seeds' summary as `fcsim run --seeds N` prints it: the printed columns of each
    point, a metric as ``mean ± half-width`` of its 95% confidence interval (Student t; the
    mean alone for a point that ran once), ``size_pages`` as the seeds' range where they
    differ (a percent size of a seeded trace)."""
    cols = [c for c in table_columns(df, columns) if c not in ("seed_index", "requests_per_wall_s")]
    cols = [c for c in cols if c in summary.columns]
    if "size" in summary.columns and "size" not in cols:
        cols.insert(cols.index("policy") + 1 if "policy" in cols else 0, "size")
    cols.insert(cols.index("size") + 1 if "size" in cols else len(cols), "seeds")
    t = summary[cols].copy()
    # A percent size resolves to each seed's own working set: where the seeds' sizes differ,
    # their range (the summary's column is null where seeds disagree).
    if "size_pages" in cols and "size" in summary.columns and summary["size_pages"].isna().any():
        by = [
            c
            for c in ("trace", "policy", "size", "device", "admission")
            if c in df.columns and c in summary.columns
        ]
        by += [c for c in df.columns if c.startswith("axis_") and c in summary.columns]

        def key(values: Sequence[Any]) -> tuple[Any, ...]:
            return tuple(None if pd.isna(v) else v for v in values)

        span = {
            key(k if isinstance(k, tuple) else (k,)): g for k, g in df.groupby(by, dropna=False)["size_pages"]
        }
        t["size_pages"] = [
            v if pd.notna(v) else f"{span[key(k)].min()}-{span[key(k)].max()}"
            for v, k in zip(
                summary["size_pages"], summary[by].itertuples(index=False, name=None), strict=True
            )
        ]
    for c in cols:
        half = f"{c}_ci95"
        if half in summary.columns:
            large = summary[c].abs().max() >= 1000
            fmt = FORMATS.get(c, "{:.0f}" if large else "{:.4g}")
            t[c] = [seeds.pm(m, h, fmt) for m, h in zip(summary[c], summary[half], strict=True)]
    return t.to_string(index=False)


EPOCH_TABLE_COLUMNS = [
    "policy",
    "size_pages",
    "device",
    "epoch",
    "start_s",
    "requests",
    "hit_ratio",
    "flash_page_writes",
    "erasures",
    "resp_mean_us",
    "resp_p99_us",
    "flash_util_peak_1s",
    "flash_queue_mean",
    "disk_util_peak_1s",
    "disk_queue_mean",
]


def _flash_cache_epochs(epochs: pd.DataFrame) -> bool:
    """Whether the epochs are of flash caches over a disk (their disk has a load)."""
    return "disk_queue_mean" in epochs.columns and bool(epochs["disk_queue_mean"].notna().any())


def format_epochs(epochs: pd.DataFrame) -> str:
    """The per-epoch table in short, as printed without ``--out``: a response beside the load it
    was measured under (each device's busiest second on its busiest server, and its mean ops),
    each epoch with what tells its run apart (admission, ``--set`` axes, seed index)."""
    if epochs.empty:
        return "(no epochs)"
    cols = [c for c in EPOCH_TABLE_COLUMNS if c in epochs.columns and epochs[c].notna().any()]
    # A flash cache's measure is its read hit ratio, as in its rows' table (SSD_CACHE_COLUMNS).
    if "read_hit_ratio" in epochs.columns and "hit_ratio" in cols and _flash_cache_epochs(epochs):
        cols.insert(cols.index("hit_ratio"), "read_hit_ratio")
    # What tells runs apart beyond policy, size and device: an admission other than all, the
    # --set axes, the seed index (before the epoch's own columns).
    if notes.named_admissions(epochs):
        cols.insert(cols.index("policy") + 1 if "policy" in cols else 0, "admission")
    apart = [c for c in epochs.columns if c.startswith("axis_")]
    if "seed_index" in epochs.columns and epochs["seed_index"].nunique() > 1:
        apart.append("seed_index")
    at = cols.index("epoch") if "epoch" in cols else len(cols)
    cols[at:at] = apart
    t = epochs[cols].copy()
    for c, f in (
        ("hit_ratio", "{:.4f}"),
        ("read_hit_ratio", "{:.4f}"),
        ("resp_mean_us", "{:.1f}"),
        ("resp_p99_us", "{:.1f}"),
        ("start_s", "{:g}"),
        ("flash_util_peak_1s", "{:.3g}"),
        ("flash_queue_mean", "{:.3g}"),
        ("disk_util_peak_1s", "{:.3g}"),
        ("disk_queue_mean", "{:.3g}"),
    ):
        if c in t:
            t[c] = t[c].map(lambda v, f=f: "" if pd.isna(v) else f.format(v))
    for c in ("flash_page_writes", "erasures"):
        if c in t:
            t[c] = t[c].map(lambda v: "" if pd.isna(v) else f"{int(v)}")
    return t.to_string(index=False)
