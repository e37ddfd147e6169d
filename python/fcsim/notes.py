"""What a table of result rows needs said beside it, one line each, for ``fcsim run``, ``sweep``
and ``reproduce`` to print on stderr: rows timed without arrival times, rows whose devices were
saturated (their response times are queueing, not service), rows that were not but queued mostly
behind bursts shorter than a second (``mostly_queueing``), closed-loop rows (saturated by
construction, :func:`saturation`), and rows whose flash drive has more
spare space than ``device.op`` asked for (a geometry set too coarse for a small cache's GC reserve),
and rows whose flash drive never filled (no erasure: GC never ran, so write amplification 1 and
the response of a drive that never collects garbage; :func:`never_filled`)."""

from __future__ import annotations

import json

import pandas as pd

#: Rows named in one line at most; the rest are counted.
NAMED = 6


def axis_key(column: str) -> str:
    """The ``--set`` key an axis column names, as its name gives it back: the prefix dropped and
    its first ``_`` a dot (``axis_stack_disks`` -> ``stack.disks``; a key with ``-`` or ``+``
    reads with ``_`` there, :func:`fcsim.schema.axis_name` having replaced them)."""
    return column.removeprefix("axis_").replace("_", ".", 1)


def named_admissions(df: pd.DataFrame) -> bool:
    """Whether a table's rows name an admission other than the default, ``all``: the tables,
    figures and warnings then name each row's, which would otherwise tell it from no other."""
    a = df.get("admission")
    return a is not None and bool(a.notna().any()) and bool(a.ne("all").any())


#: ``--set`` keys a row's name gives in its own words (admission, time scale), not as ``KEY=VALUE``.
_SAID = {"stack.admit", "sim.time_scale"}


def _sets(point: object) -> dict[str, object]:
    """A sweep row's ``--set`` keys, from its ``point``; empty for a row of no sweep."""
    if not isinstance(point, str):
        return {}
    try:
        sets = json.loads(point).get("set", {})
    except (ValueError, AttributeError):
        return {}
    return sets if isinstance(sets, dict) else {}


def varying_sets(df: pd.DataFrame) -> list[str]:
    """The ``--set`` keys of a sweep's points (``point``) whose values differ between its rows:
    a sweep's grid has no axis columns, so a row's name gives these."""
    if "point" not in df.columns:
        return []
    every = [_sets(p) for p in df["point"]]
    keys = {k for sets in every for k in sets} - _SAID
    return sorted(k for k in keys if len({json.dumps(sets.get(k)) for sets in every}) > 1)


def _label(r: pd.Series, keys: list[str] | tuple[str, ...] = ()) -> str:
    """A row as a line names it: trace, policy and size, then what else tells it from the rows
    beside it (an admission other than ``all``, its device, each ``--set`` axis or, for a sweep's
    row, each of ``keys`` its point sets (:func:`varying_sets`), its admission's knob or write
    budget when no axis names it, the time scale it ran at when not 1, its seed index when its
    point ran several)."""
    label = f"{r['trace']} {r['policy']} {r['size_pages']} pages"
    if pd.notna(r.get("admission")) and r["admission"] != "all":
        label += f" admitting {r['admission']}"
    if pd.notna(r.get("device")):
        label += f" on {r['device']}"
    axes = [c for c in r.index if c.startswith("axis_")]
    for col in axes:
        if pd.notna(r[col]):
            label += f", {axis_key(col)}={r[col]}"
    sets = _sets(r.get("point")) if keys else {}
    for k in keys:
        if k in sets:
            label += f", {k}={sets[k]}"
    # The admission's knob or write budget (a pareto point's), when no axis column names it.
    knob = r.get("knob")
    knob_named = f"admit.{knob}" in sets or pd.notna(r.get(f"axis_admit_{knob}"))
    budget_named = "admit.budget" in sets or pd.notna(r.get("axis_admit_budget"))
    if pd.notna(r.get("knob_value")) and pd.notna(knob):
        label += "" if knob_named else f", admit.{knob}={float(r['knob_value']):g}"
    elif pd.notna(r.get("budget_dwpd")) and not budget_named:
        label += f", admit.budget={float(r['budget_dwpd']):g}"
    # The load it ran under, when not the trace's own (a sweep's grid has no axis columns).
    if "axis_sim_time_scale" not in axes and pd.notna(r.get("time_scale")) and r["time_scale"] != 1:
        label += f", sim.time_scale={r['time_scale']:g}"
    if pd.notna(r.get("seeds")) and r["seeds"] > 1 and pd.notna(r.get("seed_index")):
        label += f", seed index {r['seed_index']}"
    return label


def _names(rows: pd.DataFrame, detail: object, keys: list[str] | tuple[str, ...] = ()) -> str:
    shown = [f"{_label(r, keys)}{detail(r)}" for _, r in rows.head(NAMED).iterrows()]  # type: ignore[operator]
    more = len(rows) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def peaks(r: object) -> str:
    """A row's busiest second on each saturated device, `` (disk 1.26x)``; empty if none."""
    parts = []
    for device in ("flash", "disk"):
        peak = getattr(r, f"{device}_util_peak_1s", None)
        if peak is not None and not pd.isna(peak) and peak > 1:
            parts.append(f"{device} {peak:.3g}x")
    return f" ({', '.join(parts)})" if parts else ""


def queueing(r: object) -> str:
    """A row's wait behind earlier requests over service on each device that queued mostly,
    `` (disk waited 13.5x its service)``; empty if none."""
    parts = []
    for device in ("flash", "disk"):
        ratio = getattr(r, f"{device}_queueing_ratio", None)
        if ratio is not None and not pd.isna(ratio) and ratio > 1:
            parts.append(f"{device} waited {ratio:.3g}x its service")
    return f" ({', '.join(parts)})" if parts else ""


def more_spare(df: pd.DataFrame) -> pd.Series:
    """The rows whose simulated drive has more spare than their own ``device.op`` asked for
    (``device_op_actual`` over ``device_op`` by more than 0.01); False where either is missing."""
    if "device_op_actual" not in df.columns or "device_op" not in df.columns:
        return pd.Series(False, index=df.index)
    op = pd.to_numeric(df["device_op"], errors="coerce")
    return (df["device_op_actual"] - op > 0.01).fillna(False).astype(bool)


def _spare(r: pd.Series) -> str:
    return f" ({float(r['device_op_actual']):.3g} for {r['device_op']})"


#: :func:`saturation`'s labels: an open loop's queue that grew with the run, an open loop's
#: queueing behind bursts shorter than a second, and a closed loop.
QUEUE = "queue"
BURST = "burst"
CLOSED = "closed-loop"


def closed_loop(df: pd.DataFrame) -> pd.Series:
    """Whether each row ran timed as a closed loop (``timing`` = ``closed-loop``, or
    ``queue_depth`` > 0 in a table without ``timing``) with a device that timed it."""
    if "timing" in df.columns:
        closed = df["timing"].eq("closed-loop")
    elif "queue_depth" in df.columns:
        closed = pd.to_numeric(df["queue_depth"], errors="coerce").fillna(0) > 0
    else:
        return pd.Series(False, index=df.index)
    timed = df["resp_mean_us"].notna() if "resp_mean_us" in df.columns else pd.Series(True, index=df.index)
    return closed & timed


def saturation(df: pd.DataFrame) -> pd.Series:
    """Each row's saturation, as figures and notes say it: :data:`QUEUE` when it ran at the
    trace's times and some server was offered more than a second's work in some second
    (``saturated`` true: a queue, and the response, grew with the run); :data:`CLOSED` for a closed
    loop, saturated by construction (``sim.queue_depth`` requests outstanding at every instant:
    the response is the depth over the throughput and does not grow with the run; a closed-loop
    row made before fcsim said so has ``saturated`` null, and is read the same); :data:`BURST`
    when not saturated but ``mostly_queueing``: its ops waited behind earlier requests' work
    longer than they were served, in bursts shorter than a second (the queue drains within the
    second, so it does not grow with the run); ``""`` when neither; None when unknown (no
    ``saturated`` column, or null: no device, no times)."""
    out = pd.Series(None, index=df.index, dtype=object)
    if "saturated" in df.columns:
        s = df["saturated"]
        out[s.eq(False).fillna(False).astype(bool)] = ""  # (a nullable boolean column gives NA)
        if "mostly_queueing" in df.columns:
            q = df["mostly_queueing"].eq(True).fillna(False).astype(bool)
            out[s.eq(False).fillna(False).astype(bool) & q] = BURST
        out[s.eq(True).fillna(False).astype(bool)] = QUEUE
    out[closed_loop(df)] = CLOSED
    return out


def never_filled(df: pd.DataFrame) -> pd.Series:
    """Whether each row's flash drive was written to but erased no block: the run wrote less than
    the drive's free space, so garbage collection never ran (``write_amplification`` 1,
    ``erasures`` 0, and response times of a drive that never collects garbage)."""
    if "erasures" not in df.columns or "device" not in df.columns:
        return pd.Series(False, index=df.index)
    writes = "flash_page_writes" if "flash_page_writes" in df.columns else "erasures"
    erasures = pd.to_numeric(df["erasures"], errors="coerce")
    written = pd.to_numeric(df[writes], errors="coerce") > 0
    return (df["device"].notna() & erasures.eq(0) & written).fillna(False).astype(bool)


def row_notes(df: pd.DataFrame) -> list[str]:
    """The lines to print beside ``df`` (empty when nothing needs saying)."""
    keys = varying_sets(df)

    def names(rows: pd.DataFrame, detail: object) -> str:
        return _names(rows, detail, keys)

    lines = []
    if "timing" in df.columns and "device" in df.columns:
        rows = df[(df["timing"] == "untimed-trace") & df["device"].notna()]
        for trace in dict.fromkeys(rows["trace"]):
            lines.append(
                f"fcsim: note: {trace} has no timestamps, so response times, EPBPD, DWPD and per-epoch "
                "loads are null (timing=untimed-trace); --set sim.queue_depth=N times it as a closed loop of "
                "N outstanding requests, which gives response times at the system's own pace (EPBPD and "
                "DWPD, rates per day of the trace's time, stay null)"
            )
    if "budget_unmeetable" in df.columns:
        rows = df[df["budget_unmeetable"].fillna(False).astype(bool)]
        if len(rows):
            lines.append(
                f"fcsim: warning: {len(rows)} row(s) cannot meet their write budget (budget_unmeetable=true; "
                "why, with the numbers, in brackets as budget_unmeetable_reason gives it: write hits, which "
                "update the cached copy in a write-through or write-back flash cache whatever the admission, "
                "above admit.budget; or less than one fill, a budget over the run's span smaller than the "
                f"cache, which no cache in use can stay within): {names(rows, _budget)}"
            )
    if {"budget_dwpd", "achieved_dwpd", "budget_unmeetable"} <= set(df.columns):
        # A budget the run could meet but did not: the controller's rate over the run more than
        # 10% above the target (the knob at its range's end, or a debt never paid back).
        target = pd.to_numeric(df["budget_dwpd"], errors="coerce")
        missed = (pd.to_numeric(df["achieved_dwpd"], errors="coerce") > MISSED * target).fillna(False)
        rows = df[missed.astype(bool) & ~df["budget_unmeetable"].fillna(False).astype(bool)]
        if len(rows):
            lines.append(
                f"fcsim: warning: {len(rows)} row(s) missed their write budget by more than "
                f"{MISSED - 1:.0%} (achieved_dwpd for budget_dwpd in brackets; budget_knob is where the "
                "controller left the knob, peak_window_dwpd its busiest window: a burst before the "
                "controller turned the knob is a debt paid back over later windows), though it was not "
                f"unmeetable: {names(rows, _missed)}"
            )
    sat = saturation(df)
    if "saturated" in df.columns:
        rows = df[sat.eq(QUEUE)]
        if len(rows):
            lines.append(
                f"fcsim: warning: {len(rows)} row(s) saturated: more work arrived at a flash chip or disk in "
                "some second than it can do in a second (peak offered load per second in brackets), so their "
                f"response times are mostly queueing (saturated=true): {names(rows, peaks)}"
            )
    rows = df[sat.eq(BURST)]
    if len(rows):
        lines.append(
            f"fcsim: warning: {len(rows)} row(s) queued mostly behind bursts shorter than a second: no "
            "device was offered more than a second's work in any second, but their ops waited behind "
            "earlier requests' work longer than they were served (wait over service in brackets), so "
            f"their response times are mostly queueing (mostly_queueing=true): {names(rows, queueing)}"
        )
    closed = df[sat.eq(CLOSED)]
    if len(closed):
        lines.append(
            f"fcsim: note: {len(closed)} closed-loop row(s) are saturated by construction: "
            "sim.queue_depth requests are outstanding at every instant, so the devices never run out of "
            "work and the mean response is the depth over the throughput (Little's law); unlike an open "
            "loop's, it does not grow with the run"
        )
    if "device_op_actual" in df.columns and "device_op" in df.columns:
        off = more_spare(df)
        extra = off & False
        if "device_reserve" in df.columns:
            extra = df["device_reserve"].eq("extra").fillna(False).astype(bool)
        rows = df[off & ~extra]
        if len(rows):
            lines.append(
                f"fcsim: note: {len(rows)} row(s) simulate more flash spare than device.op (device_op_actual "
                "for device_op in brackets): the geometry set (device.pages_per_block, planes, dies, chips, "
                "channels) is too coarse for a drive this small once each plane keeps its GC reserve and an "
                f"open block; left to fcsim, the geometry is sized to the drive: "
                f"{names(rows, _spare)}"
            )
        rows = df[off & extra]
        if len(rows):
            lines.append(
                f"fcsim: note: {len(rows)} row(s) keep the GC reserve and open blocks on top of device.op "
                "(device.reserve=extra, the offline bounds' default), so they simulate more spare "
                f"(device_op_actual for device_op in brackets): {names(rows, _spare)}"
            )
    never = never_filled(df)
    cache = never & False  # a flash cache (over a disk, or the offline bounds'): it starts empty
    if "stack" in df.columns:
        cache = df["stack"].isin(["ssd-cache", "offline-bounds"]).fillna(False).astype(bool)
    for rows, how in (
        (
            df[never & ~cache],
            "--set device.steady=1 ages the drive (fills it, then overwrites its user capacity once at "
            "random) before the run, as a drive in service is",
        ),
        (
            df[never & cache],
            "a flash cache's medium collects garbage once the cache has programmed more than its spare "
            "space: a longer trace, or a smaller --set device.op",
        ),
    ):
        if len(rows):
            who = "every row" if len(rows) == len(df) else f"{len(rows)} row(s)"
            lines.append(
                f"fcsim: note: {who} erased no flash block: the run wrote less than the drive's free space, "
                "so garbage collection never ran (erasures 0, write amplification 1, response times of a "
                f"drive that never collects garbage); {how}"
                + ("" if len(rows) == len(df) else f": {names(rows, _state)}")
            )
    return lines


#: How far over its target a budgeted row's rate may end before a warning says it missed it.
MISSED = 1.1


def _missed(r: pd.Series) -> str:
    achieved, budget, knob = (float(r[c]) for c in ("achieved_dwpd", "budget_dwpd", "budget_knob"))
    peak = r.get("peak_window_dwpd")
    busiest = f", busiest window {float(peak):.4g}" if peak is not None and pd.notna(peak) else ""
    return f" ({achieved:.4g} for {budget:.4g}, knob {knob:.4g}{busiest})"


def _budget(r: object) -> str:
    why = getattr(r, "budget_unmeetable_reason", None)
    if isinstance(why, str) and why:
        return f" ({why})"
    return f" ({r.budget_floor_dwpd:.3g} > {r.budget_dwpd:.3g})"  # type: ignore[attr-defined]


def _state(r: object) -> str:
    state = getattr(r, "device_state", None)
    return f" ({state})" if state is not None and not pd.isna(state) else ""
