"""The audit view: tokenizer gotcha findings of one capture or of the whole set; Enter jumps
to the finding's token in the item view."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from replay.store import Store
from replay.usecases.inspect import audit_findings
from tui.errors import WorkerErrors


class AuditScreen(WorkerErrors, Screen):
    """Enter (or a click) on a finding opens the item view with its token underlined."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    class Findings(Message):
        def __init__(self, rows: list[tuple[int, int | None, str, str]], done: bool) -> None:
            self.rows = rows  # (capture id, token index, kind, message)
            self.done = done
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
        """Findings of the capture, or of every capture, shown as each batch is audited."""
        for rows, done in audit_findings(self.store, self.capture_id, self.app.tokenizer_spec):
            self.post_message(self.Findings([(r.capture_id, r.token, r.kind, r.message) for r in rows], done))
            if self.workers_cancelled():
                return

    def workers_cancelled(self) -> bool:
        from textual.worker import get_current_worker

        return get_current_worker().is_cancelled

    def on_audit_screen_findings(self, message: Findings) -> None:
        self.rows.extend(message.rows)
        table = self.query_one(DataTable)
        for capture_id, token, kind, detail in message.rows:
            table.add_row(str(capture_id), "-" if token is None else str(token), kind, detail)
        self.query_one("#audit-status", Static).update(f"{len(self.rows)} findings" + ("" if message.done else " so far…"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        capture_id, token, _, _ = self.rows[event.cursor_row]
        self.app.open_item(capture_id, marked_token=token)
