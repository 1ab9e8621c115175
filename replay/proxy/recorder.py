"""The recorder: one thread that turns finished exchanges into captures and writes them, so
that the event loop forwarding the editor's requests never waits on SQLite.

The forwarding path hands each finished exchange over with `put` (a lock-free queue append);
the thread takes what has queued up, converts it (replay.proxy.exchange) and commits it in one
transaction. `close()` drains the queue before it returns: stopping the proxy (Ctrl-C, SIGTERM)
loses no exchange that finished.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path

from replay.proxy.exchange import DEFAULT_MAX_BODY, Exchange, Recorded, to_recorded
from replay.records import CaptureRecord, OutcomeEvent
from replay.secrets import scrub_text
from replay.store import Store

OnRecorded = Callable[[int, CaptureRecord | OutcomeEvent], None]
_STOP = object()
BATCH = 256


class Recorder(threading.Thread):
    """Writes exchanges into the store at `store_path` on its own connection. `on_recorded(id,
    record)` is called on this thread after each commit (the capture's store id; 0 for an
    outcome event)."""

    def __init__(self, store_path: str | Path, source_name: str, editor: str | None = None,
                 max_body: int = DEFAULT_MAX_BODY, on_recorded: OnRecorded | None = None,
                 on_error: Callable[[str], None] | None = None) -> None:
        super().__init__(name="fimreplay-proxy-recorder", daemon=True)
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._store = Store(store_path)
        self.source_name = source_name
        self.editor = editor
        self.max_body = max_body
        self.on_recorded = on_recorded
        self.on_error = on_error
        self.captures = 0
        self.events = 0

    def put(self, exchange: Exchange) -> None:
        self._queue.put(exchange)

    def run(self) -> None:
        try:
            stopping = False
            while not stopping:
                batch = [self._queue.get()]
                while len(batch) < BATCH:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                stopping = any(item is _STOP for item in batch)
                self._write([item for item in batch if isinstance(item, Exchange)])
        finally:
            self._store.close()

    def _write(self, exchanges: list[Exchange]) -> None:
        if not exchanges:
            return
        recorded: list[Recorded] = []
        for ex in exchanges:
            try:
                recorded.append(to_recorded(ex, self.source_name, self.editor, self.max_body))
            except Exception as exc:  # one odd exchange must not stop the recording of the others
                self._error(f"{ex.route}: not recorded: {type(exc).__name__}: {exc}")
        captures = [r.capture for r in recorded if r.capture is not None]
        events = [r.event for r in recorded if r.event is not None]
        try:
            if events:
                self._store.add_outcome_events(events)
            ids = self._store.add_captures_with_ids(captures)
        except Exception as exc:
            self._error(f"the store could not be written: {type(exc).__name__}: {exc}")
            return
        self.captures += len(captures)
        self.events += len(events)
        if self.on_recorded is not None:
            for cid, rec in zip(ids, captures):
                self.on_recorded(cid, rec)
            for ev in events:
                self.on_recorded(0, ev)

    def _error(self, text: str) -> None:
        if self.on_error is not None:
            self.on_error(scrub_text(text))

    def close(self) -> None:
        """Write everything queued, then stop the thread."""
        self._queue.put(_STOP)
        self.join()
