"""The recorder: one thread that turns finished exchanges into captures and writes them, so
that the event loop forwarding the editor's requests never waits on SQLite.

The forwarding path hands each finished exchange over with `put` (a lock-free queue append);
the thread takes what has queued up, converts it (replay.proxy.exchange) and commits it in one
transaction. `close()` drains the queue before it returns: stopping the proxy (Ctrl-C, SIGTERM)
loses no exchange that finished.

One exchange never costs another: each is converted and encoded for the store on its own, so a
body that cannot be recorded (replay.proxy.exchange: not JSON, not UTF-8, no API's) or a field
the store cannot keep becomes that exchange's reject, one line in the rejects file naming the
request, and the others of the batch are written. A store that cannot be written now (another
program holding it past the lock wait, a full disk) keeps the batch: it is said in one line,
once, and written again until it goes in (at `close()`, for as long as one more lock wait).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from replay.proxy.exchange import DEFAULT_MAX_BODY, Exchange, Recorded, scrub, to_recorded
from replay.records import CaptureRecord, OutcomeEvent
from replay.rejects import Reject, Rejects
from replay.secrets import scrub_text
from replay.store import Store, StoredCapture, StoreError, stored_capture
from replay.store.db import lock_wait_ms

OnRecorded = Callable[[int, CaptureRecord | OutcomeEvent], None]
_STOP = object()
BATCH = 256
RETRY_S = 1.0  # between two tries of a store that could not be written


class Recorder(threading.Thread):
    """Writes exchanges into the store at `store_path` on its own connection. `on_recorded(id,
    record)` is called on this thread after each commit (the capture's store id; 0 for an
    outcome event); `rejects` receives the exchanges whose body cannot be recorded."""

    def __init__(self, store_path: str | Path, source_name: str, editor: str | None = None,
                 max_body: int = DEFAULT_MAX_BODY, on_recorded: OnRecorded | None = None,
                 on_error: Callable[[str], None] | None = None, rejects: Rejects | None = None,
                 editor_version: str | None = None) -> None:
        super().__init__(name="fimreplay-proxy-recorder", daemon=True)
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._store = Store(store_path)
        self.source_name = source_name
        self.editor, self.editor_version = editor, editor_version  # `proxy --editor NAME[@VERSION]`
        self.max_body = max_body
        self.on_recorded = on_recorded
        self.on_error = on_error
        self.rejects = rejects if rejects is not None else Rejects()
        self.captures = 0
        self.events = 0
        self.unwritten = 0  # exchanges the store could not take before the proxy stopped
        self._fault: str | None = None

    def put(self, exchange: Exchange) -> None:
        self._queue.put(exchange)

    def run(self) -> None:
        try:
            stopping = False
            pending: list[tuple[StoredCapture, CaptureRecord]] = []
            events: list[OutcomeEvent] = []
            while not stopping:
                batch = [self._queue.get()] if not pending and not events else self._waiting()
                while len(batch) < BATCH:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                stopping = any(item is _STOP for item in batch)
                for item in batch:
                    if isinstance(item, Exchange):
                        self._convert(item, pending, events)
                if self._commit(pending, events, last=stopping):
                    pending, events = [], []
            if pending or events:
                self.unwritten = len(pending) + len(events)
                self._error(f"{self.unwritten} exchanges were forwarded but not recorded: {self._fault}")
        finally:
            self._store.close()
            self.rejects.close()

    def _waiting(self) -> list[object]:
        """What queued up while a batch waits for the store, after one pause (not a busy loop)."""
        try:
            return [self._queue.get(timeout=RETRY_S)]
        except queue.Empty:
            return []

    def _convert(self, ex: Exchange, pending: list[tuple[StoredCapture, CaptureRecord]], events: list[OutcomeEvent]) -> None:
        """One exchange into the batch: its capture encoded as the store keeps it, its event, or
        its reject."""
        recorded = Recorded()
        try:
            recorded = to_recorded(ex, self.source_name, self.editor, self.max_body, self.editor_version)
            if recorded.capture is not None:
                pending.append((stored_capture(recorded.capture), recorded.capture))
            elif recorded.event is not None:
                events.append(recorded.event)
            elif recorded.reject is not None:
                self._reject(ex, recorded.reject, recorded.credentials)
        except Exception as exc:  # noqa: BLE001 - whatever one odd exchange raises is its reject alone
            self._reject(ex, f"cannot be recorded: {str(exc).splitlines()[0] if str(exc) else 'no detail'}",
                         recorded.credentials)

    def _reject(self, ex: Exchange, reason: str, creds: tuple[str, ...]) -> None:
        """The exchange's reject: `proxy:UPSTREAM/ROUTE:N` (N: the request's number), why, and
        its body as sent, credentials out (the rejects file scrubs the rest)."""
        raw = scrub(ex.body[:1 << 16].decode("utf-8", errors="backslashreplace"), creds)
        self.rejects.add(Reject.at(f"{self.source_name}{ex.route}", ex.number, scrub(reason, creds), raw,
                                   length=len(ex.body)))

    def _commit(self, pending: list[tuple[StoredCapture, CaptureRecord]], events: list[OutcomeEvent], last: bool) -> bool:
        """Write the batch in one transaction; False when the store cannot be written now (said
        once until a write succeeds). The last batch is tried for one more lock wait."""
        if not pending and not events:
            return True
        deadline = time.monotonic() + (lock_wait_ms() / 1000 if last else 0)
        while True:
            try:
                with self._store.transaction():
                    if events:
                        self._store.add_outcome_events(events)
                    ids = self._store.add_captures_with_ids([row for row, _ in pending])
                break
            except StoreError as exc:  # locked past the lock wait, a full disk, a damaged file
                if str(exc) != self._fault:
                    self._error(f"{exc} (the proxy keeps forwarding; what it recorded is written once the store can be)")
                self._fault = str(exc)
                if time.monotonic() >= deadline:
                    return False
                time.sleep(RETRY_S)
        self._fault = None
        self.captures += len(pending)
        self.events += len(events)
        if self.on_recorded is not None:
            for cid, (_, rec) in zip(ids, pending):
                self.on_recorded(cid, rec)
            for ev in events:
                self.on_recorded(0, ev)
        return True

    def _error(self, text: str) -> None:
        if self.on_error is not None:
            self.on_error(scrub_text(text))

    def close(self) -> None:
        """Write everything queued, then stop the thread."""
        self._queue.put(_STOP)
        self.join()
