"""What a scored run keeps in the store and when it is used again: each item's scores beside a
digest of the texts they are of (a changed completion or reference is scored anew), a set
vouched for as a whole (taken at once while nothing changed), what scoring reads of a run kept
as one record under stamps that triggers raise on every write, and migration 5 from a store
of schema 4."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest

from replay import scoring
from replay.reading import RunConfig
from replay.records import Completion, CompletionTexts, FimItem
from replay.scoring import runs
from replay.store import MIGRATIONS, ScoreSet, Store, StoreError
from tests.support.scores import score_json
from tests.support.tui_data import add_runs, make_store

MIDDLES = ["uint x = 1;\n", "return y;\n", "emit E(a,\n    b);\n", "}\n", "x += 2;\n", "require(ok);\n"]


def _items() -> list[FimItem]:
    return [FimItem(id=f"i{n}", file=f"F{n % 2}.sol", prefix="contract A {\n", middle=m, suffix="}\n", mode="line")
            for n, m in enumerate(MIDDLES)]


def _run(store: Store, texts: list[str], run_id: str = "r") -> None:
    store.create_run(run_id, RunConfig(backend="llamacpp", model="m", editor="standard"))
    for it, text in zip(_items(), texts):
        store.add_completion(run_id, Completion(item_id=it.id, text=text, raw_text=text, backend="llamacpp", model="m"))
    store.set_run_status(run_id, "done")


def _fresh(store: Store, run_id: str, text: scoring.Text = "shown", lines: scoring.Lines = "auto") -> list[dict[str, float]]:
    """The run's scores computed from nothing (nothing stored read)."""
    entries, _, _ = runs.run_entries(store, run_id)
    return [row.values for row in scoring.score_rows([(i, f, lang, ref, comp.scored_text(text)) for i, f, lang, ref, comp in entries],
                                                     lines, workers=1)]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_items(_items())
        _run(store, [m.rstrip("\n") + "\n    more();" for m in MIDDLES])
    return path


def test_a_completion_replaced_since_is_scored_anew(db: Path) -> None:
    """A resumed run replaces a completion (INSERT OR REPLACE): its stored scores are of the old
    text and must not be reused; the other items' are."""
    with Store(db) as store:
        assert scoring.run_scores(store, "r").n_scored == len(MIDDLES)
        store.add_completion("r", Completion(item_id="i1", text="return z;", raw_text="return z;", backend="llamacpp", model="m"))
        again = scoring.run_scores(store, "r")
        assert (again.n_scored, again.n_reused) == (1, len(MIDDLES) - 1)
        assert [row.values for row in again.rows] == _fresh(store, "r")
        assert [row.item_id for row in again.rows][-1] == "i1" and again.rows[-1].values["exact"] == 0.0
        # The same cut texts as before (the line window drops what changed): reused.
        store.add_completion("r", Completion(item_id="i1", text="return z;\nnext();", raw_text="return z;\nnext();",
                                             backend="llamacpp", model="m"))
        assert scoring.run_scores(store, "r").n_scored == 0


def test_a_capture_accepted_later_is_scored_against_its_accepted_text(tmp_path: Path) -> None:
    with make_store(tmp_path / "c.db", 8) as store:
        add_runs(store)
        first = scoring.run_scores(store, "run-cap")
        assert [row.item_id for row in first.rows] == ["capture-1"] and len(first.rejects) == 2
        store._db.execute("UPDATE captures SET outcome = 'accepted' WHERE id = 2")
        again = scoring.run_scores(store, "run-cap")
        assert [row.item_id for row in again.rows] == ["capture-1", "capture-2"] and again.n_scored == 1
        assert [row.values for row in again.rows] == _fresh(store, "run-cap")


def test_a_set_vouched_for_is_taken_whole_while_nothing_changed(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(db) as store:
        # Sets of keys this version does not read (written by hand, or by a later version) are left alone.
        for odd in ("shown:lines=0", "shown:lines=", "later:lines=auto"):
            store.merge_scores("r", odd, {"i0": (b"x", {"indel": 2.0})}, inputs=b"y", based_on=ScoreSet())
        first = scoring.run_scores(store, "r", lines="auto")
        assert first.n_scored == len(MIDDLES)
        assert store.score_sets("r")["shown:lines=auto"].inputs == runs.inputs_digest(runs.run_entries(store, "r")[0],
                                                                                      [r.completion for r in first.rows])
        one_by_one = runs._item_by_item
        monkeypatch.setattr(runs, "_item_by_item", lambda *a: pytest.fail("checked item by item"))
        same = scoring.run_scores(store, "r", lines="auto")
        assert same.n_reused == len(MIDDLES) and [r.values for r in same.rows] == [r.values for r in first.rows]
        # Another window that cuts every pair the same: a run of one-line middles, scored with
        # `--lines 1` after `auto`: the set, whole.
        one_line = [it for it in _items() if it.middle.count("\n") == 1]
        store.create_run("one", RunConfig(backend="llamacpp", model="m"))
        for it in one_line:
            store.add_completion("one", Completion(item_id=it.id, text=it.middle + "next();", raw_text=it.middle, backend="b", model="m"))
        monkeypatch.setattr(runs, "_item_by_item", one_by_one)
        auto = scoring.run_scores(store, "one", lines="auto")
        monkeypatch.setattr(runs, "_item_by_item", lambda *a: pytest.fail("checked item by item"))
        first_line = scoring.run_scores(store, "one", lines=1)
        assert first_line.n_reused == len(one_line) and [r.values for r in first_line.rows] == [r.values for r in auto.rows]
        # A window that cuts some pair otherwise: item by item, the rest reused.
        monkeypatch.setattr(runs, "_item_by_item", one_by_one)
        whole = scoring.run_scores(store, "r", lines="all")
        assert whole.n_scored == len(MIDDLES) and [r.values for r in whole.rows] == _fresh(store, "r", lines="all")
        two = scoring.run_scores(store, "r", lines=2)
        assert two.n_reused > 0 and [r.values for r in two.rows] == _fresh(store, "r", lines=2)
        # One completion changed: the vouch no longer holds; only that item is scored.
        store.add_completion("r", Completion(item_id="i0", text="uint x = 2;", raw_text="uint x = 2;", backend="llamacpp", model="m"))
        changed = scoring.run_scores(store, "r")
        assert changed.n_scored == 1 and [r.values for r in changed.rows] == _fresh(store, "r")
        assert store.score_sets("r")["shown:lines=auto"].inputs  # vouched again: every item's entry is in the set


def test_the_aggregate_of_a_set_taken_whole_is_the_one_kept_with_it(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's score keeps the aggregate with the vouched set; a score under a window that cuts every
    pair the same reads it back, equal to a fresh one (msgpack keeps floats, ints and order);
    any change to the set drops it."""
    with Store(db) as store:
        store.create_run("one", RunConfig(backend="llamacpp", model="m"))
        for it in _items():
            if it.middle.count("\n") == 1:
                store.add_completion("one", Completion(item_id=it.id, text=it.middle + "x", raw_text=it.middle, backend="b", model="m"))
        first, _ = score_json(store, "one", lines="auto", seed=3)
        kept = store.score_sets("one")["shown:lines=auto"].aggregates
        assert list(kept) == ["seed=3;resamples=2000"]
        monkeypatch.setattr(runs, "aggregate", lambda *a, **k: pytest.fail("aggregated again"))
        second, _ = score_json(store, "one", lines=1, seed=3)
        fresh = scoring.aggregate(scoring.run_scores(store, "one", lines=1).rows, seed=3).to_json()
        assert {k: second[k] for k in fresh} == fresh == {k: first[k] for k in fresh}
        assert second["lines"] == 1 and second["n_reused"] == second["n_items"]
        monkeypatch.undo()
        other_seed, _ = score_json(store, "one", lines=1, seed=4)
        assert other_seed["bootstrap"]["seed"] == 4
        assert set(store.score_sets("one")["shown:lines=auto"].aggregates) == {"seed=3;resamples=2000", "seed=4;resamples=2000"}
        # A changed completion: the set changes, its aggregates go, the new one is kept.
        store.add_completion("one", Completion(item_id="i0", text="changed", raw_text="changed", backend="b", model="m"))
        score_json(store, "one", lines="auto", seed=3)
        assert list(store.score_sets("one")["shown:lines=auto"].aggregates) == ["seed=3;resamples=2000"]
        # --compiles adds a metric the kept aggregate has not: made again, not kept.
        def judged(_store: Store, rows: list) -> None:
            for row in rows:
                row.values["compiles"] = 1.0

        monkeypatch.setattr("replay.scoring.compiles.add_compiles", judged)
        with_compiles, _ = score_json(store, "one", lines="auto", seed=3, compiles=True)
        assert "compiles" in with_compiles["mean"] and "compiles" not in first["mean"]
        assert "compiles" in score_json(store, "one", lines=1, seed=3)[0]["mean"]


def test_what_scoring_reads_is_kept_until_a_write_changes_it(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """scored_completions keeps its read as one record under stamps; every write to the run's
    completions or to item_references, by this process or another program, makes it read
    the rows again."""
    reads: list[str] = []
    rows = Store._scored_rows

    def counted(self: Store, run_id: str) -> tuple[list, bool]:
        reads.append(run_id)
        return rows(self, run_id)

    monkeypatch.setattr(Store, "_scored_rows", counted)
    with Store(db) as store:
        first = store.scored_completions("r")
        assert store.scored_completions("r") == first and reads == ["r"]
        other = sqlite3.connect(db)
        writes = [
            lambda: store.add_completion("r", Completion(item_id="i2", text="x", raw_text="x", backend="b", model="m")),
            lambda: other.execute("UPDATE completions SET record = ? WHERE item_id = 'i3'",
                                  (msgspec.json.encode(Completion(item_id="i3", text="y", raw_text="y", backend="b", model="m")),)),
            lambda: other.execute("DELETE FROM completions WHERE item_id = 'i4'"),
            lambda: store.add_completion("r", Completion(item_id="ghost", text="z", raw_text="z", backend="b", model="m")),
            lambda: store.add_items([FimItem(id="ghost", file="G.sol", prefix="", middle="z\n", suffix="", mode="line")]),
            lambda: other.execute("UPDATE item_references SET middle = 'w' WHERE id = 'ghost'"),
        ]
        for n, write in enumerate(writes, start=2):
            write()
            other.commit()
            got = store.scored_completions("r")
            assert len(reads) == n and got == rows(store, "r")[0]
            assert store.scored_completions("r") == got and len(reads) == n
        assert got[-1][1] is not None and got[-1][1].middle == "w"
        # Another run's completions leave this run's record as it is.
        _run(store, MIDDLES, "s")
        store.scored_completions("r")
        assert len(reads) == len(writes) + 1
        other.close()


def test_a_run_made_again_under_its_id_does_not_meet_its_old_record(db: Path) -> None:
    with Store(db) as store:
        store.scored_completions("r")
        store._db.execute("DELETE FROM completions WHERE run_id = 'r'")
        store._db.execute("DELETE FROM runs WHERE id = 'r'")
        _run(store, MIDDLES)
        assert [c.text for c, _ in store.scored_completions("r")] == MIDDLES


def test_a_kept_record_that_does_not_decode_is_read_again(db: Path) -> None:
    with Store(db) as store:
        kept = store.scored_completions("r")
        store._db.execute("UPDATE scored_inputs SET record = x'c1'")
        assert store.scored_completions("r") == kept


def test_a_store_that_cannot_take_the_kept_copies_still_scores(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record of what was read and a vouch alone are kept for speed: a store that refuses
    the write (read-only, full, held by another writer) is read and checked the slow way."""
    with Store(db) as store:
        scored = scoring.run_scores(store, "r")
        store._db.execute("DELETE FROM scored_inputs")
        store.merge_scores("r", "shown:lines=auto", {})  # the set no longer vouched for
        assert not store.score_sets("r")["shown:lines=auto"].inputs

        def refused(self: Store) -> None:
            raise StoreError(f"{self.path}: cannot be written")

        monkeypatch.setattr(Store, "transaction", refused)
        again = scoring.run_scores(store, "r")
        assert again.n_scored == 0 and [r.values for r in again.rows] == [r.values for r in scored.rows]
        assert store.query("SELECT COUNT(*) FROM scored_inputs", named=False) == [(0,)]
        assert not store.score_sets("r")["shown:lines=auto"].inputs


def test_the_texts_scoring_reads_are_the_completions_own() -> None:
    for comp in (Completion(item_id="a", text="t", raw_text="t\nu", backend="b", model="m"),
                 Completion(item_id="a", text="t", raw_text="t", backend="b", model="m", stage="tabby", shown_text="s"),
                 Completion(item_id="a", text="t", raw_text="t", backend="b", model="m", stage="tabby", shown_text=None),
                 Completion(item_id="a", text="t", raw_text="t", backend="b", model="m", error="timeout")):
        texts = msgspec.json.decode(msgspec.json.encode(comp), type=CompletionTexts)
        assert [texts.scored_text(t) for t in scoring.TEXTS] == [comp.scored_text(t) for t in scoring.TEXTS]


def test_migration_4_to_5_keeps_the_old_scores_and_finds_every_reference(tmp_path: Path) -> None:
    path = tmp_path / "v4.db"
    con = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:4]:
        if isinstance(step, str):
            con.executescript(step)
        else:
            con.execute("BEGIN")
            step(con)
            con.execute("COMMIT")
    con.execute("PRAGMA user_version=4")
    items = _items()
    items[1] = msgspec.structs.replace(items[1], language="python", file="f.py")
    for it in items:
        con.execute("INSERT INTO items (id, file, mode, corpus_hash, record) VALUES (?,?,?,?,?)",
                    (it.id, it.file, it.mode, it.corpus_hash, msgspec.json.encode(it)))
    con.execute("INSERT INTO runs (id, created, status, config) VALUES ('r', 0, 'done', '{}')")
    for it in items:
        con.execute("INSERT INTO completions (run_id, item_id, created, record) VALUES ('r', ?, 0, ?)",
                    (it.id, msgspec.json.encode(Completion(item_id=it.id, text=it.middle, raw_text=it.middle, backend="b", model="m"))))
    con.execute("INSERT INTO scores VALUES ('r', 'i0', 'F0.sol', 'indel:shown:lines=auto', 0.25)")
    con.close()
    with Store(path) as store:
        assert store.schema_version == len(MIGRATIONS)
        assert store.query("SELECT item_id, value FROM scores_before_5", named=False) == [("i0", 0.25)]
        refs = {ref.id: (ref.file, ref.language, ref.middle) for _, ref in store.scored_completions("r") if ref is not None}
        assert refs == {it.id: (it.file, it.language, it.middle) for it in items}
        scored = scoring.run_scores(store, "r")
        assert scored.n_scored == len(items) and all(row.values["exact"] == 1.0 for row in scored.rows)
