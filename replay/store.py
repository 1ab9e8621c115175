"""The SQLite store: captures, outcome events, benchmark items, runs, completions, scores.

One file in WAL mode, so the TUI can read while `fimreplay watch` or a run writes. Every record
is kept whole as JSON (msgspec) beside the few columns that are indexed or filtered on, so the
schema does not have to follow every field of the records. The schema has a version from the
first release on; `MIGRATIONS[i]` takes a store from version i to i+1 and never changes once
released (append a new one instead).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from replay.records import CaptureRecord, Completion, FimItem, OutcomeEvent, RenderedPrompt

MIGRATIONS: list[str] = [
    # 0 -> 1: the first release.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE captures (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        completion_id TEXT,
        editor TEXT NOT NULL,
        format TEXT NOT NULL,
        model TEXT,
        language TEXT,
        filepath TEXT,
        outcome TEXT NOT NULL DEFAULT 'unknown',
        outcome_detail TEXT,
        ts REAL,
        source_file TEXT NOT NULL,
        source_line INTEGER NOT NULL,
        imported_at REAL NOT NULL
    );
    CREATE INDEX captures_completion_id ON captures(completion_id);
    CREATE TABLE capture_records (id INTEGER PRIMARY KEY REFERENCES captures(id), record BLOB NOT NULL);
    CREATE TABLE outcome_events (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        completion_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        select_kind TEXT,
        ts REAL,
        source_file TEXT NOT NULL,
        source_line INTEGER NOT NULL,
        record BLOB NOT NULL
    );
    CREATE INDEX outcome_events_completion_id ON outcome_events(completion_id);
    CREATE TABLE items (
        id TEXT PRIMARY KEY,
        file TEXT NOT NULL,
        mode TEXT NOT NULL,
        corpus_hash TEXT NOT NULL,
        record BLOB NOT NULL
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created REAL NOT NULL,
        status TEXT NOT NULL,
        config BLOB NOT NULL
    );
    CREATE TABLE completions (
        run_id TEXT NOT NULL REFERENCES runs(id),
        item_id TEXT NOT NULL,
        created REAL NOT NULL,
        record BLOB NOT NULL,
        PRIMARY KEY (run_id, item_id)
    );
    CREATE TABLE scores (
        run_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        file TEXT NOT NULL,
        metric TEXT NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (run_id, item_id, metric)
    );
    CREATE TABLE completion_cache (key TEXT PRIMARY KEY, record BLOB NOT NULL);
    CREATE TABLE watch_offsets (
        path TEXT PRIMARY KEY,
        inode INTEGER NOT NULL,
        offset INTEGER NOT NULL,
        line INTEGER NOT NULL,
        head BLOB NOT NULL
    );
    """,
    # 1 -> 2: replay runs (issue 6): the prompts a run replays, so that a run can be resumed,
    # exported as a batch and its imported results post-processed with the prompt's stop words.
    """
    CREATE TABLE run_prompts (
        run_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        record BLOB NOT NULL,
        PRIMARY KEY (run_id, item_id)
    );
    """,
    # 2 -> 3 (TUI, issue 7): indexes for sorted paging of the captures table, and the per-capture
    # prompt-token / gotcha counts computed once per tokenizer and kept (so a 100k-capture table
    # never re-tokenizes what it has shown before).
    """
    CREATE INDEX captures_sort_ts ON captures(COALESCE(ts, 0), id);
    CREATE INDEX captures_sort_editor ON captures(editor, id);
    CREATE INDEX captures_sort_model ON captures(COALESCE(model, ''), id);
    CREATE INDEX captures_sort_file ON captures(COALESCE(filepath, ''), id);
    CREATE INDEX captures_sort_outcome ON captures(outcome, id);
    CREATE TABLE capture_stats (
        capture_id INTEGER PRIMARY KEY REFERENCES captures(id),
        tokenizer TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        gotchas INTEGER NOT NULL
    );
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)

# Which event decides a capture's outcome when there are several: an accept beats a dismiss
# (Tabby logs a dismiss for the other choices too), which beats a bare view.
_OUTCOME_SQL = """
UPDATE captures SET (outcome, outcome_detail) = (
    SELECT CASE
        WHEN SUM(kind = 'select' AND select_kind = 'line') > 0 AND SUM(kind = 'select' AND COALESCE(select_kind, '') != 'line') = 0 THEN 'accepted_line'
        WHEN SUM(kind = 'select') > 0 THEN 'accepted'
        WHEN SUM(kind = 'dismiss') > 0 THEN 'dismissed'
        WHEN SUM(kind = 'view') > 0 THEN 'viewed'
        ELSE captures.outcome END,
        GROUP_CONCAT(kind, ',')
    FROM outcome_events e WHERE e.completion_id = captures.completion_id
)
WHERE editor = 'tabby' AND completion_id IN ({marks})
AND EXISTS (SELECT 1 FROM outcome_events e WHERE e.completion_id = captures.completion_id)
"""


class StoreError(Exception):
    """The store file cannot be used (newer schema, not a fimreplay store, corrupt)."""


class Store:
    """A connection to one store file. Thread-safe: one lock around one connection."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        # Hash-keyed unique indexes take inserts at random places: a 64 MiB page cache keeps an
        # import of a few hundred thousand records from re-reading index pages from the OS.
        self._db.execute("PRAGMA cache_size=-65536")
        self._migrate()

    # -- schema -------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {version} is newer than this fimreplay ({SCHEMA_VERSION})")
            for target in range(version, SCHEMA_VERSION):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in _split_sql(MIGRATIONS[target]):
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version={target + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> _Tx:
        return _Tx(self)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            cur = self._db.execute(sql, params)
            cur.row_factory = sqlite3.Row
            return cur.fetchall()

    # -- captures -----------------------------------------------------------------------
    def add_captures(self, records: Iterable[CaptureRecord]) -> tuple[int, int]:
        """Insert captures; return (new, duplicates). Outcomes already stored are applied."""
        new = dup = 0
        ids: list[str] = []
        now = time.time()
        with self.transaction():
            for rec in records:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO captures (hash, completion_id, editor, format, model, language, filepath,"
                    " outcome, outcome_detail, ts, source_file, source_line, imported_at)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        rec.content_hash(), rec.completion_id, rec.editor, rec.format, rec.model, rec.language,
                        rec.filepath, rec.outcome, rec.outcome_detail, rec.ts, rec.source.file, rec.source.line, now,
                    ),
                )
                if cur.rowcount:
                    new += 1
                    # The record lives in its own table so that the captures row stays small:
                    # joining outcome events (now or when they arrive later) rewrites that row only.
                    self._db.execute("INSERT INTO capture_records (id, record) VALUES (?,?)",
                                     (cur.lastrowid, msgspec.json.encode(rec)))
                    if rec.completion_id:
                        ids.append(rec.completion_id)
                else:
                    dup += 1
            self._apply_outcomes(ids)
        return new, dup

    def add_outcome_events(self, events: Iterable[OutcomeEvent]) -> tuple[int, int]:
        """Insert view/select/dismiss events; return (new, duplicates). Joined by completion_id,
        whether the completion is stored already or arrives later (the next day's file)."""
        new = dup = 0
        ids: list[str] = []
        with self.transaction():
            for ev in events:
                body = msgspec.json.encode(ev)
                # Identity without the source (file, line, offset): the same event line read
                # again after its file was rewritten, or copied to another file, is one event.
                key = msgspec.json.encode((ev.completion_id, ev.kind, ev.choice_index, ev.select_kind, ev.view_id,
                                           ev.elapsed, ev.ts))
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO outcome_events (hash, completion_id, kind, select_kind, ts, source_file,"
                    " source_line, record) VALUES (?,?,?,?,?,?,?,?)",
                    (hashlib.sha256(key).hexdigest(), ev.completion_id, ev.kind, ev.select_kind, ev.ts,
                     ev.source.file, ev.source.line, body),
                )
                if cur.rowcount:
                    new += 1
                    ids.append(ev.completion_id)
                else:
                    dup += 1
            self._apply_outcomes(ids)
        return new, dup

    def _apply_outcomes(self, completion_ids: list[str]) -> None:
        for start in range(0, len(completion_ids), 500):
            chunk = list(dict.fromkeys(completion_ids[start : start + 500]))
            self._db.execute(_OUTCOME_SQL.format(marks=",".join("?" * len(chunk))), chunk)

    def count_captures(self) -> int:
        return self.query("SELECT COUNT(*) FROM captures")[0][0]

    def captures(self, where: str = "", params: Sequence[Any] = (), limit: int | None = None, offset: int = 0) -> Iterator[tuple[int, CaptureRecord, str]]:
        """Yield (id, record, outcome) in import order; the outcome column is the joined one."""
        sql = "SELECT id, record, outcome, outcome_detail FROM captures JOIN capture_records USING (id)"
        if where:
            sql += f" WHERE {where}"
        sql += " ORDER BY id"
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        for row in self.query(sql, params):
            rec = msgspec.json.decode(row["record"], type=CaptureRecord)
            yield row["id"], msgspec.structs.replace(rec, outcome=row["outcome"], outcome_detail=row["outcome_detail"]), row["outcome"]

    def capture(self, capture_id: int) -> CaptureRecord | None:
        for _, rec, _ in self.captures("id = ?", (capture_id,)):
            return rec
        return None

    # -- benchmark items ----------------------------------------------------------------
    def add_items(self, items: Iterable[FimItem]) -> tuple[int, int]:
        new = dup = 0
        with self.transaction():
            for item in items:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO items (id, file, mode, corpus_hash, record) VALUES (?,?,?,?,?)",
                    (item.id, item.file, item.mode, item.corpus_hash, msgspec.json.encode(item)),
                )
                new += cur.rowcount
                dup += 1 - cur.rowcount
        return new, dup

    def items(self, ids: Sequence[str] | None = None) -> list[FimItem]:
        if ids is None:
            rows = self.query("SELECT record FROM items ORDER BY rowid")
        else:
            rows = [r for i in ids for r in self.query("SELECT record FROM items WHERE id = ?", (i,))]
        return [msgspec.json.decode(r["record"], type=FimItem) for r in rows]

    # -- runs, completions, scores ------------------------------------------------------
    def create_run(self, run_id: str, config: dict[str, Any]) -> None:
        with self.transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO runs (id, created, status, config) VALUES (?,?,?,?)",
                (run_id, time.time(), "running", msgspec.json.encode(config)),
            )

    def set_run_status(self, run_id: str, status: str) -> None:
        with self.transaction():
            self._db.execute("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))

    def runs(self) -> list[dict[str, Any]]:
        return [
            {"id": r["id"], "created": r["created"], "status": r["status"], "config": msgspec.json.decode(r["config"])}
            for r in self.query("SELECT * FROM runs ORDER BY created")
        ]

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = self.query("SELECT * FROM runs WHERE id = ?", (run_id,))
        if not rows:
            return None
        r = rows[0]
        return {"id": r["id"], "created": r["created"], "status": r["status"], "config": msgspec.json.decode(r["config"])}

    def add_completion(self, run_id: str, completion: Completion) -> None:
        """Store one completion; committed at once so that a killed run loses nothing finished."""
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO completions (run_id, item_id, created, record) VALUES (?,?,?,?)",
                (run_id, completion.item_id, time.time(), msgspec.json.encode(completion)),
            )

    def completions(self, run_id: str) -> list[Completion]:
        rows = self.query("SELECT record FROM completions WHERE run_id = ? ORDER BY rowid", (run_id,))
        return [msgspec.json.decode(r["record"], type=Completion) for r in rows]

    def done_item_ids(self, run_id: str) -> set[str]:
        return {r[0] for r in self.query("SELECT item_id FROM completions WHERE run_id = ?", (run_id,))}

    def add_scores(self, run_id: str, rows: Iterable[tuple[str, str, str, float]]) -> None:
        """rows: (item_id, file, metric, value)."""
        with self.transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO scores (run_id, item_id, file, metric, value) VALUES (?,?,?,?,?)",
                [(run_id, *row) for row in rows],
            )

    def scores(self, run_id: str) -> list[tuple[str, str, str, float]]:
        return [tuple(r) for r in self.query("SELECT item_id, file, metric, value FROM scores WHERE run_id = ? ORDER BY rowid", (run_id,))]  # type: ignore[misc]

    # -- completion cache -----------------------------------------------------------------
    def cache_get(self, key: str) -> Completion | None:
        rows = self.query("SELECT record FROM completion_cache WHERE key = ?", (key,))
        return msgspec.json.decode(rows[0]["record"], type=Completion) if rows else None

    def cache_put(self, key: str, completion: Completion) -> None:
        with self.transaction():
            self._db.execute("INSERT OR REPLACE INTO completion_cache (key, record) VALUES (?,?)", (key, msgspec.json.encode(completion)))

    # -- watch offsets --------------------------------------------------------------------
    def get_offset(self, path: str) -> tuple[int, int, int, bytes] | None:
        """(inode, byte offset, line number, first bytes of the file) for a watched file."""
        rows = self.query("SELECT inode, offset, line, head FROM watch_offsets WHERE path = ?", (path,))
        return (rows[0][0], rows[0][1], rows[0][2], rows[0][3]) if rows else None

    def set_offset(self, path: str, inode: int, offset: int, line: int, head: bytes) -> None:
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO watch_offsets (path, inode, offset, line, head) VALUES (?,?,?,?,?)",
                (path, inode, offset, line, head),
            )

    # -- replay runs (issue 6) ------------------------------------------------------------
    def add_run_prompts(self, run_id: str, prompts: Iterable[RenderedPrompt]) -> None:
        """Keep the prompts of a run (the first ones stay when a run is resumed)."""
        with self.transaction():
            base = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM run_prompts WHERE run_id = ?", (run_id,)).fetchone()[0]
            self._db.executemany(
                "INSERT OR IGNORE INTO run_prompts (run_id, item_id, seq, record) VALUES (?,?,?,?)",
                [(run_id, p.item_id, base + n, msgspec.json.encode(p)) for n, p in enumerate(prompts)],
            )

    def run_prompts(self, run_id: str) -> list[RenderedPrompt]:
        rows = self.query("SELECT record FROM run_prompts WHERE run_id = ? ORDER BY seq", (run_id,))
        return [msgspec.json.decode(r["record"], type=RenderedPrompt) for r in rows]

    def good_item_ids(self, run_id: str) -> set[str]:
        """Items of a run with a completion that is not an error (a resumed run skips them)."""
        return {r[0] for r in self.query("SELECT item_id, record FROM completions WHERE run_id = ?", (run_id,))
                if msgspec.json.decode(r[1], type=Completion).error is None}

    # -- TUI (issue 7): the captures table pages through these, whatever the store's size ------
    def capture_rows(self, text: str = "", sort: str = "id", descending: bool = False,
                     after: tuple[Any, int] | None = None, offset: int = 0, limit: int = 100) -> list[CaptureRow]:
        """One page of the captures listing, filtered by `text` and sorted by `sort`.

        `after` is the (sort key, id) of the last row of the page before (keyset paging: an index
        range, so the cost of a page does not grow with its position); without it, `offset` rows
        are skipped through the same index. Sort keys are the indexed expressions of migration 3.
        """
        key = CAPTURE_SORT_KEYS[sort]
        where, params = _capture_filter(text)
        if after is not None:
            # Spelled so that SQLite opens an index range at `key` (a row-value comparison
            # would scan the index from its start).
            op = "<" if descending else ">"
            where.append(f"{key} {op}= ? AND ({key} {op} ? OR c.id {op} ?)")
            params.extend((after[0], after[0], after[1]))
        direction = "DESC" if descending else "ASC"
        sql = (f"SELECT c.id, c.ts, c.editor, c.model, c.filepath, c.outcome, s.prompt_tokens, s.gotchas, {key} AS k"
               f" FROM captures c LEFT JOIN capture_stats s ON s.capture_id = c.id"
               f"{' WHERE ' + ' AND '.join(where) if where else ''}"
               f" ORDER BY {key} {direction}, c.id {direction} LIMIT ? OFFSET ?")
        params.extend((int(limit), 0 if after is not None else int(offset)))
        return [CaptureRow(*row) for row in self.query(sql, params)]

    def count_capture_rows(self, text: str = "") -> int:
        where, params = _capture_filter(text)
        sql = "SELECT COUNT(*) FROM captures c" + (" WHERE " + " AND ".join(where) if where else "")
        return self.query(sql, params)[0][0]

    def set_capture_stats(self, rows: Iterable[tuple[int, str, int, int]]) -> None:
        """rows: (capture id, tokenizer spec, prompt tokens, gotcha findings)."""
        with self.transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO capture_stats (capture_id, tokenizer, prompt_tokens, gotchas) VALUES (?,?,?,?)",
                list(rows))

    def data_version(self) -> int:
        """Changes whenever ANOTHER connection commits (PRAGMA data_version): a cheap poll that
        tells a reader (the TUI) that `fimreplay watch` or a run wrote something."""
        with self._lock:
            return self._db.execute("PRAGMA data_version").fetchone()[0]


class _Tx:
    """Re-entrant BEGIN/COMMIT under the store's lock (nested uses join the outer one)."""

    def __init__(self, store: Store) -> None:
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


class CaptureRow(NamedTuple):
    """One line of the captures listing (TUI): the indexed columns, not the whole record."""

    id: int
    ts: float | None
    editor: str
    model: str | None
    filepath: str | None
    outcome: str
    prompt_tokens: int | None
    gotchas: int | None
    sort_key: Any


# Sort name -> the indexed expression it orders by (migration 3 has one index per entry).
CAPTURE_SORT_KEYS: dict[str, str] = {
    "id": "c.id",
    "time": "COALESCE(c.ts, 0)",
    "editor": "c.editor",
    "model": "COALESCE(c.model, '')",
    "file": "COALESCE(c.filepath, '')",
    "outcome": "c.outcome",
}


def _capture_filter(text: str) -> tuple[list[str], list[Any]]:
    """Every whitespace-separated term must occur (case-insensitively) in editor, model, file or
    outcome: the filter-as-you-type of the captures table."""
    where: list[str] = []
    params: list[Any] = []
    for term in text.split():
        escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.append("(c.editor || ' ' || COALESCE(c.model, '') || ' ' || COALESCE(c.filepath, '') || ' ' || c.outcome)"
                     " LIKE ? ESCAPE '\\'")
        params.append(f"%{escaped}%")
    return where, params


def _split_sql(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def open_store(path: str | Path | None = None) -> Store:
    from replay.paths import default_db

    return Store(path or default_db())
