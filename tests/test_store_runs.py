"""Runs, scores and watch offsets come back from the store as typed records."""

from __future__ import annotations

from replay.store import RunRecord, ScoreRow, Store, WatchOffset


def test_a_run_is_a_record_with_its_config(tmp_path) -> None:
    with Store(tmp_path / "s.db") as store:
        assert store.run("r") is None and store.runs() == []
        store.create_run("r", {"backend": "http", "model": "m", "editor": "standard", "params": {"temperature": 0}})
        store.create_run("bare", {})
        store.set_run_status("r", "done")
        run = store.run("r")
        assert isinstance(run, RunRecord) and (run.id, run.status) == ("r", "done")
        assert (run.backend, run.model, run.editor) == ("http", "m", "standard")
        assert run.config["params"] == {"temperature": 0}
        bare = store.run("bare")
        assert bare is not None and (bare.backend, bare.model, bare.editor, bare.status) == (None, None, None, "running")
        assert [r.id for r in store.runs()] == ["r", "bare"] and store.runs()[0] == run


def test_scores_and_watch_offsets_are_named_rows(tmp_path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.create_run("r", {})
        store.add_scores("r", [("i1", "a.py", "exact", 1.0), ("i2", "b.py", "exact", 0.0)])
        assert store.scores("r") == [ScoreRow("i1", "a.py", "exact", 1.0), ScoreRow("i2", "b.py", "exact", 0.0)]
        assert store.scores("r")[1].value == 0.0
        assert store.get_offset("/log") is None
        store.set_offset("/log", 7, 120, 3, b"head")
        assert store.get_offset("/log") == WatchOffset(inode=7, offset=120, line=3, head=b"head")
