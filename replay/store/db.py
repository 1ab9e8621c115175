"""The store's file: one SQLite connection in WAL mode, its lock, transactions, and the runner
of the schema's migrations.

WAL lets the TUI read while `fimreplay watch` or a run writes. The schema has a version from
the first release on; the migrations (replay.store.schema) take a store from version i to i+1
one by one. This module knows no table: the per-concern parts of the store (captures, runs,
cache) build on it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from replay.errors import FimreplayError, UsageError, WorkError, first_line

Migration = str | Callable[[sqlite3.Connection], None]  # SQL script, or a step that also moves data


class StoreError(FimreplayError):
    """The store file cannot be used: one line naming the file and what to do. Raised as one of
    its two kinds, which give the exit code."""


class BadStore(StoreError, UsageError):
    """The store given cannot serve: not a fimreplay store, damaged, a folder, read-only, a newer
    schema, a bad lock wait."""


class StoreFailed(StoreError, WorkError):
    """The store is fine but the work on it failed: a full or failing disk, another writer
    holding it past the lock wait."""


def store_fault(path: Path, exc: sqlite3.Error, other: str | None = None) -> StoreError:
    """What a failed SQLite call on the store at `path` means for the user, as one line.

    SQLite's own error codes (sqlite3.Error.sqlite_errorname, Python 3.11) tell the faults apart:
    a file that is not a database (NOTADB), a damaged or cut one (CORRUPT), one that cannot be
    written (READONLY, CANTOPEN, PERM), a full disk (FULL), another writer holding it (BUSY,
    LOCKED). The first four are the store given (BadStore, exit 2); a full or failing disk and
    another writer stop the work (StoreFailed, exit 1). A failed write is rolled back by SQLite,
    so what was stored before stays. `other` is the message for any other failure (default: the
    store cannot be used, and why)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    kind: type[StoreError] = BadStore
    if name.startswith("SQLITE_NOTADB") or "not a database" in text:
        hint = "is not a fimreplay store (not an SQLite database): give another --db, or move the file away"
    elif name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        hint = "is damaged or truncated: restore it from a copy, or give another --db (a new file starts a new store)"
    elif name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")) or "readonly" in text:
        hint = "cannot be written (read-only file, folder or file system): make it writable or give another --db"
    elif name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        hint = "cannot be opened: check that its folder exists and is writable, or give another --db"
    elif name.startswith("SQLITE_FULL") or "disk is full" in text:
        kind, hint = StoreFailed, ("cannot grow: the disk is full; free space (nothing stored before is lost) and run "
                                   "the command again")
    elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        kind, hint = StoreFailed, "is locked by another program writing to it: wait for it to finish, or give another --db"
    elif name.startswith("SQLITE_IOERR") or "I/O error" in text:
        kind, hint = StoreFailed, ("could not be read or written (I/O error: a full or failing disk?): check the disk and "
                                   "run the command again")
    else:
        return BadStore(other or f"{path}: the store cannot be used ({text}): give another --db")
    return kind(f"{path}: the store {hint}")


def lock_wait_ms() -> int:
    """How long a command waits for another one writing to the store, in milliseconds."""
    try:
        return max(0, int(float(os.environ.get("FIMREPLAY_LOCK_WAIT", "10")) * 1000))
    except ValueError:
        raise BadStore(f"FIMREPLAY_LOCK_WAIT={os.environ['FIMREPLAY_LOCK_WAIT']!r} is not a number of seconds") from None


class Database:
    """A connection to one store file. Thread-safe: one lock around one connection."""

    def __init__(self, path: str | Path, migrations: Sequence[Migration] = ()) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise BadStore(f"{self.path}: the store is a folder, not a file: give a file path as --db")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BadStore(f"{self.path}: the store's folder cannot be made ({exc.strerror}): give another --db") from None
        self._lock = threading.RLock()
        self.skipped: list[str] = []  # rows read but unusable (tampered, foreign): named, left out
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                       timeout=lock_wait_ms() / 1000)
        except sqlite3.Error as exc:
            raise store_fault(self.path, exc) from None
        try:
            self._open(migrations)
        except sqlite3.Error as exc:
            self._db.close()
            raise store_fault(self.path, exc) from None
        except BaseException:
            self._db.close()
            raise

    def _open(self, migrations: Sequence[Migration]) -> None:
        """Settings of the connection, then the schema brought up to date."""
        # 8 KiB pages (a new store only; SQLite's default is 4 KiB): fewer b-tree splits and WAL
        # frames per record, and an import ran about 10% faster on the import bench.
        # Wait for another writer first (a store opened by two commands at once), up to
        # $FIMREPLAY_LOCK_WAIT seconds (10 by default); then the store is reported locked.
        self._db.execute(f"PRAGMA busy_timeout={lock_wait_ms()}")
        self._db.execute("PRAGMA page_size=8192")
        self._journal_wal()
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Hash-keyed unique indexes take inserts at random places: a 64 MiB page cache keeps an
        # import of a few hundred thousand records from re-reading index pages from the OS.
        self._db.execute("PRAGMA cache_size=-65536")
        # Checkpoint the WAL every 64 MiB instead of SQLite's 4 MiB: an import rewrites the same
        # index pages batch after batch, and each checkpoint copies (and syncs) them once more.
        self._db.execute("PRAGMA wal_autocheckpoint=16384")
        self._migrate(migrations)

    def _journal_wal(self) -> None:
        """Put the store in WAL mode. Switching a new store's journal takes an exclusive lock,
        and SQLite answers a second command racing for it with "database is locked" at once,
        without calling its busy handler: the switch is tried again until the lock wait ends."""
        deadline = time.monotonic() + lock_wait_ms() / 1000
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    # -- schema -------------------------------------------------------------------------
    def _migrate(self, migrations: Sequence[Migration]) -> None:
        """Apply `migrations[version:]`, each in its own transaction: a failed step leaves the
        store at the version before it.

        The version is read again inside each step's write transaction: two commands opening a
        new store at once both see version 0 before either writes, and the second must find the
        first one's tables made rather than make them again."""
        latest = len(migrations)
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > latest:
                raise BadStore(f"{self.path}: schema version {version} is newer than this fimreplay ({latest}): "
                                 "upgrade fimreplay or give another --db")
            while version < latest:
                self._db.execute("BEGIN IMMEDIATE")
                target = self._db.execute("PRAGMA user_version").fetchone()[0]
                if target >= latest:
                    self._db.execute("COMMIT")
                    break
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
                    self._rollback()
                    raise store_fault(self.path, exc, f"{self.path}: cannot migrate the store from schema {target} to "
                                                      f"{target + 1}: {exc}") from None
                except BaseException:
                    self._rollback()
                    raise
                version = target + 1

    def _rollback(self) -> None:
        """Roll back the open transaction, if SQLite has not already (a full disk may have)."""
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the connection is unusable; SQLite restores the file from its journal on next open

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

    def query(self, sql: str, params: Sequence[Any] = (), named: bool = True) -> list[Any]:
        """The rows of a statement: sqlite3.Row (columns by name too), or plain tuples with
        `named=False`, for reads of a whole run (a Row per row costs more than the row)."""
        with self._lock:
            try:
                cur = self._db.execute(sql, params)
                if named:
                    cur.row_factory = sqlite3.Row
                return cur.fetchall()
            except sqlite3.Error as exc:
                raise store_fault(self.path, exc) from None

    def skip_row(self, where: str, exc: Exception) -> None:
        """Note a stored row that cannot be read (edited by hand, written by another program):
        the reader leaves it out and goes on; the command names it (`skipped`)."""
        note = f"{self.path}: {where} is unreadable ({first_line(exc)}): skipped"
        with self._lock:
            if note not in self.skipped:
                self.skipped.append(note)

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
            try:
                self.store._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                self.store._lock.release()
                raise store_fault(self.store.path, exc) from None
            self.outer = True

    def __exit__(self, exc_type: object, exc: object, _tb: object) -> None:
        """Commit, or roll back on an error; an SQLite failure (full disk, lock, damage) of the
        body or the commit becomes the store's one-line StoreError, with nothing half-written."""
        try:
            if self.outer:
                if exc_type is None:
                    try:
                        self.store._db.execute("COMMIT")
                    except sqlite3.Error as failed:
                        self.store._rollback()
                        raise store_fault(self.store.path, failed) from None
                else:
                    self.store._rollback()
            if isinstance(exc, sqlite3.Error):
                raise store_fault(self.store.path, exc) from None
        finally:
            self.store._lock.release()


def split_sql(script: str) -> list[str]:
    """The statements of a migration script (none of them holds a `;` of its own)."""
    return [s.strip() for s in script.split(";") if s.strip()]
