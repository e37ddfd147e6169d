from __future__ import annotations

import signal
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
