"""The Python API: result rows, grids, typed errors, GIL release, stubs."""

from __future__ import annotations

import ast
import math
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import fcsim
from conftest import FIXTURES, ROOT, TRACES
from fcsim import _core

# DESIGN.md's result row, in order (plus `requests` and `bad_lines`).
COLUMNS = [
    "trace",
    "format",
    "policy",
    "size_pages",
    "page_size",
    "device",
    "device_state",
    "requests",
    "accesses",
    "reads",
    "writes",
    "hits",
    "read_hits",
    "write_hits",
    "hit_ratio",
    "read_hit_ratio",
    "insertions",
    "evictions",
    "dirty_evictions",
    "backing_reads",
    "backing_writes",
    "flash_page_reads",
    "flash_page_writes",
    "gc_page_writes",
    "erasures",
    "write_amplification",
    "epbpd",
    "fue",
    "resp_mean_us",
    "resp_std_us",
    "resp_p50_us",
    "resp_p99_us",
    "resp_p999_us",
    "resp_max_us",
    "runtime_s",
    "load_balance",
    "sim_seconds",
    "requests_per_wall_s",
    "bad_lines",
    "read_hits_dirty",
    "write_hits_dirty",
    "dirty_eviction_share",
    "time_scale",
    "queue_depth",
    "timing",
    "warmup",
    "warmup_requests",
    "warmup_s",
    "epoch",
    "io_miss_ratio",
    "byte_miss_ratio",
    "fcsim_version",
    "fcsim_revision",
]


def test_simulate_returns_the_documented_row() -> None:
    row = fcsim.simulate(TRACES / "msr_hm_0_excerpt1000.csv", policy="lru", size="10%")
    assert isinstance(row, fcsim.Result)
    assert list(row) == COLUMNS
    assert row.policy == "lru" and row.format == "msr" and row.trace == "msr_hm_0_excerpt1000.csv"
    assert row.size_pages == round(1917 * 0.10)
    assert row.hits == row.read_hits + row.write_hits
    assert row.hit_ratio == pytest.approx(row.hits / row.accesses)
    assert row.device is None and row.erasures is None
    assert row.requests == 1000 and row.requests_per_wall_s > 0


def test_sizes_in_bytes_pages_and_percent() -> None:
    t = TRACES / "arc_P3.lis.zst"
    assert fcsim.simulate(t, size="4MiB").size_pages == 1024
    assert fcsim.simulate(t, size=1000).size_pages == 1000
    assert fcsim.simulate(t, size="1%").size_pages == round(102348 * 0.01)
    assert fcsim.simulate(t, size="1%", page_size=8192).size_pages == round(
        fcsim.trace_info(t, page_size=8192)["unique_pages"] * 0.01
    )


def test_run_grid_order_and_threads() -> None:
    t = TRACES / "arc_P3.lis.zst"
    seen: list[float] = []
    df = fcsim.run_grid(t, ["lru", "fifo"], ["1%", "5%", "10%"], jobs=2, progress=seen.append)
    assert isinstance(df, pd.DataFrame)
    assert list(df["policy"]) == ["lru"] * 3 + ["fifo"] * 3
    assert list(df["size_pages"]) == [1023, 5117, 10235] * 2
    assert seen[-1] == pytest.approx(1.0)
    serial = fcsim.run_grid(t, ["lru", "fifo"], ["1%", "5%", "10%"], jobs=1)
    assert list(serial["hits"]) == list(df["hits"])
    lru = df[df.policy == "lru"]["hit_ratio"].tolist()
    assert lru == sorted(lru)


def test_reading_ahead_changes_no_result() -> None:
    # A compressed text trace and a generator are read on a second thread unless
    # sim.read_ahead is false: every column but the timing ones is the same.
    timing = {"sim_seconds", "requests_per_wall_s", "device_setup_s"}
    for trace in (
        TRACES / "cloudphysics_vscsi_2h.csv.gz",
        "synth:zipf,requests=20000,pages=3000,seed=2,write=0.3",
    ):
        rows = [
            {
                k: v
                for k, v in fcsim.simulate(
                    trace, "arc", "2%", device="lcr", set={"sim.read_ahead": ra}
                ).items()
                if k not in timing
            }
            for ra in (True, "false")
        ]
        assert rows[0] == rows[1]
    with pytest.raises(fcsim.ConfigError, match=r"sim.read_ahead=no': expected true or false"):
        fcsim.simulate(TRACES / "cloudphysics_vscsi_2h.csv.gz", set={"sim.read_ahead": "no"})


def test_synthetic_traces() -> None:
    spec = "synth:zipf,alpha=0.9,requests=200000,pages=20000,write=0.3,seed=3"
    a = fcsim.simulate(spec, policy="lru", size="5%")
    b = fcsim.simulate(spec, policy="lru", size="5%")
    assert a.hits == b.hits and a.writes > 0 and a.format == "synth"
    info = fcsim.trace_info(spec)
    assert info["requests"] == 200000 and 0.28 < info["writes"] / 200000 < 0.32


def test_set_routes_options() -> None:
    t = FIXTURES / "arc_p2.lis"
    small = fcsim.trace_info(t, set={"trace.block_size": "512"})
    big = fcsim.trace_info(t, set={"trace.block_size": "4096"})
    assert big["unique_pages"] > small["unique_pages"]
    with pytest.raises(fcsim.ConfigError, match="unknown section 'disk'"):
        fcsim.simulate(t, set={"disk.latency_ms": "5"})
    with pytest.raises(fcsim.ConfigError, match="no device is"):
        fcsim.simulate(t, set={"device.op": "0.07"})
    with pytest.raises(fcsim.ConfigError, match=r"unknown parameter lru\.window"):
        fcsim.simulate(t, set={"lru.window": "0.25"})


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: fcsim.simulate("nonexistent.csv"), fcsim.TraceError, "nonexistent.csv: no such file"),
        (lambda: fcsim.simulate(FIXTURES / "empty.csv"), fcsim.TraceError, "empty trace"),
        (lambda: fcsim.simulate(FIXTURES / "msr_bad_line.csv"), fcsim.TraceError, r"msr_bad_line\.csv:2:"),
        (lambda: fcsim.simulate(FIXTURES / "truncated.csv.gz"), fcsim.TraceError, "truncated.csv.gz"),
        (lambda: fcsim.simulate(FIXTURES / "truncated.lis.zst"), fcsim.TraceError, "truncated.lis.zst"),
        (lambda: fcsim.simulate(FIXTURES / "arc_p2.lis", policy="nope"), fcsim.ConfigError, "unknown policy"),
        (lambda: fcsim.simulate(FIXTURES / "arc_p2.lis", size="0"), fcsim.ConfigError, "at least one page"),
        (lambda: fcsim.simulate(FIXTURES / "arc_p2.lis", size="-5"), fcsim.ConfigError, "cache size"),
        (lambda: fcsim.simulate(FIXTURES / "arc_p2.lis", size="lots"), fcsim.ConfigError, "cache size"),
        (
            lambda: fcsim.simulate(FIXTURES / "arc_p2.lis", format="nope"),
            fcsim.ConfigError,
            "unknown trace format",
        ),
        (lambda: fcsim.simulate(FIXTURES / "arc_p2.lis", page_size=0), fcsim.ConfigError, "page_size=0"),
        (lambda: fcsim.simulate("synth:zipf,alpha=x"), fcsim.ConfigError, "alpha=x"),
    ],
)
def test_typed_errors(call, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as e:
        call()
    assert isinstance(e.value, ValueError)


def test_skip_bad_lines_counts() -> None:
    row = fcsim.simulate(FIXTURES / "msr_bad_line.csv", size=10, skip_bad_lines=True)
    assert row.requests == 2 and row.bad_lines == 1


def test_gil_is_released_while_simulating() -> None:
    spec = "synth:zipf,requests=3000000,pages=200000,iops=0"
    done = threading.Event()

    def work() -> None:
        fcsim.simulate(spec, policy="lru", size=20000)
        done.set()

    ticks = 0
    th = threading.Thread(target=work)
    start = time.perf_counter()
    th.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    th.join()
    elapsed = time.perf_counter() - start
    # With the GIL held the main thread could not wake up during the run.
    assert elapsed > 0.05 and ticks >= 10


def test_stubs_match_the_module() -> None:
    stub = ast.parse((ROOT / "python" / "fcsim" / "_core.pyi").read_text())
    stubbed = {n.name for n in stub.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    stubbed |= {
        n.target.id for n in stub.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    public = {n for n in dir(_core) if not n.startswith("_")}
    assert stubbed == public
    for node in stub.body:
        if isinstance(node, ast.FunctionDef):
            sig = getattr(_core, node.name).__text_signature__
            names = [a.arg for a in node.args.args + node.args.kwonlyargs]
            assert names == [
                p.split("=")[0].strip() for p in sig.strip("()").split(",") if p.strip() not in ("*", "")
            ]
    assert (ROOT / "python" / "fcsim" / "py.typed").exists()


def test_convert_outputs(tmp_path: Path) -> None:
    src = TRACES / "systor17_vdi_sample1000.csv.gz"
    fct = tmp_path / "v.fct"
    info = fcsim.convert(src, fct, annotate_next=True)
    assert fcsim.trace_info(fct)["unique_pages"] == info["unique_pages"] == 9831
    a = fcsim.simulate(src, size="5%")
    b = fcsim.simulate(fct, size="5%")
    assert (a.hits, a.backing_writes) == (b.hits, b.backing_writes) and b.format == "fct"
    csv = tmp_path / "v.csv"
    fcsim.convert(src, csv)
    assert fcsim.trace_info(csv)["page_accesses"] == info["page_accesses"]


ARC = FIXTURES / "arc_p2.lis"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fcsim.simulate(ARC, volume=-1), "volume=-1"),
        (lambda: fcsim.simulate(ARC, volume=2**32), "volume=4294967296"),
        (lambda: fcsim.simulate(ARC, page_size=-1), "page_size=-1"),
        (lambda: fcsim.simulate(ARC, page_size="4096"), "page_size='4096'"),
        (lambda: fcsim.simulate(ARC, working_set=-3), "working_set=-3"),
        (lambda: fcsim.simulate(ARC, set={"sim.queue_depth": -1}), "sim.queue_depth=-1"),
        (lambda: fcsim.simulate(ARC, set={"sim.queue_depth": 2**32}), "sim.queue_depth=4294967296"),
        (lambda: fcsim.simulate(ARC, set={"sim.queue_depth": [1]}), "expected a string key"),
        (
            lambda: fcsim.simulate(ARC, set={"sim.queue_depth": math.inf}),
            "queue_depth=inf': expected a whole",
        ),
        (lambda: fcsim.simulate(ARC, set={"sim.queue_depth": 2.5}), "queue_depth=2.5': expected a whole"),
        (lambda: fcsim.simulate(ARC, set=5), "set=5"),
        (lambda: fcsim.simulate(ARC, policy=5), "policy=5"),
        (lambda: fcsim.simulate(ARC, size=None), "size=None"),
        (lambda: fcsim.simulate(ARC, size=2.5), "size=2.5"),
        (lambda: fcsim.simulate(ARC, device=7), "device=7"),
        (lambda: fcsim.simulate(5), "trace=5"),
        (lambda: fcsim.simulate(ARC, format=1), "format=1"),
        (lambda: fcsim.run_grid(ARC, 5, "5"), "policy=5"),
        (lambda: fcsim.run_grid([ARC, None], "lru", "5"), "trace=None"),
        (lambda: fcsim.run_grid(ARC, "lru", "5", jobs=-1), "jobs=-1"),
        (lambda: fcsim.trace_info(ARC, page_size=2**40), "page_size=1099511627776"),
        (lambda: fcsim.convert(ARC, 5), "out=5"),
        (lambda: fcsim.mrc(ARC, "shards", seed=-1), "seed=-1"),
        (lambda: fcsim.mrc(ARC, "shards", max_samples=2**64), "max_samples="),
        (lambda: fcsim.mrc(ARC, "shards", rate="x"), "rate='x'"),
        (lambda: fcsim.run_grid(ARC, "lru", "5", progress=5), "progress=5"),
        (lambda: fcsim.simulate(ARC, progress="bar"), "progress='bar'"),
        # A string is not a boolean: "no" was taken for True.
        (lambda: fcsim.trace_info(ARC, skip_bad_lines="no"), "skip_bad_lines='no': expected True or False"),
        (lambda: fcsim.simulate(ARC, skip_bad_lines=1), "skip_bad_lines=1: expected True or False"),
        (lambda: fcsim.convert(ARC, "x.fct", annotate_next="yes"), "annotate_next='yes': expected True or"),
        (lambda: fcsim.mrc(ARC, "minisim", policy="none"), "policy 'none' caches nothing"),
    ],
)
def test_bad_arguments_raise_config_error(call, message: str) -> None:
    # Not OverflowError, TypeError or AttributeError: every bad argument is a ConfigError.
    with pytest.raises(fcsim.ConfigError, match=re.escape(message)):
        call()


def test_a_core_panic_is_an_exception_not_panic_exception(tmp_path: Path) -> None:
    # An offset near 2^64 made MIN panic ("capacity overflow"); whatever the trace readers make
    # of it now, it reaches Python as an fcsim error (PyO3's PanicException is no Exception).
    t = tmp_path / "huge.csv"
    t.write_text("128166372003061629,hm,0,Read,18446744073709551000,8192,100\n")
    with pytest.raises((fcsim.ConfigError, fcsim.TraceError)):
        fcsim.simulate(t, policy="min", size=4)


def test_memory_follows_the_pages_cached_not_the_size_asked() -> None:
    # A 4294967294-page cache over a 1000-line trace aborted allocating 100 GB; 100M pages took
    # 2.2 GB per policy, and 1.4-3.5 GB for the offline bounds and a flash cache. Now what a run
    # holds grows with the pages cached: the peak RSS stays near the interpreter's own (about
    # 150 MB with pandas). The bounds and the flash cache run at 3e9 pages (a drive of 2^32
    # physical pages is refused).
    quota = ("m_t", "c_t")  # they need a quota, and run as m and c do
    names = [p["name"] for p in fcsim.policies() if not p["needs_device"] and p["name"] not in quota]
    code = (
        "import fcsim\n"
        f"trace = {str(TRACES / 'msr_hm_0_excerpt1000.csv')!r}\n"
        f"for p in {names!r}:\n"
        "    bound = p in ('m', 'm+', 'm_n', 'c', 'c_n', 'c_t', 'ripq+', 'pannier', 'lru-ftl')\n"
        "    fcsim.simulate(trace, policy=p, size=3000000000 if bound else 4294967294)\n"
        "fcsim.simulate(trace, policy='lru', size=3000000000, set={'stack.kind': 'ssd-cache'})\n"
        # VmHWM, not ru_maxrss: ru_maxrss survives fork + exec on Linux and reports this test
        # process's own peak when it is the larger (it is after a test that builds a 64 GiB drive).
        "import re; print(re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) < 400_000  # KiB


def test_mrc_at_takes_a_curve_and_a_size_in_pages() -> None:
    curve = fcsim.mrc(TRACES / "msr_hm_0_excerpt1000.csv")
    assert fcsim.mrc_at(curve, 0) == 1.0 and 0.0 < fcsim.mrc_at(curve, 10**9) < 1.0
    for args, needle in [
        ((5, 5), "curve=int: expected a curve from fcsim.mrc()"),
        ((curve[["size_pages"]], 5), "expected a curve from fcsim.mrc()"),
        ((curve, "5%"), "size_pages='5%': expected an integer"),
        ((curve, -1), "size_pages=-1: expected an integer"),
        ((curve, 2.5), "size_pages=2.5: expected an integer"),
        ((curve.astype(str), 5), "expected a curve from fcsim.mrc() (a DataFrame with numeric"),
    ]:
        with pytest.raises(fcsim.ConfigError, match=re.escape(needle)):
            fcsim.mrc_at(*args)


def test_check_raises_what_simulate_would_without_running() -> None:
    t = TRACES / "msr_hm_0_excerpt1000.csv"
    assert fcsim.check(t, "lru", "5%", device="gasa", set={"device.op": 0.07}) is None
    for kwargs, needle in [
        ({"device": "gasa", "set": {"device.colour": "red"}}, "unknown parameter device.colour"),
        ({"set": {"stack.flavour": "x"}}, "unknown parameter stack.flavour"),
        ({"set": {"trace.zone": 3}}, "unknown option trace.zone for format msr"),
        ({"policy": "cflru", "set": {"cflru.window": "wide"}}, "cflru.window=wide: expected"),
        ({"policy": "ripq+", "size": "64MiB", "set": {"ripq+.pointz": 3}}, "unknown parameter ripq+.pointz"),
        ({"policy": "c_n", "size": "64MiB", "set": {"c_n.n": 0}}, "c_n.n=0: expected a number of rereads"),
        ({"policy": "m", "set": {"stack.buffer": "many"}}, "stack.buffer=many"),
    ]:
        with pytest.raises(fcsim.ConfigError, match=re.escape(needle)):
            fcsim.check(t, **{"policy": "lru", "size": "5%", **kwargs})
        with pytest.raises(fcsim.ConfigError, match=re.escape(needle)):
            fcsim.simulate(t, **{"policy": "lru", "size": "5%", **kwargs})


def test_a_key_of_a_policy_the_run_does_not_simulate_is_refused() -> None:
    # gasa.gsmin with cflru was accepted and ignored.
    t = TRACES / "msr_hm_0_excerpt1000.csv"
    with pytest.raises(fcsim.ConfigError, match=re.escape("'gasa.gsmin' sets a parameter of gasa, which")):
        fcsim.run_grid(t, "cflru", 10, set={"gasa.gsmin": 0.5})
    df = fcsim.run_grid(t, ["cflru", "gasa"], 10, set={"gasa.gsmin": 0.5})
    assert list(df["policy"]) == ["cflru", "gasa"]


def test_convert_refuses_to_write_over_its_trace(tmp_path: Path) -> None:
    # The output was renamed over the trace: the trace was gone, and no error.
    t = tmp_path / "t.csv"
    t.write_bytes((TRACES / "msr_hm_0_excerpt1000.csv").read_bytes())
    (tmp_path / "link.csv").symlink_to(t)
    os.link(t, tmp_path / "hard.csv")
    for out in ("t.csv", "link.csv", "hard.csv"):
        with pytest.raises(fcsim.ConfigError, match=f"{out}: is the input .*t.csv; writing there would"):
            fcsim.convert(t, tmp_path / out, to="lcs-csv")
    assert t.read_bytes() == (TRACES / "msr_hm_0_excerpt1000.csv").read_bytes()


@pytest.mark.parametrize(("policy", "passes"), [("min", 2), ("m", 1)])
def test_every_pass_of_an_offline_policy_reports_progress(policy: str, passes: int) -> None:
    # MIN's next-access pass and the offline bounds' reading of the trace never called progress,
    # so neither the callback nor Ctrl-C reached them.
    seen: list[int] = []
    trace = "synth:zipf,requests=200000,pages=5000,seed=1"
    fcsim.simulate(trace, policy=policy, size=500, progress=lambda done, *_: seen.append(done))
    assert seen == [65536, 131072, 196608] * passes


class Stop(Exception):
    """Raised by a test's progress callback."""


def _stop(*_: object) -> None:
    raise Stop


@pytest.mark.parametrize(
    "call",
    [
        lambda t, d: fcsim.simulate(t, "lru", "1%", progress=_stop),
        lambda t, d: fcsim.simulate(t, "min", 100, progress=_stop),
        lambda t, d: fcsim.run_grid(t, "lru", ["1%", "2%"], jobs=2, progress=_stop),
        lambda t, d: fcsim.mrc(t, progress=_stop),
        lambda t, d: fcsim.mrc(t, method="shards", progress=_stop),
        lambda t, d: fcsim.mrc(t, method="minisim", policy="lru", progress=_stop),
        lambda t, d: fcsim.convert(t, d / "out.fct", progress=_stop),
    ],
    ids=["simulate", "simulate-min", "run_grid", "mrc-exact", "mrc-shards", "mrc-minisim", "convert"],
)
def test_an_exception_from_progress_reaches_the_caller(tmp_path: Path, call: Any) -> None:
    # The callback's own exception (not a generic interrupt, never swallowed), and nothing written.
    with pytest.raises(Stop):
        call(TRACES / "cloudphysics_vscsi_2h.csv.gz", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_key_of_another_policy_is_refused_by_simulate_and_check() -> None:
    # `run` and `run_grid` refused it; `simulate` and `check` accepted it and ignored it.
    t = "synth:zipf,requests=2000,pages=500"
    with pytest.raises(
        fcsim.ConfigError, match=r"'gasa\.gsmin' sets a parameter of gasa, which this run does not"
    ):
        fcsim.simulate(t, "lru", 100, set={"gasa.gsmin": 1})
    with pytest.raises(fcsim.ConfigError, match=r"'cflru\.window' sets a parameter of cflru"):
        fcsim.check(t, "lru", 100, set={"cflru.window": 0.5})
    fcsim.check(t, "cflru", 100, set={"cflru.window": 0.5})
    # A grid's keys serve every point: each point's run takes its own policy's.
    g = fcsim.run_grid(t, ["lru", "cflru"], 100, set={"cflru.window": 0.5})
    assert list(g["policy"]) == ["lru", "cflru"]


def test_the_cores_unknown_policy_names_the_offline_bounds_too() -> None:
    # `fcsim.check` with an unknown name listed 21 policies, not m, m+, ... that it accepts.
    with pytest.raises(fcsim.ConfigError) as e:
        fcsim.api._core.check("synth:zipf,requests=100,pages=50", "nosuch", "10", sets=[])
    assert all(n in str(e.value) for n in ("m+", "c_t", "ripq+", "lru", "none")), str(e.value)
