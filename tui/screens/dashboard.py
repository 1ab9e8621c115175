"""The replay dashboard: pick the inputs (benchmark items or the captures), an editor profile,
a backend and one or more models; each model's run goes in its own worker, with a live row
(progress, items/s, mean Indel, exact match) and a sparkline of the Indel distribution.

Runs are the run use case's (replay.usecases.replay.run): each finished completion is committed
at once, so a cancelled run (`x`, or quitting) stops between two items and resumes (`u`) where
it stopped. Live scores are the score use case's (LiveScores), against the references `score`
uses."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Label, Select, Sparkline, Static
from textual.worker import get_current_worker

from replay.records import Completion
from replay.store import Store
from replay.usecases.replay import BACKENDS, EDITORS, GenParams, RunRequest, SourceRun, new_run_id
from replay.usecases.replay import run as replay_run
from replay.usecases.score import LiveScores
from tui.errors import WorkerErrors
from tui.watcher import StoreChanged

BINS = 10


class RunCancelled(Exception):
    """Raised from the progress callback when the run's worker is cancelled: the runner marks
    the run `interrupted` and re-raises, after the last finished completion was committed."""


@dataclass
class ModelRun:
    """What the dashboard shows for one model's run."""

    model: str
    run_id: str
    status: str = "starting"
    done: int = 0
    total: int = 0
    started_at: int = 0  # items already done when this start began (a resumed run)
    t0: float = field(default_factory=time.perf_counter)
    indel: list[float] = field(default_factory=list)
    exact: list[float] = field(default_factory=list)

    def rate(self) -> float:
        elapsed = time.perf_counter() - self.t0
        return (self.done - self.started_at) / elapsed if elapsed > 0 else 0.0

    def histogram(self) -> list[float]:
        counts = [0.0] * BINS
        for value in self.indel:
            counts[min(int(value * BINS), BINS - 1)] += 1
        return counts


class DashboardScreen(WorkerErrors, Screen):
    """ctrl+r starts a run per model, `x` cancels them, `u` resumes the cancelled ones (from
    the table; escape leaves a form field)."""

    BINDINGS = [
        Binding("ctrl+r", "start", "Run"),
        Binding("escape", "focus_table", "Table", show=False),
        Binding("x", "cancel", "Cancel"),
        Binding("u", "resume", "Resume"),
    ]

    class Progress(Message):
        def __init__(self, model: str, done: int, total: int, completion: Completion | None, scores: tuple[float, float] | None) -> None:
            self.model = model
            self.done = done
            self.total = total
            self.completion = completion
            self.scores = scores
            super().__init__()

    class Finished(Message):
        def __init__(self, model: str, status: str) -> None:
            self.model = model
            self.status = status
            super().__init__()

    def __init__(self, store: Store) -> None:
        super().__init__(name="dashboard")
        self.store = store
        self.runs: dict[str, ModelRun] = {}
        self._plots: dict[str, Sparkline] = {}
        self._run_ended: dict[str, threading.Event] = {}  # set when the run's thread has returned

    def compose(self) -> ComposeResult:
        yield Static("Replay", classes="screen-title")
        with Horizontal(id="dash-form"):
            with Vertical():
                yield Label("inputs: captures or items.jsonl")
                yield Input("captures", id="dash-source")
            with Vertical():
                yield Label("editor profile")
                yield Select([(p, p) for p in EDITORS], value="standard", allow_blank=False, id="dash-editor")
            with Vertical():
                yield Label("backend")
                yield Select([(b, b) for b in BACKENDS], value="llamacpp", allow_blank=False, id="dash-backend")
            with Vertical():
                yield Label("models (comma-separated)")
                yield Input("default", id="dash-models")
            with Vertical():
                yield Label("endpoint (HTTP backends)")
                yield Input("", id="dash-endpoint")
            with Vertical(id="dash-tokens-box"):
                yield Label("max new tokens")
                yield Input("", placeholder="profile's", id="dash-max-new", type="integer")
        yield DataTable(id="dash-table", cursor_type="row")
        yield Static("Indel of the shown text per model (0 → 1)", classes="section-title")
        yield VerticalScroll(id="dash-plots")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#dash-table", DataTable)
        table.add_column("model", key="model")
        for name in ("run", "status", "progress", "items/s", "mean Indel", "exact"):  # of the shown text
            table.add_column(name, key=name)
        table.focus()  # keys first: tab reaches the form, escape comes back

    # -- starting, cancelling, resuming -------------------------------------------------------------
    def _form(self) -> tuple[str, str, str, list[str], list[str], GenParams]:
        source = self.query_one("#dash-source", Input).value.strip() or "captures"
        editor = str(self.query_one("#dash-editor", Select).value)
        backend = str(self.query_one("#dash-backend", Select).value)
        models = [m.strip() for m in self.query_one("#dash-models", Input).value.split(",") if m.strip()]
        endpoint = self.query_one("#dash-endpoint", Input).value.strip()
        max_new = self.query_one("#dash-max-new", Input).value.strip()
        return source, editor, backend, models, [endpoint] if endpoint else [], GenParams(max_new_tokens=int(max_new) if max_new else None)

    def action_start(self) -> None:
        """Start one run per model; focus goes to the table, where `x` and `u` work."""
        self.query_one("#dash-table", DataTable).focus()
        source, editor, backend, models, endpoints, params = self._form()
        if not models:
            self.notify("Name at least one model", severity="warning")
            return
        for model in models:
            if model in self.runs and self.runs[model].status in ("starting", "running"):
                continue
            self._launch(ModelRun(model=model, run_id=new_run_id()), source, editor, backend, endpoints, params)

    def action_focus_table(self) -> None:
        self.query_one("#dash-table", DataTable).focus()

    def action_cancel(self) -> None:
        for worker in self.workers:
            if worker.group == "replay":
                worker.cancel()

    def action_resume(self) -> None:
        source, editor, backend, _, endpoints, params = self._form()
        for run in list(self.runs.values()):
            if run.status in ("cancelled", "interrupted", "failed"):
                self._launch(ModelRun(model=run.model, run_id=run.run_id), source, editor, backend, endpoints, params)

    def _launch(self, run: ModelRun, source: str, editor: str, backend: str, endpoints: list[str], params: GenParams) -> None:
        self.runs[run.model] = run
        self._run_ended[run.run_id] = threading.Event()
        self._show(run)
        self.replay(run, source, editor, backend, endpoints, params)

    async def stop_runs(self) -> None:
        """Cancel every run and wait until their threads have returned: each stops after the
        completion in progress, which is committed (the app calls this before quitting)."""
        self.action_cancel()
        events = list(self._run_ended.values())
        await asyncio.to_thread(lambda: [event.wait() for event in events])

    @work(thread=True, group="replay", exit_on_error=False)
    def replay(self, run: ModelRun, source: str, editor: str, backend: str, endpoints: list[str], params: GenParams) -> None:
        worker = get_current_worker()
        live: LiveScores | None = None

        def progress(done: int, total: int, completion: Completion | None) -> None:
            scores = live(completion) if completion is not None and live is not None else None
            self.post_message(self.Progress(run.model, done, total, completion, scores))
            if worker.is_cancelled:
                raise RunCancelled(run.run_id)

        try:
            live = LiveScores(self.store, source)
            result = self._run(run, source, editor, backend, endpoints, params, progress)
        finally:
            self._run_ended[run.run_id].set()
        if result is not None:
            self._finished(run, result)

    def _run(self, run: ModelRun, source: str, editor: str, backend: str, endpoints: list[str], params: GenParams,
             progress: Callable[[int, int, Completion | None], None]) -> SourceRun | None:
        try:
            return replay_run(self.store, RunRequest(source, backend, model=run.model, editor=editor, params=params,
                                                     run_id=run.run_id, endpoints=endpoints), on_progress=progress)
        except RunCancelled:
            self.post_message(self.Finished(run.model, "cancelled"))
            return None
        except BaseException:
            self.post_message(self.Finished(run.model, "failed"))
            raise

    def _finished(self, run: ModelRun, result: SourceRun) -> None:
        status = "done" if result.summary.errors == 0 else f"done, {result.summary.errors} errors"
        if result.rejected:
            status += f", {result.rejected} rejects ({result.rejects_file})"
        self.post_message(self.Finished(run.model, status))

    # -- live rows ------------------------------------------------------------------------------------
    def on_dashboard_screen_progress(self, message: Progress) -> None:
        run = self.runs[message.model]
        if message.completion is None:  # the first call: how many were done before this start
            run.started_at = message.done
            run.t0 = time.perf_counter()
        run.status = "running"
        run.done, run.total = message.done, message.total
        if message.scores is not None:
            run.indel.append(message.scores[0])
            run.exact.append(message.scores[1])
        self._show(run)

    def on_dashboard_screen_finished(self, message: Finished) -> None:
        run = self.runs[message.model]
        run.status = message.status
        self._show(run)
        self.app.post_message(StoreChanged())  # the Runs screen lists the new run

    def _show(self, run: ModelRun) -> None:
        table = self.query_one("#dash-table", DataTable)
        mean = f"{sum(run.indel) / len(run.indel):.4f}" if run.indel else "-"
        ex = f"{sum(run.exact) / len(run.exact):.4f}" if run.exact else "-"
        progress = f"{run.done}/{run.total}" if run.total else "-"
        cells = {"run": run.run_id, "status": run.status, "progress": progress, "items/s": f"{run.rate():.2f}",
                 "mean Indel": mean, "exact": ex}
        if run.model not in table.rows:
            table.add_row(run.model, *cells.values(), key=run.model)
            plot = self._plots[run.model] = Sparkline([], classes="plot")
            self.query_one("#dash-plots", VerticalScroll).mount(
                Horizontal(Label(run.model, classes="plot-label"), plot, classes="plot-row"))
        else:
            for key, value in cells.items():
                table.update_cell(run.model, key, value)
        self._plots[run.model].data = run.histogram()
