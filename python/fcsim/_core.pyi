"""Stubs of fcsim's compiled core (crates/fcsim-py). Kept in step by tests/test_stubs.py."""

from collections.abc import Callable
from typing import Any

class TraceError(ValueError): ...
class ConfigError(ValueError): ...

ProgressFn = Callable[[int, int], object]

def simulate(
    trace: str,
    policy: str,
    size: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    sets: list[tuple[str, str]] | None = None,
    device: str | None = None,
    epoch: str | None = None,
    working_set: int | None = None,
    progress: ProgressFn | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]: ...
def check(
    trace: str,
    policy: str,
    size: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    sets: list[tuple[str, str]] | None = None,
    device: str | None = None,
    epoch: str | None = None,
    working_set: int | None = None,
) -> None: ...
def split_sets(sets: list[tuple[str, str]]) -> dict[str, Any]: ...
def device_preset(policy: str, device: str | None, sets: list[tuple[str, str]]) -> str | None: ...
def trace_info(
    trace: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, Any]: ...
def working_set(
    trace: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
) -> int: ...
def clone_model(
    trace: str,
    out: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    trace_params: dict[str, str] | None = None,
) -> dict[str, Any]: ...
def prefit_clone(trace: str, *, skip_bad_lines: bool = False) -> None: ...
def convert_trace(
    trace: str,
    out: str,
    *,
    to: str | None = None,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    annotate_next: bool = False,
    progress: ProgressFn | None = None,
) -> dict[str, Any]: ...
def trace_fidelity(
    trace: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    panel: list[str] | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, Any]: ...
def trace_compare(
    a: str,
    b: list[str],
    *,
    panel: list[str],
    baseline: str | None = None,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    trace_params: dict[str, str] | None = None,
    format_b: str | None = None,
    volume_b: int | None = None,
    trace_params_b: dict[str, str] | None = None,
    page_size: int = 4096,
    progress: ProgressFn | None = None,
) -> tuple[
    dict[str, Any],
    list[dict[str, Any]],
    dict[str, Any] | None,
    list[dict[str, Any]],
    list[list[dict[str, Any]]],
]: ...
def mrc_exact(
    trace: str,
    *,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[int, int, list[int], list[int], int]: ...
def mrc_shards(
    trace: str,
    *,
    rate: float | None = None,
    max_samples: int | None = None,
    seed: int = 0,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[int, float, list[int], list[float], float, int, int, float, int, int]: ...
def mrc_minisim(
    trace: str,
    policy: str,
    sizes: list[int],
    *,
    rate: float,
    seed: int = 0,
    policy_params: dict[str, str] | None = None,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[float, int, int, int, list[tuple[int, int, int, float, float, float, float]], int]: ...
def minisim_stack(
    trace: str,
    policy: str,
    sizes: list[int],
    *,
    rate: float,
    seeds: list[int],
    device_metrics: bool = True,
    device: str | None = None,
    policy_params: dict[str, str] | None = None,
    stack_params: dict[str, str] | None = None,
    device_params: dict[str, str] | None = None,
    format: str | None = None,
    volume: int | None = None,
    skip_bad_lines: bool = False,
    page_size: int = 4096,
    trace_params: dict[str, str] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[float, int, int, str | None, list[dict[str, Any]], int]: ...
def check_size(size: str) -> None: ...
def size_pages(size: str, page_size: int = 4096, working_set: int | None = None) -> int: ...
def policies() -> list[tuple[str, str, str, list[str], bool]]: ...
def formats() -> list[tuple[str, str, str]]: ...
def admissions() -> list[
    tuple[str, str, str, str | None, list[tuple[str, float, float, float, str, list[str]]]]
]: ...
def devices() -> tuple[list[tuple[str, str, list[tuple[str, str]]]], list[tuple[str, str]]]: ...

VERSION: str
REVISION: str
SOURCE_DIGEST: str
PANEL: list[str]
