"""`fcsim trace catalogue` and `fcsim trace fetch`, entirely on loopback: a threaded HTTP server
with byte-range support serves fixture tar archives (and a plain file) named by a test
catalogue (``FCSIM_CATALOGUE``); it can drop a connection mid-way or flip a byte. Nothing here
touches the internet."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import re
import socket
import tarfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import fcsim
from conftest import ROOT, TRACES
from fcsim import catalogue, cli, sweep
from fcsim.fetch import FetchError, fetch


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_GET(self) -> None:
        body = self.server.files.get(self.path)
        if body is None:
            self.send_error(404, "Not Found")
            return
        self.server.requests.append(self.path)
        start, end = 0, len(body)
        rng = self.headers.get("Range")
        if rng:
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng)
            assert m, rng
            start, end = int(m[1]), int(m[2]) + 1 if m[2] else len(body)
        part = body[start:end]
        self.send_response(206 if rng else 200)
        if rng:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(body)}")
        self.send_header("Content-Length", str(len(part)))
        self.end_headers()
        if len(part) > 4096 and self.server.drop_after:
            # Send part of the body, then break the connection.
            self.wfile.write(part[: self.server.drop_after])
            self.wfile.flush()
            self.server.drop_after = 0
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.wfile.write(part)

    def log_message(self, *args: Any) -> None:
        pass


class Server(ThreadingHTTPServer):
    files: dict[str, bytes]
    requests: list[str]
    drop_after: int


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server(("127.0.0.1", 0), Handler)
    s.files, s.requests, s.drop_after = {}, [], 0
    t = threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield s
    s.shutdown()
    s.server_close()


def tar(members: dict[str, bytes]) -> tuple[bytes, dict[str, int]]:
    """A tar archive of ``members`` and the offset of each member's header."""
    buf = io.BytesIO()
    offsets = {}
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            offsets[name] = buf.tell()
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue(), offsets


HM_0 = gzip.compress((TRACES / "msr_hm_0_excerpt1000.csv").read_bytes(), mtime=0)
WEB_0 = bytes(range(256)) * 400  # 100 KiB
PLAIN = bytes(reversed(range(256))) * 100


def family(name: str, format: str, body: str) -> str:
    head = f'[[family]]\nname = "{name}"\ntitle = "fixture"\nformat = "{format}"\nsize = "-"\n'
    return (
        head + 'source = { text = "a test", checked = false }\nlicence = "-"\nchecksums = "-"\n' + body + "\n"
    )


@pytest.fixture
def cat(server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A catalogue of the fixture archives; the trace cache in tmp_path/cache."""
    a1, off1 = tar({"MSR-Cambridge/DISCLAIMER.txt": b"fixture\n", "MSR-Cambridge/hm_0.csv.gz": HM_0})
    a2, _ = tar({"MSR-Cambridge/MD5.txt": b"x" * 700, "MSR-Cambridge/web_0.csv.gz": WEB_0})
    server.files.update({"/a1.tar": a1, "/a2.tar": a2, "/cp/w01.bin": PLAIN})
    base = f"http://127.0.0.1:{server.server_address[1]}"
    md5 = {k: hashlib.md5(v).hexdigest() for k, v in (("hm_0", HM_0), ("web_0", WEB_0))}
    msr = f"""member = "MSR-Cambridge/{{file}}"
archives = [
    {{ name = "a1.tar", url = "{base}/a1.tar", size = "small", checked = false }},
    {{ name = "a2.tar", url = "{base}/a2.tar", size = "small", checked = false }},
]

[[family.volume]]
name = "hm_0"
file = "hm_0.csv.gz"
md5 = "{md5["hm_0"]}"
archive = "a1.tar"
offset = {off1["MSR-Cambridge/hm_0.csv.gz"]}
size = {len(HM_0)}

[[family.volume]]
name = "web_0"
file = "web_0.csv.gz"
md5 = "{md5["web_0"]}"
"""
    cp = f'mirror = {{ url = "{base}/cp/{{volume}}.bin", volume = "w[0-9][0-9]", checked = false }}'
    text = family("msr", "msr", msr) + family("cp", "oracle-general", cp)
    path = tmp_path / "catalogue.toml"
    path.write_text(text)
    monkeypatch.setenv("FCSIM_CATALOGUE", str(path))
    monkeypatch.setenv("FCSIM_TRACE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_fetched_volume_is_byte_identical_and_runs(cat: Path, server: Server) -> None:
    path = fetch("msr/hm_0")
    assert path == cat / "msr" / "hm_0.csv.gz" and path.read_bytes() == HM_0
    # One range for the header, one for the member: nothing else of the archive.
    assert server.requests == ["/a1.tar", "/a1.tar"]
    assert not list(cat.glob("msr/*.part"))
    assert fcsim.trace_info("msr/hm_0")["requests"] == 1000
    assert fetch("msr/hm_0") == path  # already there: no download
    assert len(server.requests) == 2


def test_volume_without_offset_is_found_by_its_tar_header(cat: Path) -> None:
    assert fetch("msr/web_0").read_bytes() == WEB_0


def test_a_wrong_offset_falls_back_to_the_tar_headers(cat: Path, tmp_path: Path) -> None:
    path = tmp_path / "catalogue.toml"
    path.write_text(re.sub(r"offset = \d+", "offset = 0", path.read_text()))
    notes: list[str] = []
    assert fetch("msr/hm_0", note=notes.append).read_bytes() == HM_0
    [note] = notes
    assert note.startswith(
        "msr/hm_0: the tar header at byte 0 of a1.tar is MSR-Cambridge/DISCLAIMER.txt of 8"
    )


def test_broken_connection_resumes(cat: Path, server: Server) -> None:
    server.drop_after = 5000
    assert fetch("msr/web_0").read_bytes() == WEB_0
    assert server.drop_after == 0  # it did drop
    assert server.requests[-2:] == ["/a2.tar", "/a2.tar"]  # the member, then the rest of it
    server.drop_after = 1000
    notes: list[str] = []
    assert fetch("cp/w01", note=notes.append).read_bytes() == PLAIN
    assert server.drop_after == 0
    assert notes == ["cp/w01: no published checksum, so the download is not verified"]


def test_a_part_file_is_resumed_by_the_next_fetch(cat: Path, server: Server) -> None:
    (cat / "msr").mkdir(parents=True)
    (cat / "msr" / "web_0.csv.gz.part").write_bytes(WEB_0[:30000])
    assert fetch("msr/web_0").read_bytes() == WEB_0
    assert not (cat / "msr" / "web_0.csv.gz.part").exists()


def test_a_corrupted_byte_is_refused(cat: Path, server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    a1 = bytearray(server.files["/a1.tar"])
    a1[server.files["/a1.tar"].index(HM_0) + 100] ^= 0xFF
    server.files["/a1.tar"] = bytes(a1)
    assert cli.main(["trace", "fetch", "msr/hm_0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MD5 of the download is" in err and "msr/hm_0" in err
    assert not list((cat / "msr").iterdir())  # neither the final file nor a part


def test_http_404_is_one_line(cat: Path, server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    del server.files["/cp/w01.bin"]
    assert cli.main(["trace", "fetch", "cp/w01"]) == 2
    err = capsys.readouterr().err
    url = f"http://127.0.0.1:{server.server_address[1]}/cp/w01.bin"
    assert err == f"fcsim: error: cp/w01: GET {url}: HTTP 404 Not Found\n"


def test_offline_is_one_line_exit_2(cat: Path, server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    port = server.server_address[1]
    server.shutdown()
    server.server_close()  # nothing listens on the port now: connection refused
    assert cli.main(["trace", "fetch", "msr/web_0"]) == 2
    err = capsys.readouterr().err
    reason = f"cannot reach 127.0.0.1:{port} (Connection refused); fetching needs the network"
    assert err == f"fcsim: error: msr/web_0: {reason}\n"


def test_unfetched_names_say_how_to_fetch(
    cat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "msr/hm_0", "--policy", "lru", "--size", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run 'fcsim trace fetch msr/hm_0'" in err
    assert cli.main(["trace", "fetch", "msr/nope"]) == 2
    assert "no volume 'nope' in the catalogue's msr family (volumes: hm_0, web_0)" in capsys.readouterr().err
    # A family alone names no volume; a family whose mirror names volumes by a pattern says it.
    assert cli.main(["trace", "fetch", "msr"]) == 2
    family = "msr: a family of the trace catalogue; fetch one of its volumes, msr/VOLUME"
    assert family in capsys.readouterr().err
    # An experiment file's catalogue names are read from the cache.
    exp = tmp_path / "e.toml"
    exp.write_text('name = "e"\ntraces = ["msr/hm_0"]\npolicies = ["lru"]\nsizes = ["10"]\n')
    with pytest.raises(fcsim.TraceError, match="fcsim trace fetch msr/hm_0"):
        sweep.load(exp)
    fetch("msr/hm_0")
    [t] = sweep.load(exp).parts[0].traces
    assert t.path == str(cat / "msr" / "hm_0.csv.gz")


def test_a_volume_a_mirror_names_by_pattern_is_said_with_the_pattern() -> None:
    from fcsim import catalogue

    pattern = r"no volume 'w1' .* \(volumes: any name matching w\[0-9\]\[0-9\]\)"
    with pytest.raises(fcsim.TraceError, match=pattern):
        catalogue.lookup("cloudphysics/w1")
    assert catalogue.lookup("cloudphysics/w01") is not None


def test_catalogue_lists_every_family_and_marks_addresses_unchecked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("FCSIM_CATALOGUE", raising=False)
    monkeypatch.setenv("FCSIM_TRACE_DIR", str(tmp_path))
    assert cli.main(["trace", "catalogue"]) == 0
    out = capsys.readouterr().out
    for family in ("msr", "umass", "fiu", "cloudphysics", "alibaba", "tencent", "systor17"):
        assert f"\n{family}: " in out
    fams = catalogue.families()
    msr = next(f for f in fams if f["name"] == "msr")
    assert len(msr["volume"]) == 36 and all(re.fullmatch(r"[0-9a-f]{32}", v["md5"]) for v in msr["volume"])
    # Every address is marked unchecked, in the data and in the listing.
    places = [a for f in fams for a in [f["source"], f.get("mirror"), *f.get("archives", [])] if a]
    addresses = [a for a in places if not a.get("text", "").startswith("not stated")]
    assert len(addresses) >= 10 and all(a["checked"] is False for a in addresses)
    for line in out.splitlines():
        place = line.lstrip().startswith(("source", "mirror")) and not line.endswith(("none known", "notes"))
        if place or "http" in line:
            assert line.endswith("(unchecked)") or "(unchecked), about" in line, line


def test_catalogue_facts_match_public_sources() -> None:
    """The MSR MD5s, offsets and sizes are those of the project's notes, where they are."""
    notes = Path("/work/shared/traces/PUBLIC-SOURCES.md")
    if not notes.exists():
        pytest.skip("PUBLIC-SOURCES.md is not on this machine")
    text = notes.read_text()
    msr = {v.name: v for v in catalogue.volumes(catalogue.families()[0])}
    for name, md5 in re.findall(r"^\| (\w+)\.csv\.gz \| ([0-9a-f]{32}) \|$", text, re.M):
        assert msr[name].md5 == md5
    for name, archive, offset, size in re.findall(
        r"^\| (\w+) \| (msr-cambridge\d\.tar) \| (\d+) \| (\d+) \|", text, re.M
    ):
        v = msr[name]
        assert (v.archive and v.archive["name"], v.offset, v.size) == (archive, int(offset), int(size))


# A server that misbehaves (issue 24): scripted raw replies from fuzz/fetch_response.py's
# loopback server, the fetcher's limits small so that each test takes a second or two.

spec = importlib.util.spec_from_file_location("fetch_response", ROOT / "fuzz" / "fetch_response.py")
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)

LIMITS: dict[str, Any] = {"connect_timeout": 1.0, "stall_timeout": 0.5, "deadline": 1.5, "retries": 3}


@pytest.fixture
def raw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The loopback server of raw replies (set ``raw.reply``) and its catalogue (fuzz.catalogue:
    ``t/v`` and ``t/w``, members of t.tar, ``w``'s header at byte 0; ``p/p1``, a plain file)."""
    with fuzz.Loopback(lambda head: [b""]) as s:
        path = tmp_path / "catalogue.toml"
        path.write_text(fuzz.catalogue(s.base))
        monkeypatch.setenv("FCSIM_CATALOGUE", str(path))
        monkeypatch.setenv("FCSIM_TRACE_DIR", str(tmp_path / "cache"))
        s.cache = tmp_path / "cache"
        yield s


def asked(head: bytes) -> tuple[int, int | None]:
    """The first byte and the end (None: to the end) of a request's Range."""
    m = re.search(rb"\r\nRange: bytes=(\d+)-(\d*)\r\n", head)
    assert m, head
    return int(m[1]), int(m[2]) + 1 if m[2] else None


def ranged(body: bytes) -> Any:
    """A reply function serving ``body`` by byte ranges."""

    def reply(head: bytes) -> Iterator[bytes]:
        start, end = asked(head)
        part = body[start:end]
        yield (
            b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %d-%d/%d\r\nContent-Length: %d\r\n\r\n"
            % (
                start,
                start + len(part) - 1,
                len(body),
                len(part),
            )
            + part
        )

    return reply


def checksummed(block: bytes) -> bytes:
    """A 512 B tar header with its checksum field set to match its bytes."""
    block = block[:148] + b" " * 8 + block[156:]
    return block[:148] + b"%06o\0 " % sum(block) + block[156:]


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a CLI command that must fail with exit status 2."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fcsim: error: "), err
    return err


def test_a_body_cut_short_without_length_or_checksum_is_refused(
    raw: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # No Content-Length, no chunked encoding: the end of the connection may be the end of the
    # file or a cut, and no checksum tells; nothing is kept under the final name (issue 24, 7).
    raw.reply = lambda head: [b"HTTP/1.1 200 OK\r\n\r\n" + PLAIN[:1000]]
    err = fails(["trace", "fetch", "p/p1"], capsys)
    assert "p/p1: " in err and "neither a length nor a chunked end" in err
    assert not list((raw.cache / "p").iterdir())


def test_broken_chunked_encoding_is_resumed_and_never_kept_cut(
    raw: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + PLAIN[:1024] + b"\r\nzz\r\n"
    raw.reply = lambda head: [chunked] if asked(head)[0] == 0 else ranged(PLAIN)(head)
    assert cli.main(["trace", "fetch", "p/p1"]) == 0
    assert (raw.cache / "p" / "p1.bin").read_bytes() == PLAIN
    assert [asked(h) for h in raw.heads] == [(0, None), (1024, None)]
    # Broken every time: a resume per break, then an error; the bytes so far stay in .part.
    (raw.cache / "p" / "p1.bin").unlink()
    capsys.readouterr()
    raw.reply = lambda head: [
        chunked.replace(
            b"200 OK", b"206 Partial Content\r\nContent-Range: bytes %d-25599/25600" % asked(head)[0]
        )
    ]
    err = fails(["trace", "fetch", "p/p1"], capsys)
    assert "the connection broke 6 times" in err and "p1.bin.part" in err
    assert [p.name for p in (raw.cache / "p").iterdir()] == ["p1.bin.part"]


def test_a_server_that_drops_an_endless_body_is_given_up_on(raw: Any) -> None:
    raw.reply = lambda head: [
        b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %d-999999999999999/1000000000000000\r\n"
        b"Content-Length: %d\r\n\r\n" % (asked(head)[0], 10**15 - asked(head)[0]) + PLAIN[:1000]
    ]
    with pytest.raises(FetchError, match=r"p/p1: .*the connection broke 4 times, at byte 4,000"):
        fetch("p/p1", **LIMITS)
    assert len(raw.heads) == 4  # the first request and 3 resumes (retries=3)


def test_a_trickle_stops_at_the_deadline(raw: Any) -> None:
    def trickle(head: bytes) -> Iterator[bytes]:
        yield b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
        for b in PLAIN[:1000]:
            time.sleep(0.1)  # within the stall timeout, so only the deadline stops it
            yield bytes([b])

    raw.reply = trickle
    t = time.monotonic()
    with pytest.raises(FetchError, match=r"p/p1: not done within the deadline of 1.5 s"):
        fetch("p/p1", **LIMITS)
    assert time.monotonic() - t < 2.0


def test_a_server_that_sends_nothing_is_given_up_on_at_the_stall_timeout(raw: Any) -> None:
    def silent(head: bytes) -> Iterator[bytes]:
        time.sleep(3)
        yield b""

    raw.reply = silent
    t = time.monotonic()
    with pytest.raises(FetchError, match=r"p/p1: GET .*: the request failed \(nothing received for 0.5 s\)$"):
        fetch("p/p1", **LIMITS)
    assert time.monotonic() - t < 1.0


def test_an_endless_archive_stops_at_the_deadline(raw: Any) -> None:
    header = tarfile.TarInfo("d/other").tobuf(tarfile.USTAR_FORMAT)
    raw.reply = lambda head: [
        b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %d-%d/*\r\nContent-Length: 512\r\n\r\n"
        % (asked(head)[0], asked(head)[0] + 511)
        + header
    ]
    with pytest.raises(FetchError, match=r"t/v: not done within the deadline of 1.5 s"):
        fetch("t/v", **LIMITS)
    assert len(raw.heads) > 10


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_reply_longer_than_the_range_asked_for_is_refused_unread(raw: Any, chunked: bool) -> None:
    def huge(head: bytes) -> Iterator[bytes]:
        length = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: 5000000000"
        yield b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-4999999999/*\r\n%s\r\n\r\n" % length
        while True:
            yield b"10000\r\n" + bytes(1 << 16) + b"\r\n" if chunked else bytes(1 << 16)

    raw.reply = huge
    with pytest.raises(FetchError, match=r"t/w: GET .*/t.tar: .* more than the 512 bytes asked for"):
        fetch("t/w", **LIMITS)


TAR_V = tar({"d/v.bin": PLAIN})[0]
BAD_SIZE = checksummed(TAR_V[:124] + b"zzzzzzzzzzz\0" + TAR_V[136:512])


def gnu_long_name(name: bytes) -> bytes:
    """An archive whose first member's GNU long name is ``name`` (not UTF-8), then d/v.bin."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT, encoding="latin-1") as t:
        for member, data in ((name.decode("latin-1"), b"x"), ("d/v.bin", PLAIN)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.parametrize(
    ("volume", "reply", "needle"),
    [
        ("p/p1", b"SPAM\r\n\r\n", "not an HTTP reply (BadStatusLine: SPAM"),
        (
            "p/p1",
            b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
            "not an HTTP reply (LineTooLong: got more than 65536 bytes",
        ),
        ("p/p1", b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n", "more than 100 headers"),
        ("p/p1", b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n" + PLAIN, "Content-Length 'abc'"),
        (
            "t/v",
            BAD_SIZE,
            "the tar header at byte 0 of t.tar: its size field b'zzzzzzzzzzz\\x00' is not an octal number",
        ),
    ],
    ids=["bad-status-line", "header-over-64KiB", "101-headers", "content-length-abc", "non-octal-tar-size"],
)
def test_a_malformed_reply_is_one_error_line(
    raw: Any, capsys: pytest.CaptureFixture[str], volume: str, reply: bytes, needle: str
) -> None:
    raw.reply = ranged(reply) if volume.startswith("t/") else lambda head: [reply]
    err = fails(["trace", "fetch", volume], capsys)
    assert err.startswith(f"fcsim: error: {volume}: ") and needle in err, err


def test_a_member_name_not_in_utf8_is_passed_over(raw: Any) -> None:
    raw.reply = ranged(gnu_long_name(b"d/" + b"\xff" * 120))
    assert fetch("t/v", **LIMITS).read_bytes() == PLAIN


def test_fetch_checks_its_arguments() -> None:
    for call, needle in [
        (lambda: fetch(None), "name=None: expected a string"),  # type: ignore[arg-type]
        (lambda: fetch("p/p1", note=3), "note=3: expected a function or None"),  # type: ignore[arg-type]
        (lambda: fetch("p/p1", deadline=0), "deadline=0: expected a number of seconds above 0"),
        (lambda: fetch("p/p1", stall_timeout=float("nan")), "stall_timeout=nan: expected a number"),
        (lambda: fetch("p/p1", retries=-1), "retries=-1: expected an integer from 0"),
    ]:
        with pytest.raises(fcsim.ConfigError, match=re.escape(needle)):
            call()


def test_server_text_is_escaped_in_errors_and_notes(raw: Any, capsys: pytest.CaptureFixture[str]) -> None:
    raw.reply = lambda head: [b"HTTP/1.1 404 Re\x1b]0;pwned\x07ad\r\nContent-Length: 0\r\n\r\n"]
    err = fails(["trace", "fetch", "p/p1"], capsys)
    assert err == f"fcsim: error: p/p1: GET {raw.base}/p/p1.bin: HTTP 404 Re\\x1b]0;pwned\\x07ad\n"
    # A tar member's name in a note (t/w's header at byte 0 names another member).
    body, _ = tar({"d/\x1b[2J\rx": b"1", "d/w.bin": PLAIN})
    raw.reply = ranged(body)
    notes: list[str] = []
    assert fetch("t/w", note=notes.append, **LIMITS).read_bytes() == PLAIN
    assert notes[0].startswith("t/w: the tar header at byte 0 of t.tar is d/\\x1b[2J\\rx of 1 bytes")
    assert all(n.isprintable() for n in notes)
