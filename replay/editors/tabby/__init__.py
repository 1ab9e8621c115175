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
- history.py: every rule change of both halves (`fimreplay editors tabby --history`);
- timing.py, debouncer.py, extra_context.py: the agent in time (its debounce, its wait for the
  editor's extra context) for `fimreplay session`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from replay.editors.interface import PackageProfile
from replay.editors.live import Doc, Host
from replay.editors.timed_client import Complete, Debouncer, Render, TimedClient
from replay.editors.timing import TimingRules
from replay.records import CaptureRecord, EditorInput


_AGENT = re.compile(r"tabby-agent/(\d+)\.(\d+)\.(\d+)")  # the agent's User-Agent


class TabbyProfile(PackageProfile):
    """tabby-agent and the Tabby server, each by release (the package's modules above, each
    imported when a method first needs it: naming the editor loads none of its tables)."""

    name = "tabby"
    display = "Tabby"
    releases = "tabby-agent 1.3.0 - 1.9.0-dev, Tabby server 0.0.1 - 0.32.0"
    capture_source = "Tabby server event logs (`fimreplay import`); `fimreplay proxy`"
    stop_source = "TabbyML/tabby crates/tabby-inference/src/decoding.rs"
    logs_prompts = True
    stage_needs_model = False
    sends_body = True
    rule_book = "history"
    has_timing = True

    def rebuild_logged_prompt(self, record: CaptureRecord) -> str | None:
        """The server's logged prompt rebuilt from the capture's segments (None without them)."""
        from replay.editors.tabby.profile import logged_prompt

        if record.segments is None:
            return None
        day = record.day()
        return logged_prompt(record.segments, record.language, model=record.model, version=record.editor_version,
                             reference=record.logged_prompt, date=day.isoformat() if day else None)

    def capture_version(self, record: CaptureRecord) -> str | None:
        """A capture names both halves: the agent of its user agent at its day, the server of its day."""
        from replay.editors.tabby.version import capture_spec

        if record.editor_version:
            return record.editor_version
        return capture_spec(record.user_agent, record.day())


    def debouncer(self, version: str | None, options: Mapping[str, Any] | None = None) -> Debouncer | None:
        """tabby-agent's adaptive debounce, which learns the user's typing intervals and the
        server's latency (debouncer.py)."""
        from replay.editors.tabby.debouncer import AdaptiveDebouncer
        from replay.editors.tabby.version import tabby_version

        return AdaptiveDebouncer(tabby_version(version).agent, options)


    def timed_client(self, host: Host, rules: TimingRules, body: Render, complete: Complete,
                     cursor_input: Callable[[Doc], EditorInput], debouncer: Debouncer | None, model: str,
                     version: str | None, options: Mapping[str, Any]) -> TimedClient:
        """The client of the timing rules, waiting for the editor's extra context as the agent
        state does (extra_context.py; the session's `contextProviderMs` says how long the editor takes),
        a relative filepath in the workspace folder the editor names to an agent that asks for it."""
        from replay.editors.tabby.extra_context import ContextWait, session_input
        from replay.editors.tabby.version import tabby_version

        state = tabby_version(version).agent
        return TimedClient(host, rules, body, complete, lambda doc: session_input(state, cursor_input(doc)), debouncer,
                           ContextWait.of(state, options))

    def may_leave_line_rest_out(self, record: CaptureRecord) -> bool:
        """tabby-agent leaves the rest of the cursor's line out of its suffix when it holds only
        closing characters (TabbyML/tabby clients/tabby-agent): experimentalStripAutoClosingCharacters,
        on by default from cb50aeac5 (1.3.0) until 77b52acea (1.3.3); from eae43ba76 (2024-12-30,
        after 1.8.0: 1.9.0-dev) codeCompletion/contexts.ts buildSegments, `;` and `,` among them,
        and from 309edd172 (2025-04-21) any rest without a word character. The log does not say
        whether it did: an agent its User-Agent names (`tabby-agent/X.Y.Z`) 1.3.0-1.3.2 or 1.9.0
        on, or none named, may have. A user who switched the experimental option on in 1.3.3-1.5
        is not told."""
        found = _AGENT.search(record.user_agent or "")
        if found is None:
            return True
        version = tuple(int(n) for n in found.groups())
        return (1, 3, 0) <= version < (1, 3, 3) or version >= (1, 9, 0)

PROFILE = TabbyProfile()

__all__ = ["PROFILE", "TabbyProfile"]
