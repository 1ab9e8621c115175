"""The Acceptance screen: how often what the editors showed was accepted and kept, by editor,
release, language or model, and which score of the shown text against what the user typed
predicts acceptance (AUC with its interval). The numbers are `fimreplay report --acceptance`'s
(replay.usecases.acceptance); this screen lays them out."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from replay.store import Store
from replay.usecases.acceptance import GROUPS, AcceptanceReport, acceptance_report
from tui.errors import WorkerErrors


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def group_rows(data: dict[str, Any], key: str) -> list[tuple[str, ...]]:
    """One row per value of `key`: shown, accepted, acceptance, retained / known, retention, characters."""
    return [(str(r[key]), str(r["shown"]), str(r["accepted"]), _pct(r["acceptance"]), f"{r['retained']} / {r['retention_known']}",
             _pct(r["retention"]), f"{r['retained_chars']} / {r['accepted_chars']}") for r in data["by"][key]]


def predictor_rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per metric: captures it is of, accepted among them, AUC, its 95% interval."""
    out = []
    for p in data["predictors"]:
        ci = p["ci95"]
        out.append((p["metric"], str(p["n"]), str(p["n_accepted"]), "-" if p["auc"] is None else f"{p['auc']:.3f}",
                    "-" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"))
    return out


class AcceptanceScreen(WorkerErrors, Screen):
    """`g` groups by the next of editor, release, language, model; `r` reads the store again.
    Scoring the shown texts against the typed references runs in a worker, which posts
    `Computing` then `Computed` (or `Nothing`, with the reason, when no log holds an outcome)."""

    BINDINGS = [Binding("g", "next_group", "Group by"), Binding("r", "compute", "Refresh")]

    class Computing(Message):
        """The worker started reading and scoring the captures with a logged outcome."""

    class Computed(Message):
        def __init__(self, report: AcceptanceReport) -> None:
            self.report = report
            super().__init__()

    class Nothing(Message):
        def __init__(self, why: str) -> None:
            self.why = why
            super().__init__()

    def __init__(self, store: Store) -> None:
        super().__init__(name="acceptance")
        self.store = store
        self.group = GROUPS[0]
        self.report: AcceptanceReport | None = None

    def compose(self) -> ComposeResult:
        yield Static("Acceptance", classes="screen-title")
        yield Static("", id="acceptance-summary")
        yield Static(f"By {self.group} (g)", id="acceptance-by-title", classes="section-title")
        yield DataTable(id="acceptance-by", cursor_type="row", zebra_stripes=True)
        yield Static("Which score predicts acceptance (AUC, 95% interval)", classes="section-title")
        yield DataTable(id="acceptance-predictors", cursor_type="none")
        yield Footer()

    def on_mount(self) -> None:
        self.action_compute()

    def action_compute(self) -> None:
        self.query_one("#acceptance-summary", Static).update("Scoring the shown completions against what was typed…")
        self.compute()

    @work(thread=True, exclusive=True, group="acceptance", exit_on_error=False)
    def compute(self) -> None:
        """Scoring every shown text (CodeBLEU among them) takes a while: a worker."""
        self.post_message(self.Computing())
        report = acceptance_report(self.store, workers=1)
        why = report.nothing_scored
        self.post_message(self.Nothing(why) if why else self.Computed(report))

    def on_acceptance_screen_nothing(self, message: Nothing) -> None:
        self.report = None
        self.query_one("#acceptance-summary", Static).update(message.why[0].upper() + message.why[1:] + ".")
        for table in self.query(DataTable):
            table.clear(columns=True)

    def on_acceptance_screen_computed(self, message: Computed) -> None:
        self.report = message.report
        data = message.report.data
        self.query_one("#acceptance-summary", Static).update(
            f"{data['n_shown']} completions shown with a logged outcome, {data['n_accepted']} accepted; "
            f"{data['n_with_typed_reference']} with a typed reference (the scores are of the shown text against it).")
        self._fill_groups()
        table = self.query_one("#acceptance-predictors", DataTable)
        table.clear(columns=True)
        table.add_columns("metric", "captures", "accepted", "AUC", "95% interval")
        table.add_rows(predictor_rows(data))

    def _fill_groups(self) -> None:
        self.query_one("#acceptance-by-title", Static).update(f"By {self.group} (g)")
        if self.report is None:
            return
        table = self.query_one("#acceptance-by", DataTable)
        table.clear(columns=True)
        table.add_columns(self.group, "shown", "accepted", "acceptance", "retained / known", "retention", "retained chars")
        table.add_rows(group_rows(self.report.data, self.group))

    def action_next_group(self) -> None:
        self.group = GROUPS[(GROUPS.index(self.group) + 1) % len(GROUPS)]
        self._fill_groups()
