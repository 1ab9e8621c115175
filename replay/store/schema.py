"""The store's schema: its append-only migrations.

`MIGRATIONS[i]` takes a store from version i to i+1 and never changes once released (append a
new one instead); replay.store.db applies them. The schema has a version from the first release
on, so that any store a fimreplay ever wrote opens in this one.
"""

from __future__ import annotations

import sqlite3

import msgspec

from replay.records import CaptureRecord, OutcomeEvent
from replay.store.db import Migration, split_sql
from replay.store.encoding import INSERT_EVENT, event_row, stored_capture

# The captures table's sort indexes (migration 3; made again when migration 4 rebuilds the table).
CAPTURE_SORT_INDEXES = """
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
    CAPTURE_SORT_INDEXES + """
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
CAPTURE_KEY = "COALESCE(completion_id, '')"


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
    for statement in split_sql(f"""
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
        CREATE UNIQUE INDEX captures_identity ON captures({CAPTURE_KEY}, hash);
        {CAPTURE_SORT_INDEXES}
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
    db.executemany(INSERT_EVENT, [event_row(ev) for ev in events])
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

