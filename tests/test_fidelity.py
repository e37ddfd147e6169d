"""The fidelity report (`fcsim trace compare`, `fcsim.compare`, `fcsim.fidelity`): every
tolerance comes from A's halves; a trace against itself passes every testable measure; the stack
clone of the cloudphysics trace (the default before issue 40) fails on the policy ranking, and the
renewal clone (the default since) passes; a read-only trace cannot test the
dirty-page measures; the naive baseline is scored beside B; bad input is one line."""

from __future__ import annotations

import json
import sys

import pytest

import fcsim
from conftest import FIXTURES, TRACES, cli

FCSIM = [sys.executable, "-m", "fcsim.cli"]
HM0 = TRACES / "msr_hm_0_excerpt1000.csv"
CLOUDPHYSICS = TRACES / "cloudphysics_vscsi_2h.csv.gz"
READ_ONLY = FIXTURES / "arc_p2.lis"
PANEL_MEASURES = [f"panel_{m}_{s}" for m in ("pairs_kept", "tau", "mae") for s in ("1pct", "10pct")]


run = cli  # `fcsim` run in this process


def test_a_trace_against_itself_passes_every_testable_measure() -> None:
    report = fcsim.compare(HM0, HM0)
    by = report.rows.set_index("measure")
    assert set(by.index) >= {"mean_read_bytes", "fano_1s", "mrc_mae", *PANEL_MEASURES}
    assert set(by["status"]) <= {"pass", "untestable", ""} and (by["status"] == "pass").sum() >= 8
    assert by.loc["mrc_mae", "b"] == 0.0 and by.loc["mrc_mae", "status"] == "pass"
    assert by.loc["panel_tau_10pct", "b"] == 1.0 and by.loc["panel_pairs_kept_10pct", "b"] == 1.0
    # Every tolerance names the half that set it and is that half's score.
    checked = by[by["status"] == "pass"]
    assert set(checked["tolerance_from"]) <= {"H1", "H2"}
    for name, r in checked.iterrows():
        worse = min if str(name).startswith(("panel_pairs", "panel_tau")) else max
        assert r["bound"] == worse(r["h1"], r["h2"]) == r[r["tolerance_from"].lower()]
    # 1,000 requests over 127 s: a half has fewer than 10 whole 60 s bins, so no tolerance.
    assert by.loc["fano_1s", "a"] > 2 and by.loc["fano_60s", "note"] == "span < 10 bins"
    a, halves = report.a, report.halves
    assert (a["requests"], halves[0]["requests"], halves[1]["requests"]) == (1000, 500, 500)
    assert len(a["mrc_miss_ratio"]) == 50 and a["bursty"] is True
    panel = report.panel
    assert list(panel.columns) == ["policy", "share", "a", "h1", "h2", "b", "baseline"]
    assert len(panel) == 2 * len(fcsim.traces.PANEL) and (panel["a"] == panel["b"]).all()


def test_the_stack_clone_of_cloudphysics_fails_on_the_panel_ranking() -> None:
    report = fcsim.compare(CLOUDPHYSICS, f"synth:clone={CLOUDPHYSICS},seed=7,model=stack")
    df = report.rows
    by = df.set_index("measure")
    kept = by.loc["panel_pairs_kept_10pct"]
    assert kept["status"] == "fail" and kept["b"] < kept["bound"] == min(kept["h1"], kept["h2"])
    mae = by.loc["panel_mae_10pct"]
    assert mae["status"] == "fail" and mae["b"] > mae["bound"] == max(mae["h1"], mae["h2"])
    assert (df["status"] == "fail").any()
    # The naive baseline is scored beside it on every checked measure.
    checked = by[by["status"].isin(["pass", "fail"])]
    assert checked["baseline_status"].isin(["pass", "fail"]).all()
    assert report.baseline_spec is not None and report.baseline_spec.startswith(
        "synth:calibrated,requests=113872,"
    )


def test_the_renewal_clone_of_cloudphysics_keeps_the_ranking_the_stack_clone_loses() -> None:
    # The same seed as above: the renewal clone (the default) keeps the separated pairs' order
    # at 10% of the working set as well as the original's halves do, and LRU's curve too
    # (issue 40). At 1%, a known miss: one pair of 24 flips, just past the 0.005 that separates
    # a pair, SIEVE against FIFO (0.0968, 0.1023 on the original): on this clone 0.0978 against
    # 0.0968 (fcsim e46753a8, each new page fitted in its own window; before it, SIEVE against
    # ARC flipped too, 22 of 24; seeds 1-5 keep 96%). A guard against growth (the measured 23
    # of 24), not a fidelity target.
    by = fcsim.compare(CLOUDPHYSICS, f"synth:clone={CLOUDPHYSICS},seed=7", baseline=False).rows.set_index(
        "measure"
    )
    for m in ("panel_pairs_kept_10pct", "panel_mae_10pct", "mrc_mae"):
        assert by.loc[m, "status"] == "pass", (m, by.loc[m, "b"], by.loc[m, "bound"])
    assert by.loc["panel_pairs_kept_1pct", "b"] >= 23 / 24 - 1e-9, by.loc["panel_pairs_kept_1pct", "b"]


def test_a_read_only_trace_cannot_test_the_dirty_measures() -> None:
    by = fcsim.compare(READ_ONLY, READ_ONLY).rows.set_index("measure")
    for m in (
        "dirty_eviction_share_1pct",
        "dirty_eviction_share_10pct",
        "read_hits_dirty_1pct",
        "read_hits_dirty_10pct",
    ):
        assert (by.loc[m, "status"], by.loc[m, "note"]) == ("untestable", "A has no writes")
    assert (by.loc["mean_write_bytes", "status"], by.loc["mean_write_bytes", "note"]) == (
        "untestable",
        "A: no writes",
    )
    assert (by.loc["fano_1s", "status"], by.loc["fano_1s", "note"]) == ("untestable", "A: untimed")
    assert "pass" not in set(by.loc[[m for m in by.index if "dirty" in m], "status"])


def test_the_baseline_spec_comes_from_trace_info() -> None:
    info = {
        "requests": 1000,
        "reads": 600,
        "writes": 400,
        "unique_pages": 250,
        "page_size": 4096,
        "bytes": 8_192_000,
        "object_keys": False,
        "read_locality": (0.2, 0.8),
        "write_locality": (0.1, 0.9),
        "timed": True,
        "span_ns": 4_000_000_000,
    }
    assert fcsim.traces.baseline_spec(info) == (
        "synth:calibrated,requests=1000,pages=250,write=0.4,unit=4096,mean_size=8192,"
        "read_locality=20/80,write_locality=10/90,iops=250"
    )
    # Read-only and untimed: write=0, no write locality, and untimed as A is (iops=0).
    spec = fcsim.traces.baseline_spec(fcsim.trace_info(READ_ONLY))
    assert ",write=0," in spec and "write_locality" not in spec and spec.endswith(",iops=0")
    n = fcsim.trace_info(spec)
    a = fcsim.trace_info(READ_ONLY)
    assert (n["requests"], n["writes"], n["timed"], a["timed"]) == (a["requests"], 0, False, False)


def test_untimed_trace_has_no_time_measures() -> None:
    f = fcsim.fidelity(READ_ONLY)
    assert f["timed"] is False and f["span_s"] is None and f["fano_1s"] is None and f["bursty"] is None
    assert f["notes"]["fano_1s"] == "untimed" and f["notes"]["interarrival_cv"] == "untimed"
    assert f["mean_write_bytes"] is None and f["notes"]["mean_write_bytes"] == "no writes"
    assert f["panel"] == [] and fcsim.fidelity(READ_ONLY, panel=["lru", "arc"])["panel"] == ["lru", "arc"]


def test_cli_prints_the_report_and_json() -> None:
    r = run("trace", "compare", HM0, READ_ONLY, "--panel", "lru,fifo,arc")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    head = next(line for line in lines if line.startswith("measure "))
    assert head.split() == [
        "measure",
        "A",
        "B",
        "B-A",
        "B/A",
        "tolerance",
        "(half)",
        "B",
        "result",
        "N",
        "N",
        "result",
        "note",
    ]
    fano = next(line for line in lines if line.startswith("fano_1s "))
    assert "untestable" in fano and fano.endswith("H2: span < 10 bins: no tolerance")
    assert any(line.startswith("  arc ") for line in lines)
    assert lines[-3].startswith("verdict: fail (B: ") and "untestable)" in lines[-3]
    assert lines[-1] == "bursty arrivals (Fano factor at 1 s > 2): A yes, B n/a"
    r = run("trace", "compare", HM0, HM0, "--json", "--panel", "lru,fifo,arc", "--no-baseline")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    rows = {row["measure"]: row for row in j["rows"]}
    assert rows["panel_tau_10pct"]["status"] == "pass" and rows["panel_tau_10pct"]["baseline"] is None
    assert j["baseline"] is None and len(j["halves"]) == 2 and len(j["panel"]) == 6
    # The verdict line, as data: A against itself fails no measure.
    statuses = [row["status"] for row in j["rows"]]
    assert j["verdict"] == "pass" and j["counts"] == {
        k: statuses.count(k) for k in ("pass", "fail", "untestable")
    }
    report = fcsim.compare(HM0, HM0, panel=["lru", "fifo", "arc"], baseline=False)
    assert (report.verdict, report.counts) == (j["verdict"], j["counts"])


def test_a_report_over_seeds_scores_each_seed_of_b_against_a_measured_once() -> None:
    clone = f"synth:clone={HM0}"
    report = fcsim.compare(HM0, clone, seeds=3, baseline=False)
    over = report.over_seeds
    assert list(over.columns) == [c.name for c in fcsim.schema.OVER_SEEDS]
    # Index 0 is B as given (the report's rows); index i sets its seed to the default 42 + i.
    specs = list(dict.fromkeys(over["b_spec"]))
    assert specs == [clone, f"{clone},seed=43", f"{clone},seed=44"]
    zero = over[over["seed_index"] == 0].set_index("measure")
    rows = report.rows.set_index("measure")
    assert list(zero.index) == list(rows.index) and (zero["status"] == rows["status"]).all()
    # Each seed scores as its own report does.
    one = fcsim.compare(HM0, specs[2], baseline=False).rows.set_index("measure")
    two = over[over["seed_index"] == 2].set_index("measure")
    assert (two["status"] == one["status"]).all()
    assert two["score"].astype(float).fillna(-1).tolist() == one["score"].astype(float).fillna(-1).tolist()
    # The summary: every checked measure, its passes and fails on the 3 seeds.
    summary = fcsim.traces.seed_summary(over)
    checked = rows[rows["status"].isin(["pass", "fail"])].index.tolist()
    assert summary["measure"].tolist() == checked
    assert ((summary["passed"] + summary["failed"]) == 3).all() and (summary["seeds"] == 3).all()
    assert (summary["min"] <= summary["mean"]).all() and (summary["mean"] <= summary["max"]).all()
    assert fcsim.compare(HM0, clone, baseline=False).over_seeds is None


def test_seeds_need_a_spec_with_a_seed() -> None:
    with pytest.raises(fcsim.ConfigError, match="is not a synth: spec, so it has no seed to vary"):
        fcsim.compare(HM0, HM0, seeds=2)
    with pytest.raises(fcsim.ConfigError, match="seeds=0: expected a number of seeds"):
        fcsim.compare(HM0, f"synth:clone={HM0}", seeds=0)


def test_the_report_says_what_part_of_a_trace_it_read() -> None:
    r = run(
        "trace", "compare", HM0, HM0, "--set", "trace.take=500", "--set-b", "trace.skip=500", "--no-baseline"
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].startswith(f"A  {HM0} [trace.take=500]  (")
    assert lines[2].startswith(f"B  {HM0} [trace.skip=500]  (")


def test_cli_prints_the_report_over_seeds() -> None:
    clone = f"synth:clone={HM0}"
    r = run("trace", "compare", HM0, clone, "--seeds", "2", "--no-baseline")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("over 2 seeds of B"))
    assert lines[at + 1].split() == ["measure", "tolerance", "(half)", "score", "over", "seeds", "passed"]
    assert any(line.split()[0] == "mrc_mae" and line.endswith(" of 2") for line in lines[at + 2 :])
    assert lines[-1].startswith("verdict over seeds: B passes every checked measure on ")
    j = json.loads(run("trace", "compare", HM0, clone, "--seeds", "2", "--no-baseline", "--json").stdout)
    assert {row["seed_index"] for row in j["over_seeds"]} == {0, 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["trace", "compare", HM0, TRACES / "missing.csv"], "missing.csv"),
        (["trace", "compare", HM0, HM0, "--seeds", "2"], "has no seed to vary"),
        (["trace", "compare", HM0, HM0, "--set-b", "device.op=0.1"], "trace.KEY options only"),
        (["trace", "compare", HM0, "synth:profile=nope"], "profile"),
        (["trace", "compare", HM0, HM0, "--panel", "lru,nope"], "panel: unknown policy 'nope'"),
        (["trace", "compare", HM0, HM0, "--panel", "lru"], "a ranking needs at least two"),
        (["trace", "compare", HM0, HM0, "--set", "trace.skip=x"], "expected trace.skip"),
        # A clone of the whole file scored against a part of it: refused, with the way to a
        # clone of the same part.
        (
            ["trace", "compare", HM0, f"synth:clone={HM0},seed=3", "--set", "trace.take=500"],
            f"clones the whole of {HM0}, but A is read with --set trace.take=500",
        ),
        (["trace", "compare", HM0, f"synth:clone={HM0}", "--volume", "0"], "fit a model of the same part"),
        # Keys the command would ignore (it reads a trace, and runs nothing).
        (["trace", "info", HM0, "--set", "lru.foo=1"], "lru.foo: trace info takes trace.KEY options only"),
        (["trace", "clone", HM0, "-o", "x.model", "--set", "sim.time_scale=0.1"], "a clone's fit takes"),
        (["trace", "convert", HM0, "-o", "x.fct", "--set", "device.op=0.1"], "a conversion takes"),
    ],
)
def test_bad_input_is_one_line(args: list[object], message: str) -> None:
    r = run(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("fcsim: error: ") and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
