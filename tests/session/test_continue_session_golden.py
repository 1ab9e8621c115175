"""`fimreplay session --editor continue@VERSION` against Continue's own autocomplete code: typing
sessions recorded by running the VS Code extension's inline completion provider on core's
CompletionProvider of continuedev/continue v2.1.0-vscode (b238c1f11f) and v1.1.30-vscode
(8a1287207f), each bundled from its commit, under node with a stand-in for VS Code that calls it
at real key times and cancels each call's token at the next edit, against a loopback Ollama server whose streamed answers came after scripted delays
(tests/data/golden/continue/sessions, its README says how each field was observed and which part
is Continue's code and which the driver's stand-in for VS Code).

The simulator (replay/session with Continue's client, replay/editors/continue_/live.py) must send
the same requests (the `prompt` of each body: the simulator's body for Continue is the rendered
prompt, the recorded one Ollama's /api/generate body around it), give each the same outcome, show
the same items from the same answers and leave the same document; request and item times within
50 ms of the recorded ones. Each session was recorded twice at each release; every recording is
checked. The two releases differ in their debounce (1.1.30's leading one asks at the first key at
once) and their showWhateverWeHaveAtXMs limit (300 ms, then modelTimeout's 150 ms)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.usecases.session import session_file
from tests.session.recorded import TOLERANCE_MS, assert_same_session

SESSIONS_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "continue" / "sessions"
VERSIONS = ("2.1.0-vscode", "1.1.30-vscode")  # the releases whose code made the recordings
MODEL = "qwen2.5-coder"  # the model name Continue was configured with (its template: Qwen's FIM)


def recordings(version: str) -> list[tuple[dict[str, Any], str, str]]:
    suffix = "" if version == VERSIONS[0] else f"-{version}"
    return [(json.loads(line), version, f"{name}{suffix}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{name}{suffix}.jsonl").read_text(encoding="utf-8").splitlines(), 1)]


RECORDED = [r for v in VERSIONS for r in recordings(v)]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    """Every session through the `session` use case at each release, as `fimreplay session` runs it."""
    runs = {}
    for version in VERSIONS:
        out = tmp_path_factory.mktemp("continue-sessions") / "out.jsonl"
        summary = session_file(SESSIONS_DIR / "sessions.jsonl", "continue", version, MODEL, out)
        assert summary.rejected == 0
        runs |= {(version, o["id"]): o for o in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    return runs


@pytest.mark.parametrize(("expected", "version"), [(e, v) for e, v, _ in RECORDED],
                         ids=[f"{e['id']} ({w})" for e, _, w in RECORDED])
def test_requests_outcomes_items_and_document_are_continues(
        expected: dict[str, Any], version: str, simulated: dict[tuple[str, str], dict[str, Any]]) -> None:
    assert_same_session(simulated[(version, expected["id"])], expected, body=lambda r: r["body"]["prompt"])


def test_the_recordings_hold_what_the_sessions_are_for() -> None:
    """The sessions exercise each rule: an aborted request, a slow answer shown when it came, a
    streamed answer whose item came before its end (ended by a blank line; by showWhateverWeHaveAtXMs,
    its lines held back by the stop words' length), items from Continue's cache (2.1.0's: 1.1.30
    puts an answer under the prefix it sends, headed by the file's name, so its lookup misses and
    its stream reuse shows the same items), an item from a
    stream a later call read (no request of its own), accepts that ask nothing (the accepted text
    reads the last stream), the two debounces, and both recordings of each session."""
    outcomes = {r["outcome"] for e, _, _ in RECORDED for r in e["requests"]}
    assert {"shown", "cancelled"} <= outcomes
    assert any(s["cache_hit"] for e, v, _ in RECORDED if v == VERSIONS[0] for s in e["shown"])
    streamed = [(r, e["shown"][0]) for e, _, _ in RECORDED if e["id"] in ("streamed", "lines") for r in e["requests"]]
    assert streamed and all(s["t_ms"] < r["answered_ms"] - 250 for r, s in streamed)
    reused = [s for e, _, _ in RECORDED for s in e["shown"] if not s["cache_hit"]
              and not any(r["n"] == s["request"] and r["after_event"] == s["after_event"] for r in e["requests"])]
    assert reused
    first_key = {v: e["requests"][0]["t_ms"] - 800 for e, v, _ in RECORDED if e["id"] == "pauses"}
    assert first_key["1.1.30-vscode"] < TOLERANCE_MS < first_key["2.1.0-vscode"]
    ids = [(v, e["id"]) for e, v, _ in RECORDED]
    assert len(ids) == 2 * len(set(ids)) == 2 * 8 * len(VERSIONS)
