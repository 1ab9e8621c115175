"""A client driven through a session by its release's timing rules alone (replay/editors/timing.py):
what `fimreplay session` runs for an editor whose own loop is not modelled step by step
(EditorProfile.live_client's default). What the rules say, it does; what they leave open is
decided here, once, the same for every such editor:

- a keystroke (an edit or a cursor move) hides the item shown; with `cancels_in_flight` it aborts
  the request in flight (in the VS Code clients the provider's cancellation token is cancelled
  by the document change: microsoft/vscode src/vs/editor/contrib/inlineCompletions/browser/model/
  inlineCompletionsSource.ts);
- before the debounce, or after it before the request, a call may wait for the editor's extra
  context (`ContextWait`: Tabby's questions to the editor, replay/editors/tabby/extra_context.py);
  a keystroke meanwhile drops the call, as it drops a debounce;
- the request, or a cached answer, waits for the debounce: none (at once), fixed (`min_ms`),
  adaptive (an editor's own Debouncer, as Tabby's; else its lower bound, `min_ms`) or throttle
  (`max_ms` after the keystroke when the last request went out less than `max_ms` before); a
  keystroke within the debounce restarts it;
- a request due while one is in flight goes out at once, or with `in_flight_wait_ms`
  (llama.vscode's 150 ms) waits for it, checking again that often, until a keystroke drops it;
  such a client looks its cache up only once the wait is over (llama.vscode src/completion.ts
  @v0.0.63 getCompletionItems: the `while (this.isRequestInProgress)` loop comes before
  getCachedCompletion), so a cached answer waits for the request in flight too, and an answer
  that arrives after the user typed on is not shown by the call that asked for it (the host
  cancelled that call's token and drops what it returns) but from the cache by the waiting
  call, at its next check;
- an answer shown whole (what a client reads of a stream is its own: Continue's, continue_/live.py);
  after `client_timeout_ms` the client
  gives up on it;
- an answer is shown when it arrives at the context it was asked at; after the user typed on,
  only with `shows_late`, when the text typed since is the start of the answer (its rest shown);
- the cache (where `cache` names one): an answer is kept by its context (the text before and
  after the cursor) and shown again at that context without a request; with `serves_typed`
  (Tabby's forwarding contexts, llama.vscode's typed-text lookup, Copilot's completions trie) also
  further on in the line, where what was typed since is the answer's start (its rest shown);
- accepting inserts the item (replacing what it replaces) and is an edit like any other;
  accepting a line takes the item up to and including its first newline and keeps the rest
  shown, as VS Code's `acceptNextLine` (microsoft/vscode src/vs/editor/contrib/inlineCompletions/
  browser/model/inlineCompletionsModel.ts: `m.index + 1`; a partial accept keeps the
  completion, VersionIdChangeReason.AcceptWord) does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from replay.editors.live import Doc, Host, Item, Request
from replay.editors.stage import Shown
from replay.editors.timing import TimingRules
from replay.records import EditorInput

Render = Callable[[EditorInput], dict[str, Any]]
Complete = Callable[[EditorInput, str], Shown]


class Debouncer(Protocol):
    """How long a keystroke's request (or its cached answer) waits: the rules' fixed delay, or an
    editor's own adaptive one (Tabby's, replay/editors/tabby/debouncer.py)."""

    def delay(self, doc: Doc, now_ms: float, cached: bool, last_sent_ms: float | None) -> float: ...

    def answered(self, latency_ms: float | None) -> None:
        """An answer came this long after its request reached the server (None: it timed out)."""
        ...


class RulesDebouncer:
    """The debounce the timing rules state: none, fixed, adaptive (its lower bound: the editor's
    estimate is not modelled) or a throttle (`max_ms` when the last request went out less than
    `max_ms` before)."""

    def __init__(self, rules: TimingRules) -> None:
        self.debounce = rules.debounce

    def delay(self, doc: Doc, now_ms: float, cached: bool, last_sent_ms: float | None) -> float:
        d = self.debounce
        if d.mode == "throttle":
            recent = last_sent_ms is not None and now_ms - last_sent_ms < d.max_ms
            return d.max_ms if recent else 0.0
        return d.bounds()[0]

    def answered(self, latency_ms: float | None) -> None:
        """The rules' delay does not learn from answers."""


DroppedCall = Literal["at_drop", "at_end", "never"]


class ContextWait(Protocol):
    """How long a call waits for the editor's extra context (ms): before its debounce and after
    it, before the request; `cached` says whether the call has a cached answer to show."""

    def before_debounce_ms(self, cached: bool) -> float: ...

    def after_debounce_ms(self, cached: bool) -> float: ...

    def dropped_call_debounces(self) -> DroppedCall:
        """Whether a call a keystroke drops while it waits before its debounce still reaches the
        debouncer, which then counts its typing interval (its delay goes unused): at once, at
        the end of its wait, or never."""
        ...


class NoContextWait:
    """An editor that asks for no extra context, or gets it at once."""

    def before_debounce_ms(self, cached: bool) -> float:
        return 0.0

    def after_debounce_ms(self, cached: bool) -> float:
        return 0.0

    def dropped_call_debounces(self) -> DroppedCall:
        return "never"


@dataclass
class Showing:
    item: Item
    request: int


class ShowingClient:
    """What every session client does with the item on screen, whatever its own loop: hide it at
    a keystroke, accept it (whole or a line, as VS Code's `acceptNextLine` does: the module's
    docstring) or dismiss it. A subclass says what an edit does (`edited`)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.showing: Showing | None = None

    def opened(self) -> None:
        """Opening a document asks for nothing until the user types."""

    def edited(self, changed: bool) -> None:
        raise NotImplementedError

    def _hide(self) -> None:
        if self.showing is not None:
            self.host.hide()
        self.showing = None

    def accept(self, line_only: bool) -> None:
        showing = self.showing
        if showing is None:
            return
        item = showing.item
        cut = item.text.find("\n") + 1 if line_only else 0
        self.host.set_doc(item.accepted(self.host.doc(), line_only))
        if cut:  # the rest stays shown
            rest = Item(item.text[cut:], 0, item.replace_after)
            self.showing = Showing(rest, showing.request)
            self.host.show(showing.request, rest)
            return
        self.edited(True)

    def dismiss(self) -> None:
        self._hide()

    def _put(self, shown: Shown, request: int) -> Showing | None:
        """The item a completion stage made of an answer put on screen, unless it makes none or
        one is there already (the editor shows one item at a time)."""
        if shown.text is None or self.showing is not None:
            return None
        item = Item(shown.text, shown.replace_before, shown.replace_after)
        self.showing = Showing(item, request)
        self.host.show(request, item)
        return self.showing


class TimedClient(ShowingClient):
    """A client from its timing rules: `render` gives the body sent at a cursor, `complete` what
    is shown of a text received there."""

    def __init__(self, host: Host, rules: TimingRules, render: Render, complete: Complete,
                 cursor_input: Callable[[Doc], EditorInput], debouncer: Debouncer | None = None,
                 context: ContextWait | None = None) -> None:
        super().__init__(host)
        self.rules = rules
        self.render, self.complete, self.cursor_input = render, complete, cursor_input
        self.debouncer = debouncer or RulesDebouncer(rules)
        self.context = context or NoContextWait()
        self.in_context: tuple[Doc, bool, float] | None = None  # the call waiting before its debounce: its
        # document, whether it had a cached answer, when its wait ends
        self.pending: int | None = None  # the debounce timer
        self.in_flight: Request | None = None
        self.last_sent: float | None = None
        self.cache: dict[tuple[str, str], tuple[str, int]] = {}

    def edited(self, changed: bool) -> None:
        self._hide()
        if self.rules.cancels_in_flight and self.in_flight is not None:
            self.in_flight.cancel()
            self.in_flight = None
        if self.pending is not None:
            self.host.stop_timer(self.pending)
            self.pending = None
        if self.in_context is not None:
            self._dropped_in_context(*self.in_context)
        doc = self.host.doc()
        cache_after_wait = self.rules.in_flight_wait_ms is not None and self.in_flight is not None
        cached = self._cached(doc) if self.rules.cache != "none" and not cache_after_wait else None
        context = self.context.before_debounce_ms(cached is not None)
        if context > 0:
            self.in_context = (doc, cached is not None, self.host.now() + context)
            self.pending = self.host.later(context, lambda: self._debounce(doc, cached))
        else:
            self._debounce(doc, cached)

    def _dropped_in_context(self, doc: Doc, cached: bool, ends: float) -> None:
        """A call dropped in its wait for context that still reaches the debouncer."""
        self.in_context = None
        when = self.context.dropped_call_debounces()
        if when == "never":
            return
        last_sent = self.last_sent

        def debounce() -> None:
            self.debouncer.delay(doc, self.host.now(), cached, last_sent)

        if when == "at_drop":
            debounce()
        else:
            self.host.later(ends - self.host.now(), debounce)

    def _debounce(self, doc: Doc, cached: tuple[str, int] | None) -> None:
        self.pending, self.in_context = None, None
        wait = self.debouncer.delay(doc, self.host.now(), cached is not None, self.last_sent)
        if cached is None:  # the wait for context after the debounce: one timer, as a keystroke ends either
            self.pending = self.host.later(wait + self.context.after_debounce_ms(False), self._send)
        elif wait <= 0:
            self._show(doc, cached[0], cached[1])
        else:  # a cached answer waits for the debounce too (Tabby's, Continue's debounce comes first)
            self.pending = self.host.later(wait, lambda: self._show_cached(doc, cached))

    def _show_cached(self, doc: Doc, cached: tuple[str, int]) -> None:
        self.pending = None
        self._show(doc, cached[0], cached[1])

    def _cached(self, doc: Doc) -> tuple[str, int] | None:
        """The answer cached at this context, or (`serves_typed`) the rest of one cached at an
        earlier cursor of the same line whose start is what was typed since."""
        exact = self.cache.get((doc.prefix, doc.suffix))
        if exact is not None or not self.rules.serves_typed:
            return exact
        longer = 0 if self.rules.serves_typed_whole else 1
        for (prefix, suffix), (text, request) in reversed(self.cache.items()):
            typed = doc.prefix[len(prefix):]
            if (suffix == doc.suffix and doc.prefix.startswith(prefix) and "\n" not in typed
                    and len(text) >= len(typed) + longer and text.startswith(typed)):
                return text[len(typed):], request
        return None

    def _send(self) -> None:
        self.pending = None
        wait = self.rules.in_flight_wait_ms
        if wait is not None and self.in_flight is not None:
            self.pending = self.host.later(wait, self._send)  # a keystroke meanwhile stops it (edited)
            return
        doc = self.host.doc()
        if wait is not None and self.rules.cache != "none":  # the cache is looked up once the wait is over
            cached = self._cached(doc)
            if cached is not None:
                self._show(doc, cached[0], cached[1])
                return
        self._issue(doc)

    def _issue(self, doc: Doc) -> None:
        holder: list[Request] = []
        sent_at = self.host.now()
        request = self.host.send(self.render(self.cursor_input(doc)),
                                 lambda text: self._answer(doc, holder[0], text, sent_at),
                                 timeout_ms=self.rules.client_timeout_ms)
        holder.append(request)
        self.in_flight, self.last_sent = request, self.host.now()
        if self.rules.client_timeout_ms is not None:
            self.host.later(self.rules.client_timeout_ms, lambda: self._timed_out(request))

    def _timed_out(self, request: Request) -> None:
        if self.in_flight is request:
            self.in_flight = None
            self.debouncer.answered(None)

    def _answer(self, asked: Doc, request: Request, text: str, sent_at: float) -> None:
        if self.in_flight is request:
            self.in_flight = None
        self.debouncer.answered(self.host.now() - sent_at)
        if self.rules.cache != "none":
            self.cache[(asked.prefix, asked.suffix)] = (text, request.n)
        now = self.host.doc()
        if now == asked:
            self._show(now, text, request.n)
            return
        typed = now.prefix[len(asked.prefix):]
        by_the_waiting_call = self.rules.in_flight_wait_ms is not None  # from the cache, at its next check
        if (self.rules.shows_late and not by_the_waiting_call
                and now.prefix.startswith(asked.prefix) and now.suffix == asked.suffix
                and text.startswith(typed) and len(text) > len(typed)):
            self._show(now, text[len(typed):], request.n)

    def _show(self, doc: Doc, text: str, request: int) -> None:
        showing = self._put(self.complete(self.cursor_input(doc), text), request)
        if showing is not None:
            self.shown_from(doc, text, showing)

    def shown_from(self, doc: Doc, text: str, showing: Showing) -> None:
        """What the editor does once `showing` appeared at `doc` from the answer (or cached rest)
        `text`: nothing here; an editor that asks ahead from what it showed (llama.vscode's
        follow-up, replay/editors/llama_vscode/live.py) overrides it."""
