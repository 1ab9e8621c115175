"""Each run input's reference (records.Reference), kept with its run: where the text its
completion is scored against is found, a benchmark item's middle or a capture's accepted text."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from replay.records import Completion, Reference
from replay.store.db import Database


class ReferenceStore(Database):
    """The run_references table (schema migration 6) and the captures' ids."""

    def add_run_references(self, run_id: str, references: Iterable[tuple[str, Reference]]) -> None:
        """Keep the references of a run's items (item id, reference); the first ones stay when a
        run is resumed, as its prompts do."""
        with self.transaction():
            self._db.executemany(
                "INSERT OR IGNORE INTO run_references (run_id, item_id, kind, capture_id) VALUES (?,?,?,?)",
                [(run_id, item_id, ref.kind, ref.capture_id if ref.kind == "capture" else None)
                 for item_id, ref in references])

    def run_references(self, run_id: str) -> dict[str, Reference]:
        """Item id -> the reference of each of the run's items the store holds one for."""
        rows = self.query("SELECT item_id, kind, capture_id FROM run_references WHERE run_id = ?", (run_id,), named=False)
        return {item_id: (Reference(kind="capture", capture_id=capture_id) if kind == "capture"
                          else Reference(kind="item", item_id=item_id)) for item_id, kind, capture_id in rows}

    def capture_replays(self, capture_id: int) -> list[tuple[str, Completion]]:
        """(run id, completion) of every run that replayed the capture, oldest first."""
        rows = self.query("SELECT c.run_id, c.record FROM run_references r JOIN completions c USING (run_id, item_id)"
                          " WHERE r.capture_id = ? ORDER BY c.created", (capture_id,), named=False)
        return [(run_id, msgspec.json.decode(record, type=Completion)) for run_id, record in rows]

    def capture_ids(self) -> list[int]:
        """Every capture's id, in order."""
        return [row[0] for row in self.query("SELECT id FROM captures ORDER BY id", named=False)]
