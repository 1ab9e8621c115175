"""What every use case shares: how the store is opened, and how a task talks back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from replay.store import Store, StoreError
from replay.store.db import store_fault

Say = Callable[[str], None]  # a note for the user: stderr in the CLI, a notification in the TUI


def quiet(_: str) -> None:
    """The `say` of a caller that wants no notes."""


def open_store(path: str | Path | None = None) -> Store:
    """The store at `path` (None: $FIMREPLAY_DB, else the user data dir's). A file that cannot
    be opened or is not a store is a StoreError naming it, whatever SQLite or the OS said."""
    from replay.paths import default_db

    where = Path(path) if path else default_db()
    try:
        return Store(where)
    except StoreError:
        raise
    except sqlite3.Error as exc:
        raise store_fault(where, exc) from None
    except OSError as exc:
        raise StoreError(f"{where}: the store cannot be opened ({exc.strerror or exc}): give another --db") from None


def store_failure(store: Store, exc: BaseException) -> BaseException:
    """The error a command reports for `exc`: an SQLite failure that escaped the store's own
    calls (a cursor read while walking the store) becomes the store's one-line StoreError."""
    return store_fault(store.path, exc) if isinstance(exc, sqlite3.Error) else exc
