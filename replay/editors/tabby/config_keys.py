"""Every key of tabby-agent's config file (~/.tabby-client/agent/config.toml), and the agent states
that have it.

Source: the agent's config type at every commit of main that changed it, from 1.3.0 (b75f12e5f)
to the freeze (e61d780ca): TabbyML/tabby clients/tabby-agent/src/AgentConfig.ts `type AgentConfig`
(until f4d9c75f0), then src/config/type.d.ts `type ConfigData` (the type of config/default.ts's
defaults, which configFile.ts deep-merges the user's file over). A key written `x.*` is typed
`Record<...>` there: any key below it is the user's own (a header name under
`server.requestHeaders`, a command under `chat.edit.presetCommands`). `postprocess.limitScope` and
`postprocess.calculateReplaceRange`, typed `any` (an empty object) once edb23ff99 removed their
switches, are taken as keys of their own: a key below them is known only as the switch an older
state had, so a mistyped one is still refused.

Labels are the project's (releases.py): the release a commit is, else main's -dev version on the
commit's day. "gone in" names the state whose code no longer has the key.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass

from replay.editors.tabby.releases import AgentState

# The commits of main that added or removed a key: short sha -> (full sha, committer time UTC).
_COMMITS: dict[str, tuple[str, str]] = {
    "b75f12e5f": ("b75f12e5ff388b13d0d22fe717a10790078eae8f", "2024-01-17T15:38:58Z"),  # release 1.3.0
    "84f27ce67": ("84f27ce67d2ec63cdc9e476e988d54fdf4ebe65d", "2024-01-22T05:47:47Z"),  # completion timeout removed
    "d6d4903e0": ("d6d4903e0fb39b6e7fb0b38a355b37ab3a7dd942", "2024-02-21T04:33:26Z"),  # CA certs from the OS
    "13948d397": ("13948d3976bf38a9ef85ee6adc2bae66da215819", "2024-04-08T09:52:15Z"),  # declarations
    "f29d24a95": ("f29d24a95625648bf08d0a74bf436da03dda6c85", "2024-04-16T22:41:06Z"),  # recently changed files
    "edb23ff99": ("edb23ff9955e8e6bffa579e73b2ce672208405e9", "2024-04-26T14:44:20Z"),  # experimental postprocess gone
    "6480cedcf": ("6480cedcf3fafa75c42b3e7d111268156c5d2671", "2024-05-15T03:33:19Z"),  # multiple choices
    "22c1c358c": ("22c1c358c3a5347c393030e2d372c84c39cd769c", "2024-05-15T15:13:45Z"),  # commit message generation
    "ee8b811d2": ("ee8b811d2fd43c03138ec88260072f7722d6d813", "2024-05-20T14:49:39Z"),  # chat stream parsing
    "436c4be7f": ("436c4be7fe7b22884aed3aabed4715b8fb0349b4", "2024-05-31T00:22:56Z"),  # chat edit
    "979d589cb": ("979d589cbf16ec442c460d87b1354c71cec1982f", "2024-06-04T04:26:08Z"),  # chat edit commands
    "f5e00a341": ("f5e00a34181303dedba4aeebb367d98c9d07ce0e", "2024-06-04T08:56:51Z"),  # experimentalChat -> chat
    "265b0d01f": ("265b0d01fa9b015895222737f9023ee61adbdbbb", "2024-07-15T04:27:51Z"),  # http proxy
    "2dfd0bbd9": ("2dfd0bbd9cafd19819df5e8edc0cdd6798976f61", "2024-08-30T05:42:14Z"),  # proxy authorization
    "7227d0b17": ("7227d0b171c46b776586cb6505d489d5f9c3eefd", "2024-09-06T21:26:39Z"),  # minCompletionChars
    "b0ba74f58": ("b0ba74f586c70aa899b065e97395d4aff85a1509", "2024-09-23T07:46:19Z"),  # commandMaxChars dropped
    "f4d9c75f0": ("f4d9c75f0121e88a7e60eccdcbcfdc70e670d7cf", "2024-09-25T06:09:04Z"),  # config/type.d.ts
    "5dfe7a125": ("5dfe7a12555cc95c1eae8fbc6d1a942230b8ea3e", "2024-10-14T09:45:44Z"),  # recently opened files
    "7656965d9": ("7656965d9b979371d8648d8dd3c52114af45219d", "2024-10-26T02:20:15Z"),  # smart apply
    "ef9659476": ("ef9659476de428d37fd55f3f268c89bb2371238a", "2025-02-12T01:57:30Z"),  # inline edit file context
    "97ec20f96": ("97ec20f9641d25cf7d29e18b98393054b0736340", "2025-02-19T11:36:44Z"),  # its prompt template
    "d9b361410": ("d9b36141070cf6a4c9c2e9c29ba3590ccfdc825a", "2025-03-26T14:25:16Z"),  # branch name generation
}

_CHANGED = "completion.prompt.collectSnippetsFromRecentChangedFiles."
_OPENED = "completion.prompt.collectSnippetsFromRecentOpenedFiles."

# (added by, removed by or None, the states that have them, keys)
_TABLE: tuple[tuple[str, str | None, str, tuple[str, ...]], ...] = (
    ("b75f12e5f", None, "1.3.0, to the freeze", (
        "anonymousUsageTracking.disable", "completion.debounce.interval", "completion.debounce.mode",
        "completion.prompt.clipboard.maxChars", "completion.prompt.clipboard.minChars", "completion.prompt.maxPrefixLines",
        "completion.prompt.maxSuffixLines", "logs.level", "server.endpoint", "server.requestHeaders.*",
        "server.requestTimeout", "server.token")),
    ("b75f12e5f", "84f27ce67", "1.3.0, gone in 1.3.0@2024-01-22", ("completion.timeout",)),
    ("b75f12e5f", "edb23ff99", "1.3.0, gone in 1.6.0-dev@2024-04-26", (
        "completion.prompt.experimentalStripAutoClosingCharacters", "postprocess.calculateReplaceRange.experimentalSyntax",
        "postprocess.limitScope.experimentalSyntax",
        "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine")),
    ("d6d4903e0", None, "1.4.0-dev@2024-02-21, to the freeze", ("tls.caCerts",)),
    ("13948d397", None, "1.5.0-dev@2024-04-08, to the freeze", (
        "completion.prompt.fillDeclarations.enabled", "completion.prompt.fillDeclarations.maxCharsPerSnippet",
        "completion.prompt.fillDeclarations.maxSnippets")),
    ("f29d24a95", None, "1.5.0-dev@2024-04-16, to the freeze", (
        _CHANGED + "enabled", _CHANGED + "maxSnippets", _CHANGED + "indexing.changesDebouncingInterval",
        _CHANGED + "indexing.checkingChangesInterval", _CHANGED + "indexing.chunkSize", _CHANGED + "indexing.maxChunks",
        _CHANGED + "indexing.overlapLines", _CHANGED + "indexing.prefixLines", _CHANGED + "indexing.suffixLines")),
    ("edb23ff99", None, "1.6.0-dev@2024-04-26, to the freeze", ("postprocess.calculateReplaceRange", "postprocess.limitScope")),
    ("6480cedcf", None, "1.6.0-dev@2024-05-15, to the freeze", (
        "completion.solution.maxItems", "completion.solution.maxTries", "completion.solution.temperature")),
    ("22c1c358c", "f5e00a341", "1.6.0-dev@2024-05-15, gone in 1.7.0-dev@2024-06-04", (
        "experimentalChat.generateCommitMessage.maxDiffLength", "experimentalChat.generateCommitMessage.promptTemplate")),
    ("ee8b811d2", "f5e00a341", "1.7.0-dev@2024-05-20, gone in 1.7.0-dev@2024-06-04", (
        "experimentalChat.generateCommitMessage.responseMatcher",)),
    ("436c4be7f", "979d589cb", "1.7.0-dev@2024-05-31, gone in 1.7.0-dev@2024-06-04", (
        "experimentalChat.edit.promptTemplate", "experimentalChat.edit.responseSplitter",
        "experimentalChat.edit.responseSplitterIncrement")),
    ("436c4be7f", "f5e00a341", "1.7.0-dev@2024-05-31, gone in 1.7.0-dev@2024-06-04", (
        "experimentalChat.edit.commandMaxChars", "experimentalChat.edit.documentMaxChars")),
    ("979d589cb", "f5e00a341", "1.7.0-dev@2024-06-04, gone in 1.7.0-dev@2024-06-04", (
        "experimentalChat.edit.presetCommands.*", "experimentalChat.edit.promptTemplate.insert",
        "experimentalChat.edit.promptTemplate.replace", "experimentalChat.edit.responseCommentTag",
        "experimentalChat.edit.responseDocumentTag")),
    ("f5e00a341", None, "1.7.0-dev@2024-06-04, to the freeze", (
        "chat.edit.documentMaxChars", "chat.edit.presetCommands.*", "chat.edit.promptTemplate.insert",
        "chat.edit.promptTemplate.replace", "chat.edit.responseCommentTag", "chat.edit.responseDocumentTag",
        "chat.generateCommitMessage.maxDiffLength", "chat.generateCommitMessage.promptTemplate",
        "chat.generateCommitMessage.responseMatcher")),
    ("f5e00a341", "b0ba74f58", "1.7.0-dev@2024-06-04, gone in 1.8.0-dev@2024-09-23", ("chat.edit.commandMaxChars",)),
    ("265b0d01f", None, "1.8.0-dev@2024-07-15, to the freeze", ("proxy.url",)),
    ("2dfd0bbd9", None, "1.8.0-dev@2024-08-30, to the freeze", ("proxy.authorization",)),
    ("7227d0b17", None, "1.8.0-dev@2024-09-06, to the freeze", ("postprocess.minCompletionChars",)),
    ("f4d9c75f0", None, "1.8.0-dev@2024-09-25, to the freeze", ("chat.edit.commandMaxChars",)),
    ("5dfe7a125", None, "1.8.0, to the freeze", (
        _OPENED + "enabled", _OPENED + "maxCharsPerOpenedFiles", _OPENED + "maxOpenedFiles")),
    ("7656965d9", None, "1.9.0-dev@2024-10-26, to the freeze", (
        "chat.smartApply.promptTemplate", "chat.smartApplyLineRange.promptTemplate")),
    ("ef9659476", None, "1.9.0-dev@2025-02-12, to the freeze", (
        "chat.edit.fileContext.maxCharsPerFile", "chat.edit.fileContext.maxFiles")),
    ("97ec20f96", None, "1.9.0-dev@2025-02-19, to the freeze", ("chat.edit.fileContext.promptTemplate",)),
    ("d9b361410", None, "1.9.0-dev@2025-03-26, to the freeze", (
        "chat.generateBranchName.maxDiffLength", "chat.generateBranchName.promptTemplate")),
)


@dataclass(frozen=True)
class ConfigKey:
    """One key of the agent's config type, over the span of main that has it: from the commit
    that added it (`since`) up to the commit that removed it (`until`, "" while it stayed to the
    freeze). `open`: a Record, whose sub-keys are the user's."""

    key: str
    since: str
    since_at: str
    until: str = ""
    until_at: str = ""
    open: bool = False
    states: str = ""  # the table's label range, as written above

    def in_state(self, state: AgentState) -> bool:
        return self.since_at <= state.at and (not self.until_at or state.at < self.until_at)

    def covers(self, key: str) -> bool:
        """Whether the dotted `key` is this key, or a key below an open one."""
        return key == self.key or (self.open and key.startswith(self.key + "."))


def _rows() -> tuple[ConfigKey, ...]:
    rows = []
    for since, until, states, keys in _TABLE:
        for key in keys:
            name = key.removesuffix(".*")
            rows.append(ConfigKey(name, _COMMITS[since][0], _COMMITS[since][1], _COMMITS[until][0] if until else "",
                                  _COMMITS[until][1] if until else "", open=key.endswith(".*"), states=states))
    return tuple(rows)


CONFIG_KEYS: tuple[ConfigKey, ...] = _rows()


@functools.cache
def spans(key: str) -> tuple[ConfigKey, ...]:
    """The table rows that hold the dotted `key` (none: no agent state ever had it); asked for
    every key of every line's config, so kept per key."""
    return tuple(row for row in CONFIG_KEYS if row.covers(key))


def state_has(key: str, state: AgentState) -> bool:
    """Whether the agent at `state` has `key` in its config type."""
    return any(row.in_state(state) for row in spans(key))


def key_names() -> tuple[str, ...]:
    """Every key name of the table (an open key as `x.*`), for suggestions."""
    return tuple(sorted({row.key + (".*" if row.open else "") for row in CONFIG_KEYS}))
