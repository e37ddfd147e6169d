"""``fcsim trace fetch``: downloads a catalogue volume into the trace cache, with the standard
library's HTTP client only.

A volume inside a tar archive (the MSR Cambridge mirror) is fetched by byte ranges: its 512 B tar
header at the catalogue's offset, checked for the member's name and size, then exactly its
bytes; without an offset (or when the header there names another member) the archive's headers
are read one range at a time until the member is found. A broken connection resumes from the
bytes already written (``NAME.part`` beside the final file; the next ``fetch`` resumes it too).
The MD5 is checked where the catalogue has one: a mismatch removes the download and fails. The
file gets its final name by an atomic rename, so a file under that name is always whole.

The server is not trusted (issue 24). Every wait is bounded: connecting (``connect_timeout``),
a reply that sends nothing (``stall_timeout``) and the whole fetch (``deadline``). A reply is
streamed to the file, never held whole; one that sends more than the range asked for is
refused. A broken connection is resumed at most ``retries`` times, each only after a connection
that brought bytes. A download is whole when the server's length (``Content-Length``, or a
range's end) or a chunked body's last chunk is reached, and its MD5 matches where the catalogue
has one; a body that just stops, with neither a length nor a chunked end, counts only if an MD5
vouches for it, else it is refused and removed. Every failure is one ``FetchError`` line, and
every message (errors and notes) passes through ``terminal.printable``, so text from the server
(a reason phrase, a header, a tar member's name) cannot drive the terminal."""

from __future__ import annotations

import functools
import hashlib
import http.client
import io
import math
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from fcsim import checks
from fcsim._core import ConfigError
from fcsim.catalogue import Volume, families, fetchable, lookup
from fcsim.terminal import printable

BLOCK = 512
CHUNK = 1 << 16
#: The longest GNU long name or pax extended header read (each names one member).
EXTENDED = 1 << 20
#: Redirections followed for one request.
REDIRECTS = 5

Progress = Callable[[int, int], object]


class FetchError(OSError):
    """A fetch that failed; the message is one printable line naming the volume."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


class _Deadline(Exception):
    """The fetch's deadline passed, in a request or a read; ``fetch`` names the volume."""


def fetch(
    name: str,
    progress: Progress | None = None,
    note: Callable[[str], object] | None = None,
    *,
    connect_timeout: float = 30.0,
    stall_timeout: float = 60.0,
    deadline: float = 3600.0,
    retries: int = 5,
) -> Path:
    """Downloads catalogue volume ``name`` (``msr/web_0``) into the trace cache unless it is there;
    returns its path, a whole file. ``progress(bytes_done, bytes_total)`` is called as data
    arrives; ``note`` gets one-line remarks (no checksum to verify, a catalogue offset that did
    not hold). Seconds: ``connect_timeout`` to connect, ``stall_timeout`` for a reply to send
    anything, ``deadline`` for the whole fetch; ``retries`` resumptions after broken
    connections. A bad argument raises ConfigError, a failed fetch FetchError; what was
    received stays in ``FILE.part`` for the next fetch to resume, unless it is known bad."""
    name = checks.text("name", name)
    checks.callback(progress)
    say = _escaped(checks.callback(note, "note"))
    connect_timeout = _seconds("connect_timeout", connect_timeout)
    stall_timeout = _seconds("stall_timeout", stall_timeout)
    deadline = _seconds("deadline", deadline)
    retries = checks.integer("retries", retries)
    v = lookup(name)
    if v is None and any(f["name"] == name for f in families()):
        raise FetchError(
            f"{name}: a family of the trace catalogue; fetch one of its volumes, {name}/VOLUME "
            "(fcsim trace catalogue lists them)"
        )
    if v is None:
        raise FetchError(f"{name}: not in the trace catalogue (fcsim trace catalogue lists it)")
    dest = v.path()
    if dest.exists():
        return dest
    if not fetchable(v):
        raise FetchError(f"{name}: the catalogue knows no mirror to fetch it from; put the file at {dest}")
    s = _Session(v.key, connect_timeout, stall_timeout, deadline, retries)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    try:
        if v.family.get("archives"):
            url, start, size = s.member(v, say)
        else:
            url, start, size = v.family["mirror"]["url"].format(volume=v.name), 0, None
        whole = s.download(url, start, size, part, progress)
    except _Deadline:
        raise FetchError(f"{v.key}: not done within the deadline of {deadline:g} s{_kept(part)}") from None
    except FetchError as e:
        raise FetchError(f"{e}{_kept(part)}") from None
    if v.md5:
        got = _md5(part)
        if got != v.md5:
            part.unlink()
            raise FetchError(
                f"{v.key}: MD5 of the download is {got}, the catalogue says {v.md5}; removed it, "
                f"nothing kept as {dest}"
            )
    elif not whole:
        n = part.stat().st_size
        part.unlink()
        raise FetchError(
            f"{v.key}: GET {url}: the server sent neither a length nor a chunked end, and the catalogue has "
            f"no checksum, so the {n:,} bytes received may be cut short; removed them, nothing kept as {dest}"
        )
    else:
        say(f"{v.key}: no published checksum, so the download is not verified")
    os.replace(part, dest)
    return dest


def _seconds(name: str, value: Any) -> float:
    """``value`` if it is a finite number of seconds above 0; else ConfigError naming it."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise ConfigError(f"{name}={value!r}: expected a number of seconds above 0")
    return float(value)


def _escaped(note: Callable[[str], object] | None) -> Callable[[str], object]:
    """``note`` (or nothing), given every message through ``printable``."""
    return (lambda _: None) if note is None else (lambda message: note(printable(message)))


def _kept(part: Path) -> str:
    """What a failed fetch leaves behind, as the end of its message."""
    n = part.stat().st_size if part.exists() else 0
    return f"; {part} keeps the {n:,} bytes received, for the next fetch to resume" if n else ""


def _md5(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


class _Session:
    """The requests of one volume's fetch, within its limits."""

    def __init__(
        self, key: str, connect_timeout: float, stall_timeout: float, deadline: float, retries: int
    ) -> None:
        self.key = key
        self.connect_timeout, self.stall_timeout, self.retries = connect_timeout, stall_timeout, retries
        self.deadline = time.monotonic() + deadline
        self.opener = urllib.request.OpenerDirector()
        # urllib's default handlers but the redirection one: _get follows redirections itself,
        # without reading their bodies (urllib reads one whole into memory).
        for handler in (
            urllib.request.ProxyHandler(),
            urllib.request.UnknownHandler(),
            _HTTP(self),
            _HTTPS(self),
            urllib.request.HTTPDefaultErrorHandler(),
            urllib.request.HTTPErrorProcessor(),
        ):
            self.opener.add_handler(handler)

    def left(self) -> float:
        """Seconds until the deadline; raises _Deadline once it has passed."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Deadline
        return left

    def error(self, url: str, why: str) -> FetchError:
        return FetchError(f"{self.key}: GET {url}: {why}")

    def why(self, e: BaseException) -> str:
        """An exception of the HTTP client or the socket as the reason in a message."""
        if isinstance(e, TimeoutError):
            return f"nothing received for {self.stall_timeout:g} s"
        if isinstance(e, http.client.IncompleteRead):
            return "a chunk cut short or malformed"
        return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__

    def download(self, url: str, start: int, size: int | None, part: Path, progress: Progress | None) -> bool:
        """``copy`` into ``part``, after the bytes it holds (those of an earlier fetch)."""
        have = part.stat().st_size if part.exists() else 0
        if size is not None and have > size:
            have = 0
        with part.open("r+b" if have else "wb") as f:
            f.truncate(have)
            f.seek(have)
            return self.copy(url, start, size, f, progress)

    def read(self, url: str, start: int, stop: int) -> bytes:
        """Bytes [start, stop) of ``url``, exactly."""
        buf = io.BytesIO()
        self.copy(url, start, stop - start, buf)
        return buf.getvalue()

    def copy(
        self, url: str, start: int, size: int | None, out: IO[bytes], progress: Progress | None = None
    ) -> bool:
        """Writes ``url``'s bytes from ``start`` (``size`` of them, or to its end when None) to
        ``out``, after the ``out.tell()`` bytes it holds; resumes a broken connection at most
        ``retries`` times, each only after a connection that brought bytes; else FetchError.
        Returns whether the end is known: ``size`` bytes, the server's length or a chunked
        body's last chunk reached. False: the body just stopped, which may be a cut."""
        have, breaks = out.tell(), 0
        while size is None or have < size:
            stop = None if size is None else start + size
            want = None if stop is None else stop - have - start
            resp, length = self._get(url, start + have, stop)
            total = size if size is not None else None if length is None else have + length
            got, broke = 0, None  # why the reply stopped short of what it said; None: it did not
            with resp:
                if want is not None and length is not None and length > want:
                    raise self.error(
                        url, f"a reply of {length:,} bytes: more than the {want:,} bytes asked for"
                    )
                while True:
                    try:
                        piece = resp.read1(CHUNK if want is None else min(CHUNK, want - got + 1))
                    except (OSError, http.client.HTTPException) as e:
                        broke = self.why(e)
                        break
                    if not piece:
                        if length is not None and got < length:
                            broke = f"{got:,} of the {length:,} bytes of the reply"
                        break
                    got += len(piece)
                    if want is not None and got > want:
                        raise self.error(
                            url, f"a reply of at least {got:,} bytes: more than the {want:,} bytes asked for"
                        )
                    out.write(piece)
                    if progress is not None:
                        progress(have + got, total or have + got)
            have += got
            if size is None and broke is None:
                return resp.chunked or length is not None
            self.left()
            breaks += 1
            if not got or breaks > self.retries:
                why = broke or "the reply ended early"
                raise self.error(url, f"the connection broke {breaks} times, at byte {have:,} ({why})")
        return True

    def _get(self, url: str, start: int, stop: int | None) -> tuple[http.client.HTTPResponse, int | None]:
        """An open reply with bytes [start, stop) of ``url`` (to its end when ``stop`` is None),
        redirections followed, and the number of bytes it says it brings (None: it does not say);
        FetchError for anything else."""
        rng = f"bytes={start}-" + ("" if stop is None else str(stop - 1))
        for _ in range(REDIRECTS + 1):
            req = urllib.request.Request(url, headers={"Range": rng, "User-Agent": "fcsim"})
            try:
                resp = self.opener.open(req, timeout=min(self.connect_timeout, self.left()))
            except urllib.error.HTTPError as e:
                e.close()
                location = e.headers.get("Location") if e.headers else None
                if e.code in (301, 302, 303, 307, 308) and location:
                    url = self._redirect(url, location)
                    continue
                raise self.error(url, f"HTTP {e.code} {e.reason}") from None
            except urllib.error.URLError as e:
                self.left()  # a connect timeout cut short by the deadline is the deadline's failure
                reason = getattr(e.reason, "strerror", None) or str(e.reason)
                host = urllib.parse.urlsplit(url).netloc
                raise FetchError(
                    f"{self.key}: cannot reach {host} ({reason}); fetching needs the network"
                ) from None
            except http.client.HTTPException as e:
                raise self.error(url, f"not an HTTP reply ({self.why(e)})") from None
            except (OSError, ValueError) as e:
                self.left()
                raise self.error(url, f"the request failed ({self.why(e)})") from None
            return resp, self._length(resp, url, start, stop)
        raise self.error(url, f"more than {REDIRECTS} redirections")

    def _redirect(self, url: str, location: str) -> str:
        """The address a redirection from ``url`` to ``location`` leads to: http or https."""
        try:
            new = urllib.parse.urljoin(url, location)
            if urllib.parse.urlsplit(new).scheme in ("http", "https"):
                return new
        except ValueError:
            pass
        raise self.error(url, f"a redirection to {location!r}, not an HTTP address")

    def _length(self, resp: http.client.HTTPResponse, url: str, start: int, stop: int | None) -> int | None:
        """The bytes reply ``resp`` to a request for [start, stop) says it brings (None: it does
        not say), once its status and ranges are checked; else it is closed and FetchError."""
        status, ranged = resp.status, start > 0 or stop is not None
        length = resp.length
        problem = ""
        if status == 200 and ranged:
            problem = f"the server ignored the byte range (HTTP {status})"
        elif status not in (200, 206):
            problem = f"HTTP {status} {resp.reason}, not 200 OK or 206 Partial Content"
        elif not resp.chunked and not re.fullmatch(
            r"[0-9]+", resp.headers.get("Content-Length", "0").strip()
        ):
            problem = f"Content-Length {resp.headers['Content-Length']!r} is not a number of bytes"
        elif status == 206:
            value = resp.headers.get("Content-Range", "")
            m = re.fullmatch(r"bytes ([0-9]+)-([0-9]+)/([0-9]+|\*)", value.strip())
            if m is None or int(m[1]) != start or int(m[2]) < start:
                problem = f"Content-Range {value!r} in reply to a request from byte {start:,}"
            elif length is None and not resp.chunked:
                length = int(m[2]) - start + 1
        if problem:
            resp.close()
            raise self.error(url, problem)
        return length

    def member(self, v: Volume, say: Callable[[str], object]) -> tuple[str, int, int]:
        """(archive URL, first byte, size) of the volume's tar member."""
        fam = v.family
        member = fam["member"].format(file=v.file)
        if v.archive is not None and v.offset is not None:
            url, where = v.archive["url"], f"byte {v.offset:,} of {v.archive['name']}"
            expected = member if v.size is None else f"{member} of {v.size:,} bytes"
            walking = "reading the archive's headers"
            try:
                name, size, _ = _tar_header(self.read(url, v.offset, v.offset + BLOCK))
            except ValueError as e:
                say(f"{v.key}: the block at {where} is not {expected}'s tar header ({e}); {walking}")
            else:
                if name == member and (v.size is None or size == v.size):
                    return url, v.offset + BLOCK, size
                found = f"{name} of {size:,} bytes"
                say(f"{v.key}: the tar header at {where} is {found}, not {expected}; {walking}")
        archives = sorted(fam["archives"], key=lambda a: a is not v.archive)
        for a in archives:
            found = self.walk(a, member)
            if found is not None:
                if v.size is not None and found[1] != v.size:
                    raise FetchError(
                        f"{v.key}: {a['name']} holds {member} of {found[1]:,} bytes, not {v.size:,}"
                    )
                return a["url"], *found
        names = ", ".join(a["name"] for a in archives)
        raise FetchError(f"{v.key}: no member {member} in {names}")

    def walk(self, archive: dict[str, Any], member: str) -> tuple[int, int] | None:
        """(first byte, size) of ``member`` in ``archive``, reading one header at a time."""
        url, offset, long_name = archive["url"], 0, None
        while True:
            where = f"byte {offset:,} of {archive['name']}"
            try:
                name, size, kind = _tar_header(self.read(url, offset, offset + BLOCK))
            except ValueError as e:
                raise FetchError(f"{self.key}: the tar header at {where}: {e}") from None
            if not name:
                return None
            data = offset + BLOCK
            if kind in (b"L", b"x"):  # GNU long name, pax extended header: they name the next member
                if size > EXTENDED:
                    raise FetchError(
                        f"{self.key}: the tar header at {where}: an extended header of {size:,} bytes"
                    )
                body = self.read(url, data, data + size)
                if kind == b"L":
                    long_name = body.rstrip(b"\0").decode("utf-8", "replace")
                else:
                    long_name = _pax_path(body) or long_name
            else:
                if (long_name or name) == member and kind in (b"0", b"\0"):
                    return data, size
                long_name = None
            offset = data + -(-size // BLOCK) * BLOCK


class _Paced(io.RawIOBase):
    """A reply's socket, every read of which waits at most the stall timeout, and never past
    the deadline (a trickle of bytes cannot hold the fetch longer)."""

    def __init__(self, raw: io.RawIOBase, sock: socket.socket, session: _Session) -> None:
        self.raw, self.sock, self.session = raw, sock, session

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int | None:
        self.sock.settimeout(min(self.session.stall_timeout, self.session.left()))
        return self.raw.readinto(b)

    def close(self) -> None:
        self.raw.close()
        super().close()


class _Response(http.client.HTTPResponse):
    """A reply read through ``_Paced``."""

    def __init__(self, sock: socket.socket, *args: Any, session: _Session, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = io.BufferedReader(_Paced(self.fp.detach(), sock, session))


class _Paces:
    """urllib's HTTP(S) handler, whose connections read their replies as ``_Response``."""

    def __init__(self, session: _Session, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session = session

    def do_open(self, http_class: Any, req: urllib.request.Request, **kwargs: Any) -> Any:
        def connection(host: str, **kw: Any) -> http.client.HTTPConnection:
            conn = http_class(host, **kw)
            conn.response_class = functools.partial(_Response, session=self.session)
            return conn

        return super().do_open(connection, req, **kwargs)  # type: ignore[misc]


class _HTTP(_Paces, urllib.request.HTTPHandler):
    pass


class _HTTPS(_Paces, urllib.request.HTTPSHandler):
    pass


def _tar_header(h: bytes) -> tuple[str, int, bytes]:
    """(name, size, type flag) of the 512 B tar header ``h``; name '' at the end of the archive
    (a block of zeros). ValueError saying why when ``h`` is not a tar header."""
    if not any(h):
        return "", 0, b""
    unsigned = sum(h[:148]) + 8 * 32 + sum(h[156:])
    signed = unsigned - 256 * sum(1 for b in h[:148] + h[156:] if b > 127)
    if _octal(h[148:156], "checksum") not in (unsigned, signed):
        raise ValueError("its checksum does not match: not a tar header")
    name = h[:100].split(b"\0", 1)[0].decode("utf-8", "replace")
    if h[257:263] == b"ustar\0" and h[345]:
        name = h[345:500].split(b"\0", 1)[0].decode("utf-8", "replace") + "/" + name
    raw = h[124:136]
    size = int.from_bytes(raw[1:], "big") if raw[0] & 0x80 else _octal(raw, "size")
    return name, size, h[156:157]


def _octal(field: bytes, what: str) -> int:
    """A tar header's octal number field (digits up to a NUL, spaces around them)."""
    digits = field.split(b"\0", 1)[0].strip(b" ")
    if not re.fullmatch(rb"[0-7]*", digits):
        raise ValueError(f"its {what} field {field!r} is not an octal number")
    return int(digits or b"0", 8)


def _pax_path(body: bytes) -> str | None:
    for record in body.decode("utf-8", "replace").splitlines():
        _, _, kv = record.partition(" ")
        if kv.startswith("path="):
            return kv[5:]
    return None
