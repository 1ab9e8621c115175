"""tabby-agent 1.5.0's post-processing filters, one per source file of
TabbyML/tabby clients/tabby-agent/src/postprocess/ (each docstring names it). A filter takes the
text and the CompletionContext and returns the new text, or None (or "") to drop the choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from replay.editors.js import (
    JS_WHITESPACE,
    js_is_blank,
    js_length,
    js_trim,
    js_trim_end,
    js_trim_start,
    utf16,
)
from replay.editors.tabby.client import split_lines
from replay.editors.tabby.context import (
    CompletionContext,
    find_unpaired_auto_closing_chars,
    indentation_level,
    is_block_closing_line,
    is_block_opening_line,
)


def _within(a: str, b: str, threshold: float) -> bool:
    """src/utils.ts calcDistance(a, b) <= threshold: fast-levenshtein's unit-cost edits over
    UTF-16 code units, which rapidfuzz's Levenshtein computes over the UTF-16 view."""
    return abs(js_length(a) - js_length(b)) <= threshold and Levenshtein.distance(utf16(a), utf16(b)) <= threshold



def trim_multi_line_in_single_line_mode(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/trimMultiLineInSingleLineMode.ts: in fill-in-line mode a multi-line text is
    cut to its first line when that line ends with the rest of the cursor line (the part before
    it is kept), else dropped."""
    lines = split_lines(text)
    if ctx.mode != "fill-in-line" or len(lines) <= 1:
        return text
    suffix = js_trim_end(ctx.current_line_suffix)
    first = js_trim_end(lines[0])
    if first.endswith(suffix):
        kept = first[:-len(suffix)] if suffix else ""  # JS slice(0, -0) is ""
        if kept:
            return kept
    return None


_REPETITION_TESTS = (
    re.compile("([^\n\r\u2028\u2029]{3,}?)\\1{5,}\\Z"),  # a 3+ character pattern repeated 5+ times at the end
    re.compile("([^\n\r\u2028\u2029]{10,}?)\\1{3,}\\Z"),  # a 10+ character pattern repeated 3+ times at the end
)


def remove_line_ends_with_repetition(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/removeLineEndsWithRepetition.ts: the last non-blank line, when it ends in a
    repeated pattern, is removed (the whole text is dropped when it is the first line). JS `.`
    stops at \\r, \\n, \\u2028, \\u2029 and `$` is the end of the line piece, so a piece that
    still ends with its newline never matches."""
    lines = split_lines(text)
    index = len(lines) - 1
    while index >= 0 and js_is_blank(lines[index]):
        index -= 1
    if index < 0:
        return text
    line = utf16(lines[index])
    if any(test.search(line) for test in _REPETITION_TESTS):
        return None if index < 1 else js_trim_end("".join(lines[:index]))
    return text


def drop_duplicated(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/dropDuplicated.ts: dropped when its first (up to 3) non-blank lines are within
    an edit distance of max(1, 5% of the length) of as many lines that follow the cursor."""
    lines = split_lines(text)
    start = 0
    while start < len(lines) and js_is_blank(lines[start]):
        start += 1
    suffix_start = 0
    while suffix_start < len(ctx.suffix_lines) and js_is_blank(ctx.suffix_lines[suffix_start]):
        suffix_start += 1
    count = min(3, len(lines) - start, len(ctx.suffix_lines) - suffix_start)
    if count < 1:
        return text
    mine = js_trim("".join(lines[start:start + count]))
    theirs = js_trim("".join(ctx.suffix_lines[suffix_start:suffix_start + count]))
    threshold = max(1, 0.05 * js_length(mine), 0.05 * js_length(theirs))
    return None if _within(mine, theirs, threshold) else text


def trim_space(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/trimSpace.ts: leading whitespace goes when the cursor line already ends in a
    space after some code; trailing whitespace goes when the rest of the line is blank or starts
    with whitespace."""
    out = text
    before, after = ctx.current_line_prefix, ctx.current_line_suffix
    if not js_is_blank(before) and before[-1] in JS_WHITESPACE:
        out = js_trim_start(out)
    if js_is_blank(after) or after[0] in JS_WHITESPACE:
        out = js_trim_end(out)
    return out


def drop_blank(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/dropBlank.ts: a blank text is not shown."""
    return None if js_is_blank(text) else text


def _repetition_run(parts: list[str], jump: bool) -> tuple[int, int]:
    """Going up from the part before the last (which may be cut off), how many times in a row a
    non-blank part repeats the non-blank one above it (edit distance within 10% of the longer,
    trimmed), and the index where the run ends. After a match removeRepetitiveBlocks.ts steps up
    one part; removeRepetitiveLines.ts jumps to the matched line (`jump`)."""
    repetitions, index = 0, len(parts) - 2
    while index >= 1:
        if js_is_blank(parts[index]):
            index -= 1
            continue
        prev = index - 1
        while prev >= 0 and js_is_blank(parts[prev]):
            prev -= 1
        if prev < 0:
            break
        current, previous = js_trim(parts[index]), js_trim(parts[prev])
        if not _within(current, previous, max(0.1 * js_length(current), 0.1 * js_length(previous))):
            break
        repetitions += 1
        index = prev if jump else index - 1
    return repetitions, index


def remove_repetitive_blocks(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/removeRepetitiveBlocks.ts: blocks split at blank lines; when the blocks before
    the last repeat each other 2+ times, only the blocks up to the first of the run are kept. JS
    split keeps the captured whitespace between blocks as items and the join drops the newlines
    around it, as the agent does."""
    blocks = re.split(f"\n([{JS_WHITESPACE}]*)\n", text)
    repetitions, index = _repetition_run(blocks, jump=False)
    if repetitions >= 2:
        return js_trim_end("".join(blocks[:index + 1]))
    return text


def remove_repetitive_lines(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/removeRepetitiveLines.ts: when the lines before the last repeat each other 5+
    times, only the lines up to the first of the run are kept."""
    lines = split_lines(text)
    repetitions, index = _repetition_run(lines, jump=True)
    if repetitions >= 5:
        return js_trim_end("".join(lines[:index + 1]))
    return text


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


def remove_duplicated_block_closing_line(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/removeDuplicatedBlockClosingLine.ts: a multi-line text whose last line closes
    a block is cut before it when the first non-blank line after the cursor line is the same
    closing line (either one a prefix of the other)."""
    lines = split_lines(text)
    if len(lines) < 2:
        return text
    detection = [ctx.current_line_prefix + line if i == 0 else line for i, line in enumerate(lines)]
    if not is_block_closing_line(detection, len(lines) - 1):
        return text
    last = lines[-1]
    after = 1
    while after < len(ctx.suffix_lines) and js_is_blank(ctx.suffix_lines[after]):
        after += 1
    if after >= len(ctx.suffix_lines):
        return text
    following = ctx.suffix_lines[after]
    if last.startswith(js_trim_end(following)) or following.startswith(js_trim_end(last)):
        return js_trim_end("".join(lines[:-1]))
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


def replace_range_by_bracket_stack(text: str, ctx: CompletionContext) -> int:
    """postprocess/calculateReplaceRangeByBracketStack.ts: how many characters after the cursor
    the item replaces. The closers the text leaves unpaired replace the same auto-closed
    characters after the cursor (all of them when the rest of the line starts with them, or the
    rest of the line when it is a start of them)."""
    rest = js_trim_end(ctx.current_line_suffix)
    if js_is_blank(rest):
        return 0
    unpaired = "".join(find_unpaired_auto_closing_chars(text))
    if js_is_blank(unpaired):
        return 0
    if rest.startswith(unpaired):
        return len(unpaired)
    if unpaired.startswith(rest):
        return len(rest)
    return 0
