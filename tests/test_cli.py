"""The `fcsim` command: tables, JSON, output files, and bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import fcsim
from conftest import FIXTURES, TRACES, as_on_a_terminal, cli, ctrl_c_in_a_pass

FCSIM = [sys.executable, "-m", "fcsim.cli"]


def process(*args: object) -> subprocess.CompletedProcess[str]:
    """``fcsim ARGS`` in a new process; most tests run the command in this one
    (:func:`conftest.cli`) and those of the process itself (its exit status and stderr as a shell
    sees them, Ctrl-C) this way."""
    return subprocess.run([*FCSIM, *map(str, args)], capture_output=True, text=True, timeout=300)


def test_run_prints_a_table() -> None:
    r = cli("run", TRACES / "msr_hm_0_excerpt1000.csv", "--policy", "lru,fifo", "--size", "5%,64MiB")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["trace", "policy", "size_pages"]
    assert len(lines) == 5


def test_run_json_and_out_files(tmp_path: Path) -> None:
    t = TRACES / "systor17_vdi_sample1000.csv.gz"
    r = cli("run", t, "--policy", "lru", "--size", "1%,2%", "--json")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["size_pages"] for row in rows] == [98, 197]
    for ext in ("csv", "parquet", "json", "jsonl"):
        out = tmp_path / f"res.{ext}"
        r = cli("run", t, "--policy", "lru,fifo", "--size", "1%", "--out", out, "-q")
        assert r.returncode == 0, r.stderr
        df = {"csv": pd.read_csv, "parquet": pd.read_parquet, "json": pd.read_json}.get(
            ext, lambda p: pd.read_json(p, lines=True)
        )(out)
        assert list(df["policy"]) == ["lru", "fifo"] and int(df["size_pages"][0]) == 98


def test_trace_info_and_convert(tmp_path: Path) -> None:
    r = cli("trace", "info", TRACES / "tencent_cbs_sample50k.csv.gz")
    assert r.returncode == 0, r.stderr
    assert "requests       50,000" in r.stdout and "volumes        2038" in r.stdout
    assert "unique pages   348,239" in r.stdout
    out = tmp_path / "t.fct"
    r = cli("trace", "convert", TRACES / "mqsim_tpcc-small.trace.gz", "-o", out, "--annotate-next")
    assert r.returncode == 0 and out.exists()
    j = json.loads(cli("trace", "info", out, "--json").stdout)
    assert (j["requests"], j["unique_pages"], len(j["volumes"])) == (6999, 20470, 16)


def test_policies_and_formats_list() -> None:
    assert cli("policies").stdout.split()[0] == "lru"
    names = [line.split()[0] for line in cli("trace", "formats").stdout.splitlines()]
    assert {"msr", "spc", "fiu", "blkparse", "mqsim", "disksim", "systor", "tencent", "vscsi", "arc"} <= set(
        names
    )
    assert {"lcs-csv", "oracle-general", "csv", "fct", "diskmon"} <= set(names)


LRU5 = ["--policy", "lru", "--size", "5"]

BAD = [
    (["run", "missing.csv", "--policy", "lru", "--size", "5"], "missing.csv: no such file"),
    (
        ["run", FIXTURES / "msr_bad_line.csv", "--policy", "lru", "--size", "5"],
        "msr_bad_line.csv:2: expected Type",
    ),
    (["run", FIXTURES / "empty.csv", "--policy", "lru", "--size", "5"], "empty trace"),
    (["run", FIXTURES / "truncated.csv.gz", "--policy", "lru", "--size", "5"], "truncated.csv.gz"),
    (["run", FIXTURES / "truncated.lis.zst", "--policy", "lru", "--size", "5"], "truncated.lis.zst"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "nope", "--size", "5"], "unknown policy 'nope'"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "0"], "at least one page"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size=-4"], "cache size '-4'"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "big"], "cache size 'big'"),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--format", "xyz"],
        "unknown trace format",
    ),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--set", "lru.k=1"],
        "unknown parameter",
    ),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--set", "oops"],
        "expected KEY=VALUE",
    ),
    (["trace", "info", FIXTURES / "msr_hm_0.csv", "--format", "tencent"], "msr_hm_0.csv:1:"),
    # Integer options out of range: the option's name and range, not an OverflowError.
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--volume", "-1"], "volume=-1"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--page-size", "-1"], "page_size=-1"),
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--set", "sim.queue_depth=-1"],
        "sim.queue_depth=-1",
    ),
    (["trace", "info", FIXTURES / "arc_p2.lis", "--page-size", str(2**32)], "page_size=4294967296"),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--jobs", "0"], "jobs=0"),
    (
        ["mrc", FIXTURES / "arc_p2.lis", "--method", "shards", "--seed", str(2**64)],
        "seed=18446744073709551616",
    ),
    (["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", str(10**30)], "cache size"),
    # Issue 42: what was typed, and why, not 'expected a number' or a seed nobody typed.
    (
        ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "5", "--epoch", "1e30"],
        "epoch=1e30: more requests than fcsim counts (at most 2^64 - 1)",
    ),
    (
        ["run", f"synth:zipf,requests=100,pages=50,seed={2**64 - 1}", *LRU5, "--seeds", "2"],
        f"the trace's seed {2**64 - 1} with seeds=2: seed index 1 would run seed {2**64 - 1} + 1, past the "
        f"largest seed (2^64 - 1 = {2**64 - 1}); give a seed at most {2**64 - 2}",
    ),
    # A --set key given twice is refused, as a spec's are (the later one won).
    (
        ["run", FIXTURES / "arc_p2.lis", *LRU5, "--set", "trace.take=5", "--set", "trace.take=9"],
        "--set trace.take=9: trace.take is given twice (trace.take=5 before it); give each key once",
    ),
    (
        ["run", "synth:zipf,requests=100,pages=50,seed=1,seed=2", *LRU5],
        "synth: seed=2: seed is given twice (seed=1 before it); give each key once",
    ),
    (
        ["run", f"synth:clone={TRACES / 'msr_hm_0_excerpt1000.csv'},format=csv", *LRU5],
        "synth:clone: format=csv: the generic CSV format needs its columns (--set trace.offset=COLUMN ...), "
        "which a clone spec cannot pass",
    ),
    # `none` has no cache, so no curve (minisim printed one).
    (
        ["mrc", FIXTURES / "arc_p2.lis", "--method", "minisim", "--policy", "none"],
        "policy 'none' caches nothing, so it has no miss-ratio curve",
    ),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_exits_2_without_traceback(args: list[str], message: str) -> None:
    r = cli(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("fcsim: error: ") and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        BAD[0],  # an error of the run
        # a misused option (argparse's)
        (["run", FIXTURES / "arc_p2.lis", "--size", "5"], "the following arguments are required"),
    ],
)
def test_a_process_with_bad_input_exits_2_without_traceback(args: list[str], message: str) -> None:
    # The tests above run the command in this process; here the exit status and stderr are those
    # a shell sees of `python -m fcsim.cli`.
    r = process(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(("fcsim: error: ", "fcsim run: error: ")) and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (
            ["run", FIXTURES / "arc_p2.lis", "--size", "5"],
            "fcsim run: error: the following arguments are required",
        ),
        (
            ["run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--jobs", "x"],
            "fcsim run: error: argument --jobs",
        ),
        (["mrc", FIXTURES / "arc_p2.lis", "--method", "nope"], "fcsim mrc: error: argument --method"),
        (["nope"], "fcsim: error: argument command"),
        ([], "fcsim: error: the following arguments are required"),
    ],
)
def test_misused_options_are_one_line(args: list[str], start: str) -> None:
    r = cli(*args)
    assert r.returncode == 2 and r.stderr.startswith(start), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "--help" in r.stderr


def test_skip_bad_lines_reports() -> None:
    r = cli(
        "run", FIXTURES / "msr_bad_line.csv", "--policy", "lru", "--size", "5", "--skip-bad-lines", "--json"
    )
    assert r.returncode == 0
    assert json.loads(r.stdout)["bad_lines"] == 1 and "skipped 1 malformed line" in r.stderr


def test_errors_leave_existing_output_untouched(tmp_path: Path) -> None:
    out = tmp_path / "keep.csv"
    out.write_text("precious\n")
    r = cli("run", FIXTURES / "msr_bad_line.csv", "--policy", "lru", "--size", "5", "--out", out)
    assert r.returncode == 2 and out.read_text() == "precious\n"
    fct = tmp_path / "keep.fct"
    fct.write_text("precious\n")
    r = cli("trace", "convert", FIXTURES / "msr_bad_line.csv", "-o", fct)
    assert r.returncode == 2 and fct.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv", "keep.fct"]


def test_ctrl_c_leaves_no_partial_file(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "big.fct"
    p = subprocess.Popen(
        [*FCSIM, "trace", "convert", "synth:uniform,requests=200000000,pages=1000000", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_on_a_terminal,
    )
    deadline = time.monotonic() + 60
    while not any(tmp_path.iterdir()) and time.monotonic() < deadline:  # wait for the temporary file
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert list(tmp_path.iterdir()) == []


# A trace no pass over ends: 10^12 requests.
ENDLESS = "synth:zipf,requests=1000000000000,pages=1000"


@pytest.mark.parametrize("cmd", ["run", "trace info", "sweep"])
def test_ctrl_c_stops_a_working_set_pass(tmp_path: Path, cmd: str) -> None:
    # A percent size (run, and a sweep's check) or a trace's statistics take one pass over the
    # trace before anything runs; Ctrl-C stops it, as it does a run.
    exp = tmp_path / "e.toml"
    exp.write_text(f'traces = ["{ENDLESS}"]\npolicies = ["lru"]\nsizes = ["5%"]\n')
    args = {
        "run": ["run", ENDLESS, "--policy", "lru", "--size", "5%"],
        "trace info": ["trace", "info", ENDLESS],
        "sweep": ["sweep", str(exp), "--out", str(tmp_path / "o.parquet")],
    }[cmd]
    code, err = ctrl_c_in_a_pass(*args)
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err


def test_flash_aware_policies_refuse_to_run_without_a_device() -> None:
    t = TRACES / "msr_hm_0_excerpt1000.csv"
    needs = sorted(p["name"] for p in fcsim.policies() if p["needs_device"])
    assert needs == ["gcar-cflru", "lcr"]
    for policy in needs:
        r = cli("run", t, "--policy", policy, "--size", "5%")
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "--device" in r.stderr, r.stderr
        assert cli("run", t, "--policy", policy, "--size", "5%", "--device", "lcr").returncode == 0
    marked = [line.split()[0] for line in cli("policies").stdout.splitlines() if "needs --device" in line]
    assert marked == needs


def test_untimed_trace_over_a_device_has_null_timing_and_a_note() -> None:
    # An ARC trace has no timestamps: over a device (as a buffer, and as a flash cache), response
    # times, EPBPD and per-epoch loads are null, the row says why, and stderr says it once.
    lis = FIXTURES / "arc_p2.lis"
    # The flash cache's geometry is set (64-page blocks), so that a 4-page cache keeps it with more
    # spare than asked, said in a note; left to fcsim, such a cache is refused (test_device.py).
    for extra in ([], ["--set", "stack.kind=ssd-cache", "--set", "device.pages_per_block=64"]):
        r = cli("run", lis, "--policy", "lru,fifo", "--size", "4", "--device", "gasa", "--json", *extra)
        assert r.returncode == 0, r.stderr
        for row in map(json.loads, r.stdout.splitlines()):
            assert row["timing"] == "untimed-trace"
            for col in ("resp_mean_us", "resp_p99_us", "epbpd", "load_balance_p50", "duration_s"):
                assert row[col] is None, col
            assert row["flash_page_reads"] > 0 and row["hit_ratio"] is not None
        # (and the drive that never filled: test_a_drive_that_never_fills_is_said)
        note = [n for n in r.stderr.strip().splitlines() if "erased no flash block" not in n]
        assert len(note) == 1 + bool(extra)
        assert "arc_p2.lis has no timestamps" in note[0] and "sim.queue_depth" in note[0]
        if extra:  # a 4-page flash cache on the gasa geometry cannot keep 15% spare: said too
            assert "more flash spare than device.op" in note[1]
    # A closed loop gives the same trace a time base.
    r = cli(
        "run",
        lis,
        "--policy",
        "lru",
        "--size",
        "4",
        "--device",
        "gasa",
        "--set",
        "sim.queue_depth=4",
        "--json",
    )
    row = json.loads(r.stdout)
    assert row["timing"] == "closed-loop" and row["resp_mean_us"] > 0 and row["saturated"] is True
    # Its erasures are counted, but not per day: the days would be the loop's own, as DWPD's.
    assert row["epbpd"] is None and row["dwpd"] is None and "closed loop" in row["dwpd_null_reason"]
    # Its one note says the loop is saturated by construction, nothing else.
    assert r.stderr.count("\n") == 1 and "saturated by construction" in r.stderr
    # Without a device there are no timing columns to empty (the CLI then has no note).
    assert fcsim.simulate(lis, "lru", 4).timing == "untimed-trace"


def test_rows_state_the_drive() -> None:
    t = TRACES / "msr_hm_0_excerpt1000.csv"
    small = {"device.channels": 1, "device.chips_per_channel": 2, "device.blocks": 128}
    ages = [{}, {"device.fill": 1}, {"device.fill": 1, "device.steady": 0.5}]
    states = [fcsim.simulate(t, "lru", "1%", device="gasa", set={**small, **a}).device_state for a in ages]
    assert states == ["fresh", "filled", "aged 0.5x (seed 42)"]
    assert fcsim.simulate(t, "lru", "1%").device_state is None
    out = cli("devices").stdout
    assert all(f"\n  {s}" in out for s in ("fresh", "filled", "aged Nx"))


def test_mrc_at_equals_run() -> None:
    # cloudphysics has 269,210 unique pages: 5% is 13,460.5 pages, which `run` rounds up.
    t = TRACES / "cloudphysics_vscsi_2h.csv.gz"
    r = cli("mrc", t, "--at", "64MiB,5%")
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line.split()[1:] for line in r.stdout.splitlines()[2:]}
    runs = fcsim.run_grid(t, "lru", ["64MiB", "5%"]).to_dict("records")
    for label, row in zip(["64MiB", "5%"], runs, strict=True):
        pages, miss = rows[label]
        assert int(pages.replace(",", "")) == row["size_pages"]
        assert float(miss) == round(1 - row["hit_ratio"], 4)
    assert runs[1]["size_pages"] == 13_461


def test_output_files_get_normal_permissions(tmp_path: Path) -> None:

    t = TRACES / "msr_hm_0_excerpt1000.csv"
    files = [tmp_path / n for n in ("r.csv", "r.parquet", "r.png", "m.json", "m.png", "c.fct")]
    cmds = [
        ["run", t, "--policy", "lru", "--size", "1%", "-q", "--out", files[0]],
        ["run", t, "--policy", "lru", "--size", "1%,5%", "-q", "--out", files[1], "--plot", files[2]],
        ["mrc", t, "--out", files[3], "--plot", files[4]],
        ["trace", "convert", t, "-o", files[5]],
    ]
    mask = os.umask(0o022)
    try:
        for cmd in cmds:
            r = cli(*cmd)
            assert r.returncode == 0, r.stderr
    finally:
        os.umask(mask)
    assert {f.name: oct(f.stat().st_mode & 0o777) for f in files} == {f.name: "0o644" for f in files}


def test_run_plot_and_policy_none_once(tmp_path: Path) -> None:
    png = tmp_path / "run.png"
    r = cli(
        "run", TRACES / "msr_hm_0_excerpt1000.csv", "--policy", "none,lru,fifo", "--size", "1%,5%,10%",
        "--device", "gasa", "--plot", png, "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    # `none` caches nothing: one row, not one per size.
    assert [row["policy"] for row in rows] == ["none"] + ["lru"] * 3 + ["fifo"] * 3
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


def test_libcachesim_exports_say_what_they_drop(tmp_path: Path) -> None:
    t = TRACES / "mqsim_tpcc-small.trace.gz"
    r = cli("trace", "convert", t, "-o", tmp_path / "t.oracleGeneral.bin")
    assert r.returncode == 0, r.stderr
    assert "oracleGeneral has no read/write flag: the 7,995 written page accesses replay as reads" in r.stderr
    r = cli("trace", "convert", t, "-o", tmp_path / "t.csv")
    assert "read/write" not in r.stderr and "request sizes and boundaries are not kept" in r.stderr
    # The CSV keeps the operation: read back, it has the trace's written pages.
    info = fcsim.trace_info(tmp_path / "t.csv")
    assert info["write_pages"] == 7_995 and info["format"] == "lcs-csv"
    assert fcsim.convert(t, tmp_path / "t.fct")["dropped"] == []
    # Its keys are object ids without sizes: no bytes to count, said rather than 0.
    shown = cli("trace", "info", tmp_path / "t.csv").stdout.splitlines()
    assert "bytes          n/a: object ids, no sizes" in shown and info["bytes"] == 0


def test_a_plot_is_named_by_a_format_it_can_be(tmp_path: Path) -> None:
    # `--plot x.txt` wrote a PNG under a .txt name; now only .png, .svg and .pdf, checked
    # before the run, and the format follows the name.
    t = TRACES / "msr_hm_0_excerpt1000.csv"
    for cmd in (["run", t, "--policy", "lru", "--size", "1%"], ["mrc", t]):
        bad = tmp_path / "x.txt"
        r = cli(*cmd, "--plot", bad)
        assert r.returncode == 2
        assert r.stderr == f"fcsim: error: {bad}: a plot is .png, .svg, .pdf by its name, not .txt\n"
        assert not bad.exists() and r.stdout == ""
        r = cli(*cmd, "--plot", tmp_path / "noext")
        assert r.returncode == 2 and "not a name without extension" in r.stderr
    r = cli("run", t, "--policy", "lru", "--size", "1%,5%", "--plot", tmp_path / "r.svg")
    assert r.returncode == 0 and b"<svg" in (tmp_path / "r.svg").read_bytes()[:1000]
    r = cli("mrc", t, "--plot", tmp_path / "m.pdf")
    assert r.returncode == 0 and (tmp_path / "m.pdf").read_bytes()[:5] == b"%PDF-"


def test_run_checks_every_point_before_any_runs() -> None:
    # lru.x is a problem of the lru points, cflru.window of the cflru ones: both are named, once
    # each, and nothing runs.
    r = cli(
        "run", TRACES / "msr_hm_0_excerpt1000.csv", "--policy", "lru,cflru", "--size", "1%,5%",
        "--device", "gasa", "--set", "lru.x=1", "--set", "cflru.window=wide", "--json",
    )  # fmt: skip
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.splitlines() == [
        "fcsim: error: unknown parameter lru.x: it takes none",
        "fcsim: error: cflru.window=wide: expected a fraction of the cache in (0, 1]",
    ]


def test_mrc_minisim_takes_sizes() -> None:
    # --sizes was ignored: minisim printed its 10 default sizes.
    t = TRACES / "cloudphysics_vscsi_2h.csv.gz"
    r = cli("mrc", t, "--method", "minisim", "--policy", "lru", "--sizes", "5%,50%")
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["5.00%", "50.00%"]
    api = fcsim.mrc(t, "minisim", policy="lru", sizes=["5%", "50%"])
    assert [int(row.split()[1].replace(",", "")) for row in rows] == list(api["size_pages"])
    # At the default rate the sample's hit ratio is uncertain beyond the miniature's target: said.
    assert "the miniature's hit ratio is uncertain by up to ±0.0" in r.stderr


def test_a_policys_miniature_from_a_tiny_sample_is_said_uncertain() -> None:
    # The msr excerpt at R=0.01: 17 sampled accesses, 16 pages, miss ratio 1.0 at 1% where the
    # exact curve has 0.8993, and no warning; a sample with no hit has a standard error of 0.
    r = cli("mrc", TRACES / "msr_hm_0_excerpt1000.csv", "--method", "minisim", "--policy", "lru")
    assert r.returncode == 0, r.stderr
    (warning,) = [line for line in r.stderr.splitlines() if "uncertain" in line]
    assert "at 10 of 10 sizes" in warning and "±0.238" in warning and "(17 sampled accesses)" in warning


def test_reproduce_only_takes_a_spec_with_commas_and_names_an_unknown_one(tmp_path: Path) -> None:
    # The profile's spec is one name although it has a comma; the unknown name is the error, in
    # one line, before anything runs.
    spec = "synth:profile=lcr-web_0,scale=0.5"
    r = cli("reproduce", "lcr", "--out", str(tmp_path), "--traces", str(TRACES), "--only", f"{spec},nope.csv")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert r.stderr.startswith("fcsim: error: --only nope.csv: not a trace of lcr; its traces:"), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_saturation_is_said_in_the_row_and_on_stderr() -> None:
    # 100,000 random 4 KiB writes through a 64-page buffer over gasa's 8 chips: each chip gets
    # 12,500 programs of 200 us, 2.5 s of work. Offered in one second, that is 2.5 times what a
    # chip can do: the row says saturated, stderr names it. Over 100 s, nothing saturates.
    def row(iops: int, *extra: str) -> tuple[dict[str, object], str]:
        spec = f"synth:uniform,pages=100000,requests=100000,write=1,iops={iops}"
        r = cli("run", spec, "--policy", "lru", "--size", "64", "--device", "gasa", "--json", *extra)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout), r.stderr

    fast, err = row(100_000)
    assert fast["saturated"] is True and 2.5 <= fast["flash_util_peak_1s"] < 2.6  # type: ignore[operator]
    warning = [line for line in err.splitlines() if "saturated" in line]
    assert len(warning) == 1 and "iops=100000 lru 64 pages on gasa (flash 2.5" in warning[0]
    slow, err = row(1_000)
    assert slow["saturated"] is False and slow["flash_util_peak_1s"] < 0.05 and "saturated" not in err  # type: ignore[operator]
    # A closed loop is saturated by construction (8 requests outstanding at every instant): the
    # row says so, and stderr says it apart from the open loop's warning.
    closed, err = row(100_000, "--set", "sim.queue_depth=8")
    assert closed["saturated"] is True and closed["flash_util_peak_1s"] is not None
    assert "warning" not in err and "1 closed-loop row(s) are saturated by construction" in err


LRU = ["--policy", "lru", "--size", "10"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", "synth:zipf,requests=1000", *LRU, "--volume", "3"],
            "--volume 3: a synth: trace has no volumes to pick",
        ),
        (
            ["run", "synth:zipf,requests=1000", *LRU, "--set", "trace.block_size=512"],
            "trace.block_size: a synth: trace reads no file, so only trace.skip and trace.take apply",
        ),
        (
            ["trace", "info", f"synth:clone={TRACES / 'msr_hm_0_excerpt1000.csv'}", "--volume", "3"],
            "--volume 3: a synth: trace has no volumes to pick",
        ),
        (
            ["trace", "compare", str(TRACES / "msr_hm_0_excerpt1000.csv"), "synth:zipf", "--volume-b", "3"],
            "--volume-b 3: synth:zipf is a synth: trace, which has no volumes to pick; drop --volume-b",
        ),
    ],
)
def test_options_of_a_file_are_refused_on_a_synth_trace(args: list[str], message: str) -> None:
    """Issue 42: ``--volume`` and ``--set trace.KEY`` were accepted and ignored on ``synth:``
    traces (an error on a real trace), and so was ``trace compare --volume-b`` on a synth B."""
    p = cli(*args)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert message in p.stderr and "Traceback" not in p.stderr


def test_the_output_guard_looks_inside_a_clone_spec(tmp_path: Path) -> None:
    """Issue 42: the output guard compared outputs with the trace argument only, so
    ``run synth:clone=t.csv --out t.csv`` replaced the clone's source with the results (exit 0).
    The file inside ``synth:clone=PATH`` is an input too, by any name (a symbolic link included),
    through every output: run --out, trace convert -o, mrc --out, --plot, the epochs table."""
    trace = tmp_path / "t.csv"
    trace.write_bytes((TRACES / "msr_hm_0_excerpt1000.csv").read_bytes())
    model = tmp_path / "m.png"  # a model named like a plot
    assert cli("trace", "clone", trace, "-o", tmp_path / "m.model").returncode == 0
    model.write_bytes((tmp_path / "m.model").read_bytes())
    (tmp_path / "r.epochs.csv").symlink_to(tmp_path / "m.model")
    cases = [
        (["run", f"synth:clone={trace}", *LRU, "--out", trace], trace, trace),
        (["run", f"synth:clone={trace},seed=3", *LRU, "--out", trace], trace, trace),
        (["trace", "convert", f"synth:clone={trace},length=100", "-o", trace], trace, trace),
        (["mrc", f"synth:clone={trace}", "--out", trace], trace, trace),
        (["run", f"synth:clone={model}", *LRU, "--plot", model], model, model),
        (
            ["run", f"synth:clone={tmp_path / 'm.model'}", *LRU, "--out", tmp_path / "r.csv", "--epoch=1s"],
            tmp_path / "r.epochs.csv",
            tmp_path / "m.model",
        ),
    ]
    for args, out, source in cases:
        before = source.read_bytes()
        p = cli(*map(str, args))
        want = f"fcsim: error: {out}: is the input {source} (the clone source of synth:clone={source}"
        assert p.returncode == 2 and p.stderr.startswith(want) and p.stderr.count("\n") == 1, (args, p.stderr)
        assert "writing there would destroy it" in p.stderr
        assert source.read_bytes() == before, args
    assert not (tmp_path / "r.csv").exists()


def test_a_drive_that_never_fills_is_said() -> None:
    # Issue 42: the filled lcr drive never collects garbage on a 1000-request trace; the rows'
    # 0 erasures and write amplification 1 come with a note and how to age the drive.
    r = cli(
        "run", TRACES / "systor17_vdi_sample1000.csv.gz", "--policy", "lru", "--size", "1%", "--device", "lcr"
    )
    assert r.returncode == 0, r.stderr
    note = [n for n in r.stderr.splitlines() if "erased no flash block" in n]
    assert len(note) == 1 and "every row" in note[0] and "device.steady=1" in note[0]
    # An aged drive collects garbage: no note.
    systor = TRACES / "systor17_vdi_sample1000.csv.gz"
    r = cli(
        "run",
        systor,
        "--policy",
        "lru",
        "--size",
        "1%",
        "--device",
        "lcr",
        "--set",
        "device.steady=1",
        "--json",
    )
    assert r.returncode == 0 and "erased no flash block" not in r.stderr
    assert json.loads(r.stdout.splitlines()[0])["erasures"] > 0


def test_speed_and_simulated_throughput_are_apart(tmp_path: Path) -> None:
    # Issue 42: the simulator's speed is requests_per_wall_s; the simulated throughput is
    # throughput_iops / throughput_mb_s over the simulated span, null without times; run says
    # what it wrote.
    out, png = tmp_path / "r.csv", tmp_path / "r.png"
    systor = TRACES / "systor17_vdi_sample1000.csv.gz"
    r = cli(
        "run",
        systor,
        "--policy",
        "lru",
        "--size",
        "1%",
        "--device",
        "lcr",
        "--json",
        "--out",
        out,
        "--plot",
        png,
    )
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout.splitlines()[0])
    assert "requests_per_s" not in row and row["requests_per_wall_s"] > 0
    span = row["duration_s"] + row["drain_s"]
    assert row["throughput_iops"] == pytest.approx(row["requests"] / span)
    assert row["throughput_mb_s"] == pytest.approx(row["accesses"] * row["page_size"] / 1e6 / span)
    assert f"fcsim: wrote {out} (rows)" in r.stderr and f"fcsim: wrote {png} (figure)" in r.stderr
    assert out.exists() and png.exists()
    r = cli(
        "run", TRACES / "systor17_vdi_sample1000.csv.gz", "--policy", "lru", "--size", "1%", "--device", "lcr"
    )
    head = r.stdout.splitlines()[0].split()
    assert head.index("throughput_iops") < head.index("requests_per_wall_s") == len(head) - 1
    r = cli("run", FIXTURES / "arc_p2.lis", "--policy", "lru", "--size", "4", "--device", "gasa", "--json")
    row = json.loads(r.stdout.splitlines()[0])
    assert row["throughput_iops"] is None and row["throughput_mb_s"] is None


def test_an_old_table_with_requests_per_s_is_read_under_the_new_name(tmp_path: Path) -> None:
    old = tmp_path / "old.csv"
    pd.DataFrame({"size_pages": [1, 2], "hit_ratio": [0.1, 0.2], "requests_per_s": [5.0, 6.0]}).to_csv(old)
    from fcsim import plot, schema

    t = plot.load_table(old)
    assert "requests_per_s" not in t.columns and list(t["requests_per_wall_s"]) == [5.0, 6.0]
    mixed = pd.DataFrame({"requests_per_s": [5.0, None], "requests_per_wall_s": [None, 7.0]})
    assert list(schema.renamed(mixed).columns) == ["requests_per_wall_s"]
    assert list(schema.renamed(mixed)["requests_per_wall_s"]) == [5.0, 7.0]


def test_mrc_compare_writes_curve_reference_and_errors(tmp_path: Path) -> None:
    # Issue 42: --compare reaches --out and --plot; --seeds with them is no longer refused.
    trace = TRACES / "systor17_vdi_sample1000.csv.gz"
    out, png = tmp_path / "c.csv", tmp_path / "c.png"
    r = cli("mrc", trace, "--method", "shards", "--rate", "0.5", "--compare", "--out", out, "--plot", png)
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(out)
    assert {"reference", "abs_error"} <= set(t.columns) and t["reference"].between(0, 1).all()
    assert (t["abs_error"] - (t["miss_ratio"] - t["reference"]).abs()).abs().max() < 1e-12
    assert png.exists() and f"fcsim: wrote {out}" in r.stderr
    out, png = tmp_path / "s.csv", tmp_path / "s.png"
    seeded = ("--compare", "--seeds", "3", "--out", out, "--plot", png)
    r = cli("mrc", trace, "--method", "shards", "--rate", "0.5", *seeded)
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(out)
    assert {"seed", "miss_ratio", "reference", "abs_error"} <= set(t.columns) and t["seed"].nunique() == 3
    assert png.exists()


def test_trace_info_prints_the_start_as_a_date() -> None:
    # MSR Cambridge times are Windows FILETIME: hm_0 starts on 22 February 2007 (the traces'
    # week began then); --json keeps the raw ns.
    r = cli("trace", "info", TRACES / "msr_hm_0_excerpt1000.csv")
    assert r.returncode == 0, r.stderr
    assert "first at 2007-02-22 17:22:09 UTC (Windows FILETIME)" in r.stdout
    r = cli("trace", "info", TRACES / "msr_hm_0_excerpt1000.csv", "--json")
    j = json.loads(r.stdout)
    assert j["time_first_ns"] > 10**19 and j["trace"] == str(TRACES / "msr_hm_0_excerpt1000.csv")


def test_run_plot_facets_one_setting_and_refuses_two(tmp_path: Path) -> None:
    # Issue 42: --set stack.disks=1,8 drew one p99 per size, the mean of 1 disk's and 8 disks'.
    systor = TRACES / "systor17_vdi_sample1000.csv.gz"
    ssd = ("--set", "stack.kind=ssd-cache", "--set", "stack.disks=1,8")
    png = tmp_path / "p.png"
    r = cli("run", systor, "--policy", "lru", "--size", "5%,10%", *ssd, "--plot", png)
    assert r.returncode == 0, r.stderr
    assert png.exists()
    # Two settings that vary apart: the rows are printed and written, the figure refused.
    out, png = tmp_path / "two.csv", tmp_path / "two.png"
    two = (*ssd, "--set", "stack.disk=flat,15k", "--out", out, "--plot", png)
    r = cli("run", systor, "--policy", "lru", "--size", "5%,10%", *two)
    assert r.returncode != 0 and not png.exists() and out.exists()
    assert len(r.stdout.splitlines()) == 9 and f"fcsim: wrote {out} (rows)" in r.stderr
    assert "differ in disk, stack_disks, which are on no axis" in r.stderr.splitlines()[-1]


def test_run_plot_with_seeds_draws_each_point_at_its_mean_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A percent size of a synth: trace resolves to pages per seed; the summary's size_pages is
    # null there, and the figure was empty.
    from fcsim import plot

    seen = []
    monkeypatch.setattr(plot, "run_plot", lambda df, path, title=None: seen.append(df))
    spec = "synth:zipf,alpha=0.9,requests=5000,pages=2000"
    r = cli(
        "run", spec, "--policy", "lru", "--size", "1%,10%", "--seeds", "2", "--plot", tmp_path / "s.png", "-q"
    )
    assert r.returncode == 0, r.stderr
    assert seen[0]["size_pages"].notna().all() and len(seen[0]) == 2


def test_a_response_time_is_printed_beside_the_time_scale_it_ran_at() -> None:
    # One time scale other than the trace's own is no axis, so no axis column says it: the table
    # shows time_scale. At the trace's own times, or as an axis, it does not repeat it.
    t = TRACES / "systor17_vdi_sample1000.csv.gz"

    def header(*sets: str) -> list[str]:
        args = [x for s in sets for x in ("--set", s)]
        r = cli("run", t, "--policy", "lru", "--size", "1%", "--device", "gasa", *args)
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()[0].split()

    fast = header("sim.time_scale=0.1")
    assert fast.index("time_scale") == fast.index("size_pages") + 1
    assert "time_scale" not in header() and "time_scale" not in header("sim.time_scale=1,0.1")
