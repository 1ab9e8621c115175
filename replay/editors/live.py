"""An editor's client in time: what `fimreplay session` drives through a typing session.

The session's simulator (replay/session) owns the clock, the document and the server; an
editor's client (`LiveClient`) owns its rules: when a keystroke sends a request, whether the
next one cancels it, what it caches, when an answer is shown and what accepting it does. The
simulator hands the client a `Host`, the only way the client acts: it reads the document, sets
timers, sends requests and shows or hides an item. Each profile gives its client through
`EditorProfile.live_client`; an editor with its own loop (llama.vim) has its own, the others the
one built from their timing rules (replay/editors/timed_client.py).

Time is virtual, in milliseconds since the session began: a timer or an answer runs at its time,
between the user's events, as an editor's event loop runs it when idle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Doc:
    """The document as the user left it: its text and the cursor, a character offset."""

    text: str
    cursor: int

    @property
    def prefix(self) -> str:
        return self.text[:self.cursor]

    @property
    def suffix(self) -> str:
        return self.text[self.cursor:]


@dataclass(frozen=True)
class Item:
    """What the editor shows: `text` inserted at the cursor in place of `replace_before` characters
    before it and `replace_after` after it (what accepting it all makes of the document)."""

    text: str
    replace_before: int = 0
    replace_after: int = 0

    def accepted(self, doc: Doc, line_only: bool = False) -> Doc:
        """`doc` with the item accepted at its cursor: all of it, or (`line_only`) up to and
        including its first line break, which replaces nothing after the cursor (the rest stays
        shown: VS Code's `acceptNextLine`, timed_client.py)."""
        cut = self.text.find("\n") + 1 if line_only else 0
        taken = self.text[:cut] if cut else self.text
        start, end = doc.cursor - self.replace_before, doc.cursor + (0 if cut else self.replace_after)
        return Doc(doc.text[:start] + taken + doc.text[end:], start + len(taken))


# what a client has read of an answer arriving in pieces ((ms after sending, text), in time
# order): (ms after sending, the text read)
Read = Callable[[Sequence[tuple[float, str]]], tuple[float, str]]


class Request(Protocol):
    """A request in flight, as its client holds it."""

    n: int

    def cancel(self) -> None:
        """Abort it (its answer, if it comes, is never read)."""
        ...

    def streamed(self) -> str:
        """What of its answer had reached the client by now, cut by nothing (a client that reads
        a stream still coming: Continue's generator reuse)."""
        ...


class Host(Protocol):
    """What the simulator offers a client."""

    def now(self) -> float:
        """The clock, in milliseconds."""
        ...

    def doc(self) -> Doc:
        ...

    def set_doc(self, doc: Doc) -> None:
        """The document as an accept leaves it."""
        ...

    def later(self, delay_ms: float, run: Callable[[], None], background: bool = False) -> int:
        """Run `run` after `delay_ms`; returns the timer's id. A `background` timer (periodic work
        the user never waits for) does not keep the session going once the user is done."""
        ...

    def stop_timer(self, timer: int) -> None:
        ...

    def send(self, body: dict[str, Any], on_answer: Callable[[str], None], timeout_ms: float | None = None,
             read: Read | None = None, scripted: bool = True, reaches_server_ms: float = 0.0) -> Request:
        """Send a request: it reaches the server `reaches_server_ms` later (the client's own start-up
        of it, such as llama.vim's curl process), its time in the session's record, and its answer
        (the session's next, its delay counted from there) comes to `on_answer` when the client
        has it: whole once its last piece came, or, with `read`, when and what that says the
        client has read of the pieces (Continue's stream filters: continue_/stream.py). With `timeout_ms` the
        client gives up then (the request times out, `on_answer` never runs). A request whose
        answer the client never reads (`scripted` False: llama.vim's ring updates) takes none of
        the session's answers."""
        ...

    def show(self, request: int, item: Item) -> None:
        """The item of request `request`'s answer is shown (cached answers keep their request)."""
        ...

    def hide(self) -> None:
        ...


class LiveClient(Protocol):
    """One editor's client driven through a session. Each user event comes as one call, after
    the simulator changed the document (for `edited`); `accept` and `dismiss` come with the
    document as the user left it and do their own changes through the host."""

    def opened(self) -> None:
        """The document was opened with the cursor at its place."""
        ...

    def edited(self, changed: bool) -> None:
        """The user typed, deleted (`changed`) or moved the cursor."""
        ...

    def accept(self, line_only: bool) -> None:
        """The user accepted the item shown (all of it, or its first line); nothing shown: nothing."""
        ...

    def dismiss(self) -> None:
        """The user dismissed the item shown."""
        ...
