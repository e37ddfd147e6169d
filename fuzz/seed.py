"""Writes the seed inputs of the fuzz corpus (fuzz/corpus/TARGET/seed-*) from the reader
fixtures, in the input layout of fuzz/src/lib.rs: one byte of options (bit 0 skip bad lines,
bit 1 detect the format, bit 2 keep one volume, bit 3 which), for a text format a line of
`key=value` options joined by `&`, then the trace file. The fetch-response seeds are the replies
a well-behaved server (and a few kinds of failing one) gives the fetcher, recorded in the input
layout of fuzz/fetch_response.py. Run once when a format or fixture is added (the corpus then
grows by fuzzing and is minimised by `make fuzz-merge`):

    .venv/bin/python fuzz/seed.py
"""

import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
    fetch_response()


def ranged(body: bytes, head: bytes) -> bytes:
    """A server's reply with the byte range of ``body`` that request ``head`` asks for."""
    m = re.search(rb"\r\nRange: bytes=(\d+)-(\d*)\r\n", head)
    assert m is not None, head
    start, end = int(m[1]), int(m[2]) + 1 if m[2] else len(body)
    part = body[start:end]
    rng = b"Content-Range: bytes %d-%d/%d\r\n" % (start, start + len(part) - 1, len(body))
    return b"HTTP/1.1 206 Partial Content\r\n%sContent-Length: %d\r\n\r\n%s" % (rng, len(part), part)


def archive(members: list[tuple[str, int]], form: int) -> bytes:
    """A tar archive in format ``form`` of members (name, size), each of repeated bytes."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=form) as t:
        for name, size in members:
            info = tarfile.TarInfo(name)
            info.size = size
            t.addfile(info, io.BytesIO(bytes(range(256)) * (size // 256) + bytes(size % 256)))
    return buf.getvalue()


def fetch_response() -> None:
    """Seeds of fetch-response: for each volume of fuzz/fetch_response.py's catalogue and a way
    of serving it, the replies the fetcher got, in the order it asked for them."""
    sys.path.insert(0, str(ROOT / "fuzz"))
    import fetch_response as harness

    from fcsim.fetch import FetchError, fetch

    plain = bytes(range(256)) * 8
    tar_w = archive([("d/w.bin", 700)], tarfile.USTAR_FORMAT)
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n" + plain[:256] + b"\r\n0\r\n\r\n"
    served = {
        "plain-206": ("p/p1", lambda h: ranged(plain, h)),
        "plain-200": ("p/p1", lambda h: b"HTTP/1.1 200 OK\r\nContent-Length: 2048\r\n\r\n" + plain),
        "plain-chunked": ("p/p1", lambda h: chunked),
        "plain-close-delimited": ("p/p1", lambda h: b"HTTP/1.0 200 OK\r\n\r\n" + plain),
        "plain-404": ("p/p1", lambda h: b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
        "plain-redirect": (
            "p/p1",
            lambda h: ranged(plain, h) if b"GET /q" in h else b"HTTP/1.1 302 Found\r\nLocation: /q\r\n\r\n",
        ),
        "tar-offset": ("t/w", lambda h: ranged(tar_w, h)),
        "tar-offset-moved": (
            "t/w",
            lambda h: ranged(archive([("d/x", 10), ("d/w.bin", 700)], tarfile.USTAR_FORMAT), h),
        ),
        "tar-walk-gnu": (
            "t/v",
            lambda h: ranged(archive([("d/" + "x" * 120, 3), ("d/v.bin", 900)], tarfile.GNU_FORMAT), h),
        ),
        "tar-walk-pax": (
            "t/v",
            lambda h: ranged(archive([("d/\u00e9" * 60, 3), ("d/v.bin", 900)], tarfile.PAX_FORMAT), h),
        ),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for label, (volume, reply) in served.items():
            replies: list[bytes] = []

            def record(head: bytes, reply: Any = reply, replies: list[bytes] = replies) -> Iterator[bytes]:
                replies.append(reply(head))
                yield replies[-1]

            with harness.Loopback(record) as server:
                cat = Path(tmp) / f"{label}.toml"  # a file per server: catalogues are cached by path
                cat.write_text(harness.catalogue(server.base))
                os.environ["FCSIM_CATALOGUE"] = str(cat)
                os.environ["FCSIM_TRACE_DIR"] = str(Path(tmp) / label)
                try:
                    print(f"{label}: {fetch(volume, **harness.LIMITS).stat().st_size} bytes")
                except FetchError as e:
                    print(f"{label}: {e}")
            selector = ("t/v", "t/w", "p/p1").index(volume)
            write("fetch-response", label, bytes([selector]) + harness.SEP.join(replies))


if __name__ == "__main__":
    main()
