"""The captures and their outcome events: what an editor asked and what the user did with it.

A capture's outcome is joined from the view/select/dismiss events of its completion, whichever
arrives first (the events of one day's log can come before or after its captures). The TUI's
captures listing pages through the indexed columns alone, whatever the store's size.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import msgspec

from replay.records import CaptureRecord, OutcomeEvent, Source
from replay.store.db import Database
from replay.store.encoding import INSERT_EVENT, EventRow, StoredCapture, decode_capture, event_row, stored_capture
from replay.store.schema import CAPTURE_KEY

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
WHERE +editor = 'tabby' AND {CAPTURE_KEY} IN ({{marks}})
AND EXISTS (SELECT 1 FROM outcome_events e WHERE e.completion_id = captures.completion_id)
"""


class CaptureStore(Database):
    """The captures, capture_records, outcome_events and capture_stats tables."""

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
                f" SELECT id, ?, ?, ? FROM captures WHERE {CAPTURE_KEY} = COALESCE(?, '') AND hash = ?", bodies)
        return new, len(rows) - new

    def add_captures_with_ids(self, records: list[CaptureRecord | StoredCapture]) -> list[int]:
        """Insert captures (add_captures) and return the ids the new ones got, in order: in one
        transaction, so that another writer's rows are not among them."""
        if not records:
            return []
        with self.transaction():
            before = self.query("SELECT COALESCE(MAX(id), 0) FROM captures")[0][0]
            self.add_captures(records)
            return [r[0] for r in self.query("SELECT id FROM captures WHERE id > ? ORDER BY id", (before,))]

    def add_outcome_events(self, events: Iterable[OutcomeEvent | EventRow]) -> tuple[int, int]:
        """Insert view/select/dismiss events; return (new, duplicates). Joined by completion_id,
        whether the completion is stored already or arrives later (the next day's file).

        An event's identity leaves its source (file, line, offset) out: the same event line
        read again after its file was rewritten, or copied to another file, is one event. The
        table is keyed (completion_id, identity), so one b-tree both rejects a duplicate and
        serves the join by completion_id."""
        rows = [ev if type(ev) is tuple else event_row(ev) for ev in events]  # type: ignore[arg-type]
        with self.transaction():
            new = self._db.executemany(INSERT_EVENT, rows).rowcount
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

    def captures(self, editor: str | None = None, after: int | None = None, ids: Sequence[int] | None = None,
                 limit: int | None = None, offset: int = 0, page: int = 500) -> Iterator[tuple[int, CaptureRecord, str]]:
        """Yield (id, record, outcome) in import order; the outcome column is the joined one.
        Only the captures of `editor`, after the id `after`, or among `ids`, when given.

        Read `page` rows at a time (keyset on id), so walking a store of any size holds one
        page of bodies, not the whole table."""
        sql = ("SELECT id, record, codec, source_offset, source_file, source_line, outcome, outcome_detail"
               " FROM captures JOIN capture_records USING (id) WHERE id > ?")
        params: list[Any] = []
        if editor is not None:
            sql += " AND editor = ?"
            params.append(editor)
        if ids is not None:
            wanted = sorted({int(i) for i in ids})
            if not wanted:
                return
            sql += " AND id IN (SELECT value FROM json_each(?))"
            params.append(msgspec.json.encode(wanted).decode())
        sql += " ORDER BY id LIMIT ?"
        remaining = None if limit is None else int(limit)
        skip = int(offset)
        last = -1 if after is None else int(after)
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining + skip)
            rows = self.query(sql, (last, *params, size))
            for row in rows:
                last = row[0]
                if skip:
                    skip -= 1
                    continue
                try:
                    rec = decode_capture(row[2], row[1], Source(file=row[4], line=row[5], offset=row[3]))
                except Exception as exc:  # noqa: BLE001 - any body a codec cannot read: name the row, go on
                    self.skip_row(f"captures row {row[0]}", exc)
                    continue
                yield row[0], msgspec.structs.replace(rec, outcome=row[6], outcome_detail=row[7]), row[6]
                if remaining is not None:
                    remaining -= 1
                    if remaining == 0:
                        return
            if len(rows) < size:
                return

    def capture(self, capture_id: int) -> CaptureRecord | None:
        for _, rec, _ in self.captures(ids=(capture_id,)):
            return rec
        return None

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
