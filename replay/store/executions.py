"""The execution metric's results: how each test program ended, kept by content hash in a file
of their own (`<data dir>/executions.sqlite`), so that a program is run once."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class ExecutionResults:
    """The results file: (status, detail) of each program, under a key naming the program, its
    language, its limits and how it was contained."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, status TEXT NOT NULL, detail TEXT NOT NULL)")

    def get(self, key: str) -> tuple[str, str] | None:
        """(status, detail) kept under `key` (None: never run)."""
        row = self._db.execute("SELECT status, detail FROM results WHERE key = ?", (key,)).fetchone()
        return None if row is None else (row[0], row[1])

    def put_many(self, results: list[tuple[str, str, str]]) -> None:
        """Keep (key, status, detail) rows in one transaction."""
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?)", results)

    def close(self) -> None:
        self._db.close()
