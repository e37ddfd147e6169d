"""The short run of the fetcher's fuzz target (fuzz/fetch_response.py): its committed corpus
(the replies of well-behaved and failing servers, fuzz/seed.py) and its regression inputs
(what long runs found, kept after the fix) replay cleanly: a whole file or one printable
FetchError line."""

import importlib.util
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
spec = importlib.util.spec_from_file_location("fetch_response", FUZZ / "fetch_response.py")
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)

INPUTS = sorted((FUZZ / "corpus/fetch-response").iterdir()) + sorted(
    p for p in (FUZZ / "regressions/fetch-response").glob("*") if p.is_file()
)


@pytest.fixture(scope="module")
def harness() -> Iterator[Any]:
    h = fuzz.Harness()
    yield h
    h.close()


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fuzz_input_replays_cleanly(path: Path, harness: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in harness.env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(socket, "getaddrinfo", fuzz.loopback_only(socket.getaddrinfo))
    harness.check(path.read_bytes())


def test_the_seeds_fetch_what_they_were_recorded_from(harness: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The corpus reaches past the first reply: the seeds of a whole file fetch it.
    from fcsim.fetch import fetch

    for k, v in harness.env.items():
        monkeypatch.setenv(k, v)
    for seed, volume, size in [
        ("tar-walk-gnu", "t/v", 900),
        ("tar-offset-moved", "t/w", 700),
        ("plain-chunked", "p/p1", 256),
    ]:
        data = (FUZZ / "corpus/fetch-response" / f"seed-{seed}").read_bytes()
        harness.replies, harness.served = data[1:].split(fuzz.SEP), 0
        assert fetch(volume, **fuzz.LIMITS).stat().st_size == size
        fetch(volume).unlink()


def test_the_in_memory_transport_gives_what_the_loopback_gives(harness: Any, monkeypatch: Any) -> None:
    # A fuzz run carries the replies in memory; every corpus and regression input must end the
    # same way there as through the loopback server (the same file, or the same error line, but
    # for the port and the cache directory it names).
    memory = fuzz.Harness("memory")
    try:
        monkeypatch.setattr(socket, "getaddrinfo", fuzz.loopback_only(socket.getaddrinfo))
        port = str(harness.server.server_address[1])
        outcomes = []
        for h in (harness, memory):
            for k, v in h.env.items():
                monkeypatch.setenv(k, v)
            with monkeypatch.context() as m:
                if h is memory:
                    m.setattr(socket, "create_connection", memory.connect)
                got = [h.check(p.read_bytes()) for p in INPUTS]
            same = [o.replace(port, str(fuzz.MEMORY_PORT)).replace(str(h.cache), "CACHE") for o in got]
            outcomes.append(same)
        assert outcomes[0] == outcomes[1]
    finally:
        memory.close()
