"""Plots of fcsim results (matplotlib, no display needed).

One drawing function, :func:`figure`, draws every plot fcsim writes: the CLI's ``fcsim plot``,
``fcsim run --plot``, and the figures of ``fcsim reproduce``. Its rules are what a reader needs
to trust a figure:

- **Small multiples, not wide bar groups.** One panel per value of ``facet`` (at most
  :data:`MAX_COLS` panels a row, wrapped), and one row of panels per ``y`` column; one line (or
  bar) per value of ``by``, in the same colour in every panel.
- **Honest axes.** A linear y axis starts at zero when every value is non-negative
  (``zero=True``, the default); with ``zero=False`` it spans the data, but never less than
  :data:`MIN_SPAN` of the largest magnitude, so that a difference of 0.03% is drawn as the flat
  line it is. Tick labels are plain numbers (``0.4638``, ``350k``, ``2.1M``), never an offset
  or a shared ``1e-5+4.638e-1`` factor.
- **Nothing clipped, nothing hidden.** The layout is matplotlib's constrained layout, which
  keeps every tick label, axis label and title inside the figure; the legend sits outside the
  panels (right of them), never over a line. :func:`outside` checks it.
- **A readable size.** Panels are :data:`PANEL` inches, at most :data:`MAX_COLS` across.
- **Synthetic workloads say so.** :func:`workload_label` names a ``synth:`` spec, a workload
  profile included, as synthetic in every title and label made from a trace name.
- **One x value is not a stack.** Lines over an x with a single value (one cache size) would put
  every ``by`` value on one x position; such a plot is drawn as bars, one per ``by`` value.
- **Saturation is said, never hidden** (issue 30: no response time without the load it was
  measured under). Where the table says how loaded its rows were (``saturated``, and ``timing``
  or ``queue_depth``; :func:`fcsim.notes.saturation`), a point of a time metric
  (:func:`timed_metric`: response times and queues) measured under saturation is drawn
  apart: a hollow marker (a hatched bar) for a run at the trace's times that offered some server
  more than a second's work in some second, so that its queue and response grew with the run,
  legend "saturated (response grows with the run)"; a left-filled marker (a dotted hatch) for
  one that was not but queued mostly behind bursts shorter than a second (``mostly_queueing``),
  legend "mostly queueing (bursts under a second)"; a half-filled marker for a
  closed loop, saturated by construction (its queue depth outstanding at every instant; the
  response is the depth over the throughput), legend "closed loop: saturated by construction"
  (a cross-hatched bar).
  A point that is the mean of several rows is marked when one of them is. A reference line
  (``ref``) of a saturated run gets the same marker at its right end. And a figure of a response
  time with no load column among its x, ``by`` and ``facet`` (:func:`load_column`) says the load
  in its title: at the traces' times, scaled, or a closed loop of what depth, and the busiest
  second's offered load per device (:func:`load_line`).
"""

from __future__ import annotations

import itertools
import math
import os
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fcsim import notes, schema
from fcsim.output import atomic, guard
from fcsim.terminal import printable

#: What a plot file can be, by its name's extension.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}

#: A panel's size in inches (width, height) and the most panels in a row of a figure.
PANEL = (3.7, 2.8)
MAX_COLS = 4
#: Resolution of the PNGs fcsim writes.
DPI = 110
#: With ``zero=False``, the y axis spans at least this share of the largest |value|: a spread
#: below it (noise, a 0.03% difference) stays a flat line instead of filling the panel.
MIN_SPAN = 0.02
#: A categorical tick label longer than this many characters is wrapped onto lines.
WRAP = 16


def check_path(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> str:
    """The format of a plot file by its extension (``.png``, ``.svg``, ``.pdf``); ConfigError for
    any other, and for a path :func:`fcsim.output.guard` refuses (one of ``inputs``, a pipe or
    device, a missing directory). Called before a run, so that a bad name fails before the
    work."""
    suffix = Path(path).suffix.lower()
    kind = FORMATS.get(suffix)
    if kind is None:
        from fcsim._core import ConfigError

        raise ConfigError(
            f"{path}: a plot is {', '.join(FORMATS)} by its name, not {suffix or 'a name without extension'}"
        )
    guard(path, inputs)
    return kind


def save(fig: Any, path: str | os.PathLike[str], **options: Any) -> None:
    """Writes the matplotlib figure ``fig`` to ``path`` in the format its extension names,
    atomically (see :func:`fcsim.output.atomic`), and closes the figure."""
    kind = check_path(path)
    import matplotlib.pyplot as plt

    options.setdefault("dpi", DPI)
    # Text from input (a trace's file name in a title, legend or tick) with control characters
    # would have no glyph: matplotlib warns about it on stderr, naming its own source file. It
    # is drawn escaped instead (\x1b), as the command line prints it.
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        text = t.get_text()
        if not text.isprintable():
            t.set_text("\n".join(printable(line) for line in text.split("\n")))
    try:
        with atomic(path) as tmp:
            fig.savefig(tmp, format=kind, **options)
    finally:
        plt.close(fig)


def workload_label(name: object) -> str:
    """A workload's name as a title or legend shows it: a trace file without its extensions
    (``cloudphysics_vscsi_2h.csv.gz`` -> ``cloudphysics_vscsi_2h``), and a synthetic workload
    (a ``synth:`` spec) marked as such: ``synth:profile=lcr-web_0,scale=0.1`` -> ``lcr-web_0
    (synthetic profile, scale 0.1)``, ``synth:zipf,alpha=0.9`` -> ``synthetic: zipf,
    alpha=0.9``. A report that renames a profile's rows after the paper's trace it stands for
    must label them from the spec, not from that name."""
    s = str(name)
    if not s.startswith("synth:"):
        return Path(s).name.split(".")[0] if s else s
    body = s.removeprefix("synth:")
    keys = dict(kv.split("=", 1) for kv in body.split(",") if "=" in kv)
    if "profile" in keys:
        rest = [f"{k} {v}" for k, v in keys.items() if k not in ("profile", "seed")]
        return f"{keys['profile']} (synthetic profile{', ' + ', '.join(rest) if rest else ''})"
    return "synthetic: " + body.replace(",", ", ")


def is_synthetic(name: object) -> bool:
    """Whether a trace name is a synthetic workload (a ``synth:`` spec, a profile included)."""
    return str(name).startswith("synth:")


def plain_formatter() -> Any:
    """A matplotlib tick formatter that writes plain numbers: no offset, no shared ``1e6``
    factor. Values from 10,000 up are written with a k, M (from 10^6) or G (from 10^9) suffix
    (``350k``, ``2.1M``);
    each axis gets the fewest decimals that tell its ticks apart and write each exactly."""
    from matplotlib.ticker import Formatter

    class Plain(Formatter):  # type: ignore[misc]
        def __init__(self) -> None:
            self.scale, self.suffix, self.decimals = 1.0, "", 0

        def set_locs(self, locs: Sequence[float]) -> None:
            super().set_locs(locs)
            xs = [float(v) for v in locs if math.isfinite(v)]
            top = max((abs(v) for v in xs), default=0.0)
            self.scale, self.suffix = 1.0, ""
            for scale, suffix, least in ((1e9, "G", 1e9), (1e6, "M", 1e6), (1e3, "k", 1e4)):
                if top >= least:
                    self.scale, self.suffix = scale, suffix
                    break
            xs = sorted(v / self.scale for v in xs)
            steps = [b - a for a, b in itertools.pairwise(xs) if b > a]
            step = min(steps, default=abs(xs[0]) if xs and xs[0] else 1.0)
            self.decimals = 0
            for d in range(12):
                self.decimals = d
                if all(abs(round(v, d) - v) < step * 1e-3 for v in xs):
                    break

        def __call__(self, x: float, pos: int | None = None) -> str:
            v = x / self.scale
            text = f"{v:.{self.decimals}f}"
            if float(text) == 0:
                text = "0"
            return text + (self.suffix if text != "0" else "")

    return Plain()


#: Legend names of saturated points (:func:`figure`), by :func:`fcsim.notes.saturation` label.
SATURATED = {
    notes.QUEUE: "saturated (response grows with the run)",
    notes.BURST: "mostly queueing (bursts under a second)",
    notes.CLOSED: "closed loop: saturated by construction",
}
#: Hatches of saturated bars, by :func:`fcsim.notes.saturation` label.
HATCH = {notes.QUEUE: "////", notes.BURST: "..", notes.CLOSED: "xx"}


def timed_metric(col: str) -> bool:
    """Whether saturation changes a y column, so that its saturated points are marked: response
    times (``resp_*``, ``split_resp_*``, any ``*_us`` or ``*response*``) and the queues behind
    them (``*queue_mean``). Not the work done (GASA's ``runtime_s``, the chips' busy time), nor the
    peak offered loads (``*_util_peak_*``), which are the measure of saturation itself."""
    c = col.lower()
    return (
        c.startswith(("resp_", "split_resp"))
        or c.endswith("_us")
        or "response" in c
        or c.endswith("queue_mean")
    )


def response_metric(col: str) -> bool:
    """Whether a y column is a response time (its load is said with it; see :func:`figure`)."""
    c = col.lower()
    return c.startswith(("resp_", "split_resp")) or "response" in c


def load_column(col: str | None) -> bool:
    """Whether a column names the load a row ran under (``load``, ``time_scale``,
    ``queue_depth``, ``timing``, a utilisation): a figure drawn over it shows the load."""
    if not col:
        return False
    c = col.lower()
    return c in ("time_scale", "queue_depth", "timing") or "load" in c or "util" in c


def load_line(d: pd.DataFrame) -> str:
    """The load rows were measured under, in one line: how their requests arrived (at the
    traces' times, scaled by ``time_scale``, or a closed loop of ``queue_depth``) and the busiest
    second's offered load per device (``flash_util_peak_1s``, ``disk_util_peak_1s``: the work
    that arrived at the busiest server in its busiest second, over a second); empty when the
    table says neither."""
    timed = d[d["resp_mean_us"].notna()] if "resp_mean_us" in d.columns else d
    if timed.empty:
        return ""
    parts = []
    closed = notes.closed_loop(timed)
    open_rows = timed[~closed]
    if len(open_rows) and "time_scale" in open_rows.columns:
        scales = sorted(set(pd.to_numeric(open_rows["time_scale"], errors="coerce").dropna()))
        if scales == [1.0]:
            parts.append("at the traces' times")
        elif scales:
            shown = ", ".join(f"x{v:g}" for v in scales[:4]) + ("…" if len(scales) > 4 else "")
            parts.append(f"at the traces' times scaled {shown}")
    if closed.any() and "queue_depth" in timed.columns:
        depths = sorted({int(v) for v in timed.loc[closed, "queue_depth"]})
        noun = "request" if depths == [1] else "requests"
        parts.append(f"in a closed loop of {' or '.join(map(str, depths))} outstanding {noun}")
    peaks = []
    for dev in ("flash", "disk"):
        col = f"{dev}_util_peak_1s"
        if col in timed.columns and timed[col].notna().any():
            lo, hi = float(timed[col].min()), float(timed[col].max())
            span = f"{lo:.2g}x" if f"{lo:.2g}" == f"{hi:.2g}" else f"{lo:.2g}x to {hi:.3g}x"
            peaks.append(f"{dev} {span}")
    if peaks:
        parts.append("busiest second's offered load " + ", ".join(peaks))
    return "response measured " + "; ".join(parts) if parts else ""


def _point_kind(kinds: pd.Series) -> str:
    """A point's saturation from its rows' (:func:`fcsim.notes.saturation`): the open loop's
    when one row has it, else short bursts' queueing, else the closed loop's, else none."""
    values = set(kinds.dropna())
    for kind in (notes.QUEUE, notes.BURST, notes.CLOSED):
        if kind in values:
            return kind
    return ""


#: Axis names of common columns, in words with their unit (:func:`words`).
WORDS = {
    "size_pages": "cache size (pages)",
    "size": "cache size",
    "mib": "cache size (MiB)",
    "page_size": "page size (bytes)",
    "hit_ratio": "hit ratio",
    "read_hit_ratio": "read hit ratio",
    "resp_mean_us": "mean response time (µs)",
    "resp_std_us": "std of response time (µs)",
    "resp_p50_us": "median response time (µs)",
    "resp_p99_us": "p99 response time (µs)",
    "resp_p999_us": "p99.9 response time (µs)",
    "resp_max_us": "largest response time (µs)",
    "runtime_s": "overall runtime: chip busy time (s)",
    "flash_page_writes": "flash page writes",
    "flash_page_reads": "flash page reads",
    "gc_page_writes": "GC page writes",
    "write_amplification": "write amplification",
    "epbpd": "erasures per block per day",
    "fue": "flash usage effectiveness (FUE)",
    "load_balance": "load balance (max / mean chip busy)",
    "time_scale": "inter-arrival time scale (x)",
    "queue_depth": "queue depth (requests)",
    "throughput_iops": "simulated throughput (requests/s)",
    "throughput_mb_s": "simulated throughput (MB/s)",
    "requests_per_wall_s": "simulator speed (requests per wall-clock s)",
    "sim_seconds": "simulation wall time (s)",
    "stack_disks": "disks",
    "policy": "policy",
    "trace": "trace",
    "device": "device",
}
#: Unit suffixes of column names, and their words (:func:`words`).
UNITS = (
    ("_us", "µs"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_pages", "pages"),
    ("_mb_s", "MB/s"),
    ("_mib", "MiB"),
    ("_bytes", "bytes"),
)


def words(col: str) -> str:
    """A column's name as an axis, legend or panel shows it: in words with its unit
    (``resp_mean_us`` -> ``mean response time (µs)``, ``size_pages`` -> ``cache size
    (pages)``, ``flush_s`` -> ``flush (s)``); a ``--set`` axis by its key (``axis_stack_disks``
    -> ``stack.disks``)."""
    if col in WORDS:
        return WORDS[col]
    if col.startswith("axis_"):
        return notes.axis_key(col)
    if col.startswith("_"):
        return ""
    for suffix, unit in sorted(UNITS, key=lambda u: -len(u[0])):
        if col.endswith(suffix) and len(col) > len(suffix):
            return f"{col[: -len(suffix)].replace('_', ' ')} ({unit})"
    return col.replace("_", " ")


#: Marker shapes and dash styles of lines, in turn (:func:`figure`): lines that coincide stay
#: told apart by their markers of different shapes and sizes drawn one inside another.
SHAPES = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
DASHES = ("-", "--", "-.", ":")


def _colours(n: int) -> list[Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _wrap(text: str, width: int = WRAP) -> str:
    return "\n".join(textwrap.wrap(text, width, break_long_words=True)) or text


def _category_labels(ax: Any, labels: list[str], fontsize: float) -> None:
    """Sets ``labels`` under ``ax``'s categories, each wrapped to the width of its category:
    the panel's width over their number, in characters of ``fontsize`` (about 0.6 em each; the
    panel taken at 85% of its grid cell, what the constrained layout leaves it), so that
    neighbours never touch (:func:`overlapping`)."""
    fig = ax.get_figure()
    cell = ax.get_position().width * fig.get_size_inches()[0] * 72 * 0.85
    chars = int(cell / max(len(labels), 1) / (0.6 * fontsize)) - 1
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([_wrap(t, max(6, min(WRAP, chars))) for t in labels], fontsize=fontsize)


def figure(
    table: pd.DataFrame,
    x: str,
    y: str | Sequence[str],
    by: str | None = None,
    facet: str | None = None,
    path: str | os.PathLike[str] | None = None,
    *,
    kind: str = "auto",
    xlabel: str | None = None,
    ylabel: str | Mapping[str, str] | None = None,
    title: str | None = None,
    zero: bool = True,
    ylog: bool | Iterable[str] = False,
    xlog: bool | None = None,
    xbase: int = 10,
    names: Mapping[Any, str] | None = None,
    markers: Mapping[Any, str] | None = None,
    facet_names: Callable[[Any], str] | None = None,
    order: Sequence[Any] | None = None,
    ref: pd.DataFrame | None = None,
    ref_label: str = "",
    hline: float | None = None,
    legend_title: str | None = None,
    mean_over: Sequence[str] = (),
    saturation: bool | Iterable[str] | None = None,
    mixed: str = "mean",
) -> Any:
    """Draws ``y`` (a column, or several: one row of panels each) against ``x`` from ``table``,
    one line or bar per value of ``by``, one panel per value of ``facet``; writes it to ``path``
    (``.png``, ``.svg``, ``.pdf``; atomically) and returns None, or returns the matplotlib
    figure when ``path`` is None (the caller closes it).

    - ``kind``: ``"line"``, ``"bar"`` (x as categories, one bar per ``by`` value in each), or
      ``"auto"``: bars when ``x`` is not numeric, lines otherwise. Whatever the kind, an ``x``
      with one value draws one bar per ``by`` value, named on the x axis, and says the x value.
    - ``zero``: a linear y axis from zero when its values are all non-negative; False: the data
      range, at least :data:`MIN_SPAN` of the largest |value| wide. ``ylog``: True or the y
      columns drawn on a log scale. ``xlog``: log x (None: when a positive numeric x spans more
      than 10x), in base ``xbase``.
    - ``names``: legend names of ``by`` values (default: the value; a trace by
      :func:`workload_label`); ``markers``: a marker per ``by`` value; ``order``: the ``by``
      values in legend order (default: first appearance). ``facet_names``: a panel's title from
      its facet value (default: :func:`workload_label` for a trace-like column, else
      ``facet: value``).
    - ``ref``: rows of the same columns drawn as dashed horizontal lines in their ``by`` value's
      colour (a reference such as a dynamic scheme against static points), named ``ref_label``
      in the legend. ``hline``: a grey line at this y in every panel (1.0 for ratios).
    - ``legend_title``: the legend's heading (default: the ``by`` column's name).
    - Rows that fall on one point (same facet, ``by`` value and x) and differ in a setting
      (:func:`settings_mixed`: text columns and numeric configuration such as ``size_pages``
      or ``stack_disks``; not seeds) are handled by ``mixed``: ``"mean"`` draws their mean
      and the title names the settings; ``"facet"`` draws one panel per value of the one
      setting (or settings that vary together) they differ in when ``facet`` is free, and
      otherwise raises ConfigError naming them; ``"refuse"`` raises. Repeated rows (seeds)
      are drawn as their mean and said. ``mean_over`` names columns the caller averages over
      on purpose (``trace``: a mean over traces, said in its label), which are never named.
    - Lines have a marker shape, a marker size (shrinking line by line, each drawn over the ones
      before) and a dash style each (:data:`SHAPES`, :data:`DASHES`), so that lines that
      coincide stay visible one inside another, and the legend names the lines that coincide
      (within 0.5% of the panel's range at every x).
    - Axes, legend title and panel titles are in words (:func:`words`) unless given.
    - ``saturation``: the y columns whose saturated points are marked (see the module's rules;
      None: those :func:`timed_metric` names; True: every y; False: none). The marks read the
      table's ``saturated``, ``timing`` and ``queue_depth`` columns, so a caller that derives a
      table (a ratio, a renamed metric) keeps them in it; a table without them marks nothing.
      A response-time y with no load column among x, ``by`` and ``facet`` adds
      :func:`load_line` to the title.

    An unknown column (named, with the closest the table has) or a table without rows raises
    ConfigError."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    from matplotlib.transforms import blended_transform_factory

    ys = [y] if isinstance(y, str) else list(y)
    check_columns(table, [x, *ys, *(c for c in (by, facet) if c)])
    if kind not in ("auto", "line", "bar"):
        from fcsim._core import ConfigError

        raise ConfigError(f"plot kind {kind!r}: one of auto, line, bar")
    d = table.copy()
    if d.empty or d[ys].isna().all().all():
        from fcsim._core import ConfigError

        raise ConfigError(f"nothing to plot: no row has a value of {', '.join(ys)}")
    if mixed not in ("mean", "facet", "refuse"):
        raise ValueError(f"mixed={mixed!r}: one of mean, facet, refuse")
    if mixed != "mean":
        keys = [c for c in (facet, by, x, *mean_over) if c]
        varied = settings_mixed(d, keys, ys)
        together = _together(d, keys, varied)
        if varied and mixed == "facet" and facet is None and together:
            facet = together
        elif varied:
            from fcsim._core import ConfigError

            varied = _distinct(d, varied)
            raise ConfigError(
                f"rows drawn at one point differ in {', '.join(varied)}, "
                f"{'which is' if len(varied) == 1 else 'which are'} on no axis: "
                "their mean would be no run's; keep one value (fcsim plot --where COLUMN=VALUE) or "
                f"draw it (--by or --facet {varied[0]})"
            )
    marked = (
        {c for c in ys if timed_metric(c)}
        if saturation is None
        else set(ys)
        if saturation is True
        else set()
        if saturation is False
        else set(saturation) & set(ys)
    )
    d["_sat"] = notes.saturation(d)
    ref_sat = notes.saturation(ref) if ref is not None else None
    expect = {k for c in marked for k in d.loc[d[c].notna(), "_sat"].dropna() if k}
    if ref is not None and ref_sat is not None:
        expect |= {k for c in marked if c in ref.columns for k in ref_sat[ref[c].notna()].dropna() if k}
    drawn: set[str] = set()
    if by is None:
        d["_by"], by = "", "_by"
    if facet is None:
        d["_facet"], facet = "", "_facet"
    groups = list(order) if order is not None else list(dict.fromkeys(d[by]))
    groups += [g for g in dict.fromkeys(d[by]) if g not in groups]
    groups = [g for g in groups if (d[by] == g).any()]
    trace_like = by in ("trace", "spec", "workload")
    label_of = {g: (names or {}).get(g, workload_label(g) if trace_like else str(g)) for g in groups}
    colour = dict(zip(groups, _colours(len(groups)), strict=True))
    marker_of = {g: (markers or {}).get(g, SHAPES[i % len(SHAPES)]) for i, g in enumerate(groups)}
    dash_of = {g: DASHES[i % len(DASHES)] for i, g in enumerate(groups)}
    # Markers shrinking line by line, each drawn over the ones before: coinciding points show as
    # markers of different shapes and colours one inside another (filled: a hollow marker is a
    # saturated point's).
    size_of = {g: 9.5 - 4.0 * i / max(len(groups) - 1, 1) for i, g in enumerate(groups)}
    coincide: dict[tuple[Any, ...], list[str]] = {}

    def ylabel_of(c: str) -> str:
        return ylabel.get(c, words(c)) if isinstance(ylabel, Mapping) else ylabel or words(c)

    facets = list(dict.fromkeys(d[facet]))
    if facet_names is None:
        facet_names = (
            workload_label
            if facet in ("trace", "spec", "workload")
            else (lambda v: "" if facet == "_facet" else f"{words(facet)}: {_value(v)}")
        )
    xs_all = list(dict.fromkeys(d[x].dropna()))
    numeric_x = _numeric(d[x])
    one_x = len(xs_all) == 1 and by != "_by"
    bars = one_x or kind == "bar" or (kind == "auto" and not numeric_x)
    logs = set(ys) if ylog is True else set() if ylog is False else set(ylog)

    def categories(f: pd.DataFrame) -> list[Any]:
        # A panel's own x categories (a trace's loads), numbers sorted, names as they come.
        own = list(dict.fromkeys(f[x].dropna()))
        return sorted(own) if numeric_x else own

    if bars:
        ncat = len(groups) if one_x else max(len(categories(d[d[facet] == fv])) for fv in facets)
        per = 1 if one_x else max(len(groups), 1)
        # Room for a bar group and its wrapped label (about an inch at 7 pt).
        width = min(3 * PANEL[0], max(PANEL[0], ncat * max(0.2 * per, 1.0) + 0.6))
    else:
        width = PANEL[0]
    # One panel per (facet, y): a row of panels per y column, facets wrapped into rows of at
    # most MAX_COLS; with one facet, the y columns side by side instead.
    across = len(facets) == 1 and len(ys) > 1
    fit = max(1, min(MAX_COLS, int(15.5 // width)))
    if across:
        cols = min(fit, len(ys))
        nrows = math.ceil(len(ys) / cols)
    else:
        cols = min(fit, len(facets))
        nrows = math.ceil(len(facets) / cols) * len(ys)
    legend = by != "_by" and not one_x
    fig_width = width * cols + (1.9 if legend or expect else 0.3)
    fig, axes = plt.subplots(
        nrows,
        cols,
        figsize=(fig_width, PANEL[1] * nrows + 0.5),
        squeeze=False,
        layout="constrained",
    )
    used = set()
    for fi, fv in enumerate(facets):
        f = d[d[facet] == fv]
        fr = ref[ref[facet] == fv] if ref is not None and facet in ref.columns else ref
        for yi, col in enumerate(ys):
            ax = axes[yi // cols][yi % cols] if across else axes[(fi // cols) * len(ys) + yi][fi % cols]
            used.add(id(ax))
            values: list[float] = []
            series: dict[Any, pd.Series] = {}
            if bars and one_x:
                heights = [f.loc[f[by] == g, col].mean() for g in groups]
                bar = ax.bar(range(len(groups)), heights, 0.7, color=[colour[g] for g in groups])
                if col in marked:
                    kinds = [_point_kind(f.loc[(f[by] == g) & f[col].notna(), "_sat"]) for g in groups]
                    _hatch(bar.patches, kinds, drawn)
                _category_labels(ax, [label_of[g] for g in groups], 7)
                values += [float(h) for h in heights if pd.notna(h)]
            elif bars:
                cats = categories(f)
                w = 0.8 / max(len(groups), 1)
                for gi, g in enumerate(groups):
                    s = f[f[by] == g].groupby(x, sort=False)[col].mean()
                    h = [s.get(c, float("nan")) for c in cats]
                    pos = [i + (gi - (len(groups) - 1) / 2) * w for i in range(len(cats))]
                    bar = ax.bar(pos, h, w, color=colour[g])
                    if col in marked:
                        rows = f[(f[by] == g) & f[col].notna()]
                        k = rows.groupby(x, sort=False)["_sat"].agg(_point_kind)
                        _hatch(bar.patches, [k.get(c, "") for c in cats], drawn)
                    values += [float(v) for v in h if pd.notna(v)]
                _category_labels(ax, [f"{c:g}" if isinstance(c, float) else str(c) for c in cats], 7)
            else:
                for g in groups:
                    rows = f[(f[by] == g) & f[col].notna()]
                    s = rows.groupby(x)[col].mean().sort_index()
                    if s.empty:
                        continue
                    series[g] = s
                    ax.plot(
                        s.index,
                        s.values,
                        marker=marker_of[g],
                        markersize=size_of[g],
                        markeredgecolor="white",
                        markeredgewidth=0.3,
                        linestyle=dash_of[g],
                        color=colour[g],
                        linewidth=1.3,
                    )
                    values += [float(v) for v in s.values]
                    if col in marked:
                        k = rows.groupby(x)["_sat"].agg(_point_kind).reindex(s.index)
                        for kind in SATURATED:
                            at = (k == kind).to_numpy()
                            if at.any():
                                drawn.add(kind)
                                ax.plot(
                                    s.index[at],
                                    s.values[at],
                                    linestyle="none",
                                    marker=marker_of[g],
                                    zorder=3,
                                    **_mark_style(kind, colour[g]),
                                )
            if fr is not None:
                grey: dict[float, list[str]] = {}
                for g, r in fr.groupby(by, sort=False):
                    for i, v in r[col].dropna().items():
                        ax.axhline(float(v), color=colour.get(g, "grey"), linestyle="--", linewidth=1)
                        values.append(float(v))
                        kind = ref_sat.get(i) if ref_sat is not None and col in marked else None
                        if kind:  # a saturated reference: its mark at the line's right end
                            drawn.add(kind)
                            ax.plot(
                                [0.985],
                                [float(v)],
                                transform=blended_transform_factory(ax.transAxes, ax.transData),
                                linestyle="none",
                                marker="o",
                                clip_on=False,
                                zorder=3,
                                **_mark_style(kind, colour.get(g, "grey")),
                            )
                        if g not in colour:
                            grey.setdefault(float(v), []).append(str(g))
                if len(grey) > 1 or any(len(n) > 1 for n in grey.values()):
                    for v, who in grey.items():  # grey lines of several runs: named in place
                        ax.annotate(
                            ", ".join(who),
                            (0.99, v),
                            xycoords=("axes fraction", "data"),
                            ha="right",
                            va="bottom",
                            fontsize=6,
                            color="dimgrey",
                        )
            if hline is not None:
                ax.axhline(hline, color="grey", linewidth=0.8)
                values.append(hline)
            _y_axis(ax, values, col in logs, zero, _null_reason(f, col))
            if not bars:
                for same in _coincident(series, ax.get_ylim(), col in logs):
                    where = ", ".join(
                        t for t in (facet_names(fv), ylabel_of(col) if len(ys) > 1 else "") if t
                    )
                    coincide.setdefault(tuple(same), []).append(where)
                log_x = xlog
                pos_x = [float(v) for v in f[x].dropna()]
                if log_x is None:
                    log_x = bool(pos_x) and min(pos_x) > 0 and max(pos_x) > 10 * min(pos_x)
                if log_x:
                    ax.set_xscale("log", base=xbase)
                    if xbase == 10:  # 1, 2, 5 per decade: a short range still has labels
                        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _log_tick(v, xbase)))
                    ax.xaxis.set_minor_formatter(NullFormatter())
                else:
                    ax.xaxis.set_major_formatter(plain_formatter())
            if across or fi % cols == 0:
                text = ylabel_of(col)
                text += " (log)" if col in logs else ""
                # A long label on two lines, so that it fits the height of one panel.
                ax.set_ylabel(textwrap.fill(text, 30), fontsize=9)
            name = facet_names(fv)
            if name:  # wrapped, so that titles of panels side by side do not run into each other
                ax.set_title(textwrap.fill(name, 48 if cols >= 3 else 80), fontsize=9)
            ax.tick_params(which="both", labelsize=8)
            ax.grid(alpha=0.3, axis="y" if bars else "both")
    for ax in axes.flat:
        if id(ax) not in used:
            ax.axis("off")
    if one_x:
        v = xs_all[0]
        at = f"{v:g}" if isinstance(v, float) else str(v)
        fig.supxlabel(f"{legend_title or words(by)}, at {xlabel or words(x)} = {at}", fontsize=10)
    else:
        fig.supxlabel(xlabel or words(x), fontsize=10)
    sat_handles = [
        Patch(facecolor="dimgrey", edgecolor="white", hatch=HATCH[k], label=SATURATED[k])
        if bars
        else Line2D([], [], linestyle="none", marker="o", label=SATURATED[k], **_mark_style(k, "dimgrey"))
        for k in SATURATED
        if k in drawn
    ]
    if legend:
        handles: list[Any] = [
            Patch(color=colour[g], label=label_of[g])
            if bars
            else Line2D(
                [],
                [],
                color=colour[g],
                marker=marker_of[g],
                linestyle=dash_of[g],
                label=label_of[g],
            )
            for g in groups
        ]
        if ref is not None and ref_label:
            handles.append(Line2D([], [], color="grey", linestyle="--", label=ref_label))
        handles += _coincide_handles(coincide, label_of, len(used))
        fig.legend(
            handles=handles + sat_handles,
            loc="outside right upper",
            fontsize=8,
            title=legend_title if legend_title is not None else words(by),
            title_fontsize=8,
        )
    elif sat_handles:
        fig.legend(handles=sat_handles, loc="outside right upper", fontsize=8)
    title = title if title is not None else _default_title(d, by, facet)
    if any(response_metric(c) for c in ys) and not any(load_column(c) for c in (x, by, facet)):
        line = load_line(pd.concat([d, ref]) if ref is not None else d)
        if line:
            title = (title + "\n" if title else "") + line
    averaged = _mixed(d, [facet, by, x, *mean_over], ys)
    if averaged:
        title = (title + "\n" if title else "") + f"each point the mean of rows that differ in {averaged}"
    if title:
        # No wider than the panels, so that it never runs over the legend beside them (a
        # character about 0.62 em at 10 pt, wide letters included; 5% to spare).
        chars = max(30, int(0.95 * width * cols * 72 / (0.62 * 10)))
        text = "\n".join(textwrap.fill(t, chars) for t in title.split("\n"))
        fig.suptitle(text, fontsize=10, x=width * cols / 2 / fig_width)
    if path is None:
        return fig
    save(fig, path)
    return None


def _mark_style(kind: str, colour: Any) -> dict[str, Any]:
    """A saturated point's marker (:data:`SATURATED`): hollow for an open loop's, left-filled for
    one mostly queueing behind short bursts, half-filled (bottom) for a closed loop's, a little
    larger than a line's markers so that it shows over them."""
    if kind == notes.BURST:
        return {
            "markersize": 6.5,
            "fillstyle": "left",
            "markerfacecolor": colour,
            "markerfacecoloralt": "white",
            "markeredgecolor": colour,
            "markeredgewidth": 1.2,
        }
    if kind == notes.QUEUE:
        return {
            "markersize": 6.5,
            "markerfacecolor": "white",
            "markeredgecolor": colour,
            "markeredgewidth": 1.4,
        }
    return {
        "markersize": 6.5,
        "fillstyle": "bottom",
        "markerfacecolor": colour,
        "markerfacecoloralt": "white",
        "markeredgecolor": colour,
        "markeredgewidth": 1.2,
    }


def _hatch(patches: Sequence[Any], kinds: Sequence[str], drawn: set[str]) -> None:
    """Hatches each bar whose point is saturated (:data:`HATCH`), and notes the kinds drawn."""
    for patch, kind in zip(patches, kinds, strict=True):
        if kind and math.isfinite(patch.get_height()):
            patch.set_hatch(HATCH[kind])
            patch.set_edgecolor("white")
            drawn.add(kind)


#: Columns whose rows are repeats of one point (seeds, a sweep's point key): averaging over them
#: is the point's mean, said in the title but never refused (:func:`settings_mixed`).
REPEATS = ("point", "base_point", "seed_index", "seeded", "seeds", "seed")


def _setting(d: pd.DataFrame, c: str) -> bool:
    """Whether column ``c`` of ``d`` is a setting a run was made with: text (``param_*``,
    ``device``, ``write_mode``, ...), or numeric configuration (``size_pages``, ``page_size``,
    ``time_scale``, ``queue_depth``, an echoed ``param_*``/``device_*``/``stack_*`` value, a
    ``--set`` axis ``axis_*``), not a measure (``device_setup_s``) nor a repeat (seeds)."""
    if c in REPEATS or c.startswith("_"):
        return False
    s = d[c]
    if pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s) or pd.api.types.is_bool_dtype(s):
        return c not in _MEASURED_TEXT
    if c in schema.IDENTITY:
        return c not in ("requests", "accesses", "reads", "writes", "warmup_requests")
    return c.startswith(("param_", "device_", "stack_", "axis_")) and c not in _METRICS


_METRICS = set(schema.metrics())
#: Text or boolean columns that a run measures (they differ between the seeds of one point, or
#: with the load), not settings.
_MEASURED_TEXT = {"device_state", "saturated", "mostly_queueing", "fcsim_version", "fcsim_revision"}


def _varied(d: pd.DataFrame, keys: list[str], cols: Iterable[str]) -> list[str]:
    """The columns of ``cols`` that take more than one value among rows with the same ``keys``."""
    out = []
    for c in cols:
        try:
            n = d.groupby(keys, dropna=False)[c].nunique(dropna=False).max()
        except TypeError:  # lists (per-chip columns) are not settings
            continue
        if n > 1:
            out.append(c)
    return out


def settings_mixed(d: pd.DataFrame, keys: list[str], ys: Sequence[str] = ()) -> list[str]:
    """The settings (:func:`_setting`, numeric ones included) in which rows drawn at one point
    (same ``keys``) differ; empty when every point is one setting."""
    keys = [k for k in keys if k in d.columns]
    if not keys or not d.duplicated(keys).any():
        return []
    return _varied(d, keys, [c for c in d.columns if c not in (*keys, *ys) and _setting(d, c)])


def _distinct(d: pd.DataFrame, varied: list[str]) -> list[str]:
    """``varied`` without the columns whose value follows from one kept before them (an echo:
    ``stack_disk_ms`` of ``disk``; a ``--set`` axis ``axis_*`` of its ``stack_*``), the
    ``axis_*`` ones considered last."""
    kept: list[str] = []
    for c in sorted(varied, key=lambda c: c.startswith("axis_")):
        if not any(
            d[[k, c]].astype(str).drop_duplicates().shape[0] == d[k].astype(str).nunique() for k in kept
        ):
            kept.append(c)
    return kept


def _together(d: pd.DataFrame, keys: list[str], varied: list[str]) -> str | None:
    """The one column of ``varied`` to facet by when every column of it varies with it (the
    values of one determine the others': ``stack_disks`` and its ``axis_stack_disks``), a
    ``--set`` axis last; None when they vary apart (or none vary)."""
    if not varied:
        return None
    pick = sorted(varied, key=lambda c: c.startswith("axis_"))[0]
    n = d[pick].astype(str).nunique()
    if all(d[[pick, c]].astype(str).drop_duplicates().shape[0] == n for c in varied):
        return pick
    return None


def _value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _mixed(d: pd.DataFrame, keys: list[str], ys: list[str]) -> str:
    """The settings (:func:`settings_mixed`: text and numeric ones, and the seeds) in which rows
    drawn at the same point differ, comma-separated (at most four); empty when each point is
    one row. A figure drawn with ``mixed="mean"`` averages such rows and says so, rather than
    zigzag between them."""
    keys = [k for k in keys if k in d.columns]
    if not d.duplicated(keys).any():
        return ""
    varied = settings_mixed(d, keys, ys)
    seeds = [c for c in ("seed_index", "seeded") if c in d.columns and c not in keys]
    if _varied(d, keys, seeds):
        varied.append("seed")
    shown = ", ".join(varied[:4]) + (f" and {len(varied) - 4} more" if len(varied) > 4 else "")
    return shown or "nothing recorded (repeated rows)"


def _coincident(series: Mapping[Any, pd.Series], ylim: tuple[float, float], log: bool) -> list[list[Any]]:
    """Groups of lines (keys of ``series``) drawn on one another: the same x values and, at
    every x, within 0.5% of the panel's y range (of its decades on a log axis)."""
    lo, hi = ylim
    if log and lo > 0 and hi > 0:
        tol = 0.005 * (math.log10(hi) - math.log10(lo))
        dist = lambda a, b: abs(math.log10(a) - math.log10(b)) if a > 0 and b > 0 else abs(a - b)  # noqa: E731
    else:
        tol = 0.005 * abs(hi - lo)
        dist = lambda a, b: abs(a - b)  # noqa: E731
    out: list[list[Any]] = []
    for g, s in series.items():
        for same in out:
            t = series[same[0]]
            if list(t.index) == list(s.index) and all(
                dist(float(a), float(b)) <= tol for a, b in zip(t.values, s.values, strict=True)
            ):
                same.append(g)
                break
        else:
            out.append([g])
    return [same for same in out if len(same) > 1]


def _coincide_handles(
    coincide: Mapping[tuple[Any, ...], list[str]], label_of: Mapping[Any, str], panels: int
) -> list[Any]:
    """Legend entries naming the lines that coincide: ``LRU = ARC = LARC`` and, unless they do
    so in every panel, where."""
    from matplotlib.lines import Line2D

    out = []
    for same, where in coincide.items():
        text = " = ".join(label_of[g] for g in same) + " coincide"
        if len(where) < panels and any(where):
            text += " in " + "; ".join(w for w in dict.fromkeys(where) if w)
        out.append(Line2D([], [], linestyle="none", label=textwrap.fill(text, 34)))
    return out


def _log_tick(v: float, base: int) -> str:
    """A log axis' tick: on a base-2 axis, ``1/64`` for a power-of-two fraction (a window of
    the cache); else the number as it is (``0.1``, ``64``)."""
    if base == 2 and 0 < v < 1 and abs(1 / v - round(1 / v)) < 1e-9 and round(1 / v) > 1:
        return f"1/{round(1 / v)}"
    return f"{v:g}"


def _default_title(d: pd.DataFrame, by: str, facet: str) -> str:
    """The workload(s) of a figure whose panels and lines do not name them (one or a few
    traces), synthetic ones marked."""
    if "trace" not in d.columns or "trace" in (by, facet) or "spec" in (by, facet):
        return ""
    traces = list(dict.fromkeys(d["trace"].dropna()))
    if not traces or len(traces) > 3:
        return ""
    return ", ".join(workload_label(t) for t in traces)


def _null_reason(f: pd.DataFrame, col: str) -> str:
    """Why `col` is null in every row of a panel, where the rows say (a `<col>_null_reason`
    column, such as `epbpd_null_reason`): the reasons, each once; else empty."""
    why = f"{col}_null_reason"
    if why not in f.columns or col not in f.columns or f[col].notna().any():
        return ""
    return "; ".join(dict.fromkeys(str(r) for r in f[why].dropna() if str(r)))


def _say(ax: Any, text: str) -> None:
    """A line of text in the middle of an empty panel."""
    ax.text(0.5, 0.5, textwrap.fill(text, 40), ha="center", va="center", fontsize=7, transform=ax.transAxes)


def _y_axis(ax: Any, values: list[float], log: bool, zero: bool, why: str = "") -> None:
    """The y scale and limits of a panel (see :func:`figure`) and its plain tick labels; `why`
    is the rows' own reason when every value is null (:func:`_null_reason`)."""
    finite = [v for v in values if math.isfinite(v)]
    if log:
        if any(v > 0 for v in finite):
            ax.set_yscale("log")
        else:  # nothing to draw on a log axis (every value null or zero): say so, and why
            ax.set_yticks([])
            _say(ax, f"null throughout: {why}" if why else "null or 0 throughout")
        return
    ax.yaxis.set_major_formatter(plain_formatter())
    if not finite:
        if why:
            _say(ax, f"null throughout: {why}")
        return
    lo, hi = min(finite), max(finite)
    if zero and lo >= 0:
        ax.set_ylim(0, hi * 1.06 if hi > 0 else 1)
        return
    need = MIN_SPAN * max(abs(lo), abs(hi))
    if hi - lo < need:
        mid = (lo + hi) / 2
        lo, hi = mid - need / 2, mid + need / 2
        pad = 0.05 * (hi - lo)
        ax.set_ylim(lo - pad, hi + pad)


def _drawn(fig: Any) -> Any:
    """``fig``'s renderer, the figure drawn first unless nothing changed since its last draw
    (the checks below run one after another on one figure: one draw serves them all)."""
    if fig.stale:
        fig.canvas.draw()
    return fig.canvas.get_renderer()


def outside(fig: Any) -> list[str]:
    """The texts of ``fig`` (tick labels, axis labels, titles, legend) that fall outside the
    figure, drawn by its renderer; empty when every one is inside. A test's check, and a
    report's: a figure with an entry here has a clipped label."""
    renderer = _drawn(fig)
    box = fig.bbox
    bad = []
    texts: list[Any] = [fig._suptitle, fig._supxlabel, fig._supylabel, *fig.legends]
    for ax in fig.axes:
        if not ax.axison:
            continue
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, ax.get_legend()]
        texts += [ax.xaxis.get_offset_text(), ax.yaxis.get_offset_text()]
        for axis in (ax.xaxis, ax.yaxis):
            # The tick labels drawn: those of ticks inside the view (a locator also places
            # ticks beyond it, which are not drawn).
            lo, hi = sorted(axis.get_view_interval())
            eps = 1e-9 * max(abs(lo), abs(hi), 1e-300)
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                loc = tick.get_loc()
                if loc is not None and lo - eps <= loc <= hi + eps:
                    texts += [tick.label1, tick.label2]
    for t in texts:
        if t is None or not t.get_visible():
            continue
        if hasattr(t, "get_text") and not t.get_text():
            continue
        e = t.get_window_extent(renderer)
        if e.width == 0 and e.height == 0:
            continue
        if e.x0 < box.x0 - 0.5 or e.y0 < box.y0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y1 > box.y1 + 0.5:
            bad.append(t.get_text() if hasattr(t, "get_text") else type(t).__name__)
    return bad


def _title_beside_legend(fig: Any, text: str, fontsize: float = 10) -> None:
    """Sets ``fig``'s title centred over the space left of its legend and wrapped to that width
    (a character about 0.62 em), so that the legend never covers it (:func:`over_title`)."""
    left = 1.0
    if fig.legends:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        left = min(leg.get_window_extent(renderer).x0 for leg in fig.legends) / fig.bbox.width
    inches = left * fig.get_size_inches()[0]
    chars = max(30, int(0.95 * inches * 72 / (0.62 * fontsize)))
    wrapped = "\n".join(textwrap.fill(t, chars) for t in text.split("\n"))
    fig.suptitle(wrapped, fontsize=fontsize, x=left / 2)


def over_title(fig: Any) -> bool:
    """Whether a legend of ``fig`` overlaps its title (``suptitle``) when drawn. A test's check."""
    title = fig._suptitle
    if title is None or not title.get_text():
        return False
    renderer = _drawn(fig)
    box = title.get_window_extent(renderer)
    return any(box.overlaps(leg.get_window_extent(renderer)) for leg in fig.legends)


def overlapping(fig: Any) -> list[str]:
    """Pairs of neighbouring x tick labels of ``fig`` that touch or overlap when drawn (closer
    than 2 px), as "A | B"; empty when every label stands apart. A test's check: touching labels
    read as one."""
    renderer = _drawn(fig)
    bad = []
    for ax in fig.axes:
        if not ax.axison:
            continue
        lo, hi = sorted(ax.xaxis.get_view_interval())
        eps = 1e-9 * max(abs(lo), abs(hi), 1e-300)
        drawn = [
            t.label1
            for t in ax.xaxis.get_major_ticks()
            if t.get_loc() is not None and lo - eps <= t.get_loc() <= hi + eps
        ]
        boxes = sorted(
            ((e.x0, e.x1), t.get_text())
            for t in drawn
            if t.get_visible() and t.get_text()
            for e in [t.get_window_extent(renderer)]
        )
        for ((_, a1), ta), ((b0, _), tb) in itertools.pairwise(boxes):
            if b0 - a1 < 2:
                bad.append(f"{ta} | {tb}")
    return bad


def offset_texts(fig: Any) -> list[str]:
    """The axis offset or scientific-factor texts of ``fig`` (``1e-5+4.638e-1``); empty for a
    figure drawn by :func:`figure`."""
    _drawn(fig)
    out = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            text = axis.get_offset_text().get_text()
            if text and axis.get_offset_text().get_visible():
                out.append(text)
    return out


def check_columns(table: pd.DataFrame, cols: Iterable[str], source: str = "the table") -> None:
    """ConfigError (one line) naming the first column of ``cols`` that ``table`` lacks, the
    closest names it has, and how many columns it has."""
    import difflib

    for c in cols:
        if c not in table.columns:
            from fcsim._core import ConfigError

            near = difflib.get_close_matches(c, [str(k) for k in table.columns], n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise ConfigError(f"{source}: no column {c!r} ({len(table.columns)} columns{hint})")


def load_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A table as fcsim writes them (a result or epoch table: ``.parquet``, ``.csv``,
    ``.json``, ``.jsonl``); ConfigError (one line) for a missing file, another extension or a
    file that does not parse."""
    from fcsim._core import ConfigError

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such table")
    suffix = p.suffix.lower()
    readers = {
        ".parquet": pd.read_parquet,
        ".csv": pd.read_csv,
        ".json": pd.read_json,
        ".jsonl": lambda f: pd.read_json(f, lines=True),
    }
    read = readers.get(suffix)
    if read is None:
        raise ConfigError(f"{p}: a table is {', '.join(readers)} by its name, not {suffix or 'no extension'}")
    try:
        table = read(p)
    except Exception as e:  # any parse failure is the file's, said in one line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ConfigError(f"{p}: not a readable {suffix[1:]} table ({first})") from None
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ConfigError(f"{p}: an empty table")
    return schema.renamed(table)


def mrc_plot(
    curve: pd.DataFrame,
    path: str | os.PathLike[str] | None,
    title: str | None = None,
    reference: pd.DataFrame | None = None,
    ref_label: str = "reference",
) -> Any:
    """Writes the miss-ratio curve from `fcsim.mrc()` as a PNG, SVG or PDF by ``path``'s
    extension (atomically); with ``path`` None, returns the figure. ``reference`` (``mrc
    --compare``: the exact curve, or full runs at a minisim curve's sizes) is drawn beside it,
    dashed, named ``ref_label``, and the title gives the mean absolute error at the curve's
    sizes."""
    if path is not None:
        check_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    page_size = curve.attrs.get("page_size", 4096)
    x = curve["size_pages"] * page_size / 2**20
    at = curve.attrs
    method = at.get("method", "exact")
    if method == "minisim":
        label = f"{at.get('policy', '?')} (miniature simulations, R={at.get('rate', 0):g})"
        ax.plot(x, curve["miss_ratio"], marker="o", color="tab:blue", label=label)
    else:
        label = "LRU (exact)" if method == "exact" else f"LRU (SHARDS, R={at.get('rate', 0):.3g})"
        ax.step(x, curve["miss_ratio"], where="post", color="tab:blue", label=label)
    error = ""
    if reference is not None and len(reference):
        rx = reference["size_pages"] * page_size / 2**20
        if reference.attrs.get("method") == "full":
            ax.plot(
                rx,
                reference["miss_ratio"],
                "s--",
                color="tab:orange",
                markerfacecolor="none",
                label=ref_label,
            )
        else:
            ax.step(
                rx, reference["miss_ratio"], where="post", color="tab:orange", linestyle="--", label=ref_label
            )
        errs = [
            abs(m - _curve_at(reference, int(p)))
            for p, m in zip(curve["size_pages"], curve["miss_ratio"], strict=True)
        ]
        error = f"mean absolute error against {ref_label}: {sum(errs) / len(errs):.4f} over {len(errs)} sizes"
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(plain_formatter())
    ax.set_xlabel("cache size (MiB)")
    ax.set_ylabel("miss ratio")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    head = title or workload_label(curve.attrs.get("trace", ""))
    ax.set_title("\n".join(t for t in (head, error) if t), fontsize=10)
    ax.legend(loc="best")
    if path is None:
        return fig
    save(fig, path)
    return None


def _curve_at(curve: pd.DataFrame, pages: int) -> float:
    """A curve's miss ratio at ``pages``: its last row at or below (1 below the first), as
    :func:`fcsim.mrc_at`."""
    below = curve[curve["size_pages"] <= pages]
    return float(below.sort_values("size_pages")["miss_ratio"].iloc[-1]) if len(below) else 1.0


def mrc_seeds_plot(
    df: pd.DataFrame,
    path: str | os.PathLike[str] | None,
    ref_label: str = "reference",
    how: str = "",
) -> Any:
    """Writes `fcsim mrc --compare --seeds N` (:func:`fcsim.mrc_compare`'s table) as a figure:
    the sampled miss ratio's mean over the seeds at each size with its 95% confidence band
    (Student t), the reference dashed, and beneath it each size's absolute error, mean and band.
    With ``path`` None, returns the figure."""
    from fcsim import seeds as seeding

    if path is not None:
        check_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    at = df.attrs.get("curve", {})
    page_size = at.get("page_size", 4096)
    rows = []
    for pages, g in df.groupby("size_pages", sort=True):
        m, mh, _ = seeding.ci95(g["miss_ratio"])
        e, eh, _ = seeding.ci95(g["abs_error"])
        rows.append((pages * page_size / 2**20, m, mh, float(g["reference"].iloc[0]), e, eh))
    t = pd.DataFrame(rows, columns=["mib", "m", "mh", "ref", "e", "eh"]).fillna({"mh": 0.0, "eh": 0.0})
    fig, (ax, ex) = plt.subplots(
        2, 1, figsize=(7, 5.6), layout="constrained", sharex=True, gridspec_kw={"height_ratios": [2, 1]}
    )
    n = df.attrs.get("seeds", df["seed"].nunique() if "seed" in df.columns else 1)
    ax.plot(t["mib"], t["m"], "o-", color="tab:blue", markersize=4, label=f"sampled: mean of {n} seeds")
    ax.fill_between(
        t["mib"], t["m"] - t["mh"], t["m"] + t["mh"], color="tab:blue", alpha=0.25, label="95% CI"
    )
    ax.plot(
        t["mib"], t["ref"], "s--", color="tab:orange", markerfacecolor="none", markersize=5, label=ref_label
    )
    ax.set_ylabel("miss ratio")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="best", fontsize=8)
    ex.plot(t["mib"], t["e"], "o-", color="tab:red", markersize=4, label="mean")
    ex.fill_between(t["mib"], (t["e"] - t["eh"]).clip(lower=0), t["e"] + t["eh"], color="tab:red", alpha=0.25)
    ex.set_ylabel("absolute error\n|sampled - reference|")
    ex.set_ylim(bottom=0)
    ex.set_xlabel("cache size (MiB)")
    for a in (ax, ex):
        a.set_xscale("log")
        a.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        a.xaxis.set_minor_formatter(NullFormatter())
        a.yaxis.set_major_formatter(plain_formatter())
        a.grid(True, which="both", alpha=0.3)
    head = workload_label(at.get("trace", ""))
    sub = f"{how}, {n} seeds of the sampling hash; bands: 95% confidence interval (Student t)"
    # No wider than the axes (a character about 0.62 em at 10 pt, 5% to spare), as every title.
    chars = max(30, int(0.95 * ax.get_position().width * fig.get_size_inches()[0] * 72 / (0.62 * 10)))
    ax.set_title("\n".join(textwrap.wrap(f"{head}: {sub}" if head else sub, chars)), fontsize=10)
    if path is None:
        return fig
    save(fig, path)
    return None


def hit_metric(df: pd.DataFrame) -> tuple[str, str]:
    """The hit ratio a table's rows are judged by, as (column, label): the read hit ratio for an
    SSD cache (``stack`` ``ssd-cache``: a read cache's writes go around it, so the overall ratio
    counts accesses it never serves) and for the offline bounds (their papers' RHR); the
    overall hit ratio otherwise (a DRAM buffer, whose write hits are hits)."""
    if "stack" in df.columns and "read_hit_ratio" in df.columns:
        kinds = set(df["stack"].dropna())
        if kinds and kinds <= {"ssd-cache", "offline-bounds"}:
            return "read_hit_ratio", "read hit ratio"
    return "hit_ratio", "hit ratio"


def run_plot(df: pd.DataFrame, path: str | os.PathLike[str] | None, title: str | None = None) -> Any:
    """Writes the rows of ``fcsim run`` as a PNG, SVG or PDF by ``path``'s extension
    (atomically); with ``path`` None, returns the figure. Panels: the hit ratio
    (:func:`hit_metric`: the read hit ratio of an SSD cache) against cache size and, for rows
    with a device, flash page writes and p99 response time, one line per policy (and device,
    when there are several). A panel with no values (p99 of an untimed trace) is left out;
    ``none`` (no cache, size 0) is a dashed horizontal line; one cache size draws a bar per
    policy (see :func:`figure`)."""
    if path is not None:
        check_path(path)
    hit, hit_label = hit_metric(df)
    panels = [
        (hit, hit_label),
        ("flash_page_writes", "flash page writes"),
        ("resp_p99_us", "p99 response time (µs)"),
    ]
    panels = [(c, label) for c, label in panels if c in df.columns and df[c].notna().any()]
    d = df.assign(mib=df["size_pages"] * df["page_size"] / 2**20)
    devices = d["device"].fillna("") if "device" in d.columns else pd.Series("", index=d.index)
    several = devices.nunique() > 1
    d = d.assign(line=d["policy"] + (" / " + devices if several else ""))
    sized, none = d[d["size_pages"] > 0], d[d["size_pages"] == 0]
    what = ", ".join(workload_label(t) for t in dict.fromkeys(df["trace"]))
    if not several and devices.iloc[0] and "device_state" in df.columns:
        what += f" over {devices.iloc[0]} ({df['device_state'].iloc[0]})"
    return figure(
        sized if len(sized) else d,
        "mib",
        [c for c, _ in panels],
        by="line",
        path=path,
        xlabel="cache size (MiB)",
        ylabel=dict(panels),
        title=title or what,
        ref=none.assign(line="none" + (" / " + devices[none.index] if several else ""))
        if len(sized) and len(none)
        else None,
        ref_label="no cache (policy none)",
        names={g: g for g in dict.fromkeys(d["line"])},
        legend_title="policy / device" if several else "policy",
        mixed="facet",
    )


def _saturation_line(rows: pd.DataFrame) -> str:
    """What the runs' rows say of saturation, for an epoch plot's title: each saturated run with
    its busiest second's offered load per device, each run mostly queueing behind bursts shorter
    than a second with its wait over service, or that none was; empty when unknown."""
    sat = notes.saturation(rows)
    if sat.isna().all():
        return ""
    several = rows["trace"].nunique() > 1
    parts, bursts = [], []
    for r, s in zip(rows.itertuples(), sat, strict=True):
        name = (workload_label(r.trace) + ": " if several else "") + f"{r.policy} {r.size_pages}p"
        if s == notes.QUEUE:
            parts.append(name + notes.peaks(r))
        elif s == notes.BURST:
            bursts.append(name + notes.queueing(r))
        elif s == notes.CLOSED:
            parts.append(name + " (closed loop)")
    said = []
    if parts:
        said.append(
            "saturated, so responses are mostly queueing (busiest second's offered load): " + "; ".join(parts)
        )
    if bursts:
        said.append("mostly queueing behind bursts shorter than a second: " + "; ".join(bursts))
    if not said:
        return "no run saturated (no flash chip or disk was offered more than a second's work in any second)"
    return "; ".join(said)


def epoch_plot(
    epochs: pd.DataFrame,
    path: str | os.PathLike[str] | None,
    title: str | None = None,
    rows: pd.DataFrame | None = None,
) -> Any:
    """Writes a per-epoch table (``--epoch``; ``row.epochs``) as time series, a PNG, SVG or PDF by
    ``path``'s extension (atomically; with ``path`` None, returns the figure): hit ratio
    (:func:`hit_metric`), flash page writes and erasures, mean and p99 response per epoch, and
    beside the response the load it was measured under (the work offered to the device's
    busiest server in the epoch's busiest second, with a line at saturation, and the mean ops
    in the device), one line per run
    (policy, size, device). The x axis is the epoch's start in simulated
    seconds, or its index when the run has no times. A panel with no values (no device, an
    untimed trace) is left out. With the runs' result ``rows``, the title says which runs were
    saturated and their busiest second's load."""
    if path is not None:
        check_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = epochs.copy()
    timed = "start_s" in d.columns and d["start_s"].notna().any()
    if timed:
        d["x0"], d["x1"] = d["start_s"], d["end_s"]
    else:
        d["x0"], d["x1"] = d["epoch"], d["epoch"] + 1
    label = d["policy"] + " " + d["size_pages"].astype(str) + "p"
    if "device" in d.columns and d["device"].notna().any():
        label = label + " / " + d["device"].fillna("no device")
    if d["trace"].nunique() > 1:
        label = d["trace"].map(workload_label) + ": " + label
    if notes.named_admissions(d):
        label = label + " admitting " + d["admission"].fillna("all")
    for axis in [c for c in d.columns if c.startswith("axis_")]:
        label = label + f", {notes.axis_key(axis)}=" + d[axis].astype(str)
    d["line"] = label
    # Judged as the runs' rows are (a flash cache by its read hit ratio), where they are given.
    judged = rows if rows is not None and "stack" in rows.columns else d
    hit, hit_label = hit_metric(judged) if "read_hit_ratio" in d.columns else ("hit_ratio", "hit ratio")
    panels = [(hit, hit_label, None)]
    if "flash_page_writes" in d.columns and d["flash_page_writes"].notna().any():
        panels.append(("flash_page_writes", "flash page writes\n(dashed: erasures)", "erasures"))
    if "resp_mean_us" in d.columns and d["resp_mean_us"].notna().any():
        panels.append(("resp_mean_us", "response (µs)\n(mean; dashed: p99)", "resp_p99_us"))
        # A response is read with the load it was measured under: the work offered to the
        # busiest server in the epoch's busiest second (above 1: saturated) and the ops waiting
        # or in service, which also shows a backlog carried over from earlier epochs.
        for col in ("flash_util_peak_1s", "flash_queue_mean", "disk_util_peak_1s", "disk_queue_mean"):
            if col not in d.columns:
                d[col] = float("nan")
        both = "(flash; dashed: disk)" if d["disk_util_peak_1s"].notna().any() else "(flash)"
        busiest = "offered load, busiest\nserver and second " + both
        panels.append(("flash_util_peak_1s", busiest, "disk_util_peak_1s"))
        panels.append(("flash_queue_mean", "ops in device, mean\n" + both, "disk_queue_mean"))
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(8.5, 2.6 * len(panels) + 0.5),
        sharex=True,
        squeeze=False,
        layout="constrained",
    )
    lines = list(dict.fromkeys(d["line"]))
    colour = dict(zip(lines, _colours(len(lines)), strict=True))
    # Each run's steps thinner than the one before, drawn over it: runs that coincide show as a
    # thin line inside a wide one (the legend says so).
    width = {g: 4.0 - 3.0 * i / max(len(lines) - 1, 1) for i, g in enumerate(lines)}
    for ax, (col, name, second) in zip(axes[:, 0], panels, strict=True):
        values: list[float] = []
        for line, g in d.groupby("line", sort=False):
            # Each epoch a step over its own span (an empty epoch's ratio is a gap).
            edges = [*g["x0"], g["x1"].iloc[-1]]
            ax.stairs(g[col].astype(float), edges, color=colour[line], linewidth=width[line], baseline=None)
            values += [float(v) for v in g[col].dropna()]
            if second is not None:
                ax.stairs(
                    g[second].astype(float),
                    edges,
                    color=colour[line],
                    linestyle="--",
                    linewidth=1,
                    baseline=None,
                )
                values += [float(v) for v in g[second].dropna()]
        _y_axis(ax, values, col == "resp_mean_us", True)
        if col == hit:
            ax.set_ylim(0, 1.02)
        if col == "flash_util_peak_1s":
            ax.axhline(1.0, color="0.4", linewidth=0.8, linestyle=":")
            at = ax.get_yaxis_transform()
            ax.text(0.005, 1.0, "saturated", transform=at, fontsize=7, va="bottom", color="0.3")
            ax.set_ylim(0, max(1.1, max((v for v in values if math.isfinite(v)), default=0) * 1.06))
        ax.set_ylabel(name, fontsize=8)
        ax.tick_params(which="both", labelsize=8)
        ax.grid(True, which="both", alpha=0.3)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour[g], linewidth=width[g], label=g) for g in lines]
    if len(lines) > 1:
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                label="lines drawn thinner in turn:\na thin one inside a wide one\nis two runs that coincide",
            )
        )
    fig.legend(handles=handles, loc="outside right upper", fontsize=7)
    axes[-1][0].xaxis.set_major_formatter(plain_formatter())
    axes[-1][0].set_xlabel("simulated time (s)" if timed else "epoch")
    traces = ", ".join(workload_label(t) for t in dict.fromkeys(d["trace"]))
    head = title or traces + " per epoch"
    responses = "resp_mean_us" in d.columns and d["resp_mean_us"].notna().any()
    if rows is not None and responses and (said := _saturation_line(rows)):
        head += "\n" + said
    _title_beside_legend(fig, head)
    if path is None:
        return fig
    save(fig, path)
    return None
