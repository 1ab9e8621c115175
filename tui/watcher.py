"""The store watcher thread (Toolong's pattern): it only polls a cheap counter and posts a
coalescing message; all reading happens in the screens' workers."""

from __future__ import annotations

import threading

from textual.app import App
from textual.message import Message

from replay.store import Store


class StoreChanged(Message):
    """Another process (e.g. `fimreplay watch`) committed to the store. Several of these waiting
    in the queue are one: a burst of 1,000 new captures causes one reload, not 1,000."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StoreChanged)


class StoreWatcher(threading.Thread):
    """Polls `PRAGMA data_version` every `interval` seconds; posts StoreChanged to the app."""

    def __init__(self, app: App, store: Store, interval: float) -> None:
        super().__init__(name="fimreplay-store-watcher", daemon=True)
        self.app = app
        self.store = store
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        last = self.store.data_version()
        while not self._stop_event.wait(self.interval):
            version = self.store.data_version()
            if version != last:
                last = version
                self.app.post_message(StoreChanged())

    def stop(self) -> None:
        self._stop_event.set()
