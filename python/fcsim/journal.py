"""The journal of a sweep: its finished points, appended one record each as they finish, beside
the table (``OUT.journal``), so that a sweep killed outright (``kill -9``) between two table
writes loses no finished point. A record is handed to the OS at once, not synced to the disk: it
survives the process, not a power cut.

The file starts with the line ``fcsim-journal 1``; each record is one line,
``CRC32 JSON-ROW``, the CRC32 (8 hex digits) of the JSON text. A record is written by one
``write`` as soon as its point finishes, by the pool worker that computed it (so no finished
point waits in a pipe or a queue for the sweep to record it), or by the sweep for a point that
comes back from a Dask cluster. The file is opened for appending, so records written at once by
several workers land whole one after the other (on a local file system). A record cut short (no
newline, a CRC that does not match, JSON that does not parse into a row with a ``point`` key)
is dropped when the journal is read, never taken for a row: its point runs again. The sweep
merges the journal into the table when it starts, empties it before its pool starts, and
removes it once its pool is stopped and the table holds every record. An exclusive lock on the
journal keeps a second sweep off the same table while one runs (the lock goes with the process,
also on ``kill -9``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import zlib
from pathlib import Path
from typing import Any

from fcsim._core import ConfigError

MAGIC = b"fcsim-journal 1\n"


def path_of(out: str | os.PathLike[str]) -> Path:
    """The journal of the table ``out``."""
    p = Path(out)
    return p.with_name(p.name + ".journal")


def encode(row: dict[str, Any]) -> bytes:
    """One record: ``CRC32 JSON\\n``."""
    text = json.dumps(row, separators=(",", ":")).encode()
    return b"%08x %s\n" % (zlib.crc32(text), text)


def decode(data: bytes, where: Path) -> tuple[list[dict[str, Any]], int]:
    """The rows of a journal's bytes, and how many records were dropped as torn or corrupt."""
    if MAGIC.startswith(data):  # empty, or killed while writing its first line
        return [], 0
    if not data.startswith(MAGIC):
        raise ConfigError(f"{where}: exists and is not an fcsim sweep journal; move it away")
    rows, dropped = [], 0
    body = data[len(MAGIC) :]
    lines = body.split(b"\n")
    # The last piece is empty when the journal ends with a whole record; else a torn one.
    for i, line in enumerate(lines):
        if i == len(lines) - 1:
            dropped += bool(line)
            break
        row = _record(line)
        if row is None:
            dropped += 1
        else:
            rows.append(row)
    return rows, dropped


def _record(line: bytes) -> dict[str, Any] | None:
    crc, _, text = line.partition(b" ")
    if len(crc) != 8 or not text:
        return None
    try:
        if int(crc, 16) != zlib.crc32(text):
            return None
        row = json.loads(text)
    except ValueError:
        return None
    if not isinstance(row, dict) or not isinstance(row.get("point"), str):
        return None
    return row


def record(path: Path, row: dict[str, Any]) -> None:
    """Records a finished point in the journal at ``path`` from the pool worker that computed it,
    while the sweep holds the lock. A journal that is gone belongs to a sweep that ended (this
    worker outlived it): the point is not recorded, and runs again if it is not in the table."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except FileNotFoundError:
        return
    try:
        os.write(fd, encode(row))
    finally:
        os.close(fd)


class Journal:
    """The journal of the table ``out``, opened and locked for one sweep."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.path = path_of(out)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise ConfigError(
                    f"{self.path}: another sweep is writing {Path(out)}; wait for it or give another --out"
                ) from None
            # The sweep that held the lock may have removed the file before we locked it.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd: int | None = fd

    def read(self) -> tuple[list[dict[str, Any]], int]:
        """The rows of finished points recorded so far, and how many torn records were dropped."""
        assert self.fd is not None
        size = os.fstat(self.fd).st_size
        return decode(os.pread(self.fd, size, 0), self.path)

    def append(self, row: dict[str, Any]) -> None:
        """Records a finished point (one write, before the next point is looked at)."""
        assert self.fd is not None
        os.write(self.fd, encode(row))

    def clear(self) -> None:
        """Empties the journal (every row it held is in the table), ready for records."""
        assert self.fd is not None
        os.ftruncate(self.fd, 0)
        os.write(self.fd, MAGIC)

    def remove(self) -> None:
        """Removes the journal (every row it held is in the table) and lets go of the lock."""
        if self.fd is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            self.close()

    def close(self) -> None:
        """Lets go of the lock, keeping the file (it holds rows the table lacks)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
