"""Result tables on disk: CSV, Parquet or JSON by extension, written atomically (a temporary
file beside the target, renamed over it only when complete). Files get the permissions any new
file of the user gets (0666 less the umask: 0644 under umask 022), not a temporary file's 0600.
Every output path passes :func:`guard` before the work and again before the rename: an input, a
pipe, a device or a directory is never written over."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd

WRITERS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json", ".jsonl": "jsonl"}


def _error(message: str) -> Exception:
    from fcsim._core import ConfigError

    return ConfigError(message)


def _kind(path: Path) -> str:
    kind = WRITERS.get(path.suffix.lower())
    if kind is None:
        raise _error(f"{path}: unknown output type '{path.suffix}'; expected {', '.join(WRITERS)}")
    return kind


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def input_files(given: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """The files an input reads, each with how to name it in an error: a file itself, or the
    file inside a ``synth:`` spec (``synth:clone=PATH,...``: the trace or model the clone is
    made from, cut out as the core's ``CloneSpec::parse`` cuts it); a generator spec reads
    none."""
    text = os.fspath(given)
    if not text.startswith("synth:"):
        return [(text, text)]
    first = text[len("synth:") :].split(",")[0].strip()
    if first.startswith("clone=") and first[len("clone=") :]:
        path = first[len("clone=") :]
        return [(path, f"{path} (the clone source of {text})")]
    return []


def guard(
    path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = (), *, directory: bool = False
) -> Path:
    """The one check of every output path fcsim writes, run before the work starts and again by
    :func:`atomic` just before its rename. ConfigError, naming ``path`` as the user gave it,
    when writing there would destroy or misuse what is there: ``path`` is one of ``inputs``
    (the same file by device and inode, through symbolic or hard links; the file inside a
    ``synth:clone=PATH`` spec is an input too, see :func:`input_files`; inputs that do not
    exist are skipped), or exists and is not a regular file (a FIFO,
    a device, a socket, a directory), or is the file this process's standard output or error
    goes to and holds bytes already (``-o /dev/stdout >> log``: the output would replace the
    file whole, and them with it), or its directory does not exist. With ``directory``,
    ``path`` is an output directory: it may be missing (it is created, with its parents) but
    what exists there must be a directory.

    Returns the path to write: ``path``, or if it is a symbolic link the file it names, so that
    a link (such as ``/dev/stdout``) is never replaced by a file but its file is written, as a
    shell's ``>`` does."""
    p = Path(path)
    try:
        real = Path(os.path.realpath(p))
        # Through the link itself: /dev/stdout on a pipe resolves to a name (pipe:[N]) that is
        # no file, but stat of the link finds the pipe.
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as e:
        raise _error(f"{p}: cannot write there ({getattr(e, 'strerror', None) or e})") from None
    if directory:
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise _error(f"{p}: exists and is not a directory; expected an output directory")
        return p
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _error(f"{p}: is a directory; expected a file name")
        if not stat.S_ISREG(st.st_mode):
            raise _error(
                f"{p}: exists and is not a regular file (a pipe, fifo, device or socket); "
                "fcsim writes results to regular files only"
            )
        for file, name in (f for given in inputs for f in input_files(given)):
            try:
                same = _same_file(st, os.stat(file))
            except (OSError, ValueError):  # a missing input
                continue
            if same:
                raise _error(f"{p}: is the input {name}; writing there would destroy it, give another output")
        for fd, stream in ((1, "output"), (2, "error")):
            try:
                ours = _same_file(st, os.fstat(fd))
            except OSError:  # the stream is closed
                continue
            if ours and st.st_size > 0:
                # `-o /dev/stdout >> log`: the file would be replaced whole, and what was in it
                # lost.
                raise _error(
                    f"{p}: is this process's standard {stream}, the file {real}, which holds "
                    f"{st.st_size:,} bytes already; fcsim writes an output whole, in place of "
                    "what is there, which would lose them: give a file of its own"
                )
    target = real if p.is_symlink() else p
    if not target.parent.is_dir():
        raise _error(f"{p}: directory {target.parent} does not exist")
    return target


def beside(path: str | os.PathLike[str], tag: str) -> str:
    """The path of a second output beside ``path``: ``R.parquet`` -> ``R.epochs.parquet`` (the
    tag before the extension, so the kind stays the same)."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}.{tag}{p.suffix}"))


def check_path(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> str:
    """Fails early, before a run, on a table path fcsim cannot or must not write (see
    :func:`guard`); returns the table's kind (csv, parquet, json or jsonl)."""
    kind = _kind(Path(path))
    guard(path, inputs)
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
    p = Path(os.path.realpath(path))
    parent = p.parent
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
def atomic(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> Iterator[Path]:
    """Yields a new, empty temporary file beside ``path`` (``.NAME.PID.N.tmp``, created as any
    new file is, mode 0666 less the umask) to be written by name; renames it over ``path`` (or
    the file it links to) when the block ends, after checking ``path`` again with :func:`guard`
    (what appeared there meanwhile is refused, never replaced), or removes it on an error or an
    interrupt. An OSError while the temporary file is written or renamed names ``path``, not
    the temporary file. One left by a killed process is removed by :func:`remove_stale`."""
    inputs = list(inputs)
    p = Path(path)
    target = guard(p, inputs)
    try:
        for i in itertools.count():
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{i}.tmp")
            try:
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
                break
            except FileExistsError:
                continue
    except OSError as e:
        raise OSError(f"{p}: cannot write ({e.strerror or e})") from None
    try:
        try:
            yield tmp
            os.replace(tmp, guard(p, inputs))
        except OSError as e:
            raise OSError(f"{p}: cannot write ({e.strerror or e})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_table(
    df: pd.DataFrame, path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()
) -> None:
    """Writes ``df`` to ``path`` as its extension says, atomically (see :func:`atomic`)."""
    kind = _kind(Path(path))
    with atomic(path, inputs) as tmp:
        if kind == "csv":
            df.to_csv(tmp, index=False)
        elif kind == "parquet":
            df.to_parquet(tmp, index=False)
        elif kind == "json":
            df.to_json(tmp, orient="records", indent=1)
        else:
            tmp.write_text("".join(line + "\n" for line in rows_json(df)))


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Writes ``text`` to ``path``, atomically (see :func:`atomic`)."""
    with atomic(path) as tmp:
        tmp.write_text(text)
