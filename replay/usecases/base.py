"""What every use case shares: how the store is opened, and how a task talks back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from replay.store import Store, StoreError

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
    except (sqlite3.DatabaseError, OSError) as exc:
        raise StoreError(f"{where}: {exc}") from exc
