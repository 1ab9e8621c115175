"""`fimreplay session --editor tabby@VERSION` against the real tabby-agent: typing sessions recorded
by driving the npm package `tabby-agent@1.5.0` (textDocument/completion) and the 1.9.0-dev bundle
(textDocument/inlineCompletion, cancelled on the next change as VS Code does) over LSP, against a
loopback Tabby server whose answers came after scripted delays (tests/data/golden/tabby/sessions,
its README says how each field was observed).

The simulator (replay/session, the client of Tabby's timing rules: replay/editors/timed_client.py
with tabby-agent's adaptive debouncer, replay/editors/tabby/debouncer.py) must send the same
requests (bodies as parsed JSON: these bodies hold no clock value, so nothing is masked), give
each the same outcome, show the same items from the same answers and leave the same document; request and item times within 50 ms of the recorded ones. Every time is checked: the
agent's timing is deterministic here (its debounce is computed from the keystroke times and the
answer latencies, both scripted; the recordings differ from the model only by the agent's own
few milliseconds of work). Each session was recorded twice; both recordings are checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.usecases.session import session_file
from tests.session.recorded import assert_same_session

SESSIONS_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "tabby" / "sessions"
VERSIONS = ("1.5.0", "1.9.0-dev")  # the agents that made the recordings (expected[_repeat][-VERSION].jsonl)


def recordings(version: str) -> list[tuple[dict[str, Any], str]]:
    suffix = "" if version == "1.5.0" else f"-{version}"
    return [(json.loads(line), f"{name}{suffix}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{name}{suffix}.jsonl").read_text(encoding="utf-8").splitlines(), 1)]


RECORDED = [r for v in VERSIONS for r in recordings(v)]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    """Every session through the `session` use case at each version, as `fimreplay session` runs
    it (tabby-agent builds no model's prompt: the model named is only what the command asks for)."""
    runs = {}
    for version in VERSIONS:
        out = tmp_path_factory.mktemp("tabby-sessions") / "out.jsonl"
        summary = session_file(SESSIONS_DIR / "sessions.jsonl", "tabby", version, "qwen2.5-coder", out)
        assert summary.rejected == 0
        runs |= {(o["editor"], o["id"]): o for o in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    return runs


@pytest.mark.parametrize("expected", [e for e, _ in RECORDED], ids=[f"{e['id']} ({w})" for e, w in RECORDED])
def test_requests_outcomes_items_and_document_are_the_real_agents(
        expected: dict[str, Any], simulated: dict[tuple[str, str], dict[str, Any]]) -> None:
    assert_same_session(simulated[(expected["editor"], expected["id"])], expected)


def test_the_recordings_hold_what_the_sessions_are_for() -> None:
    """The sessions exercise each timing rule: an aborted request, an item served from the agent's
    cache (its answer's request answered earlier than the item's keystroke), a shown item per
    session, and both recordings of each session at each version."""
    outcomes = {r["outcome"] for e, _ in RECORDED for r in e["requests"]}
    assert {"shown", "cancelled"} <= outcomes
    assert all(e["shown"] for e, _ in RECORDED)
    cached = [s for e, _ in RECORDED for s in e["shown"]
              if not any(r["n"] == s["request"] and r["after_event"] == s["after_event"] for r in e["requests"])]
    assert cached
    ids = [e["id"] for e, _ in RECORDED]
    assert len(ids) == 2 * len(VERSIONS) * len(set(ids)) >= 8 * len(VERSIONS)
