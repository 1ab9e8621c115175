"""Copilot's request body and the state it carries between requests (request.py, session.py)."""

from __future__ import annotations

import pytest

from replay.editors.copilot import multiline_model, request
from replay.editors.copilot.profile import render, request_body
from replay.editors.rulebook import UnknownRelease
from replay.editors.copilot.answer import Choice
from replay.editors.copilot.session import ClientState, edit_distance
from replay.editors.inputs import BadInputLine
from replay.records import EditorInput


def test_stops_per_language() -> None:
    assert request.stops("python") == ["\ndef ", "\nclass ", "\nif ", "\n\n#"]
    assert request.stops("markdown") == ["\n\n\n"]
    assert request.stops("solidity") == ["\n\n\n", "\n```"]


@pytest.mark.parametrize(("language", "mode"), [("typescript", "moremultiline"), ("go", "moremultiline"),
                                                ("python", "parsingandserver"), ("ruby", "parsing"),
                                                ("solidity", "server"), ("java", "server")])
def test_block_mode(language: str, mode: str) -> None:
    assert request.block_mode(language) == mode


def test_multiline_decision() -> None:
    assert request.multiline("solidity", "x", 1, "x", "")  # Server: always
    doc = "function f() {\n  \n}\n"
    assert not request.multiline("typescript", doc, 17, doc[:15], "}\n")  # trimmed by default: single
    doc = "def f():\n    \n\nprint(1)\n"
    assert request.multiline("python", doc, len("def f():\n    "), "def f():\n", "print(1)\n")  # empty block
    doc = "class Greeter\n  def greet(name)\n    \n  end\nend\n"
    assert request.empty_block_start("ruby", doc, doc.index("    \n") + 4)


@pytest.mark.parametrize(("prefix", "suffix", "language", "expected"), [
    # requestMultilineScore's values under node (chat-lib 0.66.0)
    ("def f(xs):\n    for x in xs:\n", "print(x)\n", "python", 0.5100062169572822),
    ("const a = 1;\nfunction f() {\n", "}\n", "javascript", 0.4410818807875445),
    ("x = [\n", "]\n", "python", 0.2732087423581139),
    ("", "", "python", 0.27673583769122834),
    ("# comment\nimport os\n# another\ndef g():\n", "", "python", 0.5190856100908786),
])
def test_multiline_model_scores_as_the_client(prefix: str, suffix: str, language: str, expected: float) -> None:
    assert multiline_model.score(prefix, suffix, language) == pytest.approx(expected, abs=1e-12)


def test_next_indent_is_the_first_non_blank_line_after_the_cursors() -> None:
    assert request.next_indent("a\n  b|\n\n    c\n", 5) == 4
    assert request.next_indent("a", 1) == 0


def test_a_short_document_is_not_completed() -> None:
    assert request_body(EditorInput(prefix="x = ", suffix="", language="python")) is None


def test_body_for_one_cursor() -> None:
    body = request_body(EditorInput(prefix="const a = 1;\nconst b = ", suffix=";\nexport { a, b };\n",
                                    filepath="src/x.js", workspace="/w", language="javascript"))
    assert body is not None
    assert body["prompt"] == "const a = 1;\nconst b = " and body["suffix"] == "export { a, b };\n"
    assert body["stop"] == ["\n"] and body["max_tokens"] == 500 and body["temperature"] == 0 and body["n"] == 1
    assert body["extra"]["context"] == ["Path: src/x.js"] and body["extra"]["trim_by_indentation"] is False


def test_suffix_is_reused_when_it_barely_changed() -> None:
    state = ClientState()
    old = "".join(f"value_{i} = compute({i})\n" for i in range(20))
    assert state.suffix(old) == old
    assert state.suffix(old.replace("value_19", "value_91")) == old  # a small edit far down: kept
    changed = "# new first line\n" + old
    assert state.suffix(changed) == changed  # the first token differs: the new suffix


def test_edit_distance_is_the_clients() -> None:
    # findEditDistanceScore's values for these pairs, under node
    pairs = {((1, 2, 3), (9, 1, 2, 3)): 1, ((1, 2), (2, 1)): 2, ((7,), (7, 8, 9)): 2, ((1, 2), (3, 4, 1, 2)): 2, ((), (1, 2)): 2}
    for (a, b), distance in pairs.items():
        assert edit_distance(list(a), list(b)) == distance


def test_completions_cache_answers_typing_as_suggested() -> None:
    state = ClientState()
    state.cache.append("def f():\n", "", Choice("    return 1", ()))
    assert state.cached("def f():\n    ret", "")
    assert not state.cached("def f():\n    return 1", "")  # nothing left to show
    assert not state.cached("def f():\n    ret", "other suffix")


def test_bad_inputs() -> None:
    with pytest.raises(BadInputLine):
        render(EditorInput(prefix="x = 1\n", suffix="", language="python", options={"bogus": 1}), "qwen2.5-coder")
    with pytest.raises(UnknownRelease):  # the one error of every rule book for a release it does not model
        render(EditorInput(prefix="x = 1\n", suffix="", language="python"), "qwen2.5-coder", version="1.0")


def test_the_item_rewrites_its_line_from_the_start() -> None:
    from replay.editors.copilot.answer import insert_text

    assert insert_text("    x = ", "", "1", "") == "    x = 1"
    assert insert_text("    ", "", "return 1", "    ") == "return 1"  # a blank line: re-indented by the answer
    assert insert_text("    ", "", "    return 1", "    ") == "    return 1"
    assert insert_text("    ", ")", "return 1", "    ") == "    return 1"  # the line is not blank
