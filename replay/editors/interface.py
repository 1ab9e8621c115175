"""What every editor profile is: one declared interface, `EditorProfile`, that each editor's
package implements once and the registry (replay.editors) names.

A profile joins the editor's two halves: `render` (the prompt side, the package's profile.py)
and `complete` / `stream_stop` (the completion stage, its completion.py, contract in stage.py).
What only some editors do is declared here too, with the behaviour of an editor that does not
do it, so that no caller has to ask which editor it holds:
- `session`: a client that carries state from one cursor of a session to the next;
- `rebuild_logged_prompt`, `explain_mismatch`: an editor that logs the prompts it sends (what
  `fimreplay verify` checks), and which of its rules wrote a byte the rebuild got wrong;
- `capture_version`: the release a capture of the editor replays under;
- `input_from_capture`: the editor input a capture of the editor records;
- `history`, `rules_in_force`: the editor's rule book (rulebook.py): its rule changes by date
  (`fimreplay editors NAME --history`), the rules in force at a release (`editors NAME@VERSION`);
- `timing`: the release's timing rules (timing.py: debounce, cancel, timeouts, late answers);
- `live_client`: the client driven through a typing session in time (live.py), by default the
  one its timing rules make (timed_client.py), with `debouncer`, the editor's own debounce
  where it learns from the session (Tabby's adaptive one);
- `layout_audit`: the editor's own findings on its prompt layout (`fimreplay audit`).
Its declared facts (`display` ... `sends_body`) are what the commands and the README's table of
editors read of it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import msgspec

from replay.editors.live import Doc, Host, LiveClient
from replay.editors.rulebook import HistoryRow, InForce
from replay.editors.stage import Shown, StreamStop, Timing
from replay.editors.timed_client import Complete, Debouncer, Render, TimedClient
from replay.editors.timing import TimingRules
from replay.errors import UsageError
from replay.records import CaptureRecord, EditorInput, RenderedPrompt, TraceStep

if TYPE_CHECKING:  # the audit's types, named for the layout hook only (loading them loads the tokenizers)
    from replay.tokens.audit import Finding, Subject
    from replay.tokens.tokenizer import Tokenizer


class CaptureNotReplayable(UsageError):
    """A capture that holds too little to be rendered again (a reject of a run's inputs)."""


class NoHistory(UsageError):
    """An editor whose rule changes are not kept by date."""


class NoTiming(UsageError):
    """An editor whose timing rules (debounce, cancel, timeouts, late answers) are not modelled."""


class BadLayoutRow(UsageError):
    """A rendered row an editor's layout audit cannot read (its body is not the editor's)."""


class EditorSession(Protocol):
    """The cursors of one session rendered in order, the client's state carried between them.
    `received`: the text the client got for that cursor's request, which it caches (None: not known)."""

    def render(self, inp: EditorInput, received: str | None = None) -> RenderedPrompt: ...

    def complete(self, inp: EditorInput, received: str, timing: Timing | None = None) -> Shown: ...


class LayoutAuditor(Protocol):
    """An editor's own findings on the prompts it lays out, beside the generic audit."""

    def prepare(self, subject: Subject, cursor: EditorInput | None) -> Subject:
        """The subject as audited (BadLayoutRow: the row is not one of this editor's)."""
        ...

    def findings(self, subject: Subject, cursor: EditorInput | None) -> list[Finding]: ...


@dataclass(frozen=True)
class Commands:
    """Which of fimreplay's commands work on an editor: render its prompts, postprocess (its
    completion stage), verify its logged prompts, replay (a run through its profile)."""

    render: bool = True
    postprocess: bool = True
    verify: bool = False
    replay: bool = True


def capture_input(rec: CaptureRecord, item_id: str, options: dict[str, Any] | None = None,
                  request: dict[str, Any] | None = None) -> EditorInput:
    """The editor input a capture records: its segments (CaptureNotReplayable without them),
    with what the editor adds (its options, the request body it sent)."""
    seg = rec.segments
    if seg is None:
        raise CaptureNotReplayable("no segments (prefix/suffix) in this capture")
    return EditorInput(prefix=seg.prefix, suffix=seg.suffix or "", filepath=seg.filepath or rec.filepath,
                       language=rec.language, snippets=seg.snippets, item_id=item_id, options=options or {},
                       request=request)


class EditorProfile(ABC):
    """One editor: the prompt it builds at a cursor, what it shows of the model's answer, and
    the facts the commands read of it. Every method takes the release as `version` (None: the
    newest), as `--editor NAME@VERSION` gives it."""

    name: ClassVar[str]  # as --editor takes it
    display: ClassVar[str]  # as the README names it
    releases: ClassVar[str]  # the releases whose rules are modelled, e.g. "tabby-agent 1.3.0 - 1.9.0-dev"
    capture_source: ClassVar[str] = ""  # where its captures come from ("": none are imported or recorded)
    stop_source: ClassVar[str]  # where the editor's model call is stopped at the prompt's stop words
    logs_prompts: ClassVar[bool] = False  # it logs the prompts it sends: its captures can be verified
    stage_needs_model: ClassVar[bool] = True  # the completion stage reads the model (its template's stop words)
    replaces_before: ClassVar[bool] = False  # the shown item also replaces text before the cursor
    sends_body: ClassVar[bool] = False  # the client's HTTP body is part of its rendering (null where it sends none)
    keeps_sessions: ClassVar[bool] = False  # the client carries state between cursors (`session`)
    has_history: ClassVar[bool] = False  # its rule changes are kept by date (`history`)

    @abstractmethod
    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        """The prompt the editor builds for `model` at this cursor."""

    @abstractmethod
    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        """What the editor shows of the raw text `raw` the model returned at this cursor."""

    @abstractmethod
    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        """Where the editor stops reading a streamed answer (None: it reads it all)."""

    @property
    def commands(self) -> Commands:
        return Commands(verify=self.logs_prompts)

    def shown(self, inp: EditorInput, raw: str, received: str, model: str, version: str | None = None,
              timing: Timing | None = None) -> Shown:
        """The completion stage on what the editor received (`raw`, the engine's text, cut at the
        prompt's stop words: the engine or server stops there before the editor sees it), with
        that cut, when it cut anything, as the first step of the trace."""
        shown = self.complete(inp, received, model, version, timing)
        if raw == received:
            return shown
        cut = TraceStep(step="stopWords", source=self.stop_source, text=received)
        return msgspec.structs.replace(shown, trace=(cut, *shown.trace))

    def session(self, model: str, version: str | None = None) -> EditorSession | None:
        """A stateful renderer for the cursors of one session (None: the editor keeps no state)."""
        return None

    def rebuild_logged_prompt(self, record: CaptureRecord) -> str | None:
        """The editor's logged prompt rebuilt from the capture (None: nothing to rebuild)."""
        return None

    def explain_mismatch(self, record: CaptureRecord) -> dict[str, str]:
        """Which rule of which release wrote the bytes a rebuilt prompt got wrong (empty: not kept)."""
        return {}

    def capture_version(self, record: CaptureRecord) -> str | None:
        """The release whose rules a capture was made under (None: the newest)."""
        return record.editor_version

    def input_from_capture(self, record: CaptureRecord, item_id: str) -> EditorInput:
        """The editor input the capture records, as a replay renders it again."""
        return capture_input(record, item_id)

    def history(self) -> list[HistoryRow]:
        """The editor's rule changes by date (NoHistory where none are kept)."""
        raise NoHistory(f"no release history is kept for {self.name}")

    def rules_in_force(self, version: str | None) -> tuple[InForce, ...]:
        """The rules in force at `version` (None: the newest), one entry per half of the editor
        (NoHistory where no rule book is kept)."""
        raise NoHistory(f"no release history is kept for {self.name}")

    def timing(self, version: str | None, options: Mapping[str, Any] | None = None) -> TimingRules:
        """The timing rules of the release (NoTiming, saying why, where they are not modelled)."""
        raise NoTiming(f"{self.name}'s timing rules are not modelled yet")

    def may_leave_line_rest_out(self, record: CaptureRecord) -> bool:
        """Whether the client that sent the capture may have left the rest of the cursor's line
        out of its suffix (closing characters it expects the editor to keep), so the typed
        reference must not take the text read up to the next line as typed (False: it sends it)."""
        return False

    def speculation_budget(self, body: Mapping[str, Any]) -> tuple[int, int] | None:
        """(the server time a completion body asks, the time the client's first request at a
        cursor asks), for a client that tells its first request from its speculative follow-up
        by that time (None: its bodies do not say; the typed reference then reads the window)."""
        return None

    def layout_audit(self, tokenizer: Tokenizer, engine: str, ctx: int) -> LayoutAuditor | None:
        """The editor's own audit of the prompts it lays out (None: the generic audit only)."""
        return None

    def live_client(self, host: Host, version: str | None, options: dict[str, Any], model: str | None,
                    filepath: str | None, language: str | None) -> LiveClient:
        """The client driven through a typing session (live.py): by default the one the release's
        timing rules make (timed_client.py; NoTiming where none are modelled), its body this
        profile's rendering (the client's HTTP body, else the prompt) and its item this profile's
        completion stage."""
        rules = self.timing(version, options)
        if model is None:
            raise UsageError(f"{self.name} builds its request for a model: give --model")

        def cursor_input(doc: Doc) -> EditorInput:
            return EditorInput(prefix=doc.prefix, suffix=doc.suffix, filepath=filepath, language=language,
                               options=options)

        def body(inp: EditorInput) -> dict[str, Any]:
            rendered = self.render(inp, model, version)
            return rendered.request if rendered.request is not None else {"prompt": rendered.text}

        return self.timed_client(host, rules, body, lambda inp, text: self.complete(inp, text, model, version),
                                 cursor_input, self.debouncer(version, options), model, version, options)

    def timed_client(self, host: Host, rules: TimingRules, body: Render, complete: Complete,
                     cursor_input: Callable[[Doc], EditorInput], debouncer: Debouncer | None, model: str,
                     version: str | None, options: Mapping[str, Any]) -> LiveClient:
        """The client of the timing rules (timed_client.py); an editor whose client asks more than
        the rules say (llama.vscode's follow-up requests) or runs its own loop on the same rules
        (Continue's) gives its own."""
        return TimedClient(host, rules, body, complete, cursor_input, debouncer)

    def debouncer(self, version: str | None, options: Mapping[str, Any] | None = None) -> Debouncer | None:
        """The editor's own debounce where it learns from the session (None: the timing rules'
        delay, timed_client.RulesDebouncer)."""
        return None


class PackageProfile(EditorProfile):
    """An editor package laid out as the skeleton has it (docs/adding-an-editor.md): `render` in
    its profile.py, `complete` and `stream_stop` in its completion.py, its rule book's `history`
    and `in_force` in the module `rule_book` names, its timing in timing.py. Each module is
    imported when a method first needs it, so naming the editor loads none of its tables. The
    profile class is defined in the package's __init__.py, so its module names the package."""

    rule_book: ClassVar[str] = ""  # the package's module with history() and in_force() ("": none kept)
    has_timing: ClassVar[bool] = False  # the package has a timing.py (EditorProfile.timing)

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.has_history = bool(cls.rule_book)

    def _module(self, name: str) -> ModuleType:
        return import_module(f"{type(self).__module__}.{name}")

    def render(self, inp: EditorInput, model: str, version: str | None = None) -> RenderedPrompt:
        return self._module("profile").render(inp, model, version=version)

    def complete(self, inp: EditorInput, raw: str, model: str | None, version: str | None = None,
                 timing: Timing | None = None) -> Shown:
        return self._module("completion").complete(inp, raw, model=model, version=version, timing=timing)

    def stream_stop(self, inp: EditorInput, model: str, version: str | None = None) -> StreamStop | None:
        return self._module("completion").stream_stop(inp, model=model, version=version)

    def history(self) -> list[HistoryRow]:
        return self._module(self.rule_book).history() if self.rule_book else super().history()

    def rules_in_force(self, version: str | None) -> tuple[InForce, ...]:
        return tuple(self._module(self.rule_book).in_force(version)) if self.rule_book else super().rules_in_force(version)

    def timing(self, version: str | None, options: Mapping[str, Any] | None = None) -> TimingRules:
        return self._module("timing").timing(version, options) if self.has_timing else super().timing(version, options)
