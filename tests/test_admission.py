"""The admission layer (issue 43): the registry as Python sees it, ``--admit`` as an axis on
``fcsim run``, ``fcsim sweep`` and the API, the ``admission`` column, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import fcsim
from conftest import TRACES, cli

T = str(TRACES / "blkparse_java_50k_events.txt.gz")
SSD = {"stack.kind": "ssd-cache", "stack.write": "back"}


def test_admissions_lists_all_first_with_params_and_knob() -> None:
    rows = fcsim.admissions()
    assert rows[0]["name"] == "all" and rows[0]["knob"] is None and rows[0]["params"] == []
    names = [a["name"] for a in rows]
    assert "writes" in names and len(names) == len(set(names))
    for a in rows:
        assert set(a) == {"name", "description", "source", "knob", "params"}
        params = {p["name"] for p in a["params"]}
        assert a["knob"] is None or a["knob"] in params
        for p in a["params"]:
            assert p["lo"] <= p["default"] <= p["hi"], p
    r = cli("admissions")
    assert r.returncode == 0, r.stderr
    listed = [line.split()[0] for line in r.stdout.splitlines() if line and not line[0].isspace()]
    assert listed[: len(names)] == names
    assert "admit.length=1" in r.stdout and "knob: p" in r.stdout


def test_admit_is_an_axis_and_all_leaves_rows_as_they_were() -> None:
    before = fcsim.run_grid(T, "lru", "20%", set=SSD)
    rows = fcsim.run_grid(T, "lru", "20%", set=SSD, admit=["all", "writes"])
    assert list(rows["admission"]) == ["all", "writes"]
    # `all` is the empty slot: the same numbers as a run that names no admission.
    for col in ("hits", "insertions", "cache_writes", "backing_reads", "disk_reads"):
        assert rows[col].iloc[0] == before[col].iloc[0], col
    # `writes` admits no read miss, so it programs no more pages than `all`.
    assert rows["cache_writes"].iloc[1] <= rows["cache_writes"].iloc[0]
    one = fcsim.simulate(T, "lru", "20%", set=SSD, admit="writes")
    assert one["admission"] == "writes" and one["stack_admit"] == "writes"
    r = cli(
        "run",
        T,
        "--policy",
        "lru",
        "--size",
        "20%",
        "--set",
        "stack.kind=ssd-cache",
        "--set",
        "stack.write=back",
        "--admit",
        "all,writes",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count('"admission"') == 2


def test_sweep_takes_admissions(tmp_path: Path) -> None:
    exp = tmp_path / "e.toml"
    exp.write_text(
        f'name = "a"\ntraces = ["{T}"]\npolicies = ["lru"]\nsizes = ["20%"]\nadmissions = ["all", "writes"]\n'
        '[set]\n"stack.kind" = "ssd-cache"\n"stack.write" = "back"\n'
    )
    r = cli("sweep", exp, "--out", tmp_path / "a.parquet")
    assert r.returncode == 0, r.stderr
    import pandas as pd

    assert sorted(pd.read_parquet(tmp_path / "a.parquet")["admission"]) == ["all", "writes"]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"admit": "nope", "set": SSD}, "unknown admission 'nope'; registered: all, writes, second-hit"),
        ({"admit": "writes"}, "--admit writes: an admission policy guards a flash cache"),
        ({"set": {**SSD, "admit.p": "0.5"}}, "admit.p: no admission policy takes it (--admit all)"),
        ({"admit": "writes", "set": {**SSD, "admit.p": "0.5"}}, "'admit.p' is a parameter of no admission"),
        ({"admit": "random", "set": {**SSD, "admit.p": "1.5"}}, "admit.p=1.5: expected the probability"),
        ({"set": {**SSD, "stack.admit": "random", "admit.q": "1"}}, "unknown parameter admit.q of admission"),
        ({"admit": "writes", "set": {**SSD, "stack.admit": "all"}}, "name different admissions"),
    ],
)
def test_bad_admission_input_is_one_line(kw: dict[str, object], message: str) -> None:
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.run_grid(T, "lru", "20%", **kw)  # type: ignore[arg-type]
    assert message in str(e.value)
    r = cli("run", T, "--policy", "lru", "--size", "20%", "--admit", "nope", "--set", "stack.kind=ssd-cache")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "unknown admission 'nope'" in r.stderr


#: Columns that name what ran, or time the simulator itself, not what the cache did.
NOT_MEASURED = {"policy", "admission", "stack_admit", "sim_seconds", "requests_per_s", "requests_per_wall_s"}


@pytest.mark.parametrize("write", ["around", "back"])
def test_lru_with_second_hit_larc_is_larc(write: str) -> None:
    # LARC's ghost filter taken out of the policy: LRU behind second-hit with LARC's self-tuning
    # ghost queue gives LARC's rows, column for column, on a real trace as a flash cache over a
    # disk (write-around: writes invalidate; write-back: a declined write goes to the disk).
    trace = str(TRACES / "cloudphysics_vscsi_2h.csv.gz")
    sets = {"stack.kind": "ssd-cache", "stack.write": write}
    larc = fcsim.run_grid(trace, "larc", ["1%", "10%"], set=sets)
    ghost = {**sets, "admit.ghost": "larc"}
    ours = fcsim.run_grid(trace, "lru", ["1%", "10%"], set=ghost, admit="second-hit")
    assert list(ours["admission"]) == ["second-hit"] * 2 and list(ours["admit_ghost"]) == ["larc"] * 2
    same = [
        c
        for c in larc.columns
        if c not in NOT_MEASURED
        and not c.startswith(("param_", "admit_", "device_setup"))
        and larc[c].notna().any()
    ]
    assert len(same) > 40
    for c in same:
        assert larc[c].astype(object).tolist() == ours[c].astype(object).tolist(), c


#: A long synthetic trace with arrival times: 10^6 requests at 50 per second (5.6 hours).
LONG = "synth:zipf,alpha=0.8,requests=1e6,pages=1e6,iops=50"


@pytest.mark.parametrize("admit", ["random", "second-hit", "tinylfu"])
def test_the_budget_controller_holds_the_target_within_10_percent(admit: str) -> None:
    # LRU at 5% admitting every miss writes about 157 drive writes per day of the cache. A
    # budget of 20 DWPD turns each admission's knob window by window (60 s) to hold it (second-hit
    # unbudgeted writes less than that: its knob is then raised, not lowered).
    free = fcsim.simulate(LONG, "lru", "5%", set={"stack.kind": "ssd-cache"})
    assert free.get("budget_dwpd") is None
    r = fcsim.simulate(LONG, "lru", "5%", set={"stack.kind": "ssd-cache", "admit.budget": 20}, admit=admit)
    assert r["budget_dwpd"] == 20 and r["budget_windows"] > 300
    assert abs(r["achieved_dwpd"] - 20) <= 2, r["achieved_dwpd"]
    assert r["cache_writes"] < free["cache_writes"]
    assert r["peak_window_dwpd"] >= r["achieved_dwpd"] and r["budget_unmeetable"] is False
    # The controller's rate is the row's DWPD on a timed trace with the drive sized to the cache
    # (stack/budget.rs: the same writes, pages and span, counted by two parts of the stack).
    assert r["device_user_pages"] == r["size_pages"]
    assert r["achieved_dwpd"] == pytest.approx(r["dwpd"], rel=1e-9)
    assert (r["admit_budget"], r["admit_window"]) == ("20", "60")  # echoed as given


def test_a_budget_in_mb_per_s_is_the_same_budget() -> None:
    # 20 DWPD of a cache of C pages of 4 KiB is 20 C x 4096 / 86400 / 10^6 MB/s.
    sets = {"stack.kind": "ssd-cache"}
    dwpd = fcsim.simulate(LONG, "lru", "5%", set={**sets, "admit.budget": 20}, admit="random")
    mbps = 20 * dwpd["size_pages"] * 4096 / 86400 / 1e6
    r = fcsim.simulate(LONG, "lru", "5%", set={**sets, "admit.budget_mbps": mbps}, admit="random")
    assert r["budget_dwpd"] == pytest.approx(20) and r["cache_writes"] == dwpd["cache_writes"]


def test_a_budget_the_write_hits_exceed_is_said_in_the_row_and_on_stderr() -> None:
    # A write-back cache takes every write hit into flash whatever the admission: half of this
    # trace's requests are writes, so a budget of 1 DWPD is beneath what its write hits write.
    trace = "synth:zipf,alpha=1.1,requests=2e5,pages=1e5,iops=50,write=0.5"
    sets = {"stack.kind": "ssd-cache", "stack.write": "back", "admit.budget": 1}
    r = fcsim.simulate(trace, "lru", "5%", set=sets, admit="random")
    assert r["budget_unmeetable"] is True and r["budget_floor_dwpd"] > 1
    cli_args = ["run", trace, "--policy", "lru", "--size", "5%", "--admit", "random"]
    out = cli(*cli_args, *[a for k, v in sets.items() for a in ("--set", f"{k}={v}")])
    assert out.returncode == 0, out.stderr
    assert "cannot meet their write budget" in out.stderr


def test_random_over_seeds_has_confidence_intervals() -> None:
    # admit.seed is a seeded component: --seeds 4 runs four seeds and summarises each metric.
    g = fcsim.run(T, "lru", "20%", set=SSD, admit="random", seeds=4)
    assert sorted(g.rows["admit_seed"]) == [42, 43, 44, 45]
    assert set(g.rows["seeded"]) == {f"admit.seed {s}" for s in (42, 43, 44, 45)}
    assert g.summary is not None
    s = g.summary.iloc[0]
    assert s["seeds"] == 4 and s["cache_writes_ci95"] > 0


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        ({"admit.budget": 5}, "a write budget turns an admission's knob; name one with --admit (second-hit"),
        ({"stack.admit": "random", "admit.budget": 5, "admit.budget_mbps": 1}, "both set a write budget"),
        ({"stack.admit": "random", "admit.window": 5}, "admit.window is the write budget's window"),
        ({"stack.admit": "random", "admit.budget": -1}, "admit.budget=-1: expected drive writes per day"),
        ({"stack.admit": "random", "admit.budget": 5, "stack.dram": 0.1}, "no DRAM tier and no split"),
        # Knobs no controller can turn during a run: opt's plan, made before it (the budget was
        # ignored: 226 DWPD under a budget of 100, not said), and ml's, whose training is a
        # warm-up (its measured span ran above the budget the whole run met).
        ({"stack.admit": "opt", "admit.budget": 5}, "--admit opt plans its admissions before the run"),
        ({"stack.admit": "opt", "admit.budget_mbps": 1}, "cap its flash writes with admit.writes=W"),
        ({"stack.admit": "ml", "admit.budget": 5}, "--admit ml trains on the first admit.train"),
    ],
)
def test_bad_budgets_are_one_line(sets: dict[str, object], message: str) -> None:
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.simulate(LONG, "lru", "5%", set={"stack.kind": "ssd-cache", **sets})
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_budget_with_admission_all_says_all_has_no_knob() -> None:
    with pytest.raises(fcsim.ConfigError, match="a write budget turns an admission's knob, and all has none"):
        fcsim.run(LONG, "lru", "5%", set={"stack.kind": "ssd-cache", "admit.budget": 20}, admit=["all"])


def test_a_budget_needs_time() -> None:
    with pytest.raises(fcsim.ConfigError, match="this trace has no timestamps"):
        fcsim.simulate(
            str(TRACES / "arc_P3.lis.zst"),
            "lru",
            "5%",
            set={"stack.kind": "ssd-cache", "admit.budget": 5},
            admit="random",
        )


def test_dram_reads_needs_a_dram_tier_and_admits_fewer_with_a_larger_k() -> None:
    # Without a DRAM tier there are no DRAM evictions to offer: one line, no traceback.
    r = cli(
        "run", T, "--policy", "lru", "--size", "20%", "--set", "stack.kind=ssd-cache", "--admit", "dram-reads"
    )
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "set stack.dram" in r.stderr
    dram = {**SSD, "stack.dram": "0.1"}
    ks = ("0", "1", "1000000")
    rows = [fcsim.simulate(T, "lru", "20%", set={**dram, "admit.k": k}, admit="dram-reads") for k in ks]
    assert [row["admission"] for row in rows] == ["dram-reads"] * 3
    # k = 0 takes every DRAM victim the flash does not hold; no page is read a million times in
    # DRAM here, so that k admits nothing and the flash is never hit.
    assert rows[0]["insertions"] > 0 and rows[1]["insertions"] > 0
    assert (rows[2]["insertions"], rows[2]["hits"]) == (0, 0)
    assert "dram-reads" in cli("admissions").stdout


def test_every_admission_parameter_has_its_row_column() -> None:
    # A parameter echoed as admit_<name> without a column in the schema made `--columns`
    # fail with a traceback; the registry and the schema must agree.
    columns = {c.name for c in fcsim.schema.ROWS}
    missing = [
        f"{a['name']}: admit_{p['name']}"
        for a in fcsim.admissions()
        for p in a["params"]
        if f"admit_{p['name']}" not in columns
    ]
    assert not missing, f"admission parameters without a column in fcsim.schema: {missing}"


def test_a_budget_under_one_fill_of_the_cache_is_said_with_its_numbers() -> None:
    # cloudphysics at 5% (13,461 pages) spans 2 h: 10 DWPD over it is 10 x 13,461 / 12 = 11,217
    # pages, less than one fill of the cache, so no cache in use stays within it (the
    # controller ends far above it); 13 DWPD is more than one fill (14,583 pages).
    trace = str(TRACES / "cloudphysics_vscsi_2h.csv.gz")
    sets = {"stack.kind": "ssd-cache", "admit.budget": 10}
    r = fcsim.simulate(trace, "lru", "5%", set=sets, admit="random")
    assert r["size_pages"] == 13461 and r["budget_unmeetable"] is True
    why = "less than one fill: 10 DWPD over the run's 7200 s is 11218 pages, fewer than the cache's 13461"
    assert r["budget_unmeetable_reason"].startswith(why), r["budget_unmeetable_reason"]
    assert r["achieved_dwpd"] > 10
    ok = fcsim.simulate(trace, "lru", "5%", set={**sets, "admit.budget": 13}, admit="random")
    assert ok["budget_unmeetable"] is False and ok["budget_unmeetable_reason"] is None
    args = ["run", trace, "--policy", "lru", "--size", "5%", "--admit", "random"]
    out = cli(*args, *[a for k, v in sets.items() for a in ("--set", f"{k}={v}")])
    assert out.returncode == 0, out.stderr
    assert "cannot meet their write budget" in out.stderr and why in out.stderr


def test_under_a_closed_loop_only_the_controller_has_a_rate() -> None:
    # A trace without timestamps timed as a closed loop: the row's dwpd (trace time) is null,
    # the controller's achieved_dwpd (simulated time) is not.
    trace = str(TRACES / "tencent_cbs_sample50k.csv.gz")
    sets = {"stack.kind": "ssd-cache", "admit.budget": 1000, "sim.queue_depth": 4}
    r = fcsim.simulate(trace, "lru", "5%", set=sets, admit="random")
    assert r["dwpd"] is None and r["dwpd_null_reason"].startswith("a closed loop")
    assert r["achieved_dwpd"] is not None and r["achieved_dwpd"] > 0
