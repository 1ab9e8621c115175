"""The audit view: tokenizer gotcha findings of one capture or of the whole set; Enter jumps
to the finding's token in the item view."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from replay.store import Store
from tui.errors import WorkerErrors


class AuditScreen(WorkerErrors, Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("enter", "jump", "Go to token")]

    class Findings(Message):
        def __init__(self, rows: list[tuple[int, int | None, str, str]]) -> None:
            self.rows = rows  # (capture id, token index, kind, message)
            super().__init__()

    def __init__(self, store: Store, capture_id: int | None) -> None:
        super().__init__(name="audit")
        self.store = store
        self.capture_id = capture_id
        self.rows: list[tuple[int, int | None, str, str]] = []

    def compose(self) -> ComposeResult:
        scope = f"capture {self.capture_id}" if self.capture_id is not None else "all captures"
        yield Static(f"Audit: {scope}", classes="screen-title")
        yield DataTable(id="audit-table", cursor_type="row", zebra_stripes=True)
        yield Static("auditing…", id="audit-status", classes="status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("capture", "token", "finding", "detail")
        table.focus()
        self.audit()

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False)
    def audit(self) -> None:
        from replay.tokens.audit import audit_capture

        where, params = ("id = ?", (self.capture_id,)) if self.capture_id is not None else ("", ())
        rows: list[tuple[int, int | None, str, str]] = []
        for capture_id, capture, _ in self.store.captures(where, params):
            for finding in audit_capture(capture, self.app.tokenizer_spec):
                rows.append((capture_id, _attr(finding, "token_index"), _attr(finding, "kind"), _attr(finding, "message")))
        self.post_message(self.Findings(rows))

    def on_audit_screen_findings(self, message: Findings) -> None:
        self.rows = message.rows
        table = self.query_one(DataTable)
        for capture_id, token, kind, detail in message.rows:
            table.add_row(str(capture_id), "-" if token is None else str(token), kind, detail)
        self.query_one("#audit-status", Static).update(f"{len(message.rows)} findings")

    def action_jump(self) -> None:
        table = self.query_one(DataTable)
        if self.rows:
            capture_id, token, _, _ = self.rows[table.cursor_row]
            from tui.screens.item import ItemScreen

            self.app.push_screen(ItemScreen(self.store, capture_id, marked_token=token))


def _attr(finding: Any, name: str) -> Any:
    return finding.get(name) if isinstance(finding, dict) else getattr(finding, name, None)
