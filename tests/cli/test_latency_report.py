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
    assert "latency (measured, 3 answers): p50 1500 ms, p90 5000 ms; shown in time: 50% of 2" in text
    fast = json.loads(cli("score", "r", "--json", "--speed", "prefill=10000,decode=1000", "--db", str(db)).stdout)["latency"]
    assert fast["speed"] == "prefill=10000,decode=1000,overhead=0" and fast["total_p90_s"] == 0.012
    assert (fast["in_time"], fast["timed_out"], fast["unknown"]) == (2, 0, 1)  # the last has no later request
    report = json.loads(cli("report", "r", "--json", "--db", str(db)).stdout)
    assert report["runs"][0]["latency"] == lat
    md = cli("report", "r", "--db", str(db)).stdout
    assert "## Time (measured in the run;" in md and "| r | 3 | 1500 | 5000 | 1500 | 100 | 2 | 50% of 2 | 0 | 1 | 1 |" in md
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
    text = cli("compare", "r", "r2", "--db", str(db)).stdout
    assert "time of r2: p50 100 ms, p90 100 ms (measured); shown in time 100% of 2 judged" in text


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
