"""Score results as typed records: a Summary is its aggregate (the same keys, order and values
in JSON), and a run's score result prints as `fimreplay score --json` always did."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from replay import scoring
from replay.reading import RunConfig
from replay.records import Completion, FimItem
from replay.scoring import ScoredItem, aggregate, summary_of
from replay.store import Store
from tests.support.scores import score_json


def test_a_summary_kept_as_json_reads_back_as_itself() -> None:
    rows = [ScoredItem("1", "A.sol", {"indel": 1.0, "exact": 1.0}), ScoredItem("2", "B.sol", {"indel": 0.5, "exact": 0.0})]
    summary = aggregate(rows, seed=4)
    kept = json.loads(json.dumps(summary.to_json()))
    assert summary_of(kept) == summary
    assert list(kept) == ["n_items", "n_files", "per_file", "total", "mean", "ci95", "bootstrap"]
    assert kept["ci95"]["indel"] == list(summary.ci95["indel"]) and summary.bootstrap.seed == 4 and summary.n_files == 2


def test_a_kept_aggregate_that_is_not_one_is_made_again(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.add_items([FimItem(id=f"i{n}", file=f"F{n}.sol", prefix="p", middle="x;\n", suffix="s", mode="line") for n in range(3)])
        store.create_run("r", RunConfig(backend="b", model="m"))
        for n in range(3):
            store.add_completion("r", Completion(item_id=f"i{n}", text="x;", raw_text="x;", backend="b", model="m"))
        first, _ = score_json(store, "r", seed=1)
        scores = scoring.run_scores(store, "r")
        assert scores.vouched is not None
        name, inputs, _ = scores.vouched
        store.keep_aggregate("r", name, inputs, "seed=1;resamples=2000", {"n_items": "three"})
        again = scoring.run_aggregate(store, "r", scoring.run_scores(store, "r"), seed=1)
        assert again.to_json() == {k: first[k] for k in again.to_json()}
        kept = store.score_sets("r")[name].aggregates["seed=1;resamples=2000"]
        assert msgspec.convert(kept, scoring.Summary) == again


def test_a_run_score_prints_its_fields_in_order(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.add_items([FimItem(id="i", file="F.sol", prefix="p", middle="x;\n", suffix="s", mode="line")])
        store.create_run("r", RunConfig(backend="b", model="m", editor="standard"))
        store.add_completion("r", Completion(item_id="i", text="x;", raw_text="x;", backend="b", model="m"))
        result = scoring.scored_run(store, "r").result()
        assert list(result.to_json()) == ["n_items", "n_files", "per_file", "total", "mean", "ci95", "bootstrap", "source",
                                          "run", "text", "lines", "scored", "n_errors", "n_stop_cut", "n_changed",
                                          "n_nothing_shown", "chars_removed", "n_no_stage", "n_scored", "n_reused",
                                          "items_done", "backend", "model", "profile", "n_rejects", "unscored", "reference",
                                          "reference_sources", "nothing_scored"]
        assert list(scoring.scored_run(store, "r").result(1).to_json())[-1] == "items_total"
