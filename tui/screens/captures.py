"""The Captures screen: the live, virtual table of every imported capture."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from replay.store import Store
from tui.widgets.capture_table import CaptureTable
from tui.errors import WorkerErrors


class CapturesScreen(WorkerErrors, Screen):
    """Filter as you type (`/`, or just type), sort (`s`, `r`), open a capture (Enter), audit
    it (`a`)."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter"),
        Binding("escape", "focus_table", "Table", show=False),
        Binding("a", "audit", "Audit"),
    ]

    def __init__(self, store: Store) -> None:
        super().__init__(name="captures")
        self.store = store

    def compose(self) -> ComposeResult:
        with Horizontal(id="captures-bar"):
            yield Static("Captures", id="captures-title", classes="screen-title")
            # No select-all on focus: it lands after a key typed right after `/` and eats it.
            yield Input(placeholder="filter: editor, model, file, outcome", id="captures-filter", select_on_focus=False)
        yield CaptureTable(self.store, id="captures-table")
        yield Static("", id="captures-status", classes="status")
        yield Footer()

    @property
    def table(self) -> CaptureTable:
        return self.query_one(CaptureTable)

    def on_mount(self) -> None:
        self.table.tokenizer_spec = self.app.tokenizer_spec
        self.table.focus()
        self.table.reload()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.table.set_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.table.focus()

    def on_capture_table_counted(self, message: CaptureTable.Counted) -> None:
        self.update_status()

    def on_capture_table_no_tokenizer(self, message: CaptureTable.NoTokenizer) -> None:
        self.update_status()

    def update_status(self) -> None:
        table = self.table
        order = "descending" if table.descending else "ascending"
        shown = f"{table.count:,} captures" + (f" matching {table.text!r}" if table.text else "")
        status = f"{shown} · sorted by {table.sort} ({order})"
        if table.no_tokenizer:
            n = len(table.no_tokenizer)
            status += f" · {n} not tokenized: no known model (--tokenizer SPEC)"
        self.query_one("#captures-status", Static).update(status)

    def action_focus_filter(self) -> None:
        """Focus at once (Widget.focus defers it), so that a key typed right after `/` lands in
        the filter instead of the table."""
        self.set_focus(self.query_one(Input))

    def action_focus_table(self) -> None:
        self.table.focus()

    def action_audit(self) -> None:
        row = self.table.selected
        if row is not None:
            self.app.open_audit(row.id)

    def on_capture_table_type_ahead(self, message: CaptureTable.TypeAhead) -> None:
        field = self.query_one(Input)
        field.insert_text_at_cursor(message.character)
        self.set_focus(field)

    def on_capture_table_selected(self, message: CaptureTable.Selected) -> None:
        self.app.open_item(message.capture_id)

    def store_changed(self) -> None:
        """A commit reached the app: the table reloads. Not yet mounted (a Screen counts as mounted
        before its widgets are), it has nothing to reload: it reads the store when it mounts."""
        for table in self.query(CaptureTable):
            table.reload()
