"""tabby-agent's completion context and the line helpers its filters share.

tabby-agent 1.5.0 (TabbyML/tabby clients/tabby-agent at commit 3c12cc135): src/CompletionContext.ts
(the document split at the cursor, the single/multi-line mode) and src/utils.ts (indentation,
block opening/closing lines, unpaired auto-closing characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.editors.js import js_trim_end
from replay.editors.tabby.client import split_lines


def indentation_level(line: str) -> int:
    """src/utils.ts getIndentationLevel without an indentation: the count of leading spaces/tabs."""
    return len(line) - len(line.lstrip(" \t"))


def is_block_opening_line(lines: list[str], index: int) -> bool:
    """src/utils.ts isBlockOpeningLine: the next line is indented deeper."""
    if index < 0 or index >= len(lines) - 1:
        return False
    return indentation_level(lines[index]) < indentation_level(lines[index + 1])


def is_block_closing_line(lines: list[str], index: int) -> bool:
    """src/utils.ts isBlockClosingLine: the previous line is indented deeper."""
    if index <= 0 or index > len(lines) - 1:
        return False
    return indentation_level(lines[index - 1]) > indentation_level(lines[index])


# src/utils.ts regOnlyAutoClosingCloseChars = /^([)\]}>"'`]|(\/>))*$/
_ONLY_AUTO_CLOSING = re.compile(r"(?:[)\]}>\"'`]|/>)*")

# src/utils.ts autoClosingPairs, in the agent's order: (pair, position, chars, pattern). JS `\w`
# is ASCII. For each step the earliest match wins; on a tie the first entry listed.
_AUTO_CLOSING: tuple[tuple[int, str, str, re.Pattern[str]], ...] = (
    (0, "open", "(", re.compile(r"\(")), (0, "close", ")", re.compile(r"\)")),
    (1, "open", "[", re.compile(r"\[")), (1, "close", "]", re.compile(r"\]")),
    (2, "open", "{", re.compile(r"\{")), (2, "close", "}", re.compile(r"\}")),
    (3, "open", "<", re.compile(r"<(?=[A-Za-z0-9_])")), (3, "close", "/>", re.compile(r"/>")),
    (4, "open", "<", re.compile(r"<(?=[/A-Za-z0-9_])")), (4, "close", ">", re.compile(r">")),
    (5, "openOrClose", '"', re.compile('"')),
    (6, "openOrClose", "'", re.compile("'")),
    (7, "openOrClose", "`", re.compile("`")),
)
_OPEN_OF_PAIR = {pair: chars for pair, pos, chars, _ in _AUTO_CLOSING if pos == "open"}


def find_unpaired_auto_closing_chars(text: str) -> list[str]:
    """src/utils.ts findUnpairedAutoClosingChars: a bracket/quote stack over the text (no escapes,
    no strings): a closer that matches the top pops it, any other closer is pushed; a quote
    already on the stack pops it and all above it, else it is pushed."""
    stack: list[str] = []
    index = 0
    while index < len(text):
        best: tuple[int, int, str, str] | None = None
        for pair, pos, chars, pattern in _AUTO_CLOSING:
            found = pattern.search(text, index)
            if found and (best is None or found.start() < best[0]):
                best = (found.start(), pair, pos, chars)
        if best is None:
            break
        at, pair, pos, chars = best
        if pos == "openOrClose":
            if chars in stack:
                del stack[len(stack) - 1 - stack[::-1].index(chars):]
            else:
                stack.append(chars)
        elif pos == "open":
            stack.append(chars)
        elif stack and stack[-1] == _OPEN_OF_PAIR[pair]:
            stack.pop()
        else:
            stack.append(chars)
        index = at + len(chars)
    return stack




@dataclass(frozen=True)
class CompletionContext:
    """src/CompletionContext.ts: the document split at the cursor, as the filters read it.

    `mode` is "default" when the rest of the cursor line, trimEnd'ed, is only auto-closing
    characters ``)]}>"'` `` or "/>" (the agent then allows multi-line text), else
    "fill-in-line" (one line only). `indentation` is the editor's indent unit, when the
    client sends one (the LSP server does not)."""

    prefix: str
    suffix: str
    language: str
    prefix_lines: list[str]
    suffix_lines: list[str]
    current_line_prefix: str
    current_line_suffix: str
    mode: str
    indentation: str | None = None

    @classmethod
    def of(cls, prefix: str, suffix: str, language: str | None = None, indentation: str | None = None) -> CompletionContext:
        prefix_lines, suffix_lines = split_lines(prefix), split_lines(suffix)
        current_line_suffix = suffix_lines[0] if suffix_lines else ""
        line_end = _ONLY_AUTO_CLOSING.fullmatch(js_trim_end(current_line_suffix)) is not None
        return cls(prefix=prefix, suffix=suffix, language=language or "", prefix_lines=prefix_lines,
                   suffix_lines=suffix_lines, current_line_prefix=prefix_lines[-1] if prefix_lines else "",
                   current_line_suffix=current_line_suffix, mode="default" if line_end else "fill-in-line",
                   indentation=indentation)
