"""The Runs screen: every run with its means, side-by-side comparison, export, copy."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from replay.paths import data_dir
from replay.store import Store
from tui.errors import WorkerErrors


def compare_table(store: Store, run_ids: list[str]) -> tuple[list[str], list[list[str]]]:
    """Rows = run fields then metric means, one column per run (the report's side-by-side)."""
    runs = [store.run(r) for r in run_ids]
    summaries = [store.run_summary(r) for r in run_ids]
    metrics = sorted({m for s in summaries for m in s["metrics"]})
    header = ["", *run_ids]
    rows = [
        ["model", *[str((r or {}).get("config", {}).get("model", "-")) for r in runs]],
        ["backend", *[str((r or {}).get("config", {}).get("backend", "-")) for r in runs]],
        ["status", *[str((r or {}).get("status", "-")) for r in runs]],
        ["completions", *[str(s["completions"]) for s in summaries]],
    ]
    for metric in metrics:
        cells = []
        for s in summaries:
            mean_n = s["metrics"].get(metric)
            cells.append("-" if mean_n is None else f"{mean_n[0]:.4f} (n={mean_n[1]})")
        rows.append([metric, *cells])
    return header, rows


def to_markdown(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *(line(r) for r in rows)]) + "\n"


def to_csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def to_jsonl(header: list[str], rows: list[list[str]]) -> str:
    """One object per run: the comparison table read by column."""
    objects: list[dict[str, Any]] = []
    for col, run_id in enumerate(header[1:], start=1):
        objects.append({"run": run_id, **{row[0]: row[col] for row in rows}})
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)


class RunsScreen(WorkerErrors, Screen):
    """Space marks runs, `c` compares the marked ones (all when none), `e` exports the
    comparison (JSONL, CSV, Markdown), `y` copies it as Markdown through OSC 52."""

    BINDINGS = [
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare"),
        Binding("e", "export", "Export"),
        Binding("y", "copy", "Copy"),
        Binding("R", "refresh_runs", "Refresh", show=False),
    ]

    def __init__(self, store: Store, export_dir: Path | None = None) -> None:
        super().__init__(name="runs")
        self.store = store
        self.export_dir = export_dir
        self.marked: list[str] = []
        self.compared: tuple[list[str], list[list[str]]] | None = None

    def compose(self) -> ComposeResult:
        yield Static("Runs", classes="screen-title")
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("Comparison (c)", classes="section-title")
        yield DataTable(id="runs-compare", cursor_type="none")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_runs()
        self.query_one("#runs-table", DataTable).focus()

    def action_refresh_runs(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        table.clear(columns=True)
        table.add_columns(" ", "run", "status", "model", "backend", "completions")
        for run in self.store.runs():
            summary = self.store.run_summary(run["id"])
            config = run["config"]
            table.add_row("●" if run["id"] in self.marked else " ", run["id"], run["status"], str(config.get("model", "-")),
                          str(config.get("backend", "-")), str(summary["completions"]), key=run["id"])

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

    def action_compare(self) -> None:
        run_ids = self.marked or [r["id"] for r in self.store.runs()]
        header, rows = self.compared = compare_table(self.store, run_ids)
        table = self.query_one("#runs-compare", DataTable)
        table.clear(columns=True)
        table.add_columns(*header)
        table.add_rows(rows)

    def action_export(self) -> None:
        if self.compared is None:
            self.action_compare()
        assert self.compared is not None
        folder = self.export_dir or data_dir() / "exports"
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, fn in (("compare.jsonl", to_jsonl), ("compare.csv", to_csv), ("compare.md", to_markdown)):
            path = folder / name
            path.write_text(fn(*self.compared), encoding="utf-8")
            written.append(str(path))
        self.notify("Exported " + ", ".join(written), title="Export")

    def action_copy(self) -> None:
        if self.compared is None:
            self.action_compare()
        assert self.compared is not None
        self.app.copy_to_clipboard(to_markdown(*self.compared))
        self.notify("Comparison copied to the clipboard (OSC 52)", title="Copy")
