"""tabby-agent's request side by state: every change of the body it POSTs to /v1/completions.

Each rule is a commit of TabbyML/tabby main (clients/tabby-agent); `AgentState.has(rule)` says
whether a release, or main on a day, runs it. Times are committer times in UTC.
"""

from __future__ import annotations

from typing import Any

from replay.editors.rulebook import Rule
from replay.editors.tabby.options import AGENT_DEFAULTS
from replay.editors.tabby.releases import AgentState, agent_rule

_A = "clients/tabby-agent/src/"

# Line-end test of the cursor line (src/utils.ts regOnlyAutoClosingCloseChars): before this commit
# every character of the trimmed rest of the line had to be one of ) ] } ' " ` ; from it, the rest
# may also hold > and />.
HTML_CLOSERS = agent_rule(
    "line-end-html-closers", "bb2afea15d21ee3ce5fd985d6fa2b39919891ead", "2024-01-29T08:02:07Z",
    _A + "CompletionContext.ts, utils.ts", "the cursor line's rest counts as closing characters with > and /> too")
# AgentConfig.ts defaultAgentConfig: experimentalStripAutoClosingCharacters on (1.3.1, 1.3.2) ...
STRIP_ON = agent_rule(
    "strip-auto-closing-on", "cb50aeac573fb3ceb70df33d836ef288a2146088", "2024-01-29T09:25:33Z",
    _A + "AgentConfig.ts", "experimentalStripAutoClosingCharacters on by default: at a line end the suffix is "
    "\"\\n\" + the following lines")
# ... and off again (1.3.3 hotfix).
STRIP_OFF = agent_rule(
    "strip-auto-closing-off", "77b52aceacfdc394eedd84fa4fd3740ebd0b38c5", "2024-02-01T07:10:26Z",
    _A + "AgentConfig.ts", "experimentalStripAutoClosingCharacters off by default again")
FILEPATH = agent_rule(
    "filepath", "0b9e0d2441d46d17523519667edff3787286ff88", "2024-03-25T02:35:27Z",
    _A + "TabbyAgent.ts createSegments", "segments.filepath: the document's path relative to the git root or "
    "the workspace (with git_url when a remote is known)")
DECLARATIONS = agent_rule(
    "declarations", "13948d3976bf38a9ef85ee6adc2bae66da215819", "2024-04-08T09:52:15Z",
    _A + "TabbyAgent.ts, AgentConfig.ts fillDeclarations; clients/vscode/src/TabbyCompletionProvider.ts",
    "segments.declarations: at most 5, each cut to 500 characters at its last line break")
CHANGED_FILES = agent_rule(
    "changed-files", "f29d24a95625648bf08d0a74bf436da03dda6c85", "2024-04-16T22:41:06Z",
    _A + "TabbyAgent.ts, AgentConfig.ts collectSnippetsFromRecentChangedFiles",
    "segments.relevant_snippets_from_changed_files (at most 3, highest score first), off by default")
CHANGED_FILES_ON = agent_rule(
    "changed-files-on", "a2db35be94ef0a17a655ae92b46218be4b3751af", "2024-04-17T07:00:44Z",
    _A + "AgentConfig.ts", "snippets from recently changed files on by default")
STRIP_GONE = agent_rule(
    "strip-auto-closing-removed", "edb23ff9955e8e6bffa579e73b2ce672208405e9", "2024-04-26T14:44:20Z",
    _A + "AgentConfig.ts, TabbyAgent.ts createSegments", "experimentalStripAutoClosingCharacters removed: the "
    "suffix is always the first maxSuffixLines lines")
MANUAL_CHOICES = agent_rule(
    "manual-temperature", "6480cedcf3fafa75c42b3e7d111268156c5d2671", "2024-05-15T03:33:19Z",
    _A + "TabbyAgent.ts provideCompletions/fetchCompletion, CompletionContext.ts isValid",
    "a manual trigger fetches up to 3 choices at temperature 0.8 (the first body carries it); a request is "
    "sent unless the whole text before the cursor is blank; the Tabby Cloud `user` field is gone")
LSP_CONTEXT = agent_rule(
    "agent-collects-context", "7205b788b31338b74a7da0cac6bb34adc3b79cfb", "2024-05-27T10:22:21Z",
    _A + "lsp/Server.ts textDocumentPositionParamsToCompletionRequest, collectDeclarationSnippets",
    "the agent builds the request from LSP: the workspace is the folder whose URI starts the document's; a "
    "declaration longer than 500 characters is cut at its last line break only when one follows the first character")
NO_CLIPBOARD = agent_rule(
    "no-clipboard-route", "f4d9c75f0121e88a7e60eccdcbcfdc70e670d7cf", "2024-09-25T06:09:04Z",
    _A + "TabbyAgent.ts, JsonLineServer.ts (removed), codeCompletion/index.ts",
    "the agent API that took a clipboard text is removed; the LSP request never carries one")
OPENED_FILES = agent_rule(
    "opened-files", "5dfe7a12555cc95c1eae8fbc6d1a942230b8ea3e", "2024-10-14T09:45:44Z",
    _A + "codeCompletion/contexts.ts buildSegments, codeCompletion/index.ts collectSnippetsFromOpenedFiles",
    "segments.relevant_snippets_from_recently_opened_files: the file's URI as is, 500 characters each")
LINE_END_SUFFIX = agent_rule(
    "line-end-suffix", "eae43ba768520f1201f4cd2756beb284170f8517", "2024-12-30T01:06:06Z",
    _A + "codeCompletion/contexts.ts buildSegments, utils/string.ts regOnlyAutoClosingCloseChars",
    "when the rest of the cursor line is only closing characters (now with ; and ,) the suffix leaves it out: "
    "\"\\n\" + the text after the line's first \"\\n\" (a CRLF line's \\r goes too)")
CONTEXT_REFACTOR = agent_rule(
    "context-refactor", "309edd172be083d759f2c943792d70376ec90db8", "2025-04-21T10:34:52Z",
    _A + "codeCompletion/contexts.ts buildCompletionContext, codeCompletion/buildRequest.ts",
    "the suffix starts after the cursor line's rest when that is only non-word characters (its line break "
    "kept); a request is sent even for a blank prefix; filepath is the document URI when no root holds it; "
    "limits and location de-duplication of snippets move into the request; no clipboard field")

REQUEST_RULES: tuple[Rule, ...] = (
    HTML_CLOSERS, STRIP_ON, STRIP_OFF, FILEPATH, DECLARATIONS, CHANGED_FILES, CHANGED_FILES_ON, STRIP_GONE,
    MANUAL_CHOICES, LSP_CONTEXT, NO_CLIPBOARD, OPENED_FILES, LINE_END_SUFFIX, CONTEXT_REFACTOR,
)


def agent_defaults(state: AgentState) -> dict[str, Any]:
    """The request-side keys of tabby-agent at `state` and their defaults there (options.AGENT_DEFAULTS
    holds every key with its type)."""
    keys = ["completion.prompt.maxPrefixLines", "completion.prompt.maxSuffixLines",
            "completion.prompt.clipboard.minChars", "completion.prompt.clipboard.maxChars"]
    if not state.has(STRIP_GONE):
        keys.append("completion.prompt.experimentalStripAutoClosingCharacters")
    if state.has(DECLARATIONS):
        keys += [f"completion.prompt.fillDeclarations.{k}" for k in ("enabled", "maxSnippets", "maxCharsPerSnippet")]
    if state.has(CHANGED_FILES):
        keys += [f"completion.prompt.collectSnippetsFromRecentChangedFiles.{k}" for k in ("enabled", "maxSnippets")]
    if state.has(OPENED_FILES):
        keys += [f"completion.prompt.collectSnippetsFromRecentOpenedFiles.{k}"
                 for k in ("enabled", "maxOpenedFiles", "maxCharsPerOpenedFiles")]
    if state.has(MANUAL_CHOICES):
        keys += [f"completion.solution.{k}" for k in ("temperature", "maxItems", "maxTries")]
    out = {key: AGENT_DEFAULTS[key] for key in keys}
    if "completion.prompt.experimentalStripAutoClosingCharacters" in out:  # on in 1.3.1 and 1.3.2
        out["completion.prompt.experimentalStripAutoClosingCharacters"] = state.has(STRIP_ON) and not state.has(STRIP_OFF)
    if "completion.prompt.collectSnippetsFromRecentChangedFiles.enabled" in out:
        out["completion.prompt.collectSnippetsFromRecentChangedFiles.enabled"] = state.has(CHANGED_FILES_ON)
    return out
