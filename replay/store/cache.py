"""What spares work the next time: the completion cache (a prompt already completed with the
same backend and parameters is not sent again) and the watch offsets (where `fimreplay watch`
stopped reading each log, so that a restart reads on from there)."""

from __future__ import annotations

from typing import NamedTuple

import msgspec

from replay.records import Completion
from replay.store.db import Database
from replay.store.runs import scrubbed


class WatchOffset(NamedTuple):
    """Where the watcher stopped in one file: the file's inode, the byte offset and line number
    read up to, and `head`, bytes of the file before that offset as the watcher marked them (a
    file replaced under the same name, or rewritten in place, is read again from its start)."""

    inode: int
    offset: int
    line: int
    head: bytes


class CacheStore(Database):
    """The completion_cache and watch_offsets tables."""

    # -- completion cache -----------------------------------------------------------------
    def cache_get(self, key: str) -> Completion | None:
        """The cached completion (None: none, or an unreadable row, which is then computed again)."""
        rows = self.query("SELECT record FROM completion_cache WHERE key = ?", (key,))
        try:
            return msgspec.json.decode(rows[0]["record"], type=Completion) if rows else None
        except (msgspec.DecodeError, msgspec.ValidationError, TypeError):
            return None

    def cache_put(self, key: str, completion: Completion) -> None:
        with self.transaction():
            self._db.execute("INSERT OR REPLACE INTO completion_cache (key, record) VALUES (?,?)", (key, msgspec.json.encode(scrubbed(completion))))

    # -- watch offsets --------------------------------------------------------------------
    def get_offset(self, path: str) -> WatchOffset | None:
        """Where the watcher stopped in a watched file (None: never read)."""
        rows = self.query("SELECT inode, offset, line, head FROM watch_offsets WHERE path = ?", (path,))
        return WatchOffset(rows[0][0], rows[0][1], rows[0][2], rows[0][3]) if rows else None

    def set_offset(self, path: str, inode: int, offset: int, line: int, head: bytes) -> None:
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO watch_offsets (path, inode, offset, line, head) VALUES (?,?,?,?,?)",
                (path, inode, offset, line, head),
            )
