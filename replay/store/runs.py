"""Benchmark items and replay runs: a run's config and status, the prompts it replays, the
completions it got and their scores (one set per text and line window).

A run is returned as a RunRecord (replay.reading); its config, a RunConfig, is kept as the JSON
object the runner wrote (the input, the editor, the backend's description, the generation
parameters, versions).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from replay import secrets
from replay.records import (
    Completion,
    CompletionTexts,
    FimItem,
    ItemReference,
    RenderedPrompt,
)
from replay.reading import RunConfig, RunRecord, ScoreSet
from replay.store.db import Database, StoreError
from replay.store.schema import INSERT_ITEM_REFERENCE

T = TypeVar("T")


_SCORE_SET = msgspec.msgpack.Decoder(ScoreSet)
_COMPLETIONS = msgspec.json.Decoder(list[CompletionTexts])
_SCORED_INPUTS = msgspec.msgpack.Decoder(list[tuple[CompletionTexts, ItemReference | None]])


class RunStore(Database):
    """The items, item_references, runs, run_prompts, completions, score_sets and scored_inputs tables."""

    # -- benchmark items ----------------------------------------------------------------
    def add_items(self, items: Iterable[FimItem]) -> tuple[int, int]:
        new = dup = 0
        with self.transaction():
            for item in items:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO items (id, file, mode, corpus_hash, record) VALUES (?,?,?,?,?)",
                    (item.id, item.file, item.mode, item.corpus_hash, msgspec.json.encode(item)),
                )
                if cur.rowcount:
                    self._db.execute(INSERT_ITEM_REFERENCE, (item.id, item.file, item.language, item.middle))
                new += cur.rowcount
                dup += 1 - cur.rowcount
        return new, dup

    def items(self, ids: Sequence[str] | None = None) -> list[FimItem]:
        if ids is None:
            rows = self.query("SELECT id, record FROM items ORDER BY rowid")
        else:
            rows = [r for i in ids for r in self.query("SELECT id, record FROM items WHERE id = ?", (i,))]
        return self._decoded(rows, FimItem, lambda r: f"items row {r[0]!r}")

    # -- runs, completions, scores ------------------------------------------------------
    def create_run(self, run_id: str, config: RunConfig) -> None:
        with self.transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO runs (id, created, status, config) VALUES (?,?,?,?)",
                (run_id, time.time(), "running", msgspec.json.encode(secrets.scrub_obj(msgspec.to_builtins(config)))),
            )
            if self._db.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()[0] == "running":
                self._own(run_id)

    def set_run_status(self, run_id: str, status: str) -> None:
        """Set a run's status; a "running" run is owned by this process (see `_run_record`)."""
        with self.transaction():
            self._db.execute("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))
            if status == "running":
                self._own(run_id)
            else:
                self._db.execute("DELETE FROM meta WHERE key = ?", (_OWNER + run_id,))

    def _own(self, run_id: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                         (_OWNER + run_id, msgspec.json.encode(this_process()).decode()))

    def runs(self) -> list[RunRecord]:
        """Every run, oldest first."""
        return [r for r in map(self._run_record, self.query("SELECT * FROM runs ORDER BY created")) if r is not None]

    def run(self, run_id: str) -> RunRecord | None:
        rows = self.query("SELECT * FROM runs WHERE id = ?", (run_id,))
        return self._run_record(rows[0]) if rows else None

    def add_completion(self, run_id: str, completion: Completion) -> None:
        """Store one completion; committed at once so that a killed run loses nothing finished."""
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO completions (run_id, item_id, created, record, ttft_s, total_s, prompt_tokens,"
                " gen_tokens) VALUES (?,?,?,?,?,?,?,?)",
                (run_id, completion.item_id, time.time(), msgspec.json.encode(scrubbed(completion)),
                 completion.first_token_s(), completion.latency_s, completion.prompt_tokens, completion.n_tokens),
            )

    def completions(self, run_id: str) -> list[Completion]:
        """The run's completions; a row that does not decode to one whose item is its key (edited,
        written by another program) is named in `skipped` and left out."""
        rows = self.query("SELECT item_id, record FROM completions WHERE run_id = ? ORDER BY rowid", (run_id,))
        where = lambda r: f"completions row (run {run_id!r}, item {r[0]!r})"  # noqa: E731
        return [c for c, r in zip(self._decoded(rows, Completion, where, keep=True), rows)
                if c is not None and self._owned(c.item_id, r[0], where(r))]

    def completion_counts(self) -> dict[str, int]:
        """Run id -> how many completions the run holds (runs without one are left out)."""
        return {r[0]: r[1] for r in self.query("SELECT run_id, COUNT(*) FROM completions GROUP BY run_id")}

    def done_item_ids(self, run_id: str) -> set[str]:
        return {r[0] for r in self.query("SELECT item_id FROM completions WHERE run_id = ?", (run_id,))}

    def scored_completions(self, run_id: str) -> list[tuple[CompletionTexts, ItemReference | None]]:
        """The run's completions (as `completions`, read as CompletionTexts) each with its
        benchmark item's reference (None: no such item, e.g. a replayed capture).

        Read from the run's scored_inputs record while its stamps are the current ones (schema
        migration 5: nothing it was read from has changed since), else from the rows, and the
        record written again. The stamps are read before the rows: a write between the two
        leaves a record that is never used, where the other order could label newer rows old."""
        stamps = self.query("SELECT r.inputs_version, m.value, s.inputs_version, s.references_version, s.record"
                            " FROM runs r JOIN meta m ON m.key = 'references-version'"
                            " LEFT JOIN scored_inputs s ON s.run_id = r.id WHERE r.id = ?", (run_id,), named=False)
        if stamps:
            run_stamp, references_stamp, kept_run, kept_references, record = stamps[0]
            if (kept_run, kept_references) == (run_stamp, int(references_stamp)):
                try:
                    return _SCORED_INPUTS.decode(record)
                except (msgspec.DecodeError, msgspec.ValidationError, TypeError):
                    pass  # unreadable: read from the rows and written again
        out, complete = self._scored_rows(run_id)
        if stamps and complete:
            try:
                with self.transaction():
                    self._db.execute("INSERT OR REPLACE INTO scored_inputs (run_id, inputs_version, references_version,"
                                     " record) VALUES (?,?,?,?)",
                                     (run_id, stamps[0][0], int(stamps[0][1]), msgspec.msgpack.encode(out)))
            except StoreError:
                pass  # a copy kept for speed: a store that cannot take it now (read-only, full, busy) is read from the rows
        return out

    def _scored_rows(self, run_id: str) -> tuple[list[tuple[CompletionTexts, ItemReference | None]], bool]:
        """scored_completions from the rows, and whether every row was read (a record is not
        kept for a read that skipped a row: the next read names it again)."""
        rows = self.query("SELECT c.item_id, c.record, r.file, r.language, r.middle FROM completions c"
                          " LEFT JOIN item_references r ON r.id = c.item_id WHERE c.run_id = ? ORDER BY c.rowid",
                          (run_id,), named=False)
        try:  # every row at once; row by row (naming the bad ones) only when one is not one completion
            completions = _COMPLETIONS.decode(b"[" + b",".join(row[1] for row in rows) + b"]")
            if len(completions) != len(rows):
                raise ValueError("a row holds more than one record")
        except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
            completions = self._decoded([(r[0], r[1]) for r in rows], CompletionTexts,
                                        lambda r: f"completions row (run {run_id!r}, item {r[0]!r})", keep=True)
        out = [(comp, None if file is None else ItemReference(id=item_id, file=file, middle=middle, language=language))
               for comp, (item_id, _, file, language, middle) in zip(completions, rows)
               if comp is not None and (comp.item_id == item_id
                                        or self._owned(comp.item_id, item_id, f"completions row (run {run_id!r}, item {item_id!r})"))]
        return out, len(out) == len(rows)

    def score_sets(self, run_id: str) -> dict[str, ScoreSet]:
        """The run's stored scores: the name they were kept under (merge_scores) -> their set. A
        set that does not decode is named (`skipped`) and left out: its scores are computed again."""
        out = {}
        for scored, record in self.query("SELECT scored, record FROM score_sets WHERE run_id = ?", (run_id,), named=False):
            try:
                out[scored] = _SCORE_SET.decode(record)
            except (msgspec.DecodeError, msgspec.ValidationError, TypeError) as exc:
                self.skip_row(f"score_sets row (run {run_id!r}, {scored!r})", exc)
        return out

    def merge_scores(self, run_id: str, scored: str, entries: dict[str, tuple[bytes, dict[str, float]]],
                     inputs: bytes = b"", based_on: ScoreSet | None = None) -> None:
        """Add entries to the run's set `scored` (an item's new entry replaces its old one). The
        set is read again inside the write transaction, so that two processes scoring one run
        both keep what they computed. `inputs` (ScoreSet.inputs) is kept only if the set is
        still the `based_on` the scorer read (its entries plus these are what it vouches for);
        any other write drops the set's `inputs`, since its entries changed."""
        with self.transaction():
            current = self._score_set_now(run_id, scored) or ScoreSet()  # unreadable: replaced by what is scored now
            vouched = inputs if inputs and based_on is not None and current.entries == based_on.entries else b""
            if not entries and vouched == current.inputs:
                return
            current.entries.update(entries)
            if entries or vouched != current.inputs:
                current.aggregates = {}  # made of other values, or of inputs no longer vouched for
            current.inputs = vouched
            self._db.execute("INSERT OR REPLACE INTO score_sets (run_id, scored, record) VALUES (?,?,?)",
                             (run_id, scored, msgspec.msgpack.encode(current)))

    def add_run_prompts(self, run_id: str, prompts: Iterable[RenderedPrompt]) -> None:
        """Keep the prompts of a run (the first ones stay when a run is resumed)."""
        with self.transaction():
            base = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM run_prompts WHERE run_id = ?", (run_id,)).fetchone()[0]
            self._db.executemany(
                "INSERT OR IGNORE INTO run_prompts (run_id, item_id, seq, record) VALUES (?,?,?,?)",
                [(run_id, p.item_id, base + n, msgspec.json.encode(p)) for n, p in enumerate(prompts)],
            )

    def run_prompts(self, run_id: str) -> list[RenderedPrompt]:
        rows = self.query("SELECT item_id, record FROM run_prompts WHERE run_id = ? ORDER BY seq", (run_id,))
        return self._decoded(rows, RenderedPrompt, lambda r: f"run_prompts row (run {run_id!r}, item {r[0]!r})")

    def _score_set_now(self, run_id: str, scored: str) -> ScoreSet | None:
        """The set as it is inside the caller's write transaction (None: none, or unreadable;
        score_sets names an unreadable one)."""
        row = self._db.execute("SELECT record FROM score_sets WHERE run_id = ? AND scored = ?", (run_id, scored)).fetchone()
        try:
            return _SCORE_SET.decode(row[0]) if row else None
        except (msgspec.DecodeError, msgspec.ValidationError, TypeError):
            return None

    def keep_aggregate(self, run_id: str, scored: str, inputs: bytes, key: str, value: Any) -> None:
        """Keep an aggregate of the run's set `scored` under `key`, if the set is still vouched
        for with `inputs` (a write since has cleared or changed it: then nothing is kept)."""
        with self.transaction():
            current = self._score_set_now(run_id, scored)
            if current is None or not inputs or current.inputs != inputs:
                return
            current.aggregates[key] = value
            self._db.execute("UPDATE score_sets SET record = ? WHERE run_id = ? AND scored = ?",
                             (msgspec.msgpack.encode(current), run_id, scored))

    def count_run_prompts(self, run_id: str) -> int:
        """How many items the run was started with (its "M" when it is not finished)."""
        return int(self.query("SELECT COUNT(*) FROM run_prompts WHERE run_id = ?", (run_id,))[0][0])

    def good_item_ids(self, run_id: str) -> set[str]:
        """Items of a run with a completion that is not an error (a resumed run skips them; an
        unreadable row is done again)."""
        return {c.item_id for c in self.completions(run_id) if c.error is None}

    # -- reading rows that may have been tampered with --------------------------------------
    def _decoded(self, rows: Sequence[Any], kind: type[T], where: Callable[[Any], str], keep: bool = False) -> list[Any]:
        """Each row's `record` column decoded as `kind`; a row that does not decode is named
        (Database.skip_row) and left out (None in its place with `keep`)."""
        out: list[Any] = []
        for row in rows:
            try:
                out.append(msgspec.json.decode(row[-1], type=kind))
            except (msgspec.DecodeError, msgspec.ValidationError, TypeError) as exc:
                self.skip_row(where(row), exc)
                if keep:
                    out.append(None)
        return out

    def _owned(self, item_id: str, key: str, where: str) -> bool:
        """Whether a decoded completion belongs to the row it was stored under."""
        if item_id == key:
            return True
        self.skip_row(where, ValueError(f"its record is for item {item_id!r}"))
        return False

    def _run_record(self, row: Any) -> RunRecord | None:
        """A runs row as a RunRecord. A run still marked "running" whose process is gone (killed,
        the machine restarted) is reported as "interrupted": nothing else would ever mark it."""
        try:
            config = msgspec.json.decode(row["config"], type=RunConfig)
            status = str(row["status"])
            if status == "running":
                owner = self.query("SELECT value FROM meta WHERE key = ?", (_OWNER + str(row["id"]),))
                if not owner or not process_alive(owner[0][0]):
                    status = "interrupted"
            return RunRecord(id=str(row["id"]), created=float(row["created"]), status=status, config=config)
        except (msgspec.DecodeError, ValueError, TypeError) as exc:
            self.skip_row(f"runs row {row['id']!r}", exc)
            return None


def scrubbed(completion: Completion) -> Completion:
    """A completion as it may be stored. An error quotes the server's answer: it goes through
    the whole secrets rule (a server that echoes the API key in a 200 without `choices` does
    not get it onto the disk). The model's text is code under test, where `token: …` lines are
    no leak: only the configured keys are taken out of it."""
    fields = {name: secrets.scrub_registered(getattr(completion, name)) for name in ("text", "raw_text")}
    fields["finish_reason"] = secrets.scrub_text(completion.finish_reason)
    if completion.error is not None:
        fields["error"] = secrets.scrub_text(completion.error)
    if completion.shown_text is not None:
        fields["shown_text"] = secrets.scrub_registered(completion.shown_text)
        fields["replaced"] = secrets.scrub_registered(completion.replaced)
    return msgspec.structs.replace(completion, **fields)


# The process running a run is kept in the meta table under this prefix and the run's id (a
# table of its own would need a migration for a value that lives only while the run does).
_OWNER = "run-owner:"


def this_process() -> dict[str, Any]:
    """What identifies the running process: host, pid and the pid's start time (a pid reused by
    another process after a reboot or a crash has another start time)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "start": _start_time(os.getpid())}


def process_alive(owner: str) -> bool:
    """Whether the process recorded by `this_process` (as JSON) still runs. A run started on
    another host is taken as alive: its process cannot be seen from here."""
    try:
        who = msgspec.json.decode(owner)
        host, pid, start = who["host"], int(who["pid"]), who.get("start")
    except (msgspec.DecodeError, KeyError, TypeError, ValueError):
        return False
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return start is None or _start_time(pid) in (None, start)


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux /proc), None elsewhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count from the last ")". A
    # zombie (state Z: killed, not yet reaped by its parent) runs no more.
    fields = stat.rpartition(")")[2].split()
    return -1 if fields[0] == "Z" else int(fields[19])
