"""Copilot's statement splitter, rule by rule (replay/editors/copilot/splitter.py; chat-lib
0.66.0's ghostText/streamedCompletionSplitter.ts, blockTrimmer.ts, statementTree.ts)."""

from __future__ import annotations

import pytest

from replay.editors.copilot import request, splitter
from replay.editors.copilot.splitter import LONG_LOOKAHEAD, SHORT_LOOKAHEAD, TerseTrimmer, split_stream


def _chunks(raw: str, size: int = 3) -> list[int]:
    return [min(end, len(raw)) for end in range(size, len(raw) + size, size)]


def _trim(language: str, prefix: str, completion: str, lookahead: int = SHORT_LOOKAHEAD) -> str:
    offset = TerseTrimmer(language, prefix, completion, lookahead).offset()
    return completion if offset is None else completion[:offset]


def test_only_the_languages_trimmed_by_default() -> None:
    assert all(splitter.supported(lang) for lang in ("javascript", "javascriptreact", "jsx", "typescript",
                                                     "typescriptreact", "go"))
    assert not splitter.supported("python") and not splitter.supported("ruby")


def test_a_compound_statement_after_simple_ones_ends_the_part() -> None:
    completion = "\n  const y = x * 2;\n  if (y > 10) {\n    return y;\n  }\n  return x;\n"
    assert _trim("javascript", "function f(a) {\n  const x = a + 1;", completion) == "\n  const y = x * 2;"


def test_a_first_compound_statement_followed_by_another_is_one_part() -> None:
    completion = "\n  if (y > 10) {\n    return y;\n  }\n  return x;\n"
    assert _trim("javascript", "function f(y, x) {", completion) == "\n  if (y > 10) {\n    return y;\n  }"


def test_the_first_blank_line_after_some_text_ends_the_part() -> None:
    assert _trim("javascript", "a();", "\nb();\nb2();\n\nc();\n") == "\nb();\nb2();"
    assert _trim("javascript", "a();", "\n\nb();\n") == "\n\nb();\n"  # nothing before the blank line: not yet


def test_the_part_stops_at_the_containing_blocks_end() -> None:
    completion = "\n  return total;\n}\n\nfunction h() {\n  return 1;\n}\n"
    assert _trim("javascript", "function g(items) {\n  let total = 0;", completion) == "\n  return total;\n}"


def test_a_one_line_if_without_braces_is_a_simple_statement() -> None:
    completion = "\n  if (v > 1) v = 1; else v = 0;\n  const w = v * 3;\n  while (w > 0) {\n    w--;\n  }\n"
    assert _trim("javascript", "function k(v) {\n  v++;", completion) == "\n  if (v > 1) v = 1; else v = 0;\n  const w = v * 3;"


def test_past_the_look_ahead_the_part_is_cut_at_the_line_limit() -> None:
    completion = "".join(f"\nout.push({i});" for i in range(2, 16)) + "\n"
    assert _trim("javascript", "out.push(1);", completion) == "\nout.push(2);\nout.push(3);"
    short = "".join(f"\nout.push({i});" for i in range(2, 6)) + "\n"  # 5 line ends: not 3 + 3
    assert _trim("javascript", "out.push(1);", short) == short


def test_go_and_typescript_statements() -> None:
    go = "\n\ty := x * 2\n\tif y > 10 {\n\t\treturn y\n\t}\n\treturn x\n"
    assert _trim("go", "package main\n\nfunc f(a int) int {\n\tx := a + 1", go) == "\n\ty := x * 2"
    ts = "\n  y = 0;\n  norm(): number {\n    return 1;\n  }\n}\n"
    assert _trim("typescript", "export class Point {\n  x = 0;", ts) == "\n  y = 0"  # the field ends before its ';'


@pytest.mark.parametrize(("document", "cursor_after", "lookahead"), [
    ("function f() {\n}\n", "{", LONG_LOOKAHEAD),  # an empty block
    ("function f() {\n  a();\n  b();\n}\n", "b();", LONG_LOOKAHEAD),  # the block's last statement
    ("function f() {\n  a();\n  b();\n}\n", "a();", SHORT_LOOKAHEAD),  # mid-block
    ("a();\n", "a();", SHORT_LOOKAHEAD),  # a top-level statement
])
def test_the_look_ahead_follows_the_cursors_block_position(document: str, cursor_after: str, lookahead: int) -> None:
    cursor = document.index(cursor_after) + len(cursor_after)
    assert splitter.block_position_lookahead("javascript", document, cursor) == lookahead


def test_the_first_part_is_the_choice_and_the_later_ones_are_cached_under_the_longer_prefix() -> None:
    raw = "\n  const y = x * 2;\n  if (y > 10) {\n    return y;\n  }\n  return x;\n"
    split = split_stream("javascript", "function f(a) {\n  const x = a + 1;", raw, _chunks(raw), SHORT_LOOKAHEAD)
    assert raw[: split.first] == "\n  const y = x * 2;"
    assert split.read < len(raw)  # yielded while the stream went on
    assert split.cached == [("\n  const y = x * 2;", "\n  if (y > 10) {\n    return y;\n  }"),
                            ("\n  const y = x * 2;\n  if (y > 10) {\n    return y;\n  }", "\n  return x;")]


def test_a_stream_never_split_is_the_choice_whole() -> None:
    raw = "\nb();\n"
    split = split_stream("javascript", "a();", raw, _chunks(raw), SHORT_LOOKAHEAD)
    assert split.first is None and split.cached == []


def test_where_the_chunks_end_changes_the_parts() -> None:
    """The splitter is asked at each chunk that holds a newline, on the text so far."""
    raw = "\n\nfunc Hello() {\n\tfmt.Println(\"hi\")\n}\n"
    prefix = "package util\n\nvar count = 0"
    by_three = split_stream("go", prefix, raw, _chunks(raw), LONG_LOOKAHEAD)
    whole = split_stream("go", prefix, raw, [len(raw)], LONG_LOOKAHEAD)
    assert raw[: by_three.first] == "\n\nfunc Hello()"  # the declaration unfinished when first asked
    assert whole.first is None


def test_the_body_after_an_accepted_item_reads_through_the_splitter() -> None:
    body = {"stop": ["\n\n\n", "\n```"], "max_tokens": request.MAX_MULTILINE_TOKENS}
    assert request.stream_cut(body, "go") == "split"
    assert request.stream_cut({**body, "stop": ["\n"]}, "go") is None
    assert request.stream_cut(body, "python") == "block"


def test_a_long_file_reads_one_more_line_after_an_accept() -> None:
    """ghostTextStrategy.ts shouldRequestMultiline says no from 8000 lines on: takeNLines."""
    assert request.after_accept("go", False) == ("moremultiline", None, request.MAX_MULTILINE_TOKENS)
    assert request.after_accept("go", False, long_file=True) == ("moremultiline", ["\n\n"], request.MAX_SINGLELINE_TOKENS)


def test_the_block_position_in_a_class_cut_open_in_its_constructors_parameters() -> None:
    """A broken TypeScript document (chat-lib's getBlockPositionType says block-end here)."""
    prefix = "export class A extends B {\n  private readonly p: number;\n\n  constructor({\n    a = f('x'),\n    b,\n    c,"
    suffix = ("\n      d = g('y') ?? null;\n    }\n\n    if (typeof d === 'function') {\n      throw new Error('no');\n"
              "    }\n    super({ a, b });\n  }\n\n  m(): void {\n    return;\n  }\n\n  private n = 1;\n}\n")
    assert splitter.block_position_lookahead("typescript", prefix + suffix, len(prefix)) == LONG_LOOKAHEAD


def test_offsets_are_characters_in_a_text_that_is_not_all_ascii() -> None:
    completion = "\n  const é = 'ça';\n  if (é) {\n    return é;\n  }\n"
    assert _trim("javascript", "function f() {\n  const s = 'naïve';", completion) == "\n  const é = 'ça';"
