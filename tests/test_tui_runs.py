"""The Runs screen through its keys: mark, compare side by side, export, copy (OSC 52)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from textual.widgets import DataTable

from tests.tui_data import add_runs, make_store
from tui.app import create_app

pytestmark = pytest.mark.anyio


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture()
def store(tmp_path):
    with make_store(tmp_path / "s.db", 10) as s:
        add_runs(s)
        yield s


def cells(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_compare_marked_runs_side_by_side(store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("3")
        await pilot.pause()
        runs = app.screen.query_one("#runs-table", DataTable)
        assert [r[1:] for r in cells(runs)] == [["run-a", "done", "qwen2.5-coder-0.5b", "llamacpp", "3"],
                                                ["run-b", "done", "starcoder2-3b", "llamacpp", "3"]]
        await pilot.press("down", "space", "c")  # only run-b
        compare = app.screen.query_one("#runs-compare", DataTable)
        assert [str(c.label) for c in compare.ordered_columns] == ["", "run-b"]
        assert cells(runs)[1][0] == "●"
        await pilot.press("up", "space", "c")  # run-b then run-a, in marking order
        assert [str(c.label) for c in compare.ordered_columns] == ["", "run-b", "run-a"]
        rows = {r[0]: r[1:] for r in cells(compare)}
        assert rows["indel"] == ["0.5833 (n=3)", "0.7500 (n=3)"]
        assert rows["exact"] == ["0.3333 (n=3)", "0.3333 (n=3)"]
        assert rows["model"] == ["starcoder2-3b", "qwen2.5-coder-0.5b"]


async def test_export_and_copy(store, tmp_path) -> None:
    app = create_app(store=store, export_dir=tmp_path / "out")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("3", "e")
        await pilot.pause()
        lines = (tmp_path / "out" / "compare.jsonl").read_text().splitlines()
        assert [json.loads(line)["run"] for line in lines] == ["run-a", "run-b"]
        assert json.loads(lines[0])["indel"] == "0.7500 (n=3)"
        table = list(csv.reader(io.StringIO((tmp_path / "out" / "compare.csv").read_text())))
        assert table[0] == ["", "run-a", "run-b"] and ["completions", "3", "3"] in table
        markdown = (tmp_path / "out" / "compare.md").read_text()
        assert markdown.splitlines()[:2] == ["|  | run-a | run-b |", "| --- | --- | --- |"]
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == markdown
        assert [n.title for n in app._notifications] == ["Export", "Copy"]
