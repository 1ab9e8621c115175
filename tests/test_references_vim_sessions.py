"""The typed reference of every capture recorded through `fimreplay proxy` from the real llama.vim in
Vim 9.0, driven through the golden typing sessions (tests/data/golden/llama.vim/sessions, keys at
their real times, answers at scripted delays; tests/data/captures/session/llama.vim/README.md says
how): where a reference is given it is what the user typed at that spot, read off the document
the session ended with (first line and whole text), a speculative follow-up (a body sent as if its
suggestion were accepted) never gets one, and a null always says why."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from replay.editors.llama_vim.releases import rules_at
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parent / "data"
CAPTURES = DATA / "captures" / "session" / "llama.vim"
SESSIONS = {s["id"]: s for s in map(json.loads, (DATA / "golden" / "llama.vim" / "sessions" / "sessions.jsonl")
                                    .read_text(encoding="utf-8").splitlines())}
RUNS = [json.loads(line) for line in (CAPTURES / "runs.jsonl").read_text(encoding="utf-8").splitlines()]
COMMITS = sorted({run["commit"] for run in RUNS})


def typed_at(before: str, after: str, final: str) -> str | None:
    """What the document the session ended with holds between a request's window `before` and
    `after` the cursor: the text inserted at the cursor when nothing around it changed since
    (edits elsewhere, after the spot, allowed), None when the text at the cursor's sides was
    edited (the spot is gone: nothing there to be typed)."""
    if final.startswith(before) and final.endswith(after) and len(before) + len(after) <= len(final):
        return final[len(before):len(final) - len(after)]
    at = len(before)
    inserted = None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before + after, final, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert" and i1 == at:
            inserted = final[j1:j2]
        elif i1 <= at <= i2 or i1 == at:
            return None
    return inserted if inserted is not None else ""


def _captures(db: Path, tmp_path: Path) -> list[dict[str, Any]]:
    copy = tmp_path / db.name
    shutil.copy(db, copy)
    done = run_cli("captures", "--json", "--full", "--db", str(copy), env={"FIMREPLAY_HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_recordings_cover_every_session_at_each_commit() -> None:
    assert COMMITS == ["a1c8e6e", "d13d932", "ddb92f0"]
    assert {(run["commit"], run["session"]) for run in RUNS} == {(c, s) for c in COMMITS for s in SESSIONS}


@pytest.mark.parametrize("commit", COMMITS)
def test_each_reference_is_what_was_typed_there(commit: str, tmp_path: Path) -> None:
    runs = {run["upstream"]: run for run in RUNS if run["commit"] == commit}
    rows = _captures(CAPTURES / f"{commit}.db", tmp_path)
    # from 1175c8d the first request at a cursor asks t_max_predict_ms 250, a follow-up the setting's
    first_ms = rules_at(commit).first_predict_ms
    checked = wrong = 0
    for row in rows:
        body = json.loads(row["request"])
        run = runs[row["source"].rsplit(":", 1)[0].removeprefix("proxy:")]
        ref = row["reference"]
        where = f"{run['session']} capture {row['id']} (prompt {body['prompt']!r})"
        if ref is None:
            assert row["reference_why"], where
            continue
        warm_up = not body["input_prefix"] and not body["prompt"] and not body["input_suffix"]
        if warm_up or (first_ms is not None and body["t_max_predict_ms"] != first_ms):
            raise AssertionError(f"{where}: a ring warm-up or speculative follow-up, not the document, got {ref['text']!r}")
        truth = typed_at(body["input_prefix"] + body["prompt"], body["input_suffix"], run["document"])
        text = ref["text"]
        if ref.get("complete"):
            ok = truth is not None and text.split("\n")[0] == truth.split("\n")[0] and text == truth
        else:  # the lines finished while the cursor was still in the spot
            ok = truth is not None and text.endswith("\n") and truth.startswith(text)
        wrong += not ok
        checked += 1
        assert ok, f"{where}: reference {text!r}, typed {truth!r}"
    assert checked >= 3 and not wrong

