"""The `copilot-ls` profile's request bodies and shown items against the ones
copilot-language-server 1.539.0 itself sent and returned (tests/data/golden/copilot-ls/README.md
says how they were recorded): its own cases, and chat-lib's golden cases run through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.editors.copilot_ls.completion import complete
from replay.editors.copilot_ls.profile import Session
from replay.editors.inputs import parse_object
from tests.support.copilot_golden import (DATA, cli_rows, in_session, load, recorded_chunks, recorded_edit, row_edit,
                                          session_edit, session_key, shown_edit)



CHAT_LIB_CASES = [c for name in ("cases.jsonl", "cases2.jsonl", "cases3.jsonl") for c in load(DATA / "golden" / "copilot" / name)]
# chat-lib's typing sessions (an item, then the lines typed on after it) run through the server.
TYPING_CASES = load(DATA / "golden" / "copilot" / "cases6.jsonl")
CASES = load(DATA / "golden" / "copilot-ls" / "cases.jsonl") + CHAT_LIB_CASES + TYPING_CASES
EXPECTED = (load(DATA / "golden" / "copilot-ls" / "expected.jsonl") + load(DATA / "golden" / "copilot-ls" / "expected_chat_lib_cases.jsonl")
            + load(DATA / "golden" / "copilot-ls" / "expected_typing.jsonl"))

# Files outside the workspace folder and with none (its own cases, then chat-lib's formatting
# and path cases run through it), then chat-lib's language cases (the language it names a
# document by: its file name's, C grouped with C++).
CASES += load(DATA / "golden" / "copilot-ls" / "cases_paths.jsonl")
CASES += [c for name in ("formatting", "paths", "language") for c in load(DATA / "golden" / "copilot" / f"cases_{name}.jsonl")]
EXPECTED += [e for name in ("paths", "chat_lib_formatting", "chat_lib_paths", "chat_lib_language")
             for e in load(DATA / "golden" / "copilot-ls" / f"expected_{name}.jsonl")]


def test_the_golden_data_is_line_for_line() -> None:
    assert [c["item_id"] for c in CASES] == [e["id"] for e in EXPECTED]
    prompts = [e["request"]["prompt"] for e in EXPECTED if e["request"]]
    assert any(p.startswith("# Path: colors.py\n# Compare this snippet from bisect_notes.py:") for p in prompts)
    assert any(p.startswith("// Language: go\npackage") for p in prompts)  # an untitled buffer: no open tab compared
    assert {"python", "typescript", "javascript", "solidity"} <= {c["language"] for c in CASES}
    assert {len(c.get("open_files", ())) for c in CASES} >= {0, 1, 2, 3}
    assert any(e["request"] is None for e in EXPECTED)  # a line the client answered from its cache
    assert all("context" not in e["request"]["extra"] for e in EXPECTED if e["request"])  # the inline layout


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["item_id"] for c in CASES])
def test_request_body_equals_the_one_the_language_server_sent(index: int) -> None:
    """Each case with the session it belongs to replayed before it, every answer cached."""
    session = Session("qwen2.5-coder")
    body = in_session(CASES, EXPECTED, index, lambda inp, rec: session.render(inp, rec["raw"]).request)
    assert body == EXPECTED[index]["request"]


SPLIT = load(DATA / "golden" / "copilot-ls" / "expected_split_context.jsonl")


def test_with_the_split_context_flag_the_bodies_are_chat_libs() -> None:
    """Option `split_context`: the server assigned `copilotenablepromptcontextproxyfield`."""
    assert [e["id"] for e in SPLIT] == [c["item_id"] for c in CHAT_LIB_CASES]
    sessions: dict[str, Session] = {}
    for case, expected in zip(CHAT_LIB_CASES, SPLIT, strict=True):
        session = sessions.setdefault(session_key(case), Session("qwen2.5-coder"))
        inp = parse_object({**case, "options": {**case.get("options", {}), "split_context": True}})
        assert session.render(inp, expected["raw"]).request == expected["request"], case["item_id"]
    chat_lib = [e["request"] for name in ("expected.jsonl", "expected2.jsonl", "expected3.jsonl")
                for e in load(DATA / "golden" / "copilot" / name)]
    assert [e["request"] for e in SPLIT] == chat_lib



# Lines a fresh server answers as the recorded one did: asked, and first of their session (a later
# one may depend on the session's state, e.g. an item accepted whole); the others are the session
# test's.
ASKED = [i for i, e in enumerate(EXPECTED)
         if e["request"] is not None and all(session_key(c) != session_key(CASES[i]) for c in CASES[:i])]


@pytest.mark.parametrize("index", ASKED, ids=[CASES[i]["item_id"] for i in ASKED])
def test_shown_edit_equals_the_language_servers_item(index: int) -> None:
    """What a fresh client shows of the text the server received, in the chunks it was streamed."""
    case, expected = CASES[index], EXPECTED[index]
    shown = complete(parse_object(case), expected["raw"], timing=recorded_chunks(expected["raw"]))
    assert shown_edit(shown) == recorded_edit(case, expected["shown"])


def test_cli_render_and_postprocess(tmp_path: Path, cli) -> None:
    """`fimreplay render --editor copilot-ls --keep-going` gives the bodies (the received text
    as `raw`); `postprocess --received --editor-timing` the shown edits, the stream read in the
    recorded chunks (a session's lines through its client, those answered from the cache included)."""
    picked = list(zip(CASES, EXPECTED))
    rows = cli_rows(cli, tmp_path, picked, "render", "--editor", "copilot-ls", "--model", "qwen2.5-coder", "--keep-going")
    assert [row["request"] for row in rows] == [e["request"] for e in EXPECTED]
    assert rows[0]["prompt"].startswith("<|fim_prefix|>#!/usr/bin/env python3\nimport sys")  # the inline prompt, Qwen's template
    shown = cli_rows(cli, tmp_path, picked, "postprocess", "--editor", "copilot-ls", "--received", "--editor-timing",
                     "--keep-going", timing=True)
    for row, case, expected in zip(shown, CASES, EXPECTED, strict=True):
        assert row_edit(row) == recorded_edit(case, expected["shown"]), case["item_id"]


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["item_id"] for c in CASES])
def test_a_sessions_client_shows_the_language_servers_item(index: int) -> None:
    """Every line, those the server answered from its cache included, through the client of its
    session (Session.complete), the earlier lines of the session first."""
    assert session_edit(Session("qwen2.5-coder"), CASES, EXPECTED, index) == recorded_edit(CASES[index], EXPECTED[index]["shown"])
