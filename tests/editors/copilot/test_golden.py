"""Copilot's request bodies against the ones chat-lib 0.66.0's own provider sent
(tests/data/copilot_golden/README.md says how they were recorded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.editors.copilot.completion import complete
from replay.editors.copilot.profile import Session
from replay.editors.inputs import parse_object

DATA = Path(__file__).resolve().parents[2] / "data" / "copilot_golden"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


# Two recordings: the first (cases.jsonl) for the prompt, the second (cases2.jsonl) for the answer
# side's rules and more positions; ids are unique across both.
CASES = _load("cases.jsonl") + _load("cases2.jsonl") + _load("cases3.jsonl")
EXPECTED = _load("expected.jsonl") + _load("expected2.jsonl") + _load("expected3.jsonl")


def recorded_chunks(raw: str) -> list[tuple[int, float]]:
    """The recording fetcher streamed 3 characters per chunk (README.md): as `timing`."""
    return [(min(end, len(raw)), 0.0) for end in range(3, len(raw) + 3, 3)]


def _key(case: dict) -> str:
    return case.get("session") or case["item_id"]


def test_the_golden_data_is_line_for_line() -> None:
    assert [c["item_id"] for c in CASES] == [e["id"] for e in EXPECTED]
    assert {"python", "typescript", "javascript", "solidity"} <= {c["language"] for c in CASES}
    assert any(e["request"] is None for e in EXPECTED)  # a line the client answered from its cache


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["item_id"] for c in CASES])
def test_request_body_equals_the_one_chat_lib_sent(index: int) -> None:
    """Each case with the session it belongs to replayed before it, every answer cached."""
    key = _key(CASES[index])
    session = Session("qwen2.5-coder")
    for case, expected in zip(CASES[: index + 1], EXPECTED[: index + 1]):
        if _key(case) != key:
            continue
        body = session.render(parse_object(case), expected["raw"]).request
    assert body == expected["request"]


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["item_id"] for c in CASES])
def test_shown_edit_equals_chat_libs_item(index: int) -> None:
    """What the client showed of the text it received: `shown_text` replaces `replace_before`
    characters before the cursor and `replace_after` after it (chat-lib's item range runs from
    the line's start); None where it showed nothing. Lines it answered from its cache are left
    out (their item comes from an earlier answer)."""
    case, expected = CASES[index], EXPECTED[index]
    if expected["request"] is None:
        pytest.skip("no request: the item, if any, came from the cache")
    inp = parse_object(case)
    shown = complete(inp, expected["raw"], timing=recorded_chunks(expected["raw"]))
    item = expected["shown"]
    if item is None:
        assert shown.text is None
        return
    column = len(inp.prefix.split("\n")[-1])
    assert (shown.text, shown.replace_before, shown.replace_after) == (
        item["insertText"], column - item["range"]["start"]["character"], item["range"]["end"]["character"] - column)


def test_cli_render_gives_the_bodies(tmp_path: Path, cli) -> None:
    """`fimreplay render --editor copilot --keep-going`, the received text given as `raw`."""
    lines = [json.dumps({**case, "raw": expected["raw"]}) for case, expected in zip(CASES, EXPECTED)]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = cli("render", str(tmp_path / "in.jsonl"), "--editor", "copilot", "--model", "qwen2.5-coder",
              "--keep-going", "-o", str(tmp_path / "out.jsonl"))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["request"] for row in rows] == [e["request"] for e in EXPECTED]
    shown = next(row for row in rows if row["request"] is not None)
    assert shown["prompt"].startswith("<|fim_prefix|>Path: ")  # the context then the prompt, Qwen's template


def test_cli_postprocess_received_gives_the_shown_edits(tmp_path: Path, cli) -> None:
    """`fimreplay postprocess --editor copilot --received`: the received text as `raw` (no
    chunks given: each line is one)."""
    sent = [(c, e) for c, e in zip(CASES, EXPECTED) if e["request"] is not None]
    lines = [json.dumps({**case, "raw": expected["raw"]}) for case, expected in sent]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = cli("postprocess", str(tmp_path / "in.jsonl"), "--editor", "copilot", "--received", "--keep-going",
              "-o", str(tmp_path / "out.jsonl"))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    for row, (case, expected) in zip(rows, sent, strict=True):
        item = expected["shown"]
        if item is None:
            assert row["shown_text"] is None, case["item_id"]
            continue
        column = len(case["prefix"].split("\n")[-1])
        assert (row["shown_text"], row["replace_before"], row["replace_after"]) == (
            item["insertText"], column - item["range"]["start"]["character"],
            item["range"]["end"]["character"] - column), case["item_id"]
