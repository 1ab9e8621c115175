"""The Copilot language server's rules, one by one (replay/editors/copilot_ls: inline_layout.py, profile.py)."""

from __future__ import annotations

import pytest

from replay.editors import profile
from replay.editors.copilot_ls import inline_layout as inline
from replay.editors.copilot import layout as lay
from replay.editors.copilot import tokens
from replay.editors.copilot.answer import adjust_leading_whitespace
from replay.editors.copilot_ls.completion import complete
from replay.editors.copilot_ls.profile import LABEL, render, request_body
from replay.editors.rulebook import UnknownRelease
from replay.editors.copilot.profile import render as chat_lib_render
from replay.editors.copilot.profile import request_body as chat_lib_body
from replay.editors.inputs import BadInputLine
from replay.records import EditorInput, OpenFile


def test_a_line_is_commented_with_the_languages_marker() -> None:
    assert inline.comment_line("Path: a.py", "python") == "# Path: a.py"
    assert inline.comment_line("x", "css") == "/* x */"  # an end marker follows, after a blank
    assert inline.comment_line("x", "html") == "<!-- x -->"
    assert inline.comment_line("x", "some-new-language") == "// x"  # the default marker


def test_a_block_is_commented_line_by_line_keeping_its_trailing_newline() -> None:
    assert inline.comment_block("a\n\nb\n", "python") == "# a\n# \n# b\n"  # a blank line too
    assert inline.comment_block("a\nb", "lua") == "-- a\n-- b"
    assert inline.comment_block("", "python") == ""


def test_a_shebang_marker_is_left_as_it_is() -> None:
    assert inline.is_shebang_line("#!/usr/bin/env python3\n")
    assert not inline.is_shebang_line("#!/usr/bin/env node\n")  # not one of the client's markers
    block = lay.context_block("#!/usr/bin/env ruby", 0.7)
    assert block is not None and inline.inline_block(block, "ruby").value == "#!/usr/bin/env ruby\n"
    block = lay.context_block("Path: a.rb", 0.7)
    assert block is not None and inline.inline_block(block, "ruby").value == "# Path: a.rb\n"


def test_the_context_goes_into_the_prompt_and_the_body_has_no_context() -> None:
    inp = EditorInput(prefix="def f(x):\n    ", suffix="\n\nprint(f(1))\n", language="python",
                      filepath="/w/src/f.py", workspace="/w")
    body = request_body(inp)
    assert body is not None and "context" not in body["extra"]
    assert body["prompt"] == "# Path: src/f.py\ndef f(x):\n"  # the last line's blanks trimmed (trimLastLine)
    assert body["extra"]["prompt_tokens"] == tokens.count("# Path: src/f.py\ndef f(x):\n    ")
    chat_lib = chat_lib_body(inp)
    assert chat_lib is not None and chat_lib["extra"]["context"] == ["Path: src/f.py"]
    assert {k: v for k, v in body.items() if k not in ("prompt", "extra")} == {
        k: v for k, v in chat_lib.items() if k not in ("prompt", "extra")}  # the other fields are chat-lib's


def test_similar_file_snippets_are_commented_under_their_headline() -> None:
    util = "def mean(values):\n    return sum(values) / len(values)\n"
    inp = EditorInput(prefix="from util import mean\n\ndef spread(values):\n    ", suffix="\n", language="python",
                      filepath="/w/s.py", workspace="/w", open_files=(OpenFile(filepath="/w/util.py", text=util, language="python"),))
    body = request_body(inp)
    assert body is not None
    assert body["prompt"].startswith("# Path: s.py\n# Compare this snippet from util.py:\n# def mean(values):\n"
                                     "#     return sum(values) / len(values)\nfrom util import mean\n")


def test_elision_counts_the_commented_context_against_the_prompt_budget() -> None:
    prefix = "".join(f"x{i} = {i}\n" for i in range(4000))
    result = inline.layout([b for b in [lay.context_block("Path: big.py", 0.7)] if b], prefix, "", "python")
    assert result.prefix_tokens <= lay.MAX_PROMPT_TOKENS and result.context == ()
    assert not result.prefix.startswith("# Path:")  # the lightest block went first
    assert result.prefix.endswith("x3999 = 3999\n")


def test_the_profile_is_registered_with_its_release() -> None:
    prof, version = profile("copilot-ls@1.539.0")
    assert prof.name == "copilot-ls" and version == "1.539.0" and prof.keeps_sessions and prof.sends_body
    inp = EditorInput(prefix="def f(x):\n    return ", suffix="\n", language="python", filepath="/w/f.py", workspace="/w")
    assert render(inp, "qwen2.5-coder", "1.539.0").profile == LABEL
    with pytest.raises(UnknownRelease):
        render(inp, "qwen2.5-coder", "0.66.0")  # chat-lib's release is not one of the language server's


def test_the_shown_item_carries_this_clients_multiline_decision() -> None:
    inp = EditorInput(prefix="def add(a, b):\n    ", suffix="\n", language="python", filepath="/w/a.py", workspace="/w")
    shown = complete(inp, "return a + b\n")
    assert (shown.text, shown.replace_before) == ("return a + b", 4)  # it re-indents the blank line
    assert shown.multiline  # an empty block: a multiline request
    inp = EditorInput(prefix="const a = ", suffix="\n", language="typescript", filepath="/w/a.ts", workspace="/w")
    assert not complete(inp, "1;").multiline


def test_the_formatting_options_reach_the_shown_item() -> None:
    base = dict(prefix="func f() int {\n\t", suffix="\n}\n", language="go", filepath="/w/main.go", workspace="/w")
    assert complete(EditorInput(**base, options={"insert_spaces": False}), "x := 1\n    return x").text == "x := 1\n\treturn x"
    assert complete(EditorInput(**base, options={"insert_spaces": None}), "x := 1\n    return x").text == "x := 1\n    return x"
    blank = dict(prefix="function f() {\n  ", suffix="\n}\n", language="typescript", filepath="/w/f.ts", workspace="/w")
    shown = complete(EditorInput(**blank, options={"tab_size": 2}), "\tconst a = 1;")
    assert shown.text == "  const a = 1;" and [s.step for s in shown.trace][-1] == "normalizeIndentCharacter"


def test_bad_formatting_options_reject_the_line() -> None:
    inp = dict(prefix="x = ", suffix="\n", language="python", filepath="/w/a.py", workspace="/w")
    for options in ({"tab_size": 0}, {"tab_size": "4"}, {"insert_spaces": "yes"}, {"indent": 2}):
        with pytest.raises(BadInputLine):
            render(EditorInput(**inp, options=options), "qwen2.5-coder")
    for options in ({"tab_size": 0}, {"insert_spaces": 1}):  # chat-lib's profile checks them alike
        with pytest.raises(BadInputLine):
            chat_lib_render(EditorInput(**inp, options=options), "qwen2.5-coder")


def test_the_display_text_is_cut_before_the_indentation_is_normalised() -> None:
    """On a blank line of 5 blanks, a tab-indented answer is not the line's indentation: the
    item is the line's blanks then the normalised answer (not the answer alone)."""
    assert adjust_leading_whitespace("\tfoo();", "     ") == ("\tfoo();", False)
    assert adjust_leading_whitespace("  foo", "    ") == ("foo", True)
    assert adjust_leading_whitespace("    foo", "    ") == ("foo", False)
    inp = EditorInput(prefix="class A {\n    /**\n     ", suffix="\n     * Say hello.\n     */\n}\n", language="typescript",
                      filepath="/w/a.ts", workspace="/w")
    assert complete(inp, "\tfoo();\n\t\tbar();").text == "         foo();\n        bar();"


def test_split_context_gives_chat_libs_body() -> None:
    inp = dict(prefix="def f(x):\n    ", suffix="\n\nprint(f(1))\n", language="python", filepath="/w/src/f.py", workspace="/w")
    assert request_body(EditorInput(**inp, options={"split_context": True})) == chat_lib_body(EditorInput(**inp))
    with pytest.raises(BadInputLine):
        render(EditorInput(**inp, options={"split_context": "yes"}), "qwen2.5-coder")
