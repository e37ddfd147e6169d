"""fcsim.plot: every plot kind keeps its labels inside the figure and draws no offset notation;
`fcsim plot` over a table, and its one-line errors."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import pytest

import fcsim
from conftest import ROOT, cli
from fcsim import plot, schema

FCSIM = [sys.executable, "-m", "fcsim.cli"]
POLICIES = ["lru", "cflru", "gcar-cflru", "lcr"]
TRACES = [
    "systor17_vdi_sample1000.csv.gz",
    "cloudphysics_vscsi_2h.csv.gz",
    "synth:profile=lcr-web_0,scale=0.5",
    "msr_hm_0_excerpt1000.csv",
    "blkparse_java_50k_events.txt.gz",
]
LOADS = ["as recorded", "time x0.00104", "QD 8", "aged 1x, time x0.00104", "aged 1x, QD 32"]


def sizes_table() -> pd.DataFrame:
    """Rows as a sweep makes them: trace x policy x size, with a large-valued and a tiny-spread
    metric (the hit ratio that differs by 0.03%, the response in hundreds of thousands)."""
    rows = []
    for ti, t in enumerate(TRACES):
        for pi, p in enumerate(POLICIES):
            for s in (1.0, 2.5, 5.0, 10.0, 20.0):
                rows.append(
                    {
                        "trace": t,
                        "policy": p,
                        "size_pct": s,
                        "hit_ratio": 0.4638 + 1e-5 * (pi + s / 20),
                        "resp_mean_us": 3.094e6 + 1.4e4 * pi + 1000 * ti,
                        "erasures": 1e3 * (pi + 1) * s,
                    }
                )
    return pd.DataFrame(rows)


def loads_table() -> pd.DataFrame:
    """LCR Fig. 5's shape: trace x load x policy, categorical loads with long names."""
    rows = []
    for ti, t in enumerate(TRACES):
        for li, load in enumerate(LOADS):
            for pi, p in enumerate(POLICIES):
                rows.append({"trace": t, "load": load, "policy": p, "ratio": 1 - 0.05 * pi + 0.01 * li + ti})
    return pd.DataFrame(rows)


def run_rows() -> pd.DataFrame:
    return fcsim.run_grid(
        "synth:zipf,pages=2000,requests=20000,alpha=0.9,write=0.3",
        policies=["lru", "fifo", "none"],
        sizes=["1%", "5%", "20%"],
        device="gasa",
    )


KINDS: dict[str, Callable[[], Any]] = {
    "lines, a panel per trace": lambda: plot.figure(
        sizes_table(), "size_pct", "hit_ratio", by="policy", facet="trace", zero=False
    ),
    "lines, two metrics per trace": lambda: plot.figure(
        sizes_table(),
        "size_pct",
        ["resp_mean_us", "hit_ratio"],
        by="policy",
        facet="trace",
        ylabel={"resp_mean_us": "mean response time of a host request (µs)", "hit_ratio": "hit ratio"},
    ),
    "lines, log y and a dashed reference": lambda: plot.figure(
        sizes_table()[lambda d: d["policy"] != "lcr"],
        "size_pct",
        "erasures",
        by="policy",
        facet="trace",
        ylog=True,
        ref=sizes_table()[lambda d: (d["policy"] == "lcr") & (d["size_pct"] == 5.0)],
        ref_label="LCR at 5% (dashed)",
    ),
    "bars, a group per load": lambda: plot.figure(
        loads_table(),
        "load",
        "ratio",
        by="policy",
        facet="trace",
        kind="bar",
        hline=1.0,
        ylabel="load balance rate, median over busy 10 ms epochs",
    ),
    "bars, one size": lambda: plot.figure(
        sizes_table()[lambda d: d["size_pct"] == 5.0], "size_pct", ["hit_ratio", "erasures"], by="policy"
    ),
    "run --plot": lambda: plot.run_plot(run_rows(), None),
    "run --plot, one size": lambda: plot.run_plot(run_rows()[lambda d: d["size_pages"] != 400], None),
    "epochs": lambda: plot.epoch_plot(_epochs(), None),
    "mrc": lambda: plot.mrc_plot(fcsim.mrc("synth:zipf,pages=2000,requests=20000,alpha=0.9"), None),
    # Its title ran past the figure's right edge (wrapped at 90 characters, not to the axes).
    "mrc --compare --seeds": lambda: plot.mrc_seeds_plot(
        fcsim.mrc_compare(ROOT / "data/traces/msr_hm_0_excerpt1000.csv", "shards", rate=0.5, seeds=3),
        None,
        ref_label="exact LRU",
        how="SHARDS at R=0.5",
    ),
}


def _epochs() -> pd.DataFrame:
    rows = []
    for p in ("lru", "fifo"):
        for e in range(20):
            rows.append(
                {
                    "trace": "synth:zipf,pages=2000",
                    "policy": p,
                    "size_pages": 100,
                    "device": "gasa",
                    "epoch": e,
                    "start_s": e * 0.5,
                    "end_s": (e + 1) * 0.5,
                    "hit_ratio": 0.3 + 0.01 * e,
                    "flash_page_writes": 1e5 + e,
                    "erasures": 300 + e,
                    "resp_mean_us": 120.0 + e,
                    "resp_p99_us": 900.0 + e,
                    "flash_util_peak_1s": 0.05 * e,
                    "flash_queue_mean": 0.3 * e,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("name", list(KINDS))
def test_every_label_inside_the_figure_and_no_offset(name: str) -> None:
    fig = KINDS[name]()
    try:
        assert plot.outside(fig) == [], f"{name}: labels outside the figure"
        assert plot.offset_texts(fig) == [], f"{name}: offset notation"
        w, h = fig.get_size_inches() * plot.DPI
        assert w <= 2000 and h <= 2000, f"{name}: {w:.0f}x{h:.0f} px"
        assert any(ax.get_yticklabels() for ax in fig.axes)
    finally:
        plt.close(fig)


def test_the_check_sees_a_clipped_label() -> None:
    """outside() is not vacuous: a y label pushed out of a tight figure is reported."""
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    ax.set_ylabel("a y label far too long for a figure two inches high, clipped")
    ax.yaxis.set_label_coords(-0.5, 0.5)
    try:
        assert plot.outside(fig)
    finally:
        plt.close(fig)


def test_a_tiny_spread_is_drawn_flat_and_without_offset() -> None:
    d = sizes_table()
    d = d[d["trace"] == TRACES[0]]
    fig = plot.figure(d, "size_pct", "hit_ratio", by="policy")
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0  # from zero by default
    plt.close(fig)
    fig = plot.figure(d, "size_pct", "hit_ratio", by="policy", zero=False)
    lo, hi = fig.axes[0].get_ylim()
    assert hi - lo >= plot.MIN_SPAN * 0.4638  # the data range, but not a 0.003% span blown up
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert plot.offset_texts(fig) == [] and all("e" not in s for s in labels), labels
    plt.close(fig)


def test_large_values_are_plain_numbers() -> None:
    f = plot.plain_formatter()
    assert f.format_ticks([3.094e6, 3.096e6, 3.098e6]) == ["3.094M", "3.096M", "3.098M"]
    assert f.format_ticks([0, 100_000, 200_000, 300_000]) == ["0", "100k", "200k", "300k"]
    assert f.format_ticks([0.4638, 0.46381, 0.46382]) == ["0.46380", "0.46381", "0.46382"]
    assert f.format_ticks([0.0, 0.25, 0.5]) == ["0", "0.25", "0.50"]


def test_one_size_is_bars_not_a_stack_of_markers() -> None:
    d = sizes_table()
    fig = plot.figure(
        d[(d["size_pct"] == 5.0) & (d["trace"] == TRACES[0])], "size_pct", "hit_ratio", by="policy"
    )
    ax = fig.axes[0]
    assert len(ax.patches) == len(POLICIES) and not ax.lines
    assert [t.get_text() for t in ax.get_xticklabels()] == POLICIES
    plt.close(fig)


def test_synthetic_workloads_say_so() -> None:
    assert (
        plot.workload_label("synth:profile=lcr-web_0,scale=0.5") == "lcr-web_0 (synthetic profile, scale 0.5)"
    )
    assert plot.workload_label("synth:zipf,alpha=0.9").startswith("synthetic: zipf")
    assert plot.workload_label("cloudphysics_vscsi_2h.csv.gz") == "cloudphysics_vscsi_2h"
    fig = plot.figure(sizes_table(), "size_pct", "hit_ratio", by="policy", facet="trace")
    titles = [ax.get_title() for ax in fig.axes if ax.axison]
    assert "lcr-web_0 (synthetic profile, scale 0.5)" in titles
    plt.close(fig)
    # A figure of one synthetic trace whose panels do not name it says so in its title.
    fig = plot.run_plot(run_rows(), None)
    assert "synthetic" in " ".join(fig.get_suptitle().split())
    plt.close(fig)


def test_ssd_cache_plots_the_read_hit_ratio() -> None:
    rows = pd.DataFrame({"stack": ["ssd-cache"], "hit_ratio": [0.2], "read_hit_ratio": [0.3]})
    assert plot.hit_metric(rows) == ("read_hit_ratio", "read hit ratio")
    assert plot.hit_metric(rows.assign(stack=None)) == ("hit_ratio", "hit ratio")


def test_fcsim_plot_over_a_table(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    sizes_table().to_csv(table, index=False)
    out = tmp_path / "t.png"
    r = cli(
        "plot",
        table,
        "--x",
        "size_pct",
        "--y",
        "hit_ratio,erasures",
        "--by",
        "policy",
        "--facet",
        "trace",
        "-o",
        out,
    )
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {out}" in r.stdout
    pq = tmp_path / "t.parquet"
    sizes_table().to_parquet(pq)
    r = cli("plot", pq, "--x", "size_pct", "--y", "resp_mean_us", "--by", "policy", "--data-range")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t.resp_mean_us.png").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--x", "size_pct", "--y", "hit_ration"],
            "no column 'hit_ration' (6 columns; did you mean hit_ratio?)",
        ),
        (["--x", "size", "--y", "hit_ratio"], "no column 'size'"),
        (["--x", "size_pct", "--y", "policy"], "column 'policy' is not numeric"),
        (["--x", "size_pct", "--y", "hit_ratio", "-o", "x.txt"], "a plot is .png, .svg, .pdf by its name"),
    ],
)
def test_fcsim_plot_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    table = tmp_path / "t.csv"
    sizes_table().to_csv(table, index=False)
    r = cli("plot", table, *args)
    assert r.returncode != 0 and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_fcsim_plot_missing_or_foreign_file(tmp_path: Path) -> None:
    r = cli("plot", tmp_path / "none.parquet", "--x", "a", "--y", "b")
    assert (
        r.returncode != 0 and r.stderr.strip() == f"fcsim: error: {tmp_path / 'none.parquet'}: no such table"
    )
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    r = cli("plot", bad, "--x", "a", "--y", "b")
    assert r.returncode != 0 and "not a readable parquet table" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_rows_on_one_point_are_averaged_and_said() -> None:
    """Two settings drawn on one line would zigzag between them: each point is their mean, and
    the title names the setting they differ in."""
    d = sizes_table()
    d = d[d["trace"] == TRACES[0]]
    both = pd.concat(
        [d.assign(stack_write="around"), d.assign(stack_write="back", hit_ratio=d["hit_ratio"] + 0.1)]
    )
    fig = plot.figure(both, "size_pct", "hit_ratio", by="policy")
    assert "each point the mean of rows that differ in stack_write" in " ".join(fig.get_suptitle().split())
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == sorted(set(d["size_pct"]))
    assert line.get_ydata()[0] == pytest.approx(d["hit_ratio"].iloc[0] + 0.05)
    plt.close(fig)
    fig = plot.figure(d, "size_pct", "hit_ratio", by="policy")
    assert "mean of rows" not in " ".join(fig.get_suptitle().split())
    plt.close(fig)


def test_fcsim_plot_where(tmp_path: Path) -> None:
    table = tmp_path / "t.parquet"
    sizes_table().to_parquet(table)
    r = cli(
        "plot",
        table,
        "--x",
        "size_pct",
        "--y",
        "hit_ratio",
        "--where",
        "policy=lcr",
        "-o",
        tmp_path / "a.png",
    )
    assert r.returncode == 0, r.stderr
    r = cli("plot", table, "--x", "size_pct", "--y", "hit_ratio", "--where", "policy=xyz")
    assert r.returncode == 2 and "no row of" in r.stderr and "policy = xyz" in r.stderr


@pytest.mark.parametrize("paper", ["offline", "lcr"])
def test_report_figures_from_the_committed_table(
    paper: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report redrawn from its committed results (no simulation) draws every figure through
    fcsim.plot with every label inside, no offset notation and no two x tick labels touching;
    lcr's bar groups (once 3465 px wide) are small multiples of a readable size."""
    from fcsim.reports import REPORTS, seed_slices

    root = Path(__file__).resolve().parents[1] / "results" / paper
    seen: dict[str, list[str]] = {}

    def checked(fig: Any, path: Any, **kw: Any) -> None:
        # The checks draw the figure; encoding it as well (half this test's time) would add
        # nothing they look at, so the figure is closed unsaved.
        big = max(fig.get_size_inches() * plot.DPI) > 2000
        seen[Path(path).name] = (
            plot.outside(fig)
            + plot.offset_texts(fig)
            + plot.overlapping(fig)
            + (["too large"] if big else [])
        )
        plt.close(fig)

    monkeypatch.setattr(plot, "save", checked)
    # Seed index 0's rows, as `fcsim reproduce` draws them (lcr runs its random points on 3 seeds).
    table = seed_slices(schema.untyped(pd.read_parquet(root / "results.parquet")))[0]
    REPORTS[paper](table, tmp_path, "test")
    assert seen and all(not v for v in seen.values()), seen
    assert sorted(seen) == sorted(p.name for p in root.glob("*.png"))


def _saturated_rows() -> pd.DataFrame:
    """Two traces of sizes_table with how loaded each run was: LRU at the traces' times saturated a disk
    at 1% and 2.5%, FIFO-like CFLRU ran as a closed loop of 8, the others never saturated."""
    d = sizes_table()[lambda d: d["trace"].isin(TRACES[:2])]
    closed = d["policy"] == "cflru"
    return d.assign(
        saturated=(d["policy"] == "lru") & (d["size_pct"] < 5) | closed,
        timing=closed.map({True: "closed-loop", False: "trace"}),
        queue_depth=closed * 8,
        time_scale=1.0,
        disk_util_peak_1s=12.6,
        flash_util_peak_1s=0.5,
    )


def test_saturated_points_are_drawn_apart_and_the_load_is_said() -> None:
    # Lines of a response time: the saturated points hollow, the closed loop's half-filled, each
    # named in the legend; no load column on an axis, so the title says the load.
    fig = plot.figure(
        _saturated_rows(), "size_pct", ["resp_mean_us", "hit_ratio"], by="policy", facet="trace"
    )
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "saturated (response grows with the run)" in legend
    assert "closed loop: saturated by construction" in legend
    title = " ".join(fig._suptitle.get_text().split())
    assert "at the traces' times; in a closed loop of 8 outstanding requests" in title
    assert "disk 13x" in title and "flash 0.5x" in title
    hollow = [
        ln
        for ax in fig.axes
        for ln in ax.get_lines()
        if ln.get_markerfacecolor() == "white" and ln.get_linestyle() == "None"
    ]
    # One hollow set per response panel (2 traces), none on the hit-ratio panels.
    assert len(hollow) == 2 and all(len(ln.get_xdata()) == 2 for ln in hollow)
    assert not plot.outside(fig)
    plt.close(fig)
    # Bars (one size): the saturated bar hatched; over a load column the title says no load.
    one = _saturated_rows()[lambda d: (d["size_pct"] == 1.0) & (d["trace"] == TRACES[0])]
    fig = plot.figure(one.assign(load="as recorded"), "load", "resp_mean_us", by="policy")
    hatched = [b for ax in fig.axes for b in ax.patches if b.get_hatch()]
    assert [b.get_hatch() for b in hatched] == ["////", "xx"]
    assert "response measured" not in fig._suptitle.get_text() and not plot.outside(fig)
    plt.close(fig)


def test_points_mostly_queueing_behind_short_bursts_are_drawn_apart() -> None:
    # Issue 42: a run that saturated nothing over a second but queued mostly behind shorter
    # bursts (cloudphysics, LRU 40% over gasa) is neither hollow nor unmarked: left-filled, with
    # its own legend entry; its bar hatched '..'.
    rows = _saturated_rows().assign(saturated=False, mostly_queueing=lambda d: d["policy"] == "lru")
    rows = rows[rows["policy"] != "cflru"].assign(timing="trace", queue_depth=0)
    fig = plot.figure(rows, "size_pct", "resp_mean_us", by="policy", facet="trace")
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "mostly queueing (bursts under a second)" in legend
    assert "saturated (response grows with the run)" not in legend
    marked = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_fillstyle() == "left"]
    assert len(marked) == 2 and all(ln.get_markerfacecolor() != "white" for ln in marked)
    plt.close(fig)
    one = rows[(rows["size_pct"] == 1.0) & (rows["trace"] == TRACES[0])]
    fig = plot.figure(one.assign(load="as recorded"), "load", "resp_mean_us", by="policy")
    assert [b.get_hatch() for ax in fig.axes for b in ax.patches if b.get_hatch()] == [".."]
    plt.close(fig)
    # The epoch plot's title names it apart from the saturated runs.
    epoch_rows = pd.DataFrame(
        {
            "trace": ["t.csv"],
            "policy": ["lru"],
            "size_pages": [100],
            "saturated": [False],
            "mostly_queueing": [True],
            "timing": ["trace"],
            "queue_depth": [0],
            "resp_mean_us": [638.0],
            "flash_util_peak_1s": [0.623],
            "flash_queueing_ratio": [9.71],
        }
    )
    fig = plot.epoch_plot(_epochs(), None, rows=epoch_rows)
    try:
        title = fig._suptitle.get_text().replace("\n", " ")
        assert "mostly queueing behind bursts shorter than a second: lru 100p (flash waited 9.71x" in title
        assert "saturated," not in title
    finally:
        plt.close(fig)


def test_nothing_to_plot_is_said() -> None:
    empty = sizes_table().assign(hit_ratio=float("nan"))
    with pytest.raises(fcsim.ConfigError, match="nothing to plot: no row has a value of hit_ratio"):
        plot.figure(empty, "size_pct", "hit_ratio", by="policy")
    with pytest.raises(fcsim.ConfigError, match="no column 'nope'"):
        plot.figure(empty, "size_pct", "nope")


def test_the_epoch_plot_draws_the_load_beside_the_response() -> None:
    fig = plot.epoch_plot(_epochs(), None)
    try:
        labels = [ax.get_ylabel() for ax in fig.axes]
        assert any(label.startswith("response") for label in labels)
        load = next(ax for ax in fig.axes if ax.get_ylabel().startswith("offered load"))
        assert load.get_ylim()[1] >= 1.0  # the saturation line is in view
        assert any(ax.get_ylabel().startswith("ops in device") for ax in fig.axes)
    finally:
        plt.close(fig)


def test_the_overlap_check_sees_touching_labels() -> None:
    """overlapping() is not vacuous: long category labels on a narrow panel are reported, and
    the bar charts wrap them to their category's width."""
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar(range(3), [1, 2, 3])
    ax.set_xticks(range(3))
    ax.set_xticklabels(["a long category label"] * 3)
    try:
        assert plot.overlapping(fig)
    finally:
        plt.close(fig)
    loads = ["as recorded", "time x0.000277", "time x9.24e-05", "aged 1x, time x0.000277", "aged 1x, QD 32"]
    d = pd.DataFrame(
        [
            {"t": t, "load": ld, "p": p, "v": 1.0}
            for t in "abcdefg"
            for ld in loads
            for p in ("lru", "lcr", "cflru", "closed loop: saturated by construction")
        ]
    )
    # LCR's figure: labels wrapped at 16 characters touched on its panels, which its legend narrows.
    fig = plot.figure(d, "load", "v", by="p", facet="t", kind="bar")
    try:
        assert plot.overlapping(fig) == []
    finally:
        plt.close(fig)


def test_the_epoch_plot_says_which_runs_saturated() -> None:
    """An epoch's mean load can stay under 1 while one server, in one second, got more than it can
    do: the runs' rows say so in the title, with the busiest second's load."""
    rows = pd.DataFrame(
        {
            "trace": ["synth:zipf,pages=2000"] * 2,
            "policy": ["lru", "fifo"],
            "size_pages": [100, 100],
            "saturated": [True, False],
            "timing": ["trace", "trace"],
            "queue_depth": [0, 0],
            "resp_mean_us": [120.0, 130.0],
            "flash_util_peak_1s": [0.4, 0.3],
            "disk_util_peak_1s": [1.26, 0.5],
        }
    )
    fig = plot.epoch_plot(_epochs(), None, rows=rows)
    try:
        title = fig._suptitle.get_text().replace("\n", " ")
        assert "lru 100p (disk 1.26x)" in title and "fifo" not in title
        assert not plot.outside(fig) and not plot.over_title(fig)
        # Runs drawn thinner in turn, so that one over another shows (the legend says so).
        widths = [h.get_linewidth() for h in fig.legends[0].legend_handles[:2]]
        assert widths[0] > widths[1] and "coincide" in fig.legends[0].get_texts()[-1].get_text()
    finally:
        plt.close(fig)
    fig = plot.epoch_plot(_epochs(), None, rows=rows.assign(saturated=False))
    try:
        assert "no run saturated" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


def disks_table() -> pd.DataFrame:
    """Issue 42's case: rows that differ in a numeric setting (stack_disks) on no axis."""
    rows = []
    for disks, base in ((1, 11.3e6), (8, 0.46e6)):
        for p in ("lru", "arc"):
            for s in (100, 200, 400):
                rows.append(
                    {
                        "trace": "t.csv",
                        "policy": p,
                        "size_pages": s,
                        "stack_disks": disks,
                        "resp_p99_us": base + s,
                    }
                )
    return pd.DataFrame(rows)


def test_rows_differing_in_a_numeric_setting_are_never_averaged_unsaid() -> None:
    d = disks_table()
    # The default (reports): drawn as their mean, and the title names stack_disks, not "nothing".
    fig = plot.figure(d, "size_pages", "resp_p99_us", by="policy")
    title = " ".join(fig.get_suptitle().split())
    assert "differ in stack_disks" in title and "nothing recorded" not in title
    plt.close(fig)
    # fcsim plot and run --plot: one panel per number of disks.
    fig = plot.figure(d, "size_pages", "resp_p99_us", by="policy", mixed="facet")
    titles = sorted(ax.get_title() for ax in fig.axes if ax.axison)
    assert titles == ["disks: 1", "disks: 8"] and "mean of rows" not in fig.get_suptitle()
    plt.close(fig)
    # Two settings that vary apart: refused, both named.
    two = pd.concat(
        [d.assign(param_window=0.1), d.assign(param_window=0.5, resp_p99_us=d["resp_p99_us"] + 1)]
    )
    with pytest.raises(fcsim.ConfigError, match="differ in stack_disks, param_window"):
        plot.figure(two, "size_pages", "resp_p99_us", by="policy", mixed="facet")
    with pytest.raises(fcsim.ConfigError, match="differ in stack_disks"):
        plot.figure(d, "size_pages", "resp_p99_us", by="policy", facet="trace", mixed="facet")
    # Seeds of one point are its mean, never refused.
    seeded = pd.concat([d.assign(seed_index=0), d.assign(seed_index=1)])
    plt.close(
        plot.figure(seeded, "size_pages", "resp_p99_us", by="policy", facet="stack_disks", mixed="facet")
    )


def test_fcsim_plot_facets_a_numeric_setting(tmp_path: Path) -> None:
    table, out = tmp_path / "t.csv", tmp_path / "t.png"
    disks_table().to_csv(table, index=False)
    r = cli("plot", table, "--x", "size_pages", "--y", "resp_p99_us", "--by", "policy", "--out", out)
    assert r.returncode == 0, r.stderr
    assert out.exists() and "rows differ in stack_disks on no axis: one panel per value" in r.stderr


def test_coincident_lines_are_visible_and_named() -> None:
    rows = []
    for p, off in (("lru", 0.0), ("arc", 0.0), ("larc", 0.1), ("fifo", 100.0)):
        for s in (1, 2, 5, 10):
            rows.append({"policy": p, "size_pages": 100 * s, "resp_p99_us": 1000 + 50 * s + off})
    fig = plot.figure(pd.DataFrame(rows), "size_pages", "resp_p99_us", by="policy")
    lines = [ln for ln in fig.axes[0].get_lines() if len(ln.get_xdata()) == 4]
    # Each line its own shape, dash and size: a later one drawn inside an earlier one.
    assert len({ln.get_marker() for ln in lines}) == 4 and len({ln.get_linestyle() for ln in lines}) == 4
    sizes = [ln.get_markersize() for ln in lines]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "lru = arc = larc coincide" in texts and not any("fifo" in t and "coincide" in t for t in texts)
    plt.close(fig)


def test_axes_are_in_words_and_the_legend_never_covers_the_title() -> None:
    assert plot.words("resp_mean_us") == "mean response time (µs)"
    assert plot.words("size_pages") == "cache size (pages)"
    assert plot.words("flush_s") == "flush (s)" and plot.words("axis_stack_disks") == "stack.disks"
    d = sizes_table()
    long = "a title long enough to run across every panel and on into the legend beside them " * 2
    for facet in (None, "trace"):
        fig = plot.figure(d, "size_pct", "resp_mean_us", by="policy", facet=facet, title=long)
        assert fig.axes[0].get_ylabel() == "mean response time (µs)"
        assert not plot.over_title(fig) and not plot.outside(fig)
        plt.close(fig)


def test_a_panel_null_throughout_says_why_when_the_rows_do() -> None:
    # EPBPD is null on a trace shorter than an hour; the rows' reason is printed in the panel.
    why = "the trace spans 1,205 s, under the hour EPBPD needs"
    t = pd.DataFrame(
        {
            "size": [1, 2, 1, 2],
            "policy": ["a", "a", "b", "b"],
            "rhr": [0.1, 0.2, 0.15, 0.25],
            "epbpd": [None] * 4,
            "epbpd_null_reason": [why] * 4,
        }
    )
    fig = plot.figure(t, "size", ["rhr", "epbpd"], by="policy", ylog={"epbpd"})
    texts = [" ".join(x.get_text().split()) for ax in fig.axes for x in ax.texts]
    plt.close(fig)
    assert f"null throughout: {why}" in texts
