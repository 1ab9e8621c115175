"""`fimreplay demo` end to end: the real model in llama.cpp, the real captures/, a real npm corpus.

Kept small (one file, one item, 8 new tokens) so that it runs in CI; the README's demo uses the
defaults."""

from __future__ import annotations

import json
from pathlib import Path

from replay.store import Store


def test_demo_runs_every_step_and_is_resumable(cli, home: Path) -> None:
    args = ("demo", "--files", "1", "--per-file", "1", "--max-new-tokens", "8", "--json")
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    steps = result["steps"]
    assert steps["import"]["imported"] > 0 and steps["import"]["rejected"] == 0
    assert steps["verify"]["checked"] > 0
    assert 0 < steps["audit"]["subjects"] <= steps["import"]["imported"]
    assert steps["evalgen"]["items"] == 1
    bench, caps = steps["run_benchmark"], steps["run_captures"]
    assert bench["completed"] == bench["items"] == 1 and bench["errors"] == 0
    assert caps["completed"] == caps["items"] > 0 and caps["errors"] == 0
    assert 0.0 <= steps["score_benchmark"]["mean"]["indel"] <= 1.0
    # Scores are of what the editor showed, over as many lines as the reference; the raw text's
    # score is kept beside it, and how the two differ is counted.
    for label in ("benchmark", "captures"):
        score = steps[f"score_{label}"]
        assert score["text"] == "shown" and score["lines"] == "auto" and "indel" in score["raw_mean"]
        assert 0 <= score["n_changed"] <= score["n_items"] and score["chars_removed"] >= 0
    assert steps["score_benchmark"]["n_changed"] == 0  # the standard profile shows the model's text
    # each run's time beside its score: the median and p90, the share shown in time, the in-time score
    for label in ("benchmark", "captures"):
        latency, in_time = steps[f"score_{label}"]["latency"], steps[f"score_{label}"]["in_time"]
        assert latency["n"] > 0 and latency["total_p50_s"] > 0 and latency["total_p90_s"] >= latency["total_p50_s"]
        assert 0 <= in_time["n_not_shown"] <= in_time["n_items"] and 0 <= in_time["mean"]["indel"] <= 1
    assert steps["score_captures"]["latency"]["in_time"] + steps["score_captures"]["latency"]["unknown"] > 0
    # Captures without accepted text and without a logged prompt are counted and kept, not dropped.
    unscored = steps["score_captures"]
    assert unscored["unscored"] > 0 and Path(unscored["rejects_file"]).is_file()
    assert steps["audit"]["rejects"] == 0 or Path(steps["audit"]["rejects_file"]).is_file()
    assert len(result["runs"]) == 2
    # the captures/session log: what was typed is read from its later requests, and acceptance is reported
    assert steps["score_captures"]["reference_sources"].get("typed", 0) > 0
    assert steps["acceptance"]["n_shown"] > 0 and steps["acceptance"]["n_with_typed_reference"] > 0

    # Again on the same store: nothing new is imported, and the two runs the first demo made are
    # taken up (every item already done), not copied into two more.
    second = json.loads(cli(*args).stdout)
    again = second["steps"]
    first = steps["import"]
    assert again["import"]["imported"] == 0 and again["import"]["duplicates"] == first["imported"] + first["outcomes"]
    assert second["runs"] == result["runs"] and all(run.startswith("demo-") for run in result["runs"])
    assert again["run_benchmark"]["resumed"] == 1 and again["run_captures"]["resumed"] == caps["items"]
    assert again["run_benchmark"]["cached"] == 0 and again["run_captures"]["cached"] == 0
    assert again["score_benchmark"]["mean"] == steps["score_benchmark"]["mean"]
    with Store(home / "data" / "fimreplay.db") as store:
        assert sorted(r.id for r in store.runs()) == sorted(result["runs"])
