"""tabby-agent's completion stage: what the editor client does with the Tabby server's text.

tabby-agent 1.5.0, the npm release (TabbyML/tabby clients/tabby-agent at commit 3c12cc135
"bump tabby-agent ... to 1.5.0"; its bundled dist/cli.js has the same filters in the same order).
TabbyAgent.ts provideCompletions makes ONE non-streaming POST /v1/completions, then runs the
choice through two chains of filters (src/postprocess/index.ts):

- preCacheProcess: trimMultiLineInSingleLineMode, removeLineEndsWithRepetition, dropDuplicated,
  trimSpace, dropBlank;
- postCacheProcess: removeRepetitiveBlocks, removeRepetitiveLines, limitScope,
  removeDuplicatedBlockClosingLine, formatIndentation, dropDuplicated, trimSpace, dropBlank, then
  the choice filter calculateReplaceRange.

Each filter sees the completion text and the CompletionContext (src/CompletionContext.ts) built
from the WHOLE document and the cursor offset; a filter that returns null or "" drops the choice
(postprocess/base.ts applyFilter/applyChoiceFilter), and the agent shows nothing.

What a replay models is one fresh request:
- the completion cache (CompletionCache.ts) is empty: a fresh request misses it, and the text
  pre-built for the positions the user would type next is never read;
- debounce and cancellation change when, not what, the agent shows;
- the request carries no `indentation`: the LSP server (LspServer.ts buildCompletionRequest)
  never sends one, so formatIndentation leaves the text as it is (the rule is ported and runs
  when a caller gives the editor's indentation to `postprocess`);
- `postprocess.*.experimentalSyntax` (off by default) parses with tree-sitter grammars bundled
  as wasm (src/syntax/parser.ts: javascript/typescript(react) -> tsx, python, go, rust, ruby).
  Solidity has no grammar there, so 1.5.0 falls back to the indentation and bracket-stack rules,
  which this module runs; with the switch on for a tree-sitter language the replay refuses
  (TabbyInputError) rather than guess the parse.

JavaScript string semantics are kept: lines as src/utils.ts splitLines cuts them, the ECMAScript
whitespace set of trim/trimStart/trimEnd and `\\s`, and lengths and edit distances counted in
UTF-16 code units (fast-levenshtein compares charCodeAt).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
from replay.editors.stage import Shown, Steps, StreamStop, Timing, TraceStep
from replay.editors.tabby.client import build_request, split_lines
from replay.editors.tabby.options import COMPLETION_DEFAULTS, TabbyInputError, options
from replay.records import EditorInput

_SOURCE = "TabbyML/tabby clients/tabby-agent/src/postprocess/"

# src/syntax/parser.ts languagesConfigs: the VS Code language ids 1.5.0 has a tree-sitter grammar for.
SYNTAX_LANGUAGES = frozenset({"javascript", "typescript", "javascriptreact", "typescriptreact", "python", "go", "rust", "ruby"})

Filter = Callable[[str, "CompletionContext"], "str | None"]


def _source(file: str) -> str:
    return f"{_SOURCE}{file}.ts"


def _within(a: str, b: str, threshold: float) -> bool:
    """src/utils.ts calcDistance(a, b) <= threshold: fast-levenshtein's unit-cost edits over
    UTF-16 code units, which rapidfuzz's Levenshtein computes over the UTF-16 view."""
    return abs(js_length(a) - js_length(b)) <= threshold and Levenshtein.distance(utf16(a), utf16(b)) <= threshold


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


# ---------------------------------------------------------------------------------------------
# The context every filter reads


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


# ---------------------------------------------------------------------------------------------
# The filters, one per source file


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


# ---------------------------------------------------------------------------------------------
# The chains


def _pre_cache() -> list[tuple[str, Filter]]:
    """postprocess/index.ts preCacheProcess, in order."""
    return [("trimMultiLineInSingleLineMode", trim_multi_line_in_single_line_mode),
            ("removeLineEndsWithRepetition", remove_line_ends_with_repetition),
            ("dropDuplicated", drop_duplicated), ("trimSpace", trim_space), ("dropBlank", drop_blank)]


def _post_cache(keep_block_scope: bool) -> list[tuple[str, Filter]]:
    """postprocess/index.ts postCacheProcess, in order (calculateReplaceRange follows)."""
    def limit_scope(text: str, ctx: CompletionContext) -> str | None:
        return limit_scope_by_indentation(text, ctx, keep_block_scope)

    return [("removeRepetitiveBlocks", remove_repetitive_blocks), ("removeRepetitiveLines", remove_repetitive_lines),
            ("limitScopeByIndentation", limit_scope),
            ("removeDuplicatedBlockClosingLine", remove_duplicated_block_closing_line),
            ("formatIndentation", format_indentation), ("dropDuplicated", drop_duplicated),
            ("trimSpace", trim_space), ("dropBlank", drop_blank)]


def _check_syntax_switches(opts: dict[str, Any], language: str) -> None:
    """limitScope.ts / calculateReplaceRange.ts prefer the tree-sitter rules when switched on;
    they throw for a language without a grammar and the agent falls back to the rules here."""
    for key in ("postprocess.limitScope.experimentalSyntax", "postprocess.calculateReplaceRange.experimentalSyntax"):
        if opts[key] and language in SYNTAX_LANGUAGES:
            raise TabbyInputError(f"{key} = true parses {language!r} with tree-sitter, which the replay does not model")


def postprocess(prefix: str, suffix: str, raw: str, language: str | None = None, *, indentation: str | None = None,
                config: dict[str, Any] | None = None) -> Shown:
    """Both filter chains over one choice of a fresh request at the cursor between `prefix` and
    `suffix` (the whole document): the text shown (None: dropped), the mode, the replace range."""
    opts = options(config, COMPLETION_DEFAULTS)
    ctx = CompletionContext.of(prefix, suffix, language, indentation)
    _check_syntax_switches(opts, ctx.language)
    keep_block = opts["postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine"]
    steps = Steps(raw)
    steps.set("applyChoiceFilter", _source("base"), raw or None)  # base.ts: an empty choice is filtered out
    for name, rule in _pre_cache() + _post_cache(keep_block):
        # each filter is named after its file; "" drops the choice like null (applyChoiceFilter)
        steps.apply(name, _source(name), lambda text, rule=rule: rule(text, ctx) or None)
    replace_after = 0
    if steps.text is not None:
        replace_after = replace_range_by_bracket_stack(steps.text, ctx)
        if replace_after:
            steps.trace.append(TraceStep(step="calculateReplaceRange", source=_source("calculateReplaceRangeByBracketStack"),
                                         text=steps.text))
    return steps.shown(multiline=ctx.mode == "default", replace_after=replace_after)


def complete(inp: EditorInput, raw: str, *, model: str | None = None, version: str | None = None,
             timing: Timing | None = None) -> Shown:
    """What tabby-agent 1.5.0 shows of the server's text `raw` at this cursor.

    `text` is what the LSP item inserts at the cursor: LspServer.ts toCompletionList starts the
    item's edit at the start of the word being typed and puts that word in front of the
    insertion, so the word part already typed before the cursor is NOT in `text`. None when the
    agent shows nothing (every choice filtered out, or a blank prefix, for which it sends no
    request at all). `replace_after` is how many characters after the cursor the item's range
    replaces (calculateReplaceRange). `multiline` is CompletionContext's mode ("default" allows
    several lines, "fill-in-line" one). `model`, `version` (the server release) and `timing`
    do not change the client's rules: the agent reads one non-streamed answer, with no timers.
    """
    if build_request(inp) is None:  # TabbyAgent.ts: no segments, no request, no choices
        nothing = TraceStep(step="createSegments", source="TabbyML/tabby clients/tabby-agent/src/TabbyAgent.ts", text=None)
        return Shown(text=None, multiline=CompletionContext.of(inp.prefix, inp.suffix).mode == "default", trace=(nothing,))
    return postprocess(inp.prefix, inp.suffix, raw, inp.language, config=inp.options)


def stream_stop(inp: EditorInput, *, model: str | None = None, version: str | None = None) -> StreamStop | None:
    """tabby-agent 1.5.0 never cuts a stream: TabbyAgent.ts provideCompletions POSTs
    /v1/completions without `stream` and reads the one JSON answer, so the engine runs to its
    own stop words or token budget."""
    return None


__all__ = ["CompletionContext", "complete", "find_unpaired_auto_closing_chars", "postprocess", "stream_stop"]
