"""The SQLite store: captures, outcome events, benchmark items, runs, completions, scores.

One file in WAL mode, so the TUI can read while `fimreplay watch` or a run writes. Every record
is kept whole beside the few columns that are indexed or filtered on, so the schema does not
have to follow every field of the records: as JSON (msgspec), except a Tabby capture, kept as
its own log line (StoredCapture) and an outcome event, whose few fields are the columns of its
row. The schema has a version from the
first release on; `MIGRATIONS[i]` takes a store from version i to i+1 and never changes once
released (append a new one instead).
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import lz4.block
import msgspec

from replay.records import CaptureRecord, Completion, FimItem, OutcomeEvent, RenderedPrompt, Source

Migration = str | Callable[[sqlite3.Connection], None]  # SQL script, or a step that also moves data

# The captures table's sort indexes (migration 3; made again when migration 4 rebuilds the table).
_CAPTURE_SORT_INDEXES = """
    CREATE INDEX captures_sort_ts ON captures(COALESCE(ts, 0), id);
    CREATE INDEX captures_sort_editor ON captures(editor, id);
    CREATE INDEX captures_sort_model ON captures(COALESCE(model, ''), id);
    CREATE INDEX captures_sort_file ON captures(COALESCE(filepath, ''), id);
    CREATE INDEX captures_sort_outcome ON captures(outcome, id);
"""

MIGRATIONS: list[Migration] = [
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
    # 1 -> 2: replay runs: the prompts a run replays, so that a run can be resumed,
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
    # 2 -> 3 (TUI): indexes for sorted paging of the captures table, and the per-capture
    # prompt-token / gotcha counts computed once per tokenizer and kept (so a 100k-capture table
    # never re-tokenizes what it has shown before).
    _CAPTURE_SORT_INDEXES + """
    CREATE TABLE capture_stats (
        capture_id INTEGER PRIMARY KEY REFERENCES captures(id),
        tokenizer TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        gotchas INTEGER NOT NULL
    );
    """,
    # 3 -> 4 (import speed): see _migrate_4.
    lambda db: _migrate_4(db),
]

SCHEMA_VERSION = len(MIGRATIONS)

# The first column of the captures identity index (schema 4): a capture is found by it, and
# captures with no completion_id are still unique by their digest.
_CAPTURE_KEY = "COALESCE(completion_id, '')"

# Which event decides a capture's outcome when there are several: an accept beats a dismiss
# (Tabby logs a dismiss for the other choices too), which beats a bare view. An aggregate over
# one completion's outcome_events rows (NULL when it has none).
_OUTCOME_CASE = """CASE
    WHEN SUM(kind = 'select' AND select_kind = 'line') > 0
         AND SUM(kind = 'select' AND COALESCE(select_kind, '') != 'line') = 0 THEN 'accepted_line'
    WHEN SUM(kind = 'select') > 0 THEN 'accepted'
    WHEN SUM(kind = 'dismiss') > 0 THEN 'dismissed'
    WHEN SUM(kind = 'view') > 0 THEN 'viewed' END"""

# A Tabby capture gets the outcome of the events stored before it as it is inserted (the
# importer writes a batch's events first), so only events that come after their capture (a
# later batch, the next day's file) update captures rows.
_INSERT_CAPTURE = f"""
INSERT OR IGNORE INTO captures (hash, completion_id, editor, format, model, language, filepath,
    outcome, outcome_detail, ts, source_file, source_line, imported_at)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, COALESCE(o.outcome, ?8), IIF(o.n > 0, o.detail, ?9), ?10, ?11, ?12, ?13
FROM (SELECT {_OUTCOME_CASE} AS outcome, GROUP_CONCAT(kind, ',') AS detail, COUNT(*) AS n
      FROM outcome_events WHERE completion_id = ?2 AND ?3 = 'tabby') AS o
"""

# `+editor` keeps SQLite from choosing the (editor, id) sort index of migration 3 over the
# identity index: that plan walks every Tabby capture for each batch, and made an import
# quadratic in the store's size.
_UPDATE_OUTCOMES = f"""
UPDATE captures SET (outcome, outcome_detail) = (
    SELECT COALESCE({_OUTCOME_CASE}, captures.outcome), GROUP_CONCAT(kind, ',')
    FROM outcome_events e WHERE e.completion_id = captures.completion_id
)
WHERE +editor = 'tabby' AND {_CAPTURE_KEY} IN ({{marks}})
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
                    step = MIGRATIONS[target]
                    if isinstance(step, str):
                        for statement in _split_sql(step):
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
    def add_captures(self, records: Iterable[CaptureRecord | StoredCapture]) -> tuple[int, int]:
        """Insert captures; return (new, duplicates). Outcome events already stored are joined.

        Two C-level loops (executemany) instead of one statement per capture: the captures row
        first (a duplicate digest is ignored), then its body, keyed by the id the row got (a
        duplicate's body is ignored too, its id already has one)."""
        rows = [r if type(r) is StoredCapture else stored_capture(r) for r in records]  # type: ignore[arg-type]
        now = time.time()
        heads = [(r.digest, r.completion_id, r.editor, r.format, r.model, r.language, r.filepath, r.outcome,
                  r.outcome_detail, r.ts, r.source_file, r.source_line, now) for r in rows]
        bodies = [(r.codec, r.source_offset, r.body, r.completion_id, r.digest) for r in rows]
        with self.transaction():
            new = self._db.executemany(_INSERT_CAPTURE, heads).rowcount
            # The record lives in its own table so that the captures row stays small: joining
            # outcome events (now or when they arrive later) rewrites that row only.
            self._db.executemany(
                "INSERT OR IGNORE INTO capture_records (id, codec, source_offset, record)"
                f" SELECT id, ?, ?, ? FROM captures WHERE {_CAPTURE_KEY} = COALESCE(?, '') AND hash = ?", bodies)
        return new, len(rows) - new

    def add_outcome_events(self, events: Iterable[OutcomeEvent | EventRow]) -> tuple[int, int]:
        """Insert view/select/dismiss events; return (new, duplicates). Joined by completion_id,
        whether the completion is stored already or arrives later (the next day's file).

        An event's identity leaves its source (file, line, offset) out: the same event line
        read again after its file was rewritten, or copied to another file, is one event. The
        table is keyed (completion_id, identity), so one b-tree both rejects a duplicate and
        serves the join by completion_id."""
        rows = [ev if type(ev) is tuple else event_row(ev) for ev in events]  # type: ignore[arg-type]
        with self.transaction():
            new = self._db.executemany(_INSERT_EVENT, rows).rowcount
            self._apply_outcomes([r[0] for r in rows])
        return new, len(rows) - new

    def outcome_events(self, completion_id: str) -> list[OutcomeEvent]:
        """The stored view/select/dismiss events of one completion."""
        rows = self.query("SELECT kind, choice_index, select_kind, view_id, elapsed, ts, source_file, source_line,"
                          " source_offset FROM outcome_events WHERE completion_id = ? ORDER BY ts, source_line", (completion_id,))
        return [OutcomeEvent(source=Source(file=r[6], line=r[7], offset=r[8]), completion_id=completion_id, kind=r[0],
                             choice_index=r[1], select_kind=r[2], view_id=r[3], elapsed=r[4], ts=r[5]) for r in rows]

    def _apply_outcomes(self, completion_ids: list[str]) -> None:
        unique = list(dict.fromkeys(completion_ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            self._db.execute(_UPDATE_OUTCOMES.format(marks=",".join("?" * len(chunk))), chunk)

    def count_captures(self) -> int:
        return self.query("SELECT COUNT(*) FROM captures")[0][0]

    def captures(self, where: str = "", params: Sequence[Any] = (), limit: int | None = None, offset: int = 0,
                 page: int = 500) -> Iterator[tuple[int, CaptureRecord, str]]:
        """Yield (id, record, outcome) in import order; the outcome column is the joined one.

        Read `page` rows at a time (keyset on id), so walking a store of any size holds one
        page of bodies, not the whole table."""
        sql = ("SELECT id, record, codec, source_offset, source_file, source_line, outcome, outcome_detail"
               " FROM captures JOIN capture_records USING (id) WHERE id > ?")
        if where:
            sql += f" AND ({where})"
        sql += " ORDER BY id LIMIT ?"
        remaining = None if limit is None else int(limit)
        skip = int(offset)
        last = -1
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining + skip)
            rows = self.query(sql, (last, *params, size))
            for row in rows:
                last = row[0]
                if skip:
                    skip -= 1
                    continue
                rec = decode_capture(row[2], row[1], Source(file=row[4], line=row[5], offset=row[3]))
                yield row[0], msgspec.structs.replace(rec, outcome=row[6], outcome_detail=row[7]), row[6]
                if remaining is not None:
                    remaining -= 1
                    if remaining == 0:
                        return
            if len(rows) < size:
                return

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

    # -- replay runs ------------------------------------------------------------
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

    # -- TUI: the captures table pages through these, whatever the store's size ------
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


class StoredCapture(NamedTuple):
    """A capture as the store writes it: its identity (`digest`, 32 bytes), the listed columns,
    and the body (as stored) the record is rebuilt from when it is read, as `codec` says:
      "record"      the CaptureRecord as JSON (every format);
      a line codec  the log line itself (`line_body`: lz4-compressed), re-parsed by the
                    format's registered LineCodec ("tabby-line": replay.importers.tabby): the
                    line is the whole record, so the store keeps it once instead of the line
                    plus its parsed copy.
    Built where the line is parsed (in the importer's reader process for a large file), so
    that the store's side of an import is SQLite alone.
    """

    digest: bytes
    completion_id: str | None
    editor: str
    format: str
    model: str | None
    language: str | None
    filepath: str | None
    outcome: str
    outcome_detail: str | None
    ts: float | None
    source_file: str
    source_line: int
    source_offset: int
    codec: str
    body: bytes


class LineCodec(NamedTuple):
    """A log format whose captures the store keeps as their own log line (StoredCapture codec
    `name`): `parse` turns a stored line back into its CaptureRecord (None: the line is not a
    capture of this format). The importer that owns the format registers it (the
    `fimreplay.line_codecs` entry point group names the object), so that the store decodes
    every format without importing any importer."""

    name: str
    format: str
    parse: Callable[[bytes, Source], CaptureRecord | None]


_LINE_CODECS: dict[str, LineCodec] = {}


def register_line_codec(codec: LineCodec) -> None:
    _LINE_CODECS[codec.name] = codec


@functools.lru_cache(maxsize=1)
def _load_line_codecs() -> None:
    from importlib.metadata import entry_points

    for ep in entry_points(group="fimreplay.line_codecs"):
        codec = ep.load()
        if isinstance(codec, LineCodec):
            register_line_codec(codec)


def line_codecs() -> dict[str, LineCodec]:
    """Every registered line codec; the entry points of installed formats are loaded once."""
    _load_line_codecs()
    return _LINE_CODECS


def line_digest(line: bytes) -> bytes:
    """The identity of a capture that is a whole log line: the line's sha256. The source is not
    part of it: the same line copied to another file is the same request."""
    return hashlib.sha256(line).digest()


def stored_capture(rec: CaptureRecord) -> StoredCapture:
    """The row for a record built elsewhere (other formats, tests). A record of a line-codec
    format that is exactly what its `raw` line parses to is stored as that line, with the line's
    identity, so that it and the same line imported from a log are one capture; any other is
    kept as JSON, identified by its content (`CaptureRecord.content_hash`, which leaves source
    and outcome out)."""
    codec, body, digest = "record", b"", b""
    line_codec = next((c for c in line_codecs().values() if c.format == rec.format), None) if rec.raw else None
    if line_codec is not None:
        line = rec.raw.encode("utf-8")
        if line_codec.parse(line, rec.source) == msgspec.structs.replace(rec, outcome="unknown", outcome_detail=None):
            codec, body, digest = line_codec.name, line_body(line), line_digest(line)
    if codec == "record":
        body, digest = msgspec.json.encode(rec), bytes.fromhex(rec.content_hash())
    return StoredCapture(digest, rec.completion_id, rec.editor, rec.format, rec.model, rec.language, rec.filepath,
                         rec.outcome, rec.outcome_detail, rec.ts, rec.source.file, rec.source.line, rec.source.offset,
                         codec, body)


def line_body(line: bytes) -> bytes:
    """How the store keeps a whole-line capture's body: lz4-compressed, which halves or better
    what SQLite writes, at a few µs a line."""
    return lz4.block.compress(line)


def decode_capture(codec: str, blob: bytes, source: Source) -> CaptureRecord:
    """The record from a stored body (see StoredCapture); `source` is the row's own."""
    if codec == "record":
        return msgspec.json.decode(blob, type=CaptureRecord)
    line_codec = line_codecs().get(codec)
    if line_codec is None:
        raise StoreError(f"unknown capture codec {codec!r}: a newer fimreplay wrote this store, or fimreplay is not "
                         "installed (pip install -e .) so its formats are not registered")
    rec = line_codec.parse(lz4.block.decompress(blob), source)
    if rec is None:
        raise StoreError(f"stored {line_codec.format} line at {source.where()} is not a capture")
    return rec


_INSERT_EVENT = ("INSERT OR IGNORE INTO outcome_events (completion_id, key, kind, choice_index, select_kind, view_id,"
                 " elapsed, ts, source_file, source_line, source_offset) VALUES (?,?,?,?,?,?,?,?,?,?,?)")


EventRow = tuple[Any, ...]


def event_row(ev: OutcomeEvent) -> EventRow:
    """The outcome_events row of an event (what add_outcome_events takes besides the event:
    the importer builds rows where it parses). `key` is the event's identity within its
    completion, every field but the source."""
    key = msgspec.json.encode((ev.kind, ev.choice_index, ev.select_kind, ev.view_id, ev.elapsed, ev.ts))
    return (ev.completion_id, key, ev.kind, ev.choice_index, ev.select_kind, ev.view_id, ev.elapsed, ev.ts,
            ev.source.file, ev.source.line, ev.source.offset)


def _migrate_4(db: sqlite3.Connection) -> None:
    """3 -> 4: the import keeps each record once and its identities small.

    - captures is rebuilt: `hash` holds a 32-byte digest (was 64 hex characters), and one
      unique index on (completion_id, hash) both rejects a duplicate and finds a completion's
      captures, where a unique hash and a completion_id index each took a random-key insert
      per capture. A Tabby capture's identity becomes its log line (line_digest), for which
      the importer needs no record. Migration 3's sort indexes are made again.
    - capture_records gains `codec` and `source_offset`; Tabby records whose line rebuilds them
      are rewritten as that line, compressed (codec "tabby-line").
    - outcome_events is keyed (completion_id, key) WITHOUT ROWID, with the event's fields as
      columns: one b-tree instead of a table, a hash index and a completion_id index.
    """
    for statement in _split_sql(f"""
        CREATE TABLE captures_4 (
            id INTEGER PRIMARY KEY,
            hash BLOB NOT NULL,
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
        INSERT INTO captures_4 SELECT id, hash, completion_id, editor, format, model, language, filepath, outcome,
            outcome_detail, ts, source_file, source_line, imported_at FROM captures;
        DROP TABLE captures;
        ALTER TABLE captures_4 RENAME TO captures;
        CREATE UNIQUE INDEX captures_identity ON captures({_CAPTURE_KEY}, hash);
        {_CAPTURE_SORT_INDEXES}
        ALTER TABLE capture_records ADD COLUMN codec TEXT NOT NULL DEFAULT 'record';
        ALTER TABLE capture_records ADD COLUMN source_offset INTEGER NOT NULL DEFAULT 0;
        DROP INDEX outcome_events_completion_id;
        ALTER TABLE outcome_events RENAME TO outcome_events_3;
        CREATE TABLE outcome_events (
            completion_id TEXT NOT NULL,
            key BLOB NOT NULL,
            kind TEXT NOT NULL,
            choice_index INTEGER NOT NULL,
            select_kind TEXT,
            view_id TEXT,
            elapsed INTEGER,
            ts REAL,
            source_file TEXT NOT NULL,
            source_line INTEGER NOT NULL,
            source_offset INTEGER NOT NULL,
            PRIMARY KEY (completion_id, key)
        ) WITHOUT ROWID
    """):
        db.execute(statement)
    events = (msgspec.json.decode(r[0], type=OutcomeEvent) for r in db.execute("SELECT record FROM outcome_events_3 ORDER BY id"))
    db.executemany(_INSERT_EVENT, [event_row(ev) for ev in events])
    db.execute("DROP TABLE outcome_events_3")
    rows = db.execute("SELECT c.id, r.record FROM captures c JOIN capture_records r USING (id) ORDER BY c.id").fetchall()
    for capture_id, blob in rows:
        row = stored_capture(msgspec.json.decode(blob, type=CaptureRecord))
        try:
            db.execute("UPDATE captures SET hash = ? WHERE id = ?", (row.digest, capture_id))
        except sqlite3.IntegrityError:
            continue  # an older importer stored one line twice under two records: both stay as they were
        db.execute("UPDATE capture_records SET codec = ?, source_offset = ?, record = ? WHERE id = ?",
                   (row.codec, row.source_offset, row.body, capture_id))


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
