"""The Tabby profile: what tabby-agent sends, the prompt the Tabby server builds from it, and
what tabby-agent shows of the model's answer, each by release.

- releases.py: tabby-agent's code states (a release, main on a day) and the order rules are
  checked in; version.py: which agent and which server a version, a date or a capture names;
- client.py, request_snippets.py, request_rules.py: the agent's request body and its changes;
- server.py, server_rules.py, server_releases.py, registry.py, languages.py: the server's
  prompt, clipping and stop words by release, its release tags, the registry's templates by
  day, the language table;
- profile.py: the whole path for one cursor, and the logged prompt rebuilt from a capture;
- completion.py, rules.py: the agent's completion stage by state and its changes; context.py
  (the completion context, single/multi-line mode), filters.py, indentation.py, ranges.py (the
  post-processing filters and the replace range);
- options.py: the settings of both halves, keyed by Tabby's own config paths; config_keys.py:
  every key of the agent's config file and the states that have it; agent_config.py: which keys
  a state reads and which of another release's it ignores; errors.py;
- history.py: every rule change of both halves (`fimreplay editors tabby --history`).
"""

from replay.editors.tabby.profile import logged_prompt, render

__all__ = ["logged_prompt", "render"]
