"""Which of a paper's claims each workload of a reproduction can test (issue 26).

A claim can be scored only on a workload that has what the claim's mechanism needs: a write cut
needs rewrites a buffer can absorb, a load-balance gain needs bursty arrivals, and so on. What a
workload has is read off its fidelity measures (:func:`fcsim.fidelity`, the table
``fcsim::fidelity::MEASURES``: LRU's miss-ratio curve, write reuse, Fano factors, span, ...),
never typed by hand per trace. Each requirement and its threshold is stated once here
(:data:`REQUIREMENTS`, with the paper's argument it rests on); each paper's claims name the
requirements they need (:data:`CLAIMS`). A report renders the claims x workloads table with
:func:`table`; the claims engine (:mod:`fcsim.reports.claims`) asks :meth:`Gate.why` before it
scores a claim on a workload: a claim is never scored "agrees" or "disagrees" on a workload
that cannot test it, it says "untestable" and why.

The measures are taken once per trace by ``fcsim reproduce`` (:func:`measure`), at the scale the
experiment runs the trace (a profile's spec carries its ``scale=``) and at the trace's own times:
an experiment's ``sim.time_scale`` or closed loop changes the load, not whether the arrivals are
bursty or timed."""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Measures = Mapping[str, Any]


def _num(m: Measures, key: str) -> float | None:
    v = m.get(key)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _note(m: Measures, key: str, label: str | None = None) -> str:
    """Why a measure is missing (the fidelity report's note), short."""
    why = (m.get("notes") or {}).get(key)
    return f"{label or key} n/a ({why})" if why else f"{label or key} n/a"


@dataclass(frozen=True)
class Requirement:
    """What a workload must have: ``test`` returns None when the measures meet it, else a short
    reason with the workload's figure (a table cell's "no: ...")."""

    key: str
    text: str
    why: str
    test: Callable[[Measures], str | None]


# --- thresholds, each with the argument it rests on (see REQUIREMENTS for the citations) ---

#: Page writes at least this share of page accesses: a claim about what a policy does to writes
#: has nothing to act on below it.
WRITES_MIN = 0.01
#: Reads at least this share of page accesses (the read-cache and read-hit-ratio claims).
READS_MIN = 0.01
#: Rewrites a buffer could absorb beyond LRU's: the writes LRU absorbs at 10% of the working set
#: and not at 1%, at least this share of the writes LRU at 1% sends to flash.
WRITE_REUSE_MIN = 0.10
#: LRU's miss ratio at 50% of the working set at most this: reuse a policy can trade.
MISS_50_MAX = 0.90
#: Fano factor of arrivals per 1 s bin above this: bursty (a Poisson process has 1).
FANO_1S_MIN = 2.0
#: Read hits on pages still dirty, at least this share of LRU's read hits at 10% of the working set.
READ_DIRTY_MIN = 0.01
#: Writes at least this share of page accesses: write-dominant (the dynamic paper's write cache).
WRITE_DOMINANT_MIN = 0.50
#: At 10% of the working set LRU already has at least this share of the hits it has at 50%.
LOCALITY_MIN = 0.50
#: Page writes at least this many times the SSD (enough windows of T = 2x the SSD), the SSD at
#: the smallest of the paper's proportions (69% of the working set).
WINDOWS_MIN = 4.6
SSD_SHARE = 0.69
#: EPBPD's span: at least one hour of trace time, at a time resolution at most 1% of the span.
SPAN_MIN_S = 3600.0
RESOLUTION_MAX = 0.01
#: The offline bounds' containers: the DRAM tier (5% of the smallest, 1% cache) holds the write
#: buffer's 4 containers, of the 128 KiB (32-page) containers the claims are checked on.
CONTAINER_PAGES = 32
DRAM_SHARE = 0.05
SMALLEST_CACHE = 0.01
BUFFER_CONTAINERS = 4
#: The offline bounds' erasure claims: MIN erases at least this many containers at a point. One
#: erasure then moves a saving by at most a third of a point, and the flash's first fill (written
#: without an erasure) is a small part of the run; at tencent's 30 (a 1 s sample) one erasure is
#: 3 points and a claimed 6-40% saving is within a few containers. A property of a run's point,
#: not of the trace's measures: the report leaves such points out, naming each (issue 41).
MIN_ERASURES = 300
#: GASA's claims: at least this many requests, 1% of the paper's shortest trace (T3, 766,673
#: requests, Table II; the report called shorter traces ones that "weigh little" before issue 41
#: made it a rule). The paper's cuts are differences between flash-write counts and runtimes of
#: traces near a million requests; on a trace of 1,000 every policy's count is a few hundred
#: pages and they differ by a handful, mostly not at all (issue 41: 11 of the 15 failing points
#: on msr_hm_0_excerpt1000 were exact ties, 808 = 808).
GASA_MIN_REQUESTS = 7_667
#: GASA's claims: a buffer of at least this many pages, the paper's smallest (1 MB of 4 KB pages,
#: §IV.B). Every flash-aware policy acts in a window of a tenth of the buffer (CFLRU's window 0.1,
#: §IV.A; GASA's GSMIN 10%, §III.C): below 256 pages it holds fewer than 26 pages, fewer than in
#: any run of the paper, and at 10 pages (msr_hm_0_excerpt1000 at 0.5%) one. A property of a
#: run's point, not of the trace: the report leaves such points out, naming each.
GASA_MIN_BUFFER_PAGES = 256
#: LARC's hit-rate claims: at least this share of page accesses re-reference a page (1 - working
#: set / accesses). Below it no cache of any size can hit more often than that, so a hit-rate
#: difference between policies is within it. Per trace, from the rows (the report names each
#: trace it leaves out and why).
LARC_MIN_REUSE = 0.01


def _writes(m: Measures) -> str | None:
    w = _num(m, "write_share_pages")
    if w is None:
        return _note(m, "write_share_pages")
    return None if w >= WRITES_MIN else f"writes {w:.1%} of pages"


def _reads(m: Measures) -> str | None:
    w = _num(m, "write_share_pages")
    if w is None:
        return _note(m, "write_share_pages")
    return None if 1 - w >= READS_MIN else f"reads {1 - w:.1%} of pages"


def write_headroom(m: Measures) -> float | None:
    """(write_reuse_10pct - write_reuse_1pct) / (1 - write_reuse_1pct): of the writes LRU at 1%
    of the working set sends to flash, the share rewritten within 10% of it."""
    r1, r10 = _num(m, "write_reuse_1pct"), _num(m, "write_reuse_10pct")
    if r1 is None or r10 is None or r1 >= 1:
        return None
    return (r10 - r1) / (1 - r1)


def _write_reuse(m: Measures) -> str | None:
    h = write_headroom(m)
    if h is None:
        return "no writes to reuse"
    return None if h >= WRITE_REUSE_MIN else f"write reuse 1%→10% {h:.1%}"


def _reuse(m: Measures) -> str | None:
    r = _num(m, "miss_ratio_50pct")
    if r is None:
        return _note(m, "miss_ratio_50pct")
    return None if r <= MISS_50_MAX else f"LRU miss ratio at 50% {r:.3f}"


def _timed(m: Measures) -> str | None:
    return None if _num(m, "span_s") is not None else "untimed"


def _bursty(m: Measures) -> str | None:
    if _num(m, "span_s") is None:
        return "untimed"
    f = _num(m, "fano_1s")
    if f is None:
        return _note(m, "fano_1s", "Fano(1 s)")
    return None if f > FANO_1S_MIN else f"Fano(1 s) {f:.1f}"


def _shared(m: Measures) -> str | None:
    r = _num(m, "read_hits_dirty_10pct")
    if r is None:
        return _note(m, "read_hits_dirty_10pct")
    return None if r >= READ_DIRTY_MIN else f"read hits on dirty {r:.1%}"


def _write_dominant(m: Measures) -> str | None:
    w = _num(m, "write_share_pages")
    if w is None:
        return _note(m, "write_share_pages")
    return None if w >= WRITE_DOMINANT_MIN else f"writes {w:.0%} of pages"


def _locality(m: Measures) -> str | None:
    m10, m50 = _num(m, "miss_ratio_10pct"), _num(m, "miss_ratio_50pct")
    if m10 is None or m50 is None:
        return "no LRU curve"
    if m50 >= 1:
        return "no reuse at 50%"
    near = (1 - m10) / (1 - m50)
    return None if near >= LOCALITY_MIN else f"{near:.0%} of the reuse within 10%"


def _written_pages(m: Measures) -> float | None:
    """Pages written, estimated from requests, the write share and the mean write size (a
    request's pages, unaligned: a lower bound)."""
    n, w, size = _num(m, "requests"), _num(m, "write_share_requests"), _num(m, "mean_write_bytes")
    if n is None or w is None or size is None:
        return None
    page = float(m.get("page_size") or 4096)
    return n * w * max(1.0, size / page)


def _windows(m: Measures) -> str | None:
    ws, pages = _num(m, "working_set_pages"), _written_pages(m)
    if ws is None or pages is None or ws == 0:
        return "write volume n/a"
    x = pages / (ws * SSD_SHARE)
    return None if x >= WINDOWS_MIN else f"writes {x:.1f}x a 69% SSD"


def _span(m: Measures) -> str | None:
    span = _num(m, "span_s")
    if span is None:
        return "untimed"
    res = _num(m, "time_resolution_ns")
    if span < SPAN_MIN_S:
        return f"span {span:,.0f} s"
    if res is not None and res / 1e9 > RESOLUTION_MAX * span:
        return f"times resolve {res / 1e9:g} s"
    return None


def _length(m: Measures) -> str | None:
    n = _num(m, "requests")
    if n is None:
        return _note(m, "requests")
    return None if n >= GASA_MIN_REQUESTS else f"{n:,.0f} requests"


def _containers(m: Measures) -> str | None:
    ws = _num(m, "working_set_pages")
    if ws is None:
        return _note(m, "working_set_pages")
    held = ws * SMALLEST_CACHE * DRAM_SHARE / CONTAINER_PAGES
    return None if held >= BUFFER_CONTAINERS else f"DRAM of a 1% cache holds {held:.1f} containers"


REQUIREMENTS: dict[str, Requirement] = {
    r.key: r
    for r in (
        Requirement(
            "writes",
            f"page writes at least {WRITES_MIN:.0%} of page accesses",
            "a claim about what a policy does to writes (dirty pages, write-back, flash writes) has nothing "
            "to act on without them",
            _writes,
        ),
        Requirement(
            "length",
            f"at least {GASA_MIN_REQUESTS:,} requests (1% of GASA's shortest trace, T3's 766,673)",
            "GASA's cuts are differences between counts (flash writes, runtime, hits) on traces near a "
            "million requests; on a trace of a thousand every policy's count is a few hundred pages and "
            "they differ by a handful or tie (issue 41: 11 of 15 failing points of msr_hm_0_excerpt1000 "
            "were exact ties)",
            _length,
        ),
        Requirement(
            "reads",
            f"page reads at least {READS_MIN:.0%} of page accesses",
            "read hit ratios and a read cache's admissions need reads",
            _reads,
        ),
        Requirement(
            "write-reuse",
            "write reuse at buffer-sized distances that LRU leaves: of the writes LRU at 1% of the working "
            "set sends to flash, at least "
            f"{WRITE_REUSE_MIN:.0%} are rewrites within 10% of it (`(write_reuse_10pct - write_reuse_1pct)"
            " / (1 - write_reuse_1pct)`)",
            "a buffer cuts flash writes only by absorbing rewrites of pages still dirty; every page written "
            "reaches the flash once (GASA §IV.B.2, write cancellation). A cut *against LRU* at a "
            "buffer-sized cache (GASA's 1-8 MB are 0.3-4.4% of T1-T3's pages) needs rewrites LRU at that "
            "size misses but a policy keeping dirty pages longer can catch: rewrites out to ten times the "
            "buffer bound what it can reach when writes are a tenth of the traffic, more than it reaches "
            "on write-heavy traces. The smallest claimed cut is 18% (T3); "
            f"{WRITE_REUSE_MIN:.0%}, half of it, keeps only workloads that cannot show any claimed cut. "
            "Write reuse at 1% alone does not do: a trace whose rewrites all fall within 1% (LRU already "
            "absorbs them) leaves no policy a cut",
            _write_reuse,
        ),
        Requirement(
            "reuse",
            f"reuse: LRU's miss ratio at 50% of the working set at most {MISS_50_MAX:g} (`miss_ratio_50pct`)",
            "a hit-ratio order between policies needs hits to trade: where even half the working set "
            f"misses more than {MISS_50_MAX:.0%} of accesses, almost every access is a first touch and "
            "every policy's hit ratio is within a few points of zero (GASA §IV.B.1, LARC, LCR Fig. 7, "
            "the offline paper's RHR), and the dynamic paper's static split trades nothing but GC "
            "without it (eq. 4-5: the hits a smaller cache loses). LARC's SSD-write cut needs it too: "
            "it comes from declining pages seen once (the ghost filter), and where almost every page is "
            "seen once any filter cuts nearly all SSD writes, beyond every range the slides give "
            "(mqsim_wsrch: -90 to -99%)",
            _reuse,
        ),
        Requirement(
            "timed",
            "timestamps (not an untimed trace)",
            "response times and load need arrival times (README, Load and time)",
            _timed,
        ),
        Requirement(
            "bursty",
            f"bursty arrivals: Fano factor of arrivals per 1 s above {FANO_1S_MIN:g} (`fano_1s`; "
            "a Poisson process has 1), at the trace's own times",
            "LCR's gain and its load-balance rate (§II.A, Fig. 2) come from requests piling up on some "
            "chips while others idle; arrivals spread like Poisson's keep every chip's queue short and "
            "the rate near 1 (issue 26: Poisson profiles cannot show the claim). 2 is the fidelity "
            "report's line for bursty (README, trace compare)",
            _bursty,
        ),
        Requirement(
            "shared",
            f"reads and writes on shared pages: at least {READ_DIRTY_MIN:.0%} of LRU's read hits at 10% of "
            "the working set land on dirty pages (`read_hits_dirty_10pct`)",
            "GASA Fig. 11 splits hits by op and page state; its read-on-dirty column is empty unless "
            "reads return to pages written recently (issue 26: 71% on gasa-t3, 1.5% on a real "
            "write-heavy trace)",
            _shared,
        ),
        Requirement(
            "write-dominant",
            f"write-dominant: page writes at least {WRITE_DOMINANT_MIN:.0%} of page accesses",
            "the dynamic paper's SSD is a write cache; writes are 'the dominate traffic' it is built for "
            "(§I), and its model (eq. 4-5) is of write misses and GC",
            _write_dominant,
        ),
        Requirement(
            "locality",
            f"locality a window's curve can see: LRU at 10% of the working set has at least "
            f"{LOCALITY_MIN:.0%} of the hits it has at 50% (`miss_ratio_10pct`, `_50pct`)",
            "the dynamic split reads the miss-ratio curve of the last window (§III: 'leverage the "
            "locality of the workloads in the history') to trade the hits a smaller cache loses against "
            "the GC it saves (eq. 4-5); with reuse spread evenly over the run (a straight curve: 20% at "
            "10%) a window's curve is flat and the controller sees no locality (issue 26). The whole "
            "trace's curve stands in for a window's: fidelity measures no window",
            _locality,
        ),
        Requirement(
            "windows",
            f"enough windows: page writes (requests x write share x mean write pages) at least "
            f"{WINDOWS_MIN:g}x an SSD of {SSD_SHARE:.0%} of the working set",
            "the controller resizes once per window of T = 2x the SSD in writes (§III); the paper's "
            f"traces carry {WINDOWS_MIN:g}x (MSNFS, its SSD {SSD_SHARE:.0%} of its working set) to 16.7x "
            "their SSD in requests (Table II), so fewer writes than its least give the controller fewer "
            "windows than any of the paper's runs had",
            _windows,
        ),
        Requirement(
            "span",
            f"a span for a rate per day: at least {SPAN_MIN_S / 3600:g} h of trace time, resolved to "
            f"{RESOLUTION_MAX:.0%} of it or finer",
            "EPBPD divides erasures by the trace's days (offline §2: 'the product of EPBPD, capacity, and "
            "workload duration'; the paper's traces span a week); a short span extrapolates to a day "
            "and a span measured in whole seconds of a short sample is mostly rounding",
            _span,
        ),
        Requirement(
            "containers",
            f"a working set holding the containers: 5% of a 1% cache (the DRAM tier) holds the write "
            f"buffer's {BUFFER_CONTAINERS} containers of {CONTAINER_PAGES} pages",
            "offline §5: the paper keeps only working sets of 32 GB or more 'for 5% of the smallest flash "
            "cache to hold the maximum number of in-memory containers'; the same rule for the 128 KiB "
            "containers of the variant the claims are checked on. It applies only to rows whose write "
            "buffer is held in the DRAM tier (`stack.buffer_in=dram`); the rows the erasure and EPBPD "
            "claims are scored on keep it beside the DRAM tier (`extra`), where the rule says nothing "
            "(issue 41: it excluded diskmon_sys1 from claims it could test)",
            _containers,
        ),
    )
}


@dataclass(frozen=True)
class Claim:
    """A family of a paper's claims that rest on the same mechanism, and what it needs."""

    key: str
    text: str
    needs: tuple[str, ...]


CLAIMS: dict[str, tuple[Claim, ...]] = {
    "gasa": (
        Claim(
            "flash-writes",
            "Flash-write cuts and order (§IV.B.2, Fig. 12)",
            ("length", "writes", "write-reuse"),
        ),
        Claim("hit-ratio", "Hit-ratio order (§IV.B.1, Fig. 9)", ("length", "reuse")),
        Claim(
            "runtime",
            "Runtime cuts and order (§IV.B.3; flash writes dominate it)",
            ("length", "writes", "write-reuse"),
        ),
        Claim("split", "Split hits, read on dirty (Fig. 11; listed, not scored)", ("writes", "shared")),
    ),
    "lcr": (
        Claim(
            "response",
            "Mean and std response cuts (§IV.B.1-2, Fig. 5-6)",
            ("timed", "bursty", "writes"),
        ),
        Claim("load-balance", "Load balance rate above 10 (§II.A, Fig. 2)", ("timed", "bursty")),
        Claim("hit-ratio", "Hit ratios similar (§IV.B.3, Fig. 7)", ("reuse",)),
        Claim("dirty", "Share of dirty evictions (§IV.B.1)", ("writes",)),
        # The window only chooses among dirty pages and the clean ones between them: with no
        # writes the first page of the destaging region is the LRU page at any window (Alg. 1),
        # so LCR is LRU at every window and the hit ratio's flatness says nothing.
        Claim(
            "window-hit", "LCR's hit ratio insensitive to its window (§IV.D.2, Fig. 8)", ("reuse", "writes")
        ),
        # Not "bursty", unlike the gain over LRU: the paper's first reason for a smaller mean at
        # a larger window is that "more clean data blocks can be found in the destaging region"
        # (§IV.D.1), a flush saved on a miss whatever the arrivals; its second, a victim on a
        # lightly loaded chip, needs chips to differ in load, which the run measures
        # (load_balance_p50), not the trace's Fano factor. Saturated sweeps are left out per point.
        Claim(
            "window-response", "LCR's mean response against its window (§IV.D.1, Fig. 8)", ("timed", "writes")
        ),
    ),
    # LARC's SSD writes with writes cached count insertions and write hits; its cut against LRU
    # comes from the admissions it declines (reuse of any op), not from absorbing rewrites, so it
    # needs reuse, not write reuse beyond LRU's.
    "larc": (
        Claim("hit-ratio", "Hit ratio vs the others (slides)", ("reads", "reuse")),
        Claim("ssd-writes", "SSD-write cut, read cache (slides)", ("reads", "reuse")),
        Claim(
            "ssd-writes-writes",
            "Hit rate and SSD writes with writes (write-back variant)",
            ("writes", "reuse"),
        ),
    ),
    "dynamic": (
        Claim(
            "static",
            "Best static OP, concave response, Exchange's OP trade (§V.A-B, Fig. 3)",
            ("write-dominant", "reuse"),
        ),
        Claim(
            "split",
            "Dynamic split vs the best static OP (§V.A, Fig. 3, 6)",
            ("write-dominant", "locality", "windows"),
        ),
        Claim("monotone", "Hit ratio and erasures fall as OP grows (§V.A-B, Fig. 4-5)", ("write-dominant",)),
        Claim(
            "lifetime",
            "Dynamic erases less than the typical OP (§V.B)",
            ("write-dominant", "locality", "windows"),
        ),
    ),
    # Admission under a write budget: read hits to save and reuse to find (a page read once is
    # never worth a write, so every admission ties at no hits).
    "admission": (
        Claim("ordering", "Baleen's order of admissions at a fixed write rate", ("reads", "reuse")),
        Claim("opt-share", "Online admissions within the offline bound", ("reads",)),
    ),
    "offline": (
        Claim("rhr", "RHR of MIN, Pannier, RIPQ+, LRU (§1, §6.1)", ("reads", "reuse")),
        Claim("erasures", "Erasures of MIN, M+, C and the stages (§6.1, Fig. 6)", ()),
        Claim("epbpd", "EPBPD per day (Fig. 7-10, quotas)", ("span",)),
        Claim("dram-buffer", "C with its write buffer in the DRAM tier (§5; fcsim finding)", ("containers",)),
    ),
}


def short(trace: str) -> str:
    """A workload's column name: a file without its extensions, a profile by its name."""
    if trace.startswith("synth:"):
        keys = dict(kv.split("=", 1) for kv in trace.removeprefix("synth:").split(",") if "=" in kv)
        name = keys.get("profile") or trace.removeprefix("synth:").split(",")[0]
        return (
            name
            + (f", scale {keys['scale']}" if "scale" in keys else "")
            + (f", model={keys['model']}" if "model" in keys else "")
        )
    return trace.split(".")[0]


class Gate:
    """Which claims of ``paper`` each workload can test, from its measures (``measures``: trace
    name as in the result rows -> :func:`fcsim.fidelity`'s dict). Without measures (a report
    called on its own), every claim counts as testable and :meth:`table` says so."""

    def __init__(self, paper: str, measures: Mapping[str, Measures] | None) -> None:
        self.paper = paper
        self.claims = {c.key: c for c in CLAIMS[paper]}
        self.measures = measures

    def why(self, claim: str, trace: str) -> str | None:
        """None if ``trace`` can test ``claim``; else why not, short ("write reuse at 1% 0.4%")."""
        if self.measures is None:
            return None
        m = self.measures.get(trace)
        if m is None:
            return "not measured"
        fails = [w for need in self.claims[claim].needs if (w := REQUIREMENTS[need].test(m)) is not None]
        return "; ".join(dict.fromkeys(fails)) or None

    def ok(self, claim: str, trace: str) -> bool:
        return self.why(claim, trace) is None

    def keep(self, claim: str, traces: Iterable[str]) -> list[str]:
        """The traces that can test ``claim``, in order."""
        return [t for t in traces if self.ok(claim, t)]

    def reasons(self, claim: str, traces: Iterable[str]) -> str:
        """ "trace: why; ...": why none of ``traces`` can test ``claim``."""
        return "; ".join(f"{short(t)}: {self.why(claim, t)}" for t in traces)

    def untestable(self, claim: str, traces: Iterable[str]) -> str:
        """ "untestable (trace: why; ...)": the verdict of a claim none of ``traces`` can test."""
        return f"untestable ({self.reasons(claim, traces)})"

    def table(self, traces: Iterable[str]) -> list[str]:
        """The claims x workloads table (Markdown lines) and the requirements it uses, once."""
        traces = list(dict.fromkeys(traces))
        out = ["## Which claims each workload can test", ""]
        if self.measures is None:
            return [*out, "Not measured: this report was made without the workloads' fidelity measures.", ""]
        out += [
            "Derived from each workload's fidelity measures (`fcsim.fidelity`, `fcsim trace compare`), not",
            "set by hand; a claim is scored only where its cell says yes, elsewhere it reads *untestable*.",
            "",
            "| claim | " + " | ".join(short(t) for t in traces) + " |",
            "|---|" + "---|" * len(traces),
        ]
        for c in CLAIMS[self.paper]:
            cells = ["yes" if (w := self.why(c.key, t)) is None else f"no: {w}" for t in traces]
            out.append(f"| {c.text} | " + " | ".join(cells) + " |")
        used = dict.fromkeys(n for c in CLAIMS[self.paper] for n in c.needs)
        out += ["", "Requirements (`python/fcsim/reports/testable.py`):", ""]
        for c in CLAIMS[self.paper]:
            needs = ", ".join(c.needs) or "nothing of the trace (any workload can test it)"
            out.append(f"- {c.text}: needs {needs}.")
        out.append("")
        for n in used:
            r = REQUIREMENTS[n]
            out.append(f"- **{n}**: {r.text}. Why: {r.why}.")
        out.append("")
        return out


CACHE = "fidelity.json"


def content_key(src: str) -> list[str]:
    """What a trace's measures depend on besides fcsim's core: the SHA-256 of each file it reads
    (the trace file, or the file inside a ``synth:clone=PATH`` spec; :func:`fcsim.output.input_files`).
    Generated traces without files depend on the core alone."""
    from fcsim import output

    out = []
    for p, _ in output.input_files(src):
        if os.path.isfile(p):
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            out.append(h.hexdigest())
    return out


def measure(traces: Mapping[str, tuple[str, Mapping[str, Any]]], out: Path) -> dict[str, dict[str, Any]]:
    """Each trace's fidelity measures (``traces``: name in the result rows -> (path or spec,
    ``trace.*`` options)), cached in ``out/fidelity.json`` keyed by content: the path or spec,
    its options, the bytes of every file it reads (:func:`content_key`) and the revision of the
    core that generates and measures it (``fcsim._core.SOURCE_DIGEST``, a digest of its whole
    source and compiled-in donor models). A trace is measured once, not per row, and again when
    any of these changes; a cache made by another core is dropped whole."""
    from fcsim import _core, output
    from fcsim.traces import fidelity

    path = out / CACHE
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError):
        cache = {}
    if cache.get("core") != _core.SOURCE_DIGEST:
        cache = {"core": _core.SOURCE_DIGEST, "traces": {}}
    got: dict[str, dict[str, Any]] = {}
    changed = False
    for name, (src, sets) in traces.items():
        key = json.dumps([src, dict(sets), content_key(src)], sort_keys=True)
        if key not in cache["traces"]:
            cache["traces"][key] = fidelity(src, set=dict(sets) or None)
            changed = True
        got[name] = cache["traces"][key]
    if changed:
        output.write_text(path, json.dumps(cache, indent=1, sort_keys=True, default=str))
    return got
