"""Plots of fcsim results (matplotlib, no display needed)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd


def mrc_plot(curve: pd.DataFrame, path: str | os.PathLike[str], title: str | None = None) -> None:
    """Writes the miss-ratio curve from `fcsim.mrc()` as a PNG (atomically)."""
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
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".png", dir=p.parent if str(p.parent) else ".")
    os.close(fd)
    try:
        fig.savefig(tmp, format="png")
        os.replace(tmp, p)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
