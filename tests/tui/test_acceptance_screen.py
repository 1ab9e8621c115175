"""The Acceptance screen through its keys: the worker's messages in order, the tables as
`report --acceptance` computes them (replay.usecases.acceptance), grouping, and a store with no
logged outcome."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import DataTable, Static

from replay.store import Store
from replay.usecases.acceptance import acceptance_report
from replay.usecases.capture import import_captures
from tests.support.tui_data import settle
from tui.app import create_app
from tui.screens.acceptance import AcceptanceScreen, group_rows, predictor_rows

pytestmark = pytest.mark.anyio
SESSION = Path(__file__).resolve().parents[2] / "captures" / "session"


@pytest.fixture()
def store(tmp_path):
    with Store(tmp_path / "s.db") as s:
        import_captures(s, [SESSION])
        yield s


def cells(table: DataTable) -> list[tuple[str, ...]]:
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


def hook(seen: list[Message]):
    """The screen's messages in the order posted (each once: the hook sees it again as it bubbles)."""
    def keep(message: Message) -> None:
        if isinstance(message, (AcceptanceScreen.Computing, AcceptanceScreen.Computed, AcceptanceScreen.Nothing)):
            if not any(m is message for m in seen):
                seen.append(message)
    return keep


async def test_the_worker_computes_then_the_tables_show_the_report(store) -> None:
    seen: list[Message] = []
    expected = acceptance_report(store, workers=1).data
    app = create_app(store=store)
    async with app.run_test(size=(140, 40), message_hook=hook(seen)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        assert [type(m) for m in seen] == [AcceptanceScreen.Computing, AcceptanceScreen.Computed]
        screen = app.screen
        assert isinstance(screen, AcceptanceScreen)
        summary = str(screen.query_one("#acceptance-summary", Static).render())
        assert summary.startswith("7 completions shown with a logged outcome, 3 accepted; 6 with a typed reference")
        assert cells(screen.query_one("#acceptance-by", DataTable)) == group_rows(expected, "editor")
        assert cells(screen.query_one("#acceptance-predictors", DataTable)) == predictor_rows(expected)
        await pilot.press("g")  # by release
        await pilot.pause()
        by = screen.query_one("#acceptance-by", DataTable)
        assert str(by.ordered_columns[0].label) == "release" and cells(by) == group_rows(expected, "release")
        await pilot.press("r")  # read again: the same messages once more
        await settle(pilot)
        assert [type(m) for m in seen[2:]] == [AcceptanceScreen.Computing, AcceptanceScreen.Computed]
        assert cells(screen.query_one("#acceptance-by", DataTable)) == group_rows(expected, "release")


async def test_a_store_with_no_logged_outcome_says_so(tmp_path) -> None:
    seen: list[Message] = []
    with Store(tmp_path / "empty.db") as empty:
        app = create_app(store=empty)
        async with app.run_test(size=(140, 40), message_hook=hook(seen)) as pilot:
            await pilot.press("4")
            await settle(pilot)
            assert [type(m) for m in seen] == [AcceptanceScreen.Computing, AcceptanceScreen.Nothing]
            summary = str(app.screen.query_one("#acceptance-summary", Static).render())
            assert summary.startswith("Nothing to judge: no capture's log says whether its completion was accepted")
            assert app.screen.query_one("#acceptance-by", DataTable).row_count == 0
