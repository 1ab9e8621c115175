"""A typing session run in virtual time: the user's events, the editor's timers and the server's
answers ordered on one clock, nothing slept. The editor's client (replay/editors/live.py, given
by its profile's `live_client`) decides what each of them does; this module keeps the clock, the
document, the scripted server and the record of what was sent and shown.

At one instant the user's event comes first, then timers and answers in the order they were
set. A request beyond the scripted answers is answered with nothing at once (as the scripted
server of the recordings does). The session ends once the user's last event is handled and no
answer is awaited, when the editor has no timer of its own pending (its periodic background
work, llama.vim's ring updates, does not keep it going) or SETTLE_MS have passed since the last
answer came without the editor sending anything.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from replay.editors.live import Doc, Item, LiveClient, Read
from replay.session.format import (
    Answer,
    BadSession,
    Event,
    Outcome,
    RequestOut,
    Session,
    SessionOut,
    ShownOut,
    Update,
)

UNSCRIPTED = Answer(delay_ms=0.0, text="")  # a request the session scripted no answer for: answered empty at once
SETTLE_MS = 2000.0  # longer than any editor's own wait before it sends (Tabby's adaptive debounce: 1 s at most)


@dataclass
class _Sent:
    n: int
    t_ms: float
    after_event: int
    body: dict[str, Any]
    answer: Answer | None  # None: an answer the client never reads (listed apart, takes none of the script)
    clock: Callable[[], float]
    outcome: Outcome = "not_shown"
    done_at: float | None = None

    @property
    def done(self) -> bool:
        return self.done_at is not None

    def finish(self, outcome: Outcome = "not_shown") -> None:
        if self.done_at is None:
            self.outcome, self.done_at = outcome, self.clock()

    def cancel(self) -> None:
        self.finish("cancelled")

    def streamed(self) -> str:
        """What of its answer had reached the client by now (all of it once it came)."""
        if self.answer is None:
            return ""
        since = self.clock() - self.t_ms
        return "".join(text for t, text in self.answer.pieces() if t <= since)


@dataclass(order=True)
class _Due:
    t_ms: float
    rank: int  # 0: a user's event, 1: the editor's timers and answers
    seq: int
    run: Callable[[], None] = field(compare=False)
    background: bool = field(compare=False, default=False)
    stopped: bool = field(compare=False, default=False)


class Simulation:
    """One session against one editor client (the Host of replay/editors/live.py)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.t = 0.0
        self.event_index = -1
        self.document = Doc("", 0)
        self.queue: list[_Due] = []
        self.seq = 0
        self.timers: dict[int, _Due] = {}
        self.sent: list[_Sent] = []
        self.shown: list[ShownOut] = []
        self.answers = list(session.answers)

    # --- the Host

    def now(self) -> float:
        return self.t

    def doc(self) -> Doc:
        return self.document

    def set_doc(self, doc: Doc) -> None:
        self.document = doc

    def _at(self, t_ms: float, run: Callable[[], None], rank: int = 1, background: bool = False) -> _Due:
        self.seq += 1
        due = _Due(t_ms, rank, self.seq, run, background)
        heapq.heappush(self.queue, due)
        return due

    def later(self, delay_ms: float, run: Callable[[], None], background: bool = False) -> int:
        due = self._at(self.t + max(0.0, delay_ms), run, background=background)
        self.timers[due.seq] = due
        return due.seq

    def stop_timer(self, timer: int) -> None:
        due = self.timers.pop(timer, None)
        if due is not None:
            due.stopped = True

    def send(self, body: dict[str, Any], on_answer: Callable[[str], None], timeout_ms: float | None = None,
             read: Read | None = None, scripted: bool = True, reaches_server_ms: float = 0.0) -> _Sent:
        answer = (self.answers.pop(0) if self.answers else UNSCRIPTED) if scripted else None
        n = sum(1 for s in self.sent if s.answer is not None) + 1 if answer is not None else 0
        sent = _Sent(n, self.t + reaches_server_ms, self.event_index, body, answer, self.now)
        self.sent.append(sent)
        if answer is None:
            sent.finish()
            return sent
        pieces = answer.pieces()
        arrives, text = read(pieces) if read is not None else (pieces[-1][0], "".join(t for _, t in pieces))
        arrives += reaches_server_ms
        if timeout_ms is not None and arrives > timeout_ms:
            self._at(self.t + timeout_ms, lambda: sent.finish("timed_out"))
            return sent

        def arrive() -> None:
            if not sent.done:
                sent.finish()
                on_answer(text)

        self._at(self.t + arrives, arrive)
        return sent

    def show(self, request: int, item: Item) -> None:
        self.shown.append(ShownOut(self.t, self.event_index, request, item.text, item.replace_before, item.replace_after))

    def hide(self) -> None:
        """What is hidden is not recorded: the shown list keeps each item once, when it appeared."""

    # --- the run

    def run(self, client: LiveClient, editor: str) -> SessionOut:
        for n, event in enumerate(self.session.events):
            self._at(event.t_ms, _user(self, client, n, event), rank=0)
        last = self.session.events[-1].t_ms
        while self.queue:
            due = heapq.heappop(self.queue)
            if due.stopped:
                continue
            self.timers.pop(due.seq, None)
            if due.t_ms > last and self._settled(due, last):
                break
            self.t = max(self.t, due.t_ms)
            due.run()
        shown = {s.request for s in self.shown}
        requests = tuple(RequestOut(s.n, s.t_ms, s.after_event, s.body, "shown" if s.n in shown else s.outcome)
                         for s in self.sent if s.answer is not None)
        updates = tuple(Update(s.t_ms, s.after_event, s.body) for s in self.sent if s.answer is None)
        return SessionOut(self.session.id, editor, requests, tuple(self.shown), self.document.text, updates)

    def _settled(self, due: _Due, last: float) -> bool:
        """Whether the session is over before `due` runs (see the module's docstring)."""
        if not all(s.done for s in self.sent):
            return False
        since = max([last, *(s.done_at or 0.0 for s in self.sent)])
        idle = all(d.background for d in self.timers.values() if not d.stopped)
        return (due.background and idle) or due.t_ms > since + SETTLE_MS

    def apply(self, event: Event) -> bool | None:
        """The document after a typing event; whether its text changed (None: not a typing event)."""
        doc = self.document
        if event.type == "type":
            text = event.text or ""
            self.document = Doc(doc.prefix + text + doc.suffix, doc.cursor + len(text))
            return True
        if event.type == "delete":  # one backspace (the caller repeats it `count` times)
            start = max(0, doc.cursor - 1)
            self.document = Doc(doc.text[:start] + doc.suffix, start)
            return start < doc.cursor
        if event.type == "move":
            if (event.cursor or 0) > len(doc.text):
                raise BadSession(f"events[{self.event_index}]: cursor {event.cursor} is outside the document "
                                 f"({len(doc.text)} characters)")
            self.document = Doc(doc.text, event.cursor or 0)
            return False
        return None


def _user(sim: Simulation, client: LiveClient, n: int, event: Event) -> Callable[[], None]:
    def run() -> None:
        sim.event_index = n
        if event.type == "open":
            document = event.document or ""
            if (event.cursor or 0) > len(document):
                raise BadSession(f"events[{n}]: cursor {event.cursor} is outside the document ({len(document)} characters)")
            sim.document = Doc(document, event.cursor or 0)
            client.opened()
        elif event.type in ("accept", "accept_line"):
            client.accept(line_only=event.type == "accept_line")
        elif event.type == "dismiss":
            client.dismiss()
        else:  # a deletion is `count` backspaces, each a keystroke of its own
            for _ in range(event.count or 1 if event.type == "delete" else 1):
                client.edited(bool(sim.apply(event)))

    return run


def simulate(session: Session, make_client: Callable[[Simulation], LiveClient], editor: str) -> SessionOut:
    """What the editor did through the session: its requests, the items shown, the document left."""
    sim = Simulation(session)
    return sim.run(make_client(sim), editor)
