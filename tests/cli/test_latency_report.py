"""Time beside quality end to end: a run of Tabby captures with their log times, scored and
reported with the measured latency and at a stated speed; a store from before the time columns
opens with its completions' time read from their records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from replay.reading import RunConfig
from replay.records import CaptureRecord, Completion, Reference, Segments, Source
from replay.store import MIGRATIONS, Store

DATA = Path(__file__).parents[1] / "data"


def _store(tmp_path: Path) -> Path:
    """Three Tabby 1.3.0 captures of one log, 2 s apart; the run's answers took 0.2 s, 1.5 s
    and 5 s (past completion.timeout), the last capture has no later request."""
    db = tmp_path / "s.db"
    with Store(db) as store:
        caps = [CaptureRecord(source=Source(file="events.json", line=n), editor="tabby", format="tabby-events",
                              completion_id=f"c{n}", segments=Segments(prefix=f"x{n} = ", suffix="\n"),
                              completion="1", outcome="accepted", ts=1_700_000_000.0 + 2 * n) for n in range(3)]
        ids = store.add_captures_with_ids(caps)
        store.create_run("r", RunConfig(backend="openai", model="m", editor="tabby@1.3.0"))
        store.add_run_references("r", [(f"capture-{i}", Reference(kind="capture", capture_id=i)) for i in ids])
        for i, total in zip(ids, (0.2, 1.5, 5.0)):
            store.add_completion("r", Completion(item_id=f"capture-{i}", text="1", raw_text="1", backend="openai", model="m",
                                                 latency_s=total, n_tokens=2, prompt_tokens=100, stage="tabby@1.3.0",
                                                 shown_text="1"))
    return db


def test_score_and_report_give_latency_and_the_share_in_time(tmp_path: Path, cli) -> None:
    db = _store(tmp_path)
    res = cli("score", "r", "--json", "--db", str(db))
    assert res.returncode == 0, res.stderr
    lat = json.loads(res.stdout)["latency"]
    assert lat["n"] == 3 and lat["total_p50_s"] == 1.5 and lat["total_p90_s"] == 5.0
    # 0.2 s: before the next keystroke (2 s less the longest adaptive debounce, 1 s); 1.5 s: within
    # the debounce of it (unknown); 5 s: past completion.timeout (4 s)
    assert (lat["in_time"], lat["late"], lat["timed_out"], lat["unknown"]) == (1, 0, 1, 1)
    assert lat["shown_in_time"] == 0.5 and lat["speed"] == ""
    text = cli("score", "r", "--db", str(db)).stdout
    assert "latency: p50 1500 ms, p90 5000 ms (measured, 3 answers); shown in time: 50% of 2 judged (1 unknown)" in text
    # the answer past tabby-agent's timeout counts as nothing shown: Indel 0 on it, 1 on the two others
    assert ("in-time score (counting an answer not shown in time as nothing shown: 1 of 3; judged by the editor's "
            "timing rules against the user's next keystroke): indel 0.6667, exact 0.6667, bleu 0.6667") in text
    fast = json.loads(cli("score", "r", "--json", "--speed", "prefill=10000,decode=1000", "--db", str(db)).stdout)["latency"]
    assert fast["speed"] == "prefill=10000,decode=1000,overhead=0" and fast["total_p90_s"] == 0.012
    assert (fast["in_time"], fast["timed_out"], fast["unknown"]) == (2, 0, 1)  # the last has no later request
    report = json.loads(cli("report", "r", "--json", "--db", str(db)).stdout)
    assert report["runs"][0]["latency"] == lat
    assert report["runs"][0]["in_time"]["n_not_shown"] == 1 and report["runs"][0]["in_time"]["mean"]["indel"] == 2 / 3
    md = cli("report", "r", "--db", str(db)).stdout
    assert "## Time (measured in the run; in time: judged by the editor's timing rules" in md
    assert "| r | 3 | 1500 | 5000 | 1500 | 100 | 2 | 50% of 2 | 0 | 1 | 1 | 0.6667 [0.6667, 0.6667] |" in md
    html = cli("report", "r", "--format", "html", "--db", str(db)).stdout
    assert "in-time indel [95%]" in html and "0.6667 [0.6667, 0.6667]" in html
    bad = cli("score", "r", "--speed", "prefill=fast", "--db", str(db))
    assert bad.returncode != 0 and "prefill 'fast' is not a number" in bad.stderr and "Traceback" not in bad.stderr


def test_compare_gives_each_run_its_time(tmp_path: Path, cli) -> None:
    db = _store(tmp_path)
    with Store(db) as store:
        store.create_run("r2", RunConfig(backend="openai", model="m2", editor="tabby@1.3.0"))
        refs = store.run_references("r")
        store.add_run_references("r2", refs.items())
        for c in store.completions("r"):
            store.add_completion("r2", Completion(item_id=c.item_id, text="1", raw_text="1", backend="openai", model="m2",
                                                  latency_s=0.1, n_tokens=2, prompt_tokens=100, stage="tabby@1.3.0", shown_text="1"))
    out = json.loads(cli("compare", "r", "r2", "--json", "--db", str(db)).stdout)
    assert out["latency"]["a"]["total_p50_s"] == 1.5 and out["latency"]["b"]["total_p50_s"] == 0.1
    assert out["latency"]["b"]["in_time"] == 2 and out["latency"]["b"]["shown_in_time"] == 1.0
    assert out["in_time"]["a"]["mean"]["indel"] == 2 / 3 and out["in_time"]["b"]["n_not_shown"] == 0
    assert out["in_time_paired"] is False and out["mean_diff"] == 0
    text = cli("compare", "r", "r2", "--db", str(db)).stdout
    assert "r2: latency: p50 100 ms, p90 100 ms (measured, 3 answers); shown in time: 100% of 2 judged (1 unknown)" in text
    assert "r: in-time score (counting an answer not shown in time as nothing shown: 1 of 3;" in text
    # paired on the in-time scores: r lost the item it answered too late
    paired = json.loads(cli("compare", "r", "r2", "--in-time", "--json", "--db", str(db)).stdout)
    assert paired["in_time_paired"] is True and abs(paired["mean_diff"] - 1 / 3) < 1e-9 and paired["wins"] == 1
    assert cli("compare", "r", "r2", "--in-time", "--db", str(db)).stdout.startswith("in-time scores (counting")
    seq = json.loads(cli("compare", "r", "r2", "--in-time", "--sequential", "--json", "--db", str(db)).stdout)
    assert seq["in_time_paired"] is True


def test_a_latency_budget_judges_every_answer_instead_of_the_editor(tmp_path: Path, cli) -> None:
    db = _store(tmp_path)
    out = json.loads(cli("score", "r", "--json", "--latency-budget", "1000", "--db", str(db)).stdout)
    lat = out["latency"]
    assert lat["budget_ms"] == 1000 and (lat["in_time"], lat["late"], lat["timed_out"], lat["unknown"]) == (1, 2, 0, 0)
    assert out["in_time"]["n_not_shown"] == 2 and out["in_time"]["mean"]["indel"] == 1 / 3
    assert "a 1000 ms budget on the whole answer (instead of the editor's timing rules)" in out["in_time"]["judged_by"]
    text = cli("score", "r", "--latency-budget", "1000", "--db", str(db)).stdout
    assert "shown in time within 1000 ms: 33% of 3 judged (0 unknown)" in text
    md = cli("report", "r", "--latency-budget", "1000", "--db", str(db)).stdout
    assert "judged by a 1000 ms budget on the whole answer (instead of the editor's timing rules)" in md
    # at a stated speed every answer is within the budget: nothing counted as not shown
    fast = json.loads(cli("score", "r", "--json", "--latency-budget", "1000", "--speed", "prefill=10000,decode=1000",
                          "--db", str(db)).stdout)
    assert fast["in_time"]["n_not_shown"] == 0 and fast["in_time"]["mean"]["indel"] == 1.0
    for bad in ("0", "-5", "soon"):
        res = cli("score", "r", "--latency-budget", bad, "--db", str(db))
        assert res.returncode == 2 and "--latency-budget" in res.stderr and "Traceback" not in res.stderr


def test_a_store_from_before_the_time_columns_reads_time_from_its_records(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(DATA / "store-before-references.db", path)
    with Store(path) as store:
        assert store.schema_version == len(MIGRATIONS)
        for run in store.runs():
            by_item = {c.item_id: c for c in store.completions(run.id)}
            timed = store.timed_completions(run.id)
            assert [t.item_id for t in timed] == list(by_item)
            for t in timed:
                c = by_item[t.item_id]
                assert (t.total_s, t.ttft_s, t.gen_tokens) == (c.latency_s, c.first_token_s(), c.n_tokens)
                assert t.answered == (c.error is None and c.finish_reason != "not_sent")


def test_the_runs_screen_comparison_puts_time_beside_quality(tmp_path: Path) -> None:
    from replay.usecases.score import compare_runs

    db = _store(tmp_path)
    with Store(db) as store:
        rows = {row[0]: row[1:] for row in compare_runs(store, ["r"]).rows()}
    assert rows["p50 ms"] == ["1500"] and rows["p90 ms"] == ["5000"] and rows["in time"] == ["50% of 2"]
    assert rows["in-time indel [95%]"] == ["0.6667 [0.6667, 0.6667]"]


def test_compare_in_time_needs_two_timed_runs(tmp_path: Path, cli) -> None:
    db = _store(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "capture-1", "file": "events.json", "reference": "1", "completion": "1"}) + "\n")
    res = cli("compare", str(pairs), "r", "--in-time", "--db", str(db))
    assert res.returncode == 2 and "--in-time compares two runs whose answers were timed" in res.stderr
    assert "Traceback" not in res.stderr
