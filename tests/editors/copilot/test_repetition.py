"""Copilot drops an answer whose streamed chunks end in a repetition
(suggestions/anomalyDetection.ts `isRepetitive`, called by suggestions.ts
`postProcessChoiceInContext`); answers as chat-lib 0.66.0's own function gave them under node."""

from __future__ import annotations

import pytest

from replay.editors.copilot.answer import is_repetitive
from replay.editors.copilot.completion import complete
from replay.editors.inputs import parse_object


BLANKS = (" ", "  ", "\n", " \n", "\t", "   ", "\n\n", "  \n", "\t\t", "\n ")


@pytest.mark.parametrize(("chunks", "expected"), [
    (["a"] * 10, True),  # one chunk ten times
    (["a"] * 9, False),
    (["x", "a"] + ["a"] * 9, True),  # only the end counts
    (["a"] * 10 + ["b"], False),
    (["foo", "(", ")"] * 10, True),  # a pattern of 3 over the last 30
    (["foo", "(", ")"] * 9 + ["foo", "("], False),  # 29 chunks
    ([c for blank in BLANKS for c in ("a", blank)], True),  # ten "a" once the blank chunks are left out
    ([str(i) for i in range(20)] * 3, True),  # a pattern of 20 over the last 45
    ([str(i) for i in range(21)] * 3, True),  # 21 > 20, but a pattern of 21 over the last 60
    ([str(i) for i in range(31)] * 2, False),
    ([str(i) for i in range(30)] * 2, True),  # a pattern of 30 over the last 60
    ([], False),
])
def test_is_repetitive(chunks: list[str], expected: bool) -> None:
    assert is_repetitive(chunks) is expected


def test_a_repetitive_answer_is_dropped_and_traced() -> None:
    """The chunks are the stream's pieces (timing); the same text in one chunk is not repetitive."""
    inp = parse_object({"prefix": "values = [\n", "suffix": "\n", "language": "plaintext", "filepath": "a.txt"})
    raw = "1, " * 12
    pieces = [(3 * (i + 1), 0.0) for i in range(12)]
    shown = complete(inp, raw, timing=pieces)
    assert shown.text is None and [s.step for s in shown.trace][-1] == "isRepetitive"
    assert complete(inp, raw, timing=[(len(raw), 0.0)]).text == "1, " * 11 + "1,"


def test_without_timing_the_chunks_are_the_models_tokens() -> None:
    """A replay streams one token per event: the named model's tokens stand for the chunks."""
    inp = parse_object({"prefix": "values = [\n", "suffix": "\n", "language": "plaintext", "filepath": "a.txt"})
    raw = "0, " * 12
    assert complete(inp, raw, model="qwen2.5-coder").text is None
    assert complete(inp, raw).text is not None  # one line: one chunk
