"""The completion request body Copilot's client sends, and its multiline decision.

Sources (microsoft/vscode-copilot-chat, src/extension/completions-core/vscode-node/lib/src/;
checked against chat-lib 0.66.0's compiled dist):
- ghostText/completionsFromNetwork.ts `_genericGetCompletionsFromNetwork`: `extra` = {language,
  next_indent, trim_by_indentation, prompt_tokens, suffix_tokens}; n 1 (3 when cycling),
  `code_annotations: false`; `stop: ["\\n"]` unless the request is multiline (then the
  strategy's stop, else the language's default); `max_tokens` when the strategy sets one.
- openai/fetch.ts + openai/openai.ts: `prompt`, `suffix`, `max_tokens` (getMaxSolutionTokens,
  500), `temperature` (getTemperatureForSamples: 0 for one sample, 0.2 under 10), `top_p` 1,
  `n`, `stop` (getStops: python `["\\ndef ", "\\nclass ", "\\nif ", "\\n\\n#"]`, markdown
  `["\\n\\n\\n"]`, else `["\\n\\n\\n", "\\n```"]`), `stream` true, `extra` with `context` (the
  split-context blocks), `code_annotations`.
- ghostText/configBlockMode.ts `forLanguage`: JavaScript, TypeScript and Go are trimmed by
  default (`MoreMultiline`, statementTree.ts isTrimmedByDefault); Ruby parses (`Parsing`);
  the other tree-sitter languages (prompt/src/parse.ts isSupportedLanguageId: Python) parse and
  let the server trim (`ParsingAndServer`); every other language is `Server`.
- ghostText/ghostTextStrategy.ts `getGhostTextStrategy`: `Server` is always multiline;
  `MoreMultiline` is single-line unless the user just accepted the whole previous completion;
  `ParsingAndServer` and `Parsing` ask `shouldRequestMultiline` (under 8000 lines: tree-sitter's
  empty-block test, blocks.py, then for JavaScript and Python the multiline model,
  multiline_model.py).
- config.ts `shouldDoServerTrimming`: trim_by_indentation for Server and ParsingAndServer.
- ghostText/ghostText.ts `isInlineSuggestion` (xtab/common/inlineSuggestion.ts): mid-line, the
  client completes only before closers and one of `:{;,` (else it sends nothing).
- prompt/parseBlock.ts `contextIndentation`: next_indent is the indentation of the first
  non-blank line after the cursor's line (0 when none).
"""

from __future__ import annotations

import re
from typing import Any

from replay.editors.copilot import blocks, multiline_model
from replay.editors.copilot.layout import Layout

MAX_SOLUTION_TOKENS = 500
MAX_MULTILINE_TOKENS = 200  # experiments/features.ts maxMultilineTokens default
MAX_SINGLELINE_TOKENS = 20  # ghostTextStrategy.ts maxSinglelineTokens
AFTER_ACCEPT_LINES = 1  # experiments/features.ts multilineAfterAcceptLines default
_STOPS = {"python": ["\ndef ", "\nclass ", "\nif ", "\n\n#"], "markdown": ["\n\n\n"]}
_DEFAULT_STOPS = ["\n\n\n", "\n```"]
_MORE_MULTILINE = frozenset({"javascript", "javascriptreact", "jsx", "typescript", "typescriptreact", "go"})
_PARSING_AND_SERVER = frozenset({"python"})
LONG_FILE_LINES = 8000
MODEL_LANGUAGES = ("javascript", "javascriptreact", "python")  # ghostTextStrategy.ts targetLanguagesModel
_MIDDLE_OF_LINE_OK = re.compile(r"^\s*[)>}\]\"'`]*\s*[:{;,]?\s*$")


def inline_position(rest_of_line: str) -> bool | None:
    """False at a line's end, True mid-line before closers, None (no completion at all) mid-line
    before anything else."""
    if not rest_of_line.strip():
        return False
    return True if _MIDDLE_OF_LINE_OK.match(rest_of_line.strip()) else None

def block_mode(language: str) -> str:
    if language in _MORE_MULTILINE:
        return "moremultiline"
    if language == "ruby":
        return "parsing"
    if language in _PARSING_AND_SERVER:
        return "parsingandserver"
    return "server"

def stops(language: str) -> list[str]:
    return list(_STOPS.get(language, _DEFAULT_STOPS))

def next_indent(document: str, cursor: int) -> int:
    """parseBlock.ts contextIndentationFromText(...).next ?? 0."""
    for line in document[cursor:].split("\n")[1:]:
        stripped = line.lstrip()
        if stripped:
            return len(line) - len(stripped)
    return 0

def empty_block_start(language: str, document: str, cursor: int) -> bool:
    """ghostTextStrategy.ts `shouldRequestMultiline`: tree-sitter's empty-block test
    (prompt/src/parseBlock.ts `isEmptyBlockStart`, blocks.py) at the cursor, and mid-line (an
    inline suggestion) also at the line's end."""
    if not blocks.supported(language):
        return False
    if blocks.empty_block_start(language, document, cursor):
        return True
    line_end = document.find("\n", cursor)
    line_end = len(document) if line_end < 0 else line_end - document[:line_end].endswith("\r")
    return inline_position(document[cursor:line_end]) is True and blocks.empty_block_start(language, document, line_end)


def multiline(language: str, document: str, cursor: int, prompt: str, suffix: str) -> bool:
    """ghostTextStrategy.ts `getGhostTextStrategy` / `shouldRequestMultiline` for a request that
    does not follow an accepted item (that one: `after_accept`); `prompt` and `suffix` are the
    request's (the multiline model reads them)."""
    mode = block_mode(language)
    if mode == "server":
        return True
    if mode == "moremultiline" or document.count("\n") + 1 >= LONG_FILE_LINES:
        return False
    if empty_block_start(language, document, cursor):
        return True
    return language in MODEL_LANGUAGES and multiline_model.score(prompt, suffix, language) > multiline_model.THRESHOLD


def after_accept(language: str, is_multiline: bool, long_file: bool = False) -> tuple[str, list[str] | None, int]:
    """ghostTextStrategy.ts getGhostTextStrategy when the user has just accepted the whole item
    on screen (current.ts hasAcceptedCurrentCompletion): (block mode, stop, max_tokens). A
    request that is multiline anyway keeps its strategy; MoreMultiline languages ask up to
    maxMultilineTokens (features.ts, 200) with the language's stops (read through the statement
    splitter), unless the document has LONG_FILE_LINES lines or more (`shouldRequestMultiline`
    then says no); the others, and those, switch to `Parsing` (MoreMultiline stays) with stop
    ["\n\n"] and maxSinglelineTokens (20) per multilineAfterAcceptLines (1), and read
    AFTER_ACCEPT_LINES lines of the stream (takeNLines)."""
    mode = block_mode(language)
    if mode == "moremultiline":
        return (mode, ["\n\n"], MAX_SINGLELINE_TOKENS * AFTER_ACCEPT_LINES) if long_file else (mode, None, MAX_MULTILINE_TOKENS)
    if is_multiline and mode != "server":
        return mode, None, MAX_SOLUTION_TOKENS
    return "parsing", ["\n\n"], MAX_SINGLELINE_TOKENS * AFTER_ACCEPT_LINES


def stream_cut(body: dict[str, Any], language: str) -> str | None:
    """The strategy's `finishedCb` for a sent body: "lines" (takeNLines, after an accepted item),
    "split" (the statement splitter, a multiline request in a MoreMultiline language,
    buildFinishedCallback), "block" (parsingBlockFinished, a multiline request in a
    tree-sitter block mode), or None."""
    if body["stop"] == ["\n\n"] and body["max_tokens"] == MAX_SINGLELINE_TOKENS * AFTER_ACCEPT_LINES:
        return "lines"
    if body["stop"] != ["\n"] and block_mode(language) == "moremultiline":
        return "split"
    if body["stop"] != ["\n"] and block_mode(language) in ("parsing", "parsingandserver"):
        return "block"
    return None


def body(lay: Layout, language: str, document: str, cursor: int, is_multiline: bool, cycling: bool = False,
         accepted: bool = False) -> dict[str, Any]:
    """The JSON body of the completions request, keys in the client's order (`accepted`: the
    user has just accepted the whole item on screen)."""
    n = 3 if cycling else 1
    long_file = document.count("\n") + 1 >= LONG_FILE_LINES
    mode, stop, max_tokens = (after_accept(language, is_multiline, long_file) if accepted
                              else (block_mode(language), None, MAX_SOLUTION_TOKENS))
    is_multiline = is_multiline or accepted
    return {
        "prompt": lay.prefix,
        "suffix": lay.suffix,
        "max_tokens": max_tokens,
        "temperature": 0 if n <= 1 else 0.2,
        "top_p": 1,
        "n": n,
        "stop": stop or (stops(language) if is_multiline else ["\n"]),
        "stream": True,
        "extra": {
            "language": language,
            "next_indent": next_indent(document, cursor),
            "trim_by_indentation": mode in ("server", "parsingandserver"),
            "prompt_tokens": lay.prefix_tokens,
            "suffix_tokens": lay.suffix_tokens,
            "context": list(lay.context),
        },
        "code_annotations": False,
    }

