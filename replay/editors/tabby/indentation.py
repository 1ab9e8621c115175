"""tabby-agent's indentation filters: limitScopeByIndentation, formatIndentation and (from
90b4b4c91) normalizeIndentation, TabbyML/tabby clients/tabby-agent src/postprocess/ (from
f4d9c75f0 src/codeCompletion/postprocess/). A filter takes the text and the CompletionContext and
returns the new text, or None (or "") to drop the choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from replay.editors.js import JS_WHITESPACE, js_is_blank, js_trim_end, js_trim_start
from replay.editors.tabby.client import split_lines
from replay.editors.tabby.context import (
    CompletionContext,
    indentation_level,
    is_block_closing_line,
    is_block_opening_line,
)


@dataclass(frozen=True)
class _IndentScope:
    limit: int
    allow_closing_line: bool


def _indentation_scope(lines: list[str], detection: list[str], ctx: CompletionContext,
                       keep_block_scope: bool) -> _IndentScope:
    """limitScopeByIndentation.ts parseIndentationContext: the indent level the completion may
    not fall below, and whether one closing line at that level may stay."""
    if not lines or not ctx.prefix_lines:
        return _IndentScope(0, True)
    ref_prefix = len(ctx.prefix_lines) - 1
    while ref_prefix >= 0 and js_is_blank(ctx.prefix_lines[ref_prefix]):
        ref_prefix -= 1
    if ref_prefix < 0:
        return _IndentScope(0, True)
    prefix_indent = indentation_level(ctx.prefix_lines[ref_prefix])
    ref_text = 0
    while ref_text < len(lines) and js_is_blank(lines[ref_text]):
        ref_text += 1
    if ref_text >= len(lines):
        return _IndentScope(0, True)
    first_blank = js_is_blank(lines[0])
    text_indent = indentation_level(lines[ref_text] if first_blank else ctx.current_line_prefix + lines[ref_text])
    allow = True
    if not first_blank and not js_is_blank(ctx.current_line_prefix):
        # the completion continues the cursor line's unfinished sentence
        if keep_block_scope:
            limit = prefix_indent
        else:
            limit = prefix_indent + 1
            allow = is_block_opening_line(detection, 0)
    elif text_indent > prefix_indent:
        limit = prefix_indent + 1  # opens a new indented block
    else:
        limit = prefix_indent  # closes a block, or starts a new sentence at the same level
    after = 1  # suffix line 0 is the rest of the cursor line
    while after < len(ctx.suffix_lines) and js_is_blank(ctx.suffix_lines[after]):
        after += 1
    if after < len(ctx.suffix_lines):
        allow = allow and indentation_level(ctx.suffix_lines[after]) < limit
    return _IndentScope(limit, allow)


def limit_scope_by_indentation(text: str, ctx: CompletionContext, keep_block_scope: bool = False) -> str | None:
    """postprocess/limitScopeByIndentation.ts: the text is cut at the first line indented less
    than the scope's limit (a `} else {` line that closes and reopens is passed over); that
    closing line stays when the scope allows it (in Python not after a blank line)."""
    lines = split_lines(text)
    detection = [ctx.current_line_prefix + line if i == 0 else line for i, line in enumerate(lines)]
    scope = _indentation_scope(lines, detection, ctx, keep_block_scope)
    index = 1
    while index < len(lines):
        line = lines[index]
        if js_is_blank(line):
            index += 1
            continue
        if indentation_level(line) < scope.limit:
            if is_block_closing_line(detection, index) and is_block_opening_line(detection, index):
                index += 1
                continue
            if scope.allow_closing_line and (ctx.language != "python" or not js_is_blank(lines[index - 1])):
                index += 1
            break
        index += 1
    if index < len(lines):
        return js_trim_end("".join(lines[:index]))
    return text


def _detect_indentation(lines: list[str]) -> str | None:
    """formatIndentation.ts detectIndentation: tab if any line starts with one, else two or four
    spaces by which divides more of the space-indented lines."""
    tabs = twos = fours = 0
    for line in lines:
        if line.startswith("\t"):
            tabs += 1
            continue
        spaces = len(line) - len(line.lstrip(" "))
        if spaces > 0:
            fours += spaces % 4 == 0
            twos += spaces % 2 == 0
    if tabs > 0:
        return "\t"
    if twos > fours:
        return "  "
    if fours > 0:
        return "    "
    return None


def _format_indent_level(line: str, unit: str) -> float:
    """formatIndentation.ts getIndentLevel: leading tabs, or leading spaces / unit (fractional)."""
    if unit == "\t":
        return len(line) - len(line.lstrip("\t"))
    return (len(line) - len(line.lstrip(" "))) / len(unit)


def format_indentation(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/formatIndentation.ts: re-indent the text to the editor's indent unit, only
    when the client gave one and neither the prefix nor the suffix shows an indentation the
    model could have followed. JS repeat/slice truncate a fractional level."""
    unit = ctx.indentation
    if not unit:
        return text
    lines = split_lines(text)
    prefix_detect = ctx.prefix_lines[:-1] if js_is_blank(ctx.current_line_prefix) else ctx.prefix_lines
    if len(ctx.prefix_lines) > 1 and _detect_indentation(prefix_detect) is not None:
        return text
    if len(ctx.suffix_lines) > 1 and _detect_indentation(ctx.suffix_lines[1:]) is not None:
        return text
    detection = [ctx.current_line_prefix + line if i == 0 else line for i, line in enumerate(lines)]
    found = _detect_indentation(detection)
    if found is None or found == unit:
        return text
    out = []
    for index, line in enumerate(detection):
        level = _format_indent_level(line, found)
        if level == 0:
            out.append(lines[index])
            continue
        rest = line[int(len(found) * level):]
        if index > 0:
            out.append(unit * int(level) + rest)
        elif not js_is_blank(ctx.current_line_prefix):
            out.append(lines[0])
        else:
            out.append((unit * int(level))[len(ctx.current_line_prefix):] + rest)
    return "".join(out)


# normalizeIndentation.ts getLeadingSpaces: /^(\s*)/ with JS `\s` (whitespace and line breaks).
_LEADING = re.compile(f"[{JS_WHITESPACE}]*")


def _leading(line: str) -> int:
    return _LEADING.match(line).end()  # type: ignore[union-attr]


def normalize_indentation(text: str, ctx: CompletionContext, guard: bool = True) -> str | None:
    """postprocess/normalizeIndentation.ts (90b4b4c91): only when the cursor line's prefix is
    whitespace. The first line loses its leading whitespace when that is odd and the prefix's is
    even; then every non-blank line with an odd count of leading whitespace is re-indented with
    one space less (spaces only). The first line may be a bare line break (JS `\\s` counts it),
    which then goes. With `guard` (a3e8f6a90) an empty prefix or one holding a tab is left alone."""
    lines = split_lines(text)
    before = ctx.current_line_prefix
    if not lines or (guard and (before == "" or "\t" in before)):
        return text
    if not js_is_blank(before):  # isOnlySpaces: empty, or /^\s*$/
        return text
    if lines[0]:
        first = _leading(lines[0])
        if (first + _leading(before)) % 2 != 0 and first % 2 != 0:
            lines[0] = lines[0][first:]
    for index, line in enumerate(lines):
        if not line or js_is_blank(line):
            continue
        spaces = _leading(line)
        if spaces > 0 and spaces % 2 != 0:
            lines[index] = " " * (spaces - 1) + js_trim_start(line)
    return "".join(lines)
