"""tabby-agent's config file as each state reads it: the keys it reads, and the keys of other
releases it ignores.

Every state, 1.3.0 (b75f12e5f) to the freeze (e61d780ca), loads ~/.tabby-client/agent/config.toml
the same way (TabbyML/tabby clients/tabby-agent/src/configFile.ts, from 5dfe7a125
src/config/configFile.ts): `toml.parse`, then validateConfig deletes only the keys of its
typeCheckSchema whose value has another type, and the rest is deep-merged over the defaults
(TabbyAgent.ts applyConfig `deepmerge(defaultAgentConfig, userConfig, clientConfig)`, from
5dfe7a125 config/index.ts mergeConfig). Nothing checks for keys the state does not know: a key
left over from another release (the tree-sitter switches edb23ff99 removed,
`completion.prompt.experimentalStripAutoClosingCharacters` after it, a newer release's
`postprocess.minCompletionChars` in an older agent) sits in the merged object and no code reads
it. So the replay ignores such a key and names it; a key no modelled release reads is refused
(options.options), being a typo or a setting the replay does not model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.editors.tabby.options import CLIENT_KEYS, flatten
from replay.editors.tabby.releases import AgentState
from replay.editors.tabby.request_rules import agent_defaults
from replay.editors.tabby.rules import state_defaults


def read_keys(state: AgentState) -> frozenset[str]:
    """The client keys the agent at `state` reads: its request side's and its completion stage's."""
    return frozenset({**agent_defaults(state), **state_defaults(state)})


def ignored_options(options: Mapping[str, Any] | None, state: AgentState) -> tuple[str, ...]:
    """The dotted client keys of `options` that another release reads and `state` does not (sorted)."""
    read = read_keys(state)
    return tuple(sorted(key for key in flatten(options) if key in CLIENT_KEYS and key not in read))
