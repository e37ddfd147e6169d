"""The `fcsim` command: tables, JSON, output files, and bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import FIXTURES, TRACES

FCSIM = [sys.executable, "-m", "fcsim.cli"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FCSIM, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_run_prints_a_table() -> None:
    r = run("run", TRACES / "msr_hm_0_excerpt1000.csv", "--policy", "lru,fifo", "--size", "5%,64MiB")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["trace", "policy", "size_pages"]
    assert len(lines) == 5


def test_run_json_and_out_files(tmp_path: Path) -> None:
    t = TRACES / "systor17_vdi_sample1000.csv.gz"
    r = run("run", t, "--policy", "lru", "--size", "1%,2%", "--json")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["size_pages"] for row in rows] == [98, 197]
    for ext in ("csv", "parquet", "json", "jsonl"):
        out = tmp_path / f"res.{ext}"
        r = run("run", t, "--policy", "lru,fifo", "--size", "1%", "--out", out, "-q")
        assert r.returncode == 0, r.stderr
        df = {"csv": pd.read_csv, "parquet": pd.read_parquet, "json": pd.read_json}.get(
            ext, lambda p: pd.read_json(p, lines=True)
        )(out)
        assert list(df["policy"]) == ["lru", "fifo"] and int(df["size_pages"][0]) == 98


def test_trace_info_and_convert(tmp_path: Path) -> None:
    r = run("trace", "info", TRACES / "tencent_cbs_sample50k.csv.gz")
    assert r.returncode == 0, r.stderr
    assert "requests       50,000" in r.stdout and "volumes        2038" in r.stdout
    assert "unique pages   348,239" in r.stdout
    out = tmp_path / "t.fct"
    r = run("trace", "convert", TRACES / "mqsim_tpcc-small.trace.gz", "-o", out, "--annotate-next")
    assert r.returncode == 0 and out.exists()
    j = json.loads(run("trace", "info", out, "--json").stdout)
    assert (j["requests"], j["unique_pages"], len(j["volumes"])) == (6999, 20470, 16)


def test_policies_and_formats_list() -> None:
    assert run("policies").stdout.split()[0] == "lru"
    names = [line.split()[0] for line in run("trace", "formats").stdout.splitlines()]
    assert {"msr", "spc", "fiu", "blkparse", "mqsim", "disksim", "systor", "tencent", "vscsi", "arc"} <= set(
        names
    )
    assert {"lcs-csv", "oracle-general", "csv", "fct", "diskmon"} <= set(names)


BAD = [
    (["run", "missing.csv", "--policy", "lru", "--size", "5"], "missing.csv: no such file"),
    (
        ["run", FIXTURES / "msr_bad_line.csv", "--policy", "lru", "--size", "5"],
        "msr_bad_line.csv:2: expected Type",
    ),
    (["run", FIXTURES / "empty.csv", "--policy", "lru", "--size", "5"], "empty trace"),
    (["run", FIXTURES / "truncated.csv.gz", "--policy", "lru", "--size", "5"], "truncated.csv.gz"),
    (["run", FIXTURES / "truncated.lis.zst", "--policy", "lru", "--size", "5"], "truncated.lis.zst"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "nope", "--size", "5"], "unknown policy 'nope'"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "0"], "at least one page"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size=-4"], "cache size '-4'"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "big"], "cache size 'big'"),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--format", "xyz"],
        "unknown trace format",
    ),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--set", "lru.k=1"],
        "unknown parameter",
    ),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--set", "oops"],
        "expected KEY=VALUE",
    ),
    (["trace", "info", FIXTURES / "msr_hm_0.csv", "--format", "tencent"], "msr_hm_0.csv:1:"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_exits_2_without_traceback(args: list[str], message: str) -> None:
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("fcsim: error: ") and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_skip_bad_lines_reports() -> None:
    r = run(
        "run", FIXTURES / "msr_bad_line.csv", "--policy", "lru", "--size", "5", "--skip-bad-lines", "--json"
    )
    assert r.returncode == 0
    assert json.loads(r.stdout)["bad_lines"] == 1 and "skipped 1 malformed line" in r.stderr


def test_errors_leave_existing_output_untouched(tmp_path: Path) -> None:
    out = tmp_path / "keep.csv"
    out.write_text("precious\n")
    r = run("run", FIXTURES / "msr_bad_line.csv", "--policy", "lru", "--size", "5", "--out", out)
    assert r.returncode == 2 and out.read_text() == "precious\n"
    fct = tmp_path / "keep.fct"
    fct.write_text("precious\n")
    r = run("trace", "convert", FIXTURES / "msr_bad_line.csv", "-o", fct)
    assert r.returncode == 2 and fct.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv", "keep.fct"]


def test_ctrl_c_leaves_no_partial_file(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "big.fct"
    p = subprocess.Popen(
        [*FCSIM, "trace", "convert", "synth:uniform,requests=200000000,pages=1000000", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(tmp_path.iterdir()) and time.monotonic() < deadline:  # wait for the temporary file
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert list(tmp_path.iterdir()) == []


def test_flash_aware_policies_refuse_to_run_without_a_device() -> None:
    t = TRACES / "msr_hm_0_excerpt1000.csv"
    for policy in ("lcr", "gcar-cflru"):
        r = run("run", t, "--policy", policy, "--size", "5%")
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "--device" in r.stderr, r.stderr
        assert run("run", t, "--policy", policy, "--size", "5%", "--device", "lcr").returncode == 0
    marked = [line.split()[0] for line in run("policies").stdout.splitlines() if "needs --device" in line]
    assert marked == ["gcar-cflru", "lcr"]
