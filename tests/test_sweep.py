"""Experiment files, `fcsim sweep` (grid, Parquet, resume) and `fcsim reproduce larc`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import TRACES, as_on_a_terminal, children, cli, running
from fcsim import journal, reports, sweep

EXPERIMENT = """
name = "tiny"
traces = ["synth:zipf,alpha=0.9,requests=20000,pages=4000,write=0.2,seed=2"]
policies = ["lru", "larc"]
sizes = ["2%", "10%"]
devices = ["gasa"]
[set]
"stack.kind" = "ssd-cache"
"device.chips_per_channel" = 2
"device.channels" = 1
[[grid]]
"stack.write" = ["around", "back"]
"""


def test_sweep_runs_the_grid_and_resumes(tmp_path: Path) -> None:
    exp = tmp_path / "tiny.toml"
    exp.write_text(EXPERIMENT)
    out = tmp_path / "tiny.parquet"
    df = sweep.sweep(exp, out, jobs=2)
    assert len(df) == 2 * 2 * 2
    assert list(df["policy"]) == ["lru"] * 4 + ["larc"] * 4
    assert set(df["write_mode"]) == {"around", "back"}
    # Each point equals the same simulation run on its own.
    one = fcsim.simulate(
        "synth:zipf,alpha=0.9,requests=20000,pages=4000,write=0.2,seed=2",
        "larc",
        "10%",
        device="gasa",
        set={
            "stack.kind": "ssd-cache",
            "device.chips_per_channel": 2,
            "device.channels": 1,
            "stack.write": "back",
        },
    )
    row = df[(df["policy"] == "larc") & (df["size_pages"] == one.size_pages) & (df["write_mode"] == "back")]
    assert row["hits"].item() == one.hits and row["erasures"].item() == one.erasures
    # An interrupted sweep: drop three finished points; the rerun does only those.
    kept = pd.read_parquet(out).iloc[:5]
    kept.to_parquet(out)
    again = sweep.sweep(exp, out, jobs=1)
    assert len(again) == 8
    merged = again.merge(kept[["point", "sim_seconds"]], on="point", suffixes=("", "_kept"))
    assert len(merged) == 5 and (merged["sim_seconds"] == merged["sim_seconds_kept"]).all()
    assert list(again["point"]) == list(df["point"])


GRID12 = """
traces = ["synth:zipf,alpha=0.8,requests=100000,pages=20000,write=0.3,seed=4"]
policies = ["lru", "arc", "lirs"]
sizes = ["1%", "2%", "4%", "8%"]
devices = ["gasa"]
"""

# The CLI, with the LIRS points stalled (in the workers) until the sweep stops them.
STALLED = """
import sys, time
from fcsim import cli, sweep

run_point = sweep._run_point


def stalled(job):
    if job[0]["policy"] == "lirs":
        time.sleep(600)
    return run_point(job)


sweep._run_point = stalled
sys.exit(cli.main(sys.argv[1:]))
"""


PARTS = """
policies = ["lru"]
sizes = ["5%"]
[set]
"cflru.window" = 0.2
[[part]]
traces = [
    { file = "synth:zipf,alpha=0.9,requests=5000,pages=1000,seed=1", "sim.time_scale" = [1, 2] },
    "synth:zipf,alpha=0.9,requests=5000,pages=1000,seed=2",
]
[[part]]
traces = ["synth:zipf,alpha=0.9,requests=5000,pages=1000,seed=2"]
policies = ["lru", "cflru"]
[[part.grid]]
"cflru.window" = [0.1, 0.2]
"""


def test_unquoted_dotted_keys_are_the_same_keys(tmp_path: Path) -> None:
    # TOML reads `device.op = 0.07` as a table `device` holding `op`: the same --set key as the
    # quoted form, in [set], in [[grid]] and in a trace's table, and the same point.
    quoted = experiment(
        tmp_path,
        'traces = [{ file = "synth:zipf,requests=2000,pages=500", "sim.time_scale" = [1, 2] }]\n'
        'policies = ["cflru"]\nsizes = ["5%"]\n[set]\n"trace.take" = 1500\n'
        '[[grid]]\n"cflru.window" = [0.1, 0.2]\n',
    )
    dotted = tmp_path / "dotted.toml"
    dotted.write_text(
        'traces = [{ file = "synth:zipf,requests=2000,pages=500", sim.time_scale = [1, 2] }]\n'
        'policies = ["cflru"]\nsizes = ["5%"]\n[set]\ntrace.take = 1500\n'
        "[[grid]]\ncflru.window = [0.1, 0.2]\n"
    )
    keys = [sweep.point_key(p) for p in sweep.load(dotted).points()]
    assert len(keys) == 4 and keys == [sweep.point_key(p) for p in sweep.load(quoted).points()]
    sweep.load(dotted).check()
    # One key in both forms, an empty table, and a key of thousands of parts (valid TOML, which a
    # recursive flattening could not read): each one ConfigError.
    base = 'traces = ["synth:zipf,requests=2000,pages=500"]\npolicies = ["lru"]\nsizes = ["5%"]\n'
    for text, needle in (
        ('[set]\n"trace.take" = 1\ntrace.take = 2\n', "the key 'trace.take' is given twice"),
        ("[[grid]]\ntrace = {}\n", "'trace' has no value (an empty table)"),
        ("[set]\n" + ".".join(["a"] * 3000) + " = 1\n", "unknown section 'a'"),
    ):
        bad = tmp_path / "bad.toml"
        bad.write_bytes((base + text).encode())
        with pytest.raises(fcsim.ConfigError, match=re.escape(needle)):
            sweep.load(bad).check()


def test_parts_and_per_trace_axes(tmp_path: Path) -> None:
    exp = tmp_path / "parts.toml"
    exp.write_text(PARTS)
    pts = sweep.load(exp).points()
    # Part 1: seed 1 at two time scales, seed 2 once (with the top-level window 0.2); part 2:
    # LRU and CFLRU on seed 2 at windows 0.1 and 0.2, where LRU at 0.2 is part 1's point and
    # runs once.
    assert [(p["trace"][-6:], p["policy"], p["set"].get("sim.time_scale")) for p in pts[:3]] == [
        ("seed=1", "lru", 1),
        ("seed=1", "lru", 2),
        ("seed=2", "lru", None),
    ]
    assert len(pts) == 6 and len({sweep.point_key(p) for p in pts}) == 6
    df = sweep.run(sweep.load(exp), tmp_path / "parts.parquet", jobs=2)
    assert sorted(df["param_window"].dropna()) == [0.1, 0.2]
    assert sorted(df["time_scale"][:2]) == [1.0, 2.0]


def test_sweep_on_a_dask_cluster(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    exp = tmp_path / "tiny.toml"
    exp.write_text(EXPERIMENT)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        df = sweep.sweep(exp, tmp_path / "dask.parquet", scheduler=c.scheduler_address)
    local = sweep.sweep(exp, tmp_path / "local.parquet", jobs=2)
    cols = ["point", "hits", "erasures", "cache_writes"]
    pd.testing.assert_frame_equal(df[cols], local[cols])
    with pytest.raises(fcsim.ConfigError, match="cannot reach"):
        sweep.sweep(exp, tmp_path / "x.parquet", scheduler="tpc://127.0.0.1:8786")


def test_a_dask_cluster_without_workers_is_said_within_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 42 (probe item 5): once the nanny and its worker were both gone, ``sweep
    --scheduler`` waited silently for ever. A cluster with no worker for the deadline (here
    1 s) stops the sweep with one error that says so, the finished points saved, and the same
    command resumes once workers are back."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(sweep, "NO_WORKERS_DEADLINE", 1.0)
    monkeypatch.setattr(sweep, "WORKER_POLL", 0.2)
    exp = tmp_path / "tiny.toml"
    exp.write_text(EXPERIMENT)
    out = tmp_path / "dask.parquet"
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        # The worker goes once the first point is back: the other seven are left.
        def gone(done: float) -> None:
            if done > 0 and c.workers:
                c.scale(0)

        t = time.monotonic()
        with pytest.raises(sweep.WorkersGone) as e:
            sweep.sweep(exp, out, scheduler=c.scheduler_address, progress=gone)
        assert time.monotonic() - t < 30
        message = str(e.value)
        assert "the Dask cluster has no worker (for 1 s" in message and "\n" not in message, message
        saved = len(pd.read_parquet(out))
        assert 1 <= saved < 8 and f"{saved} of 8 points are saved in {out}" in message, message
        assert "run the same command again to resume" in message
        c.scale(1)
        c.wait_for_workers(1)
        df = sweep.sweep(exp, out, scheduler=c.scheduler_address)
        assert len(df) == 8 and df.attrs["reused"] == saved


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('traces = ["x"]\npolicies = ["lru"]\nsizes = ["1%"]\ncolour = 1', "unknown key"),
        ('traces = ["x"]\nsizes = ["1%"]', "'policies' must be a non-empty list"),
        ("traces = [", "not valid TOML"),
        ('traces = ["x"]\npolicies = ["lru"]\nsizes = ["1%"]\n[[grid]]\n"stack.write" = []', "[[grid]]"),
        ('policies = ["lru"]\nsizes = ["1%"]\n[[part]]\ntraces = [{ name = "x" }]', "needs 'file'"),
        ('policies = ["lru"]\nsizes = ["1%"]\n[[part]]\ntraces = ["x"]\nhue = 1', "[[part]] 1: unknown"),
        (
            'traces = ["x"]\npolicies = ["lru"]\nsizes = ["1%"]\ndevices = []',
            "'devices' must be a non-empty list",
        ),
        (
            'traces = ["x"]\npolicies = ["lru"]\nsizes = ["1%"]\ndevices = "gasa"',
            "'devices' must be a non-empty",
        ),
        ('set = 5\ntraces = ["x"]\npolicies = ["lru"]\nsizes = ["1%"]', "'set' must be a table"),
    ],
)
def test_bad_experiments(tmp_path: Path, text: str, needle: str) -> None:
    exp = tmp_path / "bad.toml"
    exp.write_text(text)
    with pytest.raises(fcsim.ConfigError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        sweep.sweep(exp, tmp_path / "out.parquet")
    assert len(error_lines(cli_sweep(exp, tmp_path / "o.parquet"))) == 1


def test_two_traces_of_one_file_name_are_refused(tmp_path: Path) -> None:
    # The table names a trace by its file name: b/x.csv was one point with a/x.csv and never ran.
    for d, lines in (("a", None), ("b", 300)):
        (tmp_path / d).mkdir()
        text = (TRACES / "msr_hm_0_excerpt1000.csv").read_text().splitlines(keepends=True)
        (tmp_path / d / "x.csv").write_text("".join(text[:lines]))
    exp = tmp_path / "dup.toml"
    exp.write_text('traces = ["a/x.csv", "b/x.csv"]\npolicies = ["lru"]\nsizes = ["5%"]\n')
    with pytest.raises(
        fcsim.ConfigError, match=r"share the file name x\.csv, which names a trace in the table"
    ):
        sweep.sweep(exp, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_reproduce_larc(tmp_path: Path) -> None:
    # Three short traces of the six (the whole experiment is `fcsim reproduce larc`, about a minute).
    only = ["arc_P3.lis.zst", "mqsim_wsrch-small.trace.gz", "mqsim_tpcc-small.trace.gz"]
    summary = reports.reproduce("larc", tmp_path, traces_dir=TRACES, jobs=2, only=only)
    text = summary.read_text()
    assert "--only arc_P3.lis.zst,mqsim_wsrch-small.trace.gz,mqsim_tpcc-small.trace.gz" in text
    # The README names the fcsim that made the rows (a summary drawn with --keep-stale says so).
    assert f"Rows made by fcsim {fcsim._core.REVISION} (" in (tmp_path / "README.md").read_text()
    for part in ("## Where fcsim disagrees with the paper", "arc_P3.lis.zst", "![hit ratio](hit_ratio.png)"):
        assert part in text
    assert (tmp_path / "hit_ratio.png").stat().st_size > 10_000
    assert (tmp_path / "ssd_writes.png").stat().st_size > 10_000
    df = pd.read_parquet(tmp_path / "results.parquet")
    # The main run (3 traces x 6 policies x 5 sizes, write-around), the write-back variant
    # (tpcc, the one of them with writes) and LARC there with every write miss admitted.
    assert len(df) == 3 * 6 * 5 + 1 * 6 * 5 + 1 * 5
    assert set(df[df["param_writes"] == "admit"]["stack_write"]) == {"back"}
    # tpcc has no reuse to test the write claims with (it misses 99% at half its working set).
    assert (
        "(write-back variant) | slides, webvm and homes: -40% to -11% | not scored: mqsim_tpcc-small: "
        "LRU miss ratio at 50% 0.990 | untestable on this workload |"
    ) in text
    main = df[df["stack_write"] == "around"]
    larc = main[main["policy"] == "larc"]
    lru = main[main["policy"] == "lru"]
    # The slides' clearest claim holds: LARC writes far less to the SSD than LRU, everywhere.
    assert larc["cache_writes"].sum() < 0.5 * lru["cache_writes"].sum()
    # A read cache: every write goes around, so SSD writes are insertions.
    assert (main["cache_writes"] == main["insertions"]).all()


def test_reproduce_gasa(tmp_path: Path) -> None:
    only = ["systor17_vdi_sample1000.csv.gz", "msr_hm_0_excerpt1000.csv", "mqsim_tpcc-small.trace.gz"]
    # A row of one of its traces left in the directory's table by another grid (a point this one
    # does not have) is dropped, not kept beside the reproduction's rows (it was: results/dynamic
    # kept 32 rows of an earlier offline stage); a row of a trace --only leaves out stays.
    other = "tencent_cbs_sample50k.csv.gz"
    foreign = sweep.from_dict(
        {"traces": [only[0], other], "policies": ["fifo"], "sizes": [7]}, name="other", traces_dir=TRACES
    )
    sweep.run(foreign, tmp_path / "results.parquet")
    notes: list[str] = []
    summary = reports.reproduce("gasa", tmp_path, traces_dir=TRACES, jobs=2, only=only, notify=notes.append)
    assert any("dropped 1 row(s)" in n for n in notes), notes
    # The summary is this run's three traces; the table's other trace is named as left out.
    assert any("--only" in n and "1 other trace(s) (tencent_cbs_sample50k.csv.gz)" in n for n in notes), notes
    text = summary.read_text()
    for part in ("## Flash writes", "## Hit ratio", "## Overall runtime", "## Split hit ratios"):
        assert part in text
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert list(df.loc[df["trace"] == other, "policy"]) == ["fifo"]
    df = df[df["trace"] != other]
    # PT-LRU draws from a seed (`pt-lru.seed`): its points run with the experiment's 3 seeds.
    assert len(df) == 3 * 5 * (5 + 3) and set(df["device"]) == {"gasa"}
    assert (df.loc[df["policy"] == "pt-lru", "seeds"] == 3).all()
    # Flash writes are the buffer's write-backs (dirty evictions and the final flush) plus GC.
    assert (df["flash_page_writes"] - df["gc_page_writes"] == df["backing_writes"]).all()


def test_reproduce_lcr(tmp_path: Path) -> None:
    # The wdev_2 stand-in (every part has it) and the shortest trace.
    only = ["blkparse_java_50k_events.txt.gz", "msr_hm_0_excerpt1000.csv"]
    # One seed: the aged drive's points are random, and ageing the drive three times over would
    # triple this test's longest part (tests/test_seeds.py scores a reproduction seed by seed).
    summary = reports.reproduce("lcr", tmp_path, traces_dir=TRACES, jobs=2, only=only, seeds=1)
    text = summary.read_text()
    for part in (
        "## The paper's setup, in its words",
        "as the paper runs them",
        "## Variant: the aged drive",
        "## Load",
        "## Window size",
        "## Cache size",
        "## Where fcsim disagrees with the paper",
    ):
        assert part in text
    assert "fcsim reproduce lcr" in (tmp_path / "README.md").read_text()
    for png in ("response_mean", "response_std", "hit_ratio", "load_balance", "window", "cache_size"):
        assert (tmp_path / f"{png}.png").stat().st_size > 10_000
    df = pd.read_parquet(tmp_path / "results.parquet")
    # Fig. 5-7 as the paper runs them: 2 traces x 4 policies; two loads on the filled and the
    # aged drive: 2 x 2 x 2 x 4; Fig. 8: blkparse x 7 windows; Fig. 9-10: 4 more sizes x 4.
    assert len(df) == 8 + 32 + 7 + 16 and df["point"].is_unique
    filled = df[df["device_steady"] == "0"]
    assert (filled["device_fill"] == "1").all()
    # The excerpts never bring the filled drive to GC: GCaR-CFLRU has nothing to pass over and
    # is CFLRU, response for response.
    assert (filled["erasures"] == 0).all()
    by = filled[filled["size_pages"] == 1024].set_index(["trace", "time_scale", "queue_depth", "policy"])
    for trace, scale, depth, _ in by.index:
        assert (
            by.loc[(trace, scale, depth, "gcar-cflru"), "resp_mean_us"]
            == by.loc[(trace, scale, depth, "cflru"), "resp_mean_us"]
        )
    aged = df[df["device_steady"] == "1"]
    assert (aged["erasures"] > 0).all() and (aged["load_balance_epochs"] > 0).all()


def test_reproduce_only_names_traces_of_the_experiment(tmp_path: Path) -> None:
    with pytest.raises(fcsim.ConfigError, match="not a trace of lcr"):
        reports.reproduce("lcr", tmp_path, traces_dir=TRACES, only=["nope.csv"])


def test_ctrl_c_saves_finished_points_and_says_what_remains(tmp_path: Path) -> None:
    exp = tmp_path / "grid.toml"
    exp.write_text(GRID12)
    out = tmp_path / "grid.parquet"
    script = tmp_path / "stalled.py"
    script.write_text(STALLED)
    args = ["sweep", str(exp), "--out", str(out), "--jobs", "2"]
    # Ctrl-C on a terminal signals the whole process group: the CLI and its pool's workers.
    proc = subprocess.Popen(
        [sys.executable, str(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_on_a_terminal,
    )
    # Once the 8 LRU and ARC points are in the journal, the sweep waits for the stalled ones.
    log = journal.path_of(out)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (
        not log.exists() or len(journal.decode(log.read_bytes(), log)[0]) < 8
    ):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert len(pd.read_parquet(out)) == 8 and not log.exists()
    assert err.strip() == (
        f"fcsim: interrupted: 8 of 12 points are saved in {out}, 4 remain; "
        "run the same command again to resume"
    )
    r = cli(*args)
    assert r.returncode == 0 and f"fcsim: resuming: 8 of 12 points done in {out}" in r.stderr
    assert len(pd.read_parquet(out)) == 12


def test_trace_paths_resolve_against_the_experiment_file(tmp_path: Path) -> None:
    (tmp_path / "exp").mkdir()
    exp = tmp_path / "exp" / "e.toml"
    exp.write_text('traces = ["t/a.csv"]\npolicies = ["lru"]\nsizes = ["1%"]\n')
    looked = tmp_path / "exp" / "t" / "a.csv"
    with pytest.raises(
        fcsim.ConfigError, match=f"trace 't/a.csv' not found: looked for {looked} .*directory"
    ):
        sweep.sweep(exp, tmp_path / "o.parquet")
    with pytest.raises(
        fcsim.ConfigError, match=f"looked for {tmp_path / 't' / 'a.csv'} .*--traces {tmp_path}"
    ):
        sweep.sweep(exp, tmp_path / "o.parquet", traces_dir=tmp_path)
    # Found relative to the file, whatever the working directory.
    (tmp_path / "exp" / "t").mkdir()
    (looked).write_bytes((TRACES / "msr_hm_0_excerpt1000.csv").read_bytes())
    df = sweep.sweep(exp, tmp_path / "o.parquet", jobs=1)
    assert list(df["trace"]) == ["a.csv"]


def test_policy_none_is_one_point_whatever_the_sizes(tmp_path: Path) -> None:
    exp = tmp_path / "none.toml"
    exp.write_text(
        'traces = ["synth:zipf,requests=2000,pages=500,seed=3"]\npolicies = ["none", "lru"]\n'
        'sizes = ["1%", "5%", "10%"]\n'
    )
    assert [p["policy"] for p in sweep.load(exp).points()] == ["none", "lru", "lru", "lru"]


def experiment(tmp_path: Path, text: str) -> Path:
    exp = tmp_path / "exp.toml"
    exp.write_text(text)
    return exp


def cli_sweep(exp: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli("sweep", exp, "--out", out, *args)


def error_lines(r: subprocess.CompletedProcess[str]) -> list[str]:
    """The CLI's error lines: exit 2, no traceback, every line an `fcsim:` line (notes too)."""
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert all(line.startswith("fcsim: ") for line in lines), r.stderr
    return [line.removeprefix("fcsim: error: ") for line in lines if line.startswith("fcsim: error: ")]


def test_a_failing_point_is_named_and_the_others_are_saved(tmp_path: Path) -> None:
    # A bad line deep in a trace passes the grid's check (which reads a trace's first lines
    # only, the size being in pages) and fails its point in a pool worker, as a plain message;
    # the other trace's point runs and is kept.
    good = TRACES / "msr_hm_0_excerpt1000.csv"
    text = good.read_text().splitlines()
    bad = [*text[:500], "128166372003061629,hm,0,Read,oops", *text[500:]]
    (tmp_path / "bad.csv").write_text("\n".join(bad))
    exp = experiment(tmp_path, f'traces = ["{good}", "bad.csv"]\npolicies = ["lru"]\nsizes = ["20"]\n')
    out = tmp_path / "o.parquet"
    for _ in range(2):  # the rerun runs the failed point alone, and it fails again
        lines = error_lines(cli_sweep(exp, out, "--jobs", "2"))
        assert (
            lines[0]
            == f"1 of 2 points failed, 1 are saved in {out} (the same command again runs the failed ones)"
        )
        assert len(lines) == 2 and lines[1].startswith('point {"device": null')
        assert '"trace": "bad.csv"' in lines[1]
        assert f"{tmp_path / 'bad.csv'}:501: " in lines[1], lines[1]
        assert len(pd.read_parquet(out)) == 1


def test_the_whole_grid_is_checked_before_any_point_runs(tmp_path: Path) -> None:
    exp = experiment(
        tmp_path,
        'traces = ["synth:zipf,requests=2000,pages=500", "gone.csv"]\npolicies = ["lru", "nope"]\n'
        'sizes = ["5%", "lots"]\ndevices = ["", "floppy"]\n[set]\n"sim.queue_depth" = -1\n"disk.x" = 1\n',
    )
    out = tmp_path / "o.parquet"
    lines = error_lines(cli_sweep(exp, out))
    for needle in (
        "trace 'gone.csv' not found",
        "unknown policy 'nope'",
        "'lots'",
        "'floppy'",
        "sim.queue_depth=-1",
    ):
        assert sum(needle in line for line in lines) == 1, (needle, lines)
    assert all(line.startswith(f"{exp}: ") for line in lines) and not out.exists()


def test_a_sweep_table_is_parquet(tmp_path: Path) -> None:
    exp = experiment(
        tmp_path, 'traces = ["synth:zipf,requests=2000,pages=500"]\npolicies = ["lru"]\nsizes = ["5%"]\n'
    )
    lines = error_lines(cli_sweep(exp, tmp_path / "o.csv"))
    assert lines == [f"{tmp_path / 'o.csv'}: a sweep's table is Parquet (.parquet or .pq), not .csv"]
    # No suffix: the same message, not the list of every writer's (CSV and JSON among them).
    lines = error_lines(cli_sweep(exp, tmp_path / "o"))
    parquet = "a sweep's table is Parquet (.parquet or .pq)"
    assert lines == [f"{tmp_path / 'o'}: {parquet}, not a name without a suffix"]
    # Issue 42: refused before its journal is made (none is left behind, empty or not).
    assert sorted(p.name for p in tmp_path.iterdir()) == [exp.name]
    junk = tmp_path / "junk.parquet"
    junk.write_text("trace,policy\n")  # say, a CSV table renamed
    lines = error_lines(cli_sweep(exp, junk))
    assert len(lines) == 1 and lines[0].startswith(f"{junk}: exists and is not a Parquet table")
    assert junk.read_text() == "trace,policy\n"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_pool_workers_exit_when_the_sweep_is_killed(tmp_path: Path) -> None:
    # Points of a minute each: a worker that outlived the CLI would still be simulating.
    exp = experiment(
        tmp_path,
        'traces = ["synth:zipf,requests=500000000,pages=1000000"]\n'
        'policies = ["lru", "fifo"]\nsizes = ["10000"]\n',
    )
    cmd = [
        sys.executable,
        "-m",
        "fcsim.cli",
        "sweep",
        str(exp),
        "--out",
        str(tmp_path / "s.parquet"),
        "--jobs",
        "2",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(workers := children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers) >= 2
    time.sleep(0.5)  # into their points
    proc.kill()  # the CLI alone: its workers are orphaned
    proc.wait()
    deadline = time.monotonic() + 10
    while any(map(running, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [w for w in workers if running(w)]
    for w in left:  # the test's own orphans, so they do not outlive it
        os.kill(w, signal.SIGKILL)
    assert not left


def test_bad_keys_of_any_point_are_all_reported_before_any_runs(tmp_path: Path) -> None:
    # Each part's points carry a key only the core knows to refuse (a device, stack, trace or
    # policy parameter, or a value of the wrong type): every one is named, none runs.
    msr = TRACES / "msr_hm_0_excerpt1000.csv"
    exp = experiment(
        tmp_path,
        f'traces = ["synth:zipf,requests=2000,pages=500"]\npolicies = ["lru"]\nsizes = ["5%", "20"]\n'
        '[[part]]\ndevices = ["gasa"]\n[part.set]\n"device.colour" = "red"\n'
        '[[part]]\n[part.set]\n"stack.flavour" = "x"\n'
        f'[[part]]\ntraces = [{{ file = "{msr}", "trace.zone" = 3 }}]\n'
        '[[part]]\npolicies = ["cflru"]\n[part.set]\n"cflru.window" = "wide"\n'
        '[[part]]\npolicies = ["c"]\n[part.set]\n"c.packing" = "tight"\n'
        '[[part]]\npolicies = ["lru"]\n',
    )
    out = tmp_path / "o.parquet"
    lines = error_lines(cli_sweep(exp, out))
    for needle in (
        "unknown parameter device.colour",
        "unknown parameter stack.flavour",
        "unknown option trace.zone for format msr",
        "cflru.window=wide: expected",
        "c.packing=tight: expected evict or arrival",
    ):
        assert sum(needle in line for line in lines) == 1, (needle, lines)
    assert len(lines) == 5 and all(line.startswith(f"{exp}: ") for line in lines)
    assert not out.exists() and not (tmp_path / "o.parquet.journal").exists()
    with pytest.raises(fcsim.ConfigError) as e:
        sweep.sweep(exp, out)
    assert len(str(e.value).splitlines()) == 5


# The CLI, with the ARC points killing their own worker process (as the OOM killer would).
KILLED = """
import os, signal, sys
from fcsim import cli, sweep

run_point = sweep._run_point


def killed(job):
    if job[0]["policy"] == "arc":
        os.kill(os.getpid(), signal.SIGKILL)
    return run_point(job)


sweep._run_point = killed
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_worker_that_dies_fails_its_point_and_the_others_are_saved(tmp_path: Path) -> None:
    # A worker killed outright (kill -9, the OOM killer, an abort) left the sweep waiting forever
    # for its point, at 0% CPU.
    exp = experiment(
        tmp_path,
        'traces = ["synth:zipf,requests=5000,pages=1000,seed=5"]\npolicies = ["lru", "arc", "fifo"]\n'
        'sizes = ["10", "20"]\n',
    )
    out = tmp_path / "k.parquet"
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    cmd = [sys.executable, str(script), "sweep", str(exp), "--out", str(out), "--jobs", "2"]
    lines = error_lines(subprocess.run(cmd, capture_output=True, text=True, timeout=60))
    assert (
        lines[0]
        == f"2 of 6 points failed, 4 are saved in {out} (the same command again runs the failed ones)"
    )
    assert len(lines) == 3
    for line in lines[1:]:
        assert line.startswith("point {") and '"policy": "arc"' in line
        assert (
            "its worker process died (killed by signal 9, SIGKILL); nothing of this point was saved" in line
        )
    assert sorted(pd.read_parquet(out)["policy"]) == ["fifo", "fifo", "lru", "lru"]
    # The rerun computes the two failed points only.
    r = cli_sweep(exp, out, "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert f"wrote {out}: 6 points (2 computed now, 4 reused)" in r.stdout


def test_sweep_says_what_the_table_holds_and_what_it_computed(tmp_path: Path) -> None:
    # Two points swept into a table of 4 said "wrote ...: 2 points".
    trace = "synth:zipf,requests=2000,pages=500,seed=6"
    big = experiment(tmp_path, f'traces = ["{trace}"]\npolicies = ["lru", "fifo"]\nsizes = ["10", "20"]\n')
    out = tmp_path / "t.parquet"
    assert f"wrote {out}: 4 points (4 computed now, 0 reused)" in cli_sweep(big, out).stdout
    small = tmp_path / "small.toml"
    small.write_text(f'traces = ["{trace}"]\npolicies = ["lru"]\nsizes = ["20", "30"]\n')
    r = cli_sweep(small, out)
    assert r.stdout == f"wrote {out}: 5 points, 2 of them this experiment's (1 computed now, 1 reused)\n"


def test_a_sweep_never_writes_over_its_inputs_or_a_fifo(tmp_path: Path) -> None:
    exp = experiment(tmp_path, 'traces = ["t.csv"]\npolicies = ["lru"]\nsizes = ["10"]\n')
    (tmp_path / "t.csv").write_bytes((TRACES / "msr_hm_0_excerpt1000.csv").read_bytes())
    (tmp_path / "exp.parquet").symlink_to(exp)
    (tmp_path / "t.parquet").symlink_to(tmp_path / "t.csv")
    os.mkfifo(tmp_path / "f.parquet.journal")
    for out, why in [
        ("exp.parquet", f"is the input {exp}"),
        ("t.parquet", f"is the input {tmp_path / 't.csv'}"),
        ("f.parquet.journal", "exists and is not a regular file"),
    ]:
        lines = error_lines(cli_sweep(exp, tmp_path / out.removesuffix(".journal")))
        assert lines == [f"{tmp_path / out}: {why}" + lines[0].split(why, 1)[1]], lines
    assert exp.read_text().startswith("traces") and (tmp_path / "t.csv").stat().st_size == 51000


def test_an_experiment_of_uncached_traces_only_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its only part, if_cached, found nothing: KeyError: 'point'.
    monkeypatch.setenv("FCSIM_TRACE_DIR", str(tmp_path / "empty"))
    exp = experiment(
        tmp_path,
        '[[part]]\nif_cached = true\ntraces = ["msr/web_0", "fiu/homes"]\n'
        'policies = ["lru"]\nsizes = ["10"]\n',
    )
    # The catalogue has a mirror of msr/web_0, and none of fiu/homes: no fetch is suggested for it.
    with pytest.raises(
        fcsim.ConfigError,
        match=r"no point to run: .* trace cache; get them with 'fcsim trace fetch msr/web_0'; the catalogue "
        r"knows no mirror of fiu/homes: put each file in the trace cache by hand",
    ):
        sweep.sweep(exp, tmp_path / "o.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.toml"]


def test_reproduce_refuses_an_empty_selection_and_an_output_that_is_a_file(tmp_path: Path) -> None:
    # `--only ,` ran the whole experiment; an --out that is a file was an OSError.
    r = cli("reproduce", "lcr", "--out", tmp_path, "--traces", TRACES, "--only", ",")
    assert error_lines(r) == [
        f"--only names no trace; its traces: {r.stderr.split('its traces: ')[1].strip()}"
    ]
    assert "msr_hm_0_excerpt1000.csv" in r.stderr and list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(fcsim.ConfigError, match="file: exists and is not a directory"):
        reports.reproduce("lcr", tmp_path / "file", traces_dir=TRACES, only=["msr_hm_0_excerpt1000.csv"])
    # A file it writes, here its README, that is a fifo: refused before anything runs.
    os.mkfifo(tmp_path / "README.md")
    with pytest.raises(fcsim.ConfigError, match=r"README\.md: exists and is not a regular file"):
        reports.reproduce("lcr", tmp_path, traces_dir=TRACES, only=["msr_hm_0_excerpt1000.csv"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "file"]


def test_a_policy_key_no_part_runs_is_refused(tmp_path: Path) -> None:
    # gasa.gsmin in an experiment that runs lru and cflru only was accepted and ignored; a key of
    # a policy some part runs is the other parts' to ignore.
    text = 'traces = ["synth:zipf,requests=2000,pages=500,seed=3"]\n'
    text += 'policies = ["lru", "cflru"]\nsizes = ["10"]\n'
    exp = experiment(tmp_path, text + '[set]\n"gasa.gsmin" = 0.5\n')
    with pytest.raises(
        fcsim.ConfigError, match=r"'gasa\.gsmin' sets a parameter of gasa, which this run does not"
    ):
        sweep.load(exp).check()
    sweep.load(experiment(tmp_path, text + '[set]\n"cflru.window" = 0.5\n')).check()


def test_reproduce_only_keeps_the_commas_of_a_spec() -> None:
    # A synth: spec has commas of its own: --only splits only where a known name starts.
    names = ["a.csv", "synth:profile=lcr-web_0,scale=0.5", "synth:profile=lcr-ts_0,scale=0.5"]
    assert reports.split_only(["synth:profile=lcr-web_0,scale=0.5,a.csv"], names) == [names[1], "a.csv"]
    assert reports.split_only(["a.csv", names[2]], names) == ["a.csv", names[2]]
    # An unknown spec comes back whole (its key=value pieces), for the error; a file on its own.
    got = reports.split_only(["synth:profile=x,scale=1,nope.csv,a.csv"], names)
    assert got == ["synth:profile=x,scale=1", "nope.csv", "a.csv"]
