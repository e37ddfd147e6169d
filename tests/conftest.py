from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "data" / "traces"
FIXTURES = ROOT / "crates" / "fcsim" / "tests" / "fixtures"


def as_on_a_terminal() -> None:
    """``preexec_fn`` of a child the test stops with Ctrl-C (SIGINT): a terminal's default
    disposition, whatever the test runner inherited (a shell runs a background job, such as a CI
    script started with ``&``, with SIGINT ignored, and its children keep ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c_in_a_pass(*args: object) -> tuple[int, str]:
    """Runs the CLI with ``args``, presses Ctrl-C once it has spent 3 s of CPU time (past the
    start-up, into its long pass, whatever the machine's load) and returns its exit status and
    stderr; a child that does not stop within 30 s is killed."""
    code, err, _ = ctrl_c_after(3, *args)
    return code, err


def ctrl_c_after(cpu_seconds: float, *args: object) -> tuple[int, str, float]:
    """:func:`ctrl_c_in_a_pass` after ``cpu_seconds`` of CPU time; also returns the seconds the
    child took to stop after Ctrl-C."""
    p = subprocess.Popen(
        [sys.executable, "-m", "fcsim.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_on_a_terminal,
    )
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= cpu_seconds:
            break
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    pressed = time.monotonic()
    try:
        _, err = p.communicate(timeout=30)
    finally:
        p.kill()
    return p.returncode, err, time.monotonic() - pressed


def cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``fcsim ARGS`` run in this process (:func:`fcsim.cli.main` with stdout and stderr captured),
    returned as :func:`subprocess.run` would: exit status, stdout, stderr. For tests of what a
    command prints, writes and exits with, without a new interpreter's imports (pandas,
    matplotlib: about a second each). An exception ``main`` does not turn into an error line
    propagates and fails the test, where a child would print a traceback and exit 1. A test of
    the process itself (Ctrl-C, a memory limit, a traceback at start-up, ``python -m``) runs a
    real one."""
    from fcsim.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            warnings.catch_warnings(record=True) as caught,
        ):
            # The warnings a child would print on stderr (Python's default filters), which
            # pytest would otherwise keep to itself.
            warnings.simplefilter("default")
            for quiet in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.simplefilter("ignore", quiet)
            try:
                code = main(argv)
            except SystemExit as e:  # argparse: a misused option, --help, --version
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
                    code = 1
                else:
                    code = e.code or 0
    finally:
        os.chdir(here)
    shown = "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught)
    return subprocess.CompletedProcess(["fcsim", *argv], code, out.getvalue(), err.getvalue() + shown)


@pytest.fixture
def traces() -> Path:
    return TRACES


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
