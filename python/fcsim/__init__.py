"""fcsim (FlashCacheSim): trace-driven simulation of caches on and in front of NAND flash.

    >>> import fcsim
    >>> row = fcsim.simulate("data/traces/arc_OLTP.lis.zst", policy="lru", size="5%")
    >>> row.hit_ratio

The core is Rust (``fcsim._core``); this package adds grids, the CLI and output files.
"""

from fcsim._core import ConfigError, TraceError
from fcsim.api import (
    Result,
    check,
    clone,
    compare,
    convert,
    devices,
    fidelity,
    formats,
    mrc,
    mrc_at,
    policies,
    run_grid,
    simulate,
    trace_info,
)

__all__ = [
    "ConfigError",
    "Result",
    "TraceError",
    "check",
    "clone",
    "compare",
    "convert",
    "devices",
    "fidelity",
    "formats",
    "mrc",
    "mrc_at",
    "policies",
    "run_grid",
    "simulate",
    "trace_info",
]
