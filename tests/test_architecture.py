"""The shape of the library, checked from its source: data flows one way.

The import graph counts every import, at module level or inside a function: a lazy import that
closes a loop is still a loop in what depends on what.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
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
    graph = import_graph()
    store = [m for m in graph if m == "replay.store" or m.startswith("replay.store.")]
    assert len(store) > 1  # the package and its parts
    for module in store:
        deps = graph[module]
        assert not [d for d in deps if d.startswith(("replay.importers", "replay.editors", "replay.backends"))], (module, deps)


def test_the_editors_know_no_backend_or_run() -> None:
    """What an editor shows depends on its own rules, not on the engine or how a run replays it."""
    graph = import_graph()
    editors = [m for m in graph if m == "replay.editors" or m.startswith("replay.editors.")]
    assert len(editors) > 1
    for module in editors:
        assert not [d for d in graph[module] if d.startswith(("replay.backends", "replay.run"))], (module, graph[module])


def test_scoring_knows_no_report_and_no_run() -> None:
    """Every metric lives in scoring, below what shows scores (reports) and what makes
    completions (run): a score is of the texts alone."""
    graph = import_graph()
    scoring = [m for m in graph if m == "replay.scoring" or m.startswith("replay.scoring.")]
    assert "replay.scoring.metrics" in scoring and "replay.scoring.compiles" in scoring
    for module in scoring:
        assert not [d for d in graph[module] if d.startswith(("replay.reports", "replay.run"))], (module, graph[module])


def _strings_outside_the_store() -> Iterator[tuple[str, str]]:
    """(module, string literal) of every module of the library but the store's: where SQL must not be."""
    for module, path in modules().items():
        if module == "replay.store" or module.startswith("replay.store."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield module, node.value


def test_sql_is_written_only_in_the_store() -> None:
    """Every table is read and written through the store's methods: no statement outside it."""
    import re

    statement = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA)\s")
    for module, text in _strings_outside_the_store():
        assert not statement.match(text), f"{module}: {text[:60]!r}"


def test_no_sql_condition_is_handed_to_the_store() -> None:
    """What a caller wants of the store it says in the store's own terms (keyword filters such as
    `captures(editor=..., after=..., ids=...)`), never as a condition with a placeholder for the
    store to splice into its statement."""
    import re

    condition = re.compile(r"\b\w+ (=|<|>|<=|>=|!=|IN|LIKE) \(?\?")
    assert condition.search("id > ?") and condition.search("editor = ?")
    for module, text in _strings_outside_the_store():
        assert not condition.search(text), f"{module}: {text[:60]!r}"


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
        assert not [d for d in graph[stage] if d in ("replay.run", "replay.scoring", "replay.store")
                    or d.startswith(("replay.run.", "replay.store."))], stage


def test_the_use_cases_sit_above_the_library_and_below_the_command_line() -> None:
    """The library never calls a use case or the CLI; the use cases never call the CLI."""
    graph = import_graph()
    for module, deps in graph.items():
        if module.startswith(("replay.usecases", "replay.cli")) or module == "replay.__main__":
            continue
        assert not [d for d in deps if d.startswith(("replay.usecases", "replay.cli"))], module
    for module in (m for m in graph if m.startswith("replay.usecases")):
        assert not [d for d in graph[module] if d.startswith("replay.cli")], module


def test_commands_stay_thin() -> None:
    """A command module parses options, makes one call and prints: none grows past 300 lines."""
    for path in (PACKAGE / "cli").glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) < 300, path


def test_modules_and_functions_stay_readable() -> None:
    """No module of replay/ or tui/ grows past 400 lines, no function past 80: a longer one is
    split into parts named after what they hold or do."""
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "tui").rglob("*.py")]
    assert len(sources) > 50
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 400, f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                assert length <= 80, f"{path.relative_to(ROOT)}: {node.name} is {length} lines"


def test_the_error_types_share_one_base() -> None:
    """Every exception class the library defines is a FimreplayError (its kind gives the exit
    code), except the control-flow signals that never reach a user; the CLI's own is how one
    is shown."""
    import importlib

    from replay.errors import FimreplayError

    signals = {"NeedMore", "DemoCancelled", "Enough"}
    for module, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        if not classes or module.endswith("__main__") or module.startswith("replay.cli"):
            continue
        loaded = importlib.import_module(module)
        for name in classes:
            cls = getattr(loaded, name)
            if isinstance(cls, type) and issubclass(cls, BaseException) and name not in signals:
                assert issubclass(cls, FimreplayError), f"{module}.{name}"


def test_the_error_types_are_not_builtin_errors_too() -> None:
    """A FimreplayError is caught as one (its kind or its own class), not as a builtin
    ValueError or KeyError: no error class of the library derives from a builtin exception
    beside the project's base."""
    import importlib

    from replay.errors import FimreplayError

    mixed = set()
    for module, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            continue
        for cls in vars(importlib.import_module(module)).values():
            if isinstance(cls, type) and cls.__module__ == module and issubclass(cls, FimreplayError) and \
                    [b for b in cls.__mro__ if b.__module__ == "builtins" and b not in (Exception, BaseException, object)]:
                mixed.add(f"{module}.{cls.__name__}")
    assert not mixed, sorted(mixed)


def test_screens_call_the_use_cases_not_the_library() -> None:
    """TUI screens reach the library through replay.usecases (plus the store and its records)."""
    allowed = ("replay.usecases", "replay.store", "replay.records", "replay.errors")
    for path in (ROOT / "tui" / "screens").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                if name == "replay" or name.startswith("replay."):
                    assert name.startswith(allowed), f"{path.name} imports {name}"


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def module_map() -> list[tuple[list[str], list[str], set[str] | None]]:
    """The module map of docs/architecture.md, one entry per row: the names of its first column
    (`store/` a package, `cutoffs` a loose module), the names in backticks among what it holds,
    and the parts of replay its modules may import (None: the whole library)."""
    import re

    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Module map", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first, holds, may = (cell.strip() for cell in line.strip().strip("|").split("|"))
        names = re.findall(r"`([^`]+)`", first)
        held = re.findall(r"`(\w+/?)`", holds)
        allowed: set[str] | None = set()
        for part in re.sub(r"\([^)]*\)", "", may).split(","):
            part = part.strip()
            if part == "the library":
                allowed = None
            elif part != "nothing of replay":
                assert allowed is not None and part, line
                allowed.add(part)
        rows.append((names, held, allowed))
    assert len(rows) > 10, "the module map was not found"
    return rows


def top_level() -> set[str]:
    """The packages (`store/`) and loose modules (`cutoffs`) of replay/."""
    names = {p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    names |= {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    return names


def test_the_module_map_names_every_module_and_nothing_else() -> None:
    named = [name for names, _, _ in module_map() for name in names]
    assert len(named) == len(set(named)), "a module is in two rows"
    assert set(named) - {"tui/"} == top_level()
    assert (ROOT / "tui" / "__init__.py").is_file()


def test_what_the_module_map_says_a_package_holds_exists() -> None:
    for names, held, _ in module_map():
        packages = [ROOT / ("tui" if n == "tui/" else f"replay/{n}") for n in names if n.endswith("/")]
        for name in held:
            assert any((p / name).is_dir() if name.endswith("/") else (p / f"{name}.py").is_file()
                       for p in packages), f"{names}: {name}"


def test_every_import_is_one_the_module_map_allows() -> None:
    """A row's modules import nothing of replay outside its last column (the package's own
    `__init__`, which holds `__version__`, excepted)."""
    rows = module_map()
    everything = {n.rstrip("/") for names, _, _ in rows for n in names} - {"tui"}
    library = everything - {"usecases", "cli", "__main__"}
    row_of = {n.rstrip("/"): allowed for names, _, allowed in rows for n in names}
    row_mates = {n.rstrip("/"): {m.rstrip("/") for m in names} for names, _, _ in rows for n in names}
    for allowed in row_of.values():
        assert allowed is None or allowed <= everything, allowed

    def top(module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 and parts[0] == "replay" else None

    imports: dict[str, set[str]] = {}
    for module, deps in import_graph().items():
        if (own := top(module)) is not None:
            imports.setdefault(own, set()).update(d for d in map(top, deps) if d)
    for path in (ROOT / "tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            imports.setdefault("tui", set()).update(t for t in map(top, names) if t)
    assert "store" in imports["importers"] and "usecases" in imports["tui"]  # the walk found them
    for own, deps in imports.items():
        allowed = library if row_of[own] is None else row_of[own]
        outside = deps - row_mates[own] - allowed
        assert not outside, f"{own} imports {sorted(outside)}: not in its row of docs/architecture.md"


def test_no_layer_takes_the_store_untyped() -> None:
    """What a layer reads of the store is named: the store itself, or a Protocol of
    replay.reading (RunReader, ScoreKeeper) for the layers that may not import it; never a
    parameter `store: Any`, which would let any layer call any of the store's methods."""
    untyped = []
    for module, path in [*modules().items(), *(("tui", p) for p in (ROOT / "tui").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                untyped += [f"{module}.{node.name}" for a in args if "store" in a.arg and
                            (a.annotation is None or ast.unparse(a.annotation) in ("Any", "object", "'Any'"))
                            and a.arg != "self"]
    assert not untyped, untyped


def _class_bases(path: Path) -> Iterator[tuple[str, list[str]]]:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            yield node.name, [ast.unparse(base) for base in node.bases]


def test_one_record_idiom_per_role() -> None:
    """The records handed between stages (records, reading) are msgspec Structs, the form that is
    stored and written as JSON lines; a NamedTuple is only a row as it is read (a store query's
    row, a scanned chunk of a file), defined in the store or the importers' reader, or private
    to its module. (A use case's result is a frozen dataclass: docs/architecture.md.)"""
    mods = modules()
    wrong = [f"{module}.{name}" for module in ("replay.records", "replay.reading")
             for name, bases in _class_bases(mods[module])
             if not any(b.startswith("msgspec.Struct") or b in ("Protocol", "RunReader") for b in bases)]
    rows_at = ("replay.store", "replay.importers.scan", "replay.importers.reader")
    wrong += [f"{module}.{name}" for module, path in mods.items() for name, bases in _class_bases(path)
              if "NamedTuple" in bases and not name.startswith("_") and not module.startswith(rows_at)]
    assert not wrong, wrong
