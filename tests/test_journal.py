"""A sweep or a conversion killed outright (`kill -9`): the sweep's journal keeps every finished
point, the rerun computes each of the others once, and no worker or temporary file is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import children, running
from fcsim import journal, sweep

# Each test here kills a process at a moment it watches for: alone on the machine (`make test`
# runs them after the parallel tests), the moment is not missed by a starved core.
pytestmark = pytest.mark.serial

# 12 points of a few tenths of a second each.
GRID = """
traces = ["synth:zipf,alpha=0.8,requests=150000,pages=40000,write=0.3,seed=4"]
policies = ["lru", "arc", "lirs"]
sizes = ["1%", "2%", "4%", "8%"]
devices = ["gasa"]
"""

# The CLI, each computation of a point marked in $MARKS when it ends (in the worker).
COUNTED = """
import os, sys
from fcsim import cli, sweep

run_point = sweep._run_point


def counted(pt):
    out = run_point(pt)
    fd = os.open(os.environ["MARKS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, out[0].encode() + b"\\n")
    os.close(fd)
    return out


sweep._run_point = counted
sys.exit(cli.main(sys.argv[1:]))
"""

JOBS = 2
# Columns measured in wall-clock time, which differ from run to run.
WALL = ["sim_seconds", "requests_per_wall_s", "device_setup_s"]


def marks(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def saved(out: Path) -> set[str]:
    """The points a rerun finds done: in the table or the journal."""
    keys = set(pd.read_parquet(out)["point"]) if out.exists() else set()
    j = journal.path_of(out)
    if j.exists():
        keys |= {r["point"] for r in journal.decode(j.read_bytes(), j)[0]}
    return keys


def start(tmp_path: Path, exp: Path, out: Path, marked: Path) -> subprocess.Popen[bytes]:
    script = tmp_path / "counted.py"
    script.write_text(COUNTED)
    cmd = [sys.executable, str(script), "sweep", str(exp), "--out", str(out), "--jobs", str(JOBS)]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "MARKS": str(marked)},
    )


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_sweep_killed_at_any_moment_loses_and_repeats_nothing(tmp_path: Path) -> None:
    exp = tmp_path / "grid.toml"
    exp.write_text(GRID)
    out = tmp_path / "o.parquet"
    points = {sweep.point_key(p) for p in sweep.load(exp).points()}
    done: set[str] = set()
    # Kill (the process group, or the CLI alone, orphaning its workers) once its workers run
    # and before any point finished, then after 3, then after 2 more computations (the second
    # kill lands after 3 to 6 of the 12: 2 more leave points in both workers' hands, where 4
    # more, under load, could be the last and the pool already winding down).
    for i, (whom, after) in enumerate([("group", 0), ("main", 3), ("group", 2)]):
        marked = tmp_path / f"marks{i}"
        proc = start(tmp_path, exp, out, marked)
        deadline = time.monotonic() + 120
        while (
            (len(children(proc.pid)) < JOBS or len(marks(marked)) < after)
            and proc.poll() is None  # a sweep that ended has no workers to wait for
            and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        workers = children(proc.pid)
        assert len(workers) >= JOBS and proc.poll() is None, (i, proc.returncode, len(marks(marked)))
        if whom == "group":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while any(map(running, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [w for w in workers if running(w)]
        for w in left:  # the test's own orphans, so they do not outlive it
            os.kill(w, signal.SIGKILL)
        assert not left, f"workers outlived a kill of the {whom}"
        computed = set(marks(marked))
        now = saved(out)
        assert not computed & done, "a saved point was computed again"
        assert done <= now
        # Each worker records its point before it hands it back: none is lost on the way.
        assert computed <= now, (len(computed), len(computed - now))
        done = now
    assert 0 < len(done) < len(points)
    # A kill mid-append leaves a torn record, and one mid-write a temporary table: neither is
    # taken for a row, and both are gone after the rerun.
    j = journal.path_of(out)
    if not j.exists():
        j.write_bytes(journal.MAGIC)
    with j.open("ab") as f:
        f.write(journal.encode({"point": "torn", "hits": 1})[:-9])
    stale = tmp_path / ".o.parquet.999999999.0.tmp"
    stale.write_bytes(b"PAR1 half")
    marked = tmp_path / "marks-last"
    proc = start(tmp_path, exp, out, marked)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert b"dropped 1 torn record" in err and b"Traceback" not in err
    computed = marks(marked)
    assert len(computed) == len(set(computed)) and set(computed) == points - done
    left = {p.name for p in tmp_path.iterdir()} - {m.name for m in tmp_path.glob("marks*")}
    assert left == {"grid.toml", "o.parquet", "counted.py"}  # no journal, no temporary table
    # The union of the rows equals a clean run's, value for value (wall times aside).
    resumed = pd.read_parquet(out)
    clean = sweep.sweep(exp, tmp_path / "clean.parquet", jobs=JOBS)
    assert resumed["point"].is_unique and set(resumed["point"]) == points

    def canon(df: pd.DataFrame) -> pd.DataFrame:
        df = df.drop(columns=[c for c in WALL if c in df.columns])
        return df.sort_values("point").reset_index(drop=True)[sorted(df.columns)]

    pd.testing.assert_frame_equal(canon(resumed), canon(clean), check_dtype=False)


def test_the_journal_drops_torn_and_corrupt_records_never_misreads_them(tmp_path: Path) -> None:
    where = tmp_path / "o.parquet.journal"
    rows = [{"point": f"p{i}", "hits": i, "hit_ratio": i / 7, "ws": None, "l": [1, 2]} for i in range(3)]
    whole = journal.MAGIC + b"".join(journal.encode(r) for r in rows)
    assert journal.decode(whole, where) == (rows, 0)
    # Cut anywhere: the whole records before the cut, nothing else.
    for cut in range(len(whole)):
        got, dropped = journal.decode(whole[:cut], where)
        assert got == rows[: len(got)]
        assert dropped == (0 if cut <= len(journal.MAGIC) or whole[cut - 1 : cut] == b"\n" else 1)
    # A changed byte in the middle record: that record goes, the others stay.
    second = whole.index(journal.encode(rows[1]))
    for pos in (second + 3, second + 20):
        bad = bytearray(whole)
        bad[pos] ^= 0x01
        assert journal.decode(bytes(bad), where) == ([rows[0], rows[2]], 1)
    with pytest.raises(fcsim.ConfigError, match="is not an fcsim sweep journal"):
        journal.decode(b"trace,policy\n", where)


def test_a_second_sweep_into_the_same_table_is_refused(tmp_path: Path) -> None:
    exp = tmp_path / "grid.toml"
    exp.write_text(GRID)
    out = tmp_path / "o.parquet"
    held = journal.Journal(out)  # as a running sweep holds it
    try:
        cmd = [sys.executable, "-m", "fcsim.cli", "sweep", str(exp), "--out", str(out)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.strip() == (
            f"fcsim: error: {journal.path_of(out)}: another sweep is writing {out}; "
            "wait for it or give another --out"
        )
    finally:
        held.remove()
    assert not out.exists() and not journal.path_of(out).exists()


def test_a_killed_conversion_leaves_no_output_and_the_next_cleans_up(tmp_path: Path) -> None:
    out = tmp_path / "big.fct"
    spec = "synth:zipf,alpha=0.9,requests=4000000,pages=1000000,write=0.3,seed=5"
    cmd = [sys.executable, "-m", "fcsim.cli", "trace", "convert", spec, "-o", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    tmp = tmp_path / f".big.fct.tmp-{proc.pid}"
    deadline = time.monotonic() + 120
    while not (tmp.exists() and tmp.stat().st_size > 0) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert tmp.exists() and not out.exists()  # half a file, never under the final name
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["big.fct"]
    assert fcsim.trace_info(out)["requests"] == 4_000_000
