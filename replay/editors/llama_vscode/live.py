"""llama.vscode's client in a session: the client of its timing rules (replay/editors/timed_client.py)
with the speculative follow-up requests the extension sends after every item it shows.

ggml-org/llama.vscode src/completion.ts @v0.0.63 (src/architect.ts before the refactor 6dde543),
getCompletionItems: once the items are returned, a `setTimeout(…, 0)` runs, if the call's token
was not cancelled meanwhile (and, from v0.0.6 c49ecfd "fix speculative FIM", the rest of the
cursor's line is blank, `lineSuffix.trim() === ""`), `cacheFutureSuggestion` then
`cacheFutureAcceptLineSuggestion` with the lines of the first suggestion kept (firstComplLines:
the answer, or the cached rest, cut at /\\r?\\n/ and its trailing blank lines removed). This
happens for an item from a request and for one from the cache alike.

- cacheFutureSuggestion: the context with the whole suggestion accepted. One line: the same
  input_prefix and input_suffix, prompt + the line. More lines: input_prefix + prompt + all lines
  but the last + "\\n" (from v0.0.6 c49ecfd, its last n_prefix lines), the last line as the
  prompt. `n_indent` is the indentation of the original prompt (`prompt.length -
  prompt.trimStart().length`). Nothing is sent when that context is cached already; else
  getFIMCompletion posts it, not touching isRequestInProgress (the user's requests neither wait
  for it nor hold it up). Its answer is cached only when `futureData.content` is a non-blank
  string: with `n_cmpl` (8e42441, v0.0.40) the server answers an array, whose `content` is
  undefined, so it is never cached and the same follow-up goes out again whenever the same item
  is shown again from the cache.
- cacheFutureAcceptLineSuggestion (after that request's answer): for a suggestion of more than one
  line, the context after its first line is accepted (input_prefix + prompt + first line + "\\n",
  an empty prompt) is cached with the remaining lines, unless cached already.

The cache here is keyed by the whole text before and after the cursor (timed_client.py), where
the extension's key is its windowed input_prefix|input_suffix|prompt: the same within n_prefix
and n_suffix lines.
"""

from __future__ import annotations

from collections.abc import Callable

from replay.editors.js import js_length, js_trim, js_trim_start
from replay.editors.live import Doc, Host, Request
from replay.editors.llama_vscode import request as req
from replay.editors.llama_vscode.completion import suggestion_lines
from replay.editors.llama_vscode.releases import Release, tag_index
from replay.editors.llama_vscode.settings import Settings
from replay.editors.timed_client import Complete, Debouncer, Render, Showing, TimedClient
from replay.editors.timing import TimingRules
from replay.records import EditorInput

SPECULATIVE_FIX = "v0.0.6"  # c49ecfd: only at a blank rest of line; a longer input_prefix cut to n_prefix lines
N_CMPL = "n_cmpl"  # a body with it is answered with an array: the follow-up's answer is not cached


class FollowUpClient(TimedClient):
    """The timed client of llama.vscode at `rel` under `conf`, asking ahead after each item shown."""

    def __init__(self, host: Host, rules: TimingRules, render: Render, complete: Complete,
                 cursor_input: Callable[[Doc], EditorInput], debouncer: Debouncer | None,
                 conf: Settings, rel: Release) -> None:
        super().__init__(host, rules, render, complete, cursor_input, debouncer)
        self.conf, self.rel = conf, rel
        self.fixed = rel.index >= tag_index(SPECULATIVE_FIX)

    def shown_from(self, doc: Doc, text: str, showing: Showing) -> None:
        rest_of_line = doc.suffix.split("\n", 1)[0]
        if self.fixed and js_trim(rest_of_line) != "":
            return
        self.host.later(0.0, lambda: self._ask_ahead(doc, suggestion_lines(text), showing))

    def _ask_ahead(self, doc: Doc, lines: list[str], showing: Showing) -> None:
        """The setTimeout's body: nothing once the call's token is cancelled (an edit, an accept or
        a dismiss since the item appeared)."""
        if self.showing is not showing or self.host.doc() != doc or not lines:
            return
        accepted = (doc.prefix + "\n".join(lines), doc.suffix)
        if accepted in self.cache:
            self._accept_line_entry(doc, lines, showing.request)
            return
        base = self.render(self.cursor_input(doc))
        prompt: str = base["prompt"]
        if len(lines) == 1:
            prefix, future_prompt = base["input_prefix"], prompt + lines[0]
        else:
            prefix = base["input_prefix"] + prompt + "\n".join(lines[:-1]) + "\n"
            kept = prefix[:-1].replace("\r\n", "\n").split("\n")
            if self.fixed and len(kept) > self.conf.n_prefix:
                prefix = "\n".join(kept[len(kept) - int(self.conf.n_prefix):]) + "\n"
            future_prompt = lines[-1]
        local = req.Local(input_prefix=prefix, input_suffix=base["input_suffix"], prompt=future_prompt,
                          n_indent=js_length(prompt) - js_length(js_trim_start(prompt)), spaces_to_remove=0)
        body = req.body(local, base.get("input_extra", []), self.conf, self.rel)
        holder: list[Request] = []

        def answered(answer: str) -> None:
            if N_CMPL not in body and js_trim(answer) != "":
                self.cache.setdefault(accepted, ("\n".join(suggestion_lines(answer)), holder[0].n))
            self._accept_line_entry(doc, lines, showing.request)

        holder.append(self.host.send(body, answered))

    def _accept_line_entry(self, doc: Doc, lines: list[str], request: int) -> None:
        """cacheFutureAcceptLineSuggestion: the rest of a suggestion of several lines, cached at the
        context after its first line is accepted."""
        if len(lines) > 1:
            self.cache.setdefault((doc.prefix + lines[0] + "\n", doc.suffix), ("\n".join(lines[1:]), request))

