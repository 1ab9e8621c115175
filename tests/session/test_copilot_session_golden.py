"""`fimreplay session --editor copilot` against GitHub Copilot's own completion code: typing
sessions recorded by driving `@vscode/chat-lib` 0.66.0's inline completions provider under node
with a VS Code-like caller (each call's cancellation token cancelled at the next edit, each item
shown reported back, `inlineCompletionShown`) against a loopback completions server whose answers
came after scripted delays (tests/data/golden/copilot/sessions, its README says how each field was
observed).

The simulator (replay/editors/copilot/live.py: chat-lib's ghost text calls with the client's state
carried, Copilot's timing rules in timing.py) must send the same requests with the same bodies
(after an accept, the after-accept strategy; the speculative request after each item shown), give
each the same outcome, show the same items from the same answers (typed as suggested, from the
completions cache, from any pending request of the async manager) and leave the same document;
request and item times within 50 ms of the recorded ones. Bodies are compared whole, as parsed
JSON; they hold no clock value, so nothing is masked. Each session was recorded twice; both
recordings are checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.usecases.session import session_file
from tests.session.recorded import assert_same_session

SESSIONS_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "copilot" / "sessions"


def recordings() -> list[tuple[dict[str, Any], str]]:
    return [(json.loads(line), f"{name}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(), 1)]


RECORDED = recordings()
SESSIONS = {s["id"]: s for s in map(json.loads, (SESSIONS_DIR / "sessions.jsonl").read_text(encoding="utf-8").splitlines())}


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every session through the `session` use case, as `fimreplay session --editor copilot` runs it
    (the model named only chooses the tokenizer of the client's own prompt: Copilot's is fixed)."""
    out = tmp_path_factory.mktemp("copilot-sessions") / "out.jsonl"
    summary = session_file(SESSIONS_DIR / "sessions.jsonl", "copilot", None, "qwen2.5-coder", out)
    assert summary.rejected == 0
    return {o["id"]: o for o in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


@pytest.mark.parametrize("expected", [e for e, _ in RECORDED], ids=[f"{e['id']} ({w})" for e, w in RECORDED])
def test_requests_outcomes_items_and_document_are_chat_libs(
        expected: dict[str, Any], simulated: dict[str, dict[str, Any]]) -> None:
    assert_same_session(simulated[expected["id"]], expected)


def test_the_recordings_hold_what_the_sessions_are_for() -> None:
    """The sessions exercise each timing rule: a request never sent (dropped while waiting), a
    request sent only when the wait for the one in flight ended, an answer not shown, an item per
    session, an accept, and both recordings of each session."""
    for expected, _ in RECORDED:
        assert expected["shown"]
    sent_after = [(e["id"], r["after_event"]) for e, _ in RECORDED for r in e["requests"]]
    typed = {(e["id"], i) for e, _ in RECORDED for i, ev in enumerate(SESSIONS[e["id"]]["events"]) if ev["type"] != "open"}
    assert typed - set(sent_after)  # a keystroke whose request never went out
    assert any(r["outcome"] == "not_shown" for e, _ in RECORDED for r in e["requests"])
    ids = [e["id"] for e, _ in RECORDED]
    assert len(ids) == 2 * len(set(ids)) >= 6


def _after_accept(body: dict[str, Any]) -> bool:
    """ghostTextStrategy.ts after an accepted item (request.py after_accept)."""
    return (body["max_tokens"], body["stop"], body["extra"]["trim_by_indentation"]) == (20, ["\n\n"], False)


def test_the_recordings_hold_the_client_state_the_sessions_are_for() -> None:
    """The state carried from one call to the next shows in the recordings: the request after an
    accept asks with the after-accept strategy; after an item from a request or the cache a
    speculative request asks at the document with it accepted (also after-accept); an item comes
    from the completions cache, held 200 ms after its key, with no request sent at that key; an
    item comes from an earlier request while the call's own request is still pending; a pending
    speculative request is cancelled by a call it no longer matches."""
    for expected, _ in RECORDED:
        events = SESSIONS[expected["id"]]["events"]
        requests = expected["requests"]
        after_accept = [r for r in requests if events[r["after_event"]]["type"] == "accept" and r["t_ms"] < events[r["after_event"]]["t_ms"] + 200]
        assert all(_after_accept(r["body"]) for r in after_accept)
        for item in expected["shown"]:
            follow = [r for r in requests if r["after_event"] == item["after_event"] and item["t_ms"] <= r["t_ms"] < item["t_ms"] + 50]
            for r in follow:  # the speculative request: the prompt ends with the item's line
                assert r["body"]["prompt"].endswith(item["shown_text"]) and _after_accept(r["body"])
    items = [(e, s) for e, _ in RECORDED for s in e["shown"]]
    assert any(r["body"]["prompt"].endswith(s["shown_text"]) for e, s in items for r in e["requests"]
               if r["after_event"] == s["after_event"] and r["t_ms"] >= s["t_ms"])
    assert any(all(r["after_event"] != s["after_event"] or r["t_ms"] > s["t_ms"] for r in e["requests"])
               and e["requests"][s["request"] - 1]["after_event"] < s["after_event"] - 1
               and s["t_ms"] - SESSIONS[e["id"]]["events"][s["after_event"]]["t_ms"] >= 190 for e, s in items)
    assert any(r["n"] > s["request"] and r["t_ms"] < s["t_ms"] < r.get("answered_ms", 0) and r["after_event"] == s["after_event"]
               for e, s in items for r in e["requests"])
    assert any(r["outcome"] == "cancelled" and _after_accept(r["body"]) for e, _ in RECORDED for r in e["requests"])
