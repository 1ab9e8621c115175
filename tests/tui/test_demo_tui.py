"""`fimreplay demo --tui`: the library's demo runs in the app's worker and its steps arrive as
messages, in order; the runs it made are in the store the screens read."""

from __future__ import annotations

import pytest

from replay.usecases.demo import DEMO_TOKENIZER, DemoOptions
from replay.store import Store
from tests.tui.test_dashboard import wait_until
from tui.app import DemoProgress, DemoStep, FimReplayApp, create_app

pytestmark = pytest.mark.anyio


async def test_demo_steps_arrive_in_order_and_runs_are_stored(home, tmp_path, monkeypatch) -> None:
    steps: list[str] = []
    progress: list[tuple[int, int]] = []
    on_step, on_progress = FimReplayApp.on_demo_step, FimReplayApp.on_demo_progress

    def record_step(app: FimReplayApp, message: DemoStep) -> None:
        steps.append(message.text)
        on_step(app, message)

    def record_progress(app: FimReplayApp, message: DemoProgress) -> None:
        progress.append((message.done, message.total))
        on_progress(app, message)

    monkeypatch.setattr(FimReplayApp, "on_demo_step", record_step)
    monkeypatch.setattr(FimReplayApp, "on_demo_progress", record_progress)
    with Store(tmp_path / "s.db") as store:
        app = create_app(store=store, demo=DemoOptions(files=1, per_file=1, max_new_tokens=4),
                         tokenizer=DEMO_TOKENIZER)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: any(s.startswith("finished") for s in steps), timeout=400)
            assert app.sub_title.startswith("demo: finished")
        kinds = [s.split(":", 1)[0].split(" ", 1)[0] for s in steps]
        order = ["assets", "import", "verify", "audit", "evalgen", "run", "finished"]
        assert [k for k in dict.fromkeys(kinds) if k in order] == order
        assert progress and progress[-1][0] == progress[-1][1]
        assert len(store.runs()) == 2
