"""The compiles metric's results: a compiler's errors of each source, kept by content hash in
a file of their own (`<data dir>/compiles.sqlite`), so that a source is compiled once."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

CompilerErrors = frozenset[tuple[str, str, str]]  # (type, code, message) of each error


class CompilerResults:
    """The results file: the errors of each source, under a key naming the compiler and the source."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, errors TEXT NOT NULL)")

    def get(self, key: str) -> CompilerErrors | None:
        """The errors kept under `key` (None: never compiled)."""
        row = self._db.execute("SELECT errors FROM results WHERE key = ?", (key,)).fetchone()
        return None if row is None else frozenset(tuple(e) for e in json.loads(row[0]))

    def put(self, key: str, errors: Iterable[tuple[str, str, str]]) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?)", (key, json.dumps(sorted(errors))))

    def close(self) -> None:
        self._db.close()
