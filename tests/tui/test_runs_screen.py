"""The Runs screen through its keys: mark, compare side by side (replay.reports.report's numbers),
export JSONL/CSV/Markdown (replay.reports.report's formats), copy through OSC 52."""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable

from replay.reports import report
from tests.support.tui_data import add_runs, make_store
from tui.app import create_app

pytestmark = pytest.mark.anyio


@pytest.fixture()
def store(tmp_path):
    with make_store(tmp_path / "s.db", 10) as s:
        add_runs(s)
        yield s


def cells(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_compare_marked_runs_side_by_side(store) -> None:
    app = create_app(store=store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("3")
        await pilot.pause()
        runs = app.screen.query_one("#runs-table", DataTable)
        assert [r[1:] for r in cells(runs)] == [["run-a", "done", "qwen2.5-coder-0.5b", "llamacpp", "standard", "3"],
                                                ["run-b", "done", "starcoder2-3b", "llamacpp", "standard", "3"],
                                                ["run-cap", "done", "qwen2.5-coder-0.5b", "llamacpp", "tabby", "3"]]
        await pilot.press("down", "space", "c")  # only run-b
        await settle(pilot)
        compare = app.screen.query_one("#runs-compare", DataTable)
        assert [str(c.label) for c in compare.ordered_columns] == ["", "run-b"]
        assert cells(runs)[1][0] == "●"
        await pilot.press("up", "space", "c")  # run-b then run-a, in marking order
        await settle(pilot)
        assert [str(c.label) for c in compare.ordered_columns] == ["", "run-b", "run-a"]
        rows = {r[0]: r[1:] for r in cells(compare)}
        expected = [report.load_run(store, r).summary for r in ("run-b", "run-a")]
        assert rows["exact mean [95%]"][0].startswith(f"{expected[0].mean['exact']:.4f} [")
        assert rows["indel total"] == [f"{s.total['indel']:.4f}" for s in expected]
        assert rows["files"] == ["2", "2"] and rows["model"] == ["starcoder2-3b", "qwen2.5-coder-0.5b"]
        # run-a: two of three exact, so its exact mean over files A (1/2) and B (1) is 0.75.
        assert rows["exact mean [95%]"][1].startswith("0.7500 [")


async def test_export_and_copy(store, tmp_path) -> None:
    app = create_app(store=store, export_dir=tmp_path / "out")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("3", "space", "down", "space", "e")
        await settle(pilot)
        await pilot.pause()
        reports = [report.load_run(store, r) for r in ("run-a", "run-b")]
        lines = (tmp_path / "out" / "compare.jsonl").read_text().splitlines()
        assert [json.loads(line)["run"] for line in lines] == ["run-a", "run-b"]
        assert json.loads(lines[0])["mean"] == reports[0].summary.mean
        assert (tmp_path / "out" / "compare.csv").read_text() == report.to_csv(reports)
        markdown = (tmp_path / "out" / "compare.md").read_text()
        assert markdown == report.to_markdown(reports)
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == markdown
        assert [n.title for n in app._notifications] == ["Export", "Copy"]


async def test_the_comparison_puts_time_and_the_in_time_score_beside_quality(store) -> None:
    from replay.records import Completion
    from replay.reading import RunConfig

    store.create_run("run-t", RunConfig(model="m", backend="llamacpp", editor="standard"))
    for c in store.completions("run-a"):
        store.add_completion("run-t", Completion(item_id=c.item_id, text=c.text, raw_text=c.text, backend="llamacpp",
                                                 model="m", latency_s=0.25, n_tokens=3, prompt_tokens=40))
    store.set_run_status("run-t", "done")
    app = create_app(store=store)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("down", "down", "down", "space", "c")  # run-t
        await settle(pilot)
        rows = {r[0]: r[1:] for r in cells(app.screen.query_one("#runs-compare", DataTable))}
        expected = report.load_run(store, "run-t")
        assert rows["p50 ms"] == ["250"] and rows["in time"] == ["-"]  # no later keystroke: not judged
        assert rows["in-time indel [95%]"] == [expected.in_time.cell()]
        assert rows["in-time indel [95%]"][0].startswith(f"{expected.summary.mean['indel']:.4f} [")
