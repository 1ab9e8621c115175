"""A task given no rejects file keeps its rejects beside the store the command works on."""

from __future__ import annotations

import threading
from pathlib import Path

from replay.rejects import Rejects, beside_store, default_path


def test_rejects_go_beside_the_store_while_a_command_works_on_it(home: Path, tmp_path: Path) -> None:
    store = tmp_path / "kept" / "s.db"
    assert default_path("t") == home / "data" / "rejects" / "t.jsonl"
    with beside_store(store):
        assert default_path("t") == tmp_path / "kept" / "rejects" / "t.jsonl"
        made: list[Rejects] = []
        worker = threading.Thread(target=lambda: made.append(Rejects(name="w")))  # a run's or the TUI's thread
        worker.start()
        worker.join()
        early = Rejects(name="early")
    early.at("f.jsonl", 1, "bad")  # the first reject after the command: still its store's folder
    made[0].at("f.jsonl", 2, "bad")
    early.close()
    made[0].close()
    assert early.file == str(tmp_path / "kept" / "rejects" / "early.jsonl")
    assert made[0].file == str(tmp_path / "kept" / "rejects" / "w.jsonl")
    assert default_path("t") == home / "data" / "rejects" / "t.jsonl"
