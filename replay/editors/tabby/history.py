"""`fimreplay editors tabby --history`: every modelled rule change of both halves of Tabby, by
date, with the first release that had it and the last one without it; and `fimreplay editors
tabby@VERSION`: the rules of both halves in force at a version.

The agent's rules are counted by commit time (replay.editors.tabby.releases): a rule's first
release is the first published tabby-agent cut after its commit; one made after 1.8.0 reached
users only through main's in-tree agent (the VS Code extension's bundled 1.9.0-dev). The
server's rules carry the first Tabby release tag that contains their commit (server_rules.py).
"""

from __future__ import annotations

from dataclasses import replace

from replay.editors.rulebook import HistoryRow, InForce, Rule, RuleBook
from replay.editors.tabby.releases import RELEASES
from replay.editors.tabby.request_rules import REQUEST_RULES
from replay.editors.tabby.rules import COMPLETION_RULES
from replay.editors.tabby.server_releases import find, semver
from replay.editors.tabby.server_rules import BOOK as SERVER_BOOK
from replay.editors.tabby.version import tabby_version

REQUEST_BOOK = RuleBook("tabby-agent", RELEASES, REQUEST_RULES, part="agent request")
COMPLETION_BOOK = RuleBook("tabby-agent", RELEASES, COMPLETION_RULES, part="agent completion stage")


def _agent(row: HistoryRow) -> HistoryRow:
    """An agent row names its releases as tabby-agent's (the server's are Tabby's own tags), and
    its commit by 10 digits."""
    return replace(row, commit=row.commit[:10], first_release=f"tabby-agent {row.first_release}",
                   last_without=f"tabby-agent {row.last_without}" if row.last_without else "")


def _main_on(rule: Rule) -> str:
    """A rule no published agent has: main's 1.9.0-dev from the day of its commit."""
    return f"1.9.0-dev@{rule.day}"


def in_force(spec: str | None) -> tuple[InForce, InForce]:
    """The rules of both halves at a Tabby version (version.py says how a spec names each): the
    agent's request and completion-stage rules its code state runs, and the server's rules its
    release has (a release candidate without the ones it lacked)."""
    chosen = tabby_version(spec)
    agent, server = chosen.agent, chosen.server
    agent_rules = tuple(sorted((rule for rule in (*REQUEST_RULES, *COMPLETION_RULES) if agent.has(rule)),
                               key=lambda rule: rule.when))
    server_rules = tuple(rule for rule in SERVER_BOOK.rules
                         if rule.since is not None and semver(rule.since) <= server.release and server.has(rule.name))
    tag = find(server.label)
    return (InForce("tabby-agent", agent.label, agent.commit, agent.day, agent.why, agent_rules),
            InForce("tabby server", server.label, tag.commit if tag else "", chosen.day or (tag.day if tag else ""),
                    chosen.why, server_rules))


def history() -> list[HistoryRow]:
    """One row per modelled rule change, oldest first: the client's request and completion
    stage, then interleaved by date with the server's prompt rules."""
    rows = [_agent(row) for book in (REQUEST_BOOK, COMPLETION_BOOK)
            for row in book.history(lambda rule: rule.summary, first=_main_on)]
    rows += SERVER_BOOK.history()
    return sorted(rows, key=lambda row: row.date)
