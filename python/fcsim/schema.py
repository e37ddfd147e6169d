"""The one schema of fcsim's result tables (issue 45): every column each kind of table has, its
pandas dtype and what it means, in one place. Every DataFrame of results is built through
:func:`frame` (or :func:`summary_frame`), so a table has the same columns with the same dtypes
whatever its grid holds: a run without a device has the device columns too, all null, and a
table concatenated from runs with and without a device keeps every dtype. The README's "Column
schema" is :func:`markdown` (``tests/test_schema.py`` holds it to this module), and the golden
schema test pins the names and dtypes. A leaf: it imports pandas and nothing of fcsim.

Dtypes are pandas' nullable ones: ``Int64`` for counts, ``Float64`` for measures and numeric
settings, ``boolean``, ``string`` for names and text (not categoricals: two tables with
different categories concatenate to ``object``, where ``string`` stays ``string``), and
``object`` for the few columns that hold a list per run (per-chip busy times, the dynamic
split's decisions). A configuration echoed as ``param_<name>``, ``device_<name>``,
``stack_<name>`` and ``admit_<name>`` is numeric where every value the key takes is a number
(``none`` is null), and ``string`` where it also takes words (``stack.split``: a share or
``dynamic``).

Tables and their columns, in order:

- :data:`ROWS`: a result row per run (``fcsim.run(...).rows``, ``run_grid``, ``fcsim run
  --out``), the row columns, then ``size`` and the seed columns, then every policy's, device's
  and stack's parameters; :func:`frame` puts one ``axis_<key>`` column per ``grid`` axis after
  them (``grid={"cflru.window": [...]}`` -> ``axis_cflru_window``, the value given).
- :data:`SWEEP`: a sweep's table, :data:`ROWS` and ``point``.
- :data:`EPOCHS`: the per-epoch table.
- :func:`summary_columns`: the seeds' summary.
- :data:`COMPARISON` and :data:`PANEL`: a fidelity report's rows and panel.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Column:
    """A column: its name, pandas dtype and one line on what it holds."""

    name: str
    dtype: str
    meaning: str


def _cols(dtype: str, text: str) -> list[Column]:
    """Columns of one dtype, from lines ``name: meaning``."""
    out = []
    for line in text.strip().splitlines():
        name, _, meaning = line.partition(":")
        out.append(Column(name.strip(), dtype, meaning.strip()))
    return out


I, F, S, B, L = "Int64", "Float64", "string", "boolean", "object"  # noqa: E741 (dtype names, short for the tables below)

# The row columns, in the core's order (fcsim.row.Row declares their Python types).
_ROW_SPEC: list[tuple[str, str, str]] = [
    ("trace", S, "the trace's file name, or its synth: spec"),
    ("format", S, "the trace's format"),
    ("policy", S, "the cache policy"),
    ("size_pages", I, "the cache size in pages (0 for policy none)"),
    ("page_size", I, "the page size in bytes"),
    ("device", S, "the device preset; null without a device"),
    ("device_state", S, "the drive's state when the run started (fresh, filled, aged 1x (seed 42))"),
    ("requests", I, "host requests measured"),
    ("accesses", I, "page accesses measured (reads and writes; trims are not accesses)"),
    ("reads", I, "read page accesses"),
    ("writes", I, "write page accesses"),
    ("hits", I, "page hits"),
    ("read_hits", I, "read page hits"),
    ("write_hits", I, "write page hits"),
    ("hit_ratio", F, "hits / accesses"),
    ("read_hit_ratio", F, "read hits / read accesses (RHR)"),
    ("insertions", I, "pages admitted to the cache"),
    ("evictions", I, "pages evicted"),
    ("dirty_evictions", I, "evicted pages that were dirty"),
    ("backing_reads", I, "pages read from what is below the cache"),
    ("backing_writes", I, "pages written to what is below the cache"),
    ("flash_page_reads", I, "flash pages read, GC copies included"),
    ("flash_page_writes", I, "flash pages programmed: host writes and GC copies"),
    ("gc_page_writes", I, "flash pages programmed by GC copies"),
    ("erasures", I, "blocks (or containers) erased"),
    ("write_amplification", F, "flash page writes / host page writes to the flash"),
    ("epbpd", F, "erasures per block per day of trace time; null where dwpd is (dwpd_null_reason)"),
    ("fue", F, "flash read hits / flash page writes"),
    ("resp_mean_us", F, "mean response time per host request, us"),
    ("resp_std_us", F, "standard deviation of the response time, us"),
    ("resp_p50_us", F, "median response time, us"),
    ("resp_p99_us", F, "99th percentile of the response time, us"),
    ("resp_p999_us", F, "99.9th percentile of the response time, us"),
    ("resp_max_us", F, "largest response time, us"),
    ("runtime_s", F, "sum of chip busy time, s (GASA's overall runtime)"),
    ("load_balance", F, "max chip busy / mean chip busy over the run"),
    ("sim_seconds", F, "wall time of the simulation loop, s"),
    ("requests_per_wall_s", F, "the simulator's speed: requests per wall-clock second of the loop"),
    ("bad_lines", I, "malformed trace lines skipped"),
    ("read_hits_dirty", I, "read hits on a dirty page"),
    ("write_hits_dirty", I, "write hits on a dirty page"),
    ("dirty_eviction_share", F, "dirty evictions / evictions"),
    ("time_scale", F, "sim.time_scale: multiplier of inter-arrival times"),
    ("queue_depth", I, "sim.queue_depth: outstanding requests of a closed loop (0: trace times)"),
    ("timing", S, "what times the run: trace, closed-loop or untimed-trace"),
    ("warmup", S, "sim.warmup as given; null without a warm-up"),
    ("warmup_requests", I, "host requests the warm-up left out"),
    ("warmup_s", F, "simulated seconds the warm-up left out"),
    ("epoch", S, "the epoch length as given (its table is beside the rows); null without one"),
    ("io_miss_ratio", F, "read and write requests with a page the cache stack missed / those requests"),
    ("byte_miss_ratio", F, "bytes of requests in pages the cache stack missed / bytes requested"),
    ("fcsim_version", S, "the fcsim version that made the row"),
    ("fcsim_revision", S, "the source revision fcsim was built from"),
    ("gc_page_reads", I, "flash pages read by GC copies"),
    ("host_page_writes", I, "flash pages written by the host (not GC)"),
    ("wear_min", I, "fewest erasures of a block"),
    ("wear_mean", F, "mean erasures per block"),
    ("wear_max", I, "most erasures of a block"),
    ("load_balance_p50", F, "median of max/mean chip busy per balance epoch"),
    ("load_balance_p90", F, "90th percentile of max/mean chip busy per balance epoch"),
    ("load_balance_epochs", I, "balance epochs counted in load_balance_p50 and _p90"),
    ("chip_busy_s", L, "busy seconds of each chip (a list)"),
    ("device_setup_s", F, "wall time of building and preconditioning the device, s"),
    ("duration_s", F, "first to last arrival, s"),
    ("device_physical_pages", I, "physical pages of the drive simulated"),
    ("device_user_pages", I, "user pages of the drive simulated"),
    ("device_op_actual", F, "physical / user pages - 1: the spare simulated"),
    ("flash_util_peak_1s", F, "busiest chip's peak offered load over a second"),
    ("flash_util_peak_60s", F, "busiest chip's peak offered load over a minute"),
    ("flash_queue_mean", F, "mean flash ops queued or in service, first arrival to last completion"),
    ("flash_queueing_ratio", F, "flash ops' wait behind earlier requests' work / their service"),
    ("saturated", B, "a chip or disk got more than a second's work in some second"),
    ("mostly_queueing", B, "a device's ops waited behind earlier requests longer than they were served"),
    ("drain_s", F, "from the last arrival to the last completion of arrival work, s"),
    ("throughput_iops", F, "host requests per simulated second (first arrival to last completion)"),
    ("throughput_mb_s", F, "page accesses x page size, MB (1e6 B) per simulated second"),
    (
        "flash_write_mb_s",
        F,
        "host page writes to the flash (a flash cache's programs), MB (1e6 B) per s",
    ),
    ("nand_write_mb_s", F, "flash page writes, GC copies included, MB (1e6 B) per s"),
    ("dwpd", F, "drive writes per day: host page writes to the flash / user pages / days"),
    ("nand_dwpd", F, "NAND drive writes per day: flash page writes (GC included) / user pages / days"),
    ("dwpd_null_reason", S, "why dwpd, the write rates and epbpd are null (no trace time)"),
    ("flush_pages", I, "pages the end-of-run flush wrote back (work done, not offered load)"),
    ("flush_s", F, "from the last arrival to the flush's last completion, s"),
    ("stack", S, "the stack: ssd-cache or offline-bounds; null for a DRAM buffer"),
    ("write_mode", S, "a flash cache's write mode: around, through or back"),
    ("admission", S, "a flash cache's admission policy (--admit; all: every miss may enter)"),
    ("budget_dwpd", F, "the write budget held by turning the admission's knob, drive writes per day"),
    (
        "achieved_dwpd",
        F,
        "the budget controller's rate: cache_writes per tier page per day of its clock (= dwpd on a timed "
        "trace with the drive sized to the cache)",
    ),
    ("peak_window_dwpd", F, "the busiest complete budget window's host writes, drive writes per day"),
    ("budget_floor_dwpd", F, "write hits (no admission can decline them), drive writes per day"),
    ("budget_unmeetable", B, "the budget cannot be met: write hits above it, or under one fill of the cache"),
    ("budget_unmeetable_reason", S, "why the budget cannot be met, with the numbers (null: it can)"),
    ("budget_windows", I, "budget windows closed (each turns the knob once)"),
    ("budget_knob", F, "the admission's knob at the end of a budgeted run"),
    ("cache_writes", I, "pages a flash cache programs (insertions and write hits)"),
    ("read_hit_flash_reads", I, "flash reads of cached pages by read hits"),
    ("invalidations", I, "cached pages dropped by write-around writes"),
    ("disk", S, "the disk model below a flash cache"),
    ("disks", I, "disks below a flash cache"),
    ("disk_reads", I, "pages read from the disks"),
    ("disk_writes", I, "pages written to the disks"),
    ("disk_accesses", I, "disk accesses (contiguous runs of pages)"),
    ("disk_busy_s", F, "sum of disk busy time, s"),
    ("disk_util_peak_1s", F, "busiest disk's peak offered load over a second"),
    ("disk_util_peak_60s", F, "busiest disk's peak offered load over a minute"),
    ("disk_queue_mean", F, "mean disk ops queued or in service, first arrival to last completion"),
    ("disk_queueing_ratio", F, "disk accesses' wait behind earlier requests' work / their service"),
    ("dt_mean_ms", F, "mean disk-head time (positioning + transfer) per disk access, ms"),
    ("peak_dt", F, "peak disk-head time: the most in one stack.dt_window_s window / its length"),
    ("dram_pages", I, "pages of the DRAM tier in front of a flash cache"),
    ("dram_accesses", I, "page accesses of the DRAM tier"),
    ("dram_hits", I, "hits of the DRAM tier"),
    ("dram_read_hits", I, "read hits of the DRAM tier"),
    ("split", S, "a split SSD's split: a spare share or dynamic"),
    ("ssd_physical_pages", I, "a split SSD's raw pages"),
    ("cache_pages", I, "a split SSD's cache pages at the end"),
    ("gc_victim_utilisation", F, "mean valid share of GC victims"),
    ("model_latency_us", F, "the split's cost model's predicted latency, us"),
    ("split_resizes", I, "times the dynamic split resized the cache"),
    ("split_trainings", I, "times the dynamic split trained its model"),
    ("split_u", L, "GC victim utilisation of each decision (a list)"),
    ("split_spares", L, "spare share chosen at each decision (a list)"),
    ("split_training", L, "training flag of each decision (a list)"),
    ("split_predicted_us", L, "predicted latency of each decision, us (a list)"),
    ("split_resp_mean_us", L, "mean response time of each window, us (a list)"),
    ("split_decisions", I, "decisions of the dynamic split"),
    ("split_stretch_requests", L, "requests of each stretch (a list)"),
    ("split_stretch_u", L, "GC victim utilisation of each stretch (a list)"),
    ("split_reached", L, "cache size reached at each decision (a list)"),
    ("split_pick_paper", L, "the paper rule's pick at each decision (a list)"),
    ("split_pick_request", L, "the per-request rule's pick at each decision (a list)"),
    ("split_train_requests", I, "requests spent training"),
    ("split_train_host_writes", I, "host writes while training"),
    ("split_train_writebacks", I, "write-backs while training"),
    ("split_train_time_s", F, "simulated seconds spent training"),
    ("epbpd_null_reason", S, "why epbpd is null (offline bounds)"),
    ("flash_read_hits", I, "read hits served from flash (offline bounds)"),
    ("buffer_hits", I, "reads served from the write buffer (offline bounds)"),
    ("container_pages", I, "pages per container"),
    ("containers", I, "containers of the flash cache"),
    ("write_buffer", I, "write buffer size in pages"),
    ("skipped_insertions", I, "insertions the bound declined"),
    ("mplus_read_hit_ratio", F, "M+'s read hit ratio on the same trace and flash"),
    ("mplus_erasures", I, "M+'s erasures on the same trace and flash"),
    ("queue_hits", I, "reads MIN's queue hits"),
    ("versions", I, "block versions created"),
    ("quota_erasures", F, "the erasure quota of m_t and c_t"),
    ("quota_unthrottled_erasures", I, "erasures without the quota"),
    ("quota_reuse", I, "R of the quota algorithm"),
    ("quota_leftover", I, "L of the quota algorithm"),
    ("quota_allowed", I, "I' of the quota algorithm"),
    ("quota_replays", I, "replays of the quota algorithm"),
    ("wasted_cf", I, "live blocks at GC whose next read would miss"),
    ("cf_dropped", I, "of those, not copied (CFR)"),
    ("cf_trimmed", I, "live blocks never read again, not copied (TRIM)"),
    ("evict_pending", I, "evictions pending at the end"),
    ("wfue_0.2", F, "WFUE at alpha 0.2 (offline bounds)"),
    ("wfue_0.8", F, "WFUE at alpha 0.8 (offline bounds)"),
    ("size", S, "the cache size as asked (pages, bytes or percent of the working set)"),
    ("seeds", I, "seeds its point ran (1 when nothing in it is random)"),
    ("seed_index", I, "0 to seeds - 1; index 0 is the run without seeds"),
    ("seeded", S, "each seeded component and its seed (empty when nothing is random)"),
]

# Each echoed parameter: its dtype and the keys it echoes (``<section>.<name>``).
_PARAM: dict[str, str] = {
    "bits": I,
    "budget": F,
    "bypass": B,
    "cfr": B,
    "divergent": F,
    "dwpd": F,
    "epbpd": F,
    "ghost": F,
    "gsmax": F,
    "gsmin": F,
    "hir": F,
    "hot": F,
    "kin": F,
    "kout": F,
    "lifetime": I,
    "n": I,
    "overwrite": S,
    "p": F,
    "packing": S,
    "points": I,
    "protected": F,
    "q_hit_demotes": B,
    "qout": I,
    "queues": I,
    "quota": S,
    "seed": I,
    "segments": I,
    "small": F,
    "stack": I,
    "threshold": F,
    "trim": B,
    "window": F,
    "writes": S,
}
_DEVICE: dict[str, str] = {
    "channels": I,
    "chips_per_channel": I,
    "dies": I,
    "planes": I,
    "blocks": I,
    "pages_per_block": I,
    "op": F,
    "reserve": S,
    "gc": S,
    "gc_threshold": F,
    "placement": S,
    "read_us": F,
    "write_us": F,
    "erase_us": F,
    "xfer_us": F,
    "dram_us": F,
    "balance_epoch_ms": F,
    "eviction": S,
    "fill": F,
    "fill_order": S,
    "steady": F,
    "seed": I,
    "capacity": S,
    "physical": S,
}
_STACK: dict[str, str] = {
    "kind": S,
    "write": S,
    "dram": F,
    "admit": S,
    "disk": S,
    "disk_ms": F,
    "dt_window_s": F,
    "disks": S,
    "stripe": S,
    "split": S,
    "initial": F,
    "window": F,
    "train": F,
    "retrain": F,
    "mrc": S,
    "settle": F,
    "training": S,
    "u": S,
    "rule": S,
    "shrink": S,
    "buffer": F,
    "buffer_in": S,
}

#: Each admission parameter (``admit.KEY``, see ``fcsim admissions``): its dtype.
_ADMIT: dict[str, str] = {
    "budget": F,
    "budget_mbps": F,
    "depth": I,
    "length": F,
    "ghost": S,
    "k": I,
    "level": F,
    "p": F,
    "sample": F,
    "seed": I,
    "share": F,
    "slack": F,
    "train": F,
    "trees": I,
    "width": F,
    "window": F,
    "writes": F,
}

ECHO: list[Column] = (
    [Column(f"param_{k}", t, f"the policy's {k} parameter (POLICY.{k})") for k, t in sorted(_PARAM.items())]
    + [Column(f"device_{k}", t, f"device.{k} as the device used it") for k, t in _DEVICE.items()]
    + [Column(f"stack_{k}", t, f"stack.{k} as the stack used it") for k, t in _STACK.items()]
    + [Column(f"admit_{k}", t, f"admit.{k} as the admission used it") for k, t in sorted(_ADMIT.items())]
)

#: A result row's columns (see the module's doc).
ROWS: list[Column] = [Column(n, t, m) for n, t, m in _ROW_SPEC] + ECHO
#: A sweep's table: the rows and each row's point (its key in the table).
SWEEP: list[Column] = [*ROWS, Column("point", S, "the point's key in a sweep's table (JSON)")]

#: The per-epoch table's columns.
EPOCHS: list[Column] = [
    *_cols(S, "trace: the run's trace\npolicy: the run's policy"),
    Column("size_pages", I, "the run's cache size in pages"),
    Column("device", S, "the run's device preset"),
    Column("admission", S, "the run's admission (a flash cache's; null for a DRAM buffer)"),
    Column("time_scale", F, "the run's sim.time_scale"),
    Column("queue_depth", I, "the run's sim.queue_depth"),
    Column("seed_index", I, "the run's seed index (0 without seeds)"),
    Column("epoch", I, "the epoch's index from 0"),
    *_cols(F, "start_s: simulated seconds after the first request\nend_s: end of the epoch, s"),
    *_cols(
        I,
        """requests: host requests of the epoch
accesses: page accesses
reads: read page accesses
writes: write page accesses
hits: page hits
read_hits: read page hits
write_hits: write page hits
misses: page misses""",
    ),
    Column("hit_ratio", F, "hits / accesses"),
    Column("read_hit_ratio", F, "read hits / reads (a flash cache's measure)"),
    *_cols(
        I,
        """dirty_evictions: evicted dirty pages
backing_reads: pages read from below the cache
backing_writes: pages written below the cache
host_page_reads: flash pages read by the host
host_page_writes: flash pages written by the host
flash_page_writes: flash pages programmed (host + GC)
gc_page_writes: flash pages programmed by GC copies
erasures: blocks erased""",
    ),
    *_cols(
        F,
        """resp_mean_us: mean response time, us
resp_p99_us: 99th percentile of the response time, us
flash_queue_mean: mean flash ops queued or in service
disk_queue_mean: mean disk ops queued or in service
drain_s: from the epoch's last arrival to its last completion, s
flash_busy_s: chip busy seconds
disk_busy_s: disk busy seconds
flash_offered_load: work submitted per chip over the epoch's length
disk_offered_load: work submitted per disk over the epoch's length
flash_util_peak_1s: busiest chip's busiest aligned second
disk_util_peak_1s: busiest disk's busiest aligned second""",
    ),
]

#: A fidelity report's rows (``fcsim.compare(...).rows``).
COMPARISON: list[Column] = [
    *_cols(S, "measure: the measure's name\ndescription: what it measures"),
    *_cols(F, "a: A's value\nb: B's value\ndifference: b - a\nratio: b / a"),
    Column("tolerance", S, "the tolerance, as text"),
    Column("bound", F, "the tolerance's bound on the score"),
    Column("tolerance_from", S, "the half of A that set it: H1 or H2"),
    *_cols(F, "h1: the first half's score\nh2: the second half's score\nscore: B's score"),
    *_cols(S, "status: pass, fail, untestable or empty\nnote: why"),
    *_cols(F, "baseline: the naive baseline's value\nbaseline_score: the baseline's score"),
    Column("baseline_status", S, "the baseline's status"),
]
#: A fidelity report's panel (``fcsim.compare(...).panel``).
PANEL: list[Column] = [
    Column("policy", S, "the panel's policy"),
    Column("share", F, "the cache size as a share of the working set"),
    *_cols(
        F,
        """a: hit ratio on A
h1: hit ratio on A's first half
h2: hit ratio on A's second half
b: hit ratio on B
baseline: hit ratio on the naive baseline""",
    ),
]
#: A fidelity report over seeds of B (``fcsim.compare(..., seeds=N).over_seeds``): each
#: measure's score and status on each seed index.
OVER_SEEDS: list[Column] = [
    Column("seed_index", I, "the seed index: B's seed is its spec's seed plus it"),
    Column("b_spec", S, "B at this seed index (its spec, the seed= key set)"),
    Column("measure", S, "the measure's name"),
    *_cols(F, "b: B's value\nscore: B's score\nbound: the tolerance's bound on the score"),
    Column("status", S, "pass, fail, untestable or empty"),
]

#: Columns of :data:`ROWS` that say what was run, not what it measured (never summarised).
IDENTITY = {
    "size_pages",
    "page_size",
    "seed_index",
    "seeds",
    "requests",
    "accesses",
    "reads",
    "writes",
    "time_scale",
    "queue_depth",
    "warmup_requests",
    "point",
}
_ECHO_PREFIXES = ("param_", "device_", "stack_", "admit_")


def metrics(columns: Sequence[Column] = ROWS) -> list[str]:
    """The numeric columns that measure a run (not its configuration), which the seeds'
    summary gives a mean and an interval for."""
    echo = {c.name for c in ECHO}
    return [
        c.name
        for c in columns
        if c.dtype in (I, F) and c.name not in IDENTITY and c.name not in echo and c.name != "seed_index"
    ]


def summary_columns(by: Sequence[Column]) -> list[Column]:
    """The seeds' summary: the point's columns ``by``, ``seeds``, each metric's mean ``M``
    (Float64) and ``M_ci95``, then every other row column (null where the seeds differ)."""
    out = [*by, Column("seeds", I, "seeds summarised")]
    taken = {c.name for c in out}
    for m in metrics():
        if m not in taken:
            out.append(Column(m, F, f"mean of {m} over the seeds"))
            out.append(Column(f"{m}_ci95", F, f"half-width of the 95% confidence interval of {m}'s mean"))
            taken |= {m, f"{m}_ci95"}
    out += [c for c in ROWS if c.name not in taken and c.name not in ("seed_index", "seeded")]
    return out


def axis_name(key: str) -> str:
    """The column of a ``grid`` axis: ``axis_`` and its key, each run of characters that
    cannot be in a name (``.``, ``-``, ``+``) as ``_`` (``cflru.window`` -> ``axis_cflru_window``)."""
    return "axis_" + re.sub(r"\W+", "_", key).strip("_")


_TRUE = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}


def _cast(values: pd.Series, dtype: str, name: str) -> pd.Series:
    """``values`` as ``dtype``: text numbers parsed (``none`` and empty text are null), text
    booleans read, lists kept."""
    if dtype == L:
        return values.astype(object)
    if dtype == S:
        return values.map(lambda v: v if v is None or isinstance(v, str) or pd.isna(v) else str(v)).astype(S)
    if dtype == B:
        return values.map(
            lambda v: pd.NA if v is None or (isinstance(v, float) and pd.isna(v)) else _bool(v, name)
        ).astype(B)
    numbers = pd.to_numeric(values.map(lambda v: _number(v, name)), errors="raise")
    if dtype == I:
        return numbers.astype("Float64").astype(I) if numbers.dtype.kind == "f" else numbers.astype(I)
    return numbers.astype(F)


def _bool(v: Any, name: str) -> Any:
    if isinstance(v, bool) or v is pd.NA:
        return v
    if isinstance(v, np.bool_):  # a cell taken out of a boolean column (a summary's agreed value)
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in _TRUE:
        return _TRUE[v.strip().lower()]
    raise ValueError(f"column {name}: {v!r} is not a boolean")


def _number(v: Any, name: str) -> Any:
    if isinstance(v, str):
        t = v.strip().lower()
        if t in ("", "none", "null"):
            return None
        try:
            return float(t) if any(c in t for c in ".eEn") else int(t)
        except ValueError:
            raise ValueError(f"column {name}: {v!r} is not a number") from None
    if isinstance(v, bool):
        return int(v)
    return v


def _axis_dtype(values: pd.Series) -> str:
    """An axis column's dtype: Int64 or Float64 when every value is a number, else string."""
    given = [v for v in values if v is not None and not (isinstance(v, float) and pd.isna(v))]
    if given and all(isinstance(v, int | float) and not isinstance(v, bool) for v in given):
        return I if all(float(v).is_integer() and not isinstance(v, float) for v in given) else F
    return S


#: Columns renamed since tables were first written: old name -> new. :func:`frame` and
#: :func:`renamed` read an old table under the new names.
RENAMED = {"requests_per_s": "requests_per_wall_s"}


def renamed(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with each old column of :data:`RENAMED` under its new name (a table written
    before the rename; where rows of both kinds meet, as in a resumed sweep, one column)."""
    old = [a for a in RENAMED if a in df.columns]
    if not old:
        return df
    df = df.copy()
    for a in old:
        b = RENAMED[a]
        df[b] = df[a] if b not in df.columns else df[b].where(df[b].notna(), df[a])
    return df.drop(columns=old)


def frame(
    records: Iterable[Mapping[str, Any]] | pd.DataFrame,
    columns: Sequence[Column] = ROWS,
    axes: Sequence[str] = (),
) -> pd.DataFrame:
    """A table of ``records`` (dicts, or a DataFrame) with exactly ``columns`` in order, each
    of its dtype (a column no record has is all null), then one ``axis_<key>`` column per key
    of ``axes`` (each record holding that key with the value given). ValueError for a record
    column outside ``columns`` and ``axes``: the schema is incomplete."""
    df = renamed(records if isinstance(records, pd.DataFrame) else pd.DataFrame(list(records)))
    names = [c.name for c in columns]
    stray = [c for c in df.columns if c not in names and c not in axes]
    if stray:
        raise ValueError(f"columns outside fcsim.schema: {', '.join(map(str, stray))}")
    out = {}
    for c in columns:
        if c.name in df.columns:
            out[c.name] = _cast(df[c.name].astype(object).where(df[c.name].notna(), None), c.dtype, c.name)
        else:
            out[c.name] = pd.Series([None] * len(df), index=df.index, dtype=object).pipe(
                _cast, c.dtype, c.name
            )
    for key in axes:
        values = df[key] if key in df.columns else pd.Series([None] * len(df), index=df.index, dtype=object)
        out[axis_name(key)] = _cast(values.astype(object), _axis_dtype(values), key)
    result = pd.DataFrame(out, index=df.index).reset_index(drop=True)
    result.attrs.update(df.attrs)
    return result


def summary_frame(summary: pd.DataFrame, by: Sequence[str], rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`fcsim.seeds.summarize`'s table of ``rows`` (a table of :func:`frame`) by the
    columns ``by``, with the columns of :func:`summary_columns` (``by`` of their dtype in
    ``rows``)."""
    known = {c.name: c for c in ROWS}
    keys = [known.get(b, Column(b, _dtype_name(rows[b]), "a grid axis")) for b in by]
    return frame(summary, summary_columns(keys))


def _dtype_name(s: pd.Series) -> str:
    return {"Int64": I, "Float64": F, "boolean": B}.get(str(s.dtype), S)


def markdown(columns: Sequence[Column] = ROWS) -> str:
    """The README's table of ``columns``: one line each, name, dtype and meaning."""
    lines = ["| column | dtype | what |", "|---|---|---|"]
    lines += [f"| `{c.name}` | {c.dtype} | {c.meaning} |" for c in columns]
    return "\n".join(lines) + "\n"


def untyped(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as result tables were before this schema, for code written against them (the
    paper reports): a column that no row has is dropped, nullable dtypes are numpy's (NaN for
    null; ``string`` and ``boolean`` as ``object``), and an echoed configuration
    (``param_*``, ``device_*``, ``stack_*``, ``admit_*``) is text again, as the core wrote it."""
    echo = {c.name for c in ECHO}
    out = {}
    for name in df.columns:
        s = df[name]
        if s.isna().all():
            continue
        if name in echo:
            out[name] = s.astype(object).map(lambda v: None if pd.isna(v) else _text(v))
        elif str(s.dtype) in (I, F):
            out[name] = s.astype("float64") if s.isna().any() or str(s.dtype) == F else s.astype("int64")
        elif str(s.dtype) in (S, B):
            out[name] = s.astype(object).where(s.notna(), None)
        else:
            out[name] = s
    result = pd.DataFrame(out, index=df.index)
    result.attrs.update(df.attrs)
    return result


def _text(v: Any) -> str:
    """A configuration value as the core echoes it: ``0.1``, ``4`` (not ``4.0``), ``true``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
