"""The Runs screen: every run, the report's side-by-side comparison, export, copy (OSC 52).
Scores, aggregates and the export formats are the score use case's; this screen lays them out."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from replay.store import Store
from replay.usecases.score import Comparison, compare_runs, export_comparison, list_runs
from tui.errors import WorkerErrors


class RunsScreen(WorkerErrors, Screen):
    """Space marks runs, `c` compares the marked ones (all when none; two runs also pair by pair,
    the second marked against the first), `e` exports the comparison (JSONL, CSV, Markdown), `y`
    copies its Markdown through OSC 52."""

    BINDINGS = [
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare"),
        Binding("e", "export", "Export"),
        Binding("y", "copy", "Copy"),
        Binding("R", "refresh_runs", "Refresh", show=False),
    ]

    class Compared(Message):
        def __init__(self, comparison: Comparison, then: str | None) -> None:
            self.comparison = comparison
            self.then = then
            super().__init__()

    def __init__(self, store: Store, export_dir: Path | None = None) -> None:
        super().__init__(name="runs")
        self.store = store
        self.export_dir = export_dir
        self.marked: list[str] = []
        self.comparison: Comparison | None = None

    def compose(self) -> ComposeResult:
        yield Static("Runs", classes="screen-title")
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("Comparison (c)", id="runs-compare-title", classes="section-title")
        yield DataTable(id="runs-compare", cursor_type="none")
        yield Static("", id="runs-paired")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_runs()
        self.query_one("#runs-table", DataTable).focus()

    def store_changed(self) -> None:
        """A commit reached the app: the runs are listed again, once the table is mounted (a Screen
        counts as mounted before its widgets are; the table lists them when it mounts)."""
        if self.query("#runs-table"):
            self.action_refresh_runs()

    def action_refresh_runs(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        table.add_columns(" ", "run", "status", "model", "backend", "editor", "completions")
        for run in list_runs(self.store):
            table.add_row("●" if run.id in self.marked else " ", run.id, run.status, run.model or "-",
                          run.backend or "-", run.editor or "-", str(run.completions), key=run.id)
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))

    def action_mark(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        if not table.row_count:
            return
        run_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        assert run_id is not None
        if run_id in self.marked:
            self.marked.remove(run_id)
        else:
            self.marked.append(run_id)
        table.update_cell(run_id, table.ordered_columns[0].key, "●" if run_id in self.marked else " ")

    def action_compare(self, then: str | None = None) -> None:
        self.query_one("#runs-compare-title", Static).update("Comparison (scoring…)")
        self.compare(self.marked or [r.id for r in list_runs(self.store)], then)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def compare(self, run_ids: list[str], then: str | None) -> None:
        """Comparing scores what is not scored yet (and stores the scores): a worker."""
        self.post_message(self.Compared(compare_runs(self.store, run_ids), then))

    def on_runs_screen_compared(self, message: Compared) -> None:
        comparison = self.comparison = message.comparison
        table = self.query_one("#runs-compare", DataTable)
        table.clear(columns=True)
        table.add_columns("", *comparison.run_ids)
        table.add_rows(comparison.rows())
        self.query_one("#runs-compare-title", Static).update(f"Comparison of {len(comparison.reports)} runs (c)")
        self.query_one("#runs-paired", Static).update(comparison.paired_line() or "Mark two runs for a paired comparison.")
        if message.then == "export":
            self.action_export()
        elif message.then == "copy":
            self.action_copy()

    def action_export(self) -> None:
        if self.comparison is None:
            self.action_compare(then="export")
            return
        written = export_comparison(self.comparison, self.export_dir)
        self.notify("Exported " + ", ".join(str(p) for p in written), title="Export")

    def action_copy(self) -> None:
        if self.comparison is None:
            self.action_compare(then="copy")
            return
        self.app.copy_to_clipboard(self.comparison.to_markdown())
        self.notify("Comparison copied to the clipboard (OSC 52)", title="Copy")
