"""The line side of Continue's completion stream (continuedev/continue core/autocomplete/
lineStream.ts, later core/autocomplete/filtering/streamTransforms/lineStream.ts, and the language
line filters of AutocompleteLanguageInfo.ts). Each transform is a generator over lines, pulled the
way Continue's async generators are; one that stops returns and nothing more is read. Lines are
in UTF-16 code units (charstream.to_units), as JavaScript measures them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

from replay.editors.continue_.brackets import BRACKETS, BRACKETS_REVERSE
from replay.editors.continue_.charstream import (
    Feed,
    is_js_space,
    js_trim,
    js_trim_end,
    js_trim_start,
)

Lines = Iterator[str]
_BRACKET_ENDING_CHARS = (")", "]", "}", ";")
_PREFIXES_TO_SKIP = ("<COMPLETION>",)


# ---------------------------------------------------------------------------------------------
# Similarity


@functools.lru_cache(maxsize=4096)
def levenshtein(a: str, b: str) -> int:
    """fastest-levenshtein `distance`: edit distance over UTF-16 code units."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _common_prefix_length(a: str, b: str) -> int:
    """lineStream.ts commonPrefixLength (used by lineIsRepeated until 2024-11-05)."""
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def line_is_repeated(a: str, b: str, rule: str = "lev10") -> bool:
    """lineStream.ts lineIsRepeated: never for lines of 4 units or fewer; else the trimmed lines'
    edit distance is under 10% of the second's length (`lev10`; 5% `lev05` 2024-11-05..10; before
    2024-11-05 `prefix12`: also a common prefix longer than 12)."""
    if len(a) <= 4 or len(b) <= 4:
        return False
    a_trim, b_trim = js_trim(a), js_trim(b)
    if rule == "prefix12" and _common_prefix_length(a_trim, b_trim) > 12:
        return True
    limit = 0.05 if rule == "lev05" else 0.1
    if not b_trim:  # distance / 0 is NaN or Infinity in JavaScript: never below the limit
        return False
    if abs(len(a_trim) - len(b_trim)) >= limit * len(b_trim):  # the distance is at least the length difference
        return False
    return levenshtein(a_trim, b_trim) / len(b_trim) < limit


def validate_pattern_in_line(line: str, pattern: str) -> tuple[bool, int, str]:
    """lineStream.ts validatePatternInLine (2025-07): (valid, index, text before). A pattern right
    after a non-whitespace character, or after an odd number of ' or " quotes, is not valid."""
    index = line.find(pattern)
    if index == -1:
        return False, -1, ""
    if index > 0 and not is_js_space(line[index - 1]):
        return False, index, ""
    before = line[:index]
    if before.count("'") % 2 or before.count('"') % 2:
        return False, index, before
    return True, index, before


# ---------------------------------------------------------------------------------------------
# Stops


def stop_at_lines(lines: Lines, feed: Feed, stops: Sequence[str], variant: str) -> Lines:
    """lineStream.ts stopAtLines: the completion ends before a line carrying a stop phrase
    (LINES_TO_STOP_AT). `includes`: anywhere in the trimmed line; `validated` (2025-07): at the
    line's start or after whitespace, outside quotes (validatePatternInLine)."""
    for line in lines:
        if any(_stops_line(line, stop, variant) for stop in stops):
            feed.full_stop()
            return
        yield line


def _stops_line(line: str, stop: str, variant: str) -> bool:
    """Whether one stop phrase ends the completion at this line (lineStream.ts stopAtLines)."""
    if variant == "includes":
        return stop in js_trim(line)
    if stop not in line:
        return False
    valid, _index, before = validate_pattern_in_line(line, stop)
    if not valid:
        return False
    return js_trim_start(line).startswith(stop) or len(js_trim_end(before)) < len(before)


def stop_at_lines_exact(lines: Lines, feed: Feed, stops: Sequence[str]) -> Lines:
    """lineStream.ts stopAtLinesExact (2024-12-08): ends before a line equal to the first
    non-blank line below the cursor."""
    for line in lines:
        if line in stops:
            feed.full_stop()
            return
        yield line


def stop_at_repeating_lines(lines: Lines, feed: Feed) -> Lines:
    """lineStream.ts stopAtRepeatingLines: repeats of a line pass silently until the third
    identical line in a row, which ends the completion."""
    previous: str | None = None
    repeats = 0
    for line in lines:
        if line == previous:
            repeats += 1
            if repeats == 3:
                feed.full_stop()
                return
        else:
            yield line
            repeats = 1
        previous = line


def stop_at_similar_line(lines: Lines, line_below: str, feed: Feed, rule: str, blank_first: bool) -> Lines:
    """lineStream.ts stopAtSimilarLine: the completion ends before it re-types the first non-blank
    line below the cursor (equal, or lineIsRepeated). If that line has a closing bracket or ";",
    a line equal to it after trimming passes. Since 2024-11-05 (`blank_first`) nothing is checked
    when the line below is blank, and the bracket rule comes before the equality rule."""
    trimmed = js_trim(line_below)
    bracket_ending = any(ch in _BRACKET_ENDING_CHARS for ch in trimmed)
    for line in lines:
        if blank_first and trimmed == "":
            yield line
            continue
        if not blank_first and line == line_below:
            feed.full_stop()
            return
        if bracket_ending and trimmed == js_trim(line):
            yield line
            continue
        if line == line_below or line_is_repeated(line, trimmed, rule):
            feed.full_stop()
            return
        yield line


def no_top_level_keywords_midline(lines: Lines, keywords: Sequence[str], feed: Feed) -> Lines:
    """lineStream.ts noTopLevelKeywordsMidline (until 2024-10-25): a top-level keyword + space
    after a non-space character cuts the line there and stops the stream; the whole line still
    follows, and so does what the transforms before it already hold."""
    for line in lines:
        for keyword in keywords:
            index = line.find(f"{keyword} ")
            if index > 0 and not is_js_space(line[index - 1]):
                yield line[:index]
                feed.full_stop()
                break
        yield line


def no_double_new_line(lines: Lines) -> Lines:
    """lineStream.ts noDoubleNewLine (2024-11-27): the completion ends at its first blank line
    after the first line."""
    first = True
    for line in lines:
        if js_trim(line) == "" and not first:
            return
        first = False
        yield line


def no_double_newline_after_closing_bracket(lines: Lines) -> Lines:
    """lineStream.ts noDoubleNewlineAfterClosingBracket (2024-11-16..22, 2024-11-25..27): a blank
    line ends the completion once it has closed more brackets of some kind than it opened."""
    counts: dict[str, int] = {}
    for line in lines:
        if js_trim(line) == "" and any(n < 0 for n in counts.values()):
            return
        yield line
        for ch in line:
            if ch in BRACKETS:
                counts[ch] = counts.get(ch, 0) + 1
            elif ch in BRACKETS_REVERSE:
                counts[BRACKETS_REVERSE[ch]] = counts.get(BRACKETS_REVERSE[ch], 0) - 1


def stop_n_chars_after_closing_bracket(lines: Lines, n: int = 20) -> Lines:
    """lineStream.ts stopNCharsAfterClosingBracket (2024-11-22..25): after the first closing
    bracket the completion did not open, at most 20 more characters (that one included)."""
    counts: dict[str, int] = {}
    countdown: int | None = None
    for line in lines:
        out = ""
        for ch in line:
            if ch in BRACKETS:
                counts[ch] = counts.get(ch, 0) + 1
            elif ch in BRACKETS_REVERSE:
                opening = BRACKETS_REVERSE[ch]
                counts[opening] = counts.get(opening, 0) - 1
                if counts[opening] < 0 and countdown is None:
                    countdown = n
            out += ch
            if countdown is not None:
                countdown -= 1
                if countdown <= 0:
                    yield out
                    return
        yield out


def show_whatever_we_have_at_x_ms(lines: Lines, feed: Feed, limit: float, needs_text: bool) -> Lines:
    """lineStream.ts showWhateverWeHaveAtXMs: once `limit` seconds have passed since the request
    (the arrival time of the chunk that completed the line), the completion ends after the
    current line; since 2024-11-28 only after a non-whitespace line has been shown."""
    seen_text = False
    for line in lines:
        yield line
        if js_trim(line) != "":
            seen_text = True
        if feed.clock > limit and (seen_text or not needs_text):
            return


# ---------------------------------------------------------------------------------------------
# Filters


def avoid_path_line(lines: Lines, comment: str, empty_comments: bool) -> Lines:
    """lineStream.ts avoidPathLine: drops `<comment> Path: ...` lines (the snippet header copied
    by the model); until 2024-11-04 the same transform also dropped empty comment lines
    (`empty_comments`, avoidPathLineAndEmptyComments)."""
    for line in lines:
        if line.startswith(f"{comment} Path: ") or (empty_comments and js_trim(line) == comment):
            continue
        yield line


def avoid_empty_comments(lines: Lines, comment: str, guard: bool) -> Lines:
    """lineStream.ts avoidEmptyComments (2024-11-04): drops lines that are only the comment
    marker. Since 2024-11-05 (`guard`) a language without one (Markdown's "") keeps its blank
    lines."""
    for line in lines:
        if (guard and not comment) or js_trim(line) != comment:
            yield line


def skip_prefixes(lines: Lines) -> Lines:
    """lineStream.ts skipPrefixes: `<COMPLETION>` at the start of the first line is dropped (a
    line that is only the prefix leaves an empty line, and the next line is checked too)."""
    first = True
    for line in lines:
        if first:
            match = next((p for p in _PREFIXES_TO_SKIP if line.startswith(p)), None)
            if match:
                yield line[len(match):]
                continue
            first = False
        yield line


def yaml_one_list_item(lines: Lines, feed: Feed) -> Lines:
    """AutocompleteLanguageInfo.ts YAML lineFilters[0]: one list item at a time."""
    seen_item = False
    for line in lines:
        if js_trim(line).startswith("- "):
            if seen_item:
                feed.full_stop()
                return
            seen_item = True
        yield line


def yaml_no_repeated_key(lines: Lines, variant: str) -> Lines:
    """AutocompleteLanguageInfo.ts YAML lineFilters[1]: ends at a line with the same key as the
    previous keyed line. Until 2024-11-05 (`old`) lines without a ":" were dropped as well."""
    last_key: str | None = None
    for line in lines:
        if ":" in line:
            key = line.split(":")[0]
            if key == last_key:
                return
            yield line
            last_key = key
        elif variant != "old":
            yield line


def stream_with_new_lines(lines: Lines) -> Iterator[str]:
    """lineStream.ts streamWithNewLines: the lines joined again, a "\\n" between each two."""
    first = True
    for line in lines:
        if not first:
            yield "\n"
        first = False
        yield line


__all__ = ["levenshtein", "line_is_repeated", "stop_at_lines", "stop_at_similar_line", "validate_pattern_in_line"]
