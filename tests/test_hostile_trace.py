"""Hostile trace input through the CLI and the API (issue 16): offsets near 2^64, `.fct` headers
that lie, files without line breaks, pipes and fifos, unknown output names. Each ends in exit 2
and one line on stderr (no traceback, no panic) within seconds, or in `fcsim.TraceError`."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import fcsim
from conftest import FIXTURES

FCSIM = [sys.executable, "-m", "fcsim.cli"]
PAST_2_64 = "128166372003061629,hm,0,Read,18446744073709551000,8192,100\n"


def run(*args: object, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FCSIM, *map(str, args)], capture_output=True, text=True, timeout=20, **kw)  # type: ignore[call-overload]


def one_error_line(r: subprocess.CompletedProcess[str], *parts: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr
    for p in parts:
        assert p in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "cmd",
    [
        ["trace", "info", "T"],
        ["run", "T", "--policy", "min", "--size", "10"],
        ["run", "T", "--policy", "lru", "--size", "5%"],
        ["mrc", "T"],
        ["trace", "convert", "T", "-o", "OUT.fct"],
    ],
)
def test_offset_past_2_64(tmp_path: Path, cmd: list[str]) -> None:
    t = tmp_path / "t.csv"
    t.write_text(PAST_2_64)
    args = [{"T": str(t), "OUT.fct": str(tmp_path / "o.fct")}.get(c, c) for c in cmd]
    one_error_line(run(*args, "--format", "msr"), f"{t}:1:", "past the 64-bit byte address space")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_offset_past_2_64_through_the_api(tmp_path: Path) -> None:
    t = tmp_path / "t.csv"
    t.write_text(PAST_2_64)
    with pytest.raises(fcsim.TraceError, match="past the 64-bit"):
        fcsim.simulate(t, policy="min", size=10, format="msr")
    with pytest.raises(ValueError, match="past the 64-bit"):
        fcsim.trace_info(t, format="msr")


@pytest.mark.parametrize("time", ["18446744073709000000", "18446744073709551615"])
def test_a_time_past_the_horizon(tmp_path: Path, time: str) -> None:
    # Issue 24: a read at 2^64 - 551616 ns hung the device model, one at 2^64 - 1 panicked.
    t = tmp_path / "t.trace"
    t.write_text(f"{time} 0 100 8 1\n")
    r = run("run", t, "--policy", "lru", "--size", "10", "--device", "gasa")
    one_error_line(r, f"{t}:1: time {time} ns is past the latest time fcsim simulates")


def fct_with_next(tmp_path: Path) -> bytes:
    out = tmp_path / "good.fct"
    fcsim.convert(FIXTURES / "mqsim_tpcc.trace.zst", out, annotate_next=True)
    return out.read_bytes()


def test_fct_next_column_shorter_than_the_records(tmp_path: Path) -> None:
    b = bytearray(fct_with_next(tmp_path))
    (n,) = struct.unpack_from("<Q", b, 120)
    struct.pack_into("<Q", b, 120, n - 1)
    t = tmp_path / "short.fct"
    t.write_bytes(bytes(b[:-8]))
    one_error_line(
        run("run", t, "--policy", "min", "--size", "4"), f"{t} at byte 120:", "next-access entries is"
    )
    with pytest.raises(fcsim.TraceError, match="next-access entries"):
        fcsim.simulate(t, policy="min", size=4)


def test_fct_huge_unique_pages(tmp_path: Path) -> None:
    b = bytearray(fct_with_next(tmp_path))
    struct.pack_into("<Q", b, 56, 2**63)
    t = tmp_path / "unique.fct"
    t.write_bytes(bytes(b))
    one_error_line(run("mrc", t), f"{t} at byte 56:", "unique_pages")
    one_error_line(run("run", t, "--policy", "lru", "--size", "5%"), "unique_pages")


def test_a_file_without_line_breaks(tmp_path: Path) -> None:
    t = tmp_path / "one-line.csv"
    t.write_bytes(b"1" * (4 << 20))
    one_error_line(run("trace", "info", t), "cannot detect the trace format")
    one_error_line(run("trace", "info", t, "--format", "msr"), f"{t}:1: line longer than 1 MiB")


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    one_error_line(
        run("trace", "info", fifo), f"{fifo}: is a pipe, fifo or device", "save it to a file first"
    )


def test_a_pipe_is_refused(tmp_path: Path) -> None:
    r = run("trace", "info", "/dev/stdin", "--format", "msr", input=PAST_2_64)
    one_error_line(r, "is a pipe, fifo or device")


def test_convert_refuses_an_unknown_output_name(tmp_path: Path) -> None:
    out = tmp_path / "x.xyz"
    r = run("trace", "convert", FIXTURES / "msr_hm_0.csv", "-o", out)
    one_error_line(r, "x.xyz: unknown output format", ".fct, .csv (libCacheSim CSV), .oracleGeneral")
    assert list(tmp_path.iterdir()) == []
    assert run("trace", "convert", FIXTURES / "msr_hm_0.csv", "-o", out, "--to", "fct").returncode == 0


# 2^50 pages: the calibrated model's count per (op, page) needs 8 PiB, past any address space.
HUGE_CALIBRATED = "synth:calibrated,requests=10,pages=1125899906842624"


def test_a_calibrated_spec_too_large_for_memory_is_refused() -> None:
    one_error_line(
        run("run", HUGE_CALIBRATED, "--policy", "lru", "--size", "10"), "synth: calibrated: pages=", "memory"
    )
    with pytest.raises(fcsim.ConfigError, match="more memory than can be allocated"):
        fcsim.trace_info(HUGE_CALIBRATED)
