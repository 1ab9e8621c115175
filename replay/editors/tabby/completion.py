"""tabby-agent's completion stage: what the editor client does with the Tabby server's text,
for every agent state from 1.3.0 (b75f12e5f) to the freeze (e61d780ca).

The agent (TabbyML/tabby clients/tabby-agent; TabbyAgent.ts provideCompletions, from f4d9c75f0
codeCompletion/index.ts) makes a non-streaming POST /v1/completions and runs the choice through
two chains of filters (postprocess/index.ts, later codeCompletion/postprocess/index.ts):

- preCacheProcess: trimMultiLineInSingleLineMode, removeLineEndsWithRepetition, dropDuplicated,
  trimSpace, dropBlank (dropMinimum from 7227d0b17);
- postCacheProcess: removeRepetitiveBlocks, removeRepetitiveLines, limitScope,
  removeDuplicatedBlockClosingLine, formatIndentation, normalizeIndentation (from 90b4b4c91),
  dropDuplicated, trimSpace, removeDuplicateSuffixLines (from 55caabca9), dropBlank/dropMinimum,
  then calculateReplaceRange (until 309edd172, which takes the range from the context).

Each filter sees the text and the CompletionContext built from the WHOLE document and the cursor
(context.py); a filter that returns null or "" drops the choice, and the agent shows nothing. Which
rule a state runs is decided by the rule-book rules of rules.py (`state.has(rule)`).

What a replay models is one fresh request:
- the completion cache is empty, debounce and cancellation change when, not what, is shown; the
  request timeout does (completion.timeout, 4 s, until 84f27ce67, then server.requestTimeout, 2 min;
  both from the user's config where the state has them), when measured timing is given;
- the trigger: a manual request asks (from 6480cedcf) for several choices at the configured
  temperature, each post-processed alone exactly as an automatic one, so the shown text of one
  received choice does not depend on it (while completion.solution.maxItems and maxTries allow a
  first request: under 1, nothing is sent); before 6480cedcf `manually` only went to the statistics;
- the request carries no editor indentation (the LSP server asks only clients that declare the
  capability), so formatIndentation leaves the text as it is (`postprocess` takes one);
- no completion item is selected in the editor (the selectedCompletionInfo / autoComplete path
  of 500ae05e6, 1f7e7e161 and 5fb03f242 never runs);
- `postprocess.*.experimentalSyntax` (1.3.x, on by default in 1.3.1/1.3.2, removed by
  edb23ff99) parses with tree-sitter grammars (src/syntax/parser.ts: javascript/typescript(react),
  python, go, rust, ruby). For other languages the agent falls back to the indentation and
  bracket-stack rules, which run here; for those languages the replay refuses (TabbyInputError)
  rather than guess the parse.

JavaScript string semantics are kept: lines as splitLines cuts them, the ECMAScript whitespace set
of trim and `\\s`, JS `\\w`/`\\W` (ASCII), lengths and edit distances in UTF-16 code units.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec

from replay.editors.js import js_is_blank
from replay.editors.stage import Shown, Steps, StreamStop, Timing, TraceStep
from replay.editors.tabby.agent_config import ignored_options
from replay.editors.tabby.client import build_request, fetches_no_choice
from replay.editors.tabby.context import CompletionContext
from replay.editors.tabby.filters import (
    drop_blank,
    drop_duplicated,
    drop_minimum,
    format_indentation,
    limit_scope_by_indentation,
    normalize_indentation,
    remove_duplicate_suffix_lines,
    remove_duplicated_block_closing_line,
    remove_line_ends_with_repetition,
    remove_repetitive_blocks,
    remove_repetitive_lines,
    trim_multi_line_in_single_line_mode,
    trim_space,
)
from replay.editors.tabby.options import TabbyInputError, options
from replay.editors.tabby.ranges import replace_range
from replay.editors.tabby.releases import AgentState
from replay.editors.tabby.version import tabby_version
from replay.editors.tabby.rules import (
    BLOCK_CLOSING_TRIM_END,
    COMPLETION_ITEMS,
    COMPLETION_RULES,
    DROP_MINIMUM,
    KEEP_BLOCK,
    MIN_CHARS,
    NON_WORD_LINE_END,
    NORMALIZE_INDENTATION,
    NORMALIZE_INDENTATION_GUARD,
    REMOVE_DUPLICATE_SUFFIX_LINES,
    completion_timeout,
    state_defaults,
    timeout_defaults,
)
from replay.records import EditorInput

_REPO = "TabbyML/tabby clients/tabby-agent/src/"
# f4d9c75f0 (2024-09-25T06:09:04Z) moved src/postprocess/ to src/codeCompletion/postprocess/.
_MOVED_AT = "2024-09-25T06:09:04Z"

# src/syntax/parser.ts languagesConfigs (1.3.0 to 1.5.0 alike): the VS Code language ids with a
# tree-sitter grammar.
SYNTAX_LANGUAGES = frozenset({"javascript", "typescript", "javascriptreact", "typescriptreact", "python", "go", "rust", "ruby"})
_SYNTAX_KEYS = ("postprocess.limitScope.experimentalSyntax", "postprocess.calculateReplaceRange.experimentalSyntax")

Filter = Callable[[str, "CompletionContext"], "str | None"]


def _source(state: AgentState, file: str) -> str:
    folder = "codeCompletion/postprocess/" if state.at >= _MOVED_AT else "postprocess/"
    return f"{_REPO}{folder}{file}.ts"


def state_options(config: dict[str, Any] | None, state: AgentState) -> dict[str, Any]:
    """The state's postprocess config: its defaults (rules.state_defaults) overridden by
    `config`. A key of another state (an experimental switch after edb23ff99, minCompletionChars
    before 7227d0b17) is ignored, as that agent's config loader leaves it unread (agent_config)."""
    return options(config, state_defaults(state), ignored=ignored_options(config, state))


def _drop(state: AgentState, opts: dict[str, Any]) -> tuple[str, Filter]:
    if state.has(DROP_MINIMUM):
        return "dropMinimum", partial(drop_minimum, min_chars=opts[MIN_CHARS])
    return "dropBlank", drop_blank


def _pre_cache(state: AgentState, opts: dict[str, Any]) -> list[tuple[str, Filter]]:
    """preCacheProcess, in order."""
    return [("trimMultiLineInSingleLineMode", trim_multi_line_in_single_line_mode),
            ("removeLineEndsWithRepetition", remove_line_ends_with_repetition),
            ("dropDuplicated", drop_duplicated), ("trimSpace", trim_space), _drop(state, opts)]


def _post_cache(state: AgentState, opts: dict[str, Any]) -> list[tuple[str, Filter]]:
    """postCacheProcess, in order (the replace range follows)."""
    chain: list[tuple[str, Filter]] = [
        ("removeRepetitiveBlocks", remove_repetitive_blocks), ("removeRepetitiveLines", remove_repetitive_lines),
        ("limitScopeByIndentation", partial(limit_scope_by_indentation, keep_block_scope=opts.get(KEEP_BLOCK, False))),
        ("removeDuplicatedBlockClosingLine",
         partial(remove_duplicated_block_closing_line, trim_end=state.has(BLOCK_CLOSING_TRIM_END))),
        ("formatIndentation", format_indentation)]
    if state.has(NORMALIZE_INDENTATION):
        chain.append(("normalizeIndentation",
                      partial(normalize_indentation, guard=state.has(NORMALIZE_INDENTATION_GUARD))))
    chain += [("dropDuplicated", drop_duplicated), ("trimSpace", trim_space)]
    if state.has(REMOVE_DUPLICATE_SUFFIX_LINES):
        chain.append(("removeDuplicateSuffixLines", remove_duplicate_suffix_lines))
    return chain + [_drop(state, opts)]


def _check_syntax_switches(opts: dict[str, Any], language: str, state: AgentState) -> None:
    """limitScope.ts / calculateReplaceRange.ts (until edb23ff99) prefer the tree-sitter rules
    when switched on; they throw for a language without a grammar and the agent falls back to
    the rules here."""
    for key in _SYNTAX_KEYS:
        if opts.get(key) and language in SYNTAX_LANGUAGES:
            raise TabbyInputError(f"{key} = true (tabby-agent {state.label}) parses {language!r} with tree-sitter, "
                                  "which the replay does not model")


def postprocess(prefix: str, suffix: str, raw: str, language: str | None = None, *, indentation: str | None = None,
                config: dict[str, Any] | None = None, version: str | None = None) -> Shown:
    """Both filter chains over one choice of a fresh request at the cursor between `prefix` and
    `suffix` (the whole document) as tabby-agent `version` runs them (None: the freeze): the
    text shown (None: dropped), the mode, the replace range."""
    return _chains(prefix, suffix, raw, language, indentation, config, tabby_version(version).agent)


def _chains(prefix: str, suffix: str, raw: str, language: str | None, indentation: str | None,
            config: dict[str, Any] | None, state: AgentState) -> Shown:
    opts = state_options(config, state)
    ctx = CompletionContext.of(prefix, suffix, language, indentation, state)
    _check_syntax_switches(opts, ctx.language, state)
    steps = Steps(raw)
    steps.set("applyChoiceFilter", _source(state, "base"), raw or None)  # an empty choice is filtered out
    for name, rule in _pre_cache(state, opts) + _post_cache(state, opts):
        # each filter is named after its file; "" drops the choice like null
        steps.apply(name, _source(state, name), lambda text, rule=rule: rule(text, ctx) or None)
    replace_after = 0
    if steps.text is not None:
        replace_after, file = replace_range(steps.text, ctx, state)
        if replace_after:
            steps.trace.append(TraceStep(step="calculateReplaceRange", source=_REPO + file, text=steps.text))
    shown = steps.shown(multiline=ctx.mode == "default", replace_after=replace_after)
    return msgspec.structs.replace(shown, ignored_options=ignored_options(config, state))


def _no_request(inp: EditorInput, state: AgentState) -> bool:
    """Whether the agent sends no request at this cursor: a blank prompt prefix (TabbyAgent.ts
    createSegments, the last maxPrefixLines lines) until 6480cedcf; a blank document prefix
    (CompletionContext.isValid) from 6480cedcf; no such check from 309edd172. A manual trigger
    whose config allows no choice sends nothing either (client.fetches_no_choice)."""
    if fetches_no_choice(inp, state):
        return True
    if state.has(NON_WORD_LINE_END):
        return False
    if state.has(COMPLETION_ITEMS):
        return js_is_blank(inp.prefix)
    return build_request(inp, state=state) is None


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What tabby-agent `version` (a release, a -dev version, a day; None: the freeze) shows of
    the server's text `raw` at this cursor.

    `text` is what the LSP item inserts at the cursor: the item's edit starts at the start of
    the word being typed and puts that word in front of the insertion, so the word part already
    typed before the cursor is NOT in `text`. None when the agent shows nothing (every choice
    filtered out, no request sent, or the request timed out by `timing`). `replace_after` is how
    many characters after the cursor the item's range replaces. `multiline` is the context's
    mode ("default"/line end allows several lines). `model` does not change the client's rules;
    the trigger (inp.trigger) changes how many choices are asked for, not how one is shown.
    `ignored_options` names the keys of `inp.options` another agent release reads and this one
    leaves unread (agent_config)."""
    state = tabby_version(version).agent
    ignored = ignored_options(inp.options, state)
    moved = state.at >= _MOVED_AT
    if _no_request(inp, state):
        step = "provideCompletions" if fetches_no_choice(inp, state) else "createSegments"
        nothing = TraceStep(step=step, source=_REPO + ("codeCompletion/index.ts" if moved else "TabbyAgent.ts"), text=None)
        return Shown(text=None, multiline=_multiline(inp, state), trace=(nothing,), ignored_options=ignored)
    if timing:
        timeouts = options(inp.options, timeout_defaults(state), ignored=ignored)
        if timing[-1][1] > completion_timeout(state, timeouts):
            step = TraceStep(step="requestTimeout", source=_REPO + ("http/tabbyApiClient.ts" if moved else "TabbyAgent.ts"),
                             text=None)
            return Shown(text=None, multiline=_multiline(inp, state), trace=(step,), timing_applied=True,
                         ignored_options=ignored)
    shown = _chains(inp.prefix, inp.suffix, raw, inp.language, None, inp.options, state)
    return msgspec.structs.replace(shown, timing_applied=bool(timing))


def _multiline(inp: EditorInput, state: AgentState) -> bool:
    """The context's mode where no choice was post-processed: "default" allows several lines."""
    return CompletionContext.of(inp.prefix, inp.suffix, inp.language, None, state).mode == "default"


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """tabby-agent never cuts a completion stream, in any release: provideCompletions (later
    TabbyApiClient.fetchCompletion) POSTs /v1/completions without `stream` and reads the one JSON
    answer (only the chat requests stream), so the engine runs to its own stop words or budget."""
    return None


__all__ = ["COMPLETION_RULES", "CompletionContext", "complete", "postprocess", "state_options", "stream_stop"]
