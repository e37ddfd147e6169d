"""Result tables on disk: CSV, Parquet or JSON by extension, written atomically (a temporary
file beside the target, renamed over it only when complete). Files get the permissions any new
file of the user gets (0666 less the umask: 0644 under umask 022), not a temporary file's 0600."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

WRITERS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json", ".jsonl": "jsonl"}


def _kind(path: Path) -> str:
    kind = WRITERS.get(path.suffix.lower())
    if kind is None:
        from fcsim._core import ConfigError

        raise ConfigError(f"{path}: unknown output type '{path.suffix}'; expected {', '.join(WRITERS)}")
    return kind


def check_dir(path: str | os.PathLike[str]) -> None:
    """Fails early, before a run, when the directory of an output file does not exist."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OSError(f"{p}: directory {parent} does not exist")


def check_path(path: str | os.PathLike[str]) -> str:
    """Fails early, before a run, on a table path fcsim cannot write; returns the table's kind
    (csv, parquet, json or jsonl)."""
    kind = _kind(Path(path))
    check_dir(path)
    return kind


def rows_json(df: pd.DataFrame) -> list[str]:
    """One JSON object per row (nulls as null, numbers as numbers)."""
    return [json.dumps(r) for r in json.loads(df.to_json(orient="records"))]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale(path: str | os.PathLike[str]) -> list[Path]:
    """Removes the temporary files :func:`atomic` left beside ``path`` when its process was
    killed outright (those of a process that still runs are kept); returns them."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    pattern = re.compile(rf"\.{re.escape(p.name)}\.(\d+)\.\d+\.tmp")
    gone = []
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            m = pattern.fullmatch(entry.name)
            if m and not _alive(int(m.group(1))):
                with contextlib.suppress(OSError):
                    entry.unlink()
                    gone.append(entry)
    return gone


@contextlib.contextmanager
def atomic(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields a new, empty temporary file beside ``path`` (``.NAME.PID.N.tmp``, created as any
    new file is, mode 0666 less the umask) to be written by name; renames it over ``path`` when
    the block ends, or removes it on an error or an interrupt. One left by a killed process is
    removed by :func:`remove_stale`."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    for i in itertools.count():
        tmp = parent / f".{p.name}.{os.getpid()}.{i}.tmp"
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    try:
        yield tmp
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    kind = _kind(Path(path))
    with atomic(path) as tmp:
        if kind == "csv":
            df.to_csv(tmp, index=False)
        elif kind == "parquet":
            df.to_parquet(tmp, index=False)
        elif kind == "json":
            df.to_json(tmp, orient="records", indent=1)
        else:
            tmp.write_text("".join(line + "\n" for line in rows_json(df)))
