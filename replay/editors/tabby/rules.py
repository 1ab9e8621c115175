"""The changes of tabby-agent's completion stage, 1.3.0 to the freeze, as rule-book rules (replay/editors/rulebook.py).

Each rule is one commit of TabbyML/tabby main (committer time, UTC) that changed what the agent
shows of a choice or the range the item replaces; `AgentState.has(rule)` says whether a state
runs it. The rules are read from clients/tabby-agent at each commit (the `source` paths); the
replay's completion stage (completion.py, context.py, filters.py, indentation.py, ranges.py)
branches on them. COMPLETION_RULES lists them oldest first for `fimreplay editors tabby
--history`.
"""

from __future__ import annotations

import math
from typing import Any

from replay.editors.rulebook import Rule
from replay.editors.tabby.errors import TabbyInputError
from replay.editors.tabby.releases import AgentState, agent_rule

_SRC = "clients/tabby-agent/src/"

TIMEOUT_REMOVED = agent_rule(
    "completionTimeoutRemoved", "84f27ce67d2ec63cdc9e476e988d54fdf4ebe65d", "2024-01-22T05:47:47Z",
    _SRC + "TabbyAgent.ts, AgentConfig.ts",
    "the completion request is no longer aborted after completion.timeout (4 s): server.requestTimeout (2 min) applies")
BLOCK_CLOSING_TRIM_END = agent_rule(
    "removeDuplicatedBlockClosingLine.trimEnd", "b3cbe36a0413953c44959002e009818c0d343439", "2024-01-22T02:18:27Z",
    _SRC + "postprocess/removeDuplicatedBlockClosingLine.ts",
    "the closing line and the suffix line are compared with trailing whitespace (the newline) trimmed")
HTML_JSX_AUTO_CLOSING = agent_rule(
    "autoClosingPairs.htmlJsx", "bb2afea15d21ee3ce5fd985d6fa2b39919891ead", "2024-01-29T08:02:07Z",
    _SRC + "utils.ts, CompletionContext.ts",
    "`<`/`>` and `/>` join the bracket stack (matched by regex); a rest of line of them counts as a line end")
SYNTAX_ON_BY_DEFAULT = agent_rule(
    "experimentalSyntax.on", "cb50aeac573fb3ceb70df33d836ef288a2146088", "2024-01-29T09:25:33Z",
    _SRC + "AgentConfig.ts",
    "defaults: limitScope and calculateReplaceRange by tree-sitter, keep the block scope when completing a line")
SYNTAX_REPLACE_RANGE_OFF = agent_rule(
    "calculateReplaceRange.experimentalSyntax.off", "a818905c7ead44361c86857304554247fadcf065",
    "2024-02-01T05:39:31Z", _SRC + "AgentConfig.ts",
    "hotfix 1.3.2: the replace range is by bracket stack again by default")
SYNTAX_LIMIT_SCOPE_OFF = agent_rule(
    "limitScope.experimental.off", "77b52aceacfdc394eedd84fa4fd3740ebd0b38c5", "2024-02-01T07:10:26Z",
    _SRC + "AgentConfig.ts",
    "hotfix 1.3.3: limitScope by indentation, line scope when completing a line, by default")
EXPERIMENTAL_REMOVED = agent_rule(
    "experimentalPostprocess.removed", "edb23ff9955e8e6bffa579e73b2ce672208405e9", "2024-04-26T14:44:20Z",
    _SRC + "postprocess/limitScope.ts, calculateReplaceRange.ts, limitScopeByIndentation.ts",
    "the experimentalSyntax and experimentalKeepBlockScopeWhenCompletingLine options are gone")
COMPLETION_ITEMS = agent_rule(
    "completionSolution", "6480cedcf3fafa75c42b3e7d111268156c5d2671", "2024-05-15T03:33:19Z",
    _SRC + "TabbyAgent.ts, CompletionContext.ts, CompletionSolution.ts",
    "a manual trigger fetches several choices (each post-processed alone); a request needs a non-blank document prefix")
DROP_MINIMUM = agent_rule(
    "dropMinimum", "7227d0b171c46b776586cb6505d489d5f9c3eefd", "2024-09-06T21:26:39Z",
    _SRC + "postprocess/dropMinimum.ts, AgentConfig.ts",
    "dropBlank becomes dropMinimum: a text under postprocess.minCompletionChars (4) after trim is dropped")
NORMALIZE_INDENTATION = agent_rule(
    "normalizeIndentation", "90b4b4c914637052fbe0a5bfcac6b44432451bca", "2024-11-22T01:08:33Z",
    _SRC + "codeCompletion/postprocess/normalizeIndentation.ts",
    "after formatIndentation: odd space indents lose one space (the first line all of it) at a blank line prefix")
REMOVE_DUPLICATE_SUFFIX_LINES = agent_rule(
    "removeDuplicateSuffixLines", "55caabca9ff30cbf5fb34d9863343df75b41710f", "2024-11-22T01:34:20Z",
    _SRC + "codeCompletion/postprocess/removeDuplicateSuffixLines.ts",
    "the text is cut before its last line from which on it repeats the suffix's non-blank lines")
SEMICOLON_LINE_END = agent_rule(
    "lineEnd.semicolon", "eae43ba768520f1201f4cd2756beb284170f8517", "2024-12-30T01:06:06Z",
    _SRC + "codeCompletion/contexts.ts, postprocess/calculateReplaceRange*.ts, utils/string.ts",
    "closers plus `;` `,` count as a line end, whose whole rest the item replaces; a `;` rest is replaced by a `;` end")
NORMALIZE_INDENTATION_GUARD = agent_rule(
    "normalizeIndentation.guard", "a3e8f6a900f0fa27fd867da9512e5f5b7d545d00", "2025-02-19T10:21:12Z",
    _SRC + "codeCompletion/postprocess/normalizeIndentation.ts",
    "normalizeIndentation leaves the text alone when the line prefix is empty or holds a tab")
NON_WORD_LINE_END = agent_rule(
    "lineEnd.nonWord", "309edd172be083d759f2c943792d70376ec90db8", "2025-04-21T10:34:52Z",
    _SRC + "codeCompletion/contexts.ts, solution.ts, postprocess/index.ts",
    "a rest of line without word characters (/^\\W*$/) is a line end: the filters' suffix skips it, the item "
    "replaces it; no calculateReplaceRange, no blank-prefix check")

COMPLETION_RULES: tuple[Rule, ...] = tuple(sorted((
    TIMEOUT_REMOVED, BLOCK_CLOSING_TRIM_END, HTML_JSX_AUTO_CLOSING, SYNTAX_ON_BY_DEFAULT, SYNTAX_REPLACE_RANGE_OFF,
    SYNTAX_LIMIT_SCOPE_OFF, EXPERIMENTAL_REMOVED, COMPLETION_ITEMS, DROP_MINIMUM, NORMALIZE_INDENTATION,
    REMOVE_DUPLICATE_SUFFIX_LINES, SEMICOLON_LINE_END, NORMALIZE_INDENTATION_GUARD, NON_WORD_LINE_END,
), key=lambda rule: rule.when))

_SYNTAX_KEYS = ("postprocess.limitScope.experimentalSyntax", "postprocess.calculateReplaceRange.experimentalSyntax")
KEEP_BLOCK = "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine"
MIN_CHARS = "postprocess.minCompletionChars"


def state_defaults(state: AgentState) -> dict[str, Any]:
    """AgentConfig.ts / config/default.ts `postprocess` defaults of the state, keyed by config path:
    only the keys the state knows (an option it lacks is refused when set)."""
    if state.has(EXPERIMENTAL_REMOVED):
        return {MIN_CHARS: 4} if state.has(DROP_MINIMUM) else {}
    syntax_on = state.has(SYNTAX_ON_BY_DEFAULT) and not state.has(SYNTAX_LIMIT_SCOPE_OFF)
    return {
        _SYNTAX_KEYS[0]: syntax_on,
        KEEP_BLOCK: syntax_on,
        _SYNTAX_KEYS[1]: state.has(SYNTAX_ON_BY_DEFAULT) and not state.has(SYNTAX_REPLACE_RANGE_OFF),
    }


def timeout_defaults(state: AgentState) -> dict[str, Any]:
    """The request timeouts (ms) of the state's config, with their defaults there (AgentConfig.ts):
    completion.timeout 4000 and server.requestTimeout 30000 before 84f27ce67, then
    server.requestTimeout 120000 alone."""
    if state.has(TIMEOUT_REMOVED):
        return {"server.requestTimeout": 120000}
    return {"completion.timeout": 4000, "server.requestTimeout": 30000}


def completion_timeout(state: AgentState, timeouts: dict[str, Any]) -> float:
    """Seconds after which the agent aborts the completion request, from the state's
    timeout_defaults overridden by the user's config: before 84f27ce67 TabbyAgent.ts
    createAbortSignal takes `completion.timeout || server.requestTimeout` (a 0 falls back), from
    84f27ce67 server.requestTimeout (later http/tabbyApiClient.ts createTimeOutAbortSignal); both
    capped at 0x7fffffff ms and cut to whole ms as AbortSignal.timeout takes them. A negative
    timeout makes AbortSignal.timeout throw: refused."""
    ms = timeouts["server.requestTimeout"]
    if not state.has(TIMEOUT_REMOVED):
        ms = timeouts["completion.timeout"] or ms
    if ms < 0:
        raise TabbyInputError(f"a negative request timeout ({ms} ms) makes tabby-agent {state.label} fail every request")
    return math.trunc(min(0x7FFFFFFF, ms)) / 1000
