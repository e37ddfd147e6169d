"""Issue 30: seeds and confidence intervals, provenance in every row (and stale tables), axes
from `fcsim run --set`, and the printed columns by mode."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import ROOT, TRACES
from conftest import cli as fcsim_cli  # `fcsim` run in this process
from fcsim import cli, reports, seeds, sweep, tables
from fcsim.reports import changes

SYNTH = "synth:zipf,alpha=0.9,requests=20000,pages=2000,write=0.3"


# --- Student t and the interval ------------------------------------------------------------


def test_t_quantiles_match_the_tables() -> None:
    # Two-sided 95% critical values of Student's t (any statistics table).
    for df, t in [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (30, 2.0423), (200, 1.9719)]:
        assert seeds.t_quantile(0.975, df) == pytest.approx(t, abs=1e-4), df


def test_ci95_by_hand() -> None:
    # 1, 2, 3: mean 2, s = 1, half-width t(0.975, 2) / sqrt(3) = 4.3027 / 1.7321 = 2.4841.
    mean, half, n = seeds.ci95([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3) and half == pytest.approx(2.4841, abs=1e-4)
    mean, half, n = seeds.ci95([5.0])
    assert mean == 5.0 and math.isnan(half) and n == 1


# --- Seeds ---------------------------------------------------------------------------------


def test_n_seeds_give_n_distinct_rows_and_an_interval_around_their_mean() -> None:
    n = 6
    result = fcsim.run(SYNTH, ["lru", "pt-lru"], ["5%"], seeds=n)
    df, s = result.rows, result.summary
    assert s is not None
    for policy in ("lru", "pt-lru"):
        rows = df[df["policy"] == policy]
        assert len(rows) == n and list(rows["seed_index"]) == list(range(n))
        assert (rows["seeds"] == n).all()
        # Each seed is another trace (and, for PT-LRU, another coin): the rows differ.
        assert rows["hits"].nunique() == n
        assert rows["seeded"].nunique() == n
        sm = s[s["policy"] == policy].iloc[0]
        mean = rows["hit_ratio"].mean()
        assert sm["seeds"] == n and sm["hit_ratio"] == pytest.approx(mean)
        half = sm["hit_ratio_ci95"]
        assert half > 0 and sm["hit_ratio"] - half <= mean <= sm["hit_ratio"] + half
        t = seeds.t_quantile(0.975, n - 1)
        assert half == pytest.approx(t * rows["hit_ratio"].std(ddof=1) / math.sqrt(n))
    assert set(df[df["policy"] == "pt-lru"]["seeded"]) == {
        f"trace {42 + i}, pt-lru.seed {42 + i}" for i in range(n)
    }


def test_seed_index_0_is_the_run_without_seeds() -> None:
    one = fcsim.simulate(SYNTH, "pt-lru", "5%")
    df = fcsim.run_grid(SYNTH, "pt-lru", "5%", seeds=3)
    first = df[df["seed_index"] == 0].iloc[0]
    assert first["hits"] == one.hits and first["trace"] == one.trace
    other = fcsim.simulate(SYNTH + ",seed=44", "pt-lru", "5%", set={"pt-lru.seed": 44})
    assert df[df["seed_index"] == 2].iloc[0]["hits"] == other.hits


def test_a_point_with_nothing_random_runs_once() -> None:
    trace = str(TRACES / "msr_hm_0_excerpt1000.csv")
    df = fcsim.run_grid(trace, ["lru", "pt-lru"], ["10%"], seeds=4)
    assert list(df.groupby("policy", sort=False).size()) == [1, 4]
    assert df[df["policy"] == "lru"].iloc[0]["seeds"] == 1
    # A drive aged at random is seeded; a filled one is not.
    aged = seeds.components(trace, "lru", "gasa", {"device.fill": 1, "device.steady": 1})
    assert aged == {"device.seed": 42}
    assert seeds.components(trace, "lru", "lcr", {}) == {}
    assert seeds.components(trace, "lru", None, {"stack.kind": "ssd-cache", "device.steady": "0"}) == {}


def test_default_seed_is_the_cores() -> None:
    # DEFAULT_SEED must be what the core uses when no seed is given.
    row = fcsim.simulate(SYNTH, "pt-lru", "5%")
    assert row["param_seed"] == str(seeds.DEFAULT_SEED)
    assert dict(next(d for d in fcsim.devices() if d["name"] == "defaults")["values"])["seed"] == str(
        seeds.DEFAULT_SEED
    )
    explicit = fcsim.simulate(f"{SYNTH},seed={seeds.DEFAULT_SEED}", "lru", "5%")
    assert explicit.hits == fcsim.simulate(SYNTH, "lru", "5%").hits


def test_run_prints_the_seeds_summary() -> None:
    r = fcsim_cli("run", SYNTH, "--policy", "lru", "--size", "5%", "--seeds", "3")
    assert r.returncode == 0, r.stderr
    assert "mean ± 95% confidence interval (Student t)" in r.stdout
    summary = r.stdout.split("Student t")[1]
    assert " ± " in summary and " 3 " in summary
    # Every point is seeded: no legend for points that are not; a percent size resolves to each
    # seed's own working set, and the seeds' sizes are given as their range.
    assert "nothing random" not in summary
    sizes = sorted({int(line.split()[2]) for line in r.stdout.split("\n\n")[0].splitlines()[1:]})
    assert len(sizes) > 1 and f" {sizes[0]}-{sizes[-1]} " in summary.splitlines()[2]
    bad = fcsim_cli("run", SYNTH, "--policy", "lru", "--size", "5%", "--seeds", "0")
    assert bad.returncode == 2 and "seeds=0: expected a number of seeds" in bad.stderr


def test_a_summary_keeps_a_boolean_the_seeds_agree_on() -> None:
    # The seeds of an aged drive agree on mostly_queueing: the summary keeps it (a numpy bool
    # taken from the column was refused, a traceback from `fcsim run --seeds`).
    msr = TRACES / "msr_hm_0_excerpt1000.csv"
    sets = {"device.fill": 1, "device.steady": 0.2}
    g = fcsim.run(msr, ["lru", "fifo"], "5%", device="gasa", set=sets, seeds=2)
    assert g.summary is not None and str(g.summary["mostly_queueing"].dtype) == "boolean"
    agreed = g.rows.groupby("policy")["mostly_queueing"].nunique().eq(1)
    assert agreed.any() and g.summary.set_index("policy")["mostly_queueing"][agreed].notna().all()


def test_seeds_of_two_admissions_are_summarised_apart() -> None:
    # --admit random,second-hit: each admission its own point, in the summary as in the table
    # (the summary pooled them: one mean over two policies).
    msr = TRACES / "msr_hm_0_excerpt1000.csv"
    ssd = {"stack.kind": "ssd-cache"}
    g = fcsim.run(msr, "lru", "10%", set=ssd, admit=["random", "second-hit"], seeds=2)
    assert g.summary is not None
    by = g.summary.set_index("admission")
    assert list(by.index) == ["random", "second-hit"] and list(by["seeds"]) == [2, 1]
    random = g.rows[g.rows["admission"] == "random"]["cache_writes"]
    assert by.loc["random", "cache_writes"] == pytest.approx(random.mean())
    r = fcsim_cli(
        "run",
        msr,
        "--policy",
        "lru",
        "--size",
        "10%",
        "--set",
        "stack.kind=ssd-cache",
        "--admit",
        "random,second-hit",
    )
    header = r.stdout.splitlines()[0].split()
    assert header.index("admission") == header.index("policy") + 1


def test_mrc_compare_with_seeds() -> None:
    trace = TRACES / "cloudphysics_vscsi_2h.csv.gz"
    df = fcsim.mrc_compare(trace, "shards", rate=0.01, seeds=4)
    assert sorted(df["seed"].unique()) == [0, 1, 2, 3]
    assert (df.attrs["seeds"], df.attrs["method"], df.attrs["curve"]["rate"]) == (4, "shards", 0.01)
    mae = list(df.groupby("seed")["abs_error"].mean())
    assert len(set(mae)) == 4
    # Seed 0 is `fcsim mrc --compare` without seeds: the 0.0042 on this trace.
    assert mae[0] == pytest.approx(0.0042, abs=5e-5)
    r = fcsim_cli("mrc", trace, "--method", "shards", "--rate", "0.01", "--compare", "--seeds", "3")
    assert r.returncode == 0, r.stderr
    assert "mean absolute error " in r.stdout and " ± " in r.stdout.splitlines()[-1]
    r = fcsim_cli("mrc", trace, "--method", "shards", "--rate", "0.01", "--seeds", "3")
    assert r.returncode == 2 and "add --compare" in r.stderr


SEEDED = f"""
traces = ["{SYNTH}"]
policies = ["lru"]
sizes = ["5%"]
seeds = 3
"""


def test_a_sweep_runs_each_random_point_with_its_seeds(tmp_path: Path) -> None:
    exp = tmp_path / "s.toml"
    exp.write_text(SEEDED)
    df = sweep.sweep(exp, tmp_path / "s.parquet", jobs=1)
    assert len(df) == 3 and list(df["seed_index"]) == [0, 1, 2] and (df["seeds"] == 3).all()
    assert df["hits"].nunique() == 3 and (df["trace"] == SYNTH).all()
    s = sweep.summarize_seeds(df)
    assert len(s) == 1 and s.iloc[0]["seeds"] == 3
    assert s.iloc[0]["hit_ratio"] == pytest.approx(df["hit_ratio"].mean())
    # --seeds overrides the file's; the CLI writes the summary beside the table.
    out = tmp_path / "c.parquet"
    r = fcsim_cli("sweep", exp, "--out", out, "--seeds", "2", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert len(pd.read_parquet(out)) == 2
    summary = pd.read_parquet(tmp_path / "c.seeds.parquet")
    assert list(summary["seeds"]) == [2] and "hit_ratio_ci95" in summary.columns


def test_a_reproduction_is_scored_on_each_seed_apart(tmp_path: Path) -> None:
    # Two seeds of a random point and one row of a point that draws from no seed: each seed's
    # table holds its own row of the random point and the other point's one row.
    exp = tmp_path / "s.toml"
    exp.write_text(SEEDED.replace("seeds = 3", "seeds = 2"))
    random = sweep.sweep(exp, tmp_path / "s.parquet", jobs=1)
    fixed = dict(fcsim.simulate(TRACES / "msr_hm_0_excerpt1000.csv", policy="lru", size="5%"))
    df = pd.concat([random, pd.DataFrame([fixed])], ignore_index=True)
    first, second = reports.seed_slices(df)
    assert list(first["seed_index"].fillna(0)) == [0, 0] and list(second["seed_index"].fillna(0)) == [1, 0]
    assert first.iloc[1]["trace"] == second.iloc[1]["trace"] != SYNTH
    assert len(reports.seed_slices(first)) == 1


def test_verdicts_the_seed_decides_are_named() -> None:
    # Seed index 0's summary as a reproduction writes it, and index 1's with one verdict turned:
    # the section after the verdict table counts the verdicts alike and lists the one that is
    # not, with each seed's figure.
    text = (ROOT / "results" / "gasa" / "summary.md").read_text()
    # As a paper's report writes it, before the seeds' section is added.
    text = re.sub(r"### Verdicts over seeds\n.*?(?=\n## )", "", text, flags=re.S)
    assert "Verdicts over seeds" not in text
    table = changes.figures(text)
    # The verdicts (a column that does not score a claim leaves its cell empty).
    n = len(changes.verdicts(text))
    (claim, column), (_, figure) = next((k, v) for k, v in table.items() if v[0] == "agrees")
    row = next(line for line in text.splitlines() if line.startswith(f"| {claim} |"))
    other = text.replace(row, row.replace("| agrees |", "| **disagrees** |", 1), 1)
    out = reports.with_seed_verdicts([text, other])
    assert out.startswith(text[: text.index("## Verdicts")])
    section = out[out.index("### Verdicts over seeds") :]
    assert section.index("### Verdicts over seeds") < section.index("\n## ")
    assert n < len(table) and f"{n - 1} of the {n} verdicts are the same on all 2 seeds" in section
    assert f"| {claim} | {column} | agrees | disagrees | 1 of 2 |" in section
    assert f"- {claim} ({column}): index 0: {figure}; index 1: {figure}" in section
    # The verdict table itself is index 0's, read back unchanged.
    assert changes.figures(out) == table
    assert reports.with_seed_verdicts([text]) == text
    same = reports.with_seed_verdicts([text, text])
    assert f"{n} of the {n} verdicts are the same on all 2 seeds." in same


# --- Provenance ----------------------------------------------------------------------------


def test_every_row_says_which_fcsim_made_it() -> None:
    assert fcsim.__version__ == fcsim._core.VERSION and fcsim.__version__.count(".") == 2
    rev = fcsim.__revision__
    assert rev == "unknown" or len(rev.removesuffix("-dirty")) == 12
    row = fcsim.simulate(SYNTH, "lru", "5%")
    assert (row.fcsim_version, row.fcsim_revision) == (fcsim.__version__, rev)
    r = fcsim_cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"fcsim {fcsim.__version__} (revision {rev})"


TINY = f"""
traces = ["{SYNTH}"]
policies = ["lru", "fifo"]
sizes = ["5%"]
"""


def test_a_table_made_by_another_version_is_not_silently_reused(tmp_path: Path) -> None:
    exp = tmp_path / "t.toml"
    exp.write_text(TINY)
    out = tmp_path / "t.parquet"
    sweep.sweep(exp, out, jobs=1)
    # The same fcsim: every point reused.
    said: list[str] = []
    df = sweep.sweep(exp, out, jobs=1, notify=said.append)
    assert df.attrs["reused"] == 2 and not any("another fcsim" in m for m in said)
    # One row made by another revision, one by a version before rows carried theirs.
    table = pd.read_parquet(out)
    table.loc[0, "fcsim_revision"] = "0123456789ab"
    table.loc[1, "fcsim_version"] = None
    table.loc[0, "hits"] = -1  # a value the stale run "measured"
    table.to_parquet(out)
    said.clear()
    df = sweep.sweep(exp, out, jobs=1, notify=said.append)
    assert df.attrs["computed"] == 2 and df.attrs["reused"] == 0
    assert (df["hits"] >= 0).all() and (df["fcsim_revision"] == fcsim.__revision__).all()
    (line,) = [m for m in said if "another fcsim" in m]
    assert "2 point(s)" in line and "0123456789ab" in line and "--keep-stale" in line
    # --keep-stale reuses them, and says so.
    table = pd.read_parquet(out)
    table.loc[0, "fcsim_revision"] = "0123456789ab"
    table.to_parquet(out)
    said.clear()
    df = sweep.sweep(exp, out, jobs=1, notify=said.append, keep_stale=True)
    assert df.attrs["reused"] == 2 and any("reusing 1 point(s)" in m for m in said)
    # The CLI says it on stderr.
    table.to_parquet(out)
    r = fcsim_cli("sweep", exp, "--out", out, "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "made by another fcsim (0.1.0 (0123456789ab)); computing them again" in r.stderr.replace(
        fcsim.__version__, "0.1.0"
    )


# --- Axes from the CLI ---------------------------------------------------------------------


def test_set_with_commas_makes_an_axis() -> None:
    fixed, axes = cli._set_axes(["stack.split=0.15, 0.35", "stack.kind=ssd-cache", "trace.delimiter=,"])
    assert fixed == {"stack.kind": "ssd-cache", "trace.delimiter": ","}
    assert axes == {"stack.split": ["0.15", "0.35"]}
    fixed, axes = cli._set_axes([r"trace.read=R\,r"])
    assert fixed == {"trace.read": "R,r"} and not axes
    with pytest.raises(fcsim.ConfigError, match="none empty"):
        cli._set_axes(["device.op=0.1,"])
    trace = TRACES / "msr_hm_0_excerpt1000.csv"
    r = fcsim_cli("run", trace, "--policy", "cflru", "--size", "10%", "--set", "cflru.window=0.1,0.5")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "axis_cflru_window" in lines[0] and len(lines) == 3
    assert [ln.split()[3] for ln in lines[1:]] == ["0.1", "0.5"]
    df = fcsim.run_grid(trace, "cflru", "10%", grid={"cflru.window": [0.1, 0.5]})
    # Issue 45: the parameter echoed is a number, the axis column a name without dots.
    assert list(df["param_window"]) == [0.1, 0.5] and list(df["axis_cflru_window"]) == [0.1, 0.5]
    assert list(df.param_window > 0.2) == [False, True]


# --- Printed columns by mode ---------------------------------------------------------------


def test_printed_columns_follow_the_mode() -> None:
    p3 = str(TRACES / "arc_P3.lis.zst")
    ssd = fcsim.run_grid(p3, ["lru"], ["5%"], set={"stack.kind": "ssd-cache"})
    cols = tables.table_columns(ssd)
    for c in ("read_hit_ratio", "cache_writes", "fue", "erasures", "disk_reads", "disk_writes"):
        assert c in cols, c
    assert "backing_writes" not in cols
    offline = fcsim.run_grid(p3, ["m+"], ["5%"])
    cols = tables.table_columns(offline)
    for c in ("read_hit_ratio", "erasures", "epbpd", "fue", "wfue_0.2", "wfue_0.8"):
        assert c in cols, c
    buffer = fcsim.run_grid(p3, ["lru"], ["5%"])
    assert "cache_writes" not in tables.table_columns(buffer) and "hit_ratio" in tables.table_columns(buffer)
    assert tables.table_columns(buffer, ["policy", "hits"]) == ["policy", "hits"]
    with pytest.raises(fcsim.ConfigError, match="--columns: no column nope"):
        tables.table_columns(buffer, ["nope"])
    text = tables.format_table(ssd)
    assert text.splitlines()[0].split()[:6] == [
        "trace",
        "policy",
        "size_pages",
        "accesses",
        "read_hit_ratio",
        "hit_ratio",
    ]


def test_readme_gives_every_printed_metric_a_formula() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("### Metrics and their formulas")[1].split("\n## ")[0]
    named = {c for c in tables.TABLE_COLUMNS + tables.SSD_CACHE_COLUMNS + tables.OFFLINE_COLUMNS}
    named -= {"trace", "policy", "device", "device_state", "size_pages", "saturated"}
    for c in sorted(named):
        assert f"`{c}`" in section, c


def test_an_aged_drive_takes_a_seed_per_run() -> None:
    aged = {"device.fill": 1, "device.steady": 0.5, "device.channels": 1, "device.chips_per_channel": 2}
    result = fcsim.run(SYNTH, "lru", "5%", device="gasa", set=aged, seeds=3)
    df, s = result.rows, result.summary
    assert list(df["device_state"]) == [f"aged 0.5x (seed {42 + i})" for i in range(3)]
    assert list(df["seeded"]) == [f"trace {42 + i}, device.seed {42 + i}" for i in range(3)]
    assert s is not None and len(s) == 1 and s.iloc[0]["erasures"] == pytest.approx(df["erasures"].mean())
    assert s["device_state"].isna().all()  # the seeds disagree on it
    text = tables.format_summary(df, s)
    assert " ± " in text.splitlines()[1]
