"""The Captures screen driven through its keys (Pilot): what it shows, filter, sort, live rows."""

from __future__ import annotations

import msgspec
import pytest

from replay.store import Store
from tests.support.tui_data import captures, make_store
from tui.app import create_app
from tui.watcher import StoreChanged
from tui.widgets.capture_table import CaptureTable, format_ts

SIZE = (120, 30)
pytestmark = pytest.mark.anyio


@pytest.fixture()
def store(tmp_path):
    with make_store(tmp_path / "s.db", 1000) as s:
        yield s


async def table_of(pilot) -> CaptureTable:
    """The captures table once the first screen is composed (a loaded machine can lag)."""
    for _ in range(200):
        tables = pilot.app.screen.query(CaptureTable)
        if tables and tables.first().count:
            return tables.first()
        await pilot.pause(0.05)
    raise AssertionError("the captures table did not appear")


def visible_ids(table: CaptureTable) -> list[int]:
    top = int(table.scroll_y)
    return [table.row(i).id for i in range(top, min(top + table.size.height - 1, table.count))]


async def test_table_shows_store_rows_and_pages_only_what_is_seen(store: Store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        table = await table_of(pilot)
        assert table.count == 1000
        # Newest first: capture 1000 (the latest time) on top.
        assert table.sort == "time" and table.descending
        assert visible_ids(table) == list(range(1000, 1000 - table.size.height + 1, -1))
        line = table.render_line(1).text
        assert format_ts(1_763_600_000.0 + 60 * 999) in line and "continue" in line and "qwen2.5-coder-0.5b" in line
        assert len(table._pages) == 1  # one page read for the first screen, not the table
        await pilot.press("end")
        assert table.cursor == 999 and table.selected.id == 1
        assert visible_ids(table)[-1] == 1
        await pilot.press("home", "down", "down", "pagedown")
        assert table.cursor == 2 + table.size.height - 1
        assert "1,000 captures" in str(app.screen.query_one("#captures-status").render())


async def test_filter_as_you_type_and_sort_keys(store: Store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        table = await table_of(pilot)
        await pilot.press("slash", *"c7.sol")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table.count == store.count_capture_rows("c7.sol") == 20
        assert all(table.row(i).filepath == "contracts/C7.sol" for i in range(table.count))
        ids = [table.row(i).id for i in range(table.count)]
        assert ids == sorted(ids, reverse=True) and "time (UTC) ▼" in table.render_line(0).text
        await pilot.press("escape", "r")  # reverse: oldest first
        await app.workers.wait_for_complete()
        await pilot.pause()
        ids = [table.row(i).id for i in range(table.count)]
        assert ids == sorted(ids) and not table.descending
        assert "sorted by time (ascending)" in str(app.screen.query_one("#captures-status").render())
        await pilot.press("s")  # next sort: editor
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table.sort == "editor" and "editor ▲" in table.render_line(0).text


async def test_click_header_sorts_and_enter_opens_item(store: Store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        table = await table_of(pilot)
        await pilot.click(CaptureTable, offset=(22, 0))  # the "editor" title
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table.sort == "editor" and table.row(0).editor == "continue"
        await pilot.click(CaptureTable, offset=(5, 3))
        assert table.cursor == 2
        first = table.selected.id
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.name == f"item-{first}"


async def test_new_captures_arrive_without_the_view_jumping(store: Store, tmp_path) -> None:
    app = create_app(store=store, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        table = await table_of(pilot)
        # Newest first (the default): the new rows sort above the view, which moves down with
        # what it showed.
        await pilot.press("pagedown", "pagedown")
        before = visible_ids(table)
        cursor_id = table.selected.id
        with Store(tmp_path / "s.db") as writer:  # another process, as `fimreplay watch` is
            writer.add_captures(captures(1000, 2000))
        for _ in range(100):
            await pilot.pause(0.05)
            if table.count == 2000:
                break
        assert table.count == 2000
        assert visible_ids(table) == before and table.selected.id == cursor_id
        # Oldest first: the new rows land below the view, which stays.
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.press("pagedown")
        await pilot.pause()
        before = visible_ids(table)
        with Store(tmp_path / "s.db") as writer:
            writer.add_captures(captures(2000, 2050))
        for _ in range(100):
            await pilot.pause(0.05)
            if table.count == 2050:
                break
        assert table.count == 2050 and visible_ids(table) == before


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
def test_store_changed_messages_coalesce(anyio_backend: str) -> None:
    assert StoreChanged().can_replace(StoreChanged())


async def test_worker_errors_become_notifications(store: Store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        def fail() -> None:
            raise RuntimeError("backend went away")

        # A worker of the app, of a screen and of a widget: StateChanged does not bubble, each
        # routes its failure to the one handler.
        nodes = [app, app.screen, app.screen.query_one(CaptureTable)]
        workers = [node.run_worker(fail, thread=True, exit_on_error=False, name=f"w{i}") for i, node in enumerate(nodes)]
        for _ in range(100):
            await pilot.pause(0.02)
            if len(app._notifications) == 3:
                break
        assert [w.state.name for w in workers] == ["ERROR"] * 3
        assert app.is_running
        assert sorted((n.title, n.message, n.severity) for n in app._notifications) == [
            (f"w{i}", "RuntimeError: backend went away", "error") for i in range(3)]


async def test_captures_with_no_known_tokenizer_are_a_status_not_an_error(tmp_path) -> None:
    """Tabby's log names no model: such captures keep empty counts and the status line says how
    to give a tokenizer; nothing is notified as an error."""
    with Store(tmp_path / "s.db") as store:
        store.add_captures([msgspec.structs.replace(c, model=None) for c in captures(0, 3)] + list(captures(3, 6)))
        app = create_app(store=store)
        async with app.run_test(size=SIZE) as pilot:
            await table_of(pilot)
            status = pilot.app.screen.query_one("#captures-status")
            for _ in range(200):
                if "not tokenized" in str(status.render()):
                    break
                await pilot.pause(0.05)
            assert "3 not tokenized: no known model (--tokenizer SPEC)" in str(status.render())
            assert not app._notifications


async def test_help_and_command_palette(store: Store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape", "ctrl+p", *"Runs")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.current_mode == "runs"
        await pilot.press("1")
        assert app.current_mode == "captures"


async def test_quit_closes_cleanly(store: Store, tmp_path) -> None:
    app = create_app(tmp_path / "s.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("q")
    assert app.return_code == 0
    with pytest.raises(Exception):
        app.store.query("SELECT 1")  # the app closed the store it opened
    assert msgspec.json.decode(store.query("SELECT record FROM capture_records WHERE id = 1")[0][0])["editor"] == "continue"


async def test_watch_option_imports_new_capture_files_live(tmp_path) -> None:
    """`--watch DIR`: a Tabby event file written into the folder shows up in the table."""
    from tests.conftest import CAPTURES

    folder = tmp_path / "events"
    folder.mkdir()
    with make_store(tmp_path / "s.db", 5) as store:
        app = create_app(store=store, watch_dirs=[folder], poll_interval=0.05)
        async with app.run_test(size=SIZE) as pilot:
            table = await table_of(pilot)
            assert table.count == 5
            source = CAPTURES / "tabby" / "events" / "2023-07-20.json"
            (folder / source.name).write_bytes(source.read_bytes())
            for _ in range(600):  # up to 30 s on a loaded 2-core machine
                await pilot.pause(0.05)
                if table.count > 5:
                    break
            assert table.count == 6
            row = table.row(5)
            assert (row.editor, row.filepath) == ("tabby", None)
            assert store.capture(row.id).completion == 'fmt.Println("hello,", n)'


async def test_a_store_change_before_a_pushed_screen_has_mounted_is_left_to_its_mount(store: Store) -> None:
    """A commit seen (StoreChanged) between a screen's push and its mount: the screen is in the
    stack without its widgets yet; reloading it then raised NoMatches (met under load)."""
    from tui.screens.captures import CapturesScreen

    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await table_of(pilot)
        screen = CapturesScreen(store)
        app.push_screen(screen)
        assert not screen.is_mounted
        app.on_store_changed(StoreChanged())
        await pilot.pause()
        assert screen.is_mounted and screen.table.count == store.count_captures()


async def test_keys_typed_right_after_slash_reach_the_filter(store: Store) -> None:
    """Keys queued behind `/` (a fast typist, a busy app) were forwarded to the table before the
    focus moved; unbound printable keys at the table go to the filter (type to filter)."""
    from textual import events
    from textual.widgets import Input

    app = create_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, char in (("slash", "/"), ("c", "c"), ("7", "7"), ("full_stop", ".")):
            app.post_message(events.Key(key, char))
        await pilot.pause(0.2)
        assert app.screen.query_one(Input).value == "c7."
        await pilot.press("escape", "s")  # bound keys still act on the table
        assert app.screen.query_one(CaptureTable).sort == "editor"  # after time, the default
        await pilot.press("escape", "x")  # unbound: starts filtering
        assert app.screen.query_one(Input).value == "c7.x"


def test_a_commit_before_the_screens_widgets_are_mounted_is_left_to_their_mount(tmp_path) -> None:
    """The watch's first import can land while a screen is mounted but its table is not yet (a
    Screen counts as mounted before its widgets): nothing to reload then, and no error."""
    from tui.screens.captures import CapturesScreen
    from tui.screens.runs import RunsScreen

    with make_store(tmp_path / "s.db", 1) as store:
        for screen in (CapturesScreen(store), RunsScreen(store)):
            screen.store_changed()
