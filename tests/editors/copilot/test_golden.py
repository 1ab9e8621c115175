"""Copilot's request bodies against the ones chat-lib 0.66.0's own provider sent
(tests/data/golden/copilot/README.md says how they were recorded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.editors.copilot.completion import complete
from replay.editors.copilot.profile import Session
from replay.editors.inputs import parse_object
from tests.support.copilot_golden import (DATA, cli_rows, in_session, load, recorded_chunks, recorded_edit, row_edit,
                                          session_edit, session_key, shown_edit)


def _load(name: str) -> list[dict]:
    return load(DATA / "golden" / "copilot" / name)


# Six recordings (README.md says what each holds); ids are unique across them.
RECORDINGS = ("", "2", "3", "4", "5", "6")
CASES = [case for n in RECORDINGS for case in _load(f"cases{n}.jsonl")]
EXPECTED = [line for n in RECORDINGS for line in _load(f"expected{n}.jsonl")]
# The statement splitter's parts depend on where the stream's chunks end (each chunk with a
# newline is split anew): these lines are read with the recorded chunks, not a model's tokens.
SPLIT = {case["item_id"] for case in _load("cases5.jsonl")}

# Three more (README.md): the editor's formatting options; documents and open files outside the
# workspace folder, with none, and names the URI percent-encodes; the language the client names
# a document by (its file name's, C grouped with C++) where the editor's id says otherwise.
NAMED = ("formatting", "paths", "language")
CASES += [case for name in NAMED for case in _load(f"cases_{name}.jsonl")]
EXPECTED += [line for name in NAMED for line in _load(f"expected_{name}.jsonl")]


def test_the_golden_data_is_line_for_line() -> None:
    assert [c["item_id"] for c in CASES] == [e["id"] for e in EXPECTED]
    assert {"python", "typescript", "javascript", "solidity"} <= {c["language"] for c in CASES}
    assert any(e["request"] is None for e in EXPECTED)  # a line the client answered from its cache


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["item_id"] for c in CASES])
def test_request_body_equals_the_one_chat_lib_sent(index: int) -> None:
    """Each case with the session it belongs to replayed before it, every answer cached."""
    session = Session("qwen2.5-coder")
    body = in_session(CASES, EXPECTED, index, lambda inp, rec: session.render(inp, rec["raw"]).request)
    assert body == EXPECTED[index]["request"]


# Lines a fresh client answers as chat-lib did: sent, and first of their session (a later one
# may depend on the session's state, e.g. an item accepted whole).
SENT = [i for i, e in enumerate(EXPECTED)
        if e["request"] is not None and all(session_key(c) != session_key(CASES[i]) for c in CASES[:i])]


@pytest.mark.parametrize("index", SENT, ids=[CASES[i]["item_id"] for i in SENT])
def test_shown_edit_equals_chat_libs_item(index: int) -> None:
    """What a fresh client (`complete`) shows of the text it received: `shown_text` replaces
    `replace_before` characters before the cursor and `replace_after` after it (chat-lib's item
    range runs from the line's start); None where it showed nothing. The later lines of a
    session are the session test's."""
    case, expected = CASES[index], EXPECTED[index]
    inp = parse_object(case)
    shown = complete(inp, expected["raw"], timing=recorded_chunks(expected["raw"]))
    assert shown_edit(shown) == recorded_edit(case, expected["shown"])



@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["item_id"] for c in CASES])
def test_a_sessions_client_shows_chat_libs_item(index: int) -> None:
    """Every line, those the client answered from its cache included, through the client of its
    session (Session.complete), the earlier lines of the session first."""
    assert session_edit(Session("qwen2.5-coder"), CASES, EXPECTED, index) == recorded_edit(CASES[index], EXPECTED[index]["shown"])


def test_the_golden_data_has_block_and_cache_cases() -> None:
    ids = {c["item_id"] for c in CASES}
    cached = [c for c, e in zip(CASES, EXPECTED) if e["request"] is None and e["shown"] is not None]
    assert {"b4-py-nested-for", "b4-rb-def-eof", "b4-rep-yes"} <= ids and len(cached) >= 5


def test_the_golden_data_has_formatting_options_and_files_named_outside_the_workspace() -> None:
    options = [c.get("options", {}) for c in CASES]
    assert {2, 3, 4, 8} <= {o["tab_size"] for o in options if "tab_size" in o}
    assert {True, False, None} <= {o["insert_spaces"] for o in options if "insert_spaces" in o}
    contexts = [block for e in EXPECTED if e["request"] for block in e["request"]["extra"]["context"]]
    assert any(block.startswith("Path: colors.py\n") for block in contexts)  # a document outside the workspace
    assert any("Compare this snippet from bisect_notes.py:" in block for block in contexts)  # an open file outside it
    assert any(not c.get("workspace") for c in CASES) and any("%20" in block for block in contexts)


def test_the_golden_data_has_typing_on_after_an_item() -> None:
    """cases6: after a multi-line item, the lines typed on it (Enter, the next line's first
    characters) in every block mode, most of them answered without a request."""
    typing = [(c, e) for c, e in zip(CASES, EXPECTED) if c["item_id"].startswith("t6")]
    assert {"python", "ruby", "cpp", "java", "javascript", "typescript", "go", "php"} <= {c["language"] for c, _ in typing}
    on_next_line = [e for c, e in typing if e["request"] is None and c["prefix"].split("\n")[-1].strip()]
    assert len(on_next_line) >= 100
    assert any("\r\n" in c["prefix"] for c, _ in typing)


def test_the_golden_data_has_split_streams_in_every_trimmed_language() -> None:
    """After an accepted item, the splitter's later parts answer the next lines from the cache."""
    split = [(c, e) for c, e in zip(CASES, EXPECTED) if c["item_id"] in SPLIT]
    assert {"javascript", "typescript", "typescriptreact", "go"} <= {c["language"] for c, _ in split}
    assert sum(e["request"] is None and e["shown"] is not None for _, e in split) >= 10


def test_cli_render_gives_the_bodies(tmp_path: Path, cli) -> None:
    """`fimreplay render --editor copilot --keep-going`, the received text given as `raw`."""
    rows = cli_rows(cli, tmp_path, list(zip(CASES, EXPECTED)), "render", "--editor", "copilot", "--model", "qwen2.5-coder",
                    "--keep-going")
    assert [row["request"] for row in rows] == [e["request"] for e in EXPECTED]
    shown = next(row for row in rows if row["request"] is not None)
    assert shown["prompt"].startswith("<|fim_prefix|>Path: ")  # the context then the prompt, Qwen's template


def test_cli_postprocess_received_gives_the_shown_edits(tmp_path: Path, cli) -> None:
    """`fimreplay postprocess --editor copilot --model M --received`: the received text as `raw`
    (its chunks not given: the model's tokens stand for them); the lines of a session through
    its client, those answered from the cache included."""
    picked = [(c, e) for c, e in zip(CASES, EXPECTED) if c["item_id"] not in SPLIT]
    rows = cli_rows(cli, tmp_path, picked, "postprocess", "--editor", "copilot", "--model", "qwen2.5-coder", "--received",
                    "--keep-going")
    for row, (case, expected) in zip(rows, picked, strict=True):
        assert row_edit(row) == recorded_edit(case, expected["shown"]), case["item_id"]


def test_cli_postprocess_reads_the_chunks_from_timing(tmp_path: Path, cli) -> None:
    """With `--editor-timing` and no model, the recorded chunks (`timing`) are the stream's:
    the repetitive answer is dropped as chat-lib dropped it, and the statement splitter's
    sessions (their later lines answered from the parts it cached) show chat-lib's items."""
    picked = [(c, e) for c, e in zip(CASES, EXPECTED)
              if c["item_id"] in ("b4-rep-yes", "b4-rep-no", "blk-rb-past") or c["item_id"] in SPLIT]
    rows = cli_rows(cli, tmp_path, picked, "postprocess", "--editor", "copilot", "--received", "--editor-timing",
                    timing=True)
    for row, (case, expected) in zip(rows, picked, strict=True):
        assert row_edit(row) == recorded_edit(case, expected["shown"]), case["item_id"]
