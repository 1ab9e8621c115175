"""The Runs screen: every run, the report's side-by-side comparison, export, copy (OSC 52).
Scores, aggregates and the export formats are replay.report's; this screen lays them out."""

from __future__ import annotations

import json
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from replay import report
from replay.paths import data_dir
from replay.scoring import METRIC_NAMES
from replay.store import Store
from tui.errors import WorkerErrors


def compare_rows(reports: list[report.RunReport]) -> list[list[str]]:
    """The report's runs table turned sideways: one row per field, one column per run."""
    metrics = [m for m in METRIC_NAMES if any(m in r.summary["mean"] for r in reports)]
    rows = [["model", *[r.model for r in reports]], ["profile", *[r.profile for r in reports]],
            ["backend", *[r.backend for r in reports]], ["items", *[str(r.summary["n_items"]) for r in reports]],
            ["files", *[str(r.summary["n_files"]) for r in reports]]]
    for m in metrics:
        cells = []
        for r in reports:
            mean, (low, high) = r.summary["mean"].get(m), r.summary["ci95"].get(m, [None, None])
            cells.append("-" if mean is None else f"{mean:.4f} [{low:.4f}, {high:.4f}]")
        rows.append([f"{m} mean [95%]", *cells])
        rows.append([f"{m} total", *["-" if m not in r.summary["total"] else f"{r.summary['total'][m]:.4f}" for r in reports]])
    return rows


def to_jsonl(reports: list[report.RunReport]) -> str:
    """One JSON object per run: report.to_dict's run entries, one per line."""
    return "".join(json.dumps(run, ensure_ascii=False) + "\n" for run in report.to_dict(reports)["runs"])


class RunsScreen(WorkerErrors, Screen):
    """Space marks runs, `c` compares the marked ones (all when none), `e` exports the
    comparison (JSONL, CSV, Markdown), `y` copies its Markdown through OSC 52."""

    BINDINGS = [
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare"),
        Binding("e", "export", "Export"),
        Binding("y", "copy", "Copy"),
        Binding("R", "refresh_runs", "Refresh", show=False),
    ]

    class Compared(Message):
        def __init__(self, reports: list[report.RunReport], then: str | None) -> None:
            self.reports = reports
            self.then = then
            super().__init__()

    def __init__(self, store: Store, export_dir: Path | None = None) -> None:
        super().__init__(name="runs")
        self.store = store
        self.export_dir = export_dir
        self.marked: list[str] = []
        self.reports: list[report.RunReport] | None = None

    def compose(self) -> ComposeResult:
        yield Static("Runs", classes="screen-title")
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("Comparison (c)", id="runs-compare-title", classes="section-title")
        yield DataTable(id="runs-compare", cursor_type="none")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_runs()
        self.query_one("#runs-table", DataTable).focus()

    def store_changed(self) -> None:
        self.action_refresh_runs()

    def action_refresh_runs(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        table.add_columns(" ", "run", "status", "model", "backend", "editor", "completions")
        for run in self.store.runs():
            config = run["config"]
            done = self.store.query("SELECT COUNT(*) FROM completions WHERE run_id = ?", (run["id"],))[0][0]
            table.add_row("●" if run["id"] in self.marked else " ", run["id"], run["status"], str(config.get("model", "-")),
                          str(config.get("backend", "-")), str(config.get("editor", "-")), str(done), key=run["id"])
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
        self.compare(self.marked or [r["id"] for r in self.store.runs()], then)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def compare(self, run_ids: list[str], then: str | None) -> None:
        """report.load_run scores what is not scored yet (and stores the scores): a worker."""
        self.post_message(self.Compared([report.load_run(self.store, r) for r in run_ids], then))

    def on_runs_screen_compared(self, message: Compared) -> None:
        self.reports = message.reports
        table = self.query_one("#runs-compare", DataTable)
        table.clear(columns=True)
        table.add_columns("", *[r.run_id for r in message.reports])
        table.add_rows(compare_rows(message.reports))
        self.query_one("#runs-compare-title", Static).update(f"Comparison of {len(message.reports)} runs (c)")
        if message.then == "export":
            self.action_export()
        elif message.then == "copy":
            self.action_copy()

    def action_export(self) -> None:
        if self.reports is None:
            self.action_compare(then="export")
            return
        folder = self.export_dir or data_dir() / "exports"
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in (("compare.jsonl", to_jsonl(self.reports)), ("compare.csv", report.to_csv(self.reports)),
                           ("compare.md", report.to_markdown(self.reports))):
            path = folder / name
            path.write_text(text, encoding="utf-8")
            written.append(str(path))
        self.notify("Exported " + ", ".join(written), title="Export")

    def action_copy(self) -> None:
        if self.reports is None:
            self.action_compare(then="copy")
            return
        self.app.copy_to_clipboard(report.to_markdown(self.reports))
        self.notify("Comparison copied to the clipboard (OSC 52)", title="Copy")
