"""Citations stay consistent and free of the errors found by the citation audit.

Pure Python: reads the repository's files, needs neither the Rust core nor the traces.

1. The README's policy table gives, for every policy, exactly the `source:` string of the
   policy's `INFO` in `crates/fcsim/src/policy/` (what `fcsim policies` prints), and lists every
   registered policy.
2. Author lists, titles and pointers that the seed papers in shared/papers contradict appear
   nowhere in the code, the Python package, the README or the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
POLICY_DIR = ROOT / "crates" / "fcsim" / "src" / "policy"
README = ROOT / "README.md"
TABLE_HEADER = "| `--policy` | policy | source | parameters (`--set POLICY.KEY=V`) |"

# Each entry contradicts the paper's own first page or a seed paper's reference list.
CONTRADICTED = [
    "Yuan et al",  # GASA is by Chu Li, Dan Feng, Yu Hua, Wen Xia, Fang Wang
    'Wang et al., "LCR',  # LCR is by Caiyin Liu et al.
    "Sun et al",  # LCR again (the old experiment file)
    "LCR: Load-aware cache replacement for",  # the title has "Algorithm": "... Replacement Algorithm for"
    "Huang, Zhang, Li, Wang, Xie",  # LARC: Huang, Wei, Feng, Chen, Chen (TOS) / Huang, Wei, Chen, Chen, Feng
    "Zhang, Li, Wang, Xie",
    "Yoo, Koh",  # LRU-WSR: Jung, Shim, Park, Kang, Cha (GASA [15], LCR [15])
    "Su, Yang",  # CCF-LRU: Li, Jin, Su, Cui, Yue (GASA [16])
    'Wang, Li, "PT',  # PT-LRU: Cui, Wu, Wang, Duan (GASA [17])
    "Jiang, Hu, Lin",  # GCaR: Wu, Lin, Mao, Jiang (LCR [24])
    "GC-aware request steering",  # not the GCaR title
    '"I/O Deduplication", FAST',  # only the ACM TOS 2010 version is cited (dynamic-allocation [3])
    "offline-bounds paper §2",  # FIFO is not a baseline of the offline-bounds paper
    "baseline in the LARC slides and the offline-bounds paper",
    "LCR Tables I",  # 1.5 ms erase is LCR Table II only (Table I says 2 ms)
    "LCR Table I-II",
    "LCR §II.B, Fig. 2",  # Fig. 2 and the load balance rate are in LCR §II.A
]

SCANNED = [ROOT / "crates", ROOT / "python", README, ROOT / "tests"]
SKIP_DIRS = {"target", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".venv", "node_modules"}


def rust_string(body: str) -> str:
    """The value of a Rust string literal's body (between the quotes)."""
    body = re.sub(r"\\\n\s*", "", body)  # line continuation
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def info_fields(path: Path) -> dict[str, str] | None:
    """`name` and `source` of the `INFO` a policy file defines, or None without one."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"\bINFO\s*:\s*PolicyInfo\s*=\s*PolicyInfo\s*\{(.*?)\n\};", text, re.S)
    if m is None:
        return None
    fields = {}
    for key in ("name", "source"):
        f = re.search(rf"^\s*{key}\s*:\s*\"((?:[^\"\\]|\\.)*)\"", m.group(1), re.S | re.M)
        assert f is not None, f'{path.relative_to(ROOT)}: INFO has no `{key}: "..."` string'
        fields[key] = rust_string(f.group(1))
    return fields


def policy_files() -> dict[str, tuple[Path, str]]:
    """Policy name -> (file, source) for every file of the policy directory that defines INFO."""
    out: dict[str, tuple[Path, str]] = {}
    for path in sorted(POLICY_DIR.glob("*.rs")):
        fields = info_fields(path)
        if fields is None:
            continue
        name = fields["name"]
        assert name not in out, f"policy name {name!r} defined by {out[name][0].name} and {path.name}"
        out[name] = (path, fields["source"])
    return out


def registered_modules() -> list[str]:
    """Modules named in the `POLICIES` registry of policy/mod.rs, in order."""
    text = (POLICY_DIR / "mod.rs").read_text(encoding="utf-8")
    m = re.search(r"POLICIES\s*:\s*&\[PolicyInfo\]\s*=\s*&\[(.*?)\];", text, re.S)
    assert m is not None, "policy/mod.rs: no `POLICIES: &[PolicyInfo] = &[...]` registry found"
    modules = re.findall(r"(\w+)::INFO", m.group(1))
    assert modules, "policy/mod.rs: the POLICIES registry names no `module::INFO`"
    return modules


def readme_table() -> dict[str, str]:
    """Policy name -> source cell of the README's policy table."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert TABLE_HEADER in lines, f"README.md: policy table header not found: {TABLE_HEADER}"
    i = lines.index(TABLE_HEADER) + 2  # skip the |---| row
    rows: dict[str, str] = {}
    while i < len(lines) and lines[i].startswith("|"):
        cells = [c.strip() for c in lines[i].strip().strip("|").split(" | ")]
        assert len(cells) == 4, f"README.md:{i + 1}: expected 4 cells, got {len(cells)}: {lines[i]}"
        name = cells[0].strip("`")
        assert name not in rows, f"README.md:{i + 1}: policy {name!r} listed twice"
        rows[name] = cells[2]
        i += 1
    assert rows, "README.md: the policy table has no rows"
    return rows


def test_readme_policy_sources_match_info():
    table = readme_table()
    files = policy_files()
    problems = []
    for name, cell in table.items():
        if name not in files:
            problems.append(
                f'README row `{name}`: no policy file in {POLICY_DIR.relative_to(ROOT)} has `name: "{name}"`'
            )
            continue
        path, source = files[name]
        if cell != source:
            problems.append(
                f"README row `{name}`: source cell {cell!r} != {path.name}'s INFO source {source!r}"
            )
    assert not problems, "README policy table disagrees with the policy files:\n  " + "\n  ".join(problems)


def test_every_registered_policy_in_readme_table():
    table = readme_table()
    names_by_file = {path.stem: name for name, (path, _) in policy_files().items()}
    missing = []
    for module in registered_modules():
        assert module in names_by_file, (
            f"policy/mod.rs registers {module}::INFO but {module}.rs defines no INFO with name and source"
        )
        if names_by_file[module] not in table:
            missing.append(f"{module}.rs (`{names_by_file[module]}`)")
    assert not missing, "registered policies missing from the README policy table: " + ", ".join(missing)


def scanned_files():
    this = Path(__file__).resolve()
    for top in SCANNED:
        paths = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in paths:
            rel = path.relative_to(ROOT)
            if path.resolve() == this or SKIP_DIRS.intersection(rel.parts):
                continue
            try:
                yield rel, path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # binary fixtures


def normalized(text: str) -> str:
    """Comment text joined across lines, so a phrase wrapped over `//!`/`#` lines still matches."""
    text = re.sub(r"\n[ \t]*(?://[!/]?|#+)?[ \t]*", " ", text)
    return re.sub(r"[ \t]+", " ", text)


def test_scanned_tree_is_not_empty():
    files = [rel for rel, _ in scanned_files()]
    assert any(rel.suffix == ".rs" for rel in files), "no Rust file scanned: wrong repository root?"
    assert Path("README.md") in files


@pytest.mark.parametrize("phrase", CONTRADICTED)
def test_no_contradicted_citation(phrase):
    hits = []
    for rel, text in scanned_files():
        for n, line in enumerate(text.splitlines(), 1):
            if phrase in line:
                hits.append(f"{rel}:{n}: {line.strip()}")
        if not any(h.startswith(f"{rel}:") for h in hits) and phrase in normalized(text):
            hits.append(f"{rel}: (wrapped over lines)")
    assert not hits, (
        f"citation text contradicted by the seed papers, {phrase!r}, found in:\n  " + "\n  ".join(hits)
    )
