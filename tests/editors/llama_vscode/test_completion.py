"""What llama.vscode shows, by tag (ggml-org/llama.vscode src/completion.ts getCompletionItems,
shouldDiscardSuggestion, updateSuggestion, removeLeadingSpaces; src/architect.ts before v0.0.9;
src/utils.ts removeTrailingNewLines)."""

from __future__ import annotations

import pytest

from replay.editors.llama_vscode.completion import client_shown, complete, stream_stop
from replay.records import EditorInput

DOC = "def f(x):\n    y = x\n    return y\n\nprint(f(1))\n"


def _shown(prefix: str, suffix: str, raw: str, tag: str = "v0.0.63", **options: object) -> str | None:
    inp = EditorInput(prefix=prefix, suffix=suffix, options={f"llama-vscode.{k}": v for k, v in options.items()})
    return client_shown(inp, raw, tag).text


def _at(marker: str) -> tuple[str, str]:
    at = DOC.index(marker)
    return DOC[:at], DOC[at:]


def test_trailing_blank_lines_are_dropped() -> None:
    assert _shown(*_at("\nprint"), "z = 1\n\n  \n") == "z = 1"


@pytest.mark.parametrize("raw", ["", "  \n\t", "\n\n"])
def test_a_blank_answer_shows_nothing(raw: str) -> None:
    assert _shown(*_at("\nprint"), raw) is None


def test_an_answer_repeating_the_next_lines_is_discarded() -> None:
    """First line blank (or the rest of the line), then exactly the document's next lines."""
    prefix, suffix = _at("\n    return")
    assert _shown(prefix, suffix, "\n    return y") is None
    assert _shown(prefix, suffix, "\n    return y + 1") == "\n    return y + 1"


def test_an_answer_equal_to_the_rest_of_the_line_is_discarded() -> None:
    prefix, suffix = _at("= x")
    assert _shown(prefix, suffix, "= x") is None


def test_an_answer_that_turns_the_line_into_the_next_non_empty_one_is_discarded() -> None:
    """linePrefix + line 1 === the next non-empty line (alone, or with its follower's start)."""
    assert _shown("def f(x):\n    y = x\n    ", "\n    return y\n", "return y") is None
    assert _shown("def f(x):\n    y = x\n    ", "\n    return y\n\nprint(f(1))\n", "return y\n") is None


def test_reading_past_the_end_of_the_document_shows_nothing() -> None:
    """lineAt past the last line throws; getCompletionItems' catch returns []."""
    assert _shown("a\nb", "\nc", "\nc\nd") is None
    assert _shown("a\n", "b\nc", "\nb\nc\nd") == ""  # the first comparison fails before the end: line 1 ("") is kept


def test_on_the_last_line_nothing_but_blank_is_discarded() -> None:
    assert _shown("a\nb", "", "b") == "b"


@pytest.mark.parametrize(("tag", "shown"), [("v0.0.6", "foo(1)\nbar\n\n"), ("v0.0.5", "foo(1)\nbar"), ("v0.0.7", "foo(1")])
def test_the_text_after_the_cursor_by_tag(tag: str, shown: str) -> None:
    """v0.0.6 shows the answer as received (bf1b056 disabled updateSuggestion); from v0.0.7 a
    non-blank rest of line `)` is stripped from line 1's end and only line 1 is kept."""
    assert _shown("x = ", ")\n\nend\n", "foo(1)\nbar\n\n", tag=tag) == shown


def test_line_one_only_when_it_does_not_end_with_the_rest() -> None:
    assert _shown("x = ", "]\n\nend\n", "foo(1)\nbar") == "foo(1)"


@pytest.mark.parametrize(("tag", "shown"), [("v0.0.9", "    return 1"), ("v0.0.10", "return 1"), ("v0.0.12", "return 1")])
def test_a_blank_line_prefix_is_removed_from_the_shown_text(tag: str, shown: str) -> None:
    """The prompt was sent blank (#48): up to that many leading spaces are removed."""
    assert _shown("def f():\n    ", "\n", "    return 1", tag=tag) == shown


@pytest.mark.parametrize(("tag", "shown"), [("v0.0.12", "\t\treturn 1"), ("v0.0.13", "return 1")])
def test_every_leading_tab_goes_from_v0_0_13(tag: str, shown: str) -> None:
    """`i < n && str[i] === ' ' || str[i] === '\\t'` (#73): the tab test ignores n, even n = 0."""
    assert _shown("x = 1\n", "\n", "\t\treturn 1", tag=tag) == shown


def test_v0_0_40_shows_one_character_of_a_single_answer() -> None:
    """getComplFromContent returned the content string for a single answer (n_cmpl 1): its
    characters were the suggestions; fixed in v0.0.41 (#150)."""
    assert _shown("x = ", "\n", " foo", tag="v0.0.40", max_parallel_completions=1) == "f"
    assert _shown("x = ", "\n", " foo", tag="v0.0.40") == " foo"
    assert _shown("x = ", "\n", " foo", tag="v0.0.41", max_parallel_completions=1) == " foo"


def test_nothing_shown_where_nothing_was_sent() -> None:
    shown = client_shown(EditorInput(prefix="x = ", suffix="a long rest of line\n"), "1")
    assert shown.text is None and shown.trace[0].step == "getCompletionItems (no request sent)"


def test_the_server_cut_comes_first() -> None:
    """llama-server stops at a line indented less than n_indent (4 here) before the client reads."""
    inp = EditorInput(prefix="def f():\n    ret", suffix="\n")
    shown = complete(inp, "urn 1\nprint(2)\n")
    assert shown.text == "urn 1" and shown.trace[0].step.startswith("server stop")
    assert stream_stop(inp) is not None and stream_stop(EditorInput(prefix="x", suffix="")) is None


def test_a_request_only_line_is_shown_against_the_bodys_window() -> None:
    body = {"input_prefix": "def f():\n", "input_suffix": "\n    return y\n", "prompt": "    ret", "n_indent": 4}
    assert client_shown(EditorInput(prefix="", suffix="", request=body), "urn x").text == "urn x"
