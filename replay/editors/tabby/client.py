"""tabby-agent's client stage: the HTTP body the editor plugin POSTs to /v1/completions, for every
agent state from 1.3.0 to the client code's freeze (replay.editors.tabby.releases).

TabbyML/tabby clients/tabby-agent/src: TabbyAgent.ts createSegments and provideCompletions,
CompletionContext.ts, utils.ts splitLines (1.3.0 b75f12e5f .. 1.6.0 e71cef8a9); lsp/Server.ts
(from 7205b788b); codeCompletion/contexts.ts and index.ts (from f4d9c75f0);
codeCompletion/buildRequest.ts (from 309edd172 to e61d780c). The rules and their commits:
replay.editors.tabby.request_rules; the segments beyond prefix and suffix: request_snippets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from replay.editors.js import js_is_blank, js_trim_end
from replay.editors.tabby import request_rules as r
from replay.editors.tabby.agent_config import ignored_options
from replay.editors.tabby.options import options
from replay.editors.tabby.releases import AgentState, agent_state
from replay.editors.tabby.request_rules import REQUEST_RULES, agent_defaults
from replay.editors.tabby.request_snippets import context_segments
from replay.records import EditorInput

# src/utils.ts splitLines: input.match(/.*(?:$|\r?\n)/g). In JS `.` excludes \n, \r, \u2028
# and \u2029, and `$` (no m flag) is the end of the input: text before a lone \r or a
# \u2028 that is not followed by a newline is not matched at all, so the agent drops it.
_JS_LINE = re.compile("[^\n\r\u2028\u2029]*(?:\\Z|\r?\n)")

# utils.ts regOnlyAutoClosingCloseChars: /^([)\]}>"'`]|(\/>))*$/g from bb2afea15; with |[;,] from
# eae43ba76 (utils/string.ts). Before bb2afea15: every character one of ) ] } ' " `.
_CLOSERS_OLD = re.compile(r"[)\]}'\"`]*")
_CLOSERS = re.compile(r"(?:[)\]}>\"'`]|/>)*")
_CLOSERS_SEMI = re.compile(r"(?:[)\]}>\"'`]|/>|[;,])*")
# codeCompletion/contexts.ts (309edd172): /^\W*$/ on the rest of the cursor line, its line break included.
_NON_WORD = re.compile(r"[^A-Za-z0-9_]*")
_LINE_BREAK = re.compile(r"[\r\n]")


def split_lines(text: str) -> list[str]:
    """tabby-agent splitLines: pieces that keep their line endings, plus a last "" after a
    trailing "\\n" (so at column 0 the cursor line counts as an empty line)."""
    lines = [m for m in _JS_LINE.findall(text) if m]
    if lines and lines[-1].endswith("\n"):
        lines.append("")
    return lines


def _agent_options(inp: EditorInput, config: Mapping[str, Any] | None, state: AgentState) -> dict[str, Any]:
    """The state's request-side settings; a key of another agent state is ignored (agent_config)."""
    merged = {**inp.options, **(config or {})}
    return options(merged, agent_defaults(state), ignored=ignored_options(merged, state))


def _no_choice(inp: EditorInput, opts: Mapping[str, Any], state: AgentState) -> bool:
    """From 6480cedcf a manual trigger fetches while `items.length < completion.solution.maxItems
    && tries < completion.solution.maxTries` (TabbyAgent.ts provideCompletions, from f4d9c75f0
    codeCompletion/index.ts): a maxItems or maxTries under 1 ends the loop before its first request."""
    return (inp.trigger == "manual" and state.has(r.MANUAL_CHOICES)
            and not (opts["completion.solution.maxItems"] > 0 and opts["completion.solution.maxTries"] > 0))


def fetches_no_choice(inp: EditorInput, state: AgentState) -> bool:
    """Whether the agent at `state` sends nothing because its config allows the (manual) trigger no choice."""
    return _no_choice(inp, _agent_options(inp, None, state), state)


def _line_end(first_line: str, state: AgentState) -> bool:
    """CompletionContext isAtLineEndExcludingAutoClosedChar: the trimmed rest of the cursor line is
    only closing characters."""
    rest = js_trim_end(first_line)
    pattern = _CLOSERS_SEMI if state.has(r.LINE_END_SUFFIX) else _CLOSERS if state.has(r.HTML_CLOSERS) else _CLOSERS_OLD
    return pattern.fullmatch(rest) is not None


def _cut_lines(prefix: str, suffix: str, opts: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    prefix_lines = split_lines(prefix)
    suffix_lines = split_lines(suffix)
    kept = prefix_lines[max(len(prefix_lines) - opts["completion.prompt.maxPrefixLines"], 0):]
    return kept, suffix_lines


def _segments_before_refactor(inp: EditorInput, opts: Mapping[str, Any], state: AgentState) -> tuple[str, str] | None:
    """Prefix and suffix from TabbyAgent.ts createSegments / CompletionContext buildSegments; None
    when nothing is sent (a blank cut prefix before 6480cedcf, a blank text before the cursor after)."""
    kept, suffix_lines = _cut_lines(inp.prefix, inp.suffix, opts)
    max_suffix = opts["completion.prompt.maxSuffixLines"]
    prefix = "".join(kept)
    first = suffix_lines[0] if suffix_lines else ""
    strip = opts.get("completion.prompt.experimentalStripAutoClosingCharacters", False)
    if strip and _line_end(first, state):
        suffix = "\n" + "".join(suffix_lines[1:max_suffix])
    else:
        suffix = "".join(suffix_lines[:max_suffix])
    if state.has(r.LINE_END_SUFFIX) and _line_end(first, state):
        suffix = "\n" + "\n".join(suffix.split("\n")[1:])
    blank = js_is_blank(inp.prefix) if state.has(r.MANUAL_CHOICES) else js_is_blank(prefix)
    return None if blank else (prefix, suffix)


def _segments_after_refactor(inp: EditorInput, opts: Mapping[str, Any]) -> tuple[str, str]:
    """codeCompletion/contexts.ts buildCompletionContext (309edd172): when the rest of the cursor
    line (to the next LSP line start: \\r\\n, \\r or \\n) is only non-word characters, the suffix
    starts after it, less its final "\\r\\n" or "\\n"; buildRequest.ts then cuts the lines. Always sent."""
    suffix = inp.suffix
    brk = _LINE_BREAK.search(suffix)
    if brk is None:
        rest = suffix
    else:
        end = brk.start() + (2 if suffix[brk.start():brk.start() + 2] == "\r\n" else 1)
        rest = suffix[:end]
    if _NON_WORD.fullmatch(rest):
        suffix = suffix[len(re.sub(r"\r?\n\Z", "", rest, count=1)):]
    kept, suffix_lines = _cut_lines(inp.prefix, suffix, opts)
    return "".join(kept), "".join(suffix_lines[:opts["completion.prompt.maxSuffixLines"]])


def build_request(inp: EditorInput, config: Mapping[str, Any] | None = None,
                  state: AgentState | None = None) -> dict[str, Any] | None:
    """The exact HTTP body tabby-agent at `state` (None: the newest, the freeze e61d780c) POSTs
    to /v1/completions first, or None when it sends nothing.

    Options are the agent's config paths (`config` overrides `inp.options`); a key of another
    release is ignored, as the agent's config loader leaves it unread (agent_config). A manual
    trigger (`inp.trigger`, from 6480cedcf) fetches several choices; the first body carries
    `temperature` (completion.solution.temperature, 0.8). Over LSP "manual" is inlineCompletion's
    Invoked trigger; textDocument/completion treats every trigger but a typed trigger character
    as manual from 309edd172 (Invoked only before). Key order is the agent's: language, segments
    (prefix, suffix, filepath, declarations, relevant_snippets_from_changed_files,
    relevant_snippets_from_recently_opened_files, clipboard), temperature. A snippet collector
    the agent runs itself over LSP (changed files from 7205b788b, opened files from 5dfe7a125)
    that is on and found nothing sends its list empty until 309edd172 (request_snippets). A manual
    trigger whose config allows no choice sends nothing (fetches_no_choice).
    """
    state = state or agent_state(None)
    opts = _agent_options(inp, config, state)
    if state.has(r.CONTEXT_REFACTOR):
        cut: tuple[str, str] | None = _segments_after_refactor(inp, opts)
    else:
        cut = _segments_before_refactor(inp, opts, state)
    if cut is None or _no_choice(inp, opts, state):
        return None
    segments: dict[str, Any] = {"prefix": cut[0], "suffix": cut[1]}
    segments.update(context_segments(inp, opts, state))
    body: dict[str, Any] = {"language": inp.language, "segments": segments}
    if inp.language is None:
        del body["language"]
    if inp.trigger == "manual" and state.has(r.MANUAL_CHOICES):
        body["temperature"] = opts["completion.solution.temperature"]
    return body


__all__ = ["REQUEST_RULES", "build_request", "fetches_no_choice", "split_lines"]
