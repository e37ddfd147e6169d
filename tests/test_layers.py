"""The Python package's modules form layers that a newcomer can read from the bottom up, as the
core's do (``crates/fcsim/tests/layers.rs``; issue 46, item 6): each module imports only
modules of lower layers (:data:`LAYERS`), which also rules out every import cycle, and a module
missing from the table fails. Every ``import`` and ``from ... import`` of ``python/fcsim`` is
read from the source, those inside functions (lazy imports) and under ``TYPE_CHECKING``
included, since a lazy import only hides a circle (or an upward import) until it is called.

An edge goes from a module to the fcsim module it names: ``from fcsim import api`` is an edge
to ``fcsim.api`` (a submodule), ``from fcsim import ConfigError`` or ``import fcsim`` one to
``fcsim`` (the package's ``__init__``). Importing a submodule also runs its package's
``__init__`` first; that implicit edge is left out (else every module imported by
``__init__`` would close a circle through it)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "fcsim"

#: Lowest first. A module may import the modules of every layer before its own.
LAYERS: list[list[str]] = [
    ["fcsim._core"],
    # Leaves: the core's names, terminal text, notes, the row's and tables' schema, the
    # catalogue, the journal and output files.
    [
        "fcsim.registry",
        "fcsim.terminal",
        "fcsim.notes",
        "fcsim.row",
        "fcsim.schema",
        "fcsim.catalogue",
        "fcsim.journal",
        "fcsim.output",
    ],
    ["fcsim.checks", "fcsim.seeds"],
    # One run; fetching traces; the printed tables and figures.
    ["fcsim.simulation", "fcsim.fetch", "fcsim.tables", "fcsim.plot"],
    # A grid's points; traces' statistics, conversion and fidelity reports.
    ["fcsim.grid", "fcsim.traces"],
    ["fcsim.api", "fcsim.pareto", "fcsim.sweep"],
    ["fcsim.reports.testable"],
    ["fcsim.reports.changes", "fcsim.reports.claims", "fcsim.reports.common"],
    [
        "fcsim.reports.admission",
        "fcsim.reports.dynamic",
        "fcsim.reports.gasa",
        "fcsim.reports.larc",
        "fcsim.reports.lcr",
        "fcsim.reports.offline",
    ],
    ["fcsim.reports"],
    ["fcsim"],
    ["fcsim.cli", "fcsim.reports.profile_fidelity"],
]


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    """The package's modules by name: its ``.py`` files, and the compiled ones by their
    ``.pyi`` stubs (``fcsim._core``, which imports nothing of the package)."""
    stubs = [p for p in sorted(package.rglob("*.pyi")) if not p.with_suffix(".py").exists()]
    files = sorted(package.rglob("*.py")) + stubs
    return {_module_name(p, package.parent): p for p in files}


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from <level dots><name> import`` inside ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Per fcsim module, the fcsim modules its source imports (anywhere in the file)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, is_package, node.level, node.module)
                # `from fcsim import api` names a submodule; `from fcsim import X` else the module.
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for t in targets:
                # `import fcsim.reports.larc` and `from fcsim.output import guard`: the longest
                # fcsim module the name starts with.
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != module:
                    edges.add(t)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import circle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_package_has_no_import_cycle() -> None:
    graph = imports(_modules())
    assert "fcsim.api" in graph and "fcsim.registry" in graph
    assert cycles(graph) == [], "import circles (each a set of modules importing one another)"


def upward(graph: dict[str, set[str]], layers: list[list[str]]) -> list[str]:
    """Each import of a module of the same layer or a higher one, and each module missing from
    ``layers``, one line each."""
    layer = {m: i for i, names in enumerate(layers) for m in names}
    problems = [f"{m} is in no layer of LAYERS" for m in sorted(graph) if m not in layer]
    for m in sorted(graph):
        for t in sorted(graph[m]):
            if m in layer and t in layer and layer[t] >= layer[m]:
                problems.append(f"{m} (layer {layer[m]}) imports {t} (layer {layer[t]})")
    return problems


def test_modules_import_only_lower_layers() -> None:
    graph = imports(_modules())
    assert upward(graph, LAYERS) == []
    listed = sorted(m for names in LAYERS for m in names)
    assert listed == sorted(graph), "a layer names a module that is gone"


def test_the_registry_is_a_leaf() -> None:
    """The names the core registers come from a module that imports no other fcsim module but
    the core, so anything may import it."""
    assert imports(_modules())["fcsim.registry"] == {"fcsim._core"}


def test_the_check_finds_a_circle_lazy_imports_included(tmp_path: Path) -> None:
    """The check itself: the api <-> seeds circle of issue 42, made by a lazy import."""
    pkg = tmp_path / "fcsim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from fcsim.api import simulate\n")
    (pkg / "api.py").write_text("from fcsim import seeds as _seeds\n\ndef simulate():\n    pass\n")
    (pkg / "seeds.py").write_text("def table():\n    from fcsim import api\n\n    return api.simulate\n")
    (pkg / "leaf.py").write_text("from . import api\nfrom .api import simulate\n")
    graph = imports(_modules(pkg))
    assert graph["fcsim.leaf"] == {"fcsim.api"}
    assert cycles(graph) == [["fcsim.api", "fcsim.seeds"]]


def test_the_check_finds_an_upward_import(tmp_path: Path) -> None:
    """The layer check itself: a lazy import of a higher layer, one of the same layer, and a
    module the table leaves out are each named."""
    pkg = tmp_path / "fcsim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "checks.py").write_text("def f():\n    from fcsim import api\n")
    (pkg / "seeds.py").write_text("from fcsim.checks import f\n")
    (pkg / "api.py").write_text("from . import seeds\n")
    (pkg / "stray.py").write_text("")
    layers = [["fcsim.checks", "fcsim.seeds"], ["fcsim.api"], ["fcsim"]]
    assert upward(imports(_modules(pkg)), layers) == [
        "fcsim.stray is in no layer of LAYERS",
        "fcsim.checks (layer 0) imports fcsim.api (layer 1)",
        "fcsim.seeds (layer 0) imports fcsim.checks (layer 0)",
    ]
