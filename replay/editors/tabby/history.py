"""`fimreplay editors tabby --history`: every modelled rule change of both halves of Tabby, by
date, with the first release that had it and the last one without it.

The agent's rules are checked by commit time (replay.editors.tabby.releases): a rule's first
release is the first published tabby-agent cut after its commit; one made after 1.8.0 reached
users only through main's in-tree agent (the VS Code extension's bundled 1.9.0-dev). The
server's rules carry the first Tabby release tag that contains their commit.
"""

from __future__ import annotations

from replay.editors.tabby.request_rules import REQUEST_RULES
from replay.editors.tabby.rules import COMPLETION_RULES
from replay.editors.tabby.releases import RELEASES, AgentRule
from replay.editors.tabby import server_releases
from replay.editors.tabby.server_rules import SERVER_RULES, ServerRule
from replay.editors.versions import Release


def _agent_row(rule: AgentRule, half: str) -> dict[str, str]:
    after = [r for r in RELEASES if r.at >= rule.at]
    before = [r for r in RELEASES if r.at < rule.at]
    first = after[0].version if after else f"1.9.0-dev@{rule.at[:10]}"
    return {"date": rule.at[:10], "commit": rule.commit[:10], "change": f"agent {half}: {rule.summary}",
            "first_release": f"tabby-agent {first}", "last_without": f"tabby-agent {before[-1].version}" if before else "",
            "last_release": "", "source": f"TabbyML/tabby {rule.source}"}


def _server_row(rule: ServerRule, finals: list[server_releases.ReleaseTag]) -> dict[str, str]:
    first = Release.parse(rule.first_release)
    before = [t.tag for t in finals if t.release < first]
    return {"date": rule.day, "commit": rule.commit, "change": f"server: {rule.name}: {rule.summary}",
            "first_release": rule.first_release, "last_without": before[-1] if before else "",
            "last_release": "", "source": f"TabbyML/tabby {rule.source}"}


def history() -> list[dict[str, str]]:
    """One row per modelled rule change, oldest first: the client's request and completion
    stage, then interleaved by date with the server's prompt rules."""
    rows = [_agent_row(rule, "request") for rule in REQUEST_RULES]
    rows += [_agent_row(rule, "completion stage") for rule in COMPLETION_RULES]
    finals = sorted(server_releases.finals(), key=lambda t: t.release)
    rows += [_server_row(rule, finals) for rule in SERVER_RULES]
    return sorted(rows, key=lambda row: row["date"])
