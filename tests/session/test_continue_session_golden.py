"""`fimreplay session --editor continue@2.1.0-vscode` against Continue's own autocomplete code: typing
sessions recorded by running core's CompletionProvider of continuedev/continue v2.1.0-vscode
(bundled from b238c1f11f) under node, called at real key times as the VS Code extension calls it
(each call's signal aborted at the next edit), against a loopback Ollama server whose streamed
answers came after scripted delays (tests/data/golden/continue/sessions, its README says how each
field was observed and which part is Continue's code and which the driver's stand-in for VS Code).

The simulator (replay/session with Continue's client, replay/editors/continue_/live.py) must send
the same requests (the `prompt` of each body: the simulator's body for Continue is the rendered
prompt, the recorded one Ollama's /api/generate body around it), give each the same outcome, show
the same items from the same answers and leave the same document; request and item times within
50 ms of the recorded ones. Each session was recorded twice; both recordings are checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.usecases.session import session_file
from tests.session.recorded import assert_same_session

SESSIONS_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "continue" / "sessions"
VERSION = "2.1.0-vscode"  # the release whose code made the recordings
MODEL = "qwen2.5-coder"  # the model name Continue was configured with (its template: Qwen's FIM)

RECORDED = [(json.loads(line), f"{name}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(), 1)]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every session through the `session` use case, as `fimreplay session` runs it."""
    out = tmp_path_factory.mktemp("continue-sessions") / "out.jsonl"
    summary = session_file(SESSIONS_DIR / "sessions.jsonl", "continue", VERSION, MODEL, out)
    assert summary.rejected == 0
    return {o["id"]: o for o in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


@pytest.mark.parametrize("expected", [e for e, _ in RECORDED], ids=[f"{e['id']} ({w})" for e, w in RECORDED])
def test_requests_outcomes_items_and_document_are_continues(
        expected: dict[str, Any], simulated: dict[str, dict[str, Any]]) -> None:
    assert_same_session(simulated[expected["id"]], expected, body=lambda r: r["body"]["prompt"])


def test_the_recordings_hold_what_the_sessions_are_for() -> None:
    """The sessions exercise each rule: an aborted request, a slow answer shown when it came, a
    streamed answer cut by showWhateverWeHaveAtXMs before its end, items from Continue's cache, an
    item from a stream a later call reused (no request of its own), an accept that asks nothing
    (the accepted text reuses the last stream), and both recordings of each session."""
    outcomes = {r["outcome"] for e, _ in RECORDED for r in e["requests"]}
    assert {"shown", "cancelled"} <= outcomes
    assert any(s["cache_hit"] for e, _ in RECORDED for s in e["shown"])
    streamed = [(r, s) for e, _ in RECORDED if e["id"] == "streamed" for r in e["requests"] for s in e["shown"]]
    assert streamed and all(s["t_ms"] < r["answered_ms"] - 300 for r, s in streamed)
    reused = [s for e, _ in RECORDED for s in e["shown"] if not s["cache_hit"]
              and not any(r["n"] == s["request"] and r["after_event"] == s["after_event"] for r in e["requests"])]
    assert reused
    ids = [e["id"] for e, _ in RECORDED]
    assert len(ids) == 2 * len(set(ids)) >= 14
