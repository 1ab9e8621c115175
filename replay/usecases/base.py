"""What every use case shares: how a store failure is reported, and how a task talks back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from replay.store import Store
from replay.store.db import store_fault

Say = Callable[[str], None]  # a note for the user: stderr in the CLI, a notification in the TUI


def quiet(_: str) -> None:
    """The `say` of a caller that wants no notes."""


def store_failure(store: Store, exc: BaseException) -> BaseException:
    """The error a command reports for `exc`: an SQLite failure that escaped the store's own
    calls (a cursor read while walking the store) becomes the store's one-line StoreError."""
    return store_fault(store.path, exc) if isinstance(exc, sqlite3.Error) else exc
