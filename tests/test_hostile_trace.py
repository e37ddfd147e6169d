"""Hostile trace input through the CLI and the API (issue 16): offsets near 2^64, `.fct` headers
that lie, files without line breaks, pipes and fifos, unknown output names. Each ends in exit 2
and one line on stderr (no traceback, no panic) within seconds, or in `fcsim.TraceError`. A command
runs in this process (`conftest.cli`: a traceback or a panic propagates and fails the test) unless
its input once hung or aborted fcsim; those run in a child of their own (`run`)."""

from __future__ import annotations

import os
import shlex
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import fcsim
from conftest import FIXTURES, TRACES, cli

FCSIM = [sys.executable, "-m", "fcsim.cli"]
PAST_2_64 = "128166372003061629,hm,0,Read,18446744073709551000,8192,100\n"


def run(*args: object, **kw: object) -> subprocess.CompletedProcess[str]:
    """The CLI in a child of its own, for an input whose past failure was a hang or an abort (a
    fifo, a pipe, memory): a timeout and the exit status then fail the test alone."""
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
    one_error_line(cli(*args, "--format", "msr"), f"{t}:1:", "past the 64-bit byte address space")
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
        cli("run", t, "--policy", "min", "--size", "4"), f"{t} at byte 120:", "next-access entries is"
    )
    with pytest.raises(fcsim.TraceError, match="next-access entries"):
        fcsim.simulate(t, policy="min", size=4)


def test_fct_huge_unique_pages(tmp_path: Path) -> None:
    b = bytearray(fct_with_next(tmp_path))
    struct.pack_into("<Q", b, 56, 2**63)
    t = tmp_path / "unique.fct"
    t.write_bytes(bytes(b))
    one_error_line(cli("mrc", t), f"{t} at byte 56:", "unique_pages")
    one_error_line(cli("run", t, "--policy", "lru", "--size", "5%"), "unique_pages")


def test_a_percent_size_of_a_fct_reads_its_header_not_its_records(tmp_path: Path) -> None:
    # Issue 45: `--size 1%` of a .fct took a pass over the records before the run (23.9 s
    # against 16.3 s in pages at 100M requests). The header's count is taken (a lie shows it:
    # no pass counted the records) and checked by the run itself, which fails at its end.
    good = bytearray(fct_with_next(tmp_path))
    (truth,) = struct.unpack_from("<Q", good, 56)
    honest = tmp_path / "honest.fct"
    honest.write_bytes(bytes(good))
    assert fcsim.simulate(honest, "lru", "50%").size_pages == truth // 2
    lie = bytearray(good)
    struct.pack_into("<Q", lie, 56, truth // 3)
    t = tmp_path / "lie.fct"
    t.write_bytes(bytes(lie))
    assert fcsim.api._core.working_set(str(t)) == truth // 3
    fcsim.check(t, "lru", "50%")  # the header alone: nothing to check it against yet
    with pytest.raises(fcsim.TraceError, match=f"unique_pages is {truth // 3}, the records hold {truth}"):
        fcsim.simulate(t, "lru", "50%")
    assert fcsim.simulate(t, "lru", 4).hits == fcsim.simulate(honest, "lru", 4).hits


def test_a_file_without_line_breaks(tmp_path: Path) -> None:
    t = tmp_path / "one-line.csv"
    t.write_bytes(b"1" * (4 << 20))
    one_error_line(cli("trace", "info", t), "cannot detect the trace format")
    one_error_line(cli("trace", "info", t, "--format", "msr"), f"{t}:1: line longer than 1 MiB")


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
    r = cli("trace", "convert", FIXTURES / "msr_hm_0.csv", "-o", out)
    one_error_line(r, "x.xyz: unknown output format", ".fct, .csv (libCacheSim CSV), .oracleGeneral")
    assert list(tmp_path.iterdir()) == []
    assert cli("trace", "convert", FIXTURES / "msr_hm_0.csv", "-o", out, "--to", "fct").returncode == 0


# 2^50 pages: the calibrated model's count per (op, page) needs 8 PiB, past any address space.
HUGE_CALIBRATED = "synth:calibrated,requests=10,pages=1125899906842624"


def test_a_calibrated_spec_too_large_for_memory_is_refused() -> None:
    one_error_line(
        run("run", HUGE_CALIBRATED, "--policy", "lru", "--size", "10"), "synth: calibrated: pages=", "memory"
    )
    with pytest.raises(fcsim.ConfigError, match="more memory than can be allocated"):
        fcsim.trace_info(HUGE_CALIBRATED)


MSR = FIXTURES / "msr_hm_0.csv"


@pytest.mark.parametrize(
    ("cmd", "ext"),
    [
        (["run", "T", "--policy", "lru", "--size", "10", "-q", "--out", "OUT"], "csv"),
        (["run", "T", "--policy", "lru", "--size", "10", "-q", "--plot", "OUT"], "png"),
        (["mrc", "T", "--out", "OUT"], "csv"),
        (["trace", "convert", "T", "-o", "OUT", "--to", "lcs-csv"], "csv"),
    ],
)
def test_an_output_that_is_the_input_is_refused(tmp_path: Path, cmd: list[str], ext: str) -> None:
    # `--out t.csv` over the trace t.csv replaced the trace with the results, exit 0; so through
    # a symbolic or a hard link.
    t = tmp_path / f"t.{ext}"
    t.write_bytes(MSR.read_bytes())
    (tmp_path / f"link.{ext}").symlink_to(t)
    os.link(t, tmp_path / f"hard.{ext}")
    for out in (t.name, f"link.{ext}", f"hard.{ext}"):
        args = [{"T": t.name, "OUT": out}.get(c, c) for c in cmd]
        r = cli(*args, "--format", "msr", cwd=tmp_path)
        one_error_line(r, f"{out}: is the input {t.name}; writing there would destroy it")
    assert t.read_bytes() == MSR.read_bytes() and (tmp_path / f"link.{ext}").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([t.name, f"link.{ext}", f"hard.{ext}"])


@pytest.mark.parametrize(
    ("cmd", "ext"),
    [
        (["run", MSR, "--policy", "lru", "--size", "10", "-q", "--out", "OUT"], "csv"),
        (["mrc", MSR, "--plot", "OUT"], "png"),
        (["trace", "convert", MSR, "-o", "OUT", "--to", "fct"], "fct"),
    ],
)
def test_an_output_that_is_not_a_regular_file_is_refused(tmp_path: Path, cmd: list[object], ext: str) -> None:
    # The rename replaced a fifo, a device or a link to one with a regular file (as root, `-o
    # /dev/stdout` replaced /dev/stdout); a directory was reported only after the run.
    os.mkfifo(tmp_path / f"fifo.{ext}")
    (tmp_path / f"null.{ext}").symlink_to("/dev/null")
    (tmp_path / f"dir.{ext}").mkdir()
    for out, why in [
        (f"fifo.{ext}", "exists and is not a regular file (a pipe, fifo, device or socket)"),
        (f"null.{ext}", "exists and is not a regular file"),
        (f"dir.{ext}", "is a directory; expected a file name"),
        (f"none/out.{ext}", "directory none does not exist"),
    ]:
        r = run(*[out if c == "OUT" else c for c in cmd], cwd=tmp_path)
        one_error_line(r, f"fcsim: error: {out}: {why}")
    assert (tmp_path / f"null.{ext}").is_symlink() and (tmp_path / f"fifo.{ext}").is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"dir.{ext}", f"fifo.{ext}", f"null.{ext}"]


@pytest.mark.parametrize(
    "cmd",
    [
        ["run", MSR, "--policy", "lru", "--size", "10", "-q", "--out", "stdout.csv"],
        ["trace", "convert", MSR, "-o", "stdout.csv", "--to", "lcs-csv"],
    ],
)
def test_an_output_through_a_link_writes_the_linked_file(tmp_path: Path, cmd: list[object]) -> None:
    # A link to the standard output (as /dev/stdout is; as root, `-o /dev/stdout` replaced
    # /dev/stdout) was replaced by a regular file; now the file it names is written.
    (tmp_path / "stdout.csv").symlink_to("/proc/self/fd/1")
    with (tmp_path / "captured").open("w") as f:
        r = subprocess.run(
            [*FCSIM, *map(str, cmd)], stdout=f, stderr=subprocess.PIPE, text=True, cwd=tmp_path
        )
    assert r.returncode == 0, r.stderr
    assert os.readlink(tmp_path / "stdout.csv") == "/proc/self/fd/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["captured", "stdout.csv"]
    assert (tmp_path / "captured").read_text().split("\n", 1)[0].startswith(("trace,", "time,"))


@pytest.mark.parametrize(
    "cmd",
    [
        ["run", MSR, "--policy", "lru", "--size", "10", "-q", "--out", "stdout.csv"],
        ["trace", "convert", MSR, "-o", "stdout.csv", "--to", "lcs-csv"],
        ["trace", "clone", MSR, "-o", "stdout.csv"],
    ],
)
def test_an_output_to_a_standard_output_that_holds_lines_already_is_refused(
    tmp_path: Path, cmd: list[object]
) -> None:
    # `-o /dev/stdout >> log` (here through a link of the name the command wants): the log was
    # replaced by the output, its lines lost (and the shell's stream left on the file
    # unlinked); on a pipe, the error named /proc/PID/fd/pipe:[N].
    (tmp_path / "stdout.csv").symlink_to("/proc/self/fd/1")
    log = tmp_path / "log"
    log.write_text("a line written before\n")
    with log.open("a") as f:
        r = subprocess.run(
            [*FCSIM, *map(str, cmd)], stdout=f, stderr=subprocess.PIPE, text=True, timeout=60, cwd=tmp_path
        )
    one_error_line(r, "stdout.csv: is this process's standard output, the file", "holds 22 bytes already")
    assert log.read_text() == "a line written before\n"
    line = f"{shlex.join(map(str, FCSIM + cmd))} | cat"
    r = subprocess.run(
        ["bash", "-o", "pipefail", "-c", line], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    one_error_line(r, "stdout.csv: exists and is not a regular file (a pipe")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log", "stdout.csv"]


def test_an_output_error_names_the_output_not_its_temporary_file(tmp_path: Path) -> None:
    # A name that fits the file system but whose temporary name (.NAME.PID.N.tmp) does not: the
    # error named the hidden temporary file. 250 bytes: the temporary name is at least 259 with
    # any PID (240 let a PID under 1000 fit in 255, and the run succeeded).
    out = tmp_path / ("r" * 246 + ".csv")
    r = cli("run", MSR, "--policy", "lru", "--size", "10", "-q", "--out", out)
    line = one_error_line(r, f"{out}: cannot write (File name too long)")
    assert ".tmp" not in line and list(tmp_path.iterdir()) == []


def test_control_characters_from_a_trace_are_escaped(tmp_path: Path) -> None:
    # An op field holding an OSC sequence (retitles the terminal) and a bell reached the terminal
    # raw in the error that quotes it.
    t = tmp_path / "evil.csv"
    t.write_bytes(b"128166372003061629,hm,0,Re\x1b]0;pwned\x07ad,383496192,32768,100\n")
    r = cli("trace", "info", t, "--format", "msr")
    line = one_error_line(r, "Re\\x1b]0;pwned\\x07ad")
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in r.stderr.rstrip("\n"))
    assert line.startswith(f"fcsim: error: {t}:1:")


def limited_memory() -> None:
    """A child's address space capped at 1 GB: the machine's memory as a small one has it."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1_000_000_000, 1_000_000_000))


@pytest.mark.parametrize(
    "cmd",
    [
        ["trace", "info", "T"],
        ["run", "T", "--policy", "lru", "--size", "100%"],
        ["mrc", "T"],
        ["trace", "convert", "T", "-o", "OUT.fct", "--annotate-next"],
        ["run", "T", "--policy", "min", "--size", "10"],
        ["run", "T", "--policy", "m", "--size", "10"],
    ],
)
def test_a_trace_beyond_memory_is_one_error_not_an_abort(tmp_path: Path, cmd: list[str]) -> None:
    # 100 KB of MSR lines: 2,000 one-GiB reads at distinct offsets, 524M pages of 4 KiB. Every
    # table sized by the trace's pages grows fallibly; before, each pass aborted (exit 134).
    t = tmp_path / "big.csv"
    t.write_text("".join(f"128166372003061629,h,0,Read,{i << 30},1073741824,1\n" for i in range(2000)))
    args = [str(t) if a == "T" else str(tmp_path / a) if a == "OUT.fct" else a for a in cmd]
    r = subprocess.run(
        [*FCSIM, *args], capture_output=True, text=True, timeout=120, preexec_fn=limited_memory
    )
    one_error_line(r, "not enough memory for", "could not be allocated")
    assert not (tmp_path / "OUT.fct").exists()


def test_a_huge_shards_sample_bound_is_not_reserved_up_front() -> None:
    # 10^12 samples aborted allocating them before the first access; memory follows the trace.
    r = subprocess.run(
        [
            *FCSIM,
            "mrc",
            TRACES / "msr_hm_0_excerpt1000.csv",
            "--method",
            "shards",
            "--max-samples",
            "1000000000000",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited_memory,
    )
    assert r.returncode == 0 and "100%" in r.stdout, r.stderr
