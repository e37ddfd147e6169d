"""Writes the seed inputs of the fuzz corpus (fuzz/corpus/TARGET/seed-*) from the reader
fixtures, in the input layout of fuzz/src/lib.rs: one byte of options (bit 0 skip bad lines,
bit 1 detect the format, bit 2 keep one volume, bit 3 which), for a text format a line of
`key=value` options joined by `&`, then the trace file. Run once when a format or fixture is
added (the corpus then grows by fuzzing and is minimised by `make fuzz-merge`):

    .venv/bin/python fuzz/seed.py
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "crates/fcsim/tests/fixtures"
CORPUS = ROOT / "fuzz/corpus"
BINARY = {"fct", "oracle-general", "fct-header"}

GENERIC = "offset=sector&size=bytes&time=ts_us&op=kind&volume=dev&offset_unit=512&time_unit=us"
SEEDS = {
    "oracle-general": [("sample.oracleGeneral.bin", "")],
    "blkparse": [("blkparse.txt", "")],
    "msr": [("msr_hm_0.csv", ""), ("msr_bad_line.csv", "")],
    "systor": [("systor17.csv", "")],
    "vscsi": [("cloudphysics.vscsi.csv", ""), ("truncated.csv.gz", "")],
    "lcs-csv": [("lcs.csv", "")],
    "spc": [("financial.spc", "")],
    "tencent": [("tencent.csv", "")],
    "diskmon": [("diskmon.trace", "")],
    "fiu": [("homes.blkparse", "")],
    "mqsim": [(f"mqsim_tpcc.trace{z}", "") for z in ("", ".gz", ".zst", ".xz")],
    "disksim": [("disksim.trace", "")],
    "arc": [("arc_p2.lis", ""), ("truncated.lis.zst", "")],
    "csv": [("generic.csv", GENERIC), ("golden.csv", "offset=1&size=2&header=false")],
}


def write(target: str, name: str, data: bytes) -> None:
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data)


def main() -> None:
    fcsim = Path(sys.executable).parent / "fcsim"
    with tempfile.TemporaryDirectory() as tmp:
        fct = Path(tmp) / "msr_hm_0.fct"
        subprocess.run(
            [fcsim, "trace", "convert", FIXTURES / "msr_hm_0.csv", "-o", fct, "--annotate-next"],
            check=True,
            capture_output=True,
        )
        fct_bytes = fct.read_bytes()
    write("fct-header", "msr_hm_0.fct", fct_bytes)
    for flags in (0, 2, 5):
        write("fct", f"msr_hm_0.fct-{flags}", bytes([flags]) + fct_bytes)
    for target, seeds in SEEDS.items():
        for fixture, params in seeds:
            data = (FIXTURES / fixture).read_bytes()
            line = b"" if target in BINARY else params.encode() + b"\n"
            # Named format, then detected (options 2), then one volume and skipping (options 5).
            for flags in (0, 2, 5):
                write(target, f"{fixture}-{flags}", bytes([flags]) + line + data)


if __name__ == "__main__":
    main()
