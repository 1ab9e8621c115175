"""Copilot's tree-sitter block rules (blocks.py), each case's answer as chat-lib 0.66.0's own
prompt/src/parseBlock.ts functions gave it under node."""

from __future__ import annotations

import pytest

from replay.editors.copilot import blocks, request
from replay.editors.copilot.answer import block_finished, chunk_ends, read_stream
from replay.editors.inputs import parse_object

# (language, document with "|" at the cursor, isEmptyBlockStart)
EMPTY_STARTS = [
    ("python", "def f():\n    |", True),
    ("python", "def f():\n    |\n    return 1\n", False),  # the body has a statement
    ("python", "def f():\n    |\nprint(1)\n", True),  # what follows is outside the block
    ("python", 'def f():\n    """Doc."""\n    |', True),  # a docstring alone is empty
    ("python", 'def f():\n    """Doc\n    |', True),  # an unclosed docstring
    ("python", "class A:\n    x = 1\n    |", False),
    ("python", "try:\n    pass\nexcept:\n    |", True),
    ("python", "if a:\n    pass\nelif b:\n    |\n", True),
    ("python", "x = {\n    |", False),  # not a block
    ("python", "def f():\n    return 1\n\n|", False),
    ("python", "def f(a: int|", True),  # an unfinished `def` under an ERROR
    ("python", "def f():| pass", False),  # the cursor must end its line
    ("ruby", "def f\n  |", True),
    ("ruby", "def f\n  |\nend\n", True),  # the block is its `end`
    ("ruby", "def f\n  |\n  x\nend\n", False),
    ("ruby", "x.each do |i|\n  |\nend\n", True),
    ("ruby", "class A\n  |\nend\n", True),  # `class` starts a block; no block node: empty
    ("ruby", "puts 1\n|", False),  # no block keyword on the line
]

# (language, prefix, streamed completion, isBlockBodyFinished)
FINISHED = [
    ("python", "def f():\n", "    x = 1\n    return x\n\nprint(1)\n", 22),
    ("python", "def f():\n", "    x = 1\n    return x\n", None),  # nothing after the block yet
    ("python", "def f():\n", "    a\n    b\n\n# c\nd\n", 11),  # a comment at column 0 is not the block's
    ("python", "def f():\n", "    a  # inline\nb\n", 15),  # an inline comment ends the block
    ("python", "if x:\n", "pass\n", None),  # unindented: an error to the end
    ("ruby", "def f\n  ", "x\nend\nputs 1\n", 5),  # up to the block's `end`
    ("ruby", "def f\n  ", "x\n", None),
]


@pytest.mark.parametrize(("language", "marked", "expected"), EMPTY_STARTS)
def test_empty_block_start(language: str, marked: str, expected: bool) -> None:
    cursor = marked.index("|")
    document = marked[:cursor] + marked[cursor + 1:]
    assert blocks.empty_block_start(language, document, cursor) is expected


@pytest.mark.parametrize(("language", "prefix", "completion", "expected"), FINISHED)
def test_block_body_finished(language: str, prefix: str, completion: str, expected: int | None) -> None:
    assert blocks.block_body_finished(language, prefix, completion) == expected


def test_only_python_and_ruby_are_modelled() -> None:
    """JavaScript, TypeScript and Go are trimmed by default (configBlockMode.ts): their requests
    never ask the block rules."""
    assert not blocks.supported("typescript") and not request.empty_block_start("typescript", "function f() {\n  ", 17)


def test_mid_line_the_empty_block_is_also_asked_at_the_line_end() -> None:
    """ghostTextStrategy.ts shouldRequestMultiline: an inline suggestion (before closers) asks
    isEmptyBlockStart at the cursor, then at the end of its line."""
    document = "class A:\n    def f(self):\n"
    cursor = document.index("self") + 4  # before "):"
    assert not blocks.empty_block_start("python", document, cursor)  # the line goes on
    assert blocks.empty_block_start("python", document, len(document) - 1)
    assert request.empty_block_start("python", document, cursor)
    ruby = "def f(a)\n"
    assert request.empty_block_start("ruby", ruby, ruby.index(")"))  # the regex parser reads the whole line


def test_the_stream_is_asked_at_chunks_that_hold_a_newline() -> None:
    """fetch.ts convertStreamToApiChoices: the cut is asked where a chunk holds a newline; the
    chunks are the timing's when given, else the lines."""
    raw = "    total = a\n    return total\n\nprint(1)\n"
    assert chunk_ends(raw, None) == [14, 31, 32, 41]
    assert chunk_ends(raw, [(5, 0.1), (41, 0.2)]) == [5, 41]
    assert chunk_ends(raw, [(5, 0.1)]) == [5, 41]  # the rest, if the timing stops short
    assert chunk_ends("a\nb", None) == [2, 3]
    inp = parse_object({"prefix": "def add(a):\n    ", "suffix": "\n", "language": "python"})
    kept = "    total = a\n    return total"
    assert read_stream(raw, chunk_ends(raw, None), block_finished(inp)) == (kept, 41)
    # One chunk with everything: asked once, at its newline; the block has ended by then.
    assert read_stream(raw, [len(raw)], block_finished(inp)) == (kept, 41)
    # The last line arrives in a chunk without a newline: never asked after it.
    assert read_stream(raw[:-1], [32, 40], block_finished(inp)) == (raw[:-1], 40)
