"""Experiment files and sweeps: a grid of simulations run on a local process pool (or a Dask
cluster), written to one Parquet table, resumable.

An experiment is a TOML file::

    name = "larc"
    description = "..."
    traces = ["arc_OLTP.lis.zst", "synth:zipf,alpha=0.9"]   # relative to the file's directory, or --traces
    policies = ["lru", "larc"]
    sizes = ["1%", "5%", "10%"]
    devices = ["gasa"]            # optional; "" or omitted: no device
    admissions = ["all", "random"]  # optional: the flash cache's admission (--admit), an axis
    [set]                         # --set overrides for every point
    "stack.kind" = "ssd-cache"
    [[grid]]                      # optional: more axes, each point of every entry
    "device.op" = [0.07, 0.28]

A ``--set`` key may be quoted (``"device.op" = 0.07``) or not (``device.op = 0.07``, which TOML
reads as a table ``device`` holding ``op``): both are the key ``device.op``.
A trace may be a table with its own ``--set`` keys: a list is an axis for that trace only, a
scalar a value for it (``{ file = "a.csv.gz", "sim.time_scale" = [1, 3] }``). An experiment
made of several grids lists them as ``[[part]]`` tables, each with any of ``traces``,
``policies``, ``sizes``, ``devices``, ``admissions``, ``set`` and ``grid``; what a part leaves
out it takes from the top level (``set`` and ``grid`` add to it). A point in two parts runs
once. A part with ``if_cached = true`` lists catalogue names (the paper's own traces): it runs
those that are in the trace cache and skips the others, which the experiment lists as
``absent``.

Trace paths are relative to the experiment file's directory (not the working directory), or to
``traces_dir`` (``--traces DIR``) when given; absolute paths and ``synth:`` specs are kept, and
a catalogue name (``msr/web_0``) with no file of that name is read from the trace cache
(``fcsim trace fetch``). A trace that is not there fails before the first point runs, naming
the path it looked for.

The output table holds one result row per point, plus ``point`` (the point's key). Each
finished point is appended to the table's journal (``OUT.journal``, see :mod:`fcsim.journal`)
at once, by the worker that computed it, and the table is rewritten (atomically) at most every
second; running the same sweep again merges the journal into the table and skips the points
already there, so a sweep stopped in any way, ``kill -9`` included, resumes where it stopped
without running a finished point again. Ctrl-C writes every finished point before it stops.
Policy ``none`` caches nothing: it runs once whatever the sizes.

``seeds = N`` (top level; or ``--seeds N``) runs each random point (see :mod:`fcsim.seeds`) with
N seeds, one row each (``seed_index``); :func:`summarize_seeds` gives each point's mean and
95% confidence interval. A table's points made by another fcsim (its ``fcsim_version`` and
``fcsim_revision``) are computed again unless ``keep_stale`` (see :func:`run`).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pandas as pd

from fcsim import catalogue, checks, grid, journal, output, schema, seeds, simulation
from fcsim import seeds as _seeds
from fcsim._core import ConfigError, TraceError

#: A point's key, and its row or why it failed.
Outcome = tuple[str, dict[str, Any] | None, str | None]
# A point to run: the point, its trace's working set (if its size needs it), and the journal
# its worker records it in (None when the sweep records it: on a Dask cluster).
Job = tuple[dict[str, Any], int | None, Path | None]

GRID_KEYS = {"traces", "policies", "sizes", "devices", "admissions", "set", "grid", "if_cached"}
#: An experiment is enumerated and checked whole before its first point runs, so a few lines
#: whose lists multiply to billions of points must fail at once rather than hang; sweeps of
#: thousands of points are the intended use.
MAX_POINTS = 100_000
KEYS = GRID_KEYS | {"name", "description", "part", "seeds"}


@dataclass
class Trace:
    """A trace of an experiment, with the ``--set`` values and axes that apply to it alone."""

    path: str
    sets: dict[str, Any] = field(default_factory=dict)
    axes: dict[str, list[Any]] = field(default_factory=dict)
    #: The name as the experiment gives it (``path`` is resolved against the trace directory).
    given: str = ""


@dataclass
class Part:
    """One grid: traces x policies x sizes x devices x the ``--set`` axes."""

    traces: list[Trace]
    policies: list[str]
    sizes: list[str]
    devices: list[str | None]
    sets: dict[str, Any] = field(default_factory=dict)
    grid: list[dict[str, list[Any]]] = field(default_factory=list)
    #: ``if_cached``: the traces are catalogue volumes, those not in the trace cache left out
    #: (their names in ``absent``).
    if_cached: bool = False
    absent: list[str] = field(default_factory=list)
    #: The flash cache's admission policies (``admissions``, ``--admit``): an axis, each the
    #: same as ``stack.admit``; None leaves the points' keys as they were.
    admissions: list[str] | None = None

    def count(self) -> int:
        """How many points :meth:`points` gives, computed without listing them."""
        runs = sum(1 if p.lower() == "none" else len(self.sizes) for p in self.policies) * len(self.devices)
        runs *= len(self.admissions or [None])
        grid = math.prod(len(v) for g in self.grid for v in g.values())
        return sum(runs * grid * math.prod(len(v) for v in t.axes.values()) for t in self.traces)

    def points(self) -> list[dict[str, Any]]:
        """Every point, in order: trace, policy, size, device, then the --set axes
        (:func:`fcsim.grid.expand`)."""
        return [
            pt
            for t in self.traces
            for pt in grid.expand(
                t.path,
                self.policies,
                self.sizes,
                self.devices,
                self._admitted(grid.combos({**self.sets, **t.sets}, [*self.grid, t.axes])),
            )
        ]

    def _admitted(self, combos: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``combos`` at each of :attr:`admissions` (as ``stack.admit``), if given."""
        if self.admissions is None:
            return combos
        return [checks.with_admission(c, a, self.admissions) for a in self.admissions for c in combos]


@dataclass
class Experiment:
    name: str
    parts: list[Part]
    description: str = ""
    #: The experiment file, and what its trace names are relative to (for errors).
    source: str = "experiment"
    base_from: str = "the experiment file's directory"
    #: Seeds of each random point (``seeds = N`` in the file, or ``--seeds N``; see
    #: :mod:`fcsim.seeds`): such a point is N points, ``"seed": i`` in their keys.
    seeds: int = 1

    @property
    def cached(self) -> list[Trace]:
        """The traces of ``if_cached`` parts found in the trace cache."""
        return [t for part in self.parts if part.if_cached for t in part.traces]

    @property
    def inputs(self) -> list[str]:
        """The files a sweep of this experiment reads: the experiment file and its traces (which
        its outputs must not be)."""
        return [self.source, *(t.path for part in self.parts for t in part.traces)]

    @property
    def absent(self) -> list[str]:
        """The catalogue names of ``if_cached`` parts not in the trace cache, each once."""
        return list(dict.fromkeys(n for part in self.parts for n in part.absent))

    def check(self, jobs: int | None = None) -> dict[tuple[str, str], int]:
        """Fails (ConfigError) before any point runs, with one line per problem of the grid: a
        trace that is not there (naming where it looked) or that cannot be read, an unknown
        policy, size or device preset, a bad ``--set`` key or value, anything else a point's
        run would refuse before its first request (the core's own check). Returns the working
        set of each trace (by :func:`trace_key`) that a percent size needs, for the points'
        runs: one pass over each such trace, ``jobs`` at a time (in threads: the core releases
        the GIL)."""
        problems = checks.Problems(self.source)
        points = self.points()
        if not points:  # only if_cached parts, none of whose traces is cached
            mirrored = [n for n in self.absent if catalogue.fetchable(catalogue.lookup(n))]  # type: ignore[arg-type]
            by_hand = [n for n in self.absent if n not in mirrored]
            fetches = ", ".join(f"'fcsim trace fetch {n}'" for n in mirrored)
            how = [f"get them with {fetches}"] if mirrored else []
            if by_hand:
                how.append(
                    f"the catalogue knows no mirror of {', '.join(by_hand)}: put each file in the trace "
                    "cache by hand (fcsim trace catalogue names it)"
                )
            problems.add(
                "no point to run: none of the traces of its if_cached parts is in the trace cache; "
                + "; ".join(how)
            )
        for part in self.parts:
            for t in part.traces:
                if not (t.path.startswith("synth:") or os.path.exists(t.path)):
                    problems.add(
                        f"trace '{t.given}' not found: looked for {os.path.abspath(t.path)} "
                        f"(trace paths are relative to {self.base_from})"
                    )
        sizes = grid.check(points, problems, jobs)
        problems.raise_any()
        return sizes

    def points(self) -> list[dict[str, Any]]:
        """Every point of every part, in order, each once; with ``seeds`` N > 1, a random point
        is N points, ``"seed": i`` (the seed index) and ``"seeds": N`` added to each (nothing
        to the other points, which run once)."""
        seen: dict[str, dict[str, Any]] = {}
        # The table names a trace by its file name (point_key): two files of one name would be
        # one point, the second never run.
        named: dict[str, str] = {}
        for part in self.parts:
            for pt in part.points():
                t = pt["trace"]
                if not t.startswith("synth:"):
                    other = named.setdefault(os.path.basename(t), t)
                    if os.path.abspath(other) != os.path.abspath(t):
                        raise ConfigError(
                            f"{self.source}: traces {other} and {t} share the file name "
                            f"{os.path.basename(t)}, which names a trace in the table: rename one "
                            "(or link it under another name)"
                        )
                seen.setdefault(point_key(pt), pt)
        if self.seeds == 1:
            return list(seen.values())
        out = []
        for pt in seen.values():
            random = grid.seeded(pt, self.seeds)
            out += [{**pt, "seed": i, "seeds": self.seeds} for i in range(self.seeds)] if random else [pt]
        return out


def _list(doc: dict[str, Any], key: str, where: str) -> list[str]:
    v = doc.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, str | int | float) for x in v):
        raise ConfigError(f"{where}: '{key}' must be a non-empty list of strings or numbers")
    return [str(x) for x in v]


def _traces(doc: dict[str, Any], base: Path, where: str, absent: list[str] | None = None) -> list[Trace]:
    """The traces of ``doc``; with ``absent`` (an ``if_cached`` part), catalogue names only, and
    those not in the trace cache are left out and named in ``absent``."""
    v = doc.get("traces")
    if not isinstance(v, list) or not v:
        raise ConfigError(f"{where}: 'traces' must be a non-empty list")
    out = []
    for t in v:
        if isinstance(t, dict):
            rest = _flat({k: x for k, x in t.items() if k != "file"}, where)
            f = t.get("file")
            if not isinstance(f, str) or any(isinstance(x, list) and not x for x in rest.values()):
                raise ConfigError(
                    f"{where}: a trace table needs 'file' and --set keys with values or non-empty lists"
                )
            sets = {k: x for k, x in rest.items() if not isinstance(x, list)}
            axes = {k: x for k, x in rest.items() if isinstance(x, list)}
        elif isinstance(t, str):
            f, sets, axes = t, {}, {}
        else:
            raise ConfigError(f"{where}: a trace is a file name or a table with 'file'")
        if absent is None:
            out.append(Trace(catalogue.resolve(f, base), sets, axes, given=f))
            continue
        vol = catalogue.lookup(f)
        if vol is None:
            raise ConfigError(f"{where}: '{f}' is not a catalogue name (FAMILY/VOLUME), as if_cached needs")
        if vol.path().exists():
            out.append(Trace(str(vol.path()), sets, axes, given=f))
        else:
            absent.append(f)
    return out


def _flat(table: dict[str, Any], where: str) -> dict[str, Any]:
    """``table`` with its tables' keys joined to theirs by dots: TOML reads an unquoted dotted
    key (``device.op = 0.07``) as a table, and means the key ``device.op``. ConfigError for a
    key given twice (quoted and dotted) or an empty table (a key without a value)."""
    out: dict[str, Any] = {}
    todo = [("", table)]  # a loop, not recursion: a key of thousands of dotted parts is valid TOML
    while todo:
        prefix, t = todo.pop()
        if not t and prefix:
            raise ConfigError(f"{where}: '{prefix[:-1]}' has no value (an empty table)")
        for k, v in t.items():
            if isinstance(v, dict):
                todo.append((f"{prefix}{k}.", v))
            elif f"{prefix}{k}" in out:
                raise ConfigError(f"{where}: the key '{prefix}{k}' is given twice (quoted and dotted)")
            else:
                out[f"{prefix}{k}"] = v
    return out


def _grid(doc: dict[str, Any], where: str) -> list[dict[str, list[Any]]]:
    grid = doc.get("grid", [])
    if not isinstance(grid, list) or not all(isinstance(g, dict) for g in grid):
        raise ConfigError(f"{where}: each [[grid]] entry maps --set keys to non-empty lists of values")
    grid = [_flat(g, where) for g in grid]
    if not all(isinstance(v, list) and v for g in grid for v in g.values()):
        raise ConfigError(f"{where}: each [[grid]] entry maps --set keys to non-empty lists of values")
    return grid


def _sets(doc: dict[str, Any], where: str) -> dict[str, Any]:
    v = doc.get("set", {})
    if not isinstance(v, dict):
        raise ConfigError(f"{where}: 'set' must be a table of --set keys and values ([set])")
    return _flat(v, where)


def _part(doc: dict[str, Any], top: dict[str, Any], base: Path, where: str) -> Part:
    merged = {**top, **{k: v for k, v in doc.items() if k not in ("set", "grid")}}
    if_cached = doc.get("if_cached", False)
    if not isinstance(if_cached, bool):
        raise ConfigError(f"{where}: 'if_cached' must be true or false")
    absent: list[str] | None = [] if if_cached else None
    return Part(
        traces=_traces(merged, base, where, absent),
        policies=_list(merged, "policies", where),
        sizes=_list(merged, "sizes", where),
        devices=[d or None for d in _list({"devices": [""], **merged}, "devices", where)],
        admissions=_list(merged, "admissions", where) if "admissions" in merged else None,
        sets={**_sets(top, where), **_sets(doc, where)},
        grid=_grid(top, where) + (_grid(doc, where) if doc is not top else []),
        if_cached=if_cached,
        absent=absent or [],
    )


def load(path: str | os.PathLike[str], traces_dir: str | os.PathLike[str] | None = None) -> Experiment:
    """Reads an experiment file. Trace paths are relative to ``traces_dir`` if given, else to the
    file's directory; ``synth:`` specs are kept as they are."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such experiment file") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the experiment file ({e.strerror or e})") from None
    return parse(data, p, traces_dir)


def parse(
    data: bytes, path: str | os.PathLike[str], traces_dir: str | os.PathLike[str] | None = None
) -> Experiment:
    """The experiment in ``data``, the bytes of the experiment file ``path`` (named in errors;
    trace paths are relative to its directory unless ``traces_dir`` is given). Whatever the
    bytes, the result is an experiment or a ConfigError whose every line names ``path``."""
    p = Path(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ConfigError(f"{p}: line {line}: not UTF-8 (byte {e.start}); TOML is UTF-8 text") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively, without a depth limit.
        raise ConfigError(f"{p}: not valid TOML: arrays or tables nested too deeply") from None
    return _experiment(doc, p, traces_dir)


def from_dict(
    doc: dict[str, Any], name: str = "experiment", traces_dir: str | os.PathLike[str] | None = None
) -> Experiment:
    """An experiment built in Python: ``doc`` holds the keys of an experiment file (``traces``,
    ``policies``, ``sizes``, ``devices``, ``set``, ``grid`` as a list of dicts, ``part``,
    ``seeds``, ...) as the TOML's tables and arrays read into dicts and lists, checked as the
    file is. ``name`` names it (in errors, and its ``name`` unless ``doc`` has one); trace paths
    are relative to ``traces_dir``, else the working directory."""
    if not isinstance(doc, dict):
        raise ConfigError(f"{name}: expected a dict of an experiment file's keys, not {type(doc).__name__}")
    return _experiment({"name": name, **doc}, Path(name), traces_dir)


def _experiment(doc: dict[str, Any], p: Path, traces_dir: str | os.PathLike[str] | None) -> Experiment:
    """The experiment of ``doc`` (an experiment file's keys) from ``p`` (named in errors)."""
    unknown = set(doc) - KEYS
    if unknown:
        names = checks.one_line(", ".join(sorted(unknown)))
        raise ConfigError(f"{p}: unknown key(s) {names}; expected {', '.join(sorted(KEYS))}")
    base = Path(traces_dir) if traces_dir is not None else p.parent
    parts_doc = doc.get("part", [])
    if not isinstance(parts_doc, list) or not all(isinstance(x, dict) for x in parts_doc):
        raise ConfigError(f"{p}: 'part' must be [[part]] tables")
    for i, pd_ in enumerate(parts_doc):
        bad = set(pd_) - GRID_KEYS
        if bad:
            raise ConfigError(
                f"{p}: [[part]] {i + 1}: unknown key(s) {checks.one_line(', '.join(sorted(bad)))}; "
                f"expected {', '.join(sorted(GRID_KEYS))}"
            )
    if "if_cached" in doc:
        raise ConfigError(f"{p}: 'if_cached' belongs in a [[part]] of catalogue names, not at the top level")
    parts = [_part(x, doc, base, f"{p}: [[part]] {i + 1}") for i, x in enumerate(parts_doc)] or [
        _part(doc, doc, base, str(p))
    ]
    n = sum(part.count() for part in parts)
    if n > MAX_POINTS:
        raise ConfigError(
            f"{p}: {n} points (traces x policies x sizes x devices x --set axes); "
            f"an experiment has at most {MAX_POINTS}"
        )
    n_seeds = doc.get("seeds", 1)
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int) or not 1 <= n_seeds <= seeds.MAX_SEEDS:
        raise ConfigError(f"{p}: seeds = {n_seeds!r}: expected a number of seeds from 1 to {seeds.MAX_SEEDS}")
    return Experiment(
        seeds=n_seeds,
        name=str(doc.get("name", p.stem)),
        description=str(doc.get("description", "")),
        parts=parts,
        source=str(p),
        base_from=f"--traces {os.path.abspath(base)}"
        if traces_dir is not None
        else f"the experiment file's directory, {os.path.abspath(base)}; --traces DIR gives another",
    )


def point_key(pt: dict[str, Any]) -> str:
    """A point's identity in the table: its trace by file name (the directory may move)."""
    trace = pt["trace"] if pt["trace"].startswith("synth:") else os.path.basename(pt["trace"])
    return json.dumps({**pt, "trace": trace}, sort_keys=True)


def keep_only(
    out: str | os.PathLike[str], points: Iterable[str], traces: Iterable[str], inputs: Iterable[str] = ()
) -> int:
    """Removes from the table ``out`` every row of one of ``traces`` (as the table names them:
    a file's name, or its ``synth:`` spec) whose point is not in ``points`` (their
    :func:`point_key`), rewriting it atomically; how many rows it removed. For a table one command
    owns (``fcsim reproduce``'s): a point its grid no longer has (a second stage's point built
    from first-stage rows that changed) is not a result of this grid, and a reader of the table
    would take it for one. Rows of other traces stay (``--only`` runs a part of the grid)."""
    prev = pd.read_parquet(out)
    gone = prev["trace"].isin(set(traces)) & ~prev["point"].isin(set(points))
    if gone.any():
        output.write_table(prev[~gone].reset_index(drop=True), out, inputs)
    return int(gone.sum())


def summarize_seeds(df: pd.DataFrame) -> pd.DataFrame:
    """The seeds' summary of a sweep's rows (:func:`fcsim.seeds.summarize`): one row per point
    but its seed, ``base_point`` (its key without the seed) and each metric's mean and 95%
    confidence interval; a point that ran once is a summary of one seed."""

    def base(key: str) -> str:
        pt = json.loads(key)
        pt.pop("seed", None)
        pt.pop("seeds", None)
        return json.dumps(pt, sort_keys=True)

    rows = df.assign(base_point=df["point"].map(base).astype("string"))
    return schema.summary_frame(seeds.summarize(rows, ["base_point"]), ["base_point"], rows)


def _run_point(job: Job) -> Outcome:
    """Runs one point: its key and its row (recorded in the journal first, when the job names
    one), or its key and why it failed (a plain message, which crosses process boundaries
    whatever the exception was)."""
    pt, ws, journal_path = job
    key = point_key(pt)
    try:
        random = seeds.components(pt["trace"], pt["policy"], pt["device"], pt["set"])
        row = grid.run_point(pt, ws, random, pt.get("seed", 0), pt.get("seeds", 1))
    except (ConfigError, TraceError) as e:
        return key, None, str(e)
    except Exception as e:  # a bug or a resource limit: reported with the point, the others go on
        return key, None, f"{type(e).__name__}: {e}"
    row = {**row, "point": key}
    if journal_path is not None:
        journal.record(journal_path, row)
    return key, row, None


def table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A sweep's rows as its table: the columns of :data:`fcsim.schema.SWEEP`, each of its
    dtype, whatever the points ran (a row of a table written before ``size`` was a column
    takes it from its point). A row made by another fcsim (computed again unless kept with
    ``keep_stale``) loses any column this fcsim's schema does not have."""
    known = {c.name for c in schema.SWEEP}
    for r in rows:
        if not isinstance(r.get("size"), str):
            r["size"] = str(json.loads(r["point"])["size"])
        if not _current(r):
            for k in [k for k in r if k not in known]:
                del r[k]
    return schema.frame(rows, schema.SWEEP)


def _current(row: dict[str, Any]) -> bool:
    """Whether a table's row was made by this fcsim: its version and source revision."""
    return row.get("fcsim_version") == simulation.VERSION and row.get("fcsim_revision") == simulation.REVISION


def _made_by(row: dict[str, Any]) -> str:
    version, revision = row.get("fcsim_version"), row.get("fcsim_revision")
    if not isinstance(version, str):
        return "a version that did not record itself"
    return f"{version} ({revision if isinstance(revision, str) else 'revision unknown'})"


def _worker_init() -> None:
    """Pool workers leave Ctrl-C to the main process, which saves what is done and stops them,
    and exit when it is gone (``kill -9`` leaves no orphans): a thread polls the parent's pid,
    which changes when the worker is reparented (portable, unlike Linux's PR_SET_PDEATHSIG)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="fcsim-parent-watch").start()


def _serve(conn: Connection) -> None:
    """A pool worker: runs each job it receives and sends back its outcome, until it receives
    None. (An end of file cannot say that: workers forked later hold copies of the sweep's end
    of the pipe.)"""
    _worker_init()
    while (job := conn.recv()) is not None:
        conn.send(_run_point(job))


def _died(exitcode: int | None) -> str:
    """Why a point failed whose worker process ended while running it."""
    if exitcode is None or exitcode >= 0:
        how = f"exit status {exitcode}"
    else:
        try:
            how = f"killed by signal {-exitcode}, {signal.Signals(-exitcode).name}"
        except ValueError:  # a signal without a name
            how = f"killed by signal {-exitcode}"
    return f"its worker process died ({how}); nothing of this point was saved"


def _local(todo: list[Job], jobs: int | None) -> Iterator[Outcome]:
    """Results of ``todo`` as they finish on a local pool of worker processes, one pipe each. A
    worker that dies while running a point (``kill -9``, an abort, the OOM killer) fails that
    point alone, with its signal or exit status; a new worker takes its place. Closing the
    generator stops every worker at once."""
    pending = iter(todo)
    running: dict[Connection, tuple[multiprocessing.Process, Job]] = {}

    def start() -> None:
        job = next(pending, None)
        if job is None:
            return
        conn, child = multiprocessing.Pipe()
        worker = multiprocessing.Process(target=_serve, args=(child,), daemon=True)
        worker.start()
        child.close()  # the worker holds the only other end: its death is an end of file here
        conn.send(job)
        running[conn] = (worker, job)

    def give(conn: Connection, worker: multiprocessing.Process) -> None:
        job = next(pending, None)
        conn.send(job)
        if job is None:  # the worker exits
            worker.join()
            conn.close()
        else:
            running[conn] = (worker, job)

    try:
        for _ in range(max(1, min(jobs or os.cpu_count() or 1, len(todo)))):
            start()
        while running:
            for conn in multiprocessing.connection.wait(list(running)):
                assert isinstance(conn, Connection)
                worker, job = running.pop(conn)
                try:
                    outcome = conn.recv()
                except EOFError:
                    conn.close()
                    worker.join()
                    yield point_key(job[0]), None, _died(worker.exitcode)
                    start()
                else:
                    yield outcome
                    give(conn, worker)
    finally:
        for conn, (worker, _) in running.items():
            worker.terminate()
            worker.join()
            conn.close()


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep, after the finished points were written; says how many remain."""


#: Seconds a Dask cluster may have no worker (none started, or all gone: a killed nanny takes
#: its worker with it) while points remain, before the sweep stops and says so (its finished
#: points saved); the cluster is asked every :data:`WORKER_POLL` seconds while nothing finishes.
NO_WORKERS_DEADLINE = 120.0
WORKER_POLL = 5.0


class WorkersGone(ConfigError):
    """The Dask cluster had no worker (or could not be reached) for :data:`NO_WORKERS_DEADLINE`."""


def _workers(client: Any) -> int | None:
    """The cluster's workers now; None when its scheduler cannot be asked."""
    try:
        return len(client.scheduler_info(n_workers=-1)["workers"])
    except TypeError:  # a distributed without n_workers
        return len(client.scheduler_info()["workers"])
    except Exception:  # the scheduler is gone too (CommClosedError, OSError, TimeoutError)
        return None


def _dask(todo: list[Job], scheduler: Any) -> Iterator[Outcome]:
    """Results of ``todo`` as they finish on the Dask cluster of ``scheduler`` (an address or a
    ``distributed.Client``); WorkersGone once the cluster has had no worker, or its scheduler
    has not answered, for :data:`NO_WORKERS_DEADLINE` seconds with points left (Dask itself
    would wait for ever). Each point's future is released once the caller has its outcome (and
    has saved its row): a worker lost later takes nothing saved with it, so the cluster
    recomputes only the points in flight, never one already saved."""
    import distributed

    with grid.dask_client(scheduler) as client:
        pending = set(client.map(_run_point, todo, pure=False))
        alone_since: float | None = None  # when the cluster was first seen without a worker
        try:
            while pending:
                try:
                    done, pending = distributed.wait(
                        pending, timeout=WORKER_POLL, return_when="FIRST_COMPLETED"
                    )
                except TimeoutError:
                    done = set()
                for f in done:
                    yield f.result()
                    f.release()  # its row is saved: the scheduler may forget it
                if done:
                    alone_since = None
                    continue
                n = _workers(client)
                if n:
                    alone_since = None
                    continue
                now = time.monotonic()
                alone_since = now if alone_since is None else alone_since
                if now - alone_since >= NO_WORKERS_DEADLINE:
                    why = "has no worker" if n == 0 else "does not answer"
                    raise WorkersGone(
                        f"--scheduler {scheduler}: the Dask cluster {why} "
                        f"(for {NO_WORKERS_DEADLINE:g} s, with {len(pending)} points left)"
                    )
        finally:
            client.cancel(list(pending))


def run(
    exp: Experiment,
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: Callable[[float], object] | None = None,
    notify: Callable[[str], object] | None = None,
    keep_stale: bool = False,
) -> pd.DataFrame:
    """Runs every point of ``exp`` not already in ``out`` (Parquet) on a local process pool of
    ``jobs`` workers, or on the Dask cluster at ``scheduler`` (an address or a
    ``distributed.Client``; its workers need fcsim and the traces at the same paths); returns
    the whole table. ``exp`` is an experiment file's (:func:`load`) or one built in Python
    (:func:`from_dict`). The grid is checked first (see
    :meth:`Experiment.check`). Each finished point is appended to the table's journal at once;
    the table is rewritten (atomically) at most every second, and at the end, when the journal
    is removed. A journal left by a killed sweep is merged into the table first. ``notify``
    gets one-line messages (``resuming: K of N points done``). The result's ``attrs`` count the
    points of the table file (``table_points``, those of other experiments too) and of ``exp``
    computed by this call (``computed``) or found done (``reused``). A point that fails does not stop
    the others: when all have run and the table is written, a ConfigError names each failed
    point (its ``point`` key) and why; a rerun runs just those.
    On Ctrl-C every finished point is written first, then :class:`Interrupted` (a
    KeyboardInterrupt) says how many points remain.

    A point in the table made by another fcsim (another ``fcsim_version`` or
    ``fcsim_revision``, or a row without them: made before rows carried them) is *stale*: it is
    computed again and its row replaced, and ``notify`` says how many and by which fcsim they
    were made; ``keep_stale=True`` (``--keep-stale``) reuses them instead, also said. Points of
    other experiments in the same table are left as they are."""
    out = Path(out)
    # The sweep's own formats first: the writers' list names formats a sweep refuses.
    if out.suffix.lower() not in (".parquet", ".pq"):
        given = out.suffix or "a name without a suffix"
        raise ConfigError(f"{out}: a sweep's table is Parquet (.parquet or .pq), not {given}")
    output.check_path(out, exp.inputs)
    output.guard(journal.path_of(out), exp.inputs)
    if jobs is not None:
        checks.integer("jobs", jobs, 1)
    sizes = exp.check(jobs)
    points = exp.points()
    log = journal.Journal(out)
    try:
        return _run(points, sizes, out, exp.inputs, log, jobs, scheduler, progress, notify, keep_stale)
    finally:
        log.close()


def _run(
    points: list[dict[str, Any]],
    sizes: dict[tuple[str, str], int],
    out: Path,
    inputs: list[str],
    log: journal.Journal,
    jobs: int | None,
    scheduler: Any,
    progress: Callable[[float], object] | None,
    notify: Callable[[str], object] | None,
    keep_stale: bool = False,
) -> pd.DataFrame:
    """:func:`run` once the grid is checked and the table's journal locked."""
    output.remove_stale(out)
    rows: list[dict[str, Any]] = []
    if out.exists():
        try:
            prev = pd.read_parquet(out)
        except Exception as e:  # pyarrow's errors for a file that is not Parquet
            raise ConfigError(f"{out}: exists and is not a Parquet table ({e})") from None
        if "point" not in prev.columns:
            raise ConfigError(f"{out}: exists and is not a sweep table (no 'point' column)")
        rows = prev.to_dict("records")
    have = {r["point"] for r in rows}

    def merge_log() -> int:
        """Adds the journal's rows that the table lacks; how many torn records it dropped."""
        logged, torn = log.read()
        for r in logged:
            if r["point"] not in have:
                rows.append(r)
                have.add(r["point"])
        return torn

    # Points a killed sweep finished after its last table write go into the table first.
    saved = len(rows)
    torn = merge_log()
    if torn and notify is not None:
        notify(f"{log.path}: dropped {torn} torn record(s) of points being saved; they run again")
    if len(rows) > saved:
        output.write_table(table(rows), out, inputs)
    log.clear()
    keys = {point_key(pt) for pt in points}
    have &= keys
    stale = [r for r in rows if r["point"] in have and not _current(r)]
    if stale:
        made = ", ".join(sorted({_made_by(r) for r in stale}))
        if keep_stale:
            if notify is not None:
                notify(
                    f"reusing {len(stale)} point(s) of {out} made by another fcsim ({made}), "
                    "as --keep-stale asks"
                )
        else:
            if notify is not None:
                notify(
                    f"{len(stale)} point(s) of {out} were made by another fcsim ({made}); computing "
                    f"them again with fcsim {simulation.VERSION} ({simulation.REVISION}) "
                    "(--keep-stale reuses them)"
                )
            gone = {r["point"] for r in stale}
            rows = [r for r in rows if r["point"] not in gone]
            have -= gone
    todo = [pt for pt in points if point_key(pt) not in have]
    reused = len(have)
    total = len(points)
    failed: dict[str, str] = {}  # point key: why
    if have and notify is not None:
        notify(f"resuming: {len(have)} of {total} points done in {out}")

    def report() -> None:
        if progress is not None:
            progress((len(have) + len(failed)) / total if total else 1.0)

    report()
    if todo:
        written, saved = time.monotonic(), len(rows)

        def save() -> None:
            nonlocal written, saved
            if len(rows) > saved:
                output.write_table(table(rows), out, inputs)
            written, saved = time.monotonic(), len(rows)

        # Local workers record their points in the journal themselves; the sweep records what
        # comes back from a Dask cluster.
        by_worker = None if scheduler is not None else log.path
        work = [
            (pt, sizes.get(grid.trace_key(pt)) if grid.needs_working_set(pt) else None, by_worker)
            for pt in todo
        ]
        results = _dask(work, scheduler) if scheduler is not None else _local(work, jobs)
        interrupted = False
        gone: WorkersGone | None = None
        try:
            for key, row, error in results:
                if row is None:
                    failed[key] = str(error)
                elif key not in have:
                    if by_worker is None:
                        log.append(row)
                    rows.append(row)
                    have.add(key)
                if time.monotonic() - written >= 1.0:
                    save()
                report()
        except KeyboardInterrupt:
            interrupted = True
        except WorkersGone as e:
            gone = e
        finally:  # whatever ends the loop, every finished point is written
            results.close()  # the pool is stopped: no worker records a point after this
            merge_log()  # points recorded by workers whose results did not come back
            save()
            log.remove()  # the table holds every finished point
        if gone is not None:
            raise WorkersGone(
                f"{gone}; {len(have)} of {total} points are saved in {out}, {total - len(have)} remain: "
                "start workers (dask worker ADDRESS) and run the same command again to resume"
            )
        if interrupted:
            raise Interrupted(
                f"interrupted: {len(have)} of {total} points are saved in {out}, {total - len(have)} remain; "
                "run the same command again to resume"
            )
    else:
        log.remove()
    # A worker may die after recording its point in the journal: that point is saved.
    failed = {key: why for key, why in failed.items() if key not in have}
    if failed:
        raise ConfigError(
            f"{len(failed)} of {total} points failed, {len(have)} are saved in {out} "
            "(the same command again runs the failed ones)\n"
            + "\n".join(f"point {key}: {why}" for key, why in failed.items())
        )
    order = {point_key(pt): i for i, pt in enumerate(points)}
    df = table(rows)
    df = df[df["point"].isin(order)].sort_values("point", key=lambda s: s.map(order)).reset_index(drop=True)
    df.attrs.update(table_points=len(rows), computed=total - reused, reused=reused)
    return df


def sweep(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    traces_dir: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: Callable[[float], object] | None = None,
    notify: Callable[[str], object] | None = None,
    keep_stale: bool = False,
    seeds: int | None = None,
) -> pd.DataFrame:
    """Loads the experiment at ``path`` and runs it into ``out`` (see :func:`run`); ``seeds``,
    if given, overrides the file's ``seeds``."""
    exp = load(path, traces_dir)
    if seeds is not None:
        exp.seeds = _seeds.count(seeds)
    return run(
        exp, out, jobs=jobs, scheduler=scheduler, progress=progress, notify=notify, keep_stale=keep_stale
    )


def packaged(name: str) -> Path:
    """The experiment file shipped with fcsim for a paper."""
    p = Path(__file__).parent / "experiments" / f"{name}.toml"
    if not p.exists():
        names = sorted(x.stem for x in (Path(__file__).parent / "experiments").glob("*.toml"))
        raise ConfigError(f"no experiment '{name}'; shipped: {', '.join(names)}")
    return p
