"""The rule book every editor package keeps in its releases.py: the releases a user can name, the
dated changes of the editor's rules as its source has them, and which rules are in force at a
release or on a day.

- A `Release` is a point of the editor's history a replay can name: a tag, a published version,
  or a commit for an editor without tags (llama.vim); its commit, its day (UTC) and its place in
  the order of the book's releases.
- A `Rule` is one change of behaviour: the commit that made it and its day, the file(s) it is in
  (repository + path), what it does, and the settings or fields it sets. A book counts its rules
  either by release (`since` the first release that has it, `until` the first without it again,
  for a rule later undone: the editor's tags contain the commit or not) or by time (`at`, the
  commit's time: tabby-agent's users ran main on some day, so a rule is in when its commit is
  not later than the state's).
- A `RuleBook` holds both tables: the release a version or a day names, the rules in force
  there, and the rows `fimreplay editors NAME --history` prints.

What a rule does to a prompt or a shown text stays in the editor's own modules, which ask
`release.has(RULE)` (or their state built from the book's rules); the book says only which rules
a release runs, and where each was read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from replay.editors.inputs import BadInputLine


class UnknownRelease(BadInputLine):
    """A version or day that names no release a rule book models: not a version at all, never
    published, or before the first release modelled. A line that names one is rejected on its
    own (it is a bad input line); a command given one stops with a usage error."""


@dataclass(frozen=True)
class Release:
    """One release of an editor: `tag` as the editor's repository spells it, the tagged commit,
    its day (UTC, YYYY-MM-DD), its place in the book's order (0 = the oldest) and, for a book
    that counts rules by time, the commit's time (`at`, "YYYY-MM-DDTHH:MM:SSZ")."""

    tag: str
    commit: str
    day: str
    index: int
    at: str = ""

    @property
    def when(self) -> str:
        return self.at or self.day

    def has(self, rule: Rule) -> bool:
        """Whether `rule` is in force in this release: from its first release (up to the first
        without it), or, for a rule counted by time, when its commit is not later than this one."""
        if rule.since is None:
            return rule.when <= self.when
        return rule.since.index <= self.index and (rule.until is None or self.index < rule.until.index)


@dataclass(frozen=True)
class Rule:
    """One change of an editor's rules, as its source has it: the `commit` that made it, the
    commit's `day` (UTC), `source` (repository and path(s) the rule was read from), `summary`
    (what it does); `since`/`until` the first release with it and the first without it again
    (None: counted by time, or never undone); `at` the commit's time where one day's order
    matters; `sets` the settings or fields of the editor's state it changes."""

    name: str
    commit: str
    day: str
    source: str
    summary: str
    since: Release | None = None
    until: Release | None = None
    at: str = ""
    sets: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def when(self) -> str:
        return self.at or self.day

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "commit": self.commit, "day": self.day, "at": self.at, "source": self.source,
                "summary": self.summary, "since": self.since.tag if self.since else "",
                "until": self.until.tag if self.until else "", "sets": dict(self.sets)}


@dataclass(frozen=True)
class InForce:
    """The rules one half of an editor runs at a version (`fimreplay editors NAME@VERSION`): the
    release or code state the version names (its commit, where one is known, and day), how it was
    chosen, and its rules, oldest first."""

    part: str
    release: str
    commit: str
    day: str
    why: str
    rules: tuple[Rule, ...]

    def as_json(self) -> dict[str, Any]:
        return {"part": self.part, "release": self.release, "commit": self.commit, "day": self.day, "why": self.why,
                "rules": [rule.as_json() for rule in self.rules]}


@dataclass(frozen=True)
class HistoryRow:
    """One row of `fimreplay editors NAME --history`: when a rule changed, the commit, the first
    release that had it, the last one that still had it (a rule undone), the last one without
    it, what changed and where it was read."""

    date: str
    commit: str
    first_release: str
    last_release: str
    last_without: str
    change: str
    source: str = ""

    def as_json(self) -> dict[str, str]:
        return {"date": self.date, "commit": self.commit, "first_release": self.first_release,
                "last_release": self.last_release, "last_without": self.last_without, "change": self.change,
                "source": self.source}


def releases_of(table: Iterable[tuple[str, str, str]]) -> tuple[Release, ...]:
    """(tag, commit, day) rows, oldest first -> the book's releases in that order."""
    return tuple(Release(tag, commit, day, n) for n, (tag, commit, day) in enumerate(table))


@dataclass(frozen=True)
class RuleBook:
    """An editor's releases (oldest first) and its rules; `part` names the half of the editor the
    rules belong to where an editor has two (tabby-agent and the Tabby server), for history."""

    editor: str
    releases: tuple[Release, ...]
    rules: tuple[Rule, ...]
    part: str = ""

    def named(self, tag: str) -> Release | None:
        """The release spelled exactly `tag`, or None."""
        return next((r for r in self.releases if r.tag == tag), None)

    def on_day(self, day: str) -> Release | None:
        """The newest release out by the end of UTC day `day` (what a user had then); None
        before the first."""
        out = [r for r in self.releases if r.day <= day[:10]]
        return out[-1] if out else None

    def in_force(self, release: Release) -> tuple[Rule, ...]:
        """The rules `release` runs, oldest first."""
        return tuple(sorted((rule for rule in self.rules if release.has(rule)), key=lambda rule: rule.when))

    def in_force_at(self, release: Release, why: str) -> InForce:
        """What `fimreplay editors NAME@VERSION` shows of this book at `release`."""
        return InForce(self.part or self.editor, release.tag, release.commit, release.day, why, self.in_force(release))

    def first_with(self, rule: Rule) -> Release | None:
        return next((r for r in self.releases if r.has(rule)), None)

    def last_without(self, rule: Rule) -> Release | None:
        """The last release before the first with `rule` (all of them when none has it yet)."""
        first = self.first_with(rule)
        before = [r for r in self.releases if (first is None or r.index < first.index) and not r.has(rule)]
        return before[-1] if before else None

    def history(self, describe: Callable[[Rule], str] | None = None,
                first: Callable[[Rule], str] | None = None) -> list[HistoryRow]:
        """One row per rule, by date (the book's order within a day). `describe` words a rule's
        change (default `name: summary`), `first` names its first release where the book's own
        releases do not (a rule counted by time that no release has yet)."""
        rows = []
        for rule in sorted(self.rules, key=lambda rule: rule.day):
            since = self.first_with(rule)
            before = self.last_without(rule)
            last = self.releases[rule.until.index - 1].tag if rule.until is not None and rule.until.index else ""
            named = since.tag if since is not None else (first(rule) if first else "")
            text = describe(rule) if describe else f"{rule.name}: {rule.summary}"
            rows.append(HistoryRow(rule.day, rule.commit, named, last, before.tag if before else "",
                                   f"{self.part}: {text}" if self.part else text, rule.source))
        return rows
