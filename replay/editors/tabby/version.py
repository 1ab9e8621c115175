"""Which Tabby a prompt or a completion is replayed under: the client (tabby-agent) and the
server are two programs with their own releases, so a Tabby version names both halves.

`--editor-version` (and `tabby@V`) takes:
- an agent release or development version: `1.8.0`, `1.9.0-dev` (main's last commit as that
  version), `1.9.0-dev@2024-12-31`; the server is then the newest Tabby release out on the
  agent's day (what a user who updated both ran);
- a Tabby server release, `0.25.0` (every server release is 0.x, every modelled agent 1.x);
  the agent is then main's on that release's day;
- a date, `2024-12-31`: both halves as they were at the end of that UTC day;
- `agent=…,server=…`, each part any of the above for its half (either may be left out).
A capture names its own: the agent from the event's user agent (`tabby-agent/1.7.0 vscode/…`)
and its day, the server from its day (Tabby's log names no server version).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date

from replay.editors.tabby.errors import TabbyInputError
from replay.editors.tabby.releases import OLDEST, AgentState, agent_state, before_oldest, on_day
from replay.editors.tabby import server_releases
from replay.editors.tabby.server import TabbyRules

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_AGENT_UA = re.compile(r"tabby-agent/(\S+)")


@dataclass(frozen=True)
class TabbyVersion:
    """Both halves of one Tabby, and how each was chosen. `day` is the day the server ran (a
    date given, or its release's day; None: today's newest): from 0.5.0 the server reads the
    model's template from the registry as it is the day it starts (registry.py)."""

    agent: AgentState
    server: TabbyRules
    why: str
    day: str | None = None

    @property
    def label(self) -> str:
        return f"agent={self.agent.label},server={self.server.label}"


def _is_agent(text: str) -> bool:
    return not _DAY.match(text) and not text.startswith("0.")


def _server(spec: str) -> tuple[TabbyRules, str | None]:
    """The server rules a release or a date names, and the day it ran."""
    if _DAY.match(spec):
        return TabbyRules.for_date(spec), spec
    rules = TabbyRules.for_version(spec)
    tag = server_releases.find(rules.label)
    return rules, tag.day if tag is not None else None


def _agent_for_server(day: str | None, label: str) -> AgentState:
    """main's agent on the server's day (the oldest modelled agent before 1.3.0)."""
    if day is None or before_oldest(day):
        return agent_state(OLDEST.tag, why=f"tabby-agent {OLDEST.tag}, the oldest modelled")
    return on_day(day, why=f"main's tabby-agent on {day}, the day of Tabby {label}")


def _parts(text: str, spec: str | None) -> dict[str, str]:
    parts: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or key.strip() not in ("agent", "server") or not value.strip():
            raise TabbyInputError(f"bad Tabby version {spec!r}: expected agent=VERSION,server=VERSION")
        parts[key.strip()] = value.strip()
    return parts


@functools.lru_cache(maxsize=512)
def tabby_version(spec: str | None) -> TabbyVersion:
    """The two halves a `--editor-version` names (None: the newest of both). Kept per spec: the
    render and the completion stage of every line of a run ask again for the same few specs
    (a capture's own names its day), and the release tables never change in a process."""
    text = (spec or "").strip().removeprefix("tabby@").removeprefix("v")
    if not text:
        return TabbyVersion(agent_state(None), TabbyRules.for_version(None), "the newest agent and server")
    if "=" in text:
        parts = _parts(text, spec)
    elif _DAY.match(text):
        parts = {"agent": text, "server": text}
    elif _is_agent(text):
        parts = {"agent": text}
    else:
        parts = {"server": text}
    agent = agent_state(parts["agent"]) if "agent" in parts else None
    if "server" in parts:
        server, day = _server(parts["server"])
        why = f"server {server.label}" + (f" (on {day})" if day else "")
    else:
        assert agent is not None
        server, day = TabbyRules.for_date(agent.day), agent.day
        why = f"server {server.label}, the newest on {agent.day}"
    if agent is None:
        agent = _agent_for_server(day, server.label)
    return TabbyVersion(agent, server, f"{agent.why}; {why}", day)


def capture_spec(user_agent: str | None, captured: date | None) -> str | None:
    """The version spec of a Tabby capture: the agent its user agent names (a -dev version at the
    capture's day), else main's agent of its day; the server of its day. A capture older than the
    oldest modelled agent gets that agent. None when the capture says neither (the newest)."""
    day = captured.isoformat() if captured is not None else None
    match = _AGENT_UA.search(user_agent or "")
    agent = match.group(1) if match else day
    if agent and agent.endswith("-dev") and day:
        agent = f"{agent}@{day}"
    if agent == day and day is not None and before_oldest(day):
        agent = OLDEST.tag
    parts = [f"agent={agent}"] if agent else []
    if day:
        parts.append(f"server={day}")
    return ",".join(parts) or None
