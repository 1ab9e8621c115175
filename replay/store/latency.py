"""A run's completions as their time is read (reading.TimedCompletion): the time columns of the
completions table (schema migration 7), and for a replayed capture the gap to the next request
in the same editor's log, from the captures' times."""

from __future__ import annotations

from replay.reading import TimedCompletion
from replay.store.db import Database

# Each capture's seconds to the next capture of the same editor and log file (the same user's
# editor), by time: the next request went out after the user typed on.
_GAPS = """
    SELECT id, LEAD(ts) OVER (PARTITION BY editor, source_file ORDER BY ts, id) - ts AS gap
    FROM captures WHERE ts IS NOT NULL
"""
_RECORD = "CAST(c.record AS TEXT)"


class LatencyStore(Database):
    """The completions' time columns, with the captures' gaps."""

    def timed_completions(self, run_id: str) -> list[TimedCompletion]:
        """The run's completions with their time, in insertion order."""
        rows = self.query(
            f"WITH gaps AS ({_GAPS}) SELECT c.item_id, COALESCE(c.ttft_s, 0), COALESCE(c.total_s, 0),"
            f" COALESCE(c.prompt_tokens, 0), COALESCE(c.gen_tokens, 0), COALESCE(json_extract({_RECORD}, '$.stage'), ''),"
            f" json_extract({_RECORD}, '$.error') IS NULL AND COALESCE(json_extract({_RECORD}, '$.finish_reason'), '')"
            " != 'not_sent', g.gap"
            " FROM completions c LEFT JOIN run_references r USING (run_id, item_id)"
            " LEFT JOIN gaps g ON g.id = r.capture_id WHERE c.run_id = ?"
            # a record that is not JSON (a row edited by hand) has no time to read: the scores
            # name and skip it, and json_extract would fail the whole query on it
            f" AND json_valid({_RECORD}) ORDER BY c.rowid", (run_id,), named=False)
        return [TimedCompletion(item_id=str(r[0]), ttft_s=float(r[1]), total_s=float(r[2]), prompt_tokens=int(r[3]),
                                gen_tokens=int(r[4]), stage=str(r[5]), answered=bool(r[6]), gap_s=r[7]) for r in rows]
