"""One run: :func:`simulate` and :func:`check`, whose configuration crosses to the core once
(the ``--set`` map whole: the core splits it by section and parses it), and the result row.

Below the grid engine (:mod:`fcsim.grid`), which runs a grid's points through it.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from fcsim import _core, catalogue, schema
from fcsim._core import ConfigError
from fcsim.checks import (
    U64_MAX,
    boolean,
    callback,
    integer,
    path,
    sets,
    size_text,
    stray_policy_keys,
    text,
    with_admission,
)
from fcsim.row import Row

Progress = Callable[[int, int], object]


class Result(dict[str, Any], Row):
    """One result row: a dict whose columns are also attributes (``row.hit_ratio``), each
    declared with its type (:class:`fcsim.row.Row`), so that a type checker or an IDE knows
    ``row.hit_ratio`` and refuses ``row.hit_ratoi``.

    ``epochs`` is the run's per-epoch table (a DataFrame, one row per epoch) when it was
    simulated with ``epoch=``, else None; it is not a column of the row."""

    epochs: pd.DataFrame | None

    def __init__(self, *args: Any, epochs: pd.DataFrame | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.epochs = epochs

    if not TYPE_CHECKING:  # to a type checker, the declared columns are the attributes

        def __getattr__(self, name: str) -> Any:
            try:
                return self[name]
            except KeyError:
                near = difflib.get_close_matches(name, [k for k in self if k.isidentifier()], 1)
                hint = f"; did you mean '{near[0]}'?" if near else ""
                raise AttributeError(f"the row has no column '{name}'{hint}") from None


#: fcsim's version and the source revision it was built from (``unknown`` for a build outside
#: a git checkout, such as from a tarball); every result row carries both.
VERSION: str = _core.VERSION
REVISION: str = _core.REVISION


def provenance() -> dict[str, str]:
    """The provenance columns of a result row: ``fcsim_version`` and ``fcsim_revision`` (the
    git commit of the source built, ``-dirty`` when it had uncommitted changes to tracked
    files, or ``unknown``)."""
    return {"fcsim_version": VERSION, "fcsim_revision": REVISION}


def trace_path(trace: str | os.PathLike[str], *, fit: bool = True, skip_bad_lines: bool = False) -> str:
    """A trace path, with a catalogue name (``msr/web_0``) read from the trace cache. With
    ``fit``, a ``synth:clone=`` trace's model is fitted here (or read), where Ctrl-C stops it:
    the trace's first open, which takes no progress, would fit it deaf to Ctrl-C. The fit skips
    the original's malformed lines with ``skip_bad_lines``, as the run reading the clone asks."""
    name = catalogue.resolve(path("trace", trace))
    if fit:
        _core.prefit_clone(name, skip_bad_lines=boolean("skip_bad_lines", skip_bad_lines))
    return name


def reader_options(
    format: str | None, volume: int | None, skip_bad_lines: bool, page_size: int
) -> dict[str, Any]:
    """The core's reader arguments but the ``trace.*`` keys, checked."""
    return {
        "format": None if format is None else text("format", format),
        "volume": None if volume is None else integer("volume", volume),
        "skip_bad_lines": boolean("skip_bad_lines", skip_bad_lines),
        "page_size": integer("page_size", page_size, 1),
    }


def trace_kwargs(
    format: str | None, volume: int | None, skip_bad_lines: bool, page_size: int, trace_params: dict[str, str]
) -> dict[str, Any]:
    """The core's arguments of a pass over a trace: :func:`reader_options` and the ``trace.*``
    keys (of :func:`fcsim.checks.sections`)."""
    return {**reader_options(format, volume, skip_bad_lines, page_size), "trace_params": trace_params}


def simulate(
    trace: str | os.PathLike[str],
    policy: str = "lru",
    size: str | int = "5%",
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    device: str | None = None,
    epoch: str | int | None = None,
    working_set: int | None = None,
    progress: Progress | None = None,
    admit: str | None = None,
) -> Result:
    """Simulates ``policy`` with a cache of ``size`` (pages, bytes like ``"64MiB"`` or ``"5%"``
    of the working set) over ``trace`` (a file or a ``synth:`` spec); returns one result row.

    With ``device`` (a preset: ``lcr``, ``gasa``, ``dynamic``, ``offline``; see ``devices()``)
    the cache is a DRAM buffer over a flash SSD, tuned by ``device.*`` keys in ``set``, and the
    row carries flash reads and writes, GC, erasures, wear and response times. ``policy="none"``
    drives the device straight from the trace (``size`` is ignored).

    ``set={"stack.kind": "ssd-cache"}`` makes the cache a flash cache over a disk instead: the
    device (default preset ``offline``) is the cache's medium, sized to the cache; ``stack.write``
    is ``around`` (a read cache, the default), ``through`` or ``back``; ``stack.dram`` puts an LRU
    DRAM tier of that fraction of the cache in front. The disk: ``stack.disk`` (``flat``, the
    papers' 5 ms per access, the default; ``7200`` or ``15k``, a mechanical drive: seek, half a
    revolution and transfer per access), ``stack.disk_ms`` (the flat disk's time per access, 5),
    ``stack.disks`` (``N`` disks striped in ``stack.stripe`` units, default 64KiB, or ``volume``:
    one disk per trace volume). ``admit`` names the flash cache's admission policy (see
    ``fcsim.admissions()``; ``all``, the default, admits every miss), the same as ``stack.admit``;
    its parameters are ``admit.KEY`` keys of ``set``.

    ``sim.time_scale`` multiplies the trace's inter-arrival times (0.1: ten times the load);
    ``sim.queue_depth=N`` replaces them with a closed loop of N outstanding requests. The row's
    ``timing`` says which (``trace``, ``closed-loop``), or ``untimed-trace`` for a trace without
    timestamps (ARC ``.lis``, a CSV without a time column): its response times, EPBPD, DWPD
    and per-epoch loads are then null, and ``sim.queue_depth`` is the way to time it (response
    times at the system's own pace; EPBPD and DWPD, rates per day of trace time, stay null). With a device,
    ``device_state`` says how the drive started: ``fresh``, ``filled``, ``aged Nx (seed S)``.

    ``sim.warmup`` (a number of requests, a time such as ``"60s"`` or ``"5min"``, or ``"full"``:
    until the cache is full) runs the trace's start as a warm-up and then resets every counter,
    histogram and device statistic, keeping the cache's contents and the devices' state; the
    row's ``warmup``, ``warmup_requests`` and ``warmup_s`` say what was left out.

    ``epoch`` (a time such as ``"60s"``, or a number of requests) adds the per-epoch table as
    ``row.epochs``: a DataFrame with one row per epoch, led by the run's ``trace``, ``policy``,
    ``size_pages``, ``device``, ``admission``, ``time_scale`` and ``queue_depth``, whose counts add up to the
    row's (see the README's "Per-epoch table"). A time needs arrival times: a trace without
    timestamps takes a number of requests (or ``sim.queue_depth``)."""
    if admit is not None:
        set = with_admission(set, text("admit", admit))
    kwargs = _run_kwargs(
        policy, size, format, volume, skip_bad_lines, page_size, set, device, working_set, epoch
    )
    row, epochs = _core.simulate(
        trace_path(trace, skip_bad_lines=skip_bad_lines), progress=callback(progress), **kwargs
    )
    row.update(provenance())
    if epoch is None:
        return Result(row, epochs=None)
    table = schema.frame(epochs, schema.EPOCHS)
    table["admission"] = pd.Series([row.get("admission")] * len(table), dtype="string")
    return Result(row, epochs=table)


def check(
    trace: str | os.PathLike[str],
    policy: str = "lru",
    size: str | int = "5%",
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    set: Mapping[str, Any] | None = None,
    device: str | None = None,
    epoch: str | int | None = None,
    working_set: int | None = None,
) -> None:
    """Checks what :func:`simulate` with the same arguments checks before it simulates (the
    policy, size, device, every ``set`` key and value, the trace's format and header) and
    raises the same ConfigError or TraceError; simulates nothing. A percent size costs a pass
    over the trace unless ``working_set`` is given."""
    kwargs = _run_kwargs(
        policy, size, format, volume, skip_bad_lines, page_size, set, device, working_set, epoch
    )
    _core.check(trace_path(trace, skip_bad_lines=skip_bad_lines), **kwargs)


def _run_kwargs(
    policy: str,
    size: str | int,
    format: str | None,
    volume: int | None,
    skip_bad_lines: bool,
    page_size: int,
    set: Mapping[str, Any] | None,
    device: str | None,
    working_set: int | None,
    epoch: str | int | None = None,
) -> dict[str, Any]:
    """The core's arguments of :func:`simulate` and :func:`check` but the trace and progress:
    the ``--set`` map goes whole to the core, which splits and parses it."""
    if epoch is not None and (isinstance(epoch, bool) or not isinstance(epoch, str | int)):
        raise ConfigError(f"epoch={epoch!r}: expected a time ('60s', '5min') or a number of requests")
    # Another policy's key would be accepted and ignored (as `run` and `run_grid` refuse it).
    stray_policy_keys(set, [text("policy", policy)])
    return {
        "policy": text("policy", policy),
        "size": size_text(size),
        "sets": list(sets(set).items()),
        "device": None if device is None else text("device", device),
        "epoch": None if epoch is None else str(epoch),
        "working_set": None if working_set is None else integer("working_set", working_set, 0, U64_MAX),
        **reader_options(format, volume, skip_bad_lines, page_size),
    }
