"""The editors' registry: every editor profile by the name `--editor` takes.

Each editor's package declares one profile object, an `EditorProfile` (interface.py: render,
complete, stream_stop and the optional hooks with their default behaviour), exported by its
`__init__` as PROFILE. `PROFILES` maps a name to that object and imports the package on first
use, so that naming an editor does not load every editor's tables; every name list (CLI
choices and help, TUI menus, verify's editors, the README's table of editors) is derived from
it. Nothing outside an editor's package and this registry tests an editor's name
(tests/test_architecture.py): what differs between editors is a method or a declared fact of
the profile.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module

from replay.editors.interface import EditorProfile
from replay.editors.stage import Shown, Timing
from replay.errors import UsageError
from replay.records import CaptureRecord, EditorInput, RenderedPrompt


class UnknownEditor(UsageError):
    """An editor name with no profile."""


# name -> "module:attribute" of its profile object, in the order the commands list them
_REGISTERED: dict[str, str] = {
    "tabby": "replay.editors.tabby:PROFILE",
    "continue": "replay.editors.continue_:PROFILE",
    "llama.vscode": "replay.editors.llama_vscode:PROFILE",
    "llama.vim": "replay.editors.llama_vim:PROFILE",
    "copilot": "replay.editors.copilot:PROFILE",
    "copilot-ls": "replay.editors.copilot_ls:PROFILE",
    "standard": "replay.editors.standard:PROFILE",
}


class _Profiles(Mapping[str, EditorProfile]):
    """The registered profiles, each package imported when its profile is first asked for."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self._table = dict(table)
        self._loaded: dict[str, EditorProfile] = {}

    def __getitem__(self, name: str) -> EditorProfile:
        if name not in self._loaded:
            module, _, attr = self._table[name].partition(":")
            self._loaded[name] = getattr(import_module(module), attr)
        return self._loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


PROFILES: Mapping[str, EditorProfile] = _Profiles(_REGISTERED)
EDITORS = tuple(_REGISTERED)


def logging_editors() -> tuple[str, ...]:
    """The editors that log the prompts they send: whose captures `verify` checks (this loads
    every profile: ask for it where the list is shown, not at import)."""
    return tuple(name for name, p in PROFILES.items() if p.logs_prompts)


def profile(spec: str) -> tuple[EditorProfile, str | None]:
    """`tabby`, `continue@0.9.262` or `standard` -> the profile and the version (None: newest)."""
    name, _, version = spec.partition("@")
    if name not in PROFILES:
        raise UnknownEditor(f"unknown editor {name!r} (known: {', '.join(EDITORS)})")
    return PROFILES[name], version or None


def render(editor: str, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
    """The prompt `editor` builds for `model` at this cursor."""
    return profile(editor)[0].render(inp, model, version)


def complete(editor: str, inp: EditorInput, raw: str, model: str, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What `editor` shows of the raw text `raw` the model returned at this cursor."""
    return profile(editor)[0].complete(inp, raw, model, version, timing)


class _NoProfile(EditorProfile):
    """A capture's editor with no profile (a proxy's `unknown` client): the hooks' defaults."""

    name = display = releases = stop_source = ""

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        raise UnknownEditor("no profile renders this capture's editor")

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        raise UnknownEditor("no profile shows this capture's editor's completions")

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> None:
        return None


_NO_PROFILE = _NoProfile()


def capture_profile(record: CaptureRecord) -> EditorProfile:
    """The profile of a capture's own editor; for an editor no profile models, one that does
    what the interface does by default (the capture's own version, no logged prompt)."""
    return PROFILES[record.editor] if record.editor in PROFILES else _NO_PROFILE


def rebuild_logged_prompt(record: CaptureRecord) -> str | None:
    """The editor's logged prompt rebuilt from the capture (None: nothing to rebuild from)."""
    return capture_profile(record).rebuild_logged_prompt(record)


def capture_version(record: CaptureRecord) -> str | None:
    """The release whose rules a capture was made under (EditorProfile.capture_version)."""
    return capture_profile(record).capture_version(record)


def explain_mismatch(record: CaptureRecord) -> dict[str, str]:
    """Which rule of which release wrote the bytes a rebuilt prompt got wrong (empty: not kept)."""
    return capture_profile(record).explain_mismatch(record)


def capture_input(record: CaptureRecord, item_id: str) -> EditorInput:
    """The editor input a capture records, as its own editor reads it (EditorProfile.input_from_capture)."""
    return capture_profile(record).input_from_capture(record, item_id)


TABLE_BEGIN, TABLE_END = "<!-- editors table -->", "<!-- /editors table -->"  # where README.md holds it


def editors_table() -> str:
    """The table of editors the README shows (between TABLE_BEGIN and TABLE_END), made from the
    profiles' declared facts: a new profile adds its row."""

    def mark(yes: bool) -> str:
        return "yes" if yes else "-"

    rows = ["| editor | `--editor` | releases | captures from | render | postprocess | verify | replay |",
            "|---|---|---|---|---|---|---|---|"]
    for name, p in PROFILES.items():
        c = p.commands
        rows.append(f"| {p.display} | `{name}` | {p.releases} | {p.capture_source or '-'} | {mark(c.render)} | "
                    f"{mark(c.postprocess)} | {mark(c.verify)} | {mark(c.replay)} |")
    return "\n".join(rows)
