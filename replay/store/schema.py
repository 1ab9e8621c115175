"""The store's schema: its append-only migrations.

`MIGRATIONS[i]` takes a store from version i to i+1 and never changes once released (append a
new one instead); replay.store.db applies them. The schema has a version from the first release
on, so that any store a fimreplay ever wrote opens in this one.
"""

from __future__ import annotations

import sqlite3

import msgspec

from replay.records import CaptureRecord, ItemReference, OutcomeEvent
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
    # 4 -> 5 (re-scoring speed): see _migrate_5.
    lambda db: _migrate_5(db),
    # 5 -> 6: each run input's reference (records.Reference), kept with its run. Runs made
    # before it named a replayed capture only in its item id, `capture-<capture id>`: those
    # get a capture reference from that id, for every item a run started with or completed.
    """
    CREATE TABLE run_references (
        run_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        capture_id INTEGER,
        PRIMARY KEY (run_id, item_id)
    ) WITHOUT ROWID;
    CREATE INDEX run_references_capture ON run_references(capture_id) WHERE capture_id IS NOT NULL;
    INSERT OR IGNORE INTO run_references (run_id, item_id, kind, capture_id)
        SELECT run_id, item_id, 'capture', CAST(substr(item_id, 9) AS INTEGER)
        FROM (SELECT run_id, item_id FROM run_prompts UNION SELECT run_id, item_id FROM completions)
        WHERE item_id GLOB 'capture-[0-9]*' AND substr(item_id, 9) NOT GLOB '*[^0-9]*';
    """,
    # 6 -> 7: each completion's time as columns (seconds to the first token and to the whole
    # answer, prompt and generated tokens), so that a report reads a run's latencies without
    # decoding its records. Completions stored before get them from their record: the first
    # token's time from its first streamed chunk, else the whole answer's (Completion.first_token_s).
    """
    ALTER TABLE completions ADD COLUMN ttft_s REAL;
    ALTER TABLE completions ADD COLUMN total_s REAL;
    ALTER TABLE completions ADD COLUMN prompt_tokens INTEGER;
    ALTER TABLE completions ADD COLUMN gen_tokens INTEGER;
    UPDATE completions SET
        total_s = COALESCE(json_extract(CAST(record AS TEXT), '$.latency_s'), 0),
        ttft_s = COALESCE(NULLIF(json_extract(CAST(record AS TEXT), '$.ttft_s'), 0),
                          json_extract(CAST(record AS TEXT), '$.timing[0][1]'),
                          json_extract(CAST(record AS TEXT), '$.latency_s'), 0),
        prompt_tokens = COALESCE(json_extract(CAST(record AS TEXT), '$.prompt_tokens'), 0),
        gen_tokens = COALESCE(json_extract(CAST(record AS TEXT), '$.n_tokens'), 0)
        WHERE json_valid(CAST(record AS TEXT));
    """,
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



# What scoring reads of an item, beside its record (migration 5; kept by RunStore.add_items).
INSERT_ITEM_REFERENCE = "INSERT OR IGNORE INTO item_references (id, file, language, middle) VALUES (?,?,?,?)"


def _stamp(table: str, event: str, stamp: str) -> str:
    return (f"CREATE TRIGGER {table}_{event.lower()} AFTER {event} ON {table} BEGIN "
            f"UPDATE meta SET value = value + 1 WHERE key = 'inputs-clock'; {stamp}; END")


_CLOCK = "(SELECT value FROM meta WHERE key = 'inputs-clock')"
_RUN = f"UPDATE runs SET inputs_version = {_CLOCK} WHERE id IN ({{}})"
_REFERENCES = f"UPDATE meta SET value = {_CLOCK} WHERE key = 'references-version'"
# Statements of their own: a trigger's body holds `;` (split_sql cannot split them).
_INPUTS_TRIGGERS = [
    _stamp("completions", "INSERT", _RUN.format("NEW.run_id")),
    _stamp("completions", "UPDATE", _RUN.format("OLD.run_id, NEW.run_id")),
    _stamp("completions", "DELETE", _RUN.format("OLD.run_id")),
    *(_stamp("item_references", event, _REFERENCES) for event in ("INSERT", "UPDATE", "DELETE")),
]


def _migrate_5(db: sqlite3.Connection) -> None:
    """4 -> 5: reading a scored run back costs a few rows, not a row per score and item.

    - score_sets: a run's scores of one text and line window are one row (RunStore.score_sets),
      each item's values beside a digest of the texts they were computed on, so that a score is
      never reused for texts that changed since (a resumed run's new completion, a capture
      accepted later). The `scores` rows of earlier schemas carry no such digest: they are kept,
      renamed `scores_before_5`, and not read (each score is computed again once: the metrics
      are deterministic).
    - item_references: each item's file, language and middle, so that scoring a run does not
      read every item's prefix and suffix (most of its record) to find its reference.
    - scored_inputs: what RunStore.scored_completions last read of a run, as one record, with
      the stamps it was read at: runs.inputs_version and the meta row `references-version`.
      Triggers stamp them with a clock (meta `inputs-clock`, which only goes up) on any write to
      the run's completions or to item_references, by fimreplay or any other program, so that
      a record is used only while nothing it was read from has changed (a run made again
      under the same id never meets an old stamp).
    - completions_run: a run's completions in insertion order straight from an index (every
      index ends with the rowid), where the primary key's index needed a sort.
    """
    for statement in split_sql("""
        ALTER TABLE scores RENAME TO scores_before_5;
        CREATE TABLE score_sets (
            run_id TEXT NOT NULL,
            scored TEXT NOT NULL,
            record BLOB NOT NULL,
            PRIMARY KEY (run_id, scored)
        );
        CREATE TABLE item_references (
            id TEXT PRIMARY KEY,
            file TEXT NOT NULL,
            language TEXT NOT NULL,
            middle TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX completions_run ON completions(run_id);
        ALTER TABLE runs ADD COLUMN inputs_version INTEGER NOT NULL DEFAULT 0;
        INSERT OR REPLACE INTO meta (key, value) VALUES ('inputs-clock', 0), ('references-version', 0);
        CREATE TABLE scored_inputs (
            run_id TEXT PRIMARY KEY,
            inputs_version INTEGER NOT NULL,
            references_version INTEGER NOT NULL,
            record BLOB NOT NULL
        )
    """):
        db.execute(statement)
    for statement in _INPUTS_TRIGGERS:
        db.execute(statement)
    decode = msgspec.json.Decoder(ItemReference).decode
    for (record,) in db.execute("SELECT record FROM items ORDER BY rowid").fetchall():
        try:
            ref = decode(record)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # unreadable: RunStore.items names it and scoring rejects its completions
        db.execute(INSERT_ITEM_REFERENCE, (ref.id, ref.file, ref.language, ref.middle))
