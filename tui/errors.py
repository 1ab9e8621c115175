"""Worker errors become notifications, never a crash (Harlequin's one handler). Textual posts
`Worker.StateChanged` to the node that ran the worker and does not bubble it, so every screen
and widget that runs workers mixes this in to hand failures to the app's one handler."""

from __future__ import annotations

from textual.worker import Worker, WorkerState


def notify_worker_error(event: Worker.StateChanged) -> None:
    worker = event.worker
    if event.state == WorkerState.ERROR and worker.error is not None:
        error = worker.error
        worker.node.app.notify(f"{type(error).__name__}: {error}", title=worker.name or "worker", severity="error",
                               timeout=10)


class WorkerErrors:
    """Mixin for screens and widgets: route their workers' errors to `notify_worker_error`."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        notify_worker_error(event)
