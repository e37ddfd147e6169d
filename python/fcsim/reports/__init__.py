"""`fcsim reproduce PAPER`: run a paper's packaged experiment, plot it in the style of the
paper's figures, and write a summary that sets each of the paper's claims beside what fcsim
measures. Outputs go to one directory with the command that made them. One module per paper
(`reports/<paper>.py`, a `report(df, out, command)` function and its paper's claims as data)
plus shared helpers; :mod:`fcsim.reports.claims` scores every paper's claims and writes the
verdict table each summary opens with."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pandas as pd

from fcsim import catalogue, notes, output, schema, sweep
from fcsim._core import ConfigError
from fcsim.reports import admission, changes, dynamic, gasa, larc, lcr, offline, testable
from fcsim.reports.common import made_by
from fcsim.seeds import count as seeds_count

REPORTS = {
    "gasa": gasa.report,
    "larc": larc.report,
    "lcr": lcr.report,
    "dynamic": dynamic.report,
    "offline": offline.report,
    "admission": admission.report,
}
PAPERS = tuple(REPORTS)
#: A paper's second stage: more points computed from the first stage's rows, or None.
STAGES = {"dynamic": dynamic.offline_stage, "admission": admission.span_stage}
#: Measures a report reads beyond the fidelity measures, per trace (merged into them).
MORE_MEASURES = {"admission": admission.reuse_measures}


def _seeds_line(df: pd.DataFrame) -> str:
    """How many seeds each random point of the table used (see :mod:`fcsim.seeds`), a line."""
    if "seeds" not in df.columns or "seeded" not in df.columns:
        return "Seeds: not recorded (rows made before fcsim recorded them).\n"
    random = df[df["seeded"].fillna("") != ""]
    first = random[random["seed_index"] == 0] if "seed_index" in random.columns else random
    if first.empty:
        return (
            "Seeds: no point draws from a seed (no synthetic trace, seeded policy or randomly aged drive).\n"
        )
    counts = first["seeds"].value_counts().sort_index()
    used = ", ".join(f"{c} ran with {int(n)} seed{'s' if n != 1 else ''} each" for n, c in counts.items())
    points = len(df) - len(random) + len(first)
    return (
        f"Seeds: {len(first)} of the {points} points draw from a seed (a synthetic trace, a seeded "
        f"policy or a drive aged at random): {used} (`--seeds N` runs each with N).\n"
    )


def reproduce(
    paper: str,
    out_dir: str | os.PathLike[str],
    *,
    traces_dir: str | os.PathLike[str] = "data/traces",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float], object] | None = None,
    only: Sequence[str] | None = None,
    notify: Callable[[str], object] | None = None,
    keep_stale: bool = False,
    seeds: int | None = None,
) -> Path:
    """Runs ``paper``'s experiment into ``out_dir`` (resuming a previous run there) and writes
    its plots and summary; returns the summary's path. ``only``, if given, keeps the
    experiment's traces with these file names (a quick look, or a test; at least one); the
    summary says so, and covers those traces alone (``notify`` is warned when the table holds
    rows of others, which stay). ``out_dir`` and the files written in it pass :func:`fcsim.output.guard`
    (an existing file that is not a directory, a pipe or device under a file's name, is
    refused before anything runs). ``notify``, if given, gets the table's notes and warnings
    (:func:`fcsim.notes.row_notes`: saturated rows, flash spare beyond ``device.op``), and
    says when points made by another fcsim are computed again (``keep_stale`` reuses them; see
    :func:`fcsim.sweep.run`). ``seeds`` overrides the experiment's seeds per random point."""
    if paper not in PAPERS:
        raise ConfigError(f"fcsim reproduce {paper}: not available; available: {', '.join(PAPERS)}")
    out = Path(out_dir)
    output.guard(out, directory=True)
    out.mkdir(parents=True, exist_ok=True)
    if not Path(traces_dir).is_dir():
        raise ConfigError(f"{traces_dir}: no such trace directory (give --traces DIR)")
    exp = sweep.load(sweep.packaged(paper), traces_dir)
    # The paper's own traces, by file name (as the table names traces), whether cached or not.
    own_names = [t.given for t in exp.cached] + exp.absent
    own = {v.file: n for n in own_names if (v := catalogue.lookup(n)) is not None}
    used, absent = sorted(t.given for t in exp.cached), exp.absent
    if only is not None:
        names = {Path(t.path).name for part in exp.parts for t in part.traces}
        only = split_only(only, names)
        unknown = sorted(set(only) - names)
        if unknown or not only:
            what = f"{', '.join(unknown)}: not a trace of {paper}" if unknown else "names no trace"
            raise ConfigError(f"--only {what}; its traces: {', '.join(sorted(names))}")
        for part in exp.parts:
            part.traces = [t for t in part.traces if Path(t.path).name in only]
        exp.parts = [part for part in exp.parts if part.traces]
    for name in ("experiment.toml", "README.md", "summary.md", testable.CACHE):
        output.guard(out / name)
    output.guard(out / OWN, directory=True)
    if seeds is not None:
        exp.seeds = seeds_count(seeds)

    def run(e: sweep.Experiment) -> pd.DataFrame:
        # The reports read tables as they were before fcsim.schema (absent columns, text echoes).
        return schema.untyped(
            sweep.run(
                e,
                out / "results.parquet",
                jobs=jobs,
                scheduler=scheduler,
                progress=progress,
                notify=None if notify is None else (lambda line: notify(f"fcsim: {line}")),
                keep_stale=keep_stale,
            )
        )

    df = run(exp)
    # A second stage whose points come from the first's rows (the dynamic split's offline U).
    if (stage := STAGES.get(paper)) is not None and (second := stage(df, exp)) is not None:
        second.seeds = exp.seeds
        more = run(second)
        df = pd.concat([df, more], ignore_index=True)
    # The directory is this command's: rows of its traces whose points its grid no longer has
    # are dropped (with --only, the other traces' rows stay).
    dropped = sweep.keep_only(out / "results.parquet", df["point"], df["trace"], exp.inputs)
    table = out / "results.parquet"
    if dropped and notify is not None:
        notify(f"fcsim: dropped {dropped} row(s) of {table} whose points are not in this grid")
    # A part of the grid summarised over a table of more: the summary is this run's alone.
    if only is not None and notify is not None:
        rest = sorted(set(pd.read_parquet(table, columns=["trace"])["trace"]) - set(df["trace"]))
        if rest:
            shown = ", ".join(rest[:3]) + (f" and {len(rest) - 3} more" if len(rest) > 3 else "")
            notify(
                f"fcsim: warning: --only: {out / 'summary.md'} covers this run's traces alone; {table} "
                f"also holds rows of {len(rest)} other trace(s) ({shown}), which it leaves out: run "
                "without --only to summarise every trace"
            )
    for line in notes.row_notes(df) if notify else ():
        notify(line)
    output.write_text(out / "experiment.toml", sweep.packaged(paper).read_text())
    command = " ".join(["fcsim", "reproduce", paper, "--out", str(out_dir), "--traces", str(traces_dir)])
    if only is not None:
        command += " --only " + ",".join(only)
    if keep_stale:
        command += " --keep-stale"
    output.write_text(
        out / "README.md",
        f"# fcsim reproduce {paper}\n\nMade by `{command}` (from the repository root, after `make demo`:\n"
        f"`.venv/bin/fcsim reproduce {paper}`). The grid is `experiment.toml` (a copy of the one shipped\n"
        f"in `python/fcsim/experiments/{paper}.toml`); `results.parquet` holds every result row; the\n"
        "plots and `summary.md` are drawn from it. Running the command again reuses the finished\n"
        "points in `results.parquet` made by the same fcsim (its `fcsim_version` and `fcsim_revision`;\n"
        "others are computed again unless `--keep-stale`); delete it to rerun everything.\n\n"
        + made_by(df)
        + _seeds_line(df),
    )
    measures = testable.measure(_traces(exp), out)
    if (more_measures := MORE_MEASURES.get(paper)) is not None:
        more = more_measures(_traces(exp))
        measures = {n: {**m, **more.get(n, {})} for n, m in measures.items()}
    is_own = df["trace"].isin(list(own))
    before = (out / "summary.md").read_text() if (out / "summary.md").is_file() else ""
    # With seeds, the summary (its tables, plots and verdicts) is seed index 0's, the run
    # without --seeds; each other index's table is reported apart and only its verdicts kept.
    slices = seed_slices(df[~is_own])
    summary = REPORTS[paper](slices[0], out, command, measures=measures)
    texts = [summary.read_text()]
    if len(slices) > 1:
        with tempfile.TemporaryDirectory() as tmp:
            for i, d in enumerate(slices[1:], 1):
                (Path(tmp) / str(i)).mkdir()
                texts.append(REPORTS[paper](d, Path(tmp) / str(i), command, measures=measures).read_text())
    if is_own.any():
        (out / OWN).mkdir(exist_ok=True)
        REPORTS[paper](seed_slices(df[is_own])[0], out / OWN, command, own=True, measures=measures)
    text = with_seed_verdicts(texts)
    output.write_text(summary, text + changes.section(before, text) + _own_section(used, absent))
    return summary


def seed_slices(df: pd.DataFrame) -> list[pd.DataFrame]:
    """A table of per-seed rows as one table per seed index (:mod:`fcsim.seeds`): index i's
    rows of every random point, and the one row of each point that draws from no seed (it runs
    once, whatever the seeds). One table when no point ran with more than one seed."""
    if "seed_index" not in df.columns or "seeded" not in df.columns:
        return [df]
    random = df["seeded"].fillna("").astype(str) != ""
    index = pd.to_numeric(df["seed_index"], errors="coerce").fillna(0).astype(int)
    n = int(index[random].max()) + 1 if random.any() else 1
    return [df[~random | (index == i)] for i in range(n)] if n > 1 else [df]


def with_seed_verdicts(texts: Sequence[str]) -> str:
    """The summary ``texts[0]`` (seed index 0's) with a section after its verdict table that
    scores every claim on each seed index (``texts[i]``: index i's summary, its verdict table
    read back as :mod:`fcsim.reports.changes` reads one): how many verdicts are the same on
    every seed, and each claim whose verdict differs, with each seed's verdict and figure. A
    verdict of one seed is one sample (issue 30): a claim that agrees on one seed and not on
    another is decided by the seed, not by the policy. ``texts[0]`` unchanged with one text."""
    if len(texts) < 2:
        return texts[0]
    tables = [changes.figures(t) for t in texts]
    n = len(texts)
    # A claim a column does not score (an empty cell on every seed) is no verdict.
    every = dict.fromkeys(k for t in tables for k in t)
    keys = [k for k in every if any(t.get(k, ("", ""))[0] for t in tables)]
    split = [k for k in keys if len({t.get(k, ("(not scored)", ""))[0] for t in tables}) > 1]
    lines = [
        "### Verdicts over seeds",
        "",
        "Every random point (a synthetic trace, a seeded policy, a drive aged at random) ran with "
        f"{n} seeds: index i gives each seeded component its seed + i (`fcsim.seeds`). The verdict "
        "table above, and every table and plot of this summary, are index 0's (the seeds as "
        "configured, a run without `--seeds`); each index's rows were scored alone. "
        f"{len(keys) - len(split)} of the {len(keys)} "
        f"verdicts are the same on all {n} seeds"
        + (
            "; these differ, so the seed decides them, not the policies: read each as unsettled at this "
            "length, whatever index 0 says."
            if split
            else "."
        ),
        "",
    ]
    if split:
        lines += [
            "| claim | column | " + " | ".join(f"seed index {i}" for i in range(n)) + " | agrees on |",
            "|" + "---|" * (n + 3),
        ]
        for k in split:
            v = [t.get(k, ("(not scored)", ""))[0] for t in tables]
            agree = sum(x == "agrees" for x in v)
            lines.append(f"| {k[0]} | {k[1]} | " + " | ".join(v) + f" | {agree} of {n} |")
        lines.append("")
        for k in split:
            each = "; ".join(f"index {i}: {t.get(k, ('', ''))[1]}" for i, t in enumerate(tables))
            lines.append(f"- {k[0]} ({k[1]}): {each}")
        lines.append("")
    text = texts[0]
    at = text.find("\n## ", text.find("## Verdicts") + 1) if "## Verdicts" in text else -1
    block = "\n".join(lines)
    return text[: at + 1] + block + "\n" + text[at + 1 :] if at >= 0 else text + "\n" + block


def split_only(given: Sequence[str], names: Iterable[str]) -> list[str]:
    """The trace names in ``given`` (``--only`` values, each one name or several joined by
    commas), split only at the commas that start a name of ``names``: a ``synth:`` spec such as
    ``synth:profile=lcr-web_0,scale=0.5`` has commas of its own. Each value is read left to right,
    taking the longest run of comma-separated pieces that is a known name; an unknown ``synth:``
    spec keeps the ``key=value`` pieces after it, so that it comes back whole for the error."""
    known = set(names)
    out: list[str] = []
    for value in given:
        pieces = [p.strip() for p in value.split(",")]
        i = 0
        while i < len(pieces):
            best = next(
                (j for j in range(len(pieces), i, -1) if ",".join(pieces[i:j]) in known),
                None,
            )
            if best is None:  # unknown; a spec with its own key=value pieces
                best = i + 1
                while (
                    pieces[i].startswith("synth:")
                    and best < len(pieces)
                    and "=" in pieces[best]
                    and not pieces[best].startswith("synth:")
                ):
                    best += 1
            name = ",".join(pieces[i:best]).strip(",")
            if name:
                out.append(name)
            i = best
    return out


def _traces(exp: sweep.Experiment) -> dict[str, tuple[str, dict[str, object]]]:
    """Each trace of the experiment by its name in the result rows (a file's name, a ``synth:``
    spec as given): its path and ``trace.*`` options, for its fidelity measures."""
    out: dict[str, tuple[str, dict[str, object]]] = {}
    for part in exp.parts:
        for t in part.traces:
            name = t.path if t.path.startswith("synth:") else os.path.basename(t.path)
            sets = {**part.sets, **t.sets}
            out.setdefault(name, (t.path, {k: v for k, v in sets.items() if k.startswith("trace.")}))
    return out


#: The directory, beside the summary, of the report on the paper's own traces.
OWN = "paper-traces"


def _own_section(used: list[str], absent: list[str]) -> str:
    """The summary's closing section: which of the paper's own traces (the experiment's
    ``if_cached`` parts) were found in the trace cache and reported apart, and how to get the
    others."""
    out = ["", "# The paper's own traces", ""]
    if not used and not absent:
        return "\n".join([*out, "The experiment names none of the paper's own traces.", ""])
    out.append(
        "Run when they are in the trace cache (`$FCSIM_TRACE_DIR`, by default `traces` in the user's "
        "cache folder), in the setup `experiment.toml` gives them; their results are reported apart, never "
        "mixed into the tables above."
    )
    out.append("")
    if used:
        out.append(f"- Used: {', '.join(used)}. Their report: [{OWN}/summary.md]({OWN}/summary.md).")
    for name in absent:
        vol = catalogue.lookup(name)
        where = f"{vol.family['name']}/{vol.file}" if vol is not None else name
        how = (
            f"`fcsim trace fetch {name}`"
            if vol is not None and catalogue.fetchable(vol)
            else f"no mirror is known; place the file at `{where}` in the trace cache"
        )
        out.append(f"- Absent: {name}: {how}.")
    out.append("")
    return "\n".join(out)
