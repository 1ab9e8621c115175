"""Continue's rules by release: dated rule changes and the release table.

Profiles are releases (`continue@0.9.262-vscode`, rules read from the source at each release
tag: replay/data/continue_releases.json) or dates (`continue@YYYY-MM-DD`: each entry of
`RULES` is a commit of continuedev/continue that changed a rule modelled here); the default is the
newest.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import re
from pathlib import Path
from typing import Any

from replay.editors.rulebook import HistoryRow, Rule, UnknownRelease
from replay.errors import UsageError

REPO = "continuedev/continue"


class ContinueError(UsageError):
    """An input Continue itself would fail on (it throws, and no completion is requested)."""


# ---------------------------------------------------------------------------------------------
# Eras: dated rule changes (continuedev/continue git history of the files named)

@dataclasses.dataclass(frozen=True)
class Era:
    """The rules of one Continue version (a dated range, or one release). Rules not listed are
    those of the newest source."""

    since: dt.date
    label: str = ""  # the release it was read from ("0.9.262-vscode"); "" for a dated range
    fim_log: str = ""  # core/llm/index.ts streamFim log form: "" | "<FIM>" | "Prefix/Suffix"
    max_prompt_tokens: int = 500  # core/util/parameters.ts DEFAULT_AUTOCOMPLETE_OPTS
    prefix_percentage: float = 0.85
    max_suffix_percentage: float = 0.25
    include_clipboard: bool = False  # experimental_includeClipboard default (absent before 2025-02-01)
    empty_suffix_newline: bool = False  # templating/index.ts: suffix "" -> "\n"
    per_line_pruning: bool = False  # llm/countTokens.ts pruneLines* count lines + newlines
    context_reprune: bool = False  # templating/index.ts renderPromptWithTokenLimit
    multipliers: bool = False  # llm/getAdjustedTokenCount.ts used by countTokens
    qwen_coder: str = "stable"  # "stable" | "plain" | "multifile"
    granite3_hole_filler: bool = False
    mercury: bool = False
    seed_coder: bool = False
    granite4: bool = False
    unique_path_objects: bool = False  # uri.ts getShortestUniqueRelativeUriPaths returns objects
    # codestralMultifileFimTemplate's file headers: "plain" `+++++ <path>\n` and stops
    # [PREFIX]/[SUFFIX]; "uri" `+++++ <full uri> \n` (JetBrains 0.0.84..0.0.89 line); "spaced"
    # `+++++ <unique path> \n` and the extra stop "\n+++++ " (d92a7e08b9, 2025-02-01)
    codestral: str = "spaced"
    # names core/llm/autodetect.ts did not yet send to tiktoken ("mercury", "grok", "o1" for the
    # o-series, ...): such models were counted with the Llama tokenizer
    llama_counted: str = ""
    mercury_fim_prefix: bool = False  # mercury compilePrefixSuffix prepended "<|fim_prefix|>"
    pre_rewrite: bool = False  # prompt built in completionProvider.ts/constructPrompt.ts (prompt08.py)
    codegeex_template: bool = True  # getTemplateForModel has codegeex (d6c2e36814, 2024-07-24)
    plain_qwen: bool = True  # "qwen" names get stableCodeFimTemplate (ca884b8212, 2024-06-21)
    hole_filler_4th: bool = False  # holeFillerTemplate's example "The 4th {{FILL_HERE}} is Jupiter."
    local_budget: bool = True  # pre-rewrite: local providers get maxPromptTokens 500 (53b61288ec)
    local_budget_user: bool = True  # ... unless the user set maxPromptTokens (aa18568c60; before, always 500)
    # first rewrite (constructPrompt.ts / aggregateSnippets.ts, 911256bad1..fec4b21f7b): snippets
    # ranked and merged as before (ranking08.py), formatted by formatExternalSnippet; with
    # context_comments (51e1c4216b) the comments and the file name go into the prefix sent too
    ranked_snippets: bool = False
    context_comments: bool = False
    snippet_share_half: bool = False  # ... in maxPromptTokens x 0.5, not 0.6 (parameters.ts, 1adbd9a456)
    blank_file_header: bool = True  # pre-rewrite: a blank file gets a path comment (7ecbcad37b)
    gpt_template: bool = False  # gpt/davinci/claude got gptAutocompleteTemplate (until 57ca9f1dd7)
    other_files: bool = True  # pre-rewrite: parameters.ts useOtherFiles default (false until 57ca9f1dd7)
    newline_stop_words: bool = True  # pre-rewrite: language stop words sent as "\n" + word (57ca9f1dd7)
    fim_route: bool = True  # completionProvider.ts calls llm.streamFim when llm.supportsFim() (d5b5e1ac43)
    starcoder2_file_sep: bool = True  # pre-rewrite: STARCODER2_T_ARTIFACTS has "<file_sep>" (cf4b557568)
    ipynb_python: bool = True  # pre-rewrite: languages.ts Python stops at '"""#', .ipynb is Python (cf4b557568)
    # templating/filtering.ts getSnippets: the recently-opened-files group (0a632b5401) and one
    # code snippet per file across groups (398730364f)
    snippet_dedup: bool = True
    # (template variable name, its stop list) where the release's list differs from the newest
    stops: tuple[tuple[str, tuple[str, ...]], ...] = ()


_STABLE_4 = ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<|endoftext|>")
_STABLE_5 = (*_STABLE_4, "<file_sep>")
_STABLE_7 = (*_STABLE_5, "</fim_middle>", "</code>")
_DEEPSEEK_4 = ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "//")

def _era(day: str, what: str, sets: dict[str, Any]) -> Rule:
    """One dated change of the prompt side: `what` is "<commit> <path>: <what changed>" (a row
    made of several commits names the others in its text); the fields of Era it sets."""
    commit, _, text = what.partition(" ")
    return Rule(", ".join(sets), commit, day, f"{REPO} {text.split(':', 1)[0]}", text, sets=sets)


# The prompt side's rule changes, oldest first: each sets the fields of Era it names.
RULES: tuple[Rule, ...] = (
    _era("2024-04-12", "6c99a34532 core/util/parameters.ts: 500 / 0.85 / 0.25; autocomplete/completionProvider.ts "
                   "builds the prompt", {"codestral": "none", "pre_rewrite": True,
                                         "llama_counted": "aya grok moonshot kimi mercury glm nova codestral o1",
                                         "codegeex_template": False, "plain_qwen": False, "local_budget": False,
                                         "blank_file_header": False, "gpt_template": True,
                                         "other_files": False, "newline_stop_words": False, "fim_route": False,
                                         "starcoder2_file_sep": False, "ipynb_python": False, "snippet_dedup": False,
                                         "local_budget_user": False,
                                         "stops": (("deepseekFimTemplate", _DEEPSEEK_4), ("stableCodeFimTemplate", _STABLE_4))}),
    _era("2024-05-03", "cf4b557568 completionProvider.ts: starcoder2 stops at <file_sep>; languages.ts: Python "
                   "stops at \"\"\"#, .ipynb is Python", {"starcoder2_file_sep": True, "ipynb_python": True}),
    _era("2024-05-08", "57ca9f1dd7 templates.ts: holeFillerTemplate for gpt/davinci-002/claude; deepseek stops "
                   "<｜end▁of▁sentence｜>; parameters.ts: useOtherFiles on; completionProvider.ts: language stop "
                   "words as \"\\n\" + word", {"gpt_template": False, "hole_filler_4th": True, "other_files": True,
                                               "newline_stop_words": True,
                                               "stops": (("stableCodeFimTemplate", _STABLE_4),)}),
    _era("2024-05-23", "5c4e5124c8 core/llm/index.ts: FIM route logged as prefix<FIM>suffix", {"fim_log": "<FIM>"}),
    _era("2024-05-24", "08dc5db183 core/util/parameters.ts: maxPromptTokens 1024", {"max_prompt_tokens": 1024}),
    _era("2024-05-24", "53b61288ec completionProvider.ts: local providers get maxPromptTokens 500", {"local_budget": True}),
    _era("2024-05-29", "d5b5e1ac43 completionProvider.ts: FIM route (llm.supportsFim -> streamFim)", {"fim_route": True}),
    _era("2024-05-29", "58691db662 llm/autodetect.ts: codestral counted with tiktoken",
     {"llama_counted": "aya grok moonshot kimi mercury glm nova o1"}),
    _era("2024-05-30", "e65b002d71 templates.ts: codestralFimTemplate", {"codestral": "fim"}),
    _era("2024-06-02", "83731642aa templates.ts: codestralMultifileFimTemplate", {"codestral": "plain"}),
    _era("2024-06-05", "7ecbcad37b completionProvider.ts: blank-file path comment", {"blank_file_header": True}),
    _era("2024-06-06", "aa18568c60 completionProvider.ts: the user's maxPromptTokens wins over the local 500",
     {"local_budget_user": True}),
    _era("2024-06-11", "5935206091 templates.ts: hole filler example 'The 5th ... planet from the Sun'", {"hole_filler_4th": False}),
    _era("2024-06-21", "ca884b8212 templates.ts: qwen names get stableCodeFimTemplate, which stops at <file_sep>",
     {"plain_qwen": True, "stops": (("stableCodeFimTemplate", _STABLE_5),)}),
    _era("2024-06-28", "04c08c7159 templates.ts: stableCodeFimTemplate stops at </fim_middle>, </code>",
     {"stops": (("stableCodeFimTemplate", _STABLE_7),)}),
    _era("2024-07-24", "d6c2e36814 templates.ts: codegeexFimTemplate", {"codegeex_template": True}),
    _era("2024-08-21", "c408bf62fb templates.ts: stableCodeFimTemplate stops reordered", {"stops": ()}),
    _era("2024-09-21", "387a76aa5b AutocompleteTemplate.ts: Qwen2.5-Coder template", {"qwen_coder": "plain"}),
    _era("2024-10-30", "911256bad1 autocomplete/templating/: the rewritten pipeline; constructPrompt.ts still ranks "
                   "the snippets", {"pre_rewrite": False, "ranked_snippets": True}),
    _era("2024-11-05", "b4dcb6cc37 llm/autodetect.ts: grok counted with tiktoken",
     {"llama_counted": "aya moonshot kimi mercury glm nova o1"}),
    _era("2024-11-18", "b8a278d216 llm/autodetect.ts: moonshot counted with tiktoken",
     {"llama_counted": "aya kimi mercury glm nova o1"}),
    _era("2024-11-18", "51e1c4216b templating/index.ts: snippet comments and the file name in the prefix, sent on "
                   "the FIM route too", {"context_comments": True}),
    _era("2024-11-19", "1adbd9a456 core/util/parameters.ts: maxSnippetPercentage 0.5", {"snippet_share_half": True}),
    _era("2024-11-21", "fec4b21f7b autocomplete/snippets/, templating/filtering.ts: snippets by kind in the "
                   "budget left, formatSnippets", {"ranked_snippets": False, "context_comments": False,
                                                   "snippet_share_half": False}),
    _era("2024-11-21", "3934e8d81f AutocompleteTemplate.ts: granite3 -> hole filler", {"granite3_hole_filler": True}),
    _era("2024-11-29", "63e63f54cd core/util/parameters.ts: prefix 0.3, suffix 0.2", {"prefix_percentage": 0.3, "max_suffix_percentage": 0.2}),
    _era("2024-12-13", "707bc867fe templating/index.ts: empty suffix -> newline; 7621abcdcc uri.ts uniquePath; "
                   "1f36d42571 core/llm/index.ts: FIM route logged as Prefix:/Suffix:",
     {"empty_suffix_newline": True, "unique_path_objects": True, "fim_log": "Prefix/Suffix"}),
    _era("2025-02-01", "d92a7e08b9 core/util/parameters.ts: experimental_includeClipboard true; AutocompleteTemplate.ts: "
                   "codestral `+++++ <path> ` headers, stop \"\\n+++++ \"", {"include_clipboard": True, "codestral": "spaced"}),
    _era("2025-04-23", "881f8b3139 llm/countTokens.ts: per-line pruning counts", {"per_line_pruning": True}),
    _era("2025-04-26", "e39446d477 AutocompleteTemplate.ts: mercury", {"mercury": True}),
    _era("2025-04-28", "73695f9996 llm/autodetect.ts: mercury counted with tiktoken", {"llama_counted": "aya kimi glm nova o1"}),
    _era("2025-04-29", "dc6827aca4 AutocompleteTemplate.ts: mercury prefix gets <|fim_prefix|>", {"mercury_fim_prefix": True}),
    _era("2025-05-11", "ea3bf046a1 AutocompleteTemplate.ts: seed-coder", {"seed_coder": True}),
    _era("2025-06-09", "398730364f templating/filtering.ts: a code snippet of a file an earlier group gave is "
                   "dropped; the recently opened files group (0a632b5401, 2025-06-04)", {"snippet_dedup": True}),
    _era("2025-06-14", "fbd0a9da51 llm/autodetect.ts: aya counted with tiktoken", {"llama_counted": "kimi glm nova o1"}),
    _era("2025-07-02", "faed694877 llm/autodetect.ts: o-series names counted with tiktoken", {"llama_counted": "kimi glm nova"}),
    _era("2025-07-04", "15a61ba8b8 llm/autodetect.ts: nova counted with tiktoken", {"llama_counted": "kimi glm"}),
    _era("2025-07-28", "125a7d795f llm/autodetect.ts: kimi counted with tiktoken", {"llama_counted": "glm"}),
    _era("2025-07-30", "5c9362b732 templating/index.ts: re-prune to the context length", {"context_reprune": True}),
    _era("2025-09-11", "3a44a9fb65 core/util/parameters.ts: clipboard off by default", {"include_clipboard": False}),
    _era("2025-10-30", "d1ba7c9bba AutocompleteTemplate.ts: granite 4", {"granite4": True}),
    _era("2025-11-07", "f1d646833f AutocompleteTemplate.ts: no <|fim_prefix|> before the mercury prefix", {"mercury_fim_prefix": False}),
    _era("2026-01-28", "8da07defb4 llm/countTokens.ts: per-model token multipliers", {"multipliers": True}),
    _era("2026-02-20", "a2c1fe6897 llm/autodetect.ts: glm counted with tiktoken", {"llama_counted": ""}),
    _era("2026-03-25", "2874981435 AutocompleteTemplate.ts: Qwen multi-file FIM", {"qwen_coder": "multifile"}),
)


def _build_eras() -> tuple[Era, ...]:
    eras: list[Era] = []
    current: dict[str, Any] = {}
    for rule in RULES:
        current = {**current, **rule.sets}
        eras.append(Era(since=dt.date.fromisoformat(rule.day), **current))
    return tuple(eras)


ERAS = _build_eras()


# Release tags -> the rules their source has (replay/data/continue_releases.json, read from the
# files at each v*-vscode / v*-jetbrains tag of continuedev/continue; see its "source").
_RELEASES_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "continue_releases.json"
_FLAGS = ("include_clipboard", "empty_suffix_newline", "per_line_pruning", "context_reprune", "multipliers",
          "granite3_hole_filler", "mercury", "seed_coder", "granite4", "unique_path_objects", "mercury_fim_prefix", "pre_rewrite", "codegeex_template", "plain_qwen", "hole_filler_4th", "local_budget",
          "blank_file_header", "gpt_template", "other_files", "newline_stop_words", "fim_route", "starcoder2_file_sep",
          "ipynb_python", "snippet_dedup", "local_budget_user", "ranked_snippets", "context_comments",
          "snippet_share_half")


@functools.lru_cache(maxsize=1)
def releases() -> dict[str, Era]:
    """Every Continue release of the table, keyed like "0.9.262-vscode" / "1.0.10-jetbrains"."""
    data = json.loads(_RELEASES_FILE.read_text(encoding="utf-8"))
    assert data["columns"][8:] == list(_FLAGS), "continue_releases.json columns changed"
    stops: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {}
    for group in data["template_stops"]:
        override = tuple((tpl, tuple(stop)) for tpl, stop in sorted(group["stops"].items()))
        stops.update(dict.fromkeys(group["releases"], override))
    out = {}
    for name, (day, mpt, pp, msp, qwen, fim_log, codestral, llama_counted, bits) in data["releases"].items():
        out[name] = Era(since=dt.date.fromisoformat(day), label=name, fim_log=fim_log, max_prompt_tokens=mpt,
                        prefix_percentage=pp, max_suffix_percentage=msp, qwen_coder=qwen, codestral=codestral, llama_counted=llama_counted, stops=stops.get(name, ()),
                        **{flag: bit == "1" for flag, bit in zip(_FLAGS, bits, strict=True)})
    return out


def _release_key(version: str) -> str | None:
    v = version.strip().removeprefix("v")
    table = releases()
    for key in (v, f"{v}-vscode"):  # a bare number is a VS Code release (JetBrains numbers differ)
        if key in table:
            return key
    return None


# Tab autocomplete is older than the table: releases up to 0.8.23 / 0.9.118 / JetBrains 0.0.42
# built it in extensions/vscode/src/autocomplete (0.8.20) and read its defaults from
# core/autocomplete/parameters.ts; the table starts where core/util/parameters.ts does.
_TOO_OLD = ("Continue {version} predates the first release modelled ({first}, {day}): its tab autocomplete "
            "(extensions/vscode/src/autocomplete, core/autocomplete/parameters.ts) is not modelled")


def _older_than_table(version: str) -> str | None:
    """The first release of the version's line (VS Code 0.8.x, 0.9.x, ...; JetBrains 0.0.x)
    when the version is older than every release of that line in the table."""
    m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)(?:-(vscode|jetbrains))?", version.strip())
    if m is None:
        return None
    flavor = m.group(4) or "vscode"
    wanted = tuple(int(n) for n in m.groups()[:3])
    line = sorted(tuple(int(n) for n in k.removesuffix(f"-{flavor}").split(".")) for k in releases()
                  if k.endswith(f"-{flavor}") and k.split(".")[:2] == version.strip().removeprefix("v").split(".")[:2])
    if not line:
        line = sorted(tuple(int(n) for n in k.removesuffix(f"-{flavor}").split(".")) for k in releases() if k.endswith(f"-{flavor}"))
    first = line[0]
    return f"{'.'.join(map(str, first))}-{flavor}" if wanted < first else None


def era_for(version: str | None) -> Era:
    """The rules of a Continue release ("0.9.262", "v1.0.10-jetbrains") or of a date
    (`YYYY-MM-DD`, or an ISO timestamp: the dated ranges of RULES); None is the newest.
    A release or day before the table (2024-04-12) is refused: its rules are not modelled."""
    if not version:
        return ERAS[-1]
    key = _release_key(version)
    if key is not None:
        return releases()[key]
    first = _older_than_table(version)
    if first is not None:
        raise UnknownRelease(_TOO_OLD.format(version=version, first=first, day=releases()[first].since))
    try:
        day = dt.date.fromisoformat(version[:10])
    except ValueError:
        raise UnknownRelease(f"unknown Continue version {version!r}: give a release from v0.8.24 "
                              f"({len(releases())} known) or a date YYYY-MM-DD") from None
    if day < ERAS[0].since:
        raise UnknownRelease(_TOO_OLD.format(version=version, first="0.8.24-vscode", day=ERAS[0].since))
    return [e for e in ERAS if e.since <= day][-1]


_JETBRAINS_IDES = re.compile(r"IntelliJ|PyCharm|WebStorm|GoLand|CLion|Rider|PhpStorm|RubyMine|DataGrip|"
                             r"Android Studio|RustRover|Aqua|JetBrains", re.IGNORECASE)


def capture_release(version: str, user_agent: str | None) -> str:
    """The release a logged version names: dev data's userAgent ("PyCharm/2024.3 (Continue/1.0.10)")
    carries the bare number, which is a JetBrains release when the IDE is one of JetBrains'."""
    if user_agent and _JETBRAINS_IDES.search(user_agent) and re.fullmatch(r"v?[0-9][0-9.]*", version):
        return f"{version.removeprefix('v')}-jetbrains"
    return version


def profile_name(era: Era) -> str:
    return f"continue@{era.label or era.since.isoformat()}"


def holds(era: Era, rule: Rule) -> bool:
    """Whether `era` has what `rule` sets. A release's rules were read from its own source, not
    counted by date: branches make some releases lack a change dated before them."""
    return bool(rule.sets) and all(getattr(era, key) == value for key, value in rule.sets.items())


def rules_in(era: Era, day: dt.date) -> tuple[Rule, ...]:
    """The prompt side's changes in force in `era` by `day`: made by then, and what each sets
    still holds (a later change that undid one leaves it out)."""
    return tuple(rule for rule in RULES if dt.date.fromisoformat(rule.day) <= day and holds(era, rule))


def history() -> list[HistoryRow]:
    """Which rule changed when: one row per dated change (its date, commit and what changed),
    with the first release of the table that has it and the last one before that without it;
    then the template stop lists that differ from the newest, with the releases that had them.
    Releases are ordered by date; branches make some releases lack a change dated before them."""
    table = sorted(releases().values(), key=lambda e: e.since)
    rows = []
    for rule in RULES:
        day = dt.date.fromisoformat(rule.day)
        has = [e for e in table if e.since >= day and holds(e, rule)]
        first = has[0] if has else None
        before = [e for e in table if first and e.since < first.since and not holds(e, rule)]
        rows.append(HistoryRow(rule.day, rule.commit, first.label if first else "", "",
                               before[-1].label if before else "", rule.summary, rule.source))
    groups: dict[tuple[str, tuple[str, ...]], list[Era]] = {}
    for e in table:
        for name, stop in e.stops:
            groups.setdefault((name, stop), []).append(e)
    for (name, stop), eras in groups.items():
        rows.append(HistoryRow(eras[0].since.isoformat(), "", eras[0].label, eras[-1].label, "",
                               f"{name} stops {list(stop)}"))
    return rows
