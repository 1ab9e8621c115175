"""Each run input's reference (records.Reference): attached when the inputs are loaded, kept
with the run, and read when the run is scored; a store written before references were kept
(its captures' items named `capture-N` only) opens and scores the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec

from replay import scoring
from replay.reading import RunConfig
from replay.records import Completion, FimItem, Reference, RenderedPrompt
from replay.rejects import Rejects
from replay.run.inputs import load_inputs
from replay.store import MIGRATIONS, Store
from replay.usecases.inspect import replays_of
from tests.support.scores import score_json
from tests.support.tui_data import add_runs, make_store

DATA = Path(__file__).parents[1] / "data"


def test_a_store_from_before_references_opens_and_scores_the_same(tmp_path: Path) -> None:
    """tests/data/store-before-references.db: schema 5, written by the code before references were
    kept (tests.tui_data's captures and runs, run-cap's prompts), with its `score run-cap` result."""
    path = tmp_path / "old.db"
    shutil.copy(DATA / "store-before-references.db", path)
    before = json.loads((DATA / "store-before-references.json").read_text())
    with Store(path) as store:
        assert store.schema_version == len(MIGRATIONS)
        assert store.run_references("run-cap") == {f"capture-{i}": Reference(kind="capture", capture_id=i) for i in (1, 2, 3)}
        assert store.run_references("run-a") == {}
        counts = ("n_scored", "n_reused")  # the old code scored the run once: its scores are reused now
        # Scored as the old code scored it (against the accepted text), the old result's every field is
        # the same; the fields scoring gained since (the typed reference's) are beside them.
        result, rejects = score_json(store, "run-cap", reference="accepted")
        assert [result[k] for k in counts] == [0, 1] and [r.reason for r in rejects] == before["rejects"]
        old = {k: v for k, v in {**result, "n_scored": 1, "n_reused": 0}.items() if k in before["result"]}
        assert json.loads(json.dumps(old)) == before["result"]
        store._db.execute("DELETE FROM score_sets")
        again, _ = score_json(store, "run-cap", reference="accepted")
        assert json.loads(json.dumps({k: v for k, v in again.items() if k in before["result"]})) == before["result"]
        assert [run_id for run_id, _ in replays_of(store, 1)] == ["run-cap"]
        # The accepted text is read when scored: a capture accepted after the run is scored now.
        store._db.execute("UPDATE captures SET outcome = 'accepted' WHERE id = 2")
        assert [row.item_id for row in scoring.run_scores(store, "run-cap").rows] == ["capture-1", "capture-2"]


def test_the_references_are_kept_with_the_run_not_read_from_item_ids(tmp_path: Path) -> None:
    """An item named like a replayed capture is an item: only the run's reference makes a capture."""
    with make_store(tmp_path / "s.db", 8) as store:
        add_runs(store)
        store.create_run("named", RunConfig(model="m", backend="b"))
        store.add_completion("named", Completion(item_id="capture-1", text="0 + 1", raw_text="0 + 1", backend="b", model="m"))
        scores = scoring.run_scores(store, "named")
        assert scores.rows == [] and [r.reason for r in scores.rejects] == ["no such item in the store"]
        assert [run_id for run_id, _ in replays_of(store, 1)] == ["run-cap"]
        assert [row.item_id for row in scoring.run_scores(store, "run-cap").rows] == ["capture-1"]


def test_inputs_attach_each_reference(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_bytes(msgspec.json.encode(FimItem(id="a", file="f.sol", prefix="p", middle="m", suffix="s", mode="line")) + b"\n"
                      + msgspec.json.encode(RenderedPrompt(profile="standard", family="f", text="x", prefix_sent="x",
                                                           suffix_sent="", item_id="capture-1")) + b"\n")
    with make_store(tmp_path / "s.db", 3) as store:
        loaded = load_inputs(str(items), store, "standard", "qwen2.5-coder-0.5b", Rejects(tmp_path / "r.jsonl"))
        assert loaded.references == {"a": Reference(kind="item", item_id="a"), "capture-1": Reference(kind="item", item_id="capture-1")}
        captures = load_inputs("captures", store, None, "qwen2.5-coder-0.5b", Rejects(tmp_path / "c.jsonl"))
        assert [p.item_id for p in captures.prompts] == ["capture-1", "capture-2", "capture-3"]
        assert captures.references == {f"capture-{i}": Reference(kind="capture", capture_id=i) for i in (1, 2, 3)}


def test_a_run_input_line_not_utf8_is_rejected_not_rendered_with_replacements(tmp_path: Path) -> None:
    """A byte that is not UTF-8 rejects its line (file:line, the byte named), where it was
    replaced by U+FFFD and the damaged text rendered as if the user had written it."""
    good = msgspec.json.encode(FimItem(id="a", file="f.sol", prefix="p", middle="m", suffix="s", mode="line"))
    items = tmp_path / "items.jsonl"
    items.write_bytes(good + b"\n" + good.replace(b'"p"', b'"p\xff"').replace(b'"a"', b'"b"') + b"\n")
    with make_store(tmp_path / "s.db", 0) as store, Rejects(tmp_path / "r.jsonl") as rejects:
        loaded = load_inputs(str(items), store, "standard", "qwen2.5-coder-0.5b", rejects)
        assert [p.item_id for p in loaded.prompts] == ["a"]
        assert [(r.line, r.reason) for r in rejects] == [(2, "invalid UTF-8: byte 0xff at column 37")]
