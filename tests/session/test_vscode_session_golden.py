"""`fimreplay session` against the real llama.vscode: typing sessions recorded by driving
ggml-org/llama.vscode v0.0.63's own `Completion` under node, VS Code's part (a provider call on
every edit, the previous call's token cancelled, what a cancelled call returns dropped) played by
a shim, against a loopback llama-server whose answer delays are scripted
(tests/data/golden/llama.vscode/sessions, its README says how). The simulator (replay/session
with the client of llama.vscode's timing rules, replay/editors/timed_client.py) must send the
same requests (bodies as parsed JSON, outcomes), show the same items and leave the same
document, its times within 50 ms of the recorded ones, in each of the two recordings.

The sessions send no speculative follow-up (the rest of each line is `)`, and the extension asks
ahead only at a blank rest of line). One more session (follow_up.jsonl) at a blank rest of line
records them (cacheFutureSuggestion, replay/editors/llama_vscode/live.py): it is compared the same
way, follow-ups included, each taking the scripted answer of its place in the request order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.usecases.session import session_file
from tests.session.recorded import assert_same_session

SESSIONS_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "llama.vscode" / "sessions"
RECORDED = [(json.loads(line), f"{name}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(), 1)]


def run_sessions(name: str, folder: Path) -> dict[str, dict[str, Any]]:
    """The sessions of `name` through `fimreplay session --editor llama.vscode@v0.0.63`, by id (the
    model only gives the vocabulary the request is checked against: the body names the setting's)."""
    out = folder / "out.jsonl"
    summary = session_file(SESSIONS_DIR / name, "llama.vscode", "v0.0.63", str(asset_path(DEMO_MODEL.name)), out)
    assert summary.rejected == 0
    return {d["id"]: d for d in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return run_sessions("sessions.jsonl", tmp_path_factory.mktemp("vscode-sessions"))


def test_every_session_was_recorded_twice_at_the_tag_simulated() -> None:
    ids = [json.loads(line)["id"] for line in (SESSIONS_DIR / "sessions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(e["id"] for e, _ in RECORDED) == sorted(ids * 2)
    assert {e["editor"] for e, _ in RECORDED} == {"llama.vscode@v0.0.63"}


@pytest.mark.parametrize("expected", [e for e, _ in RECORDED], ids=[f"{e['id']} ({w})" for e, w in RECORDED])
def test_requests_outcomes_items_shown_and_document_are_the_real_extensions(
        expected: dict[str, Any], simulated: dict[str, dict[str, Any]]) -> None:
    assert not any(r["speculative"] for r in expected["requests"])
    mine = simulated[expected["id"]]
    assert_same_session(mine, expected)


@pytest.mark.parametrize("name", ["follow_up_expected.jsonl", "follow_up_expected_repeat.jsonl"])
def test_with_follow_ups_requests_outcomes_items_shown_and_document_are_the_real_extensions(
        name: str, tmp_path: Path) -> None:
    expected = json.loads((SESSIONS_DIR / name).read_text(encoding="utf-8"))
    assert any(r["speculative"] for r in expected["requests"])
    mine = run_sessions("follow_up.jsonl", tmp_path)[expected["id"]]
    assert_same_session(mine, expected)
