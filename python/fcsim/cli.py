"""The ``fcsim`` command line. Errors in input or options print one line and exit with status 2;
Ctrl-C exits with 130; no traceback either way, and no half-written output file."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

import fcsim
from fcsim import _core, catalogue, notes, output, plot, tables
from fcsim import seeds as seeding
from fcsim.reports import PAPERS
from fcsim.terminal import printable


class Bar:
    """A progress bar on stderr, shown only on a terminal and only once a run has taken a second."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.start = time.monotonic()
        self.shown = 0
        self.enabled = sys.stderr.isatty()

    def __call__(self, fraction: float, detail: str = "") -> None:
        if not self.enabled or time.monotonic() - self.start < 1.0:
            return
        width = 30
        filled = int(width * min(max(fraction, 0.0), 1.0))
        line = f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {fraction:6.1%}" + (
            f" {detail}" if detail else ""
        )
        sys.stderr.write("\r" + line.ljust(self.shown))
        sys.stderr.flush()
        self.shown = max(self.shown, len(line))

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * self.shown + "\r")
            sys.stderr.flush()
            self.shown = 0


def show(text: str) -> None:
    """Prints ``text`` on stdout, each line's control characters escaped (:func:`printable`):
    file names and spec text printed in a table, a header or a 'wrote' line cannot move the
    cursor, ring the bell or fake a line."""
    print("\n".join(printable(line) for line in text.split("\n")))


def say(line: str) -> None:
    """Prints one line on stderr, its control characters escaped (it may hold text from input:
    a trace's field, a file name)."""
    print(printable(line), file=sys.stderr)


def say_skipped(bad: int, trace: str) -> None:
    """Says how many malformed lines of ``trace`` were skipped (``--skip-bad-lines``), if any; of
    a clone, how many of its original's its model's fit skipped."""
    if bad and trace.startswith("synth:"):
        say(f"fcsim: {trace}: its model was fitted skipping {bad:,} malformed line(s) of the original")
    elif bad:
        say(f"fcsim: skipped {bad:,} malformed line(s) in {trace}")


def _check_outputs(a: argparse.Namespace) -> list[str]:
    """Refuses, before any work, an ``--out`` or ``--plot`` that :func:`fcsim.output.guard`
    refuses (the trace itself, a pipe or device, a missing directory), and with ``--epoch`` the
    per-epoch table and plot beside them; returns the inputs the outputs must not be."""
    inputs = [catalogue.resolve(a.trace)]
    epochs = getattr(a, "epoch", None) is not None
    if a.out:
        output.check_path(a.out, inputs)
        if epochs:
            output.check_path(output.beside(a.out, "epochs"), inputs)
        if a.command == "run" and getattr(a, "seeds", 1) > 1:
            output.check_path(output.beside(a.out, "seeds"), inputs)
    if a.plot:
        plot.check_path(a.plot, inputs)
        if epochs:
            plot.check_path(output.beside(a.plot, "epochs"), inputs)
    return inputs


def _sets(pairs: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise fcsim.ConfigError(f"--set {pair}: expected KEY=VALUE")
        key = key.strip()
        if key in out:
            raise fcsim.ConfigError(
                f"--set {pair}: {key} is given twice ({key}={out[key]} before it); give each key once"
            )
        out[key] = value.strip()
    return out


#: Keys whose value may be a comma itself: never split into an axis.
COMMA_KEYS = {"trace.delimiter"}


def _set_axes(pairs: Sequence[str] | None) -> tuple[dict[str, str], dict[str, list[str]]]:
    """``--set`` of `fcsim run`: fixed keys, and axes (``KEY=V1,V2,...``: each value a point,
    as an experiment file's ``[[grid]]``). A comma inside one value is written ``\\,``; the
    value of ``trace.delimiter`` is taken whole (``--set trace.delimiter=,``)."""
    fixed: dict[str, str] = {}
    axes: dict[str, list[str]] = {}
    for key, value in _sets(pairs).items():
        if key.lower() in COMMA_KEYS:
            fixed[key] = value
            continue
        parts = [p.replace("\0", ",").strip() for p in value.replace("\\,", "\0").split(",")]
        if len(parts) == 1:
            fixed[key] = parts[0]
        elif any(not p for p in parts):
            raise fcsim.ConfigError(
                f"--set {key}={value}: an axis takes values V1,V2,... with none empty "
                "(a comma inside a value is written \\,)"
            )
        else:
            axes[key] = list(dict.fromkeys(parts))
    return fixed, axes


#: ``--set``'s trace keys, which every command that reads a trace takes.
TRACE_SETS = "trace.KEY (format options; trace.skip=N and trace.take=M keep a slice of any trace)"


def _trace_args(p: argparse.ArgumentParser, trace_only: bool = False) -> None:
    """The options that read a trace; ``trace_only``: a command that reads it and runs nothing
    (``--set`` takes trace keys only)."""
    p.add_argument("--format", help="trace format (default: detect); see 'fcsim trace formats'")
    p.add_argument("--volume", type=int, help="keep only this volume (disk, ASU, LUN, device)")
    p.add_argument("--page-size", type=int, default=4096, help="page size in bytes (default 4096)")
    p.add_argument("--skip-bad-lines", action="store_true", help="skip and count malformed lines")
    if trace_only:
        p.add_argument("--set", action="append", metavar="trace.KEY=VALUE", help=f"{TRACE_SETS}; repeatable")
        return
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help=f"override a parameter: {TRACE_SETS}, device.KEY (see 'fcsim devices'), "
        "stack.KEY (stack.kind=ssd-cache, stack.write=around|through|back, stack.dram, "
        "stack.disk=flat|7200|15k, stack.disk_ms (flat only), stack.disks=N|volume, stack.stripe=64KiB, "
        "stack.dt_window_s=600: the window of peak_dt), "
        "sim.time_scale=F (inter-arrival times x F), sim.queue_depth=N (closed loop), "
        "sim.warmup=N|60s|full (statistics reset after N requests, a time, or once the cache is full), "
        "sim.read_ahead=false (read the trace on the simulating thread, not a second one) "
        "or POLICY.KEY (see 'fcsim policies'); repeatable; in 'fcsim run', KEY=V1,V2,... makes an axis "
        "(a run at each value; a comma inside a value is written \\,)",
    )


def _common(a: argparse.Namespace) -> dict[str, Any]:
    return {
        "format": a.format,
        "volume": a.volume,
        "skip_bad_lines": a.skip_bad_lines,
        "page_size": a.page_size,
        "set": _sets(a.set),
    }


def _split_list(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def say_notes(df: pd.DataFrame) -> None:
    """The table's notes and warnings (:func:`fcsim.notes.row_notes`), one line each on stderr."""
    for line in notes.row_notes(df):
        say(line)


def cmd_run(a: argparse.Namespace) -> int:
    inputs = _check_outputs(a)
    policies = _split_list(a.policy)
    if a.size is None:
        if any(p.lower() != "none" for p in policies):
            raise fcsim.ConfigError("--size is required (only --policy none takes no cache size)")
        a.size = "1"
    devices: list[str | None] = [None] if a.device is None else list(_split_list(a.device))
    columns = None if a.columns is None else _split_list(a.columns)
    if columns is not None and not columns:
        raise fcsim.ConfigError("--columns: expected column names, comma-separated (see --json for all)")
    common = _common(a)
    common["set"], grid = _set_axes(a.set)
    bar = Bar("simulating")
    try:
        result = fcsim.run(
            a.trace,
            policies,
            _split_list(a.size),
            device=devices,
            epoch=a.epoch,
            jobs=a.jobs,
            progress=bar,
            seeds=a.seeds,
            grid=grid or None,
            admit=None if a.admit is None else _split_list(a.admit),
            **common,
        )
    finally:
        bar.close()
    df, summary, epochs = result.rows, result.summary, result.epochs
    if a.json or a.quiet:
        tables.table_columns(df, columns)  # a bad --columns is an error whatever is printed
    wrote: list[str] = []
    plot_error: fcsim.ConfigError | None = None
    if a.out:
        output.write_table(df, a.out, inputs)
        wrote.append(f"{a.out} (rows)")
        if epochs is not None:
            output.write_table(epochs, output.beside(a.out, "epochs"), inputs)
            wrote.append(f"{output.beside(a.out, 'epochs')} (per-epoch table)")
        if summary is not None:
            output.write_table(summary, output.beside(a.out, "seeds"), inputs)
            wrote.append(f"{output.beside(a.out, 'seeds')} (the seeds' summary)")
    if a.plot:
        # With seeds, each point's means (one line per policy, not one zigzag through its seeds).
        seeded = summary is not None and "size_pages" in summary.columns and "page_size" in summary.columns
        drawn = df
        if seeded and summary is not None:
            # A percent size resolves to pages per seed (a synth: trace's working set varies
            # with its seed), so the summary leaves size_pages null there: each point is drawn
            # at its seeds' mean size.
            mean = df.groupby("size")["size_pages"].mean() if "size" in df.columns else pd.Series(dtype=float)
            drawn = summary.assign(
                size_pages=summary["size_pages"]
                .astype("Float64")
                .fillna(summary["size"].map(mean).astype("Float64"))
            )
        try:
            plot.run_plot(drawn, a.plot)
            wrote.append(f"{a.plot} (figure)")
        except fcsim.ConfigError as e:  # the rows are still printed and written; the error comes last
            plot_error = fcsim.ConfigError(f"--plot {a.plot}: {e}")
        if epochs is not None:
            plot.epoch_plot(epochs, output.beside(a.plot, "epochs"), rows=df)
            wrote.append(f"{output.beside(a.plot, 'epochs')} (per-epoch figure)")
    if a.json:
        for line in output.rows_json(df):
            print(line)
    elif not a.quiet:
        show(tables.format_table(df, columns))
        if summary is not None:
            print()
            once = bool(summary["seeds"].eq(1).any())
            print(
                f"mean ± 95% confidence interval (Student t) over the seeds of each point "
                f"(--seeds {a.seeds}{'; seeds 1: nothing random in it' if once else ''})"
            )
            show(tables.format_summary(df, summary, columns))
        if epochs is not None and not a.out:
            print()
            show(tables.format_epochs(epochs))
    if epochs is not None and not a.out and a.json:
        say("fcsim: note: the per-epoch table is written with --out FILE, to FILE.epochs.EXT beside the rows")
    say_notes(df)
    say_skipped(int(df["bad_lines"].max()) if "bad_lines" in df else 0, a.trace)
    for line in wrote:  # on stderr, so that --json's stdout stays rows only
        say(f"fcsim: wrote {line}")
    if plot_error is not None:
        raise plot_error
    return 0


def _fmt_ns(ns: int) -> str:
    return f"{ns / 1e9:.3f} s"


def _start_time(fmt: str, ns: int) -> str:
    """A trace's first timestamp for a reader (``--json`` keeps the raw ns): a date and time for
    MSR Cambridge (Windows FILETIME, from 1601-01-01 UTC) and for a value that reads as Unix time
    (2001 to 2100), else the time after the trace's own zero."""
    import datetime as dt

    utc = dt.UTC
    if fmt == "msr":
        when = dt.datetime(1601, 1, 1, tzinfo=utc) + dt.timedelta(microseconds=ns // 1000)
        return f"{when:%Y-%m-%d %H:%M:%S} UTC (Windows FILETIME)"
    if 1e18 <= ns < 4.1e18:
        when = dt.datetime.fromtimestamp(ns / 1e9, tz=utc)
        return f"{when:%Y-%m-%d %H:%M:%S} UTC, if Unix time"
    return f"{_fmt_ns(ns)} after the trace's zero"


def cmd_info(a: argparse.Namespace) -> int:
    info = fcsim.trace_info(a.trace, **_common(a))
    if a.json:
        print(json.dumps({"trace": a.trace, **info}))
        return 0
    req = info["requests"]
    pct = (lambda n: f"{100 * n / req:.2f}%") if req else (lambda n: "-")
    ps = info["page_size"]
    lines = [
        f"trace          {a.trace}",
        f"format         {info['format']}",
        f"requests       {req:,}",
        f"reads          {info['reads']:,} ({pct(info['reads'])})",
        f"writes         {info['writes']:,} ({pct(info['writes'])})",
    ]
    if info["trims"]:
        lines.append(f"trims          {info['trims']:,} ({pct(info['trims'])})")
    lines += [
        f"page accesses  {info['page_accesses']:,} ({ps} B pages; {info['read_pages']:,} read, "
        f"{info['write_pages']:,} written)",
        f"unique pages   {info['unique_pages']:,} (working set {info['unique_pages'] * ps / 2**20:,.1f} MiB)",
        # Object-id keys without sizes (one page a request): no bytes to count.
        "bytes          n/a: object ids, no sizes"
        if info["object_keys"] and not info["bytes"]
        else f"bytes          {info['bytes']:,}"
        + (f" (mean request {info['bytes'] / req:,.1f} B)" if req else ""),
        f"time span      {_fmt_ns(info['span_ns'])} (first at "
        f"{_start_time(info['format'], info['time_first_ns'])}; {info['out_of_order']:,} out of order)",
    ]
    if not info["timed"]:
        lines[-1] = "time span      none: the trace has no timestamps (requests keep their order)"
    for op in ("read", "write"):
        loc = info[f"{op}_locality"]
        if loc is not None:
            lines.append(
                f"{op} locality{' ' * (6 - len(op))}{loc[0]:.2%} of the {op} pages get {loc[1]:.2%} of the "
                f"{op} page accesses"
            )
    if info["object_keys"]:
        lines.append("keys           object ids (one page per request)")
    if info["bad_lines"]:
        lines.append(f"bad lines      {info['bad_lines']:,} skipped")
    lines.append("request sizes  (bytes <= bound: count)")
    for bound, count in info["size_histogram"]:
        lines.append(f"  {bound:>12,}  {count:,}")
    vols = info["volumes"]
    lines.append(f"volumes        {len(vols)}")
    for v, n, r, w in vols[:20]:
        lines.append(f"  volume {v:<6} {n:,} requests ({r:,} reads, {w:,} writes)")
    if len(vols) > 20:
        lines.append(f"  ... {len(vols) - 20} more (use --json for all)")
    show("\n".join(lines))
    return 0


COUNT_MEASURES = {"requests", "working_set_pages"}
BYTE_MEASURES = {"mean_read_bytes", "mean_write_bytes"}


def _measure_text(name: str, v: float | None) -> str:
    if v is None:
        return "n/a"
    if name in COUNT_MEASURES:
        return f"{v:,.0f}"
    if name in BYTE_MEASURES:
        return f"{v:,.1f}"
    if name == "span_s" or name.startswith(("fano", "interarrival")):
        return f"{v:,.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return f"{v:.4f}"


def _yes_no(v: bool | None) -> str:
    return "n/a" if v is None else ("yes" if v else "no")


def _share_text(share: float) -> str:
    return f"{share * 100:g}%"


def cmd_compare(a: argparse.Namespace) -> int:
    panel = None if a.panel is None else [p for p in a.panel.split(",") if p.strip()]
    bar = Bar("measuring")
    try:
        report = fcsim.compare(
            a.a,
            a.b,
            format=a.format,
            volume=a.volume,
            set=_sets(a.set),
            format_b=a.format_b,
            volume_b=a.volume_b,
            set_b=_sets(a.set_b),
            skip_bad_lines=a.skip_bad_lines,
            page_size=a.page_size,
            panel=panel,
            baseline=not a.no_baseline,
            seeds=a.seeds,
            progress=lambda d, t: bar(d / t if t else 0.0),
        )
    finally:
        bar.close()
    df, table = report.rows, report.panel
    over = report.over_seeds
    fa, fb, fn = report.a, report.b, report.baseline

    def clean(v: Any) -> Any:
        return None if not isinstance(v, str | list | dict) and v is not None and pd.isna(v) else v

    say_skipped(fa["bad_lines"], a.a)
    say_skipped(fb["bad_lines"], a.b)
    if a.json:
        rows = [{k: clean(v) for k, v in r.items()} for r in df.to_dict("records")]
        out = {
            "verdict": report.verdict,
            "counts": report.counts,
            "a": fa,
            "b": fb,
            "baseline": fn,
            "baseline_spec": report.baseline_spec,
            "halves": report.halves,
            "panel": [{k: clean(v) for k, v in r.items()} for r in table.to_dict("records")],
            "rows": rows,
            "over_seeds": None
            if over is None
            else [{k: clean(v) for k, v in r.items()} for r in over.to_dict("records")],
        }
        print(json.dumps(out))
        return 0
    lines = [
        f"fidelity of B against A ({a.page_size} B pages; sizes are shares of each trace's own working set; "
        "tolerances from A's halves H1, H2)"
    ]

    # What was read of a trace when not the whole file: its volume, its slice.
    def part(volume: int | None, sets: list[str] | None) -> str:
        read = [] if volume is None else [f"volume {volume}"]
        read += [s for s in sets or [] if s.split("=")[0].strip() in ("trace.skip", "trace.take")]
        return f" [{', '.join(read)}]" if read else ""

    traces = [("A", fa, a.a + part(a.volume, a.set)), ("B", fb, a.b + part(a.volume_b, a.set_b))]
    if fn is not None:
        traces.append(("N", fn, report.baseline_spec))
    for label, f, spec in traces:
        lines.append(
            f"{label}  {spec}  ({f['format']}, {f['requests']:,.0f} requests, "
            f"{f['working_set_pages']:,.0f} pages{'' if f['timed'] else ', untimed'})"
        )
    h1, h2 = report.halves
    lines.append(
        f"H1, H2  A's first {h1['requests']:,.0f} requests and the other {h2['requests']:,.0f} "
        "(trace.skip, trace.take)"
    )

    def value(name: str, v: Any, pair: bool) -> str:
        v = clean(v)
        return (f"{v:.4f}" if v is not None else "n/a") if pair else _measure_text(name, v)

    rows = []
    for r in df.to_dict("records"):
        name = r["measure"]
        pair = name not in fa["measures"]  # a measure of the pair: B's value against A
        va = "" if pair else _measure_text(name, clean(r["a"]))
        vb = value(name, r["b"], pair)
        d = clean(r["difference"])
        diff = "" if d is None else _measure_text(name, d)
        ratio = "" if clean(r["ratio"]) is None else f"{r['ratio']:.3g}"
        row = [name, va, vb, diff, ratio, r["tolerance"], r["status"]]
        if fn is not None:
            untestable = r["status"] == "untestable"
            row += [value(name, r["baseline"], pair), "" if untestable else (r["baseline_status"] or "")]
        rows.append([*row, r["note"]])
    head = ["measure", "A", "B", "B-A", "B/A", "tolerance (half)", "B result"]
    if fn is not None:
        head += ["N", "N result"]
    head.append("note")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    right = {1, 2, 3, 4} | ({7} if fn is not None else set())
    for row in [head, *rows]:
        cells = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    if len(table):
        cols = ["a", "h1", "h2", "b"] + (["baseline"] if fn is not None else [])
        shares = list(dict.fromkeys(table["share"]))
        labels = {"a": "A", "h1": "H1", "h2": "H2", "b": "B", "baseline": "N"}
        lines.append(
            "panel hit ratios (no device, default stack), "
            + "; ".join(f"{_share_text(s)}: {' '.join(labels[c] for c in cols)}" for s in shares)
        )
        width = max(len(p) for p in table["policy"])
        for p in dict.fromkeys(table["policy"]):
            parts = []
            for s in shares:
                r = table[(table["policy"] == p) & (table["share"] == s)].iloc[0]
                parts.append(" ".join(f"{r[c]:.4f}" for c in cols))
            lines.append(f"  {p.ljust(width)}  " + "  |  ".join(parts))
    c = report.counts
    lines.append(
        f"verdict: {report.verdict} (B: {c['pass']} passed, {c['fail']} failed, {c['untestable']} untestable)"
    )
    if fn is not None:
        n = df["baseline_status"][df["status"] != "untestable"].value_counts()
        lines.append(
            f"baseline N (synth:calibrated from A's trace info): {n.get('pass', 0)} passed, "
            f"{n.get('fail', 0)} failed"
        )
    bursty = f"A {_yes_no(fa['bursty'])}, B {_yes_no(fb['bursty'])}"
    lines.append(f"bursty arrivals (Fano factor at 1 s > 2): {bursty}")
    if over is not None:
        lines += _over_seeds_lines(over, dict(zip(df["measure"], df["tolerance"], strict=True)))
    show("\n".join(lines))
    return 0


def _over_seeds_lines(over: pd.DataFrame, tolerance: dict[str, str]) -> list[str]:
    """`fcsim trace compare --seeds N`: each checked measure's score over B's seeds against its
    tolerance (A's, the same on every seed), how many pass, and on how many seeds B passes
    every one."""
    specs = list(dict.fromkeys(over["b_spec"]))
    n = len(specs)
    summary = fcsim.traces.seed_summary(over)
    lines = [
        f"over {n} seeds of B (seed index 0 is the report above; index {n - 1}: {specs[-1]}): "
        "B's score, mean [min, max], against its tolerance"
    ]
    rows = [
        [
            r["measure"],
            tolerance[r["measure"]],
            f"{r['mean']:.4f} [{r['min']:.4f}, {r['max']:.4f}]",
            f"pass on {r['passed']} of {r['seeds']}",
        ]
        for r in summary.to_dict("records")
    ]
    head = ["measure", "tolerance (half)", "score over seeds", "passed"]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    for row in [head, *rows]:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    checked = over[over["status"].isin(["pass", "fail"])]
    all_pass = n - checked[checked["status"] == "fail"]["seed_index"].nunique()
    decided = summary[(summary["passed"] > 0) & (summary["failed"] > 0)]["measure"].tolist()
    lines.append(
        f"verdict over seeds: B passes every checked measure on {all_pass} of {n} seeds; "
        + (f"the seed decides {', '.join(decided)}" if decided else "no measure's status depends on the seed")
    )
    return lines


def cmd_catalogue(a: argparse.Namespace) -> int:
    from fcsim import catalogue

    print(catalogue.listing())
    return 0


def cmd_fetch(a: argparse.Namespace) -> int:
    from fcsim import fetch

    for name in a.names:
        bar = Bar(f"fetching {name}")

        def progress(done: int, total: int, bar: Bar = bar) -> None:
            bar(done / total, f"{done / 1e6:,.1f} of {total / 1e6:,.1f} MB")

        try:
            path = fetch.fetch(
                name,
                progress=progress,
                note=lambda message: say(f"fcsim: note: {message}"),
            )
        finally:
            bar.close()
        show(f"{name}: {path}")
    return 0


def cmd_convert(a: argparse.Namespace) -> int:
    bar = Bar("converting")
    try:
        info = fcsim.convert(
            a.trace,
            a.output,
            to=a.to,
            annotate_next=a.annotate_next,
            progress=lambda d, t: bar(d / t if t else 0.0),
            **_common(a),
        )
    finally:
        bar.close()
    show(
        f"wrote {a.output}: {info['requests']:,} requests, {info['page_accesses']:,} page accesses, "
        f"{info['unique_pages']:,} unique pages"
    )
    for note in info["dropped"]:
        say(f"fcsim: note: {note}")
    say_skipped(info["bad_lines"], a.trace)
    return 0


def cmd_clone(a: argparse.Namespace) -> int:
    c = _common(a)
    if c.pop("page_size") != 4096:
        raise fcsim.ConfigError(
            f"--page-size {a.page_size}: a clone model counts 4 KiB pages; "
            "give --page-size to the run of the clone"
        )
    info = fcsim.clone(a.trace, a.output, **c)
    # A spec's keys are split at commas: a path with one cannot be named in it.
    use = (
        f"use it as synth:clone={a.output}[,scale=K][,length=N][,seed=S]"
        if "," not in a.output
        else "its path holds a comma, which a synth: spec cannot (its keys are split at commas): "
        "rename it to use it as synth:clone=MODEL"
    )
    show(
        f"wrote {a.output}: a clone model of {info['source']} ({info['requests']:,} requests, "
        f"{info['pages']:,} pages of 4 KiB); {use}"
    )
    for note in info["notes"]:
        say(f"fcsim: note: {note}")
    bad = info["bad_lines"]  # of the original, also when the input was a model fitted from it
    if bad:
        say(f"fcsim: the model was fitted skipping {bad:,} malformed line(s) of {info['source']}")
    return 0


def cmd_mrc(a: argparse.Namespace) -> int:
    inputs = _check_outputs(a)
    common = _common(a)
    if a.at is not None and a.sizes is not None:
        raise fcsim.ConfigError("give --at or --sizes, not both (for minisim they are the same)")
    at_sizes = None if a.at is None else _split_list(a.at)
    if at_sizes is not None:
        if not at_sizes:
            raise fcsim.ConfigError("--at: expected sizes, e.g. --at 64MiB,1%,5000")
        for s in at_sizes:
            _core.check_size(s)
    sizes = None if a.sizes is None else _split_list(a.sizes)
    if a.method == "minisim" and at_sizes is not None:
        sizes = at_sizes
    stacked = (
        a.device is not None
        or a.metrics is not None
        or any(k.startswith(("stack.", "device.")) for k in common["set"])
    )
    if stacked and a.method != "minisim":
        raise fcsim.ConfigError("--device, --metrics and stack./device. keys are for --method minisim")
    if a.method == "exact" and a.seed is not None:
        raise fcsim.ConfigError(
            f"--seed {a.seed}: the exact curve samples nothing (a seed is for shards and minisim)"
        )
    a.seed = a.seed or 0
    if stacked:
        return _mrc_stack(a, inputs, common, sizes)
    if a.seeds is None:
        a.seeds = 1
    if a.seeds != 1:
        return _mrc_seeds(a, inputs, common, sizes if a.method == "minisim" else at_sizes)
    if a.compare and a.method != "exact":
        return _mrc_compared(a, inputs, common, sizes if a.method == "minisim" else at_sizes)
    bar = Bar("computing MRC")
    try:
        curve = fcsim.mrc(
            a.trace,
            a.method,
            rate=a.rate,
            max_samples=a.max_samples,
            policy=a.policy,
            sizes=sizes,
            seed=a.seed,
            progress=lambda d, t: bar(d / t if t else 0.0),
            **common,
        )
    finally:
        bar.close()
    at = curve.attrs
    _curve_head(a.method, at)
    say_skipped(at["bad_lines"], a.trace)
    if a.method == "minisim":
        pages = [int(p) for p in curve["size_pages"]]
        ws = at["cold"]
        if at_sizes is not None:
            by_pages = {_core.size_pages(s, a.page_size, ws): s for s in at_sizes}
            rows = [(by_pages.get(p, f"{p:,}"), p) for p in pages]
        else:
            rows = [(f"{p / ws:.2%}" if ws else "-", p) for p in pages]
        _print_rows(rows, list(curve["miss_ratio"]), None, "", list(curve["mini_size_pages"]))
        _mini_uncertain(curve, [label for label, _ in rows])
        _write_mrc(a, inputs, curve, None, "")
        return 0
    _write_mrc(a, inputs, curve, None, "")
    # Sizes as `run` resolves them (a percent of the working set rounds half away from zero); the
    # default shares of a tiny working set are at least one page.
    if at_sizes is not None:
        rows = [(label, _core.size_pages(label, a.page_size, at["cold"])) for label in at_sizes]
    else:
        rows = [(f"{s:.0%}", fcsim.api.share_pages(s, a.page_size, at["cold"])) for s in fcsim.api.MRC_SHARES]
    _print_rows(rows, [fcsim.mrc_at(curve, pages) for _, pages in rows], None, "", None)
    if a.compare:
        print("(--compare: the exact curve is its own reference)")
    return 0


def _mini_uncertain(curve: pd.DataFrame, labels: list[str]) -> None:
    """A warning naming the sizes where a policy's miniature hit ratio is uncertain by more than
    the stack's target (:data:`fcsim.api.MINI_HIT_RATIO_TARGET`): 1.96 standard errors from
    which pages the sample holds (``hit_ratio_se``), or, where the sample has no hit or only
    hits (a standard error of 0), that of a share of one half over its sampled accesses."""
    n = int(curve.attrs.get("samples") or 0)
    worst, where = 0.0, []
    for label, p, se in zip(labels, curve["hit_ratio"], curve["hit_ratio_se"], strict=True):
        u = 1.96 * se if se > 0 and not (p <= 0 or p >= 1) else 1.96 * (0.25 / max(n, 1)) ** 0.5
        if u > fcsim.api.MINI_HIT_RATIO_TARGET:
            worst, where = max(worst, u), [*where, label]
    if where:
        say(
            f"fcsim: warning: at {len(where)} of {len(labels)} sizes ({', '.join(where)}) the miniature's "
            f"hit ratio is uncertain by up to ±{worst:.3f} from which pages its sample holds "
            f"({n:,} sampled accesses): a larger --rate, or --seeds N --compare for the spread"
        )


def _mrc_stack(
    a: argparse.Namespace, inputs: list[str], common: dict[str, Any], sizes: list[str] | None
) -> int:
    """`fcsim mrc --method minisim` of a whole stack (a device, `stack.`/`device.` keys or
    `--metrics`): each size's estimates as mean ± 95% CI over the seeds (default 5), warnings
    beside the sizes where an estimate may mislead."""
    if a.policy is None:
        raise fcsim.ConfigError("minisim needs a policy (--policy P)")
    if a.compare:
        raise fcsim.ConfigError(
            "--compare with a device: the full runs are 'fcsim run'; bench/minisim_flash.py compares them"
        )
    seeds = fcsim.api.DEFAULT_MINISIM_SEEDS if a.seeds is None else seeding.count(a.seeds)
    bar = Bar(f"miniatures of {seeds} seeds")
    try:
        df = fcsim.minisim(
            a.trace,
            a.policy,
            sizes,
            rate=fcsim.api.DEFAULT_MINISIM_RATE if a.rate is None else a.rate,
            seeds=seeds,
            seed=a.seed,
            device=a.device,
            metrics=a.metrics,
            progress=lambda d, t: bar(d / t if t else 0.0),
            **common,
        )
    finally:
        bar.close()
    at = df.attrs
    say_skipped(at["bad_lines"], a.trace)
    wanted = at["metrics"].split(",")
    s = fcsim.minisim_summary(df, wanted)
    cols = {
        "hit_ratio": ("hit_ratio", "{:.4f}"),
        "read_hit_ratio": ("read_hit_ratio", "{:.4f}"),
        "flash_page_writes": ("flash_page_writes", "{:,.0f}"),
        "erasures": ("erasures", "{:,.0f}"),
        "wa": ("write_amplification", "{:.3f}"),
    }
    where = f"over the {at['device']} device" if at["device"] else "(no device)"
    print(
        f"{at['accesses']:,} accesses; minisim of {at['policy']} {where} at R={at['rate']:g}, "
        f"{seeds} seeds of the sampling hash ({a.seed}..{a.seed + seeds - 1}); "
        "each estimate is mean ± 95% CI over the seeds; counts scaled by 1/R"
    )
    head = ["size", "pages", "mini", *wanted]
    cells = []
    for _, r in s.iterrows():
        row = [str(r["size"]), f"{r['size_pages']:,}", f"{r['mini_size_pages']:,}"]
        for m in wanted:
            col, fmt = cols[m]
            row.append(seeding.pm(r[col], r[f"{col}_ci95"], fmt) or "-")
        cells.append(row)
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
    for row in cells:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
    for _, r in s.iterrows():
        if r["warnings"]:
            say(
                f"fcsim: warning: size {r['size']}: {r['warnings']}: "
                "the estimate there may mislead (see README)"
            )
    print("response time: not estimated (the miniature's chips, queues and disk are not scaled faithfully)")
    if a.out:
        output.write_table(df, a.out, inputs)
        say(f"fcsim: wrote {a.out} (each seed's estimates and the miniatures' own counts per size)")
    return 0


def _curve_head(method: str, at: dict[str, Any]) -> None:
    """The line that leads a printed curve: its accesses, working set and sampling."""
    sample = f"{at['samples']:,} sampled accesses, {at['sampled_pages']:,} sampled pages"
    ws = at["cold"]
    if method == "exact":
        print(f"{at['accesses']:,} accesses, {ws:,} unique pages (LRU, exact)")
    elif method == "minisim":
        print(
            f"{at['accesses']:,} accesses, {ws:,} unique pages ({at['policy']}, minisim at R={at['rate']:g}; "
            f"{sample})"
        )
    else:
        how = (
            f"fixed rate R={at['rate']:g}"
            if at["max_samples"] is None
            else f"fixed size s_max={at['max_samples']:,}, final R={at['rate']:.4g}"
        )
        print(f"{at['accesses']:,} accesses, about {ws:,} unique pages (LRU, SHARDS {how}; {sample})")


def _mrc_compared(
    a: argparse.Namespace, inputs: list[str], common: dict[str, Any], at: list[str] | None
) -> int:
    """`fcsim mrc --compare` of a sampled curve (shards or minisim), one seed: the curve and its
    reference at each size, as :func:`fcsim.api.mrc_comparison` computes them."""
    bar = Bar("computing the curve and its reference")
    try:
        result = fcsim.api.mrc_comparison(
            a.trace,
            a.method,
            rate=a.rate,
            max_samples=a.max_samples,
            policy=a.policy,
            at=at,
            seed=a.seed,
            progress=lambda d, t: bar(d / t if t else 0.0),
            **common,
        )
    finally:
        bar.close()
    curve, t = result.curves[0], result.rows
    _curve_head(a.method, curve.attrs)
    say_skipped(curve.attrs["bad_lines"], a.trace)
    if a.method == "minisim":
        ref_name, mini = f"full {curve.attrs['policy']} runs", list(curve["mini_size_pages"])
    else:
        ref_name, mini = "exact LRU", None
        print(f"sizes are shares of the exact working set, {result.reference.attrs['cold']:,} pages")
    rows = list(zip(t["size"], (int(p) for p in t["size_pages"]), strict=True))
    _print_rows(rows, list(t["miss_ratio"]), list(t["reference"]), ref_name, mini)
    _write_mrc(a, inputs, curve, result.reference, ref_name)
    return 0


def _mrc_seeds(a: argparse.Namespace, inputs: list[str], common: dict[str, Any], at: list[str] | None) -> int:
    """`fcsim mrc --compare --seeds N`: the sampled curve with N seeds of its hash against its
    reference; each size's miss ratio and error as mean ± 95% CI, each seed's mean absolute
    error, and theirs as mean ± 95% CI (Student t)."""
    seeding.count(a.seeds)
    if a.method == "exact":
        raise fcsim.ConfigError("--seeds: the exact curve samples nothing (seeds are for shards and minisim)")
    if not a.compare:
        raise fcsim.ConfigError(
            "--seeds N measures a sampled curve's error over N seeds of its hash: add --compare"
        )
    bar = Bar(f"computing {a.seeds} sampled curves and the reference")
    try:
        df = fcsim.mrc_compare(
            a.trace,
            a.method,
            rate=a.rate,
            max_samples=a.max_samples,
            policy=a.policy,
            at=at,
            seed=a.seed,
            seeds=a.seeds,
            progress=lambda d, t: bar(d / t if t else 0.0),
            **common,
        )
    finally:
        bar.close()
    at0 = df.attrs["curve"]
    say_skipped(at0["bad_lines"], a.trace)
    ref = "exact LRU" if a.method == "shards" else f"full {at0['policy']} runs"
    how = (
        f"SHARDS at R={at0['rate']:g}"
        if a.method == "shards" and at0["max_samples"] is None
        else f"SHARDS with s_max={at0['max_samples']:,}"
        if a.method == "shards"
        else f"minisim of {at0['policy']} at R={at0['rate']:g}"
    )
    n = df.attrs["seeds"]
    mae = df.groupby("seed", sort=True)["abs_error"].mean()
    mae_mean, mae_ci95, _ = seeding.ci95(mae)
    print(
        f"{at0['accesses']:,} accesses; {how}, {n} seeds of the sampling hash ({a.seed}..{a.seed + n - 1}); "
        f"reference: {ref}"
    )
    head = ("size", "pages", "miss_ratio (mean ± 95% CI)", "reference", "abs_error (mean ± 95% CI)")
    print(f"{head[0]:>8} {head[1]:>12} {head[2]:>28} {head[3]:>10} {head[4]:>27}")
    for (label, pages), g in df.groupby(["size", "size_pages"], sort=False):
        m, mh, _ = seeding.ci95(g["miss_ratio"])
        e, eh, _ = seeding.ci95(g["abs_error"])
        print(
            f"{label:>8} {pages:>12,} {seeding.pm(m, mh, '{:.4f}'):>28} {g['reference'].iloc[0]:>10.4f} "
            f"{seeding.pm(e, eh, '{:.4f}'):>27}"
        )
    if a.out:
        output.write_table(df, a.out, inputs)
    if a.plot:
        plot.mrc_seeds_plot(df, a.plot, ref_label=ref, how=how)
    print("mean absolute error of each seed: " + ", ".join(f"{s}: {v:.4f}" for s, v in mae.items()))
    print(
        f"mean absolute error {seeding.pm(mae_mean, mae_ci95, '{:.4f}')} "
        f"(mean ± 95% confidence interval, Student t, over {n} seeds; each seed's MAE is the mean over the "
        f"{df['size'].nunique()} sizes above of |miss ratio - reference|)"
    )
    if a.out:
        say(f"fcsim: wrote {a.out} (each seed's miss ratio, reference and error per size)")
    if a.plot:
        say(f"fcsim: wrote {a.plot} (mean curve, 95% band over the seeds, reference)")
    return 0


def _write_mrc(
    a: argparse.Namespace,
    inputs: list[str],
    curve: pd.DataFrame,
    reference: pd.DataFrame | None,
    ref_name: str,
) -> None:
    """``--out`` and ``--plot`` of `fcsim mrc`: the curve and, with ``--compare``, its reference
    at each of its sizes (``reference``, ``abs_error`` columns) and drawn beside it."""
    if a.out:
        table = curve
        if reference is not None:
            table = curve.copy()
            table["reference"] = [fcsim.mrc_at(reference, int(p)) for p in curve["size_pages"]]
            table["abs_error"] = (table["miss_ratio"] - table["reference"]).abs()
            table.attrs.update(curve.attrs, reference=ref_name)
        output.write_table(table, a.out, inputs)
        say(
            f"fcsim: wrote {a.out} (the curve{', its reference and errors' if reference is not None else ''})"
        )
    if a.plot:
        plot.mrc_plot(curve, a.plot, reference=reference, ref_label=ref_name)
        say(f"fcsim: wrote {a.plot} (figure)")


def _print_rows(
    rows: list[tuple[str, int]],
    ratios: list[float],
    ref: list[float] | None,
    ref_name: str,
    mini: list[int] | None,
) -> None:
    head = f"{'size':>8} {'pages':>12}" + (f" {'mini pages':>10}" if mini else "") + f" {'miss_ratio':>10}"
    if ref is not None:
        head += f" {'reference':>10} {'abs_error':>10}"
    print(head)
    for i, ((label, pages), mr) in enumerate(zip(rows, ratios, strict=True)):
        line = f"{label:>8} {pages:>12,}" + (f" {mini[i]:>10,}" if mini else "") + f" {mr:>10.4f}"
        if ref is not None:
            line += f" {ref[i]:>10.4f} {abs(mr - ref[i]):>10.4f}"
        print(line)
    if ref is not None:
        mae = sum(abs(m - r) for m, r in zip(ratios, ref, strict=True)) / len(ref)
        print(
            f"mean absolute error {mae:.4f}: the mean over the {len(ref)} sizes above of "
            f"|miss ratio - miss ratio of the reference ({ref_name})|"
        )


def cmd_formats(_: argparse.Namespace) -> int:
    for f in fcsim.formats():
        print(f"{f['name']:<15} {f['description']}  [time: {f['time_unit']}]")
    return 0


def cmd_policies(_: argparse.Namespace) -> int:
    for p in fcsim.policies():
        params = f"  params: {', '.join(p['params'])}" if p["params"] else ""
        needs = "  [needs --device: the buffer over a flash SSD]" if p["needs_device"] else ""
        print(f"{p['name']:<10} {p['description']}  ({p['source']}){params}{needs}")
    return 0


DEVICE_STATES = """
The drive's state when the run starts (the device_state column of every row):
  fresh     nothing written (fill=0; gasa, dynamic, offline): every block erased, so GC starts only once
            the run has written more than the spare space; short traces see write amplification 1.
  filled    fill=F of user capacity written once before the run (lcr: fill=1): every page mapped, but
            GC still starts only once the run overwrites the spare space.
  aged Nx   filled, then steady=N x user capacity of random overwrites (seeded by device.seed): blocks
            hold valid and invalid pages and GC runs from the first writes, as on a drive in service.
            Set device.steady=1 to measure write amplification, erasures and tail response times of
            a drive in use (on lcr it takes seconds, once per process and configuration)."""


def cmd_admissions(_: argparse.Namespace) -> int:
    for a in fcsim.admissions():
        knob = f"  knob: {a['knob']} (larger admits more)" if a["knob"] else ""
        print(f"{a['name']:<10} {a['description']}  ({a['source']}){knob}")
        for p in a["params"]:
            if p["words"]:
                default = p["words"][int(p["default"])]
                took = " or ".join(p["words"])
            else:
                default = f"{p['default']:g}"
                took = f"{p['lo']:g} to {p['hi']:g}"
            print(f"           admit.{p['name']}={default}  {p['meaning']} ({took})")
    print("\nPick one with --admit NAME (a list makes an axis); set a parameter with --set admit.KEY=V.")
    return 0


def cmd_devices(_: argparse.Namespace) -> int:
    for d in fcsim.devices():
        values = " ".join(f"{k}={v}" for k, v in d["values"].items())
        print(f"{d['name']:<9} {values}\n          ({d['source']})")
    print("\nOverride any value with --set device.KEY=VALUE; device.capacity=BYTES sets user capacity.")
    print(DEVICE_STATES)
    return 0


def cmd_sweep(a: argparse.Namespace) -> int:
    from fcsim import sweep

    out = a.out or f"{Path(a.experiment).stem}.parquet"
    exp = sweep.load(a.experiment, a.traces)
    if a.seeds is not None:
        exp.seeds = seeding.count(a.seeds)
    if a.admit is not None:
        for part in exp.parts:
            part.admissions = _split_list(a.admit)
    total = len(exp.points())
    bar = Bar("sweeping")

    def progress(fraction: float) -> None:
        bar(fraction, f"{round(fraction * total)}/{total} points")

    def notify(message: str) -> None:
        bar.close()
        say(f"fcsim: {message}")

    try:
        df = sweep.run(
            exp,
            out,
            jobs=a.jobs,
            scheduler=a.scheduler,
            progress=progress,
            notify=notify,
            keep_stale=a.keep_stale,
        )
    finally:
        bar.close()
    say_notes(df)
    if exp.seeds > 1:
        summary = output.beside(out, "seeds")
        output.write_table(sweep.summarize_seeds(df), summary, exp.inputs)
        show(f"wrote {summary}: each point's mean and 95% confidence interval over its seeds")
    at = df.attrs
    ours = "" if at["table_points"] == len(df) else f", {len(df)} of them this experiment's"
    done = f"{at['computed']} computed now, {at['reused']} reused"
    show(f"wrote {out}: {at['table_points']} points{ours} ({done})")
    return 0


def cmd_pareto(a: argparse.Namespace) -> int:
    from fcsim import pareto

    inputs = _check_outputs(a)
    budgets = None
    if a.budgets is not None:
        try:
            budgets = [float(b) for b in _split_list(a.budgets)]
        except ValueError:
            raise fcsim.ConfigError(
                f"--budgets {a.budgets}: expected drive writes per day, comma-separated"
            ) from None
        if not budgets:
            raise fcsim.ConfigError("--budgets: expected drive writes per day, comma-separated")
    bar = Bar("simulating")
    try:
        df = pareto.run(
            a.trace,
            a.policy,
            _split_list(a.admit),
            a.size,
            device=a.device,
            budgets=budgets,
            points=a.points,
            jobs=a.jobs,
            progress=bar,
            **_common(a),
        )
    finally:
        bar.close()
    wrote = []
    if a.out:
        output.write_table(df, a.out, inputs)
        wrote.append(f"{a.out} (rows)")
    if a.plot:
        pareto.plot(df, a.plot)
        wrote.append(f"{a.plot} (figure)")
    if not a.quiet:
        show(tables.format_table(df, [c for c in pareto.SHOWN if c in df.columns]))
    reasons = df["dwpd_null_reason"].dropna().unique() if "dwpd_null_reason" in df else []
    for why in reasons:
        say(f"fcsim: note: dwpd is n/a: {why}; the frontier ranks by cache_writes instead")
    say_notes(df)
    say_skipped(int(df["bad_lines"].max()) if "bad_lines" in df else 0, a.trace)
    for line in wrote:
        say(f"fcsim: wrote {line}")
    return 0


def cmd_reproduce(a: argparse.Namespace) -> int:
    from fcsim import reports

    out = a.out or f"results/{a.paper}"
    bar = Bar(f"reproducing {a.paper}")
    try:
        summary = reports.reproduce(
            a.paper,
            out,
            traces_dir=a.traces,
            jobs=a.jobs,
            scheduler=a.scheduler,
            progress=bar,
            only=a.only,
            notify=say,
            keep_stale=a.keep_stale,
            seeds=a.seeds,
        )
    finally:
        bar.close()
    show(f"wrote {summary} and the plots and table beside it")
    return 0


def cmd_plot(a: argparse.Namespace) -> int:
    """`fcsim plot TABLE --x COL --y COL[,COL] [--by COL] [--facet COL]`: any result or epoch
    table drawn by :func:`fcsim.plot.figure`."""
    table = plot.load_table(a.table)
    for cond in a.where or []:
        col, eq, value = cond.partition("=")
        if not eq:
            raise fcsim.ConfigError(f"--where {cond}: expected COLUMN=VALUE")
        plot.check_columns(table, [col], a.table)
        table = table[table[col].astype(str) == value]
        if table.empty:
            raise fcsim.ConfigError(f"--where {cond}: no row of {a.table} has {col} = {value}")
    ys = _split_list(a.y)
    if not ys:
        raise fcsim.ConfigError("--y names no column")
    out = a.out or str(Path(a.table).with_name(f"{Path(a.table).name.split('.')[0]}.{ys[0]}.png"))
    plot.check_path(out, [a.table])
    plot.check_columns(table, [a.x, *ys, *(c for c in (a.by, a.facet) if c)], a.table)
    for c in ys:
        if not pd.api.types.is_numeric_dtype(table[c]) or pd.api.types.is_bool_dtype(table[c]):
            raise fcsim.ConfigError(f"{a.table}: column {c!r} is not numeric; --y takes numeric columns")
    varied = [] if a.facet else plot.settings_mixed(table, [c for c in (a.by, a.x) if c], ys)
    plot.figure(
        table,
        a.x,
        ys,
        by=a.by,
        facet=a.facet,
        path=out,
        kind=a.kind,
        zero=not a.data_range,
        ylog=a.log_y,
        xlog=True if a.log_x else None,
        title=a.title,
        mixed="facet",
    )
    if varied:
        say(f"fcsim: note: rows differ in {', '.join(varied)} on no axis: one panel per value (--facet)")
    show(f"wrote {out}")
    return 0


SEEDS_HELP = (
    "run every random point (a synth: trace, a seeded policy such as pt-lru, a drive aged or filled at "
    "random) with N seeds: seed + 0 .. seed + N-1 of each seeded component; adds a summary with each "
    "metric's mean and 95%% confidence interval (Student t)"
)
KEEP_STALE_HELP = (
    "reuse points of the table made by another fcsim version or revision (by default they are computed again)"
)


SCHEDULER_HELP = (
    "run on the Dask cluster at this address (tcp://HOST:8786) instead of a local pool; its workers "
    "need fcsim (pip install 'fcsim[dask]') and the traces at the same paths"
)


class Parser(argparse.ArgumentParser):
    """A misused option is one line on stderr and exit 2, as every other error (argparse prints
    the whole usage); subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, printable(f"{self.prog}: error: {message} (see '{self.prog} --help')") + "\n")


def parser() -> argparse.ArgumentParser:
    ap = Parser(prog="fcsim", description="FlashCacheSim: caches on and in front of flash")
    ap.add_argument(
        "--version", action="version", version=f"fcsim {fcsim.__version__} (revision {fcsim.__revision__})"
    )
    sub = ap.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="simulate policies x sizes over a trace")
    run.add_argument(
        "trace",
        help="trace file, catalogue name (msr/web_0, from the trace cache), or synth:KIND,key=value,...",
    )
    run.add_argument("--policy", required=True, help="policy name(s), comma-separated")
    run.add_argument("--size", help="cache size(s): pages, bytes (64MiB) or percent (5%%)")
    run.add_argument(
        "--device",
        help="flash SSD preset(s) behind the cache, comma-separated (lcr, gasa, dynamic, offline); "
        "see 'fcsim devices'",
    )
    run.add_argument(
        "--admit",
        metavar="NAME[,NAME...]",
        help="the flash cache's admission policy (stack.kind=ssd-cache), comma-separated: an axis "
        "(default all: every miss may enter); see 'fcsim admissions'",
    )
    run.add_argument("--json", action="store_true", help="print one JSON object per result row")
    run.add_argument("--out", help="write the results to FILE (.csv, .parquet, .json, .jsonl)")
    run.add_argument(
        "--plot",
        metavar="FILE.png",
        help="plot hit ratio (and, with a device, flash writes and p99 response) against cache size, "
        "one line per policy (.png, .svg or .pdf)",
    )
    run.add_argument(
        "--epoch",
        metavar="SPAN",
        help="a per-epoch time series of every run: epochs of simulated time (60s, 5min) or of a number "
        "of requests (100000; traces without timestamps); with --out FILE written to FILE.epochs.EXT "
        "beside the rows, with --plot FILE.png drawn to FILE.epochs.png, else printed under the rows",
    )
    run.add_argument("--jobs", type=int, help="parallel runs (default: cores)")
    run.add_argument("-q", "--quiet", action="store_true", help="print no table")
    run.add_argument("--seeds", type=int, default=1, metavar="N", help=SEEDS_HELP)
    run.add_argument(
        "--columns",
        metavar="COL[,COL...]",
        help="the columns of the printed table (default: the metrics of the mode run; --json shows all)",
    )
    _trace_args(run)
    run.set_defaults(func=cmd_run)

    mrc = sub.add_parser(
        "mrc", help="miss-ratio curve in one pass: LRU's (exact or SHARDS), any policy's (minisim)"
    )
    mrc.add_argument("trace")
    mrc.add_argument(
        "--method",
        choices=["exact", "shards", "minisim"],
        default="exact",
        help="exact: LRU's exact curve (stack distances); shards: LRU's curve from a spatially hashed "
        "sample of the pages (--rate R, or --max-samples S; default --max-samples 8192); minisim: "
        "--policy P's miss ratios at --sizes from miniature caches on a sample at --rate "
        "(default 0.01)",
    )
    mrc.add_argument("--rate", type=float, help="sampling rate R in (0, 1] (shards fixed rate, minisim)")
    mrc.add_argument(
        "--max-samples", type=int, help="shards fixed size: at most S sampled pages (memory O(S))"
    )
    mrc.add_argument("--policy", help="the policy of a minisim curve (see 'fcsim policies')")
    mrc.add_argument(
        "--sizes",
        help="minisim cache sizes, comma-separated: pages, bytes (64MiB) or percent (5%%); "
        "default 10 log-spaced shares of the working set from 1%% to 100%%",
    )
    mrc.add_argument(
        "--at",
        metavar="SIZES",
        help="print the miss ratio at these cache sizes, comma-separated: pages, bytes (64MiB) or percent "
        "of the working set (5%%), resolved as 'fcsim run' resolves --size; default 1%%..100%%",
    )
    mrc.add_argument("--seed", type=int, help="seed of the sampling hash (default 0; shards and minisim)")
    mrc.add_argument(
        "--seeds",
        type=int,
        default=None,
        metavar="N",
        help="with --compare: sample with N seeds (--seed + 0 .. N-1) and print the mean absolute error "
        "as mean +- 95%% confidence interval (Student t), and each seed's; a stack's minisim "
        "(--device/--metrics) prints each estimate's spread over N seeds (default 5)",
    )
    mrc.add_argument(
        "--device",
        help="minisim of the whole stack: the policy as a DRAM buffer over this flash device preset, the "
        "device scaled by R with the cache (also with --set stack.kind=ssd-cache, a flash cache over a disk)",
    )
    mrc.add_argument(
        "--metrics",
        metavar="M[,M...]",
        help="a stack's minisim estimates: hit_ratio, read_hit_ratio, flash_page_writes, erasures, wa "
        "(default all; the last three need a device)",
    )
    mrc.add_argument(
        "--compare",
        action="store_true",
        help="also print each size's reference and the mean absolute error: against the exact curve "
        "(shards), or full simulations of the policy at the same sizes (minisim)",
    )
    mrc.add_argument("--out", help="write the curve (every step) to FILE (.csv, .parquet, .json, .jsonl)")
    mrc.add_argument("--plot", metavar="FILE.png", help="write the curve as a plot (.png, .svg or .pdf)")
    _trace_args(mrc)
    mrc.set_defaults(func=cmd_mrc)

    pol = sub.add_parser("policies", help="registered policies, one line each")
    pol.set_defaults(func=cmd_policies)
    adm = sub.add_parser("admissions", help="registered admission policies, their parameters and knob")
    adm.set_defaults(func=cmd_admissions)

    dev = sub.add_parser("devices", help="flash device presets and their parameters")
    dev.set_defaults(func=cmd_devices)

    sw = sub.add_parser("sweep", help="run an experiment file (TOML grid) into one Parquet table, resumably")
    sw.add_argument("experiment", help="experiment file (.toml)")
    sw.add_argument("--out", help="Parquet table (default: EXPERIMENT.parquet); finished points are kept")
    sw.add_argument("--traces", help="directory the experiment's trace names are relative to")
    sw.add_argument("--jobs", type=int, help="worker processes (default: cores)")
    sw.add_argument("--scheduler", help=SCHEDULER_HELP)
    sw.add_argument("--seeds", type=int, metavar="N", help=SEEDS_HELP + " (default: the file's seeds, or 1)")
    sw.add_argument("--keep-stale", action="store_true", help=KEEP_STALE_HELP)
    sw.add_argument(
        "--admit",
        metavar="NAME[,NAME...]",
        help="the flash cache's admission policies, an axis of every part (replaces the file's "
        "admissions); see 'fcsim admissions'",
    )
    sw.set_defaults(func=cmd_sweep)

    par = sub.add_parser(
        "pareto",
        help="admission trade-offs: each admission's knob swept; DWPD vs read hit ratio and peak disk-head "
        "time",
    )
    par.add_argument("trace", help="trace file, catalogue name, or synth:KIND,key=value,...")
    par.add_argument("--policy", required=True, help="the flash cache's eviction policy")
    par.add_argument(
        "--admit",
        required=True,
        help="admission policies, comma-separated (see 'fcsim admissions'); all admits every miss",
    )
    par.add_argument(
        "--size", required=True, help="the flash cache's size: pages, bytes (64MiB) or percent (5%%)"
    )
    par.add_argument("--device", help="the flash cache's SSD preset (default offline); see 'fcsim devices'")
    par.add_argument(
        "--budgets",
        metavar="DWPD[,DWPD...]",
        help="run each admission at these write budgets (drive writes per day) under the budget controller "
        "instead of sweeping its knob",
    )
    par.add_argument(
        "--points", type=int, default=8, metavar="N", help="knob values per admission (default 8)"
    )
    par.add_argument("--out", help="write the table to FILE (.csv, .parquet, .json, .jsonl)")
    par.add_argument(
        "--plot",
        metavar="FILE.png",
        help="draw read hit ratio and peak disk-head time against DWPD, one curve per admission, the "
        "frontier marked (.png, .svg or .pdf)",
    )
    par.add_argument("--jobs", type=int, help="parallel runs (default: cores)")
    par.add_argument("-q", "--quiet", action="store_true", help="print no table")
    _trace_args(par)
    par.set_defaults(func=cmd_pareto)

    rep = sub.add_parser("reproduce", help="run a paper's experiment; write plots and a claims summary")
    rep.add_argument("paper", choices=PAPERS, help="the paper")
    rep.add_argument("--out", help="output directory (default: results/PAPER)")
    rep.add_argument("--traces", default="data/traces", help="trace directory (default: data/traces)")
    rep.add_argument("--jobs", type=int, help="worker processes (default: cores)")
    rep.add_argument("--scheduler", help=SCHEDULER_HELP)
    rep.add_argument(
        "--only",
        action="append",
        help="run on these of the experiment's traces only (file names or synth: specs, comma-separated "
        "or the option repeated; a spec's own commas are kept)",
    )
    rep.add_argument("--seeds", type=int, metavar="N", help=SEEDS_HELP + " (default: the experiment's)")
    rep.add_argument("--keep-stale", action="store_true", help=KEEP_STALE_HELP)
    rep.set_defaults(func=cmd_reproduce)

    pl = sub.add_parser(
        "plot", help="draw any result or epoch table: Y against X, a line per BY, a panel per FACET"
    )
    pl.add_argument("table", help="a table fcsim wrote (.parquet, .csv, .json, .jsonl)")
    pl.add_argument("--x", required=True, help="the x column")
    pl.add_argument("--y", required=True, help="the y column(s), comma-separated: a row of panels each")
    pl.add_argument("--by", help="a line (or bar) per value of this column (policy, device, ...)")
    pl.add_argument("--facet", help="a panel per value of this column (trace, ...)")
    pl.add_argument(
        "-o", "--out", metavar="OUT.png", help="the plot (.png, .svg, .pdf; default: TABLE.Y.png)"
    )
    pl.add_argument(
        "--where", action="append", metavar="COL=VALUE", help="keep the rows with this value (repeatable)"
    )
    pl.add_argument(
        "--kind", choices=("auto", "line", "bar"), default="auto", help="default: bars for a non-numeric x"
    )
    pl.add_argument("--data-range", action="store_true", help="y axes span the data, not from zero")
    pl.add_argument("--log-y", action="store_true", help="log y axes")
    pl.add_argument("--log-x", action="store_true", help="log x axis (default: when x spans over 10x)")
    pl.add_argument("--title", help="the figure's title (default: the workloads, synthetic ones marked)")
    pl.set_defaults(func=cmd_plot)

    trace = sub.add_parser(
        "trace", help="trace statistics, conversion, the public-trace catalogue and fetching"
    )
    tsub = trace.add_subparsers(dest="trace_command", required=True)
    info = tsub.add_parser("info", help="requests, read/write split, working set, sizes, volumes")
    info.add_argument("trace")
    info.add_argument("--json", action="store_true")
    _trace_args(info, trace_only=True)
    info.set_defaults(func=cmd_info)
    conv = tsub.add_parser("convert", help="write as fcsim binary (.fct), libCacheSim CSV or oracleGeneral")
    conv.add_argument("trace")
    conv.add_argument("-o", "--output", required=True)
    conv.add_argument(
        "--to", choices=["fct", "lcs-csv", "oracle-general"], help="default: from the output name"
    )
    conv.add_argument("--annotate-next", action="store_true", help="add the next-access column (.fct)")
    _trace_args(conv, trace_only=True)
    conv.set_defaults(func=cmd_convert)
    cmp = tsub.add_parser(
        "compare",
        help="fidelity report of trace B (a clone) against trace A (its original), with tolerances "
        "derived from A's halves",
        description="Measures A, its two halves (the first half of its requests and the rest), B, and "
        "a naive baseline N (synth:calibrated with A's counts): one pass each, LRU at 1% and 10% of "
        "each working set, and a policy panel's hit ratios at the same sizes. Each checked measure's "
        "tolerance is the worse of the halves' values against A (a difference at most, an agreement "
        "at least the halves' worst); a measure A cannot test (no writes, too short, no ranked pair) "
        "is untestable, never a pass. Prints B and N against A, the panel's hit ratios and the verdict "
        "(see README, 'trace compare'). Exit status 0 whenever the report prints.",
    )
    cmp.add_argument("a", metavar="A", help="the original: trace file, catalogue name or synth: spec")
    cmp.add_argument("b", metavar="B", help="the trace compared with it (a clone: synth:clone=PATH,...)")
    cmp.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: a, b, baseline, halves, panel, rows (and over_seeds with --seeds)",
    )
    cmp.add_argument(
        "--panel",
        metavar="P,P,...",
        help=f"policies ranked at 1%% and 10%% of each working set (default {','.join(fcsim.traces.PANEL)})",
    )
    cmp.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the naive baseline (synth:calibrated from A's counts)",
    )
    cmp.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="N",
        help="compare N seeds of B, a synth: spec (its seed + 0 .. N-1; A, its halves and N measured "
        "once): the report is seed index 0's, then each checked measure's score over the seeds and "
        "how many pass",
    )
    cmp.add_argument("--format", help="A's format (default: detect)")
    cmp.add_argument("--volume", type=int, help="keep only this volume of A")
    cmp.add_argument("--format-b", help="B's format (default: detect)")
    cmp.add_argument("--volume-b", type=int, help="keep only this volume of B")
    cmp.add_argument("--page-size", type=int, default=4096, help="page size in bytes (default 4096)")
    cmp.add_argument("--skip-bad-lines", action="store_true", help="skip and count malformed lines")
    cmp.add_argument(
        "--set",
        action="append",
        metavar="trace.KEY=VALUE",
        help="A's format options (and trace.skip, trace.take)",
    )
    cmp.add_argument("--set-b", action="append", metavar="trace.KEY=VALUE", help="B's format options")
    cmp.set_defaults(func=cmd_compare)
    cl = tsub.add_parser(
        "clone",
        help="fit a clone model (reuse distances, sizes, runs, arrivals) and save it: "
        "synth:clone=MODEL generates clones of any length and scale",
    )
    cl.add_argument("trace")
    cl.add_argument("-o", "--output", required=True)
    _trace_args(cl, trace_only=True)
    cl.set_defaults(func=cmd_clone)
    cat = tsub.add_parser(
        "catalogue", help="public traces fcsim knows: format, size, source, mirror, checksums, licence"
    )
    cat.set_defaults(func=cmd_catalogue)
    fetch = tsub.add_parser(
        "fetch",
        help="download catalogue traces (msr/web_0) into the trace cache ($FCSIM_TRACE_DIR), verified",
    )
    fetch.add_argument("names", nargs="+", metavar="NAME", help="catalogue name, FAMILY/VOLUME")
    fetch.set_defaults(func=cmd_fetch)
    fmts = tsub.add_parser("formats", help="supported trace formats")
    fmts.set_defaults(func=cmd_formats)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (fcsim.TraceError, fcsim.ConfigError) as e:
        for line in str(e).split("\n"):  # several problems (a sweep's grid): a line each
            say(f"fcsim: error: {line}")
    except BrokenPipeError:  # the reader of stdout went away (| head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        say(f"fcsim: error: {e}")
    except KeyboardInterrupt as e:
        say(f"fcsim: {str(e) or 'interrupted'}")
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
