"""What a clone keeps of what separates policies (issue 40): on every shipped real trace, the
policy panel's hit ratios at 1% and 10% of the working set on the original, on its clone (5 seeds)
and on the naive `synth:calibrated` baseline built from the original's `trace info`; written as
the "Trace clones: policy ranking" section of bench/RESULTS.md (the rest of the file is left as
it is).

Per size, as issue 40 states the targets: of the policy pairs whose hit ratios differ by at least
0.005 on the original (closer pairs are noise, not a ranking), the share that keep their order on
the clone (target at least 90%); the mean absolute hit-ratio error over the panel (target at most
0.02); Kendall's tau-b between the two rankings. Also the LRU miss-ratio curve's mean absolute
error at 1%..50% of the working set (target at most 0.02) and, on traces with writes, LRU's
dirty-eviction share at 1% and 10% (target within 3 points) and the order of LRU, CFLRU and GASA by
flash writes (the pages the buffer writes back to flash) at 1% and 10%: of those pairs whose
writes differ by at least 0.5% on the original, the share kept (target: all). Each figure over
the seeds as mean [min, max].

    .venv/bin/python bench/clone_panel.py [--seeds 5] [--traces NAME,...] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
from pathlib import Path

import sections

import fcsim

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Trace clones: policy ranking"
PANEL = ["lru", "fifo", "clock", "2q", "arc", "lirs", "s3fifo", "sieve", "slru", "larc"]
SHARES = ["1%", "10%"]
SEPARATED = 0.005
FLASH = ["lru", "cflru", "gasa"]
# Flash-write pairs closer than this share of the larger are not a ranking; nor are pairs closer
# than two standard deviations of the difference of two counts taken as Poisson, 2 sqrt(a + b)
# (a trace with a handful of writes, wsrch's 4, has no flash-write ranking to keep).
FLASH_SEPARATED = 0.005
TRACES = sections.SHIPPED


def by_share(trace: str, policies: list[str], column: str) -> dict[tuple[str, str], float]:
    """`column` of each policy at each share of the trace's own working set."""
    df = fcsim.run_grid(trace, policies, SHARES, jobs=2)
    small = df.size_pages.min()
    share = {True: SHARES[0], False: SHARES[1]}
    return {(r.policy, share[r.size_pages == small]): getattr(r, column) for r in df.itertuples()}


def panel(trace: str) -> dict[tuple[str, str], float]:
    """Hit ratio of each panel policy at each share."""
    return by_share(trace, PANEL, "hit_ratio")


def flash(trace: str) -> dict[tuple[str, str], float]:
    """Flash page writes (the buffer's write-backs) of LRU, CFLRU and GASA at each share."""
    return by_share(trace, FLASH, "backing_writes")


def flash_kept(o: dict, c: dict) -> tuple[int, int]:
    """(pairs kept, separated pairs) of the flash-write order, both shares."""
    pairs = kept = 0
    for s in SHARES:
        for a, b in itertools.combinations(FLASH, 2):
            d = o[(a, s)] - o[(b, s)]
            x, y = o[(a, s)], o[(b, s)]
            if abs(d) >= max(FLASH_SEPARATED * max(x, y), 2 * math.sqrt(x + y)):
                pairs += 1
                kept += (c[(a, s)] - c[(b, s)]) * d > 0
    return kept, pairs


def tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b (ties in either ranking counted as tau-b counts them)."""
    conc = disc = tx = ty = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        a, b = (
            math.copysign(1, x[i] - x[j]) if x[i] != x[j] else 0,
            math.copysign(1, y[i] - y[j]) if y[i] != y[j] else 0,
        )
        if a == 0 and b == 0:
            continue
        if a == 0:
            tx += 1
        elif b == 0:
            ty += 1
        elif a == b:
            conc += 1
        else:
            disc += 1
    den = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / den if den else float("nan")


def score(o: dict, c: dict, share: str) -> tuple[int, int, float, float]:
    """(pairs kept, separated pairs, panel MAE, tau-b) of clone `c` against original `o`."""
    pairs = kept = 0
    for a, b in itertools.combinations(PANEL, 2):
        d = o[(a, share)] - o[(b, share)]
        if abs(d) >= SEPARATED:
            pairs += 1
            kept += (c[(a, share)] - c[(b, share)]) * d > 0
    mae = sum(abs(o[(p, share)] - c[(p, share)]) for p in PANEL) / len(PANEL)
    return kept, pairs, mae, tau_b([o[(p, share)] for p in PANEL], [c[(p, share)] for p in PANEL])


def lru(trace: str) -> tuple[list[float], list[float | None]]:
    """LRU's miss ratios at 1%..50% and its dirty-eviction shares at 1% and 10%."""
    f = fcsim.fidelity(trace)
    return f["mrc_miss_ratio"], [f["dirty_eviction_share_1pct"], f["dirty_eviction_share_10pct"]]


def commit() -> str:
    """The revision fcsim was built from (the checkout's HEAD may have moved on since), with
    "-dirty" when it was built from uncommitted changes."""
    r = fcsim.__revision__
    return r[:8] + ("-dirty" if r.endswith("-dirty") else "")


def spread(v: list[float], fmt: str = "{:.3f}") -> str:
    v = [x for x in v if x == x]
    if not v:
        return "n/a"
    return f"{fmt.format(sum(v) / len(v))} [{fmt.format(min(v))}, {fmt.format(max(v))}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--traces", default=",".join(TRACES))
    ap.add_argument(
        "--generators",
        default="stack,renewal,naive",
        help="stack (model=stack), renewal (model=renewal), renewal:KEY=VALUE (phases=1, ablate=...), naive",
    )
    ap.add_argument(
        "--scale",
        type=int,
        default=1,
        help="generate at scale=K (working set and distances x K), compared at the same shares of each "
        "trace's own working set; its own section of RESULTS.md",
    )
    ap.add_argument("--out", default=str(ROOT / "bench/RESULTS.md"))
    a = ap.parse_args()
    scale = f",scale={a.scale}" if a.scale != 1 else ""
    rows = []
    for name in a.traces.split(","):
        t = str(ROOT / "data/traces" / name)
        o = panel(t)
        o_curve, o_dirty = lru(t)
        has_writes = fcsim.trace_info(t)["writes"] > 0
        o_flash = flash(t) if has_writes else None
        gens = {}
        for g in a.generators.split(","):
            if g == "naive":
                gens[g] = [fcsim.traces.baseline_spec(fcsim.trace_info(t)) + scale]
            else:
                # stack, renewal, or renewal:KEY=VALUE (one more key of the spec: phases=1, ablate=...)
                extra = (
                    ",model=stack"
                    if g == "stack"
                    else ",model=renewal" + ("," + g.split(":", 1)[1] if ":" in g else "")
                )
                gens[g] = [f"synth:clone={t},seed={s}{extra}{scale}" for s in range(1, a.seeds + 1)]
        for gen, specs in gens.items():
            per = {s: [] for s in SHARES}
            mrc, dirty, fl = [], [[], []], []
            for spec in specs:
                c = panel(spec)
                for s in SHARES:
                    per[s].append(score(o, c, s))
                curve, d = lru(spec)
                mrc.append(sum(abs(x - y) for x, y in zip(o_curve, curve, strict=True)) / len(curve))
                for k in range(2):
                    if has_writes and o_dirty[k] is not None and d[k] is not None:
                        dirty[k].append(100 * abs(d[k] - o_dirty[k]))
                if o_flash is not None:
                    fl.append(flash_kept(o_flash, flash(spec)))
            cells = []
            for s in SHARES:
                k = [x[0] / x[1] if x[1] else float("nan") for x in per[s]]
                pairs = per[s][0][1]
                cells += [
                    f"{spread([100 * x for x in k], '{:.0f}')}% of {pairs}" if pairs else "no separated pair",
                    spread([x[2] for x in per[s]]),
                    spread([x[3] for x in per[s]], "{:.2f}"),
                ]
            n_fl = fl[0][1] if fl else 0
            order = "no separated pair"
            if n_fl:
                order = f"{spread([100 * k / n_fl for k, _ in fl], '{:.0f}')}% of {n_fl}"
            cells += [
                spread(mrc),
                spread(dirty[0], "{:.1f}") if has_writes else "no writes",
                spread(dirty[1], "{:.1f}") if has_writes else "no writes",
                order if has_writes else "no writes",
            ]
            rows.append([name, gen, *cells])
            print(" | ".join(rows[-1]), flush=True)
    load = os.getloadavg()
    section = SECTION if a.scale == 1 else f"{SECTION} at scale={a.scale}"
    command = f"bench/clone_panel.py --seeds {a.seeds} --generators {a.generators}"
    command += f" --scale {a.scale} --traces {a.traces}" if a.scale != 1 else ""
    lines = [
        section,
        "",
        *(
            [f"Every generated trace at `scale={a.scale}`: {a.scale}x the working set and reuse distances."]
            if a.scale != 1
            else []
        ),
        f"`{command}` (fcsim {commit()}; load "
        f"{load[0]:.1f}). Panel: {', '.join(PANEL)}; sizes 1% and 10% of each trace's own working "
        f'set. "kept": of the pairs whose hit ratios differ by at least {SEPARATED} on the original, '
        "the share in the same order on the generated trace (issue 40's target: at least 90%); "
        "MAE: mean |hit ratio difference| over the panel (target at most 0.02); tau: Kendall's "
        "tau-b of the two rankings; LRU MRC MAE at 1%..50% of the working set (target at most "
        "0.02); dirty: |LRU dirty-eviction share difference| in points (target at most 3); "
        f"flash order: of the pairs of {', '.join(FLASH)} whose flash writes (the buffer's write-backs) "
        f"differ by at least {FLASH_SEPARATED:.1%} and by at least 2 sqrt(a + b) (two standard deviations "
        "of the difference of two Poisson counts a and b) on the original, at 1% and 10%, the share in the "
        "same order (target: all). "
        f"stack: `synth:clone=TRACE,seed=S,model=stack` (the stack-distance clone), renewal: the same with "
        "`model=renewal` (the default since issue 40), renewal:KEY=VALUE: with that key too "
        "(`phases=1`, `ablate=PARTS`); "
        f"S = 1..{a.seeds}, mean [min, max]; naive: the "
        "`synth:calibrated` spec `fcsim trace compare` scores beside a clone "
        "(`fcsim.traces.baseline_spec`: requests, working set, write share, mean size, P/A locality, rate).",
        "",
        "| trace | generator | kept 1% | MAE 1% | tau 1% | kept 10% | MAE 10% | tau 10% "
        "| LRU MRC MAE | dirty 1% (pts) | dirty 10% (pts) | flash order |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]
    sections.replace(Path(a.out), lines)


if __name__ == "__main__":
    main()
