"""The lines of `fimreplay session`: a typing session in (one a line), what the editor did out.

In: `{"id", "filepath", "language", "options", "events", "answers"}`. Events, in time order
(`t_ms`, milliseconds on the session's clock), the first an `open`:
`{"type": "open", "document", "cursor"}` (cursor: a character offset), `{"type": "type", "text"}`
(inserted at the cursor), `{"type": "delete", "count"}` (characters before the cursor, as
backspace), `{"type": "move", "cursor"}`, `{"type": "accept"}`, `{"type": "accept_line"}`,
`{"type": "dismiss"}`. Answers, consumed in the order the requests whose answer the client reads
are sent (a cancelled one included): `{"delay_ms", "text"}`, or `{"delay_ms"?, "chunks": [{"t_ms"?,
"text"}]}` streamed (a chunk's t_ms after the request was sent; without it, delay_ms).

Out: `{"id", "editor", "requests": [{"n", "t_ms", "after_event", "body", "outcome"}], "shown":
[{"t_ms", "after_event", "request", "shown_text", "replace_before", "replace_after"}],
"document", "ring_updates": [{"t_ms", "after_event", "body"}]}`; requests numbered from 1, outcome
one of shown | cancelled | not_shown | timed_out; `after_event` the index (from 0) of the last
event handled by then; `document` the text as the session leaves it; `ring_updates` the requests
whose answer the client never reads (llama.vim's ring buffer sent to the server), which take
no answer of the script.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from replay.editors.inputs import BadInputLine, load_object

EventType = Literal["open", "type", "delete", "move", "accept", "accept_line", "dismiss"]
Outcome = Literal["shown", "cancelled", "not_shown", "timed_out"]


class BadSession(BadInputLine):
    """A session line that cannot be driven; the message says why (the caller adds file:line)."""


class Chunk(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    text: str
    t_ms: float | None = None


class Answer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the server answers one request: its text after delay_ms, or streamed in chunks."""

    delay_ms: float = 0.0
    text: str | None = None
    chunks: tuple[Chunk, ...] | None = None

    def pieces(self) -> list[tuple[float, str]]:
        """(milliseconds after sending, text) of each piece, in time order."""
        if self.chunks is None:
            return [(self.delay_ms, self.text or "")]
        return sorted(((self.delay_ms if c.t_ms is None else c.t_ms, c.text) for c in self.chunks), key=lambda p: p[0])


class Event(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    t_ms: float
    type: EventType
    document: str | None = None
    cursor: int | None = None
    text: str | None = None
    count: int | None = None


class Session(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    events: tuple[Event, ...]
    answers: tuple[Answer, ...] = ()
    filepath: str | None = None
    language: str | None = None
    options: dict[str, Any] = {}


class RequestOut(msgspec.Struct, frozen=True):
    n: int
    t_ms: float
    after_event: int
    body: dict[str, Any]
    outcome: Outcome


class ShownOut(msgspec.Struct, frozen=True):
    t_ms: float
    after_event: int
    request: int
    shown_text: str
    replace_before: int
    replace_after: int


class Update(msgspec.Struct, frozen=True):
    """A request whose answer the client never reads (llama.vim's ring updates): sent, not answered
    from the session's script, not numbered among the requests."""

    t_ms: float
    after_event: int
    body: dict[str, Any]


class SessionOut(msgspec.Struct, frozen=True):
    id: str
    editor: str
    requests: tuple[RequestOut, ...]
    shown: tuple[ShownOut, ...]
    document: str
    ring_updates: tuple[Update, ...] = ()


_NEEDS: dict[str, tuple[str, ...]] = {"open": ("document", "cursor"), "type": ("text",), "delete": ("count",),
                                      "move": ("cursor",)}


def parse_session(line: str) -> Session:
    """One input line -> Session; BadSession says what is wrong with it."""
    obj = load_object(line)
    if isinstance(obj.get("id"), int) and not isinstance(obj.get("id"), bool):
        obj["id"] = str(obj["id"])
    try:
        session = msgspec.convert(obj, Session)
    except msgspec.ValidationError as exc:
        raise BadSession(str(exc)) from None
    _check(session)
    return session


def _check(session: Session) -> None:
    events = session.events
    if not events or events[0].type != "open":
        raise BadSession("the first event must be an `open` (the document and the cursor)")
    last = 0.0
    for n, event in enumerate(events):
        where = f"events[{n}]"
        if event.t_ms < last:
            raise BadSession(f"{where}: t_ms {event.t_ms} is before the event before it ({last})")
        last = event.t_ms
        missing = [k for k in _NEEDS.get(event.type, ()) if getattr(event, k) is None]
        if missing:
            raise BadSession(f"{where}: a `{event.type}` event needs {', '.join(missing)}")
        if event.type == "open" and n:
            raise BadSession(f"{where}: only the first event opens the document")
        if event.cursor is not None and event.cursor < 0:
            raise BadSession(f"{where}: cursor must not be negative")
        if event.count is not None and event.count < 1:
            raise BadSession(f"{where}: count must be 1 or more")
    for n, answer in enumerate(session.answers):
        if (answer.text is None) == (answer.chunks is None):
            raise BadSession(f"answers[{n}]: give either text or chunks")
        if answer.delay_ms < 0 or any(t < 0 for t, _ in answer.pieces()):
            raise BadSession(f"answers[{n}]: times must not be negative")
