"""fcsim (FlashCacheSim): trace-driven simulation of caches on and in front of NAND flash.

    >>> import fcsim
    >>> row = fcsim.simulate("data/traces/arc_OLTP.lis.zst", policy="lru", size="5%")
    >>> row.hit_ratio

The core is Rust (``fcsim._core``); this package adds grids, the CLI and output files.
"""

from fcsim._core import REVISION as __revision__
from fcsim._core import VERSION as __version__
from fcsim._core import ConfigError, TraceError
from fcsim.api import (
    Grid,
    Result,
    check,
    minisim,
    minisim_summary,
    mrc,
    mrc_at,
    mrc_compare,
    run,
    run_grid,
    simulate,
)
from fcsim.registry import admissions, devices, formats, policies
from fcsim.seeds import summarize
from fcsim.traces import Comparison, clone, compare, convert, fidelity, trace_info

__all__ = [
    "Comparison",
    "ConfigError",
    "Grid",
    "Result",
    "TraceError",
    "__revision__",
    "__version__",
    "admissions",
    "check",
    "clone",
    "compare",
    "convert",
    "devices",
    "fidelity",
    "formats",
    "minisim",
    "minisim_summary",
    "mrc",
    "mrc_at",
    "mrc_compare",
    "policies",
    "run",
    "run_grid",
    "simulate",
    "summarize",
    "trace_info",
]
