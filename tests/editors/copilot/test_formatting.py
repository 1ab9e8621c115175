"""The editor's formatting options (formatting.py): normalizeIndent.ts on the item's texts, and
what each Copilot client passes (chat-lib: what its caller gives; the language server: what
copilot.vim sends, 4 and spaces, when the input names none)."""

from __future__ import annotations

import pytest

from replay.editors.copilot import completion, formatting
from replay.editors.copilot_ls import profile as language_server
from replay.editors.copilot.formatting import FormattingOptions, normalize_indent
from replay.editors.copilot.profile import Session
from replay.editors.inputs import BadInputLine
from replay.records import EditorInput


def test_with_spaces_leading_tabs_become_tab_size_spaces() -> None:
    assert normalize_indent("\tx\n\t\ty", 2, True, blank_line=False) == "  x\n    y"
    assert normalize_indent("a\tb", 4, True, blank_line=False) == "a\tb"  # only leading tabs


def test_on_a_blank_line_an_off_grid_first_line_moves_every_line_to_the_next_stop() -> None:
    assert normalize_indent("  total = 0\n  return total", 4, True, blank_line=True) == "    total = 0\n    return total"
    assert normalize_indent("     a\n     b", 4, True, blank_line=True) == "        a\n        b"  # 5: runs of 1, to 8
    assert normalize_indent("  x", 4, True, blank_line=False) == "  x"  # not on a blank line
    assert normalize_indent("    x\n  y", 4, True, blank_line=True) == "    x\n  y"  # the first line is on the grid


def test_with_tabs_leading_spaces_become_tabs_and_the_rest_stays() -> None:
    assert normalize_indent("x\n    if a {\n      b\n", 4, False, blank_line=False) == "x\n\tif a {\n\t  b\n"


def test_what_each_client_passes_when_the_input_names_none() -> None:
    bare = EditorInput(prefix="x = ", suffix="\n", language="python")
    assert formatting.options(bare, None) is None  # chat-lib: getInlineCompletions without options
    assert formatting.options(bare, language_server.FORMATTING) == FormattingOptions(4, True)
    tabs = EditorInput(prefix="x = ", suffix="\n", language="python", options={"insert_spaces": False})
    assert formatting.options(tabs, None) == FormattingOptions(4, False)  # tabSize missing counts as 4
    only_size = EditorInput(prefix="x = ", suffix="\n", language="python", options={"tab_size": 2})
    assert formatting.options(only_size, None) == FormattingOptions(2, True)  # an editor passes both
    none = EditorInput(prefix="x = ", suffix="\n", language="python", options={"insert_spaces": None})
    assert formatting.options(none, language_server.FORMATTING) is None
    for bad in ({"tab_size": 0}, {"tab_size": True}, {"insert_spaces": 1}, {"insert_spaces": "yes"}):
        with pytest.raises(BadInputLine):
            formatting.options(EditorInput(prefix="", suffix="", options=bad), None)


def test_chat_lib_re_indents_the_item_to_the_options_its_caller_passes() -> None:
    base = dict(prefix="function half(x) {\n", suffix="\n}\n", language="javascript", filepath="src/h.js", workspace="/w")
    assert completion.complete(EditorInput(**base), "\t\treturn x / 2;\n").text == "\t\treturn x / 2;"
    spaces = EditorInput(**base, options={"tab_size": 2, "insert_spaces": True})
    shown = completion.complete(spaces, "\t\treturn x / 2;\n")
    assert shown.text == "    return x / 2;" and [s.step for s in shown.trace][-1] == "normalizeIndentCharacter"
    tabs = EditorInput(**base, options={"tab_size": 8, "insert_spaces": False})
    assert completion.complete(tabs, "            return x / 2;\n").text == "\t    return x / 2;"


def test_a_sessions_item_is_re_indented_and_its_cache_keeps_the_text_received() -> None:
    options = {"tab_size": 4, "insert_spaces": True}
    first = EditorInput(prefix="def greet(name):\n", suffix="\n", language="python", filepath="g.py", workspace="/w",
                        options=options)
    session = Session("qwen2.5-coder")
    received = "\tmessage = 'Hello, ' + name\n\treturn message\n"
    assert session.complete(first, received).text == "    message = 'Hello, ' + name\n    return message"
    typed = EditorInput(prefix="def greet(name):\n    mess", suffix="\n", language="python", filepath="g.py",
                        workspace="/w", options=options)
    assert session.render(typed, "").request is not None  # what was typed is not the tab-indented text cached
