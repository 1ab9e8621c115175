"""Continue's completion stage: what Continue (continuedev/continue) shows of the model's
streamed text, by release (rules.py has the dated table of every rule change).

The stage, in Continue's order (core/autocomplete/completionProvider.ts until 2024-10-30, then
CompletionProvider.ts -> generation/CompletionStreamer.ts -> filtering/streamTransforms/
StreamTransformPipeline.ts):

1. Prefiltering: no request at all in some places (the end-of-line rule until 2024-11-05, empty
   Untitled files, *.prompt files, `disable`).
2. The multi-line decision (multiline.py); single-line mode ends the stream at its first newline.
3. The stream transforms: characters (charstream.py: stop words, the suffix-repetition stop,
   bracket matching in brackets.py), then lines (linestream.py: stop phrases, repeated lines,
   path and empty-comment lines, blank-line stops, the line below the cursor, the time limit).
4. postprocessCompletion (postprocessing.py), skipped with `transform: false` like every
   transform; an empty result shows nothing.

Continue runs the transforms as async generators over the stream; so does this module, over the
chunks of `timing` when it is given (one per streamed token, as measured), else over one chunk per
character. Only two rules see chunk boundaries: noFirstCharNewline (the first chunk; any split
gives the same answer) and stopAfterMaxProcessingTime (every tenth chunk, a time-based rule);
stopAtStopTokens hands the later transforms one character at a time whatever the split.

Time-based rules (showWhateverWeHaveAtXMs, stopAfterMaxProcessingTime) need `timing`: a rule's
clock is the arrival time of the last chunk read. Without timing they never cut.

The trace starts from the text Continue read (a transform that stops the stream ends the reading)
and lists each transform whose output differs from its input, taken as if the stream ended after
that transform. `stream_stop` runs the same transforms over the text streamed so far, one chunk
per character, and answers how much they read once they stop pulling; cutting the stream there
shows the same text (tests/editors/continue_/test_completion_rules.py checks it).

What a replay leaves out: the completion cache and generator reuse across keystrokes (a fresh
request), the previous accepted completion's open brackets, IntelliSense selections, and what the
IDE extension does after core (VS Code's processSingleLineCompletion range handling).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from replay.editors.continue_ import charstream as cs
from replay.editors.continue_ import linestream as ls
from replay.editors.continue_.brackets import stop_on_unmatched_closing_bracket
from replay.editors.continue_.charstream import Feed, NeedMore, from_units, to_units
from replay.editors.continue_.langinfo import LangInfo, lang_info
from replay.editors.continue_.multiline import should_complete_multiline
from replay.editors.continue_.postprocessing import (
    postprocess_completion,
    provider_filter,
)
from replay.editors.continue_.profile import (
    COMMON_STOPS,
    STARCODER2_STOPS,
    merged_options,
    prune_prefix_suffix,
    render,
)
from replay.editors.continue_.releases import era_for
from replay.editors.continue_.rules import Rules, rules_for, source
from replay.editors.continue_.templates import template_for_model
from replay.editors.continue_.uri import to_uri, uri_basename
from replay.editors.stage import Shown, Steps, StreamStop, Timing
from replay.records import EditorInput

DEFAULT_MODEL_TIMEOUT_MS = 150  # core/util/parameters.ts modelTimeout (2025-03)
DEFAULT_SHOW_WHATEVER_MS = 300  # core/util/parameters.ts showWhateverWeHaveAtXMs (2024-10-31)
_MULTILINE_STOPS = ("\n\n", "\r\n\r\n")


@dataclasses.dataclass(frozen=True)
class Stage:
    """One transform: its name in Continue's source, the component it lives in (rules.source),
    whether it yields lines (joined by "\\n") or text chunks, and how it wraps the stream."""

    step: str
    component: str
    lines: bool
    make: Callable[[Iterator[str], Feed], Iterator[str]]


@dataclasses.dataclass(frozen=True)
class Context:
    """Everything the stage needs about one cursor, in UTF-16 units where Continue measures."""

    rules: Rules
    model: str
    lang: LangInfo
    transform: bool
    multiline: bool
    prefilter: str | None  # the rule that stops the request before it is made
    prefix: str  # what the pipeline gets: the prompt's compiled prefix / suffix
    suffix: str
    pp_prefix: str  # what postprocessCompletion gets
    pp_suffix: str
    line_below: str
    stops: tuple[str, ...]
    options: dict[str, Any]


# ---------------------------------------------------------------------------------------------
# The cursor


def _line_below_cursor(prefix: str, suffix: str) -> str:
    """getLineBelowCursor: the first non-blank line after the cursor's line ("" at the end)."""
    lines = (prefix + suffix).split("\n")
    row = prefix.count("\n")
    below = ""
    i = 1
    while cs.js_trim(below) == "" and row + i <= len(lines) - 1:
        below = lines[row + i]
        i += 1
    return below


def _extension(uri: str) -> str:
    """The file extension as util/treeSitter.ts reads it (`split(".").pop()`, case kept)."""
    name = uri_basename(uri)
    return name.rsplit(".", 1)[-1] if "." in name else ""


def _prefilter(inp: EditorInput, uri: str, lang: LangInfo, rules: Rules, transform: bool) -> str | None:
    """shouldPrefilter (prefiltering/index.ts; the end-of-line rule in completionProvider.ts
    getTabCompletion until 2024-11-05): the step that keeps Continue from asking at all."""
    if inp.options.get("disable"):
        return "shouldPrefilter"
    if rules.prefilter_prompt_files and uri.endswith(".prompt"):
        return "shouldPrefilter"
    if rules.prefilter_untitled and "Untitled" in uri and cs.js_trim(inp.prefix + inp.suffix) == "":
        return "shouldPrefilter"
    if rules.prefilter_eol and transform:
        line = inp.prefix.split("\n")[-1] + inp.suffix.split("\n")[0]
        at_end = inp.suffix.split("\n")[0] == ""
        if at_end and any(line.endswith(eol) for eol in lang.end_of_line):
            return "getTabCompletion" if rules.layout != "pipeline" else "shouldLanguageSpecificPrefilter"
    return None


def _stops(model: str, template_stops: Sequence[str], lang: LangInfo, rules: Rules) -> tuple[str, ...]:
    """The stop words Continue cuts the stream at (completionProvider.ts, later
    templating/getStopTokens.ts + StreamTransformPipeline STOP_AT_PATTERNS)."""
    stops = list(template_stops)
    if rules.multiline_stops:
        stops += _MULTILINE_STOPS
    stops += COMMON_STOPS
    if "starcoder2" in model.lower():
        stops += STARCODER2_STOPS
    if rules.keyword_stops:
        stops += [f"\n{word}" for word in lang.top_level_keywords]
    if rules.diff_git_stop:
        stops.append("diff --git")
    return tuple(stops)


def context(inp: EditorInput, model: str, version: str | None) -> Context:
    """The rules and the cursor's facts for one request."""
    rules = rules_for(version)
    opts = inp.options
    transform = bool(opts.get("transform", True)) if rules.transform_option else True
    uri = to_uri(inp.filepath or "Untitled.txt", inp.workspace)
    lang = lang_info(uri, rules)
    era = era_for(version)
    prompt = render(inp, model, version=version)
    pruned_prefix, pruned_suffix = prune_prefix_suffix(inp.prefix, inp.suffix, model, merged_options(opts, era), era)
    template_stops = () if opts.get("template") else template_for_model(model, era).stop
    multiline = should_complete_multiline(
        option=str(opts.get("multilineCompletions", "auto")), full_prefix=to_units(inp.prefix),
        full_suffix=to_units(inp.suffix), pruned_prefix=to_units(pruned_prefix), lang=lang, rules=rules, transform=transform,
        extension=_extension(uri))
    new_helper = rules.layout == "pipeline"  # HelperVars: postprocessing reads the pruned prefix / suffix
    return Context(
        rules=rules, model=model, lang=lang, transform=transform, multiline=multiline,
        prefilter=_prefilter(inp, uri, lang, rules, transform),
        prefix=to_units(prompt.prefix_sent), suffix=to_units(prompt.suffix_sent),
        pp_prefix=to_units(pruned_prefix if new_helper else prompt.prefix_sent),
        pp_suffix=to_units(pruned_suffix if new_helper else prompt.suffix_sent),
        line_below=to_units(_line_below_cursor(inp.prefix, inp.suffix)),
        stops=tuple(to_units(s) for s in _stops(model, template_stops, lang, rules)), options=dict(opts),
    )


# ---------------------------------------------------------------------------------------------
# The pipeline


def _ms(value: Any, default: float) -> float:
    """A millisecond option (tabAutocompleteOptions), its default when unset or not a number."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _show_whatever_limit(ctx: Context) -> float | None:
    """The showWhateverWeHaveAtXMs limit in seconds (None: no limit: before 2024-10-31, or the
    2025-01..03 PostHog flag, whose value a replay cannot know)."""
    variant = ctx.rules.show_whatever
    if variant == "250":
        return 0.25
    if variant == "option":
        return _ms(ctx.options.get("showWhateverWeHaveAtXMs"), DEFAULT_SHOW_WHATEVER_MS) / 1000
    if variant == "modelTimeout":
        return _ms(ctx.options.get("modelTimeout"), DEFAULT_MODEL_TIMEOUT_MS) / 1000
    return None


def _char_stages(ctx: Context) -> list[Stage]:
    """GeneratorReuseManager.getGenerator, then the character transforms up to streamLines
    (completionProvider.ts until 2024-10-30, StreamTransformPipeline.ts since)."""
    r = ctx.rules
    stages = [Stage("getGenerator", "reuse", False, lambda it, f: cs.reuse_generator(it, ctx.multiline))]
    if r.first_char_newline:
        stages.append(Stage("noFirstCharNewline", "charStream", False, lambda it, f: cs.no_first_char_newline(it)))
    if r.eol_whitespace:
        stages.append(Stage("onlyWhitespaceAfterEndOfLine", "charStream", False,
                            lambda it, f: cs.only_whitespace_after_end_of_line(it, ctx.lang.end_of_line, f)))
    stages.append(Stage("stopAtStopTokens", "charStream", False, lambda it, f: cs.stop_at_stop_tokens(it, ctx.stops, r.stop_tail_filter)))
    if r.stop_at_start_of:
        stages.append(Stage("stopAtStartOf", "charStream", False, lambda it, f: cs.stop_at_start_of(it, ctx.suffix, r.stop_at_start_of)))
    if r.bracket_matching == "all" or (r.bracket_matching == "json" and ctx.lang.json):
        stages.append(Stage("stopOnUnmatchedClosingBracket", "brackets", False,
                            lambda it, f: stop_on_unmatched_closing_bracket(it, ctx.prefix, ctx.suffix, ctx.multiline)))
    stages.append(Stage("streamLines", "diff", True, lambda it, f: cs.stream_lines(it, r.empty_line_per_newline_chunk)))
    return stages


def _filter_stages(ctx: Context) -> list[Stage]:
    """The line transforms from stopAtLines to the language's lineFilters, in the order of
    completionProvider.ts (until 2024-10-30) / StreamTransformPipeline.ts."""
    r, comment = ctx.rules, ctx.lang.comment
    stages = [Stage("stopAtLines", "lineStream", True, lambda it, f: ls.stop_at_lines(it, f, r.lines_to_stop_at, r.stop_at_lines))]
    if r.below_exact and cs.js_trim(ctx.line_below) != "":
        stages.append(Stage("stopAtLinesExact", "lineStream", True, lambda it, f: ls.stop_at_lines_exact(it, f, (ctx.line_below,))))
    stages.append(Stage("stopAtRepeatingLines", "lineStream", True, lambda it, f: ls.stop_at_repeating_lines(it, f)))
    if r.layout == "pipeline":
        stages.append(Stage("avoidEmptyComments", "lineStream", True,
                            lambda it, f: ls.avoid_empty_comments(it, comment, r.empty_comments_guard)))
        stages.append(Stage("avoidPathLine", "lineStream", True, lambda it, f: ls.avoid_path_line(it, comment, False)))
    else:
        stages.append(Stage("avoidPathLineAndEmptyComments", "lineStream", True, lambda it, f: ls.avoid_path_line(it, comment, True)))
    stages.append(Stage("skipPrefixes", "lineStream", True, lambda it, f: ls.skip_prefixes(it)))
    if r.top_level_midline:
        stages.append(Stage("noTopLevelKeywordsMidline", "lineStream", True,
                            lambda it, f: ls.no_top_level_keywords_midline(it, ctx.lang.top_level_keywords, f)))
    closing = {"noDoubleNewlineAfterClosingBracket": ls.no_double_newline_after_closing_bracket,
               "stopNCharsAfterClosingBracket": ls.stop_n_chars_after_closing_bracket,
               "noDoubleNewLine": ls.no_double_new_line}.get(r.closing_rule)
    if closing is not None:
        stages.append(Stage(r.closing_rule, "lineStream", True, lambda it, f: closing(it)))
    if ctx.lang.yaml:
        stages.append(Stage("lineFilters (YAML list items)", "languages", True, lambda it, f: ls.yaml_one_list_item(it, f)))
        stages.append(Stage("lineFilters (YAML keys)", "languages", True, lambda it, f: ls.yaml_no_repeated_key(it, r.yaml_key_filter)))
    return stages


def pipeline(ctx: Context, timed: bool) -> list[Stage]:
    """The transforms of the release in Continue's order. Without `transform` the new pipeline
    passes the stream through (CompletionStreamer); the old one still split and re-joined lines."""
    r = ctx.rules
    reuse = Stage("getGenerator", "reuse", False, lambda it, f: cs.reuse_generator(it, ctx.multiline))
    with_newlines = Stage("streamWithNewLines", "lineStream", False, lambda it, f: ls.stream_with_new_lines(it))
    if not ctx.transform:
        if r.layout == "pipeline":
            return [reuse]
        return [reuse, Stage("streamLines", "diff", True, lambda it, f: cs.stream_lines(it, r.empty_line_per_newline_chunk)),
                with_newlines]
    stages = _char_stages(ctx) + _filter_stages(ctx)
    if r.similar_after_newlines:
        return [*stages, with_newlines, Stage("stopAtSimilarLine", "lineStream", False, lambda it, f: _similar(it, f, ctx))]
    stages.append(Stage("stopAtSimilarLine", "lineStream", True, lambda it, f: _similar(it, f, ctx)))
    limit = _show_whatever_limit(ctx) if timed else None
    if limit is not None:
        stages.append(Stage("showWhateverWeHaveAtXMs", "lineStream", True,
                            lambda it, f: ls.show_whatever_we_have_at_x_ms(it, f, limit, r.show_needs_text)))
    return [*stages, with_newlines]


def _similar(lines: Iterator[str], feed: Feed, ctx: Context) -> Iterator[str]:
    """lineStream.ts stopAtSimilarLine against the first non-blank line below the cursor."""
    return ls.stop_at_similar_line(lines, ctx.line_below, feed, ctx.rules.repeat_rule, ctx.rules.similar_blank_first)


def _max_time(ctx: Context, timed: bool) -> float | None:
    """stopAfterMaxProcessingTime's limit in seconds: modelTimeout x 2.5 (2025-05-19)."""
    if not (timed and ctx.transform and ctx.rules.max_processing_time):
        return None
    return _ms(ctx.options.get("modelTimeout"), DEFAULT_MODEL_TIMEOUT_MS) * 2.5 / 1000


def _chunks(raw: str, timing: Timing | None) -> list[tuple[str, float]]:
    """The stream in UTF-16 units: the measured chunks of `timing` ((characters so far, seconds)
    per chunk; text past its last entry arrives with it), else one chunk per character."""
    if timing is None:
        return [(to_units(ch), 0.0) for ch in raw]
    chunks: list[tuple[str, float]] = []
    start, at = 0, 0.0
    for end, at in timing:
        end = min(int(end), len(raw))
        if end > start:
            chunks.append((to_units(raw[start:end]), float(at)))
            start = end
    if start < len(raw):
        chunks.append((to_units(raw[start:]), float(at)))
    return chunks


def _run(stages: Sequence[Stage], chunks: Sequence[tuple[str, float]], *, final: bool = True,
         max_time: float | None = None) -> tuple[str, Feed]:
    """The stream through `stages`, as Continue pulls it; the text out and the feed (how much was
    read, whether it was cut). Raises NeedMore (prefix mode) when it would read on."""
    feed = Feed(chunks, final=final, max_time=max_time)
    stream: Iterator[str] = feed.source()
    for stage in stages:
        stream = stage.make(stream, feed)
    items = list(stream)
    return ("\n".join(items) if stages[-1].lines else "".join(items)), feed


def _read_chunks(chunks: Sequence[tuple[str, float]], consumed: int) -> list[tuple[str, float]]:
    """The chunks Continue read (it stops reading at a chunk boundary)."""
    out, total = [], 0
    for text, at in chunks:
        if total >= consumed:
            break
        out.append((text, at))
        total += len(text)
    return out


def _stream(ctx: Context, raw: str, timing: Timing | None, steps: Steps) -> str:
    """The stream transforms, recorded step by step: the trace starts from the text Continue
    read (what it never read cannot matter), and each stage's text is what the stream would be
    had it ended after that stage."""
    timed = timing is not None
    stages = pipeline(ctx, timed)
    chunks = _chunks(raw, timing)
    max_time = _max_time(ctx, timed)
    out, feed = _run(stages, chunks, max_time=max_time)
    read = _read_chunks(chunks, feed.consumed)
    read_text = from_units("".join(text for text, _ in read))
    if feed.timed_out:
        steps.set("stopAfterMaxProcessingTime", source(ctx.rules, "timeout"), read_text)
    else:
        steps.text = read_text
    for k, stage in enumerate(stages[:-1]):
        text, _ = _run(stages[:k + 1], read)
        steps.set(stage.step, source(ctx.rules, stage.component), from_units(text))
    steps.set(stages[-1].step, source(ctx.rules, stages[-1].component), from_units(out))
    return out


def complete(inp: EditorInput, raw: str, *, model: str, version: str | None = None, timing: Timing | None = None) -> Shown:
    """What Continue shows at this cursor for the model's raw text (cut at the prompt's stop
    words): the stream transforms of the release, then postprocessCompletion. Time-based cuts
    only with `timing` (Shown.timing_applied)."""
    ctx = context(inp, model, version)
    steps = Steps(raw)
    if ctx.prefilter:
        steps.set(ctx.prefilter, source(ctx.rules, "prefilter"), None)
        return steps.shown(ctx.multiline)
    text: str | None = _stream(ctx, raw, timing, steps)
    if ctx.transform and text is not None:
        text = postprocess_completion(text, ctx.model, ctx.pp_prefix, ctx.pp_suffix, ctx.rules)
        steps.set("postprocessCompletion", source(ctx.rules, "postprocessing"), None if text is None else from_units(text))
    if ctx.transform and text is not None and provider_filter(text, ctx.rules.provider_filter):
        name = "isOnlyPunctuationAndWhitespace" if ctx.rules.provider_filter == "punctuation" else "isOnlyWhitespace"
        steps.set(name, source(ctx.rules, "provider"), None)
    if steps.text == "":
        steps.set("provideInlineCompletionItems", source(ctx.rules, "provider"), None)
    timed = timing is not None and ctx.transform and (_show_whatever_limit(ctx) is not None or ctx.rules.max_processing_time)
    return steps.shown(ctx.multiline, timing_applied=timed)


def stream_stop(inp: EditorInput, *, model: str, version: str | None = None) -> StreamStop | None:
    """How much of the streamed text Continue reads before it stops consuming the stream: a
    transform ended it (single-line mode at the first newline, a stop word, stopAtLines,
    stopAtSimilarLine, brackets, ...), or 0 when it never asks (prefiltering). None from the
    predicate: it reads on. Time-based cuts are not predicted (they need the timing)."""
    ctx = context(inp, model, version)
    if ctx.prefilter:
        return lambda text: 0
    stages = pipeline(ctx, timed=False)
    if len(stages) == 1 and ctx.multiline:
        return None

    def stop(text: str) -> int | None:
        """The code points read when the transforms stopped pulling, None while they would read on."""
        try:
            _, feed = _run(stages, _chunks(text, None), final=False)
        except NeedMore:
            return None
        return len(from_units(to_units(text)[:feed.consumed]))

    return stop


__all__ = ["complete", "context", "pipeline", "stream_stop"]
