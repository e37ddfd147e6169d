"""``fcsim trace clone`` and ``synth:clone=``: a model saved, shared and run without the original,
and its refusals (the fidelity of clones is tested in crates/fcsim/tests/clone.rs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fcsim
from conftest import TRACES, cli, ctrl_c_after

FCSIM = [sys.executable, "-m", "fcsim.cli"]
HM0 = TRACES / "msr_hm_0_excerpt1000.csv"
LRU = ["--policy", "lru", "--size", "10"]


# `fcsim` runs in this process (conftest.cli); the tests of a command that blocked or spun for
# ever run it as a child with a timeout.
run = cli


def test_a_saved_model_runs_without_the_original(tmp_path: Path) -> None:
    model = tmp_path / "hm0.model"
    p = run("trace", "clone", TRACES / "msr_hm_0_excerpt1000.csv", "-o", model)
    assert p.returncode == 0, p.stderr
    assert "wrote" in p.stdout and "1,000 requests" in p.stdout
    assert model.read_text().startswith("fcsim-clone-model 6\n")
    spec = f"synth:clone={model},seed=3"
    a = fcsim.simulate(spec, policy="lru", size="10%")
    # The renewal clone (the default) runs the original's page accesses, in requests it forms;
    # the stack clone runs its requests.
    assert a.requests > 0 and a.writes > 0
    assert fcsim.simulate(f"{spec},model=stack", policy="lru", size="10%").requests == 1000
    # The same clone from the original trace, and again with the same seed.
    b = fcsim.simulate(f"synth:clone={TRACES / 'msr_hm_0_excerpt1000.csv'},seed=3", policy="lru", size="10%")
    assert (a.requests, a.hits, a.dirty_evictions) == (b.requests, b.hits, b.dirty_evictions)
    # length and scale.
    c = fcsim.simulate(f"synth:clone={model},length=3000,scale=2", policy="lru", size="1%")
    assert c.requests == 3000


def test_the_api_returns_what_the_model_holds(tmp_path: Path) -> None:
    info = fcsim.clone(TRACES / "systor17_vdi_sample1000.csv.gz", tmp_path / "vdi.model")
    assert info["requests"] == 999 and info["timed"] and info["notes"] == []
    assert info["pages"] == 9831


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["trace", "clone", "/nonexistent.csv", "-o", "{tmp}/m"], "/nonexistent.csv: no such file"),
        (["trace", "clone", str(TRACES / "msr_hm_0_excerpt1000.csv")], "required: -o/--output"),
        (
            ["trace", "clone", str(HM0), "-o", "{tmp}/m", "--page-size", "512"],
            "a clone model counts 4 KiB pages",
        ),
        (["run", "synth:clone={tmp}/bad.model", *LRU], "bad.model:2: unknown key 'x'"),
        (["run", "synth:clone={tmp}/m,scale=-1", *LRU], "scale=-1: expected a positive"),
        # Too few to fit, counted in the slice read (the message named the whole file).
        (
            ["trace", "clone", str(HM0), "-o", "{tmp}/m", "--set", "trace.take=50"],
            "has 50 reads and writes as read (the part a --volume or trace.skip/take keeps",
        ),
    ],
)
def test_refusals_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.model").write_text("fcsim-clone-model 1\nx 1\nend\n")
    p = run(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_a_trace_with_a_malformed_line_is_skipped_when_asked_and_said_by_every_command(
    tmp_path: Path,
) -> None:
    # --skip-bad-lines reaches the fit of a synth:clone= trace (it was dropped: the run failed on
    # the line it was told to skip), and every command says how many lines were skipped.
    lines = HM0.read_text().splitlines(keepends=True)
    trace = tmp_path / "bad.csv"
    trace.write_text("".join([*lines[:500], "garbage,line\n", *lines[500:]]))
    p = run("run", f"synth:clone={trace}", *LRU)
    assert p.returncode == 2 and "bad.csv:501: expected 7 comma-separated MSR fields" in p.stderr, p.stderr
    fitted = "its model was fitted skipping 1 malformed line(s) of the original"
    for model in ("", ",model=stack"):
        p = run("run", f"synth:clone={trace}{model}", *LRU, "--skip-bad-lines")
        assert p.returncode == 0 and f"fcsim: synth:clone={trace}{model}: {fitted}\n" in p.stderr, p.stderr
    # The saved model keeps the count, and its clone reports it without the original.
    said = "fcsim: the model was fitted skipping 1 malformed line(s) of bad.csv\n"
    p = run("trace", "clone", trace, "-o", tmp_path / "m.model", "--skip-bad-lines")
    assert p.returncode == 0 and said in p.stderr, p.stderr
    assert "\nskipped 1\n" in (tmp_path / "m.model").read_text()
    # Saved again from the model, it says the same of the same original.
    p = run("trace", "clone", tmp_path / "m.model", "-o", tmp_path / "m2.model")
    assert p.returncode == 0 and said in p.stderr, p.stderr
    assert "skipped" not in fcsim.clone(HM0, tmp_path / "hm0.model")["notes"]
    assert "\nskipped" not in (tmp_path / "hm0.model").read_text()
    p = run("run", f"synth:clone={tmp_path / 'm.model'}", *LRU)
    assert p.returncode == 0 and f"synth:clone={tmp_path / 'm.model'}: {fitted}" in p.stderr
    p = run("trace", "compare", trace, f"synth:clone={trace},seed=2", "--skip-bad-lines")
    assert p.returncode in (0, 1) and f"skipped 1 malformed line(s) in {trace}\n" in p.stderr, p.stderr
    assert f"synth:clone={trace},seed=2: {fitted}" in p.stderr
    p = run("trace", "convert", trace, "-o", tmp_path / "t.fct", "--skip-bad-lines")
    assert p.returncode == 0 and f"fcsim: skipped 1 malformed line(s) in {trace}" in p.stderr, p.stderr
    p = run("pareto", trace, "--policy", "lru", "--admit", "all", "--size", "25%", "-q", "--skip-bad-lines")
    assert p.returncode == 0 and f"fcsim: skipped 1 malformed line(s) in {trace}" in p.stderr, p.stderr
    for method in (
        ["--method", "exact"],
        ["--method", "shards", "--rate", "0.5"],
        ["--method", "minisim", "--policy", "lru"],
    ):
        p = run("mrc", trace, *method, "--skip-bad-lines")
        assert p.returncode == 0 and f"fcsim: skipped 1 malformed line(s) in {trace}" in p.stderr, (
            method,
            p.stderr,
        )
    assert fcsim.mrc(trace, skip_bad_lines=True).attrs["bad_lines"] == 1
    assert fcsim.mrc(HM0).attrs["bad_lines"] == 0


def test_a_model_path_with_a_comma_is_written_and_said_unusable_in_a_spec(tmp_path: Path) -> None:
    p = run("trace", "clone", HM0, "-o", tmp_path / "a,b.model")
    assert p.returncode == 0 and (tmp_path / "a,b.model").exists()
    assert "its path holds a comma, which a synth: spec cannot" in p.stdout
    assert "synth:clone=" + str(tmp_path) not in p.stdout


def test_the_output_cannot_be_the_trace(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_bytes((TRACES / "msr_hm_0_excerpt1000.csv").read_bytes())
    p = run("trace", "clone", trace, "-o", trace)
    assert p.returncode == 2 and "is the input" in p.stderr
    assert trace.read_bytes() == (TRACES / "msr_hm_0_excerpt1000.csv").read_bytes()


ARC_P12 = TRACES / "arc_P12.lis.zst"


@pytest.mark.parametrize(
    "args",
    [
        ["trace", "clone", ARC_P12, "-o", "{tmp}/p.model"],
        ["run", f"synth:clone={ARC_P12}", *LRU, "--out", "{tmp}/r.csv"],
    ],
    ids=["trace clone", "run synth:clone"],
)
def test_ctrl_c_stops_a_fit_within_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[object]
) -> None:
    """Issue 42: Ctrl-C while a model is fitted (about 6 s of CPU for this trace: its pass, ten
    calibration rounds, the renewal counts' two passes) stops it at once, writes no model (nor
    results) and caches none; before, the fit ran to its end (and ``trace clone`` wrote the
    model), then said "interrupted"."""
    monkeypatch.setenv("FCSIM_MODEL_DIR", str(tmp_path / "cache"))
    code, err, seconds = ctrl_c_after(2, *[str(a).replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "fcsim: interrupted" and "Traceback" not in err
    assert seconds < 1.5, f"stopped {seconds:.2f} s after Ctrl-C"
    assert list(tmp_path.iterdir()) == []  # no model, no results, no cache


def test_a_fifo_is_refused_as_a_clone_source_without_blocking(tmp_path: Path) -> None:
    """Issue 42: ``synth:clone=FIFO`` blocked for ever (opening a fifo waits for a writer) and
    ignored Ctrl-C; a fifo or device is now refused, in one line, before it is opened, by every
    way in: trace info, trace clone, run and the API."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    want = f"{fifo}: is a pipe, fifo or device, not a regular file"
    for args in (
        ["trace", "info", f"synth:clone={fifo}"],
        ["trace", "clone", fifo, "-o", tmp_path / "f.model"],
        ["run", f"synth:clone={fifo}", *LRU],
        ["run", "synth:clone=/dev/null", *LRU],
    ):
        p = subprocess.run([*FCSIM, *map(str, args)], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.count("\n") == 1 and "fcsim: error: " in p.stderr and "Traceback" not in p.stderr
        assert "is a pipe, fifo or device" in p.stderr and (want in p.stderr or "/dev/null" in args[1])
    with pytest.raises(fcsim.TraceError, match=want):
        fcsim.trace_info(f"synth:clone={fifo}")
    with pytest.raises(fcsim.TraceError, match=want):
        fcsim.clone(fifo, tmp_path / "f.model")
    assert not (tmp_path / "f.model").exists()


HALF = 2**63  # two of them wrap a u64
PAST = "the model's counts add up past 2^62 by this line"


@pytest.mark.parametrize(
    ("key", "line", "message"),
    [
        ("sizes read ", f"sizes read 4096+0:{HALF} 8192+0:{HALF}", f"sizes: {PAST}"),
        ("follow read ", f"follow read 4096+0:{HALF} 8192+0:{HALF}", f"follow: {PAST}"),
        ("pages ", "pages 18446744073709551615", "pages: 18446744073709551615; expected at most 4294967295"),
    ],
)
def test_a_model_whose_counts_wrap_ends_at_once_with_its_line(
    tmp_path: Path, key: str, line: str, message: str
) -> None:
    """Issue 42: counts summing past 2^64 (the ``sed`` of the issue on ``sizes read``, the same
    on ``follow read``) spun for ever and ``fcsim.check`` accepted them; a page count of 2^64-1
    wrapped past the size check. Each is refused at its line, at once."""
    model = tmp_path / "m.model"
    assert run("trace", "clone", HM0, "-o", model).returncode == 0
    lines = model.read_text().splitlines()
    at = next(i for i, text in enumerate(lines) if text.startswith(key))
    lines[at] = line
    bad = tmp_path / "bad.model"
    bad.write_text("\n".join(lines) + "\n")
    want = f"bad.model:{at + 1}: {message}"
    p = subprocess.run(
        [*FCSIM, "trace", "info", f"synth:clone={bad},length=10"], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and want in p.stderr, p.stderr
    with pytest.raises(fcsim.TraceError, match=want.replace("^", r"\^")):
        fcsim.check(f"synth:clone={bad},length=10", size=10)


def test_an_old_model_is_not_saved_again_as_a_new_one(tmp_path: Path) -> None:
    # `trace clone OLD.model -o NEW.model` wrote NEW headed with this fcsim's format but without
    # the renewal counts that format holds, which every clone of it then refused.
    model = tmp_path / "hm0.model"
    assert run("trace", "clone", HM0, "-o", model).returncode == 0
    old = tmp_path / "old.model"
    old.write_text(model.read_text().replace("fcsim-clone-model 6\n", "fcsim-clone-model 3\n", 1))
    p = run("trace", "clone", old, "-o", tmp_path / "new.model")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "old.model: is a clone model of format 3, without the renewal counts of format 6" in p.stderr
    assert "fit the original trace with 'fcsim trace clone TRACE -o MODEL'" in p.stderr
    assert not (tmp_path / "new.model").exists()
    # A model of this format is saved again as it is.
    assert run("trace", "clone", model, "-o", tmp_path / "same.model").returncode == 0
    assert (tmp_path / "same.model").read_text() == model.read_text()


def test_a_trace_rewritten_with_its_size_and_time_kept_is_fitted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process keeps the models it fitted by file; a trace rewritten with the same size and its
    # modification time set back (`cp -p`, `rsync -t`) was given its old model.
    monkeypatch.setenv("FCSIM_MODEL_DIR", str(tmp_path / "cache"))

    def trace(pages: int) -> str:
        # Fixed-width fields: traces of one size, looping over `pages` pages.
        return "".join(
            f"{128166372003061629 + i * 100000},hm,0,Read,{i % pages * 4096:012d},4096,100\n"
            for i in range(3000)
        )

    t, fresh = tmp_path / "t.csv", tmp_path / "fresh.csv"
    t.write_text(trace(1000))
    spec = "synth:clone={},seed=1"
    before = fcsim.simulate(spec.format(t), policy="lru", size="10%")
    stat = t.stat()
    t.write_text(trace(50))
    os.utime(t, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert t.stat().st_size == stat.st_size and t.stat().st_mtime_ns == stat.st_mtime_ns
    fresh.write_text(trace(50))
    after = fcsim.simulate(spec.format(t), policy="lru", size="10%")
    want = fcsim.simulate(spec.format(fresh), policy="lru", size="10%")
    assert (after.requests, after.hits) == (want.requests, want.hits) != (before.requests, before.hits)
