"""Tabby's settings, keyed by their own config paths, and the one check every Tabby stage uses.

Client keys are tabby-agent's (~/.tabby-client/agent/config.toml), server keys are the Tabby
server's config.toml. A key that no modelled release has (a typo) or a value of the wrong type
for a key the state reads is an error; a client key of another release is ignored, as every
agent state does (replay.editors.tabby.agent_config).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from replay import secrets
from replay.editors.tabby.config_keys import key_names, spans
from replay.editors.tabby.errors import TabbyInputError

# clients/tabby-agent/src/AgentConfig.ts defaultAgentConfig (later src/config/default.ts), keyed by
# the agent's own config paths (as in ~/.tabby-client/agent/config.toml): every key the request side
# reads in some release, with its type. Which keys a state has, and their defaults there:
# replay.editors.tabby.request_rules.agent_defaults(state).
AGENT_DEFAULTS: dict[str, Any] = {
    "completion.prompt.experimentalStripAutoClosingCharacters": False,
    "completion.prompt.maxPrefixLines": 20,
    "completion.prompt.maxSuffixLines": 20,
    "completion.prompt.clipboard.minChars": 3,
    "completion.prompt.clipboard.maxChars": 2000,
    "completion.prompt.fillDeclarations.enabled": True,
    "completion.prompt.fillDeclarations.maxSnippets": 5,
    "completion.prompt.fillDeclarations.maxCharsPerSnippet": 500,
    "completion.prompt.collectSnippetsFromRecentChangedFiles.enabled": True,
    "completion.prompt.collectSnippetsFromRecentChangedFiles.maxSnippets": 3,
    "completion.prompt.collectSnippetsFromRecentOpenedFiles.enabled": True,
    "completion.prompt.collectSnippetsFromRecentOpenedFiles.maxOpenedFiles": 5,
    "completion.prompt.collectSnippetsFromRecentOpenedFiles.maxCharsPerOpenedFiles": 500,
    "completion.solution.temperature": 0.8,
    # a manual trigger fetches choices while fewer than maxItems and tries < maxTries (6480cedcf)
    "completion.solution.maxItems": 3,
    "completion.solution.maxTries": 6,
}

# Tabby server settings (crates/tabby-common/src/config.rs CompletionConfig, config.toml
# [completion]): max_input_length 1024 + 512, max_decoding_tokens 64 (hard-coded 64 before v0.15).
SERVER_DEFAULTS: dict[str, Any] = {
    "completion.max_input_length": 1024 + 512,
    "completion.max_decoding_tokens": 64,
}

# tabby-agent's completion stage, keyed like AGENT_DEFAULTS: every `postprocess` option some agent
# state has (AgentConfig.ts defaultAgentConfig, later config/default.ts), with its type. Which of
# them a state knows, and their defaults there, is replay.editors.tabby.rules.state_defaults:
# the two experimentalSyntax switches (tree-sitter rules) and the keep-block-scope switch exist
# until edb23ff99 (on by default in 1.3.1, limitScope's in 1.3.2), minCompletionChars from 7227d0b17.
COMPLETION_DEFAULTS: dict[str, Any] = {
    "postprocess.limitScope.experimentalSyntax": False,
    "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine": False,
    "postprocess.calculateReplaceRange.experimentalSyntax": False,
    "postprocess.minCompletionChars": 4,
}


def flatten(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Dotted-key (or nested, as TOML tables give them) settings as {dotted key: value}."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), sub)
        else:
            flat[prefix] = value

    walk("", options or {})
    return flat


# The request timeouts (ms) that abort the completion request, and so change what is shown when
# measured timing is given: completion.timeout (4 s) until 84f27ce67, server.requestTimeout
# (30 s, then 2 min from 84f27ce67). Which a state has: replay.editors.tabby.rules.timeout_defaults.
TIMEOUT_DEFAULTS: dict[str, Any] = {
    "completion.timeout": 4000,
    "server.requestTimeout": 120000,
}

# Not a Tabby config path: a session's word on the editor the agent runs in, how long it takes to
# answer each of the agent's questions for extra context, in ms (replay.editors.tabby.extra_context).
SESSION_DEFAULTS: dict[str, Any] = {f"contextProviderMs.{name}": 0
                                    for name in ("editorOptions", "workspaceFolders", "git", "declarations")}

# Every client key whose value the replay models (request side, completion stage, timeouts); the
# agent's other keys (config_keys: endpoint, token, debounce, logs, proxy, chat, ...) change neither
# the body nor the shown text and are accepted unread.
CLIENT_KEYS = frozenset({**AGENT_DEFAULTS, **COMPLETION_DEFAULTS, **TIMEOUT_DEFAULTS})
_KNOWN = {**AGENT_DEFAULTS, **SERVER_DEFAULTS, **COMPLETION_DEFAULTS, **TIMEOUT_DEFAULTS, **SESSION_DEFAULTS}


def _near(key: str) -> str | None:
    near = difflib.get_close_matches(key, [*_KNOWN, *key_names()], n=1)
    return near[0] if near else None


def _keep_credentials_secret(flat: Mapping[str, Any]) -> None:
    """Register the values of the agent's credentials (server.token, proxy.authorization, an
    Authorization header under server.requestHeaders; a mistyped key read as the credential it
    is closest to) as secrets, so that no writer (a rejects file keeps the input line) stores them."""
    for key, value in flat.items():
        near = key if key in _KNOWN or spans(key) else _near(key)
        if isinstance(value, str) and near and secrets.is_secret_key(near):
            secrets.register(value)


def unknown_key(key: str) -> str:
    """Why `key` is refused: neither the Tabby server nor any tabby-agent state has it (a typo).
    Only the key is named, never a value (a token may sit next to a mistyped key)."""
    near = _near(key)
    hint = f"; did you mean {near!r}?" if near else ""
    return f"unknown Tabby option {key!r}: no tabby-agent release nor the server's config has it{hint}"


def options(options: Mapping[str, Any] | None, defaults: Mapping[str, Any],
            ignored: Collection[str] = ()) -> dict[str, Any]:
    """Merge dotted-key (or nested) overrides into defaults. A key neither the server nor any
    agent state has is an error; so is a value of the wrong type for a modelled key, except for
    the `ignored` keys (client keys the state never reads). The agent's other keys are accepted."""
    flat = flatten(options)
    _keep_credentials_secret(flat)
    for key, value in flat.items():
        if key not in _KNOWN:
            if not spans(key):
                raise TabbyInputError(unknown_key(key))
        elif key not in ignored and type(value) is not type(_KNOWN[key]):
            raise TabbyInputError(f"Tabby option {key!r} must be {type(_KNOWN[key]).__name__}, got {value!r}")
    return {key: flat.get(key, default) for key, default in defaults.items()}
