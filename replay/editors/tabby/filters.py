"""tabby-agent's post-processing filters, one per source file of TabbyML/tabby
clients/tabby-agent/src/postprocess/ (from f4d9c75f0 src/codeCompletion/postprocess/; each
docstring names it and the commits that changed it, 1.3.0 to the freeze). A filter takes the
text and the CompletionContext and returns the new text, or None (or "") to drop the choice. The
indentation filters are in indentation.py, the replace range in ranges.py.
"""

from __future__ import annotations

import re

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
from replay.editors.tabby.context import CompletionContext, is_block_closing_line
from replay.editors.tabby.indentation import format_indentation, limit_scope_by_indentation, normalize_indentation
from replay.editors.tabby.ranges import replace_range_by_bracket_stack


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


# removeLineEndsWithRepetition.ts's two tests, /([^\n\r\u2028\u2029]{3,}?)\1{5,}$/ and
# /([^\n\r\u2028\u2029]{10,}?)\1{3,}$/: a piece of 3+ characters written 6+ times in a row at
# the end of the line, or one of 10+ written 4+ times. As (shortest piece, times).
_REPETITION_TESTS = ((3, 6), (10, 4))
_LINE_TERMINATORS = "\n\r\u2028\u2029"


def ends_with_repetition(line: str, shortest: int, times: int) -> bool:
    """Whether `line` ends with a piece of `shortest` or more characters, none a line
    terminator, written `times` times in a row: what the regex tests, since when some piece
    is written more times its last `times` copies end the line too. Each piece length is
    tried once from the end (its last character must come back one piece earlier), where a
    backtracking regex tries every start and every length: a 4,000-character line took the
    regex 25 s."""
    start = max(line.rfind(c) for c in _LINE_TERMINATORS) + 1
    n = len(line)
    for size in range(shortest, (n - start) // times + 1):
        if line[n - 1 - size] == line[n - 1] and line.endswith(line[n - size:] * times):
            return True
    return False


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
    if any(ends_with_repetition(line, shortest, times) for shortest, times in _REPETITION_TESTS):
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
    """postprocess/dropBlank.ts (until 7227d0b17): a blank text is not shown."""
    return None if js_is_blank(text) else text


def drop_minimum(text: str, ctx: CompletionContext, min_chars: int = 4) -> str | None:
    """postprocess/dropMinimum.ts (7227d0b17): dropped when the trimmed text is shorter than
    postprocess.minCompletionChars (UTF-16 length; until 309edd172 the full text with the
    replaced prefix was checked too, the same text for a fresh request)."""
    return None if js_length(js_trim(text)) < min_chars else text


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


def remove_duplicated_block_closing_line(text: str, ctx: CompletionContext, trim_end: bool = True) -> str | None:
    """postprocess/removeDuplicatedBlockClosingLine.ts: a multi-line text whose last line closes
    a block is cut before it when the first non-blank line after the cursor line is the same
    closing line (either one a prefix of the other). Before b3cbe36a0 (`trim_end` False) the
    lines were compared as they are, line break included."""
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
    trim = js_trim_end if trim_end else (lambda line: line)
    if last.startswith(trim(following)) or following.startswith(trim(last)):
        return js_trim_end("".join(lines[:-1]))
    return text


def remove_duplicate_suffix_lines(text: str, ctx: CompletionContext) -> str | None:
    """postprocess/removeDuplicateSuffixLines.ts (55caabca9): the text split at "\n" is cut
    before the last of its lines (searching from the end) that equals the suffix's first
    non-blank trimmed line and from which on every text line equals the following suffix lines
    (as far as the text goes); the text lines are compared untrimmed. The remaining lines are
    joined with "\n", without trimming."""
    lines = text.split("\n")
    wanted = [trimmed for trimmed in (js_trim(line) for line in ctx.suffix.split("\n")) if trimmed]
    if not wanted:
        return text
    for index in range(len(lines) - 1, -1, -1):
        if js_is_blank(lines[index]) or lines[index] != wanted[0]:
            continue
        span = min(len(wanted), len(lines) - index)
        if all(lines[index + j] == wanted[j] for j in range(span)):
            return "\n".join(lines[:index])
    return text


__all__ = [
    "drop_blank", "drop_duplicated", "drop_minimum", "format_indentation", "limit_scope_by_indentation",
    "normalize_indentation", "remove_duplicate_suffix_lines", "remove_duplicated_block_closing_line",
    "remove_line_ends_with_repetition", "remove_repetitive_blocks", "remove_repetitive_lines",
    "replace_range_by_bracket_stack", "trim_multi_line_in_single_line_mode", "trim_space",
]
