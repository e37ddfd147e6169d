"""Each paper profile's fidelity report against the real trace it borrows from (issue 26).

A profile (``synth:profile=NAME``) is a clone of a donor trace in ``data/traces`` reshaped to a
paper table's counts (``crates/fcsim/src/trace/clone/profile.rs``). What the table sets
(requests, working set, write share, mean size) differs from the donor by design; what the
profile borrows is held here to tolerances:

- ``hit_shape_mae``: where LRU's hits land, not how many there are: the hit ratio at 1%..50% of
  each trace's own working set divided by its hit ratio at 50% (so 1 at 50%), mean absolute
  difference below ``SHAPE_MAE`` (0.2; measured 0.006-0.089 on the LCR profiles but
  lcr-financial2 and on the dynamic ones, 0.182-0.195 on the three GASA profiles and
  lcr-financial2, whose TPC-C donor has 43% of its hits between 10% and 50% of its working
  set: the profiles' pages alive at once are held so that the share of hits within 1% is the
  donor's, ``crates/fcsim/src/trace/clone/profile.rs``). The plain miss-ratio curves are not comparable: a
  profile has its table's accesses per page (GASA T1: 22 page accesses a page, the TPC-C donor
  about 1), and the cold misses that sets dominate the curve; they are printed (``mrc_mae``)
  but not checked;
- ``fano_1s``: within a factor of 2 of the donor's, compared at the donor's own mean rate
  (``iops=`` the donor's requests per second: the profiles' default 1000/s stretches time,
  which moves every Fano factor); not applicable to a donor shorter than 10 s (TPC-C, 0.14 s);
- ``read_write_size_ratio``: mean read size / mean write size within 15% of the donor's (a
  profile scales every size by one factor), where both ops are present.

The sequential share is printed, not checked: a profile takes its donor's shares of sequential
new requests and of sequential reuse requests per op, but the mix of new and reuse requests is
the table's, not the donor's (the LCR profiles 0.058-0.074 against hm_0's 0.039), and the
clone emits a run's requests one after the other where the donor interleaves ops. A share from
few requests carries over as it is: dynamic-financial1's 0.151 against the TPC-C sample's 0.012
is that sample's 3 sequential writes of its 19 reuse requests (it references a page about once),
given to every reuse request of a profile whose pages are referenced again and again.

A check a profile is known to fail is in ``KNOWN_FAILS`` with its reason: the report still
says FAIL, with the reason beside it, and the tests hold the failures to that list (a new
failure, or a known one that starts to pass, fails them).

Run ``python -m fcsim.reports.profile_fidelity > data/profiles/fidelity.md``
(``make profiles-fidelity``)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import fcsim

# Run from the repository's root (as `make profiles-fidelity` does).
TRACES = Path("data") / "traces"

SHAPE_MAE = 0.2
FANO = 2.0
SIZE_RATIO = 0.15

# Profile: (donor trace in data/traces, scale the report runs it at). The scales keep each
# profile between about 0.1 and 1 M requests so the whole report takes about a minute.
PROFILES: dict[str, tuple[str, float]] = {
    "gasa-t1": ("mqsim_tpcc-small.trace.gz", 0.25),
    "gasa-t2": ("mqsim_tpcc-small.trace.gz", 0.25),
    "gasa-t3": ("mqsim_tpcc-small.trace.gz", 0.25),
    "lcr-web_0": ("msr_hm_0_excerpt1000.csv", 0.1),
    "lcr-ts_0": ("msr_hm_0_excerpt1000.csv", 0.1),
    "lcr-proj_0": ("msr_hm_0_excerpt1000.csv", 0.1),
    "lcr-wdev_2": ("msr_hm_0_excerpt1000.csv", 1),
    "lcr-financial2": ("mqsim_tpcc-small.trace.gz", 0.1),
    "dynamic-financial1": ("mqsim_tpcc-small.trace.gz", 0.05),
    "dynamic-homes": ("diskmon_sys1.trace.gz", 0.02),
    "dynamic-exchange": ("cloudphysics_vscsi_2h.csv.gz", 0.02),
    "dynamic-msnfs": ("cloudphysics_vscsi_2h.csv.gz", 0.02),
}


# (profile, check) -> why it fails: failures known and explained, still reported as FAIL.
KNOWN_FAILS: dict[tuple[str, str], str] = {
    ("lcr-wdev_2", "read_write_size_ratio"): (
        "0.31% of its requests are reads, about 560: their mean size is a few hundred draws of the "
        "donor's sizes; 1.492 (a pass) before the clone model's classes took the pages' pace "
        "(model format 5), which moves which sizes a new read takes"
    ),
}


# GASA Table II's locality p/a (read, write), which the profiles hold by feedback on per-op hot
# sets (crates/fcsim/src/trace/clone/profile.rs): printed beside the generated figure.
TABLE_LOCALITY = {
    "gasa-t1": ((0.13, 0.87), (0.31, 0.69)),
    "gasa-t2": ((0.17, 0.83), (0.16, 0.84)),
    "gasa-t3": ((0.28, 0.72), (0.11, 0.89)),
}


def _rate(f: dict[str, Any]) -> float:
    return float(f["requests"]) / (float(f["span_s"]) if f.get("span_s") else 1.0)


def report(name: str, scale: float | None = None, traces: Path = TRACES) -> dict[str, Any]:
    """The fidelity of profile ``name`` (at ``scale``, default the report's) against its donor
    in ``traces``: ``rows`` (each measure of both, :func:`fcsim.fidelity`), ``checks``
    (measure -> (donor, profile, pass)) and ``spec``."""
    donor, default = PROFILES[name]
    scale = default if scale is None else scale
    a = str(traces / donor)
    fa = fcsim.fidelity(a)
    rate = _rate(fa)
    spec = f"synth:profile={name},scale={scale:g},iops={rate:.6g}"
    fb = fcsim.fidelity(spec)

    def val(f: dict[str, Any], k: str) -> float | None:
        v = f.get(k)
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

    checks: dict[str, tuple[float | None, float | None, bool | None]] = {}

    def shape(f: dict[str, Any]) -> list[float]:
        hits = [1 - m for m in f["mrc_miss_ratio"]]
        return [h / hits[-1] if hits[-1] > 0 else 0.0 for h in hits]

    sa, sb = shape(fa), shape(fb)
    mae = sum(abs(x - y) for x, y in zip(sa, sb, strict=True)) / len(sa)
    checks["hit_shape_mae"] = (None, mae, mae < SHAPE_MAE)
    curves = zip(fa["mrc_miss_ratio"], fb["mrc_miss_ratio"], strict=True)
    checks["mrc_mae"] = (None, sum(abs(x - y) for x, y in curves) / len(fa["mrc_miss_ratio"]), None)
    checks["sequential_share"] = (val(fa, "sequential_share"), val(fb, "sequential_share"), None)
    ja, jb = val(fa, "fano_1s"), val(fb, "fano_1s")
    checks["fano_1s"] = (ja, jb, None if ja is None or jb is None else 1 / FANO <= jb / ja <= FANO)
    ra = [val(fa, "mean_read_bytes"), val(fa, "mean_write_bytes")]
    rb = [val(fb, "mean_read_bytes"), val(fb, "mean_write_bytes")]
    if None not in ra and None not in rb:
        qa, qb = ra[0] / ra[1], rb[0] / rb[1]  # type: ignore[operator]
        checks["read_write_size_ratio"] = (qa, qb, abs(qb / qa - 1) <= SIZE_RATIO)
    locality = None
    if name in TABLE_LOCALITY:
        info = fcsim.trace_info(spec)
        locality = (TABLE_LOCALITY[name], (info["read_locality"], info["write_locality"]))
    return {
        "name": name,
        "donor": donor,
        "spec": spec,
        "rows": [
            {
                "measure": m,
                "a": fa[m],
                "b": fb[m],
                "ratio": fb[m] / fa[m] if fa[m] and fb[m] is not None else None,
            }
            for m in fa["measures"]
        ],
        "checks": checks,
        "a": fa,
        "b": fb,
        "locality": locality,
    }


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if isinstance(v, float):
        return f"{v:,.4g}"
    return str(v)


def markdown(reports: list[dict[str, Any]]) -> list[str]:
    out = [
        "# Paper profiles against the real traces they borrow from",
        "",
        "Made by `python -m fcsim.reports.profile_fidelity > data/profiles/fidelity.md`",
        "(`make profiles-fidelity`); `tests/test_profile_fidelity.py` holds the checked measures to",
        "the tolerances below. A profile keeps its table's counts (requests, working set, write",
        "share, mean size: those rows differ from the donor's by design) and borrows the rest from",
        "its donor (`crates/fcsim/src/trace/clone/profile.rs`). Each profile runs at the scale",
        "shown and at the donor's own mean rate (`iops=`), so that arrival measures compare.",
        "",
        "Checked: the shape of LRU's hit curve (hit ratio at 1%..50% of each working set over the",
        f"hit ratio at 50%), mean absolute difference < {SHAPE_MAE}; Fano factor at 1 s within a",
        f"factor of {FANO:g} (a donor shorter than 10 s has none: n/a); mean read size / mean write",
        f"size within {SIZE_RATIO:.0%} of the donor's (both ops present). Printed, not checked: the",
        "plain miss-ratio curves' MAE (the table's accesses per page set the cold misses) and the",
        "sequential share (see the module's docs: `python/fcsim/reports/profile_fidelity.py`).",
        "",
    ]
    for r in reports:
        out += [f"## `{r['name']}` from `{r['donor']}`", "", f"Spec: `{r['spec']}`", ""]
        out += ["| checked | donor | profile | result |", "|---|---:|---:|---|"]
        for k, (a, b, ok) in r["checks"].items():
            result = "printed" if ok is None else ("pass" if ok else "FAIL")
            if ok is False and (r["name"], k) in KNOWN_FAILS:
                result += f" ({KNOWN_FAILS[(r['name'], k)]})"
            out.append(f"| {k} | {_fmt(a)} | {_fmt(b)} | {result} |")
        if r["locality"]:
            (tr, tw), (gr, gw) = r["locality"]
            out += [
                "",
                "Locality p%/a% (held to the table's by per-op hot sets): table "
                f"read {tr[0]:.0%}/{tr[1]:.0%}, write {tw[0]:.0%}/{tw[1]:.0%}; generated "
                f"read {gr[0]:.0%}/{gr[1]:.0%}, write {gw[0]:.0%}/{gw[1]:.0%}.",
            ]
        out += ["", "| measure | donor | profile | B/A |", "|---|---:|---:|---:|"]
        for row in r["rows"]:
            out.append(f"| {row['measure']} | {_fmt(row['a'])} | {_fmt(row['b'])} | {_fmt(row['ratio'])} |")
        out.append("")
    return out


def main() -> int:
    reports = [report(name) for name in PROFILES]
    sys.stdout.write("\n".join(markdown(reports)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
