"""The shape of the library, checked from its source: data flows one way.

The import graph counts every import, at module level or inside a function: a lazy import that
closes a loop is still a loop in what depends on what.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "replay"


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the replay modules it imports (a name imported from a package resolves to the
    submodule when there is one, else to the package)."""
    mods = modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for target in targets:
                found = resolve(target) if target.startswith("replay") else None
                if found and found != module:
                    graph[module].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_of_the_library_has_no_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the walk found the package
    assert cycles(graph) == []


def test_a_cycle_would_be_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_store_knows_no_importer_editor_or_backend() -> None:
    deps = import_graph()["replay.store"]
    assert not [d for d in deps if d.startswith(("replay.importers", "replay.editors", "replay.backends"))], deps


def test_the_library_never_names_the_tui() -> None:
    for module, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not [n for n in names if n.split(".")[0] in ("textual", "tui")], module


def test_editor_completion_stages_sit_below_the_runner() -> None:
    """The editors' completion stages read records and the stage types, never the runner,
    scoring or the store: what the editor shows does not depend on how it is replayed."""
    graph = import_graph()
    stages = [m for m in graph if m.endswith(".completion") and m.startswith("replay.editors")]
    assert stages, "no completion stage found"
    for stage in stages:
        assert not [d for d in graph[stage] if d in ("replay.runner", "replay.scoring", "replay.store", "replay.run_inputs")], stage
