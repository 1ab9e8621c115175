"""What llama.vim shows of an answer (ggml-org/llama.vim autoload/llama.vim `s:fim_render`),
each rule with the commit it holds from, and the profile's completion stage over the server's
n_indent cut."""

from __future__ import annotations

from replay.editors import PROFILES
from replay.editors.llama_vim.fim_render import shown
from replay.editors.llama_vim.releases import rules_at
from replay.editors.llama_vim.request import Buffer
from replay.records import EditorInput

HEAD = rules_at(None)
OLD = rules_at("3fb05d3")  # before the whitespace-line rules (2d5a1fe) and re-reading the line (057225f)


def show(prefix: str, suffix: str, text: str, rules=HEAD) -> str | None:
    return shown(Buffer.of(prefix, suffix), text, rules, 256, 64).text


def test_trailing_empty_lines_dropped_and_rest_of_line_appended() -> None:
    result = shown(Buffer.of("x = f(", ")\n"), "a, b\n\n", HEAD)
    assert (result.text, result.replace_after) == ("a, b)", 1)
    assert [s.step for s in result.trace] == ["remove trailing new lines", "append the rest of the line"]


def test_empty_answer_shows_nothing() -> None:
    assert show("x", "\n", "") is None
    assert show("x", "\n", "\n\n") is None


def test_first_line_empty_and_next_lines_repeated() -> None:
    assert show("a", "\nb\nc\n", "\nb\nc") is None
    assert show("a", "\nb\nc\n", "\nb\nd") == "\nb\nd"


def test_one_line_equal_to_the_rest_of_the_line() -> None:
    assert show("f(", "x)\n", "x)") is None


def test_line_made_equal_to_the_next_non_blank_line() -> None:
    doc_after = "\n\n  \nreturn y\nz = 1\nw = 2\n"
    assert show("ret", doc_after, "urn y") is None  # alone
    assert show("ret", doc_after, "urn y\nz =") is None  # with a second line that starts the next one
    assert show("ret", doc_after, "urn y\nz = 1\nw = 2") is None  # with the lines after it
    assert show("ret", doc_after, "urn y\nq") == "urn y\nq"


def test_second_line_empty_compares_the_whole_next_line() -> None:
    # Vim's `getline(...)[:len("") - 1]` is `[:-1]`: the whole line, so "" only matches an empty one
    assert show("ret", "\nreturn y\nz = 1\n", "urn y\n ") == "urn y\n "


def test_whitespace_only_line_trims_the_answers_indentation_since_2d5a1fe() -> None:
    assert show("def f():\n    ", "\n", "    return 1") == "return 1"
    assert show("def f():\n    ", "\n", "    return 1", OLD) == "    return 1"


def test_whitespace_only_suggestion_not_accepted_since_1175c8d() -> None:
    assert show("x = 1", "\n", "   ") is None
    assert show("x = 1", "\n", "   ", rules_at("057225f")) == "   "
    assert show("x = 1", "\n", "\n  ") == "\n  "  # '^\s*$' does not match across a newline


def test_profile_stage_applies_the_servers_indent_cut_first() -> None:
    inp = EditorInput(prefix="def f():\n    ", suffix="\n")  # n_indent 0 on a whitespace-only line (HEAD)
    vim = PROFILES["llama.vim"]
    assert vim.complete(inp, "    a = 1\n    return a\nprint(1)", None).text == "a = 1\n    return a\nprint(1)"
    inp = EditorInput(prefix="def f():\n    x", suffix="\n")  # n_indent 4
    assert vim.complete(inp, " = 1\n    return x\nprint(1)", None).text == " = 1\n    return x"
    assert vim.stream_stop(inp, "m") is not None


def test_capture_body_alone_gives_the_document() -> None:
    body = {"input_prefix": "a\n", "prompt": "b", "input_suffix": "c\n\n", "n_indent": 0}
    inp = EditorInput(prefix="", suffix="", request=body)
    assert PROFILES["llama.vim"].complete(inp, "c", None).text is None  # repeats the rest of the line
