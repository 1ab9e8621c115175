"""Continue's completion stage (replay/editors/continue_/completion.py) against Continue's own
golden cases, release by release: the stream transforms, postprocessing and the rules by release.

Golden sources (continuedev/continue), each test names its file:
- core/autocomplete/filtering/streamTransforms/lineStream.vitest.ts, charStream.vitest.ts,
  core/autocomplete/postprocessing/index.test.ts, generation/utils.vitest.ts,
  generation/GeneratorReuseManager.vitest.ts; for the 2024 pipeline core/autocomplete/
  lineStream.test.ts, charStream.test.ts (v0.8.55) and noDoubleNewlineAfterClosingBracket.test.ts
  (2024-11-16).
Version tests check a rule present in one release and absent in an earlier one; the contract test
checks that the stream can be cut where stream_stop says without changing what is shown.
The testCases.ts cases: test_completion_cases.py.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterable

import pytest

from replay.editors.continue_ import charstream as cs
from replay.editors.continue_ import linestream as ls
from replay.editors.continue_.charstream import Feed, to_units
from replay.editors.continue_.completion import complete, stream_stop
from replay.editors.continue_.langinfo import lang_info
from replay.editors.continue_.multiline import (
    markdown_use_multiline,
    should_complete_multiline,
)
from replay.editors.continue_.postprocessing import postprocess_completion
from replay.editors.continue_.releases import releases
from replay.editors.continue_.rules import _RELEASE_EXCEPTIONS, CHANGES, rules_for
from replay.records import EditorInput

MODEL = "qwen2.5-coder:1.5b"


def _lines(items: Iterable[str]) -> list[str]:
    return list(items)


def _feed() -> Feed:
    return Feed(())


# ---------------------------------------------------------------------------------------------
# lineStream.vitest.ts (newest) and lineStream.test.ts (v0.8.55)


def test_avoid_path_line_and_empty_comments() -> None:
    """lineStream.vitest.ts avoidPathLine / avoidEmptyComments; lineStream.test.ts (v0.8.55)
    avoidPathLineAndEmptyComments does both."""
    lines = ["// Path: src/index.ts", "const x = 5;", "//", "console.log(x);"]
    assert _lines(ls.avoid_path_line(iter(lines), "//", False)) == ["const x = 5;", "//", "console.log(x);"]
    assert _lines(ls.avoid_empty_comments(iter(lines), "//", True)) == ["// Path: src/index.ts", "const x = 5;", "console.log(x);"]
    assert _lines(ls.avoid_path_line(iter(lines), "//", True)) == ["const x = 5;", "console.log(x);"]


def test_stream_with_new_lines() -> None:
    """lineStream.vitest.ts streamWithNewLines."""
    assert _lines(ls.stream_with_new_lines(iter(["line1", "line2", "line3"]))) == ["line1", "\n", "line2", "\n", "line3"]


@pytest.mark.parametrize("rule", ["lev10", "prefix12"])
def test_line_is_repeated(rule: str) -> None:
    """lineStream.vitest.ts lineIsRepeated (same answers in the v0.8.55 lineStream.test.ts, whose
    rule also accepts a common prefix longer than 12)."""
    assert ls.line_is_repeated("const x = 5;", "const x = 6;", rule)
    assert not ls.line_is_repeated("const x = 5;", "let y = 10;", rule)
    assert not ls.line_is_repeated("x=5", "x=6", rule)


def test_line_is_repeated_by_release() -> None:
    """One edit in 12 units is under 10% (2024-11-10 on) but not under 5% (2024-11-05..10); a
    shared 13-unit prefix was enough before 2024-11-05."""
    assert not ls.line_is_repeated("const x = 5;", "const x = 6;", "lev05")
    assert ls.line_is_repeated("const value = compute(1, 2, 3);", "const value = other()", "prefix12")
    assert not ls.line_is_repeated("const value = compute(1, 2, 3);", "const value = other()", "lev10")


@pytest.mark.parametrize("blank_first", [True, False])
def test_stop_at_similar_line(blank_first: bool) -> None:
    """lineStream.vitest.ts stopAtSimilarLine (v0.8.55 lineStream.test.ts: the same three)."""
    feed = _feed()
    lines = ["console.log();", "const y = () => {};", "const x = 6"]
    assert _lines(ls.stop_at_similar_line(iter(lines), "const x = 6", feed, "lev10", blank_first)) == lines[:2]
    assert feed.cancelled
    feed = _feed()
    lines = ["console.log();", "const y = () => {};", "const x = 6;"]
    assert _lines(ls.stop_at_similar_line(iter(lines), "aconst x = 6;", feed, "lev10", blank_first)) == lines[:2]
    feed = _feed()
    lines = [" if (x > 0) {", "   console.log(x);", " }"]
    assert _lines(ls.stop_at_similar_line(iter(lines), "}", feed, "lev10", blank_first)) == lines
    assert not feed.cancelled


STOP_AT_LINES_CASES = [
    # (lines, kept, validated only) lineStream.vitest.ts stopAtLines
    (["const x = 5;", "let y = 10;", "# End of file.", "const z = 15;"], 2, False),
    (["const x = 5;", "let y = 10;", "    # End of file.", "const z = 15;"], 2, False),
    (["const x = 5;", 'console.log("# End of file. not really");', "let y = 10;", "const z = 15;"], 4, True),
    (["const x = 5;", "const message = '# End of file. not really';", "let y = 10;"], 3, True),
    (["const x = 5;", "// This function stops<STOP EDITING HERE>after processing", "let y = 10;"], 3, True),
    (["const x = 5;", "let y = 10;", "# End of file. Done here", "const z = 15;"], 2, False),
]


@pytest.mark.parametrize(("lines", "kept", "validated_only"), STOP_AT_LINES_CASES)
def test_stop_at_lines(lines: list[str], kept: int, validated_only: bool) -> None:
    """lineStream.vitest.ts stopAtLines (validatePatternInLine since 2025-07-24); until then
    (lineStream.test.ts) a stop phrase anywhere in the line stopped, quotes or not."""
    newest, old = rules_for(None), rules_for("1.0.16")
    assert (newest.stop_at_lines, old.stop_at_lines) == ("validated", "includes")
    assert _lines(ls.stop_at_lines(iter(lines), _feed(), newest.lines_to_stop_at, "validated")) == lines[:kept]
    old_kept = next(i for i, line in enumerate(lines) if "# End of file." in line or "<STOP EDITING HERE" in line)
    assert _lines(ls.stop_at_lines(iter(lines), _feed(), old.lines_to_stop_at, "includes")) == lines[:old_kept]
    assert (old_kept != kept) == validated_only


def test_skip_prefixes_and_repeating_lines() -> None:
    """lineStream.vitest.ts skipPrefixes, stopAtRepeatingLines."""
    assert _lines(ls.skip_prefixes(iter(["<COMPLETION>const x = 5;", "let y = 10;"]))) == ["const x = 5;", "let y = 10;"]
    lines = ["const x = 5;", "let y = 10;", "const z = 15;"]
    assert _lines(ls.stop_at_repeating_lines(iter(lines), _feed())) == lines
    feed = _feed()
    lines = ["const x = 5;", "let y = 10;", "let y = 10;", "let y = 10;", "const z = 15;"]
    assert _lines(ls.stop_at_repeating_lines(iter(lines), feed)) == ["const x = 5;", "let y = 10;"]
    assert feed.cancelled


@pytest.mark.parametrize(("line", "pattern", "valid", "index", "before"), [
    # lineStream.vitest.ts validatePatternInLine (None: not asserted there)
    ("const x = 5;", "[/CODE]", False, -1, ""),
    ('const var[/CODE]Name = "test";', "[/CODE]", False, 9, None),
    ('console.log("test [/CODE] end");', "[/CODE]", False, 18, None),
    ("const message = 'test [/CODE] end';", "[/CODE]", False, 22, None),
    ("some code [/CODE] more text", "[/CODE]", True, 10, "some code "),
    ("[/CODE]", "[/CODE]", True, 0, ""),
    ("    [/CODE]", "[/CODE]", True, 4, "    "),
    ('const x = "unclosed quote [/CODE]', "[/CODE]", False, None, None),
    ('const x = "closed"; [/CODE]', "[/CODE]", True, None, None),
    ("# End of file. Done", "# End of file.", True, None, None),
    ("    ```", "```", True, None, None),
])
def test_validate_pattern_in_line(line: str, pattern: str, valid: bool, index: int | None, before: str | None) -> None:
    got_valid, got_index, got_before = ls.validate_pattern_in_line(line, pattern)
    assert got_valid is valid
    assert index is None or got_index == index
    assert before is None or got_before == before


NO_DOUBLE_NEWLINE_AFTER_CLOSING_BRACKET = [
    # noDoubleNewlineAfterClosingBracket.test.ts (2024-11-16): (input, output)
    (["function test() {", '  console.log("Hello World");', "}"], None),
    (["function test() {", '  console.log("Hello World");', "}", "", "", "// End of function"], None),
    (['  console.log("Hello World");', "}", "", "", "// This should not be yielded", 'console.log("End");'],
     ['  console.log("Hello World");', "}"]),
    (["function test() {", '  console.log("Hello World");', "}", ")", "// Continue code", 'console.log("End");'], None),
    (["function test() {", '  console.log("Hello World");', "}", "", "", ")", 'console.log("End");'], None),
    (["const arr = [", "  1, 2, 3,", "];", "", "", "console.log(arr);"], None),
    (["if (condition) {", "  doSomething();", "}", "}", "", "", "doSomethingElse();"],
     ["if (condition) {", "  doSomething();", "}", "}"]),
    (["while (true) {", "  // Infinite loop", "}", "", "", "// Loop exited"], None),
]


@pytest.mark.parametrize(("lines", "expected"), NO_DOUBLE_NEWLINE_AFTER_CLOSING_BRACKET)
def test_no_double_newline_after_closing_bracket(lines: list[str], expected: list[str] | None) -> None:
    assert _lines(ls.no_double_newline_after_closing_bracket(iter(lines))) == (lines if expected is None else expected)


# ---------------------------------------------------------------------------------------------
# charStream.vitest.ts (newest), charStream.test.ts (v0.8.55), GeneratorReuseManager, utils

STOP_TOKEN_CASES = [
    (["Hello", " world", "! Stop", "here"], ["Stop"], "Hello world! "),
    (["This", " is a ", "test. END", " of stream"], ["END", "STOP", "HALT"], "This is a test. "),
    (["Hello", " wo", "r", "ld! ST", "OP now"], ["STOP"], "Hello world! "),
    (["This", " is ", "a complete", " stream"], ["END"], "This is a complete stream"),
    (["Hello", "", " world", "", "! STOP"], ["STOP"], "Hello world! "),
    (["STOP", "Hello world"], ["STOP"], ""),
    (["Hello world", "STOP"], ["STOP"], "Hello world"),
    (["This is a ", "test with ", "multiple STOP", " tokens END"], ["STOP", "END", "HALT"], "This is a test with multiple "),
    ([], ["STOP"], ""),
    (["Hello", " world!"], [], "Hello world!"),
]


@pytest.mark.parametrize("tail_filter", [True, False])
@pytest.mark.parametrize(("chunks", "stops", "expected"), STOP_TOKEN_CASES)
def test_stop_at_stop_tokens(chunks: list[str], stops: list[str], expected: str, tail_filter: bool) -> None:
    """charStream.vitest.ts stopAtStopTokens; the same ten in charStream.test.ts (v0.8.55)."""
    assert "".join(cs.stop_at_stop_tokens(iter(chunks), stops, tail_filter)) == expected


def test_stop_token_in_a_short_final_buffer() -> None:
    """charStream.vitest.ts: a stop word in a final buffer shorter than the longest stop word is
    removed since 2024-11-13; v0.8.55 shows it."""
    stops = ["STOP", "STOP_TOKEN_THAT_IS_LARGER_THAN_BUFFER"]
    assert (rules_for("0.8.55").stop_tail_filter, rules_for("0.9.246").stop_tail_filter) == (False, True)
    assert "".join(cs.stop_at_stop_tokens(iter(["Hello world!STOP"]), stops, True)) == "Hello world!"
    assert "".join(cs.stop_at_stop_tokens(iter(["Hello world!STOP"]), stops, False)) == "Hello world!STOP"


SAMPLE_CODE = '''      {
        method: "GET",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${this.workOsAccessToken}`,
        },
      },
    );
    const data = await response.json();
    return data.items;
  }

  async getContextItems(
    query: string,
    extras: ContextProviderExtras,
  ): Promise<ContextItem[]> {
    const response = await extras.fetch(
      new URL(
        `/proxy/context/${this.options.id}/retrieve`,
        controlPlaneEnv.CONTROL_PLANE_URL,
      ),
'''


@pytest.mark.parametrize("suffix", ["\n  const data = await response.json();\n  return data.items;\n}",
                                    "\n  xxxconst data = await response.json();\n  return data.items;\n}"])
def test_stop_at_start_of(suffix: str) -> None:
    """charStream.vitest.ts stopAtStartOf: the stream (split before every non-space character,
    `split(/(?! )/g)`) stops where it starts repeating the suffix."""
    chunks = re.split(r"(?=[^ ])", SAMPLE_CODE)
    got = "".join(cs.stop_at_start_of(iter(chunks), suffix, "window30"))
    assert got == SAMPLE_CODE[:SAMPLE_CODE.index("    );\n") + len("    );\n    ")]


def test_generator_reuse_single_line() -> None:
    """GeneratorReuseManager.vitest.ts: multiline=false stops at the first newline."""
    data = ["first line\n", "second line"]
    assert _lines(cs.reuse_generator(iter(data), False)) == ["first line"]
    assert _lines(cs.reuse_generator(iter(data), True)) == data


def test_stop_after_max_processing_time() -> None:
    """generation/utils.vitest.ts stopAfterMaxProcessingTime: the time is checked every 10 chunks;
    chunks from the 11th arrive after the limit, so the 20th is the last read."""
    assert "".join(Feed([("Hello", 0.0), (" world", 0.0), ("!", 0.0)], max_time=1.0).source()) == "Hello world!"
    feed = Feed([(f"chunk-{i}", 0.0 if i < 10 else 1.0) for i in range(100)], max_time=0.5)
    assert len(list(feed.source())) == 20 and feed.cancelled
    feed = Feed([], max_time=1.0)
    assert list(feed.source()) == [] and not feed.cancelled
    assert len(list(Feed([("test chunk", 9.0)] * 100).source())) == 100


# ---------------------------------------------------------------------------------------------
# postprocessing/index.test.ts


@pytest.mark.parametrize(("completion", "expected"), [
    ("```typescript\nfunction hello() {\n  return 'world';\n}\n```", "function hello() {\n  return 'world';\n}"),
    ("```javascript\nconst x = 5;\nconsole.log(x);", "const x = 5;\nconsole.log(x);"),
    ("const y = 10;\nconsole.log(y);\n```", "const y = 10;\nconsole.log(y);"),
    ("function test() {\n  return true;\n}", "function test() {\n  return true;\n}"),
    ("const str = `template ${literal}`;\nconsole.log(str);", "const str = `template ${literal}`;\nconsole.log(str);"),
    ("  ```python\ndef hello():\n  pass\n```", "def hello():\n  pass"),
    ("```\ncode here\n  ```  ", "code here"),
    ("const x = 5;", "const x = 5;"),
    ("", None),
    ("```typescript\nconst x = 5; // end```", "const x = 5; // end```"),
])
def test_postprocess_remove_backticks(completion: str, expected: str | None) -> None:
    """postprocessing/index.test.ts (removeBackticks, 2025-10); absent in 1.0.16."""
    assert postprocess_completion(completion, "test-model", "", "", rules_for(None)) == expected
    if "```" in completion:
        assert postprocess_completion(completion, "test-model", "", "", rules_for("1.0.16")) == completion


# ---------------------------------------------------------------------------------------------
# Postprocessing model rules by release (postprocessing/index.ts)


def _shown(prefix: str, suffix: str, raw: str, version: str | None, model: str = MODEL, filepath: str = "a.ts",
           **options: object) -> str | None:
    inp = EditorInput(prefix=prefix, suffix=suffix, filepath=filepath, options=options)
    return complete(inp, raw, model=model, version=version).text


def test_gemini_file_separator_by_release() -> None:
    """<|file_separator|> trimmed for gemini/gemma models: merged 2025-07-03, but 1.0.16-vscode
    (2025-07-10) was cut from a branch without it (rules.py release exceptions)."""
    raw = "x = 1;<|file_separator|>"
    assert _shown("const a = 1;\n", "\n", raw, None, model="gemma-2b", options={}) == "x = 1;"
    assert _shown("const a = 1;\n", "\n", raw, "1.3.32", model="gemma-2b") == "x = 1;"
    assert _shown("const a = 1;\n", "\n", raw, "1.0.16", model="gemma-2b") == raw
    assert _shown("const a = 1;\n", "\n", raw, "2025-07-10", model="gemma-2b") == "x = 1;"


def test_qwen_space_and_indent_rules_of_2024() -> None:
    """v0.8.55 postprocessing.ts: a leading space dropped for Qwen models, trailing whitespace
    trimmed, and an indented completion at the end of a line shows nothing; 0.9.246 keeps all."""
    assert _shown("let a =", "\nfoo()", " 1", "0.8.55") == "1"
    assert _shown("let a =", "\nfoo()", " 1", "0.9.246") == " 1"
    assert _shown("let a = 1", "\n", "    + 2", "0.8.55") is None
    assert _shown("let a = 1", "\n", "    + 2", "0.9.246") == "    + 2"


def test_mercury_rules_by_release() -> None:
    """Mercury: an indented completion at a line end starts on a new line (2025-04-28); the
    Granite-style prefix-repeat rule applied to it 2025-04-28..10-14."""
    assert _shown("  return", "\n}", "  x", "1.0.16", model="mercury-coder") == "\n  x"
    assert _shown("  return", "\n}", "  x", "0.9.246", model="mercury-coder") == "  x"
    assert _shown("  const value", "\n}", "value = 1;", "1.0.16", model="mercury-coder") == " = 1;"
    assert _shown("  const value", "\n}", "value = 1;", None, model="mercury-coder") == "value = 1;"


def test_codestral_and_qwen3_rules() -> None:
    """Codestral without a suffix drops one leading newline after a blank line (2024-12-13);
    qwen3's <think> block is removed (2025-07-13, not in 1.0.16)."""
    assert _shown("a = 1\n\n", "", "\nb = 2", "0.9.246", model="codestral-latest", filepath="a.py") == "b = 2"
    assert _shown("a = 1\n\n", "", "\nb = 2", "0.9.240", model="codestral-latest", filepath="a.py") == "\nb = 2"
    raw = "<think>plan</think>\nx = 1;"
    assert _shown("let y = 0;\n", "\n", raw, None, model="qwen3:4b") == "x = 1;"
    assert _shown("let y = 0;\n", "\n", raw, "1.0.16", model="qwen3:4b") == raw
    # a blank line after the think block ends the stream first (noDoubleNewLine): nothing is left
    assert _shown("let y = 0;\n", "\n", "<think>plan</think>\n\nx = 1;", None, model="qwen3:4b") is None


# ---------------------------------------------------------------------------------------------
# The multi-line decision (classification/shouldCompleteMultiline.ts; constructPrompt.ts in 2024)


def test_multiline_newest() -> None:
    """Comment lines and Markdown list/heading lines are single-line; the option wins."""
    assert complete(EditorInput(prefix="// say ", suffix="\n", filepath="a.ts"), "hi\nthere", model=MODEL).text == "hi"
    assert complete(EditorInput(prefix="x = ", suffix="", filepath="a.ts"), "1\ny = 2", model=MODEL).multiline
    md = EditorInput(prefix="# T\n\n- item", suffix="", filepath="a.md")
    assert not complete(md, " one\n- b", model=MODEL).multiline
    # the line is trimmed first: a bare "- " is no list item yet
    assert complete(EditorInput(prefix="# T\n\n- ", suffix="", filepath="a.md"), "a\n- b", model=MODEL).multiline
    never = EditorInput(prefix="x = ", suffix="", filepath="a.ts", options={"multilineCompletions": "never"})
    assert complete(never, "1\ny = 2", model=MODEL).text == "1"
    assert markdown_use_multiline("## Heading", True) is False and markdown_use_multiline("text", True) is True


def test_multiline_ast_rule_of_v0_8_55() -> None:
    """v0.8.55: mid-line is single-line; the line above ending in { is multi-line; in Solidity a
    cursor outside every top-level node (tree-sitter) is multi-line, inside a statement not."""
    sol = "pragma solidity ^0.8.0;\n\ncontract A {\n    uint x;\n}\n"
    top = EditorInput(prefix=sol, suffix="\n", filepath="a.sol")
    assert complete(top, "contract B {}", model=MODEL, version="0.8.55").multiline
    inner = EditorInput(prefix="contract A {\n    function f() public {\n        uint y = 1;\n        ", suffix="\n    }\n}\n",
                        filepath="a.sol")
    assert not complete(inner, "y += 1;", model=MODEL, version="0.8.55").multiline
    opened = EditorInput(prefix="contract A {\n    function f() public {\n        ", suffix="\n    }\n}\n", filepath="a.sol")
    assert complete(opened, "uint y = 1;", model=MODEL, version="0.8.55").multiline
    midline = EditorInput(prefix="contract A {\n    function f() public {\n        ", suffix="x;\n    }\n}\n", filepath="a.sol")
    assert not complete(midline, "uint y", model=MODEL, version="0.8.55").multiline
    assert complete(midline, "uint y", model=MODEL, version="0.9.246").multiline
    # a file Continue has no grammar for: multi-line until the 2024-10-06 merge, then not
    yaml = EditorInput(prefix="a:\n  b: 1\n  ", suffix="\n", filepath="c.yaml")
    assert complete(yaml, "c: 2", model=MODEL, version="2024-09-01").multiline
    assert not complete(yaml, "c: 2", model=MODEL, version="0.8.55").multiline


def test_multiline_language_only_rule() -> None:
    """3e1eca6c88 .. dca5927bcf (both merged 2024-11-10, so no release or date has it): only the
    language's useMultiline could say multi-line, and none did."""
    rules = dataclasses.replace(rules_for("0.9.246"), multiline_rule="language_only", markdown_multiline="undefined")
    lang = lang_info("file:///w/a.ts", rules)
    assert not should_complete_multiline(option="auto", full_prefix="f() {\n  ", full_suffix="\n}", pruned_prefix="f() {\n  ",
                                         lang=lang, rules=rules)
    assert should_complete_multiline(option="always", full_prefix="f() {\n  ", full_suffix="x}", pruned_prefix="", lang=lang, rules=rules)
    assert rules_for("0.9.224").multiline_rule == "not_midline"


# ---------------------------------------------------------------------------------------------
# Pipeline rules by release (completionProvider.ts in 2024, StreamTransformPipeline.ts since)


def test_old_pipeline_stops_of_v0_8_55() -> None:
    """v0.8.55 sent "\\n\\n" and "\\n<top-level keyword>" as stop words, ended a C-like completion
    after ";" + non-space, and matched brackets in every language; 0.9.246 does none of these."""
    inp = EditorInput(prefix="contract A {\n    function f() public {\n        ", suffix="\n    }\n}\n", filepath="a.sol")
    raw = "uint y = 1;\n        y += 2;\n\n        y += 3;\n    }\n}"
    assert complete(inp, raw, model=MODEL, version="0.8.55").text == "uint y = 1;\n        y += 2;"
    new = complete(inp, raw, model=MODEL, version="0.9.246")
    assert new.text == "uint y = 1;\n        y += 2;" and [t.step for t in new.trace] == ["noDoubleNewLine"]
    top = EditorInput(prefix="pragma solidity ^0.8.0;\n\n", suffix="\n", filepath="a.sol")
    assert complete(top, "contract B {}\nfunction g() {}", model=MODEL, version="0.8.55").text == "contract B {}"
    assert complete(top, "contract B {}\nfunction g() {}", model=MODEL, version="0.9.246").text == "contract B {}\nfunction g() {}"
    eol = EditorInput(prefix="let a = 1", suffix="\n", filepath="a.ts", options={"multilineCompletions": "always"})
    assert complete(eol, ";let b = 2;", model=MODEL, version="0.8.55").text == ";"
    assert complete(eol, "; let b = 2;", model=MODEL, version="0.8.55").text == "; let b = 2;"  # whitespace follows
    # single-line: brackets opened on the cursor's line may close; multi-line (the line "above",
    # here the cursor's own, ends with "("): only brackets the completion opened
    bracket = EditorInput(prefix="f(", suffix="\n", filepath="a.py", options={"multilineCompletions": "never"})
    assert complete(bracket, "1)) + 2", model=MODEL, version="0.8.55").text == "1)"
    assert complete(bracket, "1)) + 2", model=MODEL, version="0.9.246").text == "1)) + 2"
    assert complete(EditorInput(prefix="f(", suffix="\n", filepath="a.py"), "1)) + 2", model=MODEL, version="0.8.55").text == "1"


def test_end_of_line_prefilter_until_2024_11() -> None:
    """completionProvider.ts (v0.8.55): no request when the cursor ends a line ending in ";"."""
    inp = EditorInput(prefix="contract A {\n    uint x = 1;", suffix="\n}\n", filepath="a.sol")
    old = complete(inp, "\n    uint y;", model=MODEL, version="0.8.55")
    assert old.text is None and [t.step for t in old.trace] == ["getTabCompletion"]
    assert stream_stop(inp, model=MODEL, version="0.8.55")("anything") == 0
    assert complete(inp, "\n    uint y = 2;", model=MODEL, version="0.9.246").text == "\n    uint y = 2;"


def test_line_below_cursor_by_release() -> None:
    """stopAtLinesExact(line below the cursor) since 2024-12-08 (testCases.ts cases added that day
    fail at 0.9.240)."""
    inp = EditorInput(prefix="interface User {\n  name: string;\n  e", suffix="\n}\n", filepath="a.ts")
    assert complete(inp, "mail: string;\n  age: number;\n}", model="mock", version="0.9.246").text == "mail: string;\n  age: number;"
    assert complete(inp, "mail: string;\n  age: number;\n}", model="mock", version="0.9.240").text == "mail: string;\n  age: number;\n}"


def test_updated_code_stop_line_by_release() -> None:
    """LINES_TO_STOP_AT gained <|/updated_code|> on 2025-09-09."""
    inp = EditorInput(prefix="function f() {\n", suffix="\n}\n", filepath="a.ts")
    raw = "  return 1;\n<|/updated_code|>\n  more();"
    assert complete(inp, raw, model=MODEL, version="1.3.32").text == "  return 1;"
    assert complete(inp, raw, model=MODEL, version="1.0.16").text == raw


def test_trace_cites_the_release_sources() -> None:
    """The trace names the transform and its file at that release."""
    inp = EditorInput(prefix="let a = ", suffix="\n", filepath="a.ts")
    newest = complete(inp, "1\nlet b = 2", model=MODEL, version="0.8.55")
    assert [(t.step, t.source) for t in newest.trace] == [("getGenerator", "continuedev/continue core/autocomplete/util.ts")]
    inp = EditorInput(prefix="function f() {\n", suffix="\n}\n", filepath="a.ts")
    shown = complete(inp, "  a();\n  a();\n  a();\n  b();", model=MODEL)
    assert [(t.step, t.source, t.text) for t in shown.trace] == [
        ("stopAtRepeatingLines", "continuedev/continue core/autocomplete/filtering/streamTransforms/lineStream.ts", "  a();")]


def test_transform_off() -> None:
    """`transform: false` (2024-10-25 on): no transform, no postprocessing, always multi-line."""
    inp = EditorInput(prefix="// c ", suffix="\n", filepath="a.ts", options={"transform": False})
    shown = complete(inp, "x\n\n\ny  ", model=MODEL)
    assert (shown.text, shown.multiline, shown.trace) == ("x\n\n\ny  ", True, ())
    assert stream_stop(inp, model=MODEL) is None


# ---------------------------------------------------------------------------------------------
# Time-based cuts (only with measured timing)


def _timing(raw: str, seconds_per_char: float) -> list[tuple[int, float]]:
    return [(i + 1, round((i + 1) * seconds_per_char, 6)) for i in range(len(raw))]


def test_show_whatever_we_have_by_release() -> None:
    """showWhateverWeHaveAtXMs: the completion ends after the line shown when the limit has passed,
    modelTimeout (150 ms) in 1.0.16-vscode, the showWhateverWeHaveAtXMs option (300 ms) in
    1.0.16-jetbrains and 0.9.246, no limit for the PostHog flag (2025-01..03) nor without timing.
    A line is shown once stopAtStopTokens has read 16 characters past its newline (its longest
    stop word): line 1 at character 38 (190 ms), line 2 at 60 (300 ms), line 3 at 82 (410 ms)."""
    inp = EditorInput(prefix="function f() {\n", suffix="\n}\n", filepath="a.ts")
    raw = "".join(f"  call{i}(argument{i});\n" for i in range(8))  # 22 characters a line
    timing = _timing(raw, 0.005)  # 110 ms a line
    assert complete(inp, raw, model=MODEL, version="1.0.16").text == raw.rstrip("\n")
    vscode = complete(inp, raw, model=MODEL, version="1.0.16", timing=timing)
    assert vscode.timing_applied and vscode.text == "  call0(argument0);"
    jetbrains = complete(inp, raw, model=MODEL, version="1.0.16-jetbrains", timing=timing)
    assert jetbrains.text == "".join(raw.splitlines(keepends=True)[:3]).rstrip("\n")
    assert complete(inp, raw, model=MODEL, version="0.9.246", timing=timing).text == jetbrains.text
    assert complete(inp, raw, model=MODEL, version="2025-02-01", timing=timing).text == raw.rstrip("\n")


def test_stop_after_max_processing_time_by_release() -> None:
    """stopAfterMaxProcessingTime (2025-05-19): modelTimeout x 2.5 = 375 ms, checked every tenth
    chunk; with a 1 ms line-time the showWhatever limit never binds before it."""
    inp = EditorInput(prefix="x = ", suffix="", filepath="a.ts", options={"modelTimeout": 1000})
    raw = "a" * 40
    timing = [(i + 1, 0.1 * (i + 1)) for i in range(40)]  # the 10th chunk at 1.0 s, the 30th at 3.0 s
    shown = complete(inp, raw, model=MODEL, version="1.3.32", timing=timing)
    assert shown.text == "a" * 30 and shown.trace[0].step == "stopAfterMaxProcessingTime"
    assert complete(inp, raw, model=MODEL, version="1.0.10", timing=timing).text == raw


# ---------------------------------------------------------------------------------------------
# The stream_stop contract

_PIECES = ["x = 1;", "return a + b;", "}", ")", "{", "\n", "\n\n", "\n    ", "// Path: a", "//", "# End of file.",
           "```", "<COMPLETION>", "function g() {", "a function call", "diff --git a/x", "<fim_middle>", "return a;",
           "        return a;", "    }", "- item", "image: x", '"k": 1,', "😀", "def h():", "emit E();", "\r\n", "a;b", "  "]
_FILES = {
    "a.sol": ("contract A {\n    function f(uint a) public returns (uint) {\n        ", "\n        return a;\n    }\n}\n"),
    "b.py": ("import os\n\ndef f(x):\n    y = [1, 2,\n", "\n    return y\n\nprint(f(1))\n"),
    "d.json": ('{\n  "list": [', '],\n  "z": 1\n}\n'),
    "e.yaml": ("services:\n  db:\n    environment:\n      - A=1\n      ", "\n  web:\n    image: nginx\n"),
    "f.md": ("# Title\n\n- item one\n", "\n\n## Next\n"),
}


def _random_case(rng: random.Random) -> tuple[EditorInput, str, str]:
    name = rng.choice(sorted(_FILES))
    prefix, suffix = _FILES[name]
    raw = "".join(rng.choice(_PIECES) + rng.choice(["", "\n", " "]) for _ in range(rng.randint(1, 10)))
    if rng.random() < 0.3:
        raw += suffix[:rng.randint(0, len(suffix))]
    options = rng.choice([{}, {}, {"multilineCompletions": "always"}, {"multilineCompletions": "never"}])
    model = rng.choice([MODEL, "codestral-latest", "starcoder2:3b", "mercury-coder"])
    return EditorInput(prefix=prefix, suffix=suffix, filepath=name, options=options), raw, model


@pytest.mark.parametrize("version", ["0.8.55", "0.9.246", "1.0.16", "1.3.32", None, "0.9.224", "0.8.60"])
def test_stream_stop_contract(version: str | None) -> None:
    """Once stream_stop answers n for a prefix of the stream, it answers n for every longer one,
    and what Continue shows of the first n characters is what it shows of the whole stream."""
    rng = random.Random(f"continue-{version}")
    stopped = 0
    for _ in range(40):
        inp, raw, model = _random_case(rng)
        stop = stream_stop(inp, model=model, version=version)
        if stop is None:
            continue
        answers = [stop(raw[:k]) for k in range(len(raw) + 1)]
        first = next((k for k, n in enumerate(answers) if n is not None), None)
        if first is None:
            continue
        n = answers[first]
        assert n is not None and n <= first and all(a == n for a in answers[first:])
        assert complete(inp, raw[:n], model=model, version=version) == complete(inp, raw, model=model, version=version)
        stopped += 1
    assert stopped >= 10


def test_stream_stop_single_line_reads_to_the_newline() -> None:
    """Single-line mode: Continue stops reading at the first newline."""
    inp = EditorInput(prefix="let a = ", suffix="\n", filepath="a.ts", options={"multilineCompletions": "never"})
    stop = stream_stop(inp, model=MODEL)
    assert stop is not None
    assert stop("1 + 2") is None and stop("1 + 2;\nlet b") == 7


# ---------------------------------------------------------------------------------------------
# rules.py table


def test_rules_table() -> None:
    """Rows are in landing order with 10-digit commits; exceptions name releases of the table."""
    assert [c.day for c in CHANGES] == sorted(c.day for c in CHANGES)
    assert all(re.fullmatch(r"[0-9a-f]{10}", commit) for c in CHANGES for commit in c.commit.split())
    known = set(releases())
    assert all(name in known for extra_in, extra_out in _RELEASE_EXCEPTIONS.values() for name in extra_in | extra_out)
    assert rules_for("0.8.55").layout == "refactor" and rules_for("0.9.246").layout == "pipeline"
    assert rules_for("1.0.16-jetbrains").show_whatever == "option" and rules_for("1.0.16").show_whatever == "modelTimeout"
    assert to_units("😀") == "\ud83d\ude00"
