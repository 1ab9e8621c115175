"""Continue's client in a session: its VS Code extension calling core's CompletionProvider at each
edit, read at continuedev/continue b238c1f11f (v2.1.0-vscode) and checked against that code run
under node (tests/data/golden/continue/sessions).

- extensions/vscode/src/autocomplete/completionProvider.ts: VS Code calls the provider at every
  edit and cancels the previous call's token; the extension aborts that call's signal, and a
  call whose signal was aborted shows nothing (willDisplay). The abort does not stop the request
  its call started: the stream belongs to core's GeneratorReuseManager.
- core/autocomplete/CompletionProvider.ts provideInlineCompletionItems: the debounce
  (util/AutocompleteDebouncer.ts: every call waits `debounceDelay`, a later one supersedes it;
  before 42cdb7f845 (2025-05-12; v1.1.30-vscode checked) a call after a quiet `debounceDelay`
  went at once and opened a window each later call extended, a call in it waiting
  `debounceDelay` and going only if no call came meanwhile: timing.py's "leading" debounce),
  then the cache, then the stream; an answer a call shows is put in the cache under its prefix.
- util/AutocompleteLruCache.ts get: the longest cached prefix the text before the cursor starts
  with, when its completion starts with what was typed since; that completion's rest, and an
  empty rest is no hit.
- generation/GeneratorReuseManager.ts: a call reuses the stream of the last request (running or
  done) while that request's text before the cursor followed by what of its answer has come
  starts with the call's text before the cursor (and is not longer than it: a backspace starts a
  new one); the characters typed since are skipped at the answer's start. Otherwise the call
  cancels that stream (its request is aborted) and sends its own.
- what is read of a stream and when (`reader`, given by the profile: stream.py; by default the
  whole answer when it has come).

The reuse compares with what of the answer has come (GeneratorReuseManager's pendingCompletion:
every chunk, whatever a call read of it). A call that joins a stream before it is read reads it
as the request's own call (its filters' times counted from the request, not from the joining
call); one that comes later reads all of the answer that has come, at once. The cache is looked up by the pruned
prefix and an answer put under the prefix sent, which differ when snippets or a file header are
sent before it (1.1.30's `# geometry.py`): then Continue's cache never hits (`prefixes`, given by
the profile: profile.py cache_prefixes; by default the text before the cursor for both). Read
at b238c1f11f and 8a1287207f (v1.1.30-vscode) and applied to every VS Code release: the first rewrite (cf14cdb2ae, v0.9.227-vscode) keys its cache
the same way, but older releases keyed it otherwise (v0.8.24-vscode's completionProvider.ts by
the whole rendered prompt, so only the same context hit), which is not modelled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from replay.editors.live import Doc, Host, Read, Request
from replay.editors.timed_client import Complete, Render, ShowingClient
from replay.editors.timing import TimingRules
from replay.records import EditorInput


# (the text before the cursor Continue looks its cache up by, the prefix it sends: its cache's key
# for the answer and its stream's) at a cursor: HelperVars' prunedPrefix and the prefix of
# renderPromptWithTokenLimit (profile.py cache_prefixes)
Prefixes = Callable[[EditorInput], tuple[str, str]]


@dataclass
class _Stream:
    """A request's stream as GeneratorReuseManager holds it: the text before the cursor it was
    asked at (the prefix sent), its answer once read, and the calls waiting for it (their number,
    their context, their prefix sent)."""

    request: Request
    prefix: str
    text: str | None = None
    waiting: list[tuple[int, Doc, str]] = field(default_factory=list)


class ContinueClient(ShowingClient):
    """Continue's VS Code client at a release whose timing rules are `rules` (its debounce: the
    module's docstring; the rest of its loop is its own, not the timing-rules client's)."""

    def __init__(self, host: Host, rules: TimingRules, render: Render, complete: Complete,
                 cursor_input: Callable[[Doc], EditorInput], prefixes: Prefixes = lambda inp: (inp.prefix, inp.prefix),
                 reader: Callable[[EditorInput], Read | None] = lambda inp: None) -> None:
        super().__init__(host)
        self.rules, self.render, self.complete, self.cursor_input = rules, render, complete, cursor_input
        self.prefixes, self.reader = prefixes, reader
        self.pending: int | None = None  # the debounce timer
        self.call = 0  # the provider's latest call: the earlier ones' tokens are cancelled
        self.window_end = 0.0  # the leading debounce's window: a call before it waits
        self.stream: _Stream | None = None
        self.answers: dict[str, tuple[str, int]] = {}  # AutocompleteLruCache: prefix -> (completion, request)

    def edited(self, changed: bool) -> None:
        self._hide()
        if self.pending is not None:
            self.host.stop_timer(self.pending)
        self.call += 1
        call, now, delay = self.call, self.host.now(), self.rules.debounce.min_ms
        quiet = now >= self.window_end
        self.window_end = now + delay
        if self.rules.debounce.mode == "leading" and quiet:
            self._debounced(call)
            return
        self.pending = self.host.later(delay, lambda: self._debounced(call))

    def _debounced(self, call: int) -> None:
        self.pending = None
        doc = self.host.doc()
        looked_up, sent = self.prefixes(self.cursor_input(doc))
        cached = self._lookup(looked_up)
        if cached is not None:
            self._show(doc, *cached)
            return
        stream = self.stream
        if stream is not None and len(stream.prefix) <= len(sent) and (
                stream.prefix + stream.request.streamed()).startswith(sent):
            if stream.text is None:
                stream.waiting.append((call, doc, sent))
            else:  # read after its first reader: all of the answer that has come
                self._read(stream, call, doc, sent, stream.request.streamed())
            return
        if stream is not None and stream.text is None:
            stream.request.cancel()
        holder: list[_Stream] = []
        request = self.host.send(self.render(self.cursor_input(doc)), lambda text: self._answered(holder[0], text),
                                 read=self.reader(self.cursor_input(doc)))
        holder.append(_Stream(request, sent, waiting=[(call, doc, sent)]))
        self.stream = holder[0]

    def _answered(self, stream: _Stream, text: str) -> None:
        stream.text = text
        for call, doc, sent in stream.waiting:
            self._read(stream, call, doc, sent, text)
        stream.waiting = []

    def _read(self, stream: _Stream, call: int, doc: Doc, sent: str, text: str) -> None:
        """A call's read of the stream (`text`): nothing once its token was cancelled; else the
        answer without the characters typed since it was asked, shown and cached under the prefix
        sent."""
        if call != self.call:
            return
        typed = sent[len(stream.prefix):]
        while text and typed and text[0] == typed[0]:
            text, typed = text[1:], typed[1:]
        shown = self.complete(self.cursor_input(doc), text)
        if shown.text:
            self.answers[sent] = (shown.text, stream.request.n)
            self._show(doc, text, stream.request.n)

    def _show(self, doc: Doc, text: str, request: int) -> None:
        self._put(self.complete(self.cursor_input(doc), text), request)

    def _lookup(self, prefix: str) -> tuple[str, int] | None:
        """AutocompleteLruCache.get: the longest key the prefix starts with, if its completion
        starts with the rest; a non-empty rest of that completion."""
        keys = [k for k in self.answers if prefix.startswith(k)]
        if not keys:
            return None
        key = max(keys, key=len)
        value, request = self.answers[key]
        typed = prefix[len(key):]
        if not value.startswith(typed) or len(value) == len(typed):
            return None
        return value[len(typed):], request
