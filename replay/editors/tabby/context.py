"""tabby-agent's completion context and the line helpers its filters share.

TabbyML/tabby clients/tabby-agent: src/CompletionContext.ts (from f4d9c75f0
src/codeCompletion/contexts.ts: the document split at the cursor, the single/multi-line mode or
line end) and src/utils.ts (from 7205b788b src/utils/string.ts: indentation, block
opening/closing lines, unpaired auto-closing characters), 1.3.0 (b75f12e5f) to the freeze
(e61d780ca); each rule names the commit that changed it (replay.editors.tabby.rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.editors.js import js_trim_end
from replay.editors.tabby.client import split_lines
from replay.editors.tabby.releases import AgentState
from replay.editors.tabby.rules import HTML_JSX_AUTO_CLOSING, NON_WORD_LINE_END, SEMICOLON_LINE_END


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


# The rest of the cursor line (trimEnd'ed) that still counts as a line end:
# - 1.3.0 CompletionContext.ts isAtLineEndExcludingAutoClosedChar: every UTF-16 unit one of
#   autoClosingPairClosings `)]}'"` + "`" (until bb2afea15);
# - bb2afea15 utils.ts regOnlyAutoClosingCloseChars /^([)\]}>"'`]|(\/>))*$/;
# - eae43ba76 utils/string.ts adds `;` and `,`: /^([)\]}>"'`]|(\/>)|[;,])*$/ (until 309edd172).
_CLOSERS_1_3_0 = re.compile(r"[)\]}'\"`]*")
_ONLY_AUTO_CLOSING = re.compile(r"(?:[)\]}>\"'`]|/>)*")
_ONLY_AUTO_CLOSING_OR_END = re.compile(r"(?:[)\]}>\"'`]|/>|[;,])*")
# 309edd172 codeCompletion/contexts.ts: isLineEnd = /^\W*$/ over the rest of the document line
# with its line break (JS `\W` without the u flag: not ASCII [A-Za-z0-9_]).
_NON_WORD = re.compile(r"[^A-Za-z0-9_]*")
# vscode-languageserver-textdocument ends a line at \r\n, \r or \n.
_DOC_LINE_REST = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")

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


def find_unpaired_1_3_0(text: str) -> list[str]:
    """src/utils.ts findUnpairedAutoClosingChars before bb2afea15 (1.3.0): character by character,
    a closer of ()[]{} pops its opener from the top or is pushed, an opener is pushed; a quote
    already on the stack cuts the stack from its last occurrence, else it is pushed."""
    stack: list[str] = []
    for char in text:
        if char in ")]}":
            opener = "([{"[")]}".index(char)]
            if stack and stack[-1] == opener:
                stack.pop()
            else:
                stack.append(char)
        elif char in "([{":
            stack.append(char)
        elif char in "'\"`":
            if char in stack:
                del stack[len(stack) - 1 - stack[::-1].index(char):]
            else:
                stack.append(char)
    return stack


def find_unpaired_auto_closing_chars(text: str) -> list[str]:
    """src/utils.ts findUnpairedAutoClosingChars from bb2afea15: a bracket/quote stack over the text (no escapes,
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
    """The document split at the cursor, as the filters read it (CompletionContext.ts, later
    codeCompletion/contexts.ts).

    Until 309edd172 `prefix`/`suffix` are the whole document before/after the cursor and `mode`
    is "default" (several lines allowed) when the rest of the cursor line, trimEnd'ed, is a
    line end by the state's pattern, else "fill-in-line" (one line); `line_end` is that rest
    when it matches (eae43ba76 replaces it). From 309edd172 a rest of the line without word
    characters (line break included) is a line end: `suffix` then starts after it (at its line
    break) and the item replaces its `line_end_replace` characters. `indentation` is the editor's
    indent unit, when the client sends one (the LSP server asks only clients that declare it)."""

    prefix: str
    suffix: str
    language: str
    prefix_lines: list[str]
    suffix_lines: list[str]
    current_line_prefix: str
    current_line_suffix: str
    mode: str
    indentation: str | None = None
    line_end: str | None = None
    line_end_replace: int = 0

    @classmethod
    def of(cls, prefix: str, suffix: str, language: str | None = None, indentation: str | None = None,
           state: AgentState | None = None) -> CompletionContext:
        replace, line_end, non_word = 0, None, state is not None and state.has(NON_WORD_LINE_END)
        if non_word:
            rest = _DOC_LINE_REST.match(suffix).group(0)  # type: ignore[union-attr]
            is_line_end = _NON_WORD.fullmatch(rest) is not None
            if is_line_end:  # lineEndReplaceLength: the rest without its /\r?\n$/
                replace = len(rest) - (2 if rest.endswith("\r\n") else 1 if rest.endswith("\n") else 0)
                suffix = suffix[replace:]
        prefix_lines, suffix_lines = split_lines(prefix), split_lines(suffix)
        current_line_suffix = suffix_lines[0] if suffix_lines else ""
        if not non_word:
            rest = js_trim_end(current_line_suffix)
            line_end = rest if _line_end_pattern(state).fullmatch(rest) else None
            is_line_end = line_end is not None
        return cls(prefix=prefix, suffix=suffix, language=language or "", prefix_lines=prefix_lines,
                   suffix_lines=suffix_lines, current_line_prefix=prefix_lines[-1] if prefix_lines else "",
                   current_line_suffix=current_line_suffix, mode="default" if is_line_end else "fill-in-line",
                   indentation=indentation, line_end=line_end, line_end_replace=replace)


def _line_end_pattern(state: AgentState | None) -> re.Pattern[str]:
    if state is None:  # 1.5.0, the module's reference state
        return _ONLY_AUTO_CLOSING
    if state.has(SEMICOLON_LINE_END):
        return _ONLY_AUTO_CLOSING_OR_END
    return _ONLY_AUTO_CLOSING if state.has(HTML_JSX_AUTO_CLOSING) else _CLOSERS_1_3_0
