"""The SQLite store: captures, outcome events, benchmark items, runs, completions, scores.

One file in WAL mode, so the TUI can read while `fimreplay watch` or a run writes. The store is
one object for its callers, made of one part per group of tables:

    db        the connection, its lock and transactions, the migration runner, StoreError
    encoding  how a capture and an outcome event become rows; the line codecs
    schema    the append-only migrations
    captures  captures, outcome events, the TUI's captures listing
    runs      items, runs (read as replay.reading's RunRecord), run prompts, completions, score sets, what scoring
              reads of a run (kept under stamps that the schema's triggers raise)
    references  each run input's reference: an item's middle or a capture's accepted text
    latency   a run's completions as their time is read, with the gap to each capture's next request
    cache     the completion cache, the watch offsets
    compiles  the compiles metric's compiler results (a file of their own)
    executions  the execution metric's results: how each test program ended (a file of their own)

The store imports no importer, editor or backend: a log format's importer registers how its
stored lines are decoded (LineCodec).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from replay.store.cache import CacheStore, WatchOffset
from replay.store.captures import CAPTURE_SORT_KEYS, CaptureRow, CaptureStore
from replay.store.db import BadStore, Migration, StoreError, StoreFailed, Transaction, store_fault
from replay.store.encoding import (
    EventRow,
    LineCodec,
    StoredCapture,
    decode_capture,
    event_row,
    line_body,
    line_codecs,
    line_digest,
    register_line_codec,
    stored_capture,
)
from replay.store.latency import LatencyStore
from replay.store.references import ReferenceStore
from replay.reading import RunRecord, ScoreSet
from replay.store.runs import RunStore
from replay.store.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "CAPTURE_SORT_KEYS", "MIGRATIONS", "SCHEMA_VERSION", "BadStore", "CaptureRow", "EventRow", "LineCodec", "Migration", "RunRecord",
    "ScoreSet", "Store", "StoreError", "StoreFailed", "StoredCapture", "Transaction", "WatchOffset", "decode_capture", "event_row",
    "line_body", "line_codecs", "line_digest", "open_store", "register_line_codec", "stored_capture",
]


class Store(CaptureStore, RunStore, ReferenceStore, LatencyStore, CacheStore):
    """A connection to one store file, migrated to this fimreplay's schema on opening.
    Thread-safe: one lock around one connection."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, MIGRATIONS)


def open_store(path: str | Path | None = None) -> Store:
    """The store at `path` (None: $FIMREPLAY_DB, else the user data dir's: replay.paths.default_db).
    A file that cannot be opened or is not a store is a StoreError naming it, whatever SQLite or
    the OS said."""
    from replay.paths import default_db

    where = Path(path) if path else default_db()
    try:
        return Store(where)
    except StoreError:
        raise
    except sqlite3.Error as exc:
        raise store_fault(where, exc) from None
    except OSError as exc:
        raise BadStore(f"{where}: the store cannot be opened ({exc.strerror or exc}): give another --db") from None
