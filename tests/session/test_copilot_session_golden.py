"""`fimreplay session --editor copilot` against GitHub Copilot's own completion code: typing
sessions recorded by driving `@vscode/chat-lib` 0.66.0's inline completions provider under node
with a VS Code-like caller (each call's cancellation token cancelled at the next edit) against a
loopback completions server whose answers came after scripted delays
(tests/data/golden/copilot/sessions, its README says how each field was observed).

The simulator (replay/session with Copilot's timing rules, replay/editors/copilot/timing.py: no
debounce, the wait for a matching request in flight, the hold of an item until completionsDelay)
must send the same requests, give each the same outcome, show the same items from the same
answers and leave the same document; request and item times within 50 ms of the recorded ones.
Bodies are compared as parsed JSON; they hold no clock value, so nothing is masked for time. The
one body rule the session simulator does not apply is the request after an accepted item
(request.py `after_accept`: the client's ClientState is not carried through a session): for those
requests the fields it sets, AFTER_ACCEPT_FIELDS, are left out of the comparison. Each session was
recorded twice; both recordings are checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.usecases.session import session_file
from tests.session.recorded import assert_same_session

SESSIONS_DIR = Path(__file__).resolve().parents[1] / "data" / "golden" / "copilot" / "sessions"
AFTER_ACCEPT_FIELDS = ("max_tokens", "stop", "extra.trim_by_indentation")  # ghostTextStrategy.ts after an accept


def recordings() -> list[tuple[dict[str, Any], str]]:
    return [(json.loads(line), f"{name}:{n}") for name in ("expected", "expected_repeat")
            for n, line in enumerate((SESSIONS_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(), 1)]


RECORDED = recordings()
SESSIONS = {s["id"]: s for s in map(json.loads, (SESSIONS_DIR / "sessions.jsonl").read_text(encoding="utf-8").splitlines())}


def compared_body(body: dict[str, Any], after_accept: bool) -> dict[str, Any]:
    """The body as compared: after an accepted item without AFTER_ACCEPT_FIELDS."""
    if not after_accept:
        return body
    out = {k: v for k, v in body.items() if k not in AFTER_ACCEPT_FIELDS}
    out["extra"] = {k: v for k, v in body["extra"].items() if f"extra.{k}" not in AFTER_ACCEPT_FIELDS}
    return out


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
    events = SESSIONS[expected["id"]]["events"]
    assert_same_session(simulated[expected["id"]], expected,
                        body=lambda r: compared_body(r["body"], events[r["after_event"]]["type"] == "accept"))


def test_the_after_accept_fields_are_all_that_differ_and_only_after_an_accept(simulated: dict[str, dict[str, Any]]) -> None:
    """What the comparison leaves out is exactly the after-accept strategy: the real client's
    request after an accept asks for one line (stop ["\\n\\n"], 20 tokens, no indentation trim)."""
    for expected, _ in RECORDED:
        events = SESSIONS[expected["id"]]["events"]
        for mine, real in zip(simulated[expected["id"]]["requests"], expected["requests"], strict=True):
            if events[real["after_event"]]["type"] == "accept":
                assert (real["body"]["max_tokens"], real["body"]["stop"], real["body"]["extra"]["trim_by_indentation"]) == (20, ["\n\n"], False)
            else:
                assert mine["body"] == real["body"]


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
