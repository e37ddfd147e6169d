"""`fcsim reproduce offline`: the offline-bounds paper's claims beside fcsim's numbers.

One table holds every run: the paper's setup (2 MiB containers) where the traces allow it, and
the 128 KiB-container variant on which Fig. 5-10 are redrawn. Every algorithm sits behind a
DRAM tier of 5% of the cache (MIN for the offline ones, LRU for the online ones); RHR counts
DRAM and flash read hits."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from fcsim.reports.common import size_pct, version

NAMES = {"lru-ftl": "LRU", "ripq+": "RIPQ+", "pannier": "Pannier", "m": "MIN", "m+": "M+", "c": "C"}
FIG5 = ["lru-ftl", "ripq+", "pannier", "m", "m+", "c"]


def _col(df: pd.DataFrame, name: str, default: str) -> pd.Series:
    if name not in df.columns:
        return pd.Series(default, index=df.index)
    return df[name].astype(object).where(df[name].notna(), default).astype(str)


def _label(df: pd.DataFrame) -> pd.DataFrame:
    """Adds the container size, and a `config` naming every non-default switch."""
    d = df.assign(size_pct=size_pct(df))
    d["container"] = _col(d, "device_pages_per_block", "512").astype(int)
    buf, op = _col(d, "stack_buffer", "4"), _col(d, "device_op", "0.07").astype(float)
    trim, cfr, pack = (
        _col(d, "param_trim", "-"),
        _col(d, "param_cfr", "true"),
        _col(d, "param_packing", "evict"),
    )
    quota, n = _col(d, "param_quota", ""), _col(d, "param_n", "")
    d["buffer"], d["op"] = buf.astype(int), op
    d["default"] = (
        (buf == "4")
        & (op == 0.07)
        & (cfr == "true")
        & (pack == "evict")
        & ~((d["policy"] == "m+") & (trim == "false"))
    )
    d["stage"] = np.select(
        [
            (d["policy"] == "m+") & (trim == "false"),
            (d["policy"] == "c") & (pack == "arrival") & (cfr == "false") & (buf == "4"),
            (d["policy"] == "c") & (pack == "arrival") & (cfr == "true") & (buf == "4"),
        ],
        ["R1", "containers", "+CFR"],
        "",
    )
    d["quota"], d["n"] = quota, n
    d["rhr"] = d["read_hit_ratio"]
    return d


def _plot_fig5(d: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pols = [p for p in FIG5 if p in set(d["policy"])]
    sizes = sorted(d["size_pct"].unique())
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    width = 0.8 / max(len(pols), 1)
    for i, p in enumerate(pols):
        g = d[d["policy"] == p].groupby("size_pct")
        x = np.arange(len(sizes)) + i * width
        axes[0].bar(x, [g["rhr"].mean().get(s, np.nan) for s in sizes], width, label=NAMES[p])
        axes[1].bar(x, [g["epbpd"].mean().get(s, np.nan) for s in sizes], width, label=NAMES[p])
    for ax, yl in zip(axes, ["read hit ratio (mean over traces)", "EPBPD (mean over traces)"], strict=True):
        ax.set_xticks(np.arange(len(sizes)) + 0.4 - width / 2)
        ax.set_xticklabels([f"{s:g}%" for s in sizes])
        ax.set_xlabel("cache size, % of working set")
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3, axis="y")
    axes[1].set_yscale("log")
    axes[0].legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pct(a, b):
    """(a - b) / b in percent; nan where b is 0."""
    if isinstance(b, pd.Series):
        return 100.0 * (a - b) / b.where(b != 0)
    return 100.0 * (a - b) / b if b else float("nan")


def _rng(v: pd.Series) -> str:
    v = v.dropna()
    return "n/a" if v.empty else f"{v.min():.1f}% to {v.max():.1f}%"


def _md(t: pd.DataFrame) -> str:
    """A pivot table as a Markdown table (index levels first)."""
    if t.empty:
        return "(no rows)"
    names = [str(n) for n in t.index.names]
    cols = [" ".join(str(c) for c in (k if isinstance(k, tuple) else (k,))) for k in t.columns]
    out = ["| " + " | ".join(names + cols) + " |", "|" + "---|" * (len(names) + len(cols))]
    for idx, row in t.iterrows():
        keys = idx if isinstance(idx, tuple) else (idx,)
        cells = [f"{v:g}" if isinstance(v, float) else str(v) for v in keys]
        cells += ["" if pd.isna(v) else f"{v:.3f}" for v in row]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _pivot(d: pd.DataFrame, value: str) -> pd.DataFrame:
    return d.pivot_table(index=["trace", "size_pct"], columns="policy", values=value, aggfunc="first")


def report(df: pd.DataFrame, out: Path, command: str) -> Path:
    d = _label(df)
    paper = d[(d["container"] == 512) & d["default"]]
    var = d[d["container"] == 32]
    base = var[var["default"] & var["policy"].isin(FIG5)]
    _plot_fig5(base, out / "fig5_rhr_epbpd.png")
    rhr, er, ep = _pivot(base, "read_hits"), _pivot(base, "erasures"), _pivot(base, "epbpd")
    lines = [
        "# Offline flash-cache bounds: fcsim beside the paper",
        "",
        f"Made by `{command}` with fcsim {version()}.",
        "Plot: `fig5_rhr_epbpd.png`; every row: `results.parquet`.",
        "",
        "## Setup",
        "",
        "The paper (§5, §5.2): 34 traces with working sets of at least 32 GB; 2 MiB erase units (512 x 4 KiB",
        "containers); a DRAM cache of 5% of the flash cache (MIN for offline algorithms, LRU for online",
        "ones);",
        "a write buffer of 4 containers; OP 7%; caches of 1-10% of each trace's working set.",
        "",
        "Here: the three timestamped real traces shipped in `data/traces/` with working sets near 1 GB",
        "(cloudphysics 269,210 pages, diskmon 174,758, tencent 348,239).",
        "**Main run (the paper's setup)**: 2 MiB",
        "containers, where a trace's cache holds the containers C needs (10% of cloudphysics and tencent).",
        "**Variant (labelled; all figures below)**: 128 KiB containers (32 pages) for FTL and",
        "containers alike,",
        "so every cache from 1% holds at least 55 containers; everything else as the paper.",
        "",
        "## Main run: the paper's setup (2 MiB containers, 10%)",
        "",
        "| trace | policy | RHR | erasures | EPBPD | FUE | WFUE(0.2) | WFUE(0.8) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in paper.sort_values(["trace", "policy"]).iterrows():
        lines.append(
            f"| {r['trace']} | {NAMES.get(r['policy'], r['policy'])} | {r['rhr']:.4f} | "
            f"{int(r['erasures'])} | "
            f"{r['epbpd']:.2f} | {r['fue']:.3f} | {r['wfue_0.2']:.3f} | {r['wfue_0.8']:.3f} |"
        )
    lines += [
        "",
        "## Fig. 5 (variant): RHR and EPBPD",
        "",
        "| trace | size | " + " | ".join(f"{NAMES[p]} RHR / EPBPD" for p in FIG5 if p in rhr.columns) + " |",
        "|---|---|" + "---|" * sum(p in rhr.columns for p in FIG5),
    ]
    rr = _pivot(base, "rhr")
    for (trace, size), row in rr.iterrows():
        cells = [f"{row[p]:.4f} / {ep.loc[(trace, size), p]:.2f}" for p in FIG5 if p in rr.columns]
        lines.append(f"| {trace} | {size:g}% | " + " | ".join(cells) + " |")

    # Claims of §6.1.
    both = pd.concat([paper, base])
    eq = both.pivot_table(index=["trace", "size_pct", "container"], columns="policy", values="read_hits")
    same = ((eq["m"] == eq["m+"]) & (eq["m"] == eq["c"])).sum()
    era = both.pivot_table(index=["trace", "size_pct", "container"], columns="policy", values="erasures")
    order = ((era["c"] <= era["m+"]) & (era["m+"] <= era["m"])).sum()
    c_vs_m = -_pct(er["c"], er["m"]) if {"c", "m"} <= set(er.columns) else pd.Series(dtype=float)
    c_vs_mp = -_pct(er["c"], er["m+"])
    mp_vs_m = -_pct(er["m+"], er["m"])
    lines += [
        "",
        "## The paper's claims beside fcsim's numbers",
        "",
        f"- **RHR(M+) = RHR(MIN) = RHR(C)** (§6.1): equal read hits at {same} of {len(eq)} points"
        " (both setups);"
        " also a property test over random traces (`crates/fcsim/tests/offline.rs`).",
        f"- **Erasures C <= M+ <= MIN**: holds at {order} of {len(era)} points.",
        f"- **C keeps MIN's RHR with 55-67% fewer erasures** (abstract, §7): fcsim {_rng(c_vs_m)} fewer"
        " (variant, every trace and size).",
        f"- **M+ saves 31% of MIN's erasures** (§6.1): fcsim {_rng(mp_vs_m)}.",
        f"- **C improves on M+ by 6-40%** (§7; 40% at small caches, §6.1): fcsim {_rng(c_vs_mp)}.",
    ]
    if {"pannier", "lru-ftl", "m"} <= set(rr.columns):
        p_vs_l = _pct(rr["pannier"], rr["lru-ftl"])
        m_vs_p = _pct(rr["m"], rr["pannier"])
        lines += [
            f"- **Pannier gains up to 26% RHR over LRU** (§6.1): fcsim {_rng(p_vs_l)}.",
            f"- **MIN's RHR exceeds Pannier's by 9.7-40%** (§6.1): fcsim {_rng(m_vs_p)}.",
        ]
    if {"ripq+", "lru-ftl"} <= set(rr.columns):
        lines.append(
            f"- **RIPQ+ ~ LRU in RHR** (§6.1): fcsim RIPQ+ vs LRU {_rng(_pct(rr['ripq+'], rr['lru-ftl']))}."
        )
    else:
        lines.append("- RIPQ+ and Pannier: not in this run (see the closing notes of the offline issue).")

    # Fig. 6: erasures saved by each stage, as a share of MIN's.
    st = var[(var["stage"] != "")].pivot_table(
        index=["trace", "size_pct"], columns="stage", values="erasures"
    )
    stages = pd.concat([er[["m", "m+", "c"]], st], axis=1)
    lines += [
        "",
        "## Fig. 6 (variant): erasures after each stage, as a share of MIN's",
        "",
        "| trace | size | R_1 | +TRIM (M+) | containers (arrival) | +CFR | +E (C) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (trace, size), r in stages.iterrows():
        cells = [r.get(k, np.nan) / r["m"] for k in ["R1", "m+", "containers", "+CFR", "c"]]
        lines.append(f"| {trace} | {size:g}% | " + " | ".join(f"{c:.3f}" for c in cells) + " |")

    # Fig. 7-8.
    c7 = var[(var["policy"] == "c") & (var["op"] == 0.07) & (_col(var, "param_cfr", "true") == "true")]
    t7 = c7.assign(pack=_col(c7, "param_packing", "evict")).pivot_table(
        index=["trace", "size_pct"], columns=["pack", "buffer"], values="epbpd"
    )
    lines += ["", "## Fig. 7 (variant): C's EPBPD by write buffer (containers) and packing", "", _md(t7)]
    t8 = var[
        var["policy"].isin(["m+", "c"])
        & (_col(var, "stack_buffer", "4") == "4")
        & (_col(var, "param_packing", "evict") == "evict")
        & (_col(var, "param_cfr", "true") == "true")
        & (_col(var, "param_trim", "true") == "true")
    ]
    t8 = t8.pivot_table(index=["trace", "size_pct"], columns=["policy", "op"], values="epbpd")
    lines += ["", "## Fig. 8 (variant): EPBPD by over-provisioning", "", _md(t8)]

    # Fig. 9.
    q = var[var["policy"].isin(["m_t", "c_t"])]
    lines += [
        "",
        "## Fig. 9 (variant): M_T and C_T under erasure quotas",
        "",
        "| trace | size | policy | quota | erasures / budget | RHR loss vs M+ | WFUE(0.2) | WFUE(0.8) "
        "| replays |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    met = 0
    for _, r in q.sort_values(["trace", "size_pct", "policy", "quota"]).iterrows():
        ok = r["erasures"] <= r["quota_erasures"] + 1e-9
        met += bool(ok)
        loss = -_pct(r["rhr"], r["mplus_read_hit_ratio"])
        lines.append(
            f"| {r['trace']} | {r['size_pct']:g}% | {r['policy']} | {r['quota']} | {int(r['erasures'])} / "
            f"{r['quota_erasures']:.1f} | {loss:.1f}% | {r['wfue_0.2']:.3f} | {r['wfue_0.8']:.3f} | "
            f"{int(r['quota_replays'])} |"
        )
    lines += ["", f"Quota met at {met} of {len(q)} points (the paper: M_T and C_T meet their EPBPD limit)."]

    # Fig. 10.
    nn = var[var["policy"].isin(["m_n", "c_n"]) | (var["policy"].isin(["m+", "c"]) & var["default"])]
    nn = nn.assign(N=np.where(nn["policy"].isin(["m+", "c"]), "1", nn["n"]), fam=nn["policy"].str[0])
    t10 = nn.pivot_table(index=["trace", "size_pct", "fam"], columns="N", values=["rhr", "epbpd", "fue"])
    rises = 0
    for _, r in t10.iterrows():
        f = [r[("fue", k)] for k in ["1", "2", "3"] if ("fue", k) in r.index]
        rises += all(b >= a for a, b in itertools.pairwise(f))
    lines += [
        "",
        "## Fig. 10 (variant): M_N and C_N, N = 1 (M+, C), 2, 3",
        "",
        _md(t10),
        "",
        f"FUE rises (or holds) with N at {rises} of {len(t10)} (trace, size, family) points.",
        "The paper (§6.3, small caches): C_2 loses 41% of the RHR for 79% fewer erasures.",
    ]
    c2 = t10.xs("c", level="fam") if "c" in t10.index.get_level_values("fam") else None
    if c2 is not None and ("rhr", "2") in c2.columns:
        lines.append(
            f"fcsim C_2 vs C: RHR {_rng(_pct(c2[('rhr', '2')], c2[('rhr', '1')]))}, EPBPD "
            f"{_rng(_pct(c2[('epbpd', '2')], c2[('epbpd', '1')]))}."
        )
    lines += [
        "",
        "## Where fcsim's setup differs",
        "",
        "- Traces: three ~1 GB timestamped traces, not the paper's 34 traces of at least 32 GB; the",
        "  figures use",
        "  128 KiB containers (a labelled variant). The numbers above are fcsim's on these traces only.",
        "- CFR: one replay removes every wasted copy-forward (the MIN queue keeps skipped blocks, so",
        "  whether a",
        "  copied block is read before eviction is known from the first replay); the paper's iterative CFR",
        "  leaves about 1% of erasures to wasted copies (§3.3).",
        "- M_T/C_T: the insertions allowed follow from the quota by bisection over replays (at most 8).",
    ]
    path = out / "summary.md"
    path.write_text("\n".join(lines) + "\n")
    return path
