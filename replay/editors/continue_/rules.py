"""Continue's completion-stage rules by release: every change to what Continue does with the
model's streamed text, dated, with the commit of continuedev/continue that made it.

A rule set (`Rules`) is the state of the completion stage at one release. It is built from the
base state (the inline pipeline of core/autocomplete/completionProvider.ts at commit 8a4d57f015,
2024-07-24, when Continue began to cut the stream at its stop words itself; the stage did not
change between then and 2024-10-21) by applying the dated rows of `CHANGES` in order.

Which rows a profile gets:
- a date (`2025-01-01`): every row whose date is on or before it. A row's date is the day its
  commit landed on the main line (the first first-parent commit of main that contains it), so a
  change made on a long-lived branch counts from its merge;
- a release (`0.9.246-vscode`): the rows whose commit the release tag contains. That is the date
  rule, corrected by `_RELEASE_EXCEPTIONS` for the releases cut from a branch: 0.9.224-vscode
  already carries the 2024-10-22..30 changes merged on 2024-11-08; v1.0.16-vscode (2025-07-10)
  lacks the Gemini rule merged on 2025-07-03.
Both tables were computed from the repository with `git rev-list --first-parent` and
`git tag --contains` over the releases of replay/data/continue_releases.json.

Profiles older than the base use the base state. What differed before it: until 2024-07-24
Continue left the stop words to the server (the same cut where the server honours them); before
2024-06-28 no Qwen leading-space rule; before 2024-06-11 no isExtremeRepetition; before 2024-06-06
no postprocessCompletion (only an empty check and trimEnd).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from typing import Any

from replay.editors.continue_.releases import REPO, era_for, history, rules_in
from replay.editors.rulebook import InForce, Rule


@dataclasses.dataclass(frozen=True)
class Rules:
    """The completion stage of one Continue version. Field comments name the rule in Continue's
    source; string fields name the variant in force."""

    # file layout of core/autocomplete (decides the source paths cited in the trace)
    layout: str = "flat"  # flat | streamTransforms | refactor | filtering | pipeline
    # stop words (completionProvider.ts, later templating/getStopTokens.ts)
    multiline_stops: bool = True  # "\n\n", "\r\n\r\n"
    keyword_stops: bool = True  # "\n" + each of the language's topLevelKeywords
    diff_git_stop: bool = False  # StreamTransformPipeline STOP_AT_PATTERNS ["diff --git"]
    stop_tail_filter: bool = False  # stopAtStopTokens removes a stop word from the final buffer
    # the `transform` option (tabAutocompleteOptions.transform, default true)
    transform_option: bool = False
    # character transforms
    first_char_newline: bool = True  # noFirstCharNewline
    eol_whitespace: bool = True  # onlyWhitespaceAfterEndOfLine
    bracket_matching: str = "all"  # stopOnUnmatchedClosingBracket for: all | none | json
    stop_at_start_of: str = ""  # "" | lcs | prefix20 | window30 (charStream.ts stopAtStartOf)
    empty_line_per_newline_chunk: bool = False  # diff/util.ts streamLines extra "" (2024-10-25..30)
    max_processing_time: bool = False  # generation/utils.ts stopAfterMaxProcessingTime
    # line transforms
    stop_at_lines: str = "includes"  # includes (line.trim().includes) | validated (validatePatternInLine)
    lines_to_stop_at: tuple[str, ...] = ("# End of file.", "<STOP EDITING HERE")
    below_exact: bool = False  # stopAtLinesExact(lineBelowCursor)
    empty_comments_guard: bool = False  # avoidEmptyComments skips the check without a comment
    top_level_midline: bool = True  # noTopLevelKeywordsMidline
    yaml_key_filter: str = "old"  # old (drops lines without ":") | fixed
    closing_rule: str = ""  # "" | noDoubleNewlineAfterClosingBracket | stopNCharsAfterClosingBracket | noDoubleNewLine
    similar_after_newlines: bool = True  # stopAtSimilarLine runs after streamWithNewLines
    similar_blank_first: bool = False  # stopAtSimilarLine passes everything when the line below is blank
    repeat_rule: str = "prefix12"  # lineIsRepeated: prefix12 (common prefix > 12 or lev < 0.1) | lev05 | lev10
    show_whatever: str = ""  # showWhateverWeHaveAtXMs limit: "" | 250 | option | flag | modelTimeout
    show_needs_text: bool = False  # ... only after a non-whitespace line
    # the debounce (util/AutocompleteDebouncer.ts; completionProvider.ts before the rewrite): a call
    # after a quiet debounceDelay goes at once and opens a window each later call extends, a call in
    # it waits debounceDelay and goes if no call came meanwhile; else (trailing) every call waits
    leading_debounce: bool = True
    # multi-line decision
    multiline_rule: str = "ast"  # ast | not_midline | language_only | language_default
    no_tree_multiline: bool = True  # ast rule: a file Continue has no grammar for is multi-line
    markdown_multiline: str = "undefined"  # Markdown.useMultiline returns undefined | boolean
    json_language: bool = False  # .json has its own AutocompleteLanguageInfo
    lua_language: bool = False  # .lua / .luau have their own AutocompleteLanguageInfo
    lowercase_extension: bool = False  # languageForFilepath lower-cases the extension
    # postprocessing (postprocessing.ts, later postprocessing/index.ts)
    pp_empty: str = "trim"  # trim (trim().length <= 0) | only_ws (/^\s+$/) | blank (both)
    pp_trim_end: bool = True
    pp_indent_reject: bool = True  # indented completion at the end of a line -> undefined
    pp_prefix_space: str = "always"  # always | nonblank_line
    pp_qwen_space: bool = True
    pp_granite: bool = False
    pp_codestral_nosuffix: bool = False
    pp_mercury: str = ""  # "" | both (prefix repeat + newline) | newline
    pp_gemini: bool = False
    pp_qwen3: bool = False
    pp_backticks: str = ""  # "" | first_or_exact | backtick_run (removeBackticks)
    # completionProvider.ts provideInlineCompletionItems filter on the outcome
    provider_filter: str = "punctuation"  # punctuation | whitespace | ""
    # prefiltering (before any request)
    prefilter_eol: bool = True  # line ends with endOfLine and the cursor is at its end
    prefilter_untitled: bool = False
    prefilter_prompt_files: bool = False


def _c(day: str, commits: str, source: str, what: str, **sets: Any) -> Rule:
    """One dated change of the completion stage: `commits` space-separated (the first names it;
    a rule made twice on two branches lists both), the landing day on main, the file it is in,
    and the fields of Rules it sets."""
    return Rule(", ".join(sets), commits, day, f"{REPO} {source}", what, sets=sets)


_LS = "core/autocomplete/filtering/streamTransforms/lineStream.ts"
_CS = "core/autocomplete/filtering/streamTransforms/charStream.ts"
_PIPE = "core/autocomplete/filtering/streamTransforms/StreamTransformPipeline.ts"
_PP = "core/autocomplete/postprocessing/index.ts"
_ML = "core/autocomplete/classification/shouldCompleteMultiline.ts"

_ROWS: tuple[Rule, ...] = (
    _c("2024-10-06", "5942d322e6", "core/autocomplete/streamTransforms/", "stream transforms and services move to folders; "
       "constructPrompt.ts: a file without a syntax tree is no longer multi-line", layout="streamTransforms", no_tree_multiline=False),
    _c("2024-10-25", "50515b7fd8", "core/autocomplete/completionProvider.ts", "isOnlyPunctuationAndWhitespace -> isOnlyWhitespace",
       provider_filter="whitespace"),
    _c("2024-10-25", "d5491cc21c", "core/autocomplete/shouldCompleteMultiline.ts", "shouldCompleteMultiline in its own file",
       layout="refactor"),
    _c("2024-11-08", "38a43052a0", "core/autocomplete/completionProvider.ts", "stopOnUnmatchedClosingBracket removed",
       bracket_matching="none"),
    _c("2024-11-08", "d5a55b4334", "core/autocomplete/shouldCompleteMultiline.ts", "multi-line unless mid-line or in a comment (no AST)",
       multiline_rule="not_midline"),
    _c("2024-11-08", "d12395838b", "core/autocomplete/completionProvider.ts",
       "`transform` option; multi-line and keyword stops, noFirstCharNewline, onlyWhitespaceAfterEndOfLine, "
       "noTopLevelKeywordsMidline removed; stopAtSimilarLine before streamWithNewLines; streamLines yields '' "
       "after a chunk ending in a newline",
       transform_option=True, multiline_stops=False, keyword_stops=False, first_char_newline=False, eol_whitespace=False,
       top_level_midline=False, similar_after_newlines=False, empty_line_per_newline_chunk=True),
    _c("2024-11-08", "ea96ece346", "core/autocomplete/completionProvider.ts", "bracket matching restored, streamLines extra '' reverted",
       bracket_matching="all", empty_line_per_newline_chunk=False),
    _c("2024-11-10", "b65dbf8825", "core/autocomplete/filtering/", "files move to filtering/, generation/, postprocessing/, classification/",
       layout="filtering"),
    _c("2024-11-10", "911256bad1", _PP, "empty check becomes isOnlyWhitespace; provider-level whitespace filter removed",
       pp_empty="only_ws", provider_filter=""),
    _c("2024-11-10", "66da91b0a4", _PIPE, "StreamTransformPipeline / CompletionStreamer", layout="pipeline"),
    _c("2024-11-10", "664d84dfa0", _LS, "showWhateverWeHaveAtXMs(250)", show_whatever="250"),
    _c("2024-11-10", "3e1eca6c88", _ML, "multi-line only by language (useMultiline) or always/never",
       multiline_rule="language_only"),
    _c("2024-11-10", "dca5927bcf", _LS,
       "bracket matching off; lineIsRepeated lev < 0.05 without common prefix; stopAtSimilarLine passes all when "
       "the line below is blank; multi-line by language, default true; postprocessing keeps trailing whitespace "
       "and indented completions; prefilter on endOfLine off",
       bracket_matching="none", repeat_rule="lev05", similar_blank_first=True, empty_comments_guard=True,
       multiline_rule="language_default", markdown_multiline="boolean", yaml_key_filter="fixed", pp_trim_end=False,
       pp_indent_reject=False, pp_prefix_space="nonblank_line", prefilter_eol=False),
    _c("2024-11-10", "aa6cebe9f0", "core/autocomplete/constants/AutocompleteLanguageInfo.ts", "JSON language with bracket matching",
       bracket_matching="json", json_language=True),
    _c("2024-11-10", "1095182f95", _PIPE, "showWhateverWeHaveAtXMs from the option (default 300)", show_whatever="option"),
    _c("2024-11-10", "590a2b11f7", _LS, "lineIsRepeated lev < 0.1", repeat_rule="lev10"),
    _c("2024-11-13", "28db3b683b", _CS, "stopAtStopTokens filters a stop word out of the final buffer", stop_tail_filter=True),
    _c("2024-11-18", "e037246324", _LS, "noDoubleNewlineAfterClosingBracket", closing_rule="noDoubleNewlineAfterClosingBracket"),
    _c("2024-11-21", "3934e8d81f", _PP, "granite repeats the start of the line", pp_granite=True),
    _c("2024-11-22", "ba83fd5d61", _LS, "stopNCharsAfterClosingBracket", closing_rule="stopNCharsAfterClosingBracket"),
    _c("2024-11-25", "c359b296fa", _PIPE, "stopNCharsAfterClosingBracket off", closing_rule=""),
    _c("2024-11-25", "bd2bf657a0", _CS, "stopAtStartOf (common substring > 20 with the suffix)", stop_at_start_of="lcs"),
    _c("2024-11-25", "521b9b3d45", _LS, "noDoubleNewlineAfterClosingBracket back", closing_rule="noDoubleNewlineAfterClosingBracket"),
    _c("2024-11-25", "75dce9cbd1", _PP, "qwen leading-space rule removed", pp_qwen_space=False),
    _c("2024-11-28", "2ae584e8c8", "core/autocomplete/templating/getStopTokens.ts", "multi-line stops back", multiline_stops=True),
    _c("2024-11-28", "620ecbe0ca", "core/autocomplete/templating/getStopTokens.ts", "multi-line stops removed", multiline_stops=False),
    _c("2024-11-28", "f98117d7d2", _LS, "noDoubleNewLine", closing_rule="noDoubleNewLine"),
    _c("2024-11-28", "5f65cca989", _LS, "showWhateverWeHaveAtXMs waits for a non-whitespace line", show_needs_text=True),
    _c("2024-11-28", "403eb38b9e", _PP, "blank completions dropped again", pp_empty="blank"),
    _c("2024-11-28", "4db2637d5b", _PP, "prefix-space rule on every line again", pp_prefix_space="always"),
    _c("2024-11-28", "c497517132", _CS, "stopAtStartOf: the first 20 characters of the suffix", stop_at_start_of="prefix20"),
    _c("2024-11-28", "556a8c5ee3", _CS, "stopAtStartOf: 20+ characters inside the suffix's first 30", stop_at_start_of="window30"),
    _c("2024-12-08", "767f7e1c9c", _PIPE, "stopAtLinesExact(line below the cursor)", below_exact=True),
    _c("2024-12-18", "b6b3cceb78", "core/autocomplete/constants/AutocompleteLanguageInfo.ts", "extension lower-cased (getUriFileExtension)",
       lowercase_extension=True),
    _c("2024-12-13", "603fa39a1a b6b14a9c77", _PP, "codestral: no suffix, drop a leading newline", pp_codestral_nosuffix=True),
    _c("2024-12-13", "c0f9df9d01", _PIPE, "stop at 'diff --git'", diff_git_stop=True),
    _c("2024-12-13", "3bc23ede36", "core/autocomplete/prefiltering/index.ts", "no completion in an empty Untitled file",
       prefilter_untitled=True),
    _c("2024-12-20", "f3ccf06d28", "core/autocomplete/prefiltering/index.ts", "no completion in *.prompt files",
       prefilter_prompt_files=True),
    _c("2025-01-11", "919455c9e2", _PIPE, "showWhateverWeHaveAtXMs limit from a PostHog flag only", show_whatever="flag"),
    _c("2025-02-21", "eb06857124", "core/autocomplete/constants/AutocompleteLanguageInfo.ts", "Lua language", lua_language=True),
    _c("2025-03-16", "22dd81298e", _PIPE, "showWhateverWeHaveAtXMs from the option again", show_whatever="option"),
    _c("2025-04-28", "e39446d477", _PP, "mercury: prefix repeat and newline rules", pp_mercury="both"),
    _c("2025-05-12", "42cdb7f845", _PIPE, "showWhateverWeHaveAtXMs limit = modelTimeout (default 150); "
       "util/AutocompleteDebouncer.ts: every call waits debounceDelay, a later one supersedes it",
       show_whatever="modelTimeout", leading_debounce=False),
    _c("2025-05-19", "e7d2ac7b24", "core/autocomplete/generation/utils.ts", "stopAfterMaxProcessingTime(modelTimeout x 2.5)",
       max_processing_time=True),
    _c("2025-07-03", "16d3145702", _PP, "gemini/gemma: trailing <|file_separator|>", pp_gemini=True),
    _c("2025-07-24", "0a29810ee0", _LS, "stopAtLines: stop phrase at the line start or after whitespace, not in quotes",
       stop_at_lines="validated"),
    _c("2025-07-13", "dc7caf9411", _PP, "qwen3: <think> blocks and outer newlines removed", pp_qwen3=True),
    _c("2025-09-09", "e475fb1bdb", _LS, "stop at <|/updated_code|> and ```",
       lines_to_stop_at=("# End of file.", "<STOP EDITING HERE", "<|/updated_code|>", "```")),
    _c("2025-10-01", "89826f0fea", _PP, "removeBackticks (```... first line, ``` last line)", pp_backticks="first_or_exact"),
    _c("2025-10-08", "f56d2b0a7b", _PP, "removeBackticks: any run of backticks as the last line", pp_backticks="backtick_run"),
    _c("2025-10-14", "48a918c41f", _PP, "mercury prefix-repeat rule removed", pp_mercury="newline"),
)

# In landing order (rows of one day keep the order above: the later one wins a shared field).
CHANGES: tuple[Rule, ...] = tuple(sorted(_ROWS, key=lambda c: c.day))

# Releases whose tag disagrees with the date rule for a row: (releases that contain the commit
# although tagged before its landing day, releases that lack it although tagged after).
_RELEASE_EXCEPTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "5942d322e6": (frozenset(('0.0.71-jetbrains', '0.0.72-jetbrains', '0.9.214-vscode')), frozenset()),
    "50515b7fd8": (frozenset(('0.0.77-jetbrains', '0.9.221-vscode')), frozenset()),
    "d5491cc21c": (frozenset(('0.9.221-vscode',)), frozenset()),
    "38a43052a0": (frozenset(('0.0.79-jetbrains', '0.0.80-jetbrains', '0.9.224-vscode', '0.9.225-vscode')), frozenset()),
    "d5a55b4334": (frozenset(('0.0.79-jetbrains', '0.0.80-jetbrains', '0.9.224-vscode', '0.9.225-vscode')), frozenset()),
    "d12395838b": (frozenset(('0.0.79-jetbrains', '0.0.80-jetbrains', '0.9.224-vscode', '0.9.225-vscode')), frozenset()),
    "ea96ece346": (frozenset(('0.0.79-jetbrains', '0.0.80-jetbrains', '0.9.224-vscode', '0.9.225-vscode')), frozenset()),
    "28db3b683b": (frozenset(), frozenset(('0.8.57-vscode', '0.9.229-vscode'))),
    "3934e8d81f": (frozenset(), frozenset(('0.8.58-vscode', '0.8.59-vscode'))),
    "ba83fd5d61": (frozenset(), frozenset(('0.8.58-vscode', '0.8.59-vscode'))),
    "c359b296fa": (frozenset(), frozenset(('0.8.59-vscode', '0.9.234-vscode'))),
    "bd2bf657a0": (frozenset(), frozenset(('0.8.59-vscode', '0.9.234-vscode'))),
    "521b9b3d45": (frozenset(), frozenset(('0.8.59-vscode', '0.9.234-vscode'))),
    "75dce9cbd1": (frozenset(), frozenset(('0.8.59-vscode', '0.9.234-vscode'))),
    "2ae584e8c8": (frozenset(), frozenset(('0.8.60-vscode',))),
    "620ecbe0ca": (frozenset(), frozenset(('0.8.60-vscode',))),
    "f98117d7d2": (frozenset(), frozenset(('0.8.60-vscode',))),
    "5f65cca989": (frozenset(), frozenset(('0.8.60-vscode',))),
    "403eb38b9e": (frozenset(), frozenset(('0.8.60-vscode',))),
    "4db2637d5b": (frozenset(), frozenset(('0.8.60-vscode',))),
    "c497517132": (frozenset(), frozenset(('0.8.60-vscode',))),
    "556a8c5ee3": (frozenset(), frozenset(('0.8.60-vscode',))),
    "767f7e1c9c": (frozenset(), frozenset(('0.8.61-vscode', '0.8.62-vscode'))),
    "b6b3cceb78": (frozenset(), frozenset(('0.8.66-vscode',))),
    "c0f9df9d01": (frozenset(), frozenset(('0.8.63-vscode',))),
    "3bc23ede36": (frozenset(), frozenset(('0.8.63-vscode',))),
    "f3ccf06d28": (frozenset(), frozenset(('0.8.66-vscode',))),
    "e39446d477": (frozenset(), frozenset(('1.0.8-vscode',))),
    "42cdb7f845": (frozenset(), frozenset(('1.0.10-vscode',))),
    "16d3145702": (frozenset(), frozenset(('1.0.16-vscode', '1.0.17-vscode', '1.0.18-vscode', '1.1.55-vscode'))),
    "dc7caf9411": (frozenset(), frozenset(('1.0.18-vscode', '1.0.19-vscode', '1.1.62-vscode'))),
    "e475fb1bdb": (frozenset(), frozenset(('1.2.3-vscode',))),
    "89826f0fea": (frozenset(), frozenset(('1.0.47-jetbrains', '1.2.7-vscode', '1.3.14-vscode'))),
    "f56d2b0a7b": (frozenset(), frozenset(('1.2.8-vscode',))),
    "48a918c41f": (frozenset(), frozenset(('1.2.10-vscode', '1.2.9-vscode'))),
}


def _parse_day(version: str) -> dt.date | None:
    """The day of a dated profile (`YYYY-MM-DD`, or an ISO timestamp)."""
    try:
        return dt.date.fromisoformat(version[:10])
    except ValueError:
        return None


def _applies(change: Rule, day: dt.date, release: str) -> bool:
    """Whether a row is in force on `day`, or in the release tagged that day."""
    by_date = dt.date.fromisoformat(change.day) <= day
    if not release:
        return by_date
    extra_in, extra_out = _RELEASE_EXCEPTIONS.get(change.commit.split()[0], (frozenset(), frozenset()))
    return (by_date or release in extra_in) and release not in extra_out


def _selected(version: str) -> tuple[Rule, ...]:
    """The rows in force in a Continue release or on a date (see the module docstring)."""
    era = era_for(version)  # validates the version (UnknownRelease for an unknown one)
    if era.label:
        day, release = era.since, era.label
    else:
        day, release = _parse_day(version) or era.since, ""
    return tuple(c for c in CHANGES if _applies(c, day, release))


@functools.lru_cache(maxsize=256)
def rules_for(version: str | None) -> Rules:
    """The completion-stage rules of a Continue release or date (None: the newest)."""
    return _apply(_selected(version) if version else CHANGES)


def in_force(version: str | None) -> tuple[InForce, InForce]:
    """The changes in force at a Continue release or date (None: the newest) on both sides: the
    prompt's (releases.rules_in) and the completion stage's rows."""
    era = era_for(version)
    if era.label:
        day, name, why = era.since, era.label, f"Continue {era.label}: the rules read from its tag"
    elif version:
        day = _parse_day(version) or era.since
        name, why = day.isoformat(), f"Continue on {day.isoformat()}: the changes made by then"
    else:
        day, name, why = dt.date.max, "newest", "Continue's newest rules: every change modelled"
    shown = era.since.isoformat() if era.label or not version else day.isoformat()
    stage = _selected(version) if version else CHANGES
    return (InForce("continue prompt", name, "", shown, why, rules_in(era, day)),
            InForce("continue completion stage", name, "", shown, why, stage))


def _apply(changes: tuple[Rule, ...]) -> Rules:
    """The base state with the rows applied in order."""
    rules = Rules()
    for change in changes:
        rules = dataclasses.replace(rules, **change.sets)
    return rules


# ---------------------------------------------------------------------------------------------
# Source paths at each layout (the trace cites the file a rule lived in at that release)

_PATHS: dict[str, dict[str, str]] = {
    "flat": {
        "lineStream": "core/autocomplete/lineStream.ts", "charStream": "core/autocomplete/charStream.ts",
        "brackets": "core/autocomplete/brackets.ts", "pipeline": "core/autocomplete/completionProvider.ts",
        "provider": "core/autocomplete/completionProvider.ts", "reuse": "core/autocomplete/util.ts",
        "postprocessing": "core/autocomplete/postprocessing.ts", "multiline": "core/autocomplete/constructPrompt.ts",
        "languages": "core/autocomplete/languages.ts", "prefilter": "core/autocomplete/completionProvider.ts",
        "stops": "core/autocomplete/completionProvider.ts", "diff": "core/diff/util.ts",
        "timeout": "core/autocomplete/generation/utils.ts",
    },
}
_PATHS["streamTransforms"] = {**_PATHS["flat"],
                              "lineStream": "core/autocomplete/streamTransforms/lineStream.ts",
                              "charStream": "core/autocomplete/streamTransforms/charStream.ts",
                              "brackets": "core/autocomplete/services/BracketMatchingService.ts"}
_PATHS["refactor"] = {**_PATHS["streamTransforms"], "multiline": "core/autocomplete/shouldCompleteMultiline.ts"}
_PATHS["filtering"] = {**_PATHS["refactor"],
                       "lineStream": _LS, "charStream": _CS, "brackets": "core/autocomplete/filtering/BracketMatchingService.ts",
                       "reuse": "core/autocomplete/generation/GeneratorReuseManager.ts", "postprocessing": _PP,
                       "multiline": _ML, "languages": "core/autocomplete/constants/AutocompleteLanguageInfo.ts"}
_PATHS["pipeline"] = {**_PATHS["filtering"], "pipeline": _PIPE, "provider": "core/autocomplete/CompletionProvider.ts",
                      "prefilter": "core/autocomplete/prefiltering/index.ts",
                      "stops": "core/autocomplete/templating/getStopTokens.ts"}


def source(rules: Rules, component: str) -> str:
    """`continuedev/continue <path>` of a component (lineStream, charStream, ...) at this layout."""
    return f"{REPO} {_PATHS[rules.layout][component]}"


__all__ = ["CHANGES", "REPO", "Rules", "history", "in_force", "rules_for", "source"]
