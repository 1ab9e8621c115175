"""The lines `fimreplay demo` ends on: what its numbers mean, where its runs are, what to try
next (replay.usecases.demo.closing), read from the demo's own result."""

from __future__ import annotations

from pathlib import Path

from replay.usecases.demo import DemoResult, closing


def test_the_demo_ends_saying_what_its_numbers_mean_where_its_runs_are_and_what_next() -> None:
    result = DemoResult(runs=["r-bench", "r-caps"], steps={
        "score_benchmark": {"mean": {"indel": 0.7466}, "n_items": 12, "unscored": 0,
                            "latency": {"n": 12, "total_p50_s": 0.8123, "total_p90_s": 1.5, "shown_in_time": None}},
        "score_captures": {"mean": {"indel": 0.5081}, "n_items": 6, "unscored": 12,
                           "reference_sources": {"typed": 4, "typed+accepted": 1, "accepted": 1},
                           "latency": {"n": 6, "total_p50_s": 0.4, "total_p90_s": 0.9, "shown_in_time": 0.5}},
        "evalgen": {"path": "/data/demo/items.jsonl"}})
    text = closing(result, Path("/data/fimreplay.db"))
    assert "benchmark: Indel 0.747 over 12 benchmark items" in text
    assert "captures: Indel 0.508 over 6 captures" in text and "12 had neither a typed nor an accepted text" in text
    assert "at the cursor (else the text accepted) (typed 4, typed+accepted 1, accepted 1)" in text
    assert "benchmark: p50 812 ms, p90 1500 ms to the whole answer on this machine; shown in time: not judged" in text
    assert "captures: p50 400 ms, p90 900 ms to the whole answer on this machine; shown in time: 50% of those judged" in text
    assert "kept in /data/fimreplay.db" in text and "fimreplay report r-bench r-caps --format html" in text
    assert "Try next:" in text and "fimreplay demo --tui" in text
    assert "fimreplay leaderboard /data/demo/items.jsonl --model default" in text


def test_a_step_that_scored_nothing_is_not_given_a_number() -> None:
    text = closing(DemoResult(runs=["r"], steps={"score_benchmark": {"mean": {}, "n_items": 0, "unscored": 0}}), Path("s.db"))
    assert "benchmark: Indel" not in text and "What the numbers mean:" in text
