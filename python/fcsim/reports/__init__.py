"""`fcsim reproduce PAPER`: run a paper's packaged experiment, plot it in the style of the
paper's figures, and write a summary that sets each of the paper's claims beside what fcsim
measures. Outputs go to one directory with the command that made them. One module per paper
(`reports/<paper>.py`, a `report(df, out, command)` function) plus shared helpers."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from fcsim import sweep
from fcsim._core import ConfigError
from fcsim.reports import dynamic, gasa, larc, lcr, offline

REPORTS = {
    "gasa": gasa.report,
    "larc": larc.report,
    "lcr": lcr.report,
    "dynamic": dynamic.report,
    "offline": offline.report,
}
PAPERS = tuple(REPORTS)


def reproduce(
    paper: str,
    out_dir: str | os.PathLike[str],
    *,
    traces_dir: str | os.PathLike[str] = "data/traces",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float], object] | None = None,
    only: Sequence[str] = (),
) -> Path:
    """Runs ``paper``'s experiment into ``out_dir`` (resuming a previous run there) and writes
    its plots and summary; returns the summary's path. ``only`` keeps the experiment's traces
    with these file names (a quick look, or a test); the summary says so."""
    if paper not in PAPERS:
        raise ConfigError(f"fcsim reproduce {paper}: not available; available: {', '.join(PAPERS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if not Path(traces_dir).is_dir():
        raise ConfigError(f"{traces_dir}: no such trace directory (give --traces DIR)")
    exp = sweep.load(sweep.packaged(paper), traces_dir)
    if only:
        names = {Path(t.path).name for part in exp.parts for t in part.traces}
        unknown = sorted(set(only) - names)
        if unknown:
            raise ConfigError(
                f"--only {', '.join(unknown)}: not a trace of {paper}; its traces: {', '.join(sorted(names))}"
            )
        for part in exp.parts:
            part.traces = [t for t in part.traces if Path(t.path).name in only]
        exp.parts = [part for part in exp.parts if part.traces]
    df = sweep.run(exp, out / "results.parquet", jobs=jobs, scheduler=scheduler, progress=progress)
    (out / "experiment.toml").write_text(sweep.packaged(paper).read_text())
    command = " ".join(["fcsim", "reproduce", paper, "--out", str(out_dir), "--traces", str(traces_dir)])
    if only:
        command += " --only " + ",".join(only)
    (out / "README.md").write_text(
        f"# fcsim reproduce {paper}\n\nMade by `{command}` (from the repository root, after `make demo`:\n"
        f"`.venv/bin/fcsim reproduce {paper}`). The grid is `experiment.toml` (a copy of the one shipped\n"
        f"in `python/fcsim/experiments/{paper}.toml`); `results.parquet` holds every result row; the\n"
        "plots and `summary.md` are drawn from it. Running the command again reuses the finished\n"
        "points in `results.parquet`; delete it to rerun everything.\n"
    )
    return REPORTS[paper](df, out, command)
