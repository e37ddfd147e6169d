"""What the core registers, as Python rows: policies, admission policies, device presets and
trace formats.

A leaf: it imports only the core, so that every other module (the API, seeds, the CLI) can ask
for names without importing one another (``tests/test_layers.py`` fails on an import cycle).
"""

from __future__ import annotations

from typing import Any

from fcsim import _core


def policies() -> list[dict[str, Any]]:
    """Registered policies: name, description, source, parameter names, and whether the policy
    needs a flash device's view (it then runs only as the DRAM buffer over a flash device)."""
    return [
        {"name": n, "description": d, "source": s, "params": p, "needs_device": v}
        for n, d, s, p, v in _core.policies()
    ]


def admissions() -> list[dict[str, Any]]:
    """Admission policies (``--admit``), ``all`` (the default: every miss may enter) first: name,
    description, source, the knob (the parameter a budget controller or a Pareto sweep turns,
    larger admitting more; None if none) and the parameters (``--set admit.KEY=V``), each
    ``{name, default, lo, hi, meaning}`` (and ``words``: names the value may be given as, the
    i-th meaning the value i; empty for a plain number)."""
    return [
        {
            "name": n,
            "description": d,
            "source": s,
            "knob": k,
            "params": [
                {"name": pn, "default": df, "lo": lo, "hi": hi, "meaning": m, "words": list(w)}
                for pn, df, lo, hi, m, w in ps
            ],
        }
        for n, d, s, k, ps in _core.admissions()
    ]


def formats() -> list[dict[str, str]]:
    """Trace formats: name, description and the time unit of the raw trace."""
    return [{"name": n, "description": d, "time_unit": t} for n, d, t in _core.formats()]


def devices() -> list[dict[str, Any]]:
    """Device presets: name, source (the paper's table) and the values it sets over fcsim's
    defaults; the defaults themselves are the preset named ``defaults``."""
    presets, defaults = _core.devices()
    rows = [{"name": n, "source": s, "values": dict(v)} for n, s, v in presets]
    return [*rows, {"name": "defaults", "source": "fcsim", "values": dict(defaults)}]
