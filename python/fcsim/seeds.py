"""Seeds and confidence intervals (issue 30): one seed is one sample, not the answer.

A run is *random* when one of its components draws from a seed:

- a ``synth:`` trace (a generator, a profile or a clone: its ``seed=`` key);
- a policy with a ``seed`` parameter (``pt-lru.seed``; see ``fcsim policies``);
- an admission policy with a ``seed`` parameter (``admit.seed`` of ``--admit random``; see
  ``fcsim admissions``);
- a flash device whose preconditioning is random: ageing (``device.steady`` > 0) or a random
  fill order (``device.fill_order=random``), seeded by ``device.seed``.

With ``seeds=N``, a random point runs N times. Seed index ``i`` (0 to N-1) gives each seeded
component the seed ``base + i``, where ``base`` is the seed the configuration gives it (the
``seed=`` key of the spec, ``device.seed``, ``POLICY.seed``, ``admit.seed``), else fcsim's
default, 42: index 0 is the run without ``seeds``, so one seed reproduces the single run
exactly. A point with no random component runs once whatever N (its rows say ``seeds`` = 1):
more runs would repeat the same numbers. SHARDS sampling (``fcsim mrc``) is seeded by
``--seed``; its indices are ``seed + i`` the same way. Not varied: the dynamic split's SHARDS
rate (``stack.mrc``), whose hash has no seed key, and trace files (a recorded trace is one
sample of its workload, outside fcsim's reach).

The summary of N per-seed values is their mean and a 95% confidence interval for it from
Student's t distribution: mean ± t(0.975, N-1) · s / √N, s the sample standard deviation (with
N = 1 the interval is unknown, NaN). t's quantile is computed here (no SciPy): the density is
integrated by Simpson's rule and the quantile found by bisection, to 1e-9.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from fcsim import _core, registry
from fcsim._core import ConfigError

#: fcsim's default seed of every seeded component (``device.seed``, ``pt-lru.seed``, and the
#: ``seed=`` key of ``synth:`` and ``synth:clone=`` specs); tests/test_seeds.py checks each.
DEFAULT_SEED = 42
MAX_SEEDS = 10_000

#: Columns that say what was run, not what it measured: never summarised.
IDENTITY = {
    "size_pages",
    "page_size",
    "seed_index",
    "seeds",
    "trace_seed",
    "requests",
    "accesses",
    "reads",
    "writes",
    "volume",
    "time_scale",
    "queue_depth",
    "warmup_requests",
}
CONFIG_PREFIXES = ("param_", "device_", "stack_", "admit_")
#: Columns of one seed's row only: left out of a summary.
PER_SEED = {"seed_index", "seeded", "trace_seed", "point", "epochs"}


def count(seeds: Any) -> int:
    """``seeds`` (an int or a numpy integer) as a number of seeds from 1 to :data:`MAX_SEEDS`;
    else ConfigError."""
    if not isinstance(seeds, numbers.Integral) or isinstance(seeds, bool) or not 1 <= seeds <= MAX_SEEDS:
        raise ConfigError(f"seeds={seeds!r}: expected a number of seeds from 1 to {MAX_SEEDS}")
    return int(seeds)


def _t_density(x: float, df: float) -> float:
    c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(c - (df + 1) / 2 * math.log1p(x * x / df))


def _t_cdf(x: float, df: float) -> float:
    """P(T <= x) for x >= 0: 1/2 plus the density integrated from 0 to x (Simpson's rule; the
    density is smooth and bounded, so 4,000 intervals give better than 1e-10 below x = 1000)."""
    n = 4000
    h = x / n
    s = _t_density(0.0, df) + _t_density(x, df)
    s += 4 * sum(_t_density((2 * k - 1) * h, df) for k in range(1, n // 2 + 1))
    s += 2 * sum(_t_density(2 * k * h, df) for k in range(1, n // 2))
    return 0.5 + s * h / 3


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (0.5 <= p < 1) of Student's t distribution with ``df`` degrees of
    freedom (t(0.975, 9) = 2.2622)."""
    if not 0.5 <= p < 1 or df < 1:
        raise ValueError(f"t_quantile({p}, {df}): expected 0.5 <= p < 1 and df >= 1")
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


_T975: dict[int, float] = {}


def ci95(values: Iterable[float]) -> tuple[float, float, int]:
    """(mean, half-width of the 95% confidence interval of the mean, n) of the values that are
    not NaN; the half-width is NaN below two values, the mean NaN with none."""
    xs = [float(v) for v in values if v is not None and not pd.isna(v)]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(xs) / n
    if n == 1:
        return mean, math.nan, 1
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    if n - 1 not in _T975:
        _T975[n - 1] = t_quantile(0.975, n - 1)
    return mean, _T975[n - 1] * sd / math.sqrt(n), n


# ---------------------------------------------------------------------------------------------
# Which components of a point are seeded, and the point at seed index i.


def spec_seed(spec: str) -> int:
    """The seed a ``synth:`` spec gives (its ``seed=`` key, given at most once), else the default."""
    found = re.findall(r"(?:^|,)\s*seed\s*=\s*([^,]*)", spec[len("synth:") :])
    if not found:
        return DEFAULT_SEED
    try:
        return int(found[-1])
    except ValueError:
        raise ConfigError(f"{spec}: seed={found[-1]}: expected an unsigned integer") from None


def _as_int(key: str, value: Any) -> int:
    try:
        v = int(str(value))
    except ValueError:
        raise ConfigError(f"{key}={value}: expected an unsigned integer") from None
    if v < 0:
        raise ConfigError(f"{key}={value}: expected an unsigned integer")
    return v


@functools.cache
def _device_table() -> dict[str, dict[str, Any]]:
    return {d["name"]: d["values"] for d in registry.devices()}


def _device_values(policy: str, device: str | None, sets: Mapping[str, Any]) -> dict[str, str] | None:
    """The device's effective values (fcsim's defaults, its preset's, then ``device.*`` keys),
    or None when the run has no device. Which preset a run without a named device has (a flash
    cache's, an offline bound's) is the core's answer (``_core.device_preset``)."""
    try:
        name = _core.device_preset(policy, device, [(k, str(v)) for k, v in sets.items()])
    except ConfigError:
        return None  # a bad stack.* or --set key: refused by the run's own check, with its message
    if name is None:
        return None
    table = _device_table()
    values = {k: str(v) for k, v in table.get("defaults", {}).items()}
    values.update({k: str(v) for k, v in table.get(name.lower(), {}).items()})
    for k, v in sets.items():
        if k.lower().startswith("device."):
            values[k[len("device.") :].lower()] = str(v)
    return values


@functools.cache
def _policy_params() -> dict[str, list[str]]:
    return {p["name"]: p["params"] for p in registry.policies()}


@functools.cache
def _admission_params() -> dict[str, list[str]]:
    """Each admission policy's parameter names."""
    return {a["name"]: [p["name"] for p in a["params"]] for a in registry.admissions()}


def components(trace: str, policy: str, device: str | None, sets: Mapping[str, Any]) -> dict[str, int]:
    """The seeded components of a point and the seed each has at index 0: ``trace`` (a
    ``synth:`` spec), ``POLICY.seed`` and ``device.seed`` (see the module's docs)."""
    out: dict[str, int] = {}
    if trace.startswith("synth:"):
        out["trace"] = spec_seed(trace)
    if "seed" in _policy_params().get(policy.lower(), []):
        key = f"{policy.lower()}.seed"
        given = next((v for k, v in sets.items() if k.lower() == key), None)
        out[key] = DEFAULT_SEED if given is None else _as_int(key, given)
    admit = next((str(v).strip().lower() for k, v in sets.items() if k.lower() == "stack.admit"), "all")
    if "seed" in _admission_params().get(admit, []):
        given = next((v for k, v in sets.items() if k.lower() == "admit.seed"), None)
        out["admit.seed"] = DEFAULT_SEED if given is None else _as_int("admit.seed", given)
    values = _device_values(policy, device, sets)
    if values is not None:
        try:
            steady = float(values.get("steady", "0"))
            fill = float(values.get("fill", "0"))
        except ValueError:
            steady = fill = 0.0  # refused by the run's own check, with its message
        if steady > 0 or (fill > 0 and values.get("fill_order", "").lower() == "random"):
            out["device.seed"] = _as_int("device.seed", values.get("seed", DEFAULT_SEED))
    return out


#: The largest seed a component takes (seeds are unsigned 64-bit).
MAX_SEED = 2**64 - 1


def check_range(seeded: Mapping[str, int], n: int) -> None:
    """ConfigError when a seeded component's seed plus ``n - 1`` (its last seed index) is past
    :data:`MAX_SEED`: the message names the seed as given, not the sum nobody typed."""
    for key, base in seeded.items():
        if base + n - 1 > MAX_SEED:
            name = "the trace's seed" if key == "trace" else key
            raise ConfigError(
                f"{name} {base} with seeds={n}: seed index {n - 1} would run seed {base} + {n - 1}, past "
                f"the largest seed (2^64 - 1 = {MAX_SEED}); give a seed at most {MAX_SEED - (n - 1)}"
            )


def variant(
    trace: str, sets: Mapping[str, Any], seeded: Mapping[str, int], index: int
) -> tuple[str, dict[str, Any]]:
    """The trace and ``--set`` keys of a point at seed index ``index``: each seeded component's
    seed is its index-0 seed plus ``index``; index 0 is the point unchanged."""
    out = dict(sets)
    if index == 0:
        return trace, out
    for key, base in seeded.items():
        if key == "trace":
            # The spec's own seed= key is replaced, not repeated (a spec refuses a key twice).
            trace = re.sub(r",\s*seed\s*=[^,]*", "", trace) + f",seed={base + index}"
        else:
            out = {k: v for k, v in out.items() if k.lower() != key}
            out[key] = str(base + index)
    return trace, out


def describe(seeded: Mapping[str, int], index: int) -> str:
    """The seeds of index ``index``, for a row: ``trace 43, device.seed 43``."""
    return ", ".join(f"{k} {base + index}" for k, base in seeded.items())


def mark(
    row: dict[str, Any], seeded: Mapping[str, int], index: int, n: int, trace: str | None = None
) -> dict[str, Any]:
    """``row`` (a run at seed index ``index`` of ``n``) with its trace named as the point names
    it (``trace``, the point's spec, when given; else without the ``seed=`` key :func:`variant`
    added) and the columns ``seeds`` (``n``), ``seed_index`` and ``seeded`` (:func:`describe`)."""
    if "trace" in seeded and index:
        suffix = f",seed={seeded['trace'] + index}"
        if trace is not None:
            row["trace"] = trace
        elif str(row.get("trace", "")).endswith(suffix):
            row["trace"] = row["trace"][: -len(suffix)]
    row.update(seeds=n, seed_index=index, seeded=describe(seeded, index))
    return row


# ---------------------------------------------------------------------------------------------
# Summaries.


def metrics(df: pd.DataFrame) -> list[str]:
    """The numeric columns of a result table that measure the run (not its configuration)."""
    out = []
    for c in df.columns:
        if c in IDENTITY or c.startswith(CONFIG_PREFIXES) or c == "point":
            continue
        s = df[c]
        if pd.api.types.is_bool_dtype(s) or not pd.api.types.is_numeric_dtype(s):
            continue
        out.append(c)
    return out


def summarize(df: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per point of a table of per-seed rows (``seed_index``): the point's columns
    ``by`` (default: trace, policy, size_pages, device, those present), ``seeds`` (the rows
    summarised), and for every metric M (:func:`metrics`) its mean ``M`` and ``M_ci95``, the
    half-width of its 95% confidence interval (Student t; NaN for one seed)."""
    if by is None:
        by = [c for c in ("trace", "policy", "size_pages", "device") if c in df.columns]
    names = [m for m in metrics(df) if m not in by]
    rows = []
    for key, group in df.groupby(list(by), dropna=False, sort=False):
        keys = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(by, keys, strict=True))
        row["seeds"] = len(group)
        for m in names:
            mean, half, _ = ci95(group[m])
            row[m] = mean
            row[f"{m}_ci95"] = half
        for c in group.columns:  # other columns the seeds agree on (size_pages, device_state, ...)
            if c in row or c in names or c in PER_SEED:
                continue
            # Lists (per-chip busy times) compared by their text.
            if group[c].map(repr).nunique() == 1:
                row[c] = group[c].iloc[0]
        rows.append(row)
    return pd.DataFrame(rows)


def pm(mean: float, half: float, fmt: str) -> str:
    """``mean ± half`` in ``fmt`` (``mean`` alone when the half-width is unknown)."""
    if pd.isna(mean):
        return ""
    if pd.isna(half):
        return fmt.format(mean)
    return f"{fmt.format(mean)} ± {fmt.format(half)}"
