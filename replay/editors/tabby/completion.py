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

from collections.abc import Callable
from typing import Any

from replay.editors.stage import Shown, Steps, StreamStop, Timing, TraceStep
from replay.editors.tabby.client import build_request
from replay.editors.tabby.context import CompletionContext
from replay.editors.tabby.filters import (
    drop_blank,
    drop_duplicated,
    format_indentation,
    limit_scope_by_indentation,
    remove_duplicated_block_closing_line,
    remove_line_ends_with_repetition,
    remove_repetitive_blocks,
    remove_repetitive_lines,
    replace_range_by_bracket_stack,
    trim_multi_line_in_single_line_mode,
    trim_space,
)
from replay.editors.tabby.options import COMPLETION_DEFAULTS, TabbyInputError, options
from replay.records import EditorInput

_SOURCE = "TabbyML/tabby clients/tabby-agent/src/postprocess/"

# src/syntax/parser.ts languagesConfigs: the VS Code language ids 1.5.0 has a tree-sitter grammar for.
SYNTAX_LANGUAGES = frozenset({"javascript", "typescript", "javascriptreact", "typescriptreact", "python", "go", "rust", "ruby"})

Filter = Callable[[str, "CompletionContext"], "str | None"]


def _source(file: str) -> str:
    return f"{_SOURCE}{file}.ts"


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


__all__ = ["CompletionContext", "complete", "postprocess", "stream_stop"]
