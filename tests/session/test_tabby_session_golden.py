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
# The sessions whose editor is slow to answer the agent's questions for extra context
# (context_sessions.jsonl, its `contextProviderMs`), recorded at one agent state of each rule:
# none asked (1.5.0), in turn with no limit (1.8.0), at once for at most 500 ms before the debounce
# (309edd172) and after it (e61d780ca): context_expected[_repeat]-VERSION.jsonl.
CONTEXT_VERSIONS = ("1.5.0", "1.8.0", "1.9.0-dev@2025-04-21", "1.9.0-dev")


def recordings(version: str, prefix: str = "") -> list[tuple[dict[str, Any], str]]:
    suffix = "" if version == "1.5.0" and not prefix else f"-{version}"
    return [(json.loads(line), f"{prefix}{name}{suffix}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{prefix}{name}{suffix}.jsonl").read_text(
                encoding="utf-8").splitlines(), 1)]


RECORDED = [r for v in VERSIONS for r in recordings(v)] + [r for v in CONTEXT_VERSIONS
                                                           for r in recordings(v, "context_")]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    """Every session through the `session` use case at each version, as `fimreplay session` runs
    it (tabby-agent builds no model's prompt: the model named is only what the command asks for)."""
    runs = {}
    for inputs, versions in (("sessions.jsonl", VERSIONS), ("context_sessions.jsonl", CONTEXT_VERSIONS)):
        for version in versions:
            out = tmp_path_factory.mktemp("tabby-sessions") / "out.jsonl"
            summary = session_file(SESSIONS_DIR / inputs, "tabby", version, "qwen2.5-coder", out)
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
    ids = [e["id"] for e, _ in RECORDED if not e["id"].startswith("context_")]
    assert len(ids) == 2 * len(VERSIONS) * len(set(ids)) >= 8 * len(VERSIONS)


def test_the_context_recordings_hold_what_they_are_for() -> None:
    """In the context sessions the agent asked the editor its questions from 1.8.0 on and none at
    1.5.0; at 1.8.0 one after another (each asked once the one before was answered), from
    309edd172 all together; an answer slower than 500 ms held the request 500 ms and no more from
    309edd172 on, and the whole of it at 1.8.0; a key typed during the wait dropped the call."""
    recorded = [e for e, _ in RECORDED if e["id"].startswith("context_")]
    assert len(recorded) == 2 * len(CONTEXT_VERSIONS) * 4
    for e in recorded:
        assert bool(e["context_requests"]) == (e["editor"] != "tabby@1.5.0")
    for e in (e for e in recorded if e["id"] == "context_slow" and e["editor"] != "tabby@1.5.0"):
        # the first key's four questions, the repository answered in 300 ms
        first = [q["t_ms"] for q in e["context_requests"] if q["t_ms"] < 2000]
        assert len(first) == 4
        if e["editor"] == "tabby@1.8.0":
            assert max(first) - min(first) > 300  # in turn: the semantic tokens wait for the repository
        else:
            assert max(first) - min(first) < 50
    # context_timeout: the questions take 200 and 800 ms; the first key at 800 ms, no latency known (1 ms debounce)
    held = {e["editor"]: e["requests"][0]["t_ms"] - 800 for e in recorded if e["id"] == "context_timeout"}
    assert held["tabby@1.5.0"] < 100 and held["tabby@1.8.0"] > 1000
    assert all(500 < held[f"tabby@{v}"] < 600 for v in ("1.9.0-dev@2025-04-21", "1.9.0-dev"))
    typed_over = [e for e in recorded if e["id"] == "context_typed_over" and e["editor"] != "tabby@1.5.0"]
    assert all(e["requests"][0]["after_event"] == 2 for e in typed_over)
