"""Runs, scores and watch offsets come back from the store as typed records."""

from __future__ import annotations

from replay.reading import RunConfig
from replay.store import RunRecord, ScoreSet, Store, WatchOffset


def test_a_run_is_a_record_with_its_config(tmp_path) -> None:
    with Store(tmp_path / "s.db") as store:
        assert store.run("r") is None and store.runs() == []
        store.create_run("r", RunConfig(backend="http", model="m", editor="standard", params={"temperature": 0}))
        store.create_run("bare", RunConfig())
        store.set_run_status("r", "done")
        run = store.run("r")
        assert isinstance(run, RunRecord) and (run.id, run.status) == ("r", "done")
        assert (run.backend, run.model, run.editor) == ("http", "m", "standard")
        assert run.config.params == {"temperature": 0}
        bare = store.run("bare")
        assert bare is not None and (bare.backend, bare.model, bare.editor, bare.status) == (None, None, None, "running")
        assert [r.id for r in store.runs()] == ["r", "bare"] and store.runs()[0] == run


def test_score_sets_merge_and_keep_a_vouch_only_on_the_set_it_was_made_on(tmp_path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.create_run("r", RunConfig())
        assert store.score_sets("r") == {}
        store.merge_scores("r", "shown:lines=auto", {"i1": (b"d1", {"exact": 1.0}), "i2": (b"d2", {"exact": 0.0})})
        base = store.score_sets("r")["shown:lines=auto"]
        assert base == ScoreSet(entries={"i1": (b"d1", {"exact": 1.0}), "i2": (b"d2", {"exact": 0.0})}, inputs=b"")
        # A vouch on the set as it was read is kept; an entry replaces the item's old one.
        store.merge_scores("r", "shown:lines=auto", {"i2": (b"d3", {"exact": 1.0})}, inputs=b"all", based_on=base)
        after = store.score_sets("r")["shown:lines=auto"]
        assert after.inputs == b"all" and after.entries["i2"] == (b"d3", {"exact": 1.0}) and len(after.entries) == 2
        # Made on a set that changed since (another process merged): not kept.
        store.merge_scores("r", "shown:lines=auto", {"i3": (b"d4", {"exact": 0.0})}, inputs=b"all", based_on=base)
        assert store.score_sets("r")["shown:lines=auto"].inputs == b""
        # Any write without a vouch drops the old one: the entries it was made on changed.
        store.merge_scores("r", "shown:lines=auto", {}, inputs=b"again", based_on=store.score_sets("r")["shown:lines=auto"])
        assert store.score_sets("r")["shown:lines=auto"].inputs == b"again"
        store.merge_scores("r", "shown:lines=auto", {"i4": (b"d5", {})})
        assert store.score_sets("r")["shown:lines=auto"].inputs == b""
        assert set(store.score_sets("r")["shown:lines=auto"].entries) == {"i1", "i2", "i3", "i4"}
        store._db.execute("UPDATE score_sets SET record = x'c1'")
        assert store.score_sets("r") == {} and any("score_sets row" in note for note in store.skipped)


def test_watch_offsets_are_named_rows(tmp_path) -> None:
    with Store(tmp_path / "s.db") as store:
        assert store.get_offset("/log") is None
        store.set_offset("/log", 7, 120, 3, b"head")
        assert store.get_offset("/log") == WatchOffset(inode=7, offset=120, line=3, head=b"head")


def test_a_run_config_is_kept_as_the_json_object_it_always_was(tmp_path) -> None:
    """The config is one JSON object, a key per field set (an unset one is not written), so a
    store written before the record was typed reads the same, and a key no field names (a
    setting an older release kept) is left unread rather than making the run unreadable."""
    import msgspec

    from replay.reading import CAPTURES_OWN

    config = RunConfig(source="captures", input_kind="captures", editor=CAPTURES_OWN, model_spec="default",
                       rejects=0, backend="llamacpp", model="m", ctx=2048, params={"temperature": 0.0},
                       early_stop=True, editor_timing=False)
    with Store(tmp_path / "s.db") as store:
        store.create_run("typed", config)
        store.query("INSERT INTO runs (id, created, status, config) VALUES ('old', 0, 'done', ?)",
                    (b'{"model":"m","backend":"llamacpp","editor":"standard","profile":"tabby","cutoff":"2024-01-01"}',))
        stored = msgspec.json.decode(store.query("SELECT config FROM runs WHERE id = 'typed'")[0][0])
        assert stored == {"source": "captures", "input_kind": "captures", "editor": "captures' own", "model_spec": "default",
                          "rejects": 0, "backend": "llamacpp", "model": "m", "ctx": 2048, "params": {"temperature": 0.0},
                          "early_stop": True, "editor_timing": False}
        typed, old = store.run("typed"), store.run("old")
    assert typed is not None and typed.config == config
    assert config.profile is None and RunConfig(editor="tabby@1.5.0").profile == "tabby@1.5.0"
    assert old is not None and old.config == RunConfig(model="m", backend="llamacpp", editor="standard", cutoff="2024-01-01")
    assert RunConfig(model_name="Qwen", model_spec="default", model="q.gguf").model_names() == ["Qwen", "default", "q.gguf"]
