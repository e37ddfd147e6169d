"""Coverage-guided fuzz target of the trace fetcher's reading of a server's replies (issue 24), on
atheris (libFuzzer for Python): each input is what a loopback HTTP server sends, byte for byte,
in reply to the fetcher's requests: the status line, headers, a plain, chunked or
close-delimited body, and the tar headers the fetcher reads from it. Replies are separated by
SEP: the fetcher's first request gets the first reply, the next one the next, and every later
request the last. The first byte picks the volume (its value modulo 3): a member of a tar
archive found by reading the archive's headers, one whose header is at the catalogue's offset,
or a plain file.
The fetch must return a file or raise FetchError with one printable line (and its notes must
be printable), never another exception. Limits are small (a 2 s deadline), so no input hangs.
libFuzzer's options apply:

    .venv/bin/python fuzz/fetch_response.py CORPUS_DIR... -runs=N -timeout=10

The replies travel one of two ways. A fuzz run carries them in memory (``Wire``): each of the
fetcher's connections is a socket stand-in that takes the request and gives the reply's bytes,
then end of file, which is what the loopback server's reads give the fetcher for an input that
is only bytes, without a thread, a TCP handshake and a port per request (about 10x the
executions per second, which is what makes 10 M executions a run of hours, not days). The
replay test (and ``FCSIM_FUZZ_TRANSPORT=loopback`` for a run) sends them through the real
loopback server, and checks that both ways give every corpus input the same outcome.

`make fuzz` runs it (target fetch-response); tests/test_fuzz_fetch.py replays its corpus.
``Loopback`` is also the scripted server of tests/test_fetch.py.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import socket
import socketserver
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: Separates the replies of one input.
SEP = b"\n--next-reply--\n"
#: The port of the in-memory transport's server (nothing listens there).
MEMORY_PORT = 9
#: The fetcher's limits in a fuzz run: small, so that an input takes milliseconds, or seconds
#: when it makes the fetcher wait.
LIMITS: dict[str, Any] = {"connect_timeout": 1.0, "stall_timeout": 0.5, "deadline": 2.0, "retries": 2}


class Loopback(socketserver.ThreadingTCPServer):
    """An HTTP server on 127.0.0.1 that answers each request with raw bytes: ``reply(head)``
    (the request's lines up to the blank line) gives the pieces to send, one after another (a
    generator may sleep between them, or never end); then it closes the connection. A client
    that goes away ends the reply. The request heads are kept in ``heads``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, reply: Callable[[bytes], Iterable[bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reply = reply
        self.heads: list[bytes] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> Loopback:
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _Handler(socketserver.BaseRequestHandler):
    server: Loopback

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            got = self.request.recv(65536)
            if not got:
                return
            head += got
        self.server.heads.append(head)
        try:
            for piece in self.server.reply(head):
                self.request.sendall(piece)
        except OSError:
            pass  # the fetcher went away


def catalogue(base: str) -> str:
    """A catalogue of two families served from ``base``: ``t`` (a member of an archive; volume
    ``v`` has no offset, ``w`` one at byte 0) and ``p`` (plain files ``p0`` to ``p9``)."""
    head = 'title = "fuzz"\nformat = "msr"\nsize = "-"\nsource = { text = "-" }\n'
    head += 'licence = "-"\nchecksums = "-"\n'
    return (
        f'[[family]]\nname = "t"\n{head}member = "d/{{file}}"\n'
        f'archives = [{{ name = "t.tar", url = "{base}/t.tar", size = "-" }}]\n'
        '[[family.volume]]\nname = "v"\nfile = "v.bin"\n'
        '[[family.volume]]\nname = "w"\nfile = "w.bin"\narchive = "t.tar"\noffset = 0\n\n'
        f'[[family]]\nname = "p"\n{head}mirror = {{ url = "{base}/p/{{volume}}.bin", volume = "p[0-9]" }}\n'
    )


class Wire:
    """One connection of the in-memory transport, in place of a socket: what is sent is kept,
    reads give ``reply`` and then end of file, as the loopback server's connection does when it
    has sent its reply and closed. Timeouts are checked as a socket checks them."""

    def __init__(self, reply: bytes) -> None:
        self.reply = io.BytesIO(reply)
        self.sent = bytearray()

    def sendall(self, data: bytes) -> None:
        self.sent += data

    def makefile(self, mode: str) -> io.BufferedReader:
        assert mode == "rb", mode
        return io.BufferedReader(self.reply)  # type: ignore[arg-type]

    def settimeout(self, seconds: float | None) -> None:
        if seconds is not None and seconds < 0:
            raise ValueError("Timeout value out of range")

    def setsockopt(self, *args: Any) -> None:
        pass

    def close(self) -> None:
        pass


class Harness:
    """A server, a catalogue of it and an empty trace cache; ``env`` names the latter two as
    fetch reads them (``FCSIM_CATALOGUE``, ``FCSIM_TRACE_DIR``). The server is the loopback
    one, or with ``transport="memory"`` none: ``connect`` stands in for
    ``socket.create_connection`` and hands out ``Wire``s (``main`` installs it)."""

    def __init__(self, transport: str = "loopback") -> None:
        assert transport in ("loopback", "memory"), transport
        self.replies: list[bytes] = [b""]
        self.served = 0
        self.server = Loopback(self._reply).__enter__() if transport == "loopback" else None
        base = self.server.base if self.server else f"http://127.0.0.1:{MEMORY_PORT}"
        # In memory where the machine has a tmpfs: a fetch writes and removes a few files.
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.cache = Path(tempfile.mkdtemp(prefix="fcsim-fuzz-fetch-", dir=shm))
        (self.cache / "catalogue.toml").write_text(catalogue(base))
        self.env = {
            "FCSIM_CATALOGUE": str(self.cache / "catalogue.toml"),
            "FCSIM_TRACE_DIR": str(self.cache / "traces"),
        }

    def close(self) -> None:
        if self.server:
            self.server.__exit__()
        shutil.rmtree(self.cache, ignore_errors=True)

    def _next(self) -> bytes:
        i, self.served = self.served, self.served + 1
        return self.replies[min(i, len(self.replies) - 1)]

    def _reply(self, head: bytes) -> Iterable[bytes]:
        yield self._next()

    def connect(self, address: tuple[str, int], *args: Any, **kwargs: Any) -> Wire:
        """``socket.create_connection`` of the in-memory transport: the next reply on a
        ``Wire``; another port is refused, as on the loopback (``loopback_only`` has already
        failed another host)."""
        host, port = address
        socket.getaddrinfo(host, port)
        if port != MEMORY_PORT:
            raise ConnectionRefusedError(111, "Connection refused")
        return Wire(self._next())

    def check(self, data: bytes) -> str:
        """One input; raises (an AssertionError or the unexpected exception) on a finding, else
        gives the outcome: the fetched file's MD5 or the FetchError's line."""
        # Imported here, so that main() can instrument it first.
        from fcsim.fetch import FetchError, fetch

        name = ("t/v", "t/w", "p/p1")[data[0] % 3 if data else 0]
        self.replies, self.served = data[1:].split(SEP), 0
        notes: list[str] = []
        try:
            path = fetch(name, note=notes.append, **LIMITS)
            assert path.is_file(), path
            outcome = hashlib.md5(path.read_bytes()).hexdigest()
        except FetchError as e:
            outcome = str(e)
            assert outcome.isprintable() and outcome.startswith(f"{name}: "), repr(outcome)
        finally:
            shutil.rmtree(self.cache / "traces", ignore_errors=True)
        assert all(n.isprintable() for n in notes), notes
        return outcome


def loopback_only(getaddrinfo: Callable[..., Any]) -> Callable[..., Any]:
    """``socket.getaddrinfo`` for a fuzz run: a redirection to a host other than the loopback
    server fails as an unknown host does, without asking DNS, so no input reaches the network."""

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("127.0.0.1", b"127.0.0.1"):
            raise socket.gaierror(socket.EAI_NONAME, "only 127.0.0.1 in a fuzz run")
        return getaddrinfo(host, *args, **kwargs)

    return lookup


def main() -> None:
    import atheris

    # Coverage of fcsim's Python and of the standard library's HTTP reply parser (http.client and
    # the email package it reads headers with): guidance into the status line and headers.
    with atheris.instrument_imports(include=["fcsim", "http.client", "email"]):
        import fcsim.fetch  # noqa: F401
    harness = Harness(os.environ.get("FCSIM_FUZZ_TRANSPORT", "memory"))
    os.environ.update(harness.env)
    socket.getaddrinfo = loopback_only(socket.getaddrinfo)
    if harness.server is None:
        socket.create_connection = harness.connect  # type: ignore[assignment]
    atheris.Setup(sys.argv, harness.check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
