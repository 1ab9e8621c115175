"""The store's file: one SQLite connection in WAL mode, its lock, transactions, and the runner
of the schema's migrations.

WAL lets the TUI read while `fimreplay watch` or a run writes. The schema has a version from
the first release on; the migrations (replay.store.schema) take a store from version i to i+1
one by one. This module knows no table: the per-concern parts of the store (captures, runs,
cache) build on it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from replay.errors import UsageError

Migration = str | Callable[[sqlite3.Connection], None]  # SQL script, or a step that also moves data


class StoreError(UsageError):
    """The store file cannot be used (newer schema, not a fimreplay store, corrupt)."""


class Database:
    """A connection to one store file. Thread-safe: one lock around one connection."""

    def __init__(self, path: str | Path, migrations: Sequence[Migration] = ()) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        # 8 KiB pages (a new store only; SQLite's default is 4 KiB): fewer b-tree splits and WAL
        # frames per record, and an import ran about 10% faster on the import bench.
        self._db.execute("PRAGMA page_size=8192")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        # Hash-keyed unique indexes take inserts at random places: a 64 MiB page cache keeps an
        # import of a few hundred thousand records from re-reading index pages from the OS.
        self._db.execute("PRAGMA cache_size=-65536")
        # Checkpoint the WAL every 64 MiB instead of SQLite's 4 MiB: an import rewrites the same
        # index pages batch after batch, and each checkpoint copies (and syncs) them once more.
        self._db.execute("PRAGMA wal_autocheckpoint=16384")
        self._migrate(migrations)

    # -- schema -------------------------------------------------------------------------
    def _migrate(self, migrations: Sequence[Migration]) -> None:
        """Apply `migrations[version:]`, each in its own transaction: a failed step leaves the
        store at the version before it."""
        latest = len(migrations)
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > latest:
                raise StoreError(f"{self.path}: schema version {version} is newer than this fimreplay ({latest})")
            for target in range(version, latest):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    step = migrations[target]
                    if isinstance(step, str):
                        for statement in split_sql(step):
                            self._db.execute(statement)
                    else:
                        step(self._db)
                    self._db.execute(f"PRAGMA user_version={target + 1}")
                    self._db.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._db.execute("ROLLBACK")
                    raise StoreError(f"{self.path}: cannot migrate the store from schema {target} to {target + 1}: {exc}") from exc
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> Transaction:
        return Transaction(self)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cur = self._db.execute(sql, params)
            cur.row_factory = sqlite3.Row
            return cur.fetchall()

    def data_version(self) -> int:
        """Changes whenever ANOTHER connection commits (PRAGMA data_version): a cheap poll that
        tells a reader (the TUI) that `fimreplay watch` or a run wrote something."""
        with self._lock:
            return self._db.execute("PRAGMA data_version").fetchone()[0]


class Transaction:
    """Re-entrant BEGIN/COMMIT under the store's lock (nested uses join the outer one)."""

    def __init__(self, store: Database) -> None:
        self.store = store
        self.outer = False

    def __enter__(self) -> None:
        self.store._lock.acquire()
        if not self.store._db.in_transaction:
            self.store._db.execute("BEGIN IMMEDIATE")
            self.outer = True

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            if self.outer:
                self.store._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.store._lock.release()


def split_sql(script: str) -> list[str]:
    """The statements of a migration script (none of them holds a `;` of its own)."""
    return [s.strip() for s in script.split(";") if s.strip()]
