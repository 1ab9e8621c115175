"""Snapshots of each screen at a fixed terminal size, grouped by feature (Posting's layout).
Data is deterministic (tests/support/tui_data.py: fixed timestamps, no clocks on screen).
Update with `pytest tests/tui/test_snapshots.py --snapshot-update` and commit the SVGs."""

from __future__ import annotations

import pytest

from pathlib import Path

from replay.store import Store
from replay.usecases.capture import import_captures
from tests.support.tui_data import add_runs, make_store, settle
from tui.app import create_app

SIZE = (120, 32)


@pytest.fixture()
def store(tmp_path):
    with make_store(tmp_path / "s.db", 2000) as s:
        add_runs(s)
        yield s


class TestCaptures:
    def test_first_screen(self, snap_compare, store) -> None:
        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=settle)

    def test_filtered_and_sorted_newest_first(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await pilot.press("slash", *"qwen c1", "enter")  # newest first is the default order
            await settle(pilot)

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)

    def test_scrolled_to_the_end(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("end", "up", "up")
            await pilot.pause()

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)


class TestRuns:
    def test_compare_two_runs(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("3", "space", "down", "space", "c")
            await settle(pilot)

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)


class TestHelp:
    def test_help_screen(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("question_mark")
            await pilot.pause()

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)


class TestItem:
    def test_item_view_with_tokens_and_token_diff(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("end", "enter")  # the oldest capture: newest first is the default order
            await settle(pilot)
            await pilot.press("t")  # logged vs rebuilt
            await settle(pilot)

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)


class TestAudit:
    def test_audit_of_one_capture(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("end", "up", "up", "a")
            await settle(pilot)

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)


class TestDashboard:
    def test_dashboard_form(self, snap_compare, store) -> None:
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)

        assert snap_compare(create_app(store=store), terminal_size=SIZE, run_before=run_before)


class TestAcceptance:
    def test_acceptance_by_release(self, snap_compare, tmp_path) -> None:
        """The session log of captures/session (Tabby events with outcomes): its tables grouped by release."""
        async def run_before(pilot) -> None:
            await settle(pilot)
            await pilot.press("4")
            await settle(pilot)
            await pilot.press("g")
            await pilot.pause()

        with Store(tmp_path / "session.db") as session:
            import_captures(session, [Path(__file__).resolve().parents[2] / "captures" / "session"])
            assert snap_compare(create_app(store=session), terminal_size=SIZE, run_before=run_before)
