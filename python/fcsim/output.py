"""Result tables on disk: CSV, Parquet or JSON by extension, written atomically (a temporary
file beside the target, renamed over it only when complete)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
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


def check_path(path: str | os.PathLike[str]) -> None:
    """Fails early, before a run, on a table path fcsim cannot write."""
    _kind(Path(path))
    check_dir(path)


def rows_json(df: pd.DataFrame) -> list[str]:
    """One JSON object per row (nulls as null, numbers as numbers)."""
    return [json.dumps(r) for r in json.loads(df.to_json(orient="records"))]


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    p = Path(path)
    kind = _kind(p)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent if str(p.parent) else ".")
    os.close(fd)
    try:
        if kind == "csv":
            df.to_csv(tmp, index=False)
        elif kind == "parquet":
            df.to_parquet(tmp, index=False)
        elif kind == "json":
            df.to_json(tmp, orient="records", indent=1)
        else:
            Path(tmp).write_text("".join(line + "\n" for line in rows_json(df)))
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
