"""The one rule-book model (replay/editors/rulebook.py): a rule is in force from its first
release up to the first without it, or, counted by time, from its commit on; a day names the
newest release out by then; history rows name the first release with a rule and the last one
without it; and every editor's unknown version is the one UnknownRelease, a bad input line."""

from __future__ import annotations

import pytest

from replay.editors import render
from replay.editors.inputs import BadInputLine
from replay.editors.rulebook import Release, Rule, RuleBook, UnknownRelease, releases_of
from replay.errors import UsageError
from replay.records import EditorInput

RELEASES = releases_of((("v1", "a1", "2025-01-01"), ("v2", "b2", "2025-01-01"), ("v3", "c3", "2025-02-01")))
KEPT = Rule("kept", "b0", "2024-12-31", "org/repo src/a.ts", "from v2 on", since=RELEASES[1])
UNDONE = Rule("undone", "c0", "2025-01-20", "org/repo src/b.ts", "in v2 only", since=RELEASES[1], until=RELEASES[2])
BOOK = RuleBook("editor", RELEASES, (UNDONE, KEPT))


def test_a_rule_holds_from_its_release_up_to_the_first_without_it() -> None:
    assert [r.has(KEPT) for r in RELEASES] == [False, True, True]
    assert [r.has(UNDONE) for r in RELEASES] == [False, True, False]
    assert BOOK.in_force(RELEASES[1]) == (KEPT, UNDONE)  # oldest first


def test_a_rule_counted_by_time_holds_from_its_commit_on() -> None:
    rule = Rule("timed", "d0", "2025-01-01", "org/repo c.ts", "", at="2025-01-01T12:00:00Z")
    assert not Release("x", "", "2025-01-01", -1, at="2025-01-01T11:59:59Z").has(rule)
    assert Release("y", "", "2025-01-01", -1, at="2025-01-01T12:00:00Z").has(rule)


def test_a_day_names_the_newest_release_out_by_then() -> None:
    assert BOOK.on_day("2025-01-31") == RELEASES[1] and BOOK.on_day("2025-02-01T08:00:00Z") == RELEASES[2]
    assert BOOK.on_day("2024-12-31") is None and BOOK.named("v3") == RELEASES[2] and BOOK.named("3") is None


def test_history_rows() -> None:
    kept, undone = BOOK.history()
    assert (kept.first_release, kept.last_release, kept.last_without, kept.change) == ("v2", "", "v1", "kept: from v2 on")
    assert (undone.first_release, undone.last_release, undone.source) == ("v2", "v2", "org/repo src/b.ts")
    later = RuleBook("e", RELEASES, (Rule("main", "e0", "2025-03-01", "r p", "", at="2025-03-01T00:00:00Z"),))
    row = later.history(first=lambda rule: f"main@{rule.day}")[0]
    assert (row.first_release, row.last_without) == ("main@2025-03-01", "v3")


@pytest.mark.parametrize(("editor", "version"), [
    ("tabby", "9.9.9"), ("tabby", "0.0.0"), ("tabby", "1.2.0"), ("continue", "9.9.9"), ("continue", "2023-01-01"),
    ("llama.vscode", "v9.9.9"), ("llama.vscode", "2024-01-01"), ("llama.vim", "zzz"), ("llama.vim", "2024-01-01"),
    ("llama.vscode", "v0.0.40,server=b1"),
])
def test_every_editors_unknown_release_is_the_one_error(editor: str, version: str) -> None:
    """A line whose version names no release is rejected on its own, as any bad line is."""
    with pytest.raises(UnknownRelease) as caught:
        render(editor, EditorInput(prefix="a", suffix="b", filepath="a.py"), "qwen2.5-coder", version)
    assert isinstance(caught.value, BadInputLine) and isinstance(caught.value, UsageError)
