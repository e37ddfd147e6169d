"""``fcsim trace fetch``: downloads a catalogue volume into the trace cache, with the standard
library's HTTP client only.

A volume inside a tar archive (the MSR Cambridge mirror) is fetched by byte ranges: its 512 B tar
header at the catalogue's offset, checked for the member's name and size, then exactly its
bytes; without an offset (or when the header there names another member) the archive's headers
are read one range at a time until the member is found. A broken connection resumes from the
bytes already written (``NAME.part`` beside the final file; the next ``fetch`` resumes it too).
The MD5 is checked where the catalogue has one: a mismatch removes the download and fails. The
file gets its final name by an atomic rename, so a file under that name is always whole."""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fcsim.catalogue import Volume, fetchable, lookup

BLOCK = 512
CHUNK = 1 << 16
TIMEOUT_S = 30
# Consecutive failed attempts (no byte received) before giving up on a connection.
ATTEMPTS = 4

Progress = Callable[[int, int], object]


class FetchError(OSError):
    """A fetch that failed; the message is one line naming the volume."""


def fetch(name: str, progress: Progress | None = None, note: Callable[[str], object] | None = None) -> Path:
    """Downloads catalogue volume ``name`` (``msr/web_0``) into the trace cache unless it is there;
    returns its path. ``progress(bytes_done, bytes_total)`` is called as data arrives; ``note``
    gets one-line remarks (no checksum to verify, a catalogue offset that did not hold)."""
    v = lookup(name)
    if v is None:
        raise FetchError(f"{name}: not in the trace catalogue (fcsim trace catalogue lists it)")
    dest = v.path()
    if dest.exists():
        return dest
    if not fetchable(v):
        raise FetchError(f"{name}: the catalogue knows no mirror to fetch it from; put the file at {dest}")
    say = note or (lambda _: None)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    if v.family.get("archives"):
        url, start, size = _member(v, say)
    else:
        url, start, size = v.family["mirror"]["url"].format(volume=v.name), 0, None
    _download(v.key, url, start, size, part, progress)
    if v.md5:
        got = _md5(part)
        if got != v.md5:
            part.unlink()
            raise FetchError(
                f"{v.key}: MD5 of the download is {got}, the catalogue says {v.md5}; removed it, "
                f"nothing kept as {dest}"
            )
    else:
        say(f"{v.key}: no published checksum, so the download is not verified")
    os.replace(part, dest)
    return dest


def _md5(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _get(key: str, url: str, start: int, end: int | None) -> Any:
    """An open response for bytes [start, end) of ``url`` (to its end when ``end`` is None)."""
    rng = f"bytes={start}-" + ("" if end is None else str(end - 1))
    req = urllib.request.Request(url, headers={"Range": rng, "User-Agent": "fcsim"})
    try:
        resp = urllib.request.urlopen(req, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as e:
        raise FetchError(f"{key}: GET {url}: HTTP {e.code} {e.reason}") from None
    except urllib.error.URLError as e:
        reason = getattr(e.reason, "strerror", None) or str(e.reason)
        host = urllib.parse.urlsplit(url).netloc
        raise FetchError(f"{key}: cannot reach {host} ({reason}); fetching needs the network") from None
    if resp.status != 206 and (start > 0 or end is not None):
        resp.close()
        raise FetchError(f"{key}: GET {url}: the server ignored the byte range (HTTP {resp.status})")
    return resp


def _read(key: str, url: str, start: int, end: int) -> bytes:
    """Bytes [start, end) of ``url``, exactly."""
    with _get(key, url, start, end) as resp:
        data = resp.read()
    if len(data) != end - start:
        raise FetchError(f"{key}: GET {url}: {len(data)} bytes for a range of {end - start}")
    return data


def _download(
    key: str, url: str, start: int, size: int | None, part: Path, progress: Progress | None
) -> None:
    """Appends ``url``'s bytes from ``start`` (``size`` of them, or to the end) to ``part``,
    resuming from what ``part`` holds, reconnecting after a broken connection."""
    have = part.stat().st_size if part.exists() else 0
    if size is not None and have > size:
        have = 0
    failures = 0
    with part.open("r+b" if have else "wb") as f:
        f.truncate(have)
        f.seek(have)
        while size is None or have < size:
            try:
                resp = _get(key, url, start + have, None if size is None else start + size)
            except FetchError:
                if have and failures < ATTEMPTS:  # the connection broke once data had flowed
                    failures += 1
                    continue
                raise
            with resp:
                length = resp.headers.get("Content-Length")
                total = size if size is not None else have + int(length) if length else None
                try:
                    while chunk := resp.read(CHUNK):
                        f.write(chunk)
                        have += len(chunk)
                        failures = 0
                        if progress is not None:
                            progress(have, total or have)
                except (OSError, http.client.HTTPException):
                    pass  # a broken connection: resume below
            if total is None or have >= total:
                return
            failures += 1
            if failures > ATTEMPTS:
                raise FetchError(f"{key}: GET {url}: the connection broke {failures} times at byte {have:,}")


def _member(v: Volume, say: Callable[[str], object]) -> tuple[str, int, int]:
    """(archive URL, first byte, size) of the volume's tar member."""
    fam = v.family
    member = fam["member"].format(file=v.file)
    if v.archive is not None and v.offset is not None:
        url = v.archive["url"]
        name, size, _ = _header(v.key, url, v.offset)
        if name == member and (v.size is None or size == v.size):
            return url, v.offset + BLOCK, size
        say(
            f"{v.key}: the tar header at byte {v.offset:,} of {v.archive['name']} is {name} of {size:,} "
            f"bytes, not {member} of {v.size:,}; reading the archive's headers"
        )
    archives = sorted(fam["archives"], key=lambda a: a is not v.archive)
    for a in archives:
        found = _walk(v.key, a["url"], member)
        if found is not None:
            if v.size is not None and found[1] != v.size:
                raise FetchError(f"{v.key}: {a['name']} holds {member} of {found[1]:,} bytes, not {v.size:,}")
            return a["url"], *found
    names = ", ".join(a["name"] for a in archives)
    raise FetchError(f"{v.key}: no member {member} in {names}")


def _header(key: str, url: str, offset: int) -> tuple[str, int, bytes]:
    """(name, size, type flag) of the tar header at ``offset``; name '' at the end of the archive."""
    h = _read(key, url, offset, offset + BLOCK)
    if not any(h):
        return "", 0, b""
    name = h[:100].split(b"\0", 1)[0].decode("utf-8", "replace")
    if h[257:263] == b"ustar\0" and h[345]:
        name = h[345:500].split(b"\0", 1)[0].decode("utf-8", "replace") + "/" + name
    raw = h[124:136]
    size = int.from_bytes(raw[1:], "big") if raw[0] & 0x80 else int(raw.strip(b"\0 ") or b"0", 8)
    return name, size, h[156:157]


def _walk(key: str, url: str, member: str) -> tuple[int, int] | None:
    """(first byte, size) of ``member`` in the tar at ``url``, reading one header at a time."""
    offset, long_name = 0, None
    while True:
        name, size, kind = _header(key, url, offset)
        if not name:
            return None
        data = offset + BLOCK
        if kind in (b"L", b"x"):  # GNU long name, pax extended header: they name the next member
            body = _read(key, url, data, data + size)
            long_name = body.rstrip(b"\0").decode() if kind == b"L" else _pax_path(body) or long_name
        else:
            if (long_name or name) == member and kind in (b"0", b"\0"):
                return data, size
            long_name = None
        offset = data + -(-size // BLOCK) * BLOCK


def _pax_path(body: bytes) -> str | None:
    for record in body.decode("utf-8", "replace").splitlines():
        _, _, kv = record.partition(" ")
        if kv.startswith("path="):
            return kv[5:]
    return None
