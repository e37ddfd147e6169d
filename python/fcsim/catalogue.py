"""The public traces fcsim knows (``catalogue.toml``, shipped in the package) and the trace cache
they are fetched into: ``$FCSIM_TRACE_DIR``, by default ``traces`` in the user's cache folder
(``$XDG_CACHE_HOME/fcsim`` or ``~/.cache/fcsim`` on Linux, ``~/Library/Caches/fcsim`` on macOS,
``%LOCALAPPDATA%\\fcsim\\Cache`` on Windows). A catalogue name is ``FAMILY/VOLUME``
(``msr/web_0``); ``fcsim run``, the API and experiment files take it wherever they take a trace
file and read the file from the cache. ``$FCSIM_CATALOGUE`` names another catalogue file."""

from __future__ import annotations

import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from fcsim._core import ConfigError, TraceError


@dataclass(frozen=True)
class Volume:
    """One fetchable (or placeable) trace file of a family."""

    family: dict[str, Any]
    name: str
    file: str
    md5: str | None = None
    archive: dict[str, Any] | None = None
    offset: int | None = None
    size: int | None = None
    notes: str = ""
    profiles: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.family['name']}/{self.name}"

    def path(self) -> Path:
        return trace_dir() / self.family["name"] / self.file


def families() -> list[dict[str, Any]]:
    """The catalogue's families: the shipped ``catalogue.toml``, or the file named by
    ``$FCSIM_CATALOGUE`` (a catalogue of one's own, in the same form: a private mirror)."""
    return _load(os.environ.get("FCSIM_CATALOGUE", ""))


@cache
def _load(path: str) -> list[dict[str, Any]]:
    try:
        if path:
            text = Path(path).read_text(encoding="utf-8")
        else:
            text = resources.files("fcsim").joinpath("catalogue.toml").read_text(encoding="utf-8")
        return list(tomllib.loads(text)["family"])
    except (OSError, tomllib.TOMLDecodeError, KeyError) as e:
        raise ConfigError(f"trace catalogue {path or 'catalogue.toml'}: {e}") from None


def _volume(fam: dict[str, Any], v: dict[str, Any]) -> Volume:
    archives = {a["name"]: a for a in fam.get("archives", [])}
    return Volume(
        family=fam,
        name=v["name"],
        file=v["file"],
        md5=v.get("md5"),
        archive=archives.get(v.get("archive", "")),
        offset=v.get("offset"),
        size=v.get("size"),
        notes=v.get("notes", ""),
        profiles=list(v.get("profiles", [])),
    )


def volumes(fam: dict[str, Any]) -> list[Volume]:
    return [_volume(fam, v) for v in fam.get("volume", [])]


def trace_dir() -> Path:
    """The trace cache: ``$FCSIM_TRACE_DIR``, or ``traces`` in the user's cache folder."""
    if env := os.environ.get("FCSIM_TRACE_DIR"):
        return Path(env).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        base = home / "Library" / "Caches" / "fcsim"
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", home / "AppData" / "Local")) / "fcsim" / "Cache"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "fcsim"
    return base / "traces"


def lookup(name: str) -> Volume | None:
    """The volume a catalogue name stands for; None when ``name`` is not of the form
    FAMILY/VOLUME with a known family. An unknown volume of a known family is an error."""
    fam_name, slash, vol = name.partition("/")
    fam = next((f for f in families() if f["name"] == fam_name), None)
    if not slash or fam is None or "/" in vol:
        return None
    for v in volumes(fam):
        if v.name == vol:
            return v
    mirror = fam.get("mirror", {})
    if "volume" in mirror and re.fullmatch(mirror["volume"], vol):
        ext = mirror["url"].rsplit("{volume}", 1)[1]
        return Volume(family=fam, name=vol, file=vol + ext)
    known = ", ".join(v.name for v in volumes(fam))
    if "volume" in mirror:
        # A family whose mirror names its volumes by a pattern: the pattern is the list.
        known = ", ".join(filter(None, [known, f"any name matching {mirror['volume']}"]))
    raise TraceError(
        f"{name}: no such file, and no volume '{vol}' in the catalogue's {fam_name} family "
        f"(volumes: {known or 'none listed'})"
    )


def resolve(trace: str, base: Path | None = None) -> str:
    """``trace`` (relative to ``base`` when given), unless it names a catalogue volume and no
    such file exists: then the volume's file in the trace cache, or a one-line error saying how
    to fetch it."""
    if trace.startswith("synth:"):
        return trace
    local = trace if base is None else str(base / trace)
    if os.path.exists(local):
        return local
    v = lookup(trace)
    if v is None:
        return local
    path = v.path()
    if not path.exists():
        how = (
            f"run 'fcsim trace fetch {v.key}'"
            if fetchable(v)
            else "the catalogue knows no mirror; put the file there by hand (fcsim trace catalogue)"
        )
        raise TraceError(f"{v.key}: not in the trace cache ({path}); {how}")
    return str(path)


def fetchable(v: Volume) -> bool:
    fam = v.family
    return bool(fam.get("archives")) or "{volume}" in fam.get("mirror", {}).get("url", "")


def _address(a: dict[str, Any]) -> str:
    where = a.get("url") or a.get("text", "")
    return where + (" (unchecked)" if a.get("checked") is False else "")


def listing() -> str:
    """The catalogue as ``fcsim trace catalogue`` prints it."""
    out: list[str] = [f"trace cache: {trace_dir()} (FCSIM_TRACE_DIR)"]
    for fam in families():
        out += [
            "",
            f"{fam['name']}: {fam['title']}",
            f"  format     {fam['format']}",
            f"  size       {fam['size']}",
            f"  source     {_address(fam['source'])}",
        ]
        for a in fam.get("archives", []):
            out.append(f"  mirror     {_address(a)}, {a['size']}")
        if "mirror" in fam:
            out.append(f"  mirror     {_address(fam['mirror'])}")
        elif not fam.get("archives"):
            out.append("  mirror     none known")
        out += [f"  checksums  {fam['checksums']}", f"  licence    {fam['licence']}"]
        out += [f"  note       {n}" for n in fam.get("notes", [])]
        for v in volumes(fam):
            parts = [f"  {v.key:<22}", v.file]
            if v.size is not None:
                parts.append(f"{v.size:,} B")
            if v.md5:
                parts.append(f"md5 {v.md5}")
            if v.archive is not None and v.offset is not None:
                parts.append(f"{v.archive['name']} header at {v.offset:,} (unchecked)")
            if v.profiles:
                parts.append("profiles " + ",".join(v.profiles))
            if v.path().exists():
                parts.append("[cached]")
            out.append("  ".join(parts))
            if v.notes:
                out.append(f"  {'':<22}{v.notes}")
    return "\n".join(out)
