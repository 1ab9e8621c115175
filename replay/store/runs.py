"""Benchmark items and replay runs: a run's config and status, the prompts it replays, the
completions it got and their scores.

A run is returned as a RunRecord; its config stays the free-form JSON the runner wrote (the
backend's description, the generation parameters, versions), read through a few accessors.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import msgspec

from replay.records import Completion, FimItem, RenderedPrompt
from replay.store.db import Database


class RunRecord(msgspec.Struct, frozen=True):
    """One replay run: its id, when it was created (epoch seconds), its status ("running",
    "done", "done_with_errors", "interrupted") and the config the runner kept."""

    id: str
    created: float
    status: str
    config: dict[str, Any]

    @property
    def model(self) -> str | None:
        """The model the run asked its backend for (None: not recorded)."""
        return _setting(self.config, "model")

    @property
    def backend(self) -> str | None:
        """The backend's name ("hf", "http", "llamacpp", ...; None: not recorded)."""
        return _setting(self.config, "backend")

    @property
    def editor(self) -> str | None:
        """The editor the prompts were rendered for ("standard", "captures' own", a profile; None:
        not recorded)."""
        return _setting(self.config, "editor")


def _setting(config: dict[str, Any], key: str) -> str | None:
    value = config.get(key)
    return None if value is None else str(value)


class ScoreRow(NamedTuple):
    """One stored score: a metric's value for one item of a run."""

    item_id: str
    file: str
    metric: str
    value: float


class RunStore(Database):
    """The items, runs, run_prompts, completions and scores tables."""

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

    def runs(self) -> list[RunRecord]:
        """Every run, oldest first."""
        return [_run_record(r) for r in self.query("SELECT * FROM runs ORDER BY created")]

    def run(self, run_id: str) -> RunRecord | None:
        rows = self.query("SELECT * FROM runs WHERE id = ?", (run_id,))
        return _run_record(rows[0]) if rows else None

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

    def scores(self, run_id: str) -> list[ScoreRow]:
        return [ScoreRow(*r) for r in self.query("SELECT item_id, file, metric, value FROM scores WHERE run_id = ? ORDER BY rowid", (run_id,))]

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


def _run_record(row: Any) -> RunRecord:
    return RunRecord(id=row["id"], created=row["created"], status=row["status"], config=msgspec.json.decode(row["config"]))
