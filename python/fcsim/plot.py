"""Plots of fcsim results (matplotlib, no display needed)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from fcsim.output import atomic, guard

#: What a plot file can be, by its name's extension.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


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

    try:
        with atomic(path) as tmp:
            fig.savefig(tmp, format=kind, **options)
    finally:
        plt.close(fig)


def mrc_plot(curve: pd.DataFrame, path: str | os.PathLike[str], title: str | None = None) -> None:
    """Writes the miss-ratio curve from `fcsim.mrc()` as a PNG, SVG or PDF by ``path``'s
    extension (atomically)."""
    check_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
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
    ax.set_xscale("log")
    ax.set_xlabel("cache size (MiB)")
    ax.set_ylabel("miss ratio")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title or Path(str(curve.attrs.get("trace", ""))).name)
    ax.legend()
    fig.tight_layout()
    save(fig, path)


RUN_PANELS = [
    ("hit_ratio", "hit ratio"),
    ("flash_page_writes", "flash page writes"),
    ("resp_p99_us", "p99 response (µs)"),
]


def run_plot(df: pd.DataFrame, path: str | os.PathLike[str], title: str | None = None) -> None:
    """Writes the rows of ``fcsim run`` as a PNG, SVG or PDF by ``path``'s extension
    (atomically): hit ratio against cache size and,
    for rows with a device, flash page writes and p99 response time, one line per policy (and
    device, when there are several). A panel with no values (p99 of an untimed trace) is left
    out; ``none`` (no cache, size 0) is a dashed horizontal line."""
    check_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    panels = [(c, label) for c, label in RUN_PANELS if c in df.columns and df[c].notna().any()]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), dpi=120, squeeze=False)
    d = df.assign(mib=df["size_pages"] * df["page_size"] / 2**20)
    devices = d["device"].fillna("") if "device" in d.columns else pd.Series("", index=d.index)
    several = devices.nunique() > 1
    d = d.assign(line=d["policy"] + (" / " + devices if several else ""))
    sized = d[d["size_pages"] > 0]
    for ax, (col, label) in zip(axes[0], panels, strict=True):
        for i, (name, g) in enumerate(sized.groupby("line", sort=False)):
            g = g.sort_values("mib")
            ax.plot(g["mib"], g[col], marker="o", color=f"C{i % 10}", label=name)
        for name, g in d[d["size_pages"] == 0].groupby("line", sort=False):
            ax.axhline(g[col].iloc[0], color="grey", linestyle="--", label=f"{name} (no cache)")
        if len(sized) and sized["mib"].max() > 10 * sized["mib"].min():
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("cache size (MiB)")
        ax.set_ylabel(label)
        if col == "hit_ratio":
            ax.set_ylim(0, min(1.02, max(0.05, float(d[col].max()) * 1.15)))
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    what = ", ".join(dict.fromkeys(str(t) for t in df["trace"]))
    if not several and devices.iloc[0]:
        what += f" over {devices.iloc[0]} ({df['device_state'].iloc[0]})" if "device_state" in df else ""
    fig.suptitle(title or what, fontsize=10)
    fig.tight_layout()
    save(fig, path)


def epoch_plot(epochs: pd.DataFrame, path: str | os.PathLike[str], title: str | None = None) -> None:
    """Writes a per-epoch table (``--epoch``; ``row.epochs``) as time series, a PNG, SVG or PDF by
    ``path``'s extension (atomically): hit ratio, flash page writes and erasures, and mean and
    p99 response per epoch, one line per run (policy, size, device). The x axis is the epoch's
    start in simulated seconds, or its index when the run has no times. A panel with no values
    (no device, an untimed trace) is left out."""
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
        label = d["trace"] + ": " + label
    d["line"] = label
    panels = [("hit_ratio", "hit ratio", None)]
    if "flash_page_writes" in d.columns and d["flash_page_writes"].notna().any():
        panels.append(("flash_page_writes", "flash page writes\n(dashed: erasures)", "erasures"))
    if "resp_mean_us" in d.columns and d["resp_mean_us"].notna().any():
        panels.append(("resp_mean_us", "response (µs)\n(mean; dashed: p99)", "resp_p99_us"))
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(8, 2.6 * len(panels)), dpi=120, sharex=True, squeeze=False
    )
    for ax, (col, name, second) in zip(axes[:, 0], panels, strict=True):
        for i, (line, g) in enumerate(d.groupby("line", sort=False)):
            color = f"C{i % 10}"
            # Each epoch a step over its own span (an empty epoch's ratio is a gap).
            edges = [*g["x0"], g["x1"].iloc[-1]]
            ax.stairs(g[col].astype(float), edges, color=color, label=line, baseline=None)
            if second is not None:
                ax.stairs(
                    g[second].astype(float), edges, color=color, linestyle="--", linewidth=1, baseline=None
                )
        if col == "resp_mean_us":
            ax.set_yscale("log")
        if col == "hit_ratio":
            ax.set_ylim(0, 1.02)
        ax.set_ylabel(name, fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    axes[-1][0].set_xlabel("simulated time (s)" if timed else "epoch")
    fig.suptitle(title or ", ".join(dict.fromkeys(str(t) for t in d["trace"])) + " per epoch", fontsize=10)
    fig.tight_layout()
    save(fig, path)
