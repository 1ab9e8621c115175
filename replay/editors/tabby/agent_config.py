"""tabby-agent's config file as each state reads it: the keys it reads, and the keys of other
releases it ignores.

Every state, 1.3.0 (b75f12e5f) to the freeze (e61d780ca), loads ~/.tabby-client/agent/config.toml
the same way (TabbyML/tabby clients/tabby-agent/src/configFile.ts, from f4d9c75f0
src/config/configFile.ts): `toml.parse`, then validateConfig deletes only the keys of its
typeCheckSchema whose value has another type, and the rest is deep-merged over the defaults
(TabbyAgent.ts applyConfig `deepmerge(defaultAgentConfig, userConfig, clientConfig)`, from
f4d9c75f0 config/index.ts mergeConfig). Nothing checks for keys the state does not know: a key
left over from another release (the tree-sitter switches edb23ff99 removed,
`completion.prompt.experimentalStripAutoClosingCharacters` after it, a newer release's
`postprocess.minCompletionChars` in an older agent) sits in the merged object and no code reads
it. So the replay does the same, key by key (the table of every key and the states that have it:
config_keys):

- a key the state has is taken: read where it changes the body or the shown text (options:
  CLIENT_KEYS), accepted unread otherwise (server.endpoint, server.token, server.requestHeaders,
  completion.debounce.*, logs.level, anonymousUsageTracking, tls, proxy, chat, the changed-files
  indexing, which works before the snippets the input gives);
- a key only another state has is ignored and named (`ignored_options`), as is a modelled key
  below an `any` the state keeps unread (`postprocess.limitScope.experimentalSyntax` from
  edb23ff99);
- a key no state ever had is refused (options.options: a typo).

The unread keys the state has are not named: they hold the user's endpoint, token and headers,
and change nothing the replay shows, so a per-line list of them would only repeat the config.
"""

from __future__ import annotations

import functools

from collections.abc import Mapping
from typing import Any

from replay.editors.tabby.config_keys import spans, state_has
from replay.editors.tabby.options import CLIENT_KEYS, flatten
from replay.editors.tabby.releases import AgentState
from replay.editors.tabby.request_rules import agent_defaults
from replay.editors.tabby.rules import state_defaults, timeout_defaults


@functools.cache
def read_keys(state: AgentState) -> frozenset[str]:
    """The modelled client keys the agent at `state` reads: request side, completion stage, timeouts."""
    return frozenset({**agent_defaults(state), **state_defaults(state), **timeout_defaults(state)})


def ignored_options(options: Mapping[str, Any] | None, state: AgentState) -> tuple[str, ...]:
    """The dotted keys of `options` that another agent state has and `state` leaves unread (sorted)."""
    read = read_keys(state)

    def ignored(key: str) -> bool:
        if key in CLIENT_KEYS:
            return key not in read
        return bool(spans(key)) and not state_has(key, state)

    return tuple(sorted(key for key in flatten(options) if ignored(key)))
