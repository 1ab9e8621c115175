"""Copilot's client in a session: chat-lib 0.66.0's ghost text call, step by step in time, with
the client's state carried from one call to the next.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/;
checked against the npm package @vscode/chat-lib 0.66.0's compiled dist):
- ghostText/ghostText.ts `GhostTextComputer.getGhostText`: each call makes itself the current
  request (`currentGhostText.currentRequestId`); a call is cancelled when its token is (the
  host's, at the next document change) or a later call has started (`isCompletionRequestCancelled`),
  checked after the debounce, after the wait for the async manager, after `completionsDelay` and
  before it returns. In order: the prompt (profile.py `prompt`: the suffix AfterCursor reuses,
  the strategy, after an accepted item `after_accept`), the local lookup (`getLocalInlineSuggestion`:
  the item typed as suggested, then the completions cache), then, with nothing local and a
  request of the async manager that may still match (`shouldWaitForAsyncCompletions`), the wait
  for the first of them that does (`getFirstMatchingRequestWithTimeout`, asyncCompletionsTimeout
  200 ms; its choice cut to one line for a single-line request), then its own request, queued in
  the async manager, whose result is the first answer of the async manager's requests that
  matches (`getFirstMatchingRequest`: its own or an earlier one's). Every result but one typed as
  suggested is held until `completionsDelay` (200 ms) after the call began; the result becomes
  the item on screen (`setGhostText`) unless the call is speculative.
- ghostText/asyncCompletions.ts: every request sent is kept (pending, then completed with its
  first choice; a request whose answer gave no choice is dropped); a candidate has the same
  prompt suffix, a prefix the call's extends, and (completed) a choice that starts with what was
  typed since and goes beyond it. `getFirstMatchingRequest` subscribes to every candidate and
  cancels the pending requests that are not (`cancelRequest`: only for the latest non-speculative
  call, `mostRecentRequestId`); it resolves with the first candidate's answer that matches, or
  with nothing once every candidate it waited for has ended without one. An answer's text reaches
  the calls waiting on its request as it streams in, before the request completes (ghostText.ts
  wraps the strategy's finishedCb in `updateCompletion`): a call it no longer goes on for lets
  go of it, and the latest call cancels it then, before its choice is read (neither cached nor
  completed). A wait that timed out keeps its subscriptions (Promise.race).
- ghostText/completionsFromNetwork.ts: an answer's choice (and the statement splitter's later
  parts) goes into the completions cache when it arrives, whichever call is still waiting.
- inlineCompletion.ts `GhostText.getInlineCompletionsResult`: a result not typed as suggested
  registers a speculative call (`speculativeRequestCache.set`) at the document with the item
  accepted, `isSpeculative` (no token, not the async manager's latest, no `setGhostText`); it
  runs when the host reports the item shown (ghostText/telemetry.ts `telemetryShown`, reached
  in VS Code from the provider's `handleDidShowCompletionItem` through ghostText/last.ts
  `handleGhostTextShown`, in chat-lib from src/lib/node/chatLibMain.ts `inlineCompletionShown`,
  `speculativeRequestCache.request`: once per item). As the item
  on screen is what it accepts, it asks with the after-accept strategy; its answer serves the
  user's accept from the cache, or from the async manager while it is in flight.

The host here is VS Code's: it cancels the call's token at the next document change, shows a
result whose token was not cancelled, and reports each item shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import count
from typing import Any

from replay.editors.copilot import answer, formatting, request
from replay.editors.copilot.answer import Choice
from replay.editors.copilot.languages import detected
from replay.editors.copilot.profile import FORMATTING, Prompt, check_input, prompt
from replay.editors.copilot.session import ClientState, one_line
from replay.editors.live import Doc, Host, Request
from replay.editors.stage import Shown, Steps
from replay.editors.timed_client import ShowingClient
from replay.editors.timing import TimingRules
from replay.records import EditorInput

MAX_ASYNC_REQUESTS = 100  # asyncCompletions.ts `requests`: LRUCacheMap(100)
TYPING = "getCompletionsForUserTyping"


@dataclass
class Sent:
    """One request in the async manager: where it was asked, and (completed) its first choice
    and the stream's trace (the asking call shows its own answer from it)."""

    request: Request
    asked: Prompt
    body: dict[str, Any]
    choice: Choice | None = None
    steps: Steps | None = None
    waits: list[Wait] = field(default_factory=list)

    @property
    def completed(self) -> bool:
        return self.choice is not None

    def candidate(self, prefix: str, suffix: str, streamed: str | None = None) -> bool:
        """asyncCompletions.ts isCandidate; `streamed`, the text a pending request's stream has
        given so far (`partialCompletionText`, None: nothing yet)."""
        if self.asked.suffix != suffix or not prefix.startswith(self.asked.prefix):
            return False
        typed = prefix[len(self.asked.prefix):]
        if self.choice is None:
            return streamed is None or streamed.startswith(typed)
        return self.choice.text.startswith(typed) and len(self.choice.text.rstrip()) > len(typed)


@dataclass
class Wait:
    """getFirstMatchingRequest's deferred: resolved once, with a candidate's choice less what
    was typed since, or with None when every candidate it waited for ended without one."""

    call: int  # the waiting call's id (its headerRequestId, which cancelRequest compares)
    prefix: str
    suffix: str
    resolve: Callable[[Choice | None, Sent | None], None]
    pending: set[int] = field(default_factory=set)
    resolved: bool = False

    def settle(self, choice: Choice | None, sent: Sent | None) -> None:
        if not self.resolved:
            self.resolved = True
            self.resolve(choice, sent)

    def ended(self, sent: Sent) -> None:
        """A candidate it waited for ended without matching (finishRequest)."""
        self.pending.discard(sent.request.n)
        if not self.pending:
            self.settle(None, None)

    def match(self, sent: Sent) -> None:
        """A completed candidate's choice, less what was typed since it was asked, settles it."""
        if sent.choice is not None and sent.candidate(self.prefix, self.suffix):
            self.settle(sent.choice.rest(sent.choice.text[len(self.prefix) - len(sent.asked.prefix):]), sent)

    def answered(self, sent: Sent) -> None:
        """A candidate it waited for completed (the subject's `next`, then `complete`)."""
        self.match(sent)
        self.ended(sent)


class AsyncManager:
    """asyncCompletions.ts AsyncCompletionManager: every request sent, in the order the map
    holds them (a completed one moves to the end)."""

    def __init__(self) -> None:
        self.requests: list[Sent] = []
        self.most_recent = 0

    def should_wait(self, prefix: str, suffix: str) -> bool:
        """shouldWaitForAsyncCompletions."""
        return any(s.candidate(prefix, suffix) for s in self.requests)

    def queue(self, sent: Sent) -> None:
        self.requests.append(sent)
        del self.requests[:-MAX_ASYNC_REQUESTS]

    def first_matching(self, call: int, prefix: str, suffix: str, speculative: bool,
                       resolve: Callable[[Choice | None, Sent | None], None]) -> Wait:
        """getFirstMatchingRequest: a completed candidate answers at once (its subject replays)."""
        if not speculative:
            self.most_recent = call
        wait = Wait(call, prefix, suffix, resolve)
        for sent in list(self.requests):
            if not sent.candidate(prefix, suffix):
                self.cancel(call, sent)
            elif sent.choice is not None:
                wait.match(sent)
            else:
                wait.pending.add(sent.request.n)
                sent.waits.append(wait)
        return wait

    def cancel(self, call: int, sent: Sent) -> None:
        """cancelRequest: only the latest call cancels, and only a pending request."""
        if call != self.most_recent or sent.completed or sent not in self.requests:
            return
        sent.request.cancel()
        self.requests.remove(sent)
        self._ended(sent)

    def streamed(self, sent: Sent, text: str) -> bool:
        """The answer's text reaches the waits subscribed to it before the request completes
        (ghostText.ts wraps the strategy's finishedCb in `updateCompletion`): each wait it no
        longer goes on for lets go of it, the latest call's cancelling it (`next`:
        cancelRequest, finishRequest), and a request cancelled so is dropped before its choice
        is read: nothing cached, nothing completed. Whether it is still in the manager."""
        for wait in list(sent.waits):
            if wait in sent.waits and not wait.resolved and not sent.candidate(wait.prefix, wait.suffix, text):
                sent.waits.remove(wait)
                self.cancel(wait.call, sent)  # a cancelled request lets go of every wait (_ended)
                wait.ended(sent)
        return sent in self.requests

    def completed(self, sent: Sent, choice: Choice | None, steps: Steps) -> None:
        """The request's answer came: completed with its first choice, or (none) dropped."""
        if sent in self.requests:
            self.requests.remove(sent)
        if choice is None:
            self._ended(sent)
            return
        sent.choice, sent.steps = choice, steps
        self.queue(sent)
        waits, sent.waits = sent.waits, []
        for wait in waits:
            if not wait.resolved:
                wait.answered(sent)

    def _ended(self, sent: Sent) -> None:
        waits, sent.waits = sent.waits, []
        for wait in waits:
            if not wait.resolved:
                wait.ended(sent)


@dataclass
class Call:
    """One getGhostText call: at `doc`, begun at `start`, with the host's token (a speculative
    call has none)."""

    id: int
    doc: Doc
    start: float
    speculative: bool
    token_cancelled: bool = False
    asked: Prompt | None = None


class CopilotClient(ShowingClient):
    """chat-lib's provider under a VS Code-like host (the module's docstring). Accepting,
    dismissing and hiding the item on screen are every session client's (timed_client.py)."""

    def __init__(self, host: Host, rules: TimingRules, model: str, version: str | None,
                 cursor_input: Callable[[Doc], EditorInput]) -> None:
        super().__init__(host)
        self.rules, self.cursor_input = rules, cursor_input
        self.model, self.version = model, version
        self.state = ClientState()
        self.manager = AsyncManager()
        self.ids = count(1)
        self.current_id = 0  # currentGhostText.currentRequestId
        self.call: Call | None = None  # the host's latest call

    def edited(self, changed: bool) -> None:
        self._hide()
        if self.call is not None:
            self.call.token_cancelled = True
        self.call = self._begin(self.host.doc(), speculative=False)

    def _cancelled(self, call: Call) -> bool:
        return call.token_cancelled or call.id != self.current_id

    def _begin(self, doc: Doc, speculative: bool) -> Call:
        call = Call(next(self.ids), doc, self.host.now(), speculative)
        self.current_id = call.id
        inp = self.cursor_input(doc)
        check_input(inp, self.version)  # a bad session line is rejected as `render` rejects it
        call.asked = prompt(detected(inp), self.state)
        if call.asked is None:  # abortedBeforeIssued: no completion here
            return call
        debounce = self.rules.debounce.bounds()[0]  # getRemainingDebounceMs: the completionsDebounce setting
        if debounce > 0:
            self.host.later(debounce, lambda: None if self._cancelled(call) else self._look_up(call))
        else:
            self._look_up(call)
        return call

    def _look_up(self, call: Call) -> None:
        """After the debounce: the strategy reads the item on screen as it is now (ghostText.ts
        asks hasAcceptedCurrentCompletion after the debounce, the prompt before it)."""
        assert call.asked is not None
        asked = call.asked = replace(call.asked, accepted=self.state.accepted(call.asked.prefix, call.asked.suffix))
        local = self.state.local_choices(asked.prefix, asked.suffix, asked.multiline)
        if local:
            self._result(call, local)
        elif self.manager.should_wait(asked.prefix, asked.suffix):
            self._wait(call, asked)
        else:
            self._fetch(call, asked)

    def _wait(self, call: Call, asked: Prompt) -> None:
        """getFirstMatchingRequestWithTimeout, then, with no choice, the call's own request. The
        timeout ends the call's wait, not getFirstMatchingRequest's subscriptions (Promise.race):
        they stay, and still let go of (and cancel) a request whose text no longer matches."""
        timer: list[int] = []
        over: list[bool] = []

        def done(choice: Choice | None, sent: Sent | None) -> None:
            if over:
                return
            over.append(True)
            if timer:
                self.host.stop_timer(timer[0])
            if self._cancelled(call):  # abortedBeforeIssued
                return
            if choice is None:
                self._fetch(call, asked)
            else:
                self._result(call, [("AsyncCompletionManager", one_line(choice, asked.multiline))])

        wait = self.manager.first_matching(call.id, asked.prefix, asked.suffix, call.speculative, done)
        if not wait.resolved:
            timer.append(self.host.later(self.rules.match_wait_ms or 0.0, lambda: done(None, None)))

    def _fetch(self, call: Call, asked: Prompt) -> None:
        """The call's own request, queued in the async manager; its result the first matching answer."""
        body = asked.body()
        holder: list[Sent] = []
        sent = Sent(self.host.send(body, lambda text: self._arrived(holder[0], text)), asked, body)
        holder.append(sent)
        self.manager.queue(sent)

        def done(choice: Choice | None, by: Sent | None) -> None:
            if choice is None or by is None:  # 'empty': no result
                return
            if by is sent:
                self._own_result(call, sent)
            else:
                self._result(call, [("AsyncCompletionManager", choice)])

        self.manager.first_matching(call.id, asked.prefix, asked.suffix, call.speculative, done)

    def _arrived(self, sent: Sent, text: str) -> None:
        """completionsFromNetwork.ts: the choice (and the splitter's later parts) cached as it comes."""
        if not self.manager.streamed(sent, text):
            return
        inp = sent.asked.inp
        steps, choice, parts = answer.received(inp, text, request.stream_cut(sent.body, inp.language or ""), None, self.model)
        if choice is not None:
            choice = replace(choice, request=sent.request.n)
            self.state.cache.append(sent.asked.prefix, sent.asked.suffix, choice)
        for added, part in parts:
            self.state.cache.append(sent.asked.prefix + added, sent.asked.suffix, replace(part, request=sent.request.n))
        self.manager.completed(sent, choice, steps)

    def _own_result(self, call: Call, sent: Sent) -> None:
        """The call's own answer: post-processed in context on the stream's trace."""
        assert sent.choice is not None and sent.steps is not None and call.asked is not None
        inp = call.asked.inp
        processed = answer.in_context(inp, sent.steps, sent.choice.chunks_on_arrival)
        shown = answer.item(inp, sent.steps, sent.body["stop"] != ["\n"])
        self._hold(call, shown, [sent.choice.rest(processed)] if processed else [], sent.request.n, typing=False)

    def _result(self, call: Call, candidates: list[tuple[str, Choice]]) -> None:
        """A local or another request's choice: post-processed in context (answer.local)."""
        assert call.asked is not None
        shown, processed = answer.local(call.asked.inp, candidates, call.asked.multiline)
        typing = candidates[0][0] == TYPING
        self._hold(call, shown, processed, processed[0].request if processed else 0, typing)

    def _hold(self, call: Call, shown: Shown, processed: list[Choice], request_n: int, typing: bool) -> None:
        """completionsDelay: a result not typed as suggested waits until that long after the call
        began; a cancelled call returns nothing."""
        if not processed:  # 'empty': nothing left once post-processed
            return
        remaining = call.start + (self.rules.shown_after_ms or 0.0) - self.host.now()
        if not typing and remaining > 0:
            self.host.later(remaining, lambda: self._return(call, shown, processed, request_n, typing))
        else:
            self._return(call, shown, processed, request_n, typing)

    def _return(self, call: Call, shown: Shown, processed: list[Choice], request_n: int, typing: bool) -> None:
        if self._cancelled(call):
            return
        asked = call.asked
        assert asked is not None
        if not call.speculative:
            if not typing:  # current.ts setGhostText keeps the item of a result not typed as suggested
                self.state.current = (asked.prefix, asked.suffix, processed)
            self._show_result(call, shown, processed[0].text, request_n, typing)

    def _show_result(self, call: Call, shown: Shown, raw: str, request_n: int, typing: bool) -> None:
        """The host shows the item of a call whose token stands, and reports it shown: a result
        not typed as suggested then runs its speculative call at the document with it accepted."""
        asked = call.asked
        assert asked is not None
        showing = self._put(formatting.formatted(asked.inp, raw, shown, FORMATTING), request_n)
        if showing is not None and not typing:
            self._begin(showing.item.accepted(call.doc), speculative=True)
