"""The answer side of an editor profile: what the editor does with the model's raw text before
the user sees it.

Every profile has a completion stage with the same signature, `complete(inp, raw, model=...,
version=..., timing=...) -> Shown`: it takes the editor's view at the cursor (the EditorInput
the prompt was rendered from: the document before and after the cursor, language, filepath,
the editor's own options) and the engine's raw text (already cut at the prompt's stop words),
and returns the text the editor inserts at the cursor, or None when it shows nothing, with a
trace of each rule that changed it.

A profile that aborts the engine's stream early (Continue's single-line mode at the first line)
also gives `stream_stop(inp, model=..., version=...)`: a predicate over the text streamed so far
that returns how many characters of it the editor reads before it cancels the request (None:
read on). The replay stops the engine there too; with greedy decoding the shown text is the same
as if the whole budget had been generated (tests/editors/test_stage_contract.py checks it per profile).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from replay.records import TraceStep

# When each piece of the stream arrived: (characters of raw text received so far, seconds since
# the request was sent), one pair per streamed chunk, in order. Only time-based editor rules
# (Continue's showWhateverWeHaveAtXMs and its processing timeout) read it, and only on request.
Timing = Sequence[tuple[int, float]]

# Given the raw text streamed so far, the length the editor reads before it cancels the stream,
# or None to keep reading.
StreamStop = Callable[[str], "int | None"]


class Shown(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the editor showed for one raw completion.

    `text` is what is inserted at the cursor (for tabby-agent, whose edit range starts at the
    beginning of the word being typed, without the part already typed); None when nothing is
    shown. `replace_after` counts the characters after the cursor that the insertion replaces
    (tabby-agent's auto-closing range), 0 otherwise; `replace_before` those before it (Copilot's
    item replaces its line from the line's start), 0 otherwise. `multiline` is the editor's single/multi-line
    decision. `timing_applied` says whether time-based cuts were applied from measured timing.
    `ignored_options` names the input's settings (dotted keys) that another release of the editor
    reads and this one leaves unread (tabby-agent's config file), so a user sees they had no effect.
    """

    text: str | None
    multiline: bool
    replace_after: int = 0
    trace: tuple[TraceStep, ...] = ()
    replace_before: int = 0
    timing_applied: bool = False
    ignored_options: tuple[str, ...] = ()


class Steps:
    """Collects the trace while a stage runs: `apply` runs one rule and records it only when it
    changed the text, so the trace lists exactly the steps that mattered."""

    def __init__(self, text: str | None) -> None:
        self.text = text
        self.trace: list[TraceStep] = []

    def apply(self, step: str, source: str, rule: Callable[[str], str | None]) -> str | None:
        """Run `rule` on the text (nothing to do once the editor shows nothing)."""
        return None if self.text is None else self.set(step, source, rule(self.text))

    def set(self, step: str, source: str, after: str | None) -> str | None:
        """Record a change computed outside `apply` (a rule that needs more than the text)."""
        if after != self.text:
            self.trace.append(TraceStep(step=step, source=source, text=after))
            self.text = after
        return self.text

    def shown(self, multiline: bool, replace_after: int = 0, timing_applied: bool = False) -> Shown:
        return Shown(text=self.text, multiline=multiline, replace_after=replace_after, trace=tuple(self.trace),
                     timing_applied=timing_applied)


def apply_stop(text: str, stop: tuple[str, ...] | list[str]) -> str:
    """Cut the text at the earliest occurrence of any stop word; the stop word itself is dropped.

    This is what both editors do with the engine's output: Tabby's stop-condition cuts the
    matched stop string off (TabbyML/tabby crates/tabby-inference/src/decoding.rs), Continue
    passes `stop` to the LLM, which ends the text before it (continuedev/continue
    core/autocomplete/templating/getStopTokens.ts; the llm providers' `stop` parameter). The
    engine itself only stops on the model's end-of-generation ids, so the raw output stays
    whole; cutting afterwards gives the same text as stopping during greedy decoding.
    """
    cut = len(text)
    for word in stop:
        if word:
            at = text.find(word)
            if 0 <= at < cut:
                cut = at
    return text[:cut]


__all__ = ["Shown", "Steps", "StreamStop", "Timing", "TraceStep", "apply_stop"]
