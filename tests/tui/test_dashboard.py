"""The replay dashboard with the real demo model (llama.cpp, Qwen2.5-Coder 0.5B GGUF from the
asset cache): live rows, cancel, resume, and quitting mid-run with the store left consistent."""

from __future__ import annotations

import msgspec
import pytest
from textual.widgets import DataTable, Input

from replay.records import FimItem
from replay.scoring import live_scores
from tests.support.tui_data import make_store
from tui.app import create_app
from replay.usecases.score import LiveScores
from tui.screens.dashboard import ModelRun

pytestmark = pytest.mark.anyio
N = 12  # captures replayed: enough that cancelling after the first leaves some to resume


def test_references_are_item_middles_or_accepted_completions(tmp_path) -> None:
    with make_store(tmp_path / "s.db", 8) as store:
        live = LiveScores(store, "captures")
        refs = {f"capture-{i}": live.reference(f"capture-{i}") for i in range(1, 9)}
        assert {k: v for k, v in refs.items() if v is not None} == {f"capture-{i + 1}": f"{i} + 1" for i in (0, 4)}  # outcome accepted: i % 4 == 0
        items = tmp_path / "items.jsonl"
        items.write_bytes(msgspec.json.encode(FimItem(id="a", file="f.sol", prefix="p", middle="m", suffix="s", mode="line"))
                          + b"\n{\"profile\": \"standard\", \"text\": \"x\"}\n")
        live = LiveScores(store, str(items))
        assert live.middles == {"a": "m"} and live.reference("b") is None


def test_histogram_bins_scores_from_0_to_1() -> None:
    run = ModelRun(model="m", run_id="r", indel=[0.0, 0.05, 0.5, 0.99, 1.0])
    assert run.histogram() == [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]


async def wait_until(pilot, predicate, timeout: float = 240) -> None:
    for _ in range(int(timeout / 0.1)):
        if predicate():
            return
        await pilot.pause(0.1)
    raise AssertionError("timed out")


async def start_run(pilot):
    """Open the dashboard, start the default model on the captures (3 new tokens each) and
    wait until its first completion is stored; return the dashboard screen."""
    await pilot.press("2")
    await pilot.pause()
    screen = pilot.app.screen
    screen.query_one("#dash-max-new", Input).value = "3"
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: "default" in screen.runs and screen.runs["default"].done >= 1)
    return screen


def row(table: DataTable, key: str) -> dict[str, str]:
    return {str(c.label): str(v) for c, v in zip(table.ordered_columns, table.get_row(key))}


@pytest.mark.slow
async def test_run_cancel_resume_with_the_demo_model(tmp_path) -> None:
    store = make_store(tmp_path / "s.db", N)
    app = create_app(store=store)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await start_run(pilot)
        await pilot.press("x")
        await wait_until(pilot, lambda: screen.runs["default"].status == "cancelled")
        run = screen.runs["default"]
        assert store.run(run.run_id).status == "interrupted"
        stored = store.done_item_ids(run.run_id)
        assert 1 <= len(stored) < N and len(stored) == run.done
        table = screen.query_one("#dash-table", DataTable)
        assert row(table, "default")["status"] == "cancelled"
        await pilot.press("u")
        await wait_until(pilot, lambda: screen.runs["default"].status.startswith("done"))
        resumed = screen.runs["default"]
        assert resumed.run_id == run.run_id and resumed.started_at == len(stored)
        assert store.done_item_ids(run.run_id) == {f"capture-{i}" for i in range(1, N + 1)}
        assert store.run(run.run_id).status == "done"
        cells = row(table, "default")
        assert cells["progress"] == f"{N}/{N}" and cells["status"] == "done"
        # Accepted captures (every fourth) are scored live against the accepted text when this
        # start replayed them (the shown text, as many lines as the accepted text), and the
        # sparkline counts each in its bin.
        completions = {c.item_id: c for c in store.completions(run.run_id)}
        assert all(c.stage for c in completions.values())  # the editor's completion stage ran
        scores = [live_scores(f"{i} + 1", completions[f"capture-{i + 1}"])[0] for i in range(0, N, 4)
                  if f"capture-{i + 1}" not in stored]
        assert resumed.indel == pytest.approx(scores) or sorted(resumed.indel) == pytest.approx(sorted(scores))
        plot = list(screen._plots["default"].data)
        assert sum(plot) == len(scores)
        assert cells["mean Indel"] == (f"{sum(scores) / len(scores):.4f}" if scores else "-")
    store.close()


@pytest.mark.slow
async def test_quitting_mid_run_leaves_the_store_consistent(tmp_path) -> None:
    store = make_store(tmp_path / "s.db", N)
    app = create_app(store=store)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await start_run(pilot)
        run_id = screen.runs["default"].run_id
        await pilot.press("q")
    assert app.return_code == 0
    assert store.run(run_id).status == "interrupted"
    done = store.done_item_ids(run_id)
    assert 1 <= len(done) < N
    assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    store.close()
