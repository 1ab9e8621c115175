"""tabby-agent's code by release and by day: which client code a version, a date or a capture's
user agent names, and whether a rule of the agent's history is in it.

Every published tabby-agent is a point of TabbyML/tabby's main line (clients/tabby-agent): the
1.3.x, 1.4.2, 1.5.0 and 1.6.0 version bumps are commits of main, and the release branches of
1.7.0 (`release-tabby-agent-1.7`) and 1.8.0 (`release-tabby-agent-1.8`) hold nothing of the
client but main up to their merge base and the version bump (`git merge-base`, `git diff`). So
one order serves all: a rule introduced by a commit of main is in a release, or in main on a
day, when that commit's committer time (UTC) is not later than the state's. From 2024-05-21 the
VS Code extension bundles the agent of its own tree (`workspace:*`), so the agent users ran in
mid-2024 and after is main on some day, named `1.7.0-dev` .. `1.9.0-dev` in its user agent; the
client code froze at e61d780c (2025-05-14), the last commit touching clients/tabby-agent.

Times are committer times of main in UTC (`TZ=UTC git log --date=format-local:...`): a date
names main at the end of that UTC day. Releases and rules are the rule book's records
(replay/editors/rulebook.py); the agent's rules count by time (`agent_rule`), and AgentState is
the code state a version names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from replay.editors.rulebook import Release, Rule, RuleBook, UnknownRelease

REPO = "TabbyML/tabby"


def agent_rule(name: str, commit: str, at: str, source: str, summary: str) -> Rule:
    """A change of the agent's behaviour: the commit of main that made it, its committer time
    (UTC, "YYYY-MM-DDTHH:MM:SSZ": rules count by time, see the module docstring) and the file(s)
    of TabbyML/tabby that hold it."""
    return Rule(name, commit, at[:10], f"{REPO} {source}", summary, at=at)


@dataclass(frozen=True)
class AgentState:
    """One code state of tabby-agent: a published release, or main at the end of a day.

    `commit` is the commit of main whose clients/tabby-agent the state runs (for 1.7.0 and
    1.8.0, the merge base of their release branch); `at` its committer time (UTC)."""

    label: str
    commit: str
    at: str
    why: str = ""  # how the state was chosen (a version given, a capture's user agent and day, ...)

    def has(self, rule: Rule) -> bool:
        return rule.at <= self.at

    @property
    def day(self) -> str:
        return self.at[:10]


def _releases(*rows: tuple[str, str, str]) -> tuple[Release, ...]:
    """(version, commit, committer time) rows -> releases in that order."""
    return tuple(Release(version, commit, at[:10], n, at) for n, (version, commit, at) in enumerate(rows))


# The published releases, oldest first (package.json version bumps of clients/tabby-agent).
# 1.4.0 and 1.4.1 were bumps inside the pull request squashed into e0763168c (1.4.2): the same code.
RELEASES: tuple[Release, ...] = _releases(
    ("1.3.0", "b75f12e5ff388b13d0d22fe717a10790078eae8f", "2024-01-17T15:38:58Z"),
    ("1.3.1", "eb7ce024e856cf3d57d5b6dbebc273741e0a8f1f", "2024-01-30T08:03:12Z"),
    ("1.3.2", "a818905c7ead44361c86857304554247fadcf065", "2024-02-01T05:39:31Z"),
    ("1.3.3", "77b52aceacfdc394eedd84fa4fd3740ebd0b38c5", "2024-02-01T07:10:26Z"),
    ("1.4.0", "e0763168cf736a9cc42d6d7c3b3b45bf1daf7958", "2024-03-01T15:40:18Z"),
    ("1.4.1", "e0763168cf736a9cc42d6d7c3b3b45bf1daf7958", "2024-03-01T15:40:18Z"),
    ("1.4.2", "e0763168cf736a9cc42d6d7c3b3b45bf1daf7958", "2024-03-01T15:40:18Z"),
    ("1.5.0", "3c12cc135c40a7187e14f0a2968283d7b261417e", "2024-04-17T08:03:53Z"),
    ("1.6.0", "e71cef8a937295aee389d32e086eeb021802ed7a", "2024-05-16T02:53:07Z"),
    # release-tabby-agent-1.7: merge base e5fc90af5, then b243bcc4f (the version bump only)
    ("1.7.0", "e5fc90af54e0886678d1f9b16350a3393522bd2a", "2024-06-26T07:33:32Z"),
    # release-tabby-agent-1.8: merge base 5dfe7a125, then 54031083 (the version bump only)
    ("1.8.0", "5dfe7a12555cc95c1eae8fbc6d1a942230b8ea3e", "2024-10-14T09:45:44Z"),
)

# main's own version while it was in development: the first commit that carried it.
DEV_ERAS: tuple[Release, ...] = _releases(
    ("1.4.0-dev", "d6d4903e0fb39b6e7fb0b38a355b37ab3a7dd942", "2024-02-21T04:33:26Z"),
    ("1.5.0-dev", "0b9e0d2441d46d17523519667edff3787286ff88", "2024-03-25T02:35:27Z"),
    ("1.6.0-dev", "b437715aff57daed130a72b0bb392351dce84287", "2024-04-26T09:29:03Z"),
    ("1.7.0-dev", "ee8b811d2fd43c03138ec88260072f7722d6d813", "2024-05-20T14:49:39Z"),
    ("1.8.0-dev", "ee1c6c65dc205756a1ee9d481cd502d2d5dcb25f", "2024-06-28T06:21:02Z"),
    ("1.9.0-dev", "7b403f0b50a7597cadbf819b9ffa2a2243fde9f4", "2024-10-17T03:47:28Z"),
)

# The last commit touching clients/tabby-agent: the client code froze there.
FREEZE = _releases(("1.9.0-dev", "e61d780cac488576fdf5cb4a147397098d10525f", "2025-05-14T12:00:52Z"))[0]
OLDEST = RELEASES[0]
# The published releases; the rules (request_rules.py, rules.py) make the books of each half of the
# client with them (history.py).
BOOK = RuleBook("tabby-agent", RELEASES, ())
NEWEST_LABEL = "1.9.0-dev"

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:-dev)?")


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.removesuffix("-dev").split("."))


def _release(version: str) -> Release | None:
    return BOOK.named(version)


def _era_end(era: Release) -> str:
    """The last moment main carried `era`'s -dev version (the next era's start, or the freeze)."""
    later = [e.at for e in DEV_ERAS if e.at > era.at]
    return min(later) if later else FREEZE.at


def _check_day(day: str) -> None:
    try:
        date.fromisoformat(day)
    except ValueError as exc:
        raise UnknownRelease(f"{day!r} is not a date (YYYY-MM-DD)") from exc


def before_oldest(day: str) -> bool:
    """Whether main at the end of UTC day `day` predates the oldest modelled release."""
    return f"{day}T23:59:59Z" < OLDEST.at


def on_day(day: str, why: str = "") -> AgentState:
    """main at the end of UTC day `day` (clamped to the freeze); refused before 1.3.0."""
    _check_day(day)
    at = f"{day}T23:59:59Z"
    if before_oldest(day):
        raise UnknownRelease(f"tabby-agent on {day} predates the oldest modelled release "
                              f"{OLDEST.tag} ({OLDEST.at[:10]})")
    at = min(at, FREEZE.at)
    return AgentState(label=f"{_label_at(at)}@{at[:10]}", commit="", at=at, why=why or f"main on {day}")


def _label_at(at: str) -> str:
    """The version main's package.json carried at `at`."""
    label = OLDEST.tag
    for mark in sorted((*RELEASES, *DEV_ERAS), key=lambda r: r.at):
        if mark.at <= at:
            label = mark.tag
    return label


def agent_state(spec: str | None, why: str = "") -> AgentState:
    """The agent a `--editor-version` names: a release (`1.8.0`), a development version
    (`1.9.0-dev`: its last commit on main), `1.9.0-dev@2024-12-31` or a date (main that day).
    None: the newest (main at the freeze)."""
    text = (spec or NEWEST_LABEL).strip().removeprefix("tabby-agent/").removeprefix("v")
    version, _, day = text.partition("@")
    if _DAY.fullmatch(version) and not day:
        return on_day(version, why)
    if not _VERSION.fullmatch(version):
        raise UnknownRelease(f"unknown tabby-agent version {spec!r} (a release such as 1.8.0, "
                              f"a development version such as 1.9.0-dev, or a date YYYY-MM-DD)")
    release = _release(version)
    if release is not None and not day:
        return AgentState(label=version, commit=release.commit, at=release.at, why=why or f"tabby-agent {version}")
    era = next((e for e in DEV_ERAS if e.tag == version), None)
    if era is None:
        if _numbers(version) < _numbers(OLDEST.tag):
            raise UnknownRelease(f"tabby-agent {version} predates the oldest modelled release {OLDEST.tag}")
        raise UnknownRelease(f"tabby-agent {version} was never published (releases: "
                              f"{', '.join(r.tag for r in RELEASES)}; or a -dev version of main)")
    end = _era_end(era)
    if not day:
        return AgentState(label=version, commit="" if end != FREEZE.at else FREEZE.commit, at=end,
                          why=why or f"tabby-agent {version}: main's last commit as {version}")
    _check_day(day)
    at = max(min(f"{day}T23:59:59Z", end), era.at)
    return AgentState(label=f"{version}@{at[:10]}", commit="", at=at, why=why or f"tabby-agent {version} on {day}")
