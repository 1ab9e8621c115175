"""Worker errors become notifications, never a crash (Harlequin's one handler). Textual posts
`Worker.StateChanged` to the node that ran the worker and does not bubble it, so every screen
and widget that runs workers mixes this in to hand failures to the app's one handler."""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from replay.errors import one_line


def notify_worker_error(event: Worker.StateChanged) -> None:
    """One line, as the command line would say it: fimreplay's own errors by their message,
    anything else with its type."""
    worker = event.worker
    if event.state == WorkerState.ERROR and worker.error is not None:
        worker.node.app.notify(one_line(worker.error), title=worker.name or "worker", severity="error", timeout=10)


class WorkerErrors:
    """Mixin for screens and widgets: route their workers' errors to `notify_worker_error`."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        notify_worker_error(event)
