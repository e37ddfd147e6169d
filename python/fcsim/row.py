"""The columns of a result row, declared (issue 45): ``row.hit_ratio`` is a ``float`` to a type
checker and an IDE, and ``row.hit_ratoi`` an error. A leaf: it imports nothing of fcsim.

:class:`Row` declares every column a row of :func:`fcsim.simulate` may have, in the core's
order, with the type of its value; ``| None`` where the column is null when it does not apply
(``resp_mean_us`` without a device). The groups after ``fcsim_revision`` (a device's, a flash
cache's, a split SSD's, an offline bound's) are present only in rows of that kind of run (see
the README's "Result rows"): such a column read from another kind of row raises
AttributeError. Columns whose names are not identifiers (``wfue_0.2``) and those that echo a
configuration (``param_<name>``, ``device_<name>``, ``stack_<name>``) are read by key:
``row["param_window"]``. ``tests/test_api_tables.py`` checks the declarations against the rows
of representative runs, both ways, and each value against its declared type.
"""

from __future__ import annotations


class Row:
    """The declared columns of a result row (annotations only: the values are the row's)."""

    trace: str
    format: str
    policy: str
    size_pages: int
    page_size: int
    device: str | None
    device_state: str | None
    requests: int
    accesses: int
    reads: int
    writes: int
    hits: int
    read_hits: int
    write_hits: int
    hit_ratio: float
    read_hit_ratio: float
    insertions: int
    evictions: int
    dirty_evictions: int
    backing_reads: int
    backing_writes: int
    flash_page_reads: int | None
    flash_page_writes: int | None
    gc_page_writes: int | None
    erasures: int | None
    write_amplification: float | None
    epbpd: float | None
    fue: float | None
    resp_mean_us: float | None
    resp_std_us: float | None
    resp_p50_us: float | None
    resp_p99_us: float | None
    resp_p999_us: float | None
    resp_max_us: float | None
    runtime_s: float | None
    load_balance: float | None
    sim_seconds: float
    requests_per_wall_s: float
    bad_lines: int
    read_hits_dirty: int
    write_hits_dirty: int
    dirty_eviction_share: float | None
    time_scale: float
    queue_depth: int
    timing: str
    warmup: str | None
    warmup_requests: int | None
    warmup_s: float | None
    epoch: str | None
    io_miss_ratio: float | None
    byte_miss_ratio: float | None
    fcsim_version: str
    fcsim_revision: str
    gc_page_reads: int
    host_page_writes: int
    wear_min: int
    wear_mean: float
    wear_max: int
    load_balance_p50: float | None
    load_balance_p90: float | None
    load_balance_epochs: int | None
    chip_busy_s: list[float]
    device_setup_s: float
    duration_s: float | None
    device_physical_pages: int
    device_user_pages: int
    device_op_actual: float
    flash_util_peak_1s: float | None
    flash_util_peak_60s: float | None
    flash_queue_mean: float | None
    flash_queueing_ratio: float | None
    saturated: bool | None
    mostly_queueing: bool | None
    drain_s: float | None
    throughput_iops: float | None
    throughput_mb_s: float | None
    flash_write_mb_s: float | None
    nand_write_mb_s: float | None
    dwpd: float | None
    nand_dwpd: float | None
    dwpd_null_reason: str | None
    flush_pages: int
    flush_s: float | None
    stack: str
    write_mode: str
    admission: str
    cache_writes: int
    read_hit_flash_reads: int
    invalidations: int
    disk: str
    disks: int
    disk_reads: int
    disk_writes: int
    disk_accesses: int
    disk_busy_s: float
    disk_util_peak_1s: float | None
    disk_util_peak_60s: float | None
    disk_queue_mean: float | None
    disk_queueing_ratio: float | None
    dt_mean_ms: float | None
    peak_dt: float | None
    dram_pages: int
    dram_accesses: int
    dram_hits: int
    dram_read_hits: int
    split: str
    ssd_physical_pages: int
    cache_pages: int
    gc_victim_utilisation: float
    model_latency_us: float
    split_resizes: int
    split_trainings: int
    split_u: list[float]
    split_spares: list[float]
    split_training: list[float]
    split_predicted_us: list[float]
    split_resp_mean_us: list[float]
    split_decisions: int
    split_stretch_requests: list[float]
    split_stretch_u: list[float]
    split_reached: list[float]
    split_pick_paper: list[float]
    split_pick_request: list[float]
    split_train_requests: int
    split_train_host_writes: int
    split_train_writebacks: int
    split_train_time_s: float
    epbpd_null_reason: str
    flash_read_hits: int
    buffer_hits: int
    container_pages: int
    containers: int
    write_buffer: int
    skipped_insertions: int
    mplus_read_hit_ratio: float
    mplus_erasures: int
    queue_hits: int
    versions: int
    quota_erasures: float
    quota_unthrottled_erasures: int
    quota_reuse: int
    quota_leftover: int
    quota_allowed: int
    quota_replays: int
    wasted_cf: int
    cf_dropped: int
    cf_trimmed: int
    evict_pending: int
