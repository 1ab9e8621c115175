"""The editors' registry: one declared interface, one profile object per editor in its own
package, loaded on first use; no editor's name tested outside its package and the registry;
the README's table of editors made from the profiles."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from replay.editors import (
    EDITORS,
    PROFILES,
    TABLE_BEGIN,
    TABLE_END,
    capture_input,
    capture_version,
    editors_table,
    explain_mismatch,
    logging_editors,
    rebuild_logged_prompt,
)
from replay.editors.interface import CaptureNotReplayable, EditorProfile
from replay.records import CaptureRecord, EditorInput, Segments, Source
from tests.conftest import ROOT

# A comparison whose other side is one of these names tests a wire API (replay.proxy.apis) or a
# capture format (replay.importers), which may share an editor's name ("tabby"): not an editor.
_NOT_EDITORS = ("api", "format", "fmt")


def _own_files(name: str) -> Path:
    """The package (or module) whose profile is `name`'s: where its own name may be tested."""
    module = type(PROFILES[name]).__module__
    path = ROOT.joinpath(*module.split("."))
    return path if path.is_dir() else path.with_suffix(".py")


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _names_a_format(node: ast.expr) -> bool:
    last = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return last in _NOT_EDITORS or last.endswith(tuple(f"_{n}" for n in _NOT_EDITORS))


def editor_tests(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, code) of every test of an editor's name in `source`: a comparison or membership test
    against a name (or a literal tuple of names, or a module constant holding one), or a `case`;
    a comparison whose other side names an API or a format is not one."""
    tree = ast.parse(source)
    held = {t.id for node in tree.body if isinstance(node, ast.Assign) and _strings(node.value) & names
            and len(_strings(node.value)) > 1 for t in node.targets if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = [s for s in sides if _strings(s) & names or (isinstance(s, ast.Name) and s.id in held)]
            if named and not any(_names_a_format(s) for s in sides if s not in named):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.MatchValue) and _strings(node.value) & names:
            found.append((node.lineno, f"case {ast.unparse(node.value)}"))
    return found


def test_no_editor_name_is_tested_outside_its_package_and_the_registry() -> None:
    """What differs between editors is a method or a declared fact of their profiles."""
    registry = ROOT / "replay" / "editors" / "__init__.py"
    sources = [*(ROOT / "replay").rglob("*.py"), *(ROOT / "tui").rglob("*.py")]
    assert len(sources) > 100
    branches = []
    for path in sources:
        if path == registry:
            continue
        own = {n for n in EDITORS if path == _own_files(n) or _own_files(n) in path.parents}
        branches += [f"{path.relative_to(ROOT)}:{line}: {code}"
                     for line, code in editor_tests(path.read_text(encoding="utf-8"), set(EDITORS) - own)]
    assert not branches, branches


@pytest.mark.parametrize("code", [
    'if rec.editor == "tabby": pass',
    'x = 1 if "continue" != editor else 2',
    'ok = editor in ("llama.vscode", "llama.vim")',
    'CLIENTS = ("llama.vscode", "llama.vim")\nok = editor in CLIENTS',
    'match editor:\n    case "copilot": pass',
    'ok = s.profile.partition("@")[0] != "copilot"',
])
def test_an_editor_branch_is_found(code: str) -> None:
    assert editor_tests(code, set(EDITORS))


@pytest.mark.parametrize("code", [
    'ok = wire.api == "tabby"',  # the wire API Tabby's server speaks, which any client may call
    'ok = capture_format == "tabby"',  # a log format
    'rec = Record(editor="continue")',  # an importer names the editor that wrote its logs
])
def test_an_api_or_a_format_is_not_an_editor_branch(code: str) -> None:
    assert not editor_tests(code, set(EDITORS))


def test_every_profile_implements_the_interface_under_its_registered_name() -> None:
    for name in EDITORS:
        prof = PROFILES[name]
        assert isinstance(prof, EditorProfile) and prof.name == name
        assert prof.display and prof.releases and prof.stop_source
    assert logging_editors() == ("tabby", "continue")


def test_naming_an_editor_loads_no_editor_tables() -> None:
    """The registry and every profile object load without the editors' rule modules; one
    render loads its own editor's, not another's."""
    code = ("import sys\nfrom replay.editors import PROFILES, logging_editors\nlogging_editors()\n"
            "names = [n for n in sys.modules if n.startswith('replay.editors.') and n.count('.') > 2]\n"
            "print(sorted(names))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.stdout.strip() == "[]", out.stdout


def test_the_readme_table_of_editors_is_the_registrys() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(TABLE_BEGIN) == 1 and readme.count(TABLE_END) == 1
    shown = readme.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0].strip()
    assert shown == editors_table(), "README.md's table of editors differs from replay.editors.editors_table()"


def test_the_declared_releases_name_the_ends_of_each_rule_book() -> None:
    """The releases a profile declares are the first and last of the tables its rules are read from."""
    from replay.editors.copilot.profile import CHAT_LIB
    from replay.editors.copilot_ls.profile import RELEASE
    from replay.editors.llama_vim.releases import COMMITS
    from replay.editors.llama_vscode.releases import TAGS
    from replay.editors.tabby.releases import NEWEST_LABEL, OLDEST

    ends = {"tabby": (OLDEST.tag, NEWEST_LABEL), "llama.vscode": (TAGS[0][0], TAGS[-1][0]),
            "llama.vim": (COMMITS[0][1], COMMITS[-1][1]), "copilot": (CHAT_LIB,), "copilot-ls": (RELEASE,)}
    for name, releases in ends.items():
        for release in releases:
            assert release in PROFILES[name].releases, (name, release)


def _capture(editor: str, **kw: object) -> CaptureRecord:
    fields = {"source": Source(file="proxy.jsonl", line=1), "editor": editor, "format": "proxy",
              "segments": Segments(prefix="def f(x):\n", suffix="\n"), "raw": "{}"}
    return CaptureRecord(**{**fields, **kw})  # type: ignore[arg-type]


def test_a_capture_of_an_editor_no_profile_models_gets_the_interfaces_defaults() -> None:
    """A proxy's `unknown` client: its own version, nothing to rebuild or explain, its segments as the input."""
    rec = _capture("unknown", editor_version="9.9")
    assert capture_version(rec) == "9.9"
    assert rebuild_logged_prompt(rec) is None and explain_mismatch(rec) == {}
    assert capture_input(rec, "capture-1") == EditorInput(prefix="def f(x):\n", suffix="\n", item_id="capture-1")


def test_each_editor_reads_its_own_captures_input() -> None:
    """Continue's logged model provider is an option of the input; another editor's is not read."""
    extra = {"modelProvider": "ollama"}
    assert capture_input(_capture("continue", extra=extra), "c").options == {"provider": "ollama"}
    assert capture_input(_capture("tabby", extra=extra), "c").options == {}
    with pytest.raises(CaptureNotReplayable, match="no segments"):
        capture_input(_capture("continue", segments=None), "c")


def test_each_profile_answers_its_timing_or_says_why_not() -> None:
    """The timing hook: the five editors whose timing is read from source give TimingRules; the
    language server (its own scheduling, not read yet) and the standard profile say why not."""
    from replay.editors.interface import NoTiming
    from replay.editors.timing import TimingRules
    from replay.latency.rules import rules_for

    for name in ("tabby", "continue", "llama.vscode", "llama.vim", "copilot"):
        assert isinstance(PROFILES[name].timing(None), TimingRules), name
    for name in ("copilot-ls", "standard"):
        with pytest.raises(NoTiming):
            PROFILES[name].timing(None)
    assert rules_for("standard") == "the standard profile is no editor's: it has no timing of its own"
    assert rules_for("copilot-ls@1.539.0") == "copilot-ls's timing rules are not modelled yet"
    assert rules_for("nosuch@1") == "nosuch's timing rules are not modelled yet"
