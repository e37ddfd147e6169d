"""Checks of what a caller gives, each a one-line ConfigError naming the option: integers as
a numpy user writes them, booleans, text, paths, callbacks, sizes, lists; registered policy and
device names; the ``--set`` map, which the core splits and parses (:func:`sections`); and
:class:`Problems`, a grid's bad inputs collected into one error.

Low in the package (it imports the core and :mod:`fcsim.registry` only), so the API, sweeps
and ``fetch`` share it.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fcsim import _core, registry
from fcsim._core import ConfigError

Progress = Callable[[int, int], object]

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


def whole(value: Any) -> bool:
    """Whether ``value`` is an integer as a numpy user writes one: an ``int`` or a numpy
    integer (``np.int64``), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def integer(name: str, value: Any, low: int = 0, high: int = U32_MAX) -> int:
    """``value`` as an int if it is an integer (:func:`whole`) from ``low`` to ``high`` (the
    core's range for the option); else ConfigError naming the option."""
    if not whole(value) or not low <= value <= high:
        raise ConfigError(f"{name}={value!r}: expected an integer from {low} to {high}")
    return int(value)


def boolean(name: str, value: Any) -> bool:
    """``value`` if it is True or False (a string such as ``"no"`` is not taken for either);
    else ConfigError naming the option."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name}={value!r}: expected True or False")
    return value


def text(name: str, value: Any) -> str:
    """``value`` if it is a string; else ConfigError naming the option."""
    if not isinstance(value, str):
        raise ConfigError(f"{name}={value!r}: expected a string")
    return value


def path(name: str, value: Any) -> str:
    """A trace or output path (str or os.PathLike) as a string; else ConfigError."""
    try:
        return text(name, os.fspath(value))
    except TypeError:
        raise ConfigError(f"{name}={value!r}: expected a path") from None


def callback(value: Any, name: str = "progress") -> Any:
    """``value`` (argument ``name``) if it is None or callable; else ConfigError naming it."""
    if value is not None and not callable(value):
        raise ConfigError(f"{name}={value!r}: expected a function or None")
    return value


def size_text(value: Any) -> str:
    """A cache size (pages as an integer, :func:`whole`, or a string: pages, bytes, percent) as
    the core's string."""
    if whole(value):
        return str(int(value))
    if not isinstance(value, str):
        raise ConfigError(f"size={value!r}: expected pages (an integer), bytes ('64MiB') or a percent ('5%')")
    return str(value)


def listed(value: Any, single: type | tuple[type, ...], convert: Callable[[Any], Any]) -> list[Any]:
    """``value`` (one of ``single``, or an iterable of them such as a list or a numpy array) as
    a list, each item converted."""
    try:
        items = [value] if isinstance(value, single) else list(value)
    except TypeError:
        items = [value]
    return [convert(x) for x in items]


class Problems:
    """The bad inputs of a grid, collected so that one ConfigError names every one, a line
    each, however many there are and whatever kind (a missing trace, an unknown policy).

    With ``source`` (an experiment file), each problem is one line led by it, its own line
    breaks escaped (a name from the file that holds one must not split a line); without, a
    problem of several lines (a grid's error inside another) gives a line each."""

    def __init__(self, source: str | None = None) -> None:
        self.source = source
        self.messages: dict[str, None] = {}

    @property
    def lines(self) -> list[str]:
        if self.source is not None:
            return [f"{self.source}: {one_line(m)}" for m in self.messages]
        return list(dict.fromkeys(line for m in self.messages for line in m.splitlines()))

    def add(self, message: str) -> None:
        self.messages[message] = None

    def check(self, convert: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
        """(True, ``convert(*args, **kwargs)``), or (False, None) with its error kept."""
        try:
            return True, convert(*args, **kwargs)
        except (ConfigError, _core.TraceError) as e:
            self.add(str(e))
            return False, None

    def listed(
        self, what: str, value: Any, single: type | tuple[type, ...], convert: Callable[[Any], Any]
    ) -> list[Any]:
        """:func:`listed`, keeping the items ``convert`` accepts and the others' errors; an
        empty list is a problem too (``what``: what it lists)."""
        items = listed(value, single, lambda v: v)
        if not items:
            self.add(f"expected at least one {what}")
        out = []
        for x in items:
            ok, converted = self.check(convert, x)
            if ok:
                out.append(converted)
        return out

    def raise_any(self) -> None:
        """ConfigError with every problem kept, if any."""
        if self.lines:
            raise ConfigError("\n".join(self.lines))


def check_policy(name: str) -> None:
    """ConfigError unless ``name`` is a registered policy."""
    known = {p[0] for p in _core.policies()}
    if name.lower() not in known:
        raise ConfigError(f"unknown policy '{name}'; registered: {', '.join(sorted(known))}")


def check_admission(name: str) -> None:
    """ConfigError unless ``name`` is a registered admission policy (``all`` included)."""
    known = [a[0] for a in _core.admissions()]
    if name.strip().lower() not in known:
        raise ConfigError(
            f"unknown admission '{name}'; registered: {', '.join(known)} (see fcsim admissions)"
        )


def with_admission(
    sets: Mapping[str, Any] | None, admit: str | None, axis: Iterable[str] | None = None
) -> dict[str, Any]:
    """``sets`` with ``stack.admit`` set to ``admit`` (``--admit``, the same key), if given;
    ConfigError when both name one and they differ. With ``axis`` (every admission of the run,
    ``admit`` among them), an ``admit.KEY`` that ``admit`` does not take is left out of its
    points (it is another admission's of the axis), and one that none of ``axis`` takes is a
    ConfigError."""
    out = dict(sets or {})
    if admit is None:
        return out
    given = out.get("stack.admit")
    if given is not None and str(given).strip().lower() != admit.strip().lower():
        raise ConfigError(f"--admit {admit} and stack.admit={given} name different admissions: give one")
    out["stack.admit"] = admit
    if axis is not None:
        # The write budget's keys go with every admission that has a knob (the core refuses
        # them with one that has none).
        budget = {"budget", "budget_mbps", "window"}
        takes = {
            a["name"]: {p["name"] for p in a["params"]} | (budget if a["knob"] else set())
            for a in registry.admissions()
        }
        names = [a.strip().lower() for a in axis]
        for key in [k for k in out if k.lower().startswith("admit.")]:
            name = key.split(".", 1)[1]
            if not any(name in takes.get(a, set()) for a in names):
                if name in budget:
                    raise ConfigError(
                        f"option '{key}': a write budget turns an admission's knob, and "
                        f"{', '.join(names)} has none; name one with --admit "
                        "(fcsim admissions gives each one's knob)"
                    )
                raise ConfigError(
                    f"option '{key}' is a parameter of no admission this run simulates ({', '.join(names)}); "
                    "see fcsim admissions"
                )
            if name not in takes.get(admit.strip().lower(), set()):
                del out[key]
    return out


def check_device(name: str | None) -> None:
    """ConfigError unless ``name`` is None (no device) or a device preset."""
    presets = {d["name"] for d in registry.devices()} - {"defaults"}
    if name is not None and name.lower() not in presets:
        raise ConfigError(f"unknown device preset '{name}'; presets: {', '.join(sorted(presets))}")


def one_line(text: str) -> str:
    """``text`` with its line breaks escaped, so that it cannot split an error's line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def sets(value: Mapping[str, Any] | None) -> dict[str, str]:
    """The ``--set`` map (``SECTION.KEY`` to a number or a string) as the core takes it: each
    value as text. Only the types are checked here; the keys and values are the core's."""
    if value is not None and not isinstance(value, Mapping):
        raise ConfigError(f"set={value!r}: expected a mapping of KEY to VALUE")
    out = {}
    for key, v in (value or {}).items():
        if not isinstance(key, str) or not isinstance(v, str | numbers.Real):
            raise ConfigError(f"option {key!r}={v!r}: expected a string key and a number or string")
        out[key] = str(v)
    return out


def sections(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``--set`` map split by the core, which refuses a bad key or ``sim.*`` value:
    ``trace``, ``device``, ``stack`` and ``sim`` (each a dict of its keys without the prefix)
    and ``policy`` (per policy name, its keys)."""
    return _core.split_sets(list(sets(value).items()))


def own_policy_keys(value: Mapping[str, Any] | None, policy: str) -> dict[str, Any]:
    """``value`` without the ``POLICY.KEY`` entries of policies other than ``policy``: a grid's
    ``--set`` serves every point, each point's run takes its own policy's keys (the grid as a
    whole is checked by :func:`stray_policy_keys`)."""
    names = {p["name"] for p in registry.policies()}
    own = policy.strip().lower()
    return {k: v for k, v in sets(value).items() if k.split(".")[0].lower() not in names - {own}}


def stray_policy_keys(value: Mapping[str, Any] | None, policies: Iterable[str]) -> None:
    """ConfigError when a POLICY.KEY names a policy that none of ``policies`` is: the key
    would be accepted and ignored (``gasa.gsmin`` in a run of ``cflru``)."""
    run = {p.lower() for p in policies}
    keyed = sections(value)["policy"]
    stray = sorted(f"{p}.{k}" for p, keys in keyed.items() if p not in run for k in keys)
    if stray:
        raise ConfigError(
            f"option '{stray[0]}' sets a parameter of {stray[0].split('.')[0]}, which this run does not "
            f"simulate (policies: {', '.join(sorted(run))})"
        )
